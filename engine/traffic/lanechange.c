/* lanechange.c — when and where the map autopilot changes lanes, and whether the gap is safe. */
#include "lanechange.h"

#include "../map/lanemap.h"

#include <math.h>
#include <string.h>

#define A_COMFORT 3.0         /* m/s^2 the new follower or we may brake for the gap */
#define OBSTACLE_MIN 8.0      /* m: a slower leader nearer than this is passed no more (CARLA: 15) */
#define OBSTACLE_MAX 50.0     /* m: ... nor one farther (CARLA's MAXIMUM_LANE_OBSTACLE_DISTANCE) */
#define INTER_CHANGE 10.0     /* m: at least this, and 10 s of driving, between two changes (CARLA's) */
#define BACK 40.0             /* m of the target lane checked behind */
#define AHEAD 50.0            /* ... and ahead */
#define LANE_END 60.0         /* m: a lane that ends this near is left for its neighbour */

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The lane beside w on side `dir` (-1 left, +1 right) if the marks let a vehicle cross to it
** and it is a driving lane running the same way. */
static bool beside(const sn_map *m, const sn_waypoint *w, int dir, sn_waypoint *out)
{
    if (!(w->lane_change & (dir < 0 ? SN_LANE_CHANGE_LEFT : SN_LANE_CHANGE_RIGHT)))
        return false;
    sn_status st = dir < 0 ? sn_map_left_lane(m, w, out, NULL) : sn_map_right_lane(m, w, out, NULL);
    if (st != SN_OK || out->lane_type != SN_LANE_DRIVING || out->is_junction)
        return false;
    double d = fmod(fabs(out->transform.rotation.yaw - w->transform.rotation.yaw), 360.0);
    return d < 30 || d > 330;
}

/* The gaps on the target lane around tw (bumper to bumper) and whether they are safe: the
** vehicle ahead can be followed braking at most A_COMFORT, and the one behind can follow us so. */
static bool gap_safe(const sn_lcctx *c, const sn_mapdrive *md, const sn_waypoint *tw)
{
    sn_vec3 pts[64];
    double along[64];
    size_t nb = 0, n = 0;
    /* lane places, not whole waypoints: only their locations are read (sn_map_walk_pos) */
    sn_lanepos back[(int)(BACK / 2) + 1], w, start, nx[8];
    bool ok = sn_map_pos_of(c->m, tw, &start); /* where sn_map_next would fail at once */
    w = start;
    for (double d = 2; ok && d <= BACK && nb < sizeof back / sizeof back[0]; d += 2) {
        if (!sn_map_walk_pos(c->m, &w, 2.0, false, nx, 8))
            break;
        back[nb++] = w = nx[0];
    }
    for (size_t i = nb; i-- > 0;) {
        pts[n] = sn_map_pos_location(c->m, &back[i]);
        along[n++] = -2.0 * (double)(i + 1);
    }
    w = start;
    pts[n] = tw->transform.location;
    along[n++] = 0;
    for (double d = 2; ok && d <= AHEAD && n < 64; d += 2) {
        if (!sn_map_walk_pos(c->m, &w, 2.0, true, nx, 8))
            break;
        w = nx[0];
        pts[n] = sn_map_pos_location(c->m, &w);
        along[n++] = d;
    }
    double gf = INFINITY, vf = 0, gb = INFINITY, vb = 0;
    c->gaps(c->user, pts, along, n, fmax(c->half_width, tw->lane_width / 2 - 0.2), &gf, &vf, &gb, &vb);
    double need_f = md->gap + 1.0 + 0.5 * c->v + pow(fmax(c->v - vf, 0), 2) / (2 * A_COMFORT);
    double need_b = 2.0 + 0.5 * vb + pow(fmax(vb - c->v, 0), 2) / (2 * A_COMFORT);
    return gf >= need_f && gb >= need_b;
}

/* Gap ahead on the target lane only (for the incentive to pass). */
static double ahead_gap(const sn_lcctx *c, const sn_waypoint *tw)
{
    sn_vec3 pts[32];
    double along[32];
    size_t n = 0;
    sn_lanepos w, nx[8];
    pts[n] = tw->transform.location;
    along[n++] = 0;
    bool ok = sn_map_pos_of(c->m, tw, &w); /* where sn_map_next would fail at once */
    for (double d = 2; ok && d <= AHEAD && n < 32; d += 2) {
        if (!sn_map_walk_pos(c->m, &w, 2.0, true, nx, 8))
            break;
        w = nx[0];
        pts[n] = sn_map_pos_location(c->m, &w);
        along[n++] = d;
    }
    double gf = INFINITY, vf = 0;
    c->gaps(c->user, pts, along, n, c->half_width, &gf, &vf, NULL, NULL); /* (none behind: the scan stops at the leader) */
    return gf;
}

/* Whether lane tw goes on for `d` metres (a lane that ends too is no way out of an ending one). */
static bool goes_on(const sn_map *m, const sn_waypoint *tw, double d)
{
    sn_lanepos w, nx[8];
    if (!sn_map_pos_of(m, tw, &w))
        return d <= 0;
    for (double x = 0; x < d; x += 5)
        if (!sn_map_walk_pos(m, &w, 5.0, true, nx, 8))
            return false;
        else
            w = nx[0];
    return true;
}

/* Whether another vehicle began a change into the same lane near tw within the last MERGE_T s:
** it is not in that lane yet, so the gap check does not see it (two cars from either side of a
** lane took the same gap on Town04 and touched). */
#define MERGE_T 3.0
#define MERGE_S 30.0
static bool merging_near(const sn_lcctx *c, const sn_waypoint *tw)
{
    const sn_traffic_stats *st = c->stats;
    if (!st)
        return false;
    uint64_t n = st->lane_changes < SN_LC_LOG ? st->lane_changes : SN_LC_LOG;
    for (uint64_t k = 0; k < n; k++) {
        const sn_lc_event *ev = &st->log[(st->lane_changes - 1 - k) % SN_LC_LOG];
        if ((double)(c->frame - ev->frame) * c->dt > MERGE_T)
            break; /* newest first: the rest are older */
        if (ev->actor != c->actor && ev->road_id == tw->road_id && ev->lane_id == tw->lane_id && fabs(ev->s - tw->s) < MERGE_S)
            return true;
    }
    return false;
}

static bool draw(sn_mapdrive *md, double pct) { return pct > 0 && sn_rng_uniform(&md->rng) * 100 < pct; }

int sn_lc_update(const sn_lcctx *c, sn_mapdrive *md)
{
    if (md->walker || md->n < 2)
        return 0;
    const sn_waypoint w0v = sn_md_wp(md, 0), *w0 = &w0v;
    const double co = clampd(1.5 * c->v, 6.0, 20.0); /* CARLA: clamp(1.5 v, 3, 20) m to the change-over point */
    /* Not in a junction, nor within the change-over distance of one. */
    double d = 0;
    for (uint32_t i = 0; i < md->n && d <= co + 10; i++) {
        if (md->path[i].is_junction)
            return 0;
        if (i)
            d += hypot(md->at[i].x - md->at[i - 1].x, md->at[i].y - md->at[i - 1].y);
    }
    int want = 0;
    bool need = false;
    if (md->ended && d >= 0) {
        /* the lane ends ahead (a lane drop): change to a neighbour that goes on */
        double left = 0;
        for (uint32_t i = 1; i < md->n; i++)
            left += hypot(md->at[i].x - md->at[i - 1].x, md->at[i].y - md->at[i - 1].y);
        need = left < LANE_END;
    }
    bool spaced = !md->lc_done || md->odo - md->lc_odo > fmax(10.0 * c->v, INTER_CHANGE);
    sn_waypoint tw;
    if (need) {
        want = beside(c->m, w0, -1, &tw) && goes_on(c->m, &tw, LANE_END + 20) ? -1
               : beside(c->m, w0, 1, &tw) && goes_on(c->m, &tw, LANE_END + 20) ? 1 : 0;
    }
    bool route = false;
    if (!want && !need && md->route_dir) {
        /* the route's next junction leaves from the lane beside (route.c): move over where the
        ** marks let it, whatever the spacing; the path waits at the lane's end meanwhile */
        double room = 0; /* path left to the lane's end (the path is held there) */
        for (uint32_t i = 1; i < md->n; i++)
            room += hypot(md->at[i].x - md->at[i - 1].x, md->at[i].y - md->at[i - 1].y);
        if (room < co + 10 || !beside(c->m, w0, md->route_dir, &tw))
            return 0;
        want = md->route_dir;
        route = true;
    } else if (need) {
    } else if (!spaced) {
        return 0;
    } else if (md->force_lane_change) {
        want = md->force_lane_change < 0 ? -1 : 1;
        if (!beside(c->m, w0, want, &tw)) {
            md->force_lane_change = 0; /* no such lane here: CARLA drops the request too */
            return 0;
        }
    } else if (md->route_at > 0) {
        return 0; /* the path takes the route's next junction from this lane: no change of choice */
    } else if (draw(md, sn_md_pct(md, SN_MD_PCT_KEEP_RIGHT)) && beside(c->m, w0, 1, &tw)) {
        want = 1;
    } else if (draw(md, sn_md_pct(md, SN_MD_PCT_LC_LEFT)) && beside(c->m, w0, -1, &tw)) {
        want = -1;
    } else if (draw(md, sn_md_pct(md, SN_MD_PCT_LC_RIGHT)) && beside(c->m, w0, 1, &tw)) {
        want = 1;
    } else if (md->auto_lane_change && (c->frame + c->actor) % 10 == 0 && c->has_leader && c->lead_gap >= OBSTACLE_MIN && c->lead_gap <= OBSTACLE_MAX &&
               c->lead_v < 0.8 * c->desired && c->lead_v < c->v + 0.5 && !(c->lead_gap < co + 5)) {
        /* passing a slower leader: CARLA's order, right first, then left, where the lane ahead is freer
        ** (a leader nearer than co + 5 forbids the change below: its lanes are not walked) */
        for (int side = 1; side >= -1 && !want; side -= 2)
            if (beside(c->m, w0, side, &tw) && ahead_gap(c, &tw) > c->lead_gap + 10)
                want = side;
    }
    if (!want)
        return 0;
    /* The path restarts on the target lane beside the vehicle; it steers towards the point `co`
    ** ahead on it (the pursuit looks that far while the change lasts): CARLA's change-over point.
    ** These two tests come before the gap checks, which are pure and cost two walks of the
    ** target lane and a leader scan: in dense traffic most changes stop here (issue 36 item 6). */
    if (c->has_leader && c->lead_gap < co + 5 && !need && !route && !md->force_lane_change)
        return 0;
    /* a route change may leave a queue, but its nose swings out over the first half of the
    ** change-over: the leader must be beyond that and 2 m more (a car pulling out at 0.2 m
    ** clipped its leader on Town10HD) */
    if (route && c->has_leader && c->lead_gap < co / 2 + 2)
        return 0;
    if (!gap_safe(c, md, &tw) || merging_near(c, &tw))
        return 0;
    sn_md_set(md, 0, &tw);
    md->n = 1;
    md->nl.seg = 0; /* a new path (sn_path_nearest_kept) */
    md->lc_co = co;
    md->ended = false;
    md->force_lane_change = 0;
    md->lc_odo = md->odo;
    md->lc_done = true;
    md->route_at = 0; /* the path is rebuilt: the route's steps are taken anew from the new lane */
    md->route_dir = 0;
    sn_traffic_stats *st = c->stats;
    if (st && route)
        st->route_lane_changes++;
    if (st) {
        st->log[st->lane_changes % SN_LC_LOG] = (sn_lc_event){c->actor, tw.road_id, tw.lane_id, tw.s, c->frame};
        st->lane_changes++;
    }
    return want;
}
