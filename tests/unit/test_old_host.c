/* A plugin on an older host's table (sn_testworld_options.host_size): the fake cuts the table
** the plugin is handed, SN_HOST_HAS answers false past the cut, and the camera plugin's fallback
** for hosts without write_bin_room (its own buffer and write_bin) gives the same bytes as
** writing in place. argv[1]: path of sensim_camera.so */
#include <sensim/testing.h>

#include "../check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- a probe plugin: what the table it was handed offers, and the fallback idiom ---- */
typedef struct probe {
    const sn_host *h;
} probe;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    (void)c;
    probe *p = calloc(1, sizeof *p);
    if (p)
        p->h = h;
    *out = p;
    return p ? SN_OK : SN_E_NOMEM;
}
static void destroy(void *self) { free(self); }
static sn_status tick(void *self, sn_phase phase)
{
    (void)self, (void)phase;
    return SN_OK;
}

/* Reports the table's header and which members SN_HOST_HAS grants; writes a blob through
** write_bin_room where offered, else write_bin (as a plugin author would). */
static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    const sn_host *h = ((probe *)self)->h;
    (void)i;
    static const char blob[] = "0123456789abcdef";
    h->write_key(w, "struct_size");
    h->write_uint(w, h->hdr.struct_size);
    h->write_key(w, "abi_minor");
    h->write_uint(w, h->hdr.abi_minor);
    h->write_key(w, "has_render_layer_at");
    h->write_bool(w, SN_HOST_HAS(h, render_layer_at));
    h->write_key(w, "has_write_bin_room");
    h->write_bool(w, SN_HOST_HAS(h, write_bin_room));
    h->write_key(w, "has_ray_batch_compact");
    h->write_bool(w, SN_HOST_HAS(h, ray_batch_compact));
    /* past a cut the fake's copy is NULL (so a call without the check fails at once); read here
    ** only because the fake's copy is a whole sn_host, which an older host's table is not */
    h->write_key(w, "room_null");
    h->write_bool(w, h->write_bin_room == NULL);
    h->write_key(w, "blob");
    if (SN_HOST_HAS(h, write_bin_room)) {
        void *room = h->write_bin_room(w, sizeof blob);
        if (!room)
            return SN_E_NOMEM;
        memcpy(room, blob, sizeof blob);
        return SN_OK;
    }
    return h->write_bin(w, blob, sizeof blob);
}

static const sn_sensor_class cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.old_host",
    .phases = SN_PHASE_POST,
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .tick = tick,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {.hdr = SN_ABI_HEADER(sn_plugin_lib), .name = "old_host", .n_classes = 1,
                                  .classes = classes};
static const sn_plugin_lib *entry(uint32_t major, uint32_t minor)
{
    (void)major, (void)minor;
    return &lib;
}

static sn_fake *fake_with_host(uint32_t host_size)
{
    sn_testworld_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.seed = 7;
    o.host_size = host_size;
    sn_fake *f = sn_fake_new_with(&o);
    CHECK(f != NULL, "a fake with host_size %u", host_size);
    return f;
}

/* The probe on a table of `host_size` bytes: what it saw, and its blob either way. */
static void probe_on(uint32_t host_size, uint32_t want_size, unsigned want_minor, bool layer, bool room, bool compact)
{
    sn_fake *f = fake_with_host(host_size);
    if (!f)
        return;
    sn_fake_sensor *s = sn_fake_spawn(f, entry, "sensor.test.old_host", NULL, 0);
    CHECK(s != NULL, "%s", sn_fake_error(f));
    sn_status st = s ? sn_fake_step(f) : SN_E_INVALID;
    CHECK(st == SN_OK, "host_size %u: %s", host_size, sn_fake_error(f));
    if (!st && s && sn_fake_message_count(s) == 1) {
        CHECK(sn_fake_number(s, 0, "struct_size") == want_size, "host_size %u: struct_size %g, want %u", host_size,
              sn_fake_number(s, 0, "struct_size"), want_size);
        CHECK(sn_fake_number(s, 0, "abi_minor") == want_minor, "host_size %u: abi_minor %g, want %u", host_size,
              sn_fake_number(s, 0, "abi_minor"), want_minor);
        CHECK(sn_fake_number(s, 0, "has_render_layer_at") == layer, "host_size %u: render_layer_at", host_size);
        CHECK(sn_fake_number(s, 0, "has_write_bin_room") == room, "host_size %u: write_bin_room", host_size);
        CHECK(sn_fake_number(s, 0, "has_ray_batch_compact") == compact, "host_size %u: ray_batch_compact", host_size);
        CHECK(sn_fake_number(s, 0, "room_null") == !room, "host_size %u: write_bin_room NULL past the cut", host_size);
        size_t n = 0;
        const void *b = sn_fake_bin(s, 0, "blob", &n);
        CHECK(b && n == 17 && !memcmp(b, "0123456789abcdef", 17), "host_size %u: the blob (%zu bytes)", host_size, n);
    }
    sn_fake_free(f);
}

/* Always the same frame: gradients in every buffer, so every encoding has varied bytes. */
static sn_status gradient(void *user, const sn_camera *cam, const sn_image *out)
{
    (void)user;
    for (uint32_t y = 0; y < cam->height; y++)
        for (uint32_t x = 0; x < cam->width; x++) {
            size_t i = (size_t)y * cam->width + x;
            if (out->depth) out->depth[i] = 0.5f + 0.37f * (float)x + 0.011f * (float)(y * y);
            if (out->tag) out->tag[i] = (uint8_t)((x / 7 + y / 5) % 29);
            if (out->instance) out->instance[i] = x * 31 + y;
            if (out->bgra)
                out->bgra[4 * i] = (uint8_t)x, out->bgra[4 * i + 1] = (uint8_t)y, out->bgra[4 * i + 2] = 30,
                out->bgra[4 * i + 3] = 255;
        }
    return SN_OK;
}

typedef struct shot {
    unsigned char *raw[3]; /* each frame's whole message */
    size_t size[3];
} shot;

/* Three frames of a camera on a table of host_size bytes (0: whole), messages copied out. */
static bool shoot(sn_plugin_entry_fn cam, uint32_t host_size, const char *bp, const char *const *attrs, shot *out)
{
    memset(out, 0, sizeof *out);
    sn_fake *f = fake_with_host(host_size);
    if (!f)
        return false;
    sn_fake_set_render(f, gradient, NULL);
    sn_fake_sensor *s = sn_fake_spawn(f, cam, bp, attrs, 0);
    bool ok = s != NULL;
    CHECK(ok, "%s: %s", bp, sn_fake_error(f));
    for (int k = 0; ok && k < 3; k++) {
        ok = sn_fake_step(f) == SN_OK && sn_fake_message_count(s) == 1;
        CHECK(ok, "%s frame %d: %s", bp, k, sn_fake_error(f));
        size_t n = 0, nb = 0;
        const void *m = ok ? sn_fake_raw(s, 0, &n) : NULL;
        if (m && (out->raw[k] = malloc(n)))
            memcpy(out->raw[k], m, n), out->size[k] = n;
        ok = ok && sn_fake_bin(s, 0, "raw_data", &nb) && nb == 320u * 240u * 4u;
        CHECK(ok, "%s frame %d: raw_data %zu bytes", bp, k, nb);
    }
    sn_fake_free(f);
    return ok;
}

/* A camera with and without write_bin_room: the same messages, byte for byte. */
static void same_bytes(sn_plugin_entry_fn cam, const char *bp, const char *const *attrs, const char *label)
{
    shot whole = {0}, old = {0};
    uint32_t before_room = (uint32_t)offsetof(sn_host, write_bin_room);
    if (shoot(cam, 0, bp, attrs, &whole) && shoot(cam, before_room, bp, attrs, &old))
        for (int k = 0; k < 3; k++)
            CHECK(whole.size[k] == old.size[k] && whole.raw[k] && old.raw[k] &&
                      !memcmp(whole.raw[k], old.raw[k], whole.size[k]),
                  "%s frame %d: %zu bytes in place, %zu through write_bin, not the same", label, k, whole.size[k],
                  old.size[k]);
    for (int k = 0; k < 3; k++)
        free(whole.raw[k]), free(old.raw[k]);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    /* the probe: the whole table, the table before write_bin_room (the third revision of 1.6),
    ** and the 1.3 table (before the map) */
    probe_on(0, (uint32_t)sizeof(sn_host), SN_ABI_MINOR, true, true, true);
    probe_on((uint32_t)offsetof(sn_host, write_bin_room), (uint32_t)offsetof(sn_host, write_bin_room), 6, true,
             false, false);
    probe_on((uint32_t)offsetof(sn_host, has_map), (uint32_t)offsetof(sn_host, has_map), 3, false, false, false);
    probe_on((uint32_t)offsetof(sn_host, render), (uint32_t)offsetof(sn_host, render), 0, false, false, false);

    /* sizes that are no older table are refused with a sentence */
    uint32_t bad[] = {8, (uint32_t)offsetof(sn_host, render) - 8, (uint32_t)offsetof(sn_host, write_bin_room) + 4,
                      (uint32_t)sizeof(sn_host) + 8};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        sn_testworld_options o;
        memset(&o, 0, sizeof o);
        o.struct_size = sizeof o;
        o.host_size = bad[i];
        sn_error err = {0};
        sn_engine *e = sn_testworld_create(&o, &err);
        CHECK(!e && err.status == SN_E_RANGE && strstr(err.msg, "host_size"), "host_size %u: '%s'", bad[i], err.msg);
        sn_engine_destroy(e);
    }

    /* the cameras that write in place (save50): the same bytes through their fallback */
    sn_fake *f = sn_fake_new(1);
    sn_plugin_entry_fn cam = f ? sn_fake_open(f, argv[1]) : NULL;
    CHECK(cam != NULL, "open %s: %s", argv[1], f ? sn_fake_error(f) : "no fake");
    if (cam) {
        static const char *const size[] = {"image_size_x=320", "image_size_y=240", NULL};
        static const char *const with_float[] = {"image_size_x=320", "image_size_y=240", "depth_float=true", NULL};
        same_bytes(cam, "sensor.camera.depth", size, "depth");
        same_bytes(cam, "sensor.camera.depth", with_float, "depth with depth_float");
        same_bytes(cam, "sensor.camera.semantic_segmentation", size, "semantic");
    }
    sn_fake_free(f);
    return CHECK_DONE();
}
