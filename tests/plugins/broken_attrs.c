/* Broken on purpose: an attribute default outside its range */
#include <sensim/plugin.h>
#include <stddef.h>
#define CLASS_MINOR SN_ABI_MINOR
#define LIB_SIZE sizeof(sn_plugin_lib)
#define LIB_MAJOR SN_ABI_MAJOR
#define SERIALIZE t_serialize
#define RETURN_NULL 0
#define ATTRS
static const sn_attr_def attrs[] = {
    {"gain", SN_ATTR_FLOAT, "20", NULL, NULL, true, 0, 10, NULL, "gain"},
};
#include "broken_common.h"
