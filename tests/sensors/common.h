/* common.h — helpers of the IMU, GNSS, obstacle and radar tests (tests/sensors), on the SDK's
** fake host (sensim/testing.h: the engine's own test world). */
#ifndef SN_TEST_SENSORS_COMMON_H
#define SN_TEST_SENSORS_COMMON_H

#include <sensim/testing.h>

#include "../check.h"

#include <stdlib.h>

#define PI 3.14159265358979323846

static inline sn_transform pose(double x, double y, double z, double pitch, double yaw, double roll)
{
    return (sn_transform){{x, y, z}, {pitch, yaw, roll}};
}

/* A world with the plugin at `path` opened; the test stops when either fails. */
static inline sn_fake *world(uint64_t seed, int threads, const char *path, sn_plugin_entry_fn *entry)
{
    sn_testworld_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.seed = seed;
    o.threads = threads;
    sn_fake *f = sn_fake_new_with(&o);
    if (!f)
        exit(1);
    *entry = sn_fake_open(f, path);
    if (!*entry) {
        fprintf(stderr, "open %s: %s\n", path, sn_fake_error(f));
        exit(1);
    }
    return f;
}

/* Spawning `blueprint` with one bad attribute is refused with a sentence naming it and `what`. */
static inline void check_refused(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint, const char *attr,
                                 const char *what)
{
    const char *attrs[] = {attr, NULL};
    sn_fake_sensor *s = sn_fake_spawn(f, entry, blueprint, attrs, 0);
    CHECK(s == NULL, "%s: '%s' was accepted", blueprint, attr);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(attr, "="), attr);
    if (!s) {
        CHECK_CONTAINS(sn_fake_error(f), name);
        CHECK_CONTAINS(sn_fake_error(f), what);
    }
}

/* Mean and sample standard deviation of n values. */
static inline void stats(const double *v, int n, double *mean, double *sd)
{
    double m = 0, s = 0;
    for (int i = 0; i < n; i++)
        m += v[i];
    m /= n;
    for (int i = 0; i < n; i++)
        s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *sd = sqrt(s / (n - 1));
}

/* Mean within 3 standard errors of `mu` and the sample stddev within 3 of its own (sigma/sqrt(2n)). */
static inline void check_normal(const double *v, int n, double mu, double sigma, const char *what)
{
    double m, s;
    stats(v, n, &m, &s);
    CHECK(fabs(m - mu) <= 3 * sigma / sqrt(n), "%s: mean %.6g, want %.6g +- %.3g", what, m, mu, 3 * sigma / sqrt(n));
    CHECK(fabs(s - sigma) <= 3 * sigma / sqrt(2.0 * n), "%s: stddev %.6g, want %.6g +- %.3g", what, s, sigma,
          3 * sigma / sqrt(2.0 * n));
}

/*
** The engine's random stream, written out from its documented parts (xoshiro256** seeded by
** splitmix64; uniform = top 53 bits; normal = Box-Muller of 1 - u1 and u2, one per call), so a
** test can say which draw a sensor used for what. A sensor's own stream is seeded with
** scene seed ^ FNV-1a(name); host->random_seed(s) restarts it at s.
*/
typedef struct ref_rng {
    uint64_t s[4];
} ref_rng;

static inline void ref_seed(ref_rng *r, uint64_t x)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t ref_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline double ref_uniform(ref_rng *r)
{
    uint64_t *s = r->s, out = ref_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = ref_rotl(s[3], 45);
    return (double)(out >> 11) * 0x1.0p-53;
}

static inline double ref_normal(ref_rng *r)
{
    double u1 = 1.0 - ref_uniform(r), u2 = ref_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline uint64_t ref_name_seed(uint64_t scene_seed, const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 1099511628211ull;
    return scene_seed ^ h;
}

#endif
