/*
** rng.h — each station's own generator (xoshiro256**), seeded once from the sensor's seeded
** host stream (or noise_seed). The medium draws fading for every receiver inside the class tick,
** where no instance's host stream may be called; this keeps the draws per receiver, in a fixed
** order, whatever the thread count.
*/
#ifndef SN_V2X_RNG_H
#define SN_V2X_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct sn_v2x_rng {
    uint64_t s[4];
} sn_v2x_rng;

static inline uint64_t sn_v2x_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline void sn_v2x_rng_seed(sn_v2x_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 spreads any seed over the whole state */
        uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t sn_v2x_rng_u64(sn_v2x_rng *r)
{
    uint64_t *s = r->s, out = sn_v2x_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = sn_v2x_rotl(s[3], 45);
    return out;
}

/* (0, 1]: never 0, so the logarithm below is finite. */
static inline double sn_v2x_rng_open(sn_v2x_rng *r) { return ((sn_v2x_rng_u64(r) >> 11) + 1) * 0x1.0p-53; }

/* One N(mean, sd) draw (Box-Muller, one output per two uniforms: no cached half, so the stream
** position depends only on the number of draws). Always draws, also for sd = 0, where the
** logarithm and cosine are skipped: sd times a finite value is 0 and adds nothing. */
static inline double sn_v2x_rng_normal(sn_v2x_rng *r, double mean, double sd)
{
    double u1 = sn_v2x_rng_open(r), u2 = sn_v2x_rng_open(r);
    if (sd == 0)
        return mean;
    return mean + sd * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

#endif
