/*
** rss_model.h — the RSS model's formulas and its response resolution, as plain functions of
** numbers (no host, no map), so a test can call them with hand-made situations.
**
** The formulas are those of Shalev-Shwartz, Shammah, Shashua, "On a Formal Model of Safe and
** Scalable Self-driving Cars" (arXiv:1708.06374), in the shape Intel's ad-rss library computes
** them (ad_rss/impl/src/situation/RssFormulas.cpp, Physics.cpp; RssStructuredSceneNonIntersection-
** Checker.cpp; core/RssResponseResolving.cpp). Accelerations here are magnitudes (> 0);
** the message gives restrictions in ad-rss's signs (braking negative).
*/
#ifndef SN_RSS_MODEL_H
#define SN_RSS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* ad.rss.world.RssDynamics, magnitudes. */
typedef struct rss_dynamics {
    double accel_max, brake_max, brake_min, brake_min_correct; /* longitudinal, m/s^2 */
    double lat_accel_max, lat_brake_min;                       /* lateral, m/s^2 */
    double lateral_fluctuation_margin;                         /* m */
    double response_time;                                      /* s */
    double max_speed_on_acceleration;                          /* m/s */
} rss_dynamics;

/* One vehicle in a situation: speeds in the situation's frame. lon >= 0 along its own
** direction of travel; lat > 0 toward the right of the ego's route (ad-rss's sign). */
typedef struct rss_vehicle {
    double speed_lon, speed_lat;
    bool in_correct_lane;
    rss_dynamics dyn;
} rss_vehicle;

/* ad-rss's enums, ordered by severity as ad-rss orders them (combine takes the larger). */
typedef enum { RSS_LON_NONE = 0, RSS_LON_BRAKE_MIN_CORRECT = 1, RSS_LON_BRAKE_MIN = 2 } rss_lon_response;
typedef enum { RSS_LAT_NONE = 0, RSS_LAT_BRAKE_MIN = 1 } rss_lat_response;
typedef enum { RSS_SAME_DIRECTION = 0, RSS_OPPOSITE_DIRECTION = 1 } rss_situation_type;
typedef enum { RSS_IN_FRONT, RSS_OVERLAP_FRONT, RSS_OVERLAP, RSS_OVERLAP_BACK, RSS_AT_BACK } rss_lon_position;
typedef enum { RSS_AT_LEFT, RSS_OVERLAP_LEFT, RSS_LAT_OVERLAP, RSS_OVERLAP_RIGHT, RSS_AT_RIGHT } rss_lat_position;
typedef enum {
    RSS_EVAL_NONE,
    RSS_EVAL_LON_SAME_EGO_FRONT,
    RSS_EVAL_LON_SAME_OTHER_FRONT,
    RSS_EVAL_LON_OPPOSITE_EGO_CORRECT,
    RSS_EVAL_LON_OPPOSITE,
    RSS_EVAL_LATERAL
} rss_evaluator;

/* A [min, max] interval along one axis of the ego's route (ad-rss's MetricRange). */
typedef struct rss_range {
    double min, max;
} rss_range;

/* ad.rss.situation.Situation of the non-intersection cases. */
typedef struct rss_situation {
    uint32_t object_id;
    rss_situation_type type;
    rss_vehicle ego, other;
    rss_lon_position lon_position;
    double lon_distance;
    rss_lat_position lat_position;
    double lat_distance;
} rss_situation;

/* One dimension's state (ad.rss.state.LongitudinalRssState / LateralRssState). A distance
** that was not evaluated (the side away from the other vehicle) is NaN. */
typedef struct rss_dim_state {
    bool is_safe;
    int response; /* rss_lon_response or rss_lat_response */
    rss_evaluator evaluator;
    double current_distance, safe_distance;
} rss_dim_state;

typedef struct rss_state {
    uint32_t object_id;
    rss_situation_type type;
    rss_dim_state lon, lat_left, lat_right;
} rss_state;

/* What is remembered per situation from the last tick before it became dangerous (RSS
** paper definition 10: the blame time decides which dimension must respond). */
typedef struct rss_memory_entry {
    uint32_t object_id;
    uint8_t type;
    bool lon_safe, lat_safe;
} rss_memory_entry;

typedef struct rss_proper_response {
    bool is_safe;
    rss_lon_response lon;
    rss_lat_response lat_left, lat_right;
    rss_range lon_accel, lat_left_accel, lat_right_accel; /* ad-rss signs: braking < 0 */
} rss_proper_response;

/* Distance covered in `response_time` under `accel` (speed kept in [0, max(v, v_max)]),
** then braking at `decel` to a stop: ad-rss calculateLongitudinalDistanceOffsetAfterStated-
** BrakingPattern. */
double rss_lon_stated_braking(double v, double v_max, double response_time, double accel, double decel);
/* Same direction: the leader brakes at brake_max, the follower responds after its response
** time with brake_min; the gap it needs, at least 0. */
double rss_safe_lon_same(const rss_vehicle *leader, const rss_vehicle *follower);
/* Opposite directions: the vehicle in its correct lane brakes at brake_min_correct, the other at
** brake_min; the sum of both stated braking distances. */
double rss_safe_lon_opposite(const rss_vehicle *correct, const rss_vehicle *opposite);
/* The lateral distance the left and the right vehicle need (lat speeds toward the right > 0),
** at least 0, without the fluctuation margin. */
double rss_safe_lat(const rss_vehicle *left, const rss_vehicle *right);

/* Where the ego's range lies against the other's (ad-rss calcluateRelativeLongitudinalPosition /
** LateralPosition): ranges along the route (forward) and across it (toward the right). */
rss_lon_position rss_lon_relation(rss_range ego, rss_range other, double *distance);
rss_lat_position rss_lat_relation(rss_range ego, rss_range other, double *distance);

/* The state of one situation, with the responses adjusted by what `prev` (NULL: none)
** remembered before the danger threshold (ad-rss RssStructuredSceneNonIntersectionChecker). */
void rss_check(const rss_situation *s, const rss_memory_entry *prev, rss_state *out);
static inline bool rss_is_lat_safe(const rss_state *s) { return s->lat_left.is_safe && s->lat_right.is_safe; }
static inline bool rss_is_dangerous(const rss_state *s) { return !s->lon.is_safe && !rss_is_lat_safe(s); }

/* The proper response over all states (ad-rss RssResponseResolving::provideProperResponse).
** prev[i] is states[i]'s memory entry or NULL; next[] (n entries) receives what to remember,
** next_n how many. `ego` gives the absolute limits (the default ego dynamics). */
void rss_resolve(const rss_dynamics *ego, const rss_state *states, const rss_memory_entry *const *prev, uint32_t n,
                 rss_proper_response *out, rss_memory_entry *next, uint32_t *next_n);

#endif
