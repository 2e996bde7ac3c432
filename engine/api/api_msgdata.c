/* api_msgdata.c — sensim/data.h: sensor messages read into plain structs over the in-place
** msgpack views of engine/data/msgview.c; bulk layouts from engine/data/layouts.c (the table
** `sensim dump` uses). */
#include <sensim/data.h>

#include "../core/error.h"
#include "../data/layouts.h"
#include "../data/msgread.h"
#include "stream_reader.h"
#include "../data/msgview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static sn_status bad(sn_error *err, const char *what, const char *key)
{
    return sn_fail(err, SN_E_INVALID, "data: %s '%s'", what, key);
}

/* The message map, after the common argument checks. */
static sn_status open_msg(const void *data, size_t size, const void *out, uint32_t struct_size, size_t need,
                          sn_mv *msg, sn_error *err)
{
    if (!data || !out)
        return sn_fail(err, SN_E_INVALID, "data: NULL %s", !data ? "message" : "output");
    if (struct_size < sizeof(uint32_t) || struct_size > need)
        return sn_fail(err, SN_E_INVALID, "data: struct_size %u; set it to sizeof the struct (%zu)", struct_size, need);
    *msg = (sn_mv){data, (const uint8_t *)data + size};
    if (sn_mv_type_of(*msg) != SN_MV_MAP)
        return sn_fail(err, SN_E_INVALID, "data: the message is not a msgpack map");
    /* the whole message first: a key missing because the bytes were cut is no missing key */
    if (!sn_mv_whole(*msg))
        return sn_fail(err, SN_E_INVALID, "data: the %zu bytes are not one whole msgpack message (cut or malformed)", size);
    return SN_OK;
}

/* What a caller built against an older, smaller struct knows: the first struct_size bytes, its
** struct_size kept. */
static sn_status fill(void *out, void *local, size_t local_size)
{
    uint32_t struct_size;
    memcpy(&struct_size, out, sizeof struct_size);
    memcpy(local, &struct_size, sizeof struct_size);
    memcpy(out, local, struct_size < local_size ? struct_size : local_size);
    return SN_OK;
}

static sn_status get_number(sn_mv m, const char *key, double *out, sn_error *err)
{
    sn_mv v;
    if (!sn_mv_get(m, key, &v))
        return bad(err, "the message has no", key);
    return sn_mv_number(v, out) && isfinite(*out) ? SN_OK : bad(err, "not a finite number:", key);
}

static sn_status get_uint(sn_mv m, const char *key, uint64_t max, uint64_t *out, sn_error *err)
{
    sn_mv v;
    if (!sn_mv_get(m, key, &v))
        return bad(err, "the message has no", key);
    return sn_mv_uint(v, out) && *out <= max ? SN_OK : bad(err, "not a whole number in range:", key);
}

static sn_status get_str(sn_mv m, const char *key, sn_data_str *out, sn_error *err)
{
    sn_mv v;
    if (!sn_mv_get(m, key, &v))
        return bad(err, "the message has no", key);
    return sn_mv_str(v, &out->ptr, &out->len) ? SN_OK : bad(err, "not a string:", key);
}

static sn_status get_vec3(sn_mv m, const char *key, sn_vec3 *out, sn_error *err)
{
    sn_mv v;
    double d[3];
    if (!sn_mv_get(m, key, &v))
        return bad(err, "the message has no", key);
    if (!sn_mv_numbers(v, d, 3) || !isfinite(d[0] + d[1] + d[2]))
        return bad(err, "not three finite numbers:", key);
    *out = (sn_vec3){d[0], d[1], d[2]};
    return SN_OK;
}

/* A bin of `key`, NULL *out when absent and `optional`. */
static sn_status get_bin(sn_mv m, const char *key, bool optional, const uint8_t **out, size_t *n, sn_error *err)
{
    sn_mv v;
    *out = NULL;
    *n = 0;
    if (!sn_mv_get(m, key, &v))
        return optional ? SN_OK : bad(err, "the message has no", key);
    return sn_mv_bin(v, out, n) ? SN_OK : bad(err, "not a bin:", key);
}

sn_status sn_data_header_read(const void *data, size_t size, sn_data_header *out, sn_error *err)
{
    sn_mv m, t;
    sn_status st = open_msg(data, size, out, out ? out->struct_size : 0, sizeof *out, &m, err);
    uint64_t frame = 0, id = 0;
    sn_data_header h = {.struct_size = sizeof h};
    if (st || (st = get_uint(m, "frame", UINT64_MAX, &frame, err)) || (st = get_number(m, "timestamp", &h.timestamp, err)) ||
        (st = get_str(m, "sensor", &h.sensor, err)) || (st = get_str(m, "type", &h.type, err)) ||
        (st = get_uint(m, "sensor_id", UINT32_MAX, &id, err)))
        return st;
    if (!sn_mv_get(m, "transform", &t))
        return bad(err, "the message has no", "transform");
    sn_vec3 loc, rot;
    if ((st = get_vec3(t, "location", &loc, err)) || (st = get_vec3(t, "rotation", &rot, err)))
        return st;
    h.frame = frame;
    h.sensor_id = (uint32_t)id;
    h.transform = (sn_transform){loc, {rot.x, rot.y, rot.z}};
    return fill(out, &h, sizeof h);
}

/* width, height, fov of a camera-like message, with a bin of width * height * `bpp` bytes. */
static sn_status get_frame(sn_mv m, uint32_t *w, uint32_t *h, double *fov, sn_error *err)
{
    uint64_t W, H;
    sn_status st;
    if ((st = get_uint(m, "width", UINT32_MAX, &W, err)) || (st = get_uint(m, "height", UINT32_MAX, &H, err)) ||
        (st = get_number(m, "fov", fov, err)))
        return st;
    *w = (uint32_t)W;
    *h = (uint32_t)H;
    return SN_OK;
}

sn_status sn_data_image_read(const void *data, size_t size, sn_data_image *out, sn_error *err)
{
    sn_mv m;
    sn_data_image im = {.struct_size = sizeof im};
    size_t n, nd;
    sn_status st = open_msg(data, size, out, out ? out->struct_size : 0, sizeof *out, &m, err);
    if (st || (st = get_frame(m, &im.width, &im.height, &im.fov, err)) ||
        (st = get_bin(m, "raw_data", false, &im.pixels, &n, err)) || (st = get_bin(m, "depth", true, &im.depth, &nd, err)))
        return st;
    uint64_t px = (uint64_t)im.width * im.height;
    if (n / 4 != px || n % 4)
        return sn_fail(err, SN_E_INVALID, "data: raw_data holds %zu bytes, not the 4 x %u x %u of an image", n, im.width,
                       im.height);
    if (im.depth && (nd / 4 != px || nd % 4))
        return sn_fail(err, SN_E_INVALID, "data: depth holds %zu bytes, not the 4 x %u x %u of its image", nd, im.width,
                       im.height);
    return fill(out, &im, sizeof im);
}

double sn_data_image_depth_at(const sn_data_image *im, uint32_t x, uint32_t y)
{
    if (!im || !im->pixels || x >= im->width || y >= im->height)
        return NAN;
    size_t i = (size_t)y * im->width + x;
    if (im->depth)
        return sn_le_f32(im->depth + 4 * i);
    const uint8_t *p = im->pixels + 4 * i; /* B G R A */
    return 1000.0 * (p[2] + 256.0 * p[1] + 65536.0 * p[0]) / 16777215.0;
}

static sn_status get_actor(sn_mv m, const char *key, sn_data_actor *out, sn_error *err)
{
    sn_mv a, parent;
    uint64_t id, tag, pid = 0;
    sn_status st;
    if (!sn_mv_get(m, key, &a) || sn_mv_type_of(a) != SN_MV_MAP)
        return bad(err, "the message has no actor map", key);
    if ((st = get_uint(a, "id", UINT32_MAX, &id, err)) || (st = get_str(a, "type_id", &out->type_id, err)) ||
        (st = get_uint(a, "semantic_tag", 255, &tag, err)) || (st = get_str(a, "role_name", &out->role_name, err)))
        return st;
    if (sn_mv_get(a, "parent", &parent) && sn_mv_type_of(parent) != SN_MV_NIL && !(sn_mv_uint(parent, &pid) && pid <= UINT32_MAX))
        return bad(err, "not an actor id or nil:", "parent");
    out->id = (uint32_t)id;
    out->semantic_tag = (uint8_t)tag;
    out->parent = (uint32_t)pid;
    return SN_OK;
}

sn_status sn_data_collision_read(const void *data, size_t size, sn_data_collision *out, sn_error *err)
{
    sn_mv m;
    sn_data_collision c = {.struct_size = sizeof c};
    sn_status st = open_msg(data, size, out, out ? out->struct_size : 0, sizeof *out, &m, err);
    if (st || (st = get_actor(m, "actor", &c.actor, err)) || (st = get_actor(m, "other_actor", &c.other_actor, err)) ||
        (st = get_vec3(m, "normal_impulse", &c.normal_impulse, err)) || (st = get_vec3(m, "location", &c.location, err)) ||
        (st = get_vec3(m, "normal", &c.normal, err)))
        return st;
    return fill(out, &c, sizeof c);
}

sn_status sn_data_events_read(const void *data, size_t size, sn_data_events *out, sn_error *err)
{
    sn_mv m;
    sn_data_events ev = {.struct_size = sizeof ev};
    size_t n, nl;
    sn_status st = open_msg(data, size, out, out ? out->struct_size : 0, sizeof *out, &m, err);
    if (st || (st = get_frame(m, &ev.width, &ev.height, &ev.fov, err)) ||
        (st = get_bin(m, "events", false, &ev.events, &n, err)) || (st = get_bin(m, "labels", true, &ev.labels, &nl, err)))
        return st;
    const sn_bin_layout *le = sn_bin_layout_find("sensor.camera.dvs", 17, "events", 6);
    const sn_bin_layout *ll = sn_bin_layout_find("sensor.camera.dvs", 17, "labels", 6);
    if (n % le->size)
        return sn_fail(err, SN_E_INVALID, "data: events holds %zu bytes, not a whole number of %u-byte events", n, le->size);
    ev.count = n / le->size;
    if (ev.labels && nl != ev.count * ll->size)
        return sn_fail(err, SN_E_INVALID, "data: labels holds %zu bytes, not %u for each of %zu events", nl, ll->size,
                       ev.count);
    return fill(out, &ev, sizeof ev);
}

sn_dvs_event sn_data_event_at(const sn_data_events *ev, size_t i)
{
    sn_dvs_event e = {0};
    if (ev && ev->events && i < ev->count) {
        const uint8_t *p = ev->events + 13 * i;
        e = (sn_dvs_event){sn_le_u16(p), sn_le_u16(p + 2), (int64_t)sn_le_u64(p + 4), p[12] != 0};
    }
    return e;
}

void sn_data_event_label_at(const sn_data_events *ev, size_t i, uint8_t *tag, uint32_t *id)
{
    bool ok = ev && ev->labels && i < ev->count;
    if (tag)
        *tag = ok ? ev->labels[5 * i] : 0;
    if (id)
        *id = ok ? sn_le_u32(ev->labels + 5 * i + 1) : 0;
}

sn_status sn_data_points_read(const void *data, size_t size, sn_data_points *out, sn_error *err)
{
    sn_mv m, tv;
    sn_data_points p = {.struct_size = sizeof p};
    sn_status st = open_msg(data, size, out, out ? out->struct_size : 0, sizeof *out, &m, err);
    const char *type;
    size_t tn, n;
    if (st)
        return st;
    if (!sn_mv_get(m, "type", &tv) || !sn_mv_str(tv, &type, &tn))
        return bad(err, "the message has no string", "type");
    const sn_bin_layout *l = sn_bin_layout_find(type, tn, "raw_data", 8);
    static const char *const kinds[] = {"sensor.lidar.ray_cast", "sensor.lidar.ray_cast_semantic", "sensor.other.radar"};
    for (int k = 0; l && k < 3; k++)
        if (strcmp(l->type, kinds[k]) == 0)
            p.kind = (sn_points_kind)(k + 1);
    if (!p.kind)
        return sn_fail(err, SN_E_INVALID, "data: a '%.*s' message holds no points (lidar, semantic lidar or radar)",
                       (int)(tn > 200 ? 200 : tn), type);
    if ((st = get_bin(m, "raw_data", false, &p.records, &n, err)))
        return st;
    if (n % l->size)
        return sn_fail(err, SN_E_INVALID, "data: raw_data holds %zu bytes, not a whole number of %u-byte %s records", n,
                       l->size, l->records);
    p.record_size = l->size;
    p.count = n / l->size;
    if (p.kind != SN_POINTS_RADAR) {
        uint64_t ch;
        if ((st = get_uint(m, "channels", UINT32_MAX, &ch, err)) ||
            (st = get_number(m, "horizontal_angle", &p.horizontal_angle, err)))
            return st;
        p.channels = (uint32_t)ch;
    }
    return fill(out, &p, sizeof p);
}

/* Record i as `n` little-endian 4-byte words (every records.h field is one). */
static void words(const sn_data_points *p, sn_points_kind kind, size_t i, uint32_t *w, size_t n)
{
    memset(w, 0, n * sizeof *w);
    if (p && p->records && p->kind == kind && i < p->count)
        for (size_t k = 0; k < n; k++)
            w[k] = sn_le_u32(p->records + i * p->record_size + 4 * k);
}

/* Record i of type T (every field 4 bytes) as the caller's aligned struct. */
#define RECORD_AT(T, kind)                                    \
    {                                                         \
        uint32_t w[sizeof(T) / 4];                            \
        T r;                                                  \
        words(p, kind, i, w, sizeof(T) / 4);                  \
        memcpy(&r, w, sizeof r);                              \
        return r;                                             \
    }

sn_point_xyzi sn_data_lidar_point_at(const sn_data_points *p, size_t i) RECORD_AT(sn_point_xyzi, SN_POINTS_LIDAR)
sn_semantic_point sn_data_semantic_point_at(const sn_data_points *p, size_t i)
    RECORD_AT(sn_semantic_point, SN_POINTS_SEMANTIC_LIDAR)
sn_radar_detection sn_data_radar_detection_at(const sn_data_points *p, size_t i)
    RECORD_AT(sn_radar_detection, SN_POINTS_RADAR)

/* sn_stream_file is sn_stream_reader (sensim.h) read as bytes: one stream reader in the API. */
struct sn_stream_file {
    sn_stream_reader *r;
};

sn_stream_file *sn_stream_file_open(const char *path, sn_error *err)
{
    sn_stream_file *f = malloc(sizeof *f);
    if (!f) {
        sn_fail(err, SN_E_NOMEM, "out of memory");
        return NULL;
    }
    if (!(f->r = sn_stream_reader_open(path, err))) {
        free(f);
        return NULL;
    }
    return f;
}

sn_status sn_stream_file_next(sn_stream_file *f, const void **data, size_t *size, sn_error *err)
{
    return sn_stream_reader_next_bytes(f ? f->r : NULL, data, size, err);
}

void sn_stream_file_close(sn_stream_file *f)
{
    if (!f)
        return;
    sn_stream_reader_close(f->r);
    free(f);
}
