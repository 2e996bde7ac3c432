/* roads.c — the map's surfaces as static physics geometry.
**
** Each chunk of the road mesh but paint becomes an ODE trimesh (OPCODE) in the static space,
** so the static broadphase (sbp.c), the wheels' rays (vehicle.c), contacts (contacts.c), ray
** casts and the spawn check meet it like any static prop; a chunk covers at most
** SN_ROAD_PIECE m of one road, so its box is local. The geoms' data are stand-in actors, one
** per category, never in the registry: id 0, kind static, the category's tag, `ground` for
** surfaces. Contacts with ground are support (no collision pair); kerb faces are obstacles
** and a hit on one is a collision with actor 0. Paint is left out: 1.5 cm steps under the
** wheels at every line are not worth having. */
#include "world.h"

#include "geom_pool.h"
#include "../map/road_mesh.h"
#include "../scenery/scenery.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(dTriIndex) == sizeof(uint32_t), "the road mesh hands ODE 32-bit indices");

static const char *const stand_in_type[SN_ROAD_N_CATEGORIES] = { /* scenery's: sn_scenery_type */
    "map.road", "map.sidewalk", "map.terrain", "map.rail_track", "map.kerb",
    "map.road_line", "map.road_line", "map.road_line", "map.road_line", "map.road_line",
};
static char no_name[1]; /* stand-ins have no name; never written */

void sn_world_free_roads(sn_world *w)
{
    if (!w->poisoned) {
        /* over the map cache's data, which outlives this world: kept for the next (a reset's) */
        for (size_t i = 0; i < w->n_road_geoms; i++)
            if (!(w->road_data_shared && w->geom_pool && sn_geom_pool_put(w->geom_pool, w->road_geoms[i])))
                dGeomDestroy(w->road_geoms[i]);
        for (size_t i = 0; i < w->n_road_geoms && !w->road_data_shared; i++)
            dGeomTriMeshDataDestroy(w->road_data[i]);
    }
    free(w->road_geoms);
    free(w->road_data);
    free(w->road_as);
    if (!w->road_data_shared) /* shared: the map cache's copy */
        sn_road_mesh_free(w->roads);
    w->road_geoms = NULL;
    w->road_data = NULL;
    w->road_as = NULL;
    w->roads = NULL;
    w->n_road_geoms = 0;
    w->road_data_shared = false;
}

/* A chunk's trimesh data: its own vertices and triangles (chunk-local indices). */
static dTriMeshDataID chunk_data(const sn_road_mesh *m, const sn_road_chunk *k)
{
    dTriMeshDataID d = dGeomTriMeshDataCreate();
    dGeomTriMeshDataBuildDouble(d, m->v[k->v_first], 3 * sizeof(double), (int)k->v_count, m->t[k->first],
                                (int)(3 * k->count), 3 * sizeof(uint32_t));
    return d;
}

dTriMeshDataID *sn_world_road_data_build(const sn_road_mesh *m, size_t *n)
{
    dTriMeshDataID *d = calloc(m->n_chunks ? m->n_chunks : 1, sizeof *d);
    *n = 0;
    if (!d)
        return NULL;
    dAllocateODEDataForThread(dAllocateMaskAll);
    for (uint32_t i = 0; i < m->n_chunks; i++)
        if (m->chunks[i].part != SN_ROAD_MARK)
            d[(*n)++] = chunk_data(m, &m->chunks[i]);
    return d;
}

void sn_world_road_data_free(dTriMeshDataID *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        dGeomTriMeshDataDestroy(d[i]);
    free(d);
}

sn_status sn_world_set_roads(sn_world *w, sn_road_mesh *m, sn_error *err)
{
    return sn_world_set_roads_shared(w, m, NULL, NULL, err);
}

sn_status sn_world_set_roads_shared(sn_world *w, sn_road_mesh *m, const sn_road_mesh *own, const dTriMeshDataID *shared,
                                    sn_error *err)
{
    sn_world_free_roads(w);
    if (shared && own) { /* the cache's equal copy, read by every engine that shares it */
        sn_road_mesh_free(m);
        m = (sn_road_mesh *)own; /* never written: road_data_shared keeps it from being freed */
        w->road_data_shared = true;
    } else
        shared = NULL;
    w->roads = m;
    if (!m)
        return SN_OK;
    /* The stand-ins, then their shape parts (zeros: reflectivity 0, no body), in one block. */
    /* (scenery's categories follow the roads': scenery/scenery.h) */
    w->road_as = calloc(SN_CHUNK_N_CATEGORIES, sizeof *w->road_as + sizeof *w->road_as->ph);
    w->road_geoms = calloc(m->n_chunks ? m->n_chunks : 1, sizeof *w->road_geoms);
    w->road_data = calloc(m->n_chunks ? m->n_chunks : 1, sizeof *w->road_data);
    if (!w->road_as || !w->road_geoms || !w->road_data) {
        sn_world_free_roads(w);
        return sn_fail(err, SN_E_NOMEM, "map: out of memory for the roads' physics");
    }
    for (int c = 0; c < SN_CHUNK_N_CATEGORIES; c++) {
        sn_actor *a = &w->road_as[c];
        const sn_road_category *k = sn_chunk_category((uint32_t)c);
        a->ph = (sn_actor_phys *)(void *)(w->road_as + SN_CHUNK_N_CATEGORIES) + c;
        a->id = 0;
        a->kind = SN_ACTOR_STATIC;
        a->type_id = c < SN_ROAD_N_CATEGORIES ? stand_in_type[c] : sn_scenery_type[c - SN_ROAD_N_CATEGORIES];
        a->name = a->role_name = no_name;
        a->tag = k->tag;
        memcpy(a->color, k->rgb, 3);
        a->ground = k->part == SN_ROAD_SURFACE;
        a->st.rot = a->st.prev_rot = (sn_quat){1, 0, 0, 0};
    }
    w->road_data_shared = shared != NULL;
    dAllocateODEDataForThread(dAllocateMaskAll);
    /* the pool gives a reset's geoms back in the order they were made; a miss means a set it
    ** does not hold (a load's first scenery, say): asking on would scan it for every chunk */
    bool ask_pool = shared && w->geom_pool;
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const sn_road_chunk *k = &m->chunks[i];
        if (k->part == SN_ROAD_MARK)
            continue;
        dTriMeshDataID d = shared ? shared[w->n_road_geoms] : chunk_data(m, k);
        dGeomID g = ask_pool ? sn_geom_pool_take(w->geom_pool, d, w->static_space) : NULL;
        if (!g)
            ask_pool = false, g = dCreateTriMesh(w->static_space, d, NULL, NULL, NULL);
        dGeomSetData(g, &w->road_as[k->category]);
        /* the static space's bits, as every static: queries skip crash boxes themselves */
        dGeomSetCategoryBits(g, 1);
        dGeomSetCollideBits(g, ~(unsigned long)SN_CAT_CRASH);
        w->road_data[w->n_road_geoms] = d;
        w->road_geoms[w->n_road_geoms++] = g;
    }
    for (size_t i = 0; i < w->n_bodies; i++)
        if (!sn_wheel_cache_alloc(w, w->bodies[i]))
            return sn_fail(err, SN_E_NOMEM, "map: out of memory for the wheels' road cache");
    w->gen++;
    w->static_gen++;
    return SN_OK;
}

bool sn_wheel_cache_alloc(sn_world *w, sn_actor *a)
{
    if (a->kind != SN_ACTOR_VEHICLE || !w->roads || a->mv->wheel_tri)
        return true;
    return (a->mv->wheel_tri = calloc(4, sizeof *a->mv->wheel_tri)) != NULL;
}
