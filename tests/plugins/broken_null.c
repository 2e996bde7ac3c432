/* Broken on purpose: the entry refuses the host */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 1
#include "broken_common.h"
