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
