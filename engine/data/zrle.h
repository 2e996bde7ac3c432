/* zrle.h — a zlib stream (RFC 1950/1951) for data that is nearly all runs, as a flat picture's
** filtered PNG rows are: copies from a few fixed distances (the byte and the pixel before, the row
** above and its neighbours) and literals in one block with its own (dynamic) Huffman codes. Any inflater reads it; a general LZ77 matcher (libdeflate) spends about
** 2 ns a byte searching where a run-length scan spends a tenth of that. */
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
/* Compresses n bytes at in (rows of `stride` bytes: copies of the row above are matched too; a
** stride under 6: copies of the byte and the pixel before alone) into out (at least sn_zrle_bound(n) bytes); returns the stream's
** length, or 0 when the data has more than max_tokens literals and matches (then it is not the
** kind of data this is for: the caller compresses it otherwise). tokens: max_tokens entries of
** scratch, the caller's. Deterministic: the same bytes give the same stream. */
size_t sn_zrle_compress(const uint8_t *in, size_t n, size_t stride, uint8_t *out, uint32_t *scratch);

#endif
