/* The event camera's cost. (1) Event generation alone, rendering excluded: the plugin's core
** against the straightforward port of CARLA's loop with qsort (tests/dvs_reference.h) on the
** same frames, at 640x480 and 1280x720 with motion of 0.5, 2 and 8 px per tick, one core; the
** frames are what the renderer draws (flat-shaded checkered surfaces, hard edges) plus one case
** where every pixel changes every tick (a smooth pattern), the core's worst. Outputs are checked
** identical. (2) The whole sensor in the engine, rendering included, with and without sub-frames,
** beside an RGB camera of the same size in the same run.
** argv[1]: temp folder, argv[2]: plugins folder (build/plugins). */
#include "../../plugins/dvs/dvs_core.h"
#include "../dvs_reference.h"
#include "../testutil.h"

#include <time.h>

/* CPU time of the process: on a shared machine, what the work costs on one core. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint32_t bgra(uint8_t r, uint8_t g, uint8_t b) { return 0xFF000000u | (uint32_t)r << 16 | (uint32_t)g << 8 | b; }

/* Frame k: a checkered wall with a checkered panel (60% x 50% of the view) moving right at
** v px per tick, sampled at pixel centres as the rasteriser does. smooth: a sine pattern instead. */
static void frame(uint32_t *px, uint32_t w, uint32_t h, int k, double v, bool smooth)
{
    double ox = 0.2 * w + v * k;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double u = x + 0.5, t = y + 0.5;
            bool panel = u >= ox && u < ox + 0.6 * w && t >= 0.25 * h && t < 0.75 * h;
            uint32_t c;
            if (smooth) {
                double s = 0.5 + 0.5 * sin((u - (panel ? ox : 0)) * 0.21) * cos(t * 0.13);
                uint8_t g = (uint8_t)(30 + 200 * s);
                c = panel ? bgra(g, (uint8_t)(g / 2), 40) : bgra(g, g, g);
            } else if (panel) {
                c = ((int)floor((u - ox) / 12) + (int)floor(t / 12)) & 1 ? bgra(230, 200, 40) : bgra(40, 60, 160);
            } else {
                c = ((int)floor(u / 20) + (int)floor(t / 20)) & 1 ? bgra(120, 120, 120) : bgra(170, 160, 150);
            }
            px[(size_t)y * w + x] = c;
        }
}

static double no_noise(void *u, double sd) { (void)u, (void)sd; return 0; }

typedef struct result {
    double ref_ms, core_ms;
    size_t events;
    bool identical;
} result;

/* FNV-1a over the events as written: (x, y, t, pol) in order. */
static uint64_t digest(uint64_t h, uint32_t x, uint32_t y, int64_t t, bool pol)
{
    uint64_t v[4] = {x, y, (uint64_t)t, pol};
    for (int i = 0; i < 4; i++)
        h = (h ^ v[i]) * 0x100000001B3ull;
    return h;
}

/* Each implementation runs over the whole frame sequence on its own (warm caches for both);
** their outputs are compared frame by frame through digests. */
static result generation(uint32_t w, uint32_t h, double v, bool smooth, int frames)
{
    size_t px = (size_t)w * h;
    uint32_t *f = malloc(px * 4 * (size_t)(frames + 1));
    uint64_t *dref = calloc((size_t)frames + 1, sizeof *dref), *dcore = calloc((size_t)frames + 1, sizeof *dcore);
    for (int k = 0; k <= frames; k++)
        frame(f + px * (size_t)k, w, h, k, v, smooth);
    dvs_config cfg = {0.3f, 0.3f, 0, 0, 0, 0, true, 0.001f};
    dvs_core core;
    ref_dvs ref;
    dvs_core_init(&core, w, h, &cfg);
    ref_init(&ref, w, h, 0.3f, 0.3f, 0, true, 0.001f);
    result r = {0, 0, 0, true};
    const int64_t dt = 50000000;
    /* Timed: each implementation's generation and sort, from the second frame (the first only
    ** initialises); the digests that compare them are the harness's, not timed. */
    double spent = 0;
    for (int k = 0; k <= frames; k++) {
        double t0 = now();
        ref.n = 0;
        ref_frame(&ref, (const uint8_t *)(f + px * (size_t)k), (k + 1) * dt);
        ref_sort(&ref);
        spent += k ? now() - t0 : 0;
        dref[k] = 14695981039346656037ull;
        for (size_t e = 0; e < ref.n; e++)
            dref[k] = digest(dref[k], ref.ev[e].x, ref.ev[e].y, ref.ev[e].t, ref.ev[e].pol);
    }
    r.ref_ms = spent * 1e3 / frames;
    spent = 0;
    for (int k = 0; k <= frames; k++) {
        double t0 = now();
        core.n_ev = 0;
        dvs_feed_colors(&core, f + px * (size_t)k, (k + 1) * dt, no_noise, NULL);
        dvs_sort(&core);
        spent += k ? now() - t0 : 0;
        r.events += k ? core.n_ev : 0;
        dcore[k] = 14695981039346656037ull;
        for (size_t e = 0; e < core.n_ev; e++)
            dcore[k] = digest(dcore[k], core.ev[e].idx % w, core.ev[e].idx / w, core.ev[e].t, core.ev[e].gen_pol & 1);
    }
    r.core_ms = spent * 1e3 / frames;
    r.identical = !memcmp(dref, dcore, ((size_t)frames + 1) * sizeof *dref);
    r.events /= (size_t)frames;
    free(f), free(dref), free(dcore);
    dvs_core_free(&core);
    ref_free(&ref);
    return r;
}

/* The whole sensor: ms per frame of `sensor` (blueprint and attributes) on a crossing car. */
static double sensor_ms(const char *tmp, const char *plugins, const char *blueprint, const char *attrs, int frames)
{
    char scene[2048];
    snprintf(scene, sizeof scene,
             "settings: {fixed_delta_seconds: 0.05}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground}\n"
             "  - {name: wall, blueprint: static.prop.box, transform: {location: [40, 0, 5]},"
             " attributes: {extent: \"0.5,40,5\", texture: checker, checker_size: 1.5}}\n"
             "  - {name: car, blueprint: vehicle.sedan, transform: {location: [12, -8, 0.8], rotation: [0, 90, 0]},"
             " attributes: {texture: checker, checker_size: 0.3, color: \"220,40,30\"}}\n"
             "sensors:\n"
             "  - {name: s, blueprint: %s, transform: {location: [0, 0, 1.6]},"
             " attributes: {image_size_x: 640, image_size_y: 480, lens_k: 0, %s}}\n",
             blueprint, attrs);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    uint32_t car = 0;
    if (!e || sn_engine_load_scene(e, tu_write(tmp, "bench_dvs.yaml", scene), &err) ||
        !(car = sn_engine_find_actor(e, "car")) || sn_engine_set_simulate_physics(e, car, false, &err) ||
        sn_engine_set_velocity(e, car, (sn_vec3){0, 8, 0}, (sn_vec3){0, 0, 0}, &err) || sn_engine_step(e, &err)) {
        fprintf(stderr, "bench_dvs: %s\n", err.msg);
        exit(1);
    }
    double t0 = now();
    for (int k = 0; k < frames; k++)
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "bench_dvs: %s\n", err.msg);
            exit(1);
        }
    double ms = (now() - t0) * 1e3 / frames;
    sn_engine_destroy(e);
    return ms;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    static const struct { uint32_t w, h; double v; bool smooth; int frames; } cases[] = {
        {640, 480, 0.5, false, 12}, {640, 480, 2, false, 12}, {640, 480, 8, false, 12},
        {1280, 720, 0.5, false, 5}, {1280, 720, 2, false, 5}, {1280, 720, 8, false, 5},
        {640, 480, 2, true, 6},
    };
    double worst_ratio = 1e30, worst_fps = 1e30;
    bool all_identical = true;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        result r = generation(cases[i].w, cases[i].h, cases[i].v, cases[i].smooth, cases[i].frames);
        double ratio = r.ref_ms / r.core_ms;
        printf("ratio dvs events %ux%u %.1f px/tick%s: sensim %.2f ms/frame (%.0f fps), CARLA's loop with qsort %.2f "
               "ms/frame, %.1fx, %zu events/frame, %s\n",
               cases[i].w, cases[i].h, cases[i].v, cases[i].smooth ? " smooth (every pixel changes)" : "", r.core_ms,
               1e3 / r.core_ms, r.ref_ms, ratio, r.events, r.identical ? "identical" : "DIFFERENT");
        all_identical = all_identical && r.identical;
        if (cases[i].w == 640 && !cases[i].smooth) {
            worst_ratio = ratio < worst_ratio ? ratio : worst_ratio;
            worst_fps = 1e3 / r.core_ms < worst_fps ? 1e3 / r.core_ms : worst_fps;
        }
    }
    printf("target dvs events at 640x480, one core: >= 10x the reference and >= 250 fps: %s (worst %.1fx, %.0f fps)%s\n",
           worst_ratio >= 10 && worst_fps >= 250 ? "met" : "NOT met", worst_ratio, worst_fps,
           all_identical ? "" : "; outputs DIFFER");
    fflush(stdout);
    const int frames = 8;
    double rgb = sensor_ms(argv[1], argv[2], "sensor.camera.rgb", "", frames);
    double one = sensor_ms(argv[1], argv[2], "sensor.camera.dvs", "", frames);
    double sub4 = sensor_ms(argv[1], argv[2], "sensor.camera.dvs", "subframes: 4", frames);
    double ada = sensor_ms(argv[1], argv[2], "sensor.camera.dvs", "adaptive: true, adaptive_max_subframes: 8", frames);
    printf("ratio dvs sensor 640x480 with rendering, 1 thread, CPU time: RGB camera %.1f ms/frame; DVS %.1f ms/frame (%.2fx the "
           "camera), 4 sub-frames %.1f ms/frame (%.2fx), adaptive (cap 8) %.1f ms/frame (%.2fx)\n",
           rgb, one, one / rgb, sub4, sub4 / rgb, ada, ada / rgb);
    return 0;
}
