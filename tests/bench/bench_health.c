/* The cost of the traffic-health observer (engine/traffic/health.c): 100 autopilot vehicles on
** the town map (tests/data/town.xodr, 36 lights and their stop lines) at dt 0.05 on one thread,
** stepped for SIM seconds after WARM, with the observer and without it (SENSIM_BENCH_NO_HEALTH,
** read when an engine is created). Best of REPS each, in CPU time; the `ratio` line divides the first by the
** second. Times are never asserted. argv[1]: temp folder, argv[2]: tests/data. */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WARM 5.0
#define SIM 30.0
#define REPS 3

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the machine may be busy */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds per simulated second. */
static double measure(const char *scene, const char *tmp)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = tmp, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err)) {
        fprintf(stderr, "bench_health: %s\n", err.msg);
        exit(1);
    }
    for (int f = 0; f < (int)(WARM / 0.05); f++)
        sn_engine_step(e, &err);
    double t0 = now();
    for (int f = 0; f < (int)(SIM / 0.05); f++)
        if (sn_engine_step(e, &err)) {
            fprintf(stderr, "bench_health: %s\n", err.msg);
            exit(1);
        }
    double t = (now() - t0) / SIM;
    sn_engine_destroy(e);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    char scene[1024];
    snprintf(scene, sizeof scene, "%s/bench_health.yaml", argv[1]);
    FILE *f = fopen(scene, "w");
    if (!f)
        return 1;
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
               "actors:\n  - {name: ground, blueprint: static.ground}\ntraffic: {vehicles: 100, seed: 2}\n", argv[2]);
    fclose(f);
    double with = 1e9, without = 1e9;
    for (int r = 0; r < REPS; r++) {
        unsetenv("SENSIM_BENCH_NO_HEALTH");
        double a = measure(scene, argv[1]);
        setenv("SENSIM_BENCH_NO_HEALTH", "1", 1);
        double b = measure(scene, argv[1]);
        with = a < with ? a : with;
        without = b < without ? b : without;
    }
    unsetenv("SENSIM_BENCH_NO_HEALTH");
    printf("with the health observer: %.3f ms a frame (%.0fx real time)\n", with * 0.05 * 1e3, 1 / with);
    printf("without it:               %.3f ms a frame (%.0fx real time)\n", without * 0.05 * 1e3, 1 / without);
    printf("ratio %.3f (the observer's share of a frame of 100 autopilot vehicles)\n", with / without);
    return 0;
}
