/*
** sensim/noise.h — sensor noise with a documented draw order (ABI 1.5; header-only, link -lm).
**
** 1. sn_noise_rng is the generator behind every sensor's host stream, written out:
**    xoshiro256** whose state is four splitmix64 outputs of the seed. A sensor's stream
**    (host->random_u64 / random_uniform / random_normal) is exactly an sn_noise_rng seeded with
**    sn_noise_sensor_seed(scene seed, sensor name), or with the seed given to host->random_seed.
**    Use one of your own where no instance callback may call the host (a class tick), seeded
**    once from your host stream; a test reproduces a sensor's draws with it.
** 2. sn_noise draws from a sensor's host stream (or from an sn_noise_rng of yours), with the
**    shapes sensors need: normal(mean, stddev), uniform, a normal per axis, CARLA's float
**    rounding and noise_seed rules.
**
** Draw order, the contract (every helper draws the same count whatever its arguments, so
** switching one noise on never moves another's draws):
** - u64: one step of xoshiro256**;
** - uniform: one u64; (u >> 11) * 2^-53, in [0, 1);
** - normal(mean, stddev): two uniforms u1 then u2, always (also for stddev 0):
**       mean + stddev * sqrt(-2 ln(1 - u1)) * cos(2 pi u2)     (Box-Muller, no cached half);
** - normal3(mean, stddev): normal of x, then y, then z (six uniforms).
** The sensim plugins' draws per tick, in these terms, are in their docs pages
** (docs/sensors/imu-gnss.md, docs/sensors/lidar.md, docs/sensors/radar.md).
*/
#ifndef SENSIM_NOISE_H
#define SENSIM_NOISE_H

#include <sensim/host.h>

#include <math.h>

typedef struct sn_noise_rng {
    uint64_t s[4];
} sn_noise_rng;

static inline uint64_t sn_noise_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A fresh stream from `seed` (host->random_seed(ctx, seed) restarts a sensor's stream so). */
static inline void sn_noise_rng_seed(sn_noise_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = sn_noise_splitmix64(&seed);
}

/* The seed of a sensor's own stream: the scene seed xor the 64-bit FNV-1a hash of its name. */
static inline uint64_t sn_noise_sensor_seed(uint64_t scene_seed, const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (; name && *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return scene_seed ^ h;
}

static inline uint64_t sn_noise_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t sn_noise_rng_u64(sn_noise_rng *r)
{
    uint64_t *s = r->s, out = sn_noise_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sn_noise_rotl(s[3], 45);
    return out;
}

/* [0, 1) with 53 random bits. */
static inline double sn_noise_rng_uniform(sn_noise_rng *r) { return (double)(sn_noise_rng_u64(r) >> 11) * 0x1.0p-53; }

/* N(mean, stddev): two uniforms, always (see the draw order above). */
static inline double sn_noise_rng_normal(sn_noise_rng *r, double mean, double stddev)
{
    double u1 = 1.0 - sn_noise_rng_uniform(r); /* in (0, 1]: log stays finite */
    double u2 = sn_noise_rng_uniform(r);
    return mean + stddev * (sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/*
** Where a sensor's noise comes from: its host stream (sn_noise_host) or a generator of the
** plugin's (sn_noise_own). The same draws either way when the generator is seeded as the host
** seeds the stream. A value: copy it freely; it owns nothing.
*/
typedef struct sn_noise {
    const sn_host *h;
    sn_ctx *ctx;
    sn_noise_rng *rng; /* when set, draws come from it */
} sn_noise;

static inline sn_noise sn_noise_host(const sn_host *h, sn_ctx *ctx)
{
    sn_noise n = {h, ctx, NULL};
    return n;
}
static inline sn_noise sn_noise_own(sn_noise_rng *rng)
{
    sn_noise n = {NULL, NULL, rng};
    return n;
}

static inline double sn_noise_uniform(const sn_noise *n)
{
    return n->rng ? sn_noise_rng_uniform(n->rng) : n->h->random_uniform(n->ctx);
}

static inline double sn_noise_normal(const sn_noise *n, double mean, double stddev)
{
    return n->rng ? sn_noise_rng_normal(n->rng, mean, stddev) : n->h->random_normal(n->ctx, mean, stddev);
}

/* A normal per axis, x then y then z: (N(mean.x, sd[0]), N(mean.y, sd[1]), N(mean.z, sd[2])). */
static inline sn_vec3 sn_noise_normal3(const sn_noise *n, sn_vec3 mean, const double stddev[3])
{
    sn_vec3 v;
    v.x = sn_noise_normal(n, mean.x, stddev[0]);
    v.y = sn_noise_normal(n, mean.y, stddev[1]);
    v.z = sn_noise_normal(n, mean.z, stddev[2]);
    return v;
}

/* True with probability p: one uniform, below p (CARLA's drop-off tests). */
static inline bool sn_noise_below(const sn_noise *n, double p) { return sn_noise_uniform(n) < p; }

/*
** x rounded to float and back, as CARLA holds noise parameters and errors (float members and
** std::normal_distribution<float>). Through a volatile: GCC 12 at -O2 merges neighbouring
** (float) casts into one vector operation and drops the rounding of all but one.
*/
static inline double sn_noise_f32(double x)
{
    volatile float f = (float)x;
    return f;
}

/* When a sensor's noise_seed attribute restarts its stream. */
typedef enum sn_noise_seed_rule {
    SN_NOISE_SEED_NONZERO = 0, /* any value but 0 (IMU, GNSS: 0 keeps the sensor's own stream) */
    SN_NOISE_SEED_GIVEN = 1    /* whenever the attribute was given, 0 included (host->attribute_given, ABI 1.4) */
} sn_noise_seed_rule;

/*
** Applies attribute `name` (value `seed`) of a sensor by `rule`, in set(): restarts the sensor's
** host stream at `seed` (host->random_seed) or leaves it. Returns whether it did.
*/
static inline bool sn_noise_apply_seed(const sn_host *h, sn_ctx *ctx, const char *name, int64_t seed,
                                       sn_noise_seed_rule rule)
{
    if (h->hdr.abi_minor < 2 || !h->random_seed)
        return false;
    bool on = rule == SN_NOISE_SEED_NONZERO ? seed != 0
                                            : SN_HOST_HAS(h, attribute_given) && h->attribute_given(ctx, name);
    if (on)
        h->random_seed(ctx, (uint64_t)seed);
    return on;
}

#endif
