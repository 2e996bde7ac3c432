/* api_traffic.c — the traffic-light calls of sensim.h (CARLA's carla.TrafficLight). */
#include "../sim/engine.h"
#include "../traffic/lights.h"
#include "../traffic/traffic.h"
#include "../traffic/signs.h"

#include "../core/error.h"
#include "../map/lanemap.h"

#include <math.h>
#include <stdlib.h>
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

/* ---- Vehicles and lights ---- */

/* CARLA's trigger box lies on the lane 1.5 m to 4.5 m before the stop line
** (Unreal/CarlaUE4/Source/CarlaUE4/.../TrafficLightComponent.cpp: BoxLength 1.5 m, centred
** BoxLength + AdditionalDistance 1.5 m before it). */
#define TL_BOX_NEAR 1.5
#define TL_BOX_FAR 4.5
#define TL_STEP 2.0

static int lane_dir_of(const sn_map *m, const sn_waypoint *w)
{
    int32_t ri = sn_odr_road_index(m->odr, w->road_id);
    return ri < 0 ? (w->lane_id < 0 ? 1 : -1) : sn_map_lane_dir(&m->odr->roads[ri], w->lane_id);
}

static double wrap180(double d)
{
    d = fmod(d, 360.0);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

/* Whether the autopilot's path holds lane (road, lane): the branch it will take. */
static bool on_path(const sn_actor *a, const sn_waypoint *w)
{
    const sn_mapdrive *md = a->has_autopilot && a->mv->ap ? a->mv->ap->map : NULL;
    for (uint32_t i = 0; md && i < md->n; i++)
        if (md->path[i].road_id == w->road_id && md->path[i].lane_id == w->lane_id)
            return true;
    return false;
}

/* Two boxes on the ground (centre, yaw in radians, half extents x and y) overlap. */
static bool obb_overlap(sn_vec3 c1, double yaw1, sn_vec3 e1, sn_vec3 c2, double yaw2, sn_vec3 e2)
{
    const double ax[4][2] = {{cos(yaw1), sin(yaw1)}, {-sin(yaw1), cos(yaw1)}, {cos(yaw2), sin(yaw2)}, {-sin(yaw2), cos(yaw2)}};
    const double dx = c2.x - c1.x, dy = c2.y - c1.y;
    for (int k = 0; k < 4; k++) {
        double r1 = e1.x * fabs(ax[0][0] * ax[k][0] + ax[0][1] * ax[k][1]) + e1.y * fabs(ax[1][0] * ax[k][0] + ax[1][1] * ax[k][1]);
        double r2 = e2.x * fabs(ax[2][0] * ax[k][0] + ax[2][1] * ax[k][1]) + e2.y * fabs(ax[3][0] * ax[k][0] + ax[3][1] * ax[k][1]);
        if (fabs(dx * ax[k][0] + dy * ax[k][1]) > r1 + r2)
            return false;
    }
    return true;
}

sn_status sn_engine_vehicle_traffic_light(const sn_engine *e, uint32_t vehicle, uint32_t *light, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !light)
        return sn_fail(err, SN_E_INVALID, "vehicle_traffic_light: NULL argument");
    *light = 0;
    const sn_actor *a = e->loaded ? sn_world_find(&e->world, vehicle) : NULL;
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "vehicle_traffic_light: no live actor has id %u", vehicle);
    if (a->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_INVALID, "vehicle_traffic_light: actor %u (%s) is no vehicle", vehicle, a->type_id);
    const sn_lights *ls = e->lights;
    const sn_map *m = e->map;
    sn_waypoint w;
    if (!ls || !ls->n_stops || !m || sn_map_waypoint(m, a->st.pos, true, SN_LANE_DRIVING, &w, NULL) != SN_OK)
        return SN_OK;
    /* Only on its lane, going its way. */
    sn_transform tf = sn_actor_world_transform(&e->world, a);
    double off = hypot(tf.location.x - w.transform.location.x, tf.location.y - w.transform.location.y);
    if (off > w.lane_width || fabs(wrap180(tf.rotation.yaw - w.transform.rotation.yaw)) > 90)
        return SN_OK;
    /* In a trigger box (bind.c's, CARLA's): the boxes overlap on the ground (separating axes). */
    const sn_vec3 ve = a->ph->bbox.extent;
    const double vyaw = tf.rotation.yaw * SN_DEG;
    for (uint32_t i = 0; i < ls->n_stops; i++) {
        const sn_tl_stop *st = &ls->stops[i];
        if (!ls->l[st->light].actor || fabs(st->box_location.z - (tf.location.z + ve.z)) > st->box_extent.z + ve.z + 1.0)
            continue;
        if (obb_overlap(tf.location, vyaw, ve, st->box_location, st->box_rotation.yaw * SN_DEG, st->box_extent)) {
            *light = ls->l[st->light].actor;
            return SN_OK;
        }
    }
    /* An autopilot: the light of the stop line its path meets within the box's reach. */
    if (!a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
        return SN_OK;
    const double ex = ve.x, lo = TL_BOX_NEAR - ex, hi = TL_BOX_FAR + ex;
    double base = 0;
    for (int step = 0; step < 16 && base + lo <= hi + TL_STEP; step++) {
        uint32_t ns;
        const sn_tl_stop *st = sn_lights_stops_of(ls, w.road_id, w.lane_id, &ns);
        int dir = ns ? lane_dir_of(m, &w) : 0;
        for (uint32_t k = 0; k < ns; k++) {
            double d = base + (st[k].s - w.s) * dir;
            if (d >= lo && d <= hi && ls->l[st[k].light].actor) {
                *light = ls->l[st[k].light].actor;
                return SN_OK;
            }
        }
        sn_waypoint nx[16];
        size_t k = 0;
        if (sn_map_next(m, &w, TL_STEP, nx, 16, &k, NULL) != SN_OK || k == 0)
            break;
        size_t pick = 0;
        for (size_t i = 0; i < k && i < 16; i++)
            if (on_path(a, &nx[i])) {
                pick = i;
                break;
            }
        w = nx[pick];
        base += TL_STEP;
    }
    return SN_OK;
}

sn_status sn_engine_traffic_lights_from_waypoint(const sn_engine *e, const sn_waypoint *wp, double distance,
                                                 uint32_t *out, size_t cap, size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    if (!e || !wp)
        return sn_fail(err, SN_E_INVALID, "traffic_lights_from_waypoint: NULL argument");
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "traffic_lights_from_waypoint: NULL output with a capacity of %zu", cap);
    if (!(distance >= 0 && distance <= 1e4))
        return sn_fail(err, SN_E_RANGE, "traffic_lights_from_waypoint: distance %g m is outside [0, 10000]", distance);
    const sn_lights *ls = e->lights;
    const sn_map *m = e->map;
    if (!ls || !ls->n_stops || !m)
        return SN_OK;
    /* Breadth first in steps of TL_STEP: lights come in the order of their distance. */
    enum { MAXQ = 8192 };
    sn_waypoint *q = malloc(MAXQ * sizeof *q);
    double *at = malloc(MAXQ * sizeof *at);
    uint32_t *seen = calloc(ls->n, sizeof *seen);
    if (!q || !at || !seen) {
        free(q), free(at), free(seen);
        return sn_fail(err, SN_E_NOMEM, "traffic_lights_from_waypoint: out of memory");
    }
    size_t head = 0, tail = 0, found = 0;
    q[tail] = *wp, at[tail++] = 0;
    while (head < tail) {
        sn_waypoint w = q[head];
        double base = at[head++];
        uint32_t ns;
        const sn_tl_stop *st = sn_lights_stops_of(ls, w.road_id, w.lane_id, &ns);
        int dir = ns ? lane_dir_of(m, &w) : 0;
        for (uint32_t k = 0; k < ns; k++) {
            double ds = (st[k].s - w.s) * dir;
            if (ds >= -1e-6 && ds < TL_STEP + 1e-6 && base + ds <= distance && !seen[st[k].light] &&
                ls->l[st[k].light].actor) {
                seen[st[k].light] = 1;
                if (found < cap)
                    out[found] = ls->l[st[k].light].actor;
                found++;
            }
        }
        if (base + TL_STEP > distance)
            continue;
        sn_waypoint nx[16];
        size_t k = 0;
        if (sn_map_next(m, &w, TL_STEP, nx, 16, &k, NULL) != SN_OK)
            continue;
        for (size_t i = 0; i < k && i < 16 && tail < MAXQ; i++)
            q[tail] = nx[i], at[tail++] = base + TL_STEP;
    }
    free(q), free(at), free(seen);
    if (n)
        *n = found;
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
