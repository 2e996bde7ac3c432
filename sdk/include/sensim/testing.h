/*
** sensim/testing.h — unit-testing a sensor plugin on the engine itself, as a fake host.
**
** The sn_fake_* functions are a thin layer over sensim/testworld.h: the world is a real engine
** (libsensim) holding an empty scene, so your plugin meets the engine's own attribute parser
** and loader checks, spawn descriptors, frame order, msgpack writer, random streams (seeded
** from the seed and the sensor's name), renderer and ray index. What the test adds: actors of
** any built-in blueprint at poses it sets (kinematic: they stay or move where told, no physics
** pushes them), collisions it injects, and optionally a painter in place of the renderer. Each
** message is read back exactly as the engine serialized it. Link the test with libsensim
** (pkg-config sensim-sdk); the plugin itself still links nothing of sensim.
**
** Since SDK 1.6 libsensim carries the implementation (the header only declares): include it
** and link libsensim. A test that still writes `#define SN_TESTING_IMPLEMENTATION` before the
** include builds as before (the macro does nothing now). A map for map-using sensors:
** sn_fake_new_with() with sn_testworld_options.map_path (a file) or map_xml (its text).
** A plugin's fallbacks for older hosts: sn_testworld_options.host_size = offsetof(sn_host, m)
** hands it the table of the revision before member m (SN_HOST_HAS(host, m) false; testworld.h).
**
**     #include <sensim/testing.h>
**
**     sn_fake *f = sn_fake_new(42);
**     sn_plugin_entry_fn entry = sn_fake_open(f, "build/mine.so");  // or your linked sn_plugin_entry
**     uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose, half_extent);
**     sn_fake_sensor *s = sn_fake_spawn(f, entry, "sensor.other.mine",
**                                       (const char *[]){"range=20", NULL}, car);
**     sn_fake_begin_frame(f);                      // clock +1, spawns, tick(PRE), physics
**     sn_fake_collision(s, car, other, impulse);   // delivered in this frame's collision phase
**     sn_fake_end_frame(f);                        // collisions, tick(POST), tick(OBSERVE), serialize
**     double x = sn_fake_number(s, 0, "normal_impulse.0");
**     sn_fake_free(f);
**
** Ownership: sn_fake_free() destroys the engine (every sensor and plugin) and frees every
** sensor handle and string it handed out; pointers returned by the readers live until the
** next sn_fake_end_frame(). Single-threaded, like the engine's calls into plugins.
*/
#ifndef SENSIM_TESTING_H
#define SENSIM_TESTING_H

#include <sensim/testworld.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_fake sn_fake;
/* A sensor spawned in the fake (a handle of the test; the plugin gets the engine's own ctx). */
typedef struct sn_fake_sensor sn_fake_sensor;

/* Paints for host->render and render_at instead of the renderer (see sn_testworld_set_render);
** render_motion refuses (SN_E_UNSUPPORTED) while a painter is set: pixels have no surfaces that move. */
typedef sn_status (*sn_fake_render_fn)(void *user, const sn_camera *camera, const sn_image *out);

/* A new world at frame 0, dt 0.05 s, scene seed `seed`. NULL with a message on stderr if it
** cannot start (out of memory). */
SN_API sn_fake *sn_fake_new(uint64_t seed);
/* The same with every setting of a test world (dt, substeps, threads, georeference; the log
** callback is the fake's own). */
SN_API sn_fake *sn_fake_new_with(const sn_testworld_options *o);
/* Destroys the engine (every sensor's destroy, class_destroy, plugins closed). NULL-safe. */
SN_API void sn_fake_free(sn_fake *f);
/* The last error: a failed spawn, call, frame or a refused plugin, as the engine words it. "" when none. */
SN_API const char *sn_fake_error(const sn_fake *f);
/* Quiet (default) or echo log lines to stderr; they are counted either way. */
SN_API void sn_fake_verbose(sn_fake *f, bool on);
/* Log lines written so far ("sensor 'NAME': TEXT" for host->log), and the last one. */
SN_API uint32_t sn_fake_log_count(const sn_fake *f);
SN_API const char *sn_fake_last_log(const sn_fake *f);
/* The engine underneath, for anything of sensim/sensim.h (actor_get, set_velocity, ...). */
SN_API sn_engine *sn_fake_engine(sn_fake *f);

/* ---- the world ---- */
/*
** Spawns an actor of a built-in blueprint (`sensim blueprints`) with semantic_tag `tag` and,
** unless extent is (0, 0, 0), half extents `extent` (blueprints with an `extent` attribute).
** Vehicles and walkers are kinematic: they stay where they are put. Their origin is CARLA's (a
** vehicle's at the bottom of its box). 0 on failure (sn_fake_error says why: an unknown
** blueprint, a bad value, an overlap with another vehicle or walker).
*/
SN_API uint32_t sn_fake_add_actor(sn_fake *f, const char *blueprint, sn_tag tag, sn_transform pose, sn_vec3 extent);
/* The same with a name (or NULL), a parent (static props only; pose is then the mount) and
** attributes as "key=value" strings (NULL-terminated, may be NULL), e.g. "role_name=hero". */
SN_API uint32_t sn_fake_spawn_actor(sn_fake *f, const char *blueprint, const char *name, sn_transform pose,
                             uint32_t parent, const char *const *attrs);
/* A live actor as plugins see it (set out->struct_size first). */
SN_API sn_status sn_fake_actor_get(sn_fake *f, uint32_t id, sn_actor_info *out);
/* Teleports an actor now (an attached one: its new mount); static props never move. */
SN_API sn_status sn_fake_set_transform(sn_fake *f, uint32_t id, sn_transform pose);
/* A vehicle's or walker's pose at the end of the next frame: it moves there in a straight line
** during the frame (render_at and sensor_transform_at see it in between). */
SN_API sn_status sn_fake_move_to(sn_fake *f, uint32_t id, sn_transform pose);
/* Destroys an actor and what is attached to it (their sensors too), at once. */
SN_API sn_status sn_fake_remove_actor(sn_fake *f, uint32_t id);
/* Paints every render instead of the renderer (exact frames for a test); NULL: the renderer. */
SN_API void sn_fake_set_render(sn_fake *f, sn_fake_render_fn fn, void *user);
/* The engine's clock. */
SN_API const sn_clock *sn_fake_clock(const sn_fake *f);
/* The geo-reference host->geo_reference and world_to_geo answer with (default 0, 0, 0). */
SN_API void sn_fake_set_georeference(sn_fake *f, sn_geo_location origin);

/* ---- sensors ---- */
/* Loads a built plugin file as the engine loads its search path and returns its entry point,
** or NULL with sn_fake_error set (the loader's reason: ABI, sizes, attribute table, ...). */
SN_API sn_plugin_entry_fn sn_fake_open(sn_fake *f, const char *path);
/*
** Spawns a sensor of `blueprint`, registering `entry`'s plugin first when it is not yet (a
** plugin linked into the test; the loader's checks apply). `attrs`: "name=value" strings,
** NULL-terminated, may be NULL, parsed by the engine's parser. Attached to `parent` (0:
** standing in the world) at the identity mount, named "sensor_<id>" as the engine names an
** unnamed sensor. NULL on failure, with sn_fake_error saying why (the engine's sentence).
*/
SN_API sn_fake_sensor *sn_fake_spawn(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint,
                              const char *const *attrs, uint32_t parent);
/* The same with a name (its random stream is seeded from it; NULL = "sensor_<id>") and a mount
** relative to the parent's origin (or its world pose when standing free). */
SN_API sn_fake_sensor *sn_fake_spawn_named(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint, const char *name,
                                    const char *const *attrs, uint32_t parent, sn_transform mount);
/* The actor id and the name of a spawned sensor. */
SN_API uint32_t sn_fake_sensor_id(const sn_fake_sensor *s);
SN_API const char *sn_fake_sensor_name(const sn_fake_sensor *s);

/* ---- frames ---- */
/* The first half of a frame: clock +1, world events, tick(PRE), controllers, physics. */
SN_API sn_status sn_fake_begin_frame(sn_fake *f);
/*
** Queues a collision of actor `self` with `other` (impulse N*s on self) for this frame's
** collision phase (the next one when no frame is begun): the sensors attached to `self` get
** it as from physics. The location is self's origin, the normal the impulse's direction.
*/
SN_API sn_status sn_fake_collision(sn_fake_sensor *s, uint32_t self, uint32_t other, sn_vec3 impulse);
/* Any collision, every field yours. */
SN_API sn_status sn_fake_inject(sn_fake *f, const sn_collision *c);
/* The second half: collisions, tick(POST) when sensor_tick is due, tick(OBSERVE), serialize.
** A malformed message is SN_E_INVALID with the writer's reason, and the engine stops. */
SN_API sn_status sn_fake_end_frame(sn_fake *f);
/* begin then end. */
SN_API sn_status sn_fake_step(sn_fake *f);
/* A method of the sensor (its class's `methods`), as a scene's `calls:`. */
SN_API sn_status sn_fake_call(sn_fake_sensor *s, const char *method, uint32_t argc, const char *const *argv);

/* ---- reading what the engine serialized ---- */
/* Messages of this sensor in the last frame. */
SN_API uint32_t sn_fake_message_count(const sn_fake_sensor *s);
/* Message i's msgpack bytes exactly as the engine wrote them (to a stream or a listener). */
SN_API const void *sn_fake_raw(const sn_fake_sensor *s, uint32_t i, size_t *size);
/* Message i as one JSON line, header keys included (bins as {"bin": size}). */
SN_API const char *sn_fake_json(sn_fake_sensor *s, uint32_t i);
/*
** Values by path: map keys and array indices joined by dots, "normal_impulse.2",
** "other_actor.id". has() says whether the path exists; number() reads any numeric or bool
** (NaN when absent or not a number); string() a str (NULL otherwise); bin() a bin's bytes
** (16-byte aligned, so they may be read as float or integer arrays).
*/
SN_API bool sn_fake_has(const sn_fake_sensor *s, uint32_t i, const char *path);
SN_API double sn_fake_number(const sn_fake_sensor *s, uint32_t i, const char *path);
SN_API const char *sn_fake_string(const sn_fake_sensor *s, uint32_t i, const char *path);
SN_API const void *sn_fake_bin(const sn_fake_sensor *s, uint32_t i, const char *path, size_t *size);
/* Number of items of the array or pairs of the map at path, or -1. */
SN_API int64_t sn_fake_length(const sn_fake_sensor *s, uint32_t i, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* SENSIM_TESTING_H */
