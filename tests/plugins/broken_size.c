/* Broken on purpose: a descriptor larger than the host knows */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE (sizeof(sn_plugin_lib) + 64)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#include "broken_common.h"
