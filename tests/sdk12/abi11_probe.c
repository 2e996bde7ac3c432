/* A sensor built against the frozen ABI 1.1 headers (tests/abi11/include): a 1.2 host must
** load it (its sensor class zero-extended) and run it: attributes through set(), a method
** from its table, ray casts into its 1.1 sn_ray_hit (no struct_size), messages. */
#include <sensim/plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    const char *label;
    int64_t count;
    char marked[32];
    bool hit;
    sn_ray_hit h;
} probe;

static const sn_attr_def attrs[] = {
    {"label", SN_ATTR_STRING, "none", NULL, NULL, false, 0, 0, NULL, "written back"},
    {"count", SN_ATTR_INT, "1", NULL, NULL, true, 0, 100, NULL, "written back"},
};
static const sn_method_def methods[] = {{"noop", "does nothing"}, {"mark", "remembers its argument"}};

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->host = h, p->ctx = c;
    strcpy(p->marked, "-");
    *out = p;
    return SN_OK;
}
static void destroy(void *self) { free(self); }
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    if (n != 2)
        return SN_E_INVALID;
    p->label = v[0].s, p->count = v[1].i;
    return SN_OK;
}
static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    sn_transform t;
    (void)phase;
    p->host->sensor_transform(p->ctx, &t);
    memset(&p->h, 0xAB, sizeof p->h); /* what the host does not write shows */
#if SN_ABI_MINOR >= 2 /* built against 1.2 or later headers (tests/compat): the contract since 1.2 */
    p->h.struct_size = sizeof p->h;
#endif
    p->hit = p->host->ray_cast(p->ctx, t.location, (sn_vec3){0, 0, -1}, 100, 0, &p->h);
    return SN_OK;
}
static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)i;
    h->write_key(w, "label");
    h->write_str(w, p->label);
    h->write_key(w, "count");
    h->write_int(w, p->count);
    h->write_key(w, "marked");
    h->write_str(w, p->marked);
    h->write_key(w, "hit");
    h->write_bool(w, p->hit);
    h->write_key(w, "distance");
    h->write_double(w, p->h.distance);
    h->write_key(w, "point");
    h->write_vec3(w, p->h.point);
    h->write_key(w, "actor");
    h->write_uint(w, p->h.actor_id);
    h->write_key(w, "tag");
    h->write_uint(w, p->h.semantic_tag);
    return SN_OK;
}
static sn_status call(void *self, const char *m, uint32_t argc, const char *const *argv)
{
    probe *p = self;
    if (!strcmp(m, "mark") && argc == 1) {
        strncpy(p->marked, argv[0], sizeof p->marked - 1);
        return SN_OK;
    }
    return strcmp(m, "noop") ? SN_E_INVALID : SN_OK;
}

static const sn_sensor_class probe_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.abi11",
    .doc = "built against ABI 1.1",
    .phases = SN_PHASE_POST,
    .attrs = attrs, .n_attrs = 2, .attr_def_size = sizeof(sn_attr_def),
    .methods = methods, .n_methods = 2,
    .create = create, .destroy = destroy, .set = set, .tick = tick, .serialize = serialize, .call = call,
};
static const sn_sensor_class *const classes[] = {&probe_class};
static const sn_plugin_lib lib = {SN_ABI_HEADER(sn_plugin_lib), "abi11_probe", "1.0", 1, classes};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &lib : NULL;
}
