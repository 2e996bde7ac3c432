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

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`: FRAMES frames. */
enum { HALF = 1, EXACT_HALF = 2, EXACT = 4 }; /* how: half runs on, SENSIM_EXACT_HALF, SENSIM_EXACT_SHADING */

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    const char *set[3] = {0};
    int n = 0;
    if (how & EXACT_HALF)
        set[n++] = "SENSIM_EXACT_HALF";
    if (how & EXACT)
        set[n++] = "SENSIM_EXACT_SHADING";
    return town_frames(weather, "", w, h, aa, threads, set, f);
}

/* The half runs' frames against every pixel shaded (SENSIM_EXACT_HALF=1); `runs`: some differ. */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads, bool runs)
{
    const frame_diff d = frames_bound(shoot, name, weather, w, h, aa, threads, EXACT_HALF, HALF);
    if (d.differ < 0)
        return;
    if (runs)
        CHECK(d.differ > 0, "%s: the half runs are in use (some frame differs)", name);
    else /* headlights: no run is plain, so no half runs */
        CHECK(d.differ == 0, "%s: no half runs at night", name);
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
    frames_same(shoot, "anti-aliasing 1: no half runs", "WetCloudySunset", 1, 1, HALF, 1, EXACT_HALF);
    frames_same(shoot, "anti-aliasing 3: no half runs", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 3, 1,
         HALF, 1, EXACT_HALF);
    /* deterministic: the same bytes at 1 and 2 threads */
    frames_same(shoot, "the half runs: the same bytes at 1 and 2 threads", "ClearNoon", 2, 1, HALF, 2, HALF);
    /* the exact shading takes no half runs: its bytes the same with and without SENSIM_EXACT_HALF */
    frames_same(shoot, "the exact shading: no half runs", "ClearNoon", 2, 1, EXACT, 1, EXACT | EXACT_HALF);
    return CHECK_DONE();
}
