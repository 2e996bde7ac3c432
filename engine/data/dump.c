#include "dump.h"

#include "../core/error.h"

#include <errno.h>
#include <math.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

static void put_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void put_base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    fputc('"', out);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(tbl[v >> 18 & 63], out);
        fputc(tbl[v >> 12 & 63], out);
        fputc(i + 1 < n ? tbl[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? tbl[v & 63] : '=', out);
    }
    fputc('"', out);
}

static void put_double(FILE *out, double d)
{
    if (!isfinite(d))
        fputs("null", out);
    else
        fprintf(out, "%.17g", d);
}

static void put_object(FILE *out, const msgpack_object *o, bool full)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: fputs("null", out); break;
    case MSGPACK_OBJECT_BOOLEAN: fputs(o->via.boolean ? "true" : "false", out); break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: fprintf(out, "%llu", (unsigned long long)o->via.u64); break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: fprintf(out, "%lld", (long long)o->via.i64); break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: put_double(out, o->via.f64); break;
    case MSGPACK_OBJECT_STR: put_string(out, o->via.str.ptr, o->via.str.size); break;
    case MSGPACK_OBJECT_BIN:
        if (full) {
            fputs("{\"$bin\":", out);
            put_base64(out, (const unsigned char *)o->via.bin.ptr, o->via.bin.size);
            fputc('}', out);
        } else {
            fprintf(out, "{\"$bin_bytes\":%u}", o->via.bin.size);
        }
        break;
    case MSGPACK_OBJECT_ARRAY:
        fputc('[', out);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i)
                fputc(',', out);
            put_object(out, &o->via.array.ptr[i], full);
        }
        fputc(']', out);
        break;
    case MSGPACK_OBJECT_MAP:
        fputc('{', out);
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            if (i)
                fputc(',', out);
            if (kv->key.type == MSGPACK_OBJECT_STR)
                put_string(out, kv->key.via.str.ptr, kv->key.via.str.size);
            else {
                fputc('"', out);
                put_object(out, &kv->key, full); /* non-string keys are stringified */
                fputc('"', out);
            }
            fputc(':', out);
            put_object(out, &kv->val, full);
        }
        fputc('}', out);
        break;
    default:
        fputs("null", out);
    }
}

/* Reads the whole file: simple and exact about where a stream breaks. */
char *sn_read_file(const char *path, size_t *len, sn_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sn_fail(err, SN_E_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *nb = realloc(buf, cap *= 2);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        sn_fail(err, bad ? SN_E_IO : SN_E_NOMEM, "%s: cannot read%s", path, bad ? "" : ": out of memory");
        return NULL;
    }
    *len = n;
    return buf;
}

sn_status sn_dump_file(const char *path, FILE *out, bool full, sn_error *err)
{
    size_t len, off = 0, count = 0;
    char *buf = sn_read_file(path, &len, err);
    if (!buf)
        return err->status;
    msgpack_unpacked res;
    msgpack_unpacked_init(&res);
    sn_status st = SN_OK;
    while (off < len) {
        size_t start = off;
        msgpack_unpack_return r = msgpack_unpack_next(&res, buf, len, &off);
        if (r == MSGPACK_UNPACK_SUCCESS && res.data.type == MSGPACK_OBJECT_MAP) {
            put_object(out, &res.data, full);
            fputc('\n', out);
            count++;
            continue;
        }
        const char *what = r == MSGPACK_UNPACK_CONTINUE ? "truncated stream: the message is incomplete"
                           : r == MSGPACK_UNPACK_SUCCESS ? "corrupt stream: the message is not a map"
                                                         : "corrupt stream: not msgpack";
        st = sn_fail(err, SN_E_INVALID, "%s: %s (message %zu at byte %zu)", path, what, count + 1, start);
        break;
    }
    msgpack_unpacked_destroy(&res);
    free(buf);
    return st;
}
