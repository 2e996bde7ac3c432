/* A test sensor that reports what the world looks like to a plugin: the live actor ids, the
** value of one attribute of the newest actor, and (with render_fraction > 0) an instance-id
** image rendered with render_at at that fraction of the last frame, beside its own
** sensor_transform_at. Used by test_world_state against the pinhole projection. */
#include <sensim/plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct probe {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t w, h;
    double fov, fraction;
    const char *attr; /* host-owned (the values given to set) */
    uint32_t *ids, n_ids, cap_ids;
    uint32_t *image;
    sn_transform at;
    bool rendered;
    char newest_attr[64];
} probe;

static const sn_attr_def attrs[] = {
    {"image_size_x", SN_ATTR_INT, "64", NULL, NULL, true, 1, 4096, "px", "image width"},
    {"image_size_y", SN_ATTR_INT, "48", NULL, NULL, true, 1, 4096, "px", "image height"},
    {"fov", SN_ATTR_FLOAT, "90", NULL, NULL, true, 1, 179, "deg", "horizontal field of view"},
    {"render_fraction", SN_ATTR_FLOAT, "0", NULL, NULL, true, 0, 1, NULL,
     "render_at this fraction of the last frame; 0 renders nothing"},
    {"attribute", SN_ATTR_STRING, "color", NULL, NULL, false, 0, 0, NULL,
     "attribute of the newest actor to report"},
    {"refuse", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL, "set() refuses, to test a refused spawn"},
};

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return SN_E_NOMEM;
    p->host = h;
    p->ctx = c;
    *out = p;
    return SN_OK;
}

static void destroy(void *self)
{
    probe *p = self;
    if (p) {
        free(p->ids);
        free(p->image);
    }
    free(p);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    (void)n;
    p->w = (uint32_t)v[0].i;
    p->h = (uint32_t)v[1].i;
    p->fov = v[2].f;
    p->fraction = v[3].f;
    p->attr = v[4].s;
    if (v[5].b) {
        p->host->set_error(p->ctx, "refusing on purpose");
        return SN_E_INVALID;
    }
    if (p->fraction > 0 && !(p->image = malloc((size_t)p->w * p->h * sizeof *p->image)))
        return SN_E_NOMEM;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)phase;
    p->n_ids = h->actor_count(p->ctx);
    if (p->n_ids > p->cap_ids) {
        uint32_t *ids = realloc(p->ids, p->n_ids * sizeof *ids);
        if (!ids)
            return SN_E_NOMEM;
        p->ids = ids;
        p->cap_ids = p->n_ids;
    }
    for (uint32_t i = 0; i < p->n_ids; i++)
        p->ids[i] = h->actor_id_at(p->ctx, i);
    p->newest_attr[0] = 0;
    sn_value v;
    uint32_t newest = p->n_ids ? p->ids[p->n_ids - 1] : 0;
    if (newest == h->sensor_id(p->ctx) && p->n_ids > 1)
        newest = p->ids[p->n_ids - 2];
    if (h->hdr.abi_minor >= 2 && h->actor_attribute(p->ctx, newest, p->attr, &v) == SN_OK) {
        if (v.type == SN_ATTR_RGB)
            snprintf(p->newest_attr, sizeof p->newest_attr, "%u,%u,%u", v.rgb[0], v.rgb[1], v.rgb[2]);
        else if (v.type == SN_ATTR_STRING || v.type == SN_ATTR_ENUM)
            snprintf(p->newest_attr, sizeof p->newest_attr, "%s", v.s);
    }
    p->rendered = false;
    if (p->fraction > 0) {
        const sn_clock *c = h->clock(p->ctx);
        int64_t t = c->time_ns - c->dt_ns + (int64_t)(p->fraction * (double)c->dt_ns + 0.5);
        sn_status st = h->sensor_transform_at(p->ctx, t, &p->at);
        if (st)
            return st;
        sn_camera cam = {sizeof cam, p->at, p->w, p->h, p->fov, 0.01, 1000};
        sn_image img = {sizeof img, NULL, NULL, NULL, p->image, 0};
        if ((st = h->render_at(p->ctx, t, &cam, &img)))
            return st;
        p->rendered = true;
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->host;
    (void)i;
    h->write_key(w, "actors");
    h->write_bin(w, p->ids, p->n_ids * sizeof *p->ids); /* u32 little-endian: this test runs on x86 */
    h->write_key(w, "newest_attribute");
    h->write_str(w, p->newest_attr);
    h->write_key(w, "transform_at");
    h->write_array(w, 6);
    h->write_double(w, p->at.location.x);
    h->write_double(w, p->at.location.y);
    h->write_double(w, p->at.location.z);
    h->write_double(w, p->at.rotation.pitch);
    h->write_double(w, p->at.rotation.yaw);
    h->write_double(w, p->at.rotation.roll);
    h->write_key(w, "instance");
    return h->write_bin(w, p->image, p->rendered ? (size_t)p->w * p->h * sizeof *p->image : 0);
}

static const sn_sensor_class cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.world_probe",
    .doc = "test probe of the world state: actors, attributes, render_at",
    .phases = SN_PHASE_POST,
    .attrs = attrs,
    .n_attrs = sizeof attrs / sizeof attrs[0],
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {SN_ABI_HEADER(sn_plugin_lib), "world_probe", "1", 1, classes};

SN_PLUGIN_ENTRY
{
    (void)host_abi_major, (void)host_abi_minor;
    return &lib;
}
