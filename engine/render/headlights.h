/* headlights.h — vehicles' lights at night: spot lights from the headlamps of every vehicle whose
** light state has a beam on, and the glow of lit lamps (docs/vehicle-lights.md).
**
** The headlights are spots without shadows, added to the sun and the sky light in the shading
** pass, and only at night: scaled by 1 - day (day as the sky's, docs/rendering.md), since
** CARLA's auto-exposure hides them by day. Spots are binned once per render in a grid over x, y
** so a pixel tests only the few near it. Pure functions of the world: the same at any thread
** count. */
#ifndef SN_HEADLIGHTS_H
#define SN_HEADLIGHTS_H

#include "../world/world.h"
#include "shapes.h"

/* A beam: its intensity falls off as a Gaussian of the angle from its axis, separately across
** (azimuth, about world z) and up and down (elevation), sharper above the axis than below (a
** low beam's cut-off). */
typedef struct sn_spot {
    sn_vec3 pos;        /* world: the lamp */
    double hx, hy;      /* the axis's horizontal direction (unit) */
    double el0;         /* the axis's elevation, rad (a low beam dips) */
    double sig_h, sig_below, sig_above; /* rad */
    double intensity;   /* irradiance on a surface facing it 1 m away on the axis (the sun's is sun_intensity) */
    double range;       /* m: the beam fades to 0 there */
    uint32_t occ_first, occ_n; /* a street lamp's shadow casters: L->occ[occ_first ..] (lampshadow.h); 0: none */
    uint32_t chunk;     /* a street lamp: its head's chunk in the road mesh + 1 (scenery shadows); 0: none */
    uint32_t sc_first, sc_n; /* its scenery occluders (lampshadow.h), set with occ_first */
} sn_spot;

struct sn_occluder;
struct sn_lamp_scenery;

typedef struct sn_lamps {
    sn_spot *spots;
    size_t n, cap;
    double x0, y0, cell;       /* the grid: cell (i, j) covers [x0 + i cell, ...) x [y0 + j cell, ...) */
    uint32_t nx, ny;
    uint32_t *start, *items;   /* spots of cell c: items[start[c] .. start[c + 1]) */
    size_t cap_start, cap_items;
    bool shadows;              /* street lamps cast shadows (lampshadow.h); the renderer sets it */
    bool exact;                /* every lamp by the exact form (no table: sn_renderer_set_exact_shading) */
    struct sn_occluder *occ, *cand; /* each street lamp's occluders; the frame's candidates */
    size_t n_occ, cap_occ, n_cand, cap_cand;
    struct sn_lamp_scenery *sc; /* the scenery's occluders per street lamp, kept while the roads stay */
    /* the items' lamps in columns for the lanes (lamps_avx2.c): per item k, x, y, z, range^2 and
    ** intensity at lane[k], lane[k + lane_n], ... ; lane_kind[k] its SN_LANE_* bits. Three items
    ** of slack past the last (range^2 -1: reach nothing), so four lanes may read past a cell's end */
    double *lane;
    uint8_t *lane_kind;
    size_t lane_n, cap_lane, cap_lane_kind;
    /* the occluders' bounding spheres in columns: centre x, y, z and radius^2 of occ[k] at
    ** occ_lane[k], occ_lane[k + occ_lane_n], ...; three of slack (radius^2 -1: never met) */
    double *occ_lane;
    size_t occ_lane_n, cap_occ_lane;
} sn_lamps;

#define SN_LANE_STREET 1u /* a street lamp (chunk != 0): the fast falloff applies */
#define SN_LANE_SHADOW 2u /* it has occluders (occ_n or sc_n) */

/* This render's headlights: every vehicle's beams (at its pose at alpha) that could light
** something within far metres of eye, scaled by `night` (0..1; 0 gives none). False when out
** of memory. */
bool sn_lamps_build(sn_lamps *L, const sn_world *w, double alpha, double night, sn_vec3 eye, double far);
/* The headlights' irradiance at p (unit normal n, towards the eye's side), added to rgb. The
** sum E is compressed to 1.5 E / (1.5 + E), standing in for a camera's exposure: a wall in a car's
** beams a few metres ahead stays lit, not white. */
/* Street lamps by a table unless L->exact (nightlights.h sn_street_falloff: the falloff within
** 1.5e-6 of its value, the azimuth's 5e-6 dropped; the shadows' answers the same); headlights
** always exactly. */
/* Appends a spot (before binning: from sn_lamps_build's helpers). False when out of memory. */
bool sn_lamps_add(sn_lamps *L, const sn_spot *s);
/* On CPUs with AVX2 (lanes.h sn_lanes_wide) and off the exact switch, the street lamps' fast
** path runs four lamps at a time in double lanes (lamps_avx2.c): every operation rounds as the
** one-lamp loop's and the sum is taken in the same order, so the same bits. */
void sn_lamps_light(const sn_lamps *L, sn_vec3 p, const float n[3], double rgb[3]);
/* One lamp's light at p by the exact form (v = lamp - p, d2 = |v|^2, dot = n . v), its shadow
** included: 0 where it gives none. sn_lamps_light's reference, and the lanes' for what they leave. */
double sn_lamp_exact_light(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d2, double dot);
/* The sum of the fast path over items k0 .. k1 of a cell, four lamps at a time (lamps_avx2.c;
** only where the CPU has AVX2, and not under L->exact). */
double sn_lamps_sum_avx2(const sn_lamps *L, uint32_t k0, uint32_t k1, sn_vec3 p, const float n[3]);
/* lampshadow.h sn_lamp_occluded_cell as the lanes answer it (the boxes' spheres four at a time). */
bool sn_lamp_occluded_avx2(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d, uint32_t cell);
/* lampshadow.h sn_lamp_dir_cell of four directions at once, as the lanes find them (the tests'). */
void sn_lamp_dir_cells_avx2(const double vx[4], const double vy[4], const double vz[4], uint32_t cell[4]);
void sn_lamps_free(sn_lamps *L);

/* How brightly a part of material mat glows on actor a from its lights (0: not at all): lit
** headlamps and tail lamps, brighter tail lamps when braking. Added to the part's light. */
double sn_lamp_glow(const sn_actor *a, sn_material mat);

#endif
