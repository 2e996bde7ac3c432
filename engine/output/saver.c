/* saver.c — the engine's image writers and their bounded queue (saver.h).
**
** The queue is a ring of slots whose buffers are kept and reused, so a run allocates them
** once. The frame thread fills a free slot while the writers (one per core) each encode another
** image; a full ring makes the frame thread wait, which bounds memory at the ring's messages.
** Images are whole units of work, so each file is the same bytes whichever writer makes it and
** however many there are. Files are written in queue order (frame order) as slots retire: the
** writer that finds the oldest slot made writes it and every made one after it, while the others
** go on encoding. So the error reported is the first failing image's in that order, whatever the
** timing; no image after it is written, and the next poll or wait reports it. */
#include "saver.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../data/png_share.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WRITERS 8
#define MAX_SLOTS (MAX_WRITERS + 3)

typedef struct slot {
    uint8_t *buf; /* the message, or (pic) its picture already converted */
    size_t cap, len;
    bool pic;
    sn_picture_size ps;
    const char *sensor, *dir, *pattern;
    sn_converter conv;
    uint64_t frame;
    uint64_t ticket; /* png_share.h: the MCAP view takes this PNG (0: nobody) */
    bool done;       /* made (or failed, or skipped): the flushing writer may take it */
    bool skipped;
    sn_status st;
    sn_error err;
    sn_image_file file; /* its bytes in `out` */
    uint8_t *out;
    size_t out_cap;
} slot;

typedef struct writer_arg {
    struct sn_saver *sv;
    uint8_t *scratch; /* the writer's converted image, reused */
    size_t scratch_cap;
} writer_arg;

struct sn_saver {
    pthread_t threads[MAX_WRITERS];
    writer_arg args[MAX_WRITERS];
    int n_threads;
    pthread_mutex_t mu;
    pthread_cond_t has_job, has_space;
    slot slots[MAX_SLOTS];
    unsigned n_slots;
    uint64_t head, next, tail; /* counting up: oldest unretired, next to take, next free */
    bool flushing;             /* a writer is writing the made slots at the head */
    bool quit, failed, reported;
    sn_error error;
};

/* "frame N: sensor 'S': save: " before a failure's sentence. */
static sn_status describe(const slot *j, sn_status st, sn_error *err)
{
    if (st) {
        char msg[sizeof err->msg];
        sn_format(msg, sizeof msg, "%s", err->msg);
        sn_fail(err, st, "frame %llu: sensor '%s': save: %s", (unsigned long long)j->frame, j->sensor, msg);
    }
    return st;
}

/* Makes one message's file as sn_stream_emit did inline (same unpacking, same code as
** `sensim convert`), its bytes copied into the slot for the writer that writes it in order. */
static sn_status make(writer_arg *a, slot *j, sn_error *err)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    sn_status st = j->pic ? sn_image_png_file(j->buf, j->ps, j->ticket, &j->file, err)
                   : msgpack_unpack_next(&u, (const char *)j->buf, j->len, &off) == MSGPACK_UNPACK_SUCCESS
                       ? sn_image_make_file(&u.data, j->pattern, j->conv, j->ticket, &a->scratch, &a->scratch_cap,
                                            &j->file, err)
                       : sn_fail(err, SN_E_INVALID, "cannot read back the message to save");
    msgpack_unpacked_destroy(&u);
    if (!st && !sn_grow((void **)&j->out, &j->out_cap, j->file.len ? j->file.len : 1, 1))
        st = sn_fail(err, SN_E_NOMEM, "out of memory for a file of %zu bytes", j->file.len);
    if (!st) {
        memcpy(j->out, j->file.data, j->file.len);
        j->file.data = j->out;
    }
    return describe(j, st, err);
}

/* Called with the lock held by the writer that found the head made: writes the made slots at
** the head in order, the lock released while writing, and retires them. */
static void flush(sn_saver *sv)
{
    sv->flushing = true;
    for (slot *h; sv->head < sv->next && (h = &sv->slots[sv->head % sv->n_slots])->done;) {
        if (h->st && !sv->failed) {
            sv->failed = true;
            sv->error = h->err;
        }
        bool write = !h->st && !h->skipped && !sv->failed;
        pthread_mutex_unlock(&sv->mu);
        sn_error err = {0};
        sn_status st = write ? describe(h, sn_image_write_file(h->dir, h->pattern, &h->file, &err), &err) : SN_OK;
        pthread_mutex_lock(&sv->mu);
        if (st && !sv->failed) {
            sv->failed = true;
            sv->error = err;
        }
        h->done = false;
        sv->head++;
        pthread_cond_broadcast(&sv->has_space);
    }
    sv->flushing = false;
}

static void *writer(void *arg)
{
    writer_arg *a = arg;
    sn_saver *sv = a->sv;
    pthread_mutex_lock(&sv->mu);
    for (;;) {
        while (sv->next == sv->tail && !sv->quit)
            pthread_cond_wait(&sv->has_job, &sv->mu);
        if (sv->next == sv->tail)
            break; /* quit, and nothing left to take */
        slot *j = &sv->slots[sv->next++ % sv->n_slots];
        bool skip = sv->failed;
        pthread_mutex_unlock(&sv->mu);
        sn_error err = {0};
        sn_status st = skip ? SN_OK : make(a, j, &err);
        sn_png_share_publish(j->ticket, NULL, 0); /* not made (a no-op when it was published) */
        pthread_mutex_lock(&sv->mu);
        j->done = true, j->skipped = skip, j->st = st, j->err = err;
        if (!sv->flushing)
            flush(sv);
    }
    pthread_mutex_unlock(&sv->mu);
    return NULL;
}

/* One writer per core the process may use (what the machine has beside the frame loop's). */
static int writers_wanted(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > MAX_WRITERS ? MAX_WRITERS : (int)cores;
}

static void stop(sn_saver *sv)
{
    pthread_mutex_lock(&sv->mu);
    sv->quit = true;
    pthread_cond_broadcast(&sv->has_job);
    pthread_mutex_unlock(&sv->mu);
    for (int i = 0; i < sv->n_threads; i++)
        pthread_join(sv->threads[i], NULL); /* the writers empty the queue before they see quit */
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
    int want = writers_wanted();
    sv->n_slots = (unsigned)want + 3; /* a message being filled and two waiting beside each writer's */
    for (int i = 0; i < want; i++) {
        sv->args[i].sv = sv;
        if (pthread_create(&sv->threads[i], NULL, writer, &sv->args[i]) != 0)
            break; /* fewer writers still write every image */
        sv->n_threads++;
    }
    if (!sv->n_threads) {
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
    while (sv->tail - sv->head == sv->n_slots && !sv->failed)
        pthread_cond_wait(&sv->has_space, &sv->mu);
    bool failed = sv->failed;
    slot *j = &sv->slots[sv->tail % sv->n_slots];
    pthread_mutex_unlock(&sv->mu);
    if (failed)
        return SN_OK;
    /* the slot is free: the writers reach it only after tail grows below. A camera image to be
    ** saved as PNG is converted into the slot right away (what the writer did after copying the
    ** whole message here: one pass over the pixels instead of two); anything else, or a message
    ** that is not a picture, is copied and made (or refused) by the writer as before. */
    size_t n = strlen(pattern);
    const bool png = n > 4 && strcmp(pattern + n - 4, ".png") == 0;
    j->pic = false;
    if (png) {
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        size_t off = 0;
        sn_error ignored = {0};
        j->pic = msgpack_unpack_next(&u, msg, size, &off) == MSGPACK_UNPACK_SUCCESS &&
                 sn_image_picture(&u.data, conv, false, &j->buf, &j->cap, &j->ps, &ignored) == SN_OK;
        msgpack_unpacked_destroy(&u);
    }
    if (!j->pic) {
        if (!sn_grow((void **)&j->buf, &j->cap, size, 1))
            return sn_fail(err, SN_E_NOMEM, "sensor '%s': save: out of memory for a message of %zu bytes", sensor,
                           size);
        memcpy(j->buf, msg, size);
        j->len = size;
    }
    j->sensor = sensor, j->dir = dir, j->pattern = pattern, j->conv = conv, j->frame = frame;
    j->ticket = png ? sn_png_share_open() : 0;
    /* this very message (the caller's bytes) is the PNG of the ticket: for the listeners the
    ** caller calls next (sn_stream_emit ends the announcement after them) */
    sn_png_share_announce(j->ticket, msg, size, conv);
    pthread_mutex_lock(&sv->mu);
    sv->tail++;
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
    while (sv->head != sv->tail)
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
    stop(sv);
    for (unsigned i = 0; i < sv->n_slots; i++)
        free(sv->slots[i].buf), free(sv->slots[i].out);
    for (int i = 0; i < sv->n_threads; i++)
        free(sv->args[i].scratch);
    pthread_mutex_destroy(&sv->mu);
    pthread_cond_destroy(&sv->has_job);
    pthread_cond_destroy(&sv->has_space);
    free(sv);
}
