/*
** sensim/sensim.h — the embedding API: load a scene, listen to sensors, step the world.
**
**   sn_error err;
**   sn_engine *e = sn_engine_create(&(sn_engine_options){0}, &err);
**   if (!e || sn_engine_load_scene(e, "scenes/crash.yaml", &err) != SN_OK) { ...err.msg... }
**   sn_engine_listen(e, "crash", on_message, user, &err);   // CARLA's listen()
**   sn_engine_run(e, 0, &err);                              // 0 = the scene's frame count
**   sn_engine_destroy(e);
**
** Link with libsensim (pkg-config sensim-sdk gives the flags). Errors are one human
** sentence in err->msg of the form "<where>: <what>"; `err` may be NULL everywhere.
**
** Ownership: what a function returns as `const` (strings, infos, attribute tables) belongs to
** the object it came from and lives as long as that object; what it returns without `const`
** the caller frees with the matching *_destroy / *_close.
**
** Sections, in the order a program meets them: the engine (create, load, listen, step, read the
** actors); the closed loop (spawn, control, set between steps); reset; run statistics; the
** blueprint library; stream files; recordings; traffic (lights, lights and vehicles, the Traffic
** Manager, walkers, traffic health); batch specs; crash reports.
**
** Threading: one engine belongs to one thread at a time; different engines may run on
** different threads at once. Nothing here keeps process-global state except
** sn_install_crash_reporter (signal handlers are process-wide by nature) and the map cache
** when it is turned on (sn_map_cache_enable, sensim/map.h).
*/
#ifndef SENSIM_SENSIM_H
#define SENSIM_SENSIM_H

#include <sensim/abi.h>
#include <sensim/attr.h>
#include <sensim/map.h>
#include <sensim/query.h>
#include <sensim/reader.h>
#include <sensim/records.h>
#include <sensim/types.h>

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SN_ERROR_MAX 1024

/*
** Limits (docs/scene.md, "Limits and ranges"): what no machine can run is refused at load, naming the limit.
** Numbers from scenes and the API are range-checked against these before they reach ODE,
** the renderer or an integer cast.
*/
#define SN_LIMIT_FRAMES 1000000000ULL          /* frames in one run (settings, --frames) */
#define SN_LIMIT_ACTORS 200000u                /* actors and sensors in one scene */
#define SN_LIMIT_ATTACH_DEPTH 32u              /* parents above an attached actor or sensor */
#define SN_LIMIT_IMAGE_PIXELS (8192ULL * 8192) /* image_size_x * image_size_y of one sensor */
#define SN_LIMIT_SENSOR_MEMORY (4ULL << 30)    /* bytes of all sensors' images, 32 bytes a pixel */
#define SN_LIMIT_SPEED 1000.0                  /* m/s: an initial velocity; walker speeds: 10 */
#define SN_LIMIT_COORD 1e7                     /* m from the origin: locations, route points */
#define SN_LIMIT_DT_MIN 1e-6                   /* s: the smallest fixed_delta_seconds, substep */
#define SN_LIMIT_STEP 10.0                     /* s: the largest step sn_engine_set_step takes */
#define SN_LIMIT_SUBSTEPS 1000                 /* physics substeps of one step (sn_engine_set_step) */

/* An error: filled by every function that can fail. Caller-owned, no cleanup needed. */
typedef struct sn_error {
    sn_status status;
    char msg[SN_ERROR_MAX];
} sn_error;

typedef struct sn_engine sn_engine;

/* The library's version at run time (SDK 1.6): "0.1.0", SN_VERSION_STRING of the libsensim that is
** loaded (which may be newer than the headers a program was built with), and its plugin ABI. */
SN_API const char *sn_version(void);
SN_API void sn_abi_version(uint32_t *major, uint32_t *minor);

/*
** Receives one log line instead of stderr: a refused plugin while loading (SN_LOG_WARN,
** "plugin PATH WHY; skipped"), a sensor's host->log ("sensor 'NAME': TEXT", every level,
** debug included). `line` has no "sensim:" prefix and no newline; it is valid during the call
** only. Called on the thread that runs the engine call that logs.
*/
typedef void (*sn_log_fn)(sn_log_level level, const char *line, void *user);

/* Frozen layout (tests/unit/test_layout.c pins it): new options come in a new struct with
** struct_size, never at the end of this one, which callers built earlier could not see. */
typedef struct sn_engine_options {
    const char *plugin_dir; /* searched first; NULL for none */
    int threads;            /* worker threads; 0 = number of cores */
    bool seed_set;          /* use `seed` instead of the scene's */
    uint64_t seed;
    bool quiet_plugins;     /* do not report refused plugins at all (neither stderr nor `log`) */
    sn_log_fn log;          /* where this engine's log lines go; NULL = stderr as "sensim: LEVEL: LINE" */
    void *log_user;         /* passed to `log` as is */
} sn_engine_options;

/* One message of a sensor stream, as given to a listener. Valid during the call only. */
typedef struct sn_message {
    const char *sensor;   /* sensor name in the scene */
    const char *type_id;  /* blueprint id */
    uint32_t sensor_id;
    uint64_t frame;
    double timestamp;
    const void *data;     /* one msgpack map */
    size_t size;
} sn_message;

typedef void (*sn_listen_fn)(const sn_message *msg, void *user);

/* Creates an engine and loads the plugins of the search path. Free with sn_engine_destroy. */
SN_API sn_engine *sn_engine_create(const sn_engine_options *opts, sn_error *err);
/* NULL-safe. Called inside a step (from a listener of this engine) it is deferred: no further
** listener is called, and the engine goes when the step ends; that sn_engine_step returns
** SN_E_STATE ("destroyed during the step") and the pointer is dead from then on. */
SN_API void sn_engine_destroy(sn_engine *e);

/* Parses, validates and builds a scene. On failure nothing of the scene is left behind. */
SN_API sn_status sn_engine_load_scene(sn_engine *e, const char *path, sn_error *err);
/*
** As sn_engine_load_scene, with overrides applied to the file before it is checked, in order:
** each "PATH=VALUE" (`sensim run --set`) replaces or adds one value. PATH is keys joined by
** '.', actors and sensors (any list) addressed by their name or index:
** "actors.hero.control.throttle=0.7", "settings.seed=4", "sensors.front.attributes.fov=110",
** "actors.hero.transform.location=[0, 2, 0.75]". VALUE is YAML, checked exactly like the file:
** an error names "FILE: --set PATH=VALUE: what was expected".
*/
SN_API sn_status sn_engine_load_scene_with_overrides(sn_engine *e, const char *path, const char *const *overrides,
                                                     size_t n_overrides, sn_error *err);
/* A world without a scene file (CARLA's client.load_world): the settings a scene's `settings:`
** would give, an optional map and a ground. Zero members take the scene defaults. Set
** struct_size = sizeof(sn_world_options). */
typedef struct sn_world_options {
    uint32_t struct_size;
    double fixed_delta_seconds;    /* s; 0 = 0.05 */
    double max_substep_delta_time; /* s; 0 = 0.01 */
    uint32_t max_substeps;         /* 1..16; 0 = 10 */
    uint64_t seed;                 /* the run's seed (sn_engine_options.seed_set overrides it) */
    uint64_t frames;               /* what sn_engine_run(e, 0) runs; 0 = 5 s worth */
    const char *map;               /* an OpenDRIVE file (as a scene's `map:`); NULL = none */
    bool no_ground;                /* true: no ground plane. Else a static.ground named "ground" at
                                      z = 0 (tag Ground), or with a map 2 cm under the roads (Terrain) */
} sn_world_options;
/*
** Loads that world instead of a scene file; then spawn into it (sn_engine_spawn) and step. The
** ranges are a scene's (an error names the setting); sn_engine_reset restores it, ground
** included. `o` may be NULL for every default. SN_E_STATE when a scene is loaded already.
*/
SN_API sn_status sn_engine_load_world(sn_engine *e, const sn_world_options *o, sn_error *err);
/* Overrides the scene's frame count (settings.frames / duration). */
SN_API void sn_engine_set_frames(sn_engine *e, uint64_t frames);
/* Writes each sensor's stream to DIR/<name>.msgpack (created on demand; see sn_engine_finish).
** Refuses a link, or a folder or device named like an output, in DIR. Call after load. */
SN_API sn_status sn_engine_open_outputs(sn_engine *e, const char *dir, sn_error *err);
/* Registers a callback for every message of one sensor (CARLA's listen). */
SN_API sn_status sn_engine_listen(sn_engine *e, const char *sensor, sn_listen_fn fn, void *user,
                           sn_error *err);
/*
** Removes a listener (CARLA's sensor.stop()): the one registered with this fn and user, or, with
** fn NULL, every listener of the sensor. May be called from inside a listener, which then gets
** no further message; the others of the same message still get theirs. SN_E_NOT_FOUND for an
** unknown sensor, or a fn/user pair that is not registered (fn NULL with none registered is OK).
*/
SN_API sn_status sn_engine_unlisten(sn_engine *e, const char *sensor, sn_listen_fn fn, void *user, sn_error *err);
/* Registers a callback for every message of every sensor, those spawned later included, after
** each sensor's own listeners, in the order the streams are written. Dropped by a reset. */
SN_API sn_status sn_engine_listen_all(sn_engine *e, sn_listen_fn fn, void *user, sn_error *err);
/* Runs one frame. */
SN_API sn_status sn_engine_step(sn_engine *e, sn_error *err);
/* Runs `frames` frames, or the scene's count when 0, then finishes the outputs. */
SN_API sn_status sn_engine_run(sn_engine *e, uint64_t frames, sn_error *err);
/*
** Several engines, one step each, on a pool of threads (SDK 1.6, a later addition: a libsensim of
** 0.1.0 from before it lacks these, so look them up (dlsym) to fall back, as Python does;
** docs/c-api.md "Stepping many engines"). Each thread, the caller's included, takes the next engine and runs its whole
** sn_engine_step before taking another, so min(n, threads) steps run at once and each engine's
** results are those of sn_engine_step alone. Listeners run inside, on the thread that steps
** their engine. The pool is the caller's: free it with sn_step_pool_destroy (NULL-safe) when
** no call is running (a streamed batch its owner left undrained is stepped to its end first;
** from inside a batch, or from another thread while one runs, it is refused with a line on
** stderr and the pool stays). threads counts the caller, 0 = one a core, within [0, 256]; a pool
** of 1 starts no thread.
*/
typedef struct sn_step_pool sn_step_pool;
SN_API sn_step_pool *sn_step_pool_create(int threads, sn_error *err);
SN_API void sn_step_pool_destroy(sn_step_pool *p);
/* The threads a pool steps on, the caller's included; 1 for NULL. */
SN_API int sn_step_pool_threads(const sn_step_pool *p);
/*
** Steps engines[0..n-1] once each on pool p (NULL: one after another on the caller). The engines
** belong to the call until it returns. statuses and errors (each NULL or n long, caller-owned)
** get every engine's own status, and the sentence of each that failed (errors[i] means nothing
** where statuses[i] is SN_OK). Returns SN_OK when every step succeeded, else the first failed
** engine's status with "engines_step: engine I: <its sentence>" in err. Refused before any step
** (SN_E_INVALID): NULL engines, a NULL engine, one engine given twice; SN_E_STATE when another
** call or streamed batch is stepping on the same pool.
*/
SN_API sn_status sn_engines_step(sn_step_pool *p, sn_engine *const *engines, size_t n, sn_status *statuses,
                                 sn_error *errors, sn_error *err);
/*
** The same batch streamed, for a caller with work of its own around each engine's step (a vector
** environment's controls before it and observations after): begin a batch on p, add engines one
** at a time (each starts at once on a free pool thread, if the pool has one besides the caller,
** in the order added), then call next until
** it returns false. Each true return reports one engine whose step has ended, as soon as it has,
** in the order steps end: its index (the order it was added, from 0), its status and, where it
** failed, its sentence (index, status and error may be NULL); meanwhile the caller steps, inside next,
** what no pool thread has taken. The first next closes the batch to adds; false means every
** added engine was reported and the pool is free again. Only the thread that began a batch adds
** to it and calls next, and not from a listener inside one of the batch's steps (there add is
** SN_E_STATE and next returns false, never waiting for the step it is inside). Every begun batch
** must be drained with next before the pool serves another or is destroyed.
** begin: SN_E_INVALID for a NULL pool, SN_E_STATE while a batch runs on p (another thread's, or
** from a listener inside one). add: SN_E_INVALID for a NULL engine or one already in the batch
** (a linear search of the batch), SN_E_STATE outside the caller's open batch, after its first
** next or from inside a step; SN_E_NOMEM; a refused add leaves the batch as it was.
*/
SN_API sn_status sn_engines_step_begin(sn_step_pool *p, sn_error *err);
SN_API sn_status sn_engines_step_add(sn_step_pool *p, sn_engine *e, sn_error *err);
SN_API bool sn_engines_step_next(sn_step_pool *p, size_t *index, sn_status *status, sn_error *error);
/*
** Returns once engine `index` (the order added) of the caller's open batch has stepped, stepping
** it here and now if no pool thread has taken it; for the caller's own work that needs that engine
** before next reports it (Python's callbacks reading another environment). Its result is still
** reported by next. SN_E_STATE outside the caller's batch or from a listener inside one of its
** steps, SN_E_RANGE for an index not added.
*/
SN_API sn_status sn_engines_step_wait(sn_step_pool *p, size_t index, sn_error *err);
/* Flushes and closes the outputs. A run writes into a staging folder DIR/sensim-partial-XXXXXX;
** when `complete` (and every write succeeded) its files move into DIR, else they stay there. */
SN_API sn_status sn_engine_finish(sn_engine *e, bool complete, sn_error *err);
/* The staging folder a failed or incomplete run left its partial outputs in; NULL if none. */
SN_API const char *sn_engine_partial_dir(const sn_engine *e);

/* The current clock. */
SN_API const sn_clock *sn_engine_clock(const sn_engine *e);
/*
** CARLA's world.apply_settings: the step from the next frame on (between frames; not in a
** replay). fixed_delta_seconds within [SN_LIMIT_DT_MIN, SN_LIMIT_STEP]; max_substep_delta_time
** within [SN_LIMIT_DT_MIN, 1] (0 keeps the current); max_substeps within [1, 16] (0 keeps).
** A step longer than max_substep_delta_time * max_substeps is run, as CARLA runs it, in
** ceil(dt / max_substep_delta_time) substeps up to SN_LIMIT_SUBSTEPS (longer substeps beyond),
** with one warning to the log. The clock's time keeps counting from where it was.
*/
SN_API sn_status sn_engine_set_step(sn_engine *e, double fixed_delta_seconds, double max_substep_delta_time,
                                    uint32_t max_substeps, sn_error *err);
/* Looks up a live actor by its scene name; 0 if none. */
SN_API uint32_t sn_engine_find_actor(const sn_engine *e, const char *name);
/* The blueprint id of the loaded scene's actor or sensor entry `name`, alive or not (one that
** spawns later, spawn_at, or was destroyed); NULL when the scene has no such entry. The string
** lives as long as the loaded scene. */
SN_API const char *sn_engine_scene_blueprint(const sn_engine *e, const char *name);
/* Fills *out for a live actor (set out->struct_size). No sentence: prefer sn_engine_actor_get_v2. */
SN_API sn_status sn_engine_actor_get(const sn_engine *e, uint32_t id, sn_actor_info *out);
/*
** sn_engine_actor_get with a sentence in err (SDK 1.6; the 1.0 signature could not change):
** SN_E_NOT_FOUND "actor_get: no live actor has id N" (destroyed, or never spawned);
** SN_E_INVALID for a NULL engine or out, or an out->struct_size below the 1.0 sn_actor_info
** (0 included: set it to sizeof *out). The fields past out->struct_size are left alone.
*/
SN_API sn_status sn_engine_actor_get_v2(const sn_engine *e, uint32_t id, sn_actor_info *out, sn_error *err);
/*
** CARLA's world.get_actors().filter(pattern): the ids of the live actors (sensors included)
** whose blueprint id matches the shell-style `pattern` (fnmatch(3) without flags, as CARLA:
** "vehicle.*", "*walker*", "sensor.camera.?gb"; NULL matches all), in ascending id order. *n
** counts every match; the first min(cap, *n) go to out (out may be NULL when cap is 0).
*/
SN_API sn_status sn_engine_actors_filter(const sn_engine *e, const char *pattern, uint32_t *out, size_t cap, size_t *n,
                                         sn_error *err);
/* Live actors (sensors included), and the id of the index-th in ascending id order (0 past the end). */
SN_API uint32_t sn_engine_actor_count(const sn_engine *e);
SN_API uint32_t sn_engine_actor_id_at(const sn_engine *e, uint32_t index);
/*
** The value of attribute `name` that actor `id` was spawned with, typed (sensim/attr.h), the
** blueprint's default when it was not set. Strings in *out live as long as the actor.
** SN_E_NOT_FOUND when there is no such live actor or attribute. err may be NULL.
*/
SN_API sn_status sn_engine_actor_attribute(const sn_engine *e, uint32_t id, const char *name, sn_value *out,
                                           sn_error *err);
/* The index-th attribute of actor `id` in blueprint order (name and value live as long as the
** actor); SN_E_NOT_FOUND past the last. Enumerates what an actor was spawned with. */
SN_API sn_status sn_engine_actor_attribute_at(const sn_engine *e, uint32_t id, uint32_t index, const char **name,
                                              sn_value *out, sn_error *err);

/*
** ---- The closed loop: change the world between steps (CARLA's synchronous client) ----
**
**   uint32_t car;
**   sn_attribute attrs[] = {{"color", "0,0,255"}, {"role_name", "hero"}};
**   sn_actor_desc d = {sizeof d, "vehicle.sedan", "hero", {{0, 0, 0}, {0, 90, 0}}, 0, 0, attrs, 2};
**   sn_engine_spawn(e, &d, &car, &err);
**   for (;;) {
**       sn_actor_info me = {.struct_size = sizeof me};
**       sn_engine_actor_get(e, car, &me);
**       sn_vehicle_control c = my_controller(&me);
**       sn_engine_apply_control(e, car, &c, &err);
**       sn_engine_step(e, &err);
**   }
**
** Every call validates its input (finite numbers, live ids, the right kind of actor) and
** returns a status with a sentence in err. Changes take effect at once: sensors see them
** from the next step.
*/

/* One attribute as CARLA writes it: {"fov", "90"}, {"color", "255,0,0"}. */
typedef struct sn_attribute {
    const char *key;
    const char *value;
} sn_attribute;

/* What an actor is spawned from (scenes, recordings and this API share it). */
typedef struct sn_actor_desc {
    uint32_t struct_size;        /* sizeof(sn_actor_desc) */
    const char *blueprint;       /* "vehicle.sedan", "sensor.other.collision", ... */
    const char *name;            /* optional (NULL): unique among live actors; a sensor's stream name */
    sn_transform transform;      /* world pose, or relative to the parent's origin when attached */
    uint32_t parent_id;          /* 0 = free-standing; only props and sensors can be attached */
    uint32_t id;                 /* 0 = the next id; else a requested id above every id used so far */
    const sn_attribute *attributes; /* copied; validated like a scene's */
    uint32_t n_attributes;
} sn_actor_desc;

/*
** Spawns an actor now; *out_id (may be NULL) receives its id. A sensor spawned without a name
** is named "sensor_<id>"; when outputs are open it gets its stream DIR/<name>.msgpack.
** Every sensor gets ACTOR_SPAWNED at the next step.
*/
SN_API sn_status sn_engine_spawn(sn_engine *e, const sn_actor_desc *desc, uint32_t *out_id, sn_error *err);
/* Destroys an actor and everything attached to it (a sensor's stream ends, its file stays). */
SN_API sn_status sn_engine_destroy_actor(sn_engine *e, uint32_t id, sn_error *err);

/* A vehicle's control (CARLA's apply_control): values outside their ranges are refused.
** It turns the vehicle's autopilot off. */
SN_API sn_status sn_engine_apply_control(sn_engine *e, uint32_t vehicle, const sn_vehicle_control *control,
                                         sn_error *err);

/* A vehicle's lights (CARLA's set_light_state / get_light_state): `state` is a set of
** sn_vehicle_light bits; every 32-bit value is accepted, as CARLA's. Lights on and the sun
** below the horizon: the headlights light the road (docs/vehicle-lights.md). */
SN_API sn_status sn_engine_set_vehicle_light_state(sn_engine *e, uint32_t vehicle, uint32_t state, sn_error *err);
SN_API sn_status sn_engine_get_vehicle_light_state(const sn_engine *e, uint32_t vehicle, uint32_t *state,
                                                   sn_error *err);

/* CARLA's WalkerControl (frozen, as sn_vehicle_control): walk along `direction` (world, horizontal part used) at `speed` m/s. */
typedef struct sn_walker_control {
    sn_vec3 direction;
    double speed; /* m/s, 0..10 */
} sn_walker_control;
SN_API sn_status sn_engine_apply_walker_control(sn_engine *e, uint32_t walker, const sn_walker_control *control,
                                                sn_error *err);

/*
** Teleports an actor (CARLA's set_transform): a vehicle, walker or free-standing sensor moves
** at once, velocities kept; for an attached prop or sensor, `transform` is its new mount
** relative to the parent. Static props never move (SN_E_INVALID).
*/
SN_API sn_status sn_engine_set_transform(sn_engine *e, uint32_t id, const sn_transform *transform, sn_error *err);
/* Linear (m/s) and angular (deg/s) velocity, world frame (CARLA's set_target_velocity and
** set_target_angular_velocity). A kinematic actor without a target keeps moving at it. */
SN_API sn_status sn_engine_set_velocity(sn_engine *e, uint32_t id, sn_vec3 velocity, sn_vec3 angular_velocity,
                                        sn_error *err);
/*
** CARLA's set_simulate_physics: true, ODE moves the vehicle or walker; false, it becomes
** kinematic: it stays where it is unless moved by sn_engine_set_target_transform or a
** velocity, still pushes physics-driven bodies and still appears to every sensor.
*/
SN_API sn_status sn_engine_set_simulate_physics(sn_engine *e, uint32_t id, bool simulate, sn_error *err);
/*
** A kinematic actor's pose at the end of the next step: it moves there in a straight line
** (rotation spherical-linear) during the step, so render_at and contacts see it in between,
** and holds still afterwards until the next target. SN_E_STATE when the actor still
** simulates physics; SN_E_RANGE when reaching it would take more than 1000 m/s (teleport
** with sn_engine_set_transform instead).
*/
SN_API sn_status sn_engine_set_target_transform(sn_engine *e, uint32_t id, const sn_transform *transform,
                                                sn_error *err);
/*
** CARLA's world.set_weather / get_weather (sensim/types.h sn_weather; docs/weather.md): every
** field is range-checked (SN_E_RANGE naming the field) and rounded to float32 as CARLA stores
** it; the weather changes at once, cameras draw it from the next step and a recording records
** the change. sn_weather_preset_get fills *out with CARLA's preset `name` ("ClearNoon",
** "WetCloudySunset", ...; "Default" is sensim's default: a clear sky, the sun at azimuth 135, altitude 50);
** SN_E_NOT_FOUND for an unknown name. sn_weather_preset_at lists them (NULL past the last).
*/
SN_API sn_status sn_engine_set_weather(sn_engine *e, const sn_weather *weather, sn_error *err);

SN_API sn_status sn_engine_get_weather(const sn_engine *e, sn_weather *out, sn_error *err);
SN_API sn_status sn_weather_preset_get(const char *name, sn_weather *out, sn_error *err);
SN_API const char *sn_weather_preset_at(unsigned index);

/*
** Ray queries from outside a plugin (CARLA's world.cast_ray, project_point, ground_projection):
** the same index and semantics as host->ray_batch (sensim/query.h), over the world as it is
** now. Every buffer is the caller's and is read or written during the call only.
*/
SN_API sn_status sn_engine_ray_batch(sn_engine *e, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                                     sn_ray_result *out, sn_error *err);
/* The same batch writing only the fields out->fields asks for, as floats, each into an array of
** its own (sensim/query.h sn_ray_compact): SN_RAY_CLOSEST or SN_RAY_ANY. Every array is the
** caller's, written during the call only; q, rays and out are read during the call only. */
SN_API sn_status sn_engine_ray_batch_compact(sn_engine *e, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                                             const sn_ray_compact *out, sn_error *err);

#define SN_STEERING_CURVE_MAX 16
#define SN_FORCE_CURVE_MAX 64
/*
** A vehicle's physics on sensim's vehicle model (CARLA's get/apply_physics_control; Python maps
** CARLA's VehiclePhysicsControl onto these, docs/python.md). Set struct_size =
** sizeof(sn_vehicle_physics). The set takes effect from the next step; values out of range are
** refused (SN_E_RANGE naming the field), a non-vehicle is SN_E_INVALID.
*/
typedef struct sn_vehicle_physics {
    uint32_t struct_size;
    double mass;             /* kg, [1, 1e5]; the suspension keeps its sag and damping ratio */
    double max_power;        /* W at the driven wheels, [0, 1e7] */
    double max_force;        /* N, the driven wheels' force cap at low speed, [0, 1e6] */
    double max_steer_angle;  /* degrees, the front wheels' lock at full steer, [0, 89] */
    double tire_friction;    /* the tyres' friction coefficient mu, [0.01, 10] */
    double drag_coefficient; /* Cd; drag = 0.5 rho Cd A v^2 with A the box's width x height, [0, 10] */
    /* ---- since sensim 0.1's physics control: read and written only when struct_size reaches
    ** them (a smaller struct, the fields above alone, keeps these as they are) ---- */
    /* m, the vehicle's frame (x forward, y right, z up): where the centre of mass is moved from
    ** the blueprint's (CARLA's center_of_mass, Unreal's COMNudge); it stays inside the box */
    sn_vec3 center_of_mass;
    /* CARLA's steering_curve: (forward speed km/h, fraction of max_steer_angle reached at full
    ** steer), speeds ascending, linear between points, the last fraction beyond; fractions in
    ** [0, 1]. n 0: CARLA's default curve (0, 1), (20, 0.9), (60, 0.8), (120, 0.7). */
    uint32_t n_steering_curve;
    double steering_curve[SN_STEERING_CURVE_MAX][2];
    /* The driven wheels' force against speed (m/s, N), speeds ascending from 0, linear between
    ** points, 0 beyond the last (the rev limit in top gear): CARLA's torque curve through its
    ** gears (python/sensim/physics.py). n 0: min(max_force, max_power / v). */
    uint32_t n_force_curve;
    double force_curve[SN_FORCE_CURVE_MAX][2];
} sn_vehicle_physics;
/* The size of sn_vehicle_physics before center_of_mass: older callers' struct_size. */
#define SN_VEHICLE_PHYSICS_SIZE_0 ((uint32_t)offsetof(sn_vehicle_physics, center_of_mass))
SN_API sn_status sn_engine_get_vehicle_physics(const sn_engine *e, uint32_t id, sn_vehicle_physics *out,
                                               sn_error *err);
SN_API sn_status sn_engine_set_vehicle_physics(sn_engine *e, uint32_t id, const sn_vehicle_physics *physics,
                                               sn_error *err);

/* Calls a method of a live sensor by its name, e.g. ("v2x", "send", 1, {"hello"}). */
SN_API sn_status sn_engine_call(sn_engine *e, const char *sensor, const char *method, uint32_t argc,
                                const char *const *argv, sn_error *err);

/* ---- Reset (an RL environment's reset; api_reset.c) ---- */

/*
** Restores the loaded scene to its state before its first step, in place: the world, every
** actor and sensor (those spawned through the API are gone), the clock, the class state. The
** scene and its map are not read again (the parsed map is kept) and no plugin is loaded again.
** `seed` (may be NULL: the seed of the
** run being reset) seeds the new run; a run after a reset is byte-identical to a fresh load
** of the scene with that seed. Listeners are dropped with their sensors (register them again);
** a recording the run made is closed, the scene's `recorder:` starts again. SN_E_STATE with
** outputs open (sn_engine_finish first), inside a step, or while replaying. On failure the
** engine holds no scene.
*/
SN_API sn_status sn_engine_reset(sn_engine *e, const uint64_t *seed, sn_error *err);
/* The seed of the run (the scene's, --seed's, or the last reset's); 0 for NULL. */
SN_API uint64_t sn_engine_seed(const sn_engine *e);

/* CARLA Traffic Manager's per-vehicle knobs for sn_engine_set_autopilot (docs/traffic.md): a
** knob set to NAN keeps TM's default. Set struct_size = sizeof(sn_autopilot_options). */
typedef struct sn_autopilot_options {
    uint32_t struct_size;
    double target_speed;                        /* m/s; < 0: the lane's speed limit */
    double distance_to_leading_vehicle;         /* m; NAN: 2 (TM's default) */
    double vehicle_percentage_speed_difference; /* % below the limit (negative: faster); NAN: 0 */
    double ignore_lights_percentage;            /* % of red lights run; NAN: 0 */
    uint32_t tm_port;                           /* the Traffic Manager it joins (CARLA's tm_port); 0: 8000 */
} sn_autopilot_options;

/*
** CARLA's vehicle.set_autopilot(enabled): on, the vehicle (or walker) follows the map's lanes
** through junctions on a seeded random route, keeps its gap, stops at red lights (the map
** autopilot of the `autopilot: {}` scene key; o may be NULL for TM's defaults); off, it keeps
** its last control. SN_E_STATE without a map; SN_E_INVALID for a sensor or prop, or a walker
** with no sidewalk within 50 m. A vehicle off the road is not refused: it drives to the nearest
** driving lane, at any distance (or waits, brakes on, while the map has none), and the first such
** vehicle of a run is named in a warning. The route's random stream is seeded from the run's seed
** and the actor id (or the Traffic Manager's set_random_device_seed): deterministic. The knobs
** of `o` are the vehicle's own Traffic Manager settings (sn_engine_tm_set with its id).
*/
SN_API sn_status sn_engine_set_autopilot(sn_engine *e, uint32_t id, bool enabled, const sn_autopilot_options *o,
                                         sn_error *err);

/* The SHA-256 of a regular file (a FIFO or device is refused without blocking) as 64 lower-case
** hex digits and a NUL, and its size; false when it cannot be read. A recording names its map by
** it; the batch manifest its outputs. */
SN_API bool sn_sha256_file(const char *path, char hex[65], uint64_t *size);

/* ---- Run statistics ---- */

/* What an engine has done since its scene was loaded. Set struct_size = sizeof(sn_run_stats). */
typedef struct sn_run_stats {
    uint32_t struct_size;
    uint64_t frames;        /* frames stepped (the clock's frame) */
    double sim_time;        /* seconds simulated: frames * fixed_delta_seconds */
    uint64_t messages;      /* messages emitted by all sensors, to files and listeners alike */
    uint32_t sensors;       /* sensors of the scene, spawned yet or not */
    uint32_t live_actors;   /* actors in the world now, sensors included */
    uint32_t live_sensors;  /* sensors spawned and not destroyed */
    /* Wall-clock seconds spent since the scene was loaded, by part of the step (like MuJoCo's
    ** mjData.timer): the world's advance (drivers, physics, contacts); the sensors' ticks in
    ** every phase, class ticks and the ray queries they make included; serializing and writing
    ** their messages. For profiling only: they differ from run to run, outputs never do. */
    double time_world, time_sensors, time_output;
    uint64_t frames_planned; /* frames sn_engine_run(e, 0) steps in all: the scene's count, --frames, a replay's span */
    /* The part of time_output spent serialising (plugins' serialize and the header): 0 when
    ** nothing consumed a message, for a message nobody takes is not serialised; and the
    ** seconds spent writing the streams, mostly on their writer thread, off the frame loop
    ** (docs/outputs.md). */
    double time_serialize, time_write;
} sn_run_stats;

/* Fills *out (caller-owned; members beyond out->struct_size are left alone). Works before
** a scene is loaded too (all zero). */
SN_API sn_status sn_engine_stats(const sn_engine *e, sn_run_stats *out, sn_error *err);

/*
** An OpenSCENARIO scenario's storyboard (docs/openscenario.md): a scene loads one with
** `scenario: FILE.xosc` (parameters with `parameters: {NAME: VALUE}` or --set parameters.NAME=VALUE),
** or sn_engine_load_scene is given the .xosc itself. sn_engine_run stops at the frame in which
** the storyboard ends. Strings belong to the engine and live until the scene is unloaded.
** Set struct_size = sizeof(sn_scenario_info).
*/
typedef struct sn_scenario_info {
    uint32_t struct_size;
    bool loaded;                /* the scene plays a scenario */
    bool ended;                 /* its storyboard ended: its StopTrigger fired or every story completed */
    bool completed;             /* it ended by its own rules (not because the frames ran out) */
    double time;                /* s: when it ended, else the simulation time now */
    const char *ended_by;       /* "StopTrigger", "all stories complete", "" while running */
    const char *stop_condition; /* the StopTrigger's condition that fired, "" otherwise */
    uint64_t log_messages;      /* messages of storyboard.msgpack so far */
} sn_scenario_info;
SN_API sn_status sn_engine_scenario(const sn_engine *e, sn_scenario_info *out, sn_error *err);

/* ---- The blueprint library (CARLA's world.get_blueprint_library()) ---- */

/* Opaque: a read-only list of blueprints and of the plugin files found. */
typedef struct sn_blueprints sn_blueprints;

/* One blueprint. Filled by sn_blueprints_get/find; set struct_size = sizeof(sn_blueprint_info). */
typedef struct sn_blueprint_info {
    uint32_t struct_size;
    const char *id;                 /* "vehicle.sedan", "sensor.other.collision" */
    sn_actor_kind kind;
    const char *doc;                /* one line, "" if none */
    const char *plugin;             /* path of the plugin file; NULL for the engine's built-ins */
    uint32_t n_attrs;
    const sn_attr_def *const *attrs; /* n_attrs definitions, then NULL; sensors' role_name is
                                        handled by the host and not listed */
    /* ---- SDK 1.6: the record layouts a sensor class declares (sensim/records.h), the
    ** plugin's own table (valid while the library is open), read with stride rec_layout_size ---- */
    uint32_t n_records;
    const sn_rec_layout *records;
    uint32_t rec_layout_size;
} sn_blueprint_info;

/* One plugin file of the search path, loaded or refused. Set struct_size = sizeof(sn_plugin_info). */
typedef struct sn_plugin_info {
    uint32_t struct_size;
    const char *path;               /* absolute, symlinks resolved */
    bool loaded;
    const char *reason;             /* why it was refused; NULL when loaded */
    const char *name, *version;     /* as the plugin declares them; "" if refused before that */
    uint32_t abi_major, abi_minor;  /* ABI it was built for; 0.0 if unknown */
    uint32_t n_blueprints;
    const char *const *blueprints;  /* n_blueprints ids, then NULL (none when refused) */
} sn_plugin_info;

/*
** Loads the built-in blueprints and the plugins of the search path (opts->plugin_dir,
** SENSIM_PLUGIN_PATH, the engine's own plugin folder) without creating an engine, as an
** engine made with the same options would. Of opts only plugin_dir, quiet_plugins, log and
** log_user matter; opts may be NULL. Free with sn_blueprints_close.
*/
SN_API sn_blueprints *sn_blueprints_open(const sn_engine_options *opts, sn_error *err);
/* The blueprints of a live engine. Free with sn_blueprints_close, before or after the engine;
** the list and what it hands out may be used only while the engine lives. */
SN_API sn_blueprints *sn_engine_blueprints(const sn_engine *e, sn_error *err);
/* NULL-safe. */
SN_API void sn_blueprints_close(sn_blueprints *lib);

/* Number of blueprints: the built-ins first, then each loaded plugin's in search order. */
SN_API size_t sn_blueprints_count(const sn_blueprints *lib);
/* Fills *out for blueprint i (0 <= i < count); the strings and attrs belong to lib. */
SN_API sn_status sn_blueprints_get(const sn_blueprints *lib, size_t i, sn_blueprint_info *out, sn_error *err);
/* As sn_blueprints_get, by id; SN_E_NOT_FOUND if no blueprint has it. */
SN_API sn_status sn_blueprints_find(const sn_blueprints *lib, const char *id, sn_blueprint_info *out,
                                    sn_error *err);
/* Number of plugin files found, loaded or refused, in search order. */
SN_API size_t sn_blueprints_plugin_count(const sn_blueprints *lib);
/* Fills *out for plugin file i; the strings belong to lib. */
SN_API sn_status sn_blueprints_plugin(const sn_blueprints *lib, size_t i, sn_plugin_info *out, sn_error *err);
/* The folders of the plugin search path, in the order they were searched, each as
** "DIR (--plugin-dir|SENSIM_PLUGIN_PATH|the engine's own[, missing])"; NULL past the end.
** An unknown sensor blueprint's error lists them too. The strings belong to lib. */
SN_API size_t sn_blueprints_search_count(const sn_blueprints *lib);
SN_API const char *sn_blueprints_search_dir(const sn_blueprints *lib, size_t i);

/* "bool", "int", "float", "string", "rgb" or "enum" (static strings). */
SN_API const char *sn_attr_type_name(sn_attr_type type);

/* The engine's own plugin folder, or NULL: found from libsensim's own location (dladdr), so a
** program anywhere that links libsensim finds it (<libdir>/sensim/plugins installed,
** <build>/plugins in a build tree), else from the running program's.
** Per-thread static storage, valid until the calling thread calls again. */
SN_API const char *sn_default_plugin_dir(void);
/* The installed SDK documentation (the SDK guide README.md and examples/), found from the
** running program's location as <prefix>/share/doc/sensim, or NULL when it is not there (a
** build tree). Per-thread static storage, valid until the calling thread calls again. */
SN_API const char *sn_sdk_doc_dir(void);

/* ---- Stream files (what sn_engine_open_outputs writes) ---- */

/*
** Prints a stream file as JSON lines, one object per message (`sensim dump`). Every bin is one
** object, {"$bin_bytes": N, ...}: a bin of a layout sensim knows (docs/cli.md, "dump": lidar and
** semantic lidar points, radar detections, DVS events and labels, camera pixels, float depth,
** optical flow) adds "$records" (the layout's name) and "count"; flags add to it:
**   SN_DUMP_DECODE  "records": [{field: value, ...}, ...] for every non-pixel layout;
**   SN_DUMP_BASE64  "$bin": the bytes in base64.
** A truncated or corrupt file is SN_E_INVALID naming the byte offset, after the whole
** messages before it; an unknown flag SN_E_INVALID.
*/
#define SN_DUMP_BASE64 1u
#define SN_DUMP_DECODE 2u
SN_API sn_status sn_stream_dump_bins(const char *path, FILE *out, unsigned flags, sn_error *err);
/* The same, also knowing the record layouts the sensor classes of `lib` declare (SDK 1.6,
** sensim/records.h): with SN_DUMP_DECODE a custom sensor's bins print as records too. lib may
** be NULL (sensim's own layouts only). */
SN_API sn_status sn_stream_dump_with(const char *path, FILE *out, unsigned flags, const sn_blueprints *lib,
                                     sn_error *err);
/* sn_stream_dump_bins with SN_DUMP_BASE64 when `full`, else no flag. */
SN_API sn_status sn_stream_dump(const char *path, FILE *out, bool full, sn_error *err);

/* CARLA's ColorConverter, for camera images saved as PNG. */
typedef enum sn_color_converter {
    SN_COLOR_RAW = 0,               /* the colour as it is */
    SN_COLOR_DEPTH = 1,             /* depth as linear gray */
    SN_COLOR_LOGARITHMIC_DEPTH = 2, /* depth as logarithmic gray */
    SN_COLOR_CITYSCAPES = 3         /* semantic tag in R as the CityScapes palette */
} sn_color_converter;

/* "raw", "depth", "logarithmic_depth", "cityscapes" to *out; false for any other name. */
SN_API bool sn_color_converter_parse(const char *name, sn_color_converter *out);

/*
** Saves every image of a camera stream file as DIR/<frame %06d>.png (8-bit RGB), creating
** folders as needed. *written (may be NULL) counts the images written, also on failure.
** Optical flow streams get CARLA's get_color_coded_flow colours (`conv` does not apply); lidar,
** semantic lidar and radar streams a 500 x 500 bird's-eye view at 0.2 m per pixel centred on
** the sensor, forward up (docs/sensors/optical-flow.md, "Pictures"). Any other stream that is not a
** camera's is SN_E_INVALID.
*/
SN_API sn_status sn_stream_save_images(const char *path, const char *dir, sn_color_converter conv,
                                       size_t *written, sn_error *err);
/*
** The same in another file format: "png" (NULL: the same), "ppm" (binary P6, the PNG's picture
** uncompressed), "pgm" (binary P5: a depth camera's depth at 16 bits, or a segmentation camera's
** tags at 8 bits with SN_COLOR_RAW) or "pfm" (a depth camera's metres as float32). What each holds
** is in docs/sensors/cameras.md, "Saving images"; a stream the format cannot hold is SN_E_INVALID.
*/
SN_API sn_status sn_stream_save_images_as(const char *path, const char *dir, sn_color_converter conv,
                                          const char *format, size_t *written, sn_error *err);

/*
** Reading a stream file message by message (what `sensim convert --video` and `sensim report`
** are built on). The reader owns everything it hands out: a message's strings and data and a
** picture's pixels stay valid until the next call on the reader or its close.
**
**   sn_stream_reader *r = sn_stream_reader_open("out/front.msgpack", &err);
**   sn_message m;
**   while (sn_stream_reader_next(r, &m, &err) == SN_OK) { ...m.frame, m.timestamp, m.data... }
**   // err.status is SN_E_NOT_FOUND at the end, anything else a truncated or corrupt file
**   sn_stream_reader_close(r);
*/
typedef struct sn_stream_reader sn_stream_reader;

/* A picture: 8-bit RGB, rows packed (width * 3 bytes each), top row first. */
typedef struct sn_picture {
    uint32_t width, height;
    uint64_t frame;
    const uint8_t *rgb;
} sn_picture;

/* Opens a stream file. Free with sn_stream_reader_close. */
SN_API sn_stream_reader *sn_stream_reader_open(const char *path, sn_error *err);
/* NULL-safe. */
SN_API void sn_stream_reader_close(sn_stream_reader *r);
/*
** The next message into *msg (its header: sensor, type_id, sensor_id, frame, timestamp; data
** and size: the whole msgpack map). SN_E_NOT_FOUND after the last message; SN_E_INVALID for a
** truncated or corrupt file or a message without the header keys, naming the byte offset.
*/
SN_API sn_status sn_stream_reader_next(sn_stream_reader *r, sn_message *msg, sn_error *err);
/*
** The picture of the message last returned, exactly as sn_stream_save_images saves it: a
** camera image through `conv`, a DVS message's event frame, optical flow's colours; with
** `points`, also the bird's-eye view of a lidar, semantic lidar or radar message. SN_E_INVALID
** when the message holds no picture. *out->rgb belongs to the reader.
*/
SN_API sn_status sn_stream_reader_picture(sn_stream_reader *r, sn_color_converter conv, bool points, sn_picture *out,
                                          sn_error *err);

/* ---- Recordings: record a run, query it, replay it (CARLA's recorder) ----
**
** The recorder plugin (sensor.other.recorder) writes recordings and offers their reader
** (sensim/reader.h); these calls find a reader among the loaded plugins, so the engine and
** this API know no file layout. Times are seconds on the recording's clock: frame 1 starts at 0.
*/

/* What sn_engine_record records. Set struct_size = sizeof(sn_record_options). */
typedef struct sn_record_options {
    uint32_t struct_size;
    const char *file;       /* the recording to write (opened at once: a bad path fails here) */
    bool additional_data;   /* also velocities and bounding boxes */
    int64_t date;           /* Unix seconds for the header; 0 = none (byte-identical recordings) */
} sn_record_options;

/* Records the loaded scene's run from its next step on (the scene key `recorder:` does the same
** at load). Call after sn_engine_load_scene and before sn_engine_open_outputs. The recorder is
** the engine's own: no stream, no sensor name taken, not counted in sn_run_stats.sensors. The
** recording is staged in a fresh file beside o->file and moved over it when recording stops
** (sn_engine_stop_recording, or the engine destroyed) after frames were recorded and the run did
** not fail: a killed or failed run leaves an existing file as it was (docs/recorder.md). */
SN_API sn_status sn_engine_record(sn_engine *e, const sn_record_options *o, sn_error *err);
/* Stops recording (CARLA's stop_recorder): the file is closed and in place on return.
** SN_E_STATE when nothing is being recorded. */
SN_API sn_status sn_engine_stop_recording(sn_engine *e, sn_error *err);

/* Opaque: a recording opened through a plugin's reader. */
typedef struct sn_recording sn_recording;

/* Opens a recording with the first loaded plugin whose reader recognises it. Of opts only
** plugin_dir, quiet_plugins, log, log_user matter; opts may be NULL. A missing file is SN_E_IO,
** a file no reader recognises SN_E_INVALID. A cut-off file opens (see sn_log_info.end). */
SN_API sn_recording *sn_recording_open(const char *path, const sn_engine_options *opts, sn_error *err);
SN_API void sn_recording_close(sn_recording *r); /* NULL-safe */
/* Fills *out (set out->struct_size = sizeof(sn_log_info)); strings belong to r. */
SN_API sn_status sn_recording_info(sn_recording *r, sn_log_info *out, sn_error *err);
/* The next sn_recording_next yields the frame containing `time` as a snapshot (reader.h). */
SN_API sn_status sn_recording_seek(sn_recording *r, double time, sn_error *err);
/* The next frame (valid until the next call on r); SN_E_NOT_FOUND after the last one;
** SN_E_INVALID naming the frame and byte when a frame is damaged. */
SN_API sn_status sn_recording_next(sn_recording *r, const sn_log_frame **out, sn_error *err);

/*
** CARLA's queries (show_recorder_file_info, _collisions, _actors_blocked) in CARLA's text
** layout, or as JSON (one object) with `json`. collisions: type letters h (hero) v (vehicle)
** w (walker) t (traffic light) o (other) a (any), new contacts only. blocked: an actor that
** moved less than min_distance metres in min_time seconds. They read from the start of the
** file; on a damaged frame they print what came before it and return SN_E_INVALID.
*/
SN_API sn_status sn_recording_print_info(sn_recording *r, FILE *out, bool all, bool json, sn_error *err);
SN_API sn_status sn_recording_print_collisions(sn_recording *r, FILE *out, char type1, char type2, bool json,
                                               sn_error *err);
/* The info and collisions queries show what CARLA's recorder would hold: collisions reported by
** a collision sensor, actor 1 its parent (the default). With `all` true they show every contact
** pair the recording holds, in both orders (sensim records them all). */
SN_API void sn_recording_show_all_contacts(sn_recording *r, bool all);
SN_API sn_status sn_recording_print_blocked(sn_recording *r, FILE *out, double min_time, double min_distance,
                                            bool json, sn_error *err);

/* How sn_engine_load_replay replays. Set struct_size = sizeof(sn_replay_options); zero = defaults. */
typedef struct sn_replay_options {
    uint32_t struct_size;
    double start;          /* seconds; negative counts from the end of the recording (its N frames span N dt) */
    double duration;       /* seconds, D / (dt time_factor) frames, as CARLA's replayer ticks; <= 0 = to the end */
    double time_factor;    /* recording seconds per replayed second; 0 = 1; over 10^9 frames is refused */
    uint32_t follow_id;    /* recorded vehicle or walker whose pose free-standing scene sensors follow; 0 none;
                              an id the recording does not move is refused (SN_E_INVALID) */
    bool ignore_hero;      /* heroes (role_name hero) are not replayed at all */
    bool replay_sensors;   /* re-create the recorded sensors (their streams are written again) */
    bool branch_hero;      /* at `start`, heroes are handed back to physics with their recorded
                              velocity and control: a new run branches from the recording */
    const char *scene;     /* optional scene whose sensors (and actors) ride along; NULL = none */
} sn_replay_options;

/*
** Loads a recording to replay, instead of a scene: every step then moves the recorded actors
** (kinematic, so they still push physics bodies and every sensor sees them) to their recorded
** poses, exact at recorded frames and interpolated between them, with their recorded
** velocities and controls, and spawns, destroys and re-parents actors as recorded. The run's
** length is the replayed span; fixed_delta_seconds is the recording's. The sensors of
** o->scene produce their data as in a live run. The clock carries the recorded frame numbers
** and timestamps (the first replayed frame is the recorded frame at `start`), so the scene's
** times (spawn_at, calls) are on the recording's clock (docs/recorder.md).
*/
SN_API sn_status sn_engine_load_replay(sn_engine *e, const char *recording, const sn_replay_options *o,
                                       sn_error *err);
/* The live id of a recorded actor in a replay (0 if it is not alive); recorded ids are kept
** when possible. */
SN_API uint32_t sn_engine_replay_actor(const sn_engine *e, uint32_t recorded_id);

/* ---- Traffic lights (CARLA's carla.TrafficLight) ----
**
** A scene with a map gets a traffic.traffic_light actor for every dynamic 3-light signal of the
** map (docs/traffic.md), grouped per junction: one controller of a group at a time runs green,
** yellow, red (CARLA's defaults 10 s, 3 s, 2 s) while the others are red. Groups advance at the
** start of every step from the simulation clock. A light is named by its actor id.
*/

/* sn_traffic_light_state (CARLA's carla.TrafficLightState) is in sensim/map.h. */

/* What a light is. Set struct_size = sizeof(sn_traffic_light_info). */
typedef struct sn_traffic_light_info {
    uint32_t struct_size;
    uint32_t id;                  /* the actor */
    int32_t opendrive_id;         /* the map signal's id; -1 when not from the map */
    int32_t road_id;              /* the signal's road; -1 when not from the map */
    int32_t junction_id;          /* its group's junction; -1 for a light of its own */
    uint32_t pole_index;          /* CARLA's get_pole_index: its controller's place in the group */
    sn_traffic_light_state state;
    bool frozen;                  /* its group is frozen */
    double green_time, yellow_time, red_time; /* s, of its controller */
    double elapsed_time;          /* s in the current stage of its group (CARLA's get_elapsed_time) */
    uint32_t n_stops;             /* its stop waypoints (sn_engine_traffic_light_stops) */
    uint32_t n_affected_lanes;    /* its affected lane waypoints (sn_engine_traffic_light_affected_lanes) */
} sn_traffic_light_info;

/* The lights, in ascending actor id: count, and the id of the index-th (0 past the end). */
SN_API uint32_t sn_engine_traffic_light_count(const sn_engine *e);
SN_API uint32_t sn_engine_traffic_light_at(const sn_engine *e, uint32_t index);
SN_API sn_status sn_engine_traffic_light_info(const sn_engine *e, uint32_t id, sn_traffic_light_info *out,
                                              sn_error *err);
SN_API sn_status sn_engine_traffic_light_get_state(const sn_engine *e, uint32_t id, sn_traffic_light_state *out,
                                                   sn_error *err);
/* CARLA's set_state: the light shows `state` now; its group overrides it at its next stage
** unless frozen. */
SN_API sn_status sn_engine_traffic_light_set_state(sn_engine *e, uint32_t id, sn_traffic_light_state state,
                                                   sn_error *err);
/* CARLA's freeze: stops (or restarts) the cycle of the light's group; id 0 = every group
** (CARLA's world.freeze_all_traffic_lights). */
SN_API sn_status sn_engine_traffic_light_freeze(sn_engine *e, uint32_t id, bool freeze, sn_error *err);
/* CARLA's set_green_time / set_yellow_time / set_red_time for the light's controller (seconds,
** within (0, 1e6]); they apply from the next stage. */
SN_API sn_status sn_engine_traffic_light_set_times(sn_engine *e, uint32_t id, double green, double yellow, double red,
                                                   sn_error *err);
/* CARLA's reset_group: the light's group starts again (its first controller green). */
SN_API sn_status sn_engine_traffic_light_reset_group(sn_engine *e, uint32_t id, sn_error *err);
/* CARLA's get_group_traffic_lights: the lights of its group (*n counts all; the first
** min(cap, *n) go to out). */
SN_API sn_status sn_engine_traffic_light_group(const sn_engine *e, uint32_t id, uint32_t *out, size_t cap, size_t *n,
                                               sn_error *err);
/* CARLA's get_stop_waypoints: where the traffic the light controls stops, one waypoint per
** lane, on its stop line (sensim/map.h's sn_waypoint). */
SN_API sn_status sn_engine_traffic_light_stops(const sn_engine *e, uint32_t id, sn_waypoint *out, size_t cap,
                                               size_t *n, sn_error *err);
/* CARLA's get_affected_lane_waypoints: one waypoint per lane that the light's signal and its
** <signalReference>s name, at the reference's s (any lane type, as CARLA's), in map order. */
SN_API sn_status sn_engine_traffic_light_affected_lanes(const sn_engine *e, uint32_t id, sn_waypoint *out,
                                                        size_t cap, size_t *n, sn_error *err);

/* A box in the world frame: centre, half extents (m) and rotation (CARLA's carla.BoundingBox). */
typedef struct sn_trigger_volume {
    sn_vec3 location;
    sn_vec3 extent;
    sn_rotation rotation;
} sn_trigger_volume;

/* CARLA's trigger volumes of a light (UTrafficLightComponent::InitializeSign): one box per stop
** waypoint, in the order of sn_engine_traffic_light_stops, world frame: 1.5 m long along the
** lane (half extent), a quarter of the lane's width across, 1 m up, centred on the lane 3 m
** upstream of the stop line (clamped into the lane). CARLA's `trigger_volume` property is the
** first box expressed in the light actor's frame (transform it by the actor's inverse). */
SN_API sn_status sn_engine_traffic_light_trigger_volumes(const sn_engine *e, uint32_t id, sn_trigger_volume *out,
                                                         size_t cap, size_t *n, sn_error *err);

/* CARLA's vehicle.get_speed_limit(): the speed limit (km/h) the vehicle drives under now — the
** value of the last speed-limit sign (OpenDRIVE type 274) it passed, else its lane's or road's
** <speed> record, else 30 km/h (docs/traffic.md). For any live vehicle; a vehicle not on a map's
** lane keeps the last limit it had (30 km/h at first). */
SN_API sn_status sn_engine_vehicle_speed_limit(const sn_engine *e, uint32_t id, double *kmh, sn_error *err);

/* ---- Traffic lights and vehicles ---- */

/* CARLA's vehicle.get_traffic_light(): the light whose trigger volume (above) the vehicle's box
** overlaps on the ground, or, for an autopilot, the light of the stop line its path meets within
** that reach (4.5 m to 1.5 m before the line, on its lane); 0 when none. */
SN_API sn_status sn_engine_vehicle_traffic_light(const sn_engine *e, uint32_t vehicle, uint32_t *light,
                                                 sn_error *err);
/* CARLA's world.get_traffic_lights_from_waypoint(wp, distance): the lights whose stop lines lie
** on the lanes ahead of wp within `distance` m (every branch), in the order met, no repeats. */
SN_API sn_status sn_engine_traffic_lights_from_waypoint(const sn_engine *e, const sn_waypoint *wp, double distance,
                                                        uint32_t *out, size_t cap, size_t *n, sn_error *err);

/* ---- Traffic Manager (CARLA's carla.TrafficManager; api_tm.c, docs/traffic.md) ----
**
** There is no server: a Traffic Manager is a set of settings of the engine named by its port
** (CARLA's 8000 by default; 1024..65535), made at its first use. A vehicle joins one through
** sn_engine_set_autopilot (o->tm_port); vehicles the scene drives (`autopilot:`, `traffic:`)
** are on 8000. Every setting has a value per Traffic Manager (vehicle 0: CARLA's global_* and
** set_global_* calls; sensim takes vehicle 0 for every per-vehicle knob) and a value per vehicle
** that, once set, wins (CARLA's Parameters.cpp): a global change reaches the vehicles that have
** no value of their own, registered before or after it. Per-vehicle values belong to the
** vehicle, whichever port set them, and outlive set_autopilot(false). Values outside their
** range are refused (SN_E_RANGE naming it), never clamped; NaN too.
*/
typedef enum sn_tm_param {
    SN_TM_DISTANCE_TO_LEADING_VEHICLE = 0, /* m, [0, 100]; default 2 */
    SN_TM_PERCENTAGE_SPEED_DIFFERENCE = 1, /* % below the lane's limit, [-100, 100] (negative: faster) */
    SN_TM_DESIRED_SPEED = 2,               /* km/h, [0, 720], per vehicle only (CARLA's set_desired_speed);
                                              it and a per-vehicle percentage replace each other */
    SN_TM_IGNORE_LIGHTS_PERCENTAGE = 3,    /* %, [0, 100]: red lights run; default 0 */
    SN_TM_IGNORE_SIGNS_PERCENTAGE = 4,     /* %, [0, 100]: stop and yield signs run; default 0 */
    SN_TM_IGNORE_VEHICLES_PERCENTAGE = 5,  /* %, [0, 100]: vehicles ahead not braked for; default 0 */
    SN_TM_IGNORE_WALKERS_PERCENTAGE = 6,   /* %, [0, 100]: walkers ahead not braked for; default 0 */
    SN_TM_AUTO_LANE_CHANGE = 7,            /* 0 or 1; default 1 */
    SN_TM_RANDOM_LEFT_LANECHANGE_PERCENTAGE = 8,  /* %, [0, 100]; default 0 */
    SN_TM_RANDOM_RIGHT_LANECHANGE_PERCENTAGE = 9, /* %, [0, 100]; default 0 */
    SN_TM_KEEP_RIGHT_RULE_PERCENTAGE = 10, /* %, [0, 100]; default 0 */
    SN_TM_UPDATE_VEHICLE_LIGHTS = 11,      /* 0 or 1: the autopilot drives the vehicle's lights; default 0 */
    /* Settings of the Traffic Manager itself (vehicle 0 only). Hybrid physics acts (docs/traffic.md,
    ** "Hybrid physics"); the others are accepted and reported, with no effect in process (the same
    ** page says why): */
    SN_TM_SYNCHRONOUS_MODE = 12,           /* 0 or 1: the autopilots always run inside sn_engine_step */
    SN_TM_HYBRID_PHYSICS_MODE = 13,        /* 0 or 1: vehicles beyond the radius of every hero move without physics */
    SN_TM_HYBRID_PHYSICS_RADIUS = 14,      /* m, [0, 1e6]; default 70 */
    SN_TM_RESPAWN_DORMANT_VEHICLES = 15,   /* 0 or 1: no vehicle goes dormant */
    SN_TM_OSM_MODE = 16,                   /* 0 or 1; default 1 */
    SN_TM_PARAM_COUNT = 17
} sn_tm_param;

/* Sets a setting of Traffic Manager `port` (vehicle 0) or of a vehicle (port is then ignored).
** SN_E_RANGE for a value outside its range or NaN, SN_E_NOT_FOUND for a dead actor, SN_E_INVALID
** for an actor that is no vehicle, a bad port, or a setting of the wrong scope. */
SN_API sn_status sn_engine_tm_set(sn_engine *e, uint32_t port, uint32_t vehicle, sn_tm_param param, double value,
                                  sn_error *err);
/* The value in force: the vehicle's own, else its Traffic Manager's, else CARLA's default.
** Desired speed without one: -1. */
SN_API sn_status sn_engine_tm_get(const sn_engine *e, uint32_t port, uint32_t vehicle, sn_tm_param param,
                                  double *value, sn_error *err);
/* CARLA's force_lane_change(actor, direction): one lane change to the right (CARLA's True) or
** left, made by the autopilot when the lane beside exists, the marks allow it and the gap is
** safe; the request is dropped once acted upon (CARLA's GetForceLaneChange). */
SN_API sn_status sn_engine_tm_force_lane_change(sn_engine *e, uint32_t vehicle, bool right, sn_error *err);
/* CARLA's set_path: at each fork the autopilot takes the branch that leads nearest the next of
** these points (world frame; up to 4096), then roams as before. n 0 clears the path. */
SN_API sn_status sn_engine_tm_set_path(sn_engine *e, uint32_t vehicle, const sn_vec3 *points, size_t n,
                                       sn_error *err);
/* CARLA's set_route: the turns to take at the next junctions, in order. */
typedef enum sn_tm_turn { SN_TM_STRAIGHT = 0, SN_TM_LEFT = 1, SN_TM_RIGHT = 2 } sn_tm_turn;
SN_API sn_status sn_engine_tm_set_route(sn_engine *e, uint32_t vehicle, const sn_tm_turn *turns, size_t n,
                                        sn_error *err);
/* CARLA's set_random_device_seed: the random draws of the Traffic Manager's vehicles (routes at
** forks, ignore percentages, lane changes) restart from this seed, now and for vehicles that
** join later (each mixes in its actor id). */
SN_API sn_status sn_engine_tm_set_random_device_seed(sn_engine *e, uint32_t port, uint64_t seed, sn_error *err);
/* CARLA's shut_down: the Traffic Manager's vehicles stop driving (autopilot off, their last
** control held) and its settings are forgotten; using the port again makes a new one. */
SN_API sn_status sn_engine_tm_shut_down(sn_engine *e, uint32_t port, sn_error *err);
/* The port of the Traffic Manager a vehicle drives with; 0 when its autopilot is off. */
SN_API uint32_t sn_engine_tm_port_of(const sn_engine *e, uint32_t vehicle);

/* ---- Walkers that navigate (api_walkers.c; docs/walkers.md) ----
** CARLA's navigation (world.get_random_location_from_navigation, set_pedestrians_cross_factor,
** set_pedestrians_seed) and its AI walker controller (controller.ai.walker: start, stop,
** go_to_location, set_max_speed), on a graph of the map's sidewalks and crossings. */

/* A point drawn uniformly along the map's sidewalks (on their surface), from the pedestrians'
** generator (seeded from the run's seed, or sn_engine_set_pedestrians_seed). SN_E_STATE
** without a map; SN_E_NOT_FOUND when the map has no sidewalks. */
SN_API sn_status sn_engine_random_navigation_location(sn_engine *e, sn_vec3 *loc, sn_error *err);
/* CARLA's set_pedestrians_cross_factor: the share (0..1) of walkers that start navigating
** from now on that may also cross roads away from crosswalks and junction corners. */
SN_API sn_status sn_engine_set_pedestrians_cross_factor(sn_engine *e, double percentage, sn_error *err);
/* CARLA's set_pedestrians_seed: reseeds the pedestrians' generator (random locations, and the
** goals and crossing draws of walkers that start navigating from now on). */
SN_API sn_status sn_engine_set_pedestrians_seed(sn_engine *e, uint64_t seed, sn_error *err);
/* controller.ai.walker's start: walker `walker` joins the navigation and stands until
** go_to_location; after reaching a goal it walks on to random ones (CARLA's walker manager).
** stop: it leaves the navigation and stands (its autopilot off). SN_E_INVALID for no walker
** or no sidewalk within 50 m; SN_E_STATE without a map. */
SN_API sn_status sn_engine_walker_ai_start(sn_engine *e, uint32_t walker, sn_error *err);
SN_API sn_status sn_engine_walker_ai_stop(sn_engine *e, uint32_t walker, sn_error *err);
/* go_to_location: a route along sidewalks and crossings to the sidewalk point nearest dest.
** SN_E_STATE before start; SN_E_INVALID when no route reaches it. set_max_speed: m/s, (0, 10]. */
SN_API sn_status sn_engine_walker_ai_go_to_location(sn_engine *e, uint32_t walker, sn_vec3 dest, sn_error *err);
SN_API sn_status sn_engine_walker_ai_set_max_speed(sn_engine *e, uint32_t walker, double speed, sn_error *err);

/* The navigation graph's figures (sn_engine_navigation_info). Set struct_size. */
typedef struct sn_navigation_info {
    uint32_t struct_size;
    uint32_t nodes, edges;          /* edges: directed */
    uint32_t crosswalks;            /* crossings on the map's crosswalk objects */
    uint32_t corner_crossings;      /* across junction arms without a crosswalk */
    uint32_t road_crossings;        /* mid-block, for walkers the cross factor allows */
    uint32_t components;            /* connected parts of the graph */
    uint32_t sidewalk_lanes;        /* sidewalk lanes (per lane section) */
    uint32_t largest_lanes;         /* of them, in the largest component */
    double sidewalk_km;             /* length of the sidewalk edges */
} sn_navigation_info;
SN_API sn_status sn_engine_navigation_info(sn_engine *e, sn_navigation_info *out, sn_error *err);

/* ---- Traffic health (docs/traffic.md, "Traffic health") ----
**
** What an observer of the world counts after every frame, per simulated minute (a window:
** frames whose interval starts in [60 k, 60 (k + 1)) s), from poses, contacts and the lights'
** stop lines alone. run.json and `sensim run --stats` write the same as `traffic_health`.
*/

/* One window's counts, or the totals. Set struct_size = sizeof(sn_traffic_health). */
typedef struct sn_traffic_health {
    uint32_t struct_size;
    double start, duration;         /* s: the window's (the totals: 0 and the time observed) */
    uint32_t vehicles;              /* autopilot vehicles present through the window */
    uint32_t standing;              /* of them, those that moved less than 1 m in it */
    uint32_t crawling;              /* of them, those that moved less than 50 m */
    uint32_t flipped;               /* vehicles with |pitch| or |roll| over 30 deg at some frame of it
                                       (the totals: distinct vehicles over the run) */
    uint32_t red_light_crossings;   /* a vehicle's front crossed a red light's stop line, along its lane */
    uint32_t autopilot_collisions;  /* two autopilot vehicles began to touch (with force) */
    uint32_t deadlocks_resolved;    /* reported by the autopilot */
    uint32_t lane_changes;          /* reported by the autopilot */
} sn_traffic_health;

/* The totals so far: every count summed over the windows (vehicles, standing and crawling as
** vehicle-windows), flipped as distinct vehicles. All zero before the first frame. */
SN_API sn_status sn_engine_traffic_health(const sn_engine *e, sn_traffic_health *out, sn_error *err);
/* The windows so far: the finished ones and the current one (its counts up to the last frame). */
SN_API uint32_t sn_engine_traffic_health_windows(const sn_engine *e);
SN_API sn_status sn_engine_traffic_health_window(const sn_engine *e, uint32_t index, sn_traffic_health *out,
                                                 sn_error *err);
/* Writes the `traffic_health` JSON object of run.json (one line, no newline) to out. */
SN_API sn_status sn_engine_traffic_health_json(const sn_engine *e, FILE *out, sn_error *err);

/* ---- Batch specs (what `sensim batch` runs) ---- */

/*
** A batch spec (YAML) expanded into runs, each one `sensim run` with its scene, seed and
** overrides. The spec:
**
**   timeout: 60            # seconds per run (0 = none); memory_mb: per-run address-space limit
**   frames: 40             # optional: every run's frame count
**   runs:
**     - scene: scenes/crash.yaml           # one run, id "crash"
**     - scene: "scenes/c*.yaml"            # a glob: one run per file (sorted), ids the file stems
**     - id: speed                          # a sweep: scene x seeds x values, ids speed-000 ...
**       scene: scenes/crash.yaml
**       seeds: [1, 2]                      # or {from: 0, count: 10}
**       set: {settings.frames: 20}         # the same overrides for every run of the entry
**       vary: {actors.hero.velocity: [[8, 0, 0], [12, 0, 0]], actors.hero.control.throttle: [0, 1]}
**       combine: product                   # or zip (value lists of one length)
**       timeout: 5                         # entries may override timeout, memory_mb, frames
**
** Scene paths are relative to the spec's folder. Run order (and so each run's index) is the
** spec's order; in a sweep seeds vary slowest, then the `vary` paths in the order written, the
** last fastest. Ids are unique ([A-Za-z0-9._-]). Errors name spec:line:col.
*/
typedef struct sn_batch sn_batch;

typedef struct sn_batch_run {
    uint32_t struct_size;           /* sizeof(sn_batch_run) */
    size_t index;                   /* position in the expanded spec */
    const char *id;                 /* unique; names the run's output folder */
    const char *scene;              /* the scene file, as a path usable from the current folder */
    bool seed_set;
    uint64_t seed;
    size_t n_overrides;
    const char *const *overrides;   /* "PATH=VALUE", for sn_engine_load_scene_with_overrides */
    uint64_t frames;                /* 0 = the scene's own */
    double timeout;                 /* seconds; 0 = none */
    uint64_t memory_mb;             /* 0 = no limit */
} sn_batch_run;

/* Reads and expands a spec. Free with sn_batch_close. */
SN_API sn_batch *sn_batch_open(const char *spec_path, sn_error *err);
/* NULL-safe. */
SN_API void sn_batch_close(sn_batch *b);
SN_API size_t sn_batch_count(const sn_batch *b);
/* Fills *out for run i (set out->struct_size); the strings belong to b. */
SN_API sn_status sn_batch_get(const sn_batch *b, size_t i, sn_batch_run *out, sn_error *err);

/* ---- Crash reports ---- */

/*
** Opt-in, for programs: installs handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
** (with an alternate signal stack) that print one line naming the plugin file, sensor and
** callback that crashed, then let the process die of the same signal. Process-wide, as signal
** handlers are: an application with its own signal handling should not call it. The record of
** which callback runs is per thread, so engines on different threads do not mix.
*/
SN_API void sn_install_crash_reporter(void);

#ifdef __cplusplus
}
#endif

#endif
