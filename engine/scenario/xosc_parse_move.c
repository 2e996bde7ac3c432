/* xosc_parse_move.c — the private actions that move an entity: speed, longitudinal distance,
** speed profile, lateral distance, lane change and offset, FollowTrajectory, AssignRoute. */
#include "xosc_parse.h"

#include <stdlib.h>

static const char *const SHAPES[] = {"step", "linear", "cubic", "sinusoidal", NULL};
static const char *const DIMS[] = {"time", "distance", "rate", NULL};

static bool parse_dynamics(P *p, N n, sn_xdyn *d)
{
    int s, dim;
    if (!sn_xp_enumer(p, n, "dynamicsShape", true, 0, SHAPES, &s) || !sn_xp_enumer(p, n, "dynamicsDimension", true, 0, DIMS, &dim) ||
        !sn_xp_num(p, n, "value", true, 0, -1e9, 1e9, &d->value))
        return false;
    d->shape = (sn_xshape)s;
    d->dim = (sn_xdim)dim;
    if (d->value < 0 && d->dim == SN_XD_RATE) { /* esmini writes braking as a negative rate */
        sn_xp_warn(p, n, "a negative rate (%g) is taken as its magnitude: the target says which way", d->value);
        d->value = -d->value;
    }
    if (d->value < 0)
        return sn_xp_fail(p, n, "value %g is negative: a duration or distance is >= 0", d->value);
    if (d->dim == SN_XD_RATE && d->value == 0 && d->shape != SN_XS_STEP)
        return sn_xp_fail(p, n, "a rate of 0 never reaches the target");
    if (d->shape != SN_XS_STEP && d->value == 0)
        d->shape = SN_XS_STEP; /* a transition of no length is a step */
    return true;
}

int sn_xp_new_action(P *p, N n, sn_xact_kind k)
{
    GROW(p->x->actions, p->x->n_actions, "actions");
    sn_xaction *a = &p->x->actions[p->x->n_actions];
    a->kind = k;
    a->line = sn_xml_line(n);
    a->ref = -1;
    a->t_scale = 1;
    return (int)p->x->n_actions++;
}

int sn_xp_parse_speed(P *p, N n)
{
    N dyn = sn_xml_child(n, "SpeedActionDynamics"), tgt = sn_xml_child(n, "SpeedActionTarget");
    if (!dyn || !tgt)
        return sn_xp_fail(p, n, "needs SpeedActionDynamics and SpeedActionTarget"), -1;
    int i = sn_xp_new_action(p, n, SN_XA_SPEED);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!parse_dynamics(p, dyn, &a->dyn))
        return -1;
    N t = sn_xp_choice(p, tgt);
    if (!t)
        return -1;
    if (sn_xml_is(t, "AbsoluteTargetSpeed")) {
        if (!sn_xp_num(p, t, "value", true, 0, -1000, 1000, &a->value))
            return -1;
    } else if (sn_xml_is(t, "RelativeTargetSpeed")) {
        static const char *const vt[] = {"delta", "factor", NULL};
        int k;
        a->relative = true;
        if ((a->ref = sn_xp_entity_index(p, t, "entityRef")) < 0 || !sn_xp_num(p, t, "value", true, 0, -1000, 1000, &a->value) ||
            !sn_xp_enumer(p, t, "speedTargetValueType", true, 0, vt, &k) || !sn_xp_boolean(p, t, "continuous", false, &a->continuous))
            return -1;
        a->factor = k == 1;
    } else {
        return sn_xp_unknown(p, t, tgt), -1;
    }
    return i;
}

/* A DynamicConstraints element's limits into a. LongitudinalDistanceAction's schema requires
** maxAcceleration and maxDeceleration (> 0; maxSpeed 1000 when absent); the other actions take
** each as optional, 0 meaning none. */
static bool parse_limits(P *p, N dc, sn_xaction *a, bool required)
{
    a->has_limits = true;
    if (!sn_xp_num(p, dc, "maxAcceleration", required, 0, 0, 1e6, &a->lim_acc) ||
        !sn_xp_num(p, dc, "maxDeceleration", required, 0, 0, 1e6, &a->lim_dec) ||
        !sn_xp_num(p, dc, "maxSpeed", false, required ? 1000 : 0, 0, 1e6, &a->lim_speed))
        return false;
    if (required && (a->lim_acc <= 0 || a->lim_dec <= 0))
        return sn_xp_fail(p, dc, "maxAcceleration and maxDeceleration must be > 0"), false;
    return true;
}

int sn_xp_parse_long_dist(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_LONG_DIST);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    bool dist = sn_xp_has_attr(n, "distance"), gap = sn_xp_has_attr(n, "timeGap");
    if (dist == gap)
        return sn_xp_fail(p, n, "give one of distance and timeGap"), -1;
    a->time_gap = gap;
    static const char *const disp[] = {"trailingReferencedEntity", "leadingReferencedEntity", "any", NULL};
    int d = 0;
    if ((a->ref = sn_xp_entity_index(p, n, "entityRef")) < 0 || !sn_xp_num(p, n, gap ? "timeGap" : "distance", true, 0, 0, 1e6, &a->value) ||
        !sn_xp_boolean(p, n, "freespace", true, &a->freespace) || !sn_xp_boolean(p, n, "continuous", true, &a->continuous) ||
        !sn_xp_enumer(p, n, "displacement", false, 0, disp, &d))
        return -1;
    a->leading = d == 1;
    if (sn_xp_has_attr(n, "coordinateSystem")) {
        static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
        int c;
        if (!sn_xp_enumer(p, n, "coordinateSystem", true, 0, cs, &c))
            return -1;
        if (c == 3)
            return sn_xp_fail(p, n, "coordinateSystem 'trajectory' is not supported"), -1;
    }
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc && !parse_limits(p, dc, a, true))
        return -1;
    return i;
}

/* SpeedProfileAction: the entity's speed goes linearly from entry to entry, each reached `time`
** after the previous one (the first after the start), lengthened to keep within the limits
** (DynamicConstraints, else the entity's Performance); without a time, as fast as they allow. */
int sn_xp_parse_speed_profile(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_SPEED_PROFILE);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    a->dyn.shape = SN_XS_LINEAR;
    a->dyn.dim = SN_XD_TIME;
    static const char *const modes[] = {"position", "follow", NULL};
    int mode;
    if (!sn_xp_enumer(p, n, "followingMode", true, 0, modes, &mode))
        return -1;
    if (sn_xp_has_attr(n, "entityRef") && (a->ref = sn_xp_entity_index(p, n, "entityRef")) < 0)
        return -1;
    a->relative = a->ref >= 0;
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc) {
        if (!parse_limits(p, dc, a, false))
            return -1;
        if (!sn_xp_num(p, dc, "maxAccelerationRate", false, 0, 0, 1e6, &a->jerk_acc) ||
            !sn_xp_num(p, dc, "maxDecelerationRate", false, 0, 0, 1e6, &a->jerk_dec))
            return -1;
        /* the rates shape only followingMode follow (position goes straight from entry to entry) */
        a->prof_follow = mode == 1 && (a->jerk_acc > 0 || a->jerk_dec > 0);
    }
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "DynamicConstraints"))
            continue;
        if (!sn_xml_is(c, "SpeedProfileEntry"))
            return sn_xp_unknown(p, c, n), -1;
        if (a->n_prof >= 100000)
            return sn_xp_fail(p, c, "more than 100000 entries"), -1;
        double *nv = realloc(a->prof_v, (a->n_prof + 1) * sizeof *nv);
        if (nv)
            a->prof_v = nv;
        double *nt = nv ? realloc(a->prof_t, (a->n_prof + 1) * sizeof *nt) : NULL;
        if (!nt)
            return sn_xp_fail(p, c, "out of memory"), -1;
        a->prof_t = nt;
        double *v = &a->prof_v[a->n_prof], *t = &a->prof_t[a->n_prof];
        if (!sn_xp_num(p, c, "speed", true, 0, a->relative ? -1e4 : 0, 1e4, v) || !sn_xp_num(p, c, "time", false, -1, 0, 1e6, t))
            return -1;
        a->n_prof++;
    }
    if (!a->n_prof)
        return sn_xp_fail(p, n, "needs at least one SpeedProfileEntry"), -1;
    return i;
}

/* LateralDistanceAction: keeps a lateral distance to another entity (xosc_move.c). */
int sn_xp_parse_lat_dist(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_LAT_DIST);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    static const char *const disp[] = {"any", "leftToReferencedEntity", "rightToReferencedEntity", NULL};
    static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
    int d = 0, c = 0;
    a->has_lane_offset = sn_xp_has_attr(n, "distance");
    if ((a->ref = sn_xp_entity_index(p, n, "entityRef")) < 0 || !sn_xp_num(p, n, "distance", false, 0, 0, 1e4, &a->value) ||
        !sn_xp_boolean(p, n, "freespace", true, &a->freespace) || !sn_xp_boolean(p, n, "continuous", true, &a->continuous) ||
        !sn_xp_enumer(p, n, "displacement", false, 0, disp, &d) || !sn_xp_enumer(p, n, "coordinateSystem", false, 0, cs, &c))
        return -1;
    if (c == 3)
        return sn_xp_fail(p, n, "coordinateSystem 'trajectory' is not supported"), -1;
    a->side = d == 1 ? 1 : d == 2 ? -1 : 0;
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc && !parse_limits(p, dc, a, false))
        return -1;
    return i;
}

int sn_xp_parse_lane_change(P *p, N n)
{
    N dyn = sn_xml_child(n, "LaneChangeActionDynamics"), tgt = sn_xml_child(n, "LaneChangeTarget");
    if (!dyn || !tgt)
        return sn_xp_fail(p, n, "needs LaneChangeActionDynamics and LaneChangeTarget"), -1;
    int i = sn_xp_new_action(p, n, SN_XA_LANE_CHANGE);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    a->has_lane_offset = sn_xp_has_attr(n, "targetLaneOffset");
    if (!sn_xp_num(p, n, "targetLaneOffset", false, 0, -100, 100, &a->lane_offset) || !parse_dynamics(p, dyn, &a->dyn))
        return -1;
    N t = sn_xp_choice(p, tgt);
    if (!t)
        return -1;
    int v;
    if (sn_xml_is(t, "RelativeTargetLane")) {
        a->relative = true;
        if ((a->ref = sn_xp_entity_index(p, t, "entityRef")) < 0 || !sn_xp_integer(p, t, "value", true, 0, &v))
            return -1;
    } else if (sn_xml_is(t, "AbsoluteTargetLane")) {
        if (!sn_xp_integer(p, t, "value", true, 0, &v))
            return -1;
        if (v == 0)
            return sn_xp_fail(p, t, "value 0 is the centre lane"), -1;
    } else {
        return sn_xp_unknown(p, t, tgt), -1;
    }
    a->value = v;
    return i;
}

int sn_xp_parse_lane_offset(P *p, N n)
{
    N dyn = sn_xml_child(n, "LaneOffsetActionDynamics"), tgt = sn_xml_child(n, "LaneOffsetTarget");
    if (!dyn || !tgt)
        return sn_xp_fail(p, n, "needs LaneOffsetActionDynamics and LaneOffsetTarget"), -1;
    int i = sn_xp_new_action(p, n, SN_XA_LANE_OFFSET);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    int s;
    if (!sn_xp_boolean(p, n, "continuous", false, &a->continuous) || !sn_xp_enumer(p, dyn, "dynamicsShape", true, 0, SHAPES, &s) ||
        !sn_xp_num(p, dyn, "maxLateralAcc", false, 0, 0, 1000, &a->max_lat_acc))
        return -1;
    a->dyn.shape = (sn_xshape)s;
    a->dyn.dim = SN_XD_RATE;
    N t = sn_xp_choice(p, tgt);
    if (!t)
        return -1;
    if (sn_xml_is(t, "AbsoluteTargetLaneOffset")) {
        if (!sn_xp_num(p, t, "value", true, 0, -100, 100, &a->value))
            return -1;
    } else if (sn_xml_is(t, "RelativeTargetLaneOffset")) {
        a->relative = true;
        if ((a->ref = sn_xp_entity_index(p, t, "entityRef")) < 0 || !sn_xp_num(p, t, "value", true, 0, -100, 100, &a->value))
            return -1;
    } else {
        return sn_xp_unknown(p, t, tgt), -1;
    }
    return i;
}


static int parse_trajectory(P *p, N n, N traj, int a_i)
{
    sn_xaction *a = &p->x->actions[a_i];
    bool closed;
    if (!sn_xp_boolean(p, traj, "closed", false, &closed))
        return -1;
    if (sn_xml_child(traj, "ParameterDeclarations") && !sn_xp_parse_params(p, sn_xml_child(traj, "ParameterDeclarations")))
        return -1;
    N shape = sn_xml_child(traj, "Shape");
    if (!shape)
        return sn_xp_fail(p, traj, "needs a Shape"), -1;
    N poly = sn_xp_choice(p, shape);
    if (!poly)
        return -1;
    if (sn_xml_is(poly, "Clothoid") || sn_xml_is(poly, "Nurbs") || sn_xml_is(poly, "ClothoidSpline"))
        return sn_xp_parse_traj_shape(p, poly, a_i);
    if (!sn_xml_is(poly, "Polyline"))
        return sn_xp_unsupported(p, poly), -1;
    uint32_t nv = 0;
    SN_XML_EACH(v, poly) {
        if (!sn_xml_is(v, "Vertex"))
            return sn_xp_unknown(p, v, poly), -1;
        nv++;
    }
    if (nv < 2)
        return sn_xp_fail(p, poly, "a Polyline needs at least two Vertex elements"), -1;
    if (nv > MAX_ITEMS)
        return sn_xp_fail(p, poly, "more than %u vertices", MAX_ITEMS), -1;
    a->verts = calloc(nv, sizeof *a->verts);
    a->times = calloc(nv, sizeof *a->times);
    if (!a->verts || !a->times)
        return sn_xp_fail(p, poly, "out of memory"), -1;
    a->n_verts = nv;
    uint32_t k = 0;
    bool any_time = false;
    SN_XML_EACH(v, poly) {
        N pos = sn_xml_child(v, "Position");
        if (!pos)
            return sn_xp_fail(p, v, "needs a Position"), -1;
        if (!sn_xp_parse_position(p, pos, &a->verts[k]))
            return -1;
        if (sn_xp_has_attr(v, "time")) {
            any_time = true;
            if (!sn_xp_num(p, v, "time", true, 0, -1e9, 1e9, &a->times[k]))
                return -1;
            if (k && a->times[k] < a->times[k - 1])
                return sn_xp_fail(p, v, "time %g is before the previous vertex's %g", a->times[k], a->times[k - 1]), -1;
        }
        k++;
    }
    (void)n;
    (void)closed;
    return any_time ? 1 : 0;
}

int sn_xp_parse_follow_trajectory(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_TRAJECTORY);
    if (i < 0)
        return -1;
    N traj = sn_xml_child(n, "Trajectory");
    N ref = sn_xml_child(n, "TrajectoryRef");
    if (ref)
        traj = sn_xml_child(ref, "Trajectory");
    int timed;
    if (!traj) {
        N c = ref ? sn_xml_child(ref, "CatalogReference") : sn_xml_child(n, "CatalogReference");
        if (!c)
            return sn_xp_fail(p, n, "needs a Trajectory"), -1;
        uint32_t mark;
        const char *file, *outer = p->file;
        N entry = sn_xp_catalog_entry(p, c, &mark, &file);
        if (!entry)
            return -1;
        if (!sn_xml_is(entry, "Trajectory"))
            return sn_xp_fail(p, c, "the catalog entry is a <%s>, not a Trajectory", sn_xml_name(entry)), -1;
        p->file = file;
        timed = parse_trajectory(p, n, entry, i);
        p->file = outer;
        p->declared = NULL;
        sn_xp_params_truncate(&p->x->params, mark);
    } else {
        timed = parse_trajectory(p, n, traj, i);
    }
    if (timed < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!sn_xp_num(p, n, "initialDistanceOffset", false, 0, 0, 1e9, &a->traj_d0)) /* 1.2; past the path's end: its end */
        return -1;
    N tr = sn_xml_child(n, "TimeReference");
    if (!tr)
        return sn_xp_fail(p, n, "needs a TimeReference"), -1;
    N tc = sn_xp_choice(p, tr);
    if (!tc)
        return -1;
    if (sn_xml_is(tc, "Timing")) {
        static const char *const dom[] = {"relative", "absolute", NULL};
        int d;
        if (!sn_xp_enumer(p, tc, "domainAbsoluteRelative", true, 0, dom, &d) ||
            !sn_xp_num(p, tc, "scale", true, 1, 0, 1e6, &a->t_scale) || !sn_xp_num(p, tc, "offset", true, 0, -1e9, 1e9, &a->t_offset))
            return -1;
        if (a->t_scale <= 0)
            return sn_xp_fail(p, tc, "scale must be > 0"), -1;
        if (!timed) { /* esmini plays it so too: the entity follows at its own speed */
            sn_xp_warn(p, tc, "Timing given but the vertices have no time: the entity follows the trajectory at its speed, "
                        "as with TimeReference None");
        } else {
            a->timed = true;
            a->t_absolute = d == 1;
        }
    } else if (!sn_xml_is(tc, "None")) {
        return sn_xp_unknown(p, tc, tr), -1;
    }
    N fm = sn_xml_child(n, "TrajectoryFollowingMode");
    if (fm) {
        static const char *const modes[] = {"position", "follow", NULL};
        int m;
        if (!sn_xp_enumer(p, fm, "followingMode", true, 0, modes, &m))
            return -1;
        a->traj_follow = m == 1;
    }
    return i;
}

/* A Route's Waypoints into action i's verts. */
static bool parse_route(P *p, N route, int i)
{
    uint32_t n = 0;
    SN_XML_EACH(w, route) {
        if (sn_xml_is(w, "ParameterDeclarations")) {
            if (!sn_xp_parse_params(p, w))
                return false;
        } else if (!sn_xml_is(w, "Waypoint")) {
            return sn_xp_unknown(p, w, route);
        } else {
            n++;
        }
    }
    if (n < 1 || n > MAX_ITEMS)
        return sn_xp_fail(p, route, "a Route needs at least one Waypoint");
    sn_xaction *a = &p->x->actions[i];
    if (!(a->verts = calloc(n, sizeof *a->verts)))
        return sn_xp_fail(p, route, "out of memory");
    SN_XML_EACH(w, route) {
        if (!sn_xml_is(w, "Waypoint"))
            continue;
        static const char *const strat[] = {"shortest", "fastest", "leastIntersections", "random", NULL};
        int st;
        N pos = sn_xml_child(w, "Position");
        if (!sn_xp_enumer(p, w, "routeStrategy", true, 0, strat, &st))
            return false;
        if (!pos)
            return sn_xp_fail(p, w, "needs a Position");
        if (st != 0)
            sn_xp_warn(p, w, "routeStrategy '%s' is planned as shortest (by lane length)", strat[st]);
        if (!sn_xp_parse_position(p, pos, &a->verts[a->n_verts]))
            return false;
        a->n_verts++;
    }
    return true;
}

int sn_xp_parse_assign_route(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_ROUTE);
    if (i < 0)
        return -1;
    N route = sn_xml_child(n, "Route");
    if (route)
        return parse_route(p, route, i) ? i : -1;
    N c = sn_xml_child(n, "CatalogReference");
    if (!c)
        return sn_xp_fail(p, n, "needs a Route"), -1;
    uint32_t mark;
    const char *file, *outer = p->file;
    N entry = sn_xp_catalog_entry(p, c, &mark, &file);
    if (!entry)
        return -1;
    if (!sn_xml_is(entry, "Route"))
        return sn_xp_fail(p, c, "the catalog entry is a <%s>, not a Route", sn_xml_name(entry)), -1;
    p->file = file;
    bool ok = parse_route(p, entry, i);
    p->file = outer;
    p->declared = NULL;
    sn_xp_params_truncate(&p->x->params, mark);
    return ok ? i : -1;
}
