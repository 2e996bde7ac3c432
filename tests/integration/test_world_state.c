/* World state as data, drivers, render_at, the closed-loop API and engines side by side,
** each against what can be derived: the poses set from outside, the pinhole projection of a
** box at half a frame, the ids a sensor sees, a controller's route, and solo runs' bytes.
** argv[1]: temp folder, argv[2]: the probe plugin folder, argv[3]: the scenes folder. */
#include "../check.h"
#include "../testutil.h"

#include <sensim/map.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>

static const char *dir, *probe_dir, *scenes;

static bool sn_v3_len_zero(sn_vec3 v) { return v.x == 0 && v.y == 0 && v.z == 0; }

static double dist3(sn_vec3 a, sn_vec3 b) { return sqrt(pow(a.x - b.x, 2) + pow(a.y - b.y, 2) + pow(a.z - b.z, 2)); }

/* ---- messages captured by listeners ---- */

#define MAX_MSGS 512
typedef struct capture {
    uint32_t n;
    sn_transform tf[MAX_MSGS];       /* header transform */
    uint64_t frame[MAX_MSGS];
    uint32_t other[MAX_MSGS];        /* collision: other_actor.id */
    char attr[MAX_MSGS][32];         /* probe: newest_attribute */
    char parallel[160];              /* probe: host->parallel_for's checks, the last message's */
    char hits[160];                  /* probe: ray_cast into 1.4- and 1.5-sized hits */
    uint32_t ids[MAX_MSGS][16], n_ids[MAX_MSGS];
    uint32_t *image;                 /* probe: the last instance image */
    size_t image_n;
    double at[6];                    /* probe: the last transform_at */
} capture;

static void on_msg(const sn_message *m, void *user)
{
    capture *c = user;
    if (c->n >= MAX_MSGS)
        return;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, m->data, m->size, NULL) != MSGPACK_UNPACK_SUCCESS) {
        msgpack_unpacked_destroy(&u);
        return;
    }
    const msgpack_object *o = &u.data, *t = tu_get(o, "transform");
    sn_vec3 rot = tu_vec3(tu_get(t, "rotation"));
    c->tf[c->n] = (sn_transform){tu_vec3(tu_get(t, "location")), {rot.x, rot.y, rot.z}};
    c->frame[c->n] = m->frame;
    const msgpack_object *x;
    if ((x = tu_get(o, "other_actor")))
        c->other[c->n] = (uint32_t)tu_num(tu_get(x, "id"));
    if ((x = tu_get(o, "newest_attribute")) && x->type == MSGPACK_OBJECT_STR)
        snprintf(c->attr[c->n], sizeof c->attr[0], "%.*s", (int)x->via.str.size, x->via.str.ptr);
    if ((x = tu_get(o, "hits")) && x->type == MSGPACK_OBJECT_STR)
        snprintf(c->hits, sizeof c->hits, "%.*s", (int)x->via.str.size, x->via.str.ptr);
    if ((x = tu_get(o, "parallel")) && x->type == MSGPACK_OBJECT_STR)
        snprintf(c->parallel, sizeof c->parallel, "%.*s", (int)x->via.str.size, x->via.str.ptr);
    if ((x = tu_get(o, "actors")) && x->type == MSGPACK_OBJECT_BIN) {
        uint32_t n = x->via.bin.size / 4;
        c->n_ids[c->n] = n > 16 ? 16 : n;
        memcpy(c->ids[c->n], x->via.bin.ptr, c->n_ids[c->n] * 4);
    }
    if ((x = tu_get(o, "instance")) && x->type == MSGPACK_OBJECT_BIN && x->via.bin.size) {
        free(c->image);
        c->image = malloc(x->via.bin.size);
        memcpy(c->image, x->via.bin.ptr, x->via.bin.size);
        c->image_n = x->via.bin.size / 4;
    }
    if ((x = tu_get(o, "transform_at")) && x->type == MSGPACK_OBJECT_ARRAY && x->via.array.size == 6)
        for (int i = 0; i < 6; i++)
            c->at[i] = tu_num(&x->via.array.ptr[i]);
    c->n++;
    msgpack_unpacked_destroy(&u);
}

static sn_engine *scene(const char *text)
{
    sn_error err;
    sn_engine_options o = {.plugin_dir = probe_dir, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(dir, "world_state.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

static bool step(sn_engine *e)
{
    sn_error err;
    sn_status st = sn_engine_step(e, &err);
    CHECK(st == SN_OK, "step: %s", err.msg);
    return st == SN_OK;
}

/* ---- 1. a kinematic vehicle follows poses set from outside and pushes a dynamic one ---- */

static sn_transform path_pose(int k)
{
    return (sn_transform){{0.4 * k, 0.3 * sin(k / 6.0), 0.15}, {0, 8 * sin(k / 9.0), 0}};
}

static void kinematic_path(void)
{
    sn_engine *e = scene("actors:\n"
                         "  - {blueprint: static.ground}\n"
                         "  - {name: ghost, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.15]}}\n"
                         "  - {name: parked, blueprint: vehicle.sedan, transform: {location: [20, 0, 0]}}\n"
                         "sensors:\n"
                         "  - {name: ghost_probe, blueprint: sensor.test.world_probe, attach_to: ghost}\n"
                         "  - {name: ghost_crash, blueprint: sensor.other.collision, attach_to: ghost}\n"
                         "  - {name: parked_crash, blueprint: sensor.other.collision, attach_to: parked}\n");
    static capture probe, ghost_hits, parked_hits;
    memset(&probe, 0, sizeof probe);
    memset(&ghost_hits, 0, sizeof ghost_hits);
    memset(&parked_hits, 0, sizeof parked_hits);
    sn_error err;
    sn_engine_listen(e, "ghost_probe", on_msg, &probe, &err);
    sn_engine_listen(e, "ghost_crash", on_msg, &ghost_hits, &err);
    sn_engine_listen(e, "parked_crash", on_msg, &parked_hits, &err);
    uint32_t ghost = sn_engine_find_actor(e, "ghost"), parked = sn_engine_find_actor(e, "parked");
    sn_transform t0 = path_pose(0);
    CHECK(sn_engine_set_target_transform(e, ghost, &t0, &err) == SN_E_STATE, "a physics actor takes no target");
    CHECK(sn_engine_set_simulate_physics(e, ghost, false, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_transform(e, ghost, &t0, &err) == SN_OK, "%s", err.msg);
    int frames = 70;
    double worst = 0, worst_rot = 0;
    for (int k = 1; k <= frames; k++) {
        sn_transform t = path_pose(k);
        CHECK(sn_engine_set_target_transform(e, ghost, &t, &err) == SN_OK, "%s", err.msg);
        if (!step(e))
            break;
        const sn_transform *got = &probe.tf[probe.n - 1];
        CHECK(!strcmp(probe.parallel, "ok"), "host->parallel_for: %s", probe.parallel);
        CHECK(!strcmp(probe.hits, "ok"), "ray hits of ABI 1.4 and 1.5 sizes: %s", probe.hits);
        worst = fmax(worst, dist3(got->location, t.location));
        worst_rot = fmax(worst_rot, fabs(got->rotation.yaw - t.rotation.yaw) + fabs(got->rotation.pitch) +
                                        fabs(got->rotation.roll));
        if (k == 10) {
            sn_actor_info a = tu_actor(e, "ghost");
            sn_transform p = path_pose(9);
            CHECK_NEAR(a.velocity.x, (t.location.x - p.location.x) / 0.05, 1e-6, "kinematic velocity x");
            CHECK_NEAR(a.velocity.y, (t.location.y - p.location.y) / 0.05, 1e-6, "kinematic velocity y");
        }
    }
    CHECK(probe.n == (uint32_t)frames, "probe messages %u", probe.n);
    CHECK(worst < 1e-9, "the sensor saw the set poses: worst position error %g m", worst);
    CHECK(worst_rot < 1e-7, "the sensor saw the set rotations: worst error %g deg", worst_rot);
    bool saw = false;
    for (uint32_t i = 0; i < parked_hits.n; i++)
        saw |= parked_hits.other[i] == ghost;
    CHECK(saw, "the parked car's sensor reports the kinematic car (%u events)", parked_hits.n);
    saw = false;
    for (uint32_t i = 0; i < ghost_hits.n; i++)
        saw |= ghost_hits.other[i] == parked;
    CHECK(saw, "the kinematic car's sensor reports the parked car (%u events)", ghost_hits.n);
    /* Without a new target it holds still (a replay between samples), never drifts on. */
    sn_actor_info held = tu_actor(e, "ghost");
    step(e);
    step(e);
    sn_actor_info still = tu_actor(e, "ghost");
    CHECK(dist3(held.transform.location, still.transform.location) == 0, "a kinematic actor without target moved");
    CHECK(sn_v3_len_zero(still.velocity), "and reports zero velocity");
    sn_transform leap = {{1e5, 0, 0.9}, {0, 0, 0}};
    CHECK(sn_engine_set_target_transform(e, ghost, &leap, &err) == SN_E_RANGE, "a target 100 km away in one step");
    sn_actor_info p = tu_actor(e, "parked");
    CHECK(p.transform.location.x > 21, "the parked car was pushed forward: x %.2f", p.transform.location.x);
    /* Back to physics: it falls to the ground instead of hovering. */
    CHECK(sn_engine_set_simulate_physics(e, ghost, true, &err) == SN_OK, "%s", err.msg);
    for (int k = 0; k < 30; k++)
        step(e);
    sn_actor_info g = tu_actor(e, "ghost");
    CHECK(g.transform.location.z < 0.1, "simulating again, it settles on its wheels: z %.3f", g.transform.location.z);
    free(probe.image);
    sn_engine_destroy(e);
}

/* ---- 2. render_at half a frame back draws a moving box exactly halfway ---- */

/* Columns whose pixel centres the box covers on the centre row: its silhouette is bounded by
** its four vertical edges (the row lies within its height), projected by the pinhole. */
static void box_columns(double cx_box, double cy_box, sn_vec3 ext, double f, double cx, int *first, int *last,
                        bool *clean)
{
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < 4; i++) {
        double x = cx_box + (i & 1 ? ext.x : -ext.x), y = cy_box + (i & 2 ? ext.y : -ext.y);
        double col = cx + f * y / x;
        lo = fmin(lo, col);
        hi = fmax(hi, col);
    }
    *first = (int)ceil(lo - 0.5);
    *last = (int)floor(hi - 0.5);
    /* An edge within 1/100 px of a pixel centre could fall either way: not a fair test. */
    *clean = fabs(lo - 0.5 - round(lo - 0.5)) > 0.01 && fabs(hi - 0.5 - round(hi - 0.5)) > 0.01;
}

static void render_at_halfway(void)
{
    /* Camera at the origin, 1 m up, looking along +x: W 200, fov 90 gives f = 100, cx = 100.
    ** The box (a prop of the sedan's box, half extents 2.3, 0.95, 0.75, riding on the kinematic
    ** sedan, whose drawn shape lies inside it: docs/shapes.md) at x 20 moves along +y at
    ** 10 m/s: 0.5 m a frame, about 2.8 px at its near face. */
    sn_engine *e = scene("actors:\n"
                         "  - {name: box, blueprint: vehicle.sedan, transform: {location: [20, -3.03, 0.25]}}\n"
                         "  - {name: shell, blueprint: static.prop.box, attach_to: box,"
                         " transform: {location: [0, 0, 0.75]}, attributes: {extent: \"2.3,0.95,0.75\"}}\n"
                         "sensors:\n"
                         "  - name: eye\n"
                         "    blueprint: sensor.test.world_probe\n"
                         "    transform: {location: [0, 0, 1.0]}\n"
                         "    attributes: {image_size_x: 200, image_size_y: 21, fov: 90, render_fraction: 0.5}\n"
                         "  - name: rider\n"
                         "    blueprint: sensor.test.world_probe\n"
                         "    attach_to: box\n"
                         "    transform: {location: [1, 0, 2], rotation: [0, 30, 0]}\n"
                         "    attributes: {image_size_x: 4, image_size_y: 4, render_fraction: 0.5}\n");
    static capture eye, rider;
    memset(&eye, 0, sizeof eye);
    memset(&rider, 0, sizeof rider);
    sn_error err;
    sn_engine_listen(e, "eye", on_msg, &eye, &err);
    sn_engine_listen(e, "rider", on_msg, &rider, &err);
    uint32_t box = sn_engine_find_actor(e, "box"), shell = sn_engine_find_actor(e, "shell");
    CHECK(sn_engine_set_simulate_physics(e, box, false, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(e, box, (sn_vec3){0, 10, 0}, (sn_vec3){0, 0, 0}, &err) == SN_OK, "%s", err.msg);
    int tested = 0;
    for (int k = 1; k <= 8; k++) {
        if (!step(e))
            break;
        double y_half = -3.03 + 0.5 * k - 0.25, y_end = -3.03 + 0.5 * k;
        int first, last, first_end, last_end;
        bool clean, clean_end;
        box_columns(20, y_half, (sn_vec3){2.3, 0.95, 0.75}, 100, 100, &first, &last, &clean);
        box_columns(20, y_end, (sn_vec3){2.3, 0.95, 0.75}, 100, 100, &first_end, &last_end, &clean_end);
        if (!eye.image || eye.image_n != 200 * 21)
            break;
        const uint32_t *row = eye.image + 10 * 200;
        int got_first = -1, got_last = -1;
        for (int c = 0; c < 200; c++)
            if (row[c] == shell) {
                if (got_first < 0)
                    got_first = c;
                got_last = c;
            }
        if (!clean)
            continue;
        tested++;
        CHECK(got_first == first && got_last == last,
              "frame %d: columns %d..%d at half a frame, the pinhole gives %d..%d (frame end: %d..%d)", k, got_first,
              got_last, first, last, first_end, last_end);
        CHECK(first != first_end || last != last_end, "frame %d: the test must tell half a frame from its end", k);
        /* The rider's own pose halfway: the box's, composed with its mount (1, 0, 2), yaw 30. */
        CHECK_NEAR(rider.at[0], 21, 1e-9, "rider x at half a frame");
        CHECK_NEAR(rider.at[1], y_half, 1e-9, "rider y at half a frame");
        CHECK_NEAR(rider.at[2], 2.25, 1e-9, "rider z at half a frame (origin 0.25, the bottom of the box)");
        CHECK_NEAR(rider.at[4], 30, 1e-7, "rider yaw at half a frame");
    }
    CHECK(tested >= 4, "frames with a clean edge: %d", tested);
    free(eye.image);
    free(rider.image);
    sn_engine_destroy(e);
}

/* ---- 3. an actor spawned through the API mid-run is seen by every sensor next frame ---- */

static void api_spawn(void)
{
    sn_engine *e = scene("actors:\n"
                         "  - {blueprint: static.ground}\n"
                         "  - {name: wall, blueprint: static.prop.box, transform: {location: [30, 0, 1.5]},"
                         " attributes: {extent: '0.5,5,1.5'}}\n"
                         "sensors:\n"
                         "  - {name: watcher, blueprint: sensor.test.world_probe}\n");
    static capture watcher, crash;
    memset(&watcher, 0, sizeof watcher);
    memset(&crash, 0, sizeof crash);
    sn_error err;
    sn_engine_listen(e, "watcher", on_msg, &watcher, &err);
    for (int k = 0; k < 5; k++)
        step(e);
    sn_attribute attrs[] = {{"color", "10,20,30"}, {"role_name", "hero"}};
    sn_actor_desc d = {sizeof d, "vehicle.sedan", "late", {{0, 0, 0}, {0, 0, 0}}, 0, 0, attrs, 2};
    uint32_t car = 0;
    CHECK(sn_engine_spawn(e, &d, &car, &err) == SN_OK, "%s", err.msg);
    CHECK(car && sn_engine_find_actor(e, "late") == car, "the new actor is found by name");
    sn_value v;
    CHECK(sn_engine_actor_attribute(e, car, "color", &v, &err) == SN_OK && v.type == SN_ATTR_RGB &&
              v.rgb[0] == 10 && v.rgb[1] == 20 && v.rgb[2] == 30,
          "its colour attribute is kept typed");
    CHECK(sn_engine_actor_attribute(e, car, "mass", &v, &err) == SN_OK && v.f == 1500,
          "unset attributes read as the blueprint's default");
    CHECK(sn_engine_actor_attribute(e, car, "nope", &v, &err) == SN_E_NOT_FOUND, "unknown attribute");
    uint32_t n_attr = 0;
    const char *an;
    bool color_seen = false;
    while (sn_engine_actor_attribute_at(e, car, n_attr, &an, &v, &err) == SN_OK) {
        color_seen |= strcmp(an, "color") == 0 && v.type == SN_ATTR_RGB && v.rgb[2] == 30;
        n_attr++;
    }
    CHECK(n_attr == 16 && color_seen, "a sedan enumerates its 16 attributes (CARLA's five included), colour included (%u)",
          n_attr);
    sn_actor_desc sd = {sizeof sd, "sensor.other.collision", "late_crash", {{0, 0, 0}, {0, 0, 0}}, car, 0, NULL, 0};
    uint32_t sensor = 0;
    CHECK(sn_engine_spawn(e, &sd, &sensor, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_listen(e, "late_crash", on_msg, &crash, &err) == SN_OK, "%s", err.msg);
    sn_vehicle_control full = {.throttle = 1};
    CHECK(sn_engine_apply_control(e, car, &full, &err) == SN_OK, "%s", err.msg);
    uint32_t before = watcher.n;
    step(e);
    CHECK(watcher.n == before + 1, "the watcher ticked");
    bool seen = false;
    for (uint32_t i = 0; i < watcher.n_ids[before]; i++)
        seen |= watcher.ids[before][i] == car;
    CHECK(seen, "the watcher lists the new car on the next frame");
    CHECK(strcmp(watcher.attr[before], "10,20,30") == 0 || strcmp(watcher.attr[before], "") == 0,
          "newest attribute '%s'", watcher.attr[before]);
    for (int k = 0; k < 100 && crash.n == 0; k++)
        step(e);
    CHECK(crash.n > 0, "the sensor spawned through the API reports the car hitting the wall");
    CHECK(crash.n > 0 && crash.other[0] == sn_engine_find_actor(e, "wall"), "other_actor is the wall");
    /* Refusals leave the world as it was. */
    uint32_t n = sn_engine_actor_count(e);
    sn_actor_desc bad = d;
    bad.name = "other";
    bad.blueprint = "vehicle.nope";
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) == SN_E_NOT_FOUND, "unknown blueprint");
    CHECK_CONTAINS(err.msg, "vehicle.nope");
    bad.blueprint = "vehicle.sedan";
    sn_attribute wrong[] = {{"mass", "-3"}};
    bad.attributes = wrong;
    bad.n_attributes = 1;
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) != SN_OK, "mass out of range");
    CHECK_CONTAINS(err.msg, "spawn: attribute 'mass'");
    bad.n_attributes = 0;
    bad.transform.location.x = NAN;
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) == SN_E_INVALID, "NaN location");
    bad.transform.location.x = 0;
    bad.name = "late";
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) == SN_E_INVALID, "a taken name");
    bad.name = "other";
    bad.id = 1;
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) == SN_E_INVALID, "an id already used");
    bad.id = 0;
    bad.parent_id = car;
    CHECK(sn_engine_spawn(e, &bad, NULL, &err) == SN_E_INVALID, "a vehicle cannot be attached");
    sn_attribute refuse[] = {{"refuse", "true"}};
    sn_actor_desc pd = {sizeof pd, "sensor.test.world_probe", "refuser", {{0, 0, 0}, {0, 0, 0}}, 0, 0, refuse, 1};
    CHECK(sn_engine_spawn(e, &pd, NULL, &err) == SN_E_INVALID, "a plugin refusing set()");
    CHECK_CONTAINS(err.msg, "refusing on purpose");
    CHECK(sn_engine_actor_count(e) == n, "no refused spawn left anything behind");
    pd.n_attributes = 0;
    uint32_t accepted = 0;
    CHECK(sn_engine_spawn(e, &pd, &accepted, &err) == SN_OK, "the same name is free after the refusal: %s", err.msg);
    CHECK(sn_engine_destroy_actor(e, accepted, &err) == SN_OK, "%s", err.msg);
    sn_vehicle_control silly = {.throttle = 2};
    CHECK(sn_engine_apply_control(e, car, &silly, &err) == SN_E_RANGE, "throttle 2");
    CHECK(sn_engine_apply_control(e, sn_engine_find_actor(e, "wall"), &full, &err) == SN_E_INVALID, "wall control");
    sn_transform far = {{1e9, 0, 0}, {0, 0, 0}};
    CHECK(sn_engine_set_transform(e, car, &far, &err) == SN_E_RANGE, "teleport 1e9 m away");
    CHECK(sn_engine_set_velocity(e, car, (sn_vec3){1e6, 0, 0}, (sn_vec3){0, 0, 0}, &err) == SN_E_RANGE, "1e6 m/s");
    CHECK(sn_engine_destroy_actor(e, car, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_actor_count(e) == n - 2, "the car and its sensor are gone");
    /* err may be NULL, the engine too: a status, never a crash. */
    CHECK(sn_engine_destroy_actor(e, 9999, NULL) == SN_E_NOT_FOUND, "NULL err");
    CHECK(sn_engine_step(NULL, NULL) == SN_E_INVALID, "NULL engine");
    CHECK(sn_engine_apply_control(e, 9999, NULL, NULL) == SN_E_NOT_FOUND, "NULL control of no actor");
    CHECK(sn_engine_actor_get(e, 1, NULL) == SN_E_INVALID, "NULL info");
    sn_actor_desc small = {8, "vehicle.sedan", NULL, {{0, 0, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
    CHECK(sn_engine_spawn(e, &small, NULL, &err) == SN_E_INVALID, "struct_size 8");
    CHECK(sn_engine_destroy_actor(e, car, &err) == SN_E_NOT_FOUND, "destroying twice");
    step(e);
    sn_engine_destroy(e);
}

/* ---- 4. a controller written against sensim.h drives a car around a square ---- */

static void square_controller(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground}\n");
    sn_error err;
    sn_actor_desc d = {sizeof d, "vehicle.sedan", "car", {{0, 0, 0}, {0, 0, 0}}, 0, 0, NULL, 0};
    uint32_t car;
    CHECK(sn_engine_spawn(e, &d, &car, &err) == SN_OK, "%s", err.msg);
    const double corner[4][2] = {{40, 0}, {40, 40}, {0, 40}, {0, 0}};
    double closest[4] = {1e9, 1e9, 1e9, 1e9};
    int target = 0;
    for (int f = 0; f < 2400 && target < 4; f++) {
        sn_actor_info a = tu_actor(e, "car");
        double dx = corner[target][0] - a.transform.location.x, dy = corner[target][1] - a.transform.location.y;
        double dist = hypot(dx, dy);
        closest[target] = fmin(closest[target], dist);
        if (dist < 3) {
            target++;
            continue;
        }
        /* Heading error to the corner; a P controller on steer, speed held near 6 m/s. */
        double yaw = a.transform.rotation.yaw * M_PI / 180, err_h = atan2(dy, dx) - yaw;
        while (err_h > M_PI)
            err_h -= 2 * M_PI;
        while (err_h < -M_PI)
            err_h += 2 * M_PI;
        double v = hypot(a.velocity.x, a.velocity.y);
        sn_vehicle_control c = {.steer = fmax(-1, fmin(1, 1.5 * err_h)), .throttle = v < 6 ? 0.5 : 0,
                                .brake = v > 8 ? 0.3 : 0};
        if (sn_engine_apply_control(e, car, &c, &err) != SN_OK || !step(e)) {
            CHECK(0, "control: %s", err.msg);
            break;
        }
    }
    CHECK(target == 4, "the car reached %d of 4 corners", target);
    for (int i = 0; i < 4; i++)
        CHECK(closest[i] < 3, "corner %d passed within %.2f m", i, closest[i]);
    sn_engine_destroy(e);
}

/* ---- 5. engines side by side produce exactly what each produces alone ---- */

static bool same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = tu_read_file(a, &na), *y = tu_read_file(b, &nb);
    bool same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

static sn_engine *open_run(const char *scene_name, const char *out, uint64_t seed)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", scenes, scene_name);
    sn_error err;
    sn_engine_options o = {.plugin_dir = probe_dir, .quiet_plugins = true, .seed_set = true, .seed = seed};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err) || sn_engine_open_outputs(e, out, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

#define SIDE_FRAMES 100

static void *run_alone(void *arg)
{
    sn_engine *e = arg;
    sn_error err;
    sn_engine_run(e, SIDE_FRAMES, &err);
    return NULL;
}

/* Every stream of the solo run `a` is byte-identical in `b`; returns how many were compared. */
static int compare_dirs(const char *a, const char *b, const char *what)
{
    DIR *d = opendir(a);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        const char *dot = strrchr(de->d_name, '.');
        if (!dot || strcmp(dot, ".msgpack") != 0)
            continue; /* image folders hold the same bytes as the camera streams */
        char pa[1024], pb[1024];
        struct stat st;
        snprintf(pa, sizeof pa, "%s/%s", a, de->d_name);
        snprintf(pb, sizeof pb, "%s/%s", b, de->d_name);
        CHECK(same_file(pa, pb), "%s: %s differs from the solo run", what, de->d_name);
        n += stat(pa, &st) == 0 && st.st_size > 0;
    }
    if (d)
        closedir(d);
    CHECK(n > 0, "%s: no non-empty streams in %s", what, a);
    fprintf(stderr, "%s: %d non-empty streams identical to the solo run\n", what, n);
    return n;
}

static void engines_side_by_side(void)
{
    char solo_a[512], solo_b[512], side_a[512], side_b[512], thr_a[512], thr_b[512];
    snprintf(solo_a, sizeof solo_a, "%s/side/solo_a", dir);
    snprintf(solo_b, sizeof solo_b, "%s/side/solo_b", dir);
    snprintf(side_a, sizeof side_a, "%s/side/side_a", dir);
    snprintf(side_b, sizeof side_b, "%s/side/side_b", dir);
    snprintf(thr_a, sizeof thr_a, "%s/side/thr_a", dir);
    snprintf(thr_b, sizeof thr_b, "%s/side/thr_b", dir);
    sn_error err;
    sn_engine *a = open_run("pileup.yaml", solo_a, 3);
    sn_engine_run(a, SIDE_FRAMES, &err);
    sn_engine_destroy(a);
    sn_engine *b = open_run("intersection.yaml", solo_b, 5);
    sn_engine_run(b, SIDE_FRAMES, &err);
    sn_engine_destroy(b);
    /* Interleaved on one thread, frame by frame. */
    a = open_run("pileup.yaml", side_a, 3);
    b = open_run("intersection.yaml", side_b, 5);
    for (int f = 0; f < SIDE_FRAMES; f++) {
        CHECK(sn_engine_step(a, &err) == SN_OK, "%s", err.msg);
        CHECK(sn_engine_step(b, &err) == SN_OK, "%s", err.msg);
    }
    sn_engine_finish(a, true, &err);
    sn_engine_finish(b, true, &err);
    sn_engine_destroy(a);
    sn_engine_destroy(b);
    compare_dirs(solo_a, side_a, "interleaved pile-up");
    compare_dirs(solo_b, side_b, "interleaved intersection");
    /* On two threads at once. */
    a = open_run("pileup.yaml", thr_a, 3);
    b = open_run("intersection.yaml", thr_b, 5);
    pthread_t ta, tb;
    pthread_create(&ta, NULL, run_alone, a);
    pthread_create(&tb, NULL, run_alone, b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    sn_engine_destroy(a);
    sn_engine_destroy(b);
    compare_dirs(solo_a, thr_a, "threaded pile-up");
    compare_dirs(solo_b, thr_b, "threaded intersection");
    /* Two worlds on a map at once: their wheels, walkers and kerbs meet the road trimeshes on
    ** both threads, each trimesh collision alone under the process-wide lock (ODE's collider
    ** cache is global) while the rest of their physics overlaps (ode_share.c). */
    char solo_c[512], thr_c[512], thr_d[512];
    snprintf(solo_c, sizeof solo_c, "%s/side/solo_c", dir);
    snprintf(thr_c, sizeof thr_c, "%s/side/thr_c", dir);
    snprintf(thr_d, sizeof thr_d, "%s/side/thr_d", dir);
    sn_engine *c = open_run("intersection.yaml", solo_c, 9);
    sn_engine_run(c, SIDE_FRAMES, &err);
    sn_engine_destroy(c);
    b = open_run("intersection.yaml", thr_d, 5);
    c = open_run("intersection.yaml", thr_c, 9);
    pthread_create(&tb, NULL, run_alone, b);
    pthread_create(&ta, NULL, run_alone, c);
    pthread_join(tb, NULL);
    pthread_join(ta, NULL);
    sn_engine_destroy(b);
    sn_engine_destroy(c);
    compare_dirs(solo_b, thr_d, "threaded intersection beside another");
    compare_dirs(solo_c, thr_c, "threaded intersection (seed 9) beside another");
    /* The same with the map cache on (as SensimVectorEnv has it): both worlds read one parsed
    ** map, one road mesh and its trimesh data, and write what each wrote alone with its own. */
    char sh_b[512], sh_c[512];
    snprintf(sh_b, sizeof sh_b, "%s/side/shared_b", dir);
    snprintf(sh_c, sizeof sh_c, "%s/side/shared_c", dir);
    sn_map_cache_enable(true);
    b = open_run("intersection.yaml", sh_b, 5);
    c = open_run("intersection.yaml", sh_c, 9);
    CHECK(sn_engine_map(b) == sn_engine_map(c), "with the map cache on, the two engines share one map");
    pthread_create(&tb, NULL, run_alone, b);
    pthread_create(&ta, NULL, run_alone, c);
    pthread_join(tb, NULL);
    pthread_join(ta, NULL);
    sn_engine_destroy(b);
    sn_engine_destroy(c);
    sn_map_cache_enable(false);
    compare_dirs(solo_b, sh_b, "threaded intersection sharing the map");
    compare_dirs(solo_c, sh_c, "threaded intersection (seed 9) sharing the map");
}

/* ---- 6. sn_engines_step: a pool's batch gives each engine's solo bytes; bad calls are refused ---- */

typedef struct reentry {
    sn_step_pool *pool;
    sn_engine *other;
    sn_status st;
    int calls;
} reentry;

/* A listener stepping on the pool its own engine is being stepped on: refused, not a deadlock. */
static void step_inside(const sn_message *m, void *user)
{
    (void)m;
    reentry *r = user;
    if (r->calls++)
        return;
    sn_error err;
    r->st = sn_engines_step(r->pool, &r->other, 1, NULL, NULL, &err);
}

static void engines_step_pool(void)
{
    char solo[3][512], got[3][512];
    const char *names[3] = {"solo_a", "solo_b", "solo_c"},
               *files[3] = {"pileup.yaml", "intersection.yaml", "intersection.yaml"};
    const uint64_t seeds[3] = {3, 5, 9};
    sn_engine *e[3];
    sn_map_cache_enable(true); /* as SensimVectorEnv makes its engines */
    for (int i = 0; i < 3; i++) {
        snprintf(solo[i], sizeof solo[i], "%s/side/%s", dir, names[i]);
        snprintf(got[i], sizeof got[i], "%s/side/pool_%d", dir, i);
        e[i] = open_run(files[i], got[i], seeds[i]);
    }
    sn_error err;
    sn_step_pool *p = sn_step_pool_create(2, &err);
    CHECK(p && sn_step_pool_threads(p) == 2, "step_pool_create(2): %s", p ? "wrong thread count" : err.msg);
    reentry r = {p, e[0], SN_OK, 0};
    CHECK(sn_engine_listen_all(e[1], step_inside, &r, &err) == SN_OK, "%s", err.msg);
    sn_status sts[3] = {SN_OK, SN_OK, SN_OK};
    for (int f = 0; f < SIDE_FRAMES; f++)
        CHECK(sn_engines_step(p, e, 3, sts, NULL, &err) == SN_OK, "engines_step, frame %d: %s", f, err.msg);
    CHECK(r.calls > 0 && r.st == SN_E_STATE,
          "engines_step from inside a step on the same pool: status %d, not "
          "SN_E_STATE (%d calls)",
          (int)r.st, r.calls);
    CHECK(sts[0] == SN_OK && sts[1] == SN_OK && sts[2] == SN_OK, "every engine's own status OK");
    for (int i = 0; i < 3; i++) {
        sn_engine_finish(e[i], true, &err);
        CHECK(sn_engine_clock(e[i])->frame == SIDE_FRAMES, "engine %d stepped %llu frames, not %d", i,
              (unsigned long long)sn_engine_clock(e[i])->frame, SIDE_FRAMES);
    }
    compare_dirs(solo[0], got[0], "pile-up on a step pool of 2");
    compare_dirs(solo[1], got[1], "intersection on a step pool of 2");
    compare_dirs(solo[2], got[2], "intersection (seed 9) on a step pool of 2");
    /* bad arguments: a clear error before any engine steps */
    CHECK(sn_engine_reset(e[2], NULL, &err) == SN_OK, "reset: %s", err.msg);
    uint64_t before = sn_engine_clock(e[2])->frame;
    sn_engine *twice[3] = {e[2], e[1], e[2]}, *hole[2] = {e[2], NULL};
    CHECK(sn_engines_step(p, NULL, 2, NULL, NULL, &err) == SN_E_INVALID && strstr(err.msg, "NULL engines"),
          "NULL array: %s", err.msg);
    CHECK(sn_engines_step(p, hole, 2, NULL, NULL, &err) == SN_E_INVALID && strstr(err.msg, "engine 1 is NULL"),
          "NULL engine: %s", err.msg);
    CHECK(sn_engines_step(p, twice, 3, NULL, NULL, &err) == SN_E_INVALID &&
              strstr(err.msg, "engines 0 and 2 are the same engine"),
          "engine twice: %s", err.msg);
    CHECK(sn_engines_step(NULL, e, 0, NULL, NULL, NULL) == SN_OK, "no engines: nothing to do");
    CHECK(sn_engine_clock(e[2])->frame == before, "a refused batch stepped nothing");
    CHECK(!sn_step_pool_create(-1, &err) && err.status == SN_E_RANGE, "threads -1: %s", err.msg);
    /* a failed engine's sentence names it; the others still step */
    sn_engine_destroy(e[1]);
    e[1] = sn_engine_create(&(sn_engine_options){.quiet_plugins = true}, &err); /* no scene: step fails */
    sn_error errs[3];
    CHECK(sn_engines_step(NULL, e, 3, sts, errs, &err) != SN_OK && strstr(err.msg, "engines_step: engine 1: "),
          "an engine without a scene: %s", err.msg);
    CHECK(sts[0] == SN_OK && sts[1] != SN_OK && sts[2] == SN_OK && sn_engine_clock(e[2])->frame == before + 1,
          "the others stepped");
    sn_step_pool_destroy(p);
    sn_step_pool_destroy(NULL);
    for (int i = 0; i < 3; i++)
        sn_engine_destroy(e[i]);
    sn_map_cache_enable(false);
}

/* ---- 7. the streamed batch: each engine reported once as its step ends; misuse refused ---- */

typedef struct other_thread {
    sn_step_pool *pool;
    sn_engine *engine;
    sn_status add;
    bool next;
} other_thread;

static void *add_from_another_thread(void *arg)
{
    other_thread *o = arg;
    sn_error err;
    o->add = sn_engines_step_add(o->pool, o->engine, &err);
    o->next = sn_engines_step_next(o->pool, NULL, NULL, NULL);
    return NULL;
}

typedef struct inside_stream {
    sn_step_pool *pool;
    sn_engine *other;
    sn_status begin, add, wait;
    bool next;
    int calls;
} inside_stream;

/* A listener of a streamed batch's engine calling into the batch (on a pool thread, or on the
** caller stepping inside next): refused, never a wait for the step it is inside. */
static void stream_inside(const sn_message *m, void *user)
{
    (void)m;
    inside_stream *r = user;
    if (r->calls++)
        return;
    sn_error err;
    r->begin = sn_engines_step_begin(r->pool, &err);
    r->add = sn_engines_step_add(r->pool, r->other, &err);
    r->next = sn_engines_step_next(r->pool, NULL, NULL, NULL);
    r->wait = sn_engines_step_wait(r->pool, 0, &err);
    sn_step_pool_destroy(r->pool); /* refused (a line on stderr): the batch runs on it */
}

static void engines_step_stream(void)
{
    char solo[2][512], got[2][512];
    sn_engine *e[3];
    for (int i = 0; i < 2; i++) {
        snprintf(solo[i], sizeof solo[i], "%s/side/%s", dir, i ? "solo_c" : "solo_b");
        snprintf(got[i], sizeof got[i], "%s/side/stream_%d", dir, i);
        e[i] = open_run("intersection.yaml", got[i], i ? 9 : 5);
    }
    sn_error err;
    e[2] = sn_engine_create(&(sn_engine_options){.quiet_plugins = true}, &err); /* no scene: its step fails */
    sn_step_pool *p = sn_step_pool_create(2, &err);
    CHECK(p != NULL, "step_pool_create(2): %s", err.msg);
    CHECK(sn_engines_step_begin(NULL, &err) == SN_E_INVALID, "begin on a NULL pool: %s", err.msg);
    CHECK(sn_engines_step_add(p, e[0], &err) == SN_E_STATE && strstr(err.msg, "no batch begun"),
          "add before begin: %s", err.msg);
    CHECK(!sn_engines_step_next(p, NULL, NULL, NULL), "next with no batch: false");
    inside_stream in[2] = {{p, e[2], SN_OK, SN_OK, SN_OK, true, 0}, {p, e[2], SN_OK, SN_OK, SN_OK, true, 0}};
    for (int k = 0; k < 2; k++)
        CHECK(sn_engine_listen(e[k], "hero_rgb", stream_inside, &in[k], &err) == SN_OK, "%s", err.msg);
    for (int f = 0; f < SIDE_FRAMES; f++) {
        CHECK(sn_engines_step_begin(p, &err) == SN_OK, "begin, frame %d: %s", f, err.msg);
        CHECK(sn_engines_step_begin(p, &err) == SN_E_STATE, "a second begin while a batch is open: %s", err.msg);
        /* the engines added one at a time, a pool thread starting on each at once */
        CHECK(sn_engines_step_add(p, e[1], &err) == SN_OK && sn_engines_step_add(p, e[0], &err) == SN_OK,
              "add: %s", err.msg);
        if (f == 0) {
            CHECK(sn_engines_step_add(p, e[1], &err) == SN_E_INVALID && strstr(err.msg, "already engine 0"),
                  "an engine added twice: %s", err.msg);
            CHECK(sn_engines_step_add(p, NULL, &err) == SN_E_INVALID, "a NULL engine: %s", err.msg);
            other_thread o = {p, e[2], SN_OK, true};
            pthread_t t;
            pthread_create(&t, NULL, add_from_another_thread, &o);
            pthread_join(t, NULL);
            CHECK(o.add == SN_E_STATE && !o.next, "add and next from a thread that did not begin the batch: "
                  "status %d, next %d", (int)o.add, (int)o.next);
        }
        if (f % 2) { /* the caller needs engine 1 (e[0]) now: stepped here if no pool thread took it */
            CHECK(sn_engines_step_wait(p, 1, &err) == SN_OK, "wait, frame %d: %s", f, err.msg);
            CHECK(sn_engine_clock(e[0])->frame == (uint64_t)f + 1, "after wait, frame %d: engine 1 at frame %llu", f,
                  (unsigned long long)sn_engine_clock(e[0])->frame);
        }
        if (f == 1)
            CHECK(sn_engines_step_wait(p, 2, &err) == SN_E_RANGE, "wait for an engine not added: %s", err.msg);
        bool seen[2] = {false, false};
        size_t i = 99;
        sn_status st = SN_E_IO;
        int reports = 0;
        while (sn_engines_step_next(p, &i, &st, NULL)) {
            CHECK(i < 2 && !seen[i] && st == SN_OK, "frame %d: report %d is engine %zu, status %d", f, reports, i,
                  (int)st);
            if (i < 2)
                seen[i] = true;
            reports++;
            if (reports == 1 && f == 0)
                CHECK(sn_engines_step_add(p, e[2], &err) == SN_E_STATE && strstr(err.msg, "closed"),
                      "an add after next: %s", err.msg);
        }
        CHECK(reports == 2, "frame %d: %d reports for 2 engines", f, reports);
    }
    CHECK(!sn_engines_step_next(p, NULL, NULL, NULL), "next after the batch ended: false");
    CHECK(sn_engines_step_wait(p, 0, &err) == SN_E_STATE, "wait with no batch: %s", err.msg);
    /* calls into the batch from inside one of its steps (above, from each engine's camera):
    ** refused wherever that step ran, on a pool thread or on the caller inside next */
    for (int k = 0; k < 2; k++) {
        CHECK(in[k].calls > 0 && in[k].begin == SN_E_STATE && in[k].add == SN_E_STATE && !in[k].next &&
                  in[k].wait == SN_E_STATE,
              "inside a streamed step of engine %d: begin %d, add %d, next %d, wait %d (%d calls)", k,
              (int)in[k].begin, (int)in[k].add, (int)in[k].next, (int)in[k].wait, in[k].calls);
        CHECK(sn_engine_unlisten(e[k], "hero_rgb", stream_inside, &in[k], &err) == SN_OK, "%s", err.msg);
    }
    /* a failed engine's status and sentence come with its index; the others step */
    CHECK(sn_engines_step_begin(p, &err) == SN_OK, "begin: %s", err.msg);
    CHECK(sn_engines_step_add(p, e[2], &err) == SN_OK, "add an engine without a scene: %s", err.msg);
    size_t i;
    sn_status st;
    sn_error one;
    int failed = 0;
    while (sn_engines_step_next(p, &i, &st, &one))
        failed += i == 0 && st != SN_OK && one.msg[0];
    CHECK(failed == 1, "the engine without a scene reported failed with a sentence");
    /* a pool destroyed with its owner's batch undrained: the batch runs to its end first */
    sn_step_pool *p2 = sn_step_pool_create(2, &err);
    CHECK(p2 && sn_engines_step_begin(p2, &err) == SN_OK && sn_engines_step_add(p2, e[2], &err) == SN_OK,
          "a second pool's batch: %s", err.msg);
    sn_step_pool_destroy(p2);
    sn_step_pool_destroy(p);
    for (int i2 = 0; i2 < 2; i2++) {
        sn_engine_finish(e[i2], true, &err);
        sn_engine_destroy(e[i2]);
    }
    sn_engine_destroy(e[2]);
    compare_dirs(solo[0], got[0], "intersection streamed on a step pool of 2");
    compare_dirs(solo[1], got[1], "intersection (seed 9) streamed on a step pool of 2");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_world_state TMP PROBE_DIR SCENES\n");
        return 2;
    }
    dir = argv[1];
    probe_dir = argv[2];
    scenes = argv[3];
    kinematic_path();
    render_at_halfway();
    api_spawn();
    square_controller();
    engines_side_by_side();
    engines_step_pool();
    engines_step_stream();
    return CHECK_DONE();
}
