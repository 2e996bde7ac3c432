/* geom.h — scenery's triangles appended to a road mesh as chunks (scenery.h): boxes, prisms,
** ellipsoids and flat quads, world frame, wound so their normals point outward. */
#ifndef SN_SCENERY_GEOM_H
#define SN_SCENERY_GEOM_H

#include "scenery.h"

typedef struct sn_sgeom {
    sn_road_mesh *m;
    size_t cap_v, cap_t, cap_c;
    uint32_t n_v0, n_t0, n_c0; /* the mesh's sizes before scenery: restored on failure */
    bool oom;
    sn_road_chunk *cur;        /* the open chunk, NULL between chunks */
} sn_sgeom;

void sn_sgeom_init(sn_sgeom *g, sn_road_mesh *m);
/* Opens a chunk of scenery category sc for instance id `inst`; rgb NULL = the category's. */
void sn_sgeom_begin(sn_sgeom *g, int sc, uint32_t inst, const uint8_t *rgb);
/* Closes the open chunk (its box); an empty chunk is dropped. */
void sn_sgeom_end(sn_sgeom *g);

/* A box standing on z0 up to z1, centred at (cx, cy), half extents hx along yaw, hy across. */
void sn_sgeom_box(sn_sgeom *g, double cx, double cy, double yaw, double hx, double hy, double z0, double z1);
/* An n-sided prism (a pole, a trunk) of radius r from z0 to z1. */
void sn_sgeom_prism(sn_sgeom *g, double cx, double cy, double r, double z0, double z1, int n);
/* An ellipsoid (a crown, a bush) centred at (cx, cy, cz), radii rh across and rz up. */
void sn_sgeom_ellipsoid(sn_sgeom *g, double cx, double cy, double cz, double rh, double rz);
/* A flat quad a, b, c, d (counter-clockwise seen from the side its normal faces). */
void sn_sgeom_quad(sn_sgeom *g, const double a[3], const double b[3], const double c[3], const double d[3]);

/* Finishes: the float copy of the new vertices and the mesh's box. false when out of memory
** or past 2^32 (the mesh is then restored to its sizes before scenery). */
bool sn_sgeom_finish(sn_sgeom *g);

#endif
