/* fog.c — fog's transmittance four points at a time in single precision (shade.h,
** sn_fog_transmittance_fast): the formula of sn_fog_transmittance (docs/rendering.md "Fog") with
** its three exponentials from one inline polynomial, so a row of pixels costs a few vector
** instructions each instead of three libm calls in a dependent chain. GCC vector extensions
** (SSE2 on x86-64, NEON elsewhere, scalar lanes otherwise); no dependency. */
#include "shade.h"

#include <math.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f splat(float v) { return (v4f){v, v, v, v}; }
/* m's lanes (all ones or zero, a comparison's result) pick a, the others b */
static inline v4f sel(v4i m, v4f a, v4f b) { return (v4f)((m & (v4i)a) | (~m & (v4i)b)); }

static inline v4f vsqrt(v4f v)
{
#ifdef __SSE__
    return (v4f)_mm_sqrt_ps((__m128)v);
#else
    return (v4f){sqrtf(v[0]), sqrtf(v[1]), sqrtf(v[2]), sqrtf(v[3])};
#endif
}

/* e^x, relative error a few float ulps (the degree-7 Taylor remainder is 5e-9 on |r| <= ln2/2);
** x clamped to [-87.3, 88.3], where 2^n stays a normal float. */
static inline v4f vexp(v4f x)
{
    const v4f magic = splat(12582912.0f); /* 1.5 x 2^23: adding it rounds to an integer */
    x = sel(x < splat(-87.3f), splat(-87.3f), x);
    x = sel(x > splat(88.3f), splat(88.3f), x);
    v4f t = x * splat(1.44269504f) + magic, n = t - magic;
    v4i ni = (v4i)t - (v4i)magic; /* n as an integer: t's low mantissa bits */
    v4f r = x - n * splat(0.693359375f);
    r = r - n * splat(-2.12194440e-4f);
    v4f p = splat(1.0f / 5040);
    p = p * r + splat(1.0f / 720);
    p = p * r + splat(1.0f / 120);
    p = p * r + splat(1.0f / 24);
    p = p * r + splat(1.0f / 6);
    p = p * r + splat(0.5f);
    p = p * r + splat(1.0f);
    p = p * r + splat(1.0f);
    return p * (v4f)((ni + 127) << 23);
}

void sn_fog_transmittance_fast(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy,
                               const float *dz, float *T, size_t n)
{
    const v4f start = splat((float)e->fog_start), f = splat((float)e->fog_falloff), k = splat((float)e->fog_k);
    const v4f ez = splat((float)eye.z), one = splat(1.0f);
    for (size_t i = 0; i < n; i += 4) {
        v4f x, y, z;
        memcpy(&x, dx + i, sizeof x), memcpy(&y, dy + i, sizeof y), memcpy(&z, dz + i, sizeof z);
        v4f dist = vsqrt(x * x + y * y + z * z);
        v4i clear = dist <= start; /* the fog begins farther */
        v4f s = start / sel(clear, one, dist);
        /* a: where the fog begins along the ray; za, dzz: heights' falloff from a and a to p */
        v4f za = f * (ez + z * s), dzz = f * (z * (one - s));
        za = sel(za < splat(-50.0f), splat(-50.0f), za);
        /* (1 - e^-dzz) / dzz: its series where the difference would cancel */
        v4f h_near = one - dzz * (splat(0.5f) - dzz * (splat(1.0f / 6) - dzz * splat(1.0f / 24)));
        v4i near = (dzz < splat(0.01f)) & (dzz > splat(-0.01f));
        v4f h_far = (one - vexp(-dzz)) / sel(near, one, dzz);
        v4f tau = k * (dist - start) * vexp(-za) * sel(near, h_near, h_far);
        v4f t = sel(clear, one, vexp(-tau));
        memcpy(T + i, &t, sizeof t);
    }
}
