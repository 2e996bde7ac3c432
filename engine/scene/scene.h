/* scene.h — a parsed, schema-checked scene file (before blueprints are consulted).
**
** The parser checks structure and types (every error names file:line:col); attribute values
** stay strings with their position, because only the blueprint knows their type. */
#ifndef SN_SCENE_SCENE_H
#define SN_SCENE_SCENE_H

#include "../core/strpool.h"

#include <sensim/sensim.h>

/* Where something was written, for messages: a line and column of the scene file, or, with
** line 0, the override numbered col (from 1) in sn_scene.sets that it came from. 8 bytes, not
** 16 with a pointer to the override: a scene entry keeps four, and a city has 10 000 entries. */
typedef struct sn_srcpos {
    int line, col;
} sn_srcpos;

/* "file:line:col", or "file: --set PATH=VALUE" for a value that came from an override. */
typedef struct sn_where {
    char s[SN_ERROR_MAX];
} sn_where;
struct sn_scene;
sn_where sn_scene_where(const struct sn_scene *s, sn_srcpos pos);
/* The "PATH=VALUE" of the override a position is in, NULL for a position in the file. */
const char *sn_scene_set_of(const struct sn_scene *s, sn_srcpos pos);

typedef struct sn_scene_attr {
    char *key;
    char *value; /* as CARLA writes it: "90", "true", "255,0,0"; lists joined with ',' */
    sn_srcpos key_pos, value_pos;
} sn_scene_attr;

typedef struct sn_scene_call {
    double at; /* seconds */
    char *method;
    char **args;
    uint32_t n_args;
    sn_srcpos pos;
} sn_scene_call;

/* CARLA Traffic Manager's per-vehicle knobs; NAN = CARLA's default (docs/traffic.md). */
typedef struct sn_tm_knobs {
    double distance_to_leading_vehicle;  /* m */
    double speed_difference;             /* vehicle_percentage_speed_difference, % below the limit */
    double ignore_lights;                /* ignore_lights_percentage, % */
} sn_tm_knobs;

/* The parts of an entry that few entries write: spawn and destroy times, velocity, a walker's
** control, autopilot and lights (actors), calls and save (sensors). Allocated at the first of them (parse), NULL in
** sn_scene_entity.more before: a scene keeps its entries for resets and scheduled spawns, and
** 0.2 KiB in each of 10 000 plain vehicles and sensors was a twentieth of a vehicle's memory. */
typedef struct sn_scene_more {
    double spawn_at, destroy_at; /* seconds; < 0 = at start / never */

    /* actors only */
    bool has_velocity;
    sn_vec3 velocity;
    sn_vec3 walk_direction;     /* walkers: control {direction, speed} */
    double walk_speed;          /* < 0: not given */
    bool has_autopilot;
    sn_vec3 *route;
    uint32_t n_route;
    double target_speed;
    bool loop_route;
    bool map_autopilot;   /* autopilot without a route: follow the map's lanes */
    sn_tm_knobs knobs;
    sn_srcpos autopilot_pos;
    bool has_light_state;
    uint32_t light_state; /* vehicles: sn_vehicle_light bits (CARLA's VehicleLightState) */

    /* sensors only */
    sn_scene_call *calls;
    uint32_t n_calls;
    char *save_path;      /* cameras: save {path, converter}; NULL when not saving */
    char *save_converter; /* "raw" when not given */
    sn_srcpos save_pos;
    bool no_stream;       /* stream: false: no DIR/<name>.msgpack (save: files, listeners as before) */
} sn_scene_more;

typedef struct sn_scene_entity {
    char *name;      /* name, blueprint and attach_to: in the scene's string pool, read-only */
    char *blueprint;
    sn_srcpos pos, name_pos, blueprint_pos, attach_pos;
    sn_transform transform;
    char *attach_to; /* NULL when free-standing */
    sn_scene_attr *attrs;
    uint32_t n_attrs;
    bool has_control;            /* actors */
    sn_vehicle_control control;  /* vehicles */
    sn_scene_more *more;         /* owned; NULL when the entry writes none of it (sn_scene_more_of) */
} sn_scene_entity;

/* e->more, or the values of an entry that writes none of it (nothing given, speeds < 0). */
const sn_scene_more *sn_scene_more_of(const sn_scene_entity *e);

typedef struct sn_scene_settings {
    double fixed_delta_seconds;    /* default 0.05 */
    uint64_t frames;               /* 0 = from duration */
    double duration;               /* seconds, used when frames == 0 */
    uint64_t seed;
    double max_substep_delta_time; /* default 0.01 */
    int max_substeps;              /* default 10 */
    /* lighting: for cameras (see render.h for the defaults) */
    double sun_azimuth, sun_altitude, sun_intensity, ambient;
    sn_vec3 sky_color; /* 0..255 each */
    /* weather: CARLA's WeatherParameters (engine/world/weather.h); has_weather false = the
    ** default weather with the lighting's sun */
    bool has_weather;
    sn_weather weather;
    bool shadows, textures; /* lighting: {shadows, textures}, both true by default */
    sn_geo_location georeference; /* of the world origin; 0, 0, 0 when not given */
    bool has_georeference;        /* given in the scene (else the map's, when it has one) */
    sn_srcpos dt_pos;
    bool streams;                 /* streams: false (or sensim run --no-streams): no sensor writes its
                                     stream file; true by default */
} sn_scene_settings;

/* One entry of traffic's `blueprints:` list: an id or glob pattern (fnmatch) and its weight. */
typedef struct sn_traffic_pick {
    char *pattern;
    double weight;          /* > 0; 1 unless given */
    sn_srcpos pos;
} sn_traffic_pick;

/* traffic: what CARLA's generate_traffic.py spawns, on the scene's map. */
typedef struct sn_scene_traffic {
    bool present;
    uint32_t vehicles, walkers;
    bool has_seed;
    uint64_t seed;          /* the spawn shuffle's and the autopilots' seed; else the scene's */
    char *blueprint;        /* vehicles' blueprint, NULL = vehicle.sedan */
    sn_tm_knobs knobs;
    sn_srcpos pos, blueprint_pos;
    /* vehicles: {count, blueprints: [...]} and walkers: {...}: [0] vehicles, [1] walkers; none
    ** given: `blueprint` (vehicles) and walker.pedestrian, as before */
    sn_traffic_pick *picks[2];
    uint32_t n_picks[2];
} sn_scene_traffic;

/* scenery: {enabled, seed, density} (docs/scenery.md): on by default when there is a map. */
typedef struct sn_scene_scenery {
    bool disabled;          /* enabled: false */
    uint64_t seed;          /* 0 unless given: the town's look does not follow the run's seed */
    double density;         /* 0 = not given (1) */
    sn_srcpos pos;
} sn_scene_scenery;

typedef struct sn_scene {
    sn_strpool strings; /* the entries' name, blueprint and attach_to (sn_strpool_add) */
    char *path;
    char **sets; /* the overrides applied, "PATH=VALUE" (positions point into them) */
    size_t n_sets;
    sn_scene_settings settings;
    sn_scene_entity *actors;
    uint32_t n_actors;
    sn_scene_entity *sensors;
    uint32_t n_sensors;
    char *map_path;            /* map: an OpenDRIVE file, resolved against the scene's folder; NULL = none */
    sn_srcpos map_pos;
    char *recorder_file;       /* recorder: {file, additional_data, date}; NULL when absent */
    bool recorder_additional;
    uint64_t recorder_date;
    sn_srcpos recorder_pos;
    sn_scene_traffic traffic;
    char *scenario_path;       /* scenario: an OpenSCENARIO file (or the .xosc run itself); NULL = none */
    sn_srcpos scenario_pos;
    char **scenario_sets;      /* parameters: {NAME: VALUE} as "NAME=VALUE", for the scenario */
    size_t n_scenario_sets;
    sn_scene_scenery scenery;
} sn_scene;

/* The settings of a scene that sets none (a file's defaults; a test world's scene). */
void sn_scene_settings_default(sn_scene_settings *s);
/* Parses and checks a scene file. Free with sn_scene_free (also after failure). */
sn_status sn_scene_load(sn_scene *scene, const char *path, sn_error *err);
/* As sn_scene_load with `--set PATH=VALUE` overrides applied in order before checking. */
sn_status sn_scene_load_with(sn_scene *scene, const char *path, const char *const *sets, size_t n_sets,
                             sn_error *err);
void sn_scene_free(sn_scene *scene);

#endif
