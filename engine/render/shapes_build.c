/* shapes_build.c — the convex pieces models are made of (shapes_build.h). */
#include "shapes_build.h"

#include <math.h>

sn_mb_frame sn_mb_frame_zy(sn_vec3 o, double about_z, double about_y)
{
    double cz = cos(about_z), sz = sin(about_z), cy = cos(about_y), sy = sin(about_y);
    sn_mat3 z = {{cz, -sz, 0, sz, cz, 0, 0, 0, 1}}, y = {{cy, 0, sy, 0, 1, 0, -sy, 0, cy}};
    return (sn_mb_frame){o, sn_mat3_mul(&z, &y)};
}

static uint32_t vert(sn_mb *b, const sn_mb_frame *f, double x, double y, double z)
{
    if (b->n_v >= b->cap_v) {
        b->overflow = true;
        return 0;
    }
    sn_vec3 p = f ? sn_v3_add(f->o, sn_mat3_apply(&f->R, sn_v3(x, y, z))) : sn_v3(x, y, z);
    b->v[b->n_v][0] = (float)p.x, b->v[b->n_v][1] = (float)p.y, b->v[b->n_v][2] = (float)p.z;
    return b->n_v++;
}

static void tri(sn_mb *b, uint32_t i, uint32_t j, uint32_t k)
{
    if (!b->t)
        return;
    if (b->n_t >= b->cap_t) {
        b->overflow = true;
        return;
    }
    b->t[b->n_t][0] = i, b->t[b->n_t][1] = j, b->t[b->n_t][2] = k;
    b->n_t++;
}

static void quad(sn_mb *b, uint32_t i, uint32_t j, uint32_t k, uint32_t l)
{
    tri(b, i, j, k);
    tri(b, i, k, l);
}

/* Winds the last part's triangles away from its centroid (the part is convex). */
static void close_part(sn_mb *b)
{
    if (!b->parts || !b->n_parts)
        return;
    sn_mesh_part *p = &b->parts[b->n_parts - 1];
    p->count = b->n_t - p->first;
    p->n_v = b->n_v - p->first_v;
    if (!p->n_v)
        return;
    double c[3] = {0, 0, 0};
    for (uint32_t i = p->first_v; i < b->n_v; i++)
        for (int k = 0; k < 3; k++)
            c[k] += b->v[i][k];
    for (int k = 0; k < 3; k++)
        c[k] /= p->n_v;
    for (uint32_t i = p->first; i < b->n_t; i++) {
        uint32_t *t = b->t[i];
        const float *a = b->v[t[0]], *u = b->v[t[1]], *w = b->v[t[2]];
        double e1[3] = {u[0] - a[0], u[1] - a[1], u[2] - a[2]}, e2[3] = {w[0] - a[0], w[1] - a[1], w[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        double m[3] = {(a[0] + u[0] + w[0]) / 3 - c[0], (a[1] + u[1] + w[1]) / 3 - c[1], (a[2] + u[2] + w[2]) / 3 - c[2]};
        if (n[0] * m[0] + n[1] * m[1] + n[2] * m[2] < 0) {
            uint32_t s = t[1];
            t[1] = t[2];
            t[2] = s;
        }
    }
}

void sn_mb_part(sn_mb *b, sn_material m)
{
    close_part(b);
    if (!b->parts)
        return;
    if (b->n_parts >= b->cap_parts) {
        b->overflow = true;
        return;
    }
    b->parts[b->n_parts++] = (sn_mesh_part){b->n_t, 0, b->n_v, 0, (uint8_t)m};
}

void sn_mb_end(sn_mb *b) { close_part(b); }

void sn_mb_box(sn_mb *b, const sn_mb_frame *f, sn_vec3 lo, sn_vec3 hi)
{
    uint32_t v0 = b->n_v;
    for (int i = 0; i < 8; i++)
        vert(b, f, (i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z);
    static const uint8_t faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    for (int k = 0; k < 6; k++)
        quad(b, v0 + faces[k][0], v0 + faces[k][1], v0 + faces[k][2], v0 + faces[k][3]);
}

void sn_mb_prism(sn_mb *b, const double (*xz)[2], int n, double hw0, double hw_dz)
{
    uint32_t v0 = b->n_v;
    for (int i = 0; i < n; i++) {
        double hw = hw0 + hw_dz * (xz[i][1] - xz[0][1]);
        vert(b, NULL, xz[i][0], hw, xz[i][1]);
        vert(b, NULL, xz[i][0], -hw, xz[i][1]);
    }
    for (int i = 1; i + 1 < n; i++) {
        tri(b, v0, v0 + 2 * i, v0 + 2 * i + 2);
        tri(b, v0 + 1, v0 + 2 * i + 1, v0 + 2 * i + 3);
    }
    for (int i = 0; i < n; i++) {
        uint32_t j = (uint32_t)(i + 1) % (uint32_t)n;
        quad(b, v0 + 2 * i, v0 + 2 * j, v0 + 2 * j + 1, v0 + 2 * i + 1);
    }
}

void sn_mb_cylinder(sn_mb *b, const sn_mb_frame *f, double r, double y0, double y1, int slices)
{
    uint32_t c0 = vert(b, f, 0, y0, 0), c1 = vert(b, f, 0, y1, 0), v0 = b->n_v;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < slices; j++) {
            double a = 2 * M_PI * j / slices;
            vert(b, f, r * cos(a), k ? y1 : y0, r * sin(a));
        }
    for (int j = 0; j < slices; j++) {
        uint32_t a = v0 + (uint32_t)j, n = v0 + (uint32_t)(j + 1) % (uint32_t)slices;
        quad(b, a, n, n + (uint32_t)slices, a + (uint32_t)slices);
        tri(b, c0, n, a);
        tri(b, c1, a + (uint32_t)slices, n + (uint32_t)slices);
    }
}
