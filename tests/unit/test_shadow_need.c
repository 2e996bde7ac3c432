/* The shadow map's receivers (engine/render/shadow_need.c): casters no receiver can reach are not
** drawn, and every lookup of a point inside a receiver gets the same bits as with the whole map.
** Random boxes and triangles under three suns; receivers are random spheres and a convex patch of
** the ground (the hull of a few points, as a ground plane's part in view is given); points
** anywhere inside them (their surfaces too) with random normals, looked up by the exact lookup
** and the fast one (eight lanes and four, with the block bounds and without), at 1 and 2 threads,
** against a map drawn without receivers. And the receivers must leave casters out: some texels
** the whole map covers are empty in the receivers' map. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/pool.h"
#include "../../engine/render/shadow.h"
#include "../../engine/render/shadow_need.h"
#include "../check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NP 4096 /* points a call, a multiple of 8 */
#define NR 12   /* receiver spheres */

#define TEST_UNI_SEED 0x9E3779B97F4A7C15u
#include "test_uni.h"
#include "shadow_casters.h"

int main(void)
{
    const uint32_t nb = 300;
    double(*v)[3] = malloc(11 * nb * sizeof *v);
    uint32_t(*t)[3] = malloc(13 * nb * sizeof *t);
    float *p = malloc(6 * NP * sizeof *p), *va = malloc(NP * sizeof *va), *vb = malloc(NP * sizeof *vb);
    sn_shadow *whole = sn_shadow_create(), *part = sn_shadow_create();
    CHECK(v && t && p && va && vb && whole && part, "memory");
    const bool wide = sn_lanes_set_wide(true);
    casters(v, t, nb);
    const sn_shadow_caster c = {(const double(*)[3])v, (const uint32_t(*)[3])t, 11 * nb, 13 * nb};
    const double suns[3][3] = {{0, 0, 1}, {0.3, -0.2, 0.9327379}, {-0.6, 0.5, 0.6244998}};
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++)
        corners[k] = sn_v3(k & 1 ? 100 : 0, k & 2 ? 100 : 0, k & 4 ? 30 : 0);
    const sn_vec3 eye = sn_v3(50, 40, 12);
    size_t lit = 0, dark = 0, edge = 0, points = 0, dropped = 0, drawn = 0;
    for (int threads = 1; threads <= 2; threads++) {
        sn_pool *pool = sn_pool_create(threads);
        for (int k = 0; k < 3; k++) {
            for (int round = 0; round < 8; round++) {
                /* receivers: spheres anywhere over the square, and a patch of the ground */
                sn_vec3 rc[NR], hull[5];
                double rr[NR];
                for (int i = 0; i < NR; i++)
                    rc[i] = sn_v3(100 * uni(), 100 * uni(), 25 * uni()), rr[i] = 0.2 + 6 * uni();
                const double gx = 100 * uni(), gy = 100 * uni();
                for (int i = 0; i < 5; i++)
                    hull[i] = sn_v3(gx + 25 * (uni() - 0.5), gy + 25 * (uni() - 0.5), 0);
                CHECK(sn_shadow_begin(whole, suns[k], corners, 8) && sn_shadow_draw(whole, pool, &c, 1), "whole map");
                CHECK(sn_shadow_begin(part, suns[k], corners, 8), "begin");
                sn_shadow_need_none(part);
                for (int i = 0; i < NR; i++)
                    sn_shadow_need_sphere(part, rc[i], rr[i]);
                sn_shadow_need_hull(part, hull, 5);
                CHECK(sn_shadow_draw(part, pool, &c, 1), "receivers' map");
                for (int32_t y = 0; y < SN_SHADOW_SIZE; y += 3)
                    for (int32_t x = 0; x < SN_SHADOW_SIZE; x += 3) {
                        const float a = sn_shadow_texel(whole, x, y), b = sn_shadow_texel(part, x, y);
                        drawn += a < FLT_MAX, dropped += a < FLT_MAX && b == FLT_MAX;
                    }
                float *dx = p, *dy = p + NP, *dz = p + 2 * NP, *nx = p + 3 * NP, *ny = p + 4 * NP, *nz = p + 5 * NP;
                sn_vec3 at[NP];
                for (size_t i = 0; i < NP; i++) {
                    sn_vec3 q;
                    if (i % 4 == 3) { /* in the ground patch: a mix of its corners */
                        double w[5], sw = 0;
                        for (int j = 0; j < 5; j++)
                            w[j] = uni() < 0.4 ? 0 : uni(), sw += w[j];
                        w[0] += sw == 0, sw += sw == 0;
                        q = sn_v3(0, 0, 0);
                        for (int j = 0; j < 5; j++)
                            q = sn_v3_add(q, sn_v3_scale(hull[j], w[j] / sw));
                    } else { /* in a sphere, on its surface a third of the time */
                        const int j = (int)(uni() * NR);
                        sn_vec3 d = sn_v3(uni() - 0.5, uni() - 0.5, uni() - 0.5);
                        d = sn_v3_scale(d, 1 / (sn_v3_len(d) + 1e-12));
                        q = sn_v3_add(rc[j], sn_v3_scale(d, rr[j] * (uni() < 0.33 ? 0.999999 : uni())));
                    }
                    at[i] = q;
                    dx[i] = (float)(q.x - eye.x), dy[i] = (float)(q.y - eye.y), dz[i] = (float)(q.z - eye.z);
                    double n3[3] = {uni() - 0.5, uni() - 0.5, uni()}, len = 0;
                    if (uni() < 0.5)
                        n3[0] = n3[1] = 0;
                    for (int a = 0; a < 3; a++)
                        len += n3[a] * n3[a];
                    len = sqrt(len) + 1e-9;
                    nx[i] = (float)(n3[0] / len), ny[i] = (float)(n3[1] / len), nz[i] = (float)(n3[2] / len);
                }
                size_t differ = 0;
                for (size_t i = 0; i < NP; i++) { /* the exact lookup */
                    const float n3[3] = {nx[i], ny[i], nz[i]};
                    const double a = sn_shadow_visibility(whole, at[i], n3), b = sn_shadow_visibility(part, at[i], n3);
                    differ += memcmp(&a, &b, sizeof a) != 0;
                    lit += a == 1, dark += a == 0, edge += a > 0 && a < 1, points++;
                }
                CHECK(differ == 0, "sun %d, %d threads: %zu of %d exact lookups differ", k, threads, differ, NP);
                for (int mode = 0; mode < 4; mode++) { /* eight lanes or four, bounds or none */
                    sn_lanes_set_wide(mode < 2);
                    sn_shadow_set_bounds(whole, mode % 2 == 0), sn_shadow_set_bounds(part, mode % 2 == 0);
                    for (size_t i = 0; i < NP; i++)
                        va[i] = vb[i] = -1;
                    sn_shadow_visibility_fast(whole, eye, dx, dy, dz, nx, ny, nz, va, NP);
                    sn_shadow_visibility_fast(part, eye, dx, dy, dz, nx, ny, nz, vb, NP);
                    differ = 0;
                    for (size_t i = 0; i < NP; i++)
                        differ += memcmp(&va[i], &vb[i], sizeof *va) != 0;
                    CHECK(differ == 0, "sun %d, %d threads, mode %d: %zu of %d fast lookups differ", k, threads, mode,
                          differ, NP);
                }
                sn_lanes_set_wide(true);
                sn_shadow_set_bounds(whole, true), sn_shadow_set_bounds(part, true);
            }
        }
        sn_pool_destroy(pool);
    }
    if (!wide)
        printf("no AVX2 here: four lanes only\n");
    printf("%zu points: %zu lit, %zu shadowed, %zu on an edge; %zu of %zu sampled caster texels left out\n", points,
           lit, dark, edge, dropped, drawn);
    CHECK(lit > points / 10 && dark > points / 20 && edge > points / 500,
          "every kind of point: %zu lit, %zu shadowed, %zu on an edge of %zu", lit, dark, edge, points);
    CHECK(dropped > drawn / 10, "the receivers leave casters out: %zu of %zu texels", dropped, drawn);
    sn_shadow_destroy(whole), sn_shadow_destroy(part);
    free(v), free(t), free(p), free(va), free(vb);

    /* Receivers that cannot be placed: a NaN among a hull's points culls nothing (the map is
    ** drawn whole), and an inverted box marks nothing (under ASan a wrong length would trap). */
    static sn_shadow_need q;
    sn_need_none(&q);
    const double nan_hull[4][2] = {{10, 10}, {NAN, 40}, {60, 12}, {30, 70}};
    sn_need_hull(&q, nan_hull, 4, SN_SHADOW_REACH);
    CHECK(q.all, "a hull with a NaN point wants every cell");
    sn_need_none(&q);
    sn_need_box(&q, 300, 300, 100, 100);
    sn_need_finish(&q);
    CHECK(!q.all && !sn_need_any(&q, 0, 0, SN_SHADOW_SIZE - 1, SN_SHADOW_SIZE - 1), "an inverted box marks nothing");
    sn_need_box(&q, 100, 100, 300, 300);
    sn_need_finish(&q);
    CHECK(sn_need_any(&q, 200, 200, 200, 200), "a box marks its cells");
    return CHECK_DONE();
}
