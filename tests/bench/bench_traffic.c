/* The cost of traffic: 100 autopilot vehicles, each with a collision sensor, on the town map
** (tests/data/town.xodr, 36 traffic lights) at dt 0.05 on one thread, through the public API.
**
** Traffic: the scene's `traffic: {vehicles: 100}` driving for SIM seconds after WARM seconds.
** Fixed: the same scene and vehicles, each given a constant control through
** sn_engine_apply_control (which turns its autopilot off): parked, brake 1, so physics still
** steps every body and its four wheels but no controller runs. Best of REPS; the `ratio` line
** divides the traffic step by the fixed step (the controllers' and lights' share), the `target`
** line compares the real-time factor with the 50x aimed at. Times are never asserted.
** argv[1]: temp folder, argv[2]: plugin folder, argv[3]: tests/data. */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARM 10.0
#define SIM 60.0
#define REPS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_traffic: %s: %s\n", what, err->msg);
    exit(1);
}

/* Seconds of wall time per simulated second. */
static double measure(const char *scene, const char *plugins, bool fixed)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err))
        die("load", &err);
    uint32_t n = sn_engine_actor_count(e), cars[256], nc = 0;
    for (uint32_t i = 0; i < n && nc < 256; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a);
        if (a.kind == SN_ACTOR_VEHICLE)
            cars[nc++] = a.id;
    }
    for (uint32_t i = 0; i < nc; i++) {
        char name[32];
        snprintf(name, sizeof name, "crash_%u", cars[i]);
        sn_actor_desc d = {sizeof d, "sensor.other.collision", name, {{0, 0, 0}, {0, 0, 0}}, cars[i], 0, NULL, 0};
        if (sn_engine_spawn(e, &d, NULL, &err))
            die("collision sensor", &err);
        if (fixed) {
            sn_vehicle_control c = {.brake = 1.0};
            if (sn_engine_apply_control(e, cars[i], &c, &err))
                die("apply_control", &err);
        }
    }
    for (int f = 0; f < (int)(WARM / 0.05); f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    double t0 = now();
    for (int f = 0; f < (int)(SIM / 0.05); f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    double t = now() - t0;
    sn_engine_destroy(e);
    return t / SIM;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_traffic TMP PLUGINS DATA\n");
        return 2;
    }
    char path[1024], text[1024];
    snprintf(path, sizeof path, "%s/bench_traffic.yaml", argv[1]);
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 100, seed: 1}\nmap: %s/town.xodr\n"
             "traffic: {vehicles: 100, seed: 2}\nactors:\n  - {name: ground, blueprint: static.ground}\n",
             argv[3]);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        return 1;
    double best_t = 1e9, best_f = 1e9;
    for (int r = 0; r < REPS; r++) {
        double t = measure(path, argv[2], false), x = measure(path, argv[2], true);
        best_t = t < best_t ? t : best_t;
        best_f = x < best_f ? x : best_f;
    }
    printf("traffic: 100 autopilot vehicles + collision sensors, town map, 1 thread: %.2f ms per frame, "
           "real-time factor %.1fx\n", best_t * 0.05 * 1e3, 1 / best_t);
    printf("fixed:   the same vehicles parked under constant control: %.2f ms per frame, real-time factor %.1fx\n",
           best_f * 0.05 * 1e3, 1 / best_f);
    printf("ratio traffic/fixed step time: %.2f\n", best_t / best_f);
    printf("target real-time factor >= 50x: %.1fx (%s)\n", 1 / best_t, 1 / best_t >= 50 ? "met" : "not met");
    return 0;
}
