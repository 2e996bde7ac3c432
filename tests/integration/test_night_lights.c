/* Street lights at night (engine/render/nightlights.c, docs/rendering.md "Night"): on the town at
** ClearNight, a camera 5 m above a street light's pole looking down sees the ground around it
** (Roads and SideWalks by the semantic camera) lit above a documented floor, and far brighter
** than the same spot with the scenery off (no street lights); at ClearNoon the sun outshines them.
** argv[1]: temp folder, argv[2]: camera plugin folder, argv[3]: maps. */
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

static const char *dir, *plugins, *maps;

typedef struct shot {
    uint32_t w, h;
    uint8_t *rgb, *sem;
} shot;

static void on_rgb(const sn_message *m, void *user)
{
    uint8_t **dst = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS) {
        const msgpack_object *raw = tu_get(&u.data, "raw_data");
        free(*dst);
        *dst = malloc(raw->via.bin.size);
        memcpy(*dst, raw->via.bin.ptr, raw->via.bin.size);
    }
    msgpack_unpacked_destroy(&u);
}

/* The ground's mean luminance (bytes, Rec. 709 weights) in a W x W view down from (x, y, z) at
** `weather`; *n_ground: how many pixels were Roads or SideWalks. */
static double ground_luma(const char *weather, bool scenery, double x, double y, double z, int *n_ground)
{
    enum { W = 64 };
    char scene[2048];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\nscenery: {enabled: %s, seed: 3}\nsettings: {weather: %s}\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, transform: {location: [%.4f, %.4f, %.4f], rotation: [-90, 0, 0]},"
             " attributes: {image_size_x: %d, image_size_y: %d, fov: 90, enable_postprocess_effects: false}}\n"
             "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [%.4f, %.4f, %.4f], rotation: [-90, 0, 0]},"
             " attributes: {image_size_x: %d, image_size_y: %d, fov: 90}}\n",
             maps, scenery ? "true" : "false", weather, x, y, z, W, W, x, y, z, W, W);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    uint8_t *rgb = NULL, *sem = NULL;
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "night.yaml", scene), &err) ||
             sn_engine_listen(e, "rgb", on_rgb, &rgb, &err) || sn_engine_listen(e, "sem", on_rgb, &sem, &err) ||
             sn_engine_run(e, 1, &err);
    CHECK(rc == 0 && rgb && sem, "run: %s", err.msg);
    double sum = 0;
    int n = 0;
    for (int i = 0; rgb && sem && i < W * W; i++) {
        uint8_t tag = sem[4 * i + 2];
        if (tag != SN_TAG_ROADS && tag != SN_TAG_SIDEWALK)
            continue;
        sum += 0.2126 * rgb[4 * i + 2] + 0.7152 * rgb[4 * i + 1] + 0.0722 * rgb[4 * i];
        n++;
    }
    free(rgb), free(sem);
    sn_engine_destroy(e);
    *n_ground = n;
    return n ? sum / n : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    dir = argv[1], plugins = argv[2], maps = argv[3];
    /* the first street light of the town */
    char head[512];
    snprintf(head, sizeof head, "map: %s/town.xodr\nscenery: {seed: 3}\n", maps);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, tu_write(dir, "night_map.yaml", head), &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    double x = 0, y = 0, z = 0;
    bool found = false;
    for (uint32_t j = 0; j < e->scenery.n_objs && !found; j++)
        if (e->scenery.objs[j].kind == SN_SK_STREET_LIGHT)
            x = e->scenery.objs[j].cx, y = e->scenery.objs[j].cy, z = e->scenery.objs[j].z0, found = true;
    sn_engine_destroy(e);
    CHECK(found, "the town has a street light");
    if (!found)
        return CHECK_DONE();
    int n_lit, n_dark, n_day;
    double lit = ground_luma("ClearNight", true, x, y, z + 5, &n_lit);
    double dark = ground_luma("ClearNight", false, x, y, z + 5, &n_dark);
    double day = ground_luma("ClearNoon", true, x, y, z + 5, &n_day);
    fprintf(stderr, "ground luminance around a street light: night %.1f (%d px), night without street lights %.1f "
            "(%d px), noon %.1f (%d px)\n", lit, n_lit, dark, n_dark, day, n_day);
    CHECK(n_lit > 500 && n_dark > 500, "the view sees road and sidewalk (%d, %d pixels)", n_lit, n_dark);
    /* the documented floor (docs/rendering.md): 35 of 255 around a pole at ClearNight (44.9 measured) */
    CHECK(lit >= 35, "ClearNight: the ground under a street light reads %.1f, the floor is 35", lit);
    CHECK(lit >= 2 * dark, "street lights at least double the ground's luminance (%.1f against %.1f)", lit, dark);
    CHECK(day > lit, "by day the sun outshines them (%.1f at noon)", day);
    return CHECK_DONE();
}
