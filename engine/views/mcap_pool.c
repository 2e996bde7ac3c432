/* mcap_pool.c — the ordered output queue of mcap_pool.h: a ring of slots, each a message ready
** to write or an image a worker is making; the producer (the view's one thread) writes from the
** head while it is ready and waits only when the ring is full or at the end. */
#include "mcap_pool.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../data/mpkey.h"
#include "../data/png.h"
#include "../data/png_share.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <msgpack.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RING 4096    /* slots: at most this many messages in flight (a few hundred frames) */
#define MAX_IMAGES 16 /* images in flight: each holds its message's copy (a camera's raw image) */
#define MAX_WORKERS 8
#define SMALL_SPARES 64

enum { S_FREE, S_READY, S_PENDING, S_TAKEN, S_FAILED };

typedef struct slot {
    int state;
    bool image;          /* an image job (counted in sn_mcap_pool.images) */
    uint16_t ch;
    uint64_t t;
    sn_buf data;         /* the message to write */
    sn_buf msg;          /* an image job's message bytes */
    char frame_id[256];
    char *png_path;      /* a worker's job: the run's PNG file to take (malloc'd) */
    const uint8_t *map;  /* that file mapped (png_map; munmap'd once written): the message is
                            data[0, head_n), map, data[head_n, data.n) */
    size_t map_n, head_n;
    uint32_t map_crc;    /* the file's CRC-32, made by the worker for the writer */
    int fd;              /* or that file left open (fd_open; closed once written): its map_n bytes
                            are copied by the kernel (png_walk_crc), not mapped */
    bool fd_open;
    sn_image_job job;
    sn_error err;
} slot;

struct sn_mcap_pool {
    sn_mcapw *w;
    slot ring[RING];
    size_t head, tail;   /* head: next to write; tail: next free (both count up, back to 0 when
                            the ring is empty: its first slots stay the ones in use, in the cache) */
    size_t touched;      /* slots ever claimed: ring[0..touched) (the rest were never written) */
    size_t next_job;     /* the oldest slot a worker may still find pending */
    size_t images;       /* image slots queued and not yet written */
    int n_workers;
    pthread_t workers[MAX_WORKERS];
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    bool stop;
    sn_buf direct;       /* a saved PNG's message written with nothing queued before it */
    uint8_t *scratch;    /* the inline path's */
    size_t scratch_cap;
    /* Image-sized buffers of written slots, lent to the next images instead of allocating each
    ** image's copy anew (only the producer touches them). */
    sn_buf spare[2 * MAX_IMAGES];
    int n_spare;
    /* The smaller buffers of written slots, lent to the next slots: an export of fewer
    ** messages than the ring has slots put each message into a buffer never used before, and
    ** its first touch (page faults, zeroing) cost a tenth of the export's CPU. */
    sn_buf small[SMALL_SPARES];
    int n_small;
};

/* Gives a written slot's big buffer back to the spares (or frees it when they are full). */
static void keep_spare(sn_mcap_pool *p, sn_buf *b)
{
    if (p->n_spare < 2 * MAX_IMAGES)
        p->spare[p->n_spare++] = (sn_buf){b->p, 0, b->cap, false};
    else
        sn_buf_free(b);
    *b = (sn_buf){0};
}

/* A slot's mapped PNG file let go (written, or dropped). */
static void unmap(slot *s)
{
    if (s->map)
        munmap((void *)s->map, s->map_n);
    if (s->fd_open)
        close(s->fd);
    s->map = NULL, s->map_n = 0, s->fd_open = false;
}

/* A written slot's small buffer back to the small spares (or left with its slot). */
static void keep_small(sn_mcap_pool *p, sn_buf *b)
{
    if (p->n_small < SMALL_SPARES && b->cap) {
        p->small[p->n_small++] = (sn_buf){b->p, 0, b->cap, false};
        *b = (sn_buf){0};
    }
}

/* A small spare into a slot's data buffer that has none. */
static void lend_small(sn_mcap_pool *p, sn_buf *b)
{
    if (!b->cap && p->n_small)
        *b = p->small[--p->n_small];
}

/* A spare into an empty or small buffer of a slot about to hold an image. */
static void lend_spare(sn_mcap_pool *p, sn_buf *b)
{
    if (b->cap > (256u << 10) || !p->n_spare)
        return;
    sn_buf_free(b);
    *b = p->spare[--p->n_spare];
}

/* foxglove.CompressedImage of a PNG. */
static void compressed_image(const sn_image_job *job, sn_buf *out, const uint8_t *png, size_t n)
{
    pb_string(out, 4, job->frame_id);
    pb_bytes(out, 2, png, n);
    pb_string(out, 3, "png");
}

/* foxglove.CompressedImage's frame id and data of the PNG file at path, when it is one of w x h
** (its signature and IHDR), appended to out with the file read straight into it (read into a
** buffer of its own and copied, a PNG's bytes were copied once more and their pages faulted in
** anew for every picture); false with out as it was otherwise (missing, unreadable, another
** picture). Its pixels are not decoded: a file the run's `save:` wrote is the PNG this view would
** make (the same encoder, the same converter). */
static bool png_file_into(const char *path, uint64_t w, uint64_t h, const char *frame_id, sn_buf *out)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat st;
    size_t mark = out->n, size = 0, got = 0;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 33 && st.st_size < (1ll << 31);
    if (ok) {
        size = (size_t)st.st_size;
        pb_string(out, 4, frame_id);
        pb_tag(out, 2, 2);
        pb_varint(out, size);
        ok = sn_buf_reserve(out, size);
    }
    while (ok && got < size) {
        ssize_t k = read(fd, out->p + out->n + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (ok && got == size) {
        const uint8_t *b = out->p + out->n;
        uint32_t pw = (uint32_t)b[16] << 24 | (uint32_t)b[17] << 16 | (uint32_t)b[18] << 8 | b[19];
        uint32_t ph = (uint32_t)b[20] << 24 | (uint32_t)b[21] << 16 | (uint32_t)b[22] << 8 | b[23];
        if (!memcmp(b, sig, 8) && !memcmp(b + 12, "IHDR", 4) && pw == w && ph == h) {
            out->n += size;
            pb_string(out, 3, "png");
            return true;
        }
    }
    if (!out->bad)
        out->n = mark;
    return false;
}

static bool saved_png(const sn_image_job *job, sn_buf *out);

/* The width and height a camera message says; false when it says none. */
static bool msg_size(const sn_image_job *job, uint64_t *w, uint64_t *h)
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    bool ok = false;
    if (msgpack_unpack_next(&u, job->msg, job->len, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *wo = sn_mp_get(&u.data, "width"), *ho = sn_mp_get(&u.data, "height");
        if ((ok = wo && ho && wo->type == MSGPACK_OBJECT_POSITIVE_INTEGER && ho->type == MSGPACK_OBJECT_POSITIVE_INTEGER))
            *w = wo->via.u64, *h = ho->via.u64;
    }
    msgpack_unpacked_destroy(&u);
    return ok;
}

/* Big-endian u32 at p. */
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off) { return pread(fd, buf, n, (off_t)off) == (ssize_t)n; }

/* The CRC-32 of a whole PNG file of `size` bytes from its chunks' own CRCs, reading only their
** headers (a few preads of 4 and 8 bytes): a PNG is its signature and chunks of length, type,
** data and CRC-32 of type and data (PNG's CRC is MCAP's, CRC-32 ISO-HDLC), so the file's CRC is
** theirs combined with those of the few bytes between (sn_crc32_combine). The pixels are never
** read: the kernel copies them into the MCAP file. false (the caller reads the file) for a file
** that is not a sequence of chunks ending at IEND at its end, or of more than 64 chunks (sensim
** writes 3: IHDR, one IDAT, IEND). A chunk whose stored CRC is wrong (a corrupt PNG) gives a
** chunk CRC in the MCAP file that readers reject, as a PNG reader rejects the file. */
static bool png_walk_crc(int fd, uint64_t size, uint32_t *crc_out)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint32_t crc = libdeflate_crc32(0, sig, sizeof sig);
    uint64_t at = sizeof sig;
    for (int k = 0; k < 64; k++) {
        uint8_t h[8], c[4];
        if (at + 12 > size || !pread_all(fd, h, 8, at))
            return false;
        uint64_t n = be32(h);
        if (n > 0x7fffffffu || at + 12 + n > size || !pread_all(fd, c, 4, at + 8 + n))
            return false;
        crc = libdeflate_crc32(crc, h, 4);           /* the length */
        crc = sn_crc32_combine(crc, be32(c), 4 + n); /* type and data: the chunk's own CRC */
        crc = libdeflate_crc32(crc, c, 4);           /* that CRC's bytes */
        at += 12 + n;
        if (!memcmp(h + 4, "IEND", 4)) {
            *crc_out = crc;
            return at == size;
        }
    }
    return false;
}

/* A worker's big saved PNG (SN_MCAPW_DIRECT_BYTES or more: the writer writes it from where it
** is) taken from the run's file instead of read into the slot (reading copied every byte into
** fresh pages). Its CRC-32 is made from the PNG's own chunk CRCs (png_walk_crc), so nothing here
** reads its bytes; a file that does not walk is CRC'd here. Where sn_mcapw_kernel_copy says so
** (the output is on tmpfs, the file on the same file system) the file is left open for the writer, whose
** copy_file_range is the only pass over its bytes; else it is mapped and the writer's write(2)
** copies the page cache's pages straight. The slot gets the CompressedImage's fields before and after the file
** (its head and foot); the file is checked as png_file_into does. A run's folder must not change
** under an export (as its mapped streams, msgread.h). */
static bool png_map(slot *s, const sn_mcapw *writer)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const sn_image_job *job = &s->job;
    uint64_t w = 0, h = 0;
    if (!job->png_path || job->raw)
        return false;
    int fd = open(job->png_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat st;
    uint8_t b[24];
    size_t size = 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < SN_MCAPW_DIRECT_BYTES ||
        st.st_size >= (1ll << 31) || !msg_size(job, &w, &h) ||
        !pread_all(fd, b, sizeof b, 0)) { /* a small file is read (png_file_into) */
        close(fd);
        return false;
    }
    size = (size_t)st.st_size;
    if (memcmp(b, sig, 8) || memcmp(b + 12, "IHDR", 4) || be32(b + 16) != w || be32(b + 20) != h) {
        close(fd);
        return false;
    }
    sn_buf *out = &s->data;
    out->n = 0;
    pb_time(out, 1, job->t);
    pb_string(out, 4, job->frame_id);
    pb_tag(out, 2, 2);
    pb_varint(out, size);
    s->head_n = out->n;
    pb_string(out, 3, "png");
    if (out->bad || out->n - s->head_n > SN_MCAPW_FOOT_MAX) {
        close(fd);
        return false;
    }
    s->map_n = size;
    bool walked = png_walk_crc(fd, size, &s->map_crc);
    if (walked && sn_mcapw_kernel_copy(writer, (uint64_t)st.st_dev)) {
        s->fd = fd, s->fd_open = true;
        return true;
    }
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        s->map_n = 0;
        return false;
    }
    s->map = m;
    if (!walked)
        s->map_crc = libdeflate_crc32(0, m, size);
    return true;
}

sn_status sn_mcap_image_encode(const sn_image_job *job, sn_buf *out, uint8_t **scratch, size_t *cap, sn_error *err)
{
    out->n = 0;
    pb_time(out, 1, job->t);
    if (saved_png(job, out)) /* the run's own file, when it fits */
        return out->bad ? sn_fail(err, SN_E_NOMEM, "out of memory for an image message") : SN_OK;
    uint8_t *shared = NULL;
    size_t shared_n = 0;
    if (job->ticket && sn_png_share_take(job->ticket, &shared, &shared_n)) { /* made once, by `save:` */
        out->n = 0;
        pb_time(out, 1, job->t);
        compressed_image(job, out, shared, shared_n);
        free(shared);
        return out->bad ? sn_fail(err, SN_E_NOMEM, "out of memory for an image message") : SN_OK;
    }
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    sn_status st = SN_OK;
    sn_picture_size pic;
    if (msgpack_unpack_next(&u, job->msg, job->len, &off) != MSGPACK_UNPACK_SUCCESS)
        st = sn_fail(err, SN_E_INVALID, "an image message is not msgpack");
    else /* cameras only: a lidar's bird's-eye view is not an image here, its points are */
        st = sn_image_picture(&u.data, job->conv, false, scratch, cap, &pic, err);
    msgpack_unpacked_destroy(&u);
    if (st)
        return st;
    const uint8_t *rgb = *scratch;
    out->n = 0;
    pb_time(out, 1, job->t);
    if (job->raw) { /* foxglove.RawImage */
        pb_string(out, 7, job->frame_id);
        pb_fixed32(out, 2, pic.width);
        pb_fixed32(out, 3, pic.height);
        pb_string(out, 4, "rgb8");
        pb_fixed32(out, 5, pic.width * 3);
        pb_bytes(out, 6, rgb, (size_t)pic.width * pic.height * 3);
    } else { /* foxglove.CompressedImage: the PNG `sensim convert` writes */
        size_t n = 0;
        const uint8_t *png = sn_png_encode_rgb_tls((int)pic.width, (int)pic.height, rgb, &n);
        if (!png)
            return sn_fail(err, SN_E_NOMEM, "out of memory for a PNG");
        compressed_image(job, out, png, n);
    }
    return out->bad ? sn_fail(err, SN_E_NOMEM, "out of memory for an image message") : SN_OK;
}

static void *worker(void *arg)
{
    sn_mcap_pool *p = arg;
    uint8_t *scratch = NULL;
    size_t cap = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        slot *s = NULL;
        while (!p->stop) {
            for (size_t i = p->next_job; i < p->tail; i++)
                if (p->ring[i % RING].state == S_PENDING) {
                    s = &p->ring[i % RING];
                    break;
                }
            if (s)
                break;
            pthread_cond_wait(&p->work, &p->mu);
        }
        if (!s)
            break;
        s->state = S_TAKEN;
        pthread_mutex_unlock(&p->mu);
        sn_status st = png_map(s, p->w) ? SN_OK : sn_mcap_image_encode(&s->job, &s->data, &scratch, &cap, &s->err);
        pthread_mutex_lock(&p->mu);
        s->state = st ? S_FAILED : S_READY;
        pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    free(scratch);
    return NULL;
}

sn_mcap_pool *sn_mcap_pool_create(sn_mcapw *w, int workers, sn_error *err)
{
    sn_mcap_pool *p = calloc(1, sizeof *p);
    if (!p)
        return sn_fail(err, SN_E_NOMEM, "out of memory"), NULL;
    p->w = w;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    workers = workers < 0 ? 0 : workers > MAX_WORKERS ? MAX_WORKERS : workers;
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&p->workers[i], NULL, worker, p) != 0)
            break; /* fewer workers (or none) still make every image */
        p->n_workers++;
    }
    return p;
}

/* Writes the ready slots at the head. It waits for the head only until there is room for
** `slots` more slots and `images` more images; with `all`, until every slot is written. */
static sn_status flush(sn_mcap_pool *p, bool all, size_t slots, size_t images, sn_error *err)
{
    sn_status st = SN_OK;
    pthread_mutex_lock(&p->mu);
    while (!st && p->head < p->tail) {
        slot *s = &p->ring[p->head % RING];
        if (s->state == S_PENDING || s->state == S_TAKEN) {
            if (!all && p->tail - p->head + slots <= RING && p->images + images <= MAX_IMAGES)
                break;
            pthread_cond_wait(&p->done, &p->mu);
            continue;
        }
        if (s->state == S_FAILED) {
            st = sn_fail(err, s->err.status ? s->err.status : SN_E_INVALID, "%s", s->err.msg);
            break;
        }
        pthread_mutex_unlock(&p->mu); /* a ready slot is the producer's alone */
        if (s->data.bad)
            st = sn_fail(err, SN_E_NOMEM, "out of memory");
        else if (s->fd_open)
            st = sn_mcapw_message_file(p->w, s->ch, s->t, s->data.p, s->head_n, s->fd, 0, s->map_n, s->map_crc,
                                       s->data.p + s->head_n, s->data.n - s->head_n, err);
        else if (s->map)
            st = sn_mcapw_message_parts(p->w, s->ch, s->t, s->data.p, s->head_n, s->map, s->map_n, s->map_crc,
                                        s->data.p + s->head_n, s->data.n - s->head_n, err);
        else
            st = sn_mcapw_message(p->w, s->ch, s->t, s->data.p, s->data.n, err);
        unmap(s);
        /* big buffers go back: thousands of slots must not each keep an image's worth */
        if (s->msg.cap)
            keep_spare(p, &s->msg);
        free(s->png_path);
        s->png_path = NULL;
        if (s->data.cap > (256u << 10))
            keep_spare(p, &s->data);
        else
            keep_small(p, &s->data);
        pthread_mutex_lock(&p->mu);
        if (s->image)
            p->images--;
        s->image = false;
        s->state = S_FREE;
        p->head++;
        if (p->next_job < p->head)
            p->next_job = p->head;
    }
    pthread_mutex_unlock(&p->mu);
    return st;
}

/* A free slot at the tail (writing or waiting for the head as needed), for an image or not. */
static slot *claim(sn_mcap_pool *p, bool image, sn_error *err)
{
    if (flush(p, false, 1, image, err))
        return NULL;
    /* Every slot written: start again at the first. An export taking its PNGs leaves nothing in
    ** flight, and walking a fresh 1.4 KiB slot per message touched a fresh page every few
    ** messages (page faults were a tenth of its CPU). */
    pthread_mutex_lock(&p->mu);
    if (p->head == p->tail)
        p->head = p->tail = p->next_job = 0;
    pthread_mutex_unlock(&p->mu);
    slot *s = &p->ring[p->tail % RING];
    if (p->tail % RING >= p->touched)
        p->touched = p->tail % RING + 1;
    lend_small(p, &s->data);
    s->data.n = 0;
    s->err = (sn_error){0};
    return s;
}

sn_status sn_mcap_pool_put(sn_mcap_pool *p, uint16_t ch, uint64_t t, const void *data, size_t n, sn_error *err)
{
    /* Nothing queued before it: written straight away, the order the same, without its copy
    ** into a slot (an export's actors, 11 MB, were copied twice). head and tail are only
    ** changed by this thread, the producer's. */
    if (p->head == p->tail)
        return sn_mcapw_message(p->w, ch, t, data, n, err);
    slot *s = claim(p, false, err);
    if (!s)
        return err->status;
    s->ch = ch, s->t = t;
    sn_buf_put(&s->data, data, n);
    pthread_mutex_lock(&p->mu);
    s->state = S_READY;
    p->tail++;
    pthread_mutex_unlock(&p->mu);
    return flush(p, false, 0, 0, err);
}

/* The run's own PNG file of the job's picture (job->png_path, when it is a PNG of the message's
** width and height) as the rest of its CompressedImage, appended to out (png_file_into); false
** when there is none to take. */
static bool saved_png(const sn_image_job *job, sn_buf *out)
{
    uint64_t w = 0, h = 0;
    return job->png_path && !job->raw && msg_size(job, &w, &h) && png_file_into(job->png_path, w, h, job->frame_id, out);
}

/* A worker takes the run's PNG file (reading 180 files was a tenth of an export's CPU on the
** thread that orders everything), or makes the image from the message, which stays. */
static sn_status png_job(sn_mcap_pool *p, uint16_t ch, const sn_image_job *job, sn_error *err)
{
    char *path = sn_strdup(job->png_path);
    if (!path)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    slot *s = claim(p, true, err);
    if (!s) {
        free(path);
        return err->status;
    }
    s->ch = ch, s->t = job->t;
    /* no spare lent: a big file is mapped (png_map), a small one read into the slot's small buffer */
    snprintf(s->frame_id, sizeof s->frame_id, "%s", job->frame_id);
    s->png_path = path;
    s->job = *job;
    s->job.frame_id = s->frame_id;
    s->job.png_path = path;
    pthread_mutex_lock(&p->mu);
    s->state = S_PENDING;
    s->image = true;
    p->images++;
    p->tail++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return flush(p, false, 0, 0, err);
}

sn_status sn_mcap_pool_image(sn_mcap_pool *p, uint16_t ch, const sn_image_job *job, sn_error *err)
{
    if (job->png_path && job->msg_stays && !job->raw && p->n_workers)
        return png_job(p, ch, job, err);
    if (job->png_path && !job->raw && p->head == p->tail) {
        /* nothing queued before it: the run's own file read into the pool's buffer (its pages
        ** stay from picture to picture) and written from there, without a slot's copy */
        p->direct.n = 0;
        pb_time(&p->direct, 1, job->t);
        if (saved_png(job, &p->direct))
            return p->direct.bad ? sn_fail(err, SN_E_NOMEM, "out of memory for an image message")
                                 : sn_mcapw_message(p->w, ch, job->t, p->direct.p, p->direct.n, err);
    }
    slot *s = job->png_path && !job->raw ? claim(p, false, err) : NULL;
    if (job->png_path && !job->raw && !s)
        return err->status;
    if (s) {
        s->ch = ch, s->t = job->t;
        pb_time(&s->data, 1, job->t);
    }
    if (s && saved_png(job, &s->data)) { /* the run's own file: ready as it is, neither the message copied nor a worker woken */
        if (s->data.bad)
            return sn_fail(err, SN_E_NOMEM, "out of memory for an image message");
        pthread_mutex_lock(&p->mu);
        s->state = S_READY;
        p->tail++;
        pthread_mutex_unlock(&p->mu);
        return flush(p, false, 0, 0, err);
    }
    if (!(s = claim(p, true, err))) /* the slot claimed above, if any, again: tail has not moved */
        return err->status;
    s->ch = ch, s->t = job->t;
    lend_spare(p, &s->msg);
    if (job->raw) /* a raw image's message is as big as its copy */
        lend_spare(p, &s->data);
    s->msg.n = 0;
    sn_buf_put(&s->msg, job->msg, job->len);
    if (s->msg.bad)
        return sn_fail(err, SN_E_NOMEM, "out of memory for an image message");
    snprintf(s->frame_id, sizeof s->frame_id, "%s", job->frame_id);
    s->job = *job;
    s->job.msg = s->msg.p;
    s->job.frame_id = s->frame_id;
    s->job.png_path = NULL; /* not taken above: made */
    if (!p->n_workers) { /* inline */
        sn_status st = sn_mcap_image_encode(&s->job, &s->data, &p->scratch, &p->scratch_cap, err);
        if (st)
            return st;
        pthread_mutex_lock(&p->mu);
        s->state = S_READY;
        p->tail++;
        pthread_mutex_unlock(&p->mu);
        return flush(p, false, 0, 0, err);
    }
    pthread_mutex_lock(&p->mu);
    s->state = S_PENDING;
    s->image = true;
    p->images++;
    p->tail++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return flush(p, false, 0, 0, err);
}

sn_status sn_mcap_pool_drain(sn_mcap_pool *p, sn_error *err) { return flush(p, true, 0, 0, err); }

void sn_mcap_pool_free(sn_mcap_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_workers; i++)
        pthread_join(p->workers[i], NULL);
    for (size_t i = 0; i < p->touched; i++) {
        unmap(&p->ring[i]);
        sn_buf_free(&p->ring[i].data);
        sn_buf_free(&p->ring[i].msg);
        free(p->ring[i].png_path);
    }
    for (int i = 0; i < p->n_spare; i++)
        sn_buf_free(&p->spare[i]);
    for (int i = 0; i < p->n_small; i++)
        sn_buf_free(&p->small[i]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    free(p->scratch);
    sn_buf_free(&p->direct);
    free(p);
}
