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
        if (a->kind != SN_ACTOR_WALKER || !a->ph->body || a->drive != SN_DRIVE_PHYSICS || a->fallen)
            continue;
        const dReal *r = dBodyGetRotation(a->ph->body);
        const dReal *av0 = dBodyGetAngularVel(a->ph->body);
        /* Upright already and not tipping (a held walker that touched nothing): left as it is. */
        if (r[2] == 0 && r[6] == 0 && r[8] == 0 && r[9] == 0 && r[10] == 1 && av0[0] == 0 && av0[1] == 0)
            continue;
        double yaw = atan2(r[4], r[0]);
        dMatrix3 m;
        dRFromAxisAndAngle(m, 0, 0, 1, yaw);
        dBodySetRotation(a->ph->body, m);
        const dReal *av = dBodyGetAngularVel(a->ph->body);
        dBodySetAngularVel(a->ph->body, 0, 0, av[2]);
    }
}

static bool is_walker(const sn_actor *a) { return a && a->kind == SN_ACTOR_WALKER && a->drive == SN_DRIVE_PHYSICS; }

static bool is_vehicle(const sn_world *w, uint32_t id)
{
    const sn_actor *o = sn_world_find(w, id);
    return o && o->kind == SN_ACTOR_VEHICLE;
}

/* A walker struck hard by vehicles falls: no walking force, no uprighting, friction on the
** ground (contacts.c). The impulse counts this frame's pairs so far and the frames of contact
** before it (`pushed`), so a car creeping into a pedestrian knocks it down as a fast one does.
** Checked after every substep, so it falls at once. */
static void knock_down_walkers(sn_world *w)
{
    for (size_t i = 0; i < w->n_pairs; i++) {
        const sn_pair *p = &w->pairs[i];
        sn_actor *self = sn_world_find(w, p->self);
        if (!is_walker(self) || self->fallen || !is_vehicle(w, p->other))
            continue;
        double total = self->mv->pushed;
        for (size_t k = 0; k < w->n_pairs; k++) /* every vehicle pushing it this frame */
            if (w->pairs[k].self == self->id && is_vehicle(w, w->pairs[k].other))
                total += sn_v3_len(w->pairs[k].impulse);
        if (total > SN_WALKER_FALL_IMPULSE) {
            self->fallen = true;
            if (self->held) { /* a rigid body on its contacts again (walker_hold.c) */
                self->held = false;
                dBodySetGravityMode(self->ph->body, 1);
            }
            self->mv->walk_speed = 0;
            self->mv->fallen_for = 0;
        }
    }
}

/* A vehicle slower than this (m/s) does not push: a pedestrian walking into a stopped car
** stands against it instead of being knocked down after half a second of leaning on it. */
#define SN_WALKER_PUSH_SPEED 0.3

/* Vehicles' impulse on the walker this frame, and whether one touched it; *pushing when one of
** them moves. */
static bool vehicle_impulse(const sn_world *w, const sn_actor *a, double *sum, bool *pushing)
{
    bool touching = false;
    *sum = 0;
    *pushing = false;
    for (size_t k = 0; k < w->n_pairs; k++) {
        const sn_pair *p = &w->pairs[k];
        const sn_actor *o = sn_world_find(w, p->other);
        if (p->self != a->id || !o || o->kind != SN_ACTOR_VEHICLE)
            continue;
        touching = true;
        *sum += sn_v3_len(p->impulse);
        if (o->ph->body) {
            const dReal *v = dBodyGetLinearVel(o->ph->body);
            *pushing |= v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > SN_WALKER_PUSH_SPEED * SN_WALKER_PUSH_SPEED;
        }
    }
    return touching;
}

/* At the end of a frame: a standing walker keeps the impulse of an unbroken push by moving
** vehicles (a push that stops, or a stopped vehicle, is forgotten). A fallen walker that touched no vehicle this frame,
** that lies (tilted more than 60 degrees), or that has been knocked for
** SN_WALKER_KNOCKDOWN_TIME is down: from now on it lies below the vehicles' floors (a person
** lying on the road is lower than a car's ground clearance, and wheels are rays that see only
** the ground and static props), so a car that drives on passes over it instead of pushing it
** along or riding on it. The time limit is what ends an impact with a car that keeps its
** throttle: its flat front face, 0.3 m to the roof, holds the box upright (its lower edge
** pushing below the walker's centre of mass rights it) for as long as the car accelerates. */
static void mark_fallen_apart(sn_world *w, double dt)
{
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (a->kind != SN_ACTOR_WALKER || a->drive != SN_DRIVE_PHYSICS || a->down)
            continue;
        double sum;
        bool pushing, touching = vehicle_impulse(w, a, &sum, &pushing);
        if (!a->fallen) {
            a->mv->pushed = pushing ? a->mv->pushed + sum : 0;
            continue;
        }
        a->mv->fallen_for += dt;
        const dReal *r = dBodyGetRotation(a->ph->body);
        a->down = !touching || r[10] < 0.5 /* r[10]: the body's up axis, world z */ ||
                  a->mv->fallen_for >= SN_WALKER_KNOCKDOWN_TIME - 1e-9;
    }
}

/* Crush zones. Rigid boxes squeezed between others at pile-up speeds (a column at full
** throttle, an 8 t truck diving onto the car ahead) are pushed out like a pip between two
** fingers, and a car launched that way flies tens of metres; real bodies crumple and absorb
** that energy instead. So a vehicle whose crash box touched another vehicle's in this substep
** leaves it rising at most SN_CRUSH_MAX_RISE and tilting (pitch and roll together) at most
** SN_CRUSH_MAX_TILT_RATE; falling, moving along the road and yawing are untouched, and a
** vehicle touching no other vehicle is never limited (crashes into walls, rollovers, landing). */
#define SN_CRUSH_MAX_RISE 1.0      /* m/s, upward speed of the centre of mass */
#define SN_CRUSH_MAX_TILT_RATE 1.0 /* rad/s, angular speed about the horizontal axes */

static void absorb_crush(sn_world *w)
{
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->crushing || a->drive != SN_DRIVE_PHYSICS)
            continue;
        const dReal *v = dBodyGetLinearVel(a->ph->body), *av = dBodyGetAngularVel(a->ph->body);
        if (v[2] > SN_CRUSH_MAX_RISE)
            dBodySetLinearVel(a->ph->body, v[0], v[1], SN_CRUSH_MAX_RISE);
        double tilt = sqrt(av[0] * av[0] + av[1] * av[1]);
        if (tilt > SN_CRUSH_MAX_TILT_RATE) {
            double k = SN_CRUSH_MAX_TILT_RATE / tilt;
            dBodySetAngularVel(a->ph->body, av[0] * k, av[1] * k, av[2]);
        }
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
    /* One pass over the bodies: forces, and this substep's crush marks cleared. */
    size_t standing = 0; /* walkers to put upright after the step (none fall in between and get up) */
    size_t n_dyn = 0;    /* physics-driven bodies */
    /* An idle frame (driver_kinematic.c: nothing dynamic, every kinematic body out of ODE's
    ** frame) has no forces to apply: only the crush marks are cleared, once (no contact can
    ** set one), without this loop's fetches for the vehicle model, n_sub times over hundreds
    ** of hybrid-mode vehicles. */
    for (size_t i = 0; w->kin_idle && !index && i < w->n_bodies; i++)
        w->bodies[i]->crushing = false;
    for (size_t i = 0; !w->kin_idle && i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        /* The vehicle model waits on memory more than on arithmetic (500 cars on a map: the
        ** wheel caches and bodies are cache misses): fetch a few bodies ahead. No effect on
        ** results. */
        if (i + 4 < w->n_bodies)
            __builtin_prefetch(w->bodies[i + 4]);
        if (i + 2 < w->n_bodies) {
            const sn_actor *n2 = w->bodies[i + 2];
            __builtin_prefetch(n2->mv);
            __builtin_prefetch(n2->ph);
        }
        if (i + 1 < w->n_bodies) {
            const sn_actor *n1 = w->bodies[i + 1];
            if (n1->kind == SN_ACTOR_VEHICLE && n1->mv) {
                for (size_t o = 0; n1->mv->wheel_tri && o < 4 * sizeof *n1->mv->wheel_tri; o += 64)
                    __builtin_prefetch((const char *)n1->mv->wheel_tri + o);
                __builtin_prefetch(n1->mv->vp);
            }
            if (n1->ph->body)
                __builtin_prefetch(dBodyGetRotation(n1->ph->body));
        }
        a->crushing = false;
        if (!a->ph->body || a->drive != SN_DRIVE_PHYSICS)
            continue;
        n_dyn++;
        if (a->kind == SN_ACTOR_VEHICLE) {
            sn_vehicle_apply(w, a, h);
        } else if (a->kind == SN_ACTOR_WALKER && !a->fallen) {
            bool was = a->held;
            sn_walker_hold(w, a);
            if (a->held != was)
                dBodySetGravityMode(a->ph->body, !a->held);
            sn_walker_apply(w, a, h);
            standing++;
        }
    }
    w->n_contacts = 0;
    w->any_crushing = false;
    /* Hybrid mode without a dynamic body (every vehicle out of ODE's frame, driver_kinematic.c):
    ** ODE has nothing enabled to step and no pair can make a contact (one side must be dynamic,
    ** contacts.c), so neither runs; its sweep would only recompute moved boxes, which queries
    ** do on demand. Only with some coarse body skipped: other scenes step as before. */
    const bool idle = !n_dyn && w->n_kin_skipped && w->n_kin_skipped == w->n_kinematic;
    if (!idle) {
        sn_dbp_collide_world(w, w, sn_near_callback);
        dWorldQuickStep(w->world, h);
    }
    if (w->any_crushing)
        absorb_crush(w);
    sn_gather_contacts(w, h);
    dJointGroupEmpty(w->contact_group);
    knock_down_walkers(w);
    if (standing)
        keep_walkers_upright(w);
    return SN_OK;
}

static void physics_end(sn_world *w, double dt)
{
    if (w->kin_idle) /* no physics-driven body: nothing to read back */
        return;
    mark_fallen_apart(w, dt);
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (a->ph->body && a->drive == SN_DRIVE_PHYSICS)
            sn_state_from_body(&a->st, a->ph->body, a->ph->com);
    }
}

const sn_driver sn_physics_driver = {"physics", physics_begin, physics_substep, physics_end};
