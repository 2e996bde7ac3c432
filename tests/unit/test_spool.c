/* The streams' writer thread (engine/output/spool.c): three files fed interleaved messages of
** every size class — a few bytes, chunk-filling runs of small ones, ones just under and over
** the direct-write size, several MB — over many frames hold exactly the bytes put, in order;
** a large message's buffer is taken (the owner gets a spare or nothing) and never copied; a
** write that fails (/dev/full) is reported once, naming the file. argv[1]: temp folder. */
#include "../../engine/output/spool.h"
#include "../check.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A deterministic size: mostly small, now and then around SN_SPOOL_DIRECT or several MB. */
static size_t size_of(uint32_t *r)
{
    *r = *r * 1664525u + 1013904223u;
    switch (*r >> 28) {
    case 0: return SN_SPOOL_DIRECT - 1 - (*r & 7);
    case 1: return SN_SPOOL_DIRECT + (*r & 7);
    case 2: return (1u << 20) + (*r & 0xFFFF);
    case 3: return (*r >> 8) % 200000;
    default: return 1 + (*r >> 8) % 3000;
    }
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n + 1);
    if (fread(b, 1, *n, f) != *n)
        *n = 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    sn_error err = {0};
    sn_spool *sp = sn_spool_create(&err);
    CHECK(sp != NULL, "%s", err.msg);
    if (!sp)
        return CHECK_DONE();
    enum { FILES = 3, FRAMES = 40 };
    char path[FILES][1024];
    sn_spool_file *f[FILES];
    unsigned char *want[FILES];
    size_t n_want[FILES] = {0}, cap_want[FILES];
    for (int i = 0; i < FILES; i++) {
        snprintf(path[i], sizeof path[i], "%s/spool_%d.bin", argv[1], i);
        int fd = open(path[i], O_WRONLY | O_CREAT | O_TRUNC, 0666);
        CHECK(fd >= 0 && sn_spool_open(sp, fd, path[i], &f[i], &err) == SN_OK, "%s: %s", path[i], err.msg);
        cap_want[i] = 24u << 20;
        want[i] = malloc(cap_want[i]);
    }
    uint32_t r = 7;
    sn_pack_buf msg = {0};
    size_t direct = 0, taken = 0, messages = 0;
    for (int frame = 0; frame < FRAMES; frame++) {
        int per_frame = frame % 5 == 0 ? 400 : 6; /* some frames fill chunks with small messages */
        for (int k = 0; k < per_frame; k++) {
            int i = (int)((r >> 4) % FILES);
            size_t n = size_of(&r), off = r % 32;
            if (n_want[i] + n > cap_want[i])
                continue; /* the reference copy is full: enough */
            sn_pack_clear(&msg);
            unsigned char *p = sn_pack_room(&msg, off + n);
            for (size_t b = 0; b < off + n; b++)
                p[b] = (unsigned char)(b * 31 + (size_t)frame * 7 + (size_t)k);
            msg.size = off + n;
            memcpy(want[i] + n_want[i], p + off, n);
            n_want[i] += n;
            const unsigned char *before = msg.data;
            CHECK(sn_spool_put(sp, f[i], &msg, off, n, &err) == SN_OK, "put: %s", err.msg);
            messages++;
            if (n >= SN_SPOOL_DIRECT) {
                direct++;
                taken += msg.data != before && msg.size == 0;
            } else {
                CHECK(msg.data == before && msg.size == off + n, "a small message is copied, its buffer left alone");
            }
        }
        CHECK(sn_spool_frame_end(sp, &err) == SN_OK, "frame end: %s", err.msg);
    }
    CHECK(direct > 10 && taken == direct, "every large message's buffer taken (%zu of %zu)", taken, direct);
    for (int i = 0; i < FILES; i++) {
        CHECK(sn_spool_close(sp, f[i], &err) == SN_OK, "close: %s", err.msg);
        size_t n = 0;
        unsigned char *got = slurp(path[i], &n);
        CHECK(got && n == n_want[i] && memcmp(got, want[i], n) == 0, "%s: %zu bytes written, %zu put, in order",
              path[i], n, n_want[i]);
        free(got);
        free(want[i]);
        remove(path[i]);
    }
    CHECK(messages > 500 && sn_spool_busy(sp) > 0, "%zu messages, the writer busy %g s", messages, sn_spool_busy(sp));

    /* a full disk: reported at a frame end (or the close), once, naming the file; then clean */
    int fd = open("/dev/full", O_WRONLY);
    if (fd >= 0) {
        sn_spool_file *full;
        CHECK(sn_spool_open(sp, fd, "/dev/full", &full, &err) == SN_OK, "%s", err.msg);
        sn_pack_clear(&msg);
        sn_pack_raw(&msg, "0123456789", 10);
        sn_status st = SN_OK;
        for (int frame = 0; frame < 3 && !st; frame++) {
            sn_spool_put(sp, full, &msg, 0, 10, &err);
            st = sn_spool_frame_end(sp, &err);
        }
        if (!st)
            st = sn_spool_flush(sp, &err);
        CHECK(st == SN_E_IO && strstr(err.msg, "/dev/full: write failed: No space left on device"),
              "a full disk: %d '%s'", st, err.msg);
        sn_spool_close(sp, full, NULL);
    }
    sn_pack_free(&msg);
    sn_spool_destroy(sp);
    return CHECK_DONE();
}
