/* codec.h — the bytes of a sensim recording: little-endian scalars, varints, strings, CRC-32,
** and the predictive integer channels that keep poses small (FORMAT.md). Shared by the writer
** and the reader, so both sides agree by construction. */
#ifndef SN_RECORDER_CODEC_H
#define SN_RECORDER_CODEC_H

#include <sensim/abi.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- growable output buffer (reused across frames) ---- */
typedef struct rec_buf {
    uint8_t *p;
    size_t n, cap;
    bool oom; /* sticky: an allocation failed; the frame is then refused as a whole */
} rec_buf;

void rb_reserve(rec_buf *b, size_t extra);

/* The writers every frame calls thousands of times: inline, so a 4-byte copy is a store. */
static inline void rb_bytes(rec_buf *b, const void *d, size_t n)
{
    if (b->cap - b->n < n)
        rb_reserve(b, n);
    if (b->oom || !n)
        return;
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static inline void rb_u8(rec_buf *b, uint8_t v) { rb_bytes(b, &v, 1); }

static inline void rb_u32(rec_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    rb_bytes(b, t, 4);
}

static inline void rb_u64(rec_buf *b, uint64_t v)
{
    rb_u32(b, (uint32_t)v);
    rb_u32(b, (uint32_t)(v >> 32));
}

static inline void rb_f32(rec_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    rb_u32(b, u);
}

static inline void rb_f64(rec_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    rb_u64(b, u);
}

static inline void rb_varint(rec_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    rb_bytes(b, t, n);
}

static inline void rb_svarint(rec_buf *b, int64_t v) { rb_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

void rb_str(rec_buf *b, const char *s);  /* varint length + bytes, no NUL */
void rb_free(rec_buf *b);

/* ---- bounds-checked input cursor: any overrun sets `bad` and reads zeros ---- */
typedef struct rec_cur {
    const uint8_t *p, *end;
    bool bad;
} rec_cur;

uint8_t rc_u8(rec_cur *c);
uint32_t rc_u32(rec_cur *c);
uint64_t rc_u64(rec_cur *c);
float rc_f32(rec_cur *c);
double rc_f64(rec_cur *c);
uint64_t rc_varint(rec_cur *c);
int64_t rc_svarint(rec_cur *c);
/* A string: pointer into the input and its length (not NUL-terminated). */
const uint8_t *rc_str(rec_cur *c, size_t *len);
/* A count of records of at least `min_size` bytes each: refused (bad) if the rest cannot hold them. */
uint32_t rc_count(rec_cur *c, size_t min_size);
const uint8_t *rc_skip(rec_cur *c, size_t n);

uint32_t rec_crc32(const void *data, size_t n);

static inline uint32_t rec_load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rec_load_u64(const uint8_t *p)
{
    return (uint64_t)rec_load_u32(p) | (uint64_t)rec_load_u32(p + 4) << 32;
}

/*
** A channel: per actor, NV integers coded as the residual against a prediction from the
** actor's values in the previous frames of the same key-frame group (second order: 2a - b;
** first order: a; none: 0). Writer and reader keep the same history, sorted by id, and
** rebuild it every frame by merging with the frame's records (ids ascending).
*/
#define REC_NV 6
typedef struct rec_hist {
    uint32_t id;
    uint8_t n;               /* frames of history: 0, 1 or 2 */
    int64_t last[REC_NV], prev[REC_NV];
} rec_hist;

typedef struct rec_channel {
    rec_hist *h, *next;      /* history, and the one being built (swapped each frame) */
    size_t n, n_next, cap;
    size_t cursor;           /* merge position in h */
    bool oom;
} rec_channel;

void ch_reset(rec_channel *c);            /* key frame: no history */
bool ch_begin(rec_channel *c, size_t n);  /* a frame of at most n records */
/* The prediction for `id` (ids must come ascending within a frame) into pred[]. */
void ch_predict(rec_channel *c, uint32_t id, int64_t pred[REC_NV]);
/* Records the actual values of `id` (after ch_predict for the same id). */
void ch_push(rec_channel *c, uint32_t id, const int64_t v[REC_NV]);
void ch_end(rec_channel *c);              /* the frame's records become the history */
void ch_free(rec_channel *c);

/* Quantisation: 2^-20 (about 0.95 micrometre, micro-degree, micro-metre per second). */
#define REC_Q_SCALE 1048576.0
#define REC_Q_LIMIT 4503599627370496.0 /* 2^52 quanta: |value| below 4.29e9 */
static inline bool rec_quantise(double v, int64_t *q)
{
    double s = v * REC_Q_SCALE;
    if (!(s > -REC_Q_LIMIT && s < REC_Q_LIMIT))
        return false; /* NaN, infinite or absurd: refused, never wrapped */
    /* Round half away from zero without llround's libm dependency on the rounding mode. */
    *q = (int64_t)(s < 0 ? s - 0.5 : s + 0.5);
    return true;
}
static inline double rec_dequantise(int64_t q) { return (double)q / REC_Q_SCALE; }

#endif
