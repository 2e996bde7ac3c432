/* test_xosc.c — OpenSCENARIO (engine/scenario) on the shipped highway and town (argv[1]: maps/):
**   (a) parameters and ${expressions}, loops and undefined names refused;
**   (b) each SpeedAction shape (step, linear, cubic, sinusoidal) in each dimension (time,
**       distance, rate): speed and position every step against the shape's closed form, 1e-6
**       relative; a LaneChangeAction's lateral position likewise;
**   (c) positions (World, Lane, Road, RelativeLane, RelativeObject, RelativeWorld, RelativeRoad)
**       against coordinates computed by hand from the map's straight roads, 1 mm;
**   (d) each condition at its threshold: its event starts in the first step in which the rule
**       holds by the closed form of the motion (within one step where the rule's value is a sum
**       of steps); edges and delay;
**   (e) element states in the standard's order; priorities override and skip;
**       maximumExecutionCount;
**   (f) bad input: one error naming FILE:LINE and the element. */
#include "../check.h"
#include "xosc_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sn_map *highway, *town;

#define DT 0.01

/* A scenario on the highway: Ego on lane -3 at s=10 and the given extra entities, init and story. */
static char *doc(const char *params, const char *ents, const char *init, const char *story, const char *stop)
{
    size_t n = 20000 + strlen(ents) * 4 + strlen(init) + strlen(story) + strlen(params) + strlen(stop);
    size_t n_e2 = strlen(ents) * 400 + 4096;
    char *s = malloc(n), *e2 = malloc(n_e2);
    /* ents: names separated by spaces, each a car */
    e2[0] = 0;
    char names[512];
    snprintf(names, sizeof names, "Ego %s", ents);
    xh_cars(e2, n_e2, names, "");
    snprintf(s, n,
             "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='x' description='t' author='t'/>\n"
             "<ParameterDeclarations>%s</ParameterDeclarations>\n"
             "<RoadNetwork><LogicFile filepath='highway.xodr'/></RoadNetwork>\n"
             "<Entities>%s</Entities>\n<Storyboard><Init><Actions>\n"
             "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='10' offset='0'/></Position></TeleportAction></PrivateAction></Private>\n"
             "%s</Actions></Init>\n%s\n<StopTrigger>%s</StopTrigger></Storyboard></OpenSCENARIO>\n",
             params, e2, init, story, stop);
    free(e2);
    return s;
}

#define SPEED_INIT(ent, shape, dim, val, target)                                                                 \
    "<Private entityRef='" ent "'><PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape='" shape \
    "' value='" val "' dynamicsDimension='" dim "'/><SpeedActionTarget><AbsoluteTargetSpeed value='" target                   \
    "'/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Private>\n"

/* ---- (a) ---- */

static void test_params(void)
{
    sn_xparams p = {0};
    sn_xparam_set(&p, "a", "5", 1, false);
    sn_xparam_set(&p, "b", "${$a * 2 + 1}", 2, false);
    sn_xparam_set(&p, "loop1", "$loop2", 3, false);
    sn_xparam_set(&p, "loop2", "${$loop1 + 1}", 4, false);
    char out[256], why[256];
    CHECK(sn_xparam_subst(&p, "$b", out, sizeof out, why, sizeof why) && !strcmp(out, "11"), "$b = %s", out);
    CHECK(sn_xparam_subst(&p, "${($a + 1) / 4}", out, sizeof out, why, sizeof why) && !strcmp(out, "1.5"), "(a+1)/4 = %s", out);
    CHECK(sn_xparam_subst(&p, "${$a > 3 and not ($a == 4)}", out, sizeof out, why, sizeof why) && !strcmp(out, "1"), "cmp = %s", out);
    CHECK(sn_xparam_subst(&p, "${pow(2, 10) - round(2.5) % 2}", out, sizeof out, why, sizeof why) && !strcmp(out, "1023"), "fn = %s", out);
    CHECK(sn_xparam_subst(&p, "${-$a * -2}", out, sizeof out, why, sizeof why) && !strcmp(out, "10"), "neg = %s", out);
    /* esmini's constants pi and e (its trajectory_speed.xosc writes h="${pi/2}") */
    CHECK(sn_xparam_subst(&p, "${pi/2}", out, sizeof out, why, sizeof why) && fabs(atof(out) - 1.5707963267948966) < 1e-12,
          "pi/2 = %s", out);
    CHECK(sn_xparam_subst(&p, "${log(e) + pi - pi}", out, sizeof out, why, sizeof why) && !strcmp(out, "1"), "log(e) = %s", out);
    CHECK(!sn_xparam_subst(&p, "$loop1", out, sizeof out, why, sizeof why), "a loop resolved");
    CHECK_CONTAINS(why, "parameter loop");
    CHECK(!sn_xparam_subst(&p, "$nope", out, sizeof out, why, sizeof why), "an undefined name resolved");
    CHECK_CONTAINS(why, "undefined parameter 'nope'");
    CHECK(!sn_xparam_subst(&p, "${1 +}", out, sizeof out, why, sizeof why), "a broken expression evaluated");
    CHECK(!sn_xparam_subst(&p, "${1 / 0}", out, sizeof out, why, sizeof why), "1/0 accepted");
    sn_xparams_free(&p);
}

/* ---- (b) ---- */

static double shape_v(const char *shape, double v0, double v1, double T, double t)
{
    double tau = T > 0 ? fmin(1, t / T) : 1, d = v1 - v0;
    if (!strcmp(shape, "linear"))
        return v0 + d * tau;
    if (!strcmp(shape, "cubic"))
        return v0 + d * (3 * tau * tau - 2 * tau * tau * tau);
    if (!strcmp(shape, "sinusoidal"))
        return v0 + d * 0.5 * (1 - cos(M_PI * tau));
    return v1;
}

static double shape_s(const char *shape, double v0, double v1, double T, double t)
{
    if (T <= 0 || !strcmp(shape, "step"))
        return v1 * t;
    double tt = fmin(t, T), tau = tt / T, d = v1 - v0, s;
    if (!strcmp(shape, "linear"))
        s = v0 * tt + d * tt * tt / (2 * T);
    else if (!strcmp(shape, "cubic"))
        s = v0 * tt + d * T * (pow(tau, 3) - pow(tau, 4) / 2);
    else
        s = v0 * tt + d / 2 * (tt - T * sin(M_PI * tau) / M_PI);
    return s + v1 * (t - tt);
}

static void test_speed_shapes(void)
{
    static const char *shapes[] = {"step", "linear", "cubic", "sinusoidal"};
    static const char *dims[] = {"time", "distance", "rate"};
    const double v0 = 10, v1 = 20;
    for (int si = 0; si < 4; si++)
        for (int di = 0; di < 3; di++) {
            const char *val = di == 0 ? "4" : di == 1 ? "60" : "2.5";
            /* rate: the shape's peak rate (linear 1, cubic 1.5, sinusoidal pi/2 times the mean) */
            double k = si == 2 ? 1.5 : si == 3 ? M_PI / 2 : 1;
            double T = di == 0 ? 4 : di == 1 ? 2 * 60 / (v0 + v1) : k * (v1 - v0) / 2.5;
            char init[2048];
            snprintf(init, sizeof init, SPEED_INIT("Ego", "step", "time", "0", "10")
                     "<Private entityRef='Ego'><PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics "
                     "dynamicsShape='%s' value='%s' dynamicsDimension='%s'/><SpeedActionTarget><AbsoluteTargetSpeed "
                     "value='20'/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Private>",
                     shapes[si], val, dims[di]);
            char *xml = doc("", "", init, "", "");
            sn_error err = {0};
            sn_xosc *x = load(xml, &err);
            CHECK(x, "%s", err.msg);
            sn_xrun r;
            if (x && sn_xrun_init(&r, x, highway, DT)) {
                double worst_v = 0, worst_s = 0;
                for (int k = 0; k < 800; k++) {
                    sn_xrun_step(&r);
                    double t = r.t, ev = shape_v(shapes[si], v0, v1, T, t), es = 10 + shape_s(shapes[si], v0, v1, T, t);
                    worst_v = fmax(worst_v, fabs(r.ents[0].v - ev) / ev);
                    worst_s = fmax(worst_s, fabs(r.ents[0].s - es) / es);
                }
                CHECK(worst_v <= 1e-6 && worst_s <= 1e-6, "%s/%s: speed off by %.3g, position by %.3g (relative)",
                      shapes[si], dims[di], worst_v, worst_s);
                sn_xrun_free(&r);
            } else if (x) {
                CHECK(0, "init: %s", r.why);
            }
            sn_xosc_free(x);
            free(xml);
        }
}

static void test_lane_change_shape(void)
{
    for (int si = 1; si < 4; si++) {
        static const char *shapes[] = {"step", "linear", "cubic", "sinusoidal"};
        char story[4096];
        snprintf(story, sizeof story,
                 "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                 "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'><Event name='E' "
                 "priority='override'><Action name='LC'><PrivateAction><LateralAction><LaneChangeAction><LaneChangeActionDynamics "
                 "dynamicsShape='%s' value='2' dynamicsDimension='time'/><LaneChangeTarget><AbsoluteTargetLane "
                 "value='-2'/></LaneChangeTarget></LaneChangeAction></LateralAction></PrivateAction></Action>"
                 "</Event></Maneuver></ManeuverGroup></Act></Story>",
                 shapes[si]);
        char *xml = doc("", "", SPEED_INIT("Ego", "step", "time", "0", "10"), story, "");
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "%s", err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, highway, DT)) {
            double worst = 0, worst_path = 0;
            for (int k = 0; k < 300; k++) {
                double x0 = r.ents[0].x, y0 = r.ents[0].y;
                sn_xrun_step(&r);
                /* starts at t = 0 (an act and event without triggers): lane -3 (t = -7.125) to -2 (-3.375) */
                double y = -7.125 + 3.75 * shape_v(shapes[si], 0, 1, 2, r.t);
                worst = fmax(worst, fabs(r.ents[0].y - y) / 3.75);
                /* the speed is along the path: each step covers v dt, sideways included */
                worst_path = fmax(worst_path, fabs(hypot(r.ents[0].x - x0, r.ents[0].y - y0) - 10 * DT) / (10 * DT));
            }
            CHECK(worst_path <= 1e-6, "lane change %s: a step's path is off v dt by %.3g (relative)", shapes[si], worst_path);
            CHECK(worst <= 1e-6, "lane change %s: lateral off by %.3g (relative)", shapes[si], worst);
            CHECK(r.ents[0].lane == -2, "lane %d after the change", r.ents[0].lane);
            sn_xrun_free(&r);
        }
        sn_xosc_free(x);
        free(xml);
    }
}

/* ---- (c) ---- */

static void test_positions(void)
{
    static const struct {
        const char *pos;
        double x, y, h;
    } cases[] = {
        {"<WorldPosition x='12.5' y='-3' z='0' h='0.3'/>", 12.5, -3, 0.3},
        {"<LanePosition roadId='1' laneId='-3' s='50' offset='0.5'/>", 50, -6.625, 0},
        {"<LanePosition roadId='1' laneId='2' s='100' offset='0'/>", 100, 3.375, M_PI},
        {"<LanePosition roadId='1' laneId='-4' s='120' offset='0'><Orientation type='relative' h='0.1'/></LanePosition>", 120, -10.875, 0.1},
        {"<RoadPosition roadId='1' s='30' t='-2'/>", 30, -2, 0},
        {"<RelativeLanePosition entityRef='Ego' dLane='1' ds='10' offset='0'/>", 20, -3.375, 0},
        {"<RelativeLanePosition entityRef='Ego' dLane='-1' ds='5' offset='-0.25'/>", 15, -11.125, 0},
        {"<RelativeObjectPosition entityRef='Ego' dx='5' dy='1'/>", 15, -6.125, 0},
        {"<RelativeWorldPosition entityRef='Ego' dx='-2' dy='0.5'/>", 8, -6.625, 0},
        {"<RelativeRoadPosition entityRef='Ego' ds='40' dt='1'/>", 50, -6.125, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char init[1024];
        snprintf(init, sizeof init,
                 "<Private entityRef='Other'><PrivateAction><TeleportAction><Position>%s</Position></TeleportAction>"
                 "</PrivateAction></Private>", cases[i].pos);
        char *xml = doc("", "Other", init, "", "");
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "%s", err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, highway, DT)) {
            const sn_xent *e = &r.ents[1];
            double dh = atan2(sin(e->h - cases[i].h), cos(e->h - cases[i].h));
            CHECK(fabs(e->x - cases[i].x) <= 1e-3 && fabs(e->y - cases[i].y) <= 1e-3 && fabs(dh) < 1e-6,
                  "%s: (%.6f, %.6f, %.6f), expected (%g, %g, %g)", cases[i].pos, e->x, e->y, e->h, cases[i].x, cases[i].y,
                  cases[i].h);
            sn_xrun_free(&r);
        } else if (x) {
            CHECK(0, "%s: %s", cases[i].pos, r.why);
        }
        sn_xosc_free(x);
        free(xml);
    }
    /* the town: road 2 runs along x from 10 to 90 at y = 0, lanes 3.5 m wide */
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<OpenSCENARIO><FileHeader revMajor='1' revMinor='0' date='' description='' author=''/><RoadNetwork><LogicFile "
             "filepath='town.xodr'/></RoadNetwork><Entities><ScenarioObject name='P'><Pedestrian name='p' model='' mass='80' "
             "pedestrianCategory='pedestrian'><BoundingBox><Center x='0' y='0' z='0.9'/><Dimensions width='0.5' length='0.5' "
             "height='1.8'/></BoundingBox></Pedestrian></ScenarioObject></Entities><Storyboard><Init><Actions><Private "
             "entityRef='P'><PrivateAction><TeleportAction><Position><LanePosition roadId='2' laneId='-2' s='20' offset='0'/>"
             "</Position></TeleportAction></PrivateAction></Private></Actions></Init><StopTrigger/></Storyboard></OpenSCENARIO>");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, town, DT)) {
        /* sidewalk -2: 3 m wide outside the 3.5 m lane -1: centre at t = -5 */
        CHECK(fabs(r.ents[0].x - 30) < 1e-3 && fabs(r.ents[0].y + 5) < 1e-3, "town sidewalk: (%.6f, %.6f)", r.ents[0].x,
              r.ents[0].y);
        CHECK(r.ents[0].mode == SN_XM_FREE, "a pedestrian walks free, mode %d", r.ents[0].mode);
        sn_xrun_free(&r);
    }
    sn_xosc_free(x);
}

/* ---- (d) ---- */

typedef struct {
    const char *name, *cond;
    double t;      /* the first time the rule holds by the closed form */
    double slack;  /* further time allowed (one step where the measure is a sum of steps) */
} cond_case;

static void test_conditions(void)
{
#define ENT(trig, body)                                                                                        \
    "<ByEntityCondition><TriggeringEntities triggeringEntitiesRule='any'><EntityRef entityRef='" trig        \
    "'/></TriggeringEntities><EntityCondition>" body "</EntityCondition></ByEntityCondition>"
#define VAL(body) "<ByValueCondition>" body "</ByValueCondition>"
    /* Ego from s=10 at 10 m/s, accelerating linearly from t=0 by 1 m/s^2 for 10 s; Lead from s=200 at 5
    ** m/s, same lane; Parked stands on lane -2 at s=30. */
    static const cond_case cases[] = {
        {"SimTime", VAL("<SimulationTimeCondition value='1' rule='greaterThan'/>"), 1.01, 0},
        {"SimTimeDelay", VAL("<SimulationTimeCondition value='1' rule='greaterOrEqual'/>"), 1.5, 0},
        {"Speed", ENT("Ego", "<SpeedCondition value='15' rule='greaterThan'/>"), 5.01, 0},
        {"Accel", ENT("Ego", "<AccelerationCondition value='0.5' rule='greaterThan'/>"), 0.01, 0},
        {"Traveled", ENT("Ego", "<TraveledDistanceCondition value='25'/>"), 0, 0.01},
        {"Reach", ENT("Ego", "<ReachPositionCondition tolerance='1'><Position><WorldPosition x='60' y='-7.125'/></Position></ReachPositionCondition>"), 0, 0.01},
        {"Distance", ENT("Ego", "<DistanceCondition value='5' freespace='false' rule='lessThan'><Position><WorldPosition x='60' y='-7.125'/></Position></DistanceCondition>"), 0, 0.01},
        {"RelDist", ENT("Ego", "<RelativeDistanceCondition entityRef='Lead' relativeDistanceType='longitudinal' value='100' freespace='true' rule='lessThan'/>"), 0, 0.01},
        {"Headway", ENT("Ego", "<TimeHeadwayCondition entityRef='Lead' value='8' freespace='false' rule='lessThan'/>"), 0, 0.01},
        {"TTC", ENT("Ego", "<TimeToCollisionCondition value='10' freespace='false' rule='lessThan'><TimeToCollisionConditionTarget><EntityRef entityRef='Lead'/></TimeToCollisionConditionTarget></TimeToCollisionCondition>"), 0, 0.01},
        {"StandStill", ENT("Parked", "<StandStillCondition duration='2'/>"), 2.0, 0},
        {"RelSpeed", ENT("Ego", "<RelativeSpeedCondition entityRef='Lead' value='9' rule='greaterThan'/>"), 4.01, 0},
        {"Falling", VAL("<SimulationTimeCondition value='2' rule='lessThan'/>"), 2.0, 0},
        {"State", VAL("<StoryboardElementStateCondition storyboardElementType='action' storyboardElementRef='Set' state='endTransition'/>"), 3.01, 0},
        {"Param", VAL("<ParameterCondition parameterRef='Flag' value='1' rule='equalTo'/>"), 3.01, 0},
        {"Collision", ENT("Ego", "<CollisionCondition><EntityRef entityRef='Lead'/></CollisionCondition>"), 0, 0.01},
        /* to Parked, a lane to the left: the straight-line distance, esmini's default
        ** relativeDistanceType (euclidianDistance, signed by ahead or behind) over Ego's speed */
        {"HeadwayEucl", ENT("Ego", "<TimeHeadwayCondition entityRef='Parked' value='1' freespace='false' rule='lessThan'/>"), 0, 0.01},
    };
    const size_t n = sizeof cases / sizeof *cases;
    /* closed forms: Ego s(t) = 10 + 10t + t^2/2 (t <= 10), v = 10 + t; Lead s = 200 + 5t */
    double tt[17];
    {
        /* Traveled 25: 10t + t^2/2 = 25 */
        tt[4] = -10 + sqrt(100 + 50);
        /* Reach: |60 - (10 + 10t + t^2/2)| < 1 -> ego x > 59 */
        tt[5] = -10 + sqrt(100 + 2 * 49);
        /* Distance < 5 -> x > 55 */
        tt[6] = -10 + sqrt(100 + 2 * 45);
        /* RelDist freespace: (200 + 5t - 0.9) - (10 + 10t + t^2/2 + 3.7) < 100 -> t^2/2 + 5t - 85.4 > 0 */
        tt[7] = -5 + sqrt(25 + 2 * 85.4);
        /* Headway: (190 - 5t - t^2/2) / (10 + t) < 8 -> t^2/2 + 13t - 110 > 0 */
        tt[8] = -13 + sqrt(169 + 220);
        /* TTC: (190 - 5t - t^2/2) / (5 + t) < 10 -> t^2/2 + 15t - 140 > 0 */
        tt[9] = -15 + sqrt(225 + 280);
        /* Collision: boxes touch when 190 - 5t - t^2/2 = 4.6 (after 10 s: v = 20) */
        double t10 = 190 - 50 - 50;            /* gap of reference points at t = 10: 90 */
        tt[15] = 10 + (t10 - 4.6) / (20 - 5); /* closing at 15 m/s after t = 10 */
    }
    char story[65536] = "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                        "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
                        "<Event name='Setter' priority='parallel'><Action name='Set'><GlobalAction><ParameterAction parameterRef='Flag'>"
                        "<SetAction value='1'/></ParameterAction></GlobalAction></Action><StartTrigger><ConditionGroup><Condition "
                        "name='c' delay='0' conditionEdge='rising'><ByValueCondition><SimulationTimeCondition value='3' "
                        "rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>";
    for (size_t i = 0; i < n; i++)
        snprintf(story + strlen(story), sizeof story - strlen(story),
                 "<Event name='E_%s' priority='parallel'><Action name='A_%s'><GlobalAction><ParameterAction "
                 "parameterRef='Dummy'><ModifyAction><Rule><AddValue value='1'/></Rule></ModifyAction></ParameterAction>"
                 "</GlobalAction></Action><StartTrigger><ConditionGroup><Condition name='C_%s' delay='%s' "
                 "conditionEdge='%s'>%s</Condition></ConditionGroup></StartTrigger></Event>",
                 cases[i].name, cases[i].name, cases[i].name, strcmp(cases[i].name, "SimTimeDelay") ? "0" : "0.5",
                 !strcmp(cases[i].name, "Falling") ? "falling" : "rising", cases[i].cond);
    strcat(story, "</Maneuver></ManeuverGroup></Act></Story>");
    char *xml = doc("<ParameterDeclaration name='Flag' parameterType='integer' value='0'/>"
                    "<ParameterDeclaration name='Dummy' parameterType='double' value='0'/>",
                    "Lead Parked",
                    SPEED_INIT("Ego", "step", "time", "0", "10") SPEED_INIT("Ego", "linear", "time", "10", "20")
                    SPEED_INIT("Lead", "step", "time", "0", "5")
                    "<Private entityRef='Lead'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='200' offset='0'/></Position></TeleportAction></PrivateAction></Private>"
                    "<Private entityRef='Parked'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-2' s='30' offset='0'/></Position></TeleportAction></PrivateAction></Private>",
                    story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        /* HeadwayEucl: sqrt(lon^2 + lat^2) / (10 + t) < 1 with lon = 20 - 10t - t^2/2 and lat the lanes'
        ** distance (longitudinal alone: t = -11 + sqrt(141) = 0.874 s, 0.12 s earlier) */
        double lat = fabs(r.ents[2].y - r.ents[0].y), lo = 0, hi = 2;
        CHECK(fabs(lat - 3.75) < 1e-6 && fabs(r.ents[2].x - r.ents[0].x - 20) < 1e-6, "Parked a lane (3.75 m) beside Ego's start, 20 m on: %g",
              lat);
        for (int it = 0; it < 100; it++) {
            double t = 0.5 * (lo + hi), lon = 20 - 10 * t - t * t / 2;
            if (lon * lon + lat * lat < (10 + t) * (10 + t))
                hi = t;
            else
                lo = t;
        }
        tt[16] = hi;
        CHECK(tt[16] - (-11 + sqrt(141)) > 5 * DT, "the euclidean headway fires %g s after a longitudinal one",
              tt[16] - (-11 + sqrt(141)));
        double fired[17];
        for (size_t i = 0; i < n; i++)
            fired[i] = -1;
        for (int k = 0; k < 2000 && !r.failed; k++) {
            if (k)
                sn_xrun_step(&r);
            for (size_t i = 0; i < n; i++) {
                char name[64];
                snprintf(name, sizeof name, "E_%s", cases[i].name);
                for (uint32_t el = 0; el < x->n_elems; el++)
                    if (!strcmp(x->elems[el].name, name) && x->elems[el].trans_seq[SN_XTR_START] && fired[i] < 0)
                        fired[i] = r.t;
            }
        }
        CHECK(!r.failed, "%s", r.why);
        for (size_t i = 0; i < n; i++) {
            double want = cases[i].t ? cases[i].t : tt[i];
            /* the first step at or after the closed form's time */
            double first = ceil(want / DT - 1e-6) * DT;
            if (!cases[i].t && fabs(first - want) < 1e-9) /* exactly on a step: the rule is strict */
                first += DT;
            CHECK(fired[i] >= first - 1e-9 && fired[i] <= first + cases[i].slack + 1e-9,
                  "%s fired at %.2f, the rule holds first at %.4f (step %.2f)", cases[i].name, fired[i], want, first);
        }
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "init: %s", r.why);
    }
    sn_xosc_free(x);
    free(xml);
}

/* ---- (e) ---- */

static void test_states_and_priorities(void)
{
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors selectTriggeringEntities='false'>"
        "<EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
        "<Event name='Slow' priority='override'><Action name='SlowA'><PrivateAction><LongitudinalAction><SpeedAction>"
        "<SpeedActionDynamics dynamicsShape='linear' value='5' dynamicsDimension='time'/><SpeedActionTarget>"
        "<AbsoluteTargetSpeed value='5'/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Action>"
        "<StartTrigger><ConditionGroup><Condition name='c1' delay='0' conditionEdge='rising'><ByValueCondition>"
        "<SimulationTimeCondition value='0.5' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>"
        "<Event name='Skipped' priority='skip'><Action name='SkipA'><GlobalAction><ParameterAction parameterRef='N'><ModifyAction>"
        "<Rule><AddValue value='100'/></Rule></ModifyAction></ParameterAction></GlobalAction></Action>"
        "<StartTrigger><ConditionGroup><Condition name='c2' delay='0' conditionEdge='rising'><ByValueCondition>"
        "<SimulationTimeCondition value='1' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>"
        "<Event name='Thrice' priority='parallel' maximumExecutionCount='3'><Action name='Count'><GlobalAction><ParameterAction parameterRef='N'><ModifyAction>"
        "<Rule><AddValue value='1'/></Rule></ModifyAction></ParameterAction></GlobalAction></Action>"
        "<StartTrigger><ConditionGroup><Condition name='c3' delay='0' conditionEdge='none'><ByValueCondition>"
        "<SimulationTimeCondition value='1.5' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>"
        "<Event name='Brake' priority='override'><Action name='BrakeA'><PrivateAction><LongitudinalAction><SpeedAction>"
        "<SpeedActionDynamics dynamicsShape='step' value='0' dynamicsDimension='time'/><SpeedActionTarget>"
        "<AbsoluteTargetSpeed value='0'/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Action>"
        "<StartTrigger><ConditionGroup><Condition name='c4' delay='0' conditionEdge='rising'><ByValueCondition>"
        "<SimulationTimeCondition value='2' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>"
        "</Maneuver></ManeuverGroup></Act></Story>";
    char *xml = doc("<ParameterDeclaration name='N' parameterType='double' value='0'/>", "",
                    SPEED_INIT("Ego", "step", "time", "0", "10"), story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        for (int k = 0; k < 400; k++)
            sn_xrun_step(&r);
        const sn_xelem *slow = &x->elems[find_elem(x, "Slow")], *skipped = &x->elems[find_elem(x, "Skipped")];
        const sn_xelem *brake = &x->elems[find_elem(x, "Brake")], *slowa = &x->elems[find_elem(x, "SlowA")];
        CHECK(skipped->trans_seq[SN_XTR_SKIP] && !skipped->trans_seq[SN_XTR_START] && skipped->state == SN_XST_STANDBY,
              "skip: a running sibling makes the event skip (state %d)", skipped->state);
        CHECK(slow->trans_seq[SN_XTR_STOP] && slowa->trans_seq[SN_XTR_STOP] && slow->state == SN_XST_COMPLETE,
              "override: Brake stops Slow and its action");
        CHECK(brake->state == SN_XST_COMPLETE && r.ents[0].v == 0, "Brake ran: v %g", r.ents[0].v);
        sn_xparam *n = sn_xparam_find(&x->params, "N");
        CHECK(n && atof(n->value) == 3, "maximumExecutionCount 3: N = %s", n ? n->value : "?");
        /* the standard's order: start downward, end upward (an event without trigger ends the tree) */
        const char *down[] = {"Storyboard", "S", "A", "G", "M"};
        for (int i = 0; i + 1 < 5; i++)
            CHECK(x->elems[find_elem(x, down[i])].trans_seq[SN_XTR_START] < x->elems[find_elem(x, down[i + 1])].trans_seq[SN_XTR_START],
                  "%s starts before %s", down[i], down[i + 1]);
        CHECK(slow->trans_seq[SN_XTR_START] < slowa->trans_seq[SN_XTR_START], "an event starts before its action");
        const sn_xelem *thrice = &x->elems[find_elem(x, "Thrice")], *count = &x->elems[find_elem(x, "Count")];
        CHECK(count->trans_seq[SN_XTR_END] < thrice->trans_seq[SN_XTR_END], "an action ends before its event");
        sn_xrun_free(&r);
    }
    sn_xosc_free(x);
    free(xml);
}

/* ---- routes (town: road 2 runs east to the junction at (100, 0); road 18 leaves it north,
** road 17 arrives from the south) ---- */

static void test_routes(void)
{
    static const char *acts[] = {
        "<AssignRouteAction><Route name='r' closed='false'><Waypoint routeStrategy='shortest'><Position>"
        "<LanePosition roadId='18' laneId='-1' s='30' offset='0'/></Position></Waypoint></Route></AssignRouteAction>",
        "<AcquirePositionAction><Position><LanePosition roadId='17' laneId='1' s='20' offset='0'/></Position>"
        "</AcquirePositionAction>",
    };
    for (int k = 0; k < 2; k++) {
        char xml[8192];
        snprintf(xml, sizeof xml,
                 "<OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='' description='' author=''/><RoadNetwork>"
                 "<LogicFile filepath='town.xodr'/></RoadNetwork><Entities><ScenarioObject name='Ego'><Vehicle name='v' "
                 "vehicleCategory='car'><BoundingBox><Center x='1.4' y='0' z='0.75'/><Dimensions width='1.9' length='4.6' "
                 "height='1.5'/></BoundingBox><Performance maxSpeed='70' maxAcceleration='10' maxDeceleration='10'/>"
                 "</Vehicle></ScenarioObject></Entities><Storyboard><Init><Actions><Private entityRef='Ego'><PrivateAction>"
                 "<TeleportAction><Position><LanePosition roadId='2' laneId='-1' s='40' offset='0'/></Position>"
                 "</TeleportAction></PrivateAction><PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics "
                 "dynamicsShape='step' value='0' dynamicsDimension='time'/><SpeedActionTarget><AbsoluteTargetSpeed "
                 "value='10'/></SpeedActionTarget></SpeedAction></LongitudinalAction></PrivateAction></Private></Actions></Init>"
                 "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                 "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'><Event name='E' "
                 "priority='override'><Action name='R'><PrivateAction><RoutingAction>%s</RoutingAction></PrivateAction>"
                 "</Action></Event></Maneuver></ManeuverGroup></Act></Story><StopTrigger/></Storyboard></OpenSCENARIO>",
                 acts[k]);
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "route %d: %s", k, err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, town, DT)) {
            double reached = -1;
            int el = find_elem(x, "R");
            for (int f = 0; f < 1200 && !r.failed; f++) {
                sn_xrun_step(&r);
                if (reached < 0 && x->elems[el].state == SN_XST_COMPLETE)
                    reached = r.t;
            }
            CHECK(!r.failed, "route %d: %s", k, r.why);
            int32_t want = k == 0 ? 18 : 17;
            CHECK(r.map->odr->roads[r.ents[0].ri].id == want || (k == 1 && reached > 0),
                  "route %d: after 12 s on road %d, not %d", k, r.map->odr->roads[r.ents[0].ri].id, want);
            if (k == 0) /* north on road 18, lane -1: x = 101.75 */
                CHECK(fabs(r.ents[0].x - 101.75) < 1e-3 && fabs(r.ents[0].h - M_PI / 2) < 1e-6,
                      "route: (%.3f, %.3f, h %.3f)", r.ents[0].x, r.ents[0].y, r.ents[0].h);
            else /* 40 m to the junction, a right turn of radius ~6.75 (10.6 m), 20 m south on road 17 */
                CHECK(reached > 6.5 && reached < 7.5 && fabs(r.ents[0].x - 98.25) < 1e-3,
                      "acquire: reached at %.2f, x %.3f", reached, r.ents[0].x);
            sn_xrun_free(&r);
        } else if (x) {
            CHECK(0, "route %d init: %s", k, r.why);
        }
        sn_xosc_free(x);
    }
}

/* ---- LongitudinalDistanceAction: Ego keeps 30 m (reference points) behind Lead, exactly without
** DynamicConstraints, converging within the limits with them ---- */

static void test_long_distance(void)
{
    for (int lim = 0; lim < 2; lim++) {
        char story[2048];
        snprintf(story, sizeof story,
                 "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                 "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'><Event name='E' "
                 "priority='override'><Action name='LD'><PrivateAction><LongitudinalAction><LongitudinalDistanceAction "
                 "entityRef='Lead' distance='30' freespace='false' continuous='true'>%s</LongitudinalDistanceAction>"
                 "</LongitudinalAction></PrivateAction></Action><StartTrigger><ConditionGroup><Condition name='c' delay='0' "
                 "conditionEdge='rising'><ByValueCondition><SimulationTimeCondition value='1' rule='greaterThan'/>"
                 "</ByValueCondition></Condition></ConditionGroup></StartTrigger></Event></Maneuver></ManeuverGroup></Act>"
                 "</Story>",
                 lim ? "<DynamicConstraints maxAcceleration='2' maxDeceleration='4' maxSpeed='40'/>" : "");
        char *xml = doc("", "Lead",
                        SPEED_INIT("Ego", "step", "time", "0", "20") SPEED_INIT("Lead", "step", "time", "0", "20")
                        "<Private entityRef='Lead'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' "
                        "laneId='-3' s='60' offset='0'/></Position></TeleportAction></PrivateAction></Private>",
                        story, "");
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "%s", err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, highway, DT)) {
            double worst_acc = 0;
            for (int k = 0; k < 1200 && !r.failed; k++) {
                double v0 = r.ents[0].v;
                sn_xrun_step(&r);
                if (r.t > 1.015)
                    worst_acc = fmax(worst_acc, (r.ents[0].v - v0) / DT > 0 ? (r.ents[0].v - v0) / DT / 2 : (v0 - r.ents[0].v) / DT / 4);
                if (!lim && r.t > 1.025)
                    CHECK(fabs(r.ents[1].s - r.ents[0].s - 30) < 1e-9, "t %.2f: gap %.9f, not 30", r.t, r.ents[1].s - r.ents[0].s);
            }
            CHECK(!r.failed, "%s", r.why);
            CHECK(fabs(r.ents[1].s - r.ents[0].s - 30) < 0.05 && fabs(r.ents[0].v - 20) < 0.05,
                  "%s: after 12 s the gap is %.3f at %.3f m/s", lim ? "limited" : "exact", r.ents[1].s - r.ents[0].s,
                  r.ents[0].v);
            if (lim)
                CHECK(worst_acc <= 1 + 1e-9, "the limits were exceeded by %.3g", worst_acc);
            sn_xrun_free(&r);
        }
        sn_xosc_free(x);
        free(xml);
    }
}

/* ---- selectTriggeringEntities: the Act starts when any of Ego, Fast goes over 15 m/s (Fast
** does, at 20); its group's actors are the entities that did: Fast brakes, Ego does not ---- */

static void test_select_triggering(void)
{
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
        "selectTriggeringEntities='true'/><Maneuver name='M'><Event name='E' priority='override'><Action name='Stop'>"
        "<PrivateAction><LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape='step' value='0' "
        "dynamicsDimension='time'/><SpeedActionTarget><AbsoluteTargetSpeed value='0'/></SpeedActionTarget></SpeedAction>"
        "</LongitudinalAction></PrivateAction></Action></Event></Maneuver></ManeuverGroup><StartTrigger><ConditionGroup>"
        "<Condition name='fast' delay='0' conditionEdge='none'><ByEntityCondition><TriggeringEntities "
        "triggeringEntitiesRule='any'><EntityRef entityRef='Ego'/><EntityRef entityRef='Fast'/></TriggeringEntities>"
        "<EntityCondition><SpeedCondition value='15' rule='greaterThan'/></EntityCondition></ByEntityCondition>"
        "</Condition></ConditionGroup></StartTrigger></Act></Story>";
    char *xml = doc("", "Fast",
                    SPEED_INIT("Ego", "step", "time", "0", "10") SPEED_INIT("Fast", "step", "time", "0", "20")
                    "<Private entityRef='Fast'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-2' "
                    "s='10' offset='0'/></Position></TeleportAction></PrivateAction></Private>",
                    story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        for (int k = 0; k < 10; k++)
            sn_xrun_step(&r);
        CHECK(r.ents[1].v == 0 && r.ents[0].v == 10, "selectTriggeringEntities: Ego %g m/s (10), Fast %g (0)", r.ents[0].v,
              r.ents[1].v);
        sn_xrun_free(&r);
    }
    sn_xosc_free(x);
    free(xml);
}

/* ---- (f) ---- */

static void test_bad_input(void)
{
    static const struct {
        const char *what, *from, *to, *expect;
    } cases[] = {
        {"malformed XML", "</Entities>", "</Entitie>", "XML:"},
        {"unknown element", "<Init>", "<Init><Foo/>", "unknown element <Foo>"},
        {"dangling entity", "<Private entityRef='Ego'>", "<Private entityRef='Nobody'>", "entityRef 'Nobody' names no entity"},
        {"parameter loop", "<ParameterDeclarations>", "<ParameterDeclarations><ParameterDeclaration name='L1' value='$L2'/>"
                                                       "<ParameterDeclaration name='L2' value='$L1'/>",
         "parameter loop"},
        {"negative duration", "value='0' dynamicsDimension='time'", "value='-1' dynamicsDimension='time'", "negative"},
        {"NaN speed", "<AbsoluteTargetSpeed value='10'/>", "<AbsoluteTargetSpeed value='nan'/>", "not a finite number"},
        {"missing LogicFile", "highway.xodr", "nowhere.xodr", "cannot open"},
        {"a catalog", "<Init>", "<Init><Actions><Private entityRef='Ego'><PrivateAction><RoutingAction><AssignRouteAction>"
                                "<CatalogReference catalogName='r' entryName='x'/></AssignRouteAction></RoutingAction>"
                                "</PrivateAction></Private></Actions>",
         "no entry 'x' in a catalog named 'r'"},
        {"an unsupported action", "<Init>", "<Init><Actions><GlobalAction><SetMonitorAction monitorRef='m' value='true'"
                                            "/></GlobalAction></Actions>",
         "<SetMonitorAction> is not supported"},
        {"bad state ref", "<StopTrigger>", "<StopTrigger><ConditionGroup><Condition name='c' delay='0' conditionEdge='none'>"
                                          "<ByValueCondition><StoryboardElementStateCondition storyboardElementType='event' "
                                          "storyboardElementRef='NoSuch' state='endTransition'/></ByValueCondition></Condition>"
                                          "</ConditionGroup>",
         "names no event"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *xml = doc("<ParameterDeclaration name='P' value='1'/>", "", SPEED_INIT("Ego", "step", "time", "0", "10"), "", "");
        char *at = strstr(xml, cases[i].from);
        CHECK(at, "%s: template lacks '%s'", cases[i].what, cases[i].from);
        if (!at) {
            free(xml);
            continue;
        }
        size_t n = strlen(xml) + strlen(cases[i].to) + 1;
        char *bad = malloc(n);
        snprintf(bad, n, "%.*s%s%s", (int)(at - xml), xml, cases[i].to, at + strlen(cases[i].from));
        sn_error err = {0};
        sn_xosc *x = load(bad, &err);
        CHECK(!x, "%s accepted", cases[i].what);
        CHECK(strstr(err.msg, cases[i].expect) != NULL, "%s: '%s' lacks '%s'", cases[i].what, err.msg, cases[i].expect);
        char prefix[1200];
        snprintf(prefix, sizeof prefix, "%s/test.xosc:", maps);
        CHECK(strncmp(err.msg, prefix, strlen(prefix)) == 0 && err.msg[strlen(prefix)] >= '1' &&
                  err.msg[strlen(prefix)] <= '9',
              "%s: '%s' does not start FILE:LINE", cases[i].what, err.msg);
        sn_xosc_free(x);
        free(bad);
        free(xml);
    }
}

int main(int argc, char **argv)
{
    if (!xh_begin(argc, argv, "test_xosc", &highway))
        return argc < 2 ? 2 : 1;
    if (!(town = xh_map("town.xodr", "the town")))
        return 1;
    test_params();
    test_speed_shapes();
    test_lane_change_shape();
    test_positions();
    test_conditions();
    test_states_and_priorities();
    test_routes();
    test_long_distance();
    test_select_triggering();
    test_bad_input();
    sn_map_close(highway);
    sn_map_close(town);
    return CHECK_DONE();
}
