/* What rain and night cost a camera (docs/rendering.md "Rain", "Night"): a 1280x720 RGB camera
** (CARLA's defaults: post-process on, anti-aliasing 2) on the hero driving through the town with
** its scenery and 40 cars, at ClearNoon (the baseline, measured in the same run, interleaved),
** HardRainNoon (streaks hidden behind depth, wet road, puddles mirroring the scene), the same
** without puddles (precipitation_deposits 0: no reflection pass; the road as wet), ClearNight
** (street lights with their shadows, lit windows, headlights) and ClearNight with
** settings.lighting.shadows false (the street lights' shadows off), and the motion blur rows:
** ClearNoon with motion_blur_intensity 0, and a still scene (the hero parked, no traffic: nothing
** moves, the motion render skipped) with CARLA's blur and with intensity 0, and motion_blur_method
** subframes moving and still (ratios against intensity 0 printed), at 1 and 2 threads. The figure
** is the process's CPU time a frame (world included), the least of three interleaved rounds.
** argv[1]: temp folder, argv[2]: maps folder, argv[3]: plugins; optional argv[4]: rounds (3),
** argv[5]: the most threads (2; 1 in CI's quick pass), argv[6]: only the rows whose name contains it (the baseline always). */
#include "../testutil.h"
#include "quick.h"

#include <sensim/sensim.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *tmp, *maps, *plugins;

/* One row: the world settings, more camera attributes, and whether anything moves. */
typedef struct row {
    const char *settings, *attrs, *what;
    bool still;
} row;

static double camera_seconds(int threads, const row *r, int frames)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, %s}\n"
             "%s"
             "actors:\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}%s}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: 1280, image_size_y: 720%s}}\n",
             maps, r->settings, r->still ? "" : "traffic: {vehicles: 40, seed: 1}\n", r->still ? "" : ", autopilot: {}",
             r->attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    /* a parked car settles for about 50 frames (contact jitter under 1e-5 m after): the still
    ** rows start after it */
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_weather.yaml", scene), &err) ||
        sn_engine_run(e, r->still ? 70 : 20, &err)) {
        fprintf(stderr, "bench_weather: %s\n", err.msg);
        exit(1);
    }
    double c0 = cpu_now();
    if (sn_engine_run(e, (uint64_t)frames, &err)) {
        fprintf(stderr, "bench_weather: %s\n", err.msg);
        exit(1);
    }
    double cpu = (cpu_now() - c0) / frames;
    sn_engine_destroy(e);
    return cpu;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_weather TMP MAPS PLUGINS\n"), 2;
    tmp = argv[1], maps = argv[2], plugins = argv[3];
    enum { N = 10 };
    static const row rows[N] = {
        {"weather: ClearNoon", "", "ClearNoon (baseline)", false},
        {"weather: HardRainNoon", "", "HardRainNoon (streaks, puddles' reflections)", false},
        {"weather: {preset: HardRainNoon, precipitation_deposits: 0}", "", "HardRainNoon without puddles (no reflections)", false},
        {"weather: ClearNight", "", "ClearNight (street lights' shadows)", false},
        {"weather: ClearNight, lighting: {shadows: false}", "", "ClearNight, shadows off", false},
        {"weather: ClearNoon", ", motion_blur_intensity: 0", "ClearNoon, motion_blur_intensity 0", false},
        {"weather: ClearNoon", "", "ClearNoon, nothing moves (blur on)", true},
        {"weather: ClearNoon", ", motion_blur_intensity: 0", "ClearNoon, nothing moves, blur 0", true},
        {"weather: ClearNoon", ", motion_blur_method: subframes", "ClearNoon, motion_blur_method subframes", false},
        {"weather: ClearNoon", ", motion_blur_method: subframes", "ClearNoon, nothing moves, subframes", true},
    };
    /* CI's quick pass: one round at 1 thread (the 2-thread rows' code is the renderer's pool,
    ** which the tests cover) */
    const int rounds = argc > 4 ? atoi(argv[4]) : bench_rounds(3), max_threads = argc > 5        ? atoi(argv[5])
                                                                                 : bench_quick() ? 1
                                                                                                 : 2;
    for (int threads = 1; threads <= max_threads; threads++) {
        double best[N];
        for (int k = 0; k < N; k++)
            best[k] = 1e9;
        for (int round = 0; round < rounds; round++)
            for (int k = 0; k < N; k++) {
                if (k && argc > 6 && !strstr(rows[k].what, argv[6]))
                    continue;
                double t = camera_seconds(threads, &rows[k], 8);
                best[k] = t < best[k] ? t : best[k];
            }
        for (int k = 0; k < N; k++)
            if (best[k] < 1e9)
                printf("rgb 1280x720 town, %d thread%s: %-46s %7.2f ms CPU a frame  ratio %.2f x the baseline\n", threads,
                   threads > 1 ? "s" : " ", rows[k].what, best[k] * 1e3, best[k] / best[0]);
        if (best[6] < 1e9 && best[7] < 1e9)
            printf("rgb 1280x720 town, %d thread%s: nothing moves, blur on / blur 0: %.3f x\n", threads,
                   threads > 1 ? "s" : " ", best[6] / best[7]);
        if (best[5] < 1e9 && best[8] < 1e9)
            printf("rgb 1280x720 town, %d thread%s: motion blur against blur 0: velocity %.3f x, subframes %.3f x\n",
                   threads, threads > 1 ? "s" : " ", best[0] / best[5], best[8] / best[5]);
        fflush(stdout);
    }
    return 0;
}
