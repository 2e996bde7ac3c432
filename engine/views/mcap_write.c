/* mcap_write.c — the MCAP writer of mcap_write.h. Records are built in memory (buf.h) and
** written whole; chunks are compressed with zstd (Debian's libzstd), CRCs are libdeflate's. */
#include "mcap_write.h"

#include "buf.h"
#include "file_copy.h"

#include "../core/error.h"
#include "../core/util.h"

#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zstd.h>

enum {
    OP_HEADER = 0x01, OP_FOOTER = 0x02, OP_SCHEMA = 0x03, OP_CHANNEL = 0x04, OP_MESSAGE = 0x05,
    OP_CHUNK = 0x06, OP_MESSAGE_INDEX = 0x07, OP_CHUNK_INDEX = 0x08, OP_STATISTICS = 0x0B,
    OP_SUMMARY_OFFSET = 0x0E, OP_DATA_END = 0x0F
};

static const uint8_t MAGIC[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

typedef struct schema {
    char *name, *encoding;
    uint8_t *data;
    size_t n;
    bool written;        /* its record is in the data section */
} schema;

typedef struct channel {
    char *topic, *encoding;
    uint16_t schema;
    bool written;        /* its record is in the data section */
    bool stored;         /* its messages are compressed already (PNG): their chunks are not zstd'd */
    uint64_t count;      /* messages in the file */
    bool in_chunk;       /* has messages in the current chunk */
    sn_buf index;        /* this chunk's (log_time, offset) pairs */
} channel;

typedef struct chunk_index {
    uint64_t start, end, offset, length, index_length, compressed, uncompressed;
    uint8_t *offsets; /* the message_index_offsets map's entries (channel u16, offset u64) */
    size_t offsets_n;
    bool zstd;        /* its compression: "zstd", else "" (stored) */
} chunk_index;

/* A sealed chunk on its way to the file: its records, its time span and its message indexes
** (MessageIndex records back to back; ids[i] at rel[i] within them), all it needs to be
** compressed and written without the writer's channels, which the filler keeps changing. */
/* Sealed chunks the compressor thread may have queued. */
#define SN_MCAPW_QUEUE 4

typedef struct sealed {
    sn_buf chunk, idx;
    uint64_t start, end, messages;
    bool stored;         /* written as it is (compression ""), not zstd'd */
    const uint8_t *tail; /* a stored chunk's last message's bytes, written from where they are */
    size_t tail_n;
    uint32_t tail_crc;   /* their CRC-32, when tail_crc_known (sn_mcapw_message_parts) */
    bool tail_crc_known;
    bool tail_file;      /* the tail is tail_n bytes of the file tail_fd from tail_off instead
                            (sn_mcapw_message_file): copied by the kernel */
    int tail_fd;
    uint64_t tail_off;
    uint8_t foot[SN_MCAPW_FOOT_MAX]; /* the message's last bytes, after the tail (copied) */
    size_t foot_n;
    uint16_t *ids;
    uint64_t *rel;
    size_t n_ids, cap_ids, cap_rel;
} sealed;

struct sn_mcapw {
    FILE *f;
    uint64_t off;        /* bytes written (the compressor's while it runs) */
    _Atomic uint64_t shown; /* off, for sn_mcapw_bytes from any thread */
    uint32_t data_crc;   /* of everything before DataEnd */
    bool in_data;
    bool kernel_copy;    /* sn_mcapw_kernel_copy: the output is on tmpfs, on device dev */
    uint64_t dev;
    int level;
    size_t chunk_bytes;
    ZSTD_CCtx *zc;
    sn_buf chunk;        /* the open chunk's records, uncompressed */
    uint64_t chunk_start, chunk_end, chunk_messages;
    bool chunk_stored;   /* the open chunk holds stored channels' messages (chunk.n > 0) */
    const uint8_t *tail; /* the open chunk's last message's bytes, not copied (sn_mcapw_message) */
    size_t tail_n;
    uint32_t tail_crc;   /* as sealed's */
    bool tail_crc_known;
    bool tail_file;      /* as sealed's */
    int tail_fd;
    uint64_t tail_off;
    uint8_t foot[SN_MCAPW_FOOT_MAX];
    size_t foot_n;
    uint8_t *z;          /* compressed chunk */
    size_t z_cap;
    sn_buf rec;          /* one record being built (the filler's) */
    sn_buf zrec;         /* a chunk's record header (the compressor's) */
    schema *schemas;
    size_t n_schemas, cap_schemas;
    channel *channels;
    size_t n_channels, cap_channels;
    chunk_index *chunks; /* the compressor's while it runs */
    size_t n_chunks, cap_chunks;
    uint64_t messages, first_time, last_time;
    uint16_t *chunk_channels; /* channels written in the open chunk, in first-use order */
    size_t n_chunk_channels, cap_chunk_channels;
    /* sn_mcapw_background: one thread compresses and writes a sealed chunk while the next is
    ** filled (zstd was a quarter of an export's CPU). Chunks go out one by one in their order,
    ** so the file is the same bytes as without it. */
    bool threaded, stop;
    bool prefault;       /* the compressor's first job: the spare chunk buffer made and touched */
    bool prefault_asked; /* start_prefault ran */
    bool sealed_any;     /* flush_chunk has sealed a chunk (the filler's) */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t go, idle;
    /* Sealed chunks queued for the compressor, oldest at q_head (q_n of them, the oldest the one it
    ** works on); the next slot's buffers are the spare for the next seal. A queue, not one job:
    ** a chunk of PNGs closes the actors' chunk at every picture, and with one job in flight the
    ** filler waited for the compressor at about every other seal (13 to 17 ms of the demo's wall
    ** time). */
    sealed jobs[SN_MCAPW_QUEUE];
    size_t q_head, q_n;
    sn_status failed;    /* the compressor's first failure */
    sn_error fail_err;
};

static sn_status put(sn_mcapw *w, const void *p, size_t n, sn_error *err)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno ? errno : EIO));
    if (w->in_data && n) /* libdeflate's crc32 of NULL is 0 */
        w->data_crc = libdeflate_crc32(w->data_crc, p, n);
    w->off += n;
    atomic_store_explicit(&w->shown, w->off, memory_order_relaxed);
    return SN_OK;
}

/* put of bytes whose CRC-32 (from 0) is known: the data section's CRC combined, not read again. */
static sn_status put_crc(sn_mcapw *w, const void *p, size_t n, uint32_t crc, sn_error *err)
{
    if (n && fwrite(p, 1, n, w->f) != n)
        return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno ? errno : EIO));
    if (w->in_data && n)
        w->data_crc = sn_crc32_combine(w->data_crc, crc, n);
    w->off += n;
    atomic_store_explicit(&w->shown, w->off, memory_order_relaxed);
    return SN_OK;
}

/* put_crc of n bytes of the file fd from off, copied by the kernel (sn_file_copy). */
static sn_status put_file(sn_mcapw *w, int fd, uint64_t off, size_t n, uint32_t crc, sn_error *err)
{
    sn_status st = sn_file_copy(w->f, fd, off, n, err);
    if (st)
        return st;
    if (w->in_data && n)
        w->data_crc = sn_crc32_combine(w->data_crc, crc, n);
    w->off += n;
    atomic_store_explicit(&w->shown, w->off, memory_order_relaxed);
    return SN_OK;
}

/* A record header (opcode, u64 length) in front of content already in `b` from `at`. */
static void begin_record(sn_buf *b, uint8_t op)
{
    sn_buf_u8(b, op);
    sn_buf_u64(b, 0);
}

static void end_record(sn_buf *b, size_t at) { sn_buf_set_u64(b, at + 1, b->n - at - 9); }

static sn_status nomem(sn_error *err) { return sn_fail(err, SN_E_NOMEM, "out of memory"); }

/* CRC-32 of two byte runs put together from theirs, as zlib's crc32_combine (zlib 1.2.12's
** method: crc1 times x^(8 len2) modulo the polynomial, plus crc2): the data section's CRC of a
** chunk's records is combined from the chunk's own CRC instead of reading the bytes again (the
** second of two CRC passes over every PNG was a tenth of a large export's CPU). */
#define CRC_POLY 0xedb88320u

static uint32_t multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ CRC_POLY : b >> 1;
    }
    return p;
}

uint32_t sn_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
    if (!len2)
        return crc1;
    uint32_t x2n = 1u << 30, p = 1u << 31; /* x^1; x^0 */
    for (int k = 0; k < 3; k++)            /* x^(2^3): len2 counts bytes, 8 bits each */
        x2n = multmodp(x2n, x2n);
    for (; len2; len2 >>= 1, x2n = multmodp(x2n, x2n))
        if (len2 & 1)
            p = multmodp(x2n, p);
    return multmodp(p, crc1) ^ crc2;
}

/* A chunk's buffer made room for a whole chunk up front, in transparent huge pages where the
** kernel gives them: filled to 4 MiB, twice with the compressor's spare, its 4 KiB pages were
** faulted in one by one (a tenth of an export's CPU went to page faults). realloc still grows
** it past that; without the room the buffer grows as before. */
static void chunk_room(sn_buf *b, size_t chunk_bytes)
{
    enum { HUGE = 2u << 20 };
    if (b->cap || chunk_bytes > (256u << 20))
        return;
    size_t cap = (chunk_bytes + (chunk_bytes >> 2) + HUGE - 1) / HUGE * HUGE; /* a last message past the mark */
    void *p = aligned_alloc(HUGE, cap);
    if (!p)
        return;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, cap, MADV_HUGEPAGE); /* a hint: no huge pages is no error */
#endif
    *b = (sn_buf){p, 0, cap, false};
}

static sn_status write_rec(sn_mcapw *w, sn_error *err)
{
    if (w->rec.bad)
        return nomem(err);
    return put(w, w->rec.p, w->rec.n, err);
}

sn_mcapw *sn_mcapw_open(FILE *f, const char *library, int zstd_level, size_t chunk_bytes, sn_error *err)
{
    sn_mcapw *w = calloc(1, sizeof *w);
    if (!w || !(w->zc = ZSTD_createCCtx())) {
        free(w);
        return nomem(err), NULL;
    }
    w->f = f;
    struct statfs fs;
    struct stat fst;
    w->kernel_copy = fileno(f) >= 0 && fstatfs(fileno(f), &fs) == 0 && fs.f_type == 0x01021994 && /* TMPFS_MAGIC */
                     fstat(fileno(f), &fst) == 0 && S_ISREG(fst.st_mode);
    w->dev = w->kernel_copy ? (uint64_t)fst.st_dev : 0;
    w->level = zstd_level;
    w->chunk_bytes = chunk_bytes ? chunk_bytes : SN_MCAP_CHUNK_BYTES;
    w->in_data = true;
    w->first_time = UINT64_MAX;
    chunk_room(&w->chunk, w->chunk_bytes);
    begin_record(&w->rec, OP_HEADER);
    sn_buf_str(&w->rec, "");       /* profile: none (not ROS) */
    sn_buf_str(&w->rec, library);
    end_record(&w->rec, 0);
    if (put(w, MAGIC, sizeof MAGIC, err) || write_rec(w, err)) {
        sn_mcapw_free(w);
        return NULL;
    }
    return w;
}

static void schema_record(sn_buf *b, uint16_t id, const schema *s)
{
    size_t at = b->n;
    begin_record(b, OP_SCHEMA);
    sn_buf_u16(b, id);
    sn_buf_str(b, s->name);
    sn_buf_str(b, s->encoding);
    sn_buf_u32(b, (uint32_t)s->n);
    sn_buf_put(b, s->data, s->n);
    end_record(b, at);
}

static void channel_record(sn_buf *b, uint16_t id, const channel *c)
{
    size_t at = b->n;
    begin_record(b, OP_CHANNEL);
    sn_buf_u16(b, id);
    sn_buf_u16(b, c->schema);
    sn_buf_str(b, c->topic);
    sn_buf_str(b, c->encoding);
    sn_buf_u32(b, 0); /* metadata: none */
    end_record(b, at);
}

uint16_t sn_mcapw_schema_find(const sn_mcapw *w, const char *name)
{
    for (size_t i = 0; i < w->n_schemas; i++)
        if (strcmp(w->schemas[i].name, name) == 0)
            return (uint16_t)(i + 1);
    return 0;
}

uint16_t sn_mcapw_schema(sn_mcapw *w, const char *name, const char *encoding, const void *data, size_t n)
{
    for (size_t i = 0; i < w->n_schemas; i++)
        if (strcmp(w->schemas[i].name, name) == 0)
            return (uint16_t)(i + 1);
    if (w->n_schemas >= 65535 || !sn_grow((void **)&w->schemas, &w->cap_schemas, w->n_schemas + 1, sizeof *w->schemas))
        return 0;
    schema s = {sn_strdup(name), sn_strdup(encoding), malloc(n ? n : 1), n, false};
    if (!s.name || !s.encoding || !s.data) {
        free(s.name), free(s.encoding), free(s.data);
        return 0;
    }
    memcpy(s.data, data, n);
    w->schemas[w->n_schemas++] = s;
    return (uint16_t)w->n_schemas;
}

void sn_mcapw_channel_stored(sn_mcapw *w, uint16_t id)
{
    if (id < w->n_channels)
        w->channels[id].stored = true;
}

uint16_t sn_mcapw_channel(sn_mcapw *w, const char *topic, uint16_t schema_id, const char *message_encoding)
{
    for (size_t i = 0; i < w->n_channels; i++)
        if (strcmp(w->channels[i].topic, topic) == 0)
            return (uint16_t)i; /* channel ids start at 0 */
    if (w->n_channels >= 65535 || !sn_grow((void **)&w->channels, &w->cap_channels, w->n_channels + 1, sizeof *w->channels))
        return UINT16_MAX;
    channel c = {sn_strdup(topic), sn_strdup(message_encoding), schema_id, false, false, 0, false, {0}};
    if (!c.topic || !c.encoding) {
        free(c.topic), free(c.encoding);
        return UINT16_MAX;
    }
    w->channels[w->n_channels] = c;
    return (uint16_t)w->n_channels++;
}

/* Compresses and writes a sealed chunk, then its message indexes (the compressor's work: on
** its thread, or inline). */
static sn_status emit(sn_mcapw *w, sealed *j, sn_error *err)
{
    /* level 0, or a chunk of PNGs: stored as it is (MCAP's empty compression); zstd would spend
    ** CPU on bytes it cannot shrink */
    const void *z = j->chunk.p;
    size_t zn = j->chunk.n;
    bool zstd = w->level && !j->stored && !j->tail_n && !j->foot_n;
    if (zstd) {
        size_t bound = ZSTD_compressBound(j->chunk.n);
        if (!sn_grow((void **)&w->z, &w->z_cap, bound, 1))
            return nomem(err);
        zn = ZSTD_compressCCtx(w->zc, w->z, w->z_cap, j->chunk.p, j->chunk.n, w->level);
        if (ZSTD_isError(zn))
            return sn_fail(err, SN_E_IO, "zstd: %s", ZSTD_getErrorName(zn));
        z = w->z;
    }
    if (!sn_grow((void **)&w->chunks, &w->cap_chunks, w->n_chunks + 1, sizeof *w->chunks))
        return nomem(err);
    size_t more = j->tail_n + j->foot_n; /* the last message's bytes after the chunk buffer's */
    chunk_index *ci = &w->chunks[w->n_chunks];
    *ci = (chunk_index){.start = j->messages ? j->start : 0, .end = j->messages ? j->end : 0, .offset = w->off,
                        .compressed = zn + more, .uncompressed = j->chunk.n + more, .zstd = zstd};
    sn_buf *r = &w->zrec;
    r->n = 0;
    begin_record(r, OP_CHUNK);
    sn_buf_u64(r, ci->start);
    sn_buf_u64(r, ci->end);
    sn_buf_u64(r, j->chunk.n + more);
    /* each run's CRC once, the chunk's and the data section's combined from them (libdeflate's
    ** crc32 of NULL is its initial value, 0) */
    uint32_t crc_records = libdeflate_crc32(0, j->chunk.p, j->chunk.n);
    uint32_t crc_tail = j->tail_crc_known ? j->tail_crc : libdeflate_crc32(0, j->tail, j->tail_n);
    uint32_t crc_foot = libdeflate_crc32(0, j->foot, j->foot_n);
    uint32_t crc = sn_crc32_combine(sn_crc32_combine(crc_records, crc_tail, j->tail_n), crc_foot, j->foot_n);
    sn_buf_u32(r, crc);
    sn_buf_str(r, zstd ? "zstd" : "");
    sn_buf_u64(r, zn + more);
    sn_buf_set_u64(r, 1, r->n - 9 + zn + more); /* the compressed records follow */
    if (r->bad)
        return nomem(err);
    sn_status st = put(w, r->p, r->n, err);
    if (!st)
        st = zstd ? put(w, z, zn, err) : put_crc(w, z, zn, crc_records, err);
    if (!st)
        st = j->tail_file ? put_file(w, j->tail_fd, j->tail_off, j->tail_n, crc_tail, err)
                          : put_crc(w, j->tail, j->tail_n, crc_tail, err);
    if (!st)
        st = put_crc(w, j->foot, j->foot_n, crc_foot, err);
    if (st)
        return st;
    ci->length = w->off - ci->offset;
    /* one MessageIndex per channel of the chunk, in channel order */
    uint64_t index_start = w->off;
    ci->offsets = malloc(j->n_ids * 10 + 1);
    if (!ci->offsets)
        return nomem(err);
    w->n_chunks++;
    for (size_t i = 0; i < j->n_ids; i++) {
        uint8_t *e = ci->offsets + ci->offsets_n;
        uint64_t at = index_start + j->rel[i];
        e[0] = (uint8_t)j->ids[i], e[1] = (uint8_t)(j->ids[i] >> 8);
        for (int k = 0; k < 8; k++)
            e[2 + k] = (uint8_t)(at >> (8 * k));
        ci->offsets_n += 10;
    }
    if ((st = put(w, j->idx.p, j->idx.n, err)))
        return st;
    ci->index_length = w->off - index_start;
    return SN_OK;
}

/* The spare chunk buffer made and its pages touched by the compressor while the first chunk
** fills: their zeroing (a fifth of the filling thread's time) is off the thread that fills. */
static void touch_room(sn_buf *b, size_t chunk_bytes)
{
    chunk_room(b, chunk_bytes);
    for (size_t i = 0; i < b->cap; i += 4096)
        b->p[i] = 0;
}

static void *compressor(void *arg)
{
    sn_mcapw *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->q_n && !w->prefault && !w->stop)
            pthread_cond_wait(&w->go, &w->mu);
        if (!w->q_n && !w->prefault)
            break;
        bool skip = w->failed != SN_OK, prefault = w->prefault;
        sealed *j = prefault ? &w->jobs[(w->q_head + w->q_n) % SN_MCAPW_QUEUE] : &w->jobs[w->q_head];
        pthread_mutex_unlock(&w->mu);
        sn_error e = {0};
        sn_status st = SN_OK;
        if (prefault)
            touch_room(&j->chunk, w->chunk_bytes);
        else if (!skip)
            st = emit(w, j, &e);
        pthread_mutex_lock(&w->mu);
        if (st && !w->failed)
            w->failed = st, w->fail_err = e;
        if (prefault)
            w->prefault = false;
        else
            w->q_head = (w->q_head + 1) % SN_MCAPW_QUEUE, w->q_n--;
        pthread_cond_signal(&w->idle);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until the compressor has at most `most` chunks queued (0: every chunk handed over is
** written) and no prefault; its failure, if any. */
static sn_status wait_queue(sn_mcapw *w, size_t most, sn_error *err)
{
    if (!w->threaded)
        return SN_OK;
    pthread_mutex_lock(&w->mu);
    while (w->q_n > most || w->prefault)
        pthread_cond_wait(&w->idle, &w->mu);
    sn_status st = w->failed;
    pthread_mutex_unlock(&w->mu);
    return st ? sn_fail(err, st, "%s", w->fail_err.msg) : SN_OK;
}

static sn_status wait_idle(sn_mcapw *w, sn_error *err) { return wait_queue(w, 0, err); }

bool sn_mcapw_background(sn_mcapw *w)
{
    if (w->threaded)
        return true;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->go, NULL);
    pthread_cond_init(&w->idle, NULL);
    if (pthread_create(&w->thread, NULL, compressor, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->go);
        pthread_cond_destroy(&w->idle);
        return false; /* inline, as before */
    }
    w->threaded = true;
    return true;
}

/* The compressor's first job, once the first chunk is half full (a file of less never needs the
** spare, and an empty export spent about a quarter of its CPU zeroing it): the spare chunk buffer made
** and touched; the filler waits for it before its first seal. */
static void start_prefault(sn_mcapw *w)
{
    if (!w->threaded || w->sealed_any || w->prefault_asked) /* the compressor is idle: it never had a job */
        return;
    w->prefault_asked = true;
    pthread_mutex_lock(&w->mu);
    w->prefault = true;
    pthread_cond_signal(&w->go);
    pthread_mutex_unlock(&w->mu);
}

static void stop_compressor(sn_mcapw *w)
{
    if (!w->threaded)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_signal(&w->go);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->go);
    pthread_cond_destroy(&w->idle);
    w->threaded = false;
}

/* Seals the open chunk (its records and message indexes into w->job, whose buffers become the
** next chunk's) and has it compressed and written: by the compressor while the next chunk
** fills, or here. */
static sn_status flush_chunk(sn_mcapw *w, sn_error *err)
{
    if (!w->chunk.n)
        return SN_OK;
    if (w->chunk.bad)
        return nomem(err);
    sn_status st = wait_queue(w, SN_MCAPW_QUEUE - 1, err); /* a free slot: the filler's */
    if (st)
        return st;
    sealed *j = &w->jobs[0];
    if (w->threaded) {
        pthread_mutex_lock(&w->mu);
        j = &w->jobs[(w->q_head + w->q_n) % SN_MCAPW_QUEUE];
        pthread_mutex_unlock(&w->mu);
    }
    j->idx.n = 0;
    j->n_ids = 0;
    for (size_t id = 0; id < w->n_channels; id++) {
        channel *c = &w->channels[id];
        if (!c->in_chunk)
            continue;
        if (c->index.bad)
            return nomem(err);
        if (!sn_grow((void **)&j->ids, &j->cap_ids, j->n_ids + 1, sizeof *j->ids) ||
            !sn_grow((void **)&j->rel, &j->cap_rel, j->n_ids + 1, sizeof *j->rel))
            return nomem(err);
        j->ids[j->n_ids] = (uint16_t)id;
        j->rel[j->n_ids++] = j->idx.n;
        size_t at = j->idx.n;
        begin_record(&j->idx, OP_MESSAGE_INDEX);
        sn_buf_u16(&j->idx, (uint16_t)id);
        sn_buf_u32(&j->idx, (uint32_t)c->index.n);
        sn_buf_put(&j->idx, c->index.p, c->index.n);
        end_record(&j->idx, at);
        c->in_chunk = false;
        c->index.n = 0;
    }
    if (j->idx.bad)
        return nomem(err);
    /* a whole chunk's room (huge pages) for the spare only when chunks fill: its first touch
    ** zeroes 2 MiB, and an export whose chunks a PNG or a picture closes early (a few KiB) paid
    ** that for every buffer of the queue */
    if (w->threaded && w->chunk.n >= w->chunk_bytes / 2)
        chunk_room(&j->chunk, w->chunk_bytes);
    sn_buf spare = j->chunk;
    j->chunk = w->chunk;
    w->chunk = spare;
    w->chunk.n = 0;
    j->start = w->chunk_start, j->end = w->chunk_end, j->messages = w->chunk_messages;
    j->stored = w->chunk_stored;
    j->tail = w->tail, j->tail_n = w->tail_n;
    j->tail_crc = w->tail_crc, j->tail_crc_known = w->tail_crc_known;
    j->tail_file = w->tail_file, j->tail_fd = w->tail_fd, j->tail_off = w->tail_off;
    memcpy(j->foot, w->foot, w->foot_n);
    j->foot_n = w->foot_n;
    w->tail = NULL, w->tail_n = 0, w->tail_crc_known = false, w->tail_file = false, w->foot_n = 0;
    w->sealed_any = true;
    w->n_chunk_channels = 0;
    w->chunk_messages = 0;
    if (!w->threaded)
        return emit(w, j, err);
    pthread_mutex_lock(&w->mu);
    w->q_n++;
    pthread_cond_signal(&w->go);
    pthread_mutex_unlock(&w->mu);
    return SN_OK;
}

/* One message of head, body and foot put together (sn_mcapw_message's and _parts'). */
static sn_status message(sn_mcapw *w, uint16_t id, uint64_t log_time, const void *head, size_t head_n, const void *data,
                         int fd, uint64_t fd_off, size_t n, const uint32_t *crc, const void *foot, size_t foot_n,
                         sn_error *err)
{
    if (id >= w->n_channels)
        return sn_fail(err, SN_E_INVALID, "mcap: no channel %u", id);
    channel *c = &w->channels[id];
    /* a chunk holds either compressible messages (zstd) or stored channels' (PNGs, stored as
    ** they are): a message of the other kind closes it. Chunks so stay in time order. */
    bool stored = !w->level || c->stored;
    if (w->chunk.n && stored != w->chunk_stored) {
        sn_status st = flush_chunk(w, err);
        if (st)
            return st;
    }
    w->chunk_stored = stored;
    /* schema and channel records go in just before the channel's first message, so where they
    ** land depends only on the order of the messages */
    if (!c->written) {
        schema *sc = c->schema ? &w->schemas[c->schema - 1] : NULL;
        if (sc && !sc->written)
            schema_record(&w->chunk, c->schema, sc), sc->written = true;
        channel_record(&w->chunk, id, c);
        c->written = true;
    }
    if (!c->in_chunk) {
        if (!sn_grow((void **)&w->chunk_channels, &w->cap_chunk_channels, w->n_chunk_channels + 1, sizeof(uint16_t)))
            return nomem(err);
        w->chunk_channels[w->n_chunk_channels++] = id;
        c->in_chunk = true;
    }
    sn_buf_u64(&c->index, log_time);
    sn_buf_u64(&c->index, w->chunk.n);
    size_t at = w->chunk.n;
    begin_record(&w->chunk, OP_MESSAGE);
    sn_buf_u16(&w->chunk, id);
    sn_buf_u32(&w->chunk, (uint32_t)c->count); /* sequence: the channel's message number */
    sn_buf_u64(&w->chunk, log_time);
    sn_buf_u64(&w->chunk, log_time); /* publish time: the same simulated instant */
    /* a big stored message (a PNG) ends its chunk and is written from where it is: copying it
    ** into the chunk was a tenth of a large export's CPU */
    bool direct = stored && head_n + n + foot_n >= SN_MCAPW_DIRECT_BYTES && foot_n <= SN_MCAPW_FOOT_MAX;
    sn_buf_put(&w->chunk, head, head_n);
    if (direct)
        sn_buf_set_u64(&w->chunk, at + 1, w->chunk.n - at - 9 + n + foot_n);
    else {
        if (fd >= 0) { /* a file's bytes into the chunk: read (sn_mcapw_message_file below the mark) */
            if (!sn_buf_reserve(&w->chunk, n))
                return nomem(err);
            for (size_t got = 0; got < n;) {
                ssize_t k = pread(fd, w->chunk.p + w->chunk.n + got, n - got, (off_t)(fd_off + got));
                if (k < 0 && errno == EINTR)
                    continue;
                if (k <= 0)
                    return sn_fail(err, SN_E_IO, "cannot read a message's file: %s",
                                   k ? strerror(errno) : "it is shorter");
                got += (size_t)k;
            }
            w->chunk.n += n;
        } else
            sn_buf_put(&w->chunk, data, n);
        sn_buf_put(&w->chunk, foot, foot_n);
        end_record(&w->chunk, at);
    }
    if (w->chunk.bad || c->index.bad)
        return nomem(err);
    c->count++;
    w->messages++;
    if (!w->chunk_messages++)
        w->chunk_start = w->chunk_end = log_time;
    w->chunk_start = log_time < w->chunk_start ? log_time : w->chunk_start;
    w->chunk_end = log_time > w->chunk_end ? log_time : w->chunk_end;
    if (log_time < w->first_time)
        w->first_time = log_time;
    if (log_time > w->last_time)
        w->last_time = log_time;
    if (direct) { /* written before returning: the caller's bytes are free to go */
        w->tail = data, w->tail_n = n;
        w->tail_crc_known = crc != NULL, w->tail_crc = crc ? *crc : 0;
        w->tail_file = fd >= 0, w->tail_fd = fd, w->tail_off = fd_off;
        if (foot_n)
            memcpy(w->foot, foot, foot_n);
        w->foot_n = foot_n;
        sn_status st = flush_chunk(w, err);
        return st ? st : wait_idle(w, err);
    }
    if (w->chunk.n >= w->chunk_bytes / 2)
        start_prefault(w);
    return w->chunk.n >= w->chunk_bytes ? flush_chunk(w, err) : SN_OK;
}

sn_status sn_mcapw_message(sn_mcapw *w, uint16_t id, uint64_t log_time, const void *data, size_t n, sn_error *err)
{
    return message(w, id, log_time, NULL, 0, data, -1, 0, n, NULL, NULL, 0, err);
}

sn_status sn_mcapw_message_parts(sn_mcapw *w, uint16_t id, uint64_t log_time, const void *head, size_t head_n,
                                 const void *body, size_t body_n, uint32_t body_crc, const void *foot, size_t foot_n,
                                 sn_error *err)
{
    if (foot_n > SN_MCAPW_FOOT_MAX)
        return sn_fail(err, SN_E_INVALID, "mcap: a message's foot of %zu bytes (at most %d)", foot_n, SN_MCAPW_FOOT_MAX);
    return message(w, id, log_time, head, head_n, body, -1, 0, body_n, &body_crc, foot, foot_n, err);
}

sn_status sn_mcapw_message_file(sn_mcapw *w, uint16_t id, uint64_t log_time, const void *head, size_t head_n, int fd,
                                uint64_t off, size_t body_n, uint32_t body_crc, const void *foot, size_t foot_n,
                                sn_error *err)
{
    if (foot_n > SN_MCAPW_FOOT_MAX || fd < 0)
        return sn_fail(err, SN_E_INVALID, "mcap: a message's foot of %zu bytes (at most %d) or no file", foot_n,
                       SN_MCAPW_FOOT_MAX);
    return message(w, id, log_time, head, head_n, NULL, fd, off, body_n, &body_crc, foot, foot_n, err);
}

/* The summary's Statistics record: messages, schemas, channels, chunks, the time span and each
** channel's message count. */
static void statistics_record(sn_buf *b, const sn_mcapw *w)
{
    begin_record(b, OP_STATISTICS);
    sn_buf_u64(b, w->messages);
    sn_buf_u16(b, (uint16_t)w->n_schemas);
    sn_buf_u32(b, (uint32_t)w->n_channels);
    sn_buf_u32(b, 0); /* attachments */
    sn_buf_u32(b, 0); /* metadata */
    sn_buf_u32(b, (uint32_t)w->n_chunks);
    sn_buf_u64(b, w->messages ? w->first_time : 0);
    sn_buf_u64(b, w->messages ? w->last_time : 0);
    size_t n = 0;
    for (size_t i = 0; i < w->n_channels; i++)
        n += w->channels[i].count ? 10 : 0;
    sn_buf_u32(b, (uint32_t)n);
    for (size_t i = 0; i < w->n_channels; i++)
        if (w->channels[i].count) {
            sn_buf_u16(b, (uint16_t)i);
            sn_buf_u64(b, w->channels[i].count);
        }
    end_record(b, 0);
}

/* The summary's Chunk Index records, one a chunk written. */
static void chunk_index_records(sn_buf *b, const sn_mcapw *w)
{
    for (size_t i = 0; i < w->n_chunks; i++) {
        const chunk_index *ci = &w->chunks[i];
        size_t at = b->n;
        begin_record(b, OP_CHUNK_INDEX);
        sn_buf_u64(b, ci->start);
        sn_buf_u64(b, ci->end);
        sn_buf_u64(b, ci->offset);
        sn_buf_u64(b, ci->length);
        sn_buf_u32(b, (uint32_t)ci->offsets_n);
        sn_buf_put(b, ci->offsets, ci->offsets_n);
        sn_buf_u64(b, ci->index_length);
        sn_buf_str(b, ci->zstd ? "zstd" : "");
        sn_buf_u64(b, ci->compressed);
        sn_buf_u64(b, ci->uncompressed);
        end_record(b, at);
    }
}

sn_status sn_mcapw_finish(sn_mcapw *w, sn_error *err)
{
    sn_status st = flush_chunk(w, err);
    if (!st)
        st = wait_idle(w, err); /* every chunk written: the file is the filler's again */
    if (st)
        return st;
    w->rec.n = 0;
    begin_record(&w->rec, OP_DATA_END);
    sn_buf_u32(&w->rec, 0);
    end_record(&w->rec, 0);
    sn_buf_set_u32(&w->rec, 9, w->data_crc);
    if ((st = write_rec(w, err)))
        return st;
    w->in_data = false;
    uint64_t summary_start = w->off;
    uint32_t crc = 0;
    /* the summary: groups of records, each group's place noted for the offset section */
    uint64_t group_start[4], group_len[4];
    const uint8_t group_op[4] = {OP_SCHEMA, OP_CHANNEL, OP_STATISTICS, OP_CHUNK_INDEX};
    for (int g = 0; g < 4; g++) {
        w->rec.n = 0;
        if (g == 0)
            for (size_t i = 0; i < w->n_schemas; i++)
                schema_record(&w->rec, (uint16_t)(i + 1), &w->schemas[i]);
        if (g == 1)
            for (size_t i = 0; i < w->n_channels; i++)
                channel_record(&w->rec, (uint16_t)i, &w->channels[i]);
        if (g == 2)
            statistics_record(&w->rec, w);
        if (g == 3)
            chunk_index_records(&w->rec, w);
        group_start[g] = w->off;
        group_len[g] = w->rec.n;
        if (w->rec.bad)
            return nomem(err);
        crc = libdeflate_crc32(crc, w->rec.p, w->rec.n);
        if ((st = write_rec(w, err)))
            return st;
    }
    uint64_t offsets_start = w->off;
    w->rec.n = 0;
    for (int g = 0; g < 4; g++) {
        if (!group_len[g])
            continue;
        size_t at = w->rec.n;
        begin_record(&w->rec, OP_SUMMARY_OFFSET);
        sn_buf_u8(&w->rec, group_op[g]);
        sn_buf_u64(&w->rec, group_start[g]);
        sn_buf_u64(&w->rec, group_len[g]);
        end_record(&w->rec, at);
    }
    /* the footer; its CRC covers the summary through the footer's summary_offset_start */
    size_t foot = w->rec.n;
    begin_record(&w->rec, OP_FOOTER);
    sn_buf_u64(&w->rec, summary_start);
    sn_buf_u64(&w->rec, offsets_start);
    end_record(&w->rec, foot);
    sn_buf_set_u64(&w->rec, foot + 1, 20);
    if (w->rec.bad)
        return nomem(err);
    crc = libdeflate_crc32(crc, w->rec.p, w->rec.n);
    sn_buf_u32(&w->rec, crc);
    sn_buf_put(&w->rec, MAGIC, sizeof MAGIC);
    if ((st = write_rec(w, err)))
        return st;
    if (fflush(w->f) != 0)
        return sn_fail(err, SN_E_IO, "cannot write: %s", strerror(errno));
    return SN_OK;
}

bool sn_mcapw_kernel_copy(const sn_mcapw *w, uint64_t dev) { return w->kernel_copy && dev == w->dev; }

uint64_t sn_mcapw_bytes(const sn_mcapw *w)
{
    return atomic_load_explicit(&((sn_mcapw *)w)->shown, memory_order_relaxed);
}

void sn_mcapw_free(sn_mcapw *w)
{
    if (!w)
        return;
    stop_compressor(w);
    for (int i = 0; i < SN_MCAPW_QUEUE; i++) {
        sn_buf_free(&w->jobs[i].chunk);
        sn_buf_free(&w->jobs[i].idx);
        free(w->jobs[i].ids);
        free(w->jobs[i].rel);
    }
    sn_buf_free(&w->zrec);
    for (size_t i = 0; i < w->n_schemas; i++)
        free(w->schemas[i].name), free(w->schemas[i].encoding), free(w->schemas[i].data);
    for (size_t i = 0; i < w->n_channels; i++)
        free(w->channels[i].topic), free(w->channels[i].encoding), sn_buf_free(&w->channels[i].index);
    for (size_t i = 0; i < w->n_chunks; i++)
        free(w->chunks[i].offsets);
    free(w->schemas);
    free(w->channels);
    free(w->chunks);
    free(w->chunk_channels);
    free(w->z);
    sn_buf_free(&w->chunk);
    sn_buf_free(&w->rec);
    ZSTD_freeCCtx(w->zc);
    free(w);
}
