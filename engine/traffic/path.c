/* path.c — the map autopilot's path: put on the nearest lane, extended along the lanes (branches
** from the route or the autopilot's generator, a turn-round loop at a dead end), its passed
** waypoints dropped, and its points with their distances for the frame's decision (traffic.c). */
#include "route.h"
#include "tm.h"
#include "traffic_int.h"

#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <math.h>
#include <string.h>

static uint32_t lane_types(const sn_mapdrive *md) { return md->walker ? SN_LANE_SIDEWALK : SN_LANE_DRIVING; }

/* Puts the path back on the lane nearest the actor; a vehicle off the road looks beyond 50 m (as
** far as the map reaches) and drives there. */
bool sn_md_relocate(const sn_map *m, sn_mapdrive *md, sn_vec3 pos)
{
    md->n = 0;
    md->nl.seg = 0; /* a new path (sn_path_nearest_kept) */
    md->ended = false;
    md->far = false;
    sn_route_reset(md);
    sn_waypoint w0;
    if (sn_map_waypoint(m, pos, true, lane_types(md), &w0, NULL) == SN_OK) {
        sn_md_set(md, 0, &w0);
    } else {
        sn_map_place pl;
        double reach = hypot(fmax(fabs(pos.x - m->lo.x), fabs(pos.x - m->hi.x)),
                             fmax(fabs(pos.y - m->lo.y), fabs(pos.y - m->hi.y)));
        if (md->walker || !sn_map_locate(m, pos, reach + 1, lane_types(md), &pl))
            return false;
        sn_map_make_waypoint(m, (sn_lanekey){pl.road, pl.section, pl.lane}, pl.s, &w0);
        sn_md_set(md, 0, &w0);
        md->far = true;
    }
    md->n = 1;
    return true;
}

/* Appends a turn-round loop from the path's last waypoint onto the lane on its left when that
** lane runs the other way (at a dead end, the map's edge), then that lane's waypoint. The loop is
** a keyhole beyond the lane's end that a car can drive: a right arc of radius RHO, a left circle
** of radius BIG around a centre ahead, a right arc onto the other lane, tangent throughout.
** Its points copy the last waypoint (road, lane, s) at the loop's positions and headings.
** 1 when done, 0 when the path has no room for it yet, -1 when there is no such lane. */
static int u_turn(const sn_map *m, sn_mapdrive *md)
{
    enum { MAXP = 40 };
    const double RHO = 3.0, BIG = 4.5, SPACING = 2.0;
    const sn_waypoint last = sn_md_wp(md, md->n - 1);
    sn_waypoint q;
    if (sn_map_left_lane(m, &last, &q, NULL) != SN_OK || q.lane_type != SN_LANE_DRIVING)
        return -1;
    double dyaw = fabs(fmod(fabs(q.transform.rotation.yaw - last.transform.rotation.yaw), 360.0) - 180.0);
    sn_vec3 p = last.transform.location, mid = sn_v3_scale(sn_v3_add(p, q.transform.location), 0.5);
    double h = sn_dist2d(p, q.transform.location) / 2;
    if (dyaw > 30 || h < 0.5 || h > 10)
        return -1; /* not a lane the other way beside this one */
    /* Local frame: x ahead, y towards the last waypoint's side; P = (0, h), Q = (0, -h). */
    double yaw = last.transform.rotation.yaw * SN_DEG;
    sn_vec3 f = sn_v3(cos(yaw), sin(yaw), 0), u = sn_v3((p.x - mid.x) / h, (p.y - mid.y) / h, 0);
    double ax = sqrt((BIG + RHO) * (BIG + RHO) - (h + RHO) * (h + RHO));
    double a1 = atan2(-(h + RHO), ax), b1 = atan2(h + RHO, -ax);
    double lx[MAXP + 2], ly[MAXP + 2];
    int n = 0;
    /* the three arcs: centre, radius, start and end angle */
    const double arcs[3][5] = {{0, h + RHO, RHO, -M_PI / 2, a1}, {ax, 0, BIG, b1, -b1}, {0, -(h + RHO), RHO, -a1, M_PI / 2}};
    for (int k = 0; k < 3; k++) {
        double sweep = arcs[k][4] - arcs[k][3];
        int steps = (int)ceil(fabs(sweep) * arcs[k][2] / SPACING);
        for (int i = 1; i <= steps && n < MAXP; i++) {
            double th = arcs[k][3] + sweep * i / steps;
            lx[n] = arcs[k][0] + arcs[k][2] * cos(th), ly[n] = arcs[k][1] + arcs[k][2] * sin(th);
            n++;
        }
    }
    n--; /* the last point is Q itself */
    if (n <= 0 || n >= MAXP)
        return -1;
    if (md->n + (uint32_t)n + 1 > SN_MD_PATH)
        return 0;
    double px = 0, py = h;
    for (int i = 0; i < n; i++) {
        sn_pathwp w = sn_md_pack(&last);
        md->at[md->n] = sn_v3(mid.x + f.x * lx[i] + u.x * ly[i], mid.y + f.y * lx[i] + u.y * ly[i], p.z);
        double nx = i + 1 < n ? lx[i + 1] : 0, ny = i + 1 < n ? ly[i + 1] : -h;
        double dx = nx - px, dy = ny - py; /* the chord through the neighbours, local frame */
        sn_vec3 t = sn_v3(f.x * dx + u.x * dy, f.y * dx + u.y * dy, 0);
        w.transform.rotation.yaw = (float)(atan2(t.y, t.x) / SN_DEG);
        md->path[md->n++] = w;
        px = lx[i], py = ly[i];
    }
    sn_md_set(md, md->n++, &q);
    return 1;
}

/* Extends the path to `horizon` metres of waypoints (or the array's end). Where the lane
** branches (junctions), a branch is drawn from the autopilot's own generator. */
void sn_md_refill(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md)
{
    sn_waypoint next[16];
    for (int flips = 0; md->n > 0 && md->n < SN_MD_PATH && !md->ended;) {
        size_t k = 0;
        const sn_waypoint last = sn_md_wp(md, md->n - 1);
        if (md->backwards)
            sn_map_previous(m, &last, SN_MD_STEP, next, 16, &k, NULL);
        else
            sn_map_next(m, &last, SN_MD_STEP, next, 16, &k, NULL);
        if (k > 16)
            k = 16;
        if (k == 0) {
            /* A walker turns round at a sidewalk's end; a vehicle turns round at a dead end
            ** (the map's edge) onto the lane beside it that runs the other way, else stops. */
            if (md->walker && flips++ < 1) {
                md->backwards = !md->backwards;
                continue;
            }
            int u = md->walker ? -1 : u_turn(m, md);
            if (u > 0)
                continue;
            md->ended = u < 0;
            break;
        }
        /* The short route's choice (route.c); while it needs another lane, the path stops at
        ** this lane's end and the lane change (lanechange.c) moves the vehicle over. */
        size_t pick = 0;
        double room = 0;
        for (uint32_t i = 1; i < md->n; i++)
            room += sn_dist2d(md->at[i - 1], md->at[i]);
        sn_route_fork_r r = md->walker ? SN_ROUTE_FREE : sn_route_fork(t, m, md, &last, next, k, room, &pick);
        if (r == SN_ROUTE_HOLD)
            break;
        if (r == SN_ROUTE_FREE)
            pick = sn_tm_pick(m, md, next, k); /* set_path / set_route, else a seeded draw */
        sn_md_set(md, md->n++, &next[pick]);
        sn_tm_plan_reached(md, &next[pick]);
    }
}

/* Drops the waypoints the actor has passed; false when it is far off its path. */
bool sn_md_advance(sn_mapdrive *md, sn_vec3 pos, double *along0)
{
    while (md->n >= 2) {
        sn_vec3 a = md->at[0], b = md->at[1];
        double dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
        double u = l2 > 1e-12 ? ((pos.x - a.x) * dx + (pos.y - a.y) * dy) / l2 : 2;
        if (u <= 1)
            break;
        memmove(md->at, md->at + 1, (md->n - 1) * sizeof *md->at);
        memmove(md->path, md->path + 1, (md->n - 1) * sizeof *md->path);
        md->n--;
        /* (sn_path_nearest_kept's segment dropped: forgotten, so its count of drops never wraps) */
        md->drops++;
        if (md->nl.seg && (uint8_t)(md->drops - md->nl.drops) >= md->nl.seg)
            md->nl.seg = 0;
    }
    if (md->n < 2)
        return md->n == 1 && sn_dist2d(pos, md->at[0]) < 6;
    sn_vec3 a = md->at[0], b = md->at[1];
    double dx = b.x - a.x, dy = b.y - a.y, l = hypot(dx, dy);
    double u = l > 1e-9 ? ((pos.x - a.x) * dx + (pos.y - a.y) * dy) / l : 0;
    double lat = l > 1e-9 ? fabs((pos.x - a.x) * dy - (pos.y - a.y) * dx) / l : sn_dist2d(pos, a);
    *along0 = -u; /* path[0] lies u metres behind the actor's projection */
    return lat < 6;
}

/* The path's distances along it from the vehicle's centre, the first along0 from it (its points
** are md->at, read in place). */
void sn_md_along(const sn_mapdrive *md, double along0, double *along)
{
    along[0] = along0;
    for (uint32_t i = 1; i < md->n; i++)
        along[i] = along[i - 1] + sn_dist2d(md->at[i - 1], md->at[i]);
}

uint32_t sn_md_along_more(const sn_mapdrive *md, double *along, uint32_t k, uint32_t upto)
{
    for (; k <= upto && k < md->n; k++)
        along[k] = along[k - 1] + sn_dist2d(md->at[k - 1], md->at[k]);
    return k;
}

uint32_t sn_md_along_reach(const sn_mapdrive *md, double *along, uint32_t k, double reach)
{
    for (uint32_t i = 1; i < md->n; i++) {
        if (i >= k)
            along[i] = along[i - 1] + sn_dist2d(md->at[i - 1], md->at[i]);
        if (along[i] >= reach)
            return i + 1;
    }
    return md->n;
}

bool sn_md_reaches(const sn_mapdrive *md, double along0, double len)
{
    /* A chord is never longer than the arc, and the sum's rounding (about 1e-13 m on a path of
    ** 40 points) is far under the 1 mm kept: what sn_md_along would give is at least len. */
    return md->n >= 2 && along0 + sn_dist2d(md->at[0], md->at[md->n - 1]) - 1e-3 >= len;
}
