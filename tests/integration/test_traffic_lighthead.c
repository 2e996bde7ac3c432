/* A traffic light whose map signal stands on a lane (docs/traffic.md, "Lights off the lanes";
** found on Town10HD under CARLA's generate_traffic.py: a fusorosa, a bus 4.25 m tall, stood for
** good at full throttle with its roof pressed against a light's head that the map's signal hung
** at a post's height, 3-4 m, over junction 3's far side, and 27 vehicles queued behind it). One
** straight road, one driving lane of 3.5 m and a 3 m sidewalk, and a light's signal on the
** lane's centre 80 m on; a `vehicle.bus` (3.2 m tall) on autopilot 60 m before it. Before the
** fix the head hung over the lane and the bus stood against it once the light let it go.
** Asserted: the light's pole stands off the lane by more than its head's half diagonal
** (0.3 m), the bus drives past the signal (its rear 20 m beyond it), and the same at 1 and 2
** threads, byte for byte.
** argv[1]: temp folder, argv[2]: plugins. */
#include "../check.h"
#include "../testutil.h"

/* Road 1 along +x (OpenDRIVE's frame), its reference line at y = 0: lane -1 (driving) from t = 0
** to -3.5, lane -2 (sidewalk) to -6.5. The signal at s = 80, t = -1.75 (the lane's centre). */
static const char road_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"lighthead\" version=\"1\"/>\n"
    "<road name=\"r1\" length=\"300\" id=\"1\" junction=\"-1\"><link/>"
    "<planView><geometry s=\"0\" x=\"-100\" y=\"0\" hdg=\"0\" length=\"300\"><line/></geometry></planView>"
    "<lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\" level=\"false\"/></center><right>"
    "<lane id=\"-1\" type=\"driving\" level=\"false\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
    "<lane id=\"-2\" type=\"sidewalk\" level=\"false\"><width sOffset=\"0\" a=\"3\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
    "</right></laneSection></lanes>"
    "<signals><signal s=\"80\" t=\"-1.75\" id=\"5\" name=\"Signal_3Light_Post01\" dynamic=\"yes\" orientation=\"+\" "
    "type=\"1000001\" subtype=\"-1\" zOffset=\"0\"><validity fromLane=\"-1\" toLane=\"-1\"/></signal></signals>"
    "</road>\n</OpenDRIVE>\n";

typedef struct result {
    double bus_x, light_x, light_y, ext_x;
    uint64_t hash;
} result;

static const char *plugins;

static void drive(const char *path, int threads, double seconds, result *r)
{
    sn_error err = {0};
    sn_engine *e = tu_load_threads(plugins, path, threads);
    uint32_t bus = sn_engine_find_actor(e, "bus"), light = 0;
    size_t n = 0;
    if (!bus || sn_engine_actors_filter(e, "traffic.traffic_light", &light, 1, &n, &err) != SN_OK || n != 1) {
        fprintf(stderr, "FAIL: the bus and one light: %zu lights\n", n);
        exit(1);
    }
    sn_actor_info li = {.struct_size = sizeof li}, b = {.struct_size = sizeof b};
    sn_engine_actor_get(e, light, &li);
    r->light_x = li.transform.location.x, r->light_y = li.transform.location.y;
    uint64_t h = 0xcbf29ce484222325ull;
    const uint64_t frames = (uint64_t)llround(seconds / 0.05);
    for (uint64_t f = 0; f <= frames; f++) {
        if (f && sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
        b = (sn_actor_info){.struct_size = sizeof b};
        sn_engine_actor_get(e, bus, &b);
        h = tu_fnv(h, &b.transform, sizeof b.transform);
    }
    r->bus_x = b.transform.location.x, r->ext_x = b.bounding_box.extent.x, r->hash = h;
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_lighthead TMP PLUGINS\n");
        return 2;
    }
    const char *tmp = argv[1];
    plugins = argv[2];
    char map_path[1024], scene[2048], scene_path[1024];
    snprintf(map_path, sizeof map_path, "%s", tu_write(tmp, "lighthead.xodr", road_xml));
    /* sensim's frame flips OpenDRIVE's y: the lane's centre at y = +1.75, the signal at x = -20. */
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 3}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - name: bus\n    blueprint: vehicle.bus\n"
             "    transform: {location: [-80, 1.75, 0.3], rotation: [0, 0, 0]}\n    autopilot: {}\n",
             map_path);
    snprintf(scene_path, sizeof scene_path, "%s", tu_write(tmp, "lighthead.yaml", scene));

    result one, two;
    drive(scene_path, 1, 60, &one);
    fprintf(stderr, "light at (%.2f, %.2f); the bus's centre at x %.1f after 60 s\n", one.light_x, one.light_y,
            one.bus_x);
    CHECK(fabs(one.light_x + 20) < 0.01, "the light stays at the signal's s: x %.2f", one.light_x);
    CHECK(one.light_y > 3.5 + 0.3, "the light stands off the lane by more than its head's half diagonal "
          "(the lane's edge at y 3.5): y %.2f", one.light_y);
    CHECK(one.bus_x - one.ext_x > one.light_x + 20, "the bus drives past the light: its rear at x %.1f, the light %.1f",
          one.bus_x - one.ext_x, one.light_x);
    drive(scene_path, 2, 60, &two);
    CHECK(one.hash == two.hash, "--threads 1 and 2 agree: %016llx vs %016llx", (unsigned long long)one.hash,
          (unsigned long long)two.hash);
    return CHECK_DONE();
}
