/* lens.h — CARLA's lens attributes as a post-process on rendered buffers.
**
** Model (documented in the README): for an output pixel at normalised image coordinates
** (nx, ny) in [-1, 1], r^2 = (nx * lens_x_size)^2 + (ny * lens_y_size)^2 and
** f = 1 + lens_k * r^2 + lens_kcube * r^3; the pixel shows what the pinhole image has at
** (nx * f, ny * f), nearest pixel (so depth, tags and ids are never blended), nothing when
** that falls outside. Colour images are then darkened towards the corners by
** 1 - lens_circle_multiplier * rho^lens_circle_falloff, rho = |(nx, ny)| / sqrt(2).
** The pixel map is computed once per camera, so applying it costs one gather per pixel. */
#ifndef SN_DVS_LENS_H
#define SN_DVS_LENS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct lens {
    double k, kcube, x_size, y_size, circle_falloff, circle_multiplier;
} lens;

/* The source pixel of each output pixel (-1: none), or NULL with *identity when there is no
** distortion. Caller frees. */
int32_t *lens_map(const lens *l, uint32_t w, uint32_t h, bool *identity, bool *oom);
/* Vignette factors per pixel in 1/256 units, or NULL when circle_multiplier is 0. Caller frees. */
uint16_t *lens_vignette(const lens *l, uint32_t w, uint32_t h, bool *oom);

#endif
