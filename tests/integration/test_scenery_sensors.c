/* Scenery as the sensors see it (docs/scenery.md), on the shipped maps: for the first piece of
** every kind placed (buildings, trees, bushes, street lights, stop lines and zebras on the
** town; signs on signals.xodr; guard rails and pillars on highway.xodr) a semantic and an
** instance camera aimed at it see pixels of its tag carrying its instance id; a semantic lidar
** in the town returns scenery points whose tag is one of that piece's parts' tags; the share of
** lidar returns off the ground (not Roads, SideWalk, Terrain, RoadLine, Ground) rises with
** scenery; the same scene gives the same image bytes at 1 and 2 threads; `scenery: {enabled:
** false}` places nothing.
** argv[1]: temp folder, argv[2]: plugins folder, argv[3]: maps folder. */
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <sensim/records.h>

static const char *dir, *plugins, *maps;

static sn_engine *load(const char *text, int threads)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(dir, "scenery_sensors.yaml", text), &err) != SN_OK) {
        fprintf(stderr, "FAIL: cannot load the scene: %s\n%s", err.msg, text);
        exit(1);
    }
    return e;
}

/* A camera pair (semantic, instance) per chosen piece: names sem<k>, ins<k>. */
static int add_cameras(char *s, size_t cap, size_t *len, int k, const sn_scenery_obj *o)
{
    double x = o->cx, y = o->cy, z = o->z1 + 2, pitch = -90, yaw = 0, fov = 30;
    if (o->kind == SN_SK_PILLAR) /* beside it, under the deck */
        x = o->cx + 3.5, z = 2.0, pitch = 0, yaw = 180, fov = 60;
    if (o->paint)
        z = o->z0 + 2.0, fov = 60;
    for (int c = 0; c < 2; c++)
        *len += (size_t)snprintf(s + *len, cap - *len,
                                 "  - {name: %s%d, blueprint: sensor.camera.%s, transform: {location: [%.4f, %.4f, %.4f],"
                                 " rotation: [%g, %g, 0]}, attributes: {image_size_x: 64, image_size_y: 64, fov: %g}}\n",
                                 c ? "ins" : "sem", k, c ? "instance_segmentation" : "semantic_segmentation", x, y, z,
                                 pitch, yaw, fov);
    return k + 1;
}

static void pieces_seen(const char *map, const int *kinds, int n_kinds)
{
    char head[512];
    snprintf(head, sizeof head, "map: %s/%s\nscenery: {seed: 3}\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n",
             maps, map);
    sn_engine *e = load(head, 1);
    const sn_scenery_obj *chosen[SN_SK_N] = {0};
    sn_scenery_obj copy[SN_SK_N];
    int n = 0;
    for (int i = 0; i < n_kinds; i++) {
        for (uint32_t j = 0; j < e->scenery.n_objs && !chosen[i]; j++)
            if (e->scenery.objs[j].kind == kinds[i])
                copy[i] = e->scenery.objs[j], chosen[i] = &copy[i];
        CHECK(chosen[i] != NULL, "%s: a piece of kind %d is placed", map, kinds[i]);
    }
    sn_engine_destroy(e);
    static char text[16384];
    size_t len = (size_t)snprintf(text, sizeof text, "%ssensors:\n", head);
    for (int i = 0; i < n_kinds; i++)
        if (chosen[i])
            n = add_cameras(text, sizeof text, &len, i, chosen[i]);
    if (!n)
        return;
    e = load(text, 1);
    tu_image img[2][SN_SK_N];
    memset(img, 0, sizeof img);
    sn_error err = {0};
    char name[32];
    for (int i = 0; i < n_kinds; i++)
        for (int c = 0; c < 2 && chosen[i]; c++) {
            snprintf(name, sizeof name, "%s%d", c ? "ins" : "sem", i);
            CHECK(sn_engine_listen(e, name, tu_on_image, &img[c][i], &err) == SN_OK, "listen: %s", err.msg);
        }
    CHECK(sn_engine_run(e, 1, &err) == SN_OK, "run: %s", err.msg);
    /* the same scenery as the first load (same map and seed) */
    for (int i = 0; i < n_kinds; i++)
        if (chosen[i]) {
            const sn_scenery_obj *o = chosen[i];
            const sn_scenery_obj *q = o->instance - SN_SCENERY_ID0 < e->scenery.n_objs
                                          ? &e->scenery.objs[o->instance - SN_SCENERY_ID0] : NULL;
            CHECK(q && q->kind == o->kind && q->tag == o->tag && q->cx == o->cx && q->cy == o->cy && q->yaw == o->yaw &&
                      q->hx == o->hx && q->hy == o->hy && q->z0 == o->z0 && q->z1 == o->z1,
                  "%s: the same pieces on a second load", map);
            size_t tagged = 0, with_id = 0;
            const tu_image *sem = &img[0][i], *ins = &img[1][i];
            if (!sem->raw || !ins->raw) {
                CHECK(false, "%s: kind %d: no images", map, o->kind);
                continue;
            }
            for (size_t p = 0; p < (size_t)sem->w * sem->h; p++) {
                const uint8_t *a = sem->raw + 4 * p, *b = ins->raw + 4 * p;
                if (a[2] == o->tag) {
                    tagged++;
                    with_id += b[2] == o->tag && b[1] == (o->instance & 255) && b[0] == ((o->instance >> 8) & 255);
                }
            }
            /* paint shares its tag with the lane marks around it: only its own pixels need its id */
            CHECK(with_id > 4 && (o->paint || with_id == tagged), "%s: kind %d (tag %d, id %#x at %.1f, %.1f): %zu pixels of its tag, %zu with its id",
                  map, o->kind, o->tag, o->instance, o->cx, o->cy, tagged, with_id);
            free(img[0][i].raw), free(img[1][i].raw);
        }
    sn_engine_destroy(e);
}

typedef tu_image blob; /* the raw_data bytes of the last message (testutil.h) */

/* A semantic lidar at (50, 0, 2.4) on the town: the share of returns off the ground; the
** scenery returns, and those whose tag is none of their piece's chunks' tags. */
static double lidar_share(bool scenery, uint32_t *n_scenery, uint32_t *bad)
{
    char text[2048];
    snprintf(text, sizeof text,
             "map: %s/town.xodr\nscenery: {enabled: %s}\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n"
             "sensors:\n  - {name: lidar, blueprint: sensor.lidar.ray_cast_semantic, transform: {location: [50, 0, 2.4]},"
             " attributes: {channels: 32, range: 100, points_per_second: 200000, rotation_frequency: 20, upper_fov: 15, lower_fov: -25}}\n",
             maps, scenery ? "true" : "false");
    sn_engine *e = load(text, 2);
    blob b = {0};
    sn_error err = {0};
    CHECK(sn_engine_listen(e, "lidar", tu_on_image, &b, &err) == SN_OK && sn_engine_run(e, 1, &err) == SN_OK, "lidar: %s",
          err.msg);
    *n_scenery = *bad = 0;
    size_t total = b.size / sizeof(sn_semantic_point), off_ground = 0;
    const sn_road_mesh *m = e->world.roads;
    for (size_t i = 0; i < total; i++) {
        sn_semantic_point q;
        memcpy(&q, b.raw + i * sizeof q, sizeof q);
        uint32_t t = q.object_tag;
        off_ground += t != SN_TAG_ROADS && t != SN_TAG_SIDEWALK && t != SN_TAG_TERRAIN && t != SN_TAG_ROAD_LINE &&
                      t != SN_TAG_GROUND;
        if (q.object_idx < SN_SCENERY_ID0)
            continue;
        ++*n_scenery;
        bool ok = false;
        for (uint32_t c = e->scenery.first_chunk; c < m->n_chunks && !ok; c++)
            ok = m->chunks[c].instance == q.object_idx && m->chunks[c].tag == t;
        *bad += !ok;
    }
    free(b.raw);
    CHECK(total > 1000, "lidar: %zu points", total);
    sn_engine_destroy(e);
    return total ? (double)off_ground / (double)total : 0;
}

/* The same semantic and RGB images at 1 and 2 threads, scenery included. */
static void same_bytes(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "map: %s/town.xodr\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, transform: {location: [30, 1.75, 3], rotation: [-5, 20, 0]}, attributes: {image_size_x: 160, image_size_y: 90}}\n"
             "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [30, 1.75, 3], rotation: [-5, 20, 0]}, attributes: {image_size_x: 160, image_size_y: 90}}\n",
             maps);
    blob rgb[2] = {{0}}, sem[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        sn_engine *e = load(text, k + 1);
        sn_error err = {0};
        CHECK(sn_engine_listen(e, "rgb", tu_on_image, &rgb[k], &err) == SN_OK &&
                  sn_engine_listen(e, "sem", tu_on_image, &sem[k], &err) == SN_OK && sn_engine_run(e, 1, &err) == SN_OK,
              "run: %s", err.msg);
        sn_engine_destroy(e);
    }
    CHECK(rgb[0].size && rgb[0].size == rgb[1].size && !memcmp(rgb[0].raw, rgb[1].raw, rgb[0].size), "rgb: the same bytes at 1 and 2 threads");
    CHECK(sem[0].size && sem[0].size == sem[1].size && !memcmp(sem[0].raw, sem[1].raw, sem[0].size), "semantic: the same bytes");
    size_t count[256] = {0};
    for (size_t i = 0; i + 3 < sem[0].size; i += 4)
        count[sem[0].raw[i + 2]]++;
    CHECK(count[SN_TAG_BUILDING] > 100, "the street view sees buildings: %zu pixels", count[SN_TAG_BUILDING]);
    for (int k = 0; k < 2; k++)
        free(rgb[k].raw), free(sem[k].raw);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return fprintf(stderr, "usage: test_scenery_sensors TMP PLUGINS MAPS\n"), 2;
    dir = argv[1], plugins = argv[2], maps = argv[3];
    static const int town[] = {SN_SK_BUILDING, SN_SK_TREE, SN_SK_BUSH, SN_SK_STREET_LIGHT, SN_SK_STOP_LINE, SN_SK_CROSSWALK,
                               SN_SK_WALL, SN_SK_FENCE, SN_SK_BUS_STOP, SN_SK_BENCH, SN_SK_BIN, SN_SK_GRASS, SN_SK_GROUND};
    pieces_seen("town.xodr", town, (int)(sizeof town / sizeof *town));
    static const int signals[] = {SN_SK_SIGN};
    pieces_seen("signals.xodr", signals, 1);
    static const int highway[] = {SN_SK_GUARD_RAIL, SN_SK_PILLAR};
    pieces_seen("highway.xodr", highway, 2);
    uint32_t ns, bad, ns0, bad0;
    double on = lidar_share(true, &ns, &bad), off = lidar_share(false, &ns0, &bad0);
    fprintf(stderr, "lidar returns off the ground: %.1f %% with scenery, %.1f %% without; %u on scenery\n", 100 * on,
            100 * off, ns);
    CHECK(on > off + 0.10, "the share of lidar returns off the ground rises: %.3f vs %.3f", on, off);
    CHECK(ns > 100 && bad == 0, "%u scenery returns, %u with a tag not of their piece", ns, bad);
    CHECK(ns0 == 0, "scenery off: no scenery returns (%u)", ns0);
    same_bytes();
    /* scenery off: nothing placed */
    char text[512];
    snprintf(text, sizeof text, "map: %s/town.xodr\nscenery: {enabled: false}\n", maps);
    sn_engine *e = load(text, 1);
    CHECK(e->scenery.n_objs == 0, "enabled: false places nothing (%u)", e->scenery.n_objs);
    sn_engine_destroy(e);
    return CHECK_DONE();
}
