/* shadow_bounds.h — the shadow map's depths bounded per block, so that a lookup whose 4 x 4 tent
** window is wholly farther than every texel under it is answered by one comparison (shadow.c;
** wholly nearer is the window's own least, shadow_window.h). Exact: the tent gives 0 when none of
** its 16 comparisons holds, and a bound over a region containing the window decides it without
** the texels. */
#ifndef SN_SHADOW_BOUNDS_H
#define SN_SHADOW_BOUNDS_H

#include <stdint.h>

#define SN_SHADOW_BLOCK 4 /* texels per side of a bounded block */

/* Texel rows [y0, y1) (multiples of SN_SHADOW_BLOCK) of the size x size map `depth` into `blk`:
** per block of 4 x 4 texels its least and greatest depth, the pair (min, max) at
** blk[2 (by nb + bx)], nb = size / 4. */
void sn_shadow_bounds_blocks(const float *depth, int32_t size, float *blk, int32_t y0, int32_t y1);
/* Block rows [by0, by1) of `reach` from `blk`: each block's pair over itself and its right, lower
** and lower-right neighbours (those that exist), an 8 x 8 region of texels. A window of 4 x 4
** texels starting at texel (x, y) lies inside the region of block (x / 4, y / 4). */
void sn_shadow_bounds_reach(const float *blk, int32_t size, float *reach, int32_t by0, int32_t by1);

#endif
