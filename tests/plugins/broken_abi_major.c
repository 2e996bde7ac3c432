/* Broken on purpose: built for ABI major 99 */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR 99
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#include "broken_common.h"
