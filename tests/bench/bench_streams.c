/* Stream writing against dd, to the same folder, in the same run (issue 25 item 4).
**
** A 1280x720 depth camera with its float depth (7.4 MB a message) over an empty world runs
** FRAMES frames through the public API three ways in each round: with a listener that does
** nothing (the messages are serialised, nothing is written), with its stream in the folder too,
** and `dd if=/dev/zero bs=1M` writing as many bytes there. What writing the stream costs the
** run is (run with the stream) - (run with the listener only), finishing included (every byte
** handed to the kernel); its throughput is bytes / that cost, printed beside dd's and as a
** ratio. Serialising is on both sides: it is what any consumer costs (docs/outputs.md). Twice: a disk folder
** (argv[1], the build's temp folder) and tmpfs (/dev/shm) when there is one. Best of ROUNDS
** alternating rounds, each side after a `sync` (no write-back of the other's pages to pay).
** The run timers (sn_run_stats) say where the frame loop's time went.
** argv[1]: temp folder, argv[2]: camera plugin folder. */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5
#define FRAMES 60

static const char *plugins;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void sh(const char *cmd)
{
    if (system(cmd) != 0) {
        fprintf(stderr, "bench_streams: failed: %s\n", cmd);
        exit(1);
    }
}

static void ignore(const sn_message *m, void *user) { (void)m, (void)user; }

/* Seconds to step the scene FRAMES frames and finish (loading excluded), with a listener that
** does nothing and the stream in `out`, or no stream. */
static double run(const char *scene, const char *out, sn_run_stats *stats)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err) || (out && sn_engine_open_outputs(e, out, &err)) ||
        sn_engine_listen_all(e, ignore, NULL, &err)) {
        fprintf(stderr, "bench_streams: %s\n", err.msg);
        exit(1);
    }
    sn_engine_set_frames(e, FRAMES);
    double t0 = now();
    if (sn_engine_run(e, 0, &err)) {
        fprintf(stderr, "bench_streams: %s\n", err.msg);
        exit(1);
    }
    double t = now() - t0;
    stats->struct_size = sizeof *stats;
    sn_engine_stats(e, stats, NULL);
    sn_engine_destroy(e);
    return t;
}

static double min(double a, double b) { return a < b ? a : b; }

static void measure(const char *scene, const char *dir, const char *label)
{
    char out[4200], path[4300], cmd[9000];
    snprintf(out, sizeof out, "%s/run", dir);
    snprintf(path, sizeof path, "%s/cam.msgpack", out);
    double t_none = 1e30, t_out = 1e30, t_dd = 1e30;
    sn_run_stats s_none = {0}, s_out = {0}, s;
    struct stat st = {0};
    for (int r = 0; r < ROUNDS; r++) {
        /* each side starts with no dirty pages of the other's to write back */
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s/dd.bin' && sync", out, dir);
        sh(cmd);
        double t = run(scene, NULL, &s);
        if (t < t_none)
            t_none = t, s_none = s;
        sh("sync");
        t = run(scene, out, &s);
        if (t < t_out)
            t_out = t, s_out = s;
        if (stat(path, &st) != 0) {
            fprintf(stderr, "bench_streams: no %s\n", path);
            exit(1);
        }
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && sync", out);
        sh(cmd);
        snprintf(cmd, sizeof cmd, "dd if=/dev/zero of='%s/dd.bin' bs=1M count=%lld status=none", dir,
                 (long long)(st.st_size >> 20));
        double a = now();
        sh(cmd);
        t_dd = min(t_dd, now() - a);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s/dd.bin'", out, dir);
    sh(cmd);
    double mb = (double)st.st_size / 1e6, dd_mb = (double)((st.st_size >> 20) << 20) / 1e6;
    double t_write = t_out - t_none;
    if (t_write <= 1e-6)
        t_write = 1e-6; /* within the noise: the stream cost the run nothing measurable */
    printf("streams  %-5s %.0f MB (%d frames 1280x720 depth + float) in %s: run %.3f s with the stream, %.3f s "
           "with a listener only; writing costs %.3f s = %.0f MB/s; dd bs=1M %.0f MB/s (%.3f s)\n",
           label, mb, FRAMES, dir, t_out, t_none, t_out - t_none, mb / t_write, dd_mb / t_dd, t_dd);
    printf("streams  %-5s timers with the stream: world %.3f s, sensors %.3f s, output %.3f s (serialise %.3f s); "
           "%.3f s in write(2) (%.0f MB/s); listener only: output %.3f s, serialise %.3f s\n",
           label, s_out.time_world, s_out.time_sensors, s_out.time_output, s_out.time_serialize, s_out.time_write,
           mb / (s_out.time_write > 1e-6 ? s_out.time_write : 1e-6), s_none.time_output, s_none.time_serialize);
    printf("ratio stream_vs_dd_%s %.2f\n", label, (mb / t_write) / (dd_mb / t_dd));
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    plugins = argv[2];
    char dir[2048], scene[2100], fast[64];
    snprintf(dir, sizeof dir, "%s/bench_streams", argv[1]);
    snprintf(scene, sizeof scene, "%s/stream.yaml", dir);
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    sh(cmd);
    FILE *f = fopen(scene, "w");
    if (!f)
        return 1;
    fputs("settings: {frames: 60}\nsensors:\n  - {name: cam, blueprint: sensor.camera.depth,"
          " attributes: {image_size_x: 1280, image_size_y: 720, depth_float: true}}\n", f);
    fclose(f);
    measure(scene, dir, "disk");
    if (access("/dev/shm", W_OK) == 0) {
        snprintf(fast, sizeof fast, "/dev/shm/sensim_streams_%d", (int)getpid());
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", fast);
        sh(cmd);
        measure(scene, fast, "tmpfs");
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fast);
        sh(cmd);
    }
    return 0;
}
