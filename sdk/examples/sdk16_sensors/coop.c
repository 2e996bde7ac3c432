/*
** sensor.other.coop_perception — cooperative perception over V2X-style messages (an outside
** author's sensor, SDK 1.6). Each instance, mounted on a vehicle, perceives the actors within
** `perception_range` of it (host->overlap_sphere_nearest, its own vehicle excluded) and
** broadcasts that list; it hears the lists other instances broadcast in the previous frame when
** the sender is within `comm_range` and nothing blocks the line between the two antennas (one
** batch of rays with per-ray ignore pairs {sender, receiver}, so neither vehicle blocks its own
** link). The medium is the class's shared state (class_create), one per engine: no globals.
** Records: every object known, its id, position, distance and who reported it (declared).
*/
#include <sensim/grow.h>
#include <sensim/math.h>
#include <sensim/plugin.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct object {
    float x, y, z;      /* world position of its nearest point to the reporter, m */
    float distance;     /* from the reporter, m */
    uint32_t actor;
    uint32_t source;    /* the vehicle whose sensor perceived it (own parent: perceived here) */
} object;

static const sn_rec_field object_fields[] = {
    {"x", SN_REC_F32, offsetof(object, x), "m"}, {"y", SN_REC_F32, offsetof(object, y), "m"},
    {"z", SN_REC_F32, offsetof(object, z), "m"}, {"distance", SN_REC_F32, offsetof(object, distance), "m"},
    {"actor", SN_REC_U32, offsetof(object, actor), NULL}, {"source", SN_REC_U32, offsetof(object, source), NULL},
};
static const sn_rec_layout records[] = {
    {.key = "objects", .name = "coop_object", .size = sizeof(object), SN_REC_FIELDS(object_fields),
     .doc = "own detections, then those heard, each actor once"},
};

static const sn_attr_def attrs[] = {
    {"perception_range", SN_ATTR_FLOAT, "15", NULL, NULL, true, 0.1, 200, "m", "how far it sees"},
    {"comm_range", SN_ATTR_FLOAT, "100", NULL, NULL, true, 0, 2000, "m", "how far a broadcast carries"},
};

#define MAX_SEEN 64

typedef struct coop coop;
typedef struct medium { /* the class state: every instance and its last broadcast */
    coop **st;
    size_t n, cap;
} medium;

struct coop {
    const sn_host *host;
    sn_ctx *ctx;
    medium *m;
    uint32_t parent;
    double perception, comm;
    sn_vec3 antenna, sent_antenna; /* now; where the last broadcast went out */
    object sent[MAX_SEEN], next[MAX_SEEN]; /* last frame's broadcast; this frame's, sent at its end */
    uint32_t n_sent, n_next;
    object *out;
    size_t n_out, cap_out;
};

static sn_status class_create(const sn_host *h, sn_ctx *c, void **out)
{
    (void)h, (void)c;
    return (*out = calloc(1, sizeof(medium))) ? SN_OK : SN_E_NOMEM;
}
static void class_destroy(void *state)
{
    medium *m = state;
    if (m)
        free(m->st);
    free(m);
}
/* After every instance ticked: this frame's lists become what the next frame hears. */
static sn_status class_tick(void *state, sn_phase phase, bool after)
{
    medium *m = state;
    (void)phase;
    for (size_t i = 0; after && i < m->n; i++) {
        memcpy(m->st[i]->sent, m->st[i]->next, m->st[i]->n_next * sizeof(object));
        m->st[i]->n_sent = m->st[i]->n_next;
        m->st[i]->sent_antenna = m->st[i]->antenna;
    }
    return SN_OK;
}

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    if (!SN_HOST_HAS(h, overlap_sphere_nearest)) {
        h->set_error(c, "needs a host with ABI 1.6 (overlap_sphere_nearest, ray_ignore)");
        return SN_E_UNSUPPORTED;
    }
    coop *s = calloc(1, sizeof *s);
    medium *m = h->class_state(c);
    if (!s || !SN_GROW(m->st, m->cap, m->n + 1)) {
        free(s);
        return SN_E_NOMEM;
    }
    s->host = h, s->ctx = c, s->m = m;
    m->st[m->n++] = s;
    *out = s;
    return SN_OK;
}
static void destroy(void *self)
{
    coop *s = self;
    if (!s)
        return;
    for (size_t i = 0; i < s->m->n; i++)
        if (s->m->st[i] == s) {
            memmove(&s->m->st[i], &s->m->st[i + 1], (s->m->n - i - 1) * sizeof *s->m->st);
            s->m->n--;
            break;
        }
    free(s->out);
    free(s);
}
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    coop *s = self;
    (void)n;
    s->perception = v[0].f, s->comm = v[1].f;
    return SN_OK;
}
static sn_status attach(void *self, uint32_t parent)
{
    ((coop *)self)->parent = parent;
    return SN_OK;
}

static bool known(const object *o, size_t n, uint32_t actor)
{
    for (size_t i = 0; i < n; i++)
        if (o[i].actor == actor)
            return true;
    return false;
}

static sn_status tick(void *self, sn_phase phase)
{
    coop *s = self;
    const sn_host *h = s->host;
    medium *m = s->m;
    (void)phase;
    sn_transform t;
    h->sensor_transform(s->ctx, &t);
    s->antenna = t.location;
    /* perceive */
    sn_ray_query q = SN_RAY_QUERY_INIT;
    uint32_t skip[2] = {s->parent, h->sensor_id(s->ctx)}, n = 0;
    q.ignore_ids = skip, q.n_ignore = 2;
    q.kind_mask = (1u << SN_ACTOR_VEHICLE) | (1u << SN_ACTOR_WALKER) | (1u << SN_ACTOR_STATIC);
    sn_overlap seen[MAX_SEEN];
    sn_status st = h->overlap_sphere_nearest(s->ctx, &q, t.location, s->perception, seen, MAX_SEEN, &n);
    if (st)
        return st;
    s->n_next = 0;
    for (uint32_t i = 0; i < n && i < MAX_SEEN; i++)
        if (seen[i].actor_id) /* not the road */
            s->next[s->n_next++] = (object){(float)seen[i].point.x, (float)seen[i].point.y, (float)seen[i].point.z,
                                            (float)seen[i].distance, seen[i].actor_id, s->parent};
    /* hear: one ray per other station in range, each ignoring its own two vehicles */
    sn_ray rays[64];
    uint32_t pairs[64][2], from[64], k = 0;
    for (size_t i = 0; i < m->n && k < 64; i++) {
        coop *o = m->st[i];
        sn_vec3 d = sn_v3_sub(o->sent_antenna, s->antenna);
        double len = sn_v3_len(d);
        if (o == s || !o->n_sent || len > s->comm || len < 1e-6)
            continue;
        rays[k] = (sn_ray){s->antenna, d, len};
        pairs[k][0] = o->parent, pairs[k][1] = s->parent;
        from[k++] = (uint32_t)i;
    }
    sn_ray_result res[64];
    q = (sn_ray_query)SN_RAY_QUERY_INIT;
    q.mode = SN_RAY_ANY;
    q.ray_ignore = (const uint32_t(*)[2])pairs;
    if (k && (st = h->ray_batch(s->ctx, &q, rays, k, res)))
        return st;
    /* fuse: own first, then what was heard, each actor once */
    s->n_out = 0;
    if (!SN_GROW(s->out, s->cap_out, s->n_next + (size_t)k * MAX_SEEN))
        return SN_E_NOMEM;
    for (uint32_t i = 0; i < s->n_next; i++)
        s->out[s->n_out++] = s->next[i];
    for (uint32_t r = 0; r < k; r++) {
        const coop *o = m->st[from[r]];
        for (uint32_t i = 0; !res[r].n_hits && i < o->n_sent; i++)
            if (o->sent[i].actor != s->parent && !known(s->out, s->n_out, o->sent[i].actor))
                s->out[s->n_out++] = o->sent[i];
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    coop *s = self;
    (void)index;
    s->host->write_key(w, "objects");
    return s->host->write_bin(w, s->out, s->n_out * sizeof *s->out);
}

static const sn_sensor_class coop_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.coop_perception",
    .doc = "own detections plus those other vehicles broadcast in line of sight (cooperative perception)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    SN_RECORD_TABLE(records),
    .create = create, .destroy = destroy, .set = set, .attach = attach, .tick = tick, .serialize = serialize,
    .class_create = class_create, .class_destroy = class_destroy, .class_tick = class_tick,
};
static const sn_sensor_class *const classes[] = {&coop_class};
SN_PLUGIN_EXPORT(lib, "coop_perception", "1.0", classes)
