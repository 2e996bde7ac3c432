/* The engine's cost per frame against bare ODE stepping the same bodies in the same process,
** at 100, 200, 1 000 and 5 000 vehicles.
**
** Engine: N sedans driving on the ground (throttle 0.3, apart so they never touch), each
** carrying a collision sensor, through the public API. Baseline: the same N chassis boxes
** (same size, mass, start poses) in a bare ODE hash space with the ground plane, the same
** substeps, each held up by four analytic spring-dampers written as the straightforward loop
** an ODE user would write (the peer of issue 25's targets); the same in ODE's sweep-and-prune
** space is printed beside it (ODE's fastest space for this scene: its hash space clears an
** n^2/8-byte table every collide). Per size: the ratio of frame times, in process CPU time,
** best of REPS interleaved so both sides see the same machine, with the absolute figures; then
** the growth exponent of the frame time from the smallest to the largest size (1.00: linear)
** for each, and the resident memory per vehicle (with its sensor) against a bare ODE box,
** each side measured in a fresh process (this program run again) so that neither reuses the
** other's freed pages (memory() below).
** argv[1]: temp folder, argv[2]: plugin folder, argv[3] (optional): one N only (profiling).
** SENSIM_BENCH_ENGINE_SIZES (optional): the sizes, comma-separated, e.g. "200,5000". */
#include "../testutil.h"

#include <ode/ode.h>
#include <unistd.h>
#include <time.h>

#define SUB 5
#define DT 0.05
#define REPS 5
#define MAX_SIZES 8

static const int default_sizes[] = {100, 200, 1000, 5000};

/* About the same vehicle-frames at each size, and at least a few frames. */
static int frames_for(int n)
{
    int f = 40000 / n;
    return f < 12 ? 12 : f > 200 ? 200 : f;
}

/* The process's CPU time, all its threads: on a shared machine with more runnable processes
** than cores, wall time measured mostly the waiting (10x swings); CPU time still moves with
** the cache others leave, less. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Resident memory now, in KiB. */
static long rss_kb(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static void pos_of(int i, double *x, double *y)
{
    *x = (i % 20) * 12.0;
    *y = (i / 20) * 8.0;
}

static dWorldID bw;
static dJointGroupID bg;

/* The usual ODE near callback: contacts with friction between any two touching geoms. */
static void near(void *data, dGeomID a, dGeomID b)
{
    (void)data;
    dBodyID b1 = dGeomGetBody(a), b2 = dGeomGetBody(b);
    if (b1 == b2)
        return;
    dContact c[8];
    int n = dCollide(a, b, 8, &c[0].geom, sizeof c[0]);
    for (int i = 0; i < n; i++) {
        c[i].surface.mode = dContactApprox1;
        c[i].surface.mu = 0.8;
        dJointAttach(dJointCreateContact(bw, bg, &c[i]), b1, b2);
    }
}

/* The peer: bare ODE's world of n boxes. */
typedef struct bare {
    dWorldID w;
    dSpaceID s;
    dJointGroupID g;
    dBodyID *b;
    int n;
} bare;

static void bare_make(bare *o, int n, bool sap)
{
    dInitODE2(0);
    o->n = n;
    o->w = dWorldCreate();
    o->s = sap ? dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ) : dHashSpaceCreate(0);
    o->g = dJointGroupCreate(0);
    bw = o->w;
    bg = o->g;
    dWorldSetGravity(o->w, 0, 0, -9.81);
    dWorldSetQuickStepNumIterations(o->w, 30);
    dCreatePlane(o->s, 0, 0, 1, 0);
    o->b = calloc((size_t)n, sizeof *o->b);
    for (int i = 0; i < n; i++) {
        double x, y;
        pos_of(i, &x, &y);
        o->b[i] = dBodyCreate(o->w);
        dMass m;
        dMassSetBoxTotal(&m, 1500, 4.6, 1.9, 1.5);
        dBodySetMass(o->b[i], &m);
        dBodySetPosition(o->b[i], x, y, 0.75);
        dGeomID geom = dCreateBox(o->s, 4.6, 1.9, 1.2);
        dGeomSetBody(geom, o->b[i]);
        dGeomSetOffsetPosition(geom, 0, 0, 0.15);
    }
}

static void bare_frame(bare *o)
{
    const double k = 1500 * 9.81 / 4 / 0.1, c = 2 * 0.5 * sqrt(k * 375);
    for (int sub = 0; sub < SUB; sub++) {
        for (int i = 0; i < o->n; i++) {
            dBodyID b = o->b[i];
            for (int wh = 0; wh < 4; wh++) {
                dVector3 p, v;
                dBodyGetRelPointPos(b, (wh < 2 ? 1.38 : -1.38), (wh & 1 ? 0.8 : -0.8), -0.45, p);
                double comp = 0.4 - p[2];
                if (comp <= 0)
                    continue;
                dBodyGetPointVel(b, p[0], p[1], p[2], v);
                double load = k * comp - c * v[2];
                if (load > 0)
                    dBodyAddForceAtPos(b, 0, 0, load, p[0], p[1], p[2] - 0.4 + comp);
            }
            dBodyAddRelForce(b, 1800, 0, 0);
        }
        dSpaceCollide(o->s, NULL, near); /* as the engine does; no pair touches */
        dWorldQuickStep(o->w, DT / SUB);
        dJointGroupEmpty(o->g);
    }
}

static void bare_free(bare *o)
{
    free(o->b);
    dJointGroupDestroy(o->g);
    dSpaceDestroy(o->s);
    dWorldDestroy(o->w);
    dCloseODE();
}

/* Seconds per frame of bare ODE with n boxes, in a hash space or in sweep and prune. */
static double bare_time(int n, int frames, bool sap)
{
    bare o;
    bare_make(&o, n, sap);
    bare_frame(&o); /* settle, as the engine's first frame is not timed either */
    double t0 = now();
    for (int f = 0; f < frames; f++)
        bare_frame(&o);
    double t = (now() - t0) / frames;
    bare_free(&o);
    return t;
}

/* The engine's scene of n sedans with collision sensors; caller frees. */
static char *engine_scene(int n, int frames)
{
    size_t cap = (size_t)n * 400 + 4096;
    char *text = malloc(cap), *p = text;
    p += sprintf(p, "settings: {fixed_delta_seconds: %g, frames: %d}\nactors:\n  - {name: ground, blueprint: static.ground}\n",
                 DT, frames + 1);
    for (int i = 0; i < n; i++) {
        double x, y;
        pos_of(i, &x, &y);
        p += sprintf(p, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0]}, control: {throttle: 0.3}}\n", i, x, y);
    }
    p += sprintf(p, "sensors:\n");
    for (int i = 0; i < n; i++)
        p += sprintf(p, "  - {name: crash%d, blueprint: sensor.other.collision, attach_to: car%d}\n", i, i);
    return text;
}

static void engine_step(sn_engine *e)
{
    sn_error err;
    if (sn_engine_step(e, &err) != SN_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        exit(1);
    }
}

/* Seconds per frame of the engine with n vehicles (load and first frame not timed). */
static double engine_time(const char *dir, const char *plugins, int n, int frames)
{
    char *text = engine_scene(n, frames);
    sn_engine *e = tu_load(plugins, tu_write(dir, "bench_engine.yaml", text));
    free(text);
    engine_step(e);
    double t0 = now();
    for (int f = 0; f < frames; f++)
        engine_step(e);
    double t = (now() - t0) / frames;
    sn_engine_destroy(e);
    return t;
}

/* Resident growth (KiB) over making one side and stepping it 4 frames, in this process: the
** engine, or bare ODE in its hash space or (sap) in sweep and prune. */
static long memory_here(const char *dir, const char *plugins, int n, bool engine, bool sap)
{
    long r0, grown;
    if (engine) {
        char *text = engine_scene(n, 4);
        const char *path = tu_write(dir, "bench_engine_mem.yaml", text);
        free(text);
        r0 = rss_kb();
        sn_engine *e = tu_load(plugins, path);
        for (int f = 0; f < 4; f++)
            engine_step(e);
        grown = rss_kb() - r0;
        sn_engine_destroy(e);
    } else {
        r0 = rss_kb();
        bare o;
        bare_make(&o, n, sap);
        for (int f = 0; f < 4; f++)
            bare_frame(&o);
        grown = rss_kb() - r0;
        bare_free(&o);
    }
    return grown;
}

/* The same in a fresh process (this program run again): a child of fork would reuse the pages
** this process has freed and show no growth. -1 when it cannot be run. */
static long memory_fresh(const char *dir, const char *plugins, int n, const char *side)
{
    char self[1024], cmd[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return -1;
    self[len] = 0;
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' memory-%s %d", self, dir, plugins, side, n);
    FILE *p = popen(cmd, "r");
    long kb = -1;
    if (!p)
        return -1;
    if (fscanf(p, "%ld", &kb) != 1)
        kb = -1;
    return pclose(p) == 0 ? kb : -1;
}

/* Memory per vehicle (with its collision sensor) against a bare box at n: resident growth over
** n, each side in a fresh process, against ODE's hash space (the peer, whose collide
** keeps a table growing with n) and its sweep and prune. Then the cost of the vehicles added
** from n/10 to n, which leaves out what a side spends once (the engine: its library, plugin
** and world, about 1.3 MiB more than bare ODE's). */
static void memory(const char *dir, const char *plugins, int n)
{
    const int n0 = n / 10 > 0 ? n / 10 : 1;
    long me = memory_fresh(dir, plugins, n, "engine"), mb = memory_fresh(dir, plugins, n, "ode");
    long ms = memory_fresh(dir, plugins, n, "ode-sap");
    if (me > 0 && mb > 0)
        printf("ratio memory_per_vehicle engine/bare_ode N=%d = %.2f (target <= 2; %.2f vs %.2f KiB per vehicle, "
               "resident growth %ld vs %ld KiB; a vehicle with its collision sensor against a box)\n",
               n, (double)me / mb, (double)me / n, (double)mb / n, me, mb);
    if (me > 0 && ms > 0)
        printf("ratio memory_per_vehicle engine/bare_ode_sap N=%d = %.2f (%.2f vs %.2f KiB per vehicle)\n", n,
               (double)me / ms, (double)me / n, (double)ms / n);
    long me0 = memory_fresh(dir, plugins, n0, "engine"), mb0 = memory_fresh(dir, plugins, n0, "ode");
    if (n > n0 && me > 0 && mb > 0 && me0 > 0 && mb0 > 0 && mb > mb0)
        printf("ratio memory_per_added_vehicle engine/bare_ode N=%d..%d = %.2f (%.2f vs %.2f KiB per added vehicle; "
               "resident growth %ld and %ld vs %ld and %ld KiB)\n", n0, n, (double)(me - me0) / (mb - mb0),
               (double)(me - me0) / (n - n0), (double)(mb - mb0) / (n - n0), me0, me, mb0, mb);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int sizes[MAX_SIZES], n_sizes = 0;
    const char *env = getenv("SENSIM_BENCH_ENGINE_SIZES");
    if (argc > 4 && strncmp(argv[3], "memory-", 7) == 0) {
        printf("%ld\n", memory_here(argv[1], argv[2], atoi(argv[4]), strcmp(argv[3], "memory-engine") == 0,
                                     strcmp(argv[3], "memory-ode-sap") == 0));
        return 0;
    }
    if (argc > 3) {
        sizes[n_sizes++] = atoi(argv[3]);
    } else if (env && *env) {
        for (const char *c = env; *c && n_sizes < MAX_SIZES; c = strchr(c, ',') ? strchr(c, ',') + 1 : c + strlen(c))
            if (atoi(c) > 0)
                sizes[n_sizes++] = atoi(c);
    } else {
        for (size_t k = 0; k < sizeof default_sizes / sizeof *default_sizes; k++)
            sizes[n_sizes++] = default_sizes[k];
    }
    if (!n_sizes)
        return 2;
    printf("engine vs bare ODE: N sedans with collision sensors against N boxes on four springs, %d substeps/frame, "
           "CPU time, best of %d interleaved\n", SUB, REPS);
    double eng[MAX_SIZES], base[MAX_SIZES], sap[MAX_SIZES];
    for (int k = 0; k < n_sizes; k++) {
        int n = sizes[k], frames = frames_for(n);
        eng[k] = base[k] = sap[k] = 1e9;
        for (int rep = 0; rep < REPS; rep++) {
            base[k] = fmin(base[k], bare_time(n, frames, false));
            sap[k] = fmin(sap[k], bare_time(n, frames, true));
            eng[k] = fmin(eng[k], engine_time(argv[1], argv[2], n, frames));
        }
        printf("  N=%-5d engine %.3f ms/frame (%.2f us/vehicle), bare ODE %.3f ms/frame (%.2f us/box), "
               "bare ODE in sweep and prune %.3f ms/frame, %d frames\n", n, eng[k] * 1e3, eng[k] / n * 1e6,
               base[k] * 1e3, base[k] / n * 1e6, sap[k] * 1e3, frames);
        printf("ratio engine/bare_ode N=%d = %.3f (target <= %s; %.3f vs %.3f ms/frame)\n", n, eng[k] / base[k],
               n <= 200 ? "1.15" : "1.30", eng[k] * 1e3, base[k] * 1e3);
        printf("ratio engine/bare_ode_sap N=%d = %.3f (%.3f vs %.3f ms/frame)\n", n, eng[k] / sap[k], eng[k] * 1e3,
               sap[k] * 1e3);
        fflush(stdout);
    }
    if (n_sizes > 1) {
        int a = 0, z = n_sizes - 1;
        double span = log((double)sizes[z] / sizes[a]);
        printf("growth exponent N=%d -> %d: engine %.3f, bare ODE %.3f, bare ODE in sweep and prune %.3f "
               "(target engine <= 1.12; 1.00 is linear)\n", sizes[a], sizes[z], log(eng[z] / eng[a]) / span,
               log(base[z] / base[a]) / span, log(sap[z] / sap[a]) / span);
    }
    memory(argv[1], argv[2], sizes[n_sizes - 1]);
    return 0;
}
