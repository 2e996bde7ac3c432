/* The camera plugin's encoding on the SDK's fake host: a renderer stub fills known values,
** the plugin must encode them as CARLA does. argv[1]: path of sensim_camera.so */
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
    CHECK(!sn_fake_spawn(f, entry, "sensor.camera.depth", attrs, 0), "a camera on a host that cannot render");
    CHECK_CONTAINS(sn_fake_error(f), "cannot render images");
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
    sn_fake_free(f);
    return CHECK_DONE();
}
