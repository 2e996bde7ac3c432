/* zrle.h — a zlib stream (RFC 1950/1951) for a picture's filtered PNG rows, which are mostly runs
** and copies of the pixel before or the row above: copies from those few fixed distances and from
** one hash probe (the last place the next 4 bytes were seen), literals, in blocks with their own
** (dynamic) Huffman codes. Any inflater reads it. A general LZ77 matcher (libdeflate level 2)
** spends about 5 ns a byte of a 1280x720 RGB picture searching; this, about 1.4 for 1.14x the
** file (docs/performance.md "png48"). */
#ifndef SN_DATA_ZRLE_H
#define SN_DATA_ZRLE_H

#include <stddef.h>
#include <stdint.h>

/* The hash of 4 bytes that finds copies from anywhere in the window: 2^14 places. */
#define SN_ZRLE_HASH_BITS 14
#define SN_ZRLE_HASH (1u << SN_ZRLE_HASH_BITS)
/* Tokens in a block (each block has its own codes). */
#define SN_ZRLE_BLOCK (1u << 16)
/* How many uint32_t of scratch sn_zrle_compress needs: the hash and a block's tokens. */
#define SN_ZRLE_SCRATCH (SN_ZRLE_HASH + SN_ZRLE_BLOCK)

/* The most bytes sn_zrle_compress writes for n bytes of input. */
size_t sn_zrle_bound(size_t n);
/* Compresses n bytes at in (rows of `stride` bytes: copies of the row above are tried too when
** 4 <= stride <= 32768) into out (at least sn_zrle_bound(n) bytes); returns the stream's length.
** Incompressible data goes in stored blocks (10 bytes in 65536 more than n, and zlib's 6). scratch:
** SN_ZRLE_SCRATCH entries, the caller's. Deterministic: the same bytes give the same stream. */
size_t sn_zrle_compress(const uint8_t *in, size_t n, size_t stride, uint8_t *out, uint32_t *scratch);

#endif
