/* The streams' writer thread (engine/output/spool.c): three files fed interleaved messages of
** every size class — a few bytes, chunk-filling runs of small ones, ones just under and over
** the direct-write size, several MB — over many frames hold exactly the bytes put, in order;
** a large message's buffer is taken (the owner gets a spare or nothing) and never copied; a
** write that fails (/dev/full) is reported once, naming the file. Run with O_DIRECT (the temp
** folder on a disk), without it, and on tmpfs (which refuses it): every flush leaves the files
** holding every byte put so far, the unaligned tail included. Half the large messages are laid
** out as the engine's writer lays them (address and file offset agreeing modulo SN_SPOOL_ALIGN):
** a direct file writes their whole blocks from their own buffers, the same bytes, interleaved
** with staged ones. argv[1]: temp folder. */
#define _GNU_SOURCE /* O_DIRECT, statx */
#include "../../engine/output/spool.h"
#include "../check.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* p[b] = b * 31 + c (mod 256): the first 256 bytes, then copies of what is filled (the pattern's
** period is 256), not a loop over every byte of the several-MB messages. */
static void fill(unsigned char *p, size_t n, size_t c)
{
    size_t done = n < 256 ? n : 256;
    for (size_t b = 0; b < done; b++)
        p[b] = (unsigned char)(b * 31 + c);
    while (done < n) {
        size_t k = done < n - done ? done : n - done;
        memcpy(p + done, p, k);
        done += k;
    }
}

/* The byte comparison of the file's contents so far with what was put. */
static bool holds(const char *path, const unsigned char *want, size_t n_want)
{
    size_t n = 0;
    unsigned char *got = slurp(path, &n);
    bool ok = got && n == n_want && memcmp(got, want, n) == 0;
    free(got);
    return ok;
}

/* The same from byte `from` on (rounded down to a block: a direct file rewrites its unaligned
** tail), and the file's size: a flush's check reads what it added, not the whole file again
** (the whole is compared at close). */
static bool holds_from(const char *path, const unsigned char *want, size_t n_want, size_t from)
{
    from -= from % 4096;
    int fd = open(path, O_RDONLY);
    struct stat st;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size == n_want;
    unsigned char *got = ok ? malloc(n_want - from + 1) : NULL;
    ok = ok && got && pread(fd, got, n_want - from, (off_t)from) == (ssize_t)(n_want - from) &&
         memcmp(got, want + from, n_want - from) == 0;
    free(got);
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Three files in `dir` fed FRAMES frames of messages; every few frames the files are flushed
** and must hold exactly the bytes put so far (a direct file's unaligned tail included). Returns
** the bytes the spool wrote with O_DIRECT. */
static uint64_t run(sn_spool *sp, const char *dir, const char *tag, uint64_t *in_place)
{
    uint64_t place0 = sn_spool_in_place_bytes(sp);
    sn_error err = {0};
    enum { FILES = 3, FRAMES = 40 };
    char path[FILES][1024];
    sn_spool_file *f[FILES];
    unsigned char *want[FILES];
    size_t n_want[FILES] = {0}, cap_want[FILES], checked[FILES] = {0};
    uint64_t direct0 = sn_spool_direct_bytes(sp);
    for (int i = 0; i < FILES; i++) {
        snprintf(path[i], sizeof path[i], "%s/spool_%s_%d.bin", dir, tag, i);
        /* readable, as the engine's streams: a direct file's last block is read back */
        int fd = open(path[i], O_RDWR | O_CREAT | O_TRUNC, 0666);
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
            if (n >= SN_SPOOL_DIRECT && (r >> 9) & 1) { /* as the engine lays it out: written in place */
                sn_pack_room(&msg, SN_SPOOL_ALIGN + n);
                off = (size_t)((sn_spool_offset(f[i]) - (uintptr_t)msg.data) % SN_SPOOL_ALIGN);
            }
            unsigned char *p = sn_pack_room(&msg, off + n);
            fill(p, off + n, (size_t)frame * 7 + (size_t)k);
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
        if (frame % 3 == 1) { /* what a reader sees once the frame is written: every byte */
            CHECK(sn_spool_flush(sp, &err) == SN_OK, "flush: %s", err.msg);
            for (int i = 0; i < FILES; i++) {
                CHECK(holds_from(path[i], want[i], n_want[i], checked[i]),
                      "%s: after frame %d the file holds the %zu bytes put", path[i], frame, n_want[i]);
                checked[i] = n_want[i];
            }
        }
    }
    CHECK(direct > 10 && taken == direct, "every large message's buffer taken (%zu of %zu)", taken, direct);
    for (int i = 0; i < FILES; i++) {
        CHECK(sn_spool_close(sp, f[i], &err) == SN_OK, "close: %s", err.msg);
        CHECK(holds(path[i], want[i], n_want[i]), "%s: %zu bytes put, in order", path[i], n_want[i]);
        free(want[i]);
        remove(path[i]);
    }
    CHECK(messages > 500 && sn_spool_busy(sp) > 0, "%zu messages, the writer busy %g s", messages, sn_spool_busy(sp));
    sn_pack_free(&msg);
    *in_place = sn_spool_in_place_bytes(sp) - place0;
    return sn_spool_direct_bytes(sp) - direct0;
}

/* Whether dir's filesystem takes O_DIRECT (ext4, xfs: yes; tmpfs: no). */
static bool takes_direct(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/spool_probe", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0666);
    bool ok = false;
#ifdef STATX_DIOALIGN
    struct statx sx;
    ok = fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
         sx.stx_dio_offset_align && 4096 % sx.stx_dio_offset_align == 0 && sx.stx_dio_mem_align &&
         4096 % sx.stx_dio_mem_align == 0;
#endif
    if (fd >= 0)
        close(fd);
    remove(path);
    return ok;
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
    /* the temp folder: direct where its filesystem allows, the same bytes either way */
    uint64_t in_place;
    uint64_t d = run(sp, argv[1], "direct", &in_place);
    CHECK(takes_direct(argv[1]) ? d > (64u << 20) && in_place > (16u << 20) && in_place < d : d == 0 && in_place == 0,
          "%s: %llu bytes written direct, %llu of them in place", argv[1], (unsigned long long)d,
          (unsigned long long)in_place);
    sn_spool_direct(sp, false);
    d = run(sp, argv[1], "buffered", &in_place);
    CHECK(d == 0 && in_place == 0, "direct writes off: %llu bytes direct", (unsigned long long)d);
    sn_spool_direct(sp, true);
    /* tmpfs refuses direct I/O (statx gives no alignment): buffered, silently, the same bytes */
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
        char shm[64];
        snprintf(shm, sizeof shm, "/dev/shm/sensim_spool_%d", (int)getpid());
        if (mkdir(shm, 0700) == 0) {
            d = run(sp, shm, "tmpfs", &in_place);
            CHECK(takes_direct(shm) || d == 0, "tmpfs: %llu bytes direct", (unsigned long long)d);
            rmdir(shm);
        }
    }
    sn_pack_buf msg = {0};

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
