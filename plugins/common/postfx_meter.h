/* postfx_meter.h — auto exposure's histogram bin of a sample's luminance without its log2
** (postfx.c's metered_ev). Exact: the bin is a step function of the luminance, and its steps are
** found at pfx_init by bisection through the very expression it replaces (libm's log2), so the
** same bin for every luminance (docs/rendering.md "Post-processing"). */
#ifndef SN_COMMON_POSTFX_METER_H
#define SN_COMMON_POSTFX_METER_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define PFX_HIST_BINS 96
#define PFX_HIST_LO (-8.0) /* EV100 of the histogram's first bin; 0.25 EV a bin up to 16 */
#define PFX_HIST_STEP 0.25

typedef struct pfx_meter {
    double k;                        /* log2(PFX_LREF 100 / K): luminance to EV100 */
    bool fast;                       /* the steps below; false: log2 a sample */
    uint8_t base[2048];              /* the bin of the least luminance of each binary exponent */
    double thr[PFX_HIST_BINS + 6];   /* thr[b]: the least luminance of bin b or above (1..95); +inf past */
} pfx_meter;

/* The bin of luminance l as the meter always took it: EV100 through log2, 0.25-EV bins. */
static inline int pfx_meter_bin_exact(double k, double l)
{
    const double ev = l > 0 ? log2(l) + k : PFX_HIST_LO;
    const long bin = lround(floor((ev - PFX_HIST_LO) / PFX_HIST_STEP));
    return bin < 0 ? 0 : bin >= PFX_HIST_BINS ? PFX_HIST_BINS - 1 : (int)bin;
}

/* Sets m up for the meter constant k (false, m->fast false: a step not found as expected). */
bool pfx_meter_init(pfx_meter *m, double k);

/* The same bin by l's binary exponent and at most five comparisons (an octave holds four bins). */
static inline int pfx_meter_bin(const pfx_meter *m, double l)
{
    if (!(l > 0))
        return 0; /* log2 is not taken: EV100 PFX_HIST_LO, bin 0 (NaN too) */
    uint64_t u;
    memcpy(&u, &l, sizeof u);
    const unsigned e = (unsigned)(u >> 52); /* l > 0: no sign bit */
    if (!m->fast || e == 2047)
        return pfx_meter_bin_exact(m->k, l); /* +inf: lround's own answer */
    const int b = m->base[e];
    const double *t = m->thr + b;
    return b + (l >= t[1]) + (l >= t[2]) + (l >= t[3]) + (l >= t[4]) + (l >= t[5]);
}

#endif
