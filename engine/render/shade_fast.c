/* shade_fast.c — a batch of matte samples shaded four at a time in single precision
** (shade_fast.h): sn_shade_surface_lin's matte branch and sn_shade_fog_bytes, lane by lane in the
** same order of operations, after the textures, shadows and fog of their own batch functions. */
#include "shade_fast.h"

#include "simd4.h"

void sn_shade_gbuf(const sn_shade_env *e, sn_vec3 eye, const sn_shadow *shadow, bool textures, sn_gbuf *g)
{
    const size_t n = g->n;
    if (!n)
        return;
    for (size_t k = n; k % 4; k++) { /* padding lanes: any finite matte point, lit */
        g->dx[k] = g->dy[k] = g->dz[k] = 1, g->nx[k] = g->ny[k] = 0, g->nz[k] = 1;
        g->col[0][k] = g->col[1][k] = g->col[2][k] = 0, g->albedo[k] = 1, g->glow[k] = 0;
        g->lamp[0][k] = g->lamp[1][k] = g->lamp[2][k] = 0, g->vis[k] = 1, g->tag[k] = 0;
    }
    if (textures)
        sn_shade_texture_fast(eye, g->tag, g->dx, g->dy, g->dz, g->nz, g->albedo, n);
    if (shadow)
        sn_shadow_visibility_fast(shadow, eye, g->dx, g->dy, g->dz, g->nx, g->ny, g->nz, g->vis, n);
    const bool fog = e->fog_k > 0;
    if (fog)
        sn_fog_transmittance_fast(e, eye, g->dx, g->dy, g->dz, g->T, n);
    const v4f sx = v4_splat((float)e->sun[0]), sy = v4_splat((float)e->sun[1]), sz = v4_splat((float)e->sun[2]);
    const v4f amb = v4_splat((float)e->ambient), keep = v4_splat((float)e->shadow_keep), one = v4_splat(1.0f);
    const v4f zero = v4_splat(0.0f), half = v4_splat(0.5f), top = v4_splat(255.0f);
    v4f sun_rgb[3], hor[3];
    for (int k = 0; k < 3; k++)
        sun_rgb[k] = v4_splat((float)e->sun_rgb[k]), hor[k] = v4_splat((float)e->horizon[k]);
    for (size_t i = 0; i < n; i += 4) {
        v4f lambert = v4_load(g->nx + i) * sx + v4_load(g->ny + i) * sy + v4_load(g->nz + i) * sz;
        v4f lit = v4_max(lambert, zero), vis = v4_load(g->vis + i);
        vis = vis + (one - vis) * keep; /* clouds let some sun through a shadow; 1 stays 1 */
        v4f albedo = v4_load(g->albedo + i), glow = v4_load(g->glow + i);
        v4f T = fog ? v4_load(g->T + i) : one, fogged = one - T;
        v4i c[3];
        for (int k = 0; k < 3; k++) {
            v4f out = v4_load(g->col[k] + i) * ((amb + sun_rgb[k] * lit * vis + v4_load(g->lamp[k] + i)) * albedo + glow);
            v4f v = out * T + hor[k] * fogged + half;
            c[k] = v4_trunc_i(v4_min(v, top));
        }
        for (int l = 0; l < 4; l++)
            g->rgb[i + l][0] = (uint8_t)c[0][l], g->rgb[i + l][1] = (uint8_t)c[1][l], g->rgb[i + l][2] = (uint8_t)c[2][l];
    }
}

void sn_shade_sky_fast(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b)
{
    const size_t n = b->n;
    for (size_t k = n; k % 4; k++) /* padding lanes: straight up */
        b->dx[k] = b->dy[k] = 0, b->dz[k] = 1;
    const v4f sx = v4_splat((float)e->sun[0]), sy = v4_splat((float)e->sun[1]), sz = v4_splat((float)e->sun[2]);
    const v4f one = v4_splat(1.0f), zero = v4_splat(0.0f), top = v4_splat(255.0f), half = v4_splat(0.5f);
    const v4f eglow = v4_splat((float)e->glow), fk = v4_splat((float)e->fog_k), ff = v4_splat((float)e->fog_falloff);
    const v4f fz0 = v4_splat((float)(e->fog_falloff * eye.z)), fstart = v4_splat((float)(e->fog_falloff * e->fog_start));
    const int fog = e->fog_k > 0, thins = e->fog_falloff > 0;
    v4f hor[3], zen[3];
    for (int k = 0; k < 3; k++)
        hor[k] = v4_splat((float)e->horizon[k]), zen[k] = v4_splat((float)e->zenith[k]);
    for (size_t i = 0; i < n; i += 4) {
        v4f x = v4_load(b->dx + i), y = v4_load(b->dy + i), z = v4_load(b->dz + i);
        v4f inv = one / v4_sqrt(x * x + y * y + z * z);
        x = x * inv, y = y * inv, z = z * inv;
        v4f t = v4_sqrt(v4_min(v4_max(z, zero), one)), below = v4_sel(z < zero, v4_splat(0.85f), one);
        v4f glow = zero;
        if (e->glow > 0) { /* the disc (half a degree) and a halo around it: 0.35 ((g - 0.9) / 0.1)^24 */
            v4f g = x * sx + y * sy + z * sz;
            v4i near = g > v4_splat(0.9f);
            if (v4_any(near)) {
                v4f h = (g - v4_splat(0.9f)) / v4_splat(0.1f), h2 = h * h, h3 = h2 * h, h6 = h3 * h3, h12 = h6 * h6;
                v4f disc = v4_sel(g > v4_splat(0.99996f), one, zero);
                glow = v4_sel(near, eglow * (disc + v4_splat(0.35f) * (h12 * h12)), zero);
            }
        }
        v4f T = one; /* fog towards the sky: to infinity, finite only when it thins and the ray climbs */
        if (fog) {
            T = zero;
            if (thins) {
                v4i climbs = z > v4_splat(1e-6f);
                v4f za = v4_max(v4_splat(-50.0f), fz0 + z * fstart);
                v4f tau = fk * v4_exp(-za) / (ff * v4_sel(climbs, z, one));
                T = v4_sel(climbs, v4_exp(-tau), zero);
            }
        }
        v4i c[3];
        for (int k = 0; k < 3; k++) {
            v4f v = (hor[k] + (zen[k] - hor[k]) * t) * below;
            v = v + (top - v) * glow;
            v = v * T + hor[k] * (one - T);
            c[k] = v4_trunc_i(v4_min(v + half, top));
        }
        for (int l = 0; l < 4; l++)
            b->rgb[i + l][0] = (uint8_t)c[0][l], b->rgb[i + l][1] = (uint8_t)c[1][l], b->rgb[i + l][2] = (uint8_t)c[2][l];
    }
}
