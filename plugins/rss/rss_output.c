/* rss_output.c — the RSS sensor's message: CARLA's RssResponse and EgoDynamicsOnRoute as msgpack
** maps (docs/sensors/rss.md). */
#include "rss.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* proper_response: CARLA's RssResponse (is_safe, dangerous objects, responses and the
** acceleration restrictions) of a valid tick. */
static void write_proper_response(const rss_sensor *r, sn_writer *w)
{
    const sn_host *h = r->h;
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

/* world_model: the dynamics used and every object considered, relevant or not, of a valid tick. */
static void write_world_model(const rss_sensor *r, sn_writer *w)
{
    const sn_host *h = r->h;
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

sn_status rss_serialize(void *self, uint32_t index, sn_writer *w)
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
    if (!r->valid)
        h->write_nil(w);
    else
        write_proper_response(r, w);

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
    if (!r->valid)
        h->write_nil(w);
    else
        write_world_model(r, w);

    h->write_key(w, "ego_dynamics_on_route");
    if (r->valid)
        write_ego_route(h, w, &r->ego);
    else
        h->write_nil(w);
    return SN_OK;
}
