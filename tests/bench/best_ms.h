/* best_ms.h — the benchmarks' clock: BEST_MS(stmt, reps), the best of 5 runs of `reps`
** statements, in ms per statement (the least disturbed run on a shared machine); one run in
** CI's quick pass (quick.h). */
#ifndef SN_BENCH_BEST_MS_H
#define SN_BENCH_BEST_MS_H

#include "quick.h"

#include <time.h>

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The process's CPU seconds (every thread's): what a benchmark on a shared machine reports. */
static inline double bench_cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define BEST_MS(stmt, reps)                                                                                            \
    ({                                                                                                                 \
        double best = 1e30;                                                                                            \
        for (int run = 0; run < bench_rounds(5); run++) {                                                              \
            double t0 = bench_now();                                                                                   \
            for (int k = 0; k < (reps); k++)                                                                           \
                stmt;                                                                                                  \
            double ms = (bench_now() - t0) * 1e3 / (reps);                                                             \
            best = ms < best ? ms : best;                                                                              \
        }                                                                                                              \
        best;                                                                                                          \
    })

#endif
