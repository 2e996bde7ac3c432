/* A run's RGB frames kept by a listener, the town's run that makes them, and how far two runs'
** frames are apart: shared by the tests that bound an approximation against its exact path
** (test_postfx_quarter, test_shade_pairs, test_shade_half, test_shadow_cull_town). Define FRAMES
** (frames kept a run) and the bound — MEAN_ERR, FAR_SHARE and optionally WORST — before including
** it, after ../check.h. */
#ifndef SN_TEST_FRAME_DIFF_H
#define SN_TEST_FRAME_DIFF_H

#include "../testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct frames {
    uint8_t *raw[FRAMES]; /* owned: frames_free */
    uint32_t w, h;
    int n;
} frames;

/* sn_engine_listen's callback: keeps the first FRAMES images of the camera in `user` (a frames). */
static void on_frame(const sn_message *m, void *user)
{
    frames *f = user;
    tu_image one = {0};
    tu_on_image(m, &one);
    if (one.raw && f->n < FRAMES) {
        f->raw[f->n++] = one.raw, f->w = one.w, f->h = one.h;
        return;
    }
    tu_image_free(&one);
}

static void frames_free(frames *f)
{
    for (int i = 0; i < f->n; i++)
        free(f->raw[i]);
    f->n = 0;
}

/* How two runs' FRAMES frames of w x h differ, over the colour channels. */
typedef struct frame_diff {
    int differ; /* frames not byte-identical */
    int worst;  /* the largest channel error */
    double mean;  /* the mean absolute channel error */
    double share; /* the share of pixels with a channel more than 8 off */
} frame_diff;

static frame_diff frames_diff(const frames *a, const frames *b, uint32_t w, uint32_t h)
{
    frame_diff d = {0};
    double sum = 0;
    size_t n = 0, far = 0;
    for (int k = 0; k < FRAMES; k++) {
        d.differ += memcmp(a->raw[k], b->raw[k], (size_t)w * h * 4) != 0;
        for (size_t i = 0; i < (size_t)w * h; i++) {
            int dp = 0;
            for (int c = 0; c < 3; c++) {
                int e = abs((int)a->raw[k][4 * i + c] - (int)b->raw[k][4 * i + c]);
                d.worst = e > d.worst ? e : d.worst, sum += e, n++;
                dp = e > dp ? e : dp;
            }
            far += dp > 8;
        }
    }
    d.mean = sum / (double)n, d.share = (double)far / ((double)w * h * FRAMES);
    return d;
}

/* The renderer's approximations' switches: each run unsets them all, then sets those it asks for. */
static const char *const fd_switches[] = {"SENSIM_EXACT_SHADING", "SENSIM_EXACT_HALF",   "SENSIM_EXACT_PAIRS",
                                          "SENSIM_EXACT_CASTERS", "SENSIM_EXACT_MOTION", "SENSIM_MOTION_RENDER"};

static void fd_unset_switches(void)
{
    for (size_t i = 0; i < sizeof fd_switches / sizeof *fd_switches; i++)
        unsetenv(fd_switches[i]);
}

/* Where the town's runs write their scene and find the plugins and maps: set by main from argv. */
static const char *dir, *plugins, *maps;

/* FRAMES frames of an RGB camera, w x h, anti-aliasing aa, on a hero driving on autopilot through
** the town with 50 cars and 30 walkers (seed 1) in `weather`, at `threads` threads, with `extra`
** scene lines (or ""), and the switches named in `set` (NULL-terminated, or NULL) set to 1: into f
** (owned by the caller: frames_free). A failed run is a failed check. */
static bool town_frames(const char *weather, const char *extra, uint32_t w, uint32_t h, int aa, int threads,
                        const char *const *set, frames *f)
{
    char scene[4096];
    snprintf(scene, sizeof scene,
             "map: %s/town.xodr\n"
             "settings: {fixed_delta_seconds: 0.05, seed: 1, weather: %s}\n"
             "%s"
             "traffic: {vehicles: 50, walkers: 30, seed: 1}\n"
             "actors:\n"
             "  - {name: ground, blueprint: static.ground, transform: {location: [0, 0, -0.02]},"
             " attributes: {semantic_tag: Terrain, color: \"96,110,70\"}}\n"
             "  - {name: hero, blueprint: vehicle.sedan, transform: {location: [20, 1.75, 0.5]},"
             " attributes: {role_name: hero}, autopilot: {}}\n"
             "sensors:\n"
             "  - {name: rgb, blueprint: sensor.camera.rgb, attach_to: hero, transform: {location: [1.5, 0, 2.4]},"
             " attributes: {image_size_x: %u, image_size_y: %u, anti_aliasing: %d}}\n",
             maps, weather, extra, w, h, aa);
    fd_unset_switches();
    for (size_t i = 0; set && set[i]; i++)
        setenv(set[i], "1", 1);
    sn_error err = {0};
    sn_engine_options o = {.plugin_dir = plugins, .quiet_plugins = true, .threads = threads};
    sn_engine *e = sn_engine_create(&o, &err);
    memset(f, 0, sizeof *f);
    char name[64]; /* the tests share the temp folder and run at once: one scene file a process */
    snprintf(name, sizeof name, "frame_diff_%ld.yaml", (long)getpid());
    int rc = !e || sn_engine_load_scene(e, tu_write(dir, name, scene), &err) ||
             sn_engine_listen(e, "rgb", on_frame, f, &err) || sn_engine_run(e, FRAMES, &err);
    fd_unset_switches();
    CHECK(rc == 0 && f->n == FRAMES, "run (%s): %s", weather, err.msg);
    sn_engine_destroy(e);
    if (rc == 0 && f->n == FRAMES)
        return true;
    frames_free(f);
    return false;
}

/* A test's run: its `how` (the test's own flags) made into town_frames' switches and lines. */
typedef bool (*shoot_fn)(const char *weather, uint32_t w, uint32_t h, int aa, int threads, int how, frames *f);

/* The frames of `how` against those of `ref` (the exact path), printed under `name` and checked
** against the bound; returned for the test's own checks (e.g. that the approximation is in use).
** differ is -1 when a run failed (already a failed check). */
static frame_diff frames_bound(shoot_fn shoot, const char *name, const char *weather, uint32_t w, uint32_t h, int aa,
                               int threads, int ref, int how)
{
    frame_diff d = {.differ = -1};
    frames a, b;
    if (!shoot(weather, w, h, aa, threads, ref, &a))
        return d;
    if (!shoot(weather, w, h, aa, threads, how, &b)) {
        frames_free(&a);
        return d;
    }
    d = frames_diff(&a, &b, w, h);
    printf("%s %ux%u aa %d: %d of %d frames differ, largest channel error %d, mean %.4f, pixels off by more than 8: %.5f\n",
           name, w, h, aa, d.differ, FRAMES, d.worst, d.mean, d.share);
    CHECK(d.share <= FAR_SHARE, "%s: %.5f of the pixels off by more than 8 (bound %g)", name, d.share, FAR_SHARE);
    CHECK(d.mean <= MEAN_ERR, "%s: mean channel error %.4f (bound %g)", name, d.mean, MEAN_ERR);
#ifdef WORST
    CHECK(d.worst <= WORST, "%s: largest channel error %d (bound %d)", name, d.worst, WORST);
#endif
    frames_free(&a), frames_free(&b);
    return d;
}

/* Checks that two runs of the town at 640 x 360 give the same bytes in every frame. */
static void frames_same(shoot_fn shoot, const char *what, const char *weather, int aa, int threads_a, int how_a,
                        int threads_b, int how_b)
{
    frames a, b;
    if (!shoot(weather, 640, 360, aa, threads_a, how_a, &a))
        return;
    if (shoot(weather, 640, 360, aa, threads_b, how_b, &b)) {
        bool eq = true;
        for (int k = 0; k < FRAMES; k++)
            eq = eq && memcmp(a.raw[k], b.raw[k], (size_t)a.w * a.h * 4) == 0;
        CHECK(eq, "%s", what);
        frames_free(&b);
    }
    frames_free(&a);
}

#endif
