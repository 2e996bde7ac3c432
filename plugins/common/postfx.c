/* postfx.c — CARLA's camera post-processing as one pass on the rendered image (postfx.h). */
#include "postfx.h"
#include "postfx_tables.h"
#include "postfx_tone.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif
/* PFX_PORTABLE: built without the AVX2 code, as every other CPU and compiler builds it
** (tests/meson.build's postfx_portable keeps that build compiling and checked) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(PFX_PORTABLE)
#include <immintrin.h>
#define PFX_AVX2 1 /* the final pass and the gather in AVX2 lanes where the CPU has them (final_eight, blur_eight) */
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
#endif

#define BAND 16  /* rows per task */
#define TILE 16  /* motion blur's tile, px */
#define MB_TAPS 12 /* largest number of samples along a blur vector */
#define HIST_BINS PFX_HIST_BINS /* postfx_meter.h: 0.25-EV bins from EV100 -8 */
#define HIST_LO PFX_HIST_LO
#define HIST_STEP PFX_HIST_STEP
#define LOW_PCT 0.80  /* Unreal 4.26's AutoExposureLowPercent, HighPercent */
#define HIGH_PCT 0.983
#define DESAT (0.96f * 0.93f)
#define BLOOM_DOWN 8 /* bloom and flare work on an eighth of the image a side */
#define SLOT_ROWS (BAND + 2 * 24) /* a band's buffer: its rows and up to 24 each side that its taps reach */
#define SLOTS 32 /* at most this many band buffers (tasks at once) */

/* The band buffers' claims (blur_band): a flag each, and the image rows [lo, hi) each holds
** decoded this frame (lo == hi: none; read and written only by the slot's holder). */
struct pfx_slots {
    atomic_flag busy[SLOTS];
    uint32_t lo[SLOTS], hi[SLOTS];
};

/* A tile's taps for blur_band: made once a tile from the tile's vector alone. */
typedef struct pfx_taps {
    int n;                          /* taps; -1: the tile does not blur (copied) */
    float ay[MB_TAPS + 1], dist[MB_TAPS + 1];
    int8_t col[MB_TAPS + 1][TILE];  /* each tap's source column for each of the tile's columns, less x0; -128 off the image */
    bool run[MB_TAPS + 1][TILE / 8]; /* the tap's sources for columns 8g .. 8g + 7 are 8 adjacent image columns */
    bool runs[TILE / 8];             /* run[k][g] for every tap k: then for every live subset of them */
} pfx_taps;

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

double pfx_manual_ev(const pfx_params *p)
{
    /* EV100 = log2(N^2 / t * 100 / S), t = 1 / shutter_speed */
    return log2(p->fstop * p->fstop * p->shutter_speed * 100.0 / p->iso);
}

double pfx_tone_curve(const pfx_params *p, double x)
{
    /* Unreal 4.26 FilmToneMap (TonemapCommon.ush), the per-channel curve: a logistic toe, a
    ** straight segment of `slope` in log10 and a logistic shoulder, matched so 0.18 maps to 0.18. */
    const double slope = p->slope, toe = p->toe, shoulder = p->shoulder, bc = p->black_clip, wc = p->white_clip;
    if (!(x > 0))
        return fmax(0, -bc);
    const double ts = 1 + bc - toe, ss = 1 + wc - shoulder, in_m = 0.18, out_m = 0.18;
    double toe_m;
    if (toe > 0.8) {
        toe_m = (1 - toe - out_m) / slope + log10(in_m);
    } else {
        double bt = (out_m + bc) / ts - 1;
        toe_m = log10(in_m) - 0.5 * log((1 + bt) / (1 - bt)) * (ts / slope);
    }
    const double straight_m = (1 - toe) / slope - toe_m, shoulder_m = shoulder / slope - straight_m;
    const double lc = log10(x), straight = slope * (lc + straight_m);
    double tc = -bc + (2 * ts) / (1 + exp((-2 * slope / ts) * (lc - toe_m)));
    double sc = (1 + wc) - (2 * ss) / (1 + exp((2 * slope / ss) * (lc - shoulder_m)));
    tc = lc < toe_m ? tc : straight;
    sc = lc > shoulder_m ? sc : straight;
    double t = clampd((lc - toe_m) / (shoulder_m - toe_m), 0, 1);
    t = shoulder_m < toe_m ? 1 - t : t;
    t = (3 - 2 * t) * t * t;
    return fmax(0, tc + (sc - tc) * t);
}

/* CIE xy of CIE daylight at temperature t (Unreal's D_IlluminantChromaticity). */
static void daylight_xy(double t, double *x, double *y)
{
    double o = 1 / t;
    *x = t <= 7000 ? 0.244063 + (0.09911e3 + (2.9678e6 - 4.6070e9 * o) * o) * o
                   : 0.237040 + (0.24748e3 + (1.9018e6 - 2.0064e9 * o) * o) * o;
    *y = -3 * *x * *x + 2.87 * *x - 0.275;
}

/* CIE 1960 uv of the Planckian locus at t (Krystek's fit, Unreal's PlanckianLocusChromaticity). */
static void planck_uv(double t, double *u, double *v)
{
    *u = (0.860117757 + 1.54118254e-4 * t + 1.28641212e-7 * t * t) / (1 + 8.42420235e-4 * t + 7.08145163e-7 * t * t);
    *v = (0.317398726 + 4.22806245e-5 * t + 4.20481691e-8 * t * t) / (1 - 2.89741816e-5 * t + 1.61456053e-7 * t * t);
}

static void uv_to_xy(double u, double v, double *x, double *y)
{
    double d = 2 * u - 8 * v + 4;
    *x = 3 * u / d, *y = 2 * v / d;
}

static void mat_mul(const double a[9], const double b[9], double o[9])
{
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(o, r, sizeof r);
}

void pfx_white_balance(double temp, double tint, double m[9])
{
    static const double srgb_xyz[9] = {0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
                                       0.0721750, 0.0193339, 0.1191920, 0.9503041};
    static const double xyz_srgb[9] = {3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108,
                                       0.0415560,  0.0556434,  -0.2040259, 1.0572252};
    static const double brad[9] = {0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296};
    static const double brad_inv[9] = {0.9869929, -0.1470543, 0.1599627, 0.4323053, 0.5183603,
                                       0.0492912, -0.0085287, 0.0400428, 0.9684867};
    /* the light the camera corrects for: daylight above 4000 K, the Planckian locus below, moved
    ** along the isotherm by tint (+-1 spans +-0.05 in uv) */
    double sx, sy, pu, pv, px, py;
    planck_uv(temp, &pu, &pv);
    uv_to_xy(pu, pv, &px, &py);
    if (temp < 4000)
        sx = px, sy = py;
    else
        daylight_xy(temp, &sx, &sy);
    const double t = temp;
    double ud = (-1.13758118e9 - 1.91615621e6 * t - 1.53177 * t * t) /
                ((1.41213984e6 + 1189.62 * t + t * t) * (1.41213984e6 + 1189.62 * t + t * t));
    double vd = (1.97471536e9 - 705674.0 * t - 308.607 * t * t) /
                ((6.19363586e6 - 179.456 * t + t * t) * (6.19363586e6 - 179.456 * t + t * t));
    double len = sqrt(ud * ud + vd * vd);
    if (len > 0)
        ud /= len, vd /= len;
    double iu = pu - vd * tint * 0.05, iv = pv + ud * tint * 0.05, ix, iy;
    uv_to_xy(iu, iv, &ix, &iy);
    sx += ix - px, sy += iy - py;
    /* von Kries in Bradford's cone space from that white to D65 */
    const double dx = 0.31270, dy = 0.32900;
    double sw[3] = {sx / sy, 1, (1 - sx - sy) / sy}, dw[3] = {dx / dy, 1, (1 - dx - dy) / dy};
    double sl[3], dl[3];
    for (int i = 0; i < 3; i++) {
        sl[i] = brad[3 * i] * sw[0] + brad[3 * i + 1] * sw[1] + brad[3 * i + 2] * sw[2];
        dl[i] = brad[3 * i] * dw[0] + brad[3 * i + 1] * dw[1] + brad[3 * i + 2] * dw[2];
    }
    double d[9] = {dl[0] / sl[0], 0, 0, 0, dl[1] / sl[1], 0, 0, 0, dl[2] / sl[2]}, a[9];
    mat_mul(d, brad, a);
    mat_mul(brad_inv, a, a);
    mat_mul(a, srgb_xyz, a);
    mat_mul(xyz_srgb, a, m);
}

void pfx_tables_compute(pfx *x)
{
    const pfx_params *p = &x->p;
    for (int i = 0; i < 256; i++)
        x->dec[i] = (float)pow(i / 255.0, 2.2);
    for (int i = 0; i < PFX_LUT; i++) {
        double s = (double)i / (PFX_LUT - 1);
        double t = fmin(1, pfx_tone_curve(p, s * s * PFX_LUT_XMAX));
        x->tone8[i] = (uint8_t)lround(255.0 * pow(t, 1.0 / p->gamma));
    }
    pfx_tone_cells(x); /* false: the final pass takes the square root */
    pfx_meter_init(&x->meter, log2(PFX_LREF * 100.0 / p->calibration)); /* false: log2 a sample */
    pfx_white_balance(p->temp, p->tint, x->wb);
}

static void flare_init(pfx *x);
bool pfx_init(pfx *x, const pfx_params *p, uint32_t w, uint32_t h) { return pfx_init_lent(x, p, w, h, false); }

bool pfx_init_lent(pfx *x, const pfx_params *p, uint32_t w, uint32_t h, bool lend_tmp)
{
    memset(x, 0, sizeof *x);
    x->p = *p;
    x->tmp_lent = lend_tmp;
    x->w = w, x->h = h;
    x->sw = (w + BLOOM_DOWN - 1) / BLOOM_DOWN, x->sh = (h + BLOOM_DOWN - 1) / BLOOM_DOWN;
    x->tw = (x->sw + BLOOM_DOWN - 1) / BLOOM_DOWN, x->th = (x->sh + BLOOM_DOWN - 1) / BLOOM_DOWN;
    pfx_tables_fill(x);
#ifdef PFX_AVX2
    __builtin_cpu_init();
    x->avx2 = __builtin_cpu_supports("avx2");
#endif
    if ((x->gx = malloc(w * sizeof *x->gx)) && (x->gw = malloc(w * sizeof *x->gw)))
        for (uint32_t i = 0; i < w; i++) { /* each column's bloom pixel pair and weight */
            float fx = ((float)i + 0.5f) / BLOOM_DOWN - 0.5f;
            fx = fx < 0 ? 0 : fx;
            x->gx[i] = (uint32_t)fx, x->gw[i] = fx - (float)x->gx[i];
        }
    size_t px = (size_t)w * h, spx = (size_t)x->sw * x->sh;
    size_t tiles = (size_t)((w + TILE - 1) / TILE) * ((h + TILE - 1) / TILE);
    bool ok = x->gx && x->gw && (x->grow = malloc((size_t)((h + BAND - 1) / BAND) * x->sw * 3 * sizeof(float))) &&
              (x->gfull = malloc((size_t)((h + BAND - 1) / BAND) * w * 3 * sizeof(float))) &&
              (x->lin = malloc((px * 3 + 4) * sizeof(float))) && (x->bright = malloc(spx * 3 * sizeof(float))) &&
              (x->blur = malloc(spx * 3 * sizeof(float))) && (x->blur2 = malloc(spx * 3 * sizeof(float))) &&
              (x->tiny = malloc((size_t)x->tw * x->th * 3 * sizeof(float))) &&
              (x->tiny2 = malloc((size_t)x->tw * x->th * 3 * sizeof(float))) &&
              (x->fsrc = malloc(4 * ((size_t)x->sw + x->sh) * sizeof *x->fsrc));
    if (ok)
        flare_init(x);
    if (ok && pfx_wants_velocity(x))
        ok = x->mb = (x->tmp_lent || (x->tmp = malloc((px * 3 + 4) * sizeof(float)))) &&
                     (x->tile = malloc(tiles * 2 * sizeof(float))) && (x->speed = malloc(px * sizeof(float))) &&
                     (x->taps = malloc(tiles * sizeof *x->taps));
    if (ok && x->mb) { /* band buffers carved from lin: a frame either uses them or lin whole */
        x->slot_rows = h < SLOT_ROWS ? h : SLOT_ROWS;
        x->nslot = h / x->slot_rows < SLOTS ? h / x->slot_rows : SLOTS;
        if (!p->manual) /* the meter's counts a band (meter_band) */
            ok = (x->bhist = malloc((size_t)((h + BAND - 1) / BAND) * HIST_BINS * sizeof *x->bhist)) != NULL;
        if (ok && (ok = (x->slots = malloc(sizeof *x->slots)) != NULL))
            for (int s = 0; s < SLOTS; s++)
                atomic_flag_clear(&x->slots->busy[s]);
    }
    if (ok) /* the padding floats past the last pixel: zero, whatever load reaches them */
        memset(x->lin + px * 3, 0, 4 * sizeof(float));
    if (ok && x->tmp)
        memset(x->tmp + px * 3, 0, 4 * sizeof(float));
    return ok;
}

void pfx_free(pfx *x)
{
    if (!x->tmp_lent)
        free(x->tmp);
    free(x->lin), free(x->bright), free(x->blur), free(x->blur2), free(x->tile), free(x->speed), free(x->taps), free(x->tiny), free(x->tiny2), free(x->fsrc), free(x->gx), free(x->gw), free(x->grow), free(x->gfull), free(x->tcell), free(x->slots), free(x->bhist);
    memset(x, 0, sizeof *x);
}

bool pfx_wants_velocity(const pfx *x) { return x->p.mb_intensity > 0 && x->p.mb_max_distortion > 0; }

size_t pfx_tmp_bytes(const pfx *x) { return x->tmp_lent && x->mb ? ((size_t)x->w * x->h * 3 + 4) * sizeof(float) : 0; }

void pfx_lend_tmp(pfx *x, float *tmp)
{
    if (!x->tmp_lent)
        return;
    x->tmp = tmp;
    if (tmp) /* the padding floats past the last pixel: zero, whatever load reaches them (pfx_init) */
        memset(tmp + (size_t)x->w * x->h * 3, 0, 4 * sizeof(float));
}

static void run_tasks(pfx_run_fn run, void *runner, void (*fn)(void *, uint32_t), void *arg, uint32_t n)
{
    if (run)
        run(runner, fn, arg, n);
    else
        for (uint32_t t = 0; t < n; t++)
            fn(arg, t);
}

static uint32_t bands(const pfx *x) { return (x->h + BAND - 1) / BAND; }

#ifdef PFX_AVX2
/* decode_px's first n pixels eight at a time while eight remain: the table's entries read one by
** one (faster than AVX2's gathers here), each plane's eight written in one store. Returns how
** many it did. */
__attribute__((target("avx2"))) static size_t decode_eight(const float *d, const uint8_t *in, size_t n, float *R,
                                                           float *G, float *B)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const uint8_t *q = in + 4 * i;
        _mm_prefetch((const char *)(q + 1024), _MM_HINT_T0); /* 256 pixels on: the rendered rows come from memory */
        const v8f r = {d[q[2]], d[q[6]], d[q[10]], d[q[14]], d[q[18]], d[q[22]], d[q[26]], d[q[30]]};
        const v8f g = {d[q[1]], d[q[5]], d[q[9]], d[q[13]], d[q[17]], d[q[21]], d[q[25]], d[q[29]]};
        const v8f b = {d[q[0]], d[q[4]], d[q[8]], d[q[12]], d[q[16]], d[q[20]], d[q[24]], d[q[28]]};
        _mm256_storeu_ps(R + i, (__m256)r), _mm256_storeu_ps(G + i, (__m256)g), _mm256_storeu_ps(B + i, (__m256)b);
    }
    return i;
}
#endif

/* n pixels of the rendered bytes from pixel i0 to linear R, G and B in three planes (R[0] is
** pixel i0's): the gather reads eight neighbouring pixels' channel in one load. */
static void decode_px(const pfx *x, size_t i0, size_t n, float *R, float *G, float *B)
{
    size_t i = 0;
#ifdef PFX_AVX2
    if (x->avx2)
        i = decode_eight(x->dec, x->in + 4 * i0, n, R, G, B);
#endif
    for (; i < n; i++) {
        const uint8_t *s = x->in + 4 * (i0 + i);
        R[i] = x->dec[s[2]], G[i] = x->dec[s[1]], B[i] = x->dec[s[0]];
    }
}

/* Band b's bytes into the whole image's planes (x->lin: R, then G, then B, w h floats each) and
** its half speeds into x->speed: the path of frames whose taps reach too far for a band's own
** buffer (pfx_apply_scaled). */
static void speed_rows(const pfx *x, uint32_t y0, uint32_t y1, float *dst);
static void decode_band(void *arg, uint32_t b)
{
    pfx *x = arg;
    const size_t px = (size_t)x->w * x->h;
    const uint32_t y0 = b * BAND, y1 = y0 + BAND < x->h ? y0 + BAND : x->h;
    const size_t i0 = (size_t)y0 * x->w, i1 = (size_t)y1 * x->w;
    decode_px(x, i0, i1 - i0, x->lin + i0, x->lin + px + i0, x->lin + 2 * px + i0);
    speed_rows(x, y0, y1, x->speed + i0);
}

/* Motion blur, a row of tiles (band b): each tile's own longest blur vector (the first in the
** tile's row-major order among the longest, as a scalar scan finds it) into x->tmp (scratch
** before the blur). Four pixels in SSE lanes: the same products and sum as per pixel; each lane
** keeps its first longest, and the lanes' longest with the least index wins, which is the scan's
** first longest. The pixels' half speeds are speed_rows', made where the gather reads them. */
static void tile_rows(void *arg, uint32_t b)
{
    pfx *x = arg;
    const uint32_t tw = (x->w + TILE - 1) / TILE, y0 = b * TILE, y1 = y0 + TILE < x->h ? y0 + TILE : x->h;
    float *own = x->tmp;
    const float *vel = x->vel;
    for (uint32_t tx = 0; tx < tw; tx++) {
        const uint32_t x0 = tx * TILE, x1 = x0 + TILE < x->w ? x0 + TILE : x->w;
        float bl = 0;
        size_t bi = SIZE_MAX;
#ifdef __SSE2__
        const uint32_t xv = x0 + ((x1 - x0) & ~3u); /* the columns done four at a time */
        __m128 lbest = _mm_setzero_ps();
        __m128i ibest = _mm_set1_epi32(-1);
#else
        const uint32_t xv = x0;
#endif
        for (uint32_t y = y0; y < y1; y++) {
            const size_t r = (size_t)y * x->w;
#ifdef __SSE2__
            for (uint32_t xx = x0; xx < xv; xx += 4) {
                const size_t i = r + xx;
                const __m128 a = _mm_loadu_ps(vel + 2 * i), c = _mm_loadu_ps(vel + 2 * i + 4);
                const __m128 vx = _mm_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0)), vy = _mm_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1));
                const __m128 l = _mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy));
                const __m128 m = _mm_cmpgt_ps(l, lbest); /* false for NaN, as l > bl */
                const __m128i mi = _mm_castps_si128(m), idx = _mm_add_epi32(_mm_set1_epi32((int32_t)i), _mm_set_epi32(3, 2, 1, 0));
                lbest = _mm_or_ps(_mm_and_ps(m, l), _mm_andnot_ps(m, lbest));
                ibest = _mm_or_si128(_mm_and_si128(mi, idx), _mm_andnot_si128(mi, ibest));
            }
#endif
            for (uint32_t xx = xv; xx < x1; xx++) {
                const size_t i = r + xx;
                const float *v = vel + 2 * i;
                float l = v[0] * v[0] + v[1] * v[1];
                if (l > bl || (l == bl && l > 0 && i < bi)) /* the first among the longest */
                    bl = l, bi = i;
            }
        }
#ifdef __SSE2__
        float lv[4];
        int32_t iv[4];
        _mm_storeu_ps(lv, lbest), _mm_storeu_si128((__m128i *)iv, ibest);
        for (int k = 0; k < 4; k++)
            if (iv[k] >= 0 && (lv[k] > bl || (lv[k] == bl && (size_t)iv[k] < bi)))
                bl = lv[k], bi = (size_t)iv[k];
#endif
        float *o = own + 2 * ((size_t)b * tw + tx);
        o[0] = bi == SIZE_MAX ? 0 : vel[2 * bi], o[1] = bi == SIZE_MAX ? 0 : vel[2 * bi + 1];
    }
}

static inline float half_speed(const float *v, float fd) /* tile_rows's, of v times fd */
{
    const float vx = v[0] * fd, vy = v[1] * fd;
    return sqrtf(vx * vx + vy * vy) * 0.5f;
}

/* tile_rows for vectors at 1/d size a side (pfx_apply_scaled): image pixel (x, y) has the vector
** of (min(x / d, mw - 1), min(y / d, mh - 1)) times d, as pfx_velocity_upsample would have written
** it, and gets the same half speed and tile maxima without the image-sized copy being made. A
** tile's image pixels, scanned in row-major order, see its small pixels' rectangle in row-major
** order, each repeated in place (its copies come after it, in its row or in the rows below): the
** first longest of the small rectangle's scan is the vector of the first longest of the image's. */
static void tile_rows_div(void *arg, uint32_t b)
{
    pfx *x = arg;
    const uint32_t d = x->vel_div, w = x->w, mw = w / d, mh = x->h / d, tw = (w + TILE - 1) / TILE;
    const uint32_t y0 = b * TILE, y1 = y0 + TILE < x->h ? y0 + TILE : x->h;
    const uint32_t sya = y0 / d < mh ? y0 / d : mh - 1, syb = (y1 - 1) / d < mh ? (y1 - 1) / d : mh - 1;
    const float fd = (float)d, *vel = x->vel;
    for (uint32_t tx = 0; tx < tw; tx++) {
        const uint32_t x0 = tx * TILE, x1 = x0 + TILE < w ? x0 + TILE : w;
        const uint32_t sxa = x0 / d < mw ? x0 / d : mw - 1, sxb = (x1 - 1) / d < mw ? (x1 - 1) / d : mw - 1;
        /* the first among the longest (l > bl is false for NaN): four columns at a time in SSE
        ** lanes, each lane's first longest kept with its small index, then the lanes' and the
        ** other columns' longest with the least index (tile_rows's rule) */
        float bl = 0, bx = 0, by = 0;
        size_t bi = SIZE_MAX;
#ifdef __SSE2__
        const uint32_t sxv = sxa + ((sxb + 1 - sxa) & ~3u); /* the columns done four at a time */
        __m128 lbest = _mm_setzero_ps(), xbest = _mm_setzero_ps(), ybest = _mm_setzero_ps();
        __m128i ibest = _mm_set1_epi32(-1);
#else
        const uint32_t sxv = sxa;
#endif
        for (uint32_t sy = sya; sy <= syb; sy++) {
            const size_t r = (size_t)sy * mw;
#ifdef __SSE2__
            for (uint32_t sx = sxa; sx < sxv; sx += 4) {
                const __m128 a = _mm_loadu_ps(vel + 2 * (r + sx)), c = _mm_loadu_ps(vel + 2 * (r + sx) + 4);
                const __m128 vx = _mm_mul_ps(_mm_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0)), _mm_set1_ps(fd));
                const __m128 vy = _mm_mul_ps(_mm_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1)), _mm_set1_ps(fd));
                const __m128 l = _mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy)), m = _mm_cmpgt_ps(l, lbest);
                const __m128i idx = _mm_add_epi32(_mm_set1_epi32((int32_t)(r + sx)), _mm_set_epi32(3, 2, 1, 0));
                lbest = _mm_or_ps(_mm_and_ps(m, l), _mm_andnot_ps(m, lbest));
                xbest = _mm_or_ps(_mm_and_ps(m, vx), _mm_andnot_ps(m, xbest));
                ybest = _mm_or_ps(_mm_and_ps(m, vy), _mm_andnot_ps(m, ybest));
                ibest =
                    _mm_or_si128(_mm_and_si128(_mm_castps_si128(m), idx), _mm_andnot_si128(_mm_castps_si128(m), ibest));
            }
#endif
            for (uint32_t sx = sxv; sx <= sxb; sx++) {
                const float *v = vel + 2 * (r + sx);
                const float vx = v[0] * fd, vy = v[1] * fd, l = vx * vx + vy * vy;
                if (l > bl || (l == bl && l > 0 && r + sx < bi))
                    bl = l, bx = vx, by = vy, bi = r + sx;
            }
        }
#ifdef __SSE2__
        float lv[4], xv[4], yv[4];
        int32_t iv[4];
        _mm_storeu_ps(lv, lbest), _mm_storeu_ps(xv, xbest), _mm_storeu_ps(yv, ybest);
        _mm_storeu_si128((__m128i *)iv, ibest);
        for (int k = 0; k < 4; k++)
            if (iv[k] >= 0 && (lv[k] > bl || (lv[k] == bl && (size_t)iv[k] < bi)))
                bl = lv[k], bx = xv[k], by = yv[k], bi = (size_t)iv[k];
#endif
        float *o = x->tmp + 2 * ((size_t)b * tw + tx);
        o[0] = bx, o[1] = by;
    }
}

/* Each pixel's half blur length |vel| / 2 for rows [y0, y1) into dst (row y0 first, w floats a
** row): the gather's test. Full-size vectors four pixels at a time in SSE lanes (the same
** products, sum and correctly rounded root as per pixel); vectors at 1/d size (pfx_apply_scaled)
** a small pixel's once, repeated along the row and down (its image pixels' vectors are the same). */
static void speed_rows(const pfx *x, uint32_t y0, uint32_t y1, float *dst)
{
    const uint32_t w = x->w;
    const float *vel = x->vel;
    if (x->vel_div == 1) {
        const size_t n = (size_t)(y1 - y0) * w, i0 = (size_t)y0 * w;
        size_t k = 0;
#ifdef __SSE2__
        for (; k + 4 <= n; k += 4) {
            const __m128 a = _mm_loadu_ps(vel + 2 * (i0 + k)), c = _mm_loadu_ps(vel + 2 * (i0 + k) + 4);
            const __m128 vx = _mm_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0)), vy = _mm_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1));
            _mm_storeu_ps(dst + k, _mm_mul_ps(_mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy))), _mm_set1_ps(0.5f)));
        }
#endif
        for (; k < n; k++) {
            const float *v = vel + 2 * (i0 + k);
            dst[k] = sqrtf(v[0] * v[0] + v[1] * v[1]) * 0.5f;
        }
        return;
    }
    const uint32_t d = x->vel_div, mw = w / d, mh = x->h / d;
    const float fd = (float)d;
    for (uint32_t y = y0; y < y1; y++) {
        const uint32_t sy = y / d < mh ? y / d : mh - 1;
        float *o = dst + (size_t)(y - y0) * w;
        if (y > y0 && sy == ((y - 1) / d < mh ? (y - 1) / d : mh - 1)) {
            memcpy(o, o - w, w * sizeof *o);
            continue;
        }
        const float *s = vel + 2 * (size_t)sy * mw;
        uint32_t sx0 = 0;
#ifdef __SSE2__
        if (d == 2 || d == 4) /* four small pixels at a time, each speed d times: tile_rows's lane operations */
            for (; sx0 + 4 < mw; sx0 += 4) { /* the last small pixel to the scalar loop: the clamp */
                const __m128 a = _mm_mul_ps(_mm_loadu_ps(s + 2 * sx0), _mm_set1_ps(fd));
                const __m128 c = _mm_mul_ps(_mm_loadu_ps(s + 2 * sx0 + 4), _mm_set1_ps(fd));
                const __m128 vx = _mm_shuffle_ps(a, c, _MM_SHUFFLE(2, 0, 2, 0));
                const __m128 vy = _mm_shuffle_ps(a, c, _MM_SHUFFLE(3, 1, 3, 1));
                const __m128 l = _mm_add_ps(_mm_mul_ps(vx, vx), _mm_mul_ps(vy, vy));
                const __m128 sp = _mm_mul_ps(_mm_sqrt_ps(l), _mm_set1_ps(0.5f));
                if (d == 2) {
                    _mm_storeu_ps(o + 2 * sx0, _mm_unpacklo_ps(sp, sp));
                    _mm_storeu_ps(o + 2 * sx0 + 4, _mm_unpackhi_ps(sp, sp));
                } else { /* the quarter-size vectors (pfx55): a lane's speed four times */
                    _mm_storeu_ps(o + 4 * sx0, _mm_shuffle_ps(sp, sp, _MM_SHUFFLE(0, 0, 0, 0)));
                    _mm_storeu_ps(o + 4 * sx0 + 4, _mm_shuffle_ps(sp, sp, _MM_SHUFFLE(1, 1, 1, 1)));
                    _mm_storeu_ps(o + 4 * sx0 + 8, _mm_shuffle_ps(sp, sp, _MM_SHUFFLE(2, 2, 2, 2)));
                    _mm_storeu_ps(o + 4 * sx0 + 12, _mm_shuffle_ps(sp, sp, _MM_SHUFFLE(3, 3, 3, 3)));
                }
            }
#endif
        float sp = half_speed(s + 2 * sx0, fd);
        for (uint32_t xx = d * sx0, sx = sx0, k = 0; xx < w; xx++) {
            o[xx] = sp;
            if (++k == d && sx + 1 < mw) /* sx = min(xx / d, mw - 1) for the next xx */
                k = 0, sx++, sp = half_speed(s + 2 * sx, fd);
        }
    }
}

/* Motion blur, per tile: the longest blur vector in the tile and its 8 neighbours (how far a
** moving object can smear into it), after tile_rows. */
static void tile_max(pfx *x)
{
    const uint32_t tw = (x->w + TILE - 1) / TILE, th = (x->h + TILE - 1) / TILE;
    const float *own = x->tmp;
    x->blur_now = false, x->tile_maxy = 0;
    for (uint32_t ty = 0; ty < th; ty++)
        for (uint32_t tx = 0; tx < tw; tx++) {
            float bx = 0, by = 0, bl = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int64_t nx = (int64_t)tx + dx, ny = (int64_t)ty + dy;
                    if (nx < 0 || ny < 0 || nx >= tw || ny >= th)
                        continue;
                    const float *v = own + 2 * (ny * tw + nx);
                    float l = v[0] * v[0] + v[1] * v[1];
                    if (l > bl)
                        bl = l, bx = v[0], by = v[1];
                }
            x->tile[2 * (ty * tw + tx)] = bx, x->tile[2 * (ty * tw + tx) + 1] = by;
            if (bl >= 0.25f)
                x->blur_now = true;
            x->tile_maxy = fabsf(by) > x->tile_maxy ? fabsf(by) : x->tile_maxy;
        }
}

/* lroundf without the call: half away from zero, exact for |v| < 2^23 (v - trunc(v) is exact
** there), which image coordinates and bounded blur vectors are. */
static inline long round_away(float v)
{
    long i = (long)v;
    float f = v - (float)i;
    return f >= 0.5f ? i + 1 : f <= -0.5f ? i - 1 : i;
}

_Static_assert(BAND == TILE, "blur_band walks a band as one row of tiles");
_Static_assert(TILE % 8 == 0, "a tile's columns in groups of eight (blur_eight)");

/* A tile row's live taps (blur_band): each one's index in the tile's taps, source row start (less
** x0) and distance, and the farthest distance. */
typedef struct blur_row {
    int live, tapk[MB_TAPS + 1];
    size_t rowk[MB_TAPS + 1];
    float dl[MB_TAPS + 1], dmax;
} blur_row;

/* The decoded planes and half speeds a band's gather reads: image pixel i's R is R[i - lo] (a
** band's own buffer holds its rows and the rows its taps reach; the whole image's has lo 0). */
typedef struct blur_src {
    const float *R, *G, *B, *hs;
    size_t lo;
} blur_src;

/* Pixel i0 + c's gather (i0: the tile row's first pixel), from the linear planes S into tmp's
** planes. */
static inline void blur_px(const pfx *x, const pfx_taps *T, const blur_row *L, size_t i0, uint32_t c,
                           const blur_src *S, float *tmp)
{
    const float *hs = S->hs, *R = S->R, *G = S->G, *B = S->B;
    const size_t i = i0 + c, lo = S->lo;
    const float ch = hs[i - lo];
    const bool all = ch >= L->dmax; /* ch >= every tap's distance: every tap passes */
    float r = R[i - lo], g = G[i - lo], bl = B[i - lo], wsum = 1;
    for (int k = 0; k < L->live; k++) {
        const int sx = T->col[L->tapk[k]][c];
        if (sx == INT8_MIN)
            continue;
        const size_t j = L->rowk[k] + (size_t)(ptrdiff_t)sx;
        if (!all && !(ch >= L->dl[k] || hs[j - lo] >= L->dl[k])) /* its own side first: no load */
            continue;
        r += R[j - lo], g += G[j - lo], bl += B[j - lo], wsum += 1;
    }
    const size_t px = (size_t)x->w * x->h;
    tmp[i] = r / wsum, tmp[px + i] = g / wsum, tmp[2 * px + i] = bl / wsum;
}

#ifdef PFX_AVX2
/* Eight pixels' R, G and B lanes to tmp's three planes (px floats each) at pixel i: a store each. */
__attribute__((target("avx2"))) static inline void store_rgb8(float *tmp, size_t px, size_t i, v8f r, v8f g, v8f b)
{
    _mm256_storeu_ps(tmp + i, (__m256)r), _mm256_storeu_ps(tmp + px + i, (__m256)g);
    _mm256_storeu_ps(tmp + 2 * px + i, (__m256)b);
}

/* blur_px for columns c .. c + 7 in AVX2's 8 lanes, where every live tap's sources for them are 8
** adjacent pixels (pfx_taps.run): each channel of a tap one load, the test and the sums as
** blur_px's (a tap's add and count selected per lane: the same additions in the same order, the
** same division), so the same floats. */
__attribute__((target("avx2"))) static inline void blur_eight(const pfx *x, const pfx_taps *T, const blur_row *L, size_t i0,
                                                       uint32_t c, const blur_src *S, float *tmp)
{
#define LOAD(p)      ((v8f)_mm256_loadu_ps(p))
#define SEL(m, a, b) ((v8f)_mm256_blendv_ps((__m256)(b), (__m256)(a), (__m256)(m))) /* m ? a : b, a lane each */
    const float *hs = S->hs, *R = S->R, *G = S->G, *B = S->B;
    const size_t i = i0 + c, lo = S->lo;
    const v8f ch = LOAD(hs + (i - lo)), one = _mm256_set1_ps(1.0f);
    const v8i all = ch >= _mm256_set1_ps(L->dmax);
    const bool every = _mm256_movemask_ps((__m256)all) == 0xFF; /* every lane takes every tap */
    v8f r = LOAD(R + (i - lo)), g = LOAD(G + (i - lo)), bl = LOAD(B + (i - lo)), wsum = one;
    for (int k = 0; k < L->live; k++) {
        const size_t j = L->rowk[k] + (size_t)(ptrdiff_t)T->col[L->tapk[k]][c], jl = j - lo;
        if (every) {
            r += LOAD(R + jl), g += LOAD(G + jl), bl += LOAD(B + jl), wsum += one;
            continue;
        }
        const v8f d = _mm256_set1_ps(L->dl[k]);
        const v8i m = all | (ch >= d) | (LOAD(hs + jl) >= d);
        r = SEL(m, r + LOAD(R + jl), r), g = SEL(m, g + LOAD(G + jl), g), bl = SEL(m, bl + LOAD(B + jl), bl);
        wsum = SEL(m, wsum + one, wsum);
    }
#undef SEL
#undef LOAD
    store_rgb8(tmp, (size_t)x->w * x->h, i, r / wsum, g / wsum, bl / wsum);
}

#endif

/* Gathers along the tile's longest vector, centred on the pixel: a sample counts where it moves
** far enough to cover this pixel, or this pixel moves far enough to cover it (a simplified
** McGuire reconstruction, Unreal's method without its depth comparison). A band is one row of
** tiles (BAND == TILE): the taps' offsets and distances depend on the tile alone, so each tap's
** source column for each of a tile's 16 columns is found once a tile (the same float operations
** as per pixel, pfx_taps) and its source row once a tile row; the rows are then walked in image
** order. Each pixel's half speed comes from x->speed (tile_rows). A pixel at least as fast as
** the farthest tap takes every tap without reading theirs (the test passes on its own side).
** Where the CPU has AVX2, eight columns at a time when each live tap's sources for them are eight
** adjacent pixels (blur_eight: all but the image's side columns, and a column whose rounding
** differs from its neighbours'), else a pixel at a time (blur_px): the same floats. */
/* Band b's tiles' taps (tt[0..tw)): for each tile, its blur vector's taps (row offset, distance)
** and each tap's source column per column (INT8_MIN off the image), with the 8-column groups
** whose taps all read eight adjacent pixels flagged; n = -1 for a tile whose vector blurs nothing. */
static void tile_taps(const pfx *x, uint32_t b, pfx_taps *tt, uint32_t tw)
{
    for (uint32_t tx = 0; tx < tw; tx++) {
        const float *tv = x->tile + 2 * ((size_t)b * tw + tx);
        const uint32_t x0 = tx * TILE, x1 = x0 + TILE < x->w ? x0 + TILE : x->w, nc = x1 - x0;
        pfx_taps *T = tt + tx;
        float tl = sqrtf(tv[0] * tv[0] + tv[1] * tv[1]);
        if (tl < 0.5f) {
            T->n = -1;
            continue;
        }
        int n = (int)ceilf(tl);
        n = n < 2 ? 2 : n > MB_TAPS ? MB_TAPS : n;
        int taps = 0;
        for (uint32_t g = 0; g < TILE / 8; g++)
            T->runs[g] = true;
        for (int k = 0; k <= n; k++) {
            float t = (float)k / (float)n - 0.5f; /* -0.5 .. 0.5 of the vector */
            float d = fabsf(t) * tl;
            if (d < 0.5f)
                continue; /* the pixel itself */
            const float ax = t * tv[0];
            T->ay[taps] = t * tv[1], T->dist[taps] = d;
            uint32_t c = 0;
#ifdef __SSE2__
            /* four columns at a time: round_away's operations in SSE2 lanes (truncation, the
            ** fraction, one up or down), the same integers */
            for (; c + 4 <= nc; c += 4) {
                const __m128i xc = _mm_add_epi32(_mm_set1_epi32((int32_t)(x0 + c)), _mm_set_epi32(3, 2, 1, 0));
                const __m128 v = _mm_sub_ps(
                    _mm_add_ps(_mm_add_ps(_mm_cvtepi32_ps(xc), _mm_set1_ps(0.5f)), _mm_set1_ps(ax)), _mm_set1_ps(0.5f));
                const __m128i i = _mm_cvttps_epi32(v);
                const __m128 f = _mm_sub_ps(v, _mm_cvtepi32_ps(i));
                const __m128i sx = _mm_add_epi32(_mm_sub_epi32(i, _mm_castps_si128(_mm_cmpge_ps(f, _mm_set1_ps(0.5f)))),
                                                 _mm_castps_si128(_mm_cmple_ps(f, _mm_set1_ps(-0.5f))));
                const __m128i off = _mm_or_si128(_mm_cmplt_epi32(sx, _mm_setzero_si128()),
                                                 _mm_cmplt_epi32(_mm_set1_epi32((int32_t)x->w - 1), sx));
                int32_t o[4];
                _mm_storeu_si128((__m128i *)o,
                                 _mm_or_si128(_mm_and_si128(off, _mm_set1_epi32(INT8_MIN)),
                                              _mm_andnot_si128(off, _mm_sub_epi32(sx, _mm_set1_epi32((int32_t)x0)))));
                for (int l = 0; l < 4; l++)
                    T->col[taps][c + l] = (int8_t)o[l];
            }
#endif
            for (; c < nc; c++) {
                long sx = round_away((float)(x0 + c) + 0.5f + ax - 0.5f);
                T->col[taps][c] = sx < 0 || sx >= (long)x->w ? INT8_MIN : (int8_t)(sx - (long)x0);
            }
            for (uint32_t g = 0; g < TILE / 8; g++) { /* runs: mostly; not at the image's sides */
                bool run = 8 * g + 8 <= nc;
                for (uint32_t c = 8 * g; run && c < 8 * g + 8; c++)
                    run = T->col[taps][c] != INT8_MIN && T->col[taps][c] == T->col[taps][8 * g] + (int)(c - 8 * g);
                T->run[taps][g] = run;
                T->runs[g] = T->runs[g] && run;
            }
            taps++;
        }
        T->n = taps;
    }
}

/* Rows y0, y0 + step, .. below y1 of band b (tiles tt, their taps made) gathered from S into
** tmp's planes. */
static inline __attribute__((always_inline)) void blur_rows_in(const pfx *x, const pfx_taps *tt, uint32_t y0,
                                                               uint32_t y1, uint32_t step, const blur_src *S, float *tmp,
                                                               bool eight)
{
    const uint32_t tw = (x->w + TILE - 1) / TILE;
    const size_t px = (size_t)x->w * x->h;
    const float *P[3] = {S->R, S->G, S->B};
    for (uint32_t y = y0; y < y1; y += step) {
        const float fy = (float)y + 0.5f;
        for (uint32_t tx = 0; tx < tw; tx++) {
            const pfx_taps *T = tt + tx;
            const uint32_t x0 = tx * TILE, x1 = x0 + TILE < x->w ? x0 + TILE : x->w, nc = x1 - x0;
            const size_t i0 = (size_t)y * x->w + x0;
            if (T->n < 0) { /* the pixels as they are: a whole tile's row by a fixed-size copy the
                             ** compiler inlines, not a library call sized at run time a plane and
                             ** tile row (about 1 % of the post-process's instructions) */
                if (nc == TILE)
                    for (int k = 0; k < 3; k++)
                        memcpy(tmp + k * px + i0, P[k] + (i0 - S->lo), TILE * sizeof *tmp);
                else
                    for (int k = 0; k < 3; k++)
                        memcpy(tmp + k * px + i0, P[k] + (i0 - S->lo), nc * sizeof *tmp);
                continue;
            }
            /* each tap's source row (less x0), taps off the image's rows dropped */
            blur_row L; /* not zeroed: only the first `live` entries are read */
            L.live = 0, L.dmax = 0;
            for (int k = 0; k < T->n; k++) {
                long sy = round_away(fy + T->ay[k] - 0.5f);
                if (sy < 0 || sy >= (long)x->h)
                    continue;
                L.dl[L.live] = T->dist[k], L.tapk[L.live] = k, L.rowk[L.live++] = (size_t)sy * x->w + x0;
                L.dmax = T->dist[k] > L.dmax ? T->dist[k] : L.dmax;
            }
            uint32_t c = 0;
#ifdef PFX_AVX2
            for (; eight && c + 8 <= nc; c += 8) {
                bool runs = true; /* every tap's flag, or else the live taps' own */
                for (int k = 0; !T->runs[c / 8] && k < L.live && runs; k++)
                    runs = T->run[L.tapk[k]][c / 8];
                if (runs) {
                    blur_eight(x, T, &L, i0, c, S, tmp);
                } else {
                    for (uint32_t e = c; e < c + 8; e++)
                        blur_px(x, T, &L, i0, e, S, tmp);
                }
            }
#else
            (void)eight;
#endif
            for (; c < nc; c++)
                blur_px(x, T, &L, i0, c, S, tmp);
        }
    }
}

#ifdef PFX_AVX2
/* blur_rows_in with blur_eight inlined: the rows' loops in AVX2 code, no call per eight columns. */
__attribute__((target("avx2"))) static void blur_rows_avx2(const pfx *x, const pfx_taps *tt, uint32_t y0, uint32_t y1,
                                                           uint32_t step, const blur_src *S, float *tmp)
{
    blur_rows_in(x, tt, y0, y1, step, S, tmp, true);
}
#endif

static void blur_rows(const pfx *x, const pfx_taps *tt, uint32_t y0, uint32_t y1, uint32_t step, const blur_src *S,
                      float *tmp)
{
#ifdef PFX_AVX2
    if (x->avx2) {
        blur_rows_avx2(x, tt, y0, y1, step, S, tmp);
        return;
    }
#endif
    blur_rows_in(x, tt, y0, y1, step, S, tmp, false);
}

/* The rows band b's gather reads, [*lo, *hi): its own and every live tap's source rows (blur_rows'
** expression at the band's first and last row: it does not decrease down the rows). */
static void band_rows(const pfx *x, const pfx_taps *tt, uint32_t y0, uint32_t y1, uint32_t *lo, uint32_t *hi)
{
    const uint32_t tw = (x->w + TILE - 1) / TILE;
    const float f0 = (float)y0 + 0.5f, f1 = (float)(y1 - 1) + 0.5f;
    long a = y0, z = (long)y1 - 1;
    for (uint32_t tx = 0; tx < tw; tx++)
        for (int k = 0; k < tt[tx].n; k++) {
            const long s0 = round_away(f0 + tt[tx].ay[k] - 0.5f), s1 = round_away(f1 + tt[tx].ay[k] - 0.5f);
            a = s0 < a ? s0 : a, z = s1 > z ? s1 : z;
        }
    *lo = a < 0 ? 0 : (uint32_t)a, *hi = z >= (long)x->h ? x->h : (uint32_t)z + 1;
}

/* A band's buffer: a free one holding row `row` decoded (the band above's, mostly: its rows need
** not be decoded again, blur_band), else the first one free (its flag set here), cleared by
** slot_free; with more tasks at once than buffers a task waits for one. A slot's rows are read
** only while holding it. */
static void slot_free(const pfx *x, uint32_t s);
static uint32_t slot_take(const pfx *x, uint32_t row)
{
    for (;;) {
        uint32_t got = UINT32_MAX;
        for (uint32_t s = 0; s < x->nslot; s++) {
            if (atomic_flag_test_and_set_explicit(&x->slots->busy[s], memory_order_acquire))
                continue;
            if (x->slots->lo[s] <= row && row < x->slots->hi[s]) {
                if (got != UINT32_MAX)
                    slot_free(x, got);
                return s;
            }
            if (got == UINT32_MAX)
                got = s;
            else
                slot_free(x, s);
        }
        if (got != UINT32_MAX)
            return got;
        sched_yield();
    }
}

static void slot_free(const pfx *x, uint32_t s) { atomic_flag_clear_explicit(&x->slots->busy[s], memory_order_release); }

/* The meter's samples of band b (rows 2 mod 4, every 4th column from 2: metered_ev's), from the
** blurred planes the gather has just written, counted into the band's histogram: counts, so
** metered_ev's sum of the bands' is its own histogram. */
static void meter_band(const pfx *x, uint32_t b, uint32_t y0, uint32_t y1)
{
    uint32_t *hist = x->bhist + (size_t)b * HIST_BINS;
    memset(hist, 0, HIST_BINS * sizeof *hist);
    const size_t px = (size_t)x->w * x->h;
    const float *R = x->tmp, *G = R + px, *B = G + px;
    for (uint32_t y = y0 + (y0 % 4 <= 2 ? 2 - y0 % 4 : 6 - y0 % 4); y < y1; y += 4)
        for (uint32_t xx = 2; xx < x->w; xx += 4) {
            const size_t i = (size_t)y * x->w + xx;
            const double l = 0.2126 * R[i] + 0.7152 * G[i] + 0.0722 * B[i];
            hist[pfx_meter_bin(&x->meter, l)]++;
        }
}

/* The gather of band b. Banded (x->banded): the rows it reads are decoded, and their half speeds
** made, into a band's buffer (taken from x->lin and x->speed, which such a frame does not use
** whole) and gathered while they are in cache; else from the whole image, decode_band's. */
static void blur_band(void *arg, uint32_t b)
{
    pfx *x = arg;
    const uint32_t tw = (x->w + TILE - 1) / TILE;
    const uint32_t y0 = b * BAND, y1 = b * BAND + BAND < x->h ? b * BAND + BAND : x->h;
    pfx_taps *tt = x->taps + (size_t)b * tw;
    tile_taps(x, b, tt, tw);
    if (!x->banded) {
        const size_t px = (size_t)x->w * x->h;
        const blur_src S = {x->lin, x->lin + px, x->lin + 2 * px, x->speed, 0};
        blur_rows(x, tt, y0, y1, 1, &S, x->tmp);
        if (x->bhist)
            meter_band(x, b, y0, y1);
        return;
    }
    uint32_t lo, hi;
    band_rows(x, tt, y0, y1, &lo, &hi);
    const uint32_t s = slot_take(x, lo);
    /* planes a slot's rows apart, so that rows the slot's previous band decoded and this one reads
    ** (the bands' taps overlap: the band above's lower reach is this one's upper) move to the
    ** front instead of being decoded again: the same floats */
    const size_t n = (size_t)x->slot_rows * x->w, w = x->w;
    float *buf = x->lin + (size_t)s * n * 3, *hs = x->speed + (size_t)s * n;
    const uint32_t plo = x->slots->lo[s], phi = x->slots->hi[s];
    uint32_t from = lo; /* the first row to decode */
    if (plo <= lo && lo < phi) {
        from = phi < hi ? phi : hi;
        const size_t keep = (size_t)(from - lo) * w * sizeof(float), off = (size_t)(lo - plo) * w;
        for (int k = 0; k < 3; k++)
            memmove(buf + k * n, buf + k * n + off, keep);
        memmove(hs, hs + off, keep);
    }
    const size_t d0 = (size_t)(from - lo) * w, nd = (size_t)(hi - from) * w;
    decode_px(x, (size_t)from * w, nd, buf + d0, buf + n + d0, buf + 2 * n + d0);
    speed_rows(x, from, hi, hs + d0);
    x->slots->lo[s] = lo, x->slots->hi[s] = hi;
    const blur_src S = {buf, buf + n, buf + 2 * n, hs, (size_t)lo * w};
    blur_rows(x, tt, y0, y1, 1, &S, x->tmp);
    slot_free(x, s);
    if (x->bhist)
        meter_band(x, b, y0, y1);
}

/* Pixel i's linear R G B: from the blurred image src, or (src NULL: no blur this frame) straight
** from the rendered bytes through the decoding table, the values decode_band would have stored. */
static inline void src_rgb(const pfx *x, const float *src, size_t i, float c[3])
{
    if (src) { /* three planes */
        const size_t px = (size_t)x->w * x->h;
        c[0] = src[i], c[1] = src[px + i], c[2] = src[2 * px + i];
    } else {
        const uint8_t *b = x->in + 4 * i;
        c[0] = x->dec[b[2]], c[1] = x->dec[b[1]], c[2] = x->dec[b[0]];
    }
}

/* Histogram auto exposure (Unreal 4.26): log luminance of every 4th pixel a side, the mean of
** the part between the 80th and 98.3rd percentiles, as EV100 through the meter constant. */
static double metered_ev(const pfx *x, const float *src)
{
    /* four histograms taken in turn and summed (counts: exact in any order), so that a run of
    ** samples in one bin does not wait on each increment's store */
    uint32_t hists[4][HIST_BINS] = {{0}}, hist[HIST_BINS], n = 0;
    if (src && x->bhist) { /* counted band by band as the gather wrote them (meter_band) */
        for (uint32_t b = 0; b < bands(x); b++)
            for (int k = 0; k < HIST_BINS; k++)
                hists[0][k] += x->bhist[(size_t)b * HIST_BINS + k], n += x->bhist[(size_t)b * HIST_BINS + k];
    } else {
        for (uint32_t y = 2; y < x->h; y += 4)
            for (uint32_t xx = 2; xx < x->w; xx += 4) {
                float c[3];
                src_rgb(x, src, (size_t)y * x->w + xx, c);
                double l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
                /* the bin of EV100 = log2(l) + log2(PFX_LREF 100 / K), by thresholds (postfx_meter.h) */
                hists[n & 3][pfx_meter_bin(&x->meter, l)]++;
                n++;
            }
    }
    for (int b = 0; b < HIST_BINS; b++)
        hist[b] = hists[0][b] + hists[1][b] + hists[2][b] + hists[3][b];
    if (!n)
        return x->p.max_bright;
    double lo = LOW_PCT * n, hi = HIGH_PCT * n, acc = 0, sum = 0, wsum = 0;
    for (int b = 0; b < HIST_BINS; b++) {
        double a = acc, e = acc + hist[b];
        acc = e;
        double w = fmin(e, hi) - fmax(a, lo);
        if (w > 0)
            sum += w * (HIST_LO + (b + 0.5) * HIST_STEP), wsum += w;
    }
    return wsum > 0 ? sum / wsum : x->p.max_bright;
}

/* Bloom and flare source: the exposed image an eighth a side (the mean of every other pixel of
** each 8 x 8 block, each way), the part of each pixel above luminance 1 (what would clip), with
** the pixel's hue. */
static void bloom_source(pfx *x, const float *src)
{
    const float s = (float)x->scale;
    for (uint32_t sy = 0; sy < x->sh; sy++) {
        uint32_t sx = 0;
#ifdef __SSE2__
        /* four blocks side by side in SSE lanes, each lane one block's samples in the scalar
        ** loop's order and its operations (the branch a select): the same floats */
        const size_t px = (size_t)x->w * x->h;
        const __m128 one = _mm_set1_ps(1.0f), vs = _mm_set1_ps(s);
        for (; (sx + 4) * BLOOM_DOWN <= x->w; sx += 4) {
            __m128 a0 = _mm_setzero_ps(), a1 = a0, a2 = a0;
            int n = 0;
            for (uint32_t y = sy * BLOOM_DOWN; y < sy * BLOOM_DOWN + BLOOM_DOWN && y < x->h; y += 2)
                for (uint32_t xx = sx * BLOOM_DOWN; xx < sx * BLOOM_DOWN + BLOOM_DOWN; xx += 2) {
                    const size_t i = (size_t)y * x->w + xx;
                    const size_t i1 = i + BLOOM_DOWN, i2 = i + 2 * BLOOM_DOWN, i3 = i + 3 * BLOOM_DOWN;
                    __m128 c0, c1, c2;
                    if (src) {
                        const float *G = src + px, *B = G + px;
                        c0 = _mm_set_ps(src[i3], src[i2], src[i1], src[i]), c1 = _mm_set_ps(G[i3], G[i2], G[i1], G[i]);
                        c2 = _mm_set_ps(B[i3], B[i2], B[i1], B[i]);
                    } else {
                        const uint8_t *q = x->in;
                        const float *d = x->dec;
                        c0 = _mm_set_ps(d[q[4 * i3 + 2]], d[q[4 * i2 + 2]], d[q[4 * i1 + 2]], d[q[4 * i + 2]]);
                        c1 = _mm_set_ps(d[q[4 * i3 + 1]], d[q[4 * i2 + 1]], d[q[4 * i1 + 1]], d[q[4 * i + 1]]);
                        c2 = _mm_set_ps(d[q[4 * i3]], d[q[4 * i2]], d[q[4 * i1]], d[q[4 * i]]);
                    }
                    const __m128 l = _mm_mul_ps(vs, _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(0.2126f), c0),
                                                                          _mm_mul_ps(_mm_set1_ps(0.7152f), c1)),
                                                               _mm_mul_ps(_mm_set1_ps(0.0722f), c2)));
                    const __m128 m = _mm_cmpgt_ps(l, one); /* false for NaN, as l > 1 */
                    if (_mm_movemask_ps(m)) {
                        const __m128 k = _mm_div_ps(_mm_mul_ps(vs, _mm_sub_ps(l, one)), l);
                        a0 = _mm_or_ps(_mm_and_ps(m, _mm_add_ps(a0, _mm_mul_ps(k, c0))), _mm_andnot_ps(m, a0));
                        a1 = _mm_or_ps(_mm_and_ps(m, _mm_add_ps(a1, _mm_mul_ps(k, c1))), _mm_andnot_ps(m, a1));
                        a2 = _mm_or_ps(_mm_and_ps(m, _mm_add_ps(a2, _mm_mul_ps(k, c2))), _mm_andnot_ps(m, a2));
                    }
                    n++;
                }
            const __m128 fn = _mm_set1_ps((float)n);
            float r[3][4];
            _mm_storeu_ps(r[0], _mm_div_ps(a0, fn)), _mm_storeu_ps(r[1], _mm_div_ps(a1, fn));
            _mm_storeu_ps(r[2], _mm_div_ps(a2, fn));
            float *o = x->bright + 3 * ((size_t)sy * x->sw + sx);
            for (int b = 0; b < 4; b++)
                o[3 * b] = r[0][b], o[3 * b + 1] = r[1][b], o[3 * b + 2] = r[2][b];
        }
#endif
        for (; sx < x->sw; sx++) {
            float acc[3] = {0, 0, 0};
            int n = 0;
            for (uint32_t y = sy * BLOOM_DOWN; y < sy * BLOOM_DOWN + BLOOM_DOWN && y < x->h; y += 2)
                for (uint32_t xx = sx * BLOOM_DOWN; xx < sx * BLOOM_DOWN + BLOOM_DOWN && xx < x->w; xx += 2) {
                    float c[3];
                    src_rgb(x, src, (size_t)y * x->w + xx, c);
                    float l = s * (0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2]);
                    if (l > 1) {
                        float k = s * (l - 1) / l;
                        acc[0] += k * c[0], acc[1] += k * c[1], acc[2] += k * c[2];
                    }
                    n++;
                }
            float *o = x->bright + 3 * ((size_t)sy * x->sw + sx);
            for (int k = 0; k < 3; k++)
                o[k] = acc[k] / (float)n;
        }
    }
}

/* Lens flare's ghosts: scales through the centre (negative: mirrored) and tints. */
static const float flare_scale[4] = {-1.0f, -0.5f, 0.35f, -1.6f};
static const float flare_tint[4][3] = {{1.0f, 0.6f, 0.3f}, {0.4f, 0.8f, 1.0f}, {0.8f, 1.0f, 0.6f}, {1.0f, 0.5f, 0.8f}};

/* Each ghost's source bloom column for each column (a column's depends on it and the ghost alone)
** and row for each row, -1 off the bloom image: glow's per-pixel expression made once at init. */
static void flare_init(pfx *x)
{
    const float cx = x->sw * 0.5f, cy = x->sh * 0.5f;
    int32_t *fx = x->fsrc, *fy = x->fsrc + 4 * (size_t)x->sw;
    for (int g = 0; g < 4; g++) {
        for (uint32_t xx = 0; xx < x->sw; xx++) {
            const long sx = round_away(cx + ((float)xx + 0.5f - cx) * flare_scale[g] - 0.5f);
            fx[(size_t)g * x->sw + xx] = sx < 0 || sx >= (long)x->sw ? -1 : (int32_t)sx;
        }
        for (uint32_t y = 0; y < x->sh; y++) {
            const long sy = round_away(cy + ((float)y + 0.5f - cy) * flare_scale[g] - 0.5f);
            fy[(size_t)g * x->sh + y] = sy < 0 || sy >= (long)x->sh ? -1 : (int32_t)sy;
        }
    }
}

/* Separable Gaussian of sigma (pixels) of a W x H image of 3 floats a pixel from `in` into `out`
** (t: scratch; in may be out). Each output float is its channel's sum over the taps in their
** order, w times the tap's float, added to 0 first; a channel needs no other, so four neighbouring
** floats (any channels) are four lanes doing those operations: the same floats. Horizontally the
** lanes run where every tap of their pixels is inside the row (a float's tap k is 3 k floats on),
** the row's ends a float at a time with the clamp; vertically a tap's row is one row for all. */
typedef float gv4 __attribute__((vector_size(16)));
static inline float gauss_float(const float *row, const float *w, int r, int W, int f)
{
    const int xx = f / 3, j = f % 3;
    float a = 0;
    for (int k = -r; k <= r; k++) {
        const int sx = xx + k < 0 ? 0 : xx + k >= W ? W - 1 : xx + k;
        a += w[k + r] * row[3 * sx + j];
    }
    return a;
}

static void gauss_img(const float *in, float *out, float *t, int W, int H, double sigma)
{
    int r = (int)ceil(3 * sigma);
    if (r > 64)
        r = 64;
    float w[129];
    double tot = 0;
    for (int k = -r; k <= r; k++)
        tot += (w[k + r] = (float)exp(-0.5 * k * k / (sigma * sigma)));
    for (int k = 0; k <= 2 * r; k++)
        w[k] /= (float)tot;
    const int F = 3 * W;
    /* [v0, v1): the floats done four at a time, their pixels' taps all inside the row */
    const int v0 = 3 * r < 3 * (W - r) ? 3 * r : F, v1 = v0 < F ? v0 + (3 * (W - r) - v0) / 4 * 4 : F;
    for (int y = 0; y < H; y++) {
        const float *row = in + (size_t)y * F;
        float *o = t + (size_t)y * F;
        for (int f = 0; f < v0; f++)
            o[f] = gauss_float(row, w, r, W, f);
        for (int f = v0; f < v1; f += 4) {
            gv4 a = {0, 0, 0, 0};
            const float *c = row + f - 3 * r;
            for (int k = 0; k <= 2 * r; k++, c += 3) {
                gv4 v;
                memcpy(&v, c, sizeof v);
                a += (gv4){w[k], w[k], w[k], w[k]} * v;
            }
            memcpy(o + f, &a, sizeof a);
        }
        for (int f = v1; f < F; f++)
            o[f] = gauss_float(row, w, r, W, f);
    }
    for (int y = 0; y < H; y++) {
        const float *rows[129];
        for (int k = -r; k <= r; k++) {
            const int sy = y + k < 0 ? 0 : y + k >= H ? H - 1 : y + k;
            rows[k + r] = t + (size_t)sy * F;
        }
        float *o = out + (size_t)y * F;
        int f = 0;
        for (; f + 4 <= F; f += 4) {
            gv4 a = {0, 0, 0, 0};
            for (int k = 0; k <= 2 * r; k++) {
                gv4 v;
                memcpy(&v, rows[k] + f, sizeof v);
                a += (gv4){w[k], w[k], w[k], w[k]} * v;
            }
            memcpy(o + f, &a, sizeof a);
        }
        for (; f < F; f++) {
            float a = 0;
            for (int k = 0; k <= 2 * r; k++)
                a += w[k] * rows[k][f];
            o[f] = a;
        }
    }
}

static void gauss(pfx *x, const float *in, float *out, double sigma)
{
    gauss_img(in, out, x->blur2, (int)x->sw, (int)x->sh, sigma);
}

/* Bloom (two Gaussians, 1 % and 4 % of the width, averaged, the wide one on a 64th of the image) plus lens flare (ghosts of the
** bright image scaled through the centre, negative scales mirrored, tinted) into blur: what the
** final pass adds, bilinearly upsampled. */
static void glow(pfx *x)
{
    const size_t n = (size_t)x->sw * x->sh * 3;
    const double s1 = 0.01 * x->w / BLOOM_DOWN, s2 = 0.04 * x->w / BLOOM_DOWN;
    const float half_bi = 0.5f * (float)x->p.bloom;
    gauss(x, x->bright, x->blur, s1 > 0.5 ? s1 : 0.5);
    for (size_t i = 0; i < n; i++)
        x->blur[i] *= half_bi;
    if (x->p.flare > 0) {
        /* fi * gt * c as (fi * gt) * c, C's order: the product a ghost and channel once; a ghost's
        ** source column and row from the tables (flare_init) */
        const float fi = (float)x->p.flare * 0.25f;
        float ft[4][3];
        for (int g = 0; g < 4; g++)
            for (int k = 0; k < 3; k++)
                ft[g][k] = fi * flare_tint[g][k];
        const int32_t *fx = x->fsrc, *fy = x->fsrc + 4 * (size_t)x->sw;
        /* a ghost at a time over the image (pfx55): each float still takes the ghosts in order, and
        ** a ghost's rows off the bloom image are skipped whole */
        for (int g = 0; g < 4; g++) {
            const int32_t *gx = fx + (size_t)g * x->sw;
            const float f0 = ft[g][0], f1 = ft[g][1], f2 = ft[g][2];
            for (uint32_t y = 0; y < x->sh; y++) {
                const int32_t sy = fy[(size_t)g * x->sh + y];
                if (sy < 0)
                    continue;
                float *o = x->blur + 3 * (size_t)y * x->sw;
                const float *c = x->bright + 3 * (size_t)sy * x->sw;
                for (uint32_t xx = 0; xx < x->sw; xx++) {
                    const int32_t sx = gx[xx];
                    if (sx < 0)
                        continue;
                    o[3 * xx] += f0 * c[3 * sx], o[3 * xx + 1] += f1 * c[3 * sx + 1], o[3 * xx + 2] += f2 * c[3 * sx + 2];
                }
            }
        }
    }
    /* the wide one on a further quarter a side (a sixteenth of the image), bilinearly back */
    const uint32_t tw = x->tw, th = x->th;
    for (uint32_t ty = 0; ty < th; ty++)
        for (uint32_t tx = 0; tx < tw; tx++) {
            float a[3] = {0, 0, 0};
            int k = 0;
            for (uint32_t y = ty * BLOOM_DOWN; y < ty * BLOOM_DOWN + BLOOM_DOWN && y < x->sh; y++)
                for (uint32_t xx = tx * BLOOM_DOWN; xx < tx * BLOOM_DOWN + BLOOM_DOWN && xx < x->sw; xx++, k++)
                    for (int c = 0; c < 3; c++)
                        a[c] += x->bright[3 * ((size_t)y * x->sw + xx) + c];
            for (int c = 0; c < 3; c++)
                x->tiny[3 * ((size_t)ty * tw + tx) + c] = a[c] / (float)k;
        }
    gauss_img(x->tiny, x->tiny, x->tiny2, (int)tw, (int)th, s2 / BLOOM_DOWN > 0.5 ? s2 / BLOOM_DOWN : 0.5);
    for (uint32_t y = 0; y < x->sh; y++) {
        float fy = ((float)y + 0.5f) / BLOOM_DOWN - 0.5f;
        fy = fy < 0 ? 0 : fy;
        uint32_t y0 = (uint32_t)fy, y1 = y0 + 1 < th ? y0 + 1 : y0;
        float wy = fy - (float)y0;
        for (uint32_t xx = 0; xx < x->sw; xx++) {
            float fx = ((float)xx + 0.5f) / BLOOM_DOWN - 0.5f;
            fx = fx < 0 ? 0 : fx;
            uint32_t x0 = (uint32_t)fx, x1 = x0 + 1 < tw ? x0 + 1 : x0;
            float wx = fx - (float)x0;
            float *o = x->blur + 3 * ((size_t)y * x->sw + xx);
            for (int c = 0; c < 3; c++) {
                float v = (1 - wy) * ((1 - wx) * x->tiny[3 * (y0 * tw + x0) + c] + wx * x->tiny[3 * (y0 * tw + x1) + c]) +
                          wy * ((1 - wx) * x->tiny[3 * (y1 * tw + x0) + c] + wx * x->tiny[3 * (y1 * tw + x1) + c]);
                o[c] += half_bi * v;
            }
        }
    }
}

typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f splat4(float v) { return (v4f){v, v, v, v}; }
static inline v4f sel4(v4i m, v4f a, v4f b) { return (v4f)((m & (v4i)a) | (~m & (v4i)b)); }

/* final_band's pixels i .. i + 3 (columns xx ..) without chromatic aberration, in vector lanes:
** every lane does the scalar loop's float operations in its order (no contraction in C11 mode,
** sqrt correctly rounded either way), so the bytes are the scalar loop's. gl: NULL (no glow), or the row's glow a column,
** 3 planes of w floats: g0 + wx (g1 - g0) as the scalar loop adds it. */
static void final_four(const pfx *x, const float *src, const float m[9], const float *gl, float lut_in, size_t i,
                       uint32_t xx)
{
    v4f c0, c1, c2;
    if (!src) { /* no blur: the rendered bytes through the decoding table (decode_band's values) */
        const uint8_t *q = x->in + 4 * i;
        const float *d = x->dec;
        c0 = (v4f){d[q[2]], d[q[6]], d[q[10]], d[q[14]]}, c1 = (v4f){d[q[1]], d[q[5]], d[q[9]], d[q[13]]};
        c2 = (v4f){d[q[0]], d[q[4]], d[q[8]], d[q[12]]};
    } else { /* the blurred planes: a load each */
        const size_t px = (size_t)x->w * x->h;
        memcpy(&c0, src + i, sizeof c0), memcpy(&c1, src + px + i, sizeof c1), memcpy(&c2, src + 2 * px + i, sizeof c2);
    }
    v4f e[3];
    for (int k = 0; k < 3; k++)
        e[k] = splat4(m[3 * k]) * c0 + splat4(m[3 * k + 1]) * c1 + splat4(m[3 * k + 2]) * c2;
    if (gl) /* the row's glow per column, channel by channel (final_band) */
        for (int k = 0; k < 3; k++) {
            v4f g;
            memcpy(&g, gl + (size_t)k * x->w + xx, sizeof g);
            e[k] += g;
        }
    v4f yl = splat4(0.2126f) * e[0] + splat4(0.7152f) * e[1] + splat4(0.0722f) * e[2];
    /* each pixel's B G R A assembled in a word held in a register, the four words stored at once
    ** (not 16 byte stores; and not or-ed into memory, whose 4-byte stores a 16-byte load of them
    ** cannot forward from) */
    uint32_t p0 = 0xFF000000u, p1 = 0xFF000000u, p2 = 0xFF000000u, p3 = 0xFF000000u;
#pragma GCC unroll 3
    for (int k = 0; k < 3; k++) {
        v4f v = yl + splat4(DESAT) * (e[k] - yl);
        v = sel4(v < splat4(0), splat4(0), sel4(v > splat4((float)PFX_LUT_XMAX), splat4((float)PFX_LUT_XMAX), v));
#ifdef __SSE__
        v4f r = (v4f)_mm_sqrt_ps((__m128)v);
#else
        v4f r = {sqrtf(v[0]), sqrtf(v[1]), sqrtf(v[2]), sqrtf(v[3])};
#endif
        int32_t idx[4];
        v4i iv = __builtin_convertvector(r * splat4(lut_in) + splat4(0.5f), v4i);
        memcpy(idx, &iv, sizeof idx);
        const int sh = 8 * (2 - k); /* channel k (R G B) is byte 2 - k of BGRA */
        p0 |= (uint32_t)x->tone8[(uint32_t)idx[0]] << sh, p1 |= (uint32_t)x->tone8[(uint32_t)idx[1]] << sh;
        p2 |= (uint32_t)x->tone8[(uint32_t)idx[2]] << sh, p3 |= (uint32_t)x->tone8[(uint32_t)idx[3]] << sh;
    }
    const uint32_t px[4] = {p0, p1, p2, p3};
    uint8_t *o = x->out + 4 * i;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(o, px, sizeof px); /* the bytes B G R A in memory order */
#else
    for (int l = 0; l < 4; l++)
        o[4 * l] = (uint8_t)px[l], o[4 * l + 1] = (uint8_t)(px[l] >> 8), o[4 * l + 2] = (uint8_t)(px[l] >> 16),
        o[4 * l + 3] = 255;
#endif
}

#ifdef PFX_AVX2
_Static_assert(offsetof(pfx, tone8) + PFX_LUT + 3 <= sizeof(pfx), "final_eight's 4-byte reads of tone8 stay in pfx");

/* final_four's work for pixels i .. i + 8 n - 1 (columns xx ..) in AVX2's 8 lanes, chosen at run
** time where the CPU has it: each lane the same float operations in the same order (no FMA: the
** target adds AVX2 alone, and C11 mode does not contract), and the table read by a gather of the
** same entries, so the same bytes as final_four's. A row's groups in one call: the matrix, the
** cells' bounds and the constants are loaded into registers once (the output's stores may alias
** them, so a call a group reloaded them all). */
__attribute__((target("avx2"))) static void final_eight(const pfx *x, const float *src, const float m[9],
                                                         const float *gl, float lut_in, size_t i, uint32_t xx,
                                                         uint32_t n)
{
    const size_t px_n = (size_t)x->w * x->h, w = x->w;
    const uint8_t *in = x->in;
    uint8_t *out = x->out;
    const float *d = x->dec;
    __m256 mk[9];
    for (int k = 0; k < 9; k++)
        mk[k] = _mm256_set1_ps(m[k]);
    const uint32_t *cell = x->tcell;
    const __m256i base = _mm256_set1_epi32((int32_t)x->tbase), top = _mm256_set1_epi32((int32_t)x->ttop);
    const __m256i low = _mm256_set1_epi32((int32_t)((1u << x->tshift) - 1)), ff = _mm256_set1_epi32(0xFF);
    const __m128i sh = _mm_cvtsi32_si128((int)x->tshift);
    const __m256 lin = _mm256_set1_ps(lut_in), half = _mm256_set1_ps(0.5f), desat = _mm256_set1_ps(DESAT);
    const __m256 zero = _mm256_setzero_ps(), xmax = _mm256_set1_ps((float)PFX_LUT_XMAX);
    const __m256 ly0 = _mm256_set1_ps(0.2126f), ly1 = _mm256_set1_ps(0.7152f), ly2 = _mm256_set1_ps(0.0722f);
    for (uint32_t g = 0; g < n; g++, i += 8, xx += 8) {
        v8f c0, c1, c2;
        if (!src) { /* the bytes through the decoding table (scalar reads: faster than gathers here) */
            const uint8_t *q = in + 4 * i;
            c0 = (v8f){d[q[2]], d[q[6]], d[q[10]], d[q[14]], d[q[18]], d[q[22]], d[q[26]], d[q[30]]};
            c1 = (v8f){d[q[1]], d[q[5]], d[q[9]], d[q[13]], d[q[17]], d[q[21]], d[q[25]], d[q[29]]};
            c2 = (v8f){d[q[0]], d[q[4]], d[q[8]], d[q[12]], d[q[16]], d[q[20]], d[q[24]], d[q[28]]};
        } else { /* the blurred planes: a load each */
            c0 = (v8f)_mm256_loadu_ps(src + i), c1 = (v8f)_mm256_loadu_ps(src + px_n + i);
            c2 = (v8f)_mm256_loadu_ps(src + 2 * px_n + i);
        }
        v8f e[3];
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++)
            e[k] = (v8f)mk[3 * k] * c0 + (v8f)mk[3 * k + 1] * c1 + (v8f)mk[3 * k + 2] * c2;
        if (gl)
#pragma GCC unroll 3
            for (int k = 0; k < 3; k++)
                e[k] += (v8f)_mm256_loadu_ps(gl + (size_t)k * w + xx);
        const v8f yl = (v8f)ly0 * e[0] + (v8f)ly1 * e[1] + (v8f)ly2 * e[2];
        __m256i px = _mm256_set1_epi32((int32_t)0xFF000000u);
#pragma GCC unroll 3
        for (int k = 0; k < 3; k++) {
            v8f v = yl + (v8f)desat * (e[k] - yl);
            v = (v8f)_mm256_min_ps(_mm256_max_ps((__m256)v, zero), xmax); /* v finite or NaN: as the selects below */
            __m256i t;
            if (cell) { /* the byte by v's bits (postfx_tone.h's pfx_tone_cell in lanes): no square root */
                const __m256i dd =
                    _mm256_sub_epi32(_mm256_min_epi32(_mm256_max_epi32(_mm256_castps_si256((__m256)v), base), top), base);
                const __m256i ce = _mm256_i32gather_epi32((const int *)(const void *)cell, _mm256_srl_epi32(dd, sh), 4);
                /* the cell's byte, + 1 past its step: the comparison's -1 subtracted */
                t = _mm256_sub_epi32(_mm256_and_si256(ce, ff),
                                     _mm256_cmpgt_epi32(_mm256_and_si256(dd, low), _mm256_srli_epi32(ce, 8)));
            } else {
                const v8f r = (v8f)_mm256_sqrt_ps((__m256)v);
                const __m256i idx = _mm256_cvttps_epi32((__m256)(r * (v8f)lin + (v8f)half));
                /* 4 bytes from each entry, its byte the low one (tone8 is followed by tcell in the struct) */
                t = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(const void *)x->tone8, idx, 1), ff);
            }
            px = _mm256_or_si256(px, _mm256_slli_epi32(t, 8 * (2 - k)));
        }
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * i), px);
    }
}
#endif

#ifdef PFX_AVX2
/* The glow of columns c .. c + 7, between the same two bloom pixels g0 and g1: final_band's four
** lanes' operations in eight. */
__attribute__((target("avx2"))) static inline void glow_eight(const pfx *x, float *gl, uint32_t c, const float *g0,
                                                       const float *g1)
{
    const __m256 w8 = _mm256_loadu_ps(x->gw + c);
    for (int k = 0; k < 3; k++)
        _mm256_storeu_ps(gl + (size_t)k * x->w + c,
                         _mm256_add_ps(_mm256_set1_ps(g0[k]), _mm256_mul_ps(w8, _mm256_set1_ps(g1[k] - g0[k]))));
}
#endif

/* The final pass: chromatic aberration, exposure, white balance, glow, Unreal's desaturations
** around the tone curve, the curve and the output gamma, to BGRA. */
/* The glow's row at full width (gl: three planes of x->w floats), each column interpolated between
** its two bloom pixels of the glow's row grow; eight or four columns at a time where they share
** their bloom pixels, each lane the scalar code's operations: the same floats. eight: glow_eight
** for eight columns (a constant: the AVX2 instance, glow_row_avx2, holds the row's loop, so no
** call is made per eight columns). */
static inline __attribute__((always_inline)) void glow_row(const pfx *x, const float *grow, float *gl, bool eight)
{
    for (uint32_t c = 0; c < x->w; c++) {
        const float *g0 = grow + 3 * x->gx[c], *g1 = g0 + (x->gx[c] + 1 < x->sw ? 3 : 0), wx = x->gw[c];
#ifdef PFX_AVX2
        if (eight && c + 8 <= x->w && x->gx[c + 7] == x->gx[c]) { /* eight columns (most) */
            glow_eight(x, gl, c, g0, g1);
            c += 7;
            continue;
        }
#else
        (void)eight;
#endif
        if (c % 4 == 0 && c + 4 <= x->w && x->gx[c + 3] == x->gx[c]) {
            /* four columns between the same two bloom pixels (most: BLOOM_DOWN is a
            ** multiple of 4): the same operations in vector lanes */
            v4f w4;
            memcpy(&w4, x->gw + c, sizeof w4);
            for (int k = 0; k < 3; k++) {
                v4f g = splat4(g0[k]) + w4 * splat4(g1[k] - g0[k]);
                memcpy(gl + (size_t)k * x->w + c, &g, sizeof g);
            }
            c += 3;
            continue;
        }
        for (int k = 0; k < 3; k++)
            gl[(size_t)k * x->w + c] = g0[k] + wx * (g1[k] - g0[k]);
    }
}

#ifdef PFX_AVX2
__attribute__((target("avx2"))) static void glow_row_avx2(const pfx *x, const float *grow, float *gl)
{
    glow_row(x, grow, gl, true);
}
#endif

static void glow_full_row(const pfx *x, const float *grow, float *gl)
{
#ifdef PFX_AVX2
    if (x->avx2) {
        glow_row_avx2(x, grow, gl);
        return;
    }
#endif
    glow_row(x, grow, gl, false);
}

static void final_band(void *arg, uint32_t b)
{
    pfx *x = arg;
    const float *src = x->blur_now ? x->tmp : NULL; /* NULL: the bytes, decoded here (src_rgb) */
    const float s = (float)x->scale;
    float m[9];
    for (int k = 0; k < 9; k++)
        m[k] = (float)x->wb[k] * s;
    const bool glow_on = x->p.bloom > 0 || x->p.flare > 0;
    const float ca = (float)(x->p.ca_intensity * 0.01), ca0 = (float)x->p.ca_offset;
    const float cx = x->w * 0.5f, cy = x->h * 0.5f, rn = 1.0f / sqrtf(cx * cx + cy * cy);
    const float lut_in = (float)(PFX_LUT - 1) / sqrtf((float)PFX_LUT_XMAX);
    const uint32_t y1 = b * BAND + BAND < x->h ? b * BAND + BAND : x->h;
    for (uint32_t y = b * BAND; y < y1; y++) {
        /* the bloom row pair and weight for bilinear upsampling */
        float fy = ((float)y + 0.5f) / BLOOM_DOWN - 0.5f;
        fy = fy < 0 ? 0 : fy;
        uint32_t by0 = (uint32_t)fy, by1 = by0 + 1 < x->sh ? by0 + 1 : by0;
        float wy = fy - (float)by0;
        /* the glow's row at y, interpolated between its two bloom rows once */
        float *grow = x->grow + (size_t)b * x->sw * 3;
        if (glow_on) {
            const float *r0 = x->blur + (size_t)by0 * x->sw * 3, *r1 = x->blur + (size_t)by1 * x->sw * 3;
            uint32_t k = 0;
#ifdef __SSE__
            for (; k + 4 <= x->sw * 3; k += 4) /* the scalar loop's operations, four floats at a time */
                _mm_storeu_ps(grow + k, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(1 - wy), _mm_loadu_ps(r0 + k)),
                                                   _mm_mul_ps(_mm_set1_ps(wy), _mm_loadu_ps(r1 + k))));
#endif
            for (; k < x->sw * 3; k++)
                grow[k] = (1 - wy) * r0[k] + wy * r1[k];
        }
        uint32_t xx = 0;
        if (!(ca > 0)) { /* four pixels at a time, each lane the scalar code's operations: the same bytes */
            float *gl = glow_on ? x->gfull + (size_t)b * x->w * 3 : NULL;
            if (gl)
                glow_full_row(x, grow, gl);
#ifdef PFX_AVX2
            if (x->avx2) {
                final_eight(x, src, m, gl, lut_in, (size_t)y * x->w, 0, x->w / 8);
                xx = x->w / 8 * 8;
            }
#endif
            for (; xx + 4 <= x->w; xx += 4)
                final_four(x, src, m, gl, lut_in, (size_t)y * x->w + xx, xx);
        }
        for (; xx < x->w; xx++) {
            size_t i = (size_t)y * x->w + xx;
            float c[3];
            src_rgb(x, src, i, c);
            if (ca > 0) {
                /* red sampled farther out, blue nearer in, growing past the offset radius */
                float dx = (float)xx + 0.5f - cx, dy = (float)y + 0.5f - cy, r = sqrtf(dx * dx + dy * dy) * rn;
                float k = r > ca0 ? ca * (r - ca0) / (1.0f - ca0 + 1e-6f) : 0;
                if (k > 0) {
                    long rx = round_away(cx + dx * (1 + k) - 0.5f), ry = round_away(cy + dy * (1 + k) - 0.5f);
                    long bx = round_away(cx + dx * (1 - k) - 0.5f), by = round_away(cy + dy * (1 - k) - 0.5f);
                    float t[3];
                    if (rx >= 0 && ry >= 0 && rx < (long)x->w && ry < (long)x->h)
                        src_rgb(x, src, (size_t)ry * x->w + (size_t)rx, t), c[0] = t[0];
                    if (bx >= 0 && by >= 0 && bx < (long)x->w && by < (long)x->h)
                        src_rgb(x, src, (size_t)by * x->w + (size_t)bx, t), c[2] = t[2];
                }
            }
            float e[3];
            for (int k = 0; k < 3; k++)
                e[k] = m[3 * k] * c[0] + m[3 * k + 1] * c[1] + m[3 * k + 2] * c[2];
            if (glow_on) {
                const float *g0 = grow + 3 * x->gx[xx], *g1 = g0 + (x->gx[xx] + 1 < x->sw ? 3 : 0), wx = x->gw[xx];
                for (int k = 0; k < 3; k++)
                    e[k] += g0[k] + wx * (g1[k] - g0[k]);
            }
            /* Unreal's desaturations around the curve (0.96 before, 0.93 after) both before it
            ** (0.96 x 0.93): one table from exposed linear to the output byte per channel */
            float yl = 0.2126f * e[0] + 0.7152f * e[1] + 0.0722f * e[2];
            uint8_t *o = x->out + 4 * i;
            for (int k = 0; k < 3; k++) {
                float v = yl + DESAT * (e[k] - yl);
                v = v < 0 ? 0 : v > (float)PFX_LUT_XMAX ? (float)PFX_LUT_XMAX : v;
                o[2 - k] = x->tone8[(uint32_t)(sqrtf(v) * lut_in + 0.5f)];
            }
            o[3] = 255;
        }
    }
}

void pfx_apply(pfx *x, const uint8_t *in, const float *vel, double dt, uint8_t *out, pfx_run_fn run, void *runner)
{
    pfx_apply_scaled(x, in, vel, 1, dt, out, run, runner);
}

void pfx_apply_scaled(pfx *x, const uint8_t *in, const float *vel, uint32_t d, double dt, uint8_t *out, pfx_run_fn run,
                      void *runner)
{
    if (vel && d > 1 && (x->w / d == 0 || x->h / d == 0))
        vel = NULL; /* no small pixel to read (the camera never asks for this) */
    x->in = in, x->out = out, x->vel = vel, x->vel_div = d > 1 ? d : 1;
    x->blur_now = false;
    if (vel && x->mb && x->tmp) { /* BAND == TILE: a band is a row of tiles */
        run_tasks(run, runner, x->vel_div > 1 ? tile_rows_div : tile_rows, x, bands(x));
        tile_max(x);
    }
    if (x->blur_now) {
        /* the gather reads neighbours: a band's rows and those its taps reach decoded into a
        ** band's buffer (a tap's row is at most 0.5 |y| + 1 rows from its pixel's, y the tiles'
        ** largest), or, where they would not fit, the whole image decoded first */
        x->banded = !x->whole && (x->slot_rows == x->h || 0.5f * x->tile_maxy + 1.0f <= (float)((x->slot_rows - BAND) / 2));
        if (!x->banded)
            run_tasks(run, runner, decode_band, x, bands(x));
        else /* the slots' rows are the last frame's */
            for (uint32_t k = 0; k < x->nslot; k++)
                x->slots->lo[k] = x->slots->hi[k] = 0;
        run_tasks(run, runner, blur_band, x, bands(x));
    }
    /* without blur nothing is decoded ahead: metering, bloom and the final pass read the bytes
    ** through the table (src_rgb), one pass over the image instead of two */
    const float *src = x->blur_now ? x->tmp : NULL;
    /* exposure: manual, or the histogram's EV clamped to [min, max] and adapted at Unreal's rate */
    if (x->p.manual) {
        x->target_ev = x->ev = pfx_manual_ev(&x->p);
    } else {
        double target = clampd(metered_ev(x, src), x->p.min_bright, x->p.max_bright); /* after the blur */
        x->target_ev = target;
        if (!x->adapted || !(dt > 0)) {
            x->ev = target;
        } else {
            double speed = target > x->ev ? x->p.speed_up : x->p.speed_down;
            x->ev += (target - x->ev) * (1 - exp2(-dt * speed));
        }
    }
    x->adapted = true;
    /* scale = PFX_LREF / (1.2 2^EV100) 2^compensation (Unreal's exposure from EV100) */
    x->scale = PFX_LREF / (1.2 * exp2(x->ev)) * exp2(x->p.compensation);
    if (x->p.bloom > 0 || x->p.flare > 0) {
        bloom_source(x, src);
        glow(x);
    }
    run_tasks(run, runner, final_band, x, bands(x));
}
