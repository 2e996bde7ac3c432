#include "dump.h"
#include "../core/json.h"

#include "../core/error.h"
#include "layouts.h"
#include "msgread.h"

#include <errno.h>
#include <math.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

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

/* What a dump prints: SN_DUMP_* flags, and layouts plugins declared (beside sensim's own). */
typedef struct dump_opt {
    unsigned flags;
    const sn_bin_layout *extra;
    size_t n_extra;
} dump_opt;

static void put_map(FILE *out, const msgpack_object *o, const dump_opt *opt, const msgpack_object *type);

static void put_float32(FILE *out, float f)
{
    if (!isfinite(f))
        fputs("null", out);
    else
        fprintf(out, "%.9g", (double)f); /* 9 digits: the float32 again when read back */
}

/* One record of a known layout as a JSON object of its fields. */
static void put_record(FILE *out, const sn_bin_layout *l, const uint8_t *rec)
{
    fputc('{', out);
    for (unsigned i = 0; i < l->n_fields; i++) {
        const sn_field *f = &l->fields[i];
        const uint8_t *p = rec + f->offset;
        fprintf(out, "%s\"%s\":", i ? "," : "", f->name);
        switch (f->kind) {
        case SN_FIELD_F32: put_float32(out, sn_le_f32(p)); break;
        case SN_FIELD_U32: fprintf(out, "%lu", (unsigned long)sn_le_u32(p)); break;
        case SN_FIELD_U16: fprintf(out, "%u", (unsigned)sn_le_u16(p)); break;
        case SN_FIELD_I64: fprintf(out, "%lld", (long long)(int64_t)sn_le_u64(p)); break;
        case SN_FIELD_U8: fprintf(out, "%u", (unsigned)p[0]); break;
        case SN_FIELD_I8: fprintf(out, "%d", (int)(int8_t)p[0]); break;
        case SN_FIELD_I16: fprintf(out, "%d", (int)(int16_t)sn_le_u16(p)); break;
        case SN_FIELD_I32: fprintf(out, "%ld", (long)(int32_t)sn_le_u32(p)); break;
        case SN_FIELD_U64: fprintf(out, "%llu", (unsigned long long)sn_le_u64(p)); break;
        case SN_FIELD_F64: {
            uint64_t u = sn_le_u64(p);
            double d;
            memcpy(&d, &u, sizeof d);
            if (isfinite(d))
                fprintf(out, "%.17g", d);
            else
                fputs("null", out);
            break;
        }
        }
    }
    fputc('}', out);
}

/* Every bin the same way: {"$bin_bytes": N} first; with a known layout its name and record
** count (and trailing bytes that make no whole record); with SN_DUMP_DECODE its records (not for
** per-pixel layouts: `sensim convert` draws those); with SN_DUMP_BASE64 the bytes. */
static void put_bin(FILE *out, const msgpack_object *o, const dump_opt *opt, const sn_bin_layout *l)
{
    uint32_t n = o->via.bin.size;
    const uint8_t *b = (const uint8_t *)o->via.bin.ptr;
    fprintf(out, "{\"$bin_bytes\":%lu", (unsigned long)n);
    if (l) {
        fprintf(out, ",\"$records\":\"%s\",\"count\":%lu", l->records, (unsigned long)(n / l->size));
        if (n % l->size)
            fprintf(out, ",\"trailing_bytes\":%lu", (unsigned long)(n % l->size));
        if ((opt->flags & SN_DUMP_DECODE) && !l->per_pixel) {
            fputs(",\"records\":[", out);
            for (uint32_t i = 0; i < n / l->size; i++) {
                if (i)
                    fputc(',', out);
                put_record(out, l, b + (size_t)i * l->size);
            }
            fputc(']', out);
        }
    }
    if (opt->flags & SN_DUMP_BASE64) {
        fputs(",\"$bin\":", out);
        put_base64(out, b, n);
    }
    fputc('}', out);
}

static void put_object(FILE *out, const msgpack_object *o, const dump_opt *opt)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: fputs("null", out); break;
    case MSGPACK_OBJECT_BOOLEAN: fputs(o->via.boolean ? "true" : "false", out); break;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: fprintf(out, "%llu", (unsigned long long)o->via.u64); break;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: fprintf(out, "%lld", (long long)o->via.i64); break;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: put_double(out, o->via.f64); break;
    case MSGPACK_OBJECT_STR: sn_json_strn(out, o->via.str.ptr, o->via.str.size); break;
    case MSGPACK_OBJECT_BIN: put_bin(out, o, opt, NULL); break;
    case MSGPACK_OBJECT_ARRAY:
        fputc('[', out);
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            if (i)
                fputc(',', out);
            put_object(out, &o->via.array.ptr[i], opt);
        }
        fputc(']', out);
        break;
    case MSGPACK_OBJECT_MAP: put_map(out, o, opt, NULL); break;
    default:
        fputs("null", out);
    }
}

/* A map; `type` (a message's blueprint id, NULL below the top level) names the layouts of its bins. */
static void put_map(FILE *out, const msgpack_object *o, const dump_opt *opt, const msgpack_object *type)
{
    fputc('{', out);
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object_kv *kv = &o->via.map.ptr[i];
        if (i)
            fputc(',', out);
        if (kv->key.type == MSGPACK_OBJECT_STR)
            sn_json_strn(out, kv->key.via.str.ptr, kv->key.via.str.size);
        else if (kv->key.type == MSGPACK_OBJECT_ARRAY || kv->key.type == MSGPACK_OBJECT_MAP ||
                 kv->key.type == MSGPACK_OBJECT_BIN || kv->key.type == MSGPACK_OBJECT_EXT)
            /* a container as a key: named, not written out — nested keys would re-escape their
            ** text at every level, doubling it each time (a fuzzer found 2^64) */
            fputs(kv->key.type == MSGPACK_OBJECT_ARRAY ? "\"$array\"" : kv->key.type == MSGPACK_OBJECT_MAP
                  ? "\"$map\"" : kv->key.type == MSGPACK_OBJECT_BIN ? "\"$bin\"" : "\"$ext\"", out);
        else { /* a scalar key: its JSON text, as a string (a bare `"` + text + `"` was not JSON) */
            char *text = NULL;
            size_t len = 0;
            FILE *m = open_memstream(&text, &len);
            if (m) {
                put_object(m, &kv->key, opt);
                fclose(m);
            }
            sn_json_strn(out, text ? text : "", text ? len : 0);
            free(text);
        }
        fputc(':', out);
        const sn_bin_layout *l = NULL;
        if (type && kv->key.type == MSGPACK_OBJECT_STR && kv->val.type == MSGPACK_OBJECT_BIN)
            l = sn_bin_layout_find_in(opt->extra, opt->n_extra, type->via.str.ptr, type->via.str.size,
                                      kv->key.via.str.ptr, kv->key.via.str.size);
        if (l)
            put_bin(out, &kv->val, opt, l);
        else
            put_object(out, &kv->val, opt);
    }
    fputc('}', out);
}

/* A message: its bins are known by its `type` (a string value of that key). */
void sn_dump_message(FILE *out, const msgpack_object *map, unsigned flags)
{
    sn_dump_message_with(out, map, flags, NULL, 0);
}

void sn_dump_message_with(FILE *out, const msgpack_object *map, unsigned flags, const sn_bin_layout *extra,
                          size_t n_extra)
{
    const dump_opt opt = {flags, extra, n_extra};
    const msgpack_object *type = NULL;
    for (uint32_t i = 0; i < map->via.map.size && !type; i++) {
        const msgpack_object_kv *kv = &map->via.map.ptr[i];
        if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == 4 && !memcmp(kv->key.via.str.ptr, "type", 4) &&
            kv->val.type == MSGPACK_OBJECT_STR)
            type = &kv->val;
    }
    put_map(out, map, &opt, type);
}

sn_status sn_dump_file(const char *path, FILE *out, unsigned flags, sn_error *err)
{
    return sn_dump_file_with(path, out, flags, NULL, 0, err);
}

sn_status sn_dump_file_with(const char *path, FILE *out, unsigned flags, const sn_bin_layout *extra, size_t n_extra,
                            sn_error *err)
{
    sn_msgreader r;
    sn_status st = sn_msgreader_open(&r, path, err);
    if (st)
        return st;
    msgpack_unpacked res;
    msgpack_unpacked_init(&res);
    const uint8_t *msg;
    size_t len;
    while ((st = sn_msgreader_next(&r, &msg, &len, err)) == SN_OK) {
        size_t off = 0;
        /* scanned whole already: msgpack-c allocates only for what the bytes hold */
        if (msgpack_unpack_next(&res, (const char *)msg, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            res.data.type != MSGPACK_OBJECT_MAP) {
            st = sn_fail(err, SN_E_INVALID, "%s: corrupt stream: the message is not a map (message %llu at byte %llu)",
                         path, (unsigned long long)r.count, (unsigned long long)(r.offset - len));
            break;
        }
        sn_dump_message_with(out, &res.data, flags, extra, n_extra);
        fputc('\n', out);
        if (ferror(out))
            break;
    }
    if (st == SN_E_NOT_FOUND)
        st = SN_OK;
    msgpack_unpacked_destroy(&res);
    sn_msgreader_close(&r);
    /* the output too: `dump > /dev/full` must not say nothing and exit 0 */
    if (fflush(out) != 0 || ferror(out)) {
        sn_status w = sn_fail(err, SN_E_IO, "dump: cannot write the output: %s", strerror(errno ? errno : EIO));
        if (!st)
            st = w;
    }
    return st;
}
