/* physics.c — the ODE world: bodies and geoms for actors, substepping, contacts with joint
** feedback, per-frame collision pairs and ray casts.
**
** ODE's dError/dDebug end the process even after a user handler returns, so the handler
** installed here jumps back to the guard around the ODE call in progress; inputs are
** validated before they reach ODE, so this is a last line of defence only. */
#include "world.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTACT_BLOCK 1024
#define MAX_CONTACTS_PER_PAIR 8

/* ---- ODE error handling ---------------------------------------------------------------- */

static jmp_buf *ode_guard;          /* active while the engine is inside ODE */
static char ode_message[512];

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

static int ode_refs;

sn_status sn_world_init(sn_world *w, uint64_t seed, sn_error *err)
{
    memset(w, 0, sizeof *w);
    if (ode_refs++ == 0) {
        dSetErrorHandler(ode_fatal);
        dSetDebugHandler(ode_fatal);
        dSetMessageHandler(ode_note);
        if (!dInitODE2(0)) {
            ode_refs--;
            return sn_fail(err, SN_E_PHYSICS, "physics: ODE failed to initialise");
        }
        dAllocateODEDataForThread(dAllocateMaskAll);
    }
    /* QuickStep reorders constraints with ODE's global generator: seed it so runs repeat. */
    dRandSetSeed((unsigned long)(seed ^ 0x5eedu));
    w->world = dWorldCreate();
    w->space = dHashSpaceCreate(0);
    dHashSpaceSetLevels(w->space, -2, 6);
    w->static_space = dHashSpaceCreate(w->space);
    dHashSpaceSetLevels(w->static_space, -2, 8);
    w->contact_group = dJointGroupCreate(0);
    w->ray = dCreateRay(0, 1.0);
    dWorldSetGravity(w->world, 0, 0, -9.81);
    dWorldSetQuickStepNumIterations(w->world, 30);
    dWorldSetERP(w->world, 0.2);
    dWorldSetCFM(w->world, 1e-6);
    dWorldSetContactSurfaceLayer(w->world, 0.001);
    dWorldSetContactMaxCorrectingVel(w->world, 5.0);
    return SN_OK;
}

void sn_world_free(sn_world *w)
{
    if (!w->world)
        return;
    while (w->n_actors)
        sn_world_remove(w, w->actors[w->n_actors - 1]->id);
    free(w->actors);
    free(w->planes);
    for (size_t i = 0; i < w->n_blocks; i++)
        free(w->blocks[i]);
    free(w->blocks);
    free(w->pairs);
    free(w->pair_hash);
    dGeomDestroy(w->ray);
    dJointGroupDestroy(w->contact_group);
    dSpaceDestroy(w->space); /* destroys static_space and remaining geoms */
    dWorldDestroy(w->world);
    memset(w, 0, sizeof *w);
    if (--ode_refs == 0)
        dCloseODE();
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

static dGeomID make_geom(sn_actor *a, dSpaceID space, double *z_offset)
{
    const sn_vec3 e = a->bbox.extent;
    *z_offset = 0;
    switch (a->shape) {
    case SN_SHAPE_BOX:
        if (a->kind == SN_ACTOR_VEHICLE) {
            /* The chassis box starts above the ground clearance: wheels are rays. */
            double c = a->vp.clearance;
            *z_offset = c / 2;
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
    if (a->shape == SN_SHAPE_PLANE) {
        if (a->parent)
            return sn_fail(err, SN_E_INVALID, "'%s': a ground plane cannot be attached", a->name);
        sn_vec3 n = sn_mat3_col(&rot, 2);
        if (!sn_grow((void **)&w->planes, &w->cap_planes, w->n_planes + 1, sizeof *w->planes))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        a->plane_normal = n;
        a->plane_offset = sn_v3_dot(n, tf->location);
        a->geom = dCreatePlane(w->space, n.x, n.y, n.z, a->plane_offset);
        dGeomSetData(a->geom, a);
        w->planes[w->n_planes++] = a;
        return SN_OK;
    }
    if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE)
        return SN_OK;
    const sn_actor *carrier = a->parent ? sn_world_find(w, a->parent) : NULL;
    while (carrier && !carrier->body && carrier->parent)
        carrier = sn_world_find(w, carrier->parent);
    double zoff;
    if (a->kind == SN_ACTOR_STATIC) {
        bool on_body = carrier && carrier->body;
        a->geom = make_geom(a, on_body ? 0 : w->static_space, &zoff);
        if (!a->geom)
            return sn_fail(err, SN_E_INVALID, "'%s': unsupported shape", a->name);
        dGeomSetData(a->geom, a);
        if (on_body) {
            /* A prop attached to a moving actor rides on its body (its mass is ignored). */
            dSpaceAdd(w->space, a->geom);
            dGeomSetBody(a->geom, carrier->body);
            sn_transform ct = sn_actor_world_transform(w, carrier);
            sn_mat3 cr = sn_mat3_from_rotation(ct.rotation);
            sn_vec3 off = sn_mat3_apply_t(&cr, sn_v3_sub(tf->location, ct.location));
            sn_mat3 rel = sn_mat3_mul(&(sn_mat3){{cr.m[0], cr.m[3], cr.m[6], cr.m[1], cr.m[4], cr.m[7],
                                                   cr.m[2], cr.m[5], cr.m[8]}}, &rot);
            dGeomSetOffsetPosition(a->geom, off.x, off.y, off.z);
            dMatrix3 r = {rel.m[0], rel.m[1], rel.m[2], 0, rel.m[3], rel.m[4], rel.m[5], 0,
                          rel.m[6], rel.m[7], rel.m[8], 0};
            dGeomSetOffsetRotation(a->geom, r);
        } else {
            dGeomSetPosition(a->geom, tf->location.x, tf->location.y, tf->location.z);
            set_rotation(NULL, a->geom, &rot);
        }
        return SN_OK;
    }
    /* Vehicles and walkers: a body with one geom. */
    a->body = dBodyCreate(w->world);
    dBodySetData(a->body, a);
    dMass m;
    const sn_vec3 e = a->bbox.extent;
    dMassSetBoxTotal(&m, a->mass, 2 * e.x, 2 * e.y, 2 * e.z);
    dBodySetMass(a->body, &m);
    dBodySetPosition(a->body, tf->location.x, tf->location.y, tf->location.z);
    set_rotation(a->body, NULL, &rot);
    dBodySetAutoDisableFlag(a->body, 0);
    a->geom = make_geom(a, w->space, &zoff);
    dGeomSetData(a->geom, a);
    dGeomSetBody(a->geom, a->body);
    if (zoff != 0)
        dGeomSetOffsetPosition(a->geom, 0, 0, zoff);
    return SN_OK;
}

/* ---- contacts -------------------------------------------------------------------------- */

static sn_contact_rec *next_contact(sn_world *w)
{
    size_t block = w->n_contacts / CONTACT_BLOCK;
    if (block >= w->n_blocks) {
        sn_contact_rec **nb = realloc(w->blocks, (w->n_blocks + 1) * sizeof *nb);
        if (!nb)
            return NULL;
        w->blocks = nb;
        if (!(w->blocks[w->n_blocks] = malloc(CONTACT_BLOCK * sizeof(sn_contact_rec))))
            return NULL;
        w->n_blocks++;
    }
    return &w->blocks[block][w->n_contacts++ % CONTACT_BLOCK];
}

static bool is_drivable(uint8_t tag)
{
    return tag == SN_TAG_ROADS || tag == SN_TAG_SIDEWALK || tag == SN_TAG_GROUND ||
           tag == SN_TAG_TERRAIN || tag == SN_TAG_ROAD_LINE || tag == SN_TAG_BRIDGE;
}

static void near_callback(void *data, dGeomID g1, dGeomID g2)
{
    sn_world *w = data;
    if (dGeomIsSpace(g1) || dGeomIsSpace(g2)) {
        dSpaceCollide2(g1, g2, data, near_callback);
        return;
    }
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    if ((!b1 && !b2) || b1 == b2)
        return; /* static-static, or two geoms of one body */
    sn_actor *a1 = dGeomGetData(g1), *a2 = dGeomGetData(g2);
    dContactGeom cg[MAX_CONTACTS_PER_PAIR];
    int n = dCollide(g1, g2, MAX_CONTACTS_PER_PAIR, cg, sizeof cg[0]);
    if (n <= 0)
        return;
    /* Walkers' feet: frictionless support on drivable ground; the walker controller is
    ** the locomotion. (Vehicles stand on ray-cast wheels, so their chassis never rests.) */
    bool feet = (a1->kind == SN_ACTOR_WALKER && is_drivable(a2->tag) && a2->kind == SN_ACTOR_STATIC) ||
                (a2->kind == SN_ACTOR_WALKER && is_drivable(a1->tag) && a1->kind == SN_ACTOR_STATIC);
    for (int i = 0; i < n; i++) {
        sn_contact_rec *rec = next_contact(w);
        if (!rec)
            return; /* out of memory: drop the contact rather than crash */
        dContact c;
        memset(&c, 0, sizeof c);
        c.surface.mode = dContactApprox1 | dContactSoftCFM | dContactSoftERP;
        c.surface.mu = feet ? 0 : 0.8;
        c.surface.soft_cfm = 1e-5;
        c.surface.soft_erp = 0.3;
        c.geom = cg[i];
        dJointID j = dJointCreateContact(w->world, w->contact_group, &c);
        dJointAttach(j, b1, b2);
        memset(&rec->fb, 0, sizeof rec->fb);
        dJointSetFeedback(j, &rec->fb);
        rec->a = a1;
        rec->b = a2;
        rec->a_dynamic = b1 != NULL;
        rec->b_dynamic = b2 != NULL;
        rec->pos = sn_v3(cg[i].pos[0], cg[i].pos[1], cg[i].pos[2]);
        rec->normal = sn_v3(cg[i].normal[0], cg[i].normal[1], cg[i].normal[2]);
        if (feet) /* support, not a collision: no feedback to read */
            rec->a = rec->b = NULL;
    }
}

static sn_pair *pair_get(sn_world *w, uint32_t self, uint32_t other)
{
    if (w->n_pairs * 2 + 2 > w->hash_cap) {
        size_t ncap = w->hash_cap ? w->hash_cap * 2 : 256;
        uint32_t *nh = calloc(ncap, sizeof *nh);
        if (!nh)
            return NULL;
        free(w->pair_hash);
        w->pair_hash = nh;
        w->hash_cap = ncap;
        for (size_t i = 0; i < w->n_pairs; i++) {
            uint64_t k = ((uint64_t)w->pairs[i].self << 32 | w->pairs[i].other) * 0x9e3779b97f4a7c15ull;
            size_t h = (size_t)(k >> 20) & (ncap - 1);
            while (nh[h])
                h = (h + 1) & (ncap - 1);
            nh[h] = (uint32_t)i + 1;
        }
    }
    uint64_t k = ((uint64_t)self << 32 | other) * 0x9e3779b97f4a7c15ull;
    size_t h = (size_t)(k >> 20) & (w->hash_cap - 1);
    while (w->pair_hash[h]) {
        sn_pair *p = &w->pairs[w->pair_hash[h] - 1];
        if (p->self == self && p->other == other)
            return p;
        h = (h + 1) & (w->hash_cap - 1);
    }
    if (!sn_grow((void **)&w->pairs, &w->cap_pairs, w->n_pairs + 1, sizeof *w->pairs))
        return NULL;
    sn_pair *p = &w->pairs[w->n_pairs++];
    memset(p, 0, sizeof *p);
    p->self = self;
    p->other = other;
    w->pair_hash[h] = (uint32_t)w->n_pairs;
    return p;
}

static void pair_add(sn_world *w, sn_actor *self, sn_actor *other, sn_vec3 impulse, sn_vec3 pos,
                     sn_vec3 normal)
{
    sn_pair *p = pair_get(w, self->id, other->id);
    if (!p)
        return;
    p->impulse = sn_v3_add(p->impulse, impulse);
    double mag = sn_v3_len(impulse);
    if (mag >= p->strongest) {
        p->strongest = mag;
        p->pos = pos;
        p->normal = normal;
    }
}

/* Reads joint feedback of this substep's contacts into the frame's pairs. */
static void gather_contacts(sn_world *w, double h)
{
    for (size_t i = 0; i < w->n_contacts; i++) {
        sn_contact_rec *r = &w->blocks[i / CONTACT_BLOCK][i % CONTACT_BLOCK];
        if (!r->a)
            continue;
        /* f1 acts on body 1 (a), f2 on body 2 (b); a static side feels the reaction. */
        sn_vec3 f1 = sn_v3(r->fb.f1[0], r->fb.f1[1], r->fb.f1[2]);
        sn_vec3 f2 = sn_v3(r->fb.f2[0], r->fb.f2[1], r->fb.f2[2]);
        sn_vec3 on_a = r->a_dynamic ? f1 : sn_v3_scale(f2, -1);
        sn_vec3 on_b = r->b_dynamic ? f2 : sn_v3_scale(f1, -1);
        pair_add(w, r->a, r->b, sn_v3_scale(on_a, h), r->pos, r->normal);
        pair_add(w, r->b, r->a, sn_v3_scale(on_b, h), r->pos, sn_v3_scale(r->normal, -1));
    }
}

static int pair_cmp(const void *x, const void *y)
{
    const sn_pair *a = x, *b = y;
    if (a->self != b->self)
        return a->self < b->self ? -1 : 1;
    return a->other < b->other ? -1 : a->other > b->other;
}

static void keep_walkers_upright(sn_world *w)
{
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        if (a->kind != SN_ACTOR_WALKER || !a->body)
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

sn_status sn_world_step(sn_world *w, double dt, int n_sub, sn_error *err)
{
    jmp_buf guard;
    w->n_pairs = 0;
    if (w->hash_cap)
        memset(w->pair_hash, 0, w->hash_cap * sizeof *w->pair_hash);
    if (setjmp(guard)) {
        ode_guard = NULL;
        return sn_fail(err, SN_E_PHYSICS, "physics: %s", ode_message);
    }
    ode_guard = &guard;
    double h = dt / n_sub;
    w->substep_dt = h;
    for (int s = 0; s < n_sub; s++) {
        for (size_t i = 0; i < w->n_actors; i++) {
            sn_actor *a = w->actors[i];
            if (a->kind == SN_ACTOR_VEHICLE && a->body)
                sn_vehicle_apply(w, a, h);
            else if (a->kind == SN_ACTOR_WALKER && a->body)
                sn_walker_apply(w, a, h);
        }
        w->n_contacts = 0;
        dSpaceCollide(w->space, w, near_callback);
        dWorldQuickStep(w->world, h);
        gather_contacts(w, h);
        dJointGroupEmpty(w->contact_group);
        keep_walkers_upright(w);
    }
    ode_guard = NULL;
    if (w->n_pairs > 1)
        qsort(w->pairs, w->n_pairs, sizeof *w->pairs, pair_cmp);
    return SN_OK;
}

void sn_world_post_frame(sn_world *w, double dt)
{
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        if (!a->body)
            continue;
        sn_vec3 v = sn_actor_velocity(a);
        a->acceleration = sn_v3_scale(sn_v3_sub(v, a->prev_velocity), 1.0 / dt);
        a->prev_velocity = v;
    }
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
    if (dGeomIsSpace(g2)) {
        dSpaceCollide2(g1, g2, data, ray_callback);
        return;
    }
    sn_actor *a = dGeomGetData(g2);
    if (!a || (q->ignore && sn_actor_is_descendant(q->w, a->id, q->ignore)))
        return;
    dContactGeom c;
    if (dCollide(g1, g2, 1, &c, sizeof c) == 1 && (!q->hit || c.depth < q->best.depth)) {
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
    dSpaceCollide2(w->ray, (dGeomID)w->space, &q, ray_callback);
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
