/* sclear.h — where nothing static but the map's surfaces stands: a bit per cell of a 2-D (x, y)
** grid over the statics' extent, set where a static that is not a map surface (a kerb face,
** a prop, a building) might be: under each triangle's box of a trimesh, under the whole box
** of any other geom, each padded by SN_SCLEAR_PAD. A wheel's ray whose box lies in clear
** cells meets no such static, so once its map triangle is known (vehicle.c's cache) the ray
** needs no ODE call at all: what ODE would answer is known to be "no hit", and the outputs
** stay what they were. Built with the static broadphase (sbp.c), when statics change. */
#ifndef SN_WORLD_SCLEAR_H
#define SN_WORLD_SCLEAR_H

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* m: far above rounding, so an ODE ray that grazes a triangle's edge is still in a set cell. */
#define SN_SCLEAR_PAD 0.05
/* At most this many cells (a bit each: 2 MiB); the cell edge doubles from 0.5 m until it fits. */
#define SN_SCLEAR_MAX_CELLS ((size_t)1 << 24)

typedef struct sn_sclear {
    uint64_t *bits;     /* nx * ny bits, row after row (y), set = something may stand there */
    size_t nx, ny, cap; /* cap: words allocated; nx, ny <= 65535 */
    double x0, y0, inv; /* the grid's corner and 1 / the cell edge */
    bool on;            /* false: unknown everywhere (not built, a static without a finite box) */
} sn_sclear;

/* A wheel's memo (in its cache's padding: no memory of its own): a rectangle of cells found
** clear, w x h cells from (x, y); w 0 = none. Forgotten whenever the grid is built. */
typedef struct sn_sclear_memo {
    uint16_t x, y;
    uint8_t w, h;
} sn_sclear_memo;

void sn_sclear_free(sn_sclear *c);
/* Marks the n static geoms g[k] (stride bytes apart, each a dGeomID) whose data is not a map
** surface (is_surface(geom) false); false when out of memory (then c->on is false). */
bool sn_sclear_build(sn_sclear *c, const dGeomID *g, size_t n, size_t stride, bool (*is_surface)(dGeomID));
/* True when nothing but map surfaces may meet the x-y extent of box (ODE's layout). memo (or
** NULL): the caller's last answer, consulted first and updated; a wheel moves a few cm a
** substep, so most queries end there without reading the grid. */
bool sn_sclear_clear(const sn_sclear *c, const dReal box[6], sn_sclear_memo *memo);

#endif
