/* bench_roads — the roads of CARLA's largest town: how long the mesh takes to build and how
** many triangles it has, and what 100 cars on it cost physics against 100 cars on a ground
** plane. argv[1]: temp folder, argv[2]: plugin folder, argv[3]: CARLA's Town05.xodr (default
** /work/carla-maps/Town05.xodr; exit 77 when absent: the towns are not shipped).
** Prints lines starting with `ratio`. */
#include "../../engine/map/road_mesh.h"
#include "../testutil.h"

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define CARS 100
#define FRAMES 100
#define REPS 3

/* Seconds per frame of a scene, the best of its runs. */
static double frame_time(const char *dir, const char *plugins, const char *scene)
{
    sn_engine *e = tu_load(plugins, tu_write(dir, "bench_roads.yaml", scene));
    sn_error err = {0};
    for (int i = 0; i < 10; i++) /* settle */
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "step: %s\n", err.msg);
            exit(1);
        }
    double best = INFINITY;
    for (int k = 0; k < 5; k++) {
        double t0 = now();
        for (int i = 0; i < FRAMES / 5; i++)
            sn_engine_step(e, &err);
        best = fmin(best, (now() - t0) / (FRAMES / 5));
    }
    sn_engine_destroy(e);
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_roads TMPDIR PLUGINDIR [Town05.xodr]\n");
        return 2;
    }
    const char *dir = argv[1], *plugins = argv[2], *town = argc > 3 ? argv[3] : "/work/carla-maps/Town05.xodr";
    FILE *f = fopen(town, "r");
    if (!f) {
        printf("skipped: %s is not here (CARLA's towns are not shipped)\n", town);
        return 77;
    }
    fclose(f);
    sn_error err = {0};
    double t0 = now();
    sn_map *m = sn_map_open(town, &err);
    double t_open = now() - t0;
    if (!m) {
        fprintf(stderr, "%s: %s\n", town, err.msg);
        return 1;
    }
    sn_road_mesh *rm = NULL;
    double best = INFINITY;
    for (int k = 0; k < REPS; k++) {
        sn_road_mesh_free(rm);
        t0 = now();
        if (sn_road_mesh_build(m, &rm, &err)) {
            fprintf(stderr, "mesh: %s\n", err.msg);
            return 1;
        }
        best = fmin(best, now() - t0);
    }
    size_t per_part[3] = {0};
    for (uint32_t i = 0; i < rm->n_chunks; i++)
        per_part[rm->chunks[i].part] += rm->chunks[i].count;
    printf("map %s (CARLA's Town05, the largest town): parsed and indexed in %.1f ms\n", town, t_open * 1e3);
    printf("mesh: %u triangles (%zu surface, %zu kerb, %zu paint), %u vertices, %u chunks, %.1f MB; built in %.1f ms "
           "(best of %d)\n",
           rm->n_t, per_part[0], per_part[1], per_part[2], rm->n_v, rm->n_chunks,
           (rm->n_v * (sizeof *rm->v + sizeof *rm->vf) + rm->n_t * sizeof *rm->t) / 1e6, best * 1e3, REPS);
    sn_road_mesh_free(rm);

    /* 100 cars at CARLA's spawn points, at least 12 m apart */
    size_t n_sp = 0;
    sn_map_spawn_points(m, NULL, 0, &n_sp, &err);
    sn_transform *sp = malloc((n_sp ? n_sp : 1) * sizeof *sp), pick[CARS];
    sn_map_spawn_points(m, sp, n_sp, &n_sp, &err);
    size_t n = 0;
    for (size_t i = 0; i < n_sp && n < CARS; i++) {
        bool ok = true;
        for (size_t j = 0; j < n && ok; j++)
            ok = hypot(sp[i].location.x - pick[j].location.x, sp[i].location.y - pick[j].location.y) > 12;
        if (ok)
            pick[n++] = sp[i];
    }
    free(sp);
    sn_map_close(m);
    if (n < CARS) {
        fprintf(stderr, "only %zu spawn points 12 m apart\n", n);
        return 1;
    }
    size_t cap = 256 + CARS * 200;
    char *road = malloc(cap), *plane = malloc(cap);
    int a = snprintf(road, cap, "map: %s\nactors:\n", town);
    int b = snprintf(plane, cap, "actors:\n  - {blueprint: static.ground}\n");
    for (size_t i = 0; i < CARS; i++) {
        const sn_transform *t = &pick[i];
        a += snprintf(road + a, cap - a, "  - {name: c%zu, blueprint: vehicle.sedan, transform: {location: [%.3f, %.3f, %.3f], "
                      "rotation: [0, %.3f, 0]}, control: {throttle: 0.1}}\n", i, t->location.x, t->location.y,
                      t->location.z, t->rotation.yaw);
        b += snprintf(plane + b, cap - b, "  - {name: c%zu, blueprint: vehicle.sedan, transform: {location: [%.3f, %.3f, 0.5], "
                      "rotation: [0, %.3f, 0]}, control: {throttle: 0.1}}\n", i, t->location.x, t->location.y,
                      t->rotation.yaw);
    }
    double tr = INFINITY, tp = INFINITY;
    for (int k = 0; k < REPS; k++) { /* interleaved: drift hits both alike */
        tr = fmin(tr, frame_time(dir, plugins, road));
        tp = fmin(tp, frame_time(dir, plugins, plane));
    }
    printf("100 sedans, 0.05 s frames: on Town05's road mesh %.3f ms a frame, on a ground plane %.3f ms\n", tr * 1e3,
           tp * 1e3);
    printf("ratio physics step road mesh / ground plane, 100 cars: %.2f\n", tr / tp);
    free(road);
    free(plane);
    return 0;
}
