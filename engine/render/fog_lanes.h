/* fog_lanes.h — the loop of sn_fog_transmittance_fast over lanes of any width, written once:
** fog.c includes it for SSE2's four lanes (simd4.h), fog_avx2.c for AVX2's eight (simd8.h). The
** same IEEE operations in the same order in every lane, so both give the same bits. Before
** including: VF (the float vector type), VI (its integer mask type), VW (lanes) and V(name) (the
** helpers' names: v4_##name or v8_##name); FOG_LANES_FN, the function's name. */
#include "fog_exp.h"

#include <math.h>

static void FOG_LANES_FN(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy, const float *dz,
                         float *T, size_t n)
{
    const VF start = V(splat)((float)e->fog_start), f = V(splat)((float)e->fog_falloff), k = V(splat)((float)e->fog_k);
    const VF ez = V(splat)((float)eye.z), one = V(splat)(1.0f);
    /* e^-za = e^-(f ez) e^-(f z s), and |z s| <= start: where f start <= 0.1 (CARLA's presets: 0.075)
    ** and the clamp at -50 cannot act, the second factor by a short polynomial */
    const double fs = e->fog_falloff * e->fog_start;
    const int small = fs <= 0.1 && e->fog_falloff * eye.z - fs > -49;
    const VF e0 = V(splat)((float)exp(-e->fog_falloff * eye.z));
    for (size_t i = 0; i < n; i += VW) {
        VF x, y, z;
        x = V(load)(dx + i), y = V(load)(dy + i), z = V(load)(dz + i);
        VF dist = V(sqrt)(x * x + y * y + z * z);
        VI clear = dist <= start; /* the fog begins farther */
        VF s = start / V(sel)(clear, one, dist);
        /* a: where the fog begins along the ray; za, dzz: heights' falloff from a and a to p */
        VF ea; /* e^-za */
        if (small)
            ea = e0 * fog_exp_small(-(f * (z * s)));
        else {
            VF za = f * (ez + z * s);
            ea = fog_exp(-V(max)(V(splat)(-50.0f), za)); /* za < -50 ? -50 : za */
        }
        VF dzz = f * (z * (one - s));
        /* (1 - e^-dzz) / dzz: its Taylor series to degree 8 where |dzz| < 0.5 (fog_exp.h), else
        ** the quotient; the exponential and the
        ** division only when a lane needs them (each lane's value depends on its own dzz alone) */
        VF h = fog_h_series(dzz);
        VI near = (dzz < V(splat)(0.5f)) & (dzz > V(splat)(-0.5f));
        if (V(any)(~near))
            h = V(sel)(near, h, (one - fog_exp(-dzz)) / V(sel)(near, one, dzz));
        VF tau = k * (dist - start) * ea * h;
        /* e^-tau: where tau < 0.35 (thin fog's every point nearer than about 400 m) its Taylor
        ** polynomial to degree 7 (remainder under 0.35^8 / 8! = 5.6e-9), the reduced exponential
        ** only when a lane needs it (each lane's value depends on its own tau alone) */
        VF t = fog_exp_taylor7(-tau);
        VI big = ~(tau < V(splat)(0.35f)) & ~clear;
        if (V(any)(big))
            t = V(sel)(big, fog_exp(-tau), t);
        t = V(sel)(clear, one, t);
        V(store)(T + i, t);
    }
}
