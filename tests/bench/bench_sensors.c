/*
** bench_sensors — what an IMU, a GNSS, an obstacle detector and a radar cost per tick, beside
** the empty tick of the same world measured in the same run.
**
** The world: a test world (sensim/testworld.h) with a ground, 40 buildings along a ten-lane road
** and 100 cars on it driving at 10 m/s (kinematic velocities), dt 0.05 s, 2 worker threads. Each configuration adds, on
** one car, one sensor (or 10 of them: the per-sensor share is clearer) with a listener that
** counts bytes, so every message is serialized as in a run. Each is timed over 200 frames after
** 20 warm-up frames, best of 3; the ratio is ms per tick with the sensors / ms per tick empty.
** argv[1]: the build's plugin folder (plugins/).
*/
#include <sensim/testworld.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAMES 400
#define WARMUP 20
#define CARS 100

static const char *plugins;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void on_message(const sn_message *m, void *user) { *(size_t *)user += m->size; }

typedef struct config {
    const char *label, *plugin, *blueprint;
    int count;
    sn_attribute attrs[2];
    uint32_t n_attrs;
} config;

/* ms per tick of one configuration (blueprint NULL: the empty world); *share gets the
** sensors' own ms per tick from the engine's timers (ticks, ray queries, serialization). */
static double run(const config *c, size_t *bytes, double *share)
{
    sn_error err;
    sn_testworld_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.seed = 1;
    o.threads = 2;
    o.georeference = (sn_geo_location){48.1, 11.6, 520};
    sn_engine *e = sn_testworld_create(&o, &err);
    if (!e)
        return fprintf(stderr, "bench_sensors: %s\n", err.msg), -1;
    if (c->plugin) {
        char path[1024];
        snprintf(path, sizeof path, "%s/sensim_%s.so", plugins, c->plugin);
        if (sn_testworld_load_plugin(e, path, NULL, &err))
            return fprintf(stderr, "bench_sensors: %s\n", err.msg), sn_engine_destroy(e), -1;
    }
    sn_actor_desc d = {sizeof d, "static.ground", "ground", {{0, 0, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
    sn_engine_spawn(e, &d, NULL, &err);
    for (int b = 0; b < 40; b++) {
        char ext[64];
        snprintf(ext, sizeof ext, "%g,%g,%g", 6.0 + b % 5, 8.0 + b % 7, 5.0 + b % 4 * 3);
        sn_attribute a[] = {{"extent", ext}};
        sn_actor_desc bd = {sizeof bd, "static.building", NULL, {{-100 + (b % 10) * 40.0, (b < 20 ? -80 : 80) - (b / 10 % 2) * 40.0 * (b < 20 ? 1 : -1), 5}, {0, 0, 0}},
                            0, 0, a, 1};
        sn_engine_spawn(e, &bd, NULL, &err);
    }
    uint32_t first = 0;
    for (int i = 0; i < CARS; i++) {
        uint32_t id;
        const double y = -27 + (i % 10) * 6.0, x = (i / 10) * 20.0; /* ten lanes, 20 m apart */
        sn_actor_desc cd = {sizeof cd, "vehicle.sedan", NULL, {{x, y, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
        if (sn_engine_spawn(e, &cd, &id, &err))
            return fprintf(stderr, "bench_sensors: %s\n", err.msg), sn_engine_destroy(e), -1;
        sn_engine_set_simulate_physics(e, id, false, &err);
        sn_engine_set_velocity(e, id, (sn_vec3){10, 0, 0}, (sn_vec3){0, 0, 0}, &err);
        if (!first)
            first = id;
    }
    *bytes = 0;
    for (int k = 0; c->blueprint && k < c->count; k++) {
        char name[32];
        snprintf(name, sizeof name, "s%d", k);
        sn_actor_desc sd = {sizeof sd, c->blueprint, name, {{2.4, 0, 1}, {0, 0, 0}}, first, 0, c->attrs, c->n_attrs};
        if (sn_engine_spawn(e, &sd, NULL, &err) || sn_engine_listen(e, name, on_message, bytes, &err))
            return fprintf(stderr, "bench_sensors: %s\n", err.msg), sn_engine_destroy(e), -1;
    }
    for (int k = 0; k < WARMUP; k++)
        sn_engine_step(e, &err);
    *bytes = 0;
    sn_run_stats s0, s1;
    memset(&s0, 0, sizeof s0), memset(&s1, 0, sizeof s1);
    s0.struct_size = s1.struct_size = sizeof s0;
    sn_engine_stats(e, &s0, &err);
    double t0 = now();
    for (int k = 0; k < FRAMES; k++)
        if (sn_engine_step(e, &err))
            return fprintf(stderr, "bench_sensors: %s\n", err.msg), sn_engine_destroy(e), -1;
    double ms = (now() - t0) * 1e3 / FRAMES;
    sn_engine_stats(e, &s1, &err);
    *share = (s1.time_sensors + s1.time_output - s0.time_sensors - s0.time_output) * 1e3 / FRAMES;
    sn_engine_destroy(e);
    return ms;
}

/* Best of 5 of a configuration and of the empty world, interleaved so both see the same machine. */
static void best(const config *c, const config *empty, size_t *bytes, double *ms, double *base, double *share)
{
    *ms = *base = *share = 1e30;
    for (int r = 0; r < 5; r++) {
        size_t nb;
        double sh, sh0, m = run(c, bytes, &sh), b = run(empty, &nb, &sh0);
        if (m < 0 || b < 0)
            exit(1);
        *ms = m < *ms ? m : *ms, *base = b < *base ? b : *base, *share = sh < *share ? sh : *share;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: bench_sensors PLUGIN_DIR\n"), 2;
    plugins = argv[1];
    const config empty = {"empty", NULL, NULL, 0, {{0}}, 0};
    const config cases[] = {
        {"imu x10", "imu", "sensor.other.imu", 10, {{"noise_accel_stddev_x", "0.1"}, {"noise_gyro_stddev_z", "0.01"}}, 2},
        {"gnss x10", "gnss", "sensor.other.gnss", 10, {{"noise_lat_stddev", "1e-6"}, {"noise_alt_stddev", "0.5"}}, 2},
        {"obstacle x10", "obstacle", "sensor.other.obstacle", 10, {{"distance", "30"}}, 1},
        {"radar x1 (1500 pts/s: 75 rays)", "radar", "sensor.other.radar", 1, {{0}}, 0},
        {"radar x10 (1500 pts/s)", "radar", "sensor.other.radar", 10, {{0}}, 0},
        {"radar x1 (100000 pts/s: 5000 rays)", "radar", "sensor.other.radar", 1, {{"points_per_second", "100000"}}, 1},
    };
    size_t bytes;
    printf("world: %d cars, 40 buildings, ground; 2 threads; %d frames, best of 5, interleaved with the empty world\n",
           CARS, FRAMES);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double ms, base, share;
        best(&cases[i], &empty, &bytes, &ms, &base, &share);
        printf("ratio %s tick vs empty tick %.2f (%.3f vs %.3f ms; the sensors' own share %.1f us per sensor per tick; "
               "%zu bytes per tick)\n",
               cases[i].label, ms / base, ms, base, share * 1e3 / cases[i].count, bytes / FRAMES);
    }
    return 0;
}
