#include "mathx.h"

#include <math.h>

sn_mat3 sn_mat3_from_rotation(sn_rotation r)
{
    double cp = cos(r.pitch * SN_DEG), sp = sin(r.pitch * SN_DEG);
    double cy = cos(r.yaw * SN_DEG), sy = sin(r.yaw * SN_DEG);
    double cr = cos(r.roll * SN_DEG), sr = sin(r.roll * SN_DEG);
    /* Columns: forward, right, up — UE's FRotationMatrix axes. */
    sn_mat3 m = {{
        cp * cy, sr * sp * cy - cr * sy, -(cr * sp * cy + sr * sy),
        cp * sy, sr * sp * sy + cr * cy, cy * sr - cr * sp * sy,
        sp,      -sr * cp,               cr * cp,
    }};
    return m;
}

sn_rotation sn_mat3_to_rotation(const sn_mat3 *m)
{
    const double *a = m->m;
    double sp = a[6];
    if (sp > 1)
        sp = 1;
    if (sp < -1)
        sp = -1;
    sn_rotation r;
    r.pitch = asin(sp) / SN_DEG;
    r.yaw = atan2(a[3], a[0]) / SN_DEG;
    r.roll = atan2(-a[7], a[8]) / SN_DEG;
    if (fabs(sp) > 0.999999) { /* gimbal lock: fold roll into yaw */
        r.roll = 0;
        r.yaw = atan2(-a[1], a[4]) / SN_DEG;
    }
    return r;
}

sn_mat3 sn_mat3_mul(const sn_mat3 *a, const sn_mat3 *b)
{
    sn_mat3 c;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            c.m[i * 3 + j] = a->m[i * 3] * b->m[j] + a->m[i * 3 + 1] * b->m[3 + j] +
                             a->m[i * 3 + 2] * b->m[6 + j];
    return c;
}

sn_vec3 sn_mat3_apply(const sn_mat3 *m, sn_vec3 v)
{
    const double *a = m->m;
    return sn_v3(a[0] * v.x + a[1] * v.y + a[2] * v.z, a[3] * v.x + a[4] * v.y + a[5] * v.z,
                 a[6] * v.x + a[7] * v.y + a[8] * v.z);
}

sn_vec3 sn_mat3_apply_t(const sn_mat3 *m, sn_vec3 v)
{
    const double *a = m->m;
    return sn_v3(a[0] * v.x + a[3] * v.y + a[6] * v.z, a[1] * v.x + a[4] * v.y + a[7] * v.z,
                 a[2] * v.x + a[5] * v.y + a[8] * v.z);
}

sn_vec3 sn_mat3_col(const sn_mat3 *m, int c) { return sn_v3(m->m[c], m->m[3 + c], m->m[6 + c]); }

sn_transform sn_transform_compose(const sn_transform *parent, const sn_transform *child)
{
    sn_mat3 rp = sn_mat3_from_rotation(parent->rotation);
    sn_mat3 rc = sn_mat3_from_rotation(child->rotation);
    sn_mat3 r = sn_mat3_mul(&rp, &rc);
    sn_transform t;
    t.location = sn_v3_add(parent->location, sn_mat3_apply(&rp, child->location));
    t.rotation = sn_mat3_to_rotation(&r);
    return t;
}

double sn_wrap_deg(double a)
{
    a = fmod(a, 360.0);
    if (a <= -180)
        a += 360;
    else if (a > 180)
        a -= 360;
    return a;
}
