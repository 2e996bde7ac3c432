/* CARLA's camera post-process (plugins/common/postfx.c): a 1280x720 RGB camera on the hero driving
** through the town with scenery and 40 cars, with CARLA's default post-process (auto exposure,
** motion blur, bloom, lens flare, tone curve) beside the same camera with
** enable_postprocess_effects false (the baseline, measured in the same run, interleaved), and the
** post-process without motion blur (no extra motion render), at 1 and 2 threads. The figure is the
** process's CPU time a frame (world included: the same in all three), steadier than wall time on a
** shared machine, the least of three interleaved rounds; the sensors' wall time beside it.
** argv[1]: temp folder, argv[2]: maps folder, argv[3]: plugins. */
#include "../testutil.h"
#include "quick.h"

#include <sensim/sensim.h>

#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *tmp, *maps, *plugins;

static double camera_seconds(int threads, const char *attrs, int frames, double *wall)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: ClearNoon}\n"
             "traffic: {vehicles: 40, seed: 1}\n"
             "actors:\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: 1280, image_size_y: 720%s}}\n",
             maps, attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_postfx.yaml", scene), &err) || sn_engine_run(e, 20, &err)) {
        fprintf(stderr, "bench_postfx: %s\n", err.msg);
        exit(1);
    }
    sn_run_stats a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    sn_engine_stats(e, &a, NULL);
    double c0 = cpu_now();
    if (sn_engine_run(e, (uint64_t)frames, &err)) {
        fprintf(stderr, "bench_postfx: %s\n", err.msg);
        exit(1);
    }
    double cpu = (cpu_now() - c0) / frames;
    sn_engine_stats(e, &b, NULL);
    sn_engine_destroy(e);
    *wall = (b.time_sensors - a.time_sensors) / frames;
    return cpu;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_postfx TMP MAPS PLUGINS\n"), 2;
    tmp = argv[1], maps = argv[2], plugins = argv[3];
    static const char *const attrs[3] = {", enable_postprocess_effects: false", "", ", motion_blur_intensity: 0"};
    static const char *const what[3] = {"enable_postprocess_effects false (baseline)", "CARLA's defaults (post-process on)",
                                        "post-process without motion blur"};
    for (int threads = 1; threads <= 2; threads++) {
        double best[3] = {1e9, 1e9, 1e9}, wall[3] = {1e9, 1e9, 1e9};
        for (int round = 0, rounds = bench_rounds(3); round < rounds; round++)
            for (int k = 0; k < 3; k++) {
                double w, t = camera_seconds(threads, attrs[k], 8, &w);
                best[k] = t < best[k] ? t : best[k];
                wall[k] = w < wall[k] ? w : wall[k];
            }
        for (int k = 0; k < 3; k++)
            printf("rgb 1280x720 town, %d thread%s: %-44s %7.2f ms CPU a frame  ratio %.2f x the baseline (camera wall "
                   "%7.2f ms, %.2f x)\n",
                   threads, threads > 1 ? "s" : " ", what[k], best[k] * 1e3, best[k] / best[0], wall[k] * 1e3,
                   wall[k] / wall[0]);
    }
    return 0;
}
