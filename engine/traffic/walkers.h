/* walkers.h — walkers that navigate: routes on the navigation graph (navgraph.h) to goals,
** CARLA's AI walker controller, local avoidance and the kerb wait. docs/walkers.md. */
#ifndef SN_TRAFFIC_WALKERS_H
#define SN_TRAFFIC_WALKERS_H

#include "navgraph.h"
#include "traffic.h"

struct sn_walkers;

/* The engine's walkers state with its navigation graph, built on first use from the map.
** SN_E_STATE without a map; SN_E_NOMEM. Owned by the engine's traffic (sn_traffic_free). */
sn_status sn_walkers_get(struct sn_engine *e, struct sn_walkers **out, sn_error *err);
const sn_nav *sn_walkers_nav(const struct sn_walkers *w);
void sn_walkers_free(struct sn_walkers *w);
/* Detaches the engine's walkers' navigation graph, NULL when none was built (the caller owns it;
** a reset keeps it: engine.h kept_nav). */
struct sn_nav *sn_walkers_take_nav(struct sn_engine *e);
/* A walker on a crossing (its route's current edge crosses a road), from the last frame. */
typedef struct sn_xuser {
    sn_vec3 a, b;  /* the crossing's ends */
    sn_vec3 pos, vel;
    uint32_t walker;
} sn_xuser;
/* The walkers on crossings now, in actor id order, into *out (grown with sn_grow; the caller owns
** it); their count. */
size_t sn_walkers_on_crossings(const struct sn_engine *e, const struct sn_walkers *w, sn_xuser **out, size_t *cap);

/* A map autopilot md starts on walker a (sn_mapdrive_start): it wanders, a random goal after
** each arrival. Out of memory it stands until its first update finds memory. */
void sn_walker_attach(struct sn_engine *e, sn_actor *a, sn_mapdrive *md);
/* Step 3: walker a's direction and speed for this frame, from the last frame's state. */
void sn_walker_update(struct sn_engine *e, sn_actor *a, sn_mapdrive *md, double dt);

/* CARLA's controller.ai.walker on walker `id` (api_walkers.c validates): start (the walker
** stands until a goal: CARLA's WALKER_IDLE), go_to_location, set_max_speed. */
sn_status sn_walker_ai_start(struct sn_engine *e, sn_actor *a, sn_error *err);
sn_status sn_walker_ai_go_to(struct sn_engine *e, sn_actor *a, sn_vec3 to, sn_error *err);
sn_status sn_walker_ai_set_max_speed(struct sn_engine *e, sn_actor *a, double speed, sn_error *err);
/* A random point on the sidewalks from the pedestrians' generator. */
sn_status sn_walkers_random_location(struct sn_engine *e, sn_vec3 *out, sn_error *err);
void sn_walkers_set_cross_factor(struct sn_walkers *w, double p);
void sn_walkers_set_seed(struct sn_walkers *w, uint64_t seed);

#endif
