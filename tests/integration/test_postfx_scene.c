/* CARLA's camera post-process on the engine (plugins/common/postfx.c, docs/rendering.md): motion
** blur smears a car driving across a still camera's view and leaves a still scene unchanged, byte
** for byte; an object narrower than the minimum screen size keeps its edges; the post-processed
** image is the same at 1 and 2 threads. argv[1]: temp folder, argv[2]: plugin folder. */
#include "../check.h"
#include "../testutil.h"

static const char *dir, *plugins;
static const char *extra = ""; /* more actors for the scene (one YAML line each) */

typedef tu_image capture; /* the last image of a sensor (testutil.h) */

/* The last of `frames` images of camera `blueprint` with `attrs`, the car at `speed` m/s. */
static bool shoot(double speed, const char *blueprint, const char *attrs, int frames, int threads, capture *c)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: wall, blueprint: static.building, transform: {location: [30, 0, 4]},"
             " attributes: {extent: \"1,30,4\", texture: checker, checker_size: 2, color: \"170,160,150\"}}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [9, -5, 0.8], rotation: [0, 90, 0]},"
             " attributes: {color: \"220,40,30\"}, velocity: [0, %g, 0]}\n"
             "%s"
             "sensors:\n"
             "  - {name: cam, blueprint: %s, transform: {location: [0, 0, 1.6]},"
             " attributes: {image_size_x: 160, image_size_y: 90, fov: 90%s}}\n",
             speed, extra, blueprint, attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(c, 0, sizeof *c);
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, "postfx.yaml", scene), &err) ||
             sn_engine_listen(e, "cam", tu_on_image, c, &err) || sn_engine_run(e, (uint64_t)frames, &err);
    CHECK(rc == 0 && c->raw, "run: %s", err.msg);
    sn_engine_destroy(e);
    return rc == 0 && c->raw;
}

static void motion_blur(void)
{
    /* the car crosses at 20 m/s, 9 m away: 1 m a frame, ~9 px at 160 px and 90 degrees; with
    ** intensity 1 and up to 10 % of the width the blur reaches ~9 px along its motion */
    capture a, b;
    if (!shoot(20, "sensor.camera.rgb", ", motion_blur_intensity: 0", 4, 1, &a) ||
        !shoot(20, "sensor.camera.rgb", ", motion_blur_intensity: 1, motion_blur_max_distortion: 10", 4, 1, &b))
        return;
    /* which rows and columns differ: the car's, a band along x (its motion), not the sky */
    int diff = 0, rows_lo = 1 << 30, rows_hi = -1;
    for (uint32_t y = 0; y < a.h; y++)
        for (uint32_t x = 0; x < a.w; x++) {
            size_t i = 4 * ((size_t)y * a.w + x);
            if (memcmp(a.raw + i, b.raw + i, 3)) {
                diff++;
                rows_lo = (int)y < rows_lo ? (int)y : rows_lo, rows_hi = (int)y > rows_hi ? (int)y : rows_hi;
            }
        }
    CHECK(diff > 100, "a moving car is smeared: %d pixels differ", diff);
    /* the car stands 0.8 m up on its origin, 9 m away: its rows are in the lower half, none near the top */
    CHECK(rows_lo > 20, "the smear stays on the car's rows (rows %d..%d)", rows_lo, rows_hi);
    free(a.raw), free(b.raw);
    /* the same scene standing still: motion blur changes no byte */
    if (!shoot(0, "sensor.camera.rgb", ", motion_blur_intensity: 0", 4, 1, &a) ||
        !shoot(0, "sensor.camera.rgb", ", motion_blur_intensity: 1, motion_blur_max_distortion: 10", 4, 1, &b))
        return;
    CHECK(memcmp(a.raw, b.raw, (size_t)a.w * a.h * 4) == 0, "a still scene: motion blur changes nothing");
    free(b.raw);
    /* a still scene skips the motion render (host->scene_moved false, the camera still); with a
    ** car driving 40 m behind the camera the motion render runs and gives vectors of 0 in view:
    ** the same bytes both ways */
    extra = "  - {name: far, blueprint: vehicle.sedan, transform: {location: [-40, -5, 0.8], rotation: [0, 90, 0]},"
            " velocity: [0, 10, 0]}\n";
    if (shoot(0, "sensor.camera.rgb", ", motion_blur_intensity: 1, motion_blur_max_distortion: 10", 4, 1, &b))
        CHECK(memcmp(a.raw, b.raw, (size_t)a.w * a.h * 4) == 0,
              "a car moving out of view: the motion render runs, the still part of the image keeps its bytes");
    extra = "";
    free(a.raw), free(b.raw);
    /* motion_blur_min_object_screen_size above the car's width: its own motion is not blurred */
    if (!shoot(20, "sensor.camera.rgb", ", motion_blur_intensity: 0", 4, 1, &a) ||
        !shoot(20, "sensor.camera.rgb",
               ", motion_blur_intensity: 1, motion_blur_max_distortion: 10, motion_blur_min_object_screen_size: 90", 4,
               1, &b))
        return;
    CHECK(memcmp(a.raw, b.raw, (size_t)a.w * a.h * 4) == 0, "an object below the minimum screen size is not blurred");
    free(a.raw), free(b.raw);
}

static void threads_and_others(void)
{
    /* the post-processed image at 1 and 2 threads: the same bytes (a moving car: every stage) */
    capture a, b;
    const char *fx = ", motion_blur_intensity: 1, motion_blur_max_distortion: 10, chromatic_aberration_intensity: 2";
    if (shoot(20, "sensor.camera.rgb", fx, 3, 1, &a) && shoot(20, "sensor.camera.rgb", fx, 3, 2, &b))
        CHECK(memcmp(a.raw, b.raw, (size_t)a.w * a.h * 4) == 0, "1 and 2 threads: the same bytes");
    free(a.raw), free(b.raw);
    /* enable_postprocess_effects changes the RGB image (CARLA's default is on) */
    if (shoot(20, "sensor.camera.rgb", "", 3, 1, &a) &&
        shoot(20, "sensor.camera.rgb", ", enable_postprocess_effects: false", 3, 1, &b))
        CHECK(memcmp(a.raw, b.raw, (size_t)a.w * a.h * 4) != 0, "the default post-process changes the image");
    free(a.raw), free(b.raw);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    dir = argv[1], plugins = argv[2];
    motion_blur();
    threads_and_others();
    return CHECK_DONE();
}
