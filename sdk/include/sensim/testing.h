/*
** sensim/testing.h — a fake host for unit-testing a sensor plugin without the engine.
**
** Single header in the stb style: include it anywhere for the declarations, and in exactly
** one C file of your test program write
**
**     #define SN_TESTING_IMPLEMENTATION
**     #include <sensim/testing.h>
**
** The fake host holds a table of actors you describe, a clock you advance, and a seeded
** random stream; it runs your sensor's callbacks in the engine's order and records every
** message serialize() writes, checking its structure as the engine does. Read messages back
** by path ("normal_impulse.0", "other_actor.type_id") or as one JSON line.
**
**     sn_fake *f = sn_fake_new(42);
**     uint32_t car = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, pose, half_extent);
**     sn_fake_sensor *s = sn_fake_spawn(f, sn_plugin_entry, "sensor.other.mine",
**                                       (const char *[]){"range=20", NULL}, car);
**     sn_fake_begin_frame(f);                 // clock +1 frame, tick(PRE)
**     sn_fake_collision(s, car, other, impulse); // events go between PRE and POST
**     sn_fake_end_frame(f);                   // tick(POST), tick(OBSERVE), serialize
**     double x = sn_fake_number(s, 0, "normal_impulse.0");
**     sn_fake_free(f);
**
** Link the plugin's C file into the test, or load its built .so with sn_fake_open().
** Ownership: sn_fake_free() frees the fake and every sensor, message and string it handed
** out; pointers returned by the accessors live until the next sn_fake_end_frame() or
** sn_fake_serialize() of that sensor. Single-threaded, like the engine's calls into plugins.
** Differences from the engine: no physics (ray casts go to a callback you set, or miss;
** ray_batch, sweep_sphere and overlap_sphere use that callback for nearest hits, else test
** every actor's bounding box, a sweep against boxes grown by its radius),
** every POST tick is due (sensor_tick is not applied), and events are only the ones you send.
*/
#ifndef SENSIM_TESTING_H
#define SENSIM_TESTING_H

#include <sensim/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_fake sn_fake;
/* A sensor instance spawned in the fake; it is the sn_ctx its plugin receives. */
typedef struct sn_ctx sn_fake_sensor;

/* Casts for the host's ray_cast; return true and fill *hit on a hit. */
typedef bool (*sn_fake_ray_fn)(void *user, sn_vec3 origin, sn_vec3 dir, double max_distance,
                               uint32_t ignore_id, sn_ray_hit *hit);

/* Renders for host->render; fill the non-NULL buffers of out and return SN_OK. */
typedef sn_status (*sn_fake_render_fn)(void *user, const sn_camera *camera, const sn_image *out);

/* A new fake world at frame 0, time 0, dt 0.05 s. NULL only when out of memory. */
sn_fake *sn_fake_new(uint64_t seed);
/* Destroys every sensor (calling destroy), closes opened plugins, frees everything. NULL-safe. */
void sn_fake_free(sn_fake *f);
/* The last error: a failed spawn or callback, or a malformed message. "" when none. */
const char *sn_fake_error(const sn_fake *f);
/* Quiet (default) or echo plugin log lines to stderr; they are counted either way. */
void sn_fake_verbose(sn_fake *f, bool on);
/* Log lines written by plugins so far, and the last one. */
uint32_t sn_fake_log_count(const sn_fake *f);
const char *sn_fake_last_log(const sn_fake *f);

/* ---- the world ---- */
/* Adds an actor; returns its id (1, 2, ...). extent: half sizes of its bounding box. */
uint32_t sn_fake_add_actor(sn_fake *f, const char *type_id, sn_tag tag, sn_transform pose,
                           sn_vec3 extent);
/* The stored description of a live actor, to change its pose, velocity, parent, ... or NULL. */
sn_actor_info *sn_fake_actor(sn_fake *f, uint32_t id);
/* Removes an actor (actor_get then reports SN_E_NOT_FOUND). */
void sn_fake_remove_actor(sn_fake *f, uint32_t id);
void sn_fake_set_ray_cast(sn_fake *f, sn_fake_ray_fn fn, void *user);
/* Answers host->render (camera plugins); without it host->render is NULL, as on an old host. */
void sn_fake_set_render(sn_fake *f, sn_fake_render_fn fn, void *user);
/* The clock, e.g. to set dt before the first frame (dt_ns follows dt at the next frame). */
sn_clock *sn_fake_clock(sn_fake *f);
/* The geo-reference host->geo_reference and world_to_geo answer with (default 0, 0, 0). */
void sn_fake_set_georeference(sn_fake *f, sn_geo_location origin);

/* ---- sensors ---- */
/*
** dlopens a built plugin and returns its entry point (the fake closes it at free), or NULL
** with sn_fake_error set. Programs using it link with -ldl on systems older than glibc 2.34.
*/
sn_plugin_entry_fn sn_fake_open(sn_fake *f, const char *path);
/*
** Spawns a sensor of `blueprint` from the plugin whose entry is `entry`: create, set with
** the table defaults overridden by `attrs` ("name=value" strings, NULL-terminated, may be
** NULL), attach to `parent` (0: standing in the world). The sensor is the actor it creates,
** placed at the parent's pose or the origin. NULL on failure, with sn_fake_error saying why:
** unknown blueprint, bad attribute, or the plugin's own error.
*/
sn_fake_sensor *sn_fake_spawn(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint,
                              const char *const *attrs, uint32_t parent);
/* The actor id of a spawned sensor. */
uint32_t sn_fake_sensor_id(const sn_fake_sensor *s);

/* ---- driving the callbacks ---- */
/* Advances the clock one frame and ticks every sensor that asked for SN_PHASE_PRE. */
sn_status sn_fake_begin_frame(sn_fake *f);
/* Delivers a collision of `self` with `other` (impulse N*s on self) in the current frame. */
sn_status sn_fake_collision(sn_fake_sensor *s, uint32_t self, uint32_t other, sn_vec3 impulse);
/* Delivers any event (its frame is set to the current one). */
sn_status sn_fake_event(sn_fake_sensor *s, const sn_event *event);
/* Ticks POST then OBSERVE for every sensor that asked for them, then serializes each. */
sn_status sn_fake_end_frame(sn_fake *f);
/* One callback by hand. */
sn_status sn_fake_tick(sn_fake_sensor *s, sn_phase phase);
sn_status sn_fake_call(sn_fake_sensor *s, const char *method, uint32_t argc, const char *const *argv);
/* Records this sensor's pending messages (dropping the previous record); returns the status. */
sn_status sn_fake_serialize(sn_fake_sensor *s);

/* ---- reading what serialize wrote ---- */
/* Messages recorded by the last serialize of this sensor. */
uint32_t sn_fake_message_count(const sn_fake_sensor *s);
/* Message i as one JSON line, header keys included (bins as {"bin": size}). */
const char *sn_fake_json(sn_fake_sensor *s, uint32_t i);
/*
** Values by path: map keys and array indices joined by dots, "normal_impulse.2",
** "other_actor.id". has() says whether the path exists; number() reads any numeric or bool
** (NaN when absent or not a number); string() a str (NULL otherwise); bin() a bin's bytes
** (16-byte aligned, so they may be read as float or integer arrays).
*/
bool sn_fake_has(const sn_fake_sensor *s, uint32_t i, const char *path);
double sn_fake_number(const sn_fake_sensor *s, uint32_t i, const char *path);
const char *sn_fake_string(const sn_fake_sensor *s, uint32_t i, const char *path);
const void *sn_fake_bin(const sn_fake_sensor *s, uint32_t i, const char *path, size_t *size);
/* Number of items of the array or pairs of the map at path, or -1. */
int64_t sn_fake_length(const sn_fake_sensor *s, uint32_t i, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* SENSIM_TESTING_H */

/* ============================== implementation ============================== */
#ifdef SN_TESTING_IMPLEMENTATION
#ifndef SN_TESTING_IMPLEMENTED
#define SN_TESTING_IMPLEMENTED

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SNF_NIL, SNF_BOOL, SNF_INT, SNF_UINT, SNF_DOUBLE, SNF_STR, SNF_BIN, SNF_ARRAY, SNF_MAP } snf_kind;

/* A message is a flat preorder list of nodes; a container's items follow it. */
typedef struct snf_node {
    snf_kind kind;
    size_t key;   /* offset into text of the key when inside a map, else (size_t)-1 */
    uint32_t n;   /* items (array) or pairs (map) */
    double num;
    int64_t i;
    uint64_t u;
    size_t off, len; /* str/bin bytes in text */
} snf_node;

typedef struct snf_msg {
    size_t first, count; /* nodes */
} snf_msg;

struct sn_writer {
    struct sn_ctx *s;
    /* open containers: index of the node and how many values it still expects (-1: open map) */
    struct { size_t node; int64_t left; bool want_key; } stack[64];
    int depth;
    size_t pending_key;
    bool bad;
};

struct sn_ctx {
    sn_fake *fake;
    const sn_sensor_class *cls;
    void *self;
    uint32_t id, parent;
    sn_value *values;
    char **strings; /* attribute strings handed to set() */
    uint32_t n_values;
    char error[512];
    uint64_t rng[4];
    snf_node *nodes;
    size_t n_nodes, cap_nodes;
    char *text;
    size_t n_text, cap_text;
    snf_msg *msgs;
    uint32_t n_msgs, cap_msgs;
    char *json;
    struct sn_writer w;
};

struct sn_fake {
    sn_host host;
    sn_clock clock;
    uint64_t seed;
    sn_actor_info *actors;
    char **type_ids;
    uint32_t n_actors, cap_actors, cap_types, next_id;
    struct sn_ctx **sensors;
    uint32_t n_sensors, cap_sensors;
    void **libs;
    uint32_t n_libs;
    sn_fake_ray_fn ray;
    void *ray_user;
    sn_fake_render_fn render;
    void *render_user;
    bool verbose;
    uint32_t n_logs;
    char last_log[512];
    char error[768];
    struct { const sn_sensor_class *cls; void *state; struct sn_ctx *ctx; } classes[16]; /* ABI 1.2 class state */
    uint32_t n_classes;
    sn_geo_location georeference;
};

static void snf_fail(sn_fake *f, const char *fmt, ...) SN_PRINTF(2, 3);
static void snf_fail(sn_fake *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->error, sizeof f->error, fmt, ap);
    va_end(ap);
}

static bool snf_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return true;
    uint32_t n = *cap ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static char *snf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = (char *)malloc(n);
    return d ? (char *)memcpy(d, s, n) : NULL;
}

/* ---- host table: messages, sensor, clock, actors, queries, random ---- */

static void snf_log(sn_ctx *s, sn_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->fake->last_log, sizeof s->fake->last_log, fmt, ap);
    va_end(ap);
    s->fake->n_logs++;
    if (s->fake->verbose)
        fprintf(stderr, "[fake %s] %s\n", level >= SN_LOG_WARN ? "warning" : "info", s->fake->last_log);
}

static void snf_set_error(sn_ctx *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
}

static const char *snf_sensor_name(sn_ctx *s) { return s->cls->blueprint; }
static uint32_t snf_sensor_id(sn_ctx *s) { return s->id; }
static sn_actor_info *snf_find(sn_fake *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->n_actors; i++)
        if (f->actors[i].id == id)
            return &f->actors[i];
    return NULL;
}
static void snf_sensor_transform(sn_ctx *s, sn_transform *out)
{
    sn_actor_info *a = snf_find(s->fake, s->id);
    if (a)
        *out = a->transform;
    else
        memset(out, 0, sizeof *out);
}
static const sn_clock *snf_clock(sn_ctx *s) { return &s->fake->clock; }
static uint32_t snf_actor_count(sn_ctx *s) { return s->fake->n_actors; }
static uint32_t snf_actor_id_at(sn_ctx *s, uint32_t i) { return i < s->fake->n_actors ? s->fake->actors[i].id : 0; }
static sn_status snf_actor_get(sn_ctx *s, uint32_t id, sn_actor_info *out)
{
    sn_actor_info *a = snf_find(s->fake, id);
    if (!a)
        return SN_E_NOT_FOUND;
    uint32_t size = out->struct_size && out->struct_size < sizeof *out ? out->struct_size : (uint32_t)sizeof *out;
    memcpy(out, a, size);
    out->struct_size = size;
    return SN_OK;
}
static bool snf_ray_cast(sn_ctx *s, sn_vec3 o, sn_vec3 d, double max, uint32_t ignore, sn_ray_hit *hit)
{
    return s->fake->ray ? s->fake->ray(s->fake->ray_user, o, d, max, ignore, hit) : false;
}

/* ---- ray queries (ABI 1.2): the ray callback when set, else brute force over actor boxes ---- */
static void snf_axes(sn_rotation r, double m[9]) /* UE: R = Rz(yaw) Ry(-pitch) Rx(-roll), row-major */
{
    double k = 3.14159265358979323846 / 180, cp = cos(r.pitch * k), sp = sin(r.pitch * k), cy = cos(r.yaw * k),
           sy = sin(r.yaw * k), cr = cos(r.roll * k), sr = sin(r.roll * k);
    double a[9] = {cy * cp, -sy, -cy * sp, sy * cp, cy, -sy * sp, sp, 0, cp}; /* Rz Ry */
    double b[9] = {1, 0, 0, 0, cr, sr, 0, -sr, cr};                          /* Rx(-roll) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}
static bool snf_skip(sn_fake *f, const sn_ray_query *q, const sn_actor_info *a)
{
    if (a->kind == SN_ACTOR_SENSOR || (q && q->tag_mask && !((q->tag_mask >> a->semantic_tag) & 1u)) ||
        (q && q->kind_mask && !((q->kind_mask >> a->kind) & 1u)))
        return true;
    for (uint32_t k = 0; q && k < q->n_ignore; k++)
        for (const sn_actor_info *p = a; p && q->ignore_ids[k]; p = p->parent_id ? snf_find(f, p->parent_id) : NULL)
            if (p->id == q->ignore_ids[k])
                return true;
    return false;
}
/* Entry of o + t d (d unit) into an actor's box grown by r: t (0 from inside) and normal. */
static bool snf_box_ray(const sn_actor_info *a, sn_vec3 o, sn_vec3 d, double maxd, double r, double *t, sn_vec3 *n)
{
    double m[9], c[3], lo[3], ld[3], e[3] = {a->bounding_box.extent.x + r, a->bounding_box.extent.y + r,
                                             a->bounding_box.extent.z + r};
    snf_axes(a->transform.rotation, m);
    double bl[3] = {a->bounding_box.location.x, a->bounding_box.location.y, a->bounding_box.location.z};
    double p[3] = {a->transform.location.x, a->transform.location.y, a->transform.location.z};
    double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z};
    for (int i = 0; i < 3; i++)
        c[i] = p[i] + m[3 * i] * bl[0] + m[3 * i + 1] * bl[1] + m[3 * i + 2] * bl[2];
    for (int j = 0; j < 3; j++) {
        lo[j] = ld[j] = 0;
        for (int i = 0; i < 3; i++)
            lo[j] += m[3 * i + j] * (oo[i] - c[i]), ld[j] += m[3 * i + j] * dd[i];
    }
    double t0 = 0, t1 = maxd;
    int axis = -1;
    for (int j = 0; j < 3; j++) {
        if (ld[j] == 0) {
            if (fabs(lo[j]) > e[j])
                return false;
            continue;
        }
        double ta = (-e[j] - lo[j]) / ld[j], tb = (e[j] - lo[j]) / ld[j];
        if (ta > tb) {
            double x = ta;
            ta = tb, tb = x;
        }
        if (ta > t0)
            t0 = ta, axis = j;
        if (tb < t1)
            t1 = tb;
        if (t0 > t1)
            return false;
    }
    *t = t0;
    *n = (sn_vec3){-d.x, -d.y, -d.z};
    if (axis >= 0) {
        double sg = ld[axis] > 0 ? -1 : 1;
        *n = (sn_vec3){m[axis] * sg, m[3 + axis] * sg, m[6 + axis] * sg};
    }
    return true;
}
static int snf_hit_cmp(const void *a, const void *b)
{
    const sn_ray_hit *x = (const sn_ray_hit *)a, *y = (const sn_ray_hit *)b;
    return x->distance != y->distance ? (x->distance < y->distance ? -1 : 1)
                                      : (x->actor_id > y->actor_id) - (x->actor_id < y->actor_id);
}
static sn_status snf_query_check(sn_ctx *s, const sn_ray_query *q, bool hits)
{
    const char *why = !q ? "NULL query"
                      : q->struct_size < sizeof *q || q->ray_size < sizeof(sn_ray) || q->result_size < sizeof(sn_ray_result)
                          ? "struct sizes too small: start from SN_RAY_QUERY_INIT"
                      : (q->n_ignore && !q->ignore_ids) ? "n_ignore without ignore_ids"
                      : hits && q->mode == SN_RAY_ALL && q->max_hits && (!q->hits || q->hit_size < sizeof(sn_ray_hit))
                          ? "SN_RAY_ALL without a hits buffer"
                          : NULL;
    if (why)
        snprintf(s->fake->error, sizeof s->fake->error, "ray query: %s", why);
    return why ? SN_E_INVALID : SN_OK;
}
/* Every box (grown by r) along one ray, sorted, into the caller's slot i. */
static void snf_trace(sn_ctx *s, const sn_ray_query *q, const sn_ray *ray, double r, uint32_t i, sn_ray_result *out)
{
    sn_fake *f = s->fake;
    sn_ray_result res;
    memset(&res, 0, sizeof res);
    double l = sqrt(ray->direction.x * ray->direction.x + ray->direction.y * ray->direction.y +
                    ray->direction.z * ray->direction.z);
    sn_vec3 d = {ray->direction.x / l, ray->direction.y / l, ray->direction.z / l};
    char *dst = q->mode == SN_RAY_ALL && q->hits ? (char *)q->hits + (size_t)i * q->max_hits * q->hit_size : NULL;
    if (f->ray && r == 0) { /* the test's own caster answers: nearest hit only */
        sn_ray_hit h;
        memset(&h, 0, sizeof h);
        if (l > 0 && f->ray(f->ray_user, ray->origin, d, ray->max_distance, q->n_ignore ? q->ignore_ids[0] : 0, &h) &&
            !snf_skip(f, q, snf_find(f, h.actor_id) ? snf_find(f, h.actor_id) : &(sn_actor_info){0})) {
            res.n_found = 1, res.hit = h, res.n_hits = !dst || q->max_hits ? 1 : 0;
            if (dst && q->max_hits)
                memcpy(dst, &h, sizeof h);
        }
    } else if (l > 0 && isfinite(l) && ray->max_distance > 0) {
        sn_ray_hit best;
        for (uint32_t k = 0; k < f->n_actors; k++) {
            const sn_actor_info *a = &f->actors[k];
            double t;
            sn_vec3 n;
            if (snf_skip(f, q, a) || !snf_box_ray(a, ray->origin, d, ray->max_distance, r, &t, &n))
                continue;
            sn_ray_hit h;
            memset(&h, 0, sizeof h);
            h.distance = t, h.normal = n, h.actor_id = a->id, h.semantic_tag = a->semantic_tag;
            h.point = (sn_vec3){ray->origin.x + t * d.x - r * n.x, ray->origin.y + t * d.y - r * n.y,
                                ray->origin.z + t * d.z - r * n.z};
            if (!res.n_found || snf_hit_cmp(&h, &best) < 0)
                best = h;
            if (dst && res.n_found < q->max_hits) /* keep the nearest max_hits, sorted */
                memcpy(dst + (size_t)res.n_found * q->hit_size, &h, sizeof h);
            else if (dst && q->max_hits && snf_hit_cmp(&h, dst + (size_t)(q->max_hits - 1) * q->hit_size) < 0)
                memcpy(dst + (size_t)(q->max_hits - 1) * q->hit_size, &h, sizeof h);
            res.n_found++;
            if (dst) {
                uint32_t m = res.n_found < q->max_hits ? res.n_found : q->max_hits;
                for (uint32_t j = m; j > 1 && snf_hit_cmp(dst + (j - 1) * q->hit_size, dst + (j - 2) * q->hit_size) < 0; j--) {
                    sn_ray_hit x;
                    memcpy(&x, dst + (j - 1) * q->hit_size, sizeof x);
                    memcpy(dst + (j - 1) * q->hit_size, dst + (j - 2) * q->hit_size, sizeof x);
                    memcpy(dst + (j - 2) * q->hit_size, &x, sizeof x);
                }
            }
        }
        if (res.n_found)
            res.hit = best;
        res.n_hits = !dst ? (res.n_found ? 1 : 0) : (res.n_found < q->max_hits ? res.n_found : q->max_hits);
        if (!dst)
            res.n_found = res.n_hits;
    }
    memcpy((char *)out + (size_t)i * q->result_size, &res, sizeof res);
}
static sn_status snf_ray_batch(sn_ctx *s, const sn_ray_query *q, const sn_ray *rays, uint32_t n, sn_ray_result *out)
{
    if (snf_query_check(s, q, true))
        return SN_E_INVALID;
    for (uint32_t i = 0; i < n; i++) {
        sn_ray r;
        memcpy(&r, (const char *)rays + (size_t)i * q->ray_size, sizeof r);
        snf_trace(s, q, &r, 0, i, out);
    }
    return SN_OK;
}
/* Approximate: the ball swept against boxes grown by the radius (corners not rounded). */
static sn_status snf_sweep_sphere(sn_ctx *s, const sn_ray_query *q, const sn_ray *ray, double radius, sn_ray_result *out)
{
    if (snf_query_check(s, q, true) || !ray || !out || !(radius >= 0))
        return SN_E_INVALID;
    snf_trace(s, q, ray, radius, 0, out);
    return SN_OK;
}
static sn_status snf_overlap_sphere(sn_ctx *s, const sn_ray_query *q, sn_vec3 c, double radius, uint32_t *ids,
                                    uint32_t cap, uint32_t *n_found)
{
    if ((q && snf_query_check(s, q, false)) || !n_found || (cap && !ids) || !(radius >= 0))
        return SN_E_INVALID;
    *n_found = 0;
    for (uint32_t k = 0; k < s->fake->n_actors; k++) { /* actors are kept in id order */
        const sn_actor_info *a = &s->fake->actors[k];
        double t;
        sn_vec3 n;
        /* inside the box grown by r, seen along any direction, is distance 0 (corners square) */
        if (!snf_skip(s->fake, q, a) && snf_box_ray(a, c, (sn_vec3){1, 0, 0}, 0, radius, &t, &n)) {
            if (*n_found < cap)
                ids[*n_found] = a->id;
            ++*n_found;
        }
    }
    return SN_OK;
}

/* xoshiro256**, seeded per sensor from the fake's seed and the blueprint, like the engine. */
static uint64_t snf_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t snf_random_u64(sn_ctx *c)
{
    uint64_t *s = c->rng, r = snf_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = snf_rotl(s[3], 45);
    return r;
}
static double snf_random_uniform(sn_ctx *c) { return (double)(snf_random_u64(c) >> 11) * 0x1.0p-53; }
static double snf_random_normal(sn_ctx *c, double mean, double sd)
{
    double u = snf_random_uniform(c), v = snf_random_uniform(c);
    return mean + sd * sqrt(-2.0 * log(1.0 - u)) * cos(6.283185307179586 * v);
}

/* ---- writer: records nodes and checks the message's structure ---- */

static bool snf_text(struct sn_ctx *s, const void *p, size_t n, size_t *off)
{
    if (s->n_text + n + 1 > s->cap_text) {
        size_t cap = s->cap_text ? s->cap_text : 256;
        while (cap < s->n_text + n + 1)
            cap *= 2;
        char *t = (char *)realloc(s->text, cap);
        if (!t)
            return false;
        s->text = t;
        s->cap_text = cap;
    }
    *off = s->n_text;
    if (n)
        memcpy(s->text + s->n_text, p, n);
    s->n_text += n;
    s->text[s->n_text++] = 0;
    return true;
}

static sn_status snf_bad(sn_writer *w, const char *what)
{
    if (!w->bad)
        snf_fail(w->s->fake, "%s: malformed message: %s", w->s->cls->blueprint, what);
    w->bad = true;
    return SN_E_INVALID;
}

static sn_status snf_value(sn_writer *w, snf_node node)
{
    struct sn_ctx *s = w->s;
    if (w->bad)
        return SN_E_INVALID;
    if (w->depth == 0)
        return snf_bad(w, "a value outside serialize()'s message");
    if (w->stack[w->depth - 1].want_key)
        return snf_bad(w, "a value where a key was expected (write_key first)");
    node.key = w->pending_key;
    w->pending_key = (size_t)-1;
    if (s->n_nodes == s->cap_nodes) {
        size_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;
        snf_node *n = (snf_node *)realloc(s->nodes, cap * sizeof *n);
        if (!n)
            return SN_E_NOMEM;
        s->nodes = n;
        s->cap_nodes = cap;
    }
    size_t idx = s->n_nodes++;
    s->nodes[idx] = node;
    s->nodes[w->stack[w->depth - 1].node].n += 1;
    /* The enclosing container took one value; close every container that is now full. */
    if (w->stack[w->depth - 1].left > 0)
        w->stack[w->depth - 1].left--;
    if (node.kind == SNF_MAP || node.kind == SNF_ARRAY) {
        if (w->depth == 64)
            return snf_bad(w, "containers nested deeper than 64");
        w->stack[w->depth].node = idx;
        w->stack[w->depth].left = node.n;
        w->stack[w->depth].want_key = node.kind == SNF_MAP;
        s->nodes[idx].n = 0;
        w->depth++;
    } else if (w->stack[w->depth - 1].node != (size_t)-1 && s->nodes[w->stack[w->depth - 1].node].kind == SNF_MAP) {
        w->stack[w->depth - 1].want_key = true;
    }
    while (w->depth > 1 && w->stack[w->depth - 1].left == 0) {
        w->depth--;
        snf_node *parent = &s->nodes[w->stack[w->depth - 1].node];
        if (parent->kind == SNF_MAP)
            w->stack[w->depth - 1].want_key = true;
    }
    return SN_OK;
}

static sn_status snf_write_key(sn_writer *w, const char *key)
{
    if (w->bad)
        return SN_E_INVALID;
    if (!key || w->depth == 0 || !w->stack[w->depth - 1].want_key)
        return snf_bad(w, "write_key where no key belongs");
    if (!snf_text(w->s, key, strlen(key), &w->pending_key))
        return SN_E_NOMEM;
    w->stack[w->depth - 1].want_key = false;
    return SN_OK;
}
static snf_node snf_node_of(snf_kind k)
{
    snf_node n;
    memset(&n, 0, sizeof n);
    n.kind = k;
    return n;
}
static sn_status snf_write_nil(sn_writer *w) { return snf_value(w, snf_node_of(SNF_NIL)); }
static sn_status snf_write_bool(sn_writer *w, bool v)
{
    snf_node n = snf_node_of(SNF_BOOL);
    n.num = v;
    return snf_value(w, n);
}
static sn_status snf_write_int(sn_writer *w, int64_t v)
{
    snf_node n = snf_node_of(SNF_INT);
    n.i = v;
    n.num = (double)v;
    return snf_value(w, n);
}
static sn_status snf_write_uint(sn_writer *w, uint64_t v)
{
    snf_node n = snf_node_of(SNF_UINT);
    n.u = v;
    n.num = (double)v;
    return snf_value(w, n);
}
static sn_status snf_write_double(sn_writer *w, double v)
{
    snf_node n = snf_node_of(SNF_DOUBLE);
    n.num = v;
    return snf_value(w, n);
}
static sn_status snf_write_float(sn_writer *w, float v) { return snf_write_double(w, v); }
static sn_status snf_bytes(sn_writer *w, snf_kind k, const void *p, size_t len)
{
    snf_node n = snf_node_of(k);
    if (len && !p)
        return snf_bad(w, "NULL data with a non-zero size");
    /* bins start 16-byte aligned, so a test may read them as float or int arrays */
    size_t ignored;
    while (k == SNF_BIN && w->s->n_text % 16 != 0)
        if (!snf_text(w->s, "", 0, &ignored)) /* one byte of padding each */
            return SN_E_NOMEM;
    if (!snf_text(w->s, p, len, &n.off))
        return SN_E_NOMEM;
    n.len = len;
    return snf_value(w, n);
}
static sn_status snf_write_strn(sn_writer *w, const char *s, size_t n) { return snf_bytes(w, SNF_STR, s, n); }
static sn_status snf_write_str(sn_writer *w, const char *s)
{
    return s ? snf_bytes(w, SNF_STR, s, strlen(s)) : snf_bad(w, "write_str(NULL)");
}
static sn_status snf_write_bin(sn_writer *w, const void *p, size_t n) { return snf_bytes(w, SNF_BIN, p, n); }
static sn_status snf_write_array(sn_writer *w, uint32_t n)
{
    snf_node node = snf_node_of(SNF_ARRAY);
    node.n = n;
    return snf_value(w, node);
}
static sn_status snf_write_map(sn_writer *w, uint32_t n)
{
    snf_node node = snf_node_of(SNF_MAP);
    node.n = n;
    return snf_value(w, node);
}
static sn_status snf_write_vec3(sn_writer *w, sn_vec3 v)
{
    snf_write_array(w, 3);
    snf_write_double(w, v.x);
    snf_write_double(w, v.y);
    return snf_write_double(w, v.z);
}
static sn_status snf_write_actor(sn_writer *w, uint32_t id)
{
    sn_actor_info *a = snf_find(w->s->fake, id);
    if (!a)
        return SN_E_NOT_FOUND;
    snf_write_map(w, 3);
    snf_write_key(w, "id");
    snf_write_uint(w, a->id);
    snf_write_key(w, "type_id");
    snf_write_str(w, a->type_id ? a->type_id : "");
    snf_write_key(w, "semantic_tag");
    return snf_write_uint(w, a->semantic_tag);
}

/* ---- attributes: the defaults, overridden by "name=value", parsed as the engine does ---- */

static bool snf_parse(sn_fake *f, const sn_attr_def *d, const char *text, sn_value *v)
{
    char *end;
    v->type = d->type;
    errno = 0;
    switch (d->type) {
    case SN_ATTR_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "True") || !strcmp(text, "1"))
            v->b = true;
        else if (!strcmp(text, "false") || !strcmp(text, "False") || !strcmp(text, "0"))
            v->b = false;
        else
            goto bad;
        return true;
    case SN_ATTR_INT:
        v->i = strtoll(text, &end, 10);
        if (end == text || *end || errno || (d->has_range && (v->i < d->min || v->i > d->max)))
            goto bad;
        v->f = (double)v->i;
        return true;
    case SN_ATTR_FLOAT:
        v->f = strtod(text, &end);
        if (end == text || *end || errno || !isfinite(v->f) || (d->has_range && (v->f < d->min || v->f > d->max)))
            goto bad;
        return true;
    case SN_ATTR_STRING:
        return true;
    case SN_ATTR_RGB: {
        unsigned r, g, b;
        char tail;
        if (sscanf(text, "%u,%u,%u%c", &r, &g, &b, &tail) != 3 || r > 255 || g > 255 || b > 255)
            goto bad;
        v->rgb[0] = (uint8_t)r, v->rgb[1] = (uint8_t)g, v->rgb[2] = (uint8_t)b;
        return true;
    }
    case SN_ATTR_ENUM:
        for (int64_t k = 0; d->choices && d->choices[k]; k++)
            if (!strcmp(d->choices[k], text)) {
                v->i = k;
                return true;
            }
        goto bad;
    }
bad:
    if (d->has_range)
        snf_fail(f, "attribute '%s': '%s' is not a valid value in [%g, %g]", d->name, text, d->min, d->max);
    else
        snf_fail(f, "attribute '%s': '%s' is not a valid value", d->name, text);
    return false;
}

static bool snf_resolve(sn_fake *f, struct sn_ctx *s, const char *const *attrs)
{
    const sn_sensor_class *c = s->cls;
    size_t stride = c->attr_def_size ? c->attr_def_size : sizeof(sn_attr_def);
    for (uint32_t k = 0; attrs && attrs[k]; k++) {
        const char *eq = strchr(attrs[k], '=');
        bool known = false;
        for (uint32_t i = 0; eq && i < c->n_attrs; i++) {
            const sn_attr_def *d = (const sn_attr_def *)(const void *)((const char *)c->attrs + i * stride);
            known |= strlen(d->name) == (size_t)(eq - attrs[k]) && !strncmp(d->name, attrs[k], (size_t)(eq - attrs[k]));
        }
        if (!known) {
            snf_fail(f, "%s has no attribute '%s' (write attributes as \"name=value\")", c->blueprint, attrs[k]);
            return false;
        }
    }
    s->n_values = c->n_attrs;
    s->values = (sn_value *)calloc(c->n_attrs ? c->n_attrs : 1, sizeof *s->values);
    s->strings = (char **)calloc(c->n_attrs ? c->n_attrs : 1, sizeof *s->strings);
    if (!s->values || !s->strings)
        return false;
    for (uint32_t i = 0; i < c->n_attrs; i++) {
        const sn_attr_def *d = (const sn_attr_def *)(const void *)((const char *)c->attrs + i * stride);
        const char *text = d->def;
        size_t n = strlen(d->name);
        for (uint32_t k = 0; attrs && attrs[k]; k++)
            if (!strncmp(attrs[k], d->name, n) && attrs[k][n] == '=')
                text = attrs[k] + n + 1;
        if (!(s->strings[i] = snf_strdup(text)))
            return false;
        s->values[i].s = s->strings[i];
        if (!snf_parse(f, d, text, &s->values[i]))
            return false;
    }
    return true;
}

static sn_status snf_render_at(sn_ctx *s, int64_t t, const sn_camera *cam, const sn_image *out);
static sn_status snf_sensor_transform_at(sn_ctx *s, int64_t t, sn_transform *out);
static sn_status snf_actor_attribute(sn_ctx *s, uint32_t id, const char *name, sn_value *out);
static sn_status snf_actor_attribute_at(sn_ctx *s, uint32_t id, uint32_t index, const char **name, sn_value *out);

/* ---- sensor kinematics and world settings (ABI 1.2), as the engine answers them ---- */

static void snf_seed(uint64_t *rng, uint64_t x) /* splitmix64, as the engine seeds xoshiro */
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        rng[i] = z ^ (z >> 31);
    }
}
static int snf_class_find(const sn_fake *f, const sn_sensor_class *c)
{
    for (uint32_t i = 0; i < f->n_classes; i++)
        if (f->classes[i].cls == c)
            return (int)i;
    return -1;
}
static void *snf_class_state(sn_ctx *s)
{
    int i = snf_class_find(s->fake, s->cls);
    return i < 0 ? NULL : s->fake->classes[i].state;
}
static void snf_world_settings(sn_ctx *s, sn_world_settings *out)
{
    sn_world_settings w;
    memset(&w, 0, sizeof w);
    uint32_t n = out->struct_size && out->struct_size < sizeof w ? out->struct_size : (uint32_t)sizeof w;
    w.struct_size = out->struct_size;
    w.gravity.z = -9.81;
    w.fixed_delta_seconds = s->fake->clock.dt;
    w.max_substeps = 10;
    w.max_substep_delta_time = 0.01;
    w.substeps = (uint32_t)ceil(w.fixed_delta_seconds / 0.01 - 1e-9);
    w.substeps = w.substeps ? w.substeps : 1;
    w.substep_delta_seconds = w.fixed_delta_seconds / w.substeps;
    memcpy(out, &w, n);
}
static void snf_sensor_mount(sn_ctx *s, sn_transform *out)
{
    memset(out, 0, sizeof *out); /* the fake mounts an attached sensor at its parent's origin */
    if (!s->parent)
        snf_sensor_transform(s, out);
}
static sn_status snf_sensor_kinematics(sn_ctx *s, sn_kinematics *out)
{
    const sn_actor_info *a = snf_find(s->fake, s->id), *p = s->parent ? snf_find(s->fake, s->parent) : a;
    if (!a || !p)
        return SN_E_NOT_FOUND;
    sn_kinematics k;
    memset(&k, 0, sizeof k);
    uint32_t n = out->struct_size && out->struct_size < sizeof k ? out->struct_size : (uint32_t)sizeof k;
    k.struct_size = out->struct_size;
    k.transform = a->transform;
    const double d = 3.14159265358979323846 / 180.0; /* actor_info's angular velocity is deg/s */
    sn_vec3 w = {p->angular_velocity.x * d, p->angular_velocity.y * d, p->angular_velocity.z * d};
    sn_vec3 r = {a->transform.location.x - p->transform.location.x, a->transform.location.y - p->transform.location.y,
                 a->transform.location.z - p->transform.location.z};
    sn_vec3 wr = {w.y * r.z - w.z * r.y, w.z * r.x - w.x * r.z, w.x * r.y - w.y * r.x};
    sn_vec3 wwr = {w.y * wr.z - w.z * wr.y, w.z * wr.x - w.x * wr.z, w.x * wr.y - w.y * wr.x};
    k.velocity = (sn_vec3){p->velocity.x + wr.x, p->velocity.y + wr.y, p->velocity.z + wr.z};
    k.acceleration = (sn_vec3){p->acceleration.x + wwr.x, p->acceleration.y + wwr.y, p->acceleration.z + wwr.z};
    k.angular_velocity = w; /* the fake keeps no angular acceleration: 0 */
    memcpy(out, &k, n);
    return SN_OK;
}
static void snf_random_seed(sn_ctx *s, uint64_t seed) { snf_seed(s->rng, seed); }
static void snf_geo_reference(sn_ctx *s, sn_geo_location *out) { *out = s->fake->georeference; }
static sn_status snf_world_to_geo(sn_ctx *s, sn_vec3 l, sn_geo_location *out)
{
    /* CARLA's GeoLocation::Transform, as the engine computes it (engine/core/geo.c). */
    const double pi = 3.14159265358979323846, R = 6378137.0;
    const sn_geo_location *g = &s->fake->georeference;
    if (!isfinite(l.x + l.y + l.z))
        return SN_E_INVALID;
    double scale = cos(g->latitude * pi / 180.0);
    double mx = scale * (g->longitude * pi / 180.0) * R + l.x;
    double my = scale * R * log(tan((90.0 + g->latitude) * pi / 360.0)) + -l.y;
    out->longitude = mx * 180.0 / (pi * R * scale);
    out->latitude = 360.0 * atan(exp(my / (R * scale))) / pi - 90.0;
    out->altitude = g->altitude + l.z;
    return SN_OK;
}
void sn_fake_set_georeference(sn_fake *f, sn_geo_location origin) { f->georeference = origin; }

/* class_tick of every class with state, around a phase. */
static sn_status snf_class_tick(sn_fake *f, sn_phase phase, bool after)
{
    for (uint32_t i = 0; i < f->n_classes; i++) {
        const sn_sensor_class *c = f->classes[i].cls;
        sn_status st = c->class_tick && (c->phases & phase) ? c->class_tick(f->classes[i].state, phase, after) : SN_OK;
        if (st) {
            snprintf(f->error, sizeof f->error, "class %s: class_tick failed: %s", c->blueprint,
                     f->classes[i].ctx->error[0] ? f->classes[i].ctx->error : "no message given");
            return st;
        }
    }
    return SN_OK;
}

/* ---- the fake itself ---- */

sn_fake *sn_fake_new(uint64_t seed)
{
    sn_fake *f = (sn_fake *)calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->seed = seed;
    f->next_id = 1;
    f->clock.dt = 0.05;
    f->clock.dt_ns = 50000000;
    sn_host *h = &f->host;
    h->hdr.struct_size = sizeof *h;
    h->hdr.abi_major = SN_ABI_MAJOR;
    h->hdr.abi_minor = SN_ABI_MINOR;
    h->log = snf_log;
    h->set_error = snf_set_error;
    h->sensor_name = snf_sensor_name;
    h->sensor_id = snf_sensor_id;
    h->sensor_transform = snf_sensor_transform;
    h->clock = snf_clock;
    h->actor_count = snf_actor_count;
    h->actor_id_at = snf_actor_id_at;
    h->actor_get = snf_actor_get;
    h->ray_cast = snf_ray_cast;
    h->random_u64 = snf_random_u64;
    h->random_uniform = snf_random_uniform;
    h->random_normal = snf_random_normal;
    h->write_key = snf_write_key;
    h->write_nil = snf_write_nil;
    h->write_bool = snf_write_bool;
    h->write_int = snf_write_int;
    h->write_uint = snf_write_uint;
    h->write_float = snf_write_float;
    h->write_double = snf_write_double;
    h->write_str = snf_write_str;
    h->write_strn = snf_write_strn;
    h->write_bin = snf_write_bin;
    h->write_array = snf_write_array;
    h->write_map = snf_write_map;
    h->write_vec3 = snf_write_vec3;
    h->write_actor = snf_write_actor;
    h->render = NULL; /* until sn_fake_set_render */
    h->render_at = snf_render_at;
    h->sensor_transform_at = snf_sensor_transform_at;
    h->actor_attribute = snf_actor_attribute;
    h->actor_attribute_at = snf_actor_attribute_at;
    h->class_state = snf_class_state;
    h->world_settings = snf_world_settings;
    h->sensor_mount = snf_sensor_mount;
    h->sensor_kinematics = snf_sensor_kinematics;
    h->random_seed = snf_random_seed;
    h->geo_reference = snf_geo_reference;
    h->world_to_geo = snf_world_to_geo;
    h->ray_batch = snf_ray_batch;
    h->sweep_sphere = snf_sweep_sphere;
    h->overlap_sphere = snf_overlap_sphere;
    return f;
}

static void snf_free_sensor(struct sn_ctx *s)
{
    if (s->self)
        s->cls->destroy(s->self);
    for (uint32_t k = 0; s->strings && k < s->n_values; k++)
        free(s->strings[k]);
    free(s->strings);
    free(s->values);
    free(s->nodes);
    free(s->text);
    free(s->msgs);
    free(s->json);
    free(s);
}

void sn_fake_free(sn_fake *f)
{
    if (!f)
        return;
    for (uint32_t i = 0; i < f->n_sensors; i++)
        snf_free_sensor(f->sensors[i]);
    free(f->sensors);
    for (uint32_t i = 0; i < f->n_classes; i++) { /* after their instances, as the engine */
        if (f->classes[i].cls->class_destroy)
            f->classes[i].cls->class_destroy(f->classes[i].state);
        free(f->classes[i].ctx);
    }
    for (uint32_t i = 0; i < f->n_actors; i++)
        free(f->type_ids[i]);
    free(f->type_ids);
    free(f->actors);
    for (uint32_t i = 0; i < f->n_libs; i++)
        dlclose(f->libs[i]);
    free(f->libs);
    free(f);
}

const char *sn_fake_error(const sn_fake *f) { return f->error; }
void sn_fake_verbose(sn_fake *f, bool on) { f->verbose = on; }
uint32_t sn_fake_log_count(const sn_fake *f) { return f->n_logs; }
const char *sn_fake_last_log(const sn_fake *f) { return f->last_log; }
sn_clock *sn_fake_clock(sn_fake *f) { return &f->clock; }

static sn_status snf_render(sn_ctx *s, const sn_camera *cam, const sn_image *out)
{
    return s->fake->render(s->fake->render_user, cam, out);
}

/* ABI 1.2. The fake world keeps no previous poses: inside the last frame interval it answers
** with the poses as they are now; outside it refuses as the engine does. */
static bool snf_in_frame(sn_ctx *s, const char *what, int64_t t)
{
    const sn_clock *k = &s->fake->clock;
    if (t > k->time_ns - k->dt_ns && t <= k->time_ns)
        return true;
    snprintf(s->error, sizeof s->error, "%s: time %lld ns is outside the last frame (%lld, %lld] ns", what,
             (long long)t, (long long)(k->time_ns - k->dt_ns), (long long)k->time_ns);
    return false;
}

static sn_status snf_render_at(sn_ctx *s, int64_t t, const sn_camera *cam, const sn_image *out)
{
    if (!snf_in_frame(s, "render_at", t))
        return SN_E_RANGE;
    if (!s->fake->render) {
        snprintf(s->error, sizeof s->error, "render_at: the fake host has no renderer (sn_fake_set_render)");
        return SN_E_UNSUPPORTED;
    }
    return snf_render(s, cam, out);
}

static sn_status snf_sensor_transform_at(sn_ctx *s, int64_t t, sn_transform *out)
{
    if (!out || !snf_in_frame(s, "sensor_transform_at", t))
        return out ? SN_E_RANGE : SN_E_INVALID;
    snf_sensor_transform(s, out);
    return SN_OK;
}

static sn_status snf_actor_attribute(sn_ctx *s, uint32_t id, const char *name, sn_value *out)
{
    /* Only sensors of this fake have attribute values: their resolved ones. */
    sn_fake *f = s->fake;
    for (uint32_t i = 0; name && out && i < f->n_sensors; i++) {
        const sn_ctx *c = f->sensors[i];
        if (c->id != id)
            continue;
        size_t stride = c->cls->attr_def_size ? c->cls->attr_def_size : sizeof(sn_attr_def);
        for (uint32_t k = 0; k < c->cls->n_attrs && k < c->n_values; k++) {
            const sn_attr_def *d = (const sn_attr_def *)(const void *)((const char *)c->cls->attrs + k * stride);
            if (strcmp(d->name, name) == 0) {
                *out = c->values[k];
                return SN_OK;
            }
        }
    }
    return SN_E_NOT_FOUND;
}

static sn_status snf_actor_attribute_at(sn_ctx *s, uint32_t id, uint32_t index, const char **name, sn_value *out)
{
    sn_fake *f = s->fake;
    /* A fake actor (not a sensor) knows one attribute: its role_name. */
    const sn_actor_info *a = snf_find(f, id);
    if (a && a->kind != SN_ACTOR_SENSOR && name && out) {
        if (index != 0)
            return SN_E_NOT_FOUND;
        memset(out, 0, sizeof *out);
        out->type = SN_ATTR_STRING;
        out->s = a->role_name ? a->role_name : "";
        *name = "role_name";
        return SN_OK;
    }
    for (uint32_t i = 0; name && out && i < f->n_sensors; i++) {
        const sn_ctx *c = f->sensors[i];
        if (c->id != id || index >= c->cls->n_attrs || index >= c->n_values)
            continue;
        size_t stride = c->cls->attr_def_size ? c->cls->attr_def_size : sizeof(sn_attr_def);
        *name = ((const sn_attr_def *)(const void *)((const char *)c->cls->attrs + index * stride))->name;
        *out = c->values[index];
        return SN_OK;
    }
    return SN_E_NOT_FOUND;
}

void sn_fake_set_render(sn_fake *f, sn_fake_render_fn fn, void *user)
{
    f->render = fn;
    f->render_user = user;
    f->host.render = fn ? snf_render : NULL;
}

void sn_fake_set_ray_cast(sn_fake *f, sn_fake_ray_fn fn, void *user)
{
    f->ray = fn;
    f->ray_user = user;
}

static uint32_t snf_add(sn_fake *f, const char *type_id, sn_actor_kind kind, sn_tag tag, sn_transform pose,
                        sn_vec3 extent, uint32_t parent)
{
    if (!snf_grow((void **)&f->actors, &f->cap_actors, f->n_actors + 1, sizeof *f->actors) ||
        !snf_grow((void **)&f->type_ids, &f->cap_types, f->n_actors + 1, sizeof *f->type_ids))
        return 0;
    char *t = snf_strdup(type_id ? type_id : "");
    if (!t)
        return 0;
    sn_actor_info *a = &f->actors[f->n_actors];
    memset(a, 0, sizeof *a);
    a->struct_size = sizeof *a;
    a->id = f->next_id++;
    a->kind = kind;
    a->type_id = t;
    a->semantic_tag = tag;
    a->transform = pose;
    a->bounding_box.extent = extent;
    a->name = "";
    a->role_name = "";
    a->parent_id = parent;
    f->type_ids[f->n_actors++] = t;
    return a->id;
}

uint32_t sn_fake_add_actor(sn_fake *f, const char *type_id, sn_tag tag, sn_transform pose, sn_vec3 extent)
{
    sn_actor_kind kind = type_id && !strncmp(type_id, "vehicle.", 8)  ? SN_ACTOR_VEHICLE
                         : type_id && !strncmp(type_id, "walker.", 7) ? SN_ACTOR_WALKER
                         : type_id && !strncmp(type_id, "sensor.", 7) ? SN_ACTOR_SENSOR
                                                                      : SN_ACTOR_STATIC;
    return snf_add(f, type_id, kind, tag, pose, extent, 0);
}

sn_actor_info *sn_fake_actor(sn_fake *f, uint32_t id) { return snf_find(f, id); }

void sn_fake_remove_actor(sn_fake *f, uint32_t id)
{
    for (uint32_t i = 0; i < f->n_actors; i++)
        if (f->actors[i].id == id) {
            free(f->type_ids[i]);
            memmove(&f->actors[i], &f->actors[i + 1], (f->n_actors - i - 1) * sizeof *f->actors);
            memmove(&f->type_ids[i], &f->type_ids[i + 1], (f->n_actors - i - 1) * sizeof *f->type_ids);
            f->n_actors--;
            return;
        }
}

sn_plugin_entry_fn sn_fake_open(sn_fake *f, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snf_fail(f, "cannot load plugin %s: %s", path, dlerror());
        return NULL;
    }
    void *sym = dlsym(h, SN_PLUGIN_ENTRY_SYMBOL);
    void **libs = (void **)realloc(f->libs, (f->n_libs + 1) * sizeof *libs);
    if (!sym || !libs) {
        snf_fail(f, "plugin %s has no '%s' symbol", path, SN_PLUGIN_ENTRY_SYMBOL);
        if (libs)
            f->libs = libs;
        dlclose(h);
        return NULL;
    }
    f->libs = libs;
    f->libs[f->n_libs++] = h;
    sn_plugin_entry_fn fn;
    memcpy(&fn, &sym, sizeof fn); /* object pointer to function pointer, as dlsym requires */
    return fn;
}

static sn_status snf_plugin_error(struct sn_ctx *s, const char *cb, sn_status st)
{
    snf_fail(s->fake, "%s: %s failed (status %d): %s", s->cls->blueprint, cb, (int)st,
             s->error[0] ? s->error : "no message given");
    return st;
}

/* Undoes a spawn that failed part way: the sensor, its actor, its instance. */
static sn_fake_sensor *snf_spawn_failed(sn_fake *f, struct sn_ctx *s)
{
    if (s->id)
        sn_fake_remove_actor(f, s->id);
    f->n_sensors--;
    snf_free_sensor(s);
    return NULL;
}

sn_fake_sensor *sn_fake_spawn(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint,
                              const char *const *attrs, uint32_t parent)
{
    f->error[0] = 0;
    const sn_plugin_lib *lib = entry ? entry(SN_ABI_MAJOR, SN_ABI_MINOR) : NULL;
    if (!lib) {
        snf_fail(f, "the plugin's entry returned no library (ABI %d.%d refused?)", SN_ABI_MAJOR, SN_ABI_MINOR);
        return NULL;
    }
    const sn_sensor_class *cls = NULL;
    for (uint32_t i = 0; i < lib->n_classes; i++)
        if (!strcmp(lib->classes[i]->blueprint, blueprint))
            cls = lib->classes[i];
    if (!cls) {
        snf_fail(f, "plugin '%s' has no blueprint '%s'", lib->name, blueprint);
        return NULL;
    }
    if (parent && !snf_find(f, parent)) {
        snf_fail(f, "attach to actor %u: no such actor", parent);
        return NULL;
    }
    struct sn_ctx *s = (struct sn_ctx *)calloc(1, sizeof *s);
    if (!s || !snf_grow((void **)&f->sensors, &f->cap_sensors, f->n_sensors + 1, sizeof *f->sensors)) {
        free(s);
        snf_fail(f, "out of memory");
        return NULL;
    }
    f->sensors[f->n_sensors++] = s;
    s->fake = f;
    s->cls = cls;
    s->parent = parent;
    s->w.s = s;
    /* Seeded from the fake's seed and the blueprint (splitmix64), distinct per sensor. */
    uint64_t x = f->seed ^ 0x9E3779B97F4A7C15ull * (f->n_sensors);
    for (const char *p = blueprint; *p; p++)
        x = (x ^ (unsigned char)*p) * 0x100000001B3ull;
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        s->rng[i] = z ^ (z >> 31);
    }
    if (!snf_resolve(f, s, attrs))
        return snf_spawn_failed(f, s);
    sn_transform pose;
    memset(&pose, 0, sizeof pose);
    if (parent)
        pose = snf_find(f, parent)->transform;
    sn_vec3 zero = {0, 0, 0};
    if (!(s->id = snf_add(f, blueprint, SN_ACTOR_SENSOR, (sn_tag)0, pose, zero, parent))) {
        snf_fail(f, "out of memory");
        return snf_spawn_failed(f, s);
    }
    sn_status st = SN_OK;
    const char *failed = NULL;
    if (cls->hdr.struct_size > offsetof(sn_sensor_class, class_create) && (cls->class_create || cls->class_tick) &&
        snf_class_find(f, cls) < 0) {
        uint32_t k = f->n_classes;
        struct sn_ctx *cc = k < 16 ? (struct sn_ctx *)calloc(1, sizeof *cc) : NULL;
        if (!cc) {
            snf_fail(f, "out of memory or more than 16 sensor classes");
            return snf_spawn_failed(f, s);
        }
        cc->fake = f, cc->cls = cls, cc->w.s = cc;
        snf_seed(cc->rng, f->seed ^ 0x5eed);
        f->classes[k].cls = cls, f->classes[k].ctx = cc, f->n_classes++;
        if (cls->class_create && (st = cls->class_create(&f->host, cc, &f->classes[k].state))) {
            snf_plugin_error(cc, "class_create", st);
            free(cc);
            f->n_classes--;
            return snf_spawn_failed(f, s);
        }
    }
    if (!failed && (st = cls->create(&f->host, s, &s->self)))
        failed = "create";
    if (!failed && cls->set && (st = cls->set(s->self, s->values, s->n_values)))
        failed = "set";
    if (!failed && cls->attach && (st = cls->attach(s->self, parent)))
        failed = "attach";
    if (failed) {
        snf_plugin_error(s, failed, st);
        return snf_spawn_failed(f, s);
    }
    return s;
}

uint32_t sn_fake_sensor_id(const sn_fake_sensor *s) { return s->id; }

sn_status sn_fake_tick(sn_fake_sensor *s, sn_phase phase)
{
    if (!s->cls->tick || !(s->cls->phases & phase))
        return SN_OK;
    s->error[0] = 0;
    sn_status st = s->cls->tick(s->self, phase);
    return st ? snf_plugin_error(s, phase == SN_PHASE_PRE ? "tick(pre)" : phase == SN_PHASE_POST ? "tick(post)"
                                                                                                 : "tick(observe)", st)
              : SN_OK;
}

sn_status sn_fake_event(sn_fake_sensor *s, const sn_event *event)
{
    if (!s->cls->on_event || !(s->cls->events & event->type))
        return SN_OK;
    sn_event ev = *event;
    ev.struct_size = sizeof ev;
    ev.frame = s->fake->clock.frame;
    s->error[0] = 0;
    sn_status st = s->cls->on_event(s->self, &ev);
    return st ? snf_plugin_error(s, "on_event", st) : SN_OK;
}

sn_status sn_fake_collision(sn_fake_sensor *s, uint32_t self, uint32_t other, sn_vec3 impulse)
{
    sn_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = SN_EVENT_COLLISION;
    ev.u.collision.self_id = self;
    ev.u.collision.other_id = other;
    ev.u.collision.normal_impulse = impulse;
    sn_actor_info *a = snf_find(s->fake, self);
    if (a)
        ev.u.collision.location = a->transform.location;
    double len = sqrt(impulse.x * impulse.x + impulse.y * impulse.y + impulse.z * impulse.z);
    if (len > 0)
        ev.u.collision.normal = (sn_vec3){impulse.x / len, impulse.y / len, impulse.z / len};
    return sn_fake_event(s, &ev);
}

sn_status sn_fake_call(sn_fake_sensor *s, const char *method, uint32_t argc, const char *const *argv)
{
    if (!s->cls->call) {
        snf_fail(s->fake, "%s has no methods", s->cls->blueprint);
        return SN_E_NOT_FOUND;
    }
    s->error[0] = 0;
    sn_status st = s->cls->call(s->self, method, argc, argv);
    return st ? snf_plugin_error(s, method, st) : SN_OK;
}

/* Header keys as the engine writes them, then the plugin's own. */
static sn_status snf_header(struct sn_ctx *s)
{
    sn_fake *f = s->fake;
    sn_writer *w = &s->w;
    sn_transform t;
    snf_sensor_transform(s, &t);
    snf_write_key(w, "frame");
    snf_write_uint(w, f->clock.frame);
    snf_write_key(w, "timestamp");
    snf_write_double(w, f->clock.timestamp);
    snf_write_key(w, "sensor");
    snf_write_str(w, s->cls->blueprint);
    snf_write_key(w, "type");
    snf_write_str(w, s->cls->blueprint);
    snf_write_key(w, "sensor_id");
    snf_write_uint(w, s->id);
    snf_write_key(w, "transform");
    snf_write_map(w, 2);
    snf_write_key(w, "location");
    snf_write_vec3(w, t.location);
    snf_write_key(w, "rotation");
    snf_write_array(w, 3);
    snf_write_double(w, t.rotation.pitch);
    snf_write_double(w, t.rotation.yaw);
    return snf_write_double(w, t.rotation.roll);
}

sn_status sn_fake_serialize(sn_fake_sensor *s)
{
    s->n_nodes = s->n_text = 0;
    s->n_msgs = 0;
    uint32_t n = s->cls->pending ? s->cls->pending(s->self) : 1u;
    for (uint32_t k = 0; k < n; k++) {
        if (!snf_grow((void **)&s->msgs, &s->cap_msgs, s->n_msgs + 1, sizeof *s->msgs))
            return SN_E_NOMEM;
        sn_writer *w = &s->w;
        w->bad = false;
        w->depth = 0;
        w->pending_key = (size_t)-1;
        size_t first = s->n_nodes;
        /* The message's root map, open-ended (left = -1) until serialize returns. */
        if (s->n_nodes == s->cap_nodes) {
            size_t cap = s->cap_nodes ? s->cap_nodes * 2 : 64;
            snf_node *nn = (snf_node *)realloc(s->nodes, cap * sizeof *nn);
            if (!nn)
                return SN_E_NOMEM;
            s->nodes = nn;
            s->cap_nodes = cap;
        }
        s->nodes[s->n_nodes++] = snf_node_of(SNF_MAP);
        s->nodes[first].key = (size_t)-1;
        w->stack[0].node = first;
        w->stack[0].left = -1;
        w->stack[0].want_key = true;
        w->depth = 1;
        snf_header(s);
        s->error[0] = 0;
        sn_status st = s->cls->serialize(s->self, k, w);
        if (st)
            return w->bad ? st : snf_plugin_error(s, "serialize", st);
        if (w->bad)
            return SN_E_INVALID;
        if (w->depth != 1 || !w->stack[0].want_key) {
            snf_bad(w, "serialize() returned with a key or container left unfinished");
            return SN_E_INVALID;
        }
        s->msgs[s->n_msgs].first = first;
        s->msgs[s->n_msgs].count = s->n_nodes - first;
        s->n_msgs++;
    }
    return SN_OK;
}

sn_status sn_fake_begin_frame(sn_fake *f)
{
    f->clock.frame++;
    f->clock.dt_ns = (int64_t)llround(f->clock.dt * 1e9);
    f->clock.time_ns = (int64_t)f->clock.frame * f->clock.dt_ns;
    f->clock.timestamp = (double)f->clock.frame * f->clock.dt;
    sn_status st = snf_class_tick(f, SN_PHASE_PRE, false);
    for (uint32_t i = 0; !st && i < f->n_sensors; i++)
        st = sn_fake_tick(f->sensors[i], SN_PHASE_PRE);
    return st ? st : snf_class_tick(f, SN_PHASE_PRE, true);
}

sn_status sn_fake_end_frame(sn_fake *f)
{
    sn_status st;
    static const sn_phase phases[] = {SN_PHASE_POST, SN_PHASE_OBSERVE};
    for (int p = 0; p < 2; p++) {
        if ((st = snf_class_tick(f, phases[p], false)))
            return st;
        for (uint32_t i = 0; i < f->n_sensors; i++)
            if ((st = sn_fake_tick(f->sensors[i], phases[p])))
                return st;
        if ((st = snf_class_tick(f, phases[p], true)))
            return st;
    }
    for (uint32_t i = 0; i < f->n_sensors; i++) {
        struct sn_ctx *s = f->sensors[i];
        if (!s->cls->pending && !(s->cls->phases & SN_PHASE_POST)) {
            s->n_msgs = 0; /* the engine's rule: no pending() and no POST tick, no message */
            continue;
        }
        if ((st = sn_fake_serialize(s)))
            return st;
    }
    return SN_OK;
}

/* ---- reading messages ---- */

uint32_t sn_fake_message_count(const sn_fake_sensor *s) { return s->n_msgs; }

/* Nodes in the subtree rooted at i (itself included). */
static size_t snf_span(const sn_fake_sensor *s, size_t i)
{
    size_t j = i + 1;
    if (s->nodes[i].kind == SNF_ARRAY || s->nodes[i].kind == SNF_MAP)
        for (uint32_t k = 0; k < s->nodes[i].n; k++)
            j += snf_span(s, j);
    return j - i;
}

static const snf_node *snf_lookup(const sn_fake_sensor *s, uint32_t m, const char *path)
{
    if (m >= s->n_msgs)
        return NULL;
    size_t at = s->msgs[m].first;
    const char *p = path;
    while (p && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        const snf_node *node = &s->nodes[at];
        size_t child = at + 1, found = (size_t)-1;
        for (uint32_t k = 0; k < node->n; k++) {
            const snf_node *c = &s->nodes[child];
            if (node->kind == SNF_MAP && c->key != (size_t)-1 && strlen(s->text + c->key) == len &&
                !strncmp(s->text + c->key, p, len))
                found = child;
            if (node->kind == SNF_ARRAY) {
                char idx[24];
                snprintf(idx, sizeof idx, "%u", k);
                if (strlen(idx) == len && !strncmp(idx, p, len))
                    found = child;
            }
            if (found != (size_t)-1)
                break;
            child += snf_span(s, child);
        }
        if (found == (size_t)-1)
            return NULL;
        at = found;
        p = dot ? dot + 1 : NULL;
    }
    return &s->nodes[at];
}

bool sn_fake_has(const sn_fake_sensor *s, uint32_t i, const char *path) { return snf_lookup(s, i, path) != NULL; }

double sn_fake_number(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && n->kind >= SNF_BOOL && n->kind <= SNF_DOUBLE ? n->num : NAN;
}

const char *sn_fake_string(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && n->kind == SNF_STR ? s->text + n->off : NULL;
}

const void *sn_fake_bin(const sn_fake_sensor *s, uint32_t i, const char *path, size_t *size)
{
    const snf_node *n = snf_lookup(s, i, path);
    if (!n || n->kind != SNF_BIN)
        return NULL;
    if (size)
        *size = n->len;
    return s->text + n->off;
}

int64_t sn_fake_length(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && (n->kind == SNF_ARRAY || n->kind == SNF_MAP) ? (int64_t)n->n : -1;
}

typedef struct snf_buf {
    char *p;
    size_t n, cap;
    bool oom;
} snf_buf;

static void snf_put(snf_buf *b, const char *fmt, ...) SN_PRINTF(2, 3);
static void snf_put(snf_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0 || b->oom)
            return;
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap <= b->n + (size_t)k)
            cap *= 2;
        char *q = (char *)realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static void snf_json_str(snf_buf *b, const char *s, size_t n)
{
    snf_put(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            snf_put(b, "\\%c", c);
        else if (c < 0x20)
            snf_put(b, "\\u%04x", c);
        else
            snf_put(b, "%c", c);
    }
    snf_put(b, "\"");
}

static size_t snf_json(const sn_fake_sensor *s, size_t i, snf_buf *b)
{
    const snf_node *n = &s->nodes[i];
    size_t j = i + 1;
    switch (n->kind) {
    case SNF_NIL: snf_put(b, "null"); break;
    case SNF_BOOL: snf_put(b, n->num ? "true" : "false"); break;
    case SNF_INT: snf_put(b, "%lld", (long long)n->i); break;
    case SNF_UINT: snf_put(b, "%llu", (unsigned long long)n->u); break;
    case SNF_DOUBLE:
        if (isfinite(n->num))
            snf_put(b, "%.17g", n->num);
        else
            snf_put(b, "null");
        break;
    case SNF_STR: snf_json_str(b, s->text + n->off, n->len); break;
    case SNF_BIN: snf_put(b, "{\"bin\":%zu}", n->len); break;
    case SNF_ARRAY:
    case SNF_MAP:
        snf_put(b, n->kind == SNF_MAP ? "{" : "[");
        for (uint32_t k = 0; k < n->n; k++) {
            if (k)
                snf_put(b, ",");
            if (n->kind == SNF_MAP) {
                const char *key = s->text + s->nodes[j].key;
                snf_json_str(b, key, strlen(key));
                snf_put(b, ":");
            }
            j = snf_json(s, j, b);
        }
        snf_put(b, n->kind == SNF_MAP ? "}" : "]");
        break;
    }
    return j;
}

const char *sn_fake_json(sn_fake_sensor *s, uint32_t i)
{
    if (i >= s->n_msgs)
        return NULL;
    snf_buf b = {NULL, 0, 0, false};
    free(s->json);
    s->json = NULL;
    snf_json(s, s->msgs[i].first, &b);
    s->json = b.oom ? NULL : b.p;
    return s->json;
}

#endif /* SN_TESTING_IMPLEMENTED */
#endif /* SN_TESTING_IMPLEMENTATION */
