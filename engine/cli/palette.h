/* palette.h — the 256 colours of an animated GIF preview, chosen once for the whole stream so
** that every frame shares one global palette (no flicker between frames, smaller file):
** - a stream of at most 256 distinct colours (semantic, depth, DVS, most instance images)
**   keeps them exactly;
** - otherwise median cut over a 5-5-5 bit histogram of every frame's pixels (boxes split at
**   the weighted median of their longest side, the heaviest box first), each pixel then
**   mapped to the nearest palette colour of its 5-5-5 cell. No dithering: the same frames give
**   the same indices, and flat areas compress well. */
#ifndef SN_CLI_PALETTE_H
#define SN_CLI_PALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SN_PAL_CELLS 32768 /* 5 bits per channel */

typedef struct sn_palette {
    uint32_t counts[SN_PAL_CELLS]; /* pixels per 5-5-5 cell */
    uint32_t exact[512];           /* distinct 24-bit colours + 1 (0 = empty slot), open addressing */
    uint32_t n_exact;
    bool too_many;                 /* more than 256 distinct colours were seen */
    uint32_t argb[256];            /* the palette (0xFFRRGGBB) */
    uint32_t n;                    /* colours in use */
    uint8_t lut[SN_PAL_CELLS];     /* cell -> palette index (median cut) */
} sn_palette;

/* Zeroes the histogram. */
void sn_palette_init(sn_palette *p);
/* Counts px RGB pixels. */
void sn_palette_add(sn_palette *p, const uint8_t *rgb, size_t px);
/* Chooses the colours from everything added. */
void sn_palette_build(sn_palette *p);
/* px RGB pixels to palette indices. */
void sn_palette_map(const sn_palette *p, const uint8_t *rgb, size_t px, uint8_t *idx);

#endif
