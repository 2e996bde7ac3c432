/* ogrid.h — a uniform 2-D grid of the bodies' bounding spheres, for the spawn-overlap check.
**
** Loading thousands of vehicles checks each new one against those already placed; a scan per
** spawn made that quadratic. The grid is rebuilt lazily when anything has moved since it was
** built (w->motion_gen) and takes each new body as it spawns. */
#ifndef SN_WORLD_OGRID_H
#define SN_WORLD_OGRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sn_actor;
struct sn_world;

typedef struct sn_ogrid {
    uint64_t *keys;  /* cell keys, open addressing */
    int32_t *head;   /* first entry of each cell, -1 = empty slot */
    size_t cap, used;
    struct sn_actor **ent; /* entries, chained per cell through next */
    int32_t *next;
    size_t n_ent, cap_ent;
    double rmax;     /* the largest bounding radius inserted */
    uint64_t motion_gen;
    bool built;
} sn_ogrid;

void sn_ogrid_free(sn_ogrid *g);
/* Frees a built grid's storage: once bodies move it is stale, and the next spawn builds it
** again (60 bytes a body kept for nothing between a scene's spawns). */
void sn_ogrid_release(sn_ogrid *g);
/* Brings the grid up to date with the world's bodies; false when out of memory. */
bool sn_ogrid_sync(struct sn_world *w);
/* Adds one new body (when the grid is up to date); false when out of memory. */
bool sn_ogrid_add(struct sn_world *w, struct sn_actor *a);
/* Calls fn for every body whose bounding sphere may touch the sphere (c, r). */
void sn_ogrid_near(const struct sn_world *w, double cx, double cy, double r,
                   void (*fn)(void *user, struct sn_actor *a), void *user);

#endif
