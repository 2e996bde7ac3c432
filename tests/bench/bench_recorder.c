/*
** bench_recorder.c — what recording costs and gives, all measured in this run:
**   ratio  recording overhead: CPU time of a 100-vehicle run with the recorder over the same
**          run without it (alternated, best of 3; target <= 1.05)
**   engine bytes per actor and frame (target < 28, CARLA's position record alone)
**   engine seek to the middle, query and replay speed on the recording made here
** argv: tmp dir, plugin dir.
*/
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#define VEHICLES 100

static double cpu(void) { return (double)clock() / CLOCKS_PER_SEC; }

static double run(const char *scene, const char *plugins, const char *rec, uint64_t frames)
{
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_error err;
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    sn_record_options ro = {sizeof ro, rec, false, 0};
    if (rec && sn_engine_record(e, &ro, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double t0 = cpu();
    if (sn_engine_run(e, frames, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
    double t = cpu() - t0;
    sn_engine_destroy(e);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *tmp = argv[1], *plugins = argv[2];
    char scene[512], rec[512];
    snprintf(scene, sizeof scene, "%s/bench_rec.yaml", tmp);
    snprintf(rec, sizeof rec, "%s/bench.sensimrec", tmp);
    FILE *f = fopen(scene, "w");
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 3}\nactors:\n  - {name: g, blueprint: static.ground}\n");
    for (int i = 0; i < VEHICLES; i++) /* ten lanes, cars accelerating and steering gently */
        fprintf(f, "  - {blueprint: vehicle.sedan, transform: {location: [%d, %d, 0.75]}, velocity: [%d, 0, 0], "
                   "control: {throttle: %.2f, steer: %.2f}}\n",
                (i / 10) * 12, (i % 10) * 6, 5 + i % 7, 0.2 + 0.05 * (i % 5), 0.01 * (i % 3 - 1));
    fclose(f);
    const uint64_t frames = 400;
    double base = 1e9, with = 1e9;
    for (int k = 0; k < 3; k++) {
        base = fmin(base, run(scene, plugins, NULL, frames));
        with = fmin(with, run(scene, plugins, rec, frames));
    }
    struct stat st;
    stat(rec, &st);
    printf("ratio recording/plain %.3f (%d vehicles, %llu frames: %.3f s vs %.3f s CPU; target <= 1.05)\n",
           with / base, VEHICLES, (unsigned long long)frames, with, base);
    printf("engine recording bytes per actor and frame %.2f (%lld bytes; CARLA's position record alone: 28)\n",
           (double)st.st_size / ((double)frames * VEHICLES), (long long)st.st_size);

    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true};
    sn_error err;
    sn_recording *r = sn_recording_open(rec, &o, &err);
    if (!r) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    const sn_log_frame *fr;
    double t0 = cpu();
    int seeks = 50;
    for (int k = 0; k < seeks; k++) {
        sn_recording_seek(r, 10.0 - 0.05 * (k % 5), &err);
        sn_recording_next(r, &fr, &err);
    }
    double seek = (cpu() - t0) / seeks;
    t0 = cpu();
    sn_recording_seek(r, 0, &err);
    uint64_t n = 0;
    while (sn_recording_next(r, &fr, &err) == SN_OK)
        n++;
    double scan = cpu() - t0;
    FILE *null = fopen("/dev/null", "w");
    t0 = cpu();
    sn_recording_print_blocked(r, null, 30, 10, false, &err);
    double query = cpu() - t0;
    fclose(null);
    sn_recording_close(r);
    printf("engine recording seek to the middle %.3f ms (%llu frames x %d actors; 1-hour file not measured)\n",
           seek * 1e3, (unsigned long long)n, VEHICLES);
    printf("engine recording read %.0f frames/s, blocked query %.3f s for %.0f s recorded\n", n / fmax(scan, 1e-9),
           query, frames * 0.05);
    sn_engine *e = sn_engine_create(&o, &err);
    sn_replay_options ro = {.struct_size = sizeof ro};
    if (!e || sn_engine_load_replay(e, rec, &ro, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    t0 = cpu();
    sn_engine_run(e, 0, &err);
    double rp = cpu() - t0;
    sn_engine_destroy(e);
    printf("engine replay %.0f frames/s (%d kinematic vehicles, no sensors)\n", frames / fmax(rp, 1e-9), VEHICLES);
    return 0;
}
