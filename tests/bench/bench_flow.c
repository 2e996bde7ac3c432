/* The optical flow camera's cost per frame beside the RGB camera of the same size in the same
** run: a camera driving forward (every pixel's flow is computed, none skipped as still) past a
** crossing car, a wall and the ground, at 800x600 (CARLA's default) and 1280x720, on 1 thread
** and on 4. CPU time of the process on 1 thread; wall time on 4.
** argv[1]: temp folder, argv[2]: plugins folder (build/plugins). */
#include "../testutil.h"

#include <time.h>

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double sensor_ms(const char *tmp, const char *plugins, const char *blueprint, uint32_t w, uint32_t h,
                        int threads, int frames)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [40, 0, 5]},"
             " attributes: {extent: \"0.5,40,5\"}}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [12, -8, 0], rotation: [0, 90, 0]}}\n"
             "  - {name: eye, blueprint: vehicle.sedan, transform: {location: [0, 0, 0]}}\n"
             "sensors:\n"
             "  - {name: s, blueprint: %s, attach_to: eye, transform: {location: [0.5, 0, 1.8]},"
             " attributes: {image_size_x: %u, image_size_y: %u}}\n",
             blueprint, w, h);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    uint32_t car = 0, eye = 0;
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_flow.yaml", scene), &err) ||
        !(car = sn_engine_find_actor(e, "car")) || !(eye = sn_engine_find_actor(e, "eye")) ||
        sn_engine_set_simulate_physics(e, car, false, &err) || sn_engine_set_simulate_physics(e, eye, false, &err) ||
        sn_engine_set_velocity(e, car, (sn_vec3){0, 8, 0}, (sn_vec3){0, 0, 0}, &err) ||
        sn_engine_set_velocity(e, eye, (sn_vec3){6, 0, 0}, (sn_vec3){0, 0, 5}, &err) || sn_engine_step(e, &err)) {
        fprintf(stderr, "bench_flow: %s\n", err.msg);
        exit(1);
    }
    clockid_t c = threads == 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
    double t0 = now(c);
    for (int k = 0; k < frames; k++)
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "bench_flow: %s\n", err.msg);
            exit(1);
        }
    double ms = (now(c) - t0) * 1e3 / frames;
    sn_engine_destroy(e);
    return ms;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    static const struct { uint32_t w, h; int threads; } cases[] = {{800, 600, 1}, {1280, 720, 1}, {800, 600, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int frames = 10;
        double rgb = sensor_ms(argv[1], argv[2], "sensor.camera.rgb", cases[i].w, cases[i].h, cases[i].threads, frames);
        double flow =
            sensor_ms(argv[1], argv[2], "sensor.camera.optical_flow", cases[i].w, cases[i].h, cases[i].threads, frames);
        printf("ratio optical_flow %ux%u, %d thread%s (%s): RGB camera %.1f ms/frame, optical flow %.1f ms/frame, "
               "%.2fx the camera\n",
               cases[i].w, cases[i].h, cases[i].threads, cases[i].threads > 1 ? "s" : "",
               cases[i].threads == 1 ? "CPU time" : "wall time", rgb, flow, flow / rgb);
        fflush(stdout);
    }
    return 0;
}
