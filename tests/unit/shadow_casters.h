/* shadow_casters.h — the shadow map tests' random casters: boxes and loose triangles over a 100 m
** square (test_uni.h's numbers, so include that first with the test's seed). */
#ifndef SHADOW_CASTERS_H
#define SHADOW_CASTERS_H

#include <stdint.h>

/* n boxes and n triangles over a 100 m square: v and t sized 11 n and 13 n */
static void casters(double (*v)[3], uint32_t (*t)[3], uint32_t n)
{
    static const uint32_t faces[12][3] = {{0, 1, 3}, {0, 3, 2}, {4, 6, 7}, {4, 7, 5}, {0, 4, 5}, {0, 5, 1},
                                          {2, 3, 7}, {2, 7, 6}, {0, 2, 6}, {0, 6, 4}, {1, 5, 7}, {1, 7, 3}};
    for (uint32_t i = 0; i < n; i++) {
        double lo[3], hi[3];
        for (int c = 0; c < 3; c++)
            lo[c] = c == 2 ? 0 : 100 * uni(), hi[c] = lo[c] + (c == 2 ? 1 + 20 * uni() : 0.2 + 8 * uni());
        for (int k = 0; k < 8; k++) {
            double *p = v[8 * i + k];
            p[0] = k & 1 ? hi[0] : lo[0], p[1] = k & 2 ? hi[1] : lo[1], p[2] = k & 4 ? hi[2] : lo[2];
        }
        for (int f = 0; f < 12; f++)
            for (int c = 0; c < 3; c++)
                t[12 * i + f][c] = 8 * i + faces[f][c];
        double *q = v[8 * n + 3 * i]; /* a loose triangle, up to 6 m across */
        const double cx = 100 * uni(), cy = 100 * uni(), cz = 25 * uni(), size = 0.05 + 6 * uni();
        for (int k = 0; k < 3; k++)
            q[3 * k] = cx + size * (uni() - 0.5), q[3 * k + 1] = cy + size * (uni() - 0.5),
                  q[3 * k + 2] = cz + size * (uni() - 0.5);
        for (int c = 0; c < 3; c++)
            t[12 * n + i][c] = 8 * n + 3 * i + (uint32_t)c;
    }
}

#endif
