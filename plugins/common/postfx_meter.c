/* postfx_meter.c — the meter's bins by thresholds (postfx_meter.h). */
#include "postfx_meter.h"

#include <float.h>

static double of_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static uint64_t bits_of(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

bool pfx_meter_init(pfx_meter *m, double k)
{
    m->k = k, m->fast = false;
    /* Positive finite doubles order as their bits. thr[b]: the first bits whose bin is b or more,
    ** by bisection over [the least subnormal, DBL_MAX] (log2 of a greater luminance is not less). */
    const uint64_t lo0 = 1, hi0 = bits_of(DBL_MAX);
    m->thr[0] = 0;
    for (int b = 1; b < PFX_HIST_BINS; b++) {
        uint64_t lo = lo0, hi = hi0;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (pfx_meter_bin_exact(k, of_bits(mid)) >= b)
                hi = mid;
            else
                lo = mid + 1;
        }
        m->thr[b] = of_bits(lo);
        /* the step where bisection assumed it: a few ulps either side agree */
        for (uint64_t j = 1; j <= 16; j++)
            if (pfx_meter_bin_exact(k, of_bits(lo - j)) >= b || (lo + j <= hi0 && pfx_meter_bin_exact(k, of_bits(lo + j)) < b))
                return false;
        if (b > 1 && !(m->thr[b] > m->thr[b - 1]))
            return false;
    }
    for (int b = PFX_HIST_BINS; b < PFX_HIST_BINS + 6; b++)
        m->thr[b] = INFINITY;
    /* each exponent's least luminance's bin: the thresholds at or below it */
    for (unsigned e = 0; e < 2048; e++) {
        const double least = e ? of_bits((uint64_t)e << 52) : of_bits(1);
        int n = 0;
        for (int b = 1; b < PFX_HIST_BINS; b++)
            n += least >= m->thr[b];
        m->base[e] = (uint8_t)n;
        if (e > 0 && e < 2047 && m->base[e] - m->base[e - 1] > 5)
            return false; /* more steps in an octave than pfx_meter_bin compares */
    }
    m->fast = true;
    return true;
}
