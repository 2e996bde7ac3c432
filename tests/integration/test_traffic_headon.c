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
#include "../testutil.h"

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

typedef struct box2 {
    double cx, cy, fx, fy, ex, ey;
} box2;

static box2 box_of(const sn_actor_info *a)
{
    const double y = a->transform.rotation.yaw * M_PI / 180, c = cos(y), s = sin(y);
    const sn_bbox *b = &a->bounding_box;
    return (box2){a->transform.location.x + c * b->location.x - s * b->location.y,
                  a->transform.location.y + s * b->location.x + c * b->location.y, c, s, b->extent.x, b->extent.y};
}

/* The largest separation of two boxes along their four axes (< 0: they overlap). */
static double box_gap(box2 p, box2 q)
{
    const double ax[4][2] = {{p.fx, p.fy}, {-p.fy, p.fx}, {q.fx, q.fy}, {-q.fy, q.fx}};
    double gap = -INFINITY;
    for (int k = 0; k < 4; k++) {
        const double ux = ax[k][0], uy = ax[k][1];
        const double rp = p.ex * fabs(p.fx * ux + p.fy * uy) + p.ey * fabs(-p.fy * ux + p.fx * uy);
        const double rq = q.ex * fabs(q.fx * ux + q.fy * uy) + q.ey * fabs(-q.fy * ux + q.fx * uy);
        gap = fmax(gap, fabs((q.cx - p.cx) * ux + (q.cy - p.cy) * uy) - rp - rq);
    }
    return gap;
}

typedef struct result {
    double min_gap, travelled[2], beyond[2], passed; /* passed: when each is first past the other (s; -1 never) */
    uint64_t hash;
} result;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 0x100000001b3ull;
    return h;
}

static void drive(const char *path, int threads, double seconds, bool hybrid, result *r)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", path, err.msg);
        exit(1);
    }
    /* hybrid physics without a hero: both move along their paths without physics */
    if (hybrid && sn_engine_tm_set(e, 8000, 0, SN_TM_HYBRID_PHYSICS_MODE, 1, &err) != SN_OK) {
        fprintf(stderr, "FAIL: hybrid mode: %s\n", err.msg);
        exit(1);
    }
    const char *names[2] = {"bus", "fusorosa"};
    uint32_t id[2];
    sn_actor_info a[2], start[2];
    for (int k = 0; k < 2; k++) {
        if (!(id[k] = sn_engine_find_actor(e, names[k]))) {
            fprintf(stderr, "FAIL: no actor %s\n", names[k]);
            exit(1);
        }
    }
    *r = (result){.min_gap = INFINITY, .passed = -1};
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint64_t f = 0; f <= frames; f++) {
        if (f && sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
        for (int k = 0; k < 2; k++) {
            sn_actor_info p = a[k];
            a[k] = (sn_actor_info){.struct_size = sizeof a[k]};
            sn_engine_actor_get(e, id[k], &a[k]);
            if (f == 0)
                start[k] = a[k];
            else
                r->travelled[k] += hypot(a[k].transform.location.x - p.transform.location.x,
                                         a[k].transform.location.y - p.transform.location.y);
            h = fnv(h, &a[k].transform, sizeof a[k].transform);
        }
        const box2 p = box_of(&a[0]), q = box_of(&a[1]);
        const double g = box_gap(p, q);
        if (g < r->min_gap)
            r->min_gap = g;
        /* each one's centre behind the other's, along that one's heading: they have passed */
        if (r->passed < 0 && (q.cx - p.cx) * p.fx + (q.cy - p.cy) * p.fy < 0 && (p.cx - q.cx) * q.fx + (p.cy - q.cy) * q.fy < 0)
            r->passed = (double)f * 0.05;
    }
    /* How far each ends beyond the other (along its own heading at the end). */
    for (int k = 0; k < 2; k++) {
        const box2 me = box_of(&a[k]), o2 = box_of(&a[1 - k]);
        r->beyond[k] = (me.cx - o2.cx) * me.fx + (me.cy - o2.cy) * me.fy;
    }
    (void)start;
    r->hash = h;
    sn_engine_destroy(e);
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
