/* route.c — the autopilot's next junction choices, drawn ahead along the map's lanes. */
#include "route.h"

#include "tm.h"
#include "traffic_int.h"

#include "../map/lanemap.h"

#include <math.h>
#include <string.h>

#define WALK_MAX 300.0 /* m walked along lanes to find the next junction */
#define HOLD_MIN 30.0  /* m of path kept ahead while waiting to change lane: the change-over (<= 20 m) + 10 */
#define RETRY 50.0     /* m driven before a route that found no junction is looked for again */
#define CONN_MAX 100.0 /* m walked along a connecting lane to its exit */
#define FULL_NEED 6.0  /* m past an exit's start a standing vehicle's rear must clear for the exit to take one more */
#define FULL_V 0.3     /* m/s under which a vehicle stands (jam_probe's) */
#define FREE_WEIGHT 4  /* a branch whose exit is free is drawn this many times as often as a full one */
#define FULL_LAT 1.5   /* m from the exit lane's centre line within which a standing vehicle is on it */


void sn_route_reset(sn_mapdrive *md)
{
    md->n_route = md->route_at = 0;
    md->route_dir = 0;
    md->has_tail = false;
}

static bool junction_wp(const sn_waypoint *next, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (next[i].is_junction)
            return true;
    return false;
}

/* The lane beside w on side dir (-1 left, +1 right) running the same way (driving), or false. */
static bool same_way(const sn_map *m, const sn_waypoint *w, int dir, sn_waypoint *out)
{
    sn_status st = dir < 0 ? sn_map_left_lane(m, w, out, NULL) : sn_map_right_lane(m, w, out, NULL);
    if (st != SN_OK || out->lane_type != SN_LANE_DRIVING || out->is_junction)
        return false;
    double d = fmod(fabs(out->transform.rotation.yaw - w->transform.rotation.yaw), 360.0);
    return d < 30 || d > 330;
}

/* Which side of w the lane (road, lane) lies on among the lanes running its way: -1 left,
** +1 right, 0 not beside it (or w's own). */
static int side_of(const sn_map *m, const sn_waypoint *w, int32_t road, int32_t lane)
{
    if (w->road_id != road)
        return 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        sn_waypoint a = *w, b;
        for (int i = 0; i < 6 && same_way(m, &a, dir, &b); i++, a = b)
            if (b.lane_id == lane)
                return dir;
    }
    return 0;
}

/* From w, walks its lane (and through junctions along the connecting lane it is on) to the next
** fork into a junction; *at: the last waypoint before it, next[0..*k) its branches. The walk
** steps on lane places (sn_map_walk_pos) and makes whole waypoints only of what it returns: the
** same waypoints as sn_map_next at every step, for a fraction of the cost (Town04's highways walk
** WALK_MAX to no junction). */
static bool walk_to_fork(const sn_map *m, sn_waypoint w, sn_waypoint *at, sn_waypoint *next, size_t cap, size_t *k)
{
    sn_lanepos p, nx[16];
    if (cap > 16)
        cap = 16;
    if (!sn_map_pos_of(m, &w, &p))
        return false;
    bool moved = false, junction = w.is_junction;
    for (double d = 0; d < WALK_MAX; d += SN_MD_STEP) {
        *k = sn_map_walk_pos(m, &p, SN_MD_STEP, true, nx, cap);
        if (*k > cap)
            *k = cap;
        if (*k == 0)
            return false; /* a dead end: no further choice */
        bool fork = false;
        for (size_t i = 0; i < *k && !junction; i++)
            fork |= sn_map_pos_junction(m, &nx[i]);
        if (fork) {
            if (moved)
                sn_map_make_waypoint(m, p.k, p.s, at);
            else
                *at = w;
            for (size_t i = 0; i < *k; i++)
                sn_map_make_waypoint(m, nx[i].k, nx[i].s, &next[i]);
            return true;
        }
        p = nx[0], moved = true;
        junction = sn_map_pos_junction(m, &p);
    }
    return false;
}

/* Whether the branch starting at conn (a connecting lane's first waypoint) feeds a standing queue
** it cannot leave: a vehicle stands (under FULL_V, as the last frame left it) on the lane that
** leaves the junction there, heading its way, its front past the lane's start and its rear less
** than FULL_NEED m beyond it (one more vehicle taking the branch would stand inside the junction),
** and that lane offers no choice within WALK_MAX (one branch at its next fork, or none): a car
** entering it is committed to the queue's path. Those are the lanes that close Town10HD's rings
** round a block (road 5 lane -2, road 13 lane 2); a full exit with choices ahead (the shipped
** town's crossroads) spreads its queue and is drawn as before. Cost: one walk along the connector
** (2 m steps) and the grid's cells round one point, per branch at a draw; the walk along the
** exit lane only where a vehicle stands at its start. Never per frame. */
static bool exit_full(const struct sn_traffic *t, const sn_map *m, const sn_waypoint *conn)
{
    if (!t || !t->n)
        return false; /* no grid yet (the scene's first frame) */
    sn_lanepos p, nx[16];
    if (!sn_map_pos_of(m, conn, &p))
        return false;
    double d = 0;
    for (; d < CONN_MAX && sn_map_pos_junction(m, &p); d += SN_MD_STEP) {
        if (!sn_map_walk_pos(m, &p, SN_MD_STEP, true, nx, 16))
            return false; /* the connector ends nowhere */
        p = nx[0];
    }
    if (d >= CONN_MAX)
        return false;
    /* the exit's start x0 (within a step of the junction's edge) and its heading u there */
    sn_waypoint x;
    sn_map_make_waypoint(m, p.k, p.s, &x);
    const sn_vec3 x0 = x.transform.location;
    const double yaw = x.transform.rotation.yaw * SN_DEG, ux = cos(yaw), uy = sin(yaw);
    const double reach = FULL_NEED + t->ext_max + 2;
    const int64_t cx0 = sn_traffic_cell(x0.x - reach), cx1 = sn_traffic_cell(x0.x + reach);
    const int64_t cy0 = sn_traffic_cell(x0.y - reach), cy1 = sn_traffic_cell(x0.y + reach);
    for (int64_t cx = cx0; cx <= cx1; cx++) {
        const uint64_t k1 = sn_traffic_key(cx, cy1);
        for (size_t i = sn_traffic_first(t, sn_traffic_key(cx, cy0)); i < t->n && t->q[i].key <= k1; i++) {
            const body *b = &t->b[i];
            if (b->kind != SN_ACTOR_VEHICLE || b->down || b->vel.x * b->vel.x + b->vel.y * b->vel.y >= FULL_V * FULL_V)
                continue;
            if (fabs(b->pos.z - x0.z) > SN_TRAFFIC_LEVEL || b->fwd.x * ux + b->fwd.y * uy < 0.7)
                continue;
            const double rx = b->pos.x - x0.x, ry = b->pos.y - x0.y;
            const double lon = rx * ux + ry * uy, lat = fabs(ry * ux - rx * uy);
            if (lat >= FULL_LAT || lon + b->ext.x <= 0 || lon - b->ext.x >= FULL_NEED)
                continue;
            sn_waypoint at, fork[16];
            size_t k = 0;
            return !walk_to_fork(m, x, &at, fork, 16, &k) || k <= 1;
        }
    }
    return false;
}

/* Appends steps until the route holds SN_ROUTE_N or no junction lies ahead. At each fork the
** branches of every lane running the same way beside the arriving one count (a turn that only the
** left lane makes is a choice too); one is drawn from the vehicle's generator, uniformly but for
** the branches exit_full finds feeding a standing queue. */
static void plan(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md, const sn_waypoint *from)
{
    sn_waypoint w = md->has_tail ? sn_md_expand(&md->route_tail, md->route_tail_at, false) : *from;
    while (md->n_route < SN_ROUTE_N) {
        sn_waypoint at, next[16];
        size_t k = 0;
        if (!walk_to_fork(m, w, &at, next, 16, &k)) {
            md->route_retry = md->odo + RETRY;
            return;
        }
        sn_route_step cand[32];
        sn_waypoint cw[32];
        size_t nc = 0;
        /* the arriving lane's branches, then its neighbours' (left, then right) */
        sn_waypoint lanes[13];
        size_t nl = 0;
        lanes[nl++] = at;
        for (int dir = -1; dir <= 1; dir += 2) {
            sn_waypoint a = at, b;
            for (int i = 0; i < 6 && same_way(m, &a, dir, &b); i++, a = b)
                lanes[nl++] = b;
        }
        for (size_t l = 0; l < nl; l++) {
            size_t kk = 0;
            sn_waypoint nx[16];
            if (l == 0)
                memcpy(nx, next, k * sizeof *nx), kk = k;
            else
                sn_map_next(m, &lanes[l], SN_MD_STEP, nx, 16, &kk, NULL);
            for (size_t i = 0; i < kk && i < 16 && nc < 32; i++) {
                if (!nx[i].is_junction)
                    continue;
                bool dup = false;
                for (size_t q = 0; q < nc; q++)
                    dup |= cand[q].conn_road == nx[i].road_id && cand[q].conn_lane == nx[i].lane_id;
                if (dup)
                    continue;
                cand[nc] = (sn_route_step){nx[i].road_id, nx[i].lane_id, lanes[l].road_id, lanes[l].lane_id};
                cw[nc++] = nx[i];
            }
        }
        if (!nc)
            return;
        /* A branch that feeds a standing queue it cannot leave (exit_full) is drawn a FREE_WEIGHT-th
        ** as often as the others: cars that would stand in the junction behind it are what close
        ** the rings of queues round a block (Town10HD). Weighted, not excluded, so that traffic still
        ** spreads over every branch; one draw of the generator either way, and where none or all
        ** are full the draw is uniform, CARLA's, to the bit. */
        uint8_t wt[32];
        size_t sum = 0;
        for (size_t i = 0; i < nc; i++)
            sum += wt[i] = exit_full(t, m, &cw[i]) ? 1 : FREE_WEIGHT;
        size_t r = (size_t)(sn_rng_u64(&md->rng) % sum), pick = 0;
        if (sum == nc * FREE_WEIGHT || sum == nc)
            pick = r % nc;
        else
            for (; r >= wt[pick]; pick++)
                r -= wt[pick];
        md->route[md->n_route++] = cand[pick];
        md->route_tail = sn_md_pack(&cw[pick]);
        md->route_tail_at = cw[pick].transform.location;
        md->has_tail = true;
        w = cw[pick];
    }
}

sn_route_fork_r sn_route_fork(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md, const sn_waypoint *last, const sn_waypoint *next,
                              size_t k, double room, size_t *pick)
{
    if (md->walker || (md->plan && md->plan->next < md->plan->n) || !junction_wp(next, k))
        return SN_ROUTE_FREE;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (md->route_at >= md->n_route && md->odo >= md->route_retry)
            plan(t, m, md, last);
        if (md->route_at >= md->n_route)
            return SN_ROUTE_FREE;
        const sn_route_step *s = &md->route[md->route_at];
        if (s->from_road != last->road_id) {
            /* the path and the route parted (a turn-round, a push off the lane): plan afresh here */
            sn_route_reset(md);
            continue;
        }
        for (size_t i = 0; i < k; i++)
            if (next[i].road_id == s->conn_road && next[i].lane_id == s->conn_lane) {
                *pick = i;
                md->route_at++;
                md->route_dir = 0;
                return SN_ROUTE_TAKE;
            }
        int side = side_of(m, last, s->from_road, s->from_lane);
        if (side && room >= HOLD_MIN) {
            md->route_dir = (int8_t)side;
            return SN_ROUTE_HOLD;
        }
        /* too late to change lane (or the lane is not beside ours): the step is given up */
        md->route_missed++;
        sn_route_reset(md);
        return SN_ROUTE_FREE;
    }
    return SN_ROUTE_FREE;
}

void sn_route_top_up(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md)
{
    if (md->walker || (md->plan && md->plan->next < md->plan->n) || md->n_route >= SN_ROUTE_N || md->odo < md->route_retry ||
        !md->n)
        return;
    const sn_waypoint w0 = sn_md_wp(md, 0);
    plan(t, m, md, &w0);
}

void sn_route_passed(sn_mapdrive *md)
{
    if (!md->n)
        return;
    for (uint32_t q = 0; q < md->route_at && q < md->n_route; q++)
        if (md->path[0].road_id == md->route[q].conn_road && md->path[0].lane_id == md->route[q].conn_lane) {
            uint32_t drop = q + 1;
            memmove(md->route, md->route + drop, (md->n_route - drop) * sizeof *md->route);
            md->n_route = (uint8_t)(md->n_route - drop);
            md->route_at = (uint8_t)(md->route_at - drop);
            return;
        }
}
