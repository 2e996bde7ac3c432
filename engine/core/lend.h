/* lend.h — memory blocks lent for the span of one piece of work, from a list for the process.
**
** Per-frame planes that nothing carries from one frame to the next need not be each engine's:
** four engines stepped in turn on a thread then write into one block instead of four, and their
** steps' data stay within a last-level cache that one engine's fits in (eng61). A user takes a
** block, uses it, and gives it back; idle blocks wait for the next taker of any engine. The camera
** plugin keeps a list of its own for the same job (plugins/camera/cam_scratch.h): a plugin links
** nothing of the engine, so the two are alike by design, not by copy to be merged. */
#ifndef SN_LEND_H
#define SN_LEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sn_lent sn_lent;

/* A list of idle blocks; static storage, set up with SN_LEND_POOL. A user whose blocks need a
** setup of their own (the shadow map's texels, shadow_maps.c) keeps a pool of its own. */
typedef struct sn_lend_pool {
    pthread_mutex_t mu;
    sn_lent *idle;
} sn_lend_pool;
#define SN_LEND_POOL {PTHREAD_MUTEX_INITIALIZER, NULL}

/* A block of at least `bytes` (64-byte aligned) in *mem, NULL when out of memory. Its contents
** are whatever its last holder left: write before reading. Safe from any thread. (The process's
** pool of plain blocks.) */
sn_lent *sn_lend_take(size_t bytes, void **mem);
/* b back to the idle list (NULL: nothing); nothing of it may be read after. */
void sn_lend_give(sn_lent *b);

/* The same from pool p; *fresh (when not NULL) tells whether the block was just made or grown,
** its bytes undefined, rather than left by a holder of this pool. */
sn_lent *sn_lend_take_in(sn_lend_pool *p, size_t bytes, void **mem, bool *fresh);
void sn_lend_give_to(sn_lend_pool *p, sn_lent *b);
/* p's idle blocks freed (at unload or exit: a block lent now is its holder's to give back). */
void sn_lend_pool_free(sn_lend_pool *p);

#endif
