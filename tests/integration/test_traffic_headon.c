/* Two wide vehicles face to face in a bend (docs/traffic.md, "Two wide vehicles face to face";
** engine/traffic/headon.c). A two-way road with 3.5 m lanes bends left through 70 m of radius
** 50 m (Town10HD's road 1 bends at 45-55 m). A `vehicle.bus` (2.54 m wide) drives in on the outer
** lane, CARLA's `vehicle.mitsubishi.fusorosa` (3.94 m, wider than its lane) on the inner one the
** other way; they meet in the bend, where each one's box reaches into the other's path corridor,
** so the leader rule holds each for the other (before headon.c: both stood to the end).
** Asserted: both drive on past each other (each ends more than 20 m beyond where the other
** stands, each travels more than 60 m), their boxes never touch (the smallest gap between them,
** separating axes on the boxes every frame, stays > 0), and the same at 1 and 2 threads, byte
** for byte. argv[1]: temp folder, argv[2]: plugins. */
#include "../check.h"
#include "../traffic_pair.h"

#define LANE(id)                                                                                                       \
    "<lane id=\"" id "\" type=\"driving\" level=\"false\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/>" \
    "<roadMark sOffset=\"0\" type=\"broken\" weight=\"standard\" color=\"standard\" width=\"0.15\"/></lane>"
#define SIDE(id)                                                                                                       \
    "<lane id=\"" id "\" type=\"sidewalk\" level=\"false\"><width sOffset=\"0\" a=\"2.0\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
/* OpenDRIVE's frame: a line of 150 m along +x, an arc of 70 m (curvature 0.02, left), a line of
** 150 m. Lane -1 drives along s (the outer lane in the bend), lane 1 against it. */
#define R 50.0
#define L0 150.0
#define LA 70.0
static const char bend_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"bend\" version=\"1\"/>\n"
    "<road name=\"bend\" length=\"370\" id=\"1\" junction=\"-1\">\n"
    "<planView>"
    "<geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"150\"><line/></geometry>"
    "<geometry s=\"150\" x=\"150\" y=\"0\" hdg=\"0\" length=\"70\"><arc curvature=\"0.02\"/></geometry>"
    "<geometry s=\"220\" x=\"%.9f\" y=\"%.9f\" hdg=\"1.4\" length=\"150\"><line/></geometry>"
    "</planView>\n"
    "<lanes><laneSection s=\"0\"><left>" SIDE("2") LANE("1") "</left>"
    "<center><lane id=\"0\" type=\"none\" level=\"false\"/></center>"
    "<right>" LANE("-1") SIDE("-2") "</right></laneSection></lanes>\n"
    "</road>\n</OpenDRIVE>\n";

static const char *tmp, *plugins;

/* A lane centre in the bend, s' metres into the arc, t metres left of the reference line, in
** sensim's frame (OpenDRIVE's y flipped; yaw in degrees, along s). */
static void in_bend(double sa, double t, double *x, double *y, double *yaw)
{
    const double th = sa / R;
    const double rx = L0 + R * sin(th), ry = R - R * cos(th);
    *x = rx - t * sin(th);
    *y = -(ry + t * cos(th));
    *yaw = -th * 180 / M_PI;
}

typedef struct result {
    double min_gap, travelled[2], beyond[2], passed; /* passed: when each is first past the other (s; -1 never) */
    uint64_t hash;
} result;

static void drive(const char *path, int threads, double seconds, bool hybrid, result *r)
{
    tp_pair p;
    tp_open(&p, plugins, path, threads, hybrid, "bus", "fusorosa");
    *r = (result){.passed = -1};
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    for (uint64_t f = 0; f <= frames; f++) {
        tp_frame(&p, f);
        const tp_box b0 = tp_box_of(&p.a[0]), b1 = tp_box_of(&p.a[1]);
        /* each one's centre behind the other's, along that one's heading: they have passed */
        if (r->passed < 0 && (b1.cx - b0.cx) * b0.fx + (b1.cy - b0.cy) * b0.fy < 0 &&
            (b0.cx - b1.cx) * b1.fx + (b0.cy - b1.cy) * b1.fy < 0)
            r->passed = (double)f * 0.05;
    }
    /* How far each ends beyond the other (along its own heading at the end). */
    for (int k = 0; k < 2; k++) {
        const tp_box me = tp_box_of(&p.a[k]), o2 = tp_box_of(&p.a[1 - k]);
        r->beyond[k] = (me.cx - o2.cx) * me.fx + (me.cy - o2.cy) * me.fy;
    }
    r->min_gap = p.min_gap;
    r->travelled[0] = p.travelled[0];
    r->travelled[1] = p.travelled[1];
    r->hash = p.hash;
    tp_close(&p);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_headon TMP PLUGINS\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2];
    char xml[sizeof bend_xml + 64];
    /* the arc's end: 70 m of radius 50 from (150, 0) heading 0 */
    snprintf(xml, sizeof xml, bend_xml, L0 + R * sin(LA / R), R - R * cos(LA / R));
    const char *map = tu_write(tmp, "headon_bend.xodr", xml);
    char map_path[1024];
    snprintf(map_path, sizeof map_path, "%s", map);
    /* The bus 10 m into the arc on lane -1 (t = -1.75), the fusorosa 60 m into it on lane 1 (t =
    ** +1.75), facing back along the road: they meet near the bend's middle. */
    double bx, by, byaw, fx, fy, fyaw;
    in_bend(10, -1.75, &bx, &by, &byaw);
    in_bend(60, 1.75, &fx, &fy, &fyaw);
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\n"
             "map: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - name: bus\n    blueprint: vehicle.bus\n"
             "    transform: {location: [%.3f, %.3f, 0.3], rotation: [0, %.3f, 0]}\n    autopilot: {}\n"
             "  - name: fusorosa\n    blueprint: vehicle.mitsubishi.fusorosa\n"
             "    transform: {location: [%.3f, %.3f, 0.3], rotation: [0, %.3f, 0]}\n    autopilot: {}\n",
             map_path, bx, by, byaw, fx, fy, fyaw + 180);
    const char *path = tu_write(tmp, "headon.yaml", scene);
    char scene_path[1024];
    snprintf(scene_path, sizeof scene_path, "%s", path);

    result one, two, hy;
    drive(scene_path, 1, 45, false, &one);
    fprintf(stderr, "bus %.1f m, fusorosa %.1f m travelled; past each other at %.2f s; end %.1f and %.1f m beyond "
            "the other; smallest gap between their boxes %.3f m\n", one.travelled[0], one.travelled[1], one.passed,
            one.beyond[0], one.beyond[1], one.min_gap);
    CHECK(one.passed >= 0, "the two pass each other (they never did)");
    CHECK(one.travelled[0] > 60 && one.travelled[1] > 60, "both drive on: the bus %.1f m, the fusorosa %.1f m",
          one.travelled[0], one.travelled[1]);
    CHECK(one.beyond[0] > 20 && one.beyond[1] > 20, "each ends beyond the other: %.1f and %.1f m", one.beyond[0],
          one.beyond[1]);
    CHECK(one.min_gap > 0, "their boxes never touch: smallest gap %.3f m", one.min_gap);
    drive(scene_path, 2, 45, false, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    /* Hybrid mode: neither may fall asleep behind the other (a queued vehicle sleeps until its
    ** leader moves, docs/traffic.md), or the pair is never broken. */
    drive(scene_path, 1, 45, true, &hy);
    fprintf(stderr, "hybrid: bus %.1f m, fusorosa %.1f m travelled; past each other at %.2f s; smallest gap %.3f m\n",
            hy.travelled[0], hy.travelled[1], hy.passed, hy.min_gap);
    CHECK(hy.passed >= 0, "hybrid mode: the two pass each other (they never did)");
    CHECK(hy.travelled[0] > 60 && hy.travelled[1] > 60, "hybrid mode: both drive on: the bus %.1f m, the fusorosa %.1f m",
          hy.travelled[0], hy.travelled[1]);
    CHECK(hy.min_gap > 0, "hybrid mode: their boxes never touch: smallest gap %.3f m", hy.min_gap);
    return CHECK_DONE();
}
