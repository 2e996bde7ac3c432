/*
** sensor.other.coop_perception — cooperative perception over V2X (an outside author's sensor,
** SDK 1.6). Each instance, mounted on a vehicle, perceives the actors within
** `perception_range` of it (host->overlap_sphere_nearest, its own vehicle excluded) and
** broadcasts that list on the engine's V2X medium (host->v2x_join, v2x_send): the medium of
** sensor.other.v2x_custom, with its path loss, fading and line of sight, so a wall between two
** cars costs a link the loss of a building (NLOSb) and a receiver whose sensitivity that loss
** falls below hears nothing. What reached it in the previous frame (host->v2x_received) is
** fused with its own detections. No state of its own beyond the instance: no medium, no globals.
** Records (declared): every object known, its id, position, distance and who reported it; and
** every link heard, with its sender, received power and line-of-sight state.
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

typedef struct link {
    double power;       /* received, dBm */
    uint32_t sender;    /* the sending sensor */
    uint32_t station;   /* its vehicle */
    uint32_t los;       /* 0 line of sight, 1 a building between, 2 vehicles between */
    uint32_t objects;   /* how many it reported */
} link;

static const sn_rec_field object_fields[] = {
    {"x", SN_REC_F32, offsetof(object, x), "m"}, {"y", SN_REC_F32, offsetof(object, y), "m"},
    {"z", SN_REC_F32, offsetof(object, z), "m"}, {"distance", SN_REC_F32, offsetof(object, distance), "m"},
    {"actor", SN_REC_U32, offsetof(object, actor), NULL}, {"source", SN_REC_U32, offsetof(object, source), NULL},
};
static const sn_rec_field link_fields[] = {
    {"power", SN_REC_F64, offsetof(link, power), "dBm"}, {"sender", SN_REC_U32, offsetof(link, sender), NULL},
    {"station", SN_REC_U32, offsetof(link, station), NULL}, {"los", SN_REC_U32, offsetof(link, los), NULL},
    {"objects", SN_REC_U32, offsetof(link, objects), NULL},
};
static const sn_rec_layout records[] = {
    {.key = "objects", .name = "coop_object", .size = sizeof(object), SN_REC_FIELDS(object_fields),
     .doc = "own detections, then those heard, each actor once"},
    {.key = "links", .name = "coop_link", .size = sizeof(link), SN_REC_FIELDS(link_fields),
     .doc = "the broadcasts heard this tick (sent in the previous frame), in sender order"},
};

static const char *const scenarios[] = {"highway", "rural", "urban", NULL};

static const sn_attr_def attrs[] = {
    {"perception_range", SN_ATTR_FLOAT, "15", NULL, NULL, true, 0.1, 200, "m", "how far it sees"},
    {"comm_range", SN_ATTR_FLOAT, "500", NULL, NULL, true, 0.001, 100000, "m",
     "the medium's filter_distance: senders at or beyond it are not heard"},
    {"transmit_power", SN_ATTR_FLOAT, "21.5", NULL, NULL, true, -100, 100, "dBm", "the broadcast's power"},
    {"receiver_sensitivity", SN_ATTR_FLOAT, "-99", NULL, NULL, true, -300, 100, "dBm",
     "a broadcast is heard when its power is at least this"},
    {"scenario", SN_ATTR_ENUM, "highway", scenarios, scenarios, false, 0, 0, NULL, "the medium's scenario"},
    {"fading_stddev", SN_ATTR_FLOAT, "-1", NULL, NULL, true, -1, 100, "dB",
     "shadow fading: -1 ETSI's, else this standard deviation (0: none)"},
    {"channel_id", SN_ATTR_STRING, "coop", NULL, NULL, false, 0, 0, NULL, "only stations on it hear each other"},
};

#define MAX_SEEN 64

typedef struct coop {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t parent;
    double perception;
    object seen[MAX_SEEN];
    uint32_t n_seen;
    object *out;
    size_t n_out, cap_out;
    link *links;
    size_t n_links, cap_links;
    sn_v2x_message *rx;
    uint32_t cap_rx;
} coop;

static sn_status create(const sn_host *h, sn_ctx *c, void **out)
{
    if (!SN_HOST_HAS(h, v2x_join) || !SN_HOST_HAS(h, overlap_sphere_nearest)) {
        h->set_error(c, "needs a host with ABI 1.6 (overlap_sphere_nearest, v2x_join)");
        return SN_E_UNSUPPORTED;
    }
    coop *s = calloc(1, sizeof *s);
    if (!s)
        return SN_E_NOMEM;
    s->host = h, s->ctx = c;
    *out = s;
    return SN_OK;
}
static void destroy(void *self) /* the engine takes the station out of the medium */
{
    coop *s = self;
    if (s)
        free(s->out), free(s->links), free(s->rx);
    free(s);
}
static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    coop *s = self;
    (void)n;
    s->perception = v[0].f;
    sn_v2x_params p = SN_V2X_PARAMS_INIT;
    p.filter_distance = v[1].f, p.transmit_power = v[2].f, p.receiver_sensitivity = v[3].f;
    p.scenario = (uint32_t)v[4].i;
    p.use_etsi_fading = v[5].f < 0, p.custom_fading_stddev = v[5].f < 0 ? 0 : v[5].f;
    p.channel_id = v[6].s;
    return s->host->v2x_join(s->ctx, &p); /* a refusal's sentence is the host's */
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

/* What reached this station at the end of the previous frame: links, and their objects fused in. */
static sn_status hear(coop *s)
{
    const sn_host *h = s->host;
    uint32_t n = 0;
    sn_status st = h->v2x_received(s->ctx, NULL, 0, &n);
    if (!st && n > s->cap_rx && !SN_GROW32(s->rx, s->cap_rx, n))
        return SN_E_NOMEM;
    if (n) {
        s->rx[0].struct_size = sizeof *s->rx;
        st = h->v2x_received(s->ctx, s->rx, n, &n);
    }
    if (st || !SN_GROW(s->links, s->cap_links, n))
        return st ? st : SN_E_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const sn_v2x_message *m = &s->rx[i];
        const object *o = m->payload;
        uint32_t k = m->size / sizeof *o;
        s->links[s->n_links++] = (link){m->power, m->sender_id, m->station_id, m->los, k};
        if (!SN_GROW(s->out, s->cap_out, s->n_out + k))
            return SN_E_NOMEM;
        for (uint32_t j = 0; j < k; j++) {
            object x;
            memcpy(&x, &o[j], sizeof x); /* the payload's bytes carry no alignment promise */
            if (x.actor != s->parent && !known(s->out, s->n_out, x.actor))
                s->out[s->n_out++] = x;
        }
    }
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    coop *s = self;
    const sn_host *h = s->host;
    (void)phase;
    sn_transform t;
    h->sensor_transform(s->ctx, &t);
    /* perceive */
    sn_ray_query q = SN_RAY_QUERY_INIT;
    uint32_t skip[2] = {s->parent, h->sensor_id(s->ctx)}, n = 0;
    q.ignore_ids = skip, q.n_ignore = 2;
    q.kind_mask = (1u << SN_ACTOR_VEHICLE) | (1u << SN_ACTOR_WALKER) | (1u << SN_ACTOR_STATIC);
    sn_overlap seen[MAX_SEEN];
    sn_status st = h->overlap_sphere_nearest(s->ctx, &q, t.location, s->perception, seen, MAX_SEEN, &n);
    if (st)
        return st;
    s->n_seen = 0;
    for (uint32_t i = 0; i < n && i < MAX_SEEN; i++)
        if (seen[i].actor_id) /* not the road */
            s->seen[s->n_seen++] = (object){(float)seen[i].point.x, (float)seen[i].point.y, (float)seen[i].point.z,
                                            (float)seen[i].distance, seen[i].actor_id, s->parent};
    /* own first, then what was heard, each actor once */
    s->n_out = s->n_links = 0;
    if (!SN_GROW(s->out, s->cap_out, s->n_seen))
        return SN_E_NOMEM;
    for (uint32_t i = 0; i < s->n_seen; i++)
        s->out[i] = s->seen[i];
    s->n_out = s->n_seen;
    if ((st = hear(s)))
        return st;
    /* broadcast what it perceived itself: heard at the end of this frame's POST phase */
    return s->n_seen ? h->v2x_send(s->ctx, s->seen, s->n_seen * (uint32_t)sizeof *s->seen) : SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    coop *s = self;
    (void)index;
    s->host->write_key(w, "objects");
    sn_status st = s->host->write_bin(w, s->out, s->n_out * sizeof *s->out);
    if (!st)
        st = s->host->write_key(w, "links");
    return st ? st : s->host->write_bin(w, s->links, s->n_links * sizeof *s->links);
}

static const sn_sensor_class coop_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.coop_perception",
    .doc = "own detections plus those other vehicles broadcast over the V2X medium (cooperative perception)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(attrs),
    SN_RECORD_TABLE(records),
    .value_size = sizeof(sn_value),
    .create = create, .destroy = destroy, .set = set, .attach = attach, .tick = tick, .serialize = serialize,
};
static const sn_sensor_class *const classes[] = {&coop_class};
SN_PLUGIN_EXPORT(lib, "coop_perception", "1.0", classes)
