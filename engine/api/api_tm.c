/* api_tm.c — CARLA's Traffic Manager calls of sensim.h (sn_engine_tm_*): validation, then the
** settings of traffic/tm.h, which the map autopilot reads (docs/traffic.md). */
#include "../core/error.h"
#include "../sim/engine.h"
#include "../traffic/tm.h"
#include "../traffic/traffic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sn_status check_engine(const sn_engine *e, const char *what, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
    if (!e->loaded || e->broken)
        return sn_fail(err, SN_E_STATE, "%s: no scene loaded", what);
    return SN_OK;
}

static sn_status check_port(uint32_t port, const char *what, sn_error *err)
{
    if (port < 1024 || port > 65535)
        return sn_fail(err, SN_E_RANGE, "%s: port %u is outside 1024..65535 (CARLA's 8000 by default)", what, port);
    return SN_OK;
}

/* The vehicle `id`, or NULL with err set. */
static sn_actor *vehicle_of(const sn_engine *e, uint32_t id, const char *what, sn_error *err)
{
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a) {
        sn_fail(err, SN_E_NOT_FOUND, "%s: no live actor has id %u", what, id);
        return NULL;
    }
    if (a->kind != SN_ACTOR_VEHICLE) {
        sn_fail(err, SN_E_INVALID, "%s: '%s' (%s, actor %u) is no vehicle", what, a->name ? a->name : "",
                a->type_id, id);
        return NULL;
    }
    return a;
}

sn_status sn_engine_tm_set(sn_engine *e, uint32_t port, uint32_t vehicle, sn_tm_param param, double value,
                           sn_error *err)
{
    SN_ERR_LOCAL(err);
    const char *what = "traffic_manager";
    if (check_engine(e, what, err))
        return err->status;
    const sn_tm_param_def *d = sn_tm_param_info(param);
    if (!d)
        return sn_fail(err, SN_E_INVALID, "%s: no setting %d (sn_tm_param 0..%d)", what, (int)param,
                       SN_TM_PARAM_COUNT - 1);
    if (!(value >= d->lo && value <= d->hi) || (d->boolean && value != 0 && value != 1))
        return d->boolean ? sn_fail(err, SN_E_RANGE, "%s: %s is %g; it is 0 or 1", what, d->name, value)
                          : sn_fail(err, SN_E_RANGE, "%s: %s %g %s is outside [%g, %g]", what, d->name, value,
                                    d->unit, d->lo, d->hi);
    if (vehicle == 0) {
        if (!d->global)
            return sn_fail(err, SN_E_INVALID, "%s: %s is set per vehicle (give its id)", what, d->name);
        if (check_port(port, what, err))
            return err->status;
        sn_tm *t = sn_tms_get(e, port, true);
        if (!t)
            return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
        t->v[param] = value;
        if (!sn_tm_apply_port(e, port))
            return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
        return SN_OK;
    }
    if (!d->vehicle)
        return sn_fail(err, SN_E_INVALID, "%s: %s is a setting of the Traffic Manager (vehicle 0), not of a vehicle",
                       what, d->name);
    sn_actor *a = vehicle_of(e, vehicle, what, err);
    if (!a)
        return err->status;
    sn_tm_vehicle *v = sn_tms_vehicle(e, vehicle, true);
    if (!v)
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    if (!sn_tm_vehicle_own(v, param, value))
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    /* CARLA's SetPercentageSpeedDifference and SetDesiredSpeed each drop the other. */
    if (param == SN_TM_PERCENTAGE_SPEED_DIFFERENCE)
        v->own &= ~(1u << SN_TM_DESIRED_SPEED);
    if (param == SN_TM_DESIRED_SPEED)
        v->own &= ~(1u << SN_TM_PERCENTAGE_SPEED_DIFFERENCE);
    if (!sn_tm_apply(e, a))
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    return SN_OK;
}

sn_status sn_engine_tm_get(const sn_engine *e, uint32_t port, uint32_t vehicle, sn_tm_param param, double *value,
                           sn_error *err)
{
    SN_ERR_LOCAL(err);
    const char *what = "traffic_manager";
    if (check_engine(e, what, err))
        return err->status;
    const sn_tm_param_def *d = sn_tm_param_info(param);
    if (!d)
        return sn_fail(err, SN_E_INVALID, "%s: no setting %d", what, (int)param);
    if (!value)
        return sn_fail(err, SN_E_INVALID, "%s: NULL output", what);
    if (vehicle == 0) {
        if (check_port(port, what, err))
            return err->status;
        const sn_tm *t = sn_tms_get((sn_engine *)e, port, false);
        *value = t ? t->v[param] : d->def;
        return SN_OK;
    }
    if (!vehicle_of(e, vehicle, what, err))
        return err->status;
    const sn_tm_vehicle *v = sn_tms_vehicle((sn_engine *)e, vehicle, false);
    if (param == SN_TM_DESIRED_SPEED) {
        bool own = v && (v->own >> param & 1) && !(v->own >> SN_TM_PERCENTAGE_SPEED_DIFFERENCE & 1);
        *value = own ? v->v[param] : -1;
        return SN_OK;
    }
    if (!d->vehicle) { /* its Traffic Manager's */
        const sn_tm *t = sn_tms_get((sn_engine *)e, v && v->port ? v->port : SN_TM_DEFAULT_PORT, false);
        *value = t ? t->v[param] : d->def;
        return SN_OK;
    }
    *value = sn_tm_value(e, v, param);
    return SN_OK;
}

sn_status sn_engine_tm_force_lane_change(sn_engine *e, uint32_t vehicle, bool right, sn_error *err)
{
    SN_ERR_LOCAL(err);
    const char *what = "force_lane_change";
    if (check_engine(e, what, err))
        return err->status;
    sn_actor *a = vehicle_of(e, vehicle, what, err);
    if (!a)
        return err->status;
    if (!a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
        return sn_fail(err, SN_E_STATE, "%s: vehicle %u has no autopilot on the map (set_autopilot(True) first)",
                       what, vehicle);
    a->mv->ap->map->force_lane_change = right ? 1 : -1;
    a->mv->ap->map->asleep = false; /* it decides on the request now (traffic.c, vehicle_sleep) */
    return SN_OK;
}

/* A new plan for a vehicle (n == 0: none), handed to its autopilot. */
static sn_status set_plan(sn_engine *e, uint32_t vehicle, const sn_vec3 *pts, const sn_tm_turn *turns, size_t n,
                          const char *what, sn_error *err)
{
    if (check_engine(e, what, err))
        return err->status;
    sn_actor *a = vehicle_of(e, vehicle, what, err);
    if (!a)
        return err->status;
    if (n && !pts && !turns)
        return sn_fail(err, SN_E_INVALID, "%s: NULL list of %zu", what, n);
    if (n > SN_TM_MAX_PATH)
        return sn_fail(err, SN_E_RANGE, "%s: %zu entries; at most %u", what, n, SN_TM_MAX_PATH);
    for (size_t i = 0; pts && i < n; i++)
        if (!isfinite(pts[i].x) || !isfinite(pts[i].y) || !isfinite(pts[i].z) || fabs(pts[i].x) > 1e7 ||
            fabs(pts[i].y) > 1e7 || fabs(pts[i].z) > 1e7)
            return sn_fail(err, SN_E_RANGE, "%s: point %zu is not finite (or beyond 1e7 m)", what, i);
    for (size_t i = 0; turns && i < n; i++)
        if ((unsigned)turns[i] > SN_TM_RIGHT)
            return sn_fail(err, SN_E_RANGE, "%s: turn %zu is %d; it is STRAIGHT (0), LEFT (1) or RIGHT (2)", what, i,
                           (int)turns[i]);
    sn_tm_plan *p = NULL;
    if (n) {
        p = calloc(1, sizeof *p);
        if (p && pts && (p->pts = malloc(n * sizeof *pts)))
            memcpy(p->pts, pts, n * sizeof *pts);
        if (p && turns && (p->turns = malloc(n)))
            for (size_t i = 0; i < n; i++)
                p->turns[i] = (uint8_t)turns[i];
        if (!p || (pts && !p->pts) || (turns && !p->turns)) {
            if (p) {
                free(p->pts);
                free(p->turns);
            }
            free(p);
            return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
        }
        p->n = (uint32_t)n;
    }
    sn_tm_vehicle *v = sn_tms_vehicle(e, vehicle, true);
    if (!v) {
        if (p) {
            free(p->pts);
            free(p->turns);
        }
        free(p);
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    }
    if (v->plan) {
        free(v->plan->pts);
        free(v->plan->turns);
        free(v->plan);
    }
    v->plan = p;
    if (a->has_autopilot && a->mv->ap && a->mv->ap->map) {
        sn_mapdrive *md = a->mv->ap->map;
        md->plan = p;
        /* The path ahead was drawn at random: drawn again from the next fork on (CARLA's empty_buffer). */
        for (uint32_t i = 1; i < md->n; i++)
            if (md->path[i].is_junction && !md->path[i - 1].is_junction) {
                md->n = i;
                md->nl.seg = 0; /* the path is drawn again from here (sn_path_nearest_kept) */
                md->ended = false;
                break;
            }
    }
    return SN_OK;
}

sn_status sn_engine_tm_set_path(sn_engine *e, uint32_t vehicle, const sn_vec3 *points, size_t n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    return set_plan(e, vehicle, points, NULL, n, "set_path", err);
}

sn_status sn_engine_tm_set_route(sn_engine *e, uint32_t vehicle, const sn_tm_turn *turns, size_t n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    return set_plan(e, vehicle, NULL, turns, n, "set_route", err);
}

sn_status sn_engine_tm_set_random_device_seed(sn_engine *e, uint32_t port, uint64_t seed, sn_error *err)
{
    SN_ERR_LOCAL(err);
    const char *what = "set_random_device_seed";
    if (check_engine(e, what, err) || check_port(port, what, err))
        return err->status;
    sn_tm *t = sn_tms_get(e, port, true);
    if (!t)
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    t->seeded = true;
    t->seed = seed;
    sn_world *w = &e->world;
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        if (a->kind != SN_ACTOR_VEHICLE || !a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
            continue;
        const sn_tm_vehicle *v = sn_tms_vehicle(e, a->id, false);
        if ((v && v->port ? v->port : SN_TM_DEFAULT_PORT) == port)
            sn_rng_seed(&a->mv->ap->map->rng, seed ^ (0x9e3779b97f4a7c15ull * (a->id + 1)));
    }
    return SN_OK;
}

sn_status sn_engine_tm_shut_down(sn_engine *e, uint32_t port, sn_error *err)
{
    SN_ERR_LOCAL(err);
    const char *what = "shut_down";
    if (check_engine(e, what, err) || check_port(port, what, err))
        return err->status;
    sn_world *w = &e->world;
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        if (a->kind != SN_ACTOR_VEHICLE || !a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
            continue;
        const sn_tm_vehicle *v = sn_tms_vehicle(e, a->id, false);
        if ((v && v->port ? v->port : SN_TM_DEFAULT_PORT) == port &&
            sn_engine_set_autopilot(e, a->id, false, NULL, err) != SN_OK)
            return err->status;
    }
    sn_tms *s = e->tms;
    for (uint32_t i = 0; s && i < s->n_tm; i++)
        if (s->tm[i].port == port) {
            s->tm[i] = s->tm[--s->n_tm];
            break;
        }
    return SN_OK;
}

uint32_t sn_engine_tm_port_of(const sn_engine *e, uint32_t vehicle)
{
    if (!e || !e->loaded)
        return 0;
    const sn_actor *a = sn_world_find(&e->world, vehicle);
    if (!a || a->kind != SN_ACTOR_VEHICLE || !a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
        return 0;
    const sn_tm_vehicle *v = sn_tms_vehicle((sn_engine *)e, vehicle, false);
    return v && v->port ? v->port : SN_TM_DEFAULT_PORT;
}
