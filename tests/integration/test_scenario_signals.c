/* test_scenario_signals.c — OpenSCENARIO traffic signals reach the map's lights (public API only):
** on maps/town.xodr, the Init's TrafficSignalStateAction makes signal 3002's light green
** (esmini's lamp list "off;off;on") and freezes its junction's cycle; at t > 1 s an event sets it
** "yellow"; the light reads so through sn_engine_traffic_light_info after each. A
** TrafficSignalCondition on signal 3000, which the storyboard never sets, reads the map light's own
** state (one ConditionGroup per colour, edge none): its event starts in the first step. A signal
** id that is no light of the map is a warning, not an error. argv[1]: maps/, argv[2]: temp. */
#include <sensim/sensim.h>

#include "../check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *car = "<Vehicle name='v' vehicleCategory='car'><BoundingBox><Center x='1.4' y='0' z='0.75'/>"
                         "<Dimensions width='1.9' length='4.6' height='1.5'/></BoundingBox><Performance maxSpeed='70' "
                         "maxAcceleration='10' maxDeceleration='10'/></Vehicle>";

#define SIG_ACTION(id, st) "<GlobalAction><InfrastructureAction><TrafficSignalAction><TrafficSignalStateAction name='" id \
                           "' state='" st "'/></TrafficSignalAction></InfrastructureAction></GlobalAction>"
#define SIG_COND(st) "<ConditionGroup><Condition name='c' delay='0' conditionEdge='none'><ByValueCondition>" \
                     "<TrafficSignalCondition name='3000' state='" st "'/></ByValueCondition></Condition></ConditionGroup>"

static sn_traffic_light_state light_state(sn_engine *e, int32_t od, bool *frozen)
{
    for (uint32_t k = 0; k < sn_engine_traffic_light_count(e); k++) {
        sn_traffic_light_info li = {.struct_size = sizeof li};
        sn_error err = {0};
        if (sn_engine_traffic_light_info(e, sn_engine_traffic_light_at(e, k), &li, &err) == SN_OK && li.opendrive_id == od) {
            *frozen = li.frozen;
            return li.state;
        }
    }
    return SN_TL_UNKNOWN;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_scenario_signals MAPS TMP\n");
        return 2;
    }
    char dir[1024], path[1200], maps[PATH_MAX];
    if (!realpath(argv[1], maps))
        return 1;
    snprintf(dir, sizeof dir, "%s/scenario_signals", argv[2]);
    mkdir(argv[2], 0777);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/signals.xosc", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f,
            "<OpenSCENARIO><FileHeader revMajor='1' revMinor='2' date='' description='' author=''/>"
            "<ParameterDeclarations><ParameterDeclaration name='P' value='0'/></ParameterDeclarations><RoadNetwork><LogicFile filepath='%s/town.xodr'/></RoadNetwork><Entities>"
            "<ScenarioObject name='Ego'>%s</ScenarioObject></Entities><Storyboard><Init><Actions>" SIG_ACTION("3002", "off;off;on")
            SIG_ACTION("424242", "red")
            "<Private entityRef='Ego'><PrivateAction><TeleportAction><Position><LanePosition roadId='2' laneId='-1' s='40' "
            "offset='0'/></Position></TeleportAction></PrivateAction></Private></Actions></Init>"
            "<Story name='S'><Act name='A'><ManeuverGroup name='G' maximumExecutionCount='1'><Actors "
            "selectTriggeringEntities='false'/><Maneuver name='M'>"
            "<Event name='Yellow' priority='parallel'><Action name='Y'>" SIG_ACTION("3002", "yellow") "</Action>"
            "<StartTrigger><ConditionGroup><Condition name='t' delay='0' conditionEdge='none'><ByValueCondition>"
            "<SimulationTimeCondition value='1' rule='greaterThan'/></ByValueCondition></Condition></ConditionGroup>"
            "</StartTrigger></Event>"
            "<Event name='Read' priority='parallel'><Action name='R'><GlobalAction><ParameterAction parameterRef='P'>"
            "<SetAction value='1'/></ParameterAction></GlobalAction></Action><StartTrigger>" SIG_COND("red")
            SIG_COND("yellow") SIG_COND("green") "</StartTrigger></Event>"
            "</Maneuver></ManeuverGroup></Act></Story><StopTrigger/></Storyboard></OpenSCENARIO>",
            maps, car);
    fclose(f);
    sn_error err = {0};
    sn_engine_options o = {.quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    const char *sets[] = {"settings.fixed_delta_seconds=0.05"};
    CHECK(e && sn_engine_load_scene_with_overrides(e, path, sets, 1, &err) == SN_OK, "load: %s", err.msg);
    if (!e || err.status)
        return CHECK_DONE();
    CHECK(sn_engine_step(e, &err) == SN_OK, "step: %s", err.msg);
    bool frozen = false;
    sn_traffic_light_state st = light_state(e, 3002, &frozen);
    CHECK(st == SN_TL_GREEN && frozen, "after the Init, signal 3002's light is %d (frozen %d), not green and frozen", st,
          frozen);
    sn_scenario_info si = {.struct_size = sizeof si};
    sn_engine_scenario(e, &si, &err);
    uint64_t msgs0 = si.log_messages;
    for (int k = 0; k < 40; k++)
        CHECK(sn_engine_step(e, &err) == SN_OK, "step: %s", err.msg);
    st = light_state(e, 3002, &frozen);
    CHECK(st == SN_TL_YELLOW && frozen, "after 2 s, signal 3002's light is %d, not yellow", st);
    sn_engine_scenario(e, &si, &err);
    CHECK(si.log_messages > msgs0, "no storyboard messages after the Init");
    sn_engine_destroy(e);

    /* the Read event: its storyboard log has its start transition in frame 1 */
    char out[1200];
    snprintf(out, sizeof out, "%s/out", dir);
    e = sn_engine_create(&o, &err);
    CHECK(e && sn_engine_load_scene_with_overrides(e, path, sets, 1, &err) == SN_OK && sn_engine_open_outputs(e, out, &err) == SN_OK,
          "load 2: %s", err.msg);
    for (int k = 0; e && k < 3; k++)
        sn_engine_step(e, &err);
    if (e)
        sn_engine_finish(e, true, &err);
    sn_engine_destroy(e);
    char log[1300];
    snprintf(log, sizeof log, "%s/storyboard.msgpack", out);
    FILE *lf = fopen(log, "rb");
    CHECK(lf != NULL, "no %s", log);
    if (lf) {
        static char data[1 << 16];
        size_t n = fread(data, 1, sizeof data, lf);
        fclose(lf);
        /* the condition message names TrafficSignalCondition: it fired (the light's state was read) */
        bool seen = false;
        for (size_t i = 0; i + 22 < n && !seen; i++)
            seen = memcmp(data + i, "TrafficSignalCondition", 22) == 0;
        CHECK(seen, "the TrafficSignalCondition on the map's own light never fired");
    }
    return CHECK_DONE();
}
