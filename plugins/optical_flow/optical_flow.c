/*
** sensor.camera.optical_flow — CARLA's optical flow camera (docs/sensors/optical-flow.md) on the
** engine's renderer: per pixel, how far what it sees moved across the image since the previous
** frame, exactly, from both frames' poses.
**
** Every tick: host->render_motion renders depth and tags now and, per pixel, the world
** displacement of the seen material point back to the end of the previous frame (its actor's
** rigid motion; 0 for static geometry and roads). The point now is on the pixel centre's ray
** at its depth; its previous position goes through the camera's previous pose
** (host->sensor_transform_prev) and the pinhole, which gives where it was in the image.
**
** Output: CARLA's units and signs, which are Unreal's velocity buffer as CARLA decodes it: the
** screen position now minus the one at the previous frame in normalised device coordinates
** (x right, y UP, each spanning 2 across the image), two little-endian float32 per pixel,
** row-major: raw_data[2 i] = 2 (u_now - u_prev) / W, raw_data[2 i + 1] = -2 (v_now - v_prev) / H
** with (u, v) pixel coordinates (v down). So motion in pixels is (x W / 2, -y H / 2).
** Sky pixels, and points that were behind the camera at the previous frame (no previous image
** position), read 0. The lens attributes (plugins/common) gather the pinhole flow as the depth
** camera gathers depth: nearest pixel, 0 where the distortion has no source.
*/
#include "camera_common.h"

#include <sensim/math.h>
#include <sensim/plugin.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR_CLIP 0.01  /* metres, as the other cameras */
#define FAR_CLIP 1000.0 /* metres: CARLA's depth range; beyond it is sky */

static const sn_attr_def attrs[] = {CAM_COMMON_ATTRS};

typedef struct flowcam {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t w, h;
    double fov;
    int32_t *map;  /* lens pixel map, NULL for a pinhole */
    float *depth;
    uint8_t *tag;
    float *motion; /* 3 per pixel, world metres */
    float *flow;   /* 2 per pixel, before the lens */
    float *out;    /* 2 per pixel: what raw_data carries */
} flowcam;

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    if (!SN_HOST_HAS(host, render_motion) || !SN_HOST_HAS(host, sensor_transform_prev)) {
        host->set_error(ctx, "this host cannot render motion (ABI %u.%u without render_motion); the optical flow "
                        "camera needs a sensim host of 1.4 with it", (unsigned)host->hdr.abi_major,
                        (unsigned)host->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    flowcam *c = calloc(1, sizeof *c);
    if (!c)
        return SN_E_NOMEM;
    c->host = host;
    c->ctx = ctx;
    *out = c;
    return SN_OK;
}

static void destroy(void *self)
{
    flowcam *c = self;
    if (c) {
        free(c->map), free(c->depth), free(c->tag), free(c->motion), free(c->flow);
        if (c->out != c->flow)
            free(c->out);
    }
    free(c);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    flowcam *c = self;
    (void)n;
    c->w = (uint32_t)v[CAM_A_W].i;
    c->h = (uint32_t)v[CAM_A_H].i;
    c->fov = v[CAM_A_FOV].f;
    if (!(c->fov > 0 && c->fov < 180)) {
        c->host->set_error(c->ctx, "fov %g: must be inside (0, 180) degrees", c->fov);
        return SN_E_RANGE;
    }
    lens l = cam_lens(v);
    if (v[CAM_A_MULT].f != 0)
        c->host->log(c->ctx, SN_LOG_WARN, "attribute 'lens_circle_multiplier' = %g has no effect: the vignette darkens "
                     "colour images only, so the flow stays exact", v[CAM_A_MULT].f);
    size_t px = (size_t)c->w * c->h;
    bool oom = false;
    c->map = lens_map(&l, c->w, c->h, &oom);
    bool ok = !oom && (c->depth = malloc(px * sizeof *c->depth)) && (c->tag = malloc(px)) &&
              (c->motion = malloc(px * 3 * sizeof *c->motion)) && (c->flow = malloc(px * 2 * sizeof *c->flow));
    if (ok)
        ok = !c->map ? (c->out = c->flow) != NULL : (c->out = malloc(px * 2 * sizeof *c->out)) != NULL;
    if (!ok) {
        c->host->set_error(c->ctx, "out of memory for a %ux%u image", c->w, c->h);
        return SN_E_NOMEM;
    }
    return SN_OK;
}

/* Rows per task of the flow projection: a few tens of microseconds of work at 800 px a row. */
#define BAND_ROWS 16

/* One tick's projection, shared read-only by the tasks. */
typedef struct flow_job {
    const flowcam *c;
    double W, H, f, cx, cy;
    sn_mat3 rp;
    sn_vec3 fwd, right, up, eye, eye_prev;
    bool cam_still;
} flow_job;

/* Rows [BAND_ROWS band, ...) of the flow: where each pixel's point was in the previous
** camera's image, minus where it is now, in CARLA's units. */
static void flow_band(void *arg, uint32_t band)
{
    const flow_job *j = arg;
    const flowcam *c = j->c;
    const uint32_t y0 = band * BAND_ROWS, y1 = y0 + BAND_ROWS < c->h ? y0 + BAND_ROWS : c->h;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = 0; x < c->w; x++) {
            size_t i = (size_t)y * c->w + x;
            float *fl = c->flow + 2 * i;
            fl[0] = fl[1] = 0;
            if (c->tag[i] == SN_TAG_SKY)
                continue;
            const float *m = c->motion + 3 * i;
            if (j->cam_still && m[0] == 0 && m[1] == 0 && m[2] == 0)
                continue;
            double u = x + 0.5, v = y + 0.5, a = (u - j->cx) / j->f, b = (v - j->cy) / j->f;
            sn_vec3 ray = sn_v3_add(j->fwd, sn_v3_sub(sn_v3_scale(j->right, a), sn_v3_scale(j->up, b)));
            sn_vec3 p = sn_v3_add(j->eye, sn_v3_scale(ray, c->depth[i]));
            p = sn_v3_add(p, sn_v3((double)m[0], (double)m[1], (double)m[2]));
            sn_vec3 q = sn_mat3_apply_t(&j->rp, sn_v3_sub(p, j->eye_prev));
            if (!(q.x > 1e-9))
                continue; /* behind the previous camera: it had no image position */
            double up_ = j->cx + j->f * q.y / q.x, vp = j->cy - j->f * q.z / q.x;
            fl[0] = (float)(2 * (u - up_) / j->W);
            fl[1] = (float)(-2 * (v - vp) / j->H);
        }
}

static sn_status tick(void *self, sn_phase phase)
{
    flowcam *c = self;
    const sn_host *h = c->host;
    (void)phase;
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {0, 0, 0}}, c->w, c->h, c->fov, NEAR_CLIP, FAR_CLIP};
    h->sensor_transform(c->ctx, &cam.transform);
    sn_image img = {sizeof img, c->depth, NULL, c->tag, NULL, 0};
    sn_status st = h->render_motion(c->ctx, &cam, &img, c->motion);
    if (st)
        return st;
    sn_transform prev;
    h->sensor_transform_prev(c->ctx, &prev);

    flow_job j;
    j.c = c;
    /* the pinhole as the renderer has it: f from the horizontal fov, centre at (W/2, H/2) */
    j.W = c->w, j.H = c->h, j.f = j.W / (2 * tan(c->fov * M_PI / 360)), j.cx = j.W / 2, j.cy = j.H / 2;
    const sn_mat3 rn = sn_mat3_from_rotation(cam.transform.rotation);
    j.rp = sn_mat3_from_rotation(prev.rotation);
    j.fwd = sn_mat3_col(&rn, 0), j.right = sn_mat3_col(&rn, 1), j.up = sn_mat3_col(&rn, 2);
    j.eye = cam.transform.location, j.eye_prev = prev.location;
    /* a still camera and a still point: exactly 0, not the 1e-14 px of a round trip */
    j.cam_still = j.eye.x == j.eye_prev.x && j.eye.y == j.eye_prev.y && j.eye.z == j.eye_prev.z &&
                  cam.transform.rotation.pitch == prev.rotation.pitch &&
                  cam.transform.rotation.yaw == prev.rotation.yaw && cam.transform.rotation.roll == prev.rotation.roll;
    /* bands of rows on the engine's workers (ABI 1.5); each pixel's flow is computed alone, so
    ** the bytes are the same at any thread count and without the pool */
    const uint32_t bands = (c->h + BAND_ROWS - 1) / BAND_ROWS;
    if (SN_HOST_HAS(h, parallel_for)) {
        if ((st = h->parallel_for(c->ctx, flow_band, &j, bands)))
            return st;
    } else {
        for (uint32_t b = 0; b < bands; b++)
            flow_band(&j, b);
    }
    if (c->map) {
        size_t px = (size_t)c->w * c->h;
        for (size_t i = 0; i < px; i++) {
            int32_t s = c->map[i];
            c->out[2 * i] = s >= 0 ? c->flow[2 * (size_t)s] : 0.0f;
            c->out[2 * i + 1] = s >= 0 ? c->flow[2 * (size_t)s + 1] : 0.0f;
        }
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    flowcam *c = self;
    const sn_host *h = c->host;
    (void)index;
    size_t px = (size_t)c->w * c->h;
    h->write_key(w, "width");
    h->write_uint(w, c->w);
    h->write_key(w, "height");
    h->write_uint(w, c->h);
    h->write_key(w, "fov");
    h->write_float(w, (float)c->fov);
    h->write_key(w, "raw_data");
    /* float32 in memory order: little-endian on every platform sensim builds for */
    return h->write_bin(w, c->out, px * 2 * sizeof(float));
}

static const sn_sensor_class flow_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.camera.optical_flow",
    .doc = "per-pixel image motion since the previous frame: float32 x, y in CARLA's units (2 = the image's width, "
           "height; y up)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&flow_class};

SN_PLUGIN_EXPORT(library, "optical_flow", "1.0.0", classes)
