/* odr_geom.c — the reference line of a road: its plan-view pieces, elevation, superelevation
** and lane offset, as pure functions of the parsed data (OpenDRIVE frame).
**
** Lines and arcs are closed forms. A spiral (clothoid, curvature linear in s) and the arc
** length of a poly3 are integrals without one: both use 10-point Gauss-Legendre on pieces over
** which the heading turns at most half a radian, which is exact to well under a micrometre on
** any length a road has (the integrand is an entire function of s; the error of 10 points
** falls like (turn)^20 / 20!). Both are tabulated once at load (sn_odr_geom_tabulate: the
** running integral at knots), so an evaluation integrates from the knot below only: a map
** loads in time linear in its length (an integral from 0 at every evaluation made a long poly3
** road quadratic: hours for 1 000 km, issue 33 item 13). */
#include "odr.h"

#include <math.h>
#include <sensim/search.h>
#include <stddef.h>

static const double gl_x[5] = {0.1488743389816312, 0.4333953941292472, 0.6794095682990244, 0.8650633666889845,
                               0.9739065285171717};
static const double gl_w[5] = {0.2955242247147529, 0.2692667193099963, 0.2190863625159820, 0.1494513491505806,
                               0.0666713443086881};

/* The clothoid from the origin at heading 0, curvature k0 + c*u: the integral of its unit
** tangent from u = a to u = b (pieces over which it turns at most half a radian). */
static void clothoid_seg(double k0, double c, double a, double b, double *x, double *y)
{
    double turn = fmax(fabs(k0 + c * a), fabs(k0 + c * b)) * fabs(b - a);
    /* clamped as a double: a cast of an out-of-range double is undefined */
    double pd = turn / 0.5;
    int pieces = !(pd < 1e5) ? 100000 : 1 + (int)pd;
    double h = (b - a) / pieces, sx = 0, sy = 0;
    for (int i = 0; i < pieces; i++) {
        double mid = a + (i + 0.5) * h, half = 0.5 * h;
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

/* A spiral's rate of curvature; 0 for a piece shorter than a nanometre (CARLA's towns have
** pieces of 1e-14 m; a subnormal length would make it infinite and every point NaN). */
static double spiral_rate(const sn_odr_geom *g)
{
    return g->length >= SN_ODR_MIN_PIECE ? (g->curv_end - g->curv) / g->length : 0;
}

/* poly3: arc length from u = a to u = b of the curve (u, a + b u + c u^2 + d u^3). */
static double poly3_seg(const sn_odr_geom *g, double a, double b)
{
    double um = fmax(fabs(a), fabs(b));
    double du1 = fabs(g->b) + 2 * fabs(g->c) * um + 3 * fabs(g->d) * um * um;
    double pd = fabs(b - a) * (1 + du1) / 20.0;
    int pieces = !(pd < 1e5) ? 100000 : 1 + (int)pd;
    double h = (b - a) / pieces, len = 0;
    for (int i = 0; i < pieces; i++) {
        double mid = a + (i + 0.5) * h, half = 0.5 * h;
        for (int k = 0; k < 5; k++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                double t = mid + sgn * gl_x[k] * half;
                double dv = g->b + 2 * g->c * t + 3 * g->d * t * t;
                len += gl_w[k] * half * sqrt(1 + dv * dv);
            }
    }
    return len;
}

/* The largest |v'(u)| of a poly3 over u in [0, length]: at the ends or the quadratic's extremum. */
static double poly3_max_slope(const sn_odr_geom *g)
{
    double us[3] = {0, g->length, g->d != 0 ? -g->c / (3 * g->d) : 0}, worst = 0;
    for (int q = 0; q < 3; q++)
        if (us[q] >= 0 && us[q] <= g->length)
            worst = fmax(worst, fabs(g->b + us[q] * (2 * g->c + 3 * g->d * us[q])));
    return worst;
}

#define TAB_MAX 65536u /* knots of one piece's table (512 KB at most) */

size_t sn_odr_geom_tab_size(const sn_odr_geom *g)
{
    if (g->kind == SN_ODR_SPIRAL) {
        double turn = fmax(fabs(g->curv), fabs(g->curv_end)) * g->length, n = ceil(turn / 0.5);
        return 2 * (size_t)((n < TAB_MAX - 1 ? (n < 1 ? 1 : n) : TAB_MAX - 1) + 1);
    }
    if (g->kind == SN_ODR_POLY3) /* the arc length is at least u: u stays within [0, length] */
        return TAB_MAX + 1;
    return 0;
}

void sn_odr_geom_tabulate(sn_odr_geom *g, double *tab)
{
    size_t cap = sn_odr_geom_tab_size(g);
    if (!cap)
        return;
    if (g->kind == SN_ODR_SPIRAL) {
        uint32_t n = (uint32_t)(cap / 2 - 1);
        double c = spiral_rate(g), h = g->length / n;
        tab[0] = tab[1] = 0;
        for (uint32_t i = 0; i < n; i++) {
            double dx, dy;
            clothoid_seg(g->curv, c, i * h, (i + 1) * h, &dx, &dy);
            tab[2 * i + 2] = tab[2 * i] + dx, tab[2 * i + 3] = tab[2 * i + 1] + dy;
        }
        g->tab = tab, g->tab_h = h, g->n_tab = n + 1;
        return;
    }
    /* poly3: knots as far apart as the integration's own pieces, at most TAB_MAX of them */
    double h = fmax(20.0 / (1 + poly3_max_slope(g)), g->length / (TAB_MAX - 1));
    uint32_t i = 0;
    tab[0] = 0;
    while (tab[i] < g->length && i + 1 < cap) {
        tab[i + 1] = tab[i] + poly3_seg(g, i * h, (i + 1) * h);
        i++;
    }
    g->tab = tab, g->tab_h = h, g->n_tab = i + 1;
}

/* The knot at or below x in a table of n increasing values (stride apart). */
static uint32_t knot_below(const double *tab, uint32_t n, size_t stride, double x)
{
    return (uint32_t)sn_search_last_f64(tab, n, stride * sizeof *tab, 0, x);
}

/* poly3: the u whose arc length is ds (Newton from the knot below; the length grows with u). */
static double poly3_u(const sn_odr_geom *g, double ds)
{
    double u0 = 0, base = 0;
    if (g->tab) {
        uint32_t i = knot_below(g->tab, g->n_tab, 1, ds);
        u0 = i * g->tab_h, base = g->tab[i];
    }
    double dv0 = g->b + 2 * g->c * u0 + 3 * g->d * u0 * u0;
    double u = u0 + (ds - base) / sqrt(1 + dv0 * dv0);
    for (int it = 0; it < 30; it++) {
        double dv = g->b + 2 * g->c * u + 3 * g->d * u * u;
        double f = base + poly3_seg(g, u0, u) - ds, step = f / sqrt(1 + dv * dv);
        u -= step;
        if (fabs(step) < 1e-12 * (1 + fabs(u)))
            break;
    }
    return u;
}

/* A spiral's local point at ds in [0, length]: the knot below plus one short integral. */
static void spiral_xy(const sn_odr_geom *g, double ds, double *x, double *y)
{
    double c = spiral_rate(g), a = 0, bx = 0, by = 0, dx, dy;
    if (g->tab && g->tab_h > 0) {
        uint32_t i = (uint32_t)fmin(ds / g->tab_h, (double)(g->n_tab - 1));
        a = i * g->tab_h, bx = g->tab[2 * i], by = g->tab[2 * i + 1];
    }
    clothoid_seg(g->curv, c, a, ds, &dx, &dy);
    *x = bx + dx, *y = by + dy;
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
    case SN_ODR_SPIRAL:
    case SN_ODR_POLY3: {
        /* Past its end a curved piece goes on straight along its end tangent (CARLA clamps at
        ** the end): its formula there would turn without bound (and cost without bound). */
        double d = ds > g->length ? g->length : ds, beyond = ds - d;
        if (g->kind == SN_ODR_SPIRAL) {
            spiral_xy(g, d, &lx, &ly);
            lh = g->curv * d + 0.5 * spiral_rate(g) * d * d;
        } else {
            double u = poly3_u(g, d);
            lx = u;
            ly = g->a + u * (g->b + u * (g->c + u * g->d));
            lh = atan(g->b + u * (2 * g->c + 3 * g->d * u));
        }
        lx += beyond * cos(lh), ly += beyond * sin(lh);
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
    /* the last piece whose start <= s (+ a rounding margin) */
    return (uint32_t)sn_search_last_f64(r->geoms, r->n_geoms, sizeof *r->geoms, offsetof(sn_odr_geom, s), s + 1e-9);
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
    case SN_ODR_SPIRAL: return ds > g->length ? 0 : g->curv + spiral_rate(g) * ds;
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
    return &p[sn_search_last_f64(p, n, sizeof *p, offsetof(sn_odr_poly, s), s + 1e-9)];
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
    /* OpenDRIVE's t axis is the horizontal left normal n rolled by the superelevation phi about
    ** the reference line, h its normal: (t, h) lies at (t cos phi - h sin phi) n and
    ** t sin phi + h cos phi up (esmini's Position::Track2XYZ, roll only). Without
    ** superelevation: t out, h up, bit for bit as before the rule (and no cos, sin). */
    double se = r->n_superelevation ? sn_odr_superelevation(r, s) : 0;
    double out_n = t, up = h;
    if (se != 0) {
        double c = cos(se), sn = sin(se);
        out_n = t * c - h * sn, up = t * sn + h * c;
    }
    out[0] = p.x - sin(p.hdg) * out_n;
    out[1] = p.y + cos(p.hdg) * out_n;
    out[2] = sn_odr_elevation(r, s) + up;
}

double sn_odr_t_of(const sn_odr_road *r, double s, double across)
{
    if (!r->n_superelevation)
        return across;
    /* a point straight above or below the tilted cross-section: across = t cos phi; a roll near
    ** 90 degrees (a wall) keeps the division finite */
    double c = cos(sn_odr_superelevation(r, s));
    if (fabs(c) < 1e-3)
        c = c < 0 ? -1e-3 : 1e-3;
    return across / c;
}
