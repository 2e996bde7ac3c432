/*
** sensor.other.rss — CARLA's RSS sensor (Responsibility-Sensitive Safety) as a sensim plugin.
**
** CARLA's sensor (LibCarla/source/carla/rss, deprecated since 0.9.15) runs Intel's ad-rss
** library on the client: every tick it map-matches the ego vehicle and every other actor,
** builds one situation per pair on the lanes of the ego's route, checks the longitudinal and
** lateral safe distances of the RSS paper and resolves a proper response with acceleration
** restrictions. This plugin does the same for the structured, non-intersection cases, on the
** scene's OpenDRIVE map through the host (ABI 1.4 map queries); rss_model.c holds the
** formulas. docs/sensors/rss.md says what of ad-rss is and is not reproduced, and why.
**
** Lane-based coordinates. The ego's lane gives the route: its direction is the way the ego
** faces along the road (so a car overtaking in the opposite lane is not in its correct lane),
** and it is followed both ways through lane sections, roads and junctions (every branch) up to
** max_distance, with each point's distance from the ego along the lane centres. Along the route
** a vehicle sits at the route's distance to its place; across it, at its offset from the route
** lane's centre there, found by stepping sideways from the vehicle's own lane to the route's
** (map_side_lane), positive to the right (ad-rss's sign). Boxes are projected on both axes.
** Vehicles off the route are listed in world_model as not relevant.
**
** Message keys after the header: response_valid, invalid_reason, proper_response,
** rss_state_snapshot, situation_snapshot, world_model, ego_dynamics_on_route (docs/sensors/rss.md).
*/
#include "rss_model.h"

#include <sensim/plugin.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEG (M_PI / 180.0)

/* The nine dynamics attributes of one party (ego_ or other_), in ad-rss's order, with CARLA's
** defaults (RssCheck::GetDefaultVehicleDynamics; others differ only in response time). */
#define DYN_ATTRS(p, rt)                                                                                             \
    {p "accel_max", SN_ATTR_FLOAT, "3.5", NULL, NULL, true, 0, 30, "m/s^2",                                       \
     "alpha_lon.accel_max: the most it may accelerate during the response time"},                                 \
    {p "brake_max", SN_ATTR_FLOAT, "8", NULL, NULL, true, 0.01, 30, "m/s^2",                                      \
     "alpha_lon.brake_max: the hardest it can brake (a leader's assumed braking)"},                                 \
    {p "brake_min", SN_ATTR_FLOAT, "4", NULL, NULL, true, 0.01, 30, "m/s^2",                                      \
     "alpha_lon.brake_min: the braking it promises after the response time"},                                       \
    {p "brake_min_correct", SN_ATTR_FLOAT, "3", NULL, NULL, true, 0.01, 30, "m/s^2",                              \
     "alpha_lon.brake_min_correct: the braking promised in its correct lane against an oncoming vehicle"},         \
    {p "lat_accel_max", SN_ATTR_FLOAT, "0.2", NULL, NULL, true, 0, 20, "m/s^2",                                   \
     "alpha_lat.accel_max: the most it may accelerate sideways during the response time"},                        \
    {p "lat_brake_min", SN_ATTR_FLOAT, "0.8", NULL, NULL, true, 0.01, 20, "m/s^2",                                \
     "alpha_lat.brake_min: the sideways braking it promises after the response time"},                              \
    {p "lateral_fluctuation_margin", SN_ATTR_FLOAT, "0.1", NULL, NULL, true, 0, 1, "m",                           \
     "lateral_fluctuation_margin: its share of the lateral margin mu"},                                            \
    {p "response_time", SN_ATTR_FLOAT, rt, NULL, NULL, true, 0, 10, "s", "response_time: rho"},                   \
    {p "max_speed_on_acceleration", SN_ATTR_FLOAT, "100", NULL, NULL, true, 0, 1000, "m/s",                       \
     "max_speed_on_acceleration: no faster than this while accelerating during the response time"}

enum { A_EGO = 0, A_OTHER = 9, A_MAX_DISTANCE = 18, A_BOUNDARIES = 19, A_N = 21 };

static const char *const boundary_modes[] = {"Off", "On", NULL};

static const sn_attr_def rss_attrs[] = {
    DYN_ATTRS("ego_", "1.0"),
    DYN_ATTRS("other_", "2.0"),
    {"max_distance", SN_ATTR_FLOAT, "200", NULL, NULL, true, 1, 10000, "m",
     "vehicles whose origin is farther from the ego's are left out"},
    {"road_boundaries_mode", SN_ATTR_ENUM, "Off", NULL, boundary_modes, false, 0, 0, NULL,
     "CARLA's RssRoadBoundariesMode (stay on the road); only Off is implemented"},
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),
};
_Static_assert(sizeof rss_attrs / sizeof rss_attrs[0] == A_N, "A_N counts the attribute table");

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

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    if (h->hdr.abi_minor < 4) {
        h->set_error(ctx, "sensor.other.rss needs a host of ABI 1.4 or later (the map queries); this one is 1.%u",
                     (unsigned)h->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    rss_sensor *r = calloc(1, sizeof *r);
    if (!r) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    r->h = h, r->ctx = ctx;
    *out = r;
    return SN_OK;
}

static void destroy(void *self)
{
    rss_sensor *r = self;
    if (!r)
        return;
    free(r->others);
    free(r->mem);
    free(r->next_mem);
    free(r->prev);
    free(r->states);
    free(r->route);
    free(r->by_road);
    free(r);
}

static sn_status read_dynamics(rss_sensor *r, const sn_value *a, const char *who, rss_dynamics *d)
{
    *d = (rss_dynamics){a[0].f, a[1].f, a[2].f, a[3].f, a[4].f, a[5].f, a[6].f, a[7].f, a[8].f};
    /* ad-rss's valid input range: brake_max >= brake_min >= brake_min_correct (as magnitudes) */
    if (d->brake_max < d->brake_min) {
        r->h->set_error(r->ctx, "%sbrake_max (%g) is below %sbrake_min (%g): the hardest braking cannot be weaker "
                        "than the promised one", who, d->brake_max, who, d->brake_min);
        return SN_E_INVALID;
    }
    if (d->brake_min < d->brake_min_correct) {
        r->h->set_error(r->ctx, "%sbrake_min_correct (%g) is above %sbrake_min (%g): a vehicle in its correct lane "
                        "promises less braking, not more", who, d->brake_min_correct, who, d->brake_min);
        return SN_E_INVALID;
    }
    return SN_OK;
}

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    rss_sensor *r = self;
    if (n < A_N) {
        r->h->set_error(r->ctx, "expected %d attribute values, got %u", A_N, n);
        return SN_E_INVALID;
    }
    sn_status st = read_dynamics(r, a + A_EGO, "ego_", &r->ego_dyn);
    if (!st)
        st = read_dynamics(r, a + A_OTHER, "other_", &r->other_dyn);
    if (st)
        return st;
    r->max_distance = a[A_MAX_DISTANCE].f;
    if (a[A_BOUNDARIES].i != 0) {
        r->h->set_error(r->ctx, "road_boundaries_mode On (ad-rss's stay-on-the-road checks against the road's "
                        "borders) is not implemented; use Off");
        return SN_E_UNSUPPORTED;
    }
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    ((rss_sensor *)self)->parent = parent;
    return SN_OK;
}

static double wrap_deg(double a)
{
    a = fmod(a, 360.0);
    if (a > 180)
        a -= 360;
    else if (a <= -180)
        a += 360;
    return a;
}

static sn_vec3 fwd_of(double yaw_deg) { return (sn_vec3){cos(yaw_deg * DEG), sin(yaw_deg * DEG), 0}; }
/* CARLA's axes: yaw turns +x toward +y, so the right of (cos, sin) is (-sin, cos). */
static sn_vec3 right_of(double yaw_deg) { return (sn_vec3){-sin(yaw_deg * DEG), cos(yaw_deg * DEG), 0}; }
static double dot2(sn_vec3 a, sn_vec3 b) { return a.x * b.x + a.y * b.y; }

/* The route's forward yaw at a waypoint of the ego's lane: the lane's +s direction, turned
** round when the ego faces against s. */
static double route_yaw(const sn_waypoint *ego_lane_wp, int route_dir)
{
    const double s_yaw = ego_lane_wp->transform.rotation.yaw + (ego_lane_wp->lane_id < 0 ? 0.0 : 180.0);
    return wrap_deg(s_yaw + (route_dir > 0 ? 0.0 : 180.0));
}

/* A vehicle's box centre (its origin plus the box's offset, turned by yaw) and its half
** extents along and across a direction `yaw`. */
static sn_vec3 box_centre(const sn_actor_info *a)
{
    const double y = a->transform.rotation.yaw * DEG, c = cos(y), s = sin(y);
    const sn_vec3 o = a->transform.location, b = a->bounding_box.location;
    return (sn_vec3){o.x + c * b.x - s * b.y, o.y + s * b.x + c * b.y, o.z};
}

static void half_sizes(const sn_actor_info *a, double yaw, double *along, double *across)
{
    const double d = (a->transform.rotation.yaw - yaw) * DEG, c = fabs(cos(d)), s = fabs(sin(d));
    const sn_vec3 e = a->bounding_box.extent;
    *along = c * e.x + s * e.y;
    *across = s * e.x + c * e.y;
}

/* Steps sideways from `wp` to lane `target` of the same road section at the same s. */
static bool walk_to_lane(rss_sensor *r, sn_waypoint wp, int32_t target, sn_waypoint *out)
{
    for (int guard = 0; wp.lane_id != target && guard < 64; guard++) {
        const int step = target > wp.lane_id ? 1 : -1;
        const int dir = wp.lane_id < 0 ? 1 : -1; /* +1: travels along s, where left raises the id */
        sn_waypoint next;
        if (r->h->map_side_lane(r->ctx, &wp, step == dir, &next) != SN_OK)
            return false;
        wp = next;
    }
    *out = wp;
    return wp.lane_id == target;
}

static bool grow(rss_sensor *r, uint32_t n)
{
    if (n <= r->cap_others)
        return true;
    uint32_t cap = r->cap_others ? r->cap_others : 16;
    while (cap < n)
        cap *= 2;
    other_rec *o = realloc(r->others, cap * sizeof *o);
    if (o)
        r->others = o;
    rss_memory_entry *m1 = realloc(r->mem, cap * sizeof *m1);
    if (m1)
        r->mem = m1;
    rss_memory_entry *m2 = realloc(r->next_mem, cap * sizeof *m2);
    if (m2)
        r->next_mem = m2;
    const rss_memory_entry **p = realloc(r->prev, cap * sizeof *p);
    if (p)
        r->prev = p;
    rss_state *s = realloc(r->states, cap * sizeof *s);
    if (s)
        r->states = s;
    if (!o || !m1 || !m2 || !p || !s)
        return false;
    r->cap_others = cap;
    return true;
}

static const rss_memory_entry *remembered(const rss_sensor *r, uint32_t id, rss_situation_type type)
{
    uint32_t lo = 0, hi = r->n_mem; /* the memory is in ascending id order (actors are iterated so) */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (r->mem[mid].object_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_mem && r->mem[lo].object_id == id && r->mem[lo].type == (uint8_t)type ? &r->mem[lo] : NULL;
}

static void invalid(rss_sensor *r, const char *reason, bool *warned)
{
    r->valid = false;
    r->reason = reason;
    if (warned && !*warned)
        r->h->log(r->ctx, SN_LOG_WARN, "%s: response_valid is false", reason);
    if (warned)
        *warned = true;
}

/* CARLA's CalculateEgoDynamicsOnRoute, from the ego and its lane. */
static void ego_dynamics(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, double ryaw, double offset,
                         double half_across)
{
    ego_route *e = &r->ego;
    const sn_clock *clk = r->h->clock(r->ctx);
    memset(e, 0, sizeof *e);
    e->time = clk->timestamp;
    const sn_vec3 v = a->velocity, f = fwd_of(a->transform.rotation.yaw);
    e->speed = hypot(v.x, v.y) * (dot2(v, f) < 0 ? -1 : 1); /* CARLA's GetSpeed: signed by the heading */
    e->center = a->transform.location;
    e->heading = wrap_deg(a->transform.rotation.yaw);
    e->heading_change = a->angular_velocity.z;
    e->route_heading = ryaw;
    e->route_nominal_center = wp->transform.location;
    e->heading_diff = wrap_deg(e->heading - ryaw);
    e->speed_lon = fabs(cos(e->heading_diff * DEG)) * e->speed;
    e->speed_lat = sin(e->heading_diff * DEG) * e->speed; /* + toward the right of the route */
    e->center_within_route = fabs(offset) <= 0.5 * wp->lane_width;
    e->crossing_border = fabs(offset) + half_across > 0.5 * wp->lane_width;
    e->road = wp->road_id, e->lane = wp->lane_id, e->s = wp->s, e->offset = offset;
    const rss_dynamics *d = &r->ego_dyn;
    e->min_stopping_distance =
        rss_lon_stated_braking(fmax(e->speed, 0), d->max_speed_on_acceleration, d->response_time, d->accel_max,
                               d->brake_min);
    /* accelerations from the last check's speeds, smoothed as CARLA does ((2 old + new) / 3) */
    if (r->have_last) {
        e->accel_lat = r->last.accel_lat, e->accel_lon = r->last.accel_lon;
        e->avg_accel_lat = r->last.avg_accel_lat, e->avg_accel_lon = r->last.avg_accel_lon;
        const double dt = e->time - r->last.time;
        if (dt > 1e-4) {
            e->accel_lat = (e->speed_lat - r->last.speed_lat) / dt;
            e->accel_lon = (e->speed_lon - r->last.speed_lon) / dt;
            e->avg_accel_lat = (2 * r->last.avg_accel_lat + e->accel_lat) / 3;
            e->avg_accel_lon = (2 * r->last.avg_accel_lon + e->accel_lon) / 3;
        }
    }
    r->last = *e;
    r->have_last = true;
}

/* Route points are this far apart along the lane; the route reaches max_distance each way
** and holds at most ROUTE_MAX points (forks multiply branches). */
#define ROUTE_STEP 2.0
#define ROUTE_MAX 16384
#define ROUTE_BRANCHES 8

/* The length of lane centre between two nearby waypoints of one lane: the chord, lengthened by
** the circular arc through both with their headings (exact on lines and arcs; a 2 m step on a
** 10 m radius is off by under 1e-4 m where the bare chord is off by 3e-3 m). */
static double lane_arc(const sn_waypoint *a, const sn_waypoint *b)
{
    const sn_vec3 p = a->transform.location, q = b->transform.location;
    const double chord = hypot(q.x - p.x, q.y - p.y);
    const double half = 0.5 * fabs(wrap_deg(b->transform.rotation.yaw - a->transform.rotation.yaw)) * DEG;
    return half > 1e-9 ? chord * half / sin(half) : chord;
}

static bool route_push(rss_sensor *r, const sn_waypoint *wp, double u)
{
    if (r->n_route >= r->cap_route) {
        uint32_t cap = r->cap_route ? 2 * r->cap_route : 256;
        route_pt *p = realloc(r->route, cap * sizeof *p);
        if (!p)
            return false;
        r->route = p, r->cap_route = cap;
    }
    r->route[r->n_route++] = (route_pt){*wp, u};
    return true;
}

/* Follows the ego's lane from ewp (at u0) one way: ahead (sign +1) or behind (-1), with the
** traffic (map_next) or against it (map_previous), every branch, until max_distance. */
static bool route_walk(rss_sensor *r, const sn_waypoint *ewp, double u0, int sign, bool with_traffic)
{
    const sn_host *h = r->h;
    uint32_t from = r->n_route;
    if (!route_push(r, ewp, u0))
        return false;
    for (uint32_t i = from; i < r->n_route && r->n_route < ROUTE_MAX; i++) {
        const route_pt pt = r->route[i];
        if (fabs(pt.u - u0) >= r->max_distance)
            continue;
        sn_waypoint next[ROUTE_BRANCHES];
        size_t n = 0;
        sn_status st = with_traffic ? h->map_next(r->ctx, &pt.wp, ROUTE_STEP, next, ROUTE_BRANCHES, &n)
                                    : h->map_previous(r->ctx, &pt.wp, ROUTE_STEP, next, ROUTE_BRANCHES, &n);
        if (st)
            continue; /* the lane ends: no further route this way */
        for (size_t k = 0; k < n && k < ROUTE_BRANCHES; k++)
            if (!route_push(r, &next[k], pt.u + sign * lane_arc(&pt.wp, &next[k])))
                return false;
    }
    return true;
}

static int by_road_cmp(const void *a, const void *b)
{
    const route_key *p = a, *q = b;
    if (p->road != q->road)
        return p->road < q->road ? -1 : 1;
    if (p->s != q->s)
        return p->s < q->s ? -1 : 1;
    return (p->i > q->i) - (p->i < q->i);
}

/* The route, built on first use in a tick. */
static bool route_build(rss_sensor *r, const sn_waypoint *ewp, int route_dir)
{
    if (r->route_built)
        return r->n_route > 0;
    r->route_built = true;
    r->n_route = 0;
    const bool with_traffic = (ewp->lane_id < 0 ? 1 : -1) == route_dir; /* the ego is in its correct lane */
    if (!route_walk(r, ewp, 0, 1, with_traffic) || !route_walk(r, ewp, 0, -1, !with_traffic)) {
        r->n_route = 0;
        return false;
    }
    if (r->n_route > r->cap_by_road) {
        route_key *p = realloc(r->by_road, r->cap_route * sizeof *p);
        if (!p) {
            r->n_route = 0;
            return false;
        }
        r->by_road = p, r->cap_by_road = r->cap_route;
    }
    for (uint32_t i = 0; i < r->n_route; i++)
        r->by_road[i] = (route_key){r->route[i].wp.road_id, r->route[i].wp.s, i};
    qsort(r->by_road, r->n_route, sizeof *r->by_road, by_road_cmp);
    return true;
}

/* The route point nearest (in s) to a waypoint on its road, within a step; NULL if the route
** does not pass there. Ties: the one nearest the ego. */
static const route_pt *route_find(const rss_sensor *r, const sn_waypoint *wp)
{
    uint32_t lo = 0, hi = r->n_route; /* the first point of the road at s - ROUTE_STEP or after */
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        const route_key *q = &r->by_road[mid];
        if (q->road < wp->road_id || (q->road == wp->road_id && q->s < wp->s - ROUTE_STEP))
            lo = mid + 1;
        else
            hi = mid;
    }
    const route_pt *best = NULL;
    for (uint32_t k = lo; k < r->n_route; k++) {
        const route_pt *p = &r->route[r->by_road[k].i];
        if (p->wp.road_id != wp->road_id || p->wp.s > wp->s + ROUTE_STEP)
            break;
        const double d = fabs(p->wp.s - wp->s);
        if (!best || d < fabs(best->wp.s - wp->s) || (d == fabs(best->wp.s - wp->s) && fabs(p->u) < fabs(best->u)))
            best = p;
    }
    return best;
}

/*
** Another vehicle's lane-based place along the ego's route, on any road the route passes
** (through junctions, round curves): its lon range from the arc length along the route's lane
** centres, its lat range from its offset to the route's lane at its place. *same_way: its own
** lane runs the route's way. False (with *note) when the route does not pass its place.
*/
static bool place_on_route(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, const sn_waypoint *ewp,
                           int route_dir, rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right,
                           double *heading_cos, bool *same_way, const char **note)
{
    if (!route_build(r, ewp, route_dir)) {
        *note = "out of memory for the ego's route";
        return false;
    }
    const route_pt *pt = route_find(r, wp);
    if (!pt) {
        *note = "off the ego's route (its lane followed both ways through junctions, up to max_distance)";
        return false;
    }
    sn_waypoint lane_wp;
    if (!walk_to_lane(r, *wp, pt->wp.lane_id, &lane_wp)) {
        *note = "the route's lane does not exist at its place";
        return false;
    }
    const bool against = (ewp->lane_id < 0 ? 1 : -1) != route_dir; /* the route runs against the traffic */
    const double fyaw = wrap_deg(lane_wp.transform.rotation.yaw + (against ? 180.0 : 0.0));
    const double pyaw = wrap_deg(pt->wp.transform.rotation.yaw + (against ? 180.0 : 0.0));
    const sn_vec3 f = fwd_of(fyaw), rt = right_of(fyaw), c = box_centre(a);
    const sn_vec3 dl = {c.x - lane_wp.transform.location.x, c.y - lane_wp.transform.location.y, 0};
    const sn_vec3 pq = {lane_wp.transform.location.x - pt->wp.transform.location.x,
                        lane_wp.transform.location.y - pt->wp.transform.location.y, 0};
    const double arc = lane_arc(&pt->wp, &lane_wp) * (dot2(pq, fwd_of(pyaw)) < 0 ? -1 : 1);
    double along, across;
    half_sizes(a, fyaw, &along, &across);
    const double u = route_dir * ewp->s + pt->u + arc + dot2(dl, f), v = dot2(dl, rt);
    *lon = (rss_range){u - along, u + along};
    *lat = (rss_range){v - across, v + across};
    *speed_fwd = dot2(a->velocity, f);
    *speed_right = dot2(a->velocity, rt);
    *heading_cos = cos((a->transform.rotation.yaw - fyaw) * DEG);
    *same_way = cos((wp->transform.rotation.yaw - fyaw) * DEG) >= 0;
    return true;
}

/* One vehicle's lane-based place against the ego's route: fills o->sit's ranges and speeds.
** False (with o->note) when it shares no lane frame with the ego. */
static bool place(rss_sensor *r, const sn_actor_info *a, const sn_waypoint *wp, int32_t ego_lane, int route_dir,
                  rss_range *lon, rss_range *lat, double *speed_fwd, double *speed_right, double *heading_cos,
                  const char **note)
{
    sn_waypoint lane_wp;
    if (!walk_to_lane(r, *wp, ego_lane, &lane_wp)) {
        *note = "the ego's lane does not exist at its place";
        return false;
    }
    const double ryaw = route_yaw(&lane_wp, route_dir);
    const sn_vec3 f = fwd_of(ryaw), rt = right_of(ryaw), c = box_centre(a);
    const sn_vec3 d = {c.x - wp->transform.location.x, c.y - wp->transform.location.y, 0};
    const sn_vec3 dl = {c.x - lane_wp.transform.location.x, c.y - lane_wp.transform.location.y, 0};
    double along, across;
    half_sizes(a, ryaw, &along, &across);
    const double u = route_dir * wp->s + dot2(d, f), v = dot2(dl, rt);
    *lon = (rss_range){u - along, u + along};
    *lat = (rss_range){v - across, v + across};
    *speed_fwd = dot2(a->velocity, f);
    *speed_right = dot2(a->velocity, rt);
    *heading_cos = cos((a->transform.rotation.yaw - ryaw) * DEG);
    return true;
}

static sn_status tick(void *self, sn_phase phase)
{
    rss_sensor *r = self;
    const sn_host *h = r->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    r->frame = h->clock(r->ctx)->frame;
    r->ticked = true;
    r->valid = false;
    r->reason = NULL;
    r->n_others = 0;
    r->route_built = false;
    if (!r->parent) {
        invalid(r, "the sensor is not attached to a vehicle (attach_to)", &r->warned_parent);
        return SN_OK;
    }
    if (!h->has_map(r->ctx)) {
        invalid(r, "the scene has no map (map: FILE.xodr): RSS needs lanes", &r->warned_map);
        return SN_OK;
    }
    sn_actor_info ego;
    memset(&ego, 0, sizeof ego);
    ego.struct_size = sizeof ego;
    if (h->actor_get(r->ctx, r->parent, &ego) != SN_OK) {
        invalid(r, "the parent is gone", NULL);
        return SN_OK;
    }
    if (ego.kind != SN_ACTOR_VEHICLE) {
        invalid(r, "the parent is not a vehicle (CARLA's RSS sensor supports only vehicles as ego)",
                &r->warned_parent);
        return SN_OK;
    }
    sn_waypoint ewp;
    if (h->map_waypoint(r->ctx, ego.transform.location, true, SN_LANE_DRIVING, &ewp) != SN_OK) {
        invalid(r, "the ego is on no driving lane of the map", &r->warned_road);
        return SN_OK;
    }
    /* the route runs the way the ego faces along its lane's road */
    const double s_yaw = ewp.transform.rotation.yaw + (ewp.lane_id < 0 ? 0.0 : 180.0);
    const int route_dir = cos((ego.transform.rotation.yaw - s_yaw) * DEG) >= 0 ? 1 : -1;
    const double ryaw = route_yaw(&ewp, route_dir);
    rss_range elon = {0, 0}, elat = {0, 0};
    double efwd = 0, eright = 0, ecos = 0;
    const char *note = NULL;
    place(r, &ego, &ewp, ewp.lane_id, route_dir, &elon, &elat, &efwd, &eright, &ecos, &note);
    const double eoffset = 0.5 * (elat.min + elat.max);
    if (fabs(eoffset) > 0.5 * ewp.lane_width + 2.0) { /* CARLA keeps the route within 2 m of the ego */
        invalid(r, "the ego is more than 2 m outside every driving lane", &r->warned_road);
        return SN_OK;
    }
    r->warned_road = false; /* back on the road: warn again next time it leaves */
    ego_dynamics(r, &ego, &ewp, ryaw, eoffset, 0.5 * (elat.max - elat.min));
    r->valid = true;

    /* CARLA's default constellation: a manually driven ego may swerve harder than its
    ** dynamics say; RSS is told so through the lateral acceleration it assumes. */
    r->ego_used = r->ego_dyn;
    const double lat_acc = fabs(r->ego.avg_accel_lat);
    if (lat_acc > r->ego_used.lat_accel_max)
        r->ego_used.lat_accel_max = fmin(20.0, lat_acc);

    const uint32_t n_actors = h->actor_count(r->ctx);
    if (!grow(r, n_actors)) {
        h->set_error(r->ctx, "out of memory for %u actors", n_actors);
        return SN_E_NOMEM;
    }
    uint32_t n_states = 0;
    for (uint32_t i = 0; i < n_actors; i++) {
        const uint32_t id = h->actor_id_at(r->ctx, i);
        if (!id || id == r->parent)
            continue;
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        if (h->actor_get(r->ctx, id, &a) != SN_OK || a.kind != SN_ACTOR_VEHICLE)
            continue;
        const sn_vec3 p = a.transform.location, q = ego.transform.location;
        if (hypot(hypot(p.x - q.x, p.y - q.y), p.z - q.z) > r->max_distance)
            continue;
        other_rec *o = &r->others[r->n_others++];
        memset(o, 0, sizeof *o);
        o->id = id;
        o->type_id = a.type_id;
        o->speed = hypot(a.velocity.x, a.velocity.y);
        sn_waypoint wp;
        if (h->map_waypoint(r->ctx, p, true, SN_LANE_DRIVING, &wp) != SN_OK) {
            o->note = "on no driving lane";
            continue;
        }
        o->on_road = true;
        o->road = wp.road_id, o->lane = wp.lane_id, o->s = wp.s;
        const sn_vec3 c = box_centre(&a);
        o->offset = dot2((sn_vec3){c.x - wp.transform.location.x, c.y - wp.transform.location.y, 0},
                         right_of(wp.transform.rotation.yaw));
        rss_situation *s = &o->sit;
        rss_range olon, olat;
        double ofwd, oright, ocos;
        bool on_positive; /* its lane runs the route's way */
        if (!place_on_route(r, &a, &wp, &ewp, route_dir, &olon, &olat, &ofwd, &oright, &ocos, &on_positive, &o->note))
            continue;
        s->object_id = id;
        s->type = ocos >= 0 ? RSS_SAME_DIRECTION : RSS_OPPOSITE_DIRECTION;
        s->ego.dyn = r->ego_used;
        s->ego.speed_lon = fmax(efwd, 0); /* RSS speeds are along each vehicle's own way, never negative */
        s->ego.speed_lat = eright;
        s->ego.in_correct_lane = (ewp.lane_id < 0 ? 1 : -1) == route_dir;
        s->other.dyn = r->other_dyn;
        if (o->speed == 0) /* CARLA: a vehicle standing still is not assumed to pull away */
            s->other.dyn.accel_max = 0;
        s->other.speed_lon = fmax(s->type == RSS_SAME_DIRECTION ? ofwd : -ofwd, 0);
        s->other.speed_lat = oright;
        s->other.in_correct_lane = s->type == RSS_SAME_DIRECTION ? on_positive : !on_positive;
        s->lon_position = rss_lon_relation(elon, olon, &s->lon_distance);
        s->lat_position = rss_lat_relation(elat, olat, &s->lat_distance);
        rss_check(s, remembered(r, id, s->type), &o->st);
        r->prev[n_states] = remembered(r, id, s->type);
        r->states[n_states++] = o->st;
    }
    uint32_t n_next = 0;
    rss_resolve(&r->ego_used, r->states, r->prev, n_states, &r->resp, r->next_mem, &n_next);
    rss_memory_entry *t = r->mem;
    r->mem = r->next_mem, r->next_mem = t;
    r->n_mem = n_next;
    return SN_OK;
}

static uint32_t pending(void *self)
{
    rss_sensor *r = self;
    return r->ticked && r->frame == r->h->clock(r->ctx)->frame ? 1 : 0;
}

/* ---- the message ---- */

static const char *lon_response_name(int v)
{
    return v == RSS_LON_BRAKE_MIN ? "BrakeMin" : v == RSS_LON_BRAKE_MIN_CORRECT ? "BrakeMinCorrect" : "None";
}
static const char *lat_response_name(int v) { return v == RSS_LAT_BRAKE_MIN ? "BrakeMin" : "None"; }
static const char *situation_name(rss_situation_type t)
{
    return t == RSS_SAME_DIRECTION ? "SameDirection" : "OppositeDirection";
}
static const char *lon_position_name(rss_lon_position p)
{
    static const char *const n[] = {"InFront", "OverlapFront", "Overlap", "OverlapBack", "AtBack"};
    return n[p];
}
static const char *lat_position_name(rss_lat_position p)
{
    static const char *const n[] = {"AtLeft", "OverlapLeft", "Overlap", "OverlapRight", "AtRight"};
    return n[p];
}
static const char *evaluator_name(rss_evaluator e)
{
    static const char *const n[] = {"None", "LongitudinalDistanceSameDirectionEgoFront",
                                    "LongitudinalDistanceSameDirectionOtherInFront",
                                    "LongitudinalDistanceOppositeDirectionEgoCorrectLane",
                                    "LongitudinalDistanceOppositeDirection", "LateralDistance"};
    return n[e];
}

/* A distance that was not evaluated (NaN) is nil. */
static void write_num(const sn_host *h, sn_writer *w, double v)
{
    if (isnan(v))
        h->write_nil(w);
    else
        h->write_double(w, v);
}

static void write_range(const sn_host *h, sn_writer *w, rss_range r)
{
    h->write_array(w, 2);
    h->write_double(w, r.min);
    h->write_double(w, r.max);
}

static void write_dim(const sn_host *h, sn_writer *w, const rss_dim_state *d, bool lon)
{
    h->write_map(w, 5);
    h->write_key(w, "is_safe");
    h->write_bool(w, d->is_safe);
    h->write_key(w, "response");
    h->write_str(w, lon ? lon_response_name(d->response) : lat_response_name(d->response));
    h->write_key(w, "evaluator");
    h->write_str(w, evaluator_name(d->evaluator));
    h->write_key(w, "current_distance");
    write_num(h, w, d->current_distance);
    h->write_key(w, "safe_distance");
    write_num(h, w, d->safe_distance);
}

static void write_dynamics(const sn_host *h, sn_writer *w, const rss_dynamics *d)
{
    /* ad.rss.world.RssDynamics with ad-rss's signs (braking negative), CARLA's field names */
    h->write_map(w, 6);
    h->write_key(w, "alpha_lon");
    h->write_map(w, 4);
    h->write_key(w, "accel_max");
    h->write_double(w, d->accel_max);
    h->write_key(w, "brake_max");
    h->write_double(w, -d->brake_max);
    h->write_key(w, "brake_min");
    h->write_double(w, -d->brake_min);
    h->write_key(w, "brake_min_correct");
    h->write_double(w, -d->brake_min_correct);
    h->write_key(w, "alpha_lat");
    h->write_map(w, 2);
    h->write_key(w, "accel_max");
    h->write_double(w, d->lat_accel_max);
    h->write_key(w, "brake_min");
    h->write_double(w, -d->lat_brake_min);
    h->write_key(w, "lateral_fluctuation_margin");
    h->write_double(w, d->lateral_fluctuation_margin);
    h->write_key(w, "response_time");
    h->write_double(w, d->response_time);
    h->write_key(w, "max_speed_on_acceleration");
    h->write_double(w, d->max_speed_on_acceleration);
    h->write_key(w, "unstructured_settings");
    h->write_nil(w); /* ad-rss 4's unstructured (pedestrian) checks are not reproduced */
}

static void write_vehicle_state(const sn_host *h, sn_writer *w, const rss_vehicle *v)
{
    h->write_map(w, 5);
    h->write_key(w, "speed_lon");
    h->write_double(w, v->speed_lon);
    h->write_key(w, "speed_lat");
    h->write_double(w, v->speed_lat);
    h->write_key(w, "is_in_correct_lane");
    h->write_bool(w, v->in_correct_lane);
    h->write_key(w, "response_time");
    h->write_double(w, v->dyn.response_time);
    h->write_key(w, "accel_max");
    h->write_double(w, v->dyn.accel_max);
}

static void write_ego_route(const sn_host *h, sn_writer *w, const ego_route *e)
{
    h->write_map(w, 20);
    h->write_key(w, "ego_speed");
    h->write_double(w, e->speed);
    h->write_key(w, "min_stopping_distance");
    h->write_double(w, e->min_stopping_distance);
    h->write_key(w, "ego_center");
    h->write_vec3(w, e->center);
    h->write_key(w, "ego_heading");
    h->write_double(w, e->heading);
    h->write_key(w, "ego_heading_change");
    h->write_double(w, e->heading_change);
    h->write_key(w, "ego_center_within_route");
    h->write_bool(w, e->center_within_route);
    h->write_key(w, "crossing_border");
    h->write_bool(w, e->crossing_border);
    h->write_key(w, "route_heading");
    h->write_double(w, e->route_heading);
    h->write_key(w, "route_nominal_center");
    h->write_vec3(w, e->route_nominal_center);
    h->write_key(w, "heading_diff");
    h->write_double(w, e->heading_diff);
    h->write_key(w, "route_speed_lat");
    h->write_double(w, e->speed_lat);
    h->write_key(w, "route_speed_lon");
    h->write_double(w, e->speed_lon);
    h->write_key(w, "route_accel_lat");
    h->write_double(w, e->accel_lat);
    h->write_key(w, "route_accel_lon");
    h->write_double(w, e->accel_lon);
    h->write_key(w, "avg_route_accel_lat");
    h->write_double(w, e->avg_accel_lat);
    h->write_key(w, "avg_route_accel_lon");
    h->write_double(w, e->avg_accel_lon);
    h->write_key(w, "road_id");
    h->write_int(w, e->road);
    h->write_key(w, "lane_id");
    h->write_int(w, e->lane);
    h->write_key(w, "s");
    h->write_double(w, e->s);
    h->write_key(w, "lateral_offset");
    h->write_double(w, e->offset);
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    rss_sensor *r = self;
    const sn_host *h = r->h;
    if (index != 0) {
        h->set_error(r->ctx, "serialize(%u) but one message per tick", index);
        return SN_E_RANGE;
    }
    uint32_t n_sit = 0;
    for (uint32_t i = 0; i < r->n_others; i++)
        n_sit += r->others[i].note == NULL && r->others[i].on_road;
    h->write_key(w, "response_valid");
    h->write_bool(w, r->valid);
    h->write_key(w, "invalid_reason");
    if (r->valid)
        h->write_nil(w);
    else
        h->write_str(w, r->reason ? r->reason : "");

    h->write_key(w, "proper_response");
    if (!r->valid) {
        h->write_nil(w);
    } else {
        const rss_proper_response *p = &r->resp;
        h->write_map(w, 6);
        h->write_key(w, "is_safe");
        h->write_bool(w, p->is_safe);
        h->write_key(w, "dangerous_objects");
        uint32_t n_danger = 0;
        for (uint32_t i = 0; i < r->n_others; i++)
            n_danger += !r->others[i].note && r->others[i].on_road && rss_is_dangerous(&r->others[i].st);
        h->write_array(w, n_danger);
        for (uint32_t i = 0; i < r->n_others; i++)
            if (!r->others[i].note && r->others[i].on_road && rss_is_dangerous(&r->others[i].st))
                h->write_uint(w, r->others[i].id);
        h->write_key(w, "longitudinal_response");
        h->write_str(w, lon_response_name(p->lon));
        h->write_key(w, "lateral_response_left");
        h->write_str(w, lat_response_name(p->lat_left));
        h->write_key(w, "lateral_response_right");
        h->write_str(w, lat_response_name(p->lat_right));
        h->write_key(w, "acceleration_restrictions");
        h->write_map(w, 3);
        h->write_key(w, "longitudinal_range");
        write_range(h, w, p->lon_accel);
        h->write_key(w, "lateral_left_range");
        write_range(h, w, p->lat_left_accel);
        h->write_key(w, "lateral_right_range");
        write_range(h, w, p->lat_right_accel);
    }

    h->write_key(w, "rss_state_snapshot");
    h->write_array(w, r->valid ? n_sit : 0);
    for (uint32_t i = 0; r->valid && i < r->n_others; i++) {
        const other_rec *o = &r->others[i];
        if (o->note || !o->on_road)
            continue;
        h->write_map(w, 6);
        h->write_key(w, "id");
        h->write_uint(w, o->id);
        h->write_key(w, "situation_type");
        h->write_str(w, situation_name(o->st.type));
        h->write_key(w, "is_dangerous");
        h->write_bool(w, rss_is_dangerous(&o->st));
        h->write_key(w, "longitudinal");
        write_dim(h, w, &o->st.lon, true);
        h->write_key(w, "lateral_left");
        write_dim(h, w, &o->st.lat_left, false);
        h->write_key(w, "lateral_right");
        write_dim(h, w, &o->st.lat_right, false);
    }

    h->write_key(w, "situation_snapshot");
    h->write_array(w, r->valid ? n_sit : 0);
    for (uint32_t i = 0; r->valid && i < r->n_others; i++) {
        const other_rec *o = &r->others[i];
        if (o->note || !o->on_road)
            continue;
        const rss_situation *s = &o->sit;
        h->write_map(w, 8);
        h->write_key(w, "id");
        h->write_uint(w, o->id);
        h->write_key(w, "situation_type");
        h->write_str(w, situation_name(s->type));
        h->write_key(w, "longitudinal_position");
        h->write_str(w, lon_position_name(s->lon_position));
        h->write_key(w, "longitudinal_distance");
        h->write_double(w, s->lon_distance);
        h->write_key(w, "lateral_position");
        h->write_str(w, lat_position_name(s->lat_position));
        h->write_key(w, "lateral_distance");
        h->write_double(w, s->lat_distance);
        h->write_key(w, "ego");
        write_vehicle_state(h, w, &s->ego);
        h->write_key(w, "other");
        write_vehicle_state(h, w, &s->other);
    }

    h->write_key(w, "world_model");
    if (!r->valid) {
        h->write_nil(w);
    } else {
        h->write_map(w, 3);
        h->write_key(w, "ego_vehicle_dynamics");
        write_dynamics(h, w, &r->ego_used);
        h->write_key(w, "other_vehicle_dynamics");
        write_dynamics(h, w, &r->other_dyn);
        h->write_key(w, "objects");
        h->write_array(w, r->n_others);
        for (uint32_t i = 0; i < r->n_others; i++) {
            const other_rec *o = &r->others[i];
            h->write_map(w, 9);
            h->write_key(w, "id");
            h->write_uint(w, o->id);
            h->write_key(w, "type_id");
            h->write_str(w, o->type_id ? o->type_id : "");
            h->write_key(w, "road_id");
            o->on_road ? h->write_int(w, o->road) : h->write_nil(w);
            h->write_key(w, "lane_id");
            o->on_road ? h->write_int(w, o->lane) : h->write_nil(w);
            h->write_key(w, "s");
            o->on_road ? h->write_double(w, o->s) : h->write_nil(w);
            h->write_key(w, "lateral_offset");
            o->on_road ? h->write_double(w, o->offset) : h->write_nil(w);
            h->write_key(w, "speed");
            h->write_double(w, o->speed);
            h->write_key(w, "relevant");
            h->write_bool(w, !o->note);
            h->write_key(w, "note");
            o->note ? h->write_str(w, o->note) : h->write_nil(w);
        }
    }

    h->write_key(w, "ego_dynamics_on_route");
    if (r->valid)
        write_ego_route(h, w, &r->ego);
    else
        h->write_nil(w);
    return SN_OK;
}

static const sn_sensor_class rss_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.rss",
    .doc = "Responsibility-Sensitive Safety of the parent vehicle against the vehicles around it on the map's "
           "lanes (CARLA's RSS sensor, ad-rss's structured non-intersection cases)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(rss_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .attach = attach,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&rss_class};
SN_PLUGIN_EXPORT(lib, "rss", "1.0.0", classes)
