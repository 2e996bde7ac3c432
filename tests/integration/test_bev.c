/* sensim convert's bird's-eye view of a lidar stream, read back from the PNG: a lidar turning
** a full circle in a frame, 15 m from a wall (face at x = 14.5 m, y in [-10, 10] m): every lit
** pixel but the sensor's mark lies on the face's row and inside its columns, and the face is
** drawn along most of its length. Also: the optical flow stream converts (one PNG per frame),
** a truncated point record is refused; a scene's save: writes the same PNG as convert.
** argv[1]: temp folder, argv[2]: lidar plugin folder, argv[3]: optical flow plugin folder */
#include "../check.h"
#include "../png_decode.h"
#include "../testutil.h"

#include "../../engine/data/views.h"

static const char *dir, *plugins, *flow_plugins;

/* An 8-bit RGB, non-interlaced PNG (what sn_png_write_rgb writes) into a malloc'd buffer. */
static uint8_t *read_png(const char *path, int *w, int *h)
{
    size_t n = 0;
    uint8_t *file = (uint8_t *)tu_read_file(path, &n);
    uint8_t *img = file ? tu_png_decode(file, n, w, h, NULL) : NULL;
    free(file);
    return img;
}

static void lidar_wall(void)
{
    const char *scene =
        "actors:\n"
        "  - {blueprint: static.prop.box, transform: {location: [15, 0, 0]}, attributes: {extent: \"0.5,10,10\"}}\n"
        "sensors:\n"
        "  - {name: lidar, blueprint: sensor.lidar.ray_cast, transform: {location: [0, 0, 1]},\n"
        "     attributes: {channels: 16, upper_fov: 10, lower_fov: -10, rotation_frequency: 20,\n"
        "                  points_per_second: 200000, range: 40, dropoff_general_rate: 0, dropoff_intensity_limit: 0},\n"
        "     save: {path: \"bev/%06d.png\"}}\n";
    sn_error err = {0};
    char out[512], png_dir[512], png[600];
    snprintf(out, sizeof out, "%s/bev_run", dir);
    snprintf(png_dir, sizeof png_dir, "%s/bev_png", dir);
    sn_engine *e = tu_load(plugins, tu_write(dir, "bev.yaml", scene));
    CHECK(sn_engine_open_outputs(e, out, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_run(e, 1, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
    char stream[600];
    snprintf(stream, sizeof stream, "%s/lidar.msgpack", out);
    size_t written = 0;
    CHECK(sn_stream_save_images(stream, png_dir, SN_COLOR_RAW, &written, &err) == SN_OK && written == 1,
          "convert: %zu images: %s", written, err.msg);
    snprintf(png, sizeof png, "%s/000001.png", png_dir);
    /* the scene's save: wrote the same bytes as convert */
    char saved[600];
    snprintf(saved, sizeof saved, "%s/bev/000001.png", out);
    FILE *fa = fopen(png, "rb"), *fb = fopen(saved, "rb");
    bool same = fa && fb;
    for (int ca = 0, cb = 0; same && (ca != EOF || cb != EOF);)
        ca = fgetc(fa), cb = fgetc(fb), same = ca == cb;
    CHECK(same, "save: and convert give the same PNG (%s)", saved);
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    int w = 0, h = 0;
    uint8_t *rgb = read_png(png, &w, &h);
    CHECK(rgb && w == SN_BEV_SIZE && h == SN_BEV_SIZE, "a %dx%d PNG", w, h);
    if (!rgb)
        return;
    /* the face x = 14.5 m is row floor(250 - 14.5 / 0.2) = 177; y in [-10, 10] m: columns 200..300 */
    const int c = SN_BEV_SIZE / 2, row = (int)floor(c - 14.5 / SN_BEV_M_PER_PX);
    int on_face = 0, stray = 0, lo = SN_BEV_SIZE, hi = -1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const uint8_t *p = rgb + 3 * ((size_t)y * w + x);
            if (!p[0] && !p[1] && !p[2])
                continue;
            if (abs(y - c) <= 1 && abs(x - c) <= 1)
                continue; /* the sensor's mark */
            if (y == row && x >= c - 50 && x <= c + 50) {
                on_face++;
                lo = x < lo ? x : lo, hi = x > hi ? x : hi;
            } else {
                stray++;
            }
        }
    CHECK(stray == 0, "%d lit pixels off the wall's face", stray);
    CHECK(on_face > 80 && lo <= c - 45 && hi >= c + 44, "the face drawn: %d pixels, columns %d..%d", on_face, lo, hi);
    free(rgb);

    /* a stream cut inside a record is refused with a sentence */
    FILE *f = fopen(stream, "r+b");
    if (f) {
        /* rewrite as a hand-made message: {frame: 1, type: lidar, raw_data: 17 bytes} */
        static const uint8_t msg[] = {0x83, 0xa5, 'f', 'r', 'a', 'm', 'e', 0x01, 0xa4, 't', 'y', 'p', 'e', 0xb5, 's', 'e',
                                      'n', 's', 'o', 'r', '.', 'l', 'i', 'd', 'a', 'r', '.', 'r', 'a', 'y', '_', 'c', 'a',
                                      's', 't', 0xa8, 'r', 'a', 'w', '_', 'd', 'a', 't', 'a', 0xc4, 17};
        fclose(f);
        f = fopen(stream, "wb");
        fwrite(msg, 1, sizeof msg, f);
        uint8_t zeros[17] = {0};
        fwrite(zeros, 1, sizeof zeros, f);
        fclose(f);
        sn_status st = sn_stream_save_images(stream, png_dir, SN_COLOR_RAW, &written, &err);
        CHECK(st == SN_E_INVALID && strstr(err.msg, "16-byte record"), "a cut record refused: %s", err.msg);
    }
}

static void flow_png(void)
{
    /* A box sliding right past a still camera: the PNG's pixels are sn_flow_color of the
    ** stream's values (CARLA's code), and the box is not black while the sky is. */
    const char *scene =
        "actors:\n"
        "  - {name: car, blueprint: vehicle.sedan, transform: {location: [8, -1, 0]}}\n"
        "sensors:\n"
        "  - {name: flow, blueprint: sensor.camera.optical_flow, transform: {location: [0, 0, 1]},\n"
        "     attributes: {image_size_x: 64, image_size_y: 48}}\n";
    sn_error err = {0};
    char out[512], png_dir[512], png[600], stream[600];
    snprintf(out, sizeof out, "%s/flow_run", dir);
    snprintf(png_dir, sizeof png_dir, "%s/flow_png", dir);
    sn_engine *e = tu_load(flow_plugins, tu_write(dir, "flowpng.yaml", scene));
    uint32_t car = sn_engine_find_actor(e, "car");
    CHECK(sn_engine_set_simulate_physics(e, car, false, &err) == SN_OK, "%s", err.msg);
    sn_transform to = {{8, -0.5, 0}, {0, 0, 0}};
    CHECK(sn_engine_set_target_transform(e, car, &to, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_open_outputs(e, out, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_run(e, 1, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_engine_finish(e, true, &err) == SN_OK, "%s", err.msg);
    sn_engine_destroy(e);
    snprintf(stream, sizeof stream, "%s/flow.msgpack", out);
    size_t written = 0;
    CHECK(sn_stream_save_images(stream, png_dir, SN_COLOR_DEPTH, &written, &err) == SN_OK && written == 1,
          "convert: %zu images: %s", written, err.msg);
    /* the stream's values, from its one message */
    FILE *f = fopen(stream, "rb");
    static char buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    const msgpack_object *raw = NULL;
    if (msgpack_unpack_next(&u, buf, n, &off) == MSGPACK_UNPACK_SUCCESS)
        raw = tu_get(&u.data, "raw_data");
    snprintf(png, sizeof png, "%s/000001.png", png_dir);
    int w = 0, h = 0;
    uint8_t *rgb = read_png(png, &w, &h);
    CHECK(rgb && w == 64 && h == 48 && raw && raw->via.bin.size == 64 * 48 * 8, "a 64x48 PNG of a 64x48 flow");
    if (rgb && raw && w == 64 && h == 48 && raw->via.bin.size == 64 * 48 * 8) {
        int same = 0, moving = 0;
        for (int i = 0; i < 64 * 48; i++) {
            float v[2];
            memcpy(v, raw->via.bin.ptr + 8 * i, 8);
            uint8_t want[3];
            sn_flow_color(v[0], v[1], want);
            same += !memcmp(want, rgb + 3 * i, 3);
            moving += v[0] > 0; /* sliding right: positive x */
        }
        CHECK(same == 64 * 48, "%d of %d pixels in CARLA's colours", same, 64 * 48);
        CHECK(moving > 50, "the box's pixels move right: %d", moving);
    }
    free(rgb);
    msgpack_unpacked_destroy(&u);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_bev TMPDIR LIDARDIR FLOWDIR\n");
        return 2;
    }
    dir = argv[1];
    plugins = argv[2];
    flow_plugins = argv[3];
    lidar_wall();
    flow_png();
    return CHECK_DONE();
}
