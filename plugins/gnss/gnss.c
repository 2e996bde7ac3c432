/*
** sensor.other.gnss — CARLA's GNSS sensor as a sensim plugin.
**
** Follows CARLA 0.9.15's AGnssSensor::PostPhysTick (Unreal/CarlaUE4/Plugins/Carla/Source/Carla/
** Sensor/GnssSensor.cpp): the sensor's own world location through the map's geo-reference with
** GeoLocation::Transform (LibCarla geom/GeoLocation.cpp: a Mercator projection scaled at the
** reference latitude, world -y is north; here host->world_to_geo), then
**     latitude  += lat_bias + N(0, lat_stddev)   degrees
**     longitude += lon_bias + N(0, lon_stddev)   degrees
**     altitude  += alt_bias + N(0, alt_stddev)   metres
** with the three normals drawn in that order every tick (also with a stddev of 0). CARLA keeps
** biases and deviations as float and each error as a float: the same roundings here, so a
** bias of 0.1 degrees is float's 0.100000001490116 as in CARLA. docs/sensors/imu-gnss.md has the rest.
*/
#include <sensim/noise.h>
#include <sensim/plugin.h>

#include <stdlib.h>
#include <string.h>

#define STDDEV(name, unit, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e6, unit, doc}
#define BIAS(name, unit, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, -1e6, 1e6, unit, doc}

/* CARLA's blueprint (MakeGnssDefinition), in this order: set() reads them by index. */
static const sn_attr_def gnss_attrs[] = {
    BIAS("noise_alt_bias", "m", "mean of the altitude noise (a constant offset)"),
    STDDEV("noise_alt_stddev", "m", "standard deviation of the altitude noise"),
    BIAS("noise_lat_bias", "deg", "mean of the latitude noise (a constant offset)"),
    STDDEV("noise_lat_stddev", "deg", "standard deviation of the latitude noise"),
    BIAS("noise_lon_bias", "deg", "mean of the longitude noise (a constant offset)"),
    STDDEV("noise_lon_stddev", "deg", "standard deviation of the longitude noise"),
    {"noise_seed", SN_ATTR_INT, "0", NULL, NULL, true, 0, 4294967295.0, NULL,
     "seed of the noise; 0 keeps the sensor's own stream (scene seed and sensor name)"},
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),
};

typedef struct gnss {
    const sn_host *h;
    sn_ctx *ctx;
    double bias[3], sd[3]; /* latitude, longitude, altitude: CARLA's draw order */
    sn_geo_location fix;
} gnss;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    if (h->hdr.abi_minor < 2 || !h->world_to_geo || !h->random_seed) {
        h->set_error(ctx, "sensor.other.gnss needs a host of ABI 1.2 (the geo-reference, reseeding)");
        return SN_E_UNSUPPORTED;
    }
    gnss *g = calloc(1, sizeof *g);
    if (!g) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    g->h = h, g->ctx = ctx;
    *out = g;
    return SN_OK;
}

static void destroy(void *self) { free(self); }

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    gnss *g = self;
    (void)n;
    g->bias[2] = sn_noise_f32(a[0].f), g->sd[2] = sn_noise_f32(a[1].f);
    g->bias[0] = sn_noise_f32(a[2].f), g->sd[0] = sn_noise_f32(a[3].f);
    g->bias[1] = sn_noise_f32(a[4].f), g->sd[1] = sn_noise_f32(a[5].f);
    sn_noise_apply_seed(g->h, g->ctx, "noise_seed", a[6].i, SN_NOISE_SEED_NONZERO);
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    gnss *g = self;
    const sn_host *h = g->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    sn_transform t;
    h->sensor_transform(g->ctx, &t);
    sn_geo_location geo;
    sn_status st = h->world_to_geo(g->ctx, t.location, &geo);
    if (st)
        return st;
    /* CARLA: const float LatError, LonError, AltError, drawn in this order (sensim/noise.h). */
    const sn_noise noise = sn_noise_host(h, g->ctx);
    const sn_vec3 e = sn_noise_normal3(&noise, (sn_vec3){0, 0, 0}, g->sd);
    const double e_lat = sn_noise_f32(e.x), e_lon = sn_noise_f32(e.y), e_alt = sn_noise_f32(e.z);
    g->fix.latitude = geo.latitude + g->bias[0] + e_lat;
    g->fix.longitude = geo.longitude + g->bias[1] + e_lon;
    g->fix.altitude = geo.altitude + g->bias[2] + e_alt;
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    gnss *g = self;
    const sn_host *h = g->h;
    (void)index;
    h->write_key(w, "latitude");
    h->write_double(w, g->fix.latitude);
    h->write_key(w, "longitude");
    h->write_double(w, g->fix.longitude);
    h->write_key(w, "altitude");
    return h->write_double(w, g->fix.altitude);
}

static const sn_sensor_class gnss_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.gnss",
    .doc = "latitude, longitude and altitude of the sensor through the geo-reference (CARLA's GNSS)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(gnss_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&gnss_class};
SN_PLUGIN_EXPORT(lib, "gnss", "1.0.0", classes)
