/* rss.h — the RSS sensor's state, shared by its files: rss.c (the class: attributes, tick),
** rss_route.c (the ego's route and where each vehicle sits on it), rss_output.c (the message),
** rss_model.c (ad-rss's formulas). */
#ifndef SN_PLUGIN_RSS_H
#define SN_PLUGIN_RSS_H

#include "rss_model.h"

#include <sensim/plugin.h>

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define DEG (M_PI / 180.0)

/* Another vehicle in range this tick. */
typedef struct other_rec {
    uint32_t id;
    const char *type_id;  /* host-owned, alive until the end of the frame */
    bool on_road;         /* a driving lane was found for it */
    int32_t road, lane;
    double s, offset, speed;
    const char *note;     /* why it is not in a situation (NULL when it is) */
    rss_situation sit;
    rss_state st;
} other_rec;

/* A point of the ego's route: a waypoint of the lane it follows and its longitudinal
** coordinate u from the ego's waypoint (metres along the lane centres, growing the way the ego
** faces). */
typedef struct route_pt {
    sn_waypoint wp;
    double u;
} route_pt;

typedef struct route_key {
    int32_t road;
    double s;
    uint32_t i; /* into the route */
} route_key;

/* CARLA's EgoDynamicsOnRoute, in sensim's units (degrees, CARLA's yaw). */
typedef struct ego_route {
    double time, speed, min_stopping_distance, heading, heading_change, route_heading, heading_diff;
    sn_vec3 center, route_nominal_center;
    bool center_within_route, crossing_border;
    double speed_lon, speed_lat, accel_lon, accel_lat, avg_accel_lon, avg_accel_lat;
    int32_t road, lane;
    double s, offset;
} ego_route;

typedef struct rss_sensor {
    const sn_host *h;
    sn_ctx *ctx;
    uint32_t parent;
    rss_dynamics ego_dyn, other_dyn;
    double max_distance;
    uint64_t frame; /* of the result below */
    bool ticked, valid;
    const char *reason;
    bool warned_parent, warned_map, warned_road;
    ego_route ego;
    bool have_last;
    ego_route last;
    rss_dynamics ego_used; /* this tick's ego dynamics (the lateral acceleration may be raised) */
    other_rec *others;
    uint32_t n_others, cap_others;
    rss_proper_response resp;
    rss_memory_entry *mem, *next_mem;
    uint32_t n_mem, cap_mem;
    const rss_memory_entry **prev; /* per other, for rss_resolve */
    rss_state *states;
    /* the ego's route this tick: its lane followed ahead and behind (every branch at forks),
    ** points ROUTE_STEP apart with their arc coordinate along the route */
    route_pt *route;
    uint32_t n_route, cap_route;
    route_key *by_road; /* the points sorted by road, then s, then index: route_find's search */
    uint32_t cap_by_road;
    bool route_built;
} rss_sensor;

/* Geometry on CARLA's axes, degrees. */
static inline double wrap_deg(double a)
{
    a = fmod(a, 360.0);
    if (a > 180)
        a -= 360;
    else if (a <= -180)
        a += 360;
    return a;
}

static inline sn_vec3 fwd_of(double yaw_deg) { return (sn_vec3){cos(yaw_deg * DEG), sin(yaw_deg * DEG), 0}; }
/* CARLA's axes: yaw turns +x toward +y, so the right of (cos, sin) is (-sin, cos). */
static inline sn_vec3 right_of(double yaw_deg) { return (sn_vec3){-sin(yaw_deg * DEG), cos(yaw_deg * DEG), 0}; }
static inline double dot2(sn_vec3 a, sn_vec3 b) { return a.x * b.x + a.y * b.y; }

/* The route's forward yaw at a waypoint of the ego's lane: the lane's +s direction, turned
** round when the ego faces against s. */
static inline double route_yaw(const sn_waypoint *ego_lane_wp, int route_dir)
{
    const double s_yaw = ego_lane_wp->transform.rotation.yaw + (ego_lane_wp->lane_id < 0 ? 0.0 : 180.0);
    return wrap_deg(s_yaw + (route_dir > 0 ? 0.0 : 180.0));
}

/* A vehicle's box centre (its origin plus the box's offset, turned by yaw) and its half
** extents along and across a direction `yaw`. */
static inline sn_vec3 box_centre(const sn_actor_info *a)
{
    const double y = a->transform.rotation.yaw * DEG, c = cos(y), s = sin(y);
    const sn_vec3 o = a->transform.location, b = a->bounding_box.location;
    return (sn_vec3){o.x + c * b.x - s * b.y, o.y + s * b.x + c * b.y, o.z};
}

static inline void half_sizes(const sn_actor_info *a, double yaw, double *along, double *across)
{
    const double d = (a->transform.rotation.yaw - yaw) * DEG, c = fabs(cos(d)), s = fabs(sin(d));
    const sn_vec3 e = a->bounding_box.extent;
    *along = c * e.x + s * e.y;
    *across = s * e.x + c * e.y;
}

/*
** Another vehicle's lane-based place along the ego's route, on any road the route passes
** (through junctions, round curves): its lon range from the arc length along the route's lane
** centres, its lat range from its offset to the route's lane at its place. *same_way: its own
** lane runs the route's way. False (with *note) when the route does not pass its place.
*/
bool rss_place_on_route(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, const sn_waypoint *ewp,
                        int route_dir, rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right,
                        double *heading_cos, bool *same_way, const char **note);

/* One vehicle's lane-based place against the ego's route: fills o->sit's ranges and speeds.
** False (with o->note) when it shares no lane frame with the ego. */
bool rss_place(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, int32_t ego_lane, int route_dir,
               rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right, double *heading_cos,
               const char **note);

/* The message (rss_output.c): keys after the header as docs/sensors/rss.md lists them. */
sn_status rss_serialize(void *self, uint32_t index, sn_writer *w);

#endif
