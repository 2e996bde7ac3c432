/* run_data.h — what `sensim report` gathers from a run's output folder, through the public
** stream reader and recording reader only (sensim.h):
**   - every stream DIR/<sensor>.msgpack: its messages' times (per-sensor counts over time), the
**     path of its sensor's world transform, collision events (sensor.other.collision: the
**     contact `location`, else the sensor's), and for picture streams (cameras, DVS, optical
**     flow) SN_THUMBS evenly spaced thumbnails as PNG;
**   - a recording in DIR (any file a loaded recorder plugin opens, e.g. `--record
**     DIR/run.sensimrec`): the scene, the seed and every actor's path and collisions;
**   A stream or recording cut short or damaged (a run killed mid-way) is shown up to its last
**   good message or frame, with a note.
**   - the scene's OpenDRIVE map, if any: its driving lanes under the paths (sn_run_data_map);
**   - DIR/stats.json (`sensim run --stats DIR/stats.json`): frames, simulated time, messages,
**     the wall-clock timers, scene and seed;
**   - a sensor.other.debug stream: CARLA's world.debug shapes, drawn on the top view;
**   - DIR/run.json: the run's traffic health per simulated minute (docs/traffic.md). */
#ifndef SN_CLI_RUN_DATA_H
#define SN_CLI_RUN_DATA_H

#include <sensim/sensim.h>

#include <stddef.h>
#include <stdint.h>

#define SN_THUMBS 8
#define SN_THUMB_WIDTH 160

typedef struct rd_pt { double x, y; } rd_pt;

/* A path on the ground plane (world x, y), at most one point per frame. */
typedef struct rd_path {
    char name[160];    /* an actor's scene name (or blueprint and id), or "sensor NAME" */
    char kind[64];     /* blueprint id */
    bool is_static;    /* not a vehicle or walker: drawn as a small mark, not in the legend */
    rd_pt *pts;
    size_t n, cap;
    uint32_t id;       /* recording actor id (0 for a stream's path) */
} rd_path;

/* A collision: contacts of one pair in consecutive frames are one event (first..last frame). */
typedef struct rd_event {
    rd_pt at;          /* where it began */
    double t;
    uint64_t frame, last_frame;
    uint64_t key_a, key_b; /* the pair (actor ids, or a stream and the other actor's id) */
    char what[240];
    char kind_a[12], kind_b[12]; /* "vehicle", "walker", "static" or "unknown": the report's summary */
} rd_event;

/* Traffic health of one window, or the totals (run.json's traffic_health; docs/traffic.md):
** the RD_HEALTH_FIELDS values in the order of sn_rd_health_keys. */
#define RD_HEALTH_FIELDS 10
extern const char *const sn_rd_health_keys[RD_HEALTH_FIELDS];
typedef struct rd_health {
    double v[RD_HEALTH_FIELDS];
} rd_health;

/* A stretch of a driving lane's centre (waypoints 2 m apart), drawn as wide as the lane. */
typedef struct rd_lane {
    rd_pt *pts;
    size_t n;
    double width;
} rd_lane;

/* A shape of CARLA's world.debug (a sensor.other.debug stream), seen from above. */
#define RD_MAX_SHAPES 20000
typedef struct rd_shape {
    char kind;          /* 'p' point, 'l' line, 'a' arrow, 'b' box, 's' string */
    rd_pt a, b;         /* location / begin, end; a box: centre and half extents (x, y) */
    double yaw, size;   /* a box's yaw (degrees); a point's size, a line's thickness (m) */
    double t, life;     /* drawn at (s), CARLA's life_time */
    uint8_t rgba[4];
    char text[80];
} rd_shape;

typedef struct rd_stream {
    char file[256], sensor[160], type[128];
    size_t count;
    double *t;         /* every message's timestamp */
    uint32_t w, h;     /* picture size, 0 when the stream has no pictures */
    char note[SN_ERROR_MAX + 4]; /* "; " and why the stream ends early (a cut or corrupt message), else "" */
    int n_thumbs;
    uint8_t *png[SN_THUMBS];
    size_t png_len[SN_THUMBS];
    uint64_t thumb_frame[SN_THUMBS];
} rd_stream;

typedef struct run_data {
    char dir[4096];
    rd_stream *streams;
    size_t n_streams;
    rd_path *paths;
    size_t n_paths;
    rd_event *events;
    size_t n_events;
    bool paths_from_recording;
    char recording[4096];   /* its file name, "" if none */
    char rec_note[SN_ERROR_MAX]; /* why the recording ends early (a damaged frame), else "" */
    char scene[1024];       /* "" when unknown */
    bool has_seed;
    uint64_t seed;
    double dt;              /* fixed_delta_seconds (0 when unknown) */
    bool has_stats;
    double frames, sim_time, messages, sensors, time_world, time_sensors, time_output;
    double t_min, t_max;    /* the messages' time span */
    char map[4096];         /* the OpenDRIVE file drawn under the paths, "" if none */
    rd_lane *lanes;
    size_t n_lanes;
    uint64_t frame_min, frame_max;
    bool has_health;        /* run.json holds traffic_health */
    rd_health health_totals;
    rd_health *health;      /* its windows, n_health of them */
    size_t n_health;
    rd_shape *shapes;       /* world.debug's, at most RD_MAX_SHAPES */
    size_t n_shapes, shapes_left_out;
} run_data;

/* Reads the run folder; SN_E_INVALID (with a sentence) when it is not one (no streams). */
sn_status sn_run_data_read(const char *dir, run_data *d, sn_error *err);
/*
** The map under the paths (run_map.c): `map` (an OpenDRIVE file) when given, else the one the
** run folder's run.json names (sn_run_map_path), else the scene's own when the scene file is
** found (the `map:` line of the YAML, relative to the scene's folder). A map that cannot be read is SN_E_INVALID when given, silently absent when guessed.
*/
sn_status sn_run_data_map(run_data *d, const char *map, sn_error *err);
void sn_run_data_free(run_data *d);

#endif
