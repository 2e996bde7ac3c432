/* sensim/noise.h against numbers computed outside it (a Python xoshiro256** with splitmix64
** seeding): the generator, the per-sensor seed, the normal's formula; the draw counts the header
** documents (uniform 1, normal 2, normal3 6, also at stddev 0); the host-stream path; CARLA's two
** noise_seed rules against a minimal host table. */
#include "../check.h"

#include <sensim/noise.h>

#include <string.h>

static uint64_t seeded_with;
static int n_seeded;
static bool given;
static void fake_seed(sn_ctx *ctx, uint64_t s) { (void)ctx, seeded_with = s, n_seeded++; }
static bool fake_given(sn_ctx *ctx, const char *name) { (void)ctx; return given && strcmp(name, "noise_seed") == 0; }
static sn_noise_rng host_rng; /* the fake host's stream */
static double fake_uniform(sn_ctx *ctx) { (void)ctx; return sn_noise_rng_uniform(&host_rng); }
static double fake_normal(sn_ctx *ctx, double m, double sd) { (void)ctx; return sn_noise_rng_normal(&host_rng, m, sd); }

int main(void)
{
    sn_noise_rng r;
    sn_noise_rng_seed(&r, 0);
    uint64_t a = sn_noise_rng_u64(&r), b = sn_noise_rng_u64(&r), c = sn_noise_rng_u64(&r);
    CHECK(a == 0x99ec5f36cb75f2b4ull && b == 0xbf6e1f784956452aull && c == 0x1a5f849d4933e6e0ull,
          "seed 0: %llx %llx %llx", (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
    sn_noise_rng_seed(&r, 12345);
    CHECK(sn_noise_rng_u64(&r) == 0xbe6a36374160d49bull && sn_noise_rng_u64(&r) == 0x214aaa0637a688c6ull, "seed 12345");
    sn_noise_rng_seed(&r, 7);
    double z = sn_noise_rng_normal(&r, 0.5, 2);
    CHECK(z == -0.058047982050396185, "N(0.5, 2) of seed 7: %.17g", z);
    CHECK(sn_noise_sensor_seed(3, "lidar") == 0x4802ca88b1aaab58ull, "scene seed 3 ^ FNV-1a(\"lidar\")");

    /* draw counts: normal = 2 u64 whatever the stddev, normal3 = 6, uniform = 1 */
    sn_noise_rng x, y;
    sn_noise_rng_seed(&x, 99), sn_noise_rng_seed(&y, 99);
    sn_noise n = sn_noise_own(&x);
    (void)sn_noise_normal(&n, 1, 0);
    sn_noise_rng_u64(&y), sn_noise_rng_u64(&y);
    CHECK(!memcmp(&x, &y, sizeof x), "a normal of stddev 0 still draws two");
    const double sd[3] = {0, 1, 0};
    sn_vec3 v = sn_noise_normal3(&n, (sn_vec3){1, 2, 3}, sd);
    for (int i = 0; i < 6; i++)
        sn_noise_rng_u64(&y);
    CHECK(!memcmp(&x, &y, sizeof x) && v.x == 1 && v.z == 3, "normal3 draws six, x then y then z");
    sn_noise_rng_seed(&x, 5), sn_noise_rng_seed(&y, 5);
    double u = sn_noise_uniform(&n);
    CHECK(u == (double)(sn_noise_rng_u64(&y) >> 11) * 0x1.0p-53 && !memcmp(&x, &y, sizeof x), "uniform draws one");
    sn_noise_rng_seed(&x, 5);
    CHECK(sn_noise_below(&n, u + 1e-12) && (sn_noise_rng_seed(&x, 5), !sn_noise_below(&n, u)), "below: u < p");
    /* the y axis of normal3 is the second normal of the stream */
    sn_noise_rng_seed(&x, 11), sn_noise_rng_seed(&y, 11);
    v = sn_noise_normal3(&n, (sn_vec3){0, 0, 0}, (const double[3]){1, 1, 1});
    double n1 = sn_noise_rng_normal(&y, 0, 1), n2 = sn_noise_rng_normal(&y, 0, 1), n3 = sn_noise_rng_normal(&y, 0, 1);
    CHECK(v.x == n1 && v.y == n2 && v.z == n3, "normal3 in axis order");

    /* the host path draws the same numbers through host->random_* */
    sn_host h;
    memset(&h, 0, sizeof h);
    h.hdr = (sn_abi_header)SN_ABI_HEADER(sn_host);
    h.random_uniform = fake_uniform, h.random_normal = fake_normal;
    h.random_seed = fake_seed, h.attribute_given = fake_given;
    sn_noise hn = sn_noise_host(&h, NULL);
    sn_noise_rng_seed(&host_rng, 21), sn_noise_rng_seed(&y, 21);
    CHECK(sn_noise_normal(&hn, 0, 3) == sn_noise_rng_normal(&y, 0, 3) && sn_noise_uniform(&hn) == sn_noise_rng_uniform(&y),
          "host stream");

    /* noise_seed rules: IMU/GNSS reseed on nonzero; lidar whenever given, 0 included */
    CHECK(!sn_noise_apply_seed(&h, NULL, "noise_seed", 0, SN_NOISE_SEED_NONZERO) && n_seeded == 0, "0 keeps the stream");
    CHECK(sn_noise_apply_seed(&h, NULL, "noise_seed", 42, SN_NOISE_SEED_NONZERO) && seeded_with == 42, "42 reseeds");
    CHECK(!sn_noise_apply_seed(&h, NULL, "noise_seed", 9, SN_NOISE_SEED_GIVEN) && n_seeded == 1, "not given: kept");
    given = true;
    CHECK(sn_noise_apply_seed(&h, NULL, "noise_seed", 0, SN_NOISE_SEED_GIVEN) && seeded_with == 0 && n_seeded == 2,
          "given 0: reseeds at 0");
    h.hdr.abi_minor = 1;
    CHECK(!sn_noise_apply_seed(&h, NULL, "noise_seed", 42, SN_NOISE_SEED_NONZERO), "a 1.1 host has no random_seed");

    CHECK(sn_noise_f32(0.1) == (double)0.1f && sn_noise_f32(0.1) != 0.1, "float rounding");
    return CHECK_DONE();
}
