/* Vehicles, walkers, autopilot, scheduling and sensor_tick against what physics predicts.
** argv[1]: temp folder, argv[2]: plugin folder list "a:b" (collision and the tick probe). */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

static const char *dir, *plugins;

static double speed(const sn_actor_info *a) { return hypot(a->velocity.x, a->velocity.y); }

static sn_engine *scene(const char *text) { return tu_load(plugins, tu_write(dir, "dyn.yaml", text)); }

static void step(sn_engine *e, int n)
{
    sn_error err;
    for (int i = 0; i < n; i++)
        if (sn_engine_step(e, &err) != SN_OK) {
            CHECK(0, "%s", err.msg);
            return;
        }
}

static void acceleration_and_top_speed(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground}\n"
                         "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, control: {throttle: 1}}\n");
    double t100 = -1;
    for (int f = 1; f <= 1200; f++) {
        step(e, 1);
        sn_actor_info a = tu_actor(e, "car");
        if (t100 < 0 && speed(&a) >= 100 / 3.6)
            t100 = f * 0.05;
    }
    sn_actor_info a = tu_actor(e, "car");
    CHECK(t100 > 4 && t100 < 15, "0-100 km/h in %.2f s (a car takes 4-15 s)", t100);
    CHECK(speed(&a) > 35 && speed(&a) < 75, "top speed after 60 s: %.1f m/s", speed(&a));
    CHECK(fabs(a.transform.location.y) < 0.5, "straight line: y %.3f", a.transform.location.y);
    fprintf(stderr, "sedan: 0-100 km/h %.2f s, speed after 60 s %.1f m/s\n", t100, speed(&a));
    sn_engine_destroy(e);
}

static void braking(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground}\n"
                         "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, velocity: [20, 0, 0],\n"
                         "     control: {brake: 1}}\n");
    step(e, 100);
    sn_actor_info a = tu_actor(e, "car");
    double ideal = 20.0 * 20.0 / (2 * 1.0 * 9.81); /* v^2 / (2 mu g) */
    CHECK(speed(&a) < 0.05, "stopped: %.3f m/s", speed(&a));
    CHECK(a.transform.location.x > 0.8 * ideal && a.transform.location.x < 1.6 * ideal,
          "braking distance %.1f m vs v^2/(2 mu g) = %.1f m", a.transform.location.x, ideal);
    sn_engine_destroy(e);
}

static void reverse_and_steer(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground}\n"
                         "  - {name: back, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}, control: {throttle: 0.5, reverse: true}}\n"
                         "  - {name: right, blueprint: vehicle.sedan, transform: {location: [0, 50, 0]}, control: {throttle: 0.3, steer: 0.5}}\n");
    step(e, 60);
    sn_actor_info b = tu_actor(e, "back"), r = tu_actor(e, "right");
    CHECK(b.transform.location.x < -5, "reverse drives backwards: x %.2f", b.transform.location.x);
    CHECK(r.transform.rotation.yaw > 20 && r.transform.location.y > 50, "positive steer turns right (+y): yaw %.1f",
          r.transform.rotation.yaw);
    sn_engine_destroy(e);
}

static void walker(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground, attributes: {semantic_tag: sidewalk}}\n"
                         "  - {name: p, blueprint: walker.pedestrian, transform: {location: [0, 0, 0.9]},\n"
                         "     control: {direction: [0, 1, 0], speed: 1.4}}\n");
    step(e, 100);
    sn_actor_info a = tu_actor(e, "p");
    CHECK_NEAR(speed(&a), 1.4, 0.02, "walker speed");
    CHECK_NEAR(a.transform.location.y, 1.4 * 5.0, 0.3, "walker distance in 5 s");
    CHECK_NEAR(a.transform.location.z, 0.9, 0.05, "walker upright on the ground");
    CHECK_NEAR(a.transform.rotation.yaw, 90, 1, "walker faces where it walks");
    sn_engine_destroy(e);
}

static void autopilot(void)
{
    sn_engine *e = scene("actors:\n  - {blueprint: static.ground}\n"
                         "  - {name: car, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]},\n"
                         "     autopilot: {route: [[40, 0, 0], [40, 40, 0], [0, 40, 0]], target_speed: 8}}\n"
                         "  - {name: p, blueprint: walker.pedestrian, transform: {location: [0, -5, 0.9]},\n"
                         "     autopilot: {route: [[5, -5, 0], [5, -10, 0]]}}\n");
    double vmax = 0;
    for (int f = 0; f < 800; f++) {
        step(e, 1);
        sn_actor_info a = tu_actor(e, "car");
        vmax = fmax(vmax, speed(&a));
    }
    sn_actor_info a = tu_actor(e, "car"), p = tu_actor(e, "p");
    CHECK(hypot(a.transform.location.x, a.transform.location.y - 40) < 4.5, "the car ends at its last point: (%.1f, %.1f)",
          a.transform.location.x, a.transform.location.y);
    CHECK(speed(&a) < 0.2, "and stops there: %.2f m/s", speed(&a));
    CHECK(vmax > 7 && vmax < 9.5, "it holds its target speed: max %.2f m/s", vmax);
    CHECK(hypot(p.transform.location.x - 5, p.transform.location.y + 10) < 0.7, "the walker follows its route");
    sn_engine_destroy(e);
}

static uint64_t frames[64];
static int n_frames;
static double randoms[64];
static uint64_t last_spawned, last_destroyed, last_actors[64];

static void on_probe(const sn_message *m, void *user)
{
    (void)user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS && n_frames < 64) {
        CHECK((uint64_t)tu_num(tu_get(&u.data, "pre_frame")) == m->frame, "pre-physics ran earlier in the same frame");
        CHECK((int64_t)tu_num(tu_get(&u.data, "time_ns")) == (int64_t)m->frame * 50000000, "integer clock");
        randoms[n_frames] = tu_num(tu_get(&u.data, "random"));
        last_spawned = (uint64_t)tu_num(tu_get(&u.data, "spawned"));
        last_destroyed = (uint64_t)tu_num(tu_get(&u.data, "destroyed"));
        last_actors[n_frames] = (uint64_t)tu_num(tu_get(&u.data, "actors"));
        frames[n_frames++] = m->frame;
    }
    msgpack_unpacked_destroy(&u);
}

static void sensor_tick_and_schedule(void)
{
    sn_engine *e = scene("settings: {fixed_delta_seconds: 0.05, frames: 12}\n"
                         "actors:\n  - {blueprint: static.ground}\n"
                         "  - {name: late, blueprint: static.prop.box, spawn_at: 0.2, destroy_at: 0.4}\n"
                         "sensors:\n  - {name: probe, blueprint: sensor.test.tick_probe, attributes: {sensor_tick: 0.1}}\n");
    sn_error err;
    n_frames = 0;
    sn_engine_listen(e, "probe", on_probe, NULL, &err);
    CHECK(sn_engine_run(e, 0, &err) == SN_OK, "%s", err.msg);
    /* dt 0.05, sensor_tick 0.1: the first frame, then every 0.1 s of simulated time. */
    static const uint64_t want[] = {1, 3, 5, 7, 9, 11};
    CHECK(n_frames == 6, "six ticks in twelve frames, got %d", n_frames);
    for (int i = 0; i < n_frames && i < 6; i++)
        CHECK(frames[i] == want[i], "tick %d at frame %llu, want %llu", i, (unsigned long long)frames[i],
              (unsigned long long)want[i]);
    /* Actors: ground + probe, the box from t=0.2 (frame 4) to t=0.4 (frame 8). */
    CHECK(last_actors[0] == 2 && last_actors[2] == 3 && last_actors[4] == 2, "spawn_at/destroy_at: %llu %llu %llu",
          (unsigned long long)last_actors[0], (unsigned long long)last_actors[2], (unsigned long long)last_actors[4]);
    CHECK(last_spawned == 3 && last_destroyed == 1, "world events: %llu spawned, %llu destroyed",
          (unsigned long long)last_spawned, (unsigned long long)last_destroyed);
    CHECK(randoms[0] != randoms[1] && randoms[0] >= 0 && randoms[0] < 1, "a random stream per sensor");
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1];
    plugins = argv[2];
    acceleration_and_top_speed();
    braking();
    reverse_and_steer();
    walker();
    autopilot();
    sensor_tick_and_schedule();
    return CHECK_DONE();
}
