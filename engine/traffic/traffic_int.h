/* traffic_int.h — what traffic.c shares with walkers.c: the frame's grid of bodies.
** Engine-internal. */
#ifndef SN_TRAFFIC_TRAFFIC_INT_H
#define SN_TRAFFIC_TRAFFIC_INT_H

#include "traffic.h"

#include <math.h>

/* One body (vehicle or walker) as the last frame left it; the grid sorts them by cell, then id. */
typedef struct body {
    uint64_t key;
    const sn_actor *a;
    sn_vec3 pos, vel, fwd, right;
} body;

struct sn_traffic {
    body *b;
    size_t n, cap;
    struct sn_walkers *walkers; /* walkers.c: the navigation graph and the walkers' agents */
};

/* traffic.c's grid: cells of SN_TRAFFIC_CELL m (its CELL), keys sorted by x cell then y cell. */
#define SN_TRAFFIC_CELL 16.0
static inline int64_t sn_traffic_cell(double v) { return (int64_t)floor(v / SN_TRAFFIC_CELL); }
static inline uint64_t sn_traffic_key(int64_t cx, int64_t cy)
{
    return ((uint64_t)(cx + (1 << 30)) << 32) | (uint64_t)(cy + (1 << 30));
}

#endif
