/* buf.c — the byte buffer and protobuf writers of buf.h. */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

void sn_buf_free(sn_buf *b)
{
    free(b->p);
    *b = (sn_buf){0};
}

bool sn_buf_reserve(sn_buf *b, size_t more)
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

static void le(sn_buf *b, uint64_t v, int bytes)
{
    if (!sn_buf_reserve(b, (size_t)bytes))
        return;
    for (int i = 0; i < bytes; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

void sn_buf_u8(sn_buf *b, uint8_t v) { le(b, v, 1); }
void sn_buf_u16(sn_buf *b, uint16_t v) { le(b, v, 2); }
void sn_buf_u32(sn_buf *b, uint32_t v) { le(b, v, 4); }
void sn_buf_u64(sn_buf *b, uint64_t v) { le(b, v, 8); }

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

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static void varint_at(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p = (uint8_t)v;
}

void pb_varint(sn_buf *b, uint64_t v)
{
    size_t n = varint_size(v);
    if (sn_buf_reserve(b, n)) {
        varint_at(b->p + b->n, v);
        b->n += n;
    }
}

void pb_tag(sn_buf *b, uint32_t field, uint32_t wire) { pb_varint(b, (uint64_t)field << 3 | wire); }

void pb_uint(sn_buf *b, uint32_t field, uint64_t v)
{
    if (v) {
        pb_tag(b, field, 0);
        pb_varint(b, v);
    }
}

void pb_bool(sn_buf *b, uint32_t field, bool v) { pb_uint(b, field, v); }

void pb_double(sn_buf *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (bits) {
        pb_tag(b, field, 1);
        le(b, bits, 8);
    }
}

void pb_fixed32(sn_buf *b, uint32_t field, uint32_t v)
{
    if (v) {
        pb_tag(b, field, 5);
        le(b, v, 4);
    }
}

void pb_bytes(sn_buf *b, uint32_t field, const void *data, size_t n)
{
    if (n) {
        pb_tag(b, field, 2);
        pb_varint(b, n);
        sn_buf_put(b, data, n);
    }
}

void pb_string(sn_buf *b, uint32_t field, const char *s) { pb_bytes(b, field, s, strlen(s)); }

size_t pb_begin(sn_buf *b) { return b->n; }

void pb_end(sn_buf *b, uint32_t field, size_t mark)
{
    if (b->bad)
        return;
    size_t len = b->n - mark, key = (uint64_t)field << 3 | 2;
    size_t head = varint_size(key) + varint_size(len);
    if (!sn_buf_reserve(b, head))
        return;
    memmove(b->p + mark + head, b->p + mark, len);
    varint_at(b->p + mark, key);
    varint_at(b->p + mark + varint_size(key), len);
    b->n += head;
}

void pb_time(sn_buf *b, uint32_t field, uint64_t ns)
{
    size_t m = pb_begin(b);
    pb_uint(b, 1, ns / 1000000000u);
    pb_uint(b, 2, ns % 1000000000u);
    pb_end(b, field, m);
}
