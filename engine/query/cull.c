/*
** cull.c — a coarse grid over every shaped actor's box that settles, before Embree, the rays
** of SN_RAY_ANY and SN_RAY_ALL queries that pass clear of every box: Embree would find nothing
** on them, so only the ground planes are tested. A batch whose rays are all settled so never
** brings Embree's index up to date (posing every vehicle's model and refitting the tree: at
** 1 000 cars about as dear as the rays themselves).
**
** Exactness. Embree meets only triangles, every one inside its actor's box (models stay inside
** their boxes: test_shapes), and traces a single-precision copy of the ray: origin and direction
** rounded, the triangle tests in float. So a ray's float copy is taken to stray at most 1 mm
** plus 2e-6 of its origin's largest coordinate and its length (some 30 times float's 6e-8) from
** the segment; the boxes are widened by twice the most any settled ray may stray (2 cm plus 4e-6
** of the largest coordinate; the second half covers the grid's own roundings), and a ray is
** settled only when its segment stays above the highest widened box top in every cell it
** crosses. A ray the grid cannot settle goes to Embree as before, so answers never change; only
** which rays pay for Embree does.
*/
#include "internal.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>

/* Cells per box: small enough cells that a ray between parked cars meets few of them. */
#define CELLS_PER_BOX 2
#define MAX_SIDE 512

/* max and min of numbers that are never NaN here (boxes and prepared rays are finite): the
** compiler keeps these inline, where fmax and fmin are calls into libm. */
static inline double mx(double a, double b) { return a > b ? a : b; }
static inline double mn(double a, double b) { return a < b ? a : b; }

static void cell_range(const rs_cull *c, double lo, double hi, double origin, uint32_t n, uint32_t *i0, uint32_t *i1)
{
    double a = floor((lo - origin) * c->inv), b = floor((hi - origin) * c->inv);
    *i0 = a < 0 ? 0 : a >= n ? n - 1 : (uint32_t)a;
    *i1 = b < 0 ? 0 : b >= n ? n - 1 : (uint32_t)b;
}

/* About CELLS_PER_BOX square cells per box over the boxes' extent (widened by m). */
static double natural_cell(const double (*box)[6], size_t n, double m)
{
    double bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        bx0 = fmin(bx0, box[i][0]), by0 = fmin(by0, box[i][1]);
        bx1 = fmax(bx1, box[i][3]), by1 = fmax(by1, box[i][4]);
    }
    return sqrt((bx1 - bx0 + 2 * m) * (by1 - by0 + 2 * m) / (double)(CELLS_PER_BOX * n));
}

double rs_cull_cell(const double (*box)[6], size_t n)
{
    return n ? natural_cell(box, n, 0.02) : INFINITY;
}

bool rs_cull_build(rs_cull *c, const double (*box)[6], size_t n, double max_cell)
{
    c->top = -INFINITY;
    c->nx = c->ny = 0;
    if (!n)
        return true;
    double w = 0, bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(box[i][0] + box[i][1] + box[i][2] + box[i][3] + box[i][4] + box[i][5]))
            return c->margin = 0, c->top = INFINITY, true; /* a box at infinity or NaN: settle nothing */
        for (int k = 0; k < 6; k++)
            w = mx(w, fabs(box[i][k]));
        bx0 = fmin(bx0, box[i][0]), by0 = fmin(by0, box[i][1]);
        bx1 = fmax(bx1, box[i][3]), by1 = fmax(by1, box[i][4]);
    }
    c->margin = 0.02 + 4e-6 * w;
    double m = c->margin;
    bx0 -= m, by0 -= m, bx1 += m, by1 += m;
    /* square cells, about CELLS_PER_BOX per box over the boxes' extent, and no larger than
    ** max_cell, the full set's where these are some of them: a building's or a walker's cell
    ** should not reach over the cars the query leaves out */
    double cell = fmin(sqrt((bx1 - bx0) * (by1 - by0) / (double)(CELLS_PER_BOX * n)), max_cell);
    cell = fmax(cell, fmax(bx1 - bx0, by1 - by0) / (MAX_SIDE - 1));
    cell = fmax(cell, 1e-3);
    c->x0 = bx0, c->y0 = by0, c->inv = 1 / cell;
    uint32_t nx = (uint32_t)fmin(MAX_SIDE, floor((bx1 - bx0) * c->inv) + 1);
    uint32_t ny = (uint32_t)fmin(MAX_SIDE, floor((by1 - by0) * c->inv) + 1);
    if (!sn_grow((void **)&c->tops, &c->cap_tops, (size_t)nx * ny, sizeof *c->tops))
        return false;
    c->nx = nx, c->ny = ny;
    for (size_t k = 0; k < (size_t)nx * ny; k++)
        c->tops[k] = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        uint32_t ix0, ix1, iy0, iy1;
        cell_range(c, box[i][0] - m, box[i][3] + m, c->x0, nx, &ix0, &ix1);
        cell_range(c, box[i][1] - m, box[i][4] + m, c->y0, ny, &iy0, &iy1);
        double top = box[i][5] + m;
        c->top = fmax(c->top, top);
        for (uint32_t iy = iy0; iy <= iy1; iy++)
            for (uint32_t ix = ix0; ix <= ix1; ix++)
                c->tops[(size_t)iy * nx + ix] = fmax(c->tops[(size_t)iy * nx + ix], top);
    }
    return true;
}

/* The highest top over cells [i0, i1] of column `line` (`column`) or row `line`. */
static double tops_over(const rs_cull *c, bool column, uint32_t line, uint32_t i0, uint32_t i1)
{
    double t = -INFINITY;
    for (uint32_t i = i0; i <= i1; i++)
        t = mx(t, column ? c->tops[(size_t)i * c->nx + line] : c->tops[(size_t)line * c->nx + i]);
    return t;
}

bool rs_cull_walk(const rs_cull *c, const sn_vec3 *op, const sn_vec3 *ep)
{
    sn_vec3 o = *op, e = *ep;
    /* Walk the lines of cells across the major axis: in each, the part of the segment over it
    ** spans cells [j0, j1] of that line and its lowest point is at one end of that part. */
    bool by_x = fabs(e.x - o.x) >= fabs(e.y - o.y);
    double a0 = by_x ? o.x : o.y, a1 = by_x ? e.x : e.y, b0 = by_x ? o.y : o.x, b1 = by_x ? e.y : e.x;
    double ga = by_x ? c->x0 : c->y0, gb = by_x ? c->y0 : c->x0;
    uint32_t na = by_x ? c->nx : c->ny, nb = by_x ? c->ny : c->nx;
    double amin = mn(a0, a1), amax = mx(a0, a1), cell = 1 / c->inv;
    if (amax < ga || amin > ga + na * cell)
        return true; /* beside the grid: no box there */
    uint32_t i0, i1;
    cell_range(c, amin, amax, ga, na, &i0, &i1);
    double da = a1 - a0;
    for (uint32_t i = i0; i <= i1; i++) {
        /* the segment's parameter range [s0, s1] over line i, clipped to [0, 1] */
        double s0 = 0, s1 = 1;
        if (da != 0) {
            double u = (ga + i * cell - a0) / da, v = (ga + (i + 1) * cell - a0) / da;
            s0 = mx(0, mn(u, v)), s1 = mn(1, mx(u, v));
            if (s0 > s1)
                continue;
        }
        double z = mn(o.z + s0 * (e.z - o.z), o.z + s1 * (e.z - o.z));
        double y0 = b0 + s0 * (b1 - b0), y1 = b0 + s1 * (b1 - b0);
        if (mx(y0, y1) < gb || mn(y0, y1) > gb + nb * cell)
            continue;
        uint32_t j0, j1;
        cell_range(c, mn(y0, y1), mx(y0, y1), gb, nb, &j0, &j1);
        if (!(z > tops_over(c, by_x, i, j0, j1)))
            return false;
    }
    return true;
}
