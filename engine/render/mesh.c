/* mesh.c — tessellating the built-in shapes once. */
#include "mesh.h"

#include <math.h>
#include <pthread.h>

#define SPHERE_NV ((SN_SPHERE_STACKS + 1) * (SN_SPHERE_SLICES + 1))
#define SPHERE_NT (2 * SN_SPHERE_STACKS * SN_SPHERE_SLICES)
#define CYL_NV (2 * (SN_CYLINDER_SLICES + 1) + 2)
#define CYL_NT (4 * SN_CYLINDER_SLICES)

static float box_v[8][3];
static uint32_t box_t[12][3];
static float sphere_v[SPHERE_NV][3];
static uint32_t sphere_t[SPHERE_NT][3];
static float cyl_v[CYL_NV][3];
static uint32_t cyl_t[CYL_NT][3];
static sn_mesh box, sphere, cylinder;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Makes triangle t wind outwards (the shapes are convex and centred at the origin);
** degenerate triangles (the sphere's poles) are dropped by the caller's count. */
static bool orient(float (*v)[3], uint32_t *t)
{
    const float *a = v[t[0]], *b = v[t[1]], *c = v[t[2]];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double m[3] = {(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3};
    double d = n[0] * m[0] + n[1] * m[1] + n[2] * m[2];
    if (fabs(n[0]) + fabs(n[1]) + fabs(n[2]) < 1e-12)
        return false;
    if (d < 0) {
        uint32_t s = t[1];
        t[1] = t[2];
        t[2] = s;
    }
    return true;
}

static void build(void)
{
    /* box: 8 corners, 2 triangles per face */
    for (int i = 0; i < 8; i++) {
        box_v[i][0] = (i & 1) ? 1.f : -1.f;
        box_v[i][1] = (i & 2) ? 1.f : -1.f;
        box_v[i][2] = (i & 4) ? 1.f : -1.f;
    }
    static const uint32_t faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                                         {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    for (int f = 0; f < 6; f++) {
        uint32_t q[4] = {faces[f][0], faces[f][1], faces[f][2], faces[f][3]};
        box_t[2 * f][0] = q[0], box_t[2 * f][1] = q[1], box_t[2 * f][2] = q[2];
        box_t[2 * f + 1][0] = q[0], box_t[2 * f + 1][1] = q[2], box_t[2 * f + 1][2] = q[3];
        orient(box_v, box_t[2 * f]);
        orient(box_v, box_t[2 * f + 1]);
    }
    box = (sn_mesh){(const float(*)[3])box_v, (const uint32_t(*)[3])box_t, 8, 12, NULL, 0};

    /* sphere: latitude/longitude grid; the pole rows give one triangle per quad */
    uint32_t nv = 0, nt = 0;
    for (int i = 0; i <= SN_SPHERE_STACKS; i++) {
        double th = M_PI * i / SN_SPHERE_STACKS;
        for (int j = 0; j <= SN_SPHERE_SLICES; j++) {
            double ph = 2 * M_PI * j / SN_SPHERE_SLICES;
            sphere_v[nv][0] = (float)(sin(th) * cos(ph));
            sphere_v[nv][1] = (float)(sin(th) * sin(ph));
            sphere_v[nv][2] = (float)cos(th);
            nv++;
        }
    }
    for (int i = 0; i < SN_SPHERE_STACKS; i++)
        for (int j = 0; j < SN_SPHERE_SLICES; j++) {
            uint32_t a = (uint32_t)(i * (SN_SPHERE_SLICES + 1) + j), b = a + 1, c = a + SN_SPHERE_SLICES + 1, d = c + 1;
            uint32_t t1[3] = {a, c, b}, t2[3] = {b, c, d};
            if (orient(sphere_v, t1))
                memcpy(sphere_t[nt++], t1, sizeof t1);
            if (orient(sphere_v, t2))
                memcpy(sphere_t[nt++], t2, sizeof t2);
        }
    sphere = (sn_mesh){(const float(*)[3])sphere_v, (const uint32_t(*)[3])sphere_t, nv, nt, NULL, 0};

    /* cylinder: side quads and two caps fanned from their centres */
    nv = 0, nt = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j <= SN_CYLINDER_SLICES; j++) {
            double ph = 2 * M_PI * j / SN_CYLINDER_SLICES;
            cyl_v[nv][0] = (float)cos(ph), cyl_v[nv][1] = (float)sin(ph), cyl_v[nv][2] = k ? 1.f : -1.f;
            nv++;
        }
    uint32_t bottom = nv++, top = nv++;
    cyl_v[bottom][0] = cyl_v[bottom][1] = 0, cyl_v[bottom][2] = -1;
    cyl_v[top][0] = cyl_v[top][1] = 0, cyl_v[top][2] = 1;
    for (uint32_t j = 0; j < SN_CYLINDER_SLICES; j++) {
        uint32_t a = j, b = j + 1, c = j + SN_CYLINDER_SLICES + 1, d = c + 1;
        uint32_t tris[4][3] = {{a, b, d}, {a, d, c}, {bottom, b, a}, {top, c, d}};
        for (int q = 0; q < 4; q++)
            if (orient(cyl_v, tris[q]))
                memcpy(cyl_t[nt++], tris[q], sizeof tris[q]);
    }
    cylinder = (sn_mesh){(const float(*)[3])cyl_v, (const uint32_t(*)[3])cyl_t, nv, nt, NULL, 0};
}

void sn_mesh_init(void) { pthread_once(&once, build); }

const sn_mesh *sn_mesh_get(sn_shape shape)
{
    sn_mesh_init();
    switch (shape) {
    case SN_SHAPE_BOX: return &box;
    case SN_SHAPE_SPHERE: return &sphere;
    case SN_SHAPE_CYLINDER: return &cylinder;
    default: return NULL;
    }
}
