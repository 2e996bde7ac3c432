/* lamps_avx2.c — the street lamps' fast path four lamps at a time (headlights.h
** sn_lamps_sum_avx2; docs/rendering.md "Night"). The vector, the distance, the facing, the
** square root, the division, the window and the table's falloff of four lamps run in double lanes;
** each product, sum, square root and division rounds as headlights.c's one-lamp loop's (IEEE, no
** FMA, the same order), and the lamps are then added one by one in the cell's order, so the sum
** has the loop's bits (tests/unit/test_night_fast.c compares them). What the lanes leave (the
** shadow's lookup, a headlight, a point steeply above a head, a lamp near the shadow's
** threshold) is the loop's own code, lamp by lamp. Built for AVX2 (`#pragma GCC target`),
** called only where the CPU has it (lanes.h). */
#include "headlights.h"
#include "lampshadow.h"
#include "nightlights.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include <immintrin.h>

double sn_lamps_sum_avx2(const sn_lamps *L, uint32_t k0, uint32_t k1, sn_vec3 p, const float n[3])
{
    const size_t st = L->lane_n;
    const double *X = L->lane, *Y = X + st, *Z = Y + st, *R2 = Z + st, *I = R2 + st;
    const __m256d px = _mm256_set1_pd(p.x), py = _mm256_set1_pd(p.y), pz = _mm256_set1_pd(p.z);
    const __m256d n0 = _mm256_set1_pd(n[0]), n1 = _mm256_set1_pd(n[1]), n2 = _mm256_set1_pd(n[2]);
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1), tiny = _mm256_set1_pd(1e-12);
    const __m256d cmin = _mm256_set1_pd(SN_STREET_FALLOFF_MIN);
    const __m256d tscale = _mm256_set1_pd(SN_STREET_FALLOFF_N / (1 - SN_STREET_FALLOFF_MIN));
    const __m256d inv_r2 = _mm256_set1_pd(1 / (SN_STREET_LAMP_RANGE * SN_STREET_LAMP_RANGE));
    const __m128i i_lo = _mm_setzero_si128(), i_hi = _mm_set1_epi32(SN_STREET_FALLOFF_N - 1);
    const double look_lo = SN_LAMP_SHADOW_MIN * (1 - 1e-4), look_hi = SN_LAMP_SHADOW_MIN * (1 + 1e-4);
    double sum = 0;
    for (uint32_t k = k0; k < k1; k += 4) {
        /* v = lamp - p, |v|^2 and n . v in the loop's order */
        const __m256d vx = _mm256_sub_pd(_mm256_loadu_pd(X + k), px), vy = _mm256_sub_pd(_mm256_loadu_pd(Y + k), py),
                      vz = _mm256_sub_pd(_mm256_loadu_pd(Z + k), pz);
        const __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(vx, vx), _mm256_mul_pd(vy, vy)), _mm256_mul_pd(vz, vz));
        const __m256d dot = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(n0, vx), _mm256_mul_pd(n1, vy)), _mm256_mul_pd(n2, vz));
        /* in range, not at the lamp, facing it (facing away: the exact form gives 0 too) */
        __m256d live = _mm256_and_pd(_mm256_cmp_pd(d2, _mm256_loadu_pd(R2 + k), _CMP_LT_OQ),
                                     _mm256_cmp_pd(d2, tiny, _CMP_GE_OQ));
        live = _mm256_and_pd(live, _mm256_cmp_pd(dot, zero, _CMP_GT_OQ));
        unsigned lm = (unsigned)_mm256_movemask_pd(live);
        if (k1 - k < 4)
            lm &= (1u << (k1 - k)) - 1; /* past the cell's end */
        if (!lm)
            continue;
        /* the fast path (street lamps; computed in every lane, used in theirs) */
        const __m256d d = _mm256_sqrt_pd(d2), m = _mm256_blendv_pd(one, d2, _mm256_cmp_pd(d2, one, _CMP_GT_OQ));
        const __m256d r = _mm256_div_pd(one, _mm256_mul_pd(d, m)), c = _mm256_mul_pd(vz, _mm256_mul_pd(r, m));
        const __m256d f = _mm256_mul_pd(d2, inv_r2), w1 = _mm256_sub_pd(one, _mm256_mul_pd(f, f));
        const __m256d win = _mm256_mul_pd(w1, w1);
        /* nightlights.h sn_street_falloff: the index clamped both ways here only so the lanes the
        ** table does not serve (c <= its minimum, slack) read inside it */
        const __m256d t = _mm256_mul_pd(_mm256_sub_pd(c, cmin), tscale);
        const __m128i i = _mm_min_epi32(_mm_max_epi32(_mm256_cvttpd_epi32(t), i_lo), i_hi);
        /* each lane's two entries in one load, not two gathers (slower here: measured) */
        const double *tab = sn_street_falloff_tab;
        const __m256d a = _mm256_set_m128d(_mm_loadu_pd(tab + _mm_extract_epi32(i, 2)), _mm_loadu_pd(tab + _mm_cvtsi128_si32(i)));
        const __m256d b = _mm256_set_m128d(_mm_loadu_pd(tab + _mm_extract_epi32(i, 3)), _mm_loadu_pd(tab + _mm_extract_epi32(i, 1)));
        const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
        const __m256d fall = _mm256_add_pd(t0, _mm256_mul_pd(_mm256_sub_pd(t1, t0), _mm256_sub_pd(t, _mm256_cvtepi32_pd(i))));
        const __m256d e = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(I + k), fall), dot), win), r);
        const unsigned cm = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(c, cmin, _CMP_GT_OQ));
        double E[4], D[4], VX[4], VY[4], VZ[4], D2[4], DOT[4];
        _mm256_storeu_pd(E, e), _mm256_storeu_pd(D, d), _mm256_storeu_pd(VX, vx), _mm256_storeu_pd(VY, vy);
        _mm256_storeu_pd(VZ, vz), _mm256_storeu_pd(D2, d2), _mm256_storeu_pd(DOT, dot);
        /* the lamps one by one, in the cell's order: the loop's decisions and its sum */
        for (; lm; lm &= lm - 1) {
            const unsigned j = (unsigned)__builtin_ctz(lm);
            const uint8_t kind = L->lane_kind[k + j];
            if ((kind & SN_LANE_STREET) && (cm >> j & 1)) {
                const bool look = (kind & SN_LANE_SHADOW) && E[j] >= look_lo;
                if (!look) {
                    sum += E[j];
                    continue;
                }
                if (E[j] >= look_hi) {
                    const sn_spot *s = &L->spots[L->items[k + j]];
                    if (!sn_lamp_occluded_cell(L, s, p, sn_v3(VX[j], VY[j], VZ[j]), D[j], SN_LAMP_CELL_FROM_V))
                        sum += E[j];
                    continue;
                }
            }
            sum += sn_lamp_exact_light(L, &L->spots[L->items[k + j]], p, sn_v3(VX[j], VY[j], VZ[j]), D2[j], DOT[j]);
        }
    }
    return sum;
}
#endif
