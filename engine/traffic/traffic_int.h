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
    uint32_t id;       /* a's id, kind and down flag and its box's half extents, copied so that the */
    uint8_t kind;      /* neighbour scans read one array instead of every actor they pass */
    bool down;
    sn_vec3 ext;
    sn_vec3 pos, vel, fwd, right;
} body;

/* The part of a body the leader scan's first test reads (its cell key, centre and box's half
** extents in x-y), in an array beside b (same order): most bodies of a cell fail that test, and
** reading 40 bytes of each instead of a whole body keeps the scan in cache in dense traffic. */
typedef struct bodyq {
    uint64_t key;
    double x, y, ex, ey;
} bodyq;

struct sn_traffic {
    body *b;
    bodyq *q;                   /* b's keys, centres and extents (leader's first test) */
    size_t n, cap, cap_q;
    double ext_max;             /* the largest ext.x + ext.y among b[0..n) */
    struct sn_walkers *walkers; /* walkers.c: the navigation graph and the walkers' agents */
    sn_traffic_stats stats;  /* the health counters (traffic.h) */
    bool legacy;             /* the autopilot before issue 31: no junction or lane-change rules */
    struct sn_junctions *jx; /* the map's junction conflicts and claims (junction.h), built on first use */
    struct sn_xuser *xu;     /* the walkers on crossings this frame (walkers.h) */
    size_t n_xu, cap_xu;
    sn_vec3 *heroes;         /* the hero vehicles' positions this frame (hybrid.c) */
    size_t n_heroes, cap_heroes;
    bool hybrid_any;         /* some Traffic Manager is in hybrid mode this frame */
};

/* traffic.c's grid: cells of SN_TRAFFIC_CELL m (its CELL), keys sorted by x cell then y cell. */
#define SN_TRAFFIC_CELL 16.0
static inline int64_t sn_traffic_cell(double v) { return (int64_t)floor(v / SN_TRAFFIC_CELL); }
static inline uint64_t sn_traffic_key(int64_t cx, int64_t cy)
{
    return ((uint64_t)(cx + (1 << 30)) << 32) | (uint64_t)(cy + (1 << 30));
}
/* Puts md's path back on the lane nearest pos; false when there is none within 50 m (a vehicle looks
** as far as the map reaches). */
bool sn_md_relocate(const sn_map *m, sn_mapdrive *md, sn_vec3 pos);
/* Extends md's path to its full length along the lanes (branches drawn from md's generator). */
void sn_md_refill(const sn_map *m, sn_mapdrive *md);
/* Drops the waypoints behind pos; *along0 is path[0]'s distance along the path from pos
** (negative: behind). false when pos is far off the path. */
bool sn_md_advance(sn_mapdrive *md, sn_vec3 pos, double *along0);

#endif
