/* sbp.c — see sbp.h. */
#include "sbp.h"

#include "cellgrid.h"
#include "world.h"

#include <math.h>
#include <sensim/grow.h>
#include <stdlib.h>
#include <string.h>


void sn_sbp_init(sn_sbp *b)
{
    memset(b, 0, sizeof *b);
    b->ode_only = getenv("SENSIM_BENCH_ODE_STATICS") != NULL;
}

void sn_sbp_free(sn_sbp *b)
{
    free(b->g);
    free(b->keys);
    free(b->start);
    free(b->count);
    free(b->items);
    free(b->big);
    free(b->hits);
    sn_sclear_free(&b->clear);
    memset(b, 0, sizeof *b);
}

/* Slots are a power of two; cellgrid.h does the probing. */
static size_t slot_of(const sn_sbp *b, uint64_t key)
{
    return sn_cell_slot(b->keys, b->count, (unsigned)__builtin_ctzll((unsigned long long)b->n_cells), key);
}

/* Cell (ix, iy)'s slot; SIZE_MAX for a cell outside the dense grid (empty). */
static inline size_t cell_slot(const sn_sbp *b, int64_t ix, int64_t iy)
{
    if (!b->dense)
        return slot_of(b, sn_cell_key(ix, iy));
    ix -= b->dx0, iy -= b->dy0;
    if (ix < 0 || iy < 0 || ix >= b->dnx || iy >= b->dny)
        return SIZE_MAX;
    return (size_t)(ix * b->dny + iy);
}

/* Cells a static covers at this size, 0 when it belongs in the big list (s->big set so);
** its cells' range into s->ix0..iy1 (the grid's, once the last size tried is chosen). */
static double cells_of(sn_sbp_geom *s, double cell)
{
    double r[4];
    s->big = true;
    if (!sn_cell_range(s->box, 1 / cell, r))
        return 0;
    double c = (r[1] - r[0] + 1) * (r[3] - r[2] + 1);
    if (c > SN_SBP_BIG_CELLS)
        return 0;
    s->big = false;
    s->ix0 = (int64_t)r[0], s->iy0 = (int64_t)r[2];
    s->ix1 = (int64_t)r[1], s->iy1 = (int64_t)r[3];
    return c;
}

/* The k-th smallest of a[0..n) (k < n), a reordered: what a[k] is once sorted, in O(n). */
static double kth_smallest(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const double pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (pivot < a[j])
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j], a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

/* The cell edge: the median footprint (a building or a prop per cell), at least a
** sixth of the 95th percentile so that few statics are big, and coarser while the grid
** would hold more than 4 entries per static. Sets b->cell and b->n_items. */
static bool choose_cell(sn_sbp *b)
{
    double *size = malloc((b->n ? b->n : 1) * sizeof *size);
    if (!size)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < b->n; i++) {
        const dReal *x = b->g[i].box;
        double s = fmax(x[1] - x[0], x[3] - x[2]);
        if (isfinite(s))
            size[m++] = s;
    }
    double cell = 1.0;
    if (m) { /* two order statistics, not a sort (a reset syncs once) */
        double median = kth_smallest(size, m, m / 2);
        cell = fmax(cell, fmax(median, kth_smallest(size, m, m * 95 / 100) / 6));
    }
    free(size);
    for (int tries = 0;; tries++, cell *= 2) {
        double items = 0;
        for (size_t i = 0; i < b->n; i++)
            items += cells_of(&b->g[i], cell);
        if (items <= 4.0 * (double)b->n + 1024 || tries > 80) {
            b->cell = cell;
            b->inv_cell = 1 / cell;
            b->n_items = (size_t)items;
            return true;
        }
    }
}

/* The map's surfaces (roads.c's stand-ins marked ground): the only statics a wheel whose map
** triangle is cached skips (vehicle.c). */
static bool is_surface(dGeomID g)
{
    const sn_actor *a = dGeomGetData(g);
    return a && a->ground;
}

/* The statics' cell extent: the table is dense (b->dense, its origin and size set) when the
** extent is at most 4 times the hashed table of `cells` slots (or small). Returns the table's
** slots: the extent's cells when dense, else `cells`. */
static size_t choose_table(sn_sbp *b, size_t n, size_t cells)
{
    double ext[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++) { /* the cells choose_cell left in each */
        const sn_sbp_geom *s = &b->g[i];
        if (s->big)
            continue;
        ext[0] = fmin(ext[0], (double)s->ix0), ext[1] = fmax(ext[1], (double)s->ix1);
        ext[2] = fmin(ext[2], (double)s->iy0), ext[3] = fmax(ext[3], (double)s->iy1);
    }
    double area = ext[1] >= ext[0] ? (ext[1] - ext[0] + 1) * (ext[3] - ext[2] + 1) : 0;
    b->dense = area > 0 && area <= fmax(4.0 * (double)cells, 65536.0);
    if (b->dense) {
        b->dx0 = (int64_t)ext[0], b->dy0 = (int64_t)ext[2];
        b->dnx = (int64_t)(ext[1] - ext[0] + 1), b->dny = (int64_t)(ext[3] - ext[2] + 1);
        cells = (size_t)area;
    }
    return cells;
}

bool sn_sbp_sync(sn_world *w)
{
    sn_sbp *b = &w->sbp;
    if (b->built && b->gen == w->static_gen)
        return true;
    b->built = false;
    b->clear.on = false;
    int count = dSpaceGetNumGeoms(w->static_space);
    size_t n = count > 0 ? (size_t)count : 0;
    if (n >= UINT32_MAX)
        return false;
    if (n > b->cap) { /* three arrays of one capacity: each grows from b->cap alike */
        size_t cg = b->cap, ch = b->cap, cb = b->cap;
        if (!SN_GROW(b->g, cg, n) || !SN_GROW(b->hits, ch, n) || !SN_GROW(b->big, cb, n))
            return false;
        b->cap = cg;
    }
    /* ODE's list order, which its scan follows: dSpaceGetGeom walks the list in O(1) per step. */
    b->n = n;
    for (size_t i = 0; i < n; i++) {
        sn_sbp_geom *s = &b->g[i];
        s->geom = dSpaceGetGeom(w->static_space, (int)i);
        dGeomGetAABB(s->geom, s->box);
        s->cat = dGeomGetCategoryBits(s->geom);
        s->col = dGeomGetCollideBits(s->geom);
    }
    if (!choose_cell(b))
        return false;
    size_t cells = 16;
    while (cells < 2 * b->n_items)
        cells *= 2;
    /* The statics' cell extent: dense when it is at most 4 times the hashed table (or small). */
    cells = choose_table(b, n, cells);
    if (cells > b->cap_cells) {
        size_t ck = b->cap_cells, cs = b->cap_cells, cc = b->cap_cells;
        if (!SN_GROW(b->keys, ck, cells) || !SN_GROW(b->start, cs, cells) || !SN_GROW(b->count, cc, cells))
            return false;
        b->cap_cells = ck;
    }
    if (!SN_GROW(b->items, b->cap_items, b->n_items))
        return false;
    b->n_cells = cells;
    memset(b->count, 0, cells * sizeof *b->count);
    /* Count per cell; each cell's run ends at start; then fill from the back with the statics
    ** in descending order, which leaves start at the run's beginning and every run ascending. */
    b->n_big = 0;
    for (size_t i = 0; i < n; i++) {
        sn_sbp_geom *s = &b->g[i];
        if (s->big) { /* big and the cells: choose_cell's, at b->cell */
            b->big[b->n_big++] = (uint32_t)i;
            continue;
        }
        for (int64_t ix = s->ix0; ix <= s->ix1; ix++) {
            for (int64_t iy = s->iy0; iy <= s->iy1; iy++) {
                size_t slot = cell_slot(b, ix, iy);
                b->keys[slot] = sn_cell_key(ix, iy);
                b->count[slot]++;
            }
        }
    }
    uint32_t end = 0;
    for (size_t c = 0; c < cells; c++)
        b->start[c] = end += b->count[c];
    for (size_t i = n; i-- > 0;) {
        const sn_sbp_geom *s = &b->g[i];
        if (s->big)
            continue;
        for (int64_t ix = s->ix0; ix <= s->ix1; ix++)
            for (int64_t iy = s->iy0; iy <= s->iy1; iy++)
                b->items[--b->start[cell_slot(b, ix, iy)]] = (uint32_t)i;
    }
    b->gen = w->static_gen;
    b->built = true;
    b->clear_due = true;
    b->clear_asked = 0;
    return true;
}

const sn_sclear *sn_sbp_clear(sn_world *w, bool now)
{
    sn_sbp *b = &w->sbp;
    if (b->built && b->clear_due && (now || ++b->clear_asked > 40 * (uint64_t)(w->n_bodies + 1))) {
        b->clear_due = false;
        /* Out of memory leaves it off: every wheel is then traced, as before it existed. */
        sn_sclear_build(&b->clear, b->n ? &b->g[0].geom : NULL, b->n, sizeof *b->g, is_surface);
        for (size_t i = 0; i < w->n_bodies; i++) { /* the wheels' memos name cells of the old grid */
            sn_actor *a = w->bodies[i];
            if (a->kind == SN_ACTOR_VEHICLE && a->mv && a->mv->wheel_tri)
                for (int k = 0; k < 4; k++)
                    a->mv->wheel_tri[k].clear.w = 0;
        }
    }
    return &b->clear;
}

size_t sn_sbp_query(sn_world *w, const dReal q[6], unsigned long cat, unsigned long col, const uint32_t **out)
{
    sn_sbp *b = &w->sbp;
    *out = NULL;
    if (b->ode_only || !sn_sbp_sync(w))
        return SN_SBP_NONE;
    *out = b->hits; /* after the sync: it may move them */
    if (!b->n)
        return 0;
    size_t k = 0;
    double r[4];
    if (!sn_cell_range(q, b->inv_cell, r) || (r[1] - r[0] + 1) * (r[3] - r[2] + 1) > (double)b->n + 16) {
        /* A query wider than the statics are many (a long ray, a huge box): scan them all. */
        for (size_t i = 0; i < b->n; i++) {
            const sn_sbp_geom *s = &b->g[i];
            if (((s->cat & col) || (cat & s->col)) && sn_sbp_boxes_meet(s->box, q))
                b->hits[k++] = (uint32_t)i;
        }
        return k;
    }
    const int64_t qx0 = (int64_t)r[0], qx1 = (int64_t)r[1], qy0 = (int64_t)r[2], qy1 = (int64_t)r[3];
    for (int64_t ix = qx0; ix <= qx1; ix++) {
        for (int64_t iy = qy0; iy <= qy1; iy++) {
            size_t slot = cell_slot(b, ix, iy);
            if (slot == SIZE_MAX)
                continue;
            for (uint32_t j = b->start[slot], end = j + b->count[slot]; j < end; j++) {
                const sn_sbp_geom *s = &b->g[b->items[j]];
                /* A static spanning several of these cells counts in the first one only. */
                if (ix != (s->ix0 > qx0 ? s->ix0 : qx0) || iy != (s->iy0 > qy0 ? s->iy0 : qy0))
                    continue;
                if (((s->cat & col) || (cat & s->col)) && sn_sbp_boxes_meet(s->box, q))
                    b->hits[k++] = b->items[j];
            }
        }
    }
    for (size_t j = 0; j < b->n_big; j++) {
        const sn_sbp_geom *s = &b->g[b->big[j]];
        if (((s->cat & col) || (cat & s->col)) && sn_sbp_boxes_meet(s->box, q))
            b->hits[k++] = b->big[j];
    }
    /* One cell's run is ascending already; from several cells, restore the list order. */
    if ((qx0 == qx1 && qy0 == qy1 && !b->n_big) || k < 2)
        return k;
    if (k > 32) {
        qsort(b->hits, k, sizeof *b->hits, sn_cmp_u32);
        return k;
    }
    for (size_t i = 1; i < k; i++) {
        uint32_t v = b->hits[i];
        size_t j = i;
        for (; j > 0 && b->hits[j - 1] > v; j--)
            b->hits[j] = b->hits[j - 1];
        b->hits[j] = v;
    }
    return k;
}

void sn_sbp_collide(sn_world *w, dGeomID g, bool static_first, void *data, dNearCallback *cb)
{
    dReal q[6];
    dGeomGetAABB(g, q);
    const uint32_t *hit;
    size_t k = sn_sbp_query(w, q, dGeomGetCategoryBits(g), dGeomGetCollideBits(g), &hit);
    if (k == SN_SBP_NONE) {
        if (static_first)
            dSpaceCollide2((dGeomID)w->static_space, g, data, cb);
        else
            dSpaceCollide2(g, (dGeomID)w->static_space, data, cb);
        return;
    }
    for (size_t i = 0; i < k; i++) {
        dGeomID s = w->sbp.g[hit[i]].geom;
        if (static_first)
            cb(data, s, g);
        else
            cb(data, g, s);
    }
}
