/* A full exit is drawn less (docs/traffic.md, "Routes planned ahead"; jam71): a roaming autopilot
** drawing its turn at a junction draws a branch whose exit lane's queue already stands back to
** the junction, on a lane that offers no choice ahead, a quarter as often as a free one (route.c's
** exit_full), so that cars stop feeding a ring of queues round a block (Town10HD). The map is
** written here: a one-way road of one lane (300 m) into a junction whose connecting lanes from it
** go straight on (road 10, to road 2) or turn right (road 11, to road 3, 200 m to its end, no
** junction). A braked sedan without autopilot stands 4 m into road 3 (its rear 1.7 m past the
** junction): the right turn's exit is full. An autopilot car on road 2 driving
** away makes the traffic's grid exist from the first frame; then NV cars start 9 m apart on road
** 1 with the autopilot and each draws its branch (its route's first step, read at 0.5 s).
** Three scene seeds. Asserted: at most a third of the cars draw the full right turn (uniform
** draws, before the rule, gave about half); with no car standing on road 3 at least a third draw
** it (the rule acts on a full exit only); the same choices and the same transforms at 10 s, byte
** for byte, at 1 and 2 threads. argv: TMP PLUGINS. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"
#include "../../engine/traffic/traffic.h"

#include <math.h>

static const char *tmp, *plugins;

#define LANE(links)                                                                                                  \
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"            \
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link>" links "</link><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>" \
    "<roadMark sOffset=\"0\" type=\"solid\" weight=\"standard\" color=\"white\" width=\"0.15\" laneChange=\"none\"/></lane>"   \
    "</right></laneSection></lanes>"
#define TOWN "<type s=\"0\" type=\"town\"><speed max=\"50\" unit=\"km/h\"/></type>"

static const char *MAP =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<OpenDRIVE><header revMajor=\"1\" revMinor=\"6\" name=\"fullexit\"/>\n"
    "<road name=\"A\" length=\"300\" id=\"1\" junction=\"-1\"><link><successor elementType=\"junction\" elementId=\"100\"/></link>" TOWN
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"300\"><line/></geometry></planView>" LANE("") "</road>\n"
    "<road name=\"B\" length=\"200\" id=\"2\" junction=\"-1\"><link><predecessor elementType=\"junction\" elementId=\"100\"/></link>" TOWN
    "<planView><geometry s=\"0\" x=\"320\" y=\"0\" hdg=\"0\" length=\"200\"><line/></geometry></planView>" LANE("") "</road>\n"
    "<road name=\"C\" length=\"200\" id=\"3\" junction=\"-1\"><link><predecessor elementType=\"junction\" elementId=\"100\"/></link>" TOWN
    "<planView><geometry s=\"0\" x=\"312\" y=\"-12\" hdg=\"-1.5707963267949\" length=\"200\"><line/></geometry></planView>" LANE("")
    "</road>\n"
    "<road name=\"J_straight\" length=\"20\" id=\"10\" junction=\"100\"><link><predecessor elementType=\"road\" elementId=\"1\" contactPoint=\"end\"/>"
    "<successor elementType=\"road\" elementId=\"2\" contactPoint=\"start\"/></link>"
    "<planView><geometry s=\"0\" x=\"300\" y=\"0\" hdg=\"0\" length=\"20\"><line/></geometry></planView>"
    LANE("<predecessor id=\"-1\"/><successor id=\"-1\"/>") "</road>\n"
    "<road name=\"J_right\" length=\"18.8495559215\" id=\"11\" junction=\"100\"><link><predecessor elementType=\"road\" elementId=\"1\" contactPoint=\"end\"/>"
    "<successor elementType=\"road\" elementId=\"3\" contactPoint=\"start\"/></link>"
    "<planView><geometry s=\"0\" x=\"300\" y=\"0\" hdg=\"0\" length=\"18.8495559215\"><arc curvature=\"-0.0833333333333\"/></geometry></planView>"
    LANE("<predecessor id=\"-1\"/><successor id=\"-1\"/>") "</road>\n"
    "<junction id=\"100\" name=\"fork\">"
    "<connection id=\"0\" incomingRoad=\"1\" connectingRoad=\"10\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "<connection id=\"1\" incomingRoad=\"1\" connectingRoad=\"11\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "</junction></OpenDRIVE>\n";

#define NV 30

typedef struct result {
    int32_t drew[NV]; /* the connecting road of each car's first route step at 0.5 s */
    sn_transform end[NV];
} result;

static uint32_t spawn(sn_engine *e, int32_t road, double s, const char *name, bool autopilot)
{
    sn_error err = {0};
    sn_waypoint w;
    uint32_t id = 0;
    if (sn_map_waypoint_xodr(sn_engine_map(e), road, -1, s, &w, &err) != SN_OK) {
        fprintf(stderr, "FAIL: waypoint: %s\n", err.msg);
        exit(1);
    }
    w.transform.location.z += 0.5;
    sn_actor_desc d = {sizeof d, "vehicle.sedan", name, w.transform, 0, 0, NULL, 0};
    if (sn_engine_spawn(e, &d, &id, &err) != SN_OK || (autopilot && sn_engine_set_autopilot(e, id, true, NULL, &err) != SN_OK)) {
        fprintf(stderr, "FAIL: spawn: %s\n", err.msg);
        exit(1);
    }
    return id;
}

static void step(sn_engine *e)
{
    sn_error err = {0};
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "FAIL: step: %s\n", err.msg);
        exit(1);
    }
}

static void run(result *r, bool full, int threads, int seed)
{
    memset(r, 0, sizeof *r);
    tu_write(tmp, "fullexit.xodr", MAP);
    char text[256];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 20, seed: %d}\nmap: fullexit.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n",
             seed);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "fullexit.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the map: %s\n", err.msg);
        exit(1);
    }
    if (full) {
        uint32_t parked = spawn(e, 3, 4.0, "parked", false);
        sn_actor *pa = sn_world_find(&e->world, parked);
        pa->ph->control = (sn_vehicle_control){.brake = 1.0, .hand_brake = true};
    }
    spawn(e, 2, 100.0, "away", true);
    step(e); /* the grid of bodies the draws read */
    uint32_t ids[NV];
    for (int i = 0; i < NV; i++) {
        char name[16];
        snprintf(name, sizeof name, "car%d", i);
        ids[i] = spawn(e, 1, 8.0 + 9.0 * i, name, true);
    }
    for (int f = 1; f <= 200; f++) {
        step(e);
        for (int i = 0; i < NV; i++) {
            const sn_actor *a = sn_world_find(&e->world, ids[i]);
            const sn_mapdrive *md = a && a->has_autopilot ? a->mv->ap->map : NULL;
            if (f == 10 && md && md->n_route)
                r->drew[i] = md->route[0].conn_road;
            if (f == 200 && a)
                r->end[i] = sn_actor_world_transform(&e->world, a);
        }
    }
    sn_engine_destroy(e);
}

static int count(const result *r, int32_t road)
{
    int n = 0;
    for (int i = 0; i < NV; i++)
        n += r->drew[i] == road;
    return n;
}

#define SEEDS 3

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    tmp = argv[1], plugins = argv[2];
    static result a[SEEDS], b, c[SEEDS];
    int right = 0, straight = 0, right_free = 0, straight_free = 0;
    for (int k = 0; k < SEEDS; k++) {
        run(&a[k], true, 1, 5 + k);
        run(&c[k], false, 1, 5 + k);
        right += count(&a[k], 11), straight += count(&a[k], 10);
        right_free += count(&c[k], 11), straight_free += count(&c[k], 10);
    }
    run(&b, true, 2, 5);
    const int n = SEEDS * NV;
    fprintf(stderr, "exit full: %d of %d cars drew the right turn, %d straight on; exit free: %d right, %d straight on\n",
            right, n, straight, right_free, straight_free);
    CHECK(right + straight == n && right_free + straight_free == n, "every car drew its branch at the fork (%d, %d of %d)",
          right + straight, right_free + straight_free, n);
    CHECK(right <= n / 3, "%d of %d cars drew the turn whose exit is full, wanted at most %d", right, n, n / 3);
    CHECK(right_free >= n / 3, "with the exit free %d of %d drew the turn, wanted at least %d", right_free, n, n / 3);
    CHECK(memcmp(a[0].drew, b.drew, sizeof b.drew) == 0 && memcmp(a[0].end, b.end, sizeof b.end) == 0,
          "1 and 2 threads: the same draws and the same transforms at 10 s, byte for byte");
    return CHECK_DONE();
}
