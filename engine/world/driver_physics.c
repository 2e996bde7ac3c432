/* driver_physics.c — the physics driver: ODE steps the physics-driven actors.
**
** Each substep: vehicle and walker forces, collision detection (contacts.c), QuickStep, the
** substep's contact feedback into the frame's pairs, walkers put upright. At the end, the
** state of every physics-driven body is read back from ODE. */
#include "driver.h"

#include <math.h>

static void keep_walkers_upright(sn_world *w)
{
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (a->kind != SN_ACTOR_WALKER || !a->body || a->drive != SN_DRIVE_PHYSICS)
            continue;
        const dReal *r = dBodyGetRotation(a->body);
        double yaw = atan2(r[4], r[0]);
        dMatrix3 m;
        dRFromAxisAndAngle(m, 0, 0, 1, yaw);
        dBodySetRotation(a->body, m);
        const dReal *av = dBodyGetAngularVel(a->body);
        dBodySetAngularVel(a->body, 0, 0, av[2]);
    }
}

static sn_status physics_begin(sn_world *w, double dt, sn_error *err)
{
    (void)w, (void)dt, (void)err;
    return SN_OK;
}

static sn_status physics_substep(sn_world *w, int index, int n_sub, double h, sn_error *err)
{
    (void)index, (void)n_sub, (void)err;
    w->substep_dt = h;
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->body || a->drive != SN_DRIVE_PHYSICS)
            continue;
        if (a->kind == SN_ACTOR_VEHICLE)
            sn_vehicle_apply(w, a, h);
        else if (a->kind == SN_ACTOR_WALKER)
            sn_walker_apply(w, a, h);
    }
    w->n_contacts = 0;
    dSpaceCollide(w->space, w, sn_near_callback);
    dWorldQuickStep(w->world, h);
    sn_gather_contacts(w, h);
    dJointGroupEmpty(w->contact_group);
    keep_walkers_upright(w);
    return SN_OK;
}

static void physics_end(sn_world *w, double dt)
{
    (void)dt;
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (a->body && a->drive == SN_DRIVE_PHYSICS)
            sn_state_from_body(&a->st, a->body, a->com);
    }
}

const sn_driver sn_physics_driver = {"physics", physics_begin, physics_substep, physics_end};
