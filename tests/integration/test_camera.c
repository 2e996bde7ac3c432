/* Cameras against truth: planar depth of a wall and of the ground, a sphere's silhouette
** against the pinhole projection, tags and ids where each object projects, the lens, the
** same bytes at any thread count, and bad attributes refused.
** argv[1]: temp folder, argv[2]: plugin folder (camera) */
#include "../check.h"
#include "../testutil.h"

#include <sensim/types.h>

static const char *dir, *plugins;

typedef tu_image capture; /* the last image of a sensor (testutil.h) */

/* Runs `scene` for one frame with `threads` workers and captures `sensor`. */
static int shoot(const char *scene, const char *sensor, int threads, capture *c, char *err_out)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(c, 0, sizeof *c);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "cam.yaml", scene), &err) ||
             sn_engine_listen(e, sensor, tu_on_image, c, &err) || sn_engine_run(e, 1, &err);
    if (err_out)
        memcpy(err_out, err.msg, sizeof err.msg);
    else if (rc)
        fprintf(stderr, "FAIL: %s\n", err.msg);
    sn_engine_destroy(e);
    return rc;
}

static void release(capture *c) { tu_image_free(c); }

static double decode_depth(const uint8_t *p) { return 1000.0 * (p[2] + 256.0 * p[1] + 65536.0 * p[0]) / 16777215.0; }

static void wall_depth(void)
{
    /* A wall whose face is 11.5 m ahead fills the view: every pixel reads 11.5 m. */
    capture c;
    if (shoot("actors:\n  - {name: wall, blueprint: static.prop.box, transform: {location: [12, 0, 1.5]},"
              " attributes: {extent: \"0.5,50,50\"}}\n"
              "sensors:\n  - {name: cam, blueprint: sensor.camera.depth, transform: {location: [0, 0, 1.5]},"
              " attributes: {image_size_x: 320, image_size_y: 240, depth_float: true}}\n",
              "cam", 2, &c, NULL))
        return;
    double worst_f = 0, worst_raw = 0;
    for (size_t i = 0; i < (size_t)c.w * c.h; i++) {
        worst_f = fmax(worst_f, fabs(c.depth[i] - 11.5));
        worst_raw = fmax(worst_raw, fabs(decode_depth(c.raw + 4 * i) - 11.5));
    }
    CHECK(c.w == 320 && c.h == 240, "size %ux%u", c.w, c.h);
    CHECK(worst_f < 1e-3, "float depth off by %g m somewhere on the wall", worst_f);
    CHECK(worst_raw < 1e-3 + 1000.0 / 16777215, "24-bit depth off by %g m somewhere on the wall", worst_raw);
    release(&c);
}

static void ground_depth(void)
{
    /* Looking down 30 degrees from 2 m over the infinite ground: the planar depth of each
    ** pixel's ray hitting z = 0, exact up to the horizon; above it, the far plane. */
    capture c;
    if (shoot("actors:\n  - {name: ground, blueprint: static.ground}\n"
              "sensors:\n  - {name: cam, blueprint: sensor.camera.depth, transform: {location: [0, 0, 2], rotation: [-30, 0, 0]},"
              " attributes: {image_size_x: 200, image_size_y: 150, fov: 100, lens_k: 0, depth_float: true, max_depth: 500}}\n",
              "cam", 2, &c, NULL))
        return;
    double f = 100 / tan(50 * M_PI / 180), p = -30 * M_PI / 180;
    int bad = 0, ground = 0, sky = 0;
    for (uint32_t y = 0; y < c.h; y++)
        for (uint32_t x = 0; x < c.w; x++) {
            double b = (y + 0.5 - 75) / f; /* the right component does not change the height */
            /* ray = fwd + a right - b up, camera pitched down: fwd = (cos p, 0, sin p), up = (-sin p, 0, cos p) */
            double rz = sin(p) - b * cos(p);
            double t = rz < 0 ? 2 / -rz : INFINITY, want = t > 500 ? 500 : t;
            double got = c.depth[y * c.w + x];
            ground += t <= 500, sky += t > 500;
            if (fabs(got - want) > 1e-3 + 2e-6 * want)
                bad++;
        }
    CHECK(bad == 0, "%d of %u ground pixels off their analytic depth", bad, c.w * c.h);
    CHECK(ground > 1000 && sky > 1000, "both ground (%d) and sky (%d) in view", ground, sky);
    release(&c);
}

static void sphere_silhouette(void)
{
    /* A sphere of radius 1 at 10 m: its outline is a circle of radius f tan(asin(1/10)). */
    capture c;
    if (shoot("actors:\n  - {name: ball, blueprint: static.prop.sphere, transform: {location: [10, 0, 0]}, attributes: {radius: 1}}\n"
              "sensors:\n  - {name: cam, blueprint: sensor.camera.instance_segmentation, transform: {location: [0, 0, 0]},"
              " attributes: {image_size_x: 401, image_size_y: 401, fov: 90, lens_k: 0}}\n",
              "cam", 2, &c, NULL))
        return;
    size_t area = 0;
    for (size_t i = 0; i < (size_t)c.w * c.h; i++)
        area += c.raw[4 * i + 1] == 1 && c.raw[4 * i + 2] == SN_TAG_STATIC;
    double r = sqrt(area / M_PI), want = 200.5 * tan(asin(0.1));
    /* the 16x32 tessellation is inscribed: up to cos(pi/32) = 0.995 of the true radius */
    CHECK(r > want * 0.985 - 0.5 && r < want + 0.5, "silhouette radius %.2f px, pinhole %.2f px", r, want);
    release(&c);
}

static void labels(void)
{
    /* Each object where it projects: tag in red, id in green (low) and blue (high). */
    const char *scene =
        "actors:\n  - {name: ground, blueprint: static.ground}\n"
        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [15, 0, 0.05]}}\n"
        "  - {name: box, blueprint: static.prop.box, transform: {location: [15, 6, 0.5]}}\n"
        "  - {name: pole, blueprint: static.prop.cylinder, transform: {location: [15, -6, 1.5]}}\n"
        "  - {name: ped, blueprint: walker.pedestrian, transform: {location: [10, -2.5, 0.95]}}\n"
        "sensors:\n  - {name: sem, blueprint: sensor.camera.semantic_segmentation, transform: {location: [0, 0, 1.0]},"
        " attributes: {image_size_x: 400, image_size_y: 300, lens_k: 0}}\n"
        "  - {name: ins, blueprint: sensor.camera.instance_segmentation, transform: {location: [0, 0, 1.0]},"
        " attributes: {image_size_x: 400, image_size_y: 300, lens_k: 0}}\n";
    capture s, n;
    if (shoot(scene, "sem", 2, &s, NULL) || shoot(scene, "ins", 2, &n, NULL))
        return;
    struct { const char *name; double x, y, z; uint8_t tag; uint32_t id; } obj[] = {
        {"car", 15, 0, 0.8, SN_TAG_CAR, 2}, {"box", 15, 6, 0.5, SN_TAG_STATIC, 3},
        {"pole", 15, -6, 1.5, SN_TAG_POLE, 4}, {"ped", 10, -2.5, 0.95, SN_TAG_PEDESTRIAN, 5},
        {"ground", 5, 0, 0, SN_TAG_ROADS, 1},
    };
    double f = 200; /* 400 px, fov 90 */
    for (size_t k = 0; k < sizeof obj / sizeof obj[0]; k++) {
        int x = (int)floor(200 + f * obj[k].y / obj[k].x), y = (int)floor(150 - f * (obj[k].z - 1.0) / obj[k].x);
        const uint8_t *ps = s.raw + 4 * ((size_t)y * 400 + x), *pn = n.raw + 4 * ((size_t)y * 400 + x);
        CHECK(ps[2] == obj[k].tag && ps[1] == 0 && ps[0] == 0, "%s: semantic pixel (%d,%d) = %u, want tag %u",
              obj[k].name, x, y, ps[2], obj[k].tag);
        CHECK(pn[2] == obj[k].tag && pn[1] == (obj[k].id & 255) && pn[0] == (obj[k].id >> 8),
              "%s: instance pixel = tag %u id %u, want %u / %u", obj[k].name, pn[2], pn[1] | pn[0] << 8, obj[k].tag, obj[k].id);
    }
    CHECK(s.raw[2] == SN_TAG_SKY, "the top-left corner is sky, got tag %u", s.raw[2]);
    release(&s), release(&n);
}

static void lens(void)
{
    /* Barrel distortion (lens_k < 0) magnifies the middle: a box in the centre covers more pixels. */
    char scene[1024];
    size_t count[2];
    const char *ks[2] = {"0", "-1.0"};
    for (int k = 0; k < 2; k++) {
        snprintf(scene, sizeof scene,
                 "actors:\n  - {name: box, blueprint: static.prop.box, transform: {location: [10, 0, 0]}, attributes: {extent: \"0.5,3,3\"}}\n"
                 "sensors:\n  - {name: cam, blueprint: sensor.camera.semantic_segmentation,"
                 " attributes: {image_size_x: 200, image_size_y: 200, lens_k: %s, lens_x_size: 1.0, lens_y_size: 1.0}}\n",
                 ks[k]);
        capture c;
        if (shoot(scene, "cam", 1, &c, NULL))
            return;
        count[k] = 0;
        for (size_t i = 0; i < 200 * 200; i++)
            count[k] += c.raw[4 * i + 2] == SN_TAG_STATIC;
        release(&c);
    }
    CHECK(count[0] > 100 && count[1] > count[0] * 1.05, "box pixels: pinhole %zu, barrel %zu", count[0], count[1]);
}

static void carla_intrinsics(void)
{
    /* CARLA's bounding-box tutorial projects with K = [f 0 W/2; 0 f H/2; 0 0 1], f = W / (2 tan(fov/2)),
    ** on images taken with default attributes. Two boxes near opposite corners of a default
    ** 800x600 camera: their silhouettes' extreme rows and columns are straight edges of the box,
    ** and must sit within 0.5 px of the projected corners (the old lens bent them 2-5 px here). */
    const char *scene =
        "actors:\n  - {name: a, blueprint: static.prop.box, transform: {location: [10, 8.8, -6.4]}}\n"
        "  - {name: b, blueprint: static.prop.box, transform: {location: [10, -8.8, 6.4]}}\n"
        "sensors:\n  - {name: cam, blueprint: sensor.camera.instance_segmentation}\n"
        "  - {name: pin, blueprint: sensor.camera.instance_segmentation, attributes: {lens_k: 0}}\n";
    capture c, p;
    if (shoot(scene, "cam", 2, &c, NULL) || shoot(scene, "pin", 2, &p, NULL))
        return;
    CHECK(c.w == 800 && c.h == 600, "default size %ux%u", c.w, c.h);
    double W = 800, H = 600, f = W / (2 * tan(45 * M_PI / 180));
    double centre[2][3] = {{10, 8.8, -6.4}, {10, -8.8, 6.4}};
    for (int b = 0; b < 2; b++) {
        double u0 = INFINITY, u1 = -INFINITY, v0 = INFINITY, v1 = -INFINITY;
        for (int k = 0; k < 8; k++) {
            double x = centre[b][0] + (k & 1 ? 0.5 : -0.5), y = centre[b][1] + (k & 2 ? 0.5 : -0.5),
                   z = centre[b][2] + (k & 4 ? 0.5 : -0.5);
            double u = W / 2 + f * y / x, v = H / 2 - f * z / x; /* K times the camera-frame point (y right, -z down) */
            u0 = fmin(u0, u), u1 = fmax(u1, u), v0 = fmin(v0, v), v1 = fmax(v1, v);
        }
        int c0 = 800, c1 = -1, r0 = 600, r1 = -1;
        for (int y = 0; y < 600; y++)
            for (int x = 0; x < 800; x++)
                if (c.raw[4 * ((size_t)y * 800 + x) + 1] == b + 1)
                    c0 = x < c0 ? x : c0, c1 = x > c1 ? x : c1, r0 = y < r0 ? y : r0, r1 = y > r1 ? y : r1;
        /* a pixel is covered when its centre (i + 0.5) is inside: edges land within 0.5 px */
        double e = fmax(fmax(fabs(c0 - u0), fabs(c1 + 1 - u1)), fmax(fabs(r0 - v0), fabs(r1 + 1 - v1)));
        CHECK(e <= 0.5 + 1e-6, "box %d: silhouette columns %d-%d rows %d-%d vs K's [%.2f, %.2f] x [%.2f, %.2f]: %.2f px off",
              b, c0, c1, r0, r1, u0, u1, v0, v1, e);
        CHECK(b ? (c0 < 10 && r0 < 75) : (c1 > 790 && r1 > 585), "box %d is at the image corner", b);
    }
    CHECK(!memcmp(c.raw, p.raw, 800 * 600 * 4), "default lens attributes and lens_k 0 give the same bytes");
    release(&c), release(&p);
}

/* Seed 003's RGB camera: every attribute, its type and CARLA's default; `rendered` when sensim applies it. */
static const struct { const char *name, *type, *def, *other; bool rendered; } rgb_seed[] = {
    {"bloom_intensity", "float", "0.675", "0.5", true}, {"fov", "float", "90.0", "80", true},
    {"fstop", "float", "1.4", "2.8", true}, {"image_size_x", "int", "800", "64", true},
    {"image_size_y", "int", "600", "48", true}, {"iso", "float", "100.0", "400", true},
    {"gamma", "float", "2.2", "1.8", true}, {"lens_flare_intensity", "float", "0.1", "0.3", true},
    {"sensor_tick", "float", "0.0", "0.05", true}, {"shutter_speed", "float", "200.0", "60", true},
    {"lens_circle_falloff", "float", "5.0", "4", true}, {"lens_circle_multiplier", "float", "0.0", "0.5", true},
    {"lens_k", "float", "-1.0", "-0.5", true}, {"lens_kcube", "float", "0.0", "0.1", true},
    {"lens_x_size", "float", "0.08", "0.5", true}, {"lens_y_size", "float", "0.08", "0.5", true},
    {"min_fstop", "float", "1.2", "1.8", false}, {"blade_count", "int", "5", "7", false},
    {"exposure_mode", "enum", "histogram", "manual", true}, {"exposure_compensation", "float", "0.75", "0", true},
    {"exposure_min_bright", "float", "10.0", "8", true}, {"exposure_max_bright", "float", "12.0", "14", true},
    {"exposure_speed_up", "float", "3.0", "2", true}, {"exposure_speed_down", "float", "1.0", "2", true},
    {"calibration_constant", "float", "16.0", "12", true}, {"focal_distance", "float", "1000.0", "500", false},
    {"blur_amount", "float", "1.0", "0.5", false}, {"blur_radius", "float", "0.0", "1", false},
    {"motion_blur_intensity", "float", "0.45", "0", true}, {"motion_blur_max_distortion", "float", "0.35", "0.2", true},
    {"motion_blur_min_object_screen_size", "float", "0.1", "0.2", true}, {"slope", "float", "0.88", "0.8", true},
    {"toe", "float", "0.55", "0.5", true}, {"shoulder", "float", "0.26", "0.3", true},
    {"black_clip", "float", "0.0", "0.1", true}, {"white_clip", "float", "0.04", "0.05", true},
    {"temp", "float", "6500.0", "5000", true}, {"tint", "float", "0.0", "0.2", true},
    {"chromatic_aberration_intensity", "float", "0.0", "0.5", true},
    {"chromatic_aberration_offset", "float", "0.0", "0.1", true},
    {"enable_postprocess_effects", "bool", "true", "false", true},
};
#define N_SEED (sizeof rgb_seed / sizeof rgb_seed[0])

static int warned[N_SEED], other_logs;
static void on_log(sn_log_level level, const char *line, void *user)
{
    (void)user;
    int hit = 0;
    for (size_t k = 0; k < N_SEED && level == SN_LOG_WARN; k++) {
        char key[96];
        snprintf(key, sizeof key, "attribute '%s' = ", rgb_seed[k].name);
        if (strstr(line, key))
            warned[k]++, hit = 1;
    }
    other_logs += !hit;
}

static void all_rgb_attributes(void)
{
    /* The blueprint has every attribute of seed 003 with its type and CARLA's default; the
    ** unrendered ones say so first in their doc. */
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .log = on_log};
    sn_blueprints *lib = sn_blueprints_open(&o, &err);
    sn_blueprint_info b = {.struct_size = sizeof b};
    CHECK(lib && sn_blueprints_find(lib, "sensor.camera.rgb", &b, &err) == SN_OK, "%s", err.msg);
    for (size_t k = 0; lib && k < N_SEED; k++) {
        const sn_attr_def *d = NULL;
        for (uint32_t i = 0; i < b.n_attrs; i++)
            if (!strcmp(b.attrs[i]->name, rgb_seed[k].name))
                d = b.attrs[i];
        CHECK(d != NULL, "sensor.camera.rgb lacks '%s'", rgb_seed[k].name);
        if (!d)
            continue;
        CHECK(!strcmp(sn_attr_type_name(d->type), rgb_seed[k].type), "%s: type %s, want %s", d->name,
              sn_attr_type_name(d->type), rgb_seed[k].type);
        bool same = d->type == SN_ATTR_FLOAT || d->type == SN_ATTR_INT ? strtod(d->def, NULL) == strtod(rgb_seed[k].def, NULL)
                                                                       : !strcmp(d->def, rgb_seed[k].def);
        CHECK(same, "%s: default %s, CARLA's %s", d->name, d->def, rgb_seed[k].def);
        bool says = !strncmp(d->doc, "accepted, not rendered yet:", 27);
        CHECK(says == !rgb_seed[k].rendered, "%s: doc '%s'", d->name, d->doc);
    }
    sn_blueprints_close(lib);

    /* A scene setting all of them away from their defaults runs, warning once per unrendered one. */
    char scene[8192];
    int len = snprintf(scene, sizeof scene, "sensors:\n  - name: cam\n    blueprint: sensor.camera.rgb\n    attributes:\n");
    for (size_t k = 0; k < N_SEED; k++)
        len += snprintf(scene + len, sizeof scene - (size_t)len, "      %s: %s\n", rgb_seed[k].name, rgb_seed[k].other);
    memset(warned, 0, sizeof warned), other_logs = 0;
    sn_engine *e = sn_engine_create(&o, &err);
    capture c = {0};
    CHECK(e && sn_engine_load_scene(e, tu_write(dir, "all_rgb.yaml", scene), &err) == SN_OK &&
              sn_engine_listen(e, "cam", tu_on_image, &c, &err) == SN_OK && sn_engine_run(e, 3, &err) == SN_OK,
          "the scene with every RGB attribute: %s", err.msg);
    for (size_t k = 0; k < N_SEED; k++)
        CHECK(warned[k] == (rgb_seed[k].rendered ? 0 : 1), "%s: %d warnings", rgb_seed[k].name, warned[k]);
    CHECK(other_logs == 0, "%d other log lines", other_logs);
    CHECK(c.n == 3 && c.w == 64 && c.h == 48, "3 images of 64x48, got %zu of %ux%u", c.n, c.w, c.h);
    sn_engine_destroy(e);
    release(&c);
}

static void threads_same_bytes(void)
{
    /* The same scene at 1, 2 and 3 threads: identical bytes, for every camera kind. */
    const char *kinds[] = {"depth", "rgb", "instance_segmentation"};
    for (int k = 0; k < 3; k++) {
        char scene[2048];
        snprintf(scene, sizeof scene,
                 "actors:\n  - {name: ground, blueprint: static.ground}\n"
                 "  - {name: car, blueprint: vehicle.sedan, transform: {location: [12, 1, 0.05], rotation: [0, 30, 0]}, attributes: {texture: checker, checker_size: 0.3}}\n"
                 "  - {name: ball, blueprint: static.prop.sphere, transform: {location: [8, -2, 1]}, attributes: {radius: 1}}\n"
                 "  - {name: house, blueprint: static.building, transform: {location: [40, 20, 10]}}\n"
                 "sensors:\n  - {name: cam, blueprint: sensor.camera.%s, transform: {location: [0, 0, 1.7], rotation: [-5, 10, 0]},"
                 " attributes: {image_size_x: 333, image_size_y: 250}}\n",
                 kinds[k]);
        capture c[3];
        int rc = 0;
        for (int t = 0; t < 3; t++)
            rc |= shoot(scene, "cam", t + 1, &c[t], NULL);
        if (rc)
            return;
        size_t bytes = (size_t)c[0].w * c[0].h * 4;
        CHECK(!memcmp(c[0].raw, c[1].raw, bytes) && !memcmp(c[0].raw, c[2].raw, bytes),
              "%s: images differ between thread counts", kinds[k]);
        for (int t = 0; t < 3; t++)
            release(&c[t]);
    }
}

/* The sensor name of the last message seen, as written in the message. */
static void on_name(const sn_message *m, void *user)
{
    char *name = user;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, m->data, m->size, &off) == MSGPACK_UNPACK_SUCCESS && off == m->size) {
        const msgpack_object *s = tu_get(&u.data, "sensor");
        if (s && s->type == MSGPACK_OBJECT_STR && s->via.str.size < 4096)
            snprintf(name, 4096, "%.*s", (int)s->via.str.size, s->via.str.ptr);
    }
    msgpack_unpacked_destroy(&u);
}

static void long_header(void)
{
    /* A header longer than the room the writer keeps in front of the body (a 1500-character
    ** name) is joined by copying: the same image, the whole name. */
    char name[1501], scene[4096], seen[4096] = "";
    memset(name, 'n', 1500);
    name[1500] = 0;
    const char *cam = "blueprint: sensor.camera.depth, transform: {location: [0, 0, 1.5]},"
                      " attributes: {image_size_x: 64, image_size_y: 48}}\n";
    snprintf(scene, sizeof scene, "actors:\n  - {name: wall, blueprint: static.prop.box, transform: {location: [12, 0, 1.5]},"
             " attributes: {extent: \"0.5,50,50\"}}\nsensors:\n  - {name: short, %s  - {name: %s, %s", cam, name, cam);
    capture a, b;
    if (shoot(scene, "short", 1, &a, NULL) || shoot(scene, name, 1, &b, NULL))
        return;
    CHECK(a.n == 1 && b.n == 1 && !memcmp(a.raw, b.raw, 64 * 48 * 4), "a long header changes the image");
    release(&a), release(&b);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "long.yaml", scene), &err) ||
             sn_engine_listen(e, name, on_name, seen, &err) || sn_engine_run(e, 1, &err);
    CHECK(!rc && !strcmp(seen, name), "the long name read back (%zu characters): %s", strlen(seen), err.msg);
    sn_engine_destroy(e);
}

static void bad_attributes(void)
{
    struct { const char *attrs, *want; } cases[] = {
        {"image_size_x: 0", "image_size_x"},
        {"fov: 180", "fov 180: must be inside (0, 180)"},
        {"fov: 0", "fov 0: must be inside (0, 180)"},
        {"image_size_y: -5", "image_size_y"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char scene[512], err[1024];
        snprintf(scene, sizeof scene, "sensors:\n  - {name: cam, blueprint: sensor.camera.depth, attributes: {%s}}\n",
                 cases[i].attrs);
        capture c;
        CHECK(shoot(scene, "cam", 1, &c, err) != 0, "'%s' accepted", cases[i].attrs);
        CHECK_CONTAINS(err, cases[i].want);
        release(&c);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: test_camera TMP PLUGINS\n"), 2;
    dir = argv[1];
    plugins = argv[2];
    wall_depth();
    ground_depth();
    sphere_silhouette();
    labels();
    lens();
    carla_intrinsics();
    all_rgb_attributes();
    threads_same_bytes();
    long_header();
    bad_attributes();
    return CHECK_DONE();
}
