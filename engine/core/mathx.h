/* mathx.h — vectors, rotation matrices and transforms in CARLA's conventions.
**
** A rotation matrix here is row-major 3x3 whose columns are the body's x, y, z axes in the
** world: world = R * local. From CARLA angles: R = Rz(yaw) * Ry(-pitch) * Rx(-roll), which
** gives UE's forward axis (cos p cos y, cos p sin y, sin p). */
#ifndef SN_CORE_MATHX_H
#define SN_CORE_MATHX_H

#include <math.h>
#include <sensim/types.h>

#define SN_PI 3.14159265358979323846
#define SN_DEG (SN_PI / 180.0)

typedef struct sn_mat3 {
    double m[9];
} sn_mat3;

static inline sn_vec3 sn_v3(double x, double y, double z) { return (sn_vec3){x, y, z}; }
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

sn_mat3 sn_mat3_from_rotation(sn_rotation r);
sn_rotation sn_mat3_to_rotation(const sn_mat3 *m);
sn_mat3 sn_mat3_mul(const sn_mat3 *a, const sn_mat3 *b);
sn_vec3 sn_mat3_apply(const sn_mat3 *m, sn_vec3 v);   /* m * v */
sn_vec3 sn_mat3_apply_t(const sn_mat3 *m, sn_vec3 v); /* m^T * v */
sn_vec3 sn_mat3_col(const sn_mat3 *m, int c);

/* Unit quaternion (w, x, y, z): the world state's orientation (world = q * local * q^-1). */
typedef struct sn_quat {
    double w, x, y, z;
} sn_quat;

static inline sn_quat sn_quat_identity(void) { return (sn_quat){1, 0, 0, 0}; }
sn_quat sn_quat_from_mat3(const sn_mat3 *m);
sn_mat3 sn_mat3_from_quat(sn_quat q);
sn_quat sn_quat_from_rotation(sn_rotation r);
sn_rotation sn_quat_to_rotation(sn_quat q);
sn_quat sn_quat_mul(sn_quat a, sn_quat b);
sn_quat sn_quat_norm(sn_quat q);
sn_vec3 sn_quat_apply(sn_quat q, sn_vec3 v);
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

/* parent ∘ child: the child's world transform when `child` is relative to `parent`. */
sn_transform sn_transform_compose(const sn_transform *parent, const sn_transform *child);
/* Wraps an angle in degrees to (-180, 180]. */
double sn_wrap_deg(double a);

#endif
