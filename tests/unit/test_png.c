/* The PNG writer (engine/data/png.c) and the logarithmic_depth table (image.c):
**  - every image decodes (chunk CRCs recomputed bit by bit here, zlib stream inflated, the five
**    PNG filters undone here) to its pixels, at sizes with 1-3 byte rows and odd widths, and on
**    pictures that make each filter win (flat rows, vertical gradients, noise);
**  - the bytes are the same on any thread, and from the file writer;
**  - the table's logarithmic_depth equals CARLA's formula for all 2^24 depth codes;
**  - the MCAP share table (png_share.c): a published ticket is taken once, a dropped or
**    unwanted one is not kept. */
#include "../../engine/data/image.h"
#include "../../engine/data/png.h"
#include "../../engine/data/png_share.h"
#include "../../engine/data/zrle.h"
#include "../png_decode.h"

#include <sensim/mcap.h>

#include <libdeflate.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            failures++;                                                                                                \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                                \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
        }                                                                                                              \
    } while (0)

static uint8_t filters[4096]; /* the filter of each row of the image last decoded */

static uint8_t *decode(const uint8_t *f, size_t n, int *w, int *h) { return tu_png_decode(f, n, w, h, filters); }

/* kind 0: noise; 1: flat bands (Sub/None win); 2: vertical gradient (Up wins); 3: a mix. */
static uint8_t *picture(int w, int h, int kind)
{
    uint8_t *p = malloc((size_t)w * h * 3 + 1);
    uint32_t x = 2463534242u;
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w * 3; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            int k = kind == 3 ? (y / 7 + i / 11) % 3 : kind;
            uint8_t v = k == 0 ? (uint8_t)x : k == 1 ? (uint8_t)(y / 5 * 40 + i % 3) : (uint8_t)(y * 3 + (i / 3) * 2);
            p[(size_t)y * w * 3 + i] = v;
        }
    return p;
}

static void round_trips(void)
{
    static const int sizes[][2] = {{1, 1}, {1, 7}, {2, 3}, {3, 2}, {5, 1}, {17, 9}, {640, 360}, {333, 77}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int kind = 0; kind < 4; kind++) {
            int w = sizes[s][0], h = sizes[s][1], dw = 0, dh = 0;
            uint8_t *px = picture(w, h, kind);
            size_t n = 0;
            uint8_t *png = sn_png_encode_rgb(w, h, px, &n);
            uint8_t *back = png ? decode(png, n, &dw, &dh) : NULL;
            CHECK(back && dw == w && dh == h && !memcmp(back, px, (size_t)w * h * 3), "%dx%d kind %d decodes to its pixels",
                  w, h, kind);
            free(px), free(png), free(back);
        }
    /* each filter is chosen where it leaves the fewest non-zero bytes: in bands of 5 equal rows
    ** of one repeated pixel, Up within a band (all zeros), Sub on a band's first row (zeros
    ** after its first pixel); None where the row is zeros itself */
    {
        uint8_t *px = picture(40, 20, 1);
        memset(px + 40 * 3 * 5, 0, 40 * 3); /* row 5: black but one byte: None leaves 1 non-zero, Sub 2 */
        px[40 * 3 * 5 + 6] = 9;
        size_t n = 0;
        int w = 0, h = 0;
        uint8_t *png = sn_png_encode_rgb(40, 20, px, &n), *back = png ? decode(png, n, &w, &h) : NULL;
        int wrong = 0;
        for (int y = 0; back && y < 20; y++) {
            int want = y == 5 ? 0 : y % 5 == 0 || y == 6 ? 1 : 2;
            wrong += filters[y] != want;
        }
        CHECK(back && !wrong, "row filters: %d rows not the one leaving the fewest non-zero bytes", wrong);
        free(px), free(png), free(back);
    }
    uint8_t *flat = picture(64, 64, 1), *grad = picture(64, 64, 2);
    size_t n1 = 0, n2 = 0;
    uint8_t *a = sn_png_encode_rgb(64, 64, flat, &n1), *b = sn_png_encode_rgb(64, 64, grad, &n2);
    CHECK(a && b && n1 < 600 && n2 < 600, "flat bands and gradients compress 20:1 (%zu, %zu of 12288 bytes)", n1, n2);
    free(flat), free(grad), free(a), free(b);
}

/* zrle.h's deflate: streams of runs, copies of the row above, literals and their mixes, of every
** small length and a long one, inflate (libdeflate, not the encoder's code) to their bytes, and
** so do noise (stored blocks) and far copies over many blocks; and a semantic camera's kind of
** picture (flat regions, a few edges) decodes from the PNG writer. */
static void run_length_deflate(void)
{
    struct libdeflate_decompressor *dd = libdeflate_alloc_decompressor();
    uint32_t x = 88172645u;
    for (int kind = 0; kind < 4; kind++)
        for (size_t n = 0; n < 700; n = n < 40 ? n + 1 : n * 3 / 2) {
            size_t stride = 1 + n % 37;
            uint8_t *in = malloc(n + 1), *back = malloc(n + 1);
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                int k = kind == 3 ? (int)(i / 50 % 3) : kind;
                in[i] = k == 0 ? (uint8_t)(x % 3 == 0 ? x >> 8 : i ? in[i - 1] : 0) /* runs among literals */
                      : k == 1 ? (uint8_t)(i >= stride && x % 17 ? in[i - stride] : x >> 8) /* rows repeated */
                               : (uint8_t)(x >> 8);                                 /* literals alone */
            }
            size_t bound = sn_zrle_bound(n), got = 0;
            uint8_t *z = malloc(bound);
            uint32_t *tok = malloc(SN_ZRLE_SCRATCH * sizeof *tok);
            size_t len = sn_zrle_compress(in, n, stride, z, tok);
            int r = len ? (int)libdeflate_zlib_decompress(dd, z, len, back, n, &got) : -1;
            CHECK(len && len <= bound && r == 0 && got == n && !memcmp(in, back, n), "zrle: kind %d, %zu bytes", kind, n);
            free(in), free(back), free(z), free(tok);
        }
    /* 1 MB of one value and a long mixed tail: runs of 258 */
    size_t n = 1 << 20;
    uint8_t *in = calloc(n, 1), *back = malloc(n), *z = malloc(sn_zrle_bound(n));
    uint32_t *tok = malloc(SN_ZRLE_SCRATCH * sizeof *tok);
    for (size_t i = n - 5000; i < n; i++)
        in[i] = (uint8_t)(i * 7 / 13);
    size_t len = sn_zrle_compress(in, n, 4096, z, tok), got = 0;
    CHECK(len && len < 8000 && libdeflate_zlib_decompress(dd, z, len, back, n, &got) == 0 &&
              got == n && !memcmp(in, back, n),
          "zrle: a long run and a tail (%zu bytes)", len);
    /* more tokens than a block holds: noise (stored blocks, at most 10 bytes in 65535 more than
    ** the input), and pieces of 56 bytes copied from up to 30000 back between 8 of noise (coded
    ** blocks: copies from where the hash saw them, not from a fixed distance) */
    for (int kind = 0; kind < 2; kind++) {
        size_t from = 0;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            if (i % 64 == 0)
                from = 100 + x % 29900;
            in[i] = kind == 0 || i < 30000 || i % 64 < 8 ? (uint8_t)(x >> 8) : in[i - from];
        }
        len = sn_zrle_compress(in, n, 4096, z, tok), got = 0;
        CHECK(len && len <= sn_zrle_bound(n) && len <= (kind ? n / 3 : n + n / 6000) &&
                  libdeflate_zlib_decompress(dd, z, len, back, n, &got) == 0 && got == n && !memcmp(in, back, n),
              "zrle: %s, %zu bytes of 1 MB", kind ? "far copies" : "noise", len);
    }
    free(in), free(back), free(z), free(tok);

    /* flat regions with a few vertical and slanted edges, as a semantic camera's */
    int w = 320, h = 180, dw = 0, dh = 0;
    uint8_t *px = malloc((size_t)w * h * 3);
    for (int y = 0; y < h; y++)
        for (int i = 0; i < w; i++) {
            int region = (i > 100) + (i > y + 150) + (y > 120);
            static const uint8_t pal[4][3] = {{128, 64, 128}, {70, 70, 70}, {107, 142, 35}, {0, 0, 142}};
            memcpy(px + ((size_t)y * w + i) * 3, pal[region], 3);
        }
    size_t np = 0;
    uint8_t *png = sn_png_encode_rgb(w, h, px, &np), *pix = png ? decode(png, np, &dw, &dh) : NULL;
    CHECK(png && np > 45 && png[41] == 0x78 && png[42] == 0x01, "a flat picture is zrle.h's stream");
    CHECK(pix && dw == w && dh == h && !memcmp(pix, px, (size_t)w * h * 3), "and decodes to its pixels");
    free(px), free(png), free(pix);
    libdeflate_free_decompressor(dd);
}

typedef struct job {
    const uint8_t *px;
    uint8_t *png;
    size_t n;
} job;

static void *encode_on_thread(void *arg)
{
    job *j = arg;
    j->png = sn_png_encode_rgb(640, 360, j->px, &j->n);
    return NULL;
}

static void any_thread(const char *tmp)
{
    uint8_t *px = picture(640, 360, 3);
    size_t n = 0;
    uint8_t *ref = sn_png_encode_rgb(640, 360, px, &n);
    job jobs[3] = {{px, NULL, 0}, {px, NULL, 0}, {px, NULL, 0}};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, encode_on_thread, &jobs[i]);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].png && jobs[i].n == n && !memcmp(jobs[i].png, ref, n), "thread %d's PNG is the same bytes", i);
        free(jobs[i].png);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/test_png.png", tmp);
    CHECK(sn_png_write_rgb(path, 640, 360, px), "the file is written");
    FILE *f = fopen(path, "rb");
    uint8_t *file = malloc(n + 1);
    size_t got = f ? fread(file, 1, n + 1, f) : 0;
    CHECK(got == n && !memcmp(file, ref, n), "the file is the same bytes (%zu of %zu)", got, n);
    if (f)
        fclose(f);
    free(file), free(ref), free(px);
}

/* CARLA's logarithmic_depth formula, as image.h states it. */
static uint8_t log_formula(uint32_t d)
{
    float n = (float)d / 16777215.0f, v = 1.0f + logf(n) / 5.70378f;
    v = v > 1.0f ? 1.0f : v;
    v = v < 0.005f ? 0.005f : v;
    return (uint8_t)(v * 255 + 0.5f);
}

static void log_depth_table(void)
{
    enum { CHUNK = 1 << 16 };
    uint8_t *bgra = malloc(CHUNK * 4), *rgb = malloc(CHUNK * 3);
    size_t wrong = 0;
    for (uint32_t base = 0; base < (1u << 24); base += CHUNK) {
        for (uint32_t i = 0; i < CHUNK; i++) {
            uint32_t d = base + i; /* R + 256 G + 65536 B */
            bgra[4 * i] = (uint8_t)(d >> 16), bgra[4 * i + 1] = (uint8_t)(d >> 8), bgra[4 * i + 2] = (uint8_t)d;
            bgra[4 * i + 3] = 255;
        }
        sn_convert_bgra(SN_CONV_LOG_DEPTH, bgra, CHUNK, rgb);
        for (uint32_t i = 0; i < CHUNK; i++)
            wrong += rgb[3 * i] != log_formula(base + i) || rgb[3 * i + 1] != rgb[3 * i] || rgb[3 * i + 2] != rgb[3 * i];
    }
    CHECK(wrong == 0, "logarithmic_depth equals the formula for every 24-bit code (%zu differ)", wrong);
    free(bgra), free(rgb);
}

static void share_table(void)
{
    CHECK(sn_png_share_open() == 0, "no ticket while nobody wants one");
    sn_png_share_want(1);
    uint64_t t = sn_png_share_open(), u = sn_png_share_open(), v = sn_png_share_open();
    CHECK(t && u && v && t != u && u != v, "tickets while a consumer is there");
    static const uint8_t bytes[] = {1, 2, 3, 4, 5};
    sn_png_share_publish(t, bytes, sizeof bytes);
    uint8_t *png = NULL;
    size_t n = 0;
    CHECK(sn_png_share_take(t, &png, &n) && n == 5 && !memcmp(png, bytes, 5), "a published PNG is taken");
    free(png);
    CHECK(!sn_png_share_take(t, &png, &n), "and only once");
    sn_png_share_publish(u, NULL, 0);
    CHECK(!sn_png_share_take(u, &png, &n), "a PNG not made is not taken (the consumer encodes)");
    sn_png_share_drop(v);
    sn_png_share_publish(v, bytes, sizeof bytes);
    CHECK(!sn_png_share_take(v, &png, &n), "a dropped ticket is not kept");
    sn_png_share_announce(7, bytes, 5, SN_CONV_CITYSCAPES);
    sn_converter c = SN_CONV_RAW;
    CHECK(sn_png_share_current(bytes, 5, &c) == 7 && c == SN_CONV_CITYSCAPES, "the announced message");
    CHECK(sn_png_share_current(bytes, 4, &c) == 0 && sn_png_share_current(bytes + 1, 4, &c) == 0, "only that message");
    sn_png_share_announce(0, NULL, 0, SN_CONV_RAW);
    CHECK(sn_png_share_current(bytes, 5, &c) == 0, "until the announcement ends");
    /* many tickets never taken: the table evicts the oldest made ones and keeps opening */
    uint64_t last = 0;
    for (int i = 0; i < 500; i++) {
        last = sn_png_share_open();
        sn_png_share_publish(last, bytes, sizeof bytes);
    }
    CHECK(last && sn_png_share_take(last, &png, &n), "tickets keep coming when nobody takes them");
    free(png);
    sn_png_share_want(-1);
    CHECK(sn_png_share_open() == 0, "none once the consumer is gone");
}

/* A run that saves its cameras and writes an MCAP file: each picture both want is encoded once. */
static void shared_with_mcap(const char *tmp, const char *plugins)
{
    char scene[4096], out[4096], mcap[4096];
    snprintf(scene, sizeof scene, "%s/png_share.yaml", tmp);
    snprintf(out, sizeof out, "%s/png_share", tmp);
    snprintf(mcap, sizeof mcap, "%s/png_share.mcap", tmp);
    FILE *f = fopen(scene, "w");
    if (!f)
        return;
    /* rgb (raw) and depth through logarithmic_depth: what the MCAP view draws too; depth through
    ** `depth`: not the view's converter, so the view makes its own */
    fputs("settings: {frames: 3}\n"
          "actors: [{name: box, blueprint: static.prop.box, transform: {location: [8, 0, 0]}}]\n"
          "sensors:\n"
          "  - {name: rgb, blueprint: sensor.camera.rgb, attributes: {image_size_x: 64, image_size_y: 48},"
          " save: {path: \"rgb/%06d.png\"}}\n"
          "  - {name: log, blueprint: sensor.camera.depth, attributes: {image_size_x: 64, image_size_y: 48},"
          " save: {path: \"log/%06d.png\", converter: logarithmic_depth}}\n"
          "  - {name: lin, blueprint: sensor.camera.depth, attributes: {image_size_x: 64, image_size_y: 48},"
          " save: {path: \"lin/%06d.png\", converter: depth}}\n",
          f);
    fclose(f);
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", out, mcap);
    (void)!system(cmd);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    sn_mcap *m = NULL;
    uint64_t before = sn_png_encoded();
    bool ok = e && !sn_engine_load_scene(e, scene, &err) && !sn_engine_open_outputs(e, out, &err) &&
              (m = sn_mcap_create(mcap, NULL, &err)) && !sn_engine_listen_all(e, sn_mcap_listen, m, &err) &&
              !sn_engine_run(e, 0, &err);
    ok = !sn_mcap_close(m, ok, &err) && ok;
    sn_engine_destroy(e);
    CHECK(ok, "the run with an MCAP file: %s", err.msg);
    uint64_t made = sn_png_encoded() - before;
    CHECK(made == 9 + 3, "9 saved images and the view's own 3 of `lin` are %llu encodings, not 18",
          (unsigned long long)made);
}

int main(int argc, char **argv)
{
    round_trips();
    run_length_deflate();
    any_thread(argc > 1 ? argv[1] : ".");
    log_depth_table();
    share_table();
    if (argc > 2)
        shared_with_mcap(argv[1], argv[2]);
    if (failures)
        printf("%d failure(s)\n", failures);
    else
        printf("png: all passed\n");
    return failures != 0;
}
