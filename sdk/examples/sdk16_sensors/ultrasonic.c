/*
** sensor.other.ultrasonic_array — a parking sensor bar (an outside author's sensor, SDK 1.6):
** `beams` ultrasonic transducers fanned `spacing` degrees apart around the sensor's x axis, each
** a cone of `half_angle` reaching `range` metres. A beam reports the nearest actor whose nearest
** surface point lies inside its cone (host->overlap_cone: a specular echo's condition), its
** distance, or nothing. Records (declared, so every reader decodes them): one per beam.
*/
#include <sensim/grow.h>
#include <sensim/math.h>
#include <sensim/plugin.h>

#include <stddef.h>
#include <stdlib.h>

typedef struct echo {
    float distance;   /* m to the nearest surface point; -1: no echo */
    float bearing;    /* rad, the beam's yaw relative to the sensor */
    uint32_t actor;   /* 0 with no echo */
    uint32_t beam;
} echo;

static const sn_rec_field echo_fields[] = {
    {"distance", SN_REC_F32, offsetof(echo, distance), "m"},
    {"bearing", SN_REC_F32, offsetof(echo, bearing), "rad"},
    {"actor", SN_REC_U32, offsetof(echo, actor), NULL},
    {"beam", SN_REC_U32, offsetof(echo, beam), NULL},
};
static const sn_rec_layout records[] = {
    {.key = "echoes", .name = "ultrasonic_echo", .size = sizeof(echo), SN_REC_FIELDS(echo_fields),
     .doc = "one per beam"},
};

static const sn_attr_def attrs[] = {
    {"beams", SN_ATTR_INT, "4", NULL, NULL, true, 1, 32, NULL, "transducers"},
    {"spacing", SN_ATTR_FLOAT, "20", NULL, NULL, true, 0, 90, "deg", "yaw between neighbouring beams"},
    {"half_angle", SN_ATTR_FLOAT, "15", NULL, NULL, true, 1, 89, "deg", "half the beam's opening"},
    {"range", SN_ATTR_FLOAT, "5", NULL, NULL, true, 0.1, 20, "m", "reach"},
    SN_ATTR_SENSOR_TICK("seconds between ticks"),
};

typedef struct us {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t beams, parent;
    double spacing, half, range;
    echo *e;
    size_t cap_e;
} us;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    if (!SN_HOST_HAS(h, overlap_cone)) {
        h->set_error(c, "needs a host with ABI 1.6 (overlap_cone)");
        return SN_E_UNSUPPORTED;
    }
    us *s = calloc(1, sizeof *s);
    if (!s)
        return SN_E_NOMEM;
    s->host = h, s->ctx = c;
    *out = s;
    return SN_OK;
}

static void destroy(void *self)
{
    us *s = self;
    if (s)
        free(s->e);
    free(s);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    us *s = self;
    (void)n;
    s->beams = (uint32_t)v[0].i, s->spacing = v[1].f, s->half = v[2].f, s->range = v[3].f;
    return SN_GROW(s->e, s->cap_e, s->beams) ? SN_OK : SN_E_NOMEM;
}

static sn_status attach(void *self, uint32_t parent)
{
    ((us *)self)->parent = parent;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    us *s = self;
    const sn_host *h = s->host;
    (void)phase;
    sn_transform t;
    h->sensor_transform(s->ctx, &t);
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = &s->parent, q.n_ignore = s->parent ? 1 : 0; /* mounted on the bumper: not itself */
    for (uint32_t b = 0; b < s->beams; b++) {
        double yaw = ((double)b - (s->beams - 1) / 2.0) * s->spacing;
        sn_rotation r = t.rotation;
        r.yaw += yaw;
        sn_mat3 m = sn_mat3_from_rotation(r);
        sn_overlap hit;
        uint32_t n = 0;
        sn_status st = h->overlap_cone(s->ctx, &q, t.location, sn_mat3_apply(&m, (sn_vec3){1, 0, 0}), s->half, s->range,
                                       &hit, 1, &n);
        if (st)
            return st;
        s->e[b] = (echo){n ? (float)hit.distance : -1.0f, (float)(yaw * SN_DEG), n ? hit.actor_id : 0, b};
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    us *s = self;
    (void)index;
    s->host->write_key(w, "echoes");
    return s->host->write_bin(w, s->e, s->beams * sizeof *s->e);
}

static const sn_sensor_class ultrasonic_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.ultrasonic_array",
    .doc = "parking sensor bar: the nearest echo per ultrasonic beam (cones)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    SN_RECORD_TABLE(records),
    .create = create, .destroy = destroy, .set = set, .attach = attach, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&ultrasonic_class};
SN_PLUGIN_EXPORT(lib, "ultrasonic", "1.0", classes)
