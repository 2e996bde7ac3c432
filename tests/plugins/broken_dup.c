/* Broken on purpose: a blueprint id the collision plugin already has */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#define BLUEPRINT "sensor.other.collision"
#include "broken_common.h"
