/* shadow_window.c — each pair of 4 x 4 tent windows' least depth (shadow_window.h): the four
** rows' least column by column, then each window's least over four columns, then each pair's
** over two windows; eight lanes where the CPU has AVX2, else four. A least of floats is exact and
** (without NaN) independent of order, so the lanes change no bit. */
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
/* pairs [p0, p1] of rows [y0, y1) (2 p0 a multiple of 8; columns 2 p0 .. ve read, ve <= w) */
__attribute__((target("avx2"))) static void rows8(const float *depth, size_t w, float *win, int32_t y0, int32_t y1,
                                                  size_t p0, size_t p1, size_t ve)
{
    float col[MAXW + 8], w4[MAXW + 8];
    const size_t x0 = 2 * p0, xe = 2 * p1 + 2; /* the windows w4[x0 .. xe) */
    for (int32_t y = y0; y < y1; y++) {
        const float *r = depth + (size_t)y * w;
        for (size_t x = x0; x < ve; x += 8) {
            const __m256 a = _mm256_loadu_ps(r + x), b = _mm256_loadu_ps(r + w + x), c = _mm256_loadu_ps(r + 2 * w + x),
                         d = _mm256_loadu_ps(r + 3 * w + x);
            _mm256_storeu_ps(col + x, _mm256_min_ps(_mm256_min_ps(a, b), _mm256_min_ps(c, d)));
        }
        size_t x = x0;
        for (; x + 8 + 3 <= ve; x += 8) {
            const __m256 h = _mm256_min_ps(_mm256_loadu_ps(col + x), _mm256_loadu_ps(col + x + 1));
            const __m256 g = _mm256_min_ps(_mm256_loadu_ps(col + x + 2), _mm256_loadu_ps(col + x + 3));
            _mm256_storeu_ps(w4 + x, _mm256_min_ps(h, g));
        }
        for (; x < xe; x++)
            w4[x] = fmin2(fmin2(col[x], col[x + 1]), fmin2(col[x + 2], col[x + 3]));
        float *o = win + (size_t)y * (w / 2);
        size_t p = p0;
        for (; p + 8 <= p1 + 1; p += 8) { /* windows 2p .. 2p + 15: the even ones' least with the odd ones' */
            const __m256 a = _mm256_loadu_ps(w4 + 2 * p), b = _mm256_loadu_ps(w4 + 2 * p + 8);
            const __m256 m = _mm256_min_ps(_mm256_shuffle_ps(a, b, 0x88), _mm256_shuffle_ps(a, b, 0xDD));
            /* lanes hold pairs 0 1 4 5 | 2 3 6 7: the middle two 64-bit halves swapped back */
            _mm256_storeu_ps(o + p, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(m), 0xD8)));
        }
        for (; p <= p1; p++)
            o[p] = fmin2(w4[2 * p], w4[2 * p + 1]);
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
