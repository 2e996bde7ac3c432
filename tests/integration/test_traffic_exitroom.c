/* Room beyond a junction's exit (docs/traffic.md, "Room beyond the exit"; found on CARLA's
** Town10HD under 100 autopilots: queues closed into rings round blocks, each junction of the ring
** with a car standing inside it). A vehicle follows its leader into a junction only while the
** leader leaves it room past the exit (its length + 1 m) or drives away faster than 3 m/s with
** its rear 2 m past the exit. The old test followed a leader crawling out at 1 m/s with 0.5 m:
** that leader stopped a car length on and left the follower standing inside the junction.
** The crossroads of traffic_crossjam (two one-way roads, the junction on [-10, 10]); a braked
** sedan (no autopilot) stands on the exit road at x 22.5; "lead" starts at x 11, its rear still
** in the junction, and crawls out at 2 m/s (target_speed); "car" starts at x -14, its front 1.7 m
** short of the entry. The lead stops behind the braked one with its rear about 3.5 m past the
** exit: no room for the car, which the old test let in once the lead's rear was 0.5 m out.
** Asserted: the car never enters the junction (its front stays short of the entry; before the
** fix it followed in and stood with its rear inside), the lead passes through and stops past the
** exit, the same at 1 and 2 threads byte for byte, and the same in hybrid mode.
** argv[1]: temp folder, argv[2]: plugins. */
#include "../check.h"
#include "../traffic_pair.h"

/* One driving lane (-1) of 3.5 m; lanelinks: its lane <link> elements */
#define LANES(lanelinks)                                                                                            \
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"           \
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link>" lanelinks "</link>"                                    \
    "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes>"
#define ROAD(id, jn, x, y, hdg, len, links, lanelinks)                                                             \
    "<road name=\"r" id "\" length=\"" len "\" id=\"" id "\" junction=\"" jn "\"><link>" links "</link>"           \
    "<planView><geometry s=\"0\" x=\"" x "\" y=\"" y "\" hdg=\"" hdg "\" length=\"" len "\"><line/></geometry></planView>" \
    LANES(lanelinks) "</road>\n"
#define LP "<predecessor id=\"-1\"/>"
#define LS "<successor id=\"-1\"/>"
#define PRE(type, id, cp) "<predecessor elementType=\"" type "\" elementId=\"" id "\" contactPoint=\"" cp "\"/>"
#define SUC(type, id, cp) "<successor elementType=\"" type "\" elementId=\"" id "\" contactPoint=\"" cp "\"/>"

static const char cross_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"exitroom\" version=\"1\"/>\n"
    ROAD("1", "-1", "-150", "1.75", "0", "140", SUC("junction", "100", ""), LS)
    ROAD("2", "-1", "10", "1.75", "0", "140", PRE("junction", "100", ""), LP)
    ROAD("3", "-1", "-1.75", "-150", "1.5707963267948966", "140", SUC("junction", "100", ""), LS)
    ROAD("4", "-1", "-1.75", "10", "1.5707963267948966", "140", PRE("junction", "100", ""), LP)
    ROAD("10", "100", "-10", "1.75", "0", "20", PRE("road", "1", "end") SUC("road", "2", "start"), LP LS)
    ROAD("11", "100", "-1.75", "-10", "1.5707963267948966", "20", PRE("road", "3", "end") SUC("road", "4", "start"), LP LS)
    "<junction id=\"100\" name=\"x\">"
    "<connection id=\"0\" incomingRoad=\"1\" connectingRoad=\"10\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "<connection id=\"1\" incomingRoad=\"3\" connectingRoad=\"11\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "</junction>\n</OpenDRIVE>\n";

static const char *plugins;

typedef struct result {
    double car_front_max, lead_rear_end, car_x_end;
    uint64_t hash;
} result;

static void drive(const char *path, int threads, double seconds, bool hybrid, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, hybrid, "car", "lead");
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    double front_max = -INFINITY;
    for (uint64_t f = 0; f <= frames; f++) {
        tp_frame(&p, f);
        const tp_box c = tp_box_of(&p.a[0]);
        front_max = fmax(front_max, c.cx + c.fx * c.ex);
    }
    const tp_box l = tp_box_of(&p.a[1]), c = tp_box_of(&p.a[0]);
    *r = (result){.car_front_max = front_max, .lead_rear_end = l.cx - l.fx * l.ex, .car_x_end = c.cx, .hash = p.hash};
    tp_close(&p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_exitroom TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1];
    plugins = argv[2];
    char map_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "exitroom.xodr", cross_xml));
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: wall, blueprint: vehicle.sedan, transform: {location: [22.5, 0, 0.3], rotation: [0, 0, 0]}}\n"
             "  - name: lead\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [11, 0, 0.3], rotation: [0, 0, 0]}\n    autopilot: {target_speed: 2.0}\n"
             "  - name: car\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [-14, 0, 0.3], rotation: [0, 0, 0]}\n    autopilot: {}\n",
             map_path);
    char scene_path[1024];
    snprintf(scene_path, sizeof scene_path, "%s", tu_write(tmp, "exitroom.yaml", scene));

    result one, two, hy;
    drive(scene_path, 1, 40, false, &one);
    fprintf(stderr, "car: front at most x %.2f (the entry at -10), at x %.2f at the end; lead's rear at x %.2f (the exit at 10)\n",
            one.car_front_max, one.car_x_end, one.lead_rear_end);
    CHECK(one.lead_rear_end > 10 && one.lead_rear_end < 16, "the lead went through and stands past the exit: rear at x %.2f",
          one.lead_rear_end);
    CHECK(one.car_front_max < -10, "the car never enters the junction with no room past it: front at most x %.2f",
          one.car_front_max);
    CHECK(one.car_x_end < -11, "the car waits before the junction: at x %.2f", one.car_x_end);
    drive(scene_path, 2, 40, false, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    drive(scene_path, 1, 40, true, &hy);
    fprintf(stderr, "hybrid: car front at most x %.2f, lead's rear at x %.2f\n", hy.car_front_max, hy.lead_rear_end);
    CHECK(hy.lead_rear_end > 10 && hy.lead_rear_end < 16, "hybrid mode: the lead stands past the exit: rear at x %.2f",
          hy.lead_rear_end);
    CHECK(hy.car_front_max < -10, "hybrid mode: the car never enters the junction: front at most x %.2f", hy.car_front_max);
    return CHECK_DONE();
}
