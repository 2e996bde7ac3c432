/* rss_route.c — the ego's route (its lane followed both ways through sections, roads and
** junctions up to max_distance, points ROUTE_STEP apart with their distance along the lane
** centres) and where another vehicle sits on it: along the route and across the route's lane. */
#include "rss.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/grow.h>
#include <sensim/search.h>

/* Steps sideways from `wp` to lane `target` of the same road section at the same s. */
static bool walk_to_lane(rss_sensor *r, sn_waypoint wp, int32_t target, sn_waypoint *out)
{
    for (int guard = 0; wp.lane_id != target && guard < 64; guard++) {
        const int step = target > wp.lane_id ? 1 : -1;
        const int dir = wp.lane_id < 0 ? 1 : -1; /* +1: travels along s, where left raises the id */
        sn_waypoint next;
        if (r->h->map_side_lane(r->ctx, &wp, step == dir, &next) != SN_OK)
            return false;
        wp = next;
    }
    *out = wp;
    return wp.lane_id == target;
}

/* Route points are this far apart along the lane; the route reaches max_distance each way
** and holds at most ROUTE_MAX points (forks multiply branches). */
#define ROUTE_STEP 2.0
#define ROUTE_MAX 16384
#define ROUTE_BRANCHES 8

/* The length of lane centre between two nearby waypoints of one lane: the chord, lengthened by
** the circular arc through both with their headings (exact on lines and arcs; a 2 m step on a
** 10 m radius is off by under 1e-4 m where the bare chord is off by 3e-3 m). */
static double lane_arc(const sn_waypoint *a, const sn_waypoint *b)
{
    const sn_vec3 p = a->transform.location, q = b->transform.location;
    const double chord = hypot(q.x - p.x, q.y - p.y);
    const double half = 0.5 * fabs(wrap_deg(b->transform.rotation.yaw - a->transform.rotation.yaw)) * DEG;
    return half > 1e-9 ? chord * half / sin(half) : chord;
}

static bool route_push(rss_sensor *r, const sn_waypoint *wp, double u)
{
    if (!SN_GROW32(r->route, r->cap_route, (size_t)r->n_route + 1))
        return false;
    r->route[r->n_route++] = (route_pt){*wp, u};
    return true;
}

/* Follows the ego's lane from ewp (at u0) one way: ahead (sign +1) or behind (-1), with the
** traffic (map_next) or against it (map_previous), every branch, until max_distance. */
static bool route_walk(rss_sensor *r, const sn_waypoint *ewp, double u0, int sign, bool with_traffic)
{
    const sn_host *h = r->h;
    uint32_t from = r->n_route;
    if (!route_push(r, ewp, u0))
        return false;
    for (uint32_t i = from; i < r->n_route && r->n_route < ROUTE_MAX; i++) {
        const route_pt pt = r->route[i];
        if (fabs(pt.u - u0) >= r->max_distance)
            continue;
        sn_waypoint next[ROUTE_BRANCHES];
        size_t n = 0;
        sn_status st = with_traffic ? h->map_next(r->ctx, &pt.wp, ROUTE_STEP, next, ROUTE_BRANCHES, &n)
                                    : h->map_previous(r->ctx, &pt.wp, ROUTE_STEP, next, ROUTE_BRANCHES, &n);
        if (st)
            continue; /* the lane ends: no further route this way */
        for (size_t k = 0; k < n && k < ROUTE_BRANCHES; k++)
            if (!route_push(r, &next[k], pt.u + sign * lane_arc(&pt.wp, &next[k])))
                return false;
    }
    return true;
}

static int by_road_cmp(const void *a, const void *b)
{
    const route_key *p = a, *q = b;
    if (p->road != q->road)
        return p->road < q->road ? -1 : 1;
    if (p->s != q->s)
        return p->s < q->s ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* The route, built on first use in a tick. */
static bool route_build(rss_sensor *r, const sn_waypoint *ewp, int route_dir)
{
    if (r->route_built)
        return r->n_route > 0;
    r->route_built = true;
    r->n_route = 0;
    const bool with_traffic = (ewp->lane_id < 0 ? 1 : -1) == route_dir; /* the ego is in its correct lane */
    if (!route_walk(r, ewp, 0, 1, with_traffic) || !route_walk(r, ewp, 0, -1, !with_traffic)) {
        r->n_route = 0;
        return false;
    }
    if (r->n_route > r->cap_by_road) {
        route_key *p = realloc(r->by_road, r->cap_route * sizeof *p);
        if (!p) {
            r->n_route = 0;
            return false;
        }
        r->by_road = p, r->cap_by_road = r->cap_route;
    }
    for (uint32_t i = 0; i < r->n_route; i++)
        r->by_road[i] = (route_key){r->route[i].wp.road_id, r->route[i].wp.s, i};
    qsort(r->by_road, r->n_route, sizeof *r->by_road, by_road_cmp);
    return true;
}

typedef struct route_probe {
    const route_key *k;
    int32_t road;
    double s;
} route_probe;

/* Keys sort by road, then s. */
static bool key_before(const void *ctx, size_t i)
{
    const route_probe *p = ctx;
    const route_key *q = &p->k[i];
    return q->road < p->road || (q->road == p->road && q->s < p->s);
}

/* The route point nearest (in s) to a waypoint on its road, within a step; NULL if the route
** does not pass there. Ties: the one nearest the ego. */
static const route_pt *route_find(const rss_sensor *r, const sn_waypoint *wp)
{
    /* the first point of the road at s - ROUTE_STEP or after */
    const route_probe probe = {r->by_road, wp->road_id, wp->s - ROUTE_STEP};
    uint32_t lo = (uint32_t)sn_search_first(0, r->n_route, &probe, key_before);
    const route_pt *best = NULL;
    for (uint32_t k = lo; k < r->n_route; k++) {
        const route_pt *p = &r->route[r->by_road[k].i];
        if (p->wp.road_id != wp->road_id || p->wp.s > wp->s + ROUTE_STEP)
            break;
        const double d = fabs(p->wp.s - wp->s);
        if (!best || d < fabs(best->wp.s - wp->s) || (d == fabs(best->wp.s - wp->s) && fabs(p->u) < fabs(best->u)))
            best = p;
    }
    return best;
}

/*
** Another vehicle's lane-based place along the ego's route, on any road the route passes
** (through junctions, round curves): its lon range from the arc length along the route's lane
** centres, its lat range from its offset to the route's lane at its place. *same_way: its own
** lane runs the route's way. False (with *note) when the route does not pass its place.
*/
bool rss_place_on_route(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, const sn_waypoint *ewp,
                        int route_dir, rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right,
                        double *heading_cos, bool *same_way, const char **note)
{
    if (!route_build(r, ewp, route_dir)) {
        *note = "out of memory for the ego's route";
        return false;
    }
    const route_pt *pt = route_find(r, wp);
    if (!pt) {
        *note = "off the ego's route (its lane followed both ways through junctions, up to max_distance)";
        return false;
    }
    sn_waypoint lane_wp;
    if (!walk_to_lane(r, *wp, pt->wp.lane_id, &lane_wp)) {
        *note = "the route's lane does not exist at its place";
        return false;
    }
    const bool against = (ewp->lane_id < 0 ? 1 : -1) != route_dir; /* the route runs against the traffic */
    const double fyaw = wrap_deg(lane_wp.transform.rotation.yaw + (against ? 180.0 : 0.0));
    const double pyaw = wrap_deg(pt->wp.transform.rotation.yaw + (against ? 180.0 : 0.0));
    const sn_vec3 f = fwd_of(fyaw), rt = right_of(fyaw), c = box_centre(a);
    const sn_vec3 dl = {c.x - lane_wp.transform.location.x, c.y - lane_wp.transform.location.y, 0};
    const sn_vec3 pq = {lane_wp.transform.location.x - pt->wp.transform.location.x,
                        lane_wp.transform.location.y - pt->wp.transform.location.y, 0};
    const double arc = lane_arc(&pt->wp, &lane_wp) * (dot2(pq, fwd_of(pyaw)) < 0 ? -1 : 1);
    double along, across;
    half_sizes(a, fyaw, &along, &across);
    const double u = route_dir * ewp->s + pt->u + arc + dot2(dl, f), v = dot2(dl, rt);
    *lon = (rss_range){u - along, u + along};
    *lat = (rss_range){v - across, v + across};
    *speed_fwd = dot2(a->velocity, f);
    *speed_right = dot2(a->velocity, rt);
    *heading_cos = cos((a->transform.rotation.yaw - fyaw) * DEG);
    *same_way = cos((wp->transform.rotation.yaw - fyaw) * DEG) >= 0;
    return true;
}

/* One vehicle's lane-based place against the ego's route: fills o->sit's ranges and speeds.
** False (with o->note) when it shares no lane frame with the ego. */
bool rss_place(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, int32_t ego_lane, int route_dir,
               rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right, double *heading_cos,
               const char **note)
{
    sn_waypoint lane_wp;
    if (!walk_to_lane(r, *wp, ego_lane, &lane_wp)) {
        *note = "the ego's lane does not exist at its place";
        return false;
    }
    const double ryaw = route_yaw(&lane_wp, route_dir);
    const sn_vec3 f = fwd_of(ryaw), rt = right_of(ryaw), c = box_centre(a);
    const sn_vec3 d = {c.x - wp->transform.location.x, c.y - wp->transform.location.y, 0};
    const sn_vec3 dl = {c.x - lane_wp.transform.location.x, c.y - lane_wp.transform.location.y, 0};
    double along, across;
    half_sizes(a, ryaw, &along, &across);
    const double u = route_dir * wp->s + dot2(d, f), v = dot2(dl, rt);
    *lon = (rss_range){u - along, u + along};
    *lat = (rss_range){v - across, v + across};
    *speed_fwd = dot2(a->velocity, f);
    *speed_right = dot2(a->velocity, rt);
    *heading_cos = cos((a->transform.rotation.yaw - ryaw) * DEG);
    return true;
}
