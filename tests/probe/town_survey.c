/* town_survey — the issue-35 figures on a CARLA town (not a test: a measurement, built on demand
** with `meson compile -C build town_survey`). A 2-minute autopilot drive with 50 vehicles and 30
** walkers of CARLA's blueprints (vehicle.*, walker.pedestrian.*), the hero a traffic-like
** vehicle at the map's first spawn point with a 640x360 semantic camera every 3 s (40 frames) and
** a 32-channel semantic lidar (50 m, counted every 3 s too); scenery on and off. Prints the tags
** seen and their shares, and the share of lidar returns off the ground (not Roads, SideWalks,
** Terrain, RoadLine, Ground). With a fourth argument, saves the hero's RGB and semantic images
** every 15 s there (for docs/); a fifth, a weather preset for that drive (ClearNoon), and a sixth,
** its frames (2400).
** usage: town_survey TMP PLUGINS MAP.xodr [PICTURES_DIR [WEATHER [FRAMES]]] */
#include "../../engine/map/lanemap.h"
#include "../../engine/scenery/scenery.h"
#include "../../engine/sim/engine.h"
#include "survey.h"

static void run(const char *tmp, const char *plugins, const char *map, const char *pics, bool scenery,
                const char *weather, uint64_t frames)
{
    sn_error err = {0};
    char scene[8192];
    survey_scene(scene, sizeof scene, "town_survey", map, pics, scenery, weather);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 2};
    sn_engine *e = sn_engine_create(&o, &err);
    survey s = {0};
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "town_survey.yaml", scene), &err) ||
        sn_engine_listen(e, "sem", on_sem, &s, &err) || sn_engine_listen(e, "lidar", on_lidar, &s, &err) ||
        (pics && sn_engine_open_outputs(e, pics, &err)) || sn_engine_run(e, frames, &err)) {
        fprintf(stderr, "town_survey: %s\n", err.msg);
        exit(1);
    }
    survey_print(&s, map, scenery);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: town_survey TMP PLUGINS MAP.xodr [PICTURES_DIR [WEATHER [FRAMES]]]\n"), 2;
    const char *weather = argc > 5 ? argv[5] : "ClearNoon";
    const uint64_t frames = argc > 6 ? strtoull(argv[6], NULL, 10) : 2400;
    run(argv[1], argv[2], argv[3], argc > 4 ? argv[4] : NULL, true, weather, frames);
    if (argc <= 4)
        run(argv[1], argv[2], argv[3], NULL, false, weather, frames);
    return 0;
}
