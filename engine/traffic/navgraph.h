/* navgraph.h — the walkers' navigation graph: what CARLA's navigation mesh gives walkers
** (LibCarla/source/carla/nav/Navigation.cpp), built from the map's sidewalk lanes and
** crossings. docs/walkers.md.
**
** Nodes lie along every sidewalk lane centre about 2 m apart. Edges join neighbours along a
** lane, a lane's end to the lanes its links lead to, nodes of sidewalks that touch (corners,
** sidewalks side by side), and the two ends of every crossing: the map's crosswalk objects,
** a crossing at each junction arm that has sidewalks on both sides and no crosswalk near
** (CARLA's towns let walkers cross there), and mid-block road crossings that only walkers
** allowed by the cross factor use. Built once per map; read-only afterwards except the
** search scratch. */
#ifndef SN_TRAFFIC_NAVGRAPH_H
#define SN_TRAFFIC_NAVGRAPH_H

#include "../core/error.h"
#include "../core/rng.h"
#include "../map/lanemap.h"

/* What an edge walks on (CARLA's navmesh areas: sidewalk, crosswalk, road). */
typedef enum sn_nav_kind {
    SN_NAV_SIDEWALK = 0,
    SN_NAV_CROSSWALK = 1, /* a crosswalk object of the map */
    SN_NAV_CORNER = 2,    /* across a junction arm where the map has no crosswalk: for everyone */
    SN_NAV_ROAD = 3,      /* across a road mid-block: only walkers the cross factor allows */
} sn_nav_kind;

typedef struct sn_nav_node {
    sn_vec3 p;      /* on the lane centre, at the road surface's height */
    float width;    /* of the sidewalk there, m (crossings: 0) */
    uint32_t comp;  /* connected component (all edges) */
    uint32_t e0;    /* its edges are edges[e0 .. next node's e0) */
} sn_nav_node;

typedef struct sn_nav_edge {
    uint32_t to;
    uint8_t kind;   /* sn_nav_kind */
    uint32_t cross; /* crossings only: index into crossings */
    float len;
} sn_nav_edge;

typedef struct sn_nav_crossing {
    sn_vec3 end[2];
    uint8_t kind;
} sn_nav_crossing;

typedef struct sn_nav {
    sn_nav_node *nodes; /* n_nodes + 1: the last one ends the edge list */
    uint32_t n_nodes;
    sn_nav_edge *edges;
    uint32_t n_edges;
    sn_nav_crossing *cross;
    uint32_t n_cross;
    uint32_t n_comps;
    uint32_t n_lanes; /* sidewalk lanes (per section) that have nodes */
    uint32_t *lane_comp; /* each such lane's component */
    /* edges along sidewalk lanes (one way) with their cumulative lengths, for random locations */
    uint32_t *walk_edge;
    double *walk_cum;
    uint32_t n_walk;
    /* nodes bucketed in a 4 m grid: keys sorted, with the node of each */
    uint64_t *gkey;
    uint32_t *gnode;
    /* search scratch (one search at a time: controllers run on one thread) */
    double *g;
    uint32_t *prev, *stamp, stamp_now;
    struct sn_nav_open *open;
    size_t n_open, cap_open;
} sn_nav;

/* The map's graph into *out (sn_nav_free frees it). A map without sidewalks gives a graph
** with no nodes. SN_E_NOMEM only. */
sn_status sn_nav_build(const sn_map *m, sn_nav **out, sn_error *err);
void sn_nav_free(sn_nav *n);
/* The node nearest p (horizontally) within radius m, or -1. comp >= 0: only of that component. */
int64_t sn_nav_nearest(const sn_nav *n, sn_vec3 p, double radius, int64_t comp);
/* A shortest path (A*, edge lengths; road crossings only when road_ok) from node a to b: its
** nodes in order into *buf (grown with sn_grow; the caller frees it), their count in *len.
** false when b cannot be reached (or out of memory). */
bool sn_nav_route(sn_nav *n, uint32_t a, uint32_t b, bool road_ok, uint32_t **buf, size_t *cap, size_t *len);
/* The edge from node a to node b, or NULL. */
const sn_nav_edge *sn_nav_edge_between(const sn_nav *n, uint32_t a, uint32_t b);
/* A point drawn uniformly along the sidewalks (comp >= 0: of that component), false when
** there is none. */
bool sn_nav_random_point(const sn_nav *n, sn_rng *r, int64_t comp, sn_vec3 *out);

#endif
