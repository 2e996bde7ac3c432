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

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`: FRAMES frames. */
enum { GRID, EXACT, QUARTER_RENDER }; /* the vectors: the colour render's grid, the half size, pfx55's */

static bool shoot_afresh(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    const char *const set[] = {how == EXACT ? "SENSIM_EXACT_MOTION" : how == QUARTER_RENDER ? "SENSIM_MOTION_RENDER" : NULL,
                               NULL};
    return town_frames(weather, "", w, h, aa, threads, set, f);
}

/* The grid's run is compared with both references: its frames are kept from the first comparison
** for the second (runs are deterministic, which frames_same checks): a quarter of the test's runs. */
static struct {
    char weather[128];
    uint32_t w, h;
    int aa, threads;
    frames f;
} grid_kept;

/* dst = a copy of src's frames (dst owns them: frames_free). */
static void frames_copy(frames *dst, const frames *src)
{
    *dst = *src;
    for (int k = 0; k < src->n; k++) {
        size_t bytes = (size_t)src->w * src->h * 4;
        if (!(dst->raw[k] = malloc(bytes)))
            fprintf(stderr, "out of memory\n"), exit(1);
        memcpy(dst->raw[k], src->raw[k], bytes);
    }
}

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    if (how != GRID)
        return shoot_afresh(weather, w, h, aa, threads, how, f);
    if (grid_kept.f.n == FRAMES && !strcmp(grid_kept.weather, weather) && grid_kept.w == w && grid_kept.h == h &&
        grid_kept.aa == aa && grid_kept.threads == threads) {
        frames_copy(f, &grid_kept.f);
        return true;
    }
    if (!shoot_afresh(weather, w, h, aa, threads, how, f))
        return false;
    frames_free(&grid_kept.f);
    snprintf(grid_kept.weather, sizeof grid_kept.weather, "%s", weather);
    grid_kept.w = w, grid_kept.h = h, grid_kept.aa = aa, grid_kept.threads = threads;
    frames_copy(&grid_kept.f, f);
    return true;
}

/* The grid's frames against the reference `ref`'s (EXACT or QUARTER_RENDER). */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads, int ref)
{
    printf("against %s:\n", ref == EXACT ? "the half size" : "pfx55's quarter render");
    const frame_diff d = frames_bound(shoot, name, weather, w, h, aa, threads, ref, GRID);
    if (d.differ >= 0)
        CHECK(d.differ > 0, "%s: the quarter-size vectors are in use (some frame differs)", name);
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
    static const struct {
        const char *name, *weather;
        uint32_t w, h;
        int aa, threads;
    } runs[] = {
        {"clear", "ClearNoon", 640, 360, 2, 1},
        {"fog", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 640, 360, 1, 1},
        {"sunset", "WetCloudySunset", 640, 360, 3, 2},
        {"night", "WetNight", 640, 360, 1, 1},
        {"nofall", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", 640, 360, 2, 2},
        {"clear", "ClearNoon", 1280, 720, 2, 2},
    };
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++)
        for (int ref = EXACT; ref <= QUARTER_RENDER; ref++) /* one after the other: the grid's run is kept */
            bound(runs[i].name, runs[i].weather, runs[i].w, runs[i].h, runs[i].aa, runs[i].threads, ref);
    frames_free(&grid_kept.f);
    /* deterministic: the quarter-size vectors give the same bytes at 1 and 2 threads */
    frames_same(shoot, "the quarter-size vectors: the same bytes at 1 and 2 threads", "ClearNoon", 2, 1, GRID, 2, GRID);
    return CHECK_DONE();
}
