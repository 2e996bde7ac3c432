/* api_step_pool.c — sn_engines_step: one step of each of several engines on a small pool of
** threads, each thread running whole engine steps one after another (issue 36 item 3).
**
** Four engines stepped on four threads run side by side and the kernel interleaves them; on a
** pool of as many threads as cores each core runs the loop's order, one engine's step to its
** end before the next. The pool is the renderer's (render/pool.c: the caller works too, a pool
** of 1 starts no thread). Each engine is stepped by exactly one thread per call, so its results
** are those of sn_engine_step alone. */
#include "../core/error.h"
#include "../render/pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP_POOL_MAX_THREADS 256
#define CHECK_ON_STACK 32

struct sn_step_pool {
    sn_pool *pool;
    pthread_mutex_t busy; /* one call at a time: the pool runs one batch */
};

sn_step_pool *sn_step_pool_create(int threads, sn_error *err)
{
    if (threads < 0 || threads > STEP_POOL_MAX_THREADS) {
        sn_fail(err, SN_E_RANGE, "step_pool_create: threads %d is outside [0, %d] (0 = one a core)", threads,
                STEP_POOL_MAX_THREADS);
        return NULL;
    }
    if (!threads) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores < 1 ? 1 : cores > STEP_POOL_MAX_THREADS ? STEP_POOL_MAX_THREADS : (int)cores;
    }
    sn_step_pool *p = calloc(1, sizeof *p);
    if (!p || !(p->pool = sn_pool_create(threads))) {
        free(p);
        sn_fail(err, SN_E_NOMEM, "step_pool_create: out of memory or threads");
        return NULL;
    }
    pthread_mutex_init(&p->busy, NULL);
    return p;
}

void sn_step_pool_destroy(sn_step_pool *p)
{
    if (!p)
        return;
    sn_pool_destroy(p->pool);
    pthread_mutex_destroy(&p->busy);
    free(p);
}

int sn_step_pool_threads(const sn_step_pool *p) { return p ? sn_pool_threads(p->pool) : 1; }

typedef struct batch {
    sn_engine *const *engines;
    sn_status *statuses;
    sn_error *errors;
} batch;

static void step_one(void *arg, uint32_t i)
{
    batch *b = arg;
    b->statuses[i] = sn_engine_step(b->engines[i], &b->errors[i]);
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (sn_engine *const *)a, y = (uintptr_t) * (sn_engine *const *)b;
    return (x > y) - (x < y);
}

/* Refuses what would step an engine on two threads at once, before anything is stepped. */
static sn_status check_engines(sn_engine *const *engines, size_t n, sn_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!engines[i])
            return sn_fail(err, SN_E_INVALID, "engines_step: engine %zu is NULL", i);
    /* a vector's few engines sorted on the stack: no allocation a step */
    sn_engine *few[CHECK_ON_STACK];
    sn_engine **sorted = n <= CHECK_ON_STACK ? few : malloc(n * sizeof *sorted);
    if (!sorted)
        return sn_fail(err, SN_E_NOMEM, "engines_step: out of memory");
    memcpy(sorted, engines, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_address);
    sn_engine *twice = NULL;
    for (size_t i = 1; i < n && !twice; i++)
        if (sorted[i] == sorted[i - 1])
            twice = sorted[i];
    if (sorted != few)
        free(sorted);
    if (!twice)
        return SN_OK;
    size_t first = 0;
    while (engines[first] != twice)
        first++;
    size_t second = first + 1;
    while (engines[second] != twice)
        second++;
    return sn_fail(err, SN_E_INVALID, "engines_step: engines %zu and %zu are the same engine (one step each is asked)",
                   first, second);
}

sn_status sn_engines_step(sn_step_pool *p, sn_engine *const *engines, size_t n, sn_status *statuses, sn_error *errors,
                          sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!n)
        return SN_OK;
    if (!engines)
        return sn_fail(err, SN_E_INVALID, "engines_step: NULL engines for %zu engines", n);
    if (n > UINT32_MAX)
        return sn_fail(err, SN_E_RANGE, "engines_step: %zu engines (at most %u)", n, UINT32_MAX);
    sn_status st = check_engines(engines, n, err);
    if (st)
        return st;
    /* the caller's arrays, or ours: every engine's status and sentence, whatever it failed with */
    sn_status *own_st = statuses ? NULL : malloc(n * sizeof *own_st);
    sn_error *own_err = errors ? NULL : malloc(n * sizeof *own_err);
    batch b = {engines, statuses ? statuses : own_st, errors ? errors : own_err};
    if (!b.statuses || !b.errors) {
        free(own_st), free(own_err);
        return sn_fail(err, SN_E_NOMEM, "engines_step: out of memory");
    }
    if (p && pthread_mutex_trylock(&p->busy) != 0) {
        free(own_st), free(own_err);
        return sn_fail(err, SN_E_STATE,
                       "engines_step: the pool is stepping another batch (a pool serves one call at a time)");
    }
    if (p)
        sn_pool_run(p->pool, step_one, &b, (uint32_t)n);
    else
        for (size_t i = 0; i < n; i++)
            step_one(&b, (uint32_t)i);
    if (p)
        pthread_mutex_unlock(&p->busy);
    st = SN_OK;
    for (size_t i = 0; i < n && !st; i++)
        if (b.statuses[i]) {
            st = b.statuses[i];
            sn_fail(err, st, "engines_step: engine %zu: %s", i, b.errors[i].msg);
        }
    free(own_st), free(own_err);
    return st;
}
