/* Two-wheelers on the map autopilot plan with the brakes they have (docs/traffic.md, "Two-wheelers";
** engine/traffic/traffic.c's brake_limits, from sn_vehicle_brake_decel). A bicycle brakes at
** about 2.8 m/s^2 and a sport motorcycle at 5.2, where the planner's constants assume a car's
** (3 m/s^2 for leaders and stop lines, 7 to decide a red light can still be stopped for); before,
** a bicycle rode into the back of a van stopping in its queue on Town10HD and crossed red stop lines.
** On the town map (tests/data/town.xodr), the lane heading +x towards the junction at the origin:
**   - a red light (all lights frozen red): each two-wheeler, coming at its cruising speed from
**     80 m before the line, stops with its front before the stop line; no red-light crossing;
**   - a leader that brakes: a `vehicle.mercedes.sprinter` (the van of Town10HD) on the autopilot
**     25 m ahead, both at 8 m/s, whose desired speed drops to 0 after 3 s: the two-wheeler stops
**     behind it more than 0.3 m away (bumper to bumper along the lane; a braking bicycle dips its
**     nose, which reached the van from 0.2 m) and no collision between autopilots is counted;
**   - a car (`vehicle.tesla.model3`) in the same places stops before the line and keeps its gap.
** argv[1]: temp folder, argv[2]: tests/data. */
#include "../check.h"
#include "../testutil.h"

#include "../../engine/sim/engine.h"

#include <math.h>

static const char *tmp, *data;

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

/* All lights red and frozen; the x of the stop line on the lane y = 1.75 heading +x, nearest after x0. */
static double freeze_red(sn_engine *e, double x0)
{
    sn_error err = {0};
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_RED, &err);
    CHECK(sn_engine_traffic_light_freeze(e, 0, true, &err) == SN_OK, "freeze: %s", err.msg);
    double line_x = INFINITY;
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++) {
        sn_waypoint wp[8];
        size_t n = 0;
        sn_engine_traffic_light_stops(e, sn_engine_traffic_light_at(e, i), wp, 8, &n, NULL);
        for (size_t k = 0; k < n && k < 8; k++)
            if (fabs(wp[k].transform.location.y - 1.75) < 1 && wp[k].transform.location.x > x0 &&
                fabs(wp[k].transform.rotation.yaw) < 10)
                line_x = fmin(line_x, wp[k].transform.location.x);
    }
    CHECK(isfinite(line_x), "a stop line ahead");
    return line_x;
}

/* The rider comes at v0 m/s from 80 m before the line; 30 s. */
static void red_light(const char *bp, double v0)
{
    char text[1024];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: v, blueprint: %s, transform: {location: [-100, 1.75, 0.3]}, velocity: [%g, 0, 0],\n"
             "     autopilot: {}}\n",
             data, bp, v0);
    sn_engine *e = tu_load(tmp, tu_write(tmp, "twowheel_red.yaml", text));
    const double line_x = freeze_red(e, -100);
    double front_max = -INFINITY, v_at_start = 0;
    for (int f = 0; f < 600; f++) {
        steps(e, 1);
        sn_actor_info a = tu_actor(e, "v");
        front_max = fmax(front_max, a.transform.location.x + a.bounding_box.extent.x);
        if (f == 20)
            v_at_start = a.velocity.x;
    }
    sn_traffic_health t = totals(e);
    fprintf(stderr, "%s at %.1f m/s (%.1f after 1 s) to a red line at x %.1f: front reached %.2f, %u crossings\n", bp,
            v0, v_at_start, line_x, front_max, t.red_light_crossings);
    CHECK(v_at_start > v0 - 2.5, "%s keeps its speed at first: %.1f m/s", bp, v_at_start);
    CHECK(front_max < line_x, "%s stops before the red stop line at x %.2f: its front reached %.2f", bp, line_x,
          front_max);
    CHECK(t.red_light_crossings == 0, "%s: %u red-light crossings, want 0", bp, t.red_light_crossings);
    sn_engine_destroy(e);
}

/* The van 25 m ahead of the rider, both at 8 m/s on map autopilots along the lane (no light: all
** frozen green); after 3 s the van's desired speed drops to 0. 25 s. */
static void braking_leader(const char *bp)
{
    char text[1536];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground}\n"
             "  - {name: lead, blueprint: vehicle.mercedes.sprinter, transform: {location: [-75, 1.75, 0.3]},\n"
             "     velocity: [8, 0, 0],\n"
             "     autopilot: {target_speed: 8}}\n"
             "  - {name: v, blueprint: %s, transform: {location: [-100, 1.75, 0.3]}, velocity: [8, 0, 0],\n"
             "     autopilot: {target_speed: 8}}\n",
             data, bp);
    sn_engine *e = tu_load(tmp, tu_write(tmp, "twowheel_lead.yaml", text));
    sn_error err = {0};
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_GREEN, &err);
    CHECK(sn_engine_traffic_light_freeze(e, 0, true, &err) == SN_OK, "freeze: %s", err.msg);
    const uint32_t lead = sn_engine_find_actor(e, "lead");
    double min_gap = INFINITY, v_end = 1;
    for (int f = 0; f < 500; f++) {
        if (f == 60)
            CHECK(sn_engine_tm_set(e, 8000, lead, SN_TM_DESIRED_SPEED, 0, &err) == SN_OK, "desired speed: %s", err.msg);
        steps(e, 1);
        sn_actor_info a = tu_actor(e, "v"), b = tu_actor(e, "lead");
        const double gap =
            (b.transform.location.x - b.bounding_box.extent.x) - (a.transform.location.x + a.bounding_box.extent.x);
        min_gap = fmin(min_gap, gap);
        v_end = hypot(a.velocity.x, a.velocity.y);
    }
    sn_traffic_health t = totals(e);
    fprintf(stderr, "%s behind a braking van: smallest gap %.2f m, %.2f m/s at the end, %u collisions\n", bp, min_gap,
            v_end, t.autopilot_collisions);
    CHECK(min_gap > 0.3, "%s never touches the van braking ahead: smallest gap %.2f m", bp, min_gap);
    CHECK(v_end < 0.3, "%s stands behind it at the end: %.2f m/s", bp, v_end);
    CHECK(t.autopilot_collisions == 0, "%s: %u collisions between autopilots", bp, t.autopilot_collisions);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_traffic_twowheel TMP DATA\n");
        return 2;
    }
    tmp = argv[1], data = argv[2];
    const char *bps[] = {"vehicle.diamondback.century", "vehicle.bh.crossbike", "vehicle.gazelle.omafiets",
                         "vehicle.yamaha.yzf", "vehicle.vespa.zx125", "vehicle.harley-davidson.low_rider",
                         "vehicle.tesla.model3"};
    for (size_t i = 0; i < sizeof bps / sizeof *bps; i++) {
        red_light(bps[i], i < 3 ? 7.0 : 12.0);
        braking_leader(bps[i]);
    }
    return check_failures ? 1 : 0;
}
