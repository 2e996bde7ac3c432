/* shade_fast.c — a batch of matte samples shaded four at a time in single precision
** (shade_fast.h): sn_shade_surface_lin's matte branch and sn_shade_fog_bytes, lane by lane in the
** same order of operations, after the textures, shadows and fog of their own batch functions. */
#include "shade_fast.h"

#include "lanes.h"
#include "simd4.h"

#define VF v4f
#define VI v4i
#define VW 4
#define V(name) v4_##name
#define LIGHT_LANES_FN light4
#define SKY_LANES_FN sky4
#include "shade_lanes.h"

#if defined(__x86_64__) && defined(__GNUC__)
void sn_shade_light_avx2(const sn_shade_env *e, sn_gbuf *g, int fog, size_t from, size_t to);
void sn_shade_sky_avx2(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b, size_t from, size_t to);
#endif

/* g's light and bytes, eight lanes where the CPU has them, the rest four */
static void lanes(const sn_shade_env *e, sn_gbuf *g, int fog, size_t n)
{
    size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && n >= 8)
        sn_shade_light_avx2(e, g, fog, 0, done = n & ~(size_t)7);
#endif
    light4(e, g, fog, done, (n + 3) & ~(size_t)3);
}

void sn_shade_gbuf(const sn_shade_env *e, sn_vec3 eye, const sn_shadow *shadow, bool textures, sn_gbuf *g)
{
    const size_t n = g->n;
    if (!n)
        return;
    for (size_t k = n; k % 4; k++) { /* padding lanes: any finite matte point, lit */
        g->dx[k] = g->dy[k] = g->dz[k] = 1, g->nx[k] = g->ny[k] = 0, g->nz[k] = 1;
        g->col[0][k] = g->col[1][k] = g->col[2][k] = 0, g->albedo[k] = 1, g->glow[k] = 0;
        g->lamp[0][k] = g->lamp[1][k] = g->lamp[2][k] = 0, g->vis[k] = 1, g->tag[k] = 0;
        g->fw[k] = 0;
    }
    if (textures)
        sn_shade_texture_fast(eye, g->tag, g->dx, g->dy, g->dz, g->nz, g->albedo, n);
    if (shadow)
        sn_shadow_visibility_fast(shadow, eye, g->dx, g->dy, g->dz, g->nx, g->ny, g->nz, g->vis, n);
    const bool fog = e->fog_k > 0;
    if (fog && g->npair)
        sn_shade_pairs(e, eye, g);
    else if (fog)
        sn_fog_transmittance_fast(e, eye, g->dx, g->dy, g->dz, g->T, n);
    lanes(e, g, fog, n);
}

void sn_shade_sky_fast(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b)
{
    const size_t n = b->n;
    for (size_t k = n; k % 4; k++) /* padding lanes: straight up */
        b->dx[k] = b->dy[k] = 0, b->dz[k] = 1;
    size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && n >= 8) /* eight lanes, the same bits (shade_avx2.c) */
        sn_shade_sky_avx2(e, eye, b, 0, done = n & ~(size_t)7);
#endif
    sky4(e, eye, b, done, (n + 3) & ~(size_t)3);
}
