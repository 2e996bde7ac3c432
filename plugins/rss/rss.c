/*
** sensor.other.rss — CARLA's RSS sensor (Responsibility-Sensitive Safety) as a sensim plugin.
**
** CARLA's sensor (LibCarla/source/carla/rss, deprecated since 0.9.15) runs Intel's ad-rss
** library on the client: every tick it map-matches the ego vehicle and every other actor,
** builds one situation per pair on the lanes of the ego's route, checks the longitudinal and
** lateral safe distances of the RSS paper and resolves a proper response with acceleration
** restrictions. This plugin does the same for the structured, non-intersection cases, on the
** scene's OpenDRIVE map through the host (ABI 1.4 map queries). This file is the class (attributes,
** tick); rss_route.c the ego's route and places on it, rss_output.c the message, rss_model.c the
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
#include "rss.h"

#include <sensim/grow.h>
#include <sensim/plugin.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

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

/* Room for n other actors in the five parallel per-actor arrays (one capacity, cap_others). */
static bool reserve_others(rss_sensor *r, uint32_t n)
{
    uint32_t c[5] = {r->cap_others, r->cap_others, r->cap_others, r->cap_others, r->cap_others};
    if (!SN_GROW32(r->others, c[0], n) || !SN_GROW32(r->mem, c[1], n) || !SN_GROW32(r->next_mem, c[2], n) ||
        !SN_GROW32(r->prev, c[3], n) || !SN_GROW32(r->states, c[4], n))
        return false;
    uint32_t cap = c[0];
    for (int k = 1; k < 5; k++)
        cap = c[k] < cap ? c[k] : cap;
    r->cap_others = cap;
    return true;
}

static const rss_memory_entry *remembered(const rss_sensor *r, uint32_t id, rss_situation_type type)
{
    /* the memory is in ascending id order (actors are iterated so) */
    uint32_t lo = (uint32_t)sn_search_u32(r->mem, r->n_mem, sizeof *r->mem, offsetof(rss_memory_entry, object_id), id);
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

/* Where the ego stands on its route: its extent along and across it, its speed along and to the right. */
typedef struct ego_place {
    rss_range lon, lat;
    double fwd, right;
} ego_place;

/* Adds vehicle id to r->others if it is within max_distance and, when it can be placed on the
** ego's route, checks its situation into o->st. Returns that record, or NULL when there is no
** situation to resolve (not a vehicle, too far, off the lanes or off the route). */
static other_rec *consider_other(rss_sensor *r, uint32_t id, const sn_actor_info *ego, const sn_waypoint *ewp,
                                 int route_dir, const ego_place *ep)
{
    const sn_host *h = r->h;
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (h->actor_get(r->ctx, id, &a) != SN_OK || a.kind != SN_ACTOR_VEHICLE)
        return NULL;
    const sn_vec3 p = a.transform.location, q = ego->transform.location;
    if (hypot(hypot(p.x - q.x, p.y - q.y), p.z - q.z) > r->max_distance)
        return NULL;
    other_rec *o = &r->others[r->n_others++];
    memset(o, 0, sizeof *o);
    o->id = id;
    o->type_id = a.type_id;
    o->speed = hypot(a.velocity.x, a.velocity.y);
    sn_waypoint wp;
    if (h->map_waypoint(r->ctx, p, true, SN_LANE_DRIVING, &wp) != SN_OK) {
        o->note = "on no driving lane";
        return NULL;
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
    if (!rss_place_on_route(r, &a, &wp, ewp, route_dir, &olon, &olat, &ofwd, &oright, &ocos, &on_positive, &o->note))
        return NULL;
    s->object_id = id;
    s->type = ocos >= 0 ? RSS_SAME_DIRECTION : RSS_OPPOSITE_DIRECTION;
    s->ego.dyn = r->ego_used;
    s->ego.speed_lon = fmax(ep->fwd, 0); /* RSS speeds are along each vehicle's own way, never negative */
    s->ego.speed_lat = ep->right;
    s->ego.in_correct_lane = (ewp->lane_id < 0 ? 1 : -1) == route_dir;
    s->other.dyn = r->other_dyn;
    if (o->speed == 0) /* CARLA: a vehicle standing still is not assumed to pull away */
        s->other.dyn.accel_max = 0;
    s->other.speed_lon = fmax(s->type == RSS_SAME_DIRECTION ? ofwd : -ofwd, 0);
    s->other.speed_lat = oright;
    s->other.in_correct_lane = s->type == RSS_SAME_DIRECTION ? on_positive : !on_positive;
    s->lon_position = rss_lon_relation(ep->lon, olon, &s->lon_distance);
    s->lat_position = rss_lat_relation(ep->lat, olat, &s->lat_distance);
    rss_check(s, remembered(r, id, s->type), &o->st);
    return o;
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
    ego_place ep = {{0, 0}, {0, 0}, 0, 0};
    double ecos = 0;
    const char *note = NULL;
    rss_place(r, &ego, &ewp, ewp.lane_id, route_dir, &ep.lon, &ep.lat, &ep.fwd, &ep.right, &ecos, &note);
    const double eoffset = 0.5 * (ep.lat.min + ep.lat.max);
    if (fabs(eoffset) > 0.5 * ewp.lane_width + 2.0) { /* CARLA keeps the route within 2 m of the ego */
        invalid(r, "the ego is more than 2 m outside every driving lane", &r->warned_road);
        return SN_OK;
    }
    r->warned_road = false; /* back on the road: warn again next time it leaves */
    ego_dynamics(r, &ego, &ewp, ryaw, eoffset, 0.5 * (ep.lat.max - ep.lat.min));
    r->valid = true;

    /* CARLA's default constellation: a manually driven ego may swerve harder than its
    ** dynamics say; RSS is told so through the lateral acceleration it assumes. */
    r->ego_used = r->ego_dyn;
    const double lat_acc = fabs(r->ego.avg_accel_lat);
    if (lat_acc > r->ego_used.lat_accel_max)
        r->ego_used.lat_accel_max = fmin(20.0, lat_acc);

    const uint32_t n_actors = h->actor_count(r->ctx);
    if (!reserve_others(r, n_actors)) {
        h->set_error(r->ctx, "out of memory for %u actors", n_actors);
        return SN_E_NOMEM;
    }
    uint32_t n_states = 0;
    for (uint32_t i = 0; i < n_actors; i++) {
        const uint32_t id = h->actor_id_at(r->ctx, i);
        if (!id || id == r->parent)
            continue;
        const other_rec *o = consider_other(r, id, &ego, &ewp, route_dir, &ep);
        if (!o)
            continue;
        r->prev[n_states] = remembered(r, id, o->sit.type);
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
    .serialize = rss_serialize,
};

static const sn_sensor_class *const classes[] = {&rss_class};
SN_PLUGIN_EXPORT(lib, "rss", "1.0.0", classes)
