/*
** sensor.other.imu on the SDK's fake host, against ground truth derived by hand:
** gravity on a level sensor at rest and on tilted ones; a car on a circle (CARLA's second
** difference of the sensor's locations, the centripetal v^2/R and the yaw rate v/R, both
** turning directions); the compass at four headings (CARLA's yaw + 90 degrees); noise
** statistics over 10 000 draws; CARLA's draw order (accelerometer x, y, z then gyroscope x, y,
** z, every tick, stddev 0 included) against the engine's stream written out; noise_seed;
** refused attributes; the same bytes on 1 and 2 threads. argv[1]: sensim_imu.so
*/
#define SN_TESTING_IMPLEMENTATION
#include "common.h"

static const char *BP = "sensor.other.imu";
static const char *PLUGIN;

static sn_vec3 vec(sn_fake_sensor *s, const char *key)
{
    char p[64];
    double v[3];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s.%d", key, i);
        v[i] = sn_fake_number(s, 0, p);
    }
    return (sn_vec3){v[0], v[1], v[2]};
}

static void test_attributes(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    check_refused(f, e, BP, "noise_accel_stddev_x=-0.1", "outside the range");
    check_refused(f, e, BP, "noise_gyro_stddev_z=-1", "outside the range");
    check_refused(f, e, BP, "noise_gyro_bias_y=1e9", "outside the range");
    check_refused(f, e, BP, "noise_seed=-3", "outside the range");
    check_refused(f, e, BP, "sensor_tick=-1", "outside the range");
    check_refused(f, e, BP, "noise_accel_stddev_y=abc", "noise_accel_stddev_y");
    check_refused(f, e, BP, "noise_stddev=1", "noise_stddev");
    sn_fake_free(f);
}

/* At rest: the specific force is -gravity in the sensor frame, the gyroscope 0. */
static void test_rest(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose(5, 3, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    sn_fake_sensor *lvl = sn_fake_spawn_named(f, e, BP, "level", NULL, car, pose(1, 0, 1.5, 0, 0, 0));
    /* roll 90: the sensor's +y points down; pitch 90: its +x points up */
    sn_fake_sensor *roll = sn_fake_spawn_named(f, e, BP, "roll", NULL, 0, pose(0, -5, 1, 0, 30, 90));
    sn_fake_sensor *pitch = sn_fake_spawn_named(f, e, BP, "pitch", NULL, 0, pose(0, -8, 1, 90, 0, 0));
    CHECK(car && lvl && roll && pitch, "spawn: %s", sn_fake_error(f));
    for (int frame = 1; frame <= 4; frame++) { /* the first ticks (host kinematics) and the second differences */
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        sn_vec3 a = vec(lvl, "accelerometer"), g = vec(lvl, "gyroscope");
        CHECK(fabs(a.x) < 1e-9 && fabs(a.y) < 1e-9 && fabs(a.z - 9.81) < 1e-9, "frame %d: level at rest reads (%g, %g, %g)",
              frame, a.x, a.y, a.z);
        CHECK(g.x == 0 && g.y == 0 && g.z == 0, "gyroscope at rest (%g, %g, %g)", g.x, g.y, g.z);
        a = vec(roll, "accelerometer");
        CHECK(fabs(a.x) < 1e-9 && fabs(a.y + 9.81) < 1e-9 && fabs(a.z) < 1e-9, "rolled 90: (%g, %g, %g)", a.x, a.y, a.z);
        a = vec(pitch, "accelerometer");
        CHECK(fabs(a.x - 9.81) < 1e-9 && fabs(a.y) < 1e-9 && fabs(a.z) < 1e-9, "pitched 90: (%g, %g, %g)", a.x, a.y, a.z);
    }
    CHECK(sn_fake_number(lvl, 0, "frame") == 4 && sn_fake_has(lvl, 0, "compass"), "header and compass");
    sn_fake_free(f);
}

/* North is world -y, east +x: CARLA's compass is (yaw + 90 degrees) in [0, 2 pi). */
static void test_compass(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    const double yaw[] = {-90, 0, 90, 180, 45, -135};
    const double want[] = {0, PI / 2, PI, 3 * PI / 2, 3 * PI / 4, 7 * PI / 4};
    sn_fake_sensor *s[6], *tilted;
    for (int i = 0; i < 6; i++)
        s[i] = sn_fake_spawn_named(f, e, BP, NULL, NULL, 0, pose(i, 0, 1, 0, yaw[i], 0));
    tilted = sn_fake_spawn_named(f, e, BP, NULL, NULL, 0, pose(9, 0, 1, 30, 90, 20)); /* pitch and roll: still south */
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    for (int i = 0; i < 6; i++)
        CHECK_NEAR(sn_fake_number(s[i], 0, "compass"), want[i], 1e-12, "compass at yaw");
    CHECK_NEAR(sn_fake_number(tilted, 0, "compass"), PI, 1e-12, "compass of a tilted sensor facing south");
    sn_fake_free(f);
}

/*
** A car driven on a circle of radius R at speed v (kinematic targets, one per frame): the
** accelerometer is CARLA's second difference of the sensor's three last locations, in the
** frame of the sensor now; that is the centripetal v^2/R along +y (turning right, yaw growing,
** the centre on the right) or -y (turning left), within the polygon's angle step; the
** gyroscope's z is +v/R turning right (CARLA's axes: +z turns x toward y), -v/R turning left.
*/
static void test_circle(int dir)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    const double R = 20, v = 10, dt = 0.05, w = v / R, dth = w * dt;
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose(0, 0, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "imu", NULL, car, pose(0, 0, 0, 0, 0, 0));
    sn_fake_sensor *m = sn_fake_spawn_named(f, e, BP, "mounted", NULL, car, pose(1.5, 0.5, 1.2, 0, 0, 0));
    CHECK(car && s && m, "%s", sn_fake_error(f));
    sn_vec3 hist[3] = {{0, 0, 0}}, mhist[3] = {{0, 0, 0}};
    for (int k = 1; k <= 30; k++) {
        const double th = dir * dth * k;
        /* centre (0, dir R): right turn (+y) for dir = 1 */
        const sn_vec3 p = {R * sin(fabs(th)), dir * (R - R * cos(th)), 0};
        const double c = cos(th), sn = sin(th);
        const sn_vec3 mp = {p.x + 1.5 * c - 0.5 * sn, p.y + 1.5 * sn + 0.5 * c, 1.2};
        CHECK(sn_fake_move_to(f, car, pose(p.x, p.y, 0, 0, th * 180 / PI, 0)) == SN_OK, "%s", sn_fake_error(f));
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        hist[0] = hist[1], hist[1] = hist[2], hist[2] = p;
        mhist[0] = mhist[1], mhist[1] = mhist[2], mhist[2] = mp;
        if (k < 3)
            continue;
        sn_vec3 a = vec(s, "accelerometer"), g = vec(s, "gyroscope");
        /* CARLA's d2 for equal steps, rotated into the frame of yaw th (gravity on z only) */
        for (int j = 0; j < 2; j++) {
            const sn_vec3 *y = j ? mhist : hist;
            const sn_vec3 d2 = {(y[2].x - 2 * y[1].x + y[0].x) / (dt * dt), (y[2].y - 2 * y[1].y + y[0].y) / (dt * dt), 0};
            const sn_vec3 want = {c * d2.x + sn * d2.y, -sn * d2.x + c * d2.y, 9.81};
            const sn_vec3 got = j ? vec(m, "accelerometer") : a;
            CHECK(fabs(got.x - want.x) < 1e-6 && fabs(got.y - want.y) < 1e-6 && fabs(got.z - want.z) < 1e-9,
                  "frame %d %s: (%.9g, %.9g, %.9g) want (%.9g, %.9g, %.9g)", k, j ? "mounted" : "origin", got.x, got.y,
                  got.z, want.x, want.y, want.z);
        }
        /* the physics: centripetal v^2/R sideways, within the polygon's step dth */
        CHECK(fabs(a.y - dir * v * v / R) < 1e-3 * v * v / R, "frame %d: lateral %.6g, want %.6g", k, a.y, dir * v * v / R);
        CHECK(fabs(a.x) < 1.01 * dth * v * v / R, "frame %d: longitudinal %.6g", k, a.x);
        CHECK(fabs(g.z - dir * w) < 1e-9 && fabs(g.x) < 1e-12 && fabs(g.y) < 1e-12, "frame %d: gyro (%g, %g, %g), want z %g",
              k, g.x, g.y, g.z, dir * w);
    }
    sn_fake_free(f);
}

/* Ten thousand ticks at rest: each axis's noise has its mean (bias) and stddev. */
static void test_noise_stats(void)
{
    enum { N = 10000 };
    sn_plugin_entry_fn e;
    sn_fake *f = world(3, 1, PLUGIN, &e);
    const char *attrs[] = {"noise_accel_stddev_x=0.5", "noise_accel_stddev_y=1", "noise_accel_stddev_z=2",
                           "noise_gyro_stddev_x=0.01", "noise_gyro_stddev_y=0.02", "noise_gyro_stddev_z=0.03",
                           "noise_gyro_bias_x=0.1", "noise_gyro_bias_y=-0.2", "noise_gyro_bias_z=0.3", NULL};
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "noisy", attrs, 0, pose(0, 0, 1, 0, 0, 0));
    CHECK(s != NULL, "%s", sn_fake_error(f));
    static double v[6][N];
    for (int i = 0; i < N && s; i++) {
        if (sn_fake_step(f)) {
            CHECK(0, "%s", sn_fake_error(f));
            break;
        }
        sn_vec3 a = vec(s, "accelerometer"), g = vec(s, "gyroscope");
        v[0][i] = a.x, v[1][i] = a.y, v[2][i] = a.z - 9.81, v[3][i] = g.x, v[4][i] = g.y, v[5][i] = g.z;
    }
    const double mu[6] = {0, 0, 0, 0.1, -0.2, 0.3}, sd[6] = {0.5, 1, 2, 0.01, 0.02, 0.03};
    const char *name[6] = {"accel x", "accel y", "accel z", "gyro x", "gyro y", "gyro z"};
    for (int k = 0; k < 6; k++)
        check_normal(v[k], N, (float)mu[k], (float)sd[k], name[k]);
    sn_fake_free(f);
}

/*
** Draw order: with noise_seed S the six noises of tick t are normals 6t .. 6t+5 of a stream
** seeded with S, in the order accel x, y, z, gyro x, y, z, drawn also where the stddev is 0.
*/
static void test_draw_order(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(5, 1, PLUGIN, &e);
    const char *all[] = {"noise_seed=77", "noise_accel_stddev_x=1", "noise_accel_stddev_y=2", "noise_accel_stddev_z=3",
                         "noise_gyro_stddev_x=4", "noise_gyro_stddev_y=5", "noise_gyro_stddev_z=6", NULL};
    const char *one[] = {"noise_seed=77", "noise_gyro_stddev_y=5", NULL};
    const char *own[] = {"noise_accel_stddev_x=1", NULL};
    sn_fake_sensor *a = sn_fake_spawn_named(f, e, BP, "all", all, 0, pose(0, 0, 1, 0, 0, 0));
    sn_fake_sensor *b = sn_fake_spawn_named(f, e, BP, "one", one, 0, pose(3, 0, 1, 0, 0, 0));
    sn_fake_sensor *c = sn_fake_spawn_named(f, e, BP, "own", own, 0, pose(6, 0, 1, 0, 0, 0));
    sn_fake_sensor *d = sn_fake_spawn_named(f, e, BP, "own2", own, 0, pose(9, 0, 1, 0, 0, 0));
    CHECK(a && b && c && d, "%s", sn_fake_error(f));
    ref_rng r, rc;
    ref_seed(&r, 77);
    ref_seed(&rc, ref_name_seed(5, "own"));
    for (int t = 0; t < 5; t++) {
        CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
        double n[6];
        for (int k = 0; k < 6; k++)
            n[k] = ref_normal(&r);
        sn_vec3 aa = vec(a, "accelerometer"), ag = vec(a, "gyroscope");
        CHECK(fabs(aa.x - n[0]) < 1e-12 && fabs(aa.y - 2 * n[1]) < 1e-12 && fabs(aa.z - 9.81 - 3 * n[2]) < 1e-12 &&
                  fabs(ag.x - 4 * n[3]) < 1e-12 && fabs(ag.y - 5 * n[4]) < 1e-12 && fabs(ag.z - 6 * n[5]) < 1e-12,
              "tick %d: accel (%g %g %g) gyro (%g %g %g), want normals %g %g %g %g %g %g of seed 77", t, aa.x, aa.y,
              aa.z, ag.x, ag.y, ag.z, n[0], n[1], n[2], n[3], n[4], n[5]);
        sn_vec3 ba = vec(b, "accelerometer"), bg = vec(b, "gyroscope");
        CHECK(ba.x == 0 && ba.y == 0 && fabs(ba.z - 9.81) < 1e-12 && bg.x == 0 && bg.z == 0 &&
                  fabs(bg.y - 5 * n[4]) < 1e-12,
              "tick %d: only gyro y noisy takes the fifth normal: gyro y %g want %g", t, bg.y, 5 * n[4]);
        /* noise_seed 0: the sensor's own stream (scene seed ^ its name), so two differ */
        double nc = ref_normal(&rc);
        for (int k = 1; k < 6; k++)
            ref_normal(&rc);
        CHECK(fabs(vec(c, "accelerometer").x - nc) < 1e-12, "tick %d: own stream", t);
        CHECK(vec(c, "accelerometer").x != vec(d, "accelerometer").x, "two unseeded sensors draw alike");
    }
    sn_fake_free(f);
}

/* A run's messages, byte for byte, on `threads` workers. */
static size_t run_bytes(int threads, unsigned char *buf, size_t cap)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(9, threads, PLUGIN, &e);
    uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose(0, 0, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    const char *attrs[] = {"noise_accel_stddev_x=0.3", "noise_gyro_stddev_z=0.1", "noise_gyro_bias_x=0.01", NULL};
    sn_fake_sensor *s = sn_fake_spawn_named(f, e, BP, "imu", attrs, car, pose(1, 0, 1, 0, 10, 0));
    size_t n = 0;
    for (int k = 1; k <= 20 && s; k++) {
        sn_fake_move_to(f, car, pose(k * 0.5, 0.01 * k * k, 0, 0, k, 0));
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
        return fprintf(stderr, "usage: test_imu sensim_imu.so\n"), 2;
    PLUGIN = argv[1];
    test_attributes();
    test_rest();
    test_compass();
    test_circle(1);
    test_circle(-1);
    test_noise_stats();
    test_draw_order();
    static unsigned char a[1 << 16], b[1 << 16];
    size_t na = run_bytes(1, a, sizeof a), nb = run_bytes(2, b, sizeof b);
    CHECK(na > 0 && na == nb && !memcmp(a, b, na), "1 and 2 threads: %zu vs %zu bytes", na, nb);
    return CHECK_DONE();
}
