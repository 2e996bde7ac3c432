/* The renderer's cache of what does not move (render/static_cache.h) follows the world: a static
** box replaced by another scene's box at the same world address (the cache's key must not take
** the new world for the old), moved or removed is drawn where it is now, by depth against the
** geometry; a depth-only frame equals a full frame's depth; the shadow map follows too (a box moved out of
** the sun's way no longer shades the ground under it); the cached frame equals a fresh
** renderer's byte for byte at 1 and 2 threads. argv[1]: temp folder. */
#include "../../engine/render/render.h"
#include "../../engine/sim/engine.h"
#include "../../engine/frame/frame.h"
#include "../check.h"
#include "../testutil.h"

enum { W = 64, H = 48 };

static float depth_at_centre(sn_renderer *r, sn_engine *e)
{
    static float depth[W * H];
    sn_camera cam = {sizeof cam, {{0, 0, 1}, {0, 0, 0}}, W, H, 90, 0.1, 100};
    sn_image img = {sizeof img, depth, NULL, NULL, NULL, 0};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
    return depth[(H / 2) * W + W / 2];
}

static sn_engine *load(sn_engine *e, const char *tmp, double box_x)
{
    char scene[512];
    snprintf(scene, sizeof scene,
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: box, blueprint: static.building, transform: {location: [%g, 0, 1]}, attributes: {extent: \"1,1,1\"}}\n",
             box_x);
    sn_error err = {0};
    if (!e) {
        sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
        e = sn_engine_create(&o, &err);
    } else {
        sn_engine_unload(e);
    }
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "static_cache.yaml", scene), &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    return e;
}

/* A depth-only frame (its own resolve: no primitives, no shading data) equals the depth of a frame
** that also writes tags and ids, byte for byte: sky at exactly the far plane, box and ground. */
static void depth_only_same(sn_renderer *r, sn_engine *e)
{
    static float alone[W * H], full[W * H];
    static uint8_t tag[W * H];
    static uint32_t id[W * H];
    sn_camera cam = {sizeof cam, {{0, 0, 1}, {5, 10, 0}}, W, H, 90, 0.1, 100};
    sn_image a = {sizeof a, alone, NULL, NULL, NULL, 0}, f = {sizeof f, full, NULL, tag, id, 0};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &a, &err) && !sn_render(r, &e->world, 1.0, &e->lighting, &cam, &f, &err),
          "render: %s", err.msg);
    CHECK(!memcmp(alone, full, sizeof full), "depth alone equals the depth of a frame with tags and ids");
    size_t sky = 0;
    for (int i = 0; i < W * H; i++)
        sky += tag[i] == SN_TAG_SKY && alone[i] == 100.0f;
    CHECK(sky > 0, "the sky's pixels are at exactly the far plane (%zu)", sky);
}

/* An RGB frame from above the box, the sun high in the south-west: its shadow on the ground. */
static void rgb(sn_renderer *r, sn_engine *e, uint8_t *bgra)
{
    sn_camera cam = {sizeof cam, {{10, 0, 30}, {-90, 0, 0}}, W, H, 60, 0.1, 100};
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, 0};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
}

/* r's frame (its cache as it stands) against fresh renderers' of 1 and 2 threads: the same bytes. */
static void same_as_fresh(sn_renderer *r, sn_engine *e, uint8_t *cached, uint8_t *fresh, const char *what)
{
    rgb(r, e, cached);
    for (int threads = 1; threads <= 2; threads++) {
        sn_renderer *r2 = sn_renderer_create(threads);
        rgb(r2, e, fresh);
        CHECK(!memcmp(cached, fresh, (size_t)W * H * 4), "%s: the cached frame equals a fresh renderer's (%d threads)", what,
              threads);
        sn_renderer_destroy(r2);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return fprintf(stderr, "usage: test_render_static TMP\n"), 2;
    sn_engine *e = load(NULL, argv[1], 10);
    sn_renderer *r = sn_renderer_create(2);
    /* the box's face at x = 9, the camera at x = 0 looking down +x: planar depth 9 */
    CHECK_NEAR(depth_at_centre(r, e), 9, 1e-4, "the box as loaded");
    CHECK_NEAR(depth_at_centre(r, e), 9, 1e-4, "the box again, from the cache");
    depth_only_same(r, e);

    /* another scene in the same engine (the same world address) with as many static changes
    ** behind it: its box, 5 m out, not the freed one */
    e = load(e, argv[1], 5);
    CHECK_NEAR(depth_at_centre(r, e), 4, 1e-4, "a new scene's box, 5 m out");
    static uint8_t with_box[W * H * 4], cached[W * H * 4], fresh[W * H * 4];
    same_as_fresh(r, e, cached, fresh, "a new scene (no shadow of the old scene's box)");

    sn_actor *box = sn_world_find_name(&e->world, "box");
    sn_world_teleport(&e->world, box, sn_v3(20, 0, 1), (sn_quat){1, 0, 0, 0});
    CHECK_NEAR(depth_at_centre(r, e), 19, 1e-4, "the box moved 10 m away");

    /* the shadow map's casters come from the cache too: over the ground where the box was, an
    ** RGB frame with the box moved away equals a fresh renderer's, and differs from the one
    ** with the box in place */
    sn_world_teleport(&e->world, box, sn_v3(10, 0, 1), (sn_quat){1, 0, 0, 0});
    rgb(r, e, with_box);
    sn_world_teleport(&e->world, box, sn_v3(10, 40, 1), (sn_quat){1, 0, 0, 0});
    same_as_fresh(r, e, cached, fresh, "the box moved away");
    CHECK(memcmp(cached, with_box, sizeof fresh), "the box (and its shadow) left the view");

    sn_world_remove(&e->world, box->id);
    /* the centre pixel's ray dips 1/64 below the horizon: the ground 64 m out */
    CHECK_NEAR(depth_at_centre(r, e), 64, 1e-3, "the box removed: the ground behind it");
    sn_renderer_destroy(r);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
