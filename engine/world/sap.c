/* sap.c — see sap.h. */
#include "sap.h"

#include "dbp.h"

#include <float.h>
#include <math.h>
#include <sensim/grow.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Floats past the end cap, so four-wide loads stay inside and stop on +inf. */
#define PAD 4

void sn_sap_free(sn_sap *s)
{
    free(s->rank);
    free(s->geom);
    free(s->body);
    free(s->cat);
    free(s->col);
    free(s->box);
    free(s->pos);
    free(s->inf);
    free(s->inf_body);
    free(s->inf_cat);
    free(s->inf_col);
    free(s->xs);
    free(s->xe);
    free(s->ylo);
    free(s->yhi);
    free(s->zlo);
    free(s->zhi);
    free(s->key);
    free(s->tmp);
    free(s->memo);
    memset(s, 0, sizeof *s);
}

void sn_sap_forget(sn_sap *s)
{
    if (s->memo_n)
        memset(s->memo, 0, s->memo_cap * sizeof *s->memo);
    s->memo_n = 0;
}

/* g's attributes, from the memo or from ODE (then kept); NULL when out of memory. */
static const sn_sap_memo *memo_of(sn_sap *s, dGeomID g)
{
    if (2 * (s->memo_n + 1) > s->memo_cap) { /* start again, twice the size */
        size_t cap = s->memo_cap ? 2 * s->memo_cap : 256;
        sn_sap_memo *m = calloc(cap, sizeof *m);
        if (!m)
            return NULL;
        free(s->memo);
        s->memo = m, s->memo_cap = cap, s->memo_n = 0;
    }
    size_t h = (size_t)(((uintptr_t)g >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (s->memo_cap - 1);
    while (s->memo[h].geom && s->memo[h].geom != g)
        h = (h + 1) & (s->memo_cap - 1);
    sn_sap_memo *m = &s->memo[h];
    if (!m->geom) {
        *m = (sn_sap_memo){.geom = g, .body = dGeomGetBody(g), .cat = dGeomGetCategoryBits(g),
                           .col = dGeomGetCollideBits(g), .zero = sn_dbp_zero_sized(g)};
        s->memo_n++;
    }
    return m;
}

/* A float's place in the radix sort's order: its bits with the sign flipped above zero, all
** flipped below (-0 just under +0, as the sort puts them). */
static uint32_t radix_key(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u >> 31 ? ~u : u | 0x80000000u;
}

static int u64_cmp(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* ODE's RadixSort of pos[0..nb-1] with its ranks kept in s (room for nb made by the caller). */
static const uint32_t *sort_ranks(sn_sap *s, const float *pos, uint32_t nb)
{
    if (nb != s->n_rank) /* ODE: ReallocateRanksIfNecessary invalidates on a new count */
        s->valid = false, s->n_rank = nb;
    /* Already in order (float compares, as ODE's early out, so NaN never breaks it): the ranks
    ** stay, or, not yet valid, are the list order (and stay not valid). */
    bool sorted = true;
    float prev = pos[s->valid ? s->rank[0] : 0];
    for (uint32_t i = 0; i < nb && sorted; i++) {
        const float v = pos[s->valid ? s->rank[i] : i];
        sorted = !(v < prev);
        prev = v;
    }
    if (sorted) {
        if (!s->valid)
            for (uint32_t i = 0; i < nb; i++)
                s->rank[i] = i;
        return s->rank;
    }
    /* Least significant byte first, every pass stable but the last, which reverses what falls
    ** below zero: ordered by radix_key, ties in input order above zero and reversed below. The
    ** input order is the last ranks (or the list order); an insertion sort, as the last order
    ** is nearly this one. */
    size_t moves = 0;
    bool gave_up = false;
    for (uint32_t k = 0; k < nb; k++) {
        const uint32_t id = s->valid ? s->rank[k] : k;
        s->tmp[k] = id;
        const uint32_t rk = radix_key(pos[id]);
        const uint64_t x = (uint64_t)rk << 32 | (rk >> 31 ? k : nb - 1 - k);
        uint32_t j = k;
        if (!gave_up)
            for (; j > 0 && s->key[j - 1] > x; j--, moves++)
                s->key[j] = s->key[j - 1];
        s->key[j] = x;
        gave_up = gave_up || moves > 16 * (size_t)nb;
    }
    if (gave_up)
        qsort(s->key, nb, sizeof *s->key, u64_cmp);
    for (uint32_t i = 0; i < nb; i++) {
        const uint64_t x = s->key[i];
        const uint32_t t = (uint32_t)x;
        s->rank[i] = s->tmp[(x >> 63) ? t : nb - 1 - t];
    }
    s->valid = true;
    return s->rank;
}

static bool grow_list(sn_sap *s, size_t n)
{
    if (n <= s->cap)
        return true;
    size_t c[6] = {s->cap, s->cap, s->cap, s->cap, s->cap, s->cap};
    if (!SN_GROW(s->geom, c[0], n) || !SN_GROW(s->body, c[1], n) || !SN_GROW(s->cat, c[2], n) ||
        !SN_GROW(s->col, c[3], n) || !SN_GROW(s->box, c[4], n) || !SN_GROW(s->pos, c[5], n))
        return false;
    s->cap = c[0];
    return true;
}

static bool grow_inf(sn_sap *s, size_t n)
{
    if (n <= s->cap_inf)
        return true;
    size_t c[4] = {s->cap_inf, s->cap_inf, s->cap_inf, s->cap_inf};
    if (!SN_GROW(s->inf, c[0], n) || !SN_GROW(s->inf_body, c[1], n) || !SN_GROW(s->inf_cat, c[2], n) ||
        !SN_GROW(s->inf_col, c[3], n))
        return false;
    s->cap_inf = c[0];
    return true;
}

static bool grow_sorted(sn_sap *s, size_t n)
{
    if (n > s->cap_key) {
        size_t c[3] = {s->cap_key, s->cap_key, s->cap_key};
        if (!SN_GROW(s->key, c[0], n) || !SN_GROW(s->tmp, c[1], n) || !SN_GROW(s->rank, c[2], n))
            return false;
        s->cap_key = c[0];
    }
    if (n + PAD > s->cap_s) {
        size_t c[6] = {s->cap_s, s->cap_s, s->cap_s, s->cap_s, s->cap_s, s->cap_s};
        if (!SN_GROW(s->xs, c[0], n + PAD) || !SN_GROW(s->xe, c[1], n + PAD) || !SN_GROW(s->ylo, c[2], n + PAD) ||
            !SN_GROW(s->yhi, c[3], n + PAD) || !SN_GROW(s->zlo, c[4], n + PAD) || !SN_GROW(s->zhi, c[5], n + PAD))
            return false;
        s->cap_s = c[0];
    }
    return true;
}

/* ODE's tests before a near call in its sweep and prune (collideGeomsNoAABBs). */
static inline void near(dGeomID g1, dBodyID b1, unsigned long cat1, unsigned long col1, dGeomID g2, dBodyID b2,
                        unsigned long cat2, unsigned long col2, void *data, dNearCallback *cb)
{
    if (b1 && b1 == b2)
        return;
    if (!((cat1 & col2) || (cat2 & col1)))
        return;
    cb(data, g1, g2);
}

/* The pair of sorted places p < q passed the float test, which is ODE's own along x (its min x
** and max x compared as floats): y and z in double as ODE tests them, then its near call. */
static inline void pair(const sn_sap *s, const uint32_t *rank, uint32_t p, uint32_t q, bool strict, void *data,
                        dNearCallback *cb)
{
    const uint32_t a = rank[p], c = rank[q];
    const double *x = s->box[a], *y = s->box[c];
    if (!strict && !(x[3] >= y[2] && y[3] >= x[2] && x[5] >= y[4] && y[5] >= x[4]))
        return;
    near(s->geom[a], s->body[a], s->cat[a], s->col[a], s->geom[c], s->body[c], s->cat[c], s->col[c], data, cb);
}

/* The prune: each box against those after it in the order while their min x (the float) is at
** most its max x; the end cap (place n) stops it. */
static void prune(sn_sap *s, const uint32_t *rank, uint32_t n, void *data, dNearCallback *cb)
{
    for (uint32_t p = 0; p + 1 < n; p++) {
#ifdef __SSE2__
        const __m128 xe = _mm_set1_ps(s->xe[p]);
        const __m128 ylo = _mm_set1_ps(s->ylo[p]), yhi = _mm_set1_ps(s->yhi[p]);
        const __m128 zlo = _mm_set1_ps(s->zlo[p]), zhi = _mm_set1_ps(s->zhi[p]);
        for (uint32_t q = p + 1;; q += 4) {
            const int inx = _mm_movemask_ps(_mm_cmple_ps(_mm_loadu_ps(s->xs + q), xe));
            __m128 m = _mm_and_ps(_mm_cmpge_ps(yhi, _mm_loadu_ps(s->ylo + q)), _mm_cmpge_ps(_mm_loadu_ps(s->yhi + q), ylo));
            m = _mm_and_ps(m, _mm_and_ps(_mm_cmpge_ps(zhi, _mm_loadu_ps(s->zlo + q)),
                                         _mm_cmpge_ps(_mm_loadu_ps(s->zhi + q), zlo)));
            int hit = _mm_movemask_ps(m) & inx;
            /* Strictly apart as floats in y and z means strictly in double too (rounding keeps
            ** order): no double test. Equal floats (a seam within a float step) take it. */
            int strict = 0;
            if (hit) {
                __m128 st = _mm_and_ps(_mm_cmpgt_ps(yhi, _mm_loadu_ps(s->ylo + q)), _mm_cmpgt_ps(_mm_loadu_ps(s->yhi + q), ylo));
                st = _mm_and_ps(st, _mm_and_ps(_mm_cmpgt_ps(zhi, _mm_loadu_ps(s->zlo + q)),
                                               _mm_cmpgt_ps(_mm_loadu_ps(s->zhi + q), zlo)));
                strict = _mm_movemask_ps(st);
            }
            for (; hit; hit &= hit - 1) {
                const int lane = __builtin_ctz((unsigned)hit);
                const uint32_t r = q + (uint32_t)lane;
                if (r < n)
                    pair(s, rank, p, r, (strict >> lane) & 1, data, cb);
            }
            if (inx != 0xf)
                break;
        }
#else
        for (uint32_t q = p + 1; s->xs[q] <= s->xe[p]; q++) {
            if (s->yhi[p] >= s->ylo[q] && s->yhi[q] >= s->ylo[p] && s->zhi[p] >= s->zlo[q] && s->zhi[q] >= s->zlo[p] &&
                q < n)
                pair(s, rank, p, q, false, data, cb);
        }
#endif
    }
}

void sn_sap_collide(sn_sap *s, dSpaceID space, void *data, dNearCallback *cb)
{
    dSpaceClean(space);
    const int count = dSpaceGetNumGeoms(space);
    s->n = s->n_inf = 0;
    if (count < 0 || !grow_list(s, (size_t)count + 1) || !grow_inf(s, (size_t)count + 1))
        goto ode;
    bool odd = false; /* a box no float orders: ODE's own collide */
    for (int i = 0; i < count; i++) {
        const dGeomID g = dSpaceGetGeom(space, i);
        if (!dGeomIsEnabled(g))
            continue;
        const sn_sap_memo *a = memo_of(s, g);
        if (!a)
            goto ode;
        if (a->zero)
            continue;
        double b[6];
        dGeomGetAABB(g, b);
        if (b[1] == dInfinity) {
            const size_t m = s->n_inf++;
            s->inf[m] = g;
            s->inf_body[m] = a->body;
            s->inf_cat[m] = a->cat;
            s->inf_col[m] = a->col;
            continue;
        }
        const size_t k = s->n++;
        memcpy(s->box[k], b, sizeof b);
        s->geom[k] = g;
        s->body[k] = a->body;
        s->cat[k] = a->cat;
        s->col[k] = a->col;
        s->pos[k] = (float)b[0];
        odd = odd || !(s->pos[k] < FLT_MAX) || (float)b[1] >= FLT_MAX;
    }
    const uint32_t n = (uint32_t)s->n;
    if (n) {
        if (odd || !grow_sorted(s, (size_t)n + 1))
            goto ode;
        s->pos[n] = FLT_MAX;
        /* The end cap sorts last (every min x is below FLT_MAX), so places 0..n-1 are the geoms. */
        const uint32_t *rank = sort_ranks(s, s->pos, n + 1);
        for (uint32_t p = 0; p < n; p++) {
            const uint32_t a = rank[p];
            const double *b = s->box[a];
            s->xs[p] = s->pos[a];
            /* ODE compares x as floats (measured: a max x of 10.9999999999 meets a min x of
            ** 11.0000001, both 11 as float). Rounding to nearest keeps order (a >= b: (float)a >=
            ** (float)b), so every pair the double tests on y and z pass passes the float ones;
            ** NaN fails both. */
            s->xe[p] = (float)b[1];
            s->ylo[p] = (float)b[2], s->yhi[p] = (float)b[3];
            s->zlo[p] = (float)b[4], s->zhi[p] = (float)b[5];
        }
        for (uint32_t p = n; p < n + PAD; p++) { /* the cap (never a partner), then +inf */
            s->xs[p] = p == n ? FLT_MAX : INFINITY;
            s->ylo[p] = s->zlo[p] = INFINITY;
            s->yhi[p] = s->zhi[p] = -INFINITY;
        }
        prune(s, rank, n, data, cb);
    }
    for (size_t m = 0; m < s->n_inf; m++) {
        for (size_t k = m + 1; k < s->n_inf; k++)
            near(s->inf[m], s->inf_body[m], s->inf_cat[m], s->inf_col[m], s->inf[k], s->inf_body[k], s->inf_cat[k],
                 s->inf_col[k], data, cb);
        for (size_t k = 0; k < s->n; k++)
            near(s->inf[m], s->inf_body[m], s->inf_cat[m], s->inf_col[m], s->geom[k], s->body[k], s->cat[k], s->col[k],
                 data, cb);
    }
    return;
ode:
    s->valid = false, s->n_rank = 0;
    dSpaceCollide(space, data, cb);
}
