/* shadow_window.c — each pair of 4 x 4 tent windows' least depth (shadow_window.h): the four
** rows' least column by column, then each pair's over its five columns; eight lanes where the CPU
** has AVX2, else four. A least of floats is exact and (without NaN) independent of order, so the
** lanes and the order change no bit. */
#include "shadow_window.h"

#include "lanes.h"

#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <xmmintrin.h>
#endif

#define MAXW 4096 /* texels a row; the map is SN_SHADOW_SIZE (1024) wide */

static inline float fmin2(float a, float b) { return b < a ? b : a; }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* four rows' least of columns x .. x + 7 */
__attribute__((target("avx2"))) static inline __m256 col8(const float *r, size_t w, size_t x)
{
    return _mm256_min_ps(_mm256_min_ps(_mm256_loadu_ps(r + x), _mm256_loadu_ps(r + w + x)),
                         _mm256_min_ps(_mm256_loadu_ps(r + 2 * w + x), _mm256_loadu_ps(r + 3 * w + x)));
}

/* pairs p .. p + 7 from the column row's halves: pair p covers columns 2p .. 2p + 4, that is the
** two-column least q[p] and q[p + 1] and the even column ev[p + 2] */
__attribute__((target("avx2"))) static inline __m256 pair8(const float *q, const float *ev, size_t p)
{
    return _mm256_min_ps(_mm256_min_ps(_mm256_loadu_ps(q + p), _mm256_loadu_ps(q + p + 1)), _mm256_loadu_ps(ev + p + 2));
}

/* pairs [p0, p1] of rows [y0, y1) (2 p0 a multiple of 8; columns 2 p0 .. ve read, ve <= w). One
** pass over the column row, which leaves it split: ev[i] = col[2i] and q[i] = the least of
** col[2i] and col[2i + 1]; then three loads a pair, without the windows in between (env63 built
** the windows and then the pairs from them: rows63). */
__attribute__((target("avx2"))) static void rows8(const float *depth, size_t w, float *win, int32_t y0, int32_t y1,
                                                  size_t p0, size_t p1, size_t ve)
{
    float ev[MAXW / 2 + 8], q[MAXW / 2 + 8]; /* indexed by column / 2 */
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (int32_t y = y0; y < y1; y++) {
        const float *r = depth + (size_t)y * w;
        size_t x = 2 * p0;
        for (; x + 16 <= ve; x += 16) {
            const __m256 a = col8(r, w, x), b = col8(r, w, x + 8);
            /* evens and odds of the 16 columns, lanes 0 2 8 10 | 4 6 12 14: the middle 64-bit halves
            ** swapped back */
            const __m256 e = _mm256_shuffle_ps(a, b, 0x88), o = _mm256_shuffle_ps(a, b, 0xDD);
            const __m256 e8 = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), 0xD8));
            const __m256 q8 = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_min_ps(e, o)), 0xD8));
            _mm256_storeu_ps(ev + x / 2, e8);
            _mm256_storeu_ps(q + x / 2, q8);
        }
        if (x < ve) { /* eight columns left (ve - 2 p0 is a multiple of 8) */
            const __m256 s = _mm256_permutevar8x32_ps(col8(r, w, x), split); /* evens | odds */
            const __m128 e = _mm256_castps256_ps128(s);
            _mm_storeu_ps(ev + x / 2, e);
            _mm_storeu_ps(q + x / 2, _mm_min_ps(e, _mm256_extractf128_ps(s, 1)));
        }
        /* pair p reads ev and q up to p + 2, inside columns 2 p0 .. 2 p1 + 4 < ve */
        float *out = win + (size_t)y * (w / 2);
        if (p1 - p0 + 1 >= 8) {
            size_t p = p0;
            for (; p + 8 <= p1 + 1; p += 8)
                _mm256_storeu_ps(out + p, pair8(q, ev, p));
            if (p <= p1) /* the last eight, some written again with the same bits */
                _mm256_storeu_ps(out + p1 - 7, pair8(q, ev, p1 - 7));
        } else {
            for (size_t p = p0; p <= p1; p++)
                out[p] = fmin2(fmin2(q[p], q[p + 1]), ev[p + 2]);
        }
    }
}
#endif

void sn_shadow_window_min(const float *depth, int32_t size, float *win, int32_t y0, int32_t y1, int32_t x0, int32_t x1)
{
    y1 = y1 > size - 3 ? size - 3 : y1;
    x0 = x0 < 0 ? 0 : x0 & ~7;
    /* the last pair whose five columns lie in the map */
    const int32_t p1 = (x1 < 0 ? -1 : x1 / 2) < (size - 5) / 2 ? (x1 < 0 ? -1 : x1 / 2) : (size - 5) / 2;
    if (y0 >= y1 || x0 / 2 > p1 || size > MAXW || size % 2)
        return;
    const size_t w = (size_t)size, p0 = (size_t)x0 / 2, end = 2 * (size_t)p1 + 5; /* columns 2 p0 .. end - 1 */
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && size % 8 == 0) {
        rows8(depth, w, win, y0, y1, p0, (size_t)p1, (end + 7) & ~(size_t)7);
        return;
    }
#endif
    float col[MAXW];
    for (int32_t y = y0; y < y1; y++) {
        const float *r = depth + (size_t)y * w;
        size_t x = 2 * p0;
#ifdef __SSE2__
        for (; x + 4 <= end; x += 4) {
            const __m128 a = _mm_loadu_ps(r + x), b = _mm_loadu_ps(r + w + x), c = _mm_loadu_ps(r + 2 * w + x),
                         d = _mm_loadu_ps(r + 3 * w + x);
            _mm_storeu_ps(col + x, _mm_min_ps(_mm_min_ps(a, b), _mm_min_ps(c, d)));
        }
#endif
        for (; x < end; x++)
            col[x] = fmin2(fmin2(r[x], r[w + x]), fmin2(r[2 * w + x], r[3 * w + x]));
        float *o = win + (size_t)y * (w / 2);
        for (size_t p = p0; p <= (size_t)p1; p++) {
            const float *c = col + 2 * p;
            o[p] = fmin2(fmin2(fmin2(c[0], c[1]), fmin2(c[2], c[3])), c[4]);
        }
    }
}
