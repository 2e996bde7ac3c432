/*
** sensim/pack.h — msgpack encoding into a growable buffer, header-only (no library needed).
**
** The engine's writer encodes every message with these. A plugin uses them to encode once a
** value it writes many times in a frame (a V2X CAM heard by hundreds of stations) and hands
** the bytes to host->write_packed, which checks and copies them: one call instead of one per
** item. The bytes are those msgpack-c 4 writes (the smallest form of every integer, str8 for
** 32..255-byte strings, big-endian floats); tests/unit/test_pack.c checks it byte for byte.
**
** Ownership: the buffer's memory is the caller's, grown with realloc, freed by sn_pack_free.
** Every function returns false when memory runs out; the buffer then keeps what it had.
*/
#ifndef SENSIM_PACK_H
#define SENSIM_PACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Zero-initialise ({0}) before first use. */
typedef struct sn_pack_buf {
    unsigned char *data;
    size_t size; /* bytes written */
    size_t cap;  /* bytes allocated */
} sn_pack_buf;

static inline void sn_pack_clear(sn_pack_buf *b) { b->size = 0; }

static inline void sn_pack_free(sn_pack_buf *b)
{
    free(b->data);
    b->data = NULL, b->size = b->cap = 0;
}

/* Room for n more bytes at the end of b, or NULL out of memory (b->size is not advanced). */
static inline unsigned char *sn_pack_room(sn_pack_buf *b, size_t n)
{
    if (b->cap - b->size < n) {
        size_t cap = b->cap ? b->cap : 8192;
        while (cap - b->size < n) {
            if (cap > SIZE_MAX / 2)
                return NULL;
            cap *= 2;
        }
        unsigned char *d = realloc(b->data, cap);
        if (!d)
            return NULL;
        b->data = d, b->cap = cap;
    }
    return b->data + b->size;
}

/* Writes n bytes of p; false out of memory. */
static inline bool sn_pack_raw(sn_pack_buf *b, const void *p, size_t n)
{
    unsigned char *d = sn_pack_room(b, n);
    if (!d)
        return false;
    if (n)
        memcpy(d, p, n);
    b->size += n;
    return true;
}

static inline void sn_pack_be(unsigned char *d, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        d[i] = (unsigned char)v;
}

/* A tag byte then `bytes` big-endian bytes of v. */
static inline bool sn_pack_tagged(sn_pack_buf *b, unsigned char tag, uint64_t v, int bytes)
{
    unsigned char *d = sn_pack_room(b, 9);
    if (!d)
        return false;
    d[0] = tag;
    sn_pack_be(d + 1, v, bytes);
    b->size += 1 + (size_t)bytes;
    return true;
}

static inline bool sn_pack_byte(sn_pack_buf *b, unsigned char c)
{
    unsigned char *d = sn_pack_room(b, 1);
    if (!d)
        return false;
    d[0] = c;
    b->size++;
    return true;
}

static inline bool sn_pack_nil(sn_pack_buf *b) { return sn_pack_byte(b, 0xc0); }
static inline bool sn_pack_bool(sn_pack_buf *b, bool v) { return sn_pack_byte(b, v ? 0xc3 : 0xc2); }

static inline bool sn_pack_uint(sn_pack_buf *b, uint64_t v)
{
    if (v < 128)
        return sn_pack_byte(b, (unsigned char)v);
    if (v < 256)
        return sn_pack_tagged(b, 0xcc, v, 1);
    if (v < 65536)
        return sn_pack_tagged(b, 0xcd, v, 2);
    if (v < 4294967296ull)
        return sn_pack_tagged(b, 0xce, v, 4);
    return sn_pack_tagged(b, 0xcf, v, 8);
}

static inline bool sn_pack_int(sn_pack_buf *b, int64_t v)
{
    if (v >= -32)
        return v < 128 ? sn_pack_byte(b, (unsigned char)(v & 0xff)) : sn_pack_uint(b, (uint64_t)v);
    if (v >= -128)
        return sn_pack_tagged(b, 0xd0, (uint64_t)v, 1);
    if (v >= -32768)
        return sn_pack_tagged(b, 0xd1, (uint64_t)v, 2);
    if (v >= -2147483648ll)
        return sn_pack_tagged(b, 0xd2, (uint64_t)v, 4);
    return sn_pack_tagged(b, 0xd3, (uint64_t)v, 8);
}

static inline bool sn_pack_float(sn_pack_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return sn_pack_tagged(b, 0xca, u, 4);
}

static inline bool sn_pack_double(sn_pack_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return sn_pack_tagged(b, 0xcb, u, 8);
}

/* A container or string header: the fix form below `fix_limit`, else 16 or 32 bits (tags). */
static inline bool sn_pack_len(sn_pack_buf *b, uint32_t n, unsigned char fix, uint32_t fix_limit,
                               unsigned char t16, unsigned char t32)
{
    if (n < fix_limit)
        return sn_pack_byte(b, (unsigned char)(fix | n));
    return n < 65536 ? sn_pack_tagged(b, t16, n, 2) : sn_pack_tagged(b, t32, n, 4);
}

static inline bool sn_pack_array(sn_pack_buf *b, uint32_t n) { return sn_pack_len(b, n, 0x90, 16, 0xdc, 0xdd); }
static inline bool sn_pack_map(sn_pack_buf *b, uint32_t n) { return sn_pack_len(b, n, 0x80, 16, 0xde, 0xdf); }

static inline bool sn_pack_str(sn_pack_buf *b, const char *s, size_t n)
{
    unsigned char *d = sn_pack_room(b, n + 5);
    if (!d || n > UINT32_MAX)
        return false;
    size_t h;
    if (n < 32)
        d[0] = (unsigned char)(0xa0 | n), h = 1;
    else if (n < 256)
        d[0] = 0xd9, d[1] = (unsigned char)n, h = 2;
    else if (n < 65536)
        d[0] = 0xda, sn_pack_be(d + 1, n, 2), h = 3;
    else
        d[0] = 0xdb, sn_pack_be(d + 1, n, 4), h = 5;
    if (n)
        memcpy(d + h, s, n);
    b->size += h + n;
    return true;
}

/* A NUL-terminated string (a map key). */
static inline bool sn_pack_cstr(sn_pack_buf *b, const char *s) { return sn_pack_str(b, s, strlen(s)); }

/* A bin header; the body follows with sn_pack_raw. */
static inline bool sn_pack_bin_header(sn_pack_buf *b, uint32_t n)
{
    if (n < 256)
        return sn_pack_tagged(b, 0xc4, n, 1);
    return n < 65536 ? sn_pack_tagged(b, 0xc5, n, 2) : sn_pack_tagged(b, 0xc6, n, 4);
}

#endif /* SENSIM_PACK_H */
