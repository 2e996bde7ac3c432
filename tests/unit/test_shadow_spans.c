/* The sun's shadow map drawn by solved spans (engine/render/shadow.c span_row) against the map
** drawn texel by texel (sn_shadow_set_scan, the definition): every texel the same bits, for
** random caster triangles from a fraction of a texel to the whole map (slivers, steep depths,
** off the map's edges), axis-aligned boxes whose edges run along texel rows and columns (edge
** slopes of 0, roots near texel centres), triangles whose edges pass through texel centres (rows
** the spans must leave to the scan), at 1 and 2 threads, in AVX2 and SSE2 lanes, under three
** suns. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/pool.h"
#include "../../engine/render/shadow.h"
#include "../check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N SN_SHADOW_SIZE

static uint64_t rng = 0x9E3779B97F4A7C15u;
static double uni(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

typedef struct mesh {
    double (*v)[3];
    uint32_t (*t)[3];
    uint32_t n_v, n_t;
} mesh;

/* n random triangles of sizes from 1 cm to 60 m over a 100 m square, heights 0..30 m */
static void random_tris(mesh *m, uint32_t n)
{
    m->v = malloc(3 * n * sizeof *m->v), m->t = malloc(n * sizeof *m->t);
    m->n_v = 3 * n, m->n_t = n;
    for (uint32_t i = 0; i < n; i++) {
        double size = 0.01 * pow(6000, uni()), cx = -10 + 120 * uni(), cy = -10 + 120 * uni(), cz = 30 * uni();
        for (int k = 0; k < 3; k++) {
            double *p = m->v[3 * i + k];
            p[0] = cx + size * (uni() - 0.5), p[1] = cy + size * (uni() - 0.5), p[2] = cz + size * (uni() - 0.5);
        }
        if (i % 5 == 0) { /* a sliver: the third corner near the first two's line */
            double a = uni() * 1e-3;
            for (int c = 0; c < 3; c++)
                m->v[3 * i + 2][c] = (1 - a) * m->v[3 * i][c] + a * m->v[3 * i + 1][c] + 0.01 * uni();
        }
        m->t[i][0] = 3 * i, m->t[i][1] = 3 * i + 1, m->t[i][2] = 3 * i + 2;
    }
}

/* n boxes aligned with the world axes, corners on a 5 cm grid */
static void boxes(mesh *m, uint32_t n)
{
    static const uint32_t faces[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5}, {0, 4, 5}, {0, 5, 1},
                                          {2, 3, 7}, {2, 7, 6}, {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}};
    m->v = malloc(8 * n * sizeof *m->v), m->t = malloc(12 * n * sizeof *m->t);
    m->n_v = 8 * n, m->n_t = 12 * n;
    for (uint32_t i = 0; i < n; i++) {
        double lo[3], hi[3];
        for (int c = 0; c < 3; c++) {
            lo[c] = 0.05 * floor(uni() * 2000) - (c == 2 ? 0 : 5);
            hi[c] = lo[c] + 0.05 * (1 + floor(uni() * (c == 2 ? 400 : 300)));
        }
        for (int k = 0; k < 8; k++) {
            double *p = m->v[8 * i + k];
            p[0] = k & 1 ? hi[0] : lo[0], p[1] = k & 2 ? hi[1] : lo[1], p[2] = k & 4 ? hi[2] : lo[2];
        }
        for (int f = 0; f < 12; f++)
            for (int c = 0; c < 3; c++)
                m->t[12 * i + f][c] = 8 * i + faces[f][c];
    }
}

/* n triangles over 24 texels wide whose edges pass through texel centres, in a run of rows, for
** the sun straight down: their corners at texel centres (a float vertex lands on one exactly),
** the map's frame for draw's corners worked out as sn_shadow_begin does. Where a row's root is a
** texel centre the spans cannot certify it and the row is scanned. */
static void centred(mesh *m, uint32_t n)
{
    const double side = 100 + 1e-3, o = -0.01 * side, texel = 1.02 * side / N; /* su = y, sv = x */
    m->v = malloc(3 * n * sizeof *m->v), m->t = malloc(n * sizeof *m->t);
    m->n_v = 3 * n, m->n_t = n;
    for (uint32_t i = 0; i < n; i++) {
        const double a = 50 + floor(700 * uni()) + 0.5, b = 50 + floor(900 * uni()) + 0.5;
        const double k = 1 + floor(4 * uni()), h = 4 + floor(40 * uni()), wide = 24 + floor(60 * uni());
        const double uv[3][2] = {{a, b}, {a + k * h, b + h}, {a + k * h + wide, b + h - floor(h * uni())}};
        for (int c = 0; c < 3; c++) {
            double *p = m->v[3 * i + c];
            p[0] = o + uv[c][1] * texel, p[1] = o + uv[c][0] * texel, p[2] = 5 + 20 * uni();
        }
        m->t[i][0] = 3 * i, m->t[i][1] = 3 * i + 1, m->t[i][2] = 3 * i + 2;
    }
}

/* The map of casters c[0 .. n) for sun `sun`, drawn by scan or by spans, into out (N x N). */
static void draw(sn_shadow *s, sn_pool *pool, const double sun[3], const sn_shadow_caster *c, size_t n, bool scan,
                 float *out)
{
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++)
        corners[k] = sn_v3(k & 1 ? 100 : 0, k & 2 ? 100 : 0, k & 4 ? 30 : 0);
    CHECK(sn_shadow_begin(s, sun, corners, 8), "begin");
    sn_shadow_set_scan(s, scan);
    CHECK(sn_shadow_draw(s, pool, c, n), "draw");
    for (int32_t y = 0; y < N; y++)
        for (int32_t x = 0; x < N; x++)
            out[(size_t)y * N + x] = sn_shadow_texel(s, x, y);
}

int main(void)
{
    mesh m[4];
    random_tris(&m[0], 20000);
    boxes(&m[1], 400);
    random_tris(&m[2], 300);
    for (uint32_t i = 0; i < m[2].n_v; i++) /* large ones: up to a few hundred texels wide */
        for (int c = 0; c < 2; c++)
            m[2].v[i][c] = 50 + 3 * (m[2].v[i][c] - 50);
    centred(&m[3], 400);
    sn_shadow_caster c[4];
    for (int k = 0; k < 4; k++)
        c[k] = (sn_shadow_caster){(const double(*)[3])m[k].v, (const uint32_t(*)[3])m[k].t, m[k].n_v, m[k].n_t};
    const double suns[3][3] = {{0, 0, 1}, {0.3, -0.2, 0.9327379}, {-0.6, 0.5, 0.6244998}};
    float *a = malloc((size_t)N * N * sizeof *a), *b = malloc((size_t)N * N * sizeof *b);
    sn_shadow *s = sn_shadow_create();
    CHECK(a && b && s, "memory");
    for (int threads = 1; threads <= 3; threads++) {
        /* a third pass: one thread, the spans' depths in SSE2 pairs where AVX2 was used */
        if (threads == 3 && !sn_lanes_wide())
            break;
        sn_lanes_set_wide(threads < 3);
        sn_pool *pool = sn_pool_create(threads == 3 ? 1 : threads);
        for (int k = 0; k < 3; k++) {
            draw(s, pool, suns[k], c, 4, true, a);
            draw(s, pool, suns[k], c, 4, false, b);
            size_t differ = 0, drawn = 0;
            for (size_t i = 0; i < (size_t)N * N; i++)
                differ += memcmp(&a[i], &b[i], sizeof *a) != 0, drawn += a[i] < 3e38f;
            CHECK(differ == 0, "sun %d, pass %d: %zu of %zu drawn texels differ from the scan", k, threads, differ, drawn);
            CHECK(drawn > (size_t)N * N / 4, "sun %d: the casters cover the map (%zu texels)", k, drawn);
        }
        sn_pool_destroy(pool);
    }
    sn_lanes_set_wide(true);
    sn_shadow_destroy(s);
    for (int k = 0; k < 4; k++)
        free(m[k].v), free(m[k].t);
    free(a), free(b);
    return CHECK_DONE();
}
