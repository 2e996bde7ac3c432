/*
** sensor.camera.depth, .rgb, .semantic_segmentation, .instance_segmentation — CARLA's
** cameras on the engine's CPU renderer (host->render, ABI 1.1).
**
** Every tick the camera renders the world from its pose, applies the lens post-process
** (lens.h) and encodes the image as CARLA does, BGRA row-major in `raw_data`:
**   depth     planar metres over 1000 m in 24 bits: d = round(depth / 1000 * (2^24 - 1)),
**             R = d & 255, G = (d >> 8) & 255, B = d >> 16 (R least significant), A = 255
**   rgb       Lambert-shaded actor colours under the scene's sun and ambient light, re-encoded
**             for the camera's `gamma` (the renderer's bytes are taken as encoded for 2.2)
**   semantic  R = semantic tag, G = B = 0
**   instance  R = semantic tag, G = actor id & 255, B = (actor id >> 8) & 255
** Message keys after the header: width, height, fov, raw_data; the depth camera with
** depth_float also writes `depth`, W*H little-endian float32 metres (no 24-bit step).
** Buffers are allocated in set() for the image size and reused every frame.
**
** Every attribute of CARLA's cameras (seed 003) is accepted with CARLA's default and type, so a
** CARLA script's blueprint settings carry over. Those sensim does not render yet (the RGB
** camera's Unreal post-process: bloom, exposure, motion blur, tone mapping, ...) say so in
** their doc and log one warning each when a scene sets them away from the default.
*/
#include "lens.h"

#include <sensim/plugin.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CAM_DEPTH, CAM_RGB, CAM_SEMANTIC, CAM_INSTANCE } cam_kind;

#define NEAR_CLIP 0.01 /* metres: nearer surfaces are cut away */

#define COMMON_ATTRS                                                                                          \
    {"image_size_x", SN_ATTR_INT, "800", NULL, NULL, true, 1, 16384, "px", "image width in pixels"},           \
    {"image_size_y", SN_ATTR_INT, "600", NULL, NULL, true, 1, 16384, "px", "image height in pixels"},          \
    {"fov", SN_ATTR_FLOAT, "90.0", NULL, NULL, false, 0, 0, "deg", "horizontal field of view, inside (0, 180)"}, \
    {"sensor_tick", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 3600, "s", "simulation seconds between captures"}, \
    {"lens_circle_falloff", SN_ATTR_FLOAT, "5.0", NULL, NULL, true, 0, 10, NULL, "vignette falloff exponent"},  \
    {"lens_circle_multiplier", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 10, NULL,                            \
     "vignette strength (0: none; colour images only)"},                                                      \
    {"lens_k", SN_ATTR_FLOAT, LENS_DEFAULT_K, NULL, NULL, false, 0, 0, NULL,                                     \
     "quadratic radial distortion (0: pinhole; CARLA's default set k, kcube, sizes is a pinhole too)"},          \
    {"lens_kcube", SN_ATTR_FLOAT, LENS_DEFAULT_KCUBE, NULL, NULL, false, 0, 0, NULL, "cubic radial distortion"}, \
    {"lens_x_size", SN_ATTR_FLOAT, LENS_DEFAULT_SIZE, NULL, NULL, true, 0, 1, NULL,                              \
     "horizontal lens size in the distortion radius"},                                                         \
    {"lens_y_size", SN_ATTR_FLOAT, LENS_DEFAULT_SIZE, NULL, NULL, true, 0, 1, NULL,                              \
     "vertical lens size in the distortion radius"}

enum { A_W, A_H, A_FOV, A_TICK, A_FALLOFF, A_MULT, A_K, A_KCUBE, A_XS, A_YS, A_COMMON };
enum { A_MAX_DEPTH = A_COMMON, A_DEPTH_FLOAT };
enum { A_GAMMA = A_COMMON, A_IGNORED_FROM };

static const sn_attr_def depth_attrs[] = {
    COMMON_ATTRS,
    {"max_depth", SN_ATTR_FLOAT, "1000.0", NULL, NULL, true, 0.02, 1000000, "m",
     "far plane: farther surfaces read as max_depth (the encoding stays over 1000 m)"},
    {"depth_float", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "also write `depth`, float32 metres per pixel, with no 24-bit step"},
};
static const sn_attr_def image_attrs[] = {COMMON_ATTRS};

/* Docs of what sensim accepts and does not draw start with this, and set() warns with the rest. */
#define NR "accepted, not rendered yet: "
static const char *const exposure_modes[] = {"manual", "histogram", NULL};
#define RGB_FLOAT(name, def, doc) {name, SN_ATTR_FLOAT, def, NULL, NULL, false, 0, 0, NULL, NR doc}
static const sn_attr_def rgb_attrs[] = {
    COMMON_ATTRS,
    {"gamma", SN_ATTR_FLOAT, "2.2", NULL, NULL, true, 0.1, 10, NULL,
     "target gamma: out = 255 (v/255)^(2.2/gamma), the rendered bytes taken as encoded for 2.2"},
    /* From here on: CARLA's Unreal post-process, accepted with CARLA's defaults (seed 003). */
    RGB_FLOAT("bloom_intensity", "0.675", "intensity of the bloom around bright light (0 disables it)"),
    RGB_FLOAT("fstop", "1.4", "aperture 1/fstop, for depth of field and manual exposure"),
    RGB_FLOAT("iso", "100.0", "sensor sensitivity, for manual exposure"),
    RGB_FLOAT("lens_flare_intensity", "0.1", "intensity of lens flares (0 disables them)"),
    RGB_FLOAT("shutter_speed", "200.0", "shutter speed 1/s, for manual exposure and motion blur"),
    RGB_FLOAT("min_fstop", "1.2", "widest aperture of the lens"),
    {"blade_count", SN_ATTR_INT, "5", NULL, NULL, false, 0, 0, NULL, NR "diaphragm blades (depth-of-field bokeh)"},
    {"exposure_mode", SN_ATTR_ENUM, "histogram", NULL, exposure_modes, false, 0, 0, NULL,
     NR "manual or histogram (automatic) exposure"},
    RGB_FLOAT("exposure_compensation", "0.75", "exposure offset in stops (CARLA's Linux default; 0 on Windows)"),
    RGB_FLOAT("exposure_min_bright", "10.0", "lowest brightness auto exposure adapts to"),
    RGB_FLOAT("exposure_max_bright", "12.0", "highest brightness auto exposure adapts to"),
    RGB_FLOAT("exposure_speed_up", "3.0", "adaptation speed from dark to bright"),
    RGB_FLOAT("exposure_speed_down", "1.0", "adaptation speed from bright to dark"),
    RGB_FLOAT("calibration_constant", "16.0", "calibration constant for 18 % albedo"),
    RGB_FLOAT("focal_distance", "1000.0", "distance in cm at which depth of field is sharp"),
    RGB_FLOAT("blur_amount", "1.0", "strength of motion blur"),
    RGB_FLOAT("blur_radius", "0.0", "atmospheric scattering blur radius in px at 1080p"),
    RGB_FLOAT("motion_blur_intensity", "0.45", "strength of motion blur [0, 1]"),
    RGB_FLOAT("motion_blur_max_distortion", "0.35", "largest motion-blur distortion, % of screen width"),
    RGB_FLOAT("motion_blur_min_object_screen_size", "0.1", "smallest object, % of screen width, that gets motion blur"),
    RGB_FLOAT("slope", "0.88", "tone mapper S-curve steepness"),
    RGB_FLOAT("toe", "0.55", "tone mapper dark tones"),
    RGB_FLOAT("shoulder", "0.26", "tone mapper bright tones"),
    RGB_FLOAT("black_clip", "0.0", "tone mapper black cut-off"),
    RGB_FLOAT("white_clip", "0.04", "tone mapper white cut-off"),
    RGB_FLOAT("temp", "6500.0", "white balance temperature, K"),
    RGB_FLOAT("tint", "0.0", "white balance tint (cyan-magenta)"),
    RGB_FLOAT("chromatic_aberration_intensity", "0.0", "colour shift toward the image border"),
    RGB_FLOAT("chromatic_aberration_offset", "0.0", "normalised distance from the centre where the shift starts"),
    {"enable_postprocess_effects", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL,
     NR "Unreal's vignette, grain, bloom, auto exposure, lens flares and depth of field; sensim draws none of "
        "them, so its images are those of false"},
};
#define N_RGB_ATTRS (sizeof rgb_attrs / sizeof rgb_attrs[0])

typedef struct camera {
    const sn_host *host;
    sn_ctx *ctx;
    cam_kind kind;
    uint32_t w, h;
    double fov, max_depth;
    bool depth_float;
    lens lens;
    int32_t *map;   /* lens pixel map (nearest), NULL for a pinhole or a colour camera */
    lens_tap *taps; /* lens pixel map (bilinear) of the colour camera, NULL for a pinhole */
    uint16_t *vig;  /* vignette, NULL for none */
    uint8_t *gamma; /* 256-entry re-encoding for `gamma`, NULL at 2.2 */
    float *depth, *depth_out;
    uint8_t *bgra, *bgra_out, *tag, *tag_out;
    uint32_t *inst, *inst_out;
    uint8_t *raw;   /* the encoded image */
    const float *depth_ready; /* this tick's depth after the lens: depth or depth_out */
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

static void free_buffers(camera *c)
{
    free(c->map), free(c->taps), free(c->gamma), free(c->vig), free(c->depth), free(c->depth_out), free(c->bgra), free(c->bgra_out);
    free(c->tag), free(c->tag_out), free(c->inst), free(c->inst_out), free(c->raw);
}

static void destroy(void *self)
{
    camera *c = self;
    if (c)
        free_buffers(c);
    free(c);
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

/* One warning per attribute sensim accepts but does not apply, when set away from its default:
** a CARLA script's settings carry over, and the user learns which ones change nothing. */
static void warn_ignored(camera *c, const sn_value *v, uint32_t n)
{
    const sn_host *h = c->host;
    if (c->kind != CAM_RGB && v[A_MULT].f != 0)
        h->log(c->ctx, SN_LOG_WARN, "attribute 'lens_circle_multiplier' = %g has no effect: the vignette darkens "
               "colour images only, so depth, tags and ids stay exact", v[A_MULT].f);
    if (c->kind != CAM_RGB)
        return;
    for (uint32_t k = A_IGNORED_FROM; k < n && k < N_RGB_ATTRS; k++) {
        const sn_attr_def *d = &rgb_attrs[k];
        if (is_default(d, &v[k]))
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
        h->log(c->ctx, SN_LOG_WARN, "attribute '%s' = %s changes nothing: %s", d->name, val, d->doc);
    }
}

/* Re-encodes the rendered bytes (taken as encoded for gamma 2.2) for the target gamma. */
static uint8_t *gamma_table(double gamma)
{
    if (gamma == 2.2)
        return NULL;
    uint8_t *t = malloc(256);
    for (int i = 0; t && i < 256; i++)
        t[i] = (uint8_t)lround(255 * pow(i / 255.0, 2.2 / gamma));
    return t;
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    camera *c = self;
    c->w = (uint32_t)v[A_W].i;
    c->h = (uint32_t)v[A_H].i;
    c->fov = v[A_FOV].f;
    if (!(c->fov > 0 && c->fov < 180)) {
        c->host->set_error(c->ctx, "fov %g: must be inside (0, 180) degrees", c->fov);
        return SN_E_RANGE;
    }
    c->lens = (lens){v[A_K].f, v[A_KCUBE].f, v[A_XS].f, v[A_YS].f, v[A_FALLOFF].f, v[A_MULT].f};
    c->max_depth = 1000;
    if (c->kind == CAM_DEPTH) {
        c->max_depth = v[A_MAX_DEPTH].f;
        c->depth_float = v[A_DEPTH_FLOAT].b;
    }
    warn_ignored(c, v, n);
    size_t px = (size_t)c->w * c->h;
    bool identity = !lens_distorts(&c->lens), oom1 = false, oom2 = false;
    if (c->kind == CAM_RGB) {
        c->taps = lens_taps(&c->lens, c->w, c->h, &oom1);
        c->vig = lens_vignette(&c->lens, c->w, c->h, &oom2);
        if (!oom1 && !oom2 && v[A_GAMMA].f != 2.2 && !(c->gamma = gamma_table(v[A_GAMMA].f)))
            oom2 = true;
    } else {
        c->map = lens_map(&c->lens, c->w, c->h, &oom1);
    }
    bool ok = !oom1 && !oom2 && (c->raw = malloc(px * 4));
    /* what each kind renders; a second buffer receives the lens gather */
    if (ok && c->kind == CAM_DEPTH)
        ok = (c->depth = malloc(px * sizeof(float))) && (identity || (c->depth_out = malloc(px * sizeof(float))));
    if (ok && c->kind == CAM_RGB)
        ok = (c->bgra = malloc(px * 4)) && (identity || (c->bgra_out = malloc(px * 4)));
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

static sn_status tick(void *self, sn_phase phase)
{
    camera *c = self;
    (void)phase;
    sn_camera cam = {sizeof cam, {{0, 0, 0}, {0, 0, 0}}, c->w, c->h, c->fov, NEAR_CLIP, c->max_depth};
    c->host->sensor_transform(c->ctx, &cam.transform);
    sn_image img = {sizeof img, c->depth, c->bgra, c->tag, c->inst};
    sn_status st = c->host->render(c->ctx, &cam, &img);
    if (st)
        return st;
    size_t px = (size_t)c->w * c->h;
    const float *depth = c->depth;
    const uint8_t *bgra = c->bgra, *tag = c->tag;
    const uint32_t *inst = c->inst;
    if (c->taps) {
        lens_resample_bgra(c->taps, c->bgra, c->bgra_out, c->w, c->h);
        bgra = c->bgra_out;
    }
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
        for (size_t i = 0; i < px; i++) {
            double n = depth[i] / 1000.0;
            uint32_t d = n >= 1 ? 16777215u : (uint32_t)(n * 16777215.0 + 0.5);
            raw[4 * i + 0] = (uint8_t)(d >> 16);
            raw[4 * i + 1] = (uint8_t)(d >> 8);
            raw[4 * i + 2] = (uint8_t)d;
            raw[4 * i + 3] = 255;
        }
        break;
    case CAM_RGB:
        if (c->vig) {
            for (size_t i = 0; i < px; i++) {
                for (int k = 0; k < 3; k++)
                    raw[4 * i + k] = (uint8_t)((bgra[4 * i + k] * (uint32_t)c->vig[i] + 128) >> 8);
                raw[4 * i + 3] = 255;
            }
        } else {
            memcpy(raw, bgra, px * 4);
        }
        if (c->gamma)
            for (size_t i = 0; i < px; i++)
                for (int k = 0; k < 3; k++)
                    raw[4 * i + k] = c->gamma[raw[4 * i + k]];
        break;
    case CAM_SEMANTIC:
        for (size_t i = 0; i < px; i++) {
            raw[4 * i + 0] = 0, raw[4 * i + 1] = 0, raw[4 * i + 2] = tag[i], raw[4 * i + 3] = 255;
        }
        break;
    case CAM_INSTANCE:
        for (size_t i = 0; i < px; i++) {
            raw[4 * i + 0] = (uint8_t)(inst[i] >> 8), raw[4 * i + 1] = (uint8_t)inst[i];
            raw[4 * i + 2] = tag[i], raw[4 * i + 3] = 255;
        }
        break;
    }
    c->depth_ready = depth;
    return SN_OK;
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
    sn_status st = h->write_bin(w, c->raw, px * 4);
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
        .attrs = attrs_,                                                           \
        .n_attrs = sizeof attrs_ / sizeof attrs_[0],                               \
        .attr_def_size = sizeof(sn_attr_def),                                      \
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

static const sn_sensor_class *const classes[] = {&depth_class, &rgb_class, &sem_class, &inst_class};

static const sn_plugin_lib library = {
    .hdr = SN_ABI_HEADER(sn_plugin_lib),
    .name = "camera",
    .version = "1.0.0",
    .n_classes = 4,
    .classes = classes,
};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &library : NULL;
}
