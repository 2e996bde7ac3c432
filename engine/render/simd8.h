/* simd8.h — eight float lanes (AVX2) with simd4.h's helpers and the same bits lane for lane:
** included only by files built for AVX2 (fog_avx2.c: `#pragma GCC target`), called only where
** the CPU has it (sn_cpu_avx2). No FMA: every product and sum rounds on its own, as in the
** four-lane code. */
#ifndef SN_SIMD8_H
#define SN_SIMD8_H

#include <stdint.h>
#include <string.h>
#include <immintrin.h>

typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

static inline v8f v8_splat(float v) { return (v8f){v, v, v, v, v, v, v, v}; }
static inline v8f v8_load(const float *p)
{
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void v8_store(float *p, v8f v) { memcpy(p, &v, sizeof v); }
static inline v8f v8_sel(v8i m, v8f a, v8f b) { return (v8f)((m & (v8i)a) | (~m & (v8i)b)); }
/* vmaxps and vminps: maxps and minps lane for lane (the second operand where either is NaN) */
static inline v8f v8_max(v8f a, v8f b) { return (v8f)_mm256_max_ps((__m256)a, (__m256)b); }
static inline v8f v8_min(v8f a, v8f b) { return (v8f)_mm256_min_ps((__m256)a, (__m256)b); }
static inline v8f v8_sqrt(v8f v) { return (v8f)_mm256_sqrt_ps((__m256)v); }

static inline int v8_any(v8i m) { return !_mm256_testz_si256((__m256i)m, (__m256i)m); }
/* simd4.h's v4_trunc_i (cvttps: the same integers) and v4_floor */
static inline v8i v8_trunc_i(v8f v) { return (v8i)_mm256_cvttps_epi32((__m256)v); }
static inline v8f v8_floor(v8f v)
{
    v8f t = __builtin_convertvector(v8_trunc_i(v), v8f);
    return t - v8_sel(t > v, v8_splat(1.0f), v8_splat(0.0f));
}
/* t[k[i]] in each lane (the loads simd4.h's code does one at a time) */
static inline v8f v8_gather(const float *t, v8i k) { return (v8f)_mm256_i32gather_ps(t, (__m256i)k, 4); }
/* eight tags as integers */
static inline v8i v8_tags(const uint8_t *t)
{
    __m128i b;
    memcpy(&b, t, 8); /* the low 8 bytes; the rest zero below */
    b = _mm_move_epi64(b);
    return (v8i)_mm256_cvtepu8_epi32(b);
}

/* simd4.h's v4_exp, the same operations */
static inline v8f v8_exp(v8f x)
{
    const v8f magic = v8_splat(12582912.0f);
    x = v8_min(v8_splat(88.3f), v8_max(v8_splat(-87.3f), x));
    v8f t = x * v8_splat(1.44269504f) + magic, n = t - magic;
    v8i ni = (v8i)t - (v8i)magic;
    v8f r = x - n * v8_splat(0.693359375f);
    r = r - n * v8_splat(-2.12194440e-4f);
    v8f p = v8_splat(1.0f / 5040);
    p = p * r + v8_splat(1.0f / 720);
    p = p * r + v8_splat(1.0f / 120);
    p = p * r + v8_splat(1.0f / 24);
    p = p * r + v8_splat(1.0f / 6);
    p = p * r + v8_splat(0.5f);
    p = p * r + v8_splat(1.0f);
    p = p * r + v8_splat(1.0f);
    return p * (v8f)((ni + 127) << 23);
}

#endif
