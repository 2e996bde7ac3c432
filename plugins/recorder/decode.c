/* decode.c — one frame of a recording into the reader's state and its sn_log_frame.
** Every read goes through a bounds-checked cursor; any inconsistency is damage, reported with
** the frame and packet, never a crash (the fuzz target drives this file). */
#include "format.h"
#include "reader.h"

#include <sensim/weather_fields.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

#define PUSH(r, name, val)                                                                                   \
    (sn_grow_array((void **)&(r)->name, &(r)->cap_##name, (size_t)(r)->n_##name + 1, sizeof *(r)->name)            \
         ? ((r)->name[(r)->n_##name++] = (val), true)                                                        \
         : false)

static void free_actor(rd_actor *a)
{
    if (a) {
        free(a->block);
        free(a);
    }
}

void rd_free_dead(rd_reader *r)
{
    for (size_t i = 0; i < r->n_dead; i++)
        free_actor(r->dead[i]);
    r->n_dead = 0;
}

void rd_state_clear(rd_reader *r)
{
    rd_free_dead(r);
    for (size_t i = 0; i < r->n_live; i++)
        free_actor(r->live[i]);
    r->n_live = 0;
    r->has_weather = false; /* a seek finds it again in the key frame it starts from */
    ch_reset(&r->pos), ch_reset(&r->spos), ch_reset(&r->kin);
}

typedef struct id_probe {
    const rd_reader *r;
    uint32_t id;
} id_probe;

static bool live_before(const void *ctx, size_t i)
{
    const id_probe *p = ctx;
    return p->r->live[i]->add.id < p->id;
}

static size_t find(const rd_reader *r, uint32_t id, bool *found)
{
    size_t lo = sn_search_first(0, r->n_live, &(id_probe){r, id}, live_before);
    *found = lo < r->n_live && r->live[lo]->add.id == id;
    return lo;
}

static rd_actor *live_get(rd_reader *r, uint32_t id)
{
    bool found;
    size_t i = find(r, id, &found);
    return found ? r->live[i] : NULL;
}

static sn_status damage(rd_reader *r, const rd_entry *e, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, sizeof r->err, "frame %llu (byte %llu): %s", (unsigned long long)e->frame,
             (unsigned long long)e->offset, what);
    return SN_E_INVALID;
}

static sn_status nomem(rd_reader *r)
{
    snprintf(r->err, sizeof r->err, "out of memory while reading the recording");
    return SN_E_NOMEM;
}

static sn_transform get_transform(rec_cur *c)
{
    sn_transform t;
    t.location.x = rc_f64(c), t.location.y = rc_f64(c), t.location.z = rc_f64(c);
    t.rotation.pitch = rc_f64(c), t.rotation.yaw = rc_f64(c), t.rotation.roll = rc_f64(c);
    return t;
}

/* Copies a length-delimited string into the block at *at. */
static const char *put_str(char *block, size_t *at, const uint8_t *s, size_t n)
{
    char *d = block + *at;
    if (n)
        memcpy(d, s, n);
    d[n] = 0;
    *at += n + 1;
    return d;
}

static sn_status decode_add(rd_reader *r, const rd_entry *e, rec_cur *c)
{
    /* First pass measures the strings, second copies them into one block. */
    rec_cur start = *c;
    size_t bytes = 0, len;
    uint64_t id = rc_varint(c);
    rc_u8(c);
    uint64_t parent = rc_varint(c);
    rc_str(c, &len), bytes += len + 1;
    rc_str(c, &len), bytes += len + 1;
    rc_skip(c, 96);
    uint32_t n_attrs = rc_count(c, 3);
    for (uint32_t i = 0; i < n_attrs && !c->bad; i++) {
        rc_u8(c);
        rc_str(c, &len), bytes += len + 1;
        rc_str(c, &len), bytes += len + 1;
    }
    if (c->bad || id == 0 || id > UINT32_MAX || parent > UINT32_MAX)
        return damage(r, e, "malformed actor record");
    rd_actor *a = calloc(1, sizeof *a);
    size_t attr_bytes = (size_t)n_attrs * sizeof(sn_log_attr);
    if (!a || !(a->block = malloc(attr_bytes + bytes + 1))) {
        free(a);
        return nomem(r);
    }
    sn_log_attr *attrs = (sn_log_attr *)(void *)a->block;
    size_t at = attr_bytes;
    *c = start;
    a->add.id = (uint32_t)rc_varint(c);
    a->add.type = rc_u8(c);
    a->add.parent_id = (uint32_t)rc_varint(c);
    const uint8_t *s = rc_str(c, &len);
    a->add.blueprint = put_str(a->block, &at, s, len);
    s = rc_str(c, &len);
    a->add.name = put_str(a->block, &at, s, len);
    a->add.transform = get_transform(c);
    a->add.relative = get_transform(c);
    a->add.n_attrs = rc_count(c, 3);
    a->add.attrs = attrs;
    for (uint32_t i = 0; i < a->add.n_attrs; i++) {
        attrs[i].type = rc_u8(c);
        s = rc_str(c, &len);
        attrs[i].id = put_str(a->block, &at, s, len);
        s = rc_str(c, &len);
        attrs[i].value = put_str(a->block, &at, s, len);
        if (strcmp(attrs[i].id, "role_name") == 0 && strcmp(attrs[i].value, "hero") == 0)
            a->add.hero = true;
    }
    bool found;
    size_t pos = find(r, a->add.id, &found);
    if (found) { /* the same id twice: the newer record wins; the older stays valid until the next call */
        if (!sn_grow_array((void **)&r->dead, &r->cap_dead, r->n_dead + 1, sizeof *r->dead)) {
            free_actor(a);
            return nomem(r);
        }
        r->dead[r->n_dead++] = r->live[pos];
        r->live[pos] = a;
    } else {
        if (!sn_grow_array((void **)&r->live, &r->cap_live, r->n_live + 1, sizeof *r->live)) {
            free_actor(a);
            return nomem(r);
        }
        memmove(r->live + pos + 1, r->live + pos, (r->n_live - pos) * sizeof *r->live);
        r->live[pos] = a;
        r->n_live++;
    }
    return PUSH(r, added, a->add) ? SN_OK : nomem(r);
}

/* A channel packet: ids strictly ascending, values predicted (codec.h). */
static sn_status decode_channel(rd_reader *r, const rd_entry *e, rec_cur *c, rec_channel *ch, int which)
{
    uint32_t n = rc_count(c, 7);
    if (c->bad)
        return damage(r, e, "malformed channel packet");
    if (!ch_begin(ch, n))
        return nomem(r);
    uint64_t id = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d = rc_varint(c);
        id = i == 0 ? d : id + d + 1;
        if (c->bad || id == 0 || id > UINT32_MAX || d > UINT32_MAX)
            return damage(r, e, "malformed channel record");
        int64_t pred[REC_NV], q[REC_NV];
        ch_predict(ch, (uint32_t)id, pred);
        double v[REC_NV];
        for (int k = 0; k < REC_NV; k++) {
            uint64_t sum = (uint64_t)pred[k] + (uint64_t)rc_svarint(c);
            memcpy(&q[k], &sum, sizeof sum);
            v[k] = rec_dequantise(q[k]);
        }
        if (c->bad)
            return damage(r, e, "malformed channel record");
        ch_push(ch, (uint32_t)id, q);
        bool ok;
        if (which == 2) {
            sn_log_kinematics k = {(uint32_t)id, {v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
            ok = PUSH(r, kinematics, k);
        } else {
            sn_log_pose p = {(uint32_t)id, {{v[0], v[1], v[2]}, {v[3], v[4], v[5]}}};
            ok = which == 0 ? PUSH(r, poses, p) : PUSH(r, sensor_poses, p);
        }
        if (!ok)
            return nomem(r);
    }
    ch_end(ch);
    return SN_OK;
}

/* A state packet (collisions, poses, kinematics, controls, walkers, boxes, weather, lights,
** vehicles) into the reader; an unknown one, of a newer minor version, is skipped by its length. */
static sn_status decode_state(rd_reader *r, const rd_entry *e, uint64_t id, rec_cur *c)
{
    uint32_t n;
    switch (id) {
    case REC_P_COLLISION:
        n = rc_count(c, 28);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            sn_log_collision k;
            uint64_t cid = rc_varint(c), a = rc_varint(c), b = rc_varint(c);
            uint8_t f = rc_u8(c);
            k.id = (uint32_t)cid, k.actor1 = (uint32_t)a, k.actor2 = (uint32_t)b;
            k.hero1 = f & 1, k.hero2 = (f >> 1) & 1;
            k.impulse.x = rc_f64(c), k.impulse.y = rc_f64(c), k.impulse.z = rc_f64(c);
            if (!c->bad && !PUSH(r, collisions, k))
                return nomem(r);
        }
        break;
    case REC_P_POSITION:
        return decode_channel(r, e, c, &r->pos, 0);
    case REC_P_SENSOR_POSE:
        return decode_channel(r, e, c, &r->spos, 1);
    case REC_P_KINEMATICS:
        return decode_channel(r, e, c, &r->kin, 2);
    case REC_P_CONTROL:
        n = rc_count(c, 26);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            sn_vehicle_control k;
            k.throttle = rc_f64(c), k.steer = rc_f64(c), k.brake = rc_f64(c);
            uint8_t f = rc_u8(c);
            k.hand_brake = f & 1, k.reverse = (f >> 1) & 1;
            rd_actor *x = c->bad || a > UINT32_MAX ? NULL : live_get(r, (uint32_t)a);
            if (x)
                x->has_ctl = true, x->ctl = k;
        }
        break;
    case REC_P_WALKER:
        n = rc_count(c, 5);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            double v = rc_f32(c);
            rd_actor *x = c->bad || a > UINT32_MAX ? NULL : live_get(r, (uint32_t)a);
            if (x)
                x->has_walk = true, x->walk = v;
        }
        break;
    case REC_P_BBOX:
        n = rc_count(c, 49);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            sn_bbox b;
            b.location.x = rc_f64(c), b.location.y = rc_f64(c), b.location.z = rc_f64(c);
            b.extent.x = rc_f64(c), b.extent.y = rc_f64(c), b.extent.z = rc_f64(c);
            rd_actor *x = c->bad || a > UINT32_MAX ? NULL : live_get(r, (uint32_t)a);
            if (x)
                x->has_box = true, x->box = b;
        }
        break;
    case REC_P_WEATHER: { /* 14 f32 in CARLA's field order: the weather is float32 everywhere */
        sn_weather *w = &r->weather;
#define REC_WEATHER_IN(name, lo, hi, drawn) w->name = rc_f32(c);
        SN_WEATHER_FIELD_LIST(REC_WEATHER_IN)
#undef REC_WEATHER_IN
#define REC_WEATHER_FINITE(name, lo, hi, drawn) c->bad = c->bad || !isfinite(w->name);
        SN_WEATHER_FIELD_LIST(REC_WEATHER_FINITE)
#undef REC_WEATHER_FINITE
        r->has_weather = !c->bad;
        break;
    }
    case REC_P_LIGHT:
        n = rc_count(c, 2);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            uint8_t s = rc_u8(c);
            if (s > 4)
                c->bad = true; /* CARLA's five states */
            rd_actor *x = c->bad || a > UINT32_MAX ? NULL : live_get(r, (uint32_t)a);
            if (x)
                x->has_light = true, x->light = s;
        }
        break;
    case REC_P_VEHICLE:
        n = rc_count(c, 6);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            double wheel = rc_f32(c);
            uint64_t lamps = rc_varint(c);
            if (!isfinite(wheel) || fabs(wheel) > 360 || lamps > UINT32_MAX)
                c->bad = true;
            rd_actor *x = c->bad || a > UINT32_MAX ? NULL : live_get(r, (uint32_t)a);
            if (x)
                x->has_veh = true, x->veh = (sn_log_vehicle){(uint32_t)a, wheel, (uint32_t)lamps};
        }
        break;
    default:
        return SN_OK; /* a packet of a newer minor version: skipped by its length */
    }
    return c->bad ? damage(r, e, "malformed packet %llu", (unsigned long long)id) : SN_OK;
}

static sn_status decode_packet(rd_reader *r, const rd_entry *e, uint64_t id, rec_cur *c, bool events_only)
{
    uint32_t n;
    switch (id) {
    case REC_P_ACTOR_ADD:
        n = rc_count(c, 100);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            sn_status st = decode_add(r, e, c);
            if (st)
                return st;
        }
        break;
    case REC_P_ACTOR_DEL:
        n = rc_count(c, 1);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t a = rc_varint(c);
            bool found;
            size_t pos = find(r, (uint32_t)a, &found);
            if (c->bad || a > UINT32_MAX)
                break;
            if (found) {
                if (!sn_grow_array((void **)&r->dead, &r->cap_dead, r->n_dead + 1, sizeof *r->dead))
                    return nomem(r);
                r->dead[r->n_dead++] = r->live[pos];
                memmove(r->live + pos, r->live + pos + 1, (r->n_live - pos - 1) * sizeof *r->live);
                r->n_live--;
            }
            if (!PUSH(r, destroyed, (uint32_t)a))
                return nomem(r);
        }
        break;
    case REC_P_PARENT:
        n = rc_count(c, 2);
        for (uint32_t i = 0; i < n && !c->bad; i++) {
            uint64_t child = rc_varint(c), parent = rc_varint(c);
            if (c->bad || child > UINT32_MAX || parent > UINT32_MAX)
                break;
            rd_actor *a = live_get(r, (uint32_t)child);
            if (a)
                a->add.parent_id = (uint32_t)parent;
            sn_log_parent p = {(uint32_t)child, (uint32_t)parent};
            if (!PUSH(r, reparented, p))
                return nomem(r);
        }
        break;
    default:
        if (events_only)
            return SN_OK;
        break;
    }
    if (events_only || id <= REC_P_PARENT)
        return c->bad ? damage(r, e, "malformed packet %llu", (unsigned long long)id) : SN_OK;
    return decode_state(r, e, id, c);
}

sn_status rd_decode(rd_reader *r, const rd_entry *e, bool events_only)
{
    r->n_added = r->n_destroyed = r->n_reparented = r->n_collisions = 0;
    r->n_poses = r->n_sensor_poses = r->n_controls = r->n_walkers = r->n_kinematics = r->n_bboxes = 0;
    r->n_lights = r->n_vehicles = 0;
    rec_cur c = {r->payload, r->payload + r->payload_len, false};
    uint64_t pid = rc_varint(&c), plen = rc_varint(&c);
    if (c.bad || pid != REC_P_FRAME_START || plen > (uint64_t)(c.end - c.p))
        return damage(r, e, "does not start with a FrameStart packet");
    rec_cur fs = {c.p, c.p + plen, false};
    c.p += plen;
    uint64_t frame = rc_varint(&fs);
    double elapsed = rc_f64(&fs), duration = rc_f64(&fs);
    uint8_t flags = rc_u8(&fs);
    if (fs.bad)
        return damage(r, e, "malformed FrameStart");
    if (!events_only && (flags & REC_F_KEY))
        ch_reset(&r->pos), ch_reset(&r->spos), ch_reset(&r->kin);
    /* Channels absent from a frame mean no such actors: their history ends. */
    bool seen[3] = {false, false, false};
    while (c.p < c.end) {
        uint64_t id = rc_varint(&c), len = rc_varint(&c);
        if (c.bad || len > (uint64_t)(c.end - c.p))
            return damage(r, e, "packet length runs past the frame");
        rec_cur pc = {c.p, c.p + len, false};
        c.p += len;
        if (id == REC_P_FRAME_START)
            return damage(r, e, "two FrameStart packets");
        seen[0] |= id == REC_P_POSITION, seen[1] |= id == REC_P_SENSOR_POSE, seen[2] |= id == REC_P_KINEMATICS;
        sn_status st = decode_packet(r, e, id, &pc, events_only);
        if (st)
            return st;
    }
    if (events_only)
        return SN_OK;
    if (!seen[0])
        ch_reset(&r->pos);
    if (!seen[1])
        ch_reset(&r->spos);
    if (!seen[2])
        ch_reset(&r->kin);
    for (size_t i = 0; i < r->n_live; i++) {
        const rd_actor *a = r->live[i];
        if (a->has_ctl && !PUSH(r, controls, ((sn_log_control){a->add.id, a->ctl})))
            return nomem(r);
        if (a->has_walk && !PUSH(r, walkers, ((sn_log_walker){a->add.id, a->walk})))
            return nomem(r);
        if (a->has_box && !PUSH(r, bboxes, ((sn_log_bbox){a->add.id, a->box})))
            return nomem(r);
        if (a->has_light && !PUSH(r, lights, ((sn_log_light){a->add.id, a->light})))
            return nomem(r);
        if (a->has_veh && !PUSH(r, vehicles, a->veh))
            return nomem(r);
    }
    sn_log_frame *f = &r->fr;
    memset(f, 0, sizeof *f);
    f->struct_size = sizeof *f;
    f->frame = frame;
    f->elapsed = elapsed;
    f->duration = duration;
    f->added = r->added, f->n_added = r->n_added;
    f->destroyed = r->destroyed, f->n_destroyed = r->n_destroyed;
    f->reparented = r->reparented, f->n_reparented = r->n_reparented;
    f->collisions = r->collisions, f->n_collisions = r->n_collisions;
    f->poses = r->poses, f->n_poses = r->n_poses;
    f->sensor_poses = r->sensor_poses, f->n_sensor_poses = r->n_sensor_poses;
    f->controls = r->controls, f->n_controls = r->n_controls;
    f->walkers = r->walkers, f->n_walkers = r->n_walkers;
    f->kinematics = r->kinematics, f->n_kinematics = r->n_kinematics;
    f->bboxes = r->bboxes, f->n_bboxes = r->n_bboxes;
    f->lights = r->lights, f->n_lights = r->n_lights;
    f->weather = r->has_weather ? &r->weather : NULL;
    f->vehicles = r->vehicles, f->n_vehicles = r->n_vehicles;
    return SN_OK;
}
