/* test_postfx_motion.c — motion blur's blur vectors (plugins/common/postfx_motion.c): the AVX2
** lanes give the scalar reference's vectors bit for bit, on a pool in any task order, over
** pixels that move and do not, small and large instances, points behind the previous camera,
** clamped lengths and a parked camera; the vectors at 1/d size read by the post-process directly
** give the bytes of the upsampled ones. */
#include "../../plugins/common/postfx_motion.h"
#include "../check.h"

#include <stdlib.h>

enum { W = 203, H = 37 }; /* a width that is no multiple of 4: the scalar tail columns too */

static float depth[W * H], motion[3 * W * H], vel_ref[2 * W * H], vel[2 * W * H];
static uint32_t inst[W * H];
static pfx_motion mref, mlanes;

static uint64_t rng = 88172645463325252ull;
static double rnd(void) /* xorshift, [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Depths from a metre to the far plane, instances in runs (id 7 narrow, id 9 wide, 0 the world),
** motion on the instances' pixels and a few stray ones, one NaN. */
static void fill(void)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const int i = y * W + x;
            depth[i] = rnd() < 0.1 ? 1000.0f : (float)(1 + 80 * rnd());
            inst[i] = x >= 20 && x < 24 ? 7 : x >= 60 && x < 150 ? 9 : 0;
            const bool moves = inst[i] ? rnd() < 0.9 : rnd() < 0.05;
            for (int k = 0; k < 3; k++)
                motion[3 * i + k] = moves ? (float)(4 * rnd() - 2) : 0.0f;
            if (moves && rnd() < 0.3)
                motion[3 * i + (int)(3 * rnd())] = 0; /* some components zero */
        }
    motion[3 * (5 * W + 77) + 1] = NAN;
    motion[3 * (6 * W + 3) + 2] = -0.0f; /* a negative zero: no motion */
}

static void run_reversed(void *runner, void (*fn)(void *arg, uint32_t task), void *arg, uint32_t n)
{
    (void)runner;
    for (uint32_t t = n; t-- > 0;)
        fn(arg, t);
}

static void compare(const char *what, const pfx_params *p, double fov, const sn_transform *now,
                    const sn_transform *prev, bool with_inst, bool with_motion)
{
    const uint32_t *in = with_inst ? inst : NULL;
    const float *mo = with_motion ? motion : NULL;
    memset(vel_ref, 0x55, sizeof vel_ref), memset(vel, 0xAA, sizeof vel);
    pfx_velocity_scalar(&mref, p, W, H, fov, now, prev, depth, in, mo, vel_ref);
    pfx_velocity(&mlanes, p, W, H, fov, now, prev, depth, in, mo, vel, NULL, NULL);
    CHECK(memcmp(vel, vel_ref, sizeof vel) == 0, "%s: the lanes' vectors differ from the scalar ones", what);
    memset(vel, 0xAA, sizeof vel);
    pfx_velocity(&mlanes, p, W, H, fov, now, prev, depth, in, mo, vel, run_reversed, NULL);
    CHECK(memcmp(vel, vel_ref, sizeof vel) == 0, "%s: the tasks in reverse order differ", what);
    size_t nonzero = 0, clamped = 0;
    const double max_len = p->mb_max_distortion / 100.0 * W;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        nonzero += vel_ref[2 * i] != 0 || vel_ref[2 * i + 1] != 0;
        clamped += fabs(hypot(vel_ref[2 * i], vel_ref[2 * i + 1]) - max_len) < 1e-3 * max_len;
    }
    fprintf(stderr, "%s: %zu of %d pixels with a vector, %zu at the clamp\n", what, nonzero, W * H, clamped);
}

/* The post-process with the vectors at 1/d size read in place (pfx_apply_scaled) against the same
** vectors upsampled to the image (pfx_velocity_upsample) and passed whole (pfx_apply): the same
** bytes. Vectors of equal length in different directions (which one is a tile's first longest
** decides its blur), zero regions, sizes that leave edge pixels to the clamp. */
enum { IW = 249, IH = 77 }; /* odd: the last column or row repeats the small image's last (d 2: column and row) */
static uint8_t image[IW * IH * 4], out_full[IW * IH * 4], out_small[IW * IH * 4];
static float vel_small[2 * IW * IH], vel_full[2 * IW * IH];

static void scaled(uint32_t d, bool reversed)
{
    const uint32_t mw = IW / d, mh = IH / d;
    static const float dirs[6][2] = {{3, 4}, {4, 3}, {-3, 4}, {0, 5}, {5, 0}, {-4, -3}};
    for (uint32_t i = 0; i < mw * mh; i++) {
        const uint32_t x = i % mw, y = i / mw;
        /* one length per 16-pixel block (a tile's worth: ties everywhere), some blocks still, a
        ** few stray longer ones */
        const uint32_t blk = (x * d / 16) * 7 + (y * d / 16) * 3;
        const float *v = dirs[(int)(6 * rnd())];
        const float sc = blk % 5 == 0   ? 0.0f
                         : rnd() < 0.02 ? (float)rnd() * 3.0f / (float)d
                                        : (float)(blk % 3 + 1) * 0.4f / (float)d;
        vel_small[2 * i] = v[0] * sc, vel_small[2 * i + 1] = v[1] * sc;
    }
    for (uint32_t i = 0; i < IW * IH * 4; i++)
        image[i] = i % 4 == 3 ? 255 : (uint8_t)(rnd() * 256);
    pfx_velocity_upsample(vel_small, mw, mh, d, vel_full, IW, IH);
    pfx_params p = {.manual = false,
                    .shutter_speed = 200,
                    .iso = 100,
                    .fstop = 1.4,
                    .min_bright = 10,
                    .max_bright = 12,
                    .speed_up = 3,
                    .speed_down = 1,
                    .calibration = 16,
                    .slope = 0.88,
                    .toe = 0.55,
                    .shoulder = 0.26,
                    .white_clip = 0.04,
                    .temp = 6500,
                    .gamma = 2.2,
                    .bloom = 0.675,
                    .flare = 0.1,
                    .mb_intensity = 0.45,
                    .mb_max_distortion = 0.35,
                    .mb_min_size = 0};
    pfx a, b;
    CHECK(pfx_init(&a, &p, IW, IH) && pfx_init(&b, &p, IW, IH), "init");
    pfx_apply(&a, image, vel_full, 0.05, out_full, NULL, NULL);
    pfx_apply_scaled(&b, image, vel_small, d, 0.05, out_small, reversed ? run_reversed : NULL, NULL);
    CHECK(a.blur_now && b.blur_now, "d %u: the vectors blur", d);
    CHECK(memcmp(out_full, out_small, sizeof out_full) == 0,
          "d %u%s: the small vectors in place differ from the upsampled", d, reversed ? ", tasks reversed" : "");
    if (b.avx2) { /* the gather and final pass a pixel at a time instead of in AVX2 lanes */
        b.avx2 = false, b.adapted = false;
        pfx_apply_scaled(&b, image, vel_small, d, 0.05, out_small, reversed ? run_reversed : NULL, NULL);
        CHECK(memcmp(out_full, out_small, sizeof out_full) == 0, "d %u%s: without AVX2 the bytes differ", d,
              reversed ? ", tasks reversed" : "");
    }
    pfx_free(&a), pfx_free(&b);
}

int main(void)
{
    fill();
    pfx_params p = {.mb_intensity = 0.45, .mb_max_distortion = 0.35, .mb_min_size = 3};
    const sn_transform now = {{10, -3, 2}, {-2, 31, 0.5}};
    const sn_transform prev = {{9.2, -3.1, 2.05}, {-1.5, 29.5, 0.4}};
    compare("driving and turning", &p, 90, &now, &prev, true, true);
    compare("no instances", &p, 90, &now, &prev, false, true);
    compare("the camera's motion alone", &p, 90, &now, &prev, false, false);
    compare("parked camera", &p, 90, &now, &now, true, true);
    compare("parked camera, no instances", &p, 90, &now, &now, false, true);
    /* a fast turn: many points fall behind the previous camera, many vectors at the clamp */
    const sn_transform spun = {{9, -3, 2}, {10, 150, 20}};
    compare("behind the previous camera", &p, 110, &now, &spun, true, true);
    pfx_params q = p;
    q.mb_max_distortion = 5, q.mb_min_size = 0;
    compare("long vectors, no size test", &q, 60, &now, &prev, true, true);
    /* a minimum size under a pixel: no instance is narrower (each is a column at least), so the
    ** vectors are those without the size test (the size scan is skipped) */
    pfx_params r = p, r0 = p;
    r.mb_min_size = 99.0 / W, r0.mb_min_size = 0;
    pfx_velocity(&mlanes, &r, W, H, 90, &now, &prev, depth, inst, motion, vel, NULL, NULL);
    pfx_velocity_scalar(&mref, &r0, W, H, 90, &now, &prev, depth, inst, motion, vel_ref);
    CHECK(memcmp(vel, vel_ref, sizeof vel) == 0, "a minimum size under a pixel acts as none");
    for (uint32_t d = 1; d <= 4; d++) /* 4: the camera's quarter size from 640 px (pfx55) */
        scaled(d, false), scaled(d, true);
    return CHECK_DONE();
}
