/* shadow_bounds.c — the shadow map's blocks' depth bounds (shadow_bounds.h), four lanes at a
** time: a least or greatest of floats is exact, so the lanes' order changes no bit. */
#include "shadow_bounds.h"

#include "simd4.h"

#ifdef __SSE2__
#include <xmmintrin.h>
#endif

void sn_shadow_bounds_blocks(const float *depth, int32_t size, float *blk, int32_t y0, int32_t y1)
{
    const int32_t nb = size / SN_SHADOW_BLOCK;
    const size_t w = (size_t)size;
    for (int32_t y = y0; y < y1; y += SN_SHADOW_BLOCK) {
        const float *r = depth + (size_t)y * w;
        float *out = blk + 2 * (size_t)(y / SN_SHADOW_BLOCK) * (size_t)nb;
        for (int32_t x = 0; x < size; x += 4 * SN_SHADOW_BLOCK) { /* four blocks */
            v4f lo[4], hi[4];
            for (int j = 0; j < 4; j++) { /* block j's columns over its four rows */
                const float *p = r + x + 4 * j;
                const v4f a = v4_load(p), b = v4_load(p + w), c = v4_load(p + 2 * w), d = v4_load(p + 3 * w);
                lo[j] = v4_min(v4_min(a, b), v4_min(c, d)), hi[j] = v4_max(v4_max(a, b), v4_max(c, d));
            }
            /* across each block's columns: lane j of the result is block j's */
            float *o = out + 2 * (x / SN_SHADOW_BLOCK);
#ifdef __SSE2__
            __m128 l0 = (__m128)lo[0], l1 = (__m128)lo[1], l2 = (__m128)lo[2], l3 = (__m128)lo[3];
            __m128 h0 = (__m128)hi[0], h1 = (__m128)hi[1], h2 = (__m128)hi[2], h3 = (__m128)hi[3];
            _MM_TRANSPOSE4_PS(l0, l1, l2, l3);
            _MM_TRANSPOSE4_PS(h0, h1, h2, h3);
            const __m128 mn = _mm_min_ps(_mm_min_ps(l0, l1), _mm_min_ps(l2, l3)),
                         mx = _mm_max_ps(_mm_max_ps(h0, h1), _mm_max_ps(h2, h3));
            _mm_storeu_ps(o, _mm_unpacklo_ps(mn, mx)), _mm_storeu_ps(o + 4, _mm_unpackhi_ps(mn, mx));
#else
            for (int j = 0; j < 4; j++) {
                float mn = lo[j][0], mx = hi[j][0];
                for (int l = 1; l < 4; l++)
                    mn = lo[j][l] < mn ? lo[j][l] : mn, mx = hi[j][l] > mx ? hi[j][l] : mx;
                o[2 * j] = mn, o[2 * j + 1] = mx;
            }
#endif
        }
    }
}

/* one block's pair over itself and its right neighbour in rows a and b (the last column alone) */
static void reach_one(const float *a, const float *b, int32_t bx, int32_t nb, float *out)
{
    const int32_t nx = bx + 1 < nb ? bx + 1 : bx;
    float mn = a[2 * bx], mx = a[2 * bx + 1];
    const float m[3] = {a[2 * nx], b[2 * bx], b[2 * nx]}, M[3] = {a[2 * nx + 1], b[2 * bx + 1], b[2 * nx + 1]};
    for (int k = 0; k < 3; k++)
        mn = m[k] < mn ? m[k] : mn, mx = M[k] > mx ? M[k] : mx;
    out[2 * bx] = mn, out[2 * bx + 1] = mx;
}

void sn_shadow_bounds_reach(const float *blk, int32_t size, float *reach, int32_t by0, int32_t by1)
{
    const int32_t nb = size / SN_SHADOW_BLOCK;
    const v4i even = {-1, 0, -1, 0}; /* the pairs' least in even lanes, greatest in odd ones */
    for (int32_t by = by0; by < by1; by++) {
        const float *a = blk + 2 * (size_t)by * (size_t)nb, *b = by + 1 < nb ? a + 2 * (size_t)nb : a;
        float *out = reach + 2 * (size_t)by * (size_t)nb;
        int32_t bx = 0;
        for (; bx + 2 < nb; bx += 2) { /* blocks bx and bx + 1, each with its right neighbour */
            const v4f a0 = v4_load(a + 2 * bx), a1 = v4_load(a + 2 * bx + 2), b0 = v4_load(b + 2 * bx),
                      b1 = v4_load(b + 2 * bx + 2);
            const v4f lo = v4_min(v4_min(a0, a1), v4_min(b0, b1)), hi = v4_max(v4_max(a0, a1), v4_max(b0, b1));
            v4_store(out + 2 * bx, v4_sel(even, lo, hi));
        }
        for (; bx < nb; bx++)
            reach_one(a, b, bx, nb, out);
    }
}
