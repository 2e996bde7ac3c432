/* engine.h — the engine's internal state: world, library, sensors, clock, outputs. */
#ifndef SN_SIM_ENGINE_H
#define SN_SIM_ENGINE_H

#include "../core/rng.h"
#include "../plugin/library.h"
#include "../scene/scene.h"
#include "../world/world.h"
#include "../render/render.h"
#include "../traffic/health.h"
#include "../query/rayscene.h"
#include "../scenery/scenery.h"

#include <msgpack.h>
#include <sensim/pack.h>
#include <sensim/plugin.h>
#include <sensim/sensim.h>
#include <sensim/testworld.h>
#include <stdio.h>

/* Containers a plugin may nest: with the message's own map, the 32 msgpack-c's reader holds. */
#define SN_WRITER_MAX_DEPTH 31
#define SN_WRITER_KNOWN 4096 /* write_packed values remembered as checked (a power of two) */
#define SN_WRITER_WAYS 4      /* ... in sets of this many, found by their hash */

/* A write_packed value found well-formed: the same bytes are not checked again (a CAM goes to
** hundreds of receivers a frame). Found by content, not place: a changed byte changes the hash. */
typedef struct sn_packed_known {
    size_t n;
    uint64_t hash;
    int depth; /* containers nested in it */
} sn_packed_known;

/* The msgpack writer handed to serialize(): checks the structure as it goes. */
struct sn_writer {
    sn_pack_buf body;
    uint32_t top_pairs;
    bool expect_value;
    uint32_t stack[SN_WRITER_MAX_DEPTH]; /* items left in each open container */
    int depth;
    char why[160];     /* first structural error, "" if none */
    sn_packed_known known[SN_WRITER_KNOWN];
    struct sn_engine *engine;
};

typedef struct sn_listener {
    sn_listen_fn fn;
    void *user;
} sn_listener;

/* A sensor: its scene entry, its stream, and (while spawned) its plugin instance.
** The ctx a plugin receives is this struct; its address never changes. */
struct sn_ctx {
    struct sn_engine *engine;
    const sn_scene_entity *entity; /* NULL when spawned through the API */
    char *name;                    /* the scene entry's name (its pool's), or "sensor_<id>" owned when entity is NULL */
    const sn_blueprint *bp;
    const sn_sensor_class *cls;
    uint32_t actor_id; /* 0 until spawned and after destruction */
    uint32_t next_call;
    void *self;        /* plugin instance */
    sn_value *values;  /* resolved attributes, owned, or shared read-only (values_shared: world.vshare) */
    int64_t tick_ns, last_tick_ns;
    int64_t interval_ns; /* since the previous POST tick (tick_interval_ns), dt_ns at the first */
    bool *given;         /* per blueprint attribute: set by the scene, --set or the API; owned; NULL: none */
    sn_rng rng;
    /* set_error()'s text from the plugin: SN_CTX_ERROR_MAX bytes allocated at the first error
    ** (sn_ctx_error_buf), owned; NULL until then. Most sensors never fail, and 512 bytes in each
    ** of 5 000 was a quarter of a vehicle's memory beyond a bare ODE box. */
    char *error;
    struct sn_spool_file *out; /* its stream file (stream.c), NULL when it has none */
    char *part_path; /* its stream's file, while written (stream.c) */
    sn_listener *listeners;
    uint32_t n_listeners, cap_listeners;
    uint64_t messages; /* produced (pending), whether or not anything consumed them */
    uint64_t budget_bytes; /* its images' share of SN_LIMIT_SENSOR_MEMORY (sn_sensor_budget) */
    struct sn_ctx *klass; /* the class's own context (classes.c), NULL when it has no class state */
    bool spawned, destroyed;
    bool values_shared;
    bool ever_ticked, ticked_post;
    bool is_class;        /* this is a class context: `self` is the class state, no actor */
    bool internal;        /* the engine's own (the recorder of sn_engine_record): no stream, no name, not counted */
};
typedef struct sn_ctx sn_sensor;

#define SN_CTX_ERROR_MAX 512
/* The context's error buffer, allocated at its first use. When that allocation fails, the
** engine's spare buffer stands in, so the plugin's sentence still reaches the user. */
char *sn_ctx_error_buf(sn_ctx *c);
/* The context's error text, "" when none was set. */
static inline const char *sn_ctx_error(const sn_ctx *c) { return c->error ? c->error : ""; }
static inline void sn_ctx_error_clear(sn_ctx *c)
{
    if (c->error)
        c->error[0] = 0;
}
/* Frees the buffer (not the engine's spare). */
void sn_ctx_error_free(sn_ctx *c);
/* Shares a sensor's resolved values with equal ones (world.vshare; plugins read them const),
** and gives them back. The world must be live. */
void sn_sensor_values_share(struct sn_engine *e, sn_sensor *s);
void sn_sensor_values_free(struct sn_engine *e, sn_sensor *s);

/* A scene actor waiting for its spawn_at or destroy_at. */
typedef struct sn_pending_actor {
    const sn_scene_entity *entity;
    uint32_t actor_id; /* 0 until spawned */
    bool spawned, destroyed;
} sn_pending_actor;

/* What an actor is spawned from, whatever the source: a scene entry, the API, a recording.
** The attribute values are typed and resolved against the blueprint already. */
typedef struct sn_spawn_desc {
    const sn_blueprint *bp;
    sn_value *values;        /* bp order, one heap block; sn_spawn_actor takes ownership */
    const char *name;        /* NULL or "" for none; must not name a live actor */
    sn_transform transform;  /* world pose, or relative to the parent's origin */
    uint32_t parent;         /* 0 = free-standing */
    uint32_t id;             /* requested id; 0 = the next one */
    const sn_scene_entity *src; /* the scene entry (for file:line:col in errors), or NULL */
    bool name_kept;          /* name outlives the actor (a scene entry's): the actor keeps it, no copy */
    const char *role;        /* a sensor's role_name when its blueprint has none (the host keeps it), or NULL */
} sn_spawn_desc;

typedef struct sn_collision_route {
    uint32_t parent;
    sn_sensor *sensor;
} sn_collision_route;

struct sn_engine {
    char error_spare[SN_CTX_ERROR_MAX]; /* a context's error text when its own buffer cannot be had */
    double time_world, time_sensors, time_output; /* sn_run_stats' timers, seconds */
    /* ... and the process's CPU seconds in them (every thread's): the benchmarks' figures on a
    ** shared machine, where wall-clock time grows with the load */
    double cpu_world, cpu_sensors, cpu_output;
    double time_serialize; /* the part of time_output in plugins' serialize and the header */
    double time_write0;    /* the writer thread's busy seconds when the scene was loaded */
    sn_engine_options opts;
    sn_library lib;
    bool loaded;
    sn_scene scene;
    sn_world world;
    sn_clock clock;
    uint64_t frames_target;
    uint64_t frame0;       /* the clock's frame before the first step: 0, a replay's recorded frame - 1 */
    uint64_t advanced_frame; /* the last frame the world was advanced to (render_at needs it) */
    int n_sub;
    /* sn_engine_set_step: the clock counts from this frame and time (0 until the step changes) */
    uint64_t clock_base_frame;
    int64_t clock_base_ns;
    double clock_base_ts;
    bool step_warned;      /* the one warning about a step beyond max_substeps was given */
    uint64_t seed;
    sn_host host;

    sn_pending_actor *actors; /* the scene's actors, in scene order */
    uint32_t n_actors;
    sn_sensor **sensors;      /* the scene's sensors, then those spawned through the API */
    uint32_t n_sensors;
    size_t cap_sensors;
    sn_strmap scene_names;    /* scene actor name -> its sn_scene_entity */
    sn_strmap sensor_names;   /* sensor name -> sn_sensor, for listen and calls */

    sn_sensor **classes;      /* class contexts, in the order their first instance spawned */
    size_t n_classes, cap_classes;

    sn_collision_route *routes;
    size_t n_routes, cap_routes;
    bool routes_dirty;

    sn_event *events; /* world events queued for this frame */
    size_t n_events, cap_events;
    sn_sensor **event_listeners; /* scratch: the live sensors that listen to world events */
    size_t n_event_listeners, cap_event_listeners;
    sn_listener *all_listeners;  /* sn_engine_listen_all: every sensor's messages, sensors spawned later too */
    size_t n_all_listeners, cap_all_listeners;

    sn_renderer *renderer; /* created at the first render, with opts.threads workers */
    bool in_parallel;      /* a plugin's host->parallel_for is running its tasks */
    sn_rayscene *rays;     /* the ray index, created at the first ray query, likewise */
    sn_lighting lighting;  /* from the scene's settings.lighting; .weather is the world's weather */
    bool weather_warned;   /* the one warning about weather fields that are not rendered was given */
    uint64_t weather_serial; /* counts weather changes: the recorder records a change when it moves */
    sn_map *map;           /* the scene's map (map:), NULL without one; owned */
    sn_map *reuse_map;     /* a reset's: the map already parsed, taken by the next build (owned) */
    struct sn_lights *lights;   /* traffic lights (traffic/lights.h), NULL until one spawns */
    struct sn_signs *signs;     /* stop, yield and speed signs of the map (traffic/signs.h), or NULL */
    sn_scenery scenery;         /* the scenery's placed pieces (scenery/scenery.h); its chunks are in world.roads */
    struct sn_traffic *traffic; /* the map autopilots' per-frame scratch (traffic/traffic.h) */
    struct sn_tms *tms;         /* the Traffic Managers' settings (traffic/tm.h), NULL until used */
    sn_health health;      /* traffic health, observed after each frame's advance (traffic/health.h) */
    bool no_health;        /* SENSIM_BENCH_NO_HEALTH: not observed (bench_health's baseline) */

    sn_writer writer;
    sn_pack_buf msg;       /* the header, or a whole message when the header outgrew its room */
    const char *out_data;  /* the finished message (sn_writer_finish): in writer.body or msg */
    size_t out_size;
    sn_pack_buf *out_buf;  /* the buffer holding out_data: &writer.body or &msg */
    struct sn_spool *spool; /* the streams' writer thread (spool.h), started with the first stream */
    struct sn_saver *saver; /* `save:` images' writer thread, started at the first image */
    char *out_dir;         /* where outputs are written: the staging folder inside final_dir */
    char *final_dir;       /* --out: where a complete run's outputs are moved (outdir.c) */
    char *partial_dir;     /* the staging folder a failed run left, NULL if none */
    uint64_t sensor_bytes; /* the sum of live sensors' budget_bytes */
    bool outputs_open, broken;
    int out_lock;          /* flock on final_dir while outputs are open (outdir.c), -1 when none */
    bool spawning_internal; /* sn_engine_record's spawn in progress */
    bool run_failed;       /* a step failed or the outputs were finished incomplete */
    char *rec_stage, *rec_final; /* the recording being written and where it goes (api_recording.c) */
    uint64_t rec_frame0;   /* the clock's frame when recording started */
    uint32_t rec_actor;    /* the recorder's actor id while it records, else 0 */
    struct sn_replay *replay; /* set while replaying a recording (replay.c) */
    struct sn_scenario *scenario; /* the scene's OpenSCENARIO storyboard (scenario/scenario.h), NULL without one */

    /* ---- test world (api_testworld.c, sensim/testworld.h) ---- */
    bool in_step;             /* between sn_engine_step_begin and sn_engine_step_end */
    sn_collision *injected;   /* collisions a test queued for the next collision phase */
    size_t n_injected, cap_injected;
    sn_testworld_render_fn render_hook; /* replaces the renderer's pixels when set */
    void *render_user;

    /* sn_engine_destroy called inside a step (a listener closing its own world): the engine
    ** stays until the step ends, no further listener is called (issue 33 item 15) */
    bool scene_rec_pending;   /* the scene's recorder: {file: relative}: starts at open_outputs (inside
                                 the run folder) or, without outputs, at the first step (issue 33 item 5) */
    bool destroy_pending;
    unsigned in_emit;         /* listeners being called (sn_stream_emit), outside a step too */
};

/* engine.c: the two halves of sn_engine_step (a test world injects collisions between them):
** begin = clock, spawns/destroys/calls, world events, PRE ticks, controllers, physics;
** end = collision events, POST and OBSERVE ticks, serialization. */
sn_status sn_engine_step_begin(struct sn_engine *e, sn_error *err);
sn_status sn_engine_step_end(struct sn_engine *e, sn_error *err);
/* sn_engine_create without plugins from the search path when !search (a test world's). */
sn_engine *sn_engine_create_with(const sn_engine_options *opts, bool search, sn_error *err);
/* engine.c: builds e->scene (parsed already) into the world; on failure unloads everything. */
sn_status sn_engine_build_loaded(struct sn_engine *e, sn_error *err);
void sn_engine_unload(struct sn_engine *e);
/* Makes *w (validated) the world's weather: the renderer draws it from the next render, the
** recorder records it; warns once per engine about fields that are set but not rendered. */
void sn_engine_apply_weather(struct sn_engine *e, const sn_weather *w);

/* host.c */
void sn_host_init(sn_host *h);
/* host_query.c: ray_cast, ray_batch, sweep_sphere, overlap_sphere */
void sn_host_query_fill(sn_host *h);
/* The engine's ray index (created on first use); NULL with err set when it cannot start. */
sn_rayscene *sn_engine_rays(struct sn_engine *e, sn_error *err);
/* writer.c */
void sn_writer_init(sn_writer *w, struct sn_engine *e);
void sn_writer_free(sn_writer *w);
void sn_writer_reset(sn_writer *w);
/* Puts the header in front of the body, in the room sn_writer_reset left for it, and points
** e->out_data/out_size at the message. SN_E_INVALID if the body is malformed. */
sn_status sn_writer_finish(sn_writer *w, sn_sensor *s, sn_error *err);
/* stream.c */
sn_status sn_stream_open(sn_sensor *s, const char *dir, sn_error *err);
/* Whether s writes a stream file when outputs are open: not the recorder (its file is its
** recording), not with the scene's settings.streams false (--no-streams), not a scene sensor
** with stream: false (issue 33 item 6). */
bool sn_stream_wanted(const sn_sensor *s);
/* Whether anything takes s's messages now: its stream file, a listener of its own or of every
** sensor, its `save:` images. A message nobody takes is not serialised (serialize_all). */
bool sn_stream_consumed(const sn_sensor *s);
/* The finished message (e->out_data) to s's consumers; a large one's buffer goes to the writer. */
sn_status sn_stream_emit(sn_sensor *s, sn_error *err);
/* Writes what is queued for s, closes its file; the first error if err. */
sn_status sn_stream_close(sn_sensor *s, sn_error *err);
/* Closes s's file unchecked and removes it (a run that never started). */
void sn_stream_discard(sn_sensor *s);
/* spawn.c */
/* Checks what every spawn shares (finite transform, live parent, free name and id). */
sn_status sn_spawn_check(struct sn_engine *e, const sn_spawn_desc *d, sn_error *err);
/* Spawns a non-sensor actor from a descriptor; takes d->values in every case. */
sn_status sn_spawn_actor(struct sn_engine *e, sn_spawn_desc *d, sn_actor **out, sn_error *err);
/* Spawns a scene actor entry when due (resolving its attributes), with its velocity, control
** and autopilot. */
sn_status sn_spawn_scene_actor(struct sn_engine *e, sn_pending_actor *pa, sn_error *err);
/* Spawns a prepared sensor record (values resolved) at d's transform, parent and id. */
sn_status sn_spawn_sensor(struct sn_engine *e, sn_sensor *s, const sn_spawn_desc *d, sn_error *err);
/* Charges a sensor's images (image_size_x * image_size_y, 32 bytes a pixel) to the engine's
** budget: SN_E_RANGE naming SN_LIMIT_IMAGE_PIXELS or SN_LIMIT_SENSOR_MEMORY when over. */
sn_status sn_sensor_budget(struct sn_engine *e, sn_sensor *s, const char *where, sn_error *err);
/* Gives a sensor's share back (destroyed, or refused). */
void sn_sensor_unbudget(struct sn_engine *e, sn_sensor *s);
/* Spawns a scene sensor entry when due. */
sn_status sn_spawn_scene_sensor(struct sn_engine *e, sn_sensor *s, sn_error *err);
/* Destroys an actor and its children; SN_E_NOMEM when a DESTROYED event could not be queued
** (the actors are gone all the same). */
sn_status sn_destroy_actor(struct sn_engine *e, uint32_t id);
sn_status sn_queue_event(struct sn_engine *e, sn_event_type type, uint32_t actor, uint32_t parent);
/* classes.c: state shared by a sensor class (plugin.h class_create, class_tick) */
/* Gives s its class context, creating the class state at the class's first instance. */
sn_status sn_class_attach(struct sn_engine *e, sn_sensor *s, sn_error *err);
/* class_tick(phase, after) of every class that has one and asks for the phase. */
sn_status sn_classes_tick(struct sn_engine *e, sn_phase phase, bool after, sn_error *err);
/* class_destroy of every class, after their instances are gone. */
void sn_classes_destroy(struct sn_engine *e);
/* Error text for a failed plugin callback: "sensor 'n' (bp, plugin path): cb: msg". */
sn_status sn_plugin_fail(sn_sensor *s, const char *callback, sn_status st, sn_error *err);

/* Moves a finished recording (sn_engine_record) from its staging file to its name, when the
** run recorded frames and did not fail; a failed run's stays staged (named on stderr) and the
** file it would replace stays as it was. Called once the recorder's instance is destroyed. */
void sn_recording_commit(struct sn_engine *e);

#endif
