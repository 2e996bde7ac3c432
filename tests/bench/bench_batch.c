/* `sensim batch` throughput: 200 short runs of scenes/crash.yaml (20 frames, seeds 0-199) at
** -j 1 and -j 2, each run its own process, beside the same 200 runs done in this process
** through the API (create, load with the same overrides, outputs, run, destroy), so the
** difference is what a process per run costs (fork/exec, loading plugins, the manifest).
** argv[1]: temp folder, argv[2]: scenes folder, argv[3]: plugin folder, argv[4]: sensim. */
#include "quick.h"

#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 200
#define FRAMES "20"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds for `sensim batch` with -j `jobs`; -1 when it fails. */
static double batch(const char *sensim, const char *spec, const char *out, const char *plugins, int jobs)
{
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && SENSIM_PLUGIN_PATH='%s' '%s' batch '%s' --out '%s' -j %d >/dev/null 2>&1", out,
             plugins, sensim, spec, out, jobs);
    double t = now();
    int rc = system(cmd);
    return rc == 0 ? now() - t : -1;
}

int main(int argc, char **argv)
{
    if (argc < 5)
        return 2;
    const char *tmp = argv[1], *scenes = argv[2], *plugins = argv[3], *sensim = argv[4];
    char spec[4200], out[2048], scene[4096], cmd[16384];
    snprintf(out, sizeof out, "%s/bench_batch", tmp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
    (void)!system(cmd);
    snprintf(scene, sizeof scene, "%s/crash.yaml", scenes);
    snprintf(spec, sizeof spec, "%s/spec.yaml", out);
    FILE *f = fopen(spec, "w");
    fprintf(f, "runs:\n  - id: crash\n    scene: %s\n    seeds: {from: 0, count: %d}\n    set: {settings.frames: " FRAMES "}\n",
            scene, RUNS);
    fclose(f);

    /* in-process: the same runs, one engine each, outputs to disk as the batch's */
    double best_in = 1e30, best_j1 = 1e30, best_j2 = 1e30;
    for (int round = 0, rounds = bench_rounds(2); round < rounds; round++) {
        double t0 = now();
        for (int i = 0; i < RUNS; i++) {
            char seed[64], dir[4200];
            snprintf(seed, sizeof seed, "settings.seed=%d", i);
            const char *sets[] = {seed, "settings.frames=" FRAMES};
            snprintf(dir, sizeof dir, "%s/inproc/%d", out, i);
            sn_error err = {0};
            sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
            sn_engine *e = sn_engine_create(&o, &err);
            if (!e || sn_engine_load_scene_with_overrides(e, scene, sets, 2, &err) ||
                sn_engine_open_outputs(e, dir, &err) || sn_engine_run(e, 0, &err)) {
                fprintf(stderr, "bench_batch: %s\n", err.msg);
                return 1;
            }
            sn_engine_destroy(e);
        }
        double t_in = now() - t0;
        char b1[4200], b2[4200];
        snprintf(b1, sizeof b1, "%s/j1", out);
        snprintf(b2, sizeof b2, "%s/j2", out);
        double t1 = batch(sensim, spec, b1, plugins, 1), t2 = batch(sensim, spec, b2, plugins, 2);
        if (t1 < 0 || t2 < 0) {
            fprintf(stderr, "bench_batch: sensim batch failed\n");
            return 1;
        }
        best_in = t_in < best_in ? t_in : best_in;
        best_j1 = t1 < best_j1 ? t1 : best_j1;
        best_j2 = t2 < best_j2 ? t2 : best_j2;
    }
    double per_in = 1e3 * best_in / RUNS, per_j1 = 1e3 * best_j1 / RUNS;
    printf("engine   batch %d runs of crash.yaml (" FRAMES " frames): in-process %.1f ms/run; sensim batch -j 1 %.1f runs/s"
           " (%.1f ms/run, %.1f ms/run for the process), -j 2 %.1f runs/s\n",
           RUNS, per_in, RUNS / best_j1, per_j1, per_j1 - per_in, RUNS / best_j2);
    printf("ratio batch_j1_vs_in_process %.2f (time per run)\n", best_j1 / best_in);
    printf("ratio batch_j2_vs_j1 %.2f (runs per second)\n", best_j1 / best_j2);
    printf("target per-run overhead <= 20 ms: %.1f ms at -j 1\n", per_j1 - per_in);
    return 0;
}
