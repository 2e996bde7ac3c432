/* hybrid.c — hybrid physics mode (hybrid.h). CARLA's Traffic Manager (LibCarla/source/carla/
** trafficmanager): ALSM.cpp's UpdateData turns a registered vehicle's physics off when hybrid mode
** is on and no hero is within the radius (3-D distance), on otherwise, and never switches a hero;
** a vehicle whose physics comes back gets the velocity it was moving at. MotionPlanStage.cpp moves
** a physics-less vehicle to the waypoint target_velocity * HYBRID_MODE_DT ahead (extended along
** its heading when the buffer is shorter) and holds it where it is on an emergency stop.
**
** Here the move is the kinematic driver's (driver_kinematic.c): the vehicle's kinematic body is
** placed along the straight line to the target at every substep, still pushes dynamic bodies,
** and meets no statics and no other kinematic body (contacts.c) — no wheels, no vehicle model,
** no solver: what makes it cheap. */
#include "hybrid.h"
#include "tm.h"
#include "traffic_int.h"

#include "../core/util.h"
#include "../sim/engine.h"

#include <math.h>

#define HOLD_SPEED 0.05 /* m/s: a target speed below it holds the vehicle (the autopilot's brake threshold) */

static bool is_hero(const sn_actor *a)
{
    return a->hero; /* role_name "hero", a vehicle (spawn.c) */
}

void sn_hybrid_frame(sn_engine *e)
{
    struct sn_traffic *t = e->traffic;
    if (!t)
        return;
    t->n_heroes = 0;
    t->hybrid_any = false;
    for (uint32_t i = 0; e->tms && i < e->tms->n_tm; i++)
        t->hybrid_any |= e->tms->tm[i].v[SN_TM_HYBRID_PHYSICS_MODE] != 0;
    if (!t->hybrid_any)
        return; /* no hero needed */
    const sn_world *w = &e->world;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (!is_hero(a))
            continue;
        if (!sn_grow((void **)&t->heroes, &t->cap_heroes, t->n_heroes + 1, sizeof *t->heroes))
            return; /* out of memory: the heroes found so far */
        t->heroes[t->n_heroes++] = a->st.pos;
    }
}

/* The velocity it moved at (the kinematic driver's, from its last move) carries on. */
static void physics_back(sn_engine *e, sn_actor *a, sn_mapdrive *md)
{
    const sn_vec3 vel = a->st.vel, ang = a->st.ang_vel;
    md->hybrid_off = false;
    if (a->drive == SN_DRIVE_KINEMATIC && sn_world_set_drive(&e->world, a, SN_DRIVE_PHYSICS))
        sn_world_set_velocity(&e->world, a, vel, ang);
}

void sn_hybrid_switch(sn_engine *e, sn_actor *a, sn_mapdrive *md)
{
    if ((!md->hybrid_off && !(e->traffic && e->traffic->hybrid_any)) || is_hero(a))
        return; /* nothing to switch (the common case: one test a vehicle) */
    const sn_tm_vehicle *v = sn_tms_vehicle(e, a->id, false);
    bool off = sn_tm_value(e, v, SN_TM_HYBRID_PHYSICS_MODE) != 0;
    if (off && e->traffic) {
        const double r = sn_tm_value(e, v, SN_TM_HYBRID_PHYSICS_RADIUS);
        for (size_t i = 0; i < e->traffic->n_heroes && off; i++) {
            const sn_vec3 d = sn_v3_sub(a->st.pos, e->traffic->heroes[i]);
            off = sn_v3_dot(d, d) >= r * r;
        }
    }
    if (off == md->hybrid_off)
        return;
    if (!off) {
        physics_back(e, a, md);
        return;
    }
    if (a->drive != SN_DRIVE_PHYSICS || !sn_world_set_drive(&e->world, a, SN_DRIVE_KINEMATIC))
        return; /* kinematic by its user's choice (not ours to switch back), or out of memory */
    md->hybrid_off = true;
    e->control_taken = sn_hybrid_release; /* apply_control (sim/control.c) gives it back */
    md->speed_integral = 0; /* CARLA flushes the controller's state */
}

void sn_hybrid_release(sn_engine *e, sn_actor *a)
{
    if (a->kind == SN_ACTOR_VEHICLE && a->mv->ap && a->mv->ap->map && a->mv->ap->map->hybrid_off)
        physics_back(e, a, a->mv->ap->map);
}

static double wrap180(double d)
{
    d = fmod(d, 360.0);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

void sn_hybrid_move(sn_actor *a, const sn_mapdrive *md, const sn_vec3 *pts, const double *along, uint32_t n, double vt,
                    double dt)
{
    a->ph->control = (sn_vehicle_control){.brake = vt < HOLD_SPEED ? 1.0 : 0.0}; /* for its brake lights */
    sn_kinematic *k = a->mv->kin;
    if (!k || a->drive != SN_DRIVE_KINEMATIC || n == 0)
        return;
    k->has_target = k->kin_scripted = false;
    k->coarse = true; /* no substeps' placements where no dynamic body is near (driver_kinematic.c) */
    if (vt < HOLD_SPEED)
        return; /* held: the kinematic driver keeps it where it is */
    /* The point `d` along the path from the vehicle's centre; beyond the path's end, on along its
    ** last heading (CARLA's missing displacement). */
    const double d = vt * dt;
    sn_vec3 p = pts[n - 1];
    double yaw = md->path[n - 1].transform.rotation.yaw;
    uint32_t i = 1;
    while (i < n && along[i] < d)
        i++;
    if (n == 1 || along[0] >= d) {
        p = pts[0], yaw = md->path[0].transform.rotation.yaw;
    } else if (i < n) {
        const double f = (d - along[i - 1]) / fmax(along[i] - along[i - 1], 1e-9);
        p = sn_v3_add(pts[i - 1], sn_v3_scale(sn_v3_sub(pts[i], pts[i - 1]), f));
        const double y0 = md->path[i - 1].transform.rotation.yaw;
        yaw = y0 + f * wrap180(md->path[i].transform.rotation.yaw - y0);
    } else {
        const double h = yaw * SN_DEG;
        p = sn_v3_add(p, sn_v3_scale(sn_v3(cos(h), sin(h), 0), d - along[n - 1]));
    }
    /* Its height above the lane's centre where it stands now is kept (the lane's points lie on the
    ** road; the actor's origin stands where its suspension left it). */
    double z0 = pts[0].z;
    for (uint32_t j = 1; j < n && along[0] < 0; j++)
        if (along[j] >= 0) {
            const double f = -along[j - 1] / fmax(along[j] - along[j - 1], 1e-9);
            z0 = pts[j - 1].z + f * (pts[j].z - pts[j - 1].z);
            break;
        }
    p.z += a->st.pos.z - z0;
    if (md->offset != 0) { /* a head-on pass's side step (headon.c): the path moved to its right */
        const double h = yaw * SN_DEG;
        p.x -= sin(h) * md->offset, p.y += cos(h) * md->offset;
    }
    sn_rotation r = sn_quat_to_rotation(a->st.rot);
    r.yaw = yaw;
    k->has_target = true;
    k->target_pos = p;
    k->target_rot = sn_quat_from_rotation(r);
}
