/*
** sensim/host.h — the table of functions the host hands to every plugin instance.
**
** Plugins never link against the engine: everything they need from the world comes through
** this table, which is versioned like every boundary struct (it grows at its end; check
** host->hdr.abi_minor or host->hdr.struct_size before calling a member added after 1.0).
** A test can hand a plugin a fake table.
**
** Threading: the host calls a plugin instance from one thread at a time. Functions of this
** table may be called only from inside a callback of the instance that owns `ctx`.
*/
#ifndef SENSIM_HOST_H
#define SENSIM_HOST_H

#include <sensim/abi.h>
#include <sensim/attr.h>
#include <sensim/types.h>
#include <sensim/query.h>

/* Opaque: one per sensor instance, owned by the host. */
typedef struct sn_ctx sn_ctx;
/* Opaque: the msgpack writer of the message being serialized, owned by the host. */
typedef struct sn_writer sn_writer;

/*
** A camera for host->render (ABI 1.1). It looks along the x axis of its transform (CARLA's
** convention: x forward, y right, z up); the image's rows go down, its columns right.
*/
typedef struct sn_camera {
    uint32_t struct_size;
    sn_transform transform; /* world pose */
    uint32_t width, height; /* pixels, 1..16384 */
    double fov;             /* horizontal field of view, degrees, in (0, 180) */
    double near_clip;       /* metres, > 0: nearer surfaces are cut away */
    double far_clip;        /* metres, > near_clip: farther surfaces are not drawn */
} sn_camera;

/*
** Buffers the renderer fills, each width*height entries in row-major order, owned by the
** caller (allocate once, reuse every frame). Any of them may be NULL and is then not computed.
** Where nothing is hit: depth = far_clip, tag = SN_TAG_SKY, instance = 0, colour = the sky's.
*/
typedef struct sn_image {
    uint32_t struct_size;
    float *depth;       /* planar depth along the optical axis, metres */
    uint8_t *bgra;      /* 4 bytes per pixel: B, G, R, A=255; Lambert-shaded actor colours */
    uint8_t *tag;       /* semantic tag (sn_tag) */
    uint32_t *instance; /* actor id */
} sn_image;

/*
** The physics settings of the world (host->world_settings). Set struct_size first.
** Gravity is the one the physics applies; an accelerometer reads R^T (a - gravity), CARLA's
** "+9.81 on z" for a level sensor at rest.
*/
typedef struct sn_world_settings {
    uint32_t struct_size;
    sn_vec3 gravity;               /* m/s^2, world frame: (0, 0, -9.81) */
    double fixed_delta_seconds;    /* the frame's dt */
    double substep_delta_seconds;  /* the substep ODE takes: fixed_delta_seconds / substeps */
    uint32_t substeps;             /* ceil(fixed_delta_seconds / max_substep_delta_time) */
    uint32_t max_substeps;         /* the scene's settings */
    double max_substep_delta_time;
} sn_world_settings;

/*
** Motion of the sensor point (host->sensor_kinematics), world frame. For a sensor mounted at
** r (world vector from its parent's origin to the sensor), on a parent moving with v_p, a_p,
** angular velocity w and angular acceleration alpha (all of the parent's origin):
**   velocity = v_p + w x r,  acceleration = a_p + alpha x r + w x (w x r).
** Accelerations are over the last frame ((v - v_prev) / dt), without gravity. Angular rates
** are rad/s (CARLA's IMU gyroscope unit; sn_actor_info's angular_velocity is deg/s as CARLA's
** get_angular_velocity), right-hand rule in these axes: +z turns +x toward +y (yaw grows).
** CARLA's IMU reports the gyroscope in the sensor frame: R^T * angular_velocity, R the
** sensor's rotation (sensim/math.h sn_mat3_apply_t). A free-standing sensor reports its own.
*/
typedef struct sn_kinematics {
    uint32_t struct_size;
    sn_transform transform;        /* the sensor's world pose now */
    sn_vec3 velocity;              /* m/s */
    sn_vec3 acceleration;          /* m/s^2, gravity not included */
    sn_vec3 angular_velocity;      /* rad/s */
    sn_vec3 angular_acceleration;  /* rad/s^2, over the last frame */
} sn_kinematics;

typedef struct sn_host {
    sn_abi_header hdr;

    /* ---- messages ---- */
    /* Logs one line to stderr, prefixed with the sensor's name. */
    void (*log)(sn_ctx *ctx, sn_log_level level, const char *fmt, ...) SN_PRINTF(3, 4);
    /* Sets the error message that goes with the failing status a callback returns. */
    void (*set_error)(sn_ctx *ctx, const char *fmt, ...) SN_PRINTF(2, 3);

    /* ---- this sensor ---- */
    /* Name of the sensor in the scene (host-owned, lives as long as the instance). */
    const char *(*sensor_name)(sn_ctx *ctx);
    /* The sensor's own actor id. */
    uint32_t (*sensor_id)(sn_ctx *ctx);
    /* The sensor's world transform now. */
    void (*sensor_transform)(sn_ctx *ctx, sn_transform *out);

    /* ---- clock ---- */
    const sn_clock *(*clock)(sn_ctx *ctx);

    /* ---- actors ---- */
    /* Number of live actors (sensors included). */
    uint32_t (*actor_count)(sn_ctx *ctx);
    /* Id of the index-th live actor, in ascending id order; 0 if out of range. */
    uint32_t (*actor_id_at)(sn_ctx *ctx, uint32_t index);
    /* Fills *out (set out->struct_size first). SN_E_NOT_FOUND if no live actor has that id. */
    sn_status (*actor_get)(sn_ctx *ctx, uint32_t id, sn_actor_info *out);

    /* ---- queries ---- */
    /*
    ** Casts a ray from origin along dir (need not be unit) up to max_distance. Actors
    ** `ignore_id` and its attached children are skipped (0 skips none). Returns true and
    ** fills *hit when something is hit. Since ABI 1.2 it is ray_batch() of one ray (a ray
    ** starting inside a shape hits it at distance 0).
    */
    bool (*ray_cast)(sn_ctx *ctx, sn_vec3 origin, sn_vec3 dir, double max_distance,
                     uint32_t ignore_id, sn_ray_hit *hit);

    /* ---- random: a stream per sensor, seeded from the scene seed and the sensor name ---- */
    uint64_t (*random_u64)(sn_ctx *ctx);
    double (*random_uniform)(sn_ctx *ctx); /* [0, 1) */
    double (*random_normal)(sn_ctx *ctx, double mean, double stddev);

    /* ---- msgpack writer: only valid inside serialize() ---- */
    /*
    ** A message is a map. Inside serialize() the plugin writes its own keys with
    ** write_key followed by exactly one value each; the host writes the header keys (frame,
    ** timestamp, sensor, type, sensor_id, transform) in front. Containers: write_array(n) /
    ** write_map(n) then n values (n key/value pairs for maps). The host checks the structure
    ** and refuses a malformed message with SN_E_INVALID.
    */
    sn_status (*write_key)(sn_writer *w, const char *key);
    sn_status (*write_nil)(sn_writer *w);
    sn_status (*write_bool)(sn_writer *w, bool v);
    sn_status (*write_int)(sn_writer *w, int64_t v);
    sn_status (*write_uint)(sn_writer *w, uint64_t v);
    sn_status (*write_float)(sn_writer *w, float v);
    sn_status (*write_double)(sn_writer *w, double v);
    sn_status (*write_str)(sn_writer *w, const char *s);
    sn_status (*write_strn)(sn_writer *w, const char *s, size_t n);
    /* Bulk data: one bin of a documented little-endian record layout. */
    sn_status (*write_bin)(sn_writer *w, const void *data, size_t n);
    sn_status (*write_array)(sn_writer *w, uint32_t n);
    sn_status (*write_map)(sn_writer *w, uint32_t n);
    /* Convenience: [x, y, z] as three doubles. */
    sn_status (*write_vec3)(sn_writer *w, sn_vec3 v);
    /*
    ** Convenience: {id, type_id, semantic_tag} of a live actor, CARLA's actor fields.
    ** SN_E_NOT_FOUND if the actor is gone: copy what you need at event time instead.
    */
    sn_status (*write_actor)(sn_writer *w, uint32_t actor_id);

    /* ---- added in ABI 1.1: check host->hdr.abi_minor >= 1 before calling ---- */
    /*
    ** Renders the world as it is now through `camera` into `out` (see sn_camera, sn_image),
    ** on the engine's worker threads; the result is the same byte for byte at any thread
    ** count. SN_E_INVALID (with a message) for a bad camera. Call it from tick().
    */
    sn_status (*render)(sn_ctx *ctx, const sn_camera *camera, const sn_image *out);

    /* ---- added in ABI 1.2: check host->hdr.abi_minor >= 2 before calling ---- */
    /*
    ** Renders the world as it was at simulated time `time_ns` inside the last frame interval,
    ** (clock->time_ns - clock->dt_ns, clock->time_ns]: every actor's pose is interpolated
    ** between its pose at the end of the previous frame and now (position linearly, rotation
    ** spherical-linearly; attached actors ride on their parent). For sub-frame sensors (DVS).
    ** render() is render_at(clock->time_ns). SN_E_RANGE (with a message) for a time outside
    ** the interval; SN_E_STATE before the world has advanced to this frame (from tick(PRE) or
    ** a world event: call it from tick(POST) or later). Byte-identical at any thread count.
    */
    sn_status (*render_at)(sn_ctx *ctx, int64_t time_ns, const sn_camera *camera, const sn_image *out);
    /* This sensor's world transform at `time_ns` in the same interval (its parent's pose
    ** interpolated, composed with the mount). SN_E_RANGE outside the interval. */
    sn_status (*sensor_transform_at)(sn_ctx *ctx, int64_t time_ns, sn_transform *out);
    /*
    ** The value of attribute `name` a live actor was spawned with (resolved and typed:
    ** the blueprint's default when not set). Strings in *out are host-owned and live as long
    ** as the actor. SN_E_NOT_FOUND for no such actor or attribute.
    */
    sn_status (*actor_attribute)(sn_ctx *ctx, uint32_t actor_id, const char *name, sn_value *out);
    /*
    ** Every attribute of an actor, in its blueprint's order: the index-th one's name and value
    ** (host-owned, living as long as the actor). SN_E_NOT_FOUND past the last one or for no
    ** such actor. With actor_get this describes an actor completely (a recorder's spawn record).
    */
    sn_status (*actor_attribute_at)(sn_ctx *ctx, uint32_t actor_id, uint32_t index, const char **name,
                                    sn_value *out);

    /* ---- sensor kinematics and world settings (ABI 1.2) ---- */
    /* The state this sensor's class shares in this engine (class_create's), NULL without one. */
    void *(*class_state)(sn_ctx *ctx);
    /* Gravity and the physics step (set out->struct_size first). */
    void (*world_settings)(sn_ctx *ctx, sn_world_settings *out);
    /* The sensor's mount: its transform relative to its parent's origin; a free-standing
    ** sensor's world transform (CARLA's sensor_relative_transform). */
    void (*sensor_mount)(sn_ctx *ctx, sn_transform *out);
    /* Pose, velocities and accelerations at the sensor point (see sn_kinematics; set
    ** out->struct_size first). SN_E_NOT_FOUND from a class context (no sensor). */
    sn_status (*sensor_kinematics)(sn_ctx *ctx, sn_kinematics *out);
    /* Restarts this sensor's random stream from `seed` (CARLA's noise_seed): the draws that
    ** follow are those of a fresh stream with that seed, whatever the scene seed and name. */
    void (*random_seed)(sn_ctx *ctx, uint64_t seed);
    /* The scene's geo-reference: the latitude, longitude (degrees) and altitude (m) of the
    ** world origin (settings.georeference; 0, 0, 0 when not given). */
    void (*geo_reference)(sn_ctx *ctx, sn_geo_location *out);
    /* A world location as latitude, longitude, altitude with CARLA's GeoLocation::Transform
    ** (a Mercator projection scaled at the reference latitude; north is -y, altitude is the
    ** reference's plus z). SN_E_INVALID for a non-finite location. */
    sn_status (*world_to_geo)(sn_ctx *ctx, sn_vec3 location, sn_geo_location *out);

    /* ---- ray queries (ABI 1.2) ---- */
    /*
    ** Traces n rays (sensim/query.h) on the engine's worker threads through an index of every
    ** actor's geometry, built at most once per frame: out[i] (at result_size strides) gets ray
    ** i's nearest hit, or in SN_RAY_ALL every actor along it, nearest first, into q->hits.
    ** Buffers are the caller's; results are the same at any thread count. SN_E_INVALID (with a
    ** message) for a malformed query; a bad ray only hits nothing. ray_cast() is a batch of one.
    */
    sn_status (*ray_batch)(sn_ctx *ctx, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                           sn_ray_result *out);
    /* A ball of `radius` moved along *ray: where it first touches something (distance = how far
    ** its centre went; point = the contact; normal from the surface toward the centre), or in
    ** SN_RAY_ALL every actor it touches. Touching at the start is distance 0. */
    sn_status (*sweep_sphere)(sn_ctx *ctx, const sn_ray_query *q, const sn_ray *ray, double radius,
                              sn_ray_result *out);
    /* Ids of the actors that intersect the ball (touching counts), ascending: the first
    ** min(cap, *n_found) go to ids. q (may be NULL) gives the filters only. */
    sn_status (*overlap_sphere)(sn_ctx *ctx, const sn_ray_query *q, sn_vec3 centre, double radius,
                                uint32_t *ids, uint32_t cap, uint32_t *n_found);

    /* ---- added in ABI 1.3: check host->hdr.abi_minor >= 3 before calling ---- */
    /*
    ** Writes one value already encoded as msgpack (bytes[0..n), the caller's, copied), where a
    ** value goes: for a part repeated across a frame's messages, encoded once with
    ** sensim/pack.h. SN_E_INVALID unless the bytes are exactly one well-formed value built of
    ** what the other write_* calls make (no ext types; map keys are strings), nested no deeper
    ** than the writer allows.
    */
    sn_status (*write_packed)(sn_writer *w, const void *bytes, size_t n);
} sn_host;

#endif
