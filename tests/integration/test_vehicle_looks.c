/*
** test_vehicle_looks.c — vehicles' lights, two-wheelers and replayed wheels, through the public
** API and the camera and recorder plugins:
**   - light_state (CARLA's VehicleLightState) from the scene (names, lists, numbers; bad names
**     refused with file:line:col) and the API (set, get, actor_get), refused on a walker;
**   - headlights: a road patch ahead of a car at night is much brighter with its low beams on
**     than off; at noon the image is byte-identical either way; a lit lamp glows;
**   - CARLA's seven two-wheelers spawn from the scene and the API with their tags and boxes;
**   - the recorder records each vehicle's wheel angle and lights, and replay restores them, so
**     replayed wheels turn as they did (format 1.3).
** argv[1]: temp folder, argv[2]: plugin folder (build/plugins: camera and recorder).
*/
#include "../check.h"
#include "../testutil.h"
#include "../testrun.h"

#include <sensim/sensim.h>

static const char *dir, *plugins;

static sn_status load(sn_engine *e, const char *scene, sn_error *err)
{
    return sn_engine_load_scene(e, tu_write(dir, "looks.yaml", scene), err);
}

static uint32_t light_state_of(sn_engine *e, const char *name)
{
    uint32_t s = 0xDEAD;
    sn_engine_get_vehicle_light_state(e, sn_engine_find_actor(e, name), &s, NULL);
    return s;
}

/* ---- light_state in the scene and the API ---- */

static void light_state_api(void)
{
    sn_error err = {0};
    sn_engine *e = tu_engine(plugins, 2);
    CHECK(e && load(e, "actors:\n"
                       "  - {name: a, blueprint: vehicle.sedan, light_state: LowBeam}\n"
                       "  - {name: b, blueprint: vehicle.van, transform: {location: [10, 0, 0]}, light_state: [Position, Brake]}\n"
                       "  - {name: c, blueprint: vehicle.bus, transform: {location: [30, 0, 0]}, light_state: 0x41}\n"
                       "  - {name: d, blueprint: vehicle.truck, transform: {location: [50, 0, 0]}}\n"
                       "  - {name: p, blueprint: walker.pedestrian, transform: {location: [0, 10, 1]}}\n",
                    &err) == SN_OK,
          "%s", err.msg);
    CHECK(light_state_of(e, "a") == SN_LIGHT_LOW_BEAM, "a name");
    CHECK(light_state_of(e, "b") == (SN_LIGHT_POSITION | SN_LIGHT_BRAKE), "a list of names");
    CHECK(light_state_of(e, "c") == (SN_LIGHT_POSITION | SN_LIGHT_REVERSE), "a number");
    CHECK(light_state_of(e, "d") == SN_LIGHT_NONE, "none by default, as CARLA");
    uint32_t d = sn_engine_find_actor(e, "d"), p = sn_engine_find_actor(e, "p");
    CHECK(sn_engine_set_vehicle_light_state(e, d, SN_LIGHT_ALL, &err) == SN_OK && light_state_of(e, "d") == 0xFFFFFFFFu,
          "All: %s", err.msg);
    sn_actor_info info = {.struct_size = sizeof info};
    CHECK(sn_engine_actor_get(e, d, &info) == SN_OK && info.light_state == 0xFFFFFFFFu, "actor_get shows the lights");
    CHECK(sn_engine_set_vehicle_light_state(e, p, SN_LIGHT_LOW_BEAM, &err) == SN_E_INVALID, "a walker has no lights");
    CHECK_CONTAINS(err.msg, "set_light_state: actor");
    CHECK(sn_engine_set_vehicle_light_state(e, 99999, 1, &err) == SN_E_NOT_FOUND, "no such actor");
    sn_engine_destroy(e);

    e = tu_engine(plugins, 2);
    CHECK(e && load(e, "actors:\n  - {name: a, blueprint: vehicle.sedan, light_state: [LowBeam, Headlights]}\n", &err) !=
                   SN_OK,
          "an unknown light is refused");
    CHECK_CONTAINS(err.msg, "looks.yaml:2:");
    CHECK_CONTAINS(err.msg, "unknown light 'Headlights'");
    sn_engine_destroy(e);
    e = tu_engine(plugins, 2);
    CHECK(e && load(e, "actors:\n  - {name: w, blueprint: walker.pedestrian, light_state: LowBeam}\n", &err) != SN_OK,
          "light_state on a walker is refused");
    CHECK_CONTAINS(err.msg, "light_state needs a vehicle");
    sn_engine_destroy(e);
}

/* ---- headlights ---- */

/* One RGB frame of a sedan at the origin facing +x with lights `lights` under `weather`, seen
** by `camera` (a YAML map): the camera's image. */
static bool shoot_bp(const char *bp, const char *weather, const char *lights, const char *camera, tu_image *c)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {weather: %s, lighting: {shadows: false}}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, attributes: {texture: none}}\n"
             "  - {name: car, blueprint: %s, light_state: %s}\n"
             "sensors:\n"
             "  - {name: cam, blueprint: sensor.camera.rgb, %s}\n",
             weather, bp, lights, camera);
    sn_error err = {0};
    sn_engine *e = tu_engine(plugins, 2);
    memset(c, 0, sizeof *c);
    bool ok = e && load(e, scene, &err) == SN_OK && !sn_engine_listen(e, "cam", tu_on_image, c, &err) &&
              !sn_engine_run(e, 1, &err);
    CHECK(ok, "%s", err.msg);
    sn_engine_destroy(e);
    return ok && c->n == 1;
}

static bool shoot(const char *weather, const char *lights, const char *camera, tu_image *c)
{
    return shoot_bp("vehicle.sedan", weather, lights, camera, c);
}

/* Pixels whose channel ch (B 0, R 2) exceeds the other of B and R by 40 and whose brightest channel
** is above `floor`: lit red or blue. */
static int tinted(const tu_image *c, int ch, double floor)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)c->w * c->h; i++) {
        const uint8_t *p = c->raw + 4 * i;
        n += p[ch] > p[2 - ch] + 40 && fmax(p[ch], p[1]) > floor;
    }
    return n;
}

static double mean_lum(const tu_image *c)
{
    double s = 0;
    for (size_t i = 0; i < (size_t)c->w * c->h; i++)
        s += (c->raw[4 * i] + c->raw[4 * i + 1] + c->raw[4 * i + 2]) / 3.0;
    return s / ((double)c->w * c->h);
}

static double max_lum(const tu_image *c)
{
    double m = 0;
    for (size_t i = 0; i < (size_t)c->w * c->h; i++)
        m = fmax(m, (c->raw[4 * i] + c->raw[4 * i + 1] + c->raw[4 * i + 2]) / 3.0);
    return m;
}

static void headlights(void)
{
    /* straight down onto the road 7 to 15 m ahead of the car's nose */
    const char *down = "transform: {location: [11, 0, 8], rotation: [-90, 0, 0]}, "
                       "attributes: {image_size_x: 64, image_size_y: 64, fov: 60}";
    tu_image off, on, noon_off, noon_on, high;
    if (!shoot("ClearNight", "NONE", down, &off) || !shoot("ClearNight", "[Position, LowBeam]", down, &on) ||
        !shoot("ClearNoon", "NONE", down, &noon_off) || !shoot("ClearNoon", "[Position, LowBeam]", down, &noon_on) ||
        !shoot("ClearNight", "HighBeam", down, &high))
        return;
    double l_off = mean_lum(&off), l_on = mean_lum(&on), l_high = mean_lum(&high);
    CHECK(l_on > l_off + 15 && l_on > 2 * l_off, "at night the low beams light the road ahead: %g vs %g", l_on, l_off);
    CHECK(l_high > l_on, "high beams light it more: %g vs %g", l_high, l_on);
    CHECK(!memcmp(noon_off.raw, noon_on.raw, (size_t)4 * noon_on.w * noon_on.h),
          "at noon the headlights change nothing: %g vs %g", mean_lum(&noon_on), mean_lum(&noon_off));
    /* looking back at the car's nose from 6 m: lit lamps glow */
    const char *front = "transform: {location: [8, 0, 0.6], rotation: [0, 180, 0]}, "
                        "attributes: {image_size_x: 96, image_size_y: 64, fov: 50}";
    tu_image dark, lit;
    if (shoot("ClearNight", "NONE", front, &dark) && shoot("ClearNight", "Position", front, &lit))
        CHECK(max_lum(&lit) > 200 && max_lum(&dark) < 100, "the lamps glow: brightest pixel %g lit, %g dark",
              max_lum(&lit), max_lum(&dark));
    /* a police car's light bar glows red and blue at night with CARLA's Special1 (its beacons),
    ** seen from above; off, it is dark */
    const char *above = "transform: {location: [-0.5, 0, 7], rotation: [-90, 0, 0]}, "
                        "attributes: {image_size_x: 64, image_size_y: 64, fov: 30}";
    tu_image bar_off, bar_on;
    if (shoot_bp("vehicle.dodge.charger_police", "ClearNight", "NONE", above, &bar_off) &&
        shoot_bp("vehicle.dodge.charger_police", "ClearNight", "Special1", above, &bar_on)) {
        CHECK(max_lum(&bar_on) > 200 && max_lum(&bar_off) < 100, "the beacons glow: brightest pixel %g on, %g off",
              max_lum(&bar_on), max_lum(&bar_off));
        CHECK(tinted(&bar_on, 2, 150) > 3 && tinted(&bar_on, 0, 150) > 3, "lit red %d and blue %d pixels",
              tinted(&bar_on, 2, 150), tinted(&bar_on, 0, 150));
        free(bar_off.raw), free(bar_on.raw);
    }
    tu_image *all[] = {&off, &on, &noon_off, &noon_on, &high, &dark, &lit};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]->raw);
}

/* ---- two-wheelers ---- */

static void two_wheelers(void)
{
    static const struct { const char *id; uint8_t tag; } bps[] = {
        {"vehicle.bh.crossbike", SN_TAG_BICYCLE},
        {"vehicle.diamondback.century", SN_TAG_BICYCLE},
        {"vehicle.gazelle.omafiets", SN_TAG_BICYCLE},
        {"vehicle.harley-davidson.low_rider", SN_TAG_MOTORCYCLE},
        {"vehicle.kawasaki.ninja", SN_TAG_MOTORCYCLE},
        {"vehicle.yamaha.yzf", SN_TAG_MOTORCYCLE},
        {"vehicle.vespa.zx125", SN_TAG_MOTORCYCLE},
    };
    char scene[2048] = "actors:\n  - {name: ground, blueprint: static.ground}\n";
    for (int i = 0; i < 7; i++)
        snprintf(scene + strlen(scene), sizeof scene - strlen(scene),
                 "  - {name: s%d, blueprint: %s, transform: {location: [%d, 0, 0]}, control: {throttle: 0.5}}\n", i,
                 bps[i].id, 5 * i);
    sn_error err = {0};
    sn_engine *e = tu_engine(plugins, 2);
    CHECK(e && load(e, scene, &err) == SN_OK, "two-wheelers from the scene: %s", err.msg);
    for (int k = 0; k < 40 && e; k++)
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
    for (int i = 0; i < 7 && e; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%d", i);
        sn_actor_info info = {.struct_size = sizeof info};
        CHECK(sn_engine_actor_get(e, sn_engine_find_actor(e, name), &info) == SN_OK, "%s", bps[i].id);
        CHECK(info.semantic_tag == bps[i].tag && info.kind == SN_ACTOR_VEHICLE, "%s: tag %u", bps[i].id, info.semantic_tag);
        CHECK(info.bounding_box.extent.z > 0.6 && info.bounding_box.extent.y < 0.5, "%s: a tall narrow box", bps[i].id);
        CHECK(info.velocity.x > 1 && info.transform.location.z > -0.5 && info.transform.location.z < 0.5,
              "%s drives upright on its wheels: v %g, z %g", bps[i].id, info.velocity.x, info.transform.location.z);
        /* and from the API, with its attributes */
        sn_attribute a[] = {{"color", "10,20,30"}};
        sn_actor_desc d = {sizeof d, bps[i].id, NULL, {{5.0 * i, 20, 0}, {0, 90, 0}}, 0, 0, a, 1};
        uint32_t id = 0;
        CHECK(sn_engine_spawn(e, &d, &id, &err) == SN_OK && id, "spawn %s: %s", bps[i].id, err.msg);
    }
    sn_engine_destroy(e);
}

/* ---- replayed wheels and lights ---- */

static void replay_wheels(void)
{
    sn_error err = {0};
    char rec[1024];
    snprintf(rec, sizeof rec, "%s/looks.sensimrec", dir);
    sn_engine *e = tu_engine(plugins, 2);
    CHECK(e && load(e, "actors:\n  - {name: ground, blueprint: static.ground}\n"
                       "  - {name: car, blueprint: vehicle.sedan, control: {throttle: 0.4}}\n"
                       "  - {name: bike, blueprint: vehicle.kawasaki.ninja, transform: {location: [0, 8, 0]}, "
                       "control: {throttle: 0.3}}\n", &err) == SN_OK,
          "%s", err.msg);
    sn_record_options ro = {.struct_size = sizeof ro, .file = rec};
    CHECK(sn_engine_record(e, &ro, &err) == SN_OK, "%s", err.msg);
    enum { FRAMES = 70 };
    uint32_t ids[2] = {sn_engine_find_actor(e, "car"), sn_engine_find_actor(e, "bike")};
    double angle[FRAMES + 1][2];
    uint32_t lights[FRAMES + 1][2];
    double most = 0;
    for (int f = 1; f <= FRAMES && e; f++) {
        for (int k = 0; k < 2; k++) {
            sn_vehicle_control c = {0.4, sin(f / 6.0), 0, false, false};
            sn_engine_apply_control(e, ids[k], &c, &err);
        }
        if (f == 12)
            sn_engine_set_vehicle_light_state(e, ids[0], SN_LIGHT_LOW_BEAM | SN_LIGHT_POSITION, &err);
        if (f == 40)
            sn_engine_set_vehicle_light_state(e, ids[1], SN_LIGHT_BRAKE, &err);
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        for (int k = 0; k < 2; k++) {
            sn_actor_info info = {.struct_size = sizeof info};
            sn_engine_actor_get(e, ids[k], &info);
            angle[f][k] = info.wheel_steer_angle, lights[f][k] = info.light_state;
            most = fmax(most, fabs(info.wheel_steer_angle));
        }
    }
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
    CHECK(most > 10, "the recorded wheels turned (up to %g degrees)", most);

    e = tu_engine(plugins, 2);
    sn_replay_options o = {.struct_size = sizeof o};
    CHECK(e && sn_engine_load_replay(e, rec, &o, &err) == SN_OK, "%s", err.msg);
    int wrong = 0, steps = 0;
    double worst = 0;
    for (int f = 1; f <= FRAMES && e; f++) {
        if (sn_engine_step(e, &err))
            break;
        steps++;
        for (int k = 0; k < 2; k++) {
            sn_actor_info info = {.struct_size = sizeof info};
            if (sn_engine_actor_get(e, sn_engine_replay_actor(e, ids[k]), &info)) {
                wrong++;
                continue;
            }
            worst = fmax(worst, fabs(info.wheel_steer_angle - angle[f][k]));
            wrong += info.light_state != lights[f][k];
        }
    }
    CHECK(steps == FRAMES && wrong == 0, "replay: %d steps, %d frames with other lights or no actor", steps, wrong);
    CHECK(worst < 1e-4, "replayed wheel angles are the recorded ones (float32): off by up to %g degrees", worst);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_vehicle_looks TMP PLUGINS\n"), 2;
    dir = argv[1], plugins = argv[2];
    light_state_api();
    headlights();
    two_wheelers();
    replay_wheels();
    return CHECK_DONE();
}
