/* stuck.c — CARLA's Traffic Manager destroys a stuck vehicle (stuck.h). CARLA's ALSM.cpp
** (carla-simulator/carla af5cdad, ALSM::Update, UpdateIdleTime, IsVehicleStuck; Constants.h
** VehicleRemoval): a registered vehicle's idle time restarts whenever its speed is above
** STOPPED_VELOCITY_THRESHOLD; each tick the non-hero vehicle idle longest is destroyed when it has
** been idle RED_TL_BLOCKED_TIME_THRESHOLD, or BLOCKED_TIME_THRESHOLD while its light is not red,
** and more than DELTA_TIME_BETWEEN_DESTRUCTIONS has passed since the last removal. Every mode,
** no setting turns it off. Only the longest idle is looked at: one held by a red light shields the
** others that tick, as in CARLA. */
#include "stuck.h"
#include "traffic.h"
#include "traffic_int.h"

#include "../sim/engine.h"
#include "../sim/spawn.h"

#define STOPPED_VELOCITY 0.8   /* m/s, STOPPED_VELOCITY_THRESHOLD */
#define BLOCKED_TIME 90.0      /* s, BLOCKED_TIME_THRESHOLD */
#define RED_BLOCKED_TIME 180.0 /* s, RED_TL_BLOCKED_TIME_THRESHOLD */
#define BETWEEN_REMOVALS 10.0  /* s, DELTA_TIME_BETWEEN_DESTRUCTIONS */

/* A vehicle CARLA's TM would register and track: its map autopilot drives it, and it is no hero
** (role_name "hero": ALSM keeps heroes out of the idle times in every mode). */
static sn_mapdrive *tm_driven(const sn_actor *a)
{
    if (a->kind != SN_ACTOR_VEHICLE || !a->mv || !a->mv->ap || !a->mv->ap->map || a->mv->ap->map->walker)
        return NULL;
    return a->has_autopilot && !a->hero ? a->mv->ap->map : NULL;
}

/* Whether the light whose trigger box the vehicle is in is red (CARLA's GetTrafficLightState:
** Green at none). */
static bool at_red(const sn_engine *e, uint32_t id)
{
    uint32_t light = 0;
    sn_traffic_light_state s = SN_TL_GREEN;
    return sn_engine_vehicle_traffic_light(e, id, &light, NULL) == SN_OK && light &&
           sn_engine_traffic_light_get_state(e, light, &s, NULL) == SN_OK && s == SN_TL_RED;
}

sn_status sn_tm_remove_stuck(sn_engine *e, sn_error *err)
{
    const sn_world *w = &e->world;
    const double now = e->clock.timestamp;
    sn_actor *oldest = NULL;
    double oldest_since = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        sn_mapdrive *md = tm_driven(a);
        if (!md) {
            if (a->kind == SN_ACTOR_VEHICLE && a->mv && a->mv->ap && a->mv->ap->map)
                a->mv->ap->map->idle_since = 0; /* off the TM: tracked afresh when it rejoins */
            continue;
        }
        const sn_vec3 v = a->st.vel;
        if (md->idle_since == 0 || v.x * v.x + v.y * v.y + v.z * v.z > STOPPED_VELOCITY * STOPPED_VELOCITY)
            md->idle_since = now;
        /* the longest idle; ties by the lower actor id (the world's order is not the ids') */
        if (!oldest || md->idle_since < oldest_since || (md->idle_since == oldest_since && a->id < oldest->id))
            oldest = a, oldest_since = md->idle_since;
    }
    if (!oldest)
        return SN_OK;
    struct sn_traffic *t = sn_traffic_get(e);
    if (!t)
        return SN_OK; /* out of memory: no removal this frame */
    const double idle = now - oldest_since;
    if (!(idle >= RED_BLOCKED_TIME || (idle >= BLOCKED_TIME && !at_red(e, oldest->id))) ||
        !(now - t->last_removal > BETWEEN_REMOVALS))
        return SN_OK;
    t->last_removal = now;
    t->stuck_removed++;
    /* the engine's own destruction: children (sensors) go with it, listeners and the recorder
    ** see its DESTROYED event as for actor.destroy() */
    if (sn_destroy_actor(e, oldest->id))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
    return SN_OK;
}
