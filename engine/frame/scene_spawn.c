/* scene_spawn.c — a scene's actor entry spawned when due: the spawn itself (sim/spawn.c), then
** what only a scene gives it: velocity, lights, control, a route or a map autopilot (traffic/). */
#include "frame.h"

#include "../sim/engine.h"
#include "../sim/spawn.h"
#include "../core/error.h"
#include "../core/util.h"
#include "../plugin/attr.h"
#include "../traffic/traffic.h"

#include <stdlib.h>
#include <string.h>

typedef struct scene_attrs {
    const sn_scene *scene;
    const sn_scene_entity *ent;
} scene_attrs;

/* Where a scene entry's k-th attribute was written (plugin/attr.h's sn_attr_where). */
static void scene_where(const void *user, uint32_t k, bool value, char *buf, size_t n)
{
    const scene_attrs *sa = user;
    const sn_scene_attr *a = &sa->ent->attrs[k];
    sn_format(buf, n, "%s", sn_scene_where(sa->scene, value ? a->value_pos : a->key_pos).s);
}

sn_status sn_scene_attrs_resolve(const struct sn_engine *e, const sn_blueprint *bp, const sn_scene_entity *ent,
                                 const char *const *extra, sn_value **out, bool **given, sn_error *err)
{
    sn_attribute small[32] = {{0}}, *kv = small; /* a scene entry rarely gives more */
    if (ent->n_attrs > SN_COUNT(small) && !(kv = malloc(ent->n_attrs * sizeof *kv)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (uint32_t k = 0; k < ent->n_attrs; k++)
        kv[k] = (sn_attribute){ent->attrs[k].key, ent->attrs[k].value};
    const scene_attrs sa = {&e->scene, ent};
    const sn_attr_where where = {scene_where, &sa};
    sn_status st = sn_blueprint_resolve(bp, kv, ent->n_attrs, &where, extra, out, err);
    /* none given: NULL, which attribute_given reads as false for all */
    if (!st && given && ent->n_attrs && !(*given = sn_attr_given(bp->attrs, bp->n_attrs, bp->stride, kv, ent->n_attrs))) {
        free(*out);
        *out = NULL;
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    if (kv != small)
        free(kv);
    return st;
}

sn_status sn_spawn_scene_actor(struct sn_engine *e, sn_pending_actor *pa, sn_error *err)
{
    const sn_scene_entity *ent = pa->entity;
    const sn_scene_more *x = sn_scene_more_of(ent);
    const sn_blueprint *bp = sn_library_find(&e->lib, ent->blueprint);
    if (!bp || bp->kind == SN_ACTOR_SENSOR)
        return sn_fail(err, SN_E_INVALID, "%s: unknown actor blueprint '%s' (see `sensim blueprints`; "
                       "sensors go under 'sensors:')", sn_scene_where(&e->scene, ent->blueprint_pos).s,
                       ent->blueprint);
    if (x->has_light_state && bp->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_INVALID, "%s: light_state needs a vehicle.* blueprint, not '%s'",
                       sn_scene_where(&e->scene, ent->pos).s, bp->id);
    if ((ent->has_control || x->has_velocity || x->has_autopilot) && bp->kind == SN_ACTOR_STATIC)
        return sn_fail(err, SN_E_INVALID, "%s: '%s' is static: velocity, control and autopilot need a "
                       "vehicle.* or walker.* blueprint", sn_scene_where(&e->scene, ent->pos).s, bp->id);
    sn_spawn_desc d = {.bp = bp, .name = ent->name, .transform = ent->transform, .src = ent, .name_kept = true};
    if (ent->attach_to) {
        const sn_actor *p = sn_world_find_name(&e->world, ent->attach_to);
        if (!p || p->kind == SN_ACTOR_SENSOR)
            return sn_fail(err, SN_E_INVALID, "%s: attach_to '%s' names no %s actor", sn_scene_where(&e->scene, ent->attach_pos).s, ent->attach_to, p ? "non-sensor" : "live");
        d.parent = p->id;
        if (bp->kind != SN_ACTOR_STATIC)
            return sn_fail(err, SN_E_INVALID, "%s: only static props and sensors can be attached; '%s' is a %s",
                           sn_scene_where(&e->scene, ent->attach_pos).s, ent->name ? ent->name : bp->id, bp->id);
    }
    sn_status st = sn_scene_attrs_resolve(e, bp, ent, NULL, &d.values, NULL, err);
    if (st)
        return st;
    sn_actor *a;
    if ((st = sn_spawn_actor(e, &d, &a, err)))
        return st;
    if (x->has_velocity && a->ph->body)
        sn_world_set_velocity(&e->world, a, x->velocity, sn_v3(0, 0, 0));
    if (bp->kind == SN_ACTOR_VEHICLE) /* the controls share their room with a plane's equation */
        a->ph->light_state = x->light_state;
    if (ent->has_control) {
        a->ph->control = ent->control;
        if (bp->kind == SN_ACTOR_WALKER) {
            a->mv->walk_dir = x->walk_direction;
            if (x->walk_speed >= 0) /* else the blueprint's speed */
                a->mv->walk_speed = x->walk_speed;
        }
    }
    if (x->has_autopilot && x->map_autopilot) {
        st = sn_mapdrive_start(e, a, &x->knobs, x->target_speed, e->seed ^ sn_hash_str(ent->name ? ent->name : ""),
                               err);
        if (st) {
            sn_error_prefix(err, sn_scene_where(&e->scene, x->autopilot_pos).s);
            sn_destroy_actor(e, a->id);
            return st;
        }
    } else if (x->has_autopilot) {
        sn_autopilot *ap = sn_actor_autopilot(a);
        if (!ap || !(ap->route = malloc(x->n_route * sizeof *ap->route))) {
            sn_destroy_actor(e, a->id);
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        }
        a->has_autopilot = true;
        memcpy(ap->route, x->route, x->n_route * sizeof *ap->route);
        ap->n_route = x->n_route;
        ap->target_speed = x->target_speed >= 0 ? x->target_speed
                             : bp->kind == SN_ACTOR_WALKER ? a->mv->walk_speed : 8.0;
        ap->loop = x->loop_route;
    }
    pa->actor_id = a->id;
    pa->spawned = true;
    return SN_OK;
}
