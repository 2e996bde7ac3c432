/* The DVS plugin on the SDK's fake host, fed frames painted here: event for event equal to
** the reference port of CARLA's loop (tests/dvs_reference.h) on the same frames, with and
** without sub-frames; no events from a still picture; events only where something moves, both
** polarities, inside the tick and ordered; double the threshold about half the events; the
** refractory period bounding every pixel; labels of the moving object; a fixed per-pixel
** mismatch; supersampling quieting a thin line; adaptive sampling; bad attributes refused.
** With the lens, vignette and gamma on, the reference is fed the RGB camera plugin's images of
** the same painted scene and attributes: the DVS sees exactly the RGB camera's image.
** argv[1]: path of sensim_dvs.so, argv[2]: path of sensim_camera.so */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include <string.h>

#include "../check.h"
#include "../dvs_reference.h"

enum { MOVING, STILL, RAMP, THIN };

typedef struct scene {
    int kind;
    uint32_t w, h; /* output size: the renderer is asked for (k w) x (k h) */
    double speed;  /* px per render */
    int calls;
} scene;

static uint32_t bgra(uint8_t r, uint8_t g, uint8_t b) { return 0xFF000000u | (uint32_t)r << 16 | (uint32_t)g << 8 | b; }

/* Paints render number `call` at k samples per output pixel. Object: a checkered rectangle
** (tag Car, id 7, 5 m) moving right over a still checkered wall (tag Wall, id 3, 20 m). */
static void paint(const scene *s, int call, uint32_t k, uint32_t *px, float *depth, uint8_t *tag, uint32_t *id)
{
    double ox = 12 + s->speed * call;
    for (uint32_t Y = 0; Y < s->h * k; Y++)
        for (uint32_t X = 0; X < s->w * k; X++) {
            double u = (X + 0.5) / k, v = (Y + 0.5) / k;
            size_t i = (size_t)Y * s->w * k + X;
            bool obj = false;
            uint32_t c;
            switch (s->kind) {
            case MOVING:
                obj = u >= ox && u < ox + 16 && v >= 8 && v < 28;
                if (obj)
                    c = ((int)floor((u - ox) / 4) + (int)floor(v / 4)) & 1 ? bgra(240, 230, 220) : bgra(20, 30, 25);
                else
                    c = ((int)floor(u / 6) + (int)floor(v / 6)) & 1 ? bgra(90, 90, 90) : bgra(160, 150, 140);
                break;
            case STILL:
                c = ((int)floor(u / 5) + (int)floor(v / 3)) & 1 ? bgra(10, 200, 30) : bgra(250, 250, 250);
                break;
            case RAMP: {
                int g = 10 + 10 * call;
                g = g > 255 ? 255 : g;
                c = bgra((uint8_t)g, (uint8_t)g, (uint8_t)g);
                break;
            }
            default: { /* THIN: a dark line a quarter pixel wide, moving 0.1 px per render */
                double x = 10 + 0.1 * call;
                obj = u >= x && u < x + 0.25;
                c = obj ? bgra(0, 0, 0) : bgra(200, 200, 200);
            }
            }
            if (px)
                px[i] = c;
            if (depth)
                depth[i] = obj ? 5.0f : 20.0f, tag[i] = obj ? SN_TAG_CAR : SN_TAG_WALL, id[i] = obj ? 7 : 3;
        }
}

static sn_status stub(void *user, const sn_camera *cam, const sn_image *out)
{
    scene *s = user;
    paint(s, s->calls++, cam->width / s->w, (uint32_t *)(void *)out->bgra, out->depth, out->tag, out->instance);
    return SN_OK;
}

typedef struct run {
    sn_fake *f;
    sn_fake_sensor *s;
    scene sc;
} run;

/* A 64 x 40 sensor of `blueprint` (attributes `a` then `b`, each NULL-terminated or NULL) on its own fake host. */
static bool spawn(run *r, const char *path, const char *blueprint, int kind, double speed, const char *const *a,
                  const char *const *b, uint64_t seed)
{
    r->f = sn_fake_new(seed);
    r->sc = (scene){kind, 64, 40, speed, 0};
    sn_plugin_entry_fn entry = sn_fake_open(r->f, path);
    sn_fake_set_render(r->f, stub, &r->sc);
    const char *all[32] = {"image_size_x=64", "image_size_y=40"};
    int n = 2;
    for (int i = 0; a && a[i]; i++)
        all[n++] = a[i];
    for (int i = 0; b && b[i]; i++)
        all[n++] = b[i];
    if (strcmp(blueprint, "sensor.camera.rgb") == 0) /* the DVS draws no post-process: its reference neither */
        all[n++] = "enable_postprocess_effects=false";
    all[n] = NULL;
    r->s = entry ? sn_fake_spawn(r->f, entry, blueprint, all, 0) : NULL;
    CHECK(r->s, "spawn %s: %s", blueprint, sn_fake_error(r->f));
    return r->s != NULL;
}

static bool start(run *r, const char *path, int kind, double speed, const char *const *attrs, uint64_t seed)
{
    return spawn(r, path, "sensor.camera.dvs", kind, speed, attrs, NULL, seed);
}

/* One tick; the events bin (NULL and n 0 without a message). */
static const uint8_t *tick(run *r, size_t *n)
{
    sn_fake_begin_frame(r->f);
    sn_status st = sn_fake_end_frame(r->f);
    CHECK(st == SN_OK, "frame: %s", sn_fake_error(r->f));
    *n = 0;
    if (sn_fake_message_count(r->s) == 0)
        return NULL;
    size_t size;
    const uint8_t *b = sn_fake_bin(r->s, 0, "events", &size);
    *n = b ? size / 13 : 0;
    CHECK(b && size % 13 == 0 && size > 0, "events bin of %zu bytes", b ? size : 0);
    return b;
}

static int64_t ev_t(const uint8_t *e)
{
    uint64_t t = 0;
    for (int b = 7; b >= 0; b--)
        t = t << 8 | e[4 + b];
    return (int64_t)t;
}
static unsigned ev_x(const uint8_t *e) { return e[0] | e[1] << 8; }
static unsigned ev_y(const uint8_t *e) { return e[2] | e[3] << 8; }

/* sensim against the reference loop on the same frames, tick by tick, byte for byte. With `cam`
** (the camera plugin's path), the reference's frames are the images of a sensor.camera.rgb with
** the camera attributes `cam_attrs` (which the DVS gets too) of the same painted scene. */
static void against_reference(const char *path, const char *const *attrs, float cp, float cm, uint64_t refr,
                              bool use_log, int subframes, double speed, const char *what, const char *cam,
                              const char *const *cam_attrs)
{
    run r, rgb = {0};
    if (!spawn(&r, path, "sensor.camera.dvs", MOVING, speed, cam_attrs, attrs, 1))
        return;
    if (cam && !spawn(&rgb, cam, "sensor.camera.rgb", MOVING, speed, cam_attrs, NULL, 1)) {
        sn_fake_free(r.f);
        return;
    }
    ref_dvs ref;
    ref_init(&ref, 64, 40, cp, cm, refr, use_log, 0.001f);
    uint32_t *frame = malloc(64 * 40 * 4);
    int call = 0;
    size_t total = 0, mismatched = 0;
    const int64_t dt = 50000000;
    for (int tk = 1; tk <= 12; tk++) {
        size_t n;
        const uint8_t *got = tick(&r, &n);
        ref.n = 0;
        int samples = tk == 1 ? 1 : subframes;
        for (int j = 1; j <= samples; j++) {
            const uint8_t *img = (const uint8_t *)frame;
            if (cam) { /* the RGB camera renders the same call number: one tick of its host */
                sn_fake_begin_frame(rgb.f);
                CHECK(sn_fake_end_frame(rgb.f) == SN_OK, "rgb: %s", sn_fake_error(rgb.f));
                size_t size = 0;
                img = sn_fake_bin(rgb.s, 0, "raw_data", &size);
                CHECK(img && size == 64 * 40 * 4, "rgb: raw_data of %zu bytes", size);
                if (!img)
                    break;
                call++;
            } else {
                paint(&r.sc, call++, 1, frame, NULL, NULL, NULL);
            }
            int64_t t = tk == 1 ? tk * dt : (tk - 1) * dt + dt * j / samples;
            ref_frame(&ref, img, t);
        }
        ref_sort(&ref);
        uint8_t *want = malloc(ref.n * 13 + 1);
        ref_pack(&ref, want);
        total += ref.n;
        if (n != ref.n || (n && memcmp(got, want, n * 13)))
            mismatched++;
        CHECK(n == ref.n, "%s: tick %d: %zu events, the reference %zu", what, tk, n, ref.n);
        free(want);
    }
    CHECK(mismatched == 0, "%s: %zu ticks differ from the reference", what, mismatched);
    CHECK(total > 100, "%s: the reference made only %zu events", what, total);
    CHECK(r.sc.calls == call, "%s: %d renders, %d expected", what, r.sc.calls, call);
    free(frame);
    ref_free(&ref);
    sn_fake_free(r.f);
    if (cam)
        sn_fake_free(rgb.f);
}

static void moving_events(const char *path)
{
    run r;
    if (!start(&r, path, MOVING, 1.5, NULL, 1))
        return;
    size_t n;
    tick(&r, &n);
    CHECK(sn_fake_message_count(r.s) == 0, "the first tick only initialises, yet it wrote a message");
    size_t pos = 0, neg = 0, outside = 0, unordered = 0, late = 0;
    for (int tk = 2; tk <= 8; tk++) {
        const uint8_t *e = tick(&r, &n);
        CHECK(n > 0, "tick %d: no events from a moving object", tk);
        CHECK(sn_fake_number(r.s, 0, "width") == 64 && sn_fake_number(r.s, 0, "height") == 40, "size");
        CHECK(fabs(sn_fake_number(r.s, 0, "fov") - 90) < 1e-6, "fov");
        /* the object spans x in [12 + 1.5 c, 28 + 1.5 c) for render c = tk - 1, rows 8..27 */
        double x0 = 12 + 1.5 * (tk - 2), x1 = 28 + 1.5 * (tk - 1);
        int64_t t0 = (tk - 1) * 50000000LL, t1 = tk * 50000000LL;
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = e + 13 * i;
            if (p[12])
                pos++;
            else
                neg++;
            outside += ev_x(p) + 1 < x0 || ev_x(p) > x1 || ev_y(p) < 8 || ev_y(p) > 27;
            late += ev_t(p) <= t0 || ev_t(p) > t1;
            if (i) {
                const uint8_t *q = p - 13;
                unsigned iq = ev_y(q) * 64 + ev_x(q), ip = ev_y(p) * 64 + ev_x(p);
                unordered += ev_t(q) > ev_t(p) || (ev_t(q) == ev_t(p) && iq > ip);
            }
        }
    }
    CHECK(pos > 50 && neg > 50, "both polarities: %zu positive, %zu negative", pos, neg);
    CHECK(outside == 0, "%zu events away from the moving object", outside);
    CHECK(late == 0, "%zu events outside their tick", late);
    CHECK(unordered == 0, "%zu events out of order", unordered);
    sn_fake_free(r.f);
}

static void still_picture(const char *path)
{
    run r;
    if (!start(&r, path, STILL, 0, NULL, 1))
        return;
    for (int tk = 1; tk <= 5; tk++) {
        size_t n;
        tick(&r, &n);
        CHECK(n == 0 && sn_fake_message_count(r.s) == 0, "tick %d: %zu events from a still picture", tk, n);
    }
    sn_fake_free(r.f);
}

static size_t count(const char *path, int kind, double speed, const char *const *attrs, int ticks, uint64_t seed)
{
    run r;
    if (!start(&r, path, kind, speed, attrs, seed))
        return 0;
    size_t total = 0, n;
    for (int tk = 1; tk <= ticks; tk++) {
        tick(&r, &n);
        total += n;
    }
    sn_fake_free(r.f);
    return total;
}

static void thresholds(const char *path)
{
    size_t a = count(path, MOVING, 0.7, (const char *[]){"positive_threshold=0.15", "negative_threshold=0.15", NULL}, 20, 1);
    size_t b = count(path, MOVING, 0.7, (const char *[]){"positive_threshold=0.3", "negative_threshold=0.3", NULL}, 20, 1);
    CHECK(b > 0 && a > 1.6 * b && a < 2.4 * b, "threshold 0.15: %zu events, 0.3: %zu (about twice)", a, b);
}

static void refractory(const char *path)
{
    const int64_t R = 30000000; /* 30 ms, more than half the 50 ms tick */
    run r;
    if (!start(&r, path, MOVING, 3, (const char *[]){"refractory_period_ns=30000000", NULL}, 1))
        return;
    int64_t *last = calloc(64 * 40, sizeof *last);
    size_t n, total = 0, violations = 0;
    for (int tk = 1; tk <= 10; tk++) {
        const uint8_t *e = tick(&r, &n);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *p = e + 13 * i;
            size_t px = ev_y(p) * 64 + ev_x(p);
            /* CARLA keeps the last time in double seconds: it may read 1 ns early */
            violations += last[px] && ev_t(p) - last[px] < R - 1;
            last[px] = ev_t(p);
        }
        total += n;
    }
    size_t free_run = count(path, MOVING, 3, NULL, 10, 1);
    CHECK(violations == 0, "%zu events closer than the refractory period", violations);
    CHECK(total > 0 && total < free_run, "refractory: %zu events, without: %zu", total, free_run);
    free(last);
    sn_fake_free(r.f);
}

/* Events labelled as the moving car; `fringe` allows 1 in 500 otherwise: with a lens, colour is
** blended from the 2 x 2 nearest sources but labels come from the nearest one, so an event on the
** one-pixel fringe of an edge can carry the label of the surface behind. */
static void labels(const char *path, const char *const *attrs, bool fringe)
{
    run r;
    if (!start(&r, path, MOVING, 2, attrs, 1))
        return;
    size_t n, total = 0, wrong = 0;
    for (int tk = 1; tk <= 6; tk++) {
        tick(&r, &n);
        if (!n)
            continue;
        size_t size;
        const uint8_t *l = sn_fake_bin(r.s, 0, "labels", &size);
        CHECK(l && size == 5 * n, "labels: %zu bytes for %zu events", l ? size : 0, n);
        for (size_t i = 0; l && i < n; i++) {
            uint32_t id = l[5 * i + 1] | l[5 * i + 2] << 8 | (uint32_t)l[5 * i + 3] << 16 | (uint32_t)l[5 * i + 4] << 24;
            wrong += l[5 * i] != SN_TAG_CAR || id != 7;
        }
        total += n;
    }
    CHECK(total > 100 && (fringe ? wrong * 500 <= total : wrong == 0), "%s: %zu of %zu events not labelled as the moving car",
          attrs[2], wrong, total);
    sn_fake_free(r.f);
}

/* The RGB camera's unrendered attributes are accepted and warn once each, as on the RGB camera. */
static void unrendered(const char *path)
{
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn entry = sn_fake_open(f, path);
    scene sc = {STILL, 8, 8, 0, 0};
    sn_fake_set_render(f, stub, &sc);
    const char *const a[] = {"image_size_x=8", "image_size_y=8", "bloom_intensity=0.675", "exposure_mode=manual",
                             "enable_postprocess_effects=false", "gamma=1.8", NULL};
    CHECK(sn_fake_spawn(f, entry, "sensor.camera.dvs", a, 0) != NULL, "spawn: %s", sn_fake_error(f));
    CHECK(sn_fake_log_count(f) == 2, "2 warnings (exposure_mode, enable_postprocess_effects), got %u", sn_fake_log_count(f));
    CHECK_CONTAINS(sn_fake_last_log(f), "'enable_postprocess_effects' = false changes nothing: this sensor draws no post-process");
    sn_fake_free(f);
}

/* Per-pixel event counts of a uniform brightness ramp (no log), ticks [a, b). */
static void ramp_counts(const char *path, const char *const *attrs, uint64_t seed, double *first, double *second)
{
    run r;
    if (!start(&r, path, RAMP, 0, attrs, seed))
        return;
    for (int tk = 1; tk <= 25; tk++) {
        size_t n;
        const uint8_t *e = tick(&r, &n);
        for (size_t i = 0; i < n; i++)
            (tk <= 13 ? first : second)[ev_y(e + 13 * i) * 64 + ev_x(e + 13 * i)]++;
    }
    sn_fake_free(r.f);
}

static void mismatch(const char *path)
{
    const char *const with[] = {"use_log=false", "positive_threshold=2", "threshold_mismatch_sigma=0.3", NULL};
    const char *const without[] = {"use_log=false", "positive_threshold=2", NULL};
    size_t px = 64 * 40;
    double *a = calloc(px, sizeof *a), *b = calloc(px, sizeof *b), *c = calloc(px, sizeof *c), *d = calloc(px, sizeof *d);
    ramp_counts(path, without, 1, a, b);
    bool uniform = true;
    for (size_t i = 1; i < px; i++)
        uniform = uniform && a[i] == a[0] && b[i] == b[0];
    CHECK(uniform && a[0] > 0, "without mismatch every pixel of a uniform ramp fires alike");
    memset(a, 0, px * sizeof *a), memset(b, 0, px * sizeof *b);
    ramp_counts(path, with, 1, a, b);
    ramp_counts(path, with, 1, c, d);
    CHECK(!memcmp(a, c, px * sizeof *a) && !memcmp(b, d, px * sizeof *b), "the same seed gives other events");
    /* fixed per pixel: a pixel that fires more in the first half fires more in the second */
    double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < px; i++)
        ma += a[i] / px, mb += b[i] / px;
    for (size_t i = 0; i < px; i++)
        sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
    double corr = sab / sqrt(saa * sbb);
    CHECK(saa > 0 && corr > 0.8, "per-pixel counts of the two halves correlate %.3f (a fixed mismatch: near 1)", corr);
    memset(c, 0, px * sizeof *c), memset(d, 0, px * sizeof *d);
    ramp_counts(path, with, 2, c, d);
    CHECK(memcmp(a, c, px * sizeof *a) != 0, "another seed, another mismatch");
    free(a), free(b), free(c), free(d);
}

static void supersampling(const char *path)
{
    size_t plain = count(path, THIN, 0, NULL, 30, 1);
    size_t smooth = count(path, THIN, 0, (const char *[]){"supersample=4", NULL}, 30, 1);
    CHECK(plain > 50 && smooth * 4 < plain, "a quarter-pixel line: %zu events plain, %zu with 4x4 samples", plain, smooth);
}

static void adaptive(const char *path)
{
    run r;
    if (!start(&r, path, STILL, 0, (const char *[]){"adaptive=true", "adaptive_max_subframes=8", NULL}, 1))
        return;
    size_t n;
    for (int tk = 1; tk <= 4; tk++)
        tick(&r, &n);
    CHECK(r.sc.calls == 4, "a still picture: %d renders in 4 ticks (one each)", r.sc.calls);
    sn_fake_free(r.f);
    if (!start(&r, path, MOVING, 1, (const char *[]){"adaptive=true", "adaptive_max_subframes=8", NULL}, 1))
        return;
    for (int tk = 1; tk <= 6; tk++)
        tick(&r, &n);
    CHECK(r.sc.calls > 6 && r.sc.calls <= 1 + 5 * 8, "motion: %d renders in 6 ticks (cap 8 per tick)", r.sc.calls);
    sn_fake_free(r.f);
}

static void refused(const char *path)
{
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn entry = sn_fake_open(f, path);
    scene sc = {STILL, 8, 8, 0, 0};
    sn_fake_set_render(f, stub, &sc);
    static const char *const bad[][4] = {
        {"fov=0", NULL},
        {"positive_threshold=0", NULL},
        {"negative_threshold=-0.3", NULL},
        {"positive_threshold=0.00005", NULL}, /* below DVS_MIN_THRESHOLD (1e-4) */
        {"adaptive=true", "subframes=8", "adaptive_max_subframes=4", NULL},
        {"supersample=16", "image_size_x=2000", NULL},
        {"log_eps=0", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!sn_fake_spawn(f, entry, "sensor.camera.dvs", bad[i], 0), "%s accepted", bad[i][0]);
        CHECK(sn_fake_error(f)[0] != 0, "%s: no reason given", bad[i][0]);
    }
    sn_fake_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *path = argv[1], *cam = argv[2];
    against_reference(path, NULL, 0.3f, 0.3f, 0, true, 1, 1.5, "defaults", NULL, NULL);
    against_reference(path, (const char *[]){"positive_threshold=0.2", "negative_threshold=0.45", NULL}, 0.2f, 0.45f, 0,
                      true, 1, 6, "thresholds, 6 px per tick", NULL, NULL);
    /* Issue 24 item 6: thresholds below 0.01, as CARLA users set them, accepted and CARLA's loop */
    against_reference(path, (const char *[]){"positive_threshold=0.005", "negative_threshold=0.005", NULL}, 0.005f,
                      0.005f, 0, true, 1, 1.5, "thresholds 0.005", NULL, NULL);
    against_reference(path, (const char *[]){"refractory_period_ns=20000000", NULL}, 0.3f, 0.3f, 20000000, true, 1, 2,
                      "refractory", NULL, NULL);
    against_reference(path, (const char *[]){"use_log=false", "positive_threshold=9", "negative_threshold=13", NULL}, 9,
                      13, 0, false, 1, 2, "linear", NULL, NULL);
    against_reference(path, (const char *[]){"subframes=4", NULL}, 0.3f, 0.3f, 0, true, 4, 1.5, "4 sub-frames", NULL, NULL);
    against_reference(path, (const char *[]){"subframes=3", "refractory_period_ns=7000000", NULL}, 0.3f, 0.3f, 7000000,
                      true, 3, 4, "3 sub-frames, refractory", NULL, NULL);
    /* The RGB camera's image as input: CARLA's default lens (a pinhole), then distortion (bilinear),
    ** vignette and gamma on, with and without sub-frames. */
    const char *const lensed[] = {"lens_k=0.5", "lens_x_size=1", "lens_y_size=1", "lens_circle_multiplier=0.6",
                                  "gamma=1.6", NULL};
    against_reference(path, NULL, 0.3f, 0.3f, 0, true, 1, 1.5, "RGB camera's images, defaults", cam, NULL);
    against_reference(path, NULL, 0.3f, 0.3f, 0, true, 1, 1.5, "RGB camera's images, lens, vignette, gamma", cam, lensed);
    against_reference(path, (const char *[]){"subframes=3", NULL}, 0.3f, 0.3f, 0, true, 3, 2,
                      "RGB camera's images, lens, vignette, gamma, 3 sub-frames", cam, lensed);
    moving_events(path);
    still_picture(path);
    thresholds(path);
    refractory(path);
    labels(path, (const char *[]){"event_labels=true", "subframes=2", "lens_k=0", NULL}, false);
    labels(path, (const char *[]){"event_labels=true", "subframes=2", "supersample=2", "lens_k=0.3", "lens_x_size=1",
                                  "lens_y_size=1", NULL}, true);
    unrendered(path);
    mismatch(path);
    supersampling(path);
    adaptive(path);
    refused(path);
    return CHECK_DONE();
}
