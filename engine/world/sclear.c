/* sclear.c — see sclear.h. */
#include "sclear.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sn_sclear_free(sn_sclear *c)
{
    free(c->bits);
    memset(c, 0, sizeof *c);
}

static const dGeomID *geom_at(const dGeomID *g, size_t k, size_t stride)
{
    return (const dGeomID *)(const void *)((const char *)g + k * stride);
}

/* The padded x-y box of a triangle or a geom, in cells; false when it lies off the grid. */
static bool cells(const sn_sclear *c, double x0, double x1, double y0, double y1, size_t r[4])
{
    double a = floor((x0 - SN_SCLEAR_PAD - c->x0) * c->inv), b = floor((x1 + SN_SCLEAR_PAD - c->x0) * c->inv);
    double d = floor((y0 - SN_SCLEAR_PAD - c->y0) * c->inv), e = floor((y1 + SN_SCLEAR_PAD - c->y0) * c->inv);
    if (!(b >= 0 && e >= 0 && a < (double)c->nx && d < (double)c->ny)) /* NaN too */
        return false;
    r[0] = a < 0 ? 0 : (size_t)a, r[1] = b >= (double)c->nx ? c->nx - 1 : (size_t)b;
    r[2] = d < 0 ? 0 : (size_t)d, r[3] = e >= (double)c->ny ? c->ny - 1 : (size_t)e;
    return true;
}

static void mark(sn_sclear *c, double x0, double x1, double y0, double y1)
{
    size_t r[4];
    if (!cells(c, x0, x1, y0, y1, r))
        return;
    for (size_t y = r[2]; y <= r[3]; y++)
        for (size_t x = r[0]; x <= r[1]; x++) {
            size_t i = y * c->nx + x;
            c->bits[i >> 6] |= (uint64_t)1 << (i & 63);
        }
}

bool sn_sclear_build(sn_sclear *c, const dGeomID *g, size_t n, size_t stride, bool (*is_surface)(dGeomID))
{
    c->on = false;
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    size_t marked = 0;
    for (size_t k = 0; k < n; k++) {
        dGeomID s = *geom_at(g, k, stride);
        if (is_surface(s))
            continue;
        dReal b[6];
        dGeomGetAABB(s, b);
        for (int j = 0; j < 4; j++)
            if (!(fabs(b[j]) < 1e9))
                return true; /* a static without a finite box: clear nowhere */
        lo[0] = fmin(lo[0], b[0]), hi[0] = fmax(hi[0], b[1]);
        lo[1] = fmin(lo[1], b[2]), hi[1] = fmax(hi[1], b[3]);
        marked++;
    }
    if (!marked) { /* one cell, clear */
        lo[0] = lo[1] = 0;
        hi[0] = hi[1] = 0;
    }
    double cell = 0.5;
    for (;;) {
        double nx = floor((hi[0] - lo[0] + 2 * SN_SCLEAR_PAD) / cell) + 1, ny = floor((hi[1] - lo[1] + 2 * SN_SCLEAR_PAD) / cell) + 1;
        if (nx * ny <= (double)SN_SCLEAR_MAX_CELLS && nx <= 65535 && ny <= 65535) {
            c->nx = (size_t)nx, c->ny = (size_t)ny;
            break;
        }
        cell *= 2;
    }
    c->inv = 1 / cell;
    c->x0 = lo[0] - SN_SCLEAR_PAD, c->y0 = lo[1] - SN_SCLEAR_PAD;
    size_t words = (c->nx * c->ny + 63) / 64;
    if (words > c->cap) {
        uint64_t *w = realloc(c->bits, words * sizeof *w);
        if (!w)
            return false;
        c->bits = w;
        c->cap = words;
    }
    memset(c->bits, 0, words * sizeof *c->bits);
    for (size_t k = 0; k < n; k++) {
        dGeomID s = *geom_at(g, k, stride);
        if (is_surface(s))
            continue;
        if (dGeomGetClass(s) == dTriMeshClass) {
            int nt = dGeomTriMeshGetTriangleCount(s);
            for (int t = 0; t < nt; t++) {
                dVector3 p[3];
                dGeomTriMeshGetTriangle(s, t, &p[0], &p[1], &p[2]);
                mark(c, fmin(p[0][0], fmin(p[1][0], p[2][0])), fmax(p[0][0], fmax(p[1][0], p[2][0])),
                     fmin(p[0][1], fmin(p[1][1], p[2][1])), fmax(p[0][1], fmax(p[1][1], p[2][1])));
            }
        } else {
            dReal b[6];
            dGeomGetAABB(s, b);
            mark(c, b[0], b[1], b[2], b[3]);
        }
    }
    c->on = true;
    return true;
}

static bool range_clear(const sn_sclear *c, size_t x0, size_t x1, size_t y0, size_t y1)
{
    for (size_t y = y0; y <= y1; y++)
        for (size_t x = x0; x <= x1; x++) {
            size_t i = y * c->nx + x;
            if (c->bits[i >> 6] >> (i & 63) & 1)
                return false;
        }
    return true;
}

/* Cells a memo's rectangle reaches beyond the query's, each way: a wheel at 10 m/s crosses a
** 0.5 m cell in five substeps. */
#define MEMO_MARGIN 2

bool sn_sclear_clear(const sn_sclear *c, const dReal box[6], sn_sclear_memo *memo)
{
    if (!c->on)
        return false;
    size_t r[4];
    if (!(box[0] <= box[1] && box[2] <= box[3]))
        return false; /* NaN */
    if (!cells(c, box[0], box[1], box[2], box[3], r))
        return true; /* off the grid: nothing but surfaces stands there */
    if (memo && memo->w && r[0] >= memo->x && r[1] < (size_t)memo->x + memo->w && r[2] >= memo->y &&
        r[3] < (size_t)memo->y + memo->h)
        return true;
    if (memo) {
        /* A wider rectangle first, to be remembered; then the query's own. */
        size_t x0 = r[0] >= MEMO_MARGIN ? r[0] - MEMO_MARGIN : 0, y0 = r[2] >= MEMO_MARGIN ? r[2] - MEMO_MARGIN : 0;
        size_t x1 = r[1] + MEMO_MARGIN < c->nx ? r[1] + MEMO_MARGIN : c->nx - 1;
        size_t y1 = r[3] + MEMO_MARGIN < c->ny ? r[3] + MEMO_MARGIN : c->ny - 1;
        memo->w = 0;
        if (x1 - x0 < 255 && y1 - y0 < 255 && range_clear(c, x0, x1, y0, y1)) {
            *memo = (sn_sclear_memo){(uint16_t)x0, (uint16_t)y0, (uint8_t)(x1 - x0 + 1), (uint8_t)(y1 - y0 + 1)};
            return true;
        }
    }
    return range_clear(c, r[0], r[1], r[2], r[3]);
}
