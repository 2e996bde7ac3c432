/* The map cache (sensim/map.h sn_map_cache_enable; engine/frame/map_cache.c): engines loading a
** scene on the same map file share the parsed map and reuse its scenery; a file that changed
** since (a stale entry) is parsed again; a file that became corrupt fails exactly as without
** the cache, and the cache stays sound; turning the cache off leaves the engines that hold a
** map running (ASan checks that nothing leaks or is freed twice). Engines sharing a map read one
** road mesh, the cache's (their worlds' roads are the same pointer, through resets and after
** the cache is turned off); that they write the same bytes as engines with their own is
** test_world_state's (two engines on threads, every stream). argv[1]: the maps folder, argv[2]: a temp folder. */
#include "../check.h"

#include "../../engine/sim/engine.h"

#include <sensim/map.h>
#include <sensim/sensim.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

static void spit(const char *path, const char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

/* An engine with the scene loaded and stepped 10 frames, or NULL with err set. */
static sn_engine *load(const char *scene, sn_error *err)
{
    sn_engine_options o = {.threads = 1, .quiet_plugins = true};
    sn_engine *e = sn_engine_create(&o, err);
    if (!e)
        return NULL;
    if (sn_engine_load_scene(e, scene, err) || sn_engine_run(e, 10, err)) {
        sn_engine_destroy(e);
        return NULL;
    }
    return e;
}

static void stats(size_t *maps, uint64_t *mh, uint64_t *sh) { sn_map_cache_stats(maps, mh, sh); }

/* One of several engines loading a scene at once (a vector environment's, a batch's threads). */
typedef struct loader {
    const char *scene;
    pthread_barrier_t *go;
    sn_engine *e;
} loader;

static void *load_at_once(void *arg)
{
    loader *l = arg;
    sn_error err = {0};
    pthread_barrier_wait(l->go);
    l->e = load(l->scene, &err);
    return NULL;
}

/* Four engines loading one map at once: each parses it (none is cached yet), the first to
** finish caches it, and the others take that one, so all four share one map and one mesh and
** the cache holds it once (it used to hold four copies: MAX_MAPS filled by one file). */
static void at_once(const char *scene)
{
    enum { N = 4 };
    sn_map_cache_enable(true);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, N);
    loader l[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        l[i] = (loader){scene, &go, NULL};
        pthread_create(&th[i], NULL, load_at_once, &l[i]);
    }
    for (int i = 0; i < N; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    size_t maps;
    sn_map_cache_stats(&maps, NULL, NULL);
    CHECK(maps == 1, "four engines loading one map at once: the cache holds %zu maps", maps);
    for (int i = 1; i < N; i++)
        CHECK(l[0].e && l[i].e && sn_engine_map(l[i].e) == sn_engine_map(l[0].e) &&
                  l[i].e->world.roads == l[0].e->world.roads,
              "engine %d loaded at once shares the first's map and mesh", i);
    for (int i = 0; i < N; i++)
        sn_engine_destroy(l[i].e);
    sn_map_cache_enable(false);
}

/* The position of g among n geoms, or -1. */
static long index_of(dGeomID const *geoms, size_t n, dGeomID g)
{
    for (size_t i = 0; i < n; i++)
        if (geoms[i] == g)
            return (long)i;
    return -1;
}

/* With the cache on, a reset keeps the roads' and scenery's trimesh geoms for the next world
** (world/geom_pool.h): the same geoms again, each over its chunk's data with its category's
** stand-in, in the static space in the order a fresh load leaves them in. */
static void reset_keeps_geoms(const char *scene)
{
    sn_map_cache_enable(true);
    sn_error err = {0};
    sn_engine *e = load(scene, &err), *f = NULL;
    CHECK(e != NULL, "load for the reset: %s", err.msg);
    const size_t n = e ? e->world.n_road_geoms : 0;
    dGeomID *before = e ? malloc((n ? n : 1) * sizeof *before) : NULL;
    if (!e || !before)
        goto out;
    memcpy(before, e->world.road_geoms, n * sizeof *before);
    CHECK(n > 0 && e->world.road_data_shared, "%zu road geoms over the cache's data", n);
    for (int k = 0; k < 2; k++)
        CHECK(sn_engine_reset(e, NULL, &err) == SN_OK, "reset %d: %s", k, err.msg);
    CHECK(sn_engine_run(e, 10, &err) == SN_OK, "run after the resets: %s", err.msg); /* as load() ran f */
    f = load(scene, &err);
    CHECK(f != NULL, "fresh load: %s", err.msg);
    if (!f)
        goto out;
    const sn_world *w = &e->world, *v = &f->world;
    CHECK(w->n_road_geoms == n && v->n_road_geoms == n, "%zu and %zu road geoms, %zu before the reset",
          w->n_road_geoms, v->n_road_geoms, n);
    size_t reused = 0, bad = 0;
    for (size_t i = 0; i < n && i < w->n_road_geoms && i < v->n_road_geoms; i++) {
        dGeomID g = w->road_geoms[i];
        reused += index_of(before, n, g) >= 0;
        bad += w->road_data[i] != v->road_data[i] || dGeomTriMeshGetTriMeshDataID(g) != w->road_data[i] ||
               dGeomGetSpace(g) != w->static_space || dGeomGetBody(g) ||
               (const sn_actor *)dGeomGetData(g) - w->road_as != (const sn_actor *)dGeomGetData(v->road_geoms[i]) - v->road_as ||
               dGeomGetCategoryBits(g) != dGeomGetCategoryBits(v->road_geoms[i]) ||
               dGeomGetCollideBits(g) != dGeomGetCollideBits(v->road_geoms[i]);
    }
    CHECK(reused == n, "%zu of %zu road geoms taken again after two resets", reused, n);
    CHECK(bad == 0, "%zu road geoms differ from a fresh load's (data, space, stand-in or bits)", bad);
    const int ns = dSpaceGetNumGeoms(w->static_space), nv = dSpaceGetNumGeoms(v->static_space);
    CHECK(ns == nv, "the static space holds %d geoms after the reset, %d fresh", ns, nv);
    long moved = 0;
    for (int i = 0; i < ns && i < nv; i++)
        moved += index_of(w->road_geoms, w->n_road_geoms, dSpaceGetGeom(w->static_space, i)) !=
                 index_of(v->road_geoms, v->n_road_geoms, dSpaceGetGeom(v->static_space, i));
    CHECK(moved == 0, "%ld places of the static space hold another geom than a fresh load's", moved);
    /* the pool keeps what a build does not take back (the roads alone, replaced by the roads with
    ** the scenery) and does not grow with the resets */
    for (int k = 0; k < 30; k++)
        CHECK(sn_engine_reset(e, NULL, &err) == SN_OK, "reset %d: %s", k, err.msg);
    CHECK(e->road_pool.cap <= 4 * n && e->road_pool.live <= n,
          "after 32 resets the pool holds %zu slots (%zu live) for %zu road geoms", e->road_pool.cap, e->road_pool.live, n);
out:
    free(before);
    sn_engine_destroy(f);
    sn_engine_destroy(e);
    sn_map_cache_enable(false);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_map_cache MAPS TMP\n");
        return 2;
    }
    char src[1024], map[1024], scene[1024];
    snprintf(src, sizeof src, "%s/highway.xodr", argv[1]);
    snprintf(map, sizeof map, "%s/map_cache.xodr", argv[2]);
    snprintf(scene, sizeof scene, "%s/map_cache.yaml", argv[2]);
    size_t n;
    char *xml = slurp(src, &n);
    CHECK(xml && n > 1000, "%s not read", src);
    if (!xml)
        return CHECK_DONE();
    spit(map, xml, n);
    FILE *f = fopen(scene, "w");
    fprintf(f, "map: map_cache.xodr\nsettings: {fixed_delta_seconds: 0.05, frames: 10}\nactors:\n"
               "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, -1.75, 0.5]}, velocity: [10, 0, 0]}\n");
    fclose(f);

    size_t maps;
    uint64_t mh, sh;
    sn_error err = {0};
    /* off (the default): nothing is kept */
    sn_engine *e0 = load(scene, &err);
    stats(&maps, &mh, &sh);
    CHECK(e0 && maps == 0 && mh == 0, "cache off: %zu maps, %llu hits (%s)", maps, (unsigned long long)mh, err.msg);

    sn_map_cache_enable(true);
    sn_engine *e1 = load(scene, &err), *e2 = load(scene, &err);
    stats(&maps, &mh, &sh);
    CHECK(e1 && e2 && maps == 1 && mh == 1 && sh == 1, "second load: %zu maps, %llu map hits, %llu scenery hits (%s)",
          maps, (unsigned long long)mh, (unsigned long long)sh, err.msg);
    CHECK(e1 && e2 && sn_engine_map(e1) == sn_engine_map(e2), "the two engines share one parsed map");
    CHECK(e0 && e1 && sn_engine_map(e0) != sn_engine_map(e1), "an uncached engine keeps its own map");
    CHECK(e1 && e2 && e1->world.roads && e1->world.roads == e2->world.roads && e1->world.road_data_shared,
          "the two engines read one road mesh (the cache's)");
    CHECK(e0 && e1 && e0->world.roads && e0->world.roads != e1->world.roads && !e0->world.road_data_shared,
          "an uncached engine has its own road mesh");
    CHECK(e0 && e2 && e0->world.roads && e2->world.roads && e0->world.roads->n_t == e2->world.roads->n_t &&
              e0->world.roads->n_v == e2->world.roads->n_v &&
              !memcmp(e0->world.roads->vf, e2->world.roads->vf, e0->world.roads->n_v * sizeof *e0->world.roads->vf) &&
              !memcmp(e0->world.roads->t, e2->world.roads->t, e0->world.roads->n_t * sizeof *e0->world.roads->t),
          "the shared mesh is the one an uncached engine builds (with the scenery grown on it)");
    if (e2) {
        CHECK(sn_engine_reset(e2, NULL, &err) == SN_OK && sn_engine_run(e2, 10, &err) == SN_OK, "reset: %s", err.msg);
        CHECK(e1 && e2->world.roads == e1->world.roads, "a reset engine still reads the shared mesh");
    }
    /* the same world either way: the hero where the uncached engine has it */
    sn_map_info i0 = {.struct_size = sizeof i0}, i2 = {.struct_size = sizeof i2};
    if (e0 && e2) {
        sn_map_info_get(sn_engine_map(e0), &i0, NULL);
        sn_map_info_get(sn_engine_map(e2), &i2, NULL);
        CHECK(i0.roads == i2.roads && i0.lanes == i2.lanes && i0.driving_km == i2.driving_km, "the map's summary");
    }

    /* stale: the file changed (one more comment): parsed again, not served from the cache */
    const char extra[] = "<!-- edited -->\n";
    char *edited = malloc(n + sizeof extra);
    memcpy(edited, xml, n);
    memcpy(edited + n, extra, sizeof extra - 1);
    spit(map, edited, n + sizeof extra - 1);
    sn_engine *e3 = load(scene, &err);
    stats(&maps, &mh, &sh);
    CHECK(e3 && maps == 2 && mh == 1, "an edited file: %zu maps, %llu hits (%s)", maps, (unsigned long long)mh, err.msg);
    CHECK(e3 && e1 && sn_engine_map(e3) != sn_engine_map(e1), "an edited file is not the cached map");
    size_t got = 0;
    const char *text = e3 ? sn_map_to_opendrive(sn_engine_map(e3), &got) : NULL;
    CHECK(text && got == n + sizeof extra - 1 && strstr(text, "edited"), "the edited map is the edited file");

    /* corrupt: cut in half; the error is the one an uncached load gives, and nothing is cached */
    spit(map, xml, n / 2);
    sn_error cached_err = {0}, plain_err = {0};
    sn_engine *e4 = load(scene, &cached_err);
    sn_map_cache_enable(false); /* e1, e2, e3 hold cached maps: they keep them */
    stats(&maps, NULL, NULL);
    CHECK(maps == 0, "off: the cache holds %zu maps", maps);
    sn_engine *e5 = load(scene, &plain_err);
    CHECK(!e4 && !e5 && cached_err.status == plain_err.status && !strcmp(cached_err.msg, plain_err.msg) &&
              strstr(cached_err.msg, "map_cache.xodr"),
          "a corrupt file: '%s' with the cache, '%s' without", cached_err.msg, plain_err.msg);
    sn_engine_destroy(e4), sn_engine_destroy(e5);

    /* the original bytes again, the cache on again: a fresh entry, then a hit */
    sn_map_cache_enable(true);
    spit(map, xml, n);
    sn_engine *e6 = load(scene, &err), *e7 = load(scene, &err);
    stats(&maps, &mh, &sh);
    CHECK(e6 && e7 && maps == 1 && mh == 2 && sn_engine_map(e6) == sn_engine_map(e7),
          "restored: %zu maps, %llu hits (%s)", maps, (unsigned long long)mh, err.msg);
    /* engines holding maps of a cache turned off still step, then free them */
    CHECK(e1 && sn_engine_run(e1, 5, &err) == SN_OK, "an engine on a dropped map steps: %s", err.msg);
    CHECK(e1 && sn_engine_reset(e1, NULL, &err) == SN_OK && e1->world.roads == e2->world.roads &&
              sn_engine_run(e1, 5, &err) == SN_OK,
          "an engine on a dropped map resets onto the shared mesh and steps: %s", err.msg);
    sn_engine_destroy(e1), sn_engine_destroy(e2), sn_engine_destroy(e3);
    sn_map_cache_enable(false);
    sn_engine_destroy(e6), sn_engine_destroy(e7), sn_engine_destroy(e0);
    at_once(scene);
    reset_keeps_geoms(scene);
    free(xml), free(edited);
    remove(map), remove(scene);
    return CHECK_DONE();
}
