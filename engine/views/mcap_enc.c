/* mcap_enc.c — the leaves every MCAP converter shares (mcap_fox.c, mcap_scene.c, mcap_debug.c):
** reading msgpack fields, writing Foxglove's poses and frame transforms as protobuf, and emitting
** the message being built (m->out) on its topic's channel. It calls none of them back, so the
** converters and the view that drives them form no call cycle (docs/building.md). */
#include "mcap_view.h"
#include "json_schema.h"
#include "mcap_schemas.h"

#include "../core/error.h"

#include <sensim/math.h>

#include <stdlib.h>
#include <string.h>

bool sn_mp_str(const msgpack_object *o, char *buf, size_t n)
{
    if (!o || o->type != MSGPACK_OBJECT_STR || o->via.str.size >= n || memchr(o->via.str.ptr, 0, o->via.str.size))
        return false;
    memcpy(buf, o->via.str.ptr, o->via.str.size);
    buf[o->via.str.size] = 0;
    return true;
}

bool sn_mp_num(const msgpack_object *o, double *v)
{
    if (!o)
        return false;
    switch (o->type) {
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: *v = o->via.f64; return true;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: *v = (double)o->via.u64; return true;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: *v = (double)o->via.i64; return true;
    default: return false;
    }
}

static bool vec3(const msgpack_object *o, double v[3])
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return false;
    for (int i = 0; i < 3; i++)
        if (!sn_mp_num(&o->via.array.ptr[i], &v[i]))
            return false;
    return true;
}

bool sn_mp_transform(const msgpack_object *o, sn_transform *t)
{
    double l[3], r[3];
    if (!o || !vec3(sn_mp_get(o, "location"), l) || !vec3(sn_mp_get(o, "rotation"), r))
        return false;
    *t = (sn_transform){{l[0], l[1], l[2]}, {r[0], r[1], r[2]}};
    return true;
}

void sn_fox_quat_of(const sn_mat3 *r, double q[4])
{
    sn_mat3 a = *r;
    /* S a S: negate the entries with exactly one index equal to y (row 1 or column 1) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if ((i == 1) != (j == 1))
                a.m[3 * i + j] = -a.m[3 * i + j];
    sn_quat k = sn_quat_from_mat3(&a);
    q[0] = k.x, q[1] = k.y, q[2] = k.z, q[3] = k.w;
}

void sn_fox_vec3(sn_buf *b, uint32_t field, double x, double y, double z)
{
    size_t m = pb_begin(b);
    pb_double(b, 1, x);
    pb_double(b, 2, y);
    pb_double(b, 3, z);
    pb_end(b, field, m);
}

static void fox_quat_q(sn_buf *b, uint32_t field, const double q[4])
{
    size_t m = pb_begin(b);
    for (uint32_t i = 0; i < 4; i++)
        pb_double(b, i + 1, q[i]);
    pb_end(b, field, m);
}

static void rot_quat(const sn_rotation *r, double q[4])
{
    sn_mat3 a = sn_mat3_from_rotation(*r);
    sn_fox_quat_of(&a, q);
}

void sn_fox_pose_q(sn_buf *b, uint32_t field, sn_vec3 loc, const double q[4])
{
    size_t m = pb_begin(b);
    sn_fox_vec3(b, 1, loc.x, -loc.y, loc.z);
    fox_quat_q(b, 2, q);
    pb_end(b, field, m);
}

void sn_fox_pose(sn_buf *b, uint32_t field, const sn_transform *t)
{
    double q[4];
    rot_quat(&t->rotation, q);
    sn_fox_pose_q(b, field, t->location, q);
}

void sn_fox_frame_transform_q(sn_buf *b, uint64_t t, const char *parent, const char *child, sn_vec3 loc,
                              const double q[4])
{
    size_t tr = pb_begin(b);
    pb_time(b, 1, t);
    pb_string(b, 2, parent);
    pb_string(b, 3, child);
    sn_fox_vec3(b, 4, loc.x, -loc.y, loc.z);
    fox_quat_q(b, 5, q);
    pb_end(b, 1, tr); /* one of FrameTransforms.transforms */
}

void sn_fox_frame_transform(sn_buf *b, uint64_t t, const char *parent, const char *child, const sn_transform *rel)
{
    double q[4];
    rot_quat(&rel->rotation, q);
    sn_fox_frame_transform_q(b, t, parent, child, rel->location, q);
}

uint16_t sn_mcap_channel_for(sn_mcap *m, const char *topic, const char *schema, bool json)
{
    uint16_t sid = 0;
    if (json) {
        /* the schema of the type's first message (m->out, being emitted): its fields for
        ** Foxglove's panels; registered once per type, later messages find it by name */
        sid = sn_mcapw_schema_find(m->w, schema);
        if (!sid) {
            sn_buf js = {0};
            static const char any[] = "{\"type\":\"object\"}";
            bool ok = sn_json_schema_of((const char *)m->out.p, m->out.n, &js);
            sid = ok ? sn_mcapw_schema(m->w, schema, "jsonschema", js.p, js.n)
                     : sn_mcapw_schema(m->w, schema, "jsonschema", any, sizeof any - 1);
            sn_buf_free(&js);
        }
    } else {
        for (const sn_fox_schema *s = sn_fox_schemas; s->name; s++)
            if (strcmp(s->name, schema) == 0)
                sid = sn_mcapw_schema(m->w, s->name, "protobuf", s->data, s->size);
    }
    return sid ? sn_mcapw_channel(m->w, topic, sid, json ? "json" : "protobuf") : UINT16_MAX;
}

sn_status sn_mcap_emit(sn_mcap *m, const char *topic, const char *schema, bool json, uint64_t log_time, sn_error *err)
{
    if (m->out.bad)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    uint16_t ch = sn_mcap_channel_for(m, topic, schema, json);
    if (ch == UINT16_MAX)
        return sn_fail(err, SN_E_NOMEM, "mcap: out of memory or channels for %s", topic);
    return sn_mcap_pool_put(m->pool, ch, log_time, m->out.p, m->out.n, err);
}
