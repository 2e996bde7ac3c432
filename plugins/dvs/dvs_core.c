/* dvs_core.c — per-pixel state and event generation of dvs_core.h. */
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
    free(d->ev), free(d->tmp);
    memset(d, 0, sizeof *d);
}

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return false;
    *p = q, *cap = n;
    return true;
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

/* CARLA's crossing loop for one pixel whose level went from `it` to `itdt`. */
static inline bool pixel(dvs_core *d, size_t i, float it, float itdt, uint64_t dt_ns, dvs_normal_fn normal,
                         void *user)
{
    float diff = fabsf(it - itdt);
    if (!(diff > TOLERANCE))
        return true;
    d->max_dl = diff > d->max_dl ? diff : d->max_dl;
    const dvs_config *c = &d->cfg;
    float pol = itdt >= it ? 1.0f : -1.0f;
    float C = pol > 0 ? (d->cp_px ? d->cp_px[i] : c->cp) : (d->cm_px ? d->cm_px[i] : c->cm);
    float sigma = pol > 0 ? c->sigma_p : c->sigma_m;
    if (sigma > 0) {
        C += (float)normal(user, sigma);
        C = fmaxf(MIN_THRESHOLD, C);
    }
    float cross = d->ref[i];
    for (;;) {
        cross += pol * C;
        if (!((pol > 0 && cross > it && cross <= itdt) || (pol < 0 && cross < it && cross >= itdt)))
            return true;
        uint64_t edt = (uint64_t)((cross - it) * (float)dt_ns / (itdt - it));
        int64_t t = (int64_t)((uint64_t)d->t_prev + edt);
        int64_t last_ns = (int64_t)(d->last_s[i] * 1e9);
        if (t < last_ns)
            continue; /* CARLA: neither an event nor a new reference */
        if (d->last_s[i] == 0 || (uint64_t)(t - last_ns) >= c->refractory_ns) {
            if (d->n_ev >= 0x7FFFFFFFu || !grow((void **)&d->ev, &d->cap_ev, d->n_ev + 1, sizeof *d->ev))
                return false;
            d->ev[d->n_ev] = (dvs_event){t, (uint32_t)i, (uint32_t)(d->n_ev << 1) | (pol > 0)};
            d->n_ev++;
            d->last_s[i] = (double)t / 1e9;
        }
        d->ref[i] = cross; /* a crossing dropped by the refractory period still moves the reference */
    }
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

bool dvs_sort(dvs_core *d)
{
    size_t n = d->n_ev;
    if (n < 2)
        return true;
    if (!grow((void **)&d->tmp, &d->cap_tmp, n, sizeof *d->tmp))
        return false;
    int64_t lo = d->ev[0].t, hi = lo;
    for (size_t i = 1; i < n; i++) {
        lo = d->ev[i].t < lo ? d->ev[i].t : lo;
        hi = d->ev[i].t > hi ? d->ev[i].t : hi;
    }
    /* stable LSD radix sort on t - lo: equal times keep their generation order */
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
