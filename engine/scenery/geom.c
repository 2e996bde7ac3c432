/* geom.c — scenery's primitives appended to the road mesh (geom.h). */
#include "geom.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sn_sgeom_init(sn_sgeom *g, sn_road_mesh *m)
{
    memset(g, 0, sizeof *g);
    g->m = m;
    /* the road mesh's arrays are exactly as long as they are full: grow them from there */
    g->cap_v = g->n_v0 = m->n_v;
    g->cap_t = g->n_t0 = m->n_t;
    g->cap_c = g->n_c0 = m->n_chunks;
}

void sn_sgeom_begin(sn_sgeom *g, int sc, uint32_t inst, const uint8_t *rgb)
{
    sn_road_mesh *m = g->m;
    g->cur = NULL;
    if (g->oom || !sn_grow((void **)&m->chunks, &g->cap_c, (size_t)m->n_chunks + 1, sizeof *m->chunks)) {
        g->oom = true;
        return;
    }
    sn_road_chunk *k = &m->chunks[m->n_chunks];
    memset(k, 0, sizeof *k);
    const sn_road_category *c = &sn_scenery_categories[sc];
    k->first = m->n_t, k->v_first = m->n_v;
    k->category = (uint8_t)(SN_ROAD_N_CATEGORIES + sc);
    k->tag = c->tag, k->part = c->part;
    memcpy(k->rgb, rgb ? rgb : c->rgb, 3);
    k->road = -1;
    k->instance = inst;
    g->cur = k;
}

void sn_sgeom_end(sn_sgeom *g)
{
    sn_road_chunk *k = g->cur;
    g->cur = NULL;
    if (!k || g->oom)
        return;
    sn_road_mesh *m = g->m;
    k->count = m->n_t - k->first, k->v_count = m->n_v - k->v_first;
    if (!k->count) {
        m->n_v = k->v_first;
        return;
    }
    for (int d = 0; d < 3; d++)
        k->lo[d] = INFINITY, k->hi[d] = -INFINITY;
    for (uint32_t i = k->v_first; i < m->n_v; i++)
        for (int d = 0; d < 3; d++)
            k->lo[d] = fmin(k->lo[d], m->v[i][d]), k->hi[d] = fmax(k->hi[d], m->v[i][d]);
    m->n_chunks++;
}

/* Vertex (x, y, z): its chunk-local index. */
static uint32_t vert(sn_sgeom *g, double x, double y, double z)
{
    sn_road_mesh *m = g->m;
    if (g->oom || !g->cur || m->n_v >= UINT32_MAX - 1 ||
        !sn_grow((void **)&m->v, &g->cap_v, (size_t)m->n_v + 1, sizeof *m->v)) {
        g->oom = true;
        return 0;
    }
    m->v[m->n_v][0] = x, m->v[m->n_v][1] = y, m->v[m->n_v][2] = z;
    return m->n_v++ - g->cur->v_first;
}

static void tri(sn_sgeom *g, uint32_t a, uint32_t b, uint32_t c)
{
    sn_road_mesh *m = g->m;
    if (g->oom || !g->cur || m->n_t >= UINT32_MAX - 1 ||
        !sn_grow((void **)&m->t, &g->cap_t, (size_t)m->n_t + 1, sizeof *m->t)) {
        g->oom = true;
        return;
    }
    m->t[m->n_t][0] = a, m->t[m->n_t][1] = b, m->t[m->n_t][2] = c;
    m->n_t++;
}

static void quad_idx(sn_sgeom *g, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    tri(g, a, b, c);
    tri(g, a, c, d);
}

void sn_sgeom_box(sn_sgeom *g, double cx, double cy, double yaw, double hx, double hy, double z0, double z1)
{
    const double cs = cos(yaw), sn = sin(yaw);
    uint32_t i[8];
    for (int k = 0; k < 8; k++) {
        double lx = k & 1 ? hx : -hx, ly = k & 2 ? hy : -hy;
        i[k] = vert(g, cx + lx * cs - ly * sn, cy + lx * sn + ly * cs, k & 4 ? z1 : z0);
    }
    /* outward faces (checked by the cross product of their first two edges) */
    quad_idx(g, i[0], i[2], i[3], i[1]); /* -z */
    quad_idx(g, i[4], i[5], i[7], i[6]); /* +z */
    quad_idx(g, i[0], i[1], i[5], i[4]); /* -y */
    quad_idx(g, i[2], i[6], i[7], i[3]); /* +y */
    quad_idx(g, i[0], i[4], i[6], i[2]); /* -x */
    quad_idx(g, i[1], i[3], i[7], i[5]); /* +x */
}

void sn_sgeom_prism(sn_sgeom *g, double cx, double cy, double r, double z0, double z1, int n)
{
    uint32_t first = 0;
    for (int k = 0; k < n; k++) {
        double a = 2 * M_PI * k / n;
        uint32_t lo = vert(g, cx + r * cos(a), cy + r * sin(a), z0);
        vert(g, cx + r * cos(a), cy + r * sin(a), z1);
        if (!k)
            first = lo;
    }
    for (int k = 0; k < n; k++) {
        uint32_t a0 = first + 2 * (uint32_t)k, b0 = first + 2 * (uint32_t)((k + 1) % n);
        quad_idx(g, a0, b0, b0 + 1, a0 + 1); /* side, counter-clockwise seen from outside */
    }
    for (int k = 1; k + 1 < n; k++) {
        tri(g, first + 1, first + 2 * (uint32_t)k + 1, first + 2 * (uint32_t)(k + 1) + 1); /* top: up */
        tri(g, first, first + 2 * (uint32_t)(k + 1), first + 2 * (uint32_t)k);             /* bottom: down */
    }
}

void sn_sgeom_ellipsoid(sn_sgeom *g, double cx, double cy, double cz, double rh, double rz)
{
    enum { SL = 8, ST = 5 }; /* slices around, stacks from the bottom pole to the top pole */
    uint32_t bottom = vert(g, cx, cy, cz - rz);
    for (int j = 1; j < ST; j++) {
        double ph = M_PI * j / ST - M_PI / 2, rr = rh * cos(ph), z = cz + rz * sin(ph);
        for (int k = 0; k < SL; k++) {
            double a = 2 * M_PI * (k + 0.5 * (j & 1)) / SL;
            vert(g, cx + rr * cos(a), cy + rr * sin(a), z);
        }
    }
    uint32_t top = vert(g, cx, cy, cz + rz);
    const uint32_t ring0 = bottom + 1;
    for (int k = 0; k < SL; k++) {
        uint32_t a = ring0 + (uint32_t)k, b = ring0 + (uint32_t)((k + 1) % SL);
        tri(g, bottom, b, a);
        uint32_t c = ring0 + (ST - 2) * SL + (uint32_t)k, d = ring0 + (ST - 2) * SL + (uint32_t)((k + 1) % SL);
        tri(g, top, c, d);
    }
    for (int j = 0; j + 2 < ST; j++)
        for (int k = 0; k < SL; k++) {
            uint32_t a = ring0 + (uint32_t)(j * SL + k), b = ring0 + (uint32_t)(j * SL + (k + 1) % SL);
            uint32_t c = ring0 + (uint32_t)((j + 1) * SL + k), d = ring0 + (uint32_t)((j + 1) * SL + (k + 1) % SL);
            quad_idx(g, a, b, d, c);
        }
}

void sn_sgeom_quad(sn_sgeom *g, const double a[3], const double b[3], const double c[3], const double d[3])
{
    uint32_t i = vert(g, a[0], a[1], a[2]);
    vert(g, b[0], b[1], b[2]);
    vert(g, c[0], c[1], c[2]);
    vert(g, d[0], d[1], d[2]);
    quad_idx(g, i, i + 1, i + 2, i + 3);
}

bool sn_sgeom_finish(sn_sgeom *g)
{
    sn_road_mesh *m = g->m;
    if (!g->oom && m->n_v > g->n_v0) {
        float(*vf)[3] = realloc(m->vf, (size_t)m->n_v * sizeof *vf);
        if (!vf) {
            g->oom = true;
        } else {
            m->vf = vf;
            for (uint32_t i = g->n_v0; i < m->n_v; i++)
                for (int d = 0; d < 3; d++) {
                    vf[i][d] = (float)m->v[i][d];
                    m->lo[d] = fmin(m->lo[d], m->v[i][d]), m->hi[d] = fmax(m->hi[d], m->v[i][d]);
                }
        }
    }
    if (g->oom) {
        m->n_v = g->n_v0, m->n_t = g->n_t0, m->n_chunks = g->n_c0;
        return false;
    }
    return true;
}
