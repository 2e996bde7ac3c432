/*
** sensor.other.obstacle — CARLA's obstacle detector as a sensim plugin.
**
** Follows CARLA's AObstacleDetectionSensor::PostPhysTick (Unreal/CarlaUE4/Plugins/Carla/Source/
** Carla/Sensor/ObstacleDetectionSensor.cpp): every tick a sphere of hit_radius is swept from the
** sensor's location `distance` metres along its forward vector (host->sweep_sphere); the first
** actor it touches, other than the sensor's parent (and what rides on it: CARLA ignores the
** sensor and its owner), is one event with
**   actor        the sensor itself, as CARLA's code sends it (Episode.SerializeActor(this));
**                its `parent` is the vehicle it is mounted on (seed 003 calls `actor` the parent);
**   other_actor  the actor hit;
**   distance     how far the sphere's centre travelled before touching (UE's FHitResult::Distance;
**                0 when it touches at the start), metres.
** Both actors are described as the collision sensor describes them (CARLA's carla.Actor: id,
** type_id, semantic_tag, semantic_tags, parent, role_name, attributes, bounding_box). Nothing
** hit, no message (CARLA sends only on a hit). only_dynamics keeps vehicles and walkers
** (CARLA's AllDynamicObjects); otherwise everything counts, the ground too when the sphere
** reaches it. debug_linetrace is accepted and does nothing: there is no viewport to draw in.
*/
#include <sensim/math.h>
#include <sensim/plugin.h>

#include "attr_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sn_attr_def obstacle_attrs[] = {
    {"distance", SN_ATTR_FLOAT, "5", NULL, NULL, true, 0.001, 100000, "m", "length of the sweep ahead of the sensor"},
    {"hit_radius", SN_ATTR_FLOAT, "0.5", NULL, NULL, true, 0, 1000, "m", "radius of the swept sphere"},
    {"only_dynamics", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "true: only vehicles and walkers are obstacles"},
    {"debug_linetrace", SN_ATTR_BOOL, "false", NULL, NULL, false, 0, 0, NULL,
     "CARLA draws the sweep in the viewport; accepted and ignored (headless)"},
    SN_ATTR_SENSOR_TICK("seconds between ticks (0: every frame)"),
};

typedef struct obstacle {
    const sn_host *h;
    sn_ctx *ctx;
    double distance, radius;
    bool only_dynamics;
    uint32_t parent;
    uint64_t frame; /* frame of the hit below */
    bool hit;
    uint32_t other;
    double hit_distance;
} obstacle;

static sn_status create(const sn_host *h, sn_ctx *ctx, void **out)
{
    if (h->hdr.abi_minor < 2 || !h->sweep_sphere || !h->actor_attribute_at) {
        h->set_error(ctx, "sensor.other.obstacle needs a host of ABI 1.2 (sphere sweeps)");
        return SN_E_UNSUPPORTED;
    }
    obstacle *o = calloc(1, sizeof *o);
    if (!o) {
        h->set_error(ctx, "out of memory");
        return SN_E_NOMEM;
    }
    o->h = h, o->ctx = ctx;
    *out = o;
    return SN_OK;
}

static void destroy(void *self) { free(self); }

static sn_status set(void *self, const sn_value *a, uint32_t n)
{
    obstacle *o = self;
    (void)n;
    o->distance = a[0].f;
    o->radius = a[1].f;
    o->only_dynamics = a[2].b;
    return SN_OK;
}

static sn_status attach(void *self, uint32_t parent)
{
    ((obstacle *)self)->parent = parent;
    return SN_OK;
}

static sn_status tick(void *self, sn_phase phase)
{
    obstacle *o = self;
    const sn_host *h = o->h;
    if (phase != SN_PHASE_POST)
        return SN_OK;
    o->frame = h->clock(o->ctx)->frame;
    o->hit = false;
    sn_transform t;
    h->sensor_transform(o->ctx, &t);
    const sn_mat3 r = sn_mat3_from_rotation(t.rotation);
    const uint32_t ignore[2] = {h->sensor_id(o->ctx), o->parent};
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = ignore;
    q.n_ignore = o->parent ? 2 : 1;
    if (o->only_dynamics)
        q.kind_mask = (1u << SN_ACTOR_VEHICLE) | (1u << SN_ACTOR_WALKER);
    const sn_ray ray = {t.location, sn_mat3_col(&r, 0), o->distance};
    sn_ray_result res;
    memset(&res, 0, sizeof res);
    res.hit.struct_size = sizeof res.hit;
    sn_status st = h->sweep_sphere(o->ctx, &q, &ray, o->radius, &res);
    if (st)
        return st;
    if (res.n_hits && res.hit.actor_id) {
        o->hit = true;
        o->other = res.hit.actor_id;
        o->hit_distance = res.hit.distance;
    }
    return SN_OK;
}

static uint32_t pending(void *self)
{
    obstacle *o = self;
    return o->hit && o->frame == o->h->clock(o->ctx)->frame ? 1 : 0;
}


/* CARLA's carla.Actor as the collision sensor writes it. Both actors are alive: serialize runs
** in the frame of the tick, and actors are destroyed only at the start of a frame. */
static sn_status write_actor(obstacle *o, sn_writer *w, uint32_t id)
{
    const sn_host *h = o->h;
    sn_actor_info a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    const bool live = h->actor_get(o->ctx, id, &a) == SN_OK;
    h->write_map(w, 8);
    h->write_key(w, "id");
    h->write_uint(w, id);
    h->write_key(w, "type_id");
    h->write_str(w, live && a.type_id ? a.type_id : "");
    h->write_key(w, "semantic_tag");
    h->write_uint(w, a.semantic_tag);
    h->write_key(w, "semantic_tags"); /* CARLA's list; a sensim actor has one tag */
    h->write_array(w, 1);
    h->write_uint(w, a.semantic_tag);
    h->write_key(w, "parent"); /* nil as CARLA's None */
    if (a.parent_id)
        h->write_uint(w, a.parent_id);
    else
        h->write_nil(w);
    h->write_key(w, "role_name");
    h->write_str(w, live && a.role_name ? a.role_name : "");
    h->write_key(w, "attributes");
    uint32_t n = 0;
    const char *name;
    sn_value v;
    while (live && n < 256 && h->actor_attribute_at(o->ctx, id, n, &name, &v) == SN_OK)
        n++;
    h->write_map(w, n);
    for (uint32_t k = 0; k < n; k++) {
        char text[256];
        h->actor_attribute_at(o->ctx, id, k, &name, &v);
        sn_attr_text(&v, text, sizeof text);
        h->write_key(w, name);
        h->write_str(w, text);
    }
    h->write_key(w, "bounding_box"); /* in the actor's frame, as CARLA's */
    h->write_map(w, 2);
    h->write_key(w, "location");
    h->write_vec3(w, a.bounding_box.location);
    h->write_key(w, "extent");
    return h->write_vec3(w, a.bounding_box.extent);
}

static sn_status serialize(void *self, uint32_t index, sn_writer *w)
{
    obstacle *o = self;
    const sn_host *h = o->h;
    if (index != 0 || !o->hit) {
        h->set_error(o->ctx, "serialize(%u) but %u events this tick", index, o->hit ? 1u : 0u);
        return SN_E_RANGE;
    }
    h->write_key(w, "actor");
    write_actor(o, w, h->sensor_id(o->ctx));
    h->write_key(w, "other_actor");
    write_actor(o, w, o->other);
    h->write_key(w, "distance");
    return h->write_double(w, o->hit_distance);
}

static const sn_sensor_class obstacle_class = {
    .hdr = SN_ABI_HEADER(sn_sensor_class),
    .blueprint = "sensor.other.obstacle",
    .doc = "the first actor a sphere swept ahead of the sensor touches (CARLA's obstacle detector)",
    .phases = SN_PHASE_POST,
    SN_ATTR_TABLE(obstacle_attrs),
    .value_size = sizeof(sn_value),
    .create = create,
    .destroy = destroy,
    .set = set,
    .attach = attach,
    .tick = tick,
    .pending = pending,
    .serialize = serialize,
};

static const sn_sensor_class *const classes[] = {&obstacle_class};
SN_PLUGIN_EXPORT(lib, "obstacle", "1.0.0", classes)
