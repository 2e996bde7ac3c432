/* The colour render's motion grid (sn_render_motion_grid, host->render_motion_grid; motion57):
** one sample a div x div cell, the same values render_motion gives for that sample. On the town
** with traffic, the hero driving on autopilot, seen from above: at div 1 without anti-aliasing
** the grid is render_motion's depth, ids and motion byte for byte; at div 4 with 2 x 2 samples it
** is render_motion's of a camera twice the size at the cells' chosen samples; the colour is
** sn_render's either way; the same bytes at 1 and 2 threads. argv[1]: temp folder, argv[2]: maps. */
#include "../../engine/render/render.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <stdlib.h>

enum { W = 128, H = 96 };

static sn_engine *e;

static sn_camera camera(uint32_t w, uint32_t h)
{
    const sn_actor *hero = sn_world_find_name(&e->world, "hero");
    sn_vec3 p;
    sn_quat q;
    sn_actor_pose_at(&e->world, hero, 1.0, &p, &q);
    sn_camera cam = {sizeof cam, {{p.x, p.y, p.z + 25}, {-90, 0, 0}}, w, h, 90, 0.1, 200};
    return cam;
}

/* The grid of a w x h colour render with ss samples a side, one value per div x div pixels. */
static bool grid_of(int threads, uint32_t ss, uint32_t div, uint8_t *bgra, float *depth, uint32_t *inst, float *motion)
{
    sn_renderer *r = sn_renderer_create(threads);
    sn_camera cam = camera(W, H);
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, ss};
    sn_motion_grid g = {sizeof g, div, depth, inst, motion};
    sn_error err = {0};
    sn_status st = sn_render_motion_grid(r, &e->world, &e->lighting, &cam, &img, &g, &err);
    CHECK(st == SN_OK, "render_motion_grid: %s", err.msg);
    sn_renderer_destroy(r);
    return st == SN_OK;
}

static void colour_of(uint32_t ss, uint8_t *bgra)
{
    sn_renderer *r = sn_renderer_create(1);
    sn_camera cam = camera(W, H);
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, ss};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, &cam, &img, &err), "render: %s", err.msg);
    sn_renderer_destroy(r);
}

/* render_motion of a w x h camera (the same view) into depth, ids and motion. */
static void motion_of(uint32_t w, uint32_t h, float *depth, uint32_t *inst, float *motion)
{
    sn_renderer *r = sn_renderer_create(1);
    sn_camera cam = camera(w, h);
    sn_image img = {sizeof img, depth, NULL, NULL, inst, 1};
    sn_error err = {0};
    CHECK(!sn_render_motion(r, &e->world, &e->lighting, &cam, &img, motion, &err), "render_motion: %s", err.msg);
    sn_renderer_destroy(r);
}

static size_t moving(const float *motion, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += motion[3 * i] != 0 || motion[3 * i + 1] != 0 || motion[3 * i + 2] != 0;
    return k;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_motion_grid TMP MAPS\n"), 2;
    char scene[2048];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: ClearNoon}\n"
             "traffic: {vehicles: 50, walkers: 30, seed: 1}\n"
             "actors:\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]},"
             " attributes: {role_name: hero}, autopilot: {}}\n",
             argv[2]);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(argv[1], "motion_grid.yaml", scene), &err) ||
        sn_engine_run(e, 20, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    static uint8_t bgra[W * H * 4], bgra2[W * H * 4];
    static float depth[W * H], motion[W * H * 3], depth_r[4 * W * H], motion_r[4 * W * H * 3];
    static uint32_t inst[W * H], inst_r[4 * W * H];

    /* div 1, one sample: render_motion's own values, and sn_render's colour */
    if (grid_of(2, 1, 1, bgra, depth, inst, motion)) {
        motion_of(W, H, depth_r, inst_r, motion_r);
        CHECK(!memcmp(depth, depth_r, sizeof depth), "div 1: render_motion's depth");
        CHECK(!memcmp(inst, inst_r, sizeof inst), "div 1: render_motion's ids");
        CHECK(!memcmp(motion, motion_r, sizeof motion), "div 1: render_motion's motion");
        size_t k = moving(motion, (size_t)W * H);
        printf("div 1: %zu of %d pixels move\n", k, W * H);
        CHECK(k > 0 && k < (size_t)W * H, "div 1: some pixels move, not all (%zu)", k);
        colour_of(1, bgra2);
        CHECK(!memcmp(bgra, bgra2, sizeof bgra), "div 1: the colour is sn_render's");
    }

    /* div 4, 2 x 2 samples: cell (x, y) is sample (8 x + 4, 8 y + 4) of the 2W x 2H grid */
    enum { D = 4, GW = W / D, GH = H / D };
    static float gd[GW * GH], gm[GW * GH * 3], gd2[GW * GH], gm2[GW * GH * 3];
    static uint32_t gi[GW * GH], gi2[GW * GH];
    if (grid_of(1, 2, D, bgra, gd, gi, gm)) {
        motion_of(2 * W, 2 * H, depth_r, inst_r, motion_r);
        bool same = true;
        for (uint32_t y = 0; y < GH; y++)
            for (uint32_t x = 0; x < GW; x++) {
                const size_t o = (size_t)y * GW + x, s = (size_t)(8 * y + 4) * 2 * W + 8 * x + 4;
                same = same && gd[o] == depth_r[s] && gi[o] == inst_r[s] && !memcmp(gm + 3 * o, motion_r + 3 * s, 12);
            }
        CHECK(same, "div 4, 2 x 2 samples: render_motion's values at the cells' samples");
        printf("div 4: %zu of %d cells move\n", moving(gm, (size_t)GW * GH), GW * GH);
        CHECK(moving(gm, (size_t)GW * GH) > 0, "div 4: some cells move");
        colour_of(2, bgra2);
        CHECK(!memcmp(bgra, bgra2, sizeof bgra), "div 4: the colour is sn_render's with 2 x 2 samples");
        if (grid_of(2, 2, D, bgra2, gd2, gi2, gm2))
            CHECK(!memcmp(gd, gd2, sizeof gd) && !memcmp(gi, gi2, sizeof gi) && !memcmp(gm, gm2, sizeof gm) &&
                      !memcmp(bgra, bgra2, sizeof bgra),
                  "div 4: the same bytes at 1 and 2 threads");
    }
    /* refused: no buffers, div 0, a div larger than the image */
    sn_renderer *r = sn_renderer_create(1);
    sn_camera cam = camera(W, H);
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, 1};
    sn_motion_grid g0 = {sizeof g0, 0, gd, gi, gm}, gn = {sizeof gn, 4, gd, NULL, gm}, gb = {sizeof gb, H + 1, gd, gi, gm};
    CHECK(sn_render_motion_grid(r, &e->world, &e->lighting, &cam, &img, &g0, &err) == SN_E_INVALID, "div 0 refused");
    CHECK(sn_render_motion_grid(r, &e->world, &e->lighting, &cam, &img, &gn, &err) == SN_E_INVALID, "NULL ids refused");
    CHECK(sn_render_motion_grid(r, &e->world, &e->lighting, &cam, &img, &gb, &err) == SN_E_INVALID, "div > height refused");
    sn_renderer_destroy(r);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
