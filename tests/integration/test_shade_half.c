/* The fast shading's half runs (shade58, engine/render/render.c's half_runs: a run's odd pixels the
** mean of their two neighbours where those agree) against every pixel of a run shaded
** (SENSIM_EXACT_HALF=1): on the town with traffic seen from a car driving on autopilot, in five
** weathers, every frame's RGB bytes within the documented bound (docs/rendering.md, "Half runs");
** the same bytes at 1 and 2 threads; the exact shading (SENSIM_EXACT_SHADING=1) and anti-aliasing
** 1 and 3 take none. argv[1]: temp folder, argv[2]: plugin folder, argv[3]: maps folder. */
#include "../check.h"
#include "../testutil.h"

#include <stdlib.h>

#define FRAMES 10
/* The bound, measured with margin (docs/rendering.md, "Half runs"): the mean absolute channel
** error of a weather's frames (measured up to 0.095), the share of its pixels with a channel off
** by more than 8 (up to 0.00001: the asphalt's 7 cm grain where it is finer than two pixels, a
** grain an odd pixel alone holds), and the largest (11, the same). The sidewalks' tops are in
** (half58b: their joints by tile_same; without it 35-41 levels off, 0.1 % of the pixels). */
#define MEAN_ERR 0.15
#define FAR_SHARE 0.0001
#define WORST 16
#include "frame_diff.h"

static const char *dir, *plugins, *maps;

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`: FRAMES frames. */
enum { HALF = 1, EXACT_HALF = 2, EXACT = 4 }; /* how: half runs on, SENSIM_EXACT_HALF, SENSIM_EXACT_SHADING */

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: %s}\n"
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
    unsetenv("SENSIM_EXACT_HALF"), unsetenv("SENSIM_EXACT_SHADING");
    if (how & EXACT_HALF)
        setenv("SENSIM_EXACT_HALF", "1", 1);
    if (how & EXACT)
        setenv("SENSIM_EXACT_SHADING", "1", 1);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(f, 0, sizeof *f);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "half.yaml", scene), &err) ||
             sn_engine_listen(e, "rgb", on_frame, f, &err) || sn_engine_run(e, FRAMES, &err);
    unsetenv("SENSIM_EXACT_HALF"), unsetenv("SENSIM_EXACT_SHADING");
    CHECK(rc == 0 && f->n == FRAMES, "run (%s): %s", weather, err.msg);
    sn_engine_destroy(e);
    return rc == 0 && f->n == FRAMES;
}

/* The half runs' frames against every pixel shaded (SENSIM_EXACT_HALF=1); `runs`: some differ. */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads, bool runs)
{
    frames a, b;
    if (!shoot(weather, w, h, aa, threads, EXACT_HALF, &a))
        return;
    if (!shoot(weather, w, h, aa, threads, HALF, &b)) {
        frames_free(&a);
        return;
    }
    const frame_diff fd = frames_diff(&a, &b, w, h);
    const int worst = fd.worst, differ = fd.differ;
    const double mean = fd.mean, share = fd.share;
    printf("%s %ux%u aa %d: %d of %d frames differ, largest channel error %d, mean %.4f, pixels off by more than 8: %.5f\n",
           name, w, h, aa, differ, FRAMES, worst, mean, share);
    if (runs)
        CHECK(differ > 0, "%s: the half runs are in use (some frame differs)", name);
    else /* headlights: no run is plain, so no half runs */
        CHECK(differ == 0, "%s: no half runs at night", name);
    CHECK(share <= FAR_SHARE, "%s: %.5f of the pixels off by more than 8 (bound %g)", name, share, FAR_SHARE);
    CHECK(mean <= MEAN_ERR, "%s: mean channel error %.4f (bound %g)", name, mean, MEAN_ERR);
    CHECK(worst <= WORST, "%s: largest channel error %d (bound %d)", name, worst, WORST);
    frames_free(&a), frames_free(&b);
}

/* Whether two runs give the same bytes in every frame. */
static void same(const char *what, const char *weather, int aa, int threads_a, int how_a, int threads_b, int how_b)
{
    frames a, b;
    if (!shoot(weather, 640, 360, aa, threads_a, how_a, &a))
        return;
    if (shoot(weather, 640, 360, aa, threads_b, how_b, &b)) {
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
    /* scripts/same_renders.sh's weathers: thin fog and shadows, thick fog, a wet sunset, a night
    ** with headlights, fog without falloff (runs, hence half runs, exist at 2 x 2 samples alone: the
    ** default) */
    bound("clear", "ClearNoon", 640, 360, 2, 1, true);
    bound("fog", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 640, 360, 2, 1, true);
    bound("sunset", "WetCloudySunset", 640, 360, 2, 2, true);
    bound("night", "WetNight", 640, 360, 2, 1, false);
    bound("nofall", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", 640, 360, 2, 2, true);
    bound("clear", "ClearNoon", 1280, 720, 2, 2, true);
    bound("sunset", "WetCloudySunset", 1280, 720, 2, 1, true);
    /* other anti-aliasing takes no half runs: the same bytes */
    same("anti-aliasing 1: no half runs", "WetCloudySunset", 1, 1, HALF, 1, EXACT_HALF);
    same("anti-aliasing 3: no half runs", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 3, 1,
         HALF, 1, EXACT_HALF);
    /* deterministic: the same bytes at 1 and 2 threads */
    same("the half runs: the same bytes at 1 and 2 threads", "ClearNoon", 2, 1, HALF, 2, HALF);
    /* the exact shading takes no half runs: its bytes the same with and without SENSIM_EXACT_HALF */
    same("the exact shading: no half runs", "ClearNoon", 2, 1, EXACT, 1, EXACT | EXACT_HALF);
    return CHECK_DONE();
}
