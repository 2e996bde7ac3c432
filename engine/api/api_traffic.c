/* api_traffic.c — the traffic-light calls of sensim.h (CARLA's carla.TrafficLight). */
#include "../sim/engine.h"
#include "../traffic/lights.h"
#include "../traffic/signs.h"

#include "../core/error.h"
#include "../map/lanemap.h"

#include <math.h>
#include <string.h>

static sn_tlight *light_of(const sn_engine *e, const char *what, uint32_t id, sn_error *err)
{
    if (!e) {
        sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
        return NULL;
    }
    sn_tlight *t = sn_lights_find(e->lights, id);
    if (!t)
        sn_fail(err, SN_E_NOT_FOUND, "%s: actor %u is no live traffic light", what, id);
    return t;
}

uint32_t sn_engine_traffic_light_count(const sn_engine *e)
{
    uint32_t n = 0;
    for (uint32_t i = 0; e && e->lights && i < e->lights->n; i++)
        n += e->lights->l[i].actor != 0;
    return n;
}

uint32_t sn_engine_traffic_light_at(const sn_engine *e, uint32_t index)
{
    for (uint32_t i = 0; e && e->lights && i < e->lights->n; i++)
        if (e->lights->l[i].actor && index-- == 0)
            return e->lights->l[i].actor;
    return 0;
}

sn_status sn_engine_traffic_light_info(const sn_engine *e, uint32_t id, sn_traffic_light_info *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_info", id, err);
    if (!t)
        return err->status;
    if (!out || out->struct_size < sizeof *out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_info: set out->struct_size = sizeof(sn_traffic_light_info)");
    const sn_lights *ls = e->lights;
    const sn_tl_group *g = &ls->g[t->group];
    const sn_tl_ctl *c = &ls->ctl[g->first_ctl + t->ctl];
    uint32_t n_stops = 0, n_lanes = 0;
    for (uint32_t i = 0; i < ls->n_stops; i++)
        n_stops += &ls->l[ls->stops[i].light] == t;
    for (uint32_t i = 0; i < ls->n_lanes; i++)
        n_lanes += &ls->l[ls->lanes[i].light] == t;
    *out = (sn_traffic_light_info){
        .struct_size = sizeof *out, .id = id, .opendrive_id = t->signal_id, .road_id = t->road_id,
        .junction_id = g->junction_id, .pole_index = t->ctl, .state = (sn_traffic_light_state)t->state,
        .frozen = g->frozen, .green_time = c->ns[0] * 1e-9, .yellow_time = c->ns[1] * 1e-9, .red_time = c->ns[2] * 1e-9,
        .elapsed_time = (g->stage_ns - g->timer_ns) * 1e-9, .n_stops = n_stops,
        .n_affected_lanes = n_lanes};
    return SN_OK;
}

sn_status sn_engine_traffic_light_get_state(const sn_engine *e, uint32_t id, sn_traffic_light_state *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_get_state", id, err);
    if (!t)
        return err->status;
    if (!out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_get_state: NULL output");
    *out = (sn_traffic_light_state)t->state;
    return SN_OK;
}

sn_status sn_engine_traffic_light_set_state(sn_engine *e, uint32_t id, sn_traffic_light_state state, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_set_state", id, err);
    if (!t)
        return err->status;
    if ((unsigned)state > SN_TL_UNKNOWN)
        return sn_fail(err, SN_E_RANGE, "traffic_light_set_state: state %d is none of RED (0) ... UNKNOWN (4)", (int)state);
    sn_lights_set(e, t, (uint8_t)state);
    return SN_OK;
}

sn_status sn_engine_traffic_light_freeze(sn_engine *e, uint32_t id, bool freeze, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "traffic_light_freeze: NULL engine");
    if (id == 0) {
        for (uint32_t i = 0; e->lights && i < e->lights->n_g; i++)
            e->lights->g[i].frozen = freeze;
        return SN_OK;
    }
    sn_tlight *t = light_of(e, "traffic_light_freeze", id, err);
    if (!t)
        return err->status;
    e->lights->g[t->group].frozen = freeze;
    return SN_OK;
}

sn_status sn_engine_traffic_light_set_times(sn_engine *e, uint32_t id, double green, double yellow, double red,
                                            sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_set_times", id, err);
    if (!t)
        return err->status;
    const double v[3] = {green, yellow, red};
    for (int i = 0; i < 3; i++)
        if (!(v[i] > 0 && v[i] <= 1e6))
            return sn_fail(err, SN_E_RANGE, "traffic_light_set_times: times must be within (0, 1e6] s");
    sn_tl_ctl *c = &e->lights->ctl[e->lights->g[t->group].first_ctl + t->ctl];
    for (int i = 0; i < 3; i++)
        c->ns[i] = llround(v[i] * 1e9);
    return SN_OK;
}

sn_status sn_engine_traffic_light_reset_group(sn_engine *e, uint32_t id, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_reset_group", id, err);
    if (!t)
        return err->status;
    sn_lights_reset_group(e, t->group);
    return SN_OK;
}

sn_status sn_engine_traffic_light_group(const sn_engine *e, uint32_t id, uint32_t *out, size_t cap, size_t *n,
                                        sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_group", id, err);
    if (!t)
        return err->status;
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_group: NULL output with a capacity of %zu", cap);
    size_t k = 0;
    for (uint32_t i = 0; i < e->lights->n; i++) {
        const sn_tlight *o = &e->lights->l[i];
        if (o->actor && o->group == t->group) {
            if (k < cap)
                out[k] = o->actor;
            k++;
        }
    }
    if (n)
        *n = k;
    return SN_OK;
}

sn_status sn_engine_traffic_light_stops(const sn_engine *e, uint32_t id, sn_waypoint *out, size_t cap, size_t *n,
                                        sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_stops", id, err);
    if (!t)
        return err->status;
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_stops: NULL output with a capacity of %zu", cap);
    const sn_lights *ls = e->lights;
    size_t k = 0;
    for (uint32_t i = 0; i < ls->n_stops; i++) {
        if (&ls->l[ls->stops[i].light] != t)
            continue;
        if (k < cap && e->map) {
            const sn_tl_stop *s = &ls->stops[i];
            sn_error e2 = {0};
            if (sn_map_waypoint_xodr(e->map, s->road_id, s->lane_id, s->s, &out[k], &e2) != SN_OK)
                memset(&out[k], 0, sizeof out[k]);
        }
        k++;
    }
    if (n)
        *n = k;
    return SN_OK;
}

sn_status sn_engine_traffic_light_affected_lanes(const sn_engine *e, uint32_t id, sn_waypoint *out, size_t cap,
                                                 size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_affected_lanes", id, err);
    if (!t)
        return err->status;
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_affected_lanes: NULL output with a capacity of %zu", cap);
    const sn_lights *ls = e->lights;
    size_t k = 0;
    for (uint32_t i = 0; i < ls->n_lanes; i++) {
        const sn_tl_lane *l = &ls->lanes[i];
        if (&ls->l[l->light] != t)
            continue;
        if (k < cap && e->map) {
            sn_error e2 = {0};
            if (sn_map_waypoint_xodr(e->map, l->road_id, l->lane_id, l->s, &out[k], &e2) != SN_OK)
                memset(&out[k], 0, sizeof out[k]);
        }
        k++;
    }
    if (n)
        *n = k;
    return SN_OK;
}

sn_status sn_engine_traffic_light_trigger_volumes(const sn_engine *e, uint32_t id, sn_trigger_volume *out, size_t cap,
                                                  size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_tlight *t = light_of(e, "traffic_light_trigger_volumes", id, err);
    if (!t)
        return err->status;
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "traffic_light_trigger_volumes: NULL output with a capacity of %zu", cap);
    const sn_lights *ls = e->lights;
    size_t k = 0;
    for (uint32_t i = 0; i < ls->n_stops; i++) {
        const sn_tl_stop *s = &ls->stops[i];
        if (&ls->l[s->light] != t)
            continue;
        if (k < cap)
            out[k] = (sn_trigger_volume){s->box_location, s->box_extent, s->box_rotation};
        k++;
    }
    if (n)
        *n = k;
    return SN_OK;
}

sn_status sn_engine_vehicle_speed_limit(const sn_engine *e, uint32_t id, double *kmh, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !kmh)
        return sn_fail(err, SN_E_INVALID, "vehicle_speed_limit: NULL engine or output");
    const sn_actor *a = sn_world_find(&e->world, id);
    if (!a || a->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_NOT_FOUND, "vehicle_speed_limit: actor %u is no live vehicle", id);
    *kmh = sn_signs_vehicle_limit_kmh(e, a);
    return SN_OK;
}
