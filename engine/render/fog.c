/* fog.c — fog's transmittance four points at a time in single precision (shade.h,
** sn_fog_transmittance_fast): the formula of sn_fog_transmittance (docs/rendering.md "Fog") with
** its three exponentials from one inline polynomial, so a row of pixels costs a few vector
** instructions each instead of three libm calls in a dependent chain. GCC vector extensions
** (simd4.h); no dependency. */
#include "shade.h"

#include "simd4.h"

void sn_fog_transmittance_fast(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy,
                               const float *dz, float *T, size_t n)
{
    const v4f start = v4_splat((float)e->fog_start), f = v4_splat((float)e->fog_falloff), k = v4_splat((float)e->fog_k);
    const v4f ez = v4_splat((float)eye.z), one = v4_splat(1.0f);
    for (size_t i = 0; i < n; i += 4) {
        v4f x, y, z;
        x = v4_load(dx + i), y = v4_load(dy + i), z = v4_load(dz + i);
        v4f dist = v4_sqrt(x * x + y * y + z * z);
        v4i clear = dist <= start; /* the fog begins farther */
        v4f s = start / v4_sel(clear, one, dist);
        /* a: where the fog begins along the ray; za, dzz: heights' falloff from a and a to p */
        v4f za = f * (ez + z * s), dzz = f * (z * (one - s));
        za = v4_max(v4_splat(-50.0f), za); /* za < -50 ? -50 : za */
        /* (1 - e^-dzz) / dzz: its series where the difference would cancel */
        v4f h_near = one - dzz * (v4_splat(0.5f) - dzz * (v4_splat(1.0f / 6) - dzz * v4_splat(1.0f / 24)));
        v4i near = (dzz < v4_splat(0.01f)) & (dzz > v4_splat(-0.01f));
        v4f h_far = (one - v4_exp(-dzz)) / v4_sel(near, one, dzz);
        v4f tau = k * (dist - start) * v4_exp(-za) * v4_sel(near, h_near, h_far);
        v4f t = v4_sel(clear, one, v4_exp(-tau));
        v4_store(T + i, t);
    }
}
