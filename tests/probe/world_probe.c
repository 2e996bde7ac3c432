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
    char parallel[160]; /* host->parallel_for's checks: "ok" or what failed */
    char hits[160];     /* ray_cast into 1.4- and 1.5-sized hits: "ok" or what failed */
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

/* host->parallel_for (ABI 1.5): every task runs once and writes its own slot; a NULL function
** and a call from inside a task are refused. */
enum { PAR_TASKS = 1000 };
typedef struct par_job {
    const sn_host *host;
    sn_ctx *ctx;
    uint64_t slot[PAR_TASKS];
    sn_status nested;
} par_job;
static void par_square(void *arg, uint32_t t) { ((par_job *)arg)->slot[t] += (uint64_t)t * t + 1; }
static void par_nested(void *arg, uint32_t t)
{
    par_job *j = arg;
    (void)t;
    j->nested = j->host->parallel_for(j->ctx, par_square, j, 1);
}

static void check_parallel(probe *p)
{
    const sn_host *h = p->host;
    if (!SN_HOST_HAS(h, parallel_for)) {
        snprintf(p->parallel, sizeof p->parallel, "no parallel_for");
        return;
    }
    par_job *j = calloc(1, sizeof *j);
    if (!j) {
        snprintf(p->parallel, sizeof p->parallel, "out of memory");
        return;
    }
    j->host = h, j->ctx = p->ctx;
    snprintf(p->parallel, sizeof p->parallel, "ok");
    if (h->parallel_for(p->ctx, par_square, j, PAR_TASKS) != SN_OK)
        snprintf(p->parallel, sizeof p->parallel, "parallel_for failed");
    for (uint32_t t = 0; t < PAR_TASKS; t++)
        if (j->slot[t] != (uint64_t)t * t + 1)
            snprintf(p->parallel, sizeof p->parallel, "task %u ran %s", t, j->slot[t] ? "twice or wrong" : "never");
    if (h->parallel_for(p->ctx, NULL, j, 3) != SN_E_INVALID)
        snprintf(p->parallel, sizeof p->parallel, "a NULL task function was accepted");
    if (h->parallel_for(p->ctx, par_nested, j, 1) != SN_OK || j->nested != SN_E_STATE)
        snprintf(p->parallel, sizeof p->parallel, "a call from inside a task was not refused (%d)", (int)j->nested);
    if (h->parallel_for(p->ctx, par_square, j, 0) != SN_OK)
        snprintf(p->parallel, sizeof p->parallel, "0 tasks refused");
    free(j);
}

/* ray_cast into a 1.4 plugin's hit (96 bytes, no reflectivity): nothing written past it; a 1.5
** hit gets the ground's reflectivity (tag Roads: 0.10). Only where a ground plane lies below. */
static void check_hit_sizes(probe *p)
{
    const sn_host *h = p->host;
    unsigned char buf[sizeof(sn_ray_hit) + 8];
    memset(buf, 0xAB, sizeof buf);
    sn_ray_hit old;
    memset(&old, 0, sizeof old);
    old.struct_size = SN_RAY_HIT_SIZE_VELOCITY;
    memcpy(buf, &old, SN_RAY_HIT_SIZE_VELOCITY);
    sn_transform t;
    h->sensor_transform(p->ctx, &t);
    const sn_vec3 o = {t.location.x, t.location.y, 50}, down = {0, 0, -1};
    if (!h->ray_cast(p->ctx, o, down, 100, 0, (sn_ray_hit *)(void *)buf))
        return; /* no ground here */
    for (size_t k = SN_RAY_HIT_SIZE_VELOCITY; k < sizeof buf; k++)
        if (buf[k] != 0xAB) {
            snprintf(p->hits, sizeof p->hits, "byte %zu of a 96-byte hit written", k);
            return;
        }
    sn_ray_hit now;
    memset(&now, 0, sizeof now);
    now.struct_size = sizeof now;
    if (!h->ray_cast(p->ctx, o, down, 100, 0, &now) || now.reflectivity != sn_tag_reflectivity(now.semantic_tag))
        snprintf(p->hits, sizeof p->hits, "reflectivity %g for tag %u", now.reflectivity, now.semantic_tag);
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
    check_parallel(p);
    snprintf(p->hits, sizeof p->hits, "ok");
    check_hit_sizes(p);
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
    h->write_key(w, "parallel");
    h->write_str(w, p->parallel);
    h->write_key(w, "hits");
    h->write_str(w, p->hits);
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
