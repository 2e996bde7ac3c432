/* shadow_window.h — each tent window's least depth, so that a lookup wholly nearer the sun than
** its 16 texels is answered by one load and one comparison instead of the tent (shadow.c,
** shadow_avx2.c). Exact: the tent gives 1 exactly when all 16 comparisons d <= texel hold, that
** is when d <= their least (the map holds no NaN: it starts at FLT_MAX and casters' depths are
** finite; a NaN d fails the comparison and goes to the tent). */
#ifndef SN_SHADOW_WINDOW_H
#define SN_SHADOW_WINDOW_H

#include <stdint.h>

/* The windows starting at rows [y0, y1) and columns [x0, x1] of the size x size map `depth` into
** `win`: win[y size + x] = the least of depth[y .. y + 3][x .. x + 3]. Windows past size - 4 are
** never written; a few more columns than asked may be (from x0 rounded down to 8 on, each its
** own window's least). */
void sn_shadow_window_min(const float *depth, int32_t size, float *win, int32_t y0, int32_t y1, int32_t x0, int32_t x1);

#endif
