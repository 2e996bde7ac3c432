/* An 800x600 RGB camera on the town with 100 vehicles on autopilot: frames per second of the
** camera's tick (render, shading, anti-aliasing, encoding) with shadows and anti_aliasing 2 (the
** defaults), beside the same camera with shadows off and anti_aliasing 1 (the baseline, in the
** same run), and the two in between, 1 and 2 threads: the sensors' share of sn_engine_stats (the
** world's own time left out). Then the defaults' whole frame (world and camera: the frames per
** second a user sees), fastest and median of the run. Each line ends with the renderer's own profile of those frames
** (render.h sn_render_profile): the shares of queueing, triangle setup, the shadow map and drawing.
** argv[1]: temp folder, argv[2]: maps folder, argv[3]: plugins. */
#include "../../engine/sim/engine.h"
#include "../testutil.h"

#include <time.h>

static const char *tmp, *maps, *plugins;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds of sensor time per frame over `frames` (<= 64) frames after 5 warm-up frames; *cpu: the
** process's CPU seconds per frame (world included), steadier than wall time on a busy machine;
** step[0], step[1]: the fastest and the median whole frame (world and camera), wall seconds (the
** fastest is the least disturbed by other processes). */
static double sensor_seconds(int threads, bool shadows, int aa, int frames, double *cpu, sn_render_profile *prof,
                             double step[2])
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, lighting: {shadows: %s}}\n"
             "traffic: {vehicles: 100, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain, color: \"96,110,70\"}}\n"
             "  - {name: block_1, blueprint: static.building, transform: {location: [50, -50, 12]}, attributes: {extent: \"32,32,12\"}}\n"
             "  - {name: block_2, blueprint: static.building, transform: {location: [150, -50, 18]}, attributes: {extent: \"32,32,18\"}}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: 800, image_size_y: 600, anti_aliasing: %d}}\n",
             maps, shadows ? "true" : "false", aa);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_rgb.yaml", scene), &err) || sn_engine_run(e, 5, &err)) {
        fprintf(stderr, "bench_rgb: %s\n", err.msg);
        exit(1);
    }
    sn_run_stats a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
    sn_engine_stats(e, &a, NULL);
    sn_render_profile p0;
    sn_renderer_profile(e->renderer, &p0);
    double c0 = cpu_now(), walls[64];
    for (int i = 0; i < frames; i++) {
        double w0 = wall_now();
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "bench_rgb: %s\n", err.msg);
            exit(1);
        }
        walls[i] = wall_now() - w0;
    }
    *cpu = (cpu_now() - c0) / frames;
    qsort(walls, (size_t)frames, sizeof *walls, by_value);
    step[0] = walls[0], step[1] = walls[frames / 2];
    sn_engine_stats(e, &b, NULL);
    sn_renderer_profile(e->renderer, prof);
    prof->frames -= p0.frames, prof->queue_ms -= p0.queue_ms, prof->setup_ms -= p0.setup_ms;
    prof->shadow_ms -= p0.shadow_ms, prof->draw_ms -= p0.draw_ms;
    sn_engine_destroy(e);
    return (b.time_sensors - a.time_sensors) / frames;
}

static double sum_ms(const sn_render_profile *p) { return p->queue_ms + p->setup_ms + p->shadow_ms + p->draw_ms; }

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_rgb TMP MAPS PLUGINS\n"), 2;
    tmp = argv[1], maps = argv[2], plugins = argv[3];
    for (int threads = 1; threads <= 2; threads++) {
        double c[4], t[4], step[4][2];
        sn_render_profile p[4];
        t[0] = sensor_seconds(threads, false, 1, 20, &c[0], &p[0], step[0]);
        t[1] = sensor_seconds(threads, true, 1, 20, &c[1], &p[1], step[1]);
        t[2] = sensor_seconds(threads, false, 2, 20, &c[2], &p[2], step[2]);
        t[3] = sensor_seconds(threads, true, 2, 20, &c[3], &p[3], step[3]);
        static const char *const what[4] = {"plain (no shadows, anti_aliasing 1)", "shadows", "anti_aliasing 2",
                                            "shadows + anti_aliasing 2 (the defaults)"};
        for (int k = 0; k < 4; k++)
            printf("rgb 800x600 town, 100 vehicles, %d thread%s: %-42s %6.1f fps (camera %6.2f ms wall, %6.2f ms CPU a "
                   "frame with the world)  ratio %.2f x wall, %.2f x CPU the plain camera's | render %.2f ms: queue %.0f%% "
                   "setup %.0f%% shadow map %.0f%% draw %.0f%%\n",
                   threads, threads > 1 ? "s" : " ", what[k], 1 / t[k], t[k] * 1e3, c[k] * 1e3, t[k] / t[0], c[k] / c[0],
                   sum_ms(&p[k]) / (double)p[k].frames, 100 * p[k].queue_ms / sum_ms(&p[k]),
                   100 * p[k].setup_ms / sum_ms(&p[k]), 100 * p[k].shadow_ms / sum_ms(&p[k]), 100 * p[k].draw_ms / sum_ms(&p[k]));
        printf("rgb 800x600 town, 100 vehicles, %d thread%s: the defaults' whole frame (world and camera): fastest %.2f ms "
               "= %.1f fps, median %.2f ms = %.1f fps%s\n",
               threads, threads > 1 ? "s" : " ", step[3][0] * 1e3, 1 / step[3][0], step[3][1] * 1e3, 1 / step[3][1],
               threads == 2 ? (1 / step[3][0] >= 30 ? " (target >= 30 fps on two cores: met at the fastest frame)"
                                                    : " (target >= 30 fps on two cores: NOT met)")
                            : "");
    }
    return 0;
}
