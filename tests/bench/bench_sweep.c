/* A 1000-run OpenSCENARIO parameter sweep (issue 34): a ParameterValueDistribution of the cut-in
** (scenarios/cut-in.xosc, CutInGap 10 to 19.99 m in steps of 1 cm: 1000 runs, written to the temp
** folder) expanded by sn_xdist_load and every run played in-process as `sensim batch` plays one:
** a fresh engine, the scenario with --set parameters.CutInGap=V and dt 0.01, run to its end, no
** sensors, no outputs. The figure is runs per CPU-second of this process (one thread), and the
** `ratio` line a sweep run's CPU cost over one plain run of the same scenario (the best of 5,
** measured first, in the same process): about 1 means the sweep adds nothing per run. The
** expansion itself is timed against one run, and one run split into engine creation, loading
** and running. Times are never asserted. argv[1]: source root, argv[2]: plugin folder, argv[3]:
** temp folder, argv[4] (optional): how many of the runs to play (default all 1000). */
#include "../../engine/scenario/xosc_dist.h"
#include "quick.h"

#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define RUNS 1000

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the children that ended (a batch and its runs). */
static double children_cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec + 1e-6 * (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/* `sensim batch SPEC` into out (emptied first): its CPU (and wall) seconds, -1 when it fails. */
static double batch(const char *sensim, const char *spec, const char *out, int jobs, bool cache, double *wall)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%s' batch '%s' --out '%s' -j %d%s >/dev/null 2>&1", out, sensim, spec, out,
             jobs, cache ? "" : " --no-map-cache");
    double c0 = children_cpu(), w0 = wall_now();
    int rc = system(cmd);
    *wall = wall_now() - w0;
    return rc == 0 ? children_cpu() - c0 : -1;
}

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_sweep: %s: %s\n", what, err->msg);
    exit(1);
}

static double phase[3]; /* CPU seconds of the last play: engine creation, loading, the run */

/* One run of the scenario with these overrides, as a batch run plays it; its simulated seconds. */
static double play(const char *xosc, const char *plugins, const char *const *sets, size_t n_sets)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    double c0 = cpu_now();
    sn_engine *e = sn_engine_create(&o, &err);
    double c1 = cpu_now();
    if (!e || sn_engine_load_scene_with_overrides(e, xosc, sets, n_sets, &err))
        die(xosc, &err);
    double c2 = cpu_now();
    if (sn_engine_run(e, 0, &err))
        die("run", &err);
    phase[0] = c1 - c0, phase[1] = c2 - c1, phase[2] = cpu_now() - c2;
    sn_run_stats s = {.struct_size = sizeof s};
    sn_engine_stats(e, &s, NULL);
    sn_engine_destroy(e);
    return s.sim_time;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_sweep SRC PLUGINS TMP\n");
        return 2;
    }
    char xosc[1024], dist[1024];
    snprintf(xosc, sizeof xosc, "%s/scenarios/cut-in.xosc", argv[1]);
    snprintf(dist, sizeof dist, "%s/bench_sweep.xosc", argv[3]);
    FILE *f = fopen(dist, "w");
    if (!f) {
        perror(dist);
        return 1;
    }
    fprintf(f, "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='x' author='bench' "
               "description='sweep'/>\n<ParameterValueDistribution><ScenarioFile filepath='%s'/><Deterministic>"
               "<DeterministicSingleParameterDistribution parameterName='CutInGap'><DistributionRange stepWidth='0.01'>"
               "<Range lowerLimit='10' upperLimit='19.99'/></DistributionRange></DeterministicSingleParameterDistribution>"
               "</Deterministic></ParameterValueDistribution></OpenSCENARIO>\n", xosc);
    fclose(f);

    /* one plain run: the best of 5 */
    const char *plain_sets[] = {"settings.fixed_delta_seconds=0.01"};
    double one = 1e30, sim = 0, split[3] = {0};
    for (int k = 0; k < bench_rounds(5); k++) {
        double c0 = cpu_now();
        sim = play(xosc, argv[2], plain_sets, 1);
        double c = cpu_now() - c0;
        if (c < one)
            one = c, memcpy(split, phase, sizeof split);
    }
    /* argv[4]: how many of the 1000 runs to play (the CI benchmark pass plays 100; the figure
    ** is per run) */
    uint32_t play_n = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : RUNS;
    if (play_n < 1 || play_n > RUNS)
        play_n = RUNS;
    if (bench_quick() && play_n > 25)
        play_n = 25; /* CI's quick pass: enough runs to see it work */

    double c0 = cpu_now();
    sn_error err = {0};
    sn_xdist *d = NULL;
    if (sn_xdist_load(dist, &d, &err) || !d)
        die(dist, &err);
    double expand = cpu_now() - c0;
    if (d->n_runs != RUNS || d->n_params != 1) {
        fprintf(stderr, "bench_sweep: %u runs of %u parameters, not %d of 1\n", d->n_runs, d->n_params, RUNS);
        return 1;
    }
    double sim_sum = 0;
    c0 = cpu_now();
    for (uint32_t r = 0; r < play_n; r++) {
        char set[256];
        snprintf(set, sizeof set, "parameters.%s=%s", d->names[0], d->values[r]);
        const char *sets[] = {"settings.fixed_delta_seconds=0.01", set};
        sim_sum += play(d->scenario, argv[2], sets, 2);
    }
    double total = cpu_now() - c0;
    /* the same runs, the map cache on: what a run forked from a batch that loaded the map costs */
    sn_map_cache_enable(true);
    c0 = cpu_now();
    double sim_cached = 0;
    for (uint32_t r = 0; r < play_n; r++) {
        char set[256];
        snprintf(set, sizeof set, "parameters.%s=%s", d->names[0], d->values[r]);
        const char *sets[] = {"settings.fixed_delta_seconds=0.01", set};
        sim_cached += play(d->scenario, argv[2], sets, 2);
    }
    double total_cached = cpu_now() - c0;
    sn_map_cache_enable(false);
    if (sim_cached != sim_sum) {
        fprintf(stderr, "bench_sweep: %.9g s simulated with the map cache, %.9g without\n", sim_cached, sim_sum);
        return 1;
    }
    sn_xdist_free(d);
    remove(dist);

    double per = total / play_n;
    printf("sweep: %u of its %d runs (CutInGap 10..19.99 m) in %.2f CPU-s: %.1f runs per CPU-second, %.2f ms a run "
           "(%.2f s simulated on average)\n", play_n, RUNS, total, play_n / total, 1e3 * per, sim_sum / play_n);
    printf("one plain run: %.2f ms CPU (%.2f s simulated): engine %.2f ms, loading (map, scenario, spawn) %.2f ms, "
           "the run %.2f ms\n", 1e3 * one, sim, 1e3 * split[0], 1e3 * split[1], 1e3 * split[2]);
    printf("expansion of the distribution: %.3f ms CPU (%.4f of one run)\n", 1e3 * expand, expand / one);
    printf("ratio: %.3f (a sweep run's CPU over one plain run's; 1 = the sweep costs nothing per run)\n", per / one);
    double per_cached = total_cached / play_n;
    printf("map cache, in-process: %.2f ms CPU a run against %.2f ms without: ratio %.3f (%.1f runs per CPU-second)\n",
           1e3 * per_cached, 1e3 * per, per_cached / per, play_n / total_cached);
    if (argc > 5) {
        /* sensim batch with and without the cache, on the first runs of the distribution */
        uint32_t most = bench_rounds(5) == 1 ? 20 : 50; /* CI's quick pass: 20 */
        uint32_t nb = play_n < most ? play_n : most;
        char spec[1024], out[1024];
        snprintf(spec, sizeof spec, "%s/bench_sweep_batch.xosc", argv[3]);
        snprintf(out, sizeof out, "%s/bench_sweep_batch", argv[3]);
        if (!(f = fopen(spec, "w"))) {
            perror(spec);
            return 1;
        }
        fprintf(f, "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='x' author='bench' "
                   "description='sweep'/>\n<ParameterValueDistribution><ScenarioFile filepath='%s'/><Deterministic>"
                   "<DeterministicSingleParameterDistribution parameterName='CutInGap'><DistributionRange stepWidth='0.01'>"
                   "<Range lowerLimit='10' upperLimit='%.2f'/></DistributionRange></DeterministicSingleParameterDistribution>"
                   "</Deterministic></ParameterValueDistribution></OpenSCENARIO>\n", xosc, 10 + 0.01 * (nb - 1));
        fclose(f);
        double wc1, wn1, wc2, wn2;
        double cc1 = batch(argv[5], spec, out, 1, true, &wc1), cn1 = batch(argv[5], spec, out, 1, false, &wn1);
        double cc2 = batch(argv[5], spec, out, 2, true, &wc2), cn2 = batch(argv[5], spec, out, 2, false, &wn2);
        if (cc1 < 0 || cn1 < 0 || cc2 < 0 || cn2 < 0) {
            fprintf(stderr, "bench_sweep: sensim batch failed\n");
            return 1;
        }
        printf("map cache, sensim batch of %u runs, -j 1: %.2f ms CPU a run (batch and runs) against %.2f ms with "
               "--no-map-cache: ratio %.3f; wall %.2f against %.2f ms a run\n", nb, 1e3 * cc1 / nb, 1e3 * cn1 / nb,
               cc1 / cn1, 1e3 * wc1 / nb, 1e3 * wn1 / nb);
        printf("map cache, sensim batch of %u runs, -j 2: wall %.2f ms a run against %.2f ms with --no-map-cache: "
               "ratio %.3f (CPU %.2f against %.2f ms a run)\n", nb, 1e3 * wc2 / nb, 1e3 * wn2 / nb, wc2 / wn2,
               1e3 * cc2 / nb, 1e3 * cn2 / nb);
        remove(spec);
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
        if (system(cmd) != 0)
            return 1;
    }
    return 0;
}
