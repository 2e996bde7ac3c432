/* shadow_window.h — the least depth of each pair of neighbouring tent windows, so that a lookup
** wholly nearer the sun than its 16 texels is mostly answered by one load and one comparison
** instead of the tent (shadow.c, shadow_avx2.c). Exact: the tent gives 1 exactly when all 16
** comparisons d <= texel hold; the pair's least is at most its window's own least (the windows
** starting at columns 2p and 2p + 1 of a row lie in columns 2p .. 2p + 4), so d <= it implies
** them all, and a point it does not decide goes on to the tent (the map holds no NaN: it starts
** at FLT_MAX and casters' depths are finite; a NaN d fails the comparison and goes on). A pair
** and not each window: the plane is half the size (2 MB at 1 024 texels, written every colour
** render: env63), for slightly fewer points answered here (on a caster's own sloped surface,
** about one in nine of those the window's own least answered). */
#ifndef SN_SHADOW_WINDOW_H
#define SN_SHADOW_WINDOW_H

#include <stdint.h>

/* floats a row of pairs holds: win[y SN_SHADOW_WIN_ROW(size) + x / 2] is the pair of windows
** starting at (x & ~1, y) and (x | 1, y) */
#define SN_SHADOW_WIN_ROW(size) ((size) / 2)

/* The pairs of windows starting at rows [y0, y1) and columns [x0, x1] of the size x size map
** `depth` (size even) into `win`: win[y size / 2 + p] = the least of depth[y .. y + 3][2p .. 2p + 4].
** Pairs holding a window that starts past column size - 5 or row size - 4 are never written (a
** lookup's window starts at most there: shadow.c keeps u < size - 3); a few more pairs than asked
** may be (from x0 rounded down to 8 on, each its own pair's least). */
void sn_shadow_window_min(const float *depth, int32_t size, float *win, int32_t y0, int32_t y1, int32_t x0, int32_t x1);

#endif
