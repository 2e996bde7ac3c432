/* Triangles are binned into bands of rows at any thread count, each band drawn in its thread's
** scratch (render/scratch.h): one block a thread, shared by every renderer on it.
** Every thread count must give the same bytes, and so must renderers sharing a thread's scratch,
** interleaved on one thread or on two threads at once; the scratch of a thread that exits is freed. A dense field of spheres (triangles from under a
** pixel to tens of pixels: render/raster.h's groups of four, its general small path at the
** image's right edge, its span path), spheres cut by the image's sides and by the near plane
** (the clipping path), a building and the ground plane, seen by one camera, rendered at 1, 2 and
** 3 threads: depth alone (no ids kept), depth with tags and ids, colour, colour anti-aliased, and
** a larger anti-aliased colour frame (a wider band: the scratch grows).
** Each output must be identical across thread counts and with four lanes instead of eight (AVX2), and the depth must see the spheres where
** they are (ground truth: the nearest sphere's centre straight ahead). argv[1]: temp folder. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/render.h"
#include "../../engine/render/scratch.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <pthread.h>

enum { W = 203, H = 151, N_SIDE = 24 }; /* odd sizes: groups of four overrun the row's end */
enum { BW = 613, BH = 433 };            /* 2 x 2 samples: 1226 x 866 x 8 bytes, just over 8 MiB */

static sn_engine *scene(const char *tmp)
{
    static char text[N_SIDE * N_SIDE * 2 * 200 + 1024];
    int len = sprintf(text, "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -4]}}\n"
                            "  - {name: wall, blueprint: static.building, transform: {location: [30, 0, 0]}, "
                            "attributes: {extent: \"1,40,20\"}}\n"
                            /* straight ahead, nearest: the depth at the centre pixel is 3 - 0.5 */
                            "  - {name: probe, blueprint: static.prop.sphere, transform: {location: [3, 0, 0]}, "
                            "attributes: {radius: 0.5}}\n"
                            /* through the near plane, and across the image's left side */
                            "  - {name: near, blueprint: static.prop.sphere, transform: {location: [0.2, 0.6, -0.4]}, "
                            "attributes: {radius: 0.3}}\n"
                            "  - {name: side, blueprint: static.prop.sphere, transform: {location: [4, -4.2, 0]}, "
                            "attributes: {radius: 0.6}}\n");
    /* two layers of small spheres filling the view: far ones of sub-pixel triangles */
    for (int layer = 0; layer < 2; layer++)
        for (int i = 0; i < N_SIDE * N_SIDE; i++) {
            double d = layer ? 24 : 8, s = 2.0 * d / N_SIDE;
            len += sprintf(text + len,
                           "  - {blueprint: static.prop.sphere, transform: {location: [%.3f, %.3f, %.3f]}, "
                           "attributes: {radius: %.3f}}\n",
                           d + 0.37 * (i % 3), -d + s * (0.5 + i % N_SIDE), -0.75 * d + 0.75 * s * (0.5 + i / N_SIDE),
                           0.45 * s);
        }
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "render_threads.yaml", text), &err) || sn_engine_step(e, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

/* The outputs of one frame at `threads` threads: depth, tag, id, colour, colour anti-aliased. */
typedef struct frame {
    float depth_alone[W * H], depth[W * H];
    uint8_t tag[W * H], bgra[W * H * 4], aa[W * H * 4], big[BW * BH * 4];
    uint32_t id[W * H];
} frame;

static void render_all(sn_engine *e, int threads, frame *f)
{
    sn_renderer *r = sn_renderer_create(threads);
    CHECK(r != NULL, "a renderer of %d threads", threads);
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {1.5, 0.7, 0}}, W, H, 90, 0.1, 100};
    sn_image alone = {sizeof alone, f->depth_alone, NULL, NULL, NULL, 0};
    sn_image full = {sizeof full, f->depth, NULL, f->tag, f->id, 0};
    sn_image rgb = {sizeof rgb, NULL, f->bgra, NULL, NULL, 0}, aa = {sizeof aa, NULL, f->aa, NULL, NULL, 2};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &alone, &err), "depth alone: %s", err.msg);
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &full, &err), "depth, tags, ids: %s", err.msg);
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &rgb, &err), "colour: %s", err.msg);
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &aa, &err), "colour, 2x2 samples: %s", err.msg);
    sn_camera bcam = cam;
    bcam.width = BW, bcam.height = BH;
    sn_image big = {sizeof big, NULL, f->big, NULL, NULL, 2};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &bcam, &big, &err), "large colour, 2x2 samples: %s", err.msg);
    CHECK(sn_renderer_last_triangles(r) > 20000, "a dense frame: %u triangles drawn", sn_renderer_last_triangles(r));
    sn_renderer_destroy(r);
}

static bool same(const frame *a, const frame *b)
{
    return !memcmp(a, b, sizeof *a);
}

/* A thread of its own rendering every output with a renderer of one thread. */
typedef struct job {
    sn_engine *e;
    frame *f;
} job;

static void *render_thread(void *arg)
{
    job *j = arg;
    render_all(j->e, 1, j->f);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_render_threads TMP\n"), 2;
    sn_engine *e = scene(argv[1]);
    static frame one, more;
    render_all(e, 1, &one);
    /* the camera is pitched 1.5 degrees and yawed 0.7: the centre ray meets the probe's near
    ** side at a planar depth a little beyond 2.5 */
    float centre = one.depth[(H / 2) * W + W / 2];
    CHECK(centre > 2.5f && centre < 2.6f, "the probe sphere straight ahead, at %g m", centre);
    CHECK(!memcmp(one.depth_alone, one.depth, sizeof one.depth), "depth alone equals depth with tags and ids");
    /* threads 2 and 3, then 1 in four lanes where eight were used (raster.c's wide spans) */
    const bool wide = sn_lanes_wide();
    for (int threads = 2; threads <= (wide ? 4 : 3); threads++) {
        if (threads == 4)
            sn_lanes_set_wide(false);
        render_all(e, threads == 4 ? 1 : threads, &more);
        CHECK(!memcmp(one.depth_alone, more.depth_alone, sizeof one.depth_alone), "depth alone: 1 and %d threads", threads);
        CHECK(!memcmp(one.depth, more.depth, sizeof one.depth), "depth: 1 and %d threads", threads);
        CHECK(!memcmp(one.tag, more.tag, sizeof one.tag), "tags: 1 and %d threads", threads);
        CHECK(!memcmp(one.id, more.id, sizeof one.id), "ids: 1 and %d threads", threads);
        CHECK(!memcmp(one.bgra, more.bgra, sizeof one.bgra), "colour: 1 and %d threads", threads);
        CHECK(!memcmp(one.aa, more.aa, sizeof one.aa), "colour anti-aliased: 1 and %d threads", threads);
        CHECK(!memcmp(one.big, more.big, sizeof one.big), "large colour anti-aliased: 1 and %d threads", threads);
    }
    sn_lanes_set_wide(true);

    /* the calling thread's one block: a second renderer on it takes no more, nor changes a byte */
    static frame again, a0, a1;
    render_all(e, 1, &again);
    const size_t held = sn_scratch_bytes();
    /* a band of 16 sample rows: depth and ids, and its rows of the coarse depth (cam56) */
    CHECK(held > 0 && held <= (size_t)16 * BW * 2 * 8 + (size_t)16 * ((2 * BW + 31) / 32) * 4 + 64,
          "one thread, one band of scratch: %zu bytes", held);
    sn_renderer *r1 = sn_renderer_create(1), *r2 = sn_renderer_create(1);
    CHECK(r1 && r2, "two renderers");
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {1.5, 0.7, 0}}, W, H, 90, 0.1, 100};
    sn_image x1 = {sizeof x1, again.depth, NULL, again.tag, again.id, 0}, x2 = {sizeof x2, NULL, again.aa, NULL, NULL, 2};
    sn_error err = {0};
    for (int k = 0; k < 2; k++) { /* interleaved: each band's buffers left by the other renderer */
        CHECK(!sn_render(r1, &e->world, 1.0, &e->lighting, &cam, &x2, &err), "renderer 1: %s", err.msg);
        CHECK(!sn_render(r2, &e->world, 1.0, &e->lighting, &cam, &x1, &err), "renderer 2: %s", err.msg);
    }
    CHECK(same(&one, &again), "two renderers interleaved on one thread: the same bytes");
    CHECK(sn_scratch_bytes() == held, "two renderers on one thread share its block: %zu bytes, %zu alone",
          sn_scratch_bytes(), held);
    sn_renderer_destroy(r1), sn_renderer_destroy(r2);

    /* two threads at once, each its block; freed as they exit */
    pthread_t t0, t1;
    job j0 = {e, &a0}, j1 = {e, &a1};
    CHECK(!pthread_create(&t0, NULL, render_thread, &j0) && !pthread_create(&t1, NULL, render_thread, &j1),
          "two rendering threads");
    pthread_join(t0, NULL), pthread_join(t1, NULL);
    CHECK(same(&one, &a0) && same(&one, &a1), "two threads rendering at once: the same bytes");
    CHECK(sn_scratch_bytes() == held, "the threads' scratch freed at their exit: %zu bytes held, %zu before",
          sn_scratch_bytes(), held);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
