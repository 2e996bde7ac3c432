/* xosc_route.c — routes on the map for AssignRouteAction and AcquirePositionAction: the
** shortest way (by lane length) through the lane graph, lanes of one section connected to the
** lanes that follow them (sn_map_successors, through junctions), from the entity's lane (or a
** lane beside it, for a small cost) to each waypoint's road in turn. The route is the list of
** roads it passes; the kinematic driver takes, at each lane's end, the successor on the route's
** next road. */
#include "xosc_pos.h"

#include "../map/lanemap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LANE_CHANGE_COST 20.0 /* m: a start in a lane beside the entity's */
#define DRIVABLE (SN_LANE_DRIVING | SN_LANE_ENTRY | SN_LANE_EXIT | SN_LANE_ONRAMP | SN_LANE_OFFRAMP | SN_LANE_BIDIRECTIONAL)

typedef struct graph {
    uint32_t *base;  /* per road: index of its first section in sec_base */
    uint32_t *sec_base; /* per section (all roads): its first node */
    uint32_t n;
} graph;

static bool graph_build(const sn_odr *o, graph *g)
{
    uint32_t nsec = 0;
    for (uint32_t r = 0; r < o->n_roads; r++)
        nsec += o->roads[r].n_sections;
    g->base = malloc((o->n_roads + 1) * sizeof *g->base);
    g->sec_base = malloc((nsec + 1) * sizeof *g->sec_base);
    if (!g->base || !g->sec_base)
        return false;
    uint32_t k = 0;
    g->n = 0;
    for (uint32_t r = 0; r < o->n_roads; r++) {
        g->base[r] = k;
        for (uint32_t s = 0; s < o->roads[r].n_sections; s++) {
            g->sec_base[k++] = g->n;
            g->n += o->roads[r].sections[s].n_left + o->roads[r].sections[s].n_right;
        }
    }
    return true;
}

static int64_t node_of(const sn_odr *o, const graph *g, sn_lanekey k)
{
    const sn_odr_section *sec = &o->roads[k.road].sections[k.section];
    int l = k.lane;
    if (l == 0 || l > (int)sec->n_left || -l > (int)sec->n_right)
        return -1;
    return g->sec_base[g->base[k.road] + k.section] + (l > 0 ? (uint32_t)(l - 1) : sec->n_left + (uint32_t)(-l) - 1);
}

static sn_lanekey key_of(const sn_odr *o, const graph *g, uint32_t node)
{
    uint32_t r = 0;
    while (r + 1 < o->n_roads && g->sec_base[g->base[r + 1]] <= node)
        r++;
    uint32_t s = 0;
    while (s + 1 < o->roads[r].n_sections && g->sec_base[g->base[r] + s + 1] <= node)
        s++;
    const sn_odr_section *sec = &o->roads[r].sections[s];
    uint32_t i = node - g->sec_base[g->base[r] + s];
    return (sn_lanekey){(int32_t)r, s, i < sec->n_left ? (int)i + 1 : -(int)(i - sec->n_left) - 1};
}

static bool drivable(const sn_odr *o, sn_lanekey k)
{
    const sn_odr_lane *l = sn_odr_lane_of(&o->roads[k.road].sections[k.section], k.lane);
    return l && (l->type & DRIVABLE);
}

/* Dijkstra from the seeds to any node on road `goal_road`, section `goal_sec`, of direction
** `goal_dir` (0: either); the path's nodes into out (reversed back to forward order). */
static bool shortest(const sn_map *m, const graph *g, const uint32_t *seeds, const double *seed_cost, uint32_t n_seeds,
                     int32_t goal_road, uint32_t goal_sec, int goal_dir, uint32_t **path, uint32_t *n_path)
{
    const sn_odr *o = m->odr;
    double *dist = malloc(g->n * sizeof *dist);
    int64_t *prev = malloc(g->n * sizeof *prev);
    bool *done = calloc(g->n, 1);
    bool ok = false;
    if (!dist || !prev || !done)
        goto out;
    for (uint32_t i = 0; i < g->n; i++)
        dist[i] = INFINITY, prev[i] = -1;
    for (uint32_t i = 0; i < n_seeds; i++)
        if (seed_cost[i] < dist[seeds[i]])
            dist[seeds[i]] = seed_cost[i];
    for (;;) {
        int64_t u = -1;
        for (uint32_t i = 0; i < g->n; i++) /* the nearest open node (plans are rare: no heap) */
            if (!done[i] && isfinite(dist[i]) && (u < 0 || dist[i] < dist[u]))
                u = i;
        if (u < 0)
            break;
        done[u] = true;
        sn_lanekey k = key_of(o, g, (uint32_t)u);
        if (k.road == goal_road && k.section == goal_sec &&
            (!goal_dir || sn_map_lane_dir(&o->roads[k.road], k.lane) == goal_dir)) {
            uint32_t n = 0;
            for (int64_t v = u; v >= 0; v = prev[v])
                n++;
            *path = malloc(n * sizeof **path);
            if (!*path)
                goto out;
            *n_path = n;
            for (int64_t v = u; v >= 0; v = prev[v])
                (*path)[--n] = (uint32_t)v;
            ok = true;
            goto out;
        }
        sn_lanekey next[16];
        double ns[16];
        size_t nn = sn_map_successors(m, k, true, next, ns, 16);
        for (size_t j = 0; j < nn && j < 16; j++) {
            if (!drivable(o, next[j]))
                continue;
            int64_t v = node_of(o, g, next[j]);
            const sn_odr_section *sec = &o->roads[next[j].road].sections[next[j].section];
            double c = dist[u] + (sec->s_end - sec->s);
            if (v >= 0 && !done[v] && c < dist[v])
                dist[v] = c, prev[v] = u;
        }
    }
out:
    free(dist);
    free(prev);
    free(done);
    return ok;
}

#define SEEDS (2 * SN_ODR_MAX_LANES + 2)

/* The drivable lanes of road ri's section sec whose direction is dir as a leg's start nodes
** (seeds, at most SEEDS), each with its cost: LANE_CHANGE_COST a lane away from *lane, 0 without
** one. Returns how many. */
static uint32_t seed_lanes(const sn_odr *o, const graph *g, int32_t ri, uint32_t sec, int dir, const int *lane,
                           uint32_t *seeds, double *cost)
{
    const sn_odr_section *sc = &o->roads[ri].sections[sec];
    uint32_t ns = 0;
    for (int l = -(int)sc->n_right; l <= (int)sc->n_left; l++) {
        sn_lanekey k = {ri, sec, l};
        if (l == 0 || !drivable(o, k) || sn_map_lane_dir(&o->roads[ri], l) != dir)
            continue;
        int64_t v = node_of(o, g, k);
        if (v >= 0 && ns < SEEDS)
            seeds[ns] = (uint32_t)v, cost[ns++] = lane ? LANE_CHANGE_COST * abs(l - *lane) : 0;
    }
    return ns;
}

/* Appends the roads of a leg's path (graph nodes) to the route (*roads, *n_roads >= 1), each
** road once where the path stays on it; false when out of memory (the route as it was). */
static bool append_roads(const sn_odr *o, const graph *g, int32_t **roads, uint32_t *n_roads, const uint32_t *path,
                         uint32_t n_path)
{
    int32_t *nr = realloc(*roads, (*n_roads + n_path) * sizeof *nr);
    if (!nr)
        return false;
    *roads = nr;
    for (uint32_t k = 0; k < n_path; k++) {
        int32_t road = key_of(o, g, path[k]).road;
        if (road != nr[*n_roads - 1])
            nr[(*n_roads)++] = road;
    }
    return true;
}

bool sn_xroute_plan(sn_xrun *r, int i, const sn_xpos *pts, uint32_t n_pts, int line)
{
    sn_xent *e = &r->ents[i];
    if (!r->map)
        return sn_xrun_fail(r, line, "a route needs the scenario's map (RoadNetwork/LogicFile)");
    if (e->mode != SN_XM_LANE) {
        char w[300];
        snprintf(w, sizeof w, "a route for entity '%s', which is on no lane", r->x->ents[i].name);
        return sn_xrun_fail(r, line, "%s", w);
    }
    /* An entity driving against its lane's direction (overtaking, or put there heading the other
    ** way) is routed in its own direction of travel: the first leg starts in the lanes of that
    ** direction beside it (a lane change away, esmini's route_lane_change), and it keeps driving
    ** on its lane until a lateral action moves it; lane_travel follows the route's roads either way. */
    const sn_odr *o = r->map->odr;
    graph g = {0};
    if (!graph_build(o, &g)) {
        free(g.base), free(g.sec_base);
        return sn_xrun_fail(r, line, "out of memory");
    }
    int32_t *roads = malloc(sizeof *roads);
    uint32_t n_roads = 0;
    bool ok = roads != NULL;
    if (ok)
        roads[n_roads++] = e->ri;
    /* the first leg starts in the entity's lane, or beside it for a cost */
    uint32_t seeds[SEEDS];
    double cost[SEEDS];
    uint32_t ns = ok ? seed_lanes(o, &g, e->ri, e->sec, e->sdir, &e->lane, seeds, cost) : 0;
    for (uint32_t w = 0; ok && w < n_pts; w++) {
        double q[4], s, off;
        int32_t ri;
        int lane;
        bool on;
        if (!sn_xmove_resolve(r, &pts[w], q, &ri, &lane, &s, &off, &on)) {
            ok = false;
            break;
        }
        sn_map_place pl;
        if (!sn_map_locate(r->map, (sn_vec3){q[0], -q[1], q[2]}, 5.0, DRIVABLE, &pl)) {
            ok = sn_xrun_fail(r, pts[w].line, "a route's waypoint lies on no drivable lane");
            break;
        }
        const sn_odr_road *rd = &o->roads[pl.road];
        /* the waypoint's direction: its heading's along the road (a lane position heads along its
        ** lane unless an Orientation turns it: then the route runs against that lane, as
        ** esmini's RoadManager plans a waypoint by its heading) */
        int dir = cos(q[3] - sn_odr_ref_line(rd, pl.s).hdg) >= 0 ? 1 : -1;
        (void)on;
        uint32_t *path = NULL, n_path = 0;
        /* no way to the waypoint's direction: to its road in either (esmini's RoadPath::Calculate
        ** searches roads, not lanes, and takes a waypoint as reached on its road whichever way the
        ** entity drives there: route_lane_change's last waypoint, on a lane entered from its end) */
        if (!shortest(r->map, &g, seeds, cost, ns, pl.road, pl.section, dir, &path, &n_path) &&
            !shortest(r->map, &g, seeds, cost, ns, pl.road, pl.section, 0, &path, &n_path)) {
            if (w == 0 && n_pts > 1) {
                /* no way from the entity to the first waypoint: esmini's route is the path
                ** between its waypoints (Route::AddWaypoint), the entity on it once it gets
                ** there (route_lane_change teleports it onto the route next): so is sensim's */
                ns = seed_lanes(o, &g, pl.road, pl.section, dir, NULL, seeds, cost);
                if (ns) {
                    roads[0] = pl.road, n_roads = 1;
                    char wl[400];
                    snprintf(wl, sizeof wl, "%s:%d: Waypoint: entity '%s' has no way on the map's lanes to the "
                             "route's first waypoint: the route runs from that waypoint on, as esmini's",
                             r->x->path, pts[w].line, r->x->ents[i].name);
                    if (r->warn)
                        r->warn(r->warn_user, wl);
                    continue;
                }
            }
            char msg[200];
            snprintf(msg, sizeof msg, "no way on the map's lanes to the route's waypoint on road %d", rd->id);
            ok = sn_xrun_fail(r, pts[w].line, "%s", msg);
            break;
        }
        if (!append_roads(o, &g, &roads, &n_roads, path, n_path)) {
            free(path);
            ok = sn_xrun_fail(r, line, "out of memory");
            break;
        }
        seeds[0] = path[n_path - 1], cost[0] = 0, ns = 1; /* the next leg starts where this one ended */
        free(path);
    }
    free(g.base);
    free(g.sec_base);
    if (!ok) {
        free(roads);
        return false;
    }
    free(e->route);
    e->route = roads;
    e->n_route = n_roads;
    e->route_i = 0;
    return true;
}

/* The successor (of n) to take: the one on the earliest road of the route not behind. When none
** is on the route (the entity reached the junction on another lane than its route was planned on,
** as in a lane change into the opposite lane), the connecting road whose far end is on it: esmini's
** Position::MoveToConnectingRoad matches each connection by the road at its other end
** (GetRoadAtOtherEndOfIncomingRoad) against the route's next road. forward: as sn_map_successors. */
size_t sn_xroute_pick(const sn_xrun *r, sn_xent *e, const sn_lanekey *next, size_t n, bool forward)
{
    if (!e->route)
        return 0;
    size_t best = 0;
    uint32_t best_k = UINT32_MAX;
    for (size_t j = 0; j < n; j++)
        for (uint32_t k = e->route_i; k < e->n_route && k < best_k; k++)
            if (e->route[k] == next[j].road) {
                best = j, best_k = k;
                break;
            }
    if (best_k == UINT32_MAX && r->map) {
        const sn_odr *o = r->map->odr;
        for (size_t j = 0; j < n; j++) {
            sn_lanekey key = next[j], far[8];
            double fs[8];
            /* through the connecting road (its sections) to the first road outside the junction */
            for (int hop = 0; hop < 8 && o->roads[key.road].junction >= 0; hop++) {
                if (sn_map_successors(r->map, key, forward, far, fs, 8) == 0)
                    break;
                key = far[0];
            }
            if (o->roads[key.road].junction >= 0 || key.road == next[j].road)
                continue;
            for (uint32_t k = e->route_i; k < e->n_route && k < best_k; k++)
                if (e->route[k] == key.road) {
                    best = j, best_k = k;
                    break;
                }
        }
    }
    if (best_k != UINT32_MAX)
        e->route_i = best_k;
    return best;
}

/* ---- RoutePosition: a place along a Route (pathS from its first waypoint) ---- */

/* Plans route k's lanes once: from the first waypoint's lane (in its direction of travel)
** through each later waypoint, the shortest way, as sn_xroute_plan plans an entity's route. */
static bool plan_route(sn_xrun *r, sn_xroute *rt)
{
    const sn_odr *o = r->map->odr;
    double q[4], s, off;
    int32_t ri;
    int lane;
    bool on;
    if (!sn_xmove_resolve(r, &rt->wps[0], q, &ri, &lane, &s, &off, &on))
        return false;
    sn_map_place pl;
    if (!sn_map_locate(r->map, (sn_vec3){q[0], -q[1], q[2]}, 5.0, DRIVABLE, &pl))
        return sn_xrun_fail(r, rt->wps[0].line, "a RoutePosition's route starts on no drivable lane");
    const sn_odr_road *rd = &o->roads[pl.road];
    int dir = on ? sn_map_lane_dir(rd, pl.lane) : (cos(q[3] - sn_odr_ref_line(rd, pl.s).hdg) >= 0 ? 1 : -1);
    if (sn_map_lane_dir(rd, pl.lane) != dir) { /* a waypoint heading against its lane: the nearest lane of its direction */
        const sn_odr_section *sec = &o->roads[pl.road].sections[pl.section];
        int best = 0;
        for (int l = -(int)sec->n_right; l <= (int)sec->n_left; l++)
            if (l && sn_map_lane_dir(rd, l) == dir && drivable(o, (sn_lanekey){pl.road, pl.section, l}) &&
                (!best || abs(l - pl.lane) < abs(best - pl.lane)))
                best = l;
        if (!best)
            return sn_xrun_fail(r, rt->wps[0].line,
                                "a RoutePosition's route starts on a road with no lane in its direction");
        pl.lane = best;
    }
    graph g = {0};
    if (!graph_build(o, &g)) {
        free(g.base), free(g.sec_base);
        return sn_xrun_fail(r, rt->line, "out of memory");
    }
    int64_t v0 = node_of(o, &g, (sn_lanekey){pl.road, pl.section, pl.lane});
    uint32_t *nodes = malloc(sizeof *nodes), n_nodes = 0;
    bool ok = nodes && v0 >= 0;
    if (ok)
        nodes[n_nodes++] = (uint32_t)v0;
    for (uint32_t w = 1; ok && w < rt->n; w++) {
        if (!sn_xmove_resolve(r, &rt->wps[w], q, &ri, &lane, &s, &off, &on)) {
            ok = false;
            break;
        }
        sn_map_place wp;
        if (!sn_map_locate(r->map, (sn_vec3){q[0], -q[1], q[2]}, 5.0, DRIVABLE, &wp)) {
            ok = sn_xrun_fail(r, rt->wps[w].line, "a route's waypoint lies on no drivable lane");
            break;
        }
        const sn_odr_road *wr = &o->roads[wp.road];
        int wdir = on ? sn_map_lane_dir(wr, wp.lane) : (cos(q[3] - sn_odr_ref_line(wr, wp.s).hdg) >= 0 ? 1 : -1);
        uint32_t seed = nodes[n_nodes - 1], *path = NULL, n_path = 0;
        double zero = 0;
        if (!shortest(r->map, &g, &seed, &zero, 1, wp.road, wp.section, wdir, &path, &n_path)) {
            char msg[200];
            snprintf(msg, sizeof msg, "no way on the map's lanes to the route's waypoint on road %d", wr->id);
            ok = sn_xrun_fail(r, rt->wps[w].line, "%s", msg);
            break;
        }
        uint32_t *nw = realloc(nodes, (n_nodes + n_path) * sizeof *nw);
        if (!nw) {
            free(path);
            ok = sn_xrun_fail(r, rt->line, "out of memory");
            break;
        }
        nodes = nw;
        for (uint32_t k = 1; k < n_path; k++) /* path[0] is the seed, already there */
            nodes[n_nodes++] = path[k];
        free(path);
    }
    if (ok && !(rt->keys = malloc((size_t)n_nodes * 3 * sizeof *rt->keys)))
        ok = sn_xrun_fail(r, rt->line, "out of memory");
    for (uint32_t k = 0; ok && k < n_nodes; k++) {
        sn_lanekey key = key_of(o, &g, nodes[k]);
        rt->keys[3 * k] = key.road, rt->keys[3 * k + 1] = (int32_t)key.section, rt->keys[3 * k + 2] = key.lane;
    }
    free(nodes);
    free(g.base);
    free(g.sec_base);
    if (!ok)
        return false;
    rt->n_keys = n_nodes;
    rt->s0 = pl.s;
    rt->planned = true;
    return true;
}

bool sn_xroutepos_resolve(sn_xrun *r, const sn_xpos *p, double out[4], int32_t *road, int *lane, double *s, double *off,
                          bool *on_lane)
{
    sn_xpos q = *p; /* the place as a position sensim resolves already, the orientation kept */
    q.route = -1;
    if (p->in_route == 0) { /* FromCurrentEntity: where the entity is */
        q.kind = SN_XP_REL_WORLD;
        q.x = q.y = q.z = 0;
        return sn_xmove_resolve(r, &q, out, road, lane, s, off, on_lane);
    }
    if (!r->map)
        return sn_xrun_fail(r, p->line, "a RoutePosition needs the scenario's map (RoadNetwork/LogicFile)");
    sn_xroute *rt = &r->x->routes[p->route];
    if (!rt->planned && !plan_route(r, rt))
        return false;
    const sn_odr *o = r->map->odr;
    /* walk pathS along the lanes: the first from the first waypoint's s, each later one whole */
    double left = p->s;
    uint32_t k = 0;
    double at = rt->s0;
    int dir = 1;
    for (;; k++) {
        const sn_odr_road *rd = &o->roads[rt->keys[3 * k]];
        const sn_odr_section *sec = &rd->sections[rt->keys[3 * k + 1]];
        dir = sn_map_lane_dir(rd, rt->keys[3 * k + 2]);
        double from = k == 0 ? rt->s0 : dir > 0 ? sec->s : sec->s_end;
        double len = dir > 0 ? sec->s_end - from : from - sec->s;
        if (left <= len + 1e-9 || k + 1 == rt->n_keys) {
            if (left > len + 1e-6) {
                char msg[200];
                snprintf(msg, sizeof msg, "pathS %g is past the route's end (%g m from its first waypoint)", p->s,
                         p->s - left + len);
                return sn_xrun_fail(r, p->line, "%s", msg);
            }
            at = from + dir * fmin(left, len);
            break;
        }
        left -= len;
    }
    const sn_odr_road *rd = &o->roads[rt->keys[3 * k]];
    q.road = rd->id;
    q.s = at;
    if (p->in_route == 1) {
        q.kind = SN_XP_ROAD;
        /* t is the road's; the heading the route's direction of travel unless given */
        if (!p->has_h && dir < 0)
            q.has_h = true, q.h_relative = true, q.h = M_PI;
    } else {
        q.kind = SN_XP_LANE;
    }
    return sn_xmove_resolve(r, &q, out, road, lane, s, off, on_lane);
}
