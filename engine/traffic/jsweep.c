/* jsweep.c — a long body's sweep through the junction ahead against vehicles standing in it
** (jsweep.h). The box stepping is swept64's (sweep.c, not kept as a leader test: a leader can
** only stop a truck already committed to the turn). */
#include "jsweep.h"

#include "../sim/engine.h"

#include <math.h>

#define STEP 0.25     /* m of travel between the sweep's poses */
#define MARGIN 0.1    /* m the box is grown by */
#define STANDING 0.5  /* m/s: slower, a body counts as standing */
#define OWN_PATH 0.35 /* m beyond a's half width: a centre this near a's path is in its lane */

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

/* Whether the box driven from p0 for dist m meets q. */
static bool meets(const pose *p0, const sbox *q, const sn_vec3 *pts, const double *along, size_t np, double wb,
                  double look, double dist)
{
    pose p = *p0;
    if (box_gap(&p.me, q) < 0)
        return true;
    for (double s = STEP; s <= dist; s += STEP) {
        step(&p, pts, along, np, wb, look);
        if (box_gap(&p.me, q) < 0)
            return true;
    }
    return false;
}

/* Whether vehicle x is granted inside a junction (its autopilot holds one it is in). */
static bool granted_inside(const sn_actor *x)
{
    return x->has_autopilot && x->mv && x->mv->ap && x->mv->ap->map && x->mv->ap->map->jx_in >= 0;
}

uint32_t sn_jsweep_standing(const struct sn_engine *e, const sn_actor *a, const sn_vec3 *pts, const double *along,
                            size_t np, double v, double dist, uint32_t skip)
{
    const struct sn_traffic *t = e->traffic;
    const sn_vec3 ext = a->ph->bbox.extent;
    if (!t || !t->n || np < 2 || ext.x < SN_JSWEEP_LONG)
        return 0;
    const sn_vec3 f = sn_quat_apply(a->st.rot, sn_v3(1, 0, 0));
    const double fl = hypot(f.x, f.y);
    if (fl < 1e-6)
        return 0; /* no heading on the ground */
    pose p0 = {{a->st.pos.x, a->st.pos.y, f.x / fl, f.y / fl, ext.x + MARGIN, ext.y + MARGIN}, atan2(f.y, f.x), 0};
    const double wb = a->mv->vp->wheelbase > 0.5 ? a->mv->vp->wheelbase : 0.5;
    const double look = sn_clampd(3.0 + 0.5 * fabs(v), 4.0, 12.0); /* drive()'s */
    /* The path's points the sweep reaches (its centre stays near them) and their box. */
    size_t n = 1;
    while (n < np && along[n - 1] < dist + ext.x)
        n++;
    if (n < 2)
        return 0;
    double lo_x = p0.me.cx, hi_x = lo_x, lo_y = p0.me.cy, hi_y = lo_y;
    for (size_t i = 0; i < n; i++) {
        lo_x = sn_mind(lo_x, pts[i].x), hi_x = sn_maxd(hi_x, pts[i].x);
        lo_y = sn_mind(lo_y, pts[i].y), hi_y = sn_maxd(hi_y, pts[i].y);
    }
    /* a body nearer than this to a path point's segment may meet the box (its half diagonal, the
    ** other's, the margin and a metre for the pursuit cutting inside the path) */
    const double r0 = ext.x + ext.y + MARGIN + 1.0;
    const double reach = r0 + t->ext_max;
    const double own = ext.y + OWN_PATH;
    const int64_t x0 = sn_traffic_cell(lo_x - reach), x1 = sn_traffic_cell(hi_x + reach);
    const int64_t y0 = sn_traffic_cell(lo_y - reach), y1 = sn_traffic_cell(hi_y + reach);
    for (int64_t gx = x0; gx <= x1; gx++) {
        const uint64_t k1 = sn_traffic_key(gx, y1);
        for (size_t j = sn_traffic_first(t, sn_traffic_key(gx, y0)); j < t->n && t->q[j].key <= k1; j++) {
            const bodyq *q = &t->q[j];
            if (q->kind != SN_ACTOR_VEHICLE || q->id == a->id || q->down || q->id == skip)
                continue;
            const double r = r0 + q->ex + q->ey;
            if (q->x < lo_x - r || q->x > hi_x + r || q->y < lo_y - r || q->y > hi_y + r)
                continue;
            const body *b = &t->b[j];
            if (hypot(b->vel.x, b->vel.y) >= STANDING || granted_inside(b->a))
                continue;
            bool near = hypot(q->x - p0.me.cx, q->y - p0.me.cy) <= r, on_path = false;
            for (size_t i = 0; !on_path && i + 1 < n; i++) {
                double u, d2;
                if (sn_seg_near(pts, (uint32_t)i, q->x, q->y, &u, &d2))
                    near |= d2 <= r * r, on_path = d2 <= own * own;
            }
            if (!near || on_path)
                continue;
            const double bl = hypot(b->fwd.x, b->fwd.y) > 1e-9 ? hypot(b->fwd.x, b->fwd.y) : 1;
            const sbox qb = {b->pos.x, b->pos.y, b->fwd.x / bl, b->fwd.y / bl, b->ext.x, b->ext.y};
            if (meets(&p0, &qb, pts, along, n, wb, look, dist))
                return q->id; /* the grid's order: the same at any thread count */
        }
    }
    return 0;
}
