/* MCAP for Foxglove (issue 23), two figures:
**  - `sensim run --mcap` on the demo (scenes/town.yaml, 600 frames) against the same run without
**    it: the wall time ratio (target <= 1.15), best of 3 each, alternated so both see the same load;
**  - `sensim export mcap` of that run's folder (the process, --threads 1 and 2) against `dd`
**    writing the same number of bytes to the same folder (target >= 0.5x dd's throughput), best of
**    5 alternating rounds each, CPU beside, and the floor (the export of an empty run); the
**    export's input (the streams read)
**    and `cat` of those streams are printed beside it, since the file written is mostly PNG and
**    so a small fraction of what is read; and the honest peer, `sensim convert` writing the
**    same cameras' PNG files (the export's images are those bytes), in CPU and wall seconds, and
**    that convert against FFmpeg's PNG encoder (an independent one) on the same pictures;
**  - the MCAP writer alone (mcap_write.c: chunks, zstd, indexes, CRCs) writing 100 MB of
**    messages shaped like a run's (PNG-sized incompressible ones among small ones) against dd
**    writing the same bytes.
** argv[1]: temp folder, argv[2]: scenes folder, argv[3]: sensim. */
#include <sensim/mcap.h>

#include "../../engine/data/png.h"
#include "../../engine/views/mcap_write.h"
#include "quick.h"

#include <msgpack.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 3
#define EXPORT_ROUNDS 5

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_children(void)
{
    struct rusage u;
    getrusage(RUSAGE_CHILDREN, &u);
    return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_sec +
           1e-6 * (double)u.ru_stime.tv_usec;
}

/* Seconds a shell command takes; -1 when it fails. *cpu (may be NULL) gets the CPU seconds its
** processes used (all threads, user and system): the figure a loaded machine does not inflate. */
static double timed_cpu(const char *cmd, double *cpu)
{
    double t = now(), c = cpu_children();
    int rc = system(cmd);
    if (cpu)
        *cpu = cpu_children() - c;
    return rc == 0 ? now() - t : -1;
}

static double timed(const char *cmd) { return timed_cpu(cmd, NULL); }

static double min_of(double a, double b) { return b >= 0 && (a < 0 || b < a) ? b : a; }

/* msgpack's packer writing to a FILE */
static int to_file(void *data, const char *buf, size_t len) { return fwrite(buf, 1, len, data) == len ? 0 : -1; }

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

/* A run folder of `frames` 1280x720 camera pictures saved as PNG, the export's representative
** size (issue 36 item 5): the stream's raw pictures are holes in a sparse file (the export maps
** them and never touches the pixels of a picture whose PNG the run saved), the PNGs pictures of
** noise, incompressible like a camera's photos (about 2.8 MB each; sensim's own flat-shaded
** town compresses ten times better). Made in a second, where rendering them would take a minute. */
static bool big_run(const char *dir, int frames)
{
    enum { W = 1280, H = 720, KINDS = 4 };
    char path[4800];
    snprintf(path, sizeof path, "rm -rf '%s' && mkdir -p '%s/cam'", dir, dir);
    if (system(path) != 0)
        return false;
    snprintf(path, sizeof path, "%s/run.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs("{\"format\":\"sensim-run 1\",\"saved\":[{\"sensor\":\"cam\",\"path\":\"cam/%06d.png\",\"converter\":\"raw\"}]}\n", f);
    fclose(f);
    uint8_t *rgb = malloc((size_t)W * H * 3), *png[KINDS] = {0};
    size_t png_n[KINDS] = {0};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int k = 0; rgb && k < KINDS; k++) {
        for (size_t i = 0; i < (size_t)W * H * 3; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            rgb[i] = (uint8_t)(x >> 40);
        }
        png[k] = sn_png_encode_rgb(W, H, rgb, &png_n[k]);
    }
    free(rgb);
    snprintf(path, sizeof path, "%s/cam.msgpack", dir);
    f = fopen(path, "wb");
    bool ok = f != NULL;
    msgpack_packer pk;
    msgpack_packer_init(&pk, f, to_file);
    for (int i = 0; ok && i < frames; i++) {
        ok = png[i % KINDS] != NULL;
        char file[4800];
        snprintf(file, sizeof file, "%s/cam/%06d.png", dir, i + 1);
        FILE *p = ok ? fopen(file, "wb") : NULL;
        ok = p && fwrite(png[i % KINDS], 1, png_n[i % KINDS], p) == png_n[i % KINDS];
        if (p && fclose(p) != 0)
            ok = false;
        msgpack_pack_map(&pk, 10);
        pack_str(&pk, "frame"), msgpack_pack_uint64(&pk, (uint64_t)i + 1);
        pack_str(&pk, "timestamp"), msgpack_pack_double(&pk, 0.05 * (i + 1));
        pack_str(&pk, "sensor"), pack_str(&pk, "cam");
        pack_str(&pk, "type"), pack_str(&pk, "sensor.camera.rgb");
        pack_str(&pk, "sensor_id"), msgpack_pack_uint32(&pk, 1);
        pack_str(&pk, "transform"), msgpack_pack_map(&pk, 2);
        pack_str(&pk, "location"), msgpack_pack_array(&pk, 3);
        for (int k = 0; k < 3; k++)
            msgpack_pack_double(&pk, k == 0 ? 0.5 * i : 0);
        pack_str(&pk, "rotation"), msgpack_pack_array(&pk, 3);
        for (int k = 0; k < 3; k++)
            msgpack_pack_double(&pk, 0);
        pack_str(&pk, "width"), msgpack_pack_uint32(&pk, W);
        pack_str(&pk, "height"), msgpack_pack_uint32(&pk, H);
        pack_str(&pk, "fov"), msgpack_pack_double(&pk, 90);
        pack_str(&pk, "raw_data"), msgpack_pack_bin(&pk, (size_t)W * H * 4);
        ok = ok && fseeko(f, (off_t)W * H * 4, SEEK_CUR) == 0; /* a hole: pages never written nor read */
    }
    if (f) {
        ok = ok && fflush(f) == 0 && ftruncate(fileno(f), ftello(f)) == 0;
        ok = fclose(f) == 0 && ok;
    }
    for (int k = 0; k < KINDS; k++)
        free(png[k]);
    return ok;
}

/* `sensim export mcap` of run (--threads 1 and 2) against dd writing the same bytes to the same
** folder and the floor, best of `rounds` alternating rounds; prints one block of figures. */
static bool export_vs_dd(const char *label, const char *sensim, const char *dir, const char *run, int rounds)
{
    char cmd[16384], out[2300];
    snprintf(out, sizeof out, "%s/export.mcap", dir);
    double exp1 = -1, exp2 = -1, exp1_cpu = -1, exp2_cpu = -1, floor_t = -1, floor_cpu = -1, dd_t = -1, dd_cpu = -1, c;
    double bytes = 0;
    for (int r = 0; r < rounds; r++) {
        for (int th = 1; th <= 2; th++) {
            snprintf(cmd, sizeof cmd, "rm -f '%s' && '%s' export mcap '%s' --out '%s' --threads %d >/dev/null", out, sensim, run,
                     out, th);
            double t = timed_cpu(cmd, &c);
            if (t < 0) {
                fprintf(stderr, "bench_mcap: %s failed\n", cmd);
                return false;
            }
            if (th == 1)
                exp1 = min_of(exp1, t), exp1_cpu = min_of(exp1_cpu, c);
            else
                exp2 = min_of(exp2, t), exp2_cpu = min_of(exp2_cpu, c);
        }
        struct stat st;
        if (stat(out, &st) != 0)
            return false;
        bytes = (double)st.st_size;
        snprintf(cmd, sizeof cmd, "rm -f '%s/dd.bin' && dd if=/dev/zero of='%s/dd.bin' bs=65536 count=%.0f status=none", dir, dir,
                 bytes / 65536 + 1);
        dd_t = min_of(dd_t, timed_cpu(cmd, &c));
        dd_cpu = min_of(dd_cpu, c);
        snprintf(cmd, sizeof cmd, "rm -f '%s/empty.mcap' && '%s' export mcap '%s/empty' --out '%s/empty.mcap' >/dev/null", dir,
                 sensim, dir, dir);
        floor_t = min_of(floor_t, timed_cpu(cmd, &c));
        floor_cpu = min_of(floor_cpu, c);
    }
    snprintf(cmd, sizeof cmd, "rm -f '%s' '%s/dd.bin' '%s/empty.mcap'", out, dir, dir);
    if (system(cmd) != 0)
        return false;
    printf("ratio export / dd, wall, --threads 2, %s: %.2f (`sensim export mcap` writes %.1f MB in %.3f s, %.3f s of CPU; dd the "
           "same bytes in %.3f s, %.3f s of CPU; best of %d alternating rounds; target >= 0.5)\n",
           label, dd_t / exp2, bytes / 1e6, exp2, exp2_cpu, dd_t, dd_cpu, rounds);
    printf("ratio export / dd, wall, --threads 1, %s: %.2f (%.3f s, %.3f s of CPU)\n", label, dd_t / exp1, exp1, exp1_cpu);
    printf("ratio export / dd, CPU, --threads 2, %s: %.2f (--threads 1: %.2f)\n", label, dd_cpu / exp2_cpu, dd_cpu / exp1_cpu);
    printf("ratio floor: dd / export of an empty run, wall, beside %s: %.2f (%.3f s, %.3f s of CPU: start-up, an empty file; "
           "at this size the export can come no nearer dd than this)\n",
           label, dd_t / floor_t, floor_t, floor_cpu);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *tmp = argv[1], *scenes = argv[2], *sensim = argv[3];
    char dir[2048], cmd[16384];
    snprintf(dir, sizeof dir, "%s/bench_mcap", tmp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;

    /* ---- --mcap overhead on the demo run ---- */
    double plain = -1, with = -1, plain_cpu = -1, with_cpu = -1, c;
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s/plain' && '%s' run '%s/town.yaml' --out '%s/plain' --quiet", dir, sensim, scenes, dir);
        plain = min_of(plain, timed_cpu(cmd, &c));
        plain_cpu = min_of(plain_cpu, c);
        snprintf(cmd, sizeof cmd, "rm -rf '%s/with' '%s/run.mcap' && '%s' run '%s/town.yaml' --out '%s/with' --mcap '%s/run.mcap' --quiet",
                 dir, dir, sensim, scenes, dir, dir);
        with = min_of(with, timed_cpu(cmd, &c));
        with_cpu = min_of(with_cpu, c);
    }
    if (plain <= 0 || with <= 0) {
        fprintf(stderr, "bench_mcap: the demo run failed\n");
        return 1;
    }
    printf("ratio --mcap demo run / without: %.2f (%.2f s vs %.2f s wall, best of %d; target <= 1.15)\n", with / plain, with,
           plain, ROUNDS);
    printf("ratio --mcap demo run / without, CPU: %.2f (%.2f s vs %.2f s of CPU, all threads)\n", with_cpu / plain_cpu,
           with_cpu, plain_cpu);

    /* ---- the export against dd writing the same bytes to the same folder (issue 36 item 5):
    ** both as processes (`sensim export mcap` with its start-up, `dd` with its), in alternating
    ** rounds so both see the same load, best of EXPORT_ROUNDS each, with --threads 1 and 2; CPU
    ** seconds (all threads) beside. The floor: the same command on a run of one empty stream
    ** (no map, no frames), the fixed cost no per-byte work can remove. ---- */
    char out[2200], run[2200];
    snprintf(run, sizeof run, "%s/with", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/empty' && : > '%s/empty/actors.msgpack'", dir, dir);
    if (system(cmd) != 0)
        return 1;
    const int export_rounds = bench_rounds(EXPORT_ROUNDS);
    if (!export_vs_dd("the demo", sensim, dir, run, export_rounds))
        return 1;
    /* the representative size: 1280x720 PNGs, over 100 MB, where the start-up is amortized */
    {
        char big[2300];
        snprintf(big, sizeof big, "%s/big", dir);
        const int frames = export_rounds > 1 ? 60 : 40;
        if (!big_run(big, frames)) {
            fprintf(stderr, "bench_mcap: cannot make the 1280x720 run in %s\n", big);
            return 1;
        }
        char label[64];
        snprintf(label, sizeof label, "%d PNGs 1280x720", frames);
        if (!export_vs_dd(label, sensim, dir, big, export_rounds))
            return 1;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", big);
        if (system(cmd) != 0)
            return 1;
    }
    /* the demo once more, for the figures against cat and convert below */
    double exp_t = -1, exp_cpu = -1;
    snprintf(out, sizeof out, "%s/export.mcap", dir);
    snprintf(cmd, sizeof cmd, "rm -f '%s' && '%s' export mcap '%s' --out '%s' --threads 2 >/dev/null", out, sensim, run, out);
    for (int r = 0; r < export_rounds; r++) {
        double t = timed_cpu(cmd, &c);
        if (t < 0)
            return 1;
        exp_t = min_of(exp_t, t), exp_cpu = min_of(exp_cpu, c);
    }

    /* what the export read: the streams of the run */
    snprintf(cmd, sizeof cmd, "cat '%s'/*.msgpack | wc -c > '%s/in_bytes'", run, dir);
    double in_bytes = 0;
    if (system(cmd) == 0) {
        snprintf(cmd, sizeof cmd, "%s/in_bytes", dir);
        FILE *f = fopen(cmd, "r");
        if (f && fscanf(f, "%lf", &in_bytes) != 1)
            in_bytes = 0;
        if (f)
            fclose(f);
    }
    double cat_t = -1, png_t = -1, png_cpu = -1;
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(cmd, sizeof cmd, "cat '%s'/*.msgpack > '%s/cat.bin'", run, dir);
        cat_t = min_of(cat_t, timed(cmd));
        /* the peer doing the same work: the demo's cameras as the PNG files whose bytes the
        ** export's images are (sensim convert, one stream after the other, one thread each) */
        snprintf(cmd, sizeof cmd,
                 "R='%s' P='%s/png' && rm -rf \"$P\" && mkdir -p \"$P\" && "
                 "'%s' convert \"$R/hero_rgb.msgpack\" --out \"$P/rgb\" >/dev/null && "
                 "'%s' convert \"$R/hero_depth.msgpack\" --converter logarithmic_depth --out \"$P/depth\" >/dev/null && "
                 "'%s' convert \"$R/hero_semantic.msgpack\" --converter cityscapes --out \"$P/semantic\" >/dev/null",
                 run, dir, sensim, sensim, sensim);
        png_t = min_of(png_t, timed_cpu(cmd, &c));
        png_cpu = min_of(png_cpu, c);
    }
    /* an independent PNG encoder on the same pictures: FFmpeg's (zlib), one thread, the same
    ** filter (Up) and level (3) as sensim's, against `sensim convert` of the same camera */
    double ff_t = -1, ff_cpu = -1, cv_t = -1, cv_cpu = -1;
    uint32_t pw = 0, ph = 0;
    size_t pictures = 0;
    {
        char raw[2300], stream[2300];
        snprintf(raw, sizeof raw, "%s/rgb.raw", dir);
        snprintf(stream, sizeof stream, "%s/hero_rgb.msgpack", run);
        sn_error err = {0};
        sn_stream_reader *rd = sn_stream_reader_open(stream, &err);
        FILE *f = rd ? fopen(raw, "wb") : NULL;
        sn_message msg;
        sn_picture pic;
        while (f && sn_stream_reader_next(rd, &msg, &err) == SN_OK &&
               sn_stream_reader_picture(rd, SN_COLOR_RAW, false, &pic, &err) == SN_OK) {
            pw = pic.width, ph = pic.height;
            pictures += fwrite(pic.rgb, (size_t)pic.width * pic.height * 3, 1, f);
        }
        if (f)
            fclose(f);
        sn_stream_reader_close(rd);
    }
    bool have_ffmpeg = system("command -v ffmpeg >/dev/null 2>&1") == 0 && pictures > 0;
    for (int r = 0; have_ffmpeg && r < ROUNDS; r++) {
        snprintf(cmd, sizeof cmd,
                 "rm -rf '%s/ff' && mkdir -p '%s/ff' && ffmpeg -v error -threads 1 -f rawvideo -pix_fmt rgb24 -s %ux%u "
                 "-i '%s/rgb.raw' -threads 1 -c:v png -pred up -compression_level 3 '%s/ff/%%06d.png'",
                 dir, dir, pw, ph, dir, dir);
        ff_t = min_of(ff_t, timed_cpu(cmd, &c));
        ff_cpu = min_of(ff_cpu, c);
        snprintf(cmd, sizeof cmd, "rm -rf '%s/cv' && mkdir -p '%s/cv' && '%s' convert '%s/hero_rgb.msgpack' --out '%s/cv/rgb' >/dev/null",
                 dir, dir, sensim, run, dir);
        cv_t = min_of(cv_t, timed_cpu(cmd, &c));
        cv_cpu = min_of(cv_cpu, c);
    }
    /* raw images in stored chunks: output bytes about the input's, so dd is a fair peer here */
    double raw_t = -1, raw_dd = -1, raw_bytes = 0;
    {
        char rawout[2300];
        snprintf(rawout, sizeof rawout, "%s/export_raw.mcap", dir);
        sn_mcap_options ro = {.struct_size = sizeof ro, .zstd_level = -1, .raw_images = true};
        for (int r = 0; r < ROUNDS; r++) {
            remove(rawout);
            sn_error err = {0};
            double t = now();
            if (sn_mcap_export(run, rawout, NULL, &ro, &err) != SN_OK) {
                fprintf(stderr, "bench_mcap: export --raw-images --zstd-level 0: %s\n", err.msg);
                return 1;
            }
            raw_t = min_of(raw_t, now() - t);
        }
        struct stat rs;
        raw_bytes = stat(rawout, &rs) == 0 ? (double)rs.st_size : 0;
        for (int r = 0; r < ROUNDS; r++) {
            snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s/dd.bin' bs=1M count=%.0f status=none", dir,
                     raw_bytes / 1048576 + 1);
            raw_dd = min_of(raw_dd, timed(cmd));
        }
        remove(rawout);
    }
    printf("ratio export --raw-images --zstd-level 0 / dd throughput: %.2f (%.1f MB of raw images in stored chunks in "
           "%.3f s = %.1f MB/s; dd bs=1M the same size in %.3f s = %.1f MB/s; target >= 0.5)\n",
           raw_dd / raw_t, raw_bytes / 1e6, raw_t, raw_bytes / 1e6 / raw_t, raw_dd, raw_bytes / 1e6 / raw_dd);
    printf("ratio export / cat of its input: %.2f (the export reads %.1f MB of streams at %.1f MB/s; cat copies them at "
           "%.1f MB/s)\n",
           cat_t / exp_t, in_bytes / 1e6, in_bytes / 1e6 / exp_t, in_bytes / 1e6 / cat_t);
    printf("ratio export / convert of its cameras to PNG files, CPU: %.2f (%.3f s vs %.3f s of CPU; the same PNGs: the "
           "export's own cost is what it adds)\n",
           exp_cpu / png_cpu, exp_cpu, png_cpu);
    printf("ratio export / convert of its cameras to PNG files, wall: %.2f (%.3f s vs %.3f s; the export encodes on "
           "every core)\n",
           exp_t / png_t, exp_t, png_t);

    if (have_ffmpeg && ff_cpu > 0 && cv_cpu > 0)
        printf("ratio sensim convert / FFmpeg's PNG encoder, CPU: %.2f (%zu pictures %ux%u: %.3f s vs %.3f s of CPU, "
               "both one thread, filter Up, level 3; < 1 = sensim faster)\n",
               cv_cpu / ff_cpu, pictures, pw, ph, cv_cpu, ff_cpu);
    else
        printf("FFmpeg's PNG encoder: not measured (no ffmpeg)\n");

    /* ---- the writer alone ---- */
    enum { BIG = 100000, SMALL = 400, N_BIG = 900, SMALL_PER_BIG = 20 };
    uint8_t *big = malloc((size_t)BIG * N_BIG), small[SMALL];
    if (!big)
        return 1;
    uint64_t x = 88172645463325252ull; /* xorshift: every image different and incompressible, like PNGs */
    for (size_t i = 0; i < (size_t)BIG * N_BIG; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        big[i] = (uint8_t)(x >> 32);
    }
    for (size_t i = 0; i < SMALL; i++)
        small[i] = (uint8_t)(i % 7); /* a transform's repetitive bytes */
    double w_t = -1, w_bg = -1, w_bytes = 0;
    for (int r = 0; r < 2 * ROUNDS; r++) { /* alternating: inline, then zstd on the writer's thread */
        bool bg = r % 2;
        snprintf(out, sizeof out, "%s/writer.mcap", dir);
        FILE *f = fopen(out, "wb");
        sn_error err = {0};
        double t = now();
        sn_mcapw *w = f ? sn_mcapw_open(f, "bench", 1, 0, &err) : NULL;
        if (!w || (bg && !sn_mcapw_background(w)))
            return 1;
        uint16_t sid = sn_mcapw_schema(w, "bench", "", "", 0);
        uint16_t ci = sn_mcapw_channel(w, "/image", sid, "protobuf"), ct = sn_mcapw_channel(w, "/tf", sid, "protobuf");
        for (int i = 0; i < N_BIG; i++) {
            if (sn_mcapw_message(w, ci, (uint64_t)i * 50000000u, big + (size_t)i * BIG, BIG, &err))
                return 1;
            for (int k = 0; k < SMALL_PER_BIG; k++)
                if (sn_mcapw_message(w, ct, (uint64_t)i * 50000000u + (uint64_t)k, small, SMALL, &err))
                    return 1;
        }
        if (sn_mcapw_finish(w, &err))
            return 1;
        w_bytes = (double)sn_mcapw_bytes(w);
        sn_mcapw_free(w);
        fclose(f);
        if (bg)
            w_bg = min_of(w_bg, now() - t);
        else
            w_t = min_of(w_t, now() - t);
    }
    free(big);
    double dd2 = -1;
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s/dd.bin' bs=65536 count=%.0f status=none", dir, w_bytes / 65536 + 1);
        dd2 = min_of(dd2, timed(cmd));
    }
    printf("ratio MCAP writer / dd throughput: %.2f (the writer: %.1f MB in %.3f s = %.0f MB/s; dd: %.3f s = %.0f MB/s; "
           "target >= 0.5)\n",
           dd2 / w_t, w_bytes / 1e6, w_t, w_bytes / 1e6 / w_t, dd2, w_bytes / 1e6 / dd2);
    printf("ratio MCAP writer with its compressor thread / dd throughput: %.2f (%.3f s = %.0f MB/s; inline / thread %.2f)\n",
           dd2 / w_bg, w_bg, w_bytes / 1e6 / w_bg, w_t / w_bg);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
