/* bench_rig — a CARLA user's dataset rig (issue 36 item 1): on the project's own town
** (maps/town.xodr, scenery on, CARLA's ClearNoon weather: sun, shadows, fog) with 50 cars and
** 30 walkers on autopilot, the hero carries RGB (anti-aliasing 2, the default), depth and
** semantic cameras at 1280x720, a 64-channel lidar at 1.3 M points/s (100 m), a GNSS and an IMU,
** every sensor every frame (20 Hz). Figures are CPU time of the whole process (every thread:
** renderer workers, stream and image writers), the machine being shared:
**   - the world alone (the same scene without sensors): the baseline every ratio is against;
**   - the rig without outputs, and with saving (each stream written and the three cameras'
**     PNGs: rgb, depth through `raw`, semantic through `cityscapes`), frames per CPU-second,
**     the rig's frame as a ratio of the world's, at 1 and 2 threads; wall frames per second;
**   - the rig saving the three PNGs alone (settings streams: false, `--no-streams`), which is
**     what a CARLA user's listen(save_to_disk) writes;
**   - the RGB camera alone (its frame less the world's) in CPU seconds a frame, the renderer's
**     profile of those frames (render.h) beside it.
** Each figure is the fastest of REPS runs (fewest interruptions); SENSIM_BENCH_RIG_REPS and
** SENSIM_BENCH_RIG_FRAMES override; SENSIM_BENCH_RIG_THREADS=1 or 2 runs that thread count alone. argv[1]: temp folder, argv[2]: maps folder, argv[3]: plugins. */
#include "../../engine/sim/engine.h"
#include "../../engine/output/saver.h"
#include "../testutil.h"

#include <stdlib.h>
#include <time.h>

/* rm -rf of a folder the benchmark made */
static void rmrf(const char *dir)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_rig: could not remove %s\n", dir);
}

static const char *tmp, *maps, *plugins;
static int frames = 20, reps = 2;

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef enum { WORLD, RIG, RGB_ALONE } what;
/* what saving writes: nothing, every stream and the PNGs, or the PNGs alone (settings streams:
** false, `sensim run --no-streams`: what a CARLA user's save_to_disk writes) */
typedef enum { NO_SAVE, SAVE_ALL, SAVE_PNG } saving;

#define CAM(name, bp, extra, save)                                                                        \
    "  - {name: " name ", blueprint: " bp ", attach_to: hero, transform: {location: [1.5, 0, 2.4]},"      \
    " attributes: {image_size_x: 1280, image_size_y: 720" extra "}%s}\n"

/* The scene: the world, plus the rig or the RGB camera alone; saves when `save`. */
static const char *scene(what w, saving sv)
{
    static char text[8192];
    const bool save = sv != NO_SAVE;
    int n = snprintf(text, sizeof text,
                     "map: %s/town.xodr\n"
                     "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: ClearNoon%s}\n"
                     "scenery: {enabled: true}\n"
                     "traffic: {vehicles: 50, walkers: 30, seed: 1}\n"
                     "actors:\n"
                     "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]},"
                     " attributes: {semantic_tag: Terrain, color: \"96,110,70\"}}\n"
                     "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]},"
                     " attributes: {role_name: hero}, autopilot: {}}\n",
                     maps, sv == SAVE_PNG ? ", streams: false" : "");
    if (w == WORLD)
        return text;
    n += snprintf(text + n, sizeof text - (size_t)n, "sensors:\n");
    n += snprintf(text + n, sizeof text - (size_t)n, CAM("rgb", "sensor.camera.rgb", "", ""),
                  save ? ", save: {path: \"rgb/%06d.png\"}" : "");
    if (w == RGB_ALONE)
        return text;
    n += snprintf(text + n, sizeof text - (size_t)n, CAM("depth", "sensor.camera.depth", "", ""),
                  save ? ", save: {path: \"depth/%06d.png\", converter: raw}" : "");
    n += snprintf(text + n, sizeof text - (size_t)n, CAM("semantic", "sensor.camera.semantic_segmentation", "", ""),
                  save ? ", save: {path: \"semantic/%06d.png\", converter: cityscapes}" : "");
    snprintf(text + n, sizeof text - (size_t)n,
             "  - {name: lidar, blueprint: sensor.lidar.ray_cast, attach_to: hero, transform: {location: [0, 0, 2.4]},"
             " attributes: {channels: 64, points_per_second: 1300000, rotation_frequency: 20, range: 100,"
             " upper_fov: 2, lower_fov: -24.8}}\n"
             "  - {name: gnss, blueprint: sensor.other.gnss, attach_to: hero}\n"
             "  - {name: imu, blueprint: sensor.other.imu, attach_to: hero}\n");
    return text;
}

typedef struct figure {
    double cpu, wall; /* seconds a frame */
    sn_render_profile prof;
} figure;

static void fail(const sn_error *err)
{
    fprintf(stderr, "bench_rig: %s\n", err->msg);
    exit(1);
}

/* One run: 3 frames of warm-up (caches, the first images), then `frames` frames timed; with
** saving, the window starts with the image queue drained and ends with every file written. */
static figure run(what w, saving sv, int threads)
{
    const bool save = sv != NO_SAVE;
    char out[4200];
    snprintf(out, sizeof out, "%s/bench_rig_out", tmp);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_rig.yaml", scene(w, sv)), &err))
        fail(&err);
    if (save) {
        rmrf(out);
        if (sn_engine_open_outputs(e, out, &err))
            fail(&err);
    }
    for (int i = 0; i < 3; i++)
        if (sn_engine_step(e, &err))
            fail(&err);
    if (e->saver && sn_saver_wait(e->saver, &err))
        fail(&err);
    sn_render_profile p0 = {0}, p1 = {0};
    if (e->renderer)
        sn_renderer_profile(e->renderer, &p0);
    double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    for (int i = 0; i < frames; i++)
        if (sn_engine_step(e, &err))
            fail(&err);
    if (e->renderer)
        sn_renderer_profile(e->renderer, &p1);
    if (save && sn_engine_finish(e, true, &err))
        fail(&err);
    figure f = {(clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) / frames, (clock_s(CLOCK_MONOTONIC) - w0) / frames, {0}};
    f.prof = (sn_render_profile){p1.frames - p0.frames, p1.queue_ms - p0.queue_ms, p1.setup_ms - p0.setup_ms,
                                 p1.shadow_ms - p0.shadow_ms, p1.draw_ms - p0.draw_ms};
    sn_engine_destroy(e);
    if (save)
        rmrf(out);
    return f;
}

/* The fastest of `reps` runs (CPU), and the range of the CPU figure over them. */
static figure best(what w, saving sv, int threads, double range[2])
{
    figure b = {1e30, 1e30, {0}};
    range[0] = 1e30, range[1] = 0;
    for (int k = 0; k < reps; k++) {
        figure f = run(w, sv, threads);
        range[0] = f.cpu < range[0] ? f.cpu : range[0];
        range[1] = f.cpu > range[1] ? f.cpu : range[1];
        if (f.cpu < b.cpu)
            b.cpu = f.cpu, b.prof = f.prof;
        b.wall = f.wall < b.wall ? f.wall : b.wall;
    }
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_rig TMP MAPS PLUGINS\n"), 2;
    tmp = argv[1], maps = argv[2], plugins = argv[3];
    if (getenv("SENSIM_BENCH_RIG_FRAMES"))
        frames = atoi(getenv("SENSIM_BENCH_RIG_FRAMES"));
    if (getenv("SENSIM_BENCH_RIG_REPS"))
        reps = atoi(getenv("SENSIM_BENCH_RIG_REPS"));
    if (frames < 1 || reps < 1)
        return fprintf(stderr, "bench_rig: frames and reps must be >= 1\n"), 2;
    const char *only = getenv("SENSIM_BENCH_RIG_ONLY"); /* "rig", "save", "png" or "rgb": one figure, for perf */
    const char *th = getenv("SENSIM_BENCH_RIG_THREADS"); /* one thread count alone, for perf */
    const int t_first = th && atoi(th) == 2 ? 2 : 1, t_last = th && atoi(th) == 1 ? 1 : 2;
    for (int threads = t_first; threads <= t_last; threads++) {
        double rw[2], rn[2], rs[2], rp[2], rr[2];
        figure world = best(WORLD, NO_SAVE, threads, rw);
        if (!only || !strcmp(only, "rig")) {
            figure nosave = best(RIG, NO_SAVE, threads, rn);
            printf("rig %d thread%s without outputs: %5.2f frames per CPU-s (%.1f-%.1f ms CPU a frame)  ratio %.2f x the "
                   "world alone (%.1f ms)  wall %.2f frames/s\n",
                   threads, threads > 1 ? "s" : " ", 1 / nosave.cpu, rn[0] * 1e3, rn[1] * 1e3, nosave.cpu / world.cpu,
                   world.cpu * 1e3, 1 / nosave.wall);
        }
        if (!only || !strcmp(only, "save")) {
            figure save = best(RIG, SAVE_ALL, threads, rs);
            printf("rig %d thread%s with saving:     %5.2f frames per CPU-s (%.1f-%.1f ms CPU a frame)  ratio %.2f x the "
                   "world alone (%.1f ms)  wall %.2f frames/s\n",
                   threads, threads > 1 ? "s" : " ", 1 / save.cpu, rs[0] * 1e3, rs[1] * 1e3, save.cpu / world.cpu,
                   world.cpu * 1e3, 1 / save.wall);
        }
        if (!only || !strcmp(only, "png")) {
            figure png = best(RIG, SAVE_PNG, threads, rp);
            printf("rig %d thread%s saving PNGs alone: %5.2f frames per CPU-s (%.1f-%.1f ms CPU a frame)  ratio %.2f x "
                   "the world alone (%.1f ms)  wall %.2f frames/s\n",
                   threads, threads > 1 ? "s" : " ", 1 / png.cpu, rp[0] * 1e3, rp[1] * 1e3, png.cpu / world.cpu,
                   world.cpu * 1e3, 1 / png.wall);
        }
        if (!only || !strcmp(only, "rgb")) {
            figure rgb = best(RGB_ALONE, NO_SAVE, threads, rr);
            const sn_render_profile *p = &rgb.prof;
            double ms = p->queue_ms + p->setup_ms + p->shadow_ms + p->draw_ms;
            printf("rgb 1280x720 alone, %d thread%s: %.4f CPU-s a frame (%.4f-%.4f, its frame less the world's)  ratio "
                   "%.2f x the world alone; renderer wall: queue %.0f %%, setup %.0f %%, shadow %.0f %%, draw %.0f %%; "
                   "wall %.1f ms a frame (%.1f the world's)\n",
                   threads, threads > 1 ? "s" : " ", rgb.cpu - world.cpu, rr[0] - world.cpu, rr[1] - world.cpu,
                   (rgb.cpu - world.cpu) / world.cpu, 100 * p->queue_ms / ms, 100 * p->setup_ms / ms,
                   100 * p->shadow_ms / ms, 100 * p->draw_ms / ms, rgb.wall * 1e3, world.wall * 1e3);
        }
        fflush(stdout);
    }
    return 0;
}
