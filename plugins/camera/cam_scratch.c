/* cam_scratch.c — blocks lent to camera ticks (cam_scratch.h): a list under a mutex, the last
** given back lent first (the warmest in the cache), grown when a tick asks for more. */
#include "cam_scratch.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct cam_block {
    cam_block *next; /* the idle list, under mu */
    void *mem;
    size_t cap;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static cam_block *idle;

cam_block *cam_scratch_take(size_t bytes, void **mem)
{
    pthread_mutex_lock(&mu);
    /* the first idle block big enough, else the first (grown below) */
    cam_block **pick = &idle;
    for (cam_block **p = &idle; *p; p = &(*p)->next)
        if ((*p)->cap >= bytes) {
            pick = p;
            break;
        }
    cam_block *b = *pick;
    if (b)
        *pick = b->next;
    pthread_mutex_unlock(&mu);
    if (!b && !(b = calloc(1, sizeof *b)))
        return NULL;
    if (b->cap < bytes) {
        size_t cap = (bytes + 63) / 64 * 64;
        void *m = aligned_alloc(64, cap);
        if (!m) {
            cam_scratch_give(b);
            return NULL;
        }
        free(b->mem);
        b->mem = m, b->cap = cap;
    }
    *mem = b->mem;
    return b;
}

void cam_scratch_give(cam_block *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&mu);
    b->next = idle;
    idle = b;
    pthread_mutex_unlock(&mu);
}

/* At unload or exit: the idle blocks freed (a block lent now belongs to a tick still running,
** which cannot outlive the plugin's cameras, destroyed before unload). */
__attribute__((destructor)) static void unload(void)
{
    pthread_mutex_lock(&mu);
    while (idle) {
        cam_block *b = idle;
        idle = b->next;
        free(b->mem);
        free(b);
    }
    pthread_mutex_unlock(&mu);
}
