/* xosc_parse_cond.c — conditions (entity, value, signal) and triggers. */
#include "xosc_parse.h"

#include <stdlib.h>
#include <string.h>

static const char *const RULES[] = {"greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual",
                                    "notEqualTo", NULL};

static bool rule_attr(P *p, N n, sn_xcond *c)
{
    int r;
    if (!sn_xp_enumer(p, n, "rule", true, 0, RULES, &r))
        return false;
    c->rule = (sn_xrule)r;
    return true;
}

static bool rdt_attrs(P *p, N n, sn_xcond *c, bool required_rdt)
{
    static const char *const rdt[] = {"cartesianDistance", "euclidianDistance", "euclideanDistance", "longitudinal",
                                      "lateral", NULL};
    static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
    int r = 0, s = 0;
    if (!sn_xp_enumer(p, n, "relativeDistanceType", required_rdt, 0, rdt, &r) ||
        !sn_xp_enumer(p, n, "coordinateSystem", false, 0, cs, &s))
        return false;
    c->rdt = r <= 2 ? SN_XRD_EUCLIDEAN : r == 3 ? SN_XRD_LONGITUDINAL : SN_XRD_LATERAL;
    if (s == 3)
        return sn_xp_fail(p, n, "coordinateSystem 'trajectory' is not supported (entity, lane and road are)");
    c->road_cs = s == 1 || s == 2;
    if (c->road_cs && c->rdt != SN_XRD_LONGITUDINAL)
        sn_xp_warn(p, n, "coordinateSystem '%s' with relativeDistanceType '%s' is measured in the entity's frame", cs[s],
             rdt[r]);
    if (sn_xp_has_attr(n, "routingAlgorithm")) {
        char v[VAL];
        if (!sn_xp_attr(p, n, "routingAlgorithm", true, v))
            return false;
        if (strcmp(v, "undefined") != 0)
            return sn_xp_fail(p, n, "routingAlgorithm '%s' is not supported (distances are measured, not routed)", v);
    }
    bool along;
    if (!sn_xp_boolean(p, n, "alongRoute", false, &along))
        return false;
    if (along)
        sn_xp_warn(p, n, "alongRoute is measured in the entity's frame, not along the route");
    return true;
}

static bool duration_attr(P *p, N n, sn_xcond *c)
{
    c->rule = SN_XR_GE; /* held for at least the duration */
    if (!sn_xp_num(p, n, "duration", true, 0, -1e9, 1e9, &c->value))
        return false;
    if (c->value < 0)
        return sn_xp_fail(p, n, "duration %g is negative", c->value);
    return true;
}

#define V 1e9 /* the bound of a condition's value */

/* 1.2's DirectionalDimension on speed and acceleration conditions; an entity moves along its
** heading, so its own longitudinal speed and acceleration are its speed and acceleration. */
static bool direction_attr(P *p, N e, sn_xcond *c)
{
    static const char *const dirs[] = {"", "longitudinal", "lateral", "vertical", NULL};
    if (!sn_xp_enumer(p, e, "direction", false, 0, dirs, &c->direction))
        return false;
    if (c->direction == 3 || (c->direction == 2 && !sn_xml_is(e, "RelativeSpeedCondition")))
        return sn_xp_fail(p, e, "direction '%s' is not supported (sensim's entities move along their headings: "
                    "longitudinal is, and lateral for RelativeSpeedCondition)", dirs[c->direction]);
    return true;
}

static bool speed_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_SPEED;
    return direction_attr(p, e, c) && sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c);
}

static bool rel_speed_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_REL_SPEED;
    return direction_attr(p, e, c) && (c->ref = sn_xp_entity_index(p, e, "entityRef")) >= 0 &&
           sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c);
}

static bool accel_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_ACCEL;
    return direction_attr(p, e, c) && sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c);
}

static bool standstill_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_STANDSTILL;
    return duration_attr(p, e, c);
}

static bool end_of_road_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_END_OF_ROAD;
    return duration_attr(p, e, c);
}

static bool offroad_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_OFFROAD;
    return duration_attr(p, e, c);
}

static bool traveled_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_TRAVELED;
    c->rule = SN_XR_GE;
    if (!sn_xp_num(p, e, "value", true, 0, -V, V, &c->value))
        return false;
    return c->value >= 0 || sn_xp_fail(p, e, "value %g is negative", c->value);
}

static bool reach_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_REACH;
    c->rule = SN_XR_LT;
    N pos = sn_xml_child(e, "Position");
    if (!pos)
        return sn_xp_fail(p, e, "needs a Position");
    if (!sn_xp_num(p, e, "tolerance", true, 0, -V, V, &c->value) || !sn_xp_parse_position(p, pos, &c->pos))
        return false;
    return c->value >= 0 || sn_xp_fail(p, e, "tolerance %g is negative", c->value);
}

static bool distance_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_DISTANCE;
    N pos = sn_xml_child(e, "Position");
    if (!pos)
        return sn_xp_fail(p, e, "needs a Position");
    return sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c) &&
           sn_xp_boolean(p, e, "freespace", false, &c->freespace) && rdt_attrs(p, e, c, false) &&
           sn_xp_parse_position(p, pos, &c->pos);
}

static bool rel_distance_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_REL_DISTANCE;
    return (c->ref = sn_xp_entity_index(p, e, "entityRef")) >= 0 && sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) &&
           rule_attr(p, e, c) && sn_xp_boolean(p, e, "freespace", true, &c->freespace) && rdt_attrs(p, e, c, true);
}

static bool headway_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_HEADWAY;
    c->rdt = SN_XRD_LONGITUDINAL;
    /* rdt as given, euclidianDistance without one (esmini's ScenarioReader default) */
    return (c->ref = sn_xp_entity_index(p, e, "entityRef")) >= 0 && sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) &&
           rule_attr(p, e, c) && sn_xp_boolean(p, e, "freespace", true, &c->freespace) && rdt_attrs(p, e, c, false);
}

static bool ttc_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_TTC;
    N t = sn_xml_child(e, "TimeToCollisionConditionTarget");
    if (!t)
        return sn_xp_fail(p, e, "needs a TimeToCollisionConditionTarget");
    if (!sn_xp_num(p, e, "value", true, 0, -V, V, &c->value) || !rule_attr(p, e, c) ||
        !sn_xp_boolean(p, e, "freespace", true, &c->freespace) || !rdt_attrs(p, e, c, false))
        return false;
    N k = sn_xp_choice(p, t);
    if (!k)
        return false;
    if (sn_xml_is(k, "EntityRef"))
        return (c->ref = sn_xp_entity_index(p, k, "entityRef")) >= 0;
    if (sn_xml_is(k, "Position"))
        return sn_xp_parse_position(p, k, &c->pos);
    return sn_xp_unknown(p, k, t);
}

static bool angle_cond(P *p, N e, sn_xcond *c)
{
    static const char *const types[] = {"heading", "pitch", "roll", NULL};
    static const char *const cs[] = {"entity", "lane", "road", "trajectory", "world", NULL};
    c->kind = sn_xml_is(e, "AngleCondition") ? SN_XC_ANGLE : SN_XC_REL_ANGLE;
    c->rule = SN_XR_EQ;
    if (c->kind == SN_XC_REL_ANGLE && (c->ref = sn_xp_entity_index(p, e, "entityRef")) < 0)
        return false;
    return sn_xp_num(p, e, "angle", true, 0, -1e3, 1e3, &c->value) &&
           sn_xp_num(p, e, "angleTolerance", true, 0, 0, 1e3, &c->angle_tol) &&
           sn_xp_enumer(p, e, "angleType", true, 0, types, &c->angle_type) &&
           sn_xp_enumer(p, e, "coordinateSystem", false, c->kind == SN_XC_ANGLE ? 4 : 0, cs, &c->angle_cs);
}

static bool collision_cond(P *p, N e, sn_xcond *c)
{
    c->kind = SN_XC_COLLISION;
    N k = sn_xp_choice(p, e);
    if (!k)
        return false;
    if (sn_xml_is(k, "EntityRef"))
        return (c->ref = sn_xp_entity_index(p, k, "entityRef")) >= 0;
    if (sn_xml_is(k, "ByType")) {
        static const char *const types[] = {"vehicle", "pedestrian", "miscellaneous", NULL};
        int t;
        if (!sn_xp_enumer(p, k, "type", true, 0, types, &t))
            return false;
        c->value = t;
        c->ref = -2 - t; /* by type: -2 vehicle, -3 pedestrian, -4 misc */
        return true;
    }
    return sn_xp_unknown(p, k, e);
}

#undef V

/* The EntityCondition elements sensim evaluates, each with its parser. */
static const struct {
    const char *name;
    bool (*parse)(P *p, N e, sn_xcond *c);
} ENTITY_CONDS[] = {
    {"SpeedCondition", speed_cond},
    {"RelativeSpeedCondition", rel_speed_cond},
    {"AccelerationCondition", accel_cond},
    {"StandStillCondition", standstill_cond},
    {"EndOfRoadCondition", end_of_road_cond},
    {"OffroadCondition", offroad_cond},
    {"TraveledDistanceCondition", traveled_cond},
    {"ReachPositionCondition", reach_cond},
    {"DistanceCondition", distance_cond},
    {"RelativeDistanceCondition", rel_distance_cond},
    {"TimeHeadwayCondition", headway_cond},
    {"TimeToCollisionCondition", ttc_cond},
    {"AngleCondition", angle_cond},
    {"RelativeAngleCondition", angle_cond},
    {"CollisionCondition", collision_cond},
};

static bool parse_entity_cond(P *p, N n, sn_xcond *c)
{
    N e = sn_xp_choice(p, n);
    if (!e)
        return false;
    if (sn_xml_is(e, "SimulationTimeCondition") || sn_xml_is(e, "ParameterCondition"))
        return sn_xp_unknown(p, e, n); /* ByValueCondition's, not an entity's */
    for (size_t k = 0; k < sizeof ENTITY_CONDS / sizeof *ENTITY_CONDS; k++)
        if (sn_xml_is(e, ENTITY_CONDS[k].name))
            return ENTITY_CONDS[k].parse(p, e, c);
    return sn_xp_unsupported(p, e);
}

const char *const sn_xp_elem_kinds[] = {"storyboard", "story", "act", "maneuverGroup", "maneuver", "event", "action", NULL};


static bool parse_value_cond(P *p, N n, sn_xcond *c)
{
    N e = sn_xp_choice(p, n);
    if (!e)
        return false;
    if (sn_xml_is(e, "SimulationTimeCondition")) {
        c->kind = SN_XC_SIM_TIME;
        return sn_xp_num(p, e, "value", true, 0, -1e9, 1e9, &c->value) && rule_attr(p, e, c);
    }
    if (sn_xml_is(e, "StoryboardElementStateCondition")) {
        static const char *const states[] = {"standbyState", "runningState", "completeState", "startTransition",
                                             "endTransition", "stopTransition", "skipTransition", NULL};
        int k, s;
        c->kind = SN_XC_STATE;
        if (!sn_xp_enumer(p, e, "storyboardElementType", true, 0, sn_xp_elem_kinds, &k) ||
            !(c->elem_name = sn_xp_dup_attr(p, e, "storyboardElementRef", true)) ||
            !sn_xp_enumer(p, e, "state", true, 0, states, &s))
            return false;
        c->elem_kind = k;
        c->state = (sn_xstate_ref)s;
        c->elem = -1;
        return true;
    }
    if (sn_xml_is(e, "TrafficSignalCondition") || sn_xml_is(e, "TrafficSignalControllerCondition"))
        return sn_xp_parse_signal_cond(p, e, c);
    if (sn_xml_is(e, "ParameterCondition") || sn_xml_is(e, "VariableCondition")) {
        const char *ref = sn_xml_is(e, "ParameterCondition") ? "parameterRef" : "variableRef";
        c->kind = SN_XC_PARAM;
        if (!(c->param = sn_xp_dup_attr(p, e, ref, true)) || !(c->svalue = sn_xp_dup_attr(p, e, "value", true)) || !rule_attr(p, e, c))
            return false;
        if (!sn_xparam_find(&p->x->params, c->param))
            return sn_xp_fail(p, e, "%s '%s' names no declared parameter", ref, c->param);
        return true;
    }
    return sn_xp_unsupported(p, e);
}

static int parse_condition(P *p, N n)
{
    if (!sn_xml_is(n, "Condition"))
        return sn_xp_unknown(p, n, n->parent), -1;
    GROW(p->x->conds, p->x->n_conds, "conditions");
    int i = (int)p->x->n_conds++;
    sn_xcond *c = &p->x->conds[i];
    c->line = sn_xml_line(n);
    c->ref = -1;
    c->elem = -1;
    static const char *const edges[] = {"none", "rising", "falling", "risingOrFalling", NULL};
    int edge;
    if (!(c->name = sn_xp_dup_attr(p, n, "name", true)) || !sn_xp_num(p, n, "delay", true, 0, -1e9, 1e9, &c->delay) ||
        !sn_xp_enumer(p, n, "conditionEdge", true, 0, edges, &edge))
        return -1;
    c->edge = (sn_xedge)edge;
    if (c->delay < 0)
        return sn_xp_fail(p, n, "delay %g is negative", c->delay), -1;
    N k = sn_xp_choice(p, n);
    if (!k)
        return -1;
    if (sn_xml_is(k, "ByValueCondition"))
        return parse_value_cond(p, k, &p->x->conds[i]) ? i : -1;
    if (!sn_xml_is(k, "ByEntityCondition"))
        return sn_xp_unknown(p, k, n), -1;
    N te = sn_xml_child(k, "TriggeringEntities"), ec = sn_xml_child(k, "EntityCondition");
    if (!te || !ec)
        return sn_xp_fail(p, k, "needs TriggeringEntities and EntityCondition"), -1;
    static const char *const tr[] = {"any", "all", NULL};
    int all;
    if (!sn_xp_enumer(p, te, "triggeringEntitiesRule", true, 0, tr, &all))
        return -1;
    c = &p->x->conds[i];
    c->trig_all = all == 1;
    uint32_t nt = 0;
    SN_XML_EACH(r, te) {
        if (!sn_xml_is(r, "EntityRef"))
            return sn_xp_unknown(p, r, te), -1;
        nt++;
    }
    if (!nt)
        return sn_xp_fail(p, te, "needs at least one EntityRef"), -1;
    if (nt > MAX_ITEMS)
        return sn_xp_fail(p, te, "too many entities"), -1;
    if (!(c->trig = calloc(nt, sizeof *c->trig)) || !(c->since = calloc(nt, sizeof *c->since)) ||
        !(c->held = calloc(nt, sizeof *c->held)))
        return sn_xp_fail(p, te, "out of memory"), -1;
    SN_XML_EACH(r, te) {
        int e = sn_xp_entity_index(p, r, "entityRef");
        if (e < 0)
            return -1;
        c->since[c->n_trig] = -1;
        c->trig[c->n_trig++] = e;
    }
    return parse_entity_cond(p, ec, c) ? i : -1;
}

int sn_xp_parse_trigger(P *p, N n)
{
    GROW(p->x->trigs, p->x->n_trigs, "triggers");
    int t = (int)p->x->n_trigs++;
    SN_XML_EACH(g, n) {
        if (!sn_xml_is(g, "ConditionGroup"))
            return sn_xp_unknown(p, g, n), -1;
        sn_xtrigger *tr = &p->x->trigs[t];
        GROW(tr->groups, tr->n, "condition groups");
        sn_xgroup *gr = &tr->groups[tr->n++];
        SN_XML_EACH(c, g) {
            int ci = parse_condition(p, c);
            if (ci < 0)
                return -1;
            gr = &p->x->trigs[t].groups[p->x->trigs[t].n - 1];
            int *nw = realloc(gr->conds, (gr->n + 1) * sizeof *nw);
            if (!nw)
                return sn_xp_fail(p, c, "out of memory"), -1;
            gr->conds = nw;
            gr->conds[gr->n++] = ci;
        }
        if (!p->x->trigs[t].groups[p->x->trigs[t].n - 1].n)
            return sn_xp_fail(p, g, "a ConditionGroup needs at least one Condition"), -1;
    }
    return t;
}
