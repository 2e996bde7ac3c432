/* The shadow map from the casters' faces towards the sun only (shadow58, engine/render/shadow.c's
** cull) against every face drawn (SENSIM_EXACT_CASTERS=1): on the town with traffic and scenery
** seen from a car driving on autopilot, in five weathers, every frame's RGB bytes within the
** documented bound (docs/rendering.md, "Only the faces towards the sun": the same map but where a
** silhouette edge passes within rounding of a texel's centre, measured identical); the same bytes
** at 1 and 2 threads. (That the exact shading draws every face cannot be seen in these images,
** which the cull leaves identical; test_shadow_cull checks the cull on the map itself.)
** argv[1]: temp folder, argv[2]: plugin folder, argv[3]: maps folder. */
#include "../check.h"
#include "../testutil.h"

#include <stdlib.h>

#define FRAMES 10
/* The bound (docs/rendering.md): measured, no byte differs on these frames */
#define MEAN_ERR 0.0
#define FAR_SHARE 0.0
#define WORST 0
#include "frame_diff.h"

static const char *dir, *plugins, *maps;

enum { CULL = 0, ALL_FACES = 1 }; /* SENSIM_EXACT_CASTERS */

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: %s}\n"
             "scenery: {enabled: true}\n"
             "traffic: {vehicles: 50, walkers: 30, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]},"
             " attributes: {semantic_tag: Terrain, color: \"96,110,70\"}}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]},"
             " attributes: {role_name: hero}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: %u, image_size_y: %u, anti_aliasing: %d}}\n",
             maps, weather, w, h, aa);
    unsetenv("SENSIM_EXACT_CASTERS"), unsetenv("SENSIM_EXACT_SHADING");
    if (how & ALL_FACES)
        setenv("SENSIM_EXACT_CASTERS", "1", 1);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(f, 0, sizeof *f);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "cull.yaml", scene), &err) ||
             sn_engine_listen(e, "rgb", on_frame, f, &err) || sn_engine_run(e, FRAMES, &err);
    unsetenv("SENSIM_EXACT_CASTERS"), unsetenv("SENSIM_EXACT_SHADING");
    CHECK(rc == 0 && f->n == FRAMES, "run (%s): %s", weather, err.msg);
    sn_engine_destroy(e);
    return rc == 0 && f->n == FRAMES;
}

/* The culled map's frames against every face's */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads)
{
    frames a, b;
    if (!shoot(weather, w, h, aa, threads, ALL_FACES, &a))
        return;
    if (!shoot(weather, w, h, aa, threads, CULL, &b)) {
        frames_free(&a);
        return;
    }
    const frame_diff fd = frames_diff(&a, &b, w, h);
    printf("%s %ux%u aa %d: %d of %d frames differ, largest channel error %d, mean %.4f, pixels off by more than 8: %.5f\n",
           name, w, h, aa, fd.differ, FRAMES, fd.worst, fd.mean, fd.share);
    CHECK(fd.share <= FAR_SHARE, "%s: %.5f of the pixels off by more than 8 (bound %g)", name, fd.share, FAR_SHARE);
    CHECK(fd.mean <= MEAN_ERR, "%s: mean channel error %.4f (bound %g)", name, fd.mean, MEAN_ERR);
    CHECK(fd.worst <= WORST, "%s: largest channel error %d (bound %d)", name, fd.worst, WORST);
    frames_free(&a), frames_free(&b);
}

/* Whether two runs give the same bytes in every frame. */
static void same(const char *what, const char *weather, int threads_a, int how_a, int threads_b, int how_b)
{
    frames a, b;
    if (!shoot(weather, 640, 360, 2, threads_a, how_a, &a))
        return;
    if (shoot(weather, 640, 360, 2, threads_b, how_b, &b)) {
        bool eq = true;
        for (int k = 0; k < FRAMES; k++)
            eq = eq && memcmp(a.raw[k], b.raw[k], (size_t)a.w * a.h * 4) == 0;
        CHECK(eq, "%s", what);
        frames_free(&b);
    }
    frames_free(&a);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s TMPDIR PLUGIN_DIR MAPS_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1], plugins = argv[2], maps = argv[3];
    /* scripts/same_renders.sh's sunlit weathers (a night has no sun's map), and a low sun */
    bound("clear", "ClearNoon", 640, 360, 2, 1);
    bound("fog", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 640, 360, 1, 2);
    bound("sunset", "WetCloudySunset", 640, 360, 3, 2);
    bound("nofall", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", 640, 360, 4, 1);
    bound("low", "{preset: ClearNoon, sun_altitude_angle: 8, sun_azimuth_angle: 130}", 640, 360, 2, 1);
    bound("clear", "ClearNoon", 1280, 720, 2, 2);
    /* deterministic: the same bytes at 1 and 2 threads */
    same("the culled map: the same bytes at 1 and 2 threads", "ClearNoon", 1, CULL, 2, CULL);
    return CHECK_DONE();
}
