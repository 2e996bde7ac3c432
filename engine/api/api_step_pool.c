/* api_step_pool.c — several engines stepped at once on a small pool of threads, each thread
** running whole engine steps one after another (issue 36 item 3).
**
** Four engines stepped on four threads run side by side and the kernel interleaves them; on a
** pool of as many threads as cores each core runs the loop's order, one engine's step to its
** end before the next. Each engine is stepped by exactly one thread per batch, so its results
** are those of sn_engine_step alone.
**
** A batch is streamed: engines are handed in one at a time (sn_engines_step_add), a sleeping
** worker starts on the first while the caller prepares the next, and each is reported as soon
** as its step ends (sn_engines_step_next), the caller stepping what no worker took. A caller
** with work of its own around each engine's step (Python's controls before it, observations
** after) does it while the other engines step, instead of before and after the whole batch.
** sn_engines_step is that stream with every engine added at once. */
#include "../core/error.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP_POOL_MAX_THREADS 256
#define CHECK_ON_STACK        32

/* One engine of the batch: what it is, where its step is, and what it returned. */
enum { SLOT_ADDED, SLOT_TAKEN, SLOT_DONE };
typedef struct slot {
    sn_engine *engine;
    int state; /* SLOT_*: a thread takes it, steps it, leaves it done */
    sn_status status;
    sn_error error;
} slot;

struct sn_step_pool {
    int n;              /* threads, the caller's included */
    pthread_t *workers; /* n - 1 of them */
    pthread_mutex_t mu;
    pthread_cond_t work; /* an engine to take, or quit */
    pthread_cond_t done; /* an engine's step ended */
    bool quit;
    /* the batch: open from begin until next() has reported every engine; closed to adds by
    ** next()'s first call; only its owner (the thread that began it) adds and takes results */
    bool open, closed;
    pthread_t owner;
    bool owner_stepping; /* the owner is inside an engine's step (in next): its listeners may not
                         ** add, nor take results (next would wait for the step it is inside) */
    slot *slots;         /* added engines, in the order added; grown, kept across batches */
    size_t *finished;    /* slot indices in the order their steps ended */
    size_t cap, added, claimed, n_finished, reported;
    size_t cursor; /* no slot before it is SLOT_ADDED (sn_engines_step_wait takes out of order) */
};

/* Steps slot i, which the caller has just taken (claimed counted); called with mu held, returns
** with it held. The step's status and sentence go to a local first: an add may grow the slots
** meanwhile. */
static void step_slot(sn_step_pool *p, size_t i)
{
    sn_engine *e = p->slots[i].engine;
    pthread_mutex_unlock(&p->mu);
    sn_error err;
    sn_status st = sn_engine_step(e, &err);
    pthread_mutex_lock(&p->mu);
    p->slots[i].state = SLOT_DONE;
    p->slots[i].status = st;
    if (st)
        p->slots[i].error = err;
    p->finished[p->n_finished++] = i;
    pthread_cond_broadcast(&p->done); /* the owner in next, or in wait for this one */
}

/* Takes the first engine no thread has taken and steps it (claimed < added); mu held. */
static void step_next(sn_step_pool *p)
{
    while (p->slots[p->cursor].state != SLOT_ADDED)
        p->cursor++;
    size_t i = p->cursor++;
    p->slots[i].state = SLOT_TAKEN;
    p->claimed++;
    step_slot(p, i);
}

/* The owner steps: its listeners may not add, take results or wait (for the step they are in). */
static void owner_step(sn_step_pool *p, size_t i)
{
    p->owner_stepping = true;
    if (i == SIZE_MAX)
        step_next(p);
    else {
        p->slots[i].state = SLOT_TAKEN;
        p->claimed++;
        step_slot(p, i);
    }
    p->owner_stepping = false;
}

/* Whether the calling thread began p's open batch; with mu held. */
static bool owns_batch(const sn_step_pool *p) { return p->open && pthread_equal(p->owner, pthread_self()); }

static void *worker(void *arg)
{
    sn_step_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && !(p->open && p->claimed < p->added))
            pthread_cond_wait(&p->work, &p->mu);
        if (p->quit)
            break;
        step_next(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

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
    if (!p || (threads > 1 && !(p->workers = calloc((size_t)threads - 1, sizeof *p->workers)))) {
        free(p);
        sn_fail(err, SN_E_NOMEM, "step_pool_create: out of memory");
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->n = 1;
    while (p->n < threads && pthread_create(&p->workers[p->n - 1], NULL, worker, p) == 0)
        p->n++;
    if (p->n < threads) {
        sn_fail(err, SN_E_NOMEM, "step_pool_create: could start %d of %d threads", p->n - 1, threads - 1);
        sn_step_pool_destroy(p);
        return NULL;
    }
    return p;
}

void sn_step_pool_destroy(sn_step_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    if (p->open && (!owns_batch(p) || p->owner_stepping)) {
        /* from a listener inside a step, or another thread while the owner's batch runs: freeing
        ** the pool would pull it from under that batch; refused, the pool left as it is */
        pthread_mutex_unlock(&p->mu);
        fprintf(stderr, "sensim: error: step_pool_destroy: called while a batch runs on the pool, from inside "
                        "it or from another thread; not destroyed\n");
        return;
    }
    if (p->open) { /* the owner's batch, begun and not drained: its engines step, results dropped */
        pthread_mutex_unlock(&p->mu);
        while (sn_engines_step_next(p, NULL, NULL, NULL))
            ;
        pthread_mutex_lock(&p->mu);
    }
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n - 1; i++)
        pthread_join(p->workers[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->workers);
    free(p->slots);
    free(p->finished);
    free(p);
}

int sn_step_pool_threads(const sn_step_pool *p) { return p ? p->n : 1; }

sn_status sn_engines_step_begin(sn_step_pool *p, sn_error *err)
{
    if (!p)
        return sn_fail(err, SN_E_INVALID, "engines_step_begin: NULL pool");
    pthread_mutex_lock(&p->mu);
    bool busy = p->open;
    if (!busy) {
        p->open = true;
        p->closed = false;
        p->owner = pthread_self();
        p->added = p->claimed = p->n_finished = p->reported = p->cursor = 0;
    }
    pthread_mutex_unlock(&p->mu);
    if (busy)
        return sn_fail(err, SN_E_STATE,
                       "engines_step: the pool is stepping another batch (a pool serves one batch at a time)");
    return SN_OK;
}

/* Room for `want` engines in the slots (mu held); SN_E_NOMEM leaves the batch as it was. */
static sn_status reserve_locked(sn_step_pool *p, size_t want, sn_error *err)
{
    if (want <= p->cap)
        return SN_OK;
    size_t cap = p->cap ? p->cap : 8;
    while (cap < want)
        cap *= 2;
    slot *s = realloc(p->slots, cap * sizeof *s);
    if (s)
        p->slots = s;
    size_t *f = s ? realloc(p->finished, cap * sizeof *f) : NULL;
    if (!f)
        return sn_fail(err, SN_E_NOMEM, "engines_step: out of memory for %zu engines", want);
    p->finished = f;
    p->cap = cap;
    return SN_OK;
}

/* Adds e to the open batch (mu held, room reserved) and wakes a worker for it. */
static void add_locked(sn_step_pool *p, sn_engine *e)
{
    p->slots[p->added++] = (slot){.engine = e, .state = SLOT_ADDED, .status = SN_OK};
    pthread_cond_signal(&p->work);
}

/* Refuses (SN_E_STATE) a call on p's batch from a thread that did not begin it, or from a
** listener inside one of its steps on the owner; mu held. `fn` names the call. */
static sn_status owner_only(const sn_step_pool *p, const char *fn, sn_error *err)
{
    if (!owns_batch(p))
        return sn_fail(err, SN_E_STATE, "%s: no batch begun on this thread (sn_engines_step_begin)", fn);
    if (p->owner_stepping)
        return sn_fail(err, SN_E_STATE, "%s: called inside a step of this batch (from a listener)", fn);
    return SN_OK;
}

sn_status sn_engines_step_add(sn_step_pool *p, sn_engine *e, sn_error *err)
{
    if (!p)
        return sn_fail(err, SN_E_INVALID, "engines_step_add: NULL pool");
    if (!e)
        return sn_fail(err, SN_E_INVALID, "engines_step_add: NULL engine");
    pthread_mutex_lock(&p->mu);
    sn_status st = owner_only(p, "engines_step_add", err);
    if (!st && p->closed)
        st = sn_fail(err, SN_E_STATE,
                     "engines_step_add: the batch is closed (engines are added before the "
                     "first sn_engines_step_next)");
    for (size_t i = 0; !st && i < p->added; i++)
        if (p->slots[i].engine == e)
            st = sn_fail(err, SN_E_INVALID,
                         "engines_step_add: the engine is already engine %zu of this batch "
                         "(one step each)",
                         i);
    if (!st && !(st = reserve_locked(p, p->added + 1, err)))
        add_locked(p, e);
    pthread_mutex_unlock(&p->mu);
    return st;
}

bool sn_engines_step_next(sn_step_pool *p, size_t *index, sn_status *status, sn_error *error)
{
    if (!p)
        return false;
    pthread_mutex_lock(&p->mu);
    if (!owns_batch(p) || p->owner_stepping) {
        pthread_mutex_unlock(&p->mu);
        return false;
    }
    p->closed = true;
    for (;;) {
        if (p->reported < p->n_finished) {
            slot *s = &p->slots[p->finished[p->reported++]];
            if (index)
                *index = (size_t)(s - p->slots);
            if (status)
                *status = s->status;
            if (error && s->status)
                *error = s->error;
            pthread_mutex_unlock(&p->mu);
            return true;
        }
        if (p->reported == p->added)
            break;
        if (p->claimed < p->added)
            owner_step(p, SIZE_MAX); /* the caller works too: what no worker has taken */
        else
            pthread_cond_wait(&p->done, &p->mu);
    }
    p->open = false;
    pthread_mutex_unlock(&p->mu);
    return false;
}

sn_status sn_engines_step_wait(sn_step_pool *p, size_t index, sn_error *err)
{
    if (!p)
        return sn_fail(err, SN_E_INVALID, "engines_step_wait: NULL pool");
    pthread_mutex_lock(&p->mu);
    sn_status st = owner_only(p, "engines_step_wait", err);
    if (!st && index >= p->added)
        st = sn_fail(err, SN_E_RANGE, "engines_step_wait: engine %zu of a batch of %zu", index, p->added);
    if (!st && p->slots[index].state == SLOT_ADDED)
        owner_step(p, index); /* no thread has taken it: step it here, now */
    while (!st && p->slots[index].state != SLOT_DONE)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    return st;
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
    sn_status st = check_engines(engines, n, err);
    if (st)
        return st;
    if (!p) { /* one after another on the caller */
        st = SN_OK;
        for (size_t i = 0; i < n; i++) {
            sn_error one;
            sn_status s = sn_engine_step(engines[i], &one);
            if (statuses)
                statuses[i] = s;
            if (s && errors)
                errors[i] = one;
            if (s && !st)
                st = sn_fail(err, s, "engines_step: engine %zu: %s", i, one.msg);
        }
        return st;
    }
    if ((st = sn_engines_step_begin(p, err)))
        return st;
    pthread_mutex_lock(&p->mu);
    st = reserve_locked(p, n, err);
    for (size_t i = 0; i < n && !st; i++)
        add_locked(p, engines[i]); /* checked above: no duplicate, no NULL */
    pthread_mutex_unlock(&p->mu);
    size_t i;
    sn_status s;
    sn_error one, first = {SN_OK, ""};
    size_t first_i = n;
    while (sn_engines_step_next(p, &i, &s, &one)) { /* ends the batch, empty after a failed reserve */
        if (statuses)
            statuses[i] = s;
        if (s && errors)
            errors[i] = one;
        if (s && i < first_i)
            first = one, first.status = s, first_i = i;
    }
    if (st)
        return st;
    if (first.status)
        return sn_fail(err, first.status, "engines_step: engine %zu: %s", first_i, first.msg);
    return SN_OK;
}
