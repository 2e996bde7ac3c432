/* How load and step costs grow with the number of vehicles.
**
** N = 100, 1000, 5000 sedans on a ground plane, each carrying a collision sensor, through the
** public API only. The left half of each row drives toward -x, the right half toward +x, all
** at the same throttle from rest, so the two halves drive apart and cars of one half keep
** their spacing: nothing ever touches. Per N: load seconds (sn_engine_load_scene), the first
** frame (it also delivers every spawn event), and the steady step in ms/frame and in µs per
** vehicle per frame. The 100-vehicle figures measured in this run are the baseline: each
** `ratio` line divides a per-vehicle cost at N by the same cost at 100, so 1.00 means the
** cost per vehicle stays flat as N grows. Best of REPS loads and runs; times are never asserted.
** argv[1]: temp folder, argv[2]: plugin folder, argv[3] (optional): measure only this one of
** the sizes, once, with no ratios (for profiling). */
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define DT 0.05 /* 5 substeps of 0.01 s per frame, the default settings */
#define COLS 20
#define REPS 3

static const int sizes[] = {100, 1000, 5000};
static const int frames[] = {200, 60, 20}; /* about the same vehicle-frames at each N */
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Writes the N-vehicle scene into dir and returns its path (caller frees). */
static char *write_scene(const char *dir, int n)
{
    char *path = malloc(1024);
    snprintf(path, 1024, "%s/bench_scale_%d.yaml", dir, n);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "settings: {fixed_delta_seconds: %g}\nactors:\n  - {name: ground, blueprint: static.ground}\n", DT);
    for (int i = 0; i < n; i++) {
        int col = i % COLS, row = i / COLS;
        bool left = col < COLS / 2;
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0], "
                   "rotation: [0, %d, 0]}, control: {throttle: 0.3}}\n",
                i, (col - COLS / 2 + 0.5) * 12.0, row * 8.0, left ? 180 : 0);
    }
    fprintf(f, "sensors:\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "  - {name: crash%d, blueprint: sensor.other.collision, attach_to: car%d}\n", i, i);
    fclose(f);
    return path;
}

typedef struct figures {
    double load, first, step; /* seconds; step per frame */
} figures;

static void step_or_die(sn_engine *e)
{
    sn_error err;
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
}

static figures measure(const char *plugins, const char *scene, int n_frames, int reps)
{
    figures best = {1e9, 1e9, 1e9};
    for (int rep = 0; rep < reps; rep++) {
        sn_error err;
        sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
        sn_engine *e = sn_engine_create(&o, &err);
        if (!e) {
            fprintf(stderr, "bench: %s\n", err.msg);
            exit(1);
        }
        double t0 = now();
        if (sn_engine_load_scene(e, scene, &err) != SN_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            exit(1);
        }
        double t1 = now();
        step_or_die(e);
        double t2 = now();
        for (int f = 0; f < n_frames; f++)
            step_or_die(e);
        double t3 = now();
        sn_engine_destroy(e);
        best.load = fmin(best.load, t1 - t0);
        best.first = fmin(best.first, t2 - t1);
        best.step = fmin(best.step, (t3 - t2) / n_frames);
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    figures fig[N_SIZES];
    int only = argc > 3 ? atoi(argv[3]) : 0;
    printf("scale: N sedans with collision sensors on a ground plane, driving apart, 5 substeps/frame, best of %d\n",
           REPS);
    for (int k = 0; k < N_SIZES; k++) {
        if (only && sizes[k] != only)
            continue;
        char *scene = write_scene(argv[1], sizes[k]);
        fig[k] = measure(argv[2], scene, frames[k], only ? 1 : REPS);
        free(scene);
        double n = sizes[k];
        printf("  N=%-5d load %.3f s (%.1f us/vehicle), first frame %.2f ms, step %.3f ms/frame "
               "(%.2f us/vehicle/frame, %d frames)\n",
               sizes[k], fig[k].load, fig[k].load / n * 1e6, fig[k].first * 1e3, fig[k].step * 1e3,
               fig[k].step / n * 1e6, frames[k]);
        fflush(stdout);
    }
    if (only)
        return 0;
    /* Per-vehicle costs against the 100-vehicle baseline of this run. */
    double n0 = sizes[0];
    for (int k = 1; k < N_SIZES; k++) {
        double n = sizes[k];
        printf("ratio step_per_vehicle N=%d / N=%d = %.2f (%.2f vs %.2f us/vehicle/frame)\n", sizes[k], sizes[0],
               (fig[k].step / n) / (fig[0].step / n0), fig[k].step / n * 1e6, fig[0].step / n0 * 1e6);
    }
    for (int k = 1; k < N_SIZES; k++) {
        double n = sizes[k];
        printf("ratio load_per_vehicle N=%d / N=%d = %.2f (%.1f vs %.1f us/vehicle; load %.3f s vs %.3f s)\n",
               sizes[k], sizes[0], (fig[k].load / n) / (fig[0].load / n0), fig[k].load / n * 1e6,
               fig[0].load / n0 * 1e6, fig[k].load, fig[0].load);
    }
    for (int k = 1; k < N_SIZES; k++) {
        double n = sizes[k];
        printf("ratio first_frame_per_vehicle N=%d / N=%d = %.2f (%.2f vs %.2f us/vehicle)\n", sizes[k], sizes[0],
               (fig[k].first / n) / (fig[0].first / n0), fig[k].first / n * 1e6, fig[0].first / n0 * 1e6);
    }
    return 0;
}
