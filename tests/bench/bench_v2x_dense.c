/*
** bench_v2x_dense — dense V2X (issue 25): 1 000 parked cars in 1 km², each with a CAM sensor
** sending at every tick (fixed_rate, gen_cam_min 0), every receiver within 500 m of about half
** of them. Two figures against peers measured in the same run:
** - the medium (the sensors' ticks: CAMs, grid, line of sight, channel, delivery; the engine's
**   own timers) against an arithmetic all-pairs loop written here: every ordered pair, its
**   distance, WINNER+'s LOS loss and one fading draw from the receiver's generator, the power
**   stored, no line of sight, one thread;
** - the reports (serializing what was received, with a listener on every sensor so every
**   message is consumed) against the medium's time, in CARLA's layout and in the compact one
**   (report_layout: compact).
** Times are the process's CPU time (the engine's CPU timers: every thread's, so 2 threads show
** what they cost together, not how long one waits) with wall-clock time beside; the loop's on
** its one thread. At antennas 1.6 m up (above the sedans' 1.5 m roofs: no car on any link) and
** at 1.4 m (below them: most links cross cars, whose models the rays must meet) and 2.25 m.
** argv[1]: temp folder, argv[2]: the plugin folder. BENCH_V2X_DENSE_N: another station count;
** BENCH_V2X_DENSE_ANTENNAS: heights (m, comma-separated; 1.4,1.6,2.25);
** BENCH_V2X_DENSE_PROFILE=carla|compact: one run of that layout (for perf), on
** BENCH_V2X_DENSE_THREADS threads (2), over BENCH_V2X_DENSE_FRAMES ticks (4), antennas at
** BENCH_V2X_DENSE_ANTENNA (1.6).
*/
#include <sensim/noise.h>
#include <sensim/sensim.h>

#include "../../engine/sim/engine.h"

#include "best_ms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT 0.05
#define SIDE 1000.0 /* m */
#define WARMUP 8 /* ticks: the parked cars settle on their suspension in the first 4 or 5 */
static int FRAMES = 4; /* BENCH_V2X_DENSE_FRAMES in the profile mode */
static double ANTENNA = 1.6; /* m above the car's origin (BENCH_V2X_DENSE_ANTENNA) */

static const char *dir, *plugins;
static int n_cars = 1000;
static double *xyz; /* the antennas, 3 per car */

/* Car i parked in its cell of a jittered square grid (no two boxes overlap), yaw at random. */
static void park(int i, int side, uint64_t *lcg, double *x, double *y, double *yaw)
{
    double pitch = SIDE / side;
#define NEXT() ((double)((*lcg = *lcg * 6364136223846793005ull + 1442695040888963407ull) >> 11) * 0x1.0p-53)
    *x = (i % side) * pitch + 3 + NEXT() * (pitch - 6);
    *y = (i / side) * pitch + 3 + NEXT() * (pitch - 6);
    *yaw = NEXT() * 360;
#undef NEXT
}

static const char *scene(const char *layout)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/bench_v2x_dense_%d.yaml", dir, n_cars);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "settings: {fixed_delta_seconds: %g, seed: 1}\nactors:\n  - {name: ground, blueprint: static.ground}\n", DT);
    int side = (int)ceil(sqrt(n_cars));
    uint64_t lcg = 7;
    for (int i = 0; i < n_cars; i++) {
        double x, y, yaw;
        park(i, side, &lcg, &x, &y, &yaw);
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%.3f, %.3f, 0], rotation: [0, %.3f, 0]}}\n",
                i, x, y, yaw);
        xyz[3 * i] = x, xyz[3 * i + 1] = y;
    }
    fprintf(f, "sensors:\n");
    for (int i = 0; i < n_cars; i++)
        fprintf(f, "  - {name: v%d, blueprint: sensor.other.v2x, attach_to: car%d, transform: {location: [0, 0, %g]}, "
                   "attributes: {fixed_rate: true, gen_cam_min: 0%s%s}}\n", i, i, ANTENNA,
                strcmp(layout, "carla") ? ", report_layout: " : "", strcmp(layout, "carla") ? layout : "");
    fclose(f);
    return path;
}

typedef struct consumed {
    uint64_t messages, bytes;
} consumed;

static void on_message(const sn_message *m, void *user)
{
    consumed *c = user;
    c->messages++, c->bytes += m->size;
}

typedef struct timing {
    double medium, reports; /* CPU ms per tick */
    double medium_wall;     /* wall-clock ms per tick */
    double mb;              /* MB of messages per tick */
    uint64_t receptions;    /* messages consumed per tick */
} timing;

/* The sensors' and the outputs' ms per tick over FRAMES frames after the warm-up. */
static bool run(const char *layout, int threads, timing *out)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (e)
        e->cpu_timers = true;
    consumed c = {0};
    bool ok = e && sn_engine_load_scene(e, scene(layout), &err) == SN_OK &&
              sn_engine_listen_all(e, on_message, &c, &err) == SN_OK;
    sn_run_stats s0 = {.struct_size = sizeof s0}, s1 = s0;
    uint64_t bytes0 = 0, msgs0 = 0;
    double cpu0[2] = {0, 0};
    for (int f = 0; ok && f < WARMUP + FRAMES; f++) {
        if (f == WARMUP)
            sn_engine_stats(e, &s0, NULL), bytes0 = c.bytes, msgs0 = c.messages, cpu0[0] = e->cpu_sensors,
                                                                                  cpu0[1] = e->cpu_output;
        ok = sn_engine_step(e, &err) == SN_OK;
    }
    if (!ok) {
        fprintf(stderr, "bench_v2x_dense: %s\n", err.msg);
        sn_engine_destroy(e);
        return false;
    }
    sn_engine_stats(e, &s1, NULL);
    for (int i = 0; i < n_cars; i++) { /* the antennas where the engine has them (the peer's input) */
        char name[32];
        snprintf(name, sizeof name, "v%d", i);
        sn_actor_info a = {.struct_size = sizeof a};
        if (sn_engine_actor_get(e, sn_engine_find_actor(e, name), &a) == SN_OK)
            xyz[3 * i] = a.transform.location.x, xyz[3 * i + 1] = a.transform.location.y, xyz[3 * i + 2] = a.transform.location.z;
    }
    out->medium = (e->cpu_sensors - cpu0[0]) * 1e3 / FRAMES;
    out->reports = (e->cpu_output - cpu0[1]) * 1e3 / FRAMES;
    out->medium_wall = (s1.time_sensors - s0.time_sensors) * 1e3 / FRAMES;
    out->mb = (double)(c.bytes - bytes0) / FRAMES / 1e6;
    out->receptions = (c.messages - msgs0) / FRAMES;
    sn_engine_destroy(e);
    return true;
}

/* The peer: every ordered pair, arithmetic only (no line of sight), the receiver's fading draw
** in sender order, received powers stored. Returns the receptions. */
static sn_noise_rng *rngs;
static double *powers;
static uint32_t *senders;
static long receptions;
static long all_pairs(void)
{
    const double f_ghz = (double)(float)5.9, filter = 500, sigma = 3.3; /* LOS highway */
    long n = 0;
    for (int r = 0; r < n_cars; r++)
        sn_noise_rng_seed(&rngs[r], (uint64_t)r + 1);
    for (int t = 0; t < n_cars; t++)
        for (int r = 0; r < n_cars; r++) {
            if (r == t)
                continue;
            double dx = xyz[3 * r] - xyz[3 * t], dy = xyz[3 * r + 1] - xyz[3 * t + 1], dz = xyz[3 * r + 2] - xyz[3 * t + 2];
            double d = sqrt(dx * dx + dy * dy + dz * dz);
            if (!(d < filter))
                continue;
            double loss = 32.4 + 20.0 * log10(d) + 20.0 * log10(f_ghz) + sn_noise_rng_normal(&rngs[r], 0.0, sigma);
            double p = 21.5 + 10.0 - loss;
            if (p >= -99.0)
                powers[n] = p, senders[n++] = (uint32_t)t;
        }
    return n;
}

/* The best of 5 runs of the loop, thread CPU ms. */
static double loop_ms(void)
{
    double best = INFINITY;
    for (int k = 0; k < 5; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        receptions = all_pairs();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        best = fmin(best, (double)(b.tv_sec - a.tv_sec) * 1e3 + 1e-6 * (double)(b.tv_nsec - a.tv_nsec));
    }
    return best;
}

/* The best of k runs, each figure on its own (this machine's cores are shared). With `loop`,
** the peer is timed right after each run too (the load moves; the two are taken close together)
** and its best kept there. */
static bool best(const char *layout, int threads, int k, timing *b, double *loop)
{
    *b = (timing){INFINITY, INFINITY, INFINITY, 0, 0};
    for (int i = 0; i < k; i++) {
        timing t;
        if (!run(layout, threads, &t))
            return false;
        b->medium = fmin(b->medium, t.medium), b->reports = fmin(b->reports, t.reports), b->mb = t.mb;
        b->medium_wall = fmin(b->medium_wall, t.medium_wall), b->receptions = t.receptions;
        if (loop)
            *loop = fmin(*loop, loop_ms());
    }
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_v2x_dense TMPDIR PLUGINDIR\n");
        return 2;
    }
    dir = argv[1], plugins = argv[2];
    if (getenv("BENCH_V2X_DENSE_N"))
        n_cars = atoi(getenv("BENCH_V2X_DENSE_N"));
    if (getenv("BENCH_V2X_DENSE_ANTENNA") && atof(getenv("BENCH_V2X_DENSE_ANTENNA")) > 0)
        ANTENNA = atof(getenv("BENCH_V2X_DENSE_ANTENNA"));
    if (n_cars < 2 || n_cars > 20000)
        n_cars = 1000;
    xyz = calloc((size_t)n_cars * 3, sizeof *xyz);
    rngs = calloc((size_t)n_cars, sizeof *rngs);
    powers = malloc((size_t)n_cars * n_cars * sizeof *powers);
    senders = malloc((size_t)n_cars * n_cars * sizeof *senders);
    if (!xyz || !rngs || !powers || !senders)
        return 1;
    timing carla, compact, one;
    if (getenv("BENCH_V2X_DENSE_PROFILE")) { /* one run of one layout, for perf */
        if (getenv("BENCH_V2X_DENSE_FRAMES") && atoi(getenv("BENCH_V2X_DENSE_FRAMES")) > 0)
            FRAMES = atoi(getenv("BENCH_V2X_DENSE_FRAMES"));
        if (!run(getenv("BENCH_V2X_DENSE_PROFILE"), getenv("BENCH_V2X_DENSE_THREADS") ? atoi(getenv("BENCH_V2X_DENSE_THREADS")) : 2, &carla))
            return 1;
        printf("N=%d: medium %.1f ms/tick, reports %.1f ms/tick, %.1f MB/tick\n", n_cars, carla.medium, carla.reports, carla.mb);
        return 0;
    }
    printf("v2x dense: %d parked cars in 1 km^2, a CAM from every station every tick, a listener on every sensor; "
           "CPU ms per tick (every thread's) from the engine's CPU timers, best of runs x %d ticks; the all-pairs "
           "loop's thread CPU ms, best of 5 after each run\n", n_cars, FRAMES);
    /* Per antenna height: the medium on 2 and 1 threads (compact reports, whose cost is small),
    ** each run followed by the loop (the scene fixes the antennas the loop uses). */
    const char *hs = getenv("BENCH_V2X_DENSE_ANTENNAS") ? getenv("BENCH_V2X_DENSE_ANTENNAS") : "1.4,1.6,2.25";
    for (const char *h = hs; *h;) {
        ANTENNA = atof(h);
        double loop = INFINITY;
        timing two, one;
        if (!(ANTENNA > 0) || !best("compact", 2, 3, &two, &loop) || !best("compact", 1, 2, &one, &loop))
            return 1;
        printf("ratio v2x_dense_medium_vs_all_pairs antenna %.2f m = %.2f on 2 threads, %.2f on 1 (CPU: medium %.1f / %.1f "
               "ms per tick, loop %.1f ms; wall: medium %.1f / %.1f ms); %llu receptions a tick (loop %ld)\n",
               ANTENNA, two.medium / loop, one.medium / loop, two.medium, one.medium, loop, two.medium_wall,
               one.medium_wall, (unsigned long long)two.receptions, receptions);
        printf("target v2x dense antenna %.2f m: medium <= 1.5x the all-pairs loop: %.2f / %.2f (%s)\n", ANTENNA,
               two.medium / loop, one.medium / loop, fmax(two.medium, one.medium) / loop <= 1.5 ? "met" : "missed");
        h = strchr(h, ',') ? strchr(h, ',') + 1 : h + strlen(h);
    }
    /* The reports against the medium, at 1.6 m, in both layouts. */
    ANTENNA = 1.6;
    if (!best("carla", 2, 2, &carla, NULL))
        return 1;
    if (!best("compact", 2, 2, &compact, NULL))
        compact = (timing){NAN, NAN, NAN, NAN, 0};
    printf("ratio v2x_dense_reports_vs_medium = %.2f (CARLA's layout %.1f ms vs medium %.1f ms per tick, %.0f MB/tick)\n",
           carla.reports / carla.medium, carla.reports, carla.medium, carla.mb);
    printf("ratio v2x_dense_compact_reports_vs_medium = %.2f (compact layout %.1f ms vs medium %.1f ms per tick, %.1f MB/tick)\n",
           compact.reports / compact.medium, compact.reports, compact.medium, compact.mb);
    printf("target v2x dense: reports <= 0.3x the medium: CARLA's layout %.2f, compact %.2f (%s)\n",
           carla.reports / carla.medium, compact.reports / compact.medium,
           fmin(carla.reports / carla.medium, compact.reports / compact.medium) <= 0.3 ? "met" : "missed");
    (void)one;
    free(xyz), free(rngs), free(powers), free(senders);
    return 0;
}
