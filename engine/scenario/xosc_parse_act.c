/* xosc_parse_act.c — every other action (environment, parameters, controllers, teleport,
** SynchronizeAction, traffic signals, TrafficAction, AppearanceAction) and the dispatch of an
** <Action> to its parser. */
#include "xosc_parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int parse_environment_body(P *p, N n, N env);

static int parse_environment(P *p, N n)
{
    N env = sn_xml_child(n, "Environment");
    uint32_t mark = p->x->params.n;
    const char *outer = p->file;
    if (!env && sn_xml_child(n, "CatalogReference")) {
        const char *file;
        if (!(env = sn_xp_catalog_entry(p, sn_xml_child(n, "CatalogReference"), &mark, &file)))
            return -1;
        if (!sn_xml_is(env, "Environment"))
            return sn_xp_fail(p, sn_xml_child(n, "CatalogReference"), "the catalog entry is a <%s>, not an Environment",
                        sn_xml_name(env)),
                   -1;
        p->file = file;
    }
    if (!env)
        return sn_xp_fail(p, n, "needs an Environment"), -1;
    int r = parse_environment_body(p, n, env);
    p->file = outer;
    p->declared = NULL;
    sn_xp_params_truncate(&p->x->params, mark);
    return r;
}

static int parse_environment_body(P *p, N n, N env)
{
    int i = sn_xp_new_action(p, n, SN_XA_ENVIRONMENT);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    sn_weather *w = &a->weather;
    /* sensim's default weather: a clear sky, the sun at azimuth 135, altitude 50 (docs/weather.md) */
    *w = (sn_weather){.sun_azimuth_angle = 135, .sun_altitude_angle = 50, .fog_distance = 0, .fog_falloff = 0.2,
                      .mie_scattering_scale = 0.03, .rayleigh_scattering_scale = 0.0331};
    a->has_weather = true;
    SN_XML_EACH(c, env) {
        if (sn_xml_is(c, "TimeOfDay")) {
            sn_xp_warn(p, c, "TimeOfDay is not played: the sun comes from Weather/Sun");
        } else if (sn_xml_is(c, "Weather")) {
            static const char *const clouds[] = {"skyOff", "free", "cloudy", "overcast", "rainy", NULL};
            static const double cover[] = {0, 0, 50, 90, 90};
            int cs;
            if (sn_xp_has_attr(c, "cloudState")) {
                if (!sn_xp_enumer(p, c, "cloudState", true, 0, clouds, &cs))
                    return -1;
                w->cloudiness = cover[cs];
            }
            if (sn_xp_has_attr(c, "fractionalCloudCover")) {
                static const char *const okta[] = {"zeroOktas", "oneOktas", "twoOktas", "threeOktas", "fourOktas",
                                                   "fiveOktas", "sixOktas", "sevenOktas", "eightOktas", "nineOktas", NULL};
                if (!sn_xp_enumer(p, c, "fractionalCloudCover", true, 0, okta, &cs))
                    return -1;
                w->cloudiness = cs >= 9 ? 100 : cs * 100.0 / 8;
            }
            SN_XML_EACH(d, c) {
                if (sn_xml_is(d, "Sun")) {
                    double az, el, in;
                    if (!sn_xp_num(p, d, "azimuth", false, 2.356, -10, 10, &az) ||
                        !sn_xp_num(p, d, "elevation", false, 0.873, -2, 2, &el) ||
                        !sn_xp_num(p, d, sn_xp_has_attr(d, "illuminance") ? "illuminance" : "intensity", false, 0, 0, 1e9, &in))
                        return -1;
                    /* OpenSCENARIO: radians, azimuth from north clockwise... CARLA: degrees */
                    w->sun_azimuth_angle = fmod(az * 180 / M_PI, 360);
                    w->sun_altitude_angle = fmax(-90, fmin(90, el * 180 / M_PI));
                } else if (sn_xml_is(d, "Fog")) {
                    double vr;
                    if (!sn_xp_num(p, d, "visualRange", true, 0, 0, 1e9, &vr))
                        return -1;
                    /* a visual range of 100 m is thick fog; 10 km none */
                    w->fog_density = vr >= 10000 ? 0 : fmin(100, 100 * (1 - log10(fmax(vr, 10)) / 4) * 1.33);
                    w->fog_distance = 0;
                } else if (sn_xml_is(d, "Precipitation")) {
                    double in;
                    const char *k = sn_xp_has_attr(d, "precipitationIntensity") ? "precipitationIntensity" : "intensity";
                    if (!sn_xp_num(p, d, k, false, 0, 0, 1e6, &in))
                        return -1;
                    /* mm/h: 10 mm/h and above is CARLA's 100 */
                    w->precipitation = fmin(100, in * 10);
                    w->precipitation_deposits = w->precipitation * 0.5;
                    w->wetness = w->precipitation;
                } else if (sn_xml_is(d, "Wind") || sn_xml_is(d, "DomeImage")) {
                    sn_xp_warn(p, d, "ignored: not part of sensim's weather");
                } else {
                    return sn_xp_unknown(p, d, c), -1;
                }
            }
        } else if (sn_xml_is(c, "RoadCondition")) {
            sn_xp_warn(p, c, "RoadCondition is not played: the kinematic driver has no friction");
        } else if (!sn_xml_is(c, "ParameterDeclarations")) {
            return sn_xp_unknown(p, c, env), -1;
        }
    }
    return i;
}

static int parse_param_action(P *p, N n, const char *ref_attr)
{
    N c = sn_xp_choice(p, n);
    if (!c)
        return -1;
    int i;
    if (sn_xml_is(c, "SetAction")) {
        if ((i = sn_xp_new_action(p, c, SN_XA_PARAM_SET)) < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        if (!(a->param = sn_xp_dup_attr(p, n, ref_attr, true)) || !(a->svalue = sn_xp_dup_attr(p, c, "value", true)))
            return -1;
    } else if (sn_xml_is(c, "ModifyAction")) {
        N r = sn_xml_child(c, "Rule");
        N op = r ? sn_xp_choice(p, r) : NULL;
        if (!op)
            return (r ? 0 : sn_xp_fail(p, c, "needs a Rule")), -1;
        if (!sn_xml_is(op, "AddValue") && !sn_xml_is(op, "MultiplyByValue"))
            return sn_xp_unknown(p, op, r), -1;
        if ((i = sn_xp_new_action(p, c, SN_XA_PARAM_MODIFY)) < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        a->multiply = sn_xml_is(op, "MultiplyByValue");
        if (!(a->param = sn_xp_dup_attr(p, n, ref_attr, true)) || !sn_xp_num(p, op, "value", true, 0, -1e12, 1e12, &a->value))
            return -1;
    } else {
        return sn_xp_unknown(p, c, n), -1;
    }
    if (!sn_xparam_find(&p->x->params, p->x->actions[i].param))
        return sn_xp_fail(p, n, "%s '%s' names no declared parameter", ref_attr, p->x->actions[i].param), -1;
    return i;
}

/* An action that changes nothing sensim simulates: a warning at load, another when it runs. */
int sn_xp_noop(P *p, N n, const char *what, const char *why)
{
    sn_xp_warn(p, n, "%s", why);
    int i = sn_xp_new_action(p, n, SN_XA_NOOP);
    if (i >= 0)
        p->x->actions[i].noop_what = what;
    return i;
}


/* An ObjectController: 1 when its Controller (inline or a catalog's) is an external one (a
** Property esminiController or sensimController of value ExternalController or external), 0 for any
** other (a warning: not played), -1 on error. */
int sn_xp_object_controller(P *p, N oc)
{
    N c = sn_xp_choice(p, oc);
    if (!c)
        return -1;
    uint32_t mark = p->x->params.n;
    const char *outer = p->file;
    if (sn_xml_is(c, "CatalogReference")) {
        const char *file;
        if (!(c = sn_xp_catalog_entry(p, c, &mark, &file)))
            return -1;
        p->file = file;
    } else if (!sn_xml_is(c, "Controller")) {
        return sn_xp_unknown(p, c, oc), -1;
    }
    int ext = 0;
    N props = sn_xml_is(c, "Controller") ? sn_xml_child(c, "Properties") : NULL;
    if (props)
        SN_XML_EACH(q, props) {
            char name[VAL], value[VAL];
            if (!sn_xml_is(q, "Property"))
                continue;
            if (!sn_xp_attr(p, q, "name", true, name) || !sn_xp_attr(p, q, "value", true, value)) {
                ext = -1;
                break;
            }
            if ((!strcmp(name, "esminiController") || !strcmp(name, "sensimController")) &&
                (!strcmp(value, "ExternalController") || !strcmp(value, "external")))
                ext = 1;
        }
    if (ext == 0)
        sn_xp_warn(p, oc, "this controller is not played: the storyboard keeps driving the entity when it is activated "
                    "(esmini's --disable_controllers)");
    p->file = outer;
    p->declared = NULL;
    sn_xp_params_truncate(&p->x->params, mark);
    return ext;
}

/* AssignControllerAction: its controller (inline, a catalog's, or 1.3's ObjectController) becomes
** the entity's ObjectController from then on; value 1 external, 0 one sensim does not play. */
static int parse_controller_assign(P *p, N n)
{
    if (sn_xp_has_attr(n, "activateLateral") || sn_xp_has_attr(n, "activateLongitudinal") || sn_xp_has_attr(n, "activateLighting") ||
        sn_xp_has_attr(n, "activateAnimation"))
        sn_xp_warn(p, n, "the activate* attributes are not read: an ActivateControllerAction activates it");
    N oc = sn_xml_child(n, "ObjectController");
    int ext = sn_xp_object_controller(p, oc ? oc : n);
    if (ext < 0)
        return -1;
    int i = sn_xp_new_action(p, n, SN_XA_ASSIGN_CONTROLLER);
    if (i >= 0)
        p->x->actions[i].value = ext;
    return i;
}

static int parse_controller_activate(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_CONTROLLER);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!sn_xp_boolean(p, n, "longitudinal", true, &a->lon) || !sn_xp_boolean(p, n, "lateral", true, &a->lat))
        return -1;
    if (sn_xp_has_attr(n, "lighting") || sn_xp_has_attr(n, "animation"))
        sn_xp_warn(p, n, "lighting and animation are ignored");
    /* lateral != longitudinal is refused when it starts on an entity sensim would hand to a
    ** driver (xosc_play.c): a controller sensim does not play changes nothing either way */
    return i;
}

static int parse_sync(P *p, N n);
static int parse_traffic(P *p, N n);
static int parse_appearance(P *p, N n);

/* EntityAction (a GlobalAction): AddEntityAction puts the entity `ref` into the scenario at its
** Position, DeleteEntityAction takes it out (xosc_play.c, xosc_engine.c). */
static int parse_entity_action(P *p, N n)
{
    int ent = sn_xp_entity_index(p, n, "entityRef");
    if (ent < 0)
        return -1;
    N c = sn_xp_choice(p, n);
    if (!c)
        return -1;
    if (sn_xml_is(c, "DeleteEntityAction")) {
        int i = sn_xp_new_action(p, c, SN_XA_DELETE_ENTITY);
        if (i >= 0)
            p->x->actions[i].ref = ent;
        return i;
    }
    if (!sn_xml_is(c, "AddEntityAction"))
        return sn_xp_unknown(p, c, n), -1;
    N pos = sn_xml_child(c, "Position");
    if (!pos)
        return sn_xp_fail(p, c, "needs a Position"), -1;
    int i = sn_xp_new_action(p, c, SN_XA_ADD_ENTITY);
    if (i < 0 || !sn_xp_parse_position(p, pos, &p->x->actions[i].pos))
        return -1;
    p->x->actions[i].ref = ent;
    p->x->ents[ent].added = true;
    return i;
}

/* A PrivateAction (global false) or a GlobalAction / UserDefinedAction (global true). */
int sn_xp_parse_action_body(P *p, N n)
{
    N c = sn_xp_choice(p, n);
    if (!c)
        return -1;
    if (sn_xml_is(c, "LongitudinalAction")) {
        N d = sn_xp_choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "SpeedAction"))
            return sn_xp_parse_speed(p, d);
        if (sn_xml_is(d, "LongitudinalDistanceAction"))
            return sn_xp_parse_long_dist(p, d);
        if (sn_xml_is(d, "SpeedProfileAction"))
            return sn_xp_parse_speed_profile(p, d);
        return sn_xp_unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "LateralAction")) {
        N d = sn_xp_choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "LaneChangeAction"))
            return sn_xp_parse_lane_change(p, d);
        if (sn_xml_is(d, "LaneOffsetAction"))
            return sn_xp_parse_lane_offset(p, d);
        if (sn_xml_is(d, "LateralDistanceAction"))
            return sn_xp_parse_lat_dist(p, d);
        return sn_xp_unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "TeleportAction")) {
        N pos = sn_xml_child(c, "Position");
        if (!pos)
            return sn_xp_fail(p, c, "needs a Position"), -1;
        int i = sn_xp_new_action(p, c, SN_XA_TELEPORT);
        return i >= 0 && sn_xp_parse_position(p, pos, &p->x->actions[i].pos) ? i : -1;
    }
    if (sn_xml_is(c, "RoutingAction")) {
        N d = sn_xp_choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "FollowTrajectoryAction"))
            return sn_xp_parse_follow_trajectory(p, d);
        if (sn_xml_is(d, "AssignRouteAction"))
            return sn_xp_parse_assign_route(p, d);
        if (sn_xml_is(d, "AcquirePositionAction")) {
            N pos = sn_xml_child(d, "Position");
            if (!pos)
                return sn_xp_fail(p, d, "needs a Position"), -1;
            int i = sn_xp_new_action(p, d, SN_XA_ACQUIRE);
            return i >= 0 && sn_xp_parse_position(p, pos, &p->x->actions[i].pos) ? i : -1;
        }
        return sn_xp_unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "ActivateControllerAction"))
        return parse_controller_activate(p, c);
    if (sn_xml_is(c, "ControllerAction")) {
        N d = sn_xp_choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "ActivateControllerAction"))
            return parse_controller_activate(p, d);
        if (sn_xml_is(d, "AssignControllerAction"))
            return parse_controller_assign(p, d);
        if (sn_xml_is(d, "OverrideControllerValueAction"))
            return sn_xp_noop(p, d, "OverrideControllerValueAction",
                        "OverrideControllerValueAction is not played: it overrides a controller's pedals, gear and "
                        "steering wheel, and sensim's storyboard drives its entities kinematically, without them");
        return sn_xp_unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "VisibilityAction"))
        return sn_xp_noop(p, c, "VisibilityAction", "VisibilityAction is not played: every entity stays visible to every sensor");
    if (sn_xml_is(c, "EnvironmentAction"))
        return parse_environment(p, c);
    if (sn_xml_is(c, "ParameterAction"))
        return parse_param_action(p, c, "parameterRef");
    if (sn_xml_is(c, "VariableAction"))
        return parse_param_action(p, c, "variableRef");
    if (sn_xml_is(c, "CustomCommandAction"))
        return sn_xp_noop(p, c, "CustomCommandAction", "CustomCommandAction is not played (no custom commands in sensim)");
    if (sn_xml_is(c, "SynchronizeAction"))
        return parse_sync(p, c);
    if (sn_xml_is(c, "InfrastructureAction"))
        return sn_xp_parse_infrastructure(p, c);
    if (sn_xml_is(c, "TrafficAction"))
        return parse_traffic(p, c);
    if (sn_xml_is(c, "AppearanceAction"))
        return parse_appearance(p, c);
    if (sn_xml_is(c, "TrailerAction"))
        return sn_xp_noop(p, c, "TrailerAction", "TrailerAction is not played: sensim's vehicles tow no trailers (the "
                    "entities stay apart, each moved by its own actions)");
    if (sn_xml_is(c, "EntityAction"))
        return parse_entity_action(p, c);
    if (sn_xml_is(c, "SetMonitorAction") || sn_xml_is(c, "AnimationAction") ||
        sn_xml_is(c, "LightStateAction"))
        return sn_xp_unsupported(p, c), -1;
    return sn_xp_unknown(p, c, n), -1;
}

/* ---- SynchronizeAction (xosc_sync.c plays it) ---- */

/* SynchronizeAction's SteadyState: the entity drives at its final speed over the last distance
** or time before the target. */
static bool parse_steady_state(P *p, N n, sn_xaction *a)
{
    N c = sn_xp_choice(p, n);
    if (!c)
        return false;
    if (sn_xml_is(c, "TargetDistanceSteadyState")) {
        a->ss_kind = 1;
        return sn_xp_num(p, c, "distance", true, 0, 0, 1e6, &a->ss_value);
    }
    if (sn_xml_is(c, "TargetTimeSteadyState")) {
        a->ss_kind = 2;
        return sn_xp_num(p, c, "time", true, 0, 0, 1e6, &a->ss_value);
    }
    return sn_xp_unknown(p, c, n), false;
}

static int parse_sync(P *p, N n)
{
    int i = sn_xp_new_action(p, n, SN_XA_SYNC);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if ((a->ref = sn_xp_entity_index(p, n, "masterEntityRef")) < 0)
        return -1;
    N tm = sn_xml_child(n, "TargetPositionMaster"), tp = sn_xml_child(n, "TargetPosition");
    if (!tm || !tp)
        return sn_xp_fail(p, n, "needs TargetPositionMaster and TargetPosition"), -1;
    a = &p->x->actions[i];
    if (!(a->verts = calloc(1, sizeof *a->verts)))
        return sn_xp_fail(p, n, "out of memory"), -1;
    a->n_verts = 1;
    /* the Position elements' children are the positions themselves (TargetPosition is a Position) */
    if (!sn_xp_parse_position(p, tm, &a->pos) || !sn_xp_parse_position(p, tp, &a->verts[0]))
        return -1;
    const char *tol = sn_xp_has_attr(n, "targetTolerance") ? "targetTolerance" : "tolerance";
    const char *tolm = sn_xp_has_attr(n, "targetToleranceMaster") ? "targetToleranceMaster" : "toleranceMaster";
    if (!sn_xp_num(p, n, tol, false, 0, 0, 1e6, &a->sync_tol) || !sn_xp_num(p, n, tolm, false, 0, 0, 1e6, &a->sync_tol_master))
        return -1;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "TargetPositionMaster") || sn_xml_is(c, "TargetPosition"))
            continue;
        if (!sn_xml_is(c, "FinalSpeed"))
            return sn_xp_unknown(p, c, n), -1;
        N f = sn_xp_choice(p, c);
        if (!f)
            return -1;
        a->has_sync_speed = true;
        if (sn_xml_is(f, "AbsoluteSpeed")) {
            if (sn_xml_child(f, "SteadyState") && !parse_steady_state(p, sn_xml_child(f, "SteadyState"), a))
                return -1;
            if (!sn_xp_num(p, f, "value", true, 0, 0, 1e4, &a->sync_speed))
                return -1;
        } else if (sn_xml_is(f, "RelativeSpeedToMaster")) {
            static const char *const types[] = {"delta", "factor", NULL};
            int t;
            if (sn_xml_child(f, "SteadyState") && !parse_steady_state(p, sn_xml_child(f, "SteadyState"), a))
                return -1;
            if (!sn_xp_num(p, f, "value", true, 0, -1e4, 1e4, &a->sync_speed) ||
                !sn_xp_enumer(p, f, "speedTargetValueType", true, 0, types, &t))
                return -1;
            a->sync_rel = true;
            a->factor = t == 1;
        } else {
            return sn_xp_unknown(p, f, c), -1;
        }
    }
    return i;
}

/* ---- TrafficAction (xosc_traffic.c plays it) and AppearanceAction ---- */

/* TrafficDefinition: VehicleCategoryDistribution's weights into a->weights (SN_XCAT_N);
** ControllerDistribution is sensim's autopilot (a warning). */
static bool traffic_definition(P *p, N n, sn_xaction *a)
{
    N def = sn_xml_child(n, "TrafficDefinition");
    if (!def) {
        if (sn_xml_child(n, "TrafficDistribution"))
            return sn_xp_unsupported(p, sn_xml_child(n, "TrafficDistribution"));
        return true;
    }
    SN_XML_EACH(c, def) {
        if (sn_xml_is(c, "ControllerDistribution")) {
            sn_xp_warn(p, c, "the spawned vehicles are driven by sensim's autopilot (docs/traffic.md), whatever controllers "
                       "it names");
            continue;
        }
        if (!sn_xml_is(c, "VehicleCategoryDistribution"))
            return sn_xp_unknown(p, c, def);
        if (!(a->weights = calloc(SN_XCAT_N, sizeof *a->weights)))
            return sn_xp_fail(p, c, "out of memory");
        double total = 0;
        SN_XML_EACH(e, c) {
            if (!sn_xml_is(e, "VehicleCategoryDistributionEntry"))
                return sn_xp_unknown(p, e, c);
            int k;
            double w;
            if (!sn_xp_enumer(p, e, "category", true, 0, sn_xosc_vehicle_cats, &k) || !sn_xp_num(p, e, "weight", true, 0, 0, 1e9, &w))
                return false;
            a->weights[k] += w;
            total += w;
        }
        if (!(total > 0))
            return sn_xp_fail(p, c, "the weights add up to 0: no category to spawn");
    }
    return true;
}

/* The spawned vehicles' speed: `velocity` (1.0, deprecated in 1.2) or 1.2's InitialSpeedRange. */
static bool traffic_speed(P *p, N n, sn_xaction *a)
{
    a->tr_v0 = a->tr_v1 = NAN;
    if (sn_xp_has_attr(n, "velocity")) {
        if (!sn_xp_num(p, n, "velocity", true, 0, 0, 1e3, &a->tr_v0))
            return false;
        a->tr_v1 = a->tr_v0;
    }
    N r = sn_xml_child(n, "InitialSpeedRange");
    if (r) {
        if (!sn_xp_num(p, r, "lowerLimit", true, 0, 0, 1e3, &a->tr_v0) || !sn_xp_num(p, r, "upperLimit", true, 0, 0, 1e3, &a->tr_v1))
            return false;
        if (a->tr_v1 < a->tr_v0)
            return sn_xp_fail(p, r, "upperLimit %g is below lowerLimit %g", a->tr_v1, a->tr_v0);
    }
    if (sn_xml_child(n, "DirectionOfTravelDistribution"))
        sn_xp_warn(p, sn_xml_child(n, "DirectionOfTravelDistribution"),
             "not read: every vehicle spawns in its lane's direction of travel");
    return true;
}

static int parse_traffic(P *p, N n)
{
    N d = sn_xp_choice(p, n);
    if (!d)
        return -1;
    int i = sn_xp_new_action(p, d, SN_XA_TRAFFIC);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (sn_xp_has_attr(n, "trafficName") && !(a->signal = sn_xp_dup_attr(p, n, "trafficName", true)))
        return -1;
    if (sn_xml_is(d, "TrafficStopAction")) {
        a->tr_kind = SN_XTF_STOP;
        if (!a->signal)
            return sn_xp_fail(p, n, "a TrafficStopAction needs the trafficName of the TrafficAction it stops"), -1;
        return i;
    }
    if (sn_xml_is(d, "TrafficSwarmAction")) {
        a->tr_kind = SN_XTF_SWARM;
        double nv;
        N central = sn_xml_child(d, "CentralObject");
        if (!central)
            return sn_xp_fail(p, d, "needs a CentralObject"), -1;
        if ((a->ref = sn_xp_entity_index(p, central, "entityRef")) < 0)
            return -1;
        if (!sn_xp_num(p, d, "innerRadius", true, 0, 0, 1e5, &a->tr_inner) ||
            !sn_xp_num(p, d, "semiMajorAxis", true, 0, 0, 1e5, &a->tr_major) ||
            !sn_xp_num(p, d, "semiMinorAxis", true, 0, 0, 1e5, &a->tr_minor) ||
            !sn_xp_num(p, d, "offset", false, 0, -1e5, 1e5, &a->tr_offset) ||
            !sn_xp_num(p, d, "numberOfVehicles", true, 0, 0, 1000, &nv) || !traffic_speed(p, d, a) ||
            !traffic_definition(p, d, a))
            return -1;
        if (nv != floor(nv))
            return sn_xp_fail(p, d, "attribute 'numberOfVehicles' is %g, not a whole number", nv), -1;
        a->tr_n = (uint32_t)nv;
        if (!(a->tr_major > 0) || !(a->tr_minor > 0))
            return sn_xp_fail(p, d, "semiMajorAxis and semiMinorAxis must be above 0"), -1;
        /* the ring must hold some area: the inner circle inside the whole ellipse leaves none */
        if (a->tr_inner >= fmax(a->tr_major, a->tr_minor) + fabs(a->tr_offset))
            return sn_xp_fail(p, d, "innerRadius %g covers the whole ellipse (semi-axes %g and %g, offset %g): no place to "
                        "spawn", a->tr_inner, a->tr_major, a->tr_minor, a->tr_offset), -1;
        return i;
    }
    if (sn_xml_is(d, "TrafficSourceAction") || sn_xml_is(d, "TrafficSinkAction")) {
        bool src = sn_xml_is(d, "TrafficSourceAction");
        a->tr_kind = src ? SN_XTF_SOURCE : SN_XTF_SINK;
        N pos = sn_xml_child(d, "Position");
        if (!pos)
            return sn_xp_fail(p, d, "needs a Position"), -1;
        if (!sn_xp_parse_position(p, pos, &a->pos) || !sn_xp_num(p, d, "radius", true, 0, 0, 1e5, &a->tr_radius) ||
            !sn_xp_num(p, d, "rate", src, INFINITY, 0, 1e4, &a->tr_rate) || !traffic_definition(p, d, a))
            return -1;
        if (src && !traffic_speed(p, d, a))
            return -1;
        if (src && !(a->tr_rate > 0))
            return sn_xp_fail(p, d, "rate must be above 0 (vehicles per second)"), -1;
        return i;
    }
    return sn_xp_unknown(p, d, n), -1;
}

/* AppearanceAction (1.2): LightStateAction onto CARLA's vehicle lights; AnimationAction a warning. */
static int parse_appearance(P *p, N n)
{
    N d = sn_xp_choice(p, n);
    if (!d)
        return -1;
    if (sn_xml_is(d, "AnimationAction"))
        return sn_xp_noop(p, d, "AnimationAction", "AnimationAction is not played: sensim's actors have no animations "
                    "(doors, wipers, a walker's motions)");
    if (!sn_xml_is(d, "LightStateAction"))
        return sn_xp_unknown(p, d, n), -1;
    int i = sn_xp_new_action(p, d, SN_XA_LIGHT);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    double tt;
    if (!sn_xp_num(p, d, "transitionTime", false, 0, 0, 1e6, &tt))
        return -1;
    a->dyn.value = tt;
    N type = sn_xml_child(d, "LightType"), st = sn_xml_child(d, "LightState");
    if (!type || !st)
        return sn_xp_fail(p, d, "needs LightType and LightState"), -1;
    N vl = sn_xp_choice(p, type);
    if (!vl)
        return -1;
    if (sn_xml_is(vl, "UserDefinedLight")) {
        sn_xp_warn(p, vl, "not played: sensim's vehicles have CARLA's lights only");
        a->light = 0;
    } else if (!sn_xml_is(vl, "VehicleLight")) {
        return sn_xp_unknown(p, vl, type), -1;
    } else {
        /* OpenSCENARIO 1.2's VehicleLightType -> CARLA's carla.VehicleLightState bits */
        static const char *const kinds[] = {"daytimeRunningLights", "lowBeam", "highBeam", "fogLights",
                                            "fogLightsFront", "fogLightsRear", "brakeLights", "warningLights",
                                            "indicatorLeft", "indicatorRight", "reversingLights", "licensePlateIllumination",
                                            "specialPurposeLights", NULL};
        static const uint32_t bits[] = {SN_LIGHT_POSITION, SN_LIGHT_LOW_BEAM, SN_LIGHT_HIGH_BEAM, SN_LIGHT_FOG,
                                        SN_LIGHT_FOG, SN_LIGHT_FOG, SN_LIGHT_BRAKE,
                                        SN_LIGHT_LEFT_BLINKER | SN_LIGHT_RIGHT_BLINKER, SN_LIGHT_LEFT_BLINKER,
                                        SN_LIGHT_RIGHT_BLINKER, SN_LIGHT_REVERSE, SN_LIGHT_POSITION, SN_LIGHT_SPECIAL1};
        int k;
        if (!sn_xp_enumer(p, vl, "vehicleLightType", true, 0, kinds, &k))
            return -1;
        a->light = bits[k];
    }
    static const char *const modes[] = {"off", "on", "flashing", NULL};
    int m;
    if (!sn_xp_enumer(p, st, "mode", true, 0, modes, &m))
        return -1;
    a->value = m;
    double lum, fon, foff;
    if (!sn_xp_num(p, st, "luminousIntensity", false, 0, 0, 1e9, &lum) ||
        !sn_xp_num(p, st, "flashingOnDuration", false, 0, 0, 1e6, &fon) ||
        !sn_xp_num(p, st, "flashingOffDuration", false, 0, 0, 1e6, &foff))
        return -1;
    if (sn_xml_child(st, "Color"))
        sn_xp_warn(p, sn_xml_child(st, "Color"), "not played: CARLA's vehicle lights have their own colours");
    if (sn_xp_has_attr(st, "luminousIntensity") || sn_xp_has_attr(st, "flashingOnDuration") || sn_xp_has_attr(st, "flashingOffDuration"))
        sn_xp_warn(p, st, "luminousIntensity and the flashing durations are not played: CARLA's light state is on or off "
                    "(flashing is on; a blinker blinks at its own rate)");
    if (tt > 0)
        sn_xp_warn(p, d, "transitionTime: the light switches at the end of it (CARLA's lights have no dimming)");
    return i;
}
