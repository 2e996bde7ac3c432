/*
** bench_v2x — the V2X medium at 10, 100, 1 000 and 5 000 stations against CARLA's method in the
** same run. Stations are cars with a CAM sensor each, driving at 10 m/s (kinematic) along the
** streets of a 2 km x 2 km grid of 400 buildings (80 m blocks, 12-30 m high), so most links are
** cut by buildings and some by cars. CAMs follow the ETSI triggers (a car at 10 m/s sends about
** every 0.45 s), and once more with every station sending every tick (fixed_rate) as the worst case.
**
** Each configuration is timed as ms per tick of the V2X share, from the engine's own timers
** (sn_run_stats: sensor ticks and output; CAM generation, grid, ray batches, channel, reports);
** the world's step without sensors is printed beside it.
** "carla" loads the same plugin built with CARLA's method (tests/bench/v2x_carla): every ordered
** pair checked, one multi-hit trace per pair within filter_distance, one after the other.
** argv[1]: temp folder, argv[2]: the plugin folder, argv[3]: the CARLA-method plugin folder.
*/
#include "quick.h"

#include <sensim/sensim.h>

#include "../../engine/sim/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DT 0.05
#define PITCH 100.0 /* street spacing, m */
#define BLOCKS 20
#define WARMUP 12

static const char *dir;
static int threads = 2; /* the engine's worker threads */
/* A listener of every sensor, so the reports are serialised (a message nobody consumes is not);
** off for the one run that checks that nothing is serialised then. */
static bool consume = true;
static double serialize_ms; /* the last run's time_serialize per tick */
static void ignore(const sn_message *m, void *user) { (void)m, (void)user; }

/* The process's CPU time: on a shared machine the figure that does not grow with the load. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The i-th car's slot: street, lane and place, spread by a stride through all slots, none
** within 12 m of a crossing (no overlaps at spawn). */
static void slot(int i, double *x, double *y, double *yaw)
{
    const int per_street = 9; /* 8 m apart between crossings: 76 m / 8 */
    const long total = (long)(BLOCKS + 1) * 2 * 2 * BLOCKS * per_street;
    long k = ((long)i * 7919) % total;
    int place = (int)(k % per_street);
    k /= per_street;
    int block = (int)(k % BLOCKS);
    k /= BLOCKS;
    int lane = (int)(k % 2);
    k /= 2;
    int along_x = (int)(k % 2);
    int street = (int)(k / 2);
    double s = block * PITCH + 14 + place * 8.0, c = street * PITCH + (lane ? 3.0 : -3.0);
    if (along_x)
        *x = s, *y = c, *yaw = lane ? 0 : 180;
    else
        *x = c, *y = s, *yaw = lane ? 90 : 270;
}

static const char *scene(int n, bool sensors, const char *attrs)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/bench_v2x_%d_%d.yaml", dir, n, sensors);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "settings: {fixed_delta_seconds: %g, seed: 1}\nactors:\n  - {name: ground, blueprint: static.ground}\n", DT);
    for (int bx = 0; bx < BLOCKS; bx++)
        for (int by = 0; by < BLOCKS; by++) {
            double h = 6 + ((bx * 7 + by * 13) % 10) * 1.0; /* half height 6..15 m */
            fprintf(f, "  - {name: b%d_%d, blueprint: static.building, transform: {location: [%g, %g, %g]}, "
                       "attributes: {extent: \"40,40,%g\"}}\n", bx, by, bx * PITCH + 50, by * PITCH + 50, h, h);
        }
    for (int i = 0; i < n; i++) {
        double x, y, yaw;
        slot(i, &x, &y, &yaw);
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0], rotation: [0, %g, 0]}}\n",
                i, x, y, yaw);
    }
    if (sensors) {
        fprintf(f, "sensors:\n");
        for (int i = 0; i < n; i++)
            fprintf(f, "  - {name: v%d, blueprint: sensor.other.v2x, attach_to: car%d, transform: {location: [0, 0, 1.6]}, "
                       "attributes: {%s}}\n", i, i, attrs);
    }
    fclose(f);
    return path;
}

/* ms per tick over `frames` frames after the warm-up; negative on failure. Without sensors the
** whole step; with them the sensors' share from the engine's timers: their ticks (CAM
** generation, grid, ray batches and the ray index's update, channel, delivery) and, in
** *output_ms, serializing the reports. */
static double run(const char *plugins, int n, bool sensors, const char *attrs, int frames, double *output_ms)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (e)
        e->cpu_timers = true;
    if (!e || sn_engine_load_scene(e, scene(n, sensors, attrs), &err) != SN_OK ||
        (consume && sn_engine_listen_all(e, ignore, NULL, &err) != SN_OK)) {
        fprintf(stderr, "bench_v2x: %s\n", err.msg);
        sn_engine_destroy(e);
        return -1;
    }
    for (int i = 0; i < n; i++) { /* kinematic cars at 10 m/s along their street */
        char name[32];
        snprintf(name, sizeof name, "car%d", i);
        uint32_t id = sn_engine_find_actor(e, name);
        double x, y, yaw;
        slot(i, &x, &y, &yaw);
        /* 8..14 m/s: the position triggers of different cars fall on different ticks. */
        double speed = 8 + (i * 37 % 61) / 10.0;
        sn_vec3 v = {speed * cos(yaw * M_PI / 180), speed * sin(yaw * M_PI / 180), 0};
        if (sn_engine_set_simulate_physics(e, id, false, &err) || sn_engine_set_velocity(e, id, v, (sn_vec3){0, 0, 0}, &err)) {
            fprintf(stderr, "bench_v2x: %s\n", err.msg);
            sn_engine_destroy(e);
            return -1;
        }
    }
    double t0 = 0, c0[2] = {0, 0};
    sn_run_stats s0 = {.struct_size = sizeof s0}, s1 = s0;
    /* Warm-up past the first tick, where every station sends its first CAM at once. */
    for (int f = 0; f < WARMUP + frames; f++) {
        if (f == WARMUP)
            t0 = now(), sn_engine_stats(e, &s0, NULL), c0[0] = e->cpu_sensors, c0[1] = e->cpu_output;
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "bench_v2x: %s\n", err.msg);
            sn_engine_destroy(e);
            return -1;
        }
    }
    double ms = (now() - t0) * 1e3 / frames;
    sn_engine_stats(e, &s1, NULL);
    if (sensors)
        ms = (e->cpu_sensors - c0[0]) * 1e3 / frames;
    if (output_ms)
        *output_ms = (e->cpu_output - c0[1]) * 1e3 / frames;
    serialize_ms = (s1.time_serialize - s0.time_serialize) * 1e3 / frames;
    sn_engine_destroy(e);
    return ms;
}

/* The best of `k` runs (this VM shares its cores: the least disturbed run is the figure). */
static double best(int k, const char *plugins, int n, const char *attrs, int frames, double *output_ms)
{
    double b = INFINITY, bo = INFINITY;
    for (int i = 0; i < k; i++) {
        double o, ms = run(plugins, n, true, attrs, frames, &o);
        if (ms < 0)
            return -1;
        b = fmin(b, ms), bo = fmin(bo, o);
    }
    if (output_ms)
        *output_ms = bo;
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_v2x TMPDIR PLUGINDIR CARLADIR\n");
        return 2;
    }
    dir = argv[1];
    const char *ours = argv[2], *carla = argv[3];
    const int sizes[] = {10, 100, 1000, 5000};
    int n_sizes = getenv("BENCH_V2X_MAX") || bench_quick() ? 3 : 4; /* CI's quick pass: no 5 000 (a third of the time) */
    /* CAMs on the ETSI triggers; and every station sending at every tick, the worst case. */
    const char *etsi = "", *every = "fixed_rate: true, gen_cam_min: 0";
    if (getenv("BENCH_V2X_PROFILE")) { /* one configuration, for perf: N stations, ETSI triggers */
        if (getenv("BENCH_V2X_THREADS"))
            threads = atoi(getenv("BENCH_V2X_THREADS"));
        int n = atoi(getenv("BENCH_V2X_PROFILE"));
        double out, ms = run(getenv("BENCH_V2X_CARLA") ? carla : ours, n, true, etsi,
                             getenv("BENCH_V2X_FRAMES") ? atoi(getenv("BENCH_V2X_FRAMES")) : 40, &out);
        printf("N=%d: medium %.3f ms/tick, reports %.3f ms/tick\n", n, ms, out);
        return 0;
    }
    printf("v2x: N cars with CAM sensors, 2 km x 2 km street grid, 400 buildings, 8-14 m/s, 2 threads; ms/tick of "
           "the V2X share from the engine's timers, best of 3 runs: the medium (sensor ticks: CAMs, grid, line of "
           "sight, channel) and the reports (serialization)\n");
    double medium_1000 = 0, reports_1000 = 0, carla_1000 = 0;
    for (int k = 0; k < n_sizes; k++) {
        int n = sizes[k], frames = n >= 5000 ? 6 : 18, reps = n >= 5000 ? 1 : bench_rounds(3);
        double world = run(ours, n, false, etsi, frames, NULL), reports = NAN, creports = NAN;
        double medium = best(reps, ours, n, etsi, frames, &reports);
        double cmedium = best(reps, carla, n, etsi, n >= 5000 ? 2 : frames, &creports);
        double worst_reports, worst = n <= 1000 ? best(1, ours, n, every, 4, &worst_reports) : NAN;
        if (world < 0 || medium < 0 || cmedium < 0 || worst < 0)
            return 1;
        printf("engine v2x N=%-5d world %.3f ms/tick; medium %.3f ms/tick (CARLA's method %.3f), reports %.3f ms/tick; "
               "every station every tick: medium %.3f, reports %.3f ms/tick\n",
               n, world, medium, cmedium, reports, worst, n <= 1000 ? worst_reports : NAN);
        printf("ratio v2x_carla_over_grid N=%d = %.1f (medium %.3f vs %.3f ms/tick)\n", n, cmedium / fmax(medium, 1e-3),
               cmedium, medium);
        if (n == 1000) {
            medium_1000 = medium, reports_1000 = reports, carla_1000 = cmedium;
            /* this VM has about one free core: the 1-thread figure beside the 2-thread one */
            threads = 1;
            double one_reports, one = best(reps, ours, n, etsi, frames, &one_reports);
            threads = 2;
            printf("engine v2x N=1000 1 thread: medium %.3f ms/tick, reports %.3f ms/tick (2 threads: %.3f, %.3f; "
                   "ratio %.2f)\n", one, one_reports, medium, reports, medium / fmax(one, 1e-3));
        }
    }
    /* issue 25 item 2: the worst case again with nothing consuming the reports */
    consume = false;
    double quiet_out, quiet = best(1, ours, 1000, every, 4, &quiet_out);
    consume = true;
    if (quiet < 0)
        return 1;
    printf("engine v2x N=1000 every station every tick, no consumer: medium %.3f ms/tick, output %.3f ms/tick, "
           "serialising %.3f ms/tick (the run timers' time_serialize: 0 when nothing listens)\n", quiet, quiet_out,
           serialize_ms);
    printf("target v2x 1000 stations <= 10 ms/tick: medium %.3f ms/tick (%s), %.3f with its reports; CARLA's method "
           "%.3f ms/tick for the medium\n", medium_1000, medium_1000 <= 10 ? "met" : "missed",
           medium_1000 + reports_1000, carla_1000);
    return 0;
}
