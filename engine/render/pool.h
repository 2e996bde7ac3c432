/* pool.h — a fixed pool of worker threads running independent numbered tasks.
**
** Tasks are handed out in any order to any thread; callers make each task write only its own
** part of the output (the renderer: one band of rows), which keeps results independent of the
** thread count. The calling thread works too, so a pool of 1 starts no thread at all. */
#ifndef SN_POOL_H
#define SN_POOL_H

#include <stdint.h>

typedef struct sn_pool sn_pool;
typedef void (*sn_task_fn)(void *arg, uint32_t task);

/* n_threads >= 1 counts the calling thread; NULL if threads cannot be started. */
sn_pool *sn_pool_create(int n_threads);
void sn_pool_destroy(sn_pool *p);
/* Runs fn(arg, 0..n_tasks-1) and returns when every task has finished. */
void sn_pool_run(sn_pool *p, sn_task_fn fn, void *arg, uint32_t n_tasks);
int sn_pool_threads(const sn_pool *p);

#endif
