/* lamps_avx2.c — the street lamps' fast path four lamps at a time (headlights.h
** sn_lamps_sum_avx2; docs/rendering.md "Night"). The vector, the distance, the facing, the
** square root, the division, the window and the table's falloff of four lamps run in double lanes;
** each product, sum, square root and division rounds as headlights.c's one-lamp loop's (IEEE, no
** FMA, the same order), and the lamps are then added one by one in the cell's order, so the sum
** has the loop's bits (tests/unit/test_night_fast.c compares them). The shadow's lookup takes
** its direction cell from the lanes and tests the lamp's actor boxes' spheres four at a time;
** what the lanes leave (a headlight, a point steeply above a head, a lamp near the shadow's
** threshold, the boxes' slabs, the scenery) is the loop's own code. Built for AVX2 (`#pragma GCC
** target`), called only where the CPU has it (lanes.h). */
#include "headlights.h"
#include "lampshadow.h"
#include "nightlights.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include <immintrin.h>

/* Which of four items (bits 0-3) have occluders. */
static inline unsigned shadowed(const uint8_t *kind)
{
    return (kind[0] >> 1 & 1) | (kind[1] & 2) | (kind[2] << 1 & 4) | (kind[3] << 2 & 8);
}

/* lampshadow.c sn_lamp_dir_cell in four lanes: its operations one for one, so its cells */
static inline __m128i dir_cells(__m256d vx, __m256d vy, __m256d vz)
{
    const __m256d sign = _mm256_set1_pd(-0.0), zero = _mm256_setzero_pd();
    const __m256d x = _mm256_xor_pd(vx, sign), y = _mm256_xor_pd(vy, sign), z = _mm256_xor_pd(vz, sign);
    const __m256d h = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y)));
    const __m256d ax = _mm256_andnot_pd(sign, x), ay = _mm256_andnot_pd(sign, y), az = _mm256_andnot_pd(sign, z);
    /* pseudo_az: y / (|x| + |y|), unfolded by the signs; 1 (pi / 2) straight down or up */
    const __m256d a = _mm256_div_pd(y, _mm256_add_pd(ax, ay));
    const __m256d back = _mm256_blendv_pd(_mm256_sub_pd(_mm256_set1_pd(-2), a), _mm256_sub_pd(_mm256_set1_pd(2), a),
                                          _mm256_cmp_pd(y, zero, _CMP_GE_OQ));
    __m256d pa = _mm256_blendv_pd(back, a, _mm256_cmp_pd(x, zero, _CMP_GE_OQ));
    pa = _mm256_blendv_pd(_mm256_set1_pd(1), pa, _mm256_cmp_pd(h, _mm256_set1_pd(1e-12), _CMP_GT_OQ));
    const __m256d pe = _mm256_div_pd(z, _mm256_add_pd(az, h));
    /* bin_a, bin_e: g > 0 ? (g < N ? (int)g : N - 1) : 0 */
    const __m256d ga = _mm256_mul_pd(_mm256_add_pd(pa, _mm256_set1_pd(2)), _mm256_set1_pd(SN_LAMP_CELLS_A / 4.0));
    const __m256d ge = _mm256_mul_pd(_mm256_add_pd(pe, _mm256_set1_pd(1)), _mm256_set1_pd(SN_LAMP_CELLS_E / 2.0));
    const __m256d na1 = _mm256_set1_pd(SN_LAMP_CELLS_A - 1), ne1 = _mm256_set1_pd(SN_LAMP_CELLS_E - 1);
    const __m256d ca =
        _mm256_and_pd(_mm256_blendv_pd(na1, ga, _mm256_cmp_pd(ga, _mm256_set1_pd(SN_LAMP_CELLS_A), _CMP_LT_OQ)),
                      _mm256_cmp_pd(ga, zero, _CMP_GT_OQ));
    const __m256d ce =
        _mm256_and_pd(_mm256_blendv_pd(ne1, ge, _mm256_cmp_pd(ge, _mm256_set1_pd(SN_LAMP_CELLS_E), _CMP_LT_OQ)),
                      _mm256_cmp_pd(ge, zero, _CMP_GT_OQ));
    return _mm_add_epi32(_mm_mullo_epi32(_mm256_cvttpd_epi32(ce), _mm_set1_epi32(SN_LAMP_CELLS_A)),
                         _mm256_cvttpd_epi32(ca));
}

void sn_lamp_dir_cells_avx2(const double vx[4], const double vy[4], const double vz[4], uint32_t cell[4])
{
    _mm_storeu_si128((__m128i *)cell, dir_cells(_mm256_loadu_pd(vx), _mm256_loadu_pd(vy), _mm256_loadu_pd(vz)));
}

/* lampshadow.c sn_lamp_occluded_cell with the boxes' bounding spheres four at a time: each sphere's
** test with its operations one for one (the same boxes pass), then the slabs of those that pass,
** then the scenery. The answer is whether any of them cuts the segment: the same. */
static inline bool occluded(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell)
{
    const size_t st = L->occ_lane_n;
    const double *CX = L->occ_lane, *CY = CX + st, *CZ = CY + st, *RR = CZ + st;
    const __m256d px = _mm256_set1_pd(p.x), py = _mm256_set1_pd(p.y), pz = _mm256_set1_pd(p.z);
    const __m256d vx = _mm256_set1_pd(v.x), vy = _mm256_set1_pd(v.y), vz = _mm256_set1_pd(v.z), dd = _mm256_set1_pd(d);
    const __m256d zero = _mm256_setzero_pd(), sign = _mm256_set1_pd(-0.0);
    /* |v|^2 (a relative 1e-6 to spare), and 1e-6 m^2 added to rad^2: the rounding of either test
    ** is under 1e-14 |rel|^2 (|v|^2 on this side), |rel| under 200 m */
    const __m256d vv = _mm256_set1_pd((v.x * v.x + v.y * v.y + v.z * v.z) * (1 + 1e-6)), spare = _mm256_set1_pd(1e-6);
    const uint32_t k1 = s->occ_first + s->occ_n;
    for (uint32_t k = s->occ_first; k < k1; k += 4) {
        const __m256d rx = _mm256_sub_pd(px, _mm256_loadu_pd(CX + k)), ry = _mm256_sub_pd(py, _mm256_loadu_pd(CY + k)),
                      rz = _mm256_sub_pd(pz, _mm256_loadu_pd(CZ + k));
        const __m256d rr = _mm256_loadu_pd(RR + k);
        /* first, without a division, the line through the segment against the sphere: |rel x v|^2
        ** > rad^2 |v|^2 (with the margin) puts the sphere off the line, so off the segment, and the
        ** exact test below would pass it over too (it only ever passes over more) */
        const __m256d cx = _mm256_sub_pd(_mm256_mul_pd(ry, vz), _mm256_mul_pd(rz, vy)),
                      cy = _mm256_sub_pd(_mm256_mul_pd(rz, vx), _mm256_mul_pd(rx, vz)),
                      cz = _mm256_sub_pd(_mm256_mul_pd(rx, vy), _mm256_mul_pd(ry, vx));
        const __m256d cc =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(cx, cx), _mm256_mul_pd(cy, cy)), _mm256_mul_pd(cz, cz));
        unsigned in =
            (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(cc, _mm256_mul_pd(_mm256_add_pd(rr, spare), vv), _CMP_LE_OQ));
        if (k1 - k < 4)
            in &= (1u << (k1 - k)) - 1; /* the next lamp's boxes */
        if (!in)
            continue;
        /* the exact test: rel = p - c; tc = -(rel . v) / d clamped to [0, d]; near = rel + v (tc / d) */
        const __m256d rv =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(rx, vx), _mm256_mul_pd(ry, vy)), _mm256_mul_pd(rz, vz));
        __m256d tc = _mm256_div_pd(_mm256_xor_pd(rv, sign), dd);
        tc = _mm256_blendv_pd(_mm256_blendv_pd(tc, dd, _mm256_cmp_pd(tc, dd, _CMP_GT_OQ)), zero,
                              _mm256_cmp_pd(tc, zero, _CMP_LT_OQ));
        const __m256d f = _mm256_div_pd(tc, dd);
        const __m256d nx = _mm256_add_pd(rx, _mm256_mul_pd(vx, f)), ny = _mm256_add_pd(ry, _mm256_mul_pd(vy, f)),
                      nz = _mm256_add_pd(rz, _mm256_mul_pd(vz, f));
        const __m256d nn =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(nx, nx), _mm256_mul_pd(ny, ny)), _mm256_mul_pd(nz, nz));
        in &= (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(nn, rr, _CMP_NGT_UQ));
        for (; in; in &= in - 1)
            if (sn_lamp_box_cut(&L->occ[k + (unsigned)__builtin_ctz(in)], p, v, d))
                return true;
    }
    return sn_lamp_scenery_cut(L, s, p, v, d, cell);
}

bool sn_lamp_occluded_avx2(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell)
{
    return occluded(L, s, p, v, d, cell);
}

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
        const __m256d d2 =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(vx, vx), _mm256_mul_pd(vy, vy)), _mm256_mul_pd(vz, vz));
        const __m256d dot =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(n0, vx), _mm256_mul_pd(n1, vy)), _mm256_mul_pd(n2, vz));
        /* in range, not at the lamp, facing it (facing away: the exact form gives 0 too); each test
        ** as the loop's "skip" negated, so a NaN (a degenerate face's normal) stays, as there */
        __m256d live = _mm256_and_pd(_mm256_cmp_pd(d2, _mm256_loadu_pd(R2 + k), _CMP_NGE_UQ),
                                     _mm256_cmp_pd(d2, tiny, _CMP_NLT_UQ));
        live = _mm256_and_pd(live, _mm256_cmp_pd(dot, zero, _CMP_NLE_UQ));
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
        const __m256d a =
            _mm256_set_m128d(_mm_loadu_pd(tab + _mm_extract_epi32(i, 2)), _mm_loadu_pd(tab + _mm_cvtsi128_si32(i)));
        const __m256d b =
            _mm256_set_m128d(_mm_loadu_pd(tab + _mm_extract_epi32(i, 3)), _mm_loadu_pd(tab + _mm_extract_epi32(i, 1)));
        const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
        const __m256d fall =
            _mm256_add_pd(t0, _mm256_mul_pd(_mm256_sub_pd(t1, t0), _mm256_sub_pd(t, _mm256_cvtepi32_pd(i))));
        const __m256d e =
            _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_loadu_pd(I + k), fall), dot), win), r);
        const unsigned cm = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(c, cmin, _CMP_GT_OQ));
        /* the shadows' direction cells, where a lamp in reach has occluders (not waiting for e: a
        ** branch on it mispredicts, and the cells' own square root and divisions then overlap e's) */
        uint32_t CELL[4];
        if (lm & shadowed(L->lane_kind + k))
            _mm_storeu_si128((__m128i *)CELL, dir_cells(vx, vy, vz));
        double E[4], D[4], VX[4], VY[4], VZ[4], D2[4], DOT[4];
        _mm256_storeu_pd(E, e), _mm256_storeu_pd(D, d), _mm256_storeu_pd(VX, vx), _mm256_storeu_pd(VY, vy);
        _mm256_storeu_pd(VZ, vz), _mm256_storeu_pd(D2, d2), _mm256_storeu_pd(DOT, dot);
        /* the lamps one by one, in the cell's order: the loop's decisions and its sum */
        for (; lm; lm &= lm - 1) {
            const unsigned j = (unsigned)__builtin_ctz(lm);
            const uint8_t kind = L->lane_kind[k + j];
            if ((kind & SN_LANE_STREET) && (cm >> j & 1) && DOT[j] > 0) {
                const bool look = (kind & SN_LANE_SHADOW) && E[j] >= look_lo;
                if (!look) {
                    sum += E[j];
                    continue;
                }
                if (E[j] >= look_hi) {
                    const sn_spot *s = &L->spots[L->items[k + j]];
                    if (!occluded(L, s, p, sn_v3(VX[j], VY[j], VZ[j]), D[j], CELL[j]))
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
