/* test_scenario_api.c — the ego under test (issue 34 item 5) through the public API only: a
** scenario whose Ego has an external controller (ObjectController with sensimController =
** external, activated in the Init) is driven by this program between steps with
** sn_engine_set_target_transform at 30 m/s, while the storyboard plays the lead car at 20 m/s 60 m
** ahead. Ground truth: the headway (60 - 10 t) / 30 falls below 1.5 s first at t = 1.5, so the
** event fires in the step at 1.50 or 1.51 (the first where the rule holds, the positions being
** sums of steps), the StopTrigger on its completion ends the storyboard in that step, and
** sn_engine_run-like stepping reads the end from sn_engine_scenario. The storyboard never moves
** the external Ego: its pose is exactly where this program put it. argv[1]: maps/, argv[2]: temp. */
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

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_scenario_api MAPS TMP\n");
        return 2;
    }
    char dir[1024], path[1200], maps[4096];
    if (!realpath(argv[1], maps))
        return 1;
    snprintf(dir, sizeof dir, "%s/scenario_api", argv[2]);
    mkdir(argv[2], 0777);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/external.xosc", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f,
            "<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='' description='' author=''/>"
            "<ParameterDeclarations><ParameterDeclaration name='P' value='0'/></ParameterDeclarations><RoadNetwork><LogicFile filepath='%s/highway.xodr'/></RoadNetwork><Entities>"
            "<ScenarioObject name='Ego'>%s<ObjectController><Controller name='me'><Properties><Property "
            "name='sensimController' value='external'/></Properties></Controller></ObjectController></ScenarioObject>"
            "<ScenarioObject name='Lead'>%s</ScenarioObject></Entities><Storyboard><Init><Actions>"
            "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' s='10' "
            "offset='0'/></Position></TeleportAction></PrivateAction><PrivateAction><ControllerAction>"
            "<ActivateControllerAction longitudinal='true' lateral='true'/></ControllerAction></PrivateAction></Private>"
            "<Private entityRef='Lead'><PrivateAction><TeleportAction><Position><LanePosition roadId='1' laneId='-3' "
            "s='70' offset='0'/></Position></TeleportAction></PrivateAction><PrivateAction><LongitudinalAction>"
            "<SpeedAction><SpeedActionDynamics dynamicsShape='step' value='0' dynamicsDimension='time'/>"
            "<SpeedActionTarget><AbsoluteTargetSpeed value='20'/></SpeedActionTarget></SpeedAction></LongitudinalAction>"
            "</PrivateAction></Private></Actions></Init>"
            "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
            "selectTriggeringEntities='false'><EntityRef entityRef='Lead'/></Actors><Maneuver name='M'><Event name='Close' "
            "priority='override'><Action name='Mark'><GlobalAction><ParameterAction parameterRef='P'><SetAction value='1'/>"
            "</ParameterAction></GlobalAction></Action><StartTrigger><ConditionGroup><Condition name='Headway' delay='0' "
            "conditionEdge='rising'><ByEntityCondition><TriggeringEntities triggeringEntitiesRule='any'><EntityRef "
            "entityRef='Ego'/></TriggeringEntities><EntityCondition><TimeHeadwayCondition entityRef='Lead' value='1.5' "
            "freespace='false' rule='lessThan'/></EntityCondition></ByEntityCondition></Condition></ConditionGroup>"
            "</StartTrigger></Event></Maneuver></ManeuverGroup></Act></Story><StopTrigger><ConditionGroup><Condition "
            "name='Done' delay='0' conditionEdge='rising'><ByValueCondition><StoryboardElementStateCondition "
            "storyboardElementType='event' storyboardElementRef='Close' state='completeState'/></ByValueCondition>"
            "</Condition></ConditionGroup></StopTrigger></Storyboard></OpenSCENARIO>",
            maps, car, car);
    fclose(f);

    sn_error err = {0};
    sn_engine_options o = {.quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    const char *sets[] = {"settings.fixed_delta_seconds=0.01"};
    CHECK(e && sn_engine_load_scene_with_overrides(e, path, sets, 1, &err) == SN_OK, "load: %s", err.msg);
    if (!e || err.status)
        return CHECK_DONE();
    uint32_t ego = sn_engine_find_actor(e, "Ego");
    CHECK(ego != 0, "no actor Ego");
    sn_actor_info a = {.struct_size = sizeof a};
    sn_engine_actor_get(e, ego, &a);
    double x0 = a.transform.location.x;
    CHECK(fabs(x0 - (10 + 1.4)) < 1e-6 && fabs(a.transform.location.y - 7.125) < 1e-6, "Ego spawned at (%g, %g)", x0,
          a.transform.location.y);
    sn_scenario_info si = {.struct_size = sizeof si};
    int frames = 0;
    for (; frames < 1000; frames++) {
        sn_engine_scenario(e, &si, &err);
        if (si.ended)
            break;
        sn_transform t = a.transform;
        t.location.x = x0 + 30 * 0.01 * (frames + 1);
        if (sn_engine_set_target_transform(e, ego, &t, &err) || sn_engine_step(e, &err)) {
            CHECK(0, "frame %d: %s", frames, err.msg);
            break;
        }
        sn_engine_actor_get(e, ego, &a);
        CHECK(fabs(a.transform.location.x - t.location.x) < 1e-9, "frame %d: Ego at %.6f, not where the program put it (%.6f)",
              frames, a.transform.location.x, t.location.x);
    }
    CHECK(si.loaded && si.ended && si.completed && !strcmp(si.ended_by, "StopTrigger") && !strcmp(si.stop_condition, "Done"),
          "the storyboard: loaded %d ended %d by '%s' (%s)", si.loaded, si.ended, si.ended_by, si.stop_condition);
    CHECK(si.time > 1.5 - 1e-9 && si.time < 1.51 + 1e-9, "the headway event and the stop at %.3f s, not 1.50-1.51", si.time);
    CHECK(frames >= 150 && frames <= 151, "ran %d frames", frames);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
