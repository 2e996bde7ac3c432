/* Street lights at night (engine/render/nightlights.c, docs/rendering.md "Night"): on the town at
** ClearNight, a camera 5 m above a street light's pole looking down sees the ground around it
** (Roads and SideWalks by the semantic camera) lit above a documented floor, and far brighter
** than the same spot with the scenery off (no street lights); at ClearNoon the sun outshines them.
** argv[1]: temp folder, argv[2]: camera plugin folder, argv[3]: maps. */
#include "../../engine/scenery/scenery.h"
#include "../../engine/sim/engine.h"
#include "../check.h"
#include "../testutil.h"

#include <math.h>

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
enum { W = 64 };
static uint8_t *keep_rgb, *keep_sem; /* the last shot's images, when asked for */
static bool keep;

static double ground_luma2(const char *weather, bool scenery, double x, double y, double z, const char *extra,
                           int *n_ground)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\nscenery: {enabled: %s, seed: 3}\nsettings: {weather: %s}\n"
             "actors:\n  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]}, attributes: {semantic_tag: Terrain}}\n%s"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, transform: {location: [%.4f, %.4f, %.4f], rotation: [-90, 0, 0]},"
             " attributes: {image_size_x: %d, image_size_y: %d, fov: 90, enable_postprocess_effects: false}}\n"
             "  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [%.4f, %.4f, %.4f], rotation: [-90, 0, 0]},"
             " attributes: {image_size_x: %d, image_size_y: %d, fov: 90}}\n",
             maps, scenery ? "true" : "false", weather, extra, x, y, z, W, W, x, y, z, W, W);
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
    if (keep)
        free(keep_rgb), free(keep_sem), keep_rgb = rgb, keep_sem = sem;
    else
        free(rgb), free(sem);
    sn_engine_destroy(e);
    *n_ground = n;
    return n ? sum / n : 0;
}

static double ground_luma(const char *weather, bool scenery, double x, double y, double z, int *n_ground)
{
    return ground_luma2(weather, scenery, x, y, z, "", n_ground);
}

/* A parked car 3 m from the lamp's head (hx, hy), on each of its four sides in turn, seen from
** 12 m above the pole's foot: the ground (Roads, SideWalks, Terrain) in its shadow darkens
** (lampshadow.h: its bounding box's shadow); no ground pixel but the car's own edge (blended by
** anti-aliasing) gets brighter. */
static void car_shadow(double x, double y, double z, double hx, double hy)
{
    char car[512];
    int n_ground;
    keep = true;
    ground_luma2("ClearNight", true, x, y, z + 12, "", &n_ground);
    uint8_t *rgb0 = keep_rgb, *sem0 = keep_sem;
    keep_rgb = keep_sem = NULL;
    int darker = 0, brighter = 0, both = 0;
    /* beyond the lamp's head, seen from the pole: over the road the arm reaches out to */
    double ax = hx - x, ay = hy - y, al = hypot(ax, ay);
    ax = al > 0.1 ? ax / al : 1, ay = al > 0.1 ? ay / al : 0;
    for (int dir = 0; dir < 4; dir++) { /* 3 m from the head: beyond it, back towards the pole, to either side */
        double ux = dir < 2 ? ax : -ay, uy = dir < 2 ? ay : ax, sgn = dir % 2 ? -1 : 1;
        double dx = hx - x + 3 * sgn * ux, dy = hy - y + 3 * sgn * uy;
        snprintf(car, sizeof car, /* box centre at the offset from the pole's foot */
                 "  - {name: car, blueprint: vehicle.sedan, transform: {location: [%.4f, %.4f, %.4f]}, attributes: "
                 "{color: \"40,60,160\"}}\n",
                 x + dx, y + dy, z + 0.05);
        ground_luma2("ClearNight", true, x, y, z + 12, car, &n_ground);
        for (int i = 0; i < W * W; i++) {
            uint8_t t0 = sem0[4 * i + 2], t1 = keep_sem[4 * i + 2];
            if (t0 != t1 || (t0 != SN_TAG_ROADS && t0 != SN_TAG_SIDEWALK && t0 != SN_TAG_TERRAIN))
                continue;
            bool edge = false; /* anti-aliasing blends the box's edge into its neighbours */
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = i % W + dx, yy = i / W + dy;
                    edge |= xx >= 0 && yy >= 0 && xx < W && yy < W && keep_sem[4 * (yy * W + xx) + 2] == SN_TAG_CAR;
                }
            if (edge)
                continue;
            both++;
            double l0 = 0.2126 * rgb0[4 * i + 2] + 0.7152 * rgb0[4 * i + 1] + 0.0722 * rgb0[4 * i];
            double l1 = 0.2126 * keep_rgb[4 * i + 2] + 0.7152 * keep_rgb[4 * i + 1] + 0.0722 * keep_rgb[4 * i];
            darker += l1 < l0 - 10, brighter += l1 > l0 + 0.5;
        }
    }
    keep = false;
    fprintf(stderr, "a car 3 m from the lamp head, four sides: %d of %d ground pixels 10 levels darker, %d brighter\n",
            darker, both, brighter);
    CHECK(darker >= 20, "a car beside a street light shades the ground beyond it: %d pixels darker by 10 levels (68 measured)", darker);
    CHECK(brighter == 0, "and brightens none (%d)", brighter);
    free(rgb0), free(sem0), free(keep_rgb), free(keep_sem);
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
    double x = 0, y = 0, z = 0, hx = 0, hy = 0, best = INFINITY;
    bool found = false;
    for (uint32_t j = 0; j < e->scenery.n_objs && !found; j++)
        if (e->scenery.objs[j].kind == SN_SK_STREET_LIGHT)
            x = e->scenery.objs[j].cx, y = e->scenery.objs[j].cy, z = e->scenery.objs[j].z0, found = true;
    for (uint32_t j = 0; found && e->world.roads && j < e->world.roads->n_chunks; j++) { /* its head */
        const sn_road_chunk *k = &e->world.roads->chunks[j];
        double cx = 0.5 * (k->lo[0] + k->hi[0]), cy = 0.5 * (k->lo[1] + k->hi[1]), d = hypot(cx - x, cy - y);
        if (k->category == SN_ROAD_N_CATEGORIES + SN_SC_LAMP && d < best)
            best = d, hx = cx, hy = cy;
    }
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
    car_shadow(x, y, z, hx, hy);
    return CHECK_DONE();
}
