/*
** sensor.other.imu — CARLA's inertial measurement unit as a sensim plugin.
**
** Follows CARLA's AInertialMeasurementUnit (Unreal/CarlaUE4/Plugins/Carla/Source/Carla/Sensor/
** InertialMeasurementUnit.cpp), docs/sensors/imu-gnss.md says where and why sensim differs:
**
** - accelerometer (m/s^2, sensor frame): CARLA's second derivative of the quadratic through the
**   sensor's world location at this tick (y0) and the two ticks before (y1, y2),
**       d2 = -2 (y1/(h1 h2) - y2/(h2 (h1+h2)) - y0/(h1 (h1+h2))),
**   h1 the time since the last tick, h2 the one before; then minus gravity (CARLA adds +9.81 on
**   z), then into the sensor frame (R^T, R the sensor's world rotation), then N(0, stddev) per
**   axis. Until two earlier ticks exist, the host's acceleration at the sensor point
**   (sensor_kinematics) stands in for d2: CARLA's first two ticks are artefacts of its
**   uninitialised history (a zero location and an h2 of FLT_MAX).
** - gyroscope (rad/s, sensor frame): the angular velocity of what the sensor rides on, R^T w,
**   plus bias plus N(0, stddev) per axis.
** - compass (rad): CARLA's exact rule: the angle from north (world -y) to the sensor's forward
**   vector flattened to the ground, clockwise seen from above, in [0, 2 pi): east (+x) pi/2.
**
** Random draws per tick, in CARLA's order (its Linux build evaluates Send's arguments left to
** right): accelerometer x, y, z, then gyroscope x, y, z — six normals every tick, also with a
** stddev of 0, so switching one axis's noise on never moves the others' draws.
*/
#include <sensim/math.h>
#include <sensim/noise.h>
#include <sensim/plugin.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STDDEV(name, unit, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e6, unit, doc}
#define BIAS(name, unit, doc) {name, SN_ATTR_FLOAT, "0.0", NULL, NULL, true, -1e6, 1e6, unit, doc}

/* CARLA's blueprint (MakeIMUDefinition), in this order: set() reads them by index. */
static const sn_attr_def imu_attrs[] = {
    STDDEV("noise_accel_stddev_x", "m/s^2", "standard deviation of the accelerometer noise on x"),
    STDDEV("noise_accel_stddev_y", "m/s^2", "standard deviation of the accelerometer noise on y"),
    STDDEV("noise_accel_stddev_z", "m/s^2", "standard deviation of the accelerometer noise on z"),
    BIAS("noise_gyro_bias_x", "rad/s", "mean of the gyroscope noise on x (a constant bias)"),
    BIAS("noise_gyro_bias_y", "rad/s", "mean of the gyroscope noise on y (a constant bias)"),
    BIAS("noise_gyro_bias_z", "rad/s", "mean of the gyroscope noise on z (a constant bias)"),
    STDDEV("noise_gyro_stddev_x", "rad/s", "standard deviation of the gyroscope noise on x"),
    STDDEV("noise_gyro_stddev_y", "rad/s", "standard deviation of the gyroscope noise on y"),
    STDDEV("noise_gyro_stddev_z", "rad/s", "standard deviation of the gyroscope noise on z"),
    {"noise_seed", SN_ATTR_INT, "0", NULL, NULL, true, 0, 4294967295.0, NULL,
     "seed of the noise; 0 keeps the sensor's own stream (scene seed and sensor name)"},
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),
};

typedef struct imu {
    const sn_host *h;
    sn_ctx *ctx;
    sn_noise noise; /* the sensor's host stream */
    /* CARLA holds them as float (FVector): the same numbers here. */
    double acc_sd[3], gyro_bias[3], gyro_sd[3];
    /* the sensor's world location at the last two ticks, and their times */
    sn_vec3 y1, y2;
    int64_t t1, t2;
    uint32_t n_hist;
    sn_vec3 accel, gyro;
    double compass;
} imu;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    if (h->hdr.abi_minor < 2 || !h->sensor_kinematics || !h->world_settings || !h->random_seed) {
        h->set_error(ctx, "sensor.other.imu needs a host of ABI 1.2 (sensor kinematics, world settings, reseeding)");
        return SN_E_UNSUPPORTED;
    }
    imu *m = calloc(1, sizeof *m);
    if (!m) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    m->h = h, m->ctx = ctx;
    m->noise = sn_noise_host(h, ctx);
    *out = m;
    return SN_OK;
}

static void destroy(void *self) { free(self); }

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    imu *m = self;
    (void)n;
    for (int k = 0; k < 3; k++) {
        m->acc_sd[k] = sn_noise_f32(a[k].f);
        m->gyro_bias[k] = sn_noise_f32(a[3 + k].f);
        m->gyro_sd[k] = sn_noise_f32(a[6 + k].f);
    }
    sn_noise_apply_seed(m->h, m->ctx, "noise_seed", a[9].i, SN_NOISE_SEED_NONZERO);
    return SN_OK;
}

/*
** CARLA's ComputeCompass: acos of the dot product of north (0, -1, 0) with the forward vector
** made horizontal and unit (UE's GetSafeNormal2D: zero when it is vertical), mirrored to
** 2 pi - angle when north x forward points down (forward.x < 0), 0 when the dot reaches 1.
*/
static double compass_of(const sn_mat3 *r)
{
    sn_vec3 f = sn_mat3_col(r, 0);
    double l2 = f.x * f.x + f.y * f.y;
    if (l2 < 1e-8) /* UE's SMALL_NUMBER: looking straight up or down has no heading */
        f.x = f.y = 0;
    else
        f.x /= sqrt(l2), f.y /= sqrt(l2);
    double dot = -f.y;
    if (dot >= 1.0)
        return 0.0;
    double c = acos(dot < -1.0 ? -1.0 : dot);
    return f.x < 0 ? 2 * M_PI - c : c; /* (north x forward).z = forward.x */
}

static sn_status tick(void *self, sn_phase phase)
{
    imu *m = self;
    const sn_host *h = m->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    sn_kinematics k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    sn_status st = h->sensor_kinematics(m->ctx, &k);
    if (st)
        return st;
    sn_world_settings ws;
    memset(&ws, 0, sizeof ws);
    ws.struct_size = sizeof ws;
    h->world_settings(m->ctx, &ws);
    const int64_t t0 = h->clock(m->ctx)->time_ns;
    const sn_vec3 y0 = k.transform.location;

    sn_vec3 a = k.acceleration;
    if (m->n_hist >= 2 && t0 > m->t1 && m->t1 > m->t2) {
        /* CARLA's d2 with the locations taken relative to y1: the same value (the y1 terms
        ** cancel exactly in the formula), without the cancellation of large coordinates. */
        const double h1 = (double)(t0 - m->t1) * 1e-9, h2 = (double)(m->t1 - m->t2) * 1e-9, hs = h1 + h2;
        const sn_vec3 d0 = sn_v3_sub(y0, m->y1), d2 = sn_v3_sub(m->y2, m->y1);
        a = sn_v3_add(sn_v3_scale(d0, 2.0 / (h1 * hs)), sn_v3_scale(d2, 2.0 / (h2 * hs)));
    }
    m->y2 = m->y1, m->t2 = m->t1;
    m->y1 = y0, m->t1 = t0;
    if (m->n_hist < 2)
        m->n_hist++;

    const sn_mat3 r = sn_mat3_from_rotation(k.transform.rotation);
    const sn_vec3 acc = sn_mat3_apply_t(&r, sn_v3_sub(a, ws.gravity)); /* specific force: +9.81 z at rest */
    const sn_vec3 gyr = sn_mat3_apply_t(&r, k.angular_velocity);
    /* CARLA's draw order: accelerometer x, y, z, then gyroscope x, y, z (sensim/noise.h). */
    const sn_vec3 zero = {0, 0, 0};
    const sn_vec3 na = sn_noise_normal3(&m->noise, zero, m->acc_sd), ng = sn_noise_normal3(&m->noise, zero, m->gyro_sd);
    m->accel.x = acc.x + na.x;
    m->accel.y = acc.y + na.y;
    m->accel.z = acc.z + na.z;
    m->gyro.x = gyr.x + m->gyro_bias[0] + ng.x;
    m->gyro.y = gyr.y + m->gyro_bias[1] + ng.y;
    m->gyro.z = gyr.z + m->gyro_bias[2] + ng.z;
    m->compass = compass_of(&r);
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    imu *m = self;
    const sn_host *h = m->h;
    (void)index;
    h->write_key(w, "accelerometer");
    h->write_vec3(w, m->accel);
    h->write_key(w, "gyroscope");
    h->write_vec3(w, m->gyro);
    h->write_key(w, "compass");
    return h->write_double(w, m->compass);
}

static const sn_sensor_class imu_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.imu",
    .doc = "accelerometer, gyroscope and compass of the sensor point (CARLA's IMU)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(imu_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&imu_class};
SN_PLUGIN_EXPORT(lib, "imu", "1.0.0", classes)
