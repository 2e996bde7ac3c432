/* sample.c — one sample of the event camera: render at a time, apply the lens as the RGB
** camera does (so with supersample 1 the DVS sees exactly the RGB camera's image), reduce
** supersamples, feed the core, label the new events. */
#include "dvs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR_CLIP 0.01
#define FAR_CLIP 1000.0

bool dvs_sample_alloc(dvs *d)
{
    size_t px = (size_t)d->w * d->h, rpx = px * d->k * d->k;
    bool ok = (d->r_bgra = malloc(rpx * 4)) != NULL;
    if (ok && d->k == 1 && (d->map || d->vig))
        ok = (d->colors = malloc(px * sizeof *d->colors)) != NULL;
    if (ok && d->k > 1)
        ok = (d->gray = malloc(px * sizeof *d->gray)) && (d->levels = malloc(px * sizeof *d->levels));
    if (ok && d->labels) {
        ok = (d->r_tag = malloc(rpx)) && (d->r_depth = malloc(rpx * sizeof(float))) &&
             (d->r_id = malloc(rpx * sizeof(uint32_t)));
        if (ok && d->k > 1)
            ok = (d->p_tag = malloc(px)) && (d->p_depth = malloc(px * sizeof(float))) &&
                 (d->p_id = malloc(px * sizeof(uint32_t)));
        for (int s = 0; ok && s < 2; s++)
            ok = (d->l_tag[s] = malloc(px)) && (d->l_depth[s] = malloc(px * sizeof(float))) &&
                 (d->l_id[s] = malloc(px * sizeof(uint32_t)));
    }
    return ok;
}

void dvs_sample_free(dvs *d)
{
    free(d->r_bgra), free(d->r_tag), free(d->r_depth), free(d->r_id), free(d->colors), free(d->gray);
    free(d->levels), free(d->p_tag), free(d->p_depth), free(d->p_id);
    for (int s = 0; s < 2; s++)
        free(d->l_tag[s]), free(d->l_depth[s]), free(d->l_id[s]);
}

static sn_status render(dvs *d, int64_t t)
{
    const sn_host *h = d->host;
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {0, 0, 0}}, d->w * d->k, d->h * d->k, d->fov, NEAR_CLIP, FAR_CLIP};
    sn_image img = {sizeof img, d->r_depth, d->r_bgra, d->r_tag, d->r_id};
    if (t == h->clock(d->ctx)->time_ns) {
        h->sensor_transform(d->ctx, &cam.transform);
        return h->render(d->ctx, &cam, &img);
    }
    sn_status st = h->sensor_transform_at(d->ctx, t, &cam.transform);
    return st ? st : h->render_at(d->ctx, t, &cam, &img);
}

/* k = 1: the RGB camera's image (lens gather, black where the lens shows nothing, vignette). */
static const uint32_t *colors(dvs *d)
{
    size_t px = (size_t)d->w * d->h;
    const uint32_t *in = (const uint32_t *)(const void *)d->r_bgra;
    if (!d->colors)
        return in;
    for (size_t i = 0; i < px; i++) {
        uint32_t c = d->map ? (d->map[i] >= 0 ? in[d->map[i]] : 0xFF000000u) : in[i];
        if (d->vig) {
            uint32_t v = d->vig[i], o = 0xFF000000u;
            for (int s = 0; s < 24; s += 8)
                o |= (((c >> s & 255) * v + 128) >> 8) << s;
            c = o;
        }
        d->colors[i] = c;
    }
    return d->colors;
}

/* k > 1: the mean gray of the k x k samples of each pixel, then the lens, then the log. */
static const float *levels(dvs *d)
{
    uint32_t k = d->k, rw = d->w * k;
    const uint32_t *in = (const uint32_t *)(const void *)d->r_bgra;
    for (uint32_t y = 0; y < d->h; y++)
        for (uint32_t x = 0; x < d->w; x++) {
            double sum = 0;
            for (uint32_t sy = 0; sy < k; sy++)
                for (uint32_t sx = 0; sx < k; sx++)
                    sum += dvs_gray(in[(size_t)(y * k + sy) * rw + x * k + sx]);
            d->gray[(size_t)y * d->w + x] = (float)(sum / (k * k));
        }
    size_t px = (size_t)d->w * d->h;
    for (size_t i = 0; i < px; i++) {
        double g = d->map ? (d->map[i] >= 0 ? d->gray[d->map[i]] : 0.0) : d->gray[i];
        if (d->vig)
            g = g * d->vig[i] / 256.0;
        d->levels[i] = dvs_level(&d->cfg, g);
    }
    return d->levels;
}

/* This sample's labels into set `cur`: the nearest of each pixel's samples, then the lens. */
static void labels(dvs *d)
{
    uint32_t k = d->k, rw = d->w * k;
    const float *depth = d->r_depth;
    const uint8_t *tag = d->r_tag;
    const uint32_t *id = d->r_id;
    if (k > 1) {
        for (uint32_t y = 0; y < d->h; y++)
            for (uint32_t x = 0; x < d->w; x++) {
                size_t best = (size_t)(y * k) * rw + x * k;
                for (uint32_t sy = 0; sy < k; sy++)
                    for (uint32_t sx = 0; sx < k; sx++) {
                        size_t s = (size_t)(y * k + sy) * rw + x * k + sx;
                        best = depth[s] < depth[best] ? s : best;
                    }
                size_t o = (size_t)y * d->w + x;
                d->p_depth[o] = depth[best], d->p_tag[o] = tag[best], d->p_id[o] = id[best];
            }
        depth = d->p_depth, tag = d->p_tag, id = d->p_id;
    }
    size_t px = (size_t)d->w * d->h;
    int c = d->cur;
    for (size_t i = 0; i < px; i++) {
        int32_t m = d->map ? d->map[i] : (int32_t)i;
        d->l_depth[c][i] = m >= 0 ? depth[m] : INFINITY;
        d->l_tag[c][i] = m >= 0 ? tag[m] : 0;
        d->l_id[c][i] = m >= 0 ? id[m] : 0;
    }
}

static double normal(void *user, double sd)
{
    dvs *d = user;
    return d->host->random_normal(d->ctx, 0, sd);
}

sn_status dvs_sample(dvs *d, int64_t t)
{
    sn_status st = render(d, t);
    if (st)
        return st;
    size_t n0 = d->core.n_ev;
    bool ok = d->k == 1 ? dvs_feed_colors(&d->core, colors(d), t, normal, d)
                        : dvs_feed_levels(&d->core, levels(d), t, normal, d);
    if (!ok) {
        d->host->set_error(d->ctx, "out of memory for %zu events", d->core.n_ev);
        return SN_E_NOMEM;
    }
    if (!d->labels)
        return SN_OK;
    labels(d);
    size_t n1 = d->core.n_ev;
    if (n1 > d->cap_lab) {
        size_t cap = d->cap_lab ? d->cap_lab : 4096;
        while (cap < n1)
            cap *= 2;
        dvs_label *l = realloc(d->lab, cap * sizeof *l);
        if (!l) {
            d->host->set_error(d->ctx, "out of memory for %zu event labels", n1);
            return SN_E_NOMEM;
        }
        d->lab = l, d->cap_lab = cap;
    }
    /* The change was made by the nearer of the two surfaces the pixel showed: the occluder whose
    ** edge passed (a moving object's leading and trailing edges both belong to it). */
    int c = d->cur, p = 1 - c;
    for (size_t e = n0; e < n1; e++) {
        uint32_t i = d->core.ev[e].idx;
        int s = d->l_depth[p][i] < d->l_depth[c][i] ? p : c;
        d->lab[e] = (dvs_label){d->l_tag[s][i], d->l_id[s][i]};
    }
    d->cur = p;
    return SN_OK;
}
