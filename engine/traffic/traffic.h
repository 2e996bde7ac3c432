/* traffic.h — traffic that drives: the map autopilot (CARLA's Traffic Manager, simplified)
** and the scene's `traffic:` key (CARLA's generate_traffic.py). docs/traffic.md.
**
** A map autopilot keeps a path of lane-centre waypoints SN_MD_STEP apart ahead of its actor,
** choosing among sn_map_next's branches with its own seeded generator; vehicles steer by pure
** pursuit along it and set their speed from the lane's limit, the path's curvature, the
** vehicle or walker ahead in the path and the stop lines of red lights. Controllers run in
** step 3 of the frame, in actor id order, from the world's state at the end of the last frame,
** so the result does not depend on the thread count. */
#ifndef SN_TRAFFIC_TRAFFIC_H
#define SN_TRAFFIC_TRAFFIC_H

#include "../core/rng.h"
#include "../scene/scene.h"
#include "../world/world.h"

#include <sensim/map.h>

struct sn_engine;
struct sn_traffic;

#define SN_MD_PATH 72   /* waypoints kept ahead: 80 m of lane, or a turn-round loop and more */
#define SN_MD_STEP 2.0  /* m between them */

/* CARLA Traffic Manager's defaults (LibCarla/source/carla/trafficmanager: Parameters.h
** distance_margin {2.0}; Constants.h INITIAL_PERCENTAGE_SPEED_DIFFERENCE = 0; a vehicle runs
** no light unless set). */
#define SN_TM_DISTANCE_TO_LEADING 2.0
#define SN_TM_SPEED_DIFFERENCE 0.0
#define SN_TM_IGNORE_LIGHTS 0.0
#define SN_TM_DEFAULT_LIMIT (30.0 / 3.6) /* m/s where a lane gives no speed (CARLA's town default) */

typedef struct sn_mapdrive {
    sn_rng rng;
    bool walker;
    bool ended;          /* the lane ended with no successor: the vehicle stops there */
    bool backwards;      /* walkers: walking against the lane's direction */
    double gap;          /* distance_to_leading_vehicle, m */
    double speed_diff;   /* vehicle_percentage_speed_difference, % */
    double ignore_lights; /* ignore_lights_percentage, % */
    /* CARLA TM's further per-vehicle knobs (docs/traffic.md): the TM API sets them, the
    ** autopilot reads them. Percentages are 0..100. */
    bool auto_lane_change;       /* auto_lane_change; default true */
    int8_t force_lane_change;    /* a pending force_lane_change: -1 left, +1 right, 0 none; the autopilot clears it */
    double lc_left_pct, lc_right_pct; /* random_left/right_lanechange_percentage */
    double keep_right_pct;       /* keep_right_rule_percentage */
    double ignore_signs, ignore_vehicles, ignore_walkers; /* ignore_*_percentage */
    double desired;      /* target_speed, m/s; < 0: the lane's limit */
    double speed_integral;
    uint32_t light_seen; /* the light last approached, index + 1 */
    bool light_ignored;  /* drawn once per approach (ignore_lights_percentage) */
    bool light_go;       /* decided to pass this light on yellow */
    /* Signs (signs.c): the limit of the last speed sign passed (m/s, 0 none), the stop or yield
    ** line approached (index + 1), its ignore draw, whether the vehicle may pass it, and the
    ** time it has stood at it. */
    double sign_limit;
    uint32_t sign_seen;
    bool sign_ignored, sign_go;
    double sign_wait;
    uint32_t n;
    sn_waypoint path[SN_MD_PATH];
} sn_mapdrive;

/* Gives actor a (a vehicle or walker) a map autopilot. SN_E_INVALID without a map or when no
** lane of the right type is within 50 m. */
sn_status sn_mapdrive_start(struct sn_engine *e, sn_actor *a, const sn_tm_knobs *k, double target_speed,
                            uint64_t seed, sn_error *err);
/* Step 3: every autopilot's control for this frame (route followers and map autopilots). */
void sn_traffic_controllers(struct sn_engine *e, double dt);
/* The scene's traffic: vehicles at shuffled spawn points, walkers on sidewalks. */
sn_status sn_traffic_spawn(struct sn_engine *e, sn_error *err);
void sn_traffic_free(struct sn_traffic *t);

#endif
