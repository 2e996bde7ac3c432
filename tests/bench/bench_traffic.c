/* The cost of traffic on the town map (tests/data/town.xodr, 36 traffic lights) at dt 0.05 on
** one thread. Times are CPU time of this process (the machine may be shared), best of REPS;
** never asserted.
**
** 1. traffic vs fixed: 100 autopilot vehicles, each with a collision sensor, driving for SIM s
**    after WARM s, against the same vehicles parked under constant control through
**    sn_engine_apply_control (physics steps every body, no controller runs).
** 2. The issue-31 scene: 100 vehicles and 50 walkers; its real-time factor (target 50x).
** 3. rules vs legacy: the same scene with the junction, deadlock and lane-change rules against
**    the autopilot without them (sn_traffic_set_legacy): the rules' cost.
** 4. Growth: the traffic step of N = 25, 50, 100, 200 vehicles (as many as the town's spawn
**    points take), and the exponent k of time ~ N^k fitted over them (target <= 1.1).
** 5. 500 vehicles on a town-sized map: SENSIM_BENCH_BIGMAP=FILE.xodr (e.g. CARLA's Town04,
**    which must not be committed); skipped without it.
** argv[1]: temp folder, argv[2]: plugin folder, argv[3]: tests/data. */
#include "../../engine/sim/engine.h"
#include "../../engine/map/lanemap.h"
#include "../../engine/traffic/traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <malloc.h>
#include <unistd.h>

#define WARM 10.0
#define SIM 40.0
#define REPS 2

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_traffic: %s: %s\n", what, err->msg);
    exit(1);
}

typedef struct cfg {
    bool fixed, sensors, legacy;
    bool hybrid, hero; /* Traffic Manager 8000 in hybrid mode; a parked hero (radius 70 m, CARLA's default) */
} cfg;

/* A braking vehicle with role_name hero at the map's first spawn point with no vehicle within 10 m. */
static void spawn_hero(sn_engine *e)
{
    static sn_transform sp[4096];
    size_t n = 0, k = 0;
    sn_error err = {0};
    if (sn_map_spawn_points(sn_engine_map(e), sp, 4096, &n, &err) != SN_OK)
        die("spawn points", &err);
    for (bool busy = true; busy && k < n; k += busy) {
        busy = false;
        for (size_t i = 0; i < e->world.n_actors && !busy; i++)
            busy = e->world.actors[i]->kind == SN_ACTOR_VEHICLE &&
                   sn_v3_len(sn_v3_sub(e->world.actors[i]->st.pos, sp[k].location)) < 10;
    }
    if (k == n)
        die("hero", &(sn_error){.msg = "no free spawn point"});
    sp[k].location.z += 0.3;
    const sn_attribute role = {"role_name", "hero"};
    sn_actor_desc d = {sizeof d, "vehicle.sedan", "hero", sp[k], 0, 0, &role, 1};
    uint32_t id = 0;
    sn_vehicle_control brake = {.brake = 1};
    if (sn_engine_spawn(e, &d, &id, &err) || sn_engine_apply_control(e, id, &brake, &err))
        die("hero", &err);
}

/* The share of vehicles standing (under 0.3 m/s) in the last measure(), sampled every 20th frame
** outside the timing: a jam makes per-vehicle work grow without an algorithmic cause. */
static double g_standing;

static double standing_share(sn_engine *e)
{
    uint32_t n = sn_engine_actor_count(e), nv = 0, ns = 0;
    for (uint32_t i = 0; i < n; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a);
        if (a.kind != SN_ACTOR_VEHICLE)
            continue;
        nv++;
        ns += sn_v3_len(a.velocity) < 0.3;
    }
    return nv ? (double)ns / nv : 0;
}

/* CPU seconds per simulated second; *n_veh: the vehicles spawned. */
static double measure(const char *scene, const char *plugins, cfg c, uint32_t *n_veh)
{
    sn_error err = {0};
    /* SENSIM_BENCH_THREADS: the engine's threads (the traffic step itself runs on one) */
    const int threads = getenv("SENSIM_BENCH_THREADS") ? atoi(getenv("SENSIM_BENCH_THREADS")) : 1;
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads > 0 ? threads : 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err))
        die("load", &err);
    if (c.legacy)
        sn_traffic_set_legacy(e, true);
    if (c.hybrid && sn_engine_tm_set(e, 8000, 0, SN_TM_HYBRID_PHYSICS_MODE, 1, &err))
        die("hybrid mode", &err);
    if (c.hero)
        spawn_hero(e);
    uint32_t n = sn_engine_actor_count(e), nc = 0;
    uint32_t *cars = malloc((n + 1) * sizeof *cars);
    for (uint32_t i = 0; i < n; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e, sn_engine_actor_id_at(e, i), &a);
        if (a.kind == SN_ACTOR_VEHICLE)
            cars[nc++] = a.id;
    }
    for (uint32_t i = 0; i < nc; i++) {
        if (c.sensors) {
            char name[32];
            snprintf(name, sizeof name, "crash_%u", cars[i]);
            sn_actor_desc d = {sizeof d, "sensor.other.collision", name, {{0, 0, 0}, {0, 0, 0}}, cars[i], 0, NULL, 0};
            if (sn_engine_spawn(e, &d, NULL, &err))
                die("collision sensor", &err);
        }
        if (c.fixed) {
            sn_vehicle_control ctl = {.brake = 1.0};
            if (sn_engine_apply_control(e, cars[i], &ctl, &err))
                die("apply_control", &err);
        }
    }
    free(cars);
    if (n_veh)
        *n_veh = nc;
    for (int f = 0; f < (int)(WARM / 0.05); f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    double t0 = cpu(), t_out = 0, st = 0;
    int ns = 0;
    for (int f = 0; f < (int)(SIM / 0.05); f++) {
        if (sn_engine_step(e, &err))
            die("step", &err);
        if (f % 20 == 19) {
            double t1 = cpu();
            st += standing_share(e), ns++;
            t_out += cpu() - t1;
        }
    }
    double t = cpu() - t0 - t_out;
    g_standing = ns ? st / ns : 0;
    sn_engine_destroy(e);
    return t / SIM;
}

static double best(const char *scene, const char *plugins, cfg c, uint32_t *n_veh)
{
    double b = 1e9;
    for (int r = 0; r < REPS; r++) {
        double t = measure(scene, plugins, c, n_veh);
        b = t < b ? t : b;
    }
    return b;
}

static const char *write_scene(const char *tmp, const char *name, const char *map, uint32_t vehicles, uint32_t walkers)
{
    static char path[8][1024];
    static int k;
    char *p = path[k++ % 8], text[2048];
    snprintf(p, 1024, "%s/%s", tmp, name);
    snprintf(text, sizeof text,
             "settings: {fixed_delta_seconds: 0.05, duration: 100, seed: 1}\nmap: %s\n"
             "traffic: {vehicles: %u, walkers: %u, seed: 2}\nactors:\n  - {name: ground, blueprint: static.ground}\n",
             map, vehicles, walkers);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        exit(1);
    return p;
}

/* The heap in use (KiB), malloc's count: resident growth would hide the vehicles in the pages
** the map's loading freed. */
static long heap_kb(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
}

/* Heap growth (KiB) over loading a scene and stepping it 20 frames, in a fresh process (bench_traffic
** TMP PLUGINS memory SCENE), so that no earlier run's free lists serve it. */
static long memory_here(const char *plugins, const char *scene)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    long r0 = heap_kb();
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, scene, &err))
        die("load", &err);
    for (int f = 0; f < 20; f++)
        if (sn_engine_step(e, &err))
            die("step", &err);
    long grown = heap_kb() - r0;
    sn_engine_destroy(e);
    return grown;
}

static long memory_fresh(const char *tmp, const char *plugins, const char *scene)
{
    char cmd[4096], self[1024];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = 0;
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' memory '%s'", self, tmp, plugins, scene);
    FILE *p = popen(cmd, "r");
    long kb = -1;
    if (!p)
        return -1;
    if (fscanf(p, "%ld", &kb) != 1)
        kb = -1;
    return pclose(p) == 0 ? kb : -1;
}

/* n sedans on a ground plane without a map, 12 m x 8 m apart, braking (the car on flat ground). */
static const char *write_flat(const char *tmp, uint32_t n)
{
    static char path[2][1024];
    static int k;
    char *p = path[k++ % 2];
    snprintf(p, 1024, "%s/bench_traffic_flat_%u.yaml", tmp, n);
    FILE *f = fopen(p, "w");
    if (!f)
        exit(1);
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 1}\nactors:\n  - {name: ground, blueprint: static.ground}\n");
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "  - {name: car%u, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0.5]}, control: {brake: 1}}\n", i,
                (i % 20) * 12.0, (i / 20) * 8.0);
    if (fclose(f))
        exit(1);
    return p;
}

/* 500 vehicles on a town-sized map: the real-time factor (target 20x), the same vehicles parked
** (the physics alone), the growth exponent from 100 to 500 and the memory per vehicle added from
** 100 to 500 against sedans on a ground plane (target <= 2x). */
static void bigmap(const char *tmp, const char *plugins, const char *big)
{
    const uint32_t want[] = {100, 200, 500};
    double lx[3], ly[3], t500 = 0, fixed500 = 0, fixed100 = 0;
    uint32_t got[3] = {0};
    for (int i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "bench_traffic_big%u.yaml", want[i]);
        const char *sc = write_scene(tmp, name, big, want[i], 0);
        double t = best(sc, plugins, (cfg){0}, &got[i]);
        lx[i] = log((double)got[i]), ly[i] = log(t);
        printf("  %u vehicles on %s (of %u asked), 1 thread: %.2f ms CPU per frame (%.2f us per vehicle), real-time factor %.1fx\n",
               got[i], big, want[i], t * 0.05 * 1e3, t * 0.05 * 1e6 / got[i], 1 / t);
        if (i == 0)
            fixed100 = best(sc, plugins, (cfg){.fixed = true}, NULL);
        if (i == 2) {
            t500 = t;
            fixed500 = best(sc, plugins, (cfg){.fixed = true}, NULL);
        }
        fflush(stdout);
    }
    printf("ratio big-map real-time factor of %u vehicles: %.1f (target >= 20; %.2f ms CPU per frame; parked under "
           "constant control %.2f ms, traffic/parked %.2f)\n",
           got[2], 1 / t500, t500 * 0.05 * 1e3, fixed500 * 0.05 * 1e3, t500 / fixed500);
    double mx = (lx[0] + lx[1] + lx[2]) / 3, my = (ly[0] + ly[1] + ly[2]) / 3, sxy = 0, sxx = 0;
    for (int i = 0; i < 3; i++)
        sxy += (lx[i] - mx) * (ly[i] - my), sxx += (lx[i] - mx) * (lx[i] - mx);
    double k = sxx > 0 ? sxy / sxx : 0;
    printf("ratio big-map growth exponent %u..%u vehicles: %.2f (target <= 1.1: %s); the same vehicles parked: %.2f "
           "(%.2f vs %.2f ms per frame)\n", got[0], got[2], k, k <= 1.1 ? "met" : "not met",
           log(fixed500 / fixed100) / log((double)got[2] / got[0]), fixed500 * 0.05 * 1e3, fixed100 * 0.05 * 1e3);
    /* Hybrid physics (CARLA's set_hybrid_physics_mode): vehicles beyond 70 m of the hero, or all
    ** without one, move along their paths without physics. */
    double h100 = best(write_scene(tmp, "bench_traffic_big100.yaml", big, want[0], 0), plugins, (cfg){.hybrid = true}, NULL);
    const char *s500 = write_scene(tmp, "bench_traffic_big500.yaml", big, want[2], 0);
    double h500 = best(s500, plugins, (cfg){.hybrid = true}, NULL);
    double hh500 = best(s500, plugins, (cfg){.hybrid = true, .hero = true}, NULL);
    printf("ratio big-map real-time factor of %u vehicles in hybrid mode, no hero: %.1f (target >= 20; %.2f ms CPU per frame, "
           "%.2fx full physics' speed; 100 vehicles %.2f ms)\n", got[2], 1 / h500, h500 * 0.05 * 1e3, t500 / h500, h100 * 0.05 * 1e3);
    printf("ratio big-map real-time factor of %u vehicles in hybrid mode, a parked hero (radius 70 m): %.1f (%.2f ms CPU per frame)\n",
           got[2], 1 / hh500, hh500 * 0.05 * 1e3);
    printf("ratio big-map growth exponent %u..%u vehicles in hybrid mode: %.2f\n", got[0], got[2],
           log(h500 / h100) / log((double)got[2] / got[0]));
    fflush(stdout);
    long m0 = memory_fresh(tmp, plugins, write_scene(tmp, "bench_traffic_mem0.yaml", big, want[0], 0));
    long m1 = memory_fresh(tmp, plugins, write_scene(tmp, "bench_traffic_mem1.yaml", big, want[2], 0));
    long f0 = memory_fresh(tmp, plugins, write_flat(tmp, got[0]));
    long f1 = memory_fresh(tmp, plugins, write_flat(tmp, got[2]));
    if (m0 > 0 && m1 > m0 && f0 > 0 && f1 > f0) {
        double per_map = (double)(m1 - m0) / (got[2] - got[0]), per_flat = (double)(f1 - f0) / (got[2] - got[0]);
        printf("ratio memory per vehicle added %u..%u, map traffic / flat ground: %.2f (target <= 2; %.2f vs %.2f KiB; "
               "heap in use %ld..%ld vs %ld..%ld KiB)\n",
               got[0], got[2], per_map / per_flat, per_map, per_flat, m0, m1, f0, f1);
    }
}

/* Driving lane-km of a map outside junctions (the junctions' connectors overlap the roads'
** ends): the room a map has for traffic, for the growth at a constant density below. */
static double lane_km(const char *tmp, const char *plugins, const char *map)
{
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = 1};
    sn_engine *e = sn_engine_create(&o, &err);
    if (!e || sn_engine_load_scene(e, write_scene(tmp, "bench_traffic_km.yaml", map, 0, 0), &err))
        die("load", &err);
    double km = 0;
    const sn_odr *d = e->map ? e->map->odr : NULL;
    for (uint32_t ri = 0; d && ri < d->n_roads; ri++) {
        const sn_odr_road *r = &d->roads[ri];
        for (uint32_t si = 0; r->junction < 0 && si < r->n_sections; si++)
            for (uint32_t li = 0; li < r->sections[si].n_lanes; li++)
                if (r->sections[si].lanes[li].type == SN_LANE_DRIVING)
                    km += (r->sections[si].s_end - r->sections[si].s) / 1000;
    }
    sn_engine_destroy(e);
    return km;
}

/* Hybrid mode alone (bench_traffic TMP PLUGINS hybrid, SENSIM_BENCH_BIGMAP set): 50, 100, 200 and
** 500 vehicles without physics, the cost per vehicle at each and the exponent over 100..500 (issue
** 36 item 6: the growth of the autopilots themselves). */
static void hybrid_growth(const char *tmp, const char *plugins, const char *big)
{
    const uint32_t want[] = {50, 100, 200, 300, 500};
    enum { NC = 5 };
    double t[NC];
    uint32_t got[NC] = {0};
    const char *only = getenv("SENSIM_BENCH_ONLY"); /* one of the counts alone (for a profile) */
    for (int i = 0; i < NC; i++) {
        char name[64];
        if (only && (uint32_t)atoi(only) != want[i])
            continue;
        snprintf(name, sizeof name, "bench_traffic_hyb%u.yaml", want[i]);
        t[i] = best(write_scene(tmp, name, big, want[i], 0), plugins, (cfg){.hybrid = true}, &got[i]);
        printf("  hybrid mode, %u vehicles: %.3f ms CPU per frame (%.2f us per vehicle), real-time factor %.1fx, "
               "%.0f %% standing\n", got[i], t[i] * 0.05 * 1e3, t[i] * 0.05 * 1e6 / got[i], 1 / t[i], 100 * g_standing);
        fflush(stdout);
    }
    if (only)
        return;
    printf("ratio big-map real-time factor of %u vehicles in hybrid mode: %.1f (target >= 20; %.2f ms CPU per frame)\n", got[4],
           1 / t[4], t[4] * 0.05 * 1e3);
    printf("ratio big-map growth exponent %u..%u vehicles in hybrid mode: %.2f (target <= 1.1; %u..%u: %.2f)\n", got[1], got[4],
           log(t[4] / t[1]) / log((double)got[4] / got[1]), got[0], got[4], log(t[4] / t[0]) / log((double)got[4] / got[0]));
    /* The same growth at a constant density (SENSIM_BENCH_TOWN=FILE.xodr, a smaller map): on one
    ** map more cars are also a denser jam (Town04: 15 % standing at 100, 28 % at 500), which no
    ** algorithm removes; here the small map takes the cars per lane-km of the big one's 500, and
    ** the exponent is fitted from it to the big map's 500. The maps differ in more than their
    ** size (a car on Town04 costs more at any density: its highways' long route walks, a map that
    ** outgrows the caches), so this is beside the figure above, not instead of it
    ** (docs/performance.md, tm50). */
    const char *town = getenv("SENSIM_BENCH_TOWN");
    if (!town)
        return;
    const double km_big = lane_km(tmp, plugins, big), km_town = lane_km(tmp, plugins, town);
    const uint32_t n_t = (uint32_t)lround(got[4] * km_town / km_big);
    uint32_t got_t = 0;
    double tt = best(write_scene(tmp, "bench_traffic_hyb_town.yaml", town, n_t, 0), plugins, (cfg){.hybrid = true}, &got_t);
    printf("  hybrid mode, the small map (%.1f lane-km; the big one %.1f), %u vehicles (%u asked, %.1f a lane-km): %.3f ms CPU "
           "per frame (%.2f us per vehicle), %.0f %% standing\n", km_town, km_big, got_t, n_t, got_t / km_town,
           tt * 0.05 * 1e3, tt * 0.05 * 1e6 / got_t, 100 * g_standing);
    printf("ratio growth exponent at a constant density, %u vehicles on the small map ..%u on the big one, hybrid mode: %.2f\n",
           got_t, got[4], log(t[4] / tt) / log((double)got[4] / got_t));
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: bench_traffic TMP PLUGINS DATA\n");
        return 2;
    }
    const char *tmp = argv[1], *plugins = argv[2];
    if (argc > 4 && !strcmp(argv[3], "memory")) {
        printf("%ld\n", memory_here(plugins, argv[4]));
        return 0;
    }
    if (!strcmp(argv[3], "big")) { /* the town-sized map alone */
        const char *big = getenv("SENSIM_BENCH_BIGMAP");
        if (!big)
            return fprintf(stderr, "bench_traffic: big needs SENSIM_BENCH_BIGMAP=FILE.xodr\n"), 2;
        bigmap(tmp, plugins, big);
        return 0;
    }
    if (!strcmp(argv[3], "hybrid")) { /* hybrid mode's growth on the town-sized map alone */
        const char *big = getenv("SENSIM_BENCH_BIGMAP");
        if (!big)
            return fprintf(stderr, "bench_traffic: hybrid needs SENSIM_BENCH_BIGMAP=FILE.xodr\n"), 2;
        hybrid_growth(tmp, plugins, big);
        return 0;
    }
    char town[1024];
    snprintf(town, sizeof town, "%s/town.xodr", argv[3]);

    /* 1. */
    const char *s100 = write_scene(tmp, "bench_traffic.yaml", town, 100, 0);
    double t_traffic = best(s100, plugins, (cfg){.sensors = true}, NULL);
    double t_fixed = best(s100, plugins, (cfg){.sensors = true, .fixed = true}, NULL);
    printf("traffic: 100 autopilot vehicles + collision sensors, town map, 1 thread: %.2f ms CPU per frame, "
           "real-time factor %.1fx\n", t_traffic * 0.05 * 1e3, 1 / t_traffic);
    printf("fixed:   the same vehicles parked under constant control: %.2f ms per frame, real-time factor %.1fx\n",
           t_fixed * 0.05 * 1e3, 1 / t_fixed);
    printf("ratio traffic/fixed step time: %.2f\n", t_traffic / t_fixed);

    /* 2, 3. */
    const char *s150 = write_scene(tmp, "bench_traffic_walkers.yaml", town, 100, 50);
    double t_rules = best(s150, plugins, (cfg){0}, NULL);
    double t_legacy = best(s150, plugins, (cfg){.legacy = true}, NULL);
    printf("engine: 100 vehicles + 50 walkers, town, 1 thread: %.2f ms CPU per frame, real-time factor %.1fx; "
           "without the junction and lane-change rules %.2f ms (%.1fx)\n",
           t_rules * 0.05 * 1e3, 1 / t_rules, t_legacy * 0.05 * 1e3, 1 / t_legacy);
    printf("ratio rules/legacy step time (100 vehicles + 50 walkers): %.3f\n", t_rules / t_legacy);
    printf("target real-time factor >= 50x: %.1fx (%s)\n", 1 / t_rules, 1 / t_rules >= 50 ? "met" : "not met");

    /* 4. Growth: the traffic step time minus nothing (the whole frame), fitted in log-log. */
    const uint32_t want[] = {25, 50, 100, 200};
    double lx[4], ly[4];
    int np = 0;
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "bench_traffic_n%u.yaml", want[i]);
        uint32_t got = 0;
        double t = best(write_scene(tmp, name, town, want[i], 0), plugins, (cfg){0}, &got);
        printf("  %u vehicles (of %u asked): %.3f ms CPU per frame\n", got, want[i], t * 0.05 * 1e3);
        if (np && got <= (uint32_t)exp(lx[np - 1]))
            continue; /* the town took no more */
        lx[np] = log((double)got), ly[np] = log(t), np++;
    }
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (int i = 0; i < np; i++)
        mx += lx[i] / np, my += ly[i] / np;
    for (int i = 0; i < np; i++)
        sxy += (lx[i] - mx) * (ly[i] - my), sxx += (lx[i] - mx) * (lx[i] - mx);
    double k = sxx > 0 ? sxy / sxx : 0;
    printf("ratio growth exponent of the frame's cost in the number of vehicles: %.2f (target <= 1.1: %s)\n", k,
           k <= 1.1 ? "met" : "not met");

    /* 5. */
    const char *big = getenv("SENSIM_BENCH_BIGMAP");
    if (big)
        bigmap(tmp, plugins, big);
    else
        printf("500 vehicles on a town-sized map: skipped (set SENSIM_BENCH_BIGMAP=FILE.xodr)\n");
    return 0;
}
