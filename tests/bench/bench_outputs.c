/* Output costs, each beside a baseline measured in the same run (figures in docs/performance.md):
** 1. the engine's stream write path: a camera scene run through the public API with its
**    outputs open, against the same run without outputs; the difference is what writing the
**    stream costs, as bytes per second beside dd copying the same bytes to the same folder
**    (/dev/shm when there is one: tmpfs, so the disk does not decide);
** 2. the demo (scenes/intersection.yaml) in real-time factor: no outputs, streams only, and
**    streams with its PNG saves (encoded on the engine's writer thread);
**    Beside the wall-clock factors, the CPU seconds of all the process's threads (on a loaded
**    machine the image writers cannot run beside the frame loop for free, and the CPU ratio is
**    what the load does not inflate) and of the frame loop's own thread (what the run costs in
**    wall time where a core is free for the writers);
** 3. PNG encoding of its dashboard images: sensim's writer (png.c) vs stb_image_write.
** Each figure is the best of alternating rounds. argv[1]: temp folder, argv[2]: scenes
** folder, argv[3]: plugin folder. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "../../engine/data/image.h"
#include "../../engine/data/png.h"

#include <msgpack.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 3

static const char *plugins;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const msgpack_object *get(const msgpack_object *m, const char *k)
{
    for (uint32_t i = 0; i < m->via.map.size; i++)
        if (m->via.map.ptr[i].key.via.str.size == strlen(k) && !memcmp(m->via.map.ptr[i].key.via.str.ptr, k, strlen(k)))
            return &m->via.map.ptr[i].val;
    return NULL;
}

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc(*n ? *n : 1);
    if (b && fread(b, 1, *n, f) != *n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    return b;
}

static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[9000];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    (void)!system(cmd);
}

static double cpu_now(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

static double last_cpu, last_thread; /* CPU seconds of the last run (all threads; the frame loop's), loading excluded */

/* Seconds to step `scene` `frames` frames (loading excluded), outputs in `out` or none. */
static double run(const char *scene, const char *out, uint64_t frames)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (out)
        sh("rm -rf '%s'%s", out, "");
    if (!e || sn_engine_load_scene(e, scene, &err) || (out && sn_engine_open_outputs(e, out, &err))) {
        fprintf(stderr, "bench_outputs: %s\n", err.msg);
        exit(1);
    }
    sn_engine_set_frames(e, frames);
    double t0 = now(), c0 = cpu_now(RUSAGE_SELF), f0 = cpu_now(RUSAGE_THREAD);
    if (sn_engine_run(e, 0, &err)) {
        fprintf(stderr, "bench_outputs: %s\n", err.msg);
        exit(1);
    }
    double t = now() - t0;
    last_cpu = cpu_now(RUSAGE_SELF) - c0; /* sn_engine_run waits for the image writers */
    last_thread = cpu_now(RUSAGE_THREAD) - f0;
    sn_engine_destroy(e);
    return t;
}

static double min(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    plugins = argv[3];
    char out[2048], fast[2100], scene[4200], path[4300], stream[4300];
    snprintf(out, sizeof out, "%s/bench_outputs", argv[1]);
    sh("rm -rf '%s' && mkdir -p '%s'", out, out);
    /* tmpfs when there is one, so both sides write to memory */
    if (access("/dev/shm", W_OK) == 0)
        snprintf(fast, sizeof fast, "/dev/shm/sensim_bench_%d", (int)getpid());
    else
        snprintf(fast, sizeof fast, "%s/fast", out);
    sh("mkdir -p '%s'%s", fast, "");

    /* 1. stream writing: a 1280x720 depth camera over an empty world (cheap to render), its
    ** run with outputs against the same run without */
    snprintf(scene, sizeof scene, "%s/stream.yaml", out);
    FILE *f = fopen(scene, "w");
    fputs("settings: {frames: 60}\nsensors:\n  - {name: cam, blueprint: sensor.camera.depth,"
          " attributes: {image_size_x: 1280, image_size_y: 720, depth_float: true}}\n", f);
    fclose(f);
    snprintf(stream, sizeof stream, "%s/run", fast);
    double t_out = 1e30, t_none = 1e30, t_dd = 1e30;
    struct stat st;
    for (int r = 0; r < ROUNDS; r++) {
        t_none = min(t_none, run(scene, NULL, 60));
        t_out = min(t_out, run(scene, stream, 60));
        snprintf(path, sizeof path, "%s/run/cam.msgpack", fast);
        if (stat(path, &st) != 0) {
            fprintf(stderr, "bench_outputs: no %s\n", path);
            return 1;
        }
        char cmd[16384];
        snprintf(cmd, sizeof cmd, "cp '%s' '%s/src.msgpack' && cat '%s/src.msgpack' >/dev/null", path, fast, fast);
        (void)!system(cmd);
        double a = now();
        snprintf(cmd, sizeof cmd, "dd if='%s/src.msgpack' of='%s/dd.msgpack' bs=1M status=none", fast, fast);
        (void)!system(cmd);
        t_dd = min(t_dd, now() - a);
    }
    double mib = (double)st.st_size / 1048576.0, t_write = t_out - t_none;
    if (t_write <= 0)
        t_write = 1e-6; /* within the noise: writing cost nothing measurable */
    printf("engine   stream write %.0f MiB (60 frames 1280x720 depth + float): run %.3f s with outputs, %.3f s without;"
           " writing %.0f MiB/s, dd to the same folder (%s) %.0f MiB/s\n",
           mib, t_out, t_none, mib / t_write, fast, mib / t_dd);
    printf("ratio stream_write_vs_dd %.2f\n", t_dd / t_write);
    sh("rm -rf '%s'%s", fast, "");

    /* 2. the demo: no outputs, streams only, streams and PNGs (the scene without its save lines) */
    char demo[4300], nosave[4300];
    snprintf(demo, sizeof demo, "%s/intersection.yaml", argv[2]);
    snprintf(nosave, sizeof nosave, "%s/nosave.yaml", out);
    /* the copy lives elsewhere: its map path, relative to scenes/, made absolute */
    char cmd[13000];
    snprintf(cmd, sizeof cmd, "grep -v '^ *save:' '%s' | sed 's|^map: |map: %s/|' > '%s'", demo, argv[2], nosave);
    (void)!system(cmd);
    snprintf(path, sizeof path, "%s/demo", out);
    const uint64_t frames = 400; /* the scene's 20 s */
    double t_plain = 1e30, t_streams = 1e30, t_png = 1e30, c_plain = 1e30, c_png = 1e30, f_plain = 1e30, f_png = 1e30;
    for (int r = 0; r < ROUNDS; r++) {
        t_plain = min(t_plain, run(demo, NULL, frames));
        c_plain = min(c_plain, last_cpu);
        f_plain = min(f_plain, last_thread);
        t_streams = min(t_streams, run(nosave, path, frames));
        t_png = min(t_png, run(demo, path, frames));
        c_png = min(c_png, last_cpu);
        f_png = min(f_png, last_thread);
    }
    double sim = frames * 0.05;
    printf("engine   demo %.0f s simulated: %.1fx real time without outputs, %.1fx with streams, %.1fx with streams and PNGs\n",
           sim, sim / t_plain, sim / t_streams, sim / t_png);
    printf("ratio demo_png_saving_vs_streams_only %.2f\n", t_streams / t_png);
    printf("ratio demo_png_saving_vs_no_outputs %.2f (target >= 0.8)\n", t_plain / t_png);
    printf("engine   demo CPU of all threads: %.3f s without outputs, %.3f s with streams and PNGs\n", c_plain, c_png);
    printf("ratio demo_png_saving_vs_no_outputs_cpu %.2f\n", c_plain / c_png);
    printf("engine   demo CPU of the frame loop's thread: %.3f s without outputs, %.3f s with streams and PNGs\n", f_plain,
           f_png);
    printf("ratio demo_png_saving_vs_no_outputs_frame_thread %.2f (the wall ratio where a core is free for the writers)\n",
           f_plain / f_png);

    /* 3. PNG encoding: the hero_rgb images of the last demo run, stb's zlib vs libdeflate */
    snprintf(stream, sizeof stream, "%s/demo/hero_rgb.msgpack", out);
    size_t n = 0, off = 0;
    char *buf = slurp(stream, &n);
    if (!buf) {
        fprintf(stderr, "bench_outputs: no %s\n", stream);
        return 1;
    }
    uint8_t *rgb[64];
    int W = 0, H = 0, images = 0;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    while (images < 64 && msgpack_unpack_next(&u, buf, n, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *raw = get(&u.data, "raw_data");
        W = (int)get(&u.data, "width")->via.u64;
        H = (int)get(&u.data, "height")->via.u64;
        rgb[images] = malloc((size_t)W * H * 3);
        sn_convert_bgra(SN_CONV_RAW, (const uint8_t *)raw->via.bin.ptr, (size_t)W * H, rgb[images]);
        images++;
    }
    msgpack_unpacked_destroy(&u);
    double t_stb = 1e30, t_ld = 1e30;
    for (int round = 0; round < ROUNDS; round++) {
        double a = now();
        for (int i = 0; i < images; i++) {
            snprintf(path, sizeof path, "%s/stb.png", out);
            stbi_write_png(path, W, H, 3, rgb[i], W * 3);
        }
        double b = now();
        for (int i = 0; i < images; i++) {
            snprintf(path, sizeof path, "%s/ld.png", out);
            sn_png_write_rgb(path, W, H, rgb[i]);
        }
        double c = now();
        t_stb = min(t_stb, b - a);
        t_ld = min(t_ld, c - b);
    }
    size_t stb_bytes = 0, ld_bytes = 0;
    snprintf(path, sizeof path, "%s/stb.png", out);
    free(slurp(path, &stb_bytes));
    snprintf(path, sizeof path, "%s/ld.png", out);
    free(slurp(path, &ld_bytes));
    printf("png      %d images %dx%d: stb_image_write %.2f ms/image, sensim's writer %.2f ms/image (%zu vs %zu bytes, "
           "last image)\n", images, W, H, 1e3 * t_stb / images, 1e3 * t_ld / images, stb_bytes, ld_bytes);
    printf("ratio png_encode sensim_speedup_vs_stb %.2f\n", t_stb / t_ld);
    for (int i = 0; i < images; i++)
        free(rgb[i]);
    free(buf);
    return 0;
}
