/* pool.c — worker threads on one mutex and two condition variables: simple and enough for
** a few dozen tasks per frame. */
#include "pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct sn_pool {
    int n;
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    sn_task_fn fn;
    void *arg;
    uint32_t next, n_tasks, finished;
    uint64_t generation;
    bool quit;
};

/* Takes and runs tasks until none is left; called with the mutex held, returns with it held. */
static void drain(sn_pool *p)
{
    while (p->next < p->n_tasks) {
        uint32_t t = p->next++;
        sn_task_fn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(arg, t);
        pthread_mutex_lock(&p->mu);
        if (++p->finished == p->n_tasks)
            pthread_cond_broadcast(&p->done);
    }
}

static void *worker(void *arg)
{
    sn_pool *p = arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->generation == seen)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->quit)
            break;
        seen = p->generation;
        drain(p);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

sn_pool *sn_pool_create(int n_threads)
{
    sn_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n_threads < 1 ? 1 : n_threads;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if (p->n > 1) {
        p->threads = calloc((size_t)p->n - 1, sizeof *p->threads);
        for (int i = 0; p->threads && i < p->n - 1; i++)
            if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
                p->n = i + 1; /* fewer threads: still correct, only slower */
                break;
            }
        if (!p->threads)
            p->n = 1;
    }
    return p;
}

void sn_pool_destroy(sn_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n - 1; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p);
}

void sn_pool_run(sn_pool *p, sn_task_fn fn, void *arg, uint32_t n_tasks)
{
    if (!n_tasks)
        return;
    if (p->n == 1) {
        for (uint32_t t = 0; t < n_tasks; t++)
            fn(arg, t);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->next = 0;
    p->finished = 0;
    p->n_tasks = n_tasks;
    p->generation++;
    pthread_cond_broadcast(&p->work);
    drain(p);
    while (p->finished < p->n_tasks)
        pthread_cond_wait(&p->done, &p->mu);
    p->n_tasks = 0; /* late wakers find nothing to take */
    pthread_mutex_unlock(&p->mu);
}

int sn_pool_threads(const sn_pool *p) { return p->n; }
