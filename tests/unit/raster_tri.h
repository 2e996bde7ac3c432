/* raster_tri.h — the raster tests' triangle setup, as render.c's put_tri does it: fixed-point
** corners wound positive, the plane of 1/depth through the corners, the box inside an img_w x img_h image. */
#ifndef RASTER_TRI_H
#define RASTER_TRI_H

#include "../../engine/render/raster.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define RT_ONE (1 << SN_RASTER_SUB)

static int64_t first_px(int64_t lo) { return (lo - RT_ONE / 2 + RT_ONE - 1) >> SN_RASTER_SUB; }
static int64_t last_px(int64_t hi) { return (hi - RT_ONE / 2) >> SN_RASTER_SUB; }

/* Screen corners (sx, sy) in pixels with 1/depth sw into t; false when degenerate or outside. */
static bool tri_setup(sn_tri *t, const double *sx, const double *sy, const double *sw, int64_t img_w, int64_t img_h)
{
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; i++)
        X[i] = llround(sx[i] * RT_ONE), Y[i] = llround(sy[i] * RT_ONE);
    const int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
    if (area == 0)
        return false;
    if (area < 0) { /* wound positive */
        int64_t tx = X[1], ty = Y[1];
        X[1] = X[2], Y[1] = Y[2], X[2] = tx, Y[2] = ty;
    }
    const double det = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (fabs(det) < 1e-6)
        return false;
    const double A = ((sw[1] - sw[0]) * (sy[2] - sy[0]) - (sw[2] - sw[0]) * (sy[1] - sy[0])) / det;
    const double B = ((sw[2] - sw[0]) * (sx[1] - sx[0]) - (sw[1] - sw[0]) * (sx[2] - sx[0])) / det;
    const double C = sw[0] - A * sx[0] - B * sy[0];
    int64_t lx = X[0], hx = X[0], ly = Y[0], hy = Y[0];
    for (int i = 1; i < 3; i++) {
        lx = X[i] < lx ? X[i] : lx, hx = X[i] > hx ? X[i] : hx;
        ly = Y[i] < ly ? Y[i] : ly, hy = Y[i] > hy ? Y[i] : hy;
    }
    int64_t x0 = first_px(lx), x1 = last_px(hx), y0 = first_px(ly), y1 = last_px(hy);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0, x1 = x1 > img_w - 1 ? img_w - 1 : x1, y1 = y1 > img_h - 1 ? img_h - 1 : y1;
    if (x0 > x1 || y0 > y1)
        return false;
    for (int i = 0; i < 3; i++)
        t->X[i] = (int32_t)X[i], t->Y[i] = (int32_t)Y[i];
    t->x0 = (int32_t)x0, t->x1 = (int32_t)x1, t->y0 = (int32_t)y0, t->y1 = (int32_t)y1;
    t->wa = (float)A, t->wb = (float)B, t->wc = (float)(C + 0.5 * A + 0.5 * B);
    return true;
}

#endif
