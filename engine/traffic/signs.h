/* signs.h — stop, yield and speed-limit signs from the map's signals, bound to lanes by the
** lights' rule (bind.h), and the autopilot's obedience to them (docs/traffic.md, "Signs").
**
** Which signals (CARLA's LibCarla/source/carla/road/SignalType.cpp): type 206 a stop sign
** (StopSign), 205 yield (YieldSign), 274 a maximum speed (MaximumSpeed; value in the signal's
** unit, km/h when none; CARLA's towns name them Sign_Stop, Sign_Yield, Speed_30, ...). */
#ifndef SN_TRAFFIC_SIGNS_H
#define SN_TRAFFIC_SIGNS_H

#include "bind.h"
#include "../world/world.h"

#include <sensim/sensim.h>

struct sn_engine;
struct sn_mapdrive;

typedef struct sn_sign {
    int32_t signal_id, road_id;
    uint8_t kind;   /* SN_BIND_STOP, SN_BIND_YIELD or SN_BIND_SPEED */
    double limit;   /* speed signs: m/s */
} sn_sign;

/* Where a sign acts on one lane (bind.h's sn_bound, and its sign). */
typedef struct sn_sign_line {
    sn_bound b;
    uint32_t sign;  /* index into sn_signs.s */
} sn_sign_line;

typedef struct sn_signs {
    sn_sign *s;
    uint32_t n;
    sn_sign_line *lines;  /* sorted by road, lane, s: the autopilots' lookup */
    uint32_t n_lines;
} sn_signs;

/* Builds e->signs from the map (none without one); warns once about signs with no lane. */
sn_status sn_signs_build(struct sn_engine *e, sn_error *err);
void sn_signs_free(sn_signs *s);
/* The sign lines of lane (road_id, lane_id): *n of them from the returned pointer. */
const sn_sign_line *sn_signs_lines_of(const sn_signs *s, int32_t road_id, int32_t lane_id, uint32_t *n);

/* The limit (m/s) a vehicle drives under: the last speed sign its autopilot passed, else
** `record` (its lane's or road's <speed>, else 30 km/h: traffic.c's limit_at). */
double sn_signs_limit(const struct sn_mapdrive *md, double record);
/* The autopilot's hook (vehicle_update): notes the speed signs passed, and returns vt lowered
** for the stop and yield lines ahead. path/along as vehicle_update holds them; front: the
** vehicle's half length; v its speed. */
double sn_signs_speed(struct sn_engine *e, const sn_actor *self, struct sn_mapdrive *md, const double *along,
                      double front, double v, double vt, double dt);
/* CARLA's vehicle.get_speed_limit() for vehicle a, km/h (sensim.h). */
double sn_signs_vehicle_limit_kmh(const struct sn_engine *e, const sn_actor *a);

#endif
