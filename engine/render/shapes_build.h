/* shapes_build.h — building a model's mesh from convex pieces (boxes, prisms, cylinders), for
** shapes_vehicle.c and shapes_walker.c.
**
** One builder serves two jobs: building a model's topology once (triangles and parts, with
** `t` set) and posing it for one actor (vertices only, `t` NULL). A model's builder emits the
** same pieces in the same order whatever the actor's extents and articulation, so the
** triangles built once index the vertices written by every later pose. Triangles are wound
** outwards when a part closes (each part is convex: its triangles face away from its
** centroid); every pose moves a part rigidly or scales it along positive axes, which keeps
** that winding. */
#ifndef SN_SHAPES_BUILD_H
#define SN_SHAPES_BUILD_H

#include "shapes.h"

typedef struct sn_mb {
    float (*v)[3];
    uint32_t n_v, cap_v;
    uint32_t (*t)[3]; /* NULL when posing */
    uint32_t n_t, cap_t;
    sn_mesh_part *parts; /* NULL when posing */
    uint32_t n_parts, cap_parts;
    bool overflow;       /* more than the capacities: the model is wrong (a test catches it) */
} sn_mb;

/* A rigid frame: local point p is o + R p in the model's coordinates (metres from the box
** centre, actor axes). */
typedef struct sn_mb_frame {
    sn_vec3 o;
    sn_mat3 R;
} sn_mb_frame;

/* Rotation by `a` radians about z (x towards y) then about the result's y (z towards x). */
sn_mb_frame sn_mb_frame_zy(sn_vec3 o, double about_z, double about_y);

/* Starts a part of material m (ending the one before). */
void sn_mb_part(sn_mb *b, sn_material m);
/* Ends the last part. */
void sn_mb_end(sn_mb *b);

/* A box [lo, hi] in frame f (lo <= hi per axis; equal gives a flat, still closed, piece). */
void sn_mb_box(sn_mb *b, const sn_mb_frame *f, sn_vec3 lo, sn_vec3 hi);
/* A convex polygon xz[0..n) of the x-z plane (in order around it), extruded across y to
** |y| <= hw0 + hw_dz (z - xz[0][1]): a half width that may narrow with height (a cabin). */
void sn_mb_prism(sn_mb *b, const double (*xz)[2], int n, double hw0, double hw_dz);
/* A cylinder of radius r about frame f's y axis from y = y0 to y1, `slices` sides. */
void sn_mb_cylinder(sn_mb *b, const sn_mb_frame *f, double r, double y0, double y1, int slices);

/* The model builders (shapes_vehicle.c, shapes_walker.c, shapes_twowheel.c). */
void sn_build_vehicle(sn_mb *b, sn_model m, const sn_model_state *s);
void sn_build_walker(sn_mb *b, const sn_model_state *s);
void sn_build_twowheel(sn_mb *b, sn_model m, const sn_model_state *s); /* shapes_twowheel.c */
double sn_twowheel_wheel_radius(sn_model m, sn_vec3 ext);

#endif
