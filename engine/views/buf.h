/* buf.h — a growable byte buffer with little-endian and protobuf writers, for the MCAP view.
**
** Writes never fail one by one: an allocation failure sets `bad` and later writes do nothing,
** so a caller checks once when the record or message is done. */
#ifndef SN_VIEWS_BUF_H
#define SN_VIEWS_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sn_buf {
    uint8_t *p;
    size_t n, cap;
    bool bad; /* an allocation failed: the contents are incomplete */
} sn_buf;

void sn_buf_free(sn_buf *b);
/* sn_buf_reserve's slow path: grows the buffer (doubling). */
bool sn_buf_grow(sn_buf *b, size_t more);
/* Room for `more` bytes after n; false (and bad) when it cannot be had. Inline, with the writers
** below: the actors stream of an export writes some 30 fields per actor and frame, and their
** calls and checks were a fifth of the export's own CPU (perf, docs/mcap.md#cost). */
static inline bool sn_buf_reserve(sn_buf *b, size_t more)
{
    if (!b->bad && b->n + more <= b->cap)
        return true;
    return sn_buf_grow(b, more);
}
void sn_buf_put(sn_buf *b, const void *data, size_t n);
/* v as `bytes` little-endian bytes. */
static inline void sn_buf_le(sn_buf *b, uint64_t v, int bytes)
{
    if (!sn_buf_reserve(b, (size_t)bytes))
        return;
    for (int i = 0; i < bytes; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * i));
}
static inline void sn_buf_u8(sn_buf *b, uint8_t v) { sn_buf_le(b, v, 1); }
static inline void sn_buf_u16(sn_buf *b, uint16_t v) { sn_buf_le(b, v, 2); }
static inline void sn_buf_u32(sn_buf *b, uint32_t v) { sn_buf_le(b, v, 4); }
static inline void sn_buf_u64(sn_buf *b, uint64_t v) { sn_buf_le(b, v, 8); }
/* MCAP's string: u32 length, then the bytes. */
void sn_buf_str(sn_buf *b, const char *s);
void sn_buf_set_u32(sn_buf *b, size_t at, uint32_t v);
void sn_buf_set_u64(sn_buf *b, size_t at, uint64_t v);

/*
** Protobuf (proto3 wire format). A nested message: pb_begin leaves two bytes for its tag and
** length and returns a mark, the fields follow, pb_end writes the tag and length there (moving
** the fields up only when the two varints take more than two bytes: a message of 128 bytes or
** more, or a field number above 15), so every length is minimal as protoc's encoders write it.
*/
static inline size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}
static inline void pb_varint_at(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p = (uint8_t)v;
}
static inline void pb_varint(sn_buf *b, uint64_t v)
{
    size_t n = pb_varint_size(v);
    if (sn_buf_reserve(b, n)) {
        pb_varint_at(b->p + b->n, v);
        b->n += n;
    }
}
static inline void pb_tag(sn_buf *b, uint32_t field, uint32_t wire) { pb_varint(b, (uint64_t)field << 3 | wire); }
/* varint, skipped when 0 (proto3) */
static inline void pb_uint(sn_buf *b, uint32_t field, uint64_t v)
{
    if (v) {
        pb_tag(b, field, 0);
        pb_varint(b, v);
    }
}
static inline void pb_bool(sn_buf *b, uint32_t field, bool v) { pb_uint(b, field, v); }
/* fixed64, skipped when +0.0 */
static inline void pb_double(sn_buf *b, uint32_t field, double v)
{
    uint64_t bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    if (bits) {
        pb_tag(b, field, 1);
        sn_buf_le(b, bits, 8);
    }
}
/* skipped when 0 */
static inline void pb_fixed32(sn_buf *b, uint32_t field, uint32_t v)
{
    if (v) {
        pb_tag(b, field, 5);
        sn_buf_le(b, v, 4);
    }
}
void pb_bytes(sn_buf *b, uint32_t field, const void *data, size_t n); /* skipped when empty */
void pb_string(sn_buf *b, uint32_t field, const char *s);
size_t pb_begin(sn_buf *b);
void pb_end(sn_buf *b, uint32_t field, size_t mark);
/* google.protobuf.Timestamp {seconds, nanos} of integer nanoseconds, as field `field`. */
void pb_time(sn_buf *b, uint32_t field, uint64_t ns);

#endif
