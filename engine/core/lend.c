/* lend.c — blocks lent for one piece of work (lend.h): a list under a mutex, the last given back
** lent first (the warmest in the cache), grown when a taker asks for more; the idle ones freed
** at the library's unload or the process's exit. */
#include "lend.h"

#include <pthread.h>
#include <stdlib.h>

struct sn_lent {
    sn_lent *next; /* the idle list, under mu */
    void *mem;
    size_t cap;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sn_lent *idle;

sn_lent *sn_lend_take(size_t bytes, void **mem)
{
    pthread_mutex_lock(&mu);
    /* the first idle block big enough, else the first (grown below) */
    sn_lent **pick = &idle;
    for (sn_lent **p = &idle; *p; p = &(*p)->next)
        if ((*p)->cap >= bytes) {
            pick = p;
            break;
        }
    sn_lent *b = *pick;
    if (b)
        *pick = b->next;
    pthread_mutex_unlock(&mu);
    if (!b && !(b = calloc(1, sizeof *b)))
        return NULL;
    if (b->cap < bytes) {
        size_t cap = (bytes + 63) / 64 * 64;
        void *m = aligned_alloc(64, cap);
        if (!m) {
            sn_lend_give(b);
            return NULL;
        }
        free(b->mem);
        b->mem = m, b->cap = cap;
    }
    *mem = b->mem;
    return b;
}

void sn_lend_give(sn_lent *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&mu);
    b->next = idle;
    idle = b;
    pthread_mutex_unlock(&mu);
}

/* At unload or exit: the idle blocks freed (a block lent now is its holder's to give back). */
__attribute__((destructor)) static void unload(void)
{
    pthread_mutex_lock(&mu);
    while (idle) {
        sn_lent *b = idle;
        idle = b->next;
        free(b->mem);
        free(b);
    }
    pthread_mutex_unlock(&mu);
}
