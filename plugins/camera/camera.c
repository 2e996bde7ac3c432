/*
** sensor.camera.depth, .rgb, .semantic_segmentation, .instance_segmentation, .normals — CARLA's
** cameras on the engine's CPU renderer (host->render, ABI 1.1).
**
** Every tick the camera renders the world from its pose, applies the lens post-process
** (plugins/common, shared with the DVS) and encodes the image as CARLA does, BGRA row-major in
** `raw_data`:
**   depth     planar metres over 1000 m in 24 bits: d = round(depth / 1000 * (2^24 - 1)),
**             R = d & 255, G = (d >> 8) & 255, B = d >> 16 (R least significant), A = 255
**   rgb       Lambert-shaded actor colours under the scene's sun and ambient light; with
**             enable_postprocess_effects (the default) CARLA's post-process (plugins/common/
**             postfx.c), else re-encoded for the camera's `gamma` (the renderer's bytes taken as
**             encoded for 2.2); then the weather's rain streaks (plugins/common/rain.c)
**   semantic  R = semantic tag, G = B = 0
**   instance  R = semantic tag, G = actor id & 255, B = (actor id >> 8) & 255
**   normals   the surface normal in the camera's image frame (R right, G up, B toward the
**             camera), each component c as round((c + 1) / 2 * 255), A = 255; black where
**             nothing is hit. Derived from the depth image (the neighbour pixels of smaller depth
**             step), so a surface's normal is exact and its silhouette edge is the nearer side's.
** Message keys after the header: width, height, fov, raw_data; the depth camera with
** depth_float also writes `depth`, W*H little-endian float32 metres (no 24-bit step).
** Buffers are allocated in set() for the image size and reused every frame; the RGB camera's
** intermediates (the colour render, the lens's output, the rain's depth, motion blur's) are lent
** to each tick by cam_scratch.h and shared with every camera not ticking at the same time. The depth and
** semantic images are encoded at serialize, into the message itself (encode_in_place).
**
** Every attribute of CARLA's cameras (seed 003) is accepted with CARLA's default and type, so a
** CARLA script's blueprint settings carry over. Those sensim does not render yet (depth of field,
** the atmospheric blur) say so in their doc and log one warning each when a scene sets them away
** from the default.
*/
#include "cam_scratch.h"
#include "camera_common.h"
#include "postfx.h"
#include "postfx_motion.h"
#include "postfx_subframe.h"
#include "rain.h"

#include <sensim/math.h>
#include <sensim/plugin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CAM_DEPTH, CAM_RGB, CAM_SEMANTIC, CAM_INSTANCE, CAM_NORMALS } cam_kind;

#define NEAR_CLIP 0.01 /* metres: nearer surfaces are cut away */

enum { A_MAX_DEPTH = CAM_A_COMMON, A_DEPTH_FLOAT };

static const sn_attr_def depth_attrs[] = {
    CAM_COMMON_ATTRS,
    {"max_depth", SN_ATTR_FLOAT, "1000.0", NULL, NULL, true, 0.02, 1000000, "m",
     "far plane: farther surfaces read as max_depth (the encoding stays over 1000 m)"},
    {"depth_float", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "also write `depth`, float32 metres per pixel, with no 24-bit step"},
};
static const sn_attr_def image_attrs[] = {CAM_COMMON_ATTRS};
enum { A_AA = CAM_A_RGB_END, A_MB_METHOD, A_MB_SUBFRAMES };
static const char *const mb_methods[] = {"velocity", "subframes", NULL};
static const sn_attr_def rgb_attrs[] = {
    CAM_COMMON_ATTRS, CAM_RGB_ATTRS,
    {"anti_aliasing", SN_ATTR_INT, "2", NULL, NULL, true, 1, 4, NULL,
     "anti-aliasing: N x N colour samples per pixel, averaged in linear light (1: off)"},
    {"motion_blur_method", SN_ATTR_ENUM, "velocity", NULL, mb_methods, false, 0, 0, NULL,
     "motion blur from per-pixel velocities (Unreal's way, the default) or from sub-frame renders of the moving actors"},
    {"motion_blur_subframes", SN_ATTR_INT, "8", NULL, NULL, true, 2, 64, NULL,
     "motion_blur_method subframes: the most instants across the shutter the moving actors are drawn at (one a pixel of smear, at least 4)"},
};
_Static_assert(sizeof rgb_attrs / sizeof rgb_attrs[0] == A_MB_SUBFRAMES + 1, "A_MB_SUBFRAMES ends the RGB table");

/* The RGB camera's per-frame intermediates: sized in set(), lent by cam_scratch.h for each tick
** (their pointers below are NULL outside a tick). */
enum { S_BGRA, S_FX_IN, S_RAIN_DEPTH, S_RAIN_OUT, S_MB_DEPTH, S_MB_MOTION, S_MB_INST, S_MB_VEL, S_VEL, S_PFX_TMP, S_N };

typedef struct camera {
    const sn_host *host;
    sn_ctx *ctx;
    cam_kind kind;
    uint32_t w, h;
    double fov, max_depth;
    bool depth_float;
    lens lens;
    int32_t *map;   /* lens pixel map (nearest) of depth, tags and ids, NULL for a pinhole or colour */
    cam_rgb rgb;    /* the colour camera's lens, vignette and gamma */
    uint32_t aa;    /* colour samples per pixel side (anti_aliasing: sn_image.samples) */
    float *depth, *depth_out;
    uint8_t *bgra, *tag, *tag_out; /* bgra: lent for the tick (scr) */
    uint32_t *inst, *inst_out;
    uint8_t *raw;   /* the encoded image */
    bool fx;        /* enable_postprocess_effects (RGB) */
    pfx post;       /* CARLA's post-process (plugins/common/postfx.c) */
    uint8_t *fx_in; /* the lens's output, the post-process's input (lent for the tick) */
    bool blur;      /* motion blur on: its buffers below are allocated */
    float *mb_depth, *mb_motion, *vel; /* motion blur: render_motion's depth and motion, image-sized blur vectors
                                       ** (these, mb_inst and mb_vel lent for the tick) */
    uint32_t *mb_inst;
    pfx_motion *mb_ids;
    bool mb_render; /* SENSIM_MOTION_RENDER: the quarter size by render_motion, not the grid */
    uint32_t mb_div; /* the motion render's pixel: mb_div x mb_div image pixels */
    float *mb_vel;   /* blur vectors at the motion render's size (mb_div > 1: the velocity method needs no vel) */
    bool subframes;  /* motion_blur_method subframes: the moving actors at mb_k sub-frames (postfx_subframe.h) */
    uint32_t mb_k;
    pfx_sub sub;
    const float *depth_ready; /* this tick's depth after the lens: depth or depth_out */
    const uint8_t *tag_ready; /* this tick's tags after the lens: tag or tag_out */
    /* RGB in rain: the depth the streaks hide behind (rain.h), and its lens gather (lent for the tick) */
    float *rain_depth, *rain_depth_out;
    int32_t *rain_map; /* NULL for a pinhole */
    /* the bytes of each per-frame intermediate (0: none): bgra, fx_in, rain_depth, rain_depth_out and
    ** the motion blur's (cam56: not the camera's, as nothing reads them after the tick), and the
    ** block they are carved from while a tick runs */
    size_t scr[S_N];
    cam_block *lent;
} camera;

static sn_status create_kind(const sn_host *host, sn_ctx *ctx, void **out, cam_kind kind)
{
    if (host->hdr.abi_minor < 1 || host->hdr.struct_size < offsetof(sn_host, render) + sizeof host->render ||
        !host->render) {
        host->set_error(ctx, "this host cannot render images (it offers ABI %u.%u, cameras need 1.1)",
                        (unsigned)host->hdr.abi_major, (unsigned)host->hdr.abi_minor);
        return SN_E_UNSUPPORTED;
    }
    camera *c = calloc(1, sizeof *c);
    if (!c)
        return SN_E_NOMEM;
    c->host = host;
    c->ctx = ctx;
    c->kind = kind;
    *out = c;
    return SN_OK;
}
static sn_status create_depth(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, CAM_DEPTH); }
static sn_status create_rgb(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, CAM_RGB); }
static sn_status create_sem(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, CAM_SEMANTIC); }
static sn_status create_inst(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, CAM_INSTANCE); }
static sn_status create_normals(const sn_host *h, sn_ctx *c, void **o) { return create_kind(h, c, o, CAM_NORMALS); }

static void free_buffers(camera *c)
{
    cam_rgb_free(&c->rgb);
    pfx_free(&c->post);
    free(c->mb_ids);
    pfx_sub_free(&c->sub);
    c->subframes = c->blur = false;
    c->mb_ids = NULL;
    free(c->map), free(c->depth), free(c->depth_out);
    free(c->tag), free(c->tag_out), free(c->inst), free(c->inst_out), free(c->raw);
    free(c->rain_map);
    c->rain_map = NULL;
    memset(c->scr, 0, sizeof c->scr);
}

static void destroy(void *self)
{
    camera *c = self;
    if (c)
        free_buffers(c);
    free(c);
}

/* The motion render at half size whatever the width (the bytes before pfx55's quarter size): for
** comparisons, as the renderer's exact shading (SENSIM_EXACT_SHADING, or SENSIM_EXACT_MOTION alone). */
static bool exact_motion(void)
{
    for (int k = 0; k < 2; k++) {
        const char *e = getenv(k ? "SENSIM_EXACT_MOTION" : "SENSIM_EXACT_SHADING");
        if (e && *e && strcmp(e, "0") != 0)
            return true;
    }
    return false;
}

/* The quarter size from pfx55's second render rather than the colour render's grid (motion57):
** for comparisons of the two (SENSIM_MOTION_RENDER=1; test_postfx_quarter). */
static bool motion_render_wanted(void)
{
    const char *e = getenv("SENSIM_MOTION_RENDER");
    return e && *e && strcmp(e, "0") != 0;
}

/* The post-process attributes (CAM_RGB_ATTRS order); false with a message when they conflict. */
static bool fx_params(camera *c, const sn_value *v, pfx_params *p)
{
    const sn_value *f = v + CAM_A_UNRENDERED;
    *p = (pfx_params){
        .bloom = f[0].f, .fstop = f[1].f, .iso = f[2].f, .flare = f[3].f, .shutter_speed = f[4].f,
        .manual = f[7].s && strcmp(f[7].s, "manual") == 0, .compensation = f[8].f, .min_bright = f[9].f,
        .max_bright = f[10].f, .speed_up = f[11].f, .speed_down = f[12].f, .calibration = f[13].f,
        .mb_intensity = f[17].f, .mb_max_distortion = f[18].f, .mb_min_size = f[19].f, .slope = f[20].f,
        .toe = f[21].f, .shoulder = f[22].f, .black_clip = f[23].f, .white_clip = f[24].f, .temp = f[25].f,
        .tint = f[26].f, .ca_intensity = f[27].f, .ca_offset = f[28].f, .gamma = v[CAM_A_GAMMA].f,
    };
    if (p->min_bright > p->max_bright) {
        c->host->set_error(c->ctx, "exposure_min_bright %g is above exposure_max_bright %g", p->min_bright, p->max_bright);
        return false;
    }
    return true;
}

/* The post-process's tasks on the engine's workers (ABI 1.5), else in order. */
static void run_tasks(void *self, void (*fn)(void *, uint32_t), void *arg, uint32_t n)
{
    camera *c = self;
    if (SN_HOST_HAS(c->host, parallel_for) && c->host->parallel_for(c->ctx, fn, arg, n) == SN_OK)
        return;
    for (uint32_t t = 0; t < n; t++)
        fn(arg, t);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    camera *c = self;
    c->w = (uint32_t)v[CAM_A_W].i;
    c->h = (uint32_t)v[CAM_A_H].i;
    c->fov = v[CAM_A_FOV].f;
    if (!(c->fov > 0 && c->fov < 180)) {
        c->host->set_error(c->ctx, "fov %g: must be inside (0, 180) degrees", c->fov);
        return SN_E_RANGE;
    }
    c->lens = cam_lens(v);
    memset(c->scr, 0, sizeof c->scr); /* sized again below for these attributes */
    c->max_depth = 1000;
    if (c->kind == CAM_DEPTH) {
        c->max_depth = v[A_MAX_DEPTH].f;
        c->depth_float = v[A_DEPTH_FLOAT].b;
    }
    c->aa = c->kind == CAM_RGB && n > A_AA ? (uint32_t)v[A_AA].i : 1;
    if (c->w * c->aa > 16384 || c->h * c->aa > 16384) { /* the renderer's largest image */
        c->host->set_error(c->ctx, "anti_aliasing %u: a %ux%u image supersampled exceeds 16384 pixels a side; lower it",
                           c->aa, c->w, c->h);
        return SN_E_RANGE;
    }
    if (c->kind == CAM_RGB)
        cam_warn_unrendered(c->host, c->ctx, rgb_attrs, v, CAM_A_UNRENDERED, n < CAM_A_RGB_END ? n : CAM_A_RGB_END,
                            false);
    else if (v[CAM_A_MULT].f != 0)
        c->host->log(c->ctx, SN_LOG_WARN, "attribute 'lens_circle_multiplier' = %g has no effect: the vignette darkens "
                     "colour images only, so depth, tags and ids stay exact", v[CAM_A_MULT].f);
    size_t px = (size_t)c->w * c->h;
    bool identity = !lens_distorts(&c->lens), oom = false;
    c->fx = c->kind == CAM_RGB && n >= CAM_A_RGB_END && v[CAM_A_RGB_END - 1].b;
    if (c->fx) {
        pfx_params p;
        if (!fx_params(c, v, &p))
            return SN_E_RANGE;
        /* the post-process encodes the gamma itself: the lens and vignette stay in 2.2 */
        oom = !cam_rgb_init(&c->rgb, &c->lens, 2.2, c->w, c->h) || !pfx_init_lent(&c->post, &p, c->w, c->h, true);
        c->scr[S_FX_IN] = px * 4, c->scr[S_PFX_TMP] = pfx_tmp_bytes(&c->post); /* the blurred image */
        c->subframes = n > A_MB_SUBFRAMES && strcmp(v[A_MB_METHOD].s, "subframes") == 0;
        c->mb_k = c->subframes ? (uint32_t)v[A_MB_SUBFRAMES].i : 0;
        if (c->subframes && !(SN_HOST_HAS(c->host, render_layer_at) && SN_HOST_HAS(c->host, scene_motion))) {
            c->host->set_error(c->ctx, "motion_blur_method subframes: this host cannot render layers (ABI 1.6 without "
                               "render_layer_at); use velocity");
            return SN_E_UNSUPPORTED;
        }
        if (!oom && c->subframes && pfx_wants_velocity(&c->post)) {
            /* the sub-frames, and the camera's own motion over the still layer as blur vectors */
            c->mb_div = c->w >= 320 && c->h >= 2 ? 2 : 1; /* the camera's own motion's vectors: as below */
            size_t mpx = (size_t)(c->w / c->mb_div) * (c->h / c->mb_div);
            oom = !pfx_sub_init(&c->sub, c->w, c->h);
            c->scr[S_VEL] = px * 2 * sizeof(float);
            c->scr[S_MB_DEPTH] = mpx * sizeof(float), c->scr[S_MB_VEL] = mpx * 2 * sizeof(float);
            c->blur = true;
        } else if (!oom && pfx_wants_velocity(&c->post) && SN_HOST_HAS(c->host, render_motion) &&
                   SN_HOST_HAS(c->host, sensor_transform_prev)) {
            /* blur vectors are smooth and a few pixels long: from a half-size render on images of
            ** 320 px and more (a quarter of the extra render's cost), a quarter-size one from 640 px
            ** (pfx55: half again; the bytes move within test_postfx_quarter's bound, and
            ** SENSIM_EXACT_SHADING or SENSIM_EXACT_MOTION keeps the half size) */
            c->mb_div = c->w >= 320 && c->h >= 2 ? 2 : 1;
            if (c->w >= 640 && c->h >= 4 && !exact_motion())
                c->mb_div = 4;
            c->mb_render = motion_render_wanted();
            size_t mpx = (size_t)(c->w / c->mb_div) * (c->h / c->mb_div);
            oom = !(c->mb_ids = malloc(sizeof *c->mb_ids));
            c->scr[S_MB_DEPTH] = mpx * sizeof(float), c->scr[S_MB_MOTION] = mpx * 3 * sizeof(float);
            c->scr[S_MB_INST] = mpx * sizeof(uint32_t);
            c->scr[c->mb_div == 1 ? S_VEL : S_MB_VEL] = (c->mb_div == 1 ? px : mpx) * 2 * sizeof(float);
            c->blur = true;
        }
    } else if (c->kind == CAM_RGB)
        oom = !cam_rgb_init(&c->rgb, &c->lens, v[CAM_A_GAMMA].f, c->w, c->h);
    else
        c->map = lens_map(&c->lens, c->w, c->h, &oom);
    bool ok = !oom && (c->raw = malloc(px * 4));
    /* what each kind renders; a second buffer receives the lens gather */
    if (ok && (c->kind == CAM_DEPTH || c->kind == CAM_NORMALS))
        ok = (c->depth = malloc(px * sizeof(float))) && (identity || (c->depth_out = malloc(px * sizeof(float))));
    if (ok && c->kind == CAM_RGB) {
        c->scr[S_BGRA] = px * 4, c->scr[S_RAIN_DEPTH] = px * sizeof(float);
        c->scr[S_RAIN_OUT] = identity ? 0 : px * sizeof(float);
        ok = identity || ((c->rain_map = lens_map(&c->lens, c->w, c->h, &oom)) && !oom);
    }
    if (ok && (c->kind == CAM_SEMANTIC || c->kind == CAM_INSTANCE))
        ok = (c->tag = malloc(px)) && (identity || (c->tag_out = malloc(px)));
    if (ok && c->kind == CAM_INSTANCE)
        ok = (c->inst = malloc(px * sizeof(uint32_t))) && (identity || (c->inst_out = malloc(px * sizeof(uint32_t))));
    if (!ok) {
        c->host->set_error(c->ctx, "out of memory for a %ux%u image", c->w, c->h);
        return SN_E_NOMEM;
    }
    return SN_OK;
}

/* The lens: out[i] = in[map[i]], or `none` where the map points outside the picture. */
#define GATHER(T, in, out, none)                                        \
    do {                                                                \
        for (size_t i = 0; i < px; i++)                                 \
            (out)[i] = c->map[i] >= 0 ? (in)[c->map[i]] : (T)(none);    \
    } while (0)

/* A pixel's point in the camera frame (x forward, y right, z up) from its planar depth. */
static void pixel_point(const camera *c, double f, uint32_t u, uint32_t v, float d, double p[3])
{
    p[0] = d;
    p[1] = d * ((u + 0.5) - c->w / 2.0) / f;
    p[2] = -d * ((v + 0.5) - c->h / 2.0) / f;
}

/* The normals camera: each pixel's normal from its neighbours' points, the side of the smaller
** depth step on each axis (so an edge takes the nearer surface's normal), facing the camera. */
static void encode_normals(const camera *c, const float *depth, uint8_t *raw)
{
    const double f = c->w / (2.0 * tan(c->fov * M_PI / 360.0));
    for (uint32_t v = 0; v < c->h; v++)
        for (uint32_t u = 0; u < c->w; u++) {
            size_t i = (size_t)v * c->w + u;
            uint8_t *o = raw + 4 * i;
            float d = depth[i];
            if (!(d > 0) || d >= c->max_depth || c->w < 2 || c->h < 2) {
                o[0] = o[1] = o[2] = 0, o[3] = 255;
                continue;
            }
            uint32_t ul = u > 0 ? u - 1 : u + 1, ur = u + 1 < c->w ? u + 1 : u - 1;
            uint32_t vu = v > 0 ? v - 1 : v + 1, vd = v + 1 < c->h ? v + 1 : v - 1;
            uint32_t un = fabsf(depth[v * (size_t)c->w + ul] - d) <= fabsf(depth[v * (size_t)c->w + ur] - d) ? ul : ur;
            uint32_t vn = fabsf(depth[vu * (size_t)c->w + u] - d) <= fabsf(depth[vd * (size_t)c->w + u] - d) ? vu : vd;
            double p[3], a[3], b[3];
            pixel_point(c, f, u, v, d, p);
            pixel_point(c, f, un, v, depth[v * (size_t)c->w + un], a);
            pixel_point(c, f, u, vn, depth[vn * (size_t)c->w + u], b);
            double e1[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]}, e2[3] = {b[0] - p[0], b[1] - p[1], b[2] - p[2]};
            double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (!(len > 0)) {
                o[0] = o[1] = o[2] = 0, o[3] = 255;
                continue;
            }
            if (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] > 0) /* face the camera */
                len = -len;
            /* image frame: right = +y, up = +z, toward the camera = -x */
            double img[3] = {n[1] / len, n[2] / len, -n[0] / len};
            uint8_t rgb[3];
            for (int k = 0; k < 3; k++)
                rgb[k] = (uint8_t)lround((img[k] + 1.0) * 0.5 * 255.0);
            o[0] = rgb[2], o[1] = rgb[1], o[2] = rgb[0], o[3] = 255; /* BGRA */
        }
}

/* Whether motion blur's vectors are all under a quarter pixel: a point at depth z (at least
** NEAR_CLIP) moved by d shifts by at most f (1 + t^2)^1.5 d / z pixels, t the tangent of the
** corner's angle off the axis; a turn of the camera by dR (Frobenius) by f (1 + t^2)^1.5 2 dR. */
static bool still_enough(const camera *c, const sn_transform *prev, const sn_transform *now, double moved)
{
    const double th = tan(c->fov * M_PI / 360), f = c->w / (2 * th), ar = (double)c->h / c->w;
    const double k = pow(1 + th * th * (1 + ar * ar), 1.5);
    sn_mat3 r0 = sn_mat3_from_rotation(prev->rotation), r1 = sn_mat3_from_rotation(now->rotation);
    double dr = 0;
    for (int i = 0; i < 9; i++)
        dr += (r1.m[i] - r0.m[i]) * (r1.m[i] - r0.m[i]);
    double dc = sn_v3_len(sn_v3_sub(now->location, prev->location));
    double bound = c->post.p.mb_intensity * f * k * ((moved + dc) / NEAR_CLIP + 2 * sqrt(dr));
    return bound < 0.25;
}

/* This camera at time t inside the last frame, [start, end]: its pose then. */
static sn_status pose_at(camera *c, const sn_camera *now, int64_t t, int64_t start, sn_camera *out)
{
    *out = *now;
    if (t == start) {
        c->host->sensor_transform_prev(c->ctx, &out->transform);
        return SN_OK;
    }
    return c->host->sensor_transform_at(c->ctx, t, &out->transform);
}

/* Motion blur from sub-frames (postfx_subframe.h), drawing img (colour at the camera's samples,
** depth). The still layer first (its shadow map serves the sub-frames); then the moving actors
** now and at the shutter's far end (motion_blur_intensity of the frame back), one sample a pixel
** with their ids: the farthest-moving one's shift (its pixels' centroid's) is their screen motion.
** Under half a pixel nothing would blur: the plain render when a moving actor is in view, else the
** still layer is the image. Else the shutter is shortened so that the shift is at most
** max_distortion % of the width, and the moving actors are drawn at instants spaced evenly across
** it (now the first; one a pixel of smear, at least 4, at most mb_k), each sub-frame's camera
** turned by a sub-pixel jitter (the R2 sequence: the sub-frames' average anti-aliases the moving
** actors' edges), composited over the still layer by depth and averaged. Actors narrower than
** min_object_screen_size stay at their pose now. vel gets the camera's own motion over the still layer (0 where a moving actor was drawn). */
static sn_status subframe_render(camera *c, const sn_camera *cam, const sn_image *img)
{
    const sn_host *h = c->host;
    pfx_sub *s = &c->sub;
    const sn_clock *k = h->clock(c->ctx);
    const int64_t end = k->time_ns, start = k->time_ns - k->dt_ns;
    const double W = c->w, min_w = c->post.p.mb_min_size / 100.0 * W, max_d = c->post.p.mb_max_distortion / 100.0 * W;
    const double f = W / (2 * tan(c->fov * M_PI / 360));
    sn_status st = h->render_layer_at(c->ctx, end, cam, img, SN_LAYER_STILL);
    if (st)
        return st;
    double shutter = c->post.p.mb_intensity, d = 0;
    sn_camera ck;
    sn_image m0 = {sizeof m0, s->depth0, s->bgra0, NULL, s->inst0, 1};
    sn_image mk = {sizeof mk, s->depthk, s->bgrak, NULL, s->instk, 1};
    size_t seen = 0;
    if (h->scene_motion(c->ctx) > 0) { /* some actor's pose changed: the moving layer has something */
        if ((st = h->render_layer_at(c->ctx, end, cam, &m0, SN_LAYER_MOVING)))
            return st;
        if ((seen = pfx_sub_measure(s))) {
            int64_t t = end - (int64_t)llround(shutter * (double)k->dt_ns);
            if ((st = pose_at(c, cam, t, start, &ck)) || (st = h->render_layer_at(c->ctx, t, &ck, &mk, SN_LAYER_MOVING)))
                return st;
            d = pfx_sub_shift(s, min_w);
        }
    }
    const bool blurred = d >= 0.5;
    if (blurred) {
        if (d > max_d) /* max_distortion: the shutter shortened for the farthest-moving actor */
            shutter *= max_d / d;
        /* the region the sub-frames can reach: a turning actor's arc bulges past its two ends'
        ** box by about a quarter of its shift, the jitter by a pixel */
        pfx_sub_begin(s, 2 + 0.25 * d);
        pfx_sub_add(s, 0, min_w, img->bgra, img->depth);
        /* a sub-frame per pixel of the (shortened) smear, at least 4 (the jitter's anti-aliasing),
        ** at most motion_blur_subframes */
        const double len = d * shutter / c->post.p.mb_intensity;
        uint32_t n = len + 2 < c->mb_k ? (uint32_t)len + 2 : c->mb_k;
        if (n < 4)
            n = c->mb_k < 4 ? c->mb_k : 4;
        for (uint32_t j = 1; j < n; j++) {
            const int64_t t = end - (int64_t)llround(shutter * (double)k->dt_ns * j / (n - 1));
            if ((st = pose_at(c, cam, t, start, &ck)))
                return st;
            /* R2 jitter in [-1/2, 1/2) px, 0 at j = 0 (that sub-frame is m0) */
            const double jx = fmod(0.5 + j * 0.7548776662466927, 1.0) - 0.5, jy = fmod(0.5 + j * 0.5698402909980532, 1.0) - 0.5;
            ck.transform.rotation.yaw += atan(jx / f) * 180 / M_PI;
            ck.transform.rotation.pitch += atan(jy / f) * 180 / M_PI;
            if ((st = h->render_layer_at(c->ctx, t, &ck, &mk, SN_LAYER_MOVING)))
                return st;
            pfx_sub_add(s, j, min_w, img->bgra, img->depth);
        }
        pfx_sub_end(s, n, img->bgra, img->bgra);
    } else if (seen && (st = h->render(c->ctx, cam, img))) { /* moving under half a pixel: the plain render */
        return st;
    }
    /* the camera's own motion over the still world, as Unreal's velocity blur would draw it: from
    ** every mb_div-th pixel's depth (the vectors are smooth), scaled back up */
    sn_transform prev;
    h->sensor_transform_prev(c->ctx, &prev);
    const uint32_t dv = c->mb_div, mw = c->w / dv, mh = c->h / dv;
    for (uint32_t y = 0; y < mh; y++)
        for (uint32_t x = 0; x < mw; x++)
            c->mb_depth[(size_t)y * mw + x] = img->depth[(size_t)(y * dv + dv / 2) * c->w + x * dv + dv / 2];
    const double mfov = 2 * atan(tan(c->fov * M_PI / 360) * mw * dv / c->w) * 180 / M_PI;
    pfx_velocity(NULL, &c->post.p, mw, mh, mfov, &cam->transform, &prev, c->mb_depth, NULL, NULL, c->mb_vel,
                 run_tasks, c);
    pfx_velocity_upsample(c->mb_vel, mw, mh, dv, c->vel, c->w, c->h);
    if (blurred)
        pfx_sub_mask_vel(s, c->vel);
    return SN_OK;
}

/* The frame's renders into c's buffers: the colour render (depth, tags and ids with it), and for
** motion blur the sub-frames or the motion render at 1/mb_div size (one_render: that render is
** the colour's too). *have_vel_out: blur vectors were made, in c->vel or, *vel_div > 1, c->mb_vel. */
static sn_status render_frame(camera *c, const sn_camera *cam, sn_image *img, bool one_render, bool *have_vel_out,
                              uint32_t *vel_div)
{
    sn_status st;
    bool have_vel = false;
    *vel_div = 1;
    /* motion blur's vectors bounded without drawing them: when nothing (the camera included)
    ** moved enough to shift a pixel a quarter of one, the blur would be nil (vectors under half a
    ** pixel blur nothing, postfx.c) and the motion render is skipped: the same bytes */
    bool still = false;
    if (c->blur && SN_HOST_HAS(c->host, scene_motion)) {
        double moved = c->host->scene_motion(c->ctx);
        sn_transform prev;
        c->host->sensor_transform_prev(c->ctx, &prev);
        still = moved < 1 && still_enough(c, &prev, &cam->transform, moved);
    }
    bool drawn = false;
    if (c->subframes && c->blur && !still) { /* motion blur from sub-frames: the image drawn in layers */
        sn_image li = *img;
        li.depth = c->rain_depth; /* the still layer's depth, for the composite's depth test */
        if ((st = subframe_render(c, cam, &li)))
            return st;
        drawn = have_vel = true;
    }
    /* motion blur: depth, ids and motion of a render at 1/mb_div size (colour too when that is all) */
    if (c->blur && !still && !c->subframes) {
        const uint32_t d = c->mb_div, mw = c->w / d, mh = c->h / d;
        sn_camera mc = *cam;
        mc.width = mw, mc.height = mh;
        mc.fov = d == 1 ? c->fov : 2 * atan(tan(c->fov * M_PI / 360) * mw * d / c->w) * 180 / M_PI;
        /* motion57: at a quarter size, the grid from the colour render's own samples (one a 4x4
        ** pixels' cell) where the host gives it, instead of a second render of the scene; the bytes
        ** move within test_postfx_quarter's bound. The exact half size keeps render_motion. */
        const bool grid = d == 4 && SN_HOST_HAS(c->host, render_motion_grid) && !c->mb_render;
        if (grid) {
            sn_motion_grid g = {sizeof g, d, c->mb_depth, c->mb_inst, c->mb_motion};
            st = c->host->render_motion_grid(c->ctx, cam, img, &g);
            drawn = st == SN_OK;
        } else {
            sn_image mi = {sizeof mi, c->mb_depth, one_render ? c->bgra : NULL, NULL, c->mb_inst, 1};
            st = c->host->render_motion(c->ctx, &mc, &mi, c->mb_motion);
        }
        if (st == SN_OK) {
            sn_transform prev;
            c->host->sensor_transform_prev(c->ctx, &prev);
            pfx_velocity(c->mb_ids, &c->post.p, mw, mh, mc.fov, &cam->transform, &prev, c->mb_depth, c->mb_inst,
                         c->mb_motion, d == 1 ? c->vel : c->mb_vel, run_tasks, c);
            /* the post-process reads the small vectors in place (pfx_apply_scaled) */
            *vel_div = d;
            have_vel = true;
        } else if (st != SN_E_UNSUPPORTED) { /* a test world's painter has no motion: no blur */
            return st;
        }
    }
    if (!drawn && (!have_vel || !one_render)) {
        st = c->host->render(c->ctx, cam, img);
        if (st)
            return st;
    }
    *have_vel_out = have_vel;
    return SN_OK;
}

/* The RGB camera's image from its colour render: CARLA's post-process (c->fx: exposure, motion
** blur from the vectors, bloom, tone curve...) or the colour conversion alone, then the falling
** rain over it, hidden behind what is nearer. */
static void rgb_image(camera *c, const sn_camera *cam, const sn_weather *wx, bool rain, bool have_vel, uint32_t vel_div,
                      bool one_render, uint8_t *raw)
{
    const size_t px = (size_t)c->w * c->h;
    if (c->fx) {
        const uint8_t *in = c->bgra;
        if (!cam_rgb_identity(&c->rgb)) {
            cam_rgb_apply(&c->rgb, c->bgra, c->fx_in);
            in = c->fx_in;
        }
        double dt = SN_HOST_HAS(c->host, tick_interval_ns) ? (double)c->host->tick_interval_ns(c->ctx) * 1e-9 : 0;
        const float *vel = !have_vel ? NULL : vel_div > 1 ? c->mb_vel : c->vel;
        pfx_apply_scaled(&c->post, in, vel, vel_div, dt, raw, run_tasks, c);
    } else {
        cam_rgb_apply(&c->rgb, c->bgra, raw);
    }
    if (rain) { /* falling rain over the image, hidden behind what is nearer (rain.h) */
        /* the depth of the colour render; the motion render's when it was the only one */
        const float *rd = have_vel && one_render ? c->mb_depth : c->rain_depth;
        if (c->rain_map) {
            for (size_t i = 0; i < px; i++)
                c->rain_depth_out[i] = c->rain_map[i] >= 0 ? rd[c->rain_map[i]] : 0.0f;
            rd = c->rain_depth_out;
        }
        rain_draw(raw, rd, c->w, c->h, c->fov, cam->transform.rotation, wx->precipitation, wx->wind_intensity,
                  c->host->random_u64(c->ctx));
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* CARLA's depth code four pixels at a time (save49: the byte loop was about 1.5 ms of a 1280x720
** frame, this 0.6): AVX2 doubles without FMA, so each divide, multiply and add rounds as the
** loop's do; n >= 1 clamps to 1, whose 16777215.5 truncates to the loop's white. A group with a
** negative or NaN depth is left to the loop. Returns the pixels done. */
__attribute__((target("avx2,no-fma"))) static size_t depth_code_avx2(const float *depth, size_t px, uint8_t *raw)
{
    const __m256d k = _mm256_set1_pd(1000.0), one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    const __m256d scale = _mm256_set1_pd(16777215.0), half = _mm256_set1_pd(0.5);
    const __m128i byte = _mm_set1_epi32(255), mid = _mm_set1_epi32(0xff00), alpha = _mm_set1_epi32((int)0xff000000u);
    size_t i = 0;
    for (; i + 4 <= px; i += 4) {
        __m256d n = _mm256_div_pd(_mm256_cvtps_pd(_mm_loadu_ps(depth + i)), k);
        if (_mm256_movemask_pd(_mm256_cmp_pd(n, zero, _CMP_GE_OQ)) != 15)
            break;
        __m128i d = _mm256_cvttpd_epi32(_mm256_add_pd(_mm256_mul_pd(_mm256_min_pd(n, one), scale), half));
        __m128i v = _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_srli_epi32(d, 16), byte), _mm_and_si128(d, mid)),
                                 _mm_or_si128(_mm_slli_epi32(_mm_and_si128(d, byte), 16), alpha));
        _mm_storeu_si128((__m128i *)(raw + 4 * i), v);
    }
    return i;
}
static size_t depth_code_fast(const float *depth, size_t px, uint8_t *raw)
{
    return __builtin_cpu_supports("avx2") ? depth_code_avx2(depth, px, raw) : 0;
}
#else
static size_t depth_code_fast(const float *depth, size_t px, uint8_t *raw)
{
    (void)depth, (void)px, (void)raw;
    return 0;
}
#endif

/* CARLA's depth image: 24 bits of depth / 1000 m in B, G, R (the vector path where it can, the
** loop for the rest and for any group it leaves). */
static void depth_code(const float *depth, size_t px, uint8_t *raw)
{
    for (size_t i = 0; i < px;) {
        i += depth_code_fast(depth + i, px - i, raw + 4 * i);
        for (size_t e = i + 4 < px ? i + 4 : px; i < e; i++) {
            double n = depth[i] / 1000.0;
            uint32_t d = n >= 1 ? 16777215u : (uint32_t)(n * 16777215.0 + 0.5);
            raw[4 * i + 0] = (uint8_t)(d >> 16);
            raw[4 * i + 1] = (uint8_t)(d >> 8);
            raw[4 * i + 2] = (uint8_t)d;
            raw[4 * i + 3] = 255;
        }
    }
}

/* The per-frame intermediates' pointers into a block lent for this tick (false: out of memory). */
static bool lend(camera *c)
{
    size_t off[S_N], total = 0;
    for (int k = 0; k < S_N; k++) {
        off[k] = total;
        total += (c->scr[k] + 63) / 64 * 64; /* each on its own cache lines */
    }
    if (!total)
        return true;
    void *m;
    if (!(c->lent = cam_scratch_take(total, &m)))
        return false;
    uint8_t *b = m;
#define AT(k) (c->scr[k] ? (void *)(b + off[k]) : NULL)
    c->bgra = AT(S_BGRA), c->fx_in = AT(S_FX_IN), c->rain_depth = AT(S_RAIN_DEPTH), c->rain_depth_out = AT(S_RAIN_OUT);
    c->mb_depth = AT(S_MB_DEPTH), c->mb_motion = AT(S_MB_MOTION), c->mb_inst = AT(S_MB_INST);
    c->mb_vel = AT(S_MB_VEL), c->vel = AT(S_VEL);
    if (c->fx)
        pfx_lend_tmp(&c->post, AT(S_PFX_TMP));
#undef AT
    return true;
}

/* The block back at the tick's end: nothing of it is read after. */
static void give_back(camera *c)
{
    cam_scratch_give(c->lent);
    c->lent = NULL;
    c->bgra = c->fx_in = NULL, c->rain_depth = c->rain_depth_out = NULL;
    c->mb_depth = c->mb_motion = c->mb_vel = c->vel = NULL, c->mb_inst = NULL;
    if (c->fx)
        pfx_lend_tmp(&c->post, NULL);
}

static sn_status tick_frame(camera *c);

static sn_status tick(void *self, sn_phase phase)
{
    camera *c = self;
    (void)phase;
    if (!lend(c)) {
        c->host->set_error(c->ctx, "out of memory for a %ux%u image", c->w, c->h);
        return SN_E_NOMEM;
    }
    sn_status st = tick_frame(c);
    give_back(c);
    return st;
}

/* The frame: rendered, then encoded into c->raw (or at serialize). */
static sn_status tick_frame(camera *c)
{
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {0, 0, 0}}, c->w, c->h, c->fov, NEAR_CLIP, c->max_depth};
    c->host->sensor_transform(c->ctx, &cam.transform);
    /* rain: the colour render also gives depth, which the streaks hide behind (rain.h) */
    sn_weather wx = {0};
    uint64_t wx_serial;
    if (c->kind == CAM_RGB && SN_HOST_HAS(c->host, weather))
        c->host->weather(c->ctx, &wx, &wx_serial);
    const bool rain = wx.precipitation > 0;
    sn_image img = {sizeof img, rain ? c->rain_depth : c->depth, c->bgra, c->tag, c->inst, c->aa};
    bool have_vel = false;
    uint32_t vel_div = 1; /* the blur vectors' pixel: c->vel's (1) or c->mb_vel's (mb_div) */
    const bool one_render = c->aa == 1 && c->mb_div == 1;
    sn_status st = render_frame(c, &cam, &img, one_render, &have_vel, &vel_div);
    if (st)
        return st;
    size_t px = (size_t)c->w * c->h;
    const float *depth = c->depth;
    const uint8_t *tag = c->tag;
    const uint32_t *inst = c->inst;
    if (c->map) {
        if (c->depth) {
            GATHER(float, c->depth, c->depth_out, 0.0f);
            depth = c->depth_out;
        }
        if (c->tag) {
            GATHER(uint8_t, c->tag, c->tag_out, 0);
            tag = c->tag_out;
        }
        if (c->inst) {
            GATHER(uint32_t, c->inst, c->inst_out, 0);
            inst = c->inst_out;
        }
    }
    uint8_t *raw = c->raw;
    switch (c->kind) {
    case CAM_DEPTH:
    case CAM_SEMANTIC:
        break; /* encoded by serialize, into the message itself (encode_in_place) */
    case CAM_RGB:
        rgb_image(c, &cam, &wx, rain, have_vel, vel_div, one_render, raw);
        break;
    case CAM_INSTANCE:
        for (size_t i = 0; i < px; i++) {
            raw[4 * i + 0] = (uint8_t)(inst[i] >> 8), raw[4 * i + 1] = (uint8_t)inst[i];
            raw[4 * i + 2] = tag[i], raw[4 * i + 3] = 255;
        }
        break;
    case CAM_NORMALS:
        encode_normals(c, depth, raw);
        break;
    }
    c->depth_ready = depth;
    c->tag_ready = tag;
    return SN_OK;
}

/* The depth and semantic images are encoded at serialize, not in tick: straight into the message
** where the host offers write_bin_room (ABI 1.6, fourth revision), which saves writing the image
** into c->raw and the host's copy of it (save50); into c->raw and through write_bin elsewhere.
** The same bytes either way; a frame nobody consumes is not encoded at all. */
static sn_status encode_in_place(camera *c, sn_writer *w, size_t px)
{
    const sn_host *h = c->host;
    uint8_t *raw = SN_HOST_HAS(h, write_bin_room) ? h->write_bin_room(w, px * 4) : c->raw;
    if (!raw)
        return SN_E_INVALID; /* the writer refused it and says why */
    if (c->kind == CAM_DEPTH) {
        depth_code(c->depth_ready, px, raw);
    } else {
        const uint8_t *tag = c->tag_ready;
        for (size_t i = 0; i < px; i++) {
            raw[4 * i + 0] = 0, raw[4 * i + 1] = 0, raw[4 * i + 2] = tag[i], raw[4 * i + 3] = 255;
        }
    }
    return raw == c->raw ? h->write_bin(w, raw, px * 4) : SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    camera *c = self;
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
    sn_status st = c->kind == CAM_DEPTH || c->kind == CAM_SEMANTIC ? encode_in_place(c, w, px)
                                                                    : h->write_bin(w, c->raw, px * 4);
    if (c->depth_float) {
        h->write_key(w, "depth");
        st = h->write_bin(w, c->depth_ready, px * sizeof(float));
    }
    return st;
}

#define CLASS(var, bp, doc_, attrs_, create_)                                      \
    static const sn_sensor_class var = {                                           \
        .hdr = SN_ABI_HEADER(sn_sensor_class),                                     \
        .blueprint = bp,                                                           \
        .doc = doc_,                                                               \
        .phases = SN_PHASE_POST,                                                   \
        SN_ATTR_TABLE(attrs_),                                                     \
        .create = create_,                                                         \
        .destroy = destroy,                                                        \
        .set = set,                                                                \
        .tick = tick,                                                              \
        .serialize = serialize,                                                    \
    }

CLASS(depth_class, "sensor.camera.depth", "planar depth, CARLA's 24-bit BGRA encoding over 1000 m", depth_attrs,
      create_depth);
CLASS(rgb_class, "sensor.camera.rgb", "colour image: Lambert shading under the scene's sun and ambient light",
      rgb_attrs, create_rgb);
CLASS(sem_class, "sensor.camera.semantic_segmentation", "semantic tag of each pixel in the red channel", image_attrs,
      create_sem);
CLASS(inst_class, "sensor.camera.instance_segmentation", "tag in red, actor id in green (low) and blue (high)",
      image_attrs, create_inst);
CLASS(normals_class, "sensor.camera.normals",
      "surface normals in the image frame (R right, G up, B toward the camera), from the depth image", image_attrs,
      create_normals);

static const sn_sensor_class *const classes[] = {&depth_class, &rgb_class, &sem_class, &inst_class, &normals_class};

SN_PLUGIN_EXPORT(library, "camera", "1.0.0", classes)
