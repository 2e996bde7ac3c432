/* test_postfx.c — CARLA's camera post-process (plugins/common/postfx.c) on synthetic images: each
** attribute moves the image the documented way (docs/rendering.md "Post-processing"). */
#include "../../plugins/common/postfx.h"
#include "../../plugins/common/postfx_tables.h"
#include "../../plugins/common/postfx_tone.h"
#include "../check.h"

#include <pthread.h>
#include <stdlib.h>

enum { W = 256, H = 144 }; /* bloom works on an eighth of the image a side: room for it to fade */

/* CARLA's defaults, everything that is not under test off. */
static pfx_params base(void)
{
    return (pfx_params){.manual = true, .shutter_speed = 200, .iso = 100, .fstop = 1.4, .compensation = 0,
                        .min_bright = 10, .max_bright = 12, .speed_up = 3, .speed_down = 1, .calibration = 16,
                        .slope = 0.88, .toe = 0.55, .shoulder = 0.26, .black_clip = 0, .white_clip = 0.04,
                        .temp = 6500, .tint = 0, .gamma = 2.2};
}

static uint8_t img[W * H * 4], out[W * H * 4], out2[W * H * 4];

static void fill_grey_ramp(void) /* columns of grey from 2 to 254, four times over */
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t v = (uint8_t)(2 + 4 * (x % 64));
            uint8_t *p = img + 4 * (y * W + x);
            p[0] = p[1] = p[2] = v, p[3] = 255;
        }
}

static void fill(uint8_t b, uint8_t g, uint8_t r)
{
    for (int i = 0; i < W * H; i++)
        img[4 * i] = b, img[4 * i + 1] = g, img[4 * i + 2] = r, img[4 * i + 3] = 255;
}

static void run(const pfx_params *p, uint8_t *o)
{
    pfx x;
    CHECK(pfx_init(&x, p, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, o, NULL, NULL);
    pfx_free(&x);
}

/* The exposed linear value behind an output byte: the display gamma and the tone curve inverted. */
static double unexpose(const pfx_params *p, uint8_t b)
{
    double v = pow(b / 255.0, p->gamma), lo = 1e-6, hi = PFX_LUT_XMAX;
    for (int i = 0; i < 100; i++) {
        double m = sqrt(lo * hi);
        if (pfx_tone_curve(p, m) < v)
            lo = m;
        else
            hi = m;
    }
    return sqrt(lo * hi);
}

static void exposure_compensation(void)
{
    /* +1 stop doubles the linear exposure: the tone curve and gamma undone, each grey column's
    ** exposed value doubles, within the 8-bit rounding, wherever neither image clips */
    fill_grey_ramp();
    pfx_params a = base(), b = base();
    a.compensation = -3, b.compensation = -2; /* manual's default EV overexposes a bright ramp */
    run(&a, out), run(&b, out2);
    int n = 0;
    double worst = 0;
    for (int x = 0; x < 64; x++) {
        uint8_t o1 = out[4 * x + 1], o2 = out2[4 * x + 1];
        if (o1 < 24 || o2 > 240)
            continue;
        double r = unexpose(&b, o2) / unexpose(&a, o1);
        worst = fmax(worst, fabs(r - 2));
        n++;
    }
    CHECK(n >= 10 && worst < 0.12, "compensation +1: linear ratio 2 within 6 %% over %d columns, worst off by %.3f", n,
          worst);
    /* and the image gets brighter everywhere, never darker */
    int darker = 0, brighter = 0;
    for (int i = 0; i < W * H; i++)
        darker += out2[4 * i + 1] < out[4 * i + 1], brighter += out2[4 * i + 1] > out[4 * i + 1];
    CHECK(darker == 0 && brighter > W * H / 2, "compensation +1 brightens (%d darker, %d brighter)", darker, brighter);
}

static void manual_exposure(void)
{
    /* EV100 = log2(N^2 shutter 100 / ISO); scale = 2^(12 - EV100 + compensation) */
    pfx_params p = base();
    CHECK_NEAR(pfx_manual_ev(&p), log2(1.4 * 1.4 * 200), 1e-12, "EV100 of CARLA's defaults");
    fill(60, 60, 60);
    pfx x;
    double s[4];
    pfx_params v[4] = {p, p, p, p};
    v[1].iso = 200, v[2].shutter_speed = 400, v[3].fstop = 1.4 * sqrt(2.0);
    for (int k = 0; k < 4; k++) {
        CHECK(pfx_init(&x, &v[k], W, H), "init");
        pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
        s[k] = x.scale;
        pfx_free(&x);
    }
    CHECK_NEAR(s[0], exp2(12 - log2(1.4 * 1.4 * 200)), 1e-9, "manual scale");
    CHECK_NEAR(s[1] / s[0], 2, 1e-9, "ISO x2 doubles the exposure");
    CHECK_NEAR(s[2] / s[0], 0.5, 1e-9, "shutter twice as fast halves it");
    CHECK_NEAR(s[3] / s[0], 0.5, 1e-9, "f-stop x sqrt 2 halves it");
}

static void auto_exposure(void)
{
    /* A uniform grey at linear L meters EV100 = log2(L LREF 100 / K): unclamped, the exposure maps
    ** L to K / 120 (times 2^compensation) whatever L is. */
    pfx_params p = base();
    p.manual = false, p.min_bright = -10, p.max_bright = 30, p.compensation = 0.75;
    pfx x;
    for (int g = 30; g <= 200; g += 85) {
        fill((uint8_t)g, (uint8_t)g, (uint8_t)g);
        double L = pow(g / 255.0, 2.2);
        CHECK(pfx_init(&x, &p, W, H), "init");
        pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
        /* the histogram's bins are 0.25 EV wide: the mean is a bin centre */
        CHECK(fabs(log2(x.scale * L / (16.0 / 120 * exp2(0.75)))) <= 0.126, "grey %d: exposed to %.4f, want %.4f", g,
              x.scale * L, 16.0 / 120 * exp2(0.75));
        pfx_free(&x);
    }
    /* calibration_constant up: a brighter image */
    fill(60, 60, 60);
    double sk[2];
    for (int k = 0; k < 2; k++) {
        pfx_params q = p;
        q.calibration = k ? 32 : 16;
        CHECK(pfx_init(&x, &q, W, H), "init");
        pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
        sk[k] = x.scale;
        pfx_free(&x);
    }
    CHECK_NEAR(sk[1] / sk[0], 2, 1e-9, "calibration_constant x2 doubles the exposure");
    /* CARLA's clamp: a dark street meters below exposure_min_bright (10) and gets EV 10; a bright
    ** one above 12 gets 12; raising both by one stop halves the exposure */
    p.min_bright = 10, p.max_bright = 12;
    fill(3, 3, 3);
    CHECK(pfx_init(&x, &p, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    CHECK_NEAR(x.ev, 10, 1e-12, "dark scene: EV100 at exposure_min_bright");
    /* adaptation at Unreal's rate: a bright scene next, EV moves 1 - 2^(-dt speed_up) of the gap */
    fill(250, 250, 250);
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    CHECK_NEAR(x.target_ev, 12, 1e-12, "bright scene: target at exposure_max_bright");
    CHECK_NEAR(x.ev, 10 + 2 * (1 - exp2(-0.05 * 3)), 1e-9, "adapting up at exposure_speed_up");
    double ev1 = x.ev;
    fill(3, 3, 3);
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    CHECK_NEAR(x.ev, ev1 + (10 - ev1) * (1 - exp2(-0.05 * 1)), 1e-9, "adapting down at exposure_speed_down");
    pfx_free(&x);
    pfx_params q = p;
    q.min_bright = 11, q.max_bright = 13;
    fill(3, 3, 3);
    double s0, s1;
    CHECK(pfx_init(&x, &p, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    s0 = x.scale;
    pfx_free(&x);
    CHECK(pfx_init(&x, &q, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    s1 = x.scale;
    pfx_free(&x);
    CHECK_NEAR(s1 / s0, 0.5, 1e-9, "exposure_min_bright +1 halves a dark scene's exposure");
}

static void channel_means(const uint8_t *o, double m[3]) /* R, G, B */
{
    m[0] = m[1] = m[2] = 0;
    for (int i = 0; i < W * H; i++)
        m[0] += o[4 * i + 2], m[1] += o[4 * i + 1], m[2] += o[4 * i];
    for (int k = 0; k < 3; k++)
        m[k] /= W * H;
}

static void white_balance(void)
{
    /* temp is the light corrected for: below 6500 K the image turns blue, above it orange;
    ** positive tint (the light corrected for moved toward magenta) turns it green, negative magenta */
    fill(90, 90, 90);
    pfx_params p = base();
    p.compensation = -3;
    double m0[3], m[3];
    run(&p, out);
    channel_means(out, m0);
    CHECK(fabs(m0[0] - m0[2]) <= 1 && fabs(m0[0] - m0[1]) <= 1, "6500 K keeps grey grey: %g %g %g", m0[0], m0[1], m0[2]);
    p.temp = 3000;
    run(&p, out);
    channel_means(out, m);
    CHECK(m[2] > m0[2] + 20 && m[0] < m0[0] - 10, "3000 K: bluer (R %g -> %g, B %g -> %g)", m0[0], m[0], m0[2], m[2]);
    p.temp = 10000;
    run(&p, out);
    channel_means(out, m);
    CHECK(m[0] > m0[0] + 3 && m[2] < m0[2] - 10, "10000 K: warmer (R %g -> %g, B %g -> %g)", m0[0], m[0], m0[2], m[2]);
    p.temp = 6500, p.tint = 0.5;
    run(&p, out);
    channel_means(out, m);
    CHECK(m[1] > m0[1] + 3 && m[1] > m[0] && m[1] > m[2], "tint +0.5: green (R %g G %g B %g)", m[0], m[1], m[2]);
    p.tint = -0.5;
    run(&p, out);
    channel_means(out, m);
    CHECK(m[1] < m0[1] - 3 && m[1] < m[0] && m[1] < m[2], "tint -0.5: magenta (R %g G %g B %g)", m[0], m[1], m[2]);
}

static void tone_curve(void)
{
    pfx_params p = base();
    CHECK_NEAR(pfx_tone_curve(&p, 0.18), 0.18, 1e-9, "mid grey maps to itself (Unreal's match point)");
    double prev = -1;
    int mono = 1;
    for (double x = 1e-4; x < 60; x *= 1.1) {
        double y = pfx_tone_curve(&p, x);
        mono &= y >= prev;
        prev = y;
    }
    CHECK(mono && prev <= 1.04 + 1e-9, "monotone, below 1 + white_clip (%g)", prev);
    pfx_params q = p;
    q.slope = 1.2;
    CHECK(pfx_tone_curve(&q, 0.5) > pfx_tone_curve(&p, 0.5) && pfx_tone_curve(&q, 0.05) < pfx_tone_curve(&p, 0.05),
          "slope up: more contrast around mid grey");
    q = p, q.black_clip = 0.1;
    CHECK(pfx_tone_curve(&q, 0.02) < pfx_tone_curve(&p, 0.02), "black_clip up: darker shadows");
    q = p, q.white_clip = 0.2;
    CHECK(pfx_tone_curve(&q, 4) > pfx_tone_curve(&p, 4), "white_clip up: brighter highlights");
    q = p, q.toe = 0.8;
    CHECK(pfx_tone_curve(&q, 0.02) < pfx_tone_curve(&p, 0.02), "toe up: darker shadows");
    q = p, q.shoulder = 0.5;
    CHECK(pfx_tone_curve(&q, 2) > pfx_tone_curve(&p, 2), "shoulder up: brighter highlights");
}

static void bloom_flare_aberration(void)
{
    /* a bright square on black at the upper left: bloom lights its surroundings, the flare its
    ** mirror image about the centre; at 0 both are gone, byte for byte */
    fill(0, 0, 0);
    for (int y = 8; y < 14; y++)
        for (int x = 8; x < 14; x++)
            img[4 * (y * W + x)] = img[4 * (y * W + x) + 1] = img[4 * (y * W + x) + 2] = 255;
    pfx_params p = base();
    p.compensation = 1; /* the square well above what the exposure saturates */
    uint8_t none[W * H * 4];
    run(&p, none);
    p.bloom = 0.675;
    run(&p, out);
    int near = out[4 * (11 * W + 17) + 1], far = out[4 * (120 * W + 200) + 1];
    CHECK(none[4 * (11 * W + 17) + 1] == 0 && near > 5, "bloom lights 4 px beside the square: %d", near);
    CHECK(far <= near / 4, "and fades with distance: %d", far);
    p.bloom = 0, p.flare = 1;
    run(&p, out2);
    int mirror = out2[4 * ((H - 11) * W + (W - 11)) + 1];
    CHECK(mirror > 3 && none[4 * ((H - 11) * W + (W - 11)) + 1] == 0, "lens flare: a ghost at the mirror point (%d)", mirror);
    /* chromatic aberration: a grey area's edge a quarter of the width in (where the radial shifts
    ** cross it; through the centre they would not) gets coloured fringes, the grey inside not */
    fill(0, 0, 0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (x < W / 4) {
                uint8_t *q = img + 4 * (y * W + x);
                q[0] = q[1] = q[2] = 200;
            }
    pfx_params c = base();
    c.compensation = -2;
    run(&c, none);
    c.ca_intensity = 5;
    run(&c, out);
    int fringe = 0;
    for (int x = 0; x < W; x++) {
        const uint8_t *q = out + 4 * (2 * W + x);
        fringe += abs(q[2] - q[0]) > 8; /* well past white balance's byte between R and B */
    }
    int centre_diff = memcmp(out + 4 * (H / 2 * W + 20), none + 4 * (H / 2 * W + 20), 4 * 24) != 0;
    CHECK(fringe > 0 && !centre_diff, "aberration: %d fringed pixels at the top edge, centre row unchanged (%d)", fringe,
          centre_diff);
}

static void motion_blur(void)
{
    /* a white square moving right 8 px (blur vector), on grey: it smears both ways along x,
    ** not along y; zero vectors change nothing */
    fill(40, 40, 40);
    float *vel = calloc((size_t)W * H * 2, sizeof(float));
    for (int y = 20; y < 28; y++)
        for (int x = 28; x < 36; x++) {
            uint8_t *q = img + 4 * (y * W + x);
            q[0] = q[1] = q[2] = 230;
            vel[2 * (y * W + x)] = 8;
        }
    pfx_params p = base();
    p.mb_intensity = 0.45, p.mb_max_distortion = 0.35, p.compensation = -2;
    pfx x;
    CHECK(pfx_init(&x, &p, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
    x.adapted = false;
    pfx_apply(&x, img, vel, 0.05, out2, NULL, NULL);
    int left = out2[4 * (24 * W + 26) + 1], before = out[4 * (24 * W + 26) + 1];
    int above = out2[4 * (17 * W + 31) + 1], above0 = out[4 * (17 * W + 31) + 1];
    int inside = out2[4 * (24 * W + 28) + 1], inside0 = out[4 * (24 * W + 28) + 1];
    CHECK(left > before + 10, "smears 2 px ahead of the square (%d -> %d)", before, left);
    CHECK(inside < inside0 - 10, "its edge mixes with the background (%d -> %d)", inside0, inside);
    CHECK(above == above0, "not across the motion (%d -> %d)", above0, above);
    memset(vel, 0, (size_t)W * H * 2 * sizeof(float));
    x.adapted = false;
    pfx_apply(&x, img, vel, 0.05, out2, NULL, NULL);
    CHECK(memcmp(out, out2, sizeof out) == 0, "a still image is unchanged by motion blur");
    pfx_free(&x);
    free(vel);
}

static void deterministic(void)
{
    fill_grey_ramp();
    pfx_params p = base();
    p.manual = false, p.bloom = 0.675, p.flare = 0.1, p.ca_intensity = 1;
    run(&p, out), run(&p, out2);
    CHECK(memcmp(out, out2, sizeof out) == 0, "the same image twice: the same bytes");
}

/* The tile's blur vector is the first longest in the tile's row-major order (Unreal's tile max
** as a scan finds it; tile_rows finds it four pixels at a time): two vectors of the same length
** in one tile, one vertical and one horizontal, over vertical stripes that only a horizontal blur
** changes, among pixels moving vertically a little slower (fast enough to take the near taps).
** Whichever comes first in row-major order sets the tile's (and its neighbours') blur. */
static void tile_max_first(void)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *q = img + 4 * (y * W + x), v = x % 2 ? 220 : 30;
            q[0] = q[1] = q[2] = v, q[3] = 255;
        }
    pfx_params p = base();
    p.mb_intensity = 0.45, p.mb_max_distortion = 5;
    float *vel = calloc((size_t)W * H * 2, sizeof(float));
    pfx x;
    CHECK(pfx_init(&x, &p, W, H), "init");
    pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL); /* no blur */
    /* in the tile at (64, 32), the vertical one's column and row, then the horizontal one's: in
    ** different SSE lanes (columns 9 and 2), then in the same lane (columns 1 and 5); even cases
    ** put the vertical one first */
    static const int at[4][4] = {{9, 2, 2, 3}, {2, 3, 9, 2}, {1, 2, 5, 2}, {5, 2, 1, 2}};
    for (int order = 0; order < 4; order++) {
        for (int i = 0; i < W * H; i++)
            vel[2 * i] = 0, vel[2 * i + 1] = 3.9f;
        const int vx = at[order][0], vy = at[order][1], hx = at[order][2], hy = at[order][3];
        vel[2 * ((32 + vy) * W + 64 + vx) + 1] = 4;
        vel[2 * ((32 + hy) * W + 64 + hx)] = 4, vel[2 * ((32 + hy) * W + 64 + hx) + 1] = 0;
        pfx_apply(&x, img, vel, 0.05, out2, NULL, NULL);
        int changed = 0;
        for (int y = 32; y < 48; y++)
            for (int xx = 64; xx < 80; xx++)
                changed += out2[4 * (y * W + xx) + 1] != out[4 * (y * W + xx) + 1];
        if (order % 2 == 0)
            CHECK(changed == 0, "case %d, the vertical vector first: vertical stripes unchanged (%d pixels changed)", order, changed);
        else
            CHECK(changed > 200, "case %d, the horizontal vector first: the stripes blur (%d of 256 pixels changed)", order, changed);
    }
    pfx_free(&x);
    free(vel);
}

/* A runner that runs the tasks last first: each task writes its own rows, so any order gives
** the same bytes (the engine's pool runs them in any order on 1-3 threads). */
static void run_reversed(void *runner, void (*fn)(void *arg, uint32_t task), void *arg, uint32_t n)
{
    (void)runner;
    for (uint32_t t = n; t-- > 0;)
        fn(arg, t);
}

/* Motion blur with random vectors (still, slow and fast regions and pixels of their own), bloom,
** flare and chromatic aberration on: the bytes do not depend on the order of the bands. */
static void task_order(void)
{
    uint64_t st = 12345;
    float *vel = calloc((size_t)W * H * 2, sizeof(float));
    for (int i = 0; i < W * H; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        img[4 * i] = (uint8_t)(st >> 56), img[4 * i + 1] = (uint8_t)(st >> 48), img[4 * i + 2] = (uint8_t)(st >> 40);
        img[4 * i + 3] = 255;
        const int x = i % W, y = i / W, region = (x / 24 + y / 20) % 4;
        const float r0 = (float)((st >> 20) & 1023) / 1023.0f - 0.5f, r1 = (float)((st >> 8) & 1023) / 1023.0f - 0.5f;
        vel[2 * i] = region == 0 ? 0 : region == 1 ? 0.3f : region == 2 ? 3.5f : 12 * r0;
        vel[2 * i + 1] = region == 0 ? 0 : region == 1 ? -0.2f : region == 2 ? -2.0f : 12 * r1;
    }
    for (int ca = 0; ca < 2; ca++) {
        pfx_params p = base();
        p.manual = false, p.bloom = 0.675, p.flare = 0.1, p.ca_intensity = ca, p.mb_intensity = 0.45;
        p.mb_max_distortion = 2;
        pfx a, b;
        CHECK(pfx_init(&a, &p, W, H) && pfx_init(&b, &p, W, H), "init");
        pfx_apply(&a, img, vel, 0.05, out, NULL, NULL);
        pfx_apply(&b, img, vel, 0.05, out2, run_reversed, NULL);
        CHECK(memcmp(out, out2, sizeof out) == 0, "bands in reverse order: the same bytes (aberration %d)", ca);
        /* the final pass in SSE2's four lanes instead of AVX2's eight and the gather a pixel at a
        ** time instead of eight (where the CPU has AVX2): the same bytes, with blur and without
        ** (the bytes read through the table) */
        for (int blur = 0; blur < 2; blur++) {
            pfx c;
            CHECK(pfx_init(&c, &p, W, H), "init");
            const bool wide = c.avx2;
            c.avx2 = false;
            pfx_apply(&c, img, blur ? vel : NULL, 0.05, out2, NULL, NULL);
            c.avx2 = wide, c.adapted = false;
            pfx_apply(&c, img, blur ? vel : NULL, 0.05, out, NULL, NULL);
            CHECK(memcmp(out, out2, sizeof out) == 0,
                  "SSE2 and AVX2 final passes and gathers: the same bytes (blur %d, aberration %d)", blur, ca);
            pfx_free(&c);
        }
        pfx_free(&a), pfx_free(&b);
    }
    free(vel);
}

/* The gather band by band (each band's rows and the rows its taps reach decoded into a band's
** buffer, its half speeds made there) against the whole image decoded first (pfx.whole, the path
** of taps reaching past a band's buffer): the same bytes, for vectors of every length up to
** that reach, at full and at half size, in order and reversed, with and without AVX2; vectors
** reaching farther take the whole image's path. */
static void bands_whole(void)
{
    uint64_t st = 777;
    float *vel = calloc((size_t)W * H * 2, sizeof(float));
    const float len[4] = {1.5f, 6, 24, 90}; /* the last reaches past a band's buffer */
    for (int v = 0; v < 4; v++)
        for (int d = 1; d <= 2; d++)
            for (int order = 0; order < 2; order++)
                for (int wide = 0; wide < 2; wide++) {
                    for (int i = 0; i < W * H; i++) {
                        st = st * 6364136223846793005ull + 1442695040888963407ull;
                        img[4 * i] = (uint8_t)(st >> 56), img[4 * i + 1] = (uint8_t)(st >> 48);
                        img[4 * i + 2] = (uint8_t)(st >> 40), img[4 * i + 3] = 255;
                        const int x = i % W, y = i / W, region = (x / 24 + y / 20) % 3;
                        const float r0 = (float)((st >> 20) & 1023) / 1023.0f - 0.5f;
                        const float r1 = (float)((st >> 8) & 1023) / 1023.0f - 0.5f;
                        vel[2 * i] = region == 0 ? 0 : len[v] * r0 / (float)d;
                        vel[2 * i + 1] = region == 0 ? 0 : region == 1 ? len[v] * r1 / (float)d : len[v] / (float)d;
                    }
                    pfx_params p = base();
                    p.manual = false, p.bloom = 0.675, p.flare = 0.1, p.mb_intensity = 0.45, p.mb_max_distortion = 50;
                    pfx a, b;
                    CHECK(pfx_init(&a, &p, W, H) && pfx_init(&b, &p, W, H), "init");
                    b.whole = true;
                    a.avx2 = a.avx2 && wide, b.avx2 = b.avx2 && wide;
                    pfx_apply_scaled(&a, img, vel, (uint32_t)d, 0.05, out, order ? run_reversed : NULL, NULL);
                    pfx_apply_scaled(&b, img, vel, (uint32_t)d, 0.05, out2, NULL, NULL);
                    CHECK(a.banded == (v < 3) && !b.banded,
                          "vectors of %g px take the %s path (took %s)", len[v], v < 3 ? "bands'" : "whole image's",
                          a.banded ? "the bands'" : "the whole image's");
                    CHECK(memcmp(out, out2, sizeof out) == 0,
                          "band by band and the whole image: the same bytes (%g px, 1/%d size, %s, avx2 %d)", len[v],
                          d, order ? "reversed" : "in order", wide);
                    pfx_free(&a), pfx_free(&b);
                }
    free(vel);
}

/* Auto exposure's bins by thresholds (postfx_meter.h) against log2 a sample, for three meter
** constants: every luminance within 20 000 ulps of each bin's step, 2 million luminances of random
** float channels (the meter's own sums) and 2 million random positive doubles; 0, NaN and +inf. */
static void meter_bins(void)
{
    const double cal[3] = {16, 12.5, 100};
    uint64_t st = 4242;
    for (int c = 0; c < 3; c++) {
        pfx_meter m;
        const double k = log2(PFX_LREF * 100.0 / cal[c]);
        CHECK(pfx_meter_init(&m, k) && m.fast, "the steps found for K = %g", cal[c]);
        long bad = 0, n = 0;
        for (int b = 1; b < PFX_HIST_BINS; b++) {
            uint64_t t;
            memcpy(&t, &m.thr[b], sizeof t);
            for (int64_t j = -20000; j <= 20000; j++, n++) {
                const uint64_t u = t + (uint64_t)j;
                double l;
                memcpy(&l, &u, sizeof l);
                bad += pfx_meter_bin(&m, l) != pfx_meter_bin_exact(k, l);
            }
        }
        for (int i = 0; i < 2000000; i++, n += 2) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            const float c0 = (float)(st >> 40) / 16777216.0f, c1 = (float)((st >> 16) & 0xFFFFFF) / 16777216.0f;
            const float c2 = (float)((st >> 3) & 0x1FFF) / 8192.0f * (i % 7 == 0 ? 1e-6f : 1.0f);
            const double l = 0.2126 * c0 + 0.7152 * c1 + 0.0722 * c2;
            bad += pfx_meter_bin(&m, l) != pfx_meter_bin_exact(k, l);
            const uint64_t u = (st >> 1) % 0x7FF0000000000000ull;
            double r;
            memcpy(&r, &u, sizeof r);
            bad += pfx_meter_bin(&m, r) != pfx_meter_bin_exact(k, r);
        }
        const double odd[4] = {0, NAN, INFINITY, -1};
        for (int i = 0; i < 4; i++, n++)
            bad += pfx_meter_bin(&m, odd[i]) != pfx_meter_bin_exact(k, odd[i]);
        CHECK(bad == 0, "K = %g: %ld of %ld luminances in a bin other than log2's", cal[c], bad, n);
    }
}

/* The tone table's byte by the value's float bits (postfx_tone.h) against the square-root index
** it replaces: at every cell's start and end and on both sides of its step, and every 4099th float
** in [0, PFX_LUT_XMAX] (the full 1.1 billion agreed in a harness, docs/performance.md pfx48); then
** whole images, the final pass with the cells against without, at exposures from -4 to +10 stops
** (values from the toe to past the last step). Curves that step by two in one float keep the root. */
static void tone_cells(void)
{
    pfx_params v[6];
    for (int i = 0; i < 6; i++)
        v[i] = base();
    v[1].gamma = 1.0, v[2].gamma = 3.0, v[3].slope = 1.2, v[4].toe = 0.8, v[5].shoulder = 0.5;
    float top = (float)PFX_LUT_XMAX;
    uint32_t hi;
    memcpy(&hi, &top, sizeof hi);
    for (int s = 0; s < 6; s++) {
        pfx x;
        CHECK(pfx_init(&x, &v[s], W, H) && x.tcell, "cells for curve %d", s);
        if (!x.tcell) {
            pfx_free(&x);
            continue;
        }
        long bad = 0, n = 0;
        const uint32_t mask = (1u << x.tshift) - 1, cells = ((x.ttop - x.tbase) >> x.tshift) + 1;
        for (uint32_t k = 0; k < cells; k++) {
            const uint32_t lo = x.tbase + (k << x.tshift), at = x.tcell[k] >> 8;
            const uint32_t u[6] = {lo, lo + mask, lo + at - 1, lo + at, lo + at + 1, lo + at + 2};
            for (int j = 0; j < 6; j++) {
                float f;
                const uint32_t b = u[j] > hi ? hi : u[j];
                memcpy(&f, &b, sizeof f);
                bad += pfx_tone_cell(&x, b) != pfx_tone_exact(&x, f), n++;
            }
        }
        for (uint32_t b = 0; b <= hi; b += 4099) {
            float f;
            memcpy(&f, &b, sizeof f);
            bad += pfx_tone_cell(&x, b) != pfx_tone_exact(&x, f), n++;
        }
        bad += pfx_tone_cell(&x, 0x80000000u) != pfx_tone_exact(&x, -0.0f), n++;
        CHECK(bad == 0, "curve %d: %ld of %ld floats' bytes differ from the square root's", s, bad, n);
        pfx_free(&x);
    }
    uint64_t st = 99;
    for (int i = 0; i < W * H; i++) {
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        img[4 * i] = (uint8_t)(st >> 56), img[4 * i + 1] = (uint8_t)(st >> 48), img[4 * i + 2] = (uint8_t)(st >> 40);
        img[4 * i + 3] = 255;
    }
    for (int s = 0; s < 6; s++)
        for (int c = -4; c <= 10; c += 2) {
            pfx_params p = v[s];
            p.compensation = c, p.bloom = 0.675, p.flare = 0.1;
            pfx x;
            CHECK(pfx_init(&x, &p, W, H), "init");
            pfx_apply(&x, img, NULL, 0.05, out, NULL, NULL);
            free(x.tcell), x.tcell = NULL;
            pfx_apply(&x, img, NULL, 0.05, out2, NULL, NULL);
            CHECK(memcmp(out, out2, sizeof out) == 0, "curve %d, %+d stops: the cells' bytes are the square root's", s, c);
            pfx_free(&x);
        }
}

/* x's tables against the tables computed without the cache (pfx_tables_compute): every byte. */
static bool same_tables(const pfx *x)
{
    pfx *r = calloc(1, sizeof *r);
    if (!r)
        return false;
    r->p = x->p;
    pfx_tables_compute(r);
    const size_t n = r->tcell ? ((size_t)(r->ttop - r->tbase) >> r->tshift) + 1 : 0;
    bool same = memcmp(x->dec, r->dec, sizeof r->dec) == 0 && memcmp(x->tone8, r->tone8, sizeof r->tone8) == 0 &&
                memcmp(x->wb, r->wb, sizeof r->wb) == 0 && memcmp(&x->meter, &r->meter, sizeof r->meter) == 0 &&
                (x->tcell != NULL) == (r->tcell != NULL) && x->tbase == r->tbase && x->ttop == r->ttop &&
                x->tshift == r->tshift && (!n || memcmp(x->tcell, r->tcell, n * sizeof *r->tcell) == 0);
    free(r->tcell);
    free(r);
    return same;
}

/* The i-th of 24 keys: every attribute the tables read moved in turn (more keys than the cache
** holds, so that entries are replaced). */
static pfx_params key_params(int i)
{
    pfx_params p = base();
    const double d = 1 + 0.01 * (i / 9 + 1);
    double *f[9] = {&p.slope, &p.toe, &p.shoulder, &p.black_clip, &p.white_clip, &p.gamma, &p.calibration, &p.temp, &p.tint};
    *f[i % 9] = *f[i % 9] * d + (i % 9 >= 3 && i % 9 <= 4 ? 0.01 : 0) + (i % 9 == 8 ? 0.1 * (i / 9 + 1) : 0);
    return p;
}

/* A thread's cameras (check.h's tally is the main thread's: a worker counts its own failures). */
typedef struct worker {
    int t, bad;
} worker;

static void *tables_worker(void *arg)
{
    worker *w = arg;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 24; i++) {
            pfx_params p = key_params((i + 7 * w->t) % 24);
            pfx *x = malloc(sizeof *x);
            w->bad += !x || !pfx_init(x, &p, 64, 32) || !same_tables(x);
            if (x)
                pfx_free(x);
            free(x);
        }
    return NULL;
}

static void tables_cache(void)
{
    /* A second camera with the same attributes copies the first's tables: the same bytes, and a
    ** hit; one that differs in any attribute the tables read gets its own. */
    pfx_params p = base();
    pfx *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CHECK(a && b && pfx_init(a, &p, W, H), "init");
    const unsigned long h0 = pfx_tables_hits();
    CHECK(pfx_init(b, &p, W, H), "init");
    CHECK(pfx_tables_hits() == h0 + 1, "the second camera's tables from the cache");
    CHECK(same_tables(a) && same_tables(b), "cached tables: the computed bytes");
    CHECK(a->tcell != b->tcell, "each camera owns its cells");
    pfx_free(b);
    for (int i = 0; i < 24; i++) {
        pfx_params q = key_params(i);
        CHECK(pfx_init(b, &q, W, H), "init");
        CHECK(same_tables(b), "key %d: the computed tables", i);
        CHECK(memcmp(b->tone8, a->tone8, sizeof a->tone8) != 0 || memcmp(b->wb, a->wb, sizeof a->wb) != 0 ||
                  memcmp(&b->meter, &a->meter, sizeof a->meter) != 0,
              "key %d: tables of their own", i);
        pfx_free(b);
    }
    /* the same image from a camera whose tables came from the cache */
    fill_grey_ramp();
    pfx_apply(a, img, NULL, 0.05, out, NULL, NULL);
    CHECK(pfx_init(b, &p, W, H), "init");
    pfx_apply(b, img, NULL, 0.05, out2, NULL, NULL);
    CHECK(memcmp(out, out2, sizeof out) == 0, "the same image through cached tables");
    pfx_free(a), pfx_free(b);
    free(a), free(b);
    /* cameras of many engines made at once: every one gets the computed tables */
    pthread_t th[4];
    worker w[4];
    for (int t = 0; t < 4; t++) {
        w[t] = (worker){t, 0};
        CHECK(pthread_create(&th[t], NULL, tables_worker, &w[t]) == 0, "thread");
    }
    for (int t = 0; t < 4; t++) {
        pthread_join(th[t], NULL);
        CHECK(w[t].bad == 0, "thread %d: %d cameras whose tables were not the computed ones", t, w[t].bad);
    }
}

int main(void)
{
    exposure_compensation();
    manual_exposure();
    auto_exposure();
    white_balance();
    tone_curve();
    bloom_flare_aberration();
    motion_blur();
    deterministic();
    tile_max_first();
    task_order();
    bands_whole();
    meter_bins();
    tone_cells();
    tables_cache();
    return CHECK_DONE();
}
