/* reflect.c — screen-space reflections on puddles (reflect.h). */
#include "reflect.h"

#include "puddles.h"

#include <math.h>

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* shade.c's wet ground: the tags whose upward faces hold water */
static bool holds_water(uint8_t tag)
{
    return tag == SN_TAG_ROADS || tag == SN_TAG_SIDEWALK || tag == SN_TAG_ROAD_LINE || tag == SN_TAG_GROUND ||
           tag == SN_TAG_BRIDGE || tag == SN_TAG_RAIL_TRACK;
}

/* world vector -> camera frame (forward, right, up) */
static sn_vec3 to_cam(const sn_ssr *s, sn_vec3 d)
{
    return sn_v3(sn_v3_dot(d, sn_mat3_col(&s->R, 0)), sn_v3_dot(d, sn_mat3_col(&s->R, 1)),
                 sn_v3_dot(d, sn_mat3_col(&s->R, 2)));
}

/* The ray at fraction t of its image segment: sample coordinates and depth (1/depth is affine
** in the image). false outside the image. */
typedef struct seg {
    double x0, y0, dx, dy, k0, dk; /* sample coordinates and 1/depth at t = 0, and their change to t = 1 */
} seg;

static bool at(const sn_ssr *s, const seg *g, double t, uint32_t *sx, uint32_t *sy, double *k)
{
    double x = g->x0 + g->dx * t, y = g->y0 + g->dy * t;
    if (!(x >= 0 && y >= 0 && x < s->W && y < s->H))
        return false;
    *sx = (uint32_t)x, *sy = (uint32_t)y, *k = g->k0 + g->dk * t;
    return true;
}

/* How far the ray at t (1/depth k) lies behind the surface drawn there (metres; <= 0: in front of
** it, or the sky); its depth in *z when a surface is there. */
static double behind(const sn_ssr *s, uint32_t sx, uint32_t sy, double k, double *z)
{
    float w = s->wbuf[(size_t)sy * s->W + sx];
    if (w <= s->inv_far || !(k < w))
        return 0; /* the sky (nothing to meet), or the ray in front of what is drawn */
    double zb = 1.0 / w;
    *z = 1 / k;
    return *z - zb - (0.02 + 1e-3 * zb); /* a margin: a surface never meets itself */
}

bool sn_ssr_trace(const sn_ssr *s, sn_vec3 p, sn_vec3 r, uint32_t *qx, uint32_t *qy, double *edge)
{
    const double near = 0.05;
    sn_vec3 c0 = to_cam(s, sn_v3_sub(p, s->eye)), dc = to_cam(s, r);
    if (!(c0.x > near))
        return false;
    double tmax = SN_SSR_REACH;
    if (dc.x < 0 && (c0.x - near) / -dc.x < tmax) /* towards the camera: stop before the lens */
        tmax = (c0.x - near) / -dc.x;
    sn_vec3 c1 = sn_v3_add(c0, sn_v3_scale(dc, tmax));
    double x0 = s->cx + s->f * c0.y / c0.x, y0 = s->cy - s->f * c0.z / c0.x;
    double x1 = s->cx + s->f * c1.y / c1.x, y1 = s->cy - s->f * c1.z / c1.x;
    seg g = {x0, y0, x1 - x0, y1 - y0, 1 / c0.x, 1 / c1.x - 1 / c0.x};
    double len = fmax(fabs(g.dx), fabs(g.dy)) / s->ss; /* output pixels */
    int n = (int)ceil(len);
    n = n < 1 ? 1 : n > SN_SSR_STEPS ? SN_SSR_STEPS : n;
    for (int k = 1; k <= n; k++) {
        double t = (double)k / n, kr, z = 0;
        uint32_t sx, sy;
        if (!at(s, &g, t, &sx, &sy, &kr))
            return false; /* left the image: the sky shade.c mirrored stays */
        double b = behind(s, sx, sy, kr, &z);
        /* met a surface when the ray passes behind it by less than its step (or a metre): more
        ** means the ray went behind something nearer, which it does not touch */
        if (b > 0 && b < fmax(1.0, 1.5 * fabs(z - 1 / (g.k0 + g.dk * (k - 1) / n)))) {
            double lo = (double)(k - 1) / n, hi = t;
            for (int i = 0; i < 6; i++) {
                double mid = (lo + hi) / 2;
                if (at(s, &g, mid, &sx, &sy, &kr) && behind(s, sx, sy, kr, &z) > 0)
                    hi = mid;
                else
                    lo = mid;
            }
            at(s, &g, hi, &sx, &sy, &kr);
            *qx = sx / s->ss, *qy = sy / s->ss;
            /* fade over the last 5 % of the image towards its borders, where the reflection ends */
            double OW = s->W / s->ss, OH = s->H / s->ss, m = 0.05 * (OW < OH ? OW : OH);
            double d = fmin(fmin(*qx + 0.5, OW - *qx - 0.5), fmin(*qy + 0.5, OH - *qy - 0.5));
            *edge = clamp01(d / m);
            return true;
        }
    }
    return false;
}

void sn_ssr_row(const sn_ssr *s, uint32_t oy)
{
    const sn_shade_env *e = s->env;
    const uint32_t ss = s->ss, OW = s->W / ss;
    const sn_vec3 fwd = sn_mat3_col(&s->R, 0), right = sn_mat3_col(&s->R, 1), up = sn_mat3_col(&s->R, 2);
    const uint32_t sy = oy * ss;
    for (uint32_t ox = 0; ox < OW; ox++) {
        const uint32_t sx = ox * ss;
        const size_t i = (size_t)sy * s->W + sx;
        const float *n;
        uint8_t tag;
        if (!s->surface(s->ctx, s->idbuf[i], &n, &tag) || !holds_water(tag) || !(n[2] > 0.5))
            continue;
        /* the pixel's first sample: its ray and surface point, as render.c shades it */
        sn_vec3 ray = sn_v3_add(fwd, sn_v3_sub(sn_v3_scale(right, (sx + 0.5 - s->cx) / s->f),
                                               sn_v3_scale(up, (sy + 0.5 - s->cy) / s->f)));
        sn_vec3 p = sn_v3_add(s->eye, sn_v3_scale(ray, 1.0 / s->wbuf[i]));
        double pud = sn_puddle(e->deposits, p);
        if (!(pud > 0))
            continue;
        /* shade.c's mirror: gloss 0.8 wet + 0.15 puddle, weighted by Schlick's Fresnel term */
        sn_vec3 v = sn_v3_norm(ray), nn = sn_v3(n[0], n[1], n[2]);
        double vn = sn_v3_dot(v, nn), cosv = clamp01(-vn), F = 0.04 + 0.96 * pow(1 - cosv, 5);
        sn_vec3 r = sn_v3_sub(v, sn_v3_scale(nn, 2 * vn));
        double wet = e->wet > pud ? e->wet : pud, m = (0.8 * wet + 0.15 * pud) * F * pud;
        uint32_t qx, qy;
        double edge;
        if (!(m > 0) || !sn_ssr_trace(s, sn_v3_add(p, sn_v3_scale(nn, 0.01)), r, &qx, &qy, &edge))
            continue;
        double k = m * edge * sn_fog_transmittance(e, s->eye, p), t = sqrt(clamp01(r.z));
        const uint8_t *sc = s->src + 4 * ((size_t)qy * OW + qx), *o = s->src + 4 * ((size_t)oy * OW + ox);
        uint8_t *d = s->dst + 4 * ((size_t)oy * OW + ox);
        for (int c = 0; c < 3; c++) { /* c: r, g, b; BGRA holds them at 2 - c */
            double sky = e->horizon[c] + (e->zenith[c] - e->horizon[c]) * t;
            double val = o[2 - c] + k * (sc[2 - c] - sky) + 0.5;
            d[2 - c] = (uint8_t)(val < 0 ? 0 : val > 255 ? 255 : val);
        }
    }
}
