/* scratch.c — each thread's scratch block (scratch.h), on a pthread key for the free at thread
** exit and a list of every block for the free at unload. */
#include "scratch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

enum { IDLE, BUSY, CLOSED }; /* a block's state; CLOSED: its memory freed at unload */

typedef struct block {
    struct block *prev, *next; /* the list of every live thread's block, under `mu` */
    void *mem;
    _Atomic size_t cap; /* atomic only for sn_scratch_bytes' reads from other threads */
    _Atomic int state; /* only its thread moves it IDLE <-> BUSY; unload moves IDLE -> CLOSED */
} block;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static block *all;
static bool unloaded;
static pthread_key_t key;
static bool have_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local block *mine;

/* At the thread's exit: its block off the list and freed (unless unload freed its memory). */
static void thread_exit(void *arg)
{
    block *b = arg;
    pthread_mutex_lock(&mu);
    if (b->prev)
        b->prev->next = b->next;
    else if (all == b)
        all = b->next;
    if (b->next)
        b->next->prev = b->prev;
    pthread_mutex_unlock(&mu);
    if (atomic_load(&b->state) != CLOSED)
        free(b->mem);
    free(b);
    mine = NULL; /* a render later in this thread's exit starts a new block, not this freed one */
}

static void make_key(void) { have_key = pthread_key_create(&key, thread_exit) == 0; }

/* At unload or exit: no thread-exit destructor may run into unmapped code afterwards, and every
** block no thread holds now is freed. The block records stay (a thread may still look at its own:
** it then finds it CLOSED and gets NULL); they are a few words each. */
__attribute__((destructor)) static void unload(void)
{
    pthread_mutex_lock(&mu);
    unloaded = true;
    if (have_key)
        pthread_key_delete(key), have_key = false;
    for (block *b = all; b; b = b->next) {
        int idle = IDLE;
        if (atomic_compare_exchange_strong(&b->state, &idle, CLOSED)) {
            free(b->mem);
            b->mem = NULL;
            atomic_store(&b->cap, 0);
        }
    }
    pthread_mutex_unlock(&mu);
}

/* This thread's first block: made, listed, and tied to the thread's exit. */
static block *first_block(void)
{
    pthread_once(&once, make_key);
    block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    pthread_mutex_lock(&mu);
    bool ok = !unloaded && have_key && pthread_setspecific(key, b) == 0;
    if (ok) {
        b->next = all;
        if (all)
            all->prev = b;
        all = b;
    }
    pthread_mutex_unlock(&mu);
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

void *sn_scratch_take(size_t bytes)
{
    block *b = mine;
    if (!b && !(b = mine = first_block()))
        return NULL;
    int idle = IDLE;
    if (!atomic_compare_exchange_strong(&b->state, &idle, BUSY))
        return NULL; /* CLOSED: the library is being unloaded */
    if (bytes > atomic_load_explicit(&b->cap, memory_order_relaxed)) {
        /* grown to what is asked: a thread's widest band, reached in its first frames */
        size_t cap = (bytes + 63) / 64 * 64;
        void *m = aligned_alloc(64, cap);
        if (!m) {
            atomic_store(&b->state, IDLE);
            return NULL;
        }
        free(b->mem);
        b->mem = m;
        atomic_store_explicit(&b->cap, cap, memory_order_relaxed);
    }
    return b->mem;
}

void sn_scratch_release(void)
{
    if (mine)
        atomic_store(&mine->state, IDLE);
}

size_t sn_scratch_bytes(void)
{
    size_t n = 0;
    pthread_mutex_lock(&mu);
    for (block *b = all; b; b = b->next)
        n += atomic_load(&b->cap);
    pthread_mutex_unlock(&mu);
    return n;
}
