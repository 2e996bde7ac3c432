/* shadow_need.c — the receivers' cells of the shadow map (shadow_need.h). */
#include "shadow_need.h"

#include <math.h>
#include <string.h>

void sn_need_all(sn_shadow_need *q)
{
    q->all = true;
    for (int32_t y = 0; y < SN_NEED_N; y++)
        q->lo[y] = 0, q->hi[y] = SN_SHADOW_SIZE - 1;
}

void sn_need_none(sn_shadow_need *q)
{
    q->all = false, q->ready = false;
    memset(q->cell, 0, sizeof q->cell);
}

/* texel coordinate t's cell, clamped to the grid (a footprint beyond the map marks its edge,
** which errs on the side of drawing) */
static int32_t cell_of(double t)
{
    const double c = floor(t / SN_SHADOW_CELL);
    return c < 0 ? 0 : c > SN_NEED_N - 1 ? SN_NEED_N - 1 : (int32_t)c;
}

void sn_need_box(sn_shadow_need *q, double u0, double v0, double u1, double v1)
{
    if (q->all || !(u1 >= 0 && v1 >= 0 && u0 <= SN_SHADOW_SIZE && v0 <= SN_SHADOW_SIZE))
        return; /* off the map (a NaN too: nothing of it is looked up) */
    const int32_t x0 = cell_of(u0), x1 = cell_of(u1), y0 = cell_of(v0), y1 = cell_of(v1);
    if (x1 < x0 || y1 < y0)
        return; /* an inverted box covers no texel */
    for (int32_t y = y0; y <= y1; y++)
        memset(q->cell + (size_t)y * SN_NEED_N + x0, 1, (size_t)(x1 - x0 + 1));
    q->ready = false;
}

static double cross(const double *o, const double *a, const double *b)
{
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

void sn_need_hull(sn_shadow_need *q, const double (*uv)[2], int n, double reach)
{
    if (q->all || n <= 0)
        return;
    for (int i = 0; i < n && i < 16; i++)
        if (!isfinite(uv[i][0]) || !isfinite(uv[i][1])) {
            sn_need_all(q); /* a receiver we cannot place: cull nothing (drawing more is exact) */
            return;
        }
    /* the convex hull, counter-clockwise (monotone chain; n is small) */
    double p[16][2], h[33][2];
    n = n > 16 ? 16 : n;
    memcpy(p, uv, (size_t)n * sizeof *p);
    for (int i = 1; i < n; i++) /* by u, then v */
        for (int j = i; j > 0 && (p[j][0] < p[j - 1][0] || (p[j][0] == p[j - 1][0] && p[j][1] < p[j - 1][1])); j--) {
            double t0 = p[j][0], t1 = p[j][1];
            p[j][0] = p[j - 1][0], p[j][1] = p[j - 1][1], p[j - 1][0] = t0, p[j - 1][1] = t1;
        }
    int m = 0;
    for (int i = 0; i < n; i++) {
        while (m >= 2 && cross(h[m - 2], h[m - 1], p[i]) <= 0)
            m--;
        h[m][0] = p[i][0], h[m][1] = p[i][1], m++;
    }
    for (int i = n - 2, lo = m + 1; i >= 0; i--) {
        while (m >= lo && cross(h[m - 2], h[m - 1], p[i]) <= 0)
            m--;
        h[m][0] = p[i][0], h[m][1] = p[i][1], m++;
    }
    m--; /* the last point is the first */
    double u0 = p[0][0], u1 = p[n - 1][0], v0 = p[0][1], v1 = p[0][1];
    for (int i = 1; i < n; i++)
        v0 = p[i][1] < v0 ? p[i][1] : v0, v1 = p[i][1] > v1 ? p[i][1] : v1;
    if (m < 3 || !(u1 >= u0)) { /* a point or a segment: its box */
        sn_need_box(q, u0 - reach, v0 - reach, u1 + reach, v1 + reach);
        return;
    }
    if (!(u1 + reach >= 0 && v1 + reach >= 0 && u0 - reach <= SN_SHADOW_SIZE && v0 - reach <= SN_SHADOW_SIZE))
        return;
    /* a cell widened by reach meets the hull unless an axis separates them: the box's axes
    ** (the loop's bounds) or an edge's outward normal (every corner outside that edge) */
    const int32_t x0 = cell_of(u0 - reach), x1 = cell_of(u1 + reach), y0 = cell_of(v0 - reach),
                  y1 = cell_of(v1 + reach);
    for (int32_t y = y0; y <= y1; y++)
        for (int32_t x = x0; x <= x1; x++) {
            const double cu0 = x * (double)SN_SHADOW_CELL - reach, cu1 = (x + 1) * (double)SN_SHADOW_CELL + reach,
                         cv0 = y * (double)SN_SHADOW_CELL - reach, cv1 = (y + 1) * (double)SN_SHADOW_CELL + reach;
            const double c[4][2] = {{cu0, cv0}, {cu1, cv0}, {cu0, cv1}, {cu1, cv1}};
            bool apart = false;
            for (int e = 0; e < m && !apart; e++) {
                const double *a = h[e], *b = h[e + 1];
                apart = true;
                for (int k = 0; k < 4 && apart; k++)
                    apart = cross(a, b, c[k]) < 0; /* right of a counter-clockwise edge: outside */
            }
            if (!apart)
                q->cell[(size_t)y * SN_NEED_N + x] = 1;
        }
    q->ready = false;
}

void sn_need_finish(sn_shadow_need *q)
{
    if (q->all || q->ready)
        return;
    const size_t w = SN_NEED_N + 1;
    memset(q->sat, 0, w * sizeof *q->sat);
    for (size_t y = 0; y < SN_NEED_N; y++) {
        uint32_t row = 0;
        int32_t lo = SN_SHADOW_SIZE, hi = -1;
        q->sat[(y + 1) * w] = 0;
        for (size_t x = 0; x < SN_NEED_N; x++) {
            row += q->cell[y * SN_NEED_N + x];
            q->sat[(y + 1) * w + x + 1] = q->sat[y * w + x + 1] + row;
            if (q->cell[y * SN_NEED_N + x]) {
                lo = lo < (int32_t)x * SN_SHADOW_CELL ? lo : (int32_t)x * SN_SHADOW_CELL;
                hi = (int32_t)(x + 1) * SN_SHADOW_CELL - 1;
            }
        }
        q->lo[y] = lo, q->hi[y] = hi;
    }
    q->ready = true;
}

bool sn_need_any(const sn_shadow_need *q, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
    if (q->all)
        return true;
    const size_t w = SN_NEED_N + 1, cx0 = (size_t)(x0 / SN_SHADOW_CELL), cx1 = (size_t)(x1 / SN_SHADOW_CELL) + 1,
                 cy0 = (size_t)(y0 / SN_SHADOW_CELL), cy1 = (size_t)(y1 / SN_SHADOW_CELL) + 1;
    return q->sat[cy1 * w + cx1] - q->sat[cy0 * w + cx1] - q->sat[cy1 * w + cx0] + q->sat[cy0 * w + cx0] > 0;
}
