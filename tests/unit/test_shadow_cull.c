/* The shadow map drawn from the casters' faces towards the sun only (sn_shadow_set_cull): every
** caster is closed and wound outwards, so a sun ray through one meets such a face first and the
** nearest depths are those of the map drawn from every face, but where a silhouette edge passes
** within rounding of a texel's centre. The renderer's unit meshes (box, sphere, cylinder), each
** scaled, turned and placed at random over a 100 m square (overlapping one another and the ground
** box they stand on), under three suns, a low one among them, at 1 and 2 threads: every texel,
** and the exact and fast lookups of points on the casters' surfaces, near them and on the ground,
** against the map drawn whole. The same casters wound inwards must differ (the cull keeps the
** faces towards the sun, not the others). */
#include "../../engine/render/lanes.h"
#include "../../engine/render/mesh.h"
#include "../../engine/render/pool.h"
#include "../../engine/render/shadow.h"
#include "../check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NC 160  /* casters */
#define NP 4096 /* points a call, a multiple of 8 */

#define TEST_UNI_SEED 0x5DEECE66Du
#include "test_uni.h"

typedef struct posed {
    double (*v)[3];
    const sn_mesh *m;
    sn_mat3 R;
    sn_vec3 c, e;
} posed;

static sn_vec3 place(const posed *p, const float *v)
{
    return sn_v3_add(p->c, sn_mat3_apply(&p->R, sn_v3(p->e.x * v[0], p->e.y * v[1], p->e.z * v[2])));
}

int main(void)
{
    sn_mesh_init();
    const sn_shape shapes[3] = {SN_SHAPE_BOX, SN_SHAPE_SPHERE, SN_SHAPE_CYLINDER};
    posed cs[NC + 1];
    sn_shadow_caster cc[NC + 1], inward[NC + 1];
    uint32_t(*flip[NC + 1])[3];
    for (int i = 0; i <= NC; i++) {
        posed *p = &cs[i];
        p->m = sn_mesh_get(shapes[i == NC ? 0 : i % 3]);
        CHECK(p->m, "mesh");
        if (i == NC) { /* the ground: a flat box under everything */
            p->R = sn_mat3_from_quat(sn_quat_identity());
            p->c = sn_v3(50, 50, -0.5), p->e = sn_v3(60, 60, 0.5);
        } else {
            const sn_quat q = sn_quat_norm((sn_quat){uni() - 0.5, uni() - 0.5, uni() - 0.5, uni() - 0.5});
            p->R = sn_mat3_from_quat(uni() < 0.3 ? sn_quat_identity() : q);
            p->e = sn_v3(0.2 + 5 * uni(), 0.2 + 5 * uni(), 0.2 + 8 * uni());
            p->c = sn_v3(100 * uni(), 100 * uni(), 10 * uni());
        }
        p->v = malloc(p->m->n_v * sizeof *p->v);
        flip[i] = malloc(p->m->n_t * sizeof *flip[i]);
        CHECK(p->v && flip[i], "memory");
        for (uint32_t k = 0; k < p->m->n_v; k++) {
            const sn_vec3 w = place(p, p->m->v[k]);
            p->v[k][0] = w.x, p->v[k][1] = w.y, p->v[k][2] = w.z;
        }
        for (uint32_t k = 0; k < p->m->n_t; k++)
            flip[i][k][0] = p->m->t[k][0], flip[i][k][1] = p->m->t[k][2], flip[i][k][2] = p->m->t[k][1];
        cc[i] = (sn_shadow_caster){(const double(*)[3])p->v, p->m->t, p->m->n_v, p->m->n_t};
        inward[i] = cc[i], inward[i].t = (const uint32_t(*)[3])flip[i];
    }
    float *pt = malloc(6 * NP * sizeof *pt), *va = malloc(NP * sizeof *va), *vb = malloc(NP * sizeof *vb);
    sn_shadow *whole = sn_shadow_create(), *front = sn_shadow_create();
    CHECK(pt && va && vb && whole && front, "memory");
    sn_shadow_set_cull(front, true);
    const bool wide = sn_lanes_set_wide(true);
    const double suns[3][3] = {{0, 0, 1}, {0.3, -0.2, 0.9327379}, {-0.85, 0.45, 0.2738613}};
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++)
        corners[k] = sn_v3(k & 1 ? 100 : 0, k & 2 ? 100 : 0, k & 4 ? 30 : 0);
    const sn_vec3 eye = sn_v3(50, 40, 12);
    size_t texels = 0, drawn = 0, tex_differ = 0, points = 0, lit = 0, dark = 0, edge = 0, inward_differ = 0;
    for (int threads = 1; threads <= 2; threads++) {
        sn_pool *pool = sn_pool_create(threads);
        CHECK(pool, "pool");
        for (int k = 0; k < 3; k++) {
            CHECK(sn_shadow_begin(whole, suns[k], corners, 8) && sn_shadow_draw(whole, pool, cc, NC + 1), "whole map");
            CHECK(sn_shadow_begin(front, suns[k], corners, 8) && sn_shadow_draw(front, pool, cc, NC + 1), "culled map");
            size_t differ = 0;
            for (int32_t y = 0; y < SN_SHADOW_SIZE; y++)
                for (int32_t x = 0; x < SN_SHADOW_SIZE; x++) {
                    const float a = sn_shadow_texel(whole, x, y), b = sn_shadow_texel(front, x, y);
                    differ += memcmp(&a, &b, sizeof a) != 0, drawn += a < FLT_MAX, texels++;
                }
            tex_differ += differ;
            /* points on the casters' surfaces (a vertex's mix with a face's), just off them, and on
            ** the ground, with their own normals or random ones */
            float *dx = pt, *dy = pt + NP, *dz = pt + 2 * NP, *nx = pt + 3 * NP, *ny = pt + 4 * NP, *nz = pt + 5 * NP;
            sn_vec3 at[NP];
            float nrm[NP][3];
            for (size_t i = 0; i < NP; i++) {
                const posed *p = &cs[(size_t)(uni() * NC)];
                const uint32_t *tri = p->m->t[(size_t)(uni() * p->m->n_t)];
                double w0 = uni(), w1 = uni();
                if (w0 + w1 > 1)
                    w0 = 1 - w0, w1 = 1 - w1;
                const sn_vec3 a = place(p, p->m->v[tri[0]]), b = place(p, p->m->v[tri[1]]), c = place(p, p->m->v[tri[2]]);
                sn_vec3 q = sn_v3_add(a, sn_v3_add(sn_v3_scale(sn_v3_sub(b, a), w0), sn_v3_scale(sn_v3_sub(c, a), w1)));
                sn_vec3 n = sn_v3_norm(sn_v3_cross(sn_v3_sub(b, a), sn_v3_sub(c, a)));
                if (i % 4 == 3) /* the ground's top */
                    q = sn_v3(100 * uni(), 100 * uni(), 0), n = sn_v3(0, 0, 1);
                else if (i % 4 == 2)
                    q = sn_v3_add(q, sn_v3_scale(n, 0.3 * uni()));
                if (i % 8 == 1 || !(n.x == n.x))
                    n = sn_v3_norm(sn_v3(uni() - 0.5, uni() - 0.5, uni()));
                at[i] = q, nrm[i][0] = (float)n.x, nrm[i][1] = (float)n.y, nrm[i][2] = (float)n.z;
                dx[i] = (float)(q.x - eye.x), dy[i] = (float)(q.y - eye.y), dz[i] = (float)(q.z - eye.z);
                nx[i] = nrm[i][0], ny[i] = nrm[i][1], nz[i] = nrm[i][2];
            }
            differ = 0;
            for (size_t i = 0; i < NP; i++) {
                const double a = sn_shadow_visibility(whole, at[i], nrm[i]), b = sn_shadow_visibility(front, at[i], nrm[i]);
                differ += memcmp(&a, &b, sizeof a) != 0;
                lit += a == 1, dark += a == 0, edge += a > 0 && a < 1, points++;
            }
            CHECK(differ == 0, "sun %d, %d threads: %zu of %d exact lookups differ", k, threads, differ, NP);
            for (int mode = 0; mode < 2; mode++) { /* eight lanes or four */
                sn_lanes_set_wide(mode == 0);
                for (size_t i = 0; i < NP; i++)
                    va[i] = vb[i] = -1;
                sn_shadow_visibility_fast(whole, eye, dx, dy, dz, nx, ny, nz, va, NP);
                sn_shadow_visibility_fast(front, eye, dx, dy, dz, nx, ny, nz, vb, NP);
                differ = 0;
                for (size_t i = 0; i < NP; i++)
                    differ += memcmp(&va[i], &vb[i], sizeof *va) != 0;
                CHECK(differ == 0, "sun %d, %d threads, %s lanes: %zu of %d fast lookups differ", k, threads,
                      mode ? "four" : "eight", differ, NP);
            }
            sn_lanes_set_wide(true);
            /* wound inwards, the cull keeps the faces away from the sun: farther depths */
            CHECK(sn_shadow_begin(front, suns[k], corners, 8) && sn_shadow_draw(front, pool, inward, NC + 1), "inward");
            for (int32_t y = 0; y < SN_SHADOW_SIZE; y += 2)
                for (int32_t x = 0; x < SN_SHADOW_SIZE; x += 2)
                    inward_differ += sn_shadow_texel(whole, x, y) != sn_shadow_texel(front, x, y);
        }
        sn_pool_destroy(pool);
    }
    if (!wide)
        printf("no AVX2 here: four lanes only\n");
    printf("%zu texels (%zu covered): %zu differ; %zu points: %zu lit, %zu shadowed, %zu on an edge; wound inwards, "
           "%zu sampled texels differ\n",
           texels, drawn, tex_differ, points, lit, dark, edge, inward_differ);
    /* a silhouette through a texel's centre to rounding: none expected in random casters */
    CHECK(tex_differ * 1000000 <= drawn, "%zu of %zu covered texels differ", tex_differ, drawn);
    CHECK(lit > points / 10 && dark > points / 20 && edge > points / 500,
          "every kind of point: %zu lit, %zu shadowed, %zu on an edge of %zu", lit, dark, edge, points);
    CHECK(inward_differ > drawn / 40, "the cull keeps the faces towards the sun: %zu", inward_differ);
    sn_shadow_destroy(whole), sn_shadow_destroy(front);
    for (int i = 0; i <= NC; i++)
        free(cs[i].v), free(flip[i]);
    free(pt), free(va), free(vb);
    return CHECK_DONE();
}
