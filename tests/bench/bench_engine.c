/* The engine's cost per frame against bare ODE stepping the same bodies in the same process.
**
** Engine: N sedans driving on the ground (throttle 0.3, apart so they never touch), each
** carrying a collision sensor, through the public API. Baseline: the same N chassis boxes
** (same size, mass, start poses) in a bare ODE hash space with the ground plane, the same
** substeps, each held up by four analytic spring-dampers written as the straightforward loop
** an ODE user would write. Prints the ratio, frames per second and peak memory per actor.
** argv[1]: temp folder, argv[2]: plugin folder, argv[3] (optional): N (default 200). */
#include "../testutil.h"

#include <ode/ode.h>
#include <unistd.h>
#include <time.h>

#define FRAMES 400
#define SUB 5
#define DT 0.05

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Resident memory now, in KiB (a peak would be set by whichever side ran first). */
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

static double bare_ode(int n)
{
    dInitODE2(0);
    dWorldID w = dWorldCreate();
    dSpaceID s = dHashSpaceCreate(0);
    dJointGroupID g = dJointGroupCreate(0);
    bw = w;
    bg = g;
    dWorldSetGravity(w, 0, 0, -9.81);
    dWorldSetQuickStepNumIterations(w, 30);
    dCreatePlane(s, 0, 0, 1, 0);
    dBodyID *b = calloc((size_t)n, sizeof *b);
    for (int i = 0; i < n; i++) {
        double x, y;
        pos_of(i, &x, &y);
        b[i] = dBodyCreate(w);
        dMass m;
        dMassSetBoxTotal(&m, 1500, 4.6, 1.9, 1.5);
        dBodySetMass(b[i], &m);
        dBodySetPosition(b[i], x, y, 0.75);
        dGeomID geom = dCreateBox(s, 4.6, 1.9, 1.2);
        dGeomSetBody(geom, b[i]);
        dGeomSetOffsetPosition(geom, 0, 0, 0.15);
    }
    double k = 1500 * 9.81 / 4 / 0.1, c = 2 * 0.5 * sqrt(k * 375);
    double t0 = now();
    for (int f = 0; f < FRAMES; f++) {
        for (int sub = 0; sub < SUB; sub++) {
            for (int i = 0; i < n; i++) {
                for (int wh = 0; wh < 4; wh++) {
                    dVector3 p, v;
                    dBodyGetRelPointPos(b[i], (wh < 2 ? 1.38 : -1.38), (wh & 1 ? 0.8 : -0.8), -0.45, p);
                    double comp = 0.4 - p[2];
                    if (comp <= 0)
                        continue;
                    dBodyGetPointVel(b[i], p[0], p[1], p[2], v);
                    double load = k * comp - c * v[2];
                    if (load > 0)
                        dBodyAddForceAtPos(b[i], 0, 0, load, p[0], p[1], p[2] - 0.4 + comp);
                }
                dBodyAddRelForce(b[i], 1800, 0, 0);
            }
            dSpaceCollide(s, NULL, near); /* as the engine does; no pair touches */
            dWorldQuickStep(w, DT / SUB);
            dJointGroupEmpty(g);
        }
    }
    double t = (now() - t0) / FRAMES;
    free(b);
    dJointGroupDestroy(g);
    dSpaceDestroy(s);
    dWorldDestroy(w);
    dCloseODE();
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = argc > 3 ? atoi(argv[3]) : 200;
    size_t cap = (size_t)n * 400 + 4096;
    char *text = malloc(cap), *p = text;
    p += sprintf(p, "settings: {fixed_delta_seconds: %g, frames: %d}\nactors:\n  - {name: ground, blueprint: static.ground}\n", DT, FRAMES);
    for (int i = 0; i < n; i++) {
        double x, y;
        pos_of(i, &x, &y);
        p += sprintf(p, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0]}, control: {throttle: 0.3}}\n", i, x, y);
    }
    p += sprintf(p, "sensors:\n");
    for (int i = 0; i < n; i++)
        p += sprintf(p, "  - {name: crash%d, blueprint: sensor.other.collision, attach_to: car%d}\n", i, i);

    /* Best of three, interleaved, so both sides see the same machine noise. */
    double base = 1e9, eng = 1e9;
    long rss0 = 0, rss1 = 0;
    for (int rep = 0; rep < 3; rep++) {
        base = fmin(base, bare_ode(n));
        if (rep == 0)
            rss0 = rss_kb();
        sn_engine *e = tu_load(argv[2], tu_write(argv[1], "bench.yaml", text));
        sn_error err;
        double t0 = now();
        for (int f = 0; f < FRAMES; f++)
            if (sn_engine_step(e, &err) != SN_OK) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
        eng = fmin(eng, (now() - t0) / FRAMES);
        if (rep == 0)
            rss1 = rss_kb();
        sn_engine_destroy(e);
    }
    free(text);
    printf("engine vs bare ODE, %d vehicles with collision sensors, %d substeps/frame:\n", n, SUB);
    printf("  ratio %.3f (target <= 1.10)\n", eng / base);
    printf("  engine %.3f ms/frame (%.0f frames/s), bare ODE %.3f ms/frame (%.0f frames/s)\n", eng * 1e3, 1 / eng,
           base * 1e3, 1 / base);
    printf("  memory %.1f KiB per actor (resident growth over load and run) \n    %d actors + %d sensors, %ld KiB in all\n",
           (double)(rss1 - rss0) / (2 * n + 1), n + 1, n, rss1 - rss0);
    return 0;
}
