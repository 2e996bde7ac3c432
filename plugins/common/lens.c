/* lens.c — the pixel maps and vignette of the lens model in lens.h (shared by the camera plugins). */
#include "lens.h"

#include <math.h>
#include <stdlib.h>

/* Normalised image coordinates of the centre of pixel (x, y): [-1, 1] across the image. */
static void normalised(uint32_t x, uint32_t y, uint32_t w, uint32_t h, double *nx, double *ny)
{
    *nx = 2 * (x + 0.5) / w - 1;
    *ny = 2 * (y + 0.5) / h - 1;
}

bool lens_distorts(const lens *l)
{
    if ((l->k == 0 && l->kcube == 0) || (l->x_size == 0 && l->y_size == 0))
        return false;
    /* strtod of the same strings the blueprint's defaults are parsed from: exact comparison */
    double dk = strtod(LENS_DEFAULT_K, NULL), dc = strtod(LENS_DEFAULT_KCUBE, NULL), ds = strtod(LENS_DEFAULT_SIZE, NULL);
    return !(l->k == dk && l->kcube == dc && l->x_size == ds && l->y_size == ds);
}

/* Where the output pixel (x, y) looks in the pinhole image, continuous (pixel edges at integers). */
static bool source(const lens *l, uint32_t x, uint32_t y, uint32_t w, uint32_t h, double *sx, double *sy)
{
    double nx, ny;
    normalised(x, y, w, h, &nx, &ny);
    double ax = nx * l->x_size, ay = ny * l->y_size;
    double r2 = ax * ax + ay * ay;
    double f = 1 + l->k * r2 + l->kcube * r2 * sqrt(r2);
    *sx = (nx * f + 1) * w / 2;
    *sy = (ny * f + 1) * h / 2;
    return *sx >= 0 && *sy >= 0 && *sx < w && *sy < h;
}

/* A per-pixel map of `size`-byte entries, NULL when the lens does not distort (or with *oom). */
static void *new_map(const lens *l, uint32_t w, uint32_t h, size_t size, bool *oom)
{
    void *map = lens_distorts(l) ? malloc((size_t)w * h * size) : NULL;
    *oom = lens_distorts(l) && !map;
    return map;
}

int32_t *lens_map(const lens *l, uint32_t w, uint32_t h, bool *oom)
{
    int32_t *map = new_map(l, w, h, sizeof *map, oom);
    if (!map)
        return NULL;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double sx, sy;
            bool in = source(l, x, y, w, h, &sx, &sy);
            map[(size_t)y * w + x] = in ? (int32_t)((size_t)floor(sy) * w + (size_t)floor(sx)) : -1;
        }
    return map;
}

/* Top-left sample and weight along one axis, in pixel-centre coordinates, clamped at the border. */
static void axis(double s, uint32_t n, uint32_t *i0, uint8_t *step, uint16_t *wt)
{
    double u = s - 0.5, fl = floor(u);
    if (!(fl >= 0) || n == 1) /* NaN too: never cast it */
        *i0 = 0, *step = 0, *wt = 0;
    else if (fl >= n - 1)
        *i0 = n - 1, *step = 0, *wt = 0;
    else
        *i0 = (uint32_t)fl, *step = 1, *wt = (uint16_t)lround((u - fl) * 256);
}

lens_tap *lens_taps(const lens *l, uint32_t w, uint32_t h, bool *oom)
{
    lens_tap *taps = new_map(l, w, h, sizeof *taps, oom);
    if (!taps)
        return NULL;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            lens_tap *t = &taps[(size_t)y * w + x];
            double sx, sy;
            if (!source(l, x, y, w, h, &sx, &sy)) {
                *t = (lens_tap){-1, 0, 0, 0, 0};
                continue;
            }
            uint32_t x0, y0;
            uint8_t sxs, sys;
            axis(sx, w, &x0, &sxs, &t->wx);
            axis(sy, h, &y0, &sys, &t->wy);
            t->i = (int32_t)((size_t)y0 * w + x0);
            t->right = sxs;
            t->down = sys ? w : 0;
        }
    return taps;
}

void lens_resample_bgra(const lens_tap *taps, const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h)
{
    size_t px = (size_t)w * h;
    for (size_t i = 0; i < px; i++) {
        const lens_tap *t = &taps[i];
        uint8_t *o = out + 4 * i;
        if (t->i < 0) {
            o[0] = o[1] = o[2] = 0, o[3] = 255; /* empty but opaque */
            continue;
        }
        const uint8_t *p00 = in + 4 * (size_t)t->i, *p10 = p00 + 4 * t->right;
        const uint8_t *p01 = p00 + 4 * (size_t)t->down, *p11 = p01 + 4 * t->right;
        uint32_t wx = t->wx, wy = t->wy;
        for (int c = 0; c < 3; c++) {
            uint32_t top = p00[c] * (256 - wx) + p10[c] * wx, bottom = p01[c] * (256 - wx) + p11[c] * wx;
            o[c] = (uint8_t)((top * (256 - wy) + bottom * wy + 32768) >> 16); /* integer: same bytes everywhere */
        }
        o[3] = 255;
    }
}

uint16_t *lens_vignette(const lens *l, uint32_t w, uint32_t h, bool *oom)
{
    *oom = false;
    if (l->circle_multiplier == 0)
        return NULL;
    uint16_t *v = malloc((size_t)w * h * sizeof *v);
    if (!v) {
        *oom = true;
        return NULL;
    }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double nx, ny;
            normalised(x, y, w, h, &nx, &ny);
            double rho = sqrt(nx * nx + ny * ny) / sqrt(2.0);
            double f = 1 - l->circle_multiplier * pow(rho, l->circle_falloff);
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            v[(size_t)y * w + x] = (uint16_t)lround(f * 256);
        }
    return v;
}
