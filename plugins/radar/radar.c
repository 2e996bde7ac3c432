/*
** sensor.other.radar — CARLA's radar as a sensim plugin.
**
** Follows CARLA's ARadar (Unreal/CarlaUE4/Plugins/Carla/Source/Carla/Sensor/Radar.cpp) and its
** record (LibCarla sensor/s11n/RadarData.h); docs/sensors/radar.md says where and why sensim differs.
**
** Each tick casts N = (int)(points_per_second * dt) rays (dt the frame's, as CARLA's
** PostPhysTick gets it, also when sensor_tick is longer). Ray i draws, in this order, a radius
** r = U[0, 1) and an angle a = U[0, 2 pi) from the sensor's stream, and ends at
**     sensor + R * (range, tan(hfov/2) range r cos a, tan(vfov/2) range r sin a)
** (R the sensor's rotation): points of an ellipse at `range` ahead, r not square-rooted, so
** the rays crowd toward the centre as in CARLA. A ray that hits an actor gives one detection:
**   velocity  (v_point - v_sensor) . u, u the unit vector from the sensor to the hit point:
**             negative when the two close in, positive when they part (CARLA's sign; seed 003
**             calls it "the velocity toward the sensor"). v_point is the hit actor's velocity
**             plus its angular velocity x (point - its origin) (CARLA takes the actor's linear
**             velocity only); v_sensor the sensor point's (host->sensor_kinematics; CARLA
**             differences its own location over the frame);
**   azimuth   of the ray's direction in the sensor frame, radians, positive toward +y (right);
**   altitude  its elevation, radians, positive up (UE's GetAzimuthAndElevation);
**   depth     distance from the sensor to the hit, metres (at most the ray's length, which
**             is range at the centre and a little more toward the edges).
** The message's raw_data is one bin of 16-byte records, four little-endian float32 each:
** velocity, azimuth, altitude, depth, in ray order (CARLA's RadarDetection; the record is
** defined here until the shared sensim/records.h lands). The sensor's parent, and what rides
** on it, is never hit (CARLA ignores only the radar actor itself, whose rays in practice start
** outside its car's collision mesh; a ray starting inside a box here would stop at once).
*/
#include <sensim/math.h>
#include <sensim/noise.h>
#include <sensim/plugin.h>
#include <sensim/records.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* CARLA's carla::sensor::s11n::RadarDetection, the SDK's record (sensim/records.h): velocity
** m/s (negative when closing), azimuth and altitude rad, depth m; little-endian on the wire. */
_Static_assert(sizeof(sn_radar_detection) == 16, "the radar record is 4 packed float32");

#define MAX_POINTS 1000000 /* points_per_second's ceiling: rays of one tick stay in memory */

static const sn_attr_def radar_attrs[] = {
    {"horizontal_fov", SN_ATTR_FLOAT, "30.0", NULL, NULL, true, 0, 179, "deg", "horizontal field of view"},
    {"vertical_fov", SN_ATTR_FLOAT, "30.0", NULL, NULL, true, 0, 179, "deg", "vertical field of view"},
    {"range", SN_ATTR_FLOAT, "100", NULL, NULL, true, 0.001, 100000, "m", "maximum distance of the rays (along the axis)"},
    {"points_per_second", SN_ATTR_INT, "1500", NULL, NULL, true, 0, MAX_POINTS, NULL,
     "rays per second of simulated time (per tick: this times the frame's dt, truncated)"},
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),
};

typedef struct radar {
    const sn_host *h;
    sn_ctx *ctx;
    float hfov, vfov, range; /* CARLA keeps them as float */
    int32_t pps;
    uint32_t parent;
    sn_ray *rays;
    sn_ray_result *res;
    unsigned char *out; /* n_det records, little-endian */
    uint32_t cap, n_det;
} radar;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    if (h->hdr.abi_minor < 2 || !h->ray_batch || !h->sensor_kinematics) {
        h->set_error(ctx, "sensor.other.radar needs a host of ABI 1.2 (ray batches, sensor kinematics)");
        return SN_E_UNSUPPORTED;
    }
    radar *r = calloc(1, sizeof *r);
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
    radar *r = self;
    if (r)
        free(r->rays), free(r->res), free(r->out);
    free(r);
}

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    radar *r = self;
    (void)n;
    r->hfov = (float)a[0].f;
    r->vfov = (float)a[1].f;
    r->range = (float)a[2].f;
    r->pps = (int32_t)a[3].i;
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    ((radar *)self)->parent = parent;
    return SN_OK;
}

static sn_status reserve(radar *r, uint32_t n)
{
    if (n <= r->cap)
        return SN_OK;
    sn_ray *rays = realloc(r->rays, (size_t)n * sizeof *rays);
    if (rays)
        r->rays = rays;
    sn_ray_result *res = rays ? realloc(r->res, (size_t)n * sizeof *res) : NULL;
    if (res)
        r->res = res;
    unsigned char *out = res ? realloc(r->out, (size_t)n * sizeof(sn_radar_detection)) : NULL;
    if (!out) {
        r->h->set_error(r->ctx, "out of memory for %u radar rays", n);
        return SN_E_NOMEM;
    }
    r->out = out;
    r->cap = n;
    return SN_OK;
}

/* One float32 little-endian whatever the host's byte order. */
static void put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    p[0] = (unsigned char)u, p[1] = (unsigned char)(u >> 8), p[2] = (unsigned char)(u >> 16),
    p[3] = (unsigned char)(u >> 24);
}

/* The velocity of the hit point of an actor: its origin's plus w x (point - origin). */
static sn_vec3 point_velocity(radar *r, uint32_t id, sn_vec3 p)
{
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (!id || r->h->actor_get(r->ctx, id, &a) != SN_OK)
        return sn_v3(0, 0, 0);
    const sn_vec3 w = sn_v3_scale(a.angular_velocity, M_PI / 180.0); /* actor_info's is deg/s */
    return sn_v3_add(a.velocity, sn_v3_cross(w, sn_v3_sub(p, a.transform.location)));
}

static sn_status tick(void *self, sn_phase phase)
{
    radar *r = self;
    const sn_host *h = r->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    r->n_det = 0;
    sn_kinematics k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    sn_status st = h->sensor_kinematics(r->ctx, &k);
    if (st)
        return st;
    /* CARLA: (int)(PointsPerSecond * DeltaTime), an int times a float. */
    const float pts = (float)r->pps * (float)h->clock(r->ctx)->dt;
    const uint32_t n = pts >= 1 ? (uint32_t)pts : 0;
    if (!n)
        return SN_OK;
    if ((st = reserve(r, n)))
        return st;

    const sn_mat3 m = sn_mat3_from_rotation(k.transform.rotation);
    const sn_vec3 ax = sn_mat3_col(&m, 0), ay = sn_mat3_col(&m, 1), az = sn_mat3_col(&m, 2);
    const double range = r->range;
    const double max_rx = tan(r->hfov * 0.5 * M_PI / 180.0) * range;
    const double max_ry = tan(r->vfov * 0.5 * M_PI / 180.0) * range;
    const sn_noise noise = sn_noise_host(h, r->ctx);
    for (uint32_t i = 0; i < n; i++) {
        /* CARLA's draws: GetUniformFloat() then GetUniformFloatInRange(0, 2 pi), per ray. */
        const double radius = sn_noise_uniform(&noise);
        const double angle = sn_noise_uniform(&noise) * 2 * M_PI;
        const sn_vec3 local = sn_v3(range, max_rx * radius * cos(angle), max_ry * radius * sin(angle));
        const sn_vec3 d = sn_mat3_apply(&m, local);
        r->rays[i] = (sn_ray){k.transform.location, d, sn_v3_len(d)};
    }
    const uint32_t ignore[2] = {h->sensor_id(r->ctx), r->parent};
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = ignore;
    q.n_ignore = r->parent ? 2 : 1;
    memset(r->res, 0, (size_t)n * sizeof *r->res);
    if ((st = h->ray_batch(r->ctx, &q, r->rays, n, r->res)))
        return st;

    for (uint32_t i = 0; i < n; i++) {
        const sn_ray_result *res = &r->res[i];
        if (!res->n_hits || !res->hit.actor_id)
            continue;
        const sn_vec3 u = sn_v3_norm(r->rays[i].direction);
        const sn_vec3 to_hit = sn_v3_sub(res->hit.point, k.transform.location);
        const double l = sn_v3_len(to_hit);
        /* CARLA: Direction = (impact point - radar).GetSafeNormal(): the ray's own at distance 0 */
        const sn_vec3 dir = l > 1e-9 ? sn_v3_scale(to_hit, 1 / l) : u;
        const sn_vec3 dv = sn_v3_sub(point_velocity(r, res->hit.actor_id, res->hit.point), k.velocity);
        /* UE's GetAzimuthAndElevation of the ray's direction in the sensor's axes. */
        const double ux = sn_v3_dot(u, ax), uy = sn_v3_dot(u, ay), uz = sn_v3_dot(u, az);
        const double hl = hypot(ux, uy);
        const double azimuth = hl > 0 ? acos(fmin(1.0, fmax(-1.0, ux / hl))) * (uy < 0 ? -1 : 1) : 0;
        const double altitude = asin(fmin(1.0, fmax(-1.0, uz)));
        unsigned char *p = r->out + (size_t)r->n_det++ * sizeof(sn_radar_detection);
        put_f32(p, (float)sn_v3_dot(dv, dir));
        put_f32(p + 4, (float)azimuth);
        put_f32(p + 8, (float)altitude);
        put_f32(p + 12, (float)res->hit.distance);
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    radar *r = self;
    (void)index;
    r->h->write_key(w, "raw_data");
    return r->h->write_bin(w, r->out, (size_t)r->n_det * sizeof(sn_radar_detection));
}

static const sn_sensor_class radar_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.radar",
    .doc = "random rays in a cone: velocity, azimuth, altitude and depth of each hit (CARLA's radar)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(radar_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .attach = attach,
    .tick = tick,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&radar_class};
SN_PLUGIN_EXPORT(lib, "radar", "1.0.0", classes)
