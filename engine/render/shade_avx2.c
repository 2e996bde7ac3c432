/* shade_avx2.c — sn_shade_gbuf's light and bytes, sn_shade_sky_fast's loop and render.c's
** G-buffer points eight lanes at a time (shade_lanes.h with simd8.h), for CPUs with AVX2; shade_fast.c calls them for the
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

/* render.c's gbuf_points, eight entries a step: the same operations lane for lane (no FMA) */
void sn_gbuf_points_avx2(const float f[3], const float rt[3], const float u[3], float far, sn_gbuf *g, size_t to)
{
    const v8f f0 = v8_splat(f[0]), f1 = v8_splat(f[1]), f2 = v8_splat(f[2]);
    const v8f r0 = v8_splat(rt[0]), r1 = v8_splat(rt[1]), r2 = v8_splat(rt[2]);
    const v8f u0 = v8_splat(u[0]), u1 = v8_splat(u[1]), u2 = v8_splat(u[2]);
    const v8f vfar = v8_splat(far), one = v8_splat(1.0f);
    for (size_t i = 0; i < to; i += 8) {
        const v8f a = v8_load(g->ra + i), b = v8_load(g->rb + i), depth = v8_min(one / v8_load(g->w + i), vfar);
        v8_store(g->dx + i, (f0 + (r0 * a - u0 * b)) * depth);
        v8_store(g->dy + i, (f1 + (r1 * a - u1 * b)) * depth);
        v8_store(g->dz + i, (f2 + (r2 * a - u2 * b)) * depth);
    }
}

void sn_shade_sky_avx2(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b, size_t from, size_t to)
{
    sky8(e, eye, b, from, to);
}
#endif
