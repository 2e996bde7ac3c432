/* sap.c — see sap.h. */
#include "sap.h"

#include "dbp.h"

#include <float.h>
#include <math.h>
#include <sensim/grow.h>
#include <stdlib.h>
#include <string.h>

void sn_sap_free(sn_sap *s)
{
    free(s->rank);
    free(s->g);
    free(s->s);
    free(s->pos);
    free(s->key);
    free(s->tmp);
    free(s->pair);
    free(s->inf);
    memset(s, 0, sizeof *s);
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

/* ODE's radix sort of pos[0..nb-1] (RadixSort in its sweep and prune, with its ranks kept in
** s): the ranks, or NULL when out of memory. */
static const uint32_t *sort_ranks(sn_sap *s, const float *pos, uint32_t nb)
{
    if (!SN_GROW(s->rank, s->cap_rank, nb) || !SN_GROW(s->key, s->cap_key, nb) || !SN_GROW(s->tmp, s->cap_tmp, nb))
        return NULL;
    if (nb != s->n_rank)
        s->valid = false, s->n_rank = nb;
    /* Already in order (float compares, so NaN never breaks it): the ranks stay, or, not yet
    ** valid, are the list order (and stay not valid). */
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
    ** below zero: ordered by radix_key, ties in input order above zero and reversed below. */
    size_t moves = 0;
    bool gave_up = false;
    for (uint32_t k = 0; k < nb; k++) {
        const uint32_t id = s->valid ? s->rank[k] : k;
        s->tmp[k] = id;
        const uint32_t rk = radix_key(pos[id]);
        const uint64_t x = (uint64_t)rk << 32 | (rk >> 31 ? k : nb - 1 - k);
        uint32_t j = k;
        if (!gave_up) /* insertion: the last order is nearly this one */
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

/* ODE's tests before a near call in its sweep and prune (collideGeomsNoAABBs). */
static void near(const sn_sap_geom *a, const sn_sap_geom *b, void *data, dNearCallback *cb)
{
    if (a->body && a->body == b->body)
        return;
    if (!((a->cat & b->col) || (b->cat & a->col)))
        return;
    cb(data, a->geom, b->geom);
}

void sn_sap_collide(sn_sap *s, dSpaceID space, void *data, dNearCallback *cb)
{
    dSpaceClean(space);
    const int count = dSpaceGetNumGeoms(space);
    s->n = s->n_inf = s->n_pair = 0;
    if (count < 0 || !SN_GROW(s->g, s->cap_g, (size_t)count + 1) || !SN_GROW(s->inf, s->cap_inf, (size_t)count + 1)) {
        dSpaceCollide(space, data, cb);
        return;
    }
    bool odd = false; /* a box no float orders: ODE's own collide */
    for (int i = 0; i < count; i++) {
        const dGeomID g = dSpaceGetGeom(space, i);
        if (!dGeomIsEnabled(g) || sn_dbp_zero_sized(g))
            continue;
        sn_sap_geom e = {.geom = g, .body = dGeomGetBody(g), .cat = dGeomGetCategoryBits(g), .col = dGeomGetCollideBits(g)};
        dGeomGetAABB(g, e.box);
        if (e.box[1] == dInfinity) {
            s->inf[s->n_inf++] = e;
            continue;
        }
        odd = odd || !((float)e.box[0] < FLT_MAX) || !(e.box[1] < FLT_MAX);
        s->g[s->n++] = e;
    }
    const uint32_t n = (uint32_t)s->n;
    if (n) {
        const uint32_t *rank = NULL;
        if (!odd && SN_GROW(s->pos, s->cap_pos, (size_t)n + 1) && SN_GROW(s->s, s->cap_s, n)) {
            for (uint32_t i = 0; i < n; i++)
                s->pos[i] = (float)s->g[i].box[0];
            s->pos[n] = FLT_MAX;
            rank = sort_ranks(s, s->pos, n + 1);
        }
        if (!rank) {
            s->valid = false, s->n_rank = 0;
            dSpaceCollide(space, data, cb);
            return;
        }
        /* The end cap sorts last (every min x is below FLT_MAX), so ranks 0..n-1 are the geoms. */
        for (uint32_t p = 0; p < n; p++)
            s->s[p] = s->g[rank[p]];
        /* The prune: each box against those after it in the order while their min x (the
        ** float) is at most its max x; the end cap stops it. */
        for (uint32_t p = 0; p + 1 < n; p++) {
            const double *a = s->s[p].box;
            for (uint32_t q = p + 1; q < n && (double)s->pos[rank[q]] <= a[1]; q++) {
                const double *c = s->s[q].box;
                if (a[3] >= c[2] && c[3] >= a[2] && a[5] >= c[4] && c[5] >= a[4]) {
                    if (!SN_GROW(s->pair, s->cap_pair, s->n_pair + 1)) {
                        s->valid = false, s->n_rank = 0;
                        dSpaceCollide(space, data, cb);
                        return;
                    }
                    s->pair[s->n_pair][0] = rank[p], s->pair[s->n_pair][1] = rank[q], s->n_pair++;
                }
            }
        }
        for (size_t k = 0; k < s->n_pair; k++)
            near(&s->g[s->pair[k][0]], &s->g[s->pair[k][1]], data, cb);
    }
    for (size_t m = 0; m < s->n_inf; m++) {
        for (size_t k = m + 1; k < s->n_inf; k++)
            near(&s->inf[m], &s->inf[k], data, cb);
        for (size_t k = 0; k < s->n; k++)
            near(&s->inf[m], &s->g[k], data, cb);
    }
}
