/*
** writer.c — sensor.other.recorder: CARLA's recorder as a sensor. In SN_PHASE_OBSERVE it sees
** the finished frame, diffs the live actors against the ones it knows (adds, destroys,
** re-parents: so actors spawned before it existed are recorded too, as CARLA's start_recorder
** does), and appends one checksummed frame to the file, flushed at once: a killed process
** loses at most the frame in progress. destroy() appends the frame index and the trailer.
** It sends no stream messages. Layout: FORMAT.md; bytes: codec.h.
*/
#include <sensim/grow.h>
#include "codec.h"
#include "format.h"
#include "reader.h"
#include "rmath.h"
#include "writer.h"

#include <sensim/weather_fields.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

typedef struct known {
    uint32_t id, parent;
    sn_actor_kind kind;
    bool has_ctl, has_walk, has_box, has_light, has_veh;
    uint8_t light; /* a traffic light's state (sn_traffic_light_state) */
    float wheel;   /* a vehicle's front wheel angle, degrees, as recorded (float32) */
    uint32_t lamps; /* a vehicle's light state (sn_vehicle_light bits) */
    sn_vehicle_control ctl;
    float walk;
    sn_bbox box;
} known;

typedef struct coll {
    uint32_t a, b;
    sn_vec3 impulse;
} coll;

/* An actor's pose when it was spawned (or when recording began, for one alive then): what its
** Create record gives, as CARLA's CreateRecorderEventAdd records the spawn transform. */
typedef struct spawn_pose {
    uint32_t id;
    sn_transform transform;
} spawn_pose;

typedef struct index_entry {
    uint64_t frame, offset;
    double elapsed, duration;
    uint8_t flags;
} index_entry;

typedef struct recorder {
    const sn_host *host;
    sn_ctx *ctx;
    const char *path, *scene, *seed, *map, *map_sha;
    bool additional;
    int64_t date;
    FILE *f;
    uint64_t offset; /* bytes written so far */
    bool failed;

    known *known, *known2;   /* sorted by id; known2 is the next frame's, swapped */
    size_t n_known, cap_known; /* both arrays have cap_known entries */
    sn_actor_info *infos;    /* this frame's live actors, ascending ids */
    size_t n_infos, cap_infos;
    coll *colls;
    size_t n_colls, cap_colls;
    spawn_pose *spawns;      /* since the last frame written; sorted by id before use */
    size_t n_spawns, cap_spawns;
    bool spawns_oom;
    uint64_t coll_frame;
    uint32_t next_cid;

    rec_buf frame, pkt, head;
    rec_channel pos, spos, kin;
    uint64_t weather_serial; /* the host's weather count last written (0: none yet) */
    index_entry *index;
    size_t n_index, cap_index;
} recorder;

static const sn_attr_def attrs[] = {
    {.name = "file", .type = SN_ATTR_STRING, .def = "", .doc = "path of the recording to write (required)"},
    {.name = "additional_data", .type = SN_ATTR_BOOL, .def = "false",
     .doc = "also record linear and angular velocities and bounding boxes (CARLA's additional_data)"},
    {.name = "date", .type = SN_ATTR_INT, .def = "0", .has_range = true, .min = 0, .max = 1e15, .unit = "s",
     .doc = "Unix time written in the header; 0 writes none, so recordings stay byte-identical"},
    {.name = "scene", .type = SN_ATTR_STRING, .def = "", .doc = "scene name written in the header"},
    {.name = "seed", .type = SN_ATTR_STRING, .def = "0", .doc = "the run's seed, written in the header"},
    {.name = "map", .type = SN_ATTR_STRING, .def = "", .doc = "the run's OpenDRIVE map (a path), written in the header"},
    {.name = "map_sha256", .type = SN_ATTR_STRING, .def = "", .doc = "the map file's SHA-256, written in the header"},
};
enum { A_FILE, A_ADDITIONAL, A_DATE, A_SCENE, A_SEED, A_MAP, A_MAP_SHA, A_COUNT };
_Static_assert(sizeof attrs / sizeof attrs[0] == A_COUNT, "one enum entry per attribute");

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    recorder *r = calloc(1, sizeof *r);
    if (!r)
        return SN_E_NOMEM;
    r->host = host;
    r->ctx = ctx;
    *out = r;
    return SN_OK;
}

/* Appends bytes to the file; a short write (full disk) stops recording with an error. */
static sn_status put(recorder *r, const void *d, size_t n)
{
    if (n && fwrite(d, 1, n, r->f) != n) {
        r->failed = true;
        r->host->set_error(r->ctx, "%s: write failed after %llu bytes: %s", r->path,
                           (unsigned long long)r->offset, strerror(errno));
        return SN_E_IO;
    }
    r->offset += n;
    return SN_OK;
}

/* Notes actor `id`'s pose now: called at its spawn event (world events come before the
** frame's physics) and, for the actors alive when recording starts, from set(). */
static void note_spawn(recorder *r, uint32_t id)
{
    sn_actor_info a = {.struct_size = sizeof a};
    if (id == r->host->sensor_id(r->ctx) || r->host->actor_get(r->ctx, id, &a) != SN_OK)
        return;
    if (!sn_grow_array((void **)&r->spawns, &r->cap_spawns, r->n_spawns + 1, sizeof *r->spawns)) {
        r->spawns_oom = true;
        return;
    }
    r->spawns[r->n_spawns++] = (spawn_pose){id, a.transform};
}

static int spawn_cmp(const void *x, const void *y)
{
    const spawn_pose *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id; /* a repeated id (noted at start, then at its spawn event) has one pose */
}

static const sn_transform *spawn_of(const recorder *r, uint32_t id)
{
    spawn_pose key = {.id = id};
    const spawn_pose *p = r->n_spawns ? bsearch(&key, r->spawns, r->n_spawns, sizeof *r->spawns, spawn_cmp) : NULL;
    return p ? &p->transform : NULL;
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    recorder *r = self;
    if (n < A_COUNT)
        return SN_E_INVALID;
    r->path = v[A_FILE].s;
    r->additional = v[A_ADDITIONAL].b;
    r->date = v[A_DATE].i;
    r->scene = v[A_SCENE].s;
    r->seed = v[A_SEED].s;
    r->map = v[A_MAP].s ? v[A_MAP].s : "";
    r->map_sha = v[A_MAP_SHA].s ? v[A_MAP_SHA].s : "";
    if (!r->path || !r->path[0]) {
        r->host->set_error(r->ctx, "the recorder needs a file (recorder: {file: run.sensimrec})");
        return SN_E_INVALID;
    }
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(r->seed, &end, 10);
    if (*end || errno || r->seed[0] == '-') {
        r->host->set_error(r->ctx, "seed '%s' is not a whole number >= 0", r->seed);
        return SN_E_INVALID;
    }
    /* Opened now, so a path that cannot be written stops the run before it starts. */
    if (!(r->f = fopen(r->path, "wb"))) {
        r->host->set_error(r->ctx, "%s: cannot write the recording: %s", r->path, strerror(errno));
        return SN_E_IO;
    }
    rec_buf *h = &r->head;
    rb_str(h, r->scene);
    rb_u64(h, (uint64_t)r->date);
    rb_u64(h, seed);
    rb_f64(h, r->host->clock(r->ctx)->dt);
    rb_u8(h, r->additional ? REC_H_ADDITIONAL : 0);
    rb_varint(h, REC_KEY_INTERVAL);
    rb_str(h, r->map); /* 1.4: the map a replay loads again, and its hash to tell it changed */
    rb_str(h, r->map_sha);
    rec_buf out = {0};
    rb_bytes(&out, REC_MAGIC, REC_MAGIC_LEN);
    rb_u32(&out, REC_VERSION_MAJOR | (uint32_t)REC_VERSION_MINOR << 16);
    rb_u32(&out, (uint32_t)h->n);
    rb_bytes(&out, h->p, h->n);
    rb_u32(&out, rec_crc32(h->p, h->n));
    sn_status st = out.oom || h->oom ? SN_E_NOMEM : put(r, out.p, out.n);
    rb_free(&out);
    if (!st && fflush(r->f) != 0) {
        r->host->set_error(r->ctx, "%s: cannot write the recording: %s", r->path, strerror(errno));
        st = SN_E_IO;
    }
    /* The actors alive now are recorded at their pose now (CARLA's AddExistingActors). */
    for (uint32_t i = 0, n = r->host->actor_count(r->ctx); !st && i < n; i++)
        note_spawn(r, r->host->actor_id_at(r->ctx, i));
    return st || !r->spawns_oom ? st : SN_E_NOMEM;
}

static sn_status on_event(void *self, const sn_event *ev)
{
    recorder *r = self;
    if (ev->type == SN_EVENT_ACTOR_SPAWNED) {
        note_spawn(r, ev->u.actor.actor_id);
        return r->spawns_oom ? SN_E_NOMEM : SN_OK;
    }
    if (ev->type != SN_EVENT_COLLISION_ANY)
        return SN_OK;
    if (ev->frame != r->coll_frame) {
        r->coll_frame = ev->frame;
        r->n_colls = 0;
    }
    const sn_collision *c = &ev->u.collision;
    for (size_t i = 0; i < r->n_colls; i++) /* CARLA's per-frame de-duplication by (id1, id2) */
        if (r->colls[i].a == c->self_id && r->colls[i].b == c->other_id)
            return SN_OK;
    if (!sn_grow_array((void **)&r->colls, &r->cap_colls, r->n_colls + 1, sizeof *r->colls))
        return SN_E_NOMEM;
    r->colls[r->n_colls++] = (coll){c->self_id, c->other_id, c->normal_impulse};
    return SN_OK;
}

static const sn_actor_info *info_of(const recorder *r, uint32_t id)
{
    size_t lo = sn_search_u32(r->infos, r->n_infos, sizeof *r->infos, offsetof(sn_actor_info, id), id);
    return lo < r->n_infos && r->infos[lo].id == id ? &r->infos[lo] : NULL;
}

static uint8_t carla_type(sn_actor_kind k)
{
    return k == SN_ACTOR_VEHICLE ? 1 : k == SN_ACTOR_WALKER ? 2 : k == SN_ACTOR_SENSOR ? 5 : 0;
}

static void put_transform(rec_buf *b, const sn_transform *t)
{
    rb_f64(b, t->location.x), rb_f64(b, t->location.y), rb_f64(b, t->location.z);
    rb_f64(b, t->rotation.pitch), rb_f64(b, t->rotation.yaw), rb_f64(b, t->rotation.roll);
}

/* A typed attribute value as CARLA writes it; numbers in the shortest form that reads back. */
static void value_text(const sn_value *v, char *s, size_t n)
{
    switch (v->type) {
    case SN_ATTR_BOOL: snprintf(s, n, "%s", v->b ? "true" : "false"); break;
    case SN_ATTR_INT: snprintf(s, n, "%lld", (long long)v->i); break;
    case SN_ATTR_FLOAT:
        for (int p = 15; p <= 17; p++) {
            snprintf(s, n, "%.*g", p, v->f);
            if (strtod(s, NULL) == v->f)
                break;
        }
        break;
    case SN_ATTR_RGB: snprintf(s, n, "%u,%u,%u", v->rgb[0], v->rgb[1], v->rgb[2]); break;
    default: snprintf(s, n, "%s", v->s ? v->s : ""); break;
    }
}

static void put_add(recorder *r, rec_buf *b, const sn_actor_info *a)
{
    rb_varint(b, a->id);
    rb_u8(b, carla_type(a->kind));
    rb_varint(b, a->parent_id);
    rb_str(b, a->type_id);
    rb_str(b, a->name);
    const sn_transform *spawned = spawn_of(r, a->id);
    put_transform(b, spawned ? spawned : &a->transform);
    const sn_actor_info *p = a->parent_id ? info_of(r, a->parent_id) : NULL;
    sn_transform rel = p ? rm_relative(&p->transform, &a->transform) : a->transform;
    put_transform(b, &rel);
    uint32_t n = 0;
    const char *name;
    sn_value v;
    while (r->host->actor_attribute_at(r->ctx, a->id, n, &name, &v) == SN_OK)
        n++;
    /* A sensor's role_name is kept by the host beside its blueprint's attributes: listed for
    ** every sensor ("" when none was given), as CARLA lists every actor's role_name. */
    bool role = a->kind == SN_ACTOR_SENSOR || (a->role_name && a->role_name[0]);
    for (uint32_t i = 0; i < n && role; i++)
        if (r->host->actor_attribute_at(r->ctx, a->id, i, &name, &v) == SN_OK && strcmp(name, "role_name") == 0)
            role = false;
    rb_varint(b, n + role);
    char text[128];
    for (uint32_t i = 0; i < n; i++) {
        r->host->actor_attribute_at(r->ctx, a->id, i, &name, &v);
        value_text(&v, text, sizeof text);
        rb_u8(b, (uint8_t)v.type);
        rb_str(b, name);
        rb_str(b, v.type == SN_ATTR_STRING || v.type == SN_ATTR_ENUM ? (v.s ? v.s : "") : text);
    }
    if (role) {
        rb_u8(b, SN_ATTR_STRING);
        rb_str(b, "role_name");
        rb_str(b, a->role_name ? a->role_name : "");
    }
}

/* Ends the packet built in r->pkt: appends id, length and body to the frame. */
static void packet(recorder *r, enum rec_packet id)
{
    rb_varint(&r->frame, id);
    rb_varint(&r->frame, r->pkt.n);
    rb_bytes(&r->frame, r->pkt.p, r->pkt.n);
    r->pkt.oom |= r->frame.oom;
    r->pkt.n = 0;
}

static bool moving(const sn_actor_info *a) { return a->kind == SN_ACTOR_VEHICLE || a->kind == SN_ACTOR_WALKER; }

/* A channel packet: records of the actors `want` selects, each as predicted residuals. */
static bool channel_packet(recorder *r, rec_channel *ch, bool key, bool (*want)(const sn_actor_info *),
                           void (*values)(const sn_actor_info *, double v[REC_NV]))
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_infos; i++)
        n += want(&r->infos[i]);
    if (key)
        ch_reset(ch);
    if (!ch_begin(ch, n))
        return false;
    rb_varint(&r->pkt, n);
    uint32_t prev = 0;
    bool first = true;
    for (size_t i = 0; i < r->n_infos; i++) {
        const sn_actor_info *a = &r->infos[i];
        if (!want(a))
            continue;
        double v[REC_NV];
        int64_t q[REC_NV], pred[REC_NV];
        values(a, v);
        for (int k = 0; k < REC_NV; k++)
            if (!rec_quantise(v[k], &q[k])) {
                r->host->set_error(r->ctx, "actor %u has a non-finite or absurd value (%g)", a->id, v[k]);
                return false;
            }
        rb_varint(&r->pkt, first ? a->id : a->id - prev - 1); /* ids ascend strictly */
        first = false;
        prev = a->id;
        ch_predict(ch, a->id, pred);
        for (int k = 0; k < REC_NV; k++)
            rb_svarint(&r->pkt, (int64_t)((uint64_t)q[k] - (uint64_t)pred[k]));
        ch_push(ch, a->id, q);
    }
    ch_end(ch);
    return true;
}

static void pose_values(const sn_actor_info *a, double v[REC_NV])
{
    v[0] = a->transform.location.x, v[1] = a->transform.location.y, v[2] = a->transform.location.z;
    v[3] = a->transform.rotation.pitch, v[4] = a->transform.rotation.yaw, v[5] = a->transform.rotation.roll;
}
static void kin_values(const sn_actor_info *a, double v[REC_NV])
{
    v[0] = a->velocity.x, v[1] = a->velocity.y, v[2] = a->velocity.z;
    v[3] = a->angular_velocity.x, v[4] = a->angular_velocity.y, v[5] = a->angular_velocity.z;
}
static bool attached_sensor(const sn_actor_info *a) { return a->kind == SN_ACTOR_SENSOR && a->parent_id; }

static bool same_ctl(const sn_vehicle_control *a, const sn_vehicle_control *b)
{
    return a->throttle == b->throttle && a->steer == b->steer && a->brake == b->brake &&
           a->hand_brake == b->hand_brake && a->reverse == b->reverse;
}
static bool same_box(const sn_bbox *a, const sn_bbox *b) { return memcmp(a, b, sizeof *a) == 0; }

static float walk_speed(const sn_actor_info *a)
{
    return (float)sqrt(a->velocity.x * a->velocity.x + a->velocity.y * a->velocity.y);
}

/* A traffic light's state (its `state` attribute: Red 0, Yellow 1, Green 2, Off 3, Unknown 4,
** CARLA's carla.TrafficLightState); false for any other actor. */
static bool light_state(const recorder *r, const sn_actor_info *a, uint8_t *out)
{
    if (a->kind != SN_ACTOR_STATIC || !a->type_id || strcmp(a->type_id, "traffic.traffic_light") != 0)
        return false;
    sn_value v;
    if (r->host->hdr.abi_minor < 2 || r->host->actor_attribute(r->ctx, a->id, "state", &v) != SN_OK ||
        v.type != SN_ATTR_ENUM || v.i < 0 || v.i > 4)
        return false;
    *out = (uint8_t)v.i;
    return true;
}

/* Gathers the live actors, ascending by id (the host enumerates them so). */
static sn_status gather(recorder *r)
{
    uint32_t n = r->host->actor_count(r->ctx);
    if (!sn_grow_array((void **)&r->infos, &r->cap_infos, n + 1, sizeof *r->infos))
        return SN_E_NOMEM;
    r->n_infos = 0;
    for (uint32_t i = 0; i < n; i++) {
        sn_actor_info *a = &r->infos[r->n_infos];
        memset(a, 0, sizeof *a);
        a->struct_size = sizeof *a;
        uint32_t id = r->host->actor_id_at(r->ctx, i);
        /* Not itself: a replay re-creating the recorder would overwrite the file it reads. */
        if (id && id != r->host->sensor_id(r->ctx) && r->host->actor_get(r->ctx, id, a) == SN_OK)
            r->n_infos++;
    }
    return SN_OK;
}

/* A per-actor delta channel of a frame (CARLA's packets of one kind): which actors it covers and
** whether one changed since it was last written (`due`, always on key frames), how its record is
** written after the actor's id and remembered in its `known` (`put`). delta_packets writes the
** count, then the records, in id order: one loop for every channel. */
typedef struct delta_channel {
    uint8_t packet;
    bool (*due)(const recorder *r, const sn_actor_info *a, const known *kn, bool key);
    void (*put)(recorder *r, const sn_actor_info *a, known *kn);
} delta_channel;

static bool control_due(const recorder *r, const sn_actor_info *a, const known *kn, bool key)
{
    (void)r;
    return a->kind == SN_ACTOR_VEHICLE && (key || !kn->has_ctl || !same_ctl(&kn->ctl, &a->control));
}

static void control_put(recorder *r, const sn_actor_info *a, known *kn)
{
    rb_f64(&r->pkt, a->control.throttle), rb_f64(&r->pkt, a->control.steer);
    rb_f64(&r->pkt, a->control.brake);
    rb_u8(&r->pkt, (uint8_t)(a->control.hand_brake | a->control.reverse << 1));
    kn->has_ctl = true;
    kn->ctl = a->control;
}

static bool walker_due(const recorder *r, const sn_actor_info *a, const known *kn, bool key)
{
    (void)r;
    return a->kind == SN_ACTOR_WALKER && (key || !kn->has_walk || kn->walk != walk_speed(a));
}

static void walker_put(recorder *r, const sn_actor_info *a, known *kn)
{
    rb_f32(&r->pkt, walk_speed(a));
    kn->has_walk = true;
    kn->walk = walk_speed(a);
}

/* Traffic lights: their state as the `state` attribute shows it, when it changed. */
static bool light_due(const recorder *r, const sn_actor_info *a, const known *kn, bool key)
{
    uint8_t ls;
    return light_state(r, a, &ls) && (key || !kn->has_light || kn->light != ls);
}

static void light_put(recorder *r, const sn_actor_info *a, known *kn)
{
    uint8_t ls = 0;
    light_state(r, a, &ls);
    rb_u8(&r->pkt, ls);
    kn->has_light = true;
    kn->light = ls;
}

/* Vehicles' wheel angles and lights (CARLA's AnimWheels and VehicleLight packets): when
** either changed. */
static bool vehicle_due(const recorder *r, const sn_actor_info *a, const known *kn, bool key)
{
    (void)r;
    return a->kind == SN_ACTOR_VEHICLE &&
           (key || !kn->has_veh || kn->wheel != (float)a->wheel_steer_angle || kn->lamps != a->light_state);
}

static void vehicle_put(recorder *r, const sn_actor_info *a, known *kn)
{
    rb_f32(&r->pkt, (float)a->wheel_steer_angle);
    rb_varint(&r->pkt, a->light_state);
    kn->has_veh = true;
    kn->wheel = (float)a->wheel_steer_angle;
    kn->lamps = a->light_state;
}

/* Bounding boxes (additional_data). */
static bool box_due(const recorder *r, const sn_actor_info *a, const known *kn, bool key)
{
    (void)r;
    return a->kind != SN_ACTOR_SENSOR && (key || !kn->has_box || !same_box(&kn->box, &a->bounding_box));
}

static void box_put(recorder *r, const sn_actor_info *a, known *kn)
{
    const sn_bbox *bb = &a->bounding_box;
    rb_f64(&r->pkt, bb->location.x), rb_f64(&r->pkt, bb->location.y), rb_f64(&r->pkt, bb->location.z);
    rb_f64(&r->pkt, bb->extent.x), rb_f64(&r->pkt, bb->extent.y), rb_f64(&r->pkt, bb->extent.z);
    kn->has_box = true;
    kn->box = *bb;
}

/* In the order their packets are written: the core ones, then (after the weather and the
** kinematics) those of additional_data. */
static const delta_channel deltas[] = {
    {REC_P_CONTROL, control_due, control_put},
    {REC_P_WALKER, walker_due, walker_put},
    {REC_P_LIGHT, light_due, light_put},
    {REC_P_VEHICLE, vehicle_due, vehicle_put},
    {REC_P_BBOX, box_due, box_put},
};
enum { DELTAS_CORE = 4, DELTAS_ADDITIONAL = 1 };
_Static_assert(sizeof deltas / sizeof deltas[0] == DELTAS_CORE + DELTAS_ADDITIONAL, "the channels counted");

/* The n channels' packets for the m actors of r->known2 (none for a channel nothing is due in). */
static void delta_packets(recorder *r, const delta_channel *ch, size_t n, size_t m, bool key)
{
    for (size_t c = 0; c < n; c++) {
        uint32_t due = 0;
        for (size_t i = 0; i < m; i++)
            due += ch[c].due(r, info_of(r, r->known2[i].id), &r->known2[i], key);
        if (!due)
            continue;
        rb_varint(&r->pkt, due);
        for (size_t i = 0; i < m; i++) {
            const sn_actor_info *a = info_of(r, r->known2[i].id);
            if (!ch[c].due(r, a, &r->known2[i], key))
                continue;
            rb_varint(&r->pkt, a->id);
            ch[c].put(r, a, &r->known2[i]);
        }
        packet(r, ch[c].packet);
    }
}

/* An event packet (actors added, destroyed, re-parented): its count, then its entries, none
** when there are none. */
static void event_packet(recorder *r, enum rec_packet op, uint32_t n, const rec_buf *entries)
{
    if (n) {
        rb_varint(&r->pkt, n);
        rb_bytes(&r->pkt, entries->p, entries->n);
        packet(r, op);
    }
}

/* This frame's collisions (the collision reports of the frame), one packet. */
static void collision_packet(recorder *r)
{
    rb_varint(&r->pkt, r->n_colls);
    for (size_t i = 0; i < r->n_colls; i++) {
        const coll *c = &r->colls[i];
        const sn_actor_info *a = info_of(r, c->a), *b = info_of(r, c->b);
        rb_varint(&r->pkt, r->next_cid++);
        rb_varint(&r->pkt, c->a);
        rb_varint(&r->pkt, c->b);
        rb_u8(&r->pkt, (uint8_t)((a && a->role_name && strcmp(a->role_name, "hero") == 0) |
                                 (b && b->role_name && strcmp(b->role_name, "hero") == 0) << 1));
        rb_f64(&r->pkt, c->impulse.x), rb_f64(&r->pkt, c->impulse.y), rb_f64(&r->pkt, c->impulse.z);
    }
    packet(r, REC_P_COLLISION);
}

/* The weather: when the host's count moved, and on key frames so that a seek finds it. */
static void weather_packet(recorder *r, bool key)
{
    if (SN_HOST_HAS(r->host, weather)) {
        sn_weather w;
        uint64_t serial = 0;
        r->host->weather(r->ctx, &w, &serial);
        if (key || serial != r->weather_serial) {
#define REC_WEATHER_OUT(name, lo, hi, drawn) rb_f32(&r->pkt, (float)w.name);
            SN_WEATHER_FIELD_LIST(REC_WEATHER_OUT) /* 14 f32 in CARLA's field order */
#undef REC_WEATHER_OUT
            packet(r, REC_P_WEATHER);
            r->weather_serial = serial;
        }
    }
}

/* The frame built in r->frame to the file, behind its head (tag, length, CRC-32), noted in the
** index; flushed to the kernel. */
static sn_status put_frame(recorder *r, const sn_clock *clk, double elapsed, bool key, bool events)
{
    sn_status st;
    uint8_t head[REC_FRAME_HEAD];
    uint32_t crc = rec_crc32(r->frame.p, r->frame.n), len = (uint32_t)r->frame.n;
    uint32_t tag = REC_FRAME_TAG;
    for (int i = 0; i < 4; i++) {
        head[i] = (uint8_t)(tag >> 8 * i);
        head[4 + i] = (uint8_t)(len >> 8 * i);
        head[8 + i] = (uint8_t)(crc >> 8 * i);
    }
    if (!sn_grow_array((void **)&r->index, &r->cap_index, r->n_index + 1, sizeof *r->index))
        return SN_E_NOMEM;
    r->index[r->n_index++] = (index_entry){clk->frame, r->offset, elapsed, clk->dt,
                                           (uint8_t)((key ? REC_F_KEY : 0) | (events ? REC_F_EVENTS : 0))};
    if ((st = put(r, head, sizeof head)) || (st = put(r, r->frame.p, r->frame.n)))
        return st;
    if (fflush(r->f) != 0) { /* to the kernel every frame: a killed process loses only the frame in progress */
        r->failed = true;
        r->host->set_error(r->ctx, "%s: write failed: %s", r->path, strerror(errno));
        return SN_E_IO;
    }
    return SN_OK;
}

static sn_status write_frame(recorder *r)
{
    const sn_clock *clk = r->host->clock(r->ctx);
    bool key = r->n_index % REC_KEY_INTERVAL == 0;
    sn_status st = gather(r);
    if (st)
        return st;
    size_t need = r->n_infos + 1;
    if (need > r->cap_known) {
        size_t cap = r->cap_known, cap2 = r->cap_known;
        if (!sn_grow_array((void **)&r->known2, &cap2, need, sizeof *r->known2) ||
            !sn_grow_array((void **)&r->known, &cap, need, sizeof *r->known))
            return SN_E_NOMEM;
        r->cap_known = cap < cap2 ? cap : cap2;
    }
    /* Diff: known (last frame) against infos (now), both ascending. */
    if (r->n_spawns > 1)
        qsort(r->spawns, r->n_spawns, sizeof *r->spawns, spawn_cmp);
    r->frame.n = r->pkt.n = 0;
    rec_buf adds = {0};
    uint32_t n_add = 0, n_del = 0, n_par = 0;
    rec_buf dels = {0}, pars = {0};
    size_t k = 0, m = 0;
    for (size_t i = 0; i < r->n_infos; i++) {
        const sn_actor_info *a = &r->infos[i];
        while (k < r->n_known && r->known[k].id < a->id) {
            rb_varint(&dels, r->known[k++].id);
            n_del++;
        }
        known kn = {.id = a->id, .parent = a->parent_id, .kind = a->kind};
        if (k < r->n_known && r->known[k].id == a->id) {
            kn = r->known[k++];
            if (kn.parent != a->parent_id) {
                rb_varint(&pars, a->id);
                rb_varint(&pars, a->parent_id);
                n_par++;
                kn.parent = a->parent_id;
            }
        } else {
            put_add(r, &adds, a);
            n_add++;
        }
        r->known2[m++] = kn;
    }
    while (k < r->n_known) {
        rb_varint(&dels, r->known[k++].id);
        n_del++;
    }
    bool events = n_add || n_del || n_par;

    rb_varint(&r->pkt, clk->frame);
    double elapsed = clk->timestamp - clk->dt; /* CARLA: frame 1 has elapsed 0 */
    rb_f64(&r->pkt, elapsed);
    rb_f64(&r->pkt, clk->dt);
    rb_u8(&r->pkt, (uint8_t)((key ? REC_F_KEY : 0) | (events ? REC_F_EVENTS : 0)));
    packet(r, REC_P_FRAME_START);
    event_packet(r, REC_P_ACTOR_ADD, n_add, &adds);
    event_packet(r, REC_P_ACTOR_DEL, n_del, &dels);
    event_packet(r, REC_P_PARENT, n_par, &pars);
    bool oom = adds.oom || dels.oom || pars.oom;
    rb_free(&adds), rb_free(&dels), rb_free(&pars);
    r->n_spawns = 0; /* used by this frame's adds */
    if (r->coll_frame == clk->frame && r->n_colls)
        collision_packet(r);
    if (!channel_packet(r, &r->pos, key, moving, pose_values))
        return r->pos.oom ? SN_E_NOMEM : SN_E_INVALID;
    packet(r, REC_P_POSITION);
    if (!channel_packet(r, &r->spos, key, attached_sensor, pose_values))
        return r->spos.oom ? SN_E_NOMEM : SN_E_INVALID;
    packet(r, REC_P_SENSOR_POSE);

    /* Per-actor channels: only changes, everything on key frames. */
    delta_packets(r, deltas, DELTAS_CORE, m, key);
    weather_packet(r, key);
    if (r->additional) {
        if (!channel_packet(r, &r->kin, key, moving, kin_values))
            return r->kin.oom ? SN_E_NOMEM : SN_E_INVALID;
        packet(r, REC_P_KINEMATICS);
        delta_packets(r, deltas + DELTAS_CORE, DELTAS_ADDITIONAL, m, key);
    }
    known *t = r->known;
    r->known = r->known2;
    r->known2 = t;
    r->n_known = m;
    if (oom || r->pkt.oom || r->frame.oom || r->frame.n > REC_MAX_FRAME)
        return SN_E_NOMEM;

    return put_frame(r, clk, elapsed, key, events);
}

static sn_status tick(void *self, sn_phase phase)
{
    recorder *r = self;
    if (phase != SN_PHASE_OBSERVE || !r->f)
        return SN_OK;
    if (r->failed)
        return SN_E_IO;
    sn_status st = write_frame(r);
    if (st == SN_E_NOMEM)
        r->host->set_error(r->ctx, "out of memory while recording frame %llu",
                           (unsigned long long)r->host->clock(r->ctx)->frame);
    return st;
}

/* The index of frame offsets, then the trailer that points at it (FORMAT.md "Index"). */
static void finish(recorder *r)
{
    if (!r->f || r->failed)
        return;
    rec_buf b = {0};
    rb_varint(&b, r->n_index);
    for (size_t i = 0; i < r->n_index; i++) {
        const index_entry *e = &r->index[i];
        rb_u64(&b, e->frame), rb_f64(&b, e->elapsed), rb_f64(&b, e->duration), rb_u64(&b, e->offset);
        rb_u8(&b, e->flags);
    }
    uint64_t at = r->offset;
    rec_buf t = {0};
    rb_u32(&t, REC_INDEX_TAG);
    rb_u64(&t, b.n);
    rb_u32(&t, rec_crc32(b.p, b.n));
    rb_bytes(&t, b.p, b.n);
    rb_u64(&t, at);
    rb_bytes(&t, REC_TRAILER_MAGIC, 8);
    if (!b.oom && !t.oom && put(r, t.p, t.n) == SN_OK)
        fflush(r->f);
    rb_free(&b);
    rb_free(&t);
}

static void destroy(void *self)
{
    recorder *r = self;
    if (!r)
        return;
    finish(r);
    if (r->f)
        fclose(r->f);
    free(r->known), free(r->known2), free(r->infos), free(r->colls), free(r->index), free(r->spawns);
    rb_free(&r->frame), rb_free(&r->pkt), rb_free(&r->head);
    ch_free(&r->pos), ch_free(&r->spos), ch_free(&r->kin);
    free(r);
}

static uint32_t pending(void *self)
{
    (void)self;
    return 0; /* the recording is the output: no stream messages */
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    (void)self, (void)index, (void)w;
    return SN_E_STATE;
}

const sn_sensor_class rec_writer_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.recorder",
    .doc = "records every frame of the world to a file (CARLA's recorder); read back by sensim replay",
    .phases = SN_PHASE_OBSERVE,
    .events = SN_EVENT_COLLISION_ANY | SN_EVENT_ACTOR_SPAWNED,
    SN_ATTR_TABLE(attrs),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .on_event = on_event,
    .pending = pending,
    .serialize = serialize,
    .log_reader = &rec_log_reader,
};
