/* advance.c — one frame of the world: every driver (driver.h) inside one guard around ODE,
** then the derived state (attached actors, accelerations) and the frame's collision pairs. */
#include "driver.h"

#include "../core/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Kinematic bodies are placed before the physics driver steps with them. */
static const sn_driver *const drivers[] = {&sn_kinematic_driver, &sn_physics_driver};
#define N_DRIVERS (sizeof drivers / sizeof drivers[0])

static sn_status run_drivers(sn_world *w, double dt, int n_sub, sn_error *err)
{
    sn_status st = SN_OK;
    for (size_t d = 0; !st && d < N_DRIVERS; d++)
        st = drivers[d]->begin(w, dt, err);
    double h = dt / n_sub;
    for (int s = 0; !st && s < n_sub; s++)
        for (size_t d = 0; !st && d < N_DRIVERS; d++)
            st = drivers[d]->substep(w, s, n_sub, h, err);
    for (size_t d = 0; !st && d < N_DRIVERS; d++)
        drivers[d]->end(w, dt);
    return st;
}

/* st.travel by the trapezoid rule: a vehicle's speed along its forward axis (at the start
** and end of the frame, each on that instant's axis), a walker's horizontal speed. */
static void advance_travel(sn_actor *a, double dt)
{
    sn_actor_state *s = &a->st;
    double v0, v1;
    if (a->kind == SN_ACTOR_VEHICLE) {
        v0 = sn_v3_dot(s->prev_vel, sn_quat_apply(s->prev_rot, sn_v3(1, 0, 0)));
        v1 = sn_v3_dot(s->vel, sn_quat_apply(s->rot, sn_v3(1, 0, 0)));
    } else {
        v0 = hypot(s->prev_vel.x, s->prev_vel.y);
        v1 = hypot(s->vel.x, s->vel.y);
    }
    s->travel += 0.5 * (v0 + v1) * dt;
}

sn_status sn_world_advance(sn_world *w, double dt, int n_sub, sn_error *err)
{
    if (w->poisoned)
        return sn_fail(err, SN_E_STATE, "physics: the world stopped after an ODE error");
    w->gen++; /* poses change: the ray index must follow */
    w->motion_gen++;
    sn_ogrid_release(&w->ogrid);
    w->n_pairs = 0;
    w->contacts_lost = false;
    if (w->hash_cap)
        memset(w->pair_hash, 0, w->hash_cap * sizeof *w->pair_hash);
    /* Only bodies move by themselves: attached actors are derived below, statics never move,
    ** and a teleport sets the previous pose itself. */
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor_state *s = &w->bodies[i]->st;
        s->prev_pos = s->pos;
        s->prev_rot = s->rot;
        s->prev_vel = s->vel;
        s->prev_ang_vel = s->ang_vel;
        s->prev_travel = s->travel;
    }
    jmp_buf guard;
    if (setjmp(guard)) {
        w->ode_seed = sn_ode_leave();
        w->poisoned = true;
        return sn_fail(err, SN_E_PHYSICS, "physics: %s", sn_ode_message());
    }
    sn_ode_enter(&guard, w);
    sn_status st = run_drivers(w, dt, n_sub, err);
    w->ode_seed = sn_ode_leave();
    if (st)
        return st;
    if (w->contacts_lost)
        return sn_fail(err, SN_E_NOMEM, "physics: out of memory for this frame's contacts; "
                       "collisions would be lost, so the run stops");
    if (w->n_pairs > 1)
        qsort(w->pairs, w->n_pairs, sizeof *w->pairs, sn_pair_cmp);
    /* Accelerations first: attached actors copy their parent's of this frame. */
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (a->ph->body) {
            a->st.acc = sn_v3_scale(sn_v3_sub(a->st.vel, a->st.prev_vel), 1.0 / dt);
            a->st.ang_acc = sn_v3_scale(sn_v3_sub(a->st.ang_vel, a->st.prev_ang_vel), 1.0 / dt);
        }
        advance_travel(a, dt);
    }
    sn_world_update_attached(w);
    return SN_OK;
}
