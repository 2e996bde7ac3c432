/*
** sensim/math.h — vectors, CARLA's (UE's) rotations, quaternions and transforms, header-only.
**
** The engine computes every pose with these same functions, so a plugin that uses them gets
** the engine's numbers bit for bit and never copies a rotation matrix. Link with -lm.
**
** Conventions (CARLA's): x forward, y right, z up; angles in degrees; yaw turns +x toward +y,
** pitch raises +x toward +z, roll lowers +y toward -z. A rotation matrix is row-major 3x3 whose
** columns are the body's x, y, z axes in the world (world = R * local), built as
** R = Rz(yaw) * Ry(-pitch) * Rx(-roll): UE's FRotationMatrix, forward axis
** (cos p cos y, cos p sin y, sin p). A quaternion (w, x, y, z) is unit and rotates the same
** way: world = q * local * q^-1. Angular velocities are vectors whose direction is the axis
** and length the rate (rad/s), with the ordinary cross product: v = w x r; a positive z
** component turns +x toward +y (yaw grows).
*/
#ifndef SENSIM_MATH_H
#define SENSIM_MATH_H

#include <math.h>
#include <sensim/types.h>

#define SN_PI 3.14159265358979323846
#define SN_DEG (SN_PI / 180.0) /* radians per degree */

typedef struct sn_mat3 {
    double m[9]; /* row-major */
} sn_mat3;

typedef struct sn_quat {
    double w, x, y, z;
} sn_quat;

/* ---- vectors ---- */

static inline sn_vec3 sn_v3(double x, double y, double z)
{
    sn_vec3 v;
    v.x = x, v.y = y, v.z = z;
    return v;
}
static inline sn_vec3 sn_v3_add(sn_vec3 a, sn_vec3 b) { return sn_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline sn_vec3 sn_v3_sub(sn_vec3 a, sn_vec3 b) { return sn_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline sn_vec3 sn_v3_scale(sn_vec3 a, double s) { return sn_v3(a.x * s, a.y * s, a.z * s); }
static inline double sn_v3_dot(sn_vec3 a, sn_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline sn_vec3 sn_v3_cross(sn_vec3 a, sn_vec3 b)
{
    return sn_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double sn_v3_len(sn_vec3 a) { return sqrt(sn_v3_dot(a, a)); }
/* Unit vector along a; zero stays zero. */
static inline sn_vec3 sn_v3_norm(sn_vec3 a)
{
    double l = sn_v3_len(a);
    return l > 0 ? sn_v3_scale(a, 1.0 / l) : a;
}

/* ---- rotation matrices ---- */

/* UE's FRotationMatrix of CARLA angles: columns forward, right, up. */
static inline sn_mat3 sn_mat3_from_rotation(sn_rotation r)
{
    double cp = cos(r.pitch * SN_DEG), sp = sin(r.pitch * SN_DEG);
    double cy = cos(r.yaw * SN_DEG), sy = sin(r.yaw * SN_DEG);
    double cr = cos(r.roll * SN_DEG), sr = sin(r.roll * SN_DEG);
    sn_mat3 m = {{
        cp * cy, sr * sp * cy - cr * sy, -(cr * sp * cy + sr * sy),
        cp * sy, sr * sp * sy + cr * cy, cy * sr - cr * sp * sy,
        sp,      -sr * cp,               cr * cp,
    }};
    return m;
}

/* CARLA angles of a rotation matrix; at pitch +-90 the roll folds into the yaw. */
static inline sn_rotation sn_mat3_to_rotation(const sn_mat3 *m)
{
    const double *a = m->m;
    double sp = a[6] > 1 ? 1 : a[6] < -1 ? -1 : a[6];
    sn_rotation r;
    r.pitch = asin(sp) / SN_DEG;
    r.yaw = atan2(a[3], a[0]) / SN_DEG;
    r.roll = atan2(-a[7], a[8]) / SN_DEG;
    if (fabs(sp) > 0.999999) {
        r.roll = 0;
        r.yaw = atan2(-a[1], a[4]) / SN_DEG;
    }
    return r;
}

static inline sn_mat3 sn_mat3_mul(const sn_mat3 *a, const sn_mat3 *b)
{
    sn_mat3 c;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c.m[i * 3 + j] = a->m[i * 3] * b->m[j] + a->m[i * 3 + 1] * b->m[3 + j] + a->m[i * 3 + 2] * b->m[6 + j];
    return c;
}

/* m * v: a local vector in the world. */
static inline sn_vec3 sn_mat3_apply(const sn_mat3 *m, sn_vec3 v)
{
    const double *a = m->m;
    return sn_v3(a[0] * v.x + a[1] * v.y + a[2] * v.z, a[3] * v.x + a[4] * v.y + a[5] * v.z,
                 a[6] * v.x + a[7] * v.y + a[8] * v.z);
}

/* m^T * v: a world vector in the local frame (UE's UnrotateVector). */
static inline sn_vec3 sn_mat3_apply_t(const sn_mat3 *m, sn_vec3 v)
{
    const double *a = m->m;
    return sn_v3(a[0] * v.x + a[3] * v.y + a[6] * v.z, a[1] * v.x + a[4] * v.y + a[7] * v.z,
                 a[2] * v.x + a[5] * v.y + a[8] * v.z);
}

/* Column c: the body's x (0, forward), y (1, right) or z (2, up) axis in the world. */
static inline sn_vec3 sn_mat3_col(const sn_mat3 *m, int c) { return sn_v3(m->m[c], m->m[3 + c], m->m[6 + c]); }

/* ---- quaternions ---- */

static inline sn_quat sn_quat_identity(void)
{
    sn_quat q = {1, 0, 0, 0};
    return q;
}

static inline sn_quat sn_quat_norm(sn_quat q)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(n > 0))
        return sn_quat_identity();
    sn_quat r = {q.w / n, q.x / n, q.y / n, q.z / n};
    return r;
}

/* The inverse of a unit quaternion. */
static inline sn_quat sn_quat_conj(sn_quat q)
{
    sn_quat r = {q.w, -q.x, -q.y, -q.z};
    return r;
}

/* Shepperd's method; the sign is chosen so that w >= 0 (equal rotations, equal bytes). */
static inline sn_quat sn_quat_from_mat3(const sn_mat3 *m)
{
    const double *a = m->m;
    double tr = a[0] + a[4] + a[8];
    sn_quat q;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q.w = 0.25 * s, q.x = (a[7] - a[5]) / s, q.y = (a[2] - a[6]) / s, q.z = (a[3] - a[1]) / s;
    } else if (a[0] > a[4] && a[0] > a[8]) {
        double s = sqrt(1.0 + a[0] - a[4] - a[8]) * 2;
        q.w = (a[7] - a[5]) / s, q.x = 0.25 * s, q.y = (a[1] + a[3]) / s, q.z = (a[2] + a[6]) / s;
    } else if (a[4] > a[8]) {
        double s = sqrt(1.0 + a[4] - a[0] - a[8]) * 2;
        q.w = (a[2] - a[6]) / s, q.x = (a[1] + a[3]) / s, q.y = 0.25 * s, q.z = (a[5] + a[7]) / s;
    } else {
        double s = sqrt(1.0 + a[8] - a[0] - a[4]) * 2;
        q.w = (a[3] - a[1]) / s, q.x = (a[2] + a[6]) / s, q.y = (a[5] + a[7]) / s, q.z = 0.25 * s;
    }
    if (q.w < 0) {
        q.w = -q.w, q.x = -q.x, q.y = -q.y, q.z = -q.z;
    }
    return sn_quat_norm(q);
}

static inline sn_mat3 sn_mat3_from_quat(sn_quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    sn_mat3 m = {{
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    }};
    return m;
}

static inline sn_quat sn_quat_from_rotation(sn_rotation r)
{
    sn_mat3 m = sn_mat3_from_rotation(r);
    return sn_quat_from_mat3(&m);
}

static inline sn_rotation sn_quat_to_rotation(sn_quat q)
{
    sn_mat3 m = sn_mat3_from_quat(q);
    return sn_mat3_to_rotation(&m);
}

/* a * b: rotate by b, then by a. */
static inline sn_quat sn_quat_mul(sn_quat a, sn_quat b)
{
    sn_quat r = {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                 a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
    return r;
}

/* q * v * q^-1: a local vector in the world. */
static inline sn_vec3 sn_quat_apply(sn_quat q, sn_vec3 v)
{
    sn_vec3 u = sn_v3(q.x, q.y, q.z); /* v + 2 u x (u x v + w v) */
    sn_vec3 t = sn_v3_add(sn_v3_cross(u, v), sn_v3_scale(v, q.w));
    return sn_v3_add(v, sn_v3_scale(sn_v3_cross(u, t), 2));
}

/* ---- transforms (location + CARLA rotation) ---- */

/* parent o child: the world transform of `child` given relative to `parent` (a mount). */
static inline sn_transform sn_transform_compose(const sn_transform *parent, const sn_transform *child)
{
    sn_mat3 rp = sn_mat3_from_rotation(parent->rotation);
    sn_mat3 rc = sn_mat3_from_rotation(child->rotation);
    sn_mat3 r = sn_mat3_mul(&rp, &rc);
    sn_transform t;
    t.location = sn_v3_add(parent->location, sn_mat3_apply(&rp, child->location));
    t.rotation = sn_mat3_to_rotation(&r);
    return t;
}

/* The inverse: compose(t, inverse(t)) is the identity. */
static inline sn_transform sn_transform_inverse(const sn_transform *t)
{
    sn_mat3 r = sn_mat3_from_rotation(t->rotation), ri;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            ri.m[i * 3 + j] = r.m[j * 3 + i];
    sn_transform o;
    o.location = sn_v3_scale(sn_mat3_apply(&ri, t->location), -1);
    o.rotation = sn_mat3_to_rotation(&ri);
    return o;
}

/* A point given in t's frame, in the world (UE's TransformPosition). */
static inline sn_vec3 sn_transform_point(const sn_transform *t, sn_vec3 local)
{
    sn_mat3 r = sn_mat3_from_rotation(t->rotation);
    return sn_v3_add(t->location, sn_mat3_apply(&r, local));
}

/* A world point in t's frame (UE's InverseTransformPosition). */
static inline sn_vec3 sn_transform_point_inverse(const sn_transform *t, sn_vec3 world)
{
    sn_mat3 r = sn_mat3_from_rotation(t->rotation);
    return sn_mat3_apply_t(&r, sn_v3_sub(world, t->location));
}

#endif
