/* Route-planned lane changes (issue 31): the map autopilot draws its next junction choices
** ahead (route.c) and changes lane before the junction into the lane its choice leaves from.
** The map is written here: a one-way road of two lanes (a broken line between them, 300 m) into
** a junction where the left lane (-2) only goes straight on and the right lane (-1) only turns
** right. argv: TMP PLUGINS.
**
** Ten vehicles start 18 m apart on alternate lanes with the autopilot. For each, its first planned step is
** read at 0.5 s (a step must exist: the fork is within 300 m); at the junction every vehicle takes
** the connecting lane it planned, entering it from the lane the step names, so those that started
** in the other lane changed lane before the junction: at least two of them, each change counted as
** a route change, none given up, and no change into an occupied gap (no other vehicle's box within
** the changer's length + 1 m of its place on the target lane). Two runs give the same choices. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"
#include "../../engine/traffic/traffic.h"

#include <math.h>

static const char *tmp, *plugins;

#define LANE_R(id, mark)                                                                                         \
    "<lane id=\"" id "\" type=\"driving\" level=\"false\"><link/><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>" \
    "<roadMark sOffset=\"0\" type=\"" mark "\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\""        \
    "%s\"/></lane>"

static const char *MAP =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"6\" name=\"fork\"/>\n"
    /* road 1: two lanes towards +x, broken line between them */
    "<road name=\"A\" length=\"300\" id=\"1\" junction=\"-1\"><link><successor elementType=\"junction\" elementId=\"100\"/></link>"
    "<type s=\"0\" type=\"town\"><speed max=\"60\" unit=\"km/h\"/></type>"
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"300\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link/><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<roadMark sOffset=\"0\" type=\"broken\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\"both\"/></lane>"
    "<lane id=\"-2\" type=\"driving\" level=\"false\"><link/><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<roadMark sOffset=\"0\" type=\"solid\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\"none\"/></lane>"
    "</right></laneSection></lanes></road>\n"
    /* road 2: straight on, one lane, its reference 3.5 m right so its lane lines up with A's -2 */
    "<road name=\"B\" length=\"200\" id=\"2\" junction=\"-1\"><link><predecessor elementType=\"junction\" elementId=\"100\"/></link>"
    "<type s=\"0\" type=\"town\"><speed max=\"60\" unit=\"km/h\"/></type>"
    "<planView><geometry s=\"0\" x=\"320\" y=\"-3.5\" hdg=\"0\" length=\"200\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link/><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<roadMark sOffset=\"0\" type=\"solid\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\"none\"/></lane>"
    "</right></laneSection></lanes></road>\n"
    /* road 3: the right turn's exit, heading -y */
    "<road name=\"C\" length=\"200\" id=\"3\" junction=\"-1\"><link><predecessor elementType=\"junction\" elementId=\"100\"/></link>"
    "<type s=\"0\" type=\"town\"><speed max=\"60\" unit=\"km/h\"/></type>"
    "<planView><geometry s=\"0\" x=\"312\" y=\"-12\" hdg=\"-1.5707963267949\" length=\"200\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link/><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>"
    "<roadMark sOffset=\"0\" type=\"solid\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\"none\"/></lane>"
    "</right></laneSection></lanes></road>\n"
    /* connecting road 10: A's -2 straight on to B */
    "<road name=\"J_straight\" length=\"20\" id=\"10\" junction=\"100\"><link><predecessor elementType=\"road\" elementId=\"1\" contactPoint=\"end\"/>"
    "<successor elementType=\"road\" elementId=\"2\" contactPoint=\"start\"/></link>"
    "<planView><geometry s=\"0\" x=\"300\" y=\"-3.5\" hdg=\"0\" length=\"20\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link><predecessor id=\"-2\"/><successor id=\"-1\"/></link>"
    "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes></road>\n"
    /* connecting road 11: A's -1 turning right onto C (a quarter circle of radius 12) */
    "<road name=\"J_right\" length=\"18.8495559215\" id=\"11\" junction=\"100\"><link><predecessor elementType=\"road\" elementId=\"1\" contactPoint=\"end\"/>"
    "<successor elementType=\"road\" elementId=\"3\" contactPoint=\"start\"/></link>"
    "<planView><geometry s=\"0\" x=\"300\" y=\"0\" hdg=\"0\" length=\"18.8495559215\"><arc curvature=\"-0.0833333333333\"/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link><predecessor id=\"-1\"/><successor id=\"-1\"/></link>"
    "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes></road>\n"
    "<junction id=\"100\" name=\"fork\">"
    "<connection id=\"0\" incomingRoad=\"1\" connectingRoad=\"10\" contactPoint=\"start\"><laneLink from=\"-2\" to=\"-1\"/></connection>"
    "<connection id=\"1\" incomingRoad=\"1\" connectingRoad=\"11\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "</junction></OpenDRIVE>\n";

#define NV 10

typedef struct result {
    sn_route_step planned[NV];
    int32_t start_lane[NV], took[NV], from_lane[NV];
    uint64_t route_changes, changes, occupied;
    uint32_t missed;
} result;

static void run(result *r)
{
    memset(r, 0, sizeof *r);
    tu_write(tmp, "fork.xodr", MAP);
    char text[512];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 10, seed: 11}\nmap: fork.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "route_lc.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the fork map: %s\n", err.msg);
        exit(1);
    }
    const sn_map *m = sn_engine_map(e);
    uint32_t ids[NV];
    for (int i = 0; i < NV; i++) {
        sn_waypoint w;
        r->start_lane[i] = i % 2 ? -1 : -2;
        if (sn_map_waypoint_xodr(m, 1, r->start_lane[i], 10.0 + 18.0 * i, &w, &err) != SN_OK) {
            fprintf(stderr, "FAIL: waypoint: %s\n", err.msg);
            exit(1);
        }
        char name[16];
        snprintf(name, sizeof name, "car%d", i);
        w.transform.location.z += 0.5;
        sn_actor_desc d = {sizeof d, "vehicle.sedan", name, w.transform, 0, 0, NULL, 0};
        if (sn_engine_spawn(e, &d, &ids[i], &err) != SN_OK || sn_engine_set_autopilot(e, ids[i], true, NULL, &err) != SN_OK) {
            fprintf(stderr, "FAIL: spawn: %s\n", err.msg);
            exit(1);
        }
        r->took[i] = r->from_lane[i] = 0;
    }
    uint64_t seen = 0;
    int32_t last_lane[NV] = {0};
    for (int f = 1; f <= 1400; f++) {
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
        const sn_traffic_stats *st = sn_traffic_stats_get(e);
        for (; st && seen < st->lane_changes; seen++) {
            const sn_lc_event *ev = &st->log[seen % SN_LC_LOG];
            sn_waypoint tw;
            if (sn_map_waypoint_xodr(m, ev->road_id, ev->lane_id, ev->s, &tw, NULL) != SN_OK)
                continue;
            double yaw = tw.transform.rotation.yaw * M_PI / 180;
            for (int i = 0; i < NV; i++) {
                if (ids[i] == ev->actor)
                    continue;
                sn_actor_info a = {.struct_size = sizeof a};
                sn_engine_actor_get(e, ids[i], &a);
                double dx = a.transform.location.x - tw.transform.location.x, dy = a.transform.location.y - tw.transform.location.y;
                double along = dx * cos(yaw) + dy * sin(yaw), lat = fabs(-dx * sin(yaw) + dy * cos(yaw));
                if (lat < tw.lane_width / 2 + a.bounding_box.extent.y * 0.5 && fabs(along) < 2 * a.bounding_box.extent.x + 1.0)
                    r->occupied++;
            }
        }
        for (int i = 0; i < NV; i++) {
            const sn_actor *a = sn_world_find(&e->world, ids[i]);
            const sn_mapdrive *md = a && a->has_autopilot ? a->mv->ap->map : NULL;
            if (!md || !md->n)
                continue;
            if (f == 10)
                r->planned[i] = md->n_route ? md->route[0] : (sn_route_step){0};
            int32_t road = md->path[0].road_id;
            if (road == 1)
                last_lane[i] = md->path[0].lane_id;
            if ((road == 10 || road == 11) && !r->took[i])
                r->took[i] = road, r->from_lane[i] = last_lane[i];
            if (f == 1400)
                r->missed += md->route_missed;
        }
        if (f == 1400 && st)
            r->route_changes = st->route_lane_changes, r->changes = st->lane_changes;
    }
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    tmp = argv[1], plugins = argv[2];
    static result a, b;
    run(&a);
    int planned = 0, kept = 0, crossed = 0, reached = 0;
    for (int i = 0; i < NV; i++) {
        fprintf(stderr, "  car %d: starts on lane %d, plans road %d from lane %d, took road %d from lane %d\n", i,
                a.start_lane[i], a.planned[i].conn_road, a.planned[i].from_lane, a.took[i], a.from_lane[i]);
        planned += a.planned[i].conn_road == 10 || a.planned[i].conn_road == 11;
        if (!a.took[i])
            continue;
        reached++;
        kept += a.took[i] == a.planned[i].conn_road && a.from_lane[i] == a.planned[i].from_lane;
        crossed += a.planned[i].from_lane != a.start_lane[i] && a.took[i] == a.planned[i].conn_road;
    }
    fprintf(stderr, "%d of %d planned ahead, %d reached the junction, %d took the planned branch, %d changed lane for it; "
                    "%llu lane changes (%llu for the route), %u steps given up, %llu into an occupied gap\n",
            planned, NV, reached, kept, crossed, (unsigned long long)a.changes, (unsigned long long)a.route_changes, a.missed,
            (unsigned long long)a.occupied);
    CHECK(planned == NV, "every vehicle planned its junction choice ahead (%d of %d)", planned, NV);
    CHECK(reached >= NV - 2, "%d of %d vehicles reached the junction in 70 s", reached, NV);
    CHECK(kept == reached, "%d of %d took the branch they planned, from the lane it leaves", kept, reached);
    CHECK(crossed >= 2, "vehicles whose planned branch leaves the other lane changed lane for it: %d", crossed);
    CHECK(a.route_changes >= (uint64_t)crossed, "route lane changes counted: %llu, wanted >= %d",
          (unsigned long long)a.route_changes, crossed);
    CHECK(a.missed == 0, "%u route steps given up", a.missed);
    CHECK(a.occupied == 0, "%llu lane changes into an occupied gap", (unsigned long long)a.occupied);
    run(&b);
    CHECK(memcmp(a.took, b.took, sizeof a.took) == 0 && memcmp(a.planned, b.planned, sizeof a.planned) == 0,
          "a second run makes the same plans and choices");
    return CHECK_DONE();
}
