/* spool.c — the streams' writer thread and its queue (spool.h).
**
** Jobs are byte ranges of buffers, written one at a time, oldest first — by the writer thread,
** or by the frame thread when it must wait — so each file's bytes stay in the order the frame
** thread put them. Buffers circulate instead of being allocated
** per message: a written chunk goes back to the chunk list, a written message buffer to the
** spare list the next large message's owner draws from.
**
** A file that gets large messages is written with O_DIRECT where its filesystem allows it
** (statx reports direct-I/O alignment: ext4, xfs; not tmpfs): the writer copies its bytes into
** the file's page-aligned stage and writes whole aligned blocks straight to the disk, which
** costs a fifth of what copying them into the page cache does (docs/performance.md "streams48").
** At each frame end the unaligned tail is written buffered, so the file holds every byte put;
** the next direct write starts at the tail's block and writes those bytes again, the same.
** A large message whose address and file offset agree modulo BLOCK (the engine's writer lays
** it out so: sn_spool_offset) skips the stage: only its first and last partial blocks are
** copied, its whole blocks go to the disk from its own buffer (save50). */
#define _GNU_SOURCE /* O_DIRECT, statx */
#include "spool.h"

#include "../core/error.h"
#include "../core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SPARES 8 /* message buffers kept for reuse; more are freed */
/* Chunk sizes 64 KiB << class: a file starts small (a thousand V2X streams need not hold a
** MiB each) and moves up a class each time it fills one, to SN_SPOOL_CHUNK. */
#define CLASSES 5
#define CHUNK(c) ((size_t)(64u << 10) << (c))
_Static_assert(CHUNK(CLASSES - 1) == SN_SPOOL_CHUNK, "the largest chunk class is SN_SPOOL_CHUNK");
_Static_assert(CHUNK(CLASSES - 1) > SN_SPOOL_DIRECT, "a message written through a chunk fits one");

#define STAGE (2u << 20) /* a direct file's stage: the size of its direct writes */
#define BLOCK SN_SPOOL_ALIGN /* direct writes' alignment (a multiple of any filesystem's we accept) */

struct sn_spool_file {
    int fd;
    char *path;
    unsigned char *chunk; /* the open chunk (CHUNK(cls) bytes), NULL until a small message */
    size_t fill;
    unsigned cls;
    bool big; /* a large message came: each frame end queues a sync of its stage (frame thread) */
    uint64_t put; /* bytes put (frame thread): where the next message starts in the file */
    /* written only by whoever executes the file's job (one at a time) */
    int mode;              /* 0 not decided, 1 direct through the stage, -1 buffered */
    unsigned char *stage;  /* STAGE bytes, page-aligned: the bytes from stage_off on */
    size_t stage_fill;
    off_t stage_off;       /* a multiple of BLOCK */
};

typedef struct job {
    sn_spool_file *f;
    unsigned char *data; /* the buffer, returned to its list once written; NULL: a frame end's
                          * sync of a direct file's stage */
    size_t cap;          /* a message buffer's capacity; 0 for a chunk */
    unsigned cls;        /* a chunk's class */
    size_t off, len;
} job;

struct sn_spool {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t has_job, done;
    job *jobs; /* a ring */
    size_t cap_jobs, head, n_jobs;
    size_t queued;              /* bytes queued or being written */
    _Atomic uint64_t submitted; /* jobs queued since the start, and written (or dropped) */
    _Atomic uint64_t written;
    uint64_t marks[SN_SPOOL_LAG]; /* `submitted` at the end of the last SN_SPOOL_LAG frames */
    unsigned n_frames;
    bool quit, failed, reported;
    bool executing; /* a job is being written (by the writer or by the frame thread helping) */
    bool idle;      /* the writer sleeps on has_job: only then is it woken (a wake-up is a syscall) */
    int error_no;
    char *error_path;
    unsigned char **chunks[CLASSES]; /* free chunks by class */
    size_t n_chunks[CLASSES], cap_chunks[CLASSES];
    sn_pack_buf spares[SPARES];
    size_t n_spares;
    double busy;
    _Atomic bool no_direct;  /* sn_spool_direct(sp, false) */
    _Atomic uint64_t direct; /* bytes written with O_DIRECT */
    _Atomic uint64_t in_place; /* ... of which from the message's own buffer, not the stage */
    /* every open file, for sn_spool_frame_end */
    sn_spool_file **files;
    size_t n_files, cap_files;
};

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int pwrite_all(int fd, const unsigned char *p, size_t n, off_t at)
{
    while (n) {
        ssize_t k = pwrite(fd, p, n, at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        p += k, at += k;
        n -= (size_t)k;
    }
    return 0;
}

static int set_direct(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) != 0 ? errno : 0;
}

/* A file's first large message: direct from here on if its filesystem takes O_DIRECT with
** alignments BLOCK satisfies and the bytes already in its last block can be read back into the
** stage; otherwise buffered, as before. */
static void try_direct(sn_spool *sp, sn_spool_file *f)
{
    f->mode = -1;
#ifdef STATX_DIOALIGN
    struct statx sx;
    if (atomic_load(&sp->no_direct) || statx(f->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) != 0 ||
        !(sx.stx_mask & STATX_DIOALIGN) || !sx.stx_dio_offset_align || !sx.stx_dio_mem_align ||
        BLOCK % sx.stx_dio_offset_align || BLOCK % sx.stx_dio_mem_align)
        return;
#else
    (void)sp;
    return; /* headers before Linux 6.1: no way to ask, so buffered */
#endif
    off_t at = lseek(f->fd, 0, SEEK_CUR);
    if (at < 0 || posix_memalign((void **)&f->stage, BLOCK, STAGE) != 0) {
        f->stage = NULL;
        return;
    }
    f->stage_off = at - at % BLOCK;
    f->stage_fill = (size_t)(at - f->stage_off);
    if ((f->stage_fill && pread(f->fd, f->stage, f->stage_fill, f->stage_off) != (ssize_t)f->stage_fill) ||
        set_direct(f->fd, true)) {
        free(f->stage);
        f->stage = NULL;
        return;
    }
    f->mode = 1;
}

/* A direct write was refused (EINVAL: the filesystem changed its mind): the stage's bytes, then
** p[0, n) after them, written buffered, and the file stays buffered. */
static int go_buffered(sn_spool_file *f, const unsigned char *p, size_t n)
{
    int e;
    f->mode = -1;
    if ((e = set_direct(f->fd, false)) || (e = pwrite_all(f->fd, f->stage, f->stage_fill, f->stage_off)) ||
        (e = pwrite_all(f->fd, p, n, f->stage_off + (off_t)f->stage_fill)))
        return e;
    if (lseek(f->fd, f->stage_off + (off_t)(f->stage_fill + n), SEEK_SET) < 0)
        return errno;
    free(f->stage);
    f->stage = NULL;
    return 0;
}

/* The stage's first n bytes (a multiple of BLOCK) to the disk with O_DIRECT. Refused, the file
** goes buffered (go_buffered). */
static int stage_out(sn_spool *sp, sn_spool_file *f, size_t n)
{
    int e = pwrite_all(f->fd, f->stage, n, f->stage_off);
    if (e == EINVAL)
        return go_buffered(f, NULL, 0);
    if (e)
        return e;
    atomic_fetch_add(&sp->direct, n);
    memmove(f->stage, f->stage + n, f->stage_fill - n);
    f->stage_fill -= n, f->stage_off += (off_t)n;
    return 0;
}

/* Frame end: the stage's whole blocks direct, its tail buffered (kept in the stage: the next
** direct write rewrites that block), so the file holds every byte put. */
static int stage_sync(sn_spool *sp, sn_spool_file *f)
{
    size_t whole = f->stage_fill - f->stage_fill % BLOCK;
    int e = whole ? stage_out(sp, f, whole) : 0;
    if (e || f->mode != 1 || !f->stage_fill)
        return e;
    if ((e = set_direct(f->fd, false)) || (e = pwrite_all(f->fd, f->stage, f->stage_fill, f->stage_off)))
        return e;
    return set_direct(f->fd, true);
}

/* One job's bytes to its file. */
static int write_job(sn_spool *sp, const job *j)
{
    sn_spool_file *f = j->f;
    if (!j->data)
        return f->mode == 1 ? stage_sync(sp, f) : 0;
    if (!f->mode && j->cap)
        try_direct(sp, f);
    if (f->mode != 1)
        return write_all(f->fd, j->data + j->off, j->len);
    const unsigned char *p = j->data + j->off;
    size_t n = j->len;
    /* the bytes before p's first whole block in the file: they complete the stage's last block */
    size_t lead = (BLOCK - f->stage_fill % BLOCK) % BLOCK;
    if (j->cap && n >= lead + BLOCK && (uintptr_t)(p + lead) % BLOCK == 0) {
        /* in place: p's bytes sit at their file offsets modulo BLOCK, so its whole blocks go to
        ** the disk from its own buffer, after the stage's (now whole) blocks */
        memcpy(f->stage + f->stage_fill, p, lead);
        f->stage_fill += lead, p += lead, n -= lead;
        int e = stage_out(sp, f, f->stage_fill);
        if (e)
            return e;
        if (f->mode != 1)
            return write_all(f->fd, p, n);
        size_t whole = n - n % BLOCK;
        e = pwrite_all(f->fd, p, whole, f->stage_off);
        if (e == EINVAL)
            return go_buffered(f, p, n);
        if (e)
            return e;
        atomic_fetch_add(&sp->direct, whole);
        atomic_fetch_add(&sp->in_place, whole);
        f->stage_off += (off_t)whole, p += whole, n -= whole;
        memcpy(f->stage, p, n); /* the last partial block: the stage's first */
        f->stage_fill = n;
        return 0;
    }
    while (n) {
        size_t k = STAGE - f->stage_fill < n ? STAGE - f->stage_fill : n;
        memcpy(f->stage + f->stage_fill, p, k);
        f->stage_fill += k, p += k, n -= k;
        int e = f->stage_fill == STAGE ? stage_out(sp, f, STAGE) : 0;
        if (e)
            return e;
        if (f->mode != 1) /* refused: the rest buffered */
            return write_all(f->fd, p, n);
    }
    return 0;
}

/* With the lock held: a written job's buffer back to its list. */
static void recycle(sn_spool *sp, const job *j)
{
    if (!j->data)
        return;
    if (!j->cap) {
        unsigned c = j->cls;
        if (sn_grow((void **)&sp->chunks[c], &sp->cap_chunks[c], sp->n_chunks[c] + 1, sizeof *sp->chunks[c]))
            sp->chunks[c][sp->n_chunks[c]++] = j->data;
        else
            free(j->data);
    } else if (sp->n_spares < SPARES) {
        sp->spares[sp->n_spares++] = (sn_pack_buf){j->data, 0, j->cap};
    } else {
        free(j->data);
    }
}

/* With the lock held, no job executing and one queued: executes the oldest, unlocked, and
** returns with the lock held again. One job at a time, oldest first, whoever runs it: each
** file's bytes are written in order, with no hole a kill could leave behind. */
static void run_one(sn_spool *sp)
{
    job j = sp->jobs[sp->head];
    sp->head = (sp->head + 1) % sp->cap_jobs;
    sp->n_jobs--;
    sp->executing = true;
    bool skip = sp->failed;
    pthread_mutex_unlock(&sp->mu);
    double t0 = mono();
    int e = skip ? 0 : write_job(sp, &j);
    double t = mono() - t0;
    pthread_mutex_lock(&sp->mu);
    sp->busy += t;
    if (e && !sp->failed) {
        sp->failed = true;
        sp->error_no = e;
        sp->error_path = sn_strdup(j.f->path);
    }
    recycle(sp, &j);
    sp->queued -= j.len;
    sp->executing = false;
    atomic_fetch_add(&sp->written, 1);
    pthread_cond_broadcast(&sp->done);
    if (sp->idle && sp->n_jobs)
        pthread_cond_signal(&sp->has_job); /* the writer may take the next one */
}

static void *writer(void *arg)
{
    sn_spool *sp = arg;
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        while (!sp->quit && (!sp->n_jobs || sp->executing)) {
            sp->idle = true;
            pthread_cond_wait(&sp->has_job, &sp->mu);
            sp->idle = false;
        }
        if (!sp->n_jobs)
            break; /* quit, and nothing left */
        run_one(sp);
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

/* With the lock held: waits until `ready` holds, writing queued jobs itself whenever the writer
** is not in the middle of one, so a frame loop that must wait is never idle while there is
** writing to do (on a busy machine the writer thread may not get a core in time). */
#define WAIT_HELPING(sp, ready)                        \
    while (!(ready)) {                                 \
        if ((sp)->n_jobs && !(sp)->executing)          \
            run_one(sp);                               \
        else                                           \
            pthread_cond_wait(&(sp)->done, &(sp)->mu); \
    }

sn_spool *sn_spool_create(sn_error *err)
{
    sn_spool *sp = calloc(1, sizeof *sp);
    if (!sp) {
        sn_fail(err, SN_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&sp->mu, NULL);
    pthread_cond_init(&sp->has_job, NULL);
    pthread_cond_init(&sp->done, NULL);
    if (pthread_create(&sp->thread, NULL, writer, sp) != 0) {
        pthread_mutex_destroy(&sp->mu);
        pthread_cond_destroy(&sp->has_job);
        pthread_cond_destroy(&sp->done);
        free(sp);
        sn_fail(err, SN_E_NOMEM, "cannot start the stream writer thread");
        return NULL;
    }
    return sp;
}

void sn_spool_destroy(sn_spool *sp)
{
    if (!sp)
        return;
    pthread_mutex_lock(&sp->mu);
    sp->quit = true;
    pthread_cond_signal(&sp->has_job);
    pthread_mutex_unlock(&sp->mu);
    pthread_join(sp->thread, NULL); /* the writer empties the queue before it sees quit */
    for (unsigned c = 0; c < CLASSES; c++) {
        for (size_t i = 0; i < sp->n_chunks[c]; i++)
            free(sp->chunks[c][i]);
        free(sp->chunks[c]);
    }
    for (size_t i = 0; i < sp->n_spares; i++)
        free(sp->spares[i].data);
    free(sp->jobs);
    free(sp->files);
    free(sp->error_path);
    pthread_mutex_destroy(&sp->mu);
    pthread_cond_destroy(&sp->has_job);
    pthread_cond_destroy(&sp->done);
    free(sp);
}

sn_status sn_spool_open(sn_spool *sp, int fd, const char *path, sn_spool_file **out, sn_error *err)
{
    sn_spool_file *f = calloc(1, sizeof *f);
    if (!f || !(f->path = sn_strdup(path)) ||
        !sn_grow((void **)&sp->files, &sp->cap_files, sp->n_files + 1, sizeof *sp->files)) {
        if (f)
            free(f->path);
        free(f);
        close(fd);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    f->fd = fd;
    sp->files[sp->n_files++] = f;
    *out = f;
    return SN_OK;
}

/* With the lock held: room for one more job (the ring doubles, unrolled from its head). */
static bool ring_room(sn_spool *sp)
{
    if (sp->n_jobs < sp->cap_jobs)
        return true;
    size_t cap = sp->cap_jobs ? 2 * sp->cap_jobs : 64;
    job *r = malloc(cap * sizeof *r);
    if (!r)
        return false;
    for (size_t i = 0; i < sp->n_jobs; i++)
        r[i] = sp->jobs[(sp->head + i) % sp->cap_jobs];
    free(sp->jobs);
    sp->jobs = r, sp->cap_jobs = cap, sp->head = 0;
    return true;
}

/* Queues one job, waiting while the queue holds more than the budget (it drains: the writer
** never waits on the frame thread). Without memory for it, the buffer is freed. */
static sn_status submit(sn_spool *sp, job j, sn_error *err)
{
    pthread_mutex_lock(&sp->mu);
    WAIT_HELPING(sp, !(sp->n_jobs || sp->executing) || sp->queued + j.len <= SN_SPOOL_BUDGET);
    if (!ring_room(sp)) {
        pthread_mutex_unlock(&sp->mu);
        free(j.data);
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory queuing a write", j.f->path);
    }
    sp->jobs[(sp->head + sp->n_jobs) % sp->cap_jobs] = j;
    sp->n_jobs++;
    sp->queued += j.len;
    atomic_fetch_add(&sp->submitted, 1);
    if (sp->idle)
        pthread_cond_signal(&sp->has_job);
    pthread_mutex_unlock(&sp->mu);
    return SN_OK;
}

/* The file's open chunk to the writer. */
static sn_status submit_chunk(sn_spool *sp, sn_spool_file *f, sn_error *err)
{
    if (!f->fill)
        return SN_OK;
    job j = {f, f->chunk, 0, f->cls, 0, f->fill};
    f->chunk = NULL, f->fill = 0;
    return submit(sp, j, err);
}

/* A free chunk of class `cls`, page-aligned so the kernel copies whole pages from it. */
static unsigned char *take_chunk(sn_spool *sp, unsigned cls)
{
    unsigned char *c = NULL;
    pthread_mutex_lock(&sp->mu);
    if (sp->n_chunks[cls])
        c = sp->chunks[cls][--sp->n_chunks[cls]];
    pthread_mutex_unlock(&sp->mu);
    if (!c && posix_memalign((void **)&c, 4096, CHUNK(cls)) != 0)
        c = NULL;
    return c;
}

sn_status sn_spool_put(sn_spool *sp, sn_spool_file *f, sn_pack_buf *owner, size_t off, size_t len, sn_error *err)
{
    sn_status st;
    if (len >= SN_SPOOL_DIRECT) {
        /* written from its own buffer: what came before it in this file goes first */
        if ((st = submit_chunk(sp, f, err)))
            return st;
        job j = {f, owner->data, owner->cap, 0, off, len};
        f->big = true;
        f->put += len;
        pthread_mutex_lock(&sp->mu);
        *owner = sp->n_spares ? sp->spares[--sp->n_spares] : (sn_pack_buf){0};
        pthread_mutex_unlock(&sp->mu);
        owner->size = 0;
        return submit(sp, j, err);
    }
    if (f->chunk && f->fill + len > CHUNK(f->cls)) { /* full: written, and the next one larger */
        if ((st = submit_chunk(sp, f, err)))
            return st;
        f->cls += f->cls < CLASSES - 1;
    }
    while (CHUNK(f->cls) < len)
        f->cls++;
    if (!f->chunk && !(f->chunk = take_chunk(sp, f->cls)))
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory for a write buffer", f->path);
    memcpy(f->chunk + f->fill, owner->data + off, len);
    f->fill += len;
    f->put += len;
    return SN_OK;
}

uint64_t sn_spool_offset(const sn_spool_file *f) { return f->put; }

/* With the lock held: the writer's error, once. */
static sn_status take_error(sn_spool *sp, sn_error *err)
{
    if (!sp->failed || sp->reported)
        return SN_OK;
    sp->reported = true;
    return sn_fail(err, SN_E_IO, "%s: write failed: %s", sp->error_path ? sp->error_path : "stream",
                   strerror(sp->error_no));
}

/* Queues every open chunk, then waits until `written` reaches `upto`. */
static sn_status drain(sn_spool *sp, bool all, sn_error *err)
{
    sn_status st = SN_OK;
    for (size_t i = 0; i < sp->n_files; i++) {
        sn_spool_file *f = sp->files[i];
        sn_status s2 = submit_chunk(sp, f, err);
        if (!s2 && f->big) /* its stage's tail into the file too */
            s2 = submit(sp, (job){f, NULL, 0, 0, 0, 0}, err);
        if (!st)
            st = s2;
    }
    uint64_t now = atomic_load(&sp->submitted);
    unsigned k = sp->n_frames++ % SN_SPOOL_LAG;
    uint64_t upto = all ? now : sp->marks[k]; /* the frames up to SN_SPOOL_LAG before this one */
    sp->marks[k] = now;
    pthread_mutex_lock(&sp->mu);
    WAIT_HELPING(sp, atomic_load(&sp->written) >= upto);
    sn_status s2 = take_error(sp, st ? NULL : err);
    if (all && sp->reported) { /* everything is written or dropped: a next run starts clean */
        sp->failed = sp->reported = false;
        free(sp->error_path);
        sp->error_path = NULL;
    }
    pthread_mutex_unlock(&sp->mu);
    return st ? st : s2;
}

sn_status sn_spool_frame_end(sn_spool *sp, sn_error *err) { return sp ? drain(sp, false, err) : SN_OK; }

sn_status sn_spool_flush(sn_spool *sp, sn_error *err) { return sp ? drain(sp, true, err) : SN_OK; }

sn_status sn_spool_close(sn_spool *sp, sn_spool_file *f, sn_error *err)
{
    if (!f)
        return SN_OK;
    sn_status st = sn_spool_flush(sp, err);
    if (close(f->fd) != 0 && !st && err)
        st = sn_fail(err, SN_E_IO, "%s: cannot finish writing: %s", f->path, strerror(errno));
    for (size_t i = 0; i < sp->n_files; i++)
        if (sp->files[i] == f) {
            sp->files[i] = sp->files[--sp->n_files];
            break;
        }
    free(f->chunk);
    free(f->stage);
    free(f->path);
    free(f);
    return err ? st : SN_OK;
}

void sn_spool_direct(sn_spool *sp, bool on)
{
    atomic_store(&sp->no_direct, !on);
}

uint64_t sn_spool_direct_bytes(sn_spool *sp) { return sp ? atomic_load(&sp->direct) : 0; }

uint64_t sn_spool_in_place_bytes(sn_spool *sp) { return sp ? atomic_load(&sp->in_place) : 0; }

double sn_spool_busy(sn_spool *sp)
{
    if (!sp)
        return 0;
    pthread_mutex_lock(&sp->mu);
    double t = sp->busy;
    pthread_mutex_unlock(&sp->mu);
    return t;
}

void sn_spool_crash_drain(sn_spool *sp)
{
    if (!sp)
        return;
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 10000 && atomic_load(&sp->written) < atomic_load(&sp->submitted); i++)
        nanosleep(&ms, NULL);
}
