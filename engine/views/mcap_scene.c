/* mcap_scene.c — the world of a run in Foxglove's 3-D panel:
**
** - the actors stream (sensor.other.actors) as foxglove.SceneUpdate: one entity per actor that
**   is not a sensor (id: the actor id), a cube of its bounding box posed in the world frame,
**   coloured by its semantic tag (CityScapes; static actors translucent), with type_id and name
**   as metadata, and a deletion for every actor gone since the previous update. Moving actors
**   (vehicles, walkers, what rides on them) go on /<stream> every frame; static ones (static.*,
**   traffic lights and what hangs on them never move) on /<stream>/static, only when that set
**   changes, which is what a viewer needs: it shows a topic's last message, and after a seek reads
**   the last one before the new time;
** - the transform tree as foxglove.FrameTransforms, /tf for moving frames every frame and
**   /tf_static for static ones with their update: world -> each free-standing actor, parent ->
**   each attached actor or sensor (its mount); frames are named by the actor's scene name, or
**   actor_<id> when it has none;
** - the map's driving lanes as lines (/map, once): each lane's left and right borders, white or
**   yellow where the border is painted, thin grey where it is not.
** Poses go from CARLA's left-handed axes to Foxglove's right-handed ones by negating y (mcap_fox.c). */
#include "mcap_view.h"

#include "../core/error.h"
#include "../core/util.h"

#include <sensim/math.h>
#include <sensim/records.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

#define SN_MCAP_MIN_SIZE 0.001 /* m: the smallest side of a box (docs/mcap.md) */

static const sn_actor_record *find(const sn_actor_record *r, size_t n, uint32_t id)
{
    size_t i = sn_search_u32(r, n, sizeof *r, offsetof(sn_actor_record, id), id);
    return i < n && r[i].id == id ? &r[i] : NULL;
}

static sn_transform pose_of(const sn_actor_record *r)
{
    return (sn_transform){{r->location[0], r->location[1], r->location[2]},
                          {r->rotation[0], r->rotation[1], r->rotation[2]}};
}

/* id in decimal into buf (at least 11 bytes), as "%u" writes it: an entity's and a deletion's
** id, once per actor and frame (snprintf was a tenth of the actors' conversion). */
static const char *u32_dec(uint32_t id, char *buf)
{
    char tmp[10];
    int n = 0;
    do
        tmp[n++] = (char)('0' + id % 10);
    while ((id /= 10) != 0);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return buf;
}

static void frame_name(const msgpack_object *names, size_t i, uint32_t id, char *buf, size_t n)
{
    const msgpack_object *o = names && i < names->via.array.size ? &names->via.array.ptr[i] : NULL;
    if (!sn_mp_str(o, buf, n) || !buf[0])
        snprintf(buf, n, "actor_%u", id);
}

static void kv(sn_buf *b, uint32_t field, const char *key, const msgpack_object *value)
{
    size_t m = pb_begin(b);
    pb_string(b, 1, key);
    if (value && value->type == MSGPACK_OBJECT_STR)
        pb_bytes(b, 2, value->via.str.ptr, value->via.str.size);
    pb_end(b, field, m);
}

static void color(sn_buf *b, uint32_t field, double r, double g, double bl, double a)
{
    size_t m = pb_begin(b);
    pb_double(b, 1, r);
    pb_double(b, 2, g);
    pb_double(b, 3, bl);
    pb_double(b, 4, a);
    pb_end(b, field, m);
}

/* The deletions of `prev`'s entities that are not among this update's (ids ascending). */
static void deletions(sn_buf *b, const sn_id_set *prev, const uint32_t *ids, size_t n, uint64_t t)
{
    size_t j = 0;
    for (size_t i = 0; i < prev->n; i++) {
        while (j < n && ids[j] < prev->ids[i])
            j++;
        if (j < n && ids[j] == prev->ids[i])
            continue;
        char id[16];
        u32_dec(prev->ids[i], id);
        size_t d = pb_begin(b);
        pb_time(b, 1, t);
        pb_string(b, 3, id); /* type MATCHING_ID is 0 */
        pb_end(b, 1, d);
    }
}

/* One actor's box as a SceneEntity of an update; rm: its rotation's matrix and quaternion. */
static void entity(sn_buf *b, const sn_actor_record *r, const sn_rot_memo *rm, const msgpack_object *type,
                   const msgpack_object *name, uint64_t t)
{
    char id[16];
    u32_dec(r->id, id);
    /* sn_transform_point's arithmetic on the kept matrix */
    sn_vec3 at = sn_v3_add(sn_v3(r->location[0], r->location[1], r->location[2]),
                           sn_mat3_apply(&rm->R, sn_v3(r->box_location[0], r->box_location[1], r->box_location[2])));
    size_t e = pb_begin(b);
    pb_time(b, 1, t);
    pb_string(b, 2, "world");
    pb_string(b, 3, id);
    kv(b, 6, "type_id", type);
    kv(b, 6, "name", name);
    size_t c = pb_begin(b);
    sn_fox_pose_q(b, 1, at, rm->q);
    /* at least 1 mm a side: a box flat on one axis (the ground's) has a singular scale, which
    ** Foxglove's 3D panel cannot light (its normals come from the scale's inverse) */
    sn_fox_vec3(b, 2, fmax(2 * r->box_extent[0], SN_MCAP_MIN_SIZE), fmax(2 * r->box_extent[1], SN_MCAP_MIN_SIZE),
                fmax(2 * r->box_extent[2], SN_MCAP_MIN_SIZE));
    const uint8_t *rgb = sn_cityscapes_color(r->semantic_tag);
    color(b, 3, rgb[0] / 255.0, rgb[1] / 255.0, rgb[2] / 255.0, r->kind == SN_ACTOR_STATIC ? 0.4 : 1.0);
    pb_end(b, 8, c);
    pb_end(b, 2, e);
}

/* One FrameTransform: the actor's pose relative to its parent (the world when free-standing). */
static void frame_tf(sn_buf *b, const sn_actor_record *r, const sn_rot_memo *rm, size_t n, size_t i,
                     const msgpack_object *names, uint64_t t)
{
    const sn_actor_record *p = r[i].parent_id ? find(r, n, r[i].parent_id) : NULL;
    char parent[260], child[260];
    if (p)
        frame_name(names, (size_t)(p - r), p->id, parent, sizeof parent);
    else
        snprintf(parent, sizeof parent, "world");
    frame_name(names, i, r[i].id, child, sizeof child);
    sn_transform rel = pose_of(&r[i]);
    if (p) {
        sn_transform pw = pose_of(p), inv = sn_transform_inverse(&pw);
        rel = sn_transform_compose(&inv, &rel);
        sn_fox_frame_transform(b, t, parent, child, &rel);
    } else { /* its own pose: the kept quaternion */
        sn_fox_frame_transform_q(b, t, parent, child, rel.location, rm[i].q);
    }
}

/* Each record's rotation matrix and quaternion into m->rot, those of an actor that has not turned
** since the previous message taken from it (the same bits: made by the same expressions from the
** same angles): three sines and cosines twice per actor and frame were a sixth of an export. */
static bool rotations(sn_mcap *m, const sn_actor_record *r, size_t n)
{
    sn_rot_memo *t = m->prev_rot; /* the previous message's becomes the spare */
    size_t cap = m->cap_prev_rot;
    m->prev_rot = m->rot, m->cap_prev_rot = m->cap_rot, m->n_prev_rot = m->n_rot;
    m->rot = t, m->cap_rot = cap, m->n_rot = 0;
    if (!sn_grow((void **)&m->rot, &m->cap_rot, n + 1, sizeof *m->rot))
        return false;
    const sn_rot_memo *prev = m->prev_rot;
    size_t j = 0, np = m->n_prev_rot;
    for (size_t i = 0; i < n; i++) { /* ids ascend in both */
        sn_rot_memo *o = &m->rot[i];
        while (j < np && prev[j].id < r[i].id)
            j++;
        if (j < np && prev[j].id == r[i].id && memcmp(prev[j].rot, r[i].rotation, sizeof o->rot) == 0) {
            *o = prev[j];
            continue;
        }
        o->id = r[i].id;
        memcpy(o->rot, r[i].rotation, sizeof o->rot);
        o->R = sn_mat3_from_rotation((sn_rotation){r[i].rotation[0], r[i].rotation[1], r[i].rotation[2]});
        sn_fox_quat_of(&o->R, o->q);
    }
    m->n_rot = n;
    return true;
}

/* Static actors: static.* and traffic lights never move (DESIGN.md), nor what hangs on them. */
static void classify(sn_mcap *m, const sn_actor_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const sn_actor_record *a = &r[i];
        bool st = true;
        for (int depth = 0; st && a && depth < 64; depth++) {
            st = a->kind == SN_ACTOR_STATIC;
            a = a->parent_id ? find(r, n, a->parent_id) : NULL;
        }
        m->is_static[i] = st;
    }
}

/* The scene update of one group (moving 0, static 1) and its transforms, on their topics. */
static sn_status group(sn_mcap *m, int g, const sn_actor_record *r, size_t n, const msgpack_object *types,
                       const msgpack_object *names, const char *sensor, uint64_t t, sn_error *err)
{
    sn_id_set *prev = &m->boxes[g];
    /* ids of this update's boxes (sensors have none), ascending as the records */
    size_t k = 0;
    uint32_t *ids = NULL;
    for (size_t i = 0; i < n; i++)
        k += m->is_static[i] == g && r[i].kind != SN_ACTOR_SENSOR;
    sn_id_set now = m->spare_ids; /* its memory; the previous update's becomes the spare */
    now.n = 0;
    m->spare_ids = (sn_id_set){0};
    if (!sn_grow((void **)&now.ids, &now.cap, k + 1, sizeof *now.ids)) {
        m->spare_ids = now;
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        if (m->is_static[i] == g && r[i].kind != SN_ACTOR_SENSOR)
            now.ids[now.n++] = r[i].id;
    ids = now.ids;
    m->out.n = 0;
    deletions(&m->out, prev, ids, now.n, t);
    for (size_t i = 0; i < n; i++)
        if (m->is_static[i] == g && r[i].kind != SN_ACTOR_SENSOR)
            entity(&m->out, &r[i], &m->rot[i], &types->via.array.ptr[i], &names->via.array.ptr[i], t);
    m->spare_ids = *prev;
    *prev = now;
    char topic[300];
    snprintf(topic, sizeof topic, g ? "/%s/static" : "/%s", sensor);
    sn_status st = sn_mcap_emit(m, topic, "foxglove.SceneUpdate", false, t, err);
    if (st)
        return st;
    m->out.n = 0;
    for (size_t i = 0; i < n; i++)
        if (m->is_static[i] == g)
            frame_tf(&m->out, r, m->rot, n, i, names, t);
    return sn_mcap_emit(m, g ? "/tf_static" : "/tf", "foxglove.FrameTransforms", false, t, err);
}

sn_status sn_mcap_actors(sn_mcap *m, const msgpack_object *msg, const char *sensor, uint64_t t, sn_error *err)
{
    const msgpack_object *bin = sn_mp_get(msg, "actors"), *types = sn_mp_get(msg, "type_ids"),
                         *names = sn_mp_get(msg, "names");
    if (!bin || bin->type != MSGPACK_OBJECT_BIN || bin->via.bin.size % sizeof(sn_actor_record) ||
        !types || types->type != MSGPACK_OBJECT_ARRAY || !names || names->type != MSGPACK_OBJECT_ARRAY)
        return sn_fail(err, SN_E_INVALID, "%s: an actors message needs actors (112-byte records), type_ids and names",
                       sensor);
    size_t n = bin->via.bin.size / sizeof(sn_actor_record);
    if (types->via.array.size != n || names->via.array.size != n)
        return sn_fail(err, SN_E_INVALID, "%s: %zu actors but %u type_ids and %u names", sensor, n,
                       types->via.array.size, names->via.array.size);
    /* the records, aligned (the bin may sit anywhere in the message) */
    if (!sn_grow((void **)&m->points, &m->points_cap, n * sizeof(sn_actor_record) + 1, 1) ||
        !sn_grow((void **)&m->is_static, &m->static_cap, n + 1, 1))
        return sn_fail(err, SN_E_NOMEM, "out of memory for %zu actors", n);
    sn_actor_record *r = (sn_actor_record *)(void *)m->points;
    memcpy(r, bin->via.bin.ptr, n * sizeof *r);
    for (size_t i = 0; i < n; i++) {
        double v[12];
        memcpy(v, r[i].location, sizeof v); /* location, rotation, box: contiguous doubles */
        for (int k = 0; k < 12; k++)
            if (!isfinite(v[k]))
                return sn_fail(err, SN_E_INVALID, "%s: actor %u has a non-finite pose or box", sensor, r[i].id);
        if (i && r[i].id <= r[i - 1].id)
            return sn_fail(err, SN_E_INVALID, "%s: actor ids are not ascending", sensor);
    }
    if (!rotations(m, r, n))
        return sn_fail(err, SN_E_NOMEM, "out of memory for %zu actors", n);
    classify(m, r, n);
    /* the static group again only when it changed (a spawn, a destroy): Foxglove shows the last
    ** message of a topic until the next, and after a seek it reads the last one before it */
    sn_buf *now = &m->statics_now; /* swapped with statics when they changed: no allocation per frame */
    now->n = 0;
    for (size_t i = 0; i < n; i++)
        if (m->is_static[i])
            sn_buf_put(now, &r[i], sizeof r[i]);
    if (now->bad) {
        sn_buf_free(now);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    bool changed = !m->have_statics || now->n != m->statics.n || (now->n && memcmp(now->p, m->statics.p, now->n) != 0);
    sn_status st = SN_OK;
    if (changed) {
        sn_buf was = m->statics;
        m->statics = *now;
        *now = was;
        m->have_statics = true;
        st = group(m, 1, r, n, types, names, sensor, t, err);
    }
    return st ? st : group(m, 0, r, n, types, names, sensor, t, err);
}

/* ---- the map ---- */

#define SN_MCAP_MAP_POINTS 2e6

static void point(sn_buf *b, double x, double y, double z)
{
    size_t m = pb_begin(b);
    pb_double(b, 1, x);
    pb_double(b, 2, -y);
    pb_double(b, 3, z);
    pb_end(b, 5, m);
}

/* One border of a lane: side +1 right, -1 left (of the direction of travel). */
static void border(sn_buf *b, const sn_waypoint *wp, size_t n, int side)
{
    const sn_lane_marking *mk = side > 0 ? &wp[0].right_marking : &wp[0].left_marking;
    size_t l = pb_begin(b);
    /* type LINE_STRIP is 0 (omitted); an identity pose */
    size_t pose = pb_begin(b);
    size_t q = pb_begin(b);
    pb_double(b, 4, 1.0);
    pb_end(b, 2, q);
    pb_end(b, 2, pose);
    bool painted = mk->type != SN_MARK_NONE && mk->type != SN_MARK_OTHER && mk->type != SN_MARK_CURB &&
                   mk->type != SN_MARK_GRASS;
    pb_double(b, 3, painted ? (mk->width > 0 ? mk->width : 0.15) : 0.05);
    for (size_t i = 0; i < n; i++) {
        double yaw = wp[i].transform.rotation.yaw * M_PI / 180, h = side * wp[i].lane_width / 2;
        const sn_vec3 *c = &wp[i].transform.location;
        point(b, c->x - sin(yaw) * h, c->y + cos(yaw) * h, c->z + 0.02);
    }
    if (!painted)
        color(b, 6, 0.6, 0.6, 0.6, 0.6);
    else if (mk->color == SN_MARK_YELLOW)
        color(b, 6, 1.0, 0.8, 0.0, 1.0);
    else
        color(b, 6, 1.0, 1.0, 1.0, 1.0);
    pb_end(b, 11, l); /* SceneEntity.lines */
}

sn_status sn_mcap_map_lines(sn_mcap *m, const sn_map *map, sn_error *err)
{
    size_t n = 0;
    sn_status st = sn_map_topology(map, NULL, 0, &n, err);
    if (st)
        return st;
    sn_waypoint *seg = malloc((n + 1) * sizeof *seg), *lane = NULL;
    if (!seg)
        return sn_fail(err, SN_E_NOMEM, "out of memory for the map's %zu lane segments", n / 2);
    if ((st = sn_map_topology(map, seg, n, &n, err))) {
        free(seg);
        return st;
    }
    sn_buf *b = &m->map_update;
    b->n = 0;
    size_t e = pb_begin(b);
    pb_string(b, 2, "world");
    pb_string(b, 3, "map");
    /* A point a metre, up to SN_MCAP_MAP_POINTS points per border in all: the lines of a map
    ** with thousands of km of lanes stay some 100 MB, not gigabytes (issue 33 item 21). */
    sn_map_info info = {.struct_size = sizeof info};
    double step = 1.0;
    if (sn_map_info_get(map, &info, NULL) == SN_OK && info.driving_km * 1000 / SN_MCAP_MAP_POINTS > step)
        step = info.driving_km * 1000 / SN_MCAP_MAP_POINTS;
    size_t cap = 0;
    for (size_t i = 0; !st && i + 1 < n; i += 2) {
        size_t k = 0;
        if ((st = sn_map_next_until_lane_end(map, &seg[i], step, NULL, 0, &k, err)))
            break;
        if (!sn_grow((void **)&lane, &cap, k + 1, sizeof *lane)) {
            st = sn_fail(err, SN_E_NOMEM, "out of memory for a lane of %zu points", k);
            break;
        }
        lane[0] = seg[i];
        if ((st = sn_map_next_until_lane_end(map, &seg[i], step, lane + 1, k, &k, err)))
            break;
        border(b, lane, k + 1, +1);
        border(b, lane, k + 1, -1);
    }
    pb_end(b, 2, e); /* SceneUpdate.entities */
    free(seg);
    free(lane);
    if (!st && b->bad)
        st = sn_fail(err, SN_E_NOMEM, "out of memory for the map's lines");
    if (st)
        b->n = 0;
    return st ? sn_error_prefix(err, "mcap: map") : SN_OK;
}
