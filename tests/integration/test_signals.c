/* Signals bound to lanes as CARLA binds them (docs/traffic.md "Signals on lanes"), signs, and
** speed limits. argv[1]: temp folder, argv[2]: tests/data (town.xodr, signals.xodr: copies of
** maps/). Optional: SENSIM_CARLA_TOWNS=DIR with CARLA's Town*.xodr prints their light counts.
**
** 1. Every light of the town and of signals.xodr has stop lines; on signals.xodr, whose heads
**    name no lane (validity 0..0) and whose <signalReference>s sit on the junction's connecting
**    roads, each light's line is the end of the arm lane that enters the junction (hand-derived
**    below from mapgen's layout), with 3 affected lanes (its three connecting roads) and a
**    trigger box 3 m upstream of the line, 1.5 x lane/4 x 1 m.
** 2. A frozen red light holds an autopilot before its line on signals.xodr.
** 3. The north arm's stop sign: the vehicle comes to rest with its front within 1 m before the
**    line (the end of the arm's lane at the junction: its references on the connecting roads
**    move back onto it, as CARLA's StopSignComponent does), then goes on.
** 4. Speed limits: the autopilot's limit becomes each speed sign's value as it passes it, and it
**    does not drive faster; a parked vehicle reads the sign upstream on its lane, else the road's
**    <speed> record.
** 5. Bad input: a reference to a missing signal, a validity naming a missing lane, a light that
**    names no lane and a junction without connections: one warning each (the light named), the
**    map loads and runs. */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

static const char *tmp, *data;

static sn_engine *load_text(const char *name, const char *text, sn_log_fn log, void *user)
{
    const char *path = tu_write(tmp, name, text);
    sn_error err = {0};
    sn_engine_options o = {.quiet_plugins = true, .threads = 1, .log = log, .log_user = user};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load %s: %s\n", path, err.msg);
        exit(1);
    }
    return e;
}

static sn_engine *load_map(const char *map, const char *actors)
{
    char text[4096];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 60, seed: 1}\nmap: %s\nactors:\n"
             "  - {name: ground, blueprint: static.ground}\n%s",
             map, actors);
    return load_text("signals_scene.yaml", text, NULL, NULL);
}

static void step(sn_engine *e)
{
    sn_error err = {0};
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "FAIL: step: %s\n", err.msg);
        exit(1);
    }
}

static uint32_t actor_named(sn_engine *e, const char *name)
{
    for (uint32_t i = 0; i < sn_engine_actor_count(e); i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        uint32_t id = sn_engine_actor_id_at(e, i);
        if (sn_engine_actor_get(e, id, &a) == SN_OK && strcmp(a.name, name) == 0)
            return id;
    }
    return 0;
}

/* ---- 1 ---- */

static void test_binding(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    sn_engine *e = load_map(map, "");
    uint32_t n = sn_engine_traffic_light_count(e), with = 0;
    for (uint32_t i = 0; i < n; i++) {
        sn_traffic_light_info li = {.struct_size = sizeof li};
        sn_engine_traffic_light_info(e, sn_engine_traffic_light_at(e, i), &li, NULL);
        with += li.n_stops == 1 && li.n_affected_lanes == 1;
    }
    CHECK(n == 36 && with == 36, "town: %u of %u lights with one stop line and one affected lane", with, n);
    sn_engine_destroy(e);

    snprintf(map, sizeof map, "%s/signals.xodr", data);
    e = load_map(map, "");
    /* mapgen's signals map: Street_W (road 1, x -90..-10, east), Street_M (2), Arm_S_0 (4,
    ** y -50..-10, north) and Arm_N_0 (5, y 10..50, north) meet at junction 1000 (x = 0). The lane
    ** entering the junction from each: road 1 lane -1 ends at s = 80, road 2 lane 1 at s = 0,
    ** road 4 lane -1 at s = 40, road 5 lane 1 at s = 0. */
    const struct { int road, lane; double s; } want[4] = {{1, -1, 80}, {2, 1, 0}, {4, -1, 40}, {5, 1, 0}};
    bool seen[4] = {0};
    n = sn_engine_traffic_light_count(e);
    CHECK(n == 4, "signals.xodr: 4 lights, got %u", n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = sn_engine_traffic_light_at(e, i);
        sn_traffic_light_info li = {.struct_size = sizeof li};
        sn_engine_traffic_light_info(e, id, &li, NULL);
        sn_waypoint st[4], aff[8];
        sn_trigger_volume tv[4];
        size_t ns = 0, na = 0, nt = 0;
        sn_error err = {0};
        CHECK(sn_engine_traffic_light_stops(e, id, st, 4, &ns, &err) == SN_OK && ns == 1, "light %d: %zu stop lines",
              li.opendrive_id, ns);
        CHECK(sn_engine_traffic_light_affected_lanes(e, id, aff, 8, &na, &err) == SN_OK && na == 3,
              "light %d: %zu affected lanes (3 connecting roads)", li.opendrive_id, na);
        CHECK(sn_engine_traffic_light_trigger_volumes(e, id, tv, 4, &nt, &err) == SN_OK && nt == 1,
              "light %d: %zu trigger volumes", li.opendrive_id, nt);
        for (size_t k = 0; k < na; k++)
            CHECK(aff[k].is_junction && aff[k].junction_id == 1000 && aff[k].lane_id == -1,
                  "affected lane on a connecting road of junction 1000: road %d lane %d", aff[k].road_id, aff[k].lane_id);
        if (ns != 1 || nt != 1)
            continue;
        int hit = -1;
        for (int k = 0; k < 4; k++)
            if (st[0].road_id == want[k].road && st[0].lane_id == want[k].lane && fabs(st[0].s - want[k].s) < 1e-6)
                hit = k;
        CHECK(hit >= 0 && !seen[hit], "light %d: stop line at road %d lane %d s %.3f", li.opendrive_id, st[0].road_id,
              st[0].lane_id, st[0].s);
        if (hit >= 0)
            seen[hit] = true;
        sn_vec3 d = {tv[0].location.x - st[0].transform.location.x, tv[0].location.y - st[0].transform.location.y, 0};
        double dist = hypot(d.x, d.y);
        CHECK(fabs(dist - 3.0) < 1e-3, "light %d: trigger box %.3f m from its line (3 m)", li.opendrive_id, dist);
        CHECK(fabs(tv[0].extent.x - 1.5) < 1e-9 && fabs(tv[0].extent.y - 3.5 / 4) < 1e-9 && fabs(tv[0].extent.z - 1) < 1e-9,
              "light %d: box extent %.3f %.3f %.3f", li.opendrive_id, tv[0].extent.x, tv[0].extent.y, tv[0].extent.z);
        /* upstream: the box lies behind the line along the lane's direction of travel */
        double yaw = st[0].transform.rotation.yaw * M_PI / 180;
        CHECK(d.x * cos(yaw) + d.y * sin(yaw) < -2.9, "light %d: box upstream of its line", li.opendrive_id);
    }
    sn_engine_destroy(e);

    /* CARLA's towns (not shipped): how many lights get stop lines. */
    const char *dir = getenv("SENSIM_CARLA_TOWNS");
    static const char *const towns[] = {"Town01", "Town02", "Town04", "Town06", "Town07", "Town10HD"};
    for (int t = 0; dir && t < 6; t++) {
        snprintf(map, sizeof map, "%s/%s.xodr", dir, towns[t]);
        FILE *f = fopen(map, "rb");
        if (!f)
            continue;
        fclose(f);
        e = load_map(map, "");
        uint32_t nl = sn_engine_traffic_light_count(e), w = 0, lines = 0;
        for (uint32_t i = 0; i < nl; i++) {
            sn_traffic_light_info li = {.struct_size = sizeof li};
            sn_engine_traffic_light_info(e, sn_engine_traffic_light_at(e, i), &li, NULL);
            w += li.n_stops > 0;
            lines += li.n_stops;
        }
        fprintf(stderr, "%s: %u of %u lights with stop lines (%u lines)\n", towns[t], w, nl, lines);
        CHECK(w == nl, "%s: every light has stop lines", towns[t]);
        sn_engine_destroy(e);
    }
}

/* ---- 2, 3 ---- */

static double front_along(const sn_actor_info *a, sn_vec3 line, double yaw_deg)
{
    double yaw = yaw_deg * M_PI / 180;
    sn_vec3 c = a->transform.location;
    double along = (c.x - line.x) * cos(yaw) + (c.y - line.y) * sin(yaw);
    return along + a->bounding_box.extent.x; /* > 0: the front is past the line */
}

static void test_red_and_stop(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/signals.xodr", data);
    /* red: eastbound on Street_W (road 1 lane -1: world y = +1.75) at s = 50; the light's line
    ** is x = -10. stop: southbound... the north arm of junction B (road 7, lane 1 at x = 98.25 in
    ** OpenDRIVE, driving toward -y, world +y) at s = 30, 20 m before its junction. */
    sn_engine *e = load_map(map,
                            "  - {name: red, blueprint: vehicle.sedan, transform: {location: [-40, 1.75, 0.5]}, autopilot: {}}\n"
                            "  - {name: stop, blueprint: vehicle.sedan, transform: {location: [98.25, -40, 0.5], rotation: [0, 90, 0]}, autopilot: {}}\n");
    /* Every light red and frozen. */
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_RED, NULL);
    sn_engine_traffic_light_freeze(e, 0, true, NULL);
    uint32_t red = actor_named(e, "red"), stop = actor_named(e, "stop");
    sn_vec3 red_line = {-10, 1.75, 0}, stop_line = {98.25, -10, 0};
    double worst_red = -1e9, rest_red = 1e9, stop_rest = 1e9, stop_after = -1e9;
    bool stop_rested = false;
    for (int f = 0; f < 600; f++) { /* 30 s */
        step(e);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, red, &a);
        double fr = front_along(&a, red_line, 0);
        worst_red = fmax(worst_red, fr);
        if (f == 599)
            rest_red = fr;
        sn_engine_actor_get(e, stop, &a);
        double fs = front_along(&a, stop_line, 90);
        double v = hypot(a.velocity.x, a.velocity.y);
        if (!stop_rested && f > 20 && v < 0.05) {
            stop_rested = true;
            stop_rest = fs;
        }
        if (stop_rested)
            stop_after = fmax(stop_after, fs);
        if (getenv("SIG_DEBUG") && f % 20 == 0)
            fprintf(stderr, "f %d stop at (%.2f %.2f) v %.2f front %.2f\n", f, a.transform.location.x, a.transform.location.y, v, fs);
    }
    fprintf(stderr, "red: front %.2f m past the line at worst, %.2f at the end; stop sign: rest %.2f m, then %.2f\n",
            worst_red, rest_red, stop_rest, stop_after);
    CHECK(worst_red < 0 && rest_red > -3.0, "a red light holds the vehicle before its line (%.2f, at rest %.2f)",
          worst_red, rest_red);
    CHECK(stop_rested && stop_rest <= 0 && stop_rest >= -1.0, "stop sign: at rest within 1 m before the line (%.2f)",
          stop_rest);
    CHECK(stop_after > 5, "stop sign: goes on through the clear junction (%.2f m past the line)", stop_after);
    sn_engine_destroy(e);
}

/* ---- 4 ---- */

static void test_speed(void)
{
    char map[1024];
    snprintf(map, sizeof map, "%s/signals.xodr", data);
    /* A car from Street_W's start (s = 2) eastbound: Speed_40 at s = 10, junction A (lights
    ** green), Speed_30 on Street_M at its s = 5. car30 enters Street_M eastbound at 43 km/h just
    ** before its 30 sign. Parked: one on Street_M's westbound lane at s = 10 (its Speed_30 at
    ** s = 75 upstream), one on Arm_N_0 (no sign: the road's 50 km/h record). */
    sn_engine *e = load_map(map,
                            "  - {name: car, blueprint: vehicle.sedan, transform: {location: [-88, 1.75, 0.5]}, autopilot: {}}\n"
                            "  - {name: parked, blueprint: vehicle.sedan, transform: {location: [20, -1.75, 0.5], rotation: [0, 180, 0]}}\n"
                            "  - {name: arm, blueprint: vehicle.sedan, transform: {location: [-1.75, -30, 0.5], rotation: [0, -90, 0]}}\n"
                            "  - {name: car30, blueprint: vehicle.sedan, transform: {location: [11, 1.75, 0.5]}, velocity: [12, 0, 0], autopilot: {}}\n");
    for (uint32_t i = 0; i < sn_engine_traffic_light_count(e); i++)
        sn_engine_traffic_light_set_state(e, sn_engine_traffic_light_at(e, i), SN_TL_GREEN, NULL);
    sn_engine_traffic_light_freeze(e, 0, true, NULL);
    uint32_t car = actor_named(e, "car"), car30 = actor_named(e, "car30");
    double v30_max = 0, lim30 = 0;
    double kmh = 0;
    sn_error err = {0};
    CHECK(sn_engine_vehicle_speed_limit(e, car, &kmh, &err) == SN_OK && fabs(kmh - 50) < 1e-6,
          "before any sign: the road's record, 50 km/h (%.2f)", kmh);
    double vmax40 = 0, vmax30 = 0;
    bool got40 = false, got30 = false;
    for (int f = 0; f < 500; f++) {
        step(e);
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, car, &a);
        sn_actor_info b = {.struct_size = sizeof b};
        sn_engine_actor_get(e, car30, &b);
        if (b.transform.location.x > 50 && b.transform.location.x < 80) { /* Street_M, 35..65 m past its 30 sign */
            sn_engine_vehicle_speed_limit(e, car30, &lim30, NULL);
            v30_max = fmax(v30_max, hypot(b.velocity.x, b.velocity.y) * 3.6);
        }
        sn_engine_vehicle_speed_limit(e, car, &kmh, NULL);
        double v = hypot(a.velocity.x, a.velocity.y) * 3.6;
        if (fabs(kmh - 40) < 1e-6)
            got40 = true, vmax40 = fmax(vmax40, v);
        if (fabs(kmh - 30) < 1e-6)
            got30 = true;
        if (got30)
            vmax30 = v;
    }
    fprintf(stderr, "speed: 40 km/h sign -> limit 40 (max %.1f km/h), 30 sign: %s\n", vmax40, got30 ? "limit 30" : "not met");
    CHECK(got40 && vmax40 <= 42, "the 40 km/h sign sets the limit, and the car keeps it (max %.1f)", vmax40);
    CHECK(!got30 || vmax30 <= 42, "after the 30 sign the car slows (%.1f)", vmax30);
    fprintf(stderr, "speed: a car at 43 km/h past the 30 sign: limit %.1f, at most %.1f km/h 35-65 m on\n", lim30, v30_max);
    CHECK(fabs(lim30 - 30) < 1e-6 && v30_max > 20 && v30_max <= 31.5,
          "the 30 km/h sign: limit 30 (%.1f), the car slows to it (%.1f km/h)", lim30, v30_max);
    CHECK(sn_engine_vehicle_speed_limit(e, actor_named(e, "parked"), &kmh, &err) == SN_OK && fabs(kmh - 30) < 1e-6,
          "parked on Street_M westbound past its 30 sign: 30 km/h (%.2f)", kmh);
    CHECK(sn_engine_vehicle_speed_limit(e, actor_named(e, "arm"), &kmh, &err) == SN_OK && fabs(kmh - 50) < 1e-6,
          "parked on an arm without a sign: the record, 50 km/h (%.2f)", kmh);
    CHECK(sn_engine_vehicle_speed_limit(e, 1u << 30, &kmh, &err) == SN_E_NOT_FOUND, "no such vehicle");
    sn_engine_destroy(e);
}

/* ---- 5 ---- */

typedef struct warns {
    int missing_signal, missing_lane, unplaced, other;
    char unplaced_line[512];
} warns;

static void on_log(sn_log_level level, const char *line, void *user)
{
    warns *w = user;
    if (level != SN_LOG_WARN)
        return;
    if (strstr(line, "name no <signal>"))
        w->missing_signal++;
    else if (strstr(line, "does not have"))
        w->missing_lane++;
    else if (strstr(line, "control no driving lane")) {
        w->unplaced++;
        snprintf(w->unplaced_line, sizeof w->unplaced_line, "%s", line);
    }
    else
        w->other++;
}

static void test_bad_input(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/signals.xodr", data);
    size_t size;
    char *xml = tu_read_file(path, &size);
    CHECK(xml != NULL, "read %s", path);
    if (!xml)
        return;
    xml[size] = 0;
    /* In place (same lengths): the first reference to light 3004 names signal 9999 instead, the
    ** second names lane -3; then a junction without connections is added. */
    int redirected = 0;
    char *q = strstr(xml, "<signalReference id=\"3004\"");
    if (q) {
        memcpy(q + 21, "9999", 4);
        redirected++;
        q = strstr(q, "<signalReference id=\"3004\"");
    }
    char *v = q ? strstr(q, "fromLane=\"-1\" toLane=\"-1\"") : NULL;
    if (v) {
        memcpy(v + 10, "-3", 2), memcpy(v + 22, "-3", 2);
        redirected++;
    }
    /* ... a light whose only record names lane 0 (it controls nothing) joins the first road's
    ** signals, and a junction without connections ends the map. */
    char *bad = malloc(size + 512);
    char *end = strstr(xml, "</OpenDRIVE>"), *sigs = strstr(xml, "<signals>");
    if (!bad || !end || !sigs)
        return;
    *end = 0;
    sigs += strlen("<signals>");
    snprintf(bad, size + 512,
             "%.*s\n      <signal s=\"1\" t=\"-4\" id=\"8888\" name=\"Signal_3Light_Post01\" dynamic=\"yes\" "
             "orientation=\"+\" type=\"1000001\" subtype=\"-1\"><validity fromLane=\"0\" toLane=\"0\"/></signal>%s"
             "  <junction id=\"7777\" name=\"empty\">\n  </junction>\n</OpenDRIVE>\n",
             (int)(sigs - xml), xml, sigs);
    tu_write(tmp, "bad_signals.xodr", bad);
    char map[1200], text[1400];
    snprintf(map, sizeof map, "%s/bad_signals.xodr", tmp);
    snprintf(text, sizeof text, "settings: {fixed_delta_seconds: 0.05, duration: 1}\nmap: %s\nactors:\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [-40, 1.75, 0.5]}, autopilot: {}}\n", map);
    warns w = {0};
    sn_engine *e = load_text("bad_signals.yaml", text, on_log, &w);
    for (int f = 0; f < 40; f++)
        step(e);
    fprintf(stderr, "bad input: %d redirected references; warnings: %d missing signal, %d missing lane, %d unplaced "
            "light, %d other\n", redirected, w.missing_signal, w.missing_lane, w.unplaced, w.other);
    CHECK(redirected == 2 && w.missing_signal == 1 && w.missing_lane == 1,
          "one warning each for a missing signal and a missing lane (%d, %d)", w.missing_signal, w.missing_lane);
    CHECK(w.unplaced == 1 && strstr(w.unplaced_line, "1 of 5 traffic lights") && strstr(w.unplaced_line, "8888"),
          "one warning names the light that controls nothing: %s", w.unplaced_line);
    CHECK(sn_engine_traffic_light_count(e) == 5, "the unplaced light still exists (%u lights)",
          sn_engine_traffic_light_count(e));
    sn_engine_destroy(e);
    free(bad);
    free(xml);
    (void)0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_signals TMP DATA\n");
        return 2;
    }
    tmp = argv[1];
    data = argv[2];
    test_binding();
    test_red_and_stop();
    test_speed();
    test_bad_input();
    return CHECK_DONE();
}
