#include "rng.h"

#include <math.h>

void sn_rng_seed(sn_rng *r, uint64_t seed) { sn_noise_rng_seed(r, seed); }

uint64_t sn_rng_u64(sn_rng *r) { return sn_noise_rng_u64(r); }

double sn_rng_uniform(sn_rng *r) { return sn_noise_rng_uniform(r); }

double sn_rng_normal(sn_rng *r)
{
    /* sn_noise_rng_normal's draws (1 - u1 keeps log() away from 0). No cached second value: the
    ** stream stays a pure function of the draw count, which keeps replays simple. */
    double u1 = 1.0 - sn_rng_uniform(r);
    double u2 = sn_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
