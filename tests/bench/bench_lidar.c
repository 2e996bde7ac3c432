/* The lidar's frame: a 64-channel sensor.lidar.ray_cast at 100 000 points a frame (one turn
** a frame, no drop-off, so every point is traced) in a street of 300 objects (buildings both
** sides, parked and moving cars, poles), through the engine on one worker thread. The time is
** the sensors' share of the run (sn_run_stats.time_sensors: ray generation, the batch, points,
** the message). Baselines in the same run, on the same triangles and the same 102 400 rays:
** bare Embree, one rtcIntersect1 a ray in a flat scene (no filters, no double-precision
** refinement), and the same with rtcIntersect1M streams. Prints CPU ms (the engine's CPU timer,
** the baselines' thread CPU time) and `ratio` lines.
** argv[1]: temp folder, argv[2]: plugin folder (lidar); argv[3] (optional): that many frames of the
** lidar alone, without the baselines (for perf and callgrind). */
#include "../../engine/query/rayscene.h"
#include "../../engine/sim/engine.h"
#include "../testutil.h"

#include <embree3/rtcore.h>
#include <time.h>

#define CH 64
#define PER 1600 /* points per channel: 2 048 000 pps x 0.05 s / 64 */
#define FRAMES 20

/* Thread CPU time (one worker thread: the engine's work and the baselines run here), on a
** shared machine the figure that does not grow with the load. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The street: 300 objects along 400 m of road, placed by a fixed rule. */
static const char *street(const char *dir)
{
    static char text[120000];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "settings: {fixed_delta_seconds: 0.05}\nactors:\n  - {name: ground, blueprint: static.ground}\n");
    for (int i = 0; i < 300; i++) {
        double x = -200 + (i / 6) * 8.0;
        int kind = i % 6;
        const char *line;
        char buf[300];
        if (kind < 2) /* buildings both sides */
            snprintf(buf, sizeof buf, "  - {name: b%d, blueprint: static.prop.box, transform: {location: [%g, %g, 6]}, "
                     "attributes: {extent: \"3.5,4,6\", semantic_tag: building}}\n", i, x, kind ? 14.0 : -14.0);
        else if (kind < 4) /* poles */
            snprintf(buf, sizeof buf, "  - {name: p%d, blueprint: static.prop.box, transform: {location: [%g, %g, 2]}, "
                     "attributes: {extent: \"0.15,0.15,2\", semantic_tag: pole}}\n", i, x + 4, kind == 2 ? 7.5 : -7.5);
        else /* cars, parked and driving */
            snprintf(buf, sizeof buf, "  - {name: c%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0.05]}%s}\n",
                     i, x + 2, kind == 4 ? 5.0 : -2.0, kind == 5 ? ", velocity: [8, 0, 0]" : "");
        line = buf;
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", line);
    }
    snprintf(text + n, sizeof text - n,
             "sensors:\n  - {name: lidar, blueprint: sensor.lidar.ray_cast, transform: {location: [0, 0, 2.4]},"
             " attributes: {channels: %d, points_per_second: %d, rotation_frequency: 20, range: 100,"
             " dropoff_general_rate: 0, dropoff_intensity_limit: 0}}\n", CH, CH * PER * 20);
    return tu_write(dir, "bench_lidar.yaml", text);
}

typedef struct flat {
    RTCDevice dev;
    RTCScene scene;
} flat;

static flat flat_scene(const sn_world *w)
{
    flat f;
    size_t n = 0;
    float *tri = sn_rayscene_world_triangles(w, &n);
    f.dev = rtcNewDevice("threads=1");
    f.scene = rtcNewScene(f.dev);
    RTCGeometry g = rtcNewGeometry(f.dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 12, 3 * n + 4);
    uint32_t *ix = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 12, n + 2);
    memcpy(v, tri, 9 * n * sizeof *v);
    /* the ground as two large triangles, as the index tests its plane */
    float gv[12] = {-1e4f, -1e4f, 0, 1e4f, -1e4f, 0, 1e4f, 1e4f, 0, -1e4f, 1e4f, 0};
    memcpy(v + 9 * n, gv, sizeof gv);
    for (uint32_t i = 0; i < 3 * n; i++)
        ix[i] = i;
    uint32_t gi[6] = {(uint32_t)(3 * n), (uint32_t)(3 * n + 1), (uint32_t)(3 * n + 2), (uint32_t)(3 * n),
                      (uint32_t)(3 * n + 2), (uint32_t)(3 * n + 3)};
    memcpy(ix + 3 * n, gi, sizeof gi);
    rtcCommitGeometry(g);
    rtcAttachGeometry(f.scene, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(f.scene);
    free(tri);
    return f;
}

static void fill(struct RTCRayHit *rh, const sn_ray *r)
{
    rh->ray.org_x = (float)r->origin.x, rh->ray.org_y = (float)r->origin.y, rh->ray.org_z = (float)r->origin.z;
    rh->ray.dir_x = (float)r->direction.x, rh->ray.dir_y = (float)r->direction.y, rh->ray.dir_z = (float)r->direction.z;
    rh->ray.tnear = 0, rh->ray.time = 0, rh->ray.tfar = (float)r->max_distance;
    rh->ray.mask = ~0u, rh->ray.id = 0, rh->ray.flags = 0;
    rh->hit.geomID = rh->hit.primID = rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_lidar TMPDIR PLUGIN_DIR\n");
        return 2;
    }
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = argv[2], .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (e)
        e->cpu_timers = true;
    if (!e || sn_engine_load_scene(e, street(argv[1]), &err) || sn_engine_run(e, 2, &err)) {
        fprintf(stderr, "bench_lidar: %s\n", err.msg);
        return 1;
    }
    sn_run_stats s0 = {.struct_size = sizeof s0}, s1 = {.struct_size = sizeof s1};
    sn_engine_stats(e, &s0, &err);
    uint64_t messages = s0.messages;
    double cpu0 = e->cpu_sensors;
    int frames = argc > 3 ? atoi(argv[3]) : FRAMES;
    if (frames < 1)
        frames = 1;
    double t0 = now();
    if (sn_engine_run(e, (uint64_t)frames, &err)) {
        fprintf(stderr, "bench_lidar: %s\n", err.msg);
        return 1;
    }
    double wall = now() - t0;
    sn_engine_stats(e, &s1, &err);
    double lidar_ms = 1e3 * (e->cpu_sensors - cpu0) / frames;
    double frame_ms = 1e3 * wall / frames;
    if (argc > 3) {
        printf("  sensim lidar (sensors' time)  %8.2f ms/frame   (whole frame %.2f ms), %d frames\n", lidar_ms, frame_ms,
               frames);
        sn_engine_destroy(e);
        return 0;
    }

    /* the same rays: CARLA's pattern from the sensor's pose now (one full turn) */
    sn_ray *rays = malloc((size_t)CH * PER * sizeof *rays);
    sn_vec3 org = sn_v3(0, 0, 2.4);
    size_t n = 0;
    for (int ch = 0; ch < CH; ch++)
        for (int j = 0; j < PER; j++) {
            double v = (10 - ch * 40.0 / (CH - 1)) * SN_DEG, a = (fmod(360.0 / PER * j, 360) - 180) * SN_DEG;
            rays[n++] = (sn_ray){org, sn_v3(cos(v) * cos(a), cos(v) * sin(a), sin(v)), 100};
        }
    flat f = flat_scene(&e->world);
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    struct RTCRayHit *rh = malloc(n * sizeof *rh);
    double best1 = INFINITY, bestm = INFINITY, bestc = INFINITY;
    size_t hits = 0;
    for (int rep = 0; rep < 5; rep++) {
        for (size_t i = 0; i < n; i++)
            fill(&rh[i], &rays[i]);
        double a = now();
        for (size_t i = 0; i < n; i++)
            rtcIntersect1(f.scene, &ctx, &rh[i]);
        best1 = fmin(best1, now() - a);
        hits = 0;
        for (size_t i = 0; i < n; i++)
            hits += rh[i].hit.geomID != RTC_INVALID_GEOMETRY_ID;
        for (size_t i = 0; i < n; i++)
            fill(&rh[i], &rays[i]);
        a = now();
        for (size_t i = 0; i < n; i += 64)
            rtcIntersect1M(f.scene, &ctx, &rh[i], (unsigned)(n - i < 64 ? n - i : 64), sizeof *rh);
        bestm = fmin(bestm, now() - a);
        for (size_t i = 0; i < n; i++)
            fill(&rh[i], &rays[i]);
        struct RTCIntersectContext coh;
        rtcInitIntersectContext(&coh);
        coh.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
        a = now();
        for (size_t i = 0; i < n; i += 64)
            rtcIntersect1M(f.scene, &coh, &rh[i], (unsigned)(n - i < 64 ? n - i : 64), sizeof *rh);
        bestc = fmin(bestc, now() - a);
    }
    printf("lidar 64 channels, %zu rays a frame, %zu hit, street of 300 objects, 1 thread, %llu messages\n", n, hits,
           (unsigned long long)(s1.messages - messages));
    printf("  sensim lidar (sensors' time)  %8.2f ms/frame   (whole frame %.2f ms, physics included)\n", lidar_ms,
           frame_ms);
    printf("  bare Embree rtcIntersect1     %8.2f ms\n", 1e3 * best1);
    printf("  bare Embree rtcIntersect1M    %8.2f ms (incoherent), %.2f ms (coherent streams)\n", 1e3 * bestm,
           1e3 * bestc);
    printf("ratio lidar_frame/embree_1 %.2f\n", lidar_ms / (1e3 * best1));
    printf("ratio lidar_frame/embree_1M_coherent %.2f\n", lidar_ms / (1e3 * bestc));
    printf("ratio lidar_frame/target_10ms %.2f\n", lidar_ms / 10);
    free(rh), free(rays);
    rtcReleaseScene(f.scene);
    rtcReleaseDevice(f.dev);
    sn_engine_destroy(e);
    return 0;
}
