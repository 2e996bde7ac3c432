/* The raster's coarse depth (engine/render/raster.c, raster.h's zmin): a wide triangle's row or
** span that is nowhere nearer than its segments' bounds is skipped, a drawn span raises them.
** Against drawing without it, the same depth and id bits at every pixel: random triangles (wide
** and small, near ones first and far ones behind them, rising and falling 1/depth across the
** row, boxes partly outside the image), exact copies of earlier triangles (ties: the first keeps
** the pixel), several bands drawn separately; and after every scene each bound is at most the
** least 1/depth of its segment (what makes the skip exact) and some bounds have risen (the skip
** is not vacuous). The drawing without it runs four lanes (SSE2), the one with it eight where the
** CPU has AVX2 (lanes.h): a span's last group under eight, masked (span8), gives the same bits as
** four lanes and single pixels; W is no multiple of 8, so spans reaching the row's end take the
** narrow tail. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/raster.h"
#include "../check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define W 700
#define H 96
#define ONE (1 << SN_RASTER_SUB)
#define INV_FAR 0.001f

#define TEST_UNI_SEED 0x9E3779B97F4A7C15u
#include "raster_tri.h"
#include "test_uni.h"

/* A random screen triangle of about `size` pixels, 1/depth about `w` (set up by raster_tri.h,
** as render.c's put_tri).
** False when degenerate or outside. */
static bool random_tri(sn_tri *t, double size, double w)
{
    double sx[3], sy[3], sw[3];
    const double cx = -40 + (W + 80) * uni(), cy = -20 + (H + 40) * uni();
    for (int i = 0; i < 3; i++)
        sx[i] = cx + size * (uni() - 0.5), sy[i] = cy + size * (uni() - 0.5), sw[i] = w * (0.8 + 0.4 * uni());
    return tri_setup(t, sx, sy, sw, W, H);
}

static float wa_[W * H], wb_[W * H];
static uint32_t ia[W * H], ib[W * H];
#define ZS ((W + SN_RASTER_ZSEG - 1) / SN_RASTER_ZSEG)
static float zb[ZS * H];

int main(void)
{
    uint64_t raised = 0, segs = 0, drawn = 0;
    for (int scene = 0; scene < 60; scene++) {
        const bool ids = scene % 3 != 2; /* depth alone keeps no ids */
        for (size_t i = 0; i < W * H; i++)
            wa_[i] = wb_[i] = INV_FAR, ia[i] = ib[i] = 0xFFFFFFFFu;
        for (size_t i = 0; i < ZS * H; i++)
            zb[i] = INV_FAR;
        const sn_raster_target ta = {wa_, ids ? ia : NULL, W, NULL, 0, 0}, tb = {wb_, ids ? ib : NULL, W, zb, ZS, 0};
        const int32_t band = scene % 2 ? 16 : H; /* bands drawn one after another, or the image at once */
        enum { N = 400 };
        static sn_tri tris[N];
        uint32_t n = 0;
        while (n < N) {
            sn_tri *t = &tris[n];
            const uint32_t kind = n % 8;
            if (kind == 7 && n > 0) { /* an exact copy of an earlier one: ties keep the first */
                *t = tris[(uint32_t)(uni() * n)];
            } else {
                /* near ones early, far ones later (mostly hidden), some wide, some small */
                const double w = n < N / 4 ? 0.5 + 0.5 * uni() : 0.05 + 0.6 * uni();
                const double size = kind < 3 ? 200 + 600 * uni() : kind < 5 ? 30 + 60 * uni() : 3 + 20 * uni();
                if (!random_tri(t, size, w))
                    continue;
            }
            n++;
        }
        for (int32_t y0 = 0; y0 < H; y0 += band)
            for (uint32_t k = 0; k < N; k++) {
                sn_lanes_set_wide(false);
                sn_raster(&ta, &tris[k], k, y0, y0 + band);
                sn_lanes_set_wide(true);
                sn_raster(&tb, &tris[k], k, y0, y0 + band);
            }
        CHECK(memcmp(wa_, wb_, sizeof wa_) == 0, "scene %d: depths differ", scene);
        if (ids)
            CHECK(memcmp(ia, ib, sizeof ia) == 0, "scene %d: ids differ", scene);
        for (size_t i = 0; i < W * H; i++)
            drawn += wa_[i] != INV_FAR;
        /* every bound at most its segment's least 1/depth */
        for (int32_t y = 0; y < H; y++)
            for (int32_t s = 0; s < ZS; s++) {
                float least = INFINITY;
                for (int32_t x = s * SN_RASTER_ZSEG; x < (s + 1) * SN_RASTER_ZSEG && x < W; x++)
                    least = wb_[(size_t)y * W + x] < least ? wb_[(size_t)y * W + x] : least;
                CHECK(zb[(size_t)y * ZS + s] <= least, "scene %d row %d segment %d: bound %g above %g", scene, y, s,
                      (double)zb[(size_t)y * ZS + s], (double)least);
                segs++, raised += zb[(size_t)y * ZS + s] > INV_FAR;
            }
    }
    printf("raster_zmin: eight lanes %s; %llu pixels drawn, %llu of %llu bounds raised\n", sn_lanes_wide() ? "on" : "off (no AVX2)", (unsigned long long)drawn,
           (unsigned long long)raised, (unsigned long long)segs);
    CHECK(raised > segs / 4, "%llu of %llu bounds raised", (unsigned long long)raised, (unsigned long long)segs);
    return CHECK_DONE();
}
