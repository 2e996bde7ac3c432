/*
** sensor.camera.dvs — CARLA's dynamic vision sensor (carla-sensors.md §2) on the engine's
** renderer, with sub-frame sampling so fast motion leaves no gaps.
**
** Every tick renders one or more samples of the RGB camera's image (sample.c) and turns the
** brightness change between consecutive samples into events with CARLA's loop (dvs_core.c).
** The first tick only initialises; a tick without events writes no message. Message keys after
** the header: width, height, fov, `events` = packed 13-byte little-endian records
** {x u16, y u16, t i64 ns, pol u8 (1 positive)} ordered by t, ties in row-major pixel order,
** crossings ascending within a pixel; with event_labels, `labels` = packed 5-byte records
** {semantic tag u8, actor id u32}, one per event in the same order.
**
** Samples per tick: one at the tick's time (CARLA); `subframes: N` N evenly spaced through
** render_at; `adaptive: true` ESIM's rule, each step lambda / max|dL/dt| of the last step,
** between span/adaptive_max_subframes and span/subframes. Samples lie inside the last frame
** (the only interval render_at reaches): when sensor_tick spans several frames, the stretch
** before the last frame is one interpolated step, as in CARLA.
*/
#include "dvs.h"

#include <sensim/grow.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every attribute of the RGB camera (plugins/common/camera_common.h), then CARLA's DVS, then ours. */
static const sn_attr_def attrs[] = {
    CAM_COMMON_ATTRS,
    CAM_RGB_ATTRS,
    {"positive_threshold", SN_ATTR_FLOAT, "0.3", NULL, NULL, true, DVS_MIN_THRESHOLD, 1000, NULL,
     "contrast threshold C of brightness increases (log units with use_log)"},
    {"negative_threshold", SN_ATTR_FLOAT, "0.3", NULL, NULL, true, DVS_MIN_THRESHOLD, 1000, NULL,
     "contrast threshold C of brightness decreases"},
    {"sigma_positive_threshold", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 10, NULL,
     "white noise on the positive threshold, drawn per pixel and tick (CARLA)"},
    {"sigma_negative_threshold", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 10, NULL,
     "white noise on the negative threshold, drawn per pixel and tick (CARLA)"},
    {"refractory_period_ns", SN_ATTR_INT, "0", NULL, NULL, true, 0, 3.6e12, "ns",
     "time after an event during which a pixel fires no other"},
    {"use_log", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "work on log intensity"},
    {"log_eps", SN_ATTR_FLOAT, "0.001", NULL, NULL, true, 1e-9, 1, NULL, "L = ln(log_eps + I / 255)"},
    {"subframes", SN_ATTR_INT, "1", NULL, NULL, true, 1, 1000, NULL,
     "renders per tick, evenly spaced (with adaptive: the fewest)"},
    {"adaptive", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "choose sub-frame times by ESIM's rule dt = adaptive_lambda / max|dL/dt|"},
    {"adaptive_lambda", SN_ATTR_FLOAT, "0.5", NULL, NULL, true, 0.001, 100, NULL,
     "largest predicted log-intensity change per sub-frame"},
    {"adaptive_max_subframes", SN_ATTR_INT, "32", NULL, NULL, true, 1, 1000, NULL, "cap on renders per tick"},
    {"threshold_mismatch_sigma", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 10, NULL,
     "fixed per-pixel threshold offset, drawn once per pixel from the sensor's seeded stream"},
    {"supersample", SN_ATTR_INT, "1", NULL, NULL, true, 1, 16, NULL,
     "k x k samples per pixel averaged before the log (anti-aliasing)"},
    {"event_labels", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "write `labels`: the semantic tag and actor id of each event"},
};
enum {
    A_CP = CAM_A_RGB_END, A_CM, A_SP, A_SM, A_REFR, A_LOG, A_EPS, A_SUB, A_ADAPT, A_LAMBDA, A_MAXSUB, A_MISMATCH, A_SS,
    A_LABELS, A_END
};
_Static_assert(sizeof attrs / sizeof attrs[0] == A_END, "the enum counts the DVS table");

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    if (host->hdr.abi_minor < 1 || host->hdr.struct_size < offsetof(sn_host, render) + sizeof host->render ||
        !host->render) {
        host->set_error(ctx, "this host cannot render images (it offers ABI %u.%u, the DVS needs 1.1)",
                        (unsigned)host->hdr.abi_major, (unsigned)host->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    dvs *d = calloc(1, sizeof *d);
    if (!d)
        return SN_E_NOMEM;
    d->host = host, d->ctx = ctx;
    *out = d;
    return SN_OK;
}

static void destroy(void *self)
{
    dvs *d = self;
    if (!d)
        return;
    dvs_core_free(&d->core);
    dvs_sample_free(d);
    cam_rgb_free(&d->rgb);
    free(d->map), free(d->lab), free(d->out), free(d->out_lab);
    free(d);
}

static bool has_render_at(const sn_host *h)
{
    return h->hdr.abi_minor >= 2 && h->hdr.struct_size >= offsetof(sn_host, sensor_transform_at) + sizeof h->sensor_transform_at &&
           h->render_at && h->sensor_transform_at;
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    dvs *d = self;
    const sn_host *h = d->host;
    d->w = (uint32_t)v[CAM_A_W].i, d->h = (uint32_t)v[CAM_A_H].i, d->k = (uint32_t)v[A_SS].i;
    d->fov = v[CAM_A_FOV].f;
    if (!(d->fov > 0 && d->fov < 180)) {
        h->set_error(d->ctx, "fov %g: must be inside (0, 180) degrees", d->fov);
        return SN_E_RANGE;
    }
    if ((uint64_t)d->w * d->k > 16384 || (uint64_t)d->h * d->k > 16384) {
        h->set_error(d->ctx, "supersample %u: a %ux%u image renders %llux%llu pixels, more than 16384 a side", d->k,
                     d->w, d->h, (unsigned long long)d->w * d->k, (unsigned long long)d->h * d->k);
        return SN_E_RANGE;
    }
    d->cfg = (dvs_config){(float)v[A_CP].f, (float)v[A_CM].f, (float)v[A_SP].f, (float)v[A_SM].f,
                          (float)v[A_MISMATCH].f, (uint64_t)v[A_REFR].i, v[A_LOG].b, (float)v[A_EPS].f};
    d->subframes = (uint32_t)v[A_SUB].i, d->max_subframes = (uint32_t)v[A_MAXSUB].i;
    d->adaptive = v[A_ADAPT].b, d->lambda = v[A_LAMBDA].f, d->labels = v[A_LABELS].b;
    if (d->adaptive && d->max_subframes < d->subframes) {
        h->set_error(d->ctx, "adaptive_max_subframes %u is below subframes %u (the fewest renders per tick)",
                     d->max_subframes, d->subframes);
        return SN_E_RANGE;
    }
    if ((d->subframes > 1 || d->adaptive) && !has_render_at(h)) {
        h->set_error(d->ctx, "sub-frames need a host that renders between frames (render_at, ABI 1.2; this one offers %u.%u)",
                     (unsigned)h->hdr.abi_major, (unsigned)h->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    cam_warn_unrendered(h, d->ctx, attrs, v, CAM_A_UNRENDERED, n < CAM_A_RGB_END ? n : CAM_A_RGB_END, true);
    /* The RGB camera's image at the rendered size (k w) x (k h); the lens model is in normalised
    ** coordinates, so with k > 1 each pixel's k x k colours are those of a k times larger RGB image. */
    d->lens = cam_lens(v);
    bool oom = !cam_rgb_init(&d->rgb, &d->lens, v[CAM_A_GAMMA].f, d->w * d->k, d->h * d->k);
    if (!oom && d->labels)
        d->map = lens_map(&d->lens, d->w * d->k, d->h * d->k, &oom);
    if (oom || !dvs_core_init(&d->core, d->w, d->h, &d->cfg) || !dvs_sample_alloc(d)) {
        h->set_error(d->ctx, "out of memory for a %ux%u event camera", d->w, d->h);
        return SN_E_NOMEM;
    }
    return SN_OK;
}

/* ESIM's adaptive sampling over (t_prev, t_end], samples no earlier than lo. */
static sn_status adaptive(dvs *d, int64_t lo, int64_t t_end)
{
    int64_t span = t_end - lo;
    int64_t min_step = (span + d->max_subframes - 1) / d->max_subframes; /* at most max_subframes renders */
    int64_t max_step = span / d->subframes;                                /* at least subframes renders */
    min_step = min_step < 1 ? 1 : min_step;
    max_step = max_step < min_step ? min_step : max_step;
    int64_t t = lo;
    while (t < t_end) {
        double want = d->rate > 0 ? d->lambda / d->rate : (double)max_step;
        int64_t step = want >= (double)max_step ? max_step : want <= (double)min_step ? min_step : (int64_t)want;
        int64_t next = t_end - t <= step ? t_end : t + step;
        int64_t from = d->core.t_prev;
        sn_status st = dvs_sample(d, next);
        if (st)
            return st;
        d->rate = d->core.max_dl / (double)(next - from);
        t = next;
    }
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    dvs *d = self;
    (void)phase;
    const sn_clock *k = d->host->clock(d->ctx);
    int64_t t_end = k->time_ns;
    d->core.n_ev = 0;
    if (!d->core.ready)
        return dvs_sample(d, t_end); /* the first tick only initialises */
    int64_t lo = t_end - k->dt_ns > d->core.t_prev ? t_end - k->dt_ns : d->core.t_prev;
    sn_status st = SN_OK;
    if (d->adaptive) {
        st = adaptive(d, lo, t_end);
    } else {
        for (uint32_t j = 1; j <= d->subframes && !st; j++) {
            int64_t t = j == d->subframes ? t_end : lo + (t_end - lo) * (int64_t)j / d->subframes;
            st = dvs_sample(d, t > lo ? t : lo + 1); /* render_at's interval is open at its start */
        }
    }
    if (!st && !dvs_sort(&d->core)) {
        d->host->set_error(d->ctx, "out of memory sorting %zu events", d->core.n_ev);
        st = SN_E_NOMEM;
    }
    return st;
}

static uint32_t pending(void *self)
{
    dvs *d = self;
    return d->core.n_ev > 0;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int b = 0; b < bytes; b++)
        p[b] = (uint8_t)(v >> (8 * b));
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    dvs *d = self;
    const sn_host *h = d->host;
    (void)index;
    size_t n = d->core.n_ev;
    if (!SN_GROW(d->out, d->cap_out, n * 13) || (d->labels && !SN_GROW(d->out_lab, d->cap_out_lab, n * 5))) {
        h->set_error(d->ctx, "out of memory for %zu events", n);
        return SN_E_NOMEM;
    }
    for (size_t e = 0; e < n; e++) {
        const dvs_event *ev = &d->core.ev[e];
        uint8_t *p = d->out + 13 * e;
        put_le(p, ev->idx % d->w, 2);
        put_le(p + 2, ev->idx / d->w, 2);
        put_le(p + 4, (uint64_t)ev->t, 8);
        p[12] = (uint8_t)(ev->gen_pol & 1);
        if (d->labels) {
            const dvs_label *l = &d->lab[ev->gen_pol >> 1];
            d->out_lab[5 * e] = l->tag;
            put_le(d->out_lab + 5 * e + 1, l->id, 4);
        }
    }
    h->write_key(w, "width");
    h->write_uint(w, d->w);
    h->write_key(w, "height");
    h->write_uint(w, d->h);
    h->write_key(w, "fov");
    h->write_float(w, (float)d->fov);
    h->write_key(w, "events");
    sn_status st = h->write_bin(w, d->out, n * 13);
    if (d->labels) {
        h->write_key(w, "labels");
        st = h->write_bin(w, d->out_lab, n * 5);
    }
    return st;
}

static const sn_sensor_class dvs_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.camera.dvs",
    .doc = "event camera: CARLA's DVS on the RGB image, with sub-frame sampling, labels and a fixed pixel mismatch",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&dvs_class};

SN_PLUGIN_EXPORT(library, "dvs", "1.0.0", classes)
