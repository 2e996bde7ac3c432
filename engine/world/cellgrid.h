/* cellgrid.h — what the two hashed 2-D grids of boxes share (sbp.c: the statics; dbp.c: the
** top space's moving geoms): a cell's key, its slot in an open-addressed table, a box's cell
** range, and the comparators their sorts use. */
#ifndef SN_WORLD_CELLGRID_H
#define SN_WORLD_CELLGRID_H

#include <ode/ode.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Cell coordinates stay far inside int64 (and away from float rounding of the products). */
#define SN_CELL_COORD_MAX 1e12

static inline uint64_t sn_cell_key(int64_t ix, int64_t iy) { return (uint64_t)(uint32_t)ix << 32 | (uint32_t)iy; }

/* The slot of key in a table of 2^bits slots (bits >= 1; count 0 = empty), or the empty slot
** where it would go. The product's top bits: its low ones do not depend on ix (key's high
** half), so a row of cells would probe from one slot. */
static inline size_t sn_cell_slot(const uint64_t *keys, const uint32_t *count, unsigned bits, uint64_t key)
{
    size_t mask = ((size_t)1 << bits) - 1, i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
    while (count[i] && keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

/* The cell range of an ODE box (inv: 1 / the cell edge) as x0, x1, y0, y1; false when it is not
** finite or too far out. Builds and queries map coordinates alike, and monotonically, so boxes
** that meet share a cell. */
static inline bool sn_cell_range(const dReal *box, double inv, double r[4])
{
    r[0] = floor(box[0] * inv), r[1] = floor(box[1] * inv);
    r[2] = floor(box[2] * inv), r[3] = floor(box[3] * inv);
    for (int k = 0; k < 4; k++)
        if (!(fabs(r[k]) <= SN_CELL_COORD_MAX)) /* NaN and infinities too */
            return false;
    return true;
}

static inline int sn_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return a < c ? -1 : a > c;
}

static inline int sn_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, c = *(const uint32_t *)y;
    return a < c ? -1 : a > c;
}

#endif
