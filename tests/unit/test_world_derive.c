/* The world's per-body bookkeeping (engine/world/driver.h, advance.c): after every frame, each
** body's previous state is its state before the frame (kept on the kinematic driver's first pass
** over the bodies), and its accelerations and travel are derived from the final state, bit for
** bit as advance.c always derived them. Bodies
** of both drives in one world (kinematic ones with and without targets, coarse and fine, a
** physics-driven car and walker under gravity), and a world of coarse kinematic bodies alone
** (the idle frame: ODE neither steps nor sweeps, driver_kinematic.c). */
#include "../../engine/world/world.h"
#include "../check.h"

#include <math.h>
#include <string.h>

#define DT 0.05
#define MAXB 8

static sn_actor *add(sn_world *w, sn_actor_kind kind, sn_vec3 at, double yaw_deg)
{
    sn_error err = {0};
    sn_actor *a = sn_world_add(w, kind, 0);
    a->shape = SN_SHAPE_BOX;
    a->ph->bbox.extent = kind == SN_ACTOR_VEHICLE ? sn_v3(2.3, 0.95, 0.75) : sn_v3(0.25, 0.25, 0.9);
    a->ph->mass = kind == SN_ACTOR_VEHICLE ? 1500 : 80;
    sn_transform tf = {at, {0, yaw_deg, 0}};
    CHECK(sn_world_materialize(w, a, &tf, &err) == SN_OK, "materialize: %s", err.msg);
    return a;
}

/* A kinematic body that follows targets along a bend, faster each frame (so its acceleration
** changes every frame: a stale one would show). */
static void kinematic(sn_world *w, sn_actor *a, bool coarse)
{
    CHECK(sn_world_set_drive(w, a, SN_DRIVE_KINEMATIC), "kinematic drive");
    a->mv->kin->coarse = coarse;
}

static void set_target(sn_actor *a, int frame, double phase)
{
    const double t = (frame + 1) * DT, yaw = 0.3 * t * t + phase;
    a->mv->kin->has_target = true;
    a->mv->kin->target_pos = sn_v3(a->st.pos.x + (2 + t) * cos(yaw) * DT, a->st.pos.y + (2 + t) * sin(yaw) * DT, a->st.pos.z);
    a->mv->kin->target_rot = sn_quat_from_rotation((sn_rotation){0, yaw / SN_DEG, 0});
}

static bool same(const void *x, const void *y, size_t n) { return memcmp(x, y, n) == 0; }

/* What advance.c derived before the drivers did it: the same expressions, the same bits. */
static void expect(const sn_actor *a, const sn_actor_state *before, const char *what, int frame)
{
    const sn_actor_state *s = &a->st;
    CHECK(same(&s->prev_pos, &before->pos, sizeof s->pos) && same(&s->prev_rot, &before->rot, sizeof s->rot) &&
              same(&s->prev_vel, &before->vel, sizeof s->vel) && same(&s->prev_ang_vel, &before->ang_vel, sizeof s->ang_vel) &&
              same(&s->prev_travel, &before->travel, sizeof s->travel),
          "%s, frame %d: the previous state is the state before the frame", what, frame);
    const sn_vec3 acc = sn_v3_scale(sn_v3_sub(s->vel, s->prev_vel), 1.0 / DT);
    const sn_vec3 ang_acc = sn_v3_scale(sn_v3_sub(s->ang_vel, s->prev_ang_vel), 1.0 / DT);
    CHECK(same(&acc, &s->acc, sizeof acc) && same(&ang_acc, &s->ang_acc, sizeof acc),
          "%s, frame %d: accelerations (%g, %g, %g) derived from the final state (%g, %g, %g)", what, frame, s->acc.x,
          s->acc.y, s->acc.z, acc.x, acc.y, acc.z);
    double v0, v1;
    if (a->kind == SN_ACTOR_VEHICLE) {
        v0 = sn_v3_dot(s->prev_vel, sn_quat_apply(s->prev_rot, sn_v3(1, 0, 0)));
        v1 = sn_v3_dot(s->vel, sn_quat_apply(s->rot, sn_v3(1, 0, 0)));
    } else {
        v0 = hypot(s->prev_vel.x, s->prev_vel.y);
        v1 = hypot(s->vel.x, s->vel.y);
    }
    const double travel = s->prev_travel + 0.5 * (v0 + v1) * DT;
    CHECK(same(&travel, &s->travel, sizeof travel), "%s, frame %d: travel %.17g, derived %.17g", what, frame,
          s->travel, travel);
}

static void run(sn_world *w, sn_actor **b, const char **names, size_t n, int frames, bool *moved)
{
    sn_error err = {0};
    for (int f = 0; f < frames; f++) {
        sn_actor_state before[MAXB];
        for (size_t i = 0; i < n; i++) {
            if (b[i]->drive == SN_DRIVE_KINEMATIC && !(f % 5 == 4 && i == 1)) /* now and then one holds still */
                set_target(b[i], f, (double)i);
            before[i] = b[i]->st;
        }
        CHECK(sn_world_advance(w, DT, 2, &err) == SN_OK, "advance: %s", err.msg);
        for (size_t i = 0; i < n; i++) {
            expect(b[i], &before[i], names[i], f);
            *moved |= b[i]->st.acc.x != 0 || b[i]->st.acc.z != 0;
        }
    }
}

/* Bodies of both drives. */
static void test_mixed(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_actor *b[5] = {add(&w, SN_ACTOR_VEHICLE, sn_v3(0, 0, 2), 0), add(&w, SN_ACTOR_VEHICLE, sn_v3(0, 20, 2), 90),
                      add(&w, SN_ACTOR_VEHICLE, sn_v3(40, 0, 2), 0), add(&w, SN_ACTOR_VEHICLE, sn_v3(80, 0, 5), 30),
                      add(&w, SN_ACTOR_WALKER, sn_v3(120, 0, 5), 0)};
    const char *names[5] = {"kinematic car", "kinematic car held now and then", "coarse kinematic car",
                            "falling car", "falling walker"};
    kinematic(&w, b[0], false);
    kinematic(&w, b[1], false);
    kinematic(&w, b[2], true);
    sn_world_set_velocity(&w, b[3], sn_v3(3, 1, 0), sn_v3(0, 0, 0.4));
    bool moved = false;
    run(&w, b, names, 5, 30, &moved);
    CHECK(moved && w.n_kinematic == 3 && !w.kin_idle, "both drives stepped (%zu kinematic)", w.n_kinematic);
    sn_world_free(&w);
}

/* Coarse kinematic bodies alone: the idle frame, where the physics driver reads nothing back. */
static void test_idle(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_actor *b[3] = {add(&w, SN_ACTOR_VEHICLE, sn_v3(0, 0, 0.8), 0), add(&w, SN_ACTOR_VEHICLE, sn_v3(0, 20, 0.8), 90),
                      add(&w, SN_ACTOR_WALKER, sn_v3(30, 0, 1), 0)};
    const char *names[3] = {"coarse car", "coarse car held now and then", "coarse walker"};
    for (int i = 0; i < 3; i++)
        kinematic(&w, b[i], true);
    bool moved = false;
    run(&w, b, names, 3, 30, &moved);
    CHECK(moved && w.kin_idle, "idle frames (kin_idle %d)", w.kin_idle);
    sn_world_free(&w);
}

int main(void)
{
    test_mixed();
    test_idle();
    return CHECK_DONE();
}
