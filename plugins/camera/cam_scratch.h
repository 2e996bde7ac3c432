/* cam_scratch.h — the camera's per-frame intermediates lent to a tick (cam56): the colour render,
** the lens's output, the rain's depth and the motion render's buffers are written and read inside
** one tick and never carried to the next frame, so a camera does not keep them between ticks. A
** tick takes a block, carves it, and gives it back before it returns; idle blocks wait in a list
** for the next tick of any camera or engine of the process. Why a list, not a block per thread: an
** engine's sensors tick on whichever of its threads is free, and a vector environment's pool steps
** any engine on any of its threads, so a block per thread would be one per thread that ever ticked
** a camera; the list holds one per tick running at once (the rig at 1 or 2 threads: one). Freed at
** the plugin's unload or the process's exit. Anything temporal (auto exposure, the previous pose,
** the output image) stays the camera's own. */
#ifndef SN_CAM_SCRATCH_H
#define SN_CAM_SCRATCH_H

#include <stddef.h>

typedef struct cam_block cam_block;

/* A block of at least `bytes` (64-byte aligned) in *mem, NULL when out of memory. Its contents are
** whatever the last tick left: write before reading. The caller owns it until it gives it back with
** cam_scratch_give, before its tick returns. Safe from any thread. */
cam_block *cam_scratch_take(size_t bytes, void **mem);
/* b back to the idle list (NULL: nothing). */
void cam_scratch_give(cam_block *b);

#endif
