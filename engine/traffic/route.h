/* route.h — the map autopilot's short route: its next SN_ROUTE_N junction choices drawn ahead
** (deterministic from its generator), so that it can change lane before a junction into the
** lane its next choice leaves from (docs/traffic.md, "Routes planned ahead"). Engine-internal. */
#ifndef SN_TRAFFIC_ROUTE_H
#define SN_TRAFFIC_ROUTE_H

#include "traffic.h"

/* What the path does at a fork (`last`: the path's last waypoint; next[0..k): the junction
** waypoints its lane leads to). */
typedef enum sn_route_fork_r {
    SN_ROUTE_FREE = -1, /* no route (a plan of set_path/set_route, a walker, none found): the caller draws */
    SN_ROUTE_HOLD = 0,  /* the route leaves from another lane: the path stops here; md->route_dir says where */
    SN_ROUTE_TAKE = 1   /* *pick is the route's branch */
} sn_route_fork_r;

/* The route's choice at a fork. A step that needs another lane holds the path at the lane's end
** while `room` (m of path ahead of the vehicle) leaves space to change lane; then it is given up
** (md->route_missed) and the caller draws among its own lane's branches. t: the traffic's grid of
** bodies as the last frame left it, which the draws read for standing queues (NULL: none). */
sn_route_fork_r sn_route_fork(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md, const sn_waypoint *last, const sn_waypoint *next,
                              size_t k, double room, size_t *pick);
/* Plans on (from where the route's last step leaves its junction, else from the path's start)
** until it holds SN_ROUTE_N steps; after a walk that found no junction, not before RETRY m (t: as
** for sn_route_fork). */
void sn_route_top_up(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md);
/* Drops the steps the vehicle has reached (its path[0] on their connecting lane). */
void sn_route_passed(sn_mapdrive *md);
/* Forgets the route (the path was rebuilt off it: relocated, set_path). */
void sn_route_reset(sn_mapdrive *md);

#endif
