/* ogrid.c — see ogrid.h. */
#include "ogrid.h"

#include "world.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CELL 8.0 /* metres: about two car lengths */

static double radius(const sn_actor *a) { return sn_v3_len(a->ph->bbox.extent); }

static sn_vec3 centre(const sn_actor *a) { return sn_v3_add(a->st.pos, sn_quat_apply(a->st.rot, a->ph->bbox.location)); }

static uint64_t key_of(int64_t ix, int64_t iy) { return (uint64_t)(uint32_t)ix << 32 | (uint32_t)iy; }

static size_t slot_of(const sn_ogrid *g, uint64_t key)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (g->cap - 1);
    while (g->head[i] >= 0 && g->keys[i] != key)
        i = (i + 1) & (g->cap - 1);
    return i;
}

static bool grow_table(sn_ogrid *g)
{
    size_t cap = g->cap ? g->cap * 2 : 256;
    uint64_t *keys = malloc(cap * sizeof *keys);
    int32_t *head = malloc(cap * sizeof *head);
    if (!keys || !head) {
        free(keys);
        free(head);
        return false;
    }
    memset(head, 0xff, cap * sizeof *head);
    sn_ogrid old = *g;
    g->keys = keys, g->head = head, g->cap = cap;
    for (size_t i = 0; i < old.cap; i++) {
        if (old.head[i] < 0)
            continue;
        size_t s = slot_of(g, old.keys[i]);
        g->keys[s] = old.keys[i];
        g->head[s] = old.head[i];
    }
    free(old.keys);
    free(old.head);
    return true;
}

static bool insert(sn_ogrid *g, sn_actor *a)
{
    if ((g->used + 1) * 2 > g->cap && !grow_table(g))
        return false;
    if (g->n_ent == g->cap_ent) {
        size_t cap = g->cap_ent ? g->cap_ent * 2 : 256;
        sn_actor **ent = realloc(g->ent, cap * sizeof *ent);
        if (!ent)
            return false;
        g->ent = ent;
        int32_t *next = realloc(g->next, cap * sizeof *next);
        if (!next)
            return false;
        g->next = next;
        g->cap_ent = cap;
    }
    sn_vec3 c = centre(a);
    size_t s = slot_of(g, key_of((int64_t)floor(c.x / CELL), (int64_t)floor(c.y / CELL)));
    if (g->head[s] < 0) {
        g->keys[s] = key_of((int64_t)floor(c.x / CELL), (int64_t)floor(c.y / CELL));
        g->used++;
    }
    g->ent[g->n_ent] = a;
    g->next[g->n_ent] = g->head[s];
    g->head[s] = (int32_t)g->n_ent++;
    g->rmax = fmax(g->rmax, radius(a));
    return true;
}

void sn_ogrid_free(sn_ogrid *g)
{
    free(g->keys);
    free(g->head);
    free(g->ent);
    free(g->next);
    memset(g, 0, sizeof *g);
}

void sn_ogrid_release(sn_ogrid *g)
{
    if (g->built)
        sn_ogrid_free(g);
}

bool sn_ogrid_sync(sn_world *w)
{
    sn_ogrid *g = &w->ogrid;
    if (g->built && g->motion_gen == w->motion_gen)
        return true;
    if (g->cap)
        memset(g->head, 0xff, g->cap * sizeof *g->head);
    g->used = g->n_ent = 0;
    g->rmax = 0;
    g->built = false;
    for (size_t i = 0; i < w->n_bodies; i++)
        if (!insert(g, w->bodies[i]))
            return false;
    g->built = true;
    g->motion_gen = w->motion_gen;
    return true;
}

bool sn_ogrid_add(sn_world *w, sn_actor *a)
{
    sn_ogrid *g = &w->ogrid;
    if (!g->built || g->motion_gen != w->motion_gen)
        return true; /* rebuilt at the next query anyway */
    if (!insert(g, a)) {
        g->built = false;
        return false;
    }
    return true;
}

void sn_ogrid_near(const sn_world *w, double cx, double cy, double r, void (*fn)(void *user, sn_actor *a), void *user)
{
    const sn_ogrid *g = &w->ogrid;
    double reach = r + g->rmax;
    int64_t x0 = (int64_t)floor((cx - reach) / CELL), x1 = (int64_t)floor((cx + reach) / CELL);
    int64_t y0 = (int64_t)floor((cy - reach) / CELL), y1 = (int64_t)floor((cy + reach) / CELL);
    if (!g->built || (double)(x1 - x0 + 1) * (double)(y1 - y0 + 1) > (double)g->n_ent + 16) {
        /* A reach wider than the grid is worth walking (a huge box): every body instead. */
        for (size_t i = 0; i < w->n_bodies; i++)
            fn(user, w->bodies[i]);
        return;
    }
    for (int64_t ix = x0; ix <= x1; ix++) {
        for (int64_t iy = y0; iy <= y1; iy++) {
            if (!g->cap)
                return;
            size_t s = slot_of(g, key_of(ix, iy));
            for (int32_t k = g->head[s]; k >= 0; k = g->next[k])
                fn(user, g->ent[k]);
        }
    }
}
