/* survey.h — what town_survey and wait_trace share: the drive's scene (CARLA's vehicles and
** walkers round a hero on autopilot at the map's first spawn point, a semantic camera and a
** semantic lidar on it) and the listeners that count its tags and lidar returns. */
#ifndef SN_PROBE_SURVEY_H
#define SN_PROBE_SURVEY_H

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

/* The drive's scene text into scene (size bytes); pics: also an RGB camera and both saved. Exits
** with status 1 naming `who` when the map does not load. */
static void survey_scene(char *scene, size_t size, const char *who, const char *map, const char *pics, bool scenery,
                         const char *weather)
{
    sn_error err = {0};
    sn_map *m = sn_map_open(map, &err);
    if (!m) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        exit(1);
    }
    size_t n = 0;
    sn_map_spawn_points(m, NULL, 0, &n, &err);
    sn_transform *sp = calloc(n + 1, sizeof *sp);
    sn_map_spawn_points(m, sp, n, &n, &err);
    sn_map_close(m);
    snprintf(scene, size,
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
}

/* Prints the survey's figures: the tags seen, by share of pixels, largest first, and the lidar's
** returns off the ground and on scenery. Consumes s's pixel counts (negated as printed). */
static void survey_print(survey *sv, const char *map, bool scenery)
{
    double total = 0;
    int seen = 0, big = 0;
    for (int t = 0; t < SN_TAG_COUNT; t++)
        total += sv->px[t], seen += sv->px[t] > 0, big = sv->px[t] > sv->px[big] ? t : big;
    printf("%s, scenery %s: %zu semantic frames, %d tags seen, largest %s %.1f %%:", map, scenery ? "on" : "off",
           sv->frames, seen, tag_names[big], 100 * sv->px[big] / total);
    for (int k = 0; k < SN_TAG_COUNT; k++) {
        int best = -1;
        for (int t = 0; t < SN_TAG_COUNT; t++)
            if (sv->px[t] > 0 && (best < 0 || sv->px[t] > sv->px[best]))
                best = t;
        if (best < 0)
            break;
        printf(" %s %.2f", tag_names[best], 100 * sv->px[best] / total);
        sv->px[best] = -sv->px[best]; /* printed */
    }
    printf("\n  lidar: %zu returns, %.1f %% off the ground, %.1f %% on scenery\n", sv->pts,
           sv->pts ? 100.0 * sv->off_ground / sv->pts : 0, sv->pts ? 100.0 * sv->on_scenery / sv->pts : 0);
    fflush(stdout);
}

#endif
