/* shade_avx2.c — sn_shade_gbuf's light and bytes and sn_shade_sky_fast's loop eight lanes at a
** time (shade_lanes.h with simd8.h), for CPUs with AVX2; shade_fast.c calls them for the
** multiple of 8 and does the rest in four lanes. The same bits as four lanes
** (tests/unit/test_shade_fast.c compares whole images). */
#include "shade_fast.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include "simd8.h"

#define VF v8f
#define VI v8i
#define VW 8
#define V(name) v8_##name
#define LIGHT_LANES_FN light8
#define SKY_LANES_FN sky8
#include "shade_lanes.h"

void sn_shade_light_avx2(const sn_shade_env *e, sn_gbuf *g, int fog, size_t from, size_t to)
{
    light8(e, g, fog, from, to);
}

void sn_shade_sky_avx2(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b, size_t from, size_t to)
{
    sky8(e, eye, b, from, to);
}
#endif
