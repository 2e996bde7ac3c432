/* The top space's sweep and prune made again (engine/world/sap.h) against ODE's own: on random
** scenes, sn_sap_collide makes exactly the near calls dSpaceCollide makes on the same space, the
** same geoms in the same argument order and in the same order, round after round. The scenes:
** boxes (chassis with an offset crash box), spheres and cylinders in streets along x and y on
** both sides of x = 0, bodies of one, two or no geoms, random category and collide bits, exact
** twins (equal min x: ODE's ties, kept in its last order and reversed below zero) and near
** twins (min x apart by less than a float's step), boxes whose x-intervals meet or part within
** a float's step (ODE compares the min x as float), planes (infinite boxes, one with a finite
** max x), a 10 km slab, a nested space, a disabled and a zero-sized geom; moved a little (ODE's
** ranks kept), not at all (its early out), teleported, geoms added and removed, enabled and
** disabled (a new count: ranks from the list order). argv: none. */
#include "../../engine/world/sap.h"
#include "../../engine/world/world.h"
#include "../check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 200000

typedef struct calls {
    dGeomID (*g)[2];
    size_t n;
} calls;

static void record(void *data, dGeomID g1, dGeomID g2)
{
    calls *c = data;
    if (c->n < MAX_CALLS)
        c->g[c->n][0] = g1, c->g[c->n][1] = g2;
    c->n++;
}

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static double rnd(void) /* xorshift64*, uniform in [0, 1) */
{
    rs ^= rs >> 12, rs ^= rs << 25, rs ^= rs >> 27;
    return (double)((rs * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}
static double uni(double a, double b) { return a + (b - a) * rnd(); }

#define N_BODIES 260
#define N_LOOSE 60

static const unsigned long bits[] = {1, 2, 4, 1 | 4, ~0ul, 2 | 8};

static dGeomID random_geom(dSpaceID space)
{
    double u = rnd(), s = rnd() < 0.1 ? 12 : 3;
    dGeomID geom;
    if (u < 0.6)
        geom = dCreateBox(space, uni(0.1, s), uni(0.1, s), uni(0.1, 3));
    else if (u < 0.8)
        geom = dCreateSphere(space, uni(0.05, s / 2));
    else
        geom = dCreateCylinder(space, uni(0.05, s / 2), uni(0.1, 4));
    dGeomSetCategoryBits(geom, bits[(int)(rnd() * 6)]);
    dGeomSetCollideBits(geom, bits[(int)(rnd() * 6)]);
    return geom;
}

/* On one of 6 streets along y or 6 along x, 25 m apart, centred on 0 (x of both signs). */
static void place(double p[3])
{
    double street = 25 * ((int)(rnd() * 6) - 2.5), along = uni(-90, 90), side = uni(-1.5, 1.5);
    if (rnd() < 0.5)
        p[0] = street + side, p[1] = along;
    else
        p[0] = along, p[1] = street + side;
    p[2] = uni(-1, 3);
}

static void rotate(dBodyID b, dGeomID g)
{
    dMatrix3 r;
    dRFromEulerAngles(r, uni(-0.3, 0.3), uni(-0.3, 0.3), uni(0, 6.3));
    if (b)
        dBodySetRotation(b, r);
    else
        dGeomSetRotation(g, r);
}

typedef struct scene {
    dWorldID world;
    dSpaceID space, sub;
    dBodyID body[N_BODIES];
    dGeomID loose[N_LOOSE];
    dGeomID disabled, zero;
} scene;

/* Body i + 1 copies body i's pose when i is a twin's first (every 7th): equal boxes. */
static bool twin_first(int i) { return i % 7 == 0 && i + 1 < N_BODIES; }

static void copy_pose(scene *s, int to, int from, double dx)
{
    const dReal *p = dBodyGetPosition(s->body[from]);
    dBodySetPosition(s->body[to], p[0] + dx, p[1], p[2]);
    dBodySetRotation(s->body[to], dBodyGetRotation(s->body[from]));
}

static void build(scene *s)
{
    s->world = dWorldCreate();
    s->space = dSweepAndPruneSpaceCreate(0, dSAP_AXES_XYZ);
    double p[3];
    for (int i = 0; i < N_BODIES; i++) {
        s->body[i] = dBodyCreate(s->world);
        place(p);
        dBodySetPosition(s->body[i], p[0], p[1], p[2]);
        rotate(s->body[i], NULL);
        if (i > 0 && twin_first(i - 1)) {
            copy_pose(s, i, i - 1, 0);
        }
        /* A vehicle: a chassis box and a crash box at an offset (physics.c's pair), or one geom. */
        if (i % 2 == 0 || twin_first(i) || (i > 0 && twin_first(i - 1))) {
            dGeomID c = dCreateBox(s->space, 4.5, 1.9, 1.2);
            dGeomSetBody(c, s->body[i]);
            dGeomSetOffsetPosition(c, 0.1, 0, 0.3);
            dGeomID k = dCreateBox(s->space, 4.6, 2.0, 1.5);
            dGeomSetBody(k, s->body[i]);
            dGeomSetOffsetPosition(k, 0.1, 0, 0.1);
            dGeomSetCategoryBits(c, 2), dGeomSetCollideBits(c, ~(unsigned long)(2 | 4));
            dGeomSetCategoryBits(k, 4), dGeomSetCollideBits(k, 4);
        } else {
            dGeomSetBody(random_geom(s->space), s->body[i]);
        }
    }
    for (int i = 0; i < N_LOOSE; i++) {
        s->loose[i] = random_geom(s->space);
        place(p);
        dGeomSetPosition(s->loose[i], p[0], p[1], p[2]);
        rotate(NULL, s->loose[i]);
    }
    dCreatePlane(s->space, 0, 0, 1, -2);        /* the ground */
    dCreatePlane(s->space, 0.2, 0.1, 0.97, -3); /* a slope */
    dCreatePlane(s->space, 1, 0, 0, 80);        /* x <= 80: an infinite box with a finite max x */
    dGeomID slab = dCreateBox(s->space, 10000, 10000, 1);
    dGeomSetPosition(slab, 0, 0, -1.5);
    s->sub = dHashSpaceCreate(s->space); /* the statics as one geom */
    for (int i = 0; i < 15; i++) {
        dGeomID b = dCreateBox(s->sub, 4, 4, 4);
        place(p);
        dGeomSetPosition(b, p[0], p[1], p[2]);
    }
    /* Seams within a float's step, away from the rest: a's max x is 10.9999999999, 11 as float.
    ** ODE compares x as floats (its min x with the other's max x): b's min x 11.0000001 and c's
    ** 10.9999999, both 11 as float, meet a (b's doubles do not); d's 10.999999 meets a too. The
    ** same along y and z, in double there: b' does not meet a', c' and d' do. */
    const double seam[4] = {9.9999999999, 12.0000001, 11.9999999, 11.999999};
    for (int i = 0; i < 4; i++) {
        dGeomID b = dCreateBox(s->space, 2, 2, 2);
        dGeomSetPosition(b, seam[i], 300, 0);
        b = dCreateBox(s->space, 2, 2, 2);
        dGeomSetPosition(b, 400 + 0.5 * (i > 0), seam[i], 0); /* along y */
        b = dCreateBox(s->space, 2, 2, 2);
        dGeomSetPosition(b, 500 + 0.5 * (i > 0), 0, seam[i]); /* along z */
    }
    s->disabled = dCreateBox(s->space, 2, 2, 2);
    dGeomDisable(s->disabled);
    s->zero = dCreateBox(s->space, 0, 2, 2);
}

/* One round of one of four kinds. */
static void move(scene *s, int round)
{
    const int kind = round % 4; /* 0: drift, 1: still, 2: drift and jumps, 3: geoms come and go */
    double p[3];
    if (kind == 1)
        return;
    for (int i = 0; i < N_BODIES; i++) {
        if (i > 0 && twin_first(i - 1)) {
            /* Exact twin, or one nudged by less than a float step of its min x. */
            copy_pose(s, i, i - 1, rnd() < 0.5 ? 0 : uni(-1e-7, 1e-7));
            continue;
        }
        const dReal *q = dBodyGetPosition(s->body[i]);
        if (kind == 2 && rnd() < 0.1) {
            place(p);
            dBodySetPosition(s->body[i], p[0], p[1], p[2]);
        } else {
            dBodySetPosition(s->body[i], q[0] + uni(-0.4, 0.4), q[1] + uni(-0.4, 0.4), q[2] + uni(-0.05, 0.05));
        }
        if (rnd() < 0.1)
            rotate(s->body[i], NULL);
    }
    if (kind == 3) {
        int k = (int)(rnd() * N_LOOSE);
        dGeomDestroy(s->loose[k]);
        s->loose[k] = random_geom(s->space);
        if (rnd() < 0.5) /* one more or one less: a new count */
            dGeomDestroy(random_geom(s->space));
        else
            random_geom(s->space);
        place(p);
        dGeomSetPosition(s->loose[k], p[0], p[1], p[2]);
        /* A body's geom disabled or enabled again: a new count of enabled geoms. */
        dGeomID g = dBodyGetFirstGeom(s->body[(int)(rnd() * N_BODIES)]);
        if (dGeomIsEnabled(g))
            dGeomDisable(g);
        else
            dGeomEnable(g);
    }
    dGeomSetPosition(s->disabled, p[0], p[1], p[2]);
    dGeomSetPosition(s->zero, p[0], p[1] + 1, p[2]);
}

int main(void)
{
    sn_world w; /* for ODE's set-up only */
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    static calls got, ode;
    got.g = malloc(MAX_CALLS * sizeof *got.g);
    ode.g = malloc(MAX_CALLS * sizeof *ode.g);
    if (!got.g || !ode.g)
        return fprintf(stderr, "out of memory\n"), 1;
    size_t total = 0, ties = 0, with_planes = 0;
    int bad = 0;
    for (int scene_no = 0; scene_no < 3; scene_no++) {
        scene s;
        build(&s);
        sn_sap sap;
        memset(&sap, 0, sizeof sap);
        for (int round = 0; round < 120; round++) {
            if (round)
                move(&s, round);
            if (round % 4 == 3) /* geoms came and went (move's kind 3); the other rounds keep the memo */
                sn_sap_forget(&sap);
            got.n = ode.n = 0;
            sn_sap_collide(&sap, s.space, &got, record); /* cleans the space first, as ODE's */
            dSpaceCollide(s.space, &ode, record);
            CHECK(got.n < MAX_CALLS && ode.n < MAX_CALLS, "calls fit: %zu", ode.n);
            if (got.n != ode.n || memcmp(got.g, ode.g, got.n * sizeof *got.g) != 0) {
                size_t c = 0;
                while (c < got.n && c < ode.n && !memcmp(got.g[c], ode.g[c], sizeof *got.g))
                    c++;
                if (bad++ < 5)
                    fprintf(stderr, "scene %d round %d: %zu calls against ODE's %zu, first difference at %zu\n",
                            scene_no, round, got.n, ode.n, c);
            }
            total += ode.n;
            /* Pairs of twins called (their order is the ties' order). */
            for (size_t c = 0; c < ode.n; c++) {
                dBodyID b1 = dGeomGetBody(ode.g[c][0]), b2 = dGeomGetBody(ode.g[c][1]);
                for (int i = 0; b1 && b2 && i + 1 < N_BODIES; i += 7)
                    ties += (b1 == s.body[i] && b2 == s.body[i + 1]) || (b2 == s.body[i] && b1 == s.body[i + 1]);
                with_planes += dGeomGetClass(ode.g[c][0]) == dPlaneClass;
            }
        }
        sn_sap_free(&sap);
        dSpaceDestroy(s.space);
        dWorldDestroy(s.world);
    }
    CHECK(bad == 0, "%d of 360 rounds' near calls differ from ODE's sweep and prune", bad);
    CHECK(total > 100000 && ties > 1000 && with_planes > 10000,
          "the rounds exercise many calls (%zu), twins' pairs (%zu) and planes (%zu)", total, ties, with_planes);
    printf("sap_order: %zu near calls in 360 rounds, %zu between twins, as ODE's sweep and prune\n", total, ties);
    free(got.g);
    free(ode.g);
    sn_world_free(&w);
    return CHECK_DONE();
}
