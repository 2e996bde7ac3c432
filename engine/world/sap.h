/* sap.h — the top space's collide below SN_DBP_MIN_GEOMS: ODE's sweep and prune
** (dSpaceCollide on a dSweepAndPruneSpace, boxes sorted along x) made again on a compact copy of
** the boxes, with the same near calls in the same order.
**
** ODE's prune reads every candidate's box through its geom, one cache miss per pair of boxes
** whose x-intervals overlap; those pairs grow as N^2 on a filling map (the town: 6 a vehicle at
** 25 vehicles, 22 at 144) while the pairs that meet stay 3 a vehicle. Here the boxes are read
** once per collide and the prune walks an array in sorted order.
**
** Same calls, same order: the geoms in the space's list order after dSpaceClean, enabled and not
** zero-sized, those with an infinite max x apart; the rest sorted by their min x rounded to
** float as ODE's radix sort orders them, which keeps its ranks from one collide to the next
** (ties, equal floats, keep the last order, reversed below zero; a new count starts again from
** list order); the prune's pairs in its order, then the infinite geoms', each through ODE's
** tests before a near call (not one body, category and collide bits). A box at or beyond
** float's range (a body blown up to NaN) hands the collide to ODE (and the ranks start again). */
#ifndef SN_WORLD_SAP_H
#define SN_WORLD_SAP_H

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sn_sap_geom {
    double box[6];          /* ODE's layout: min x, max x, min y, max y, min z, max z */
    dGeomID geom;
    dBodyID body;
    unsigned long cat, col; /* category and collide bits */
} sn_sap_geom;

typedef struct sn_sap {
    uint32_t *rank;         /* the sort's order kept across collides (ODE's ranks), n_rank of them */
    size_t n_rank, cap_rank;
    bool valid;             /* ODE's "ranks valid": false until a sort ran at this count */
    sn_sap_geom *g;         /* this collide's finite geoms, list order */
    size_t n, cap_g;
    sn_sap_geom *s;         /* the same in sorted order, for the prune */
    size_t cap_s;
    float *pos;             /* their min x as float, then FLT_MAX (n + 1) */
    size_t cap_pos;
    uint64_t *key;          /* sort scratch: order key << 32 | input place */
    size_t cap_key;
    uint32_t *tmp;          /* sort scratch: the input order */
    size_t cap_tmp;
    uint32_t (*pair)[2];    /* the prune's pairs (indices into g) */
    size_t n_pair, cap_pair;
    sn_sap_geom *inf;       /* the infinite geoms, list order */
    size_t n_inf, cap_inf;
} sn_sap;

void sn_sap_free(sn_sap *s);
/* dSpaceCollide(space, data, cb) for a sweep and prune space on x, y, z (dSAP_AXES_XYZ). */
void sn_sap_collide(sn_sap *s, dSpaceID space, void *data, dNearCallback *cb);

#endif
