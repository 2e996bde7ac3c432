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
** sentence in err->msg of the form "<where>: <what>".
*/
#ifndef SENSIM_SENSIM_H
#define SENSIM_SENSIM_H

#include <sensim/abi.h>
#include <sensim/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SN_ERROR_MAX 1024

/* An error: filled by every function that can fail. Caller-owned, no cleanup needed. */
typedef struct sn_error {
    sn_status status;
    char msg[SN_ERROR_MAX];
} sn_error;

typedef struct sn_engine sn_engine;

typedef struct sn_engine_options {
    const char *plugin_dir; /* searched first; NULL for none */
    int threads;            /* worker threads; 0 = number of cores */
    bool seed_set;          /* use `seed` instead of the scene's */
    uint64_t seed;
    bool quiet_plugins;     /* do not print refused plugins to stderr */
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
/* NULL-safe. */
SN_API void sn_engine_destroy(sn_engine *e);

/* Parses, validates and builds a scene. On failure nothing of the scene is left behind. */
SN_API sn_status sn_engine_load_scene(sn_engine *e, const char *path, sn_error *err);
/* Overrides the scene's frame count (settings.frames / duration). */
SN_API void sn_engine_set_frames(sn_engine *e, uint64_t frames);
/* Writes each sensor's stream to DIR/<name>.msgpack (created on demand). Call after load. */
SN_API sn_status sn_engine_open_outputs(sn_engine *e, const char *dir, sn_error *err);
/* Registers a callback for every message of one sensor (CARLA's listen). */
SN_API sn_status sn_engine_listen(sn_engine *e, const char *sensor, sn_listen_fn fn, void *user,
                           sn_error *err);
/* Runs one frame. */
SN_API sn_status sn_engine_step(sn_engine *e, sn_error *err);
/* Runs `frames` frames, or the scene's count when 0, then finishes the outputs. */
SN_API sn_status sn_engine_run(sn_engine *e, uint64_t frames, sn_error *err);
/* Flushes and closes the outputs; files get their final names only when `complete`. */
SN_API sn_status sn_engine_finish(sn_engine *e, bool complete, sn_error *err);

/* The current clock. */
SN_API const sn_clock *sn_engine_clock(const sn_engine *e);
/* Looks up a live actor by its scene name; 0 if none. */
SN_API uint32_t sn_engine_find_actor(const sn_engine *e, const char *name);
/* Fills *out for a live actor (set out->struct_size). */
SN_API sn_status sn_engine_actor_get(const sn_engine *e, uint32_t id, sn_actor_info *out);

#ifdef __cplusplus
}
#endif

#endif
