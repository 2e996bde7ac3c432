/* test_xosc_traffic.c — OpenSCENARIO's TrafficSwarmAction, TrafficSourceAction and
** TrafficSinkAction (docs/openscenario.md, "Traffic") through the public API, on maps/highway.xodr,
** whose road 1 runs straight along x for its first 300 m with driving lanes -2, -3, -4 (centres at
** y = -3.375, -7.125, -10.875 in OpenDRIVE's frame) and the map's spawn points every 20 m from
** s = 10 on them.
**
** (a) Swarm round Ego (lane -3, s = 155, 20 m/s): ellipse semi-axes 100 (along x) and 5, inner
** radius 30. Worked by hand: lane -3's points inside the ring are at dx = x - 155 in {-85, -65,
** -45, 35, 55, 75, 95} (|dx| <= 100, > 30); lanes -2 and -4 (dy 3.75: |dx| <= 66.1) add points
** at the same stations, 3.75 m from lane -3's, so with 15 m between vehicles exactly one per
** station fits: 7 vehicles when 10 are asked for, 5 when 5 are. Each frame: no more than asked,
** every swarm vehicle inside the ellipse (one step of motion allowed), a new one never inside the
** inner circle; Ego outruns those behind (10 m/s slower), so some go and others come.
** (b) A source at lane -3 s = 500 (radius 5, 0.5 vehicles/s, 10 m/s) and a sink at s = 560
** (radius 10): one vehicle every 2 s — source_0 .. source_3 by the storyboard's end at t = 10 s,
** which stops the traffic in its frame —, each spawned within
** 5 m of x = 500 and removed within 10 m of x = 560 (the first two, spawned at 2 and 4 s, are
** 45-55 m away: gone by t = 10 s).
** (c) The same scenario and seed give the same vehicles at the same places; a bad swarm is one
** FILE:LINE error. (d) LightStateAction's lights, (e) TrafficStopAction and (f) a vehicle's pitch and
** roll from its road, and a trailer's spawn, below. argv[1]: maps/, argv[2]: temp. */
#include <sensim/sensim.h>

#include "../check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

static const char *car = "<Vehicle name='v' vehicleCategory='car'><BoundingBox><Center x='1.4' y='0' z='0.75'/>"
                         "<Dimensions width='1.9' length='4.6' height='1.5'/></BoundingBox><Performance maxSpeed='70' "
                         "maxAcceleration='10' maxDeceleration='10'/></Vehicle>";

static char maps[4096], dir[1200];

/* A scenario on the highway: Ego on lane -3 at s 155, 20 m/s, `global` in the Init and `events`
** in a maneuver of Ego's. */
static void write_ev(const char *path, const char *global, const char *events)
{
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fprintf(f,
            "<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='' description='' author=''/>"
            "<RoadNetwork><LogicFile filepath='%s/highway.xodr'/></RoadNetwork><Entities>"
            "<ScenarioObject name='Ego'>%s</ScenarioObject></Entities><Storyboard><Init><Actions>%s"
            "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='155' "
            "offset='0'/></Position></TeleportAction></PrivateAction><PrivateAction><LongitudinalAction>"
            "<SpeedAction><SpeedActionDynamics dynamicsShape='step' value='0' dynamicsDimension='time'/>"
            "<SpeedActionTarget><AbsoluteTargetSpeed value='20'/></SpeedActionTarget></SpeedAction></LongitudinalAction>"
            "</PrivateAction></Private></Actions></Init>"
            "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
            "selectTriggeringEntities='false'><EntityRef entityRef='Ego'/></Actors>%s%s%s</ManeuverGroup></Act></Story>"
            "<StopTrigger><ConditionGroup><Condition name='End' delay='0' conditionEdge='none'><ByValueCondition>"
            "<SimulationTimeCondition value='10' rule='greaterOrEqual'/></ByValueCondition></Condition></ConditionGroup>"
            "</StopTrigger></Storyboard></OpenSCENARIO>",
            maps, car, global, *events ? "<Maneuver name='M'>" : "", events, *events ? "</Maneuver>" : "");
    fclose(f);
}

static void write(const char *path, const char *global) { write_ev(path, global, ""); }

static sn_engine *load(const char *path, sn_error *err)
{
    sn_engine_options o = {.quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, err);
    const char *sets[] = {"settings.fixed_delta_seconds=0.05"};
    if (e && sn_engine_load_scene_with_overrides(e, path, sets, 1, err)) {
        sn_engine_destroy(e);
        return NULL;
    }
    return e;
}

/* The actors whose names start with prefix: their count; names and (x, y) in OpenSCENARIO's frame. */
static int live(sn_engine *e, const char *prefix, char names[][32], double (*xy)[2], int cap)
{
    int n = 0;
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        if (sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a) || strncmp(a.name, prefix, strlen(prefix)))
            continue;
        if (n < cap) {
            snprintf(names[n], 32, "%.31s", a.name);
            xy[n][0] = a.transform.location.x, xy[n][1] = -a.transform.location.y;
        }
        n++;
    }
    return n;
}

static bool seen_before(char seen[][32], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(seen[i], name))
            return true;
    return false;
}

/* (a): a swarm asking for `want` vehicles; returns the vehicles' poses at the end into out (for (c)). */
static void swarm(int want, int expect0, double *sum_out)
{
    char path[1400], global[600];
    snprintf(path, sizeof path, "%s/swarm_%d.xosc", dir, want);
    snprintf(global, sizeof global,
             "<GlobalAction><TrafficAction><TrafficSwarmAction innerRadius='30' semiMajorAxis='100' semiMinorAxis='5' "
             "numberOfVehicles='%d' velocity='10' offset='0'><CentralObject entityRef='Ego'/></TrafficSwarmAction>"
             "</TrafficAction></GlobalAction>", want);
    write(path, global);
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(e != NULL, "load: %s", err.msg);
    if (!e)
        return;
    char names[64][32], seen[256][32];
    double xy[64][2];
    int n_seen = 0, gone = 0, most = 0;
    double sum = 0;
    const double dt = 0.05, step = 20 * dt + 0.5; /* a frame's motion of Ego plus a vehicle's */
    for (int frame = 0; frame <= 200; frame++) {
        if (frame > 0 && sn_engine_step(e, &err)) {
            CHECK(0, "frame %d: %s", frame, err.msg);
            break;
        }
        uint32_t ego = sn_engine_find_actor(e, "Ego");
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, ego, &a);
        /* Ego's reference point (rear axle): the actor's origin less the box's centre offset; its
        ** heading turns the ellipse once it is on the spiral past x 300 */
        double h = -a.transform.rotation.yaw * M_PI / 180;
        double ex = a.transform.location.x - 1.4 * cos(h), ey = -a.transform.location.y - 1.4 * sin(h);
        int n = live(e, "swarm_", names, xy, 64);
        if (frame == 0)
            CHECK(n == expect0, "%d asked: %d vehicles at t = 0, worked by hand %d", want, n, expect0);
        CHECK(n <= want, "frame %d: %d swarm vehicles, at most %d asked", frame, n, want);
        most = n > most ? n : most;
        for (int k = 0; k < n && k < 64; k++) {
            double gx = xy[k][0] - ex, gy = xy[k][1] - ey;
            double dx = gx * cos(h) + gy * sin(h), dy = -gx * sin(h) + gy * cos(h);
            double u = dx / (100 + step), w = dy / (5 + step);
            CHECK(u * u + w * w <= 1, "frame %d: %s at dx %.2f dy %.2f, outside the ellipse", frame, names[k], dx, dy);
            if (!seen_before(seen, n_seen, names[k])) {
                CHECK(hypot(dx, dy) > 30 - step, "frame %d: %s appeared %.2f m from Ego, inside the inner radius 30",
                      frame, names[k], hypot(dx, dy));
                if (n_seen < 256)
                    snprintf(seen[n_seen++], 32, "%.31s", names[k]);
            }
            sum += xy[k][0] + 3 * xy[k][1];
        }
    }
    gone = n_seen - live(e, "swarm_", names, xy, 64);
    CHECK(gone > 0 && n_seen > want, "%d asked: %d seen, %d gone: Ego outruns those behind, new ones should come",
          want, n_seen, gone);
    if (sum_out)
        *sum_out = sum;
    sn_engine_destroy(e);
}

static void source_sink(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/source.xosc", dir);
    write(path, "<GlobalAction><TrafficAction><TrafficSourceAction radius='5' rate='0.5' velocity='10'><Position>"
                "<LanePosition roadId='1' laneId='-3' s='500' offset='0'/></Position></TrafficSourceAction>"
                "</TrafficAction></GlobalAction><GlobalAction><TrafficAction><TrafficSinkAction radius='10'><Position>"
                "<LanePosition roadId='1' laneId='-3' s='560' offset='0'/></Position></TrafficSinkAction>"
                "</TrafficAction></GlobalAction>");
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(e != NULL, "load: %s", err.msg);
    if (!e)
        return;
    char names[64][32], seen[64][32];
    double xy[64][2];
    int n_seen = 0;
    for (int frame = 0; frame <= 200; frame++) {
        if (frame > 0 && sn_engine_step(e, &err)) {
            CHECK(0, "frame %d: %s", frame, err.msg);
            break;
        }
        double t = frame * 0.05;
        int n = live(e, "source_", names, xy, 64);
        for (int k = 0; k < n && k < 64; k++) {
            CHECK(xy[k][0] < 551 + 1e-6, "t %.2f: %s at x %.2f: past the sink (within 10 m of x 560)", t, names[k], xy[k][0]);
            if (!seen_before(seen, n_seen, names[k])) {
                CHECK(fabs(xy[k][0] - 500) < 5 + 1, "t %.2f: %s appeared at x %.2f, not within 5 m of the source at 500",
                      t, names[k], xy[k][0]);
                /* the k-th (from 0) is due at 2 (k + 1) s and spawns in that frame */
                int idx = atoi(names[k] + 7);
                CHECK(fabs(t - 2.0 * (idx + 1)) < 1e-6, "%s appeared at t %.2f, due at %.2f", names[k], t, 2.0 * (idx + 1));
                if (n_seen < 64)
                    snprintf(seen[n_seen++], 32, "%.31s", names[k]);
            }
        }
    }
    int alive = live(e, "source_", names, xy, 64);
    CHECK(n_seen == 4, "%d source vehicles by t = 10 s, 0.5 a second gives 4 (the fifth, due at 10.0 s, is not: "
          "the storyboard ends in that frame)", n_seen);
    CHECK(n_seen - alive == 2, "%d removed by the sink by t = 10 s, worked by hand 2 (spawned at 2 and 4 s)",
          n_seen - alive);
    sn_engine_destroy(e);
}

/* (d) LightStateAction (1.2) onto CARLA's light bits: in the Init, lowBeam on at once and
** brakeLights on with a transitionTime of 0.5 s: low beam from t = 0, brake lights from the frame
** at 0.5 s (the action's end) and not before. */
static void lights(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/lights.xosc", dir);
    write(path, "<Private entityRef='Ego'><PrivateAction><AppearanceAction><LightStateAction transitionTime='0'><LightType>"
                "<VehicleLight vehicleLightType='lowBeam'/></LightType><LightState mode='on'/></LightStateAction>"
                "</AppearanceAction></PrivateAction><PrivateAction><AppearanceAction><LightStateAction "
                "transitionTime='0.5'><LightType><VehicleLight vehicleLightType='brakeLights'/></LightType><LightState "
                "mode='on'/></LightStateAction></AppearanceAction></PrivateAction></Private>");
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(e != NULL, "load: %s", err.msg);
    if (!e)
        return;
    uint32_t ego = sn_engine_find_actor(e, "Ego");
    for (int frame = 0; frame <= 20; frame++) {
        if (frame > 0 && sn_engine_step(e, &err))
            break;
        uint32_t st = 0;
        sn_engine_get_vehicle_light_state(e, ego, &st, &err);
        uint32_t want = SN_LIGHT_LOW_BEAM | (frame >= 10 ? SN_LIGHT_BRAKE : 0);
        CHECK(st == want, "t %.2f: light state 0x%x, expected 0x%x", frame * 0.05, st, want);
    }
    sn_engine_destroy(e);
}

/* (e) TrafficStopAction (1.2): the swarm named 'sw' stopped at t = 2 s neither spawns nor removes
** from then on: the set of its vehicles stays what it was at 2 s, though Ego outruns them. */
static void stop(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/stop.xosc", dir);
    write_ev(path, "<GlobalAction><TrafficAction trafficName='sw'><TrafficSwarmAction innerRadius='30' "
                   "semiMajorAxis='100' semiMinorAxis='5' numberOfVehicles='10' velocity='10'><CentralObject "
                   "entityRef='Ego'/></TrafficSwarmAction></TrafficAction></GlobalAction>",
             "<Event name='Stop' priority='parallel'><Action name='StopSw'><GlobalAction><TrafficAction "
             "trafficName='sw'><TrafficStopAction/></TrafficAction></GlobalAction></Action><StartTrigger><ConditionGroup>"
             "<Condition name='T' delay='0' conditionEdge='none'><ByValueCondition><SimulationTimeCondition value='2' "
             "rule='greaterOrEqual'/></ByValueCondition></Condition></ConditionGroup></StartTrigger></Event>");
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(e != NULL, "load: %s", err.msg);
    if (!e)
        return;
    char names[64][32], at2[64][32];
    double xy[64][2];
    int n2 = -1;
    for (int frame = 1; frame <= 200; frame++) {
        if (sn_engine_step(e, &err))
            break;
        int n = live(e, "swarm_", names, xy, 64);
        if (frame == 40) { /* t = 2.00: the stop runs in this frame, after the swarm's step */
            n2 = n;
            memcpy(at2, names, sizeof at2);
        } else if (frame > 40) {
            bool same = n == n2;
            for (int k = 0; k < n && same && k < 64; k++)
                same = seen_before(at2, n2, names[k]);
            CHECK(same, "t %.2f: %d swarm vehicles, the set changed after the TrafficStopAction (%d at 2 s)",
                  frame * 0.05, n, n2);
            if (!same)
                break;
        }
    }
    sn_engine_destroy(e);
}

static void bad(const char *swarm_attrs, const char *expect)
{
    char path[1400], global[600];
    snprintf(path, sizeof path, "%s/bad.xosc", dir);
    snprintf(global, sizeof global, "<GlobalAction><TrafficAction><TrafficSwarmAction %s><CentralObject "
             "entityRef='Ego'/></TrafficSwarmAction></TrafficAction></GlobalAction>", swarm_attrs);
    write(path, global);
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(!e && strstr(err.msg, "bad.xosc:1: TrafficSwarmAction:") && strstr(err.msg, expect) && !strchr(err.msg, '\n'),
          "bad swarm (%s): '%s', expected FILE:LINE and '%s'", swarm_attrs, err.msg, expect);
    sn_engine_destroy(e);
}

/* (f) A vehicle takes its road's pitch and roll: Ego standing on lane -3 at s 450, where the
** highway rises along z = c u^2 + d u^3 (u = s - 300, c = 7.93388429752e-5, d = -9.61682945154e-8:
** slope 2cu + 3du^2 = 0.0173103 at u = 150) with superelevation -0.03: its actor's CARLA pitch is
** atan(slope) (nose up) and its roll -0.03 rad (the right side up), in degrees, 1e-6, at spawn and
** after a step. A trailer (1.2 m high, lower than the truck blueprint's centre of mass) spawns
** with its centre of mass at half its height (esmini's trailer_connect was refused). */
static void tilt(void)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/tilt.xosc", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    fprintf(f,
            "<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='' description='' author=''/>"
            "<RoadNetwork><LogicFile filepath='%s/highway.xodr'/></RoadNetwork><Entities>"
            "<ScenarioObject name='Ego'>%s</ScenarioObject><ScenarioObject name='Trailer'><Vehicle name='t' "
            "vehicleCategory='trailer'><BoundingBox><Center x='1.4' y='0' z='0.75'/><Dimensions width='2.0' length='4.5' "
            "height='1.2'/></BoundingBox><Performance maxSpeed='30' maxAcceleration='5' maxDeceleration='5'/></Vehicle>"
            "</ScenarioObject></Entities><Storyboard><Init><Actions>"
            "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='450' "
            "offset='0'/></Position></TeleportAction></PrivateAction></Private>"
            "<Private entityRef='Trailer'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-2' "
            "s='100' offset='0'/></Position></TeleportAction></PrivateAction></Private></Actions></Init>"
            "<StopTrigger><ConditionGroup><Condition name='End' delay='0' conditionEdge='none'><ByValueCondition>"
            "<SimulationTimeCondition value='1' rule='greaterOrEqual'/></ByValueCondition></Condition></ConditionGroup>"
            "</StopTrigger></Storyboard></OpenSCENARIO>",
            maps, car);
    fclose(f);
    sn_error err = {0};
    sn_engine *e = load(path, &err);
    CHECK(e != NULL, "tilt: load (a trailer on the truck blueprint): %s", err.msg);
    if (!e)
        return;
    const double u = 150, slope = 2 * 7.93388429752e-05 * u + 3 * -9.61682945154e-08 * u * u;
    const double pitch = atan(slope) * 180 / M_PI, roll = -0.03 * 180 / M_PI;
    uint32_t ego = sn_engine_find_actor(e, "Ego"), tr = sn_engine_find_actor(e, "Trailer");
    for (int k = 0; k < 2; k++) {
        if (k && sn_engine_step(e, &err))
            break;
        sn_actor_info a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
        sn_engine_actor_get(e, ego, &a);
        sn_engine_actor_get(e, tr, &b);
        CHECK(fabs(a.transform.rotation.pitch - pitch) < 1e-6 && fabs(a.transform.rotation.roll - roll) < 1e-6,
              "tilt, step %d: Ego pitch %.9f roll %.9f, the road's %.9f %.9f", k, a.transform.rotation.pitch,
              a.transform.rotation.roll, pitch, roll);
        CHECK(fabs(b.transform.rotation.pitch) < 1e-9 && fabs(b.transform.rotation.roll) < 1e-9,
              "tilt: the trailer on the level road pitch %g roll %g", b.transform.rotation.pitch, b.transform.rotation.roll);
    }
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_xosc_traffic MAPS TMP\n");
        return 2;
    }
    if (!realpath(argv[1], maps))
        return 1;
    snprintf(dir, sizeof dir, "%s/xosc_traffic", argv[2]);
    mkdir(argv[2], 0777);
    mkdir(dir, 0777);
    double s1 = 0, s2 = 1;
    swarm(10, 7, &s1);
    swarm(10, 7, &s2);
    CHECK(s1 == s2, "the same scenario and seed gave other swarms (%.17g vs %.17g)", s1, s2);
    swarm(5, 5, NULL);
    source_sink();
    lights();
    stop();
    tilt();
    bad("innerRadius='200' semiMajorAxis='100' semiMinorAxis='5' numberOfVehicles='3'", "covers the whole ellipse");
    bad("innerRadius='20' semiMajorAxis='100' semiMinorAxis='5' numberOfVehicles='1e6'", "numberOfVehicles");
    bad("innerRadius='20' semiMajorAxis='100' semiMinorAxis='5' numberOfVehicles='2.5'", "not a whole number");
    bad("innerRadius='20' semiMajorAxis='nan' semiMinorAxis='5' numberOfVehicles='2'", "semiMajorAxis");
    return CHECK_DONE();
}
