/*
** sensor.other.radar on the SDK's fake host, against geometry and CARLA's sampling written out:
** a wall that fills the cone gets every ray, N = (int)(points_per_second * dt), each at the
** azimuth, altitude and depth its two draws (radius, angle, from the engine's stream written
** out) give; a car closing at v reads -v cos(angle) (CARLA's sign: negative closing), a radar
** on a car driving at a wall the same; a spinning target reads (w x r) . u; a wall out of range
** and points_per_second 0 give an empty bin; sensor_tick; refused attributes; the same bytes
** on 1 and 2 threads. argv[1]: sensim_radar.so
*/
#define SN_TESTING_IMPLEMENTATION
#include "common.h"

static const char *BP = "sensor.other.radar";
static const char *PLUGIN;

typedef struct det {
    float velocity, azimuth, altitude, depth;
} det;

/* The records of message 0, read as little-endian float32 (this host's order is checked). */
static uint32_t dets(sn_fake_sensor *s, det *out, uint32_t cap)
{
    size_t n = 0;
    const unsigned char *b = sn_fake_bin(s, 0, "raw_data", &n);
    CHECK(b != NULL || n == 0, "raw_data is a bin: %s", sn_fake_json(s, 0));
    CHECK(n % 16 == 0, "raw_data of %zu bytes is not 16-byte records", n);
    uint32_t k = 0;
    for (size_t i = 0; b && i + 16 <= n && k < cap; i += 16, k++) {
        float v[4];
        for (int j = 0; j < 4; j++) {
            const unsigned char *p = b + i + 4 * j;
            uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            memcpy(&v[j], &u, 4);
        }
        out[k] = (det){v[0], v[1], v[2], v[3]};
    }
    return k;
}

static sn_vec3 unit_of(const det *d)
{
    return (sn_vec3){cos(d->altitude) * cos(d->azimuth), cos(d->altitude) * sin(d->azimuth), sin(d->altitude)};
}

static void test_attributes(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    check_refused(f, e, BP, "horizontal_fov=180", "outside the range");
    check_refused(f, e, BP, "horizontal_fov=-1", "outside the range");
    check_refused(f, e, BP, "vertical_fov=200", "outside the range");
    check_refused(f, e, BP, "range=0", "outside the range");
    check_refused(f, e, BP, "range=-5", "outside the range");
    check_refused(f, e, BP, "points_per_second=-1", "outside the range");
    check_refused(f, e, BP, "points_per_second=2000000", "outside the range");
    check_refused(f, e, BP, "points_per_second=1.5", "points_per_second");
    check_refused(f, e, BP, "sensor_tick=-1", "outside the range");
    sn_fake_free(f);
}

/* A wall across the whole cone at 49.5 m: every ray, where CARLA's draws send it. */
static void test_sampling(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(11, 1, PLUGIN, &e);
    uint32_t wall = sn_fake_add_actor(f, "static.prop.box", SN_TAG_WALL, pose(50, 0, 1, 0, 0, 0), (sn_vec3){0.5, 200, 200});
    sn_fake_sensor *r = sn_fake_spawn_named(f, e, BP, "r", (const char *[]){"horizontal_fov=40", "vertical_fov=10", NULL},
                                            0, pose(0, 0, 1, 0, 0, 0));
    sn_fake_sensor *slow = sn_fake_spawn_named(f, e, BP, "slow", (const char *[]){"sensor_tick=0.1", NULL}, 0,
                                               pose(0, 5, 1, 0, 0, 0));
    CHECK(wall && r && slow, "%s", sn_fake_error(f));
    ref_rng g;
    ref_seed(&g, ref_name_seed(11, "r"));
    const double mrx = tan(20 * PI / 180) * 100, mry = tan(5 * PI / 180) * 100;
    int slow_msgs = 0;
    for (int t = 0; t < 4 && r; t++) {
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        static det d[4096];
        uint32_t n = dets(r, d, 4096);
        CHECK(n == 75, "tick %d: %u detections, want (int)(1500 * 0.05) = 75", t, n);
        double worst = 0;
        for (uint32_t i = 0; i < n; i++) {
            const double rad = ref_uniform(&g), ang = ref_uniform(&g) * 2 * PI;
            const double lx = 100, ly = mrx * rad * cos(ang), lz = mry * rad * sin(ang), l = sqrt(lx * lx + ly * ly + lz * lz);
            const double az = atan2(ly, lx), alt = asin(lz / l), depth = 49.5 / (lx / l);
            worst = fmax(worst, fmax(fabs(d[i].azimuth - az), fabs(d[i].altitude - alt)));
            worst = fmax(worst, fabs(d[i].depth - depth) / depth);
            CHECK(d[i].velocity == 0, "a still radar and wall: velocity %g", d[i].velocity);
            CHECK(fabs(d[i].azimuth) <= 20 * PI / 180 + 1e-6 && fabs(d[i].altitude) <= 5 * PI / 180 + 1e-6,
                  "inside the fields of view: az %g alt %g", d[i].azimuth, d[i].altitude);
        }
        CHECK(worst < 2e-6, "tick %d: worst difference from CARLA's draws %g", t, worst);
        if (sn_fake_message_count(slow)) {
            slow_msgs++;
            CHECK(dets(slow, d, 4096) == 75, "sensor_tick 0.1: still the frame's 75 rays (CARLA's dt)");
        }
    }
    CHECK(slow_msgs == 2, "sensor_tick 0.1 at dt 0.05: %d messages in 4 frames", slow_msgs);
    sn_fake_free(f);
}

/* Velocities: closing target, moving radar, spinning target. */
static void test_velocity(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(12, 1, PLUGIN, &e);
    sn_engine *en = sn_fake_engine(f);
    sn_error err;
    const char *dense[] = {"points_per_second=40000", NULL};
    /* a car 30 m ahead closing at 10 m/s on a still radar */
    uint32_t car = sn_fake_spawn_actor(f, "vehicle.sedan", "target", pose(30, 0, 0, 0, 180, 0), 0,
                                       (const char *[]){"extent=2.4,1,0.75", NULL});
    sn_fake_sensor *still = sn_fake_spawn_named(f, e, BP, "still", dense, 0, pose(0, 0, 0.7, 0, 0, 0));
    /* a radar on a car driving at 10 m/s toward a wall (y = 100, away from the target) */
    uint32_t ego = sn_fake_spawn_actor(f, "vehicle.sedan", "ego", pose(0, 100, 0, 0, 0, 0), 0,
                                       (const char *[]){"extent=2.4,1,0.75", NULL});
    uint32_t wall = sn_fake_add_actor(f, "static.prop.box", SN_TAG_WALL, pose(60, 100, 1, 0, 0, 0), (sn_vec3){0.5, 50, 50});
    sn_fake_sensor *onboard = sn_fake_spawn_named(f, e, BP, "onboard", dense, ego, pose(1, 0, 1, 0, 0, 0));
    /* a box spinning in place 30 m ahead of a third radar (y = -100) */
    uint32_t spin = sn_fake_spawn_actor(f, "vehicle.sedan", "spin", pose(30, -100, 0, 0, 0, 0), 0,
                                        (const char *[]){"extent=2.4,3,2", NULL});
    sn_fake_sensor *spinr = sn_fake_spawn_named(f, e, BP, "spinning", dense, 0, pose(0, -100, 1, 0, 0, 0));
    CHECK(car && still && ego && wall && onboard && spin && spinr, "%s", sn_fake_error(f));
    CHECK(sn_engine_set_velocity(en, car, (sn_vec3){-10, 0, 0}, (sn_vec3){0, 0, 0}, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(en, ego, (sn_vec3){10, 0, 0}, (sn_vec3){0, 0, 0}, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(en, spin, (sn_vec3){0, 0, 0}, (sn_vec3){0, 0, 30}, &err) == SN_OK, "%s", err.msg);
    for (int t = 1; t <= 3; t++) {
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        static det d[4096];
        /* closing: -10 cos(angle to the x axis); the hits on the car's front (docs/shapes.md): its
        ** bumper at the box's face (x = 30 - 0.5 t - L, L = 2.4), lamps 0.005 L and nose 0.015 L behind */
        uint32_t n = dets(still, d, 4096), on_face = 0, in_box = 0;
        CHECK(n > 20, "tick %d: %u hits on the closing car", t, n);
        for (uint32_t i = 0; i < n; i++) {
            sn_vec3 u = unit_of(&d[i]);
            CHECK(fabs(d[i].velocity - (-10 * u.x)) < 1e-4, "closing: %g, want %g", d[i].velocity, -10 * u.x);
            double x = d[i].depth * u.x - (30 - 0.5 * t - 2.4);
            on_face += fabs(x) < 1e-4 || fabs(x - 0.005 * 2.4) < 1e-4 || fabs(x - 0.015 * 2.4) < 1e-4;
            in_box += x > -1e-4 && x < 2 * 2.4;
        }
        /* the rest on the hood, glass, roof and wheels behind the front, inside the box */
        CHECK(on_face > n / 3 && in_box == n, "tick %d: %u of %u hits on the car's front, %u in its box", t, on_face, n,
              in_box);
        /* driving at the wall: the same sign, the radar's own speed; its car never hit */
        n = dets(onboard, d, 4096);
        CHECK(n == 2000, "tick %d: %u of (int)(40000 * 0.05) = 2000 rays on the wall", t, n);
        for (uint32_t i = 0; i < n; i++) {
            sn_vec3 u = unit_of(&d[i]);
            CHECK(fabs(d[i].velocity - (-10 * u.x)) < 1e-4, "driving at a wall: %g, want %g", d[i].velocity, -10 * u.x);
            CHECK(fabs(d[i].depth * u.x - (59.5 - (1 + 0.5 * t))) < 1e-3, "wall at %g", d[i].depth * u.x);
        }
        /* spinning: the hit point's velocity w x (p - centre) along the ray */
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        sn_fake_actor_get(f, spin, &a);
        const double w = 30 * PI / 180;
        n = dets(spinr, d, 4096);
        CHECK(n > 100, "tick %d: %u hits on the spinning box", t, n);
        double worst = 0, maxv = 0;
        for (uint32_t i = 0; i < n; i++) {
            sn_vec3 u = unit_of(&d[i]);
            sn_vec3 p = {d[i].depth * u.x, -100 + d[i].depth * u.y, 1 + d[i].depth * u.z};
            sn_vec3 r = {p.x - a.transform.location.x, p.y - a.transform.location.y, 0};
            sn_vec3 v = {-w * r.y, w * r.x, 0};
            double want = v.x * u.x + v.y * u.y;
            worst = fmax(worst, fabs(d[i].velocity - want));
            maxv = fmax(maxv, fabs(want));
        }
        CHECK(worst < 1e-3 && maxv > 0.3, "tick %d: spinning target, worst %g (largest radial %g)", t, worst, maxv);
    }
    sn_fake_free(f);
}

static void test_empty(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(13, 1, PLUGIN, &e);
    uint32_t wall = sn_fake_add_actor(f, "static.prop.box", SN_TAG_WALL, pose(150, 0, 1, 0, 0, 0), (sn_vec3){0.5, 200, 200});
    sn_fake_sensor *far = sn_fake_spawn_named(f, e, BP, "far", NULL, 0, pose(0, 0, 1, 0, 0, 0));
    sn_fake_sensor *none = sn_fake_spawn_named(f, e, BP, "none", (const char *[]){"points_per_second=0", "range=200", NULL}, 0,
                                               pose(0, 0, 1, 0, 0, 0));
    sn_fake_sensor *reach = sn_fake_spawn_named(f, e, BP, "reach", (const char *[]){"range=160", NULL}, 0, pose(0, 0, 1, 0, 0, 0));
    CHECK(wall && far && none && reach, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    det d[128];
    CHECK(sn_fake_message_count(far) == 1 && dets(far, d, 128) == 0, "a wall beyond the range: a message, no detections");
    CHECK(sn_fake_message_count(none) == 1 && dets(none, d, 128) == 0, "no points: an empty bin");
    CHECK(dets(reach, d, 128) == 75, "range 160 reaches it");
    sn_fake_free(f);
}

static size_t run_bytes(int threads, unsigned char *buf, size_t cap)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(21, threads, PLUGIN, &e);
    sn_error err;
    sn_fake_add_actor(f, "static.ground", SN_TAG_ROADS, pose(0, 0, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    uint32_t car = sn_fake_spawn_actor(f, "vehicle.sedan", "ego", pose(0, 0, 0, 0, 0, 0), 0, NULL);
    uint32_t other = sn_fake_spawn_actor(f, "vehicle.sedan", "other", pose(25, 1, 0, 0, 170, 0), 0, NULL);
    sn_fake_add_actor(f, "static.building", SN_TAG_BUILDING, pose(60, 0, 5, 0, 20, 0), (sn_vec3){5, 20, 5});
    sn_engine_set_velocity(sn_fake_engine(f), car, (sn_vec3){8, 0.5, 0}, (sn_vec3){0, 0, 5}, &err);
    sn_engine_set_velocity(sn_fake_engine(f), other, (sn_vec3){-6, 0, 0}, (sn_vec3){0, 0, -3}, &err);
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "radar", (const char *[]){"points_per_second=100000", NULL}, car,
                                            pose(2.4, 0, 1, 0, 0, 0));
    size_t n = 0;
    for (int k = 1; k <= 10 && s; k++) {
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
        return fprintf(stderr, "usage: test_radar sensim_radar.so\n"), 2;
    PLUGIN = argv[1];
    test_attributes();
    test_sampling();
    test_velocity();
    test_empty();
    static unsigned char a[1 << 20], b[1 << 20];
    size_t na = run_bytes(1, a, sizeof a), nb = run_bytes(2, b, sizeof b);
    CHECK(na > 10 * 16 * 1000 && na == nb && !memcmp(a, b, na), "1 and 2 threads: %zu vs %zu bytes", na, nb);
    return CHECK_DONE();
}
