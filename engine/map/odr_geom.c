/* odr_geom.c — the reference line of a road: its plan-view pieces, elevation, superelevation
** and lane offset, as pure functions of the parsed data (OpenDRIVE frame).
**
** Lines and arcs are closed forms. A spiral (clothoid, curvature linear in s) and the arc
** length of a poly3 are integrals without one: both use 10-point Gauss-Legendre on pieces over
** which the heading turns at most half a radian, which is exact to well under a micrometre on
** any length a road has (the integrand is an entire function of s; the error of 10 points
** falls like (turn)^20 / 20!). */
#include "odr.h"

#include <math.h>

static const double gl_x[5] = {0.1488743389816312, 0.4333953941292472, 0.6794095682990244, 0.8650633666889845,
                               0.9739065285171717};
static const double gl_w[5] = {0.2955242247147529, 0.2692667193099963, 0.2190863625159820, 0.1494513491505806,
                               0.0666713443086881};

/* The clothoid from the origin at heading 0, curvature k0 + c*u: its point at arc length L. */
static void clothoid(double k0, double c, double L, double *x, double *y)
{
    double turn = fabs(k0) * L + 0.5 * fabs(c) * L * L;
    /* clamped as a double: a cast of an out-of-range double is undefined */
    double pd = turn / 0.5;
    int pieces = !(pd < 1e5) ? 100000 : 1 + (int)pd;
    double h = L / pieces, sx = 0, sy = 0;
    for (int i = 0; i < pieces; i++) {
        double mid = (i + 0.5) * h, half = 0.5 * h;
        for (int k = 0; k < 5; k++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double u = mid + sgn * gl_x[k] * half;
                double th = k0 * u + 0.5 * c * u * u;
                sx += gl_w[k] * half * cos(th);
                sy += gl_w[k] * half * sin(th);
            }
    }
    *x = sx, *y = sy;
}

/* poly3: arc length from u = 0 to u of the curve (u, a + b u + c u^2 + d u^3). */
static double poly3_arclen(const sn_odr_geom *g, double u)
{
    double du1 = fabs(g->b) + 2 * fabs(g->c) * fabs(u) + 3 * fabs(g->d) * u * u;
    double pd = fabs(u) * (1 + du1) / 20.0;
    int pieces = !(pd < 1e5) ? 100000 : 1 + (int)pd;
    double h = u / pieces, len = 0;
    for (int i = 0; i < pieces; i++) {
        double mid = (i + 0.5) * h, half = 0.5 * h;
        for (int k = 0; k < 5; k++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double t = mid + sgn * gl_x[k] * half;
                double dv = g->b + 2 * g->c * t + 3 * g->d * t * t;
                len += gl_w[k] * half * sqrt(1 + dv * dv);
            }
    }
    return len;
}

/* poly3: the u whose arc length is ds (Newton from u = ds; the length grows with u). */
static double poly3_u(const sn_odr_geom *g, double ds)
{
    double u = ds;
    for (int it = 0; it < 30; it++) {
        double dv = g->b + 2 * g->c * u + 3 * g->d * u * u;
        double f = poly3_arclen(g, u) - ds, step = f / sqrt(1 + dv * dv);
        u -= step;
        if (fabs(step) < 1e-12 * (1 + fabs(u)))
            break;
    }
    return u;
}

sn_odr_pose sn_odr_geom_eval(const sn_odr_geom *g, double ds)
{
    const double ch = cos(g->hdg), sh = sin(g->hdg);
    double lx = 0, ly = 0, lh = 0; /* in the piece's local frame */
    switch (g->kind) {
    case SN_ODR_LINE:
        lx = ds;
        break;
    case SN_ODR_ARC: {
        double k = g->curv;
        lh = k * ds;
        if (fabs(k) < 1e-12) {
            lx = ds;
        } else {
            /* sin and (1 - cos)/k without cancellation for small turns */
            lx = sin(lh) / k;
            double half = sin(0.5 * lh);
            ly = 2 * half * half / k;
        }
        break;
    }
    case SN_ODR_SPIRAL: {
        double c = g->length > 0 ? (g->curv_end - g->curv) / g->length : 0;
        clothoid(g->curv, c, ds, &lx, &ly);
        lh = g->curv * ds + 0.5 * c * ds * ds;
        break;
    }
    case SN_ODR_POLY3: {
        double u = poly3_u(g, ds);
        lx = u;
        ly = g->a + u * (g->b + u * (g->c + u * g->d));
        lh = atan(g->b + u * (2 * g->c + 3 * g->d * u));
        break;
    }
    case SN_ODR_PARAMPOLY3: {
        double p = g->normalized ? (g->length > 0 ? ds / g->length : 0) : ds;
        lx = g->au + p * (g->bu + p * (g->cu + p * g->du));
        ly = g->av + p * (g->bv + p * (g->cv + p * g->dv));
        double dx = g->bu + p * (2 * g->cu + 3 * g->du * p), dy = g->bv + p * (2 * g->cv + 3 * g->dv * p);
        lh = (dx == 0 && dy == 0) ? 0 : atan2(dy, dx);
        break;
    }
    }
    return (sn_odr_pose){g->x + ch * lx - sh * ly, g->y + sh * lx + ch * ly, g->hdg + lh};
}

uint32_t sn_odr_geom_at(const sn_odr_road *r, double s)
{
    uint32_t lo = 0, hi = r->n_geoms; /* the last piece whose start <= s (+ a rounding margin) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->geoms[mid].s <= s + 1e-9)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

sn_odr_pose sn_odr_ref_line(const sn_odr_road *r, double s)
{
    if (s < 0)
        s = 0;
    if (s > r->length)
        s = r->length;
    const sn_odr_geom *g = &r->geoms[sn_odr_geom_at(r, s)];
    double ds = s - g->s;
    if (ds < 0)
        ds = 0;
    return sn_odr_geom_eval(g, ds);
}

double sn_odr_ref_curvature(const sn_odr_road *r, double s)
{
    const sn_odr_geom *g = &r->geoms[sn_odr_geom_at(r, s)];
    double ds = s - g->s;
    switch (g->kind) {
    case SN_ODR_LINE: return 0;
    case SN_ODR_ARC: return g->curv;
    case SN_ODR_SPIRAL: return g->length > 0 ? g->curv + (g->curv_end - g->curv) * ds / g->length : g->curv;
    default: {
        double h = 1e-3, a = sn_odr_geom_eval(g, ds > h ? ds - h : 0).hdg, b = sn_odr_geom_eval(g, ds + h).hdg;
        return (b - a) / (ds > h ? 2 * h : ds + h);
    }
    }
}

/* The record in force at s: the last whose start <= s. */
static const sn_odr_poly *poly_at(const sn_odr_poly *p, uint32_t n, double s)
{
    if (!n || s < p[0].s - 1e-9)
        return n ? &p[0] : NULL;
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid].s <= s + 1e-9)
            lo = mid;
        else
            hi = mid;
    }
    return &p[lo];
}

double sn_odr_poly_eval(const sn_odr_poly *p, uint32_t n, double s)
{
    const sn_odr_poly *r = poly_at(p, n, s);
    if (!r)
        return 0;
    double ds = s - r->s;
    return r->a + ds * (r->b + ds * (r->c + ds * r->d));
}

double sn_odr_poly_slope(const sn_odr_poly *p, uint32_t n, double s)
{
    const sn_odr_poly *r = poly_at(p, n, s);
    if (!r)
        return 0;
    double ds = s - r->s;
    return r->b + ds * (2 * r->c + 3 * ds * r->d);
}

double sn_odr_elevation(const sn_odr_road *r, double s) { return sn_odr_poly_eval(r->elevation, r->n_elevation, s); }
double sn_odr_superelevation(const sn_odr_road *r, double s)
{
    return sn_odr_poly_eval(r->superelevation, r->n_superelevation, s);
}
double sn_odr_lane_offset(const sn_odr_road *r, double s) { return sn_odr_poly_eval(r->lane_offset, r->n_lane_offset, s); }

void sn_odr_point(const sn_odr_road *r, double s, double t, double h, double out[3])
{
    sn_odr_pose p = sn_odr_ref_line(r, s);
    /* Lateral distances are horizontal (as CARLA measures them); superelevation lifts the
    ** left side and lowers the right. */
    double se = r->n_superelevation ? sn_odr_superelevation(r, s) : 0;
    out[0] = p.x - sin(p.hdg) * t;
    out[1] = p.y + cos(p.hdg) * t;
    out[2] = sn_odr_elevation(r, s) + t * tan(se) + h;
}
