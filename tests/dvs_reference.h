/* dvs_reference.h — a straightforward port of CARLA's DVS loop (carla-sensors.md §2), kept in
** the tests as the truth the plugin must equal event for event, and as the benchmark's baseline.
** Written the plain way on purpose: a float log image per frame, the per-pixel crossing loop,
** the last event time in double seconds, every event appended, one qsort by (t, pixel, order). */
#ifndef SN_DVS_REFERENCE_H
#define SN_DVS_REFERENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref_event {
    int64_t t;
    uint32_t x, y;
    bool pol;
    uint64_t seq; /* generation order: pixels row-major, crossings ascending */
} ref_event;

typedef struct ref_dvs {
    uint32_t w, h;
    float cp, cm;
    uint64_t refractory_ns;
    bool use_log;
    float log_eps;
    float *last_image, *prev_image, *ref_values;
    double *last_event_timestamp;
    int64_t current_time;
    bool initialised;
    ref_event *ev;
    size_t n, cap;
    uint64_t seq;
} ref_dvs;

static inline void ref_init(ref_dvs *r, uint32_t w, uint32_t h, float cp, float cm, uint64_t refractory_ns,
                            bool use_log, float log_eps)
{
    memset(r, 0, sizeof *r);
    r->w = w, r->h = h, r->cp = cp, r->cm = cm, r->refractory_ns = refractory_ns;
    r->use_log = use_log, r->log_eps = log_eps;
    size_t px = (size_t)w * h;
    r->last_image = malloc(px * sizeof(float));
    r->prev_image = malloc(px * sizeof(float));
    r->ref_values = malloc(px * sizeof(float));
    r->last_event_timestamp = calloc(px, sizeof(double));
}

static inline void ref_free(ref_dvs *r)
{
    free(r->last_image), free(r->prev_image), free(r->ref_values), free(r->last_event_timestamp), free(r->ev);
}

static inline void ref_emit(ref_dvs *r, uint32_t x, uint32_t y, int64_t t, bool pol)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->ev = realloc(r->ev, r->cap * sizeof *r->ev);
    }
    r->ev[r->n++] = (ref_event){t, x, y, pol, r->seq++};
}

/* One frame (BGRA bytes) at time_ns: ImageToLogGray then Simulation; events are appended. */
static inline void ref_frame(ref_dvs *r, const uint8_t *bgra, int64_t time_ns)
{
    size_t px = (size_t)r->w * r->h;
    for (size_t i = 0; i < px; i++) {
        const uint8_t *c = bgra + 4 * i;
        float gray = (float)(0.2989 * c[2] + 0.587 * c[1] + 0.114 * c[0]);
        r->last_image[i] = r->use_log ? (float)log(r->log_eps + gray / 255.0) : gray;
    }
    if (!r->initialised) {
        memcpy(r->ref_values, r->last_image, px * sizeof(float));
        memcpy(r->prev_image, r->last_image, px * sizeof(float));
        memset(r->last_event_timestamp, 0, px * sizeof(double));
        r->current_time = time_ns;
        r->initialised = true;
        return;
    }
    const uint64_t delta_t_ns = (uint64_t)(time_ns - r->current_time);
    for (uint32_t y = 0; y < r->h; ++y)
        for (uint32_t x = 0; x < r->w; ++x) {
            const size_t i = (size_t)y * r->w + x;
            const float itdt = r->last_image[i], it = r->prev_image[i], prev_cross = r->ref_values[i];
            if (fabsf(it - itdt) > 1e-6f) {
                const float pol = itdt >= it ? 1.0f : -1.0f;
                const float C = pol > 0 ? r->cp : r->cm;
                float curr_cross = prev_cross;
                bool all_crossings = false;
                do {
                    curr_cross += pol * C;
                    if ((pol > 0 && curr_cross > it && curr_cross <= itdt) ||
                        (pol < 0 && curr_cross < it && curr_cross >= itdt)) {
                        const uint64_t edt = (uint64_t)((curr_cross - it) * (float)delta_t_ns / (itdt - it));
                        const int64_t t = (int64_t)((uint64_t)r->current_time + edt);
                        const int64_t last_stamp = (int64_t)(r->last_event_timestamp[i] * 1e9);
                        if (t >= last_stamp) {
                            const uint64_t dt = (uint64_t)(t - last_stamp);
                            if (r->last_event_timestamp[i] == 0 || dt >= r->refractory_ns) {
                                ref_emit(r, x, y, t, pol > 0);
                                r->last_event_timestamp[i] = (double)t / 1e9;
                            }
                            r->ref_values[i] = curr_cross;
                        }
                    } else {
                        all_crossings = true;
                    }
                } while (!all_crossings);
            }
        }
    r->current_time = time_ns;
    memcpy(r->prev_image, r->last_image, px * sizeof(float));
}

static inline int ref_compare(const void *a, const void *b)
{
    const ref_event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    uint64_t ix = (uint64_t)x->y << 32 | x->x, iy = (uint64_t)y->y << 32 | y->x;
    if (ix != iy)
        return ix < iy ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline void ref_sort(ref_dvs *r)
{
    if (r->n > 1)
        qsort(r->ev, r->n, sizeof *r->ev, ref_compare);
}

/* The events as sensim writes them: 13 bytes each, {x u16, y u16, t i64, pol u8} little-endian. */
static inline void ref_pack(const ref_dvs *r, uint8_t *out)
{
    for (size_t e = 0; e < r->n; e++) {
        uint8_t *p = out + 13 * e;
        p[0] = (uint8_t)r->ev[e].x, p[1] = (uint8_t)(r->ev[e].x >> 8);
        p[2] = (uint8_t)r->ev[e].y, p[3] = (uint8_t)(r->ev[e].y >> 8);
        for (int b = 0; b < 8; b++)
            p[4 + b] = (uint8_t)((uint64_t)r->ev[e].t >> (8 * b));
        p[12] = r->ev[e].pol;
    }
}

#endif
