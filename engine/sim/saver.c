/* saver.c — the engine's image writer thread and its bounded queue (saver.h).
**
** The queue is a ring of slots whose buffers are kept and reused, so a run allocates them
** once. The frame thread fills a free slot while the writer encodes another; a full ring makes
** the frame thread wait, which bounds memory at SLOTS messages. After an error the writer
** drops what is queued and the next poll or wait reports it. */
#include "saver.h"

#include "../core/error.h"
#include "../core/util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4

typedef struct slot {
    char *buf;
    size_t cap, len;
    const char *sensor, *dir, *pattern;
    sn_converter conv;
    uint64_t frame;
} slot;

struct sn_saver {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t has_job, has_space;
    slot slots[SLOTS];
    unsigned head, count; /* the writer's slot, queued slots (the one being written included) */
    bool quit, failed, reported;
    sn_error error;
    uint8_t *scratch; /* the writer's converted image, reused */
    size_t scratch_cap;
};

/* Encodes one message as sn_stream_emit did inline: same unpacking, same save function. */
static sn_status save(sn_saver *sv, const slot *j, sn_error *err)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    sn_status st = msgpack_unpack_next(&u, j->buf, j->len, &off) == MSGPACK_UNPACK_SUCCESS
                       ? sn_image_save_message(&u.data, j->dir, j->pattern, j->conv, &sv->scratch, &sv->scratch_cap, err)
                       : sn_fail(err, SN_E_INVALID, "cannot read back the message to save");
    msgpack_unpacked_destroy(&u);
    if (st) {
        char msg[sizeof err->msg];
        sn_format(msg, sizeof msg, "%s", err->msg);
        sn_fail(err, st, "frame %llu: sensor '%s': save: %s", (unsigned long long)j->frame, j->sensor, msg);
    }
    return st;
}

static void *writer(void *arg)
{
    sn_saver *sv = arg;
    pthread_mutex_lock(&sv->mu);
    for (;;) {
        while (!sv->count && !sv->quit)
            pthread_cond_wait(&sv->has_job, &sv->mu);
        if (!sv->count)
            break;
        slot *j = &sv->slots[sv->head];
        bool skip = sv->failed;
        pthread_mutex_unlock(&sv->mu);
        sn_error err = {0};
        sn_status st = skip ? SN_OK : save(sv, j, &err);
        pthread_mutex_lock(&sv->mu);
        if (st && !sv->failed) {
            sv->failed = true;
            sv->error = err;
        }
        sv->head = (sv->head + 1) % SLOTS;
        sv->count--;
        pthread_cond_broadcast(&sv->has_space);
    }
    pthread_mutex_unlock(&sv->mu);
    return NULL;
}

sn_saver *sn_saver_create(sn_error *err)
{
    sn_saver *sv = calloc(1, sizeof *sv);
    if (!sv) {
        sn_fail(err, SN_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&sv->mu, NULL);
    pthread_cond_init(&sv->has_job, NULL);
    pthread_cond_init(&sv->has_space, NULL);
    if (pthread_create(&sv->thread, NULL, writer, sv) != 0) {
        pthread_mutex_destroy(&sv->mu);
        pthread_cond_destroy(&sv->has_job);
        pthread_cond_destroy(&sv->has_space);
        free(sv);
        sn_fail(err, SN_E_NOMEM, "cannot start the image writer thread");
        return NULL;
    }
    return sv;
}

/* Called with the lock held: the unreported error, once. */
static sn_status take_error(sn_saver *sv, sn_error *err)
{
    if (!sv->failed || sv->reported)
        return SN_OK;
    sv->reported = true;
    if (err)
        *err = sv->error;
    return sv->error.status ? sv->error.status : SN_E_IO;
}

sn_status sn_saver_submit(sn_saver *sv, const char *sensor, const char *dir, const char *pattern, sn_converter conv,
                          uint64_t frame, const void *msg, size_t size, sn_error *err)
{
    pthread_mutex_lock(&sv->mu);
    while (sv->count == SLOTS && !sv->failed)
        pthread_cond_wait(&sv->has_space, &sv->mu);
    bool failed = sv->failed;
    slot *j = &sv->slots[(sv->head + sv->count) % SLOTS];
    pthread_mutex_unlock(&sv->mu);
    if (failed)
        return SN_OK;
    /* the slot is free: the writer reaches it only after count grows below */
    if (!sn_grow((void **)&j->buf, &j->cap, size, 1))
        return sn_fail(err, SN_E_NOMEM, "sensor '%s': save: out of memory for a message of %zu bytes", sensor, size);
    memcpy(j->buf, msg, size);
    j->len = size;
    j->sensor = sensor, j->dir = dir, j->pattern = pattern, j->conv = conv, j->frame = frame;
    pthread_mutex_lock(&sv->mu);
    sv->count++;
    pthread_cond_signal(&sv->has_job);
    pthread_mutex_unlock(&sv->mu);
    return SN_OK;
}

sn_status sn_saver_poll(sn_saver *sv, sn_error *err)
{
    if (!sv)
        return SN_OK;
    pthread_mutex_lock(&sv->mu);
    sn_status st = take_error(sv, err);
    pthread_mutex_unlock(&sv->mu);
    return st;
}

sn_status sn_saver_wait(sn_saver *sv, sn_error *err)
{
    if (!sv)
        return SN_OK;
    pthread_mutex_lock(&sv->mu);
    while (sv->count)
        pthread_cond_wait(&sv->has_space, &sv->mu);
    sn_status st = take_error(sv, err);
    sv->failed = sv->reported = false; /* a new run starts clean */
    pthread_mutex_unlock(&sv->mu);
    return st;
}

void sn_saver_destroy(sn_saver *sv)
{
    if (!sv)
        return;
    pthread_mutex_lock(&sv->mu);
    sv->quit = true;
    pthread_cond_signal(&sv->has_job);
    pthread_mutex_unlock(&sv->mu);
    pthread_join(sv->thread, NULL); /* the writer empties the queue before it sees quit */
    for (int i = 0; i < SLOTS; i++)
        free(sv->slots[i].buf);
    free(sv->scratch);
    pthread_mutex_destroy(&sv->mu);
    pthread_cond_destroy(&sv->has_job);
    pthread_cond_destroy(&sv->has_space);
    free(sv);
}
