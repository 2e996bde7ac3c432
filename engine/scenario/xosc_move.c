/* xosc_move.c — entities driven by the storyboard: positions, and the kinematic motion of
** SpeedAction, LaneChangeAction, LaneOffsetAction and FollowTrajectoryAction.
**
** An entity on a lane keeps (road, section, lane, s, offset): each step it moves along the lane's
** centre by the distance its speed profile covers (the closed-form integral of the dynamics
** shape, so positions match the shape's formula, not a sum of steps), into the next lane through
** sections and junctions (the first successor, as the map orders them), and sideways by its
** lateral profile. Anything else (pedestrians, entities off the lanes) moves straight along its
** heading. */
#include "xosc_pos.h"

#include "../map/lanemap.h"
#include "../map/road_mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double sn_xshape_f(sn_xshape s, double tau)
{
    if (tau <= 0)
        return s == SN_XS_STEP ? 1 : 0;
    if (tau >= 1)
        return 1;
    switch (s) {
    case SN_XS_STEP: return 1;
    case SN_XS_LINEAR: return tau;
    case SN_XS_CUBIC: return tau * tau * (3 - 2 * tau);
    case SN_XS_SINUSOIDAL: return 0.5 * (1 - cos(M_PI * tau));
    }
    return 1;
}

/* The integral of f from 0 to tau (tau in [0, 1]); past 1 it grows by (tau - 1). */
double sn_xshape_int(sn_xshape s, double tau)
{
    if (tau <= 0)
        return 0;
    double extra = tau > 1 ? tau - 1 : 0;
    if (tau > 1)
        tau = 1;
    double v = 0;
    switch (s) {
    case SN_XS_STEP: v = tau; break;
    case SN_XS_LINEAR: v = 0.5 * tau * tau; break;
    case SN_XS_CUBIC: v = tau * tau * tau - 0.5 * tau * tau * tau * tau; break;
    case SN_XS_SINUSOIDAL: v = 0.5 * (tau - sin(M_PI * tau) / M_PI); break;
    }
    return v + extra;
}

/* x, y, z, h of a lane-mode entity from its (road, lane, s, offset). */
static void lane_pose(sn_xrun *r, sn_xent *e)
{
    const sn_odr_road *rd = sn_xrun_road(r, e->ri);
    const sn_odr_section *sec = &rd->sections[e->sec];
    double a, b;
    sn_odr_lane_span(rd, sec, e->lane, e->s, &a, &b);
    int dir = e->sdir;
    double t = 0.5 * (a + b) + dir * e->off, p[3];
    sn_odr_point(rd, e->s, t, 0, p);
    sn_odr_pose ref = sn_odr_ref_line(rd, e->s);
    e->x = p[0], e->y = p[1], e->z = p[2];
    /* standing at a road's end it keeps the heading it arrived with (a lane change ended there
    ** leaves the entity turned, as esmini's LatLaneChangeAction::Step does) */
    if (e->end_of_road && fabs(e->v) < 1e-6)
        return;
    /* along the lane's centre, which leans off the reference line where lane widths or the lane
    ** offset change along s (esmini's Position::GetHOffset: routing-test's Ego at 23.9 s, its
    ** lane's neighbour narrowing to 0, heads 0.217 rad off the road) */
    double yaw = ref.hdg + sn_xlane_lean(rd, sec, e->lane, e->s, t) + (dir < 0 ? M_PI : 0);
    /* the heading is the step's direction of motion: during a lane change the speed is along it
    ** (the sideways motion takes from the progress), so asin(lateral rate / speed), esmini's
    ** atan2(delta_lat, sqrt(step^2 - delta_lat^2)) (LatLaneChangeAction::Step); a lane offset
    ** keeps the progress v dt, so atan2(lateral rate, speed) */
    if (e->v > 1e-6 && e->lat_rate != 0)
        yaw += e->lat && e->lat->kind == SN_XA_LANE_CHANGE && fabs(e->lat_rate) < e->v ? asin(e->lat_rate / e->v)
                                                                                       : atan2(e->lat_rate, e->v);
    e->h = atan2(sin(yaw), cos(yaw));
}

void sn_xroad_tilt(const sn_odr_road *rd, double s, double d, double *pitch, double *roll)
{
    /* the surface rises tan(a) per metre along s and tan(b) per metre to the left (positive
    ** superelevation raises the left side): along the heading, and along the body's right */
    double ta = sn_odr_poly_slope(rd->elevation, rd->n_elevation, s), tb = tan(sn_odr_superelevation(rd, s));
    *pitch = -atan(ta * cos(d) + tb * sin(d));
    *roll = atan(tb * cos(d) - ta * sin(d));
}

/* Entity e's pitch and roll: a trajectory's own pitch where it has one (given *traj_pitch), the
** road's under it otherwise; level off the roads. */
static void entity_tilt(const sn_xrun *r, sn_xent *e, const double *traj_pitch)
{
    const sn_odr_road *rd = NULL;
    double s = 0;
    sn_map_place pl;
    if (e->mode == SN_XM_LANE) {
        rd = sn_xrun_road(r, e->ri), s = e->s;
    } else if (r->map && sn_map_locate(r->map, (sn_vec3){e->x, -e->y, e->z}, 2.0, 0, &pl) && pl.outside <= 0) {
        rd = sn_xrun_road(r, pl.road), s = pl.s;
    }
    e->pitch = e->roll = 0;
    if (rd)
        sn_xroad_tilt(rd, s, e->h - sn_odr_ref_line(rd, s).hdg, &e->pitch, &e->roll);
    if (traj_pitch)
        e->pitch = *traj_pitch;
}

static bool locate(const sn_xrun *r, double x, double y, double z, uint32_t types, sn_map_place *pl)
{
    return r->map && sn_map_locate(r->map, (sn_vec3){x, -y, z}, 2.0, types, pl) && pl->outside <= 0.0;
}

bool sn_xmove_locate(const sn_xrun *r, int i, int32_t *road, int *lane, double *s, double *t, double *outside)
{
    const sn_xent *e = &r->ents[i];
    sn_map_place pl;
    if (!r->map || !sn_map_locate(r->map, (sn_vec3){e->x, -e->y, e->z}, 2.0, 0, &pl))
        return false;
    *road = r->map->odr->roads[pl.road].id;
    *lane = pl.lane;
    *s = pl.s;
    *t = pl.t;
    *outside = pl.outside;
    return true;
}

/* The lane `n` lanes to the left (n < 0: right) of `lane` for an entity moving along s (sdir
** +1) or against it (-1), skipping 0: lane ids grow toward +t. */
static int lane_shift(int sdir, int lane, int n)
{
    int step = (n > 0 ? 1 : -1) * sdir;
    for (int k = 0; k < abs(n); k++) {
        lane += step;
        if (lane == 0)
            lane += step;
    }
    return lane;
}

/* The height of the map's surface under (x, y): the road's, a sidewalk's kerb above it; z
** itself where no lane is. */
static double ground_z(const sn_xrun *r, double x, double y, double z)
{
    sn_map_place pl;
    if (!r->map || !sn_map_locate(r->map, (sn_vec3){x, -y, z}, 2.0, 0, &pl) || pl.outside > 0)
        return z;
    const sn_odr_road *rd = sn_xrun_road(r, pl.road);
    double p[3];
    sn_odr_point(rd, pl.s, pl.t, 0, p);
    const sn_odr_lane *l = sn_odr_lane_of(&rd->sections[pl.section], pl.lane);
    return p[2] + (l && l->type == SN_LANE_SIDEWALK ? SN_ROAD_KERB : 0);
}

/* Puts entity e on the lane under (x, y) when it stands on a driving lane and heads its way. */
static void snap_to_lane(sn_xrun *r, sn_xent *e, sn_xent_kind kind)
{
    e->mode = SN_XM_FREE;
    sn_map_place pl;
    if (kind != SN_XEN_VEHICLE || !locate(r, e->x, e->y, e->z, SN_LANE_DRIVING, &pl))
        return;
    const sn_odr_road *rd = sn_xrun_road(r, pl.road);
    double c = cos(sn_odr_ref_line(rd, pl.s).hdg - e->h);
    if (fabs(c) < 0.7) /* more than 45 degrees off the road's direction: it drives its own way */
        return;
    int dir = c > 0 ? 1 : -1; /* along s or against it, whichever way the lane runs */
    double tc;
    uint32_t sec;
    if (!sn_xlane_centre(r, pl.road, pl.lane, pl.s, &sec, &tc))
        return;
    e->mode = SN_XM_LANE;
    e->ri = pl.road, e->sec = sec, e->lane = pl.lane, e->s = pl.s, e->off = dir * (pl.t - tc), e->sdir = dir;
}

bool sn_xmove_place(sn_xrun *r, int i, const sn_xpos *p)
{
    sn_xent *e = &r->ents[i];
    double q[4], s, off;
    int32_t ri;
    int lane;
    bool on_lane;
    if (!sn_xmove_resolve(r, p, q, &ri, &lane, &s, &off, &on_lane))
        return false;
    e->x = q[0], e->y = q[1], e->z = q[2], e->h = q[3];
    e->placed = true;
    e->eor_stale = true; /* cleared by the next motion step, not now: lane_change_simple's two events on one EndOfRoadCondition */
    e->lat_rate = 0;
    if (e->mode == SN_XM_EXTERNAL)
        return true;
    sn_xent_kind kind = r->x->ents[i].kind;
    if (on_lane && kind == SN_XEN_VEHICLE) {
        e->mode = SN_XM_LANE;
        /* it moves the way it heads: along s or against it */
        e->sdir = cos(q[3] - sn_odr_ref_line(sn_xrun_road(r, ri), s).hdg) >= 0 ? 1 : -1;
        e->ri = ri, e->lane = lane, e->s = s, e->off = e->sdir * off;
        double tc;
        sn_xlane_centre(r, ri, lane, s, &e->sec, &tc);
        entity_tilt(r, e, NULL);
        return true;
    }
    snap_to_lane(r, e, kind);
    if (e->mode == SN_XM_FREE)
        e->z = ground_z(r, e->x, e->y, e->z);
    entity_tilt(r, e, NULL);
    return true;
}

/* ---- actions ---- */

static double ent_speed(const sn_xrun *r, int i) { return r->ents[i].v; }

/* LongitudinalDistanceAction: how far entity i is from where the action wants it (positive: too
** far back), and the gap it wants. */
/* Off the lanes, how far the reference b is ahead of entity a along b's heading, in the world
** (the standard's entity coordinates where no lane holds: the gap a keeps when it follows b);
** freespace: between the boxes along that axis. drop-bike.xosc: a bike lying across a truck. */
static double ref_long(const sn_xrun *r, int a, int b, bool freespace)
{
    const sn_xent *ea = &r->ents[a], *eb = &r->ents[b];
    const sn_xentity *da = &r->x->ents[a], *db = &r->x->ents[b];
    double ch = cos(eb->h), sh = sin(eb->h), lon = ch * (eb->x - ea->x) + sh * (eb->y - ea->y);
    if (!freespace)
        return lon;
    double rel = ea->h - eb->h;
    double c = lon + db->cx - (cos(rel) * da->cx - sin(rel) * da->cy); /* box centre to box centre */
    double ext = db->len / 2 + fabs(cos(rel)) * da->len / 2 + fabs(sin(rel)) * da->wid / 2;
    double gap = fabs(c) - ext; /* negative: the boxes overlap by that much (so the gap is kept from the next step) */
    return c < 0 ? -gap : gap;
}

static double gap_error(const sn_xrun *r, int i, const sn_xaction *a)
{
    const sn_xent *e = &r->ents[i];
    double want = a->time_gap ? a->value * fmax(e->v, 0) : a->value;
    double have = e->mode == SN_XM_LANE ? sn_xent_long(r, i, a->ref, a->freespace, true) /* positive: the reference ahead */
                                        : ref_long(r, i, a->ref, a->freespace);
    return a->leading ? -(want + have) : have - want;
}

/* The duration of a transition from a to b (speeds, or offsets when lateral at speed v). */
static double duration(const sn_xdyn *d, double a, double b, bool lateral, double v)
{
    if (d->shape == SN_XS_STEP)
        return 0;
    switch (d->dim) {
    case SN_XD_TIME: return d->value;
    case SN_XD_RATE: {
        /* the rate is the shape's peak rate (esmini's reading): linear's is its mean, cubic's 1.5
        ** times, sinusoidal's pi/2 times */
        double k = d->shape == SN_XS_CUBIC ? 1.5 : d->shape == SN_XS_SINUSOIDAL ? M_PI / 2 : 1;
        return d->value > 0 ? k * fabs(b - a) / d->value : 0;
    }
    case SN_XD_DISTANCE:
        if (lateral) /* the longitudinal distance over which the lane is changed */
            return v > 1e-9 ? d->value / v : 0;
        return a + b > 1e-9 ? 2 * d->value / (a + b) : 0; /* every shape's mean speed is (a + b) / 2 */
    }
    return 0;
}

static double speed_target(const sn_xrun *r, const sn_xaction *a)
{
    if (!a->relative)
        return a->value;
    double v = ent_speed(r, a->ref);
    return a->factor ? v * a->value : v + a->value;
}

/* A lateral offset target (travel-left of entity i's current lane). */
static bool lateral_target(sn_xrun *r, int i, const sn_xaction *a, double *o1)
{
    sn_xent *e = &r->ents[i];
    const sn_odr_road *rd = sn_xrun_road(r, e->ri);
    int dir = e->sdir;
    if (a->kind == SN_XA_LANE_OFFSET) {
        if (!a->relative) {
            *o1 = dir * a->value;
            return true;
        }
        sn_xent *f = &r->ents[a->ref];
        if (f->mode != SN_XM_LANE)
            return sn_xrun_fail(r, a->line, "LaneOffsetAction: entity '%s' is on no lane", r->x->ents[a->ref].name);
        *o1 = f->off + dir * a->value;
        return true;
    }
    /* LaneChangeAction: the target lane becomes the entity's lane; its offset is then measured from it */
    int target;
    if (a->relative) {
        sn_xent *f = &r->ents[a->ref];
        if (f->mode != SN_XM_LANE || f->ri != e->ri)
            return sn_xrun_fail(r, a->line,
                                "LaneChangeAction: RelativeTargetLane: entity '%s' is not on the actor's road",
                                r->x->ents[a->ref].name);
        target = lane_shift(e->sdir, f->lane, (int)a->value);
    } else {
        target = (int)a->value;
    }
    double tc0, tc1;
    uint32_t sec;
    if (!sn_xlane_centre(r, e->ri, e->lane, e->s, NULL, &tc0) || !sn_xlane_centre(r, e->ri, target, e->s, &sec, &tc1)) {
        char v[64];
        snprintf(v, sizeof v, "%d at s %.2f of road %d", target, e->s, rd->id);
        return sn_xrun_fail(r, a->line, "LaneChangeAction: no lane %s", v);
    }
    e->off += dir * (tc0 - tc1);
    e->lat_o0 = e->off;
    e->lane = target;
    e->sec = sec;
    *o1 = a->has_lane_offset ? dir * a->lane_offset : 0;
    return true;
}

static void end_lon(sn_xent *e)
{
    e->lon = NULL;
    e->lon_elem = -2;
    e->lon_tracking = false;
}

static void end_lat(sn_xent *e)
{
    e->lat = NULL;
    e->lat_elem = -2;
    e->lat_tracking = false;
    e->lat_rate = 0;
}

/* The difference of two angles, in (-pi, pi]. */
static double ang_diff(double a, double b)
{
    double d = fmod(a - b, 2 * M_PI);
    if (d > M_PI)
        d -= 2 * M_PI;
    else if (d <= -M_PI)
        d += 2 * M_PI;
    return d;
}

/* Each vertex's heading (e->th, allocated here when given is NULL): the one given (not NaN), else
** the direction to the next vertex apart from it, the last one's the last segment's (esmini's
** PolyLineShape::CalculatePolyLine). false: out of memory. */
static bool traj_headings(sn_xent *e, const double *given)
{
    if (!given && !(e->th = malloc(e->tn * sizeof *e->th)))
        return false;
    free(e->tp);
    if (!(e->tp = malloc(e->tn * sizeof *e->tp)))
        return false;
    double cur = e->h, cp = 0;
    const double *v = e->tv;
    for (uint32_t k = 0; k + 1 < e->tn; k++)
        if (e->tcum[k + 1] - e->tcum[k] > 1e-9) {
            cur = atan2(v[3 * k + 4] - v[3 * k + 1], v[3 * k + 3] - v[3 * k]);
            cp = -atan2(v[3 * k + 5] - v[3 * k + 2], e->tcum[k + 1] - e->tcum[k]);
            break;
        }
    e->traj_sh = cur, e->traj_sp = cp; /* until it moves: the first segment */
    for (uint32_t k = 0; k < e->tn; k++) {
        bool set = given && !isnan(given[k]);
        if (!set)
            e->th[k] = cur;
        e->tp[k] = cp;
        if (k + 2 < e->tn && e->tcum[k + 2] - e->tcum[k + 1] > 1e-9) {
            cur = atan2(v[3 * k + 7] - v[3 * k + 4], v[3 * k + 6] - v[3 * k + 3]);
            cp = -atan2(v[3 * k + 8] - v[3 * k + 5], e->tcum[k + 2] - e->tcum[k + 1]);
        }
    }
    /* a flat path (every vertex at one height, as on a plane or without heights) has no pitch of
    ** its own: the entity takes the road's */
    e->traj_pitched = false;
    for (uint32_t k = 1; k < e->tn; k++)
        if (fabs(v[3 * k + 2] - v[2]) > 1e-9)
            e->traj_pitched = true;
    return true;
}

static bool start_trajectory(sn_xrun *r, int i, int elem, const sn_xaction *a)
{
    sn_xent *e = &r->ents[i];
    free(e->tv);
    free(e->tcum);
    free(e->tt);
    free(e->th);
    e->tv = e->tcum = e->tt = e->th = NULL;
    const double *given_h = NULL; /* a Polyline's vertices: their headings where given */
    if (a->traj_shape != SN_XT_POLYLINE) { /* Clothoid, Nurbs: sampled into a polyline (xosc_shape.c) */
        uint32_t n;
        if (!sn_xshape_path(r, i, a, &e->tv, &e->tt, &n))
            return false;
        if (!(e->tcum = malloc(n * sizeof *e->tcum)))
            return sn_xrun_fail(r, a->line, "%s", "out of memory");
        for (uint32_t k = 0; k < n; k++)
            e->tcum[k] = k ? e->tcum[k - 1] + hypot(e->tv[3 * k] - e->tv[3 * k - 3], e->tv[3 * k + 1] - e->tv[3 * k - 2]) : 0;
        e->tn = n;
        goto started;
    }
    e->tv = malloc(a->n_verts * 3 * sizeof *e->tv);
    e->tcum = malloc(a->n_verts * sizeof *e->tcum);
    e->tt = a->timed ? malloc(a->n_verts * sizeof *e->tt) : NULL;
    if (!e->tv || !e->tcum || (a->timed && !e->tt))
        return sn_xrun_fail(r, a->line, "%s", "out of memory");
    if (e->tt)
        memcpy(e->tt, a->times, a->n_verts * sizeof *e->tt);
    if (!(e->th = malloc(a->n_verts * sizeof *e->th)))
        return sn_xrun_fail(r, a->line, "out of memory");
    for (uint32_t k = 0; k < a->n_verts; k++) {
        double q[4], s, off;
        int32_t ri;
        int lane;
        bool on;
        if (!sn_xmove_resolve(r, &a->verts[k], q, &ri, &lane, &s, &off, &on))
            return false;
        memcpy(&e->tv[3 * k], q, 3 * sizeof *q);
        e->th[k] = a->verts[k].has_h ? q[3] : NAN;
        e->tcum[k] = k ? e->tcum[k - 1] + hypot(q[0] - e->tv[3 * k - 3], q[1] - e->tv[3 * k - 2]) : 0;
    }
    e->tn = a->n_verts;
    given_h = e->th;
started:
    if (!traj_headings(e, given_h))
        return sn_xrun_fail(r, a->line, "out of memory");
    /* esmini (FollowTrajectoryAction::Start): a Polyline in position mode is aligned with its
    ** segments and turned near corners; in follow mode, and sampled curves always, turned over
    ** each whole segment */
    e->traj_corner = a->traj_shape == SN_XT_POLYLINE && !a->traj_follow;
    e->traj_d = fmin(a->traj_d0, e->tcum[e->tn - 1]); /* initialDistanceOffset (esmini: SetTrajectoryS) */
    /* which way it faces along the path (esmini's initialHeadingSign), esmini's rule
    ** (FollowTrajectoryAction::Start), whatever its heading before: a vertex heading given where it
    ** starts is taken as given, and it faces against the path when that is more than 90 degrees
    ** off the path's own; none given, it faces along the path, turned round for a negative speed
    ** when untimed (it then reverses, and a negative speed moves it forward along the path) */
    uint32_t k0 = 0;
    while (k0 + 2 < e->tn && e->tcum[k0 + 1] <= e->traj_d)
        k0++;
    const double *v0 = &e->tv[3 * k0];
    double h_true = e->tcum[k0 + 1] - e->tcum[k0] > 1e-9 ? atan2(v0[4] - v0[1], v0[3] - v0[0]) : e->traj_sh;
    e->traj_hgiven = given_h && a->verts[k0].has_h; /* given_h: a Polyline, its verts the vertices */
    if (e->traj_hgiven)
        e->traj_hsign = fabs(ang_diff(e->th[k0], h_true)) > M_PI / 2 + 1e-9 ? -1 : 1;
    else
        e->traj_hsign = !a->timed && e->v < 0 ? -1 : 1;
    e->traj = a;
    e->traj_elem = elem;
    e->traj_t0 = r->t;
    e->mode = SN_XM_TRAJ;
    end_lat(e);
    return true;
}

static double lon_disp(const sn_xent *e, double t);

/* A SpeedProfileAction's segment to entry k from t0: linear from the entity's speed to the
** entry's in the entry's time, lengthened to keep within the limits (DynamicConstraints, else the
** Performance); without a time as fast as they allow (at once without limits). esmini's rule
** (OSCPrivateAction.cpp, LongSpeedProfileAction::Start): a first entry at time 0 is a jump. */
static void profile_segment(sn_xrun *r, int i, uint32_t k, double t0)
{
    sn_xent *e = &r->ents[i];
    const sn_xaction *a = e->lon;
    const sn_xentity *d = &r->x->ents[i];
    double v1 = a->prof_v[k] + e->prof_off;
    double vmax = a->lim_speed > 0 ? a->lim_speed : d->max_speed;
    if (vmax > 0 && v1 > vmax)
        v1 = vmax;
    double lim = v1 > e->v ? (a->lim_acc > 0 ? a->lim_acc : d->max_acc) : (a->lim_dec > 0 ? a->lim_dec : d->max_dec);
    double T = fmax(a->prof_t[k], 0), dv = fabs(v1 - e->v);
    if (!(k == 0 && a->prof_t[k] == 0) && lim > 0 && dv > lim * T)
        T = dv / lim;
    e->prof_k = k;
    e->lon_t0 = t0;
    e->lon_v0 = e->v;
    e->lon_v1 = v1;
    e->lon_T = T;
}

/* A SpeedProfileAction's distance from t0 to t, its segments following one another; the entity's
** speed at t; *over when the last entry is reached. */
static double profile_advance(sn_xrun *r, int i, double t0, double t, bool *over)
{
    sn_xent *e = &r->ents[i];
    double dist = 0, from = fmax(t0, e->lon_t0);
    *over = false;
    for (;;) {
        double te = e->lon_t0 + e->lon_T;
        if (t < te - 1e-9) {
            dist += lon_disp(e, t) - lon_disp(e, from);
            e->v = e->lon_v0 + (e->lon_v1 - e->lon_v0) * (t - e->lon_t0) / e->lon_T;
            return dist;
        }
        dist += lon_disp(e, te) - lon_disp(e, from);
        e->v = e->lon_v1;
        if (e->prof_k + 1 >= e->lon->n_prof) {
            *over = true;
            return dist + e->lon_v1 * (t - te);
        }
        profile_segment(r, i, e->prof_k + 1, te);
        from = te;
    }
}

/* ---- SpeedProfileAction, followingMode follow with jerk limits ----
** The profile of followingMode position (straight lines from entry to entry, lengthened within the
** accelerations) with its corners rounded: the speed leaves each line with constant jerk (+rate
** speeding the change of acceleration up, -rate down) and joins the next tangentially. With lines
** v = k0 t + m0 and v = k1 t + m1 and jerk j, the round starts where
**   t1 = ((k0 - k1)^2 + 2 j (m1 - m0)) / (2 j (k0 - k1))
** and lasts (k1 - k0) / j (the same construction as esmini's LongSpeedProfileAction). The first
** corner is from the entity's acceleration now at the start, the first line moved to pass where
** that round ends; the last is into the final speed, held from there: the action ends when the
** speed reaches it. A missing rate is no limit (a sharp corner at the lines' crossing). */

static bool jseg_add(sn_xent *e, double t, double v, double k, double j, bool *nomem)
{
    if (e->n_jseg + 1 > e->cap_jseg) {
        uint32_t cap = e->cap_jseg ? 2 * e->cap_jseg : 16;
        double *nw = realloc(e->jseg, (size_t)cap * 4 * sizeof *nw);
        if (!nw)
            return !(*nomem = true);
        e->jseg = nw;
        e->cap_jseg = cap;
    }
    double *q = &e->jseg[4 * e->n_jseg++];
    q[0] = t, q[1] = v, q[2] = k, q[3] = j;
    return true;
}

/* esmini's special case of a single target (LongSpeedProfileAction::Start, followingMode follow,
** two vertices): from (t0, v0) with acceleration k0 to v3 at t3 with jerk j0 toward the straight
** line's slope, then (when there is time) a line of slope k1, then jerk j1 back to acceleration 0
** exactly at v3. When that cannot make t3 the target is reached later (esmini: "Can't reach target
** speed on target time, extend"); a k1 beyond the accelerations is clamped and the line lengthened.
** Both rates are finite here. false (nothing added) when the equations have no real solution:
** the caller rounds the corners as for several entries. */
static bool jerk_single(sn_xrun *r, int i, const double *bt, const double *bv, bool *nomem)
{
    sn_xent *e = &r->ents[i];
    const sn_xaction *a = e->lon;
    const sn_xentity *d = &r->x->ents[i];
    double ja = a->jerk_acc, jd = a->jerk_dec;
    double amax = a->lim_acc > 0 ? a->lim_acc : d->max_acc > 0 ? d->max_acc : INFINITY;
    double dmax = a->lim_dec > 0 ? a->lim_dec : d->max_dec > 0 ? d->max_dec : INFINITY;
    double t0 = bt[0], v0 = bv[0], t3 = bt[1], v3 = bv[1], k0 = e->a;
    double klin = (v3 - v0) / (t3 - t0);
    double j0 = klin - k0 < 0 ? -jd : ja, j1 = klin < 0 ? ja : -jd;
    double t1 = t0, v1 = v0, t2, v2, k1;
    bool line = false;
    double factor = j0 * j1 * (2 * v0 * (j1 - j0) + k0 * k0 + 2 * k0 * j1 * (t3 - t0) + j0 * j1 * (t0 - t3) * (t0 - t3) +
                               2 * v3 * (j0 - j1));
    if (factor < 0) { /* no time for a line: the two jerks meet, later than t3 */
        double q = j1 * (j1 - j0) * (j0 * (2 * v3 - 2 * v0) + k0 * k0);
        if (!(q >= 0))
            return false;
        t2 = (sqrt(q) + (j0 - j1) * (t0 * j0 - k0)) / (j0 * (j0 - j1));
        v2 = v0 + k0 * (t2 - t0) + j0 * 0.5 * (t2 - t0) * (t2 - t0);
        k1 = k0 + j0 * (t2 - t0);
        t3 = t2 - k1 / j1;
    } else {
        t1 = (-sqrt(factor) - j0 * (k0 + t3 * j1) + t0 * j0 * j0) / (j0 * (j0 - j1));
        v1 = v0 + k0 * (t1 - t0) + j0 * 0.5 * (t1 - t0) * (t1 - t0);
        k1 = k0 + j0 * (t1 - t0);
        t2 = k1 / j1 + t3;
        v2 = v1 + k1 * (t2 - t1);
        line = true;
    }
    if (!(t2 >= t0 - 1e-9) || !(t3 >= t2 - 1e-9) || !isfinite(t3))
        return false;
    if (!(k1 <= amax && k1 >= -dmax)) { /* the acceleration clamped: a longer line */
        k1 = k1 > amax ? amax : -dmax;
        t1 = t0 + (k1 - k0) / j0;
        v1 = v0 + k0 * (t1 - t0) + 0.5 * j0 * (t1 - t0) * (t1 - t0);
        t2 = (v3 - v1) / k1 + t1 + k1 / (2 * j1);
        v2 = v3 + k1 * k1 / (2 * j1);
        t3 = (v3 - v1) / k1 + t1 - k1 / (2 * j1);
        line = true;
        if (!(t1 >= t0 - 1e-9 && t2 >= t1 - 1e-9 && t3 >= t2 - 1e-9))
            return false;
    }
    bool ok = jseg_add(e, t0, v0, k0, j0, nomem);
    if (line)
        ok = ok && jseg_add(e, t1, v1, k1, 0, nomem);
    ok = ok && jseg_add(e, t2, v2, k1, j1, nomem) && jseg_add(e, t3, v3, 0, 0, nomem);
    e->jend = t3;
    if (!ok)
        e->n_jseg = 0;
    return true;
}

/* Builds entity i's rounded profile from r->t; false when a corner cannot be rounded (two rounds
** would overlap): the caller plays the straight profile (a warning says so). */
static bool jerk_build(sn_xrun *r, int i, bool *nomem)
{
    sn_xent *e = &r->ents[i];
    const sn_xaction *a = e->lon;
    *nomem = false;
    e->n_jseg = 0;
    /* the straight profile's corners: an entry at time 0 is the speed now (esmini's follow) */
    uint32_t n = a->n_prof, m = 1;
    double *bt = malloc((n + 1) * sizeof *bt), *bv = malloc((n + 1) * sizeof *bv);
    if (!bt || !bv) {
        free(bt), free(bv);
        return !(*nomem = true);
    }
    double v_now = e->v, t = r->t;
    bt[0] = t, bv[0] = e->v;
    for (uint32_t k = a->prof_t[0] == 0 ? 1 : 0; k < n; k++) {
        profile_segment(r, i, k, t);
        t += e->lon_T;
        e->v = e->lon_v1;
        if (e->lon_T <= 1e-9) { /* a jump: the corner moves */
            bt[m - 1] = t, bv[m - 1] = e->v;
            continue;
        }
        bt[m] = t, bv[m] = e->v;
        m++;
    }
    e->v = v_now;
    bool ok = true;
    double ja = a->jerk_acc > 0 ? a->jerk_acc : INFINITY, jd = a->jerk_dec > 0 ? a->jerk_dec : INFINITY;
    double k0 = e->a, t3 = bt[0], v3 = bv[0];
    if (m < 2) {
        ok = jseg_add(e, t3, v3, 0, 0, nomem);
        e->jend = t3;
    } else if (m == 2 && isfinite(ja) && isfinite(jd) && jerk_single(r, i, bt, bv, nomem)) {
        ok = !*nomem;
    } else {
        double k1 = (bv[1] - bv[0]) / (bt[1] - bt[0]);
        double j = k1 > k0 ? ja : -jd;
        if (isfinite(j) && fabs(k1 - k0) > 1e-12) {
            double tau = (k1 - k0) / j;
            ok = jseg_add(e, t3, v3, k0, j, nomem);
            v3 += k0 * tau + j * tau * tau / 2;
            t3 += tau;
        }
        ok = ok && jseg_add(e, t3, v3, k1, 0, nomem);
        double kp = k1, mp = v3 - k1 * t3, start = t3;
        e->jend = bt[m - 1];
        for (uint32_t c = 1; c < m && ok; c++) {
            double ki = c + 1 < m ? (bv[c + 1] - bv[c]) / (bt[c + 1] - bt[c]) : 0, mi = bv[c] - ki * bt[c];
            if (fabs(ki - kp) < 1e-12)
                continue;
            j = ki > kp ? ja : -jd;
            double t1 = isfinite(j) ? ((kp - ki) * (kp - ki) + 2 * j * (mi - mp)) / (2 * j * (kp - ki)) : (mi - mp) / (kp - ki);
            if (!(t1 >= start - 1e-9)) {
                ok = false;
                break;
            }
            double v1 = kp * t1 + mp, tau = isfinite(j) ? (ki - kp) / j : 0;
            if (tau > 0)
                ok = jseg_add(e, t1, v1, kp, j, nomem);
            t3 = t1 + tau;
            v3 = v1 + kp * tau + (tau > 0 ? j * tau * tau / 2 : 0);
            ok = ok && jseg_add(e, t3, v3, ki, 0, nomem);
            kp = ki, mp = mi, start = t3;
            if (c + 1 == m)
                e->jend = t3;
        }
    }
    free(bt), free(bv);
    return ok;
}

/* The rounded profile's speed at t and its distance from the action's start to t. */
static void jerk_eval(const sn_xent *e, double t, double *v, double *s)
{
    double dist = 0;
    for (uint32_t k = 0; k < e->n_jseg; k++) {
        const double *q = &e->jseg[4 * k];
        double end = k + 1 < e->n_jseg ? e->jseg[4 * (k + 1)] : INFINITY;
        double tau = fmin(t, end) - q[0];
        if (tau < 0)
            break;
        dist += q[1] * tau + q[2] * tau * tau / 2 + q[3] * tau * tau * tau / 6;
        if (t <= end) {
            *v = q[1] + q[2] * tau + q[3] * tau * tau / 2;
            *s = dist;
            return;
        }
    }
    *v = e->n_jseg ? e->jseg[4 * (e->n_jseg - 1) + 1] : e->v;
    *s = dist;
}

/* A LateralDistanceAction's measure: entity i's displacement toward its reference's left (road t
** when both follow lanes of one road, else in the reference's frame), *axis the sign of i's
** offset axis against that direction. */
static double lat_disp(const sn_xrun *r, int i, const sn_xaction *a, double *axis)
{
    const sn_xent *e = &r->ents[i], *f = &r->ents[a->ref];
    if (e->mode == SN_XM_LANE && f->mode == SN_XM_LANE && e->ri == f->ri) {
        double ti, tj;
        if (sn_xlane_centre(r, e->ri, e->lane, e->s, NULL, &ti) && sn_xlane_centre(r, f->ri, f->lane, f->s, NULL, &tj)) {
            *axis = e->sdir * f->sdir;
            return ((ti + e->sdir * e->off) - (tj + f->sdir * f->off)) * f->sdir;
        }
    }
    /* off the lanes the entity moves sideways along the reference's left itself (axis 1) */
    *axis = e->mode == SN_XM_FREE ? 1 : cos(e->h - f->h) >= 0 ? 1 : -1;
    return -(e->x - f->x) * sin(f->h) + (e->y - f->y) * cos(f->h);
}

/* The change of entity i's lane offset that puts it at its LateralDistanceAction's distance. */
static double lat_dist_error(const sn_xrun *r, int i, const sn_xaction *a)
{
    double axis, L = lat_disp(r, i, a, &axis);
    return (r->ents[i].lat_o1 - L) * axis;
}

/* A SpeedProfileAction: its jerk-limited segments (followingMode follow) or its first linear segment. */
static bool start_speed_profile(sn_xrun *r, int i, int elem, const sn_xaction *a, bool *instant)
{
    sn_xent *e = &r->ents[i];
    e->lon = a;
    e->lon_elem = elem;
    e->lon_tracking = false;
    e->prof_off = a->ref >= 0 ? r->ents[a->ref].v : 0;
    e->n_jseg = 0;
    if (a->prof_follow) {
        bool nomem;
        if (jerk_build(r, i, &nomem)) {
            e->lon_t0 = r->t;
            return true;
        }
        if (nomem)
            return sn_xrun_fail(r, a->line, "SpeedProfileAction: %s", "out of memory");
        e->n_jseg = 0;
        char line[512];
        snprintf(line, sizeof line, "%s:%d: SpeedProfileAction: followingMode follow: two corners of the profile "
                 "are too close to round within the jerk limits: played as followingMode position",
                 r->x->path, a->line);
        if (r->warn)
            r->warn(r->warn_user, line);
    }
    profile_segment(r, i, 0, r->t);
    bool over;
    (void)profile_advance(r, i, r->t, r->t, &over); /* entries reached at once */
    if (over) {
        e->a = 0;
        end_lon(e);
        *instant = true;
    }
    return true;
}

/* A SpeedAction: its target within the entity's Performance, its transition's length. */
static bool start_speed(sn_xrun *r, int i, int elem, const sn_xaction *a, bool *instant)
{
    sn_xent *e = &r->ents[i];
    double v1 = speed_target(r, a);
    if (!isfinite(v1))
        return sn_xrun_fail(r, a->line, "SpeedAction: the target speed is %s", "not finite");
    e->lon = a;
    e->lon_elem = elem;
    e->lon_t0 = r->t;
    e->lon_v0 = e->v;
    e->lon_v1 = v1;
    /* the entity's Performance: the target within maxSpeed, a transition's peak acceleration
    ** within maxAcceleration or maxDeceleration (the transition lengthened, its shape kept;
    ** esmini clamps likewise). A step is a jump and keeps to nothing. */
    const sn_xentity *d = &r->x->ents[i];
    if (d->max_speed > 0 && v1 > d->max_speed)
        v1 = e->lon_v1 = d->max_speed;
    e->lon_T = duration(&a->dyn, e->v, v1, false, e->v);
    double lim = v1 > e->v ? d->max_acc : d->max_dec;
    if (a->dyn.shape != SN_XS_STEP && e->lon_T > 0 && lim > 0) {
        double k = a->dyn.shape == SN_XS_CUBIC ? 1.5 : a->dyn.shape == SN_XS_SINUSOIDAL ? M_PI / 2 : 1;
        double peak = k * fabs(v1 - e->v) / e->lon_T;
        if (peak > lim)
            e->lon_T = k * fabs(v1 - e->v) / lim;
    }
    e->lon_tracking = false;
    if (e->lon_T <= 0) {
        e->v = v1;
        e->a = 0;
        if (!(a->continuous && a->relative)) { /* an absolute target has nothing to follow */
            end_lon(e);
            *instant = true;
        } else {
            e->lon_tracking = true;
        }
    }
    return true;
}

/* A LateralDistanceAction: the displacement wanted from the reference. */
static bool start_lat_dist(sn_xrun *r, int i, int elem, const sn_xaction *a)
{
    sn_xent *e = &r->ents[i];
    if (e->mode != SN_XM_LANE && e->mode != SN_XM_FREE)
        return sn_xrun_fail(r, a->line, "LateralDistanceAction on entity '%s', which follows a trajectory",
                            r->x->ents[i].name);
    if (a->ref == i)
        return sn_xrun_fail(r, a->line, "LateralDistanceAction: entity '%s' is its own reference",
                            r->x->ents[i].name);
    double axis, L = lat_disp(r, i, a, &axis);
    const sn_xentity *di = &r->x->ents[i], *dj = &r->x->ents[a->ref];
    double D = a->has_lane_offset ? a->value + (a->freespace ? (di->wid + dj->wid) / 2 : 0) : fabs(L);
    e->lat = a;
    e->lat_elem = elem;
    e->lat_t0 = r->t;
    e->lat_tracking = false;
    e->lat_by_dist = false;
    e->lat_o1 = (a->side ? a->side : L < 0 ? -1 : 1) * D; /* the displacement wanted */
    if (e->mode == SN_XM_FREE) /* off the lanes: its sideways speed in the reference's frame, now */
        e->lat_rate = e->v * sin(e->h - r->ents[a->ref].h);
    return true;
}

/* A LaneChangeAction or LaneOffsetAction: its target offset and its transition's length. */
static bool start_lateral(sn_xrun *r, int i, int elem, const sn_xaction *a, bool *instant)
{
    sn_xent *e = &r->ents[i];
    if (e->mode != SN_XM_LANE)
        return sn_xrun_fail(r, a->line, "a lateral action on entity '%s', which is on no lane", r->x->ents[i].name);
    double o1;
    e->lat_o0 = e->off;
    if (!lateral_target(r, i, a, &o1))
        return false;
    e->lat_o0 = e->off;
    e->lat = a;
    e->lat_elem = elem;
    e->lat_t0 = r->t;
    e->lat_o1 = o1;
    if (a->kind == SN_XA_LANE_OFFSET) {
        double acc = a->max_lat_acc > 0 ? a->max_lat_acc : 0.5, d = fabs(o1 - e->off);
        /* the peak lateral acceleration of each shape over a transition of length T */
        e->lat_T = a->dyn.shape == SN_XS_STEP ? 0
                   : a->dyn.shape == SN_XS_CUBIC ? sqrt(6 * d / acc)
                   : a->dyn.shape == SN_XS_SINUSOIDAL ? M_PI * sqrt(d / (2 * acc))
                                                      : sqrt(4 * d / acc);
    } else {
        e->lat_T = duration(&a->dyn, e->off, o1, true, e->v);
    }
    e->lat_by_dist = a->kind == SN_XA_LANE_CHANGE && a->dyn.dim == SN_XD_DISTANCE && a->dyn.shape != SN_XS_STEP &&
                     a->dyn.value > 0;
    e->lat_D = a->dyn.value;
    e->lat_prog = 0;
    if (e->lat_T <= 0) {
        e->off = o1;
        lane_pose(r, e);
        if (!(a->continuous && a->relative)) {
            end_lat(e);
            *instant = true;
        } else {
            e->lat_tracking = true;
        }
    }
    return true;
}

/* An AcquirePositionAction: the route to the position, and where it ends. */
static bool start_acquire(sn_xrun *r, int i, int elem, const sn_xaction *a)
{
    sn_xent *e = &r->ents[i];
    double q[4], s, off;
    int32_t ri;
    int lane;
    bool on;
    sn_map_place pl;
    if (!sn_xroute_plan(r, i, &a->pos, 1, a->line) || !sn_xmove_resolve(r, &a->pos, q, &ri, &lane, &s, &off, &on))
        return false;
    if (!sn_map_locate(r->map, (sn_vec3){q[0], -q[1], q[2]}, 5.0, 0, &pl))
        return sn_xrun_fail(r, a->line, "AcquirePositionAction: %s", "the position is on no road");
    e->acq_elem = elem, e->acq_ri = pl.road, e->acq_s = pl.s;
    return true;
}

bool sn_xmove_start(sn_xrun *r, int i, int elem, const sn_xaction *a, bool *instant)
{
    sn_xent *e = &r->ents[i];
    *instant = false;
    if (e->mode == SN_XM_EXTERNAL && a->kind != SN_XA_TELEPORT) {
        *instant = true; /* driven by the autopilot: the storyboard's motion actions pass it by */
        return true;
    }
    switch (a->kind) {
    case SN_XA_TELEPORT:
        *instant = true;
        return sn_xmove_place(r, i, &a->pos);
    case SN_XA_SYNC: /* xosc_sync.c sets its speed each step */
        e->lon = a;
        e->lon_elem = elem;
        e->lon_t0 = r->t;
        e->lon_tracking = true;
        return true;
    case SN_XA_LONG_DIST:
        if (e->mode != SN_XM_LANE && e->mode != SN_XM_FREE)
            return sn_xrun_fail(r, a->line, "LongitudinalDistanceAction on entity '%s', which follows a trajectory",
                                r->x->ents[i].name);
        if (a->ref == i)
            return sn_xrun_fail(r, a->line, "LongitudinalDistanceAction: entity '%s' is its own reference",
                                r->x->ents[i].name);
        e->lon = a;
        e->lon_elem = elem;
        e->lon_t0 = r->t;
        e->lon_tracking = true;
        return true;
    case SN_XA_SPEED_PROFILE:
        return start_speed_profile(r, i, elem, a, instant);
    case SN_XA_SPEED:
        return start_speed(r, i, elem, a, instant);
    case SN_XA_LAT_DIST:
        return start_lat_dist(r, i, elem, a);
    case SN_XA_LANE_CHANGE:
    case SN_XA_LANE_OFFSET:
        return start_lateral(r, i, elem, a, instant);
    case SN_XA_TRAJECTORY:
        return start_trajectory(r, i, elem, a);
    case SN_XA_ROUTE:
        *instant = true;
        return sn_xroute_plan(r, i, a->verts, a->n_verts, a->line);
    case SN_XA_ACQUIRE:
        return start_acquire(r, i, elem, a);
    default:
        *instant = true;
        return true;
    }
}

void sn_xmove_stop(sn_xrun *r, int i, int elem)
{
    sn_xent *e = &r->ents[i];
    if (e->lon_elem == elem)
        end_lon(e);
    if (e->lat_elem == elem)
        end_lat(e);
    if (e->acq_elem == elem)
        e->acq_elem = -2;
    if (e->traj_elem == elem) {
        e->traj = NULL;
        e->traj_elem = -2;
        snap_to_lane(r, e, r->x->ents[i].kind);
    }
}

/* Distance covered by the longitudinal profile from lon_t0 to t. */
static double lon_disp(const sn_xent *e, double t)
{
    double u = t - e->lon_t0;
    if (e->lon_T <= 0)
        return e->lon_v1 * u;
    return e->lon_v0 * u + (e->lon_v1 - e->lon_v0) * e->lon_T * sn_xshape_int(e->lon->dyn.shape, u / e->lon_T);
}

/* Moves a lane-mode entity d metres along its lane centre (negative: back), through successors. */
static void lane_travel(sn_xrun *r, sn_xent *e, double d)
{
    for (int guard = 0; guard < 64; guard++) {
        const sn_odr_road *rd = sn_xrun_road(r, e->ri);
        const sn_odr_section *sec = &rd->sections[e->sec];
        int dir = e->sdir, ldir = sn_map_lane_dir(rd, e->lane);
        double a, b;
        sn_odr_lane_span(rd, sec, e->lane, e->s, &a, &b);
        double t = 0.5 * (a + b) + dir * e->off;
        double k = sn_odr_ref_curvature(rd, e->s), scale = 1 - k * t;
        if (scale < 0.1)
            scale = 0.1;
        double ds = dir * d / scale, s1 = e->s + ds;
        if (s1 >= sec->s && s1 <= sec->s_end) {
            e->s = s1;
            return;
        }
        /* past the section's end: the rest goes on in the lane that follows */
        double edge = ds > 0 ? sec->s_end : sec->s;
        double used = fabs(edge - e->s) * scale;
        sn_lanekey key = {e->ri, e->sec, e->lane}, next[8];
        double ns[8];
        bool forward = (ds > 0) == (ldir > 0); /* with the lane's own direction */
        size_t n = sn_map_successors(r->map, key, forward, next, ns, 8);
        if (n == 0) {
            e->s = edge;
            e->end_of_road = true;
            return;
        }
        size_t pick = sn_xroute_pick(r, e, next, n < 8 ? n : 8, forward);
        e->ri = next[pick].road, e->sec = next[pick].section, e->lane = next[pick].lane, e->s = ns[pick];
        /* moving with (or against) the new lane as with the old one; d keeps its sign */
        e->sdir = sn_map_lane_dir(sn_xrun_road(r, e->ri), e->lane) * (forward ? 1 : -1) * (d > 0 ? 1 : -1);
        d = (d > 0 ? 1 : -1) * (fabs(d) - used);
        if (fabs(d) < 1e-12)
            return;
    }
}

static void trajectory_step(sn_xrun *r, sn_xent *e, bool *done)
{
    const sn_xaction *a = e->traj;
    double d, rem = 0; /* rem: the step's distance left past the path's end */
    if (a->timed) { /* the time along the path: vertex times, scaled and offset */
        double tt = (r->t - (a->t_absolute ? 0 : e->traj_t0)) * 1.0;
        double tv0 = e->tt[0] * a->t_scale + a->t_offset;
        uint32_t k = 0;
        double tk = tt;
        if (!a->t_absolute)
            tk += tv0;
        while (k + 1 < e->tn && e->tt[k + 1] * a->t_scale + a->t_offset <= tk)
            k++;
        double t_end = e->tt[e->tn - 1] * a->t_scale + a->t_offset;
        if (k + 1 >= e->tn) {
            d = e->tcum[e->tn - 1];
        } else {
            double ta = e->tt[k] * a->t_scale + a->t_offset, tb = e->tt[k + 1] * a->t_scale + a->t_offset;
            double f = tb > ta ? (tk - ta) / (tb - ta) : 1;
            d = e->tcum[k] + fmax(0, fmin(1, f)) * (e->tcum[k + 1] - e->tcum[k]);
        }
        if (tk > t_end + 1e-9) { /* past the last vertex's time: esmini keeps the last step's speed and
                                  ** moves the time left at it (FollowTrajectoryAction::Step, Move) */
            rem = (tk - t_end) * e->v;
        } else {
            double dd = d - e->traj_d;
            e->v = r->dt > 0 ? dd / r->dt : 0;
        }
    } else {
        d = e->traj_d + e->traj_hsign * e->v * r->dt;
        if (d > e->tcum[e->tn - 1])
            rem = d - e->tcum[e->tn - 1];
    }
    double total = e->tcum[e->tn - 1];
    e->odo += fabs(fmin(d, total) - e->traj_d) + fabs(rem);
    e->traj_d = d;
    if (d >= total - 1e-9) {
        d = total;
        *done = true;
    } else if (!a->timed && d <= 1e-9 && e->traj_hsign * e->v < 0) { /* back past its start (esmini ends it) */
        d = 0;
        *done = true;
    }
    uint32_t k = 0;
    while (k + 2 < e->tn && e->tcum[k + 1] < d)
        k++;
    double seg = e->tcum[k + 1] - e->tcum[k], f = seg > 0 ? (d - e->tcum[k]) / seg : 1;
    const double *p = &e->tv[3 * k], *q = &e->tv[3 * k + 3];
    e->x = p[0] + f * (q[0] - p[0]);
    e->y = p[1] + f * (q[1] - p[1]);
    e->z = p[2] + f * (q[2] - p[2]);
    if (rem != 0) { /* the rest of the step along the path's final heading, z kept (esmini's Step) */
        e->x += rem * cos(e->th[e->tn - 1]);
        e->y += rem * sin(e->th[e->tn - 1]);
    }
    if (seg > 0) { /* the segment itself: what coordinateSystem trajectory measures against */
        e->traj_sh = atan2(q[1] - p[1], q[0] - p[0]);
        e->traj_sp = -atan2(q[2] - p[2], seg);
    }
    const double *th = e->th, *tp = e->tp;
    if (!e->traj_corner) { /* turned over the whole segment */
        e->h = ang_diff(th[k] + f * ang_diff(th[k + 1], th[k]) + (e->traj_hsign < 0 && !e->traj_hgiven ? M_PI : 0), 0); /* (-pi, pi] */
        e->traj_p = tp[k] + f * (tp[k + 1] - tp[k]);
        return;
    }
    /* aligned with the segment, turned within min(2 m, half the segment) of its corners, half
    ** before and half after (esmini's PolyLineBase::EvaluateSegmentByLocalS, INTERPOLATE_CORNER) */
    double ls = d - e->tcum[k], rad = fmin(2.0, seg / 2);
    e->h = th[k], e->traj_p = tp[k];
    if (ls < rad && k > 0) {
        double w = (rad + ls) / (2 * rad);
        e->h = th[k - 1] + w * ang_diff(th[k], th[k - 1]);
        e->traj_p = tp[k - 1] + w * (tp[k] - tp[k - 1]);
    } else if (ls > seg - rad && rad > 0) {
        double w = k + 2 < e->tn ? (rad + (seg - ls)) / (2 * rad) : (seg - ls) / rad;
        e->h = th[k] + (1 - w) * ang_diff(th[k + 1], th[k]);
        e->traj_p = tp[k] + (1 - w) * (tp[k + 1] - tp[k]);
    }
    e->h = ang_diff(e->h + (e->traj_hsign < 0 && !e->traj_hgiven ? M_PI : 0), 0); /* given headings as given */
}

/* The storyboard elements that ended this step: sn_xmove_advance's out-list of cap entries. */
typedef struct ended_list {
    int *elems;
    uint32_t cap, *n;
} ended_list;

static void ended_add(ended_list *l, int elem)
{
    if (*l->n < l->cap)
        l->elems[(*l->n)++] = elem;
}

/* Entity i's longitudinal action over the step from t0 to t: its speed, and the distance it
** covers in *dist. False when a SynchronizeAction fails. */
static bool advance_lon(sn_xrun *r, uint32_t i, double t0, double t, ended_list *el, double *dist_out)
{
    sn_xent *e = &r->ents[i];
    double dist;
    if (e->lon && e->lon->kind == SN_XA_SPEED_PROFILE && e->n_jseg) {
        double s0, s1, v0;
        jerk_eval(e, fmax(t0, e->lon_t0), &v0, &s0);
        jerk_eval(e, t, &e->v, &s1);
        dist = s1 - s0;
        if (t >= e->jend - 1e-9) {
            ended_add(el, e->lon_elem);
            end_lon(e);
            e->n_jseg = 0;
        }
    } else if (e->lon && e->lon->kind == SN_XA_SPEED_PROFILE) {
        bool over;
        dist = profile_advance(r, (int)i, t0, t, &over);
        if (over) {
            ended_add(el, e->lon_elem);
            end_lon(e);
        }
    } else if (e->lon && !e->lon_tracking && e->lon->kind == SN_XA_SPEED && e->lon->relative &&
               e->lon->dyn.dim == SN_XD_RATE && e->lon->dyn.shape == SN_XS_LINEAR) {
        /* a relative target at a rate: the speed moves at the rate (within the Performance's
        ** accelerations) toward the reference's speed now, not the one at the start, and the
        ** transition ends when it reaches it (esmini re-aims a relative target every step,
        ** OSCPrivateAction.cpp LongSpeedAction::Step; repeated_relative_speed.xosc) */
        const sn_xentity *d = &r->x->ents[i];
        double v1 = speed_target(r, e->lon);
        if (d->max_speed > 0 && v1 > d->max_speed)
            v1 = d->max_speed;
        double rate = fabs(e->lon->dyn.value), lim = v1 > e->v ? d->max_acc : d->max_dec;
        if (lim > 0 && lim < rate)
            rate = lim;
        double step = rate * r->dt, v0 = e->v;
        bool reached = fabs(v1 - v0) <= step + 1e-12;
        e->v = reached ? v1 : v0 + (v1 > v0 ? step : -step);
        dist = (v0 + e->v) / 2 * r->dt;
        if (reached) {
            e->lon_v1 = v1;
            if (e->lon->continuous) {
                e->lon_tracking = true;
            } else {
                ended_add(el, e->lon_elem);
                end_lon(e);
            }
        }
    } else if (e->lon && !e->lon_tracking) {
        double te = e->lon_t0 + e->lon_T;
        if (t >= te - 1e-9) {
            dist = lon_disp(e, te) - lon_disp(e, fmax(t0, e->lon_t0)) + e->lon_v1 * (t - te);
            e->v = e->lon_v1;
            if (e->lon->continuous && e->lon->relative) {
                e->lon_tracking = true;
            } else {
                ended_add(el, e->lon_elem);
                end_lon(e);
            }
        } else {
            dist = lon_disp(e, t) - lon_disp(e, fmax(t0, e->lon_t0));
            e->v = e->lon_v0 + (e->lon_v1 - e->lon_v0) * sn_xshape_f(e->lon->dyn.shape, (t - e->lon_t0) / e->lon_T);
        }
    } else if (e->lon && e->lon->kind == SN_XA_SYNC) {
        bool over;
        if (!sn_xsync_step(r, (int)i, &dist, &over))
            return false;
        if (over) {
            ended_add(el, e->lon_elem);
            end_lon(e);
        }
    } else if (e->lon && e->lon->kind == SN_XA_LONG_DIST) {
        /* the gap: without DynamicConstraints kept exactly (the entity moves with its
        ** reference, the error closed at once); with them, approached at a speed that closes
        ** the error in about a second, within the accelerations and the speed limit */
        const sn_xaction *la = e->lon;
        double err = gap_error(r, (int)i, la), vref = r->ents[la->ref].v;
        bool ref_moved = la->ref < (int)i; /* entities advance in order: it has, this step */
        if (!la->has_limits) {
            e->v = vref;
            dist = (ref_moved ? 0 : vref * r->dt) + err;
        } else {
            double want = fmin(la->lim_speed, fmax(0, vref + err));
            double dv = fmax(-la->lim_dec * r->dt, fmin(la->lim_acc * r->dt, want - e->v));
            e->v += dv;
            dist = e->v * r->dt;
        }
        if (!la->continuous && fabs(err) < 0.01 + 1e-9 && fabs(e->v - vref) < 0.01) {
            ended_add(el, e->lon_elem);
            end_lon(e);
        }
    } else {
        if (e->lon && e->lon_tracking) /* a continuous relative target follows its entity */
            e->v = speed_target(r, e->lon);
        dist = e->v * r->dt;
    }
    *dist_out = dist;
    return true;
}

/* Entity i's lateral action at t (the entity covering dist along its way this step): its offset.
** *lat_over when the action reached its target in this step. */
static void advance_lat(sn_xrun *r, uint32_t i, double t, double dist, double off_prev, ended_list *el, bool *lat_over)
{
    sn_xent *e = &r->ents[i];
    if (e->lat && e->lat->kind == SN_XA_LAT_DIST) {
        /* without DynamicConstraints the distance is kept exactly (rigid); with them the
        ** offset moves at the speed from which it can still stop at the target within
        ** maxDeceleration (else maxAcceleration), within maxSpeed, changing at most
        ** maxAcceleration */
        const sn_xaction *la = e->lat;
        double err = lat_dist_error(r, (int)i, la), u = e->lat_rate;
        if (!la->has_limits) {
            e->off += err;
            u = 0;
        } else {
            double acc = la->lim_acc > 0 ? la->lim_acc : INFINITY, dec = la->lim_dec > 0 ? la->lim_dec : acc;
            double vmax = la->lim_speed > 0 ? la->lim_speed : INFINITY;
            if (e->mode == SN_XM_FREE) /* off the lanes its sideways speed is part of its speed */
                vmax = fmin(vmax, fabs(e->v));
            double want = (err < 0 ? -1 : 1) * fmin(vmax, fmin(fabs(err) / r->dt, isfinite(dec) ? sqrt(2 * dec * fabs(err)) : INFINITY));
            u += fmax(-acc * r->dt, fmin(acc * r->dt, want - u));
            e->off += u * r->dt;
        }
        /* a non-continuous one ends within 1 cm and still; rigid, as esmini measures it, by the
        ** error before the step's move: in the step after the one that put it there
        ** (OSCPrivateAction.cpp LatDistanceAction::Step, MOVE_RIGID) */
        double resid = la->has_limits ? err - (e->off - off_prev) : err;
        if (!la->continuous && fabs(resid) < 0.01 + 1e-9 && fabs(u) < 0.01) {
            *lat_over = true;
            ended_add(el, e->lat_elem);
            end_lat(e);
        }
    } else if (e->lat && !e->lat_tracking) {
        /* a lane change moves only an entity that moves: standing (below esmini's SMALL_NUMBER,
        ** 1e-6 m/s), its clock waits (esmini's LatLaneChangeAction::Step returns then) */
        if (e->lat->kind == SN_XA_LANE_CHANGE && !e->lat_by_dist && fabs(e->v) < 1e-6)
            e->lat_t0 += r->dt;
        double te = e->lat_t0 + e->lat_T, tau = e->lat_T > 0 ? (t - e->lat_t0) / e->lat_T : 1;
        if (e->lat_by_dist) { /* by the distance along the lane, this step's estimated from the last one's sideways motion */
            double side = e->lat_rate * r->dt;
            tau = (e->lat_prog + sqrt(fmax(0, dist * dist - side * side))) / e->lat_D;
        }
        e->off = e->lat_o0 + (e->lat_o1 - e->lat_o0) * sn_xshape_f(e->lat->dyn.shape, tau);
        if (e->lat_by_dist ? tau >= 1 - 1e-9 : t >= te - 1e-9) {
            e->off = e->lat_o1;
            *lat_over = true;
            if (e->lat->continuous && e->lat->relative) {
                e->lat_tracking = true;
            } else {
                ended_add(el, e->lat_elem);
                end_lat(e);
            }
        }
    } else if (e->lat && e->lat_tracking && e->lat->kind == SN_XA_LANE_OFFSET && e->lat->relative) {
        double o1;
        if (lateral_target(r, (int)i, e->lat, &o1))
            e->off = o1;
    }
}

/* Entity i moved by dist along its way and to its new offset: on its lane, its trajectory, or the
** plane (lat_act: the lateral action of this step, though it may have ended in it). */
static void move_entity(sn_xrun *r, uint32_t i, double dist, double off_prev, const sn_xaction *lat_act, bool lat_over,
                        double lat_rate, ended_list *el)
{
    sn_xent *e = &r->ents[i];
    if (e->mode == SN_XM_LANE) {
        bool was_eor = e->end_of_road;
        if (!e->end_of_road)
            lane_travel(r, e, dist);
        /* at a road's end it stops; its speed is 0 from the step after it arrived (esmini
        ** zeroes it once the entity has not moved for a step, ScenarioEngine::step), so a
        ** teleport on EndOfRoadCondition duration 0 keeps it going (lane_change_simple) */
        if (e->end_of_road) {
            if (was_eor)
                e->v = 0;
            dist = 0;
        }
        lane_pose(r, e);
        e->odo += hypot(dist, e->off - off_prev);
        if (e->acq_elem != -2 && e->ri == e->acq_ri && (e->s - e->acq_s) * e->sdir >= 0) { /* the position reached */
            ended_add(el, e->acq_elem);
            e->acq_elem = -2;
        }
        /* a lane change ends where the road does (esmini's LatLaneChangeAction::Step at
        ** POS_STATUS_END_OF_ROAD), the entity heading as it moved (route_lane_change) */
        if (e->end_of_road && !was_eor && e->lat && e->lat == lat_act && lat_act->kind == SN_XA_LANE_CHANGE) {
            ended_add(el, e->lat_elem);
            end_lat(e);
            lat_over = true;
        }
        e->lat_rate = lat_over ? 0 : lat_rate;
    } else if (e->mode == SN_XM_TRAJ) {
        bool done = false;
        trajectory_step(r, e, &done);
        if (done) {
            ended_add(el, e->traj_elem);
            e->traj = NULL;
            e->traj_elem = -2;
            snap_to_lane(r, e, r->x->ents[i].kind);
        }
    } else if (lat_act && lat_act->kind == SN_XA_LAT_DIST) {
        /* off the lanes, a LateralDistanceAction moves the entity in its reference's frame:
        ** sideways along the reference's left by the offset's change, forward along the
        ** reference's heading by what its speed leaves (its speed is along its heading, as in
        ** a lane change), heading where it moves (lat_dist_entity.xosc, which has no road) */
        double hf = r->ents[lat_act->ref].h, du = e->off - off_prev;
        double fwd = (dist < 0 ? -1 : 1) * sqrt(fmax(0, dist * dist - du * du));
        e->x += fwd * cos(hf) - du * sin(hf);
        e->y += fwd * sin(hf) + du * cos(hf);
        if (fwd != 0 || du != 0) {
            e->h = ang_diff(hf + atan2(du, fwd), 0);
            e->z = ground_z(r, e->x, e->y, e->z);
        }
        e->odo += hypot(fwd, du);
    } else if (e->lon && e->lon->kind == SN_XA_LONG_DIST) {
        /* off the lanes, a LongitudinalDistanceAction moves it along its reference's heading,
        ** its own heading and height kept (drop-bike.xosc: a bike lying on its truck) */
        double hf = r->ents[e->lon->ref].h;
        e->x += dist * cos(hf);
        e->y += dist * sin(hf);
        e->odo += fabs(dist);
    } else {
        e->x += dist * cos(e->h);
        e->y += dist * sin(e->h);
        if (dist != 0)
            e->z = ground_z(r, e->x, e->y, e->z);
        e->odo += fabs(dist);
    }
}

bool sn_xmove_advance(sn_xrun *r, int *ended, uint32_t cap, uint32_t *n_ended)
{
    *n_ended = 0;
    ended_list el = {ended, cap, n_ended};
    const double t = r->t, t0 = t - r->dt;
    for (uint32_t i = 0; i < r->x->n_ents; i++) {
        sn_xent *e = &r->ents[i];
        if (e->eor_stale) /* placed since the last step: no more at the end of a road */
            e->end_of_road = e->eor_stale = false;
        if (e->mode == SN_XM_EXTERNAL || r->x->ents[i].kind == SN_XEN_MISC || e->absent)
            continue;
        double v_prev = e->v, dist;
        if (!advance_lon(r, i, t0, t, &el, &dist))
            return false;
        e->a = r->dt > 0 ? (e->v - v_prev) / r->dt : 0;
        /* lateral */
        double off_prev = e->off;
        bool lat_over = false;
        const sn_xaction *lat_act = e->lat; /* this step's, though it may end in it */
        advance_lat(r, i, t, dist, off_prev, &el, &lat_over);
        e->lat_rate = r->dt > 0 ? (e->off - off_prev) / r->dt : 0;
        if (e->mode == SN_XM_LANE && e->off != off_prev && lat_act && lat_act->kind == SN_XA_LANE_CHANGE) {
            /* a lane change's speed is along the heading: moving sideways takes from the progress
            ** along the lane, the path's length per step stays v dt (esmini moves so; its lane
            ** offsets, not: the progress along the lane stays v dt) */
            double lat = e->off - off_prev;
            dist = (dist < 0 ? -1 : 1) * sqrt(fmax(0, dist * dist - lat * lat));
        }
        if (e->lat && e->lat_by_dist)
            e->lat_prog += fabs(dist);
        double lat_rate = e->lat_rate;
        if (lat_over) /* the lane reached: the entity heads along it (esmini's) */
            e->lat_rate = 0;
        move_entity(r, i, dist, off_prev, lat_act, lat_over, lat_rate, &el);
        double tpitch = e->traj_hsign * e->traj_p; /* facing backwards, nose down is the path rising */
        entity_tilt(r, e, e->mode == SN_XM_TRAJ && e->traj_pitched ? &tpitch : NULL);
        if (r->map && r->need_offroad && e->mode != SN_XM_LANE) { /* on a lane, never off the road */
            sn_map_place pl;
            e->offroad = !(sn_map_locate(r->map, (sn_vec3){e->x, -e->y, e->z}, 2.0, SN_LANE_ANY & ~SN_LANE_NONE, &pl) &&
                           pl.outside <= 0);
        }
    }
    return !r->failed;
}

void sn_xmove_box(const sn_xrun *r, int i, double c[4][2])
{
    const sn_xent *e = &r->ents[i];
    const sn_xentity *d = &r->x->ents[i];
    double ch = cos(e->h), sh = sin(e->h);
    double cx = e->x + ch * d->cx - sh * d->cy, cy = e->y + sh * d->cx + ch * d->cy;
    double hl = d->len / 2, hw = d->wid / 2;
    const double u[4][2] = {{hl, -hw}, {hl, hw}, {-hl, hw}, {-hl, -hw}};
    for (int k = 0; k < 4; k++) {
        c[k][0] = cx + ch * u[k][0] - sh * u[k][1];
        c[k][1] = cy + sh * u[k][0] + ch * u[k][1];
    }
}

static double seg_point(const double p[2], const double a[2], const double b[2])
{
    double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy;
    double f = l2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2 : 0;
    f = fmax(0, fmin(1, f));
    return hypot(p[0] - (a[0] + f * dx), p[1] - (a[1] + f * dy));
}

/* Separating axes of two convex quadrilaterals: true when they overlap. */
static bool boxes_overlap(const double a[4][2], const double b[4][2])
{
    const double (*q[2])[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 4; k++) {
            double nx = -(q[s][(k + 1) % 4][1] - q[s][k][1]), ny = q[s][(k + 1) % 4][0] - q[s][k][0];
            double amin = INFINITY, amax = -INFINITY, bmin = INFINITY, bmax = -INFINITY;
            for (int j = 0; j < 4; j++) {
                double pa = a[j][0] * nx + a[j][1] * ny, pb = b[j][0] * nx + b[j][1] * ny;
                amin = fmin(amin, pa), amax = fmax(amax, pa), bmin = fmin(bmin, pb), bmax = fmax(bmax, pb);
            }
            if (amax < bmin || bmax < amin)
                return false;
        }
    return true;
}

double sn_xbox_distance(const double a[4][2], const double b[4][2])
{
    if (boxes_overlap(a, b))
        return 0;
    double d = INFINITY;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            d = fmin(d, seg_point(a[i], b[j], b[(j + 1) % 4]));
            d = fmin(d, seg_point(b[j], a[i], a[(i + 1) % 4]));
        }
    return d;
}
