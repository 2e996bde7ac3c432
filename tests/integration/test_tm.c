/* CARLA's Traffic Manager and traffic-light calls against their effects (sensim.h's sn_engine_tm_*,
** sn_engine_vehicle_traffic_light, sn_engine_traffic_lights_from_waypoint). argv[1]: temp folder,
** argv[2]: plugin folder, argv[3]: tests/data (town.xodr), argv[4]: maps/ (highway.xodr).
**
** 1. Settings: CARLA's defaults; a global value reaches vehicles registered before and after it;
**    a vehicle's own value wins; desired speed and percentage replace each other; own values
**    outlive set_autopilot(false); the port a vehicle drives with; shut_down.
** 2. Absurd values refused with a sentence (NaN, negative distance, 1e9 %, bool 2, bad port, a
**    setting of the wrong scope); the value in force is unchanged after a refusal.
** 3. A 50 % speed difference halves the cruising speed (highway, two lanes, no leader).
** 4. A frozen red light holds an autopilot before its stop line for 60 s, and the vehicle reports
**    that light (get_traffic_light) while it waits; green lets it through.
** 5. set_route: vehicles told LEFT, RIGHT, STRAIGHT leave the junction turned -90 / +90 / 0; set_path
**    with a point on the left, right or straight exit does the same; their blinkers before it.
** 6. An off-road vehicle: set_autopilot succeeds, one warning for the run, and it reaches a lane.
** 7. force_lane_change: the request reaches the autopilot (a lane change within 5 s once the
**    autopilot changes lanes; see the note at the test).
** 8. Lights from a waypoint: the light ahead within the distance, none short of it. */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

static const char *tmp, *plugins, *data, *maps;
static int warnings;
static char last_warning[512];

static void on_log(sn_log_level level, const char *line, void *user)
{
    (void)user;
    if (level == SN_LOG_WARN && strstr(line, "autopilot")) {
        warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", line);
    }
}

static sn_engine *load_map(const char *name, const char *map)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 1000, seed: 7}\nmap: %s\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}}\n",
             map);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1, .log = on_log};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, name, text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", map, err.msg);
        exit(1);
    }
    return e;
}

static void step(sn_engine *e, int frames)
{
    sn_error err = {0};
    for (int i = 0; i < frames; i++)
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
}

static uint32_t spawn_at(sn_engine *e, sn_transform t)
{
    sn_error err = {0};
    t.location.z += 0.3;
    sn_actor_desc d = {sizeof d, "vehicle.sedan", NULL, t, 0, 0, NULL, 0};
    uint32_t id = 0;
    if (sn_engine_spawn(e, &d, &id, &err) != SN_OK) {
        fprintf(stderr, "FAIL: spawn: %s\n", err.msg);
        exit(1);
    }
    return id;
}

static sn_status autopilot(sn_engine *e, uint32_t id, uint32_t port)
{
    sn_error err = {0};
    sn_autopilot_options o = {sizeof o, -1, NAN, NAN, NAN, port};
    sn_status st = sn_engine_set_autopilot(e, id, true, &o, &err);
    if (st)
        fprintf(stderr, "  set_autopilot: %s\n", err.msg);
    return st;
}

static double get(sn_engine *e, uint32_t port, uint32_t v, sn_tm_param p)
{
    double x = NAN;
    sn_error err = {0};
    if (sn_engine_tm_get(e, port, v, p, &x, &err) != SN_OK)
        fprintf(stderr, "  tm_get: %s\n", err.msg);
    return x;
}

static sn_status set(sn_engine *e, uint32_t port, uint32_t v, sn_tm_param p, double x, sn_error *err)
{
    return sn_engine_tm_set(e, port, v, p, x, err);
}

static sn_actor_info info_of(sn_engine *e, uint32_t id)
{
    sn_actor_info i = {.struct_size = sizeof i};
    sn_engine_actor_get(e, id, &i);
    return i;
}

static double speed_of(sn_engine *e, uint32_t id)
{
    sn_vec3 v = info_of(e, id).velocity;
    return hypot(v.x, v.y);
}

static sn_waypoint lane_of(sn_engine *e, uint32_t id)
{
    sn_waypoint w = {0};
    sn_map_waypoint(sn_engine_map(e), info_of(e, id).transform.location, true, SN_LANE_DRIVING, &w, NULL);
    return w;
}

static sn_waypoint wp_xodr(sn_engine *e, int road, int lane, double s)
{
    sn_waypoint w = {0};
    sn_error err = {0};
    if (sn_map_waypoint_xodr(sn_engine_map(e), road, lane, s, &w, &err) != SN_OK) {
        fprintf(stderr, "FAIL: waypoint %d %d %g: %s\n", road, lane, s, err.msg);
        exit(1);
    }
    return w;
}

/* ---- 1, 2 ---- */

static void test_settings(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    sn_engine *e = load_map("tm_settings.yaml", map);
    sn_error err = {0};
    sn_map_spawn_points(sn_engine_map(e), NULL, 0, NULL, NULL);
    sn_transform sp[8];
    size_t nsp = 0;
    sn_map_spawn_points(sn_engine_map(e), sp, 8, &nsp, NULL);
    CHECK(nsp >= 8, "spawn points");
    /* CARLA's defaults (Parameters.h). */
    CHECK(get(e, 8000, 0, SN_TM_DISTANCE_TO_LEADING_VEHICLE) == 2.0, "distance default 2");
    CHECK(get(e, 8000, 0, SN_TM_AUTO_LANE_CHANGE) == 1.0, "auto lane change on");
    CHECK(get(e, 8000, 0, SN_TM_HYBRID_PHYSICS_RADIUS) == 70.0, "hybrid radius 70");
    CHECK(get(e, 8000, 0, SN_TM_OSM_MODE) == 1.0, "osm mode on");

    uint32_t a = spawn_at(e, sp[0]), b = spawn_at(e, sp[4]), c = spawn_at(e, sp[7]);
    CHECK(autopilot(e, a, 0) == SN_OK, "a on 8000");
    CHECK(sn_engine_tm_port_of(e, a) == 8000, "a drives with 8000, got %u", sn_engine_tm_port_of(e, a));
    /* A global value: vehicles registered before and after it. */
    CHECK(set(e, 8000, 0, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 40, &err) == SN_OK, "%s", err.msg);
    CHECK(set(e, 8000, 0, SN_TM_DISTANCE_TO_LEADING_VEHICLE, 6, &err) == SN_OK, "%s", err.msg);
    CHECK(autopilot(e, b, 8000) == SN_OK, "b");
    CHECK(get(e, 0, a, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == 40 && get(e, 0, b, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == 40,
          "the global 40 %% reaches a (before) and b (after)");
    CHECK(get(e, 0, b, SN_TM_DISTANCE_TO_LEADING_VEHICLE) == 6, "global distance 6");
    /* Another port: its own globals. */
    CHECK(autopilot(e, c, 9000) == SN_OK && sn_engine_tm_port_of(e, c) == 9000, "c on 9000");
    CHECK(get(e, 0, c, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == get(e, 9000, 0, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) &&
          get(e, 0, c, SN_TM_DISTANCE_TO_LEADING_VEHICLE) == 2, "c keeps 9000's defaults");
    /* A vehicle's own value wins over later globals. */
    CHECK(set(e, 0, a, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, -20, &err) == SN_OK, "%s", err.msg);
    CHECK(set(e, 8000, 0, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 10, &err) == SN_OK, "%s", err.msg);
    CHECK(get(e, 0, a, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == -20 && get(e, 0, b, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == 10,
          "a keeps its own -20 %%, b follows the global 10 %%");
    /* Desired speed and percentage replace each other (CARLA's Parameters.cpp). */
    CHECK(set(e, 0, b, SN_TM_DESIRED_SPEED, 36, &err) == SN_OK, "%s", err.msg);
    CHECK(get(e, 0, b, SN_TM_DESIRED_SPEED) == 36, "desired 36 km/h");
    CHECK(set(e, 0, b, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 5, &err) == SN_OK && get(e, 0, b, SN_TM_DESIRED_SPEED) == -1,
          "a percentage drops the desired speed");
    for (int p = SN_TM_IGNORE_LIGHTS_PERCENTAGE; p <= SN_TM_KEEP_RIGHT_RULE_PERCENTAGE; p++) {
        double x = p == SN_TM_AUTO_LANE_CHANGE ? 0 : 12.5;
        CHECK(set(e, 0, a, (sn_tm_param)p, x, &err) == SN_OK && get(e, 0, a, (sn_tm_param)p) == x, "knob %d: %s", p,
              err.msg);
    }
    CHECK(set(e, 0, a, SN_TM_UPDATE_VEHICLE_LIGHTS, 1, &err) == SN_OK && get(e, 0, a, SN_TM_UPDATE_VEHICLE_LIGHTS) == 1,
          "update_vehicle_lights stored");
    /* In-process no-ops: accepted and reported. */
    CHECK(set(e, 8000, 0, SN_TM_SYNCHRONOUS_MODE, 1, &err) == SN_OK && get(e, 8000, 0, SN_TM_SYNCHRONOUS_MODE) == 1,
          "synchronous mode accepted");
    CHECK(set(e, 8000, 0, SN_TM_HYBRID_PHYSICS_MODE, 1, &err) == SN_OK &&
          set(e, 8000, 0, SN_TM_HYBRID_PHYSICS_RADIUS, 120, &err) == SN_OK &&
          set(e, 8000, 0, SN_TM_RESPAWN_DORMANT_VEHICLES, 1, &err) == SN_OK && get(e, 0, a, SN_TM_HYBRID_PHYSICS_RADIUS) == 120,
          "hybrid mode accepted: %s", err.msg);
    CHECK(sn_engine_tm_set_random_device_seed(e, 8000, 42, &err) == SN_OK, "%s", err.msg);
    /* Own values outlive set_autopilot(false). */
    CHECK(sn_engine_set_autopilot(e, a, false, NULL, &err) == SN_OK && sn_engine_tm_port_of(e, a) == 0, "a off");
    CHECK(autopilot(e, a, 0) == SN_OK && get(e, 0, a, SN_TM_PERCENTAGE_SPEED_DIFFERENCE) == -20, "a's -20 %% again");

    /* 2. Absurd values: refused, with a sentence; the value in force unchanged. */
    struct { uint32_t port, v; sn_tm_param p; double x; sn_status want; } bad[] = {
        {0, a, SN_TM_DISTANCE_TO_LEADING_VEHICLE, -1, SN_E_RANGE},
        {0, a, SN_TM_DISTANCE_TO_LEADING_VEHICLE, NAN, SN_E_RANGE},
        {8000, 0, SN_TM_DISTANCE_TO_LEADING_VEHICLE, INFINITY, SN_E_RANGE},
        {0, a, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 1e9, SN_E_RANGE},
        {8000, 0, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, -101, SN_E_RANGE},
        {0, a, SN_TM_IGNORE_LIGHTS_PERCENTAGE, 1e9, SN_E_RANGE},
        {0, a, SN_TM_IGNORE_WALKERS_PERCENTAGE, -0.5, SN_E_RANGE},
        {0, a, SN_TM_AUTO_LANE_CHANGE, 2, SN_E_RANGE},
        {0, a, SN_TM_DESIRED_SPEED, 1e6, SN_E_RANGE},
        {8000, 0, SN_TM_DESIRED_SPEED, 30, SN_E_INVALID},     /* per vehicle only */
        {0, a, SN_TM_HYBRID_PHYSICS_MODE, 1, SN_E_INVALID},   /* the Traffic Manager's only */
        {80, 0, SN_TM_DISTANCE_TO_LEADING_VEHICLE, 3, SN_E_RANGE}, /* port below 1024 */
        {8000, 0, (sn_tm_param)99, 1, SN_E_INVALID},
        {0, 1u << 30, SN_TM_DISTANCE_TO_LEADING_VEHICLE, 3, SN_E_NOT_FOUND},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sn_error e2 = {0};
        sn_status st = set(e, bad[i].port, bad[i].v, bad[i].p, bad[i].x, &e2);
        CHECK(st == bad[i].want && e2.msg[0], "bad value %zu: status %d (want %d): %s", i, st, bad[i].want, e2.msg);
    }
    CHECK(get(e, 0, a, SN_TM_DISTANCE_TO_LEADING_VEHICLE) == 6 && get(e, 0, a, SN_TM_IGNORE_LIGHTS_PERCENTAGE) == 12.5,
          "values in force unchanged by refusals");
    sn_autopilot_options o = {sizeof o, -1, NAN, NAN, NAN, 80};
    CHECK(sn_engine_set_autopilot(e, b, true, &o, &err) == SN_E_RANGE, "tm_port 80 refused");
    sn_vec3 nanpt = {NAN, 0, 0};
    CHECK(sn_engine_tm_set_path(e, a, &nanpt, 1, &err) == SN_E_RANGE, "a NaN path point refused");
    sn_tm_turn t9 = (sn_tm_turn)9;
    CHECK(sn_engine_tm_set_route(e, a, &t9, 1, &err) == SN_E_RANGE, "turn 9 refused");
    uint32_t light = 0;
    CHECK(sn_engine_tm_force_lane_change(e, 1u << 30, true, &err) == SN_E_NOT_FOUND, "force on no actor");
    CHECK(sn_engine_vehicle_traffic_light(e, 1u << 30, &light, &err) == SN_E_NOT_FOUND, "light of no actor");
    size_t nl = 0;
    sn_waypoint w0 = lane_of(e, a);
    CHECK(sn_engine_traffic_lights_from_waypoint(e, &w0, -5, NULL, 0, &nl, &err) == SN_E_RANGE, "negative distance");

    /* shut_down: its vehicles stop driving, its settings go. */
    step(e, 20);
    CHECK(sn_engine_tm_shut_down(e, 9000, &err) == SN_OK && sn_engine_tm_port_of(e, c) == 0, "9000 shut down");
    CHECK(sn_engine_tm_port_of(e, a) == 8000, "8000's vehicles drive on");
    sn_engine_destroy(e);
}

/* ---- 3 ---- */

static void test_speed_difference(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/highway.xodr", maps);
    sn_engine *e = load_map("tm_speed.yaml", map);
    sn_error err = {0};
    uint32_t fast = spawn_at(e, wp_xodr(e, 1, -2, 30).transform), slow = spawn_at(e, wp_xodr(e, 1, -3, 30).transform);
    CHECK(autopilot(e, fast, 0) == SN_OK && autopilot(e, slow, 0) == SN_OK, "autopilots");
    for (int i = 0; i < 2; i++)
        CHECK(set(e, 0, i ? slow : fast, SN_TM_AUTO_LANE_CHANGE, 0, &err) == SN_OK, "%s", err.msg);
    CHECK(set(e, 0, fast, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 0, &err) == SN_OK, "%s", err.msg);
    CHECK(set(e, 0, slow, SN_TM_PERCENTAGE_SPEED_DIFFERENCE, 50, &err) == SN_OK, "%s", err.msg);
    step(e, 400); /* 20 s: both cruise */
    double vf = 0, vs = 0;
    for (int i = 0; i < 60; i++) { /* the mean over 3 s */
        step(e, 1);
        vf += speed_of(e, fast) / 60, vs += speed_of(e, slow) / 60;
    }
    fprintf(stderr, "  cruising: %.2f m/s at 0 %%, %.2f m/s at 50 %% (ratio %.3f; limit 33.33)\n", vf, vs, vs / vf);
    CHECK(vf > 25, "the 0 %% vehicle cruises near 120 km/h: %.2f m/s", vf);
    CHECK(fabs(vs / vf - 0.5) < 0.05, "50 %% halves the cruising speed: %.2f / %.2f = %.3f", vs, vf, vs / vf);
    sn_engine_destroy(e);
}

/* ---- 4, 8 ---- */

/* A light of the town and the lane 40 m before its stop line. */
static uint32_t pick_light(sn_engine *e, sn_waypoint *stop, sn_waypoint *before, double back)
{
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        uint32_t id = sn_engine_traffic_light_at(e, i);
        size_t ns = 0;
        sn_error err = {0};
        if (sn_engine_traffic_light_stops(e, id, stop, 1, &ns, &err) != SN_OK || ns != 1)
            continue;
        sn_waypoint prev[8];
        size_t k = 0;
        if (sn_map_previous(sn_engine_map(e), stop, back, prev, 8, &k, NULL) == SN_OK && k >= 1 && !prev[0].is_junction) {
            *before = prev[0];
            return id;
        }
    }
    return 0;
}

static double along_to(sn_vec3 p, const sn_waypoint *stop)
{
    double yaw = stop->transform.rotation.yaw * M_PI / 180;
    return (stop->transform.location.x - p.x) * cos(yaw) + (stop->transform.location.y - p.y) * sin(yaw);
}

static void test_frozen_red(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    sn_engine *e = load_map("tm_red.yaml", map);
    sn_error err = {0};
    sn_waypoint stop, before;
    uint32_t light = pick_light(e, &stop, &before, 40);
    CHECK(light != 0, "a light with a stop line and 40 m of lane before it");
    if (!light) {
        sn_engine_destroy(e);
        return;
    }
    /* 8. The lights ahead of a waypoint. */
    uint32_t got[8];
    size_t n = 0;
    CHECK(sn_engine_traffic_lights_from_waypoint(e, &before, 45, got, 8, &n, &err) == SN_OK && n >= 1 && got[0] == light,
          "the light 40 m ahead within 45 m: %zu found, first %u (want %u)", n, n ? got[0] : 0, light);
    CHECK(sn_engine_traffic_lights_from_waypoint(e, &before, 30, got, 8, &n, &err) == SN_OK && n == 0,
          "none within 30 m: %zu", n);

    /* Every light red and frozen (CARLA's freeze_all_traffic_lights after set_state). */
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_RED, NULL);
    CHECK(sn_engine_traffic_light_freeze(e, 0, true, &err) == SN_OK, "freeze all");
    uint32_t car = spawn_at(e, before.transform);
    CHECK(autopilot(e, car, 0) == SN_OK, "autopilot");
    CHECK(set(e, 0, car, SN_TM_UPDATE_VEHICLE_LIGHTS, 1, &err) == SN_OK, "%s", err.msg);
    uint32_t seen = 0;
    CHECK(sn_engine_vehicle_traffic_light(e, car, &seen, &err) == SN_OK && seen == 0, "40 m away: at no light (%u)", seen);
    double min_gap = INFINITY, max_v_late = 0;
    int at_light = 0;
    for (int f = 0; f < 1200; f++) { /* 60 s */
        step(e, 1);
        sn_actor_info ci = info_of(e, car);
        double gap = along_to(ci.transform.location, &stop) - ci.bounding_box.extent.x;
        min_gap = fmin(min_gap, gap);
        if (f > 400)
            max_v_late = fmax(max_v_late, speed_of(e, car));
        if (f == 1199) {
            sn_engine_vehicle_traffic_light(e, car, &seen, &err);
            at_light = seen == light;
        }
    }
    fprintf(stderr, "  frozen red: nearest front bumper %.2f m before the stop line, top speed after 20 s %.2f m/s\n",
            min_gap, max_v_late);
    CHECK(min_gap > 0, "the front bumper never crossed the stop line (%.2f m)", min_gap);
    CHECK(min_gap < 6, "it drove up to the line (%.2f m)", min_gap);
    CHECK(max_v_late < 0.3, "it stood still from 20 s on (%.2f m/s)", max_v_late);
    CHECK(at_light, "get_traffic_light names the red light it waits at (%u, want %u)", seen, light);
    uint32_t ls = 0;
    sn_engine_get_vehicle_light_state(e, car, &ls, NULL);
    CHECK(ls & SN_LIGHT_BRAKE, "update_vehicle_lights: brake lights on while it waits (0x%x)", ls);
    /* Green: through. */
    sn_engine_traffic_light_set_state(e, light, SN_TL_GREEN, NULL);
    step(e, 200);
    sn_actor_info ci = info_of(e, car);
    CHECK(along_to(ci.transform.location, &stop) < 0, "after green it passed the line");
    sn_engine_destroy(e);
}

/* ---- 5 ---- */

static double turned_after_plan(sn_tm_turn turn, bool by_path);

static double turned_after(sn_tm_turn turn) { return turned_after_plan(turn, false); }

static double turned_after_plan(sn_tm_turn turn, bool by_path)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    sn_engine *e = load_map("tm_route.yaml", map);
    sn_error err = {0};
    sn_waypoint stop, before;
    uint32_t light = pick_light(e, &stop, &before, 40);
    sn_engine_traffic_light_freeze(e, 0, true, &err);
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_GREEN, NULL);
    uint32_t car = spawn_at(e, before.transform);
    double yaw0 = before.transform.rotation.yaw;
    CHECK(light && autopilot(e, car, 0) == SN_OK, "autopilot");
    if (by_path) {
        /* set_path: a point 25 m past the stop line on the branch that turns as asked. */
        sn_waypoint nx[16];
        size_t k = 0;
        sn_map_next(sn_engine_map(e), &stop, 40, nx, 16, &k, NULL);
        double want = turn == SN_TM_LEFT ? -90 : turn == SN_TM_RIGHT ? 90 : 0;
        size_t best = 0;
        for (size_t i = 1; i < k && i < 16; i++) {
            double di = fabs(fmod(nx[i].transform.rotation.yaw - yaw0 - want + 540.0, 360.0) - 180.0);
            double db = fabs(fmod(nx[best].transform.rotation.yaw - yaw0 - want + 540.0, 360.0) - 180.0);
            if (di < db)
                best = i;
        }
        CHECK(k >= 2, "a fork after the stop line (%zu branches)", k);
        CHECK(sn_engine_tm_set_path(e, car, &nx[best].transform.location, 1, &err) == SN_OK, "%s", err.msg);
    } else
        CHECK(sn_engine_tm_set_route(e, car, &turn, 1, &err) == SN_OK, "%s", err.msg);
    CHECK(set(e, 0, car, SN_TM_UPDATE_VEHICLE_LIGHTS, 1, &err) == SN_OK, "%s", err.msg);
    /* Its heading 1 s after it leaves the junction (within 30 s); its blinkers before it. */
    bool inside = false;
    int after = -1;
    uint32_t lights_seen = 0;
    for (int f = 0; f < 600 && after < 20; f++) {
        step(e, 1);
        uint32_t ls = 0;
        sn_engine_get_vehicle_light_state(e, car, &ls, NULL);
        if (!inside)
            lights_seen |= ls;
        bool j = lane_of(e, car).is_junction;
        if (j)
            inside = true;
        else if (inside && after < 0)
            after = 0;
        if (after >= 0)
            after++;
    }
    CHECK(after >= 20, "through the junction within 30 s");
    uint32_t want = turn == SN_TM_LEFT ? SN_LIGHT_LEFT_BLINKER : turn == SN_TM_RIGHT ? SN_LIGHT_RIGHT_BLINKER : 0;
    CHECK((lights_seen & (SN_LIGHT_LEFT_BLINKER | SN_LIGHT_RIGHT_BLINKER)) == want,
          "update_vehicle_lights: blinkers 0x%x before turn %d (want 0x%x)", lights_seen, (int)turn, want);
    double d = fmod(info_of(e, car).transform.rotation.yaw - yaw0 + 540.0, 360.0) - 180.0;
    sn_engine_destroy(e);
    return d;
}

static void test_route(void)
{
    double l = turned_after(SN_TM_LEFT), r = turned_after(SN_TM_RIGHT), s = turned_after(SN_TM_STRAIGHT);
    fprintf(stderr, "  set_route: heading change LEFT %.1f, RIGHT %.1f, STRAIGHT %.1f degrees\n", l, r, s);
    CHECK(fabs(l + 90) < 20, "LEFT turns -90: %.1f", l);
    CHECK(fabs(r - 90) < 20, "RIGHT turns +90: %.1f", r);
    CHECK(fabs(s) < 20, "STRAIGHT keeps its heading: %.1f", s);
    double pl = turned_after_plan(SN_TM_LEFT, true), pr = turned_after_plan(SN_TM_RIGHT, true),
           ps = turned_after_plan(SN_TM_STRAIGHT, true);
    fprintf(stderr, "  set_path through the left / right / straight exit: heading change %.1f, %.1f, %.1f\n", pl, pr, ps);
    CHECK(fabs(pl + 90) < 20 && fabs(pr - 90) < 20 && fabs(ps) < 20, "set_path takes the branch of its point");
}

/* ---- 6 ---- */

static void test_off_road(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    sn_engine *e = load_map("tm_offroad.yaml", map);
    const sn_map *m = sn_engine_map(e);
    sn_map_info mi = {.struct_size = sizeof mi};
    sn_map_info_get(m, &mi, NULL);
    /* 80 m beyond the map's edge: no lane within 50 m. */
    sn_transform t = {{mi.bounds_min.x - 80, (mi.bounds_min.y + mi.bounds_max.y) / 2, 0}, {0, 0, 0}};
    sn_waypoint w;
    CHECK(sn_map_waypoint(m, t.location, true, SN_LANE_DRIVING, &w, NULL) == SN_E_NOT_FOUND, "no lane within 50 m");
    uint32_t car = spawn_at(e, t);
    t.location.y += 10;
    uint32_t car2 = spawn_at(e, t);
    warnings = 0;
    CHECK(autopilot(e, car, 0) == SN_OK, "set_autopilot off the road succeeds");
    CHECK(autopilot(e, car2, 0) == SN_OK, "a second one too");
    CHECK(warnings == 1, "one warning for the run, got %d: %s", warnings, last_warning);
    CHECK(strstr(last_warning, "drives there") != NULL, "it says what happens: %s", last_warning);
    step(e, 800); /* 40 s */
    sn_vec3 p = info_of(e, car).transform.location;
    CHECK(sn_map_waypoint(m, p, false, SN_LANE_DRIVING, &w, NULL) == SN_OK, "on a driving lane after 40 s at (%.1f, %.1f)",
          p.x, p.y);
    /* And drives on (a red light may hold it for up to a cycle, 60 s). */
    double moved = 0;
    for (int i = 0; i < 1400; i++) {
        step(e, 1);
        sn_vec3 q = info_of(e, car).transform.location;
        moved = fmax(moved, hypot(q.x - p.x, q.y - p.y));
    }
    CHECK(moved > 30, "and drives on along the lanes (%.1f m in 70 s)", moved);
    sn_engine_destroy(e);
}

/* ---- 7 ---- */

static void test_force_lane_change(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/highway.xodr", maps);
    sn_engine *e = load_map("tm_force.yaml", map);
    sn_error err = {0};
    uint32_t car = spawn_at(e, wp_xodr(e, 1, -2, 30).transform);
    CHECK(autopilot(e, car, 0) == SN_OK, "autopilot");
    set(e, 0, car, SN_TM_AUTO_LANE_CHANGE, 0, &err);
    set(e, 0, car, SN_TM_DESIRED_SPEED, 60, &err);
    step(e, 200);
    CHECK(lane_of(e, car).lane_id == -2, "still on lane -2 without a request");
    CHECK(sn_engine_tm_force_lane_change(e, car, true, &err) == SN_OK, "%s", err.msg);
    int lane = -2, frames = 0;
    for (; frames < 100 && lane == -2; frames++) { /* 5 s */
        step(e, 1);
        lane = lane_of(e, car).lane_id;
    }
    fprintf(stderr, "  force_lane_change right: lane %d after %.2f s\n", lane, frames * 0.05);
    CHECK(lane == -3, "force_lane_change(right) moved it to lane -3 within 5 s (lane %d)", lane);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_tm TMP PLUGINS DATA MAPS\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2], data = argv[3], maps = argv[4];
    test_settings();
    test_speed_difference();
    test_frozen_red();
    test_route();
    test_off_road();
    test_force_lane_change();
    return CHECK_DONE();
}
