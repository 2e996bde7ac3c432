/* sample.c — one sample of the event camera: render at a time, apply the RGB camera's
** post-process (plugins/common: lens, vignette, gamma — so with supersample 1 the DVS sees exactly
** the RGB camera's image), reduce supersamples, feed the core, label the new events. */
#include "dvs.h"

#include <sensim/grow.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR_CLIP 0.01
#define FAR_CLIP 1000.0

bool dvs_sample_alloc(dvs *d)
{
    size_t px = (size_t)d->w * d->h, rpx = px * d->k * d->k;
    bool ok = (d->r_bgra = malloc(rpx * 4)) != NULL;
    if (ok && !cam_rgb_identity(&d->rgb))
        ok = (d->colors = malloc(rpx * sizeof *d->colors)) != NULL;
    if (ok && d->k > 1)
        ok = (d->levels = malloc(px * sizeof *d->levels)) != NULL;
    if (ok && d->labels) {
        ok = (d->r_tag = malloc(rpx)) && (d->r_depth = malloc(rpx * sizeof(float))) &&
             (d->r_id = malloc(rpx * sizeof(uint32_t)));
        for (int s = 0; ok && s < 2; s++)
            ok = (d->l_tag[s] = malloc(px)) && (d->l_depth[s] = malloc(px * sizeof(float))) &&
                 (d->l_id[s] = malloc(px * sizeof(uint32_t)));
    }
    return ok;
}

void dvs_sample_free(dvs *d)
{
    free(d->r_bgra), free(d->r_tag), free(d->r_depth), free(d->r_id), free(d->colors), free(d->levels);
    for (int s = 0; s < 2; s++)
        free(d->l_tag[s]), free(d->l_depth[s]), free(d->l_id[s]);
}

static sn_status render(dvs *d, int64_t t)
{
    const sn_host *h = d->host;
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {0, 0, 0}}, d->w * d->k, d->h * d->k, d->fov, NEAR_CLIP, FAR_CLIP};
    sn_image img = {sizeof img, d->r_depth, d->r_bgra, d->r_tag, d->r_id, 0};
    if (t == h->clock(d->ctx)->time_ns) {
        h->sensor_transform(d->ctx, &cam.transform);
        return h->render(d->ctx, &cam, &img);
    }
    sn_status st = h->sensor_transform_at(d->ctx, t, &cam.transform);
    return st ? st : h->render_at(d->ctx, t, &cam, &img);
}

/* The RGB camera's image of the rendered samples, (k w) x (k h). */
static const uint32_t *colors(dvs *d)
{
    if (!d->colors)
        return (const uint32_t *)(const void *)d->r_bgra;
    cam_rgb_apply(&d->rgb, d->r_bgra, (uint8_t *)d->colors);
    return d->colors;
}

/* k > 1: the level of the mean gray of the k x k colours of each pixel. */
static const float *levels(dvs *d, const uint32_t *in)
{
    uint32_t k = d->k, rw = d->w * k;
    for (uint32_t y = 0; y < d->h; y++)
        for (uint32_t x = 0; x < d->w; x++) {
            double sum = 0;
            for (uint32_t sy = 0; sy < k; sy++)
                for (uint32_t sx = 0; sx < k; sx++)
                    sum += dvs_gray(in[(size_t)(y * k + sy) * rw + x * k + sx]);
            d->levels[(size_t)y * d->w + x] = dvs_level(&d->cfg, sum / (k * k));
        }
    return d->levels;
}

/* This sample's labels into set `cur`: through the lens (nearest), the nearest of each pixel's
** k x k samples; nothing (infinitely far, tag 0, id 0) where the lens shows nothing. */
static void labels(dvs *d)
{
    uint32_t k = d->k, rw = d->w * k;
    int c = d->cur;
    for (uint32_t y = 0; y < d->h; y++)
        for (uint32_t x = 0; x < d->w; x++) {
            int32_t best = -1;
            float near = INFINITY;
            for (uint32_t sy = 0; sy < k; sy++)
                for (uint32_t sx = 0; sx < k; sx++) {
                    size_t s = (size_t)(y * k + sy) * rw + x * k + sx;
                    int32_t m = d->map ? d->map[s] : (int32_t)s;
                    if (m >= 0 && (best < 0 || d->r_depth[m] < near))
                        best = m, near = d->r_depth[m];
                }
            size_t o = (size_t)y * d->w + x;
            d->l_depth[c][o] = near;
            d->l_tag[c][o] = best >= 0 ? d->r_tag[best] : 0;
            d->l_id[c][o] = best >= 0 ? d->r_id[best] : 0;
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
    const uint32_t *px = colors(d);
    bool ok = d->k == 1 ? dvs_feed_colors(&d->core, px, t, normal, d) : dvs_feed_levels(&d->core, levels(d, px), t, normal, d);
    if (!ok) {
        d->host->set_error(d->ctx, "out of memory for %zu events", d->core.n_ev);
        return SN_E_NOMEM;
    }
    if (!d->labels)
        return SN_OK;
    labels(d);
    size_t n1 = d->core.n_ev;
    if (!SN_GROW(d->lab, d->cap_lab, n1)) {
        d->host->set_error(d->ctx, "out of memory for %zu event labels", n1);
        return SN_E_NOMEM;
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
