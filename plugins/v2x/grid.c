/* grid.c — counting sort of points into a uniform grid; cells visited for a disc. */
#include <sensim/grow.h>
#include "grid.h"

#include <math.h>
#include <stdlib.h>

bool sn_v2x_grid_build(sn_v2x_grid *g, const double *xy, uint32_t n, double cell)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        x0 = fmin(x0, xy[2 * i]), x1 = fmax(x1, xy[2 * i]);
        y0 = fmin(y0, xy[2 * i + 1]), y1 = fmax(y1, xy[2 * i + 1]);
    }
    if (!n)
        x0 = y0 = x1 = y1 = 0;
    if (!(cell > 1e-3))
        cell = 1e-3;
    /* Bounded memory: far-flung points get coarser cells, never more than 4n + 1024 of them. */
    double limit = 4.0 * n + 1024.0;
    for (;;) {
        double nx = floor((x1 - x0) / cell) + 1, ny = floor((y1 - y0) / cell) + 1;
        if (nx * ny <= limit)
            break;
        cell *= 2;
    }
    g->x0 = x0, g->y0 = y0, g->cell = cell;
    g->nx = (uint32_t)floor((x1 - x0) / cell) + 1;
    g->ny = (uint32_t)floor((y1 - y0) / cell) + 1;
    uint32_t nc = g->nx * g->ny;
    if (!SN_GROW32(g->start, g->cap_start, nc + 1) || !SN_GROW32(g->items, g->cap_items, n + 1) ||
        !SN_GROW32(g->cell_of, g->cap_cell_of, n + 1))
        return false;
    for (uint32_t k = 0; k <= nc; k++)
        g->start[k] = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ix = (uint32_t)floor((xy[2 * i] - x0) / cell), iy = (uint32_t)floor((xy[2 * i + 1] - y0) / cell);
        ix = ix >= g->nx ? g->nx - 1 : ix, iy = iy >= g->ny ? g->ny - 1 : iy;
        g->cell_of[i] = iy * g->nx + ix;
        g->start[g->cell_of[i] + 1]++;
    }
    for (uint32_t k = 0; k < nc; k++)
        g->start[k + 1] += g->start[k];
    /* Stable fill: within a cell the points keep their ascending order. Uses start[] as
    ** cursors, then shifts it back. */
    for (uint32_t i = 0; i < n; i++)
        g->items[g->start[g->cell_of[i]]++] = i;
    for (uint32_t k = nc; k > 0; k--)
        g->start[k] = g->start[k - 1];
    g->start[0] = 0;
    return true;
}

static uint32_t clampi(double v, uint32_t n)
{
    if (!(v > 0))
        return 0;
    return v >= n - 1 ? n - 1 : (uint32_t)v;
}

void sn_v2x_grid_range(const sn_v2x_grid *g, double x, double y, double r, uint32_t *ix0, uint32_t *ix1,
                       uint32_t *iy0, uint32_t *iy1)
{
    *ix0 = clampi(floor((x - r - g->x0) / g->cell), g->nx);
    *ix1 = clampi(floor((x + r - g->x0) / g->cell), g->nx);
    *iy0 = clampi(floor((y - r - g->y0) / g->cell), g->ny);
    *iy1 = clampi(floor((y + r - g->y0) / g->cell), g->ny);
}

void sn_v2x_grid_free(sn_v2x_grid *g)
{
    free(g->start), free(g->items), free(g->cell_of);
    *g = (sn_v2x_grid){0};
}
