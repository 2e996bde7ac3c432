/* xosc_shape.c — FollowTrajectoryAction's Clothoid, ClothoidSpline and Nurbs shapes sampled into a polyline
** path (with a time per vertex when the shape has times) when the action starts, so the
** trajectory driver (xosc_move.c) follows them as it follows a Polyline.
**
** Clothoid: heading h(s) = h0 + k s + k' s^2 / 2 from the start position's heading, integrated
** with Simpson's rule over 5 cm steps (error far below a micrometre for road curvatures); times
** spread linearly over the length from startTime to stopTime. Nurbs: the rational B-spline of
** the control points (positions resolved at the start) and their weights over the knot vector,
** evaluated by Cox-de Boor at evenly spaced parameter values; times are the same rational
** combination of the control points' times (monotone when theirs are: B-splines keep order). */
#include "xosc_pos.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLOTHOID_STEP 0.05   /* m between samples */
#define MAX_SAMPLES 400000u

static bool clothoid(sn_xrun *r, int i, const sn_xaction *a, double **xyz, double **tt, uint32_t *n)
{
    const sn_xent *e = &r->ents[i];
    double q[4] = {e->x, e->y, e->z, e->h};
    if (a->pos.kind != SN_XP_NONE) {
        int32_t ri;
        int lane;
        double s, off;
        bool on;
        if (!sn_xmove_resolve(r, &a->pos, q, &ri, &lane, &s, &off, &on))
            return false;
    }
    uint32_t steps = (uint32_t)ceil(a->cl_len / CLOTHOID_STEP - 1e-9);
    if (steps < 1)
        steps = 1;
    if (steps + 1 > MAX_SAMPLES)
        return sn_xrun_fail(r, a->line, "a Clothoid longer than 20 km");
    double ds = a->cl_len / steps;
    *n = steps + 1;
    *xyz = malloc(*n * 3 * sizeof **xyz);
    *tt = a->timed ? malloc(*n * sizeof **tt) : NULL;
    if (!*xyz || (a->timed && !*tt))
        return sn_xrun_fail(r, a->line, "out of memory");
    double x = q[0], y = q[1];
    for (uint32_t k = 0; k <= steps; k++) {
        double s = k * ds;
        if (k) {
            double s0 = s - ds, sm = s - ds / 2;
#define H(u) (q[3] + a->cl_curv * (u) + 0.5 * a->cl_curv_dot * (u) * (u))
            x += ds / 6 * (cos(H(s0)) + 4 * cos(H(sm)) + cos(H(s)));
            y += ds / 6 * (sin(H(s0)) + 4 * sin(H(sm)) + sin(H(s)));
#undef H
        }
        (*xyz)[3 * k] = x;
        (*xyz)[3 * k + 1] = y;
        (*xyz)[3 * k + 2] = q[2];
        if (*tt)
            (*tt)[k] = a->cl_t0 + (a->cl_t1 - a->cl_t0) * s / a->cl_len;
    }
    return true;
}

/* ClothoidSpline: its segments one after the other, each a clothoid whose curvature goes linearly
** from curvatureStart to curvatureEnd over its length, starting where the last one ended (or at
** its PositionStart) with the heading turned by hOffset; sampled as a Clothoid is. With times,
** each segment's samples spread linearly from its timeStart to the next one's (the last one's to
** timeEnd). */
static bool clothoid_spline(sn_xrun *r, int i, const sn_xaction *a, double **xyz, double **tt, uint32_t *n)
{
    const sn_xent *e = &r->ents[i];
    double q[4] = {e->x, e->y, e->z, e->h};
    uint64_t total = 1;
    for (uint32_t k = 0; k < a->n_verts; k++)
        total += (uint64_t)ceil(a->weights[5 * k + 2] / CLOTHOID_STEP - 1e-9) + 1;
    if (total > MAX_SAMPLES)
        return sn_xrun_fail(r, a->line, "a ClothoidSpline longer than 20 km");
    *xyz = malloc(total * 3 * sizeof **xyz);
    *tt = a->timed ? malloc(total * sizeof **tt) : NULL;
    if (!*xyz || (a->timed && !*tt))
        return sn_xrun_fail(r, a->line, "out of memory");
    uint32_t m = 0;
    for (uint32_t k = 0; k < a->n_verts; k++) {
        const double *w = &a->weights[5 * k];
        if (a->verts[k].kind != SN_XP_NONE) {
            int32_t ri;
            int lane;
            double s, off;
            bool on;
            if (!sn_xmove_resolve(r, &a->verts[k], q, &ri, &lane, &s, &off, &on))
                return false;
        }
        double h0 = q[3] + w[3], len = w[2], kap = w[0], dot = (w[1] - w[0]) / len;
        double t0 = w[4], t1 = k + 1 < a->n_verts ? a->weights[5 * (k + 1) + 4] : a->cl_t1;
        uint32_t steps = (uint32_t)ceil(len / CLOTHOID_STEP - 1e-9);
        if (steps < 1)
            steps = 1;
        double ds = len / steps, x = q[0], y = q[1];
        /* a segment that goes on from the last one's end shares its first sample */
        bool joined = m > 0 && fabs((*xyz)[3 * (m - 1)] - x) < 1e-9 && fabs((*xyz)[3 * (m - 1) + 1] - y) < 1e-9;
        for (uint32_t j = 0; j <= steps; j++) {
            double sj = j * ds;
            if (j) {
                double s0 = sj - ds, sm = sj - ds / 2;
#define H(u) (h0 + kap * (u) + 0.5 * dot * (u) * (u))
                x += ds / 6 * (cos(H(s0)) + 4 * cos(H(sm)) + cos(H(sj)));
                y += ds / 6 * (sin(H(s0)) + 4 * sin(H(sm)) + sin(H(sj)));
#undef H
            } else if (joined) {
                continue;
            }
            (*xyz)[3 * m] = x;
            (*xyz)[3 * m + 1] = y;
            (*xyz)[3 * m + 2] = q[2];
            if (*tt)
                (*tt)[m] = t0 + (t1 - t0) * sj / len;
            m++;
        }
        q[0] = x, q[1] = y, q[3] = h0 + kap * len + 0.5 * dot * len * len;
    }
    *n = m;
    return true;
}

/* The B-spline basis functions of the given order at u (Cox-de Boor), into b[0 .. ncp). */
static void basis(const double *knots, uint32_t ncp, int order, double u, double *b, double *tmp)
{
    uint32_t nk = ncp + (uint32_t)order;
    for (uint32_t j = 0; j + 1 < nk; j++)
        tmp[j] = knots[j] <= u && u < knots[j + 1] ? 1 : 0;
    for (int d = 1; d < order; d++)
        for (uint32_t j = 0; j + (uint32_t)d + 1 < nk; j++) {
            double l = knots[j + d] - knots[j], rr = knots[j + d + 1] - knots[j + 1];
            tmp[j] = (l > 0 ? (u - knots[j]) / l * tmp[j] : 0) + (rr > 0 ? (knots[j + d + 1] - u) / rr * tmp[j + 1] : 0);
        }
    memcpy(b, tmp, ncp * sizeof *b);
}

static bool nurbs(sn_xrun *r, const sn_xaction *a, double **xyz, double **tt, uint32_t *n)
{
    uint32_t ncp = a->n_verts;
    double *cp = malloc(ncp * 3 * sizeof *cp), *b = malloc(ncp * sizeof *b),
           *tmp = malloc((ncp + (size_t)a->order) * sizeof *tmp);
    bool ok = cp && b && tmp;
    for (uint32_t k = 0; ok && k < ncp; k++) {
        double q[4], s, off;
        int32_t ri;
        int lane;
        bool on;
        if (!sn_xmove_resolve(r, &a->verts[k], q, &ri, &lane, &s, &off, &on)) {
            free(cp), free(b), free(tmp);
            return false;
        }
        memcpy(&cp[3 * k], q, 3 * sizeof *q);
    }
    uint32_t m = 50 * ncp < 200 ? 200 : 50 * ncp;
    if (m > MAX_SAMPLES)
        m = MAX_SAMPLES;
    *n = m + 1;
    *xyz = ok ? malloc(*n * 3 * sizeof **xyz) : NULL;
    *tt = ok && a->timed ? malloc(*n * sizeof **tt) : NULL;
    if (!ok || !*xyz || (a->timed && !*tt)) {
        free(cp), free(b), free(tmp);
        return sn_xrun_fail(r, a->line, "out of memory");
    }
    /* the curve's domain: [knots[order-1], knots[ncp]]; the last sample just inside it (the
    ** basis is half-open), which is the end for clamped knot vectors to 1e-12 */
    double u0 = a->knots[a->order - 1], u1 = a->knots[ncp];
    for (uint32_t k = 0; k <= m; k++) {
        double u = u0 + (u1 - u0) * k / m;
        if (k == m)
            u = u1 - (u1 - u0) * 1e-12;
        basis(a->knots, ncp, a->order, u, b, tmp);
        double w = 0, p[4] = {0};
        for (uint32_t j = 0; j < ncp; j++) {
            double c = b[j] * a->weights[j];
            w += c;
            p[0] += c * cp[3 * j], p[1] += c * cp[3 * j + 1], p[2] += c * cp[3 * j + 2], p[3] += c * a->times[j];
        }
        if (!(w > 0)) { /* u in a span of zero knots: the previous sample's point */
            if (k)
                memcpy(&(*xyz)[3 * k], &(*xyz)[3 * k - 3], 3 * sizeof **xyz);
            else
                memcpy(&(*xyz)[0], cp, 3 * sizeof *cp);
            if (*tt)
                (*tt)[k] = k ? (*tt)[k - 1] : a->times[0];
            continue;
        }
        for (int c = 0; c < 3; c++)
            (*xyz)[3 * k + c] = p[c] / w;
        if (*tt)
            (*tt)[k] = p[3] / w;
    }
    free(cp), free(b), free(tmp);
    return true;
}

/* The path of a Clothoid or Nurbs trajectory for entity i: *xyz (3 per vertex) and, when timed,
** *tt (a time per vertex before scale and offset), both owned by the caller; *n vertices. */
bool sn_xshape_path(sn_xrun *r, int i, const sn_xaction *a, double **xyz, double **tt, uint32_t *n)
{
    *xyz = NULL, *tt = NULL, *n = 0;
    bool ok = a->traj_shape == SN_XT_CLOTHOID          ? clothoid(r, i, a, xyz, tt, n)
              : a->traj_shape == SN_XT_CLOTHOID_SPLINE ? clothoid_spline(r, i, a, xyz, tt, n)
                                                       : nurbs(r, a, xyz, tt, n);
    if (!ok) {
        free(*xyz), free(*tt);
        *xyz = NULL, *tt = NULL;
    }
    return ok;
}
