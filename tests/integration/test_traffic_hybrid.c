/* The Traffic Manager's hybrid physics mode (engine/traffic/hybrid.c; CARLA's
** set_hybrid_physics_mode / set_hybrid_physics_radius) on the town map with 40 autopilot vehicles.
** argv[1]: temp folder, argv[2]: plugin folder, argv[3]: tests/data (town.xodr).
**
** 1. Off (the default): every vehicle keeps its physics.
** 2. On without a hero: every autopilot vehicle loses its physics (CARLA's ALSM: in range of no
**    hero), moves onto the path it had when the frame began (its lanes' centre lines), within a
**    driving lane except in the turn-round loops beyond dead ends, at the speed it reports (the velocity is the frame's displacement
**    over dt), no faster than the town's limits allow; most vehicles travel; no two vehicles'
**    centres come within a metre of each other.
** 3. With a hero (role_name "hero") and a 40 m radius: after every frame, exactly the vehicles
**    that were within 40 m of the hero when the frame began have physics.
** 4. Mode off again: every vehicle has its physics back, moving on at about the speed it had.
** 5. set_autopilot(false) and apply_control give a hybrid vehicle its physics back; a vehicle its user made
**    kinematic (set_simulate_physics false) is never switched by the mode.
** 6. Deterministic: the same run twice, and at 1 and 2 threads, gives identical states.
** 7. Coasting (traffic.c, vehicle_coast: a vehicle without physics decides on every 5th frame and
**    coasts on its decision between): a follower behind a leader that stops at once (made
**    kinematic by its user, standing) coasts on some frames and still stops behind it, its front
**    bumper never within 1.5 m of the leader's rear (the gap kept: CARLA's 2 m), and stops.
** 8. Sleeping (traffic.c, vehicle_sleep): that follower, held standing behind its standing leader,
**    sleeps (no decisions) for as long as the leader stands; when the leader drives off (3 m/s
**    along the lane), the follower moves on the next frame, as a coasting follower that measures its
**    leader each frame does: within one frame of the leader's first move. */
#include "../check.h"
#include "../testutil.h"
#include "../../engine/sim/engine.h"
#include "../../engine/traffic/traffic.h"

#include <math.h>

static const char *tmp, *plugins, *data;

#define N_CARS 40

static sn_engine *load(int threads, bool hero)
{
    char text[2048], map[1024];
    snprintf(map, sizeof map, "%s/town.xodr", data);
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 1000, seed: 3}\nmap: %s\n"
             "traffic: {vehicles: %d, walkers: 0, seed: 5}\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}}\n",
             map, N_CARS);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "hybrid.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: load: %s\n", err.msg);
        exit(1);
    }
    if (hero) { /* a parked hero at the map's first spawn point with no vehicle within 10 m */
        static sn_transform sp[512];
        size_t n = 0, k = 0;
        if (sn_map_spawn_points(sn_engine_map(e), sp, 512, &n, &err) != SN_OK || n == 0) {
            fprintf(stderr, "FAIL: spawn points: %s\n", err.msg);
            exit(1);
        }
        for (bool busy = true; busy && k < n; k += busy) {
            busy = false;
            for (size_t i = 0; i < e->world.n_actors && !busy; i++) {
                const sn_actor *a = e->world.actors[i];
                busy = a->kind == SN_ACTOR_VEHICLE && sn_v3_len(sn_v3_sub(a->st.pos, sp[k].location)) < 10;
            }
        }
        if (k == n) {
            fprintf(stderr, "FAIL: no free spawn point\n");
            exit(1);
        }
        sp[0] = sp[k];
        sp[0].location.z += 0.3;
        const sn_attribute role = {"role_name", "hero"};
        sn_actor_desc d = {sizeof d, "vehicle.sedan", "hero", sp[0], 0, 0, &role, 1};
        uint32_t id = 0;
        sn_vehicle_control brake = {.brake = 1};
        if (sn_engine_spawn(e, &d, &id, &err) != SN_OK || sn_engine_apply_control(e, id, &brake, &err) != SN_OK) {
            fprintf(stderr, "FAIL: hero: %s\n", err.msg);
            exit(1);
        }
    }
    return e;
}

static void step(sn_engine *e, int frames)
{
    sn_error err = {0};
    for (int i = 0; i < frames; i++)
        if (sn_engine_step(e, &err) != SN_OK) {
            fprintf(stderr, "FAIL: step: %s\n", err.msg);
            exit(1);
        }
}

static void set_tm(sn_engine *e, sn_tm_param p, double v)
{
    sn_error err = {0};
    if (sn_engine_tm_set(e, 8000, 0, p, v, &err) != SN_OK) {
        fprintf(stderr, "FAIL: tm_set: %s\n", err.msg);
        exit(1);
    }
}

/* The autopilot vehicles (the traffic's), in id order. */
static size_t cars(sn_engine *e, sn_actor **out)
{
    size_t n = 0;
    for (size_t i = 0; i < e->world.n_actors && n < N_CARS; i++) {
        sn_actor *a = e->world.actors[i];
        if (a->kind == SN_ACTOR_VEHICLE && a->has_autopilot && a->mv->ap->map)
            out[n++] = a;
    }
    return n;
}

static bool hybrid_off(const sn_actor *a) { return a->mv->ap && a->mv->ap->map && a->mv->ap->map->hybrid_off; }

static sn_vec3 hero_pos(sn_engine *e)
{
    sn_actor *h = sn_world_find_name(&e->world, "hero");
    return h ? h->st.pos : sn_v3(NAN, NAN, NAN);
}

/* How far p lies (x-y) from the polyline q[0..n), or from its extension beyond its end. */
static double off_polyline(sn_vec3 p, const sn_vec3 *q, uint32_t n)
{
    double best = INFINITY;
    for (uint32_t k = 0; k + 1 < n; k++) {
        double ux = q[k + 1].x - q[k].x, uy = q[k + 1].y - q[k].y, l2 = ux * ux + uy * uy;
        double t = l2 > 0 ? ((p.x - q[k].x) * ux + (p.y - q[k].y) * uy) / l2 : 0;
        t = t < 0 ? 0 : (t > 1 && k + 2 < n) ? 1 : t;
        best = fmin(best, hypot(p.x - q[k].x - t * ux, p.y - q[k].y - t * uy));
    }
    return n == 1 ? hypot(p.x - q[0].x, p.y - q[0].y) : best;
}

static void test_default_and_no_hero(void)
{
    sn_engine *e = load(1, false);
    sn_actor *c[N_CARS];
    size_t n = cars(e, c);
    CHECK(n == N_CARS, "%zu autopilot vehicles", n);
    step(e, 20);
    size_t phys = 0;
    for (size_t i = 0; i < n; i++)
        phys += c[i]->drive == SN_DRIVE_PHYSICS && !hybrid_off(c[i]);
    CHECK(phys == n, "mode off: %zu of %zu vehicles keep their physics", phys, n);

    set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 1);
    step(e, 1);
    size_t off = 0;
    for (size_t i = 0; i < n; i++)
        off += c[i]->drive == SN_DRIVE_KINEMATIC && hybrid_off(c[i]);
    CHECK(off == n, "mode on, no hero: %zu of %zu vehicles without physics", off, n);

    const sn_map *m = sn_engine_map(e);
    sn_vec3 start[N_CARS], prev[N_CARS];
    double travelled[N_CARS] = {0}, worst_path = 0, worst_vel = 0, worst_speed = 0, nearest = INFINITY;
    for (size_t i = 0; i < n; i++)
        start[i] = prev[i] = c[i]->st.pos;
    static sn_vec3 path[N_CARS][SN_MD_PATH];
    uint32_t np[N_CARS];
    size_t stray = 0, looping = 0;
    for (int f = 0; f < 400; f++) {
        for (size_t i = 0; i < n; i++) {
            const sn_mapdrive *md = c[i]->mv->ap->map;
            np[i] = md->n;
            for (uint32_t k = 0; k < md->n; k++)
                path[i][k] = md->at[k];
        }
        step(e, 1);
        for (size_t i = 0; i < n; i++) {
            sn_vec3 p = c[i]->st.pos, d = sn_v3_sub(p, prev[i]);
            travelled[i] += sn_v3_len(d);
            /* the reported velocity is the frame's displacement */
            worst_vel = fmax(worst_vel, sn_v3_len(sn_v3_sub(c[i]->st.vel, sn_v3_scale(d, 1 / 0.05))));
            worst_speed = fmax(worst_speed, sn_v3_len(d) / 0.05);
            sn_waypoint w;
            if (sn_map_waypoint(m, p, true, SN_LANE_DRIVING, &w, NULL) == SN_OK) {
                double dx = p.x - w.transform.location.x, dy = p.y - w.transform.location.y;
                if (hypot(dx, dy) > w.lane_width / 2) { /* off its lane: only in a turn-round loop at a dead end */
                    sn_waypoint nx[8];
                    size_t kn = 0, kp = 0;
                    sn_map_next(m, &w, 1.0, nx, 8, &kn, NULL);
                    sn_map_previous(m, &w, 1.0, nx, 8, &kp, NULL);
                    stray += kn > 0 && kp > 0;
                    looping++;
                }
            } else {
                stray++;
            }
            worst_path = fmax(worst_path, off_polyline(p, path[i], np[i]));
            for (size_t j = 0; j < i; j++) {
                sn_vec3 q = sn_v3_sub(p, c[j]->st.pos);
                nearest = fmin(nearest, hypot(q.x, q.y));
            }
            prev[i] = p;
        }
    }
    size_t moved = 0;
    double far = 0;
    for (size_t i = 0; i < n; i++) {
        moved += travelled[i] > 20;
        far = fmax(far, sn_v3_len(sn_v3_sub(c[i]->st.pos, start[i])));
    }
    CHECK(worst_path < 1e-6, "every vehicle moves onto its path as the frame began (worst %.3g m off)", worst_path);
    CHECK(stray == 0, "%zu vehicle-frames off a driving lane away from a dead end (%zu beyond one)", stray, looping);
    CHECK(worst_vel < 1e-6, "the reported velocity is the displacement over dt (worst %.3g m/s off)", worst_vel);
    /* the town's limits are at most 50 km/h; the autopilot drives 30 % below them */
    CHECK(worst_speed > 3 && worst_speed <= 50 / 3.6 + 1e-6, "the fastest frame: %.2f m/s", worst_speed);
    CHECK(moved >= n * 3 / 4, "%zu of %zu vehicles travelled more than 20 m in 20 s", moved, n);
    CHECK(far > 50, "the farthest got %.1f m from where it began", far);
    CHECK(nearest > 1.0, "no two vehicles' centres within 1 m (nearest %.2f m)", nearest);

    /* 4. Off again: physics back, at about the speed it had. */
    double speed[N_CARS];
    for (size_t i = 0; i < n; i++)
        speed[i] = sn_v3_len(c[i]->st.vel);
    set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 0);
    step(e, 1);
    size_t back = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        back += c[i]->drive == SN_DRIVE_PHYSICS && !hybrid_off(c[i]);
        kept += fabs(sn_v3_len(c[i]->st.vel) - speed[i]) < 1.0;
    }
    CHECK(back == n, "mode off again: %zu of %zu vehicles have physics", back, n);
    CHECK(kept >= n * 9 / 10, "%zu of %zu vehicles move on within 1 m/s of their speed", kept, n);
    step(e, 100);
    size_t upright = 0;
    for (size_t i = 0; i < n; i++) {
        sn_mat3 r = sn_mat3_from_quat(c[i]->st.rot);
        upright += sn_mat3_col(&r, 2).z > 0.9;
    }
    CHECK(upright == n, "%zu of %zu vehicles upright 5 s after getting their physics back", upright, n);
    sn_engine_destroy(e);
}

static void test_hero(void)
{
    sn_engine *e = load(1, true);
    sn_actor *c[N_CARS];
    size_t n = cars(e, c);
    set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 1);
    set_tm(e, SN_TM_HYBRID_PHYSICS_RADIUS, 40);
    sn_actor *hero = sn_world_find_name(&e->world, "hero");
    CHECK(hero != NULL, "the hero spawned");
    size_t wrong = 0, near = 0, far = 0, switches = 0;
    bool was[N_CARS];
    for (size_t i = 0; i < n; i++)
        was[i] = hybrid_off(c[i]);
    for (int f = 0; f < 300; f++) {
        sn_vec3 h = hero_pos(e), before[N_CARS];
        for (size_t i = 0; i < n; i++)
            before[i] = c[i]->st.pos;
        step(e, 1);
        for (size_t i = 0; i < n; i++) {
            bool in = sn_v3_len(sn_v3_sub(before[i], h)) < 40;
            bool phys = c[i]->drive == SN_DRIVE_PHYSICS && !hybrid_off(c[i]);
            wrong += in != phys;
            near += in, far += !in;
            switches += hybrid_off(c[i]) != was[i];
            was[i] = hybrid_off(c[i]);
        }
    }
    CHECK(wrong == 0, "physics exactly within 40 m of the hero: %zu vehicle-frames wrong", wrong);
    CHECK(near > 0 && far > 0, "vehicles both near (%zu) and far (%zu vehicle-frames)", near, far);
    CHECK(hero->drive == SN_DRIVE_PHYSICS, "the hero keeps its physics");
    printf("  %zu switches in 300 frames\n", switches);

    /* 5. set_autopilot(false) gives physics back; a user's kinematic vehicle is left alone. */
    sn_error err = {0};
    sn_actor *x = NULL, *u = NULL;
    for (size_t i = 0; i < n && (!x || !u); i++) {
        if (!hybrid_off(c[i]))
            continue;
        if (!x)
            x = c[i];
        else
            u = c[i];
    }
    CHECK(x && u, "two vehicles without physics");
    if (x && u) {
        CHECK(sn_engine_set_autopilot(e, x->id, false, NULL, &err) == SN_OK && x->drive == SN_DRIVE_PHYSICS,
              "autopilot off: physics back (%s)", err.msg);
        sn_actor *y = NULL;
        for (size_t i = 0; i < n && !y; i++)
            if (hybrid_off(c[i]) && c[i] != u)
                y = c[i];
        sn_vehicle_control brake = {.brake = 1};
        CHECK(y && sn_engine_apply_control(e, y->id, &brake, &err) == SN_OK && y->drive == SN_DRIVE_PHYSICS,
              "apply_control: physics back (%s)", err.msg);
        CHECK(sn_engine_set_autopilot(e, u->id, false, NULL, &err) == SN_OK &&
                  sn_engine_set_simulate_physics(e, u->id, false, &err) == SN_OK &&
                  sn_engine_set_autopilot(e, u->id, true, NULL, &err) == SN_OK,
              "%s", err.msg);
        step(e, 5);
        CHECK(u->drive == SN_DRIVE_KINEMATIC && !u->mv->ap->map->hybrid_off, "the user's kinematic vehicle is not the mode's");
        set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 0);
        step(e, 5);
        CHECK(u->drive == SN_DRIVE_KINEMATIC, "mode off: the user's kinematic vehicle stays kinematic");
    }
    sn_engine_destroy(e);
}

/* 6. The vehicles' states after 200 hybrid frames with the hero. */
static void run_states(int threads, sn_actor_state *out)
{
    sn_engine *e = load(threads, true);
    set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 1);
    set_tm(e, SN_TM_HYBRID_PHYSICS_RADIUS, 40);
    step(e, 200);
    sn_actor *c[N_CARS];
    size_t n = cars(e, c);
    memset(out, 0, N_CARS * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = c[i]->st;
    sn_engine_destroy(e);
}

static void test_determinism(void)
{
    static sn_actor_state a[N_CARS], b[N_CARS], c[N_CARS];
    run_states(1, a);
    run_states(1, b);
    run_states(2, c);
    CHECK(memcmp(a, b, sizeof a) == 0, "the same run twice: identical states");
    CHECK(memcmp(a, c, sizeof a) == 0, "1 and 2 threads: identical states");
}

static void test_coast_gap(void)
{
    sn_engine *e = load(1, false);
    set_tm(e, SN_TM_HYBRID_PHYSICS_MODE, 1);
    sn_actor *c[N_CARS];
    size_t n = cars(e, c);
    sn_actor *f = NULL, *l = NULL;
    for (int frame = 0; frame < 1200 && !f; frame++) {
        step(e, 1);
        for (size_t i = 0; i < n && !f; i++) {
            const sn_mapdrive *md = c[i]->mv->ap->map;
            if (!md->hybrid_off || !md->coast || !md->coast_lead || sn_v3_len(c[i]->st.vel) < 5)
                continue;
            /* following at its gap (within 1 m more), its next four frames coasting */
            sn_actor *x = sn_world_find(&e->world, md->coast_lead);
            const sn_vec3 fwd = sn_quat_apply(c[i]->st.rot, sn_v3(1, 0, 0));
            if (x && x->kind == SN_ACTOR_VEHICLE && x->has_autopilot && (e->clock.frame + 1 + c[i]->id) % 5 == 1 &&
                sn_v3_dot(sn_v3_sub(x->st.pos, c[i]->st.pos), fwd) - c[i]->ph->bbox.extent.x - x->ph->bbox.extent.x < md->gap + 1)
                f = c[i], l = x;
        }
    }
    CHECK(f && l, "a vehicle without physics at 5 m/s or more coasting at its gap behind a leader");
    if (f && l) {
        sn_error err = {0};
        CHECK(sn_engine_set_autopilot(e, l->id, false, NULL, &err) == SN_OK &&
                  sn_engine_set_simulate_physics(e, l->id, false, &err) == SN_OK,
              "the leader stops: %s", err.msg);
        double least = INFINITY;
        int coasted = 0;
        for (int k = 0; k < 100; k++) {
            const sn_mapdrive *md = f->mv->ap->map;
            coasted += md->coast && (e->clock.frame + 1 + f->id) % 5 != 0; /* the next frame coasts */
            step(e, 1);
            const sn_vec3 fwd = sn_quat_apply(f->st.rot, sn_v3(1, 0, 0));
            least = fmin(least, sn_v3_dot(sn_v3_sub(l->st.pos, f->st.pos), fwd) - f->ph->bbox.extent.x - l->ph->bbox.extent.x);
        }
        fprintf(stderr, "  coasting follower %u behind %u stopping at once: %d frames coasted, least bumper gap %.2f m, "
                "speed at the end %.3f m/s\n", f->id, l->id, coasted, least, sn_v3_len(f->st.vel));
        CHECK(coasted >= 1, "the follower coasted (%d frames)", coasted);
        /* (without measuring its leader anew between decisions it comes to 1 m and less) */
        CHECK(least >= 1.5, "the follower kept 1.5 m or more behind the stopped leader (%.2f m)", least);
        /* (it creeps up to its gap: approach() gives 0.06 m/s 6 cm short of it) */
        CHECK(sn_v3_len(f->st.vel) < 0.2, "the follower stops (%.3f m/s)", sn_v3_len(f->st.vel));

        /* 8. It sleeps while the leader stands, and wakes on its move. */
        int asleep = 0;
        for (int k = 0; k < 40; k++) {
            step(e, 1);
            asleep += f->mv->ap->map->asleep;
        }
        const sn_vec3 f0 = f->st.pos, l0 = l->st.pos;
        fprintf(stderr, "  the stopped follower slept %d of 40 frames\n", asleep);
        CHECK(asleep == 40, "the follower behind the standing leader sleeps every frame (%d of 40)", asleep);
        CHECK(sn_v3_len(sn_v3_sub(f->st.pos, f0)) == 0, "asleep, it stands");
        const sn_vec3 lf = sn_quat_apply(l->st.rot, sn_v3(1, 0, 0));
        sn_error err2 = {0};
        CHECK(sn_engine_set_velocity(e, l->id, sn_v3_scale(lf, 3.0), sn_v3(0, 0, 0), &err2) == SN_OK, "the leader drives off: %s",
              err2.msg);
        int lead_moved = -1, follow_moved = -1;
        for (int k = 0; k < 20; k++) {
            step(e, 1);
            if (lead_moved < 0 && sn_v3_len(sn_v3_sub(l->st.pos, l0)) > 0)
                lead_moved = k;
            if (follow_moved < 0 && sn_v3_len(sn_v3_sub(f->st.pos, f0)) > 0.01)
                follow_moved = k;
        }
        fprintf(stderr, "  the leader moved in frame %d, the follower in frame %d\n", lead_moved, follow_moved);
        CHECK(lead_moved >= 0 && follow_moved >= 0 && follow_moved <= lead_moved + 1,
              "the follower starts within one frame of its leader (leader %d, follower %d)", lead_moved, follow_moved);
    }
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_traffic_hybrid TMP PLUGINS DATA\n");
        return 2;
    }
    tmp = argv[1], plugins = argv[2], data = argv[3];
    test_default_and_no_hero();
    test_hero();
    test_determinism();
    test_coast_gap();
    return CHECK_DONE();
}
