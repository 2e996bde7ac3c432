/* records.c — the record layouts a sensor class declares (ABI 1.6, sensim/records.h): checked
** when the plugin loads, and turned into the data layer's layouts (data/layouts.h) for `sensim
** dump --decode`, `blueprints --json`, run.json and the Python reader. */
#include "library.h"

#include "../core/error.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sn_rec_layout *sn_class_record(const sn_sensor_class *c, uint32_t i)
{
    return (const sn_rec_layout *)(const void *)((const char *)c->records + (size_t)i * c->rec_layout_size);
}

const sn_rec_field *sn_rec_field_at(const sn_rec_layout *l, uint32_t j)
{
    return (const sn_rec_field *)(const void *)((const char *)l->fields + (size_t)j * l->field_size);
}

static bool name_ok(const char *s)
{
    if (!s || !*s || strlen(s) > 64)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

bool sn_records_check(const sn_sensor_class *c, const char *id, char *why, size_t n)
{
    if (!c->n_records)
        return true;
    if (!c->records || c->n_records > 64 || c->rec_layout_size < offsetof(sn_rec_layout, doc) + sizeof(char *) ||
        c->rec_layout_size > 4096) {
        snprintf(why, n, "'%s': records: %u layouts with table %s and rec_layout_size %u (1..64 layouts; use "
                 "SN_RECORD_TABLE)", id, c->n_records, c->records ? "given" : "NULL", c->rec_layout_size);
        return false;
    }
    for (uint32_t i = 0; i < c->n_records; i++) {
        const sn_rec_layout *l = sn_class_record(c, i);
        if (!l->key || !*l->key || strlen(l->key) > 64 || !name_ok(l->name)) {
            snprintf(why, n, "'%s': record layout %u needs a key (1..64 bytes) and a name of [a-z0-9_]+", id, i);
            return false;
        }
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(sn_class_record(c, k)->key, l->key)) {
                snprintf(why, n, "'%s': two record layouts for key '%s'", id, l->key);
                return false;
            }
        if (l->size < 1 || l->size > 65536 || !l->fields || l->n_fields < 1 || l->n_fields > 256 ||
            l->field_size < sizeof(sn_rec_field) || l->field_size > 4096) {
            snprintf(why, n, "'%s': record '%s': size %u (1..65536), %u fields (1..256) or field_size %u (use "
                     "SN_REC_FIELDS) out of range", id, l->name, l->size, l->n_fields, l->field_size);
            return false;
        }
        for (uint32_t j = 0; j < l->n_fields; j++) {
            const sn_rec_field *f = sn_rec_field_at(l, j);
            uint32_t sz = sn_rec_type_size(f->type);
            if (!name_ok(f->name) || !sz) {
                snprintf(why, n, "'%s': record '%s': field %u needs a name of [a-z0-9_]+ and a known type (got %d)", id,
                         l->name, j, (int)f->type);
                return false;
            }
            if ((uint64_t)f->offset + sz > l->size) {
                snprintf(why, n, "'%s': record '%s': field '%s' (%u bytes at offset %u) ends past the record's %u "
                         "bytes", id, l->name, f->name, sz, f->offset, l->size);
                return false;
            }
            for (uint32_t k = 0; k < j; k++)
                if (!strcmp(sn_rec_field_at(l, k)->name, f->name)) {
                    snprintf(why, n, "'%s': record '%s': field '%s' twice", id, l->name, f->name);
                    return false;
                }
        }
    }
    return true;
}

static sn_field_kind kind_of(sn_rec_type t)
{
    switch (t) {
    case SN_REC_U8: return SN_FIELD_U8;
    case SN_REC_I8: return SN_FIELD_I8;
    case SN_REC_U16: return SN_FIELD_U16;
    case SN_REC_I16: return SN_FIELD_I16;
    case SN_REC_U32: return SN_FIELD_U32;
    case SN_REC_I32: return SN_FIELD_I32;
    case SN_REC_U64: return SN_FIELD_U64;
    case SN_REC_I64: return SN_FIELD_I64;
    case SN_REC_F32: return SN_FIELD_F32;
    default: return SN_FIELD_F64;
    }
}

sn_status sn_library_layouts(const sn_library *lib, sn_bin_layout **out, size_t *n_out, sn_error *err)
{
    size_t n = 0, nf = 0;
    *out = NULL, *n_out = 0;
    for (size_t b = 0; b < lib->n_bps; b++) {
        const sn_sensor_class *c = lib->bps[b].cls;
        for (uint32_t i = 0; c && i < c->n_records; i++)
            n++, nf += sn_class_record(c, i)->n_fields;
    }
    if (!n)
        return SN_OK;
    /* one block: the layouts, then every field */
    sn_bin_layout *l = calloc(1, n * sizeof *l + nf * sizeof(sn_field));
    if (!l)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_field *f = (sn_field *)(void *)(l + n);
    size_t k = 0;
    for (size_t b = 0; b < lib->n_bps; b++) {
        const sn_sensor_class *c = lib->bps[b].cls;
        for (uint32_t i = 0; c && i < c->n_records; i++, k++) {
            const sn_rec_layout *r = sn_class_record(c, i);
            l[k] = (sn_bin_layout){c->blueprint, r->key, r->name, r->size, false, r->n_fields, f};
            for (uint32_t j = 0; j < r->n_fields; j++, f++) {
                const sn_rec_field *rf = sn_rec_field_at(r, j);
                *f = (sn_field){rf->name, kind_of(rf->type), rf->offset};
            }
        }
    }
    *out = l, *n_out = n;
    return SN_OK;
}

sn_status sn_layouts_clone(const sn_bin_layout *src, size_t n, sn_bin_layout **out, sn_error *err)
{
    size_t nf = 0, text = 0;
    *out = NULL;
    for (size_t i = 0; i < n; i++) {
        text += strlen(src[i].type) + strlen(src[i].key) + strlen(src[i].records) + 3;
        for (unsigned j = 0; j < src[i].n_fields; j++)
            nf++, text += strlen(src[i].fields[j].name) + 1;
    }
    if (!n)
        return SN_OK;
    sn_bin_layout *l = malloc(n * sizeof *l + nf * sizeof(sn_field) + text);
    if (!l)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_field *f = (sn_field *)(void *)(l + n);
    char *t = (char *)(f + nf);
#define COPY(dst, s) (dst = strcpy(t, s), t += strlen(s) + 1)
    for (size_t i = 0; i < n; i++) {
        l[i] = src[i];
        COPY(l[i].type, src[i].type), COPY(l[i].key, src[i].key), COPY(l[i].records, src[i].records);
        l[i].fields = f;
        for (unsigned j = 0; j < src[i].n_fields; j++, f++) {
            *f = src[i].fields[j];
            COPY(f->name, src[i].fields[j].name);
        }
    }
#undef COPY
    *out = l;
    return SN_OK;
}
