/* scenery.h — static scenery built from the map (docs/scenery.md): buildings, trees and bushes,
** street lights, signs from the map's signals, stop-line and crosswalk paint, guard rails,
** pillars under elevated roads, and the map's own <objects> of type building, pole, tree,
** barrier.
**
** Scenery is appended to the road mesh (map/road_mesh.h) as chunks of its own, so physics
** (world/roads.c), the ray index (query/scene.c), the renderer and the shadow map meet it as
** they meet the roads. Each placed piece is one or more chunks that share an instance id
** (SN_SCENERY_ID0 + its index: never an actor's id) and carry a scenery category (tag, part,
** colour) from sn_scenery_categories; chunk->category is SN_ROAD_N_CATEGORIES + that index.
**
** Deterministic: a pure function of the map, the options, the stop lines and the boxes to
** avoid, in that order; no thread, clock or address reaches it. */
#ifndef SN_SCENERY_H
#define SN_SCENERY_H

#include "../map/road_mesh.h"

#include <stdbool.h>
#include <stdint.h>

#define SN_SCENERY_ID0 0x40000000u /* instance ids of scenery: ID0 + index (actors count up from 1) */
#define SN_SCENERY_MARGIN 0.3      /* m: a solid's footprint keeps this far from lanes and sidewalks */

/* Scenery categories (chunk->category - SN_ROAD_N_CATEGORIES). */
enum {
    SN_SC_BUILDING, SN_SC_WINDOWS, SN_SC_TRUNK, SN_SC_CROWN, SN_SC_BUSH, SN_SC_POLE, SN_SC_LAMP,
    SN_SC_SIGN_POLE, SN_SC_SIGN_STOP, SN_SC_SIGN_YIELD, SN_SC_SIGN_SPEED, SN_SC_STOP_LINE, SN_SC_ZEBRA,
    SN_SC_GUARD_RAIL, SN_SC_PILLAR, SN_SC_FENCE, SN_SC_WALL, SN_SC_FENCE_POST, SN_SC_SHELTER, SN_SC_SHELTER_PANEL,
    SN_SC_BENCH, SN_SC_BIN, SN_SC_GRASS, SN_SC_DIRT, SN_SC_N
};
extern const sn_road_category sn_scenery_categories[SN_SC_N];
/* A stand-in's blueprint-like name per scenery category ("scenery.building", ...). */
extern const char *const sn_scenery_type[SN_SC_N];

/* The category record of chunk category c, road or scenery; NULL when out of range. */
const sn_road_category *sn_chunk_category(uint32_t c);
#define SN_CHUNK_N_CATEGORIES (SN_ROAD_N_CATEGORIES + SN_SC_N)

/* What kind of piece an object is (docs/scenery.md). */
typedef enum sn_scenery_kind {
    SN_SK_BUILDING, SN_SK_TREE, SN_SK_BUSH, SN_SK_STREET_LIGHT, SN_SK_SIGN, SN_SK_STOP_LINE, SN_SK_CROSSWALK,
    SN_SK_GUARD_RAIL, SN_SK_PILLAR, SN_SK_MAP_OBJECT, SN_SK_WALL, SN_SK_FENCE, SN_SK_BUS_STOP, SN_SK_BENCH,
    SN_SK_BIN, SN_SK_GRASS, SN_SK_GROUND, SN_SK_N
} sn_scenery_kind;

/* One placed piece: its footprint (an oriented box, world frame) and what it is. */
typedef struct sn_scenery_obj {
    uint32_t instance;
    uint8_t kind, tag;  /* sn_scenery_kind; the tag of its main part */
    bool paint;         /* lies on the road (stop lines, zebras): exempt from the lane rule */
    bool from_map;      /* an OpenDRIVE <object>: where the map puts it */
    bool elevated;      /* a pillar: stands under a road, clear of the lanes below */
    double cx, cy, yaw; /* footprint centre (m) and yaw (rad, world) */
    double hx, hy;      /* half extents along yaw and across */
    double z0, z1;      /* base and top */
} sn_scenery_obj;

typedef struct sn_scenery_opts {
    uint64_t seed;
    double density;     /* 1 = the documented spacings; 0.5 half as many trees, lights, buildings */
} sn_scenery_opts;

/* A line to paint across one lane (a light's or a stop sign's stop line). */
typedef struct sn_scenery_line {
    int32_t road_id, lane_id;
    double s;
} sn_scenery_line;

/* A box scenery keeps clear of (a static actor of the scene): centre, half extents, yaw. */
typedef struct sn_scenery_avoid {
    double cx, cy, hx, hy, yaw;
} sn_scenery_avoid;

typedef struct sn_scenery {
    sn_scenery_obj *objs; /* owned */
    uint32_t n_objs;
    uint32_t counts[SN_SK_N];
    uint32_t first_chunk; /* the mesh's chunks from here on are scenery */
    /* the map's solid <object>s left out because they stand on a lane: one line each, naming
    ** it (owned; the engine warns once per load) */
    char (*skipped)[160];
    uint32_t n_skipped;
} sn_scenery;

/* Places scenery on map m and appends its chunks to `mesh` (the map's road mesh, grown in
** place: it must not be in a world yet). lines: stop lines to paint; avoid: boxes to keep
** clear of. out (may be NULL) receives the placed objects (free with sn_scenery_free). On
** failure (out of memory, too many vertices) the mesh is left as it was. */
sn_status sn_scenery_build(const sn_map *m, const sn_scenery_opts *o, const sn_scenery_line *lines, size_t n_lines,
                           const sn_scenery_avoid *avoid, size_t n_avoid, sn_road_mesh *mesh, sn_scenery *out,
                           sn_error *err);
void sn_scenery_free(sn_scenery *s); /* NULL-safe; leaves it zeroed */

/* The lane types a solid never stands on (driving, sidewalk, parking, rails ...: every type
** whose road-mesh tag is Roads, Sidewalk or RailTrack). Shoulders, borders, medians and
** "none" lanes are verges: Terrain, where trees may stand. */
uint32_t sn_scenery_blocked_types(void);

/* Whether world point (x, y) at height z lies within `margin` m of a blocked lane whose
** surface is within 2.5 m of z (a lane far above is an overpass: free beneath it). */
bool sn_scenery_on_lane(const sn_map *m, double x, double y, double z, double margin);

struct sn_engine;
/* The engine's hook (build_scene, after the scene's actors spawned): builds the scene's
** scenery when it asks for it (on by default with a map) and hands the grown mesh to the world. */
sn_status sn_scenery_add(struct sn_engine *e, sn_error *err);

#endif
