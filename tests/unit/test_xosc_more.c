/* test_xosc_more.c — OpenSCENARIO actions added in the third round (issue 34), on the shipped
** highway (argv[1]: maps/), each against values derived by hand:
**   (a) SpeedProfileAction, followingMode position: entries (0 at 0 s), (10 m/s after 5 s), (0
**       after 5 s): v = 2t then 10 - 2(t - 5), s = s0 + t^2 then s0 + 25 + 10u - u^2 (u = t - 5),
**       1e-9 m every step, the action complete at 10.00 s (esmini's rising_edge.xosc);
**   (b) SpeedProfileAction within limits: 20 m/s in 2 s at maxAcceleration 5 is lengthened to 4 s,
**       then 30 m/s without a time takes 2 s: v(4) = 20, v(6) = 30, s(6) = 10 + 40 + 50;
**   (c) LateralDistanceAction: rigid, left of its reference by 4 m (freespace false) from the next
**       step, 1e-9 m; with maxSpeed 1 and maxAcceleration 2 a 3.5 m move takes at least
**       1.5 s + (3.5 - 0.25 - 0.25) / 1 ... bounded below by the bang-bang time and ends within
**       1 cm of the target, never faster than 1 m/s sideways;
**   (d) controllers: AssignControllerAction of an external controller, then ActivateControllerAction
**       hands the entity to the user (mode external); lateral-only activation of an entity without
**       a controller fails the run with FILE:LINE; of a controller sensim does not play, plays on;
**       OverrideControllerValueAction loads with a warning;
**   (e) SynchronizeAction with tolerances, esmini's rule: Lead (13 m/s from s 0, its target s 100,
**       targetToleranceMaster 1) reaches its tolerance's edge (s 99) at 99/13 = 7.615 s; Ego (s 10,
**       its target s 70, targetTolerance 1) is planned to its own edge, 59 m in that time: 59 x 13 /
**       99 m/s from the first step; the action ends in the step in which Lead crosses s 99, the one
**       from 7.61 s (logged at 7.62), not when it is within 1 m (7.63);
**   (f) SynchronizeAction with FinalSpeed 15 and TargetTimeSteadyState 1 s: Lead at 20 m/s reaches
**       s 100 at 5 s; Ego (s 10, 10 m/s, target s 70) follows the profile to s 55 and 15 m/s at
**       4 s (s = 10 + 10t + 0.625t^2 - 0.46875(2t^2 - t^3/3)), then 15 m/s: 1e-6 m every step;
**   (g) ClothoidSpline: a clothoid 0 -> 0.02 1/m over 50 m from (20, -7.125, h 0.1), then an arc
**       of 0.02 1/m over 30 m turned by hOffset 0.05: the end of the first by a 100 000-step
**       integration, the arc's end in closed form (radius 50), the entity's end within 1e-6 m;
**       with times (0, 4, timeEnd 8 s) the entity is at the joint at 4 s;
**   (h) AngleCondition and RelativeAngleCondition (1.3) on the arc at s 450: heading 0.125 in world
**       (within its tolerance, outside a narrower one, and 2 pi on), 0 in road and lane coordinates,
**       pitch -atan(the elevation's slope), roll the superelevation -0.03, relative to a car heading
**       -0.1: 0.225; a negative tolerance is a FILE:LINE error;
**   (i) RelativeSpeedCondition's direction (1.2): the triggering entity's velocity along the
**       reference's x and y axes less the reference's own (esmini's rule), to 1e-9;
**   (j) a relative SpeedAction at a linear rate aims at its reference's speed of each step: v and s
**       in closed form, the end in the step where the speeds meet (10/3 s);
**   (k) SpeedProfileAction followingMode follow with jerk limits: the corners rounded with constant
**       jerk, v and s against the closed form of each piece (1e-9), the end where the last round does;
**       one entry is esmini's special case: on time when a line of constant acceleration fits, else
**       later, the acceleration clamped to maxAcceleration;
**   (l) FollowTrajectoryAction's heading on a timed Polyline: followingMode follow turns it over
**       each whole segment, position within 2 m of the corners (esmini's interpolations), 1e-9;
**   (m) a Polyline with heights gives the entity its pitch (-atan(dz/ds), turned over the segment in
**       follow mode), 1e-9; back on its lane it takes the road's;
**   (n) RelativeLanePosition with dsLane (along the reference's lane; dLane and offset to its left),
**       ds, and neither, at hand-computed places on the highway, 1e-6 m;
**   (o) an entity facing against an untimed trajectory reverses along it at a negative speed,
**       still facing its way (esmini's initialHeadingSign), 1e-9;
**   (p) ReachPositionCondition with an Orientation: the heading within 0.05 rad too (esmini's);
**   (q) a trajectory that ends inside a step moves the rest of the step along its final heading
**       (esmini's FollowTrajectoryAction::Step), untimed and timed: x0 + vt across the end, 1e-9;
**   (r) FollowTrajectoryAction's initialDistanceOffset: the entity starts that far along the path
**       (clamped to its end), 1e-9; a negative one is a FILE:LINE error;
**   (s) a route's junction connection chosen by the road at its far end when the route does not
**       hold the connecting road itself (esmini's MoveToConnectingRoad), against town.xodr's links;
**   (t) the way an entity faces along a trajectory by esmini's rule, not its heading before: along
**       the path (turned round for a negative speed), or a given vertex heading as given, 1e-9;
**   (u) an entity on a lane heads along the lane's centre, which leans off the reference line
**       where a lane inside it narrows (esmini's Position::GetHOffset): on Highway_B's onRamp lane
**       -5, its width w(u) = 3.75 - 0.0005u^2 + 2.2222e-6u^3 (u = s - 150), the heading is the road's
**       0.4375 + atan(-w'(u)/2) (atan 0.01875 at s 225), placed, driven and reversed, 1e-9;
**   (c) also: a rigid, non-continuous LateralDistanceAction ends in the step after the one that put
**       the entity at the distance. */
#include "../check.h"
#include "xosc_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sn_map *highway;

/* A scenario on the highway: cars `ents` (space-separated), each with `ctl` as ObjectController
** when given; Init actions and a story. Caller frees. */
static char *doc(const char *ents, const char *ctl, const char *init, const char *story)
{
    size_t n = 30000 + strlen(init) + strlen(story) + strlen(ctl) * 8 + strlen(ents) * 400;
    char *s = malloc(n), e2[8192] = "";
    xh_cars(e2, sizeof e2, ents, ctl);
    snprintf(s, n,
             "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='x' description='t' author='t'/>\n"
             "<RoadNetwork><LogicFile filepath='highway.xodr'/></RoadNetwork>\n"
             "<Entities>%s</Entities>\n<Storyboard><Init><Actions>\n%s</Actions></Init>\n%s\n<StopTrigger/>"
             "</Storyboard></OpenSCENARIO>\n",
             e2, init, story);
    return s;
}

#define LANEPOS(lane, s) "<Position><LanePosition roadId='1' laneId='" lane "' s='" s "' offset='0'/></Position>"
#define STORY(actor, action)                                                                                          \
    "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "                        \
    "selectTriggeringEntities='false'><EntityRef entityRef='" actor "'/></Actors><Maneuver name='M'><Event name='E' " \
    "priority='override'><Action name='Act'><PrivateAction>" action "</PrivateAction></Action></Event></Maneuver>"    \
    "</ManeuverGroup><StartTrigger/></Act></Story>"

/* Loads and starts a run; NULL (and a failed check) when either fails. */
static sn_xosc *start(const char *what, const char *xml, sn_xrun *r)
{
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s: %s", what, err.msg);
    if (x && !sn_xrun_init(r, x, highway, 0.01)) {
        CHECK(0, "%s init: %s", what, r->why);
        sn_xosc_free(x);
        return NULL;
    }
    return x;
}

/* ---- (a) ---- */
static void test_profile_position(void)
{
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), STORY("Ego",
        "<LongitudinalAction><SpeedProfileAction followingMode='position'><SpeedProfileEntry speed='0' time='0'/>"
        "<SpeedProfileEntry speed='10' time='5'/><SpeedProfileEntry speed='0' time='5'/></SpeedProfileAction>"
        "</LongitudinalAction>"));
    sn_xrun r;
    sn_xosc *x = start("profile", xml, &r);
    if (x) {
        int el = find_elem(x, "Act");
        /* an Act without a StartTrigger starts with the storyboard, at t = 0 */
        double worst_s = 0, worst_v = 0, done_at = -1, t0 = x->elems[el].state == SN_XST_RUNNING ? r.t : -1;
        CHECK(t0 == 0, "profile: the action is %s at t = 0", sn_xstate_name(x->elems[el].state));
        for (int f = 0; f < 1200 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
            if (t0 < 0 || r.t <= t0)
                continue;
            double t = r.t - t0, u = t - 5, v, s;
            if (t <= 5)
                v = 2 * t, s = 10 + t * t;
            else if (t <= 10)
                v = 10 - 2 * u, s = 10 + 25 + 10 * u - u * u;
            else
                v = 0, s = 60;
            worst_s = fmax(worst_s, fabs(r.ents[0].s - s));
            worst_v = fmax(worst_v, fabs(r.ents[0].v - v));
        }
        CHECK(!r.failed, "profile: %s", r.why);
        CHECK(worst_s < 1e-9 && worst_v < 1e-9, "profile: off the closed form by %.3g m, %.3g m/s", worst_s, worst_v);
        CHECK(fabs(done_at - t0 - 10) < 1e-6, "profile: complete %.3f s after its start, not 10", done_at - t0);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (b) ---- */
static void test_profile_limits(void)
{
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego",
        "<LongitudinalAction><SpeedProfileAction followingMode='position'><DynamicConstraints maxAcceleration='5' "
        "maxDeceleration='5'/><SpeedProfileEntry speed='20' time='2'/><SpeedProfileEntry speed='30'/>"
        "</SpeedProfileAction></LongitudinalAction>"), "");
    sn_xrun r;
    sn_xosc *x = start("profile limits", xml, &r);
    if (x) {
        double v4 = -1, v6 = -1, s6 = -1, v2 = -1;
        for (int f = 0; f < 800 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (fabs(r.t - 2) < 1e-9)
                v2 = r.ents[0].v;
            if (fabs(r.t - 4) < 1e-9)
                v4 = r.ents[0].v;
            if (fabs(r.t - 6) < 1e-9)
                v6 = r.ents[0].v, s6 = r.ents[0].s;
        }
        CHECK(!r.failed, "profile limits: %s", r.why);
        CHECK(fabs(v2 - 10) < 1e-9 && fabs(v4 - 20) < 1e-9 && fabs(v6 - 30) < 1e-9,
              "profile limits: v(2) %.6f v(4) %.6f v(6) %.6f, not 10, 20, 30", v2, v4, v6);
        CHECK(fabs(s6 - 100) < 1e-9, "profile limits: s(6) %.9f, not 100", s6);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (c) Ego on lane -3 (s 10), Ref on lane -2 (s 10), both 10 m/s; the highway's lanes are
** straight along x. Ego is put 4 m left of Ref: its road t is Ref's + 4 ---- */
static void test_lat_dist(void)
{
    /* lim 0: rigid, continuous; 1: limited; 2: rigid, not continuous */
    for (int lim = 0; lim < 3; lim++) {
        char action[1024], *xml;
        snprintf(action, sizeof action,
                 "<LateralAction><LateralDistanceAction entityRef='Ref' distance='4' freespace='false' continuous='%s' "
                 "displacement='leftToReferencedEntity'>%s</LateralDistanceAction></LateralAction>",
                 lim ? "false" : "true", lim == 1 ? "<DynamicConstraints maxSpeed='1' maxAcceleration='2'/>" : "");
        char story[4096];
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        xml = doc("Ego Ref", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10"))
                                     PRIV("Ref", TELEPORT(LANEPOS("-2", "10"))) PRIV("Ref", SPEED("10")), story);
        sn_xrun r;
        sn_xosc *x = start("lat dist", xml, &r);
        if (!x) {
            free(xml);
            continue;
        }
        int el = find_elem(x, "Act");
        double worst = 0, done_at = -1, max_rate = 0, prev_y = NAN, t_start = x->elems[el].state == SN_XST_RUNNING ? r.t : -1;
        CHECK(t_start == 0, "lat dist: the action is %s at t = 0", sn_xstate_name(x->elems[el].state));
        for (int f = 0; f < 1000 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
            double d = r.ents[0].y - r.ents[1].y; /* left is +y on the highway (along +x) */
            if (lim != 1 && t_start >= 0 && r.t > t_start + 1e-9)
                worst = fmax(worst, fabs(d - 4));
            if (isfinite(prev_y))
                max_rate = fmax(max_rate, fabs(r.ents[0].y - prev_y) / 0.01);
            prev_y = r.ents[0].y;
        }
        CHECK(!r.failed, "lat dist %d: %s", lim, r.why);
        if (lim != 1) {
            CHECK(worst < 1e-9, "lat dist rigid: off 4 m by %.3g m", worst);
            /* not continuous: placed in the first step (0.01), ended in the next, which measures it
            ** there before moving (esmini's rule) */
            if (lim == 2)
                CHECK(fabs(done_at - 0.02) < 1e-9, "lat dist rigid: ends at %.2f s, not 0.02", done_at);
        } else {
            /* the lanes are 3.5 m apart: Ego (3.5 m right of Ref) moves 7.5 m left; at 1 m/s with
            ** 2 m/s^2 to speed up and slow down that takes at least 7.5 + 0.5 = 8 s */
            double d = r.ents[0].y - r.ents[1].y;
            CHECK(fabs(d - 4) < 0.01 + 1e-9, "lat dist limited: ends %.4f m left of Ref, not 4", d);
            CHECK(max_rate < 1 + 1e-6, "lat dist limited: sideways %.4f m/s, over maxSpeed 1", max_rate);
            CHECK(done_at - t_start > 8 - 0.02 && done_at - t_start < 8.5, "lat dist limited: took %.2f s, not about 8",
                  done_at - t_start);
        }
        sn_xrun_free(&r);
        sn_xosc_free(x);
        free(xml);
    }
}

/* ---- (d) ---- */
#define ACTIVATE(lat, lon) "<ControllerAction><ActivateControllerAction lateral='" lat "' longitudinal='" lon "'/></ControllerAction>"
#define CTL(kind) "<ObjectController><Controller name='c'><Properties><Property name='sensimController' value='" kind \
                  "'/></Properties></Controller></ObjectController>"

static void test_controllers(void)
{
    /* assigned external, then activated: the user's */
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10"))
        PRIV("Ego", "<ControllerAction><AssignControllerAction><Controller name='ext'><Properties><Property "
                    "name='sensimController' value='external'/></Properties></Controller></AssignControllerAction>"
                    "</ControllerAction>") PRIV("Ego", ACTIVATE("true", "true")), "");
    sn_xrun r;
    sn_xosc *x = start("assign", xml, &r);
    if (x) {
        CHECK(r.ents[0].mode == SN_XM_EXTERNAL, "assign: the entity is not the user's (mode %d)", r.ents[0].mode);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    /* lateral only, no controller: refused when it runs, naming FILE:LINE */
    xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", ACTIVATE("true", "false")), "");
    sn_error err = {0};
    x = load(xml, &err);
    CHECK(x, "lateral only: %s", err.msg);
    if (x) {
        bool ok = sn_xrun_init(&r, x, highway, 0.01);
        CHECK(!ok && strstr(r.why, "test.xosc:") && strstr(r.why, "lateral and longitudinal must be equal"),
              "lateral only: init %s, '%s'", ok ? "passed" : "failed", r.why);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    /* lateral only on a controller sensim does not play: it plays on, driven by the storyboard */
    xml = doc("Ego", CTL("ACC"), PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10"))
                                     PRIV("Ego", ACTIVATE("false", "true")), "");
    x = start("unplayed", xml, &r);
    if (x) {
        for (int f = 0; f < 100; f++)
            sn_xrun_step(&r);
        CHECK(!r.failed && r.ents[0].mode == SN_XM_LANE && fabs(r.ents[0].s - 20) < 1e-9,
              "unplayed: mode %d s %.6f (not 20 after 1 s at 10 m/s): %s", r.ents[0].mode, r.ents[0].s, r.why);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    /* OverrideControllerValueAction: accepted, named in a warning */
    xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))),
              STORY("Ego", "<ControllerAction><OverrideControllerValueAction><SteeringWheel value='0.5' active='true'/>"
                           "</OverrideControllerValueAction></ControllerAction>"));
    x = load(xml, &err);
    CHECK(x, "override: %s", err.msg);
    if (x) {
        bool warned = false;
        for (uint32_t k = 0; k < x->n_warnings; k++)
            warned |= strstr(x->warnings[k], "OverrideControllerValueAction") != NULL;
        CHECK(warned, "override: no warning names it");
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (e) ---- */
static void test_sync_tolerance(void)
{
    char *xml = doc("Ego Lead", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10"))
        PRIV("Lead", TELEPORT(LANEPOS("-2", "0"))) PRIV("Lead", SPEED("13")), STORY("Ego",
        "<SynchronizeAction masterEntityRef='Lead' targetToleranceMaster='1' targetTolerance='1'><TargetPositionMaster>"
        "<LanePosition roadId='1' laneId='-2' s='100' offset='0'/></TargetPositionMaster><TargetPosition><LanePosition "
        "roadId='1' laneId='-3' s='70' offset='0'/></TargetPosition></SynchronizeAction>"));
    sn_xrun r;
    sn_xosc *x = start("sync tolerance", xml, &r);
    if (x) {
        int el = find_elem(x, "Act");
        double v1 = -1, done_at = -1;
        for (int f = 0; f < 900 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (f == 0)
                v1 = r.ents[0].v;
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
        }
        CHECK(!r.failed, "sync tolerance: %s", r.why);
        CHECK(fabs(v1 - 59.0 * 13 / 99) < 1e-9, "sync tolerance: first speed %.9f, not %.9f", v1, 59.0 * 13 / 99);
        CHECK(fabs(done_at - 7.62) < 1e-6, "sync tolerance: ends at %.3f, not 7.62", done_at);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (f) ---- */
static void test_sync_steady(void)
{
    char *xml = doc("Ego Lead", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10"))
        PRIV("Lead", TELEPORT(LANEPOS("-2", "0"))) PRIV("Lead", SPEED("20")), STORY("Ego",
        "<SynchronizeAction masterEntityRef='Lead'><TargetPositionMaster><LanePosition roadId='1' laneId='-2' s='100' "
        "offset='0'/></TargetPositionMaster><TargetPosition><LanePosition roadId='1' laneId='-3' s='70' offset='0'/>"
        "</TargetPosition><FinalSpeed><AbsoluteSpeed value='15'><SteadyState><TargetTimeSteadyState time='1'/>"
        "</SteadyState></AbsoluteSpeed></FinalSpeed></SynchronizeAction>"));
    sn_xrun r;
    sn_xosc *x = start("sync steady", xml, &r);
    if (x) {
        double worst = 0, s5 = -1;
        for (int f = 0; f < 500 && !r.failed; f++) {
            sn_xrun_step(&r);
            double t = r.t;
            double want = t <= 4 + 1e-9 ? 10 + 10 * t + 0.625 * t * t - 0.46875 * (2 * t * t - t * t * t / 3) : 55 + 15 * (t - 4);
            worst = fmax(worst, fabs(r.ents[0].s - want));
            if (fabs(t - 5) < 1e-9)
                s5 = r.ents[0].s;
        }
        CHECK(!r.failed, "sync steady: %s", r.why);
        CHECK(worst < 1e-6, "sync steady: off the closed form by %.3g m", worst);
        CHECK(fabs(s5 - 70) < 1e-6, "sync steady: s(5) %.6f, not 70", s5);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (g) ---- */
static void test_clothoid_spline(void)
{
    const double x0 = 20, y0 = -7.125, h0 = 0.1, L1 = 50, k1 = 0.02, L2 = 30, hoff = 0.05;
    /* the closed form: the clothoid by midpoint integration, then the arc */
    double X1 = x0, Y1 = y0;
    for (int i = 0, n = 100000; i < n; i++) {
        double u = (i + 0.5) * L1 / n, h = h0 + 0.5 * (k1 / L1) * u * u;
        X1 += cos(h) * L1 / n, Y1 += sin(h) * L1 / n;
    }
    double h1 = h0 + 0.5 * k1 * L1 + hoff, R = 1 / k1;
    double X2 = X1 + R * (sin(h1 + k1 * L2) - sin(h1)), Y2 = Y1 - R * (cos(h1 + k1 * L2) - cos(h1));
    for (int timed = 0; timed < 2; timed++) {
        char action[2048], story[4096];
        snprintf(action, sizeof action,
                 "<RoutingAction><FollowTrajectoryAction><Trajectory name='c' closed='false'><Shape><ClothoidSpline%s>"
                 "<ClothoidSplineSegment curvatureStart='0' curvatureEnd='%g' length='%g'%s><PositionStart><WorldPosition "
                 "x='%g' y='%g' z='0' h='%g'/></PositionStart></ClothoidSplineSegment><ClothoidSplineSegment "
                 "curvatureStart='%g' curvatureEnd='%g' length='%g' hOffset='%g'%s/></ClothoidSpline></Shape></Trajectory>"
                 "<TimeReference>%s</TimeReference></FollowTrajectoryAction></RoutingAction>",
                 timed ? " timeEnd='8'" : "", k1, L1, timed ? " timeStart='0'" : "", x0, y0, h0, k1, k1, L2, hoff,
                 timed ? " timeStart='4'" : "",
                 timed ? "<Timing domainAbsoluteRelative='relative' scale='1' offset='0'/>" : "<None/>");
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10")), story);
        sn_xrun r;
        sn_xosc *x = start("clothoid spline", xml, &r);
        if (x) {
            int el = find_elem(x, "Act");
            double end_err = -1, joint_err = -1;
            for (int f = 0; f < 1200 && !r.failed; f++) {
                sn_xrun_step(&r);
                if (timed && fabs(r.t - 4) < 1e-9)
                    joint_err = hypot(r.ents[0].x - X1, r.ents[0].y - Y1);
                if (x->elems[el].state == SN_XST_COMPLETE) {
                    end_err = hypot(r.ents[0].x - X2, r.ents[0].y - Y2);
                    break;
                }
            }
            CHECK(!r.failed, "clothoid spline: %s", r.why);
            /* untimed, the sampled path's chords are ~2e-6 m short of 80 m, and the 800th step's
            ** rest carries Ego that far past the end (esmini's remainder, (q)): 1e-5 */
            CHECK(end_err >= 0 && end_err < (timed ? 1e-6 : 1e-5), "clothoid spline %d: ends %.3g m from the closed form (or never)", timed,
                  end_err);
            if (timed)
                CHECK(joint_err >= 0 && joint_err < 1e-6, "clothoid spline: %.3g m from the joint at 4 s", joint_err);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (h) ---- */
/* An event named `name` that sets parameter P when condition `cond` (an EntityCondition's child,
** Ego triggering) holds. */
#define ANGLE_EVENT(name, cond)                                                                                         \
    "<Event name='" name "' priority='parallel'><Action name='a" name "'><GlobalAction><ParameterAction "              \
    "parameterRef='P'><SetAction value='1'/></ParameterAction></GlobalAction></Action><StartTrigger><ConditionGroup>" \
    "<Condition name='c" name "' delay='0' conditionEdge='none'><ByEntityCondition><TriggeringEntities "               \
    "triggeringEntitiesRule='any'><EntityRef entityRef='Ego'/></TriggeringEntities><EntityCondition>" cond            \
    "</EntityCondition></ByEntityCondition></Condition></ConditionGroup></StartTrigger></Event>"

/* xml0 with the parameter P the events set; frees xml0, the caller frees the result. */
static char *with_p(char *xml0)
{
    const char *at = strstr(xml0, "<RoadNetwork>");
    size_t n = strlen(xml0) + 200;
    char *xml = malloc(n);
    snprintf(xml, n, "%.*s<ParameterDeclarations><ParameterDeclaration name='P' parameterType='double' value='0'/>"
             "</ParameterDeclarations>%s", (int)(at - xml0), xml0, at);
    free(xml0);
    return xml;
}

/* After one step of x: which of the n condition events named names[] ran (fires[]) and what their
** conditions ("c" + name) measured, within tol. */
static void check_events(const char *what, const sn_xosc *x, const char *const *names, const bool *fires,
                         const double *measured, int n, double tol)
{
    for (int k = 0; k < n; k++) {
        int ev = find_elem(x, names[k]);
        bool ran = ev >= 0 && x->elems[ev].state != SN_XST_STANDBY;
        CHECK(ran == fires[k], "%s: %s %s", what, names[k], ran ? "fired" : "did not fire");
        for (uint32_t c = 0; c < x->n_conds; c++)
            if (!strcmp(x->conds[c].name + 1, names[k]))
                CHECK(fabs(x->conds[c].measured - measured[k]) < tol, "%s: %s measured %.9f, worked by hand %.9f", what,
                      names[k], x->conds[c].measured, measured[k]);
    }
}

/* A scenario whose one event starts on condition `cond` must fail to load with `expect` after
** "test.xosc:LINE: ". */
static void bad_condition(const char *what, const char *cond, const char *expect)
{
    char story[4096];
    snprintf(story, sizeof story, "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
             "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
             ANGLE_EVENT("b", "%s") "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>", cond);
    sn_error err = {0};
    char *bad = with_p(doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), story));
    sn_xosc *bx = load(bad, &err);
    CHECK(!bx && strstr(err.msg, "test.xosc:") && strstr(err.msg, expect), "%s: '%s' lacks '%s'", what, err.msg, expect);
    sn_xosc_free(bx);
    free(bad);
}

static void test_angles(void)
{
    /* Ego on lane -3 at s 450 (the arc from s 400 of curvature 0.00125 from heading 0.0625: the road
    ** heads 0.125 there, Ego with it); the elevation's slope there is 2c(150) + 3d(150)^2 of the
    ** record from s 300 (c 7.93388429752e-05, d -9.61682945154e-08), the superelevation -0.03 rad.
    ** Lead stands at x 100, heading -0.1 (WorldPosition). */
    const double slope = 2 * 7.93388429752e-05 * 150 + 3 * -9.61682945154e-08 * 150 * 150;
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
        "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
        ANGLE_EVENT("world", "<AngleCondition angle='0.1' angleTolerance='0.026' angleType='heading' coordinateSystem='world'/>")
        ANGLE_EVENT("narrow", "<AngleCondition angle='0.1' angleTolerance='0.024' angleType='heading'/>")
        ANGLE_EVENT("wrap", "<AngleCondition angle='6.408185307' angleTolerance='0.001' angleType='heading'/>")
        ANGLE_EVENT("road", "<AngleCondition angle='0' angleTolerance='1e-6' angleType='heading' coordinateSystem='road'/>")
        ANGLE_EVENT("lane", "<AngleCondition angle='0.005' angleTolerance='0.006' angleType='heading' coordinateSystem='lane'/>")
        ANGLE_EVENT("pitch", "<AngleCondition angle='-0.0173' angleTolerance='0.0001' angleType='pitch'/>")
        ANGLE_EVENT("roll", "<AngleCondition angle='-0.03' angleTolerance='1e-6' angleType='roll' coordinateSystem='world'/>")
        ANGLE_EVENT("rollroad", "<AngleCondition angle='0' angleTolerance='1e-9' angleType='roll' coordinateSystem='road'/>")
        ANGLE_EVENT("rel", "<RelativeAngleCondition entityRef='Lead' angle='0.225' angleTolerance='1e-6' angleType='heading'/>")
        "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>";
    char init[1024];
    snprintf(init, sizeof init, "%s%s",
             PRIV("Ego", TELEPORT(LANEPOS("-3", "450"))),
             PRIV("Lead", TELEPORT("<Position><WorldPosition x='100' y='-7.125' h='-0.1'/></Position>")));
    char *xml = with_p(doc("Ego Lead", "", init, story));
    sn_xrun r;
    sn_xosc *x = start("angles", xml, &r);
    if (x) {
        sn_xrun_step(&r);
        static const char *const names[] = {"world", "narrow", "wrap", "road", "lane", "pitch", "roll", "rollroad", "rel"};
        static const bool fires[] = {true, false, true, true, true, true, true, true, true};
        /* measured, worked by hand: heading 0.125 (world; wrapped near 6.408: 0.125 + 2 pi), 0 against
        ** the road and the lane (lane -3 runs along s), pitch -atan(slope) nose up uphill, roll the
        ** superelevation, Ego's heading less Lead's 0.125 + 0.1 */
        const double measured[] = {0.125, 0.125, 0.125 + 2 * M_PI, 0, 0, -atan(slope), -0.03, 0, 0.225};
        check_events("angles", x, names, fires, measured, 9, 1e-6);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    bad_condition("angles: a negative tolerance", "<AngleCondition angle='0.1' angleTolerance='-1' angleType='heading'/>",
                  ": AngleCondition: attribute 'angleTolerance'");
}

/* ---- (i) ---- */
static void test_rel_speed_direction(void)
{
    /* Ego on lane -3 (heading 0) at 10 m/s; Other off the road at (0, 60), heading 1 rad, 8 m/s.
    ** Ego's velocity along Other's x axis is 10 cos(0 - 1), less Other's 8: -2.5969769; along its
    ** y axis 10 sin(-1): -8.4147098 (Other moves along its x only); without a direction 10 - 8 = 2. */
    const char *story =
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
        "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
        ANGLE_EVENT("lon", "<RelativeSpeedCondition entityRef='Other' value='-2.6' rule='greaterThan' direction='longitudinal'/>")
        ANGLE_EVENT("lon2", "<RelativeSpeedCondition entityRef='Other' value='-2.59' rule='greaterThan' direction='longitudinal'/>")
        ANGLE_EVENT("lat", "<RelativeSpeedCondition entityRef='Other' value='-8.41' rule='lessThan' direction='lateral'/>")
        ANGLE_EVENT("lat2", "<RelativeSpeedCondition entityRef='Other' value='-8.42' rule='lessThan' direction='lateral'/>")
        ANGLE_EVENT("none", "<RelativeSpeedCondition entityRef='Other' value='1.99' rule='greaterThan'/>")
        "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>";
    char init[2048];
    snprintf(init, sizeof init, "%s%s%s%s", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), PRIV("Ego", SPEED("10")),
             PRIV("Other", TELEPORT("<Position><WorldPosition x='0' y='60' h='1'/></Position>")),
             PRIV("Other", SPEED("8")));
    char *xml = with_p(doc("Ego Other", "", init, story));
    sn_xrun r;
    sn_xosc *x = start("direction", xml, &r);
    if (x) {
        sn_xrun_step(&r);
        static const char *const names[] = {"lon", "lon2", "lat", "lat2", "none"};
        static const bool fires[] = {true, false, true, false, true};
        const double measured[] = {10 * cos(-1.0) - 8, 10 * cos(-1.0) - 8, 10 * sin(-1.0), 10 * sin(-1.0), 2};
        check_events("direction", x, names, fires, measured, 5, 1e-9);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    bad_condition("direction: vertical", "<SpeedCondition value='1' rule='greaterThan' direction='vertical'/>",
                  ": SpeedCondition: direction 'vertical' is not supported");
}

/* ---- (j) ---- */
static void test_rel_rate(void)
{
    /* Lead slows from 20 m/s at 1 m/s^2 (v = 20 - t); Ego (10 m/s, s 10) is to reach Lead's speed at
    ** 2 m/s^2 (linear, rate): it aims at Lead's speed now, so v = 10 + 2t and s = 10 + 10t + t^2
    ** until 10 + 2t meets 20 - t at t = 10/3: the action ends in the step from 3.33 to 3.34, at
    ** Lead's speed then, 16.66 (a target fixed at the start would have ended at 20 m/s, at 5 s). */
    char init[2048];
    snprintf(init, sizeof init, "%s%s%s%s%s", PRIV("Lead", TELEPORT(LANEPOS("-2", "10"))), PRIV("Lead", SPEED("20")),
             PRIV("Lead", "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape='linear' value='1' "
                          "dynamicsDimension='rate'/><SpeedActionTarget><AbsoluteTargetSpeed value='0'/>"
                          "</SpeedActionTarget></SpeedAction></LongitudinalAction>"),
             PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), PRIV("Ego", SPEED("10")));
    char *xml = doc("Lead Ego", "", init, STORY("Ego",
        "<LongitudinalAction><SpeedAction><SpeedActionDynamics dynamicsShape='linear' value='2' dynamicsDimension='rate'/>"
        "<SpeedActionTarget><RelativeTargetSpeed entityRef='Lead' value='0' speedTargetValueType='delta' "
        "continuous='false'/></SpeedActionTarget></SpeedAction></LongitudinalAction>"));
    sn_xrun r;
    sn_xosc *x = start("rel rate", xml, &r);
    if (x) {
        int el = find_elem(x, "Act");
        double worst = 0, done_at = -1, v_end = NAN;
        for (int f = 0; f < 600 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t, v_end = r.ents[1].v;
            if (done_at < 0) {
                worst = fmax(worst, fabs(r.ents[1].v - (10 + 2 * r.t)));
                worst = fmax(worst, fabs(r.ents[1].s - (10 + 10 * r.t + r.t * r.t)));
            }
        }
        CHECK(worst < 1e-9, "rel rate: off v = 10 + 2t, s = 10 + 10t + t^2 by %.3g", worst);
        CHECK(fabs(done_at - 3.34) < 1e-9 && fabs(v_end - 16.66) < 1e-9, "rel rate: ends at %.2f s at %.4f m/s, not "
              "3.34 s at 16.66", done_at, v_end);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (k) ---- */
/* A speed profile given by pieces (start time, speed, acceleration, jerk), the last held: v and s
** (from t = 0) at t. */
static void pieces_eval(const double (*pc)[4], int n, double t, double *v, double *s)
{
    double dist = 0;
    for (int k = 0; k < n; k++) {
        double end = k + 1 < n ? pc[k + 1][0] : INFINITY, u = fmin(t, end) - pc[k][0];
        if (t <= end || k + 1 == n) {
            *v = k + 1 == n ? pc[k][1] : pc[k][1] + pc[k][2] * u + pc[k][3] * u * u / 2;
            *s = dist + (k + 1 == n ? pc[k][1] * u : pc[k][1] * u + pc[k][2] * u * u / 2 + pc[k][3] * u * u * u / 6);
            return;
        }
        dist += pc[k][1] * u + pc[k][2] * u * u / 2 + pc[k][3] * u * u * u / 6;
    }
}

/* Plays one SpeedProfileAction (followingMode follow, maxAccelerationRate 4, maxDecelerationRate
** 2, `extra` DynamicConstraints attributes, entries `entries`) from standing at s 10 and compares v
** and s with the pieces, 1e-9; the action must end at t_end. */
static void jerk_case(const char *what, const char *extra, const char *entries, const double (*pc)[4], int n,
                      double t_end)
{
    char action[1024];
    snprintf(action, sizeof action,
             "<LongitudinalAction><SpeedProfileAction followingMode='follow'><DynamicConstraints maxAccelerationRate='4' "
             "maxDecelerationRate='2'%s/>%s</SpeedProfileAction></LongitudinalAction>", extra, entries);
    char story[2048];
    snprintf(story, sizeof story, STORY("Ego", "%s"), action);
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), story);
    sn_xrun r;
    sn_xosc *x = start(what, xml, &r);
    if (x) {
        int el = find_elem(x, "Act");
        double worst_v = 0, worst_s = 0, done_at = -1;
        for (int f = 0; f < 700 && !r.failed; f++) {
            sn_xrun_step(&r);
            double v, s;
            pieces_eval(pc, n, r.t, &v, &s);
            worst_v = fmax(worst_v, fabs(r.ents[0].v - v));
            worst_s = fmax(worst_s, fabs(r.ents[0].s - 10 - s));
            if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t;
        }
        CHECK(!r.failed, "%s: %s", what, r.why);
        CHECK(worst_v < 1e-9 && worst_s < 1e-9, "%s: off the closed form by %.3g m/s, %.3g m", what, worst_v, worst_s);
        /* the action ends in the first step at or after t_end */
        CHECK(done_at >= t_end - 1e-9 && done_at < t_end + 0.01 - 1e-9, "%s: ends at %.2f s, not at %.4f", what, done_at,
              t_end);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

static void test_profile_jerk(void)
{
    /* Several entries: 8 m/s after 2 s, then 8 m/s after 2 s more (two entries: esmini's general
    ** case; the second is the first's speed, a flat line). The straight profile is v = 4t to (2,
    ** 8), then 8. Rounded: jerk 4 from acceleration 0 to 4 takes 1 s (v = 2t^2, 2 m/s at 1 s), the
    ** line of slope 4 through it, v = 4t - 2; into 8 m/s with jerk -2 over 2 s, starting where
    ** t1 = ((4 - 0)^2 + 2(-2)(8 + 2)) / (2(-2)(4 - 0)) = 1.5 (v 4); 8 m/s at 3.5 s. The flat line to
    ** the last entry has no corner to round: the action ends at its time, 4 s. */
    static const double multi[][4] = {{0, 0, 0, 4}, {1, 2, 4, 0}, {1.5, 4, 4, -2}, {3.5, 8, 0, 0}};
    jerk_case("jerk, two entries", "", "<SpeedProfileEntry speed='8' time='2'/><SpeedProfileEntry speed='8' time='2'/>",
              multi, 4, 4);
    /* One entry, esmini's special case (LongSpeedProfileAction::Start): 8 m/s after 4 s from
    ** standing. j0 = +4 toward the line's slope 2, j1 = -2 back to 0. factor = j0 j1 (j0 j1 T^2 +
    ** 2 v3 (j0 - j1)) = -8 (-128 + 96) = 256 >= 0: a line fits; t1 = (-sqrt(256) - j0 (T j1)) /
    ** (j0 (j0 - j1)) = (-16 + 32) / 24 = 2/3 (v 8/9, acceleration 8/3), t2 = k1 / j1 + T = 8/3
    ** (v 8/9 + 16/3 = 56/9), and 8 m/s with acceleration 0 exactly at 4 s: on time. */
    static const double one[][4] = {{0, 0, 0, 4}, {2.0 / 3, 8.0 / 9, 8.0 / 3, 0}, {8.0 / 3, 56.0 / 9, 8.0 / 3, -2},
                                    {4, 8, 0, 0}};
    jerk_case("jerk, one entry on time", "", "<SpeedProfileEntry speed='8' time='4'/>", one, 4, 4);
    /* 8 m/s after 1 s cannot be made: factor = -8 (-8 + 96) < 0, no line; the jerks meet at
    ** t2 = sqrt(j1 (j1 - j0) j0 2 v3) / (j0 (j0 - j1)) = sqrt(768) / 24 = 2/sqrt(3) (v 8/3,
    ** acceleration 8/sqrt(3) = 4.62, within the car's 10), 8 m/s at t3 = t2 + k1 / 2 = 2 sqrt(3)
    ** (esmini's "extend to"). */
    const double r3 = sqrt(3.0);
    const double late[][4] = {{0, 0, 0, 4}, {2 / r3, 8.0 / 3, 8 / r3, -2}, {2 * r3, 8, 0, 0}};
    jerk_case("jerk, one entry late", "", "<SpeedProfileEntry speed='8' time='1'/>", late, 3, 2 * r3);
    /* The same under maxAcceleration 3: the straight line takes 8/3 s; the jerks would meet at 4.62
    ** m/s^2, so the acceleration is clamped to 3: reached at t1 = 3/4 (v 9/8), held until t2 =
    ** (8 - 9/8)/3 + 3/4 - 3/4 = 55/24 (v 5.75), then jerk -2 into 8 m/s at 55/24 + 3/2 = 91/24. */
    static const double clamp[][4] = {{0, 0, 0, 4}, {0.75, 9.0 / 8, 3, 0}, {55.0 / 24, 5.75, 3, -2}, {91.0 / 24, 8, 0, 0}};
    jerk_case("jerk, one entry clamped", " maxAcceleration='3' maxDeceleration='10' maxSpeed='50'",
              "<SpeedProfileEntry speed='8' time='1'/>", clamp, 4, 91.0 / 24);
}

/* ---- (l) ---- */
/* The heading worked by hand at distance d along (l)'s path: segments east, north, east, 10 m each,
** vertex headings 0, pi/2, 0, 0 (each the next segment's direction, the last the last one's). */
static double traj_h_ref(double d, bool corner)
{
    const double th[4] = {0, M_PI / 2, 0, 0};
    int k = d <= 10 ? 0 : d <= 20 ? 1 : 2;
    double ls = d - 10 * k;
    if (!corner) /* follow: turned over the whole segment */
        return th[k] + ls / 10 * (th[k + 1] - th[k]);
    double rad = 2; /* min(2, 10 / 2) */
    if (ls < rad && k > 0)
        return th[k - 1] + (rad + ls) / (2 * rad) * (th[k] - th[k - 1]);
    if (ls > 10 - rad) {
        double w = k < 2 ? (rad + 10 - ls) / (2 * rad) : (10 - ls) / rad;
        return th[k] + (1 - w) * (th[k + 1] - th[k]);
    }
    return th[k];
}

static void test_traj_heading(void)
{
    /* A timed Polyline from where Ego stands: 10 m east, 10 m north, 10 m east, 1 m/s. followingMode
    ** follow turns the heading over each whole segment (0 -> pi/2 over the first, back over the
    ** second: pi/4 halfway along the first); position keeps it along each segment and turns it
    ** within 2 m of the corners (pi/8 1 m before the first, 3 pi/8 1 m after it), esmini's
    ** interpolations. The heading at each step against the hand-worked one at the entity's own
    ** distance along the path (1e-9), and the position on the path. */
    for (int follow = 0; follow < 2; follow++) {
        char action[2048], story[4096];
        snprintf(action, sizeof action,
                 "<RoutingAction><FollowTrajectoryAction><Trajectory name='p' closed='false'><Shape><Polyline>"
                 "<Vertex time='0'><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'/></Position></Vertex>"
                 "<Vertex time='10'><Position><RelativeWorldPosition entityRef='Ego' dx='10' dy='0'/></Position></Vertex>"
                 "<Vertex time='20'><Position><RelativeWorldPosition entityRef='Ego' dx='10' dy='10'/></Position></Vertex>"
                 "<Vertex time='30'><Position><RelativeWorldPosition entityRef='Ego' dx='20' dy='10'/></Position></Vertex>"
                 "</Polyline></Shape></Trajectory><TimeReference><Timing domainAbsoluteRelative='relative' scale='1' "
                 "offset='0'/></TimeReference><TrajectoryFollowingMode followingMode='%s'/></FollowTrajectoryAction>"
                 "</RoutingAction>", follow ? "follow" : "position");
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))), story);
        sn_xrun r;
        sn_xosc *x = start(follow ? "follow heading" : "position heading", xml, &r);
        if (x) {
            double x0 = r.ents[0].x, y0 = r.ents[0].y, worst_h = 0, worst_p = 0, h_max = -1;
            int n = 0;
            for (int f = 0; f < 3200 && !r.failed; f++) {
                sn_xrun_step(&r);
                if (r.ents[0].mode != SN_XM_TRAJ)
                    break;
                double dx = r.ents[0].x - x0, dy = r.ents[0].y - y0, d;
                if (fabs(dy) < 1e-9 && dx <= 10 + 1e-9) /* first segment */
                    d = dx, worst_p = fmax(worst_p, fabs(dy));
                else if (fabs(dx - 10) < 1e-9 && dy <= 10 + 1e-9)
                    d = 10 + dy;
                else
                    d = 20 + dx - 10, worst_p = fmax(worst_p, fabs(dy - 10));
                worst_h = fmax(worst_h, fabs(r.ents[0].h - traj_h_ref(d, !follow)));
                h_max = fmax(h_max, r.ents[0].h);
                n++;
            }
            CHECK(!r.failed, "heading: %s", r.why);
            CHECK(n > 2900, "%s heading: only %d steps on the path", follow ? "follow" : "position", n);
            CHECK(worst_h < 1e-9 && worst_p < 1e-9, "%s heading: %.3g rad from the hand-worked heading, %.3g m off the path",
                  follow ? "follow" : "position", worst_h, worst_p);
            CHECK(fabs(h_max - M_PI / 2) < 0.01, "%s heading: turns to %.4f, not pi/2", follow ? "follow" : "position", h_max);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (m) ---- */
static void test_traj_pitch(void)
{
    /* An untimed Polyline (followingMode follow) from where Ego stands at 10 m/s: 10 m east rising
    ** 1 m, then 10 m east level. The path's pitch (positive nose down) is -atan(1/10) at its start,
    ** turned over the first segment to 0 at the corner (follow mode), 0 after: -atan(0.1)(1 - d/10)
    ** at d along the path, 1e-9 each step (esmini's trajectory pitch, CalculatePolyLine). Then on
    ** its lane again, the road's own: -atan of its slope there (the highway is level at s 30: 0). */
    const char *action = "<RoutingAction><FollowTrajectoryAction><Trajectory name='p' closed='false'><Shape><Polyline>"
        "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'/></Position></Vertex>"
        "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='10' dy='0' dz='1'/></Position></Vertex>"
        "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='20' dy='0' dz='1'/></Position></Vertex>"
        "</Polyline></Shape></Trajectory><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
        "followingMode='follow'/></FollowTrajectoryAction></RoutingAction>";
    char story[4096];
    snprintf(story, sizeof story, STORY("Ego", "%s"), action);
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "10"))) PRIV("Ego", SPEED("10")), story);
    sn_xrun r;
    sn_xosc *x = start("trajectory pitch", xml, &r);
    if (x) {
        double x0 = r.ents[0].x, worst = 0, p_min = 0;
        int n = 0;
        for (int f = 0; f < 300 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (r.ents[0].mode != SN_XM_TRAJ)
                continue;
            double d = r.ents[0].x - x0, want = d <= 10 ? -atan(0.1) * (1 - d / 10) : 0;
            worst = fmax(worst, fabs(r.ents[0].pitch - want));
            p_min = fmin(p_min, r.ents[0].pitch);
            n++;
        }
        CHECK(!r.failed, "trajectory pitch: %s", r.why);
        CHECK(n > 150 && worst < 1e-9, "trajectory pitch: %d steps on the path, %.3g rad from -atan(0.1)(1 - d/10)", n,
              worst);
        CHECK(p_min < -0.09, "trajectory pitch: never below %.4f", p_min);
        const sn_odr_road *rd = &highway->odr->roads[r.ents[0].ri];
        double want = -atan(sn_odr_poly_slope(rd->elevation, rd->n_elevation, r.ents[0].s));
        CHECK(r.ents[0].mode == SN_XM_LANE && fabs(r.ents[0].pitch - want) < 1e-9,
              "trajectory pitch: back on its lane (mode %d) pitch %.6f, the road's %.6f", (int)r.ents[0].mode,
              r.ents[0].pitch, want);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (n) ---- */
static void test_rel_lane_ds_lane(void)
{
    /* RelativeLanePosition on the highway's straight first 300 m (lane centres y = -3.375, -7.125
    ** for -2, -3; 3.375, 7.125, 10.875 for 2, 3, 4): Ego on -3 at s 100 (driving +x), Car on 3 at
    ** s 100 (driving -x). dsLane goes along the reference's lane and dLane, offset to its left:
    ** P1 = Ego + (dsLane 20, dLane 1, offset 0.5) is lane -2 at s 120, 0.5 m to +y: (120, -2.875),
    ** heading 0; P2 = Car + the same is lane 2 at s 80, 0.5 m to -y: (80, 2.875), heading pi. ds
    ** keeps the road's s and lane ids: P3 = Car + (ds 20, dLane 1) is lane 4 at s 120: (120,
    ** 10.875), heading along the road's s (0), not its lane (esmini's SetHeadingRelative). Neither ds nor dsLane is 0: P4 = Ego + (dLane 0) is Ego's place (100, -7.125).
    ** esmini's DirectionMode ALONG_LANE (RoadManager.cpp); 1e-6 m. Both ds and dsLane: an error. */
#define RLP(ref, attrs) "<Position><RelativeLanePosition entityRef='" ref "' " attrs "/></Position>"
    char *xml = doc("Ego Car P1 P2 P3 P4", "",
                    PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Car", TELEPORT(LANEPOS("3", "100")))
                    PRIV("P1", TELEPORT(RLP("Ego", "dsLane='20' dLane='1' offset='0.5'")))
                    PRIV("P2", TELEPORT(RLP("Car", "dsLane='20' dLane='1' offset='0.5'")))
                    PRIV("P3", TELEPORT(RLP("Car", "ds='20' dLane='1'")))
                    PRIV("P4", TELEPORT(RLP("Ego", "dLane='0'"))), "");
    sn_xrun r;
    sn_xosc *x = start("dsLane", xml, &r);
    if (x) {
        const double want[4][3] = {{120, -2.875, 0}, {80, 2.875, M_PI}, {120, 10.875, 0}, {100, -7.125, 0}};
        for (int k = 0; k < 4; k++) {
            const sn_xent *e = &r.ents[2 + k];
            double dh = fabs(remainder(e->h - want[k][2], 2 * M_PI));
            CHECK(hypot(e->x - want[k][0], e->y - want[k][1]) < 1e-6 && dh < 1e-9, "dsLane: P%d at (%.6f, %.6f) heading "
                  "%.6f, worked by hand (%g, %g) %.6f", k + 1, e->x, e->y, e->h, want[k][0], want[k][1], want[k][2]);
        }
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
    sn_error err = {0};
    xml = doc("Ego P1", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "100")))
              PRIV("P1", TELEPORT(RLP("Ego", "ds='1' dsLane='20' dLane='1'"))), "");
    sn_xosc *bx = load(xml, &err);
    CHECK(!bx && strstr(err.msg, "test.xosc:") && strstr(err.msg, "not both"), "ds and dsLane: '%s'", err.msg);
    sn_xosc_free(bx);
    free(xml);
#undef RLP
}

/* ---- (o) ---- */
static void test_traj_reverse(void)
{
    /* Ego faces east (heading 0) at -5 m/s on an untimed Polyline that runs 20 m west of it: it
    ** faces against the path (esmini's initialHeadingSign -1), so the negative speed moves it along
    ** the path, backwards, still facing east: x = x0 - 5t, heading 0, 1e-9; the action ends when
    ** the 20 m are done, at 4 s (esmini's trailer_connect reverses a car so). */
    const char *action = "<RoutingAction><FollowTrajectoryAction><Trajectory name='p' closed='false'><Shape><Polyline>"
        "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'/></Position></Vertex>"
        "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='-20' dy='0'/></Position></Vertex>"
        "</Polyline></Shape></Trajectory><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
        "followingMode='position'/></FollowTrajectoryAction></RoutingAction>";
    char story[4096];
    snprintf(story, sizeof story, STORY("Ego", "%s"), action);
    char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("-5")), story);
    sn_xrun r;
    sn_xosc *x = start("reverse", xml, &r);
    if (x) {
        int el = find_elem(x, "Act");
        double x0 = r.ents[0].x, worst = 0, done_at = -1, t_move = -1;
        for (int f = 0; f < 600 && !r.failed && done_at < 0; f++) {
            sn_xrun_step(&r);
            if (r.ents[0].mode == SN_XM_TRAJ) {
                if (t_move < 0)
                    t_move = r.t - 0.01; /* the step it started in */
                worst = fmax(worst, fabs(r.ents[0].x - (x0 - 5 * (r.t - t_move))) + fabs(r.ents[0].h));
            }
            if (x->elems[el].state == SN_XST_COMPLETE)
                done_at = r.t - t_move;
        }
        CHECK(!r.failed, "reverse: %s", r.why);
        CHECK(t_move >= 0 && worst < 1e-9, "reverse: %.3g off x0 - 5t, heading 0", worst);
        CHECK(fabs(done_at - 4) < 1e-9, "reverse: the 20 m done after %.2f s, not 4", done_at);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (p) ---- */
static void test_reach_orientation(void)
{
    /* ReachPositionCondition with an Orientation also needs the heading within 0.05 rad (esmini's
    ** TrigByReachPosition): Ego stands on lane -3 at s 100 heading 0 (the lane's direction); its own
    ** place with a relative heading of 0.04 is reached, with 0.06 not, without an Orientation it is. */
#define REACH(h) "<ReachPositionCondition tolerance='1'><Position><LanePosition roadId='1' laneId='-3' s='100' " \
                 "offset='0'>" h "</LanePosition></Position></ReachPositionCondition>"
    char *xml = with_p(doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))),
        "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
        "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
        ANGLE_EVENT("r04", REACH("<Orientation type='relative' h='0.04'/>"))
        ANGLE_EVENT("r06", REACH("<Orientation type='relative' h='0.06'/>"))
        ANGLE_EVENT("rnone", REACH(""))
        "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>"));
#undef REACH
    sn_xrun r;
    sn_xosc *x = start("reach orientation", xml, &r);
    if (x) {
        sn_xrun_step(&r);
        sn_xrun_step(&r);
        const char *const names[] = {"r04", "r06", "rnone"};
        const bool fires[] = {true, false, true};
        const double measured[] = {0, INFINITY, 0};
        for (int k = 0; k < 3; k++) {
            int ev = find_elem(x, names[k]);
            bool ran = ev >= 0 && x->elems[ev].state != SN_XST_STANDBY;
            CHECK(ran == fires[k], "reach orientation: %s %s", names[k], ran ? "fired" : "did not fire");
            for (uint32_t c = 0; c < x->n_conds; c++)
                if (!strcmp(x->conds[c].name + 1, names[k]))
                    CHECK(isinf(measured[k]) ? isinf(x->conds[c].measured) : fabs(x->conds[c].measured) < 1e-9,
                          "reach orientation: %s measured %g", names[k], x->conds[c].measured);
        }
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (q) ---- */
static void test_traj_remainder(void)
{
    /* A 10 m Polyline east along Ego's lane (the highway is straight there), at 3 m/s untimed and
    ** timed (vertex times 0 and 3.335 s: 10 / 3.335 m/s): the path ends inside a step (10 / 0.03 =
    ** 333.3 steps; 3.335 s mid-step), and esmini (FollowTrajectoryAction::Step) moves the rest of
    ** that step along the path's final heading, at the last step's speed, before the action ends.
    ** So Ego is at x0 + v(t - t0) in every step, on the path, across its end and on its lane
    ** afterwards, 1e-9 (was: the rest dropped, up to v dt behind; timed, slower from then on). */
    for (int timed = 0; timed < 2; timed++) {
        char action[2048], story[4096];
        snprintf(action, sizeof action,
                 "<RoutingAction><FollowTrajectoryAction><Trajectory name='p' closed='false'><Shape><Polyline>"
                 "<Vertex time='0'><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'/></Position></Vertex>"
                 "<Vertex time='3.335'><Position><RelativeWorldPosition entityRef='Ego' dx='10' dy='0'/></Position></Vertex>"
                 "</Polyline></Shape></Trajectory><TimeReference>%s</TimeReference><TrajectoryFollowingMode "
                 "followingMode='position'/></FollowTrajectoryAction></RoutingAction>",
                 timed ? "<Timing domainAbsoluteRelative='relative' scale='1' offset='0'/>" : "<None/>");
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        char *xml = doc("Ego", "", timed ? PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("0"))
                                         : PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("3")), story);
        const double v = timed ? 10 / 3.335 : 3;
        sn_xrun r;
        sn_xosc *x = start(timed ? "remainder timed" : "remainder", xml, &r);
        if (x) {
            int el = find_elem(x, "Act");
            double x0 = r.ents[0].x, y0 = r.ents[0].y, worst = 0, t_move = -1, done_at = -1;
            for (int f = 0; f < 500 && !r.failed; f++) {
                sn_xrun_step(&r);
                if (t_move < 0 && r.ents[0].mode == SN_XM_TRAJ)
                    t_move = r.t - 0.01; /* the step it started in */
                if (t_move < 0)
                    continue;
                worst = fmax(worst, fabs(r.ents[0].x - (x0 + v * (r.t - t_move))) + fabs(r.ents[0].y - y0));
                if (done_at < 0 && x->elems[el].state == SN_XST_COMPLETE)
                    done_at = r.t - t_move;
            }
            CHECK(!r.failed, "remainder: %s", r.why);
            CHECK(t_move >= 0 && worst < 1e-9, "remainder%s: %.3g m off x0 + %.4f t", timed ? " timed" : "", worst, v);
            CHECK(fabs(done_at - 3.34) < 1e-9, "remainder%s: done after %.2f s, not 3.34", timed ? " timed" : "",
                  done_at);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (r) ---- */
static void test_traj_offset(void)
{
    /* initialDistanceOffset (1.2): a 20 m Polyline east from Ego at 3 m/s, untimed, started 5 m
    ** along: x = x0 + 5 + 3(t - t0) in every step on the path, done when the other 15 m are, at
    ** 5 s (esmini's SetTrajectoryS; was: from the path's start, done at 6.67 s). An offset past
    ** the end starts at the end (done in the first step); a negative one is a FILE:LINE error. */
    for (int c = 0; c < 3; c++) {
        const char *off = c == 0 ? "5" : c == 1 ? "30" : "-1";
        char action[2048], story[4096];
        snprintf(action, sizeof action,
                 "<RoutingAction><FollowTrajectoryAction initialDistanceOffset='%s'><Trajectory name='p' closed='false'>"
                 "<Shape><Polyline>"
                 "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'/></Position></Vertex>"
                 "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='20' dy='0'/></Position></Vertex>"
                 "</Polyline></Shape></Trajectory><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
                 "followingMode='position'/></FollowTrajectoryAction></RoutingAction>", off);
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        char *xml = doc("Ego", "", PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("3")), story);
        if (c == 2) {
            sn_error err = {0};
            sn_xosc *bx = load(xml, &err);
            CHECK(!bx && strstr(err.msg, "test.xosc:") && strstr(err.msg, "initialDistanceOffset"),
                  "negative initialDistanceOffset: '%s'", err.msg);
            sn_xosc_free(bx);
            free(xml);
            continue;
        }
        sn_xrun r;
        sn_xosc *x = start("initialDistanceOffset", xml, &r);
        if (x) {
            int el = find_elem(x, "Act");
            double x0 = r.ents[0].x, worst = 0, t_move = -1, done_at = -1;
            for (int f = 0; f < 800 && !r.failed && done_at < 0; f++) {
                sn_xrun_step(&r);
                if (t_move < 0 && (r.ents[0].mode == SN_XM_TRAJ || x->elems[el].state == SN_XST_COMPLETE))
                    t_move = r.t - 0.01; /* the step it started in */
                if (t_move >= 0 && r.ents[0].mode == SN_XM_TRAJ)
                    worst = fmax(worst, fabs(r.ents[0].x - (x0 + 5 + 3 * (r.t - t_move))));
                if (x->elems[el].state == SN_XST_COMPLETE)
                    done_at = r.t - t_move;
            }
            CHECK(!r.failed, "initialDistanceOffset: %s", r.why);
            if (c == 0) {
                CHECK(t_move >= 0 && worst < 1e-9, "initialDistanceOffset 5: %.3g m off x0 + 5 + 3t", worst);
                CHECK(fabs(done_at - 5) < 1e-9, "initialDistanceOffset 5: done after %.2f s, not 5", done_at);
            } else {
                CHECK(fabs(done_at - 0.01) < 1e-9 && fabs(r.ents[0].x - (x0 + 20.03)) < 1e-9,
                      "initialDistanceOffset 30: done after %.2f s at x0 + %.4f, not 0.01 s at x0 + 20.03", done_at,
                      r.ents[0].x - x0);
            }
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (s) ---- */
static void test_route_far_end(void)
{
    /* A route that does not hold the connecting road the entity meets at a junction (it came on
    ** another lane than the route was planned on): each connecting road is matched by the road at
    ** its far end, esmini's Position::MoveToConnectingRoad. Ground truth from town.xodr's own links:
    ** a connecting road entered from road A ends at its other link's road. For every lane end with
    ** two or more connecting roads that lead to different roads, a route holding only the far road
    ** of a later candidate must pick the first candidate that leads there (was: the first of all). */
    sn_map *town = xh_map("town.xodr", "town");
    if (!town)
        return;
    const sn_odr *o = town->odr;
    sn_xrun r;
    memset(&r, 0, sizeof r);
    r.map = town;
    int cases = 0, bad = 0;
    for (uint32_t a = 0; a < o->n_roads; a++) {
        const sn_odr_road *rd = &o->roads[a];
        if (rd->junction >= 0)
            continue;
        for (uint32_t sc = 0; sc < rd->n_sections; sc++)
            for (int l = -(int)rd->sections[sc].n_right; l <= (int)rd->sections[sc].n_left; l++)
                for (int fw = 0; fw < 2 && l; fw++) {
                    sn_lanekey next[8];
                    double ns[8];
                    size_t n = sn_map_successors(town, (sn_lanekey){(int32_t)a, sc, l}, fw, next, ns, 8);
                    if (n < 2 || n > 8)
                        continue;
                    int32_t far[8];
                    bool all = true;
                    for (size_t j = 0; j < n; j++) {
                        const sn_odr_road *c = &o->roads[next[j].road];
                        far[j] = c->pred.index == (int32_t)a ? c->succ.index : c->pred.index;
                        if (c->junction < 0 || c->pred.elem != SN_ODR_ELEM_ROAD || c->succ.elem != SN_ODR_ELEM_ROAD ||
                            c->pred.index == c->succ.index || o->roads[far[j]].junction >= 0)
                            all = false;
                    }
                    if (!all)
                        continue;
                    for (size_t j = 1; j < n; j++) {
                        if (far[j] == far[0])
                            continue;
                        size_t want = j;
                        while (want > 0 && far[want - 1] == far[j])
                            want--;
                        for (size_t q = 0; q < j; q++)
                            if (far[q] == far[j] && q < want)
                                want = q;
                        int32_t route[1] = {far[j]};
                        sn_xent e;
                        memset(&e, 0, sizeof e);
                        e.route = route, e.n_route = 1, e.route_i = 0;
                        size_t got = sn_xroute_pick(&r, &e, next, n, fw);
                        cases++;
                        if (got != want || e.route_i != 0) {
                            if (!bad)
                                printf("route far end: road %d lane %d: picked %zu (to road %d), not %zu (to road %d)\n",
                                       rd->id, l, got, o->roads[far[got]].id, want, o->roads[far[want]].id);
                            bad++;
                        }
                    }
                }
    }
    CHECK(cases > 5 && bad == 0, "route far end: %d of %d junction choices wrong", bad, cases);
    sn_map_close(town);
}

/* ---- (t) ---- */
static void test_traj_facing(void)
{
    /* Which way an entity faces along a trajectory, esmini's rule (FollowTrajectoryAction::Start),
    ** whatever its heading before: Ego faces east (heading 0) and the untimed Polyline runs 20 m
    ** west. (1) No vertex heading, speed 8: it faces along the path (pi) and drives it forward:
    ** x = x0 - 8t, heading pi, done at 2.5 s. (2) Vertex headings given as 0.1 (more than 90 degrees
    ** off the path's pi), speed -8: the heading is taken as given (0.1, not turned), it faces
    ** against the path and the negative speed moves it forward along it: x = x0 - 8t, done at
    ** 2.5 s. 1e-9. (Was: the sign from the heading before, 0, so both left the path's start at once.) */
    for (int c = 0; c < 2; c++) {
        char action[2048], story[4096];
        const char *h = c ? "><Orientation type='absolute' h='0.1'/></RelativeWorldPosition>" : "/>";
        snprintf(action, sizeof action,
                 "<RoutingAction><FollowTrajectoryAction><Trajectory name='p' closed='false'><Shape><Polyline>"
                 "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='0' dy='0'%s</Position></Vertex>"
                 "<Vertex><Position><RelativeWorldPosition entityRef='Ego' dx='-20' dy='0'%s</Position></Vertex>"
                 "</Polyline></Shape></Trajectory><TimeReference><None/></TimeReference><TrajectoryFollowingMode "
                 "followingMode='position'/></FollowTrajectoryAction></RoutingAction>", h, h);
        snprintf(story, sizeof story, STORY("Ego", "%s"), action);
        char *xml = doc("Ego", "", c ? PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("-8"))
                                     : PRIV("Ego", TELEPORT(LANEPOS("-3", "100"))) PRIV("Ego", SPEED("8")), story);
        const double want_h = c ? 0.1 : M_PI;
        sn_xrun r;
        sn_xosc *x = start("facing", xml, &r);
        if (x) {
            int el = find_elem(x, "Act");
            double x0 = r.ents[0].x, worst = 0, t_move = -1, done_at = -1;
            for (int f = 0; f < 600 && !r.failed && done_at < 0; f++) {
                sn_xrun_step(&r);
                if (t_move < 0 && (r.ents[0].mode == SN_XM_TRAJ || x->elems[el].state == SN_XST_COMPLETE))
                    t_move = r.t - 0.01; /* the step it started in */
                if (t_move >= 0 && r.ents[0].mode == SN_XM_TRAJ)
                    worst = fmax(worst, fabs(r.ents[0].x - (x0 - 8 * (r.t - t_move))) +
                                            fabs(remainder(r.ents[0].h - want_h, 2 * M_PI)));
                if (x->elems[el].state == SN_XST_COMPLETE)
                    done_at = r.t - t_move;
            }
            CHECK(!r.failed, "facing: %s", r.why);
            CHECK(t_move >= 0 && worst < 1e-9, "facing %d: %.3g off x0 - 8t, heading %.2f", c, worst, want_h);
            CHECK(fabs(done_at - 2.5) < 1e-9, "facing %d: done after %.2f s, not 2.5", c, done_at);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (u) ---- */
static double ramp_heading(double s)
{
    /* lane -5 of Highway_B between s 150 and 300: its centre t = -(inner lanes + w/2), so
    ** dt/ds = -w'/2; the road's reference line is straight there, heading 0.4375 */
    double u = s - 150, dw = 2 * -0.0005 * u + 3 * 2.22222222222e-06 * u * u;
    return 0.4375 + atan(-dw / 2);
}

static void test_lane_lean(void)
{
#define RAMP(s, h) "<Position><LanePosition roadId='4' laneId='-5' s='" s "' offset='0'>" h "</LanePosition></Position>"
    char *xml = doc("P Ego Rev", "",
                    PRIV("P", TELEPORT(RAMP("225", ""))) PRIV("Ego", TELEPORT(RAMP("160", ""))) PRIV("Ego", SPEED("20"))
                    PRIV("Rev", TELEPORT(RAMP("290", "<Orientation h='3.141592653589793' type='relative'/>")))
                    PRIV("Rev", SPEED("10")), "");
#undef RAMP
    sn_xrun r;
    sn_xosc *x = start("lane lean", xml, &r);
    if (x) {
        double dp = fabs(remainder(r.ents[0].h - (0.4375 + atan(0.01875)), 2 * M_PI));
        CHECK(dp < 1e-9, "lane lean: placed at s 225 heading %.9f, not 0.4375 + atan(0.01875) = %.9f", r.ents[0].h,
              0.4375 + atan(0.01875));
        double worst = 0, s_min = 1e9, s_max = -1e9;
        for (int f = 0; f < 500 && !r.failed; f++) {
            sn_xrun_step(&r);
            for (int k = 1; k < 3; k++) {
                const sn_xent *e = &r.ents[k];
                worst = fmax(worst, fabs(remainder(e->h - ramp_heading(e->s) - (k == 2 ? M_PI : 0), 2 * M_PI)));
                s_min = fmin(s_min, e->s), s_max = fmax(s_max, e->s);
            }
        }
        CHECK(!r.failed, "lane lean: %s", r.why);
        /* both stay on the narrowing stretch, Ego from 160 to 260, Rev from 290 back to 240 */
        CHECK(s_min > 150 && s_max < 300 && fabs(r.ents[1].s - 260) < 1e-6 && fabs(r.ents[2].s - 240) < 1e-6,
              "lane lean: s from %.3f to %.3f, Ego at %.6f, Rev at %.6f", s_min, s_max, r.ents[1].s, r.ents[2].s);
        CHECK(worst < 1e-9, "lane lean: heading %.3g rad off the lane centre's while driving", worst);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

int main(int argc, char **argv)
{
    if (!xh_begin(argc, argv, "test_xosc_more", &highway))
        return argc < 2 ? 2 : 1;
    test_profile_position();
    test_profile_limits();
    test_lat_dist();
    test_controllers();
    test_sync_tolerance();
    test_sync_steady();
    test_clothoid_spline();
    test_angles();
    test_rel_speed_direction();
    test_rel_rate();
    test_profile_jerk();
    test_traj_heading();
    test_traj_pitch();
    test_rel_lane_ds_lane();
    test_traj_reverse();
    test_reach_orientation();
    test_traj_remainder();
    test_traj_offset();
    test_route_far_end();
    test_traj_facing();
    test_lane_lean();
    sn_map_close(highway);
    return CHECK_DONE();
}
