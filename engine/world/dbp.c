/* dbp.c — see dbp.h. */
#include "dbp.h"

#include "cellgrid.h"
#include "world.h"

#include <math.h>
#include <sensim/grow.h>
#include <stdlib.h>
#include <string.h>

/* Collides between two choices of the cell edge (it changes speed only, never the pairs). */
#define CELL_MAX_AGE 64

void sn_dbp_init(sn_dbp *b)
{
    memset(b, 0, sizeof *b);
    b->ode_sap = getenv("SENSIM_BENCH_ODE_SAP") != NULL;
    b->min_geoms = getenv("SENSIM_BENCH_DBP_ALWAYS") ? 0 : SN_DBP_MIN_GEOMS;
}

void sn_dbp_free(sn_dbp *b)
{
    sn_sap_free(&b->sap);
    free(b->g);
    free(b->keys);
    free(b->start);
    free(b->count);
    free(b->items);
    free(b->slots);
    free(b->big);
    free(b->hits);
    free(b->sizes);
    memset(b, 0, sizeof *b);
}

bool sn_dbp_reset(sn_dbp *b, size_t n)
{
    b->n = 0;
    if (n >= UINT32_MAX)
        return false;
    if (n > b->cap) { /* four arrays of one capacity: each grows from b->cap alike */
        size_t cg = b->cap, cb = b->cap, ch = b->cap, cs = b->cap;
        if (!SN_GROW(b->g, cg, n) || !SN_GROW(b->big, cb, n) || !SN_GROW(b->hits, ch, n) || !SN_GROW(b->sizes, cs, n))
            return false;
        b->cap = cg;
    }
    return true;
}

/* ODE's collide skips zero-sized geoms as it skips disabled ones (GEOM_ZERO_SIZED). */
bool sn_dbp_zero_sized(dGeomID g)
{
    switch (dGeomGetClass(g)) {
    case dBoxClass: {
        dVector3 l;
        dGeomBoxGetLengths(g, l);
        return !l[0] || !l[1] || !l[2];
    }
    case dSphereClass:
        return !dGeomSphereGetRadius(g);
    case dCylinderClass:
    case dCapsuleClass: {
        dReal r, len;
        if (dGeomGetClass(g) == dCylinderClass)
            dGeomCylinderGetParams(g, &r, &len);
        else
            dGeomCapsuleGetParams(g, &r, &len);
        return !r || !len;
    }
    default:
        return false;
    }
}

void sn_dbp_add(sn_dbp *b, dGeomID g)
{
    if (b->n >= b->cap || !dGeomIsEnabled(g) || sn_dbp_zero_sized(g))
        return;
    sn_dbp_geom *s = &b->g[b->n++];
    s->geom = g;
    s->body = dGeomGetBody(g);
    dGeomGetAABB(g, s->box);
    s->cat = dGeomGetCategoryBits(g);
    s->col = dGeomGetCollideBits(g);
}

/* Appends a box geom of `body`, sides `side`, centred `off` from the body in the body frame
** (no offset rotation), with the box computed here from the body's pose, not by ODE: a box a
** hair larger than ODE's (rounding), so every pair ODE's boxes would give is among the pairs,
** and any extra one is a pair whose shapes do not touch (no contact, no call with an effect).
** ODE's own computation of a moved geom's box goes through its offset's separate storage, a
** cache miss per geom: it was a fifth of a step at 5000 cars. */
static void add_body_box(sn_dbp *b, dGeomID g, dBodyID body, const double off[3], const double side[3],
                         unsigned long cat, unsigned long col)
{
    if (b->n >= b->cap)
        return;
    const dReal *p = dBodyGetPosition(body), *R = dBodyGetRotation(body);
    sn_dbp_geom *s = &b->g[b->n++];
    s->geom = g;
    s->body = body;
    s->cat = cat;
    s->col = col;
    for (int i = 0; i < 3; i++) {
        const dReal *r = R + 4 * i; /* row i: world axis i in body coordinates */
        double c = p[i] + r[0] * off[0] + r[1] * off[1] + r[2] * off[2];
        double h = 0.5 * (fabs(r[0] * side[0]) + fabs(r[1] * side[1]) + fabs(r[2] * side[2]));
        double m = 1e-9 * (1 + fabs(c) + h);
        s->box[2 * i] = c - h - m;
        s->box[2 * i + 1] = c + h + m;
    }
}

/* g as a vehicle's crash box or box chassis (physics.c makes them so), from its body's pose;
** false for any other geom. */
static bool add_vehicle_box(sn_dbp *b, const sn_actor *a, dGeomID g)
{
    if (a->kind != SN_ACTOR_VEHICLE || !a->ph->crash || (g != a->ph->crash && (g != a->ph->geom || a->shape != SN_SHAPE_BOX)))
        return false;
    const sn_vec3 e = a->ph->bbox.extent, o = sn_v3_sub(a->ph->bbox.location, a->ph->com);
    if (g == a->ph->crash) {
        add_body_box(b, g, a->ph->body, (double[3]){o.x, o.y, o.z}, (double[3]){2 * e.x, 2 * e.y, 2 * e.z}, SN_CAT_CRASH,
                     SN_CAT_CRASH);
        return true;
    }
    const double c = a->mv->vp->clearance; /* the chassis starts above it */
    if (!(2 * e.z - c > 0))
        return false;
    add_body_box(b, g, a->ph->body, (double[3]){o.x, o.y, o.z + c / 2}, (double[3]){2 * e.x, 2 * e.y, 2 * e.z - c},
                 SN_CAT_CHASSIS, ~(unsigned long)(SN_CAT_CHASSIS | SN_CAT_CRASH));
    return true;
}

/* Slots are a power of two; cellgrid.h does the probing. */
static size_t slot_of(const sn_dbp *b, uint64_t key) { return sn_cell_slot(b->keys, b->count, 64 - b->shift, key); }

/* Marks each geom big or sets its cells at the current edge; the grid entries needed. */
static double place(sn_dbp *b)
{
    double items = 0;
    b->n_big = 0;
    for (size_t i = 0; i < b->n; i++) {
        sn_dbp_geom *s = &b->g[i];
        double r[4];
        double c = sn_cell_range(s->box, b->inv_cell, r) ? (r[1] - r[0] + 1) * (r[3] - r[2] + 1) : 0;
        s->big = !c || c > SN_DBP_BIG_CELLS || !(fmax(fabs(r[0]), fabs(r[1])) <= INT32_MAX) ||
                 !(fmax(fabs(r[2]), fabs(r[3])) <= INT32_MAX);
        if (s->big) {
            b->big[b->n_big++] = (uint32_t)i;
            continue;
        }
        s->ix0 = (int32_t)r[0], s->ix1 = (int32_t)r[1];
        s->iy0 = (int32_t)r[2], s->iy1 = (int32_t)r[3];
        items += c;
    }
    return items;
}

/* The cell edge: the median footprint (a car or a walker per cell), at least a sixth of
** the 95th percentile so that few geoms are big. Chosen again when the number of geoms has
** halved or doubled, or every CELL_MAX_AGE collides, as they move and change. */
static void choose_cell(sn_dbp *b)
{
    if (b->cell && b->cell_age++ < CELL_MAX_AGE && b->n <= 2 * b->cell_n && 2 * b->n >= b->cell_n)
        return;
    size_t m = 0;
    for (size_t i = 0; i < b->n; i++) {
        const dReal *x = b->g[i].box;
        double s = fmax(x[1] - x[0], x[3] - x[2]);
        if (isfinite(s))
            b->sizes[m++] = s;
    }
    double cell = 1.0;
    if (m) {
        qsort(b->sizes, m, sizeof *b->sizes, sn_cmp_double);
        cell = fmax(cell, fmax(b->sizes[m / 2], b->sizes[m * 95 / 100] / 6));
    }
    b->cell = cell;
    b->inv_cell = 1 / cell;
    b->cell_n = b->n;
    b->cell_age = 0;
}

/* ODE's test before a near call (collideAABBs): not one body, bits, boxes meet (touching). */
static inline bool meet(const sn_dbp_geom *s, const sn_dbp_geom *o)
{
    if (s->body && s->body == o->body)
        return false;
    if (!((s->cat & o->col) || (o->cat & s->col)))
        return false;
    const dReal *a = s->box, *c = o->box;
    return !(a[0] > c[1] || a[1] < c[0] || a[2] > c[3] || a[3] < c[2] || a[4] > c[5] || a[5] < c[4]);
}

/* Fills the grid; false when out of memory. */
static bool build(sn_dbp *b)
{
    choose_cell(b);
    double items;
    /* Coarser while the grid would hold more than 4 entries per geom (long, thin boxes). */
    for (int tries = 0; (items = place(b)) > 4.0 * (double)b->n + 1024 && tries < 80; tries++) {
        b->cell *= 2;
        b->inv_cell = 1 / b->cell;
    }
    if (items >= (double)UINT32_MAX / 2)
        return false;
    size_t n_items = (size_t)items, cells = 16;
    unsigned shift = 60;
    while (cells < 2 * n_items)
        cells *= 2, shift--;
    /* Where the geoms' cells span a rectangle of no more cells than the table would have
    ** (a town, a column of cars), cells are indexed directly: no probing, and a table the size
    ** of the occupied area stays in cache (probing a hashed table was half of the build at
    ** 5000 cars). The pairs and their order do not depend on where a cell's run is kept. */
    int64_t x0 = INT64_MAX, x1 = INT64_MIN, y0 = INT64_MAX, y1 = INT64_MIN;
    for (size_t i = 0; i < b->n; i++) {
        const sn_dbp_geom *g = &b->g[i];
        if (g->big)
            continue;
        x0 = g->ix0 < x0 ? g->ix0 : x0, x1 = g->ix1 > x1 ? g->ix1 : x1;
        y0 = g->iy0 < y0 ? g->iy0 : y0, y1 = g->iy1 > y1 ? g->iy1 : y1;
    }
    b->dense = x0 <= x1 && (double)(x1 - x0 + 1) * (double)(y1 - y0 + 1) <= (double)cells;
    if (b->dense) {
        b->dx0 = x0, b->dy0 = y0, b->dny = y1 - y0 + 1;
        cells = (size_t)((x1 - x0 + 1) * b->dny);
    }
    if (cells > b->cap_cells) {
        size_t ck = b->cap_cells, cs = b->cap_cells, cc = b->cap_cells;
        if (!SN_GROW(b->keys, ck, cells) || !SN_GROW(b->start, cs, cells) || !SN_GROW(b->count, cc, cells))
            return false;
        b->cap_cells = ck;
    }
    if (n_items > b->cap_items) {
        size_t ci = b->cap_items, cs = b->cap_items;
        if (!SN_GROW(b->items, ci, n_items) || !SN_GROW(b->slots, cs, n_items))
            return false;
        b->cap_items = ci;
    }
    /* Only `cells` slots of what is allocated: a small grid stays quick to clear. */
    b->n_cells = cells;
    b->shift = shift;
    memset(b->count, 0, cells * sizeof *b->count);
    /* Each geom's cells are hashed once: their slots, in its run of b->slots, serve the
    ** fill and the pair search. */
    uint32_t e = 0;
    for (size_t i = 0; i < b->n; i++) {
        sn_dbp_geom *s = &b->g[i];
        if (s->big)
            continue;
        s->entry = e;
        for (int64_t ix = s->ix0; ix <= s->ix1; ix++)
            for (int64_t iy = s->iy0; iy <= s->iy1; iy++) {
                size_t slot;
                if (b->dense) {
                    slot = (size_t)((ix - b->dx0) * b->dny + (iy - b->dy0));
                } else {
                    uint64_t key = sn_cell_key(ix, iy);
                    slot = slot_of(b, key);
                    b->keys[slot] = key;
                }
                b->count[slot]++;
                b->slots[e++] = (uint32_t)slot;
            }
    }
    /* Each cell's run ends at start; filling from the back in descending order leaves start
    ** at the run's beginning and every run ascending. */
    uint32_t end = 0;
    for (size_t c = 0; c < cells; c++)
        b->start[c] = end += b->count[c];
    for (size_t i = b->n; i-- > 0;) {
        const sn_dbp_geom *s = &b->g[i];
        if (s->big)
            continue;
        for (uint32_t t = s->entry, end = t + (uint32_t)((s->ix1 - s->ix0 + 1) * (s->iy1 - s->iy0 + 1)); t < end; t++)
            b->items[--b->start[b->slots[t]]] = (uint32_t)i;
    }
    return true;
}

static void sort_hits(uint32_t *h, size_t k)
{
    if (k > 32) {
        qsort(h, k, sizeof *h, sn_cmp_u32);
        return;
    }
    for (size_t i = 1; i < k; i++) {
        uint32_t v = h[i];
        size_t j = i;
        for (; j > 0 && h[j - 1] > v; j--)
            h[j] = h[j - 1];
        h[j] = v;
    }
}

bool sn_dbp_pairs(sn_dbp *b, void *data, dNearCallback *cb)
{
    /* Allocations happen here, before any call: a failure leaves nothing half done. */
    if (!b->n || !build(b))
        return !b->n;
    for (size_t i = 0; i < b->n; i++) {
        const sn_dbp_geom *s = &b->g[i];
        size_t k = 0;
        if (s->big) {
            for (size_t j = i + 1; j < b->n; j++)
                if (meet(s, &b->g[j]))
                    b->hits[k++] = (uint32_t)j;
        } else {
            bool sorted = s->ix0 == s->ix1 && s->iy0 == s->iy1; /* one cell: its run ascends */
            const uint32_t *slot_at = b->slots + s->entry; /* in the order build hashed them */
            for (int64_t ix = s->ix0; ix <= s->ix1; ix++) {
                for (int64_t iy = s->iy0; iy <= s->iy1; iy++) {
                    uint32_t slot = *slot_at++;
                    for (uint32_t t = b->start[slot], end = t + b->count[slot]; t < end; t++) {
                        uint32_t j = b->items[t];
                        if (j <= i)
                            continue;
                        const sn_dbp_geom *o = &b->g[j];
                        /* Geoms sharing several cells pair in the first one only. */
                        if (ix != (s->ix0 > o->ix0 ? s->ix0 : o->ix0) || iy != (s->iy0 > o->iy0 ? s->iy0 : o->iy0))
                            continue;
                        if (meet(s, o))
                            b->hits[k++] = j;
                    }
                }
            }
            size_t before = k;
            for (size_t t = 0; t < b->n_big; t++)
                if (b->big[t] > i && meet(s, &b->g[b->big[t]]))
                    b->hits[k++] = b->big[t];
            if (!sorted || (before && k > before))
                sort_hits(b->hits, k);
        }
        for (size_t t = 0; t < k; t++)
            cb(data, s->geom, b->g[b->hits[t]].geom);
    }
    return true;
}

bool sn_dbp_collide_space(sn_dbp *b, dSpaceID space, void *data, dNearCallback *cb)
{
    dSpaceClean(space); /* AABBs up to date, as dSpaceCollide makes them */
    int count = dSpaceGetNumGeoms(space);
    if (!sn_dbp_reset(b, count > 0 ? (size_t)count : 0))
        return false;
    for (int i = 0; i < count; i++)
        sn_dbp_add(b, dSpaceGetGeom(space, i));
    return sn_dbp_pairs(b, data, cb);
}

void sn_dbp_collide_world(sn_world *w, void *data, dNearCallback *cb)
{
    sn_dbp *b = &w->dbp;
    int count = dSpaceGetNumGeoms(w->space);
    if (b->ode_sap) {
        dSpaceCollide(w->space, data, cb);
        return;
    }
    if (count < 0 || (size_t)count < b->min_geoms || !sn_dbp_reset(b, (size_t)count)) {
        /* Geoms are made and removed (and attached) only with the world's gen moving on (and it
        ** moves every frame): the memo of their attributes serves the frame's substeps. */
        if (b->sap_gen != w->gen)
            sn_sap_forget(&b->sap), b->sap_gen = w->gen;
        sn_sap_collide(&b->sap, w->space, data, cb); /* ODE's calls, found faster (sap.h) */
        return;
    }
    /* No dSpaceClean: the grid supplies the pairs, so ODE's sweep and prune need not sort its
    ** lists or recompute every moved geom's box each substep. Moved geoms stay on its dirty
    ** list with their boxes marked stale; dGeomGetAABB (below, and in every query) recomputes
    ** one on demand, and ODE's own collides (rays) clean the space first. */
    /* The fixed order: the space's list order depends on which geoms moved when. */
    size_t seen = 1;
    sn_dbp_add(b, (dGeomID)w->static_space);
    for (size_t i = 0; i < w->n_planes; i++, seen++)
        sn_dbp_add(b, w->planes[i]->ph->geom);
    for (size_t i = 0; i < w->n_bodies; i++) {
        const sn_actor *a = w->bodies[i];
        if (!a->ph->body)
            continue;
        if (!w->n_riders && a->ph->geom) { /* both made in w->space (physics.c) */
            /* Its own geoms only, in ODE's list order (each new one goes first: the crash box
            ** was attached after the chassis), without touching them in memory. */
            const dGeomID own[2] = {a->ph->crash, a->ph->geom};
            for (int k = 0; k < 2; k++)
                if (own[k] && (++seen, !add_vehicle_box(b, a, own[k])))
                    sn_dbp_add(b, own[k]);
            continue;
        }
        for (dGeomID g = dBodyGetFirstGeom(a->ph->body); g; g = dBodyGetNextGeom(g)) {
            if (dGeomGetSpace(g) != w->space)
                continue;
            seen++;
            if (!add_vehicle_box(b, a, g))
                sn_dbp_add(b, g);
        }
    }
    if (seen != (size_t)count) {
        /* A geom this loop does not know of: every one, in the space's order (deterministic
        ** still, only not independent of the history of moves). */
        sn_dbp_reset(b, (size_t)count);
        for (int i = 0; i < count; i++)
            sn_dbp_add(b, dSpaceGetGeom(w->space, i));
    }
    if (!sn_dbp_pairs(b, data, cb))
        dSpaceCollide(w->space, data, cb);
}
