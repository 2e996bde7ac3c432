/* sweep.c — a long body's sweep against the vehicles beside its path (sweep.h). The leader
** corridor (leader.c) follows the path's points, half width + 0.35 m to each side, and measures
** bodies whose centre lies ahead of ours; in a turn a long body's front corner runs straight on
** beyond it (an 8 m truck on a 15 m radius: 1 m), its rear swings, and a body beside it is
** behind its centre. On Town10HD a vehicle.truck turning through a junction so pressed at full
** throttle against an HGV standing at its light beside the path: the HGV's corridor saw the
** truck, the truck's did not see the HGV, so neither the pair rule (headon.c: each the other's
** leader) nor the deadlock rule fired. Here the body itself is driven along the path. */
#include "sweep.h"

#include "../sim/engine.h"

#include <math.h>

#define STEP 0.25   /* m of travel between the sweep's poses */
#define MARGIN 0.1  /* m the box is grown by: it stops short of a touch */
#define PRESS 0.02  /* m deeper than now: a body it touches already is pressed further */

/* A box on the ground: centre, unit forward, half extents along and across. */
typedef struct sbox {
    double cx, cy, fx, fy, ex, ey;
} sbox;

/* The separation of two boxes: the largest gap along their four axes (< 0: they overlap). */
static double box_gap(const sbox *p, const sbox *q)
{
    const double ax[4][2] = {{p->fx, p->fy}, {-p->fy, p->fx}, {q->fx, q->fy}, {-q->fy, q->fx}};
    const double dx = q->cx - p->cx, dy = q->cy - p->cy;
    double gap = -INFINITY;
    for (int k = 0; k < 4; k++) {
        const double ux = ax[k][0], uy = ax[k][1];
        const double rp = p->ex * fabs(p->fx * ux + p->fy * uy) + p->ey * fabs(-p->fy * ux + p->fx * uy);
        const double rq = q->ex * fabs(q->fx * ux + q->fy * uy) + q->ey * fabs(-q->fy * ux + q->fx * uy);
        gap = fmax(gap, fabs(dx * ux + dy * uy) - rp - rq);
    }
    return gap;
}

/* The pose of the sweep: the box, and the path segment its centre last projected on. */
typedef struct pose {
    sbox me;
    double yaw;
    size_t k;
} pose;

/* One STEP of pure pursuit (drive(): from the rear axle towards the point `look` m ahead of where
** the centre projects on the path, the steering clamped as the wheels are). */
static void step(pose *p, const sn_vec3 *pts, const double *along, size_t np, double wb, double look)
{
    sbox *me = &p->me;
    for (;;) { /* where the centre projects, segments from k on */
        const size_t i = p->k;
        const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l2 = dx * dx + dy * dy;
        const double u = l2 > 1e-12 ? ((me->cx - pts[i].x) * dx + (me->cy - pts[i].y) * dy) / l2 : 1;
        if (u > 1 && i + 2 < np) {
            p->k++;
            continue;
        }
        const double s = along[i] + u * (along[i + 1] - along[i]) + look;
        size_t j = i;
        while (j + 2 < np && along[j + 1] < s)
            j++;
        const double ex = pts[j + 1].x - pts[j].x, ey = pts[j + 1].y - pts[j].y, seg = along[j + 1] - along[j];
        const double w = seg > 1e-9 ? fmin(fmax((s - along[j]) / seg, 0), 1) : 0;
        const double tx = pts[j].x + w * ex, ty = pts[j].y + w * ey;
        const double rx = me->cx - me->fx * wb / 2, ry = me->cy - me->fy * wb / 2;
        const double lx = me->fx * (tx - rx) + me->fy * (ty - ry), ly = -me->fy * (tx - rx) + me->fx * (ty - ry);
        const double ld = fmax(hypot(lx, ly), 1.0);
        const double delta = fmin(fmax(atan(2.0 * wb * sin(atan2(ly, lx)) / ld), -0.7), 0.7);
        const double nx = rx + me->fx * STEP, ny = ry + me->fy * STEP;
        p->yaw += tan(delta) / wb * STEP;
        me->fx = cos(p->yaw), me->fy = sin(p->yaw);
        me->cx = nx + me->fx * wb / 2, me->cy = ny + me->fy * wb / 2;
        return;
    }
}

/* The distance a's centre drives from pose p0 before its box meets q (one it touches already:
** before it presses q further), within dist m; INFINITY when it does not. */
static double press_at(const pose *p0, const sbox *q, const sn_vec3 *pts, const double *along, size_t np, double wb,
                       double look, double dist)
{
    pose p = *p0;
    const double g0 = box_gap(&p.me, q);
    const double limit = g0 < 0 ? g0 - PRESS : 0;
    for (double s = STEP; s <= dist; s += STEP) {
        step(&p, pts, along, np, wb, look);
        if (box_gap(&p.me, q) < limit)
            return g0 < 0 ? s - STEP : s;
    }
    return INFINITY;
}

bool sn_sweep_leader(const struct sn_engine *e, const sn_actor *a, const sn_vec3 *pts, const double *along, size_t np,
                     double v, double dist, const sn_leader_skip *skip, bool has_lead, double *gap, double *v_lead,
                     const sn_actor **who)
{
    const struct sn_traffic *t = e->traffic;
    const sn_vec3 ext = a->ph->bbox.extent;
    if (!t || !t->n || np < 2 || ext.x < SN_SWEEP_LONG || (skip && skip->vehicles))
        return has_lead;
    const sn_vec3 f = sn_quat_apply(a->st.rot, sn_v3(1, 0, 0));
    const double fl = hypot(f.x, f.y);
    if (fl < 1e-6)
        return has_lead; /* no heading on the ground */
    pose p0 = {{a->st.pos.x, a->st.pos.y, f.x / fl, f.y / fl, ext.x + MARGIN, ext.y + MARGIN}, atan2(f.y, f.x), 0};
    const double wb = a->mv->vp->wheelbase > 0.5 ? a->mv->vp->wheelbase : 0.5;
    const double look = sn_clampd(3.0 + 0.5 * fabs(v), 4.0, 12.0); /* drive()'s */
    /* The path's points the sweep reaches (its centre stays near them) and their box. */
    size_t n = 1;
    while (n < np && along[n - 1] < dist + ext.x)
        n++;
    double lo_x = p0.me.cx, hi_x = lo_x, lo_y = p0.me.cy, hi_y = lo_y;
    for (size_t i = 0; i < n; i++) {
        lo_x = sn_mind(lo_x, pts[i].x), hi_x = sn_maxd(hi_x, pts[i].x);
        lo_y = sn_mind(lo_y, pts[i].y), hi_y = sn_maxd(hi_y, pts[i].y);
    }
    /* a body nearer than this to a path point's segment may meet the box (its half diagonal, the
    ** other's, the margin and a metre for the pursuit cutting inside the path) */
    const double r0 = ext.x + ext.y + MARGIN + 1.0;
    const double reach = r0 + t->ext_max;
    const int64_t x0 = sn_traffic_cell(lo_x - reach), x1 = sn_traffic_cell(hi_x + reach);
    const int64_t y0 = sn_traffic_cell(lo_y - reach), y1 = sn_traffic_cell(hi_y + reach);
    double best = has_lead ? *gap : INFINITY;
    const body *found = NULL;
    for (int64_t gx = x0; gx <= x1; gx++) {
        const uint64_t k1 = sn_traffic_key(gx, y1);
        for (size_t j = sn_traffic_first(t, sn_traffic_key(gx, y0)); j < t->n && t->q[j].key <= k1; j++) {
            const bodyq *q = &t->q[j];
            if (q->kind != SN_ACTOR_VEHICLE || q->id == a->id || q->down || (skip && q->id == skip->actor) ||
                (has_lead && (*who)->id == q->id))
                continue; /* walkers: the corridor and the crossings' rules; the corridor's leader: its gap */
            const double r = r0 + q->ex + q->ey;
            if (q->x < lo_x - r || q->x > hi_x + r || q->y < lo_y - r || q->y > hi_y + r)
                continue;
            bool near = hypot(q->x - p0.me.cx, q->y - p0.me.cy) <= r;
            for (size_t i = 0; !near && i + 1 < n; i++) {
                double u, d2;
                near = sn_seg_near(pts, (uint32_t)i, q->x, q->y, &u, &d2) && d2 <= r * r;
            }
            if (!near)
                continue;
            const body *b = &t->b[j];
            const double bl = hypot(b->fwd.x, b->fwd.y) > 1e-9 ? hypot(b->fwd.x, b->fwd.y) : 1;
            const sbox qb = {b->pos.x, b->pos.y, b->fwd.x / bl, b->fwd.y / bl, b->ext.x, b->ext.y};
            const double s = press_at(&p0, &qb, pts, along, n, wb, look, fmin(dist, best));
            if (s < best) /* strict: ties keep the grid's first, the scan's order */
                best = s, found = b;
        }
    }
    if (!found)
        return has_lead;
    *gap = best;
    *v_lead = found->vel.x * p0.me.fx + found->vel.y * p0.me.fy;
    *who = found->a;
    return true;
}
