/* rmath.h — the few rotations the recorder needs (UE's FRotationMatrix convention, as the
** engine's): the pose of an attached actor relative to its parent, for replaying sensors. */
#ifndef SN_RECORDER_RMATH_H
#define SN_RECORDER_RMATH_H

#include <sensim/types.h>

#include <math.h>

#define RM_DEG (3.14159265358979323846 / 180.0)

static inline void rm_from_rotation(sn_rotation r, double m[9])
{
    double cp = cos(r.pitch * RM_DEG), sp = sin(r.pitch * RM_DEG);
    double cy = cos(r.yaw * RM_DEG), sy = sin(r.yaw * RM_DEG);
    double cr = cos(r.roll * RM_DEG), sr = sin(r.roll * RM_DEG);
    double t[9] = {cp * cy, sr * sp * cy - cr * sy, -(cr * sp * cy + sr * sy),
                   cp * sy, sr * sp * sy + cr * cy, cy * sr - cr * sp * sy,
                   sp,      -sr * cp,               cr * cp};
    for (int i = 0; i < 9; i++)
        m[i] = t[i];
}

static inline sn_rotation rm_to_rotation(const double a[9])
{
    double sp = a[6] > 1 ? 1 : a[6] < -1 ? -1 : a[6];
    sn_rotation r = {asin(sp) / RM_DEG, atan2(a[3], a[0]) / RM_DEG, atan2(-a[7], a[8]) / RM_DEG};
    if (fabs(sp) > 0.999999) {
        r.roll = 0;
        r.yaw = atan2(-a[1], a[4]) / RM_DEG;
    }
    return r;
}

/* child (world) expressed in parent's frame: R_p^T (c - p), R_p^T R_c. */
static inline sn_transform rm_relative(const sn_transform *parent, const sn_transform *child)
{
    double p[9], c[9], r[9];
    rm_from_rotation(parent->rotation, p);
    rm_from_rotation(child->rotation, c);
    sn_vec3 d = {child->location.x - parent->location.x, child->location.y - parent->location.y,
                 child->location.z - parent->location.z};
    sn_transform t;
    t.location.x = p[0] * d.x + p[3] * d.y + p[6] * d.z;
    t.location.y = p[1] * d.x + p[4] * d.y + p[7] * d.z;
    t.location.z = p[2] * d.x + p[5] * d.y + p[8] * d.z;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[i * 3 + j] = p[i] * c[j] + p[3 + i] * c[3 + j] + p[6 + i] * c[6 + j];
    t.rotation = rm_to_rotation(r);
    return t;
}

#endif
