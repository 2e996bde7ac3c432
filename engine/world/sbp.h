/* sbp.h — the static broadphase: which static geoms a moving geom's box may touch.
**
** ODE 0.16 answers dSpaceCollide2(geom, hash space) by testing the geom's AABB against every
** geom in the space (dxHashSpace::collide2 does not use its hash), so each chassis, wheel ray
** and spawn check paid O(statics) per query. This is a 2-D (x, y) grid of the static geoms'
** AABBs in hashed cells, rebuilt lazily when static actors change (w->static_gen) and reused
** across steps. A query makes exactly the callback calls dSpaceCollide2 on w->static_space
** makes: the same pairs (category and collide bits, AABB overlap), the same argument order,
** in the space's own list order; so contacts, and every output, are what they were.
**
** Statics whose AABB would cover more than SN_SBP_BIG_CELLS cells (a 10 km slab) or is not
** finite are kept in a list every query tests; the grid coarsens until it holds at most
** 4 entries per static, so memory stays linear in the number of statics. */
#ifndef SN_WORLD_SBP_H
#define SN_WORLD_SBP_H

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sclear.h"

struct sn_world;

#define SN_SBP_BIG_CELLS 64

typedef struct sn_sbp_geom {
    dGeomID geom;
    dReal box[6];           /* AABB, ODE's layout: min x, max x, min y, max y, min z, max z */
    unsigned long cat, col; /* category and collide bits */
    int64_t ix0, iy0, ix1, iy1; /* its cells; a query reports it from the first one it shares */
    bool big;               /* in no cell: every query tests it */
} sn_sbp_geom;

typedef struct sn_sbp {
    sn_sbp_geom *g;          /* the static space's geoms, in its list order */
    size_t n, cap;
    uint64_t *keys;          /* cell keys, open addressing */
    uint32_t *start, *count; /* each cell's run in items; count 0 = empty slot */
    size_t cap_cells, n_cells; /* allocated; in use */
    /* The grid indexed directly (slot (ix - dx0) * dny + iy - dy0, no keys) when the statics'
    ** cells span no more than a few times the hashed table: no probing on a town's map. */
    bool dense;
    int64_t dx0, dy0, dnx, dny;
    uint32_t *items;         /* indices into g, ascending within a cell */
    size_t n_items, cap_items;
    uint32_t *big;           /* indices into g of the statics no cell holds, ascending */
    size_t n_big;
    uint32_t *hits;          /* scratch: one query's overlapping statics (room for n) */
    double cell, inv_cell;   /* edge of a cell (m) and its inverse */
    uint64_t gen;            /* w->static_gen it was built at */
    bool built;
    sn_sclear clear;         /* where only the map's surfaces stand (sclear.h): sn_sbp_clear */
    bool clear_due;          /* statics changed since it was built */
    uint64_t clear_asked;    /* wheels asked since then */
    /* Benchmarks only (SENSIM_BENCH_ODE_STATICS set when the world is made): every query
    ** goes through ODE's scan, the path this replaced, to measure against it. */
    bool ode_only;
} sn_sbp;

void sn_sbp_init(sn_sbp *b);
void sn_sbp_free(sn_sbp *b);
/* Brings the grid up to date with w->static_space; false when out of memory (queries then
** fall back to ODE's scan: slower, the same calls). */
bool sn_sbp_sync(struct sn_world *w);
#define SN_SBP_NONE SIZE_MAX
/* The statics whose AABB meets box (ODE's layout) and whose bits meet (cat, col), in the
** space's list order: *out gets indices into w->sbp.g, valid until the next query. The count,
** or SN_SBP_NONE when the broadphase is off or out of memory: use dSpaceCollide2 then. */
size_t sn_sbp_query(struct sn_world *w, const dReal box[6], unsigned long cat, unsigned long col,
                    const uint32_t **out);
/* The clear grid (sclear.h) for the statics as they are, after sn_sbp_sync. Built once the
** statics have stood unchanged for about two frames of wheel queries (40 per body), or at once
** with now: a scene that moves a static every frame would otherwise rebuild it every frame (on
** Town04 about 3x the grid's own rebuild). Off (clear nowhere) until then; never changes what
** a wheel meets, only whether its ray is traced. */
const sn_sclear *sn_sbp_clear(struct sn_world *w, bool now);
/* ODE's AABB test (collideAABBs): touching boxes meet. */
static inline bool sn_sbp_boxes_meet(const dReal *a, const dReal *c)
{
    return !(a[0] > c[1] || a[1] < c[0] || a[2] > c[3] || a[3] < c[2] || a[4] > c[5] || a[5] < c[4]);
}
/* cb(data, s, g) when static_first, else cb(data, g, s), for every static geom s that
** dSpaceCollide2 of g and w->static_space would report, in the same order. Callbacks must
** not query the broadphase again (the scratch list is in use). */
void sn_sbp_collide(struct sn_world *w, dGeomID g, bool static_first, void *data, dNearCallback *cb);

#endif
