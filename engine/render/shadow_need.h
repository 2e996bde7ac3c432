/* shadow_need.h — which cells of the shadow map this frame's receivers can reach (shadow.h,
** sn_shadow_need_*): a grid of SN_SHADOW_CELL-texel cells, marked from footprints in texel
** coordinates, and asked whether a box of texels touches any marked cell (a summed-area table:
** one question, four reads). */
#ifndef SN_SHADOW_NEED_H
#define SN_SHADOW_NEED_H

#include "shadow.h"

#include <stdbool.h>
#include <stdint.h>

#define SN_NEED_N (SN_SHADOW_SIZE / SN_SHADOW_CELL) /* cells per side */

typedef struct sn_shadow_need {
    bool all;   /* every cell wanted (no receivers given) */
    bool ready; /* sat matches cell */
    uint8_t cell[SN_NEED_N * SN_NEED_N];
    uint32_t sat[(SN_NEED_N + 1) * (SN_NEED_N + 1)]; /* marked cells above and left of (x, y) */
    int32_t lo[SN_NEED_N], hi[SN_NEED_N]; /* per row of cells: the texel columns of its first and
                                          ** last marked cell (lo > hi: none) */
} sn_shadow_need;

void sn_need_all(sn_shadow_need *q);
void sn_need_none(sn_shadow_need *q);
/* the cells the texel-coordinate box [u0, u1] x [v0, v1] touches */
void sn_need_box(sn_shadow_need *q, double u0, double v0, double u1, double v1);
/* the cells within `reach` texels of the convex hull of points uv[0 .. n) (texel coordinates) */
void sn_need_hull(sn_shadow_need *q, const double (*uv)[2], int n, double reach);
/* The table sn_need_any reads, once the cells are marked (before any task asks). */
void sn_need_finish(sn_shadow_need *q);
/* Whether any texel of columns x0..x1, rows y0..y1 (inside the map) lies in a marked cell. */
bool sn_need_any(const sn_shadow_need *q, int32_t x0, int32_t y0, int32_t x1, int32_t y1);

#endif
