/* The lidars against truth: points on a wall at the analytic distance, angle and intensity;
** CARLA's partial rotation slice by slice; drop-off and noise statistics against their
** formulas; the semantic lidar's tag, actor id and cosine of incidence on a turned wall; the
** skew of a wall seen with motion distortion from a moving car; the same bytes at 1 and 2
** threads; every bad attribute refused.
** argv[1]: temp folder, argv[2]: plugin folder (lidar) */
#include "../check.h"
#include "../testutil.h"

#include <sensim/records.h>

static const char *dir, *plugins;

#define MAX_MSG 16

typedef struct msg {
    uint64_t frame;
    int64_t time_ns;
    double hangle;
    uint32_t channels, counts[64];
    uint8_t *raw;
    size_t n_raw;
    int64_t *times;
    size_t n_times;
    double sensor_x;
} msg;

typedef struct capture {
    msg m[MAX_MSG];
    size_t n;
    uint8_t *bytes; /* every message back to back, for byte comparisons */
    size_t n_bytes;
} capture;

static void *dup(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

static void on_msg(const sn_message *sm, void *user)
{
    capture *c = user;
    c->bytes = realloc(c->bytes, c->n_bytes + sm->size);
    memcpy(c->bytes + c->n_bytes, sm->data, sm->size);
    c->n_bytes += sm->size;
    if (c->n >= MAX_MSG)
        return;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, sm->data, sm->size, &off) == MSGPACK_UNPACK_SUCCESS) {
        msg *m = &c->m[c->n++];
        memset(m, 0, sizeof *m);
        m->frame = sm->frame;
        m->time_ns = llround(sm->timestamp * 1e9);
        m->hangle = tu_num(tu_get(&u.data, "horizontal_angle"));
        m->channels = (uint32_t)tu_num(tu_get(&u.data, "channels"));
        const msgpack_object *pc = tu_get(&u.data, "point_count");
        for (uint32_t i = 0; pc && i < pc->via.array.size && i < 64; i++)
            m->counts[i] = (uint32_t)tu_num(&pc->via.array.ptr[i]);
        const msgpack_object *raw = tu_get(&u.data, "raw_data"), *t = tu_get(&u.data, "point_time_ns");
        m->raw = dup(raw->via.bin.ptr, raw->via.bin.size);
        m->n_raw = raw->via.bin.size;
        if (t) {
            m->times = dup(t->via.bin.ptr, t->via.bin.size);
            m->n_times = t->via.bin.size / 8;
        }
        const msgpack_object *tf = tu_get(&u.data, "transform"), *loc = tf ? tu_get(tf, "location") : NULL;
        m->sensor_x = loc ? tu_num(&loc->via.array.ptr[0]) : NAN;
    }
    msgpack_unpacked_destroy(&u);
}

static void release(capture *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->m[i].raw), free(c->m[i].times);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

/* Runs `scene` for `frames` with `threads` workers and captures `sensor`; `kinematic` (may be
** NULL) names an actor made kinematic and driven at vx m/s. Returns non-zero on failure with
** the message in err_out (when given). */
static int run(const char *scene, const char *sensor, int frames, int threads, const char *kinematic, double vx,
               capture *c, char *err_out)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(c, 0, sizeof *c);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "lidar.yaml", scene), &err) ||
             sn_engine_listen(e, sensor, on_msg, c, &err);
    if (!rc && kinematic) {
        uint32_t id = sn_engine_find_actor(e, kinematic);
        rc = sn_engine_set_simulate_physics(e, id, false, &err) ||
             sn_engine_set_velocity(e, id, (sn_vec3){vx, 0, 0}, (sn_vec3){0, 0, 0}, &err);
    }
    rc = rc || sn_engine_run(e, (uint64_t)frames, &err);
    if (err_out)
        memcpy(err_out, err.msg, sizeof err.msg);
    else if (rc)
        fprintf(stderr, "FAIL: %s\n", err.msg);
    sn_engine_destroy(e);
    return rc;
}

static const sn_point_xyzi *xyzi(const msg *m, size_t *n)
{
    *n = m->n_raw / sizeof(sn_point_xyzi);
    return (const sn_point_xyzi *)(const void *)m->raw;
}
static const sn_semantic_point *sem(const msg *m, size_t *n)
{
    *n = m->n_raw / sizeof(sn_semantic_point);
    return (const sn_semantic_point *)(const void *)m->raw;
}

/* CARLA's angles for tick `start` degrees: channel ch of C over [lo, up], point j of P. */
static double elev(int ch, int C, double lo, double up) { return C == 1 ? up : up - ch * (up - lo) / (C - 1); }
static double azim(double start, double tick_deg, int j, int P, double hfov)
{
    return fmod(start + tick_deg / P * j, hfov) - hfov / 2;
}

#define WALL(x, extra) \
    "actors:\n  - {name: wall, blueprint: static.prop.box, transform: {location: [" #x ", 0, 0]" extra "}," \
    " attributes: {extent: \"0.5,200,200\", semantic_tag: wall}}\n"

static void wall_points(void)
{
    /* A wall whose face is x = 10 m: 8 channels over [-20, 20], a full turn per tick (20 Hz at
    ** 20 FPS), 100 points per channel. Every point of an azimuth that reaches the face is there
    ** (no drop-off), at the analytic position and intensity, in CARLA's order. */
    capture c;
    if (run(WALL(10.5, "") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast, attributes: {channels: 8,"
            " upper_fov: 20, lower_fov: -20, rotation_frequency: 20, points_per_second: 16000, range: 100,"
            " dropoff_general_rate: 0, dropoff_intensity_limit: 0}}\n",
            "l", 1, 1, NULL, 0, &c, NULL))
        return;
    CHECK(c.n == 1 && c.m[0].channels == 8, "one message of 8 channels");
    size_t n;
    const sn_point_xyzi *p = xyzi(&c.m[0], &n);
    size_t k = 0;
    int bad = 0, miss = 0;
    for (int ch = 0; ch < 8; ch++) {
        uint32_t want = 0;
        for (int j = 0; j < 100; j++) {
            double v = elev(ch, 8, -20, 20) * M_PI / 180, a = azim(0, 360, j, 100, 360) * M_PI / 180;
            double dx = cos(v) * cos(a);
            if (!(dx > 1e-9) || 10 / dx > 100)
                continue;
            want++;
            double t = 10 / dx;
            if (k >= n) {
                miss++;
                continue;
            }
            double ex = t * dx, ey = t * cos(v) * sin(a), ez = t * sin(v);
            if (fabs(p[k].x - ex) > 1e-4 * t || fabs(p[k].y - ey) > 1e-4 * t || fabs(p[k].z - ez) > 1e-4 * t ||
                fabs(p[k].intensity - exp(-0.004 * t)) > 1e-6)
                bad++;
            k++;
        }
        CHECK(c.m[0].counts[ch] == want, "channel %d: %u points, %u azimuths reach the wall", ch, c.m[0].counts[ch],
              want);
    }
    CHECK(k == n && miss == 0, "%zu points, %zu expected", n, k);
    CHECK(bad == 0, "%d points off their analytic position or intensity", bad);
    release(&c);
}

static void rotation_slices(void)
{
    /* 10 Hz at 20 FPS is half a turn per tick: ticks alternate between azimuths [-180, 0) and
    ** [0, 180), and the measurement's horizontal_angle (where the next tick starts) between
    ** pi and 0. */
    capture c;
    if (run(WALL(10.5, "") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast_semantic, attributes: {"
            "channels: 1, upper_fov: 0, rotation_frequency: 10, points_per_second: 7200, range: 100}}\n",
            "l", 4, 1, NULL, 0, &c, NULL))
        return;
    CHECK(c.n == 4, "%zu messages", c.n);
    for (size_t f = 0; f < c.n; f++) {
        size_t n;
        const sn_semantic_point *p = sem(&c.m[f], &n);
        double start = f % 2 ? 180 : 0;
        CHECK_NEAR(c.m[f].hangle, f % 2 ? 0 : M_PI, 1e-6, "horizontal_angle after the tick");
        size_t k = 0, want = 0;
        int bad = 0;
        for (int j = 0; j < 360; j++) { /* 7200 / 20 = 360 points per tick over 180 degrees */
            double a = azim(start, 180, j, 360, 360) * M_PI / 180;
            if (!(cos(a) > 1e-9) || 10 / cos(a) > 100)
                continue;
            want++;
            if (k < n && (fabs(p[k].x - 10) > 1e-4 || fabs(p[k].y - 10 * tan(a)) > 1e-3))
                bad++;
            k++;
        }
        CHECK(n == want && want > 100, "tick %zu: %zu points, %zu azimuths of its half turn reach the wall", f, n,
              want);
        CHECK(bad == 0, "tick %zu: %d points not where its slice's azimuths hit", f, bad);
        for (size_t i = 0; i < n; i++)
            if (f % 2 ? p[i].y < 0 : p[i].y >= 0) {
                CHECK(0, "tick %zu: a point at y = %g belongs to the other half turn", f, p[i].y);
                break;
            }
    }
    release(&c);
}

/* CARLA's loop (RayCastSemanticLidar.cpp, SimulateLidar), ported: every tick gets the frame's
** DeltaTime whatever the sensor_tick (Sensor.cpp, ASensor::PostPhysTickInternal); the points of
** a channel and the azimuth of each, and the angle carried to the next tick. */
typedef struct carla_lidar {
    double current_deg; /* SemanticLidarData's horizontal angle, in degrees */
} carla_lidar;
static int carla_tick(carla_lidar *l, double pps, int channels, double rot, double fov, double delta, double *azims,
                      int cap)
{
    int points = (int)floor(pps * delta / channels + 0.5); /* FMath::RoundHalfFromZero */
    double tick = rot * fov * delta, step = tick / points;
    for (int j = 0; j < points && j < cap; j++)
        azims[j] = fmod(l->current_deg + step * j, fov) - fov / 2;
    l->current_deg = fmod(l->current_deg + tick, fov);
    return points;
}

static void sensor_tick_interval(void)
{
    /* sensor_tick 0.1 at 20 FPS: ticks at frames 1, 3, 5, each of one frame's DeltaTime as
    ** CARLA's: half a turn at 10 Hz, 360 points, angles alternating pi and 0 (issue 33 item 11:
    ** it cast a full turn of 720 points, the angle stuck at pi). */
    capture c;
    if (run(WALL(10.5, "") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast_semantic, attributes: {"
            "channels: 1, upper_fov: 0, rotation_frequency: 10, points_per_second: 7200, range: 100, sensor_tick: 0.1}}\n",
            "l", 5, 1, NULL, 0, &c, NULL))
        return;
    CHECK(c.n == 3 && c.m[0].frame == 1 && c.m[1].frame == 3 && c.m[2].frame == 5, "%zu ticks", c.n);
    carla_lidar port = {0};
    for (size_t f = 0; f < c.n; f++) {
        static double az[1024];
        int P = carla_tick(&port, 7200, 1, 10, 360, 0.05, az, 1024);
        CHECK(P == 360, "CARLA's loop: %d points a tick", P);
        CHECK_NEAR(c.m[f].hangle, port.current_deg * M_PI / 180, 1e-6, "horizontal_angle as CARLA's loop");
        size_t want = 0;
        for (int j = 0; j < P; j++) {
            double a = az[j] * M_PI / 180;
            want += cos(a) > 1e-9 && 10 / cos(a) <= 100;
        }
        CHECK(c.m[f].counts[0] == want && want > 100, "tick %zu: %u points, CARLA's loop has %zu azimuths reach the wall",
              f, c.m[f].counts[0], want);
    }
    CHECK(c.n == 3 && fabs(c.m[0].hangle - M_PI) < 1e-6 && fabs(c.m[1].hangle) < 1e-6 && fabs(c.m[2].hangle - M_PI) < 1e-6,
          "angles alternate pi, 0, pi");
    release(&c);
}

static void dropoff_statistics(void)
{
    /* A wall at 100 m (intensity exp(-0.4) = 0.670, under the 0.8 limit): a point survives the
    ** general drop-off with 1 - 0.45 and the intensity drop-off with 0.5 I + 0.6 (CARLA's
    ** alpha = 0.4 / 0.8, beta = 1 - 0.4). Range noise of 0.1 m along each ray: the distance's
    ** spread around the true one. */
    const int C = 32, P = 3000; /* 96 000 rays a tick, a quarter turn toward the wall */
    capture c;
    if (run(WALL(100.5, "") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast, attributes: {channels: 32,"
            " upper_fov: 5, lower_fov: -5, horizontal_fov: 90, rotation_frequency: 20, points_per_second: 1920000,"
            " range: 1000, noise_stddev: 0.1}}\n",
            "l", 2, 2, NULL, 0, &c, NULL))
        return;
    size_t total = 0, rays = 0;
    double sum = 0, sum2 = 0;
    for (size_t f = 0; f < c.n; f++) {
        size_t n;
        const sn_point_xyzi *p = xyzi(&c.m[f], &n);
        total += n;
        for (size_t i = 0; i < n; i++) {
            double r = sqrt((double)p[i].x * p[i].x + (double)p[i].y * p[i].y + (double)p[i].z * p[i].z);
            double truth = 100 * r / p[i].x; /* the ray's distance to the face x = 100 */
            sum += r - truth, sum2 += (r - truth) * (r - truth);
        }
    }
    /* every ray of the quarter turn meets the wall; each survives with 0.55 (0.5 I(d) + 0.6),
    ** d = 100 / (cos v cos a) its distance to the face (I under the limit all the way) */
    rays = (size_t)C * P * c.n;
    double want = 0, var = 0;
    for (size_t f = 0; f < c.n; f++)
        for (int ch = 0; ch < C; ch++)
            for (int j = 0; j < P; j++) {
                double v = elev(ch, C, -5, 5) * M_PI / 180, a = azim(f * 90.0, 90, j, P, 90) * M_PI / 180;
                double I = exp(-0.004 * 100 / (cos(v) * cos(a))), pk = 0.55 * (0.5 * I + 0.6);
                want += pk, var += pk * (1 - pk);
            }
    CHECK(fabs((double)total - want) < 5 * sqrt(var), "%zu points kept of %zu rays, formula %.0f +- %.0f", total, rays,
          want, sqrt(var));
    double mean = sum / (double)total, stdev = sqrt(sum2 / (double)total - mean * mean);
    CHECK(fabs(mean) < 5 * 0.1 / sqrt((double)total), "noise mean %g m", mean);
    CHECK(fabs(stdev - 0.1) < 0.005, "noise stddev %g m, attribute 0.1", stdev);
    release(&c);

    /* general drop-off alone (limit 0: no intensity drop-off) keeps 1 - rate */
    if (run(WALL(100.5, "") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast, attributes: {channels: 32,"
            " upper_fov: 5, lower_fov: -5, horizontal_fov: 90, rotation_frequency: 20, points_per_second: 1920000,"
            " range: 1000, dropoff_general_rate: 0.3, dropoff_intensity_limit: 0}}\n",
            "l", 1, 1, NULL, 0, &c, NULL))
        return;
    size_t n;
    xyzi(&c.m[0], &n);
    double w2 = 0.7 * C * P, sd2 = sqrt(C * P * 0.7 * 0.3);
    CHECK(fabs((double)n - w2) < 5 * sd2, "%zu kept of %d, formula %.0f +- %.0f", n, C * P, w2, sd2);
    release(&c);
}

static void semantic_incidence(void)
{
    /* The wall turned 30 degrees (its near face's normal points back along yaw 30): every point
    ** carries the wall's id and tag, lies on the face, and cos_inc_angle = cos v cos(a - 30). */
    capture c;
    if (run(WALL(20, ", rotation: [0, 30, 0]") "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast_semantic,"
            " attributes: {channels: 4, upper_fov: 10, lower_fov: -10, rotation_frequency: 20, points_per_second: 8000,"
            " range: 100}}\n",
            "l", 1, 1, NULL, 0, &c, NULL))
        return;
    size_t n;
    const sn_semantic_point *p = sem(&c.m[0], &n);
    int bad_id = 0, bad_cos = 0, bad_face = 0;
    double c30 = cos(M_PI / 6), s30 = sin(M_PI / 6);
    for (size_t i = 0; i < n; i++) {
        double r = sqrt((double)p[i].x * p[i].x + (double)p[i].y * p[i].y + (double)p[i].z * p[i].z);
        double want = (p[i].x * c30 + p[i].y * s30) / r; /* -ray . normal, normal = -(cos 30, sin 30, 0) */
        bad_cos += fabs(p[i].cos_inc_angle - want) > 1e-5;
        bad_face += fabs(p[i].x * c30 + p[i].y * s30 - (20 * c30 - 0.5)) > 1e-3; /* the face, along the normal */
        bad_id += p[i].object_idx != 1 || p[i].object_tag != SN_TAG_WALL;
    }
    CHECK(n > 30, "%zu points on the turned wall", n);
    CHECK(bad_id == 0, "%d points without the wall's id 1 and tag %d", bad_id, SN_TAG_WALL);
    CHECK(bad_cos == 0, "%d points with a cosine of incidence off the analytic one", bad_cos);
    CHECK(bad_face == 0, "%d points off the turned face", bad_face);
    release(&c);
}

static void motion_skew(void)
{
    /* A car driven kinematically at 20 m/s toward a wall whose face is x = 40, a lidar 2.5 m over
    ** its origin turning once a frame. With motion distortion column j is measured at its time
    ** t_j (point_time_ns) from where the sensor was then: x_local = 40 - x_sensor(t_j), with
    ** x_sensor(t) = x_sensor(now) - 20 (now - t); without, every point has 40 - x_sensor(now). */
    const char *scene =
        WALL(40.5, "") "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}}\n"
        "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast_semantic, attach_to: car,"
        " transform: {location: [0, 0, 2.5]}, attributes: {channels: 3, upper_fov: 2, lower_fov: -2,"
        " rotation_frequency: 20, points_per_second: 12000, range: 200, motion_distortion: %s}}\n";
    char text[2048];
    for (int on = 0; on < 2; on++) {
        snprintf(text, sizeof text, scene, on ? "true" : "false");
        capture c;
        if (run(text, "l", 3, 2, "car", 20, &c, NULL))
            return;
        CHECK(c.n == 3, "%zu messages", c.n);
        const msg *m = &c.m[2];
        size_t n;
        const sn_semantic_point *p = sem(m, &n);
        CHECK(on ? m->n_times == n : m->times == NULL, "point_time_ns: %zu times for %zu points", m->n_times, n);
        int bad = 0;
        double lo = INFINITY, hi = -INFINITY;
        int64_t t_lo = INT64_MAX, t_hi = INT64_MIN;
        for (size_t i = 0; i < n; i++) {
            if (p[i].object_idx != 1)
                continue; /* the car itself seen from above is not part of this check */
            double xs = m->sensor_x;
            if (on) {
                CHECK(m->times[i] > m->time_ns - 50000000 && m->times[i] <= m->time_ns, "point time inside the frame");
                xs -= 20 * (double)(m->time_ns - m->times[i]) * 1e-9;
            }
            bad += fabs(p[i].x - (40 - xs)) > 2e-4;
            lo = fmin(lo, p[i].x), hi = fmax(hi, p[i].x);
            if (on)
                t_lo = m->times[i] < t_lo ? m->times[i] : t_lo, t_hi = m->times[i] > t_hi ? m->times[i] : t_hi;
        }
        CHECK(bad == 0, "motion_distortion %d: %d wall points off x_local = 40 - x_sensor(t)", on, bad);
        /* the wall spans azimuths +-78.7 degrees of a turn starting at -180: 0.44 of the frame,
        ** 0.44 x 0.05 s x 20 m/s of travel between its first and last column */
        if (on)
            CHECK(hi - lo > 0.4 && fabs(hi - lo - 20 * (double)(t_hi - t_lo) * 1e-9) < 1e-4,
                  "skew across the wall %g m, travel between its columns %g m", hi - lo, 20 * (double)(t_hi - t_lo) * 1e-9);
        else
            CHECK(hi - lo < 1e-4, "no skew without motion distortion (%g m)", hi - lo);
        release(&c);
    }
}

static void same_bytes(void)
{
    /* drop-off and noise draw from the sensor's stream: a scene's bytes are the same at 1 and 2
    ** threads, and noise_seed given makes two differently named sensors draw alike */
    const char *scene = WALL(30.5, "") "  - {name: post, blueprint: static.prop.box, transform: {location: [5, 3, 0]}}\n"
                        "sensors:\n  - {name: %s, blueprint: sensor.lidar.ray_cast, attributes: {channels: 16,"
                        " range: 60, points_per_second: 100000, noise_stddev: 0.05%s}}\n";
    char t1[1024], t2[1024];
    snprintf(t1, sizeof t1, scene, "a", "");
    capture c1, c2;
    if (run(t1, "a", 4, 1, NULL, 0, &c1, NULL) || run(t1, "a", 4, 2, NULL, 0, &c2, NULL))
        return;
    CHECK(c1.n_bytes == c2.n_bytes && memcmp(c1.bytes, c2.bytes, c1.n_bytes) == 0,
          "1 and 2 threads give different bytes (%zu vs %zu)", c1.n_bytes, c2.n_bytes);
    CHECK(c1.n == 4 && c1.m[3].n_raw > 1000, "points were made");
    release(&c1), release(&c2);
    snprintf(t1, sizeof t1, scene, "a", ", noise_seed: 7");
    snprintf(t2, sizeof t2, scene, "b", ", noise_seed: 7");
    if (run(t1, "a", 2, 1, NULL, 0, &c1, NULL) || run(t2, "b", 2, 2, NULL, 0, &c2, NULL))
        return;
    bool same = c1.n == 2 && c2.n == 2;
    for (size_t i = 0; same && i < 2; i++)
        same = c1.m[i].n_raw == c2.m[i].n_raw && memcmp(c1.m[i].raw, c2.m[i].raw, c1.m[i].n_raw) == 0;
    CHECK(same, "the same noise_seed gives the same points under two names");
    release(&c1), release(&c2);
}

static void bad_attributes(void)
{
    static const struct {
        const char *attrs, *needle;
    } cases[] = {
        {"channels: 0", "channels"},
        {"channels: 2.5", "channels"},
        {"range: 0", "range"},
        {"points_per_second: -1", "points_per_second"},
        {"rotation_frequency: -1", "rotation_frequency"},
        {"upper_fov: -40", "upper_fov -40 is below lower_fov -30"},
        {"lower_fov: -91", "lower_fov"},
        {"horizontal_fov: 0", "horizontal_fov"},
        {"horizontal_fov: 361", "horizontal_fov"},
        {"atmosphere_attenuation_rate: -0.1", "atmosphere_attenuation_rate"},
        {"dropoff_general_rate: 1.5", "dropoff_general_rate"},
        {"dropoff_intensity_limit: -1", "dropoff_intensity_limit"},
        {"dropoff_zero_intensity: 2", "dropoff_zero_intensity"},
        {"noise_stddev: -0.1", "noise_stddev"},
        {"noise_seed: -3", "noise_seed"},
        {"sensor_tick: -1", "sensor_tick"},
        {"motion_distortion: maybe", "motion_distortion"},
        {"motion_distortion: true, sensor_tick: 0.2", "motion_distortion needs a tick every frame"},
        {"points_per_second: 1000000000, sensor_tick: 10", "16777216"},
        {"colour: red", "colour"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char scene[512], err[SN_ERROR_MAX];
        snprintf(scene, sizeof scene, "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast, attributes: {%s}}\n",
                 cases[i].attrs);
        capture c;
        int rc = run(scene, "l", 1, 1, NULL, 0, &c, err);
        CHECK(rc != 0, "'%s' accepted", cases[i].attrs);
        CHECK_CONTAINS(err, cases[i].needle);
        release(&c);
    }
    /* the semantic lidar has no intensity attributes (seed 003's table) */
    char err[SN_ERROR_MAX];
    capture c;
    int rc = run("sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast_semantic, attributes: {noise_stddev: 1}}\n",
                 "l", 1, 1, NULL, 0, &c, err);
    CHECK(rc != 0, "noise_stddev accepted by the semantic lidar");
    CHECK_CONTAINS(err, "noise_stddev");
    release(&c);
}

static void reflectivity_intensity(void)
{
    /* intensity_model reflectivity: a grey wall ahead (reflectivity 0.2, face x = 10) and a sign
    ** behind (its tag's 0.9, face x = -10); one level laser, a full turn, no drop-off. Each point's
    ** intensity is rho cos(a) exp(-0.004 d), d = 10 / |cos a|; the actors read back their
    ** resolved reflectivity (the sign's from its tag). CARLA's model ignores the surface. */
    const char *scene =
        "actors:\n  - {name: grey, blueprint: static.prop.box, transform: {location: [10.5, 0, 0]},"
        " attributes: {extent: \"0.5,200,200\", semantic_tag: wall, reflectivity: 0.2}}\n"
        "  - {name: sign, blueprint: static.prop.box, transform: {location: [-10.5, 0, 0]},"
        " attributes: {extent: \"0.5,200,200\", semantic_tag: TrafficSign}}\n"
        "sensors:\n  - {name: l, blueprint: sensor.lidar.ray_cast, attributes: {channels: 1, upper_fov: 0,"
        " lower_fov: 0, rotation_frequency: 20, points_per_second: 7200, range: 100, dropoff_general_rate: 0,"
        " dropoff_intensity_limit: 0, dropoff_zero_intensity: 0, intensity_model: %s}}\n";
    char buf[1200];
    capture c;
    snprintf(buf, sizeof buf, scene, "reflectivity");
    if (run(buf, "l", 1, 1, NULL, 0, &c, NULL))
        return;
    size_t n;
    const sn_point_xyzi *p = xyzi(&c.m[0], &n);
    int bad = 0, front = 0, back = 0;
    for (size_t i = 0; i < n; i++) {
        double r = sqrt((double)p[i].x * p[i].x + (double)p[i].y * p[i].y), ca = fabs(p[i].x) / r;
        double rho = p[i].x > 0 ? 0.2 : 0.9, want = rho * ca * exp(-0.004 * 10 / ca);
        front += p[i].x > 0, back += p[i].x < 0;
        if (fabs(p[i].intensity - want) > 1e-6) {
            if (bad++ < 3)
                fprintf(stderr, "  point (%g, %g): intensity %.7g, want %.7g\n", p[i].x, p[i].y, p[i].intensity, want);
        }
    }
    CHECK(front > 100 && back > 100 && n == (size_t)(front + back), "%d points on the wall, %d on the sign", front, back);
    CHECK(bad == 0, "%d points off rho cos(a) exp(-a d)", bad);
    release(&c);

    /* the default, carla, is unchanged: the surface does not matter */
    snprintf(buf, sizeof buf, scene, "carla");
    if (run(buf, "l", 1, 1, NULL, 0, &c, NULL))
        return;
    p = xyzi(&c.m[0], &n);
    bad = 0;
    for (size_t i = 0; i < n; i++) {
        double r = sqrt((double)p[i].x * p[i].x + (double)p[i].y * p[i].y);
        bad += fabs(p[i].intensity - exp(-0.004 * r)) > 1e-6;
    }
    CHECK(n > 200 && bad == 0, "carla's intensity on %zu points, %d off", n, bad);
    release(&c);

    /* each actor's resolved reflectivity, through the C API */
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    sn_value v, w;
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "refl.yaml", buf), &err) == SN_OK, "load: %s", err.msg);
    CHECK(sn_engine_actor_attribute(e, sn_engine_find_actor(e, "grey"), "reflectivity", &v, &err) == SN_OK &&
          sn_engine_actor_attribute(e, sn_engine_find_actor(e, "sign"), "reflectivity", &w, &err) == SN_OK &&
          v.f == 0.2 && w.f == 0.9, "reflectivity read back: %g and %g (by tag)", v.f, w.f);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_lidar TMPDIR PLUGIN_DIR\n");
        return 2;
    }
    dir = argv[1], plugins = argv[2];
    wall_points();
    rotation_slices();
    sensor_tick_interval();
    dropoff_statistics();
    semantic_incidence();
    motion_skew();
    same_bytes();
    bad_attributes();
    reflectivity_intensity();
    return CHECK_DONE();
}
