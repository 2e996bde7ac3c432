/* mcap_debug.c — CARLA's world.debug in Foxglove's 3-D panel: each message of a
** sensor.other.debug stream (plugins/debug/debug.c) as one foxglove.SceneUpdate on /<sensor>
** (/debug as the Python API names it), one SceneEntity per shape, in the world frame, with
** its life time as the entity's lifetime:
**   CARLA life_time < 0 (one frame): the frame's step (the message's delta_seconds);
**   0 (for ever): lifetime 0, which Foxglove keeps until the entity is replaced;
**   > 0: that many seconds.
** Points are spheres of their size, lines 2-point line strips of their thickness, arrows
** ArrowPrimitives from begin to end (the head arrow_size long and wide, at most the whole
** length), boxes wireframes (a line list of the 12 edges posed at the box), strings billboard
** texts of 16 screen pixels. Entity ids are "<frame>/<index>": unique, so shapes of different
** frames live side by side until their lifetimes end. Axes as everywhere (mcap_fox.c: y negated). */
#include "mcap_view.h"

#include "../core/error.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DBG_FONT_PX 16.0

static bool vec3(const msgpack_object *o, double v[3])
{
    if (!o || o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != 3)
        return false;
    for (int i = 0; i < 3; i++)
        if (!sn_mp_num(&o->via.array.ptr[i], &v[i]) || !isfinite(v[i]))
            return false;
    return true;
}

static bool num(const msgpack_object *shape, const char *key, double *v)
{
    return sn_mp_num(sn_mp_get(shape, key), v) && isfinite(*v);
}

static void rgba(sn_buf *b, uint32_t field, const double c[4])
{
    size_t m = pb_begin(b);
    for (uint32_t i = 0; i < 4; i++)
        pb_double(b, i + 1, c[i] / 255.0);
    pb_end(b, field, m);
}

static void pt(sn_buf *b, uint32_t field, double x, double y, double z) /* CARLA's axes in */
{
    size_t m = pb_begin(b);
    pb_double(b, 1, x);
    pb_double(b, 2, -y);
    pb_double(b, 3, z);
    pb_end(b, field, m);
}

static void identity_pose(sn_buf *b, uint32_t field)
{
    size_t pose = pb_begin(b), q = pb_begin(b);
    pb_double(b, 4, 1.0);
    pb_end(b, 2, q);
    pb_end(b, field, pose);
}

/* One shape's primitive(s) into the open entity; false when the shape lacks its fields. */
static bool primitive(sn_buf *b, const msgpack_object *s, const char *kind, const double c[4])
{
    double p[3], q[3], r[3], size;
    if (strcmp(kind, "point") == 0) {
        if (!vec3(sn_mp_get(s, "location"), p) || !num(s, "size", &size) || size < 0)
            return false;
        size_t m = pb_begin(b);
        sn_transform t = {{p[0], p[1], p[2]}, {0, 0, 0}};
        sn_fox_pose(b, 1, &t);
        size = fmax(size, 0.001);
        sn_fox_vec3(b, 2, size, size, size);
        rgba(b, 3, c);
        pb_end(b, 9, m); /* spheres */
        return true;
    }
    if (strcmp(kind, "line") == 0) {
        if (!vec3(sn_mp_get(s, "begin"), p) || !vec3(sn_mp_get(s, "end"), q) || !num(s, "thickness", &size))
            return false;
        size_t m = pb_begin(b); /* type LINE_STRIP is 0 */
        identity_pose(b, 2);
        pb_double(b, 3, size);
        pt(b, 5, p[0], p[1], p[2]);
        pt(b, 5, q[0], q[1], q[2]);
        rgba(b, 6, c);
        pb_end(b, 11, m); /* lines */
        return true;
    }
    if (strcmp(kind, "arrow") == 0) {
        double head;
        if (!vec3(sn_mp_get(s, "begin"), p) || !vec3(sn_mp_get(s, "end"), q) || !num(s, "thickness", &size) ||
            !num(s, "arrow_size", &head))
            return false;
        double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        /* the pose's x axis along begin -> end (CARLA's rotation: forward = (cos p cos y, cos p sin y, sin p)) */
        sn_transform t = {{p[0], p[1], p[2]},
                          {atan2(d[2], hypot(d[0], d[1])) * 180 / M_PI, atan2(d[1], d[0]) * 180 / M_PI, 0}};
        head = fmin(head, len);
        size_t m = pb_begin(b);
        sn_fox_pose(b, 1, &t);
        pb_double(b, 2, len - head);
        pb_double(b, 3, size);
        pb_double(b, 4, head);
        pb_double(b, 5, fmax(head, 2 * size));
        rgba(b, 6, c);
        pb_end(b, 7, m); /* arrows */
        return true;
    }
    if (strcmp(kind, "box") == 0) {
        if (!vec3(sn_mp_get(s, "location"), p) || !vec3(sn_mp_get(s, "extent"), q) ||
            !vec3(sn_mp_get(s, "rotation"), r) || !num(s, "thickness", &size))
            return false;
        sn_transform t = {{p[0], p[1], p[2]}, {r[0], r[1], r[2]}};
        size_t m = pb_begin(b);
        pb_uint(b, 1, 2); /* LINE_LIST */
        sn_fox_pose(b, 2, &t);
        pb_double(b, 3, size);
        /* the 12 edges: corners differ in one axis; corner i has sign bits x 1, y 2, z 4 */
        for (int i = 0; i < 8; i++)
            for (int axis = 0; axis < 3; axis++) {
                int j = i | (1 << axis);
                if (j == i)
                    continue;
                const int cs[2] = {i, j};
                for (int k = 0; k < 2; k++)
                    pt(b, 5, (cs[k] & 1 ? 1 : -1) * q[0], (cs[k] & 2 ? 1 : -1) * q[1], (cs[k] & 4 ? 1 : -1) * q[2]);
            }
        rgba(b, 6, c);
        pb_end(b, 11, m);
        return true;
    }
    if (strcmp(kind, "string") == 0) {
        const msgpack_object *text = sn_mp_get(s, "text");
        if (!vec3(sn_mp_get(s, "location"), p) || !text || text->type != MSGPACK_OBJECT_STR)
            return false;
        sn_transform t = {{p[0], p[1], p[2]}, {0, 0, 0}};
        size_t m = pb_begin(b);
        sn_fox_pose(b, 1, &t);
        pb_bool(b, 2, true);
        pb_double(b, 3, DBG_FONT_PX);
        pb_bool(b, 4, true);
        rgba(b, 5, c);
        pb_bytes(b, 6, text->via.str.ptr, text->via.str.size);
        pb_end(b, 13, m); /* texts */
        return true;
    }
    return false;
}

bool sn_mcap_is_debug(const char *type_id) { return type_id && strcmp(type_id, "sensor.other.debug") == 0; }

sn_status sn_mcap_debug(sn_mcap *m, const msgpack_object *msg, const char *sensor, uint64_t t, sn_error *err)
{
    const msgpack_object *shapes = sn_mp_get(msg, "shapes");
    double dt = 0, frame = 0;
    if (!shapes || shapes->type != MSGPACK_OBJECT_ARRAY || !num(msg, "delta_seconds", &dt) || dt < 0 ||
        !num(msg, "frame", &frame))
        return sn_fail(err, SN_E_INVALID, "%s: a debug message needs frame, delta_seconds and shapes", sensor);
    sn_buf *b = &m->out;
    b->n = 0;
    for (uint32_t i = 0; i < shapes->via.array.size; i++) {
        const msgpack_object *s = &shapes->via.array.ptr[i];
        const msgpack_object *col = sn_mp_get(s, "color");
        char kind[16];
        double life, c[4];
        bool ok = s->type == MSGPACK_OBJECT_MAP && sn_mp_str(sn_mp_get(s, "kind"), kind, sizeof kind) &&
                  num(s, "life_time", &life) && col && col->type == MSGPACK_OBJECT_ARRAY && col->via.array.size == 4;
        for (uint32_t k = 0; ok && k < 4; k++)
            ok = sn_mp_num(&col->via.array.ptr[k], &c[k]) && c[k] >= 0 && c[k] <= 255;
        double lifetime = life < 0 ? dt : life;
        ok = ok && lifetime <= 1e9;
        char id[48];
        snprintf(id, sizeof id, "%.0f/%u", frame, i);
        size_t e = pb_begin(b);
        pb_time(b, 1, t);
        pb_string(b, 2, "world");
        pb_string(b, 3, id);
        if (ok)
            pb_time(b, 4, (uint64_t)llround(lifetime * 1e9)); /* 0: for ever */
        size_t kv = pb_begin(b);
        pb_string(b, 1, "kind");
        pb_string(b, 2, ok ? kind : "");
        pb_end(b, 6, kv);
        ok = ok && primitive(b, s, kind, c);
        pb_end(b, 2, e); /* SceneUpdate.entities */
        if (!ok)
            return sn_fail(err, SN_E_INVALID, "%s: shape %u is not a debug shape (kind, color, life_time and its fields)",
                           sensor, i);
    }
    if (b->bad)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    char topic[300];
    snprintf(topic, sizeof topic, "/%s", sensor);
    return sn_mcap_emit(m, topic, "foxglove.SceneUpdate", false, t, err);
}
