/* static_cache.h — the geometry that does not move, transformed once: every static actor's mesh
** (props, buildings, poles: kind static, no parent, no body, a box, sphere or cylinder) as world
** vertices, and every triangle's unit world normal, for those meshes and for the map's roads;
** with each actor's bounding sphere. Rebuilt only when the world's static set changes (another
** world, w->static_gen, other roads); every camera and the shadow map read it each frame
** instead of posing and transforming the same meshes again. Dynamic actors (vehicles, walkers,
** attached props) are not here: they are posed each frame. */
#ifndef SN_STATIC_CACHE_H
#define SN_STATIC_CACHE_H

#include "mesh.h"

#include <stdbool.h>

typedef struct sn_static_obj {
    const sn_actor *actor; /* its tag, colour and id are read at each render: they may change */
    const sn_mesh *mesh;   /* triangles and parts; its unit vertices are not used (wv is) */
    size_t wv, wn;         /* offsets of its n_v world vertices and n_t world normals */
    sn_vec3 centre;        /* the box's bounding sphere, world frame */
    double radius;
} sn_static_obj;

/* Zeroed by the owner (the renderer); freed with sn_static_cache_free. */
typedef struct sn_static_cache {
    const sn_world *world; /* what it was built from: NULL = never built */
    uint64_t static_gen;
    const void *roads;
    sn_static_obj *objs;
    size_t n_objs, cap_objs;
    double (*wv)[3]; /* world vertices of every object */
    size_t n_wv, cap_wv;
    float (*wn)[3]; /* unit world normals of every object's triangles */
    size_t n_wn, cap_wn;
    float (*road_n)[3]; /* unit world normal of each of the roads' triangles (road_mesh.h t[]) */
    size_t cap_road_n;
} sn_static_cache;

/* Whether actor a is drawn from the cache. */
bool sn_static_is(const sn_actor *a);
/* Brings the cache up to date with w (a no-op when nothing static changed); false without memory,
** leaving the cache empty and unbuilt. */
bool sn_static_cache_update(sn_static_cache *c, const sn_world *w);
void sn_static_cache_free(sn_static_cache *c);

#endif
