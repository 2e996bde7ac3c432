/* shadow_maps.c — the shadow map's texel arrays lent to renders (shadow_maps.h): a list under a
** mutex, freed at the library's unload or the process's exit. */
#include "shadow_maps.h"

#include "shadow.h"
#include "shadow_bounds.h"

#include <float.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sn_shadow_maps *idle;

static void maps_free(sn_shadow_maps *m)
{
    free(m->depth), free(m->blk), free(m->reach), free(m->win);
    free(m);
}

sn_shadow_maps *sn_shadow_maps_take(void)
{
    pthread_mutex_lock(&mu);
    sn_shadow_maps *m = idle;
    if (m)
        idle = m->next;
    pthread_mutex_unlock(&mu);
    if (m)
        return m;
    if (!(m = calloc(1, sizeof *m)))
        return NULL;
    const size_t nb = SN_SHADOW_SIZE / SN_SHADOW_BLOCK, texels = (size_t)SN_SHADOW_SIZE * SN_SHADOW_SIZE;
    m->depth = malloc(texels * sizeof *m->depth);
    /* zeros, not malloc's bytes, in bounds never computed (a NaN there could pass a max): a row of
    ** cells no receiver marks keeps older frames' values (shadow.c's draw_band) */
    m->blk = calloc(2 * nb * nb, sizeof *m->blk), m->reach = calloc(2 * nb * nb, sizeof *m->reach);
    /* zeros, not malloc's bytes, where no window was ever asked (never read: shadow_window.h) */
    m->win = calloc(texels, sizeof *m->win);
    if (!m->depth || !m->blk || !m->reach || !m->win) {
        maps_free(m);
        return NULL;
    }
    for (size_t i = 0; i < texels; i++)
        m->depth[i] = FLT_MAX; /* never NaN, even where no frame has cleared yet */
    return m;
}

void sn_shadow_maps_give(sn_shadow_maps *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&mu);
    m->next = idle;
    idle = m;
    pthread_mutex_unlock(&mu);
}

/* At unload or exit: the idle sets freed (a set lent now belongs to a renderer, which gives it
** back or frees it itself). */
__attribute__((destructor)) static void unload(void)
{
    pthread_mutex_lock(&mu);
    while (idle) {
        sn_shadow_maps *m = idle;
        idle = m->next;
        maps_free(m);
    }
    pthread_mutex_unlock(&mu);
}
