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

/* The RGB camera on the hero, `w` x `h`, anti-aliasing `aa`, in `weather`, with the scenery: FRAMES frames. */
enum { CULL = 0, ALL_FACES = 1 }; /* SENSIM_EXACT_CASTERS */

static bool shoot(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f)
{
    const char *const set[] = {how & ALL_FACES ? "SENSIM_EXACT_CASTERS" : NULL, NULL};
    return town_frames(weather, "scenery: {enabled: true}\n", w, h, aa, threads, set, f);
}

/* The culled map's frames against every face's */
static void bound(const char *name, const char *weather, uint32_t w, uint32_t h, int aa, int threads)
{
    frames_bound(shoot, name, weather, w, h, aa, threads, ALL_FACES, CULL);
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
    frames_same(shoot, "the culled map: the same bytes at 1 and 2 threads", "ClearNoon", 2, 1, CULL, 2, CULL);
    return CHECK_DONE();
}
