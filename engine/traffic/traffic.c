/* traffic.c — the map autopilot: path keeping, pure pursuit, speed, gap and lights. */
#include "traffic.h"
#include "headon.h"
#include "health.h"
#include "hybrid.h"
#include "junction.h"
#include "lanechange.h"
#include "lights.h"
#include "route.h"
#include "signs.h"
#include "tm.h"
#include "traffic_int.h"
#include "walkers.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Comfort and physics limits of the speed planner (m/s^2). */
#define A_LAT 2.5      /* lateral acceleration in curves */
#define A_COMFORT 3.0  /* braking for curves, leaders and stop lines */
#define A_YELLOW 4.0   /* the most a driver brakes to stop for a yellow light */
#define A_HARD 7.0     /* the most it brakes to stop for a red one (mu g is about 9.8) */
#define STOP_MARGIN 1.0 /* m between the front bumper and the stop line when stopped */
#define HEADWAY 1.0    /* s: the time gap kept to a moving leader, beyond the distance */
#define COAST_EVERY 5  /* hybrid mode: a vehicle without physics decides on every 5th frame (vehicle_coast) */
#define SLEEP_GAP 8.0   /* m: hybrid mode: a vehicle held standing this near a standing leader sleeps (vehicle_sleep): lanechange.c passes none nearer (OBSTACLE_MIN) */
#define SLEEP_ROUTE_GAP 5.0 /* m: ... or this near when it waits for its route's lane change: lanechange.c's co / 2 + 2 at a standstill */
#define SLEEP_HOLD 0.05 /* m/s: the leader rule's speed below which it is held (hybrid.c's HOLD_SPEED) */
#define SLEEP_MOVE 0.01 /* m: a sleeping vehicle's leader that moved this far wakes it */

/* ---- The traffic state ---- */

struct sn_traffic *sn_traffic_get(sn_engine *e)
{
    if (!e->traffic)
        e->traffic = calloc(1, sizeof *e->traffic);
    return e->traffic;
}

const sn_traffic_stats *sn_traffic_stats_get(const sn_engine *e) { return e->traffic ? &e->traffic->stats : NULL; }

void sn_traffic_set_legacy(sn_engine *e, bool legacy)
{
    struct sn_traffic *t = sn_traffic_get(e);
    if (t)
        t->legacy = legacy;
}

void sn_traffic_free(struct sn_traffic *t)
{
    if (!t)
        return;
    free(t->b);
    free(t->q);
    free(t->k);
    free(t->col);
    free(t->xu);
    free(t->heroes);
    sn_walkers_free(t->walkers);
    sn_junctions_free(t->jx);
    free(t);
}

/* ---- Vehicles ---- */

/* The speed from which a vehicle still stops within `d` metres at its comfort deceleration, and
** reaches a leader moving at v_lead after `d` metres of closing. */
static double approach(const sn_mapdrive *md, double d, double v_lead)
{
    if (d <= 0)
        return 0;
    v_lead = fmax(v_lead, 0);
    return fmin(sqrt(v_lead * v_lead + 2 * md->a_comf * d), v_lead + d / HEADWAY);
}

/* The decelerations a vehicle's planner counts on, from the brakes it has (sn_vehicle_brake_decel):
** a car's (0.9 mu g) exceed every constant above, which stay; a two-wheeler's brakes are capped
** so it cannot pitch over (a bicycle about 2.8 m/s^2, a sport motorcycle 5.2), and its speed loop
** lags more (drive: brake 0.4 per m/s of excess), so it plans at TWO_WHEEL_COMFORT of them, and
** its red and yellow lights at what they can do: planned at a car's, a bicycle rode through red
** stop lines and into the back of a van stopping in its queue (test_traffic_twowheel). */
#define TWO_WHEEL_COMFORT 0.5
static void brake_limits(const sn_engine *e, const sn_actor *a, sn_mapdrive *md)
{
    md->a_comf = A_COMFORT, md->a_yellow = A_YELLOW, md->a_hard = A_HARD;
    if (a->kind != SN_ACTOR_VEHICLE || !a->mv || !a->mv->vp)
        return;
    const double d = sn_vehicle_brake_decel(a, -e->world.gravity.z);
    if (d > 0 && d < A_HARD)
        md->a_comf = fmin(A_COMFORT, TWO_WHEEL_COMFORT * d), md->a_yellow = fmin(A_YELLOW, d), md->a_hard = d;
}

static double wrap_deg(double d)
{
    /* fmod's result without its call where one subtraction gives it exactly (Sterbenz) */
    if (d >= 360.0 && d < 720.0)
        d -= 360.0;
    else if (d <= -360.0 && d > -720.0)
        d += 360.0;
    else if (!(d > -360.0 && d < 360.0))
        d = fmod(d, 360.0);
    if (d > 180)
        d -= 360;
    if (d < -180)
        d += 360;
    return d;
}

/* The lane's speed limit at a waypoint, CARLA's 30 km/h where the map gives none. */
static double limit_at(const sn_map *m, const sn_pathwp *wp)
{
    int32_t ri = sn_odr_road_index(m->odr, wp->road_id);
    if (ri < 0)
        return SN_TM_DEFAULT_LIMIT;
    const sn_odr_road *r = &m->odr->roads[ri];
    if (wp->section_id < 0 || (uint32_t)wp->section_id >= r->n_sections)
        return SN_TM_DEFAULT_LIMIT;
    const sn_odr_section *sec = &r->sections[wp->section_id];
    double v = sn_odr_speed_limit(r, sec, sn_odr_lane_of(sec, wp->lane_id), wp->s);
    return v > 0 ? v : SN_TM_DEFAULT_LIMIT;
}

#define XW_NEAR 3.5  /* m: a walker on a crossing this near where our path crosses it holds us */
#define XW_HALF 2.0  /* m: half a crossing's width (we stop this far before its line) */
#define XW_LOOK 2.0  /* s: ... or one walking towards it that gets within XW_NEAR this soon */
#define XW_PATIENCE 10.0 /* s standing held by crossings, after which the vehicle stops waiting for them */

/* The nearest crossing ahead on the path (points pts[0..np) at along[] from our centre) that a
** walker on it holds for us (within XW_NEAR of where we cross it, or walking towards that point
** and there within XW_LOOK s): its distance from our front bumper, minus XW_HALF; INFINITY when none.
** *who: that walker. */
static double crossing_hold(const sn_engine *e, const sn_vec3 *pts, const double *along, size_t np, double front,
                            uint32_t *who)
{
    const struct sn_traffic *t = e->traffic;
    double best = INFINITY;
    for (size_t k = 0; k < t->n_xu; k++) {
        const sn_xuser *x = &t->xu[k];
        const double ex = x->b.x - x->a.x, ey = x->b.y - x->a.y;
        for (size_t i = 0; i + 1 < np; i++) {
            if (along[i + 1] < front)
                continue; /* behind our front bumper */
            /* segment i against the crossing's line: p + u d = a + w e */
            const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y;
            const double den = dx * ey - dy * ex;
            if (fabs(den) < 1e-9)
                continue;
            const double qx = x->a.x - pts[i].x, qy = x->a.y - pts[i].y;
            const double u = (qx * ey - qy * ex) / den, w = (qx * dy - qy * dx) / den;
            if (u < 0 || u > 1 || w < 0 || w > 1)
                continue;
            const double cx = pts[i].x + u * dx, cy = pts[i].y + u * dy;
            const double rx = cx - x->pos.x, ry = cy - x->pos.y, r = sqrt(rx * rx + ry * ry);
            const double sp = sqrt(x->vel.x * x->vel.x + x->vel.y * x->vel.y);
            const bool towards = x->vel.x * rx + x->vel.y * ry > 0.1 * r && r < XW_NEAR + XW_LOOK * sp;
            const double d = along[i] + u * (along[i + 1] - along[i]) - front - XW_HALF;
            if ((r < XW_NEAR || towards) && d > -XW_HALF && d < best) {
                best = d;
                *who = x->walker;
            }
            break; /* the path crosses a crossing once */
        }
    }
    return best;
}

/* The lane-change gap check's view (lanechange.h): vehicles on a stretch of the target lane. */
typedef struct gapq {
    const sn_engine *e;
    const sn_actor *self;
} gapq;

static void lane_gaps(void *user, const sn_vec3 *pts, const double *along, size_t np, double half_width, double *gap_f,
                      double *v_f, double *gap_b, double *v_b)
{
    const gapq *q = user;
    const sn_leader_skip skip = {.walkers = true};
    *gap_f = INFINITY, *v_f = 0;
    if (gap_b)
        *gap_b = INFINITY, *v_b = 0;
    if (!sn_traffic_leader(q->e, q->self, pts, along, np, half_width, &skip, gap_f, v_f, NULL, gap_b, v_b))
        *gap_f = INFINITY, *v_f = 0;
}

/* Driving road r's lane: its direction of travel along s. */
static int lane_dir(const sn_map *m, int32_t road_id, int32_t lane_id)
{
    int32_t ri = sn_odr_road_index(m->odr, road_id);
    return ri < 0 ? (lane_id < 0 ? 1 : -1) : sn_map_lane_dir(&m->odr->roads[ri], lane_id);
}

#define DEADLOCK_STAND 8.0  /* s a vehicle stands, waiting for another, before it looks for a cycle */
#define DEADLOCK_PASS 6.0   /* s it may then pass the one it waits for */

/* A deadlock: the vehicles each waits for (its leader, the claim in its way at a junction, the
** vehicle filling its exit) lead back to it, all standing. Of the cycle's vehicles that wait for
** a junction (a claim or room beyond the exit) rather than for a body in their way, the lowest id
** breaks it: for DEADLOCK_PASS s it enters its junction regardless of claims and exit room (its
** leader check still holds it behind any body in its path, so it never drives into one). */
static void deadlock(sn_engine *e, const sn_actor *a, sn_mapdrive *md, double v, double dt)
{
    md->stand = fabs(v) < 0.3 ? md->stand + dt : 0;
    if (!md->wait_for || md->stand < DEADLOCK_STAND || e->clock.timestamp < md->override_until)
        return;
    uint32_t id = md->wait_for, lowest = md->wait_logical ? a->id : UINT32_MAX;
    for (int hop = 0; hop < 32 && id; hop++) {
        if (id == a->id) {
            if (lowest == a->id) {
                md->override_until = e->clock.timestamp + DEADLOCK_PASS;
                e->traffic->stats.deadlocks_resolved++;
                sn_health_note_deadlock(e); /* the run's traffic health, per minute */
            }
            return;
        }
        const sn_actor *x = sn_world_find(&e->world, id);
        if (!x || !x->has_autopilot || !x->mv->ap->map || x->mv->ap->map->walker || x->mv->ap->map->stand < 2.0)
            return;
        const sn_mapdrive *mx = x->mv->ap->map;
        if (mx->wait_logical && id < lowest)
            lowest = id;
        id = mx->wait_for;
    }
}

/* A PI loop on speed; the brakes hold a vehicle that should stand still. */
static void drive(sn_actor *a, sn_mapdrive *md, double vt, double v, double delta, double dt)
{
    double err = vt - v;
    sn_vehicle_control c = {0};
    c.steer = sn_clampd(delta / sn_vehicle_steer_limit(a, v), -1, 1);
    if (vt < 0.05 && v < 1.5) {
        c.brake = 1.0;
        md->speed_integral = 0;
    } else if (err < -0.3) {
        /* 0.4 per m/s of excess on a car's brakes; as firm in m/s^2 on weaker ones (two-wheelers) */
        c.brake = sn_clampd(-0.4 * (A_HARD / md->a_hard) * err, 0, 1);
        md->speed_integral = fmax(md->speed_integral - 2 * dt, 0);
    } else {
        md->speed_integral = sn_clampd(md->speed_integral + err * dt, -5, 5);
        c.throttle = sn_clampd(0.5 * err + 0.1 * md->speed_integral + 0.05, 0, 1);
    }
    a->ph->control = c;
}

/* Hybrid mode: a vehicle without physics between two decisions (vehicle_update on every
** COAST_EVERY-th frame, staggered by id) moves on along its path at the speed its last decision
** chose, never past where a light held it then, and behind the leader it had, whose gap and speed
** along the path are measured anew each frame (the leader rule for that one body: it keeps its
** gap when that leader brakes or stands at once, as a car without physics does). What only a
** decision finds waits for the next one, at most COAST_EVERY - 1 frames (0.2 s at 20 Hz): a body
** that enters its corridor, a light that changes, lane changes, route steps. Near a junction,
** sign or crossing it decides every frame (md->coast is false). false: it decides now instead
** (its path runs short, it left it, its leader is gone). */
static bool vehicle_coast(sn_engine *e, sn_actor *a, sn_mapdrive *md, double dt)
{
    const sn_vec3 pos = a->st.pos, fwd = sn_quat_apply(a->st.rot, sn_v3(1, 0, 0));
    const double v = sn_v3_dot(a->st.vel, fwd), front = a->ph->bbox.extent.x;
    double along0 = 0;
    if (!sn_md_advance(md, pos, &along0) || md->n < 2)
        return false;
    sn_route_passed(md);
    double along[SN_MD_PATH];
    along[0] = along0;
    uint32_t k = 1; /* along[0..k) summed: only what is read (path68) */
    const sn_vec3 *pts = md->at; /* read in place: nothing below changes the path */
    double vt = md->coast_vt;
    /* The path's length is proven from its last point (sn_md_reaches) where it can be, not summed;
    ** its move reads only its first points, its leader's search those near its last answer. */
    if (!sn_md_reaches(md, along0, front + (vt * dt * COAST_EVERY + 10.0))) {
        k = sn_md_along_more(md, along, k, md->n - 1);
        if (along[md->n - 1] - front < vt * dt * COAST_EVERY + 10.0)
            return false; /* its path needs refilling: a decision does that */
    }
    /* The light's stop point comes nearer by what it moved last frame (its speed, not only its
    ** forward part: never less than it moved). */
    md->coast_stop = (float)(md->coast_stop - sn_v3_len(a->st.vel) * dt);
    if (isfinite(md->coast_stop))
        vt = fmin(vt, approach(md, md->coast_stop, 0));
    if (md->coast_lead) {
        const sn_actor *b = sn_world_find(&e->world, md->coast_lead);
        if (!b)
            return false;
        /* As leader() measures a body: the nearest point of the path to its centre, its box
        ** across and along the path there; in the corridor and ahead, it holds us. */
        double best, u, s_at = 0;
        sn_vec3 tan = {1, 0, 0};
        const double bx = b->st.pos.x, by = b->st.pos.y;
        /* Answered from its memo, the search reads no distance: none summed for it. */
        if (sn_path_memo_answers(&md->nl, md->drops, md->n, bx, by))
            for (uint32_t j = k; j < md->n; j++)
                along[j] = NAN; /* (never read) */
        else
            k = sn_md_along_more(md, along, k, md->n - 1);
        const int i = sn_path_nearest_kept(&md->nl, md->drops, pts, along, md->n, bx, by, sn_dist2d(pos, b->st.pos), &best, &u);
        if (i >= 0) {
            k = sn_md_along_more(md, along, k, (uint32_t)i);
            const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l = sqrt(dx * dx + dy * dy);
            s_at = along[i] + u * l, tan = sn_v3(dx / l, dy / l, 0);
        }
        const sn_vec3 ex = b->ph->bbox.extent, nrm = sn_v3(-tan.y, tan.x, 0);
        const sn_vec3 bf = sn_quat_apply(b->st.rot, sn_v3(1, 0, 0)), br = sn_quat_apply(b->st.rot, sn_v3(0, 1, 0));
        const double ext_lat = fabs(sn_v3_dot(nrm, bf)) * ex.x + fabs(sn_v3_dot(nrm, br)) * ex.y;
        const double ext_along = fabs(sn_v3_dot(tan, bf)) * ex.x + fabs(sn_v3_dot(tan, br)) * ex.y;
        if (!b->down && isfinite(best) && s_at > 0 && sqrt(best) - ext_lat <= a->ph->bbox.extent.y + 0.35)
            vt = fmin(vt, approach(md, s_at - ext_along - front - md->gap, sn_v3_dot(b->st.vel, tan)));
    }
    md->odo += fabs(v) * dt;
    md->stand = fabs(v) < 0.3 ? md->stand + dt : 0; /* deadlock()'s clock */
    /* Its junction claims stay fresh (sn_jx_purge drops those not refreshed last frame), their
    ** fronts moved on by what it moved, as sn_jx_vehicle moves a front between passages; entering
    ** and releasing wait for its next decision (a claim held a few frames longer). */
    struct sn_junctions *jx = e->traffic->jx;
    if (jx && md->jx_in >= 0) {
        md->jx_front += v * dt;
        sn_jclaim *cl = sn_jx_claim(jx, md->jx_in, a->id, false);
        if (cl)
            cl->front = md->jx_front, cl->frame = e->clock.frame;
    }
    if (jx && md->coast_jx >= 0 && md->coast_jx != md->jx_in) {
        sn_jclaim *cl = sn_jx_claim(jx, md->coast_jx, a->id, false);
        if (cl)
            cl->front += v * dt, cl->frame = e->clock.frame;
    }
    /* (the points up to the first beyond where it moves, vt * dt along: sn_hybrid_move reads
    ** none after it, so the same move as on the whole path) */
    const uint32_t np = k < md->n ? sn_md_along_reach(md, along, k, vt * dt) : md->n;
    sn_hybrid_move(a, md, pts, along, np, vt, dt);
    return true;
}

/* Hybrid mode: a vehicle without physics that its last decision held standing behind a standing
** vehicle (its leader within SLEEP_GAP, the leader rule alone holding it) cannot move before that
** leader does, so it sleeps: no decisions, no coasting, until the leader has moved SLEEP_MOVE from
** where it stood, is gone or down (then it decides that frame: within one frame of its leader's
** move, as a coasting vehicle re-measures its leader each frame). Its claims stay fresh and its
** deadlock clock runs, as when coasting. What it would decide meanwhile is no move: no lane change
** passes a leader nearer than OBSTACLE_MIN (lanechange.c) nor leaves one nearer than the
** change-over distance + 5 m; a light, sign or junction could hold it but not release it. A
** changed setting or a forced lane change wakes it (tm.c, api_tm.c). false: it decides now. */
static bool vehicle_sleep(sn_engine *e, sn_actor *a, sn_mapdrive *md, double dt)
{
    const sn_actor *b = sn_world_find(&e->world, md->coast_lead);
    /* (held, it stands where it stood: the leader's offset from it is kept small, exact in floats) */
    if (!b || b->down || fabs(b->st.pos.x - a->st.pos.x - md->sleep_x) > SLEEP_MOVE ||
        fabs(b->st.pos.y - a->st.pos.y - md->sleep_y) > SLEEP_MOVE || md->force_lane_change) {
        md->asleep = false;
        return false;
    }
    md->stand += dt; /* deadlock()'s clock: it stands */
    struct sn_junctions *jx = e->traffic->jx;
    if (jx && md->jx_in >= 0) {
        sn_jclaim *cl = sn_jx_claim(jx, md->jx_in, a->id, false);
        if (cl)
            cl->frame = e->clock.frame;
    }
    if (jx && md->coast_jx >= 0 && md->coast_jx != md->jx_in) {
        sn_jclaim *cl = sn_jx_claim(jx, md->coast_jx, a->id, false);
        if (cl)
            cl->frame = e->clock.frame;
    }
    return true; /* held: the kinematic driver keeps it where it is, brakes on (sn_hybrid_move) */
}

/* Steering: pure pursuit from the rear axle to the point `look` metres ahead (while a lane change
** lasts, to its change-over point; during a head-on pass, md->offset to the right of the path), at
** forward speed v. Returns the front wheels' angle (rad). */
static double pursuit_steer(const sn_actor *a, const sn_mapdrive *md, sn_vec3 pos, sn_vec3 fwd, const sn_mat3 *rm, double v,
                            const sn_vec3 *pts, const double *along)
{
    double look = sn_clampd(3.0 + 0.5 * fabs(v), 4.0, 12.0);
    if (md->lc_done && md->odo - md->lc_odo < md->lc_co)
        look = fmax(look, md->lc_co - (md->odo - md->lc_odo));
    sn_vec3 target = pts[md->n - 1];
    for (uint32_t i = 1; i < md->n; i++)
        if (along[i] >= look) {
            double f = (look - along[i - 1]) / fmax(along[i] - along[i - 1], 1e-9);
            target = sn_v3_add(pts[i - 1], sn_v3_scale(sn_v3_sub(pts[i], pts[i - 1]), sn_clampd(f, 0, 1)));
            if (md->offset != 0) { /* a head-on pass's side step (headon.c): the path moved to its right */
                const double sl = fmax(along[i] - along[i - 1], 1e-9);
                target.x -= (pts[i].y - pts[i - 1].y) / sl * md->offset;
                target.y += (pts[i].x - pts[i - 1].x) / sl * md->offset;
            }
            break;
        }
    sn_vec3 rear = sn_v3_sub(pos, sn_v3_scale(fwd, a->mv->vp->wheelbase / 2));
    sn_vec3 local = sn_mat3_apply_t(rm, sn_v3_sub(target, rear));
    double ld = fmax(hypot(local.x, local.y), 1.0);
    return atan(2.0 * a->mv->vp->wheelbase * sin(atan2(local.y, local.x)) / ld);
}

/* vt capped so that each bend of the path ahead is taken within A_LAT, braking at md->a_comf
** to reach it (front: half the vehicle's length). */
static double curve_limit(const sn_mapdrive *md, const double *along, double front, double vt)
{
    for (uint32_t i = 1; i < md->n; i++) {
        double seg = along[i] - along[i - 1];
        if (seg < 0.5)
            continue;
        double kappa = fabs(wrap_deg(md->path[i].transform.rotation.yaw - md->path[i - 1].transform.rotation.yaw)) *
                       SN_DEG / seg;
        if (kappa > 1e-3)
            vt = fmin(vt, sqrt(A_LAT / kappa + 2 * md->a_comf * fmax(along[i - 1] - front, 0)));
    }
    return vt;
}

/* vt capped to stop at the first stop line ahead on the path whose light is not green (red: if
** it can stop before it; yellow: if it can stop comfortably, and until it decides to go). Where a
** light holds it: *light_hold, that line from its centre, and *light_room, where it stops from its
** front bumper (else both stay as they are). Draws ignore_lights_percentage once per light. */
static double light_limit(sn_engine *e, sn_mapdrive *md, const double *along, double front, double v, double vt,
                          double *light_hold, double *light_room)
{
    const sn_map *m = e->map;
    const sn_lights *ls = e->lights;
    uint32_t ns = 0;
    const sn_tl_stop *st = NULL;
    int dir = 0;
    for (uint32_t i = 0; ls && ls->n_stops && i < md->n; i++) {
        /* consecutive waypoints mostly share their lane: look its stop lines up once */
        if (i == 0 || md->path[i].road_id != md->path[i - 1].road_id || md->path[i].lane_id != md->path[i - 1].lane_id) {
            st = sn_lights_stops_of(ls, md->path[i].road_id, md->path[i].lane_id, &ns);
            dir = ns ? lane_dir(m, md->path[i].road_id, md->path[i].lane_id) : 0;
        }
        const sn_tl_stop *hit = NULL;
        double d_line = 0;
        for (uint32_t k = 0; k < ns; k++) {
            double ds = (st[k].s - md->path[i].s) * dir;
            if (ds >= -1e-6 && ds < SN_MD_STEP + 1e-6 &&
                (md->route_dir || sn_tl_stop_applies(st[k].via_road, st[k].via_lane, &md->path[i], md->n - i))) {
                /* a path held at its lane's end (route.c) does not show its branch yet: every line there
                ** holds it. Of several lines here (lights that share a lane, Town10HD's road 13), the
                ** one that shows red, else yellow, decides: the first alone ran a red beside a green. */
                double dl = along[i] + ds - front;
                if (!hit || (dl > -0.5 && (d_line < -0.5 || ls->l[st[k].light].state < ls->l[hit->light].state)))
                    hit = &st[k], d_line = dl;
            }
        }
        if (!hit)
            continue;
        if (d_line < -0.5)
            continue; /* behind our front bumper: passed */
        const sn_tlight *l = &ls->l[hit->light];
        if (md->light_seen != hit->light + 1) {
            md->light_seen = hit->light + 1;
            md->light_ignored = md->ignore_lights > 0 && sn_rng_uniform(&md->rng) * 100 < md->ignore_lights;
            md->light_go = false;
        }
        if (md->light_ignored || !l->actor)
            break;
        double room = d_line - STOP_MARGIN;
        if (l->state == SN_TL_RED) {
            if (room > v * v / (2 * md->a_hard) - 0.5)
                vt = fmin(vt, approach(md, room, 0)), *light_hold = d_line + front, *light_room = room;
        } else if (l->state == SN_TL_YELLOW) {
            if (!md->light_go && room > v * v / (2 * md->a_yellow))
                vt = fmin(vt, approach(md, room, 0)), *light_hold = d_line + front, *light_room = room;
            else
                md->light_go = true;
        } else {
            md->light_go = false;
        }
        break;
    }
    return vt;
}

/* The path points pts[0..np) as the leader's corridor follows them: during a head-on pass's side
** step (headon.c) moved md->offset to the right into spts (returned), else pts itself. */
static const sn_vec3 *side_stepped(const sn_mapdrive *md, const sn_vec3 *pts, const double *along, size_t np,
                                   sn_vec3 *spts)
{
    if (md->offset == 0 || np < 2)
        return pts;
    for (size_t i = 0; i < np; i++) {
        const size_t j = i + 1 < np ? i : i - 1;
        const double l = fmax(along[j + 1] - along[j], 1e-9);
        spts[i] = sn_v3(pts[i].x - (pts[j + 1].y - pts[j].y) / l * md->offset,
                        pts[i].y + (pts[j + 1].x - pts[j].x) / l * md->offset, pts[i].z);
    }
    return spts;
}

/* Without the rules (legacy): vt capped to stop before a junction whose exit the leader, standing
** gap ahead of its front bumper, blocks (CARLA TM's junction check). */
static double blocked_exit_limit(const sn_mapdrive *md, const double *along, double front, double v, double gap, double vt)
{
    double entry = -1, exit = -1;
    for (uint32_t i = 1; i < md->n; i++) {
        if (entry < 0 && md->path[i].is_junction)
            entry = along[i - 1];
        else if (entry >= 0 && !md->path[i].is_junction) {
            exit = along[i];
            break;
        }
    }
    double lead_at = gap + front; /* the leader's rear, from our centre */
    if (entry >= 0 && exit >= 0 && lead_at < exit + 2 * front + md->gap + 1.0) {
        double room = entry - front - STOP_MARGIN;
        if (room > v * v / (2 * md->a_hard) - 0.5)
            vt = fmin(vt, approach(md, room, 0));
    }
    return vt;
}

/* vt capped to stop before a crossing the path crosses where a walker has priority (look: the
** rules apply, walkers are not ignored and there are walkers on crossings); *held says whether one
** holds it. Keeps the vehicle's patience clock (xw_wait). */
static double crossings_limit(const sn_engine *e, sn_mapdrive *md, const sn_vec3 *pts, const double *along, size_t np,
                              double front, double v, double dt, bool look, double vt, bool *held)
{
    bool xw_held = false;
    if (look && md->xw_wait < XW_PATIENCE) {
        /* Walkers on a crossing our path crosses have priority (docs/traffic.md): stop before it
        ** while one is on our half of it, within XW_NEAR of where we cross or walking towards it.
        ** Held XW_PATIENCE s standing, the vehicle stops waiting for crossings (a walker that
        ** stands on one would hold it for good); its leader check still stops it behind any
        ** walker in its corridor. */
        uint32_t walker = 0;
        double d_cross = crossing_hold(e, pts, along, np, front, &walker);
        if (isfinite(d_cross) && d_cross - STOP_MARGIN > v * v / (2 * md->a_hard) - 0.5) {
            vt = fmin(vt, approach(md, d_cross - STOP_MARGIN, 0));
            xw_held = true;
            if (d_cross < 3.0 + STOP_MARGIN && !md->wait_for)
                md->wait_for = walker;
        }
    }
    if (md->xw_wait >= XW_PATIENCE) {
        if (fabs(v) > 2.0)
            md->xw_wait = 0; /* on its way again: crossings hold it anew */
    } else if (!xw_held) {
        md->xw_wait = 0;
    } else if (fabs(v) < 0.3) {
        md->xw_wait += (float)dt;
    }
    *held = xw_held;
    return vt;
}

/* What holds a vehicle ahead, as its decision has found it so far (vehicle_update). */
typedef struct ahead {
    bool has_lead;        /* a leader in its corridor: who, gap m ahead of its front bumper */
    const sn_actor *who;
    double gap;
    double light_hold;    /* from its centre, the stop line a light holds it at (INFINITY: none) */
    bool sign_hold;       /* a stop or yield line holds it */
    uint32_t skip_actor;  /* the vehicle a head-on pass drives past: leader searches skip it */
} ahead;

/* Junctions (junction.c): claims the passage ahead and returns vt capped to enter it only when
** granted. Where a claim holds it: *jx_room, where it stops from its front bumper; the junction it
** holds a claim on: *claim_jx (else both stay as they are). */
static double junction_limit(sn_engine *e, const sn_actor *a, sn_mapdrive *md, const sn_vec3 *pts, const double *along,
                             double front, double v, double dt, const ahead *ah, double vt, double *jx_room,
                             int32_t *claim_jx)
{
    const sn_map *m = e->map;
    struct sn_traffic *t = e->traffic;
    const double now = e->clock.timestamp;
    /* Junctions (junction.c): claim the passage ahead, enter it only when granted. */
    sn_jpass p;
    sn_jx_passage(t->jx, m, md->path, along, md->n, &p);
    sn_jctx c = {.j = t->jx, .actor = a->id, .now = now, .v = v, .dt = dt, .frame = e->clock.frame,
                 .half_len = front, .exit_free = true, .stop_margin = STOP_MARGIN, .a_hard = md->a_hard};
    if (p.junction >= 0 && p.entry > front) {
        c.queued = ah->has_lead && ah->who->kind == SN_ACTOR_VEHICLE && ah->gap + front < p.entry;
        c.held = ah->light_hold < p.entry + 1.0 || ah->sign_hold;
        /* Room beyond the exit for our length and gap: the first vehicle past it. */
        uint32_t i0 = p.i_exit ? p.i_exit - 1 : 0, i1 = i0;
        /* our length and a metre; a minor stream's vehicle (merging into a roundabout's ring) leaves
        ** room for one more, so the main stream never fills to a standstill */
        const double need = p.minor ? 4 * front + md->gap + 1.0 : 2 * front + 1.0;
        while (i1 < md->n && along[i1] < p.exit + need + 10)
            i1++;
        double g2 = 0, v2 = 0;
        const sn_actor *w2 = NULL;
        const sn_leader_skip sk2 = {.actor = ah->skip_actor, .walkers = true};
        /* A main stream (a roundabout's ring) queues through its junctions: the merging streams
        ** yield to it, and the room they leave keeps it from filling (the minor rule above). */
        if (!(p.main && !p.minor) && i0 < md->n && i1 > i0 + 1 &&
            sn_traffic_leader(e, a, pts + i0, along + i0, i1 - i0, a->ph->bbox.extent.y, &sk2, &g2, &v2, &w2, NULL, NULL)) {
            double rear = g2 + front - p.exit; /* its rear past the exit */
            c.exit_free = rear >= need || (v2 > 1.0 && rear > 0.5); /* or it drives away: we follow */
            if (!c.exit_free && !md->wait_for)
                md->wait_for = w2->id, md->wait_logical = true;
            if (now < md->override_until)
                c.exit_free = true;
        }
    }
    uint32_t blocker = 0;
    double stop_at = sn_jx_vehicle(&c, &p, md, &blocker);
    if (p.junction >= 0 && sn_jx_claim(t->jx, p.junction, a->id, false))
        *claim_jx = p.junction;
    if (isfinite(stop_at)) {
        vt = fmin(vt, approach(md, stop_at - front - STOP_MARGIN, 0));
        *jx_room = stop_at - front - STOP_MARGIN;
        if (blocker)
            md->wait_for = blocker, md->wait_logical = true;
    }
    return vt;
}

/* Whether vehicle who faces one heading along fwd (more than 120 degrees apart): two such hold
** each other until headon.c lets one pass, so neither may sleep on the other (vehicle_sleep). */
static bool face_to_face(sn_vec3 fwd, const sn_actor *who)
{
    const sn_vec3 f = sn_quat_apply(who->st.rot, sn_v3(1, 0, 0));
    return fwd.x * f.x + fwd.y * f.y < -0.5 * hypot(fwd.x, fwd.y) * hypot(f.x, f.y);
}

/* Whether vehicle who's autopilot waits for actor id: two that hold each other (across a
** junction) wait until headon.c lets one pass, so neither may sleep on the other. */
static bool waits_for(const sn_actor *who, uint32_t id)
{
    return who->has_autopilot && who->mv && who->mv->ap && who->mv->ap->map && who->mv->ap->map->wait_for == id;
}

/* What a decision found ahead: the speed it allows and what holds the vehicle. */
typedef struct verdict {
    double vt;                  /* the target speed */
    bool has_lead;              /* a body ahead in the corridor: who, at gap along the path, moving at v_lead */
    const sn_actor *who;
    double gap, v_lead;
    bool sign_hold, xw_held;    /* a stop or yield line holds it; a crossing's walkers hold it */
    double light_room, jx_room; /* from the front bumper: where a light, a junction's claim makes it stop */
    int32_t claim_jx;           /* the junction ahead it holds a claim on, or -1 */
} verdict;

/* The speed: the least of the limit, the curves, the path's end, the lights, the signs, the
** leader, the crossings and the junctions (with the rules: head-on passes, deadlocks). */
static void decide_speed(sn_engine *e, sn_actor *a, sn_mapdrive *md, const sn_vec3 *pts, const double *along, double v,
                         double dt, bool rules, verdict *vd)
{
    const sn_map *m = e->map;
    struct sn_traffic *t = e->traffic;
    const double front = a->ph->bbox.extent.x;
    double vt = md->desired >= 0 ? md->desired : sn_signs_limit(md, limit_at(m, &md->path[0])) * (1 - md->speed_diff / 100);
    vt = curve_limit(md, along, front, vt);
    /* The path ends: at a dead end, or held at its lane's end while the route waits for a lane
    ** change (route.c): it stays able to stop there. */
    if (md->ended || md->route_dir)
        vt = fmin(vt, approach(md, along[md->n - 1] - front - STOP_MARGIN, 0));
    /* The first stop line ahead on the path whose light is not green. */
    double light_hold = INFINITY; /* from our centre, the stop line a light holds us at */
    double light_room = INFINITY; /* from our front bumper, where that light makes us stop */
    vt = light_limit(e, md, along, front, v, vt, &light_hold, &light_room);
    /* Stop and yield signs; speed signs passed (signs.c). */
    const double vt_signs = vt;
    vt = sn_signs_speed(e, a, md, along, front, v, vt, dt);
    const bool sign_hold = vt < vt_signs - 1e-9; /* a stop or yield line holds it (its junction claim waits) */
    /* The leader: in the corridor of our path within the distance we need to stop, and more. */
    double horizon = fmin(along[md->n - 1], fmax(25.0, v * v / (2 * md->a_comf) + md->gap + 15.0));
    size_t np = 0;
    while (np < md->n && (np == 0 || along[np - 1] < horizon))
        np++;
    double gap = 0, v_lead = 0;
    const sn_actor *who = NULL;
    const double ign_v = sn_md_pct(md, SN_MD_PCT_IGNORE_VEHICLES), ign_w = sn_md_pct(md, SN_MD_PCT_IGNORE_WALKERS);
    sn_leader_skip skip = {.vehicles = ign_v > 0 && sn_rng_uniform(&md->rng) * 100 < ign_v,
                  .walkers = ign_w > 0 && sn_rng_uniform(&md->rng) * 100 < ign_w};
    if (rules)
        skip.actor = sn_headon_skip(e, a, md); /* the vehicle it drives past: its sweep decides instead (headon.c) */
    const double half_w = a->ph->bbox.extent.y + 0.35;
    sn_vec3 spts[SN_MD_PATH];
    const sn_vec3 *lpts = side_stepped(md, pts, along, np, spts);
    bool has_lead = sn_traffic_leader(e, a, lpts, along, np, half_w, &skip, &gap, &v_lead, &who, NULL, NULL);
    md->wait_for = 0;
    md->wait_logical = false;
    if (has_lead) {
        double free = gap - md->gap;
        vt = fmin(vt, approach(md, free, v_lead));
        if (free < 3.0)
            md->wait_for = who->id;
        if (!rules && v_lead < 1.0 && !md->path[0].is_junction)
            vt = blocked_exit_limit(md, along, front, v, gap, vt);
    }
    if (rules) {
        /* Two vehicles that hold each other face to face outside junctions (headon.c). */
        vt = fmin(vt, sn_headon_limit(e, a, md, pts, along, md->n));
        sn_headon_detect(e, a, md, has_lead ? who : NULL, pts, along, md->n);
    }
    double jx_room = INFINITY; /* from our front bumper, where a junction's claim holds us */
    int32_t claim_jx = -1;     /* the junction ahead we hold a claim on */
    bool xw_held = false;
    vt = crossings_limit(e, md, pts, along, np, front, v, dt, rules && t->n_xu && !skip.walkers, vt, &xw_held);
    if (rules && (t->jx || (t->jx = sn_junctions_build(m)))) {
        const ahead ah = {.has_lead = has_lead, .who = who, .gap = gap, .light_hold = light_hold, .sign_hold = sign_hold,
                          .skip_actor = skip.actor};
        vt = junction_limit(e, a, md, pts, along, front, v, dt, &ah, vt, &jx_room, &claim_jx);
        deadlock(e, a, md, v, dt);
    }
    *vd = (verdict){.vt = vt, .has_lead = has_lead, .who = who, .gap = gap, .v_lead = v_lead, .sign_hold = sign_hold,
                    .xw_held = xw_held, .light_room = light_room, .jx_room = jx_room, .claim_jx = claim_jx};
}

/* Hybrid mode: what a vehicle without physics keeps of its decision for the frames it coasts on
** (vehicle_coast); whether nothing but its leader, a light or a junction's claim holds it. */
static bool coast_on(const sn_engine *e, sn_mapdrive *md, const verdict *vd, bool rules)
{
    /* The frames until its next decision may coast on this one where nothing but its
    ** leader, a light or a junction's claim holds it (vehicle_coast): no sign, crossing,
    ** lane's end or route change waiting, no junction claim or exit it waits for. */
    /* (a face-to-face pass, headon.c, decides every frame: it neither coasts nor sleeps) */
    const bool calm = rules && !vd->sign_hold && !vd->xw_held && md->xw_wait == 0 && !md->ended && !md->wait_logical &&
                      e->clock.timestamp >= md->override_until && !md->pass_with && !md->held_for;
    /* held behind a leader that drives on: it decides each frame until the gap lets it go
    ** (coasting on a standstill would start it up to COAST_EVERY - 1 frames late) */
    const bool released = vd->has_lead && vd->vt < SLEEP_HOLD && vd->v_lead >= SLEEP_HOLD;
    md->coast = calm && !md->route_dir && !released;
    md->coast_vt = (float)vd->vt;
    md->coast_stop = (float)fmin(vd->light_room, vd->jx_room);
    md->coast_lead = vd->has_lead ? vd->who->id : 0;
    md->coast_jx = vd->claim_jx;
    return calm;
}

/* Lane changes (lanechange.c), taking effect on the next frame's path; true when it changed. */
static bool change_lanes(sn_engine *e, sn_actor *a, sn_mapdrive *md, const verdict *vd, double v, double dt)
{
    const sn_map *m = e->map;
    struct sn_traffic *t = e->traffic;
    const double front = a->ph->bbox.extent.x;
    gapq q = {e, a};
    const double desired =
        md->desired >= 0 ? md->desired : sn_signs_limit(md, limit_at(m, &md->path[0])) * (1 - md->speed_diff / 100);
    sn_lcctx lc = {.m = m, .actor = a->id, .frame = e->clock.frame, .dt = dt, .v = v, .desired = desired, .half_len = front,
                   .half_width = a->ph->bbox.extent.y + 0.2, .has_leader = vd->has_lead && vd->who->kind == SN_ACTOR_VEHICLE,
                   .lead_gap = vd->gap, .lead_v = vd->v_lead, .gaps = lane_gaps, .user = &q, .stats = &t->stats};
    if (!sn_lc_update(&lc, md))
        return false;
    sn_md_refill(t, m, md);
    sn_health_note_lane_change(e);
    return true;
}

static void vehicle_update(sn_engine *e, sn_actor *a, sn_mapdrive *md, double dt)
{
    const sn_map *m = e->map;
    sn_transform tf = sn_actor_world_transform(&e->world, a);
    sn_mat3 rm = sn_mat3_from_rotation(tf.rotation);
    const sn_vec3 pos = tf.location, fwd = sn_mat3_col(&rm, 0);
    const double v = sn_v3_dot(sn_actor_velocity(a), fwd);
    double along0 = 0;
    md->coast = md->asleep = false; /* until this decision says otherwise (the end) */
    brake_limits(e, a, md);         /* anew: apply_physics_control may have changed the brakes */
    if (!sn_md_advance(md, pos, &along0)) {
        if (!sn_md_relocate(m, md, pos)) {
            a->ph->control = (sn_vehicle_control){.brake = 1.0};
            return;
        }
        along0 = 0;
    }
    sn_route_passed(md);
    sn_route_top_up(e->traffic, m, md);
    sn_md_refill(e->traffic, m, md);
    /* Distances along the path from the vehicle's centre; the points are read in place (nothing
    ** changes the path before the move below: the lane change after it makes a new one). */
    double along[SN_MD_PATH];
    const sn_vec3 *pts = md->at;
    sn_md_along(md, along0, along);

    const bool rules = e->traffic && !e->traffic->legacy;
    md->odo += fabs(v) * dt;

    const double delta = pursuit_steer(a, md, pos, fwd, &rm, v, pts, along);
    verdict vd;
    decide_speed(e, a, md, pts, along, v, dt, rules, &vd);

    bool calm = false; /* hybrid mode: nothing but its leader, a light or a junction's claim holds it, or its route's lane change */
    if (md->hybrid_off) {
        /* Without physics (hybrid mode): moved to where vt takes it along the path (hybrid.c). */
        sn_hybrid_move(a, md, pts, along, md->n, vd.vt, dt);
        calm = coast_on(e, md, &vd, rules);
    } else {
        drive(a, md, vd.vt, v, delta, dt);
        sn_headon_back(e, a, md, v);
    }
    /* Hybrid mode: a vehicle without physics considers lane changes (and searches their gaps)
    ** on its decision frames only, those it would not coast on (vehicle_coast): CARLA's passing
    ** check every 10th frame is one of them. */
    if (rules && !(md->hybrid_off && (e->clock.frame + a->id) % COAST_EVERY) && change_lanes(e, a, md, &vd, v, dt))
        md->coast = calm = false; /* a new path: the next frame decides on it */
    /* Held standing behind a standing vehicle by the leader rule alone: asleep until it moves
    ** (vehicle_sleep). Not where it may ignore vehicles (its draw each decision could let it go).
    ** One waiting for its route's lane change (route.c) sleeps nearer than SLEEP_ROUTE_GAP only:
    ** lanechange.c leaves no queue with its leader that near. */
    const sn_actor *who = vd.who;
    if (md->hybrid_off && calm && (!md->route_dir || vd.gap < SLEEP_ROUTE_GAP) && vd.has_lead && who->kind == SN_ACTOR_VEHICLE &&
        !who->down && vd.gap < SLEEP_GAP && !face_to_face(fwd, who) && !waits_for(who, a->id) && sn_md_pct(md, SN_MD_PCT_IGNORE_VEHICLES) <= 0 &&
        approach(md, vd.gap - md->gap, vd.v_lead) < SLEEP_HOLD && sn_v3_dot(who->st.vel, who->st.vel) < SLEEP_HOLD * SLEEP_HOLD &&
        !md->force_lane_change) {
        md->asleep = true;
        md->sleep_x = (float)(who->st.pos.x - a->st.pos.x), md->sleep_y = (float)(who->st.pos.y - a->st.pos.y);
    }
}

void sn_traffic_controllers(sn_engine *e, double dt)
{
    sn_world *w = &e->world;
    bool any_map = false;
    for (size_t i = 0; i < w->n_actors && !any_map; i++)
        any_map = w->actors[i]->has_autopilot && w->actors[i]->mv->ap->map;
    /* Without the grid (out of memory) vehicles still drive, blind to leaders. */
    struct sn_traffic *t = any_map ? sn_traffic_get(e) : NULL;
    if (any_map && !(t && sn_traffic_grid_build(t, w)) && e->traffic)
        e->traffic->n = 0;
    if (e->traffic) /* the walkers on crossings, which vehicles yield to */
        e->traffic->n_xu = sn_walkers_on_crossings(e, e->traffic->walkers, &e->traffic->xu, &e->traffic->cap_xu);
    sn_hybrid_frame(e); /* the heroes, for hybrid mode */
    if (e->traffic && e->traffic->jx && e->clock.frame > 1)
        sn_jx_purge(e->traffic->jx, e->clock.frame - 1); /* claims of vehicles gone or off their paths */
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        /* each vehicle's actor, motion, autopilot and mapdrive are cache misses at hundreds of
        ** vehicles: fetched a few actors ahead, one level of the chain each (no effect on results) */
        if (i + 4 < w->n_actors)
            __builtin_prefetch(w->actors[i + 4]);
        if (i + 3 < w->n_actors && w->actors[i + 3]->has_autopilot)
            __builtin_prefetch(w->actors[i + 3]->mv);
        if (i + 2 < w->n_actors && w->actors[i + 2]->has_autopilot)
            __builtin_prefetch(w->actors[i + 2]->mv->ap);
        if (i + 1 < w->n_actors && w->actors[i + 1]->has_autopilot) {
            const sn_mapdrive *next = w->actors[i + 1]->mv->ap->map;
            if (next)
                __builtin_prefetch(next);
        }
        if (!a->has_autopilot)
            continue;
        if (!a->mv->ap->map)
            sn_autopilot_update(w, a, dt);
        else if (a->mv->ap->map->walker)
            sn_walker_update(e, a, a->mv->ap->map, dt);
        else {
            sn_mapdrive *md = a->mv->ap->map;
            sn_hybrid_switch(e, a, md);
            /* hybrid mode: between its decisions a vehicle without physics coasts on the last one,
            ** or sleeps behind a standing leader */
            const bool slept = md->asleep && md->hybrid_off;
            if (slept && vehicle_sleep(e, a, md, dt))
                continue;
            if (slept || !(md->coast && md->hybrid_off && (e->clock.frame + a->id) % COAST_EVERY && vehicle_coast(e, a, md, dt)))
                vehicle_update(e, a, md, dt); /* (a vehicle woken from its sleep decides now) */
        }
    }
    sn_tm_lights(e); /* update_vehicle_lights: after the controls are set */
}

static double knob(double v, double def) { return isnan(v) ? def : v; }

void sn_mapdrive_free(sn_mapdrive *md)
{
    if (md)
        free(md->pct);
    free(md);
}

sn_status sn_mapdrive_start(sn_engine *e, sn_actor *a, const sn_tm_knobs *k, double target_speed, uint64_t seed,
                            sn_error *err)
{
    if (!e->map)
        return sn_fail(err, SN_E_INVALID, "an autopilot without a route follows the map's lanes, and the scene has "
                       "no map (map: FILE.xodr)");
    if (a->kind != SN_ACTOR_VEHICLE && a->kind != SN_ACTOR_WALKER)
        return sn_fail(err, SN_E_INVALID, "'%s' is no vehicle or walker: it cannot drive", a->type_id);
    sn_mapdrive *md = calloc(1, sizeof *md);
    if (!md)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    md->walker = a->kind == SN_ACTOR_WALKER;
    brake_limits(e, a, md);
    sn_rng_seed(&md->rng, seed);
    md->gap = knob(k ? k->distance_to_leading_vehicle : NAN, SN_TM_DISTANCE_TO_LEADING);
    md->speed_diff = knob(k ? k->speed_difference : NAN, SN_TM_SPEED_DIFFERENCE);
    md->ignore_lights = knob(k ? k->ignore_lights : NAN, SN_TM_IGNORE_LIGHTS);
    md->auto_lane_change = true;
    md->jx_in = -1;
    md->desired = target_speed >= 0 ? target_speed : md->walker ? a->mv->walk_speed : -1;
    bool placed = sn_md_relocate(e->map, md, a->st.pos);
    if (!placed && md->walker) {
        free(md);
        return sn_fail(err, SN_E_INVALID, "no sidewalk lane within 50 m of (%.2f, %.2f, %.2f) to follow",
                       a->st.pos.x, a->st.pos.y, a->st.pos.z);
    }
    if (placed)
        sn_md_refill(e->traffic, e->map, md);
    if ((!placed || md->far) && !(e->tms && e->tms->warned_offroad)) {
        /* Not an error (CARLA's TM drives it there): said once a run, naming the first. */
        sn_tms *tms = e->tms ? e->tms : (e->tms = calloc(1, sizeof *e->tms));
        if (tms)
            tms->warned_offroad = true;
        char line[300];
        if (placed)
            snprintf(line, sizeof line, "autopilot: '%s' (actor %u) at (%.1f, %.1f, %.1f) is %.0f m from the nearest "
                     "driving lane: it drives there (further vehicles off the road are not reported)",
                     a->name ? a->name : a->type_id, a->id, a->st.pos.x, a->st.pos.y, a->st.pos.z,
                     sn_dist2d(a->st.pos, md->at[0]));
        else
            snprintf(line, sizeof line, "autopilot: '%s' (actor %u) finds no driving lane on the map: it waits, "
                     "braking", a->name ? a->name : a->type_id, a->id);
        sn_tm_warn(e, line);
    }
    sn_autopilot *ap = sn_actor_autopilot(a);
    if (!ap) {
        free(md);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    sn_mapdrive_free(ap->map);
    free(ap->route);
    *ap = (sn_autopilot){0};
    ap->map = md;
    a->has_autopilot = true;
    if (md->walker) {
        sn_walker_attach(e, a, md); /* wanders: random goals on the navigation graph */
        return SN_OK;
    }
    const double k3[3] = {k ? k->distance_to_leading_vehicle : NAN, k ? k->speed_difference : NAN,
                          k ? k->ignore_lights : NAN};
    return sn_tm_adopt(e, a, 0, k3, target_speed, err);
}
