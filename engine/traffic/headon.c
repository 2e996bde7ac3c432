/* headon.c — two vehicles that hold each other face to face outside a junction, or at any angle in one.
**
** The leader corridor (traffic.c) holds a vehicle behind any body whose box reaches into its
** path's corridor. Two wide vehicles meeting on opposite lanes of a bend (CARLA's 3.94 m
** fusorosa and a bus on Town10HD's road 1) each reach into the other's corridor, so each holds
** for the other for good; CARLA's Traffic Manager does the same (CollisionStage.cpp
** NegotiateCollision: a vehicle whose geodesic boundary the other's box touches yields, and both
** do). Here, once both have stood SN_HEADON_STAND s, the pair is broken: the vehicle whose body,
** driven along its path as pure pursuit steers it (a kinematic bicycle from the rear axle, as
** drive() steers) and stepped aside to its lane's far side, clears the other's box drives past at
** a crawl, measuring that sweep anew every frame and stopping short of any contact; the other
** keeps still until it is past. At a junction a pair that holds each other so at any angle is
** broken the same way (one crossed into the other's corridor); where neither fits, the one
** inside the junction waits for its sweep to clear while the other backs off. */
#include "headon.h"
#include "health.h"
#include "traffic_int.h"

#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <math.h>

#define PASS_V 2.0        /* m/s: the crawl at which it drives past */
#define PASS_TIME 30.0    /* s a pass may take before it is given up */
#define GO_MARGIN 0.15    /* m between the boxes along the whole sweep for a pass to begin */
#define STOP_MARGIN 0.06  /* m kept between them while it lasts (it stops short of less) */
#define BACK_TIME 4.0     /* s a keeper may back off (at BACK_V, below: about 4 m at most) */
#define STEP 0.25         /* m of travel between the sweep's poses */
#define A_STOP 3.0        /* m/s^2 it brakes at, short of a contact ahead */
#define OVER_EDGE 0.5     /* m beyond its lane's edge it may step aside */

/* A box on the ground: centre, unit forward, half extents along and across. */
typedef struct obox {
    double cx, cy, fx, fy, ex, ey;
} obox;

static obox box_of(const sn_actor *a, double margin)
{
    const sn_vec3 f = sn_quat_apply(a->st.rot, sn_v3(1, 0, 0));
    const double l = hypot(f.x, f.y) > 1e-9 ? hypot(f.x, f.y) : 1;
    const sn_vec3 ex = a->ph->bbox.extent;
    return (obox){a->st.pos.x, a->st.pos.y, f.x / l, f.y / l, ex.x + margin, ex.y + margin};
}

/* The separation of two boxes: the largest gap along their four axes (< 0: they overlap). */
static double box_gap(const obox *p, const obox *q)
{
    const double ax[4][2] = {{p->fx, p->fy}, {-p->fy, p->fx}, {q->fx, q->fy}, {-q->fy, q->fx}};
    const double dx = q->cx - p->cx, dy = q->cy - p->cy;
    double gap = -INFINITY;
    for (int k = 0; k < 4; k++) {
        const double ux = ax[k][0], uy = ax[k][1];
        const double rp = p->ex * fabs(p->fx * ux + p->fy * uy) + p->ey * fabs(-p->fy * ux + p->fx * uy);
        const double rq = q->ex * fabs(q->fx * ux + q->fy * uy) + q->ey * fabs(-q->fy * ux + q->fx * uy);
        gap = fmax(gap, fabs(dx * ux + dy * uy) - rp - rq);
    }
    return gap;
}

/* The point of the path at distance s along it, moved `offset` m to its right. */
static void point_at(const sn_vec3 *pts, const double *along, size_t np, double s, double offset, double *x, double *y)
{
    size_t i = 0;
    while (i + 2 < np && along[i + 1] < s)
        i++;
    const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l = hypot(dx, dy);
    const double u = l > 1e-9 ? fmin(fmax((s - along[i]) / (along[i + 1] - along[i]), 0), 1) : 0;
    const double tx = l > 1e-9 ? dx / l : 1, ty = l > 1e-9 ? dy / l : 0;
    *x = pts[i].x + u * dx - ty * offset; /* the right of (tx, ty) is (-ty, tx) */
    *y = pts[i].y + u * dy + tx * offset;
}

/* Where a point projects on the path: its distance along it (segments from *k on; *k moves on). */
static double project(const sn_vec3 *pts, const double *along, size_t np, double x, double y, size_t *k)
{
    for (;;) {
        const size_t i = *k;
        const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l2 = dx * dx + dy * dy;
        const double u = l2 > 1e-12 ? ((x - pts[i].x) * dx + (y - pts[i].y) * dy) / l2 : 1;
        if (u > 1 && i + 2 < np) {
            (*k)++;
            continue;
        }
        return along[i] + u * (along[i + 1] - along[i]);
    }
}

/* How far vehicle a drives along its path (pts[0..np), along[] from its centre), steered by pure
** pursuit towards the path moved `offset` m to the right, before its box grown by `margin` meets
** box q; INFINITY when not within `dist` m. */
static double sweep(const sn_actor *a, const sn_vec3 *pts, const double *along, size_t np, double offset,
                    const obox *q, double margin, double dist)
{
    if (np < 2)
        return INFINITY;
    obox me = box_of(a, margin);
    const double wb = a->mv->vp->wheelbase > 0.5 ? a->mv->vp->wheelbase : 0.5;
    const double look = 4.0; /* drive()'s look-ahead at the crawl (traffic.c: 3 + 0.5 v, at least 4) */
    double yaw = atan2(me.fy, me.fx);
    size_t k = 0;
    for (double s = 0;; s += STEP) {
        me.fx = cos(yaw), me.fy = sin(yaw);
        if (box_gap(&me, q) < 0)
            return s;
        if (s >= dist)
            return INFINITY;
        double tx, ty;
        point_at(pts, along, np, project(pts, along, np, me.cx, me.cy, &k) + look, offset, &tx, &ty);
        const double rx = me.cx - me.fx * wb / 2, ry = me.cy - me.fy * wb / 2;
        const double lx = me.fx * (tx - rx) + me.fy * (ty - ry), ly = -me.fy * (tx - rx) + me.fx * (ty - ry);
        const double ld = fmax(hypot(lx, ly), 1.0);
        const double delta = fmin(fmax(atan(2.0 * wb * sin(atan2(ly, lx)) / ld), -0.7), 0.7);
        const double nx = rx + me.fx * STEP, ny = ry + me.fy * STEP;
        yaw += tan(delta) / wb * STEP;
        me.cx = nx + cos(yaw) * wb / 2, me.cy = ny + sin(yaw) * wb / 2;
    }
}

/* A's map autopilot, or NULL (none, a walker). */
static sn_mapdrive *drive_of(const sn_actor *a)
{
    if (!a || !a->has_autopilot || !a->mv || !a->mv->ap || !a->mv->ap->map || a->mv->ap->map->walker)
        return NULL;
    return a->mv->ap->map;
}

/* How far along a's forward axis b's centre lies. */
static double ahead_of(const sn_actor *a, const sn_actor *b)
{
    const obox p = box_of(a, 0);
    return (b->st.pos.x - p.cx) * p.fx + (b->st.pos.y - p.cy) * p.fy;
}

/* The metres a's centre drives until its rear is a metre past b's rear. */
static double pass_dist(const sn_actor *a, const sn_actor *b)
{
    return ahead_of(a, b) + a->ph->bbox.extent.x + b->ph->bbox.extent.x + 1.0;
}

/* The margin a sweep keeps from box q: `margin`, or half the gap a's box already keeps from it
** when less (two that stopped nearer than that across a junction: it may move off as long as the
** gap does not shrink below half). */
static double near_margin(const sn_actor *a, const obox *q, double margin)
{
    const obox me = box_of(a, 0);
    return fmin(margin, 0.5 * fmax(box_gap(&me, q), 0));
}

uint32_t sn_headon_skip(sn_engine *e, const sn_actor *a, sn_mapdrive *md)
{
    if (md->held_for) {
        const sn_mapdrive *mo = drive_of(sn_world_find(&e->world, md->held_for));
        if (!mo || mo->pass_with != a->id)
            md->held_for = 0;
    }
    if (!md->pass_with)
        return 0;
    const sn_actor *b = sn_world_find(&e->world, md->pass_with);
    if (!b || e->clock.timestamp > md->pass_until || pass_dist(a, b) < 0) {
        md->pass_with = 0;
        md->offset = 0;
        return 0;
    }
    return md->pass_with;
}

double sn_headon_limit(sn_engine *e, const sn_actor *a, sn_mapdrive *md, const sn_vec3 *pts, const double *along,
                       size_t np)
{
    if (md->held_for)
        return 0;
    if (!md->pass_with)
        return INFINITY;
    const sn_actor *b = sn_world_find(&e->world, md->pass_with);
    if (!b)
        return INFINITY;
    const obox q = box_of(b, 0);
    const double hit = sweep(a, pts, along, np, md->offset, &q, near_margin(a, &q, STOP_MARGIN), pass_dist(a, b));
    /* stop half a metre short of the first pose that would come within the margin */
    return fmin(PASS_V, sqrt(2 * A_STOP * fmax(hit - 0.5, 0)));
}

/* Which way a steps away from b: +1 to its right, -1 to its left. */
static double away_from(const sn_actor *a, const sn_actor *b)
{
    const obox p = box_of(a, 0);
    return -p.fy * (b->st.pos.x - p.cx) + p.fx * (b->st.pos.y - p.cy) > 0 ? -1 : 1;
}

/* The farthest a may step aside: to its lane's edge, and OVER_EDGE beyond it (as a driver squeezes
** past a wide vehicle; its widened corridor still holds it behind any body there). */
static double side_room(const sn_engine *e, const sn_actor *a)
{
    sn_waypoint w;
    if (!e->map || sn_map_waypoint(e->map, a->st.pos, true, SN_LANE_DRIVING, &w, NULL) != SN_OK)
        return 0;
    return fmax(w.lane_width / 2 - a->ph->bbox.extent.y, 0) + OVER_EDGE;
}

/* The least side step (in steps of 0.1 m, up to the room) with which a's sweep past b clears b's
** box by GO_MARGIN; NAN when none does. */
static double pass_offset(const sn_engine *e, const sn_actor *a, const sn_actor *b, const sn_vec3 *pts,
                          const double *along, size_t np)
{
    const obox q = box_of(b, 0);
    const double dir = away_from(a, b), room = side_room(e, a), dist = pass_dist(a, b), mg = near_margin(a, &q, GO_MARGIN);
    for (int k = 0; k <= 20 && k * 0.1 <= room + 1e-9; k++)
        if (!isfinite(sweep(a, pts, along, np, dir * k * 0.1, &q, mg, dist)))
            return dir * k * 0.1;
    return NAN;
}

/* The path of vehicle b's autopilot as traffic.c's vehicle_update lays it out: points and their
** distances from b's centre (projected on the first segment). */
static size_t path_of(const sn_actor *b, const sn_mapdrive *mb, sn_vec3 *pts, double *along)
{
    if (mb->n < 2)
        return 0;
    pts[0] = mb->at[0], pts[1] = mb->at[1];
    const double dx = pts[1].x - pts[0].x, dy = pts[1].y - pts[0].y, l = hypot(dx, dy);
    along[0] = l > 1e-9 ? -((b->st.pos.x - pts[0].x) * dx + (b->st.pos.y - pts[0].y) * dy) / l : 0;
    for (uint32_t i = 1; i < mb->n; i++) {
        pts[i] = mb->at[i];
        along[i] = along[i - 1] + hypot(pts[i].x - pts[i - 1].x, pts[i].y - pts[i - 1].y);
    }
    return mb->n;
}

void sn_headon_detect(sn_engine *e, const sn_actor *a, sn_mapdrive *md, const sn_actor *who, const sn_vec3 *pts,
                      const double *along, size_t np)
{
    /* its own state first: most vehicles fail there, before the other's (a cache miss each) is read */
    if (!who || md->pass_with || md->held_for || md->wait_for != who->id || md->wait_logical || md->stand < SN_HEADON_STAND ||
        md->n < 2)
        return;
    sn_mapdrive *mb = who->kind == SN_ACTOR_VEHICLE ? drive_of(who) : NULL;
    if (!mb || md->pass_with || md->held_for || mb->pass_with || mb->held_for || md->wait_for != who->id ||
        mb->wait_for != a->id || md->wait_logical || mb->wait_logical || md->stand < SN_HEADON_STAND ||
        mb->stand < SN_HEADON_STAND || mb->n < 2 || md->n < 2)
        return;
    const obox pa = box_of(a, 0), pb = box_of(who, 0);
    /* Face to face outside junctions; or, at a junction, any pair that holds each other so: one
    ** that crossed in front of the other, whose nose reached into its corridor (Town10HD under
    ** generate_traffic.py: a bus turning across a car that crept past its stop line). Nothing
    ** else frees such a pair (the deadlock rule breaks logical waits only); in a queue or on a
    ** road each body is behind the other's, never both ahead. */
    const bool at_jx = md->path[0].is_junction || mb->path[0].is_junction || md->jx_in >= 0 || mb->jx_in >= 0;
    if (!at_jx && pa.fx * pb.fx + pa.fy * pb.fy > -0.5)
        return; /* not face to face: a queue or a crossing, the other rules' business */
    /* Who can drive past: its sweep, stepped aside, clears the other's box by GO_MARGIN. */
    static _Thread_local sn_vec3 bp[SN_MD_PATH];
    static _Thread_local double bl[SN_MD_PATH];
    const size_t nb = path_of(who, mb, bp, bl);
    const double off_a = pass_offset(e, a, who, pts, along, np), off_b = pass_offset(e, who, a, bp, bl, nb);
    if (isnan(off_a) && isnan(off_b) && at_jx) {
        /* Neither fits past (a car shoved across a bus's path in a collision, Town10HD): at a
        ** junction the one inside it (else the lower id) drives on as soon as its sweep clears,
        ** and the other backs off meanwhile (sn_headon_back), for BACK_TIME s at most. */
        const int in_a = md->jx_in >= 0, in_b = mb->jx_in >= 0;
        const bool a_goes = in_a > in_b || (in_a == in_b && a->id < who->id);
        sn_mapdrive *mover = a_goes ? md : mb, *keeper = a_goes ? mb : md;
        mover->pass_with = a_goes ? who->id : a->id;
        mover->pass_until = e->clock.timestamp + PASS_TIME;
        mover->offset = 0;
        keeper->held_for = a_goes ? a->id : who->id;
        keeper->pass_until = e->clock.timestamp + BACK_TIME; /* a keeper's pass_until: until when it backs off */
        mover->coast = keeper->coast = false;
        mover->asleep = keeper->asleep = false;
        e->traffic->stats.deadlocks_resolved++;
        sn_health_note_deadlock(e);
        return;
    }
    if (isnan(off_a) && isnan(off_b))
        return; /* neither fits past the other: they keep waiting (docs/traffic.md) */
    /* At a junction the one inside it (its claim granted) clears it first: the other's claim may
    ** still hold it before the entry. Else the one that steps aside less, else the lower id. */
    const int in_a = md->jx_in >= 0, in_b = mb->jx_in >= 0;
    const bool a_goes = !isnan(off_a) && (isnan(off_b) || in_a > in_b ||
                                          (in_a == in_b && (fabs(off_a) < fabs(off_b) ||
                                                            (fabs(off_a) == fabs(off_b) && a->id < who->id))));
    sn_mapdrive *mover = a_goes ? md : mb, *keeper = a_goes ? mb : md;
    mover->pass_with = a_goes ? who->id : a->id;
    mover->pass_until = e->clock.timestamp + PASS_TIME;
    mover->offset = a_goes ? off_a : off_b;
    keeper->held_for = a_goes ? a->id : who->id;
    keeper->pass_until = 0; /* it keeps still, it does not back off */
    mover->coast = keeper->coast = false;
    mover->asleep = keeper->asleep = false; /* hybrid mode: asleep on the other, it would never start */
    e->traffic->stats.deadlocks_resolved++;
    sn_health_note_deadlock(e);
}

#define BACK_V 1.0     /* m/s a keeper backs off at */
#define BACK_CLEAR 0.5 /* m behind its box that must be free of vehicles and walkers */

/* The keeper of a pair neither of which fits past the other (sn_headon_detect) reverses at a crawl
** while the other still stands and nothing is within BACK_CLEAR behind it; else it brakes. In
** hybrid mode (no physics) it keeps still. */
bool sn_headon_back(sn_engine *e, sn_actor *a, sn_mapdrive *md, double v)
{
    if (!md->held_for || md->pass_until <= 0)
        return false;
    const sn_actor *m = sn_world_find(&e->world, md->held_for);
    const sn_mapdrive *mm = drive_of(m);
    if (!mm || mm->pass_with != a->id || e->clock.timestamp > md->pass_until) {
        md->pass_until = 0;
        return false;
    }
    obox me = box_of(a, 0);
    me.cx -= me.fx * BACK_CLEAR, me.cy -= me.fy * BACK_CLEAR;
    bool clear = sn_v3_dot(m->st.vel, m->st.vel) < 0.09; /* while the other stands */
    for (size_t i = 0; clear && i < e->world.n_actors; i++) {
        const sn_actor *o = e->world.actors[i];
        if (o == a || !o->ph || (o->kind != SN_ACTOR_VEHICLE && o->kind != SN_ACTOR_WALKER))
            continue;
        if (fabs(o->st.pos.x - a->st.pos.x) > 30 || fabs(o->st.pos.y - a->st.pos.y) > 30)
            continue; /* farther than any two boxes can reach */
        const obox q = box_of(o, 0);
        if (box_gap(&me, &q) < 0)
            clear = false;
    }
    sn_vehicle_control c = {0};
    if (clear && a->drive != SN_DRIVE_KINEMATIC) {
        c.reverse = true;
        c.throttle = v > -BACK_V ? 0.4 : 0;
        c.brake = v < -1.5 * BACK_V ? 0.3 : 0;
    } else {
        c.brake = 1.0;
    }
    a->ph->control = c;
    return true;
}
