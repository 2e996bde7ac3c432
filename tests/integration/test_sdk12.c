/* ABI 1.2's additions for plugins, each against what can be derived: class state counted per
** engine and ticked around the instances; a sensor mounted ahead of a yawing car reporting
** v + w x r and the centripetal acceleration; gravity as the physics applies it; CARLA's
** geodetic conversion; a reseeded stream equal to a fresh one; and a plugin built against the
** ABI 1.1 headers loading and running on this host.
** argv[1]: temp folder, argv[2]: the folder of sdk12_probe.so and abi11_probe.so. */
#include "../../engine/core/rng.h"
#include "../check.h"
#include "../testutil.h"
#include "../testrun.h"

static const char *dir, *plugins;

/* The last message of one sensor, decoded. */
typedef struct last {
    int n;
    double instances;
    char order[64], label[32], marked[32];
    sn_vec3 v, a, w, alpha, loc, g, mount, geo, point;
    double physics[5], distance, actor, tag, count;
    bool hit;
    uint64_t draws[4];
} last;

static void str_of(const msgpack_object *o, char *out, size_t n)
{
    if (o && o->type == MSGPACK_OBJECT_STR)
        snprintf(out, n, "%.*s", (int)o->via.str.size, o->via.str.ptr);
}

static void on_msg(const sn_message *m, void *user)
{
    last *l = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    if (msgpack_unpack_next(&u, m->data, m->size, NULL) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *o = &u.data, *x;
        l->n++;
        l->instances = tu_num(tu_get(o, "instances"));
        str_of(tu_get(o, "order"), l->order, sizeof l->order);
        l->v = tu_vec3(tu_get(o, "velocity"));
        l->a = tu_vec3(tu_get(o, "acceleration"));
        l->w = tu_vec3(tu_get(o, "angular_velocity"));
        l->alpha = tu_vec3(tu_get(o, "angular_acceleration"));
        l->loc = tu_vec3(tu_get(o, "location"));
        l->g = tu_vec3(tu_get(o, "gravity"));
        l->mount = tu_vec3(tu_get(o, "mount"));
        l->geo = tu_vec3(tu_get(o, "geo"));
        if ((x = tu_get(o, "physics")) && x->type == MSGPACK_OBJECT_ARRAY && x->via.array.size == 5)
            for (int i = 0; i < 5; i++)
                l->physics[i] = tu_num(&x->via.array.ptr[i]);
        if ((x = tu_get(o, "draws")) && x->type == MSGPACK_OBJECT_ARRAY && x->via.array.size == 4)
            for (int i = 0; i < 4; i++)
                l->draws[i] = x->via.array.ptr[i].via.u64;
        str_of(tu_get(o, "label"), l->label, sizeof l->label);
        str_of(tu_get(o, "marked"), l->marked, sizeof l->marked);
        l->count = tu_num(tu_get(o, "count"));
        l->hit = (x = tu_get(o, "hit")) && x->type == MSGPACK_OBJECT_BOOLEAN && x->via.boolean;
        l->distance = tu_num(tu_get(o, "distance"));
        l->point = tu_vec3(tu_get(o, "point"));
        l->actor = tu_num(tu_get(o, "actor"));
        l->tag = tu_num(tu_get(o, "tag"));
    }
    msgpack_unpacked_destroy(&u);
}

static sn_engine *load(const char *name, const char *text)
{
    return tu_load(plugins, tu_write(dir, name, text));
}

static void listen_to(sn_engine *e, const char *sensor, last *l)
{
    sn_error err;
    CHECK(sn_engine_listen(e, sensor, on_msg, l, &err) == SN_OK, "%s", err.msg);
}

/* Class state: per engine, counted by instances, ticked around them in each phase. */
static void class_state(void)
{
    sn_engine *a = load("class_a.yaml", "sensors:\n"
                        "  - {name: a1, blueprint: sensor.test.sdk12_probe}\n"
                        "  - {name: a2, blueprint: sensor.test.sdk12_probe}\n"
                        "  - {name: a3, blueprint: sensor.test.sdk12_probe, spawn_at: 0.1}\n");
    sn_engine *b = load("class_b.yaml", "sensors:\n  - {name: b1, blueprint: sensor.test.sdk12_probe}\n");
    last la = {0}, lb = {0};
    listen_to(a, "a1", &la);
    listen_to(b, "b1", &lb);
    tu_step_each(a, 1), tu_step_each(b, 1);
    CHECK(la.instances == 2 && lb.instances == 1, "frame 1: %g and %g instances", la.instances, lb.instances);
    CHECK(!strcmp(la.order, "<ii>[II]"), "class ticks wrap the instances' ticks: '%s'", la.order);
    CHECK(!strcmp(lb.order, "<i>[I]"), "engine b's own order: '%s'", lb.order);
    tu_step_each(b, 1), tu_step_each(a, 2); /* a3 spawns at 0.1 s (frame 2) in engine a only */
    CHECK(la.instances == 3 && lb.instances == 1, "after a3: %g and %g", la.instances, lb.instances);
    CHECK(!strcmp(la.order, "<iii>[III]"), "three instances: '%s'", la.order);
    sn_engine_destroy(a); /* class_destroy after its instances: ASan sees any use after free */
    tu_step_each(b, 1);
    CHECK(lb.instances == 1 && lb.n == 3, "b unaffected by a's end: %g instances, %d messages", lb.instances, lb.n);
    sn_engine_destroy(b);
}

/* A sensor 2 m ahead of a kinematic car driving at 5 m/s and yawing at 30 deg/s. */
static void kinematics(void)
{
    sn_engine *e = load("kin.yaml", "settings: {fixed_delta_seconds: 0.05}\n"
                        "actors:\n  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 50]}}\n"
                        "sensors:\n  - name: s\n    blueprint: sensor.test.sdk12_probe\n    attach_to: car\n"
                        "    transform: {location: [2, 0, 0.5], rotation: [0, 0, 0]}\n");
    sn_error err;
    last l = {0};
    listen_to(e, "s", &l);
    uint32_t car = sn_engine_find_actor(e, "car");
    const double wz = 30 * (3.14159265358979323846 / 180);
    CHECK(sn_engine_set_simulate_physics(e, car, false, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(e, car, (sn_vec3){5, 0, 0}, (sn_vec3){0, 0, 30}, &err) == SN_OK, "%s", err.msg);
    tu_step_each(e, 4);
    sn_actor_info c = tu_actor(e, "car");
    /* r: from the car's origin to the sensor, world frame; v = v_c + w x r = v_c + wz (-r_y, r_x, 0). */
    sn_vec3 r = {l.loc.x - c.transform.location.x, l.loc.y - c.transform.location.y, l.loc.z - c.transform.location.z};
    double yaw = c.transform.rotation.yaw * (3.14159265358979323846 / 180);
    CHECK_NEAR(r.x, 2 * cos(yaw), 1e-9, "r.x is the mount turned by the yaw");
    CHECK_NEAR(r.y, 2 * sin(yaw), 1e-9, "r.y");
    CHECK_NEAR(c.angular_velocity.z, 30, 1e-9, "car yaw rate deg/s");
    CHECK_NEAR(l.w.z, wz, 1e-12, "angular velocity at the sensor, rad/s, +z turns x toward y");
    CHECK_NEAR(l.v.x, c.velocity.x - wz * r.y, 1e-9, "v.x = v_c.x - w r_y");
    CHECK_NEAR(l.v.y, c.velocity.y + wz * r.x, 1e-9, "v.y = v_c.y + w r_x");
    CHECK_NEAR(l.v.y, 2 * wz * cos(yaw), 1e-9, "lateral speed of a point 2 m ahead");
    /* Constant velocities: only the centripetal term, -w^2 r, toward the car's origin. */
    CHECK_NEAR(l.a.x, -wz * wz * r.x, 1e-9, "centripetal a.x");
    CHECK_NEAR(l.a.y, -wz * wz * r.y, 1e-9, "centripetal a.y");
    CHECK_NEAR(l.alpha.z, 0, 1e-9, "no angular acceleration at a constant yaw rate");
    CHECK_NEAR(l.mount.x, 2, 0, "mount x"); CHECK_NEAR(l.mount.z, 0.5, 0, "mount z");
    /* The physics settings and the gravity the physics applies. */
    CHECK_NEAR(l.g.z, -9.81, 0, "gravity"); CHECK_NEAR(l.g.x, 0, 0, "gravity x");
    CHECK_NEAR(l.physics[0], 0.05, 0, "dt");
    CHECK_NEAR(l.physics[2], 5, 0, "substeps: ceil(0.05 / 0.01)");
    CHECK_NEAR(l.physics[1], 0.01, 1e-15, "substep dt");
    CHECK_NEAR(l.physics[3], 10, 0, "max_substeps"); CHECK_NEAR(l.physics[4], 0.01, 0, "max_substep_delta_time");
    /* Back to physics with nothing below: the car falls with the reported gravity. */
    CHECK(sn_engine_set_simulate_physics(e, car, true, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_set_velocity(e, car, (sn_vec3){0, 0, 0}, (sn_vec3){0, 0, 0}, &err) == SN_OK, "%s", err.msg);
    tu_step_each(e, 3);
    c = tu_actor(e, "car");
    /* Within air drag: 0.5 rho CdA v^2 / m is under 1e-3 m/s^2 at 1.5 m/s for the sedan. */
    CHECK_NEAR(c.acceleration.z, l.g.z, 2e-3, "free fall");
    CHECK(c.acceleration.z > l.g.z, "drag only slows the fall: %.9f", c.acceleration.z);
    CHECK_NEAR(l.a.z, c.acceleration.z, 1e-9, "the sensor falls with it");
    sn_engine_destroy(e);
}

/* CARLA's GeoLocation::Transform, written out again: Mercator at the reference's scale. */
static sn_vec3 carla_geo(double lat0, double lon0, double alt0, sn_vec3 p)
{
    const double R = 6378137.0, pi = 3.14159265358979323846, s = cos(lat0 * pi / 180);
    double mx = s * lon0 * pi / 180 * R + p.x, my = s * R * log(tan((90 + lat0) * pi / 360)) - p.y;
    return (sn_vec3){360 * atan(exp(my / (R * s))) / pi - 90, mx * 180 / (pi * R * s), alt0 + p.z};
}

static void geo(void)
{
    /* Hand-checked at the equator: pi R / 180 = 111319.4908 m east is 1 degree of longitude;
    ** R ln tan(45.5 deg) = 111325.1428 m north (-y) is 1 degree of latitude. */
    sn_engine *e = load("geo0.yaml", "sensors:\n  - {name: east, blueprint: sensor.test.sdk12_probe, transform: "
                        "{location: [111319.49079327357, 0, 0]}}\n"
                        "  - {name: north, blueprint: sensor.test.sdk12_probe, transform: "
                        "{location: [0, -111325.14286638486, 7]}}\n");
    last le = {0}, ln = {0};
    listen_to(e, "east", &le); listen_to(e, "north", &ln);
    tu_step_each(e, 1);
    CHECK_NEAR(le.geo.x, 0, 1e-12, "east: latitude"); CHECK_NEAR(le.geo.y, 1, 1e-12, "east: 1 degree of longitude");
    CHECK_NEAR(ln.geo.x, 1, 1e-9, "north: 1 degree of latitude"); CHECK_NEAR(ln.geo.y, 0, 1e-12, "north: longitude");
    CHECK_NEAR(ln.geo.z, 7, 0, "altitude is z over a reference at 0");
    sn_engine_destroy(e);
    e = load("geo1.yaml", "settings: {georeference: {latitude: 49.0, longitude: 8.4, altitude: 110}}\n"
             "sensors:\n  - {name: o, blueprint: sensor.test.sdk12_probe}\n"
             "  - {name: p, blueprint: sensor.test.sdk12_probe, transform: {location: [1234.5, -2345.25, 3]}}\n");
    last lo = {0}, lp = {0};
    listen_to(e, "o", &lo); listen_to(e, "p", &lp);
    tu_step_each(e, 1);
    CHECK_NEAR(lo.geo.x, 49.0, 1e-12, "origin: the reference latitude"); CHECK_NEAR(lo.geo.y, 8.4, 1e-12, "lon");
    CHECK_NEAR(lo.geo.z, 110, 0, "origin: the reference altitude");
    sn_vec3 want = carla_geo(49.0, 8.4, 110, (sn_vec3){1234.5, -2345.25, 3});
    CHECK_NEAR(lp.geo.x, want.x, 1e-12, "latitude by CARLA's formula");
    CHECK_NEAR(lp.geo.y, want.y, 1e-12, "longitude by CARLA's formula");
    CHECK_NEAR(lp.geo.z, 113, 0, "altitude");
    CHECK(lp.geo.x > 49.0 && lp.geo.y > 8.4, "-y is north and +x east: %.9f %.9f", lp.geo.x, lp.geo.y);
    /* Near 49 degrees, a degree of latitude is about 111.2 km along the ground. */
    CHECK_NEAR((lp.geo.x - 49.0) * 111.2e3, 2345.25, 20, "metres north, roughly");
    sn_engine_destroy(e);
    sn_error err;
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    e = sn_engine_create(&o, &err);
    CHECK(sn_engine_load_scene(e, tu_write(dir, "geo_bad.yaml", "settings:\n  georeference: {latitude: 89}\n"),
                               &err) == SN_E_INVALID, "a pole is refused");
    CHECK_CONTAINS(err.msg, "geo_bad.yaml:2:");
    CHECK_CONTAINS(err.msg, "georeference latitude must be within [-85, 85]");
    sn_engine_destroy(e);
}

/* noise_seed: the stream restarts as a fresh one with that seed, whatever the sensor's name. */
static void reseed(void)
{
    sn_engine *e = load("seed.yaml", "settings: {seed: 3}\nsensors:\n"
                        "  - {name: x, blueprint: sensor.test.sdk12_probe, attributes: {noise_seed: 7}}\n"
                        "  - {name: y, blueprint: sensor.test.sdk12_probe, attributes: {noise_seed: 7}}\n"
                        "  - {name: z, blueprint: sensor.test.sdk12_probe}\n");
    last lx = {0}, ly = {0}, lz = {0};
    listen_to(e, "x", &lx); listen_to(e, "y", &ly); listen_to(e, "z", &lz);
    tu_step_each(e, 1);
    sn_rng fresh;
    sn_rng_seed(&fresh, 7);
    for (int i = 0; i < 4; i++) {
        uint64_t want = sn_rng_u64(&fresh);
        CHECK(lx.draws[i] == want && ly.draws[i] == want, "draw %d: %llu %llu vs %llu", i,
              (unsigned long long)lx.draws[i], (unsigned long long)ly.draws[i], (unsigned long long)want);
    }
    CHECK(lz.draws[0] != lx.draws[0], "without noise_seed the stream is the sensor's own");
    sn_engine_destroy(e);
}

/* A plugin built against the 1.1 headers: loads, takes attributes, a method, rays, writes. */
static void abi11(void)
{
    sn_engine *e = load("abi11.yaml", "actors:\n  - {name: ground, blueprint: static.ground}\n"
                        "sensors:\n  - name: old\n    blueprint: sensor.test.abi11\n"
                        "    transform: {location: [3, 4, 10]}\n    attributes: {label: hello, count: 42}\n"
                        "    calls: [{at: 0.05, method: mark, args: [seen]}]\n");
    last l = {0};
    listen_to(e, "old", &l);
    tu_step_each(e, 2);
    CHECK(l.n == 2, "two messages: %d", l.n);
    CHECK(!strcmp(l.label, "hello") && l.count == 42, "attributes: '%s' %g", l.label, l.count);
    CHECK(!strcmp(l.marked, "seen"), "method through the 1.1 table: '%s'", l.marked);
    CHECK(l.hit, "the ray down hits the ground");
    CHECK_NEAR(l.distance, 10, 1e-9, "distance in the 1.1 layout");
    CHECK_NEAR(l.point.x, 3, 1e-9, "point x"); CHECK_NEAR(l.point.z, 0, 1e-9, "point z");
    CHECK(l.actor == sn_engine_find_actor(e, "ground") && l.tag == 1, "actor %g tag %g", l.actor, l.tag);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1], plugins = argv[2];
    class_state();
    kinematics();
    geo();
    reseed();
    abi11();
    return CHECK_DONE();
}
