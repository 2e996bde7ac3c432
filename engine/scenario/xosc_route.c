/* xosc_route.c — routes on the map for AssignRouteAction and AcquirePositionAction: the
** shortest way (by lane length) through the lane graph, lanes of one section connected to the
** lanes that follow them (sn_map_successors, through junctions), from the entity's lane (or a
** lane beside it, for a small cost) to each waypoint's road in turn. The route is the list of
** roads it passes; the kinematic driver takes, at each lane's end, the successor on the route's
** next road. */
#include "xosc_run.h"

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
** `goal_dir`; the path's nodes into out (reversed back to forward order). */
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
        if (k.road == goal_road && k.section == goal_sec && sn_map_lane_dir(&o->roads[k.road], k.lane) == goal_dir) {
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

static bool fail(sn_xrun *r, int line, const char *what)
{
    snprintf(r->why, sizeof r->why, "%s:%d: %s", r->x->path, line, what);
    r->failed = true;
    return false;
}

bool sn_xroute_plan(sn_xrun *r, int i, const sn_xpos *pts, uint32_t n_pts, int line)
{
    sn_xent *e = &r->ents[i];
    if (!r->map)
        return fail(r, line, "a route needs the scenario's map (RoadNetwork/LogicFile)");
    if (e->mode != SN_XM_LANE) {
        char w[300];
        snprintf(w, sizeof w, "a route for entity '%s', which is on no lane", r->x->ents[i].name);
        return fail(r, line, w);
    }
    const sn_odr *o = r->map->odr;
    if (e->sdir != sn_map_lane_dir(&o->roads[e->ri], e->lane)) {
        char w[300];
        snprintf(w, sizeof w, "a route for entity '%s', which drives against its lane's direction", r->x->ents[i].name);
        return fail(r, line, w);
    }
    graph g = {0};
    if (!graph_build(o, &g)) {
        free(g.base), free(g.sec_base);
        return fail(r, line, "out of memory");
    }
    int32_t *roads = malloc(sizeof *roads);
    uint32_t n_roads = 0;
    bool ok = roads != NULL;
    if (ok)
        roads[n_roads++] = e->ri;
    /* the first leg starts in the entity's lane, or beside it for a cost */
    const sn_odr_section *sec0 = &o->roads[e->ri].sections[e->sec];
    uint32_t seeds[2 * SN_ODR_MAX_LANES + 2], ns = 0;
    double cost[2 * SN_ODR_MAX_LANES + 2];
    for (int l = -(int)sec0->n_right; ok && l <= (int)sec0->n_left; l++) {
        sn_lanekey k = {e->ri, e->sec, l};
        if (l == 0 || !drivable(o, k) || sn_map_lane_dir(&o->roads[e->ri], l) != e->sdir)
            continue;
        int64_t v = node_of(o, &g, k);
        if (v >= 0 && ns < sizeof seeds / sizeof *seeds)
            seeds[ns] = (uint32_t)v, cost[ns++] = LANE_CHANGE_COST * abs(l - e->lane);
    }
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
            ok = fail(r, pts[w].line, "a route's waypoint lies on no drivable lane");
            break;
        }
        const sn_odr_road *rd = &o->roads[pl.road];
        /* the waypoint's direction: its lane's, or the heading's along the road */
        int dir = on ? sn_map_lane_dir(rd, pl.lane) : (cos(q[3] - sn_odr_ref_line(rd, pl.s).hdg) >= 0 ? 1 : -1);
        uint32_t *path = NULL, n_path = 0;
        if (!shortest(r->map, &g, seeds, cost, ns, pl.road, pl.section, dir, &path, &n_path)) {
            char msg[200];
            snprintf(msg, sizeof msg, "no way on the map's lanes to the route's waypoint on road %d", rd->id);
            ok = fail(r, pts[w].line, msg);
            break;
        }
        int32_t *nr = realloc(roads, (n_roads + n_path) * sizeof *nr);
        if (!nr) {
            free(path);
            ok = fail(r, line, "out of memory");
            break;
        }
        roads = nr;
        for (uint32_t k = 0; k < n_path; k++) {
            int32_t road = key_of(o, &g, path[k]).road;
            if (road != roads[n_roads - 1])
                roads[n_roads++] = road;
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

/* The successor (of n) to take: the one on the earliest road of the route not behind. */
size_t sn_xroute_pick(sn_xent *e, const sn_lanekey *next, size_t n)
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
    if (best_k != UINT32_MAX)
        e->route_i = best_k;
    return best;
}
