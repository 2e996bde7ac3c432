/* Scenery's cost (issue 35): for the project's town, its highway map and, when this machine
** has them, CARLA's Town10HD and Town04 (/work/towns, never shipped): the scenery build against
** the map's load (parse and index) and the road mesh, as ratios, each the fastest of 3. Then
** a 1280x720 RGB camera on the project's town with scenery against the same camera without it:
** process CPU time per frame (the world included, the same in both), 1 and 2 threads.
** argv[1]: temp folder, argv[2]: maps folder, argv[3]: plugins. */
#include "../../engine/scenery/scenery.h"
#include "../../engine/sim/engine.h"
#include "../testutil.h"

#include <time.h>

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void build_times(const char *path)
{
    double best[3] = {1e9, 1e9, 1e9};
    uint32_t pieces = 0, tris = 0, road_tris = 0;
    for (int rep = 0; rep < 3; rep++) {
        sn_error err = {0};
        double t0 = cpu_now();
        sn_map *m = sn_map_open(path, &err);
        double t1 = cpu_now();
        if (!m) {
            fprintf(stderr, "bench_scenery: %s\n", err.msg);
            exit(1);
        }
        sn_road_mesh *rm = NULL;
        if (sn_road_mesh_build(m, &rm, &err)) {
            fprintf(stderr, "bench_scenery: %s\n", err.msg);
            exit(1);
        }
        road_tris = rm->n_t;
        double t2 = cpu_now();
        sn_scenery_opts o = {0, 1.0};
        sn_scenery sc;
        if (sn_scenery_build(m, &o, NULL, 0, NULL, 0, rm, &sc, &err)) {
            fprintf(stderr, "bench_scenery: %s\n", err.msg);
            exit(1);
        }
        double t3 = cpu_now();
        pieces = sc.n_objs, tris = rm->n_t - road_tris;
        best[0] = fmin(best[0], t1 - t0), best[1] = fmin(best[1], t2 - t1), best[2] = fmin(best[2], t3 - t2);
        sn_scenery_free(&sc);
        sn_road_mesh_free(rm);
        sn_map_close(m);
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("scenery build %-16s %5u pieces %7u triangles (roads %7u): %7.1f ms  ratio %.2f x the map load (%.1f ms), "
           "%.2f x the road mesh (%.1f ms)\n",
           name, pieces, tris, road_tris, best[2] * 1e3, best[2] / best[0], best[0] * 1e3, best[2] / best[1],
           best[1] * 1e3);
}

/* CPU seconds per frame of the town with a 1280x720 RGB camera, scenery on or off. */
static double rgb_cpu(const char *tmp, const char *maps, const char *plugins, int threads, bool scenery,
                      uint32_t *tris)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1}\n"
             "scenery: {enabled: %s}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: 1280, image_size_y: 720}}\n",
             maps, scenery ? "true" : "false");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_scenery.yaml", scene), &err) || sn_engine_run(e, 3, &err)) {
        fprintf(stderr, "bench_scenery: %s\n", err.msg);
        exit(1);
    }
    const int frames = 20;
    double c0 = cpu_now();
    for (int i = 0; i < frames; i++)
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "bench_scenery: %s\n", err.msg);
            exit(1);
        }
    double c = (cpu_now() - c0) / frames;
    *tris = e->world.roads ? e->world.roads->n_t : 0;
    sn_engine_destroy(e);
    return c;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: bench_scenery TMP MAPS PLUGINS\n"), 2;
    const char *tmp = argv[1], *maps = argv[2], *plugins = argv[3];
    char path[4096];
    static const char *const own[] = {"town.xodr", "highway.xodr"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", maps, own[i]);
        build_times(path);
    }
    const char *towns = getenv("SENSIM_TOWNS") ? getenv("SENSIM_TOWNS") : "/work/towns";
    static const char *const carla[] = {"Town10HD.xodr", "Town04.xodr"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", towns, carla[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            build_times(path);
        }
    }
    for (int threads = 1; threads <= 2; threads++) {
        uint32_t t_off, t_on;
        double off = rgb_cpu(tmp, maps, plugins, threads, false, &t_off);
        double on = rgb_cpu(tmp, maps, plugins, threads, true, &t_on);
        printf("rgb 1280x720 town, %d thread%s: with scenery %.2f ms CPU a frame, without %.2f ms  ratio %.2f x "
               "(static triangles %u vs %u)\n",
               threads, threads > 1 ? "s" : " ", on * 1e3, off * 1e3, on / off, t_on, t_off);
    }
    return 0;
}
