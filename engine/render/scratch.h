/* scratch.h — each thread's scratch memory for the renderer's per-band work.
**
** A band's depth and id buffers are needed only while that band is drawn and shaded, and a thread
** draws one band at a time. So they belong to the thread, not to a renderer or a camera: every
** engine and camera that runs on a thread (a pool worker, or a caller such as one of Python's
** vector-environment threads) draws into that thread's one block, which stays in its core's cache
** from camera to camera. Four engines on two threads touch two blocks, not four.
**
** Ownership: the block is allocated by its thread at its first sn_scratch_take, grown there when
** a wider band needs more, and freed when the thread exits (a pthread key's destructor) or, for
** threads still alive then, when the library is unloaded or the process exits (a destructor in
** scratch.c), except a block a thread holds at that moment: its memory is not freed then (that
** thread is still drawing into it) and is reclaimed only by the process's exit. */
#ifndef SN_SCRATCH_H
#define SN_SCRATCH_H

#include <stddef.h>

/* This thread's block, at least `bytes` long and 64-byte aligned, held until sn_scratch_release;
** its contents are whatever the last holder left. A thread holds one at a time (no nesting).
** NULL when out of memory or once the library is being unloaded. */
void *sn_scratch_take(size_t bytes);
/* Gives the block back (after a successful sn_scratch_take on this thread). */
void sn_scratch_release(void);
/* Bytes of scratch held by every thread alive (tests, benchmarks). */
size_t sn_scratch_bytes(void);

#endif
