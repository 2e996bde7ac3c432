/* quick.h — how many rounds a benchmark measures. CI runs every benchmark once only to see it
** work and print its figures (scripts/test.sh sets SENSIM_BENCH_QUICK=1), so there the slowest
** ones take one round instead of their best-of-N; a figure meant for a closing note or
** docs/performance.md is measured without it. */
#ifndef SN_BENCH_QUICK_H
#define SN_BENCH_QUICK_H

#include <stdlib.h>
#include <string.h>

/* True in CI's quick pass. */
static inline int bench_quick(void)
{
    const char *q = getenv("SENSIM_BENCH_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static inline int bench_rounds(int rounds) { return bench_quick() ? 1 : rounds; }

#endif
