/*
** sensor.other.obstacle on the SDK's fake host, distances derived from the boxes: a sphere of
** radius r swept from the sensor along its forward vector touches a box face at distance d when
** its centre has gone d - r (UE's FHitResult::Distance), a box edge 0.3 m beside its path at
** d - sqrt(r^2 - 0.3^2); the parent is never an obstacle, even with the sensor inside its box;
** only_dynamics passes a static box to reach a car behind it; nothing within reach, no
** message; a sphere that starts on the ground reports it at 0 (as CARLA reports its road);
** refused attributes; 1 vs 2 threads. argv[1]: sensim_obstacle.so
*/
#define SN_TESTING_IMPLEMENTATION
#include "common.h"

static const char *BP = "sensor.other.obstacle";
static const char *PLUGIN;

static void test_attributes(void)
{
    sn_plugin_entry_fn e;
    sn_fake *f = world(1, 1, PLUGIN, &e);
    check_refused(f, e, BP, "distance=-1", "outside the range");
    check_refused(f, e, BP, "distance=0", "outside the range");
    check_refused(f, e, BP, "hit_radius=-0.5", "outside the range");
    check_refused(f, e, BP, "only_dynamics=maybe", "only_dynamics");
    check_refused(f, e, BP, "sensor_tick=-1", "outside the range");
    check_refused(f, e, BP, "range=5", "range");
    sn_fake_sensor *ok = sn_fake_spawn(f, e, BP, (const char *[]){"debug_linetrace=true", NULL}, 0);
    CHECK(ok != NULL, "debug_linetrace is accepted: %s", sn_fake_error(f));
    sn_fake_free(f);
}

typedef struct scene {
    sn_fake *f;
    uint32_t ground, car, wall, truck;
    sn_fake_sensor *front, *dyn, *short_, *edge, *thin, *low;
} scene;

static scene build(int threads)
{
    scene s;
    sn_plugin_entry_fn e;
    s.f = world(2, threads, PLUGIN, &e);
    sn_fake *f = s.f;
    s.ground = sn_fake_add_actor(f, "static.ground", SN_TAG_ROADS, pose(0, 0, 0, 0, 0, 0), (sn_vec3){0, 0, 0});
    s.car = sn_fake_spawn_actor(f, "vehicle.sedan", "ego", pose(0, 0, 0, 0, 0, 0), 0,
                                (const char *[]){"role_name=hero", "extent=2.4,1,0.75", NULL});
    /* a wall 19.5 m ahead of the origin (its face), 4 m wide */
    s.wall = sn_fake_add_actor(f, "static.prop.box", SN_TAG_WALL, pose(20, 0, 1.5, 0, 0, 0), (sn_vec3){0.5, 2, 1.5});
    /* a truck behind the wall: its rear face at x = 37.6 */
    s.truck = sn_fake_spawn_actor(f, "vehicle.sedan", "truck", pose(40, 0, 0, 0, 0, 0), 0,
                                  (const char *[]){"extent=2.4,1,0.75", NULL});
    CHECK(s.ground && s.car && s.wall && s.truck, "actors: %s", sn_fake_error(f));
    /* mounted inside the car's box: the car itself is never reported */
    s.front = sn_fake_spawn_named(f, e, BP, "front", (const char *[]){"distance=30", NULL}, s.car, pose(1, 0, 1, 0, 0, 0));
    s.dyn = sn_fake_spawn_named(f, e, BP, "dyn", (const char *[]){"distance=50", "only_dynamics=true", NULL}, s.car,
                                pose(1, 0, 1, 0, 0, 0));
    s.short_ = sn_fake_spawn_named(f, e, BP, "short", (const char *[]){"distance=15", NULL}, s.car, pose(1, 0, 1, 0, 0, 0));
    /* 0.3 m beside the wall's side (y = 2): the 0.5 m sphere grazes its edge, a 0.2 m one passes */
    s.edge = sn_fake_spawn_named(f, e, BP, "edge", (const char *[]){"distance=30", NULL}, s.car, pose(1, 2.3, 1, 0, 0, 0));
    s.thin = sn_fake_spawn_named(f, e, BP, "thin", (const char *[]){"distance=30", "hit_radius=0.2", NULL}, s.car,
                                 pose(1, 2.3, 1, 0, 0, 0));
    s.low = sn_fake_spawn_named(f, e, BP, "low", (const char *[]){"distance=30", NULL}, s.car, pose(1, 0, 0.3, 0, 0, 0));
    CHECK(s.front && s.dyn && s.short_ && s.edge && s.thin && s.low, "sensors: %s", sn_fake_error(f));
    return s;
}

static void test_distances(void)
{
    scene s = build(1);
    if (!s.low)
        return sn_fake_free(s.f);
    for (int k = 0; k < 2; k++) {
        const double dx = 5.0 * k; /* the car moves 5 m forward for the second frame */
        if (k)
            sn_fake_move_to(s.f, s.car, pose(dx, 0, 0, 0, 0, 0));
        CHECK(sn_fake_step(s.f) == SN_OK, "%s", sn_fake_error(s.f));
        CHECK(sn_fake_message_count(s.front) == 1, "front: %u messages", sn_fake_message_count(s.front));
        CHECK(sn_fake_number(s.front, 0, "other_actor.id") == s.wall, "front sees the wall, not its own car: %s",
              sn_fake_json(s.front, 0));
        CHECK_NEAR(sn_fake_number(s.front, 0, "distance"), 19.5 - 1 - dx - 0.5, 1e-9, "face distance - hit_radius");
        CHECK(!strcmp(sn_fake_string(s.front, 0, "other_actor.type_id"), "static.prop.box"), "type_id");
        CHECK(sn_fake_number(s.front, 0, "other_actor.semantic_tag") == SN_TAG_WALL, "semantic tag");
        CHECK(sn_fake_number(s.front, 0, "actor.id") == sn_fake_sensor_id(s.front) &&
                  sn_fake_number(s.front, 0, "actor.parent") == s.car,
              "actor: the sensor (CARLA's code), its parent the car: %s", sn_fake_json(s.front, 0));
        CHECK_NEAR(sn_fake_number(s.front, 0, "other_actor.bounding_box.extent.1"), 2, 1e-12, "other's box");
        /* only_dynamics: through the wall to the truck */
        CHECK(sn_fake_message_count(s.dyn) == 1 && sn_fake_number(s.dyn, 0, "other_actor.id") == s.truck,
              "only_dynamics sees the truck: %s", sn_fake_message_count(s.dyn) ? sn_fake_json(s.dyn, 0) : "none");
        /* the sweep meets the truck's collision box (docs/sensors/obstacle.md), not its drawn
        ** model: its rear face at x = 40 - 2.4 = 37.6 */
        CHECK_NEAR(sn_fake_number(s.dyn, 0, "distance"), 37.6 - 1 - dx - 0.5, 1e-9, "truck's rear - hit_radius");
        CHECK(!strcmp(sn_fake_string(s.dyn, 0, "other_actor.role_name"), ""), "role name");
        /* reach: the sphere meets the wall after 18 m, beyond a 15 m sweep; after 13 m once the car moved */
        CHECK(sn_fake_message_count(s.short_) == (k ? 1u : 0u), "short sweep, frame %d: %u messages", k,
              sn_fake_message_count(s.short_));
        /* grazing the edge 0.3 m beside the path: centre at 19.5 - sqrt(0.5^2 - 0.3^2) = 19.1 */
        CHECK(sn_fake_message_count(s.edge) == 1 && sn_fake_number(s.edge, 0, "other_actor.id") == s.wall, "edge hit");
        CHECK_NEAR(sn_fake_number(s.edge, 0, "distance"), 19.1 - 1 - dx, 1e-9, "edge distance");
        CHECK(sn_fake_message_count(s.thin) == 0, "a 0.2 m sphere passes 0.3 m beside the wall: %s",
              sn_fake_message_count(s.thin) ? sn_fake_json(s.thin, 0) : "");
        /* starting 0.3 m above the ground with a 0.5 m sphere: the ground, at once */
        CHECK(sn_fake_message_count(s.low) == 1 && sn_fake_number(s.low, 0, "other_actor.id") == s.ground &&
                  sn_fake_number(s.low, 0, "distance") == 0,
              "low sphere touches the ground at the start");
    }
    /* the car turns away: nothing ahead of the front sensor within 30 m (the truck is 40 m off) */
    sn_fake_move_to(s.f, s.car, pose(5, 0, 0, 0, 90, 0));
    CHECK(sn_fake_step(s.f) == SN_OK, "%s", sn_fake_error(s.f));
    CHECK(sn_fake_message_count(s.front) == 0 && sn_fake_message_count(s.dyn) == 0, "turned away: no events");
    sn_fake_free(s.f);
}

static size_t run_bytes(int threads, unsigned char *buf, size_t cap)
{
    scene s = build(threads);
    size_t n = 0;
    for (int k = 1; k <= 10 && s.low; k++) {
        sn_fake_move_to(s.f, s.car, pose(k, 0.1 * k, 0, 0, k, 0));
        if (sn_fake_step(s.f))
            break;
        sn_fake_sensor *all[] = {s.front, s.dyn, s.edge, s.low};
        for (int j = 0; j < 4; j++)
            for (uint32_t m = 0; m < sn_fake_message_count(all[j]); m++) {
                size_t sz;
                const void *raw = sn_fake_raw(all[j], m, &sz);
                if (raw && n + sz <= cap)
                    memcpy(buf + n, raw, sz), n += sz;
            }
    }
    sn_fake_free(s.f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_obstacle sensim_obstacle.so\n"), 2;
    PLUGIN = argv[1];
    test_attributes();
    test_distances();
    static unsigned char a[1 << 18], b[1 << 18];
    size_t na = run_bytes(1, a, sizeof a), nb = run_bytes(2, b, sizeof b);
    CHECK(na > 0 && na == nb && !memcmp(a, b, na), "1 and 2 threads: %zu vs %zu bytes", na, nb);
    return CHECK_DONE();
}
