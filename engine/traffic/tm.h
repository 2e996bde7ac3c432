/* tm.h — CARLA's Traffic Manager as settings of the engine: Traffic Managers named by port, the
** values vehicles set for themselves, and what the map autopilot reads of them (sn_mapdrive's
** knobs, the path and route it follows at forks). The public calls are api_tm.c's; the rules
** are CARLA's Parameters.cpp (docs/traffic.md). */
#ifndef SN_TRAFFIC_TM_H
#define SN_TRAFFIC_TM_H

#include "../core/rng.h"
#include "../world/world.h"

#include <sensim/map.h>
#include <sensim/sensim.h>

struct sn_engine;
struct sn_mapdrive;

#define SN_TM_DEFAULT_PORT 8000u
#define SN_TM_MAX_PATH 4096u /* points of a set_path, turns of a set_route */

/* What a vehicle follows at forks instead of its random draw: set_path's points (the branch
** leading nearest the next one) or set_route's turns (one per junction). Allocated by the
** registry and owned by it; the vehicle's sn_mapdrive points to it while both live. */
typedef struct sn_tm_plan {
    sn_vec3 *pts;
    uint8_t *turns; /* sn_tm_turn */
    uint32_t n, next;
} sn_tm_plan;

/* One Traffic Manager: its port and global values. */
typedef struct sn_tm {
    uint32_t port;
    double v[SN_TM_PARAM_COUNT];
    bool seeded;
    uint64_t seed;
} sn_tm;

/* What a vehicle set for itself (bit p of `own`: v[p] is its own) and the Traffic Manager it
** drives with (0 while its autopilot is off). v (SN_TM_PARAM_COUNT values, owned) is allocated
** with the first setting of its own (sn_tm_vehicle_own), NULL while own is 0: most vehicles of a
** scene's traffic set nothing, and 136 bytes each were a twentieth of a car on a map (issue 36). */
typedef struct sn_tm_vehicle {
    uint32_t actor;
    uint32_t port;
    uint32_t own;
    double *v;
    sn_tm_plan *plan;
} sn_tm_vehicle;

typedef struct sn_tms {
    sn_tm *tm;
    uint32_t n_tm, cap_tm;
    sn_tm_vehicle *veh; /* sorted by actor id */
    size_t n_veh, cap_veh;
    bool warned_offroad;
} sn_tms;

/* The range of a setting and where it may be set. */
typedef struct sn_tm_param_def {
    const char *name; /* CARLA's */
    double lo, hi, def;
    bool boolean;
    bool global, vehicle; /* may be set for a Traffic Manager (vehicle 0), for a vehicle */
    const char *unit;
} sn_tm_param_def;
const sn_tm_param_def *sn_tm_param_info(sn_tm_param p);

/* The Traffic Manager of a port, made with CARLA's defaults when `make` (NULL when out of memory
** or absent). */
sn_tm *sn_tms_get(struct sn_engine *e, uint32_t port, bool make);
/* A vehicle's record, made when `make`. */
sn_tm_vehicle *sn_tms_vehicle(struct sn_engine *e, uint32_t actor, bool make);
/* Sets a vehicle's own value of p (v[p], bit p of own); false when out of memory (nothing set). */
bool sn_tm_vehicle_own(sn_tm_vehicle *v, sn_tm_param p, double value);
/* The value in force for a vehicle (its own, its Traffic Manager's, the default). */
double sn_tm_value(const struct sn_engine *e, const sn_tm_vehicle *v, sn_tm_param p);
/* Writes what a vehicle's autopilot reads (sn_mapdrive's knobs, plan) from its record. */
bool sn_tm_apply(struct sn_engine *e, sn_actor *a); /* false: out of memory */
/* Every vehicle of Traffic Manager `port` again (a global value changed). */
bool sn_tm_apply_port(struct sn_engine *e, uint32_t port); /* false: out of memory */
/* sn_mapdrive_start's last step for a vehicle: joins Traffic Manager `port` (0: the one it had,
** else 8000), takes the knobs given (not NaN) and target_speed (m/s, >= 0) as its own values. */
sn_status sn_tm_adopt(struct sn_engine *e, sn_actor *a, uint32_t port, const double *knobs3, double target_speed,
                      sn_error *err);
void sn_tms_free(sn_tms *t);
/* A warning line to the engine's log (stderr without one). */
void sn_tm_warn(struct sn_engine *e, const char *line);

/* After the controllers (step 3): the lights of vehicles whose update_vehicle_lights is on, as
** CARLA's VehicleLightStage sets them (weather, blinkers before a turn, brake). */
void sn_tm_lights(struct sn_engine *e);
/* The autopilot's choice among k branches at a fork: the plan's, else a seeded draw. */
size_t sn_tm_pick(const sn_map *m, struct sn_mapdrive *md, const sn_waypoint *next, size_t k);
/* Advances a path plan past the points the autopilot's path has reached (its waypoint `w`). */
void sn_tm_plan_reached(struct sn_mapdrive *md, const sn_waypoint *w);

#endif
