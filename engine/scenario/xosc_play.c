/* xosc_play.c — the storyboard: element states and transitions as OpenSCENARIO 1.2 defines
** them (standbyState, runningState, completeState; start, end, stop and skip transitions),
** triggers (condition groups: an OR of ANDs) with edges and delays, and the storyboard log.
**
** A step: entities move to the new time (xosc_move.c); action instances that finished end;
** the storyboard's StopTrigger, then each Act's Start/StopTrigger and each standby Event's
** StartTrigger are evaluated on the state at the new time, in document order; what starts acts
** from the next step on. Completion goes up the tree (actions -> event -> maneuver -> group ->
** act -> story) in the same step. Triggers are evaluated only while their element waits on them,
** so an edge is an edge seen while waiting. */
#include "xosc_pos.h"

#include "../core/util.h"
#include "../map/lanemap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static const char *const KIND_NAMES[] = {"Storyboard", "Story", "Act", "ManeuverGroup", "Maneuver", "Event", "Action"};
static const char *const STATE_NAMES[] = {"standbyState", "runningState", "completeState"};
/* "reset": completeState back to standbyState (an event or maneuver group that runs again);
** the standard names no transition for it. */
static const char *const TRANS_NAMES[] = {"startTransition", "endTransition", "stopTransition", "skipTransition", "reset"};
static const char *const COND_NAMES[] = {"SimulationTimeCondition", "StoryboardElementStateCondition",
                                         "ParameterCondition", "SpeedCondition", "RelativeSpeedCondition",
                                         "AccelerationCondition", "ReachPositionCondition", "DistanceCondition",
                                         "RelativeDistanceCondition", "TimeHeadwayCondition",
                                         "TimeToCollisionCondition", "TraveledDistanceCondition",
                                         "StandStillCondition", "CollisionCondition", "EndOfRoadCondition",
                                         "OffroadCondition", "TrafficSignalCondition",
                                         "TrafficSignalControllerCondition", "AngleCondition",
                                         "RelativeAngleCondition"};
static const char *const RULE_NAMES[] = {"greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual", "notEqualTo"};
static const char *const EDGE_NAMES[] = {"none", "rising", "falling", "risingOrFalling"};

const char *sn_xelem_kind_name(sn_xelem_kind k) { return KIND_NAMES[k]; }
const char *sn_xstate_name(sn_xstate s) { return STATE_NAMES[s]; }
const char *sn_xcond_kind_name(sn_xcond_kind k) { return COND_NAMES[k]; }
const char *sn_xrule_name(sn_xrule r) { return RULE_NAMES[r]; }

bool sn_xrule_eval(sn_xrule r, double a, double b)
{
    switch (r) {
    case SN_XR_GT: return a > b;
    case SN_XR_LT: return a < b;
    case SN_XR_EQ: return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
    case SN_XR_GE: return a >= b;
    case SN_XR_LE: return a <= b;
    case SN_XR_NE: return fabs(a - b) > 1e-9 * fmax(1, fabs(b));
    }
    return false;
}

/* ---- the log ---- */

static void log_head(sn_xrun *r, uint32_t n_more, const char *event)
{
    sn_pack_buf *b = &r->log;
    sn_pack_map(b, 4 + n_more);
    sn_pack_cstr(b, "frame"), sn_pack_uint(b, r->frame);
    sn_pack_cstr(b, "timestamp"), sn_pack_double(b, r->t);
    sn_pack_cstr(b, "sensor"), sn_pack_cstr(b, "storyboard");
    sn_pack_cstr(b, "event"), sn_pack_cstr(b, event);
    r->n_log++;
}

static void log_transition(sn_xrun *r, int el, sn_xstate from, sn_xstate to, int trans)
{
    sn_pack_buf *b = &r->log;
    log_head(r, 5, "transition");
    sn_pack_cstr(b, "element"), sn_pack_cstr(b, r->x->elems[el].name);
    sn_pack_cstr(b, "kind"), sn_pack_cstr(b, KIND_NAMES[r->x->elems[el].kind]);
    sn_pack_cstr(b, "from"), sn_pack_cstr(b, STATE_NAMES[from]);
    sn_pack_cstr(b, "to"), sn_pack_cstr(b, STATE_NAMES[to]);
    sn_pack_cstr(b, "transition"), sn_pack_cstr(b, TRANS_NAMES[trans]);
}

static void log_condition(sn_xrun *r, const sn_xcond *c, int owner)
{
    sn_pack_buf *b = &r->log;
    log_head(r, 8, "condition");
    sn_pack_cstr(b, "element"), sn_pack_cstr(b, c->name);
    sn_pack_cstr(b, "kind"), sn_pack_cstr(b, COND_NAMES[c->kind]);
    sn_pack_cstr(b, "edge"), sn_pack_cstr(b, EDGE_NAMES[c->edge]);
    sn_pack_cstr(b, "measured"), sn_pack_double(b, c->measured);
    sn_pack_cstr(b, "rule"), sn_pack_cstr(b, RULE_NAMES[c->rule]);
    sn_pack_cstr(b, "value"), sn_pack_double(b, c->value);
    sn_pack_cstr(b, "delay"), sn_pack_double(b, c->delay);
    sn_pack_cstr(b, "trigger_of"), sn_pack_cstr(b, r->x->elems[owner].name);
}

static void warn_once(sn_xrun *r, const char *line)
{
    if (r->warn)
        r->warn(r->warn_user, line);
}

/* ---- states ---- */

static void transition(sn_xrun *r, int el, sn_xstate to, int trans)
{
    sn_xelem *e = &r->x->elems[el];
    sn_xstate from = e->state;
    e->state = to;
    e->trans_seq[trans] = ++r->seq;
    log_transition(r, el, from, to, trans);
}

static bool start_actions(sn_xrun *r, int ev);
static void lightq_drop(sn_xrun *r, uint32_t k);

/* Every element below el (and el) that is not complete stops: stopTransition to completeState. */
static void stop_tree(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    for (uint32_t k = 0; k < e->n_children; k++)
        stop_tree(r, e->children[k]);
    if (e->kind == SN_XK_ACTION && e->state == SN_XST_RUNNING) {
        for (uint32_t i = 0; i < r->x->n_ents; i++)
            sn_xmove_stop(r, (int)i, el);
        for (uint32_t k = 0; k < r->n_lightq; k++)
            if (r->lightq[k].elem == el)
                lightq_drop(r, k--);
        e->running = 0;
    }
    if (r->x->elems[el].state != SN_XST_COMPLETE)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_STOP);
}

/* An element enters runningState; its children follow as the standard says: maneuver groups,
** maneuvers and stories run with their parent; acts and events wait in standby for a trigger. */
static bool start_elem(sn_xrun *r, int el)
{
    transition(r, el, SN_XST_RUNNING, SN_XTR_START);
    sn_xelem *e = &r->x->elems[el];
    e->exec++;
    for (uint32_t k = 0; k < e->n_children; k++) {
        int c = e->children[k];
        sn_xelem *ce = &r->x->elems[c];
        ce->exec = ce->kind == SN_XK_EVENT || ce->kind == SN_XK_MGROUP ? ce->exec : 0;
        if (ce->state != SN_XST_STANDBY) /* a group that runs again: its children start afresh */
            transition(r, c, SN_XST_STANDBY, SN_XTR_RESET);
        if (ce->kind == SN_XK_MGROUP || ce->kind == SN_XK_MANEUVER || (ce->kind == SN_XK_ACT && ce->start < 0) ||
            ce->kind == SN_XK_STORY) {
            if (!start_elem(r, c))
                return false;
        }
    }
    if (e->kind == SN_XK_EVENT)
        return start_actions(r, el);
    return true;
}

/* ---- conditions ---- */

static double ent_dist(sn_xrun *r, int a, int b, bool freespace, sn_xrdt rdt)
{
    const sn_xent *ea = &r->ents[a], *eb = &r->ents[b];
    if (rdt == SN_XRD_EUCLIDEAN) {
        if (!freespace)
            return hypot(eb->x - ea->x, eb->y - ea->y);
        double ca[4][2], cb[4][2];
        sn_xmove_box(r, a, ca);
        sn_xmove_box(r, b, cb);
        return sn_xbox_distance(ca, cb);
    }
    /* in a's frame: x forward, y left */
    double ch = cos(ea->h), sh = sin(ea->h), dx = eb->x - ea->x, dy = eb->y - ea->y;
    double lon = ch * dx + sh * dy, lat = -sh * dx + ch * dy;
    double v = rdt == SN_XRD_LONGITUDINAL ? lon : lat;
    if (!freespace)
        return fabs(v);
    /* freespace: less the boxes' extents along that axis (b's box projected on a's axes) */
    const sn_xentity *da = &r->x->ents[a], *db = &r->x->ents[b];
    double rel = eb->h - ea->h, cr = fabs(cos(rel)), sr = fabs(sin(rel));
    double b_ext = rdt == SN_XRD_LONGITUDINAL ? cr * db->len / 2 + sr * db->wid / 2 : sr * db->len / 2 + cr * db->wid / 2;
    double a_c = rdt == SN_XRD_LONGITUDINAL ? da->cx : da->cy;
    double a_ext = rdt == SN_XRD_LONGITUDINAL ? da->len / 2 : da->wid / 2;
    /* centre of b's box in a's frame */
    double bcx = eb->x + cos(eb->h) * db->cx - sin(eb->h) * db->cy - ea->x;
    double bcy = eb->y + sin(eb->h) * db->cx + cos(eb->h) * db->cy - ea->y;
    double c = rdt == SN_XRD_LONGITUDINAL ? ch * bcx + sh * bcy : -sh * bcx + ch * bcy;
    return fmax(0, fabs(c - a_c) - a_ext - b_ext);
}

static double pos_dist(sn_xrun *r, int a, const sn_xpos *p, bool freespace, sn_xrdt rdt, bool *ok)
{
    double q[4], s, off;
    int32_t ri;
    int lane;
    bool on;
    *ok = sn_xmove_resolve(r, p, q, &ri, &lane, &s, &off, &on);
    if (!*ok)
        return 0;
    const sn_xent *e = &r->ents[a];
    double dx = q[0] - e->x, dy = q[1] - e->y;
    if (rdt == SN_XRD_EUCLIDEAN && !freespace)
        return hypot(dx, dy);
    double ch = cos(e->h), sh = sin(e->h);
    if (rdt == SN_XRD_EUCLIDEAN) {
        double c[4][2];
        sn_xmove_box(r, a, c);
        const double pt[4][2] = {{q[0], q[1]}, {q[0], q[1]}, {q[0], q[1]}, {q[0], q[1]}};
        return sn_xbox_distance(c, pt);
    }
    double lon = ch * dx + sh * dy, lat = -sh * dx + ch * dy;
    const sn_xentity *d = &r->x->ents[a];
    if (rdt == SN_XRD_LONGITUDINAL)
        return freespace ? fmax(0, fabs(lon - d->cx) - d->len / 2) : fabs(lon);
    return freespace ? fmax(0, fabs(lat - d->cy) - d->wid / 2) : fabs(lat);
}

/* Whether entity i collides with the condition's target (an entity, or any of a type). */
static bool collides(sn_xrun *r, int i, int ref, double *other)
{
    uint32_t n = r->x->n_ents;
    for (uint32_t j = 0; j < n; j++) {
        if ((int)j == i || !r->collide[(size_t)i * n + j])
            continue;
        if (ref >= 0 ? (int)j == ref : (int)r->x->ents[j].kind == -2 - ref) {
            *other = j;
            return true;
        }
    }
    return false;
}

/* The rule of an entity condition for entity i; *m the measured value. */
/* Entity i's heading, pitch or roll (c->angle_type) in c's coordinate system: world (and entity,
** for RelativeAngleCondition: the entities' own angles, compared) as it is; lane (the lane's
** direction of travel) and road (the reference line's direction) less the road's own angle there
** (trajectory: less the direction and pitch of the trajectory segment the entity is on; false
** when it follows none). Pitch is
** positive nose down and roll right side down (ISO 8855, OpenSCENARIO's): in world the entity's
** own (the road's surface along its heading, or its trajectory's pitch), in road and lane less
** the road's own along the reference line's (the lane's) direction. false: on no road where the
** system needs one. */
static bool entity_angle(sn_xrun *r, const sn_xcond *c, int i, double *out)
{
    const sn_xent *e = &r->ents[i];
    if (c->angle_cs == 3) { /* against the segment it follows (esmini's h_true); false when it follows none */
        if (e->mode != SN_XM_TRAJ)
            return false;
        *out = c->angle_type == 0 ? e->h - e->traj_sh : c->angle_type == 1 ? e->pitch - e->traj_sp : e->roll;
        return true;
    }
    sn_map_place pl;
    bool on_road = r->map && sn_map_locate(r->map, (sn_vec3){e->x, -e->y, e->z}, 2.0, 0, &pl);
    bool world = c->angle_cs == 4 || c->angle_cs == 0;
    if (!world && !on_road)
        return false;
    double rh = 0, rp = 0, rr = 0;
    if (!world) {
        const sn_odr_road *rd = &r->map->odr->roads[pl.road];
        double flip = (c->angle_cs == 1 || c->angle_cs == 3) && sn_map_lane_dir(rd, pl.lane) < 0 ? M_PI : 0;
        rh = sn_odr_ref_line(rd, pl.s).hdg + flip;
        sn_xroad_tilt(rd, pl.s, flip, &rp, &rr);
    }
    switch (c->angle_type) {
    case 0: *out = e->h - rh; break;
    case 1: *out = e->pitch - rp; break;
    default: *out = e->roll - rr; break;
    }
    return true;
}

static bool entity_rule(sn_xrun *r, sn_xcond *c, uint32_t k, double *m)
{
    int i = c->trig[k];
    const sn_xent *e = &r->ents[i];
    bool ok = true;
    switch (c->kind) {
    case SN_XC_SPEED: *m = e->v; break;
    case SN_XC_REL_SPEED: {
        /* with a direction: the triggering entity's velocity along the reference's x (y) axis, less
        ** the reference's own speed that way (esmini's TrigByRelativeSpeed, OSCCondition.cpp) */
        const sn_xent *f = &r->ents[c->ref];
        double dh = e->h - f->h;
        *m = c->direction == 1 ? e->v * cos(dh) - f->v : c->direction == 2 ? e->v * sin(dh) : e->v - f->v;
        break;
    }
    case SN_XC_ACCEL: *m = e->a; break;
    case SN_XC_TRAVELED: *m = e->odo; break;
    case SN_XC_REACH:
        *m = pos_dist(r, i, &c->pos, false, SN_XRD_EUCLIDEAN, &ok);
        if (ok && c->pos.has_h) { /* an Orientation: the heading within 0.05 rad too (esmini's TrigByReachPosition) */
            double q[4], s, off;
            int32_t ri;
            int lane;
            bool on;
            if ((ok = sn_xmove_resolve(r, &c->pos, q, &ri, &lane, &s, &off, &on)) && fabs(remainder(e->h - q[3], 2 * M_PI)) >= 0.05)
                *m = INFINITY;
        }
        break;
    case SN_XC_DISTANCE: *m = pos_dist(r, i, &c->pos, c->freespace, c->rdt, &ok); break;
    case SN_XC_REL_DISTANCE:
        *m = c->rdt == SN_XRD_LONGITUDINAL ? fabs(sn_xent_long(r, i, c->ref, c->freespace, c->road_cs))
                                           : ent_dist(r, i, c->ref, c->freespace, c->rdt);
        break;
    case SN_XC_HEADWAY: {
        /* the gap to the entity over the triggering entity's speed: negative when it is behind
        ** (as esmini measures it); standing still, infinitely far either way. Between reference
        ** points in the entity's frame the gap is esmini's default relativeDistanceType,
        ** euclidianDistance (Position::getRelativeDistance: the straight line, signed by ahead
        ** or behind; velodrome.xosc's cars a lane apart on a banked curve), else along the way */
        double d = sn_xent_long(r, i, c->ref, c->freespace, c->road_cs);
        if (c->rdt == SN_XRD_EUCLIDEAN && !c->freespace && !c->road_cs)
            d = (d >= 0 ? 1 : -1) * hypot(r->ents[c->ref].x - e->x, r->ents[c->ref].y - e->y);
        *m = e->v > 1e-9 ? d / e->v : d >= 0 ? INFINITY : -INFINITY;
        break;
    }
    case SN_XC_TTC: {
        double tx, ty, tvx = 0, tvy = 0, d;
        if (c->ref >= 0) {
            const sn_xent *f = &r->ents[c->ref];
            tx = f->x, ty = f->y, tvx = f->v * cos(f->h), tvy = f->v * sin(f->h);
            d = ent_dist(r, i, c->ref, c->freespace, c->rdt);
        } else {
            double q[4], s, off;
            int32_t ri;
            int lane;
            bool on;
            if (!sn_xmove_resolve(r, &c->pos, q, &ri, &lane, &s, &off, &on))
                return false;
            tx = q[0], ty = q[1];
            d = pos_dist(r, i, &c->pos, c->freespace, c->rdt, &ok);
        }
        double dx = tx - e->x, dy = ty - e->y, n = hypot(dx, dy);
        double rvx = e->v * cos(e->h) - tvx, rvy = e->v * sin(e->h) - tvy;
        double closing = n > 1e-9 ? (rvx * dx + rvy * dy) / n : 0;
        *m = closing > 1e-9 ? d / closing : INFINITY;
        break;
    }
    case SN_XC_STANDSTILL:
    case SN_XC_END_OF_ROAD:
    case SN_XC_OFFROAD: {
        /* standing still: below 1 mm/s, esmini's STAND_STILL_THRESHOLD (ScenarioEngine.cpp): a
        ** sinusoidal stop from 20 m/s at 3 m/s^2 creeps under it 0.05 s before its end, and
        ** synchronize.xosc's storyboard ends then */
        bool in = c->kind == SN_XC_STANDSTILL ? fabs(e->v) < 1e-3 : c->kind == SN_XC_END_OF_ROAD ? e->end_of_road : e->offroad;
        if (!in)
            c->since[k] = -1;
        else if (c->since[k] < 0)
            c->since[k] = r->t;
        *m = in ? r->t - c->since[k] : 0;
        return in && *m >= c->value - EPS;
    }
    case SN_XC_ANGLE:
    case SN_XC_REL_ANGLE: {
        double a;
        if (!entity_angle(r, c, i, &a))
            return false;
        if (c->kind == SN_XC_REL_ANGLE) {
            double b;
            if (!entity_angle(r, c, c->ref, &b))
                return false;
            a -= b;
        }
        /* measured wrapped to within pi of the angle: 2 pi - 0.1 is -0.1 */
        *m = c->value + remainder(a - c->value, 2 * M_PI);
        return fabs(*m - c->value) <= c->angle_tol + EPS;
    }
    case SN_XC_COLLISION: {
        double other = -1;
        bool hit = collides(r, i, c->ref, &other);
        *m = other;
        return hit;
    }
    default: return false;
    }
    if (!ok)
        return false;
    if (c->kind == SN_XC_REACH)
        return *m < c->value;
    return sn_xrule_eval(c->rule, *m, c->value);
}

static bool cond_raw(sn_xrun *r, sn_xcond *c)
{
    switch (c->kind) {
    case SN_XC_SIM_TIME:
        c->measured = r->t;
        /* the clock is a sum of steps: within a billionth of a second a time is reached */
        if (c->rule == SN_XR_GT)
            return r->t > c->value + EPS;
        if (c->rule == SN_XR_GE)
            return r->t >= c->value - EPS;
        if (c->rule == SN_XR_LT)
            return r->t < c->value - EPS;
        if (c->rule == SN_XR_LE)
            return r->t <= c->value + EPS;
        return sn_xrule_eval(c->rule, r->t, c->value);
    case SN_XC_PARAM: {
        sn_xparam *q = sn_xparam_find(&r->x->params, c->param);
        char v[1024], why[256];
        if (!q || !sn_xparam_subst(&r->x->params, q->value, v, sizeof v, why, sizeof why))
            return false;
        char *e1, *e2;
        double a = strtod(v, &e1), b = strtod(c->svalue, &e2);
        if (*e1 || *e2 || e1 == v) { /* strings: equalTo and notEqualTo compare the text */
            int cmp = strcmp(v, c->svalue);
            c->measured = cmp;
            return c->rule == SN_XR_EQ ? cmp == 0 : c->rule == SN_XR_NE ? cmp != 0 : false;
        }
        c->measured = a;
        c->value = b;
        return sn_xrule_eval(c->rule, a, b);
    }
    case SN_XC_SIGNAL:
    case SN_XC_SIGNAL_CTL:
        return sn_xsig_cond(r, c);
    case SN_XC_STATE: {
        sn_xelem *e = &r->x->elems[c->elem];
        bool v;
        if (c->state <= SN_XSR_COMPLETE) {
            v = (int)e->state == (int)c->state;
        } else { /* a transition: seen once, by the first evaluation after it */
            int tr = c->state - SN_XSR_START;
            v = e->trans_seq[tr] > c->seen_seq;
        }
        c->seen_seq = r->seq;
        c->measured = e->state;
        return v;
    }
    default: {
        bool any = false, all = true;
        double first = NAN;
        for (uint32_t k = 0; k < c->n_trig; k++) {
            double m = NAN;
            bool v = entity_rule(r, c, k, &m);
            c->held[k] = v;
            if (k == 0 || (v && !any))
                first = m;
            any |= v;
            all &= v;
        }
        c->measured = first;
        return c->trig_all ? all : any;
    }
    }
}

/* The condition's value now: its edge of the rule, delayed. Logged when it becomes true. */
static bool cond_eval(sn_xrun *r, int ci, int owner)
{
    sn_xcond *c = &r->x->conds[ci];
    bool raw = cond_raw(r, c), v;
    if (!c->evaluated) /* no edge at the first evaluation: there is no value before it (esmini's reading) */
        c->prev = raw;
    c->evaluated = true;
    switch (c->edge) {
    case SN_XE_RISING: v = raw && !c->prev; break;
    case SN_XE_FALLING: v = !raw && c->prev; break;
    case SN_XE_BOTH: v = raw != c->prev; break;
    default: v = raw; break;
    }
    c->prev = raw;
    if (c->delay > 0) {
        if (v) {
            if (c->n_pend >= c->cap_pend) {
                uint32_t nc = c->cap_pend ? c->cap_pend * 2 : 8;
                double *np = realloc(c->pend, nc * sizeof *np), *nm = np ? realloc(c->pend_m, nc * sizeof *nm) : NULL;
                if (np)
                    c->pend = np;
                if (nm)
                    c->pend_m = nm, c->cap_pend = nc;
            }
            if (c->n_pend < c->cap_pend) {
                c->pend_m[c->n_pend] = c->measured;
                c->pend[c->n_pend++] = r->t + c->delay;
            }
        }
        v = false;
        if (c->n_pend && c->pend[0] <= r->t + EPS) {
            v = true;
            c->measured = c->pend_m[0]; /* the log says what held at the edge */
            memmove(c->pend, c->pend + 1, (c->n_pend - 1) * sizeof *c->pend);
            memmove(c->pend_m, c->pend_m + 1, (c->n_pend - 1) * sizeof *c->pend_m);
            c->n_pend--;
        }
    }
    /* a CollisionCondition that holds is logged again when a new collision joins (esmini lists
    ** the collisions each time its trigger fires: test-collision-detection's second at 6.26 s) */
    bool more = false;
    if (c->kind == SN_XC_COLLISION) {
        uint32_t n = r->x->n_ents, hits = 0;
        for (uint32_t k = 0; k < c->n_trig; k++)
            for (uint32_t j = 0; j < n; j++) {
                int i = c->trig[k];
                if ((int)j != i && r->collide[(size_t)i * n + j] &&
                    (c->ref >= 0 ? (int)j == c->ref : (int)r->x->ents[j].kind == -2 - c->ref))
                    hits++;
            }
        more = hits > c->hits;
        c->hits = hits;
    }
    if (v && (!c->fired_once || more))
        log_condition(r, c, owner);
    c->fired_once = v; /* logged again only after a frame in which it did not hold */
    return v;
}

/* A trigger fires when every condition of some group holds. Every condition is evaluated
** (none is skipped by an earlier result) so each keeps its edge state. */
static bool trigger_fires(sn_xrun *r, int t, int owner)
{
    const sn_xtrigger *tr = &r->x->trigs[t];
    bool fires = false;
    for (uint32_t g = 0; g < tr->n; g++) {
        bool all = true;
        for (uint32_t k = 0; k < tr->groups[g].n; k++)
            all &= cond_eval(r, tr->groups[g].conds[k], owner);
        fires |= all && tr->groups[g].n;
    }
    /* The element starts: its delayed edges still queued are spent. Left queued, they would fire
    ** the element again the moment it is back in standby (an Event or ManeuverGroup that runs
    ** again), without the delay its condition asks for. */
    for (uint32_t g = 0; fires && g < tr->n; g++)
        for (uint32_t k = 0; k < tr->groups[g].n; k++)
            r->x->conds[tr->groups[g].conds[k]].n_pend = 0;
    return fires;
}

/* selectTriggeringEntities: the entities whose rules held in the groups of trigger t that hold
** now (in document order, each once) become the actors of the act's groups that ask for them. */
static bool select_actors(sn_xrun *r, int act, int t)
{
    const sn_xtrigger *tr = &r->x->trigs[t];
    bool *pick = calloc(r->x->n_ents + 1, sizeof *pick);
    if (!pick)
        return false;
    for (uint32_t g = 0; g < tr->n; g++) {
        bool all = true;
        for (uint32_t k = 0; k < tr->groups[g].n; k++)
            all &= r->x->conds[tr->groups[g].conds[k]].fired_once;
        for (uint32_t k = 0; all && k < tr->groups[g].n; k++) {
            const sn_xcond *c = &r->x->conds[tr->groups[g].conds[k]];
            for (uint32_t j = 0; j < c->n_trig; j++)
                if (c->held[j])
                    pick[c->trig[j]] = true;
        }
    }
    const sn_xelem *a = &r->x->elems[act];
    for (uint32_t m = 0; m < a->n_children; m++) {
        sn_xelem *g = &r->x->elems[a->children[m]];
        if (!g->select_trig)
            continue;
        free(g->actors);
        g->actors = calloc(r->x->n_ents + 1, sizeof *g->actors);
        g->n_actors = 0;
        for (uint32_t i = 0; g->actors && i < r->x->n_ents; i++)
            if (pick[i])
                g->actors[g->n_actors++] = (int)i;
    }
    free(pick);
    return true;
}

/* ---- actions ---- */

static const sn_xelem *mgroup_of(const sn_xrun *r, int action)
{
    int e = r->x->elems[action].parent;                  /* event */
    int m = r->x->elems[e].parent;                       /* maneuver */
    return &r->x->elems[r->x->elems[m].parent];          /* group */
}

/* A TrafficAction: the engine plays the swarm, source or sink from now on (xosc_traffic.c); a
** TrafficStopAction stops those of its trafficName. The action itself ends at once. */
static bool traffic_action(sn_xrun *r, const sn_xaction *a)
{
    if (a->tr_kind == SN_XTF_STOP) {
        for (uint32_t k = 0; k < r->n_traffic; k++) {
            const sn_xaction *b = &r->x->actions[r->traffic[k].action];
            if (b->signal && strcmp(b->signal, a->signal) == 0)
                r->traffic[k].active = false;
        }
        return true;
    }
    sn_xtraffic t = {.action = (int)(a - r->x->actions), .active = true};
    if (a->tr_kind != SN_XTF_SWARM) {
        double out[4], s, off;
        int32_t road;
        int lane;
        bool on_lane;
        if (!sn_xmove_resolve(r, &a->pos, out, &road, &lane, &s, &off, &on_lane))
            return !(r->failed = true);
        t.x = out[0], t.y = out[1], t.z = out[2], t.h = out[3];
    }
    sn_xtraffic *nw = realloc(r->traffic, (r->n_traffic + 1) * sizeof *nw);
    if (!nw) {
        return sn_xrun_fail(r, a->line, "TrafficAction: out of memory");
    }
    r->traffic = nw;
    r->traffic[r->n_traffic++] = t;
    return true;
}

/* A LightStateAction's light on entity i now. */
static void light_apply(sn_xrun *r, int i, const sn_xaction *a)
{
    sn_xent *e = &r->ents[i];
    if (r->x->ents[i].kind != SN_XEN_VEHICLE || !a->light) {
        char line[512];
        snprintf(line, sizeof line, "%s:%d: LightStateAction: %s: not played", r->x->path, a->line,
                 a->light ? "only vehicles have lights" : "a light CARLA's vehicles do not have");
        warn_once(r, line);
        return;
    }
    e->lights = a->value != 0 ? e->lights | a->light : e->lights & ~a->light;
    e->lights_dirty = true;
}

static bool global_action(sn_xrun *r, const sn_xaction *a)
{
    char buf[1024], why[256];
    switch (a->kind) {
    case SN_XA_ENVIRONMENT:
        r->weather = a->weather;
        r->weather_set = true;
        return true;
    case SN_XA_PARAM_SET:
        if (!sn_xparam_subst(&r->x->params, a->svalue, buf, sizeof buf, why, sizeof why)) {
            return sn_xrun_fail(r, a->line, "ParameterAction: %s", why);
        }
        return sn_xparam_set(&r->x->params, a->param, buf, a->line, true);
    case SN_XA_PARAM_MODIFY: {
        sn_xparam *q = sn_xparam_find(&r->x->params, a->param);
        double v;
        char *end;
        if (!q || !sn_xparam_subst(&r->x->params, q->value, buf, sizeof buf, why, sizeof why) ||
            (v = strtod(buf, &end), *end || end == buf)) {
            return sn_xrun_fail(r, a->line, "ModifyAction: parameter '%s' is not a number", a->param);
        }
        v = a->multiply ? v * a->value : v + a->value;
        snprintf(buf, sizeof buf, "%.17g", v);
        return sn_xparam_set(&r->x->params, a->param, buf, a->line, true);
    }
    case SN_XA_SIGNAL_STATE:
    case SN_XA_SIGNAL_CONTROLLER:
        return sn_xsig_action(r, a);
    case SN_XA_TRAFFIC:
        return traffic_action(r, a);
    case SN_XA_ADD_ENTITY:
    case SN_XA_DELETE_ENTITY: {
        /* esmini's activateObject/deactivateObject (Entities.cpp): adding an entity that is in,
        ** or deleting one that is out, does nothing but say so */
        sn_xent *e = &r->ents[a->ref];
        bool add = a->kind == SN_XA_ADD_ENTITY;
        if (e->absent != add) {
            char line[512];
            snprintf(line, sizeof line, "%s:%d: %s: entity '%s' is %s the scenario already: nothing done", r->x->path,
                     a->line, add ? "AddEntityAction" : "DeleteEntityAction", r->x->ents[a->ref].name,
                     add ? "in" : "out of");
            warn_once(r, line);
            return true;
        }
        e->absent = !add;
        /* added: at its Position (relative ones see where it was when it left), its speed kept */
        return !add || sn_xmove_place(r, a->ref, &a->pos);
    }
    case SN_XA_NOOP:
        return true;
    default:
        return true;
    }
}

/* Pending light k leaves the queue, in order. */
static void lightq_drop(sn_xrun *r, uint32_t k)
{
    memmove(&r->lightq[k], &r->lightq[k + 1], (r->n_lightq - k - 1) * sizeof *r->lightq);
    r->n_lightq--;
}

/* A pending light replaced by a new LightStateAction on the same light: its action stops. */
static void action_over_light(sn_xrun *r, uint32_t k)
{
    int el = r->lightq[k].elem;
    lightq_drop(r, k);
    if (el >= 0 && r->x->elems[el].running && --r->x->elems[el].running == 0 &&
        r->x->elems[el].state == SN_XST_RUNNING)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_STOP);
}

/* An action instance on entity i; *done when it is over at once. */
static bool private_action(sn_xrun *r, int i, int el, const sn_xaction *a, bool *done)
{
    sn_xent *e = &r->ents[i];
    /* a new action of the same domain overrides the running one on this entity */
    int old = -2;
    if ((a->kind == SN_XA_SPEED || a->kind == SN_XA_SPEED_PROFILE || a->kind == SN_XA_LONG_DIST ||
         a->kind == SN_XA_SYNC) && e->lon)
        old = e->lon_elem;
    else if ((a->kind == SN_XA_LANE_CHANGE || a->kind == SN_XA_LANE_OFFSET || a->kind == SN_XA_LAT_DIST) && e->lat)
        old = e->lat_elem;
    else if (a->kind == SN_XA_TRAJECTORY && e->traj)
        old = e->traj_elem;
    else if (a->kind == SN_XA_ACQUIRE && e->acq_elem != -2)
        old = e->acq_elem;
    if (old != -2 && old != el) {
        sn_xmove_stop(r, i, old);
        if (old >= 0 && r->x->elems[old].running && --r->x->elems[old].running == 0 &&
            r->x->elems[old].state == SN_XST_RUNNING)
            transition(r, old, SN_XST_COMPLETE, SN_XTR_STOP);
    }
    if (a->kind == SN_XA_ASSIGN_CONTROLLER) { /* the next ActivateControllerAction activates this one */
        *done = true;
        r->x->ents[i].external = a->value == 1;
        r->x->ents[i].unplayed_controller = a->value == 0;
        return true;
    }
    if (a->kind == SN_XA_CONTROLLER) {
        *done = true;
        if (r->x->ents[i].unplayed_controller) /* warned at load: the storyboard keeps it */
            return true;
        if (a->lon != a->lat) {
            return sn_xrun_fail(r, a->line,
                                "ActivateControllerAction: entity '%s': sensim's autopilot (or the "
                                "user's external controller) drives both ways: lateral and longitudinal must be equal",
                                r->x->ents[i].name);
        }
        if (a->lon && e->mode != SN_XM_EXTERNAL) {
            sn_xmove_stop(r, i, e->lon_elem);
            sn_xmove_stop(r, i, e->lat_elem);
            e->mode = SN_XM_EXTERNAL;
            if (r->activate)
                r->activate(r->user, i);
        }
        return true;
    }
    if (a->kind == SN_XA_LIGHT) {
        /* without a transitionTime the light switches now; with one, when the action ends */
        for (uint32_t k = 0; k < r->n_lightq; k++) /* a new one on the same light replaces a pending one */
            if (r->lightq[k].entity == i && r->lightq[k].a->light == a->light) {
                action_over_light(r, k);
                k--;
            }
        *done = !(a->dyn.value > 0);
        if (*done) {
            light_apply(r, i, a);
            return true;
        }
        sn_xlightq *nw = realloc(r->lightq, (r->n_lightq + 1) * sizeof *nw);
        if (!nw) {
            return sn_xrun_fail(r, a->line, "LightStateAction: out of memory");
        }
        r->lightq = nw;
        r->lightq[r->n_lightq++] = (sn_xlightq){i, el, r->t + a->dyn.value, a};
        return true;
    }
    if (a->kind == SN_XA_TELEPORT && r->x->ents[i].kind == SN_XEN_MISC && r->frame > 0) {
        char line[512];
        snprintf(line, sizeof line, "%s:%d: TeleportAction: '%s' is a MiscObject, a static prop: it stays where Init put it",
                 r->x->path, a->line, r->x->ents[i].name);
        warn_once(r, line);
        *done = true;
        return true;
    }
    return sn_xmove_start(r, i, el, a, done);
}

static void action_over(sn_xrun *r, int el);

static bool start_actions(sn_xrun *r, int ev)
{
    sn_xelem *e = &r->x->elems[ev];
    for (uint32_t k = 0; k < e->n_children; k++) {
        int el = e->children[k];
        sn_xelem *ae = &r->x->elems[el];
        transition(r, el, SN_XST_RUNNING, SN_XTR_START);
        const sn_xaction *a = &r->x->actions[ae->action];
        if (a->kind == SN_XA_NOOP) {
            char line[512];
            snprintf(line, sizeof line, "%s:%d: %s: not played (docs/openscenario.md)", r->x->path, a->line, a->noop_what);
            warn_once(r, line);
        }
        if (ae->global) {
            if (!global_action(r, a))
                return false;
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
            continue;
        }
        const sn_xelem *g = mgroup_of(r, el);
        ae->running = 0;
        for (uint32_t j = 0; j < g->n_actors; j++) {
            bool done;
            if (!private_action(r, g->actors[j], el, a, &done))
                return false;
            if (!done)
                ae->running++;
        }
        if (!ae->running)
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
    }
    return true;
}

static void action_over(sn_xrun *r, int el)
{
    if (el < 0)
        return;
    sn_xelem *e = &r->x->elems[el];
    if (e->state == SN_XST_RUNNING && e->running && --e->running == 0)
        transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
}

/* Light transitions that end by now switch their lights; their actions end. */
static void lights_step(sn_xrun *r)
{
    for (uint32_t k = 0; k < r->n_lightq; k++)
        if (r->lightq[k].t_end <= r->t + 1e-9) {
            int el = r->lightq[k].elem;
            light_apply(r, r->lightq[k].entity, r->lightq[k].a);
            lightq_drop(r, k--);
            action_over(r, el);
        }
}

/* ---- the tree ---- */

static bool all_children_complete(const sn_xrun *r, int el)
{
    const sn_xelem *e = &r->x->elems[el];
    for (uint32_t k = 0; k < e->n_children; k++)
        if (r->x->elems[e->children[k]].state != SN_XST_COMPLETE)
            return false;
    return true;
}

/* Any event of the maneuver other than ev running. */
static bool sibling_running(const sn_xrun *r, int ev)
{
    const sn_xelem *m = &r->x->elems[r->x->elems[ev].parent];
    for (uint32_t k = 0; k < m->n_children; k++)
        if (m->children[k] != ev && r->x->elems[m->children[k]].state == SN_XST_RUNNING)
            return true;
    return false;
}

static bool run_event(sn_xrun *r, int ev)
{
    sn_xelem *e = &r->x->elems[ev];
    if (e->state == SN_XST_STANDBY) {
        bool go = e->start < 0 || trigger_fires(r, e->start, ev);
        if (!go)
            return true;
        if (e->prio == SN_XPR_SKIP && sibling_running(r, ev)) {
            transition(r, ev, SN_XST_STANDBY, SN_XTR_SKIP);
            return true;
        }
        if (e->prio == SN_XPR_OVERRIDE) {
            const sn_xelem *m = &r->x->elems[e->parent];
            for (uint32_t k = 0; k < m->n_children; k++)
                if (m->children[k] != ev && r->x->elems[m->children[k]].state == SN_XST_RUNNING)
                    stop_tree(r, m->children[k]);
        }
        return start_elem(r, ev);
    }
    return true;
}

/* Completion upward from the maneuver level; groups run again up to maximumExecutionCount. */
static bool settle(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    if (e->state != SN_XST_RUNNING)
        return true;
    if (e->kind == SN_XK_EVENT) {
        if (all_children_complete(r, el)) {
            transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
            if (e->exec < e->max_exec) /* it may run again: back to standby, its actions too */
                transition(r, el, SN_XST_STANDBY, SN_XTR_RESET);
        }
        return true;
    }
    for (uint32_t k = 0; k < e->n_children; k++)
        if (!settle(r, e->children[k]))
            return false;
    bool done = true;
    for (uint32_t k = 0; k < e->n_children; k++) {
        const sn_xelem *c = &r->x->elems[e->children[k]];
        /* an event waiting to run again keeps its maneuver running */
        if (c->state != SN_XST_COMPLETE)
            done = false;
    }
    if (!done)
        return true;
    transition(r, el, SN_XST_COMPLETE, SN_XTR_END);
    if (e->kind == SN_XK_MGROUP && e->exec < e->max_exec) {
        for (uint32_t k = 0; k < e->n_children; k++) {
            int m = e->children[k];
            r->x->elems[m].state = SN_XST_STANDBY;
            const sn_xelem *me = &r->x->elems[m];
            for (uint32_t j = 0; j < me->n_children; j++) {
                r->x->elems[me->children[j]].state = SN_XST_STANDBY;
                r->x->elems[me->children[j]].exec = 0;
                const sn_xelem *ee = &r->x->elems[me->children[j]];
                for (uint32_t q = 0; q < ee->n_children; q++)
                    r->x->elems[ee->children[q]].state = SN_XST_STANDBY;
            }
        }
        transition(r, el, SN_XST_STANDBY, SN_XTR_RESET);
        return start_elem(r, el);
    }
    return true;
}

static bool walk_events(sn_xrun *r, int el)
{
    sn_xelem *e = &r->x->elems[el];
    if (e->kind == SN_XK_EVENT)
        return run_event(r, el);
    if (e->state != SN_XST_RUNNING)
        return true;
    for (uint32_t k = 0; k < e->n_children; k++)
        if (!walk_events(r, e->children[k]))
            return false;
    return true;
}

static void end_run(sn_xrun *r, const char *by, bool completed)
{
    r->ended = true;
    r->completed = completed;
    r->end_time = r->t;
    snprintf(r->ended_by, sizeof r->ended_by, "%s", by);
}

static bool settle_stories(sn_xrun *r)
{
    const sn_xelem *sb = &r->x->elems[0];
    for (uint32_t s = 0; s < sb->n_children; s++) {
        int st = sb->children[s];
        if (r->x->elems[st].state != SN_XST_RUNNING)
            continue;
        const sn_xelem *story = &r->x->elems[st];
        for (uint32_t a = 0; a < story->n_children; a++)
            if (!settle(r, story->children[a]))
                return false;
        if (all_children_complete(r, st))
            transition(r, st, SN_XST_COMPLETE, SN_XTR_END);
    }
    return true;
}

/* One evaluation of the storyboard at r->t: what finished settles, acts and events whose
** triggers fire start (or stop), what that finished settles, and last the StopTrigger, so a
** condition on an element's state sees the state of this step. */
static bool storyboard(sn_xrun *r)
{
    sn_xelem *sb = &r->x->elems[0];
    if (sb->state != SN_XST_RUNNING)
        return true;
    if (!settle_stories(r))
        return false;
    for (uint32_t s = 0; s < sb->n_children; s++) {
        int st = sb->children[s];
        if (r->x->elems[st].state != SN_XST_RUNNING)
            continue;
        const sn_xelem *story = &r->x->elems[st];
        for (uint32_t a = 0; a < story->n_children; a++) {
            int act = story->children[a];
            sn_xelem *ae = &r->x->elems[act];
            if (ae->state == SN_XST_STANDBY) {
                if (ae->start >= 0 && trigger_fires(r, ae->start, act) &&
                    (!select_actors(r, act, ae->start) || !start_elem(r, act)))
                    return false;
            } else if (ae->state == SN_XST_RUNNING && ae->stop >= 0 && trigger_fires(r, ae->stop, act)) {
                stop_tree(r, act);
            }
            if (r->x->elems[act].state == SN_XST_RUNNING && !walk_events(r, act))
                return false;
        }
    }
    if (!settle_stories(r))
        return false;
    if (sb->stop >= 0 && trigger_fires(r, sb->stop, 0)) {
        /* the condition that fired, for run.json */
        const sn_xtrigger *tr = &r->x->trigs[sb->stop];
        for (uint32_t g = 0; g < tr->n && !r->stop_condition[0]; g++)
            for (uint32_t k = 0; k < tr->groups[g].n; k++)
                if (r->x->conds[tr->groups[g].conds[k]].fired_once) {
                    snprintf(r->stop_condition, sizeof r->stop_condition, "%s", r->x->conds[tr->groups[g].conds[k]].name);
                    break;
                }
        stop_tree(r, 0);
        end_run(r, "StopTrigger", true);
        return !r->failed;
    }
    if (sb->stop < 0 && all_children_complete(r, 0)) {
        transition(r, 0, SN_XST_COMPLETE, SN_XTR_END);
        end_run(r, "all stories complete", true);
    }
    return !r->failed;
}

/* ---- collisions: boxes overlapping now ---- */

static void update_collisions(sn_xrun *r)
{
    uint32_t n = r->x->n_ents;
    if (!r->need_collide)
        return;
    double (*box)[4][2] = malloc(n * sizeof *box);
    if (!box)
        return;
    for (uint32_t i = 0; i < n; i++)
        sn_xmove_box(r, (int)i, box[i]);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) {
            bool hit = r->ents[i].placed && r->ents[j].placed && !r->ents[i].absent && !r->ents[j].absent &&
                       sn_xbox_distance(box[i], box[j]) <= 0;
            r->collide[(size_t)i * n + j] = r->collide[(size_t)j * n + i] = hit;
        }
    free(box);
}

/* ---- run ---- */

bool sn_xrun_init(sn_xrun *r, sn_xosc *x, const sn_map *map, double dt)
{
    memset(r, 0, sizeof *r);
    r->x = x;
    r->map = map;
    r->dt = dt;
    r->ents = calloc(x->n_ents ? x->n_ents : 1, sizeof *r->ents);
    r->collide = calloc((size_t)x->n_ents * x->n_ents + 1, sizeof *r->collide);
    if (!r->ents || !r->collide) {
        snprintf(r->why, sizeof r->why, "%s: out of memory", x->path);
        return false;
    }
    for (uint32_t i = 0; i < x->n_ents; i++)
        r->ents[i].lon_elem = r->ents[i].lat_elem = r->ents[i].traj_elem = r->ents[i].acq_elem = -2;
    /* an entity an AddEntityAction adds and the Init names not starts out of the scenario
    ** (esmini activates the Init's entities only, ScenarioReader::parseInit) */
    for (uint32_t i = 0; i < x->n_ents; i++)
        r->ents[i].absent = x->ents[i].added;
    for (uint32_t k = 0; k < x->n_inits; k++)
        r->ents[x->inits[k].entity].absent = false;
    if (!sn_xsig_init(r))
        return false;
    for (uint32_t i = 0; i < x->n_conds; i++) {
        r->need_collide |= x->conds[i].kind == SN_XC_COLLISION;
        r->need_offroad |= x->conds[i].kind == SN_XC_OFFROAD;
    }
    /* Init: teleports first (positions relative to other entities need theirs), then the rest */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = 0; k < x->n_inits; k++) {
            const sn_xaction *a = &x->actions[x->inits[k].action];
            if ((a->kind == SN_XA_TELEPORT) != (pass == 0))
                continue;
            bool done;
            if (!private_action(r, x->inits[k].entity, -1, a, &done)) {
                if (!r->why[0])
                    snprintf(r->why, sizeof r->why, "%s:%d: Init: the action failed", x->path, a->line);
                return false;
            }
        }
    for (uint32_t k = 0; k < x->n_init_globals; k++)
        if (!global_action(r, &x->actions[x->init_globals[k]]))
            return false;
    /* an entity the Init does not place starts at the origin, heading 0, as in esmini (its first
    ** trajectory or teleport moves it; xosc_engine.c warns) */
    update_collisions(r);
    sn_xsig_step(r); /* controllers without a delay start their first phase at t = 0 */
    /* t = 0: the storyboard and its stories start; acts without a StartTrigger with them */
    transition(r, 0, SN_XST_RUNNING, SN_XTR_START);
    for (uint32_t s = 0; s < x->elems[0].n_children; s++) {
        int st = x->elems[0].children[s];
        transition(r, st, SN_XST_RUNNING, SN_XTR_START);
        for (uint32_t a = 0; a < x->elems[st].n_children; a++)
            if (x->elems[x->elems[st].children[a]].start < 0 && !start_elem(r, x->elems[st].children[a]))
                return false;
    }
    return storyboard(r);
}

bool sn_xrun_step(sn_xrun *r)
{
    if (r->ended)
        return true;
    r->frame++;
    r->t = (double)r->frame * r->dt;
    int ended[256];
    uint32_t n_ended;
    if (!sn_xmove_advance(r, ended, 256, &n_ended))
        return false;
    for (uint32_t k = 0; k < n_ended; k++)
        action_over(r, ended[k]);
    lights_step(r);
    update_collisions(r);
    sn_xsig_step(r);
    if (r->failed)
        return false;
    return storyboard(r);
}

void sn_xrun_free(sn_xrun *r)
{
    if (r->ents)
        for (uint32_t i = 0; i < r->x->n_ents; i++) {
            free(r->ents[i].tv);
            free(r->ents[i].tcum);
            free(r->ents[i].th);
            free(r->ents[i].tp);
            free(r->ents[i].tt);
            free(r->ents[i].route);
            free(r->ents[i].jseg);
        }
    free(r->ents);
    free(r->collide);
    sn_xsig_free(r);
    free(r->traffic);
    free(r->lightq);
    sn_pack_free(&r->log);
    memset(r, 0, sizeof *r);
}
