/* The default single-precision shading (engine/render/shade_fast.h: textures, shadows, fog and
** light four samples at a time) against the exact double-precision path
** (sn_renderer_set_exact_shading) on the town of scripts/same_renders.sh (maps/town.xodr, its
** scenery, cars and walkers) under its weathers: ClearNoon (thin fog, shadows), thick fog with
** falloff, a wet sunset, a night with headlights, fog without falloff; anti-aliasing 1 and 2, a
** street-level and a high camera. The bound, derived in docs/rendering.md ("Single-precision
** shading"): a continuous term's float error is under 0.1 level, so a sample's byte is at most 1
** off and an anti-aliased pixel (its samples mixed in linear light, rounded again) at most 2;
** more only where a discontinuity (a shadow map's depth comparison, a tile's joint) lies within
** the float error of the point (about 1e-6 of its distance): rare, except where the geometry lies
** on the discontinuity — the town's sidewalks begin on a tile joint (a multiple of 0.6 m), so a
** sidewalk's edge is a line of samples that the exact path itself puts on either side by its
** last bit: at most two image rows' worth of pixels (2 W) beyond 2 levels. The mean
** difference per channel stays under 0.25 (at most the fraction of values within 0.1 level of
** a rounding boundary, 0.2, plus those). The images must differ from a flat colour (something
** is shaded), and the fast path gives the same bytes at 1, 2 and 3 threads, and with eight lanes
** (AVX2, where the CPU has it) as with four.
** argv[1]: temp folder, argv[2]: maps folder. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/render.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <math.h>

enum { W = 480, H = 270 };
static int wide_checked; /* images rendered with eight lanes and four */

static sn_engine *town(const char *tmp, const char *maps, const char *weather)
{
    char text[4096];
    snprintf(text, sizeof text,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: %s}\n"
             "traffic: {vehicles: 30, walkers: 20, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: "
             "{semantic_tag: Terrain, color: \"96,110,70\"}}\n",
             maps, weather);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "shade_fast.yaml", text), &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
    for (int i = 0; i < 10; i++) /* traffic under way */
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "FAIL: %s\n", err.msg);
            exit(1);
        }
    return e;
}

static void render(sn_engine *e, const sn_camera *cam, bool exact, int ss, int threads, uint8_t *bgra)
{
    sn_renderer *r = sn_renderer_create(threads);
    CHECK(r != NULL, "a renderer");
    sn_renderer_set_exact_shading(r, exact);
    sn_image img = {sizeof img, NULL, bgra, NULL, NULL, (uint32_t)ss};
    sn_error err = {0};
    CHECK(!sn_render(r, &e->world, 1.0, &e->lighting, cam, &img, &err), "render: %s", err.msg);
    sn_renderer_destroy(r);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_shade_fast TMP MAPS\n"), 2;
    static uint8_t fast[W * H * 4], exact[W * H * 4], other[W * H * 4];
    const char *weathers[] = {"ClearNoon", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}",
                              "WetCloudySunset", "WetNight", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}"};
    /* the street at the same_renders hero's start, and the view from above onto roads and sidewalks */
    const sn_camera cams[] = {{sizeof(sn_camera), {{21.5, 1.75, 2.9}, {0, 0, 0}}, W, H, 90, 0.1, 1000},
                              {sizeof(sn_camera), {{16, 1.75, 6}, {-20, 30, 0}}, W, H, 110, 0.1, 1000}};
    double worst_mean = 0;
    for (size_t wi = 0; wi < sizeof weathers / sizeof *weathers; wi++) {
        sn_engine *e = town(argv[1], argv[2], weathers[wi]);
        for (int ci = 0; ci < 2; ci++)
            for (int ss = 1; ss <= 2; ss++) {
                render(e, &cams[ci], false, ss, 2, fast);
                render(e, &cams[ci], true, ss, 2, exact);
                long beyond = 0, differ = 0, spread = 0, px_beyond = 0;
                for (int i = 0; i < W * H; i++)
                    for (int c = 0; c < 3; c++)
                        if (abs((int)fast[4 * i + c] - (int)exact[4 * i + c]) > 2) {
                            px_beyond++;
                            break;
                        }
                for (int i = 0; i < W * H; i++)
                    spread += abs((int)exact[4 * i + 1] - (int)exact[1]) > 8;
                for (int c = 0; c < 3; c++) {
                    int worst = 0;
                    long sum = 0;
                    for (int i = 0; i < W * H; i++) {
                        int d = abs((int)fast[4 * i + c] - (int)exact[4 * i + c]);
                        worst = d > worst ? d : worst, sum += d, differ += d != 0, beyond += d > 2;
                    }
                    double mean = (double)sum / (W * H);
                    worst_mean = mean > worst_mean ? mean : worst_mean;
                    printf("%s, camera %d, %dx%d samples, channel %c: max |fast - exact| %d, mean %.5f\n", weathers[wi],
                           ci, ss, ss, "bgr"[c], worst, mean);
                    CHECK(mean < 0.25, "channel %c: mean difference %.4f under 0.25", "bgr"[c], mean);
                }
                printf("  %ld channel values differ, %ld by more than 2 (of %d), in %ld pixels\n", differ, beyond, 3 * W * H,
                       px_beyond);
                CHECK(px_beyond <= 2 * W, "%s camera %d ss %d: %ld pixels beyond 2 levels (at most 2 rows' worth, %d)",
                      weathers[wi], ci, ss, px_beyond, 2 * W);
                CHECK(spread > W * H / 10, "the image is not flat (%ld pixels differ from the first)", spread);
                if (sn_lanes_set_wide(true)) { /* eight lanes (AVX2) and four: the same bytes */
                    sn_lanes_set_wide(false);
                    render(e, &cams[ci], false, ss, 2, other);
                    sn_lanes_set_wide(true);
                    CHECK(memcmp(other, fast, sizeof fast) == 0, "%s camera %d ss %d: four lanes give eight lanes' bytes",
                          weathers[wi], ci, ss);
                    wide_checked++;
                }
                if (ss == 2 && ci == 1) /* the fast path at any thread count: the same bytes */
                    for (int t = 1; t <= 3; t += 2) {
                        render(e, &cams[ci], false, ss, t, other);
                        CHECK(memcmp(other, fast, sizeof fast) == 0, "%s: %d threads give 2 threads' bytes", weathers[wi], t);
                    }
            }
        sn_engine_destroy(e);
    }
    printf("largest mean difference of a channel: %.5f\n", worst_mean);
    printf("eight lanes against four: %d images compared (0: this CPU has no AVX2)\n", wide_checked);
    return CHECK_DONE();
}
