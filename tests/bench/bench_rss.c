/*
** bench_rss — what sensor.other.rss costs per tick with 10 and 100 other vehicles, beside the
** empty tick of the same world (the same cars, no sensor) measured in the same run.
**
** The world: a straight 2 km road with three lanes each way (an inline map), the ego in lane -2
** at x = 1000 and N other cars spread over the six lanes within 400 m of it (all inside the
** sensor's 200 m range up to N = 100, some beyond), kinematic at 10-25 m/s along their lanes,
** dt 0.05 s. A listener counts bytes, so every message is serialized as in a run. Each
** configuration is timed over 200 frames after 20 warm-up frames, best of 3.
** argv[1]: temp folder, argv[2]: the rss plugin's folder.
*/
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAMES 200
#define WARMUP 20

#define LANE(id) \
    "<lane id=\"" id "\" type=\"driving\" level=\"false\"><width sOffset=\"0\" a=\"3.5\" b=\"0\" c=\"0\" d=\"0\"/></lane>"
static const char map_xml[] =
    "<?xml version=\"1.0\" standalone=\"yes\"?>\n<OpenDRIVE>\n"
    "<header revMajor=\"1\" revMinor=\"4\" name=\"bench\" version=\"1\"/>\n"
    "<road name=\"straight\" length=\"2000\" id=\"1\" junction=\"-1\">\n"
    "<planView><geometry s=\"0\" x=\"0\" y=\"0\" hdg=\"0\" length=\"2000\"><line/></geometry></planView>\n"
    "<lanes><laneSection s=\"0\"><left>" LANE("3") LANE("2") LANE("1") "</left>"
    "<center><lane id=\"0\" type=\"none\" level=\"false\"/></center>"
    "<right>" LANE("-1") LANE("-2") LANE("-3") "</right></laneSection></lanes>\n"
    "</road>\n</OpenDRIVE>\n";

static const char *dir, *plugins;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void on_message(const sn_message *m, void *user) { *(size_t *)user += m->size; }

static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f)
        fputs(text, f), fclose(f);
}

/* ms per tick with n other cars, with or without the sensor. */
static double run(int n, bool sensor, size_t *bytes)
{
    char path[1024];
    write_file("bench_rss.xodr", map_xml);
    write_file(sensor ? "bench_rss_on.yaml" : "bench_rss_off.yaml",
               sensor ? "map: bench_rss.xodr\nactors:\n  - {name: hero, blueprint: vehicle.sedan, transform: {location: [1000, 5.25, 0]}}\n"
                        "sensors:\n  - {name: rss, blueprint: sensor.other.rss, attach_to: hero}\n"
                      : "map: bench_rss.xodr\nactors:\n  - {name: hero, blueprint: vehicle.sedan, transform: {location: [1000, 5.25, 0]}}\n");
    snprintf(path, sizeof path, "%s/%s", dir, sensor ? "bench_rss_on.yaml" : "bench_rss_off.yaml");
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, path, &err))
        return fprintf(stderr, "bench_rss: %s\n", err.msg), sn_engine_destroy(e), -1;
    uint32_t hero = sn_engine_find_actor(e, "hero");
    sn_engine_set_simulate_physics(e, hero, false, &err);
    sn_engine_set_velocity(e, hero, (sn_vec3){15, 0, 0}, (sn_vec3){0, 0, 0}, &err);
    for (int i = 0; i < n; i++) {
        const int lane = i % 6;                          /* 0..2 right lanes (+x), 3..5 left lanes (-x) */
        const double y = lane < 3 ? 1.75 + 3.5 * lane : -1.75 - 3.5 * (lane - 3);
        double x = 1000 - 400 + 800.0 * (i / 6 + 0.5) / ((n + 5) / 6) + (lane == 1 ? 3 : 0);
        if (lane == 1 && fabs(x - 1000) < 6) /* not onto the ego */
            x += 8;
        const double v = (lane < 3 ? 1 : -1) * (10 + (i * 7) % 16);
        sn_actor_desc d = {sizeof d, "vehicle.sedan", NULL, {{x, y, 0}, {0, lane < 3 ? 0 : 180, 0}}, 0, 0, NULL, 0};
        uint32_t id;
        if (sn_engine_spawn(e, &d, &id, &err))
            return fprintf(stderr, "bench_rss: %s\n", err.msg), sn_engine_destroy(e), -1;
        sn_engine_set_simulate_physics(e, id, false, &err);
        sn_engine_set_velocity(e, id, (sn_vec3){v, 0, 0}, (sn_vec3){0, 0, 0}, &err);
    }
    if (sensor && sn_engine_listen(e, "rss", on_message, bytes, &err))
        return fprintf(stderr, "bench_rss: %s\n", err.msg), sn_engine_destroy(e), -1;
    for (int f = 0; f < WARMUP; f++)
        sn_engine_step(e, &err);
    const double t0 = now();
    for (int f = 0; f < FRAMES; f++)
        if (sn_engine_step(e, &err))
            return fprintf(stderr, "bench_rss: %s\n", err.msg), sn_engine_destroy(e), -1;
    const double ms = (now() - t0) * 1e3 / FRAMES;
    sn_engine_destroy(e);
    return ms;
}

static double best(int n, bool sensor, size_t *bytes)
{
    double b = -1;
    *bytes = 0;
    for (int k = 0; k < 3; k++) {
        double t = run(n, sensor, bytes);
        if (t < 0)
            return -1;
        if (b < 0 || t < b)
            b = t;
    }
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: bench_rss TMP PLUGIN_DIR\n"), 2;
    dir = argv[1], plugins = argv[2];
    const int ns[] = {0, 10, 100};
    printf("%-22s %12s %12s %8s %14s %12s\n", "other vehicles", "empty ms", "rss ms", "ratio", "rss us/tick", "bytes/msg");
    for (int i = 0; i < 3; i++) {
        size_t b0 = 0, b1 = 0;
        const double t0 = best(ns[i], false, &b0), t1 = best(ns[i], true, &b1);
        if (t0 < 0 || t1 < 0)
            return 1;
        printf("%-22d %12.4f %12.4f %8.3f %14.1f %12zu\n", ns[i], t0, t1, t1 / t0, (t1 - t0) * 1e3,
               b1 / (FRAMES + WARMUP) / 3);
    }
    return 0;
}
