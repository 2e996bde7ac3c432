/*
** sensim/testworld.h — the engine as a plugin's test host (libsensim).
**
** A test world is an ordinary sn_engine (sensim/sensim.h) holding an empty scene: no file, no
** plugins from the search path, only the sensor classes the test registers. Everything else is
** the engine's own code — the loader's checks of a class and its attribute table, the
** attribute parser, the spawn descriptors, the frame order, the msgpack writer, the random
** streams, the renderer and the ray index — so a plugin behaves here exactly as in `sensim run`.
** sensim/testing.h (the sn_fake_* functions) is a thin layer over this header.
**
**   sn_engine *e = sn_testworld_create(&(sn_testworld_options){sizeof(sn_testworld_options), 42}, &err);
**   sn_testworld_add_plugin(e, sn_plugin_entry, "my_sensor.c", &err);  // or sn_testworld_load_plugin
**   sn_engine_spawn(e, &actor_desc, &car, &err);                          // any built-in blueprint
**   sn_engine_set_simulate_physics(e, car, false, &err);                  // poses set by the test
**   sn_engine_spawn(e, &sensor_desc, &sensor, &err);                      // name, mount, parent
**   sn_engine_listen(e, "front", on_message, user, &err);                // messages as serialized
**   sn_testworld_begin_frame(e, &err);
**   sn_testworld_inject_collision(e, &(sn_collision){car, wall, {-1500, 0, 0}, ...}, &err);
**   sn_testworld_end_frame(e, &err);                                      // or sn_engine_step
**   sn_engine_destroy(e);
**
** Errors are one sentence in err->msg, as everywhere in sensim.h.
*/
#ifndef SENSIM_TESTWORLD_H
#define SENSIM_TESTWORLD_H

#include <sensim/plugin.h>
#include <sensim/sensim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a test world starts with. Set struct_size = sizeof(sn_testworld_options); zero = defaults. */
typedef struct sn_testworld_options {
    uint32_t struct_size;
    uint64_t seed;                 /* the scene seed: sensors' random streams derive from it and their names */
    double fixed_delta_seconds;    /* 0 = 0.05, the scene default */
    double max_substep_delta_time; /* 0 = 0.01 */
    int threads;                   /* renderer and ray workers; 0 = 1 (outputs are the same at any count) */
    sn_log_fn log;                 /* log lines (plugins' host->log included); NULL = stderr */
    void *log_user;
    sn_geo_location georeference;  /* the scene's settings.georeference */
    /* ---- since SDK 1.6 ---- */
    /* A map for the world to stand on (an OpenDRIVE file, or its text): its roads are static
    ** geometry, its traffic lights are spawned and cycle, its signs bind to lanes, and the host's
    ** map_* and landmarks_ahead answer from it, as in a scene with `map:` (scenery off). */
    const char *map_path;          /* NULL: no file */
    const char *map_xml;           /* the map's text instead (map_path, if given, names it in messages) */
    size_t map_size;               /* bytes of map_xml; 0: strlen(map_xml) */
    /* ---- since SDK 1.6, fourth revision (write_bin_room) ---- */
    /* The host table plugins are handed, as an older host would hand it: 0 = the whole table;
    ** else its size in bytes, offsetof(sn_host, m) for the table of the revision before member
    ** m (at least offsetof(sn_host, render), the ABI 1.0 table; at most sizeof(sn_host)). The
    ** plugin gets a copy whose hdr.struct_size is that size, whose later members are NULL and
    ** whose hdr.abi_minor is the last minor the size covers, so SN_HOST_HAS answers false for
    ** the members cut and a plugin's fallbacks for older hosts run. The engine underneath
    ** stays whole: only what plugins see changes. */
    uint32_t host_size;
} sn_testworld_options;

/* An engine with an empty scene loaded at frame 0. Free with sn_engine_destroy. */
SN_API sn_engine *sn_testworld_create(const sn_testworld_options *o, sn_error *err);

/*
** Registers the sensor classes of a plugin entry linked into the test program, through the
** plugin loader's checks (ABI versions, struct sizes, required callbacks, attribute tables,
** duplicate ids): a table the engine would refuse is refused here with the same sentence.
** `label` stands for the file name in errors. Registering the same entry again is a no-op.
*/
SN_API sn_status sn_testworld_add_plugin(sn_engine *e, sn_plugin_entry_fn entry, const char *label, sn_error *err);
/* Loads a built plugin file as the engine loads its search path (dlopen, the same checks);
** *entry (may be NULL) receives its entry point, valid while the engine lives. */
SN_API sn_status sn_testworld_load_plugin(sn_engine *e, const char *path, sn_plugin_entry_fn *entry, sn_error *err);

/*
** The two halves of sn_engine_step. begin: clock, scheduled spawns and world events, tick(PRE),
** controllers, physics. end: collision events, tick(POST), tick(OBSERVE), serialization to the
** listeners. sn_engine_step is begin then end. SN_E_STATE for begin twice or end without begin.
*/
SN_API sn_status sn_testworld_begin_frame(sn_engine *e, sn_error *err);
SN_API sn_status sn_testworld_end_frame(sn_engine *e, sn_error *err);

/*
** Queues a collision for the collision phase of the frame in progress (or the next one): it is
** delivered, after physics' own, exactly as a physics contact would be — to the collision
** sensors attached to c->self_id (and to SN_EVENT_COLLISION_ANY observers); an impulse of zero
** length is, as in physics, no collision. Both actors must be alive now.
*/
SN_API sn_status sn_testworld_inject_collision(sn_engine *e, const sn_collision *c, sn_error *err);

/*
** Paints the pixels of every host->render and render_at instead of the renderer (for tests
** that feed exact frames, e.g. an event camera's). The host still checks the camera and the
** time as always (SN_E_INVALID, SN_E_RANGE); time_ns is the simulated time asked for. The
** painter fills the non-NULL buffers of out. NULL restores the renderer.
*/
typedef sn_status (*sn_testworld_render_fn)(void *user, int64_t time_ns, const sn_camera *camera,
                                            const sn_image *out);
SN_API sn_status sn_testworld_set_render(sn_engine *e, sn_testworld_render_fn fn, void *user, sn_error *err);

/* The geo-reference host->geo_reference and world_to_geo answer with from now on. */
SN_API sn_status sn_testworld_set_georeference(sn_engine *e, sn_geo_location origin, sn_error *err);

#ifdef __cplusplus
}
#endif

#endif
