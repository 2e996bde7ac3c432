/* A long vehicle turning past one that stands beside its path (docs/traffic.md, "Long bodies in a
** turn"; found on Town10HD under CARLA's generate_traffic.py: a vehicle.truck turning through a
** junction pressed at full throttle against a european_hgv standing at its light beside the
** path). A left turn of 15 m radius (lane centre) from road 1 (along +x) into road 4 through
** junction 100, each lane 3.5 m; road 3 runs straight into road 4 through it (road 11). An 8 m
** vehicle.truck drives in on road 1 and turns; its outer front corner runs out to 17.55 m from
** the turn's centre while its path corridor (half width + 0.35 m) reaches 16.6 m. A braked
** european_hgv stands on road 11 facing the turn's centre, its front at 16.8 m, half way round:
** outside the corridor, inside the sweep. Before the rule the truck drove into it (the boxes
** met: -0.055 m), shoved it 1.9 m aside and turned on. Asserted: the truck stops short of it
** (their boxes never touch, the HGV is not shoved, the truck stands before the turn's middle),
** the same at 1 and 2 threads byte for byte; with the HGV 1.5 m farther out the truck turns
** past it untouched (the rule holds only what the sweep meets).
** argv[1]: temp folder, argv[2]: plugins. */
#include "../check.h"
#include "../traffic_pair.h"

/* One driving lane (-1) of 3.5 m; lanelinks: its lane <link> elements; geom: the geometry's shape */
#define ROAD(id, jn, x, y, hdg, len, links, lanelinks, geom)                                                       \
    "<road name=\"r" id "\" length=\"" len "\" id=\"" id "\" junction=\"" jn "\"><link>" links "</link>"           \
    "<planView><geometry s=\"0\" x=\"" x "\" y=\"" y "\" hdg=\"" hdg "\" length=\"" len "\">" geom "</geometry>"     \
    "</planView><lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>" \
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><link>" lanelinks "</link>"                                    \
    "<width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane></right></laneSection></lanes></road>\n"
#define LP "<predecessor id=\"-1\"/>"
#define LS "<successor id=\"-1\"/>"
#define PRE(type, id, cp) "<predecessor elementType=\"" type "\" elementId=\"" id "\" contactPoint=\"" cp "\"/>"
#define SUC(type, id, cp) "<successor elementType=\"" type "\" elementId=\"" id "\" contactPoint=\"" cp "\"/>"

/* Lane -1 lies right of the reference line, so the connecting road's line turns on a radius of
** 13.25 m (curvature 1 / 13.25, a quarter circle of 20.813 m) and its lane's centre on 15 m,
** from (-15, 0) heading +x to (0, 15) heading +y (OpenDRIVE's frame), round (-15, 15). */
static const char turn_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"sweep\" version=\"1\"/>\n"
    ROAD("1", "-1", "-155", "1.75", "0", "140", SUC("junction", "100", ""), LS, "<line/>")
    ROAD("3", "-1", "-1.75", "-155", "1.5707963267948966", "140", SUC("junction", "100", ""), LS, "<line/>")
    ROAD("4", "-1", "-1.75", "15", "1.5707963267948966", "140", PRE("junction", "100", ""), LP, "<line/>")
    ROAD("11", "100", "-1.75", "-15", "1.5707963267948966", "30", PRE("road", "3", "end") SUC("road", "4", "start"), LP LS,
         "<line/>")
    ROAD("12", "100", "-15", "1.75", "0", "20.8130", PRE("road", "1", "end") SUC("road", "4", "start"), LP LS,
         "<arc curvature=\"0.0754716981132\"/>")
    "<junction id=\"100\" name=\"x\">"
    "<connection id=\"1\" incomingRoad=\"3\" connectingRoad=\"11\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "<connection id=\"0\" incomingRoad=\"1\" connectingRoad=\"12\" contactPoint=\"start\"><laneLink from=\"-1\" to=\"-1\"/></connection>"
    "</junction>\n</OpenDRIVE>\n";

static const char *plugins;

typedef struct result {
    double min_gap, travelled[2];
    uint64_t hash;
} result;

static void drive(const char *path, int threads, double seconds, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, false, "truck", "hgv");
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    for (uint64_t f = 0; f <= frames; f++)
        tp_frame(&p, f);
    *r = (result){.min_gap = p.min_gap, .travelled = {p.travelled[0], p.travelled[1]}, .hash = p.hash};
    tp_close(&p);
}

/* The scene: the truck on road 1, 30 m before the turn's start; the HGV facing the turn's centre
** half way round, its front `front_r` m from it (sensim's frame flips OpenDRIVE's y: the centre
** is at (-15, -15) and the HGV's heading -135 degrees). Returns the scene's path. */
static const char *scene_at(const char *tmp, const char *name, const char *map_path, double front_r, char *out,
                            size_t n)
{
    const double hgv_half = 3.9679; /* european_hgv's half length (carla_vehicles.c) */
    const double r = front_r + hgv_half, c = r * sqrt(0.5);
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - name: truck\n    blueprint: vehicle.truck\n"
             "    transform: {location: [-45, 0, 0.3], rotation: [0, 0, 0]}\n    autopilot: {}\n"
             "  - name: hgv\n    blueprint: vehicle.carlamotors.european_hgv\n"
             "    transform: {location: [%.3f, %.3f, 0.3], rotation: [0, -135, 0]}\n"
             "    control: {brake: 1, hand_brake: true}\n",
             map_path, -15 + c, -15 + c);
    snprintf(out, n, "%s", tu_write(tmp, name, scene));
    return out;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_sweep TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1];
    plugins = argv[2];
    char map_path[1024], near_path[1024], far_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "sweep.xodr", turn_xml));
    scene_at(tmp, "sweep_near.yaml", map_path, 16.8, near_path, sizeof near_path);
    scene_at(tmp, "sweep_far.yaml", map_path, 18.3, far_path, sizeof far_path);

    result one, two, far;
    drive(near_path, 1, 30, &one);
    fprintf(stderr, "near: truck %.1f m, hgv %.3f m travelled; smallest gap between their boxes %.3f m\n",
            one.travelled[0], one.travelled[1], one.min_gap);
    CHECK(one.min_gap > 0, "the truck stops short of the HGV: smallest gap %.3f m", one.min_gap);
    CHECK(one.travelled[1] < 0.2, "the HGV is not shoved (it settles 0.07 m as it lands): %.3f m", one.travelled[1]);
    CHECK(one.travelled[0] > 20 && one.travelled[0] < 45, "the truck drives up and stands in the turn: %.1f m",
          one.travelled[0]);
    drive(near_path, 2, 30, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    drive(far_path, 1, 30, &far);
    fprintf(stderr, "far: truck %.1f m, hgv %.3f m travelled; smallest gap %.3f m\n", far.travelled[0],
            far.travelled[1], far.min_gap);
    CHECK(far.travelled[0] > 100, "with the HGV beyond its sweep the truck turns on: %.1f m", far.travelled[0]);
    CHECK(far.min_gap > 0, "and never touches it: smallest gap %.3f m", far.min_gap);
    return CHECK_DONE();
}
