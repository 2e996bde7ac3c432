/* api_autopilot.c — sn_engine_set_autopilot: CARLA's set_autopilot on the map autopilot. */
#include "../core/error.h"
#include "../core/util.h"
#include "../sim/engine.h"
#include "../traffic/hybrid.h"
#include "../traffic/tm.h"
#include "../traffic/traffic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_engine_set_autopilot(sn_engine *e, uint32_t id, bool enabled, const sn_autopilot_options *o,
                                  sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "set_autopilot: NULL engine");
    if (!e->loaded || e->broken)
        return sn_fail(err, SN_E_STATE, "set_autopilot: no scene loaded");
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "set_autopilot: no live actor has id %u", id);
    if (a->kind != SN_ACTOR_VEHICLE && a->kind != SN_ACTOR_WALKER)
        return sn_fail(err, SN_E_INVALID, "set_autopilot: '%s' (%s) is no vehicle or walker", a->name, a->type_id);
    if (!enabled) { /* CARLA: the vehicle keeps its last control */
        if (a->mv->ap) {
            sn_hybrid_release(e, a); /* hybrid mode took its physics: given back */
            sn_mapdrive_free(a->mv->ap->map);
            free(a->mv->ap->route);
            *a->mv->ap = (sn_autopilot){0};
        }
        a->has_autopilot = false;
        sn_tm_vehicle *v = sn_tms_vehicle(e, id, false);
        if (v)
            v->port = 0; /* its own settings stay (CARLA's Parameters are per actor) */
        return SN_OK;
    }
    if (!e->map)
        return sn_fail(err, SN_E_STATE, "set_autopilot: the scene has no map (map: FILE.xodr) whose lanes to follow");
    sn_autopilot_options opt = {sizeof opt, -1, NAN, NAN, NAN, 0};
    if (o) {
        if (o->struct_size < sizeof(uint32_t) || o->struct_size > 4096)
            return sn_fail(err, SN_E_INVALID, "set_autopilot: sn_autopilot_options.struct_size is not set");
        memcpy(&opt, o, o->struct_size < sizeof opt ? o->struct_size : sizeof opt);
    }
    /* The ranges of the scene's autopilot: and traffic: knobs. */
    if (!(isnan(opt.target_speed) || opt.target_speed <= SN_LIMIT_SPEED))
        return sn_fail(err, SN_E_RANGE, "set_autopilot: target_speed %g is above %g m/s", opt.target_speed,
                       SN_LIMIT_SPEED);
    if (!isnan(opt.distance_to_leading_vehicle) &&
        !(opt.distance_to_leading_vehicle >= 0 && opt.distance_to_leading_vehicle <= 100))
        return sn_fail(err, SN_E_RANGE, "set_autopilot: distance_to_leading_vehicle must be within [0, 100] m");
    if (!isnan(opt.vehicle_percentage_speed_difference) &&
        !(opt.vehicle_percentage_speed_difference >= -100 && opt.vehicle_percentage_speed_difference <= 100))
        return sn_fail(err, SN_E_RANGE, "set_autopilot: vehicle_percentage_speed_difference must be within [-100, 100]");
    if (!isnan(opt.ignore_lights_percentage) &&
        !(opt.ignore_lights_percentage >= 0 && opt.ignore_lights_percentage <= 100))
        return sn_fail(err, SN_E_RANGE, "set_autopilot: ignore_lights_percentage must be within [0, 100]");
    if (opt.tm_port && (opt.tm_port < 1024 || opt.tm_port > 65535))
        return sn_fail(err, SN_E_RANGE, "set_autopilot: tm_port %u is outside 1024..65535 (CARLA's 8000 by default)",
                       opt.tm_port);
    sn_tm_knobs k = {opt.distance_to_leading_vehicle, opt.vehicle_percentage_speed_difference,
                     opt.ignore_lights_percentage};
    double speed = isnan(opt.target_speed) ? -1 : opt.target_speed;
    sn_status st = sn_mapdrive_start(e, a, &k, speed, e->seed ^ (0x9e3779b97f4a7c15ull * (id + 1)), err);
    if (st || a->kind != SN_ACTOR_VEHICLE)
        return st;
    /* The Traffic Manager it joins: the one asked for, else 8000 (CARLA's set_autopilot(True, port)). */
    return sn_tm_adopt(e, a, opt.tm_port ? opt.tm_port : SN_TM_DEFAULT_PORT, NULL, -1, err);
}
