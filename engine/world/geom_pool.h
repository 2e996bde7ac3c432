/* geom_pool.h — ODE trimesh geoms kept for the next world instead of destroyed and made again.
**
** A reset tears the world down and builds the same one: its roads' and scenery's trimesh geoms
** (about a thousand on the town map, each over the map cache's shared data) were a third of a
** reset's instructions, made and destroyed. A world lent a pool puts its geoms over shared data
** back into it (out of their space) and takes them again by their data, made as new: in the
** space at the front and dirty, as dCreateTriMesh leaves one, with no temporal-coherence cache
** and a zero last transform (geom_pool.c). Only for geoms at the origin, as the roads' are. Only for data that outlives the world (the map
** cache's): the engine owns the pool, keeps it across a reset and empties it when it unloads. */
#ifndef SN_GEOM_POOL_H
#define SN_GEOM_POOL_H

#include <ode/ode.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct sn_geom_pool {
    dGeomID *g;    /* put back, in the order put; NULL where one was taken */
    size_t n, cap; /* slots used, allocated */
    size_t live;   /* slots not NULL */
    size_t cursor; /* where the next take starts looking: takes come in the order of the puts */
} sn_geom_pool;

/* Takes g (a trimesh geom without a body) out of its space and keeps it. False: no memory, g
** left as it was (the caller destroys it). */
bool sn_geom_pool_put(sn_geom_pool *p, dGeomID g);

/* A kept geom over `data`, added to `space` as dCreateTriMesh(space, data, NULL, NULL, NULL)
** would make it; NULL when none is kept (the caller makes one). */
dGeomID sn_geom_pool_take(sn_geom_pool *p, dTriMeshDataID data, dSpaceID space);

/* Destroys every kept geom and frees the pool (empty again, reusable). */
void sn_geom_pool_free(sn_geom_pool *p);

#endif
