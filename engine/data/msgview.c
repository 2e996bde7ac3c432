/* msgview.c — in-place reads of msgpack values (msgview.h), per the msgpack spec's formats. */
#include "msgview.h"

#include <string.h>

#define MAX_DEPTH 32 /* as the stream reader's scan: deeper is malformed here too */

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static bool have(sn_mv v, size_t n) { return v.p <= v.end && (size_t)(v.end - v.p) >= n; }

sn_mv_type sn_mv_type_of(sn_mv v)
{
    if (!have(v, 1))
        return SN_MV_BAD;
    uint8_t c = v.p[0];
    if (c <= 0x7f || (c >= 0xcc && c <= 0xcf))
        return SN_MV_UINT;
    if (c >= 0xe0 || (c >= 0xd0 && c <= 0xd3))
        return SN_MV_INT;
    if ((c & 0xf0) == 0x80 || c == 0xde || c == 0xdf)
        return SN_MV_MAP;
    if ((c & 0xf0) == 0x90 || c == 0xdc || c == 0xdd)
        return SN_MV_ARRAY;
    if ((c & 0xe0) == 0xa0 || (c >= 0xd9 && c <= 0xdb))
        return SN_MV_STR;
    switch (c) {
    case 0xc0: return SN_MV_NIL;
    case 0xc2: case 0xc3: return SN_MV_BOOL;
    case 0xc4: case 0xc5: case 0xc6: return SN_MV_BIN;
    case 0xca: case 0xcb: return SN_MV_FLOAT;
    case 0xc7: case 0xc8: case 0xc9: case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: return SN_MV_EXT;
    default: return SN_MV_BAD; /* 0xc1 */
    }
}

/* The header of the value at v: its header size, payload bytes (strings, bins, exts, scalars) or
** element count (arrays: n, maps: 2n values). false when the bytes end inside the header. */
static bool head(sn_mv v, size_t *hdr, uint64_t *payload, uint64_t *elems)
{
    if (!have(v, 1))
        return false;
    uint8_t c = v.p[0];
    *payload = *elems = 0;
    *hdr = 1;
    static const uint8_t fixed[] = {[0xcc - 0xc0] = 1, [0xcd - 0xc0] = 2, [0xce - 0xc0] = 4, [0xcf - 0xc0] = 8,
                                    [0xd0 - 0xc0] = 1, [0xd1 - 0xc0] = 2, [0xd2 - 0xc0] = 4, [0xd3 - 0xc0] = 8,
                                    [0xca - 0xc0] = 4, [0xcb - 0xc0] = 8, [0xd4 - 0xc0] = 2, [0xd5 - 0xc0] = 3,
                                    [0xd6 - 0xc0] = 5, [0xd7 - 0xc0] = 9, [0xd8 - 0xc0] = 17};
    if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
        return true;
    if ((c & 0xf0) == 0x80)
        return *elems = 2u * (c & 0x0f), true;
    if ((c & 0xf0) == 0x90)
        return *elems = c & 0x0f, true;
    if ((c & 0xe0) == 0xa0)
        return *payload = c & 0x1f, true;
    if (c >= 0xc0 && c <= 0xd8 && fixed[c - 0xc0])
        return *payload = fixed[c - 0xc0], true;
    int len = c == 0xc4 || c == 0xd9 || c == 0xc7 ? 1 : c == 0xc5 || c == 0xda || c == 0xc8 || c == 0xdc || c == 0xde ? 2
              : c == 0xc6 || c == 0xdb || c == 0xc9 || c == 0xdd || c == 0xdf ? 4 : 0;
    if (!len || !have(v, 1 + (size_t)len + (c >= 0xc7 && c <= 0xc9)))
        return false;
    uint64_t n = be(v.p + 1, len);
    *hdr = 1 + (size_t)len;
    if (c == 0xdc || c == 0xdd)
        *elems = n;
    else if (c == 0xde || c == 0xdf)
        *elems = 2 * n;
    else
        *payload = n + (c >= 0xc7 && c <= 0xc9); /* an ext's type byte */
    return true;
}

/* Moves v past one whole value; false if it is malformed or runs past the end. */
static bool skip(sn_mv *v, int depth)
{
    size_t hdr;
    uint64_t payload, elems;
    if (depth > MAX_DEPTH || sn_mv_type_of(*v) == SN_MV_BAD || !head(*v, &hdr, &payload, &elems) ||
        !have(*v, hdr) || (uint64_t)(v->end - v->p - hdr) < payload)
        return false;
    v->p += hdr + payload;
    for (uint64_t i = 0; i < elems; i++)
        if (!skip(v, depth + 1))
            return false;
    return true;
}

bool sn_mv_whole(sn_mv v)
{
    sn_mv w = v;
    return skip(&w, 0) && w.p == v.end;
}

bool sn_mv_get(sn_mv map, const char *key, sn_mv *out)
{
    size_t hdr;
    uint64_t payload, elems;
    if (sn_mv_type_of(map) != SN_MV_MAP || !head(map, &hdr, &payload, &elems))
        return false;
    sn_mv v = {map.p + hdr, map.end};
    size_t klen = strlen(key);
    for (uint64_t i = 0; i < elems / 2; i++) {
        const char *s;
        size_t n;
        bool match = sn_mv_str(v, &s, &n) && n == klen && memcmp(s, key, n) == 0;
        if (!skip(&v, 1))
            return false;
        if (match) {
            sn_mv val = v;
            if (!skip(&v, 1)) /* the whole value must be there */
                return false;
            *out = (sn_mv){val.p, v.p};
            return true;
        }
        if (!skip(&v, 1))
            return false;
    }
    return false;
}

bool sn_mv_number(sn_mv v, double *out)
{
    size_t hdr;
    uint64_t payload, elems;
    sn_mv_type t = sn_mv_type_of(v);
    if ((t != SN_MV_UINT && t != SN_MV_INT && t != SN_MV_FLOAT) || !head(v, &hdr, &payload, &elems) ||
        !have(v, hdr + payload))
        return false;
    uint8_t c = v.p[0];
    if (c <= 0x7f)
        *out = c;
    else if (c >= 0xe0)
        *out = (int8_t)c;
    else if (c == 0xca) {
        uint32_t u = (uint32_t)be(v.p + 1, 4);
        float f;
        memcpy(&f, &u, sizeof f);
        *out = f;
    } else if (c == 0xcb) {
        uint64_t u = be(v.p + 1, 8);
        memcpy(out, &u, sizeof *out);
    } else if (c >= 0xcc && c <= 0xcf)
        *out = (double)be(v.p + 1, (int)payload);
    else { /* 0xd0..0xd3: two's complement of `payload` bytes */
        uint64_t u = be(v.p + 1, (int)payload);
        int bits = 8 * (int)payload;
        *out = bits == 64 ? (double)(int64_t)u : (double)((int64_t)(u << (64 - bits)) >> (64 - bits));
    }
    return true;
}

bool sn_mv_uint(sn_mv v, uint64_t *out)
{
    size_t hdr;
    uint64_t payload, elems;
    sn_mv_type t = sn_mv_type_of(v);
    if (t == SN_MV_INT) { /* a non-negative value written signed is still a count */
        double d;
        if (!sn_mv_number(v, &d) || d < 0)
            return false;
        *out = (uint64_t)d;
        return true;
    }
    if (t != SN_MV_UINT || !head(v, &hdr, &payload, &elems) || !have(v, hdr + payload))
        return false;
    *out = v.p[0] <= 0x7f ? v.p[0] : be(v.p + 1, (int)payload);
    return true;
}

static bool bytes_of(sn_mv v, sn_mv_type want, const uint8_t **b, size_t *n)
{
    size_t hdr;
    uint64_t payload, elems;
    if (sn_mv_type_of(v) != want || !head(v, &hdr, &payload, &elems) || !have(v, hdr) ||
        (uint64_t)(v.end - v.p - hdr) < payload)
        return false;
    *b = v.p + hdr;
    *n = (size_t)payload;
    return true;
}

bool sn_mv_str(sn_mv v, const char **s, size_t *n)
{
    const uint8_t *b;
    if (!bytes_of(v, SN_MV_STR, &b, n))
        return false;
    *s = (const char *)b;
    return true;
}

bool sn_mv_bin(sn_mv v, const uint8_t **b, size_t *n) { return bytes_of(v, SN_MV_BIN, b, n); }

bool sn_mv_numbers(sn_mv v, double *out, size_t n)
{
    size_t hdr;
    uint64_t payload, elems;
    if (sn_mv_type_of(v) != SN_MV_ARRAY || !head(v, &hdr, &payload, &elems) || elems != n)
        return false;
    sn_mv e = {v.p + hdr, v.end};
    for (size_t i = 0; i < n; i++) {
        sn_mv at = e;
        if (!skip(&e, 1) || !sn_mv_number((sn_mv){at.p, e.p}, &out[i]))
            return false;
    }
    return true;
}
