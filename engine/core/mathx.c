#include "mathx.h"

#include <math.h>

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
