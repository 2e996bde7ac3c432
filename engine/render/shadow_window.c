/* shadow_window.c — each 4 x 4 tent window's least depth (shadow_window.h): the four rows' least
** column by column, then four columns' least, eight lanes where the CPU has AVX2, else four. A
** least of floats is exact and (without NaN) independent of order, so the lanes change no bit. */
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
/* columns [x0, ve) of the rows' least (x0 and ve multiples of 8), then the windows from x0 on */
__attribute__((target("avx2"))) static void rows8(const float *depth, size_t w, float *win, int32_t y0, int32_t y1,
                                                  size_t x0, size_t x1, size_t ve)
{
    float col[MAXW + 8];
    for (int32_t y = y0; y < y1; y++) {
        const float *r = depth + (size_t)y * w;
        for (size_t x = x0; x < ve; x += 8) {
            const __m256 a = _mm256_loadu_ps(r + x), b = _mm256_loadu_ps(r + w + x), c = _mm256_loadu_ps(r + 2 * w + x),
                         d = _mm256_loadu_ps(r + 3 * w + x);
            _mm256_storeu_ps(col + x, _mm256_min_ps(_mm256_min_ps(a, b), _mm256_min_ps(c, d)));
        }
        float *o = win + (size_t)y * w;
        size_t x = x0;
        for (; x + 8 + 3 <= ve; x += 8) {
            const __m256 h = _mm256_min_ps(_mm256_loadu_ps(col + x), _mm256_loadu_ps(col + x + 1));
            const __m256 g = _mm256_min_ps(_mm256_loadu_ps(col + x + 2), _mm256_loadu_ps(col + x + 3));
            _mm256_storeu_ps(o + x, _mm256_min_ps(h, g));
        }
        for (; x <= x1; x++)
            o[x] = fmin2(fmin2(col[x], col[x + 1]), fmin2(col[x + 2], col[x + 3]));
    }
}
#endif

void sn_shadow_window_min(const float *depth, int32_t size, float *win, int32_t y0, int32_t y1, int32_t x0, int32_t x1)
{
    y1 = y1 > size - 3 ? size - 3 : y1, x1 = x1 > size - 4 ? size - 4 : x1;
    x0 = x0 < 0 ? 0 : x0 & ~7;
    if (y0 >= y1 || x0 > x1 || size > MAXW)
        return;
    const size_t w = (size_t)size, ve = ((size_t)x1 + 4 + 7) & ~(size_t)7; /* columns x0 .. x1 + 3, in eights */
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && size % 8 == 0) {
        rows8(depth, w, win, y0, y1, (size_t)x0, (size_t)x1, ve);
        return;
    }
#endif
    const size_t end = (size_t)x1 + 4; /* <= size */
    float col[MAXW];
    for (int32_t y = y0; y < y1; y++) {
        const float *r = depth + (size_t)y * w;
        size_t x = (size_t)x0;
#ifdef __SSE2__
        for (; x + 4 <= end; x += 4) {
            const __m128 a = _mm_loadu_ps(r + x), b = _mm_loadu_ps(r + w + x), c = _mm_loadu_ps(r + 2 * w + x),
                         d = _mm_loadu_ps(r + 3 * w + x);
            _mm_storeu_ps(col + x, _mm_min_ps(_mm_min_ps(a, b), _mm_min_ps(c, d)));
        }
#endif
        for (; x < end; x++)
            col[x] = fmin2(fmin2(r[x], r[w + x]), fmin2(r[2 * w + x], r[3 * w + x]));
        float *o = win + (size_t)y * w;
        x = (size_t)x0;
#ifdef __SSE2__
        for (; x + 4 + 3 <= end; x += 4) {
            const __m128 h = _mm_min_ps(_mm_loadu_ps(col + x), _mm_loadu_ps(col + x + 1));
            const __m128 g = _mm_min_ps(_mm_loadu_ps(col + x + 2), _mm_loadu_ps(col + x + 3));
            _mm_storeu_ps(o + x, _mm_min_ps(h, g));
        }
#endif
        for (; x <= (size_t)x1; x++)
            o[x] = fmin2(fmin2(col[x], col[x + 1]), fmin2(col[x + 2], col[x + 3]));
    }
}
