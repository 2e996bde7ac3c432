/* png_decode.h — an independent reader of the 8-bit RGB PNGs sensim writes, for tests: every
** chunk's CRC recomputed bit by bit (not libdeflate's, which the writer uses), the zlib stream
** inflated, the five row filters undone here. Include in one test file; links libdeflate. */
#ifndef SN_TEST_PNG_DECODE_H
#define SN_TEST_PNG_DECODE_H

#include <libdeflate.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t tu_be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* CRC-32 as the PNG spec writes it, bit by bit (not libdeflate's, which the writer uses). */
static uint32_t tu_crc_bits(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xffffffffu;
}

/* The pixels of an 8-bit RGB PNG (malloc'd, the caller frees), or NULL when anything in it is
** wrong. filters (may be NULL) gets each of the first 4096 rows' filter type. */
static uint8_t *tu_png_decode(const uint8_t *f, size_t n, int *w, int *h, uint8_t filters[4096])
{
    if (n < 8 + 25 + 12 || memcmp(f, "\x89PNG\r\n\x1a\n", 8) != 0)
        return NULL;
    uint8_t *z = malloc(n), *raw = NULL, *img = NULL;
    size_t zn = 0;
    bool end = false;
    for (size_t at = 8; at + 12 <= n && !end;) {
        uint32_t len = tu_be32(f + at);
        if (at + 12 + len > n || tu_crc_bits(f + at + 4, len + 4) != tu_be32(f + at + 8 + len))
            goto bad;
        if (!memcmp(f + at + 4, "IHDR", 4)) {
            *w = (int)tu_be32(f + at + 8), *h = (int)tu_be32(f + at + 12);
            if (len != 13 || memcmp(f + at + 16, "\x08\x02\x00\x00\x00", 5))
                goto bad;
        } else if (!memcmp(f + at + 4, "IDAT", 4)) {
            memcpy(z + zn, f + at + 8, len), zn += len;
        }
        end = !memcmp(f + at + 4, "IEND", 4);
        at += 12 + len;
        if (end && at != n)
            goto bad;
    }
    size_t s = (size_t)*w * 3, rn = (s + 1) * (size_t)*h, got = 0;
    raw = malloc(rn), img = malloc(s * (size_t)*h);
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    bool ok = end && d && libdeflate_zlib_decompress(d, z, zn, raw, rn, &got) == LIBDEFLATE_SUCCESS && got == rn;
    libdeflate_free_decompressor(d);
    if (!ok)
        goto bad;
    for (int y = 0; y < *h; y++) {
        const uint8_t *in = raw + (size_t)y * (s + 1);
        uint8_t *row = img + (size_t)y * s, *up = y ? row - s : NULL;
        if (in[0] > 4)
            goto bad;
        if (filters && y < 4096)
            filters[y] = in[0];
        for (size_t i = 0; i < s; i++) {
            int a = i >= 3 ? row[i - 3] : 0, b = up ? up[i] : 0, c = up && i >= 3 ? up[i - 3] : 0, p = a + b - c, v;
            switch (in[0]) {
            case 0: v = 0; break;
            case 1: v = a; break;
            case 2: v = b; break;
            case 3: v = (a + b) / 2; break;
            default: v = abs(p - a) <= abs(p - b) && abs(p - a) <= abs(p - c) ? a : abs(p - b) <= abs(p - c) ? b : c;
            }
            row[i] = (uint8_t)(in[1 + i] + v);
        }
    }
    free(z), free(raw);
    return img;
bad:
    free(z), free(raw), free(img);
    return NULL;
}

#endif
