/* postfx_tone.c — the tone table by the exposed value's float bits (postfx_tone.h). */
#include "postfx_tone.h"

#include <stdlib.h>

#define MAX_CELLS 16384 /* 64 KB of cells at most; CARLA's defaults take about 2 200 (shift 16) */

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint8_t byte_at(const pfx *x, uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return pfx_tone_exact(x, f);
}

bool pfx_tone_cells(pfx *x)
{
    free(x->tcell), x->tcell = NULL;
    for (int i = 1; i < PFX_LUT; i++)
        if (x->tone8[i] < x->tone8[i - 1])
            return false; /* the byte must only step up with v for its steps to be thresholds */
    /* Non-negative floats order as their bits, and sqrt, the scaling, the rounding and the
    ** truncation are monotone: the byte is a step function of the bits. T[j]: its first bits of
    ** byte j or more, found by bisection over the bits of [0, PFX_LUT_XMAX]. */
    const uint32_t hi = bits_of((float)PFX_LUT_XMAX);
    const int b0 = byte_at(x, 0), bl = byte_at(x, hi);
    uint32_t T[257];
    for (int j = b0 + 1; j <= bl; j++) {
        uint32_t lo = 0, h = hi;
        while (lo < h) {
            const uint32_t m = lo + (h - lo) / 2;
            if (byte_at(x, m) >= j)
                h = m;
            else
                lo = m + 1;
        }
        T[j] = lo;
    }
    /* A cell is 2^shift consecutive bits from tbase (below the first step, so all below it are
    ** byte b0) to ttop (the last step: all above are byte bl). Each holds one step at most: its
    ** byte at its start, and the step's place in it. The largest cells that allow this. */
    const uint32_t first = bl > b0 ? T[b0 + 1] - 1 : 0, top = bl > b0 ? T[bl] : 0;
    for (int sh = 20; sh >= 8; sh--) {
        const uint32_t mask = (1u << sh) - 1, base = first & ~mask, n = ((top - base) >> sh) + 1;
        if (n > MAX_CELLS)
            return false;
        bool one = true; /* no two steps (or a step of two) inside one cell; a step at a cell's start is its byte */
        uint32_t last = UINT32_MAX;
        for (int j = b0 + 1; j <= bl && one; j++)
            if ((T[j] - base) & mask) {
                one = (T[j] - base) >> sh != last;
                last = (T[j] - base) >> sh;
            }
        if (!one)
            continue;
        uint32_t *c = malloc(n * sizeof *c);
        if (!c)
            return false;
        int j = b0 + 1;
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t lo = base + (k << sh);
            while (j <= bl && T[j] <= lo)
                j++;
            /* the step at T[j] if it falls in (lo, lo + mask]: crossed where d & mask > T[j] - lo - 1 */
            const uint32_t at = j <= bl && T[j] - lo <= mask ? T[j] - lo - 1 : mask;
            c[k] = byte_at(x, lo) | at << 8;
        }
        x->tcell = c, x->tbase = base, x->ttop = top, x->tshift = (uint32_t)sh;
        return true;
    }
    return false;
}
