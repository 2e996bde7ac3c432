/* test_xosc_offlane.c — OpenSCENARIO of the fourth round (issue 34) on the shipped highway
** (argv[1]: maps/; road 1, 1050 m, joins road 4 through the junction's road 2, 20 m; its first
** 300 m run straight along +x with lane -2's centre at y -3.375, lane -3's at -7.125), each
** against values derived by hand:
**   (a) a route for an entity driving against its lane: Ego on road 4's lane -2 at s 100 facing -s
**       (Orientation relative pi) at 10 m/s, routed to road 1 (a waypoint on lane -2, whose own
**       direction is +s: reached the other way, as esmini's RoadManager takes a road): it stays on
**       lane -2 against it through road 2 onto road 1, s = 1050 - (10t - 120) there, 1e-6 m;
**   (b) a route whose first waypoint is behind the entity: a warning, the route runs from it;
**   (c) LongitudinalDistanceAction off the lanes: a bike lying across its truck (heading +pi/2)
**       keeps 1.2 m behind it along the truck's heading, its y, z and heading kept (esmini's
**       drop-bike): x = truck x - 1.2 each step, 1e-9; freespace: the boxes 1.2 m apart,
**       x = truck x + 1.4 - 2.3 - 0.95 - 1.2;
**   (d) LateralDistanceAction off the lanes (esmini's lat_dist_entity): rigid, Target 5 m left of
**       Ego in Ego's frame from the next step (y = -7.125 + 5, 1e-9), then along Ego's heading at its
**       speed; with maxAcceleration the distance is approached, each step's path v dt long (1e-9),
**       and reached within 1 cm;
**   (e) AddEntityAction and DeleteEntityAction: an entity only added starts out of the scenario,
**       enters at its Position in the step its event starts; a deleted one stops where it was, and
**       an AddEntityAction relative to itself puts it ds further, its speed kept (closed form, 1e-9);
**       adding a present entity is a warning;
**   (f) an empty <Action/> is a warning and does nothing; catalogName also matches a catalog
**       file's stem (esmini's LoadCatalog);
**   (g) a lane change's heading is the step's direction of motion, asin(lateral rate / speed)
**       (esmini's LatLaneChangeAction::Step), 1e-9, and a RelativeLanePosition dLane 0 on the
**       changing entity is the lane it is in: the one it left until its reference point crosses
**       the line between them (y -5.25), the target's after (esmini's traj-heading-trig);
**   (h) at a road's end (road 4 ends at s 1100) an entity keeps its speed in the step it arrives,
**       and a teleport there leaves every EndOfRoadCondition of the step true (esmini updates the
**       state when it moves entities): two events on it both start at 5.01 s, and Ego drives on
**       from s 1000 at 10 m/s, s = 1000 + 10(t - 5.01), 1e-9 (esmini's lane_change_simple);
**   (i) a lane change ends at a road's end and leaves the entity standing there turned as it moved
**       (esmini's LatLaneChangeAction::Step, route_lane_change): Ego changes from lane -3 to -2 of
**       road 4 (3.75 m linear over 5 s, 0.75 m/s at 10 m/s) from s 1080; the action completes in the
**       step Ego reaches s 1100, and from then Ego stays put (1e-9 m), heading -0.0625 + asin(0.075)
**       (1e-9); a lane change of an entity standing still waits for it to move (esmini returns at
**       |speed| < 1e-6): Car at 0 m/s neither moves sideways nor completes it in 3 s. */
#include "../check.h"
#include "xosc_harness.h"
#include "../../engine/scenario/xosc_pos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static sn_map *highway;

static char *doc(const char *ents, const char *init, const char *story)
{
    size_t n = 30000 + strlen(init) + strlen(story) + strlen(ents) * 400;
    char *s = malloc(n), e2[8192] = "";
    xh_cars(e2, sizeof e2, ents, "");
    snprintf(s, n,
             "<?xml version='1.0'?>\n<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='x' description='t' author='t'/>\n"
             "<RoadNetwork><LogicFile filepath='highway.xodr'/></RoadNetwork>\n"
             "<Entities>%s</Entities>\n<Storyboard><Init><Actions>\n%s</Actions></Init>\n%s\n<StopTrigger/>"
             "</Storyboard></OpenSCENARIO>\n",
             e2, init, story);
    return s;
}

#define LANEPOS(road, lane, s) "<Position><LanePosition roadId='" road "' laneId='" lane "' s='" s "' offset='0'/></Position>"
#define LANEPOS_BACK(road, lane, s)                                                                       \
    "<Position><LanePosition roadId='" road "' laneId='" lane "' s='" s "' offset='0'><Orientation type='relative' " \
    "h='3.141592653589793'/></LanePosition></Position>"
/* one event per action, each starting when the simulation time passes `at` */
#define TIMED(name, at, body)                                                                                    \
    "<Event name='" name "' priority='parallel'><Action name='" name "A'>" body "</Action><StartTrigger>"          \
    "<ConditionGroup><Condition name='" name "C' delay='0' conditionEdge='none'><ByValueCondition>"              \
    "<SimulationTimeCondition value='" at "' rule='greaterOrEqual'/></ByValueCondition></Condition></ConditionGroup>" \
    "</StartTrigger></Event>"
#define STORY(actor, events)                                                                                  \
    "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "                \
    "selectTriggeringEntities='false'><EntityRef entityRef='" actor "'/></Actors><Maneuver name='M'>" events \
    "</Maneuver></ManeuverGroup><StartTrigger/></Act></Story>"

static char warned[4096];
static void on_warn(void *user, const char *line)
{
    (void)user;
    snprintf(warned + strlen(warned), sizeof warned - strlen(warned), "%s\n", line);
}

static sn_xosc *start(const char *what, const char *xml, sn_xrun *r, double dt)
{
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "%s: %s", what, err.msg);
    warned[0] = 0;
    if (x && !sn_xrun_init(r, x, highway, dt)) {
        CHECK(0, "%s init: %s", what, r->why);
        sn_xosc_free(x);
        return NULL;
    }
    if (x) {
        r->warn = on_warn;
        r->warn_user = NULL;
    }
    return x;
}

static int road_index(int id)
{
    for (uint32_t k = 0; k < highway->odr->n_roads; k++)
        if (highway->odr->roads[k].id == id)
            return (int)k;
    return -1;
}

/* ---- (a), (b) ---- */
static void test_route_against(void)
{
    const char *route = "<PrivateAction><RoutingAction><AssignRouteAction><Route name='R' closed='false'>"
                        "<Waypoint routeStrategy='shortest'>" LANEPOS_BACK("4", "-2", "50") "</Waypoint>"
                        "<Waypoint routeStrategy='shortest'>" LANEPOS("1", "-2", "900") "</Waypoint>"
                        "</Route></AssignRouteAction></RoutingAction></PrivateAction>";
    char story[4096];
    snprintf(story, sizeof story, STORY("Ego", TIMED("R", "0", "%s")), route);
    char *xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS_BACK("4", "-2", "100"))) PRIV("Ego", SPEED("10")), story);
    sn_xrun r;
    sn_xosc *x = start("route against", xml, &r, 0.01);
    if (x) {
        const sn_xent *e = &r.ents[0];
        double worst = 0;
        for (int f = 0; f < 1500 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (r.t > 12.05) /* on road 1 from 12 s: 100 m of road 4 and 20 of road 2 behind it */
                worst = fmax(worst, fabs(e->s - (1050 - (10 * r.t - 120))) + (e->ri != road_index(1)) +
                                        (e->lane != -2) + (e->sdir != -1));
        }
        CHECK(!r.failed, "route against: %s", r.why);
        CHECK(e->route && e->n_route == 3 && e->route[0] == road_index(4) && e->route[1] == road_index(2) &&
                  e->route[2] == road_index(1), "route against: the route's roads are not 4, 2, 1 (%u roads)", e->n_route);
        CHECK(worst < 1e-6, "route against: %.3g off s = 1050 - (10t - 120) on road 1's lane -2, driving -s", worst);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);

    /* (b): the first waypoint is behind Ego (road 1, which it has left): the route runs from it */
    route = "<PrivateAction><RoutingAction><AssignRouteAction><Route name='R' closed='false'>"
            "<Waypoint routeStrategy='shortest'>" LANEPOS("1", "-2", "500") "</Waypoint>"
            "<Waypoint routeStrategy='shortest'>" LANEPOS("4", "-2", "500") "</Waypoint>"
            "</Route></AssignRouteAction></RoutingAction></PrivateAction>";
    snprintf(story, sizeof story, STORY("Ego", TIMED("R", "0.1", "%s")), route);
    xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS("4", "-2", "100"))) PRIV("Ego", SPEED("10")), story);
    x = start("route behind", xml, &r, 0.01);
    if (x) {
        for (int f = 0; f < 100 && !r.failed; f++)
            sn_xrun_step(&r);
        const sn_xent *e = &r.ents[0];
        CHECK(!r.failed, "route behind: %s", r.why);
        CHECK(strstr(warned, "test.xosc:") && strstr(warned, "Waypoint: entity 'Ego' has no way"),
              "route behind: no warning naming FILE:LINE (%s)", warned);
        CHECK(e->n_route == 3 && e->route[0] == road_index(1) && e->route[2] == road_index(4),
              "route behind: the route does not run 1, 2, 4 (%u roads)", e->n_route);
        CHECK(e->ri == road_index(4) && fabs(e->s - 110) < 1e-9, "route behind: Ego at s %.9f, not 110 on road 4", e->s);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (c) ---- */
static void test_long_offlane(void)
{
    for (int fs = 0; fs < 2; fs++) {
        char init[4096];
        snprintf(init, sizeof init,
                 PRIV("Truck", TELEPORT(LANEPOS("1", "-3", "100"))) PRIV("Truck", SPEED("20"))
                 PRIV("Bike", TELEPORT("<Position><RelativeObjectPosition entityRef='Truck' dx='0' dy='-0.6'>"
                                       "<Orientation type='relative' h='1.5707963267948966'/></RelativeObjectPosition>"
                                       "</Position>"))
                 PRIV("Bike", "<LongitudinalAction><LongitudinalDistanceAction entityRef='Truck' freespace='%s' "
                              "continuous='true' distance='1.2'/></LongitudinalAction>"),
                 fs ? "true" : "false");
        char *xml = doc("Truck Bike", init, "");
        sn_xrun r;
        sn_xosc *x = start("long off lanes", xml, &r, 0.01);
        if (x) {
            const sn_xent *t = &r.ents[0], *b = &r.ents[1];
            CHECK(b->mode == SN_XM_FREE, "long off lanes: the bike is on a lane");
            double y0 = b->y, h0 = b->h, worst = 0;
            double back = fs ? -1.4 + 2.3 + 0.95 + 1.2 : 1.2;
            for (int f = 0; f < 300 && !r.failed; f++) {
                sn_xrun_step(&r);
                worst = fmax(worst, fabs(b->x - (t->x - back)) + fabs(b->y - y0) + fabs(b->h - h0) + fabs(b->v - 20));
            }
            CHECK(!r.failed, "long off lanes: %s", r.why);
            CHECK(fabs(y0 - (-7.125 - 0.6)) < 1e-9 && fabs(h0 - M_PI / 2) < 1e-9, "long off lanes: the bike starts at "
                  "y %.9f heading %.9f", y0, h0);
            CHECK(worst < 1e-9, "long off lanes (freespace %d): %.3g off x = truck x - %.2f, y, heading and speed kept",
                  fs, worst, back);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (d) ---- */
static void test_lat_offlane(void)
{
    for (int lim = 0; lim < 2; lim++) {
        char init[4096];
        snprintf(init, sizeof init,
                 PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "100"))) PRIV("Ego", SPEED("10"))
                 PRIV("Target", TELEPORT("<Position><WorldPosition x='90' y='40' h='0.3'/></Position>"))
                 PRIV("Target", SPEED("12"))
                 PRIV("Target", "<LateralAction><LateralDistanceAction entityRef='Ego' freespace='false' continuous='true' "
                                "distance='5' displacement='leftToReferencedEntity'>%s</LateralDistanceAction></LateralAction>"),
                 lim ? "<DynamicConstraints maxAcceleration='5'/>" : "");
        char *xml = doc("Ego Target", init, "");
        sn_xrun r;
        sn_xosc *x = start("lat off lanes", xml, &r, 0.01);
        if (x) {
            const sn_xent *eg = &r.ents[0], *tg = &r.ents[1];
            CHECK(tg->mode == SN_XM_FREE, "lat off lanes: Target is on a lane");
            double worst = 0, reached = -1;
            for (int f = 0; f < 2000 && !r.failed; f++) {
                double x0 = tg->x, y0 = tg->y;
                sn_xrun_step(&r);
                if (!lim) {
                    if (f >= 1) /* from the second step: 5 m left of Ego, heading along it */
                        worst = fmax(worst, fabs(tg->y - (eg->y + 5)) + fabs(tg->h) + fabs(tg->x - x0 - 0.12));
                } else {
                    worst = fmax(worst, fabs(hypot(tg->x - x0, tg->y - y0) - 0.12));
                    if (reached < 0 && fabs(tg->y - (eg->y + 5)) < 0.01)
                        reached = r.t;
                }
            }
            CHECK(!r.failed, "lat off lanes: %s", r.why);
            CHECK(worst < 1e-9, "lat off lanes (limits %d): %.3g off the closed form", lim, worst);
            if (lim)
                CHECK(reached > 0 && fabs(tg->y - (eg->y + 5)) < 0.01, "lat off lanes: 5 m not reached (y %.3f)", tg->y);
            sn_xrun_free(&r);
            sn_xosc_free(x);
        }
        free(xml);
    }
}

/* ---- (e) ---- */
static void test_add_delete(void)
{
#define ENT_ACT(ent, body) "<GlobalAction><EntityAction entityRef='" ent "'>" body "</EntityAction></GlobalAction>"
    const char *story = STORY("Ego",
        TIMED("AddCar", "1", ENT_ACT("Car", "<AddEntityAction>" LANEPOS("1", "-2", "150") "</AddEntityAction>"))
        TIMED("AddEgo", "1.5", ENT_ACT("Ego", "<AddEntityAction>" LANEPOS("1", "-2", "10") "</AddEntityAction>"))
        TIMED("DelEgo", "2", ENT_ACT("Ego", "<DeleteEntityAction/>"))
        TIMED("BackEgo", "3", ENT_ACT("Ego", "<AddEntityAction><Position><RelativeLanePosition entityRef='Ego' "
                                              "ds='10' dLane='0'/></Position></AddEntityAction>")));
#undef ENT_ACT
    char *xml = doc("Ego Car", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "100"))) PRIV("Ego", SPEED("10")), story);
    sn_xrun r;
    sn_xosc *x = start("add delete", xml, &r, 0.01);
    if (x) {
        const sn_xent *eg = &r.ents[0], *car = &r.ents[1];
        CHECK(!eg->absent && car->absent, "add delete: at the start Ego absent %d, Car absent %d", eg->absent, car->absent);
        double worst = 0;
        for (int f = 0; f < 500 && !r.failed; f++) {
            sn_xrun_step(&r);
            double t = r.t, want;
            /* Ego moves 10 m/s from s 100. Global actions act in the step their event starts:
            ** deleted at 2.00 s (after that step's move), frozen at s 120 until added at 3.00 s
            ** 10 m further, moving again from the next step; Car present from 1.00 s */
            if (t < 2.00 - 1e-9)
                want = 100 + 10 * t;
            else if (t < 3.00 - 1e-9)
                want = 120;
            else
                want = 130 + 10 * (t - 3.00);
            worst = fmax(worst, fabs(eg->s - want));
            if (t > 1.995 && t < 2.995)
                worst = fmax(worst, (double)!eg->absent);
            else
                worst = fmax(worst, (double)eg->absent);
            double w0 = worst;
            if (t > 0.995)
                worst = fmax(worst, (double)car->absent + fabs(car->s - 150) + (car->lane != -2));
            else
                worst = fmax(worst, (double)!car->absent);
            if (worst > w0 && worst > 1e-9)
                fprintf(stderr, "add delete: t %.2f Ego s %.6f (want %.6f) absent %d, Car absent %d s %.3f lane %d\n", t,
                        eg->s, want, eg->absent, car->absent, car->s, car->lane);
        }
        CHECK(!r.failed, "add delete: %s", r.why);
        CHECK(worst < 1e-9, "add delete: %.3g off the closed form", worst);
        CHECK(strstr(warned, "AddEntityAction: entity 'Ego' is in the scenario already"), "add delete: no warning for "
              "adding Ego, present (%s)", warned);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (f) ---- */
static void test_empty_and_catalog(void)
{
    char *xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "100"))),
                    "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                    "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
                    "<Event name='E' priority='parallel'><Action name='Nothing'/></Event></Maneuver></ManeuverGroup>"
                    "<StartTrigger/></Act></Story>");
    sn_error err = {0};
    sn_xosc *x = load(xml, &err);
    CHECK(x, "empty action: %s", err.msg);
    bool w = false;
    for (uint32_t k = 0; x && k < x->n_warnings; k++)
        w |= strstr(x->warnings[k], "test.xosc:") && strstr(x->warnings[k], "Action: an Action without a child");
    CHECK(w, "empty action: no warning naming FILE:LINE");
    sn_xosc_free(x);
    free(xml);

    /* a catalog file named as the reference's catalogName, its Catalog named otherwise */
    char dir[] = "/tmp/sensim_xcat_XXXXXX";
    CHECK(mkdtemp(dir), "catalog: no temporary folder");
    char path[256];
    snprintf(path, sizeof path, "%s/MiscObjectCatalog.xosc", dir);
    FILE *f = fopen(path, "w");
    CHECK(f, "catalog: cannot write %s", path);
    if (!f)
        return;
    fputs("<?xml version='1.0'?><OpenSCENARIO><FileHeader revMajor='1' revMinor='1' date='x' description='c' "
          "author='t'/><Catalog name='MiscObject'><MiscObject name='box' mass='10' miscObjectCategory='obstacle'>"
          "<BoundingBox><Center x='0' y='0' z='0.5'/><Dimensions width='1' length='2' height='1'/></BoundingBox>"
          "</MiscObject></Catalog></OpenSCENARIO>\n", f);
    fclose(f);
    char head[512];
    snprintf(head, sizeof head, "<CatalogLocations><MiscObjectCatalog><Directory path='%s'/></MiscObjectCatalog>"
             "</CatalogLocations><RoadNetwork>", dir);
    xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "100"))), "");
    char *at = strstr(xml, "<RoadNetwork>");
    char *ents = strstr(xml, "</Entities>");
    size_t n = strlen(xml) + 4096;
    char *y = malloc(n);
    snprintf(y, n, "%.*s%s%.*s<ScenarioObject name='Box'><CatalogReference catalogName='MiscObjectCatalog' "
             "entryName='box'/></ScenarioObject>%s", (int)(at - xml), xml, head, (int)(ents - at - 13), at + 13, ents);
    x = load(y, &err);
    CHECK(x && x->n_ents == 2 && fabs(x->ents[1].len - 2) < 1e-12, "catalog by the file's stem: %s", x ? "" : err.msg);
    sn_xosc_free(x);
    free(y);
    free(xml);
    unlink(path);
    rmdir(dir);
}

/* ---- (g) ---- */
static void test_lane_change_heading(void)
{
    char story[4096];
    snprintf(story, sizeof story, STORY("Ego", TIMED("LC", "0.1", "%s")),
             "<PrivateAction><LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape='sinusoidal' "
             "value='4' dynamicsDimension='time'/><LaneChangeTarget><AbsoluteTargetLane value='-2'/></LaneChangeTarget>"
             "</LaneChangeAction></LateralAction></PrivateAction>");
    char *xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS("1", "-3", "100"))) PRIV("Ego", SPEED("10")), story);
    sn_xrun r;
    sn_xosc *x = start("lane change heading", xml, &r, 0.01);
    if (x) {
        const sn_xent *e = &r.ents[0];
        sn_xpos here = {.kind = SN_XP_REL_LANE, .entity = 0, .route = -1};
        double worst = 0, bad_lane = 0, moved = 0;
        for (int f = 0; f < 500 && !r.failed; f++) {
            double y0 = e->y;
            sn_xrun_step(&r);
            double rate = (e->y - y0) / 0.01;
            if (e->lat) {
                moved = fmax(moved, fabs(rate));
                worst = fmax(worst, fabs(e->h - asin(rate / 10)));
            }
            double q[4], s, off;
            int32_t ri;
            int lane;
            bool on;
            if (fabs(e->y + 5.25) > 1e-6 && sn_xmove_resolve(&r, &here, q, &ri, &lane, &s, &off, &on))
                bad_lane = fmax(bad_lane, (double)(lane != (e->y < -5.25 ? -3 : -2)) + fabs(q[1] - (e->y < -5.25 ? -7.125 : -3.375)));
        }
        CHECK(!r.failed, "lane change heading: %s", r.why);
        CHECK(moved > 1 && worst < 1e-9, "lane change heading: %.3g off asin(lateral rate / speed)", worst);
        CHECK(bad_lane < 1e-9, "lane change: a RelativeLanePosition dLane 0 is not the lane Ego is in (%.3g)", bad_lane);
        CHECK(fabs(e->y + 3.375) < 1e-9, "lane change: Ego ends at y %.9f, not -3.375", e->y);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (h) ---- */
static void test_end_of_road(void)
{
#define EOR "<EndOfRoadCondition duration='0'/>"
#define EOR_EVENT(name, body)                                                                                       \
    "<Event name='" name "' priority='parallel'><Action name='" name "A'><PrivateAction>" body "</PrivateAction>"  \
    "</Action><StartTrigger><ConditionGroup><Condition name='" name "C' delay='0' conditionEdge='rising'>"          \
    "<ByEntityCondition><TriggeringEntities triggeringEntitiesRule='any'><EntityRef entityRef='Ego'/>"              \
    "</TriggeringEntities><EntityCondition>" EOR "</EntityCondition></ByEntityCondition></Condition>"               \
    "</ConditionGroup></StartTrigger></Event>"
    char *xml = doc("Ego", PRIV("Ego", TELEPORT(LANEPOS("4", "-2", "1050"))) PRIV("Ego", SPEED("10")),
                    STORY("Ego", EOR_EVENT("Back", TELEPORT(LANEPOS("4", "-2", "1000"))) EOR_EVENT("Same", SPEED("10"))));
#undef EOR_EVENT
#undef EOR
    sn_xrun r;
    sn_xosc *x = start("end of road", xml, &r, 0.01);
    if (x) {
        const sn_xent *e = &r.ents[0];
        double worst = 0;
        for (int f = 0; f < 800 && !r.failed; f++) {
            sn_xrun_step(&r);
            /* at s 1100 at 5.00 s; the step after finds the road's end (nothing follows), where both
            ** events start: back at s 1000 at 5.01 s, on at 10 m/s */
            double want = r.t < 5.01 - 1e-9 ? fmin(1050 + 10 * r.t, 1100) : 1000 + 10 * (r.t - 5.01);
            if (fabs(e->s - want) + fabs(e->v - 10) > 1e-9 && worst < 1e-9)
                fprintf(stderr, "end of road: t %.2f s %.9f v %.9f (want s %.9f)\n", r.t, e->s, e->v, want);
            worst = fmax(worst, fabs(e->s - want) + fabs(e->v - 10));
        }
        int back = find_elem(x, "Back"), same = find_elem(x, "Same");
        CHECK(!r.failed, "end of road: %s", r.why);
        CHECK(back >= 0 && same >= 0 && x->elems[back].state != SN_XST_STANDBY && x->elems[same].state != SN_XST_STANDBY,
              "end of road: both events on the EndOfRoadCondition did not start");
        CHECK(worst < 1e-9, "end of road: %.3g off s = 1000 + 10(t - 5.01) after the teleport at the road's end", worst);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

/* ---- (i) ---- */
static void test_lane_change_end_of_road(void)
{
#define LC(lane, T)                                                                                                 \
    "<PrivateAction><LateralAction><LaneChangeAction><LaneChangeActionDynamics dynamicsShape='linear' value='" T      \
    "' dynamicsDimension='time'/><LaneChangeTarget><AbsoluteTargetLane value='" lane "'/></LaneChangeTarget>"       \
    "</LaneChangeAction></LateralAction></PrivateAction>"
    char *xml = doc("Ego Car", PRIV("Ego", TELEPORT(LANEPOS("4", "-3", "1080"))) PRIV("Ego", SPEED("10"))
                    PRIV("Car", TELEPORT(LANEPOS("4", "-3", "500"))) PRIV("Car", SPEED("0")),
                    "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
                    "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors><Maneuver name='M'>"
                    TIMED("LC", "0", LC("-2", "5")) "</Maneuver></ManeuverGroup><ManeuverGroup name='G2' "
                    "maximumExecutionCount='1'><Actors selectTriggeringEntities='false'><EntityRef entityRef='Car'/>"
                    "</Actors><Maneuver name='M2'>" TIMED("LC2", "0", LC("-2", "2")) "</Maneuver></ManeuverGroup>"
                    "<StartTrigger/></Act></Story>");
#undef LC
    sn_xrun r;
    sn_xosc *x = start("lane change at a road's end", xml, &r, 0.01);
    if (x) {
        const sn_xent *e = &r.ents[0], *c = &r.ents[1];
        int lc = find_elem(x, "LCA"), lc2 = find_elem(x, "LC2A");
        double cx = c->x, cy = c->y, ex = 0, ey = 0, t_end = -1, moved = 0, worst_h = 0, car_moved = 0;
        const double want_h = -0.0625 + asin(0.075);
        for (int f = 0; f < 300 && !r.failed; f++) {
            sn_xrun_step(&r);
            if (t_end < 0 && e->end_of_road) {
                t_end = r.t, ex = e->x, ey = e->y;
                CHECK(lc >= 0 && x->elems[lc].state == SN_XST_COMPLETE && fabs(e->s - 1100) < 1e-9,
                      "lane change at a road's end: not complete at s 1100 when Ego arrived (s %.6f)", e->s);
            }
            if (t_end >= 0) {
                moved = fmax(moved, hypot(e->x - ex, e->y - ey));
                worst_h = fmax(worst_h, fabs(remainder(e->h - want_h, 2 * M_PI)));
            }
            car_moved = fmax(car_moved, hypot(c->x - cx, c->y - cy));
        }
        CHECK(!r.failed, "lane change at a road's end: %s", r.why);
        /* 20 m at 10 m/s less the sideways part: sqrt(0.1^2 - 0.0075^2) a step, 200.56 steps */
        CHECK(t_end > 2.0 && t_end < 2.02, "lane change at a road's end: Ego arrived at %.2f s, not 2.01", t_end);
        CHECK(moved < 1e-9 && worst_h < 1e-9, "lane change at a road's end: Ego moved %.3g m and turned %.3g rad "
              "off -0.0625 + asin(0.075) after it", moved, worst_h);
        CHECK(car_moved < 1e-9 && lc2 >= 0 && x->elems[lc2].state == SN_XST_RUNNING,
              "lane change standing still: Car moved %.3g m in 3 s (or the action is not running)", car_moved);
        sn_xrun_free(&r);
        sn_xosc_free(x);
    }
    free(xml);
}

int main(int argc, char **argv)
{
    if (!xh_begin(argc, argv, "test_xosc_offlane", &highway))
        return argc < 2 ? 2 : 1;
    test_route_against();
    test_long_offlane();
    test_lat_offlane();
    test_add_delete();
    test_empty_and_catalog();
    test_lane_change_heading();
    test_end_of_road();
    test_lane_change_end_of_road();
    sn_map_close(highway);
    return CHECK_DONE();
}
