/* Broken on purpose: a required callback missing */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE NULL
#define RETURN_NULL 0
#include "broken_common.h"
