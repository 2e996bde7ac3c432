/* dbp.h — the broadphase of the top space: which pairs of its geoms (chassis, crash boxes,
** walkers, props on bodies, ground planes, the static space as one geom) may touch.
**
** ODE's sweep and prune sorts the boxes along x and tests every pair whose x-intervals
** overlap, so cars in a column or on a street along y (one x-interval) cost O(k^2) per
** column: at 5000 cars it was the largest item of a step. This is a 2-D (x, y) grid of the
** geoms' AABBs in hashed cells, rebuilt each collide in O(n) into storage kept across
** steps. It makes the calls dSpaceCollide makes: every pair of enabled geoms whose AABBs
** meet, not on one body, whose category and collide bits meet, exactly once; in a fixed
** order (lexicographic in the order geoms are handed in: for the world, the static space,
** the planes, then the bodies in id order and each body's geoms in ODE's order), so the
** contacts, and every output, depend on the scene and seed only.
**
** It differs from sweep and prune in two ways that make no contact: geoms with an infinite
** AABB (planes) are called only when their AABBs meet the other's (as ODE's other spaces
** do; sweep and prune calls them with every geom), and boxes are compared in double, not
** rounded to float. Geoms whose AABB covers more than SN_DBP_BIG_CELLS cells or is not
** finite are tested against all; the grid coarsens until it holds at most 4 entries per
** geom, so memory stays linear in the number of geoms. */
#ifndef SN_WORLD_DBP_H
#define SN_WORLD_DBP_H

#include "sap.h"

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sn_world;

#define SN_DBP_BIG_CELLS 64
/* Below this many geoms in the top space sweep and prune's calls stay (ODE's, made by sap.h). Since the grid replaced
** its bookkeeping (no dSpaceClean, vehicles' boxes from their bodies) it costs the same at 200
** cars and saves 1.3-1.45x at 1000 (CPU time, bench_engine's scene); 1024 geoms is about 500
** vehicles, well above every shipped scene (the pile-up has 120), which keep sweep and prune
** and their outputs as they were. */
#define SN_DBP_MIN_GEOMS 1024

typedef struct sn_dbp_geom {
    dGeomID geom;
    dBodyID body;
    dReal box[6];           /* AABB, ODE's layout: min x, max x, min y, max y, min z, max z */
    unsigned long cat, col; /* category and collide bits */
    /* Its cells; a pair is reported from the first cell both share. 32 bits (two boxes a car at
    ** 5 000 cars, 16 bytes each less): a geom whose cells lie beyond is big. */
    int32_t ix0, iy0, ix1, iy1;
    uint32_t entry;         /* its first cell's place in slots */
    bool big;               /* in no cell: tested against every geom */
} sn_dbp_geom;

typedef struct sn_dbp {
    sn_dbp_geom *g;          /* this collide's geoms, in the order handed in */
    size_t n, cap;
    uint64_t *keys;          /* cell keys, open addressing */
    uint32_t *start, *count; /* each cell's run in items; count 0 = empty slot */
    size_t cap_cells, n_cells; /* allocated; in use (a power of two) */
    unsigned shift;          /* 64 - log2(n_cells): a key's slot is its hash's top bits */
    bool dense;              /* this build indexes cells directly: slot (ix - dx0) * dny + iy - dy0 */
    int64_t dx0, dy0, dny;
    uint32_t *items;         /* indices into g, ascending within a cell */
    uint32_t *slots;         /* each geom's cells' slots, geom after geom (g[i].entry on) */
    size_t cap_items;        /* of items and slots */
    uint32_t *big;           /* indices into g of the geoms no cell holds, ascending */
    size_t n_big;
    uint32_t *hits;          /* scratch: one geom's partners (room for n) */
    double *sizes;           /* scratch for the cell size (room for n) */
    double cell, inv_cell;   /* edge of a cell (m) and its inverse; 0: not chosen yet */
    size_t cell_n;           /* geoms when the cell was chosen */
    unsigned cell_age;       /* collides since */
    /* Benchmarks and the equivalence test only (SENSIM_BENCH_ODE_SAP set when the world is
    ** made): the world's collide is ODE's sweep and prune, the path this replaced. */
    bool ode_sap;
    size_t min_geoms;        /* SN_DBP_MIN_GEOMS; tests set 0 to use the grid at any size */
    sn_sap sap;              /* below min_geoms: ODE's sweep and prune's calls (sap.h) */
    uint64_t sap_gen;        /* the world's gen when sap's memo was last forgotten */
} sn_dbp;

void sn_dbp_init(sn_dbp *b);
void sn_dbp_free(sn_dbp *b);

/* Room for n geoms, then b->n = 0; false when out of memory. */
bool sn_dbp_reset(sn_dbp *b, size_t n);
/* Appends g (after sn_dbp_reset made room) unless ODE's collide would skip it: disabled or
** zero-sized. Its AABB must be up to date (dSpaceClean of its space). */
void sn_dbp_add(sn_dbp *b, dGeomID g);
/* Whether ODE's collide skips g as zero-sized (GEOM_ZERO_SIZED: a box side, a radius or a
** length of 0), as it skips a disabled geom. */
bool sn_dbp_zero_sized(dGeomID g);
/* cb(data, g[i], g[j]) for every pair i < j of the added geoms that meets (see above), in
** order of i then j. False, before any call, when out of memory. Callbacks must not use b. */
bool sn_dbp_pairs(sn_dbp *b, void *data, dNearCallback *cb);

/* dSpaceCollide(space) through the grid, geoms in the space's own list order; false, before
** any call, when out of memory. For tests. */
bool sn_dbp_collide_space(sn_dbp *b, dSpaceID space, void *data, dNearCallback *cb);
/* dSpaceCollide(w->space, data, cb) through the grid in the world's fixed order (ODE's sweep
** and prune when b->ode_sap or out of memory). */
void sn_dbp_collide_world(struct sn_world *w, void *data, dNearCallback *cb);

#endif
