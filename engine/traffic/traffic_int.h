/* traffic_int.h — what traffic.c shares with walkers.c: the frame's grid of bodies and the
** lane-path keeping of a map autopilot. Engine-internal. */
#ifndef SN_TRAFFIC_TRAFFIC_INT_H
#define SN_TRAFFIC_TRAFFIC_INT_H

#include "crosswalk.h"
#include "traffic.h"

/* One body (vehicle or walker) as the last frame left it; the grid sorts them by cell, then id. */
typedef struct body {
    uint64_t key;
    const sn_actor *a;
    sn_vec3 pos, vel, fwd, right;
} body;

struct sn_traffic {
    body *b;
    size_t n, cap;
    sn_crosswalk *cw; /* the map's crosswalks, built with the first grid */
    size_t n_cw;
    bool cw_built;
};

/* Puts md's path back on the lane nearest pos; false when there is none within 50 m. */
bool sn_md_relocate(const sn_map *m, sn_mapdrive *md, sn_vec3 pos);
/* Extends md's path to its full length along the lanes (branches drawn from md's generator). */
void sn_md_refill(const sn_map *m, sn_mapdrive *md);
/* Drops the waypoints behind pos; *along0 is path[0]'s distance along the path from pos
** (negative: behind). false when pos is far off the path. */
bool sn_md_advance(sn_mapdrive *md, sn_vec3 pos, double *along0);

#endif
