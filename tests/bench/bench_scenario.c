/* The cost of playing OpenSCENARIO (engine/scenario), on one thread:
**   - the cut-in (scenarios/cut-in.xosc) at dt 0.01 with no sensors, to its StopTrigger: the
**     real-time factor (simulated over wall seconds, the target is 2000x), against a plain scene
**     of the same actors (two sedans on the same map, physics-driven at constant control, the same
**     frames): the `ratio` line is the scenario's step time over the plain scene's;
**   - the same cut-in wrapped with the demo's sensors (scenes/scenario_cut_in.yaml: a 160x90 camera
**     at 2 Hz, a radar, a collision sensor) at its dt 0.05, outputs off;
**   - loading the scenario (sn_xosc_load: libxml2, parameters, the storyboard) against a bare
**     libxml2 parse of the same file.
** Best of REPS each; times are never asserted. argv[1]: source root, argv[2]: plugin folder,
** argv[3]: temp folder. */
#include "../../engine/scenario/xosc.h"
#include "best_ms.h"

#include <libxml/parser.h>
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 5

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_scenario: %s: %s\n", what, err->msg);
    exit(1);
}

/* Best wall seconds of stepping `path` (its whole run), and the frames and simulated time. */
static double run(const char *path, const char *plugins, const char *const *sets, size_t n_sets, uint64_t *frames,
                  double *sim)
{
    double best = 1e30;
    for (int k = 0; k < REPS; k++) {
        sn_error err = {0};
        sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
        sn_engine *e = sn_engine_create(&o, &err);
        if (!e || sn_engine_load_scene_with_overrides(e, path, sets, n_sets, &err))
            die(path, &err);
        double t0 = bench_now();
        if (sn_engine_run(e, 0, &err))
            die("run", &err);
        double t = bench_now() - t0;
        best = t < best ? t : best;
        sn_run_stats s = {.struct_size = sizeof s};
        sn_engine_stats(e, &s, NULL);
        *frames = s.frames;
        *sim = s.sim_time;
        sn_engine_destroy(e);
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_scenario SRC PLUGINS TMP\n");
        return 2;
    }
    char xosc[1024], wrap[1024], plain[1024];
    snprintf(xosc, sizeof xosc, "%s/scenarios/cut-in.xosc", argv[1]);
    snprintf(wrap, sizeof wrap, "%s/scenes/scenario_cut_in.yaml", argv[1]);
    snprintf(plain, sizeof plain, "%s/bench_scenario_plain.yaml", argv[3]);

    const char *sets[] = {"settings.fixed_delta_seconds=0.01"};
    uint64_t frames;
    double sim;
    double t_sc = run(xosc, argv[2], sets, 1, &frames, &sim);
    /* the plain scene: the cut-in's two cars where it puts them, the same frames */
    FILE *f = fopen(plain, "w");
    if (!f) {
        perror(plain);
        return 1;
    }
    fprintf(f, "map: %s/maps/highway.xodr\nsettings: {fixed_delta_seconds: 0.01, frames: %llu}\nactors:\n"
               "  - {name: Ego, blueprint: vehicle.sedan, transform: {location: [41.4, 7.125, 0.02]}, velocity: [25, 0, 0],"
               " control: {throttle: 0.3}}\n"
               "  - {name: Target, blueprint: vehicle.sedan, transform: {location: [21.4, 3.375, 0.02]}, velocity: [30, 0, 0],"
               " control: {throttle: 0.3}}\n",
            argv[1], (unsigned long long)frames);
    fclose(f);
    uint64_t pframes;
    double psim;
    double t_plain = run(plain, argv[2], NULL, 0, &pframes, &psim);
    printf("scenario: cut-in, %llu frames (%.2f s simulated) in %.2f ms: real-time factor %.0fx (target 2000x)\n",
           (unsigned long long)frames, sim, t_sc * 1e3, sim / t_sc);
    printf("plain: the same two cars as a scene, %llu frames in %.2f ms: real-time factor %.0fx\n",
           (unsigned long long)pframes, t_plain * 1e3, psim / t_plain);
    printf("ratio: scenario step / plain scene step = %.2f\n", (t_sc / (double)frames) / (t_plain / (double)pframes));

    uint64_t wframes;
    double wsim;
    double t_w = run(wrap, argv[2], NULL, 0, &wframes, &wsim);
    printf("with sensors: scenes/scenario_cut_in.yaml (camera, radar, collision), %llu frames (%.2f s) in %.1f ms: "
           "real-time factor %.0fx\n", (unsigned long long)wframes, wsim, t_w * 1e3, wsim / t_w);

    sn_xosc *x = NULL;
    sn_error err = {0};
    double ms_load = BEST_MS((sn_xosc_load(xosc, NULL, 0, &x, &err) ? die("load", &err) : (void)0, sn_xosc_free(x)), 20);
    double ms_xml = BEST_MS(xmlFreeDoc(xmlReadFile(xosc, NULL, XML_PARSE_NONET)), 20);
    printf("load: sn_xosc_load %.3f ms, bare libxml2 parse %.3f ms: ratio %.2f\n", ms_load, ms_xml, ms_load / ms_xml);
    return 0;
}
