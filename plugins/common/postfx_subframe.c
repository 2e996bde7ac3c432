/* postfx_subframe.c — motion blur from sub-frame renders (postfx_subframe.h). */
#include "postfx_subframe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool pfx_sub_init(pfx_sub *s, uint32_t w, uint32_t h)
{
    memset(s, 0, sizeof *s);
    s->w = w, s->h = h;
    size_t px = (size_t)w * h;
    for (int i = 0; i < 256; i++)
        s->dec[i] = (float)pow(i / 255.0, 2.2);
    for (int i = 0; i < 255; i++)
        s->mid[i] = 0.5f * (s->dec[i] + s->dec[i + 1]);
    s->mid[255] = INFINITY;
    return (s->bgra0 = malloc(px * 4)) && (s->depth0 = malloc(px * sizeof(float))) &&
           (s->inst0 = malloc(px * sizeof(uint32_t))) && (s->bgrak = malloc(px * 4)) &&
           (s->depthk = malloc(px * sizeof(float))) && (s->instk = malloc(px * sizeof(uint32_t))) &&
           (s->acc = malloc(px * 3 * sizeof(float))) && (s->cover = malloc(px)) && (s->ids = malloc(sizeof *s->ids)) &&
           (s->cen = malloc(6 * PFX_IDS * sizeof *s->cen));
}

void pfx_sub_free(pfx_sub *s)
{
    free(s->bgra0), free(s->depth0), free(s->inst0), free(s->bgrak), free(s->depthk), free(s->instk), free(s->acc);
    free(s->cover), free(s->ids), free(s->cen);
    memset(s, 0, sizeof *s);
}

static uint32_t slot(const pfx_motion *m, uint32_t id)
{
    uint32_t k = (id * 2654435761u) & (PFX_IDS - 1);
    for (uint32_t n = 0; n < PFX_IDS; n++, k = (k + 1) & (PFX_IDS - 1))
        if (m->key[k] == id + 1 || !m->key[k])
            return k;
    return UINT32_MAX;
}

/* Whether instance id is narrower than min_w pixels at k = 0 (unknown ones are not). */
static bool small(const pfx_sub *s, uint32_t id, double min_w)
{
    if (!id || !(min_w > 0))
        return false;
    uint32_t k = slot(s->ids, id);
    return k != UINT32_MAX && s->ids->key[k] == id + 1 && s->ids->hi[k] + 1.0 - s->ids->lo[k] < min_w;
}

size_t pfx_sub_measure(pfx_sub *s)
{
    pfx_motion *m = s->ids;
    size_t n = 0;
    memset(m->key, 0, sizeof m->key);
    for (uint32_t y = 0; y < s->h; y++)
        for (uint32_t x = 0; x < s->w;) {
            uint32_t id = s->inst0[(size_t)y * s->w + x], x0 = x;
            while (++x < s->w && s->inst0[(size_t)y * s->w + x] == id) /* a run: one lookup */
                ;
            uint32_t k;
            if (!id)
                continue;
            n += x - x0;
            if ((k = slot(m, id)) == UINT32_MAX)
                continue;
            if (m->key[k] != id + 1)
                m->key[k] = id + 1, m->lo[k] = x0, m->hi[k] = x - 1;
            else
                m->lo[k] = x0 < m->lo[k] ? x0 : m->lo[k], m->hi[k] = x - 1 > m->hi[k] ? x - 1 : m->hi[k];
        }
    return n;
}

/* Sums of each instance's pixel positions in one id image, in slots of s->ids. */
static void centroids(const pfx_sub *s, const uint32_t *inst, double *sx, double *sy, double *n)
{
    memset(sx, 0, PFX_IDS * sizeof *sx), memset(sy, 0, PFX_IDS * sizeof *sy), memset(n, 0, PFX_IDS * sizeof *n);
    for (uint32_t y = 0; y < s->h; y++)
        for (uint32_t x = 0; x < s->w; x++) {
            uint32_t id = inst[(size_t)y * s->w + x], k;
            if (!id || (k = slot(s->ids, id)) == UINT32_MAX || s->ids->key[k] != id + 1)
                continue;
            sx[k] += x, sy[k] += y, n[k]++;
        }
}

double pfx_sub_shift(pfx_sub *s, double min_w)
{
    double *a[3] = {s->cen, s->cen + PFX_IDS, s->cen + 2 * PFX_IDS}, *b[3] = {a[2] + PFX_IDS, a[2] + 2 * PFX_IDS,
                                                                                 a[2] + 3 * PFX_IDS};
    centroids(s, s->inst0, a[0], a[1], a[2]);
    centroids(s, s->instk, b[0], b[1], b[2]);
    double most = 0;
    for (uint32_t k = 0; k < PFX_IDS; k++) {
        if (!s->ids->key[k] || !a[2][k] || !b[2][k] || small(s, s->ids->key[k] - 1, min_w))
            continue;
        double dx = a[0][k] / a[2][k] - b[0][k] / b[2][k], dy = a[1][k] / a[2][k] - b[1][k] / b[2][k];
        double d = sqrt(dx * dx + dy * dy);
        most = d > most ? d : most;
    }
    return most;
}

/* Widens [x0, x1) x [y0, y1) to hold the pixels of inst that are not 0. */
static void grow_box(pfx_sub *s, const uint32_t *inst)
{
    for (uint32_t y = 0; y < s->h; y++) {
        const uint32_t *row = inst + (size_t)y * s->w;
        uint32_t x = 0, last = 0;
        bool any = false;
        for (; x < s->w; x++)
            if (row[x]) {
                if (!any && x < s->x0)
                    s->x0 = x;
                any = true, last = x;
            }
        if (!any)
            continue;
        s->x1 = last + 1 > s->x1 ? last + 1 : s->x1;
        s->y0 = y < s->y0 ? y : s->y0;
        s->y1 = y + 1 > s->y1 ? y + 1 : s->y1;
    }
}

void pfx_sub_begin(pfx_sub *s, double margin)
{
    s->x0 = s->w, s->y0 = s->h, s->x1 = s->y1 = 0;
    grow_box(s, s->inst0);
    grow_box(s, s->instk);
    if (s->x1 <= s->x0 || s->y1 <= s->y0) {
        s->x0 = s->y0 = s->x1 = s->y1 = 0;
        return;
    }
    const uint32_t m = margin > 0 ? (uint32_t)ceil(margin < 1e6 ? margin : 1e6) : 0;
    s->x0 = s->x0 > m ? s->x0 - m : 0, s->y0 = s->y0 > m ? s->y0 - m : 0;
    s->x1 = s->x1 + m < s->w ? s->x1 + m : s->w, s->y1 = s->y1 + m < s->h ? s->y1 + m : s->h;
    for (uint32_t y = s->y0; y < s->y1; y++) {
        const size_t i = (size_t)y * s->w + s->x0, n = s->x1 - s->x0;
        memset(s->acc + 3 * i, 0, 3 * n * sizeof *s->acc);
        memset(s->cover + i, 0, n);
    }
}

void pfx_sub_add(pfx_sub *s, uint32_t k, double min_w, const uint8_t *still, const float *still_depth)
{
    const uint8_t *mb = k ? s->bgrak : s->bgra0;
    const float *md = k ? s->depthk : s->depth0;
    const uint32_t *mi = k ? s->instk : s->inst0;
    uint32_t last = 0, last0 = 0; /* neighbours mostly share an instance: its answer kept */
    bool last_small = false, last0_small = false;
    for (uint32_t y = s->y0; y < s->y1; y++)
        for (size_t i = (size_t)y * s->w + s->x0, end = (size_t)y * s->w + s->x1; i < end; i++) {
            const uint8_t *c = still + 4 * i;
            float d = still_depth[i];
            const uint32_t id = mi[i], id0 = s->inst0[i];
            if (id && id != last)
                last = id, last_small = small(s, id, min_w);
            if (id && !last_small && md[i] < d) /* the moving actor at this instant */
                c = mb + 4 * i, d = md[i], s->cover[i] = 1;
            if (id0 && id0 != last0)
                last0 = id0, last0_small = small(s, id0, min_w);
            if (id0 && last0_small && s->depth0[i] < d) /* a small one: at its pose now in every sub-frame */
                c = s->bgra0 + 4 * i, s->cover[i] = 1;
            float *a = s->acc + 3 * i;
            a[0] += s->dec[c[0]], a[1] += s->dec[c[1]], a[2] += s->dec[c[2]];
        }
}

/* The byte whose linear value is nearest v (the exact inverse of dec on its own values). */
static uint8_t enc(const pfx_sub *s, float v)
{
    uint32_t lo = 0, hi = 255; /* the first i with v <= mid[i] */
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        if (v <= s->mid[m])
            hi = m;
        else
            lo = m + 1;
    }
    return (uint8_t)lo;
}

void pfx_sub_end(pfx_sub *s, uint32_t n, const uint8_t *still, uint8_t *out)
{
    if (out != still)
        memcpy(out, still, (size_t)s->w * s->h * 4);
    const float inv = 1.0f / (float)n;
    for (uint32_t y = s->y0; y < s->y1; y++)
        for (size_t i = (size_t)y * s->w + s->x0, end = (size_t)y * s->w + s->x1; i < end; i++) {
            if (!s->cover[i])
                continue;
            const float *a = s->acc + 3 * i;
            out[4 * i + 0] = enc(s, a[0] * inv), out[4 * i + 1] = enc(s, a[1] * inv), out[4 * i + 2] = enc(s, a[2] * inv);
            out[4 * i + 3] = 255;
        }
}

void pfx_sub_mask_vel(const pfx_sub *s, float *vel)
{
    for (uint32_t y = s->y0; y < s->y1; y++)
        for (size_t i = (size_t)y * s->w + s->x0, end = (size_t)y * s->w + s->x1; i < end; i++)
            if (s->cover[i])
                vel[2 * i] = vel[2 * i + 1] = 0;
}
