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

/* ---- quaternions ---- */

sn_quat sn_quat_norm(sn_quat q)
{
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(n > 0))
        return sn_quat_identity();
    return (sn_quat){q.w / n, q.x / n, q.y / n, q.z / n};
}

sn_quat sn_quat_from_mat3(const sn_mat3 *m)
{
    /* Shepperd's method: pick the largest of the four squares for accuracy. */
    const double *a = m->m;
    double tr = a[0] + a[4] + a[8];
    sn_quat q;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q = (sn_quat){0.25 * s, (a[7] - a[5]) / s, (a[2] - a[6]) / s, (a[3] - a[1]) / s};
    } else if (a[0] > a[4] && a[0] > a[8]) {
        double s = sqrt(1.0 + a[0] - a[4] - a[8]) * 2;
        q = (sn_quat){(a[7] - a[5]) / s, 0.25 * s, (a[1] + a[3]) / s, (a[2] + a[6]) / s};
    } else if (a[4] > a[8]) {
        double s = sqrt(1.0 + a[4] - a[0] - a[8]) * 2;
        q = (sn_quat){(a[2] - a[6]) / s, (a[1] + a[3]) / s, 0.25 * s, (a[5] + a[7]) / s};
    } else {
        double s = sqrt(1.0 + a[8] - a[0] - a[4]) * 2;
        q = (sn_quat){(a[3] - a[1]) / s, (a[2] + a[6]) / s, (a[5] + a[7]) / s, 0.25 * s};
    }
    if (q.w < 0) /* one sign per rotation, so equal poses give equal bytes */
        q = (sn_quat){-q.w, -q.x, -q.y, -q.z};
    return sn_quat_norm(q);
}

sn_mat3 sn_mat3_from_quat(sn_quat q)
{
    double w = q.w, x = q.x, y = q.y, z = q.z;
    sn_mat3 m = {{
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    }};
    return m;
}

sn_quat sn_quat_from_rotation(sn_rotation r)
{
    sn_mat3 m = sn_mat3_from_rotation(r);
    return sn_quat_from_mat3(&m);
}

sn_rotation sn_quat_to_rotation(sn_quat q)
{
    sn_mat3 m = sn_mat3_from_quat(q);
    return sn_mat3_to_rotation(&m);
}

sn_quat sn_quat_mul(sn_quat a, sn_quat b)
{
    return (sn_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                     a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

sn_vec3 sn_quat_apply(sn_quat q, sn_vec3 v)
{
    /* v + 2 u x (u x v + w v), u the vector part. */
    sn_vec3 u = sn_v3(q.x, q.y, q.z);
    sn_vec3 t = sn_v3_add(sn_v3_cross(u, v), sn_v3_scale(v, q.w));
    return sn_v3_add(v, sn_v3_scale(sn_v3_cross(u, t), 2));
}

sn_quat sn_quat_slerp(sn_quat a, sn_quat b, double t)
{
    double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    if (d < 0) {
        b = (sn_quat){-b.w, -b.x, -b.y, -b.z};
        d = -d;
    }
    double ka, kb;
    if (d > 0.9995) { /* nearly equal: linear, then normalised */
        ka = 1 - t;
        kb = t;
    } else {
        double th = acos(d), s = sin(th);
        ka = sin((1 - t) * th) / s;
        kb = sin(t * th) / s;
    }
    return sn_quat_norm((sn_quat){ka * a.w + kb * b.w, ka * a.x + kb * b.x, ka * a.y + kb * b.y, ka * a.z + kb * b.z});
}

sn_vec3 sn_quat_angular_velocity(sn_quat a, sn_quat b, double dt)
{
    /* d = b * a^-1, the world-frame rotation from a to b; shorter arc. */
    sn_quat d = sn_quat_mul(b, (sn_quat){a.w, -a.x, -a.y, -a.z});
    if (d.w < 0)
        d = (sn_quat){-d.w, -d.x, -d.y, -d.z};
    double s = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    if (s < 1e-15 || !(dt > 0))
        return sn_v3(0, 0, 0);
    double angle = 2 * atan2(s, d.w);
    return sn_v3_scale(sn_v3(d.x, d.y, d.z), angle / s / dt);
}

sn_quat sn_quat_integrate(sn_quat q, sn_vec3 w, double dt)
{
    double ang = sn_v3_len(w) * dt;
    if (!(ang > 0))
        return q;
    sn_vec3 ax = sn_v3_scale(w, 1.0 / sn_v3_len(w));
    double s = sin(ang / 2);
    sn_quat d = {cos(ang / 2), ax.x * s, ax.y * s, ax.z * s};
    return sn_quat_norm(sn_quat_mul(d, q));
}
