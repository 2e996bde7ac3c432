/* codec.c — scalars, varints, strings, CRC-32 and predictive channels (see codec.h). */
#include "codec.h"

#include <sensim/grow.h>
#include <libdeflate.h>

#include <stdlib.h>
#include <string.h>

void rb_reserve(rec_buf *b, size_t extra)
{
    if (!b->oom && !SN_GROW(b->p, b->cap, b->n + extra))
        b->oom = true;
}

void rb_str(rec_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    rb_varint(b, n);
    rb_bytes(b, s, n);
}

void rb_free(rec_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

const uint8_t *rc_skip(rec_cur *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    return p;
}

uint8_t rc_u8(rec_cur *c)
{
    const uint8_t *p = rc_skip(c, 1);
    return p ? p[0] : 0;
}

uint32_t rc_u32(rec_cur *c)
{
    const uint8_t *p = rc_skip(c, 4);
    return p ? rec_load_u32(p) : 0;
}

uint64_t rc_u64(rec_cur *c)
{
    const uint8_t *p = rc_skip(c, 8);
    return p ? rec_load_u64(p) : 0;
}

float rc_f32(rec_cur *c)
{
    uint32_t u = rc_u32(c);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double rc_f64(rec_cur *c)
{
    uint64_t u = rc_u64(c);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

uint64_t rc_varint(rec_cur *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        const uint8_t *p = rc_skip(c, 1);
        if (!p)
            return 0;
        if (shift == 63 && *p > 1) { /* more than 64 bits */
            c->bad = true;
            return 0;
        }
        v |= (uint64_t)(*p & 0x7f) << shift;
        if (!(*p & 0x80))
            return v;
    }
    c->bad = true;
    return 0;
}

int64_t rc_svarint(rec_cur *c)
{
    uint64_t u = rc_varint(c);
    uint64_t v = (u >> 1) ^ (0 - (u & 1));
    int64_t s;
    memcpy(&s, &v, sizeof s); /* two's complement reinterpretation, no overflow */
    return s;
}

const uint8_t *rc_str(rec_cur *c, size_t *len)
{
    uint64_t n = rc_varint(c);
    if (c->bad || n > (uint64_t)(c->end - c->p)) {
        c->bad = true;
        *len = 0;
        return NULL;
    }
    *len = (size_t)n;
    return rc_skip(c, (size_t)n);
}

uint32_t rc_count(rec_cur *c, size_t min_size)
{
    uint64_t n = rc_varint(c);
    if (c->bad || n > UINT32_MAX || n * min_size > (uint64_t)(c->end - c->p)) {
        c->bad = true;
        return 0;
    }
    return (uint32_t)n;
}


/* CRC-32 (IEEE, zlib's): libdeflate's, which folds with carry-less multiplies where the CPU has
** them, 10x the table loop it replaced (the same values: the format is unchanged). */
uint32_t rec_crc32(const void *data, size_t n) { return libdeflate_crc32(0, data, n); }

void ch_reset(rec_channel *c)
{
    c->n = c->n_next = c->cursor = 0;
}

bool ch_begin(rec_channel *c, size_t n)
{
    if (n > c->cap) { /* two arrays of one capacity: each grows from c->cap alike */
        size_t ch = c->cap, cn = c->cap;
        if (!SN_GROW(c->h, ch, n) || !SN_GROW(c->next, cn, n)) {
            c->oom = true;
            return false;
        }
        c->cap = ch;
    }
    c->n_next = c->cursor = 0;
    return true;
}

void ch_predict(rec_channel *c, uint32_t id, int64_t pred[REC_NV])
{
    while (c->cursor < c->n && c->h[c->cursor].id < id)
        c->cursor++;
    const rec_hist *h = c->cursor < c->n && c->h[c->cursor].id == id ? &c->h[c->cursor] : NULL;
    for (int k = 0; k < REC_NV; k++) {
        /* In unsigned arithmetic: a hostile file may hold any values; wrapping is harmless. */
        uint64_t a = h && h->n ? (uint64_t)h->last[k] : 0, b = h && h->n > 1 ? (uint64_t)h->prev[k] : 0;
        uint64_t p = h && h->n > 1 ? 2 * a - b : a;
        memcpy(&pred[k], &p, sizeof p);
    }
}

void ch_push(rec_channel *c, uint32_t id, const int64_t v[REC_NV])
{
    if (c->n_next >= c->cap)
        return; /* more pushes than ch_begin allowed: ignored (callers never do it) */
    const rec_hist *h = c->cursor < c->n && c->h[c->cursor].id == id ? &c->h[c->cursor] : NULL;
    rec_hist *o = &c->next[c->n_next++];
    o->id = id;
    o->n = h ? (uint8_t)(h->n < 2 ? h->n + 1 : 2) : 1;
    memcpy(o->last, v, sizeof o->last);
    if (h)
        memcpy(o->prev, h->last, sizeof o->prev);
}

void ch_end(rec_channel *c)
{
    rec_hist *t = c->h;
    c->h = c->next;
    c->next = t;
    c->n = c->n_next;
    c->n_next = c->cursor = 0;
}

void ch_free(rec_channel *c)
{
    free(c->h);
    free(c->next);
    memset(c, 0, sizeof *c);
}
