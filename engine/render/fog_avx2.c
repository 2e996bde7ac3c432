/* fog_avx2.c — sn_fog_transmittance_fast's loop eight lanes at a time (fog_lanes.h with simd8.h),
** for CPUs with AVX2; fog.c calls it for the multiple of 8 and does the rest in four lanes.
** The same bits as the four-lane loop (tests/unit/test_fog_fast.c compares them). */
#include "shade.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include "simd8.h"

#define VF v8f
#define VI v8i
#define VW 8
#define V(name) v8_##name
#define FOG_LANES_FN fog8
#include "fog_lanes.h"

void sn_fog_transmittance_avx2(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy, const float *dz,
                               float *T, size_t n)
{
    fog8(e, eye, dx, dy, dz, T, n);
}
#endif
