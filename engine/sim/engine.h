/* engine.h — the engine's core struct (world, library, sensors, clock, outputs) and the frame
** that drives it (frame/engine.c). Each part has its own header: ctx.h, spawn.h, stream.h, writer.h,
** classes.h, host.h here; output/, recording/, traffic/ for theirs. */
#ifndef SN_SIM_ENGINE_H
#define SN_SIM_ENGINE_H

#include "ctx.h"
#include "../core/error.h"
#include "writer.h"
#include "../plugin/library.h"
#include "../scene/scene.h"
#include "../world/world.h"
#include "../world/geom_pool.h"
#include "../render/render.h"
#include "../query/rayscene.h"
#include "../scenery/scenery.h"

#include <sensim/pack.h>
#include <sensim/plugin.h>
#include <sensim/sensim.h>
#include <sensim/testworld.h>
#include <stdio.h>

struct sn_replay;

/* A replay drives the frame through these: recording/replay.c installs them with e->replay, the
** frame calls them, and the frame knows nothing of recordings. */
typedef struct sn_replay_hooks {
    /* Before a step's schedule: the recording up to this frame's time applied. */
    sn_status (*before_step)(struct sn_engine *e, sn_error *err);
    /* After the world advanced: the recorded velocities restored. */
    void (*after_advance)(struct sn_engine *e);
    void (*free)(struct sn_replay *rp);
} sn_replay_hooks;

/* Who watches the actors of one blueprint come and go: spawn.c calls every registered one and
** knows none by name (traffic/lights.c's is one; the frame registers them at create). */
typedef struct sn_actor_observer {
    const char *blueprint; /* the blueprint id whose actors it watches */
    bool own_values;       /* their values change after the spawn: never shared (world.vshare) */
    /* After the actor is in the world; a failure refuses the spawn. */
    sn_status (*spawned)(struct sn_engine *e, sn_actor *a, sn_error *err);
    /* Before the actor leaves the world. */
    void (*destroyed)(struct sn_engine *e, uint32_t actor);
} sn_actor_observer;

#define SN_MAX_OBSERVERS 4

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
    bool cpu_timers;       /* keep them (benchmarks set it after sn_engine_create) */
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
    /* the table plugins are handed: &host, or host_cut, a copy cut to an earlier revision of the
    ** table (sn_testworld_options.host_size) so a test meets a plugin's fallbacks for older hosts */
    const sn_host *plugin_host;
    sn_host host_cut;

    struct sn_pending_actor *actors; /* the scene's actors, in scene order */
    uint32_t n_actors;
    sn_sensor **sensors;      /* the scene's sensors, then those spawned through the API */
    uint32_t n_sensors;
    size_t cap_sensors;
    /* API-spawned sensors destroyed, moved out of `sensors` at the next step (engine.c sensors_sweep):
    ** every step walks `sensors` several times, and a loop spawning and destroying sensors made
    ** each step slower for good. Kept until unload: their names stay taken, their streams are
    ** written if outputs open later, their messages stay counted. */
    sn_sensor **gone;
    uint32_t n_gone, n_due;   /* n_due: destroyed ones still in `sensors` */
    size_t cap_gone;
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
    struct sn_render_share *render_share; /* cameras of one picture share a render (render_share.h) */
    bool in_phase;         /* sensors are ticking (run_phase): the world holds still, renders may be shared */
    bool in_parallel;      /* a plugin's host->parallel_for is running its tasks */
    sn_rayscene *rays;     /* the ray index, created at the first ray query, likewise */
    sn_lighting lighting;  /* from the scene's settings.lighting; .weather is the world's weather */
    bool weather_warned;   /* the one warning about weather fields that are not rendered was given */
    uint64_t weather_serial; /* counts weather changes: the recorder records a change when it moves */
    sn_map *map;           /* the scene's map (map:), NULL without one; owned */
    sn_map *reuse_map;     /* a reset's: the map already parsed, taken by the next build (owned) */
    /* Where the map's traffic lights stand across their road (sn_lights_build: 25 map searches
    ** a light), a double a light in build order: kept by a reset (the same map, so the same
    ** lights), freed by any other unload. Owned. */
    double *light_t;
    uint32_t n_light_t;
    /* The walkers' navigation graph of the same map (traffic/navgraph.h), kept by a reset for the
    ** next build's walkers to take instead of building it again; the reset frees it when the
    ** build did not. Owned. */
    struct sn_nav *kept_nav;
    /* The roads' and scenery's trimesh geoms over the map cache's data, kept by a reset for the
    ** next world (lent to it as world.geom_pool; emptied by unload): world/geom_pool.h. */
    sn_geom_pool road_pool;
    struct sn_lights *lights;   /* traffic lights (traffic/lights.h), NULL until one spawns */
    struct sn_signs *signs;     /* stop, yield and speed signs of the map (traffic/signs.h), or NULL */
    sn_scenery scenery;         /* the scenery's placed pieces (scenery/scenery.h); its chunks are in world.roads */
    struct sn_traffic *traffic; /* the map autopilots' per-frame scratch (traffic/traffic.h) */
    struct sn_tms *tms;         /* the Traffic Managers' settings (traffic/tm.h), NULL until used */
    struct sn_health *health; /* traffic health, observed after each frame's advance (traffic/health.h); owned */
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
    char *rec_stage, *rec_final; /* the recording being written and where it goes (recording/record.c) */
    uint64_t rec_frame0;   /* the clock's frame when recording started */
    uint32_t rec_actor;    /* the recorder's actor id while it records, else 0 */
    struct sn_replay *replay; /* set while replaying a recording (recording/replay.c) */
    const sn_replay_hooks *replay_hooks; /* set with replay */
    const sn_actor_observer *observers[SN_MAX_OBSERVERS]; /* registered at create (frame/engine.c) */
    unsigned n_observers;
    /* The engine's recorder closed its file (its instance destroyed, or the engine unloaded):
    ** recording/record.c's commit, set when a recording starts; NULL before. */
    void (*recorder_closed)(struct sn_engine *e);
    /* A vehicle's control was taken by its user (apply_control): traffic/hybrid.c's release, set
    ** when hybrid mode first takes a vehicle's physics, so sim/ includes nothing of traffic/. */
    void (*control_taken)(struct sn_engine *e, sn_actor *a);
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

/* What every call on a loaded engine checks first (the step's halves, spawn, call): SN_OK, or
** the refusal naming `what`. */
static inline sn_status sn_engine_ready(const sn_engine *e, const char *what, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "%s: no scene loaded", what);
    if (e->broken)
        return sn_fail(err, SN_E_STATE, "%s: the engine stopped after an error", what);
    return SN_OK;
}

#endif
