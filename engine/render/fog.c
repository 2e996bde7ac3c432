/* fog.c — fog's transmittance four points at a time in single precision (shade.h,
** sn_fog_transmittance_fast): the formula of sn_fog_transmittance (docs/rendering.md "Fog") with
** its three exponentials from inline polynomials (fog_exp.h: short Taylor forms where a lane's
** argument is small, the reduced one only where a lane needs it), so a row of pixels costs a few
** vector instructions each instead of three libm calls in a dependent chain. GCC vector extensions
** (simd4.h); no dependency. Where the CPU has AVX2, eight points at a time (fog_avx2.c), the
** same bits. */
#include "shade.h"

#include "lanes.h"
#include "simd4.h"

#define VF v4f
#define VI v4i
#define VW 4
#define V(name) v4_##name
#define FOG_LANES_FN fog4
#include "fog_lanes.h"

#if defined(__x86_64__) && defined(__GNUC__)
void sn_fog_transmittance_avx2(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy, const float *dz,
                               float *T, size_t n);
#endif

void sn_fog_transmittance_fast(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy,
                               const float *dz, float *T, size_t n)
{
    /* Beyond float's range: with the eye high in a thinning fog, e^-f z_A falls under float's
    ** least while (1 - e^-x)/x passes its greatest, and their product (about e^-f z_P / |x|) is
    ** lost: T came out 1 where it is about 0 (rev53's sweep: falloff 1, the eye 190 m up, a point
    ** below z = 0). z_A <= E_z + start, so below f (E_z + start) = 60 both factors stay in range
    ** (e^-60 is far above float's least; an overflowing quotient means T = 0, as exact). Above it
    ** (no CARLA preset, no camera near the ground) the exact double path, point by point. */
    if (e->fog_falloff * (eye.z + e->fog_start) > 60) {
        for (size_t i = 0; i < n; i++)
            T[i] = (float)sn_fog_transmittance(e, eye, sn_v3(eye.x + dx[i], eye.y + dy[i], eye.z + dz[i]));
        return;
    }
    size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && n >= 8) {
        done = n & ~(size_t)7;
        sn_fog_transmittance_avx2(e, eye, dx, dy, dz, T, done);
    }
#endif
    if (done < n)
        fog4(e, eye, dx + done, dy + done, dz + done, T + done, n - done);
}
