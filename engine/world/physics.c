/* physics.c — the ODE world: bodies and geoms for actors, substepping, contacts with joint
** feedback, per-frame collision pairs and ray casts.
**
** ODE's dError/dDebug end the process even after a user handler returns, so the handler
** installed here jumps back to the guard around the ODE call in progress; inputs are
** validated before they reach ODE, so this is a last line of defence only. */
#include "driver.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>


/* ---- ODE error handling ---------------------------------------------------------------- */

/* Per thread, so two engines on two threads never see each other's guard. */
static _Thread_local jmp_buf *ode_guard; /* active while this thread is inside ODE */
static _Thread_local char ode_message[512];

static void ode_fatal(int num, const char *msg, va_list ap)
{
    int n = snprintf(ode_message, sizeof ode_message, "ODE error %d: ", num);
    vsnprintf(ode_message + n, sizeof ode_message - (size_t)n, msg, ap);
    if (ode_guard)
        longjmp(*ode_guard, 1);
    fprintf(stderr, "sensim: error: physics: %s\n", ode_message);
}

static void ode_note(int num, const char *msg, va_list ap)
{
    /* ODE's messages (e.g. LCP warnings) are not errors; keep them off stdout. */
    (void)num, (void)msg, (void)ap;
}

/* ODE's library state (handlers, init) is process-wide by ODE's design: set it up once, the
** same for every engine, and never tear it down while another engine may use it. */
static pthread_once_t ode_once = PTHREAD_ONCE_INIT;
static bool ode_ok;

static void ode_init_once(void)
{
    dSetErrorHandler(ode_fatal);
    dSetDebugHandler(ode_fatal);
    dSetMessageHandler(ode_note);
    ode_ok = dInitODE2(0) != 0;
}

/* ODE's random generator and its trimesh cache are process-wide: ode_share.c says when
** worlds take turns (a whole step, or one trimesh collision). */
static _Thread_local bool ode_locked;

/* Around ODE calls outside a step (ray casts, spawn overlaps): the lock where the world needs it,
** unless this thread holds it already (sn_ode_shared_enter knows). */
static bool outside_enter(const sn_world *w) { return sn_ode_shared_enter(w); }

void sn_ode_enter(jmp_buf *guard, const sn_world *w)
{
    ode_locked = sn_ode_shared_enter(w);
    dAllocateODEDataForThread(dAllocateMaskAll); /* engines may step on any thread */
    ode_guard = guard;
    /* QuickStep reorders constraints with ODE's generator: each world brings its own state in
    ** and takes it out again, so engines never perturb each other. */
    sn_ode_rand_set(w->ode_seed);
}

unsigned long sn_ode_leave(void)
{
    ode_guard = NULL;
    unsigned long seed = sn_ode_rand_get();
    sn_ode_shared_leave(ode_locked);
    ode_locked = false;
    sn_ode_shared_reset(); /* a longjmp out of a trimesh collision left its lock held */
    return seed;
}

const char *sn_ode_message(void) { return ode_message; }

sn_status sn_world_init(sn_world *w, uint64_t seed, sn_error *err)
{
    /* each world's static_gen starts where no earlier world's went: caches keyed on (world,
    ** static_gen) (the renderer's static meshes, the ray index) never take a new world made at
    ** an old one's address for the old one */
    static atomic_uint_fast64_t worlds;
    memset(w, 0, sizeof *w);
    w->static_gen = (uint64_t)(atomic_fetch_add(&worlds, 1) + 1) << 32;
    sn_sbp_init(&w->sbp);
    sn_dbp_init(&w->dbp);
    pthread_once(&ode_once, ode_init_once);
    if (!ode_ok)
        return sn_fail(err, SN_E_PHYSICS, "physics: ODE failed to initialise");
    dAllocateODEDataForThread(dAllocateMaskAll);
    w->ode_seed = (unsigned long)(seed ^ 0x5eedu);
    w->world = dWorldCreate();
    /* ODE's default (self-threaded) implementation is one for the process; engines stepping
    ** on several threads would share its job list */
    w->ode_threading = dThreadingAllocateSelfThreadedImplementation();
    if (w->ode_threading)
        dWorldSetStepThreadingImplementation(w->world, dThreadingImplementationGetFunctions(w->ode_threading),
                                             w->ode_threading);
    /* The top space's pairs come from our grid (dbp.h); the space is sweep and prune for
    ** ray queries and the benchmarks' old path: ODE 0.16's hash space clears an n^2/8-byte
    ** table and allocates a node per cell on every collide, and its cell hash collides on
    ** large grids (measured: 1.4x the engine's frame at 200 cars, 1.5x at 5000). Static geometry
    ** stays in its own nested space, met as one geom; which statics a geom meets comes from
    ** the static broadphase (sbp.h): the hash space's own collide2 tests every static, and
    ** only the benchmarks' old path still calls it. */
    w->space = dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ);
    w->static_space = dHashSpaceCreate(w->space);
    /* Vehicles' crash boxes meet only each other: let ODE skip them against the statics. */
    dGeomSetCategoryBits((dGeomID)w->static_space, 1);
    dGeomSetCollideBits((dGeomID)w->static_space, ~(unsigned long)SN_CAT_CRASH);
    dHashSpaceSetLevels(w->static_space, -2, 8);
    w->contact_group = dJointGroupCreate(0);
    w->ray = dCreateRay(0, 1.0);
    w->gravity = sn_v3(0, 0, -SN_GRAVITY);
    dWorldSetGravity(w->world, w->gravity.x, w->gravity.y, w->gravity.z);
    dWorldSetQuickStepNumIterations(w->world, 30);
    dWorldSetERP(w->world, 0.2);
    dWorldSetCFM(w->world, 1e-6);
    dWorldSetContactSurfaceLayer(w->world, 0.001);
    dWorldSetContactMaxCorrectingVel(w->world, 5.0);
    /* Every body has auto-disable off (sn_world_materialize), so ODE never reads the velocity
    ** averages it would keep for it: without samples, dBodyCreate allocates no buffers
    ** (2 x 48 bytes a body). */
    dWorldSetAutoDisableAverageSamplesCount(w->world, 0);
    return SN_OK;
}

void sn_world_free(sn_world *w)
{
    if (!w->world)
        return;
    while (w->n_actors)
        sn_world_remove(w, w->actors[w->n_actors - 1]->id);
    free(w->actors);
    free(w->bodies);
    free(w->planes);
    for (size_t i = 0; i < w->n_blocks; i++)
        free(w->blocks[i]);
    free(w->blocks);
    free(w->pairs);
    free(w->pair_hash);
    sn_strmap_free(&w->names);
    sn_vshare_free(&w->vshare);
    sn_blobs_free(&w->blobs);
    sn_ogrid_free(&w->ogrid);
    sn_sbp_free(&w->sbp);
    sn_dbp_free(&w->dbp);
    sn_world_free_roads(w); /* its geoms before the spaces that hold them */
    if (!w->poisoned) {
        /* After an ODE error its spaces may still be locked, and destroying a geom then
        ** makes ODE end the process: leak them instead (the run is over anyway). */
        dGeomDestroy(w->ray);
        dJointGroupDestroy(w->contact_group);
        dSpaceDestroy(w->space); /* destroys static_space and remaining geoms */
        dWorldDestroy(w->world);
        if (w->ode_threading)
            dThreadingFreeImplementation(w->ode_threading);
    }
    memset(w, 0, sizeof *w);
}

/* ---- bodies and geoms ------------------------------------------------------------------ */

static void set_rotation(dBodyID b, dGeomID g, const sn_mat3 *m)
{
    dMatrix3 r = {m->m[0], m->m[1], m->m[2], 0, m->m[3], m->m[4], m->m[5], 0,
                  m->m[6], m->m[7], m->m[8], 0};
    if (b)
        dBodySetRotation(b, r);
    else
        dGeomSetRotation(g, r);
}

/* The geom of an actor's shape; *offset is its centre from the body (the centre of mass),
** body frame, for actors with a body. */
static dGeomID make_geom(sn_actor *a, dSpaceID space, sn_vec3 *offset)
{
    const sn_vec3 e = a->ph->bbox.extent;
    *offset = sn_v3_sub(a->ph->bbox.location, a->ph->com);
    switch (a->shape) {
    case SN_SHAPE_BOX:
        if (a->kind == SN_ACTOR_VEHICLE) {
            /* The chassis box starts above the ground clearance: wheels are rays. */
            double c = a->mv->vp->clearance;
            offset->z += c / 2;
            return dCreateBox(space, 2 * e.x, 2 * e.y, 2 * e.z - c);
        }
        return dCreateBox(space, 2 * e.x, 2 * e.y, 2 * e.z);
    case SN_SHAPE_SPHERE:
        return dCreateSphere(space, e.x);
    case SN_SHAPE_CYLINDER:
        return dCreateCylinder(space, e.x, 2 * e.z);
    default:
        return NULL;
    }
}

sn_status sn_world_materialize(sn_world *w, sn_actor *a, const sn_transform *tf, sn_error *err)
{
    sn_mat3 rot = sn_mat3_from_rotation(tf->rotation);
    w->gen++;
    w->static_gen += a->kind == SN_ACTOR_STATIC;
    a->st.pos = a->st.prev_pos = tf->location;
    a->st.rot = a->st.prev_rot = sn_quat_from_mat3(&rot);
    a->st.vel = a->st.prev_vel = a->st.ang_vel = a->st.acc = a->st.ang_acc = a->st.prev_ang_vel = sn_v3(0, 0, 0);
    if (a->shape == SN_SHAPE_PLANE) {
        if (a->parent)
            return sn_fail(err, SN_E_INVALID, "'%s': a ground plane cannot be attached", a->name);
        sn_vec3 n = sn_mat3_col(&rot, 2);
        if (!sn_grow((void **)&w->planes, &w->cap_planes, w->n_planes + 1, sizeof *w->planes))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        a->ph->plane_normal = n;
        a->ph->plane_offset = sn_v3_dot(n, tf->location);
        a->ph->geom = dCreatePlane(w->space, n.x, n.y, n.z, a->ph->plane_offset);
        dGeomSetData(a->ph->geom, a);
        dGeomSetCategoryBits(a->ph->geom, 1);
        dGeomSetCollideBits(a->ph->geom, ~(unsigned long)SN_CAT_CRASH);
        w->planes[w->n_planes++] = a;
        return SN_OK;
    }
    if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE)
        return SN_OK;
    const sn_actor *carrier = a->parent ? sn_world_find(w, a->parent) : NULL;
    while (carrier && !carrier->ph->body && carrier->parent)
        carrier = sn_world_find(w, carrier->parent);
    sn_vec3 goff;
    if (a->kind == SN_ACTOR_STATIC) {
        bool on_body = carrier && carrier->ph->body;
        a->ph->geom = make_geom(a, on_body ? 0 : w->static_space, &goff);
        if (!a->ph->geom)
            return sn_fail(err, SN_E_INVALID, "'%s': unsupported shape", a->name);
        dGeomSetData(a->ph->geom, a);
        if (on_body) {
            /* A prop attached to a moving actor rides on its body (its mass is ignored). */
            dSpaceAdd(w->space, a->ph->geom);
            dGeomSetBody(a->ph->geom, carrier->ph->body);
            a->rides = true;
            w->n_riders++;
            sn_transform ct = sn_actor_world_transform(w, carrier);
            sn_mat3 cr = sn_mat3_from_rotation(ct.rotation);
            /* Offsets are from the carrier's body, its centre of mass, not its origin. */
            sn_vec3 off = sn_v3_sub(sn_mat3_apply_t(&cr, sn_v3_sub(tf->location, ct.location)), carrier->ph->com);
            sn_mat3 rel = sn_mat3_mul(&(sn_mat3){{cr.m[0], cr.m[3], cr.m[6], cr.m[1], cr.m[4], cr.m[7],
                                                   cr.m[2], cr.m[5], cr.m[8]}}, &rot);
            dGeomSetOffsetPosition(a->ph->geom, off.x, off.y, off.z);
            dMatrix3 r = {rel.m[0], rel.m[1], rel.m[2], 0, rel.m[3], rel.m[4], rel.m[5], 0,
                          rel.m[6], rel.m[7], rel.m[8], 0};
            dGeomSetOffsetRotation(a->ph->geom, r);
        } else {
            /* The space's bits on each static too, so every query skips crash boxes itself. */
            dGeomSetCategoryBits(a->ph->geom, 1);
            dGeomSetCollideBits(a->ph->geom, ~(unsigned long)SN_CAT_CRASH);
            dGeomSetPosition(a->ph->geom, tf->location.x, tf->location.y, tf->location.z);
            set_rotation(NULL, a->ph->geom, &rot);
        }
        return SN_OK;
    }
    /* Vehicles and walkers: a body with one geom. */
    if (!sn_grow((void **)&w->bodies, &w->cap_bodies, w->n_bodies + 1, sizeof *w->bodies) ||
        !sn_wheel_cache_alloc(w, a))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    w->bodies[w->n_bodies++] = a; /* ids only grow: appending keeps id order */
    if (!sn_ogrid_add(w, a))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    a->ph->body = dBodyCreate(w->world);
    dBodySetData(a->ph->body, a);
    dMass m;
    const sn_vec3 e = a->ph->bbox.extent;
    dMassSetBoxTotal(&m, a->ph->mass, 2 * e.x, 2 * e.y, 2 * e.z);
    dBodySetMass(a->ph->body, &m);
    sn_body_from_state(a->ph->body, &a->st, a->ph->com);
    dBodySetAutoDisableFlag(a->ph->body, 0);
    a->ph->geom = make_geom(a, w->space, &goff);
    dGeomSetData(a->ph->geom, a);
    dGeomSetBody(a->ph->geom, a->ph->body);
    if (goff.x != 0 || goff.y != 0 || goff.z != 0)
        dGeomSetOffsetPosition(a->ph->geom, goff.x, goff.y, goff.z);
    if (a->kind == SN_ACTOR_VEHICLE) {
        /* Bumpers meet bumpers: between vehicles the box reaches down to the wheels' contact
        ** height, so a car cannot drive under another one's chassis (see contacts.c). */
        dGeomSetCategoryBits(a->ph->geom, SN_CAT_CHASSIS);
        dGeomSetCollideBits(a->ph->geom, ~(unsigned long)(SN_CAT_CHASSIS | SN_CAT_CRASH));
        a->ph->crash = dCreateBox(w->space, 2 * e.x, 2 * e.y, 2 * e.z);
        dGeomSetData(a->ph->crash, a);
        dGeomSetBody(a->ph->crash, a->ph->body);
        dGeomSetCategoryBits(a->ph->crash, SN_CAT_CRASH);
        dGeomSetCollideBits(a->ph->crash, SN_CAT_CRASH);
        sn_vec3 off = sn_v3_sub(a->ph->bbox.location, a->ph->com);
        if (off.x != 0 || off.y != 0 || off.z != 0)
            dGeomSetOffsetPosition(a->ph->crash, off.x, off.y, off.z);
    }
    return SN_OK;
}

/* ---- state <-> bodies ------------------------------------------------------------------ */

/* ODE puts a body at its centre of mass; the state is of the actor's origin (a vehicle's is
** the bottom of its box, as CARLA's), `com` away in the actor frame. */
void sn_state_from_body(sn_actor_state *st, dBodyID b, sn_vec3 com)
{
    const dReal *p = dBodyGetPosition(b), *q = dBodyGetQuaternion(b);
    const dReal *v = dBodyGetLinearVel(b), *av = dBodyGetAngularVel(b);
    st->rot = sn_quat_norm((sn_quat){q[0], q[1], q[2], q[3]});
    if (st->rot.w < 0) /* one sign per rotation */
        st->rot = (sn_quat){-st->rot.w, -st->rot.x, -st->rot.y, -st->rot.z};
    st->ang_vel = sn_v3(av[0], av[1], av[2]);
    sn_vec3 r = sn_quat_apply(st->rot, com);
    st->pos = sn_v3_sub(sn_v3(p[0], p[1], p[2]), r);
    st->vel = sn_v3_sub(sn_v3(v[0], v[1], v[2]), sn_v3_cross(st->ang_vel, r));
}

bool sn_body_at_state(dBodyID b, const sn_actor_state *st, sn_vec3 com)
{
    sn_vec3 r = sn_quat_apply(st->rot, com);
    sn_vec3 p = sn_v3_add(st->pos, r), v = sn_v3_add(st->vel, sn_v3_cross(st->ang_vel, r));
    const dReal *bp = dBodyGetPosition(b), *bq = dBodyGetQuaternion(b), *bv = dBodyGetLinearVel(b),
                *bw = dBodyGetAngularVel(b);
    /* (the quaternion as dBodySetQuaternion keeps it: normalised; a rounding apart is a miss, not an error) */
    return bp[0] == p.x && bp[1] == p.y && bp[2] == p.z && bq[0] == st->rot.w && bq[1] == st->rot.x &&
           bq[2] == st->rot.y && bq[3] == st->rot.z && bv[0] == v.x && bv[1] == v.y && bv[2] == v.z &&
           bw[0] == st->ang_vel.x && bw[1] == st->ang_vel.y && bw[2] == st->ang_vel.z;
}

void sn_body_from_state(dBodyID b, const sn_actor_state *st, sn_vec3 com)
{
    dQuaternion q = {st->rot.w, st->rot.x, st->rot.y, st->rot.z};
    sn_vec3 r = sn_quat_apply(st->rot, com);
    sn_vec3 p = sn_v3_add(st->pos, r), v = sn_v3_add(st->vel, sn_v3_cross(st->ang_vel, r));
    dBodySetPosition(b, p.x, p.y, p.z);
    dBodySetQuaternion(b, q);
    dBodySetLinearVel(b, v.x, v.y, v.z);
    dBodySetAngularVel(b, st->ang_vel.x, st->ang_vel.y, st->ang_vel.z);
}

void sn_world_set_com(sn_world *w, sn_actor *a, sn_vec3 com)
{
    (void)w;
    sn_vec3 d = sn_v3_sub(a->ph->com, com); /* every geom's offset from the body moves by it */
    a->ph->com = com;
    if (!a->ph->body)
        return;
    /* the geoms (chassis, crash box, props riding on it) keep their place on the actor, the
    ** body moves to the new centre of mass; the actor's pose and velocities (a->st, of its
    ** origin) stay as they are */
    for (dGeomID g = dBodyGetFirstGeom(a->ph->body); g; g = dBodyGetNextGeom(g)) {
        const dReal *o = dGeomGetOffsetPosition(g);
        dGeomSetOffsetPosition(g, o[0] + d.x, o[1] + d.y, o[2] + d.z);
    }
    sn_body_from_state(a->ph->body, &a->st, com);
}

void sn_world_teleport(sn_world *w, sn_actor *a, sn_vec3 pos, sn_quat rot)
{
    w->gen++;
    w->motion_gen++;
    w->static_gen += a->kind == SN_ACTOR_STATIC;
    a->st.pos = a->st.prev_pos = pos;
    a->st.rot = a->st.prev_rot = sn_quat_norm(rot);
    if (a->mv && a->mv->kin)
        a->mv->kin->has_target = false;
    if (a->ph->body)
        sn_body_from_state(a->ph->body, &a->st, a->ph->com);
    else if (!a->parent)
        sn_actor_set_rel(a, &(sn_transform){pos, sn_quat_to_rotation(a->st.rot)});
    sn_world_update_attached(w);
    if (a->kind != SN_ACTOR_STATIC)
        return;
    /* ODE's static geoms follow the moved static and the statics riding on it (rays already
    ** do through static_gen; the static broadphase rebuilds on it). */
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *s = w->actors[i];
        if (s->kind == SN_ACTOR_STATIC && s->ph->geom && dGeomGetSpace(s->ph->geom) == w->static_space &&
            sn_actor_is_descendant(w, s->id, a->id)) {
            sn_mat3 m = sn_mat3_from_quat(s->st.rot);
            dGeomSetPosition(s->ph->geom, s->st.pos.x, s->st.pos.y, s->st.pos.z);
            set_rotation(NULL, s->ph->geom, &m);
        }
    }
}

void sn_world_set_velocity(sn_world *w, sn_actor *a, sn_vec3 v, sn_vec3 ang)
{
    (void)w;
    a->st.vel = v;
    a->st.ang_vel = ang;
    if (a->ph->body)
        sn_body_from_state(a->ph->body, &a->st, a->ph->com);
}

bool sn_world_set_drive(sn_world *w, sn_actor *a, sn_drive d)
{
    (void)w;
    if (!a->ph->body || a->drive == d)
        return true;
    if (d == SN_DRIVE_KINEMATIC && !a->mv->kin) {
        if (!(a->mv->kin = calloc(1, sizeof *a->mv->kin)))
            return false;
        a->mv->kin->target_rot = a->mv->kin->kin_from_rot = a->mv->kin->kin_to_rot = sn_quat_identity();
    }
    a->drive = d;
    if (a->mv->kin)
        a->mv->kin->has_target = a->mv->kin->kin_scripted = a->mv->kin->coarse = false;
    if (d == SN_DRIVE_KINEMATIC) {
        /* CARLA: an actor that stops simulating physics stays where it is. */
        a->st.vel = a->st.ang_vel = sn_v3(0, 0, 0);
        dBodySetKinematic(a->ph->body);
    } else {
        dBodySetDynamic(a->ph->body);
    }
    sn_body_from_state(a->ph->body, &a->st, a->ph->com);
    return true;
}

/* ---- ray casts ------------------------------------------------------------------------- */

typedef struct ray_query {
    sn_world *w;
    uint32_t ignore;
    bool hit;
    dContactGeom best;
    sn_actor *actor;
} ray_query;

static void ray_callback(void *data, dGeomID g1, dGeomID g2)
{
    ray_query *q = data;
    if (g2 == (dGeomID)q->w->static_space) {
        sn_sbp_collide(q->w, g1, false, data, ray_callback);
        return;
    }
    sn_actor *a = dGeomGetData(g2);
    if (!a || g2 == a->ph->crash || (q->ignore && sn_actor_is_descendant(q->w, a->id, q->ignore)))
        return; /* rays see the chassis, not the collision-only crash box */
    dContactGeom c;
    if (sn_ode_collide(g1, g2, 1, &c, sizeof c) == 1 && (!q->hit || c.depth < q->best.depth)) {
        q->hit = true;
        q->best = c;
        q->actor = a;
    }
}

bool sn_world_ray_cast(sn_world *w, sn_vec3 o, sn_vec3 d, double max_dist, uint32_t ignore_id,
                       sn_ray_hit *hit)
{
    /* Checked here, not by ODE: its assertions would end the process. */
    if (!isfinite(o.x + o.y + o.z + d.x + d.y + d.z) || !(max_dist > 0) || !isfinite(max_dist))
        return false;
    d = sn_v3_norm(d);
    if (sn_v3_len(d) == 0)
        return false;
    dGeomRaySet(w->ray, o.x, o.y, o.z, d.x, d.y, d.z);
    dGeomRaySetLength(w->ray, max_dist);
    dGeomRaySetFirstContact(w->ray, 0);
    dGeomRaySetClosestHit(w->ray, 1);
    ray_query q = {.w = w, .ignore = ignore_id};
    bool locked = outside_enter(w);
    dSpaceCollide2(w->ray, (dGeomID)w->space, &q, ray_callback);
    sn_ode_shared_leave(locked);
    if (!q.hit)
        return false;
    hit->distance = q.best.depth;
    hit->point = sn_v3(q.best.pos[0], q.best.pos[1], q.best.pos[2]);
    hit->normal = sn_v3(q.best.normal[0], q.best.normal[1], q.best.normal[2]);
    if (sn_v3_dot(hit->normal, d) > 0)
        hit->normal = sn_v3_scale(hit->normal, -1);
    hit->actor_id = q.actor->id;
    hit->semantic_tag = q.actor->tag;
    return true;
}

/* ---- spawn overlap --------------------------------------------------------------------- */

typedef struct overlap_query {
    const sn_actor *self;
    double tol;
    double depth;      /* deepest overlap beyond tol so far */
    sn_actor *other;
} overlap_query;

static void overlap_callback(void *data, dGeomID g1, dGeomID g2)
{
    overlap_query *q = data;
    if (dGeomIsSpace(g2)) {
        dSpaceCollide2(g1, g2, data, overlap_callback);
        return;
    }
    sn_actor *a = dGeomGetData(g2);
    if (!a || a == q->self || g2 == a->ph->crash)
        return;
    dContactGeom c[8];
    int n = sn_ode_collide(g1, g2, 8, c, sizeof c[0]);
    for (int i = 0; i < n; i++) {
        if (c[i].depth > q->tol && (!q->other || c[i].depth > q->depth)) {
            q->depth = c[i].depth;
            q->other = a;
        }
    }
}

typedef struct near_query {
    overlap_query *q;
    dGeomID box;
    sn_vec3 centre;
    double radius;
} near_query;

static void near_body(void *user, sn_actor *b)
{
    near_query *n = user;
    if (!b->ph->geom || b == n->q->self)
        return;
    sn_vec3 bc = sn_v3_add(b->st.pos, sn_quat_apply(b->st.rot, b->ph->bbox.location));
    double r = n->radius + sn_v3_len(b->ph->bbox.extent);
    sn_vec3 d = sn_v3_sub(bc, n->centre);
    if (sn_v3_dot(d, d) <= r * r)
        overlap_callback(n->q, n->box, b->ph->geom);
}

static sn_actor *overlap_at(sn_world *w, dGeomID box, const sn_actor *self, sn_vec3 centre, double tol, double *depth)
{
    dGeomSetPosition(box, centre.x, centre.y, centre.z);
    overlap_query q = {.self = self, .tol = tol};
    /* Static geometry through the static broadphase (sbp.h); planes and bodies directly, with
    ** an AABB test first: ODE's sweep-and-prune collide2 scans every geom per query, which
    ** made loading thousands of vehicles quadratic. (Props riding on a body are not checked.) */
    sn_sbp_collide(w, box, false, &q, overlap_callback);
    for (size_t i = 0; i < w->n_planes; i++)
        overlap_callback(&q, box, w->planes[i]->ph->geom);
    /* Bodies near the box, from the overlap grid (ogrid.h), then bounding spheres. */
    near_query nq = {&q, box, centre, sn_v3_len(self->ph->bbox.extent) + tol};
    sn_ogrid_near(w, centre.x, centre.y, nq.radius, near_body, &nq);
    *depth = q.depth;
    return q.other;
}

/* A box of the actor's bounding box at its world pose: the shape the spawn check tests. */
static dGeomID bbox_geom(const sn_actor *a, const sn_transform *tf, sn_vec3 *centre)
{
    sn_mat3 rot = sn_mat3_from_rotation(tf->rotation);
    *centre = sn_v3_add(tf->location, sn_mat3_apply(&rot, a->ph->bbox.location));
    const sn_vec3 e = a->ph->bbox.extent;
    dGeomID box = dCreateBox(0, 2 * e.x, 2 * e.y, 2 * e.z);
    set_rotation(NULL, box, &rot);
    dGeomSetPosition(box, centre->x, centre->y, centre->z);
    return box;
}

bool sn_world_static_overlap(sn_world *w, const sn_actor *s, sn_spawn_overlap *out)
{
    const double tol = 0.01; /* as sn_world_spawn_overlap */
    memset(out, 0, sizeof *out);
    out->clear_z = NAN;
    if (!s->ph->geom || s->parent || dGeomIsSpace(s->ph->geom))
        return false;
    dAllocateODEDataForThread(dAllocateMaskAll);
    bool plane = dGeomGetClass(s->ph->geom) == dPlaneClass;
    dReal bb[6];
    dGeomGetAABB(s->ph->geom, bb);
    bool locked = outside_enter(w);
    for (size_t i = 0; i < w->n_bodies; i++) {
        sn_actor *b = w->bodies[i];
        if (b->parent || (b->kind != SN_ACTOR_VEHICLE && b->kind != SN_ACTOR_WALKER))
            continue;
        sn_transform tf = sn_actor_world_transform(w, b);
        sn_vec3 c;
        double r = sn_v3_len(b->ph->bbox.extent);
        sn_vec3 bc = sn_v3_add(b->st.pos, sn_quat_apply(b->st.rot, b->ph->bbox.location));
        if (!plane && (bc.x + r < bb[0] || bc.x - r > bb[1] || bc.y + r < bb[2] || bc.y - r > bb[3] ||
                       bc.z + r < bb[4] || bc.z - r > bb[5]))
            continue;
        dGeomID box = bbox_geom(b, &tf, &c);
        overlap_query q = {.self = b, .tol = tol};
        overlap_callback(&q, box, s->ph->geom);
        dGeomDestroy(box);
        if (q.other && q.depth > out->depth) {
            out->other = b;
            out->depth = q.depth;
        }
    }
    sn_ode_shared_leave(locked);
    return out->other != NULL;
}

bool sn_world_spawn_overlap(sn_world *w, const sn_actor *a, const sn_transform *tf, sn_spawn_overlap *out)
{
    const double tol = 0.01; /* touching, or resting on the ground, is no overlap */
    memset(out, 0, sizeof *out);
    sn_ogrid_sync(w); /* out of memory: sn_ogrid_near scans every body instead */
    dAllocateODEDataForThread(dAllocateMaskAll); /* the API may spawn from any thread */
    bool locked = outside_enter(w);
    sn_vec3 centre;
    dGeomID box = bbox_geom(a, tf, &centre);
    out->other = overlap_at(w, box, a, centre, tol, &out->depth);
    if (out->other) {
        /* The least lift that clears everything: double until clear, then bisect to 1 mm. */
        double lo = 0, hi = fmax(out->depth, 0.05), d;
        while (hi < 1e4 && overlap_at(w, box, a, sn_v3_add(centre, sn_v3(0, 0, hi)), tol, &d))
            lo = hi, hi *= 2;
        while (hi - lo > 1e-3) {
            double mid = (lo + hi) / 2;
            if (overlap_at(w, box, a, sn_v3_add(centre, sn_v3(0, 0, mid)), tol, &d))
                lo = mid;
            else
                hi = mid;
        }
        out->clear_z = hi < 1e4 ? tf->location.z + hi : NAN;
    }
    dGeomDestroy(box);
    sn_ode_shared_leave(locked);
    return out->other != NULL;
}
