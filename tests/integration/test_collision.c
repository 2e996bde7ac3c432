/* The collision sensor against analytic truth. argv[1]: temp folder, argv[2]: plugin folder.
**
** 1. A 1500 kg sedan at 10 m/s into a fixed wall: the summed impulse the sensor reports
**    equals m*|dv| measured from the car's own velocity before and after, within 5 %; also
**    driving toward -x, where sweep and prune meets the static space first (ODE then reports
**    the car's force as its joint's first body's).
** 2. At most one event per frame per (sensor, other actor), although physics substeps 5x.
** 3. A car simply driving on the ground reports nothing.
** 4. Both sides of a car-pedestrian crash see it, with opposite impulses.
** 5. Each event describes both actors as CARLA's carla.Actor: the values they were spawned with. */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

#define MAX_EV 4096
typedef struct ev {
    uint64_t frame;
    uint32_t self, other;
    char sensor[32];
    sn_vec3 impulse, normal;
} ev;
static ev evs[MAX_EV];
static int n_ev;

/* The first event's description of both actors, as text "key=value;" for comparison. */
static char first_desc[2][1024];

static void text_of(const msgpack_object *o, char *buf, size_t size)
{
    if (!o)
        snprintf(buf, size, "(missing)");
    else if (o->type == MSGPACK_OBJECT_STR)
        snprintf(buf, size, "%.*s", (int)o->via.str.size, o->via.str.ptr);
    else if (o->type == MSGPACK_OBJECT_NIL)
        snprintf(buf, size, "nil");
    else if (o->type == MSGPACK_OBJECT_ARRAY) {
        size_t len = 0;
        buf[0] = 0;
        for (uint32_t i = 0; i < o->via.array.size && len < size; i++)
            len += (size_t)snprintf(buf + len, size - len, i ? ",%g" : "%g", tu_num(&o->via.array.ptr[i]));
    } else
        snprintf(buf, size, "%g", tu_num(o));
}

static void describe(const msgpack_object *a, char *out, size_t size)
{
    const char *keys[] = {"type_id", "semantic_tag", "semantic_tags", "parent", "role_name"};
    size_t len = 0;
    char t[256];
    for (size_t k = 0; k < 5 && len < size; k++) {
        text_of(tu_get(a, keys[k]), t, sizeof t);
        len += (size_t)snprintf(out + len, size - len, "%s=%s;", keys[k], t);
    }
    const msgpack_object *at = tu_get(a, "attributes"), *bb = tu_get(a, "bounding_box");
    for (uint32_t i = 0; at && at->type == MSGPACK_OBJECT_MAP && i < at->via.map.size && len < size; i++) {
        text_of(&at->via.map.ptr[i].val, t, sizeof t);
        len += (size_t)snprintf(out + len, size - len, "%.*s=%s;", (int)at->via.map.ptr[i].key.via.str.size,
                                at->via.map.ptr[i].key.via.str.ptr, t);
    }
    text_of(tu_get(bb, "extent"), t, sizeof t);
    if (len < size)
        snprintf(out + len, size - len, "extent=%s;", t);
}

static void on_msg(const sn_message *m, void *user)
{
    (void)user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS && n_ev < MAX_EV) {
        ev *e = &evs[n_ev++];
        e->frame = (uint64_t)tu_num(tu_get(&u.data, "frame"));
        e->self = (uint32_t)tu_num(tu_get(tu_get(&u.data, "actor"), "id"));
        e->other = (uint32_t)tu_num(tu_get(tu_get(&u.data, "other_actor"), "id"));
        e->impulse = tu_vec3(tu_get(&u.data, "normal_impulse"));
        e->normal = tu_vec3(tu_get(&u.data, "normal"));
        snprintf(e->sensor, sizeof e->sensor, "%s", m->sensor);
        if (n_ev == 1) {
            describe(tu_get(&u.data, "actor"), first_desc[0], sizeof first_desc[0]);
            describe(tu_get(&u.data, "other_actor"), first_desc[1], sizeof first_desc[1]);
        }
    }
    msgpack_unpacked_destroy(&u);
}

/* side: +1 drives toward +x into a wall at x 25, -1 toward -x into one at x -25. */
static void crash_into_wall(const char *dir, const char *plugins, double speed, int side)
{
    char text[2048];
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, frames: 120}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [0, 0, 0], rotation: [0, %d, 0]},\n"
             "     attributes: {mass: 1500, role_name: hero, color: \"200,30,30\"}, velocity: [%g, 0, 0]}\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [%d, 0, 1.5]},\n"
             "     attributes: {extent: \"0.5,5,1.5\", semantic_tag: Wall}}\n"
             "sensors:\n"
             "  - {name: crash, blueprint: sensor.other.collision, attach_to: hero}\n",
             side > 0 ? 0 : 180, side * speed, side * 25);
    sn_engine *e = tu_load(plugins, tu_write(dir, "wall.yaml", text));
    sn_error err;
    n_ev = 0;
    CHECK(sn_engine_listen(e, "crash", on_msg, NULL, &err) == SN_OK, "%s", err.msg);
    sn_vec3 v_prev = tu_actor(e, "hero").velocity, v_before = {0}, v_after = {0};
    uint32_t wall = sn_engine_find_actor(e, "wall");
    int first = -1, last = -1;
    for (int f = 1; f <= 120; f++) {
        int before = n_ev;
        CHECK(sn_engine_step(e, &err) == SN_OK, "%s", err.msg);
        sn_vec3 v = tu_actor(e, "hero").velocity;
        if (n_ev > before) {
            if (first < 0) {
                first = f;
                v_before = v_prev;
            }
            last = f;
        } else if (first > 0 && last == f - 1) {
            v_after = v_prev; /* velocity at the end of the last frame in contact */
        }
        v_prev = v;
    }
    if (last == 120)
        v_after = v_prev;
    CHECK(first > 0, "speed %g: the car reached the wall", speed);
    sn_vec3 sum = {0, 0, 0};
    for (int i = 0; i < n_ev; i++) {
        CHECK(evs[i].other == wall, "the other actor is the wall");
        sum.x += evs[i].impulse.x, sum.y += evs[i].impulse.y, sum.z += evs[i].impulse.z;
        for (int j = 0; j < i; j++)
            CHECK(!(evs[j].frame == evs[i].frame && evs[j].other == evs[i].other), "one event per frame and pair");
        CHECK(evs[i].normal.x * side < -0.9, "the wall pushes the car back");
    }
    double imp = sqrt(sum.x * sum.x + sum.y * sum.y + sum.z * sum.z);
    double dv = sqrt(pow(v_after.x - v_before.x, 2) + pow(v_after.y - v_before.y, 2) + pow(v_after.z - v_before.z, 2));
    double mdv = 1500 * dv;
    CHECK(fabs(imp - mdv) <= 0.05 * mdv, "speed %g: |sum impulse| %.1f N*s vs m|dv| %.1f N*s (%d events, frames %d-%d)",
          speed, imp, mdv, n_ev, first, last);
    CHECK(sum.x * side < 0, "impulse points back from the wall");
    /* both actors as spawned: every attribute the blueprint has, as CARLA's strings */
    sn_actor_info hero = tu_actor(e, "hero");
    char want[1024];
    /* defaults owned by the vehicle model may change: read them back from the engine */
    sn_value v = {0};
    char ext[64] = "?", pw[32] = "?", st[32] = "?", com[32] = "?";
    if (sn_engine_actor_attribute(e, hero.id, "extent", &v, NULL) == SN_OK)
        snprintf(ext, sizeof ext, "%s", v.s);
    if (sn_engine_actor_attribute(e, hero.id, "max_power", &v, NULL) == SN_OK)
        snprintf(pw, sizeof pw, "%.15g", v.f);
    if (sn_engine_actor_attribute(e, hero.id, "max_steer_angle", &v, NULL) == SN_OK)
        snprintf(st, sizeof st, "%.15g", v.f);
    if (sn_engine_actor_attribute(e, hero.id, "center_of_mass_height", &v, NULL) == SN_OK)
        snprintf(com, sizeof com, "%.15g", v.f);
    snprintf(want, sizeof want,
             "type_id=vehicle.sedan;semantic_tag=14;semantic_tags=14;parent=nil;role_name=hero;role_name=hero;"
             "color=200,30,30;semantic_tag=Car;texture=none;checker_size=1;extent=%s;mass=1500;max_power=%s;"
             "max_steer_angle=%s;center_of_mass_height=%s;reflectivity=0.4;base_type=car;special_type=;generation=2;"
             "number_of_wheels=4;has_lights=true;extent=%g,%g,%g;",
             ext, pw, st, com, hero.bounding_box.extent.x, hero.bounding_box.extent.y, hero.bounding_box.extent.z);
    CHECK(!strcmp(first_desc[0], want), "actor:\n  got  %s\n  want %s", first_desc[0], want);
    const char *wall_want = "type_id=static.prop.box;semantic_tag=4;semantic_tags=4;parent=nil;role_name=;role_name=;"
                            "color=180,180,180;semantic_tag=Wall;texture=none;checker_size=1;extent=0.5,5,1.5;reflectivity=0.35;"
                            "extent=0.5,5,1.5;";
    CHECK(!strcmp(first_desc[1], wall_want), "other_actor:\n  got  %s\n  want %s", first_desc[1], wall_want);
    fprintf(stderr, "speed %g m/s toward %cx: impulse %.1f N*s, m|dv| %.1f N*s, error %.2f %%, %d events\n", speed,
            side > 0 ? '+' : '-', imp, mdv, 100 * fabs(imp - mdv) / mdv, n_ev);
    sn_engine_destroy(e);
}

static void drive_on_ground(const char *dir, const char *plugins)
{
    const char *text = "settings: {fixed_delta_seconds: 0.05, frames: 300}\n"
                       "actors:\n"
                       "  - {name: ground, blueprint: static.ground}\n"
                       "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0.05]},\n"
                       "     control: {throttle: 0.6, steer: 0.2}}\n"
                       "  - {name: truck, blueprint: vehicle.truck, transform: {location: [0, -60, 0]},\n"
                       "     control: {throttle: 1.0}}\n"
                       "sensors:\n"
                       "  - {name: c1, blueprint: sensor.other.collision, attach_to: car}\n"
                       "  - {name: c2, blueprint: sensor.other.collision, attach_to: truck}\n";
    sn_engine *e = tu_load(plugins, tu_write(dir, "drive.yaml", text));
    sn_error err;
    n_ev = 0;
    sn_engine_listen(e, "c1", on_msg, NULL, &err);
    sn_engine_listen(e, "c2", on_msg, NULL, &err);
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    CHECK(n_ev == 0, "driving on the ground is not a collision (%d events)", n_ev);
    sn_actor_info car = tu_actor(e, "car");
    CHECK(car.velocity.x * car.velocity.x + car.velocity.y * car.velocity.y > 25, "the car drives");
    CHECK(fabs(car.transform.location.z) < 0.15, "the car stays on its wheels (origin at the bottom): z %.3f", car.transform.location.z);
    sn_engine_destroy(e);
}

static void pedestrian(const char *dir, const char *plugins)
{
    const char *text = "settings: {fixed_delta_seconds: 0.05, frames: 60}\n"
                       "actors:\n"
                       "  - {name: ground, blueprint: static.ground}\n"
                       "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, velocity: [8, 0, 0]}\n"
                       "  - {name: ped, blueprint: walker.pedestrian, transform: {location: [15, 0, 0.9]}}\n"
                       "sensors:\n"
                       "  - {name: car_crash, blueprint: sensor.other.collision, attach_to: car}\n"
                       "  - {name: ped_crash, blueprint: sensor.other.collision, attach_to: ped}\n";
    sn_engine *e = tu_load(plugins, tu_write(dir, "ped.yaml", text));
    sn_error err;
    n_ev = 0;
    sn_engine_listen(e, "car_crash", on_msg, NULL, &err);
    sn_engine_listen(e, "ped_crash", on_msg, NULL, &err);
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    uint32_t car = sn_engine_find_actor(e, "car"), ped = sn_engine_find_actor(e, "ped");
    int car_events = 0, ped_events = 0, matched = 0;
    for (int i = 0; i < n_ev; i++) {
        if (evs[i].self == car && evs[i].other == ped)
            car_events++;
        if (evs[i].self == ped && evs[i].other == car) {
            ped_events++;
            for (int j = 0; j < n_ev; j++)
                if (evs[j].self == car && evs[j].frame == evs[i].frame &&
                    fabs(evs[j].impulse.x + evs[i].impulse.x) < 1e-6 * (1 + fabs(evs[i].impulse.x)))
                    matched++;
        }
    }
    CHECK(car_events > 0 && ped_events > 0, "both sides see the crash (%d, %d)", car_events, ped_events);
    CHECK(matched == ped_events, "action equals reaction in every frame (%d of %d)", matched, ped_events);
    for (int i = 0; i < n_ev; i++)
        CHECK(evs[i].other != 1, "walking on the ground is not a collision");
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    crash_into_wall(argv[1], argv[2], 10.0, 1);
    crash_into_wall(argv[1], argv[2], 5.0, 1);
    crash_into_wall(argv[1], argv[2], 10.0, -1);
    drive_on_ground(argv[1], argv[2]);
    pedestrian(argv[1], argv[2]);
    return CHECK_DONE();
}
