/* The map through the public API (sensim/map.h, linked against libsensim as a user's program
** would), on the shipped town: a 3 x 3 grid of streets 100 m apart (junction centres at world
** x in {0, 100, 200}, y in {0, -100, -200}), one 3.5 m driving lane each way with a solid
** yellow centre line and solid white edges, 3 m sidewalks, a signal on every arm.
** argv[1]: maps/, argv[2]: a temp folder.
**
** What is derived by hand from the generator's layout: the lane at a point, its heading and
** markings; three branches through a junction; lanes to the left and right; the marks a
** segment across the street crosses, in order; spawn points on driving lanes outside
** junctions; a scene's `map:` reaching the engine; errors for bad input. */
#include "../check.h"

#include <msgpack.h>
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *maps, *tmp;

static double yaw_diff(double a, double b)
{
    double d = fmod(a - b, 360.0);
    if (d > 180)
        d -= 360;
    if (d < -180)
        d += 360;
    return fabs(d);
}

static void test_info(const sn_map *m)
{
    sn_map_info i = {.struct_size = sizeof i};
    CHECK(sn_map_info_get(m, &i, NULL) == SN_OK, "info");
    CHECK(i.junctions == 9, "junctions %u", i.junctions);
    CHECK(i.traffic_lights == 36, "4 lights at each of 9 junctions: %u", i.traffic_lights);
    CHECK(i.crosswalks == 36, "crosswalks %u", i.crosswalks);
    CHECK(i.has_geo_reference && fabs(i.geo_reference.latitude - 49.0) < 1e-9, "geo %g", i.geo_reference.latitude);
    CHECK(i.rev_major == 1 && i.rev_minor == 6, "OpenDRIVE %u.%u", i.rev_major, i.rev_minor);
    CHECK_NEAR(i.bounds_min.x, -50, 0.5, "west edge");
    CHECK_NEAR(i.bounds_max.x, 250, 0.5, "east edge");
    CHECK(sn_map_warning(m, 0) == NULL, "no warnings: %s", sn_map_warning(m, 0));
}

static void test_waypoint(const sn_map *m)
{
    sn_error err = {0};
    sn_waypoint w;
    /* East-west street between the junctions at x 0 and 100: travelling +x on world y > 0
    ** (CARLA's y is to the right of +x). */
    CHECK(sn_map_waypoint(m, (sn_vec3){50, 1.2, 0}, false, SN_LANE_DRIVING, &w, &err) == SN_OK, "%s", err.msg);
    CHECK_NEAR(w.transform.location.y, 1.75, 1e-6, "snapped to the lane centre");
    CHECK_NEAR(w.transform.location.x, 50, 1e-6, "at the same x");
    CHECK(yaw_diff(w.transform.rotation.yaw, 0) < 1e-6, "yaw %g", w.transform.rotation.yaw);
    CHECK_NEAR(w.lane_width, 3.5, 1e-9, "lane width");
    CHECK(w.lane_type == SN_LANE_DRIVING && !w.is_junction && w.junction_id == -1, "driving, not in a junction");
    CHECK(w.left_marking.type == SN_MARK_SOLID && w.left_marking.color == SN_MARK_YELLOW, "centre line %d %d",
          w.left_marking.type, w.left_marking.color);
    CHECK(w.right_marking.type == SN_MARK_SOLID && w.right_marking.color == SN_MARK_WHITE, "edge line %d %d",
          w.right_marking.type, w.right_marking.color);
    sn_waypoint o;
    CHECK(sn_map_waypoint(m, (sn_vec3){50, -1.0, 0}, false, SN_LANE_DRIVING, &o, &err) == SN_OK, "%s", err.msg);
    CHECK(o.lane_id == -w.lane_id && yaw_diff(o.transform.rotation.yaw, 180) < 1e-6, "opposite lane yaw %g",
          o.transform.rotation.yaw);
    sn_waypoint again;
    sn_map_waypoint(m, (sn_vec3){50, 1.75, 0}, false, SN_LANE_DRIVING, &again, NULL);
    CHECK(again.id == w.id, "the same waypoint, the same id");

    /* On the sidewalk: no driving lane holds it; projected, the nearest driving lane. */
    CHECK(sn_map_waypoint(m, (sn_vec3){50, 5.0, 0}, false, SN_LANE_DRIVING, &o, &err) == SN_E_NOT_FOUND, "on the sidewalk");
    CHECK(sn_map_waypoint(m, (sn_vec3){50, 5.0, 0}, true, SN_LANE_DRIVING, &o, &err) == SN_OK &&
              fabs(o.transform.location.y - 1.75) < 1e-6, "projected to the driving lane: y %g", o.transform.location.y);
    CHECK(sn_map_waypoint(m, (sn_vec3){50, 5.0, 0}, false, SN_LANE_SIDEWALK, &o, &err) == SN_OK &&
              o.lane_type == SN_LANE_SIDEWALK, "a sidewalk lane");
    CHECK(sn_map_waypoint(m, (sn_vec3){1000, 1000, 0}, true, SN_LANE_DRIVING, &o, &err) == SN_E_NOT_FOUND,
          "far from every road");
    CHECK(strstr(err.msg, "50 m") != NULL, "says how far it looked: %s", err.msg);
    CHECK(sn_map_waypoint(m, (sn_vec3){NAN, 0, 0}, true, SN_LANE_DRIVING, &o, &err) == SN_E_INVALID, "NaN refused");

    /* Left and right of the eastbound lane: the westbound lane across the centre line on the
    ** left, the sidewalk on the right. */
    CHECK(sn_map_left_lane(m, &w, &o, &err) == SN_OK && fabs(o.transform.location.y + 1.75) < 1e-6,
          "left lane y %g", o.transform.location.y);
    CHECK(sn_map_right_lane(m, &w, &o, &err) == SN_OK && o.lane_type == SN_LANE_SIDEWALK, "right is the sidewalk");
    CHECK(sn_map_right_lane(m, &o, &again, &err) == SN_E_NOT_FOUND, "nothing right of the sidewalk");

    /* xodr addressing gives the same place. */
    sn_waypoint x;
    CHECK(sn_map_waypoint_xodr(m, w.road_id, w.lane_id, w.s, &x, &err) == SN_OK && x.id == w.id, "xodr");
    CHECK(sn_map_waypoint_xodr(m, 999999, -1, 0, &x, &err) == SN_E_NOT_FOUND, "no road 999999");
    CHECK(sn_map_waypoint_xodr(m, w.road_id, -7, w.s, &x, &err) == SN_E_NOT_FOUND, "no lane -7");
    CHECK(sn_map_waypoint_xodr(m, w.road_id, -1, -5, &x, &err) == SN_E_RANGE, "s < 0");
}

static void test_next(const sn_map *m)
{
    sn_error err = {0};
    sn_waypoint w, out[16];
    size_t n = 0;
    /* 10 m before the junction at x = 100: 20 m ahead is inside or past it, one waypoint per
    ** way through: straight, left and right. */
    sn_map_waypoint(m, (sn_vec3){85, 1.75, 0}, false, SN_LANE_DRIVING, &w, NULL);
    CHECK(sn_map_next(m, &w, 30.0, out, 16, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3, "three ways through the junction: %zu", n);
    int east = 0, north = 0, south = 0;
    for (size_t i = 0; i < n && i < 16; i++) {
        double yaw = out[i].transform.rotation.yaw;
        east += yaw_diff(yaw, 0) < 1;
        north += yaw_diff(yaw, -90) < 1; /* world -y is north: a left turn */
        south += yaw_diff(yaw, 90) < 1;
        CHECK(out[i].lane_type == SN_LANE_DRIVING, "branch %zu on a driving lane", i);
    }
    CHECK(east == 1 && north == 1 && south == 1, "straight %d, left %d, right %d", east, north, south);

    /* next_until_lane_end(10) from x = 20 eastbound: every 10 m on the same road, then its end,
    ** from where the next step is inside the junction at x = 100. */
    sn_waypoint le[32];
    sn_map_waypoint(m, (sn_vec3){20, 1.75, 0}, false, SN_LANE_DRIVING, &w, NULL);
    CHECK(sn_map_next_until_lane_end(m, &w, 10.0, le, 32, &n, &err) == SN_OK && n >= 2 && n < 32, "%zu: %s", n, err.msg);
    for (size_t i = 0; i < n && i < 32; i++) {
        CHECK(le[i].road_id == w.road_id, "waypoint %zu on the same road", i);
        double step = le[i].transform.location.x - (i ? le[i - 1].transform.location.x : 20);
        CHECK(i + 1 == n ? step > 0 && step <= 10 + 1e-9 : fabs(step - 10) < 1e-9, "step %zu is %g m", i, step);
    }
    if (n >= 1 && n < 32) {
        sn_waypoint after[4];
        size_t na = 0;
        sn_map_next(m, &le[n - 1], 0.5, after, 4, &na, NULL);
        CHECK(na >= 1 && after[0].is_junction, "the last one is the lane's end: half a metre on is the junction");
    }

    /* Straight along the street: 2 m apart, and previous() walks back. */
    sn_map_waypoint(m, (sn_vec3){30, 1.75, 0}, false, SN_LANE_DRIVING, &w, NULL);
    CHECK(sn_map_next(m, &w, 2.0, out, 16, &n, &err) == SN_OK && n == 1, "one way ahead");
    CHECK_NEAR(out[0].transform.location.x, 32, 1e-6, "2 m east");
    sn_waypoint back[4];
    CHECK(sn_map_previous(m, &out[0], 2.0, back, 4, &n, &err) == SN_OK && n == 1, "one way back");
    CHECK_NEAR(back[0].transform.location.x, 30, 1e-6, "back where it started");
    CHECK(sn_map_next(m, &w, 0, out, 16, &n, &err) == SN_E_RANGE, "distance 0 refused");
    CHECK(sn_map_next(m, &w, -2, out, 16, &n, &err) == SN_E_RANGE, "negative distance refused");
    /* The count is given even when the buffer is smaller. */
    sn_map_waypoint(m, (sn_vec3){85, 1.75, 0}, false, SN_LANE_DRIVING, &w, NULL);
    CHECK(sn_map_next(m, &w, 30.0, out, 1, &n, &err) == SN_OK && n == 3, "counted past the buffer: %zu", n);
    sn_waypoint bogus = w;
    bogus.road_id = 123456;
    CHECK(sn_map_next(m, &bogus, 2, out, 16, &n, &err) == SN_E_NOT_FOUND, "a waypoint of no road");
}

static void test_lists(const sn_map *m)
{
    sn_error err = {0};
    size_t n = 0;
    CHECK(sn_map_spawn_points(m, NULL, 0, &n, &err) == SN_OK && n > 50, "spawn points: %zu", n);
    sn_transform *sp = calloc(n, sizeof *sp);
    size_t got = 0;
    sn_map_spawn_points(m, sp, n, &got, NULL);
    int bad = 0;
    for (size_t i = 0; i < got; i++) {
        sn_waypoint w;
        sn_vec3 p = sp[i].location;
        p.z -= 0.5;
        if (sn_map_waypoint(m, p, false, SN_LANE_DRIVING, &w, NULL) || w.is_junction ||
            yaw_diff(w.transform.rotation.yaw, sp[i].rotation.yaw) > 1 || fabs(sp[i].location.z - 0.5) > 1e-6)
            bad++;
    }
    CHECK(bad == 0, "%d of %zu spawn points not 0.5 m above a driving lane outside junctions, along it", bad, got);
    free(sp);

    CHECK(sn_map_topology(m, NULL, 0, &n, &err) == SN_OK && n > 0 && n % 2 == 0, "topology: %zu", n);
    CHECK(sn_map_generate_waypoints(m, 2.0, NULL, 0, &n, &err) == SN_OK && n > 2000, "every 2 m: %zu", n);
    CHECK(sn_map_generate_waypoints(m, 0, NULL, 0, &n, &err) == SN_E_RANGE, "distance 0 refused");
    size_t size;
    const char *xml = sn_map_to_opendrive(m, &size);
    CHECK(xml && size > 1000 && strstr(xml, "<OpenDRIVE") && strlen(xml) == size, "to_opendrive");
}

static void test_marks(const sn_map *m)
{
    sn_error err = {0};
    sn_mark_crossing c[8];
    size_t n = 0;
    /* Across the street at x = 50 from the north sidewalk (world y -5) to the south one (+5):
    ** the northern edge (white), the centre (yellow), the southern edge (white). */
    CHECK(sn_map_marks_crossed(m, (sn_vec3){50, -5, 0}, (sn_vec3){50, 5, 0}, c, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3, "three marks crossed: %zu", n);
    if (n == 3) {
        CHECK(c[0].marking.color == SN_MARK_WHITE && c[1].marking.color == SN_MARK_YELLOW &&
                  c[2].marking.color == SN_MARK_WHITE, "white, yellow, white");
        CHECK_NEAR(c[0].location.y, -3.5, 0.02, "north edge");
        CHECK_NEAR(c[1].location.y, 0, 0.02, "centre");
        CHECK_NEAR(c[2].location.y, 3.5, 0.02, "south edge");
    }
    CHECK(sn_map_marks_crossed(m, (sn_vec3){40, 1.75, 0}, (sn_vec3){60, 1.75, 0}, c, 8, &n, &err) == SN_OK && n == 0,
          "along the lane: nothing crossed (%zu)", n);
    CHECK(sn_map_marks_crossed(m, (sn_vec3){0, 0, 0}, (sn_vec3){5000, 0, 0}, c, 8, &n, &err) == SN_E_RANGE,
          "5 km segment refused");
}

/* The latitude and longitude of a GNSS message. */
static void on_gnss(const sn_message *msg, void *user)
{
    double *ll = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, msg->data, msg->size, NULL) == MSGPACK_UNPACK_SUCCESS && u.data.type == MSGPACK_OBJECT_MAP)
        for (uint32_t i = 0; i < u.data.via.map.size; i++) {
            const msgpack_object_kv *kv = &u.data.via.map.ptr[i];
            if (kv->key.type != MSGPACK_OBJECT_STR || kv->val.type != MSGPACK_OBJECT_FLOAT64)
                continue;
            if (kv->key.via.str.size == 8 && !memcmp(kv->key.via.str.ptr, "latitude", 8))
                ll[0] = kv->val.via.f64;
            if (kv->key.via.str.size == 9 && !memcmp(kv->key.via.str.ptr, "longitude", 9))
                ll[1] = kv->val.via.f64;
        }
    msgpack_unpacked_destroy(&u);
}

/* A scene without a geo-reference takes the map's (+lat_0=49 +lon_0=8.4 in the town's
** header): a GNSS sensor at the world origin reads that; a scene's own wins over it. */
static void gnss_at_origin(const char *plugins, const char *settings, double *ll)
{
    char scene[4096];
    snprintf(scene, sizeof scene, "%s/map_geo.yaml", tmp);
    FILE *f = fopen(scene, "w");
    if (!f)
        return;
    fprintf(f, "map: %s/town.xodr\nsettings: %s\nsensors:\n  - {name: fix, blueprint: sensor.other.gnss}\n", maps,
            settings);
    fclose(f);
    sn_error err = {0};
    sn_engine *e = sn_engine_create(&(sn_engine_options){.plugin_dir = plugins, .quiet_plugins = true}, &err);
    CHECK(e && sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_listen(e, "fix", on_gnss, ll, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
}

static void test_georeference(const char *plugins)
{
    double ll[2] = {0, 0};
    gnss_at_origin(plugins, "{frames: 2}", ll);
    CHECK(fabs(ll[0] - 49.0) < 1e-9 && fabs(ll[1] - 8.4) < 1e-9, "the map's geo-reference: %.12f, %.12f", ll[0], ll[1]);
    gnss_at_origin(plugins, "{frames: 2, georeference: {latitude: 10, longitude: 20}}", ll);
    CHECK(fabs(ll[0] - 10.0) < 1e-9 && fabs(ll[1] - 20.0) < 1e-9, "the scene's geo-reference: %.12f, %.12f", ll[0], ll[1]);
}

static void test_engine(void)
{
    /* A scene naming the map: the engine holds it, the query API works on it. */
    char scene[4096], mapfile[4096];
    snprintf(scene, sizeof scene, "%s/map_scene.yaml", tmp);
    snprintf(mapfile, sizeof mapfile, "%s/town.xodr", maps);
    FILE *f = fopen(scene, "w");
    if (!f) {
        CHECK(0, "cannot write %s", scene);
        return;
    }
    fprintf(f, "map: %s\nsettings: {frames: 3}\nactors: []\n", mapfile);
    fclose(f);
    sn_error err = {0};
    sn_engine *e = sn_engine_create(&(sn_engine_options){.quiet_plugins = true}, &err);
    CHECK(e && sn_engine_map(e) == NULL, "no map before a scene");
    CHECK(sn_engine_load_scene(e, scene, &err) == SN_OK, "%s", err.msg);
    const sn_map *m = sn_engine_map(e);
    CHECK(m != NULL, "the engine holds the scene's map");
    if (!m) {
        sn_engine_destroy(e);
        return;
    }
    sn_waypoint w;
    CHECK(m && sn_map_waypoint(m, (sn_vec3){50, 1.75, 0}, false, SN_LANE_DRIVING, &w, NULL) == SN_OK, "engine's map");
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);

    /* CARLA's set_autopilot: a car spawned at a spawn point follows the lanes. */
    sn_transform sp[4];
    size_t nsp = 0;
    sn_map_spawn_points(m, sp, 4, &nsp, NULL);
    uint32_t car = 0, cam = 0;
    sn_actor_desc d = {sizeof d, "vehicle.sedan", "auto", sp[0], 0, 0, NULL, 0};
    CHECK(nsp >= 4 && sn_engine_spawn(e, &d, &car, &err) == SN_OK, "%s", err.msg);
    sn_autopilot_options ao = {sizeof ao, -1, NAN, NAN, NAN, 0};
    CHECK(sn_engine_set_autopilot(e, car, true, &ao, &err) == SN_OK, "%s", err.msg);
    double travelled = 0;
    int off_lane = 0;
    sn_vec3 last = sp[0].location;
    for (int f = 0; f < 1400; f++) { /* 70 s: a junction's four lights take 60 s to come round */
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, car, &a);
        travelled += hypot(a.transform.location.x - last.x, a.transform.location.y - last.y);
        last = a.transform.location;
        sn_waypoint lw;
        /* On a driving lane, or turning round beyond a dead end (the outer stubs end at the
        ** town's edge: x -50 and 250, y 50 and -250; docs/traffic.md). */
        sn_vec3 p = a.transform.location;
        bool beyond = p.x < -42 || p.x > 242 || p.y > 42 || p.y < -242; /* within 8 m of an end */
        off_lane += !beyond && sn_map_waypoint(m, p, false, SN_LANE_DRIVING, &lw, NULL) != SN_OK;
    }
    CHECK(travelled > 60, "on autopilot it drove %g m in 70 s", travelled);
    CHECK(off_lane == 0, "%d frames off the driving lanes", off_lane);
    CHECK(sn_engine_set_autopilot(e, car, false, NULL, &err) == SN_OK, "%s", err.msg);
    sn_actor_desc cd = {sizeof cd, "sensor.other.collision", "auto_crash", {{0, 0, 0}, {0, 0, 0}}, car, 0, NULL, 0};
    if (sn_engine_spawn(e, &cd, &cam, NULL) == SN_OK)
        CHECK(sn_engine_set_autopilot(e, cam, true, NULL, &err) == SN_E_INVALID, "a sensor cannot drive");
    ao.ignore_lights_percentage = 150;
    CHECK(sn_engine_set_autopilot(e, car, true, &ao, &err) == SN_E_RANGE, "150 %% refused: %s", err.msg);
    sn_engine_destroy(e);

    /* A broken map: the scene's error names the scene's line and column, then the map's line. */
    char bad[4096];
    snprintf(bad, sizeof bad, "%s/bad.xodr", tmp);
    f = fopen(bad, "w");
    fputs("<?xml version=\"1.0\"?>\n<OpenDRIVE>\n<header revMajor=\"1\" revMinor=\"6\"/>\n"
          "<road id=\"1\" length=\"nan\" junction=\"-1\"/>\n</OpenDRIVE>\n", f);
    fclose(f);
    f = fopen(scene, "w");
    fprintf(f, "settings: {frames: 3}\nmap: bad.xodr\n");
    fclose(f);
    e = sn_engine_create(&(sn_engine_options){.quiet_plugins = true}, &err);
    CHECK(sn_engine_load_scene(e, scene, &err) == SN_E_INVALID, "broken map refused");
    CHECK(strstr(err.msg, "map_scene.yaml:2:6: map: ") && strstr(err.msg, "bad.xodr:4: <road>: ") &&
              strstr(err.msg, "length"),
          "names both files, lines and the attribute: %s", err.msg);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_map_api MAPS_DIR TMP\n");
        return 2;
    }
    maps = argv[1], tmp = argv[2];
    char path[4096];
    snprintf(path, sizeof path, "%s/town.xodr", maps);
    sn_error err = {0};
    sn_map *m = sn_map_open(path, &err);
    CHECK(m != NULL, "%s", err.msg);
    if (!m)
        return CHECK_DONE();
    test_info(m);
    test_waypoint(m);
    test_next(m);
    test_lists(m);
    test_marks(m);
    sn_map_close(m);
    test_engine();
    if (argc > 3)
        test_georeference(argv[3]);
    CHECK(sn_map_open("/nonexistent/x.xodr", &err) == NULL && err.status == SN_E_IO, "missing file is I/O");
    /* Left-hand traffic: lane -1 drives against s, so its own (outer, solid) mark is on its left
    ** and the centre line (no mark) on its right. */
    static const char lht[] =
        "<OpenDRIVE><header revMajor=\"1\" revMinor=\"4\"/><road id=\"1\" length=\"100\" junction=\"-1\" "
        "rule=\"LHT\"><planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"100\"><line/></geometry>"
        "</planView><lanes><laneSection s=\"0\"><center><lane id=\"0\" type=\"none\"/></center><right><lane "
        "id=\"-1\" type=\"driving\"><width sOffset=\"0\" a=\"3.5\"/><roadMark sOffset=\"0\" type=\"solid\"/>"
        "</lane></right></laneSection></lanes></road></OpenDRIVE>";
    sn_map *l = sn_map_open_memory(lht, sizeof lht - 1, "lht.xodr", &err);
    sn_waypoint lw;
    CHECK(l && sn_map_waypoint(l, (sn_vec3){50, 1.75, 0}, false, SN_LANE_DRIVING, &lw, &err) == SN_OK, "%s", err.msg);
    if (l) {
        CHECK(yaw_diff(lw.transform.rotation.yaw, 180) < 1e-6, "LHT lane -1 drives west: yaw %g", lw.transform.rotation.yaw);
        CHECK(lw.left_marking.type == SN_MARK_SOLID && lw.right_marking.type == SN_MARK_NONE,
              "LHT markings: left %d right %d", lw.left_marking.type, lw.right_marking.type);
        sn_map_close(l);
    }
    CHECK(sn_map_open_memory("<x", 2, "mem.xodr", &err) == NULL && strstr(err.msg, "mem.xodr:1: XML: "),
          "not XML: %s", err.msg);
    return CHECK_DONE();
}
