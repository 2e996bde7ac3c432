/*
** sensor.lidar.ray_cast and sensor.lidar.ray_cast_semantic — CARLA's spinning lidars on the
** engine's batched ray queries (scan.c). Attributes, defaults and the algorithm are CARLA's
** (seed 003's tables; RayCastLidar.cpp, RayCastSemanticLidar.cpp and UActorBlueprintFunction-
** Library::SetLidar for the rules); docs/sensors/lidar.md says where and why sensim differs.
**
** Message keys after the header: horizontal_angle (float32, radians: where the next tick
** starts, CARLA's LidarMeasurement field), channels, point_count (points per channel, CARLA's
** get_point_count), raw_data (sensim/records.h: sn_point_xyzi or sn_semantic_point records,
** channel by channel), and with motion_distortion point_time_ns (one int64 per point: the
** simulated time it was measured at, in the same order).
*/
#include "scan.h"

#include <sensim/noise.h>

#include <stdlib.h>
#include <string.h>

/* The attributes both lidars have, in this order. */
#define SCAN_ATTRS                                                                                               \
    {"channels", SN_ATTR_INT, "32", NULL, NULL, true, 1, 4096, NULL, "number of lasers, spread over [lower_fov, upper_fov]"}, \
    {"range", SN_ATTR_FLOAT, "10.0", NULL, NULL, true, 0.001, 1e6, "m", "maximum distance of a measurement"},       \
    {"points_per_second", SN_ATTR_INT, "56000", NULL, NULL, true, 0, 1e9, NULL,                                   \
     "points all lasers cast per second (before drop-off)"},                                                     \
    {"rotation_frequency", SN_ATTR_FLOAT, "10.0", NULL, NULL, true, 0, 1e4, "Hz",                                 \
     "turns per second: each tick covers rotation_frequency x horizontal_fov x the frame step degrees"},               \
    {"upper_fov", SN_ATTR_FLOAT, "10.0", NULL, NULL, true, -90, 90, "deg", "elevation of the highest laser"},      \
    {"lower_fov", SN_ATTR_FLOAT, "-30.0", NULL, NULL, true, -90, 90, "deg", "elevation of the lowest laser"},      \
    {"horizontal_fov", SN_ATTR_FLOAT, "360.0", NULL, NULL, true, 0, 360, "deg",                                   \
     "horizontal field of view, centred on the sensor's x axis (0 refused)"}

#define TAIL_ATTRS                                                                                               \
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"), \
    {"motion_distortion", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,                                   \
     "sensim: each column measured at its own time inside the tick from the sensor's pose then (a spinning lidar "  \
     "on a moving car); false is CARLA's one still picture"}

static const char *const intensity_models[] = {"carla", "reflectivity", NULL};
/* CARLA's recommended values (ActorBlueprintFunctionLibrary's lidar definition); its scripts read them */
static const char *const rec_gen_rate[] = {"0.45", NULL};
static const char *const rec_int_limit[] = {"0.8", NULL};
static const char *const rec_zero_int[] = {"0.4", NULL};

static const sn_attr_def lidar_attrs[] = {
    SCAN_ATTRS,
    {"atmosphere_attenuation_rate", SN_ATTR_FLOAT, "0.004", NULL, NULL, true, 0, 1e3, "1/m",
     "intensity = exp(-rate x distance)"},
    {"dropoff_general_rate", SN_ATTR_FLOAT, "0.45", rec_gen_rate, NULL, true, 0, 1, NULL,
     "share of rays dropped at random before tracing"},
    {"dropoff_intensity_limit", SN_ATTR_FLOAT, "0.8", rec_int_limit, NULL, true, 0, 1, NULL,
     "points with a higher intensity are never dropped"},
    {"dropoff_zero_intensity", SN_ATTR_FLOAT, "0.4", rec_zero_int, NULL, true, 0, 1, NULL,
     "probability that a point of intensity 0 is dropped (linear up to the limit)"},
    {"noise_stddev", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e3, "m",
     "standard deviation of noise along each ray (range noise; angles exact)"},
    {"noise_seed", SN_ATTR_INT, "0", NULL, NULL, true, 0, 4294967295.0, NULL,
     "seed of the drop-off and noise draws when given; else the sensor's own stream (scene seed and name)"},
    {"intensity_model", SN_ATTR_ENUM, "carla", NULL, intensity_models, false, 0, 0, NULL,
     "sensim: carla = exp(-rate x distance); reflectivity = the surface's reflectivity x cos(incidence) x that"},
    TAIL_ATTRS,
};

static const sn_attr_def semantic_attrs[] = {SCAN_ATTRS, TAIL_ATTRS};

typedef struct lidar {
    const sn_host *h;
    sn_ctx *ctx;
    bool semantic;
    lidar_scan scan;
} lidar;

static sn_status create_kind(const sn_host *h, sn_ctx *ctx, void **out, bool semantic)
{
    if (h->hdr.abi_minor < 2 || !h->ray_batch || !h->sensor_transform_at) {
        h->set_error(ctx, "this host has no batched ray queries (it offers ABI %u.%u, lidars need 1.2)",
                     (unsigned)h->hdr.abi_major, (unsigned)h->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    lidar *l = calloc(1, sizeof *l);
    if (!l)
        return SN_E_NOMEM;
    l->h = h;
    l->ctx = ctx;
    l->semantic = semantic;
    *out = l;
    return SN_OK;
}
static sn_status create_lidar(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, false); }
static sn_status create_semantic(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, true); }

static void destroy(void *self)
{
    lidar *l = self;
    if (l)
        lidar_scan_free(&l->scan);
    free(l);
}

/* The value of attribute `name` in this class's table (set() gets one value per entry). */
static const sn_value *val(const lidar *l, const sn_value *v, uint32_t n, const char *name)
{
    const sn_attr_def *t = l->semantic ? semantic_attrs : lidar_attrs;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &v[i];
    return NULL;
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    lidar *l = self;
    const sn_host *h = l->h;
    uint32_t want = l->semantic ? sizeof semantic_attrs / sizeof *semantic_attrs : sizeof lidar_attrs / sizeof *lidar_attrs;
    if (n != want) {
        h->set_error(l->ctx, "expected %u attribute values, got %u", want, n);
        return SN_E_INVALID;
    }
    lidar_cfg c = {0};
    c.semantic = l->semantic;
    c.channels = (uint32_t)val(l, v, n, "channels")->i;
    c.range = val(l, v, n, "range")->f;
    c.points_per_second = (double)val(l, v, n, "points_per_second")->i;
    c.rotation_frequency = val(l, v, n, "rotation_frequency")->f;
    c.upper_fov = val(l, v, n, "upper_fov")->f;
    c.lower_fov = val(l, v, n, "lower_fov")->f;
    c.horizontal_fov = val(l, v, n, "horizontal_fov")->f;
    c.motion_distortion = val(l, v, n, "motion_distortion")->b;
    double sensor_tick = val(l, v, n, "sensor_tick")->f;
    if (c.upper_fov < c.lower_fov) {
        h->set_error(l->ctx, "upper_fov %g is below lower_fov %g: the highest laser must be at or above the lowest",
                     c.upper_fov, c.lower_fov);
        return SN_E_RANGE;
    }
    if (!(c.horizontal_fov > 0)) {
        h->set_error(l->ctx, "horizontal_fov 0: must be in (0, 360] degrees");
        return SN_E_RANGE;
    }
    if (!l->semantic) {
        c.atmosphere_attenuation_rate = val(l, v, n, "atmosphere_attenuation_rate")->f;
        c.dropoff_general_rate = val(l, v, n, "dropoff_general_rate")->f;
        c.dropoff_intensity_limit = val(l, v, n, "dropoff_intensity_limit")->f;
        c.dropoff_zero_intensity = val(l, v, n, "dropoff_zero_intensity")->f;
        c.noise_stddev = val(l, v, n, "noise_stddev")->f;
        c.reflectivity = val(l, v, n, "intensity_model")->i == 1;
        if (c.reflectivity && h->hdr.abi_minor < 5) {
            h->set_error(l->ctx, "intensity_model reflectivity needs a host of ABI 1.5 (reflectivity in ray hits); "
                         "this one offers %u.%u", (unsigned)h->hdr.abi_major, (unsigned)h->hdr.abi_minor);
            return SN_E_UNSUPPORTED;
        }
        /* CARLA reads noise_seed into the description; sensim restarts the sensor's stream from
        ** it only when it was given, so a scene without it keeps its per-sensor stream */
        sn_noise_apply_seed(h, l->ctx, "noise_seed", val(l, v, n, "noise_seed")->i, SN_NOISE_SEED_GIVEN);
    }
    if (h->world_settings) {
        sn_world_settings ws = {sizeof ws, {0, 0, 0}, 0, 0, 0, 0, 0};
        h->world_settings(l->ctx, &ws);
        double dt = ws.fixed_delta_seconds, longest = dt; /* a tick casts one frame's rays (CARLA's) */
        if (c.motion_distortion && sensor_tick > dt) {
            h->set_error(l->ctx, "motion_distortion needs a tick every frame: sensor_tick %g s is longer than the "
                         "frame (%g s), and the world's motion is known over the last frame only", sensor_tick, dt);
            return SN_E_RANGE;
        }
        double per_tick = c.points_per_second * longest;
        if (per_tick > (double)(1u << 24) + c.channels) {
            h->set_error(l->ctx, "points_per_second %.0f x the frame's %g s is %.0f rays a tick, above the "
                         "16777216 a lidar may cast at once", c.points_per_second, longest, per_tick);
            return SN_E_RANGE;
        }
    }
    lidar_scan_free(&l->scan);
    return lidar_scan_init(&l->scan, h, l->ctx, &c);
}

static sn_status tick(void *self, sn_phase phase)
{
    lidar *l = self;
    (void)phase;
    return lidar_scan_tick(&l->scan);
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    lidar *l = self;
    const sn_host *h = l->h;
    const lidar_scan *s = &l->scan;
    (void)index;
    h->write_key(w, "horizontal_angle");
    h->write_float(w, s->horizontal_angle);
    h->write_key(w, "channels");
    h->write_uint(w, s->cfg.channels);
    h->write_key(w, "point_count");
    h->write_array(w, s->cfg.channels);
    for (uint32_t i = 0; i < s->cfg.channels; i++)
        h->write_uint(w, s->counts[i]);
    size_t rec = l->semantic ? sizeof(sn_semantic_point) : sizeof(sn_point_xyzi);
    h->write_key(w, "raw_data");
    sn_status st = h->write_bin(w, s->points, s->n_points * rec);
    if (s->cfg.motion_distortion) {
        h->write_key(w, "point_time_ns");
        st = h->write_bin(w, s->point_time, s->n_points * sizeof *s->point_time);
    }
    return st;
}

#define CLASS(var, bp, doc_, attrs_, create_)                                      \
    static const sn_sensor_class var = {                                           \
        .hdr = SN_ABI_HEADER(sn_sensor_class),                                     \
        .blueprint = bp,                                                           \
        .doc = doc_,                                                               \
        .phases = SN_PHASE_POST,                                                   \
        SN_ATTR_TABLE(attrs_),                                                     \
        .create = create_,                                                         \
        .destroy = destroy,                                                        \
        .set = set,                                                                \
        .tick = tick,                                                              \
        .serialize = serialize,                                                    \
        .value_size = sizeof(sn_value),                                            \
    }

CLASS(lidar_class, "sensor.lidar.ray_cast",
      "spinning lidar: x, y, z, intensity per point (CARLA's drop-off, attenuation and range noise)", lidar_attrs,
      create_lidar);
CLASS(semantic_class, "sensor.lidar.ray_cast_semantic",
      "spinning lidar: x, y, z, cosine of incidence, actor id and semantic tag per point", semantic_attrs,
      create_semantic);

static const sn_sensor_class *const classes[] = {&lidar_class, &semantic_class};

SN_PLUGIN_EXPORT(library, "lidar", "1.0.0", classes)
