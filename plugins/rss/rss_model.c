/* rss_model.c — the RSS formulas and response resolution (see rss_model.h). */
#include "rss_model.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ad-rss calculateAcceleratedLimitedMovement: `t` seconds at `a` from speed v, the speed held
** in [0, max(v, v_max)] (a vehicle brakes to a stop, not into reverse; it accelerates no
** faster than v_max, or its current speed when already faster). */
static void accel_limited(double v, double v_max, double a, double t, double *v_out, double *d_out)
{
    double vr = v + a * t;
    if (vr < 0)
        vr = 0;
    const double cap = fmax(v_max, v);
    if (vr > cap)
        vr = cap;
    const double ta = a != 0 ? (vr - v) / a : 0; /* time spent accelerating */
    *d_out = v * t + 0.5 * a * ta * ta + (vr - v) * (t - ta);
    *v_out = vr;
}

double rss_lon_stated_braking(double v, double v_max, double response_time, double accel, double decel)
{
    double vr, d;
    accel_limited(v, v_max, accel, response_time, &vr, &d);
    if (vr > 0) /* still moving after the response time: brake to a stop */
        d += vr * vr / (2 * decel);
    return d;
}

double rss_safe_lon_same(const rss_vehicle *leader, const rss_vehicle *follower)
{
    const rss_dynamics *f = &follower->dyn;
    const double follower_d = rss_lon_stated_braking(follower->speed_lon, f->max_speed_on_acceleration,
                                                     f->response_time, f->accel_max, f->brake_min);
    const double leader_d = leader->speed_lon * leader->speed_lon / (2 * leader->dyn.brake_max);
    return fmax(follower_d - leader_d, 0.0);
}

double rss_safe_lon_opposite(const rss_vehicle *correct, const rss_vehicle *opposite)
{
    const rss_dynamics *c = &correct->dyn, *o = &opposite->dyn;
    return rss_lon_stated_braking(correct->speed_lon, c->max_speed_on_acceleration, c->response_time, c->accel_max,
                                  c->brake_min_correct) +
           rss_lon_stated_braking(opposite->speed_lon, o->max_speed_on_acceleration, o->response_time, o->accel_max,
                                  o->brake_min);
}

/* ad-rss calculateLateralDistanceOffsetAfterStatedBrakingPattern: toward the right is +; the
** left vehicle accelerates toward the right at +a then brakes at -b, the right vehicle the
** mirror. `sign` is +1 for the left vehicle, -1 for the right one. No speed cap laterally. */
static double lat_offset(double v, double response_time, double a, double b, double sign)
{
    const double acc = sign * a;
    const double v1 = v + acc * response_time;
    double d = v * response_time + 0.5 * acc * response_time * response_time;
    if (sign * v1 > 0) /* still moving toward the other after the response time: brake to a stop */
        d += sign * v1 * v1 / (2 * b);
    return d;
}

double rss_safe_lat(const rss_vehicle *left, const rss_vehicle *right)
{
    const double dl =
        lat_offset(left->speed_lat, left->dyn.response_time, left->dyn.lat_accel_max, left->dyn.lat_brake_min, 1);
    const double dr = lat_offset(right->speed_lat, right->dyn.response_time, right->dyn.lat_accel_max,
                                 right->dyn.lat_brake_min, -1);
    return fmax(dl - dr, 0.0);
}

rss_lon_position rss_lon_relation(rss_range ego, rss_range other, double *distance)
{
    *distance = 0;
    if (ego.min > other.max) {
        *distance = ego.min - other.max;
        return RSS_IN_FRONT;
    }
    if (other.min > ego.max) {
        *distance = other.min - ego.max;
        return RSS_AT_BACK;
    }
    if (ego.min > other.min && ego.max > other.max)
        return RSS_OVERLAP_FRONT;
    if (ego.min < other.min && ego.max < other.max)
        return RSS_OVERLAP_BACK;
    return RSS_OVERLAP;
}

rss_lat_position rss_lat_relation(rss_range ego, rss_range other, double *distance)
{
    *distance = 0;
    if (ego.min > other.max) { /* lateral coordinates grow to the right: the ego is right of the other */
        *distance = ego.min - other.max;
        return RSS_AT_RIGHT;
    }
    if (other.min > ego.max) {
        *distance = other.min - ego.max;
        return RSS_AT_LEFT;
    }
    if (ego.min > other.min && ego.max > other.max)
        return RSS_OVERLAP_RIGHT;
    if (ego.min < other.min && ego.max < other.max)
        return RSS_OVERLAP_LEFT;
    return RSS_LAT_OVERLAP;
}

static void check_lon(const rss_situation *s, rss_dim_state *o)
{
    o->response = RSS_LON_BRAKE_MIN;
    o->current_distance = s->lon_distance;
    if (s->type == RSS_SAME_DIRECTION) {
        if (s->lon_position == RSS_IN_FRONT || s->lon_position == RSS_OVERLAP_FRONT) {
            /* the ego leads: the other must keep its distance, the ego need not brake */
            o->evaluator = RSS_EVAL_LON_SAME_EGO_FRONT;
            o->response = RSS_LON_NONE;
            o->safe_distance = rss_safe_lon_same(&s->ego, &s->other);
        } else {
            o->evaluator = RSS_EVAL_LON_SAME_OTHER_FRONT;
            o->safe_distance = rss_safe_lon_same(&s->other, &s->ego);
        }
    } else if (s->ego.in_correct_lane) {
        o->evaluator = RSS_EVAL_LON_OPPOSITE_EGO_CORRECT;
        o->safe_distance = rss_safe_lon_opposite(&s->ego, &s->other);
        o->response = RSS_LON_BRAKE_MIN_CORRECT;
    } else {
        o->evaluator = RSS_EVAL_LON_OPPOSITE;
        o->safe_distance = rss_safe_lon_opposite(&s->other, &s->ego);
    }
    o->is_safe = o->current_distance > o->safe_distance;
    if (o->is_safe)
        o->response = RSS_LON_NONE;
}

static void check_lat(const rss_situation *s, rss_dim_state *left, rss_dim_state *right)
{
    *left = *right = (rss_dim_state){false, RSS_LAT_BRAKE_MIN, RSS_EVAL_LATERAL, 0, 0};
    /* The paper's mu: ad-rss widens the vehicles' boxes by it; here each vehicle brings half
    ** of its own margin, so two vehicles with the default 0.1 m need 0.1 m more. */
    const double mu = 0.5 * (s->ego.dyn.lateral_fluctuation_margin + s->other.dyn.lateral_fluctuation_margin);
    bool safe = false;
    if (s->lat_position == RSS_AT_LEFT) { /* the ego is the left vehicle: its right side counts */
        left->evaluator = RSS_EVAL_NONE, left->current_distance = left->safe_distance = NAN;
        right->current_distance = s->lat_distance;
        right->safe_distance = rss_safe_lat(&s->ego, &s->other) + mu;
        safe = right->current_distance > right->safe_distance;
    } else if (s->lat_position == RSS_AT_RIGHT) {
        right->evaluator = RSS_EVAL_NONE, right->current_distance = right->safe_distance = NAN;
        left->current_distance = s->lat_distance;
        left->safe_distance = rss_safe_lat(&s->other, &s->ego) + mu;
        safe = left->current_distance > left->safe_distance;
    }
    /* both sides start unsafe with BrakeMin (ad-rss); the side away from the other is freed */
    if (safe) {
        left->is_safe = right->is_safe = true;
        left->response = right->response = RSS_LAT_NONE;
    } else if (s->lat_position == RSS_AT_LEFT || s->lat_position == RSS_OVERLAP_LEFT) {
        left->is_safe = true;
        left->response = RSS_LAT_NONE;
    } else if (s->lat_position == RSS_AT_RIGHT || s->lat_position == RSS_OVERLAP_RIGHT) {
        right->is_safe = true;
        right->response = RSS_LAT_NONE;
    }
}

void rss_check(const rss_situation *s, const rss_memory_entry *prev, rss_state *o)
{
    memset(o, 0, sizeof *o);
    o->object_id = s->object_id;
    o->type = s->type;
    check_lon(s, &o->lon);
    check_lat(s, &o->lat_left, &o->lat_right);
    /* Definition 10 of the paper: respond in the dimension that was safe at the blame time
    ** (the last tick before the situation became dangerous). */
    bool lon_safe = o->lon.is_safe, lat_safe = rss_is_lat_safe(o);
    if (rss_is_dangerous(o))
        lon_safe = prev && prev->lon_safe, lat_safe = prev && prev->lat_safe;
    if (lat_safe && lon_safe)
        return; /* both became unsafe at once: both respond */
    if (lat_safe) {
        o->lon.response = RSS_LON_NONE; /* a lateral conflict: no braking along the lane */
    } else if (lon_safe) {
        o->lat_left.response = RSS_LAT_NONE;
        o->lat_right.response = RSS_LAT_NONE;
    }
}

static void combine_lon(const rss_dynamics *ego, const rss_dim_state *st, rss_lon_response *resp, rss_range *r)
{
    if (st->response > (int)*resp)
        *resp = (rss_lon_response)st->response;
    r->min = fmax(r->min, -ego->brake_max);
    const double max = st->response == RSS_LON_BRAKE_MIN           ? -ego->brake_min
                       : st->response == RSS_LON_BRAKE_MIN_CORRECT ? -ego->brake_min_correct
                                                                   : ego->accel_max;
    r->max = fmin(r->max, max);
}

static void combine_lat(const rss_dynamics *ego, const rss_dim_state *st, rss_lat_response *resp, rss_range *r)
{
    if (st->response > (int)*resp)
        *resp = (rss_lat_response)st->response;
    r->min = -DBL_MAX; /* ad-rss: a vehicle may always brake its sideways movement */
    r->max = fmin(r->max, st->response == RSS_LAT_BRAKE_MIN ? -ego->lat_brake_min : ego->lat_accel_max);
}

void rss_resolve(const rss_dynamics *ego, const rss_state *states, const rss_memory_entry *const *prev, uint32_t n,
                 rss_proper_response *out, rss_memory_entry *next, uint32_t *next_n)
{
    memset(out, 0, sizeof *out);
    out->is_safe = true;
    out->lon_accel = (rss_range){-ego->brake_max, ego->accel_max};
    out->lat_left_accel = out->lat_right_accel = (rss_range){-DBL_MAX, ego->lat_accel_max};
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rss_state *st = &states[i];
        rss_memory_entry mem = {st->object_id, (uint8_t)st->type, false, false};
        if (rss_is_dangerous(st)) {
            out->is_safe = false;
            if (prev[i]) {
                if (prev[i]->lat_safe) {
                    combine_lat(ego, &st->lat_left, &out->lat_left, &out->lat_left_accel);
                    combine_lat(ego, &st->lat_right, &out->lat_right, &out->lat_right_accel);
                }
                if (prev[i]->lon_safe)
                    combine_lon(ego, &st->lon, &out->lon, &out->lon_accel);
                mem.lon_safe = prev[i]->lon_safe, mem.lat_safe = prev[i]->lat_safe;
            } else {
                combine_lon(ego, &st->lon, &out->lon, &out->lon_accel);
                combine_lat(ego, &st->lat_left, &out->lat_left, &out->lat_left_accel);
                combine_lat(ego, &st->lat_right, &out->lat_right, &out->lat_right_accel);
            }
        } else {
            mem.lon_safe = st->lon.is_safe;
            mem.lat_safe = rss_is_lat_safe(st);
        }
        if (mem.lon_safe || mem.lat_safe)
            next[k++] = mem;
    }
    *next_n = k;
}
