/* What drawing vehicles and walkers as their models (render/shapes.h) costs against drawing
** their boxes, on the town demo (scenes/town.yaml's world: the town map, 40 cars and 20
** pedestrians of traffic, four buildings) after 2 s of traffic: an RGB frame (colour, depth,
** labels) from the hero's camera and from above a junction, on 1 and 2 threads, and a 64-channel
** lidar's 115 200 rays from the hero; triangles set up and ms per frame, models / boxes in the
** same run. Then the renderer's triangle setup on the pool against on one thread, at 110 k and
** 1.2 M triangles. argv[1]: temp folder, argv[2]: maps folder. */
#include "../../engine/query/rayscene.h"
#include "../../engine/sim/engine.h"
#include "../testutil.h"

#include "best_ms.h"

static void must(sn_status st, const sn_error *err)
{
    if (st) {
        fprintf(stderr, "bench_shapes: %s\n", err->msg);
        exit(1);
    }
}

static void frame(sn_renderer *r, sn_engine *e, const sn_camera *cam, const sn_image *img)
{
    sn_error err = {0};
    must(sn_render(r, &e->world, 1.0, &e->lighting, cam, img, &err), &err);
}

static void set_boxes(sn_engine *e, bool on)
{
    e->world.box_shapes = on;
    e->world.gen++; /* the ray index rebuilds */
}

static void bench_camera(sn_engine *e, const char *label, sn_camera cam)
{
    size_t px = (size_t)cam.width * cam.height;
    float *depth = malloc(px * sizeof *depth);
    uint8_t *bgra = malloc(px * 4), *tag = malloc(px);
    uint32_t *inst = malloc(px * sizeof *inst);
    sn_image img = {sizeof img, depth, bgra, tag, inst, 0};
    for (int threads = 1; threads <= 2; threads++) {
        sn_renderer *r = sn_renderer_create(threads);
        double ms[2];
        uint32_t tris[2];
        for (int boxes = 0; boxes < 2; boxes++) {
            set_boxes(e, boxes);
            frame(r, e, &cam, &img);
            ms[boxes] = BEST_MS(frame(r, e, &cam, &img), 10);
            tris[boxes] = sn_renderer_last_triangles(r);
        }
        set_boxes(e, false);
        printf("rgb %-8s %ux%u %d thread%s: models %7.2f ms %7u triangles | boxes %7.2f ms %7u triangles | "
               "ratio %.2f x time, %.2f x triangles\n",
               label, cam.width, cam.height, threads, threads > 1 ? "s" : " ", ms[0], tris[0], ms[1], tris[1],
               ms[0] / ms[1], (double)tris[0] / tris[1]);
        sn_renderer_destroy(r);
    }
    free(depth), free(bgra), free(tag), free(inst);
}

/* A 64-channel lidar's revolution from the hero's roof: 1800 columns, -25..+5 degrees. */
static void bench_lidar(sn_engine *e, sn_vec3 at, uint32_t hero)
{
    enum { CH = 64, COLS = 1800, N = CH * COLS };
    sn_ray *rays = malloc(N * sizeof *rays);
    sn_ray_result *res = malloc(N * sizeof *res);
    for (int i = 0; i < N; i++) {
        double el = (-25 + 30.0 * (i % CH) / (CH - 1)) * SN_DEG, az = 2 * SN_PI * (i / CH) / COLS;
        rays[i] = (sn_ray){at, {cos(el) * cos(az), cos(el) * sin(az), sin(el)}, 100};
    }
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = &hero, q.n_ignore = 1; /* as the lidar ignores its parent */
    for (int threads = 1; threads <= 2; threads++) {
        sn_error err = {0};
        sn_rayscene *rs = sn_rayscene_create(threads, &err);
        double ms[2];
        size_t tris[2];
        uint32_t hits[2];
        for (int boxes = 0; boxes < 2; boxes++) {
            set_boxes(e, boxes);
            /* a moving world: the index refits its moving geometry every frame */
            ms[boxes] = BEST_MS((e->world.gen++, must(sn_rays_trace(rs, &e->world, &q, rays, N, res, &err), &err)), 5);
            hits[boxes] = 0;
            for (int i = 0; i < N; i++)
                hits[boxes] += res[i].n_hits && res[i].hit.actor_id && sn_world_find(&e->world, res[i].hit.actor_id) &&
                               sn_world_find(&e->world, res[i].hit.actor_id)->kind != SN_ACTOR_STATIC;
            float *t = sn_rayscene_world_triangles(&e->world, &tris[boxes]);
            free(t);
        }
        set_boxes(e, false);
        printf("lidar 64 x 1800 %d thread%s: models %7.2f ms (%u hits on vehicles and walkers, %zu triangles) | boxes "
               "%7.2f ms (%u hits, %zu triangles) | ratio %.2f x time\n",
               threads, threads > 1 ? "s" : " ", ms[0], hits[0], tris[0], ms[1], hits[1], tris[1], ms[0] / ms[1]);
        sn_rayscene_destroy(rs);
    }
    free(rays), free(res);
}

/* Triangle setup on the pool against setup on the calling thread (sn_renderer_set_serial_setup,
** the renderer before it ran setup in parallel), same frames: spheres of 960 triangles facing the
** camera, depth and colour at 800x600, and at 160x120 where setup is nearly the whole frame. */
static void bench_setup(const char *tmp, int spheres)
{
    char *scene = malloc((size_t)spheres * 160 + 128);
    int n = sprintf(scene, "actors:\n  - {name: ground, blueprint: static.ground}\n");
    int side = (int)ceil(sqrt(spheres / 4.0));
    for (int i = 0; i < spheres; i++)
        n += sprintf(scene + n, "  - {blueprint: static.prop.sphere, transform: {location: [%.2f, %.2f, %.2f]}, attributes: {radius: 0.4}}\n",
                     10 + 1.0 * (i / (side * side)), -side / 2.0 + (i % side), 0.5 + ((i / side) % side));
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e)
        must(SN_E_NOMEM, &err);
    must(sn_engine_load_scene(e, tu_write(tmp, "spheres.yaml", scene), &err), &err);
    free(scene);
    must(sn_engine_step(e, &err), &err);
    static const uint32_t sizes[2][2] = {{800, 600}, {160, 120}};
    for (int z = 0; z < 2; z++) {
        sn_camera cam = {sizeof cam, {{0, 0, side / 2.0}, {0, 0, 0}}, sizes[z][0], sizes[z][1], 90, 0.1, 1000};
        size_t px = (size_t)cam.width * cam.height;
        float *depth = malloc(px * sizeof *depth);
        uint8_t *bgra = malloc(px * 4);
        sn_image img = {sizeof img, depth, bgra, NULL, NULL, 0};
        for (int threads = 1; threads <= 2; threads++) {
            sn_renderer *r = sn_renderer_create(threads);
            double ms[2];
            for (int serial = 1; serial >= 0; serial--) {
                sn_renderer_set_serial_setup(r, serial);
                frame(r, e, &cam, &img);
                ms[serial] = BEST_MS(frame(r, e, &cam, &img), 3);
            }
            printf("setup %5d spheres (%8zu triangles in view: %8u set up) %4ux%-4u %d thread%s: on the pool %8.2f ms | "
                   "serial %8.2f ms | ratio %.2f\n",
                   spheres, (size_t)spheres * 960, sn_renderer_last_triangles(r), cam.width, cam.height, threads,
                   threads > 1 ? "s" : " ", ms[0], ms[1], ms[0] / ms[1]);
            sn_renderer_destroy(r);
        }
        free(depth), free(bgra);
    }
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: bench_shapes TMP MAPS\n"), 2;
    char *scene = malloc(1 << 14);
    snprintf(scene, 1 << 14,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1}\n"
             "traffic: {vehicles: 40, walkers: 20, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n"
             "  - {blueprint: static.building, transform: {location: [50, -50, 12]}, attributes: {extent: \"32,32,12\"}}\n"
             "  - {blueprint: static.building, transform: {location: [150, -50, 18]}, attributes: {extent: \"32,32,18\"}}\n"
             "  - {blueprint: static.building, transform: {location: [50, -150, 9]}, attributes: {extent: \"32,32,9\"}}\n"
             "  - {blueprint: static.building, transform: {location: [150, -150, 24]}, attributes: {extent: \"32,32,24\"}}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]}, attributes: {role_name: hero}, autopilot: {}}\n",
             argv[2]);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = "", .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e)
        must(SN_E_NOMEM, &err);
    must(sn_engine_load_scene(e, tu_write(argv[1], "town_shapes.yaml", scene), &err), &err);
    free(scene);
    for (int k = 0; k < 40; k++)
        must(sn_engine_step(e, &err), &err);
    const sn_actor *hero = sn_world_find_name(&e->world, "hero");
    sn_transform ht = sn_actor_world_transform(&e->world, hero), mount = {{1.5, 0, 2.4}, {0, 0, 0}};
    size_t movers = 0;
    for (size_t i = 0; i < e->world.n_actors; i++)
        movers += e->world.actors[i]->kind == SN_ACTOR_VEHICLE || e->world.actors[i]->kind == SN_ACTOR_WALKER;
    printf("town: %zu vehicles and walkers\n", movers);
    bench_camera(e, "hero", (sn_camera){sizeof(sn_camera), sn_transform_compose(&ht, &mount), 800, 600, 90, 0.1, 1000});
    /* above the first junction, looking down the street the traffic queues on */
    bench_camera(e, "junction", (sn_camera){sizeof(sn_camera), {{75, -25, 25}, {-35, 135, 0}}, 800, 600, 90, 0.1, 1000});
    bench_lidar(e, sn_v3_add(ht.location, sn_v3(0, 0, 2.4)), hero->id);
    sn_engine_destroy(e);

    /* a car park in view: 100 vehicles of the four models and 50 walkers between their rows */
    scene = malloc(1 << 16);
    int n = snprintf(scene, 1 << 16, "actors:\n  - {name: ground, blueprint: static.ground}\n");
    static const char *const bps[4] = {"vehicle.sedan", "vehicle.van", "vehicle.sedan", "vehicle.truck"};
    for (int i = 0; i < 100; i++)
        n += snprintf(scene + n, (1 << 16) - n, "  - {blueprint: %s, transform: {location: [%d, %d, 0.05]}}\n",
                      bps[i % 4], 12 + 10 * (i / 10), -27 + 6 * (i % 10));
    for (int i = 0; i < 50; i++)
        n += snprintf(scene + n, (1 << 16) - n, "  - {blueprint: walker.pedestrian, transform: {location: [%d, %d, 0.95]}}\n",
                      17 + 10 * (i / 5), -24 + 12 * (i % 5));
    e = sn_engine_create(&o, &err);
    must(sn_engine_load_scene(e, tu_write(argv[1], "carpark.yaml", scene), &err), &err);
    free(scene);
    must(sn_engine_step(e, &err), &err);
    bench_camera(e, "car park", (sn_camera){sizeof(sn_camera), {{0, 0, 6}, {-20, 0, 0}}, 800, 600, 90, 0.1, 1000});
    sn_engine_destroy(e);
    bench_setup(argv[1], 115);  /* 110 k triangles */
    bench_setup(argv[1], 1250); /* 1.2 M */
    return 0;
}
