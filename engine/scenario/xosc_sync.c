/* xosc_sync.c — SynchronizeAction: the entity arrives at its TargetPosition when the master
** arrives at TargetPositionMaster. Each step the master's time to go is its distance to go over
** its speed, T; the entity follows, over this step, the speed profile that covers its own
** distance to go in T:
**   without FinalSpeed, the constant speed d/T;
**   with FinalSpeed vf, v(tau) = v + (vf - v) tau/T + 6 (d - (v + vf) T/2) tau (T - tau) / T^3,
**   which starts at v, ends at vf and integrates to d over T (the step moves it by the integral).
** Re-planned every step, so a master that changes speed is followed. Distances go along the road
** (s) when the entity and the target share a road, along its route's roads when the target's road
** is on its route (AssignRouteAction), else straight along the entity's heading. The action
** ends when the entity is within `targetTolerance` of its target or past it, or when the master
** has passed its own (the entity then keeps FinalSpeed, or its speed). With tolerances the plan
** runs to their edges and the action ends in the step in which the master would cross its own
** (esmini's rule); a SteadyState ends the profile that distance or time early, at FinalSpeed. */
#include "xosc_pos.h"

#include "../map/lanemap.h"

#include <math.h>

/* The distance along entity e's route (its lane, then the roads its route passes, each entered
** at the end nearer the last one's exit) to s on road index tri; false when tri is not ahead on it. */
static bool along_route(const sn_xrun *r, const sn_xent *e, int32_t tri, double ts, double *out)
{
    const sn_odr *o = r->map->odr;
    if (e->ri == tri) {
        *out = (ts - e->s) * e->sdir;
        return true;
    }
    if (!e->route)
        return false;
    uint32_t k = e->route_i;
    while (k < e->n_route && e->route[k] != e->ri)
        k++;
    if (k >= e->n_route)
        return false;
    const sn_odr_road *cur = &o->roads[e->ri];
    double d = e->sdir > 0 ? cur->length - e->s : e->s;
    sn_odr_pose exit = sn_odr_ref_line(cur, e->sdir > 0 ? cur->length : 0);
    for (k++; k < e->n_route; k++) {
        const sn_odr_road *rd = &o->roads[e->route[k]];
        sn_odr_pose a = sn_odr_ref_line(rd, 0), b = sn_odr_ref_line(rd, rd->length);
        bool at_start = hypot(a.x - exit.x, a.y - exit.y) <= hypot(b.x - exit.x, b.y - exit.y);
        if (e->route[k] == tri) {
            *out = d + (at_start ? ts : rd->length - ts);
            return true;
        }
        d += rd->length;
        exit = at_start ? b : a;
    }
    return false;
}

/* The distance to go from entity i to position p (negative once past it). */
static double to_go(sn_xrun *r, int i, const sn_xpos *p, bool *ok)
{
    const sn_xent *e = &r->ents[i];
    double q[4], s, off;
    int32_t ri;
    int lane;
    bool on;
    *ok = sn_xmove_resolve(r, p, q, &ri, &lane, &s, &off, &on);
    if (!*ok)
        return 0;
    double d;
    if (on && e->mode == SN_XM_LANE && along_route(r, e, ri, s, &d))
        return d;
    return (q[0] - e->x) * cos(e->h) + (q[1] - e->y) * sin(e->h);
}

bool sn_xsync_step(sn_xrun *r, int i, double *dist, bool *done)
{
    sn_xent *e = &r->ents[i];
    const sn_xaction *a = e->lon;
    const double dt = r->dt;
    bool ok1, ok2;
    *done = false;
    double dm = to_go(r, a->ref, &a->pos, &ok1), de = to_go(r, i, &a->verts[0], &ok2);
    if (!ok1 || !ok2)
        return false;
    const sn_xent *m = &r->ents[a->ref];
    double vf = !a->has_sync_speed ? -1 : !a->sync_rel ? a->sync_speed
                : a->factor ? m->v * a->sync_speed : m->v + a->sync_speed;
    if (a->has_sync_speed && vf < 0)
        vf = 0;
    /* esmini's rule (OSCPrivateAction.cpp, SynchronizeAction::Step): the plan brings the entity
    ** to the edge of its tolerance when the master reaches the edge of its own, and the action
    ** ends in the step in which the master would cross that edge */
    bool master_there = dm <= a->sync_tol_master + 1e-9 ||
                        (m->v > 1e-6 && (dm - a->sync_tol_master) / m->v < dt - 1e-9);
    dm = fmax(dm - a->sync_tol_master, 0);
    if (de <= a->sync_tol + 1e-9 || master_there) {
        *done = true;
        if (a->has_sync_speed)
            e->v = vf;
        *dist = e->v * dt;
        return true;
    }
    if (m->v < 1e-6) { /* the master stands: no time to go; the entity keeps its speed */
        *dist = e->v * dt;
        return true;
    }
    de -= a->sync_tol;
    double T = fmax(dm / m->v, dt); /* arriving within this step: over this step */
    if (a->has_sync_speed && a->ss_kind) {
        /* SteadyState: the profile ends ss before (a distance, or a time, at the final speed),
        ** and the entity keeps the final speed from there (esmini's MODE_STEADY_STATE) */
        double dss = a->ss_kind == 1 ? a->ss_value : vf * a->ss_value;
        double tss = a->ss_kind == 2 ? a->ss_value : vf > 1e-9 ? a->ss_value / vf : INFINITY;
        if (dm / m->v - tss < dt - 1e-9 || de - dss < 1e-9) {
            e->v = vf;
            *dist = vf * dt;
            return true;
        }
        T = dm / m->v - tss;
        de -= dss;
    }
    if (!a->has_sync_speed) {
        e->v = fmax(0, de / T);
        *dist = e->v * dt;
        return true;
    }
    double v = e->v, c = 6 * (de - (v + vf) * T / 2) / (T * T * T);
    double vn = v + (vf - v) * dt / T + c * dt * (T - dt);
    *dist = v * dt + (vf - v) * dt * dt / (2 * T) + c * (T * dt * dt / 2 - dt * dt * dt / 3);
    if (vn < 0) { /* the profile would reverse: stop instead */
        vn = 0;
        *dist = fmax(0, v * dt / 2);
    }
    e->v = vn;
    return true;
}
