/* The fast shading's fog anchors (quad57, engine/render/shade_pairs.c: fog at a run's every fourth
** pixel, the line between) against every pixel's own (SENSIM_EXACT_PAIRS=1): on
** the town with traffic seen from a car driving on autopilot, in five weathers, every frame's RGB
** bytes within the documented bound (docs/rendering.md, "Pairs"); the same bytes at 1 and 2
** threads; the exact shading (SENSIM_EXACT_SHADING=1) and anti-aliasing 1 and 3 take none. argv[1]: temp folder,
** argv[2]: plugin folder, argv[3]: maps folder. */
#include "../check.h"
#include "../testutil.h"

#include <stdlib.h>

#define FRAMES 10
/* The bound, measured with margin (docs/rendering.md, "Fog's anchors"): the mean absolute channel
** error of a weather's frames, the share of its pixels with a channel off by more than 8, and the
** largest (measured: 2, a rounding boundary crossed by fog's line's error). */
#define MEAN_ERR 0.02
#define FAR_SHARE 0.0
#define WORST 3
#include "frame_diff.h"

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`: FRAMES frames. */
enum { PAIRS = 1, EXACT_PAIRS = 2, EXACT = 4 }; /* how: pairs on, SENSIM_EXACT_PAIRS, SENSIM_EXACT_SHADING */

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    /* the anchors alone: every pixel of a run shaded (the half runs, whose decisions a changed
    ** level can flip, have their own bound: test_shade_half.c) */
    const char *set[4] = {"SENSIM_EXACT_HALF"};
    int n = 1;
    if (how & EXACT_PAIRS)
        set[n++] = "SENSIM_EXACT_PAIRS";
    if (how & EXACT)
        set[n++] = "SENSIM_EXACT_SHADING";
    return town_frames(weather, "", w, h, aa, threads, set, f);
}

/* The anchors' frames against every pixel's own fog (SENSIM_EXACT_PAIRS=1); `fogged`: some differ. */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads, bool fogged)
{
    const frame_diff d = frames_bound(shoot, name, weather, w, h, aa, threads, EXACT_PAIRS, PAIRS);
    if (d.differ < 0)
        return;
    if (fogged)
        CHECK(d.differ > 0, "%s: the anchors are in use (some frame differs)", name);
    else /* headlights: no run is plain, so no anchors */
        CHECK(d.differ == 0, "%s: no anchors at night", name);
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
    /* (runs, hence anchors, exist at 2 x 2 samples alone: the default) */
    bound("clear", "ClearNoon", 640, 360, 2, 1, true);
    bound("fog", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 640, 360, 2, 1, true);
    bound("sunset", "WetCloudySunset", 640, 360, 2, 2, true);
    bound("night", "WetNight", 640, 360, 2, 1, false);
    bound("nofall", "{preset: CloudyNoon, fog_density: 30, fog_falloff: 0}", 640, 360, 2, 2, true);
    bound("clear", "ClearNoon", 1280, 720, 2, 2, true);
    /* other anti-aliasing takes no anchors: the same bytes */
    frames_same(shoot, "anti-aliasing 1 and 3: no anchors", "WetCloudySunset", 1, 1, PAIRS, 1, EXACT_PAIRS);
    frames_same(shoot, "anti-aliasing 3: no anchors", "{preset: ClearNoon, fog_density: 60, fog_distance: 5, fog_falloff: 0.4}", 3, 1,
         PAIRS, 1, EXACT_PAIRS);
    /* deterministic: the same bytes at 1 and 2 threads */
    frames_same(shoot, "the anchors: the same bytes at 1 and 2 threads", "ClearNoon", 2, 1, PAIRS, 2, PAIRS);
    /* the exact shading takes no anchors: its bytes the same with and without SENSIM_EXACT_PAIRS */
    frames_same(shoot, "the exact shading: no anchors", "ClearNoon", 2, 1, EXACT, 1, EXACT | EXACT_PAIRS);
    return CHECK_DONE();
}
