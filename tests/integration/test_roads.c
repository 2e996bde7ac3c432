/* The map's roads in a running engine (scene key `map:`), against the map's own heights:
** a sedan on the road with no ground plane rests at the road's height as it does on a ground
** plane; it climbs the 5% hill under throttle; driving 10 s along the road with a collision
** sensor reports nothing; cameras looking down the road see Roads, RoadLine and Sidewalk and
** give the same bytes at 1 and 2 threads; a map with no roads runs.
** argv[1]: temp folder, argv[2]: plugin folder (build/plugins: collision and camera). */
#include "../check.h"
#include "../roads_map.h"
#include "../testutil.h"
#include "../testrun.h"

#include <sensim/types.h>

static const char *dir, *plugins;

static sn_engine *load(const char *scene, int threads)
{
    tu_write(dir, "roads.xodr", roads_map_xml);
    tu_write(dir, "empty.xodr", roads_map_empty_xml);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(dir, "roads.yaml", scene), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the scene: %s\n", err.msg);
        exit(1);
    }
    return e;
}

/* Where a sedan dropped from 0.5 m over (x, y, z0) comes to rest after 3 s. */
static sn_actor_info settle(const char *ground, double x, double y, double z0)
{
    char scene[512];
    snprintf(scene, sizeof scene, "%sactors:\n%s  - {name: car, blueprint: vehicle.sedan, transform: {location: [%g, %g, %g]}}\n",
             ground[0] == 'm' ? "map: roads.xodr\n" : "", ground[0] == 'm' ? "" : "  - {blueprint: static.ground}\n", x, y,
             z0 + 0.5);
    sn_engine *e = load(scene, 1);
    tu_step(e, 60);
    sn_actor_info a = tu_actor(e, "car");
    sn_engine_destroy(e);
    return a;
}

static void rests_on_the_road(void)
{
    sn_actor_info plane = settle("ground", 30, 1.75, 0);
    sn_actor_info flat = settle("map", 30, 1.75, 0), top = settle("map", 190, 1.75, roads_map_z(190));
    CHECK(fabs(flat.transform.location.z - plane.transform.location.z) <= 0.03 && fabs(flat.velocity.z) < 0.05,
          "on the road the car rests at z %.4f, on a ground plane at %.4f", flat.transform.location.z,
          plane.transform.location.z);
    CHECK(fabs(top.transform.location.z - roads_map_z(190) - plane.transform.location.z) <= 0.03,
          "on the hill's top (road at z %.2f) the car rests at z %.4f", roads_map_z(190), top.transform.location.z);
    fprintf(stderr, "rest height: plane %.4f, road %.4f, hill top %.4f - %.2f\n", plane.transform.location.z,
            flat.transform.location.z, top.transform.location.z, roads_map_z(190));
}

static void climbs_the_hill(void)
{
    sn_engine *e = load("map: roads.xodr\nactors:\n"
                        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [40, 1.75, 0.5]}, control: {throttle: 0.6}}\n",
                        1);
    double base = settle("ground", 30, 1.75, 0).transform.location.z, worst = 0;
    bool passed_mid = false;
    for (int f = 0; f < 400; f++) {
        tu_step(e, 1);
        sn_actor_info a = tu_actor(e, "car");
        double x = a.transform.location.x;
        if (f > 40 && x > 45 && x < 195) /* settled, and the whole car on the road */
            worst = fmax(worst, fabs(a.transform.location.z - base - roads_map_z(x)));
        if (x > 120 && !passed_mid) {
            passed_mid = true;
            fprintf(stderr, "hill: at x %.1f after %.2f s, %.1f m/s, pitch %.2f degrees\n", x, (f + 1) * 0.05,
                    hypot(a.velocity.x, a.velocity.y), a.transform.rotation.pitch);
            CHECK(a.transform.rotation.pitch > 1.5 && a.transform.rotation.pitch < 4.5,
                  "on the 5%% grade the car pitches up by %.2f degrees (atan 0.05 = 2.86)", a.transform.rotation.pitch);
        }
        if (x > 190)
            break;
    }
    sn_actor_info a = tu_actor(e, "car");
    CHECK(a.transform.location.x > 190, "the car climbed to x %.1f (the hill ends at 180)", a.transform.location.x);
    CHECK(fabs(a.transform.location.y - 1.75) < 0.5, "straight up its lane: y %.3f", a.transform.location.y);
    CHECK(worst < 0.08, "the car follows the road's height within %.3f m", worst);
    fprintf(stderr, "hill: x %.1f z %.3f, off the road's height by %.3f m at most\n", a.transform.location.x,
            a.transform.location.z, worst);
    sn_engine_destroy(e);
}

static int n_collisions;
static void on_collision(const sn_message *m, void *user)
{
    (void)m, (void)user;
    n_collisions++;
}

static void silent_driving(void)
{
    sn_engine *e = load("map: roads.xodr\nactors:\n"
                        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [5, 1.75, 0.3]}, control: {throttle: 0.35}}\n"
                        "  - {name: walker, blueprint: walker.pedestrian, transform: {location: [20, 8, 1.2]},"
                        " control: {direction: [1, 0, 0], speed: 1.4}}\n"
                        "sensors:\n"
                        "  - {name: crash, blueprint: sensor.other.collision, attach_to: car}\n"
                        "  - {name: steps, blueprint: sensor.other.collision, attach_to: walker}\n",
                        1);
    sn_error err = {0};
    n_collisions = 0;
    CHECK(sn_engine_listen(e, "crash", on_collision, NULL, &err) == SN_OK, "listen: %s", err.msg);
    CHECK(sn_engine_listen(e, "steps", on_collision, NULL, &err) == SN_OK, "listen: %s", err.msg);
    tu_step(e, 200); /* 10 s */
    sn_actor_info a = tu_actor(e, "car"), p = tu_actor(e, "walker");
    CHECK(a.transform.location.x > 60, "the car drove along the road (and up the hill): x %.1f", a.transform.location.x);
    CHECK(p.transform.location.x > 30 && fabs(p.transform.location.z - 0.15 - 0.9) < 0.1,
          "the walker walks on the sidewalk's top: x %.1f z %.3f", p.transform.location.x, p.transform.location.z);
    CHECK(n_collisions == 0, "%d collision events from driving and walking on the map", n_collisions);
    fprintf(stderr, "10 s: car at x %.1f z %.2f, walker at x %.1f z %.3f, %d collision events\n", a.transform.location.x,
            a.transform.location.z, p.transform.location.x, p.transform.location.z, n_collisions);
    sn_engine_destroy(e);
}

typedef tu_image capture; /* the last image of a camera (testutil.h) */

static void cameras_see_the_road(void)
{
    /* the roads alone: scenery (docs/scenery.md) would hide the sky this test counts */
    const char *scene = "map: roads.xodr\nscenery: {enabled: false}\nsensors:\n"
                        "  - {name: depth, blueprint: sensor.camera.depth, transform: {location: [2, 1.75, 3], rotation: [-12, 0, 0]},"
                        " attributes: {image_size_x: 320, image_size_y: 160, fov: 90}}\n"
                        "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [2, 1.75, 3], rotation: [-12, 0, 0]},"
                        " attributes: {image_size_x: 320, image_size_y: 160, fov: 90}}\n";
    capture d[2] = {{0}}, s[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        sn_engine *e = load(scene, k + 1);
        sn_error err = {0};
        CHECK(sn_engine_listen(e, "depth", tu_on_image, &d[k], &err) == SN_OK && sn_engine_listen(e, "sem", tu_on_image, &s[k], &err) == SN_OK &&
                  sn_engine_run(e, 1, &err) == SN_OK,
              "run: %s", err.msg);
        sn_engine_destroy(e);
    }
    if (!d[0].raw || !d[1].raw || !s[0].raw || !s[1].raw)
        return;
    CHECK(d[0].size == d[1].size && !memcmp(d[0].raw, d[1].raw, d[0].size), "depth: the same bytes at 1 and 2 threads");
    CHECK(s[0].size == s[1].size && !memcmp(s[0].raw, s[1].raw, s[0].size), "tags: the same bytes at 1 and 2 threads");
    size_t count[256] = {0}, n = s[0].size / 4;
    for (size_t i = 0; i < n; i++)
        count[s[0].raw[4 * i + 2]]++; /* BGRA: the tag is red */
    CHECK(count[SN_TAG_ROADS] > n / 10, "Roads pixels: %zu of %zu", count[SN_TAG_ROADS], n);
    CHECK(count[SN_TAG_ROAD_LINE] > 50, "RoadLine pixels: %zu", count[SN_TAG_ROAD_LINE]);
    CHECK(count[SN_TAG_SIDEWALK] > 50, "Sidewalk pixels: %zu", count[SN_TAG_SIDEWALK]);
    CHECK(count[SN_TAG_SKY] > n / 10, "sky above the horizon: %zu", count[SN_TAG_SKY]);
    /* the pixel straight below the centre row looks at the lane: depth along the optical axis
    ** to the road at z 0 from 3 m up, 12 degrees down: 3 / sin(12 deg) */
    size_t c = 4 * ((size_t)80 * 320 + 160);
    const uint8_t *px = d[0].raw + c;
    double b = 0.5 / 160; /* the pixel's centre is half a pixel below the axis; f = 160 px at 90 degrees */
    double depth = 1000.0 * (px[2] + 256.0 * px[1] + 65536.0 * px[0]) / 16777215.0,
           want = 3 / (sin(12 * M_PI / 180) + b * cos(12 * M_PI / 180));
    CHECK(fabs(depth - want) < 0.05, "depth at the image centre %.3f m, the road lies %.3f m away", depth, want);
    for (int k = 0; k < 2; k++)
        tu_image_free(&d[k]), tu_image_free(&s[k]);
}

static void no_roads(void)
{
    sn_engine *e = load("map: empty.xodr\nactors:\n  - {blueprint: static.ground}\n"
                        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.3]}}\n",
                        1);
    tu_step(e, 20);
    sn_actor_info a = tu_actor(e, "car");
    CHECK(a.transform.location.z < 0.3 && a.transform.location.z > -0.1, "a map with no roads: the car rests on the plane at z %.3f",
          a.transform.location.z);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_roads TMPDIR PLUGINDIR\n");
        return 2;
    }
    dir = argv[1];
    plugins = argv[2];
    rests_on_the_road();
    climbs_the_hill();
    silent_driving();
    cameras_see_the_road();
    no_roads();
    return CHECK_DONE();
}
