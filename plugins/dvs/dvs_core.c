/* dvs_core.c — per-pixel state and event generation of dvs_core.h. */
#include <sensim/grow.h>
#include "dvs_core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-6f        /* CARLA: smaller changes make no event */
#define MIN_THRESHOLD 0.01f    /* CARLA: noisy thresholds are clamped here */

float dvs_gray(uint32_t bgra)
{
    /* CARLA computes in double and returns float; FColor is B, G, R, A in memory */
    unsigned b = bgra & 255, g = (bgra >> 8) & 255, r = (bgra >> 16) & 255;
    return (float)(0.2989 * r + 0.587 * g + 0.114 * b);
}

float dvs_level(const dvs_config *cfg, double gray)
{
    return cfg->use_log ? (float)log((double)cfg->log_eps + gray / 255.0) : (float)gray;
}

static uint32_t cache_slot(uint32_t rgb) { return (rgb * 2654435761u) >> (32 - DVS_CACHE_BITS); }

bool dvs_core_init(dvs_core *d, uint32_t w, uint32_t h, const dvs_config *cfg)
{
    memset(d, 0, sizeof *d);
    d->cfg = *cfg;
    d->w = w, d->h = h;
    size_t px = (size_t)w * h;
    d->prev = malloc(px * sizeof *d->prev);
    d->ref = malloc(px * sizeof *d->ref);
    d->last_s = calloc(px, sizeof *d->last_s);
    d->prev_px = malloc(px * sizeof *d->prev_px);
    if (cfg->mismatch_sigma > 0) {
        d->cp_px = malloc(px * sizeof *d->cp_px);
        d->cm_px = malloc(px * sizeof *d->cm_px);
    }
    /* every slot starts as black, a correct entry: lookups never need a valid bit */
    float black = dvs_level(cfg, 0.0);
    for (size_t i = 0; i < (1u << DVS_CACHE_BITS); i++)
        d->cache_key[i] = 0, d->cache_val[i] = black;
    return d->prev && d->ref && d->last_s && d->prev_px && (cfg->mismatch_sigma <= 0 || (d->cp_px && d->cm_px));
}

void dvs_core_free(dvs_core *d)
{
    free(d->prev), free(d->ref), free(d->last_s), free(d->prev_px), free(d->cp_px), free(d->cm_px);
    free(d->ev), free(d->tmp), free(d->slots);
    memset(d, 0, sizeof *d);
}

static inline float color_level(dvs_core *d, uint32_t bgra)
{
    uint32_t rgb = bgra & 0xFFFFFFu, s = cache_slot(rgb);
    if (d->cache_key[s] != rgb) {
        d->cache_key[s] = rgb;
        d->cache_val[s] = dvs_level(&d->cfg, dvs_gray(rgb));
    }
    return d->cache_val[s];
}

/* The first sample: CARLA's initialisation, and the fixed mismatch drawn in row-major order. */
static void initialise(dvs_core *d, int64_t t, dvs_normal_fn normal, void *user)
{
    size_t px = (size_t)d->w * d->h;
    memcpy(d->ref, d->prev, px * sizeof *d->ref);
    memset(d->last_s, 0, px * sizeof *d->last_s);
    for (size_t i = 0; d->cp_px && i < px; i++) {
        d->cp_px[i] = fmaxf(MIN_THRESHOLD, d->cfg.cp + (float)normal(user, d->cfg.mismatch_sigma));
        d->cm_px[i] = fmaxf(MIN_THRESHOLD, d->cfg.cm + (float)normal(user, d->cfg.mismatch_sigma));
    }
    d->t_prev = t;
    d->ready = true;
}

/* CARLA's crossing loop for one pixel whose level went from `it` to `itdt` (written per
** polarity: cross + 1 * C and cross + -1 * C are cross + C and cross - C exactly). */
static inline bool pixel(dvs_core *d, size_t i, float it, float itdt, uint64_t dt_ns, dvs_normal_fn normal,
                         void *user)
{
    float diff = fabsf(it - itdt);
    if (!(diff > TOLERANCE))
        return true;
    d->max_dl = diff > d->max_dl ? diff : d->max_dl;
    const dvs_config *c = &d->cfg;
    bool pos = itdt >= it;
    float C = pos ? (d->cp_px ? d->cp_px[i] : c->cp) : (d->cm_px ? d->cm_px[i] : c->cm);
    float sigma = pos ? c->sigma_p : c->sigma_m;
    if (sigma > 0) {
        C += (float)normal(user, sigma);
        C = fmaxf(MIN_THRESHOLD, C);
    }
    /* at most |ref - itdt| / C + 1 levels fit (the reference lies within C of it); 2 spare for rounding */
    size_t n = d->n_ev, limit = n + (size_t)(fabsf(d->ref[i] - itdt) / C) + 3;
    if (limit > 0x7FFFFFFFu || !sn_grow_array((void **)&d->ev, &d->cap_ev, limit, sizeof *d->ev))
        return false;
    dvs_event *ev = d->ev;
    float cross = d->ref[i], span = itdt - it, fdt = (float)dt_ns;
    double last_s = d->last_s[i];
    int64_t last_ns = (int64_t)(last_s * 1e9), t0 = d->t_prev;
    if (c->refractory_ns == 0) {
        /* Without a refractory period only t >= last_ns decides, and a pixel's crossing times never
        ** decrease, so after its first event none fails: the seconds round trip is needed once. */
        float ref = d->ref[i];
        int64_t t_last = 0;
        for (;;) {
            cross = pos ? cross + C : cross - C;
            if (pos ? !(cross > it && cross <= itdt) : !(cross < it && cross >= itdt))
                break;
            int64_t t = (int64_t)((uint64_t)t0 + (uint64_t)((cross - it) * fdt / span));
            if (t < last_ns)
                continue;
            if (n == limit) {
                d->n_ev = n;
                if (!sn_grow_array((void **)&d->ev, &d->cap_ev, ++limit, sizeof *d->ev))
                    return false;
                ev = d->ev;
            }
            ev[n] = (dvs_event){t, (uint32_t)i, (uint32_t)(n << 1) | pos};
            n++;
            ref = cross, t_last = t;
        }
        if (t_last)
            d->last_s[i] = (double)t_last / 1e9;
        d->ref[i] = ref;
        d->n_ev = n;
        return true;
    }
    for (;;) {
        cross = pos ? cross + C : cross - C;
        if (pos ? !(cross > it && cross <= itdt) : !(cross < it && cross >= itdt))
            break;
        uint64_t edt = (uint64_t)((cross - it) * fdt / span);
        int64_t t = (int64_t)((uint64_t)t0 + edt);
        if (t < last_ns)
            continue; /* CARLA: neither an event nor a new reference */
        if (last_s == 0 || (uint64_t)(t - last_ns) >= c->refractory_ns) {
            if (n == limit) { /* only if rounding beat the bound */
                d->n_ev = n;
                if (!sn_grow_array((void **)&d->ev, &d->cap_ev, ++limit, sizeof *d->ev))
                    return false;
                ev = d->ev;
            }
            ev[n] = (dvs_event){t, (uint32_t)i, (uint32_t)(n << 1) | pos};
            n++;
            last_s = (double)t / 1e9; /* CARLA keeps seconds in a double */
            last_ns = (int64_t)(last_s * 1e9);
        }
        d->ref[i] = cross; /* a crossing dropped by the refractory period still moves the reference */
    }
    d->n_ev = n;
    d->last_s[i] = last_s;
    return true;
}

bool dvs_feed_colors(dvs_core *d, const uint32_t *px, int64_t t, dvs_normal_fn normal, void *user)
{
    size_t n = (size_t)d->w * d->h;
    d->max_dl = 0;
    if (!d->ready) {
        for (size_t i = 0; i < n; i++)
            d->prev[i] = color_level(d, px[i]);
        memcpy(d->prev_px, px, n * sizeof *px);
        initialise(d, t, normal, user);
        return true;
    }
    uint64_t dt_ns = (uint64_t)(t - d->t_prev);
    for (uint32_t y = 0; y < d->h; y++) {
        size_t row = (size_t)y * d->w;
        /* the same colours give the same levels, so no event: skip what did not change */
        if (!memcmp(px + row, d->prev_px + row, d->w * sizeof *px))
            continue;
        for (size_t i = row; i < row + d->w; i++) {
            if (px[i] == d->prev_px[i])
                continue;
            d->prev_px[i] = px[i];
            float it = d->prev[i], itdt = color_level(d, px[i]);
            d->prev[i] = itdt;
            if (!pixel(d, i, it, itdt, dt_ns, normal, user))
                return false;
        }
    }
    d->t_prev = t;
    return true;
}

bool dvs_feed_levels(dvs_core *d, const float *L, int64_t t, dvs_normal_fn normal, void *user)
{
    size_t n = (size_t)d->w * d->h;
    d->max_dl = 0;
    if (!d->ready) {
        memcpy(d->prev, L, n * sizeof *L);
        initialise(d, t, normal, user);
        return true;
    }
    uint64_t dt_ns = (uint64_t)(t - d->t_prev);
    for (size_t i = 0; i < n; i++) {
        float it = d->prev[i], itdt = L[i];
        d->prev[i] = itdt;
        if (!pixel(d, i, it, itdt, dt_ns, normal, user))
            return false;
    }
    d->t_prev = t;
    return true;
}

static int by_pixel_then_gen(const void *a, const void *b)
{
    const dvs_event *x = a, *y = b;
    if (x->idx != y->idx)
        return x->idx < y->idx ? -1 : 1;
    return x->gen_pol < y->gen_pol ? -1 : x->gen_pol > y->gen_pol;
}

#define RADIX_BITS 11
#define RADIX (1u << RADIX_BITS)
#define FEW_BITS 13             /* a table of 8192 times, used while at most half full */
#define FEW (1u << FEW_BITS)

static int by_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t time_slot(int64_t t) { return (uint32_t)(((uint64_t)t * 0x9E3779B97F4A7C15ull) >> (64 - FEW_BITS)); }

/* Rendered frames have few distinct colours, so a tick's events share few distinct times: then
** one stable counting pass over a small table of times sorts them. false: too many times. */
static bool few_times(dvs_core *d, dvs_event *dst, uint16_t *slot_of)
{
    int64_t key[FEW];
    uint32_t count[FEW];
    bool used[FEW];
    memset(used, 0, sizeof used);
    size_t distinct = 0, n = d->n_ev;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = time_slot(d->ev[i].t);
        while (used[s] && key[s] != d->ev[i].t)
            s = (s + 1) & (FEW - 1);
        if (!used[s]) {
            if (++distinct > FEW / 2)
                return false;
            used[s] = true, key[s] = d->ev[i].t, count[s] = 0;
        }
        count[s]++;
        slot_of[i] = (uint16_t)s;
    }
    int64_t sorted[FEW / 2];
    size_t k = 0;
    for (uint32_t s = 0; s < FEW; s++)
        if (used[s])
            sorted[k++] = key[s];
    qsort(sorted, k, sizeof *sorted, by_time);
    size_t offset = 0;
    for (size_t j = 0; j < k; j++) {
        uint32_t s = time_slot(sorted[j]);
        while (key[s] != sorted[j] || !used[s])
            s = (s + 1) & (FEW - 1);
        uint32_t c = count[s];
        count[s] = (uint32_t)offset;
        offset += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[count[slot_of[i]]++] = d->ev[i];
    return true;
}

/* Stable LSD radix sort on t - lo into d->ev. */
static void radix(dvs_core *d)
{
    size_t n = d->n_ev;
    int64_t lo = d->ev[0].t, hi = lo;
    for (size_t i = 1; i < n; i++) {
        lo = d->ev[i].t < lo ? d->ev[i].t : lo;
        hi = d->ev[i].t > hi ? d->ev[i].t : hi;
    }
    uint64_t range = (uint64_t)(hi - lo);
    dvs_event *src = d->ev, *dst = d->tmp;
    for (unsigned shift = 0; shift < 64 && (range >> shift); shift += RADIX_BITS) {
        size_t count[RADIX];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[((uint64_t)(src[i].t - lo) >> shift) & (RADIX - 1)]++;
        size_t sum = 0;
        for (size_t b = 0; b < RADIX; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[((uint64_t)(src[i].t - lo) >> shift) & (RADIX - 1)]++] = src[i];
        dvs_event *s = src;
        src = dst, dst = s;
    }
    if (src != d->ev)
        memcpy(d->ev, src, n * sizeof *src);
}

bool dvs_sort(dvs_core *d)
{
    size_t n = d->n_ev;
    if (n < 2)
        return true;
    if (!sn_grow_array((void **)&d->tmp, &d->cap_tmp, n, sizeof *d->tmp) ||
        !sn_grow_array((void **)&d->slots, &d->cap_slots, n, sizeof *d->slots))
        return false;
    /* stable by time: equal times keep their generation order */
    if (few_times(d, d->tmp, d->slots)) {
        dvs_event *e = d->ev;
        d->ev = d->tmp, d->tmp = e;
        size_t c = d->cap_ev;
        d->cap_ev = d->cap_tmp, d->cap_tmp = c;
    } else {
        radix(d);
    }
    /* Equal times from different samples (a crossing at a sample's very end, the next one at its
    ** start) are in sample order: put such runs in pixel order. Runs from one sample already are. */
    for (size_t a = 0, b; a < n; a = b) {
        bool ordered = true;
        for (b = a + 1; b < n && d->ev[b].t == d->ev[a].t; b++)
            ordered = ordered && d->ev[b].idx >= d->ev[b - 1].idx;
        if (!ordered)
            qsort(d->ev + a, b - a, sizeof *d->ev, by_pixel_then_gen);
    }
    return true;
}
