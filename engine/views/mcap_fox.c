/* mcap_fox.c — one sensor message as Foxglove messages (protobuf, the well-known schemas):
**
**   cameras (rgb, depth, semantic, instance, optical flow, DVS)  foxglove.CompressedImage, the
**       PNG `sensim convert` writes byte for byte (depth through the chosen converter, semantic
**       through CityScapes, flow colour-coded, DVS as its event frame), or foxglove.RawImage
**   lidar, semantic lidar, radar                                  foxglove.PointCloud in the
**       sensor's frame (radar detections placed at depth along azimuth and altitude)
**   GNSS                                                          foxglove.LocationFix
**   the actors stream                                             mcap_scene.c
**   everything else (collision, lane invasion, V2X, IMU, ...)     JSON, as `sensim dump --decode`
**       prints it (bins of known layouts as records, others as their size)
** Every sensor also gets a FrameTransform world -> sensor unless the run has an actors stream
** (which gives the whole tree). */
#include "mcap_view.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../data/dump.h"

#include <sensim/math.h>
#include <sensim/records.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_mcap_sensor_tf(sn_mcap *m, const char *sensor, const sn_transform *t, uint64_t log_time, sn_error *err)
{
    m->out.n = 0;
    sn_fox_frame_transform(&m->out, log_time, "world", sensor, t);
    return sn_mcap_emit(m, "/tf", "foxglove.FrameTransforms", false, log_time, err);
}

bool sn_mcap_is_actors(const char *type_id) { return type_id && strcmp(type_id, "sensor.other.actors") == 0; }

static bool type_is(const char *type, const char *prefix) { return strncmp(type, prefix, strlen(prefix)) == 0; }

static sn_status image(sn_mcap *m, const msgpack_object *msg, const char *type, const char *topic,
                       const char *frame_id, uint64_t t, sn_error *err)
{
    sn_image_job job = {m->cur, m->cur_len, SN_CONV_RAW, m->raw_images, frame_id, t, 0, NULL, false};
    if (strcmp(type, "sensor.camera.depth") == 0)
        job.conv = m->depth;
    else if (strcmp(type, "sensor.camera.semantic_segmentation") == 0)
        job.conv = SN_CONV_CITYSCAPES;
    if (m->ticket && !job.raw && m->ticket_conv == job.conv) { /* the PNG `save:` makes of it (png_share.h) */
        job.ticket = m->ticket;
        m->ticket = 0;
    }
    char png[4096];
    const msgpack_object *frame = sn_mp_get(msg, "frame");
    for (size_t i = 0; !job.raw && !job.ticket && i < m->n_saved && frame && frame->type == MSGPACK_OBJECT_POSITIVE_INTEGER; i++)
        if (m->saved[i].conv == job.conv && strcmp(m->saved[i].sensor, frame_id) == 0) {
            sn_error perr = {0};
            if (!sn_image_path(m->run_dir, m->saved[i].pattern, frame->via.u64, png, sizeof png, &perr))
                job.png_path = png, job.msg_stays = m->cur_stays;
            break;
        }
    uint16_t ch = sn_mcap_channel_for(m, topic, m->raw_images ? "foxglove.RawImage" : "foxglove.CompressedImage", false);
    if (ch == UINT16_MAX) {
        sn_png_share_drop(job.ticket);
        return sn_fail(err, SN_E_NOMEM, "mcap: out of memory or channels for %s", topic);
    }
    if (!m->raw_images) /* PNGs: zstd cannot shrink them, their chunks are stored */
        sn_mcapw_channel_stored(m->w, ch);
    return sn_mcap_pool_image(m->pool, ch, &job, err);
}

/* One PackedElementField {name, offset, type}. */
static void field(sn_buf *b, const char *name, uint32_t offset, uint32_t type)
{
    size_t f = pb_begin(b);
    pb_string(b, 1, name);
    pb_fixed32(b, 2, offset);
    pb_uint(b, 3, type);
    pb_end(b, 5, f);
}

enum { F_UINT32 = 5, F_FLOAT32 = 7 };

static float f32_at(const uint8_t *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static void put_f32(uint8_t *p, float f) { memcpy(p, &f, 4); }

/* Lidar, semantic lidar and radar: the records with y negated (radar: placed as points first). */
static sn_status points(sn_mcap *m, const msgpack_object *msg, const char *type, const char *topic,
                        const char *frame_id, uint64_t t, sn_error *err)
{
    const msgpack_object *raw = sn_mp_get(msg, "raw_data");
    const bool radar = strcmp(type, "sensor.other.radar") == 0, semantic = type_is(type, "sensor.lidar.ray_cast_semantic");
    const size_t in = semantic ? 24 : 16, stride = radar ? 20 : in;
    if (!raw || raw->type != MSGPACK_OBJECT_BIN || raw->via.bin.size % in)
        return sn_fail(err, SN_E_INVALID, "%s: raw_data is not a whole number of %zu-byte records", type, in);
    size_t n = raw->via.bin.size / in;
    if (!sn_grow((void **)&m->points, &m->points_cap, n * stride + 1, 1))
        return sn_fail(err, SN_E_NOMEM, "out of memory for %zu points", n);
    const uint8_t *src = (const uint8_t *)raw->via.bin.ptr;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *s = src + i * in;
        uint8_t *d = m->points + i * stride;
        if (radar) { /* {velocity, azimuth, altitude, depth} -> {x, y, z, velocity, depth} */
            float v = f32_at(s), az = f32_at(s + 4), alt = f32_at(s + 8), depth = f32_at(s + 12);
            double ca = cos(alt);
            put_f32(d, (float)(depth * ca * cos(az)));
            put_f32(d + 4, (float)(-depth * ca * sin(az)));
            put_f32(d + 8, (float)(depth * sin(alt)));
            put_f32(d + 12, v);
            put_f32(d + 16, depth);
        } else {
            memcpy(d, s, in);
            put_f32(d + 4, -f32_at(s + 4));
        }
    }
    m->out.n = 0;
    pb_time(&m->out, 1, t);
    pb_string(&m->out, 2, frame_id);
    size_t pose = pb_begin(&m->out); /* identity: the points are in the sensor's frame */
    sn_fox_vec3(&m->out, 1, 0, 0, 0);
    size_t q = pb_begin(&m->out);
    pb_double(&m->out, 4, 1.0);
    pb_end(&m->out, 2, q);
    pb_end(&m->out, 3, pose);
    pb_fixed32(&m->out, 4, (uint32_t)stride);
    field(&m->out, "x", 0, F_FLOAT32);
    field(&m->out, "y", 4, F_FLOAT32);
    field(&m->out, "z", 8, F_FLOAT32);
    if (radar) {
        field(&m->out, "velocity", 12, F_FLOAT32);
        field(&m->out, "depth", 16, F_FLOAT32);
    } else if (semantic) {
        field(&m->out, "cos_inc_angle", 12, F_FLOAT32);
        field(&m->out, "object_idx", 16, F_UINT32);
        field(&m->out, "object_tag", 20, F_UINT32);
    } else {
        field(&m->out, "intensity", 12, F_FLOAT32);
    }
    pb_bytes(&m->out, 6, m->points, n * stride);
    return sn_mcap_emit(m, topic, "foxglove.PointCloud", false, t, err);
}

/* A declared layout (sn_mcap_add_layouts) of this message type whose records have x, y, z of one
** float type: its bin key and the fields' indices. */
static const sn_bin_layout *declared_points(const sn_mcap *m, const char *type, int xyz[3])
{
    static const char *const names[3] = {"x", "y", "z"};
    for (size_t i = 0; i < m->n_extra; i++) {
        const sn_bin_layout *l = &m->extra[i];
        if (strcmp(l->type, type))
            continue;
        int found = 0;
        for (int k = 0; k < 3; k++) {
            xyz[k] = -1;
            for (unsigned j = 0; j < l->n_fields; j++)
                if (!strcmp(l->fields[j].name, names[k]) &&
                    (l->fields[j].kind == SN_FIELD_F32 || l->fields[j].kind == SN_FIELD_F64) &&
                    l->fields[j].kind == l->fields[xyz[0] >= 0 ? (unsigned)xyz[0] : j].kind)
                    xyz[k] = (int)j;
            found += xyz[k] >= 0;
        }
        if (found == 3)
            return l;
    }
    return NULL;
}

/* foxglove's NumericType of a field, 0 for none (64-bit integers have none). */
static uint32_t fox_type(sn_field_kind k)
{
    switch (k) {
    case SN_FIELD_U8: return 1;
    case SN_FIELD_I8: return 2;
    case SN_FIELD_U16: return 3;
    case SN_FIELD_I16: return 4;
    case SN_FIELD_U32: return 5;
    case SN_FIELD_I32: return 6;
    case SN_FIELD_F32: return 7;
    case SN_FIELD_F64: return 8;
    default: return 0;
    }
}

/* A sensor's declared records with x, y, z: a PointCloud of the records as they are (every
** field foxglove has a type for), y negated as the lidar's (CARLA's axes to Foxglove's). */
static sn_status declared_cloud(sn_mcap *m, const msgpack_object *msg, const sn_bin_layout *l, const int xyz[3],
                                const char *type, const char *topic, const char *frame_id, uint64_t t, sn_error *err)
{
    const msgpack_object *raw = sn_mp_get(msg, l->key);
    if (!raw || raw->type != MSGPACK_OBJECT_BIN || raw->via.bin.size % l->size)
        return sn_fail(err, SN_E_INVALID, "%s: '%s' is not a whole number of %u-byte records", type, l->key, l->size);
    size_t n = raw->via.bin.size / l->size;
    if (!sn_grow((void **)&m->points, &m->points_cap, raw->via.bin.size + 1, 1))
        return sn_fail(err, SN_E_NOMEM, "out of memory for %zu points", n);
    memcpy(m->points, raw->via.bin.ptr, raw->via.bin.size);
    const sn_field *y = &l->fields[xyz[1]];
    for (size_t i = 0; i < n; i++) {
        uint8_t *p = m->points + i * l->size + y->offset;
        if (y->kind == SN_FIELD_F32) {
            put_f32(p, -f32_at(p));
        } else {
            double d;
            memcpy(&d, p, 8);
            d = -d;
            memcpy(p, &d, 8);
        }
    }
    m->out.n = 0;
    pb_time(&m->out, 1, t);
    pb_string(&m->out, 2, frame_id);
    size_t pose = pb_begin(&m->out);
    sn_fox_vec3(&m->out, 1, 0, 0, 0);
    size_t q = pb_begin(&m->out);
    pb_double(&m->out, 4, 1.0);
    pb_end(&m->out, 2, q);
    pb_end(&m->out, 3, pose);
    pb_fixed32(&m->out, 4, l->size);
    for (unsigned j = 0; j < l->n_fields; j++)
        if (fox_type(l->fields[j].kind))
            field(&m->out, l->fields[j].name, l->fields[j].offset, fox_type(l->fields[j].kind));
    pb_bytes(&m->out, 6, m->points, raw->via.bin.size);
    return sn_mcap_emit(m, topic, "foxglove.PointCloud", false, t, err);
}

static sn_status gnss(sn_mcap *m, const msgpack_object *msg, const char *topic, const char *frame_id, uint64_t t,
                      sn_error *err)
{
    double lat, lon, alt;
    if (!sn_mp_num(sn_mp_get(msg, "latitude"), &lat) || !sn_mp_num(sn_mp_get(msg, "longitude"), &lon) ||
        !sn_mp_num(sn_mp_get(msg, "altitude"), &alt))
        return sn_fail(err, SN_E_INVALID, "sensor.other.gnss: a message needs latitude, longitude and altitude");
    m->out.n = 0;
    pb_time(&m->out, 6, t);
    pb_string(&m->out, 7, frame_id);
    pb_double(&m->out, 1, lat);
    pb_double(&m->out, 2, lon);
    pb_double(&m->out, 3, alt);
    return sn_mcap_emit(m, topic, "foxglove.LocationFix", false, t, err);
}

static sn_status json(sn_mcap *m, const msgpack_object *msg, const char *type, const char *topic, uint64_t t,
                      sn_error *err)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    /* bins of known or declared layouts as records, others as their size */
    sn_dump_message_with(f, msg, SN_DUMP_DECODE, m->extra, m->n_extra);
    bool ok = fclose(f) == 0 && text;
    m->out.n = 0;
    if (ok)
        sn_buf_put(&m->out, text, n);
    free(text);
    if (!ok)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    return sn_mcap_emit(m, topic, type, true, t, err);
}

sn_status sn_mcap_convert(sn_mcap *m, const void *raw, size_t len, const msgpack_object *msg, sn_error *err)
{
    m->cur = raw, m->cur_len = len;
    char type[256], sensor[256], topic[300];
    double ts;
    sn_transform tf;
    if (!sn_mp_str(sn_mp_get(msg, "type"), type, sizeof type) || !sn_mp_str(sn_mp_get(msg, "sensor"), sensor, sizeof sensor) ||
        !sn_mp_num(sn_mp_get(msg, "timestamp"), &ts) || !isfinite(ts) || ts < 0 || ts > 1.8e10 ||
        !sn_mp_transform(sn_mp_get(msg, "transform"), &tf))
        return sn_fail(err, SN_E_INVALID, "mcap: a message lacks the header keys type, sensor, timestamp, transform");
    uint64_t t = (uint64_t)llround(ts * 1e9);
    sn_status st = SN_OK;
    if (!m->map_written && m->map_update.n) { /* the map, once, at the first message's time */
        m->map_written = true;
        m->out.n = 0;
        sn_buf_put(&m->out, m->map_update.p, m->map_update.n);
        if ((st = sn_mcap_emit(m, "/map", "foxglove.SceneUpdate", false, t, err)))
            return st;
    }
    snprintf(topic, sizeof topic, "/%s", sensor);
    if (sn_mcap_is_actors(type)) {
        m->seen_actors = true;
        return sn_mcap_actors(m, msg, sensor, t, err);
    }
    if (sn_mcap_is_debug(type))
        return (st = sn_mcap_debug(m, msg, sensor, t, err)) ? sn_error_prefix(err, sensor) : SN_OK;
    if (!m->seen_actors && (st = sn_mcap_sensor_tf(m, sensor, &tf, t, err)))
        return st;
    if (type_is(type, "sensor.lidar.") || strcmp(type, "sensor.other.radar") == 0)
        st = points(m, msg, type, topic, sensor, t, err);
    else if (type_is(type, "sensor.camera.") && (sn_mp_get(msg, "raw_data") || sn_mp_get(msg, "events")))
        st = image(m, msg, type, topic, sensor, t, err);
    else if (strcmp(type, "sensor.other.gnss") == 0)
        st = gnss(m, msg, topic, sensor, t, err);
    else if (!(st = sn_mcap_lazy_layouts(m, err))) {
        int xyz[3];
        const sn_bin_layout *l = declared_points(m, type, xyz);
        st = l ? declared_cloud(m, msg, l, xyz, type, topic, sensor, t, err) : json(m, msg, type, topic, t, err);
    }
    return st ? sn_error_prefix(err, sensor) : SN_OK;
}
