/* Every vehicle blueprint stays upright (issue 31 item 5): full brake from the autopilot's
** highest speed, full steer at 8 m/s, an angled kerb up and down. |pitch| and |roll| stay
** within 30 degrees throughout and at the end. argv[1]: temp folder. */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *dir;

/* The autopilot's highest speed: the fastest lane limit of the shipped maps (highway.xodr,
** 120 km/h) at TM's default speed difference of 0 %. */
#define TOP_SPEED (120 / 3.6)

typedef struct run_result {
    double max_pitch, max_roll, end_pitch, end_roll, end_speed;
} run_result;

static double speed(const sn_actor_info *a) { return hypot(a->velocity.x, a->velocity.y); }

/* Runs `frames` frames of blueprint bp starting at v0 m/s: brake, steer given; hold > 0 keeps
** that speed with the throttle. kerb: an angled 0.15 m platform across the path. */
static run_result drive(const char *bp, double v0, double brake, double steer, double hold, double kerb, int frames)
{
    /* The kerb: a raised platform 0.15 m high (a map's sidewalk, SN_ROAD_KERB), its edge at
    ** `kerb` degrees to the path from x = 12.5, 12 m across: up one edge, down the other. */
    char kerb_text[256] = "", text[2048];
    if (kerb > 0) {
        double yaw = 90 - kerb, half = 6;
        snprintf(kerb_text, sizeof kerb_text,
                 "  - {blueprint: static.prop.box, attributes: {extent: \"%g,60,0.075\", semantic_tag: sidewalk},\n"
                 "     transform: {location: [%g, 0, 0.075], rotation: [0, %g, 0]}}\n",
                 half, 12.5 + half / cos(yaw * M_PI / 180), yaw);
    }
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, seed: 1}\n"
             "actors:\n  - {blueprint: static.ground}\n"
             "%s"
             "  - {name: v, blueprint: %s, transform: {location: [0, 0, 0.3]}, velocity: [%g, 0, 0]}\n",
             kerb_text, bp, v0);
    sn_engine *e = tu_load(dir, tu_write(dir, "upright.yaml", text));
    uint32_t id = sn_engine_find_actor(e, "v");
    run_result r = {0};
    sn_error err;
    for (int f = 0; f < frames; f++) {
        sn_actor_info a = tu_actor(e, "v");
        sn_vehicle_control c = {.brake = brake, .steer = steer};
        if (hold > 0)
            c.throttle = fmin(fmax(0.5 * (hold - speed(&a)), 0), 1);
        if (sn_engine_apply_control(e, id, &c, &err) != SN_OK || sn_engine_step(e, &err) != SN_OK) {
            CHECK(0, "%s: %s", bp, err.msg);
            break;
        }
        a = tu_actor(e, "v");
        r.max_pitch = fmax(r.max_pitch, fabs(a.transform.rotation.pitch));
        r.max_roll = fmax(r.max_roll, fabs(a.transform.rotation.roll));
        r.end_pitch = a.transform.rotation.pitch;
        r.end_roll = a.transform.rotation.roll;
        r.end_speed = speed(&a);
    }
    sn_engine_destroy(e);
    return r;
}

static void check(const char *bp, const char *what, run_result r)
{
    fprintf(stderr, "%-34s %-22s max |pitch| %5.1f |roll| %5.1f  end pitch %6.1f roll %6.1f speed %5.2f\n", bp, what,
            r.max_pitch, r.max_roll, r.end_pitch, r.end_roll, r.end_speed);
    CHECK(r.max_pitch <= 30 && r.max_roll <= 30, "%s, %s: |pitch| reached %.1f, |roll| %.1f degrees", bp, what,
          r.max_pitch, r.max_roll);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 77;
    dir = argv[1];
    sn_error err;
    sn_blueprints *lib = sn_blueprints_open(&(sn_engine_options){.quiet_plugins = true, .plugin_dir = dir}, &err);
    CHECK(lib != NULL, "blueprints: %s", lib ? "" : err.msg);
    int n = 0;
    for (size_t i = 0; lib && i < sn_blueprints_count(lib); i++) {
        sn_blueprint_info b = {.struct_size = sizeof b};
        if (sn_blueprints_get(lib, i, &b, &err) != SN_OK || b.kind != SN_ACTOR_VEHICLE)
            continue;
        n++;
        check(b.id, "full brake from top", drive(b.id, TOP_SPEED, 1, 0, 0, 0, 240));
        check(b.id, "half brake from 8", drive(b.id, 8, 0.5, 0, 0, 0, 60));
        check(b.id, "full brake from 8", drive(b.id, 8, 1, 0, 0, 0, 60));
        check(b.id, "full steer at 8", drive(b.id, 8, 0, 1, 8, 0, 200));
        check(b.id, "full steer left at 8", drive(b.id, 8, 0, -1, 8, 0, 200));
        check(b.id, "full steer at 15", drive(b.id, 15, 0, 1, 15, 0, 120));
        check(b.id, "full steer at top", drive(b.id, TOP_SPEED, 0, 1, TOP_SPEED, 0, 120));
        check(b.id, "brake, steer from 15", drive(b.id, 15, 1, 1, 0, 0, 100));
        check(b.id, "kerb 65 deg at 2", drive(b.id, 2, 0, 0, 2, 65, 400));
        check(b.id, "kerb 20 deg at 2", drive(b.id, 2, 0, 0, 2, 20, 400));
        check(b.id, "kerb 65 deg at 8", drive(b.id, 8, 0, 0, 8, 65, 160));
        check(b.id, "kerb 20 deg at 8", drive(b.id, 8, 0, 0, 8, 20, 200));
        check(b.id, "kerb 20 deg at 15", drive(b.id, 15, 0, 0, 15, 20, 120));
        check(b.id, "kerb 20 deg at top", drive(b.id, TOP_SPEED, 0, 0, TOP_SPEED, 20, 60));
    }
    CHECK(n >= 11, "vehicle blueprints: %d", n);
    sn_blueprints_close(lib);
    return CHECK_DONE();
}
