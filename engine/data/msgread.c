/* msgread.c — see msgread.h. */
#include "msgread.h"

#include "../core/error.h"
#include "../core/infile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

sn_scan_result sn_msgpack_scan(const uint8_t *buf, size_t len, size_t *used, const char **why)
{
    uint64_t left[SN_MSG_MAX_DEPTH + 1]; /* objects still to read in each open container */
    int depth = 0;
    left[0] = 1;
    size_t at = 0;
    uint64_t objects = 0;
    while (depth > 0 || left[0] > 0) {
        if (left[depth] == 0) {
            depth--;
            continue;
        }
        left[depth]--;
        if (++objects > SN_MSG_MAX_OBJECTS) {
            *why = "more objects in one message than the limit of 2^24";
            return SN_SCAN_BAD;
        }
        if (at >= len)
            return SN_SCAN_SHORT;
        uint8_t t = buf[at];
        size_t head = 1;
        uint64_t payload = 0, children = 0;
        bool container = false;
        if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
        } else if (t >= 0x80 && t <= 0x8f) {
            children = 2u * (t & 0x0f), container = true;
        } else if (t >= 0x90 && t <= 0x9f) {
            children = t & 0x0f, container = true;
        } else if (t >= 0xa0 && t <= 0xbf) {
            payload = t & 0x1f;
        } else {
            static const struct { uint8_t tag; uint8_t len_bytes, fixed, kind; } tab[] = {
                /* kind: 0 fixed payload, 1 bin/str/ext length, 2 array, 3 map; ext adds a type byte */
                {0xc4, 1, 0, 1}, {0xc5, 2, 0, 1}, {0xc6, 4, 0, 1}, {0xc7, 1, 1, 1}, {0xc8, 2, 1, 1},
                {0xc9, 4, 1, 1}, {0xca, 0, 4, 0}, {0xcb, 0, 8, 0}, {0xcc, 0, 1, 0}, {0xcd, 0, 2, 0},
                {0xce, 0, 4, 0}, {0xcf, 0, 8, 0}, {0xd0, 0, 1, 0}, {0xd1, 0, 2, 0}, {0xd2, 0, 4, 0},
                {0xd3, 0, 8, 0}, {0xd4, 0, 2, 0}, {0xd5, 0, 3, 0}, {0xd6, 0, 5, 0}, {0xd7, 0, 9, 0},
                {0xd8, 0, 17, 0}, {0xd9, 1, 0, 1}, {0xda, 2, 0, 1}, {0xdb, 4, 0, 1}, {0xdc, 2, 0, 2},
                {0xdd, 4, 0, 2}, {0xde, 2, 0, 3}, {0xdf, 4, 0, 3},
            };
            size_t k = 0;
            while (k < sizeof tab / sizeof tab[0] && tab[k].tag != t)
                k++;
            if (k == sizeof tab / sizeof tab[0]) {
                *why = "not msgpack (the reserved byte 0xc1)";
                return SN_SCAN_BAD;
            }
            head = 1 + tab[k].len_bytes;
            if (at + head > len)
                return SN_SCAN_SHORT;
            uint64_t n = be(buf + at + 1, tab[k].len_bytes);
            if (tab[k].kind == 0)
                payload = tab[k].fixed;
            else if (tab[k].kind == 1)
                payload = n + tab[k].fixed; /* ext: the type byte */
            else
                children = tab[k].kind == 2 ? n : 2 * n, container = true;
        }
        if (payload > SN_MSG_MAX_BYTES) {
            *why = "a value larger than the limit of 1 GiB";
            return SN_SCAN_BAD;
        }
        if (at + head + payload > len)
            return SN_SCAN_SHORT;
        at += head + (size_t)payload;
        /* msgpack-c's reader holds SN_MSG_MAX_DEPTH open containers, empty ones counted */
        if (container && depth == SN_MSG_MAX_DEPTH) {
            *why = "nested deeper than 32 levels";
            return SN_SCAN_BAD;
        }
        if (children) {
            /* every entry takes at least one byte: a count beyond the limit can never be whole */
            if (children > SN_MSG_MAX_OBJECTS) {
                *why = "a container claims more entries than the limit of 2^24 objects";
                return SN_SCAN_BAD;
            }
            left[++depth] = children;
        }
    }
    *used = at;
    return SN_SCAN_OK;
}

sn_status sn_msgreader_open(sn_msgreader *r, const char *path, sn_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    /* a FIFO, folder or device named as a stream is refused without blocking */
    if (!(r->f = sn_open_input(path, "stream", err)))
        return SN_E_IO;
    return SN_OK;
}

sn_status sn_msgreader_open_mapped(sn_msgreader *r, const char *path, sn_error *err)
{
    sn_status st = sn_msgreader_open(r, path, err);
    if (st)
        return st;
    struct stat sb;
    if (fstat(fileno(r->f), &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0 || (uint64_t)sb.st_size > SIZE_MAX)
        return SN_OK;
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fileno(r->f), 0);
    if (p == MAP_FAILED)
        return SN_OK; /* read as usual */
    r->buf = p;
    r->cap = r->end = (size_t)sb.st_size;
    r->eof = r->mapped = true;
    return SN_OK;
}

void sn_msgreader_close(sn_msgreader *r)
{
    if (r->f)
        fclose(r->f);
    if (r->mapped)
        munmap(r->buf, r->cap);
    else
        free(r->buf);
    memset(r, 0, sizeof *r);
}

/* Reads more of the file after buf[end], keeping buf[start..end). */
static sn_status fill(sn_msgreader *r, sn_error *err)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end == r->cap) {
        if (r->cap >= SN_MSG_MAX_BYTES + 16)
            return sn_fail(err, SN_E_INVALID, "%s: corrupt stream: message %llu at byte %llu is larger than the limit "
                           "of 1 GiB", r->path, (unsigned long long)r->count + 1, (unsigned long long)r->offset);
        size_t nc = r->cap ? r->cap * 2 : 1 << 16;
        if (nc > SN_MSG_MAX_BYTES + 16)
            nc = SN_MSG_MAX_BYTES + 16;
        uint8_t *nb = realloc(r->buf, nc);
        if (!nb)
            return sn_fail(err, SN_E_NOMEM, "%s: out of memory for a message of %zu bytes", r->path, nc);
        r->buf = nb;
        r->cap = nc;
    }
    size_t n = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
    r->end += n;
    if (n == 0) {
        if (ferror(r->f))
            return sn_fail(err, SN_E_IO, "%s: cannot read: %s", r->path, strerror(errno));
        r->eof = true;
    }
    return SN_OK;
}

sn_status sn_msgreader_next(sn_msgreader *r, const uint8_t **msg, size_t *len, sn_error *err)
{
    for (;;) {
        const char *why = NULL;
        size_t used = 0;
        sn_scan_result sr = r->end > r->start ? sn_msgpack_scan(r->buf + r->start, r->end - r->start, &used, &why)
                                              : SN_SCAN_SHORT;
        if (sr == SN_SCAN_OK && r->mapped && used > SN_MSG_MAX_BYTES) /* fill()'s limit, as it says it */
            return sn_fail(err, SN_E_INVALID, "%s: corrupt stream: message %llu at byte %llu is larger than the limit "
                           "of 1 GiB", r->path, (unsigned long long)r->count + 1, (unsigned long long)r->offset);
        if (sr == SN_SCAN_OK) {
            *msg = r->buf + r->start;
            *len = used;
            r->start += used;
            r->offset += used;
            r->count++;
            return SN_OK;
        }
        if (sr == SN_SCAN_BAD)
            return sn_fail(err, SN_E_INVALID, "%s: corrupt stream: %s (message %llu at byte %llu)", r->path, why,
                           (unsigned long long)r->count + 1, (unsigned long long)r->offset);
        if (r->eof) {
            if (r->end == r->start)
                return SN_E_NOT_FOUND;
            return sn_fail(err, SN_E_INVALID, "%s: truncated stream: the message is incomplete (message %llu at byte %llu)",
                           r->path, (unsigned long long)r->count + 1, (unsigned long long)r->offset);
        }
        sn_status st = fill(r, err);
        if (st)
            return st;
    }
}
