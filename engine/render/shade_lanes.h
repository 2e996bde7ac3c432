/* shade_lanes.h — sn_shade_gbuf's light and bytes and sn_shade_sky_fast's loop over lanes of
** any width, written once: shade_fast.c includes it for SSE2's four lanes (simd4.h),
** shade_avx2.c for AVX2's eight (simd8.h). The same IEEE operations in the same order in every
** lane, so both give the same bits. Before including: VF, VI, VW, V(name) as fog_lanes.h, and the
** function names LIGHT_LANES_FN and SKY_LANES_FN. Both do entries [from, to), a multiple of VW. */
#include "fog_exp.h"

#include <math.h>

/* VW samples' bytes from the channels' integers (each one's low byte, what a (uint8_t) cast
** keeps) to dst[VW][4] as blue, green, red, 255: on a little-endian CPU one 32-bit lane a sample
** and one vector store, not 3 VW byte stores */
static inline void store_bgra(uint8_t (*dst)[4], VI r, VI g, VI b)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const VI bgra = (b & 0xFF) | (g & 0xFF) << 8 | (r & 0xFF) << 16 | (int32_t)0xFF000000;
    memcpy(dst, &bgra, sizeof bgra);
#else
    for (int l = 0; l < VW; l++)
        dst[l][0] = (uint8_t)b[l], dst[l][1] = (uint8_t)g[l], dst[l][2] = (uint8_t)r[l], dst[l][3] = 255;
#endif
}

/* g's light and bytes, its textures, shadows and fog (g->T, when `fog`) already in */
static void LIGHT_LANES_FN(const sn_shade_env *e, sn_gbuf *g, int fog, size_t from, size_t to)
{
    const VF sx = V(splat)((float)e->sun[0]), sy = V(splat)((float)e->sun[1]), sz = V(splat)((float)e->sun[2]);
    const VF amb = V(splat)((float)e->ambient), keep = V(splat)((float)e->shadow_keep), one = V(splat)(1.0f);
    const VF zero = V(splat)(0.0f), half = V(splat)(0.5f), top = V(splat)(255.0f);
    VF sun_rgb[3], hor[3];
    for (int k = 0; k < 3; k++)
        sun_rgb[k] = V(splat)((float)e->sun_rgb[k]), hor[k] = V(splat)((float)e->horizon[k]);
    for (size_t i = from; i < to; i += VW) {
        VF lambert = V(load)(g->nx + i) * sx + V(load)(g->ny + i) * sy + V(load)(g->nz + i) * sz;
        VF lit = V(max)(lambert, zero), vis = V(load)(g->vis + i);
        vis = vis + (one - vis) * keep; /* clouds let some sun through a shadow; 1 stays 1 */
        VF albedo = V(load)(g->albedo + i), glow = V(load)(g->glow + i);
        VF T = fog ? V(load)(g->T + i) : one, fogged = one - T;
        VI c[3];
        for (int k = 0; k < 3; k++) {
            VF out = V(load)(g->col[k] + i) * ((amb + sun_rgb[k] * lit * vis + V(load)(g->lamp[k] + i)) * albedo + glow);
            VF v = out * T + hor[k] * fogged + half;
            c[k] = V(trunc_i)(V(min)(v, top));
        }
        store_bgra(g->rgb + i, c[0], c[1], c[2]);
    }
}

/* the sky's colour in the directions of b */
static void SKY_LANES_FN(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b, size_t from, size_t to)
{
    const VF sx = V(splat)((float)e->sun[0]), sy = V(splat)((float)e->sun[1]), sz = V(splat)((float)e->sun[2]);
    const VF one = V(splat)(1.0f), zero = V(splat)(0.0f), top = V(splat)(255.0f), half = V(splat)(0.5f);
    const VF eglow = V(splat)((float)e->glow), fk = V(splat)((float)e->fog_k), ff = V(splat)((float)e->fog_falloff);
    const VF fz0 = V(splat)((float)(e->fog_falloff * eye.z)), fstart = V(splat)((float)(e->fog_falloff * e->fog_start));
    const int fog = e->fog_k > 0, thins = e->fog_falloff > 0;
    const double fs = e->fog_falloff * e->fog_start;
    const int small = fs <= 0.1 && e->fog_falloff * eye.z - fs > -49; /* the clamp at -50 cannot act */
    const VF e0 = V(splat)((float)exp(-e->fog_falloff * eye.z));
    VF hor[3], zen[3];
    for (int k = 0; k < 3; k++)
        hor[k] = V(splat)((float)e->horizon[k]), zen[k] = V(splat)((float)e->zenith[k]);
    for (size_t i = from; i < to; i += VW) {
        VF x = V(load)(b->dx + i), y = V(load)(b->dy + i), z = V(load)(b->dz + i);
        VF inv = one / V(sqrt)(x * x + y * y + z * z);
        x = x * inv, y = y * inv, z = z * inv;
        VF t = V(sqrt)(V(min)(V(max)(z, zero), one)), below = V(sel)(z < zero, V(splat)(0.85f), one);
        VF glow = zero;
        if (e->glow > 0) { /* the disc (half a degree) and a halo around it: 0.35 ((g - 0.9) / 0.1)^24 */
            VF g = x * sx + y * sy + z * sz;
            VI near = g > V(splat)(0.9f);
            if (V(any)(near)) {
                VF h = (g - V(splat)(0.9f)) / V(splat)(0.1f), h2 = h * h, h3 = h2 * h, h6 = h3 * h3, h12 = h6 * h6;
                VF disc = V(sel)(g > V(splat)(0.99996f), one, zero);
                glow = V(sel)(near, eglow * (disc + V(splat)(0.35f) * (h12 * h12)), zero);
            }
        }
        VF T = one; /* fog towards the sky: to infinity, finite only when it thins and the ray climbs */
        if (fog) {
            T = zero;
            if (thins) {
                VI climbs = z > V(splat)(1e-6f);
                VF ea; /* e^-za, as fog_lanes.h: |z fstart| <= fstart, a short polynomial where it is small */
                if (small)
                    ea = e0 * fog_exp_small(-(z * fstart));
                else
                    ea = fog_exp(-V(max)(V(splat)(-50.0f), fz0 + z * fstart));
                VF tau = fk * ea / (ff * V(sel)(climbs, z, one));
                /* e^-tau by Taylor where tau < 0.35 (the sky above about 1.3 degrees in thin fog),
                ** the reduced exponential only when a climbing lane needs it */
                VF tt = fog_exp_taylor7(-tau);
                VI big = ~(tau < V(splat)(0.35f)) & climbs;
                if (V(any)(big))
                    tt = V(sel)(big, fog_exp(-tau), tt);
                T = V(sel)(climbs, tt, zero);
            }
        }
        VI c[3];
        for (int k = 0; k < 3; k++) {
            VF v = (hor[k] + (zen[k] - hor[k]) * t) * below;
            v = v + (top - v) * glow;
            v = v * T + hor[k] * (one - T);
            c[k] = V(trunc_i)(V(min)(v + half, top));
        }
        store_bgra(b->rgb + i, c[0], c[1], c[2]);
    }
}
