/* spawn.c — turning scene entries into actors and sensor instances, and destroying them. */
#include "engine.h"
#include "spawn.h"
#include "classes.h"
#include "host_v2x.h"
#include "guard.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../plugin/attr.h"
#include "../world/body.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_queue_event(struct sn_engine *e, sn_event_type type, uint32_t actor, uint32_t parent)
{
    if (!sn_grow((void **)&e->events, &e->cap_events, e->n_events + 1, sizeof *e->events))
        return SN_E_NOMEM;
    sn_event *ev = &e->events[e->n_events++];
    memset(ev, 0, sizeof *ev);
    ev->struct_size = sizeof *ev;
    ev->type = type;
    ev->u.actor.actor_id = actor;
    ev->u.actor.parent_id = parent;
    return SN_OK;
}

/* The observer watching bp's actors (sim/engine.h), NULL when none does. */
static const sn_actor_observer *observer_of(const struct sn_engine *e, const sn_blueprint *bp)
{
    for (unsigned i = 0; bp && i < e->n_observers; i++)
        if (strcmp(bp->id, e->observers[i]->blueprint) == 0)
            return e->observers[i];
    return NULL;
}

/* A sensor from a scene that refuses to be made (create, set, attach): the error names the
** scene's file:line:col of its entry, as attribute errors do. */
static sn_status scene_fail(const struct sn_engine *e, const sn_spawn_desc *d, sn_status st, sn_error *err)
{
    if (d->src)
        sn_error_prefix(err, sn_scene_where(&e->scene, d->src->pos).s);
    return st;
}

/* Where an error about attribute `key` points: its file:line:col in a scene, else "spawn". */
static void attr_where(const struct sn_engine *e, const sn_scene_entity *ent, const char *key, char *buf, size_t n)
{
    if (!ent) {
        snprintf(buf, n, "spawn");
        return;
    }
    sn_srcpos pos = ent->pos;
    for (uint32_t i = 0; i < ent->n_attrs; i++)
        if (strcmp(ent->attrs[i].key, key) == 0)
            pos = ent->attrs[i].value_pos;
    sn_format(buf, n, "%s", sn_scene_where(&e->scene, pos).s);
}

/* Where a descriptor's errors point: the scene entry, or the API call. */
static void desc_where(const struct sn_engine *e, const sn_spawn_desc *d, char *buf, size_t n)
{
    if (d->src)
        sn_format(buf, n, "%s", sn_scene_where(&e->scene, d->src->pos).s);
    else
        snprintf(buf, n, "spawn '%s'", d->bp->id);
}

/* "WHERE: spawn failed because of collision at spawn position: 'a' (bp) overlaps 'b' (bp) by D m
** at z = Z; z >= H clears it" (no height for a static: lifting a prop means nothing). */
static sn_status overlap_fail(const struct sn_engine *e, const sn_spawn_desc *d, const sn_blueprint *bp,
                              const sn_spawn_overlap *ov, double z, sn_error *err)
{
    char where[512], clear[64] = "no height clears it";
    desc_where(e, d, where, sizeof where);
    if (bp->kind == SN_ACTOR_STATIC)
        snprintf(clear, sizeof clear, "move one of them");
    else if (isfinite(ov->clear_z))
        snprintf(clear, sizeof clear, "z >= %.2f clears it", ceil(ov->clear_z * 100) / 100 + 0.0);
    return sn_fail(err, SN_E_INVALID, "%s: spawn failed because of collision at spawn position: '%s' (%s) "
                   "overlaps '%s' (%s) by %.2f m at z = %.2f; %s", where, d->name && d->name[0] ? d->name : bp->id,
                   bp->id, ov->other->name && ov->other->name[0] ? ov->other->name : ov->other->type_id,
                   ov->other->type_id, ov->depth, z, clear);
}

/* Checks what every spawn shares: the transform is finite, the parent is live, the name and
** the id are free. */
sn_status sn_spawn_check(struct sn_engine *e, const sn_spawn_desc *d, sn_error *err)
{
    char where[600];
    desc_where(e, d, where, sizeof where);
    const sn_transform *t = &d->transform;
    double sum = t->location.x + t->location.y + t->location.z + t->rotation.pitch + t->rotation.yaw + t->rotation.roll;
    if (!isfinite(sum) || fabs(t->location.x) > 1e7 || fabs(t->location.y) > 1e7 || fabs(t->location.z) > 1e7)
        return sn_fail(err, SN_E_RANGE, "%s: the transform must be finite, within 10000 km of the origin", where);
    if (d->parent) {
        const sn_actor *p = sn_world_find(&e->world, d->parent);
        if (!p || p->kind == SN_ACTOR_SENSOR)
            return sn_fail(err, SN_E_INVALID, "%s: parent %u is %s", where, d->parent,
                           p ? "a sensor; only actors carry attachments" : "not a live actor");
        if (d->bp->kind != SN_ACTOR_STATIC && d->bp->kind != SN_ACTOR_SENSOR)
            return sn_fail(err, SN_E_INVALID, "%s: only static props and sensors can be attached; '%s' is a %s", where,
                           d->name && d->name[0] ? d->name : d->bp->id, d->bp->id);
        uint32_t depth = 1;
        for (const sn_actor *q = p; q && q->parent; q = sn_world_find(&e->world, q->parent))
            if (++depth > SN_LIMIT_ATTACH_DEPTH)
                return sn_fail(err, SN_E_RANGE, "%s: attachment chain deeper than the limit of %u parents "
                               "(SN_LIMIT_ATTACH_DEPTH)", where, SN_LIMIT_ATTACH_DEPTH);
    }
    if (e->world.n_actors >= SN_LIMIT_ACTORS)
        return sn_fail(err, SN_E_RANGE, "%s: %u actors live, the limit (SN_LIMIT_ACTORS)", where, SN_LIMIT_ACTORS);
    if (d->name && d->name[0] && sn_world_find_name(&e->world, d->name))
        return sn_fail(err, SN_E_INVALID, "%s: the name '%s' is taken by a live actor", where, d->name);
    if (!d->id && e->world.next_id == UINT32_MAX)
        return sn_fail(err, SN_E_RANGE, "%s: every actor id up to %u was used; ids are never reused", where, UINT32_MAX);
    if (d->id && d->id <= e->world.next_id)
        return sn_fail(err, SN_E_INVALID, "%s: id %u was already used (ids are never reused; the next free one is %u)",
                       where, d->id, e->world.next_id + 1);
    return SN_OK;
}

static sn_transform world_pose(struct sn_engine *e, const sn_spawn_desc *d)
{
    if (!d->parent)
        return d->transform;
    sn_transform pt = sn_actor_world_transform(&e->world, sn_world_find(&e->world, d->parent));
    return sn_transform_compose(&pt, &d->transform);
}

/* The blueprint's value of attribute `name` (every built-in has the ones asked for). */
static const sn_value *val(const sn_spawn_desc *d, const char *name)
{
    int i = sn_attr_find(d->bp->attrs, d->bp->n_attrs, d->bp->stride, name);
    return i >= 0 ? &d->values[i] : NULL;
}

/* What the resolved values say about the actor's body (world/body.c builds it); only the
** attributes of the blueprint's shape and kind are read, as every built-in has those. */
static void body_spec_of(const sn_spawn_desc *d, sn_body_spec *b)
{
    const sn_blueprint *bp = d->bp;
    const sn_value *v;
    memset(b, 0, sizeof *b);
    b->extent = (v = val(d, "extent")) ? v->s : NULL;
    if (bp->shape == SN_SHAPE_SPHERE || bp->shape == SN_SHAPE_CYLINDER)
        b->radius = val(d, "radius")->f;
    if (bp->shape == SN_SHAPE_CYLINDER)
        b->height = val(d, "height")->f;
    if ((v = val(d, "mass"))) {
        b->has_mass = true;
        b->mass = v->f;
    }
    if (bp->kind == SN_ACTOR_VEHICLE) {
        b->cg = val(d, "center_of_mass_height")->f;
        b->wheels = (v = val(d, "number_of_wheels")) ? (int)v->i : 4;
        b->max_power = val(d, "max_power")->f;
        b->max_steer_deg = val(d, "max_steer_angle")->f;
    }
    if (bp->kind == SN_ACTOR_WALKER)
        b->walk_speed = val(d, "speed")->f;
}

/* The actor's body from its resolved values (world/body.c), the refusal worded here with the
** attribute's file:line:col in a scene. */
static sn_status body_of(struct sn_engine *e, const sn_spawn_desc *d, sn_actor *a, sn_error *err)
{
    sn_body_spec b;
    const char *bad;
    body_spec_of(d, &b);
    sn_status st = sn_actor_body_set(&e->world, a, &b, &bad);
    if (!st)
        return SN_OK;
    if (!bad)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    char where[600];
    attr_where(e, d->src, bad, where, sizeof where);
    if (strcmp(bad, "extent") == 0)
        return sn_fail(err, st, "%s: attribute 'extent' of '%s': expected three half extents 'x,y,z' in metres, "
                       "each in (0, 10000], found '%s'", where, d->bp->id, b.extent);
    if (strcmp(bad, "center_of_mass_height") == 0)
        return sn_fail(err, st, "%s: attribute 'center_of_mass_height' of '%s': %g m is not below the top of the "
                       "box (%g m)", where, d->bp->id, b.cg, 2 * a->ph->bbox.extent.z);
    return sn_fail(err, st, "%s: attribute 'number_of_wheels' of '%s': %d; sensim models 2 (a two-wheeler) or 4",
                   where, d->bp->id, b.wheels);
}

/* Puts a free-standing actor being spawned 1 cm above z (its world pose and its descriptor's). */
static void lift_to(sn_spawn_desc *d, sn_actor *a, sn_transform *world_tf, double z)
{
    world_tf->location.z = z + 0.01;
    d->transform.location.z = world_tf->location.z;
    sn_actor_set_rel(a, &d->transform);
}

/* The actor's role, colour, texture, semantic tag and reflectivity from its resolved values
** (d->values, not yet shared: the resolved reflectivity is written back). */
static sn_status look_of(const struct sn_engine *e, const sn_spawn_desc *d, sn_actor *a, sn_error *err)
{
    const sn_value *v;
    a->role_name = sn_actor_strdup((v = val(d, "role_name")) ? v->s : "");
    a->hero = a->kind == SN_ACTOR_VEHICLE && a->role_name && strcmp(a->role_name, "hero") == 0;
    if ((v = val(d, "color")))
        memcpy(a->color, v->rgb, 3);
    a->checker = (v = val(d, "texture")) && v->i == 1;
    a->ph->checker_size = (v = val(d, "checker_size")) ? v->f : 1.0;
    const char *tag = (v = val(d, "semantic_tag")) ? v->s : "0";
    if (!sn_tag_parse(tag, &a->tag)) {
        char where[600];
        attr_where(e, d->src, "semantic_tag", where, sizeof where);
        return sn_fail(err, SN_E_INVALID, "%s: attribute 'semantic_tag': '%s' is not one of CARLA's semantic tags "
                       "(Roads, Building, Wall, Car, ...: docs/semantic-tags.md) nor a number 0-28", where, tag);
    }
    /* Reflectivity: a negative value (the default) takes the tag's; the resolved value is what
    ** the actor keeps, so actor_attribute and a recording's spawn say what rays report. */
    int ri = sn_attr_find(d->bp->attrs, d->bp->n_attrs, d->bp->stride, "reflectivity");
    a->ph->reflectivity = ri >= 0 && d->values[ri].f >= 0 ? d->values[ri].f : sn_tag_reflectivity(a->tag);
    if (ri >= 0)
        d->values[ri].f = a->ph->reflectivity;
    return SN_OK;
}

/* Puts the actor at its pose and into the physical world, lifting a walker or an OpenSCENARIO
** entity out of static geometry; refuses (d->refused) a spawn overlapping what stands there. */
static sn_status place(struct sn_engine *e, sn_spawn_desc *d, sn_actor *a, sn_error *err)
{
    const sn_blueprint *bp = d->bp;
    sn_actor_set_rel(a, &d->transform);
    sn_transform world_tf = world_pose(e, d);
    sn_spawn_overlap ov;
    /* A replay puts recorded actors where they were, touching or not: no check there. CARLA
    ** refuses such a spawn ("Spawn failed because of collision at spawn position"): physics
    ** would push the two apart violently. Whichever comes second is refused, so a vehicle is
    ** checked against what stands there and a static against the vehicles and walkers. */
    bool moving = bp->kind == SN_ACTOR_VEHICLE || bp->kind == SN_ACTOR_WALKER;
    /* A walker placed with its centre on the ground (CARLA's get_random_location_from_navigation
    ** gives the navigation mesh's surface, and generate_traffic.py spawns there) is lifted out
    ** of static geometry by at most its height, as Unreal adjusts a character's capsule
    ** ("adjust if possible"); anything else it overlaps still refuses the spawn. */
    if (bp->kind == SN_ACTOR_WALKER && !d->parent && !e->replay && sn_world_spawn_overlap(&e->world, a, &world_tf, &ov) &&
        ov.other->kind == SN_ACTOR_STATIC && isfinite(ov.clear_z) && ov.clear_z > world_tf.location.z &&
        ov.clear_z - world_tf.location.z <= 2 * a->ph->bbox.extent.z)
        lift_to(d, a, &world_tf, ov.clear_z);
    /* an OpenSCENARIO entity stands where the scenario's map says (esmini tests no collision at
    ** all): its level box is lifted clear of a sloped or superelevated road, its motion being
    ** kinematic from then on; other actors and props still refuse it */
    while (d->lift_static && moving && !d->parent && !e->replay && sn_world_spawn_overlap(&e->world, a, &world_tf, &ov) &&
           ov.other->kind == SN_ACTOR_STATIC && isfinite(ov.clear_z) && ov.clear_z > world_tf.location.z)
        lift_to(d, a, &world_tf, ov.clear_z);
    if (moving && !e->replay && !d->overlap_ok && sn_world_spawn_overlap(&e->world, a, &world_tf, &ov)) {
        d->refused = SN_SPAWN_OVERLAP;
        return overlap_fail(e, d, bp, &ov, world_tf.location.z, err);
    }
    sn_status st = sn_world_materialize(&e->world, a, &world_tf, err);
    if (st) {
        char where[600];
        desc_where(e, d, where, sizeof where);
        sn_error_prefix(err, where);
        return st;
    }
    if (bp->kind == SN_ACTOR_STATIC && !e->replay && sn_world_static_overlap(&e->world, a, &ov)) {
        d->refused = SN_SPAWN_OVERLAP;
        return overlap_fail(e, d, bp, &ov, world_tf.location.z, err);
    }
    return SN_OK;
}

sn_status sn_spawn_actor(struct sn_engine *e, sn_spawn_desc *d, sn_actor **out, sn_error *err)
{
    const sn_blueprint *bp = d->bp;
    sn_value *values = d->values;
    d->values = NULL;
    d->refused = SN_SPAWN_ACCEPTED;
    sn_status st = sn_spawn_check(e, d, err);
    if (!st && bp->kind == SN_ACTOR_SENSOR) /* sensors have no shape part to write (sn_spawn_sensor) */
        st = sn_fail(err, SN_E_INVALID, "'%s' is a sensor blueprint: spawn it as a sensor", bp->id);
    if (st) {
        free(values);
        return st;
    }
    uint32_t next_id = e->world.next_id; /* restored if the spawn fails: nobody saw the id */
    sn_actor *a = sn_world_add(&e->world, bp->kind, d->id);
    if (!a || !sn_world_set_name_kept(&e->world, a, d->name, d->name_kept)) {
        e->world.next_id = next_id;
        free(values);
        if (a)
            sn_world_remove(&e->world, a->id);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    a->values = values;
    d->values = values; /* read below through val() */
    a->bp = bp;
    a->type_id = bp->id;
    a->shape = bp->shape;
    a->parent = d->parent;
    if ((st = look_of(e, d, a, err)))
        goto fail;
    /* The values are final: share them with actors of equal ones, but for traffic lights,
    ** whose `state` follows the light (lights.c). */
    a->n_values = bp->n_attrs;
    const sn_actor_observer *obs = observer_of(e, bp);
    if (!obs || !obs->own_values)
        a->values = d->values = values = sn_vshare_take(&e->world.vshare, values, bp->n_attrs, &a->values_shared);
    if ((st = body_of(e, d, a, err)))
        goto fail;
    d->values = NULL;

    if ((st = place(e, d, a, err)))
        goto fail;
    sn_actor_update_attached(&e->world, a);
    if (obs && obs->spawned && (st = obs->spawned(e, a, err)))
        goto fail;
    if (sn_queue_event(e, SN_EVENT_ACTOR_SPAWNED, a->id, a->parent)) {
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
        goto fail;
    }
    if (out)
        *out = a;
    return SN_OK;
fail:
    d->values = NULL;
    sn_world_remove(&e->world, a->id); /* frees the values too */
    e->world.next_id = next_id;
    return st;
}

sn_status sn_spawn_sensor(struct sn_engine *e, sn_sensor *s, const sn_spawn_desc *d, sn_error *err)
{
    sn_status st = sn_spawn_check(e, d, err);
    if (st)
        return st;
    sn_actor *a = sn_world_add(&e->world, SN_ACTOR_SENSOR, d->id);
    if (!a || !sn_world_set_name_kept(&e->world, a, d->name, d->name_kept)) {
        if (a)
            sn_world_remove(&e->world, a->id);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    a->bp = s->bp;
    a->type_id = s->bp->id;
    a->parent = d->parent;
    int ri = sn_attr_find(s->bp->attrs, s->bp->n_attrs, s->bp->stride, "role_name");
    a->role_name = sn_actor_strdup(ri >= 0 ? s->values[ri].s : d->role ? d->role : "");
    sn_actor_set_rel(a, &d->transform);
    sn_transform world_tf = world_pose(e, d);
    a->st.pos = a->st.prev_pos = world_tf.location;
    a->st.rot = a->st.prev_rot = sn_quat_from_rotation(world_tf.rotation);
    sn_actor_update_attached(&e->world, a);
    a->sensor = s;
    s->actor_id = a->id;
    s->spawned = true;
    if ((st = sn_class_attach(e, s, err)))
        return st;
    sn_ctx_error_clear(s);
    sn_guard_enter(s, "create");
    st = s->cls->create(e->plugin_host, s, &s->self);
    sn_guard_leave();
    if (st != SN_OK)
        return scene_fail(e, d, sn_plugin_fail(s, "create", st, err), err);
    if (s->cls->set) {
        sn_guard_enter(s, "set");
        st = s->cls->set(s->self, s->values, s->bp->n_attrs);
        sn_guard_leave();
        if (st != SN_OK)
            return scene_fail(e, d, sn_plugin_fail(s, "set", st, err), err);
    }
    if (s->cls->attach) {
        sn_guard_enter(s, "attach");
        st = s->cls->attach(s->self, d->parent);
        sn_guard_leave();
        if (st != SN_OK)
            return scene_fail(e, d, sn_plugin_fail(s, "attach", st, err), err);
    }
    e->routes_dirty = true;
    return sn_queue_event(e, SN_EVENT_ACTOR_SPAWNED, a->id, d->parent) ? sn_fail(err, SN_E_NOMEM, "out of memory")
                                                                        : SN_OK;
}

sn_status sn_spawn_scene_sensor(struct sn_engine *e, sn_sensor *s, sn_error *err)
{
    const sn_scene_entity *ent = s->entity;
    sn_spawn_desc d = {.bp = s->bp, .name = ent->name, .transform = ent->transform, .src = ent, .name_kept = true};
    for (uint32_t i = 0; i < ent->n_attrs; i++) /* role_name, a host key: kept on the actor */
        if (strcmp(ent->attrs[i].key, "role_name") == 0)
            d.role = ent->attrs[i].value;
    if (ent->attach_to) {
        const sn_actor *p = sn_world_find_name(&e->world, ent->attach_to);
        if (!p || p->kind == SN_ACTOR_SENSOR)
            return sn_fail(err, SN_E_INVALID, "%s: attach_to '%s' names no %s actor", sn_scene_where(&e->scene, ent->attach_pos).s, ent->attach_to, p ? "non-sensor" : "live");
        d.parent = p->id;
    }
    return sn_spawn_sensor(e, s, &d, err);
}

sn_status sn_destroy_actor(struct sn_engine *e, uint32_t id)
{
    sn_status st = SN_OK;
    /* Children first: attached props and sensors go with their parent. */
    for (size_t i = e->world.n_actors; i-- > 0;) {
        if (i < e->world.n_actors && e->world.actors[i]->parent == id && sn_destroy_actor(e, e->world.actors[i]->id))
            st = SN_E_NOMEM;
    }
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return st;
    if (a->sensor) {
        sn_sensor *s = a->sensor;
        if (s->self) {
            sn_guard_enter(s, "destroy");
            s->cls->destroy(s->self);
            sn_guard_leave();
        }
        sn_host_v2x_leave(s);
        s->self = NULL;
        s->destroyed = true;
        e->n_due += !s->entity && !s->internal; /* out of the steps' walks at the next (engine.h: gone) */
        sn_sensor_unbudget(e, s);
        s->actor_id = 0;
        e->routes_dirty = true;
        if (s->internal && id == e->rec_actor && e->recorder_closed)
            e->recorder_closed(e); /* the recorder closed its file: the recording goes in place */
    }
    for (uint32_t i = 0; i < e->n_actors; i++)
        if (e->actors[i].actor_id == id)
            e->actors[i].destroyed = true;
    const sn_actor_observer *obs = observer_of(e, a->bp);
    if (obs && obs->destroyed)
        obs->destroyed(e, id);
    /* The actor goes either way; a lost DESTROYED event is reported, never silent. */
    if (sn_queue_event(e, SN_EVENT_ACTOR_DESTROYED, id, a->parent))
        st = SN_E_NOMEM;
    sn_world_remove(&e->world, id);
    return st;
}

sn_status sn_sensor_budget(struct sn_engine *e, sn_sensor *s, const char *where, sn_error *err)
{
    const sn_blueprint *bp = s->bp;
    int xi = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "image_size_x");
    int yi = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "image_size_y");
    if (xi < 0 || yi < 0 || s->values[xi].type != SN_ATTR_INT || s->values[yi].type != SN_ATTR_INT)
        return SN_OK;
    int64_t w = s->values[xi].i, h = s->values[yi].i;
    if (w < 1 || h < 1 || w > 1 << 20 || h > 1 << 20 || (uint64_t)(w * h) > SN_LIMIT_IMAGE_PIXELS)
        return sn_fail(err, SN_E_RANGE, "%s: image_size_x * image_size_y = %lld x %lld is over the limit of %llu pixels "
                       "(SN_LIMIT_IMAGE_PIXELS)", where, (long long)w, (long long)h,
                       (unsigned long long)SN_LIMIT_IMAGE_PIXELS);
    uint64_t bytes = (uint64_t)(w * h) * 32;
    if (e->sensor_bytes + bytes > SN_LIMIT_SENSOR_MEMORY)
        return sn_fail(err, SN_E_RANGE, "%s: the sensors' images would take %llu MiB, over the limit of %llu MiB "
                       "(SN_LIMIT_SENSOR_MEMORY, 32 bytes a pixel)", where,
                       (unsigned long long)((e->sensor_bytes + bytes) >> 20),
                       (unsigned long long)(SN_LIMIT_SENSOR_MEMORY >> 20));
    e->sensor_bytes += bytes;
    s->budget_bytes = bytes;
    return SN_OK;
}

void sn_sensor_unbudget(struct sn_engine *e, sn_sensor *s)
{
    e->sensor_bytes -= s->budget_bytes;
    s->budget_bytes = 0;
}
