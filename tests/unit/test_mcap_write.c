/* test_mcap_write.c — the MCAP writer's compressor thread (sn_mcapw_background): the same
** messages give the same file byte for byte inline and on the thread, over hundreds of small
** chunks (each sealed chunk handed over while the next fills), zstd and stored; the bytes
** counted equal the file's size; a file that cannot be written fails at finish with the
** writer's error instead of hanging or crashing. A stored channel (PNGs) goes into chunks of its
** own, stored ("") while the others are zstd'd, its big messages written from the caller's bytes:
** every chunk's CRC is that of its records, DataEnd's that of the data section, and chunks
** follow each other in time. The same bodies given as a file's bytes (sn_mcapw_message_file:
** copy_file_range, or pread and fwrite where the output has no descriptor) give the same file. */
#include "../../engine/views/mcap_write.h"
#include "../check.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

enum { MESSAGES = 3000, CHANNELS = 5, BIG = SN_MCAPW_DIRECT_BYTES + 1000 };

/* Writes the same pseudo-random messages (compressible and not, 1 byte to 20 KB) to f; parts 1:
** the stored channel's as head, body and foot, 2: with the body from a file. */
static sn_status write_all(FILE *f, int level, bool background, int parts, uint64_t *bytes, sn_error *err)
{
    FILE *bodies = parts == 2 ? tmpfile() : NULL;
    if (parts == 2 && !bodies)
        return err->status = SN_E_IO;
    sn_mcapw *w = sn_mcapw_open(f, "test", level, 4096, err);
    if (!w)
        return err->status ? err->status : SN_E_IO;
    if (background)
        CHECK(sn_mcapw_background(w), "no compressor thread");
    uint16_t sa = sn_mcapw_schema(w, "a", "protobuf", "AAAA", 4), sb = sn_mcapw_schema(w, "b", "jsonschema", "{}", 2);
    static uint8_t data[BIG];
    uint64_t x = 88172645463325252ull;
    sn_status st = SN_OK;
    for (int i = 0; !st && i < MESSAGES; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t n = 1 + (size_t)(x % (i % 50 ? 300 : 20000)); /* now and then one bigger than a chunk */
        if (i % 400 == 7)
            n = BIG - (size_t)(x % 1000); /* past SN_MCAPW_DIRECT_BYTES: written from data, not copied */
        for (size_t k = 0; k < n; k++)
            data[k] = i % 3 ? (uint8_t)(k % 11) : (uint8_t)((x >> (k % 56)) ^ k);
        char topic[16];
        snprintf(topic, sizeof topic, "/t%d", (int)(x % CHANNELS)); /* channels registered as they come */
        if (i % 400 == 7)
            snprintf(topic, sizeof topic, "/t0");
        uint16_t ch = sn_mcapw_channel(w, topic, x % 2 ? sa : sb, "protobuf");
        if (!strcmp(topic, "/t0"))
            sn_mcapw_channel_stored(w, ch); /* its messages compressed already: chunks of their own */
        if (parts && !strcmp(topic, "/t0") && n > 40) { /* head, body (its CRC given) and foot: the same bytes */
            size_t h = 1 + (size_t)(x % 30), t = (size_t)(x >> 8) % (SN_MCAPW_FOOT_MAX + 1);
            uint32_t crc = libdeflate_crc32(0, data + h, n - h - t);
            if (parts == 2) { /* the body appended to a file, given by its offset there */
                long off = ftell(bodies);
                if (off < 0 || fwrite(data + h, 1, n - h - t, bodies) != n - h - t || fflush(bodies) != 0)
                    return err->status = SN_E_IO;
                st = sn_mcapw_message_file(w, ch, (uint64_t)i * 1000, data, h, fileno(bodies), (uint64_t)off, n - h - t,
                                           crc, data + n - t, t, err);
            } else
                st = sn_mcapw_message_parts(w, ch, (uint64_t)i * 1000, data, h, data + h, n - h - t, crc, data + n - t,
                                            t, err);
        } else
            st = sn_mcapw_message(w, ch, (uint64_t)i * 1000, data, n, err);
    }
    if (!st)
        st = sn_mcapw_finish(w, err);
    *bytes = sn_mcapw_bytes(w);
    sn_mcapw_free(w);
    if (bodies)
        fclose(bodies);
    return st;
}

static uint64_t le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

/* Walks the data section of the file c (n bytes): each chunk's CRC against its records (zstd
** chunks decompressed), the stored channel /t0 only in stored chunks and the others only in zstd
** ones (level 1), chunks in time order, DataEnd's CRC against the bytes before it. */
static void check_chunks(const uint8_t *c, size_t n, int level)
{
    size_t at = 8, chunks = 0, stored = 0, big = 0;
    uint64_t prev_end = 0;
    int t0 = -1; /* /t0's channel id */
    uint8_t *rec = NULL;
    while (at + 9 <= n) {
        uint8_t op = c[at];
        uint64_t len = le(c + at + 1, 8);
        const uint8_t *b = c + at + 9;
        CHECK(at + 9 + len <= n, "level %d: a record past the end", level);
        if (at + 9 + len > n)
            break;
        if (op == 0x0F) { /* DataEnd */
            uint32_t crc = (uint32_t)le(b, 4);
            CHECK(crc && crc == libdeflate_crc32(0, c, at), "level %d: DataEnd's CRC %08x is not the data section's", level, crc);
            break;
        }
        if (op == 0x06) { /* Chunk */
            uint64_t start = le(b, 8), end = le(b + 8, 8), un = le(b + 16, 8);
            uint32_t crc = (uint32_t)le(b + 24, 4), cl = (uint32_t)le(b + 28, 4);
            bool zstd = cl == 4 && !memcmp(b + 32, "zstd", 4);
            uint64_t zn = le(b + 32 + cl, 8);
            const uint8_t *z = b + 40 + cl;
            CHECK(zstd || cl == 0, "level %d: chunk %zu's compression is neither zstd nor stored", level, chunks);
            CHECK(start >= prev_end, "level %d: chunk %zu starts at %llu before the last ended (%llu)", level, chunks,
                  (unsigned long long)start, (unsigned long long)prev_end);
            prev_end = end;
            free(rec);
            rec = malloc(un ? un : 1);
            if (!rec)
                return;
            if (zstd)
                CHECK(ZSTD_decompress(rec, un, z, zn) == un, "level %d: chunk %zu does not decompress", level, chunks);
            else {
                CHECK(zn == un, "level %d: stored chunk %zu of %llu bytes says %llu", level, chunks, (unsigned long long)zn,
                      (unsigned long long)un);
                memcpy(rec, z, un < zn ? un : zn);
            }
            CHECK(crc && crc == libdeflate_crc32(0, rec, un), "level %d: chunk %zu's CRC %08x is not its records'", level, chunks,
                  crc);
            for (size_t r = 0; r + 9 <= un;) { /* its records: channels and messages */
                uint8_t rop = rec[r];
                uint64_t rl = le(rec + r + 1, 8);
                if (rop == 0x04 && le(rec + r + 9 + 4, 4) == 3 && !memcmp(rec + r + 9 + 8, "/t0", 3))
                    t0 = (int)le(rec + r + 9, 2);
                if (rop == 0x05) {
                    bool is_t0 = (int)le(rec + r + 9, 2) == t0;
                    if (level)
                        CHECK(is_t0 == !zstd, "level %d: chunk %zu (%s) holds a message of %s", level, chunks,
                              zstd ? "zstd" : "stored", is_t0 ? "the stored channel" : "another channel");
                    big += rl >= BIG - 1000;
                }
                r += 9 + rl;
            }
            chunks++;
            stored += !zstd;
        }
        at += 9 + len;
    }
    free(rec);
    CHECK(chunks > 10 && big >= MESSAGES / 400 && (level ? stored > 0 && stored < chunks : stored == chunks),
          "level %d: %zu chunks, %zu stored, %zu big messages", level, chunks, stored, big);
}

static uint8_t *contents(FILE *f, size_t *n)
{
    fflush(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    *n = b && len > 0 ? fread(b, 1, (size_t)len, f) : 0;
    return b;
}

int main(void)
{
    for (int level = 0; level <= 1; level++) {
        FILE *a = tmpfile(), *b = tmpfile();
        CHECK(a && b, "tmpfile");
        if (!a || !b)
            return 1;
        sn_error ea = {0}, eb = {0};
        uint64_t na = 0, nb = 0;
        CHECK(write_all(a, level, false, 0, &na, &ea) == SN_OK, "inline: %s", ea.msg);
        CHECK(write_all(b, level, true, 0, &nb, &eb) == SN_OK, "background: %s", eb.msg);
        size_t la = 0, lb = 0;
        uint8_t *ca = contents(a, &la), *cb = contents(b, &lb);
        CHECK(la > 100000 && la == na, "level %d: inline file %zu bytes, counted %llu", level, la, (unsigned long long)na);
        CHECK(lb == nb, "level %d: background file %zu bytes, counted %llu", level, lb, (unsigned long long)nb);
        CHECK(la == lb && ca && cb && memcmp(ca, cb, la) == 0, "level %d: the files differ (%zu vs %zu bytes)", level, la, lb);
        CHECK(la > 16 && memcmp(ca, "\x89MCAP0\r\n", 8) == 0 && memcmp(ca + la - 8, "\x89MCAP0\r\n", 8) == 0,
              "level %d: no magic at both ends", level);
        if (ca)
            check_chunks(ca, la, level);
        /* the stored channel's messages given in parts (sn_mcapw_message_parts), inline and on
        ** the thread: the same file, so its CRCs, combined from the parts', are the ones above */
        /* and with the bodies from a file (sn_mcapw_message_file), to a file (the kernel's copy)
        ** and to a memory stream (no descriptor: pread and fwrite) */
        static char mem[8u << 20];
        for (int bg = 0; bg <= 1; bg++)
            for (int parts = 1; parts <= 2; parts++)
                for (int to_mem = 0; to_mem <= (parts == 2); to_mem++) {
                    FILE *c = to_mem ? fmemopen(mem, sizeof mem, "w+") : tmpfile();
                    uint64_t nc = 0;
                    sn_error ec = {0};
                    CHECK(c && write_all(c, level, bg, parts, &nc, &ec) == SN_OK, "parts %d: %s", parts, ec.msg);
                    size_t lc = 0;
                    uint8_t *cc = c && !to_mem ? contents(c, &lc) : NULL;
                    if (c && to_mem && fflush(c) == 0 && nc <= sizeof mem && (cc = malloc(nc + 1)))
                        memcpy(cc, mem, nc), lc = nc;
                    CHECK(cc && lc == la && lc == nc && ca && memcmp(ca, cc, la) == 0,
                          "level %d, thread %d, parts %d, memory %d: another file (%zu vs %zu bytes)", level, bg, parts,
                          to_mem, lc, la);
                    free(cc);
                    if (c)
                        fclose(c);
                }
        /* zlib's crc32_combine's defining property, on lengths of every size class */
        static uint8_t run[70000];
        for (size_t k = 0; k < sizeof run; k++)
            run[k] = (uint8_t)(k * 2654435761u >> 13);
        const size_t cuts[] = {0, 1, 3, 8, 255, 4096, 65535, 69999, 70000};
        for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
            size_t m = cuts[k];
            uint32_t whole = libdeflate_crc32(0, run, sizeof run);
            uint32_t two = sn_crc32_combine(libdeflate_crc32(0, run, m), libdeflate_crc32(0, run + m, sizeof run - m), sizeof run - m);
            CHECK(whole == two, "crc32_combine at %zu: %08x, not %08x", m, two, whole);
        }
        free(ca), free(cb);
        fclose(a), fclose(b);
    }
    /* a file that cannot be written: every write fails (unbuffered /dev/full) */
    FILE *full = fopen("/dev/full", "wb");
    if (full) {
        setvbuf(full, NULL, _IONBF, 0);
        sn_error err = {0};
        uint64_t n = 0;
        sn_mcapw *w = sn_mcapw_open(full, "test", 1, 4096, &err);
        CHECK(!w && err.status == SN_E_IO && strstr(err.msg, "cannot write"), "open on /dev/full: %d %s", err.status, err.msg);
        sn_mcapw_free(w);
        (void)n;
        fclose(full);
    }
    /* room for the header and a few chunks, then the "disk" is full (a 64 KiB memory file): the
    ** compressor's failure comes back to the filling thread, at a later seal or at finish */
    static char room[65536];
    FILE *f = fmemopen(room, sizeof room, "w");
    if (f) {
        setvbuf(f, NULL, _IONBF, 0);
        sn_error err = {0};
        sn_mcapw *w = sn_mcapw_open(f, "test", 1, 4096, &err);
        CHECK(w != NULL, "open: %s", err.msg);
        if (w) {
            CHECK(sn_mcapw_background(w), "no compressor thread");
            uint16_t s = sn_mcapw_schema(w, "a", "protobuf", "A", 1), ch = sn_mcapw_channel(w, "/a", s, "protobuf");
            static uint8_t noise[10000];
            uint64_t x = 7;
            for (size_t k = 0; k < sizeof noise; k++) /* incompressible: each chunk nearly its size */
                x ^= x << 13, x ^= x >> 7, x ^= x << 17, noise[k] = (uint8_t)x;
            sn_status st = SN_OK;
            int i = 0;
            for (; !st && i < 200; i++)
                st = sn_mcapw_message(w, ch, (uint64_t)i, noise, sizeof noise, &err);
            if (!st)
                st = sn_mcapw_finish(w, &err);
            CHECK(st == SN_E_IO && strstr(err.msg, "cannot write"), "a full file: status %d, '%s'", st, err.msg);
            CHECK(i < 200, "the failure came back only at finish (after %d messages)", i);
            sn_mcapw_free(w);
        }
        fclose(f);
    }
    return CHECK_DONE();
}
