/* map_cache.h — the process-wide map cache behind sn_map_cache_enable (sensim/map.h): parsed
** maps shared by the engines of one process (and by the runs `sensim batch` forks from it), with
** their road meshes and the scenery built on them, copied out per engine.
**
** Keys are compared whole, never by hash alone: a map by its path and every byte of its file;
** scenery by its map, options, stop lines, boxes to avoid and the mesh it grows. A hit hands
** out exactly what the uncached code would have built (road_mesh.c and scenery/place.c are
** pure functions of these), so outputs stay byte-identical. */
#ifndef SN_FRAME_MAP_CACHE_H
#define SN_FRAME_MAP_CACHE_H

#include "../map/lanemap.h"
#include "../map/road_mesh.h"
#include "../scenery/scenery.h"
#include "../world/world.h"

/* The map of `path`, as sn_map_open gives it; while the cache is on, the cached one when the
** file's bytes are those cached under that path (sn_map_close hands it back). */
sn_map *sn_map_cache_open(const char *path, sn_error *err);
/* The road mesh of m, as sn_road_mesh_build gives it (the caller owns it); a copy of the
** cached one when m is a cached map. */
sn_status sn_map_cache_road_mesh(const sn_map *m, sn_road_mesh **out, sn_error *err);
/* sn_scenery_build's arguments and results, through the cache when m is a cached map: on a hit
** `mesh` is replaced by a copy of the grown one (the old freed) and *out filled with a copy. */
sn_status sn_map_cache_scenery(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines,
                               size_t n_lines, const sn_scenery_avoid *avoid, size_t n_avoid, sn_road_mesh **mesh,
                               sn_scenery *out, sn_error *err);

/* ODE's trimesh data of every chunk of `mesh` but paint (sn_world_set_roads_shared), when
** mesh is equal to the road mesh or a scenery mesh the cache keeps for m: built once on the
** cache's copy (*own), shared by every world since with that copy, freed with the cache's
** entry (after the last engine that holds m: a world is freed before its map). NULL (and
** *own NULL) otherwise. */
const dTriMeshDataID *sn_map_cache_road_data(const sn_map *m, const sn_road_mesh *mesh, const sn_road_mesh **own);

/* The no-copy paths of a cached map, for a load or a reset whose inputs the cache already holds
** (each copy and comparison of a town's mesh cost more than a fifth of a reset):
** sn_map_cache_roads_shared gives the cache's own road mesh of m (*own, read-only, alive while
** m is) and its ODE trimesh data; sn_map_cache_scenery_shared, when `roads` is that very mesh,
** the cache's grown mesh and data for these scenery inputs, with *out filled with a copy of
** the scenery (the caller frees it). false: not cached (or out of memory): the copying calls
** above apply, with the same results. */
bool sn_map_cache_roads_shared(const sn_map *m, const sn_road_mesh **own, const dTriMeshDataID **data);
bool sn_map_cache_scenery_shared(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines,
                                 size_t n_lines, const sn_scenery_avoid *avoid, size_t n_avoid,
                                 const sn_road_mesh *roads, const sn_road_mesh **own, const dTriMeshDataID **data,
                                 sn_scenery *out);

#endif
