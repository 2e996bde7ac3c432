/* xosc_cond.c — the storyboard's conditions evaluated on the state at the step's time (entity
** conditions' rules, distances, collisions, angles, value conditions), their edges and delays,
** and triggers (an OR of ANDs). */
#include "xosc_pos.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9


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

/* ReachPositionCondition's measure: entity i's distance to the position; with an Orientation
** the heading within 0.05 rad too (esmini's TrigByReachPosition), else infinitely far. */
static double reach_dist(sn_xrun *r, const sn_xcond *c, int i, bool *ok)
{
    double m = pos_dist(r, i, &c->pos, false, SN_XRD_EUCLIDEAN, ok);
    if (*ok && c->pos.has_h) {
        double q[4], s, off;
        int32_t ri;
        int lane;
        bool on;
        if ((*ok = sn_xmove_resolve(r, &c->pos, q, &ri, &lane, &s, &off, &on)) &&
            fabs(remainder(r->ents[i].h - q[3], 2 * M_PI)) >= 0.05)
            m = INFINITY;
    }
    return m;
}

/* TimeHeadwayCondition's measure: the gap to the entity over the triggering entity's speed:
** negative when it is behind (as esmini measures it); standing still, infinitely far either way.
** Between reference points in the entity's frame the gap is esmini's default
** relativeDistanceType, euclidianDistance (Position::getRelativeDistance: the straight line,
** signed by ahead or behind; velodrome.xosc's cars a lane apart on a banked curve), else along
** the way. */
static double headway(sn_xrun *r, const sn_xcond *c, int i)
{
    const sn_xent *e = &r->ents[i];
    double d = sn_xent_long(r, i, c->ref, c->freespace, c->road_cs);
    if (c->rdt == SN_XRD_EUCLIDEAN && !c->freespace && !c->road_cs)
        d = (d >= 0 ? 1 : -1) * hypot(r->ents[c->ref].x - e->x, r->ents[c->ref].y - e->y);
    return e->v > 1e-9 ? d / e->v : d >= 0 ? INFINITY : -INFINITY;
}

/* TimeToCollisionCondition's measure (*m): the distance to the target entity or position over
** the speed at which entity i closes on it (infinite when it does not); false when the position
** does not resolve. */
static bool time_to_collision(sn_xrun *r, const sn_xcond *c, int i, double *m, bool *ok)
{
    const sn_xent *e = &r->ents[i];
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
        d = pos_dist(r, i, &c->pos, c->freespace, c->rdt, ok);
    }
    double dx = tx - e->x, dy = ty - e->y, n = hypot(dx, dy);
    double rvx = e->v * cos(e->h) - tvx, rvy = e->v * sin(e->h) - tvy;
    double closing = n > 1e-9 ? (rvx * dx + rvy * dy) / n : 0;
    *m = closing > 1e-9 ? d / closing : INFINITY;
    return true;
}

/* StandStill-, EndOfRoad- and OffroadCondition: how long (*m) the k-th triggering entity e has
** been in that state; true once it has for the condition's duration. */
static bool held_for(sn_xrun *r, sn_xcond *c, uint32_t k, const sn_xent *e, double *m)
{
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

/* AngleCondition and RelativeAngleCondition: the angle (*m, wrapped to within pi of the
** condition's: 2 pi - 0.1 is -0.1) and whether it is within the tolerance. */
static bool angle_rule(sn_xrun *r, const sn_xcond *c, int i, double *m)
{
    double a;
    if (!entity_angle(r, c, i, &a))
        return false;
    if (c->kind == SN_XC_REL_ANGLE) {
        double b;
        if (!entity_angle(r, c, c->ref, &b))
            return false;
        a -= b;
    }
    *m = c->value + remainder(a - c->value, 2 * M_PI);
    return fabs(*m - c->value) <= c->angle_tol + EPS;
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
    case SN_XC_REACH: *m = reach_dist(r, c, i, &ok); break;
    case SN_XC_DISTANCE: *m = pos_dist(r, i, &c->pos, c->freespace, c->rdt, &ok); break;
    case SN_XC_REL_DISTANCE:
        *m = c->rdt == SN_XRD_LONGITUDINAL ? fabs(sn_xent_long(r, i, c->ref, c->freespace, c->road_cs))
                                           : ent_dist(r, i, c->ref, c->freespace, c->rdt);
        break;
    case SN_XC_HEADWAY: *m = headway(r, c, i); break;
    case SN_XC_TTC:
        if (!time_to_collision(r, c, i, m, &ok))
            return false;
        break;
    case SN_XC_STANDSTILL:
    case SN_XC_END_OF_ROAD:
    case SN_XC_OFFROAD: return held_for(r, c, k, e, m);
    case SN_XC_ANGLE:
    case SN_XC_REL_ANGLE: return angle_rule(r, c, i, m);
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
        sn_xpl_log_condition(r, c, owner);
    c->fired_once = v; /* logged again only after a frame in which it did not hold */
    return v;
}

/* A trigger fires when every condition of some group holds. Every condition is evaluated
** (none is skipped by an earlier result) so each keeps its edge state. */
bool sn_xpl_trigger_fires(sn_xrun *r, int t, int owner)
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
bool sn_xpl_select_actors(sn_xrun *r, int act, int t)
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
