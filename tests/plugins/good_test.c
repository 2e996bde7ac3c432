/* Broken on purpose: nothing: a valid plugin, to prove the loader accepts what it should */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#define BLUEPRINT "sensor.test.good"
#define t_serialize t_serialize
#include "broken_common.h"
