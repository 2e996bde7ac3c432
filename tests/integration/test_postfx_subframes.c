/* Motion blur from sub-frame renders (motion_blur_method: subframes; plugins/common/postfx_subframe.c,
** docs/rendering.md): a car crossing a still camera's view is smeared along its motion over the
** length its speed, the shutter (motion_blur_intensity) and the projection give; max_distortion
** shortens it, min_object_screen_size leaves it sharp; a still scene, and one whose only moving car
** is out of view, keep the bytes of no blur; enable_postprocess_effects false gives the plain
** image; 1, 2 and 3 threads give the same bytes. argv[1]: temp folder, argv[2]: plugin folder. */
#include "../check.h"
#include "../testutil.h"

#include <math.h>

static const char *dir, *plugins;
static double car_x = 12.0; /* the car's distance ahead of the camera (negative: behind it) */

#define W 320
#define H 180
#define V 10.0    /* the car's speed, m/s, along +y (to the right in the image) */
#define DT 0.05   /* fixed_delta_seconds */
#define CAR_X 12.0 /* its centre's distance ahead of the camera */

/* The last of `frames` images; the car at (CAR_X, y0) driving at `speed` (0: parked). Manual
** exposure at EV100 12, no bloom or flare: the same pixels away from the car whatever it does. */
static bool shoot(double speed, double y0, const char *attrs, int frames, int threads, tu_image *c)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: %g, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: wall, blueprint: static.building, transform: {location: [40, 0, 6]},"
             " attributes: {extent: \"1,60,6\", color: \"150,150,150\"}}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0.8], rotation: [0, 90, 0]},"
             " attributes: {color: \"220,30,20\"}, velocity: [0, %g, 0]}\n"
             "sensors:\n"
             "  - {name: cam, blueprint: sensor.camera.rgb, transform: {location: [0, 0, 1.6]},"
             " attributes: {image_size_x: %d, image_size_y: %d, fov: 90, exposure_mode: manual, fstop: 4,"
             " shutter_speed: 256, iso: 100, bloom_intensity: 0, lens_flare_intensity: 0%s}}\n",
             DT, car_x, y0, speed, W, H, attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(c, 0, sizeof *c);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "subframes.yaml", scene), &err) ||
             sn_engine_listen(e, "cam", tu_on_image, c, &err) || sn_engine_run(e, (uint64_t)frames, &err);
    CHECK(rc == 0 && c->raw, "run: %s", err.msg);
    sn_engine_destroy(e);
    return rc == 0 && c->raw;
}

/* The leftmost column of the car (red, well above green) in an unblurred image; -1 if none. */
static int car_left(const tu_image *a)
{
    int left = -1;
    for (uint32_t y = 0; y < a->h; y++)
        for (uint32_t x = 0; x < a->w; x++) {
            const uint8_t *p = a->raw + 4 * ((size_t)y * a->w + x);
            if (p[2] > p[1] + 60 && (left < 0 || (int)x < left))
                left = (int)x;
        }
    return left;
}

/* The leftmost column where a and b differ (by more than 2 in a channel); -1 if none. */
static int diff_left(const tu_image *a, const tu_image *b, int *n_diff)
{
    int left = -1, n = 0;
    for (uint32_t y = 0; y < a->h; y++)
        for (uint32_t x = 0; x < a->w; x++) {
            const uint8_t *p = a->raw + 4 * ((size_t)y * a->w + x), *q = b->raw + 4 * ((size_t)y * b->w + x);
            if (abs(p[0] - q[0]) > 2 || abs(p[1] - q[1]) > 2 || abs(p[2] - q[2]) > 2) {
                n++;
                if (left < 0 || (int)x < left)
                    left = (int)x;
            }
        }
    *n_diff = n;
    return left;
}

static bool same(const tu_image *a, const tu_image *b)
{
    return a->raw && b->raw && a->w == b->w && a->h == b->h && memcmp(a->raw, b->raw, (size_t)a->w * a->h * 4) == 0;
}

static void smear(void)
{
    const char *off = ", motion_blur_intensity: 0";
    tu_image a3, a4, b;
    /* frames 3 and 4 without blur: the car's trailing edge moves `step` px a frame on screen */
    if (!shoot(V, -6, off, 3, 1, &a3) || !shoot(V, -6, off, 4, 1, &a4))
        return;
    int l3 = car_left(&a3), l4 = car_left(&a4), step = l4 - l3;
    CHECK(l3 > 10 && l4 > l3, "the car is in view and drives right (trailing edge at columns %d, %d)", l3, l4);
    /* the projection: f = W / 2 / tan(45 deg) = 160 px; the trailing corner is nearer than the
    ** car's centre by half its width (the sedan is 0.8..1.0 m half wide): V DT f / z, z in [11, 11.2] */
    const double f = W / 2.0, lo = V * DT * f / (CAR_X - 0.8), hi = V * DT * f / (CAR_X - 1.0);
    CHECK(step >= floor(lo * 0.9) && step <= ceil(hi * 1.02) + 1, "a frame's motion on screen: %d px, projection %.1f..%.1f",
          step, lo, hi);
    /* shutter 1 (intensity 1): the smear reaches back a whole frame's motion; 0.5: half of it */
    const double shutters[2] = {1.0, 0.5};
    for (int k = 0; k < 2; k++) {
        char attrs[256];
        snprintf(attrs, sizeof attrs, ", motion_blur_method: subframes, motion_blur_intensity: %g,"
                 " motion_blur_max_distortion: 20, motion_blur_subframes: 16", shutters[k]);
        if (!shoot(V, -6, attrs, 4, 1, &b))
            break;
        int n, left = diff_left(&a4, &b, &n), len = l4 - left;
        const double want = shutters[k] * step, want_proj = shutters[k] * (lo + hi) / 2;
        CHECK(n > 50 && fabs(len - want) <= 1.5, "shutter %g: smeared %d px behind the car (%d pixels changed), want "
              "%.1f (the frame's step), projection %.1f", shutters[k], len, n, want, want_proj);
        CHECK(fabs(len - want_proj) <= 0.15 * want_proj + 1.5, "shutter %g: smear %d px against the projection's %.1f",
              shutters[k], len, want_proj);
        /* nothing above the car's rows changes: the smear follows the motion, along x */
        int rows_lo = H;
        for (uint32_t y = 0; y < H && rows_lo == H; y++)
            for (uint32_t x = 0; x < W; x++)
                if (memcmp(a4.raw + 4 * ((size_t)y * W + x), b.raw + 4 * ((size_t)y * W + x), 3)) {
                    rows_lo = (int)y;
                    break;
                }
        CHECK(rows_lo > H / 2 - 20, "shutter %g: the smear stays on the car's rows (first changed row %d)", shutters[k],
              rows_lo);
        free(b.raw);
    }
    /* max_distortion 1 % of the width (3.2 px): the smear shortened to it */
    if (shoot(V, -6, ", motion_blur_method: subframes, motion_blur_intensity: 1, motion_blur_max_distortion: 1", 4, 1,
              &b)) {
        int n, left = diff_left(&a4, &b, &n), len = l4 - left;
        CHECK(n > 0 && len >= 2 && len <= 5, "max_distortion 1 %%: smear %d px, want about 3.2", len);
        free(b.raw);
    }
    /* min_object_screen_size above the car's width: not blurred. With one sample a pixel (the
    ** moving layer's) the still layer and the car now composite to the plain render, byte for byte */
    tu_image p, q;
    if (shoot(V, -6, ", anti_aliasing: 1, motion_blur_intensity: 0", 4, 1, &p) &&
        shoot(V, -6, ", anti_aliasing: 1, motion_blur_method: subframes, motion_blur_intensity: 1,"
              " motion_blur_max_distortion: 20, motion_blur_min_object_screen_size: 90", 4, 1, &q))
        CHECK(same(&p, &q), "a car under the minimum screen size keeps the unblurred bytes");
    free(p.raw), free(q.raw);
    free(a3.raw), free(a4.raw);
}

static void unchanged(void)
{
    const char *sub = ", motion_blur_method: subframes, motion_blur_intensity: 1, motion_blur_max_distortion: 20";
    tu_image a, b;
    /* a still scene (the parked car settled: it is spawned 5 cm up and falls onto its wheels
    ** during the first frames): sub-frame blur changes no byte */
    if (shoot(0, -3, ", motion_blur_intensity: 0", 60, 1, &a) && shoot(0, -3, sub, 60, 1, &b))
        CHECK(same(&a, &b), "a still scene: the same bytes as without blur");
    free(b.raw);
    free(a.raw);
    /* the only moving car 40 m behind the camera: the layers are drawn, the image keeps its bytes */
    car_x = -40;
    if (shoot(V, -3, ", motion_blur_intensity: 0", 4, 1, &a) && shoot(V, -3, sub, 4, 1, &b))
        CHECK(same(&a, &b), "a car moving out of view: the still layer alone, the bytes of no blur");
    car_x = CAR_X;
    free(a.raw), free(b.raw);
    /* enable_postprocess_effects false: the plain image, whatever the blur's method */
    if (shoot(V, -6, ", enable_postprocess_effects: false", 4, 1, &a) &&
        shoot(V, -6, ", enable_postprocess_effects: false, motion_blur_method: subframes, motion_blur_intensity: 1", 4,
              1, &b))
        CHECK(same(&a, &b), "enable_postprocess_effects false: the plain image with motion_blur_method subframes");
    free(a.raw), free(b.raw);
}

static void threads(void)
{
    const char *sub = ", motion_blur_method: subframes, motion_blur_intensity: 1, motion_blur_max_distortion: 20";
    tu_image a, b;
    if (!shoot(V, -6, sub, 4, 1, &a))
        return;
    for (int t = 2; t <= 3; t++) {
        if (shoot(V, -6, sub, 4, t, &b))
            CHECK(same(&a, &b), "%d threads: the bytes of 1", t);
        free(b.raw);
    }
    free(a.raw);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1], plugins = argv[2];
    smear();
    unchanged();
    threads();
    return CHECK_DONE();
}
