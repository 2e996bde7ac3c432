/* A test sensor of ABI 1.2's additions: class state (instances counted, tick order logged),
** world settings, its mount, kinematics at its point, a reseeded random stream and the
** geodetic position of its location. Used by test_sdk12 against derivable values. */
#include <sensim/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shared by the instances of one engine: no static holds any of it. */
typedef struct klass {
    const sn_host *host;
    int instances;
    char order[64]; /* this frame: '<' '>' class ticks of PRE, '[' ']' of POST, 'i' 'I' instance ticks */
    size_t n;
} klass;

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    klass *k;
    int64_t seed;
    sn_kinematics kin;
    sn_world_settings ws;
    sn_transform mount;
    sn_geo_location geo;
    uint64_t draws[4];
} probe;

static const sn_attr_def attrs[] = {
    {"noise_seed", SN_ATTR_INT, "-1", NULL, NULL, true, -1, 1e9, NULL, "reseed the stream with it; -1 keeps it"},
};
static const sn_method_def methods[] = {{"noop", "does nothing"}};

static void note(klass *k, char c)
{
    if (k->n + 1 < sizeof k->order)
        k->order[k->n++] = c, k->order[k->n] = 0;
}

static sn_status class_create(const sn_host *h, sn_ctx *cc, void **out)
{
    klass *k = calloc(1, sizeof *k);
    if (!k) {
        h->set_error(cc, "out of memory");
        return SN_E_NOMEM;
    }
    k->host = h;
    *out = k;
    return SN_OK;
}

static void class_destroy(void *state) { free(state); }

static sn_status class_tick(void *state, sn_phase phase, bool after)
{
    klass *k = state;
    if (phase == SN_PHASE_PRE && !after)
        k->n = 0, k->order[0] = 0;
    note(k, phase == SN_PHASE_PRE ? (after ? '>' : '<') : (after ? ']' : '['));
    return SN_OK;
}

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    if (h->hdr.abi_minor < 2 || !h->class_state) {
        h->set_error(c, "needs a host of ABI 1.2");
        return SN_E_UNSUPPORTED;
    }
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->host = h;
    p->ctx = c;
    p->k = h->class_state(c);
    p->k->instances++;
    *out = p;
    return SN_OK;
}

static void destroy(void *self)
{
    probe *p = self;
    if (p)
        p->k->instances--;
    free(p);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    (void)n;
    p->seed = v[0].i;
    if (p->seed >= 0)
        p->host->random_seed(p->ctx, (uint64_t)p->seed);
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    note(p->k, phase == SN_PHASE_PRE ? 'i' : 'I');
    if (phase != SN_PHASE_POST)
        return SN_OK;
    const sn_host *h = p->host;
    p->kin.struct_size = sizeof p->kin;
    p->ws.struct_size = sizeof p->ws;
    sn_status st = h->sensor_kinematics(p->ctx, &p->kin);
    if (!st)
        st = h->world_to_geo(p->ctx, p->kin.transform.location, &p->geo);
    h->world_settings(p->ctx, &p->ws);
    h->sensor_mount(p->ctx, &p->mount);
    for (int i = 0; i < 4; i++)
        p->draws[i] = h->random_u64(p->ctx);
    return st;
}

static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)i;
    h->write_key(w, "instances");
    h->write_int(w, p->k->instances);
    h->write_key(w, "order");
    h->write_str(w, p->k->order);
    h->write_key(w, "velocity");
    h->write_vec3(w, p->kin.velocity);
    h->write_key(w, "acceleration");
    h->write_vec3(w, p->kin.acceleration);
    h->write_key(w, "angular_velocity");
    h->write_vec3(w, p->kin.angular_velocity);
    h->write_key(w, "angular_acceleration");
    h->write_vec3(w, p->kin.angular_acceleration);
    h->write_key(w, "location");
    h->write_vec3(w, p->kin.transform.location);
    h->write_key(w, "gravity");
    h->write_vec3(w, p->ws.gravity);
    h->write_key(w, "physics");
    h->write_array(w, 5);
    h->write_double(w, p->ws.fixed_delta_seconds);
    h->write_double(w, p->ws.substep_delta_seconds);
    h->write_uint(w, p->ws.substeps);
    h->write_uint(w, p->ws.max_substeps);
    h->write_double(w, p->ws.max_substep_delta_time);
    h->write_key(w, "mount");
    h->write_vec3(w, p->mount.location);
    h->write_key(w, "geo");
    h->write_vec3(w, (sn_vec3){p->geo.latitude, p->geo.longitude, p->geo.altitude});
    h->write_key(w, "draws");
    h->write_array(w, 4);
    for (int k = 0; k < 4; k++)
        h->write_uint(w, p->draws[k]);
    return SN_OK;
}

static sn_status call(void *self, const char *m, uint32_t argc, const char *const *argv)
{
    (void)self, (void)m, (void)argc, (void)argv;
    return SN_OK;
}

static const sn_sensor_class probe_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.sdk12_probe",
    .doc = "reports ABI 1.2's class state, kinematics, settings, mount, reseeded draws, geo",
    .phases = SN_PHASE_PRE | SN_PHASE_POST,
    .attrs = attrs, .n_attrs = 1, .attr_def_size = sizeof(sn_attr_def),
    .methods = methods, .n_methods = 1, .method_def_size = sizeof(sn_method_def), .value_size = sizeof(sn_value),
    .create = create, .destroy = destroy, .set = set, .tick = tick, .serialize = serialize, .call = call,
    .class_create = class_create, .class_destroy = class_destroy, .class_tick = class_tick,
};
static const sn_sensor_class *const classes[] = {&probe_class};
static const sn_plugin_lib lib = {SN_ABI_HEADER(sn_plugin_lib), "sdk12_probe", "1.0", 1, classes};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &lib : NULL;
}
