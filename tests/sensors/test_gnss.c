/*
** sensor.other.gnss on the SDK's fake host: positions against CARLA 0.9.15's
** GeoLocation::Transform written out here from LibCarla's geom/GeoLocation.cpp (to 1e-9
** degrees at points up to 20 km out, with a known geo-reference) and against the closed form on
** the equator; biases in CARLA's float; noise statistics over 10 000 draws; CARLA's draw order
** (latitude, longitude, altitude, every tick) against the engine's stream written out;
** sensor_tick; refused attributes; the same bytes on 1 and 2 threads. argv[1]: sensim_gnss.so
*/
#define SN_TESTING_IMPLEMENTATION
#include "common.h"

static const char *BP = "sensor.other.gnss";
static const char *PLUGIN;

/* LibCarla GeoLocation::Transform (REL): Mercator scaled at the reference latitude, +y south. */
static sn_geo_location carla_geo(sn_geo_location ref, sn_vec3 loc)
{
    const double R = 6378137.0, scale = cos(ref.latitude * PI / 180.0);
    double mx = scale * (ref.longitude * PI / 180.0) * R;
    double my = scale * R * log(tan((90.0 + ref.latitude) * PI / 360.0));
    mx += loc.x;
    my += -loc.y;
    sn_geo_location g;
    g.longitude = mx * 180.0 / (PI * R * scale);
    g.latitude = 360.0 * atan(exp(my / (R * scale))) / PI - 90.0;
    g.altitude = ref.altitude + loc.z;
    return g;
}

static sn_geo_location fix(sn_fake_sensor *s)
{
    return (sn_geo_location){sn_fake_number(s, 0, "latitude"), sn_fake_number(s, 0, "longitude"),
                             sn_fake_number(s, 0, "altitude")};
}

static void test_attributes(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    check_refused(f, e, BP, "noise_lat_stddev=-1", "outside the range");
    check_refused(f, e, BP, "noise_lon_stddev=-0.001", "outside the range");
    check_refused(f, e, BP, "noise_alt_bias=1e7", "outside the range");
    check_refused(f, e, BP, "noise_seed=-1", "outside the range");
    check_refused(f, e, BP, "sensor_tick=-0.5", "outside the range");
    check_refused(f, e, BP, "noise_lat_bias=north", "noise_lat_bias");
    sn_fake_free(f);
}

static void test_positions(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    const sn_geo_location ref = {49.0, 8.4, 110.0};
    sn_fake_set_georeference(f, ref);
    const sn_vec3 at[] = {{0, 0, 0}, {100, 0, 2}, {0, -100, 0}, {-2500, 1800, -7}, {15000, -12000, 300}, {-20000, -20000, 1}};
    enum { N = sizeof at / sizeof at[0] };
    sn_fake_sensor *s[N];
    for (int i = 0; i < N; i++)
        s[i] = sn_fake_spawn_named(f, e, BP, NULL, NULL, 0, pose(at[i].x, at[i].y, at[i].z, 0, 0, 0));
    /* on a car: the sensor's own location (the mount turned by the car's yaw), not the car's */
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose(300, 40, 0, 0, 90, 0), (sn_vec3){0, 0, 0});
    sn_fake_sensor *m = sn_fake_spawn_named(f, e, BP, "roof", NULL, car, pose(2, 0, 1.5, 0, 0, 0));
    CHECK(car && m, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    for (int i = 0; i < N; i++) {
        sn_geo_location g = fix(s[i]), w = carla_geo(ref, at[i]);
        CHECK(fabs(g.latitude - w.latitude) < 1e-9 && fabs(g.longitude - w.longitude) < 1e-9 &&
                  fabs(g.altitude - w.altitude) < 1e-9,
              "(%g, %g, %g): %.12f %.12f %.6f want %.12f %.12f %.6f", at[i].x, at[i].y, at[i].z, g.latitude, g.longitude,
              g.altitude, w.latitude, w.longitude, w.altitude);
    }
    CHECK(fix(s[0]).latitude - ref.latitude == 0 && fix(s[0]).longitude - ref.longitude < 1e-12, "the origin is the reference");
    CHECK(fix(s[2]).latitude > ref.latitude && fabs(fix(s[2]).longitude - ref.longitude) < 1e-12, "-y is north");
    CHECK(fix(s[1]).longitude > ref.longitude && fabs(fix(s[1]).latitude - ref.latitude) < 1e-12, "+x is east");
    sn_geo_location g = fix(m), w = carla_geo(ref, (sn_vec3){300, 42, 1.5});
    CHECK(fabs(g.latitude - w.latitude) < 1e-9 && fabs(g.longitude - w.longitude) < 1e-9 && fabs(g.altitude - w.altitude) < 1e-9,
          "mounted: %.12f %.12f %.6f want %.12f %.12f %.6f", g.latitude, g.longitude, g.altitude, w.latitude, w.longitude,
          w.altitude);
    /* the equator: a metre east is 180 / (pi R) degrees exactly (no Mercator stretch at scale 1) */
    sn_fake_set_georeference(f, (sn_geo_location){0, 0, 0});
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(fabs(fix(s[1]).longitude - 100 * 180 / (PI * 6378137.0)) < 1e-12 && fabs(fix(s[1]).latitude) < 1e-15,
          "100 m east on the equator: %.15f", fix(s[1]).longitude);
    /* near the equator a metre north is (almost) as long as a metre east */
    CHECK(fabs(fix(s[2]).latitude - 100 * 180 / (PI * 6378137.0)) < 1e-9, "100 m north on the equator: %.15f",
          fix(s[2]).latitude);
    sn_fake_free(f);
}

/* Biases as CARLA's floats; noise with its mean and stddev over 10 000 ticks. */
static void test_noise(void)
{
    enum { N = 10000 };
    sn_plugin_entry_fn e;
    sn_fake *f = world(4, 1, PLUGIN, &e);
    const sn_geo_location ref = {-33.9, 151.2, 20};
    sn_fake_set_georeference(f, ref);
    const char *bias[] = {"noise_lat_bias=0.1", "noise_lon_bias=-0.2", "noise_alt_bias=3.3", NULL};
    const char *noisy[] = {"noise_lat_stddev=1e-5", "noise_lon_stddev=2e-5", "noise_alt_stddev=0.5",
                           "noise_lat_bias=1e-4", "noise_lon_bias=-2e-4", "noise_alt_bias=3", NULL};
    sn_fake_sensor *b = sn_fake_spawn_named(f, e, BP, "biased", bias, 0, pose(10, 20, 1, 0, 0, 0));
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "noisy", noisy, 0, pose(10, 20, 1, 0, 0, 0));
    CHECK(b && s, "%s", sn_fake_error(f));
    const sn_geo_location w = carla_geo(ref, (sn_vec3){10, 20, 1});
    static double v[3][N];
    for (int i = 0; i < N && s; i++) {
        if (sn_fake_step(f)) {
            CHECK(0, "%s", sn_fake_error(f));
            break;
        }
        sn_geo_location g = fix(s);
        v[0][i] = g.latitude - w.latitude, v[1][i] = g.longitude - w.longitude, v[2][i] = g.altitude - w.altitude;
        if (i == 0) {
            g = fix(b);
            CHECK(fabs(g.latitude - w.latitude - (double)0.1f) < 1e-12 && fabs(g.longitude - w.longitude - (double)-0.2f) < 1e-12 &&
                      fabs(g.altitude - w.altitude - (double)3.3f) < 1e-12,
                  "biases in CARLA's float: %.15g %.15g %.15g", g.latitude - w.latitude, g.longitude - w.longitude,
                  g.altitude - w.altitude);
        }
    }
    check_normal(v[0], N, (float)1e-4, (float)1e-5, "latitude");
    check_normal(v[1], N, (float)-2e-4, (float)2e-5, "longitude");
    check_normal(v[2], N, 3, 0.5, "altitude");
    sn_fake_free(f);
}

/* noise_seed S: tick t's errors are normals 3t, 3t+1, 3t+2 of a stream seeded with S, in the
** order latitude, longitude, altitude, each a float as in CARLA, drawn also at stddev 0. */
static void test_draw_order(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(6, 1, PLUGIN, &e);
    const char *all[] = {"noise_seed=1234", "noise_lat_stddev=0.001", "noise_lon_stddev=0.002", "noise_alt_stddev=3", NULL};
    const char *lon[] = {"noise_seed=1234", "noise_lon_stddev=0.002", NULL};
    sn_fake_sensor *a = sn_fake_spawn_named(f, e, BP, "a", all, 0, pose(0, 0, 0, 0, 0, 0));
    sn_fake_sensor *b = sn_fake_spawn_named(f, e, BP, "b", lon, 0, pose(0, 0, 0, 0, 0, 0));
    sn_fake_sensor *t = sn_fake_spawn_named(f, e, BP, "slow", NULL, 0, pose(0, 0, 0, 0, 0, 0));
    sn_fake_sensor *t2 = sn_fake_spawn_named(f, e, BP, "slow2", (const char *[]){"sensor_tick=0.1", NULL}, 0,
                                             pose(0, 0, 0, 0, 0, 0));
    CHECK(a && b && t && t2, "%s", sn_fake_error(f));
    ref_rng r;
    ref_seed(&r, 1234);
    int ticks = 0;
    for (int k = 0; k < 6; k++) {
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        double n[3];
        for (int i = 0; i < 3; i++)
            n[i] = ref_normal(&r);
        sn_geo_location g = fix(a), h = fix(b);
        CHECK(g.latitude == (double)(float)((double)0.001f * n[0]) && g.longitude == (double)(float)((double)0.002f * n[1]) &&
                  g.altitude == (double)(float)(3 * n[2]),
              "tick %d: %.17g %.17g %.17g want %.17g %.17g %.17g", k, g.latitude, g.longitude, g.altitude,
              (double)(float)((double)0.001f * n[0]), (double)(float)((double)0.002f * n[1]), (double)(float)(3 * n[2]));
        CHECK(h.latitude == 0 && h.altitude == 0 && h.longitude == g.longitude, "tick %d: only longitude noisy, the second normal", k);
        ticks += (int)sn_fake_message_count(t2);
        CHECK(sn_fake_message_count(t) == 1, "every frame without sensor_tick");
    }
    CHECK(ticks == 3, "sensor_tick 0.1 at dt 0.05: %d messages in 6 frames, want 3", ticks);
    sn_fake_free(f);
}

static size_t run_bytes(int threads, unsigned char *buf, size_t cap)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(9, threads, PLUGIN, &e);
    sn_fake_set_georeference(f, (sn_geo_location){40, -3, 600});
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose(0, 0, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    const char *attrs[] = {"noise_lat_stddev=1e-6", "noise_alt_stddev=0.2", "noise_lon_bias=1e-5", NULL};
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "gnss", attrs, car, pose(0, 0, 2, 0, 0, 0));
    size_t n = 0;
    for (int k = 1; k <= 20 && s; k++) {
        sn_fake_move_to(f, car, pose(k * 0.7, -0.3 * k, 0, 0, 2 * k, 0));
        if (sn_fake_step(f))
            break;
        size_t sz;
        const void *raw = sn_fake_raw(s, 0, &sz);
        if (raw && n + sz <= cap)
            memcpy(buf + n, raw, sz), n += sz;
    }
    sn_fake_free(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_gnss sensim_gnss.so\n"), 2;
    PLUGIN = argv[1];
    test_attributes();
    test_positions();
    test_noise();
    test_draw_order();
    static unsigned char a[1 << 16], b[1 << 16];
    size_t na = run_bytes(1, a, sizeof a), nb = run_bytes(2, b, sizeof b);
    CHECK(na > 0 && na == nb && !memcmp(a, b, na), "1 and 2 threads: %zu vs %zu bytes", na, nb);
    return CHECK_DONE();
}
