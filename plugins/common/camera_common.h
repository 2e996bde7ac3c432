/* camera_common.h — what every camera plugin shares (plugins/camera, plugins/dvs): the attribute
** tables of CARLA's cameras (seed 003) with CARLA's defaults, the one-time warning for attributes
** accepted but not rendered yet, and the RGB camera's post-process (lens, vignette, gamma), so a
** camera-based sensor such as the DVS sees exactly the RGB camera's image. Compiled into each
** plugin (meson: files('../common/...')); plugins still see only <sensim/...> of the engine. */
#ifndef SN_COMMON_CAMERA_H
#define SN_COMMON_CAMERA_H

#include "lens.h"

#include <sensim/plugin.h>

/* Every camera: size, fov, tick and the lens (indices CAM_A_W..CAM_A_YS of every camera table). */
#define CAM_COMMON_ATTRS                                                                                        \
    {"image_size_x", SN_ATTR_INT, "800", NULL, NULL, true, 1, 16384, "px", "image width in pixels"},           \
    {"image_size_y", SN_ATTR_INT, "600", NULL, NULL, true, 1, 16384, "px", "image height in pixels"},          \
    {"fov", SN_ATTR_FLOAT, "90.0", NULL, NULL, false, 0, 0, "deg", "horizontal field of view, inside (0, 180)"}, \
    SN_ATTR_SENSOR_TICK("simulation seconds between captures"), \
    {"lens_circle_falloff", SN_ATTR_FLOAT, "5.0", NULL, NULL, true, 0, 10, NULL, "vignette falloff exponent"},  \
    {"lens_circle_multiplier", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 10, NULL,                            \
     "vignette strength (0: none; colour images only)"},                                                      \
    {"lens_k", SN_ATTR_FLOAT, LENS_DEFAULT_K, NULL, NULL, true, -1000, 1000, NULL,                                     \
     "quadratic radial distortion (0: pinhole; CARLA's default set k, kcube, sizes is a pinhole too)"},          \
    {"lens_kcube", SN_ATTR_FLOAT, LENS_DEFAULT_KCUBE, NULL, NULL, true, -1000, 1000, NULL, "cubic radial distortion"}, \
    {"lens_x_size", SN_ATTR_FLOAT, LENS_DEFAULT_SIZE, NULL, NULL, true, 0, 1, NULL,                              \
     "horizontal lens size in the distortion radius"},                                                         \
    {"lens_y_size", SN_ATTR_FLOAT, LENS_DEFAULT_SIZE, NULL, NULL, true, 0, 1, NULL,                              \
     "vertical lens size in the distortion radius"}

/* Docs of what sensim accepts and does not draw start with this; cam_warn_unrendered quotes them. */
#define CAM_NR "accepted, not rendered yet: "
#define CAM_RGB_FLOAT(name, def, doc) {name, SN_ATTR_FLOAT, def, NULL, NULL, false, 0, 0, NULL, CAM_NR doc}
/* A post-process attribute the RGB camera renders (plugins/common/postfx.c), with its range. */
#define CAM_FX(name, def, lo, hi, doc) {name, SN_ATTR_FLOAT, def, NULL, NULL, true, lo, hi, NULL, doc}
extern const char *const cam_exposure_modes[];

/* The RGB camera's own attributes, after CAM_COMMON_ATTRS: `gamma`, then CARLA's Unreal
** post-process with CARLA's defaults (indices CAM_A_UNRENDERED..CAM_A_RGB_END - 1), applied by
** postfx.c while enable_postprocess_effects is true; depth of field's (min_fstop, blade_count,
** focal_distance) and the atmospheric blur (blur_amount, blur_radius) are accepted, not drawn. */
#define CAM_RGB_ATTRS                                                                                           \
    {"gamma", SN_ATTR_FLOAT, "2.2", NULL, NULL, true, 0.1, 10, NULL,                                            \
     "target gamma: out = 255 (v/255)^(2.2/gamma), the rendered bytes taken as encoded for 2.2"},               \
    CAM_FX("bloom_intensity", "0.675", 0, 100, "glow around what the exposure saturates (0 disables it)"),     \
    CAM_FX("fstop", "1.4", 0.1, 1000, "aperture 1/fstop, for manual exposure"),                                \
    CAM_FX("iso", "100.0", 1, 1e6, "sensor sensitivity, for manual exposure"),                                 \
    CAM_FX("lens_flare_intensity", "0.1", 0, 100, "ghosts of saturated light mirrored through the centre (0 disables them)"), \
    CAM_FX("shutter_speed", "200.0", 0.01, 1e6, "shutter speed 1/s, for manual exposure"),                     \
    CAM_RGB_FLOAT("min_fstop", "1.2", "widest aperture of the lens"),                                          \
    {"blade_count", SN_ATTR_INT, "5", NULL, NULL, false, 0, 0, NULL, CAM_NR "diaphragm blades (depth-of-field bokeh)"}, \
    {"exposure_mode", SN_ATTR_ENUM, "histogram", NULL, cam_exposure_modes, false, 0, 0, NULL,                   \
     "manual (shutter_speed, iso, fstop) or histogram (automatic) exposure"},                                   \
    CAM_FX("exposure_compensation", "0.75", -15, 15, "exposure offset in stops (CARLA's Linux default; 0 on Windows)"), \
    CAM_FX("exposure_min_bright", "10.0", -10, 30, "lowest EV100 auto exposure adapts to"),                    \
    CAM_FX("exposure_max_bright", "12.0", -10, 30, "highest EV100 auto exposure adapts to"),                   \
    CAM_FX("exposure_speed_up", "3.0", 0, 1000, "adaptation speed to a brighter scene, stops per second"),     \
    CAM_FX("exposure_speed_down", "1.0", 0, 1000, "adaptation speed to a darker scene, stops per second"),     \
    CAM_FX("calibration_constant", "16.0", 0.01, 1000, "reflected-light meter constant K of auto exposure"),   \
    CAM_RGB_FLOAT("focal_distance", "1000.0", "distance in cm at which depth of field is sharp"),              \
    CAM_RGB_FLOAT("blur_amount", "1.0", "strength of the atmospheric blur"),                                   \
    CAM_RGB_FLOAT("blur_radius", "0.0", "atmospheric scattering blur radius in px at 1080p"),                  \
    CAM_FX("motion_blur_intensity", "0.45", 0, 1, "motion blur length, fraction of the last frame's motion"),  \
    CAM_FX("motion_blur_max_distortion", "0.35", 0, 100, "longest motion blur, % of screen width"),            \
    CAM_FX("motion_blur_min_object_screen_size", "0.1", 0, 100,                                                \
           "narrowest object, % of screen width, blurred by its own motion"),                                   \
    CAM_FX("slope", "0.88", 0.01, 10, "tone curve: steepness of its straight part"),                           \
    CAM_FX("toe", "0.55", 0, 1, "tone curve: dark tones"),                                                     \
    CAM_FX("shoulder", "0.26", 0, 1, "tone curve: bright tones"),                                              \
    CAM_FX("black_clip", "0.0", 0, 1, "tone curve: black cut-off"),                                            \
    CAM_FX("white_clip", "0.04", 0, 1, "tone curve: white cut-off"),                                           \
    CAM_FX("temp", "6500.0", 1500, 15000, "white balance: temperature of the light corrected for, K (lower: bluer image)"), \
    CAM_FX("tint", "0.0", -1, 1, "white balance tint along the isotherm"),                                     \
    CAM_FX("chromatic_aberration_intensity", "0.0", 0, 100, "colour fringes toward the border, % of the radius"), \
    CAM_FX("chromatic_aberration_offset", "0.0", 0, 0.99, "normalised radius where the fringes start"),        \
    {"enable_postprocess_effects", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL,                         \
     "CARLA's post-process (exposure, motion blur, bloom, lens flare, chromatic aberration, white balance, "    \
     "tone curve); false: the renderer's image with the lens and gamma only"}

enum { CAM_A_W, CAM_A_H, CAM_A_FOV, CAM_A_TICK, CAM_A_FALLOFF, CAM_A_MULT, CAM_A_K, CAM_A_KCUBE, CAM_A_XS, CAM_A_YS, CAM_A_COMMON };
enum { CAM_A_GAMMA = CAM_A_COMMON, CAM_A_UNRENDERED, CAM_A_RGB_END = CAM_A_UNRENDERED + 30 };

/* The lens attributes of a camera table's values. */
lens cam_lens(const sn_value *v);
/* One warning per attribute defs[from..to) set away from its default: a CARLA script's settings
** carry over, and the user learns which ones change nothing. all: every one (a sensor that draws
** none of them), else those whose doc starts with CAM_NR. */
void cam_warn_unrendered(const sn_host *h, sn_ctx *ctx, const sn_attr_def *defs, const sn_value *v, uint32_t from,
                         uint32_t to, bool all);

/* The RGB camera's image from the rendered one: lens (bilinear), vignette, then `gamma`. */
typedef struct cam_rgb {
    uint32_t w, h;
    lens_tap *taps; /* NULL for a pinhole */
    uint16_t *vig;  /* NULL for no vignette */
    uint8_t *gamma; /* 256-entry re-encoding, NULL at 2.2 */
    uint8_t *tmp;   /* the lens's output when vignette or gamma follow */
} cam_rgb;

/* false when out of memory (cam_rgb_free still applies). */
bool cam_rgb_init(cam_rgb *p, const lens *l, double gamma, uint32_t w, uint32_t h);
void cam_rgb_free(cam_rgb *p);
/* Whether cam_rgb_apply would copy the image unchanged. */
bool cam_rgb_identity(const cam_rgb *p);
/* out = the finished BGRA image of the rendered `in` (w x h; out != in). */
void cam_rgb_apply(const cam_rgb *p, const uint8_t *in, uint8_t *out);

#endif
