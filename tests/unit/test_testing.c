/* The fake host of sensim/testing.h itself: it must catch what the engine catches (malformed
** messages, bad attributes, plugin errors), so that a plugin's tests on it mean something. */
#define SN_TESTING_IMPLEMENTATION
#include <sensim/testing.h>

#include "../check.h"

#include <stdlib.h>

static const char *const shapes[] = {"flat", "round", NULL};
static const sn_attr_def attrs[] = {
    {"gain", SN_ATTR_FLOAT, "1.5", NULL, NULL, true, 0, 10, NULL, "gain"},
    {"count", SN_ATTR_INT, "3", NULL, NULL, true, 1, 5, NULL, "count"},
    {"shape", SN_ATTR_ENUM, "flat", NULL, shapes, false, 0, 0, NULL, "shape"},
    {"color", SN_ATTR_RGB, "255,0,0", NULL, NULL, false, 0, 0, NULL, "color"},
    {"on", SN_ATTR_BOOL, "true", NULL, NULL, false, 0, 0, NULL, "on"},
    {"mode", SN_ATTR_STRING, "good", NULL, NULL, false, 0, 0, NULL, "how serialize behaves"},
};

typedef struct probe {
    const sn_host *h;
    sn_ctx *ctx;
    sn_value v[6];
} probe;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    probe *p = calloc(1, sizeof *p);
    p->h = h, p->ctx = c;
    *out = p;
    return p ? SN_OK : SN_E_NOMEM;
}
static void destroy(void *self) { free(self); }
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    probe *p = self;
    for (uint32_t i = 0; i < n; i++)
        p->v[i] = v[i];
    if (!p->v[4].b) {
        p->h->set_error(p->ctx, "cannot be switched off");
        return SN_E_INVALID;
    }
    return SN_OK;
}
static sn_status serialize(void *self, uint32_t i, sn_writer *w)
{
    probe *p = self;
    const sn_host *h = p->h;
    const char *mode = p->v[5].s;
    (void)i;
    if (!strcmp(mode, "short_array")) { /* declares 2 items, writes 1 */
        h->write_key(w, "a");
        h->write_array(w, 2);
        return h->write_double(w, 1);
    }
    if (!strcmp(mode, "no_key")) {
        return h->write_double(w, 1);
    }
    h->write_key(w, "gain");
    h->write_double(w, p->v[0].f);
    h->write_key(w, "shape");
    h->write_str(w, p->v[2].s);
    h->write_key(w, "nested");
    h->write_map(w, 2);
    h->write_key(w, "empty");
    h->write_array(w, 0);
    h->write_key(w, "rgb");
    h->write_array(w, 3);
    for (int k = 0; k < 3; k++)
        h->write_uint(w, p->v[3].rgb[k]);
    h->write_key(w, "random");
    h->write_double(w, h->random_uniform(p->ctx));
    h->write_key(w, "blob");
    return h->write_bin(w, "abc", 3);
}

static const sn_sensor_class cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.test.probe",
    .phases = SN_PHASE_POST,
    .attrs = attrs,
    .n_attrs = 6,
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .set = set,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {.hdr = SN_ABI_HEADER(sn_plugin_lib), .name = "probe", .n_classes = 1, .classes = classes};
static const sn_plugin_lib *entry(uint32_t major, uint32_t minor)
{
    (void)major, (void)minor;
    return &lib;
}

static sn_fake_sensor *spawn(sn_fake *f, const char *a, const char *b)
{
    const char *list[] = {a, b, NULL};
    return sn_fake_spawn(f, entry, "sensor.test.probe", list, 0);
}

int main(void)
{
    sn_fake *f = sn_fake_new(1);
    /* attributes: defaults, overrides, and each kind of refusal */
    sn_fake_sensor *s = spawn(f, "count=5", "color=1,2,3");
    CHECK(s != NULL, "%s", sn_fake_error(f));
    CHECK(!spawn(f, "gain=11", NULL), "gain above its range accepted");
    CHECK_CONTAINS(sn_fake_error(f), "attribute 'gain': '11' is not a valid value in [0, 10]");
    CHECK(!spawn(f, "shape=square", NULL), "an enum value outside its choices accepted");
    CHECK(!spawn(f, "count=2.5", NULL), "a fraction accepted for an int");
    CHECK(!spawn(f, "color=1,2", NULL), "a two-channel colour accepted");
    CHECK(!spawn(f, "on=false", NULL), "set's refusal ignored");
    CHECK_CONTAINS(sn_fake_error(f), "set failed (status");
    CHECK_CONTAINS(sn_fake_error(f), "cannot be switched off");

    sn_fake_begin_frame(f);
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 1, "one message per POST tick");
    CHECK(sn_fake_number(s, 0, "gain") == 1.5, "default gain");
    CHECK(!strcmp(sn_fake_string(s, 0, "shape"), "flat"), "default enum");
    CHECK(sn_fake_number(s, 0, "nested.rgb.2") == 3, "rgb override, nested path");
    CHECK(sn_fake_length(s, 0, "nested.empty") == 0, "empty array");
    CHECK(sn_fake_length(s, 0, "nested") == 2, "map pairs");
    CHECK(isnan(sn_fake_number(s, 0, "nested.rgb.3")), "out of range index reads NaN");
    CHECK(!sn_fake_has(s, 0, "nope"), "absent key");
    size_t n = 0;
    const char *blob = sn_fake_bin(s, 0, "blob", &n);
    CHECK(blob && n == 3 && !memcmp(blob, "abc", 3), "bin bytes");
    CHECK_CONTAINS(sn_fake_json(s, 0), "\"nested\":{\"empty\":[],\"rgb\":[1,2,3]},\"random\":");
    CHECK_CONTAINS(sn_fake_json(s, 0), "\"blob\":{\"bin\":3}");
    double r1 = sn_fake_number(s, 0, "random");

    /* the random stream depends on the seed only */
    sn_fake *g = sn_fake_new(1);
    sn_fake_sensor *t = spawn(g, "count=5", NULL);
    sn_fake_begin_frame(g);
    sn_fake_end_frame(g);
    CHECK(sn_fake_number(t, 0, "random") == r1, "same seed, same random stream");
    sn_fake_free(g);

    /* malformed messages are refused with a reason, as the engine refuses them */
    sn_fake_sensor *bad = spawn(f, "mode=short_array", NULL);
    sn_fake_begin_frame(f);
    CHECK(sn_fake_end_frame(f) == SN_E_INVALID, "a short array passes");
    CHECK_CONTAINS(sn_fake_error(f), "left unfinished");
    sn_fake_sensor *nokey = spawn(g = sn_fake_new(2), "mode=no_key", NULL);
    sn_fake_begin_frame(g);
    CHECK(sn_fake_end_frame(g) == SN_E_INVALID, "a value without a key passes");
    CHECK_CONTAINS(sn_fake_error(g), "a value where a key was expected");
    (void)bad, (void)nokey;
    sn_fake_free(g);

    /* ray queries (ABI 1.2) answered by brute force over the actors' boxes */
    uint32_t b1 = sn_fake_add_actor(f, "static.prop.box", SN_TAG_WALL, (sn_transform){{10, 0, 0}, {0, 0, 0}}, (sn_vec3){1, 1, 1});
    uint32_t b2 = sn_fake_add_actor(f, "vehicle.sedan", SN_TAG_CAR, (sn_transform){{20, 0, 0}, {0, 45, 0}}, (sn_vec3){1, 1, 1});
    const sn_host *h = &f->host;
    sn_ray_hit hits[4];
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.mode = SN_RAY_ALL, q.hits = hits, q.max_hits = 4;
    sn_ray ray = {{0, 0, 0}, {2, 0, 0}, 100};
    sn_ray_result r;
    CHECK(h->ray_batch && h->ray_batch(s, &q, &ray, 1, &r) == SN_OK && r.n_hits == 2 && hits[0].actor_id == b1 &&
              fabs(hits[0].distance - 9) < 1e-12 && hits[1].actor_id == b2 && fabs(hits[1].distance - (20 - sqrt(2))) < 1e-9,
          "fake ray_batch: both boxes in order (%u hits)", r.n_hits);
    q.kind_mask = 1u << SN_ACTOR_VEHICLE;
    CHECK(h->ray_batch(s, &q, &ray, 1, &r) == SN_OK && r.n_hits == 1 && r.hit.actor_id == b2, "fake kind mask");
    q.kind_mask = 0, q.mode = SN_RAY_CLOSEST;
    CHECK(h->sweep_sphere(s, &q, &ray, 0.5, &r) == SN_OK && r.n_hits == 1 && fabs(r.hit.distance - 8.5) < 1e-12,
          "fake sweep: %g", r.hit.distance);
    uint32_t ids[4], n_ids = 0;
    CHECK(h->overlap_sphere(s, NULL, (sn_vec3){10, 1.4, 0}, 0.5, ids, 4, &n_ids) == SN_OK && n_ids == 1 && ids[0] == b1,
          "fake overlap");
    q.ray_size = 1;
    CHECK(h->ray_batch(s, &q, &ray, 1, &r) == SN_E_INVALID, "fake: a short ray_size is refused");
    sn_fake_free(f);
    return CHECK_DONE();
}
