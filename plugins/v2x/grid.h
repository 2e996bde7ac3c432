/*
** grid.h — a uniform grid over the stations' horizontal positions (a counting sort into cells),
** so a sender finds the receivers within range by visiting nearby cells, not every station.
*/
#ifndef SN_V2X_GRID_H
#define SN_V2X_GRID_H

#include <stdbool.h>
#include <stdint.h>

typedef struct sn_v2x_grid {
    double x0, y0, cell;
    uint32_t nx, ny;
    uint32_t *start;  /* nx * ny + 1 offsets into items */
    uint32_t *items;  /* point indices, ascending within a cell */
    uint32_t *cell_of;
    uint32_t cap_start, cap_items, cap_cell_of;
} sn_v2x_grid;

/* Sorts n points (xy[2i], xy[2i + 1]) into cells of about `cell` metres
** (larger when the points spread so far that the cells would outnumber 4n + 1024). */
bool sn_v2x_grid_build(sn_v2x_grid *g, const double *xy, uint32_t n, double cell);
/* The cells a disc (x, y, r) touches, clamped to the grid: [ix0, ix1] x [iy0, iy1]. */
void sn_v2x_grid_range(const sn_v2x_grid *g, double x, double y, double r, uint32_t *ix0, uint32_t *ix1,
                       uint32_t *iy0, uint32_t *iy1);
void sn_v2x_grid_free(sn_v2x_grid *g);

#endif
