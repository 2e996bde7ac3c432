/* Loads, with a warning: it asks for the POST phase but has neither tick nor class_tick. */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#define BLUEPRINT "sensor.test.notick"
#define PHASES SN_PHASE_POST
#include "broken_common.h"
