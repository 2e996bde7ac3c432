/* A test sensor: one message per post-physics tick carrying the frame and the phases seen,
** to check sensor_tick and the order of phases. Also counts world events. */
#include <sensim/plugin.h>

#include <stdlib.h>

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    uint64_t pre_frame;
    uint32_t spawned, destroyed;
} probe;

static const sn_attr_def attrs[] = {
    {"sensor_tick", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1000, "s", "seconds between ticks"},
};

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->host = h;
    p->ctx = c;
    *out = p;
    return SN_OK;
}
static void destroy(void *self) { free(self); }

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    if (phase == SN_PHASE_PRE)
        p->pre_frame = p->host->clock(p->ctx)->frame;
    return SN_OK;
}

static sn_status on_event(void *self, const sn_event *ev)
{
    probe *p = self;
    p->spawned += ev->type == SN_EVENT_ACTOR_SPAWNED;
    p->destroyed += ev->type == SN_EVENT_ACTOR_DESTROYED;
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)i;
    h->write_key(w, "pre_frame");
    h->write_uint(w, p->pre_frame);
    h->write_key(w, "time_ns");
    h->write_int(w, h->clock(p->ctx)->time_ns);
    h->write_key(w, "spawned");
    h->write_uint(w, p->spawned);
    h->write_key(w, "destroyed");
    h->write_uint(w, p->destroyed);
    h->write_key(w, "actors");
    h->write_uint(w, h->actor_count(p->ctx));
    h->write_key(w, "random");
    return h->write_double(w, h->random_uniform(p->ctx));
}

static const sn_sensor_class cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.tick_probe",
    .doc = "test probe",
    .phases = SN_PHASE_PRE | SN_PHASE_POST,
    .events = SN_EVENT_ACTOR_SPAWNED | SN_EVENT_ACTOR_DESTROYED,
    .attrs = attrs,
    .n_attrs = 1,
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .tick = tick,
    .on_event = on_event,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {SN_ABI_HEADER(sn_plugin_lib), "tick_probe", "1", 1, classes};

SN_PLUGIN_ENTRY
{
    (void)host_abi_major, (void)host_abi_minor;
    return &lib;
}
