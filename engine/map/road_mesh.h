/* road_mesh.h — a map's surfaces as triangles in the world frame: lanes, kerbs and painted
** marks, each triangle with a semantic tag and a colour, for physics, the renderer and rays.
**
** Built once from a loaded map (lanemap.h) and read-only afterwards. Triangles come in chunks:
** a run of triangles of one category (tag, part, colour) over at most SN_ROAD_PIECE metres of
** one lane section of one road, so each chunk's box is local (physics makes one ODE trimesh
** per chunk; rays and the renderer cull by it). A chunk's vertices are its own: its triangles
** index them from 0, so a chunk is a self-contained mesh.
**
** Geometry (docs/map-geometry.md):
**  - every lane with width is a strip between its two borders; sidewalks are raised by
**    SN_ROAD_KERB with a vertical kerb face where they meet a lane that is not raised;
**  - painted marks are strips SN_ROAD_MARK_LIFT above the lane they belong to: solid, broken
**    (CARLA's 3 m of paint, 6 m gap), double lines as two strips;
**  - s steps are chosen so that no true lane border (or mark edge) is farther than
**    SN_ROAD_TOL from the mesh edge that stands for it (the chord rule, road_mesh.c);
**  - triangles wind counter-clockwise seen from above (normals +z in the world frame, after
**    CARLA's y flip); kerb faces wind so their normals point to the lower lane.
** Order is a pure function of the map: roads in file order, sections, pieces along s, lanes
** from the rightmost to the leftmost, then categories in table order. */
#ifndef SN_MAP_ROAD_MESH_H
#define SN_MAP_ROAD_MESH_H

#include "lanemap.h"

#include "../core/error.h"

#include <stdint.h>

#define SN_ROAD_TOL 0.02        /* m: the largest distance of a true border from the mesh */
#define SN_ROAD_PIECE 50.0      /* m of s: the longest stretch one chunk covers */
#define SN_ROAD_KERB 0.15       /* m: sidewalks stand this high above the road */
#define SN_ROAD_MARK_LIFT 0.015 /* m: painted marks float this far above their lane */
#define SN_ROAD_DASH 3.0        /* m: paint of a broken line (CARLA's) */
#define SN_ROAD_GAP 6.0         /* m: gap of a broken line (CARLA's) */

/* What a chunk is to physics: surfaces are ground (support, never a collision), kerb faces
** are obstacles (a hit counts), marks are paint (not in physics: they would be 1.5 cm steps). */
typedef enum sn_road_part { SN_ROAD_SURFACE = 0, SN_ROAD_KERB_FACE = 1, SN_ROAD_MARK = 2 } sn_road_part;

typedef struct sn_road_category {
    uint8_t tag;    /* sn_semantic_tag */
    uint8_t part;   /* sn_road_part */
    uint8_t rgb[3];
} sn_road_category;

/* The categories, in the order chunks of one piece are laid out. */
#define SN_ROAD_N_CATEGORIES 10
extern const sn_road_category sn_road_categories[SN_ROAD_N_CATEGORIES];

typedef struct sn_road_chunk {
    uint32_t first, count;     /* triangles t[first .. first + count) */
    uint32_t v_first, v_count; /* vertices v[v_first .. v_first + v_count): the triangles' indices are from v_first */
    uint8_t category;          /* index into sn_road_categories */
    uint8_t tag, part, rgb[3]; /* the category's, copied */
    int32_t road;              /* index of the road in the network */
    double lo[3], hi[3];       /* box of its vertices, world frame */
    uint32_t instance;         /* 0 for the roads; a scenery piece's id (scenery/scenery.h) */
} sn_road_chunk;

typedef struct sn_road_mesh {
    double (*v)[3];            /* world frame */
    float (*vf)[3];            /* the same in single precision (renderer, rays) */
    uint32_t (*t)[3];          /* chunk-local indices */
    uint32_t n_v, n_t;
    sn_road_chunk *chunks;
    uint32_t n_chunks;
    double lo[3], hi[3];       /* box of every vertex (inverted when empty) */
} sn_road_mesh;

/* The semantic tag of a lane type (sn_lane_type flag): Roads, Sidewalk, Terrain, RailTrack;
** 0 for none. */
uint8_t sn_road_lane_tag(uint32_t lane_type);

/* Tessellates every road of the map. A map without roads gives an empty mesh. */
sn_status sn_road_mesh_build(const sn_map *m, sn_road_mesh **out, sn_error *err);
void sn_road_mesh_free(sn_road_mesh *rm); /* NULL-safe */
/* A whole copy of m (the caller frees it with sn_road_mesh_free); NULL without memory. */
sn_road_mesh *sn_road_mesh_dup(const sn_road_mesh *m);

#endif
