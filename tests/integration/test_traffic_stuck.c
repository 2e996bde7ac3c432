/* CARLA's Traffic Manager removes a stuck vehicle (docs/traffic.md, "Stuck vehicles";
** engine/traffic/stuck.c, after CARLA's ALSM.cpp): the vehicle it drives that has been idle
** longest (no faster than 0.8 m/s) is destroyed after 90 s, or 180 s at a red light, at most one
** every 10 s, never a hero nor a vehicle it does not drive. On the town map (tests/data/town.xodr),
** the lane y = 1.75 heading +x:
**   - blocked: an autopilot car 16 m behind a wall across its lane (static.prop.box), the lights
**     frozen green: the car is gone between 90 s and 100 s (the wall stays);
**   - a hero (role_name hero) blocked the same way is there after 120 s;
**   - at 1 and 2 threads: the same frame of removal, the hero's final pose byte for byte;
**   - at a red light (all frozen red) it stands at the line: there at 170 s (over 90 s idle),
**     gone by 190 s (180 s at a red light);
**   - a collision sensor attached to the blocked car goes with it, on the same frame, as it does
**     when a script calls actor.destroy() on its parent; the run steps on after it.
** argv[1]: temp folder, argv[2]: tests/data, argv[3]: the collision plugin's folder. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"

#include <math.h>
#include <string.h>

static const char *tmp, *data, *plugins;

static void freeze(sn_engine *e, sn_traffic_light_state s)
{
    sn_error err = {0};
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), s, &err);
    CHECK(sn_engine_traffic_light_freeze(e, 0, true, &err) == SN_OK, "freeze: %s", err.msg);
}

typedef struct outcome {
    double gone_at;      /* s at which "v" was gone, INFINITY: never */
    double sensor_gone_at; /* the same for its collision sensor "v_col" */
    bool wall_alive;
    sn_actor_info v;      /* "v" at the end, when it is there */
} outcome;

/* "v" on the autopilot at x0 (role `role`), a wall across its lane at x = -80 when `wall`; lights frozen
** `light`; runs `seconds` at 0.05 s a frame on `threads` threads. */
static outcome run(double x0, const char *role, bool wall, sn_traffic_light_state light, double seconds, int threads)
{
    char text[2048];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: v, blueprint: vehicle.tesla.model3, transform: {location: [%g, 1.75, 0.3]},\n"
             "     attributes: {role_name: %s}, autopilot: {}}\n"
             "%s"
             "sensors:\n  - {name: v_col, blueprint: sensor.other.collision, attach_to: v}\n",
             data, x0, role,
             wall ? "  - {name: wall, blueprint: static.prop.box, transform: {location: [-80, 1.75, 1.5]},\n"
                    "     attributes: {extent: \"0.5,3,1.5\"}}\n"
                  : "");
    sn_engine *e = tu_load_threads(plugins, tu_write(tmp, "stuck.yaml", text), threads);
    freeze(e, light);
    outcome o = {.gone_at = INFINITY, .sensor_gone_at = INFINITY};
    CHECK(sn_engine_find_actor(e, "v_col") != 0, "the collision sensor is spawned on v");
    sn_error err = {0};
    const int frames = (int)llround(seconds / 0.05);
    for (int f = 1; f <= frames; f++) {
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
        if (!isfinite(o.gone_at) && !sn_engine_find_actor(e, "v"))
            o.gone_at = f * 0.05;
        if (!isfinite(o.sensor_gone_at) && !sn_engine_find_actor(e, "v_col"))
            o.sensor_gone_at = f * 0.05;
    }
    o.wall_alive = sn_engine_find_actor(e, "wall") != 0;
    memset(&o.v, 0, sizeof o.v);
    o.v.struct_size = sizeof o.v;
    if (sn_engine_find_actor(e, "v"))
        sn_engine_actor_get(e, sn_engine_find_actor(e, "v"), &o.v);
    sn_engine_destroy(e);
    return o;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_traffic_stuck TMP DATA PLUGINS\n");
        return 2;
    }
    tmp = argv[1], data = argv[2], plugins = argv[3];

    outcome b1 = run(-96, "autopilot", true, SN_TL_GREEN, 105, 1);
    fprintf(stderr, "blocked: gone at %.2f s\n", b1.gone_at);
    CHECK(b1.gone_at >= 90 && b1.gone_at <= 100, "a blocked autopilot car is removed between 90 s and 100 s: %.2f s",
          b1.gone_at);
    CHECK(b1.wall_alive, "the wall stays");
    CHECK(b1.sensor_gone_at == b1.gone_at, "the car's collision sensor goes with it: at %.2f s, the car at %.2f s",
          b1.sensor_gone_at, b1.gone_at);
    outcome b2 = run(-96, "autopilot", true, SN_TL_GREEN, 105, 2);
    CHECK(b2.gone_at == b1.gone_at, "2 threads: removed at %.2f s, 1 thread at %.2f s", b2.gone_at, b1.gone_at);

    outcome h1 = run(-96, "hero", true, SN_TL_GREEN, 120, 1);
    fprintf(stderr, "hero blocked: gone at %.2f s, at x %.2f\n", h1.gone_at, h1.v.transform.location.x);
    CHECK(!isfinite(h1.gone_at), "a hero is never removed: gone at %.2f s", h1.gone_at);
    CHECK(!isfinite(h1.sensor_gone_at), "the hero's sensor stays: gone at %.2f s", h1.sensor_gone_at);
    CHECK(h1.v.transform.location.x > -96 && h1.v.transform.location.x < -80, "the hero stands before the wall: x %.2f",
          h1.v.transform.location.x);
    outcome h2 = run(-96, "hero", true, SN_TL_GREEN, 120, 2);
    CHECK(!isfinite(h2.gone_at) && memcmp(&h1.v.transform, &h2.v.transform, sizeof h1.v.transform) == 0 &&
              memcmp(&h1.v.velocity, &h2.v.velocity, sizeof h1.v.velocity) == 0,
          "the hero's pose after 120 s is the same at 1 and 2 threads, byte for byte");

    outcome r1 = run(-40, "autopilot", false, SN_TL_RED, 170, 1);
    fprintf(stderr, "at a red light, 170 s: gone at %.2f s\n", r1.gone_at);
    CHECK(!isfinite(r1.gone_at), "a car waiting at a red light stays past 90 s: gone at %.2f s", r1.gone_at);
    outcome r2 = run(-40, "autopilot", false, SN_TL_RED, 190, 1);
    fprintf(stderr, "at a red light, 190 s: gone at %.2f s\n", r2.gone_at);
    CHECK(r2.gone_at >= 170 && r2.gone_at <= 190, "a car at a red light is removed after 180 s idle: %.2f s",
          r2.gone_at);
    return check_failures ? 1 : 0;
}
