/* The static broadphase (engine/world/sbp.h) against ODE's scan of the static space and an
** O(n·m) AABB scan: random statics of every shape and size, a 10 km slab and a 1.5 km wall,
** boxes, spheres and rays as queries, both argument orders; again after statics are added,
** moved (sn_world_teleport, what set_transform does) and removed; spawn-overlap answers equal
** with and without it. Then two engines on one scene, one on ODE's scan
** (SENSIM_BENCH_ODE_STATICS), stepped with cars driving into buildings and props and up a
** ramp, walkers walking into props, statics spawned, moved and destroyed mid-run: the same
** contacts, pairs and states every frame. On the town map (kerbs, sidewalks): the wheels' skip
** of rays with no kerb or prop near (sclear.h) against ODE's answers for random rays, and a
** traffic run with cars steered over kerbs against the same run on ODE's scan, which traces
** every wheel. argv[1]: a temp folder, argv[2]: tests/data. */
#include "../../engine/core/rng.h"
#include "../../engine/sim/engine.h"
#include "../check.h"

#include <stdlib.h>

/* ---- queries --------------------------------------------------------------------------- */

static sn_actor *add_static(sn_world *w, sn_shape shape, sn_vec3 pos, sn_rotation rot, sn_vec3 ext, uint32_t parent)
{
    sn_error err = {0};
    sn_actor *a = sn_world_add(w, SN_ACTOR_STATIC, 0);
    a->shape = shape;
    a->ph->bbox.extent = ext;
    a->parent = parent;
    sn_transform tf = {pos, rot};
    if (parent) { /* pos is relative to the parent, which is not rotated here */
        a->rel = tf;
        tf.location = sn_v3_add(sn_world_find(w, parent)->st.pos, pos);
    }
    CHECK(sn_world_materialize(w, a, &tf, &err) == SN_OK, "materialize: %s", err.msg);
    sn_world_update_attached(w);
    return a;
}

static double uni(sn_rng *g, double lo, double hi) { return lo + (hi - lo) * sn_rng_uniform(g); }

static sn_actor *add_random(sn_world *w, sn_rng *g)
{
    sn_vec3 p = sn_v3(uni(g, -1000, 1000), uni(g, -1000, 1000), uni(g, -2, 15));
    sn_rotation r = {uni(g, -20, 20), uni(g, 0, 360), uni(g, -20, 20)};
    double u = sn_rng_uniform(g), big = sn_rng_uniform(g) < 0.3 ? 40 : 3; /* buildings and props */
    if (u < 0.6)
        return add_static(w, SN_SHAPE_BOX, p, r, sn_v3(uni(g, 0.2, big), uni(g, 0.2, big), uni(g, 0.2, 10)), 0);
    double rad = uni(g, 0.1, big / 4);
    return add_static(w, u < 0.8 ? SN_SHAPE_SPHERE : SN_SHAPE_CYLINDER, p, r, sn_v3(rad, rad, uni(g, 0.2, 6)), 0);
}

typedef struct calls {
    dGeomID g1[4096], g2[4096];
    size_t n;
} calls;

static void record(void *data, dGeomID g1, dGeomID g2)
{
    calls *c = data;
    if (c->n < 4096)
        c->g1[c->n] = g1, c->g2[c->n] = g2;
    c->n++;
}

static bool same_calls(const calls *a, const calls *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n && i < 4096; i++)
        if (a->g1[i] != b->g1[i] || a->g2[i] != b->g2[i])
            return false;
    return true;
}

typedef struct tally {
    int queries, bad_ode, bad_scan, with_hits, multi;
    size_t hits;
} tally;

/* One query geom: the broadphase, ODE's scan and the plain scan make the same calls. */
static void compare(sn_world *w, dGeomID q, bool static_first, const sn_actor *slab, tally *t)
{
    static calls bp, ode, scan;
    bp.n = ode.n = scan.n = 0;
    sn_sbp_collide(w, q, static_first, &bp, record);
    dGeomID ss = (dGeomID)w->static_space;
    dSpaceCollide2(static_first ? ss : q, static_first ? q : ss, &ode, record);
    dReal qb[6], sb[6];
    dGeomGetAABB(q, qb);
    for (int i = 0; i < dSpaceGetNumGeoms(w->static_space); i++) {
        dGeomID s = dSpaceGetGeom(w->static_space, i);
        dGeomGetAABB(s, sb);
        bool bits = (dGeomGetCategoryBits(s) & dGeomGetCollideBits(q)) || (dGeomGetCategoryBits(q) & dGeomGetCollideBits(s));
        if (bits && sn_sbp_boxes_meet(sb, qb))
            static_first ? record(&scan, s, q) : record(&scan, q, s);
    }
    t->queries++;
    t->bad_ode += !same_calls(&bp, &ode);
    t->bad_scan += !same_calls(&bp, &scan);
    t->hits += bp.n;
    size_t others = 0;
    for (size_t i = 0; i < bp.n && i < 4096; i++)
        others += dGeomGetData(static_first ? bp.g1[i] : bp.g2[i]) != slab;
    t->with_hits += others > 0;
    t->multi += others > 1;
}

/* Boxes from car size to building size, spheres, short and long rays, a crash box (meets no
** static), some far outside the field. */
static void query_round(sn_world *w, sn_rng *g, const sn_actor *slab, const char *when)
{
    tally t = {0};
    dGeomID box = dCreateBox(0, 1, 1, 1), sphere = dCreateSphere(0, 1), ray = dCreateRay(0, 1);
    for (int i = 0; i < 3000; i++) {
        double reach = i % 10 == 0 ? 4000 : 1050;
        sn_vec3 p = sn_v3(uni(g, -reach, reach), uni(g, -reach, reach), uni(g, -3, 20));
        dMatrix3 R;
        dRFromEulerAngles(R, uni(g, -0.5, 0.5), uni(g, -0.5, 0.5), uni(g, 0, 6.3));
        dGeomID q;
        switch (i % 4) {
        case 0:
        case 1:
            q = box;
            dGeomBoxSetLengths(box, uni(g, 0.3, 6), uni(g, 0.3, 3), uni(g, 0.3, 3));
            if (i % 8 == 1)
                dGeomBoxSetLengths(box, uni(g, 5, 120), uni(g, 5, 120), uni(g, 1, 30));
            dGeomSetPosition(box, p.x, p.y, p.z);
            dGeomSetRotation(box, R);
            /* a vehicle's crash box meets only crash boxes: never a static */
            dGeomSetCategoryBits(box, i % 16 == 0 ? SN_CAT_CRASH : ~0ul);
            dGeomSetCollideBits(box, i % 16 == 0 ? SN_CAT_CRASH : ~0ul);
            break;
        case 2:
            q = sphere;
            dGeomSphereSetRadius(sphere, uni(g, 0.1, 20));
            dGeomSetPosition(sphere, p.x, p.y, p.z);
            break;
        default:
            q = ray;
            dGeomRaySetLength(ray, i % 12 == 3 ? uni(g, 100, 3000) : uni(g, 0.1, 1.5));
            dGeomRaySet(ray, p.x, p.y, p.z, uni(g, -1, 1), uni(g, -1, 1), uni(g, -1, 0.2));
            break;
        }
        compare(w, q, i & 1, slab, &t);
    }
    dGeomDestroy(box);
    dGeomDestroy(sphere);
    dGeomDestroy(ray);
    CHECK(t.bad_ode == 0, "%s: %d of %d queries differ from ODE's scan", when, t.bad_ode, t.queries);
    CHECK(t.bad_scan == 0, "%s: %d of %d queries differ from the plain AABB scan", when, t.bad_scan, t.queries);
    /* real work: most queries near the field meet the slab and a fair share meet more */
    CHECK(t.with_hits > t.queries / 8 && t.multi > t.queries / 50, "%s: queries meeting statics besides the slab: "
          "%d, more than one: %d of %d", when, t.with_hits, t.multi, t.queries);
    CHECK(w->sbp.built && w->sbp.gen == w->static_gen, "%s: the grid follows the statics", when);
    fprintf(stderr, "%s: %d queries, %zu calls, %d meet statics besides the slab (%d more than one); cell %.1f m, "
            "%zu statics, %zu cell entries, %zu in the big list\n", when, t.queries, t.hits, t.with_hits, t.multi,
            w->sbp.cell, w->sbp.n, w->sbp.n_items, w->sbp.n_big);
}

/* Spawn checks give the same answers through the broadphase and through ODE's scan. */
static void overlap_round(sn_world *w, sn_rng *g, const sn_actor *slab)
{
    sn_actor_phys car_ph = {.reflectivity = -1};
    sn_actor car = {.kind = SN_ACTOR_VEHICLE, .shape = SN_SHAPE_BOX, .ph = &car_ph};
    car.ph->bbox.extent = sn_v3(2.3, 1.0, 0.75);
    car.ph->bbox.location = sn_v3(0, 0, 0.75);
    int bad = 0, overlaps = 0;
    for (int i = 0; i < 300; i++) {
        const sn_actor *near = w->actors[sn_rng_u64(g) % w->n_actors];
        sn_vec3 at = sn_v3_add(near->st.pos, sn_v3(uni(g, -8, 8), uni(g, -8, 8), uni(g, -4, 1)));
        sn_transform tf = {at, {0, uni(g, 0, 360), 0}};
        sn_spawn_overlap a, b;
        w->sbp.ode_only = false;
        bool ha = sn_world_spawn_overlap(w, &car, &tf, &a);
        w->sbp.ode_only = true;
        bool hb = sn_world_spawn_overlap(w, &car, &tf, &b);
        w->sbp.ode_only = false;
        bad += ha != hb || a.other != b.other || memcmp(&a.depth, &b.depth, sizeof a.depth) ||
               memcmp(&a.clear_z, &b.clear_z, sizeof a.clear_z);
        overlaps += ha && a.other != slab;
    }
    CHECK(bad == 0, "%d of 300 spawn checks differ from ODE's scan", bad);
    CHECK(overlaps > 10, "spawn checks meeting a building or prop: %d of 300", overlaps);
}

static void test_queries(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_rng g;
    sn_rng_seed(&g, 7);
    sn_actor *slab = add_static(&w, SN_SHAPE_BOX, sn_v3(0, 0, -0.5), (sn_rotation){0, 0, 0}, sn_v3(5000, 5000, 0.5), 0);
    add_static(&w, SN_SHAPE_BOX, sn_v3(100, -200, 2), (sn_rotation){0, 30, 0}, sn_v3(750, 0.5, 2), 0); /* a long wall */
    sn_actor *shed = add_static(&w, SN_SHAPE_BOX, sn_v3(-50, 60, 2), (sn_rotation){0, 0, 0}, sn_v3(4, 3, 2), 0);
    sn_actor *aerial = add_static(&w, SN_SHAPE_CYLINDER, sn_v3(0, 0, 3), (sn_rotation){0, 0, 0}, sn_v3(0.05, 0.05, 1),
                                  shed->id); /* rides on the shed */
    for (int i = 0; i < 500; i++)
        add_random(&w, &g);
    query_round(&w, &g, slab, "500 statics");
    CHECK(w.sbp.n_big >= 2 && w.sbp.n_big < 20 && w.sbp.big[0] != w.sbp.big[1], "the slab and the wall in the big "
          "list, few others: %zu", w.sbp.n_big);
    CHECK(w.sbp.n_items <= 4 * w.sbp.n + 1024, "cell entries bounded: %zu for %zu statics", w.sbp.n_items, w.sbp.n);
    bool slab_big = false;
    for (size_t i = 0; i < w.sbp.n_big; i++)
        slab_big |= dGeomGetData(w.sbp.g[w.sbp.big[i]].geom) == slab;
    CHECK(slab_big, "the 10 km slab is in the big list");
    overlap_round(&w, &g, slab);

    for (int i = 0; i < 60; i++) /* added mid-run */
        add_random(&w, &g);
    query_round(&w, &g, slab, "60 added");

    /* Moved: random statics and the shed with its aerial; ODE's geoms follow. */
    for (int i = 0; i < 20; i++) {
        sn_actor *a = w.actors[5 + sn_rng_u64(&g) % (w.n_actors - 5)];
        sn_world_teleport(&w, a, sn_v3(uni(&g, -900, 900), uni(&g, -900, 900), uni(&g, 0, 8)),
                          sn_quat_from_rotation((sn_rotation){0, uni(&g, 0, 360), 0}));
    }
    sn_world_teleport(&w, shed, sn_v3(400, 410, 2), sn_quat_identity());
    dReal sb[6], ab[6];
    dGeomGetAABB(shed->ph->geom, sb);
    dGeomGetAABB(aerial->ph->geom, ab);
    CHECK_NEAR((sb[0] + sb[1]) / 2, 400, 1e-9, "the shed's geom moved with it (x)");
    CHECK_NEAR((ab[2] + ab[3]) / 2, 410, 1e-9, "the aerial's geom rode along (y)");
    CHECK_NEAR((ab[4] + ab[5]) / 2, 5, 1e-9, "the aerial's geom rode along (z)");
    query_round(&w, &g, slab, "21 moved");
    overlap_round(&w, &g, slab);

    for (int i = 0; i < 40; i++) /* removed */
        sn_world_remove(&w, w.actors[6 + sn_rng_u64(&g) % (w.n_actors - 6)]->id);
    query_round(&w, &g, slab, "40 removed");
    CHECK(w.sbp.dense, "a town's worth of statics: cells indexed directly");
    /* Two sheds 1 000 km out: the cells' extent is too wide to index, so the table is hashed. */
    add_static(&w, SN_SHAPE_BOX, sn_v3(1e6, 1e6, 2), (sn_rotation){0, 0, 0}, sn_v3(4, 3, 2), 0);
    add_static(&w, SN_SHAPE_BOX, sn_v3(-1e6, 2e5, 2), (sn_rotation){0, 0, 0}, sn_v3(4, 3, 2), 0);
    query_round(&w, &g, slab, "hashed");
    CHECK(!w.sbp.dense, "statics 1 000 km apart: cells hashed");
    sn_world_free(&w);
}

/* Statics too far out for any cell (10^16 m) all go to the big list: no cell at all. */
static void test_far_statics(void)
{
    sn_world w;
    sn_error err = {0};
    CHECK(sn_world_init(&w, 1, &err) == SN_OK, "world: %s", err.msg);
    add_static(&w, SN_SHAPE_BOX, sn_v3(1e16, 0, 0), (sn_rotation){0, 0, 0}, sn_v3(1, 1, 1), 0);
    add_static(&w, SN_SHAPE_SPHERE, sn_v3(-1e16, 5, 0), (sn_rotation){0, 0, 0}, sn_v3(1, 1, 1), 0);
    dGeomID q = dCreateSphere(0, 4);
    const double at[3] = {1e16, -1e16, 0};
    for (int i = 0; i < 3; i++) {
        static calls bp, ode;
        bp.n = ode.n = 0;
        dGeomSetPosition(q, at[i], 0, 0);
        sn_sbp_collide(&w, q, false, &bp, record);
        dSpaceCollide2(q, (dGeomID)w.static_space, &ode, record);
        CHECK(same_calls(&bp, &ode) && bp.n == (i < 2), "far query %d: %zu calls, ODE %zu", i, bp.n, ode.n);
    }
    CHECK(w.sbp.n_big == 2 && w.sbp.n_items == 0, "both in the big list, no cell: %zu, %zu", w.sbp.n_big, w.sbp.n_items);
    dGeomDestroy(q);
    sn_world_free(&w);
}

/* ---- stepping: the same contacts as ODE's scan ----------------------------------------- */

#define LANES 24

static const char *write_scene(const char *dir)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/static_bp.yaml", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return NULL;
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 3}\nactors:\n"
               "  - {name: slab, blueprint: static.prop.box, transform: {location: [0, 0, -0.5]}, "
               "attributes: {extent: \"5000,5000,0.5\", semantic_tag: Roads}}\n");
    /* Lanes 40 m apart: a car that meets a building, a pole, a sphere or a slanted block 9 m
    ** ahead, or climbs a ramp; a walker that walks into a box. */
    for (int i = 0; i < LANES; i++) {
        double x = (i % 6) * 40.0, y = (i / 6) * 40.0, yaw = (i * 37) % 40 - 20;
        double c = cos(yaw * SN_DEG), s = sin(yaw * SN_DEG);
        fprintf(f, "  - {name: car%d, blueprint: vehicle.sedan, transform: {location: [%g, %g, 0], rotation: [0, %g, 0]}, "
                   "control: {throttle: 0.8, steer: %g}}\n", i, x, y, yaw, i % 5 == 4 ? 0 : (i % 5 - 2) * 0.05);
        double ax = x + 11 * c, ay = y + 11 * s;
        switch (i % 5) {
        case 0:
            fprintf(f, "  - {name: obst%d, blueprint: static.building, transform: {location: [%g, %g, 5], rotation: [0, %g, 0]}, "
                       "attributes: {extent: \"3,6,5\"}}\n", i, ax, ay, yaw + 10);
            break;
        case 1:
            fprintf(f, "  - {name: obst%d, blueprint: static.prop.cylinder, transform: {location: [%g, %g, 2]}, "
                       "attributes: {radius: 0.4, height: 4}}\n", i, ax, ay);
            break;
        case 2:
            fprintf(f, "  - {name: obst%d, blueprint: static.prop.sphere, transform: {location: [%g, %g, 0.5]}, "
                       "attributes: {radius: 1.2}}\n", i, ax, ay);
            break;
        case 3:
            fprintf(f, "  - {name: obst%d, blueprint: static.prop.box, transform: {location: [%g, %g, 1], rotation: [5, %g, 8]}, "
                       "attributes: {extent: \"1,3,1\"}}\n", i, ax, ay, yaw + 30);
            break;
        default: /* a ramp: 8 degrees up, its near end buried */
            fprintf(f, "  - {name: obst%d, blueprint: static.prop.box, transform: {location: [%g, %g, -0.2], rotation: [8, %g, 0]}, "
                       "attributes: {extent: \"6,2.5,0.5\"}}\n", i, x + 12 * c, y + 12 * s, yaw);
            break;
        }
        fprintf(f, "  - {name: ped%d, blueprint: walker.pedestrian, transform: {location: [%g, %g, 0.9]}, "
                   "control: {direction: [1, 0, 0], speed: 1.5}}\n"
                   "  - {name: bench%d, blueprint: static.prop.box, transform: {location: [%g, %g, 0.5]}, "
                   "attributes: {extent: \"0.5,2,0.5\"}}\n", i, x, y + 15, i, x + 3, y + 15);
    }
    fclose(f);
    return path;
}

static sn_engine *load(const char *scene, bool ode_statics)
{
    sn_error err = {0};
    sn_engine_options o = {.quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, &err);
    CHECK(e != NULL, "engine: %s", err.msg);
    if (!e)
        return NULL;
    if (ode_statics)
        setenv("SENSIM_BENCH_ODE_STATICS", "1", 1);
    sn_status st = sn_engine_load_scene(e, scene, &err);
    unsetenv("SENSIM_BENCH_ODE_STATICS");
    CHECK(st == SN_OK, "load: %s", err.msg);
    CHECK(e->world.sbp.ode_only == ode_statics, "the switch took");
    return st == SN_OK ? e : (sn_engine_destroy(e), NULL);
}

static void both_spawn_box(sn_engine *e[2], const char *name, sn_vec3 at, const char *extent)
{
    sn_attribute attr = {"extent", extent};
    sn_actor_desc d = {sizeof d, "static.prop.box", name, {at, {0, 0, 0}}, 0, 0, &attr, 1};
    for (int k = 0; k < 2; k++) {
        sn_error err = {0};
        CHECK(sn_engine_spawn(e[k], &d, NULL, &err) == SN_OK, "spawn %s: %s", name, err.msg);
    }
}

/* Something pushed against static `id` this frame (a collision with an impulse). */
static bool touches(const sn_world *w, uint32_t id)
{
    for (size_t i = 0; i < w->n_pairs; i++)
        if (w->pairs[i].other == id && sn_v3_len(w->pairs[i].impulse) > 1)
            return true;
    return false;
}

/* A point `ahead` m in front of a car of engine 0, `up` m above its origin. */
static sn_vec3 ahead_of(sn_engine *e, const char *car, double ahead, double up)
{
    const sn_actor *c = sn_world_find(&e->world, sn_engine_find_actor(e, car));
    return sn_v3_add(c->st.pos, sn_quat_apply(c->st.rot, sn_v3(ahead, 0, up)));
}

static sn_vec3 ahead_of_id(sn_engine *e, uint32_t id, double ahead, double up)
{
    const sn_actor *c = sn_world_find(&e->world, id);
    return sn_v3_add(c->st.pos, sn_quat_apply(c->st.rot, sn_v3(ahead, 0, up)));
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
    int bad_contacts = 0, bad_pairs = 0, bad_states = 0, static_pairs = 0;
    bool new_hit = false, moved_hit = false, gone_hit = false, on_wheels = true, climbed = false;
    uint32_t moved = sn_engine_find_actor(e[0], "obst5"), ramp_car = sn_engine_find_actor(e[0], "car4");
    uint32_t gone = sn_engine_find_actor(e[0], "obst0");
    for (int frame = 1; frame <= 80; frame++) {
        if (frame == 15) /* added mid-run: walls 5 m ahead of four cars */
            for (int i = 6; i < 10; i++) {
                char name[32], car[32];
                snprintf(name, sizeof name, "new%d", i);
                snprintf(car, sizeof car, "car%d", i);
                both_spawn_box(e, name, ahead_of(e[0], car, 5, 1), "0.5,4,1");
            }
        if (frame == 20) { /* moved: the building of lane 5 to 6 m ahead of car 11 (set_transform's world call) */
            sn_vec3 at = ahead_of(e[0], "car11", 6, 2);
            for (int k = 0; k < 2; k++)
                sn_world_teleport(&e[k]->world, sn_world_find(&e[k]->world, moved), at, sn_quat_identity());
        }
        gone_hit |= frame < 60 && touches(&e[0]->world, gone);
        if (frame == 60) /* removed while car 0 leans on it */
            for (int k = 0; k < 2; k++) {
                sn_error err = {0};
                CHECK(sn_engine_destroy_actor(e[k], gone, &err) == SN_OK, "destroy: %s", err.msg);
            }
        for (int k = 0; k < 2; k++) {
            sn_error err = {0};
            CHECK(sn_engine_step(e[k], &err) == SN_OK, "step %d: %s", frame, err.msg);
        }
        const sn_world *a = &e[0]->world, *b = &e[1]->world;
        bad_contacts += a->n_contacts != b->n_contacts;
        bad_pairs += a->n_pairs != b->n_pairs || (a->n_pairs && memcmp(a->pairs, b->pairs, a->n_pairs * sizeof *a->pairs));
        if (a->n_actors != b->n_actors) {
            bad_states++;
        } else {
            for (size_t i = 0; i < a->n_actors; i++)
                bad_states += a->actors[i]->id != b->actors[i]->id ||
                              memcmp(&a->actors[i]->st, &b->actors[i]->st, sizeof a->actors[i]->st) != 0;
        }
        for (size_t i = 0; i < a->n_pairs; i++) {
            const sn_actor *o = sn_world_find(a, a->pairs[i].other);
            bool pushed = sn_v3_len(a->pairs[i].impulse) > 1;
            static_pairs += pushed && o && o->kind == SN_ACTOR_STATIC && o->id != a->actors[0]->id;
            new_hit |= pushed && o && o->name && strncmp(o->name, "new", 3) == 0;
        }
        moved_hit |= frame > 20 && touches(a, moved);
        if (frame == 10) /* before any car reaches an obstacle: every one stands on its wheels on the slab */
            for (int i = 0; i < LANES; i++) {
                char name[16];
                snprintf(name, sizeof name, "car%d", i);
                const sn_actor *c = sn_world_find(a, sn_engine_find_actor(e[0], name));
                if (i % 5 != 4)
                    on_wheels &= c && fabs(c->st.pos.z) < 0.05;
            }
        const sn_actor *rc = sn_world_find(a, ramp_car);
        climbed |= rc && rc->st.pos.z > 0.25;
    }
    CHECK(bad_contacts == 0, "%d frames' last substep made another number of contacts than ODE's scan", bad_contacts);
    CHECK(bad_pairs == 0, "%d frames' collision pairs differ from ODE's scan", bad_pairs);
    CHECK(bad_states == 0, "%d actor states differ from ODE's scan", bad_states);
    CHECK(static_pairs > 100, "collisions with statics other than the slab: %d", static_pairs);
    CHECK(new_hit, "a static spawned mid-run is hit");
    CHECK(moved_hit, "the moved static is hit where it was moved to");
    CHECK(gone_hit, "car 0 meets the building removed later");
    CHECK(on_wheels, "cars stand on their wheel rays on the static slab (origin within 5 cm of its top)");
    CHECK(climbed, "the car on the ramp climbs it (its wheels meet the ramp)");
    sn_engine_destroy(e[0]);
    sn_engine_destroy(e[1]);
}

static bool is_surface(dGeomID g)
{
    const sn_actor *a = dGeomGetData(g);
    return a && a->ground;
}

/* Random wheel-sized vertical rays over the town: where sclear says clear, no static but the
** map's surfaces meets the ray (ODE's own ray test), with and without a memo. */
static void clear_round(sn_engine *e, sn_rng *g)
{
    sn_world *w = &e->world;
    CHECK(sn_sbp_sync(w) && sn_sbp_clear(w, true)->on, "the clear grid is built");
    dReal sb[6];
    dGeomGetAABB((dGeomID)w->static_space, sb);
    int clear = 0, blocked = 0, wrong = 0, hits = 0;
    sn_sclear_memo memo = {0};
    sn_vec3 o = sn_v3(0, 0, 0), d = sn_v3(0, 0, -1);
    for (int i = 0; i < 40000; i++) {
        if (i % 8 == 0) { /* a new wheel, tilted as on a kerb (kerb faces are vertical); then it creeps */
            o = sn_v3(uni(g, sb[0], sb[1]), uni(g, sb[2], sb[3]), uni(g, 0.1, 0.6)), memo = (sn_sclear_memo){0};
            d = sn_v3_norm(sn_v3(uni(g, -0.6, 0.6), uni(g, -0.6, 0.6), -1));
        } else {
            o = sn_v3_add(o, sn_v3(uni(g, -0.1, 0.1), uni(g, -0.1, 0.1), 0));
        }
        sn_vec3 e = sn_v3_add(o, sn_v3_scale(d, 0.5));
        dReal rb[6] = {fmin(o.x, e.x), fmax(o.x, e.x), fmin(o.y, e.y), fmax(o.y, e.y), fmin(o.z, e.z), fmax(o.z, e.z)};
        bool c = sn_sclear_clear(&w->sbp.clear, rb, i % 2 ? &memo : NULL);
        bool hit = false;
        dGeomRaySet(w->ray, o.x, o.y, o.z, d.x, d.y, d.z);
        dGeomRaySetLength(w->ray, 0.5);
        for (size_t k = 0; k < w->sbp.n; k++) {
            dContactGeom cg;
            if (!is_surface(w->sbp.g[k].geom) && dCollide(w->ray, w->sbp.g[k].geom, 1, &cg, sizeof cg) == 1)
                hit = true;
        }
        clear += c, blocked += !c, hits += hit, wrong += c && hit;
    }
    fprintf(stderr, "town: %d rays clear, %d not, %d meet a kerb or prop\n", clear, blocked, hits);
    CHECK(wrong == 0, "%d of %d rays called clear meet a kerb or prop", wrong, clear);
    CHECK(clear > 10000 && blocked > 1000 && hits > 100, "clear %d, not clear %d, meeting kerbs %d", clear, blocked, hits);
}

/* Traffic on the town, some cars steered over kerbs into sidewalks and props, a box dropped on a
** road mid-run: the same states every frame as on ODE's scan (every wheel traced). */
static void test_map_wheels(const char *dir, const char *data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/static_bp_town.yaml", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fprintf(f, "settings: {fixed_delta_seconds: 0.05, seed: 5}\nmap: %s/town.xodr\n"
               "traffic: {vehicles: 40, walkers: 10, seed: 7}\n", data);
    fclose(f);
    sn_engine *e[2] = {load(path, false), load(path, true)};
    if (!e[0] || !e[1])
        return;
    sn_rng g;
    sn_rng_seed(&g, 17);
    clear_round(e[0], &g);
    uint32_t cars[40], nc = 0;
    for (uint32_t i = 0; i < sn_engine_actor_count(e[0]) && nc < 40; i++) {
        sn_actor_info a = {.struct_size = sizeof a};
        sn_engine_actor_get(e[0], sn_engine_actor_id_at(e[0], i), &a);
        if (a.kind == SN_ACTOR_VEHICLE)
            cars[nc++] = a.id;
    }
    CHECK(nc >= 20, "vehicles: %u", nc);
    int bad_states = 0, memos = 0;
    for (int frame = 1; frame <= 160 && nc >= 20; frame++) {
        /* A dozen cars steered off their lanes: over kerbs, onto sidewalks, into whatever stands
        ** there (skipping every cached wheel's ray instead makes 68 states differ here). */
        if (frame == 20)
            for (uint32_t i = 0; i < 12; i++) {
                sn_vehicle_control c = {.throttle = 0.6, .steer = i % 2 ? 0.2 : -0.2};
                for (int k = 0; k < 2; k++) {
                    sn_error err = {0};
                    CHECK(sn_engine_apply_control(e[k], cars[i], &c, &err) == SN_OK, "control: %s", err.msg);
                }
            }
        if (frame == 60) /* the grid rebuilt under running wheels: a box 6 m ahead of a driving car */
            both_spawn_box(e, "dropped", ahead_of_id(e[0], cars[15], 6, 0.6), "1,1,0.5");
        for (int k = 0; k < 2; k++) {
            sn_error err = {0};
            CHECK(sn_engine_step(e[k], &err) == SN_OK, "step %d: %s", frame, err.msg);
        }
        const sn_world *a = &e[0]->world, *b = &e[1]->world;
        if (a->n_actors != b->n_actors) {
            bad_states++;
            continue;
        }
        for (size_t i = 0; i < a->n_actors; i++)
            bad_states += a->actors[i]->id != b->actors[i]->id ||
                          memcmp(&a->actors[i]->st, &b->actors[i]->st, sizeof a->actors[i]->st) != 0;
    }
    for (size_t i = 0; i < e[0]->world.n_bodies; i++) {
        const sn_actor *c = e[0]->world.bodies[i];
        for (int k = 0; c->kind == SN_ACTOR_VEHICLE && c->mv->wheel_tri && k < 4; k++)
            memos += c->mv->wheel_tri[k].clear.w > 0;
    }
    /* The wheels' cache keeps a road triangle's corners as floats (world.h, sn_wheel_tri), the
    ** same bits as ODE's doubles only because ODE hands a road trimesh's corners out as floats
    ** widened (OPCODE stores floats): checked here on the town's meshes, and the cache in use. */
    int tris = 0, not_float = 0, valid = 0;
    const sn_world *w0 = &e[0]->world;
    for (size_t g = 0; g < w0->n_road_geoms; g++) {
        int n = dGeomTriMeshGetTriangleCount(w0->road_geoms[g]);
        for (int t = 0; t < n && t < 64; t++, tris++) {
            dVector3 v[3];
            dGeomTriMeshGetTriangle(w0->road_geoms[g], t, &v[0], &v[1], &v[2]);
            for (int j = 0; j < 9; j++) {
                volatile float f = (float)v[j / 3][j % 3]; /* volatile: GCC 12.2's SLP drops a plain round trip */
                not_float += (double)f != v[j / 3][j % 3];
            }
        }
    }
    for (size_t i = 0; i < w0->n_bodies; i++) {
        const sn_actor *c = w0->bodies[i];
        for (int k = 0; c->kind == SN_ACTOR_VEHICLE && c->mv->wheel_tri && k < 4; k++)
            valid += c->mv->wheel_tri[k].valid;
    }
    CHECK(tris > 100 && not_float == 0, "road triangles' corners from ODE that are not floats: %d of %d", not_float, 9 * tris);
    CHECK(valid > 80, "wheels with a cached road triangle: %d", valid);
    fprintf(stderr, "town: %d wheels with a clear memo, %d with a cached triangle at the end; %d road triangles checked\n", memos, valid, tris);
    CHECK(bad_states == 0, "%d actor states differ from ODE's scan on the town", bad_states);
    CHECK(memos > 40, "wheels that skipped their rays (a clear memo): %d", memos);
    CHECK(e[0]->world.sbp.clear.on && !e[0]->world.sbp.clear_due, "the clear grid rebuilt after the box was dropped");
    sn_engine_destroy(e[0]);
    sn_engine_destroy(e[1]);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    test_queries();
    test_far_statics();
    test_stepping(argv[1]);
    test_map_wheels(argv[1], argv[2]);
    return CHECK_DONE();
}
