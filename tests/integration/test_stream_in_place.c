/* Large stream messages are written from their own buffers (save50): the engine lays a large
** message out where its address agrees with its file offset (serialize_one's guess from the
** sensor's last message), so the spool's direct writes take its whole blocks in place instead
** of copying them into the stage. If the guess broke, every byte would still reach the file
** through the stage and no other test would notice; this one reads the spool's in-place count.
** A 320x240 depth camera (307 200-byte images, above SN_SPOOL_DIRECT) runs FRAMES frames into
** the build's temp folder (ext4 here; 77, skipped, where statx offers no direct I/O): most of
** its stream's bytes must go in place, and the stream must equal, byte for byte, that of the
** same run with direct I/O off. argv[1]: temp folder, argv[2]: camera plugin folder. */
#define _GNU_SOURCE /* O_DIRECT, statx */
#include "../../engine/output/spool.h"
#include "../../engine/sim/engine.h"
#include "../check.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FRAMES 12

static const char *plugins;

/* Whether dir's filesystem takes O_DIRECT with an alignment the spool accepts (as spool.c asks). */
static bool takes_direct(const char *dir)
{
    bool ok = false;
#ifdef STATX_DIOALIGN
    char path[2200];
    snprintf(path, sizeof path, "%s/in_place_probe", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    struct statx sx;
    ok = fd >= 0 && statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) &&
         sx.stx_dio_offset_align && SN_SPOOL_ALIGN % sx.stx_dio_offset_align == 0 && sx.stx_dio_mem_align &&
         SN_SPOOL_ALIGN % sx.stx_dio_mem_align == 0;
    if (fd >= 0)
        close(fd);
    remove(path);
#else
    (void)dir;
#endif
    return ok;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)size)) && fread(b, 1, (size_t)size, f) != (size_t)size) {
        free(b);
        b = NULL;
    }
    if (f)
        fclose(f);
    *n = b ? (size_t)size : 0;
    return b;
}

/* Runs the scene into out; *direct and *in_place: the spool's counts. Direct I/O off: the spool
** is made before the outputs open (the stream opens it only when there is none), told so. */
static bool run(const char *scene, const char *out, bool direct_io, uint64_t *direct, uint64_t *in_place)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    bool ok = e && sn_engine_load_scene(e, scene, &err) == SN_OK;
    if (ok && !direct_io && (ok = (e->spool = sn_spool_create(&err)) != NULL))
        sn_spool_direct(e->spool, false);
    ok = ok && sn_engine_open_outputs(e, out, &err) == SN_OK && sn_engine_run(e, 0, &err) == SN_OK;
    CHECK(ok, "run into %s: %s", out, err.msg);
    *direct = sn_spool_direct_bytes(e ? e->spool : NULL);
    *in_place = sn_spool_in_place_bytes(e ? e->spool : NULL);
    sn_engine_destroy(e);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    plugins = argv[2];
    char dir[2048], scene[2100], out_a[2100], out_b[2100], cmd[4400];
    snprintf(dir, sizeof dir, "%s/stream_in_place_%d", argv[1], (int)getpid());
    snprintf(scene, sizeof scene, "%s/scene.yaml", dir);
    snprintf(out_a, sizeof out_a, "%s/direct", dir);
    snprintf(out_b, sizeof out_b, "%s/buffered", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;
    if (!takes_direct(dir)) {
        fprintf(stderr, "%s: no direct I/O on this filesystem (statx): skipped\n", dir);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        return system(cmd) != 0 ? 1 : 77;
    }
    FILE *f = fopen(scene, "w");
    if (!f)
        return 1;
    /* a car in view: the image is not one value */
    fprintf(f, "settings: {frames: %d}\n"
               "actors:\n  - {name: car, blueprint: vehicle.sedan, transform: {location: [12, 1, 0]}}\n"
               "sensors:\n  - {name: cam, blueprint: sensor.camera.depth, transform: {location: [0, 0, 1.5]},"
               " attributes: {image_size_x: 320, image_size_y: 240}}\n",
            FRAMES);
    fclose(f);

    uint64_t direct = 0, in_place = 0, direct_b = 0, in_place_b = 0;
    bool ok = run(scene, out_a, true, &direct, &in_place) && run(scene, out_b, false, &direct_b, &in_place_b);
    char pa[2200], pb[2200];
    snprintf(pa, sizeof pa, "%s/cam.msgpack", out_a);
    snprintf(pb, sizeof pb, "%s/cam.msgpack", out_b);
    size_t na = 0, nb = 0;
    unsigned char *a = ok ? slurp(pa, &na) : NULL, *b = ok ? slurp(pb, &nb) : NULL;
    CHECK(a && na > (size_t)FRAMES * 320 * 240 * 4, "%s: %zu bytes", pa, na);
    fprintf(stderr, "stream %zu bytes: %llu written direct, %llu of them in place\n", na, (unsigned long long)direct,
            (unsigned long long)in_place);
    /* every message after the first is laid out from its predecessor's size: all of them but
    ** the first and each one's partial blocks at its ends go in place */
    CHECK(in_place <= direct && in_place > na * 3 / 4, "%llu of the stream's %zu bytes written in place (%llu direct)",
          (unsigned long long)in_place, na, (unsigned long long)direct);
    CHECK(direct_b == 0 && in_place_b == 0, "direct I/O off: %llu bytes direct, %llu in place",
          (unsigned long long)direct_b, (unsigned long long)in_place_b);
    CHECK(a && b && na == nb && !memcmp(a, b, na), "the stream written in place (%zu bytes) differs from the one "
          "written buffered (%zu bytes)", na, nb);
    free(a);
    free(b);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    return CHECK_DONE();
}
