/*
** reader.c — sn_log_reader for sensim recordings: open (header, then the index at the end,
** or a scan of the frames when the index is missing or damaged), describe, seek, next.
**
** Seeking reads the index (binary search on elapsed), then only the frames flagged as having
** actor events before the last key frame, then decodes from that key frame forward: never a
** linear scan of the file. A frame is read whole and its CRC-32 checked before decoding.
*/
#include "format.h"
#include "reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sensim/search.h>

static bool probe(const void *head, size_t n)
{
    return n >= REC_MAGIC_LEN && memcmp(head, REC_MAGIC, REC_MAGIC_LEN) == 0;
}

/* snprintf through a va_list: messages may be cut, on purpose, without a truncation warning. */
static void say(char *dst, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static sn_status fail(char *why, size_t n, sn_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return st;
}

static bool read_at(rd_reader *r, uint64_t off, void *buf, size_t n)
{
    if (off > r->size || n > r->size - off)
        return false;
    return fseeko(r->f, (off_t)off, SEEK_SET) == 0 && fread(buf, 1, n, r->f) == n;
}

/* Reads frame head + payload at `off` into r->payload; checks tag, length and CRC.
** Returns 0 when good, 1 truncated, 2 damaged (why in r->err), 3 not a frame tag. */
static int load_frame(rd_reader *r, uint64_t off, uint64_t limit)
{
    uint8_t h[REC_FRAME_HEAD];
    if (off + REC_FRAME_HEAD > limit || !read_at(r, off, h, sizeof h))
        return 1;
    if (rec_load_u32(h) != REC_FRAME_TAG)
        return 3;
    uint32_t len = rec_load_u32(h + 4), crc = rec_load_u32(h + 8);
    if (len > REC_MAX_FRAME) {
        snprintf(r->err, sizeof r->err, "byte %llu: a frame of %u bytes is not believable",
                 (unsigned long long)off, len);
        return 2;
    }
    if (off + REC_FRAME_HEAD + len > limit)
        return 1;
    if (!sn_grow_array((void **)&r->payload, &r->cap_payload, (size_t)len + 1, 1)) {
        snprintf(r->err, sizeof r->err, "out of memory for a frame of %u bytes", len);
        return 2;
    }
    if (!read_at(r, off + REC_FRAME_HEAD, r->payload, len))
        return 1;
    if (rec_crc32(r->payload, len) != crc) {
        snprintf(r->err, sizeof r->err, "byte %llu: checksum mismatch", (unsigned long long)off);
        return 2;
    }
    r->payload_len = len;
    return 0;
}

/* The frame index, when the file was closed properly: trailer -> index block. */
static bool read_index(rd_reader *r)
{
    uint8_t t[16];
    if (r->size < r->data_start + 32 || !read_at(r, r->size - 16, t, 16) || memcmp(t + 8, REC_TRAILER_MAGIC, 8))
        return false;
    uint64_t at = rec_load_u64(t);
    uint8_t h[16];
    if (at < r->data_start || at > r->size - 32 || !read_at(r, at, h, 16) || rec_load_u32(h) != REC_INDEX_TAG)
        return false;
    uint64_t len = rec_load_u64(h + 4);
    if (len != r->size - 16 - at - 16)
        return false;
    uint8_t *body = malloc(len ? len : 1);
    if (!body || !read_at(r, at + 16, body, len) || rec_crc32(body, len) != rec_load_u32(h + 12)) {
        free(body);
        return false;
    }
    rec_cur c = {body, body + len, false};
    uint32_t n = rc_count(&c, REC_INDEX_ENTRY);
    bool ok = !c.bad && sn_grow_array((void **)&r->idx, &r->cap_idx, (size_t)n + 1, sizeof *r->idx);
    for (uint32_t i = 0; ok && i < n; i++) {
        rd_entry e;
        e.frame = rc_u64(&c), e.elapsed = rc_f64(&c), e.duration = rc_f64(&c), e.offset = rc_u64(&c);
        e.flags = rc_u8(&c);
        const rd_entry *p = i ? &r->idx[i - 1] : NULL;
        /* Offsets and frames ascend, times never go back: else the index is not trusted. */
        ok = !c.bad && e.offset >= r->data_start && e.offset < at && (!p || (e.offset > p->offset &&
             e.frame > p->frame && e.elapsed >= p->elapsed)) && e.elapsed == e.elapsed;
        if (ok)
            r->idx[i] = e;
    }
    free(body);
    if (!ok || c.p != c.end)
        return false;
    r->n_idx = n;
    r->end = SN_LOG_END_COMPLETE;
    r->end_offset = at;
    return true;
}

/* No usable index: walk the frames from the start, checking each one. */
static sn_status scan(rd_reader *r)
{
    r->n_idx = 0;
    r->rebuilt = true;
    uint64_t off = r->data_start;
    for (;;) {
        int k = load_frame(r, off, r->size);
        if (k == 0) {
            rec_cur c = {r->payload, r->payload + r->payload_len, false};
            uint64_t pid = rc_varint(&c);
            rc_varint(&c);
            rd_entry e = {0, off, 0, 0, 0};
            e.frame = rc_varint(&c), e.elapsed = rc_f64(&c), e.duration = rc_f64(&c), e.flags = rc_u8(&c);
            const rd_entry *p = r->n_idx ? &r->idx[r->n_idx - 1] : NULL;
            if (c.bad || pid != REC_P_FRAME_START || !(e.elapsed == e.elapsed) ||
                (p && (e.frame <= p->frame || e.elapsed < p->elapsed))) {
                r->end = SN_LOG_END_DAMAGED;
                snprintf(r->end_reason, sizeof r->end_reason, "the frame at byte %llu has a bad FrameStart",
                         (unsigned long long)off);
                break;
            }
            if (!sn_grow_array((void **)&r->idx, &r->cap_idx, r->n_idx + 1, sizeof *r->idx)) {
                snprintf(r->err, sizeof r->err, "out of memory");
                return SN_E_NOMEM;
            }
            r->idx[r->n_idx++] = e;
            off += REC_FRAME_HEAD + r->payload_len;
            continue;
        }
        const char *after = r->n_idx ? "after frame " : "before the first frame";
        char last[32] = "";
        if (r->n_idx)
            snprintf(last, sizeof last, "%llu", (unsigned long long)r->idx[r->n_idx - 1].frame);
        if (k == 1 && off == r->size) {
            r->end = SN_LOG_END_TRUNCATED;
            snprintf(r->end_reason, sizeof r->end_reason,
                     "the file ends at byte %llu %s%s without its index (the run did not close it)",
                     (unsigned long long)off, after, last);
        } else if (k == 1) {
            r->end = SN_LOG_END_TRUNCATED;
            snprintf(r->end_reason, sizeof r->end_reason, "the file ends inside the frame at byte %llu %s%s",
                     (unsigned long long)off, after, last);
        } else if (k == 3) {
            uint8_t h[4];
            bool index = read_at(r, off, h, 4) && rec_load_u32(h) == REC_INDEX_TAG;
            r->end = index ? SN_LOG_END_TRUNCATED : SN_LOG_END_DAMAGED;
            snprintf(r->end_reason, sizeof r->end_reason, index ? "the index at byte %llu is damaged; rebuilt by a scan"
                     : "no frame starts at byte %llu %s%s", (unsigned long long)off, after, last);
        } else {
            r->end = SN_LOG_END_DAMAGED;
            say(r->end_reason, sizeof r->end_reason, "the frame %s%s fails its check (%s)", after, last, r->err);
        }
        break;
    }
    r->end_offset = off;
    return SN_OK;
}

static void close_reader(void *self);

static sn_status open_reader(const char *path, void **out, char *why, size_t why_n)
{
    *out = NULL;
    rd_reader *r = calloc(1, sizeof *r);
    if (!r)
        return fail(why, why_n, SN_E_NOMEM, "out of memory");
    if (!(r->f = fopen(path, "rb"))) {
        int e = errno;
        free(r);
        return fail(why, why_n, SN_E_IO, "cannot open: %s", strerror(e));
    }
    sn_status st = SN_OK;
    uint8_t h[16];
    if (fseeko(r->f, 0, SEEK_END) != 0 || (r->size = (uint64_t)ftello(r->f)) < 16 || !read_at(r, 0, h, 16) ||
        !probe(h, 16)) {
        st = fail(why, why_n, SN_E_INVALID, "not a sensim recording (no SNREC header)");
        goto out;
    }
    r->vmajor = rec_load_u32(h + 8) & 0xffff;
    r->vminor = rec_load_u32(h + 8) >> 16;
    uint32_t hlen = rec_load_u32(h + 12);
    if (r->vmajor != REC_VERSION_MAJOR) {
        st = fail(why, why_n, SN_E_INVALID, "recording format version %u.%u; this reader reads %d.x", r->vmajor,
                  r->vminor, REC_VERSION_MAJOR);
        goto out;
    }
    uint8_t *body = hlen <= 65536 ? malloc(hlen + 4u) : NULL;
    if (!body || !read_at(r, 16, body, hlen + 4u) || rec_crc32(body, hlen) != rec_load_u32(body + hlen)) {
        free(body);
        st = fail(why, why_n, SN_E_INVALID, "the recording's header is damaged or cut off");
        goto out;
    }
    rec_cur c = {body, body + hlen, false};
    size_t slen;
    const uint8_t *s = rc_str(&c, &slen);
    r->date = (int64_t)rc_u64(&c);
    r->seed = rc_u64(&c);
    r->dt = rc_f64(&c);
    r->hflags = rc_u8(&c);
    rc_varint(&c);
    size_t mlen = 0, hlen2 = 0;
    const uint8_t *ms = NULL, *hs = NULL;
    if (r->vminor >= 4) { /* the map and its hash */
        ms = rc_str(&c, &mlen);
        hs = rc_str(&c, &hlen2);
    }
    if (!c.bad && (r->scene = malloc(slen + 1))) {
        memcpy(r->scene, s, slen);
        r->scene[slen] = 0;
    }
    if (!c.bad && (r->map = malloc(mlen + 1)) && (r->map_sha = malloc(hlen2 + 1))) {
        if (mlen)
            memcpy(r->map, ms, mlen);
        if (hlen2)
            memcpy(r->map_sha, hs, hlen2);
        r->map[mlen] = 0, r->map_sha[hlen2] = 0;
    }
    free(body);
    if (c.bad || !r->scene || !r->map || !r->map_sha || !(r->dt > 0 && r->dt < 1e6)) {
        st = fail(why, why_n, SN_E_INVALID, "the recording's header is malformed");
        goto out;
    }
    r->data_start = 16 + (uint64_t)hlen + 4;
    if (!read_index(r) && (st = scan(r)) != SN_OK) {
        fail(why, why_n, st, "%s", r->err);
        goto out;
    }
    r->snapshot = true;
out:
    if (st) {
        close_reader(r);
        return st;
    }
    *out = r;
    return SN_OK;
}

static void close_reader(void *self)
{
    rd_reader *r = self;
    if (!r)
        return;
    rd_state_clear(r);
    if (r->f)
        fclose(r->f);
    free(r->scene), free(r->map), free(r->map_sha), free(r->idx), free(r->payload), free(r->live), free(r->dead);
    ch_free(&r->pos), ch_free(&r->spos), ch_free(&r->kin);
    free(r->added), free(r->destroyed), free(r->reparented), free(r->collisions), free(r->poses);
    free(r->sensor_poses), free(r->controls), free(r->walkers), free(r->kinematics), free(r->bboxes);
    free(r->lights);
    free(r->vehicles);
    free(r);
}

static sn_status describe(void *self, sn_log_info *out)
{
    rd_reader *r = self;
    /* a host built before 1.4's fields passes a shorter struct: filled up to its size */
    if (!out || out->struct_size < offsetof(sn_log_info, map))
        return SN_E_INVALID;
    uint32_t size = out->struct_size < sizeof *out ? out->struct_size : (uint32_t)sizeof *out;
    memset(out, 0, size);
    out->struct_size = size;
    out->format = "sensim recording";
    out->version_major = r->vmajor, out->version_minor = r->vminor;
    out->scene = r->scene;
    out->date = r->date;
    out->seed = r->seed;
    out->fixed_delta_seconds = r->dt;
    out->additional_data = r->hflags & REC_H_ADDITIONAL;
    out->frames = r->n_idx;
    if (r->n_idx) {
        const rd_entry *l = &r->idx[r->n_idx - 1];
        out->first_frame = r->idx[0].frame, out->last_frame = l->frame;
        out->last_elapsed = l->elapsed;
        out->duration = l->elapsed + l->duration;
    }
    out->file_bytes = r->size;
    out->index_rebuilt = r->rebuilt;
    out->end = r->end;
    out->end_offset = r->end_offset;
    out->end_reason = r->end_reason;
    if (size >= offsetof(sn_log_info, map_sha256) + sizeof out->map_sha256)
        out->map = r->map, out->map_sha256 = r->map_sha;
    return SN_OK;
}

/* Loads and decodes index entry i. */
static sn_status step(rd_reader *r, size_t i, bool events_only)
{
    const rd_entry *e = &r->idx[i];
    int k = load_frame(r, e->offset, r->end == SN_LOG_END_COMPLETE ? r->end_offset : r->size);
    if (k) {
        if (k != 2)
            snprintf(r->err, sizeof r->err, "byte %llu: %s", (unsigned long long)e->offset,
                     k != 1 ? "no frame starts here"
                     /* a closed file's index says where frames end: a frame reaching past it has a
                     ** damaged length, not a cut file */
                     : r->end == SN_LOG_END_COMPLETE ? "the frame's length runs past the recording's end: its header is damaged"
                                                     : "the file ends inside this frame");
        char tmp[sizeof r->err];
        say(tmp, sizeof tmp, "frame %llu: %s", (unsigned long long)e->frame, r->err);
        memcpy(r->err, tmp, sizeof tmp);
        return SN_E_INVALID;
    }
    return rd_decode(r, e, events_only);
}

typedef struct time_probe {
    const rd_entry *idx;
    double t;
} time_probe;

static bool elapsed_at_most(const void *ctx, size_t i)
{
    const time_probe *p = ctx;
    return p->idx[i].elapsed <= p->t;
}

static sn_status seek(void *self, double time)
{
    rd_reader *r = self;
    rd_state_clear(r);
    r->cursor = r->decoded = 0;
    r->snapshot = true;
    if (!r->n_idx)
        return SN_OK;
    /* first entry with elapsed > time */
    size_t lo = sn_search_first(0, r->n_idx, &(time_probe){r->idx, time + 1e-9}, elapsed_at_most);
    size_t target = lo ? lo - 1 : 0, key = target;
    while (key > 0 && !(r->idx[key].flags & REC_F_KEY))
        key--;
    sn_status st;
    for (size_t i = 0; i < key; i++)
        if ((r->idx[i].flags & REC_F_EVENTS) && (st = step(r, i, true)))
            return st;
    for (size_t i = key; i < target; i++)
        if ((st = step(r, i, false)))
            return st;
    rd_free_dead(r);
    r->cursor = target;
    return SN_OK;
}

static sn_status next(void *self, const sn_log_frame **out)
{
    rd_reader *r = self;
    *out = NULL;
    rd_free_dead(r);
    if (r->cursor >= r->n_idx)
        return SN_E_NOT_FOUND;
    sn_status st = step(r, r->cursor, false);
    if (st)
        return st;
    r->cursor++;
    if (r->snapshot) { /* the first frame after open/seek lists every live actor as added */
        r->snapshot = false;
        r->n_added = 0;
        for (size_t i = 0; i < r->n_live; i++)
            if (!sn_grow_array((void **)&r->added, &r->cap_added, (size_t)r->n_added + 1, sizeof *r->added)) {
                snprintf(r->err, sizeof r->err, "out of memory");
                return SN_E_NOMEM;
            } else {
                r->added[r->n_added++] = r->live[i]->add;
            }
        r->fr.added = r->added, r->fr.n_added = r->n_added;
        r->fr.snapshot = true;
    }
    *out = &r->fr;
    return SN_OK;
}

static const char *error(void *self) { return ((rd_reader *)self)->err; }

const sn_log_reader rec_log_reader = {
    .hdr = SN_ABI_HEADER(sn_log_reader),
    .format = "sensim recording",
    .probe = probe,
    .open = open_reader,
    .close = close_reader,
    .describe = describe,
    .seek = seek,
    .next = next,
    .error = error,
};
