/* rng.h — the engine's random streams: sensim/noise.h's generator (xoshiro256** seeded through
** splitmix64), so the SDK's written-out generator and the host's streams are one code. */
#ifndef SN_CORE_RNG_H
#define SN_CORE_RNG_H

#include <sensim/noise.h>

#include <stdint.h>

typedef sn_noise_rng sn_rng;

void sn_rng_seed(sn_rng *r, uint64_t seed);
uint64_t sn_rng_u64(sn_rng *r);
double sn_rng_uniform(sn_rng *r); /* [0, 1) with 53 random bits */
double sn_rng_normal(sn_rng *r);  /* N(0, 1), Box–Muller without caching: one draw, two uniforms */

#endif
