/* lens.c — the pixel map and vignette of the lens model in lens.h (a copy of the camera's, kept until the two share a library). */
#include "lens.h"

#include <math.h>
#include <stdlib.h>

/* Normalised image coordinates of the centre of pixel (x, y): [-1, 1] across the image. */
static void normalised(uint32_t x, uint32_t y, uint32_t w, uint32_t h, double *nx, double *ny)
{
    *nx = 2 * (x + 0.5) / w - 1;
    *ny = 2 * (y + 0.5) / h - 1;
}

int32_t *lens_map(const lens *l, uint32_t w, uint32_t h, bool *identity, bool *oom)
{
    *oom = false;
    *identity = l->k == 0 && l->kcube == 0;
    if (*identity)
        return NULL;
    int32_t *map = malloc((size_t)w * h * sizeof *map);
    if (!map) {
        *oom = true;
        return NULL;
    }
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double nx, ny;
            normalised(x, y, w, h, &nx, &ny);
            double ax = nx * l->x_size, ay = ny * l->y_size;
            double r2 = ax * ax + ay * ay;
            double f = 1 + l->k * r2 + l->kcube * r2 * sqrt(r2);
            double sx = (nx * f + 1) * w / 2, sy = (ny * f + 1) * h / 2; /* continuous, pixel edges at integers */
            long px = (long)floor(sx), py = (long)floor(sy);
            map[(size_t)y * w + x] = (px >= 0 && py >= 0 && px < (long)w && py < (long)h) ? (int32_t)((size_t)py * w + (size_t)px) : -1;
        }
    return map;
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
