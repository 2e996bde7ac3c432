/* test_xosc_ext.c — the OpenSCENARIO elements added after the core (issue 34), on the shipped
** highway (argv[1]: maps/), each against ground truth derived by hand:
**   (a) FollowTrajectoryAction with a Clothoid: the path against the clothoid's closed form
**       (heading h0 + k s + k' s^2/2, position by a 100 000-step integration here), 1 mm along
**       the way and at its end; a Nurbs: a quadratic Bezier (clamped knots) with times, the entity
**       at B(t/T) every sampled time, 1e-6 m;
**   (c) SynchronizeAction: the entity's position every step against the closed form of its
**       speed profile, arriving with the master (with and without FinalSpeed);
**   (d) traffic signals: a controller's phases, TrafficSignalControllerAction and
**       TrafficSignalStateAction, and both conditions, at the times the phases give;
**   (e) RoutePosition: FromLaneCoordinates, FromRoadCoordinates, FromCurrentEntity against the lane
**       and road positions they name (the route's length through a junction from the map's
**       road lengths), 1 mm; pathS past the route's end refused;
**   (f) bad input of each: FILE:LINE and the element;
**   (g) a ManeuverGroup run again waits its event's condition delay again;
**   (h) SynchronizeAction measures the distance to go along the entity's route through a junction. */
#include "../../engine/scenario/xosc_pos.h"
#include "../check.h"
#include "xosc_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sn_map *highway;

#define DT 0.01

/* A scenario on the highway with the named cars (space-separated), Init actions, story, stop
** trigger and RoadNetwork extras. Caller frees. */
static char *doc(const char *ents, const char *road_extra, const char *init, const char *story, const char *stop)
{
    size_t n = 30000 + strlen(init) + strlen(story) + strlen(stop) + strlen(road_extra) + strlen(ents) * 400;
    char *s = malloc(n), e2[8192] = "";
    xh_cars(e2, sizeof e2, ents, "");
    snprintf(s, n,
             "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='x' description='t' author='t'/>\n"
             "<RoadNetwork><LogicFile filepath='highway.xodr'/>%s</RoadNetwork>\n"
             "<Entities>%s</Entities>\n<Storyboard><Init><Actions>\n%s</Actions></Init>\n%s\n<StopTrigger>%s</StopTrigger>"
             "</Storyboard></OpenSCENARIO>\n",
             road_extra, e2, init, story, stop);
    return s;
}

#define LANEPOS(road, lane, s) "<Position><LanePosition roadId='" road "' laneId='" lane "' s='" s "' offset='0'/></Position>"

/* One story of one event on `actor` with one private action, started by `start` (a Condition's
** ByValue/ByEntity body; "" starts at once). */
static void story1(char *out, size_t cap, const char *actor, const char *action, const char *start)
{
    char trig[4096] = "";
    if (*start)
        snprintf(trig, sizeof trig, "<StartTrigger><ConditionGroup><Condition name='Go' delay='0' conditionEdge='none'>%s"
                 "</Condition></ConditionGroup></StartTrigger>", start);
    snprintf(out, cap,
             "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
             "selectTriggeringEntities='false'><EntityRef entityRef='%s'/></Actors><Maneuver name='M'><Event name='E' "
             "priority='override'><Action name='Act'>%s</Action>%s</Event></Maneuver></ManeuverGroup>"
             "<StartTrigger/></Act></Story>",
             actor, action, trig);
}

/* ---- (a) trajectory shapes ---- */

static void test_clothoid(void)
{
    const double x0 = 20, y0 = -7.125, h0 = 0.1, k = 0.01, kp = 0.0008, L = 60, v = 10;
    char action[2048], story[8192];
    snprintf(action, sizeof action,
             "<PrivateAction><RoutingAction><FollowTrajectoryAction><Trajectory name='c' closed='false'><Shape><Clothoid "
             "curvature='%g' curvaturePrime='%g' length='%g'><Position><WorldPosition x='%g' y='%g' z='0' h='%g'/></Position>"
             "</Clothoid></Shape></Trajectory><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
             "followingMode='position'/></FollowTrajectoryAction></RoutingAction></PrivateAction>",
             k, kp, L, x0, y0, h0);
    story1(story, sizeof story, "Ego", action, "");
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "10"))) PRIV("Ego", SPEED("10")), story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "clothoid: %s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        int el = find_elem(x, "Act");
        double worst = 0, end_err = -1, end_h = 0;
        /* the Act has no trigger: the action starts at t = 0 with the story, so at time t the
        ** entity has travelled v t along the clothoid */
        for (int f = 0; f < 700 && !r.failed; f++) {
            sn_xrun_step(&r);
            double s = v * r.t;
            bool done = x->elems[el].state == SN_XST_COMPLETE;
            if (s > L + 1e-9 && !done)
                continue;
            if (s > L)
                s = L;
            if (f % 10 && !done) /* the closed form costs: every tenth step */
                continue;
            /* the closed form: integrate (cos h, sin h) with 100 000 midpoint steps */
            double X = x0, Y = y0;
            int n = 100000;
            for (int i = 0; i < n; i++) {
                double u = (i + 0.5) * s / n, h = h0 + k * u + 0.5 * kp * u * u;
                X += cos(h) * s / n, Y += sin(h) * s / n;
            }
            if (done && v * r.t > L) { /* the step's rest past the end, along the end's heading (esmini's) */
                double he = h0 + k * L + 0.5 * kp * L * L;
                X += (v * r.t - L) * cos(he), Y += (v * r.t - L) * sin(he);
            }
            double e = hypot(r.ents[0].x - X, r.ents[0].y - Y);
            if (!done)
                worst = fmax(worst, e);
            if (done) {
                end_err = e;
                end_h = r.ents[0].h - (h0 + k * L + 0.5 * kp * L * L);
                break;
            }
        }
        CHECK(!r.failed, "clothoid: %s", r.why);
        CHECK(worst < 1e-3, "clothoid: off its closed form by %.3g m along the way", worst);
        /* 1e-5: the sampled path's chords fall a few micrometres short of L, and the rest of the
        ** last step carries the entity that much further */
        CHECK(end_err >= 0 && end_err < 1e-5, "clothoid: ends %.3g m from the closed form's end (or never)", end_err);
        CHECK(fabs(end_h) < 0.01, "clothoid: heading at the end off by %.4f rad", end_h);
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "clothoid init: %s", r.why);
    }
    sn_xosc_free(x);
    free(xml);
}

static void test_nurbs(void)
{
    /* a quadratic Bezier P0 (20, -7.125), P1 (60, -2), P2 (100, -7.125) with times 0, 5, 10:
    ** time(u) = 10 u, so at t the entity is at B(t / 10) */
    const double P[3][2] = {{20, -7.125}, {60, -2}, {100, -7.125}};
    char action[4096], story[8192];
    snprintf(action, sizeof action,
             "<PrivateAction><RoutingAction><FollowTrajectoryAction><Trajectory name='n' closed='false'><Shape><Nurbs "
             "order='3'><ControlPoint time='0' weight='1'><Position><WorldPosition x='%g' y='%g'/></Position></ControlPoint>"
             "<ControlPoint time='5' weight='1'><Position><WorldPosition x='%g' y='%g'/></Position></ControlPoint>"
             "<ControlPoint time='10'><Position><WorldPosition x='%g' y='%g'/></Position></ControlPoint>"
             "<Knot value='0'/><Knot value='0'/><Knot value='0'/><Knot value='1'/><Knot value='1'/><Knot value='1'/>"
             "</Nurbs></Shape></Trajectory><TimeReference><Timing domainAbsoluteRelative='relative' scale='1' offset='0'/>"
             "</TimeReference></FollowTrajectoryAction></RoutingAction></PrivateAction>",
             P[0][0], P[0][1], P[1][0], P[1][1], P[2][0], P[2][1]);
    story1(story, sizeof story, "Ego", action, "");
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "10"))) PRIV("Ego", SPEED("10")), story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "nurbs: %s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        int el = find_elem(x, "Act");
        double worst = 0, done_at = -1;
        int checked = 0;
        for (int f = 0; f < 1100 && !r.failed; f++) {
            sn_xrun_step(&r);
            double t = r.t; /* started at t = 0 */
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
            /* the path is sampled at u = j / 200 (every 0.05 s here): compare there */
            double j = t / 0.05;
            if (t < 0 || t > 10 + 1e-9 || fabs(j - round(j)) > 1e-6 || done_at >= 0)
                continue;
            double u = t / 10, b0 = (1 - u) * (1 - u), b1 = 2 * u * (1 - u), b2 = u * u;
            double X = b0 * P[0][0] + b1 * P[1][0] + b2 * P[2][0], Y = b0 * P[0][1] + b1 * P[1][1] + b2 * P[2][1];
            worst = fmax(worst, hypot(r.ents[0].x - X, r.ents[0].y - Y));
            checked++;
        }
        CHECK(!r.failed, "nurbs: %s", r.why);
        CHECK(checked >= 190 && worst < 1e-6, "nurbs: %d sampled times, off B(t/10) by up to %.3g m", checked, worst);
        CHECK(done_at > 10 - 1e-9 && done_at < 10 + DT + 1e-9, "nurbs: ends at %.2f s, not 10.00-10.01", done_at);
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "nurbs init: %s", r.why);
    }
    sn_xosc_free(x);
    free(xml);
}


/* ---- (c) SynchronizeAction: Ego (lane -3, s 10, 10 m/s) is to reach s 70 when Lead (lane -2,
** s 0, 20 m/s) reaches s 100, at t = 5: without FinalSpeed at the constant 60 / 5 = 12 m/s; with
** FinalSpeed 15 along v(t) = 10 + t - 0.12 t (5 - t), s(t) = 10 + 10 t + t^2/2 - 0.12 (5 t^2/2 - t^3/3)
** (xosc_sync.c's profile: from 10 to 15 m/s covering 60 m in 5 s) ---- */

static void test_sync(void)
{
    for (int fs = 0; fs < 2; fs++) {
        char action[4096], story[8192];
        snprintf(action, sizeof action,
                 "<PrivateAction><SynchronizeAction masterEntityRef='Lead'><TargetPositionMaster><LanePosition roadId='1' "
                 "laneId='-2' s='100' offset='0'/></TargetPositionMaster><TargetPosition><LanePosition roadId='1' laneId='-3' "
                 "s='70' offset='0'/></TargetPosition>%s</SynchronizeAction></PrivateAction>",
                 fs ? "<FinalSpeed><AbsoluteSpeed value='15'/></FinalSpeed>" : "");
        story1(story, sizeof story, "Ego", action, "");
        char *xml = doc("Ego Lead", "",
                        PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "10"))) PRIV("Ego", SPEED("10"))
                            PRIV("Lead", TELEPORT(LANEPOS("1", "-2", "0"))) PRIV("Lead", SPEED("20")),
                        story, "");
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "sync: %s", err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, highway, DT)) {
            int el = find_elem(x, "Act");
            double worst = 0, done_at = -1, s_at5 = -1, v_at5 = -1;
            for (int f = 0; f < 700 && !r.failed; f++) {
                sn_xrun_step(&r);
                double t = r.t;
                if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                    done_at = t;
                if (t <= 5 + 1e-9) {
                    double want = fs ? 10 + 10 * t + t * t / 2 - 0.12 * (2.5 * t * t - t * t * t / 3) : 10 + 12 * t;
                    worst = fmax(worst, fabs(r.ents[0].s - want));
                }
                if (fabs(t - 5) < 1e-9)
                    s_at5 = r.ents[0].s, v_at5 = r.ents[0].v;
            }
            CHECK(!r.failed, "sync %d: %s", fs, r.why);
            CHECK(worst < 1e-6, "sync %d: off the closed form by %.3g m", fs, worst);
            CHECK(fabs(s_at5 - 70) < 1e-6 && fabs(v_at5 - (fs ? 15 : 12)) < 1e-6, "sync %d: at 5 s s %.6f v %.6f", fs, s_at5,
                  v_at5);
            CHECK(done_at > 5 - 1e-9 && done_at < 5 + DT + 1e-9, "sync %d: ends at %.2f, not 5.00-5.01", fs, done_at);
            sn_xrun_free(&r);
        } else if (x) {
            CHECK(0, "sync init: %s", r.why);
        }
        sn_xosc_free(x);
        free(xml);
    }
}

/* ---- (d) traffic signals: controller C starts 1 s in: phase stop (signal 7 red, 4 s), then go
** (signal 7 "off;off;on", esmini's lamps for green, 6 s). Events: Red1 (C in stop) at 1.00; Green
** (signal 7 green) at 5.00; at t > 7 Force sets C to stop: Red2 (signal 7 red again) in that
** step or the next, Go2 (C in go, with t > 8) 4 s after Force; at t > 12 SetOff sets signal 7 off
** (TrafficSignalStateAction): Off in that step or the next ---- */

#define EV(name, action, cond)                                                                                  \
    "<Event name='" name "' priority='parallel'><Action name='" name "A'>" action "</Action><StartTrigger>"     \
    "<ConditionGroup>" cond "</ConditionGroup></StartTrigger></Event>"
#define COND(body) "<Condition name='c' delay='0' conditionEdge='rising'><ByValueCondition>" body "</ByValueCondition></Condition>"
#define TIME_GT(v) "<Condition name='t' delay='0' conditionEdge='none'><ByValueCondition><SimulationTimeCondition value='" v \
                   "' rule='greaterThan'/></ByValueCondition></Condition>"
#define MARK "<GlobalAction><ParameterAction parameterRef='P'><ModifyAction><Rule><AddValue value='1'/></Rule></ModifyAction>" \
             "</ParameterAction></GlobalAction>"
#define INFRA(body) "<GlobalAction><InfrastructureAction><TrafficSignalAction>" body "</TrafficSignalAction></InfrastructureAction></GlobalAction>"

static void test_signals(void)
{
    const char *road = "<TrafficSignals><TrafficSignalController name='C' delay='1'>"
                       "<Phase name='stop' duration='4'><TrafficSignalState trafficSignalId='7' state='red'/></Phase>"
                       "<Phase name='go' duration='6'><TrafficSignalState trafficSignalId='7' state='off;off;on'/></Phase>"
                       "</TrafficSignalController></TrafficSignals>";
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
        "selectTriggeringEntities='false'/><Maneuver name='M'>"
        EV("Red1", MARK, COND("<TrafficSignalControllerCondition trafficSignalControllerRef='C' phase='stop'/>"))
        EV("Green", MARK, COND("<TrafficSignalCondition name='7' state='green'/>"))
        EV("Force", INFRA("<TrafficSignalControllerAction trafficSignalControllerRef='C' phase='stop'/>"), TIME_GT("7"))
        EV("Red2", MARK, COND("<TrafficSignalCondition name='7' state='on;off;off'/>") TIME_GT("7"))
        EV("Go2", MARK, COND("<TrafficSignalControllerCondition trafficSignalControllerRef='C' phase='go'/>") TIME_GT("8"))
        EV("SetOff", INFRA("<TrafficSignalStateAction name='7' state='off'/>"), TIME_GT("12"))
        EV("Off", MARK, COND("<TrafficSignalCondition name='7' state='OFF'/>"))
        "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>";
    char *xml = doc("Ego", road, PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "10"))), story, "");
    char *decl = strstr(xml, "<RoadNetwork>");
    char *full = malloc(strlen(xml) + 200);
    snprintf(full, strlen(xml) + 200, "%.*s<ParameterDeclarations><ParameterDeclaration name='P' value='0'/>"
             "</ParameterDeclarations>%s", (int)(decl - xml), xml, decl);
    sn_error err = {0};
    sn_xosc *x = load(full, &err);
    CHECK(x, "signals: %s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        static const char *names[] = {"Red1", "Green", "Force", "Red2", "Go2", "SetOff", "Off"};
        double at[7];
        int el[7];
        for (int k = 0; k < 7; k++)
            at[k] = -1, el[k] = find_elem(x, names[k]);
        for (int f = 0; f < 1400 && !r.failed; f++) {
            sn_xrun_step(&r);
            for (int k = 0; k < 7; k++)
                if (at[k] < 0 && x->elems[el[k]].state != SN_XST_STANDBY)
                    at[k] = r.t;
        }
        CHECK(!r.failed, "signals: %s", r.why);
        CHECK(fabs(at[0] - 1) < 1e-9, "Red1 at %.2f, not 1.00", at[0]);
        CHECK(fabs(at[1] - 5) < 1e-9, "Green at %.2f, not 5.00", at[1]);
        CHECK(fabs(at[2] - 7.01) < 1e-9, "Force at %.2f, not 7.01", at[2]);
        CHECK(at[3] >= at[2] - 1e-9 && at[3] <= at[2] + DT + 1e-9, "Red2 at %.2f, Force at %.2f", at[3], at[2]);
        CHECK(fabs(at[4] - (at[2] + 4)) < 1e-9, "Go2 at %.2f, not Force + 4 = %.2f", at[4], at[2] + 4);
        CHECK(at[6] >= at[5] - 1e-9 && at[6] <= at[5] + DT + 1e-9 && at[5] > 12, "Off at %.2f, SetOff at %.2f", at[6], at[5]);
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "signals init: %s", r.why);
    }
    sn_xosc_free(x);
    free(full);
    free(xml);
}


/* ---- (e) RoutePosition on the town: a route from road 2 (lane -1, s 40) through a junction to
** road 18 (lane -1, s 30). FromLaneCoordinates pathS 20 is LanePosition (2, -1, s 60); pathS
** = (road 2's length - 40) + the junction lane's length + 30 is the last waypoint itself;
** FromRoadCoordinates pathS 20, t -1 is RoadPosition (2, 60, -1); FromCurrentEntity is the
** entity's pose; pathS past the route's end is an error ---- */

static sn_map *town;

static void test_route_position(void)
{
    const char *route = "<RouteRef><Route name='r' closed='false'><Waypoint routeStrategy='shortest'><Position><LanePosition "
                        "roadId='2' laneId='-1' s='40' offset='0'/></Position></Waypoint><Waypoint routeStrategy='shortest'>"
                        "<Position><LanePosition roadId='18' laneId='-1' s='30' offset='0'/></Position></Waypoint></Route>"
                        "</RouteRef>";
    for (int k = 0; k < 4; k++) {
        char in[512];
        if (k == 0)
            snprintf(in, sizeof in, "<FromLaneCoordinates pathS='20' laneId='-1'/>");
        else if (k == 1)
            snprintf(in, sizeof in, "<FromRoadCoordinates pathS='20' t='-1'/>");
        else if (k == 2)
            snprintf(in, sizeof in, "<FromCurrentEntity entityRef='A'/>");
        else
            snprintf(in, sizeof in, "<FromLaneCoordinates pathS='PATHS' laneId='-1'/>");
        char xml[8192];
        snprintf(xml, sizeof xml,
                 "<OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='' description='' author=''/><RoadNetwork>"
                 "<LogicFile filepath='town.xodr'/></RoadNetwork><Entities><ScenarioObject name='A'>%s</ScenarioObject>"
                 "<ScenarioObject name='Ego'>%s</ScenarioObject></Entities><Storyboard><Init><Actions>"
                 "<Private entityRef='A'><PrivateAction><TeleportAction><Position><LanePosition roadId='2' laneId='-1' "
                 "s='50' offset='0.3'/></Position></TeleportAction></PrivateAction></Private>"
                 "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><RoutePosition>%s<InRoutePosition>%s"
                 "</InRoutePosition></RoutePosition></Position></TeleportAction></PrivateAction></Private></Actions></Init>"
                 "<StopTrigger/></Storyboard></OpenSCENARIO>",
                 CAR, CAR, route, in);
        sn_xpos want = {.kind = SN_XP_LANE, .road = 2, .lane = -1, .s = 60, .entity = -1, .route = -1};
        if (k == 1)
            want = (sn_xpos){.kind = SN_XP_ROAD, .road = 2, .s = 60, .t = -1, .entity = -1, .route = -1};
        if (k == 3) { /* the route's length to its last waypoint, from the map's road lengths */
            const sn_odr *o = town->odr;
            int32_t r2 = sn_odr_road_index(o, 2);
            double total = o->roads[r2].length - 40 + 30;
            /* the junction lane between them: the connecting road from 2 to 18 */
            double conn = -1;
            for (uint32_t i = 0; i < o->n_roads; i++) {
                const sn_odr_road *rd = &o->roads[i];
                if (rd->junction >= 0 && ((rd->pred.id == 2 && rd->succ.id == 18) || (rd->pred.id == 18 && rd->succ.id == 2)))
                    conn = conn < 0 ? rd->length : fmin(conn, rd->length);
            }
            CHECK(conn > 0, "no connecting road from road 2 to road 18");
            total += conn;
            char num[64], *at = strstr(xml, "PATHS");
            snprintf(num, sizeof num, "%.9f", total);
            char rest[8192];
            snprintf(rest, sizeof rest, "%s", at + 5);
            snprintf(at, sizeof xml - (size_t)(at - xml), "%s%s", num, rest);
            want = (sn_xpos){.kind = SN_XP_LANE, .road = 18, .lane = -1, .s = 30, .entity = -1, .route = -1};
        }
        sn_error err = {0};
        sn_xosc *x = load(xml, &err);
        CHECK(x, "route position %d: %s", k, err.msg);
        sn_xrun r;
        if (x && sn_xrun_init(&r, x, town, DT)) {
            double q[4], ss, off;
            int32_t ri;
            int lane;
            bool on;
            const sn_xent *e = &r.ents[1];
            if (k == 2) {
                q[0] = r.ents[0].x, q[1] = r.ents[0].y, q[3] = r.ents[0].h;
            } else {
                CHECK(sn_xmove_resolve(&r, &want, q, &ri, &lane, &ss, &off, &on), "resolve: %s", r.why);
            }
            CHECK(hypot(e->x - q[0], e->y - q[1]) < 1e-3 && fabs(remainder(e->h - q[3], 2 * M_PI)) < 1e-6,
                  "route position %d: (%.4f, %.4f, h %.4f), not (%.4f, %.4f, h %.4f)", k, e->x, e->y, e->h, q[0], q[1], q[3]);
            sn_xrun_free(&r);
        } else if (x) {
            CHECK(0, "route position %d init: %s", k, r.why);
        }
        sn_xosc_free(x);
    }
    /* past the end */
    char xml[8192];
    snprintf(xml, sizeof xml,
             "<OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='' description='' author=''/><RoadNetwork>"
             "<LogicFile filepath='town.xodr'/></RoadNetwork><Entities><ScenarioObject name='Ego'>%s</ScenarioObject>"
             "</Entities><Storyboard><Init><Actions><Private entityRef='Ego'><PrivateAction><TeleportAction><Position>"
             "<RoutePosition>%s<InRoutePosition><FromLaneCoordinates pathS='5000' laneId='-1'/></InRoutePosition>"
             "</RoutePosition></Position></TeleportAction></PrivateAction></Private></Actions></Init><StopTrigger/>"
             "</Storyboard></OpenSCENARIO>",
             CAR, route);
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    sn_xrun r;
    CHECK(x && !sn_xrun_init(&r, x, town, DT) && strstr(r.why, "pathS 5000 is past the route's end"),
          "pathS past the end: %s", x ? r.why : err.msg);
    if (x)
        sn_xrun_free(&r);
    sn_xosc_free(x);
}


/* ---- (g) a ManeuverGroup that runs again waits its event's delay again: SimulationTime > 0 with
** delay 1 starts the event 1 s after the condition first holds (1.01), its instant action ends
** it and the group (maximumExecutionCount 3) at once; each new execution's event starts 1 s after
** the one before, (the condition holds at once) not at once from the edges queued before ---- */

static void test_rerun_delay(void)
{
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='3'><Actors "
        "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'><Event name='E' "
        "priority='override'><Action name='Go'><PrivateAction>" SPEED("12") "</PrivateAction></Action><StartTrigger>"
        "<ConditionGroup><Condition name='c' delay='1' conditionEdge='none'><ByValueCondition><SimulationTimeCondition "
        "value='0' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event></Maneuver>"
        "</ManeuverGroup><StartTrigger/></Act></Story>";
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "10"))), story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "rerun: %s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, highway, DT)) {
        int ev = find_elem(x, "E");
        double starts[8];
        int n = 0;
        uint64_t seen = 0;
        for (int f = 0; f < 600 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (x->elems[ev].trans_seq[SN_XTR_START] > seen && n < 8) {
                seen = x->elems[ev].trans_seq[SN_XTR_START];
                starts[n++] = r.t;
            }
        }
        CHECK(!r.failed, "rerun: %s", r.why);
        CHECK(n == 3, "rerun: the event started %d times, not 3", n);
        for (int k = 0; k < n; k++)
            CHECK(starts[k] > 1.01 + k * 1.0 - 1e-9 && starts[k] < 1.01 + k * 1.01 + 1e-9,
                  "rerun: execution %d starts at %.2f, not about %.2f", k + 1, starts[k], 1.01 + k);
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "rerun init: %s", r.why);
    }
    sn_xosc_free(x);
    free(xml);
}


/* ---- (h) SynchronizeAction along a route: on the town, Ego (road 2, lane -1, s 40) has a route
** through the junction to road 18; its target is road 18, lane -1, s 30, L = (road 2's length - 40)
** + the connecting road's length + 30 ahead along its route. Lead (road 2, lane -1, s 10, 10 m/s)
** is to reach s 40 at T = 3 s. Without FinalSpeed Ego drives L / 3 from the first step ---- */

static void test_sync_route(void)
{
    const sn_odr *o = town->odr;
    int32_t r2 = sn_odr_road_index(o, 2);
    double conn = -1;
    for (uint32_t i = 0; i < o->n_roads; i++) {
        const sn_odr_road *rd = &o->roads[i];
        if (rd->junction >= 0 && ((rd->pred.id == 2 && rd->succ.id == 18) || (rd->pred.id == 18 && rd->succ.id == 2)))
            conn = conn < 0 ? rd->length : fmin(conn, rd->length);
    }
    double L = o->roads[r2].length - 40 + conn + 30;
    char xml[8192];
    snprintf(xml, sizeof xml,
             "<OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='' description='' author=''/><RoadNetwork>"
             "<LogicFile filepath='town.xodr'/></RoadNetwork><Entities><ScenarioObject name='Ego'>%s</ScenarioObject>"
             "<ScenarioObject name='Lead'>%s</ScenarioObject></Entities><Storyboard><Init><Actions>"
             "<Private entityRef='Ego'><PrivateAction><TeleportAction>" LANEPOS("2", "-1", "40") "</TeleportAction>"
             "</PrivateAction><PrivateAction><RoutingAction><AssignRouteAction><Route name='r' closed='false'><Waypoint "
             "routeStrategy='shortest'>" LANEPOS("18", "-1", "30") "</Waypoint></Route></AssignRouteAction></RoutingAction>"
             "</PrivateAction><PrivateAction>" SPEED("5") "</PrivateAction></Private>"
             "<Private entityRef='Lead'><PrivateAction><TeleportAction>" LANEPOS("2", "-1", "10") "</TeleportAction>"
             "</PrivateAction><PrivateAction>" SPEED("10") "</PrivateAction></Private></Actions></Init>"
             "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
             "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'><Event name='E' "
             "priority='override'><Action name='Act'><PrivateAction><SynchronizeAction masterEntityRef='Lead'>"
             "<TargetPositionMaster><LanePosition roadId='2' laneId='-1' s='40' offset='0'/></TargetPositionMaster>"
             "<TargetPosition><LanePosition roadId='18' laneId='-1' s='30' offset='0'/></TargetPosition>"
             "</SynchronizeAction></PrivateAction></Action></Event></Maneuver></ManeuverGroup><StartTrigger/></Act></Story>"
             "<StopTrigger/></Storyboard></OpenSCENARIO>",
             CAR, CAR);
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "sync route: %s", err.msg);
    sn_xrun r;
    if (x && sn_xrun_init(&r, x, town, DT)) {
        int el = find_elem(x, "Act");
        sn_xrun_step(&r);
        double v1 = r.ents[0].v, done_at = -1;
        for (int f = 0; f < 600 && !r.failed && done_at < 0; f++) {
            sn_xrun_step(&r);
            if (x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
        }
        CHECK(!r.failed, "sync route: %s", r.why);
        CHECK(fabs(v1 - L / 3) < 1e-6, "sync route: Ego at %.6f m/s, not L / 3 = %.6f (L = %.3f along its route)", v1,
              L / 3, L);
        CHECK(done_at > 3 - 1e-9 && done_at < 3 + DT + 1e-9, "sync route: ends at %.2f, not 3.00-3.01", done_at);
        /* it ends in the step it reaches s 30 or the next: within a step (L / 3 * DT) of it, give or
        ** take what the junction's curved lane differs from its reference line (a few centimetres) */
        CHECK(r.map->odr->roads[r.ents[0].ri].id == 18 && fabs(r.ents[0].s - 30) < L / 3 * DT + 0.05,
              "sync route: Ego ends on road %d s %.3f, not road 18 s 30 (+ a step)", r.map->odr->roads[r.ents[0].ri].id,
              r.ents[0].s);
        sn_xrun_free(&r);
    } else if (x) {
        CHECK(0, "sync route init: %s", r.why);
    }
    sn_xosc_free(x);
}

/* ---- bad input ---- */

static void bad(const char *what, const char *init, const char *road_extra, const char *story, const char *expect)
{
    char *xml = doc("Ego Lead", road_extra, init, story, "");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(!x, "%s accepted", what);
    CHECK(strstr(err.msg, expect) != NULL, "%s: '%s' lacks '%s'", what, err.msg, expect);
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "%s/test.xosc:", maps);
    CHECK(strncmp(err.msg, prefix, strlen(prefix)) == 0 && err.msg[strlen(prefix)] >= '1' && err.msg[strlen(prefix)] <= '9',
          "%s: '%s' does not start FILE:LINE", what, err.msg);
    sn_xosc_free(x);
    free(xml);
}

#define TRAJ(shape) PRIV("Ego", "<RoutingAction><FollowTrajectoryAction><Trajectory name='t' closed='false'><Shape>" shape \
                     "</Shape></Trajectory><TimeReference><None/></TimeReference></FollowTrajectoryAction></RoutingAction>")

static void test_bad_input(void)
{
    bad("clothoid length 0", TRAJ("<Clothoid curvature='0' curvaturePrime='0' length='0'/>"), "", "", "Clothoid: length 0");
    bad("clothoid half timed", TRAJ("<Clothoid curvature='0' curvaturePrime='0' length='5' startTime='0'/>"), "", "",
        "both startTime and stopTime");
    bad("nurbs knots", TRAJ("<Nurbs order='2'><ControlPoint><Position><WorldPosition x='0' y='0'/></Position></ControlPoint>"
                            "<ControlPoint><Position><WorldPosition x='1' y='0'/></Position></ControlPoint><Knot value='0'/>"
                            "</Nurbs>"),
        "", "", "1 knots; a Nurbs of 2 control points and order 2 needs 4");
    bad("nurbs weight", TRAJ("<Nurbs order='1'><ControlPoint weight='-1'><Position><WorldPosition x='0' y='0'/></Position>"
                             "</ControlPoint><Knot value='0'/><Knot value='1'/></Nurbs>"),
        "", "", "attribute 'weight' is -1");
    bad("sync without targets", PRIV("Ego", "<SynchronizeAction masterEntityRef='Lead'/>"), "", "",
        "SynchronizeAction: needs TargetPositionMaster and TargetPosition");
    bad("sync dangling master", PRIV("Ego", "<SynchronizeAction masterEntityRef='Nobody'/>"), "", "",
        "masterEntityRef 'Nobody' names no entity");
    bad("unknown controller", "<GlobalAction>" "<InfrastructureAction><TrafficSignalAction><TrafficSignalControllerAction "
                              "trafficSignalControllerRef='X' phase='a'/></TrafficSignalAction></InfrastructureAction>"
                              "</GlobalAction>",
        "", "", "trafficSignalControllerRef 'X' names no TrafficSignalController");
    bad("unknown phase", "<GlobalAction><InfrastructureAction><TrafficSignalAction><TrafficSignalControllerAction "
                         "trafficSignalControllerRef='C' phase='nope'/></TrafficSignalAction></InfrastructureAction>"
                         "</GlobalAction>",
        "<TrafficSignals><TrafficSignalController name='C'><Phase name='a' duration='1'/></TrafficSignalController>"
        "</TrafficSignals>", "", "phase 'nope' is no phase of controller 'C'");
    bad("zero cycle", "", "<TrafficSignals><TrafficSignalController name='C'><Phase name='a' duration='0'/>"
                          "</TrafficSignalController></TrafficSignals>", "", "a cycle needs time");
}

int main(int argc, char **argv)
{
    if (!xh_begin(argc, argv, "test_xosc_ext", &highway))
        return argc < 2 ? 2 : 1;
    test_clothoid();
    test_nurbs();
    test_sync();
    test_signals();
    if (!(town = xh_map("town.xodr", "the town")))
        return 1;
    test_route_position();
    test_sync_route();
    test_rerun_delay();
    sn_map_close(town);
    test_bad_input();
    sn_map_close(highway);
    return CHECK_DONE();
}
