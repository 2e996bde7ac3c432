/* postfx_tone.h — the tone table's output byte found from the exposed value's float bits, without
** its square root (postfx.c's final pass). Exact: the same byte as the square-root index for
** every float, by construction from that index's thresholds (docs/rendering.md "Post-processing"). */
#ifndef SN_COMMON_POSTFX_TONE_H
#define SN_COMMON_POSTFX_TONE_H

#include "postfx.h"

#include <math.h>
#include <string.h>

/* The tone table's index scale: tone8[(uint32_t)(sqrtf(v) * pfx_tone_in() + 0.5f)]. */
static inline float pfx_tone_in(void) { return (float)(PFX_LUT - 1) / sqrtf((float)PFX_LUT_XMAX); }

/* The final pass's byte of a channel's exposed value v, clamped to [0, PFX_LUT_XMAX]: the
** square-root index, the reference the cells reproduce. */
static inline uint8_t pfx_tone_exact(const pfx *x, float v)
{
    v = v < 0 ? 0 : v > (float)PFX_LUT_XMAX ? (float)PFX_LUT_XMAX : v;
    return x->tone8[(uint32_t)(sqrtf(v) * pfx_tone_in() + 0.5f)];
}

/* Builds x->tcell from x->tone8 (pfx_init): false (x->tcell NULL, the square-root path) when the
** table is not monotone or a cell of any size tried would hold two of the byte's steps. */
bool pfx_tone_cells(pfx *x);

/* The byte of the clamped value whose float bits are u (a lane's steps, one at a time). */
static inline uint8_t pfx_tone_cell(const pfx *x, uint32_t u)
{
    int32_t s = (int32_t)u; /* -0 and below: base; NaN and above top: top */
    s = s < (int32_t)x->tbase ? (int32_t)x->tbase : s > (int32_t)x->ttop ? (int32_t)x->ttop : s;
    const uint32_t d = (uint32_t)s - x->tbase, e = x->tcell[d >> x->tshift];
    return (uint8_t)((e & 0xFF) + ((d & ((1u << x->tshift) - 1)) > (e >> 8)));
}

#endif
