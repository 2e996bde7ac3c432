/*
** sensim/query.h — batched ray queries, sphere sweeps and overlaps (ABI 1.2), the types of
** host->ray_batch, host->sweep_sphere and host->overlap_sphere.
**
** The host answers them from a spatial index over every actor's geometry (the triangles the
** cameras draw: boxes, the tessellated spheres and cylinders) plus the ground planes, exactly
** (half-spaces); the index is rebuilt at most once per frame, on the first query after the
** world changed. Queries see the world as it is now (the end of the frame), in double
** precision. Results are per ray and identical at any thread count.
**
** Sizes: sn_ray and sn_ray_result are array elements; the host steps through the caller's
** arrays by the sizes in sn_ray_query (ray_size, result_size, hit_size), so every one of them
** can grow. Start from SN_RAY_QUERY_INIT, which sets them to this header's sizeof.
*/
#ifndef SENSIM_QUERY_H
#define SENSIM_QUERY_H

#include <sensim/types.h>

typedef enum sn_ray_mode {
    SN_RAY_CLOSEST = 0, /* the nearest hit of each ray */
    SN_RAY_ALL = 1,     /* every actor the ray meets, nearest first (one hit per actor) */
    /* Since ABI 1.3: whether anything lies along the ray (n_hits and n_found 1, else 0), with
    ** the same filters and reach as SN_RAY_CLOSEST. The search stops at the first hit it
    ** finds, so `hit` is left zero (which one is met first is no property of the world). For
    ** visibility tests (line of sight, shadow rays): cheaper than SN_RAY_CLOSEST on blocked
    ** rays. Sweeps answer it as SN_RAY_CLOSEST. */
    SN_RAY_ANY = 2,
    /* Since sensim 0.1 (no ABI change: a mode value): every surface the ray enters, nearest
    ** first, into q->hits as SN_RAY_ALL: each triangle and plane met from its front, so one
    ** actor (the map: its roads, sidewalks, marks) may give several hits; where the ray leaves a
    ** solid is not reported. A ray starting inside a solid reports that actor at distance 0, as
    ** SN_RAY_ALL does. Hits of one actor closer than 1e-6 m (a ray through a shared edge) are one.
    ** CARLA's world.cast_ray (python/sensim/rays.py). Sweeps answer it as SN_RAY_ALL. */
    SN_RAY_EVERY = 3
} sn_ray_mode;
/* Whether a mode writes many hits per ray into q->hits. */
#define SN_RAY_MODE_MANY(m) ((m) == SN_RAY_ALL || (m) == SN_RAY_EVERY)

/* One ray. The direction need not be unit; a zero or non-finite ray hits nothing, and so does
** one whose origin lies farther than SN_RAY_MAX_ORIGIN metres along any axis (the trace is in
** single precision, whose limit for an origin is 1.8e18; nothing in a world is that far). */
#define SN_RAY_MAX_ORIGIN 1e18
typedef struct sn_ray {
    sn_vec3 origin;
    sn_vec3 direction;
    double max_distance; /* metres along the direction, > 0 */
} sn_ray;

/*
** What to trace and what to skip. Filters apply to every kind of query:
** - ignore_ids[0..n_ignore): these actors and everything attached to them (as ray_cast's
**   ignore_id) are never hit; ids of actors that are gone are skipped silently;
** - tag_mask: bit (1u << tag) set = actors with that semantic tag can be hit; 0 = every tag;
** - kind_mask: bit (1u << sn_actor_kind) set = that kind of actor can be hit; 0 = every kind.
*/
typedef struct sn_ray_query {
    uint32_t struct_size;
    uint32_t ray_size, result_size, hit_size; /* strides of the caller's arrays, bytes */
    sn_ray_mode mode;
    const uint32_t *ignore_ids; /* caller-owned, read during the call only */
    uint32_t n_ignore;
    uint32_t tag_mask;
    uint32_t kind_mask;
    /*
    ** SN_RAY_ALL: the caller's buffer of n_rays * max_hits hits; ray i's hits start at hit
    ** index i * max_hits (byte offset i * max_hits * hit_size). Unused in SN_RAY_CLOSEST.
    */
    sn_ray_hit *hits;
    uint32_t max_hits;
    /* ---- ABI 1.6: read only when struct_size reaches them (older queries read as NULL, 0) ---- */
    /*
    ** Per-ray ignore pairs for ray_batch and ray_batch_at: NULL, or one pair per ray; ray i also
    ** skips actors ray_ignore[i][0] and ray_ignore[i][1] (0: none) and what is attached to
    ** them, on top of ignore_ids. For rays between two actors (line of sight from a sender to
    ** a receiver: neither blocks its own ray). Caller-owned, read during the call only.
    */
    const uint32_t (*ray_ignore)[2];
    /* The stride of overlap_sphere_nearest's and overlap_cone's sn_overlap arrays, bytes. */
    uint32_t overlap_size;
} sn_ray_query;

#define SN_RAY_QUERY_INIT                                                                               \
    {                                                                                                   \
        sizeof(sn_ray_query), sizeof(sn_ray), sizeof(struct sn_ray_result), sizeof(sn_ray_hit),       \
            SN_RAY_CLOSEST, NULL, 0, 0, 0, NULL, 0, NULL, sizeof(struct sn_overlap)                     \
    }
/* sizeof(sn_ray_query) in ABI 1.2 to 1.5 (before ray_ignore): what older plugins pass. */
#define SN_RAY_QUERY_SIZE_1_5 64u

/*
** One actor an overlap query found (ABI 1.6: host->overlap_sphere_nearest, host->overlap_cone),
** written at q->overlap_size strides into the caller's array, nearest first (distance, then
** actor id). `distance` is from the query's centre (a cone's apex) to `point`, the nearest point
** of the actor's surface (0, and the centre itself, when the centre is inside it). The map's
** roads are actor 0, listed once; ground planes report their own ids.
*/
typedef struct sn_overlap {
    uint32_t actor_id;
    uint8_t semantic_tag;
    double distance; /* m */
    sn_vec3 point;   /* world frame */
} sn_overlap;

/*
** The answer for one ray, written to the caller's slot (caller-owned). `hit` is the nearest
** hit (valid when n_hits > 0). In SN_RAY_ALL n_hits hits were written to the query's buffer
** and n_found counts every actor met, more than n_hits when max_hits was too small.
**
** A ray whose origin is inside a shape (the first surface it crosses is a way out) or below a
** ground plane reports distance 0 with that actor, the origin as the point and the reversed
** direction as the normal, as CARLA does.
*/
typedef struct sn_ray_result {
    uint32_t n_hits;
    uint32_t n_found;
    sn_ray_hit hit;
} sn_ray_result;

/* sizeof(sn_ray_result) with a 1.2 sn_ray_hit (no velocity): the smallest result_size the
** host accepts, so plugins built before sn_ray_hit grew keep working (they get no velocity). */
#define SN_RAY_RESULT_SIZE_1_2 80u
/* sizeof(sn_ray_result) with a 1.4 sn_ray_hit (velocity, no reflectivity). */
#define SN_RAY_RESULT_SIZE_1_4 104u

/*
** Compact batches (sensim 0.1, ABI 1.6 fifth revision: host->ray_batch_compact,
** sn_engine_ray_batch_compact): the closest hit (SN_RAY_CLOSEST) or whether anything is there
** (SN_RAY_ANY) of each ray, but only the fields the caller asks for, each into an array of its
** own, one element per ray (as MuJoCo's mj_multiRay writes dist[] and geomid[]): a lidar that
** wants distance and intensity, or an occlusion test that wants one byte, pays for the memory
** of what it reads and not for sn_ray_result's 112 bytes of doubles. The values are those of
** the same query through ray_batch, the doubles rounded to float: the same hit, refined in
** double precision, so every field equals the full result's (tests/unit/test_rays_compact.c).
*/
typedef enum sn_ray_field {
    SN_RAY_FIELD_HIT = 1u << 0,          /* uint8_t: 1 when the ray hit something (n_hits > 0), else 0 */
    SN_RAY_FIELD_DISTANCE = 1u << 1,     /* float: hit.distance; -1 for a miss (a hit may be at 0) */
    SN_RAY_FIELD_ACTOR = 1u << 2,        /* uint32_t: hit.actor_id; 0 for a miss (the map's roads are 0 too) */
    SN_RAY_FIELD_TAG = 1u << 3,          /* uint8_t: hit.semantic_tag; 0 for a miss */
    SN_RAY_FIELD_NORMAL = 1u << 4,       /* float x 3 per ray: hit.normal (unit, facing the ray); 0s for a miss */
    SN_RAY_FIELD_REFLECTIVITY = 1u << 5, /* float: hit.reflectivity; 0 for a miss */
} sn_ray_field;
/* Every field a compact batch knows. A mask with any other bit is refused (SN_E_INVALID). */
#define SN_RAY_FIELDS_ALL 0x3fu

/*
** Where a compact batch writes: `fields` is a mask of sn_ray_field, non-zero; the array of every
** field in it must be non-NULL and hold n elements (normal: 3 n floats, x y z per ray); arrays
** of fields not in the mask are not touched and may be NULL. Every array is the caller's, written
** during the call only. SN_RAY_ANY answers SN_RAY_FIELD_HIT alone. Start from
** SN_RAY_COMPACT_INIT; the struct only grows at its end.
*/
typedef struct sn_ray_compact {
    uint32_t struct_size;
    uint32_t fields;
    uint8_t *hit;
    float *distance;
    uint32_t *actor_id;
    uint8_t *semantic_tag;
    float *normal;
    float *reflectivity;
} sn_ray_compact;

#define SN_RAY_COMPACT_INIT {sizeof(sn_ray_compact), 0, NULL, NULL, NULL, NULL, NULL, NULL}

#endif
