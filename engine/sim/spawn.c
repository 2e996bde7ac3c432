/* spawn.c — turning scene entries into actors and sensor instances, and destroying them. */
#include "engine.h"
#include "guard.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../plugin/attr.h"

#include <errno.h>
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

sn_status sn_plugin_fail(sn_sensor *s, const char *callback, sn_status st, sn_error *err)
{
    return sn_fail(err, st == SN_OK ? SN_E_PLUGIN : st, "sensor '%s' (%s, plugin %s): %s failed: %s",
                   s->entity->name, s->bp->id, s->bp->plugin ? s->bp->plugin->path : "built-in", callback,
                   s->error[0] ? s->error : "no message given");
}

/* Position of attribute `key` in the entity, for messages; the entity itself if absent. */
static sn_srcpos attr_pos(const sn_scene_entity *ent, const char *key)
{
    for (uint32_t i = 0; i < ent->n_attrs; i++)
        if (strcmp(ent->attrs[i].key, key) == 0)
            return ent->attrs[i].value_pos;
    return ent->pos;
}

static sn_status parse_extent(const char *path, const sn_scene_entity *ent, const char *text, sn_vec3 *out,
                              sn_error *err)
{
    double v[3];
    char *p = (char *)text, *end;
    for (int i = 0; i < 3; i++) {
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[i]) || v[i] <= 0 || v[i] > 1e4)
            goto bad;
        while (*end == ' ')
            end++;
        if (i < 2 && *end++ != ',')
            goto bad;
        p = end;
    }
    if (*p)
        goto bad;
    *out = sn_v3(v[0], v[1], v[2]);
    return SN_OK;
bad:;
    sn_srcpos pos = attr_pos(ent, "extent");
    return sn_fail(err, SN_E_INVALID, "%s:%d:%d: attribute 'extent' of '%s': expected three half extents "
                   "'x,y,z' in metres, each in (0, 10000], found '%s'", path, pos.line, pos.col, ent->blueprint, text);
}

/* Resolves parent and world pose for an entity that may be attached. */
static sn_status resolve_parent(struct sn_engine *e, const sn_scene_entity *ent, uint32_t *parent, sn_error *err)
{
    *parent = 0;
    if (!ent->attach_to)
        return SN_OK;
    const sn_actor *p = sn_world_find_name(&e->world, ent->attach_to);
    if (!p || p->kind == SN_ACTOR_SENSOR)
        return sn_fail(err, SN_E_INVALID, "%s:%d:%d: attach_to '%s' names no %s actor", e->scene.path,
                       ent->attach_pos.line, ent->attach_pos.col, ent->attach_to,
                       p ? "non-sensor" : "live");
    *parent = p->id;
    return SN_OK;
}

static void set_common(sn_actor *a, const sn_scene_entity *ent)
{
    a->name = sn_strdup(ent->name ? ent->name : "");
    a->type_id = ent->blueprint;
}

sn_status sn_spawn_actor(struct sn_engine *e, sn_pending_actor *pa, sn_error *err)
{
    const sn_scene_entity *ent = pa->entity;
    const char *path = e->scene.path;
    const sn_blueprint *bp = sn_library_find(&e->lib, ent->blueprint);
    if (!bp || bp->kind == SN_ACTOR_SENSOR)
        return sn_fail(err, SN_E_INVALID, "%s:%d:%d: unknown actor blueprint '%s' (see `sensim blueprints`; "
                       "sensors go under 'sensors:')", path, ent->blueprint_pos.line, ent->blueprint_pos.col,
                       ent->blueprint);
    sn_value *v;
    sn_status st = sn_attr_resolve(bp->attrs, bp->n_attrs, bp->stride, bp->id, ent, path, NULL, &v, err);
    if (st)
        return st;
    uint32_t parent;
    if ((st = resolve_parent(e, ent, &parent, err))) {
        free(v);
        return st;
    }
    if (parent && bp->kind != SN_ACTOR_STATIC) {
        free(v);
        return sn_fail(err, SN_E_INVALID, "%s:%d:%d: only static props and sensors can be attached; '%s' is a %s",
                       path, ent->attach_pos.line, ent->attach_pos.col, ent->name ? ent->name : bp->id, bp->id);
    }
    if ((ent->has_control || ent->has_velocity || ent->has_autopilot) && bp->kind == SN_ACTOR_STATIC) {
        free(v);
        return sn_fail(err, SN_E_INVALID, "%s:%d:%d: '%s' is static: velocity, control and autopilot need a "
                       "vehicle.* or walker.* blueprint", path, ent->pos.line, ent->pos.col, bp->id);
    }
    sn_actor *a = sn_world_add(&e->world, bp->kind);
    if (!a) {
        free(v);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    set_common(a, ent);
    a->type_id = bp->id;
    a->shape = bp->shape;
    a->parent = parent;
    int i;
    a->role_name = sn_strdup(v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "role_name")].s);
    memcpy(a->color, v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "color")].rgb, 3);
    a->checker = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "texture")].i == 1;
    a->checker_size = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "checker_size")].f;
    const char *tag = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "semantic_tag")].s;
    if (!sn_tag_parse(tag, &a->tag)) {
        sn_srcpos pos = attr_pos(ent, "semantic_tag");
        st = sn_fail(err, SN_E_INVALID, "%s:%d:%d: attribute 'semantic_tag': '%s' is not a tag name of seed 003's "
                     "table (Roads, Building, Wall, Car, ...) nor a number 0-28", path, pos.line, pos.col, tag);
        goto fail;
    }
    if ((i = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "extent")) >= 0 &&
        (st = parse_extent(path, ent, v[i].s, &a->bbox.extent, err)))
        goto fail;
    if (bp->shape == SN_SHAPE_SPHERE) {
        double r = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "radius")].f;
        a->bbox.extent = sn_v3(r, r, r);
    } else if (bp->shape == SN_SHAPE_CYLINDER) {
        double r = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "radius")].f;
        a->bbox.extent = sn_v3(r, r, v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "height")].f / 2);
    } else if (bp->shape == SN_SHAPE_PLANE) {
        a->bbox.extent = sn_v3(1000, 1000, 0);
    }
    if ((i = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "mass")) >= 0)
        a->mass = v[i].f;
    if (bp->kind == SN_ACTOR_VEHICLE) {
        sn_vehicle_params *p = &a->vp;
        const sn_vec3 ex = a->bbox.extent;
        p->max_power = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "max_power")].f;
        p->max_steer = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "max_steer_angle")].f * SN_DEG;
        p->max_force = a->mass * 4.0; /* about 0.4 g off the line */
        p->drag_area = 0.35 * (2 * ex.y) * (2 * ex.z);
        p->wheelbase = 1.2 * ex.x;
        p->track = 1.7 * ex.y;
        p->clearance = fmin(0.3, 0.4 * ex.z);
        p->rest_compression = 0.1;
        p->ray_length = p->clearance + p->rest_compression;
        p->spring_k = a->mass * 9.81 / 4 / p->rest_compression;
        p->damper_c = 2 * 0.5 * sqrt(p->spring_k * a->mass / 4);
        p->mu = 1.0;
    }
    if (bp->kind == SN_ACTOR_WALKER)
        a->walk_speed = v[sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "speed")].f;
    free(v);
    v = NULL;

    a->rel = ent->transform;
    sn_transform world_tf = ent->transform;
    if (parent) {
        const sn_actor *p = sn_world_find(&e->world, parent);
        sn_transform pt = sn_actor_world_transform(&e->world, p);
        world_tf = sn_transform_compose(&pt, &ent->transform);
    }
    if ((st = sn_world_materialize(&e->world, a, &world_tf, err))) {
        sn_error_prefix(err, path);
        goto fail;
    }
    if (ent->has_velocity && a->body) {
        dBodySetLinearVel(a->body, ent->velocity.x, ent->velocity.y, ent->velocity.z);
        a->prev_velocity = ent->velocity;
    }
    if (ent->has_control) {
        a->control = ent->control;
        if (bp->kind == SN_ACTOR_WALKER) {
            a->walk_dir = ent->walk_direction;
            if (ent->walk_speed >= 0) /* else the blueprint's speed */
                a->walk_speed = ent->walk_speed;
        }
    }
    if (ent->has_autopilot) {
        a->has_autopilot = true;
        a->ap.route = malloc(ent->n_route * sizeof *a->ap.route);
        if (!a->ap.route) {
            st = sn_fail(err, SN_E_NOMEM, "out of memory");
            goto fail;
        }
        memcpy(a->ap.route, ent->route, ent->n_route * sizeof *a->ap.route);
        a->ap.n_route = ent->n_route;
        a->ap.target_speed = ent->target_speed >= 0 ? ent->target_speed
                             : bp->kind == SN_ACTOR_WALKER ? a->walk_speed : 8.0;
        a->ap.loop = ent->loop_route;
    }
    pa->actor_id = a->id;
    pa->spawned = true;
    return sn_queue_event(e, SN_EVENT_ACTOR_SPAWNED, a->id, a->parent) ? sn_fail(err, SN_E_NOMEM, "out of memory")
                                                                          : SN_OK;
fail:
    free(v);
    sn_world_remove(&e->world, a->id);
    return st;
}

sn_status sn_spawn_sensor(struct sn_engine *e, sn_sensor *s, sn_error *err)
{
    const sn_scene_entity *ent = s->entity;
    uint32_t parent;
    sn_status st = resolve_parent(e, ent, &parent, err);
    if (st)
        return st;
    sn_actor *a = sn_world_add(&e->world, SN_ACTOR_SENSOR);
    if (!a)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    set_common(a, ent);
    a->type_id = s->bp->id;
    a->parent = parent;
    a->role_name = sn_strdup("");
    a->rel = ent->transform;
    a->sensor = s;
    s->actor_id = a->id;
    s->spawned = true;
    s->error[0] = 0;
    sn_guard_enter(s, "create");
    st = s->cls->create(&e->host, s, &s->self);
    sn_guard_leave();
    if (st != SN_OK)
        return sn_plugin_fail(s, "create", st, err);
    if (s->cls->set) {
        sn_guard_enter(s, "set");
        st = s->cls->set(s->self, s->values, s->bp->n_attrs);
        sn_guard_leave();
        if (st != SN_OK)
            return sn_plugin_fail(s, "set", st, err);
    }
    if (s->cls->attach) {
        sn_guard_enter(s, "attach");
        st = s->cls->attach(s->self, parent);
        sn_guard_leave();
        if (st != SN_OK)
            return sn_plugin_fail(s, "attach", st, err);
    }
    e->routes_dirty = true;
    return sn_queue_event(e, SN_EVENT_ACTOR_SPAWNED, a->id, parent) ? sn_fail(err, SN_E_NOMEM, "out of memory")
                                                                       : SN_OK;
}

void sn_destroy_actor(struct sn_engine *e, uint32_t id)
{
    /* Children first: attached props and sensors go with their parent. */
    for (size_t i = e->world.n_actors; i-- > 0;) {
        if (i < e->world.n_actors && e->world.actors[i]->parent == id)
            sn_destroy_actor(e, e->world.actors[i]->id);
    }
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return;
    if (a->sensor) {
        sn_sensor *s = a->sensor;
        if (s->self) {
            sn_guard_enter(s, "destroy");
            s->cls->destroy(s->self);
            sn_guard_leave();
        }
        s->self = NULL;
        s->destroyed = true;
        s->actor_id = 0;
        e->routes_dirty = true;
    }
    for (uint32_t i = 0; i < e->n_actors; i++)
        if (e->actors[i].actor_id == id)
            e->actors[i].destroyed = true;
    sn_queue_event(e, SN_EVENT_ACTOR_DESTROYED, id, a->parent);
    sn_world_remove(&e->world, id);
}
