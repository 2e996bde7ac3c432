/* shadow_maps.h — the sun's shadow map's texel arrays, lent to one render at a time (eng61).
**
** A map is drawn and read inside one colour render (shadow.h) and nothing of it is carried to the
** next frame: texels a frame does not clear are never read (shadow.c's draw_band), whatever finite
** values they hold. So the 7 MB of a map (depth, windows' least, block bounds) need not be each
** renderer's: a render takes a set, draws and shades with it, and gives it back; idle sets wait in
** a list for the next render of any renderer of the process. Four engines stepped in turn on a
** thread then touch one set, not four (at 1 024 x 1 024 texels, four sets overflowed a 32 MB
** last-level cache that one engine's step fits in). Sets are made as a fresh map's: depths at
** FLT_MAX, bounds and windows 0, never NaN. */
#ifndef SN_SHADOW_MAPS_H
#define SN_SHADOW_MAPS_H

typedef struct sn_shadow_maps {
    float *depth;       /* SN_SHADOW_SIZE^2: the nearest caster to the sun */
    float *blk, *reach; /* per 4 x 4 block (min, max), and over 8 x 8 (shadow_bounds.h) */
    float *win;         /* SN_SHADOW_SIZE^2 / 2: each pair of tent windows' least (shadow_window.h) */
    struct sn_lent *lent; /* the block this set heads (lend.h: the arrays follow it in there) */
} sn_shadow_maps;

/* An idle set (the last given back: the warmest in the cache) or a new one; NULL without memory.
** Its texels are whatever its last holder left. Safe from any thread. */
sn_shadow_maps *sn_shadow_maps_take(void);
/* m back to the idle list (NULL: nothing). */
void sn_shadow_maps_give(sn_shadow_maps *m);

#endif
