/*
** rng.h — each station's own generator (sensim/noise.h's sn_noise_rng, the host's algorithm),
** seeded once from the sensor's seeded host stream (or noise_seed). The medium draws fading for
** every receiver inside the class tick, where no instance's host stream may be called; this
** keeps the draws per receiver, in a fixed order, whatever the thread count.
*/
#ifndef SN_V2X_RNG_H
#define SN_V2X_RNG_H

#include <sensim/noise.h>

#include <math.h>
#include <stdint.h>

typedef sn_noise_rng sn_v2x_rng;

static inline void sn_v2x_rng_seed(sn_v2x_rng *r, uint64_t seed) { sn_noise_rng_seed(r, seed); }

static inline uint64_t sn_v2x_rng_u64(sn_v2x_rng *r) { return sn_noise_rng_u64(r); }

/* (0, 1]: never 0, so the logarithm below is finite. */
static inline double sn_v2x_rng_open(sn_v2x_rng *r) { return ((sn_v2x_rng_u64(r) >> 11) + 1) * 0x1.0p-53; }

/* One N(mean, sd) draw (Box-Muller, one output per two uniforms: no cached half, so the stream
** position depends only on the number of draws). Always draws, also for sd = 0, where the
** logarithm and cosine are skipped: sd times a finite value is 0 and adds nothing. V2X's own
** uniforms (u1, u2 in (0, 1]) predate sensim/noise.h and are kept: its outputs stay the same. */
static inline double sn_v2x_rng_normal(sn_v2x_rng *r, double mean, double sd)
{
    double u1 = sn_v2x_rng_open(r), u2 = sn_v2x_rng_open(r);
    if (sd == 0)
        return mean;
    return mean + sd * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
