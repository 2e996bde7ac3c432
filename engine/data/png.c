/* png.c — PNG files for saved images, written here rather than by stb_image_write: stb allocated
** and faulted in two image-sized buffers per image, computed its CRCs a byte at a time and tried
** filters the compressor does not reward. Here each thread keeps its buffers, the CRCs are
** libdeflate's, and each row takes the filter (None, Sub or Up) that leaves the fewest non-zero
** bytes: rendered pictures are flat regions (exact repeats, best unfiltered or Sub) and smooth
** gradients (best Up), and a count of zeros is what an LZ77 + Huffman coder turns into size.
** The rows are compressed by zrle.h (copies from a few fixed distances and one hash probe, not
** libdeflate's general matcher: 2.7x faster on the rig's RGB pictures for 1.17x the file).
** Measured on the demo's cameras and the rig (bench_outputs, bench_rig, docs/performance.md). */
#include "png.h"
#include "zrle.h"

#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <pthread.h>
#include <sensim/grow.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct png_tls {
    uint8_t *filtered, *out; /* the filtered rows, the PNG being made */
    size_t filtered_cap, out_cap;
    uint32_t scratch[SN_ZRLE_SCRATCH]; /* zrle.h's: its hash and a block's tokens */
} png_tls;

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static void free_tls(void *p)
{
    png_tls *t = p;
    free(t->filtered);
    free(t->out);
    free(t);
}
static void make_key(void) { (void)pthread_key_create(&key, free_tls); }

/* The thread's buffers, made on first use and kept. */
static png_tls *tls(void)
{
    pthread_once(&key_once, make_key);
    png_tls *t = pthread_getspecific(key);
    if (t)
        return t;
    if (!(t = calloc(1, sizeof *t)))
        return NULL;
    if (pthread_setspecific(key, t) != 0) {
        free_tls(t);
        return NULL;
    }
    return t;
}

/* Sixteen bytes at a time where SSE2 is (x86-64 always), else eight, portably (SWAR): the
** filters cost about a third of what compressing the rows does. */
#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull
static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline void store64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
/* 1 in each byte of v that is not zero, 0 elsewhere. */
static inline uint64_t nonzero_lanes(uint64_t v) { return ((((v & ~HIGH) + ~HIGH) | v) & HIGH) >> 7; }
/* The sum of the eight byte lanes of v. */
static inline size_t lane_sum(uint64_t v)
{
    const uint64_t m = 0x00ff00ff00ff00ffull;
    v = (v & m) + ((v >> 8) & m);
    return (size_t)((v * 0x0001000100010001ull) >> 48);
}
/* a - b in each byte, modulo 256. */
static inline uint64_t sub_bytes(uint64_t a, uint64_t b) { return ((a | HIGH) - (b & ~HIGH)) ^ ((a ^ ~b) & HIGH); }

/* The non-zero bytes a row r of s bytes leaves unfiltered [0], under Sub [1] and under Up [2]
** (u: the row above; NULL for the first), in one pass: byte lanes count up to 255 words at a time. */
static void count_nonzero(const uint8_t *r, const uint8_t *u, size_t s, size_t nz[3])
{
    nz[0] = nz[1] = nz[2] = 0;
    size_t x = 0;
    for (; x < s && x < 3; x++) /* Sub leaves the first pixel as it is */
        nz[0] += r[x] != 0, nz[1] += r[x] != 0, nz[2] += u ? r[x] != u[x] : r[x] != 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    while (x + 16 <= s) { /* each lane counts equal bytes (a compare's -1 subtracted), 255 at most */
        __m128i none = zero, sub = zero, up = zero;
        size_t k = 0;
        for (; k < 255 && x + 16 <= s; k++, x += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(r + x));
            none = _mm_sub_epi8(none, _mm_cmpeq_epi8(a, zero));
            sub = _mm_sub_epi8(sub, _mm_cmpeq_epi8(a, _mm_loadu_si128((const __m128i *)(r + x - 3))));
            up = _mm_sub_epi8(up, _mm_cmpeq_epi8(a, u ? _mm_loadu_si128((const __m128i *)(u + x)) : zero));
        }
        __m128i sums[3] = {_mm_sad_epu8(none, zero), _mm_sad_epu8(sub, zero), _mm_sad_epu8(up, zero)};
        for (int f = 0; f < 3; f++)
            nz[f] += 16 * k - (size_t)(_mm_cvtsi128_si32(sums[f]) + _mm_cvtsi128_si32(_mm_srli_si128(sums[f], 8)));
    }
#endif
    while (x + 8 <= s) {
        uint64_t none = 0, sub = 0, up = 0;
        for (int k = 0; k < 255 && x + 8 <= s; k++, x += 8) {
            uint64_t a = load64(r + x);
            none += nonzero_lanes(a);
            sub += nonzero_lanes(a ^ load64(r + x - 3));
            up += nonzero_lanes(u ? a ^ load64(u + x) : a);
        }
        nz[0] += lane_sum(none), nz[1] += lane_sum(sub), nz[2] += lane_sum(up);
    }
    for (; x < s; x++)
        nz[0] += r[x] != 0, nz[1] += r[x] != r[x - 3], nz[2] += u ? r[x] != u[x] : r[x] != 0;
}

/* d = r - p bytewise over n bytes. */
static void subtract(uint8_t *d, const uint8_t *r, const uint8_t *p, size_t n)
{
    size_t x = 0;
#ifdef __SSE2__
    for (; x + 16 <= n; x += 16)
        _mm_storeu_si128((__m128i *)(d + x), _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(r + x)),
                                                          _mm_loadu_si128((const __m128i *)(p + x))));
#endif
    for (; x + 8 <= n; x += 8)
        store64(d + x, sub_bytes(load64(r + x), load64(p + x)));
    for (; x < n; x++)
        d[x] = (uint8_t)(r[x] - p[x]);
}

/* Each row with a filter byte in front: None (0), Sub (1) or Up (2), whichever leaves the fewest
** non-zero bytes; ties go to Up, then Sub: a smooth gradient leaves no zeros under any filter,
** but small repeated differences under Up or Sub (the choice depends on the pixels alone). */
static void filter_rows(const uint8_t *rgb, size_t w, size_t h, uint8_t *out)
{
    const size_t s = w * 3;
    for (size_t y = 0; y < h; y++) {
        const uint8_t *r = rgb + y * s, *u = y ? r - s : NULL;
        uint8_t *d = out + y * (s + 1);
        size_t head = s < 3 ? s : 3; /* Sub leaves the first pixel as it is */
        size_t nz[3];
        count_nonzero(r, u, s, nz);
        int f = u ? 2 : 1;
        if (nz[1] < nz[f])
            f = 1;
        if (nz[0] < nz[f])
            f = 0;
        *d++ = (uint8_t)f;
        if (f == 0) {
            memcpy(d, r, s);
        } else if (f == 1) {
            memcpy(d, r, head);
            subtract(d + head, r + head, r, s - head);
        } else {
            subtract(d, r, u, s);
        }
    }
}

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v; }

/* A chunk whose data (n bytes) is already at p + 8: its length, type and CRC; returns its end. */
static uint8_t *chunk(uint8_t *p, const char type[4], size_t n)
{
    put32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    put32(p + 8 + n, libdeflate_crc32(0, p + 4, n + 4));
    return p + 12 + n;
}

static atomic_uint_fast64_t encoded;
uint64_t sn_png_encoded(void) { return (uint64_t)atomic_load(&encoded); }

const uint8_t *sn_png_encode_rgb_tls(int width, int height, const uint8_t *rgb, size_t *size)
{
    *size = 0;
    png_tls *t = tls();
    /* PNG allows 2^31 - 1 per side; the callers' images are at most 16384 */
    if (!t || width <= 0 || height <= 0 || width > 65536 || height > 65536)
        return NULL;
    size_t w = (size_t)width, h = (size_t)height, raw = (w * 3 + 1) * h;
    size_t bound = sn_zrle_bound(raw);
    if (bound > 0x7fffffffu || !SN_GROW(t->filtered, t->filtered_cap, raw) ||
        !SN_GROW(t->out, t->out_cap, 8 + 25 + 12 + bound + 12))
        return NULL;
    filter_rows(rgb, w, h, t->filtered);
    uint8_t *p = t->out;
    memcpy(p, "\x89PNG\r\n\x1a\n", 8);
    p += 8;
    put32(p + 8, (uint32_t)w);
    put32(p + 12, (uint32_t)h);
    memcpy(p + 16, "\x08\x02\x00\x00\x00", 5); /* 8 bits, RGB, deflate, adaptive filters, no interlace */
    p = chunk(p, "IHDR", 13);
    size_t z = sn_zrle_compress(t->filtered, raw, w * 3 + 1, p + 8, t->scratch);
    if (!z)
        return NULL;
    p = chunk(p, "IDAT", z);
    p = chunk(p, "IEND", 0);
    *size = (size_t)(p - t->out);
    atomic_fetch_add(&encoded, 1);
    return t->out;
}

uint8_t *sn_png_encode_rgb(int width, int height, const uint8_t *rgb, size_t *size)
{
    size_t n = 0;
    const uint8_t *png = sn_png_encode_rgb_tls(width, height, rgb, &n);
    uint8_t *copy = png ? malloc(n) : NULL;
    if (copy)
        memcpy(copy, png, n);
    *size = copy ? n : 0;
    return copy;
}

bool sn_write_file(const char *path, const void *head, size_t hn, const void *data, size_t len)
{
    /* write and close are both checked: a full disk must not leave a truncated file behind a
    ** success; never through a link planted where the file goes */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    bool ok = fd >= 0;
    const uint8_t *part[2] = {head, data};
    size_t size[2] = {hn, len};
    for (int i = 0; i < 2; i++)
        for (size_t done = 0; ok && done < size[i];) {
            ssize_t n = write(fd, part[i] + done, size[i] - done);
            if (n < 0 && errno == EINTR)
                continue;
            ok = n > 0;
            if (n == 0)
                errno = ENOSPC;
            done += ok ? (size_t)n : 0;
        }
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok && fd >= 0)
        unlink(path); /* no truncated file left behind */
    errno = saved;
    return ok;
}

bool sn_png_write_rgb(const char *path, int width, int height, const uint8_t *rgb)
{
    size_t len = 0;
    const uint8_t *png = sn_png_encode_rgb_tls(width, height, rgb, &len);
    if (!png) {
        errno = ENOMEM;
        return false;
    }
    return sn_write_file(path, NULL, 0, png, len);
}
