/* ABI 1.6's host additions against geometry and the embedding API, on the fake host (no map,
** then signals.xodr): overlaps nearest first with distances, a cone, per-ray ignore pairs, an
** actor's route and the lights and signs ahead of it. argv[1]: sdk16_probe.so, argv[2]: the map. */
#include <sensim/testing.h>

#include "../check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double num(sn_fake_sensor *s, const char *fmt, int i, int j)
{
    char path[64];
    snprintf(path, sizeof path, fmt, i, j);
    return sn_fake_number(s, 0, path);
}

static uint32_t box(sn_fake *f, double x, double y, double e)
{
    return sn_fake_add_actor(f, "static.prop.box", SN_TAG_STATIC, (sn_transform){{x, y, 1}, {0, 0, 0}},
                             (sn_vec3){e, e, e});
}

static void queries(const char *probe)
{
    sn_fake *f = sn_fake_new(3);
    sn_plugin_entry_fn entry = sn_fake_open(f, probe);
    CHECK(entry != NULL, "%s", sn_fake_error(f));
    uint32_t a = box(f, 10, 0, 1), b = box(f, 10, 10, 1), c = box(f, 5, -1.5, 0.5), d = box(f, 20, 0, 1);
    CHECK(a && b && c && d, "%s", sn_fake_error(f));
    char ia[32], ib[32];
    snprintf(ia, sizeof ia, "ignore_a=%u", a), snprintf(ib, sizeof ib, "ignore_b=%u", d);
    sn_fake_sensor *s = sn_fake_spawn_named(f, entry, "sensor.test.sdk16_probe", "p", (const char *[]){ia, ib, NULL},
                                            0, (sn_transform){{0, 0, 1}, {0, 0, 0}});
    CHECK(s != NULL, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    /* nearest first: C's corner (4.5, -1), A's face (9, 0), B's corner (9, 9), D's face (19, 0) */
    const uint32_t near_ids[] = {c, a, b, d};
    const double near_d[] = {sqrt(4.5 * 4.5 + 1), 9, sqrt(162), 19};
    CHECK(sn_fake_length(s, 0, "near") == 4, "near: %lld", (long long)sn_fake_length(s, 0, "near"));
    for (int i = 0; i < 4; i++) {
        CHECK(num(s, "near.%d.0", i, 0) == near_ids[i], "near %d: id %g, want %u", i, num(s, "near.%d.0", i, 0),
              near_ids[i]);
        CHECK(fabs(num(s, "near.%d.1", i, 0) - near_d[i]) < 1e-9, "near %d: distance %.12g, want %.12g", i,
              num(s, "near.%d.1", i, 0), near_d[i]);
    }
    CHECK(fabs(num(s, "near.%d.%d", 0, 2) - 4.5) < 1e-9 && fabs(num(s, "near.%d.%d", 0, 3) + 1) < 1e-9 &&
              fabs(num(s, "near.%d.%d", 0, 4) - 1) < 1e-9, "C's nearest point");
    /* the 30 degree cone along +x: B's nearest point is 45 degrees off, out */
    const uint32_t cone_ids[] = {c, a, d};
    CHECK(sn_fake_length(s, 0, "cone") == 3, "cone: %lld", (long long)sn_fake_length(s, 0, "cone"));
    for (int i = 0; i < 3; i++)
        CHECK(num(s, "cone.%d.0", i, 0) == cone_ids[i], "cone %d: id %g", i, num(s, "cone.%d.0", i, 0));
    /* rays along +x: no pair hits A at 9; pair (A, 0) passes A to D at 19; pair (D, A) hits nothing */
    CHECK(num(s, "rays.%d.%d", 0, 0) == a && fabs(num(s, "rays.%d.%d", 0, 1) - 9) < 1e-9, "ray 0");
    CHECK(num(s, "rays.%d.%d", 1, 0) == d && fabs(num(s, "rays.%d.%d", 1, 1) - 19) < 1e-9, "ray 1: %g at %g",
          num(s, "rays.%d.%d", 1, 0), num(s, "rays.%d.%d", 1, 1));
    CHECK(num(s, "rays.%d.%d", 2, 0) == 0 && num(s, "rays.%d.%d", 2, 1) == -1, "ray 2");
    sn_fake_free(f);
}

/* The light whose map signal is `signal`, by the embedding API. */
static uint32_t light_of(sn_engine *e, int32_t signal)
{
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        sn_traffic_light_info info = {.struct_size = sizeof info};
        uint32_t id = sn_engine_traffic_light_at(e, i);
        if (sn_engine_traffic_light_info(e, id, &info, NULL) == SN_OK && info.opendrive_id == signal)
            return id;
    }
    return 0;
}

static void landmarks(const char *probe, const char *map)
{
    sn_testworld_options o = {.struct_size = sizeof o, .seed = 5, .map_path = map};
    sn_fake *f = sn_fake_new_with(&o);
    CHECK(f != NULL, "fake with map");
    sn_engine *e = sn_fake_engine(f);
    sn_plugin_entry_fn entry = sn_fake_open(f, probe);
    CHECK(entry != NULL, "%s", sn_fake_error(f));
    /* Street_W (road 1) runs x -90..-10; lane -1 drives +x: a 40 km/h sign at s 10, the light of
    ** signal 3006 whose line binds to the lane's end (s 80), then 30 km/h at s 5 of Street_M */
    sn_waypoint wp;
    sn_error err = {0};
    CHECK(sn_map_waypoint_xodr(sn_engine_map(e), 1, -1, 5.0, &wp, &err) == SN_OK, "%s", err.msg);
    sn_transform pose = wp.transform;
    pose.location.z += 0.1;
    uint32_t car = sn_fake_spawn_actor(f, "vehicle.sedan", "car", pose, 0, NULL);
    CHECK(car != 0, "%s", sn_fake_error(f));
    char target[32];
    snprintf(target, sizeof target, "target=%u", car);
    sn_fake_sensor *s90 = sn_fake_spawn_named(f, entry, "sensor.test.sdk16_probe", "p90",
                                              (const char *[]){target, "reach=90", NULL}, 0, pose);
    sn_fake_sensor *s110 = sn_fake_spawn_named(f, entry, "sensor.test.sdk16_probe", "p110",
                                               (const char *[]){target, "reach=110", NULL}, 0, pose);
    CHECK(s90 && s110, "%s", sn_fake_error(f));
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    uint32_t light = light_of(e, 3006);
    CHECK(light != 0, "light 3006");
    sn_traffic_light_state state = SN_TL_UNKNOWN;
    sn_engine_traffic_light_get_state(e, light, &state, NULL);
    sn_waypoint stops[4];
    size_t n_stops = 0;
    CHECK(sn_engine_traffic_light_stops(e, light, stops, 4, &n_stops, NULL) == SN_OK && n_stops >= 1, "stops");
    CHECK(sn_fake_length(s90, 0, "marks") == 2, "90 m: %lld marks", (long long)sn_fake_length(s90, 0, "marks"));
    CHECK(num(s90, "marks.%d.%d", 0, 0) == SN_LANDMARK_SPEED && num(s90, "marks.%d.%d", 0, 2) == 3000, "speed sign");
    CHECK(fabs(num(s90, "marks.%d.%d", 0, 4) - 40 / 3.6) < 1e-9, "limit %g", num(s90, "marks.%d.%d", 0, 4));
    CHECK(fabs(num(s90, "marks.%d.%d", 0, 5) - 5) < 1e-6, "sign at %g m", num(s90, "marks.%d.%d", 0, 5));
    CHECK(num(s90, "marks.%d.%d", 1, 0) == SN_LANDMARK_LIGHT && num(s90, "marks.%d.%d", 1, 1) == light &&
              num(s90, "marks.%d.%d", 1, 2) == 3006, "the light");
    CHECK(num(s90, "marks.%d.%d", 1, 3) == state, "state %g, the API says %d", num(s90, "marks.%d.%d", 1, 3), state);
    CHECK(fabs(num(s90, "marks.%d.%d", 1, 5) - 75) < 1e-6, "line at %g m", num(s90, "marks.%d.%d", 1, 5));
    CHECK(num(s90, "marks.%d.%d", 1, 6) == stops[0].road_id && num(s90, "marks.%d.%d", 1, 7) == stops[0].lane_id &&
              fabs(num(s90, "marks.%d.%d", 1, 8) - stops[0].s) < 1e-9, "the line is the light's stop waypoint "
          "(road %d lane %d s %g)", stops[0].road_id, stops[0].lane_id, stops[0].s);
    CHECK(sn_fake_length(s110, 0, "marks") == 3, "110 m: %lld marks", (long long)sn_fake_length(s110, 0, "marks"));
    CHECK(num(s110, "marks.%d.%d", 2, 2) == 3001 && fabs(num(s110, "marks.%d.%d", 2, 5) - 100) < 1e-6 &&
              fabs(num(s110, "marks.%d.%d", 2, 4) - 30 / 3.6) < 1e-9, "Street_M's sign at %g m",
          num(s110, "marks.%d.%d", 2, 5));
    CHECK(num(s90, "route.%d", 0, 0) == 0, "no autopilot, no route");
    /* on autopilot: the planned path, 2 m steps from the car's lane */
    CHECK(sn_engine_set_autopilot(e, car, true, NULL, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_fake_step(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(num(s90, "route.%d", 0, 0) > 30, "route of %g waypoints", num(s90, "route.%d", 0, 0));
    CHECK(num(s90, "route.%d", 1, 0) == 1 && num(s90, "route.%d", 2, 0) == -1, "route starts on road 1 lane -1");
    CHECK(fabs(num(s90, "route.%d", 3, 0) - pose.location.x) < 2.5, "route starts at the car");
    CHECK(num(s90, "route.%d", 4, 0) < 2.5, "steps of %g m", num(s90, "route.%d", 4, 0));
    CHECK(sn_fake_length(s90, 0, "marks") == 2 && fabs(num(s90, "marks.%d.%d", 1, 5) - 75) < 0.6,
          "along the route: the light at %g m", num(s90, "marks.%d.%d", 1, 5));
    sn_fake_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    uint32_t major = 0, minor = 0;
    sn_abi_version(&major, &minor);
    CHECK(!strcmp(sn_version(), SN_VERSION_STRING) && major == SN_ABI_MAJOR && minor == SN_ABI_MINOR && minor == 6,
          "run-time version %s, ABI %u.%u", sn_version(), major, minor);
    queries(argv[1]);
    landmarks(argv[1], argv[2]);
    return CHECK_DONE();
}
