/* driver_kinematic.c — the kinematic driver: actors whose poses come from outside.
**
** A kinematic actor moves each frame from its pose to its target (set by replay or the API
** for the end of the frame), or, without a target, along a linear and angular velocity set
** from outside (scripted motion), or else holds still. Its ODE body is kinematic (infinite mass): at every substep it
** is placed on the straight path between the two poses with the path's velocity, so the
** contacts it makes push physics-driven bodies as a moving wall would. */
#include "driver.h"

static sn_status kinematic_begin(sn_world *w, double dt, sn_error *err)
{
    (void)err;
    w->n_kinematic = 0; /* the substeps and the end pass over the bodies only when some are */
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
            continue;
        w->n_kinematic++;
        a->mv->kin->kin_from_pos = a->st.pos;
        a->mv->kin->kin_from_rot = a->st.rot;
        if (a->mv->kin->has_target) {
            a->mv->kin->kin_to_pos = a->mv->kin->target_pos;
            a->mv->kin->kin_to_rot = a->mv->kin->target_rot;
            a->st.vel = sn_v3_scale(sn_v3_sub(a->mv->kin->target_pos, a->st.pos), 1.0 / dt);
            a->st.ang_vel = sn_quat_angular_velocity(a->st.rot, a->mv->kin->target_rot, dt);
        } else if (a->mv->kin->kin_scripted) {
            a->mv->kin->kin_to_pos = sn_v3_add(a->st.pos, sn_v3_scale(a->st.vel, dt));
            a->mv->kin->kin_to_rot = sn_quat_integrate(a->st.rot, a->st.ang_vel, dt);
        } else { /* no target, no velocity of its own: a replayed actor between samples stays put */
            a->st.vel = a->st.ang_vel = sn_v3(0, 0, 0);
            a->mv->kin->kin_to_pos = a->st.pos;
            a->mv->kin->kin_to_rot = a->st.rot;
        }
    }
    return SN_OK;
}

static sn_status kinematic_substep(sn_world *w, int index, int n_sub, double h, sn_error *err)
{
    (void)h, (void)err;
    double t = (double)index / n_sub;
    for (size_t i = 0; w->n_kinematic && i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
            continue;
        sn_actor_state s = a->st;
        s.pos = sn_v3_lerp(a->mv->kin->kin_from_pos, a->mv->kin->kin_to_pos, t);
        s.rot = sn_quat_slerp(a->mv->kin->kin_from_rot, a->mv->kin->kin_to_rot, t);
        sn_body_from_state(a->ph->body, &s, a->ph->com);
    }
    return SN_OK;
}

static void kinematic_end(sn_world *w, double dt)
{
    (void)dt;
    for (size_t i = 0; w->n_kinematic && i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
            continue;
        /* Exactly the target: no drift from ODE integrating the body's velocity. */
        a->st.pos = a->mv->kin->kin_to_pos;
        a->st.rot = a->mv->kin->kin_to_rot;
        a->mv->kin->has_target = false;
        sn_body_from_state(a->ph->body, &a->st, a->ph->com);
    }
}

const sn_driver sn_kinematic_driver = {"kinematic", kinematic_begin, kinematic_substep, kinematic_end};
