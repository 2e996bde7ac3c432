/* camera_common.c — the shared camera attributes' helpers and the RGB post-process (camera_common.h). */
#include "camera_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cam_exposure_modes[] = {"manual", "histogram", NULL};

lens cam_lens(const sn_value *v)
{
    return (lens){v[CAM_A_K].f, v[CAM_A_KCUBE].f, v[CAM_A_XS].f, v[CAM_A_YS].f, v[CAM_A_FALLOFF].f, v[CAM_A_MULT].f};
}

static bool is_default(const sn_attr_def *d, const sn_value *v)
{
    switch (d->type) {
    case SN_ATTR_FLOAT: return v->f == strtod(d->def, NULL);
    case SN_ATTR_INT: return v->i == strtoll(d->def, NULL, 10);
    case SN_ATTR_BOOL: return v->b == (strcmp(d->def, "true") == 0);
    default: return v->s && strcmp(v->s, d->def) == 0;
    }
}

void cam_warn_unrendered(const sn_host *h, sn_ctx *ctx, const sn_attr_def *defs, const sn_value *v, uint32_t from,
                         uint32_t to, bool all)
{
    for (uint32_t k = from; k < to; k++) {
        const sn_attr_def *d = &defs[k];
        if (is_default(d, &v[k]) || (!all && strncmp(d->doc, CAM_NR, strlen(CAM_NR)) != 0))
            continue;
        char val[64];
        if (d->type == SN_ATTR_FLOAT)
            snprintf(val, sizeof val, "%g", v[k].f);
        else if (d->type == SN_ATTR_INT)
            snprintf(val, sizeof val, "%lld", (long long)v[k].i);
        else if (d->type == SN_ATTR_BOOL)
            snprintf(val, sizeof val, "%s", v[k].b ? "true" : "false");
        else
            snprintf(val, sizeof val, "%s", v[k].s ? v[k].s : "");
        if (all)
            h->log(ctx, SN_LOG_WARN, "attribute '%s' = %s changes nothing: this sensor draws no post-process", d->name, val);
        else
            h->log(ctx, SN_LOG_WARN, "attribute '%s' = %s changes nothing: %s", d->name, val, d->doc);
    }
}

bool cam_rgb_init(cam_rgb *p, const lens *l, double gamma, uint32_t w, uint32_t h)
{
    *p = (cam_rgb){.w = w, .h = h};
    bool oom1, oom2;
    p->taps = lens_taps(l, w, h, &oom1);
    p->vig = lens_vignette(l, w, h, &oom2);
    if (oom1 || oom2)
        return false;
    if (gamma != 2.2) { /* the rendered bytes are taken as encoded for 2.2 and re-encoded */
        if (!(p->gamma = malloc(256)))
            return false;
        for (int i = 0; i < 256; i++)
            p->gamma[i] = (uint8_t)lround(255 * pow(i / 255.0, 2.2 / gamma));
    }
    return !(p->taps && (p->vig || p->gamma)) || (p->tmp = malloc((size_t)w * h * 4));
}

void cam_rgb_free(cam_rgb *p)
{
    free(p->taps), free(p->vig), free(p->gamma), free(p->tmp);
    *p = (cam_rgb){0};
}

bool cam_rgb_identity(const cam_rgb *p) { return !p->taps && !p->vig && !p->gamma; }

void cam_rgb_apply(const cam_rgb *p, const uint8_t *in, uint8_t *out)
{
    size_t px = (size_t)p->w * p->h;
    if (p->taps) {
        uint8_t *lensed = p->vig || p->gamma ? p->tmp : out;
        lens_resample_bgra(p->taps, in, lensed, p->w, p->h);
        in = lensed;
    }
    if (!p->vig && !p->gamma) {
        if (in != out)
            memcpy(out, in, px * 4);
        return;
    }
    for (size_t i = 0; i < px; i++) {
        for (int k = 0; k < 3; k++) {
            uint32_t v = in[4 * i + k];
            if (p->vig)
                v = (v * p->vig[i] + 128) >> 8;
            out[4 * i + k] = p->gamma ? p->gamma[v] : (uint8_t)v;
        }
        out[4 * i + 3] = 255;
    }
}
