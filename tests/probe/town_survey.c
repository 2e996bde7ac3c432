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
#include "../testutil.h"

#include <sensim/records.h>

static const char *const tag_names[SN_TAG_COUNT] = {
    "Unlabeled", "Roads", "SideWalks", "Building", "Wall", "Fence", "Pole", "TrafficLight", "TrafficSign", "Vegetation",
    "Terrain", "Sky", "Pedestrian", "Rider", "Car", "Truck", "Bus", "Train", "Motorcycle", "Bicycle", "Static",
    "Dynamic", "Other", "Water", "RoadLine", "Ground", "Bridge", "RailTrack", "GuardRail"};

typedef struct survey {
    double px[SN_TAG_COUNT];
    size_t frames;
    size_t pts, off_ground, on_scenery;
} survey;

static uint64_t frame_of(const sn_message *m) { return m->frame; }

static void on_sem(const sn_message *m, void *user)
{
    survey *s = user;
    tu_image img = {0};
    tu_on_image(m, &img);
    if (!img.raw)
        return;
    for (size_t i = 0; i < (size_t)img.w * img.h; i++) {
        uint8_t t = img.raw[4 * i + 2];
        if (t < SN_TAG_COUNT)
            s->px[t]++;
    }
    s->frames++;
    free(img.raw);
}

static void on_lidar(const sn_message *m, void *user)
{
    survey *s = user;
    if (frame_of(m) % 60 != 0)
        return;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *raw = tu_get(&u.data, "raw_data");
        if (raw && raw->type == MSGPACK_OBJECT_BIN)
            for (size_t i = 0; i + sizeof(sn_semantic_point) <= raw->via.bin.size; i += sizeof(sn_semantic_point)) {
                sn_semantic_point q;
                memcpy(&q, raw->via.bin.ptr + i, sizeof q);
                uint32_t t = q.object_tag;
                s->pts++;
                s->off_ground += t != SN_TAG_ROADS && t != SN_TAG_SIDEWALK && t != SN_TAG_TERRAIN &&
                                 t != SN_TAG_ROAD_LINE && t != SN_TAG_GROUND;
                s->on_scenery += q.object_idx >= SN_SCENERY_ID0;
            }
    }
    msgpack_unpacked_destroy(&u);
}

static void run(const char *tmp, const char *plugins, const char *map, const char *pics, bool scenery,
                const char *weather, uint64_t frames)
{
    sn_error err = {0};
    sn_map *m = sn_map_open(map, &err);
    if (!m) {
        fprintf(stderr, "town_survey: %s\n", err.msg);
        exit(1);
    }
    size_t n = 0;
    sn_map_spawn_points(m, NULL, 0, &n, &err);
    sn_transform *sp = calloc(n + 1, sizeof *sp);
    sn_map_spawn_points(m, sp, n, &n, &err);
    sn_map_close(m);
    char scene[8192];
    snprintf(scene, sizeof scene,
             "map: %s\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: %s}\n"
             "scenery: {enabled: %s}\n"
             "traffic: {seed: 1, vehicles: {count: 50, blueprints: ['vehicle.*']},"
             " walkers: {count: 30, blueprints: ['walker.pedestrian.*']}}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain, color: \"96,110,70\"}}\n"
             "  - {name: hero, blueprint: vehicle.tesla.model3, transform: {location: [%.3f, %.3f, %.3f], rotation: [0, %.3f, 0]},"
             " attributes: {role_name: hero}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: 640, image_size_y: 360, fov: 90, sensor_tick: 3}%s}\n"
             "  - {name: lidar, blueprint: sensor.lidar.ray_cast_semantic, attach_to: hero, transform: {location: [0, 0, 2.4]},"
             " attributes: {channels: 32, range: 50, points_per_second: 120000, rotation_frequency: 20, upper_fov: 10, lower_fov: -30}}\n"
             "%s",
             map, weather, scenery ? "true" : "false", sp[0].location.x, sp[0].location.y, sp[0].location.z + 0.3,
             sp[0].rotation.yaw, pics ? ", save: {path: \"sem/%06d.png\", converter: cityscapes}" : "",
             pics ? "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
                    " attributes: {image_size_x: 640, image_size_y: 360, fov: 90, sensor_tick: 3}, save: {path: \"rgb/%06d.png\"}}\n"
                  : "");
    free(sp);
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 2};
    sn_engine *e = sn_engine_create(&o, &err);
    survey s = {0};
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "town_survey.yaml", scene), &err) ||
        sn_engine_listen(e, "sem", on_sem, &s, &err) || sn_engine_listen(e, "lidar", on_lidar, &s, &err) ||
        (pics && sn_engine_open_outputs(e, pics, &err)) || sn_engine_run(e, frames, &err)) {
        fprintf(stderr, "town_survey: %s\n", err.msg);
        exit(1);
    }
    double total = 0;
    int seen = 0, big = 0;
    for (int t = 0; t < SN_TAG_COUNT; t++)
        total += s.px[t], seen += s.px[t] > 0, big = s.px[t] > s.px[big] ? t : big;
    printf("%s, scenery %s: %zu semantic frames, %d tags seen, largest %s %.1f %%:", map, scenery ? "on" : "off",
           s.frames, seen, tag_names[big], 100 * s.px[big] / total);
    for (int k = 0; k < SN_TAG_COUNT; k++) {
        int best = -1;
        for (int t = 0; t < SN_TAG_COUNT; t++)
            if (s.px[t] > 0 && (best < 0 || s.px[t] > s.px[best]))
                best = t;
        if (best < 0)
            break;
        printf(" %s %.2f", tag_names[best], 100 * s.px[best] / total);
        s.px[best] = -s.px[best]; /* printed */
    }
    printf("\n  lidar: %zu returns, %.1f %% off the ground, %.1f %% on scenery\n", s.pts,
           s.pts ? 100.0 * s.off_ground / s.pts : 0, s.pts ? 100.0 * s.on_scenery / s.pts : 0);
    fflush(stdout);
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
