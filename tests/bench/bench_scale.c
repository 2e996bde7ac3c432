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
** the sizes, once, with no ratios (for profiling), or "city" for the city case:
**
** City: the same N sedans in the streets of a 2 km x 2 km grid of 400 buildings (30 x 30 x 20 m,
** 100 m apart), lanes 8 m apart, alternate lanes driving opposite ways, so nothing touches; every
** chassis and wheel ray is still checked against the statics each substep. Per N the steady step
** with the static broadphase (engine/world/sbp.h), with ODE's scan of its static space (the path
** it replaced, SENSIM_BENCH_ODE_STATICS) and without the buildings, interleaved, best of REPS;
** `ratio` lines divide the ODE path's step by the broadphase's, and the broadphase's by the step
** without buildings (1.00: statics cost nothing). */
#include "quick.h"

#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DT 0.05 /* 5 substeps of 0.01 s per frame, the default settings */
#define COLS 20
#define REPS bench_rounds(3)

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

#define CITY_BLOCKS 20    /* per side: 400 buildings */
#define CITY_PITCH 100.0  /* m between building centres */
#define CITY_LANES 8      /* per street, 8 m apart */

/* The city scene with n cars, with or without its buildings; caller frees the path. */
static char *write_city(const char *dir, int n, bool buildings)
{
    char *path = malloc(1024);
    snprintf(path, 1024, "%s/bench_city_%d_%d.yaml", dir, n, buildings);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        exit(1);
    }
    const double half = CITY_BLOCKS * CITY_PITCH / 2;
    fprintf(f, "settings: {fixed_delta_seconds: %g}\nactors:\n  - {name: ground, blueprint: static.ground}\n", DT);
    for (int i = 0; buildings && i < CITY_BLOCKS * CITY_BLOCKS; i++)
        fprintf(f, "  - {name: b%d, blueprint: static.building, transform: {location: [%g, %g, 10]}, "
                   "attributes: {extent: \"15,15,10\"}}\n",
                i, -half + CITY_PITCH * (i % CITY_BLOCKS + 0.5), -half + CITY_PITCH * (i / CITY_BLOCKS + 0.5));
    /* Streets along x between the rows of buildings, 70 m wide; cars spread along every lane. */
    const int lanes = (CITY_BLOCKS - 1) * CITY_LANES, per_lane = (n + lanes - 1) / lanes;
    for (int i = 0; i < n; i++) {
        int lane = i % lanes, street = lane / CITY_LANES, k = i / lanes;
        double y = -half + CITY_PITCH * (street + 1) + 8.0 * (lane % CITY_LANES - (CITY_LANES - 1) / 2.0);
        double x = -half + 10 + (2 * half - 20) * (k + 0.5) / per_lane;
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0], "
                   "rotation: [0, %d, 0]}, control: {throttle: 0.3}}\n",
                i, x, y, lane % 2 ? 180 : 0);
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

/* ode_statics: the world made at load takes ODE's scan for its statics (the old path). */
static figures measure_as(const char *plugins, const char *scene, int n_frames, int reps, bool ode_statics)
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
        if (ode_statics)
            setenv("SENSIM_BENCH_ODE_STATICS", "1", 1);
        double t0 = now();
        sn_status st = sn_engine_load_scene(e, scene, &err);
        double t1 = now();
        unsetenv("SENSIM_BENCH_ODE_STATICS");
        if (st != SN_OK) {
            fprintf(stderr, "bench: %s\n", err.msg);
            exit(1);
        }
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

static figures measure(const char *plugins, const char *scene, int n_frames, int reps)
{
    return measure_as(plugins, scene, n_frames, reps, false);
}

static int city(const char *dir, const char *plugins)
{
    printf("city: N sedans with collision sensors in the streets of %d buildings (2 km x 2 km), driving apart, "
           "5 substeps/frame, best of %d interleaved\n", CITY_BLOCKS * CITY_BLOCKS, REPS);
    for (int k = 0; k < N_SIZES; k++) {
        int n = sizes[k];
        char *with = write_city(dir, n, true), *without = write_city(dir, n, false);
        figures sbp = {1e9, 1e9, 1e9}, ode = sbp, none = sbp;
        for (int rep = 0; rep < REPS; rep++) {
            figures a = measure_as(plugins, with, frames[k], 1, true);
            figures b = measure_as(plugins, with, frames[k], 1, false);
            figures c = measure_as(plugins, without, frames[k], 1, false);
            ode.step = fmin(ode.step, a.step), ode.load = fmin(ode.load, a.load);
            sbp.step = fmin(sbp.step, b.step), sbp.load = fmin(sbp.load, b.load);
            none.step = fmin(none.step, c.step), none.load = fmin(none.load, c.load);
        }
        free(with);
        free(without);
        printf("  N=%-5d step: broadphase %.3f ms/frame (%.2f us/vehicle/frame), ODE scan %.3f ms/frame, "
               "no buildings %.3f ms/frame; load: broadphase %.3f s, ODE scan %.3f s (%d frames)\n",
               n, sbp.step * 1e3, sbp.step / n * 1e6, ode.step * 1e3, none.step * 1e3, sbp.load, ode.load, frames[k]);
        printf("ratio city_step ode_scan/broadphase N=%d = %.2f (%.3f vs %.3f ms/frame)\n", n, ode.step / sbp.step,
               ode.step * 1e3, sbp.step * 1e3);
        printf("ratio city_step broadphase/no_buildings N=%d = %.2f (%.3f vs %.3f ms/frame)\n", n,
               sbp.step / none.step, sbp.step * 1e3, none.step * 1e3);
        printf("ratio city_load ode_scan/broadphase N=%d = %.2f (%.3f vs %.3f s)\n", n, ode.load / sbp.load, ode.load,
               sbp.load);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    if (argc > 3 && strcmp(argv[3], "city") == 0)
        return city(argv[1], argv[2]);
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
