/* The shadow lookup's shortcuts: a point nearer than its tent window's least depth
** (engine/render/shadow_window.c) is answered 1, one wholly farther than the 8 x 8 texels' block
** bounds around it (shadow_bounds.c) 0, without its 16 comparisons. Against the lookup without the shortcut
** (sn_shadow_set_bounds false), the same bits for every point: random boxes and triangles under
** three suns, points on the ground, on the casters' heights and in the air (lit, shadowed and on
** shadows' edges, each kind counted), random normals, entries not asked for left alone, at 1 and
** 2 threads. And the eight-lane lookup (shadow_avx2.c, where the CPU has AVX2) against the
** four-lane one, with the bounds and without, bit for bit, over counts that are and are not
** multiples of 8. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/pool.h"
#include "../../engine/render/shadow.h"
#include "../check.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NP 4096 /* points a call, a multiple of 4 */

#define TEST_UNI_SEED 0x2545F4914F6CDD1Du
#include "test_uni.h"
#include "shadow_casters.h"

int main(void)
{
    const uint32_t nb = 300;
    double(*v)[3] = malloc(11 * nb * sizeof *v);
    uint32_t(*t)[3] = malloc(13 * nb * sizeof *t);
    float *p = malloc(6 * NP * sizeof *p), *va = malloc(NP * sizeof *va), *vb = malloc(NP * sizeof *vb);
    float *vc = malloc(NP * sizeof *vc), *vd = malloc(NP * sizeof *vd);
    sn_shadow *s = sn_shadow_create();
    CHECK(v && t && p && va && vb && vc && vd && s, "memory");
    const bool wide = sn_lanes_set_wide(true);
    casters(v, t, nb);
    const sn_shadow_caster c = {(const double(*)[3])v, (const uint32_t(*)[3])t, 11 * nb, 13 * nb};
    const double suns[3][3] = {{0, 0, 1}, {0.3, -0.2, 0.9327379}, {-0.6, 0.5, 0.6244998}};
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++)
        corners[k] = sn_v3(k & 1 ? 100 : 0, k & 2 ? 100 : 0, k & 4 ? 30 : 0);
    const sn_vec3 eye = sn_v3(50, 40, 12);
    size_t lit = 0, dark = 0, edge = 0, points = 0;
    for (int threads = 1; threads <= 2; threads++) {
        sn_pool *pool = sn_pool_create(threads);
        for (int k = 0; k < 3; k++) {
            CHECK(sn_shadow_begin(s, suns[k], corners, 8), "begin");
            CHECK(sn_shadow_draw(s, pool, &c, 1), "draw");
            for (int round = 0; round < 40; round++) {
                float *dx = p, *dy = p + NP, *dz = p + 2 * NP, *nx = p + 3 * NP, *ny = p + 4 * NP, *nz = p + 5 * NP;
                for (size_t i = 0; i < NP; i++) {
                    const uint32_t b = (uint32_t)(uni() * nb);
                    const double kind = uni(), x = -5 + 110 * uni(), y = -5 + 110 * uni();
                    /* the ground, a box's top (the casters' own depths), or anywhere in the air */
                    double z = kind < 0.4 ? 0 : kind < 0.7 ? v[8 * b + 4][2] : 30 * uni();
                    dx[i] = (float)(x - eye.x), dy[i] = (float)(y - eye.y), dz[i] = (float)(z - eye.z);
                    double n3[3] = {uni() - 0.5, uni() - 0.5, uni()}, len = 0;
                    if (kind < 0.7 && uni() < 0.7)
                        n3[0] = n3[1] = 0;
                    for (int a = 0; a < 3; a++)
                        len += n3[a] * n3[a];
                    len = sqrt(len) + 1e-9;
                    nx[i] = (float)(n3[0] / len), ny[i] = (float)(n3[1] / len), nz[i] = (float)(n3[2] / len);
                    va[i] = vb[i] = vc[i] = vd[i] = i % 97 == 5 ? 0.25f : -1; /* some not asked for */
                }
                const size_t np = NP - 4 * (size_t)(round % 2); /* odd rounds: four lanes finish */
                sn_shadow_set_bounds(s, true);
                sn_shadow_visibility_fast(s, eye, dx, dy, dz, nx, ny, nz, va, np);
                sn_shadow_set_bounds(s, false);
                sn_shadow_visibility_fast(s, eye, dx, dy, dz, nx, ny, nz, vb, np);
                sn_lanes_set_wide(false);
                sn_shadow_visibility_fast(s, eye, dx, dy, dz, nx, ny, nz, vd, np);
                sn_shadow_set_bounds(s, true);
                sn_shadow_visibility_fast(s, eye, dx, dy, dz, nx, ny, nz, vc, np);
                sn_lanes_set_wide(true);
                size_t differ = 0, lanes = 0;
                for (size_t i = 0; i < np; i++) {
                    lanes += memcmp(&va[i], &vc[i], sizeof *va) != 0 || memcmp(&vb[i], &vd[i], sizeof *vb) != 0;
                    differ += memcmp(&va[i], &vb[i], sizeof *va) != 0;
                    if (i % 97 == 5)
                        CHECK(va[i] == 0.25f, "an entry not asked for is left alone");
                    else
                        lit += vb[i] == 1, dark += vb[i] == 0, edge += vb[i] > 0 && vb[i] < 1, points++;
                }
                CHECK(differ == 0, "sun %d, %d threads: %zu of %zu points differ from the 16 comparisons", k, threads,
                      differ, np);
                CHECK(lanes == 0, "sun %d, %d threads: %zu of %zu points differ between eight lanes and four", k,
                      threads, lanes, np);
            }
        }
        sn_pool_destroy(pool);
    }
    sn_shadow_set_bounds(s, true);
    if (!wide)
        printf("no AVX2 here: four lanes against themselves\n");
    CHECK(lit > points / 10 && dark > points / 10 && edge > points / 200,
          "every kind of point: %zu lit, %zu shadowed, %zu on an edge of %zu", lit, dark, edge, points);
    sn_shadow_destroy(s);
    free(v), free(t), free(p), free(va), free(vb), free(vc), free(vd);
    return CHECK_DONE();
}
