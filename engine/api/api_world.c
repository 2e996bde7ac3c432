/* api_world.c — the closed loop's conveniences over the engine (sensim.h): a world without a
** scene file, un-listening, and CARLA's get_actors().filter(pattern). */
#include "../sim/engine.h"
#include "../sim/../frame/frame.h"

#include "../core/error.h"
#include "../core/util.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The settings a scene file would give, checked with the scene's ranges (docs/scene.md). */
static sn_status world_settings(const sn_world_options *o, sn_scene_settings *st, sn_error *err)
{
    sn_scene_settings_default(st);
    if (o->fixed_delta_seconds != 0)
        st->fixed_delta_seconds = o->fixed_delta_seconds;
    if (o->max_substep_delta_time != 0)
        st->max_substep_delta_time = o->max_substep_delta_time;
    if (o->max_substeps != 0)
        st->max_substeps = (int)(o->max_substeps > 16 ? 17 : o->max_substeps);
    st->seed = o->seed;
    if (!(st->fixed_delta_seconds >= SN_LIMIT_DT_MIN && st->fixed_delta_seconds <= 1))
        return sn_fail(err, SN_E_RANGE, "load_world: fixed_delta_seconds %g must be within [1e-06, 1] seconds (SN_LIMIT_DT_MIN)",
                       st->fixed_delta_seconds);
    if (!(st->max_substep_delta_time >= SN_LIMIT_DT_MIN && st->max_substep_delta_time <= 1))
        return sn_fail(err, SN_E_RANGE, "load_world: max_substep_delta_time %g must be within [1e-06, 1] seconds",
                       st->max_substep_delta_time);
    if (st->max_substeps > 16)
        return sn_fail(err, SN_E_RANGE, "load_world: max_substeps %u must be within [1, 16] (CARLA's range)", o->max_substeps);
    if (st->fixed_delta_seconds > st->max_substep_delta_time * st->max_substeps + 1e-12)
        return sn_fail(err, SN_E_RANGE, "load_world: fixed_delta_seconds %g exceeds max_substep_delta_time * max_substeps = "
                       "%g * %d = %g; raise max_substeps or max_substep_delta_time", st->fixed_delta_seconds,
                       st->max_substep_delta_time, st->max_substeps, st->max_substep_delta_time * st->max_substeps);
    if (o->frames > SN_LIMIT_FRAMES)
        return sn_fail(err, SN_E_RANGE, "load_world: frames %llu is more than the limit of %llu (SN_LIMIT_FRAMES)",
                       (unsigned long long)o->frames, (unsigned long long)SN_LIMIT_FRAMES);
    /* a scene without frames or duration runs 5 s */
    st->frames = o->frames ? o->frames : (uint64_t)ceil(5.0 / st->fixed_delta_seconds - 1e-9);
    return SN_OK;
}

/* The ground as a scene actor, so a reset builds it again with the rest of the scene. */
static sn_status add_ground(sn_scene *sc, bool on_map, sn_error *err)
{
    sn_scene_entity *g = calloc(1, sizeof *g);
    sn_scene_attr *a = calloc(1, sizeof *a);
    if (!g || !a || !(g->name = sn_strpool_add(&sc->strings, "ground")) ||
        !(g->blueprint = sn_strpool_add(&sc->strings, "static.ground")) || !(a->key = sn_strdup("semantic_tag")) ||
        !(a->value = sn_strdup(on_map ? "Terrain" : "Ground"))) {
        if (a)
            free(a->key);
        free(a);
        free(g);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    /* on a map: 2 cm under the roads, which cover their lanes only (as around CARLA's roads) */
    g->transform.location.z = on_map ? -0.02 : 0;
    g->attrs = a;
    g->n_attrs = 1;
    sc->actors = g;
    sc->n_actors = 1;
    return SN_OK;
}

sn_status sn_engine_load_world(sn_engine *e, const sn_world_options *o, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_world_options opt;
    memset(&opt, 0, sizeof opt);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "load_world: NULL engine");
    if (o) {
        if (o->struct_size < sizeof o->struct_size || o->struct_size > sizeof opt)
            return sn_fail(err, SN_E_INVALID, "load_world: struct_size %u; set it to sizeof(sn_world_options) = %zu",
                           o->struct_size, sizeof opt);
        memcpy(&opt, o, o->struct_size);
    }
    if (e->loaded)
        return sn_fail(err, SN_E_STATE, "load_world: the engine already holds a scene");
    sn_scene *sc = &e->scene;
    sn_status st = world_settings(&opt, &sc->settings, err);
    if (!st && !(sc->path = sn_strdup(opt.map ? opt.map : "load_world")))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    if (!st && opt.map && !(sc->map_path = sn_strdup(opt.map)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    if (!st && !opt.no_ground)
        st = add_ground(sc, opt.map != NULL, err);
    if (st) {
        sn_scene_free(sc);
        memset(sc, 0, sizeof *sc);
        return st;
    }
    return sn_engine_build_loaded(e, err); /* unloads (the scene with it) on failure */
}

sn_status sn_engine_unlisten(sn_engine *e, const char *sensor, sn_listen_fn fn, void *user, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "unlisten: NULL engine");
    sn_sensor *s = sensor ? sn_strmap_get(&e->sensor_names, sensor) : NULL;
    if (!s)
        return sn_fail(err, SN_E_NOT_FOUND, "unlisten: no sensor named '%s'", sensor ? sensor : "(null)");
    size_t removed = 0;
    /* Entries are cleared, not moved: this may run inside a listener while sn_stream_emit walks
    ** the list; the emit compacts it after its walk. */
    for (size_t i = 0; i < s->n_listeners; i++)
        if (s->listeners[i].fn && (!fn || (s->listeners[i].fn == fn && s->listeners[i].user == user))) {
            s->listeners[i].fn = NULL;
            removed++;
        }
    while (s->n_listeners && !s->listeners[s->n_listeners - 1].fn)
        s->n_listeners--; /* safe during a walk: it only ends it sooner */
    if (fn && !removed)
        return sn_fail(err, SN_E_NOT_FOUND, "unlisten: sensor '%s' has no such listener", sensor);
    return SN_OK;
}

sn_status sn_engine_actors_filter(const sn_engine *e, const char *pattern, uint32_t *out, size_t cap, size_t *n,
                                  sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !n || (cap && !out))
        return sn_fail(err, SN_E_INVALID, "actors_filter: NULL %s", !e ? "engine" : !n ? "count" : "output");
    *n = 0;
    for (size_t i = 0; i < e->world.n_actors; i++) {
        const sn_actor *a = e->world.actors[i];
        /* CARLA's ActorList.filter: fnmatch(pattern, type_id, 0), so '*' also crosses dots */
        if (pattern && fnmatch(pattern, a->type_id, 0) != 0)
            continue;
        if (*n < cap)
            out[*n] = a->id;
        ++*n;
    }
    return SN_OK;
}
