/*
** sensor.other.collision — CARLA's collision detector as a sensim plugin.
**
** One event per (frame, other actor) for the sensor's parent: the host already sums the
** contact impulses of all physics substeps of the frame per pair, and this sensor keeps
** CARLA's per-frame registry so that a pair is never reported twice in one frame.
**
** Message keys after the header: actor, other_actor (each described as CARLA's carla.Actor:
** id, type_id, semantic_tag, semantic_tags, parent, role_name, attributes, bounding_box),
** normal_impulse ([x, y, z] N*s, world frame, the impulse other_actor applied to actor summed
** over the frame's substeps — CARLA keeps only the first substep's, which is not the impulse
** of the collision), and beyond CARLA: location and normal of the strongest contact (world
** frame, normal pointing from other_actor into actor).
**
** Both actors are copied when the event arrives (the other one may be destroyed before
** serialize), strings into a pool reused across frames.
*/
#include <sensim/grow.h>
#include <sensim/plugin.h>

#include "attr_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The host offers an actor's attribute by name but no list of names (ABI 1.2), so the
** sensor asks for every attribute a built-in blueprint has; those an actor lacks are skipped. */
/* More attributes than any blueprint has; the rest would be dropped, never overflowed. */
#define MAX_ATTRS 64

typedef struct actor_ref {
    uint32_t id, parent;
    uint8_t tag;
    sn_bbox box;
    size_t type_id, role_name;   /* offsets into the sensor's string pool */
    uint32_t n_attrs;
    size_t attr_name[MAX_ATTRS];  /* pool offsets */
    size_t attr_value[MAX_ATTRS]; /* pool offsets */
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
    char *pool;      /* the events' strings, reused across frames */
    size_t pool_len, pool_cap;
    bool oom;
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
        free(c->events), free(c->pool);
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
        c->n = 0, c->pool_len = 0;
    return SN_OK;
}

/* Copies a string into the pool; its offset (offset 0 holds "" once the pool is used). */
static size_t keep(collision *c, const char *str)
{
    size_t n = strlen(str ? str : "") + 1;
    if (!SN_GROW(c->pool, c->pool_cap, c->pool_len + n)) {
        c->oom = true;
        return SIZE_MAX;
    }
    memcpy(c->pool + c->pool_len, str ? str : "", n);
    c->pool_len += n;
    return c->pool_len - n;
}


static void ref_of(collision *c, uint32_t id, actor_ref *r)
{
    const sn_host *h = c->host;
    sn_actor_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    memset(r, 0, sizeof *r);
    r->id = id;
    bool live = h->actor_get(c->ctx, id, &info) == SN_OK;
    if (live) {
        r->tag = info.semantic_tag;
        r->parent = info.parent_id;
        r->box = info.bounding_box;
    }
    r->type_id = keep(c, live ? info.type_id : "");
    r->role_name = keep(c, live ? info.role_name : "");
    /* Every attribute the actor was spawned with (ABI 1.2); an older host gives role_name only. */
    if (live && (h->hdr.abi_minor < 2 || !h->actor_attribute_at)) {
        r->attr_name[0] = keep(c, "role_name");
        r->attr_value[0] = keep(c, info.role_name ? info.role_name : "");
        r->n_attrs = 1;
        return;
    }
    const char *name;
    sn_value v;
    for (uint32_t k = 0; live && k < MAX_ATTRS && h->actor_attribute_at(c->ctx, id, k, &name, &v) == SN_OK; k++) {
        char text[256];
        sn_attr_text(&v, text, sizeof text);
        r->attr_name[r->n_attrs] = keep(c, name);
        r->attr_value[r->n_attrs++] = keep(c, text);
    }
}

static sn_status on_event(void *self, const sn_event *ev)
{
    collision *c = self;
    if (ev->type != SN_EVENT_COLLISION)
        return SN_OK;
    if (ev->frame != c->frame) {
        c->frame = ev->frame;
        c->n = 0, c->pool_len = 0;
    }
    for (uint32_t i = 0; i < c->n; i++)
        if (c->events[i].self.id == ev->u.collision.self_id && c->events[i].other.id == ev->u.collision.other_id)
            return SN_OK; /* already reported this frame */
    if (!SN_GROW32(c->events, c->cap, c->n + 1)) {
        c->host->set_error(c->ctx, "out of memory for %u collision events", c->n + 1);
        return SN_E_NOMEM;
    }
    event *e = &c->events[c->n++];
    e->c = ev->u.collision;
    ref_of(c, e->c.self_id, &e->self);
    ref_of(c, e->c.other_id, &e->other);
    if (c->oom) {
        c->host->set_error(c->ctx, "out of memory for the actors of %u collision events", c->n);
        return SN_E_NOMEM;
    }
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
    h->write_map(w, 8);
    h->write_key(w, "id");
    h->write_uint(w, r->id);
    h->write_key(w, "type_id");
    h->write_str(w, c->pool + r->type_id);
    h->write_key(w, "semantic_tag");
    h->write_uint(w, r->tag);
    h->write_key(w, "semantic_tags"); /* CARLA's list; a sensim actor has one tag */
    h->write_array(w, 1);
    h->write_uint(w, r->tag);
    h->write_key(w, "parent"); /* nil as CARLA's None */
    if (r->parent)
        h->write_uint(w, r->parent);
    else
        h->write_nil(w);
    h->write_key(w, "role_name");
    h->write_str(w, c->pool + r->role_name);
    h->write_key(w, "attributes");
    h->write_map(w, r->n_attrs);
    for (uint32_t k = 0; k < r->n_attrs; k++) {
        h->write_key(w, c->pool + r->attr_name[k]);
        h->write_str(w, c->pool + r->attr_value[k]);
    }
    h->write_key(w, "bounding_box"); /* in the actor's frame, as CARLA's */
    h->write_map(w, 2);
    h->write_key(w, "location");
    h->write_vec3(w, r->box.location);
    h->write_key(w, "extent");
    return h->write_vec3(w, r->box.extent);
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
    .attr_def_size = sizeof(sn_attr_def), /* no attributes */
    .create = create,
    .destroy = destroy,
    .attach = attach,
    .tick = tick,
    .on_event = on_event,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&collision_class};

SN_PLUGIN_EXPORT(library, "collision", "1.0.0", classes)
