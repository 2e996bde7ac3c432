/* texture_avx2.c — sn_shade_texture_fast's loop eight lanes at a time (texture_lanes.h with
** simd8.h: the noise table read by gathers), for CPUs with AVX2; shade.c calls it for the
** multiple of 8 and does the rest in four lanes. The same bits as the four-lane loop
** (tests/unit/test_shade_fast.c compares them). */
#include "shade.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include "simd8.h"

#define NOISE_N 256 /* shade.c's table: NOISE_N x NOISE_N */
#define VF v8f
#define VI v8i
#define VW 8
#define V(name) v8_##name
#define NOISE_LANES_FN noise8
#define TEX_LANES_FN texture8
#include "texture_lanes.h"

void sn_shade_texture_avx2(const float o[10], const float *table, const uint8_t *tag, const float *dx, const float *dy,
                           const float *dz, const float *nz, float *albedo, size_t n)
{
    texture8(o, table, tag, dx, dy, dz, nz, albedo, n);
}
#endif
