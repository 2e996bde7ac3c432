/* shadow_lookup.h — what the fast shadow lookup needs of a map (shadow.c fills it once a call)
** and its tent, shared by the four-lane loop (shadow.c) and the eight-lane one (shadow_avx2.c) so
** that both make the same float operations in the same order: the same bits. The tent needs SSE2. */
#ifndef SN_SHADOW_LOOKUP_H
#define SN_SHADOW_LOOKUP_H

#include "shadow.h"
#include "shadow_bounds.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

/* The map's frame in float, the eye's terms already taken out (in double, once). */
typedef struct sn_shadow_lookup {
    const float *depth; /* SN_SHADOW_SIZE rows */
    const float *reach; /* the 8 x 8 regions' (least, greatest) (shadow_bounds.h); NULL: not used */
    const float *win;   /* each pair of windows' least (shadow_window.h); NULL: not used */
    float su[3], sv[3], sd[3], scale, U0, V0, D0, texel, bias;
} sn_shadow_lookup;

#ifdef __SSE2__
/* The tent of sn_shadow_visibility for one point of depth d whose window starts at texel
** (x - 1, y - 1), fractions (fx, fy), without a branch on the comparisons (shadow edges make them
** a coin toss): the four rows' comparisons transposed, so that lane j adds row j's term
** ((texel 0's 1 - fx or 0) + texels 1 and 2 counted) + (texel 3's fx or 0), times row j's weight
** (1 - fy, 1, 1, fy); then the lanes' sum in row order (a row all in shadow adds +0, which
** changes nothing). Wholly lit or wholly shadowed (the weights sum to 9): 1 or 0. */
static inline float sn_shadow_tent(const float *depth, int32_t x, int32_t y, float fx, float fy, float d)
{
    const float *row0 = depth + (size_t)(y - 1) * SN_SHADOW_SIZE + (x - 1);
    const __m128 vd = _mm_set1_ps(d);
    __m128 c0 = _mm_cmple_ps(vd, _mm_loadu_ps(row0)), c1 = _mm_cmple_ps(vd, _mm_loadu_ps(row0 + SN_SHADOW_SIZE));
    __m128 c2 = _mm_cmple_ps(vd, _mm_loadu_ps(row0 + 2 * SN_SHADOW_SIZE));
    __m128 c3 = _mm_cmple_ps(vd, _mm_loadu_ps(row0 + 3 * SN_SHADOW_SIZE));
    const int all = _mm_movemask_ps(_mm_and_ps(_mm_and_ps(c0, c1), _mm_and_ps(c2, c3))),
              any = _mm_movemask_ps(_mm_or_ps(_mm_or_ps(c0, c1), _mm_or_ps(c2, c3)));
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
    const __m128i mid = _mm_sub_epi32(_mm_setzero_si128(), _mm_add_epi32(_mm_castps_si128(c1), _mm_castps_si128(c2)));
    const __m128 row = _mm_add_ps(_mm_add_ps(_mm_and_ps(c0, _mm_set1_ps(1 - fx)), _mm_cvtepi32_ps(mid)),
                                  _mm_and_ps(c3, _mm_set1_ps(fx)));
    float t[4];
    _mm_storeu_ps(t, _mm_mul_ps(row, _mm_setr_ps(1 - fy, 1, 1, fy)));
    const float sum = ((t[0] + t[1]) + t[2]) + t[3];
    return all == 15 ? 1 : !any ? 0 : sum * (1.0f / 9);
}
#endif

/* Whether depth d lies beyond every texel of the 8 x 8 region holding the window at (x - 1, y - 1)
** (shadow_bounds.h): the tent's 0, without its 16 comparisons. A NaN d is not. */
static inline bool sn_shadow_far(const sn_shadow_lookup *L, int32_t x, int32_t y, float d)
{
    const size_t nb = SN_SHADOW_SIZE / SN_SHADOW_BLOCK;
    return L->reach && d > L->reach[2 * ((size_t)(y - 1) / SN_SHADOW_BLOCK * nb + (size_t)(x - 1) / SN_SHADOW_BLOCK) + 1];
}

/* sn_shadow_visibility_fast's loop eight points at a time (shadow_avx2.c, CPUs with AVX2), n a
** multiple of 8: the four-lane loop's operations lane for lane. */
void sn_shadow_visibility_avx2(const sn_shadow_lookup *L, const float *dx, const float *dy, const float *dz,
                               const float *nx, const float *ny, const float *nz, float *vis, size_t n);

#endif
