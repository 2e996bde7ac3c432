/* simd4.h — four float lanes for the renderer's single-precision shading (fog.c, shade_fast.c,
** shadow.c's batch lookup): GCC vector extensions, SSE2 on x86-64 (its baseline, so every
** machine computes the same bits), NEON elsewhere, scalar lanes otherwise. Each lane does the
** IEEE operations written, in the order written (C11 mode: no contraction into FMA). */
#ifndef SN_SIMD4_H
#define SN_SIMD4_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f v4_splat(float v) { return (v4f){v, v, v, v}; }
static inline v4f v4_load(const float *p)
{
    v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void v4_store(float *p, v4f v) { memcpy(p, &v, sizeof v); }
static inline v4i v4i_load(const int32_t *p)
{
    v4i v;
    memcpy(&v, p, sizeof v);
    return v;
}
/* m's lanes (all ones or zero, a comparison's result) pick a, the others b */
static inline v4f v4_sel(v4i m, v4f a, v4f b) { return (v4f)((m & (v4i)a) | (~m & (v4i)b)); }
/* a > b ? a : b and a < b ? a : b, lane by lane (maxps and minps are exactly these) */
static inline v4f v4_max(v4f a, v4f b)
{
#ifdef __SSE2__
    return (v4f)_mm_max_ps((__m128)a, (__m128)b);
#else
    return v4_sel(a > b, a, b);
#endif
}
static inline v4f v4_min(v4f a, v4f b)
{
#ifdef __SSE2__
    return (v4f)_mm_min_ps((__m128)a, (__m128)b);
#else
    return v4_sel(a < b, a, b);
#endif
}
static inline int v4_any(v4i m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }

static inline v4f v4_sqrt(v4f v)
{
#ifdef __SSE2__
    return (v4f)_mm_sqrt_ps((__m128)v); /* correctly rounded, as sqrtf */
#else
    return (v4f){sqrtf(v[0]), sqrtf(v[1]), sqrtf(v[2]), sqrtf(v[3])};
#endif
}

/* Truncation towards zero to integers (|v| < 2^31; other lanes give an unspecified integer). */
static inline v4i v4_trunc_i(v4f v)
{
#ifdef __SSE2__
    return (v4i)_mm_cvttps_epi32((__m128)v);
#else
    return __builtin_convertvector(v4_sel(v == v, v4_min(v4_max(v, v4_splat(-2e9f)), v4_splat(2e9f)), v4_splat(0)), v4i);
#endif
}

/* floor, exact for |v| < 2^31 (SSE2 has no roundps): truncate, one down where that went up */
static inline v4f v4_floor(v4f v)
{
    v4f t = __builtin_convertvector(v4_trunc_i(v), v4f);
    return t - v4_sel(t > v, v4_splat(1.0f), v4_splat(0.0f));
}

/* e^x, relative error a few float ulps (the degree-7 Taylor remainder is 5e-9 on |r| <= ln2/2);
** x clamped to [-87.3, 88.3], where 2^n stays a normal float. */
static inline v4f v4_exp(v4f x)
{
    const v4f magic = v4_splat(12582912.0f); /* 1.5 x 2^23: adding it rounds to an integer */
    x = v4_min(v4_splat(88.3f), v4_max(v4_splat(-87.3f), x)); /* x < -87.3 ? -87.3 : x, then > 88.3 */
    v4f t = x * v4_splat(1.44269504f) + magic, n = t - magic;
    v4i ni = (v4i)t - (v4i)magic; /* n as an integer: t's low mantissa bits */
    v4f r = x - n * v4_splat(0.693359375f);
    r = r - n * v4_splat(-2.12194440e-4f);
    v4f p = v4_splat(1.0f / 5040);
    p = p * r + v4_splat(1.0f / 720);
    p = p * r + v4_splat(1.0f / 120);
    p = p * r + v4_splat(1.0f / 24);
    p = p * r + v4_splat(1.0f / 6);
    p = p * r + v4_splat(0.5f);
    p = p * r + v4_splat(1.0f);
    p = p * r + v4_splat(1.0f);
    return p * (v4f)((ni + 127) << 23);
}

#endif
