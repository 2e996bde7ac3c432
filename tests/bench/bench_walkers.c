/* The cost of walkers that navigate: N walkers of the scene's `traffic:` key on the town map
** (tests/data/town.xodr) at dt 0.05 on one thread, through the public API, N = 50 and 200.
**
** Navigating: the walkers wander (graph routes, kerb waits, avoidance) for SIM seconds after
** WARM seconds. Fixed: the same walkers each given a constant WalkerControl (straight ahead at
** 1.4 m/s; sn_engine_apply_walker_control turns their autopilot off), so physics steps every
** walking body but no navigation runs. CPU time of the process (the machine is shared), best
** of REPS. `ratio` divides the navigating step by the fixed one (navigation's share); `growth`
** is the exponent of the navigating step's cost from 50 to 200 walkers, beside the fixed one's
** (physics' own). Times are never asserted. argv[1]: temp folder, argv[2]: plugin folder,
** argv[3]: tests/data. */
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WARM 5.0
#define SIM 30.0
#define REPS 3

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_walkers: %s: %s\n", what, err->msg);
    exit(1);
}

/* CPU seconds per simulated second. */
static double measure(const char *scene, const char *plugins, bool fixed)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err))
        die("load", &err);
    for (uint32_t i = 0, n = sn_engine_actor_count(e); fixed && i < n; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a);
        if (a.kind != SN_ACTOR_WALKER)
            continue;
        double h = a.transform.rotation.yaw * M_PI / 180;
        sn_walker_control c = {.direction = {cos(h), sin(h), 0}, .speed = 1.4};
        if (sn_engine_apply_walker_control(e, a.id, &c, &err))
            die("apply_walker_control", &err);
    }
    for (int f = 0; f < (int)(WARM / 0.05); f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    double t0 = cpu();
    for (int f = 0; f < (int)(SIM / 0.05); f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    double t = cpu() - t0;
    sn_engine_destroy(e);
    return t / SIM;
}

static void scene(char *path, size_t cap, const char *tmp, const char *data, int walkers)
{
    char text[1024];
    snprintf(path, cap, "%s/bench_walkers_%d.yaml", tmp, walkers);
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 100, seed: 1}\nmap: %s/town.xodr\n"
             "traffic: {walkers: %d, seed: 2}\nactors:\n  - {name: ground, blueprint: static.ground}\n",
             data, walkers);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        exit(1);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_walkers TMP PLUGINS DATA\n");
        return 2;
    }
    const int counts[2] = {50, 200};
    double nav[2], fix[2];
    for (int k = 0; k < 2; k++) {
        char path[1024];
        scene(path, sizeof path, argv[1], argv[3], counts[k]);
        nav[k] = fix[k] = 1e9;
        for (int r = 0; r < REPS; r++) {
            double t = measure(path, argv[2], false), x = measure(path, argv[2], true);
            nav[k] = t < nav[k] ? t : nav[k];
            fix[k] = x < fix[k] ? x : fix[k];
        }
        printf("navigating: %d walkers wandering the town, 1 thread: %.3f ms CPU per frame, real-time factor %.1fx\n",
               counts[k], nav[k] * 0.05 * 1e3, 1 / nav[k]);
        printf("fixed:      the same walkers under constant control: %.3f ms CPU per frame, real-time factor %.1fx\n",
               fix[k] * 0.05 * 1e3, 1 / fix[k]);
        printf("ratio navigating/fixed step time, %d walkers: %.2f\n", counts[k], nav[k] / fix[k]);
    }
    printf("growth exponent 50 -> 200 walkers: navigating %.2f, fixed %.2f\n", log(nav[1] / nav[0]) / log(4.0),
           log(fix[1] / fix[0]) / log(4.0));
    return 0;
}
