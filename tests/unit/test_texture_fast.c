/* The textures' single-precision batch (shade.h sn_shade_texture_fast) against the exact
** sn_shade_texture, on rows of points spaced so that a vector's lanes lie in one noise cell (its
** corners broadcast), within a block of 2 x 2 cells (its 3 x 3 corners read once and picked lane by
** lane, texture_lanes.h) and across wider spans (gathered), for the road's grain and patches, the
** paint's wear and a kerb's grain, also where the cells wrap around the noise table's period:
** every factor within 2e-5 of the exact one (shade.h), and eight lanes (AVX2, where the CPU has it)
** give four lanes' bits. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/shade.h"
#include "../check.h"

#include <math.h>
#include <string.h>

enum { N = 64 };

/* one row of N points from the eye's offset (x0, y0, -1.7) on, `step` metres apart along a
** direction at an angle, checked against the exact factor at eight and four lanes */
static void row(sn_vec3 eye, double x0, double y0, double step, uint8_t tag, float nz, double *worst)
{
    uint8_t tags[N];
    float dx[N], dy[N], dz[N], nzs[N], wide[N], four[N];
    for (int i = 0; i < N; i++) {
        tags[i] = tag, nzs[i] = nz;
        dx[i] = (float)(x0 + i * step * 0.93), dy[i] = (float)(y0 + i * step * 0.37), dz[i] = -1.7f;
        wide[i] = four[i] = 1;
    }
    sn_lanes_set_wide(true);
    sn_shade_texture_fast(eye, tags, dx, dy, dz, nzs, wide, N);
    sn_lanes_set_wide(false);
    sn_shade_texture_fast(eye, tags, dx, dy, dz, nzs, four, N);
    sn_lanes_set_wide(true);
    CHECK(memcmp(wide, four, sizeof wide) == 0, "tag %d step %g: eight lanes give four lanes' bits", tag, step);
    for (int i = 0; i < N; i++) {
        const sn_vec3 p = sn_v3(eye.x + dx[i], eye.y + dy[i], eye.z + dz[i]);
        const double d = fabs(wide[i] - sn_shade_texture(tag, p, nz));
        *worst = d > *worst ? d : *worst;
        CHECK(d <= 2e-5, "tag %d step %g point %d: |fast - exact| %.3g", tag, step, i, d);
    }
}

int main(void)
{
    sn_shade_init();
    /* the eye anywhere, and where the grain's (7 cm) lattice wraps at 256 cells near it */
    const sn_vec3 eyes[] = {{3.3, -7.1, 1.7}, {0.07 * 255.7, 0.07 * 255.8, 1.7}, {-1234.56, 789.01, 2.0}};
    /* one cell, a 2 x 2 block, wider (3 to 5 grain cells a vector), far apart */
    const double steps[] = {0.0007, 0.006, 0.03, 0.4};
    double worst = 0;
    for (size_t e = 0; e < sizeof eyes / sizeof *eyes; e++)
        for (size_t s = 0; s < sizeof steps / sizeof *steps; s++)
            for (int k = 0; k < 3; k++) { /* rows starting at different offsets within a cell */
                const double x0 = 2.0 + 0.023 * k, y0 = -1.0 + 0.031 * k;
                row(eyes[e], x0, y0, steps[s], SN_TAG_ROADS, 1, &worst);
                row(eyes[e], x0, y0, steps[s], SN_TAG_ROAD_LINE, 1, &worst);
                row(eyes[e], x0, y0, steps[s], SN_TAG_SIDEWALK, 0, &worst); /* a kerb's face */
            }
    printf("largest |fast - exact|: %.3g (at most 2e-5)\n", worst);
    return CHECK_DONE();
}
