/* lens.h — CARLA's lens attributes as a post-process on rendered buffers, shared by every camera
** plugin (plugins/camera, plugins/dvs).
**
** Model (documented in docs/sensors/cameras.md, "Lens"): for an output pixel at normalised image coordinates
** (nx, ny) in [-1, 1], r^2 = (nx * lens_x_size)^2 + (ny * lens_y_size)^2 and
** f = 1 + lens_k * r^2 + lens_kcube * r^3; the pixel shows what the pinhole image has at
** (nx * f, ny * f), nothing when that falls outside. Depth, tags and ids take the nearest
** pixel (never blended); colour is resampled bilinearly (no 1-px steps on straight edges).
** Colour images are then darkened towards the corners by
** 1 - lens_circle_multiplier * rho^lens_circle_falloff, rho = |(nx, ny)| / sqrt(2).
**
** CARLA's own defaults (k -1, kcube 0, sizes 0.08) are the neutral set: CARLA's shader leaves
** the image undistorted with them (its maintainers, carla#3198), so this model, which would
** bend it by 2-5 px there, does nothing until one of them is set to another value.
** The maps are computed once per camera, so applying them costs one gather per pixel. */
#ifndef SN_COMMON_LENS_H
#define SN_COMMON_LENS_H

#include <stdbool.h>
#include <stdint.h>

/* CARLA's defaults of the distortion attributes (seed 003), as the blueprint writes them. */
#define LENS_DEFAULT_K "-1.0"
#define LENS_DEFAULT_KCUBE "0.0"
#define LENS_DEFAULT_SIZE "0.08"

typedef struct lens {
    double k, kcube, x_size, y_size, circle_falloff, circle_multiplier;
} lens;

/* One bilinear source of an output pixel: top-left index (-1: none), the step to the right
** (0 or 1) and down (0 or the width: clamped at the border), weights of right and down in 1/256. */
typedef struct lens_tap {
    int32_t i;
    uint32_t down;
    uint16_t wx, wy;
    uint8_t right;
} lens_tap;

/* Whether the distortion changes the image: false for a pinhole (k = kcube = 0, or both sizes
** 0) and for CARLA's default set. */
bool lens_distorts(const lens *l);
/* The nearest source pixel of each output pixel (-1: none); NULL when !lens_distorts, or with
** *oom. Caller frees. */
int32_t *lens_map(const lens *l, uint32_t w, uint32_t h, bool *oom);
/* The bilinear sources of each output pixel; NULL when !lens_distorts, or with *oom. Caller frees. */
lens_tap *lens_taps(const lens *l, uint32_t w, uint32_t h, bool *oom);
/* out = the BGRA image `in` resampled through `taps` (A = 255; black where there is no source). */
void lens_resample_bgra(const lens_tap *taps, const uint8_t *in, uint8_t *out, uint32_t w, uint32_t h);
/* Vignette factors per pixel in 1/256 units, or NULL when circle_multiplier is 0. Caller frees. */
uint16_t *lens_vignette(const lens *l, uint32_t w, uint32_t h, bool *oom);

#endif
