/*
** sensor.other.actors — every actor of the world, each frame, as one stream message: what a
** view of a run needs beside the sensors' own streams (the MCAP export's 3-D boxes and
** transform tree; CARLA's world.get_snapshot() plus each actor's blueprint, parent and box).
**
** A message has, after the header keys:
**   actors     bin: one sn_actor_record (sensim/records.h, 112 bytes) per live actor, in
**              ascending id order: id, parent, kind, semantic tag, world pose, bounding box
**   type_ids   array of strings: each record's blueprint id, in the same order
**   names      array of strings: each record's scene name ("" if none)
** Poses are the engine's doubles as they are at the end of the frame (after physics), the
** same instant every other sensor of the frame measures at. It never fails and draws nothing
** from the random stream. `sensim run --mcap` adds one named "actors" when the scene has none.
*/
#include <sensim/grow.h>
#include <sensim/plugin.h>
#include <sensim/records.h>

#include <stdlib.h>
#include <string.h>

static const sn_attr_def actors_attrs[] = {
    {"sensor_tick", SN_ATTR_FLOAT, "0.0", NULL, NULL, true, 0, 1e9, "s", "seconds between messages (0: every frame)"},
};

typedef struct actors {
    const sn_host *h;
    sn_ctx *ctx;
    sn_actor_record *rec;
    const char **type_ids, **names; /* host-owned strings, valid while the actors live (this frame) */
    uint32_t n, cap;
} actors;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    actors *a = calloc(1, sizeof *a);
    if (!a) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    a->h = h, a->ctx = ctx;
    *out = a;
    return SN_OK;
}

static void destroy(void *self)
{
    actors *a = self;
    free(a->rec);
    free(a->type_ids);
    free(a->names);
    free(a);
}

static sn_status set(void *self, const sn_value *v, uint32_t n)
{
    (void)self, (void)v, (void)n;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    actors *a = self;
    const sn_host *h = a->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    uint32_t count = h->actor_count(a->ctx);
    /* three parallel arrays, one capacity: each grows from the same cap to the same size */
    uint32_t c_rec = a->cap, c_type = a->cap, c_name = a->cap;
    if (!SN_GROW32(a->rec, c_rec, count) || !SN_GROW32(a->type_ids, c_type, count) ||
        !SN_GROW32(a->names, c_name, count)) {
        h->set_error(a->ctx, "out of memory for %u actors", count);
        return SN_E_NOMEM;
    }
    a->cap = c_rec < c_type ? (c_rec < c_name ? c_rec : c_name) : (c_type < c_name ? c_type : c_name);
    a->n = 0;
    for (uint32_t i = 0; i < count; i++) {
        sn_actor_info info = {.struct_size = sizeof info};
        uint32_t id = h->actor_id_at(a->ctx, i);
        if (!id || h->actor_get(a->ctx, id, &info) != SN_OK)
            continue;
        sn_actor_record *r = &a->rec[a->n];
        memset(r, 0, sizeof *r);
        r->id = info.id;
        r->parent_id = info.parent_id;
        r->kind = (uint8_t)info.kind;
        r->semantic_tag = info.semantic_tag;
        const sn_transform *t = &info.transform;
        const double v[12] = {t->location.x, t->location.y, t->location.z, t->rotation.pitch, t->rotation.yaw,
                              t->rotation.roll, info.bounding_box.location.x, info.bounding_box.location.y,
                              info.bounding_box.location.z, info.bounding_box.extent.x, info.bounding_box.extent.y,
                              info.bounding_box.extent.z};
        memcpy(r->location, v, sizeof v); /* location, rotation, box_location, box_extent: contiguous */
        a->type_ids[a->n] = info.type_id ? info.type_id : "";
        a->names[a->n] = info.name ? info.name : "";
        a->n++;
    }
    return SN_OK;
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    actors *a = self;
    const sn_host *h = a->h;
    (void)index;
    h->write_key(w, "actors");
    h->write_bin(w, a->rec, (size_t)a->n * sizeof *a->rec);
    h->write_key(w, "type_ids");
    h->write_array(w, a->n);
    for (uint32_t i = 0; i < a->n; i++)
        h->write_str(w, a->type_ids[i]);
    h->write_key(w, "names");
    h->write_array(w, a->n);
    sn_status st = SN_OK;
    for (uint32_t i = 0; i < a->n; i++)
        st = h->write_str(w, a->names[i]);
    return st;
}

static const sn_sensor_class actors_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.actors",
    .doc = "every actor each frame: id, blueprint, parent, semantic tag, world pose and box (what MCAP views read)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(actors_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .tick = tick,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&actors_class};
SN_PLUGIN_EXPORT(lib, "actors", "1.0.0", classes)
