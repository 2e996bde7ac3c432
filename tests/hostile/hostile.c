/* Hostile on purpose (issue 15): one plugin source, built once per HOSTILE case, each a
** descriptor the loader must refuse, or a callback the engine must stop, without crashing:
**   1 attr_def_size 2^30        2 attr_def_size 0xFFFFFFFF     3 methods NULL with n_methods 2
**   4 a NULL method name        5 n_methods 2^31               6 a crash inside sn_plugin_entry
**   7 pending() returns 0xFFFFFFFF (loads; stops the run at frame 1) */
#include <sensim/plugin.h>

#include <signal.h>
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
static uint32_t t_pending(void *self)
{
    (void)self;
    return 0xFFFFFFFFu;
}
static sn_status t_call(void *self, const char *m, uint32_t argc, const char *const *argv)
{
    (void)self, (void)m, (void)argc, (void)argv;
    return SN_OK;
}
static const sn_attr_def attrs[] = {
    {"gain", SN_ATTR_FLOAT, "1.0", NULL, NULL, true, 0, 10, NULL, "gain"},
};
static const sn_method_def methods[] = {{"send", "sends"}, {NULL, "no name"}};

static const sn_sensor_class cls = {
    .hdr = {sizeof(sn_sensor_class), SN_ABI_MAJOR, SN_ABI_MINOR},
    .blueprint = "sensor.test.hostile",
    .attrs = attrs,
    .n_attrs = 1,
    .attr_def_size = HOSTILE == 1 ? 1u << 30 : HOSTILE == 2 ? 0xFFFFFFFFu : sizeof(sn_attr_def),
    .methods = HOSTILE == 3 ? NULL : methods,
    .n_methods = HOSTILE == 3 ? 2 : HOSTILE == 4 ? 2 : HOSTILE == 5 ? 1u << 31 : 1,
    .create = t_create,
    .destroy = t_destroy,
    .serialize = t_serialize,
    .pending = HOSTILE == 7 ? t_pending : NULL,
    .call = t_call,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {
    .hdr = {sizeof(sn_plugin_lib), SN_ABI_MAJOR, SN_ABI_MINOR}, .name = "hostile", .version = "0", .n_classes = 1,
    .classes = classes,
};

SN_PLUGIN_ENTRY
{
    (void)host_abi_major, (void)host_abi_minor;
    if (HOSTILE == 6)
        raise(SIGSEGV); /* as a NULL dereference would */
    return &lib;
}
