/* lend.c — blocks lent for one piece of work (lend.h): a list under a mutex, the last given back
** lent first (the warmest in the cache), grown when a taker asks for more; the idle ones freed
** at the library's unload or the process's exit. */
#include "lend.h"

#include <stdlib.h>

struct sn_lent {
    sn_lent *next; /* the idle list, under the pool's mu */
    void *mem;
    size_t cap;
};

static sn_lend_pool plain = SN_LEND_POOL;

sn_lent *sn_lend_take_in(sn_lend_pool *p, size_t bytes, void **mem, bool *fresh)
{
    pthread_mutex_lock(&p->mu);
    /* the first idle block big enough, else the first (grown below) */
    sn_lent **pick = &p->idle;
    for (sn_lent **q = &p->idle; *q; q = &(*q)->next)
        if ((*q)->cap >= bytes) {
            pick = q;
            break;
        }
    sn_lent *b = *pick;
    if (b)
        *pick = b->next;
    pthread_mutex_unlock(&p->mu);
    if (!b && !(b = calloc(1, sizeof *b)))
        return NULL;
    const bool grow = b->cap < bytes;
    if (grow) {
        size_t cap = (bytes + 63) / 64 * 64;
        void *m = aligned_alloc(64, cap);
        if (!m) {
            sn_lend_give_to(p, b);
            return NULL;
        }
        free(b->mem);
        b->mem = m, b->cap = cap;
    }
    if (fresh)
        *fresh = grow;
    *mem = b->mem;
    return b;
}

void sn_lend_give_to(sn_lend_pool *p, sn_lent *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&p->mu);
    b->next = p->idle;
    p->idle = b;
    pthread_mutex_unlock(&p->mu);
}

void sn_lend_pool_free(sn_lend_pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (p->idle) {
        sn_lent *b = p->idle;
        p->idle = b->next;
        free(b->mem);
        free(b);
    }
    pthread_mutex_unlock(&p->mu);
}

sn_lent *sn_lend_take(size_t bytes, void **mem) { return sn_lend_take_in(&plain, bytes, mem, NULL); }

void sn_lend_give(sn_lent *b) { sn_lend_give_to(&plain, b); }

__attribute__((destructor)) static void unload(void) { sn_lend_pool_free(&plain); }
