/* puddles.c — standing water from precipitation_deposits (puddles.h). */
#include "puddles.h"

#include <math.h>
#include <stdint.h>

static double lattice(int64_t i, int64_t j, uint32_t salt)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull ^ (uint64_t)j * 0xC2B2AE3D27D4EB4Full ^ salt;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    return (double)(h >> 11) * 0x1.0p-53;
}

static double smooth(double t) { return t * t * (3 - 2 * t); }

static double value_noise(double x, double y, uint32_t salt)
{
    double fx = floor(x), fy = floor(y), tx = smooth(x - fx), ty = smooth(y - fy);
    int64_t i = (int64_t)fx, j = (int64_t)fy;
    double a = lattice(i, j, salt), b = lattice(i + 1, j, salt), c = lattice(i, j + 1, salt), d = lattice(i + 1, j + 1, salt);
    return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

double sn_puddle(double deposits, sn_vec3 p)
{
    if (!(deposits > 0))
        return 0;
    double n = 0.7 * value_noise(p.x / 4.0, p.y / 4.0, 17) + 0.3 * value_noise(p.x / 1.5, p.y / 1.5, 91);
    /* the noise is about uniform over 0.2..0.8: the top `cover` of it is water */
    double cover = 0.45 * (deposits > 1 ? 1 : deposits), t = 0.8 - 0.6 * cover, rim = 0.03;
    double v = (n - t) / rim;
    return v <= 0 ? 0 : v >= 1 ? 1 : smooth(v);
}
