/* rain.c — rain streaks over a camera's image (rain.h). */
#include "rain.h"

#include <sensim/math.h>

#include <math.h>

static uint64_t next(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uni(uint64_t *s) { return (double)(next(s) >> 11) * 0x1.0p-53; }

/* Lightens the pixel toward a drop's colour: a drop catches the light around it. */
static void blend(uint8_t *p, double a)
{
    for (int k = 0; k < 3; k++) {
        double v = p[k], lit = fmin(255, 1.5 * v + 24);
        p[k] = (uint8_t)lround(v + a * (lit - v));
    }
}

void rain_draw(uint8_t *bgra, const float *depth, uint32_t w, uint32_t h, double fov, sn_rotation rot,
               double precipitation, double wind_intensity, uint64_t seed)
{
    if (!(precipitation > 0) || w < 2 || h < 2)
        return;
    const double f = w / (2 * tan(fov * M_PI / 360)), cx = w / 2.0, cy = h / 2.0;
    /* the drops' velocity in the camera frame (x forward, y right, z up): falling, and blown */
    const sn_mat3 R = sn_mat3_from_rotation(rot);
    const sn_vec3 vw = sn_v3(0, RAIN_WIND * wind_intensity / 100, -RAIN_FALL);
    const sn_vec3 vc = sn_mat3_apply_t(&R, vw);
    const sn_vec3 step = sn_v3_scale(vc, RAIN_STREAK);
    const int n = (int)lround(RAIN_DROPS * precipitation);
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        /* a drop anywhere in the view between RAIN_NEAR and RAIN_FAR, evenly in depth */
        double d = RAIN_NEAR + (RAIN_FAR - RAIN_NEAR) * uni(&s), u = uni(&s) * w, v = uni(&s) * h;
        sn_vec3 a = sn_v3(d, (u - cx) / f * d, -(v - cy) / f * d), b = sn_v3_add(a, step);
        if (!(b.x > 0.05))
            continue;
        double u1 = cx + f * b.y / b.x, v1 = cy - f * b.z / b.x;
        /* nearer drops are brighter and wider */
        double alpha = 0.35 * (1 - (d - RAIN_NEAR) / (RAIN_FAR - RAIN_NEAR)) + 0.05;
        int thick = d < 2.0 ? 2 : 1;
        double len = hypot(u1 - u, v1 - v);
        int steps = (int)ceil(len);
        if (steps < 1)
            steps = 1;
        if (steps > 4 * (int)(w + h))
            continue;
        for (int k = 0; k <= steps; k++) {
            double t = (double)k / steps;
            long x = lround(u + t * (u1 - u) - 0.5), y = lround(v + t * (v1 - v) - 0.5);
            const float dz = (float)(a.x + t * (b.x - a.x)); /* the drop's depth at this point */
            for (int o = 0; o < thick; o++) {
                long xx = x + o;
                if (xx < 0 || y < 0 || xx >= (long)w || y >= (long)h)
                    continue;
                if (depth && depth[(size_t)y * w + (size_t)xx] < dz)
                    continue; /* behind what the camera sees there */
                blend(bgra + 4 * ((size_t)y * w + (size_t)xx), alpha * (0.6 + 0.4 * sin(M_PI * t)));
            }
        }
    }
}
