/* layouts.h — the record layouts of the bins sensim's own sensors write, by (blueprint, key):
** one table that `sensim dump` (annotation, --decode) and the typed accessors of sensim/data.h
** share. Records are packed and little-endian (sensim/records.h; the DVS's 13-byte event is
** CARLA's layout). */
#ifndef SN_DATA_LAYOUTS_H
#define SN_DATA_LAYOUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sn_field_kind {
    SN_FIELD_F32, SN_FIELD_U32, SN_FIELD_U16, SN_FIELD_I64, SN_FIELD_U8,
    /* the rest of a declared layout's types (sensim/records.h, ABI 1.6) */
    SN_FIELD_F64, SN_FIELD_I32, SN_FIELD_U64, SN_FIELD_I8, SN_FIELD_I16
} sn_field_kind;

typedef struct sn_field {
    const char *name;
    sn_field_kind kind;
    unsigned offset;
} sn_field;

typedef struct sn_bin_layout {
    const char *type;      /* blueprint id of the message */
    const char *key;       /* the bin's key in the message */
    const char *records;   /* the layout's name: "sn_point_xyzi", "bgra8" ... */
    unsigned size;         /* bytes per record */
    bool per_pixel;        /* one record per image pixel: never decoded into JSON records */
    unsigned n_fields;
    const sn_field *fields;
} sn_bin_layout;

/* The layout of bin `key` in a message of blueprint `type` (lengths given: msgpack strings are
** not NUL-terminated); NULL when sensim knows none. */
const sn_bin_layout *sn_bin_layout_find(const char *type, size_t type_len, const char *key, size_t key_len);
/* The same in `extra` (n of them: layouts plugins declared) when sensim knows none. */
const sn_bin_layout *sn_bin_layout_find_in(const sn_bin_layout *extra, size_t n, const char *type, size_t type_len,
                                           const char *key, size_t key_len);

/* Little-endian reads from unaligned bytes. */
static inline uint32_t sn_le_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline float sn_le_f32(const uint8_t *p)
{
    uint32_t u = sn_le_u32(p);
    float f;
    __builtin_memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint64_t sn_le_u64(const uint8_t *p) { return (uint64_t)sn_le_u32(p) | (uint64_t)sn_le_u32(p + 4) << 32; }
static inline uint16_t sn_le_u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

#endif
