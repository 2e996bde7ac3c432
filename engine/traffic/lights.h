/* lights.h — traffic lights: actors made from the map's signals, grouped per junction and
** cycled as CARLA's ATrafficLightGroup cycles them (docs/traffic.md).
**
** Every actor of blueprint traffic.traffic_light is registered here when it spawns, whatever
** spawned it (the map, a scene, the API, a replay): a light without a map signal is a group
** of its own with no stop lines. Groups advance in step 1 of the frame from the simulation
** clock (integer nanoseconds), never during a replay (the recording sets the states). */
#ifndef SN_TRAFFIC_LIGHTS_H
#define SN_TRAFFIC_LIGHTS_H

#include "../world/world.h"

#include <sensim/sensim.h>

struct sn_engine;

/* A stop line: where traffic on one lane of one road waits for its light (bind.h's rule). */
typedef struct sn_tl_stop {
    int32_t road_id, lane_id; /* OpenDRIVE ids */
    double s;                 /* along the road's reference line */
    uint32_t light;           /* index into sn_lights.l */
    /* The connecting lane whose reference put the line here (the light governs that branch
    ** only), or -1, 0: every branch. */
    int32_t via_road, via_lane;
    /* CARLA's trigger box of this lane (world frame, half extents; rotation along the lane). */
    sn_vec3 box_location, box_extent;
    sn_rotation box_rotation;
    sn_vec3 stop_at;          /* the stop line's place on the lane's centre (world frame) */
} sn_tl_stop;

/* A lane a light names (CARLA's get_affected_lane_waypoints), in light order. */
typedef struct sn_tl_lane {
    int32_t road_id, lane_id;
    double s;
    uint32_t light;
} sn_tl_lane;

typedef struct sn_tlight {
    uint32_t actor;           /* the head's actor id; 0 once destroyed */
    int32_t signal_id;        /* OpenDRIVE signal id; -1 when not from the map */
    int32_t road_id;          /* the signal's road, -1 when not from the map */
    uint32_t group, ctl;      /* its group and controller within it */
    uint8_t state;            /* sn_traffic_light_state */
} sn_tlight;

/* CARLA's UTrafficLightController: its lights share a state; stages green, yellow, red. */
typedef struct sn_tl_ctl {
    int64_t ns[3];            /* green, yellow, red, nanoseconds */
} sn_tl_ctl;

/* CARLA's ATrafficLightGroup: one controller at a time runs its stages, the others are red. */
typedef struct sn_tl_group {
    int32_t junction_id;      /* -1 for a light of its own */
    uint32_t first_ctl, n_ctl; /* into sn_lights.ctl */
    uint32_t cur;             /* current controller (0-based within the group) */
    uint32_t stage;           /* 0 green, 1 yellow, 2 red */
    int64_t timer_ns, stage_ns; /* left in the stage, and its length */
    bool frozen;
} sn_tl_group;

typedef struct sn_lights {
    sn_tlight *l;
    uint32_t n, cap;
    sn_tl_ctl *ctl;
    uint32_t n_ctl, cap_ctl;
    sn_tl_group *g;
    uint32_t n_g, cap_g;
    sn_tl_stop *stops;        /* sorted by road, lane, s: the autopilots' lookup */
    uint32_t n_stops, cap_stops;
    sn_tl_lane *lanes;        /* affected lanes, in light order */
    uint32_t n_lanes, cap_lanes;
    bool building;            /* the map's lights are being spawned: they register themselves as below */
} sn_lights;

/* Spawns a light head (and its pole) for every dynamic 3-light signal of the map, groups them
** per junction and starts every group (controller 0 green). */
sn_status sn_lights_build(struct sn_engine *e, sn_error *err);
/* The spawn observer of traffic.traffic_light actors (sim/engine.h): one spawned outside the
** map is registered in its own group, a destroyed one forgotten; their `state` values follow
** the light, so they are never shared. */
extern const struct sn_actor_observer sn_lights_observer;
/* Step 1 of the frame: every unfrozen group's timer runs down by dt; states follow. */
void sn_lights_step(struct sn_engine *e);
void sn_lights_free(sn_lights *ls);

/* The light record of a head actor, or NULL. */
sn_tlight *sn_lights_find(const sn_lights *ls, uint32_t actor);
/* Sets a light's state now (colour and `state` attribute); the group overrides it at its next stage. */
void sn_lights_set(struct sn_engine *e, sn_tlight *t, uint8_t state);
/* CARLA's ResetGroup: controller 0 green, the others red, its stage from the start. */
void sn_lights_reset_group(struct sn_engine *e, uint32_t group);
/* The stop lines of lane (road_id, lane_id): *n of them from the returned pointer. */
const sn_tl_stop *sn_lights_stops_of(const sn_lights *ls, int32_t road_id, int32_t lane_id, uint32_t *n);
/* Whether a stop line applies to a vehicle whose path ahead is path[0..n): a line bound through
** one connecting lane applies only when the path takes that lane within its next 40 m. */
struct sn_pathwp;
bool sn_tl_stop_applies(int32_t via_road, int32_t via_lane, const struct sn_pathwp *path, uint32_t n);
/* Seconds until light l (index into ls->l) turns green from red: the rest of its group's stage
** and the stages of the controllers before it; 0 when it is not red; INFINITY when its group is
** frozen or has no cycle. */
double sn_lights_red_left(const sn_lights *ls, uint32_t l);
/* The crossing rule of walkers (docs/traffic.md, "Walkers"): whether a light whose stop line is
** within `radius` m of `at` denies the walk: green or yellow (its cars go), or red with less than
** `need` s left (its cars are about to go). Off and unknown lights deny nothing. */
bool sn_lights_red_ending_near(const sn_lights *ls, sn_vec3 at, double radius, double need);
/* One warning line to the engine's log (or stderr), as the engine gives its other warnings. */
void sn_tl_warn(struct sn_engine *e, const char *line);

#endif
