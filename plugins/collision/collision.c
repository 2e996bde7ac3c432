/*
** sensor.other.collision — CARLA's collision detector as a sensim plugin.
**
** One event per (frame, other actor) for the sensor's parent: the host already sums the
** contact impulses of all physics substeps of the frame per pair, and this sensor keeps
** CARLA's per-frame registry so that a pair is never reported twice in one frame.
**
** Message keys after the header: actor, other_actor ({id, type_id, semantic_tag}),
** normal_impulse ([x, y, z] N*s, world frame, the impulse other_actor applied to actor over
** the frame), and beyond CARLA: location and normal of the strongest contact (world frame,
** normal pointing from other_actor into actor).
*/
#include <sensim/plugin.h>

#include <stdlib.h>
#include <string.h>

#define TYPE_MAX 96

typedef struct actor_ref {
    uint32_t id;
    uint8_t tag;
    char type_id[TYPE_MAX];
} actor_ref;

typedef struct event {
    actor_ref self, other;
    sn_collision c;
} event;

typedef struct collision {
    const sn_host *host;
    sn_ctx *ctx;
    uint64_t frame;  /* frame the events belong to */
    event *events;   /* reused across frames */
    uint32_t n, cap;
} collision;

static sn_status create(const sn_host *host, sn_ctx *ctx, void **out)
{
    collision *c = calloc(1, sizeof *c);
    if (!c)
        return SN_E_NOMEM;
    c->host = host;
    c->ctx = ctx;
    *out = c;
    return SN_OK;
}

static void destroy(void *self)
{
    collision *c = self;
    if (c)
        free(c->events);
    free(c);
}

static sn_status attach(void *self, uint32_t parent)
{
    collision *c = self;
    if (!parent)
        c->host->log(c->ctx, SN_LOG_WARN, "a collision sensor without attach_to never reports anything");
    return SN_OK;
}

/* Pre-physics: CARLA prunes its registry of older frames here. */
static sn_status tick(void *self, sn_phase phase)
{
    collision *c = self;
    if (phase == SN_PHASE_PRE)
        c->n = 0;
    return SN_OK;
}

static void ref_of(collision *c, uint32_t id, actor_ref *r)
{
    sn_actor_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    memset(r, 0, sizeof *r);
    r->id = id;
    if (c->host->actor_get(c->ctx, id, &info) == SN_OK) {
        r->tag = info.semantic_tag;
        strncpy(r->type_id, info.type_id ? info.type_id : "", TYPE_MAX - 1);
    }
}

static sn_status on_event(void *self, const sn_event *ev)
{
    collision *c = self;
    if (ev->type != SN_EVENT_COLLISION)
        return SN_OK;
    if (ev->frame != c->frame) {
        c->frame = ev->frame;
        c->n = 0;
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->events[i].self.id == ev->u.collision.self_id && c->events[i].other.id == ev->u.collision.other_id)
            return SN_OK; /* already reported this frame */
    if (c->n == c->cap) {
        uint32_t ncap = c->cap ? c->cap * 2 : 8;
        event *ne = realloc(c->events, ncap * sizeof *ne);
        if (!ne) {
            c->host->set_error(c->ctx, "out of memory for %u collision events", ncap);
            return SN_E_NOMEM;
        }
        c->events = ne;
        c->cap = ncap;
    }
    event *e = &c->events[c->n++];
    e->c = ev->u.collision;
    ref_of(c, e->c.self_id, &e->self);
    ref_of(c, e->c.other_id, &e->other);
    return SN_OK;
}

static uint32_t pending(void *self)
{
    collision *c = self;
    return c->frame == c->host->clock(c->ctx)->frame ? c->n : 0;
}

static sn_status write_ref(collision *c, sn_writer *w, const actor_ref *r)
{
    const sn_host *h = c->host;
    h->write_map(w, 3);
    h->write_key(w, "id");
    h->write_uint(w, r->id);
    h->write_key(w, "type_id");
    h->write_str(w, r->type_id);
    h->write_key(w, "semantic_tag");
    return h->write_uint(w, r->tag);
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    collision *c = self;
    const sn_host *h = c->host;
    if (index >= c->n) {
        h->set_error(c->ctx, "serialize(%u) but only %u events", index, c->n);
        return SN_E_RANGE;
    }
    const event *e = &c->events[index];
    h->write_key(w, "actor");
    write_ref(c, w, &e->self);
    h->write_key(w, "other_actor");
    write_ref(c, w, &e->other);
    h->write_key(w, "normal_impulse");
    h->write_vec3(w, e->c.normal_impulse);
    h->write_key(w, "location");
    h->write_vec3(w, e->c.location);
    h->write_key(w, "normal");
    return h->write_vec3(w, e->c.normal);
}

static const sn_sensor_class collision_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.collision",
    .doc = "one event per frame and other actor when the parent collides (CARLA's collision detector)",
    .phases = SN_PHASE_PRE,
    .events = SN_EVENT_COLLISION,
    .attrs = NULL,
    .n_attrs = 0,
    .attr_def_size = sizeof(sn_attr_def),
    .create = create,
    .destroy = destroy,
    .attach = attach,
    .tick = tick,
    .on_event = on_event,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&collision_class};

static const sn_plugin_lib library = {
    .hdr = SN_ABI_HEADER(sn_plugin_lib),
    .name = "collision",
    .version = "1.0.0",
    .n_classes = 1,
    .classes = classes,
};

SN_PLUGIN_ENTRY
{
    (void)host_abi_minor;
    return host_abi_major == SN_ABI_MAJOR ? &library : NULL;
}
