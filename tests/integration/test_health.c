/* Traffic health (engine/traffic/health.c, docs/traffic.md "Traffic health") against scenes
** whose counts are known:
**   - red lights, all frozen red on the town map (tests/data/town.xodr): a vehicle with
**     ignore_lights_percentage 100 crosses the stop line ahead of it, counted once, in the frame
**     its front passes the stop waypoint; one with 0 stops before it, counted 0;
**   - standing: an autopilot vehicle held at target speed 0 stands (moved < 1 m), one driving
**     does not, a vehicle without an autopilot is not counted; a minute closes a window;
**   - flipped: a vehicle spawned upside down and one on its side are counted, an upright one not;
**   - collisions between autopilot vehicles: two route autopilots driven into each other are one
**     collision however many frames they touch; an autopilot into a parked car is none;
**   - the autopilot's notes (sn_health_note_deadlock / _lane_change) land in the frame's window;
**   - sn_vehicle_brake_decel (what the autopilot may plan with): every vehicle blueprint braking
**     fully from 10 m/s stops within v^2 / (2 decel);
**   - bad calls: NULL, a window past the end, a too small struct_size.
** argv[1]: temp folder, argv[2]: tests/data. Linked with the engine's core for the notes. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"
#include "../../engine/traffic/health.h"

#include <math.h>

static const char *tmp, *data;

static sn_engine *load_text(const char *name, const char *text)
{
    return tu_load(tmp, tu_write(tmp, name, text));
}

static void steps(sn_engine *e, int n)
{
    sn_error err = {0};
    for (int i = 0; i < n; i++)
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
}

static sn_traffic_health totals(sn_engine *e)
{
    sn_traffic_health t = {.struct_size = sizeof t};
    sn_error err = {0};
    CHECK(sn_engine_traffic_health(e, &t, &err) == SN_OK, "totals: %s", err.msg);
    return t;
}

/* The town's hero start: 30 m before the junction at the origin, heading +x. All lights red. */
static void red_light(double ignore, uint32_t want)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [-30, 1.75, 0.3]},\n"
             "     autopilot: {ignore_lights_percentage: %g}}\n",
             data, ignore);
    sn_engine *e = load_text("red.yaml", text);
    sn_error err = {0};
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        uint32_t id = sn_engine_traffic_light_at(e, i);
        sn_engine_traffic_light_set_state(e, id, SN_TL_RED, &err);
    }
    CHECK(sn_engine_traffic_light_freeze(e, 0, true, &err) == SN_OK, "freeze: %s", err.msg);
    uint32_t car = sn_engine_find_actor(e, "car");
    /* The stop line ahead: the stop waypoint of a red light on the car's lane, nearest ahead. */
    double line_x = INFINITY;
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        sn_waypoint wp[8];
        size_t n = 0;
        sn_engine_traffic_light_stops(e, sn_engine_traffic_light_at(e, i), wp, 8, &n, NULL);
        for (size_t k = 0; k < n && k < 8; k++)
            if (fabs(wp[k].transform.location.y - 1.75) < 1 && wp[k].transform.location.x > -30 &&
                fabs(wp[k].transform.rotation.yaw) < 10)
                line_x = fmin(line_x, wp[k].transform.location.x);
    }
    CHECK(isfinite(line_x), "a stop line ahead of the car");
    /* Until the car's front has passed the line by 20 m, or 20 s. */
    uint64_t frame_crossed = 0;
    double front_prev = -INFINITY;
    for (int f = 0; f < 400; f++) {
        steps(e, 1);
        sn_actor_info a = tu_actor(e, "car");
        double front = a.transform.location.x + a.bounding_box.extent.x;
        if (front_prev < line_x && front >= line_x)
            frame_crossed = sn_engine_clock(e)->frame;
        front_prev = front;
        if (front > line_x + 20)
            break;
    }
    sn_traffic_health t = totals(e);
    CHECK(t.red_light_crossings == want, "ignore_lights_percentage %g: %u red-light crossings, want %u", ignore,
          t.red_light_crossings, want);
    if (want) {
        CHECK(frame_crossed > 0, "the car's front passed the stop line");
        /* run.json's event names the car, the frame its front passed the line */
        char path[1024];
        snprintf(path, sizeof path, "%s/health.json", tmp);
        FILE *f = fopen(path, "w");
        CHECK(sn_engine_traffic_health_json(e, f, &err) == SN_OK, "json: %s", err.msg);
        fclose(f);
        size_t n;
        char *j = tu_read_file(path, &n);
        char want_ev[128];
        snprintf(want_ev, sizeof want_ev, "\"red_light_events\":[{\"frame\":%llu,\"vehicle\":%u,\"light\":",
                 (unsigned long long)frame_crossed, car);
        CHECK(j && strstr(j, want_ev), "the event: %s in %s", want_ev, j ? j : "(none)");
        free(j);
    } else {
        sn_actor_info a = tu_actor(e, "car");
        CHECK(a.transform.location.x + a.bounding_box.extent.x < line_x && hypot(a.velocity.x, a.velocity.y) < 0.1,
              "with 0 %% it waits before the line: front at %.2f, line at %.2f", a.transform.location.x + 2.3, line_x);
    }
    sn_engine_destroy(e);
}

static void standing_and_notes(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.1, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: held, blueprint: vehicle.sedan, transform: {location: [-30, 1.75, 0.3]}, autopilot: {target_speed: 0}}\n"
             "  - {name: drives, blueprint: vehicle.sedan, transform: {location: [30, -1.75, 0.3], rotation: [0, 180, 0]},\n"
             "     autopilot: {ignore_lights_percentage: 100}}\n"
             "  - {name: parked, blueprint: vehicle.sedan, transform: {location: [50, -50, 0.3]}}\n",
             data);
    sn_engine *e = load_text("stand.yaml", text);
    CHECK(sn_engine_traffic_health_windows(e) == 0, "no window before the first frame");
    steps(e, 10);
    sn_health_note_deadlock(e); /* as the autopilot would, in step 3 of frame 11 */
    sn_health_note_lane_change(e);
    sn_health_note_lane_change(e);
    steps(e, 590); /* 60 s: the first window is whole */
    CHECK(sn_engine_traffic_health_windows(e) == 1, "one window after 60 s: %u", sn_engine_traffic_health_windows(e));
    steps(e, 1);
    sn_health_note_lane_change(e);
    steps(e, 99);
    CHECK(sn_engine_traffic_health_windows(e) == 2, "two windows after 70 s: %u", sn_engine_traffic_health_windows(e));
    sn_traffic_health w0 = {.struct_size = sizeof w0}, w1 = {.struct_size = sizeof w1};
    sn_error err = {0};
    CHECK(sn_engine_traffic_health_window(e, 0, &w0, &err) == SN_OK, "window 0: %s", err.msg);
    CHECK(sn_engine_traffic_health_window(e, 1, &w1, &err) == SN_OK, "window 1: %s", err.msg);
    CHECK(w0.start == 0 && fabs(w0.duration - 60) < 1e-9, "window 0: %g + %g s", w0.start, w0.duration);
    CHECK(w1.start == 60 && fabs(w1.duration - 10) < 1e-6, "window 1 so far: %g + %g s", w1.start, w1.duration);
    CHECK(w0.vehicles == 2 && w0.standing == 1 && w0.crawling == 1,
          "window 0: 2 autopilot vehicles (the parked car is none), the held one standing: %u, %u standing, %u crawling",
          w0.vehicles, w0.standing, w0.crawling);
    sn_actor_info d = tu_actor(e, "drives");
    CHECK(hypot(d.transform.location.x - 30, d.transform.location.y + 1.75) > 50, "the other one drove away");
    CHECK(w0.deadlocks_resolved == 1 && w0.lane_changes == 2, "notes of frame 11 in window 0: %u deadlocks, %u lane changes",
          w0.deadlocks_resolved, w0.lane_changes);
    CHECK(w1.lane_changes == 1 && w1.deadlocks_resolved == 0, "the note of frame 602 in window 1: %u", w1.lane_changes);
    /* (the driving one may by now queue behind the held one) */
    CHECK(w1.vehicles == 2 && w1.standing >= 1, "window 1 so far: %u vehicles, %u standing", w1.vehicles, w1.standing);
    sn_traffic_health t = totals(e);
    CHECK(t.vehicles == 4 && t.standing == w0.standing + w1.standing && t.lane_changes == 3 &&
          fabs(t.duration - 70) < 1e-6,
          "totals as sums: %u vehicle-windows, %u standing, %u lane changes, %g s", t.vehicles, t.standing,
          t.lane_changes, t.duration);
    /* bad calls */
    CHECK(sn_engine_traffic_health_window(e, 2, &w0, &err) == SN_E_RANGE, "window 2 is past the end");
    CHECK(sn_engine_traffic_health(NULL, &t, &err) == SN_E_INVALID, "NULL engine");
    CHECK(sn_engine_traffic_health(e, NULL, &err) == SN_E_INVALID, "NULL out");
    sn_traffic_health small = {.struct_size = 2};
    CHECK(sn_engine_traffic_health(e, &small, &err) == SN_E_INVALID, "struct_size 2");
    /* an older caller's struct gets its own fields only */
    struct { uint32_t struct_size; double start, duration; uint32_t vehicles; uint32_t guard; } old = {
        .struct_size = offsetof(sn_traffic_health, vehicles) + sizeof(uint32_t), .guard = 77};
    CHECK(sn_engine_traffic_health(e, (sn_traffic_health *)&old, &err) == SN_OK && old.vehicles == 4 && old.guard == 77,
          "a short struct: vehicles %u, the rest untouched (%u)", old.vehicles, old.guard);
    sn_engine_destroy(e);
}

/* Standing and crawling are rates, 1 m and 50 m a minute: a window shorter than a minute (the run
** so far, or its last) scales them, so a car that drives off is neither after 2 s (it was counted
** crawling: 5 m is under 50). */
static void short_window_rates(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.1, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: held, blueprint: vehicle.sedan, transform: {location: [-30, 1.75, 0.3]}, autopilot: {target_speed: 0}}\n"
             "  - {name: drives, blueprint: vehicle.sedan, transform: {location: [30, -1.75, 0.3], rotation: [0, 180, 0]},\n"
             "     autopilot: {ignore_lights_percentage: 100}}\n",
             data);
    sn_engine *e = load_text("rates.yaml", text);
    steps(e, 20);
    sn_traffic_health w = {.struct_size = sizeof w};
    sn_error err = {0};
    CHECK(sn_engine_traffic_health_window(e, 0, &w, &err) == SN_OK, "window 0: %s", err.msg);
    sn_actor_info d = tu_actor(e, "drives");
    const double moved = hypot(d.transform.location.x - 30, d.transform.location.y + 1.75);
    CHECK(fabs(w.duration - 2) < 1e-6 && moved > 50 * 2 / 60.0 + 0.5 && moved < 50, "drove %g m in %g s", moved, w.duration);
    CHECK(w.vehicles == 2 && w.standing == 1 && w.crawling == 1,
          "2 s: the held car stands and crawls, the one driving neither (%u vehicles, %u standing, %u crawling)",
          w.vehicles, w.standing, w.crawling);
    sn_engine_destroy(e);
}

static void flipped_and_collisions(void)
{
    sn_engine *e = load_text("flip.yaml",
        "settings: {fixed_delta_seconds: 0.05, seed: 1}\n"
        "actors:\n  - {blueprint: static.ground}\n"
        "  - {name: upside, blueprint: vehicle.sedan, transform: {location: [0, 0, 1.6], rotation: [0, 0, 180]}}\n"
        "  - {name: side, blueprint: vehicle.van, transform: {location: [0, 20, 1.1], rotation: [0, 0, 90]}}\n"
        "  - {name: upright, blueprint: vehicle.sedan, transform: {location: [0, 40, 0]}}\n"
        /* head on: two route autopilots on one line, and one into a parked car */
        "  - {name: a, blueprint: vehicle.sedan, transform: {location: [0, 60, 0]},\n"
        "     autopilot: {route: [[60, 60, 0]], target_speed: 6}}\n"
        "  - {name: b, blueprint: vehicle.sedan, transform: {location: [40, 60, 0], rotation: [0, 180, 0]},\n"
        "     autopilot: {route: [[-20, 60, 0]], target_speed: 6}}\n"
        "  - {name: c, blueprint: vehicle.sedan, transform: {location: [0, 80, 0]},\n"
        "     autopilot: {route: [[60, 80, 0]], target_speed: 6}}\n"
        "  - {name: parked, blueprint: vehicle.sedan, transform: {location: [20, 80, 0]}}\n");
    steps(e, 200);
    sn_traffic_health t = totals(e);
    CHECK(t.flipped == 2, "the upside-down sedan and the van on its side are flipped, the others not: %u", t.flipped);
    CHECK(t.autopilot_collisions == 1, "two autopilots head on are one collision (a parked car is none): %u",
          t.autopilot_collisions);
    sn_actor_info a = tu_actor(e, "a"), b = tu_actor(e, "b");
    CHECK(b.transform.location.x - a.transform.location.x < 6, "a and b met: %.1f m apart",
          b.transform.location.x - a.transform.location.x);
    sn_actor_info c = tu_actor(e, "c");
    CHECK(c.transform.location.x > 14, "c reached the parked car: x %.1f", c.transform.location.x);
    sn_traffic_health w = {.struct_size = sizeof w};
    CHECK(sn_engine_traffic_health_window(e, 0, &w, NULL) == SN_OK && w.flipped == 2 && w.vehicles == 3,
          "window 0: %u flipped, %u autopilot vehicles", w.flipped, w.vehicles);
    sn_engine_destroy(e);
}

/* sn_vehicle_brake_decel, what a planner may count on: every vehicle blueprint braking fully from
** 10 m/s stops within v^2 / (2 decel). */
static void brake_decel(void)
{
    sn_error err = {0};
    sn_blueprints *lib = sn_blueprints_open(&(sn_engine_options){.quiet_plugins = true, .plugin_dir = tmp}, &err);
    for (size_t i = 0; lib && i < sn_blueprints_count(lib); i++) {
        sn_blueprint_info b = {.struct_size = sizeof b};
        if (sn_blueprints_get(lib, i, &b, &err) != SN_OK || b.kind != SN_ACTOR_VEHICLE)
            continue;
        char text[512];
        snprintf(text, sizeof text, "actors:\n  - {blueprint: static.ground}\n"
                 "  - {name: v, blueprint: %s, velocity: [10, 0, 0], control: {brake: 1}}\n", b.id);
        sn_engine *e = load_text("brake.yaml", text);
        const sn_actor *a = sn_world_find(&e->world, sn_engine_find_actor(e, "v"));
        double decel = sn_vehicle_brake_decel(a, 9.81);
        steps(e, 200);
        sn_actor_info v = tu_actor(e, "v");
        double d = v.transform.location.x;
        CHECK(hypot(v.velocity.x, v.velocity.y) < 0.1 && d <= 100 / (2 * decel),
              "%s stops within %.1f m (10 m/s at %.2f m/s^2): %.1f m", b.id, 100 / (2 * decel), decel, d);
        sn_engine_destroy(e);
    }
    sn_blueprints_close(lib);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_health TMP DATA\n");
        return 2;
    }
    tmp = argv[1], data = argv[2];
    red_light(100, 1);
    red_light(0, 0);
    standing_and_notes();
    short_window_rates();
    flipped_and_collisions();
    brake_decel();
    return CHECK_DONE();
}
