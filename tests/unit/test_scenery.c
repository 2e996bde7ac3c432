/* Scenery from the map (engine/scenery): on every shipped map in maps/ (argv[1]) and, when
** present, CARLA's Town10HD in /work/towns (SENSIM_TOWNS), each solid piece's footprint, sampled
** every 0.5 m, lies on no blocked lane (driving, sidewalk, parking, ...: checked with the
** map's lane index, independently of the builder's margin), nor rises through a lane above it
** (tests/data/overpass.xodr: a viaduct over a street's frontage, as CARLA's Town04), and is clear of every spawn point's
** vehicle box; pieces of each kind appear where the map has what they need; chunks carry
** their piece's instance id and category tag; the map's solid objects on lanes are left out and
** named (tests/data/objects_on_lane.xodr); the same map and seed give the same bytes and
** another seed other ones; density scales the counts; bad density is refused. */
#include "../../engine/map/road_mesh.h"
#include "../../engine/scenery/scenery.h"
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static sn_road_mesh *build(const sn_map *m, uint64_t seed, double density, sn_scenery *sc)
{
    sn_error err = {0};
    sn_road_mesh *rm = NULL;
    CHECK(sn_road_mesh_build(m, &rm, &err) == SN_OK, "road mesh: %s", err.msg);
    if (!rm)
        return NULL;
    sn_scenery_opts o = {seed, density};
    /* a stop line on lane -1 of the first road, as the lights would give */
    sn_scenery_line line = {m->odr->n_roads ? m->odr->roads[0].id : 0, -1, 1.0};
    CHECK(sn_scenery_build(m, &o, &line, 1, NULL, 0, rm, sc, &err) == SN_OK, "scenery: %s", err.msg);
    return rm;
}

/* A footprint point on a blocked lane (strictly inside it) whose surface is within dz_max of z. */
static bool on_blocked(const sn_map *m, double x, double y, double z, double dz_max)
{
    sn_map_place p;
    return sn_map_locate(m, (sn_vec3){x, y, z}, 0.01, sn_scenery_blocked_types(), &p) && p.outside <= 0 &&
           fabs(p.dz) < dz_max;
}

/* A footprint point on a blocked lane near its base, or on one whose surface lies anywhere in the
** piece's height (a deck it would rise through): asked every 0.5 m up to its top (no lane lies
** above the map's highest). Pillars stand under decks by design: their base only. */
static bool point_blocked(const sn_map *m, const sn_scenery_obj *o, double x, double y)
{
    double z = o->elevated ? 0.0 : o->z0;
    if (on_blocked(m, x, y, z, 2.5))
        return true;
    for (double zq = z + 0.5; !o->elevated && zq <= fmin(o->z1, m->hi.z + 0.5); zq += 0.5)
        if (on_blocked(m, x, y, zq, 0.3))
            return true;
    return false;
}

static void check_map(const char *path, bool expect_buildings, bool full)
{
    sn_error err = {0};
    sn_map *m = sn_map_open(path, &err);
    CHECK(m != NULL, "%s: %s", path, err.msg);
    if (!m)
        return;
    sn_scenery sc;
    sn_road_mesh *rm = build(m, 7, 1.0, &sc);
    if (!rm) {
        sn_map_close(m);
        return;
    }
    fprintf(stderr, "%s: %u pieces: buildings %u trees %u bushes %u lights %u signs %u stop lines %u crosswalks %u "
                    "rails %u pillars %u map objects %u walls %u fences %u bus stops %u benches %u bins %u grass %u "
                    "ground %u; %u chunks, %u triangles\n",
            path, sc.n_objs, sc.counts[SN_SK_BUILDING], sc.counts[SN_SK_TREE], sc.counts[SN_SK_BUSH],
            sc.counts[SN_SK_STREET_LIGHT], sc.counts[SN_SK_SIGN], sc.counts[SN_SK_STOP_LINE],
            sc.counts[SN_SK_CROSSWALK], sc.counts[SN_SK_GUARD_RAIL], sc.counts[SN_SK_PILLAR],
            sc.counts[SN_SK_MAP_OBJECT], sc.counts[SN_SK_WALL], sc.counts[SN_SK_FENCE], sc.counts[SN_SK_BUS_STOP],
            sc.counts[SN_SK_BENCH], sc.counts[SN_SK_BIN], sc.counts[SN_SK_GRASS], sc.counts[SN_SK_GROUND],
            rm->n_chunks - sc.first_chunk, rm->n_t);
    if (expect_buildings) {
        CHECK(sc.counts[SN_SK_BUILDING] > 10, "%s: %u buildings", path, sc.counts[SN_SK_BUILDING]);
        CHECK(sc.counts[SN_SK_TREE] > 10, "%s: %u trees", path, sc.counts[SN_SK_TREE]);
        CHECK(sc.counts[SN_SK_STREET_LIGHT] > 10, "%s: %u lights", path, sc.counts[SN_SK_STREET_LIGHT]);
        CHECK(sc.counts[SN_SK_WALL] > 3 && sc.counts[SN_SK_FENCE] > 3, "%s: %u walls, %u fences", path,
              sc.counts[SN_SK_WALL], sc.counts[SN_SK_FENCE]);
        CHECK(sc.counts[SN_SK_GRASS] > 10 && sc.counts[SN_SK_GROUND] > 3, "%s: %u grass and %u ground patches", path,
              sc.counts[SN_SK_GRASS], sc.counts[SN_SK_GROUND]);
    }
    /* every solid's footprint, every 0.25 m, off the blocked lanes */
    uint32_t bad = 0;
    for (uint32_t i = 0; i < sc.n_objs; i++) {
        const sn_scenery_obj *o = &sc.objs[i];
        CHECK(o->instance == SN_SCENERY_ID0 + i, "instance ids run from SN_SCENERY_ID0");
        if (o->paint) /* the map's own solids too: those on lanes are left out */
            continue;
        double c = cos(o->yaw), s = sin(o->yaw);
        int nx = (int)ceil(2 * o->hx / 0.5), ny = (int)ceil(2 * o->hy / 0.5);
        for (int a = 0; a <= nx; a++)
            for (int b = 0; b <= ny; b++) {
                double lx = -o->hx + 2 * o->hx * a / nx, ly = -o->hy + 2 * o->hy * b / ny;
                double x = o->cx + lx * c - ly * s, y = o->cy + lx * s + ly * c;
                if (point_blocked(m, o, x, y) && bad++ < 5)
                    CHECK(false, "%s: piece %u (kind %d) at (%.2f, %.2f) stands on a lane at (%.2f, %.2f)", path, i,
                          o->kind, o->cx, o->cy, x, y);
            }
    }
    CHECK(bad == 0, "%s: %u footprint samples on lanes", path, bad);
    /* no solid within a vehicle's box (5 x 2.2 m, CARLA's largest car) of a spawn point */
    size_t n_sp = 0;
    sn_map_spawn_points(m, NULL, 0, &n_sp, &err);
    sn_transform *sp = calloc(n_sp + 1, sizeof *sp);
    sn_map_spawn_points(m, sp, n_sp, &n_sp, &err);
    uint32_t near = 0;
    for (size_t k = 0; k < n_sp; k++)
        for (uint32_t i = 0; i < sc.n_objs; i++) {
            const sn_scenery_obj *o = &sc.objs[i];
            if (o->paint || o->elevated || fabs(sp[k].location.z - 0.5 - o->z0) > 2.5)
                continue;
            double dx = sp[k].location.x - o->cx, dy = sp[k].location.y - o->cy;
            if (hypot(dx, dy) < 2.5 + fmin(o->hx, o->hy) && near++ < 3)
                CHECK(false, "%s: piece %u within a car of spawn point %zu", path, i, k);
        }
    CHECK(near == 0, "%s: %u pieces at spawn points", path, near);
    free(sp);
    /* chunks: the pieces' ids, tags from their category */
    for (uint32_t i = sc.first_chunk; i < rm->n_chunks; i++) {
        const sn_road_chunk *k = &rm->chunks[i];
        const sn_road_category *cat = sn_chunk_category(k->category);
        CHECK(cat && k->tag == cat->tag && k->part == cat->part, "chunk %u category", i);
        CHECK(k->instance >= SN_SCENERY_ID0 && k->instance < SN_SCENERY_ID0 + sc.n_objs, "chunk %u instance", i);
        CHECK(k->count > 0 && k->lo[0] <= k->hi[0], "chunk %u has triangles and a box", i);
    }
    for (uint32_t i = 0; i < sc.first_chunk; i++)
        CHECK(rm->chunks[i].instance == 0, "road chunk %u has instance 0", i);
    if (!full) { /* CARLA's towns: placement only (the rebuilds below are the shipped maps' job) */
        sn_scenery_free(&sc);
        sn_road_mesh_free(rm);
        sn_map_close(m);
        return;
    }
    /* same seed, same bytes; another seed, other ones (when anything random was placed) */
    sn_scenery sc2, sc3;
    sn_road_mesh *rm2 = build(m, 7, 1.0, &sc2), *rm3 = build(m, 8, 1.0, &sc3);
    CHECK(rm2 && rm2->n_v == rm->n_v && rm2->n_t == rm->n_t && rm2->n_chunks == rm->n_chunks, "same size");
    if (rm2 && rm2->n_v == rm->n_v && rm2->n_t == rm->n_t)
        CHECK(!memcmp(rm2->v, rm->v, rm->n_v * sizeof *rm->v) && !memcmp(rm2->t, rm->t, rm->n_t * sizeof *rm->t) &&
                  !memcmp(rm2->vf, rm->vf, rm->n_v * sizeof *rm->vf),
              "%s: the same seed gives the same bytes", path);
    if (rm3 && sc.counts[SN_SK_TREE] > 3)
        CHECK(rm3->n_v != rm->n_v || memcmp(rm3->v, rm->v, rm->n_v * sizeof *rm->v), "%s: seed 8 differs", path);
    sn_scenery sc4;
    sn_road_mesh *rm4 = build(m, 7, 0.5, &sc4);
    if (expect_buildings)
        CHECK(sc4.counts[SN_SK_STREET_LIGHT] < sc.counts[SN_SK_STREET_LIGHT] &&
                  sc4.counts[SN_SK_TREE] < sc.counts[SN_SK_TREE],
              "%s: density 0.5 places fewer lights (%u vs %u) and trees (%u vs %u)", path,
              sc4.counts[SN_SK_STREET_LIGHT], sc.counts[SN_SK_STREET_LIGHT], sc4.counts[SN_SK_TREE],
              sc.counts[SN_SK_TREE]);
    sn_scenery_free(&sc), sn_scenery_free(&sc2), sn_scenery_free(&sc3), sn_scenery_free(&sc4);
    sn_road_mesh_free(rm), sn_road_mesh_free(rm2), sn_road_mesh_free(rm3), sn_road_mesh_free(rm4);
    sn_map_close(m);
}

int main(int argc, char **argv)
{
    const char *maps = argc > 1 ? argv[1] : "maps";
    static const char *const shipped[] = {"town.xodr", "signals.xodr", "highway.xodr", "roundabout.xodr"};
    char path[4096];
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        snprintf(path, sizeof path, "%s/%s", maps, shipped[i]);
        check_map(path, i == 0, true);
    }
    /* a viaduct over a street's frontage (tests/data, argv[2]): nothing rises through its lanes */
    if (argc > 2) {
        snprintf(path, sizeof path, "%s/overpass.xodr", argv[2]);
        check_map(path, false, false);
    }
    /* the map's solid objects on lanes are left out and named; the one beside the street is built */
    if (argc > 2) {
        snprintf(path, sizeof path, "%s/objects_on_lane.xodr", argv[2]);
        sn_error err = {0};
        sn_map *m = sn_map_open(path, &err);
        CHECK(m != NULL, "%s: %s", path, err.msg);
        sn_scenery sc;
        sn_road_mesh *rm = m ? build(m, 7, 1.0, &sc) : NULL;
        if (rm) {
            CHECK(sc.n_skipped == 2 && sc.counts[SN_SK_MAP_OBJECT] == 1, "%u objects left out, %u built", sc.n_skipped,
                  sc.counts[SN_SK_MAP_OBJECT]);
            CHECK(sc.n_skipped == 2 && strstr(sc.skipped[0], "'BlockingCrate'") && strstr(sc.skipped[0], "object 7") &&
                      strstr(sc.skipped[1], "'LaneHouse'"),
                  "the skipped objects are named: %s", sc.n_skipped ? sc.skipped[0] : "");
            for (uint32_t i = 0; i < sc.n_objs; i++)
                if (sc.objs[i].from_map)
                    CHECK(fabs(sc.objs[i].cx - 100) < 1e-6 && fabs(sc.objs[i].cy - 10) < 1e-6,
                          "the kiosk is built where the map says: (%g, %g)", sc.objs[i].cx, sc.objs[i].cy);
            sn_scenery_free(&sc);
            sn_road_mesh_free(rm);
        }
        if (m)
            sn_map_close(m);
        check_map(path, false, false);
    }
    /* CARLA's towns, when this machine has them (never shipped) */
    const char *towns = getenv("SENSIM_TOWNS") ? getenv("SENSIM_TOWNS") : "/work/towns";
    static const char *const carla[] = {"Town10HD.xodr"}; /* Town04 (elevated highway) in bench_scenery */
    for (size_t i = 0; i < sizeof carla / sizeof *carla; i++) {
        snprintf(path, sizeof path, "%s/%s", towns, carla[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        fclose(f);
        check_map(path, i == 0, false);
    }
    /* density out of range: a clear error, the mesh untouched */
    sn_error err = {0};
    snprintf(path, sizeof path, "%s/town.xodr", maps);
    sn_map *m = sn_map_open(path, &err);
    if (m) {
        sn_road_mesh *rm = NULL;
        sn_road_mesh_build(m, &rm, &err);
        uint32_t n = rm ? rm->n_chunks : 0;
        sn_scenery_opts o = {0, 0};
        CHECK(rm && sn_scenery_build(m, &o, NULL, 0, NULL, 0, rm, NULL, &err) == SN_E_RANGE, "density 0 refused");
        CHECK_CONTAINS(err.msg, "density");
        CHECK(rm && rm->n_chunks == n, "the mesh is untouched");
        sn_road_mesh_free(rm);
        sn_map_close(m);
    }
    return CHECK_DONE();
}
