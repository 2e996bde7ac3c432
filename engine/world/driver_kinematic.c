/* driver_kinematic.c — the kinematic driver: actors whose poses come from outside.
**
** A kinematic actor moves each frame from its pose to its target (set by replay or the API
** for the end of the frame), or, without a target, along a linear and angular velocity set
** from outside (scripted motion), or else holds still. Its ODE body is kinematic (infinite mass): at every substep it
** is placed on the straight path between the two poses with the path's velocity, so the
** contacts it makes push physics-driven bodies as a moving wall would. */
#include "driver.h"

/* A coarse kinematic body (sn_kinematic.coarse: hybrid mode's vehicles) is placed only at the
** frame's end, not at every substep, when no dynamic body can reach its swept sphere within the
** frame: it meets no statics and no other kinematic body (contacts.c), so between its poses it
** only matters to dynamic bodies, and ODE need neither step it nor sweep its geoms. Reach: a dynamic body's bounding sphere grown by what it travels
** at its speed plus SKIP_DV (a 40 g push within the frame) and SKIP_PAD. Pairwise against at most
** SKIP_DYN dynamic bodies; with more, every body is placed at every substep (exact, as before). */
#define SKIP_DV 20.0 /* m/s */
#define SKIP_PAD 1.0 /* m */
#define SKIP_DYN 256

/* The actors, their physics and ODE bodies are cache misses at hundreds of hybrid-mode vehicles
** (each read once a frame here, at the frame's start and end): fetched a few bodies ahead, each
** step of the chain once the step before it has had time to arrive. */
static inline void fetch_ahead(const sn_world *w, size_t i, bool ode)
{
    if (i + 8 < w->n_bodies)
        __builtin_prefetch(w->bodies[i + 8]);
    if (i + 6 < w->n_bodies)
        __builtin_prefetch(w->bodies[i + 6]->ph), __builtin_prefetch(w->bodies[i + 6]->mv);
    if (i + 4 < w->n_bodies && w->bodies[i + 4]->ph->body) {
        if (w->bodies[i + 4]->mv)
            __builtin_prefetch(w->bodies[i + 4]->mv->kin);
        if (!ode) /* an idle frame's start reads no ODE body or geom */
            return;
        /* ODE 0.16's dxBody: flags in its first line, the auto-disable counters dBodyEnable
        ** resets about 0x280 bytes in (a prefetch of a wrong address costs nothing but the fetch) */
        const char *body = (const char *)w->bodies[i + 4]->ph->body;
        __builtin_prefetch(body), __builtin_prefetch(body + 0x280);
    }
    if (ode && i + 2 < w->n_bodies && w->bodies[i + 2]->ph->body) /* the geom whose flags dGeomDisable/Enable set */
        __builtin_prefetch(dBodyGetFirstGeom(w->bodies[i + 2]->ph->body));
}

/* The frame's end reads each moved body's pose (sn_body_at_state) and marks its geoms moved
** (dGeomMoved through sn_body_from_state): their lines, a few bodies ahead. */
static inline void fetch_pose_ahead(const sn_world *w, size_t i)
{
    if (i + 4 < w->n_bodies && w->bodies[i + 4]->ph->body) {
        dBodyID b = w->bodies[i + 4]->ph->body; /* its first line: the geom list dBodySetPosition walks */
        __builtin_prefetch(b), __builtin_prefetch(dBodyGetPosition(b)), __builtin_prefetch(dBodyGetQuaternion(b));
        __builtin_prefetch(dBodyGetLinearVel(b)), __builtin_prefetch(dBodyGetAngularVel(b));
    }
    if (i + 2 < w->n_bodies) {
        const sn_actor_phys *ph = w->bodies[i + 2]->ph;
        if (ph->geom)
            __builtin_prefetch(ph->geom, 1);
        if (ph->crash)
            __builtin_prefetch(ph->crash, 1);
    }
}

static double radius(const sn_actor *a) { return sn_v3_len(a->ph->bbox.extent) + sn_v3_len(a->ph->bbox.location); }

static void mark_skips(sn_world *w, double dt)
{
    struct {
        sn_vec3 pos;
        double r;
    } dyn[SKIP_DYN];
    size_t n_dyn = 0;
    for (size_t i = 0; i < w->n_bodies; i++) {
        const sn_actor *b = w->bodies[i];
        if (!b->ph->body || b->drive == SN_DRIVE_KINEMATIC)
            continue;
        if (n_dyn == SKIP_DYN) { /* too many to test pairwise: none skips */
            for (size_t k = 0; k < w->n_bodies; k++)
                if (w->bodies[k]->ph->body && w->bodies[k]->drive == SN_DRIVE_KINEMATIC)
                    w->bodies[k]->mv->kin->skip = false;
            return;
        }
        dyn[n_dyn].pos = b->st.pos;
        dyn[n_dyn++].r = radius(b) + (sn_v3_len(b->st.vel) + SKIP_DV) * dt + SKIP_PAD;
    }
    for (size_t i = 0; i < w->n_bodies; i++) {
        fetch_ahead(w, i, true);
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC || !a->mv->kin->coarse)
            continue;
        sn_kinematic *k = a->mv->kin;
        /* its swept sphere: around the middle of its move, covering both ends */
        const sn_vec3 mid = sn_v3_scale(sn_v3_add(k->kin_from_pos, k->kin_to_pos), 0.5);
        const double ra = radius(a) + 0.5 * sn_v3_len(sn_v3_sub(k->kin_to_pos, k->kin_from_pos));
        bool near = false;
        for (size_t j = 0; j < n_dyn && !near; j++) {
            const sn_vec3 d = sn_v3_sub(dyn[j].pos, mid);
            near = sn_v3_dot(d, d) < (ra + dyn[j].r) * (ra + dyn[j].r);
        }
        k->skip = !near;
        w->n_kin_skipped += k->skip;
        if (k->skip) {
            /* Out of ODE's frame altogether: not stepped, not in the sweep and prune (its
            ** geoms are back, at its new pose, in kinematic_end). */
            dBodyDisable(a->ph->body);
            for (dGeomID g = dBodyGetFirstGeom(a->ph->body); g; g = dBodyGetNextGeom(g))
                dGeomDisable(g);
        }
    }
}

static sn_status kinematic_begin(sn_world *w, double dt, sn_error *err)
{
    (void)err;
    w->n_kinematic = w->n_kin_skipped = 0; /* the substeps and the end pass over the bodies only when some are */
    const bool was_idle = w->kin_idle; /* likely idle again: a hint for the fetches only */
    w->kin_idle = false;
    size_t n_dyn = 0, n_coarse = 0;
    for (size_t i = 0; i < w->n_bodies; i++) {
        fetch_ahead(w, i, !was_idle);
        sn_actor *a = w->bodies[i];
        if (!a->ph->body)
            continue;
        if (a->drive != SN_DRIVE_KINEMATIC) {
            n_dyn++;
            continue;
        }
        w->n_kinematic++;
        n_coarse += a->mv->kin->coarse;
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
        a->mv->kin->skip = a->mv->kin->coarse; /* so far: mark_skips decides unless idle */
    }
    /* Nothing dynamic and every kinematic body coarse: each is out of ODE's frame (mark_skips
    ** would find none near), as the loop above marked it. Such a frame is idle (driver_physics.c:
    ** ODE neither steps nor sweeps), so nothing reads the bodies' and geoms' enabled flags
    ** before the end: disabling them here and enabling them there (a cache miss on each body
    ** and geom, hundreds of vehicles in hybrid mode) would change nothing. The auto-disable
    ** counters dBodyEnable resets are unused (auto-disable is off for every body, physics.c). */
    if (w->n_kinematic && !n_dyn && n_coarse == w->n_kinematic) {
        w->kin_idle = true;
        w->n_kin_skipped = n_coarse;
    } else if (w->n_kinematic) {
        mark_skips(w, dt);
    }
    return SN_OK;
}

static sn_status kinematic_substep(sn_world *w, int index, int n_sub, double h, sn_error *err)
{
    (void)h, (void)err;
    double t = (double)index / n_sub;
    if (w->kin_idle) /* every kinematic body skips the substeps */
        return SN_OK;
    for (size_t i = 0; w->n_kinematic && i < w->n_bodies; i++) {
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC || a->mv->kin->skip)
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
        fetch_ahead(w, i, !w->kin_idle);
        fetch_pose_ahead(w, i);
        sn_actor *a = w->bodies[i];
        if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
            continue;
        /* Exactly the target: no drift from ODE integrating the body's velocity. */
        a->st.pos = a->mv->kin->kin_to_pos;
        a->st.rot = a->mv->kin->kin_to_rot;
        a->mv->kin->has_target = false;
        if (a->mv->kin->skip) {
            a->mv->kin->skip = false;
            if (!w->kin_idle) {
                dBodyEnable(a->ph->body);
                for (dGeomID g = dBodyGetFirstGeom(a->ph->body); g; g = dBodyGetNextGeom(g))
                    dGeomEnable(g);
            }
            /* A coarse body that stood still (a queue in a jam) is where it was placed: placing
            ** it again would only mark its geoms moved, and ODE would recompute their boxes
            ** (through their offsets' storage, a cache miss each) in the next sweep. */
            if (sn_body_at_state(a->ph->body, &a->st, a->ph->com))
                continue;
        }
        sn_body_from_state(a->ph->body, &a->st, a->ph->com);
    }
}

const sn_driver sn_kinematic_driver = {"kinematic", kinematic_begin, kinematic_substep, kinematic_end};
