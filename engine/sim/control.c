/* control.c — the closed-loop API: spawn, destroy, control and move actors between steps.
**
** Every call checks its input before anything reaches the world or ODE, and leaves the
** world unchanged when it fails. */
#include "engine.h"
#include "spawn.h"
#include "host_v2x.h"
#include "ctx.h"
#include "stream.h"
#include "guard.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../plugin/attr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Beyond these, ODE's collision code loses precision or asserts: refuse them here. */
#define MAX_COORD 1e6  /* m from the origin */
#define MAX_SPEED 1e3  /* m/s */
#define MAX_SPIN 1e5   /* deg/s */

static bool finite3(sn_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static sn_status check_transform(const char *what, const sn_transform *t, sn_error *err)
{
    if (!t)
        return sn_fail(err, SN_E_INVALID, "%s: NULL transform", what);
    const sn_vec3 p = t->location;
    const sn_rotation r = t->rotation;
    if (!finite3(p) || !isfinite(r.pitch) || !isfinite(r.yaw) || !isfinite(r.roll))
        return sn_fail(err, SN_E_INVALID, "%s: the transform is not finite", what);
    if (fabs(p.x) > MAX_COORD || fabs(p.y) > MAX_COORD || fabs(p.z) > MAX_COORD)
        return sn_fail(err, SN_E_RANGE, "%s: location (%g, %g, %g) is more than %g m from the origin", what, p.x, p.y,
                       p.z, MAX_COORD);
    return SN_OK;
}

static sn_actor *live_actor(sn_engine *e, const char *what, uint32_t id, sn_error *err)
{
    if (sn_engine_ready(e, what, err))
        return NULL;
    sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        sn_fail(err, SN_E_NOT_FOUND, "%s: no live actor has id %u", what, id);
    return a;
}

uint32_t sn_engine_actor_count(const sn_engine *e) { return e ? (uint32_t)e->world.n_actors : 0; }

uint32_t sn_engine_actor_id_at(const sn_engine *e, uint32_t i)
{
    return e && i < e->world.n_actors ? e->world.actors[i]->id : 0;
}

sn_status sn_engine_actor_attribute(const sn_engine *e, uint32_t id, const char *name, sn_value *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !name || !out)
        return sn_fail(err, SN_E_INVALID, "actor_attribute: NULL argument");
    const sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "actor_attribute: no live actor has id %u", id);
    const sn_blueprint *bp = a->bp;
    const sn_value *values = a->values;
    if (a->sensor) {
        const sn_sensor *s = a->sensor;
        values = s->values;
        bp = s->bp;
    }
    int i = bp ? sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, name) : -1;
    if (i < 0 || !values)
        return sn_fail(err, SN_E_NOT_FOUND, "actor_attribute: '%s' (%s) has no attribute '%s'", a->name, a->type_id,
                       name);
    *out = values[i];
    return SN_OK;
}

sn_status sn_engine_actor_attribute_at(const sn_engine *e, uint32_t id, uint32_t index, const char **name,
                                       sn_value *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !name || !out)
        return sn_fail(err, SN_E_INVALID, "actor_attribute_at: NULL argument");
    const sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "actor_attribute_at: no live actor has id %u", id);
    const sn_blueprint *bp = a->sensor ? ((const sn_sensor *)a->sensor)->bp : a->bp;
    const sn_value *values = a->sensor ? ((const sn_sensor *)a->sensor)->values : a->values;
    if (!bp || !values || index >= bp->n_attrs)
        return sn_fail(err, SN_E_NOT_FOUND, "actor_attribute_at: '%s' has %u attributes", a->name, bp ? bp->n_attrs : 0);
    *name = sn_attr_at(bp->attrs, bp->stride, index)->name;
    *out = values[index];
    return SN_OK;
}

/* The desc's attributes resolved against bp: the resolver takes them as they are. */
static sn_status resolve(const sn_blueprint *bp, const sn_actor_desc *d, const char *const *extra, sn_value **out,
                         bool **given, sn_error *err)
{
    for (uint32_t i = 0; i < d->n_attributes; i++)
        if (!d->attributes[i].key || !d->attributes[i].value)
            return sn_fail(err, SN_E_INVALID, "spawn '%s': attribute %u has a NULL key or value", bp->id, i);
    const sn_attribute *kv = d->n_attributes ? d->attributes : NULL;
    sn_status st = sn_blueprint_resolve(bp, kv, d->n_attributes, NULL, extra, out, err);
    if (!st && given && d->n_attributes && !(*given = sn_attr_given(bp->attrs, bp->n_attrs, bp->stride, kv, d->n_attributes)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    return st;
}

static void free_sensor(sn_sensor *s)
{
    sn_sensor_unbudget(s->engine, s);
    sn_stream_discard(s);
    sn_sensor_values_free(s->engine, s);
    free(s->given);
    sn_ctx_error_free(s);
    free(s->name);
    free(s->part_path);
    free(s->listeners);
    free(s);
}

/* A sensor spawned through the API gets a record like a scene sensor's, without a scene entry.
** When the plugin refuses it (create, set, attach), the record, its actor and its stream are
** taken back and the run goes on: the refusal is the caller's to handle. */
static sn_status spawn_sensor(sn_engine *e, const sn_blueprint *bp, const sn_actor_desc *d, sn_spawn_desc *sd,
                              uint32_t *out_id, sn_error *err)
{
    static const char *const host_keys[] = {"role_name", NULL};
    if (!sn_grow((void **)&e->sensors, &e->cap_sensors, e->n_sensors + 1, sizeof *e->sensors))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_sensor *s = calloc(1, sizeof *s);
    if (!s)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    s->engine = e;
    s->bp = bp;
    s->cls = bp->cls;
    sn_status st = resolve(bp, d, host_keys, &s->values, &s->given, err);
    if (!st)
        sn_sensor_values_share(e, s);
    s->internal = e->spawning_internal;
    char name[32];
    snprintf(name, sizeof name, "sensor_%u", sd->id ? sd->id : e->world.next_id + 1);
    if (!st && !(s->name = sn_strdup(d->name && d->name[0] ? d->name : name)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    if (!st && !s->internal && (strchr(s->name, '/') || sn_strmap_get(&e->sensor_names, s->name)))
        st = sn_fail(err, SN_E_INVALID, "spawn '%s': the sensor name '%s' %s", bp->id, s->name,
                     strchr(s->name, '/') ? "may not contain '/' (it names the output file)"
                                          : "is taken by another sensor of this run");
    int ti = st ? -1 : sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "sensor_tick");
    if (ti >= 0) {
        double tick = s->values[ti].type == SN_ATTR_INT ? (double)s->values[ti].i : s->values[ti].f;
        if (!(tick >= 0 && tick <= SN_SENSOR_TICK_MAX))
            st = sn_fail(err, SN_E_INVALID, "spawn '%s': sensor_tick must be within [0, 1e9] seconds", bp->id);
        else
            s->tick_ns = llround(tick * 1e9);
    }
    for (uint32_t i = 0; !st && i < d->n_attributes; i++) /* role_name, a host key: kept on the actor */
        if (strcmp(d->attributes[i].key, "role_name") == 0)
            sd->role = d->attributes[i].value;
    if (!st) {
        sn_rng_seed(&s->rng, sn_noise_sensor_seed(e->seed, s->name));
        sd->name = s->internal ? NULL : s->name; /* the engine's own sensor takes no actor name */
        st = sn_spawn_check(e, sd, err);
    }
    if (!st) {
        char where[160];
        snprintf(where, sizeof where, "spawn '%s'", bp->id);
        st = sn_sensor_budget(e, s, where, err);
    }
    if (!st && e->outputs_open && sn_stream_wanted(s))
        st = sn_stream_open(s, e->out_dir, err);
    if (!st && !s->internal && !sn_strmap_put(&e->sensor_names, s->name, s))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    if (st) {
        free_sensor(s);
        return st;
    }
    e->sensors[e->n_sensors++] = s;
    if ((st = sn_spawn_sensor(e, s, sd, err))) {
        if (s->self) {
            sn_guard_enter(s, "destroy");
            s->cls->destroy(s->self);
            sn_guard_leave();
        }
        sn_host_v2x_leave(s);
        if (s->actor_id)
            sn_world_remove(&e->world, s->actor_id);
        if (!s->internal)
            sn_strmap_del(&e->sensor_names, s->name);
        e->n_sensors--;
        e->routes_dirty = true;
        free_sensor(s);
        return st;
    }
    if (out_id)
        *out_id = s->actor_id;
    return SN_OK;
}

sn_status sn_engine_spawn(sn_engine *e, const sn_actor_desc *d, uint32_t *out_id, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = sn_engine_ready(e, "spawn", err);
    if (st)
        return st;
    /* Every member of the first sn_actor_desc is needed: a smaller struct_size is a mistake. */
    if (!d || d->struct_size < sizeof(sn_actor_desc))
        return sn_fail(err, SN_E_INVALID, "spawn: no descriptor, or struct_size %u below sizeof(sn_actor_desc) %zu",
                       d ? d->struct_size : 0, sizeof(sn_actor_desc));
    sn_actor_desc desc = *d;
    if (!desc.blueprint)
        return sn_fail(err, SN_E_INVALID, "spawn: no blueprint");
    if (desc.name && desc.name[0] && sn_strmap_get(&e->scene_names, desc.name) &&
        !sn_world_find_name(&e->world, desc.name))
        return sn_fail(err, SN_E_INVALID, "spawn: the name '%s' belongs to an actor of the scene that spawns later",
                       desc.name);
    if ((st = check_transform("spawn", &desc.transform, err)))
        return st;
    if (desc.n_attributes && !desc.attributes)
        return sn_fail(err, SN_E_INVALID, "spawn: n_attributes is %u but attributes is NULL", desc.n_attributes);
    const sn_blueprint *bp = sn_library_find(&e->lib, desc.blueprint);
    if (!bp) {
        char hint[800];
        return sn_fail(err, SN_E_NOT_FOUND, "spawn: unknown blueprint '%s' (see `sensim blueprints`; %s)",
                       desc.blueprint, sn_library_unknown_hint(&e->lib, hint, sizeof hint));
    }
    sn_spawn_desc sd = {.bp = bp, .name = desc.name, .transform = desc.transform, .parent = desc.parent_id,
                        .id = desc.id};
    if (bp->kind == SN_ACTOR_SENSOR)
        return spawn_sensor(e, bp, &desc, &sd, out_id, err);
    if ((st = resolve(bp, &desc, NULL, &sd.values, NULL, err)))
        return st;
    sn_actor *a;
    if ((st = sn_spawn_actor(e, &sd, &a, err)))
        return st;
    if (out_id)
        *out_id = a->id;
    return SN_OK;
}

sn_status sn_engine_destroy_actor(sn_engine *e, uint32_t id, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!live_actor(e, "destroy", id, err))
        return err->status;
    return sn_destroy_actor(e, id) ? sn_fail(err, SN_E_NOMEM, "destroy: out of memory for the destroyed event")
                                   : SN_OK;
}

static double clamp_check(double v, double lo, double hi, bool *ok)
{
    *ok &= v >= lo && v <= hi;
    return v;
}

sn_status sn_engine_apply_control(sn_engine *e, uint32_t id, const sn_vehicle_control *c, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "apply_control", id, err);
    if (!a)
        return err->status;
    if (a->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_INVALID, "apply_control: actor %u is a %s, not a vehicle", id, a->type_id);
    bool ok = c != NULL;
    if (ok) {
        clamp_check(c->throttle, 0, 1, &ok);
        clamp_check(c->brake, 0, 1, &ok);
        clamp_check(c->steer, -1, 1, &ok);
    }
    if (!ok)
        return sn_fail(err, SN_E_RANGE, "apply_control: throttle and brake must be in [0, 1], steer in [-1, 1]");
    a->ph->control = *c;
    if (e->control_taken)
        e->control_taken(e, a); /* the control drives it: hybrid mode's physics given back */
    a->has_autopilot = false;
    return SN_OK;
}

/* The vehicle `id` for the light-state calls, or NULL with err set. */
static sn_actor *light_vehicle(const sn_engine *e, const char *what, uint32_t id, sn_error *err)
{
    sn_actor *a = live_actor((sn_engine *)e, what, id, err);
    if (a && a->kind != SN_ACTOR_VEHICLE) {
        sn_fail(err, SN_E_INVALID, "%s: actor %u is a %s, not a vehicle", what, id, a->type_id);
        return NULL;
    }
    return a;
}

sn_status sn_engine_set_vehicle_light_state(sn_engine *e, uint32_t id, uint32_t state, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = light_vehicle(e, "set_light_state", id, err);
    if (!a)
        return err->status;
    a->ph->light_state = state;
    return SN_OK;
}

sn_status sn_engine_get_vehicle_light_state(const sn_engine *e, uint32_t id, uint32_t *state, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!state)
        return sn_fail(err, SN_E_INVALID, "get_light_state: NULL output");
    sn_actor *a = light_vehicle(e, "get_light_state", id, err);
    if (!a)
        return err->status;
    *state = a->ph->light_state;
    return SN_OK;
}

sn_status sn_engine_apply_walker_control(sn_engine *e, uint32_t id, const sn_walker_control *c, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "apply_walker_control", id, err);
    if (!a)
        return err->status;
    if (a->kind != SN_ACTOR_WALKER)
        return sn_fail(err, SN_E_INVALID, "apply_walker_control: actor %u is a %s, not a walker", id, a->type_id);
    if (!c || !finite3(c->direction) || !(c->speed >= 0 && c->speed <= 10))
        return sn_fail(err, SN_E_RANGE, "apply_walker_control: direction must be finite and speed in [0, 10] m/s");
    /* Scaled before it is normalised, so huge components cannot overflow to a zero direction. */
    double big = fmax(fabs(c->direction.x), fabs(c->direction.y));
    if (c->speed > 0 && !(big > 0))
        return sn_fail(err, SN_E_INVALID, "apply_walker_control: direction has no horizontal part");
    a->mv->walk_dir = big > 0 ? sn_v3(c->direction.x / big, c->direction.y / big, 0) : sn_v3(0, 0, 0);
    a->mv->walk_speed = c->speed;
    a->has_autopilot = false;
    return SN_OK;
}

sn_status sn_engine_set_transform(sn_engine *e, uint32_t id, const sn_transform *t, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "set_transform", id, err);
    if (!a || check_transform("set_transform", t, err))
        return err->status;
    if (a->kind == SN_ACTOR_STATIC && !(a->parent && !a->ph->geom))
        return sn_fail(err, SN_E_INVALID, "set_transform: '%s' (%s) is static: static props never move",
                       a->name, a->type_id);
    if (a->parent) {
        sn_actor_set_rel(a, t);
        sn_world_update_attached(&e->world);
        return SN_OK;
    }
    sn_world_teleport(&e->world, a, t->location, sn_quat_from_rotation(t->rotation));
    return SN_OK;
}

sn_status sn_engine_set_velocity(sn_engine *e, uint32_t id, sn_vec3 v, sn_vec3 w, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "set_velocity", id, err);
    if (!a)
        return err->status;
    if (!a->ph->body)
        return sn_fail(err, SN_E_INVALID, "set_velocity: '%s' (%s) has no body: only vehicles and walkers move",
                       a->name, a->type_id);
    if (!finite3(v) || !finite3(w) || sn_v3_len(v) > MAX_SPEED || sn_v3_len(w) > MAX_SPIN)
        return sn_fail(err, SN_E_RANGE, "set_velocity: speeds must be finite, at most %g m/s and %g deg/s", MAX_SPEED,
                       MAX_SPIN);
    sn_world_set_velocity(&e->world, a, v, sn_v3_scale(w, SN_DEG));
    if (a->mv->kin) /* a kinematic actor keeps moving at it (a switch to kinematic clears it) */
        a->mv->kin->kin_scripted = true;
    return SN_OK;
}

sn_status sn_engine_set_simulate_physics(sn_engine *e, uint32_t id, bool on, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "set_simulate_physics", id, err);
    if (!a)
        return err->status;
    if (!a->ph->body)
        return sn_fail(err, SN_E_INVALID, "set_simulate_physics: '%s' (%s) has no body: only vehicles and walkers "
                       "simulate physics", a->name, a->type_id);
    if (!sn_world_set_drive(&e->world, a, on ? SN_DRIVE_PHYSICS : SN_DRIVE_KINEMATIC))
        return sn_fail(err, SN_E_NOMEM, "set_simulate_physics: out of memory");
    return SN_OK;
}

sn_status sn_engine_set_target_transform(sn_engine *e, uint32_t id, const sn_transform *t, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_actor *a = live_actor(e, "set_target_transform", id, err);
    if (!a || check_transform("set_target_transform", t, err))
        return err->status;
    if (!a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
        return sn_fail(err, SN_E_STATE, "set_target_transform: '%s' (%s) is not kinematic; call "
                       "sn_engine_set_simulate_physics(e, %u, false) first", a->name, a->type_id, id);
    double speed = sn_v3_len(sn_v3_sub(t->location, a->st.pos)) / e->clock.dt;
    if (!(speed <= MAX_SPEED))
        return sn_fail(err, SN_E_RANGE, "set_target_transform: reaching it in one step of %g s means %g m/s (at most "
                       "%g); use sn_engine_set_transform to teleport", e->clock.dt, speed, MAX_SPEED);
    a->mv->kin->has_target = true; /* kinematic: kin was allocated by the switch */
    a->mv->kin->kin_scripted = false;
    a->mv->kin->target_pos = t->location;
    a->mv->kin->target_rot = sn_quat_from_rotation(t->rotation);
    return SN_OK;
}

sn_status sn_engine_call(sn_engine *e, const char *sensor, const char *method, uint32_t argc,
                         const char *const *argv, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = sn_engine_ready(e, "call", err);
    if (st)
        return st;
    if (!sensor || !method || (argc && !argv))
        return sn_fail(err, SN_E_INVALID, "call: NULL sensor, method or arguments");
    for (uint32_t i = 0; i < argc; i++)
        if (!argv[i])
            return sn_fail(err, SN_E_INVALID, "call: argument %u is NULL", i);
    sn_sensor *s = sn_strmap_get(&e->sensor_names, sensor);
    if (!s || !s->spawned || s->destroyed || !s->self)
        return sn_fail(err, SN_E_NOT_FOUND, "call: no live sensor named '%s'", sensor);
    char why[256];
    if ((st = sn_class_check_call(s->cls, method, argc, argv, why, sizeof why)))
        return sn_fail(err, st, "call: '%s': %s", sensor, why);
    sn_ctx_error_clear(s);
    sn_guard_enter(s, "call");
    st = s->cls->call(s->self, method, argc, argv);
    sn_guard_leave();
    return st ? sn_plugin_fail(s, method, st, err) : SN_OK;
}
