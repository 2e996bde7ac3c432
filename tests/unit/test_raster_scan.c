/* The raster's paths (engine/render/raster.c) against the plain scan they replace: every pixel
** centre of the box tested with 64-bit edge functions and the tie bias, 1/depth (wb y + wc) + wa x
** kept where strictly nearer, the triangle's number beside it. Random triangles of every shape —
** narrow and tall ones (a pole's, a wall's edge: under 24 pixels wide and hundreds tall, which
** small_tri refuses and the groups of four now take when their edge functions fit in 32 bits at
** the box's corners), small ones, wide ones, boxes cut by the image's edges — in a tall image, drawn
** in bands, with and without ids, four lanes and eight, some with corners on pixel centres (flat
** edges, centres exactly on edges: the tie rule): the same depth and id bits. */
#include "../../engine/render/lanes.h"
#include "../../engine/render/raster.h"
#include "../check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define W 260
#define H 1400
#define ONE (1 << SN_RASTER_SUB)
#define INV_FAR 0.001f

#define TEST_UNI_SEED 0x2545F4914F6CDD1Du
#include "raster_tri.h"
#include "test_uni.h"

/* A random screen triangle about sw x sh pixels around (cx, cy), 1/depth about w (set up by
** raster_tri.h, as render.c's put_tri). False when degenerate or outside. */
static bool random_tri(sn_tri *t, double cx, double cy, double sw, double sh, double w, bool snap)
{
    double sx[3], sy[3], sz[3];
    for (int i = 0; i < 3; i++)
        sx[i] = cx + sw * (uni() - 0.5), sy[i] = cy + sh * (uni() - 0.5), sz[i] = w * (0.8 + 0.4 * uni());
    for (int i = 0; snap && i < 3; i++) /* corners on pixel corners and centres: flat edges, centres on edges */
        sx[i] = 0.5 * round(2 * sx[i]), sy[i] = i == 2 && uni() < 0.5 ? sy[0] : 0.5 * round(2 * sy[i]);
    return tri_setup(t, sx, sy, sz, W, H);
}

/* the plain scan: what every path of sn_raster must give */
static void scan(float *wb, uint32_t *ib, const sn_tri *t, uint32_t ti, int32_t ya, int32_t yb)
{
    int64_t dx[3], dy[3], bias[3];
    for (int e = 0; e < 3; e++) {
        const int n = (e + 1) % 3;
        dx[e] = (int64_t)t->X[n] - t->X[e], dy[e] = (int64_t)t->Y[n] - t->Y[e];
        bias[e] = dy[e] < 0 || (dy[e] == 0 && dx[e] > 0) ? 0 : -1; /* a shared edge's centre: one side */
    }
    for (int32_t y = ya; y <= yb; y++) {
        const float row = t->wb * (float)y + t->wc;
        const int64_t py = (int64_t)y * ONE + ONE / 2;
        for (int32_t x = t->x0; x <= t->x1; x++) {
            const int64_t px = (int64_t)x * ONE + ONE / 2;
            bool in = true;
            for (int e = 0; e < 3; e++)
                in = in && dx[e] * (py - t->Y[e]) - dy[e] * (px - t->X[e]) + bias[e] >= 0;
            const float w = row + t->wa * (float)x;
            if (in && w > wb[(size_t)y * W + x]) {
                wb[(size_t)y * W + x] = w;
                if (ib)
                    ib[(size_t)y * W + x] = ti;
            }
        }
    }
}

static float wa_[W * H], wb_[W * H];
static uint32_t ia[W * H], ib[W * H];
#define ZS ((W + SN_RASTER_ZSEG - 1) / SN_RASTER_ZSEG)
static float zb[ZS * H];

int main(void)
{
    uint64_t tall = 0, drawn = 0;
    for (int scene = 0; scene < 24; scene++) {
        const bool ids = scene % 3 != 2, wide = scene % 2 == 0, bounds = scene % 4 < 2;
        for (size_t i = 0; i < W * H; i++)
            wa_[i] = wb_[i] = INV_FAR, ia[i] = ib[i] = 0xFFFFFFFFu;
        for (size_t i = 0; i < ZS * H; i++)
            zb[i] = INV_FAR;
        const sn_raster_target tb = {wb_, ids ? ib : NULL, W, bounds ? zb : NULL, ZS, 0};
        const int32_t band = scene % 3 ? 16 : H;
        enum { N = 300 };
        static sn_tri tris[N];
        uint32_t n = 0;
        while (n < N) {
            const uint32_t kind = n % 6;
            /* narrow and tall (up to the image's height and beyond), small, wide */
            const double sw = kind < 3 ? 1 + 30 * uni() : kind < 5 ? 2 + 40 * uni() : 100 + 300 * uni();
            const double sh = kind < 3 ? 60 + 2000 * uni() : kind < 5 ? 2 + 40 * uni() : 50 + 600 * uni();
            const double cx = -20 + (W + 40) * uni(), cy = -100 + (H + 200) * uni();
            if (!random_tri(&tris[n], cx, cy, sw, sh, 0.05 + uni(), n % 5 == 0))
                continue;
            tall += tris[n].x1 - tris[n].x0 < 24 && tris[n].y1 - tris[n].y0 >= 64;
            n++;
        }
        sn_lanes_set_wide(wide);
        for (int32_t y0 = 0; y0 < H; y0 += band)
            for (uint32_t k = 0; k < N; k++) {
                const int32_t ya = tris[k].y0 > y0 ? tris[k].y0 : y0;
                const int32_t yb = tris[k].y1 < y0 + band - 1 ? tris[k].y1 : y0 + band - 1;
                scan(wa_, ids ? ia : NULL, &tris[k], k, ya, yb);
                sn_raster(&tb, &tris[k], k, y0, y0 + band);
            }
        CHECK(memcmp(wa_, wb_, sizeof wa_) == 0, "scene %d: depths differ", scene);
        if (ids)
            CHECK(memcmp(ia, ib, sizeof ia) == 0, "scene %d: ids differ", scene);
        for (size_t i = 0; i < W * H; i++)
            drawn += wa_[i] != INV_FAR;
    }
    printf("raster_scan: %llu narrow tall triangles, %llu pixels drawn\n", (unsigned long long)tall, (unsigned long long)drawn);
    CHECK(tall > 1000, "only %llu narrow tall triangles", (unsigned long long)tall);
    return CHECK_DONE();
}
