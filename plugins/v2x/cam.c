/*
** cam.c — CAM triggers and content. Times are the clock's integer nanoseconds, so "at least
** 0.1 s since the last CAM" is exact at any dt. Deliberate differences from CARLA's code
** (docs/sensors/v2x.md): the low-dynamics limit is the standard's 3 (CARLA leaves it uninitialised), the
** accelerations are the vehicle's own over the last frame (CARLA differentiates its uninitialised
** CAM history), vehicle length and width are in the standard's 0.1 m (CARLA writes mm), latitude
** and longitude keep the standard's full 0.1 microdegree, and generation_delta_time counts
** simulated milliseconds (CARLA adds the wall clock).
*/
#include "cam.h"

#include <math.h>
#include <sensim/math.h>
#include <string.h>

#define HEADING_DEG 4.0
#define POSITION_M 4.0
#define SPEED_MPS 0.5 /* CARLA's code; its docs say 5 */
#define RSU_PERIOD_NS 500000000LL
#define LOW_FREQ_NS 500000000LL

static uint8_t station_type_of_tag(uint8_t tag)
{
    switch (tag) {
    case SN_TAG_CAR: return SN_V2X_ST_PASSENGER_CAR;
    case SN_TAG_TRUCK: return SN_V2X_ST_LIGHT_TRUCK;
    case SN_TAG_BUS: return SN_V2X_ST_BUS;
    case SN_TAG_MOTORCYCLE: return SN_V2X_ST_MOTORCYCLE;
    case SN_TAG_BICYCLE: return SN_V2X_ST_CYCLIST;
    case SN_TAG_PEDESTRIAN: return SN_V2X_ST_PEDESTRIAN;
    case SN_TAG_TRAIN: return SN_V2X_ST_TRAM;
    case SN_TAG_BUILDING: case SN_TAG_WALL: case SN_TAG_FENCE: case SN_TAG_POLE:
    case SN_TAG_TRAFFIC_LIGHT: case SN_TAG_TRAFFIC_SIGN: return SN_V2X_ST_RSU;
    default: return SN_V2X_ST_UNKNOWN;
    }
}

void sn_v2x_cam_attach(sn_v2x_cam_state *c, const sn_host *h, sn_ctx *ctx, uint32_t parent_id)
{
    memset(c, 0, sizeof *c);
    c->station_type = SN_V2X_ST_RSU; /* free-standing: a roadside unit (CARLA 0.9.16+) */
    if (!parent_id)
        return;
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (h->actor_get(ctx, parent_id, &a) != SN_OK)
        return;
    c->station_type = station_type_of_tag(a.semantic_tag);
    sn_value v;
    memset(&v, 0, sizeof v);
    if (a.kind == SN_ACTOR_VEHICLE && h->actor_attribute &&
        h->actor_attribute(ctx, parent_id, "special_type", &v) == SN_OK && v.type == SN_ATTR_STRING && v.s &&
        strcmp(v.s, "emergency") == 0)
        c->station_type = SN_V2X_ST_SPECIAL;
    c->vehicle_role = c->station_type == SN_V2X_ST_BUS || c->station_type == SN_V2X_ST_TRAM ? 1
                      : c->station_type == SN_V2X_ST_SPECIAL                                ? 6
                                                                                            : 0;
}

/* ETSI values with their out-of-range codes. */
static int64_t accel_value(double a)
{
    double v = a * 10.0;
    return v >= -160.0 && v <= 161.0 ? (int64_t)llround(v) : 161;
}

/* Degrees from north (-y) clockwise, CARLA's: acos to the forward vector in the plane,
** mirrored when it points west. */
static double heading_deg(sn_vec3 fwd)
{
    double n = hypot(fwd.x, fwd.y);
    if (n <= 0)
        return 0;
    double c = -fwd.y / n;
    double a = acos(c < -1 ? -1 : c > 1 ? 1 : c) / SN_DEG;
    return fwd.x < 0 ? 360.0 - a : a;
}

static bool triggered(sn_v2x_cam_state *c, const sn_v2x_cam_params *p, int64_t elapsed, sn_vec3 pos, sn_vec3 fwd,
                      double speed)
{
    if (elapsed < p->gen_min_ns)
        return false;
    if (p->fixed_rate)
        return true;
    bool dynamic = !c->has_last; /* CARLA's zero "last position" makes the first one a position trigger */
    if (!dynamic) {
        double dot = sn_v3_dot(sn_v3_norm(fwd), sn_v3_norm(c->last_fwd));
        dynamic = acos(dot < -1 ? -1 : dot > 1 ? 1 : dot) / SN_DEG > HEADING_DEG ||
                  sn_v3_len(sn_v3_sub(pos, c->last_pos)) > POSITION_M || fabs(speed - c->last_speed) > SPEED_MPS;
    }
    if (dynamic) {
        c->t_gencam_ns = elapsed < p->gen_max_ns ? elapsed : p->gen_max_ns;
        c->low_dynamics = 0;
        return true;
    }
    if (elapsed >= c->t_gencam_ns) {
        if (++c->low_dynamics >= SN_V2X_GEN_CAM_LOW_DYNAMICS)
            c->t_gencam_ns = p->gen_max_ns;
        return true;
    }
    return false;
}

sn_status sn_v2x_cam_tick(sn_v2x_cam_state *c, const sn_v2x_cam_params *p, const sn_host *h, sn_ctx *ctx,
                          uint32_t parent_id, sn_v2x_rng *rng, sn_v2x_cam *out, bool *generated)
{
    *generated = false;
    const sn_clock *clk = h->clock(ctx);
    int64_t now = clk->time_ns;
    if (!c->started) { /* CARLA's SetOwner: a CAM is due at once, the low-frequency part too */
        c->started = true;
        c->last_cam_ns = now - (c->station_type == SN_V2X_ST_RSU ? RSU_PERIOD_NS : p->gen_max_ns);
        c->last_lf_ns = now - LOW_FREQ_NS;
        c->t_gencam_ns = p->gen_max_ns;
    }
    sn_kinematics k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    sn_status st = h->sensor_kinematics(ctx, &k);
    if (st)
        return st;
    /* The vehicle's own axes and box: CAM heading, speed and size describe the vehicle. */
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    bool has_parent = parent_id && h->actor_get(ctx, parent_id, &a) == SN_OK;
    sn_rotation rot = has_parent ? a.transform.rotation : k.transform.rotation;
    sn_mat3 R = sn_mat3_from_rotation(rot);
    sn_vec3 fwd = sn_mat3_col(&R, 0);
    double speed = sn_v3_dot(k.velocity, fwd);
    int64_t elapsed = now - c->last_cam_ns;
    bool rsu = c->station_type == SN_V2X_ST_RSU;
    if (rsu ? elapsed < RSU_PERIOD_NS : !triggered(c, p, elapsed, k.transform.location, fwd, speed))
        return SN_OK;

    memset(out, 0, sizeof *out);
    out->generation_delta_time = (uint32_t)((now / 1000000) % 65536);
    out->station_type = c->station_type;
    sn_geo_location g;
    if ((st = h->world_to_geo(ctx, k.transform.location, &g)))
        return st;
    /* Noise in CARLA's draw order: lat, lon, alt, heading, speed, accel x, y, z, yaw rate. */
    double lat = g.latitude + p->lat_bias + sn_v2x_rng_normal(rng, 0, p->lat_sd);
    double lon = g.longitude + p->lon_bias + sn_v2x_rng_normal(rng, 0, p->lon_sd);
    double alt = g.altitude + p->alt_bias + sn_v2x_rng_normal(rng, 0, p->alt_sd);
    out->latitude = llround(lat * 1e7);
    out->longitude = llround(lon * 1e7);
    out->altitude = llround(alt * 100.0);
    out->hf = rsu ? SN_V2X_HF_RSU
              : c->station_type == SN_V2X_ST_PEDESTRIAN || c->station_type == SN_V2X_ST_UNKNOWN ? SN_V2X_HF_NONE
                                                                                                 : SN_V2X_HF_VEHICLE;
    if (out->hf == SN_V2X_HF_VEHICLE) {
        out->heading = llround(10.0 * (heading_deg(fwd) + p->head_bias + sn_v2x_rng_normal(rng, 0, p->head_sd)));
        double v = speed + sn_v2x_rng_normal(rng, 0, p->vel_sd);
        v = v < 0 ? 0 : v;
        out->speed = v >= 163.82 ? 16382 : llround(v * 100.0);
        out->drive_direction = speed >= 0 ? 0 : 1;
        /* The standard's 0.1 m, its "unavailable" codes at the top (1023, 62). */
        double len = has_parent ? 2.0 * a.bounding_box.extent.x : 0, wid = has_parent ? 2.0 * a.bounding_box.extent.y : 0;
        out->length = len > 0 ? (llround(len * 10) > 1022 ? 1022 : llround(len * 10)) : 1023;
        out->width = wid > 0 ? (llround(wid * 10) > 61 ? 61 : llround(wid * 10)) : 62;
        /* An accelerometer's reading in the vehicle's frame, gravity included (CARLA's +9.81 on z). */
        sn_world_settings ws;
        memset(&ws, 0, sizeof ws);
        ws.struct_size = sizeof ws;
        h->world_settings(ctx, &ws);
        sn_vec3 acc = sn_mat3_apply_t(&R, sn_v3_sub(k.acceleration, ws.gravity));
        out->lon_acc = accel_value(acc.x + sn_v2x_rng_normal(rng, 0, p->acc_sd[0]));
        out->lat_acc = accel_value(acc.y + sn_v2x_rng_normal(rng, 0, p->acc_sd[1]));
        out->vert_acc = accel_value(acc.z + sn_v2x_rng_normal(rng, 0, p->acc_sd[2]));
        /* Yaw rate: the gyroscope's z in the vehicle frame (rad/s, positive as yaw grows). */
        double wz = sn_mat3_apply_t(&R, k.angular_velocity).z;
        double yaw = llround((wz + p->yaw_bias + sn_v2x_rng_normal(rng, 0, p->yaw_sd)) / SN_DEG * 100.0);
        out->yaw_rate = yaw >= -32766 && yaw <= 32766 ? (int64_t)yaw : 32767;
        if (now - c->last_lf_ns >= LOW_FREQ_NS) {
            out->lf = true;
            out->vehicle_role = c->vehicle_role;
            out->exterior_lights = has_parent && a.control.reverse ? 0x04 : 0;
            c->last_lf_ns = now;
        }
    }
    c->last_cam_ns = now;
    c->last_pos = k.transform.location, c->last_fwd = fwd, c->last_speed = speed;
    c->has_last = true;
    *generated = true;
    return SN_OK;
}
