/* shadow_maps.c — the shadow map's texel arrays lent to renders (shadow_maps.h): each set one block
** of a lending pool of its own (lend.h), the set's head first and its arrays after it, set up when
** the block is made; the pool freed at the library's unload or the process's exit. */
#include "shadow_maps.h"

#include "../core/lend.h"
#include "shadow.h"
#include "shadow_bounds.h"
#include "shadow_window.h"

#include <float.h>
#include <string.h>

static sn_lend_pool pool = SN_LEND_POOL;

#define AT64(b) (((b) + 63) / 64 * 64)

sn_shadow_maps *sn_shadow_maps_take(void)
{
    const size_t nb = SN_SHADOW_SIZE / SN_SHADOW_BLOCK, texels = (size_t)SN_SHADOW_SIZE * SN_SHADOW_SIZE,
                 pairs = (size_t)SN_SHADOW_SIZE * SN_SHADOW_WIN_ROW(SN_SHADOW_SIZE);
    const size_t at_depth = AT64(sizeof(sn_shadow_maps)), at_win = at_depth + AT64(texels * sizeof(float)),
                 at_blk = at_win + AT64(pairs * sizeof(float)), at_reach = at_blk + AT64(2 * nb * nb * sizeof(float));
    void *mem;
    bool fresh;
    sn_lent *b = sn_lend_take_in(&pool, at_reach + 2 * nb * nb * sizeof(float), &mem, &fresh);
    if (!b)
        return NULL;
    sn_shadow_maps *m = mem;
    if (fresh) { /* every block of this pool is one size: made once, then lent as its holder left it */
        unsigned char *c = mem;
        m->depth = (float *)(void *)(c + at_depth), m->win = (float *)(void *)(c + at_win);
        m->blk = (float *)(void *)(c + at_blk), m->reach = (float *)(void *)(c + at_reach);
        for (size_t i = 0; i < texels; i++)
            m->depth[i] = FLT_MAX; /* never NaN, even where no frame has cleared yet */
        /* zeros, not malloc's bytes, in bounds never computed (a NaN there could pass a max): a row
        ** of cells no receiver marks keeps older frames' values (shadow.c's draw_band) */
        memset(m->blk, 0, 2 * nb * nb * sizeof(float)), memset(m->reach, 0, 2 * nb * nb * sizeof(float));
        /* zeros where no window was ever asked (never read: shadow_window.h) */
        memset(m->win, 0, pairs * sizeof(float));
    }
    m->lent = b;
    return m;
}

void sn_shadow_maps_give(sn_shadow_maps *m)
{
    if (m)
        sn_lend_give_to(&pool, m->lent);
}

__attribute__((destructor)) static void unload(void) { sn_lend_pool_free(&pool); }
