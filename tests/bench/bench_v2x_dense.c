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
** argv[1]: temp folder, argv[2]: the plugin folder. BENCH_V2X_DENSE_N: another station count;
** BENCH_V2X_DENSE_PROFILE=carla|compact: one run of that layout (for perf), on
** BENCH_V2X_DENSE_THREADS threads (2), over BENCH_V2X_DENSE_FRAMES ticks (4).
*/
#include <sensim/noise.h>
#include <sensim/sensim.h>

#include "best_ms.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DT 0.05
#define SIDE 1000.0 /* m */
#define WARMUP 2
static int FRAMES = 4; /* BENCH_V2X_DENSE_FRAMES in the profile mode */
#define ANTENNA 1.6 /* m above the car's origin */

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
    double medium, reports; /* ms per tick */
    double mb;              /* MB of messages per tick */
} timing;

/* The sensors' and the outputs' ms per tick over FRAMES frames after the warm-up. */
static bool run(const char *layout, int threads, timing *out)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    consumed c = {0};
    bool ok = e && sn_engine_load_scene(e, scene(layout), &err) == SN_OK &&
              sn_engine_listen_all(e, on_message, &c, &err) == SN_OK;
    sn_run_stats s0 = {.struct_size = sizeof s0}, s1 = s0;
    uint64_t bytes0 = 0;
    for (int f = 0; ok && f < WARMUP + FRAMES; f++) {
        if (f == WARMUP)
            sn_engine_stats(e, &s0, NULL), bytes0 = c.bytes;
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
    out->medium = (s1.time_sensors - s0.time_sensors) * 1e3 / FRAMES;
    out->reports = (s1.time_output - s0.time_output) * 1e3 / FRAMES;
    out->mb = (double)(c.bytes - bytes0) / FRAMES / 1e6;
    sn_engine_destroy(e);
    return true;
}

/* The peer: every ordered pair, arithmetic only (no line of sight), the receiver's fading draw
** in sender order, received powers stored. Returns the receptions. */
static sn_noise_rng *rngs;
static double *powers;
static uint32_t *senders;
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

/* The best of k runs, each figure on its own (this machine's cores are shared). With `loop`,
** the peer is timed right after each run too (the load moves; the two are taken close together)
** and its best kept there. */
static long receptions;
static bool best(const char *layout, int threads, int k, timing *b, double *loop)
{
    *b = (timing){INFINITY, INFINITY, 0};
    for (int i = 0; i < k; i++) {
        timing t;
        if (!run(layout, threads, &t))
            return false;
        b->medium = fmin(b->medium, t.medium), b->reports = fmin(b->reports, t.reports), b->mb = t.mb;
        if (loop)
            *loop = fmin(*loop, BEST_MS(receptions = all_pairs(), 1));
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
    /* The scene first: it fixes the antennas the peer loop uses. */
    double loop = INFINITY;
    if (!best("carla", 2, 3, &carla, &loop) || !best("carla", 1, 2, &one, &loop))
        return 1;
    /* a plugin without report_layout (an older build, for a before/after) refuses it: no figure */
    if (!best("compact", 2, 3, &compact, NULL))
        compact = (timing){NAN, NAN, NAN};
    printf("v2x dense: %d parked cars in 1 km^2, a CAM from every station every tick, a listener on every sensor; "
           "ms per tick from the engine's timers, best of 3 runs x %d ticks, 2 threads\n", n_cars, FRAMES);
    printf("engine v2x dense N=%d: medium %.1f ms/tick (1 thread %.1f), all-pairs loop %.1f ms (%ld receptions); "
           "reports: CARLA's layout %.1f ms (%.0f MB/tick), compact %.1f ms (%.1f MB/tick)\n",
           n_cars, carla.medium, one.medium, loop, receptions, carla.reports, carla.mb, compact.reports, compact.mb);
    printf("ratio v2x_dense_medium_vs_all_pairs = %.2f (medium %.1f ms vs loop %.1f ms per tick; 1 thread %.2f)\n",
           carla.medium / loop, carla.medium, loop, one.medium / loop);
    printf("ratio v2x_dense_reports_vs_medium = %.2f (CARLA's layout %.1f ms vs medium %.1f ms per tick)\n",
           carla.reports / carla.medium, carla.reports, carla.medium);
    printf("ratio v2x_dense_compact_reports_vs_medium = %.2f (compact layout %.1f ms vs medium %.1f ms per tick)\n",
           compact.reports / compact.medium, compact.reports, compact.medium);
    printf("target v2x dense: medium <= 1.5x the all-pairs loop: %.2f (%s); reports <= 0.3x the medium: CARLA's layout "
           "%.2f, compact %.2f (%s)\n", carla.medium / loop, carla.medium / loop <= 1.5 ? "met" : "missed",
           carla.reports / carla.medium, compact.reports / compact.medium,
           fmin(carla.reports / carla.medium, compact.reports / compact.medium) <= 0.3 ? "met" : "missed");
    free(xyz), free(rngs), free(powers), free(senders);
    return 0;
}
