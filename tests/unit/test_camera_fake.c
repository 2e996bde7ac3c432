/* The camera plugin's encoding on the SDK's fake host (the engine's test world): a painter
** in place of the renderer fills known values, the plugin must encode them as CARLA does. argv[1]: path of sensim_camera.so */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"

/* Depth 12.5 m everywhere, tag Car, actor id 0x1234 */
static sn_status stub(void *user, const sn_camera *cam, const sn_image *out)
{
    int *calls = user;
    (*calls)++;
    for (size_t i = 0; i < (size_t)cam->width * cam->height; i++) {
        if (out->depth) out->depth[i] = 12.5f;
        if (out->tag) out->tag[i] = SN_TAG_CAR;
        if (out->instance) out->instance[i] = 0x1234;
        if (out->bgra) out->bgra[4 * i] = 10, out->bgra[4 * i + 1] = 20, out->bgra[4 * i + 2] = 30, out->bgra[4 * i + 3] = 255;
    }
    return SN_OK;
}

/* Known gradients: B = 4x, G = 4y, R = 30; tag Car left of the middle, Building right; id = x + 1. */
static sn_status gradient(void *user, const sn_camera *cam, const sn_image *out)
{
    (void)user;
    for (uint32_t y = 0; y < cam->height; y++)
        for (uint32_t x = 0; x < cam->width; x++) {
            size_t i = (size_t)y * cam->width + x;
            if (out->depth) out->depth[i] = 10.0f + (float)x;
            if (out->tag) out->tag[i] = x < cam->width / 2 ? SN_TAG_CAR : SN_TAG_BUILDING;
            if (out->instance) out->instance[i] = x + 1;
            if (out->bgra) out->bgra[4 * i] = (uint8_t)(4 * x), out->bgra[4 * i + 1] = (uint8_t)(4 * y), out->bgra[4 * i + 2] = 30, out->bgra[4 * i + 3] = 255;
        }
    return SN_OK;
}

/* The lens model of docs/sensors/cameras.md ("Lens"): where output pixel (x, y) looks, in continuous pixel coordinates. */
static bool lens_source(double k, double size, uint32_t w, uint32_t h, uint32_t x, uint32_t y, double *sx, double *sy)
{
    double nx = 2 * (x + 0.5) / w - 1, ny = 2 * (y + 0.5) / h - 1;
    double r2 = nx * size * nx * size + ny * size * ny * size, f = 1 + k * r2;
    *sx = (nx * f + 1) * w / 2, *sy = (ny * f + 1) * h / 2;
    return *sx >= 0 && *sy >= 0 && *sx < w && *sy < h;
}

static const uint8_t *shoot(sn_fake *f, sn_plugin_entry_fn entry, const char *bp, const char **attrs)
{
    sn_fake_sensor *s = sn_fake_spawn(f, entry, bp, attrs, 0);
    CHECK(s != NULL, "%s: %s", bp, sn_fake_error(f));
    if (!s)
        return NULL;
    sn_fake_begin_frame(f);
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    size_t n = 0;
    return sn_fake_bin(s, 0, "raw_data", &n);
}

static void lens_and_gamma(sn_plugin_entry_fn entry)
{
    sn_fake *f = sn_fake_new(1);
    sn_fake_set_render(f, gradient, NULL);
    enum { W = 64, H = 48 };
    /* CARLA's default lens attributes: the pinhole image, byte for byte. */
    const uint8_t *raw = shoot(f, entry, "sensor.camera.rgb",
                               (const char *[]){"image_size_x=64", "image_size_y=48", "enable_postprocess_effects=false", NULL});
    int off = 0;
    for (uint32_t i = 0; raw && i < W * H; i++)
        off += raw[4 * i] != 4 * (i % W) || raw[4 * i + 1] != 4 * (i / W) || raw[4 * i + 2] != 30;
    CHECK(raw && off == 0, "default lens attributes: %d pixels differ from the pinhole image", off);
    raw = shoot(f, entry, "sensor.camera.instance_segmentation", (const char *[]){"image_size_x=64", "image_size_y=48", NULL});
    off = 0;
    for (uint32_t i = 0; raw && i < W * H; i++)
        off += raw[4 * i + 1] != i % W + 1;
    CHECK(raw && off == 0, "default lens attributes, ids: %d pixels moved", off);

    /* Distortion on (pincushion reaching outside at the corners): colour bilinear, ids and tags nearest. */
    const char *on[] = {"image_size_x=64", "image_size_y=48", "lens_k=0.5", "lens_x_size=1", "lens_y_size=1", NULL};
    const char *on_rgb[] = {"image_size_x=64", "image_size_y=48", "lens_k=0.5", "lens_x_size=1", "lens_y_size=1",
                            "enable_postprocess_effects=false", NULL};
    raw = shoot(f, entry, "sensor.camera.rgb", on_rgb);
    double worst = 0;
    int blended = 0, outside = 0, bad_out = 0;
    for (uint32_t y = 0; raw && y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = raw + 4 * ((size_t)y * W + x);
            double sx, sy;
            if (!lens_source(0.5, 1, W, H, x, y, &sx, &sy)) {
                outside++, bad_out += p[0] || p[1] || p[2] || p[3] != 255;
                continue;
            }
            double want_b = 4 * fmin(fmax(sx - 0.5, 0), W - 1), want_g = 4 * fmin(fmax(sy - 0.5, 0), H - 1);
            worst = fmax(worst, fmax(fabs(p[0] - want_b), fabs(p[1] - want_g)));
            blended += p[0] % 4 != 0;
        }
    CHECK(raw && worst <= 0.52, "bilinear: a linear gradient is reproduced within rounding, worst %.3f", worst);
    CHECK(blended > W * H / 4, "bilinear: %d pixels between source values", blended);
    CHECK(outside > 0 && bad_out == 0, "outside the picture: opaque black (%d pixels, %d wrong)", outside, bad_out);
    raw = shoot(f, entry, "sensor.camera.instance_segmentation", on);
    int wrong = 0;
    for (uint32_t y = 0; raw && y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = raw + 4 * ((size_t)y * W + x);
            double sx, sy;
            bool in = lens_source(0.5, 1, W, H, x, y, &sx, &sy);
            uint32_t id = in ? (uint32_t)floor(sx) + 1 : 0;
            uint8_t tag = !in ? 0 : floor(sx) < W / 2 ? SN_TAG_CAR : SN_TAG_BUILDING;
            wrong += p[1] != id || p[2] != tag;
        }
    CHECK(raw && wrong == 0, "nearest: %d pixels whose id or tag is not the nearest source's", wrong);

    /* gamma re-encodes: 30 at 2.2 is 255 (30/255)^2.2 at gamma 1 */
    raw = shoot(f, entry, "sensor.camera.rgb", (const char *[]){"image_size_x=64", "image_size_y=48", "gamma=1.0", "enable_postprocess_effects=false", NULL});
    uint8_t want = (uint8_t)lround(255 * pow(30 / 255.0, 2.2));
    CHECK(raw && raw[2] == want && raw[4 * 10 + 2] == want, "gamma 1: R %u, want %u", raw ? raw[2] : 0, want);

    /* Unrendered attributes are accepted and warn once each when set away from their default. */
    uint32_t logs = sn_fake_log_count(f);
    CHECK(shoot(f, entry, "sensor.camera.rgb",
                (const char *[]){"image_size_x=8", "image_size_y=8", "bloom_intensity=0.5", "blade_count=7",
                                 "exposure_mode=manual", "focal_distance=500", NULL}) != NULL, "spawn");
    CHECK(sn_fake_log_count(f) == logs + 2, "2 warnings (blade_count, focal_distance; bloom and exposure are drawn), got %u",
          sn_fake_log_count(f) - logs);
    CHECK_CONTAINS(sn_fake_last_log(f), "'focal_distance' = 500 changes nothing: accepted, not rendered yet");
    logs = sn_fake_log_count(f);
    CHECK(shoot(f, entry, "sensor.camera.depth", (const char *[]){"image_size_x=8", "image_size_y=8", "lens_circle_multiplier=1", NULL}) != NULL, "spawn");
    CHECK(sn_fake_log_count(f) == logs + 1, "the vignette on a depth camera warns");
    CHECK_CONTAINS(sn_fake_last_log(f), "colour images only");
    sn_fake_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn entry = sn_fake_open(f, argv[1]);
    CHECK(entry != NULL, "%s", sn_fake_error(f));
    if (!entry)
        return CHECK_DONE();
    const char *attrs[] = {"image_size_x=4", "image_size_y=3", "lens_k=0", "depth_float=true", NULL};
    /* (the old fake had no render until a test set one; the engine always renders) */
    int calls = 0;
    sn_fake_set_render(f, stub, &calls);
    sn_fake_sensor *d = sn_fake_spawn(f, entry, "sensor.camera.depth", attrs, 0);
    sn_fake_sensor *i = sn_fake_spawn(f, entry, "sensor.camera.instance_segmentation",
                                     (const char *[]){"image_size_x=4", "image_size_y=3", NULL}, 0);
    CHECK(d && i, "%s", sn_fake_error(f));
    CHECK(!sn_fake_spawn(f, entry, "sensor.camera.rgb", (const char *[]){"fov=180", NULL}, 0), "fov 180 accepted");
    CHECK_CONTAINS(sn_fake_error(f), "fov 180: must be inside (0, 180)");
    if (!d || !i)
        return sn_fake_free(f), CHECK_DONE();
    sn_fake_begin_frame(f);
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(calls == 2, "one render per camera per tick, got %d", calls);
    CHECK(sn_fake_number(d, 0, "width") == 4 && sn_fake_number(d, 0, "height") == 3, "size");
    size_t n = 0;
    const uint8_t *raw = sn_fake_bin(d, 0, "raw_data", &n);
    CHECK(raw && n == 4 * 3 * 4, "raw_data is W*H*4 bytes, got %zu", n);
    /* 12.5 m: d = round(0.0125 * 16777215) = 209715 = 0x033333 -> B 0x03, G 0x33, R 0x33 */
    CHECK(raw && raw[0] == 0x03 && raw[1] == 0x33 && raw[2] == 0x33 && raw[3] == 255, "depth bytes %02x %02x %02x",
          raw ? raw[0] : 0, raw ? raw[1] : 0, raw ? raw[2] : 0);
    const float *depth = sn_fake_bin(d, 0, "depth", &n);
    CHECK(depth && n == 12 * sizeof(float) && depth[11] == 12.5f, "float depth");
    raw = sn_fake_bin(i, 0, "raw_data", &n);
    CHECK(raw && raw[2] == SN_TAG_CAR && raw[1] == 0x34 && raw[0] == 0x12, "instance: tag in R, id low in G, high in B");
    lens_and_gamma(entry); /* on a fresh fake; `f` keeps the plugin loaded */
    sn_fake_free(f);
    return CHECK_DONE();
}
