/* geom_pool.c — trimesh geoms kept across a reset (geom_pool.h). */
#include "geom_pool.h"

#include <stdlib.h>
#include <string.h>

/* The slots taken out, the rest kept in their order (the cursor on the same geom): a pool that
** never empties (a world's geoms over data the next does not ask for, kept until the unload)
** must not grow with every reset. */
static void compact(sn_geom_pool *p)
{
    size_t j = 0, cursor = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (i == p->cursor)
            cursor = j;
        if (p->g[i])
            p->g[j++] = p->g[i];
    }
    p->cursor = p->cursor < p->n ? cursor : 0;
    p->n = j;
}

bool sn_geom_pool_put(sn_geom_pool *p, dGeomID g)
{
    if (!p->live) /* every one taken: start over, in order */
        p->n = p->cursor = 0;
    if (p->n == p->cap && p->live < p->n)
        compact(p);
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        dGeomID *ng = realloc(p->g, cap * sizeof *ng);
        if (!ng)
            return false;
        p->g = ng, p->cap = cap;
    }
    dSpaceID s = dGeomGetSpace(g);
    if (s)
        dSpaceRemove(s, g);
    p->g[p->n++] = g;
    p->live++;
    return true;
}

dGeomID sn_geom_pool_take(sn_geom_pool *p, dTriMeshDataID data, dSpaceID space)
{
    if (!p->live)
        return NULL;
    for (size_t k = 0; k < p->n; k++) {
        size_t i = (p->cursor + k) % p->n;
        dGeomID g = p->g[i];
        if (!g || dGeomTriMeshGetTriMeshDataID(g) != data)
            continue;
        p->g[i] = NULL, p->live--, p->cursor = i + 1 < p->n ? i + 1 : 0;
        /* as made new: no pairs remembered from the last world (its boxes are freed, and a new
        ** one at a freed one's address must not meet its cache), the zero last transform of a
        ** new trimesh, then into the space, dirty and at its front as a new geom goes */
        dGeomTriMeshClearTCCache(g);
        static const dMatrix4 zero;
        dGeomTriMeshSetLastTransform(g, zero);
        dSpaceAdd(space, g);
        dGeomSetPosition(g, 0, 0, 0); /* where it stands (never moved): marks it dirty, to the front */
        return g;
    }
    return NULL;
}

void sn_geom_pool_free(sn_geom_pool *p)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->g[i])
            dGeomDestroy(p->g[i]);
    free(p->g);
    memset(p, 0, sizeof *p);
}
