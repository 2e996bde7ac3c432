/* postfx_motion.h — motion blur's per-pixel blur vectors from host->render_motion (postfx.h). */
#ifndef SN_COMMON_POSTFX_MOTION_H
#define SN_COMMON_POSTFX_MOTION_H

#include "postfx.h"

#include <sensim/types.h>

#define PFX_IDS 4096 /* instances whose screen size is tracked per frame; more count as large */

typedef struct pfx_motion {
    uint32_t key[PFX_IDS];  /* instance id + 1, 0: empty slot */
    uint32_t lo[PFX_IDS], hi[PFX_IDS]; /* its leftmost and rightmost column */
} pfx_motion;

/* vel (2 floats a pixel) = motion_blur_intensity x (where the pixel's point is in the image now
** minus where it was at the end of the previous frame, through the previous camera pose), its
** length clamped to motion_blur_max_distortion % of the width. An object narrower on screen than
** motion_blur_min_object_screen_size % of the width keeps only the camera's motion (Unreal draws
** no velocity for it). depth, inst, motion: render_motion's (inst may be NULL; motion NULL: the
** camera's own motion alone, over a still world); fov in degrees.
** run, runner: the pixels' rows as tasks on a pool (pfx_apply's), or NULL: one after another; the
** vectors are the same either way. */
void pfx_velocity(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov, const sn_transform *now,
                  const sn_transform *prev, const float *depth, const uint32_t *inst, const float *motion, float *vel,
                  pfx_run_fn run, void *runner);

/* pfx_velocity a pixel at a time, on the calling thread: the reference its AVX2 lanes must match
** bit for bit (test_postfx). */
void pfx_velocity_scalar(pfx_motion *m, const pfx_params *p, uint32_t w, uint32_t h, double fov,
                         const sn_transform *now, const sn_transform *prev, const float *depth, const uint32_t *inst,
                         const float *motion, float *vel);

/* Blur vectors of an image d times smaller a side (mw x mh) to w x h, nearest, scaled by d. */
void pfx_velocity_upsample(const float *src, uint32_t mw, uint32_t mh, uint32_t d, float *dst, uint32_t w, uint32_t h);

#endif
