/* postfx.h — CARLA's camera post-processing (Unreal 4.26's, as the RGB camera's attributes set it)
** as one pass over the rendered image: motion blur, chromatic aberration, exposure (histogram auto
** exposure or manual from shutter speed, ISO and f-stop), white balance, bloom, lens flare, the
** filmic tone curve and the output gamma. docs/rendering.md "Post-processing" has the model, its
** units and what it approximates. Pure functions of the image, the attributes and the adapted
** exposure carried from frame to frame: deterministic. Compiled into the camera plugin; unit
** tested on synthetic images (tests/unit/test_postfx.c). */
#ifndef SN_COMMON_POSTFX_H
#define SN_COMMON_POSTFX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "postfx_meter.h"

/* The renderer's linear 1.0 in cd/m^2: the luminance auto exposure meters. Chosen so that at
** EV100 12 (CARLA's exposure_max_bright, where a sunlit street's exposure settles) the exposure
** scale is 1 and a rendered value keeps its size before compensation and the tone curve. */
#define PFX_LREF (1.2 * 4096.0)
#define PFX_LUT 8192 /* entries of the tone and encoding tables (square-root spaced) */
#define PFX_LUT_XMAX 64.0 /* largest exposed linear value the tone table resolves */

typedef struct pfx_params {
    bool manual;               /* exposure_mode manual, else histogram */
    double shutter_speed, iso, fstop;
    double compensation;       /* stops */
    double min_bright, max_bright; /* EV100 the auto exposure is clamped to */
    double speed_up, speed_down;   /* stops per second (Unreal: 1 - 2^(-dt speed) of the gap per frame) */
    double calibration;        /* reflected-light meter constant K */
    double bloom, flare;
    double mb_intensity, mb_max_distortion, mb_min_size; /* fraction of the frame; % of width; % of width */
    double slope, toe, shoulder, black_clip, white_clip;
    double temp, tint;
    double ca_intensity, ca_offset;
    double gamma;              /* output encoding: v^(1/gamma) */
} pfx_params;

/* Runs fn(arg, task) for tasks 0..n-1 (a host's parallel_for); each task writes its own rows. */
typedef void (*pfx_run_fn)(void *runner, void (*fn)(void *arg, uint32_t task), void *arg, uint32_t n);

typedef struct pfx {
    pfx_params p;
    uint32_t w, h, sw, sh, tw, th; /* image; the bloom image (an eighth a side); the wide bloom's (a 64th) */
    float *lin;               /* linear R, G and B planes (+4 floats of padding), decoded only for a frame that blurs */
    float *tmp; /* the motion blur's output, R, G and B planes (+4 floats); tile_rows' scratch before it */
    float *bright, *blur, *blur2; /* 3 floats a bloom pixel */
    float *tiny, *tiny2;      /* 3 floats a wide-bloom pixel */
    uint32_t *gx;             /* each column's left bloom pixel */
    float *gw, *grow;         /* its weight; a glow row a band (3 floats a bloom pixel) */
    float *gfull;             /* a band's row of glow at full width, 3 planes of w floats */
    int32_t *fsrc;            /* lens flare: each ghost's source bloom column a column (4 sw), then row a row (4 sh); -1 off */
    float *tile;              /* 2 floats a 16 px tile: the largest blur vector near it */
    float *speed;             /* a float a pixel: half its blur vector's length */
    struct pfx_taps *taps;    /* a tile's taps (postfx.c), one a tile */
    float dec[256];           /* 8-bit value, gamma 2.2 encoded -> linear */
    uint8_t tone8[PFX_LUT];   /* exposed linear (sqrt-spaced, 0..PFX_LUT_XMAX) -> output byte: curve and gamma */
    uint32_t *tcell;          /* tone8's bytes by the value's float bits (postfx_tone.h); NULL: the square root */
    uint32_t tbase, ttop, tshift; /* the cells' first and last bits; a cell is 2^tshift of them */
    double wb[9];             /* white balance, linear sRGB, row-major */
    pfx_meter meter;          /* auto exposure's bins by thresholds (postfx_meter.h) */
    bool adapted;             /* ev holds last frame's adapted exposure */
    double ev;                /* adapted EV100 */
    double scale;             /* linear multiplier of the last frame (exposure and compensation) */
    double target_ev;         /* the last frame's metered EV100 after the clamp (auto), or manual's */
    /* per frame, for the tasks */
    const uint8_t *in;
    const float *vel;
    uint32_t vel_div; /* vel's pixel: vel_div x vel_div image pixels (pfx_apply_scaled) */
    uint8_t *out;
    bool blur_now;
    float tile_maxy;          /* the tiles' largest |y| of a blur vector (how far a tap's row can be) */
    bool banded;              /* the gather decodes a band's rows into a band's buffer (postfx.c), else lin whole */
    bool whole;               /* always decode the whole image first (tests: the bands' bytes against it) */
    uint32_t slot_rows, nslot; /* a band buffer's rows, how many fit in lin */
    struct pfx_slots *slots;  /* which band buffers are in use */
    uint32_t *bhist;          /* auto exposure's histogram of each band's samples (postfx.c meter_band) */
    bool avx2;                /* the final pass in AVX2 lanes (the same bytes; postfx.c) */
    bool mb;                  /* the motion blur's buffers are made (tmp lent or made) */
    bool tmp_lent;            /* tmp is the caller's, lent to each frame (pfx_lend_tmp) */
} pfx;

/* Sets up the tables and buffers for w x h (motion blur buffers only when it can act). false
** when out of memory (pfx_free still applies). */
bool pfx_init(pfx *x, const pfx_params *p, uint32_t w, uint32_t h);
void pfx_free(pfx *x);
/* pfx_init; with lend_tmp the motion blur's image (tmp, written and read within one frame) is not
** made here but lent by the caller to each frame, so that cameras of engines stepped in turn can
** share one (eng61). */
bool pfx_init_lent(pfx *x, const pfx_params *p, uint32_t w, uint32_t h, bool lend_tmp);
/* The bytes that image takes (0: made by pfx_init, or no motion blur: nothing to lend). */
size_t pfx_tmp_bytes(const pfx *x);
/* tmp (pfx_tmp_bytes long) as this frame's motion blur image, its padding zeroed here; NULL
** takes it back. Without it a frame does not blur. Nothing when tmp is not lent. */
void pfx_lend_tmp(pfx *x, float *tmp);

/* Whether motion blur needs a velocity buffer (intensity and distortion above 0). */
bool pfx_wants_velocity(const pfx *x);

/* The finished BGRA image `out` of the rendered BGRA `in` (bytes taken as gamma 2.2). vel: NULL
** or 2 floats a pixel, the blur vector in pixels (pfx_velocity's); dt: seconds since the
** previous frame (auto exposure's adaptation); run: NULL runs the tasks in order. */
void pfx_apply(pfx *x, const uint8_t *in, const float *vel, double dt, uint8_t *out, pfx_run_fn run, void *runner);

/* pfx_apply with vel at 1/d size a side ((w / d) x (h / d) vectors, in the small image's pixels):
** the bytes pfx_apply gives with pfx_velocity_upsample's image-sized vectors (each image pixel
** the nearest small one's vector times d), read in place instead of copied. d = 1: pfx_apply. */
void pfx_apply_scaled(pfx *x, const uint8_t *in, const float *vel, uint32_t d, double dt, uint8_t *out, pfx_run_fn run,
                      void *runner);

/* The filmic tone curve of p at linear x (Unreal's FilmToneMap per channel), display linear. */
double pfx_tone_curve(const pfx_params *p, double x);
/* The white balance matrix for temp and tint (Unreal's WhiteBalance), linear sRGB row-major. */
void pfx_white_balance(double temp, double tint, double m[9]);
/* Manual exposure's EV100 from f-stop, shutter speed (1/s) and ISO. */
double pfx_manual_ev(const pfx_params *p);

#endif
