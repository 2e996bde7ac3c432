/* postfx_subframe.h — motion blur from sub-frame renders (docs/rendering.md "Motion blur from
** sub-frames"): the still layer of the world drawn once, the moving actors at K instants across
** the shutter (host->render_layer_at), composited per pixel with the depth test and averaged in
** linear light. The camera plugin renders; this file measures and composites. Deterministic: each
** pixel depends on its own inputs alone. */
#ifndef SN_COMMON_POSTFX_SUBFRAME_H
#define SN_COMMON_POSTFX_SUBFRAME_H

#include "postfx_motion.h"

#include <stdbool.h>
#include <stdint.h>

/* Buffers of one camera (allocated by pfx_sub_init, freed by pfx_sub_free). */
typedef struct pfx_sub {
    uint32_t w, h;
    uint8_t *bgra0;  /* the moving layer at the frame's end (k = 0), one sample a pixel */
    float *depth0;
    uint32_t *inst0;
    uint8_t *bgrak;  /* the sub-frame being added */
    float *depthk;
    uint32_t *instk;
    float *acc;      /* 3 floats a pixel: the sum of the sub-frames' linear colours */
    uint8_t *cover;  /* 1 where some sub-frame took a moving actor's colour */
    pfx_motion *ids; /* each moving instance's columns at k = 0 (min_object_screen_size) */
    double *cen;     /* pfx_sub_shift's centroid sums: 6 x PFX_IDS */
    float dec[256];  /* gamma-2.2 byte -> linear */
    float mid[256];  /* midpoints between consecutive dec[] (the exact inverse), then +inf */
    uint32_t x0, x1, y0, y1; /* the frame's region the moving actors can reach: [x0, x1) x [y0, y1) */
} pfx_sub;

bool pfx_sub_init(pfx_sub *s, uint32_t w, uint32_t h);
void pfx_sub_free(pfx_sub *s);

/* After the k = 0 render into bgra0/depth0/inst0: each instance's columns (the ones narrower than
** min_w pixels are not blurred: they stay at their pose now). Returns the moving pixels. */
size_t pfx_sub_measure(pfx_sub *s);

/* How far, in pixels, the farthest-moving instance (not too small) moved between the k = 0 render
** and the one in bgrak/depthk/instk: the shift of its pixels' centroid. 0 when none is in both. */
double pfx_sub_shift(pfx_sub *s, double min_w);

/* Starts a frame's sum over the region the moving actors can reach: the box of their pixels now
** and at the shutter's far end (instk), widened by `margin` pixels (a turning actor's arc, the
** jitter); the rest of the image is the still layer's. */
void pfx_sub_begin(pfx_sub *s, double margin);
/* Adds sub-frame k (k = 0: bgra0, else bgrak/instk/depthk): per pixel, the nearest of that
** sub-frame's moving actor (not too small) and the small ones now, if nearer than the still
** layer's depth, else the still layer's colour. */
void pfx_sub_add(pfx_sub *s, uint32_t k, double min_w, const uint8_t *still, const float *still_depth);
/* The average of n sub-frames into out (BGRA; may be the still image itself): pixels no moving
** actor ever covered keep the still layer's bytes exactly. */
void pfx_sub_end(pfx_sub *s, uint32_t n, const uint8_t *still, uint8_t *out);
/* Zeroes the blur vectors of pixels a moving actor covered: their motion is the sub-frames'. */
void pfx_sub_mask_vel(const pfx_sub *s, float *vel);

#endif
