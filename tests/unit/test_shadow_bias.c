/* The sun shadow's bias (engine/render/shadow.c, offset_texels): a lookup moved off its own
** surface along its normal is not shaded by that surface, at any angle to the sun, and anything
** really between it and the sun still shades it. Under five suns (ClearNoon's, low, high, and
** two azimuths) and buildings at yaws from 0 to 85 degrees off the sun (so grazing faces too):
**   - every sun-facing wall and roof with nothing in front is wholly lit (visibility exactly 1)
**     over its face away from its edges;
**   - a van-sized box on the ground shades the ground right next to its foot on its shadow's side
**     (2, 10 and 25 cm out: visibility 0), and so does a walker-sized one (2 and 10 cm): no
**     peter-panning;
**   - a wall in the shadow of a taller building in front of it is dark (visibility 0);
** in the exact lookup and the fast one (which agree to 1e-5 at every point). */
#include "../../engine/render/pool.h"
#include "../../engine/render/shadow.h"
#include "../check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXB 5
#define NP   4096

typedef struct box {
    double cx, cy, yaw, hx, hy, h; /* centre, yaw, half sizes, height (from z = 0) */
} box;

static double v[8 * MAXB][3];
static uint32_t t[12 * MAXB][3];

static void corner(const box *b, int k, double p[3])
{
    const double lx = k & 1 ? b->hx : -b->hx, ly = k & 2 ? b->hy : -b->hy, c = cos(b->yaw), s = sin(b->yaw);
    p[0] = b->cx + lx * c - ly * s, p[1] = b->cy + lx * s + ly * c, p[2] = k & 4 ? b->h : 0;
}

static sn_shadow_caster boxes(const box *b, uint32_t n)
{
    static const uint32_t faces[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5}, {0, 4, 5}, {0, 5, 1},
                                          {2, 3, 7}, {2, 7, 6}, {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}};
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++)
            corner(&b[i], k, v[8 * i + k]);
        for (int f = 0; f < 12; f++)
            for (int c = 0; c < 3; c++)
                t[12 * i + f][c] = 8 * i + faces[f][c];
    }
    return (sn_shadow_caster){(const double(*)[3])v, (const uint32_t(*)[3])t, 8 * n, 12 * n};
}

/* the points to look up, their normals and the visibility each must have */
static float px[NP], py[NP], pz[NP], nx[NP], ny[NP], nz[NP], want[NP], vis[NP];
static size_t np;

static void add(double x, double y, double z, double n0, double n1, double n2, float w)
{
    if (np < NP)
        px[np] = (float)x, py[np] = (float)y, pz[np] = (float)z, nx[np] = (float)n0, ny[np] = (float)n1,
        nz[np] = (float)n2, want[np] = w, np++;
}

/* points over box b's sun-facing walls and roof, `margin` metres from their edges (lit: 1) and
** no lower than z_min; the walls' normals are the box's yaw's */
static void faces_lit(const box *b, const double sun[3], double margin, double z_min)
{
    const double c = cos(b->yaw), s = sin(b->yaw);
    for (int side = 0; side < 4; side++) {
        const double lnx = side == 0 ? 1 : side == 1 ? -1 : 0, lny = side == 2 ? 1 : side == 3 ? -1 : 0;
        const double wn[2] = {lnx * c - lny * s, lnx * s + lny * c};
        if (wn[0] * sun[0] + wn[1] * sun[1] <= 0)
            continue;
        const double half = lnx != 0 ? b->hy : b->hx, out = lnx != 0 ? b->hx : b->hy;
        for (int i = 0; i <= 8; i++)
            for (int j = 0; j <= 8; j++) {
                const double along = -half + margin + (2 * half - 2 * margin) * i / 8.0;
                const double z = z_min + (b->h - margin - z_min) * j / 8.0;
                const double lx = lnx * out - lny * along, ly = lny * out + lnx * along;
                add(b->cx + lx * c - ly * s, b->cy + lx * s + ly * c, z, wn[0], wn[1], 0, 1);
            }
    }
    for (int i = 0; i <= 6; i++)
        for (int j = 0; j <= 6; j++) {
            const double lx = -b->hx + margin + (2 * b->hx - 2 * margin) * i / 6.0;
            const double ly = -b->hy + margin + (2 * b->hy - 2 * margin) * j / 6.0;
            add(b->cx + lx * c - ly * s, b->cy + lx * s + ly * c, b->h, 0, 0, 1, 1);
        }
}

int main(void)
{
    const double deg = M_PI / 180;
    /* (altitude, azimuth): ClearNoon's (45, -1), a low and a high sun, two other azimuths */
    const double suns[5][2] = {{45, -1}, {15, -1}, {75, -1}, {45, 30}, {30, 135}};
    sn_shadow *s = sn_shadow_create();
    sn_pool *pool = sn_pool_create(2);
    CHECK(s && pool, "memory");
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++)
        corners[k] = sn_v3(k & 1 ? 40 : -40, k & 2 ? 40 : -40, k & 4 ? 25 : 0);
    const sn_vec3 eye = sn_v3(0, 0, 2);
    size_t lit = 0, foot = 0, shaded = 0;
    for (int si = 0; si < 5; si++) {
        const double h = suns[si][0] * deg, az = suns[si][1] * deg;
        const double sun[3] = {cos(h) * cos(az), cos(h) * sin(az), sin(h)};
        for (int yi = 0; yi <= 17; yi++) {
            const double yaw = az + (yi * 5 + 1) * deg; /* the walls 1 to 86 degrees off the sun (and 89 to 4) */
            /* a lone building, a van and a walker on open ground, a tall building with a low one in its shadow */
            const double f[2] = {sun[0] / cos(h), sun[1] / cos(h)}; /* towards the sun, horizontal */
            box b[5] = {{-20, -20, yaw, 6, 4, 12},
                        {15, -20, az + 0.3, 2.2, 0.9, 2.5},
                        {-15, 20, az, 5, 5, 20},
                        {-15 - 11 * f[0], 20 - 11 * f[1], az, 3, 5, 8},
                        {15, 5, az + 0.5, 0.25, 0.15, 1.8}};
            /* the tall one (b[2]) towards the sun from the low one (b[3]), square on to it */
            b[2].cx = b[3].cx + 11 * f[0], b[2].cy = b[3].cy + 11 * f[1];
            const sn_shadow_caster c = boxes(b, 5);
            CHECK(sn_shadow_begin(s, sun, corners, 8), "begin");
            CHECK(sn_shadow_draw(s, pool, &c, 1), "draw");
            np = 0;
            faces_lit(&b[0], sun, 0.6, 0.6); /* the lone building */
            /* the van's foot on its shadow's side: the ground 2, 10 and 25 cm out from its face on the
            ** line through its middle away from the sun (its shadow there is 0.67 m long at the high sun) */
            const double back[2] = {-f[0], -f[1]}, ca = cos(b[1].yaw), sa = sin(b[1].yaw);
            const double bx = fabs(back[0] * ca + back[1] * sa), by = fabs(-back[0] * sa + back[1] * ca);
            const double face = fmin(bx > 0 ? b[1].hx / bx : 1e9, by > 0 ? b[1].hy / by : 1e9);
            for (int k = 0; k < 3; k++) {
                const double d = k == 0 ? 0.02 : k == 1 ? 0.1 : 0.25;
                add(b[1].cx + back[0] * (face + d), b[1].cy + back[1] * (face + d), 0, 0, 0, 1, 0);
            }
            /* a walker-sized box (50 x 30 cm, 1.8 m): right at its foot, 2 and 10 cm out, no sun
            ** gets through either (the slope-scaled bias before let 20 % and 82 % through under
            ** the 15 degree sun: its shadow began 10 cm or more from its foot) */
            {
                const double cw = cos(b[4].yaw), sw = sin(b[4].yaw);
                const double wx = fabs(back[0] * cw + back[1] * sw), wy = fabs(-back[0] * sw + back[1] * cw);
                const double wf = fmin(wx > 0 ? b[4].hx / wx : 1e9, wy > 0 ? b[4].hy / wy : 1e9);
                for (int k = 0; k < 2; k++) {
                    const double d = k == 0 ? 0.02 : 0.1;
                    add(b[4].cx + back[0] * (wf + d), b[4].cy + back[1] * (wf + d), 0, 0, 0, 1, 0);
                }
            }
            /* the low building's sun-facing wall below the tall one's shadow's top: 3 m apart, the
            ** shadow climbs it to 20 - 3 tan h (all of its 8 m under the high sun) */
            const double top = fmin(b[3].h - 0.5, 20 - 3 * tan(h) - 1), hx = b[3].hy - 1;
            for (int i = 0; i <= 6 && top > 1; i++)
                for (int j = 0; j <= 4; j++) {
                    const double along = -hx + 2 * hx * i / 6.0, z = 0.5 + (top - 0.5) * j / 4.0;
                    add(b[3].cx + 3 * f[0] - f[1] * along, b[3].cy + 3 * f[1] + f[0] * along, z, f[0], f[1], 0, 0);
                }
            for (size_t i = np; i % 4; i++)
                px[i] = py[i] = pz[i] = 0, nx[i] = ny[i] = 0, nz[i] = 1, vis[i] = 1;
            float dx[NP], dy[NP], dz[NP];
            for (size_t i = 0; i < np; i++)
                dx[i] = (float)(px[i] - eye.x), dy[i] = (float)(py[i] - eye.y), dz[i] = (float)(pz[i] - eye.z),
                vis[i] = -1;
            for (size_t i = np; i % 4; i++)
                dx[i] = dy[i] = dz[i] = 0;
            sn_shadow_visibility_fast(s, eye, dx, dy, dz, nx, ny, nz, vis, np);
            for (size_t i = 0; i < np; i++) {
                const float n[3] = {nx[i], ny[i], nz[i]};
                const double e = sn_shadow_visibility(s, sn_v3(px[i], py[i], pz[i]), n);
                CHECK(e == want[i] && vis[i] == want[i],
                      "sun (%g, %g) yaw %d: point (%.2f, %.2f, %.2f) normal (%.2f, %.2f, %.2f): visibility %.4f "
                      "exact, %.4f fast, want %g",
                      suns[si][0], suns[si][1], yi * 5, px[i], py[i], pz[i], n[0], n[1], n[2], e, vis[i], want[i]);
                if (want[i] == 1)
                    lit++;
                else if (pz[i] == 0)
                    foot++;
                else
                    shaded++;
            }
        }
    }
    CHECK(lit > 15000 && foot == 5 * 18 * 5 && shaded > 1000, "counts: %zu lit, %zu at the foot, %zu shaded", lit, foot,
          shaded);
    printf("shadow_bias: %zu wall and roof points lit, %zu at a van's and a walker's foot and %zu on a shaded wall "
           "dark, exact and "
           "fast\n",
           lit, foot, shaded);
    sn_pool_destroy(pool);
    sn_shadow_destroy(s);
    return 0;
}
