/* A long vehicle waits at a junction's entry while a vehicle stands where its body would sweep
** through the turn (engine/traffic/jsweep.c; docs/traffic.md, "Not yet", claim64). Found on
** Town10HD under CARLA's generate_traffic.py: an 8 m vehicle.truck turning through junction 3
** met a european_hgv standing at its light inside the turn's sweep; once in the turn neither
** could pass or back off. swept64's scene (its traffic_sweep, commit 0c0edaaf): a left turn of
** 15 m radius (lane centre) from road 1 (along +x) into road 4 through junction 100, each lane
** 3.5 m; road 3 runs straight into road 4 through it (road 11). The truck drives in on road 1;
** its outer front corner runs out to 17.55 m from the turn's centre while its path corridor
** (half width + 0.35 m) reaches 16.6 m. A braked european_hgv stands on road 11 facing the
** turn's centre half way round, its front at 16.8 m: outside the corridor, inside the sweep.
** Before the rule the truck turned in and drove into it. Asserted: the truck stands at the entry
** (its front short of road 1's end) while the HGV stands there, never touching it; once the HGV
** is gone (lifted away at LEAVE s) it turns on; the same at 1 and 2 threads byte for byte; with
** the HGV 1.5 m farther out it turns past without waiting; and with the HGV left standing the
** wait is bounded: the truck enters after its patience (30 s unheld), as before the rule.
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

#define LEAVE 20.0 /* s: when the HGV is lifted away (never: a negative value) */

typedef struct result {
    double min_gap, max_front;  /* the smallest gap between the boxes while both stood there; the
                                ** truck's front bumper's largest x before LEAVE */
    double travelled;           /* the truck's, on the ground */
    uint64_t hash;
} result;

static void drive(const char *path, int threads, double seconds, double leave, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, false, "truck", "hgv");
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    double max_front = -INFINITY, min_gap = INFINITY;
    bool gone = false;
    for (uint64_t f = 0; f <= frames; f++) {
        if (!gone && leave >= 0 && f * 0.05 >= leave) {
            sn_error err = {0};
            const sn_transform away = {{120, 120, 0.3}, {0, 0, 0}}; /* off every road */
            CHECK(sn_engine_set_transform(p.e, p.id[1], &away, &err) == SN_OK, "lift the HGV away: %s", err.msg);
            gone = true;
        }
        tp_frame(&p, f);
        if (!gone) { /* the lifted HGV is no longer a gap to watch */
            const tp_box b = tp_box_of(&p.a[0]);
            max_front = fmax(max_front, b.cx + b.fx * b.ex);
            min_gap = fmin(min_gap, tp_box_gap(b, tp_box_of(&p.a[1])));
        }
    }
    *r = (result){.min_gap = min_gap, .max_front = max_front, .travelled = p.travelled[0], .hash = p.hash};
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
        fprintf(stderr, "usage: test_traffic_jsweep TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1];
    plugins = argv[2];
    char map_path[1024], near_path[1024], far_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "jsweep.xodr", turn_xml));
    scene_at(tmp, "jsweep_near.yaml", map_path, 16.8, near_path, sizeof near_path);
    scene_at(tmp, "jsweep_far.yaml", map_path, 18.3, far_path, sizeof far_path);

    result one = {0}, two = {0}, far = {0}, stay = {0};
    drive(near_path, 1, 40, LEAVE, &one);
    fprintf(stderr, "near: truck front up to x %.2f before the HGV left, %.1f m travelled; smallest gap %.3f m\n",
            one.max_front, one.travelled, one.min_gap);
    CHECK(one.max_front < -15 + 0.5, "the truck waits at the entry (x -15): its front up to %.2f", one.max_front);
    CHECK(one.max_front > -15 - 6, "close to it: %.2f", one.max_front);
    CHECK(one.min_gap > 0, "it never touches the HGV: smallest gap %.3f m", one.min_gap);
    CHECK(one.travelled > 60, "once the HGV is gone it turns on: %.1f m", one.travelled);
    drive(near_path, 2, 40, LEAVE, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    drive(far_path, 1, 20, -1, &far);
    fprintf(stderr, "far: truck front up to x %.2f, %.1f m travelled; smallest gap %.3f m\n", far.max_front,
            far.travelled, far.min_gap);
    CHECK(far.max_front > 0, "with the HGV beyond its sweep the truck turns without waiting: front to x %.2f",
          far.max_front);
    CHECK(far.min_gap > 0, "and never touches it: smallest gap %.3f m", far.min_gap);
    drive(near_path, 1, 50, -1, &stay);
    fprintf(stderr, "stay: truck front up to x %.2f, %.1f m travelled\n", stay.max_front, stay.travelled);
    CHECK(stay.max_front > -15 + 2, "the wait is bounded: the truck enters after its patience: front to x %.2f",
          stay.max_front);
    return CHECK_DONE();
}
