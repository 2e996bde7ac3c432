/* api_walkers.c — walkers that navigate: CARLA's navigation calls and its AI walker
** controller (sensim.h) on traffic/walkers.c. */
#include "../core/error.h"
#include "../sim/engine.h"
#include "../traffic/walkers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sn_status ready(sn_engine *e, const char *what, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
    if (!e->loaded || e->broken)
        return sn_fail(err, SN_E_STATE, "%s: no scene loaded", what);
    if (!e->map)
        return sn_fail(err, SN_E_STATE, "%s: the scene has no map (map: FILE.xodr) whose sidewalks to walk", what);
    return SN_OK;
}

static sn_status walkers(sn_engine *e, const char *what, struct sn_walkers **w, sn_error *err)
{
    sn_status st = ready(e, what, err);
    if (!st && (st = sn_walkers_get(e, w, err)))
        sn_error_prefix(err, what);
    return st;
}

static sn_status walker(sn_engine *e, uint32_t id, const char *what, sn_actor **out, sn_error *err)
{
    sn_status st = ready(e, what, err);
    if (st)
        return st;
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "%s: no live actor has id %u", what, id);
    if (a->kind != SN_ACTOR_WALKER)
        return sn_fail(err, SN_E_INVALID, "%s: '%s' (%s) is no walker", what, a->name, a->type_id);
    *out = a;
    return SN_OK;
}

sn_status sn_engine_random_navigation_location(sn_engine *e, sn_vec3 *loc, sn_error *err)
{
    SN_ERR_LOCAL(err);
    struct sn_walkers *w;
    sn_status st = walkers(e, "get_random_location_from_navigation", &w, err);
    if (st)
        return st;
    if (!loc)
        return sn_fail(err, SN_E_INVALID, "get_random_location_from_navigation: NULL location");
    if ((st = sn_walkers_random_location(e, loc, err)))
        sn_error_prefix(err, "get_random_location_from_navigation");
    return st;
}

sn_status sn_engine_set_pedestrians_cross_factor(sn_engine *e, double percentage, sn_error *err)
{
    SN_ERR_LOCAL(err);
    struct sn_walkers *w;
    sn_status st = walkers(e, "set_pedestrians_cross_factor", &w, err);
    if (st)
        return st;
    if (!(percentage >= 0 && percentage <= 1))
        return sn_fail(err, SN_E_RANGE, "set_pedestrians_cross_factor: %g is no share within [0, 1]", percentage);
    sn_walkers_set_cross_factor(w, percentage);
    return SN_OK;
}

sn_status sn_engine_set_pedestrians_seed(sn_engine *e, uint64_t seed, sn_error *err)
{
    SN_ERR_LOCAL(err);
    struct sn_walkers *w;
    sn_status st = walkers(e, "set_pedestrians_seed", &w, err);
    if (!st)
        sn_walkers_set_seed(w, seed);
    return st;
}

sn_status sn_engine_walker_ai_start(sn_engine *e, uint32_t id, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = NULL;
    sn_status st = walker(e, id, "controller.ai.walker start", &a, err);
    if (!st && (st = sn_walker_ai_start(e, a, err)))
        sn_error_prefix(err, "controller.ai.walker start");
    return st;
}

sn_status sn_engine_walker_ai_stop(sn_engine *e, uint32_t id, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = NULL;
    sn_status st = walker(e, id, "controller.ai.walker stop", &a, err);
    if (st)
        return st;
    if (a->mv->ap) {
        sn_mapdrive_free(a->mv->ap->map);
        free(a->mv->ap->route);
        *a->mv->ap = (sn_autopilot){0};
    }
    a->has_autopilot = false;
    a->mv->walk_speed = 0; /* CARLA: the walker stops where it is */
    return SN_OK;
}

sn_status sn_engine_walker_ai_go_to_location(sn_engine *e, uint32_t id, sn_vec3 dest, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = NULL;
    sn_status st = walker(e, id, "controller.ai.walker go_to_location", &a, err);
    if (st)
        return st;
    if (!isfinite(dest.x) || !isfinite(dest.y) || !isfinite(dest.z))
        return sn_fail(err, SN_E_INVALID, "controller.ai.walker go_to_location: the location is not finite");
    if ((st = sn_walker_ai_go_to(e, a, dest, err)))
        sn_error_prefix(err, "controller.ai.walker go_to_location");
    return st;
}

sn_status sn_engine_walker_ai_set_max_speed(sn_engine *e, uint32_t id, double speed, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = NULL;
    sn_status st = walker(e, id, "controller.ai.walker set_max_speed", &a, err);
    if (st)
        return st;
    if (!(speed > 0 && speed <= 10))
        return sn_fail(err, SN_E_RANGE, "controller.ai.walker set_max_speed: %g m/s is outside (0, 10]", speed);
    if ((st = sn_walker_ai_set_max_speed(e, a, speed, err)))
        sn_error_prefix(err, "controller.ai.walker set_max_speed");
    return st;
}

sn_status sn_engine_navigation_info(sn_engine *e, sn_navigation_info *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    struct sn_walkers *w;
    sn_status st = walkers(e, "navigation_info", &w, err);
    if (st)
        return st;
    if (!out || out->struct_size < sizeof(uint32_t) || out->struct_size > 4096)
        return sn_fail(err, SN_E_INVALID, "navigation_info: sn_navigation_info.struct_size is not set");
    const sn_nav *n = sn_walkers_nav(w);
    sn_navigation_info r = {.struct_size = out->struct_size, .nodes = n->n_nodes, .edges = n->n_edges,
                            .components = n->n_comps, .sidewalk_lanes = n->n_lanes};
    for (uint32_t i = 0; i < n->n_cross; i++) {
        r.crosswalks += n->cross[i].kind == SN_NAV_CROSSWALK;
        r.corner_crossings += n->cross[i].kind == SN_NAV_CORNER;
        r.road_crossings += n->cross[i].kind == SN_NAV_ROAD;
    }
    r.sidewalk_km = n->n_walk ? n->walk_cum[n->n_walk - 1] / 1000 : 0;
    /* lanes in the component that holds most of them */
    uint32_t *cnt = calloc(n->n_comps ? n->n_comps : 1, sizeof *cnt);
    if (!cnt)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n->n_lanes; i++)
        if (++cnt[n->lane_comp[i]] > r.largest_lanes)
            r.largest_lanes = cnt[n->lane_comp[i]];
    free(cnt);
    uint32_t size = out->struct_size < sizeof r ? out->struct_size : (uint32_t)sizeof r;
    memcpy(out, &r, size);
    return SN_OK;
}
