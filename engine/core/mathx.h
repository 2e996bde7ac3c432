/* mathx.h — the engine's math beyond sensim/math.h (which holds the UE rotations, quaternions
** and transforms plugins share): slerp, angular velocity, wrapping.
**
** A rotation matrix here is row-major 3x3 whose columns are the body's x, y, z axes in the
** world: world = R * local. From CARLA angles: R = Rz(yaw) * Ry(-pitch) * Rx(-roll), which
** gives UE's forward axis (cos p cos y, cos p sin y, sin p). */
#ifndef SN_CORE_MATHX_H
#define SN_CORE_MATHX_H

#include <sensim/math.h> /* vectors, UE rotations, quaternions, transforms: shared with plugins */

/* Spherical-linear interpolation along the shorter arc; t in [0, 1]. */
sn_quat sn_quat_slerp(sn_quat a, sn_quat b, double t);
/* Angular velocity (rad/s, world frame) that turns a into b in dt seconds. */
sn_vec3 sn_quat_angular_velocity(sn_quat a, sn_quat b, double dt);
/* The rotation by angle |w|*dt about w's axis (rad/s), applied after q. */
sn_quat sn_quat_integrate(sn_quat q, sn_vec3 w, double dt);
static inline sn_vec3 sn_v3_lerp(sn_vec3 a, sn_vec3 b, double t)
{
    return sn_v3(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t);
}


#endif
