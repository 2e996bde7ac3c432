/* buf.c — the byte buffer and protobuf writers of buf.h. */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

void sn_buf_free(sn_buf *b)
{
    free(b->p);
    *b = (sn_buf){0};
}

bool sn_buf_grow(sn_buf *b, size_t more)
{
    if (b->bad)
        return false;
    if (b->n + more <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->bad = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void sn_buf_put(sn_buf *b, const void *data, size_t n)
{
    if (n && sn_buf_reserve(b, n)) {
        memcpy(b->p + b->n, data, n);
        b->n += n;
    }
}

void sn_buf_str(sn_buf *b, const char *s)
{
    size_t n = strlen(s);
    sn_buf_u32(b, (uint32_t)n);
    sn_buf_put(b, s, n);
}

static void set_le(sn_buf *b, size_t at, uint64_t v, int bytes)
{
    if (b->bad || at + (size_t)bytes > b->n)
        return;
    for (int i = 0; i < bytes; i++)
        b->p[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void sn_buf_set_u32(sn_buf *b, size_t at, uint32_t v) { set_le(b, at, v, 4); }
void sn_buf_set_u64(sn_buf *b, size_t at, uint64_t v) { set_le(b, at, v, 8); }

void pb_bytes(sn_buf *b, uint32_t field, const void *data, size_t n)
{
    if (n) {
        pb_tag(b, field, 2);
        pb_varint(b, n);
        sn_buf_put(b, data, n);
    }
}

void pb_string(sn_buf *b, uint32_t field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

size_t pb_begin(sn_buf *b)
{
    size_t mark = b->n;
    if (sn_buf_reserve(b, 2))
        b->n += 2; /* the tag and length of a short message, written by pb_end */
    return mark;
}

void pb_end(sn_buf *b, uint32_t field, size_t mark)
{
    if (b->bad)
        return;
    size_t len = b->n - mark - 2;
    uint64_t key = (uint64_t)field << 3 | 2;
    size_t head = pb_varint_size(key) + pb_varint_size(len);
    if (head > 2) { /* more than the two bytes pb_begin left */
        if (!sn_buf_reserve(b, head - 2))
            return;
        memmove(b->p + mark + head, b->p + mark + 2, len);
        b->n += head - 2;
    }
    pb_varint_at(b->p + mark, key);
    pb_varint_at(b->p + mark + pb_varint_size(key), len);
}

void pb_time(sn_buf *b, uint32_t field, uint64_t ns)
{
    size_t m = pb_begin(b);
    pb_uint(b, 1, ns / 1000000000u);
    pb_uint(b, 2, ns % 1000000000u);
    pb_end(b, field, m);
}
