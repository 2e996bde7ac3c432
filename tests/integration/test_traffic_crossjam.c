/* Two vehicles that hold each other across a junction (docs/traffic.md, "Face to face"; found
** on Town10HD under CARLA's generate_traffic.py: a bus turning through a junction stood for good
** against a car whose nose had crept past its stop line into the bus's corridor, each the
** other's leader). A crossroads of two one-way roads, each lane 3.5 m: road 1 along +x, road 3
** along +y (OpenDRIVE's frame), their lanes' centres crossing at the origin inside the junction.
** Two `vehicle.sedan`s stand in the junction, one on each connecting road, each with its front
** 0.1 m short of the other's side: each one's body reaches into the other's path corridor (its
** width + 0.35 m a side), so the leader rule holds both; neither waits for a claim, so the
** deadlock rule (logical waits) does not free them. Before the fix both stood to the end.
** Asserted: both drive on (each travels more than 40 m), their boxes never touch (separating
** axes every frame), and the same at 1 and 2 threads, byte for byte; the same in hybrid mode.
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

/* Lane -1 lies right of the reference line: road 1's line at y = 1.75, road 3's at x = -1.75, so
** the two lanes' centres are y = 0 and x = 0. The junction spans [-10, 10] on both axes. */
static const char cross_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"crossjam\" version=\"1\"/>\n"
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
    double min_gap, travelled[2];
    uint64_t hash;
} result;

static void drive(const char *path, int threads, double seconds, bool hybrid, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, hybrid, "east", "north");
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    for (uint64_t f = 0; f <= frames; f++)
        tp_frame(&p, f);
    *r = (result){.min_gap = p.min_gap, .travelled = {p.travelled[0], p.travelled[1]}, .hash = p.hash};
    tp_close(&p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_crossjam TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1];
    plugins = argv[2];
    char map_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "crossjam.xodr", cross_xml));
    /* A sedan's half extents, read from a first load (the blueprint's box). */
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: probe, blueprint: vehicle.sedan, transform: {location: [-100, 0, 0.3], rotation: [0, 0, 0]}}\n",
             map_path);
    char probe_path[1024];
    snprintf(probe_path, sizeof probe_path, "%s", tu_write(tmp, "crossjam_probe.yaml", scene));
    sn_engine *e = tu_load_threads(plugins, probe_path, 1);
    sn_actor_info pi = {.struct_size = sizeof pi};
    CHECK(sn_engine_actor_get(e, sn_engine_find_actor(e, "probe"), &pi) == SN_OK, "the probe sedan exists");
    sn_engine_destroy(e);
    const double ex = pi.bounding_box.extent.x, ey = pi.bounding_box.extent.y, g = 0.1;
    /* sensim's frame flips OpenDRIVE's y: road 1 drives along +x (yaw 0), road 3 along -y (yaw
    ** -90). "east" stands with its front g short of "north"'s left side, "north" with its front g
    ** short of "east"'s right side; both noses reach into the other's corridor. */
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - name: east\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [%.3f, 0, 0.3], rotation: [0, 0, 0]}\n    autopilot: {}\n"
             "  - name: north\n    blueprint: vehicle.sedan\n"
             "    transform: {location: [0, %.3f, 0.3], rotation: [0, -90, 0]}\n    autopilot: {}\n",
             map_path, -(ey + g + ex), ey + g + ex);
    char scene_path[1024];
    snprintf(scene_path, sizeof scene_path, "%s", tu_write(tmp, "crossjam.yaml", scene));

    result one, two, hy;
    drive(scene_path, 1, 40, false, &one);
    fprintf(stderr, "east %.1f m, north %.1f m travelled; smallest gap between their boxes %.3f m\n", one.travelled[0],
            one.travelled[1], one.min_gap);
    CHECK(one.travelled[0] > 40 && one.travelled[1] > 40, "both drive on: east %.1f m, north %.1f m",
          one.travelled[0], one.travelled[1]);
    CHECK(one.min_gap > 0, "their boxes never touch: smallest gap %.3f m", one.min_gap);
    drive(scene_path, 2, 40, false, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    drive(scene_path, 1, 40, true, &hy);
    fprintf(stderr, "hybrid: east %.1f m, north %.1f m travelled; smallest gap %.3f m\n", hy.travelled[0],
            hy.travelled[1], hy.min_gap);
    CHECK(hy.travelled[0] > 40 && hy.travelled[1] > 40, "hybrid mode: both drive on: east %.1f m, north %.1f m",
          hy.travelled[0], hy.travelled[1]);
    CHECK(hy.min_gap > 0, "hybrid mode: their boxes never touch: smallest gap %.3f m", hy.min_gap);
    return CHECK_DONE();
}
