/* map_cache.c — the process-wide map cache (map_cache.h; docs/batch.md "Runs that share a
** map"). One mutex guards it; the hits copy out under it. Bounded: at most MAX_MAPS maps and
** MAX_SCENERY scenery results per map; past that, loads go uncached (no eviction: a batch's
** runs share a few maps). */
#include "map_cache.h"

#include "../core/error.h"
#include "../world/world.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MAPS 8
#define MAX_SCENERY 4

typedef struct scenery_entry {
    sn_scenery_opts o;
    sn_scenery_line *lines;
    size_t n_lines;
    sn_scenery_avoid *avoid;
    size_t n_avoid;
    sn_road_mesh *mesh; /* the road mesh grown with the scenery */
    sn_scenery sc;
    dTriMeshDataID *data; /* ODE's trimesh data of mesh, built at the first world that asks */
    size_t n_data;
} scenery_entry;

typedef struct entry {
    char *path;
    sn_map *map;          /* owned; its release hook points here */
    unsigned users;       /* engines holding the map */
    bool dropped;         /* out of the cache: freed when the last user lets go */
    sn_road_mesh *roads;  /* the map's road mesh, built at the first load */
    dTriMeshDataID *roads_data; /* ODE's trimesh data of roads, built at the first world that asks */
    size_t n_roads_data;
    scenery_entry scenery[MAX_SCENERY];
    unsigned n_scenery;
} entry;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool on;
static entry *ents[MAX_MAPS];
static unsigned n_ents;
static uint64_t map_hits, scenery_hits;

static void scenery_entry_free(scenery_entry *s)
{
    free(s->lines);
    free(s->avoid);
    sn_world_road_data_free(s->data, s->n_data);
    sn_road_mesh_free(s->mesh);
    sn_scenery_free(&s->sc);
}

static void entry_free(entry *x)
{
    x->map->release = NULL; /* sn_map_close frees it now */
    sn_map_close(x->map);
    sn_world_road_data_free(x->roads_data, x->n_roads_data);
    sn_road_mesh_free(x->roads);
    for (unsigned i = 0; i < x->n_scenery; i++)
        scenery_entry_free(&x->scenery[i]);
    free(x->path);
    free(x);
}

static void release(sn_map *m)
{
    entry *x = m->release_user;
    pthread_mutex_lock(&mu);
    bool gone = --x->users == 0 && x->dropped;
    pthread_mutex_unlock(&mu);
    if (gone)
        entry_free(x);
}

void sn_map_cache_enable(bool enable)
{
    entry *dead[MAX_MAPS];
    unsigned n_dead = 0;
    pthread_mutex_lock(&mu);
    on = enable;
    if (!enable) {
        for (unsigned i = 0; i < n_ents; i++) {
            ents[i]->dropped = true;
            if (!ents[i]->users)
                dead[n_dead++] = ents[i];
        }
        n_ents = 0;
    }
    pthread_mutex_unlock(&mu);
    for (unsigned i = 0; i < n_dead; i++)
        entry_free(dead[i]);
}

bool sn_map_cache_enabled(void)
{
    pthread_mutex_lock(&mu);
    bool b = on;
    pthread_mutex_unlock(&mu);
    return b;
}

void sn_map_cache_stats(size_t *maps, uint64_t *mh, uint64_t *sh)
{
    pthread_mutex_lock(&mu);
    if (maps)
        *maps = n_ents;
    if (mh)
        *mh = map_hits;
    if (sh)
        *sh = scenery_hits;
    pthread_mutex_unlock(&mu);
}

static bool copy_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!n)
        return true;
    *dst = malloc(n * size);
    if (*dst)
        memcpy(*dst, src, n * size);
    return *dst != NULL;
}

static bool mesh_equal(const sn_road_mesh *a, const sn_road_mesh *b)
{
    return a->n_v == b->n_v && a->n_t == b->n_t && a->n_chunks == b->n_chunks &&
           !memcmp(a->lo, b->lo, sizeof a->lo) && !memcmp(a->hi, b->hi, sizeof a->hi) &&
           (!a->n_v || (!memcmp(a->v, b->v, a->n_v * sizeof *a->v) && !memcmp(a->vf, b->vf, a->n_v * sizeof *a->vf))) &&
           (!a->n_t || !memcmp(a->t, b->t, a->n_t * sizeof *a->t)) &&
           (!a->n_chunks || !memcmp(a->chunks, b->chunks, a->n_chunks * sizeof *a->chunks));
}

static bool scenery_dup(sn_scenery *dst, const sn_scenery *src)
{
    *dst = *src;
    dst->objs = NULL, dst->skipped = NULL;
    if (!copy_array((void **)&dst->objs, src->objs, src->n_objs, sizeof *src->objs) ||
        !copy_array((void **)&dst->skipped, src->skipped, src->n_skipped, sizeof *src->skipped)) {
        sn_scenery_free(dst);
        return false;
    }
    return true;
}

/* The cached map of path whose file held these n bytes, taken by one more user; NULL: none.
** With mu held. */
static sn_map *take_cached(const char *path, const char *buf, size_t n)
{
    for (unsigned i = 0; i < n_ents; i++) {
        sn_map *m = ents[i]->map;
        if (!strcmp(ents[i]->path, path) && m->xml_size == n && !memcmp(m->xml, buf, n)) {
            ents[i]->users++;
            map_hits++;
            return m;
        }
    }
    return NULL;
}

sn_map *sn_map_cache_open(const char *path, sn_error *err)
{
    pthread_mutex_lock(&mu);
    bool enabled = on;
    pthread_mutex_unlock(&mu);
    if (!enabled)
        return sn_map_open(path, err);
    size_t n;
    char *buf = sn_map_read_file(path, &n, err);
    if (!buf)
        return NULL;
    pthread_mutex_lock(&mu);
    sn_map *hit = take_cached(path, buf, n);
    pthread_mutex_unlock(&mu);
    if (hit) {
        free(buf);
        return hit;
    }
    sn_odr *odr;
    if (sn_odr_load_memory(buf, n, path, &odr, err)) {
        free(buf);
        return NULL;
    }
    sn_map *m;
    if (sn_map_build(odr, buf, n, &m, err))
        return NULL;
    entry *x = calloc(1, sizeof *x);
    char *p = x ? strdup(path) : NULL;
    pthread_mutex_lock(&mu);
    /* engines that load one map at once each parse it: the first to get here caches it and the
    ** others take that one, so that they share it (and the cache does not fill with copies) */
    hit = on ? take_cached(path, m->xml, n) : NULL;
    if (!hit && p && on && n_ents < MAX_MAPS) {
        x->path = p, x->map = m, x->users = 1;
        m->release = release, m->release_user = x;
        ents[n_ents++] = x;
        x = NULL, p = NULL;
    }
    pthread_mutex_unlock(&mu);
    free(p), free(x); /* not cached (full, turned off meanwhile, or out of memory): the caller's alone */
    if (hit) {
        sn_map_close(m);
        return hit;
    }
    return m;
}

sn_status sn_map_cache_road_mesh(const sn_map *m, sn_road_mesh **out, sn_error *err)
{
    entry *x = m->release == release ? m->release_user : NULL;
    *out = NULL;
    if (x) {
        pthread_mutex_lock(&mu);
        if (x->roads)
            *out = sn_road_mesh_dup(x->roads);
        pthread_mutex_unlock(&mu);
        if (*out)
            return SN_OK;
    }
    sn_status st = sn_road_mesh_build(m, out, err);
    if (st || !x)
        return st;
    sn_road_mesh *keep = sn_road_mesh_dup(*out);
    pthread_mutex_lock(&mu);
    if (!x->roads)
        x->roads = keep, keep = NULL;
    pthread_mutex_unlock(&mu);
    sn_road_mesh_free(keep);
    return SN_OK;
}

static bool scenery_key_equal(const scenery_entry *s, const sn_scenery_opts *o, const sn_scenery_line *lines,
                              size_t n_lines, const sn_scenery_avoid *avoid, size_t n_avoid)
{
    return s->o.seed == o->seed && !memcmp(&s->o.density, &o->density, sizeof o->density) && s->n_lines == n_lines &&
           s->n_avoid == n_avoid && (!n_lines || !memcmp(s->lines, lines, n_lines * sizeof *lines)) &&
           (!n_avoid || !memcmp(s->avoid, avoid, n_avoid * sizeof *avoid));
}

sn_status sn_map_cache_scenery(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines,
                               size_t n_lines, const sn_scenery_avoid *avoid, size_t n_avoid, sn_road_mesh **mesh,
                               sn_scenery *out, sn_error *err)
{
    entry *x = m->release == release ? m->release_user : NULL;
    /* scenery grows the map's own road mesh only: any other input goes uncached */
    bool base = false;
    if (x) {
        pthread_mutex_lock(&mu);
        base = x->roads && mesh_equal(x->roads, *mesh);
        for (unsigned i = 0; base && i < x->n_scenery; i++) {
            scenery_entry *s = &x->scenery[i];
            if (!scenery_key_equal(s, o, lines, n_lines, avoid, n_avoid))
                continue;
            sn_road_mesh *c = sn_road_mesh_dup(s->mesh);
            if (c && scenery_dup(out, &s->sc)) {
                scenery_hits++;
                pthread_mutex_unlock(&mu);
                sn_road_mesh_free(*mesh);
                *mesh = c;
                return SN_OK;
            }
            sn_road_mesh_free(c);
            break;
        }
        pthread_mutex_unlock(&mu);
    }
    sn_status st = sn_scenery_build(m, o, lines, n_lines, avoid, n_avoid, *mesh, out, err);
    if (st || !base)
        return st;
    scenery_entry s = {.o = *o, .n_lines = n_lines, .n_avoid = n_avoid};
    if (!copy_array((void **)&s.lines, lines, n_lines, sizeof *lines) ||
        !copy_array((void **)&s.avoid, avoid, n_avoid, sizeof *avoid) || !(s.mesh = sn_road_mesh_dup(*mesh)) ||
        !scenery_dup(&s.sc, out)) {
        scenery_entry_free(&s); /* not kept: this load has its scenery all the same */
        return SN_OK;
    }
    pthread_mutex_lock(&mu);
    bool kept = x->n_scenery < MAX_SCENERY;
    for (unsigned i = 0; kept && i < x->n_scenery; i++) /* another engine's build of the same, meanwhile */
        kept = !scenery_key_equal(&x->scenery[i], o, lines, n_lines, avoid, n_avoid);
    if (kept)
        x->scenery[x->n_scenery++] = s;
    pthread_mutex_unlock(&mu);
    if (!kept)
        scenery_entry_free(&s);
    return SN_OK;
}

/* The trimesh data of `mesh` (equal to `own`, the cache's copy), built on own at the first call. */
static const dTriMeshDataID *data_of(const sn_road_mesh *own, const sn_road_mesh *mesh, dTriMeshDataID **data,
                                     size_t *n, const sn_road_mesh **out)
{
    if (!own || !mesh_equal(own, mesh))
        return NULL;
    if (!*data)
        *data = sn_world_road_data_build(own, n);
    *out = own;
    return *data;
}

const dTriMeshDataID *sn_map_cache_road_data(const sn_map *m, const sn_road_mesh *mesh, const sn_road_mesh **own)
{
    entry *x = m && m->release == release ? m->release_user : NULL;
    *own = NULL;
    if (!x || !mesh)
        return NULL;
    pthread_mutex_lock(&mu);
    const dTriMeshDataID *d = data_of(x->roads, mesh, &x->roads_data, &x->n_roads_data, own);
    for (unsigned i = 0; !d && i < x->n_scenery; i++)
        d = data_of(x->scenery[i].mesh, mesh, &x->scenery[i].data, &x->scenery[i].n_data, own);
    pthread_mutex_unlock(&mu);
    if (!d)
        *own = NULL;
    return d;
}

bool sn_map_cache_roads_shared(const sn_map *m, const sn_road_mesh **own, const dTriMeshDataID **data)
{
    entry *x = m && m->release == release ? m->release_user : NULL;
    *own = NULL, *data = NULL;
    if (!x)
        return false;
    pthread_mutex_lock(&mu);
    if (x->roads && !x->roads_data)
        x->roads_data = sn_world_road_data_build(x->roads, &x->n_roads_data);
    if (x->roads && x->roads_data)
        *own = x->roads, *data = (const dTriMeshDataID *)x->roads_data;
    pthread_mutex_unlock(&mu);
    return *own != NULL;
}

bool sn_map_cache_scenery_shared(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines,
                                 size_t n_lines, const sn_scenery_avoid *avoid, size_t n_avoid,
                                 const sn_road_mesh *roads, const sn_road_mesh **own, const dTriMeshDataID **data,
                                 sn_scenery *out)
{
    entry *x = m && m->release == release ? m->release_user : NULL;
    *own = NULL, *data = NULL;
    if (!x)
        return false;
    pthread_mutex_lock(&mu);
    /* grown from the cache's own roads (the same object, so no comparison of its bytes) */
    for (unsigned i = 0; roads && roads == x->roads && i < x->n_scenery; i++) {
        scenery_entry *s = &x->scenery[i];
        if (!scenery_key_equal(s, o, lines, n_lines, avoid, n_avoid))
            continue;
        if (!s->data)
            s->data = sn_world_road_data_build(s->mesh, &s->n_data);
        if (s->data && scenery_dup(out, &s->sc)) {
            scenery_hits++;
            *own = s->mesh, *data = (const dTriMeshDataID *)s->data;
        }
        break;
    }
    pthread_mutex_unlock(&mu);
    return *own != NULL;
}
