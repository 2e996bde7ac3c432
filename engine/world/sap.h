/* sap.h — the top space's collide below SN_DBP_MIN_GEOMS: ODE's sweep and prune (dSpaceCollide
** on a dSweepAndPruneSpace, boxes sorted along x) made again, the same near calls in the same
** order, with each box's partners found four at a time.
**
** ODE's prune tests every pair whose x-intervals overlap one by one (3-4 ns a pair); on a
** filling map those pairs grow as N^2 (the town: 6 a vehicle at 25 vehicles, 22 at 144) while
** the pairs that meet stay 3 a vehicle. Here the sorted boxes' min x and their y and z
** intervals lie in float arrays (ODE's own test along x is in float; rounding keeps order, so no
** pair the double tests on y and z pass fails there), four candidates tested in a few
** instructions; a candidate that passes is tested again on y and z in double, as ODE does.
**
** Same calls, same order: the geoms in the space's list order after dSpaceClean, enabled and not
** zero-sized, those with an infinite max x apart; the rest sorted by their min x rounded to
** float as ODE's radix sort orders them, which keeps its ranks from one collide to the next
** (ties, equal floats, keep the last order, reversed below zero; a new count starts again from
** list order); the prune's pairs in its order (the first box's place, then the second's), then
** the infinite geoms', each through ODE's tests before a near call (not one body, category and
** collide bits). A box whose min x or max x is not below FLT_MAX as float (a body blown up; ODE
** would read past its list) hands the collide to ODE, as does running out of memory; this
** object's ranks then start again from list order (ODE's, never used while this runs, would
** not have followed). */
#ifndef SN_WORLD_SAP_H
#define SN_WORLD_SAP_H

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a geom's near calls need that changes only when it is made, attached or destroyed. */
typedef struct sn_sap_memo {
    dGeomID geom;           /* NULL: an empty slot */
    dBodyID body;
    unsigned long cat, col;
    bool zero;              /* zero-sized: ODE's collide skips it */
} sn_sap_memo;

typedef struct sn_sap {
    uint32_t *rank;         /* the sort's order kept across collides (ODE's ranks), n_rank of them */
    size_t n_rank, cap_rank;
    bool valid;             /* ODE's "ranks valid": false until a sort ran at this count */
    /* This collide's finite geoms in list order (n), and the infinite ones (n_inf). */
    dGeomID *geom;
    dBodyID *body;
    unsigned long *cat, *col;
    double (*box)[6];       /* ODE's layout: min x, max x, min y, max y, min z, max z */
    float *pos;             /* min x as float, then FLT_MAX (n + 1) */
    size_t n, cap;
    dGeomID *inf;
    dBodyID *inf_body;
    unsigned long *inf_cat, *inf_col;
    size_t n_inf, cap_inf;
    /* The same boxes in sorted order as floats (min x, max x, y and z), padded past the end cap. */
    float *xs, *xe, *ylo, *yhi, *zlo, *zhi;
    size_t cap_s;
    uint64_t *key;          /* sort scratch: order key << 32 | input place */
    uint32_t *tmp;          /* sort scratch: the input order */
    size_t cap_key;
    /* The geoms' fixed attributes by geom, open addressing (a power of two, at most half full):
    ** five ODE calls a geom a collide were a fifth of this collide's cost. */
    sn_sap_memo *memo;
    size_t memo_cap, memo_n;
} sn_sap;

void sn_sap_free(sn_sap *s);
/* Forgets the geoms' attributes: call it whenever a geom of the space is made, destroyed, or
** given another body, category or collide bits or size (the world does on materialising and
** removing an actor, the only places it does those, each moving its gen on: dbp.c forgets
** when gen moved). Enabling and disabling need no call. */
void sn_sap_forget(sn_sap *s);
/* dSpaceCollide(space, data, cb) for a sweep and prune space on x, y, z (dSAP_AXES_XYZ). */
void sn_sap_collide(sn_sap *s, dSpaceID space, void *data, dNearCallback *cb);

#endif
