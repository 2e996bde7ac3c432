/* Shared pieces of the deliberately broken test plugins. Each .c defines BROKEN_* then
** includes this file, which builds one sensor class and the entry point. */
#include <sensim/plugin.h>

#include <stdlib.h>

static sn_status t_create(const sn_host *h, sn_ctx *c, void **out)
{
    (void)h, (void)c;
    *out = malloc(1);
    return *out ? SN_OK : SN_E_NOMEM;
}
static void t_destroy(void *self) { free(self); }
static sn_status t_serialize(void *self, uint32_t i, sn_writer *w)
{
    (void)self, (void)i, (void)w;
    return SN_OK;
}

#ifndef BLUEPRINT
#define BLUEPRINT "sensor.test.broken"
#endif
#ifndef PHASES
#define PHASES 0
#endif
#ifndef ATTRS
static const sn_attr_def attrs[] = {
    {"gain", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0, 10, NULL, "gain"},
};
#endif

static const sn_sensor_class cls = {
    .hdr = {sizeof(sn_sensor_class), SN_ABI_MAJOR, CLASS_MINOR},
    .blueprint = BLUEPRINT,
    .attrs = attrs,
    .n_attrs = sizeof attrs / sizeof attrs[0],
    .attr_def_size = sizeof(sn_attr_def),
    .create = t_create,
    .destroy = t_destroy,
    .serialize = SERIALIZE,
    .phases = PHASES,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {
    .hdr = {LIB_SIZE, LIB_MAJOR, SN_ABI_MINOR}, .name = "broken", .version = "0", .n_classes = 1, .classes = classes,
};

SN_PLUGIN_ENTRY
{
    (void)host_abi_major, (void)host_abi_minor, (void)t_serialize;
    return RETURN_NULL ? NULL : &lib;
}
