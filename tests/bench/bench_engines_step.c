/* bench_engines_step.c — CPU a step of 4 engines against one (issue 36 item 3), in C: the four
** stepped in a loop on one thread, with sn_engines_step on pools of 1, 2 and 4 threads (4: one a
** engine, as the vector environment's threads), and one engine alone. Modes alternate within a
** round, their order rotated each round; every engine is reset (seed 1 + i) before each mode.
** CPU is the process's (CLOCK_PROCESS_CPUTIME_ID), context switches getrusage's; both per engine
** step. Usage: bench_engines_step SCENE PLUGIN_DIR [ROUNDS] [STEPS] */
#include <sensim/sensim.h>

#include "best_ms.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define N     4
#define MODES 5

static const char *names[MODES] = {"1 engine", "loop 4", "call 4, 1 thread", "call 4, 2 threads", "call 4, 4 threads"};

static void die(const sn_error *err)
{
    fprintf(stderr, "bench_engines_step: %s\n", err->msg);
    exit(1);
}

typedef struct result {
    double cpu, wall, vol, invol; /* per engine step */
} result;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The middle of v[0..n-1] (sorted in place): one loaded round does not move it. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static result run(int mode, sn_engine **e, sn_step_pool **pools, long steps)
{
    sn_error err;
    int n = mode == 0 ? 1 : N;
    for (int i = 0; i < n; i++) {
        uint64_t seed = 1 + (uint64_t)i;
        if (sn_engine_reset(e[i], &seed, &err))
            die(&err);
    }
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    double c0 = bench_cpu_now(), t0 = bench_now();
    for (long s = 0; s < steps; s++) {
        if (mode <= 1) {
            for (int i = 0; i < n; i++)
                if (sn_engine_step(e[i], &err))
                    die(&err);
        } else if (sn_engines_step(pools[mode - 2], e, N, NULL, NULL, &err)) {
            die(&err);
        }
    }
    double c1 = bench_cpu_now(), t1 = bench_now();
    getrusage(RUSAGE_SELF, &r1);
    double k = (double)steps * n;
    return (result){(c1 - c0) / k, (t1 - t0) / k, (double)(r1.ru_nvcsw - r0.ru_nvcsw) / k,
                    (double)(r1.ru_nivcsw - r0.ru_nivcsw) / k};
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: bench_engines_step SCENE PLUGIN_DIR [ROUNDS] [STEPS]\n"), 2;
    int rounds = argc > 3 ? atoi(argv[3]) : 4;
    long steps = argc > 4 ? atol(argv[4]) : 150;
    if (rounds < 1 || steps < 1)
        return fprintf(stderr, "bench_engines_step: ROUNDS and STEPS must be >= 1\n"), 2;
    sn_error err;
    sn_map_cache_enable(true); /* as the vector environment makes its engines (share_map) */
    sn_engine *e[N];
    for (int i = 0; i < N; i++) {
        sn_engine_options o = {.plugin_dir = argv[2], .threads = 1, .quiet_plugins = true};
        if (!(e[i] = sn_engine_create(&o, &err)) || sn_engine_load_scene(e[i], argv[1], &err))
            die(&err);
    }
    sn_step_pool *pools[3];
    const int threads[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++)
        if (!(pools[i] = sn_step_pool_create(threads[i], &err)))
            die(&err);
    double load[3] = {0};
    getloadavg(load, 3);
    printf("%s, %d engines, %ld steps an engine, %d rounds, load average %.1f\n", argv[1], N, steps, rounds, load[0]);
    result res[64][MODES];
    if (rounds > 64)
        rounds = 64;
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < MODES; j++) {
            int m = (j + r) % MODES; /* rotated: no mode always first after another */
            res[r][m] = run(m, e, pools, steps);
        }
        printf("round %d:", r + 1);
        for (int m = 0; m < MODES; m++)
            printf(" %s %.3f ms (%.3fx) %.2f+%.2f sw;", names[m], res[r][m].cpu * 1e3, res[r][m].cpu / res[r][0].cpu,
                   res[r][m].vol, res[r][m].invol);
        printf("\n");
    }
    getloadavg(load, 3);
    printf("load average at the end %.1f\nper engine step, range over rounds (ratio to 1 engine in the same round):\n",
           load[0]);
    for (int m = 0; m < MODES; m++) {
        double lo = 1e9, hi = 0, rlo = 1e9, rhi = 0, vlo = 1e9, vhi = 0, ilo = 1e9, ihi = 0, q_all[64];
        for (int r = 0; r < rounds; r++) {
            result x = res[r][m];
            double q = q_all[r] = x.cpu / res[r][0].cpu;
            lo = x.cpu < lo ? x.cpu : lo, hi = x.cpu > hi ? x.cpu : hi;
            rlo = q < rlo ? q : rlo, rhi = q > rhi ? q : rhi;
            vlo = x.vol < vlo ? x.vol : vlo, vhi = x.vol > vhi ? x.vol : vhi;
            ilo = x.invol < ilo ? x.invol : ilo, ihi = x.invol > ihi ? x.invol : ihi;
        }
        printf("  %-18s CPU %.3f-%.3f ms, %.3f-%.3fx (median %.3fx); voluntary switches %.2f-%.2f, involuntary "
               "%.2f-%.2f\n",
               names[m], lo * 1e3, hi * 1e3, rlo, rhi, median(q_all, rounds), vlo, vhi, ilo, ihi);
    }
    for (int i = 0; i < 3; i++)
        sn_step_pool_destroy(pools[i]);
    for (int i = 0; i < N; i++)
        sn_engine_destroy(e[i]);
    return 0;
}
