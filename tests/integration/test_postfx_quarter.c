/* Motion blur's vectors at a quarter size (pfx55, plugins/camera/camera.c: images 640 px wide and
** more), read since motion57 from the colour render's own samples (host->render_motion_grid), against
** the half-size motion render (SENSIM_EXACT_MOTION=1, the bytes before pfx55) and against pfx55's
** quarter-size motion render (SENSIM_MOTION_RENDER=1): on
** the town with traffic seen from a car driving on autopilot, in five weathers, every frame's
** RGB bytes within the documented bound (docs/rendering.md, Post-processing); the quarter size
** gives the same bytes at 1 and 2 threads. argv[1]: temp folder, argv[2]: plugin folder,
** argv[3]: maps folder. */
#include "../check.h"
#include "../testutil.h"

#include <stdlib.h>

#define FRAMES 30 /* the hero starts from rest: the later frames blur most */
/* The bound, measured with margin (docs/rendering.md): the mean absolute channel error of a
** weather's frames, and the share of its pixels with a channel off by more than 8. The largest
** error is not small: a pixel beside an object's edge may take the vector of the other side's
** (the quarter-size render's pixel is 4 image pixels), and blurs along it (up to 177 measured). */
#define MEAN_ERR 0.06
#define FAR_SHARE 0.002

#include "frame_diff.h"

static const char *dir, *plugins, *maps;

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`: FRAMES frames. */
enum { GRID, EXACT, QUARTER_RENDER }; /* the vectors: the colour render's grid, the half size, pfx55's */

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
    unsetenv("SENSIM_EXACT_MOTION"), unsetenv("SENSIM_MOTION_RENDER");
    if (how != GRID)
        setenv(how == EXACT ? "SENSIM_EXACT_MOTION" : "SENSIM_MOTION_RENDER", "1", 1);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(f, 0, sizeof *f);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "quarter.yaml", scene), &err) ||
             sn_engine_listen(e, "rgb", on_frame, f, &err) || sn_engine_run(e, FRAMES, &err);
    unsetenv("SENSIM_EXACT_MOTION"), unsetenv("SENSIM_MOTION_RENDER");
    CHECK(rc == 0 && f->n == FRAMES, "run (%s): %s", weather, err.msg);
    sn_engine_destroy(e);
    return rc == 0 && f->n == FRAMES;
}

/* The grid's frames against the reference `ref`'s (EXACT or QUARTER_RENDER). */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads, int ref)
{
    frames a, b;
    if (!shoot(weather, w, h, aa, threads, ref, &a))
        return;
    if (!shoot(weather, w, h, aa, threads, GRID, &b)) {
        frames_free(&a);
        return;
    }
    const frame_diff fd = frames_diff(&a, &b, w, h);
    const int worst = fd.worst, differ = fd.differ;
    const double mean = fd.mean, share = fd.share;
    printf("%s %ux%u aa %d against %s: %d of %d frames differ, largest channel error %d, mean %.4f, pixels off by more than 8: "
           "%.5f\n", name, w, h, aa, ref == EXACT ? "the half size" : "pfx55's quarter render", differ, FRAMES, worst, mean, share);
    CHECK(differ > 0, "%s: the quarter-size vectors are in use (some frame differs)", name);
    CHECK(share <= FAR_SHARE, "%s: %.5f of the pixels off by more than 8 (bound %g)", name, share, FAR_SHARE);
    CHECK(mean <= MEAN_ERR, "%s: mean channel error %.4f (bound %g)", name, mean, MEAN_ERR);
    frames_free(&a), frames_free(&b);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s TMPDIR PLUGIN_DIR MAPS_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1], plugins = argv[2], maps = argv[3];
    /* scripts/same_renders.sh's weathers: thin fog and shadows, thick fog, a wet sunset, a night
    ** with headlights, fog without falloff */
    for (int ref = EXACT; ref <= QUARTER_RENDER; ref++) {
        bound("clear", "ClearNoon", 640, 360, 2, 1, ref);
        bound("fog", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 640, 360, 1, 1, ref);
        bound("sunset", "WetCloudySunset", 640, 360, 3, 2, ref);
        bound("night", "WetNight", 640, 360, 1, 1, ref);
        bound("nofall", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", 640, 360, 2, 2, ref);
        bound("clear", "ClearNoon", 1280, 720, 2, 2, ref);
    }
    /* deterministic: the quarter-size vectors give the same bytes at 1 and 2 threads */
    frames a, b;
    if (shoot("ClearNoon", 640, 360, 2, 1, GRID, &a)) {
        if (shoot("ClearNoon", 640, 360, 2, 2, GRID, &b)) {
            bool same = true;
            for (int k = 0; k < FRAMES; k++)
                same = same && memcmp(a.raw[k], b.raw[k], (size_t)a.w * a.h * 4) == 0;
            CHECK(same, "the quarter-size vectors: the same bytes at 1 and 2 threads");
            frames_free(&b);
        }
        frames_free(&a);
    }
    return CHECK_DONE();
}
