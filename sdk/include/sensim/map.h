/*
** sensim/map.h — the road map: an OpenDRIVE file as lanes, waypoints, spawn points and road
** marks, in CARLA's shape (carla.Map, carla.Waypoint).
**
**   sn_map *m = sn_map_open("maps/town.xodr", &err);          // or sn_engine_map(engine)
**   sn_waypoint wp;
**   sn_map_waypoint(m, (sn_vec3){10, 2, 0}, true, SN_LANE_DRIVING, &wp, &err);
**   sn_waypoint next[8]; size_t n;
**   sn_map_next(m, &wp, 2.0, next, 8, &n, &err);             // every branch 2 m ahead
**   sn_map_close(m);
**
** Axes are CARLA's: a map enters the world as CARLA loads it, world x = OpenDRIVE x,
** world y = -OpenDRIVE y, yaw = -heading, so coordinates on CARLA's own towns match CARLA's.
**
** Ownership: sn_map_open returns a map the caller closes; sn_engine_map's belongs to the
** engine (do not close it). Results go to caller-owned buffers. A map is read-only once
** loaded: any number of threads may query it at once.
*/
#ifndef SENSIM_MAP_H
#define SENSIM_MAP_H

#include <sensim/abi.h>
#include <sensim/types.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sn_error;
typedef struct sn_map sn_map;

/* CARLA's carla.LaneType, the same bit values, so masks combine with |. */
typedef enum sn_lane_type {
    SN_LANE_NONE = 1u << 0,
    SN_LANE_DRIVING = 1u << 1,
    SN_LANE_STOP = 1u << 2,
    SN_LANE_SHOULDER = 1u << 3,
    SN_LANE_BIKING = 1u << 4,
    SN_LANE_SIDEWALK = 1u << 5,
    SN_LANE_BORDER = 1u << 6,
    SN_LANE_RESTRICTED = 1u << 7,
    SN_LANE_PARKING = 1u << 8,
    SN_LANE_BIDIRECTIONAL = 1u << 9,
    SN_LANE_MEDIAN = 1u << 10,
    SN_LANE_SPECIAL1 = 1u << 11,
    SN_LANE_SPECIAL2 = 1u << 12,
    SN_LANE_SPECIAL3 = 1u << 13,
    SN_LANE_ROADWORKS = 1u << 14,
    SN_LANE_TRAM = 1u << 15,
    SN_LANE_RAIL = 1u << 16,
    SN_LANE_ENTRY = 1u << 17,
    SN_LANE_EXIT = 1u << 18,
    SN_LANE_OFFRAMP = 1u << 19,
    SN_LANE_ONRAMP = 1u << 20
} sn_lane_type;
#define SN_LANE_ANY 0xFFFFFFFEu /* CARLA's Any: every type but NONE (a mask, beyond an enum's int) */

/* CARLA's carla.LaneMarkingType. */
typedef enum sn_lane_marking_type {
    SN_MARK_OTHER = 0,
    SN_MARK_BROKEN = 1,
    SN_MARK_SOLID = 2,
    SN_MARK_SOLID_SOLID = 3,
    SN_MARK_SOLID_BROKEN = 4,
    SN_MARK_BROKEN_SOLID = 5,
    SN_MARK_BROKEN_BROKEN = 6,
    SN_MARK_BOTTS_DOTS = 7,
    SN_MARK_GRASS = 8,
    SN_MARK_CURB = 9,
    SN_MARK_NONE = 10
} sn_lane_marking_type;

/* CARLA's carla.LaneMarkingColor (Standard is White). */
typedef enum sn_lane_marking_color {
    SN_MARK_WHITE = 0,
    SN_MARK_BLUE = 1,
    SN_MARK_GREEN = 2,
    SN_MARK_RED = 3,
    SN_MARK_YELLOW = 4,
    SN_MARK_COLOR_OTHER = 5
} sn_lane_marking_color;

/* CARLA's carla.LaneChange: which way a vehicle may cross a marking. */
typedef enum sn_lane_change {
    SN_LANE_CHANGE_NONE = 0,
    SN_LANE_CHANGE_RIGHT = 1,
    SN_LANE_CHANGE_LEFT = 2,
    SN_LANE_CHANGE_BOTH = 3
} sn_lane_change;

/* CARLA's carla.LaneMarking. A plain value (frozen layout). */
typedef struct sn_lane_marking {
    uint8_t type;        /* sn_lane_marking_type */
    uint8_t color;       /* sn_lane_marking_color */
    uint8_t lane_change; /* sn_lane_change */
    double width;        /* m */
} sn_lane_marking;

/*
** CARLA's carla.Waypoint: a point on a lane's centre. A plain value (frozen layout); fill it
** only through the map, which checks it (road, section and lane must exist).
*/
typedef struct sn_waypoint {
    uint64_t id;            /* CARLA's: a hash of road, section, lane and s (equal waypoints, equal ids) */
    int32_t road_id, section_id, lane_id; /* section_id: index of the lane section in its road */
    double s;               /* metres along the road's reference line */
    sn_transform transform; /* on the lane centre; yaw along the lane's direction of travel */
    double lane_width;      /* m */
    uint32_t lane_type;     /* one sn_lane_type */
    int32_t junction_id;    /* -1 when not in a junction */
    bool is_junction;
    uint8_t lane_change;    /* sn_lane_change: CARLA's lane_change */
    sn_lane_marking left_marking, right_marking; /* relative to the direction of travel */
} sn_waypoint;

/* A summary of a map (sn_map_info). Set struct_size = sizeof(sn_map_info). */
typedef struct sn_map_info {
    uint32_t struct_size;
    const char *name;        /* the header's name, else the file's stem */
    const char *path;
    uint32_t rev_major, rev_minor;
    uint32_t roads, junction_roads, junctions, lanes; /* lanes: per lane section, centre lanes excluded */
    double driving_km;       /* length of the drivable lanes' centres (driving, ramps, entries, exits) */
    uint32_t signals, traffic_lights, objects, crosswalks;
    bool has_geo_reference;
    sn_geo_location geo_reference; /* of the world origin, from the header's +lat_0 +lon_0 */
    sn_vec3 bounds_min, bounds_max; /* of every lane, world frame */
    uint32_t warnings;
} sn_map_info;

/* CARLA's carla.TrafficLightState, the same values. */
typedef enum sn_traffic_light_state {
    SN_TL_RED = 0,
    SN_TL_YELLOW = 1,
    SN_TL_GREEN = 2,
    SN_TL_OFF = 3,
    SN_TL_UNKNOWN = 4
} sn_traffic_light_state;

/* What governs a lane (host->landmarks_ahead, ABI 1.6): the map's signals as the autopilot
** obeys them (docs/traffic.md, "Signals on lanes"; CARLA's SignalType.cpp numbers). */
typedef enum sn_landmark_kind {
    SN_LANDMARK_LIGHT = 1u << 0, /* a traffic light's stop line */
    SN_LANDMARK_STOP = 1u << 1,  /* a stop sign's line (OpenDRIVE type 206) */
    SN_LANDMARK_YIELD = 1u << 2, /* a yield sign's line (205) */
    SN_LANDMARK_SPEED = 1u << 3  /* a speed-limit sign (274) */
} sn_landmark_kind;

/* One light or sign ahead of an actor along its route (host->landmarks_ahead). An array
** element: the host steps through the caller's array by out[0].struct_size (set it in the
** first element, sizeof(sn_landmark)); the struct grows at its end. */
typedef struct sn_landmark {
    uint32_t struct_size;
    uint32_t kind;          /* one sn_landmark_kind */
    uint32_t actor_id;      /* the light's actor; 0 for signs */
    int32_t signal_id;      /* the OpenDRIVE signal's id */
    uint32_t state;         /* lights: sn_traffic_light_state now; signs: SN_TL_UNKNOWN */
    double limit;           /* speed signs: m/s; 0 otherwise */
    double distance;        /* m along the route from the actor's lane position to the line */
    sn_waypoint line;       /* the stop line (a speed sign: where it applies) on the route's lane */
} sn_landmark;

/* Opens an OpenDRIVE file (ASAM 1.4-1.6). A malformed file is SN_E_INVALID naming FILE:LINE
** and the element. Close with sn_map_close. */
SN_API sn_map *sn_map_open(const char *path, struct sn_error *err);
/* The same from memory (`name` stands for the file in messages). */
SN_API sn_map *sn_map_open_memory(const char *xml, size_t size, const char *name, struct sn_error *err);
SN_API void sn_map_close(sn_map *m); /* NULL-safe */

/*
** The map cache (docs/batch.md, "Runs that share a map"): while it is on, an engine of this
** process that loads a scene whose map file was loaded before - the same path, the same bytes,
** compared whole on every load - shares that parsed map, its road mesh and the mesh's physics
** data (read-only) instead of building them again, and copies the scenery built for the same
** scenery options, stop lines and static boxes (sharing the grown mesh the same way). Everything a run writes is byte-identical to a load without it; a file
** that changed is parsed again. `sensim batch` turns it on and forks its runs from a process
** that loaded the map once. Off by default (an application that keeps one engine gains
** nothing); turning it off drops what it holds (maps still in use are freed with their
** engines). Thread-safe.
*/
SN_API void sn_map_cache_enable(bool on);
/* Whether the cache is on (so that code turning it on for a while can restore what it found). */
SN_API bool sn_map_cache_enabled(void);
/* What the cache holds and has saved: maps held, loads that reused a map, loads that reused
** scenery. Any pointer may be NULL. */
SN_API void sn_map_cache_stats(size_t *maps, uint64_t *map_hits, uint64_t *scenery_hits);

SN_API sn_status sn_map_info_get(const sn_map *m, sn_map_info *out, struct sn_error *err);
/* Warnings the loader gave (one line each, "FILE:LINE: <element>: what"); NULL past the end. */
SN_API const char *sn_map_warning(const sn_map *m, size_t i);

/*
** CARLA's get_waypoint(location, project_to_road, lane_type): the waypoint on the centre of
** the lane (of a type in `lane_types`) that holds `location`, at its s. With project_to_road,
** a point on no such lane goes to the nearest one; without it, SN_E_NOT_FOUND. A location
** farther than 50 m from every lane is SN_E_NOT_FOUND either way.
*/
SN_API sn_status sn_map_waypoint(const sn_map *m, sn_vec3 location, bool project_to_road, uint32_t lane_types,
                                 sn_waypoint *out, struct sn_error *err);
/* CARLA's get_waypoint_xodr(road_id, lane_id, s). */
SN_API sn_status sn_map_waypoint_xodr(const sn_map *m, int32_t road_id, int32_t lane_id, double s,
                                      sn_waypoint *out, struct sn_error *err);

/*
** CARLA's next(d) / previous(d): the waypoints `distance` (> 0) metres ahead of (behind) wp
** along its direction of travel, one per branch through junctions. The first min(cap, *n)
** go to out (*n counts all). Branches are in a fixed order (road id, then lane id).
*/
SN_API sn_status sn_map_next(const sn_map *m, const sn_waypoint *wp, double distance, sn_waypoint *out, size_t cap,
                             size_t *n, struct sn_error *err);
SN_API sn_status sn_map_previous(const sn_map *m, const sn_waypoint *wp, double distance, sn_waypoint *out,
                                 size_t cap, size_t *n, struct sn_error *err);
/* CARLA's next_until_lane_end(d): waypoints every `distance` m (0.01 .. 1e6) to the end of wp's lane (its
** road's end, before any junction); more than 10 million waypoints is SN_E_RANGE. */
SN_API sn_status sn_map_next_until_lane_end(const sn_map *m, const sn_waypoint *wp, double distance,
                                            sn_waypoint *out, size_t cap, size_t *n, struct sn_error *err);
/* CARLA's previous_until_lane_start(d): the same, against the direction of travel, to the lane's
** start on its road. */
SN_API sn_status sn_map_previous_until_lane_start(const sn_map *m, const sn_waypoint *wp, double distance,
                                                  sn_waypoint *out, size_t cap, size_t *n, struct sn_error *err);
/* CARLA's Junction (waypoint.get_junction() of a waypoint with is_junction): junction `id`'s box
** (axis-aligned, around the edges of every lane of its connecting roads) into *box, and for each
** lane of `lane_types` (sn_lane_type flags) of those roads, road by road, section by section, its
** waypoints at its start and end along its direction of travel: pairs in out (the first
** min(cap, *n) waypoints; *n counts all). SN_E_NOT_FOUND for an id no road names. */
SN_API sn_status sn_map_junction(const sn_map *m, int32_t id, uint32_t lane_types, sn_bbox *box, sn_waypoint *out,
                                 size_t cap, size_t *n, struct sn_error *err);
/* CARLA's get_left_lane() / get_right_lane(), relative to the direction of travel, of any
** type: SN_E_NOT_FOUND when there is none. */
SN_API sn_status sn_map_left_lane(const sn_map *m, const sn_waypoint *wp, sn_waypoint *out, struct sn_error *err);
SN_API sn_status sn_map_right_lane(const sn_map *m, const sn_waypoint *wp, sn_waypoint *out, struct sn_error *err);

/* CARLA's generate_waypoints(d): every `distance` m on every driving lane. */
SN_API sn_status sn_map_generate_waypoints(const sn_map *m, double distance, sn_waypoint *out, size_t cap,
                                           size_t *n, struct sn_error *err);
/* CARLA's get_topology(): pairs (out[2i] start, out[2i+1] end) of the driving lanes' segments
** from one junction or map edge to the next. *n counts waypoints (twice the pairs). */
SN_API sn_status sn_map_topology(const sn_map *m, sn_waypoint *out, size_t cap, size_t *n, struct sn_error *err);
/*
** CARLA's get_spawn_points(): on every driving lane outside junctions, every 20 m along it
** (the first 10 m from its start), 0.5 m above the road (CARLA lifts its spawn points so a
** vehicle's box clears the road), heading along the lane. docs/map.md has the rule.
*/
SN_API sn_status sn_map_spawn_points(const sn_map *m, sn_transform *out, size_t cap, size_t *n,
                                     struct sn_error *err);

/* A lane marking crossed between two points (what a lane invasion sensor reports). */
typedef struct sn_mark_crossing {
    sn_lane_marking marking;
    sn_vec3 location;        /* where the segment crosses it, world frame */
    int32_t road_id, lane_id; /* the lane whose border it is (outer border of lane_id) */
} sn_mark_crossing;

/* The markings the segment from a to b crosses, in order from a, at most cap of them (*n
** counts all). Markings of type NONE are not reported. */
SN_API sn_status sn_map_marks_crossed(const sn_map *m, sn_vec3 a, sn_vec3 b, sn_mark_crossing *out, size_t cap,
                                      size_t *n, struct sn_error *err);

/* The OpenDRIVE file's text (CARLA's to_opendrive), owned by the map, NUL-terminated. */
SN_API const char *sn_map_to_opendrive(const sn_map *m, size_t *size);

/* The map a loaded scene names (settings `map:`), owned by the engine; NULL when none. */
struct sn_engine;
SN_API const sn_map *sn_engine_map(const struct sn_engine *e);
/* CARLA's geo-reference (GeoLocation::Transform, as the GNSS sensor applies it): a world location
** as latitude, longitude (degrees) and altitude (m) from a reference at the world origin. The
** world's reference is the scene's settings.georeference, else its map's header (geoReference's
** +lat_0 +lon_0), else 0, 0, 0: sn_engine_georeference; a map of one's own has its header's
** (sn_map_info.geo_reference). A non-finite location gives NaNs. */
SN_API sn_geo_location sn_geolocation(const sn_geo_location *reference, sn_vec3 location);
SN_API sn_geo_location sn_engine_georeference(const struct sn_engine *e);

/* The map a run folder's run.json names (every run with outputs writes one: docs/cli.md, "The
** run folder"), resolved against the folder, into path[cap]. SN_E_NOT_FOUND when the folder has
** no run.json or it names no map (absent, null or ""); SN_E_INVALID when run.json is not a JSON
** object (it is read as JSON, any spacing). The map file itself is not opened. */
SN_API sn_status sn_run_map_path(const char *run_dir, char *path, size_t cap, struct sn_error *err);

#ifdef __cplusplus
}
#endif

#endif
