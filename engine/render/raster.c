/* raster.c — one screen triangle into the depth and id buffers (raster.h). */
#include "raster.h"

#include "lanes.h"

#include <math.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define SUB SN_RASTER_SUB
#define ONE (1 << SUB)

/* Narrows [*xs, *xe] to the pixels x where an edge function e(x) = e + s (x - x0) is >= 0
** (exactly: a floating estimate, corrected in integers). inv: 1 / s, once a triangle (the
** estimate may be a pixel off the division's; the integer steps below find the same k). */
static void span_edge(int64_t e, int64_t s, double inv, int32_t *xs, int32_t *xe, int32_t x0)
{
    if (s == 0) {
        if (e < 0)
            *xe = *xs - 1;
        return;
    }
    int64_t k = (int64_t)((double)-e * inv); /* e + s k crosses 0 near here */
    if (s > 0) { /* rising: from the first k with e + s k >= 0 */
        while (e + s * k < 0)
            k++;
        while (e + s * (k - 1) >= 0)
            k--;
        if (x0 + k > *xs)
            *xs = (int32_t)(x0 + k > INT32_MAX ? INT32_MAX : x0 + k);
    } else { /* falling: up to the last k with e + s k >= 0 */
        while (e + s * k < 0)
            k--;
        while (e + s * (k + 1) >= 0)
            k++;
        if (x0 + k < *xe)
            *xe = (int32_t)(x0 + k < INT32_MIN + 1 ? INT32_MIN + 1 : x0 + k);
    }
}

#ifdef __SSE2__
/* a * b lane by lane, low 32 bits (SSE4.1's _mm_mullo_epi32 from SSE2's 32 x 32 -> 64 products) */
static inline __m128i mullo32(__m128i a, __m128i b)
{
    __m128i even = _mm_mul_epu32(a, b), odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));
    return _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)), _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
}
#endif

/* Whether triangle t spans under 64 pixels each way: its edge functions at its pixels then fit
** in 32 bits (|dx (py - Y)| < 2^14 2^14.1), so raster_small may run them there. */
static bool small_tri(const sn_tri *t)
{
    int32_t minX = t->X[0], maxX = t->X[0], minY = t->Y[0], maxY = t->Y[0];
    for (int i = 1; i < 3; i++) {
        minX = t->X[i] < minX ? t->X[i] : minX, maxX = t->X[i] > maxX ? t->X[i] : maxX;
        minY = t->Y[i] < minY ? t->Y[i] : minY, maxY = t->Y[i] > maxY ? t->Y[i] : maxY;
    }
    return maxX - minX < 64 * ONE && maxY - minY < 64 * ONE;
}

/* raster() for a small triangle: 32-bit edge functions, and every pixel of the box tested
** without branches (a triangle of a few pixels a row mispredicts its span's ends otherwise).
** The same values as raster's 64-bit ones, so the same pixels. */
static void raster_small(const sn_raster_target *r, const sn_tri *t, uint32_t ti, int32_t ya, int32_t yb, const int64_t dx[3],
                         const int64_t dy[3], const int64_t bias[3])
{
    const uint32_t W = r->W;
    const int64_t px0 = (int64_t)t->x0 * ONE + ONE / 2;
    const int32_t s0 = (int32_t)(-dy[0] * ONE), s1 = (int32_t)(-dy[1] * ONE), s2 = (int32_t)(-dy[2] * ONE);
    const float wa = t->wa;
    /* the edge functions at the first pixel of row ya, then stepped down a row at a time (exact) */
    const int64_t py0 = (int64_t)ya * ONE + ONE / 2;
    int32_t f0 = (int32_t)(dx[0] * (py0 - t->Y[0]) - dy[0] * (px0 - t->X[0]) + bias[0]);
    int32_t f1 = (int32_t)(dx[1] * (py0 - t->Y[1]) - dy[1] * (px0 - t->X[1]) + bias[1]);
    int32_t f2 = (int32_t)(dx[2] * (py0 - t->Y[2]) - dy[2] * (px0 - t->X[2]) + bias[2]);
    const int32_t r0 = (int32_t)(dx[0] * ONE), r1 = (int32_t)(dx[1] * ONE), r2 = (int32_t)(dx[2] * ONE);
#ifdef __SSE2__
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
    const __m128i ds0 = _mm_set1_epi32(4 * s0), ds1 = _mm_set1_epi32(4 * s1), ds2 = _mm_set1_epi32(4 * s2);
    const __m128i l0 = mullo32(_mm_set1_epi32(s0), lane), l1 = mullo32(_mm_set1_epi32(s1), lane);
    const __m128i l2 = mullo32(_mm_set1_epi32(s2), lane);
    const __m128 vwa = _mm_set1_ps(wa), four = _mm_set1_ps(4);
    const __m128i vti = _mm_set1_epi32((int32_t)ti);
#endif
    for (int32_t y = ya; y <= yb; y++, f0 += r0, f1 += r1, f2 += r2) {
        int32_t e0 = f0, e1 = f1, e2 = f2;
        const float row = t->wb * (float)y + t->wc;
        float *wr = r->wbuf + (size_t)(y - r->y0) * W;
        uint32_t *ir = r->idbuf ? r->idbuf + (size_t)(y - r->y0) * W : NULL;
        float fx = (float)t->x0;
        int32_t x = t->x0;
#ifdef __SSE2__
        /* four pixels at a time, the same arithmetic as the loop below (IEEE single, exact
        ** integers); lanes past x1 keep their values; never past the row's end */
        __m128i v0 = _mm_add_epi32(_mm_set1_epi32(e0), l0), v1 = _mm_add_epi32(_mm_set1_epi32(e1), l1);
        __m128i v2 = _mm_add_epi32(_mm_set1_epi32(e2), l2);
        __m128 vfx = _mm_add_ps(_mm_set1_ps(fx), _mm_setr_ps(0, 1, 2, 3));
        const __m128 vrow = _mm_set1_ps(row);
        for (; x <= t->x1 && x + 4 <= (int32_t)W; x += 4) {
            __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32(t->x1 - x + 1), lane);
            in = _mm_andnot_si128(_mm_srai_epi32(_mm_or_si128(_mm_or_si128(v0, v1), v2), 31), in);
            __m128 w = _mm_add_ps(vrow, _mm_mul_ps(vwa, vfx)), old = _mm_loadu_ps(wr + x);
            __m128i m = _mm_and_si128(in, _mm_castps_si128(_mm_cmpgt_ps(w, old)));
            _mm_storeu_ps(wr + x, _mm_or_ps(_mm_and_ps(_mm_castsi128_ps(m), w), _mm_andnot_ps(_mm_castsi128_ps(m), old)));
            if (ir) {
                __m128i ids = _mm_loadu_si128((const __m128i *)(ir + x));
                _mm_storeu_si128((__m128i *)(ir + x), _mm_or_si128(_mm_and_si128(m, vti), _mm_andnot_si128(m, ids)));
            }
            v0 = _mm_add_epi32(v0, ds0), v1 = _mm_add_epi32(v1, ds1), v2 = _mm_add_epi32(v2, ds2);
            vfx = _mm_add_ps(vfx, four);
        }
        if (x > t->x1)
            continue;
        fx = (float)x;
        e0 += s0 * (x - t->x0), e1 += s1 * (x - t->x0), e2 += s2 * (x - t->x0);
#endif
        for (; x <= t->x1; x++, fx += 1.0f, e0 += s0, e1 += s1, e2 += s2) {
            /* masks, not branches: all ones where the triangle covers the pixel and is nearer */
            float w = row + wa * fx, old = wr[x];
            uint32_t m = (((uint32_t)(e0 | e1 | e2) >> 31) - 1u) & -(uint32_t)(w > old), wbits, obits;
            memcpy(&wbits, &w, 4);
            memcpy(&obits, &old, 4);
            obits = (wbits & m) | (obits & ~m);
            memcpy(&wr[x], &obits, 4);
            if (ir)
                ir[x] = (ti & m) | (ir[x] & ~m);
        }
    }
}

#ifdef __SSE2__
/* Whether every edge function of t is within 32 bits at every pixel centre of its box, rows ya..yb
** (a narrow tall triangle's, which small_tri refuses): each is linear, so its largest magnitude
** over the box is at a corner. The lanes below then hold the exact values (their 32-bit sums and
** products are the true ones modulo 2^32, and a value that fits is its own residue). */
static bool box_fits32(const sn_tri *t, int32_t ya, int32_t yb)
{
    const int64_t px[2] = {(int64_t)t->x0 * ONE + ONE / 2, (int64_t)t->x1 * ONE + ONE / 2};
    const int64_t py[2] = {(int64_t)ya * ONE + ONE / 2, (int64_t)yb * ONE + ONE / 2};
    for (int e = 0; e < 3; e++) {
        const int n = e == 2 ? 0 : e + 1;
        const int64_t dx = (int64_t)t->X[n] - t->X[e], dy = (int64_t)t->Y[n] - t->Y[e];
        for (int c = 0; c < 4; c++) {
            const int64_t v = dx * (py[c >> 1] - t->Y[e]) - dy * (px[c & 1] - t->X[e]);
            if (v > INT32_MAX - 1 || v < INT32_MIN + 1) /* the tie bias (0 or -1) on top */
                return false;
        }
    }
    return true;
}

#define MAX_GROUPS 6 /* raster_groups: boxes under 24 pixels wide (wider ones are solved by spans) */
/* raster_small() for a box of G <= MAX_GROUPS groups of four pixels a row, all inside the row:
** whatever does not change from row to row (the groups' wa x, which of their lanes are inside the
** box, the edge functions' steps) found once per triangle, not once per row and group. Most
** triangles of a dense mesh are a few pixels, so this per-triangle and per-row work is what
** costs. The same integers and IEEE single operations as raster_small: the same pixels and depths. */
static inline __attribute__((always_inline)) bool raster_groups(const sn_raster_target *r, const sn_tri *t, uint32_t ti,
                                                                int32_t ya, int32_t yb, int32_t G, bool ids)
{
    const uint32_t W = r->W;
    /* lanes: edges 0, 1, 2 (corner k to corner k + 1) and a spare; loaded field by field (setup
    ** stored them so, and one wide load of recent narrow stores would stall) */
    const __m128i X = _mm_setr_epi32(t->X[0], t->X[1], t->X[2], 0), Y = _mm_setr_epi32(t->Y[0], t->Y[1], t->Y[2], 0);
    const __m128i dx = _mm_sub_epi32(_mm_shuffle_epi32(X, _MM_SHUFFLE(3, 0, 2, 1)), X);
    const __m128i dy = _mm_sub_epi32(_mm_shuffle_epi32(Y, _MM_SHUFFLE(3, 0, 2, 1)), Y);
    /* small_tri(): every edge under 64 pixels each way (all three differences of the corners) */
    const __m128i lim = _mm_set1_epi32(64 * ONE), nlim = _mm_set1_epi32(-64 * ONE), zero = _mm_setzero_si128();
    const __m128i small = _mm_and_si128(_mm_and_si128(_mm_cmplt_epi32(dx, lim), _mm_cmpgt_epi32(dx, nlim)),
                                        _mm_and_si128(_mm_cmplt_epi32(dy, lim), _mm_cmpgt_epi32(dy, nlim)));
    if ((_mm_movemask_ps(_mm_castsi128_ps(small)) & 7) != 7 && !box_fits32(t, ya, yb))
        return false;
    /* raster()'s tie bias: 0 on an edge with dy < 0, or dy = 0 and dx > 0; else -1 */
    const __m128i bias = _mm_xor_si128(_mm_or_si128(_mm_cmplt_epi32(dy, zero),
                                                    _mm_and_si128(_mm_cmpeq_epi32(dy, zero), _mm_cmpgt_epi32(dx, zero))),
                                       _mm_set1_epi32(-1));
    /* the edge functions at the centre of pixel (x0, ya): dx (py - Y) - dy (px - X) + bias, exact
    ** in 32 bits for a small triangle (raster_small) */
    const __m128i px0 = _mm_set1_epi32(t->x0 * ONE + ONE / 2), py0 = _mm_set1_epi32(ya * ONE + ONE / 2);
    const __m128i dxy = mullo32(dx, _mm_sub_epi32(py0, Y)), dyx = mullo32(dy, _mm_sub_epi32(px0, X));
    const __m128i f = _mm_add_epi32(_mm_sub_epi32(dxy, dyx), bias);
    const __m128i s = _mm_sub_epi32(zero, _mm_slli_epi32(dy, SUB)), rs = _mm_slli_epi32(dx, SUB);
    const __m128i ds = _mm_slli_epi32(s, 2);
    /* per edge, its values at the row's first four pixels f + s {0, 1, 2, 3} (s on the odd lanes,
    ** 2 s on the upper two), its step a row (r) and a group of four (ds) */
    const __m128i odd = _mm_setr_epi32(0, -1, 0, -1), high = _mm_setr_epi32(0, 0, -1, -1);
    const __m128i s2 = _mm_add_epi32(s, s);
#define BCAST(v, k) _mm_shuffle_epi32(v, _MM_SHUFFLE(k, k, k, k))
#define RAMP(k) _mm_add_epi32(BCAST(f, k), _mm_add_epi32(_mm_and_si128(BCAST(s, k), odd), _mm_and_si128(BCAST(s2, k), high)))
    __m128i v0 = RAMP(0), v1 = RAMP(1), v2 = RAMP(2);
    const __m128i r0 = BCAST(rs, 0), r1 = BCAST(rs, 1), r2 = BCAST(rs, 2);
    const __m128i ds0 = BCAST(ds, 0), ds1 = BCAST(ds, 1), ds2 = BCAST(ds, 2);
#undef RAMP
#undef BCAST
    const __m128i lane = _mm_setr_epi32(0, 1, 2, 3), vti = _mm_set1_epi32((int32_t)ti);
    const __m128 wa = _mm_set1_ps(t->wa);
    __m128 wx[MAX_GROUPS];  /* wa x per lane: the product raster_small forms per row, the same value */
    __m128i in[MAX_GROUPS]; /* the lanes inside the box */
    for (int32_t g = 0; g < G; g++) {
        const float fx = (float)(t->x0 + 4 * g);
        wx[g] = _mm_mul_ps(wa, _mm_setr_ps(fx, fx + 1.0f, fx + 2.0f, fx + 3.0f));
        in[g] = _mm_cmpgt_epi32(_mm_set1_epi32(t->x1 - (t->x0 + 4 * g) + 1), lane);
    }
    float *wr = r->wbuf + (size_t)(ya - r->y0) * W + t->x0;
    uint32_t *ir = ids ? r->idbuf + (size_t)(ya - r->y0) * W + t->x0 : NULL;
    for (int32_t y = ya; y <= yb; y++, wr += W) {
        const __m128 row = _mm_set1_ps(t->wb * (float)y + t->wc);
        __m128i e0 = v0, e1 = v1, e2 = v2;
        for (int32_t g = 0; g < G; g++) {
            const __m128 w = _mm_add_ps(row, wx[g]), old = _mm_loadu_ps(wr + 4 * g);
            __m128i m = _mm_andnot_si128(_mm_srai_epi32(_mm_or_si128(_mm_or_si128(e0, e1), e2), 31), in[g]);
            m = _mm_and_si128(m, _mm_castps_si128(_mm_cmpgt_ps(w, old)));
            const __m128 mf = _mm_castsi128_ps(m);
            _mm_storeu_ps(wr + 4 * g, _mm_or_ps(_mm_and_ps(mf, w), _mm_andnot_ps(mf, old)));
            if (ids) {
                const __m128i was = _mm_loadu_si128((const __m128i *)(ir + 4 * g));
                _mm_storeu_si128((__m128i *)(ir + 4 * g), _mm_or_si128(_mm_and_si128(m, vti), _mm_andnot_si128(m, was)));
            }
            e0 = _mm_add_epi32(e0, ds0), e1 = _mm_add_epi32(e1, ds1), e2 = _mm_add_epi32(e2, ds2);
        }
        v0 = _mm_add_epi32(v0, r0), v1 = _mm_add_epi32(v1, r1), v2 = _mm_add_epi32(v2, r2);
        if (ids)
            ir += W;
    }
    return true;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* A wide triangle's span [x, xe] of a row, eight pixels at a time (CPUs with AVX2, sn_lanes_wide):
** each lane row + wa x and the depth test of sn_raster's four-lane loop (IEEE single, no FMA), so
** the same bits. The last group, under eight, is one more group whose lanes past xe are masked
** off, where the row (W pixels) holds eight from x: those lanes' old values are stored back
** unchanged (the row is this band's alone), and no tail of fours and ones mispredicts its
** length. Returns the first pixel not done (the rest: fewer than eight, at the row's end). */
__attribute__((target("avx2,no-fma"))) static int32_t span8(float *wr, uint32_t *ir, int32_t x, int32_t xe, float row,
                                                             float wa, uint32_t ti, int32_t W)
{
    const __m256 vrow = _mm256_set1_ps(row), vwa = _mm256_set1_ps(wa);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), vti = _mm256_set1_epi32((int32_t)ti);
    for (; x + 7 <= xe; x += 8) {
        const __m256 w = _mm256_add_ps(vrow, _mm256_mul_ps(vwa, _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32(x), lane))));
        const __m256 old = _mm256_loadu_ps(wr + x), m = _mm256_cmp_ps(w, old, _CMP_GT_OQ);
        _mm256_storeu_ps(wr + x, _mm256_blendv_ps(old, w, m));
        if (ir) {
            const __m256 was = _mm256_loadu_ps((const float *)(ir + x));
            _mm256_storeu_ps((float *)(ir + x), _mm256_blendv_ps(was, _mm256_castsi256_ps(vti), m));
        }
    }
    if (x <= xe && x + 8 <= W) {
        const __m256i lx = _mm256_add_epi32(_mm256_set1_epi32(x), lane);
        const __m256 w = _mm256_add_ps(vrow, _mm256_mul_ps(vwa, _mm256_cvtepi32_ps(lx)));
        const __m256 in = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(xe + 1), lx));
        const __m256 old = _mm256_loadu_ps(wr + x), m = _mm256_and_ps(in, _mm256_cmp_ps(w, old, _CMP_GT_OQ));
        _mm256_storeu_ps(wr + x, _mm256_blendv_ps(old, w, m));
        if (ir) {
            const __m256 was = _mm256_loadu_ps((const float *)(ir + x));
            _mm256_storeu_ps((float *)(ir + x), _mm256_blendv_ps(was, _mm256_castsi256_ps(vti), m));
        }
        x = xe + 1;
    }
    return x;
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,no-fma"))) static uint32_t plane8(float *wr, uint32_t *ir, uint32_t x, uint32_t W, float row,
                                                               float wa, float inv_near, float inv_far, uint32_t id,
                                                               bool first)
{
    const __m256 vrow = _mm256_set1_ps(row), vwa = _mm256_set1_ps(wa), vnear = _mm256_set1_ps(inv_near),
                 vfar = _mm256_set1_ps(inv_far), vid = _mm256_castsi256_ps(_mm256_set1_epi32((int32_t)id)),
                 vnone = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; x + 8 <= W; x += 8) {
        const __m256 w = _mm256_add_ps(vrow, _mm256_mul_ps(vwa, _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_set1_epi32((int32_t)x), lane))));
        const __m256 old = first ? vfar : _mm256_loadu_ps(wr + x);
        const __m256 m = _mm256_and_ps(_mm256_cmp_ps(w, old, _CMP_GT_OQ), _mm256_cmp_ps(w, vnear, _CMP_LT_OQ));
        _mm256_storeu_ps(wr + x, _mm256_blendv_ps(old, w, m));
        if (ir) {
            const __m256 was = first ? vnone : _mm256_loadu_ps((const float *)(ir + x));
            _mm256_storeu_ps((float *)(ir + x), _mm256_blendv_ps(was, vid, m));
        }
    }
    return x;
}
#endif

uint32_t sn_raster_plane_row(float *wr, uint32_t *ir, uint32_t x, uint32_t W, float row, float wa, float inv_near,
                             float inv_far, uint32_t id, bool first)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide())
        return first ? (ir ? plane8(wr, ir, x, W, row, wa, inv_near, inv_far, id, true)
                           : plane8(wr, NULL, x, W, row, wa, inv_near, inv_far, id, true))
                     : (ir ? plane8(wr, ir, x, W, row, wa, inv_near, inv_far, id, false)
                           : plane8(wr, NULL, x, W, row, wa, inv_near, inv_far, id, false));
#else
    (void)wr, (void)ir, (void)W, (void)row, (void)wa, (void)inv_near, (void)inv_far, (void)id, (void)first;
#endif
    return x;
}

/* A solved span's pixels x..xe of one row: each nearer (row + wa x) than what the row holds takes
** that depth and the id ti (ir NULL: depth alone); eight at a time where wide8, then four (SSE2),
** then one: the same bits in every width. */
static inline void fill_span(float *wr, uint32_t *ir, int32_t x, int32_t xe, float row, float wa, uint32_t ti,
                             bool wide8, int32_t W)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (wide8)
        x = span8(wr, ir, x, xe, row, wa, ti, W);
#else
    (void)wide8, (void)W;
#endif
#ifdef __SSE2__
    /* four at a time, masks for the branch: each lane row + wa x as below, the same bits */
    const __m128 vrow = _mm_set1_ps(row), vwa = _mm_set1_ps(wa);
    const __m128i vti = _mm_set1_epi32((int32_t)ti);
    for (; x + 3 <= xe; x += 4) {
        const __m128 w = _mm_add_ps(vrow, _mm_mul_ps(vwa, _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32(x),
                                                                                       _mm_setr_epi32(0, 1, 2, 3))))),
                     old = _mm_loadu_ps(wr + x), m = _mm_cmpgt_ps(w, old);
        _mm_storeu_ps(wr + x, _mm_or_ps(_mm_and_ps(m, w), _mm_andnot_ps(m, old)));
        if (ir) {
            const __m128i mi = _mm_castps_si128(m), was = _mm_loadu_si128((const __m128i *)(ir + x));
            _mm_storeu_si128((__m128i *)(ir + x), _mm_or_si128(_mm_and_si128(mi, vti), _mm_andnot_si128(mi, was)));
        }
    }
#endif
    float fx = (float)x;
    for (; x <= xe; x++, fx += 1.0f) {
        float w = row + wa * fx;
        if (w > wr[x]) {
            wr[x] = w;
            if (ir)
                ir[x] = ti;
        }
    }
}

/* Whether any of segments s..s1 of a coarse-depth row (zs long) has a bound below hi (something
** there may be nearer than hi), four at a compare; it stops at the first. The last one to three
** are one more compare of four with the lanes past s1 dropped, where four fit in the row (most
** boxes and spans cross one to three segments: no loop of single compares to mispredict). */
static inline bool seg_nearer(const float *zr, int32_t s, int32_t s1, float hi, int32_t zs)
{
#ifdef __SSE2__
    const __m128 vhi = _mm_set1_ps(hi);
    for (; s + 3 <= s1; s += 4)
        if (_mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(zr + s), vhi)))
            return true;
    if (s <= s1 && s + 4 <= zs)
        return (_mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(zr + s), vhi)) & ((2 << (s1 - s)) - 1)) != 0;
#else
    (void)zs;
#endif
    for (; s <= s1; s++)
        if (zr[s] < hi)
            return true;
    return false;
}

/* Whether pixels x..xe of a row (row + wa x) are nowhere nearer than the row's coarse depth zr:
** then none would pass the depth test. row + wa x in IEEE single is monotonic in x (each rounding
** is), so the pixels' greatest value is at an end, computed as the lanes compute it: exact, with
** no margin. Needs row and wa finite (hidden_ok), so that no pixel's value is NaN. Four segments
** a compare, leaving at the first nearer than the span (no chain of minimums to wait on). */
static inline bool hidden(const float *zr, int32_t x, int32_t xe, float row, float wa, int32_t zs)
{
    const float wl = row + wa * (float)x, wh = row + wa * (float)xe, hi = wl > wh ? wl : wh;
    return !seg_nearer(zr, x >> SN_RASTER_ZSEG_SHIFT, xe >> SN_RASTER_ZSEG_SHIFT, hi, zs);
}

/* After pixels x..xe of a row are drawn: each segment they cover whole has every 1/depth at
** least the span's least there (at one of its ends, as above), so its bound rises to that. */
static inline void raise_z(float *zr, int32_t x, int32_t xe, float row, float wa)
{
    const int32_t s0 = (x + SN_RASTER_ZSEG - 1) >> SN_RASTER_ZSEG_SHIFT, s1 = ((xe + 1) >> SN_RASTER_ZSEG_SHIFT) - 1;
    int32_t s = s0;
#ifdef __SSE2__
    /* four segments at a time: minps and maxps are the two selects below, lane by lane */
    const __m128 vrow = _mm_set1_ps(row), vwa = _mm_set1_ps(wa);
    for (; s + 3 <= s1; s += 4) {
        const __m128i first = _mm_slli_epi32(_mm_add_epi32(_mm_set1_epi32(s), _mm_setr_epi32(0, 1, 2, 3)), SN_RASTER_ZSEG_SHIFT);
        const __m128 a = _mm_add_ps(vrow, _mm_mul_ps(vwa, _mm_cvtepi32_ps(first)));
        const __m128 b = _mm_add_ps(vrow, _mm_mul_ps(vwa, _mm_cvtepi32_ps(_mm_add_epi32(first, _mm_set1_epi32(SN_RASTER_ZSEG - 1)))));
        _mm_storeu_ps(zr + s, _mm_max_ps(_mm_min_ps(a, b), _mm_loadu_ps(zr + s)));
    }
#endif
    for (; s <= s1; s++) {
        const float a = row + wa * (float)(s * SN_RASTER_ZSEG), b = row + wa * (float)(s * SN_RASTER_ZSEG + SN_RASTER_ZSEG - 1);
        const float lo = a < b ? a : b;
        zr[s] = lo > zr[s] ? lo : zr[s];
    }
}

/* Whether triangle t's box, rows ya..yb, is nowhere nearer than the coarse depth zb (zs a row,
** row y0 first): then no pixel of it would pass the depth test. The box's greatest 1/depth is at one of its
** corners: each row's value (wb y + wc, rounded) is monotonic in y and each pixel's in its row's
** and in x. Rows leave at the first segment nearer than that (a visible triangle, usually at
** once). Needs the end rows' values and wa finite, hence every row's. */
static bool tri_hidden(const float *zb, size_t zs, int32_t y0, const sn_tri *t, int32_t ya, int32_t yb)
{
    const float ra = t->wb * (float)ya + t->wc, rb = t->wb * (float)yb + t->wc, wa = t->wa;
    if (!(fabsf(ra) < 1e30f && fabsf(rb) < 1e30f && fabsf(wa) < 1e24f))
        return false;
    const float a = ra + wa * (float)t->x0, b = ra + wa * (float)t->x1, c = rb + wa * (float)t->x0, d = rb + wa * (float)t->x1;
    const float ab = a > b ? a : b, cd = c > d ? c : d, hi = ab > cd ? ab : cd;
    const int32_t s0 = t->x0 >> SN_RASTER_ZSEG_SHIFT, s1 = t->x1 >> SN_RASTER_ZSEG_SHIFT;
    for (int32_t y = ya; y <= yb; y++)
        if (seg_nearer(zb + (size_t)(y - y0) * zs, s0, s1, hi, (int32_t)zs))
            return false;
    return true;
}

/* Whether a row's values may be tested against the coarse depth: row and wa finite and small
** enough that row + wa x is finite at every x of the guard band (under 2^15), never NaN. */
static inline bool hidden_ok(float row, float wa) { return fabsf(row) < 1e30f && fabsf(wa) < 1e24f; }

void sn_raster(const sn_raster_target *r, const sn_tri *t, uint32_t ti, int32_t y_begin, int32_t y_end)
{
    const uint32_t W = r->W;
    float *wb = r->wbuf;
    uint32_t *ib = r->idbuf;
    const int32_t y0 = r->y0;
    int32_t ya = t->y0 > y_begin ? t->y0 : y_begin, yb = t->y1 < y_end - 1 ? t->y1 : y_end - 1;
    if (r->zmin && ya <= yb && tri_hidden(r->zmin, r->zstride, y0, t, ya, yb))
        return; /* hidden behind what is drawn: no pixel would change */
#ifdef __SSE2__
    if (t->x1 - t->x0 < 4 * MAX_GROUPS) { /* a small triangle's groups of four inside the row (one group,
                                          ** with or without ids: each its own copy) */
        const int32_t G = (t->x1 - t->x0) / 4 + 1;
        if (t->x0 + 4 * G <= (int32_t)W &&
            (r->idbuf ? (G == 1 ? raster_groups(r, t, ti, ya, yb, 1, true) : raster_groups(r, t, ti, ya, yb, G, true))
                      : (G == 1 ? raster_groups(r, t, ti, ya, yb, 1, false) : raster_groups(r, t, ti, ya, yb, G, false))))
            return;
    }
#endif
    int64_t dx[3], dy[3], bias[3];
    for (int e = 0; e < 3; e++) {
        int n = (e + 1) % 3;
        dx[e] = (int64_t)t->X[n] - t->X[e];
        dy[e] = (int64_t)t->Y[n] - t->Y[e];
        /* a pixel centre exactly on an edge belongs to one of the two triangles sharing it */
        /* (0 when dy < 0, or dy = 0 and dx > 0: the sign of dy 2^28 - dx, as |dx| < 2^28 in the
        ** guard band; without branches, as it is a coin toss) */
        bias[e] = ~((dy[e] * ((int64_t)1 << 28) - dx[e]) >> 63);
    }
    const int64_t px0 = (int64_t)t->x0 * ONE + ONE / 2;
    const bool wide = t->x1 - t->x0 >= 24; /* solving spans beats scanning them */
    if (!wide && small_tri(t)) {
        raster_small(r, t, ti, ya, yb, dx, dy, bias);
        return;
    }
    double inv[3] = {0, 0, 0}; /* span_edge's 1 / s, s = -dy ONE, for the rows of a wide one */
    for (int e = 0; wide && e < 3; e++)
        inv[e] = dy[e] ? 1.0 / (double)(-dy[e] * ONE) : 0;
#if defined(__x86_64__) && defined(__GNUC__)
    const bool wide8 = wide && sn_lanes_wide();
#else
    const bool wide8 = false;
#endif
    /* the edge functions at the first pixel of row ya, then stepped a row at a time (exact
    ** integers: the values of forming them at each row); the triangle's fields in locals, as the
    ** id stores below could alias them and make each row reload them */
    const int64_t py0 = (int64_t)ya * ONE + ONE / 2;
    int64_t f0 = dx[0] * (py0 - t->Y[0]) - dy[0] * (px0 - t->X[0]) + bias[0];
    int64_t f1 = dx[1] * (py0 - t->Y[1]) - dy[1] * (px0 - t->X[1]) + bias[1];
    int64_t f2 = dx[2] * (py0 - t->Y[2]) - dy[2] * (px0 - t->X[2]) + bias[2];
    const int64_t r0 = dx[0] * ONE, r1 = dx[1] * ONE, r2 = dx[2] * ONE;
    const int64_t s0 = -dy[0] * ONE, s1 = -dy[1] * ONE, s2 = -dy[2] * ONE;
    const float twb = t->wb, twc = t->wc, wa = t->wa;
    const int32_t tx0 = t->x0, tx1 = t->x1;
    float *const zb = r->zmin;
    const size_t zs = r->zstride;
    for (int32_t y = ya; y <= yb; y++, f0 += r0, f1 += r1, f2 += r2) {
        int64_t e0 = f0, e1 = f1, e2 = f2;
        const float row = twb * (float)y + twc;
        float *wr = wb + (size_t)(y - y0) * W;
        uint32_t *ir = ib ? ib + (size_t)(y - y0) * W : NULL;
        if (wide) {
            /* a span hidden behind the coarse depth is not drawn; one drawn raises the bounds
            ** (the box's row is not tested first: under 5 % of rows were skipped so, for a test
            ** on every row that the span's own repeats) */
            float *zr = zb ? zb + (size_t)(y - y0) * zs : NULL;
            if (zr && !hidden_ok(row, wa))
                zr = NULL;
            /* the row's span, solved: each edge function is linear in x, so where all three are
            ** >= 0 is an interval, the same pixels the scan below finds */
            int32_t xs = tx0, xe = tx1;
            span_edge(e0, s0, inv[0], &xs, &xe, tx0);
            span_edge(e1, s1, inv[1], &xs, &xe, tx0);
            span_edge(e2, s2, inv[2], &xs, &xe, tx0);
            if (xs > xe || (zr && hidden(zr, xs, xe, row, wa, (int32_t)zs)))
                continue;
            fill_span(wr, ir, xs, xe, row, wa, ti, wide8, (int32_t)W);
            if (zr)
                raise_z(zr, xs, xe, row, wa);
            continue;
        }
        bool inside = false;
        float fx = (float)tx0; /* integers below 2^24: fx is x exactly */
        for (int32_t x = tx0; x <= tx1; x++, fx += 1.0f, e0 += s0, e1 += s1, e2 += s2) {
            if ((e0 | e1 | e2) >= 0) {
                inside = true;
                float w = row + wa * fx;
                if (w > wr[x]) {
                    wr[x] = w;
                    if (ir)
                        ir[x] = ti;
                }
            } else if (inside) {
                break; /* a triangle's row is one span: past it, nothing more */
            }
        }
    }
}
