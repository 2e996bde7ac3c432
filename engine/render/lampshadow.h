/* lampshadow.h — street lights' shadows (docs/rendering.md "Night"): what stands between a
** street lamp and a surface point takes the lamp's light away. The occluders are the bounding
** boxes of the world's actors (vehicles, walkers, props, buildings: not sensors nor ground
** planes), posed for the render; each lamp keeps the boxes within 15 m, so a pixel tests only
** those of the lamps near it, exactly (a segment against an oriented box: hard edges), and only
** where the lamp's light there is at least SN_LAMP_SHADOW_MIN (under one level of 255 below).
** The scenery's solid meshes (buildings, walls, fences, poles, signs, trees, bushes, shelters,
** benches, bins, pillars, guard rails; not flat paint, ground patches, window bands or the lamp
** heads) cast lamp shadows by their triangles, exactly: each lamp keeps the SN_LAMP_SHADOW_SCENERY
** nearest pieces within 15 m, found once per road mesh (static, like the lamps). Pure functions
** of the world: the same at any thread count. */
#ifndef SN_LAMPSHADOW_H
#define SN_LAMPSHADOW_H

#include "headlights.h"

#define SN_LAMP_SHADOW_REACH 15.0 /* m: boxes farther from a lamp (centre, less their radius) cast none */
#define SN_LAMP_SHADOW_MIN 0.004  /* a lamp's irradiance below which its shadow is not looked up */
#define SN_LAMP_SHADOW_SCENERY 32 /* scenery chunks kept per lamp (the nearest): the cost bound */

/* An oriented box: centre, unit axes (rows), half extents, and its bounding radius. */
typedef struct sn_occluder {
    sn_vec3 c;
    sn_vec3 ax[3];
    double e[3];
    double rad;
} sn_occluder;

/* Gives spots [first, L->n) (street lamps) their occluders: every actor box of w posed at alpha
** within SN_LAMP_SHADOW_REACH of the lamp (beyond, its shadow falls where the lamp is faint), and
** the scenery chunks of w->roads within that reach (sc_first, sc_n; the table of every lamp's is
** built at the first call for a road mesh and kept in L->sc). False when out of memory. */
bool sn_lamp_occluders_build(sn_lamps *L, const sn_world *w, double alpha, size_t first);

/* Whether one of spot s's boxes or scenery chunks cuts the segment from p to the lamp
** (v = lamp - p, d = |v|). A box the segment starts inside (the lit surface's own actor) does not
** count; a chunk counts where the segment enters it (crosses a triangle whose outward face looks
** towards p) more than 1 cm from p, so a lit surface never shades itself. */
bool sn_lamp_occluded(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d);

/* How many scenery pieces (chunks) street lamp s keeps (its sc_n counts groups of triangles). */
uint32_t sn_lamp_scenery_pieces(const sn_lamps *L, const sn_spot *s);

/* The same, given the direction's cell (sn_lamp_dir_cell): the cells only choose which scenery
** groups to test, and a group is listed in every cell its directions (widened by 1e-9 rad) meet,
** so the answer is every group's (SN_LAMP_CELL_ALL tests them all: the tests' reference);
** cell SN_LAMP_CELL_FROM_V: sn_lamp_dir_cell(v), found only when the scenery is tested. */
#define SN_LAMP_CELL_FROM_V UINT32_MAX
#define SN_LAMP_CELL_ALL (UINT32_MAX - 1)
bool sn_lamp_occluded_cell(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell);
/* sn_lamp_occluded_cell in two parts, for the lanes (lamps_avx2.c), which test the boxes' bounding
** spheres four at a time: box o's slabs (the test after its sphere's), and the scenery's groups. The
** answer is whether any box or group cuts the segment, so the order the parts run in does not
** change it. */
bool sn_lamp_box_cut(const sn_occluder *o, sn_vec3 p, sn_vec3 v, double d);
bool sn_lamp_scenery_cut(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell);
/* The cell of the direction from a street lamp to p (v = lamp - p) without atan2: bins of
** pseudo-angles, the azimuth's y / (|x| + |y|) unfolded and the elevation's z / (|z| + h)
** (lampshadow.c); a square root, two divisions, no loop. */
uint32_t sn_lamp_dir_cell(sn_vec3 v);
#define SN_LAMP_CELLS_A 64 /* the cells: bins of the azimuth's pseudo-angle */
#define SN_LAMP_CELLS_E 32 /* and of the elevation's */

/* Frees L->sc (sn_lamps_free calls it). */
void sn_lamp_scenery_free(struct sn_lamp_scenery *sc);

#endif
