/* The top-space broadphase (engine/world/dbp.h) against an O(n^2) AABB scan and ODE's sweep
** and prune: random boxes, spheres and cylinders in columns along y (sweep and prune's bad
** case), on bodies of one, two or no geoms, with random category and collide bits, plus a
** level, a tilted and an x-facing plane, a 10 km slab, a nested space, a disabled and a
** zero-sized geom; moved, teleported, added and removed over many rounds. Each round: every
** pair exactly once, in the fixed order, the same set as the scan's, and as sweep and prune's
** less the pairs whose boxes do not meet (it calls planes with every geom). Then two engines
** on a pile-up, one on ODE's sweep and prune (SENSIM_BENCH_ODE_SAP): on the same state the
** same near calls; the same contacts, pairs and states every frame until vehicles crash into
** each other, where the other contact order parts them by rounding (see test_stepping).
** argv[1]: a temp folder. */
#include "../../engine/core/rng.h"
#include "../../engine/sim/engine.h"
#include "../check.h"

#include <stdint.h>
#include <stdlib.h>

#define MAX_CALLS 65536

typedef struct calls {
    dGeomID g1[MAX_CALLS], g2[MAX_CALLS];
    size_t n;
} calls;

static void record(void *data, dGeomID g1, dGeomID g2)
{
    calls *c = data;
    if (c->n < MAX_CALLS)
        c->g1[c->n] = g1, c->g2[c->n] = g2;
    c->n++;
}

typedef struct pair {
    uintptr_t a, b; /* a < b */
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* The calls as sorted unordered pairs. */
static size_t to_pairs(const calls *c, pair *out)
{
    size_t n = c->n < MAX_CALLS ? c->n : MAX_CALLS;
    for (size_t i = 0; i < n; i++) {
        uintptr_t a = (uintptr_t)c->g1[i], b = (uintptr_t)c->g2[i];
        out[i] = a < b ? (pair){a, b} : (pair){b, a};
    }
    qsort(out, n, sizeof *out, cmp_pair);
    return n;
}

static bool boxes_meet(dGeomID g1, dGeomID g2)
{
    dReal a[6], c[6];
    dGeomGetAABB(g1, a);
    dGeomGetAABB(g2, c);
    return !(a[0] > c[1] || a[1] < c[0] || a[2] > c[3] || a[3] < c[2] || a[4] > c[5] || a[5] < c[4]);
}

static double uni(sn_rng *g, double lo, double hi) { return lo + (hi - lo) * sn_rng_uniform(g); }

#define N_BODIES 300
#define N_LOOSE 120

typedef struct scene {
    dWorldID world;
    dSpaceID space, sub;
    dBodyID body[N_BODIES];
    dGeomID loose[N_LOOSE];
    dGeomID disabled, zero;
} scene;

static const unsigned long bits[] = {1, 2, 4, 1 | 4, ~0ul, 2 | 8};

static dGeomID random_geom(sn_rng *g, dSpaceID space)
{
    double u = sn_rng_uniform(g), s = sn_rng_uniform(g) < 0.1 ? 12 : 3;
    dGeomID geom;
    if (u < 0.5)
        geom = dCreateBox(space, uni(g, 0.1, s), uni(g, 0.1, s), uni(g, 0.1, 3));
    else if (u < 0.75)
        geom = dCreateSphere(space, uni(g, 0.05, s / 2));
    else
        geom = dCreateCylinder(space, uni(g, 0.05, s / 2), uni(g, 0.1, 4));
    dGeomSetCategoryBits(geom, bits[(int)(sn_rng_uniform(g) * 6)]);
    dGeomSetCollideBits(geom, bits[(int)(sn_rng_uniform(g) * 6)]);
    return geom;
}

/* A point in one of 8 columns 20 m apart along y, as cars queue on streets. */
static void place(sn_rng *g, double p[3])
{
    p[0] = 20 * (int)(sn_rng_uniform(g) * 8) + uni(g, -1.5, 1.5);
    p[1] = uni(g, -150, 150);
    p[2] = uni(g, -1, 4);
}

static void rotate(sn_rng *g, dBodyID b, dGeomID geom)
{
    dMatrix3 r;
    dRFromEulerAngles(r, uni(g, -0.5, 0.5), uni(g, -0.5, 0.5), uni(g, 0, 6.3));
    if (b)
        dBodySetRotation(b, r);
    else
        dGeomSetRotation(geom, r);
}

static void build(scene *s, sn_rng *g)
{
    s->world = dWorldCreate();
    s->space = dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ);
    double p[3];
    for (int i = 0; i < N_BODIES; i++) {
        s->body[i] = dBodyCreate(s->world);
        place(g, p);
        dBodySetPosition(s->body[i], p[0], p[1], p[2]);
        rotate(g, s->body[i], NULL);
        int geoms = i % 3 == 0 ? 2 : 1; /* a third carry two geoms (a chassis and its crash box) */
        for (int k = 0; k < geoms; k++) {
            dGeomID geom = random_geom(g, s->space);
            dGeomSetBody(geom, s->body[i]);
            if (k)
                dGeomSetOffsetPosition(geom, uni(g, -1, 1), uni(g, -1, 1), uni(g, -0.5, 0.5));
        }
    }
    for (int i = 0; i < N_LOOSE; i++) { /* no body: props and other statics */
        s->loose[i] = random_geom(g, s->space);
        place(g, p);
        dGeomSetPosition(s->loose[i], p[0], p[1], p[2]);
        rotate(g, NULL, s->loose[i]);
    }
    dCreatePlane(s->space, 0, 0, 1, 0);                            /* the ground */
    dCreatePlane(s->space, 0.2, 0.1, 0.97, 0.5);                   /* a slope: AABB infinite */
    dCreatePlane(s->space, 1, 0, 0, 150);                          /* x <= 150: finite max x */
    dGeomID slab = dCreateBox(s->space, 10000, 10000, 1);          /* a 10 km slab */
    dGeomSetPosition(slab, 0, 0, -0.5);
    s->sub = dHashSpaceCreate(s->space);                           /* the statics as one geom */
    for (int i = 0; i < 20; i++) {
        dGeomID b = dCreateBox(s->sub, 4, 4, 4);
        place(g, p);
        dGeomSetPosition(b, p[0], p[1], p[2]);
    }
    s->disabled = dCreateBox(s->space, 2, 2, 2);
    dGeomDisable(s->disabled);
    s->zero = dCreateBox(s->space, 0, 2, 2);
}

/* One round: bodies drift, some jump; a loose geom goes and another comes. */
static void move(scene *s, sn_rng *g, int round)
{
    double p[3];
    for (int i = 0; i < N_BODIES; i++) {
        const dReal *q = dBodyGetPosition(s->body[i]);
        if (sn_rng_uniform(g) < 0.05) {
            place(g, p);
            dBodySetPosition(s->body[i], p[0], p[1], p[2]);
        } else {
            dBodySetPosition(s->body[i], q[0] + uni(g, -0.3, 0.3), q[1] + uni(g, -2, 2), q[2] + uni(g, -0.2, 0.2));
        }
        if (sn_rng_uniform(g) < 0.2)
            rotate(g, s->body[i], NULL);
    }
    int k = round % N_LOOSE;
    dGeomDestroy(s->loose[k]);
    s->loose[k] = random_geom(g, s->space);
    place(g, p);
    dGeomSetPosition(s->loose[k], p[0], p[1], p[2]);
    dGeomSetPosition(s->disabled, p[0], p[1], p[2]);
    dGeomSetPosition(s->zero, p[0], p[1] + 1, p[2]);
}

static calls got, scan, sap;
static pair pg[MAX_CALLS], ps[MAX_CALLS], pp[MAX_CALLS];

static void test_pairs(void)
{
    sn_world w; /* for ODE's set-up only */
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_rng g;
    sn_rng_seed(&g, 42);
    scene s;
    build(&s, &g);
    sn_dbp b;
    sn_dbp_init(&b);
    int bad_order = 0, bad_scan = 0, bad_sap = 0, with_planes = 0, with_sub = 0, with_zero = 0;
    size_t most = 0;
    for (int round = 0; round < 40; round++) {
        if (round)
            move(&s, &g, round);
        got.n = scan.n = sap.n = 0;
        CHECK(sn_dbp_collide_space(&b, s.space, &got, record), "round %d: the grid is built", round);
        /* The fixed order: the space's list order (unchanged since the collide), pairs i < j
        ** ascending in i then j. */
        int n = dSpaceGetNumGeoms(s.space);
        int prev_i = -1, prev_j = -1;
        for (size_t c = 0; c < got.n && c < MAX_CALLS; c++) {
            int i = -1, j = -1;
            for (int k = 0; k < n; k++) {
                dGeomID x = dSpaceGetGeom(s.space, k);
                i = x == got.g1[c] ? k : i;
                j = x == got.g2[c] ? k : j;
            }
            bad_order += !(i >= 0 && i < j && (i > prev_i || (i == prev_i && j > prev_j)));
            prev_i = i, prev_j = j;
            with_planes += dGeomGetClass(got.g1[c]) == dPlaneClass || dGeomGetClass(got.g2[c]) == dPlaneClass;
            with_sub += got.g1[c] == (dGeomID)s.sub || got.g2[c] == (dGeomID)s.sub;
        }
        /* The scan: ODE's collideAABBs for every pair of enabled, sized geoms. */
        for (int i = 0; i < n; i++) {
            dGeomID g1 = dSpaceGetGeom(s.space, i);
            if (g1 == s.disabled || g1 == s.zero)
                continue;
            for (int j = i + 1; j < n; j++) {
                dGeomID g2 = dSpaceGetGeom(s.space, j);
                if (g2 == s.disabled || g2 == s.zero)
                    continue;
                dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
                if ((b1 && b1 == b2) || !((dGeomGetCategoryBits(g1) & dGeomGetCollideBits(g2)) ||
                                          (dGeomGetCategoryBits(g2) & dGeomGetCollideBits(g1))))
                    continue;
                if (boxes_meet(g1, g2))
                    record(&scan, g1, g2);
            }
        }
        dSpaceCollide(s.space, &sap, record);
        size_t kept = 0;
        for (size_t c = 0; c < sap.n && c < MAX_CALLS; c++) {
            with_zero += sap.g1[c] == s.zero || sap.g2[c] == s.zero || sap.g1[c] == s.disabled || sap.g2[c] == s.disabled;
            if (boxes_meet(sap.g1[c], sap.g2[c])) /* sweep and prune calls planes with everything */
                sap.g1[kept] = sap.g1[c], sap.g2[kept++] = sap.g2[c];
        }
        sap.n = kept;
        CHECK(got.n < MAX_CALLS && scan.n < MAX_CALLS && sap.n < MAX_CALLS, "round %d: %zu calls fit", round, got.n);
        size_t ng = to_pairs(&got, pg), ns = to_pairs(&scan, ps), np = to_pairs(&sap, pp);
        bad_scan += ng != ns || memcmp(pg, ps, ng * sizeof *pg) != 0;
        bad_sap += ng != np || memcmp(pg, pp, ng * sizeof *pg) != 0;
        most = got.n > most ? got.n : most;
    }
    CHECK(bad_order == 0, "%d calls out of the fixed order, or repeated", bad_order);
    CHECK(bad_scan == 0, "%d rounds' pairs differ from the AABB scan", bad_scan);
    CHECK(bad_sap == 0, "%d rounds' pairs differ from sweep and prune", bad_sap);
    CHECK(with_zero == 0, "sweep and prune skips disabled and zero-sized geoms too (%d calls)", with_zero);
    CHECK(with_planes > 1000 && with_sub > 40 && most > 1000, "the rounds exercise planes (%d), the nested space (%d) "
          "and many pairs (%zu)", with_planes, with_sub, most);
    /* Huge and infinite boxes go to the list tested against all, the rest in cells. */
    CHECK(b.n_big == 5, "the slab, the nested space (300 m), two unbounded planes and the half-space in x "
          "are big: %zu", b.n_big);
    CHECK(b.cell >= 1 && b.cell < 10, "cell edge from the median geom: %g m", b.cell);
    sn_dbp_free(&b);
    dSpaceDestroy(s.space);
    dWorldDestroy(s.world);
    sn_world_free(&w);
}

/* ---- two engines ------------------------------------------------------------------------ */

static const char *write_scene(const char *dir)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/dyn_bp.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    /* pileup.yaml's kind: lanes of cars and trucks at 35 m/s into a barrier, and walkers
    ** crossing in front of it. */
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 5}\nactors:\n  - {name: ground, blueprint: static.ground}\n"
               "  - {name: barrier, blueprint: static.prop.box, transform: {location: [40, 0, 1]}, "
               "attributes: {extent: \"1,12,1\", semantic_tag: GuardRail}}\n");
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < 12; i++)
            fprintf(f, "  - {name: car_%d_%02d, blueprint: vehicle.%s, transform: {location: [%d, %d, 0]}, "
                       "velocity: [%d, 0, 0], control: {throttle: 1}}\n",
                    l, i, i % 7 == 3 ? "truck" : "sedan", -(8 * i + 2 * l), 4 * l - 6, 35 - i % 3);
    for (int i = 0; i < 6; i++)
        fprintf(f, "  - {name: ped%d, blueprint: walker.pedestrian, transform: {location: [%d, -10, 0.9]}, "
                   "control: {direction: [0, 1, 0], speed: 1.5}}\n", i, 25 + 2 * i);
    fclose(f);
    return path;
}

static size_t world_calls;

static bool same_world_calls(sn_engine *e)
{
    sn_world *w = &e->world;
    got.n = sap.n = 0;
    sn_dbp_collide_world(w, &got, record);
    dSpaceCollide(w->space, &sap, record);
    size_t kept = 0;
    for (size_t c = 0; c < sap.n && c < MAX_CALLS; c++)
        if (boxes_meet(sap.g1[c], sap.g2[c]))
            sap.g1[kept] = sap.g1[c], sap.g2[kept++] = sap.g2[c];
    sap.n = kept;
    size_t ng = to_pairs(&got, pg), np = to_pairs(&sap, pp);
    world_calls += ng;
    return ng == np && memcmp(pg, pp, ng * sizeof *pg) == 0;
}

static sn_engine *load(const char *scene, bool ode_sap)
{
    sn_error err = {0};
    sn_engine_options o = {.quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    CHECK(e != NULL, "engine: %s", err.msg);
    if (!e)
        return NULL;
    if (ode_sap)
        setenv("SENSIM_BENCH_ODE_SAP", "1", 1);
    else /* the grid at this small size too (worlds use it from SN_DBP_MIN_GEOMS geoms) */
        setenv("SENSIM_BENCH_DBP_ALWAYS", "1", 1);
    sn_status st = sn_engine_load_scene(e, scene, &err);
    unsetenv("SENSIM_BENCH_ODE_SAP");
    unsetenv("SENSIM_BENCH_DBP_ALWAYS");
    CHECK(st == SN_OK, "load: %s", err.msg);
    CHECK(e->world.dbp.ode_sap == ode_sap, "the switch took");
    return st == SN_OK ? e : (sn_engine_destroy(e), NULL);
}

static void test_stepping(const char *dir)
{
    const char *scene = write_scene(dir);
    CHECK(scene != NULL, "cannot write the scene in %s", dir);
    if (!scene)
        return;
    sn_engine *e[2] = {load(scene, false), load(scene, true)};
    if (!e[0] || !e[1])
        return;
    int bad_contacts = 0, bad_pairs = 0, bad_states = 0, first_bad = 0, first_drift = 0, first_touch = 0, bad_world = 0;
    double drift_then = 0;
    size_t most_contacts = 0, vehicle_pairs = 0;
    for (int frame = 1; frame <= 60; frame++) {
        for (int k = 0; k < 2; k++) {
            sn_error err = {0};
            CHECK(sn_engine_step(e[k], &err) == SN_OK, "step %d: %s", frame, err.msg);
        }
        const sn_world *a = &e[0]->world, *b = &e[1]->world;
        int bad = a->n_contacts != b->n_contacts;
        bad_contacts += bad;
        bad_pairs += a->n_pairs != b->n_pairs || (a->n_pairs && memcmp(a->pairs, b->pairs, a->n_pairs * sizeof *a->pairs));
        double drift = 0;
        for (size_t i = 0; i < a->n_actors && a->n_actors == b->n_actors; i++) {
            bad_states += memcmp(&a->actors[i]->st, &b->actors[i]->st, sizeof a->actors[i]->st) != 0;
            drift = fmax(drift, sn_v3_len(sn_v3_sub(a->actors[i]->st.pos, b->actors[i]->st.pos)));
        }
        if (bad_states && !first_drift)
            first_drift = frame, drift_then = drift;
        if (!first_touch)
            for (size_t i = 0; i < a->n_pairs; i++) {
                const sn_actor *s = sn_world_find(a, a->pairs[i].self), *o = sn_world_find(a, a->pairs[i].other);
                first_touch = s && o && s->kind == SN_ACTOR_VEHICLE && o->kind == SN_ACTOR_VEHICLE ? frame : first_touch;
            }
        /* On engine 0's own state, mid-crash: the near calls through the grid are sweep and
        ** prune's (less its plane calls whose boxes do not meet), the world's order kept. */
        if (frame >= 20 && frame % 4 == 0)
            bad_world += !same_world_calls(e[0]);
        first_bad = first_bad ? first_bad : bad ? frame : 0;
        most_contacts = a->n_contacts > most_contacts ? a->n_contacts : most_contacts;
        for (size_t i = 0; i < a->n_pairs; i++) {
            const sn_actor *s = sn_world_find(a, a->pairs[i].self), *o = sn_world_find(a, a->pairs[i].other);
            vehicle_pairs += s && o && s->kind == SN_ACTOR_VEHICLE && o->kind == SN_ACTOR_VEHICLE;
        }
    }
    fprintf(stderr, "pile-up: most contacts in a substep %zu, vehicle pairs %zu; frames differing: contacts %d "
                    "(first %d), pairs %d, states %d\n", most_contacts, vehicle_pairs, bad_contacts, first_bad,
            bad_pairs, bad_states);
    CHECK(most_contacts > 100 && vehicle_pairs > 100, "a pile-up: %zu contacts, %zu vehicle pairs", most_contacts,
          vehicle_pairs);
    CHECK(bad_world == 0 && world_calls > 200, "%d frames' near calls (%zu) differ from sweep and prune's on the "
          "same state", bad_world, world_calls);
    /* The same contacts until the pile-up's first rounding difference: both feed QuickStep
    ** the same contacts, in another order, and within an island of several contact joints
    ** the order changes the last bits of the solution (sweep and prune orders them by x);
    ** a chaotic pile-up then grows those bits into other contacts frames later. A missed or
    ** extra contact would move a body by millimetres at once. */
    fprintf(stderr, "pile-up: first vehicle-vehicle pair at frame %d, first state difference at frame %d "
                    "(at most %.3g m)\n", first_touch, first_drift, drift_then);
    CHECK(first_touch > 0 && first_drift >= first_touch && drift_then < 1e-9,
          "states stay identical until vehicles crash (frame %d), then part by rounding only (frame %d: %.3g m)",
          first_touch, first_drift, drift_then);
    CHECK(first_bad == 0 || first_bad > first_drift, "contacts counts equal until the states part (frame %d, %d)",
          first_bad, first_drift);
    sn_engine_destroy(e[0]);
    sn_engine_destroy(e[1]);
}

/* A prop riding on a car: the grid walks the bodies' geom lists while one exists (the count
** follows spawn and removal), and its calls are sweep and prune's on the same state either way
** (vehicles' boxes computed from their bodies included). */
static void test_riders(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/dyn_bp_riders.yaml", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fprintf(f, "settings: {fixed_delta_seconds: 0.05}\nactors:\n  - {name: ground, blueprint: static.ground}\n"
               "  - {name: wall, blueprint: static.prop.box, transform: {location: [7, 0, 1]}, attributes: {extent: \"0.5,6,1\"}}\n");
    for (int i = 0; i < 3; i++)
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%d, %d, 0]}, control: {throttle: 1}}\n",
                i, -6 * i, 2 * (i % 2));
    fprintf(f, "  - {name: shell, blueprint: static.prop.box, attach_to: car0, transform: {location: [0, 0, 1.8]}, "
               "attributes: {extent: \"0.5,0.5,0.2\"}}\n");
    fclose(f);
    sn_engine *e = load(path, false);
    if (!e)
        return;
    CHECK(e->world.n_riders == 1, "one prop rides on a body: %zu", e->world.n_riders);
    int bad = 0;
    size_t before = world_calls;
    for (int frame = 1; frame <= 40; frame++) {
        sn_error err = {0};
        CHECK(sn_engine_step(e, &err) == SN_OK, "step %d: %s", frame, err.msg);
        if (frame == 20) {
            const sn_actor *shell = sn_world_find_name(&e->world, "shell");
            CHECK(shell && sn_engine_destroy_actor(e, shell->id, &err) == SN_OK, "destroy the prop: %s", err.msg);
            CHECK(e->world.n_riders == 0, "no prop rides after its removal: %zu", e->world.n_riders);
        }
        bad += !same_world_calls(e);
    }
    CHECK(bad == 0 && world_calls > before + 20, "%d frames' near calls differ from sweep and prune's", bad);
    sn_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    test_pairs();
    test_stepping(argv[1]);
    test_riders(argv[1]);
    return CHECK_DONE();
}
