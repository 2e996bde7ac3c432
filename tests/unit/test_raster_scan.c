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

static uint64_t rng = 0x2545F4914F6CDD1Du;
static double uni(void) /* [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static int64_t first_px(int64_t lo) { return (lo - ONE / 2 + ONE - 1) >> SN_RASTER_SUB; }
static int64_t last_px(int64_t hi) { return (hi - ONE / 2) >> SN_RASTER_SUB; }

/* A random screen triangle about sw x sh pixels around (cx, cy), 1/depth about w (render.c's
** put_tri, as test_raster_zmin's). False when degenerate or outside. */
static bool random_tri(sn_tri *t, double cx, double cy, double sw, double sh, double w, bool snap)
{
    double sx[3], sy[3], sz[3];
    for (int i = 0; i < 3; i++)
        sx[i] = cx + sw * (uni() - 0.5), sy[i] = cy + sh * (uni() - 0.5), sz[i] = w * (0.8 + 0.4 * uni());
    for (int i = 0; snap && i < 3; i++) /* corners on pixel corners and centres: flat edges, centres on edges */
        sx[i] = 0.5 * round(2 * sx[i]), sy[i] = i == 2 && uni() < 0.5 ? sy[0] : 0.5 * round(2 * sy[i]);
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; i++)
        X[i] = llround(sx[i] * ONE), Y[i] = llround(sy[i] * ONE);
    const int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
    if (area == 0)
        return false;
    if (area < 0) {
        int64_t tx = X[1], ty = Y[1];
        X[1] = X[2], Y[1] = Y[2], X[2] = tx, Y[2] = ty;
    }
    const double det = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (fabs(det) < 1e-6)
        return false;
    const double A = ((sz[1] - sz[0]) * (sy[2] - sy[0]) - (sz[2] - sz[0]) * (sy[1] - sy[0])) / det;
    const double B = ((sz[2] - sz[0]) * (sx[1] - sx[0]) - (sz[1] - sz[0]) * (sx[2] - sx[0])) / det;
    const double C = sz[0] - A * sx[0] - B * sy[0];
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
