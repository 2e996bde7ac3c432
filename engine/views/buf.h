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
/* Room for `more` bytes after n; false (and bad) when it cannot be had. */
bool sn_buf_reserve(sn_buf *b, size_t more);
void sn_buf_put(sn_buf *b, const void *data, size_t n);
void sn_buf_u8(sn_buf *b, uint8_t v);
void sn_buf_u16(sn_buf *b, uint16_t v);
void sn_buf_u32(sn_buf *b, uint32_t v);
void sn_buf_u64(sn_buf *b, uint64_t v);
/* MCAP's string: u32 length, then the bytes. */
void sn_buf_str(sn_buf *b, const char *s);
void sn_buf_set_u32(sn_buf *b, size_t at, uint32_t v);
void sn_buf_set_u64(sn_buf *b, size_t at, uint64_t v);

/*
** Protobuf (proto3 wire format). A nested message: pb_begin returns a mark, the fields follow,
** pb_end writes the tag and length in front of them (moving them up by the few bytes the two
** varints take), so every length is minimal as protoc's encoders write it.
*/
void pb_varint(sn_buf *b, uint64_t v);
void pb_tag(sn_buf *b, uint32_t field, uint32_t wire);
void pb_uint(sn_buf *b, uint32_t field, uint64_t v);       /* varint, skipped when 0 (proto3) */
void pb_bool(sn_buf *b, uint32_t field, bool v);
void pb_double(sn_buf *b, uint32_t field, double v);       /* fixed64, skipped when +0.0 */
void pb_fixed32(sn_buf *b, uint32_t field, uint32_t v);    /* skipped when 0 */
void pb_bytes(sn_buf *b, uint32_t field, const void *data, size_t n); /* skipped when empty */
void pb_string(sn_buf *b, uint32_t field, const char *s);
size_t pb_begin(sn_buf *b);
void pb_end(sn_buf *b, uint32_t field, size_t mark);
/* google.protobuf.Timestamp {seconds, nanos} of integer nanoseconds, as field `field`. */
void pb_time(sn_buf *b, uint32_t field, uint64_t ns);

#endif
