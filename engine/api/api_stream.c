/* api_stream.c — reading a stream file message by message (sensim.h's sn_stream_reader and, as
** bytes, data.h's sn_stream_file): one reader over data/msgread.c. */
#include "stream_reader.h"

#include "../core/error.h"
#include "../data/mpkey.h"

#include <stdlib.h>
#include <string.h>

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
