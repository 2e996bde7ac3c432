/* ABI 1.6's host additions from a plugin: nearest-first overlaps, a cone, per-ray ignore pairs,
** an actor's route and the lights and signs ahead of it. Each POST tick runs them from the
** sensor's pose (forward = its x axis) and serialize writes what came back; test_sdk16 checks
** the numbers against geometry and the embedding API. */
#include <sensim/math.h>
#include <sensim/plugin.h>

#include <stdlib.h>
#include <string.h>

#define CAP 16

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t target, a, b;
    double range, half, reach;
    sn_overlap near[CAP], cone[CAP];
    uint32_t n_near, n_cone;
    sn_ray_result rays[3];
    sn_landmark marks[CAP];
    uint32_t n_marks;
    sn_waypoint route[128];
    uint32_t n_route;
} probe;

static const sn_attr_def attrs[] = {
    {"target", SN_ATTR_INT, "0", NULL, NULL, true, 0, 1e9, NULL, "actor whose route and landmarks are asked"},
    {"ignore_a", SN_ATTR_INT, "0", NULL, NULL, true, 0, 1e9, NULL, "first actor of the ray pairs"},
    {"ignore_b", SN_ATTR_INT, "0", NULL, NULL, true, 0, 1e9, NULL, "second actor of the ray pairs"},
    {"range", SN_ATTR_FLOAT, "30", NULL, NULL, true, 0, 1000, "m", "sphere radius and cone range"},
    {"half_angle", SN_ATTR_FLOAT, "30", NULL, NULL, true, 1, 180, "deg", "cone half angle"},
    {"reach", SN_ATTR_FLOAT, "100", NULL, NULL, true, 0, 1000, "m", "landmarks_ahead distance"},
};

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    if (!SN_HOST_HAS(h, landmarks_ahead)) {
        free(p);
        h->set_error(c, "host without ABI 1.6");
        return SN_E_UNSUPPORTED;
    }
    p->host = h, p->ctx = c;
    *out = p;
    return SN_OK;
}
static void destroy(void *self) { free(self); }
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    (void)n;
    p->target = (uint32_t)v[0].i, p->a = (uint32_t)v[1].i, p->b = (uint32_t)v[2].i;
    p->range = v[3].f, p->half = v[4].f, p->reach = v[5].f;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    const sn_host *h = p->host;
    sn_transform t;
    (void)phase;
    h->sensor_transform(p->ctx, &t);
    sn_mat3 r = sn_mat3_from_rotation(t.rotation);
    sn_vec3 fwd = sn_mat3_apply(&r, (sn_vec3){1, 0, 0});
    sn_status st;
    if ((st = h->overlap_sphere_nearest(p->ctx, NULL, t.location, p->range, p->near, CAP, &p->n_near)) ||
        (st = h->overlap_cone(p->ctx, NULL, t.location, fwd, p->half, p->range, p->cone, CAP, &p->n_cone)))
        return st;
    sn_ray rays[3];
    const uint32_t pairs[3][2] = {{0, 0}, {p->a, 0}, {p->b, p->a}};
    for (int i = 0; i < 3; i++)
        rays[i] = (sn_ray){t.location, fwd, p->range};
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ray_ignore = pairs;
    if ((st = h->ray_batch(p->ctx, &q, rays, 3, p->rays)))
        return st;
    p->n_marks = p->n_route = 0;
    if (p->target) {
        p->marks[0].struct_size = sizeof p->marks[0];
        if ((st = h->landmarks_ahead(p->ctx, p->target, p->reach, 0, p->marks, CAP, &p->n_marks)) ||
            (st = h->actor_route(p->ctx, p->target, p->route, 128, &p->n_route)))
            return st;
    }
    return SN_OK;
}

static void overlaps(const sn_host *h, sn_writer *w, const char *key, const sn_overlap *o, uint32_t n)
{
    h->write_key(w, key);
    h->write_array(w, n < CAP ? n : CAP);
    for (uint32_t i = 0; i < n && i < CAP; i++) {
        h->write_array(w, 5);
        h->write_uint(w, o[i].actor_id);
        h->write_double(w, o[i].distance);
        h->write_double(w, o[i].point.x), h->write_double(w, o[i].point.y), h->write_double(w, o[i].point.z);
    }
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)index;
    overlaps(h, w, "near", p->near, p->n_near);
    overlaps(h, w, "cone", p->cone, p->n_cone);
    h->write_key(w, "rays");
    h->write_array(w, 3);
    for (int i = 0; i < 3; i++) {
        h->write_array(w, 2);
        h->write_uint(w, p->rays[i].n_hits ? p->rays[i].hit.actor_id : 0);
        h->write_double(w, p->rays[i].n_hits ? p->rays[i].hit.distance : -1);
    }
    uint32_t nm = p->n_marks < CAP ? p->n_marks : CAP;
    h->write_key(w, "marks");
    h->write_array(w, nm);
    for (uint32_t i = 0; i < nm; i++) {
        const sn_landmark *m = &p->marks[i];
        h->write_array(w, 9);
        h->write_uint(w, m->kind), h->write_uint(w, m->actor_id), h->write_int(w, m->signal_id);
        h->write_uint(w, m->state), h->write_double(w, m->limit), h->write_double(w, m->distance);
        h->write_int(w, m->line.road_id), h->write_int(w, m->line.lane_id), h->write_double(w, m->line.s);
    }
    double max_step = 0;
    for (uint32_t i = 1; i < p->n_route && i < 128; i++) {
        double d = sn_v3_len(sn_v3_sub(p->route[i].transform.location, p->route[i - 1].transform.location));
        max_step = d > max_step ? d : max_step;
    }
    h->write_key(w, "route");
    h->write_array(w, 5);
    h->write_uint(w, p->n_route);
    h->write_int(w, p->n_route ? p->route[0].road_id : 0);
    h->write_int(w, p->n_route ? p->route[0].lane_id : 0);
    h->write_double(w, p->n_route ? p->route[0].transform.location.x : 0);
    h->write_double(w, max_step);
    return SN_OK;
}

static const sn_sensor_class probe_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.sdk16_probe",
    .doc = "calls ABI 1.6's host functions",
    .phases = SN_PHASE_POST,
    .attrs = attrs, .n_attrs = sizeof attrs / sizeof attrs[0], .attr_def_size = sizeof(sn_attr_def),
    .create = create, .destroy = destroy, .set = set, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&probe_class};
static const sn_plugin_lib lib = {SN_ABI_HEADER(sn_plugin_lib), "sdk16_probe", "1.0", 1, classes};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &lib : NULL;
}
