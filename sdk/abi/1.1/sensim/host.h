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
#include <sensim/types.h>

/* Opaque: one per sensor instance, owned by the host. */
typedef struct sn_ctx sn_ctx;
/* Opaque: the msgpack writer of the message being serialized, owned by the host. */
typedef struct sn_writer sn_writer;

typedef enum sn_log_level {
    SN_LOG_DEBUG = 0,
    SN_LOG_INFO = 1,
    SN_LOG_WARN = 2,
    SN_LOG_ERROR = 3
} sn_log_level;

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
    ** fills *hit when something is hit.
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
} sn_host;

#endif
