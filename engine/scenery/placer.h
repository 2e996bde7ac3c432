/* placer.h — what the scenery placer's passes share (private to engine/scenery): the rules'
** numbers (docs/scenery.md), the placer's state, and the functions of placer.c and the passes. */
#ifndef SN_SCENERY_PLACER_H
#define SN_SCENERY_PLACER_H

#include "geom.h"

#include "../core/rng.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the rules' numbers (docs/scenery.md) ---- */
#define LIGHT_STEP 30.0      /* m between street lights along one side */
#define LIGHT_OFFSET 0.6     /* m beyond the road's outer edge */
#define LIGHT_HEIGHT 7.5
#define TREE_STEP 11.0       /* m between tree slots */
#define TREE_OFFSET 2.6      /* m beyond the edge, plus up to 1.5 */
#define BUILD_SETBACK 4.5    /* m beyond the edge, plus up to 4 */
#define PILLAR_STEP 30.0     /* m between pillars under an elevated road */
#define PILLAR_MIN_Z 4.5     /* m: a road this high above the ground gets pillars */
#define RAIL_PIECE 40.0      /* m of guard rail per piece */
#define CLEAR_Z 2.5          /* m: a lane farther below a piece's base than this does not block */
#define DECK_CLEAR 1.0       /* m: a lane must pass this far above a piece's top (the deck's depth) */
#define Z_STEP 4.0           /* m between the heights a tall footprint is checked at (< 2 CLEAR_Z) */

typedef struct obb {
    double cx, cy, c, s, hx, hy; /* centre, cos/sin of yaw, half extents */
    double r;                    /* radius of its bounding circle */
} obb;

/* The placed footprints in a hashed grid of GRID_CELL m cells (chained entries; a box is in
** every cell its bounding circle touches), so a candidate meets only its neighbours. */
#define GRID_CELL 32.0
#define GRID_BUCKETS 8192u
typedef struct gent {
    uint32_t box, next; /* next entry of the bucket, UINT32_MAX at the end */
} gent;

typedef struct placer {
    const sn_map *m;
    const sn_scenery_opts *o;
    sn_sgeom g;
    sn_scenery out;
    size_t cap_objs;
    obb *boxes; /* every solid footprint placed, and the boxes to avoid */
    size_t n_boxes, cap_boxes;
    uint32_t head[GRID_BUCKETS];
    gent *ents;
    size_t n_ents, cap_ents;
    uint32_t blocked;
    bool oom;
    sn_rng rng;
    size_t cap_skipped;
} placer;

/* A uniform draw in [lo, hi) from the pass's stream. */
static inline double sn_pl_uni(placer *P, double lo, double hi) { return lo + (hi - lo) * sn_rng_uniform(&P->rng); }

/* placer.c: footprints, objects, random draws, the rules, pieces */
bool sn_pl_is_motorway(const sn_odr_road *r);
obb sn_pl_obb_of(double cx, double cy, double yaw, double hx, double hy);
bool sn_pl_add_box(placer *P, obb b);
bool sn_pl_footprint_free_mg(const placer *P, const obb *b, double z, double top, double mg);
bool sn_pl_claim(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double top, double gap);
sn_scenery_obj *sn_pl_new_obj(placer *P, int kind, uint8_t tag, double cx, double cy, double yaw, double hx, double hy, double z0, double z1);
void sn_pl_seed_stream(placer *P, uint64_t pass, uint32_t road);
void sn_pl_at(const sn_odr_road *r, double s, double t, double h, double w[3], double *yaw);
double sn_pl_edge_t(const sn_odr_road *r, const sn_odr_section *sec, int side, double s, bool *sidewalk);
void sn_pl_street_light(placer *P, double x, double y, double z, double yaw_to_road);
void sn_pl_tree(placer *P, double x, double y, double z, double trunk_h, double crown_r);
void sn_pl_bush(placer *P, double x, double y, double z, double r);
void sn_pl_building(placer *P, double cx, double cy, double yaw, double hx, double hy, double z, double h, const uint8_t rgb[3]);

/* place_street.c */
void sn_pl_keep_dead_ends_clear(placer *P);
void sn_pl_pass_lights(placer *P);
void sn_pl_pass_buildings(placer *P);
void sn_pl_pass_fill(placer *P);
void sn_pl_pass_trees(placer *P);
void sn_pl_pass_rails(placer *P);
void sn_pl_pass_pillars(placer *P);

/* place_marks.c */
void sn_pl_pass_signs(placer *P);
void sn_pl_pass_map_objects(placer *P);
void sn_pl_pass_stop_lines(placer *P, const sn_scenery_line *lines, size_t n);
void sn_pl_pass_zebras(placer *P);

/* place_furniture.c */
void sn_pl_pass_furniture(placer *P);
void sn_pl_pass_plots(placer *P);
void sn_pl_pass_patches(placer *P);

#endif
