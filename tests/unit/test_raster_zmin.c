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

static uint64_t rng = 0x9E3779B97F4A7C15u;
static double uni(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static int64_t first_px(int64_t lo) { return (lo - ONE / 2 + ONE - 1) >> SN_RASTER_SUB; }
static int64_t last_px(int64_t hi) { return (hi - ONE / 2) >> SN_RASTER_SUB; }

/* A random screen triangle of about `size` pixels, 1/depth about `w` (render.c's put_tri: the
** plane through the corners, fixed-point corners wound positive, the box inside the image).
** False when degenerate or outside. */
static bool random_tri(sn_tri *t, double size, double w)
{
    double sx[3], sy[3], sw[3];
    const double cx = -40 + (W + 80) * uni(), cy = -20 + (H + 40) * uni();
    for (int i = 0; i < 3; i++)
        sx[i] = cx + size * (uni() - 0.5), sy[i] = cy + size * (uni() - 0.5), sw[i] = w * (0.8 + 0.4 * uni());
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; i++)
        X[i] = llround(sx[i] * ONE), Y[i] = llround(sy[i] * ONE);
    const int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
    if (area == 0)
        return false;
    if (area < 0) { /* wound positive */
        int64_t tx = X[1], ty = Y[1];
        X[1] = X[2], Y[1] = Y[2], X[2] = tx, Y[2] = ty;
    }
    const double det = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (fabs(det) < 1e-6)
        return false;
    const double A = ((sw[1] - sw[0]) * (sy[2] - sy[0]) - (sw[2] - sw[0]) * (sy[1] - sy[0])) / det;
    const double B = ((sw[2] - sw[0]) * (sx[1] - sx[0]) - (sw[1] - sw[0]) * (sx[2] - sx[0])) / det;
    const double C = sw[0] - A * sx[0] - B * sy[0];
    int64_t lx = X[0], hx = X[0], ly = Y[0], hy = Y[0];
    for (int i = 1; i < 3; i++) {
        lx = X[i] < lx ? X[i] : lx, hx = X[i] > hx ? X[i] : hx;
        ly = Y[i] < ly ? Y[i] : ly, hy = Y[i] > hy ? Y[i] : hy;
    }
    int64_t x0 = first_px(lx), x1 = last_px(hx), y0 = first_px(ly), y1 = last_px(hy);
    x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0, x1 = x1 > W - 1 ? W - 1 : x1, y1 = y1 > H - 1 ? H - 1 : y1;
    if (x0 > x1 || y0 > y1)
        return false;
    for (int i = 0; i < 3; i++)
        t->X[i] = (int32_t)X[i], t->Y[i] = (int32_t)Y[i];
    t->x0 = (int32_t)x0, t->x1 = (int32_t)x1, t->y0 = (int32_t)y0, t->y1 = (int32_t)y1;
    t->wa = (float)A, t->wb = (float)B, t->wc = (float)(C + 0.5 * A + 0.5 * B);
    return true;
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
