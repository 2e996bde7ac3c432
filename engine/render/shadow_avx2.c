/* shadow_avx2.c — the fast shadow lookup eight points at a time (shadow_lookup.h), for CPUs with
** AVX2: the projection, the normal offset and the windows' least in eight lanes, the tent per point
** as in shadow.c. The same operations in the same order lane for lane as the four-lane loop, no
** FMA: the same bits (tests/unit/test_shadow_bounds.c compares them). */
#include "shadow_lookup.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,no-fma")
#include "shadow_bounds.h"
#include "shadow_window.h"
#include "simd8.h"

void sn_shadow_visibility_avx2(const sn_shadow_lookup *L, const float *dx, const float *dy, const float *dz,
                               const float *nx, const float *ny, const float *nz, float *vis, size_t n)
{
    const v8f sux = v8_splat(L->su[0]), suy = v8_splat(L->su[1]), suz = v8_splat(L->su[2]);
    const v8f svx = v8_splat(L->sv[0]), svy = v8_splat(L->sv[1]), svz = v8_splat(L->sv[2]);
    const v8f sdx = v8_splat(L->sd[0]), sdy = v8_splat(L->sd[1]), sdz = v8_splat(L->sd[2]);
    const v8f scale = v8_splat(L->scale), U0 = v8_splat(L->U0), V0 = v8_splat(L->V0), D0 = v8_splat(L->D0);
    const v8f texel = v8_splat(L->texel), bias = v8_splat(L->bias), zero = v8_splat(0.0f);
    const v8f one = v8_splat(1.0f), hi = v8_splat(SN_SHADOW_SIZE - 3), two = v8_splat(2.0f);
    for (size_t i = 0; i < n; i += 8) {
        const v8f want = v8_load(vis + i);
        const v8i asked = want < zero;
        if (!v8_any(asked))
            continue;
        const v8f x = v8_load(dx + i), y = v8_load(dy + i), z = v8_load(dz + i);
        const v8f n0 = v8_load(nx + i), n1 = v8_load(ny + i), n2 = v8_load(nz + i);
        const v8f a = n0 * sux + n1 * suy + n2 * suz, b = n0 * svx + n1 * svy + n2 * svz,
                  c = n0 * sdx + n1 * sdy + n2 * sdz;
        const v8f k = two * (v8_max(a, -a) + v8_max(b, -b)); /* offset_texels, lane by lane */
        v8f u = U0 + (x * sux + y * suy + z * suz) * scale + k * a,
            v = V0 + (x * svx + y * svy + z * svz) * scale + k * b;
        v8i in = (u >= one) & (v >= one) & (u < hi) & (v < hi) & asked;
        const v8f d = D0 + (x * sdx + y * sdy + z * sdz) + (k * texel * c - bias);
        u = v8_sel(in, u, one), v = v8_sel(in, v, one);
        const v8i xi = v8_trunc_i(u), yi = v8_trunc_i(v); /* u, v >= 1: truncation is floor */
        const v8f fx = u - __builtin_convertvector(xi, v8f), fy = v - __builtin_convertvector(yi, v8f);
        v8f o = v8_sel(asked, one, want); /* outside the map: lit */
        if (L->win) {
            /* its pair of windows' least (shadow_window.h): nearer than that is nearer than all 16
            ** texels, the tent's 1, by one gather; a NaN depth fails and goes on */
            const v8i lit =
                in & (d <= v8_gather(L->win, (yi - 1) * SN_SHADOW_WIN_ROW(SN_SHADOW_SIZE) + ((xi - 1) >> 1)));
            o = v8_sel(lit, one, o);
            in &= ~lit;
        }
        unsigned left = (unsigned)_mm256_movemask_ps((__m256)in);
        if (!left) {
            v8_store(vis + i, o);
            continue;
        }
        float out[8];
        v8_store(out, o);
        for (; left; left &= left - 1) {
            const int l = __builtin_ctz(left);
            out[l] = sn_shadow_far(L, xi[l], yi[l], d[l]) ? 0 : sn_shadow_tent(L->depth, xi[l], yi[l], fx[l], fy[l], d[l]);
        }
        memcpy(vis + i, out, sizeof out);
    }
}
#endif
