/* api_data.c — the public stream-file tools (sensim.h "Stream files"): `sensim dump` and
** `sensim convert` as library calls, and the message-by-message reader the views of a run
** (`convert --video`, `report`) are built on, over engine/data. */
#include "../data/dump.h"
#include "../data/image.h"
#include "../data/msgread.h"

#include "../core/error.h"
#include "../plugin/library.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_stream_dump_bins(const char *path, FILE *out, unsigned flags, sn_error *err)
{
    sn_error local;
    if (!err)
        err = &local; /* the data code reads back err->status */
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "dump: %s is NULL", !path ? "the stream path" : "the output");
    if (flags & ~(unsigned)(SN_DUMP_BASE64 | SN_DUMP_DECODE))
        return sn_fail(err, SN_E_INVALID, "dump: unknown flags 0x%x", flags);
    return sn_dump_file(path, out, flags, err);
}

const sn_library *sn_blueprints_library(const sn_blueprints *b); /* api_library.c */

sn_status sn_stream_dump_with(const char *path, FILE *out, unsigned flags, const sn_blueprints *lib, sn_error *err)
{
    sn_error local;
    if (!err)
        err = &local;
    if (!lib)
        return sn_stream_dump_bins(path, out, flags, err);
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "dump: %s is NULL", !path ? "the stream path" : "the output");
    if (flags & ~(unsigned)(SN_DUMP_BASE64 | SN_DUMP_DECODE))
        return sn_fail(err, SN_E_INVALID, "dump: unknown flags 0x%x", flags);
    sn_bin_layout *extra;
    size_t n;
    sn_status st = sn_library_layouts(sn_blueprints_library(lib), &extra, &n, err);
    if (st)
        return st;
    st = sn_dump_file_with(path, out, flags, extra, n, err);
    free(extra);
    return st;
}

sn_status sn_stream_dump(const char *path, FILE *out, bool full, sn_error *err)
{
    return sn_stream_dump_bins(path, out, full ? SN_DUMP_BASE64 : 0, err);
}

/* The public enum is its own type so that engine/data may change without changing the API. */
static bool to_internal(sn_color_converter c, sn_converter *out)
{
    switch (c) {
    case SN_COLOR_RAW: *out = SN_CONV_RAW; return true;
    case SN_COLOR_DEPTH: *out = SN_CONV_DEPTH; return true;
    case SN_COLOR_LOGARITHMIC_DEPTH: *out = SN_CONV_LOG_DEPTH; return true;
    case SN_COLOR_CITYSCAPES: *out = SN_CONV_CITYSCAPES; return true;
    }
    return false;
}

bool sn_color_converter_parse(const char *name, sn_color_converter *out)
{
    sn_converter c;
    if (!name || !out || !sn_converter_parse(name, &c))
        return false;
    switch (c) {
    case SN_CONV_RAW: *out = SN_COLOR_RAW; return true;
    case SN_CONV_DEPTH: *out = SN_COLOR_DEPTH; return true;
    case SN_CONV_LOG_DEPTH: *out = SN_COLOR_LOGARITHMIC_DEPTH; return true;
    case SN_CONV_CITYSCAPES: *out = SN_COLOR_CITYSCAPES; return true;
    }
    return false;
}

sn_status sn_stream_save_images(const char *path, const char *dir, sn_color_converter conv, size_t *written,
                                sn_error *err)
{
    return sn_stream_save_images_as(path, dir, conv, NULL, written, err);
}

sn_status sn_stream_save_images_as(const char *path, const char *dir, sn_color_converter conv, const char *format,
                                   size_t *written, sn_error *err)
{
    sn_error local;
    size_t n_local;
    if (!err)
        err = &local;
    if (!written)
        written = &n_local;
    *written = 0;
    sn_converter c;
    if (!path || !dir)
        return sn_fail(err, SN_E_INVALID, "convert: %s is NULL", !path ? "the stream path" : "the folder");
    if (!to_internal(conv, &c))
        return sn_fail(err, SN_E_INVALID, "convert: unknown converter %d", (int)conv);
    return sn_convert_stream(path, dir, c, format, written, err);
}

/* ---- the reader ---- */

struct sn_stream_reader {
    sn_msgreader in;
    msgpack_unpacked msg; /* the message last returned (its zone holds the objects) */
    bool have;
    char sensor[256], type[256];
    uint8_t *pixels; /* the last picture */
    size_t cap;
};

sn_stream_reader *sn_stream_reader_open(const char *path, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!path) {
        sn_fail(err, SN_E_INVALID, "stream reader: the path is NULL");
        return NULL;
    }
    sn_stream_reader *r = calloc(1, sizeof *r);
    if (!r) {
        sn_fail(err, SN_E_NOMEM, "%s: out of memory for a reader", path);
        return NULL;
    }
    if (sn_msgreader_open(&r->in, path, err) != SN_OK) {
        free(r);
        return NULL;
    }
    msgpack_unpacked_init(&r->msg);
    return r;
}

void sn_stream_reader_close(sn_stream_reader *r)
{
    if (!r)
        return;
    msgpack_unpacked_destroy(&r->msg);
    sn_msgreader_close(&r->in);
    free(r->pixels);
    free(r);
}

/* A header string into buf (truncated to its size, NUL-terminated); false when absent or not a string. */
static bool header_str(const msgpack_object *map, const char *name, char *buf, size_t cap)
{
    const msgpack_object *o = sn_mp_get(map, name);
    if (!o || o->type != MSGPACK_OBJECT_STR)
        return false;
    size_t n = o->via.str.size < cap - 1 ? o->via.str.size : cap - 1;
    memcpy(buf, o->via.str.ptr, n);
    buf[n] = 0;
    return true;
}

static bool header_num(const msgpack_object *map, const char *name, double *out)
{
    const msgpack_object *o = sn_mp_get(map, name);
    if (!o)
        return false;
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        *out = (double)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_FLOAT32 || o->type == MSGPACK_OBJECT_FLOAT64)
        *out = o->via.f64;
    else
        return false;
    return true;
}

sn_status sn_stream_reader_next(sn_stream_reader *r, sn_message *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!r || !out)
        return sn_fail(err, SN_E_INVALID, "stream reader: %s is NULL", !r ? "the reader" : "the message");
    r->have = false;
    const uint8_t *data;
    size_t len;
    uint64_t at = r->in.offset;
    sn_status st = sn_msgreader_next(&r->in, &data, &len, err);
    if (st == SN_E_NOT_FOUND)
        return sn_fail(err, SN_E_NOT_FOUND, "%s: end of stream after %llu messages", r->in.path,
                       (unsigned long long)r->in.count);
    if (st)
        return st;
    size_t off = 0;
    double stamp = 0, id = 0;
    const msgpack_object *frame = NULL;
    if (msgpack_unpack_next(&r->msg, (const char *)data, len, &off) != MSGPACK_UNPACK_SUCCESS ||
        r->msg.data.type != MSGPACK_OBJECT_MAP || !(frame = sn_mp_get(&r->msg.data, "frame")) ||
        frame->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
        !header_num(&r->msg.data, "timestamp", &stamp) || !header_str(&r->msg.data, "sensor", r->sensor, sizeof r->sensor) ||
        !header_str(&r->msg.data, "type", r->type, sizeof r->type))
        return sn_fail(err, SN_E_INVALID, "%s: corrupt stream: message %llu at byte %llu is not a map with frame, "
                       "timestamp, sensor and type", r->in.path, (unsigned long long)r->in.count,
                       (unsigned long long)at);
    header_num(&r->msg.data, "sensor_id", &id); /* optional: 0 when absent */
    id = id >= 0 && id <= UINT32_MAX ? id : 0;
    *out = (sn_message){.sensor = r->sensor, .type_id = r->type, .sensor_id = (uint32_t)id,
                        .frame = frame->via.u64, .timestamp = stamp, .data = data, .size = len};
    r->have = true;
    return SN_OK;
}

/* The next message as bytes, header unread (sn_stream_file_next, data.h): the same reader, the
** same checks and the same sentences as sn_stream_reader_next. */
sn_status sn_stream_reader_next_bytes(sn_stream_reader *r, const void **data, size_t *size, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!r || !data || !size)
        return sn_fail(err, SN_E_INVALID, "stream reader: %s is NULL", !r ? "the reader" : !data ? "data" : "size");
    r->have = false;
    const uint8_t *m;
    sn_status st = sn_msgreader_next(&r->in, &m, size, err);
    if (st == SN_E_NOT_FOUND)
        return sn_fail(err, SN_E_NOT_FOUND, "%s: end of stream after %llu messages", r->in.path,
                       (unsigned long long)r->in.count);
    *data = st ? NULL : m;
    return st;
}

sn_status sn_stream_reader_picture(sn_stream_reader *r, sn_color_converter conv, bool points, sn_picture *out,
                                   sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!r || !out)
        return sn_fail(err, SN_E_INVALID, "stream reader: %s is NULL", !r ? "the reader" : "the picture");
    if (!r->have)
        return sn_fail(err, SN_E_STATE, "%s: no message to make a picture of", r->in.path);
    sn_converter c;
    if (!to_internal(conv, &c))
        return sn_fail(err, SN_E_INVALID, "picture: unknown converter %d", (int)conv);
    sn_picture_size ps;
    sn_status st = sn_image_picture(&r->msg.data, c, points, &r->pixels, &r->cap, &ps, err);
    if (st)
        return sn_error_prefix(err, r->in.path);
    *out = (sn_picture){ps.width, ps.height, ps.frame, r->pixels};
    return SN_OK;
}
