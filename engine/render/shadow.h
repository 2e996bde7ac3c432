/* shadow.h — the sun's shadow map: an orthographic depth image seen from the sun, fitted to
** the part of the camera's view within SN_SHADOW_DISTANCE, that says how much of the sun
** reaches a world point (percentage-closer filtered over a tent of 3x3 bilinear taps, so
** edges are soft over about two texels). Casters are the actors' meshes; the map's roads and
** ground planes receive shadows but cast none (they are the floor). Built once per RGB
** render, set up and rasterised in bands of rows on the pool: the minimum of depths is
** independent of order, so the map is the same at any thread count. */
#ifndef SN_SHADOW_H
#define SN_SHADOW_H

#include "pool.h"

#include <sensim/math.h>

#include <stdbool.h>

#define SN_SHADOW_SIZE 1024      /* texels per side */
#define SN_SHADOW_DISTANCE 80.0  /* metres of the view that get shadows */

typedef struct sn_shadow sn_shadow;

/* NULL without memory. */
sn_shadow *sn_shadow_create(void);
void sn_shadow_destroy(sn_shadow *s);
/* Gives the map's texels back for another render to draw in: after it, until the next
** sn_shadow_begin, nothing may be looked up (the renderer releases once a frame's shading is done). */
void sn_shadow_release(sn_shadow *s);

/* Starts a map for the sun direction `sun` (unit, towards the sun) covering `corners` (world
** points: the camera's view volume to be shadowed). Its texels are a set lent by the process
** (shadow_maps.h), held until sn_shadow_release or sn_shadow_destroy. false without memory. */
bool sn_shadow_begin(sn_shadow *s, const double sun[3], const sn_vec3 *corners, int n_corners);
/* Whether a caster's bounding sphere touches the map's area, and the receivers' where they are
** given (below): cheap culling before its triangles. */
bool sn_shadow_wants(sn_shadow *s, sn_vec3 centre, double radius);
/* The receivers (shadow_need.c): what this frame's lookups can reach, so that casters elsewhere
** are not drawn. A lookup reads only the texels within a few of its point's place in the map
** (SN_SHADOW_REACH), so a texel no receiver reaches is never read and the answers are the same
** bits with or without its casters. After sn_shadow_begin every texel is wanted; _need_none starts
** an empty set, and each receiver (a sphere holding a mesh, or the convex hull of world points
** holding a surface's visible part) adds the cells of SN_SHADOW_CELL texels its footprint in
** the map, widened by SN_SHADOW_REACH, touches. Between begin and sn_shadow_draw. */
#define SN_SHADOW_CELL 16
#define SN_SHADOW_REACH 8.0
void sn_shadow_need_none(sn_shadow *s);
void sn_shadow_need_sphere(sn_shadow *s, sn_vec3 centre, double radius);
void sn_shadow_need_hull(sn_shadow *s, const sn_vec3 *p, int n);
/* A caster: triangles t[0 .. n_t) over world vertices v[0 .. n_v), either winding. */
typedef struct sn_shadow_caster {
    const double (*v)[3];
    const uint32_t (*t)[3];
    uint32_t n_v, n_t;
} sn_shadow_caster;
/* Sets the casters up on the pool (each vertex into the light's frame once, then each triangle
** binned into bands of texel rows; tasks of about equal triangle counts), then rasterises them.
** false without memory. */
bool sn_shadow_draw(sn_shadow *s, sn_pool *pool, const sn_shadow_caster *casters, size_t n);
/* Tests: draw every caster row texel by texel from its box's left (the definition the drawing by
** solved spans is checked against) instead of by spans; and the depth at texel (x, y) of the map
** drawn last (FLT_MAX where nothing was drawn; a row of cells no receiver marked keeps an older
** map's values, never read by a lookup: shadow.c's draw_band). */
void sn_shadow_set_scan(sn_shadow *s, bool scan);
/* Tests: whether the fast lookup may answer a point wholly lit from its window's least
** (shadow_window.h) or wholly shadowed from its block bounds (shadow_bounds.h; the default)
** instead of its 16 comparisons. The same bits either way. */
void sn_shadow_set_bounds(sn_shadow *s, bool use);
/* Whether only the caster triangles facing the sun are drawn (the default is all). Every caster is
** a union of closed parts wound outwards (mesh.h, shapes.h, the scenery's boxes and prisms), so a
** sun ray through one meets a face towards the sun first: the nearest depths are the same but
** for the texels where a silhouette edge passes within rounding of the texel's centre (a face
** away from the sun may win or lose such a texel by its own rounding). Half the triangles and
** fills. The renderer culls unless SENSIM_EXACT_SHADING (docs/rendering.md#shadows). */
void sn_shadow_set_cull(sn_shadow *s, bool cull);
float sn_shadow_texel(const sn_shadow *s, int32_t x, int32_t y);
/* 0..1: the fraction of the sun reaching world point p with unit normal n; 1 outside the map. */
double sn_shadow_visibility(const sn_shadow *s, sn_vec3 p, const float n[3]);
/* The same for n points eye + (dx[i], dy[i], dz[i]) with unit normals (nx[i], ny[i], nz[i]), in
** single precision four at a time: vis[i] < 0 on entry asks for point i's visibility, which
** replaces it; other entries are left alone. Within 1e-5 of sn_shadow_visibility except where a
** depth comparison lies within the float error of the point's depth (about 1e-4 m at 1 km; the
** bound of docs/rendering.md "Single-precision shading"). The arrays are read and written up to
** n rounded up to 4 (the caller pads them). */
void sn_shadow_visibility_fast(const sn_shadow *s, sn_vec3 eye, const float *dx, const float *dy, const float *dz,
                               const float *nx, const float *ny, const float *nz, float *vis, size_t n);

#endif
