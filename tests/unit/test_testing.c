/* The fake host of sensim/testing.h itself: it is the engine (sensim/testworld.h), so it must
** catch what the engine catches (a bad attribute table, bad values, malformed messages, plugin
** errors) with the engine's own sentences, name and seed sensors as the engine does, and
** answer the host table from the engine's world (rays, poses, mounts). */
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
    if (p)
        p->h = h, p->ctx = c;
    *out = p;
    return p ? SN_OK : SN_E_NOMEM;
}
static void destroy(void *self) { free(self); }
/* Without tick() a POST class never ticks, so the engine asks for no message (the old fake
** serialized one anyway). */
static sn_status tick(void *self, sn_phase phase)
{
    (void)self, (void)phase;
    return SN_OK;
}
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

/* mode "rays": every actor along +x from (0, 0, 0.5), by the engine's ray index */
static sn_status rays(probe *p, sn_writer *w)
{
    const sn_host *h = p->h;
    sn_ray_hit hits[4];
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.mode = SN_RAY_ALL, q.hits = hits, q.max_hits = 4;
    sn_ray ray = {{0, 0, 0.5}, {2, 0, 0}, 100};
    sn_ray_result r;
    if (h->ray_batch(p->ctx, &q, &ray, 1, &r))
        return SN_E_INVALID;
    h->write_key(w, "hits");
    h->write_array(w, 2 * r.n_hits);
    for (uint32_t i = 0; i < r.n_hits; i++)
        h->write_uint(w, hits[i].actor_id), h->write_double(w, hits[i].distance);
    q.ray_size = 1; /* a malformed query is refused with a message */
    h->write_key(w, "refused");
    return h->write_bool(w, h->ray_batch(p->ctx, &q, &ray, 1, &r) == SN_E_INVALID);
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
    if (!strcmp(mode, "no_key"))
        return h->write_double(w, 1);
    if (!strcmp(mode, "rays"))
        return rays(p, w);
    if (!strcmp(mode, "escapes")) { /* what sn_fake_json must escape; 0xff is not UTF-8 */
        static const char text[] = "q\"b\\\x01\x7f\xff\xc3\xa9\0z";
        h->write_key(w, "t\"k");
        return h->write_strn(w, text, sizeof text - 1);
    }
    h->write_key(w, "name");
    h->write_str(w, h->sensor_name(p->ctx));
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
    h->write_key(w, "small");
    h->write_int(w, -3);
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
    .tick = tick,
    .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&cls};
static const sn_plugin_lib lib = {.hdr = SN_ABI_HEADER(sn_plugin_lib), .name = "probe", .n_classes = 1, .classes = classes};
static const sn_plugin_lib *entry(uint32_t major, uint32_t minor)
{
    (void)major, (void)minor;
    return &lib;
}

/* A class whose default lies outside its own range: the loader refuses the table. */
static const sn_attr_def bad_attrs[] = {{"gain", SN_ATTR_FLOAT, "20", NULL, NULL, true, 0, 10, NULL, "gain"}};
static const sn_sensor_class bad_cls = {
    .hdr = SN_ABI_HEADER(sn_sensor_class), .blueprint = "sensor.test.bad", .phases = SN_PHASE_POST,
    .attrs = bad_attrs, .n_attrs = 1, .attr_def_size = sizeof(sn_attr_def),
    .create = create, .destroy = destroy, .serialize = serialize,
};
static const sn_sensor_class *const bad_classes[] = {&bad_cls};
static const sn_plugin_lib bad_lib = {.hdr = SN_ABI_HEADER(sn_plugin_lib), .name = "bad", .n_classes = 1, .classes = bad_classes};
static const sn_plugin_lib *bad_entry(uint32_t major, uint32_t minor)
{
    (void)major, (void)minor;
    return &bad_lib;
}

static sn_fake_sensor *spawn(sn_fake *f, const char *a, const char *b)
{
    const char *list[] = {a, b, NULL};
    return sn_fake_spawn(f, entry, "sensor.test.probe", list, 0);
}

static sn_fake_sensor *named(sn_fake *f, const char *name)
{
    return sn_fake_spawn_named(f, entry, "sensor.test.probe", name, NULL, 0, (sn_transform){{1, 2, 3}, {0, 0, 0}});
}

int main(void)
{
    sn_fake *f = sn_fake_new(1);
    /* the loader's checks: a table the engine would refuse is refused here */
    CHECK(!sn_fake_spawn(f, bad_entry, "sensor.test.bad", NULL, 0), "an invalid attribute table was accepted");
    CHECK_CONTAINS(sn_fake_error(f), "'sensor.test.bad' has an invalid attribute table");
    /* attributes: defaults, overrides, and each kind of refusal, in the engine's words */
    sn_fake_sensor *s = spawn(f, "count=5", "color=1,2,3");
    CHECK(s != NULL, "%s", sn_fake_error(f));
    CHECK(!spawn(f, "gain=11", NULL), "gain above its range accepted");
    CHECK_CONTAINS(sn_fake_error(f), "outside the range [0, 10]");
    CHECK(!spawn(f, "shape=square", NULL), "an enum value outside its choices accepted");
    CHECK(!spawn(f, "count=2.5", NULL), "a fraction accepted for an int");
    CHECK(!spawn(f, "color=1,2", NULL), "a two-channel colour accepted");
    CHECK(!spawn(f, "gain", NULL), "an attribute without a value accepted");
    CHECK_CONTAINS(sn_fake_error(f), "name=value");
    CHECK(!spawn(f, "on=false", NULL), "set's refusal ignored");
    CHECK_CONTAINS(sn_fake_error(f), "set failed: cannot be switched off");
    /* booleans as the engine reads them (the old fake took only true/false) */
    CHECK(spawn(f, "on=TRUE", NULL) && spawn(f, "on=1", NULL), "engine booleans: %s", sn_fake_error(f));
    CHECK(!spawn(f, "on=yes", NULL), "'yes' accepted as a bool");

    sn_fake_begin_frame(f);
    CHECK(sn_fake_end_frame(f) == SN_OK, "%s", sn_fake_error(f));
    CHECK(sn_fake_message_count(s) == 1, "one message per POST tick");
    CHECK(sn_fake_number(s, 0, "gain") == 1.5, "default gain");
    CHECK(!strcmp(sn_fake_string(s, 0, "shape"), "flat"), "default enum");
    CHECK(sn_fake_number(s, 0, "nested.rgb.2") == 3, "rgb override, nested path");
    CHECK(sn_fake_length(s, 0, "nested.empty") == 0, "empty array");
    CHECK(sn_fake_length(s, 0, "nested") == 2, "map pairs");
    CHECK(sn_fake_number(s, 0, "small") == -3, "negative int");
    CHECK(isnan(sn_fake_number(s, 0, "nested.rgb.3")), "out of range index reads NaN");
    CHECK(!sn_fake_has(s, 0, "nope"), "absent key");
    size_t n = 0;
    const char *blob = sn_fake_bin(s, 0, "blob", &n);
    CHECK(blob && n == 3 && !memcmp(blob, "abc", 3) && ((uintptr_t)blob & 15) == 0, "bin bytes, aligned");
    CHECK_CONTAINS(sn_fake_json(s, 0), "\"nested\":{\"empty\":[],\"rgb\":[1,2,3]},\"random\":");
    CHECK_CONTAINS(sn_fake_json(s, 0), "\"blob\":{\"bin\":3}");
    /* the engine's name for an unnamed sensor, in the header and from host->sensor_name */
    char want[32];
    snprintf(want, sizeof want, "sensor_%u", sn_fake_sensor_id(s));
    CHECK(!strcmp(sn_fake_string(s, 0, "sensor"), want) && !strcmp(sn_fake_string(s, 0, "name"), want),
          "name %s, want %s (the old fake answered the blueprint)", sn_fake_string(s, 0, "name"), want);
    CHECK(!strcmp(sn_fake_string(s, 0, "type"), "sensor.test.probe"), "type is the blueprint");
    size_t raw_size = 0;
    const unsigned char *raw = sn_fake_raw(s, 0, &raw_size);
    CHECK(raw && raw_size > 20 && (raw[0] & 0xf0) == 0x80, "raw: one msgpack map of %zu bytes", raw_size);

    /* the random stream: the scene seed and the sensor's name, as the engine seeds it */
    sn_fake *g = sn_fake_new(1), *h = sn_fake_new(2);
    sn_fake_sensor *a1 = named(f, "a"), *a2 = named(g, "a"), *b2 = named(g, "b"), *a3 = named(h, "a");
    CHECK(a1 && a2 && b2 && a3, "%s", sn_fake_error(g));
    sn_fake_step(f), sn_fake_step(g), sn_fake_step(h);
    CHECK(sn_fake_number(a1, 0, "random") == sn_fake_number(a2, 0, "random"), "same seed and name, same stream "
          "(whatever else the world holds)");
    CHECK(sn_fake_number(a2, 0, "random") != sn_fake_number(b2, 0, "random"), "another name, another stream");
    CHECK(sn_fake_number(a2, 0, "random") != sn_fake_number(a3, 0, "random"), "another seed, another stream");
    CHECK(fabs(sn_fake_number(a2, 0, "transform.location.1") - 2) < 1e-12, "a free sensor stands at its mount");
    CHECK(!named(g, "a"), "a sensor name used twice");
    CHECK_CONTAINS(sn_fake_error(g), "is taken by another sensor");
    sn_fake_free(g);
    sn_fake_free(h);

    /* sn_fake_json escapes as the one JSON writer (core/json.c) does: quotes, backslashes,
    ** control bytes, NUL and DEL as \u00XX, invalid UTF-8 as U+FFFD, valid UTF-8 kept */
    g = sn_fake_new(2);
    sn_fake_sensor *esc = spawn(g, "mode=escapes", NULL);
    CHECK(esc && sn_fake_step(g) == SN_OK, "%s", sn_fake_error(g));
    CHECK_CONTAINS(sn_fake_json(esc, 0), "\"t\\\"k\":\"q\\\"b\\\\\\u0001\\u007f\\ufffd\xc3\xa9\\u0000z\"}");
    sn_fake_free(g);

    /* malformed messages are refused by the engine's writer, and the run stops */
    g = sn_fake_new(2);
    sn_fake_sensor *bad = spawn(g, "mode=short_array", NULL);
    CHECK(bad && sn_fake_step(g) == SN_E_INVALID, "a short array passes");
    CHECK_CONTAINS(sn_fake_error(g), "serialize failed");
    CHECK(sn_fake_step(g) == SN_E_STATE, "the engine goes on after a malformed message");
    sn_fake_free(g);
    g = sn_fake_new(2);
    CHECK(spawn(g, "mode=no_key", NULL) && sn_fake_step(g) == SN_E_INVALID, "a value without a key passes");
    CHECK_CONTAINS(sn_fake_error(g), "a value was written without write_key first");
    sn_fake_free(g);

    /* ray queries answered by the engine's index over the actors the test placed */
    g = sn_fake_new(3);
    uint32_t b1 = sn_fake_add_actor(g, "static.prop.box", SN_TAG_WALL, (sn_transform){{10, 0, 0}, {0, 0, 0}}, (sn_vec3){1, 1, 1});
    uint32_t car = sn_fake_add_actor(g, "vehicle.sedan", SN_TAG_CAR, (sn_transform){{20, 0, 0}, {0, 45, 0}}, (sn_vec3){1, 1, 1});
    sn_fake_sensor *r = spawn(g, "mode=rays", NULL);
    CHECK(b1 && car && r && sn_fake_step(g) == SN_OK, "%s", sn_fake_error(g));
    /* the car is drawn as a sedan inside its box (docs/shapes.md): the ray meets it past the
    ** box's corner at 20 - sqrt(2) and before the box's centre */
    double car_at = sn_fake_number(r, 0, "hits.3");
    CHECK(sn_fake_length(r, 0, "hits") == 4 && sn_fake_number(r, 0, "hits.0") == b1 &&
              fabs(sn_fake_number(r, 0, "hits.1") - 9) < 1e-9 && sn_fake_number(r, 0, "hits.2") == car &&
              car_at > 20 - sqrt(2) + 1e-3 && car_at < 20,
          "the box and the car in order: %s", sn_fake_json(r, 0));
    CHECK(sn_fake_number(r, 0, "refused") == 1, "a short ray_size is refused");
    /* kinematic actors go where they are told, and rays follow */
    CHECK(sn_fake_move_to(g, car, (sn_transform){{30, 0, 0}, {0, 45, 0}}) == SN_OK && sn_fake_step(g) == SN_OK,
          "%s", sn_fake_error(g));
    CHECK(fabs(sn_fake_number(r, 0, "hits.3") - (car_at + 10)) < 1e-9, "moved 10 m: %s", sn_fake_json(r, 0));
    CHECK(sn_fake_step(g) == SN_OK && fabs(sn_fake_number(r, 0, "hits.3") - (car_at + 10)) < 1e-9,
          "a kinematic actor stays after its target");
    CHECK(sn_fake_clock(g)->frame == 3 && sn_fake_clock(g)->time_ns == 150000000, "the engine's clock");
    CHECK(sn_fake_end_frame(g) == SN_E_STATE, "end without begin");
    CHECK_CONTAINS(sn_fake_error(g), "no frame was begun");
    sn_fake_free(g);
    sn_fake_free(f);
    return CHECK_DONE();
}
