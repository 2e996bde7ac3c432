/* api_reset.c — sn_engine_reset: the loaded scene back to its first frame, in place.
**
** A reset tears down what the scene built (world, sensors, class state, streams' listeners)
** and builds it again from the parsed scene the engine keeps, with the plugin library left
** loaded: no scene file is read and no plugin is opened again, so an RL environment can reset
** every episode at the cost of building the world. The scene's map, read-only once parsed,
** is kept too, and so are its traffic lights' places (engine.h light_t) and its walkers'
** navigation graph (kept_nav); its road mesh is built
** again with the world unless the map cache holds it (frame/map_cache.h), and then the roads' and
** scenery's ODE trimesh geoms over the cache's data are kept too, taken again by the build as new
** (world/geom_pool.h). What a build does is exactly
** what a load does after parsing,
** so a run after a reset is byte-identical to a fresh load's with the same seed. */
#include "../sim/engine.h"
#include "../sim/../frame/frame.h"

#include "../core/error.h"
#include "../traffic/walkers.h"

#include <string.h>

sn_status sn_engine_reset(sn_engine *e, const uint64_t *seed, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "reset: NULL engine");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "reset: no scene loaded");
    if (e->in_step)
        return sn_fail(err, SN_E_STATE, "reset: called inside a step");
    if (e->replay)
        return sn_fail(err, SN_E_STATE, "reset: the engine replays a recording; load it again instead");
    /* Open streams would be cut in the middle (unload removes unfinished files): the caller
    ** decides whether they are complete. */
    if (e->outputs_open)
        return sn_fail(err, SN_E_STATE, "reset: outputs are open; call sn_engine_finish first");
    /* Keep the parsed scene out of the unload, which frees it, then build it again. The
    ** build mutates nothing of it but filling in the map's geo-reference, which it fills
    ** again with the same value. */
    sn_scene keep = e->scene;
    memset(&e->scene, 0, sizeof e->scene);
    sn_map *map = e->map;
    e->map = NULL;
    const uint64_t use = seed ? *seed : e->seed;
    double *light_t = e->light_t; /* the same map's lights stand where they stood */
    const uint32_t n_light_t = e->n_light_t;
    e->light_t = NULL;
    /* and its walkers walk the same graph */
    struct sn_nav *nav = sn_walkers_take_nav(e);
    /* The roads' geoms over the map cache's data into the pool (world.geom_pool, lent by the
    ** build), kept out of the unload for the build to take again (world/geom_pool.h). */
    sn_world_free_roads(&e->world);
    sn_geom_pool pool = e->road_pool;
    memset(&e->road_pool, 0, sizeof e->road_pool);
    sn_engine_unload(e);
    e->scene = keep;
    e->reuse_map = map;
    e->light_t = light_t, e->n_light_t = n_light_t;
    e->kept_nav = nav;
    e->road_pool = pool;
    /* What a fresh engine starts with and unload leaves as it was: a failed step's stop (the
    ** world it failed in is gone) and the frame the world last advanced to. */
    e->broken = false;
    e->advanced_frame = 0;
    /* The build takes its seed from the options (a --seed) or the scene: lend it ours. */
    const bool had_set = e->opts.seed_set;
    const uint64_t had = e->opts.seed;
    e->opts.seed_set = true, e->opts.seed = use;
    sn_status st = sn_engine_build_loaded(e, err); /* on failure it unloads, the scene with it */
    e->opts.seed_set = had_set, e->opts.seed = had;
    sn_map_close(e->reuse_map); /* not taken when the build failed before the map */
    e->reuse_map = NULL;
    sn_nav_free(e->kept_nav); /* not taken: no walkers this time, or a failed build */
    e->kept_nav = NULL;
    return st ? sn_error_prefix(err, "reset") : SN_OK;
}

uint64_t sn_engine_seed(const sn_engine *e) { return e ? e->seed : 0; }
