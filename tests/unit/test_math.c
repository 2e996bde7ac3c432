/* Rotations follow CARLA (UE) axes: forward = (cos p cos y, cos p sin y, sin p). */
#include "../../engine/core/mathx.h"
#include "../../engine/core/rng.h"
#include "../check.h"

int main(void)
{
    sn_mat3 m = sn_mat3_from_rotation((sn_rotation){0, 90, 0});
    sn_vec3 f = sn_mat3_col(&m, 0), r = sn_mat3_col(&m, 1);
    CHECK_NEAR(f.y, 1, 1e-12, "yaw 90 turns +x toward +y");
    CHECK_NEAR(r.x, -1, 1e-12, "right axis after yaw 90");
    m = sn_mat3_from_rotation((sn_rotation){30, 0, 0});
    CHECK_NEAR(sn_mat3_col(&m, 0).z, 0.5, 1e-12, "pitch raises the nose");
    m = sn_mat3_from_rotation((sn_rotation){0, 0, 30});
    CHECK_NEAR(sn_mat3_col(&m, 1).z, -0.5, 1e-12, "roll lowers the right side");
    /* Round trips and orthonormality over many angles. */
    sn_rng g;
    sn_rng_seed(&g, 7);
    for (int i = 0; i < 1000; i++) {
        sn_rotation a = {sn_rng_uniform(&g) * 170 - 85, sn_rng_uniform(&g) * 360 - 180, sn_rng_uniform(&g) * 360 - 180};
        sn_mat3 q = sn_mat3_from_rotation(a);
        sn_rotation b = sn_mat3_to_rotation(&q);
        sn_mat3 q2 = sn_mat3_from_rotation(b);
        double worst = 0;
        for (int k = 0; k < 9; k++)
            worst = fmax(worst, fabs(q.m[k] - q2.m[k]));
        CHECK(worst < 1e-9, "round trip %d: %g", i, worst);
        sn_vec3 x = sn_mat3_col(&q, 0), y = sn_mat3_col(&q, 1), z = sn_mat3_col(&q, 2);
        sn_vec3 c = sn_v3_cross(x, y);
        CHECK(fabs(sn_v3_dot(c, z) - 1) < 1e-9, "proper rotation %d", i);
    }
    /* Compose: a child 1 m ahead of a parent turned 90 degrees sits at +y. */
    sn_transform p = {{10, 0, 0}, {0, 90, 0}}, ch = {{1, 0, 0}, {0, 0, 0}};
    sn_transform w = sn_transform_compose(&p, &ch);
    CHECK_NEAR(w.location.x, 10, 1e-12, "compose x");
    CHECK_NEAR(w.location.y, 1, 1e-12, "compose y");
    CHECK_NEAR(w.rotation.yaw, 90, 1e-9, "compose yaw");
    /* The random stream is a pure function of the seed. */
    sn_rng a1, a2;
    sn_rng_seed(&a1, 42);
    sn_rng_seed(&a2, 42);
    for (int i = 0; i < 100; i++)
        CHECK(sn_rng_u64(&a1) == sn_rng_u64(&a2), "rng repeat");
    double sum = 0, sq = 0;
    for (int i = 0; i < 100000; i++) {
        double n = sn_rng_normal(&a1);
        sum += n;
        sq += n * n;
    }
    CHECK_NEAR(sum / 1e5, 0, 0.02, "normal mean");
    CHECK_NEAR(sq / 1e5, 1, 0.02, "normal variance");
    return CHECK_DONE();
}
