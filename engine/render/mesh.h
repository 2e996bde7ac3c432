/* mesh.h — the built-in shapes as triangle meshes, tessellated once and cached.
**
** Unit shapes, centred at the origin, scaled per actor by its half extents at render time:
** box [-1,1]^3, sphere of radius 1, cylinder of radius 1 from z=-1 to z=1. Triangles wind so
** that (v1-v0)x(v2-v0) points out of the shape (checked when built), which the renderer's
** back-face test relies on. */
#ifndef SN_MESH_H
#define SN_MESH_H

#include "../world/world.h"

/* A closed convex piece of a mesh: triangles [first, first + count) over vertices
** [first_v, first_v + n_v), all of one material (shapes.h). Sweeps test "inside" per part. */
typedef struct sn_mesh_part {
    uint32_t first, count, first_v, n_v;
    uint8_t material;
} sn_mesh_part;

typedef struct sn_mesh {
    const float (*v)[3]; /* vertices */
    const uint32_t (*t)[3];
    uint32_t n_v, n_t;
    const sn_mesh_part *parts; /* NULL: the whole mesh is one convex part */
    uint32_t n_parts;
} sn_mesh;

/* The cached mesh of a shape, or NULL for shapes without one (plane, none). Thread-safe
** after sn_mesh_init(), which the renderer calls once. */
const sn_mesh *sn_mesh_get(sn_shape shape);
void sn_mesh_init(void);

/* Tessellation of the sphere and the cylinder: exposed for tests and documentation. */
#define SN_SPHERE_STACKS 16
#define SN_SPHERE_SLICES 32
#define SN_CYLINDER_SLICES 32

#endif
