/* Output costs, each beside a baseline measured in the same run: PNG encoding of the
** intersection scene's dashboard camera images with libdeflate (sensim) vs stb's own zlib
** (Debian's libstb, what sensim used before); and writing a camera stream as the engine does
** (one fwrite per message) vs dd copying the same bytes to the same folder.
** argv[1]: temp folder, argv[2]: scenes folder, argv[3]: plugin folder. */
#include "../../engine/data/image.h"
#include "../../engine/data/png.h"

#include <msgpack.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    char cmd[16384], out[4096], stream[4200], path[4300];
    snprintf(out, sizeof out, "%s/bench_outputs", argv[1]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    (void)!system(cmd);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = argv[3], .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    snprintf(path, sizeof path, "%s/intersection.yaml", argv[2]);
    if (!e || sn_engine_load_scene(e, path, &err) || sn_engine_open_outputs(e, out, &err)) {
        fprintf(stderr, "bench_outputs: %s\n", err.msg);
        return 1;
    }
    sn_engine_set_frames(e, 120);
    double t0 = now();
    if (sn_engine_run(e, 0, &err)) {
        fprintf(stderr, "bench_outputs: %s\n", err.msg);
        return 1;
    }
    double run_s = now() - t0;
    sn_engine_destroy(e);
    snprintf(stream, sizeof stream, "%s/hero_rgb.msgpack", out);
    size_t n = 0, off = 0;
    char *buf = slurp(stream, &n);
    if (!buf) {
        fprintf(stderr, "bench_outputs: no %s\n", stream);
        return 1;
    }
    /* every image of the stream, as RGB */
    uint8_t *rgb[64];
    int W = 0, H = 0, images = 0;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t sizes[64];
    int n_msgs = 0;
    size_t prev = 0;
    while (images < 64 && msgpack_unpack_next(&u, buf, n, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *raw = get(&u.data, "raw_data");
        W = (int)get(&u.data, "width")->via.u64;
        H = (int)get(&u.data, "height")->via.u64;
        rgb[images] = malloc((size_t)W * H * 3);
        sn_convert_bgra(SN_CONV_RAW, (const uint8_t *)raw->via.bin.ptr, (size_t)W * H, rgb[images]);
        images++;
        sizes[n_msgs++] = off - prev;
        prev = off;
    }
    msgpack_unpacked_destroy(&u);
    /* PNG: stb's zlib vs libdeflate, the same images, alternating rounds */
    double t_stb = 1e30, t_ld = 1e30;
    for (int round = 0; round < 3; round++) {
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
        t_stb = b - a < t_stb ? b - a : t_stb;
        t_ld = c - b < t_ld ? c - b : t_ld;
    }
    size_t stb_bytes = 0, ld_bytes = 0;
    snprintf(path, sizeof path, "%s/stb.png", out);
    free(slurp(path, &stb_bytes));
    snprintf(path, sizeof path, "%s/ld.png", out);
    free(slurp(path, &ld_bytes));
    printf("png      %d images %dx%d: stb zlib %.2f ms/image, libdeflate %.2f ms/image (%zu vs %zu bytes, last image)\n",
           images, W, H, 1e3 * t_stb / images, 1e3 * t_ld / images, stb_bytes, ld_bytes);
    printf("ratio png_encode libdeflate_speedup_vs_stb %.2f\n", t_stb / t_ld);
    printf("engine   intersection 120 frames with PNG saving: %.3f s\n", run_s);
    /* stream writing: the camera stream's messages, one fwrite each as sn_stream_emit does,
    ** repeated to ~64 MiB, beside dd copying a file of the same bytes to the same folder */
    int reps = (int)((64u << 20) / (n ? n : 1)) + 1;
    double best_w = 1e30, best_dd = 1e30;
    snprintf(path, sizeof path, "%s/big.msgpack", out);
    FILE *f = fopen(path, "wb");
    for (int r = 0; r < reps; r++)
        fwrite(buf, 1, n, f);
    fclose(f);
    for (int round = 0; round < 3; round++) {
        double a = now();
        snprintf(path, sizeof path, "%s/w.msgpack", out);
        f = fopen(path, "wb");
        for (int r = 0; r < reps; r++) {
            size_t p = 0;
            for (int m = 0; m < n_msgs; m++) {
                fwrite(buf + p, 1, sizes[m], f);
                p += sizes[m];
            }
        }
        fclose(f);
        double b = now();
        snprintf(cmd, sizeof cmd, "dd if='%s/big.msgpack' of='%s/dd.msgpack' bs=1M status=none", out, out);
        (void)!system(cmd);
        double c = now();
        best_w = b - a < best_w ? b - a : best_w;
        best_dd = c - b < best_dd ? c - b : best_dd;
    }
    double mb = (double)n * reps / 1048576.0;
    printf("engine   stream write %.0f MiB: %.0f MiB/s; dd to the same folder %.0f MiB/s\n", mb, mb / best_w, mb / best_dd);
    printf("ratio stream_write_vs_dd %.2f\n", best_dd / best_w);
    for (int i = 0; i < images; i++)
        free(rgb[i]);
    free(buf);
    return 0;
}
