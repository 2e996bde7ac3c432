/* api_testing.c — sensim/testing.h's sn_fake_* functions (exported by libsensim since SDK 1.6;
** before, the header carried them under SN_TESTING_IMPLEMENTATION): a thin layer over
** sensim/testworld.h plus a small msgpack reader for the messages a test reads back. */
#include <sensim/testing.h>

#include "../core/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SNF_NIL, SNF_BOOL, SNF_INT, SNF_UINT, SNF_DOUBLE, SNF_STR, SNF_BIN, SNF_ARRAY, SNF_MAP } snf_kind;

/* A decoded message is a flat preorder list of nodes; a container's items follow it. */
typedef struct snf_node {
    snf_kind kind;
    size_t key;   /* offset into text of the key when inside a map, else (size_t)-1 */
    uint32_t n;   /* items (array) or pairs (map) */
    double num;
    int64_t i;
    uint64_t u;
    size_t off, len; /* str/bin bytes in text */
} snf_node;

typedef struct snf_msg {
    size_t first, count; /* nodes */
    size_t raw, size;    /* the engine's bytes in raw */
} snf_msg;

struct sn_fake_sensor {
    sn_fake *fake;
    uint32_t id;
    char *name;
    unsigned char *raw; /* this frame's messages back to back, as the listener got them */
    size_t n_raw, cap_raw;
    snf_node *nodes;
    size_t n_nodes, cap_nodes;
    char *text; /* keys, strings and bins of the decoded messages (bins 16-byte aligned) */
    size_t n_text, cap_text;
    snf_msg *msgs;
    uint32_t n_msgs;
    size_t cap_msgs;
    char *json;
    bool oom;
};

struct sn_fake {
    sn_engine *e;
    sn_fake_sensor **sensors;
    uint32_t n_sensors;
    size_t cap_sensors;
    sn_fake_render_fn render;
    void *render_user;
    bool verbose;
    uint32_t n_logs;
    char last_log[1024];
    char error[SN_ERROR_MAX];
};

static void snf_fail(sn_fake *f, const char *fmt, ...) SN_PRINTF(2, 3);
static void snf_fail(sn_fake *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->error, sizeof f->error, fmt, ap);
    va_end(ap);
}

/* Keeps the engine's sentence as the fake's last error. */
static sn_status snf_status(sn_fake *f, sn_status st, const sn_error *err)
{
    if (st)
        snprintf(f->error, sizeof f->error, "%s", err->msg);
    return st;
}

static bool snf_reserve(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * size);
    if (!q)
        return false;
    *p = q;
    *cap = n;
    return true;
}

static void snf_log(sn_log_level level, const char *line, void *user)
{
    sn_fake *f = (sn_fake *)user;
    snprintf(f->last_log, sizeof f->last_log, "%s", line);
    f->n_logs++;
    if (f->verbose)
        fprintf(stderr, "[fake %s] %s\n", level >= SN_LOG_WARN ? "warning" : "info", line);
}

sn_fake *sn_fake_new_with(const sn_testworld_options *o)
{
    sn_fake *f = (sn_fake *)calloc(1, sizeof *f);
    if (!f)
        return NULL;
    sn_testworld_options opt;
    memset(&opt, 0, sizeof opt);
    if (o)
        memcpy(&opt, o, o->struct_size && o->struct_size < sizeof opt ? o->struct_size : sizeof opt);
    opt.struct_size = sizeof opt;
    opt.log = snf_log;
    opt.log_user = f;
    sn_error err;
    if (!(f->e = sn_testworld_create(&opt, &err))) {
        fprintf(stderr, "sn_fake_new: %s\n", err.msg);
        free(f);
        return NULL;
    }
    return f;
}

sn_fake *sn_fake_new(uint64_t seed)
{
    sn_testworld_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.seed = seed;
    return sn_fake_new_with(&o);
}

static void snf_free_sensor(sn_fake_sensor *s)
{
    free(s->name);
    free(s->raw);
    free(s->nodes);
    free(s->text);
    free(s->msgs);
    free(s->json);
    free(s);
}

void sn_fake_free(sn_fake *f)
{
    if (!f)
        return;
    sn_engine_destroy(f->e);
    for (uint32_t i = 0; i < f->n_sensors; i++)
        snf_free_sensor(f->sensors[i]);
    free(f->sensors);
    free(f);
}

const char *sn_fake_error(const sn_fake *f) { return f->error; }
void sn_fake_verbose(sn_fake *f, bool on) { f->verbose = on; }
uint32_t sn_fake_log_count(const sn_fake *f) { return f->n_logs; }
const char *sn_fake_last_log(const sn_fake *f) { return f->last_log; }
sn_engine *sn_fake_engine(sn_fake *f) { return f->e; }
const sn_clock *sn_fake_clock(const sn_fake *f) { return sn_engine_clock(f->e); }

/* "key=value" strings as sn_attribute pairs (copied, so the strings may be split). */
static sn_attribute *snf_attrs(sn_fake *f, const char *const *kv, uint32_t *n, char **store)
{
    *n = 0;
    *store = NULL;
    size_t bytes = 0;
    for (uint32_t i = 0; kv && kv[i]; i++, (*n)++)
        bytes += strlen(kv[i]) + 1;
    sn_attribute *a = (sn_attribute *)calloc(*n + 1, sizeof *a);
    char *p = (char *)malloc(bytes + 1);
    if (!a || !p) {
        free(a), free(p);
        snf_fail(f, "out of memory");
        return NULL;
    }
    *store = p;
    for (uint32_t i = 0; i < *n; i++) {
        size_t len = strlen(kv[i]);
        memcpy(p, kv[i], len + 1);
        char *eq = strchr(p, '=');
        if (!eq) {
            snf_fail(f, "attribute '%s': write it as name=value", kv[i]);
            free(a), free(p);
            *store = NULL;
            return NULL;
        }
        *eq = 0;
        a[i].key = p;
        a[i].value = eq + 1;
        p += len + 1;
    }
    return a;
}

uint32_t sn_fake_spawn_actor(sn_fake *f, const char *blueprint, const char *name, sn_transform pose,
                             uint32_t parent, const char *const *attrs)
{
    f->error[0] = 0;
    uint32_t n, id = 0;
    char *store;
    sn_attribute *a = snf_attrs(f, attrs, &n, &store);
    if (!a)
        return 0;
    sn_actor_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.blueprint = blueprint;
    d.name = name;
    d.transform = pose;
    d.parent_id = parent;
    d.attributes = a;
    d.n_attributes = n;
    sn_error err;
    sn_status st = sn_engine_spawn(f->e, &d, &id, &err);
    free(a), free(store);
    if (snf_status(f, st, &err))
        return 0;
    sn_actor_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    sn_engine_actor_get(f->e, id, &info);
    if (info.kind == SN_ACTOR_SENSOR) {
        sn_engine_destroy_actor(f->e, id, NULL);
        snf_fail(f, "'%s' is a sensor: spawn it with sn_fake_spawn", blueprint);
        return 0;
    }
    /* a test sets poses: vehicles and walkers are kinematic, as a replay's actors */
    if ((info.kind == SN_ACTOR_VEHICLE || info.kind == SN_ACTOR_WALKER) &&
        snf_status(f, sn_engine_set_simulate_physics(f->e, id, false, &err), &err)) {
        sn_engine_destroy_actor(f->e, id, NULL);
        return 0;
    }
    return id;
}

uint32_t sn_fake_add_actor(sn_fake *f, const char *blueprint, sn_tag tag, sn_transform pose, sn_vec3 extent)
{
    char t[40], x[128];
    snprintf(t, sizeof t, "semantic_tag=%d", (int)tag);
    snprintf(x, sizeof x, "extent=%.17g,%.17g,%.17g", extent.x, extent.y, extent.z);
    const char *attrs[] = {t, x, NULL};
    if (extent.x == 0 && extent.y == 0 && extent.z == 0)
        attrs[1] = NULL;
    return sn_fake_spawn_actor(f, blueprint, NULL, pose, 0, attrs);
}

sn_status sn_fake_actor_get(sn_fake *f, uint32_t id, sn_actor_info *out)
{
    sn_status st = sn_engine_actor_get(f->e, id, out);
    if (st)
        snf_fail(f, "actor_get: no live actor has id %u", id);
    return st;
}

sn_status sn_fake_set_transform(sn_fake *f, uint32_t id, sn_transform pose)
{
    sn_error err;
    return snf_status(f, sn_engine_set_transform(f->e, id, &pose, &err), &err);
}

sn_status sn_fake_move_to(sn_fake *f, uint32_t id, sn_transform pose)
{
    sn_error err;
    return snf_status(f, sn_engine_set_target_transform(f->e, id, &pose, &err), &err);
}

sn_status sn_fake_remove_actor(sn_fake *f, uint32_t id)
{
    sn_error err;
    return snf_status(f, sn_engine_destroy_actor(f->e, id, &err), &err);
}

static sn_status snf_paint(void *user, int64_t time_ns, const sn_camera *camera, const sn_image *out)
{
    sn_fake *f = (sn_fake *)user;
    (void)time_ns;
    return f->render(f->render_user, camera, out);
}

void sn_fake_set_render(sn_fake *f, sn_fake_render_fn fn, void *user)
{
    f->render = fn;
    f->render_user = user;
    sn_testworld_set_render(f->e, fn ? snf_paint : NULL, f, NULL);
}

void sn_fake_set_georeference(sn_fake *f, sn_geo_location origin)
{
    sn_error err;
    snf_status(f, sn_testworld_set_georeference(f->e, origin, &err), &err);
}

sn_plugin_entry_fn sn_fake_open(sn_fake *f, const char *path)
{
    sn_plugin_entry_fn entry = NULL;
    sn_error err;
    f->error[0] = 0;
    if (snf_status(f, sn_testworld_load_plugin(f->e, path, &entry, &err), &err))
        return NULL;
    return entry;
}

/* The engine hands each message of a sensor to its listeners: keep the bytes. */
static void snf_listen(const sn_message *m, void *user)
{
    sn_fake_sensor *s = (sn_fake_sensor *)user;
    if (s->oom)
        return;
    if (!snf_reserve((void **)&s->msgs, &s->cap_msgs, (size_t)s->n_msgs + 1, sizeof *s->msgs) ||
        !snf_reserve((void **)&s->raw, &s->cap_raw, s->n_raw + m->size, 1)) {
        s->oom = true;
        return;
    }
    memcpy(s->raw + s->n_raw, m->data, m->size);
    s->msgs[s->n_msgs].raw = s->n_raw;
    s->msgs[s->n_msgs].size = m->size;
    s->msgs[s->n_msgs].first = s->msgs[s->n_msgs].count = 0;
    s->n_msgs++;
    s->n_raw += m->size;
}

sn_fake_sensor *sn_fake_spawn_named(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint, const char *name,
                                    const char *const *attrs, uint32_t parent, sn_transform mount)
{
    sn_error err;
    f->error[0] = 0;
    if (!entry) {
        snf_fail(f, "spawn '%s': no plugin entry (did sn_fake_open fail?)", blueprint ? blueprint : "(null)");
        return NULL;
    }
    if (snf_status(f, sn_testworld_add_plugin(f->e, entry, "(test program)", &err), &err))
        return NULL;
    if (!blueprint || strncmp(blueprint, "sensor.", 7) != 0) {
        snf_fail(f, "spawn '%s': not a sensor blueprint", blueprint ? blueprint : "(null)");
        return NULL;
    }
    sn_fake_sensor *s = (sn_fake_sensor *)calloc(1, sizeof *s);
    if (!s || !snf_reserve((void **)&f->sensors, &f->cap_sensors, (size_t)f->n_sensors + 1, sizeof *f->sensors)) {
        free(s);
        snf_fail(f, "out of memory");
        return NULL;
    }
    uint32_t n, id = 0;
    char *store;
    sn_attribute *a = snf_attrs(f, attrs, &n, &store);
    if (!a) {
        free(s);
        return NULL;
    }
    sn_actor_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.blueprint = blueprint;
    d.name = name;
    d.transform = mount;
    d.parent_id = parent;
    d.attributes = a;
    d.n_attributes = n;
    sn_status st = sn_engine_spawn(f->e, &d, &id, &err);
    free(a), free(store);
    if (snf_status(f, st, &err)) {
        free(s);
        return NULL;
    }
    char unnamed[32];
    snprintf(unnamed, sizeof unnamed, "sensor_%u", id); /* the engine's name for an unnamed sensor */
    const char *nm = name && name[0] ? name : unnamed;
    s->fake = f;
    s->id = id;
    s->name = (char *)malloc(strlen(nm) + 1);
    if (!s->name || snf_status(f, sn_engine_listen(f->e, nm, snf_listen, s, &err), &err)) {
        if (!s->name)
            snf_fail(f, "out of memory");
        sn_engine_destroy_actor(f->e, id, NULL);
        free(s->name);
        free(s);
        return NULL;
    }
    strcpy(s->name, nm);
    f->sensors[f->n_sensors++] = s;
    return s;
}

sn_fake_sensor *sn_fake_spawn(sn_fake *f, sn_plugin_entry_fn entry, const char *blueprint,
                              const char *const *attrs, uint32_t parent)
{
    sn_transform identity;
    memset(&identity, 0, sizeof identity);
    return sn_fake_spawn_named(f, entry, blueprint, NULL, attrs, parent, identity);
}

uint32_t sn_fake_sensor_id(const sn_fake_sensor *s) { return s->id; }
const char *sn_fake_sensor_name(const sn_fake_sensor *s) { return s->name; }

sn_status sn_fake_begin_frame(sn_fake *f)
{
    sn_error err;
    f->error[0] = 0;
    return snf_status(f, sn_testworld_begin_frame(f->e, &err), &err);
}

sn_status sn_fake_inject(sn_fake *f, const sn_collision *c)
{
    sn_error err;
    return snf_status(f, sn_testworld_inject_collision(f->e, c, &err), &err);
}

sn_status sn_fake_collision(sn_fake_sensor *s, uint32_t self, uint32_t other, sn_vec3 impulse)
{
    sn_collision c;
    memset(&c, 0, sizeof c);
    c.self_id = self;
    c.other_id = other;
    c.normal_impulse = impulse;
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    if (sn_engine_actor_get(s->fake->e, self, &a) == SN_OK)
        c.location = a.transform.location;
    double len = sqrt(impulse.x * impulse.x + impulse.y * impulse.y + impulse.z * impulse.z);
    if (len > 0)
        c.normal.x = impulse.x / len, c.normal.y = impulse.y / len, c.normal.z = impulse.z / len;
    return sn_fake_inject(s->fake, &c);
}

sn_status sn_fake_call(sn_fake_sensor *s, const char *method, uint32_t argc, const char *const *argv)
{
    sn_error err;
    return snf_status(s->fake, sn_engine_call(s->fake->e, s->name, method, argc, argv, &err), &err);
}

/* ---- decoding the engine's msgpack into nodes ---- */

typedef struct snf_in {
    const unsigned char *p, *end;
} snf_in;

static bool snf_take(snf_in *in, size_t n, uint64_t *v)
{
    if ((size_t)(in->end - in->p) < n)
        return false;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v = *v << 8 | in->p[i]; /* msgpack is big-endian */
    in->p += n;
    return true;
}

/* Appends n bytes (and a NUL) to the text, 16-byte aligned for bins; returns the offset. */
static bool snf_text(sn_fake_sensor *s, const void *bytes, size_t n, bool align, size_t *off)
{
    size_t at = align ? (s->n_text + 15) & ~(size_t)15 : s->n_text;
    if (!snf_reserve((void **)&s->text, &s->cap_text, at + n + 1, 1))
        return false;
    if (n)
        memcpy(s->text + at, bytes, n);
    s->text[at + n] = 0;
    s->n_text = at + n + 1;
    *off = at;
    return true;
}

static bool snf_decode(sn_fake_sensor *s, snf_in *in, size_t key, int depth)
{
    uint64_t b, v = 0, len = 0;
    if (depth > 64 || !snf_take(in, 1, &b) || !snf_reserve((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1, sizeof *s->nodes))
        return false;
    size_t at = s->n_nodes++;
    snf_node *n = &s->nodes[at];
    memset(n, 0, sizeof *n);
    n->key = key;
    snf_kind kind;
    if (b <= 0x7f || b >= 0xe0 || (b >= 0xcc && b <= 0xd3)) { /* integers */
        if (b <= 0x7f)
            kind = SNF_UINT, v = b;
        else if (b >= 0xe0)
            kind = SNF_INT, v = (uint64_t)(int64_t)(int8_t)(uint8_t)b;
        else if (b <= 0xcf) {
            if (!snf_take(in, (size_t)1 << (b - 0xcc), &v))
                return false;
            kind = SNF_UINT;
        } else {
            size_t w = (size_t)1 << (b - 0xd0);
            if (!snf_take(in, w, &v))
                return false;
            if (w < 8 && (v >> (8 * w - 1)) & 1)
                v |= ~(uint64_t)0 << (8 * w); /* sign-extend */
            kind = SNF_INT;
        }
        n->kind = kind;
        if (kind == SNF_UINT)
            n->u = v, n->i = (int64_t)v, n->num = (double)v;
        else
            n->i = (int64_t)v, n->num = (double)n->i;
        return true;
    }
    if (b == 0xc0) {
        n->kind = SNF_NIL;
        return true;
    }
    if (b == 0xc2 || b == 0xc3) {
        n->kind = SNF_BOOL, n->num = b == 0xc3;
        return true;
    }
    if (b == 0xca || b == 0xcb) {
        if (!snf_take(in, b == 0xca ? 4 : 8, &v))
            return false;
        n->kind = SNF_DOUBLE;
        if (b == 0xca) {
            uint32_t u32 = (uint32_t)v;
            float x;
            memcpy(&x, &u32, sizeof x);
            n->num = x;
        } else {
            memcpy(&n->num, &v, sizeof n->num);
        }
        return true;
    }
    bool str = (b >= 0xa0 && b <= 0xbf) || (b >= 0xd9 && b <= 0xdb), bin = b >= 0xc4 && b <= 0xc6;
    if (str || bin) {
        if (b >= 0xa0 && b <= 0xbf)
            len = b & 0x1f;
        else if (!snf_take(in, (size_t)1 << (str ? b - 0xd9 : b - 0xc4), &len))
            return false;
        if ((uint64_t)(in->end - in->p) < len)
            return false;
        size_t off;
        if (!snf_text(s, in->p, (size_t)len, bin, &off))
            return false;
        in->p += len;
        n = &s->nodes[at];
        n->kind = str ? SNF_STR : SNF_BIN, n->off = off, n->len = (size_t)len;
        return true;
    }
    bool map = (b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf;
    if (map || (b >= 0x90 && b <= 0x9f) || b == 0xdc || b == 0xdd) {
        if (b <= 0x9f)
            len = b & 0x0f;
        else if (!snf_take(in, b == 0xdc || b == 0xde ? 2 : 4, &len))
            return false;
        n->kind = map ? SNF_MAP : SNF_ARRAY, n->n = (uint32_t)len;
        for (uint64_t k = 0; k < len; k++) {
            size_t key_off = (size_t)-1;
            if (map) { /* sensim's keys are strings */
                uint64_t kb, kl;
                if (!snf_take(in, 1, &kb))
                    return false;
                if (kb >= 0xa0 && kb <= 0xbf)
                    kl = kb & 0x1f;
                else if (!(kb >= 0xd9 && kb <= 0xdb) || !snf_take(in, (size_t)1 << (kb - 0xd9), &kl))
                    return false;
                if ((uint64_t)(in->end - in->p) < kl || !snf_text(s, in->p, (size_t)kl, false, &key_off))
                    return false;
                in->p += kl;
            }
            if (!snf_decode(s, in, key_off, depth + 1))
                return false;
        }
        return true;
    }
    return false; /* ext types: sensim never writes them */
}

/* Decodes every message of this frame; the raw bytes stay for sn_fake_raw. */
static sn_status snf_decode_all(sn_fake *f, sn_fake_sensor *s)
{
    s->n_nodes = s->n_text = 0;
    if (s->oom) {
        snf_fail(f, "sensor '%s': out of memory recording messages", s->name);
        return SN_E_NOMEM;
    }
    for (uint32_t k = 0; k < s->n_msgs; k++) {
        snf_in in = {s->raw + s->msgs[k].raw, s->raw + s->msgs[k].raw + s->msgs[k].size};
        size_t first = s->n_nodes;
        if (!snf_decode(s, &in, (size_t)-1, 0) || in.p != in.end || s->nodes[first].kind != SNF_MAP) {
            snf_fail(f, "sensor '%s': message %u is not one msgpack map (or out of memory)", s->name, k);
            return SN_E_INVALID;
        }
        s->msgs[k].first = first;
        s->msgs[k].count = s->n_nodes - first;
    }
    return SN_OK;
}

sn_status sn_fake_end_frame(sn_fake *f)
{
    for (uint32_t i = 0; i < f->n_sensors; i++) {
        sn_fake_sensor *s = f->sensors[i];
        s->n_msgs = 0, s->n_raw = 0, s->n_nodes = 0, s->n_text = 0, s->oom = false;
    }
    sn_error err;
    sn_status st = snf_status(f, sn_testworld_end_frame(f->e, &err), &err);
    for (uint32_t i = 0; !st && i < f->n_sensors; i++)
        st = snf_decode_all(f, f->sensors[i]);
    return st;
}

sn_status sn_fake_step(sn_fake *f)
{
    sn_status st = sn_fake_begin_frame(f);
    return st ? st : sn_fake_end_frame(f);
}

/* ---- reading messages ---- */

uint32_t sn_fake_message_count(const sn_fake_sensor *s) { return s->n_msgs; }

const void *sn_fake_raw(const sn_fake_sensor *s, uint32_t i, size_t *size)
{
    if (i >= s->n_msgs)
        return NULL;
    if (size)
        *size = s->msgs[i].size;
    return s->raw + s->msgs[i].raw;
}

/* Nodes in the subtree rooted at i (itself included). */
static size_t snf_span(const sn_fake_sensor *s, size_t i)
{
    size_t j = i + 1;
    if (s->nodes[i].kind == SNF_ARRAY || s->nodes[i].kind == SNF_MAP)
        for (uint32_t k = 0; k < s->nodes[i].n; k++)
            j += snf_span(s, j);
    return j - i;
}

static const snf_node *snf_lookup(const sn_fake_sensor *s, uint32_t m, const char *path)
{
    if (m >= s->n_msgs)
        return NULL;
    size_t at = s->msgs[m].first;
    const char *p = path;
    while (p && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        const snf_node *node = &s->nodes[at];
        size_t child = at + 1, found = (size_t)-1;
        for (uint32_t k = 0; k < node->n; k++) {
            const snf_node *c = &s->nodes[child];
            if (node->kind == SNF_MAP && c->key != (size_t)-1 && strlen(s->text + c->key) == len &&
                !strncmp(s->text + c->key, p, len))
                found = child;
            if (node->kind == SNF_ARRAY) {
                char idx[24];
                snprintf(idx, sizeof idx, "%u", k);
                if (strlen(idx) == len && !strncmp(idx, p, len))
                    found = child;
            }
            if (found != (size_t)-1)
                break;
            child += snf_span(s, child);
        }
        if (found == (size_t)-1)
            return NULL;
        at = found;
        p = dot ? dot + 1 : NULL;
    }
    return &s->nodes[at];
}

bool sn_fake_has(const sn_fake_sensor *s, uint32_t i, const char *path) { return snf_lookup(s, i, path) != NULL; }

double sn_fake_number(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && n->kind >= SNF_BOOL && n->kind <= SNF_DOUBLE ? n->num : NAN;
}

const char *sn_fake_string(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && n->kind == SNF_STR ? s->text + n->off : NULL;
}

const void *sn_fake_bin(const sn_fake_sensor *s, uint32_t i, const char *path, size_t *size)
{
    const snf_node *n = snf_lookup(s, i, path);
    if (!n || n->kind != SNF_BIN)
        return NULL;
    if (size)
        *size = n->len;
    return s->text + n->off;
}

int64_t sn_fake_length(const sn_fake_sensor *s, uint32_t i, const char *path)
{
    const snf_node *n = snf_lookup(s, i, path);
    return n && (n->kind == SNF_ARRAY || n->kind == SNF_MAP) ? (int64_t)n->n : -1;
}

typedef struct snf_buf {
    char *p;
    size_t n, cap;
    bool oom;
} snf_buf;

/* Room for more than `need` bytes (a NUL after them), doubling from 256; false (and oom set)
** when realloc fails. */
static bool snf_buf_room(snf_buf *b, size_t need)
{
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap <= need)
        cap *= 2;
    char *q = (char *)realloc(b->p, cap);
    if (!q) {
        b->oom = true;
        return false;
    }
    b->p = q;
    b->cap = cap;
    return true;
}

static void snf_put(snf_buf *b, const char *fmt, ...) SN_PRINTF(2, 3);
static void snf_put(snf_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0 || b->oom)
            return;
        if (b->p && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        if (!snf_buf_room(b, b->n + (size_t)k))
            return;
    }
}

/* The one JSON string writer's sink (core/json.c): bytes appended as they are, NULs included. */
static void snf_write(void *ctx, const char *p, size_t k)
{
    snf_buf *b = ctx;
    if (b->oom || (b->n + k >= b->cap && !snf_buf_room(b, b->n + k)))
        return;
    memcpy(b->p + b->n, p, k);
    b->n += k;
    b->p[b->n] = '\0';
}

static void snf_json_str(snf_buf *b, const char *s, size_t n) { sn_json_strn_put(snf_write, b, s, n); }

static size_t snf_json(const sn_fake_sensor *s, size_t i, snf_buf *b)
{
    const snf_node *n = &s->nodes[i];
    size_t j = i + 1;
    switch (n->kind) {
    case SNF_NIL: snf_put(b, "null"); break;
    case SNF_BOOL: snf_put(b, n->num ? "true" : "false"); break;
    case SNF_INT: snf_put(b, "%lld", (long long)n->i); break;
    case SNF_UINT: snf_put(b, "%llu", (unsigned long long)n->u); break;
    case SNF_DOUBLE:
        if (isfinite(n->num))
            snf_put(b, "%.17g", n->num);
        else
            snf_put(b, "null");
        break;
    case SNF_STR: snf_json_str(b, s->text + n->off, n->len); break;
    case SNF_BIN: snf_put(b, "{\"bin\":%zu}", n->len); break;
    case SNF_ARRAY:
    case SNF_MAP:
        snf_put(b, n->kind == SNF_MAP ? "{" : "[");
        for (uint32_t k = 0; k < n->n; k++) {
            if (k)
                snf_put(b, ",");
            if (n->kind == SNF_MAP) {
                const char *key = s->text + s->nodes[j].key;
                snf_json_str(b, key, strlen(key));
                snf_put(b, ":");
            }
            j = snf_json(s, j, b);
        }
        snf_put(b, n->kind == SNF_MAP ? "}" : "]");
        break;
    }
    return j;
}

const char *sn_fake_json(sn_fake_sensor *s, uint32_t i)
{
    if (i >= s->n_msgs)
        return NULL;
    snf_buf b = {NULL, 0, 0, false};
    free(s->json);
    s->json = NULL;
    snf_json(s, s->msgs[i].first, &b);
    s->json = b.oom ? NULL : b.p;
    return s->json;
}

