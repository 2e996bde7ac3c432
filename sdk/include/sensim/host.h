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
#include <sensim/map.h>
#include <sensim/v2x.h>

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
    /* ---- ABI 1.5 (anti-aliasing): read only when struct_size reaches it ---- */
    /* Colour samples per pixel side, 0 or 1: one at the pixel centre; 2..4: n x n on a regular
    ** grid inside each pixel, averaged in linear light (gamma 2.2) into bgra. With samples > 1,
    ** tag and instance must be NULL (tags and ids are never blended); depth, if given, gets each
    ** pixel's nearest sample (older hosts refuse it with SN_E_INVALID). */
    uint32_t samples;
} sn_image;

/*
** What render_motion_grid() writes beside its colour render (ABI 1.6, sixth revision): one value
** per div x div image pixels, (width / div) x (height / div) of them, row by row, each of the
** point seen by one colour sample of that cell: the sample nearest the cell's centre (with
** samples s per pixel side, column x div s + div s / 2 of the s-times-larger grid, and row the
** same; ties to the right and below). Set struct_size first.
*/
typedef struct sn_motion_grid {
    uint32_t struct_size;
    uint32_t div;       /* >= 1; div 1 and samples 1: each pixel's own, as render_motion() */
    float *depth;       /* planar depth, metres (the far clip where nothing is hit) */
    uint32_t *instance; /* actor id, 0 where nothing is hit */
    float *motion;      /* 3 floats a value: as render_motion()'s motion, of that point */
} sn_motion_grid;

/* The layers of the world render_layer_at() draws (ABI 1.6, third revision). */
enum { SN_LAYER_ALL = 0, SN_LAYER_STILL = 1, SN_LAYER_MOVING = 2 };

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

    /* ---- the road map (ABI 1.4): check host->hdr.abi_minor >= 4 before calling ---- */
    /*
    ** The scene's OpenDRIVE map through sensim/map.h's queries (CARLA's carla.Map), for
    ** sensors that need lanes (lane invasion, RSS). Without a map every call but has_map
    ** returns SN_E_NOT_FOUND. Failures set this sensor's error text (set_error) so a callback
    ** may return the status as it is. Lists go to the caller's buffers: the first min(cap, *n)
    ** items, *n counting all.
    */
    bool (*has_map)(sn_ctx *ctx);
    /* CARLA's get_waypoint(location, project_to_road, lane_type): lane_types a mask of sn_lane_type. */
    sn_status (*map_waypoint)(sn_ctx *ctx, sn_vec3 location, bool project_to_road, uint32_t lane_types,
                              sn_waypoint *out);
    /* CARLA's next(d) / previous(d): every branch `distance` m along the lane's direction of travel. */
    sn_status (*map_next)(sn_ctx *ctx, const sn_waypoint *wp, double distance, sn_waypoint *out, size_t cap,
                          size_t *n);
    sn_status (*map_previous)(sn_ctx *ctx, const sn_waypoint *wp, double distance, sn_waypoint *out, size_t cap,
                              size_t *n);
    /* CARLA's get_left_lane() (left true) / get_right_lane(). */
    sn_status (*map_side_lane)(sn_ctx *ctx, const sn_waypoint *wp, bool left, sn_waypoint *out);
    /* The lane markings the segment a -> b crosses, in order from a (a lane invasion sensor's question). */
    sn_status (*map_marks_crossed)(sn_ctx *ctx, sn_vec3 a, sn_vec3 b, sn_mark_crossing *out, size_t cap,
                                   size_t *n);

    /* ---- also ABI 1.4 (ray sensors): check host->hdr.abi_minor >= 4, or SN_HOST_HAS(host,
    ** member) (the table's size covers the member and it is set) before calling one ---- */
    /*
    ** ray_batch() at times inside the last frame interval (clock->time_ns - clock->dt_ns,
    ** clock->time_ns], as render_at() renders: every actor's pose interpolated between the end
    ** of the previous frame and now (position linearly, rotation spherical-linearly; attached
    ** actors ride on their parent). n_times is 1 (every ray at time_ns[0]) or n (ray i at
    ** time_ns[i]). Rays are grouped by time and the moving geometry is re-posed once per
    ** distinct time (a refit): a spinning lidar's column of rays shares one time. When nothing
    ** moved during the frame every time sees the same world and the batch is traced at once.
    ** SN_E_RANGE (with a message) for a time outside the interval, SN_E_STATE before the world
    ** has advanced to this frame (call it from tick(POST)). Same results at any thread count.
    */
    sn_status (*ray_batch_at)(sn_ctx *ctx, const int64_t *time_ns, uint32_t n_times, const sn_ray_query *q,
                              const sn_ray *rays, uint32_t n, sn_ray_result *out);
    /*
    ** The simulated time since this sensor's previous POST tick, in integer nanoseconds: the
    ** frame's dt_ns when it ticks every frame, a multiple of it with sensor_tick, dt_ns at its
    ** first tick (CARLA passes Unreal's DeltaTime, the same quantity). 0 from a class context.
    */
    int64_t (*tick_interval_ns)(sn_ctx *ctx);
    /*
    ** Whether attribute `name` was given for this sensor (in the scene, by --set or by the API)
    ** rather than left at its blueprint default: for CARLA's "seed only when given" rules.
    ** false for a name the blueprint does not have.
    */
    bool (*attribute_given)(sn_ctx *ctx, const char *name);

    /* ---- also ABI 1.4 (optical flow): check abi_minor >= 4 or SN_HOST_HAS(host, member) ---- */
    /*
    ** render() of the world now, plus the motion of what each pixel sees: motion[3 i .. 3 i + 2]
    ** (the caller's buffer, width*height*3 floats) gets where the material point pixel i sees
    ** was at the end of the previous frame (clock->time_ns - clock->dt_ns) minus where it is
    ** now, in world metres (x, y, z). The point rides on the actor it belongs to (rigidly:
    ** translation and rotation between the two poses; attached actors ride on their parent);
    ** static actors and the map's roads never move, so theirs is 0, and so is a pixel where
    ** nothing is hit (tag Sky). The camera's own motion is not in it: with
    ** sensor_transform_prev() a plugin projects each point through its previous pose (optical
    ** flow). Same statuses as render(); SN_E_STATE before the world has advanced to this
    ** frame (call it from tick(POST)). Byte-identical at any thread count.
    */
    sn_status (*render_motion)(sn_ctx *ctx, const sn_camera *camera, const sn_image *out, float *motion);
    /* This sensor's world transform at the end of the previous frame: the start of the interval
    ** render_motion() measures (the spawn pose in the frame it was spawned). When the sensor did
    ** not move during the frame it is sensor_transform()'s value, bit for bit. */
    void (*sensor_transform_prev)(sn_ctx *ctx, sn_transform *out);

    /* ---- added in ABI 1.5: check host->hdr.abi_minor >= 5 or SN_HOST_HAS(host, member) ---- */
    /*
    ** Runs fn(arg, task) for every task in 0..n_tasks-1 on the engine's worker threads (the
    ** renderer's; the calling thread works too) and returns when all have finished. Tasks run
    ** in any order on any thread, several at once: each must write only its own part of the
    ** output (a band of rows) and call no function of this table, so results are the same at
    ** any thread count. A task should be worth a few microseconds at least (a row of pixels).
    ** SN_E_INVALID for a NULL fn; SN_E_STATE when called from inside a task; SN_E_NOMEM when
    ** the workers cannot be started. With n_tasks 0 it does nothing.
    */
    sn_status (*parallel_for)(sn_ctx *ctx, void (*fn)(void *arg, uint32_t task), void *arg, uint32_t n_tasks);

    /* ---- also ABI 1.5 (weather): check SN_HOST_HAS(host, weather) before calling ---- */
    /* The world's weather now (CARLA's get_weather; sensim/types.h), and a count that grows
    ** every time it is set (scene load, set_weather, replay): a recorder writes it when the
    ** count moves. */
    void (*weather)(sn_ctx *ctx, sn_weather *out, uint64_t *serial);

    /* ---- added in ABI 1.6: check SN_HOST_HAS(host, member) before calling ---- */
    /*
    ** overlap_sphere() with distances: every actor within `radius` of `centre` (touching
    ** counts), nearest first (distance, then id), as sn_overlap (sensim/query.h: the nearest
    ** point of its surface and the distance to it, 0 inside) at q->overlap_size strides; the
    ** first min(cap, *n_found) are written. q may be NULL (no filters). SN_E_INVALID (with a
    ** message) for a bad query, centre or radius.
    */
    sn_status (*overlap_sphere_nearest)(sn_ctx *ctx, const sn_ray_query *q, sn_vec3 centre, double radius,
                                        sn_overlap *out, uint32_t cap, uint32_t *n_found);
    /*
    ** The actors in a cone: apex, axis (any length), half angle in degrees (0, 180] and range
    ** (m): those within `range` of the apex whose nearest surface point lies inside the cone
    ** (a specular echo's condition: the surface faces the apex there), nearest first, as
    ** overlap_sphere_nearest. An ultrasonic or radar sensor's beam. SN_E_INVALID for a zero
    ** axis or an angle outside (0, 180].
    */
    sn_status (*overlap_cone)(sn_ctx *ctx, const sn_ray_query *q, sn_vec3 apex, sn_vec3 axis, double half_angle_deg,
                              double range, sn_overlap *out, uint32_t cap, uint32_t *n_found);
    /*
    ** The route an actor on a map autopilot plans (CARLA's Traffic Manager buffer): waypoints
    ** on lane centres, about 2 m apart, from near the vehicle ahead (about 80 m); the first
    ** min(cap, *n_found) go to out. *n_found 0 when the actor is not on a map autopilot.
    ** SN_E_NOT_FOUND for no such actor.
    */
    sn_status (*actor_route)(sn_ctx *ctx, uint32_t actor_id, sn_waypoint *out, uint32_t cap, uint32_t *n_found);
    /*
    ** The traffic lights and signs governing an actor's lanes within `distance` m (0..1000)
    ** ahead along its route (its autopilot's planned route, continued; without one, its lane
    ** from where it stands, at a fork the branch that turns least), in order along the route,
    ** each once: kind, the light's actor and state now, the signal id, a speed sign's limit,
    ** the stop line as a waypoint and its distance along the route. The lines are those the
    ** autopilot stops at (docs/traffic.md). `kinds` is a mask of sn_landmark_kind (0: all).
    ** out[0].struct_size must be set (the stride); *n_found counts all, min(cap, *n_found) are
    ** written. Nothing without a map or off the lanes. SN_E_NOT_FOUND for no such actor,
    ** SN_E_RANGE for a distance outside [0, 1000].
    */
    sn_status (*landmarks_ahead)(sn_ctx *ctx, uint32_t actor_id, double distance, uint32_t kinds, sn_landmark *out,
                                 uint32_t cap, uint32_t *n_found);
    /*
    ** The V2X medium (sensim/v2x.h): the one sensor.other.v2x_custom transmits on, with its path
    ** loss, fading and line of sight. v2x_join makes this sensor a station (from create, set or
    ** attach; once; p NULL: SN_V2X_PARAMS_INIT), its antenna at the sensor's pose, its station
    ** id its parent's, its fading drawn from a generator seeded from this sensor's random
    ** stream (one random_u64). It leaves when the sensor is destroyed. v2x_send queues a
    ** payload (1..SN_V2X_PAYLOAD_MAX bytes, copied) sent at the end of this frame's POST phase,
    ** with every sensor.other.v2x_custom message; v2x_received gives what reached this station
    ** then (the previous frame's messages, seen from this frame's PRE or POST tick), in sender
    ** order (station id, then sensor id): out[0].struct_size set, *n_found counts all,
    ** min(cap, *n_found) written, payloads valid until the callback returns. Plugins' stations
    ** share the text sensors' propagation but not their channels: a plugin hears plugins.
    ** SN_E_UNSUPPORTED when the v2x plugin is not loaded; SN_E_STATE for send or received
    ** before v2x_join, for a second join, or from a class context; SN_E_RANGE for a setting
    ** outside its range or a bad size. Deterministic at any thread count.
    */
    sn_status (*v2x_join)(sn_ctx *ctx, const sn_v2x_params *p);
    sn_status (*v2x_send)(sn_ctx *ctx, const void *payload, uint32_t size);
    sn_status (*v2x_received)(sn_ctx *ctx, sn_v2x_message *out, uint32_t cap, uint32_t *n_found);

    /* ---- ABI 1.6, second revision (motion blur's shortcut): SN_ABI_MINOR stays 6, so check
    ** SN_HOST_HAS(host, scene_motion) before calling it ---- */
    /*
    ** How far, at most, any point of any actor (sensors aside) moved during this frame, in metres:
    ** an upper bound from each actor's change of pose (its origin's move plus its turn times its
    ** bounding radius, doubled); exactly 0 when no pose changed, bit for bit. With your own move
    ** (sensor_transform_prev() against sensor_transform()) it bounds render_motion()'s vectors
    ** without drawing them: the RGB camera skips its motion render when they would blur nothing.
    ** +infinity before the world has advanced to this frame (render_motion() then says why).
    */
    double (*scene_motion)(sn_ctx *ctx);

    /* ---- ABI 1.6, third revision (motion blur from sub-frame renders): SN_ABI_MINOR stays 6, so
    ** check SN_HOST_HAS(host, render_layer_at) before calling it ---- */
    /*
    ** render_at() of one layer of the world (sn_render_layer): SN_LAYER_STILL draws what did not
    ** move during the last frame (static actors, the roads and scenery, and every actor whose pose
    ** at the frame's start and end is the same, bit for bit); SN_LAYER_MOVING draws the others,
    ** at their pose at time_ns, and nothing else: where none is hit, depth is the far clip, tag
    ** Sky, id 0 and bgra (0, 0, 0, 0); its alpha is the share of the pixel's colour samples that
    ** hit a moving actor, the colour premultiplied by it. Both are lit and shadowed by everything
    ** (at time_ns; after the same frame's still layer at clock->time_ns, the moving layer reuses
    ** its sun shadow map, the moving actors in it at their pose then). SN_LAYER_ALL is
    ** render_at(). time_ns may be the frame's start too:
    ** [clock->time_ns - clock->dt_ns, clock->time_ns]. Same statuses as render_at(); SN_E_INVALID
    ** for another layer. Motion blur's sub-frames: the still layer once, the moving one at
    ** instants across the shutter.
    */
    sn_status (*render_layer_at)(sn_ctx *ctx, int64_t time_ns, const sn_camera *camera, const sn_image *out,
                                 uint32_t layer);

    /* ---- ABI 1.6, fourth revision (bulk data written in place): SN_ABI_MINOR stays 6, so check
    ** SN_HOST_HAS(host, write_bin_room) before calling it ---- */
    /*
    ** write_bin() without the copy: writes the header of a bin of n bytes where a value goes and
    ** returns where its n bytes go, inside the message itself, for serialize() to encode its data
    ** straight there. Ownership: the memory is the host's; the plugin writes all n bytes (every
    ** one: they are the message) before its next call to the writer and before serialize()
    ** returns, and keeps no pointer into it past that (the next write may move it). The pointer
    ** has no alignment (it follows the bin's 5-byte header): write through memcpy or bytes, never
    ** through a cast to float * or uint32_t *. Bytes left unwritten go into the stream as they
    ** are. NULL when write_bin would have refused (n over 4 GiB, out of memory, a value where a
    ** key is due): the message is then dropped, and serialize() returns SN_E_INVALID as after a
    ** refused write.
    */
    void *(*write_bin_room)(sn_writer *w, size_t n);

    /* ---- ABI 1.6, fifth revision (compact ray batches): SN_ABI_MINOR stays 6, so check
    ** SN_HOST_HAS(host, ray_batch_compact) before calling it ---- */
    /*
    ** ray_batch() writing only the fields out->fields asks for, as floats, each into an array of
    ** its own (sensim/query.h sn_ray_compact): the closest hit (SN_RAY_CLOSEST) or whether
    ** anything is there (SN_RAY_ANY), the same hit as ray_batch's. For a lidar or an occlusion
    ** test that reads a few fields: it does not pay for 112-byte results. Every array is the
    ** caller's, written during the call only. SN_E_INVALID (with a message) for another mode,
    ** per-ray ignore pairs, an empty or unknown mask, or a NULL array of a field asked for.
    */
    sn_status (*ray_batch_compact)(sn_ctx *ctx, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                                   const sn_ray_compact *out);

    /* ---- ABI 1.6, sixth revision (motion blur's vectors from the colour render): SN_ABI_MINOR
    ** stays 6, so check SN_HOST_HAS(host, render_motion_grid) before calling it ---- */
    /*
    ** render() of the world now, anti-aliased or not (out->samples), plus a coarse grid of what
    ** render_motion() measures (sn_motion_grid: depth, actor id and motion of one colour sample
    ** per div x div pixels), taken from the colour render's own samples as it resolves them: motion
    ** blur's vectors without a second render of the scene. Same statuses as render_motion()
    ** (SN_E_UNSUPPORTED for a test world's painter); SN_E_INVALID for a NULL grid buffer, div 0
    ** or a div larger than the image. Byte-identical at any thread count.
    */
    sn_status (*render_motion_grid)(sn_ctx *ctx, const sn_camera *camera, const sn_image *out,
                                    const sn_motion_grid *grid);
} sn_host;

/* Whether `host` has member `m` (a member added after the table's first release). */
#define SN_HOST_HAS(host, m) \
    ((host)->hdr.struct_size >= offsetof(sn_host, m) + sizeof(void *) && (host)->m != NULL)

#endif
