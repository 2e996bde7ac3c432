/* shadow.c — the sun's shadow map (shadow.h). */
#include "shadow.h"

#include "../core/util.h"
#include "lanes.h"
#include "shadow_bounds.h"
#include "shadow_window.h"
#include "shadow_lookup.h"
#include "shadow_maps.h"
#include "shadow_need.h"
#include "simd4.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#ifdef __SSE__
#include <xmmintrin.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define SBAND 64 /* texel rows per task */
/* a task bounds whole 16-texel cells of its own rows: bands must not share a cell */
_Static_assert(SBAND % SN_SHADOW_CELL == 0, "a shadow task band holds whole cells");
/* metres of depth a lookup is pushed towards the sun beyond its normal offset: the float
** rounding of depths (about 1e-4 m at 1 km) many times over, and small against any caster */
#define SN_SHADOW_BIAS 0.02
#define NBANDS (SN_SHADOW_SIZE / SBAND)
#define MAX_TASKS 64
#ifndef SPAN_MIN
#define SPAN_MIN 24
#endif

typedef struct stri {
    float u[3], v[3], d[3]; /* texel coordinates and depth along the light */
    int32_t x0, x1, y0, y1;
} stri;

/* A setup task's triangles, and per band of texel rows the ones that touch it. */
typedef struct stask {
    stri *tris;
    size_t n, cap;
    uint32_t *band[NBANDS];
    size_t n_band[NBANDS], cap_band[NBANDS];
    double (*uvd)[3]; /* one caster's vertices in the light's frame: texel u, v and depth */
    size_t cap_uvd;
    bool oom;
} stask;

struct sn_shadow {
    float *depth; /* SIZE x SIZE: nearest caster to the sun, metres along the light */
    float *blk, *reach; /* per 4 x 4 block: its depths' (min, max), and over 8 x 8 (shadow_bounds.h) */
    float *win;         /* each pair of tent windows' least depth (shadow_window.h) */
    sn_shadow_maps *maps; /* the set the four above are in, held from begin to release */
    sn_vec3 su, sv, sd; /* light frame: map axes and the light's direction of travel (-sun) */
    double u0, v0, scale; /* texel = (dot(p, su) - u0) * scale */
    double texel;         /* metres per texel */
    stask tasks[MAX_TASKS];
    uint32_t n_tasks;
    size_t from[MAX_TASKS + 1]; /* task k sets up casters [from[k], from[k + 1]) */
    const sn_shadow_caster *casters;
    bool empty; /* no caster: everything is lit */
    bool scan;  /* draw texel by texel (sn_shadow_set_scan) */
    bool no_bounds; /* every lookup by its 16 comparisons (sn_shadow_set_bounds) */
    bool cull;      /* only the triangles facing the sun (sn_shadow_set_cull) */
    sn_shadow_need need; /* the receivers' cells: casters elsewhere are not drawn */
};

sn_shadow *sn_shadow_create(void)
{
    return calloc(1, sizeof(sn_shadow)); /* its texels are taken at sn_shadow_begin */
}

/* the texel arrays of a set taken now, or the ones held since an earlier begin */
static bool hold_maps(sn_shadow *s)
{
    if (!s->maps && !(s->maps = sn_shadow_maps_take()))
        return false;
    s->depth = s->maps->depth, s->blk = s->maps->blk, s->reach = s->maps->reach, s->win = s->maps->win;
    return true;
}

void sn_shadow_release(sn_shadow *s)
{
    if (!s)
        return;
    sn_shadow_maps_give(s->maps);
    s->maps = NULL;
    s->depth = s->blk = s->reach = s->win = NULL;
}

void sn_shadow_destroy(sn_shadow *s)
{
    if (!s)
        return;
    sn_shadow_release(s);
    for (int k = 0; k < MAX_TASKS; k++) {
        stask *t = &s->tasks[k];
        free(t->tris), free(t->uvd);
        for (int b = 0; b < NBANDS; b++)
            free(t->band[b]);
    }
    free(s);
}

bool sn_shadow_begin(sn_shadow *s, const double sun[3], const sn_vec3 *corners, int n_corners)
{
    if (!hold_maps(s))
        return false;
    s->sd = sn_v3(-sun[0], -sun[1], -sun[2]);
    /* map axes: any frame perpendicular to the light, chosen from the light alone (stable) */
    sn_vec3 ref = fabs(s->sd.z) < 0.9 ? sn_v3(0, 0, 1) : sn_v3(1, 0, 0);
    s->su = sn_v3_norm(sn_v3_cross(ref, s->sd));
    s->sv = sn_v3_cross(s->sd, s->su);
    double u0 = DBL_MAX, u1 = -DBL_MAX, v0 = DBL_MAX, v1 = -DBL_MAX;
    for (int i = 0; i < n_corners; i++) {
        double u = sn_v3_dot(corners[i], s->su), v = sn_v3_dot(corners[i], s->sv);
        u0 = u < u0 ? u : u0, u1 = u > u1 ? u : u1;
        v0 = v < v0 ? v : v0, v1 = v > v1 ? v : v1;
    }
    double side = (u1 - u0 > v1 - v0 ? u1 - u0 : v1 - v0) + 1e-3;
    s->u0 = u0 - 0.01 * side, s->v0 = v0 - 0.01 * side; /* a margin for the filter's reach */
    s->scale = SN_SHADOW_SIZE / (1.02 * side);
    s->texel = 1 / s->scale;
    s->empty = true;
    sn_need_all(&s->need);
    return true;
}

void sn_shadow_need_none(sn_shadow *s)
{
    sn_need_none(&s->need);
}

void sn_shadow_need_sphere(sn_shadow *s, sn_vec3 c, double r)
{
    /* orthographic: the sphere's footprint is a disc of radius r; its box */
    const double u = (sn_v3_dot(c, s->su) - s->u0) * s->scale, v = (sn_v3_dot(c, s->sv) - s->v0) * s->scale,
                 rt = r * s->scale + SN_SHADOW_REACH;
    sn_need_box(&s->need, u - rt, v - rt, u + rt, v + rt);
}

void sn_shadow_need_hull(sn_shadow *s, const sn_vec3 *p, int n)
{
    double uv[16][2];
    n = n > 16 ? 16 : n;
    for (int i = 0; i < n; i++)
        uv[i][0] = (sn_v3_dot(p[i], s->su) - s->u0) * s->scale, uv[i][1] = (sn_v3_dot(p[i], s->sv) - s->v0) * s->scale;
    sn_need_hull(&s->need, (const double(*)[2])uv, n, SN_SHADOW_REACH);
}

bool sn_shadow_wants(sn_shadow *s, sn_vec3 c, double r)
{
    double u = (sn_v3_dot(c, s->su) - s->u0) * s->scale, v = (sn_v3_dot(c, s->sv) - s->v0) * s->scale;
    double rt = r * s->scale;
    if (!(u + rt >= 0 && v + rt >= 0 && u - rt <= SN_SHADOW_SIZE && v - rt <= SN_SHADOW_SIZE))
        return false;
    if (s->need.all)
        return true;
    sn_need_finish(&s->need);
    /* the texels its triangles can cover (a NaN asks for all) */
    const double x0 = fmax(0, floor(u - rt)), x1 = fmin(SN_SHADOW_SIZE - 1, ceil(u + rt)),
                 y0 = fmax(0, floor(v - rt)), y1 = fmin(SN_SHADOW_SIZE - 1, ceil(v + rt));
    return !(x0 <= x1 && y0 <= y1) || sn_need_any(&s->need, (int32_t)x0, (int32_t)y0, (int32_t)x1, (int32_t)y1);
}

/* One caster triangle of light-frame vertices into task t, unless no receiver reaches its texels
** (need) or, with cull, it faces away from the sun; false without memory. */
static bool add(stask *t, const sn_shadow_need *need, bool cull, const double *p0, const double *p1, const double *p2)
{
    const double *p[3] = {p0, p1, p2};
    stri tr;
    double minu = DBL_MAX, maxu = -DBL_MAX, minv = DBL_MAX, maxv = -DBL_MAX;
    for (int i = 0; i < 3; i++) {
        double u = p[i][0], v = p[i][1];
        tr.u[i] = (float)u, tr.v[i] = (float)v, tr.d[i] = (float)p[i][2];
        minu = u < minu ? u : minu, maxu = u > maxu ? u : maxu;
        minv = v < minv ? v : minv, maxv = v > maxv ? v : maxv;
    }
    /* texels whose centres (i + 1/2) may be covered */
    if (!(maxu >= 0.5 && maxv >= 0.5 && minu <= SN_SHADOW_SIZE - 0.5 && minv <= SN_SHADOW_SIZE - 0.5))
        return true;
    double area = (tr.u[1] - tr.u[0]) * (tr.v[2] - tr.v[0]) - (tr.u[2] - tr.u[0]) * (tr.v[1] - tr.v[0]);
    if (fabs(area) < 1e-9)
        return true; /* edge-on to the sun */
    /* area = scale^2 (outward normal . sd), su x sv being sd: > 0 faces away from the sun. A sun ray
    ** through a closed part enters by a face towards the sun, nearer than where it leaves */
    if (cull && area > 0)
        return true;
    /* clamped by comparisons, not fmax and fmin (calls into libm); the bounds are finite here */
    const double cx0 = ceil(minu - 0.5), cx1 = floor(maxu - 0.5), cy0 = ceil(minv - 0.5), cy1 = floor(maxv - 0.5);
    tr.x0 = (int32_t)(cx0 > 0 ? cx0 : 0), tr.x1 = (int32_t)(cx1 < SN_SHADOW_SIZE - 1 ? cx1 : SN_SHADOW_SIZE - 1);
    tr.y0 = (int32_t)(cy0 > 0 ? cy0 : 0), tr.y1 = (int32_t)(cy1 < SN_SHADOW_SIZE - 1 ? cy1 : SN_SHADOW_SIZE - 1);
    if (tr.x0 > tr.x1 || tr.y0 > tr.y1 || !sn_need_any(need, tr.x0, tr.y0, tr.x1, tr.y1))
        return true;
    if (!sn_grow((void **)&t->tris, &t->cap, t->n + 1, sizeof *t->tris))
        return false;
    for (int32_t b = tr.y0 / SBAND; b <= tr.y1 / SBAND; b++) {
        if (!sn_grow((void **)&t->band[b], &t->cap_band[b], t->n_band[b] + 1, sizeof *t->band[b]))
            return false;
        t->band[b][t->n_band[b]++] = (uint32_t)t->n;
    }
    t->tris[t->n++] = tr;
    return true;
}

/* Setup task k: its casters' vertices into the light's frame, then their triangles. */
static void setup_task(void *arg, uint32_t k)
{
    sn_shadow *s = arg;
    stask *t = &s->tasks[k];
    t->n = 0, t->oom = false;
    for (int b = 0; b < NBANDS; b++)
        t->n_band[b] = 0;
    for (size_t ci = s->from[k]; ci < s->from[k + 1] && !t->oom; ci++) {
        const sn_shadow_caster *c = &s->casters[ci];
        if (!sn_grow((void **)&t->uvd, &t->cap_uvd, c->n_v, sizeof *t->uvd)) {
            t->oom = true;
            break;
        }
        for (uint32_t i = 0; i < c->n_v; i++) {
            sn_vec3 p = sn_v3(c->v[i][0], c->v[i][1], c->v[i][2]);
            t->uvd[i][0] = (sn_v3_dot(p, s->su) - s->u0) * s->scale;
            t->uvd[i][1] = (sn_v3_dot(p, s->sv) - s->v0) * s->scale;
            t->uvd[i][2] = sn_v3_dot(p, s->sd);
        }
        for (uint32_t i = 0; i < c->n_t && !t->oom; i++)
            t->oom = !add(t, &s->need, s->cull, t->uvd[c->t[i][0]], t->uvd[c->t[i][1]], t->uvd[c->t[i][2]]);
    }
}

/* Texel row `row` of triangle t, texel by texel: the definition of what the map holds. Each
** edge function and the depth are stepped from the box's left texel (x0) one texel at a time,
** and the row stops at the first texel outside after one inside. */
static void scan_row(const stri *t, float *row, double py, const double eu[3], const double ev[3], double A, double B,
                     double C)
{
    double px = t->x0 + 0.5;
    double w0 = eu[0] * (py - t->v[0]) - ev[0] * (px - t->u[0]);
    double w1 = eu[1] * (py - t->v[1]) - ev[1] * (px - t->u[1]);
    double w2 = eu[2] * (py - t->v[2]) - ev[2] * (px - t->u[2]);
    double d = A * px + B * py + C;
    bool inside = false;
    for (int32_t x = t->x0; x <= t->x1; x++, w0 -= ev[0], w1 -= ev[1], w2 -= ev[2], d += A) {
        if (w0 >= 0 && w1 >= 0 && w2 >= 0) {
            inside = true;
            if ((float)d < row[x])
                row[x] = (float)d;
        } else if (inside) {
            break; /* a triangle's row is one span */
        }
    }
}

/* scan_row's depth at texel x0 + k: k additions of A to d0, as the scan makes it. */
static float chain_depth(double d0, double A, int32_t k)
{
    for (int32_t i = 0; i < k; i++)
        d0 += A;
    return (float)d0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* span_row's depth blocks four texels a step in one AVX register of doubles (the same
** operations as the SSE2 pairs below, so the same bits); returns the first texel not done. */
__attribute__((target("avx2,no-fma"))) static int32_t depth4_avx2(float *out, int32_t k, int32_t ke, double d0, double A,
                                                                   double Ed)
{
    const __m256d vd0 = _mm256_set1_pd(d0), vA = _mm256_set1_pd(A), vE = _mm256_set1_pd(Ed), four = _mm256_set1_pd(4);
    __m256d kv = _mm256_setr_pd(k, k + 1, k + 2, k + 3);
    for (; k + 3 <= ke; k += 4, kv = _mm256_add_pd(kv, four)) {
        const __m256d dc = _mm256_add_pd(vd0, _mm256_mul_pd(kv, vA));
        const __m128 lo = _mm256_cvtpd_ps(_mm256_sub_pd(dc, vE)), hi = _mm256_cvtpd_ps(_mm256_add_pd(dc, vE));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_castps_si128(lo), _mm_castps_si128(hi))) == 0xFFFF) {
            _mm_storeu_ps(out + k, _mm_min_ps(lo, _mm_loadu_ps(out + k)));
        } else {
            for (int32_t i = k; i < k + 4; i++) {
                const float f = chain_depth(d0, A, i);
                if (f < out[i])
                    out[i] = f;
            }
        }
    }
    return k;
}
#endif

/* scan_row's result without its walk: which texels the scan writes, and what, solved from the
** edge functions and the depth in closed form, where the closed form is certified to give the
** scan's bits; false (nothing written) where it cannot be, and the caller scans.
** The scan's values after k steps are the exact w - k s and d + k A up to its roundings, at most
** k half-ulps of the largest value on the way (M): within E = (K + 4) M 2^-51 of the closed form
** (four times that bound and the closed form's own roundings). So a texel whose exact edge value
** lies further than E from 0 has the scan's inside/outside; a row with a texel centre within E of
** an edge (an edge through a texel centre, to 1e-13 of a texel) is scanned. The same bound on the
** depth: where d + k A - E and d + k A + E round to one float, the scan's float is that float
** (rounding is monotone); elsewhere that texel's depth is made by the scan's additions. */
static void span_fill(const stri *t, const sn_shadow_need *need, float *row, double py, int32_t ks, int32_t ke, double A,
                      double B, double C);

static bool span_row(const stri *t, const sn_shadow_need *need, float *row, double py, const double eu[3],
                     const double ev[3], const double iev[3], double A, double B, double C)
{
    const double px = t->x0 + 0.5;
    const int32_t K = t->x1 - t->x0;
    int32_t ks = 0, ke = K; /* the texels x0 + k inside every edge */
    for (int e = 0; e < 3; e++) {
        const double w = eu[e] * (py - t->v[e]) - ev[e] * (px - t->u[e]), s = ev[e];
        if (s == 0) { /* the scan's w - 0 stays w */
            if (w < 0)
                return true;
            continue;
        }
        const double E = (K + 4) * (fabs(w) + K * fabs(s)) * 0x1p-51;
        double r = w * iev[e]; /* the exact root w / s, to two roundings (covered below) */
        r = r > 1e12 ? 1e12 : r < -1e12 ? -1e12 : r;
        const double z = E * fabs(iev[e]) * 1.001 + fabs(r) * 0x1p-48; /* E in steps, and r's error */
        if (!(z < 0.25))
            return false;
        /* the integer nearest the root, the only one that can lie within z of it */
        const int64_t i = (int64_t)(r >= 0 ? r + 0.5 : r - 0.5);
        const double fi = (double)i;
        if (fabs(r - fi) <= z && i >= 0 && i <= K)
            return false;
        if (s > 0) { /* w - k s >= 0 up to the root */
            const int64_t f = i - (r < fi);
            if (f < ke)
                ke = f < ks ? ks - 1 : (int32_t)f;
        } else { /* from the root on */
            const int64_t c = i + (r > fi);
            if (c > ks)
                ks = c > ke ? ke + 1 : (int32_t)c;
        }
        if (ks > ke)
            return true;
    }
    span_fill(t, need, row, py, ks, ke, A, B, C);
    return true;
}

/* span_row's texels x0 + ks .. x0 + ke that a receiver reaches (need's columns for the row), their
** depths certified or made by the scan's additions: each texel's depth is its own, whichever
** texels the run starts and ends at */
static void span_fill(const stri *t, const sn_shadow_need *need, float *row, double py, int32_t ks, int32_t ke, double A,
                      double B, double C)
{
    const int32_t cy = (int32_t)py / SN_SHADOW_CELL, lo = need->lo[cy] - t->x0, hi = need->hi[cy] - t->x0;
    ks = ks > lo ? ks : lo, ke = ke < hi ? ke : hi;
    if (ks > ke)
        return;
    const double px = t->x0 + 0.5;
    const int32_t K = t->x1 - t->x0;
    const double d0 = A * px + B * py + C, Ed = (K + 4) * (fabs(d0) + K * fabs(A)) * 0x1p-51;
    float *out = row + t->x0;
    int32_t k = ks;
#if defined(__x86_64__) && defined(__GNUC__)
    if (ke - ks >= 7 && sn_lanes_wide())
        k = depth4_avx2(out, k, ke, d0, A, Ed);
#endif
#ifdef __SSE2__
    const __m128d vd0 = _mm_set1_pd(d0), vA = _mm_set1_pd(A), vE = _mm_set1_pd(Ed), two = _mm_set1_pd(2);
    __m128d k01 = _mm_set_pd(k + 1, k), k23 = _mm_add_pd(k01, two);
    for (; k + 3 <= ke; k += 4, k01 = _mm_add_pd(k23, two), k23 = _mm_add_pd(k01, two)) {
        const __m128d d01 = _mm_add_pd(vd0, _mm_mul_pd(k01, vA)), d23 = _mm_add_pd(vd0, _mm_mul_pd(k23, vA));
        const __m128 lo = _mm_movelh_ps(_mm_cvtpd_ps(_mm_sub_pd(d01, vE)), _mm_cvtpd_ps(_mm_sub_pd(d23, vE)));
        const __m128 hi = _mm_movelh_ps(_mm_cvtpd_ps(_mm_add_pd(d01, vE)), _mm_cvtpd_ps(_mm_add_pd(d23, vE)));
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_castps_si128(lo), _mm_castps_si128(hi))) == 0xFFFF) {
            _mm_storeu_ps(out + k, _mm_min_ps(lo, _mm_loadu_ps(out + k))); /* lo < old ? lo : old, the scan's test */
        } else {
            for (int32_t i = k; i < k + 4; i++) {
                const float f = chain_depth(d0, A, i);
                if (f < out[i])
                    out[i] = f;
            }
        }
    }
#endif
    for (; k <= ke; k++) {
        const double dc = d0 + k * A;
        const float lo = (float)(dc - Ed), hi = (float)(dc + Ed), f = lo == hi ? lo : chain_depth(d0, A, k);
        if (f < out[k])
            out[k] = f;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* span_row for rows y .. y + 3 at once, one in each lane of an AVX register of doubles (CPUs with
** AVX2): each lane makes span_row's operations for its row in their order, no FMA, so the same
** roots, spans and certificates, without a branch a row. A row that an edge cannot certify is
** scanned. span_row stops at the first edge that decides its row (scan it, or nothing inside),
** the lanes go on through every edge; a row certified empty by one edge and uncertain at a later
** one is then scanned instead of skipped, and the scan of a row certified empty writes nothing. */
__attribute__((target("avx2,no-fma"))) static void span_rows4(const stri *t, const sn_shadow_need *need, float *dm,
                                                               int32_t y, const double eu[3],
                                                               const double ev[3], const double iev[3], double A,
                                                               double B, double C)
{
    const double px = t->x0 + 0.5;
    const int32_t K = t->x1 - t->x0;
    const __m256d py = _mm256_setr_pd(y + 0.5, y + 1.5, y + 2.5, y + 3.5), zero = _mm256_setzero_pd();
    const __m256d one = _mm256_set1_pd(1), half = _mm256_set1_pd(0.5), sign = _mm256_set1_pd(-0.0);
    const __m256d big = _mm256_set1_pd(1e12), nbig = _mm256_set1_pd(-1e12);
    __m256d ks = zero, ke = _mm256_set1_pd(K), empty = zero, unsure = zero;
    for (int e = 0; e < 3; e++) {
        const __m256d w = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(eu[e]), _mm256_sub_pd(py, _mm256_set1_pd(t->v[e]))),
                                        _mm256_set1_pd(ev[e] * (px - t->u[e])));
        if (ev[e] == 0) { /* the scan's w - 0 stays w */
            empty = _mm256_or_pd(empty, _mm256_cmp_pd(w, zero, _CMP_LT_OQ));
            continue;
        }
        const __m256d E = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(K + 4),
                                                      _mm256_add_pd(_mm256_andnot_pd(sign, w), _mm256_set1_pd(K * fabs(ev[e])))),
                                        _mm256_set1_pd(0x1p-51));
        __m256d r = _mm256_mul_pd(w, _mm256_set1_pd(iev[e]));
        r = _mm256_blendv_pd(r, big, _mm256_cmp_pd(r, big, _CMP_GT_OQ));
        r = _mm256_blendv_pd(r, nbig, _mm256_cmp_pd(r, nbig, _CMP_LT_OQ));
        const __m256d z = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(E, _mm256_set1_pd(fabs(iev[e]))), _mm256_set1_pd(1.001)),
                                        _mm256_mul_pd(_mm256_andnot_pd(sign, r), _mm256_set1_pd(0x1p-48)));
        unsure = _mm256_or_pd(unsure, _mm256_cmp_pd(z, _mm256_set1_pd(0.25), _CMP_NLT_UQ));
        /* the integer nearest the root: (int64_t) of r +- 1/2 is its truncation */
        const __m256d fi = _mm256_round_pd(_mm256_blendv_pd(_mm256_sub_pd(r, half), _mm256_add_pd(r, half),
                                                            _mm256_cmp_pd(r, zero, _CMP_GE_OQ)),
                                           _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        unsure = _mm256_or_pd(unsure, _mm256_and_pd(_mm256_cmp_pd(_mm256_andnot_pd(sign, _mm256_sub_pd(r, fi)), z, _CMP_LE_OQ),
                                                    _mm256_and_pd(_mm256_cmp_pd(fi, zero, _CMP_GE_OQ),
                                                                  _mm256_cmp_pd(fi, _mm256_set1_pd(K), _CMP_LE_OQ))));
        if (ev[e] > 0) { /* w - k s >= 0 up to the root */
            const __m256d f = _mm256_sub_pd(fi, _mm256_and_pd(_mm256_cmp_pd(r, fi, _CMP_LT_OQ), one));
            const __m256d to = _mm256_blendv_pd(f, _mm256_sub_pd(ks, one), _mm256_cmp_pd(f, ks, _CMP_LT_OQ));
            ke = _mm256_blendv_pd(ke, to, _mm256_cmp_pd(f, ke, _CMP_LT_OQ));
        } else { /* from the root on */
            const __m256d c = _mm256_add_pd(fi, _mm256_and_pd(_mm256_cmp_pd(r, fi, _CMP_GT_OQ), one));
            const __m256d to = _mm256_blendv_pd(c, _mm256_add_pd(ke, one), _mm256_cmp_pd(c, ke, _CMP_GT_OQ));
            ks = _mm256_blendv_pd(ks, to, _mm256_cmp_pd(c, ks, _CMP_GT_OQ));
        }
        empty = _mm256_or_pd(empty, _mm256_cmp_pd(ks, ke, _CMP_GT_OQ));
    }
    const int scan = _mm256_movemask_pd(unsure), none = _mm256_movemask_pd(empty);
    double s0[4], s1[4];
    _mm256_storeu_pd(s0, ks), _mm256_storeu_pd(s1, ke);
    for (int l = 0; l < 4; l++) {
        float *row = dm + (size_t)(y + l) * SN_SHADOW_SIZE;
        if (scan >> l & 1)
            scan_row(t, row, y + l + 0.5, eu, ev, A, B, C);
        else if (!(none >> l & 1))
            span_fill(t, need, row, y + l + 0.5, (int32_t)s0[l], (int32_t)s1[l], A, B, C);
    }
}
#endif

#ifdef __SSE2__
/* draw_tri's rows y and y + 1 at once, one in each lane of a double pair: each lane does the
** scalar row's operations in their order (its edge functions and depth stepped texel by texel
** from the box's left, so the same rounding), and stops writing where the scalar row breaks
** (the first texel outside after one inside). The two rows' chains of additions overlap. */
static void draw_rows2(const stri *t, float *dm, int32_t y, const double eu[3], const double ev[3], double A, double B,
                       double C)
{
    const __m128d py = _mm_set_pd(y + 1.5, y + 0.5), px = _mm_set1_pd(t->x0 + 0.5), zero = _mm_setzero_pd();
    __m128d w[3], sv[3];
    for (int e = 0; e < 3; e++) {
        w[e] = _mm_sub_pd(_mm_mul_pd(_mm_set1_pd(eu[e]), _mm_sub_pd(py, _mm_set1_pd(t->v[e]))),
                          _mm_mul_pd(_mm_set1_pd(ev[e]), _mm_sub_pd(px, _mm_set1_pd(t->u[e]))));
        sv[e] = _mm_set1_pd(ev[e]);
    }
    __m128d d = _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(A), px), _mm_mul_pd(_mm_set1_pd(B), py)), _mm_set1_pd(C));
    const __m128d a = _mm_set1_pd(A);
    float *r0 = dm + (size_t)y * SN_SHADOW_SIZE, *r1 = r0 + SN_SHADOW_SIZE;
    int inside = 0, done = 0; /* a bit a lane: row y in bit 0, y + 1 in bit 1 */
    for (int32_t x = t->x0; x <= t->x1; x++) {
        const int in = _mm_movemask_pd(
            _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(w[0], zero), _mm_cmpge_pd(w[1], zero)), _mm_cmpge_pd(w[2], zero)));
        const int live = ~done & 3, hit = in & live;
        done |= inside & ~in & live, inside |= hit;
        if (hit) {
            float df[4];
            _mm_storeu_ps(df, _mm_cvtpd_ps(d)); /* each lane's (float)d */
            if ((hit & 1) && df[0] < r0[x])
                r0[x] = df[0];
            if ((hit & 2) && df[1] < r1[x])
                r1[x] = df[1];
        } else if (done == 3) {
            break;
        }
        for (int e = 0; e < 3; e++)
            w[e] = _mm_sub_pd(w[e], sv[e]);
        d = _mm_add_pd(d, a);
    }
}
#endif

/* Caster triangle t into texel rows [y0, y1) of the map: the nearest depth wins. */
static void draw_tri(const stri *t, const sn_shadow_need *need, float *dm, int32_t y0, int32_t y1, bool scan)
{
    /* depth is affine in (u, v) for an orthographic view: d = A u + B v + C */
    double du1 = t->u[1] - t->u[0], dv1 = t->v[1] - t->v[0], du2 = t->u[2] - t->u[0], dv2 = t->v[2] - t->v[0];
    double det = du1 * dv2 - du2 * dv1, sgn = det > 0 ? 1 : -1;
    double dd1 = t->d[1] - t->d[0], dd2 = t->d[2] - t->d[0];
    double A = (dd1 * dv2 - dd2 * dv1) / det, B = (du1 * dd2 - du2 * dd1) / det;
    double C = t->d[0] - A * t->u[0] - B * t->v[0];
    int32_t ya = t->y0 > y0 ? t->y0 : y0, yb = t->y1 < y1 - 1 ? t->y1 : y1 - 1;
    /* edge functions, stepped along each row: w_e(x + 1) = w_e(x) - dv_e sgn */
    double eu[3], ev[3], iev[3];
    for (int e = 0; e < 3; e++) {
        int n = (e + 1) % 3;
        eu[e] = (t->u[n] - t->u[e]) * sgn, ev[e] = (t->v[n] - t->v[e]) * sgn;
        iev[e] = ev[e] != 0 ? 1 / ev[e] : 0;
    }
    int32_t y = ya;
    if (t->x1 - t->x0 >= SPAN_MIN && !scan) {
#if defined(__x86_64__) && defined(__GNUC__)
        if (sn_lanes_wide())
            for (; y + 3 <= yb; y += 4)
                span_rows4(t, need, dm, y, eu, ev, iev, A, B, C);
#endif
        for (; y <= yb; y++) {
            float *row = dm + (size_t)y * SN_SHADOW_SIZE;
            if (!span_row(t, need, row, y + 0.5, eu, ev, iev, A, B, C))
                scan_row(t, row, y + 0.5, eu, ev, A, B, C);
        }
        return;
    }
#ifdef __SSE2__
    for (; y + 1 <= yb && !scan; y += 2)
        draw_rows2(t, dm, y, eu, ev, A, B, C);
#endif
    for (; y <= yb; y++)
        scan_row(t, dm + (size_t)y * SN_SHADOW_SIZE, y + 0.5, eu, ev, A, B, C);
}

/* The pairs of windows' least (shadow_window.h) starting at rows [y0, y1), only over each row's marked
** columns: a lookup's window starts within a texel and its normal offset of its point, which lies
** on a receiver, whose footprint widened by SN_SHADOW_REACH is marked; the others are never read. */
static void window_rows(sn_shadow *s, int32_t y0, int32_t y1)
{
    for (int32_t y = y0; y < y1;) {
        const int32_t cy = y / SN_SHADOW_CELL, ye = (cy + 1) * SN_SHADOW_CELL < y1 ? (cy + 1) * SN_SHADOW_CELL : y1;
        sn_shadow_window_min(s->depth, SN_SHADOW_SIZE, s->win, y, ye, s->need.lo[cy], s->need.hi[cy]);
        y = ye;
    }
}

static void draw_band(void *arg, uint32_t band)
{
    sn_shadow *s = arg;
    int32_t y0 = (int32_t)band * SBAND, y1 = y0 + SBAND;
    float *dm = s->depth;
    /* A row of cells no receiver marks is never read: a lookup's 16 texels lie in marked cells, the
    ** block bounds it reads start in one and hold its window (any finite values elsewhere only
    ** loosen them), and no window starts there. So such rows are neither cleared nor bounded; a
    ** narrow caster's rows may still write into them, harmlessly. */
    for (int32_t y = y0; y < y1; y++) {
        if (s->need.lo[y / SN_SHADOW_CELL] > s->need.hi[y / SN_SHADOW_CELL])
            continue;
        for (int32_t x = 0; x < SN_SHADOW_SIZE; x++)
            dm[(size_t)y * SN_SHADOW_SIZE + x] = FLT_MAX;
    }
    for (uint32_t k = 0; k < s->n_tasks; k++)
        for (size_t i = 0; i < s->tasks[k].n_band[band]; i++)
            draw_tri(&s->tasks[k].tris[s->tasks[k].band[band][i]], &s->need, dm, y0, y1, s->scan);
    for (int32_t y = y0; y < y1; y += SN_SHADOW_CELL) /* while the band is in cache */
        if (s->need.lo[y / SN_SHADOW_CELL] <= s->need.hi[y / SN_SHADOW_CELL])
            sn_shadow_bounds_blocks(dm, SN_SHADOW_SIZE, s->blk, y, y + SN_SHADOW_CELL);
    window_rows(s, y0, y1 - 3);
}

/* a band's blocks' bounds over their 8 x 8 texels, once every band's blocks are bounded, and the
** windows of its last three rows (they read the next band's first three) */
static void reach_band(void *arg, uint32_t band)
{
    sn_shadow *s = arg;
    const int32_t by0 = (int32_t)band * (SBAND / SN_SHADOW_BLOCK), cb = SN_SHADOW_CELL / SN_SHADOW_BLOCK;
    for (int32_t by = by0; by < by0 + SBAND / SN_SHADOW_BLOCK; by += cb) /* the marked rows of cells' (draw_band) */
        if (s->need.lo[by / cb] <= s->need.hi[by / cb])
            sn_shadow_bounds_reach(s->blk, SN_SHADOW_SIZE, s->reach, by, by + cb);
    window_rows(s, (int32_t)(band + 1) * SBAND - 3, (int32_t)(band + 1) * SBAND);
}

bool sn_shadow_draw(sn_shadow *s, sn_pool *pool, const sn_shadow_caster *casters, size_t n)
{
    /* tasks of about equal triangle counts, a few per thread so that one slow task does not
    ** leave the others idle */
    size_t total = 0, sum = 0;
    for (size_t i = 0; i < n; i++)
        total += casters[i].n_t;
    uint32_t want = 4 * (uint32_t)sn_pool_threads(pool), k = 0;
    want = want > MAX_TASKS ? MAX_TASKS : want;
    want = n < want ? (n ? (uint32_t)n : 1) : want;
    s->from[0] = 0;
    for (size_t i = 0; i < n; i++) {
        sum += casters[i].n_t;
        if (k + 1 < want && sum * want >= total * (k + 1))
            s->from[++k] = i + 1;
    }
    s->from[++k] = n;
    s->n_tasks = k;
    s->casters = casters;
    sn_need_finish(&s->need); /* before the tasks read it */
    sn_pool_run(pool, setup_task, s, k);
    for (uint32_t i = 0; i < k; i++) {
        if (s->tasks[i].oom)
            return false;
        s->empty &= !s->tasks[i].n;
    }
    if (!s->empty) {
        sn_pool_run(pool, draw_band, s, NBANDS);
        sn_pool_run(pool, reach_band, s, NBANDS);
    }
    return true;
}

void sn_shadow_set_scan(sn_shadow *s, bool scan)
{
    s->scan = scan;
}

void sn_shadow_set_bounds(sn_shadow *s, bool use)
{
    s->no_bounds = !use;
}

void sn_shadow_set_cull(sn_shadow *s, bool cull)
{
    s->cull = cull;
}

float sn_shadow_texel(const sn_shadow *s, int32_t x, int32_t y)
{
    return s->empty ? FLT_MAX : s->depth[(size_t)y * SN_SHADOW_SIZE + x];
}

/* How far, in texels, a lookup moves along its unit normal n, (a, b) = (n.su, n.sv) its parts
** across the map. The tent's taps lie within 2 texels of the point on each map axis; the point's
** own plane there is nearer the sun than the point by at most 2 (|a| + |b|) t / cos (t a texel,
** cos = n.sun; its depth's slope across the map is (a, b) / cos). Moved by o along n, the point
** is o / cos nearer the sun than its plane below it (its depth o cos less, the plane's under its
** new place o sin^2 / cos more). So o = 2 (|a| + |b|) t clears its own plane over the whole
** window at every angle, grazing ones too (no tangent, no clamp), and is 0 for a surface facing
** the sun square on. Only that plane: anything else nearer the sun still shades it. */
static inline double offset_texels(double a, double b) { return 2 * (fabs(a) + fabs(b)); }

double sn_shadow_visibility(const sn_shadow *s, sn_vec3 p, const float n[3])
{
    if (s->empty)
        return 1;
    /* the normal-offset bias (offset_texels): moved off its own surface along n, the point is
    ** nearer the sun than that surface's plane at every texel of its window, at any slope */
    const double a = n[0] * s->su.x + n[1] * s->su.y + n[2] * s->su.z,
                 b = n[0] * s->sv.x + n[1] * s->sv.y + n[2] * s->sv.z;
    const double c = n[0] * s->sd.x + n[1] * s->sd.y + n[2] * s->sd.z, k = offset_texels(a, b);
    double u = (sn_v3_dot(p, s->su) - s->u0) * s->scale - 0.5 + k * a;
    double v = (sn_v3_dot(p, s->sv) - s->v0) * s->scale - 0.5 + k * b;
    if (!(u >= 1 && v >= 1 && u < SN_SHADOW_SIZE - 3 && v < SN_SHADOW_SIZE - 3))
        return 1;
    float d = (float)(sn_v3_dot(p, s->sd) + k * s->texel * c - SN_SHADOW_BIAS);
    int32_t x = (int32_t)u, y = (int32_t)v; /* u, v >= 1: truncation is floor */
    double fx = u - x, fy = v - y;
    /* a tent of 3 x 3 bilinear comparisons over the 4 x 4 texels around the point; its weights
    ** separate: (1 - f, 1, 1, f) / 3 along each axis */
    const double wx[4] = {1 - fx, 1, 1, fx}, wy[4] = {1 - fy, 1, 1, fy};
    const float *row0 = s->depth + (size_t)(y - 1) * SN_SHADOW_SIZE + (x - 1);
#ifdef __SSE__
    /* each row's four comparisons at once (the same IEEE comparison as the loop below): most
    ** points are wholly lit or wholly shadowed, and a row all lit weighs what the loop sums */
    const __m128 vd = _mm_set1_ps(d);
    int m[4];
    for (int j = 0; j < 4; j++)
        m[j] = _mm_movemask_ps(_mm_cmple_ps(vd, _mm_loadu_ps(row0 + (size_t)j * SN_SHADOW_SIZE)));
    if (!(m[0] | m[1] | m[2] | m[3]))
        return 0; /* the loop's 0 / 9 */
    double full = 0; /* the loop's r of a row all lit: the same additions in the same order */
    full += wx[0], full += wx[1], full += wx[2], full += wx[3];
    double sum = 0;
    for (int j = 0; j < 4; j++) {
        double r = 0;
        if (m[j] == 15) {
            r = full;
        } else if (m[j]) {
            for (int i = 0; i < 4; i++)
                r += m[j] >> i & 1 ? wx[i] : 0;
        }
        sum += r * wy[j];
    }
    return sum / 9;
#else
    double sum = 0;
    for (int j = 0; j < 4; j++) {
        const float *row = row0 + (size_t)j * SN_SHADOW_SIZE;
        double r = 0;
        for (int i = 0; i < 4; i++)
            r += d <= row[i] ? wx[i] : 0;
        sum += r * wy[j];
    }
    return sum / 9;
#endif
}

void sn_shadow_visibility_fast(const sn_shadow *s, sn_vec3 eye, const float *dx, const float *dy, const float *dz,
                               const float *nx, const float *ny, const float *nz, float *vis, size_t n)
{
    if (s->empty) {
        for (size_t i = 0; i < n; i++)
            vis[i] = vis[i] < 0 ? 1 : vis[i];
        return;
    }
    /* the eye's terms in double once, so the lanes add only the offsets from it (float) */
    const sn_shadow_lookup L = {
        .depth = s->depth,
        .reach = s->no_bounds ? NULL : s->reach,
        .win = s->no_bounds ? NULL : s->win,
        .su = {(float)s->su.x, (float)s->su.y, (float)s->su.z},
        .sv = {(float)s->sv.x, (float)s->sv.y, (float)s->sv.z},
        .sd = {(float)s->sd.x, (float)s->sd.y, (float)s->sd.z},
        .scale = (float)s->scale,
        .U0 = (float)((sn_v3_dot(eye, s->su) - s->u0) * s->scale - 0.5),
        .V0 = (float)((sn_v3_dot(eye, s->sv) - s->v0) * s->scale - 0.5),
        .D0 = (float)sn_v3_dot(eye, s->sd),
        .texel = (float)s->texel,
        .bias = (float)SN_SHADOW_BIAS,
    };
    size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && n >= 8) /* eight lanes, the same bits (shadow_avx2.c) */
        sn_shadow_visibility_avx2(&L, dx, dy, dz, nx, ny, nz, vis, done = n & ~(size_t)7);
#endif
    const v4f sux = v4_splat(L.su[0]), suy = v4_splat(L.su[1]), suz = v4_splat(L.su[2]);
    const v4f svx = v4_splat(L.sv[0]), svy = v4_splat(L.sv[1]), svz = v4_splat(L.sv[2]);
    const v4f sdx = v4_splat(L.sd[0]), sdy = v4_splat(L.sd[1]), sdz = v4_splat(L.sd[2]);
    const v4f scale = v4_splat(L.scale), U0 = v4_splat(L.U0), V0 = v4_splat(L.V0), D0 = v4_splat(L.D0);
    const v4f texel = v4_splat(L.texel), bias = v4_splat(L.bias);
    const v4f one = v4_splat(1.0f), hi = v4_splat(SN_SHADOW_SIZE - 3), two = v4_splat(2.0f);
    for (size_t i = done; i < n; i += 4) {
        v4f want = v4_load(vis + i);
        if (!v4_any(want < v4_splat(0.0f)))
            continue;
        v4f x = v4_load(dx + i), y = v4_load(dy + i), z = v4_load(dz + i);
        const v4f n0 = v4_load(nx + i), n1 = v4_load(ny + i), n2 = v4_load(nz + i);
        const v4f a = n0 * sux + n1 * suy + n2 * suz, b = n0 * svx + n1 * svy + n2 * svz,
                  c = n0 * sdx + n1 * sdy + n2 * sdz;
        const v4f k = two * (v4_max(a, -a) + v4_max(b, -b)); /* offset_texels, lane by lane */
        v4f u = U0 + (x * sux + y * suy + z * suz) * scale + k * a,
            v = V0 + (x * svx + y * svy + z * svz) * scale + k * b;
        v4i in = (u >= one) & (v >= one) & (u < hi) & (v < hi) & (want < v4_splat(0.0f));
        v4f d = D0 + (x * sdx + y * sdy + z * sdz) + (k * texel * c - bias);
        u = v4_sel(in, u, one), v = v4_sel(in, v, one);
        v4i xi = v4_trunc_i(u), yi = v4_trunc_i(v); /* u, v >= 1: truncation is floor */
        v4f fx = u - __builtin_convertvector(xi, v4f), fy = v - __builtin_convertvector(yi, v4f);
        float out[4];
        v4_store(out, v4_sel(want < v4_splat(0.0f), one, want)); /* outside the map: lit */
#ifdef __SSE2__
        if (L.win) {
            /* its pair of windows' least (shadow_window.h): nearer than that is nearer than all 16
            ** texels, the tent's 1; a NaN depth fails and goes on */
            const v4i at = (yi - 1) * SN_SHADOW_WIN_ROW(SN_SHADOW_SIZE) + ((xi - 1) >> 1);
            const v4f m = {L.win[at[0]], L.win[at[1]], L.win[at[2]], L.win[at[3]]};
            const v4i lit = in & (d <= m);
            const v4f o = v4_sel(lit, one, v4_load(out));
            v4_store(out, o);
            in &= ~lit;
            if (!v4_any(in)) {
                v4_store(vis + i, o);
                continue;
            }
        }
#endif
        for (int l = 0; l < 4; l++) {
            if (!in[l])
                continue;
#ifdef __SSE2__
            out[l] = sn_shadow_far(&L, xi[l], yi[l], d[l]) ? 0 : sn_shadow_tent(L.depth, xi[l], yi[l], fx[l], fy[l], d[l]);
#else
            /* the tent of sn_shadow_visibility: the same terms as sn_shadow_tent, in order */
            const float *row0 = L.depth + (size_t)(yi[l] - 1) * SN_SHADOW_SIZE + (xi[l] - 1);
            const float wx0 = 1 - fx[l], wx3 = fx[l], wy[4] = {1 - fy[l], 1, 1, fy[l]};
            float sum = 0;
            for (int j = 0; j < 4; j++) {
                const float *row = row0 + (size_t)j * SN_SHADOW_SIZE;
                sum += ((d[l] <= row[0] ? wx0 : 0) + (float)((d[l] <= row[1]) + (d[l] <= row[2])) +
                        (d[l] <= row[3] ? wx3 : 0)) * wy[j];
            }
            out[l] = sum * (1.0f / 9);
#endif
        }
        for (int l = 0; l < 4; l++)
            vis[i + l] = out[l];
    }
}
