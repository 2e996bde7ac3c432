/* Broken on purpose: a class from a newer minor than the host */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR (SN_ABI_MINOR + 1)
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#include "broken_common.h"
