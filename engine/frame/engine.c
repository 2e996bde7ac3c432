/* engine.c — the embedding API and the frame loop (DESIGN.md "The world and the frame"). */
#include "../sim/engine.h"
#include "frame.h"
#include "../sim/weather_api.h"
#include "../sim/classes.h"
#include "../sim/host.h"
#include "../sim/host_v2x.h"
#include "../sim/spawn.h"
#include "../sim/stream.h"
#include "../sim/guard.h"
#include "../sim/render_share.h"
#include "../output/saver.h"
#include "../output/spool.h"
#include "../output/outdir.h"
#include "../output/runinfo.h"
#include "../scenario/scenario.h"

#include "../data/image.h"
#include "../data/netpbm.h"
#include "../map/road_mesh.h"
#include "map_cache.h"

#include "../core/error.h"
#include "../core/geo.h"
#include "../core/util.h"
#include "../plugin/attr.h"
#include "../traffic/health.h"
#include "../traffic/host_landmarks.h"
#include "../traffic/lights.h"
#include "../traffic/signs.h"
#include "../traffic/stuck.h"
#include "../traffic/tm.h"
#include "../traffic/traffic.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TIME_EPS 1e-9
#define SN_EVENTS_KEPT 1024 /* queued events whose room is kept across frames */

sn_engine *sn_engine_create(const sn_engine_options *opts, sn_error *err)
{
    return sn_engine_create_with(opts, true, err);
}

sn_engine *sn_engine_create_with(const sn_engine_options *opts, bool search, sn_error *err)
{
    sn_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->health = calloc(1, sizeof *e->health))) {
        free(e);
        sn_fail(err, SN_E_NOMEM, "out of memory");
        return NULL;
    }
    if (opts)
        e->opts = *opts;
    e->out_lock = -1;
    e->no_health = getenv("SENSIM_BENCH_NO_HEALTH") != NULL; /* bench_health's baseline only */
    if (sn_library_init(&e->lib, err) != SN_OK) {
        free(e->health);
        free(e);
        return NULL;
    }
    e->lib.quiet = e->opts.quiet_plugins;
    e->lib.log = e->opts.log, e->lib.log_user = e->opts.log_user;
    if (search && sn_library_load_search_path(&e->lib, e->opts.plugin_dir, err) != SN_OK) {
        sn_library_free(&e->lib);
        free(e->health);
        free(e);
        return NULL;
    }
    e->observers[e->n_observers++] = &sn_lights_observer; /* traffic lights follow their actors */
    sn_host_init(&e->host);
    sn_host_landmarks_fill(&e->host); /* traffic's queries: routes, lights, signs (ABI 1.6) */
    sn_host_v2x_fill(&e->host);       /* the V2X medium for any plugin (ABI 1.6) */
    e->plugin_host = &e->host;
    sn_writer_init(&e->writer, e);
    e->msg = (sn_pack_buf){0};
    return e;
}

/* The n-th of every sensor the run has had: those of `sensors`, then the gone ones (for what
** is done once a run, not every step: outputs, stats, unload). */
static sn_sensor *any_sensor(const sn_engine *e, uint32_t i)
{
    return i < e->n_sensors ? e->sensors[i] : e->gone[i - e->n_sensors];
}

static void sensors_sweep(sn_engine *e)
{
    if (!e->n_due || !sn_grow((void **)&e->gone, &e->cap_gone, (size_t)e->n_gone + e->n_due, sizeof *e->gone))
        return; /* out of memory: they stay where they are, walked and skipped as before */
    uint32_t k = 0;
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (s->destroyed && !s->entity && !s->internal)
            e->gone[e->n_gone++] = s;
        else
            e->sensors[k++] = s; /* the others keep their order: the order sensors tick in */
    }
    e->n_sensors = k;
    e->n_due = 0;
}

/* Tears down everything a scene built; the engine can then load again. */
static void unload(sn_engine *e)
{
    sn_saver_wait(e->saver, NULL); /* queued images point at sensor names and out_dir */
    for (uint32_t i = 0; i < e->n_sensors + e->n_gone; i++) {
        sn_sensor *s = any_sensor(e, i);
        if (s->self) {
            sn_guard_enter(s, "destroy");
            s->cls->destroy(s->self);
            sn_guard_leave();
        }
        sn_host_v2x_leave(s); /* before the medium's class goes */
        sn_sensor_unbudget(e, s); /* or each reset of an RL loop adds its images again: refused after ~200 */
        sn_stream_discard(s); /* a run not finished: its streams are thrown away */
        sn_sensor_values_free(e, s);
        free(s->given);
        sn_ctx_error_free(s);
        if (!s->entity) /* a scene sensor's name is its entry's */
            free(s->name);
        free(s->part_path);
        free(s->listeners);
        free(s);
    }
    free(e->sensors);
    free(e->gone);
    e->gone = NULL;
    e->n_gone = e->n_due = 0;
    e->cap_gone = 0;
    if (e->recorder_closed)
        e->recorder_closed(e); /* the recorder's instance is gone: its file is closed */
    sn_classes_destroy(e); /* after every instance */
    sn_strmap_free(&e->scene_names);
    sn_strmap_free(&e->sensor_names);
    free(e->actors);
    free(e->routes);
    free(e->events);
    free(e->injected);
    e->injected = NULL;
    e->n_injected = e->cap_injected = 0;
    e->in_step = false;
    e->scene_rec_pending = false;
    free(e->event_listeners);
    e->event_listeners = NULL;
    e->n_event_listeners = e->cap_event_listeners = 0;
    free(e->all_listeners);
    e->all_listeners = NULL;
    e->n_all_listeners = e->cap_all_listeners = 0;
    e->sensors = NULL;
    e->actors = NULL;
    e->routes = NULL;
    e->events = NULL;
    e->n_sensors = e->n_actors = 0;
    e->cap_sensors = 0;
    e->n_routes = e->cap_routes = e->n_events = e->cap_events = 0;
    sn_world_free(&e->world);
    sn_geom_pool_free(&e->road_pool); /* while the map whose data they use is open */
    sn_map_close(e->map);
    e->map = NULL;
    sn_lights_free(e->lights);
    e->lights = NULL;
    free(e->light_t);
    e->light_t = NULL, e->n_light_t = 0;
    sn_signs_free(e->signs);
    sn_scenery_free(&e->scenery);
    e->signs = NULL;
    sn_traffic_free(e->traffic);
    e->traffic = NULL;
    sn_tms_free(e->tms); /* after the world: the autopilots pointed into it */
    e->tms = NULL;
    sn_health_free(e->health);
    sn_scene_free(&e->scene);
    free(e->out_dir);
    e->out_dir = NULL;
    e->outputs_open = false;
    e->loaded = false;
    if (e->replay)
        e->replay_hooks->free(e->replay);
    e->replay = NULL;
    sn_scenario_free(e->scenario);
    e->scenario = NULL;
}

void sn_engine_unload(sn_engine *e) { unload(e); }

static sn_status make_dirs(const char *dir, sn_error *err);

/* The scene's own recorder (recorder: {file}) started: its file inside `dir` when the path is
** relative and dir is given (the run folder, as every output), else as written. */
static sn_status scene_record(sn_engine *e, const char *dir, sn_error *err)
{
    const char *f = e->scene.recorder_file;
    char *joined = NULL;
    if (dir && f[0] != '/') {
        size_t n = strlen(dir) + strlen(f) + 2;
        if (!(joined = malloc(n)))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        snprintf(joined, n, "%s/%s", dir, f);
        char *slash = strrchr(joined, '/'); /* its folders inside the run folder, as save: paths' */
        *slash = 0;
        sn_status st = make_dirs(joined, err);
        *slash = '/';
        if (st) {
            free(joined);
            return st;
        }
    }
    e->scene_rec_pending = false;
    sn_record_options ro = {sizeof ro, joined ? joined : f, e->scene.recorder_additional, (int64_t)e->scene.recorder_date};
    sn_status st = sn_engine_record(e, &ro, err);
    free(joined);
    return st ? sn_error_prefix(err, e->scene.path ? e->scene.path : "scene") : SN_OK;
}

void sn_engine_destroy(sn_engine *e)
{
    if (!e)
        return;
    /* inside a step or a listener: the step's own frames still use the engine; it goes when
    ** the step ends (sn_engine_step and sn_engine_step_end then return SN_E_STATE) */
    if (e->in_step || e->in_emit) {
        e->destroy_pending = true;
        return;
    }
    if (e->outputs_open)
        sn_engine_finish(e, false, NULL);
    unload(e); /* instances go before their plugins are closed */
    sn_saver_destroy(e->saver);
    sn_spool_destroy(e->spool);
    free(e->final_dir);
    free(e->partial_dir);
    sn_renderer_destroy(e->renderer);
    sn_render_share_free(e->render_share);
    sn_rayscene_destroy(e->rays);
    sn_writer_free(&e->writer);
    sn_pack_free(&e->msg);
    sn_library_free(&e->lib);
    free(e->health);
    free(e);
}

static bool due_now(double at, double t) { return at >= 0 && at <= t + TIME_EPS; }

static const sn_scene_entity *scene_actor(const sn_engine *e, const char *name)
{
    return sn_strmap_get(&e->scene_names, name);
}

/* An entry spawns once its spawn_at is due and, when attached, once its parent is alive:
** children of a late actor spawn with it. */
static bool spawnable(const sn_engine *e, const sn_scene_entity *ent, double t)
{
    if (sn_scene_more_of(ent)->spawn_at > t + TIME_EPS)
        return false;
    return !ent->attach_to || sn_world_find_name(&e->world, ent->attach_to) != NULL;
}

/* save: paths may not collide with each other (for any frame numbers) or with a stream. */
/* run.json's further members: the scenario's (story, NULL for none), then "saved", the cameras
** whose `save:` wrote PNGs, [{"sensor","path","converter"}] (absent when none did): `sensim
** export mcap` takes those files instead of encoding the pictures again (mcap_export.c).
** malloc'd; NULL without memory. */
static char *saved_note(const sn_engine *e, const char *story)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f)
        return NULL;
    bool first = true;
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        const sn_sensor *s = e->sensors[i];
        const sn_scene_more *x = s->entity ? sn_scene_more_of(s->entity) : NULL;
        size_t len = x && x->save_path ? strlen(x->save_path) : 0;
        if (s->internal || len < 4 || strcmp(x->save_path + len - 4, ".png") != 0)
            continue;
        if (first)
            fprintf(f, "%s%s\"saved\":[", story && story[0] ? story : "", story && story[0] ? "," : "");
        fputs(first ? "{\"sensor\":" : ",{\"sensor\":", f);
        sn_json_str(f, s->name);
        fputs(",\"path\":", f);
        sn_json_str(f, x->save_path);
        fputs(",\"converter\":", f);
        sn_json_str(f, x->save_converter ? x->save_converter : "raw");
        fputs("}", f);
        first = false;
    }
    if (first) /* no camera saved PNGs: no member */
        fputs(story ? story : "", f);
    else
        fputs("]", f);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(text);
        return NULL;
    }
    return text;
}

static sn_status check_save_paths(sn_engine *e, sn_error *err)
{
    const sn_scene *sc = &e->scene;
    for (uint32_t i = 0; i < sc->n_sensors; i++) {
        const sn_scene_more *a = sn_scene_more_of(&sc->sensors[i]);
        if (!a->save_path)
            continue;
        const char *slash = strchr(a->save_path, '/');
        size_t n = slash ? (size_t)(slash - a->save_path) : 0;
        if (n > 8 && strncmp(a->save_path + n - 8, ".msgpack", 8) == 0) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(n - 8), a->save_path);
            if (sn_strmap_get(&e->sensor_names, name))
                return sn_fail(err, SN_E_INVALID, "%s: save path '%s' goes inside '%s.msgpack', the stream of sensor "
                               "'%s'", sn_scene_where(sc, a->save_pos).s, a->save_path, name, name);
        }
        for (uint32_t j = 0; j < i; j++) {
            const sn_scene_more *b = sn_scene_more_of(&sc->sensors[j]);
            if (b->save_path && sn_image_patterns_may_collide(a->save_path, b->save_path))
                return sn_fail(err, SN_E_INVALID, "%s: save path '%s' may name the same files as sensor '%s' ('%s'); "
                               "give each camera its own folder or name", sn_scene_where(sc, a->save_pos).s,
                               a->save_path, sc->sensors[j].name, b->save_path);
        }
    }
    return SN_OK;
}

/* attach_to chains: a cycle (p on q, q on p, p on itself) would never spawn, silently; a deep
** chain costs a walk per transform. Both are refused at load, naming the entry. */
static sn_status check_attachments(sn_engine *e, sn_error *err)
{
    const sn_scene *sc = &e->scene;
    for (uint32_t i = 0; i < sc->n_actors + sc->n_sensors; i++) {
        const sn_scene_entity *ent = i < sc->n_actors ? &sc->actors[i] : &sc->sensors[i - sc->n_actors];
        const sn_scene_entity *chain[SN_LIMIT_ATTACH_DEPTH + 1];
        uint32_t depth = 0;
        for (const sn_scene_entity *p = ent; p->attach_to; depth++) {
            p = scene_actor(e, p->attach_to); /* resolved: build_scene checked every name */
            if (!p)
                break;
            for (uint32_t k = 0; k < depth; k++)
                if (chain[k] == p)
                    return sn_fail(err, SN_E_INVALID, "%s: attach_to '%s' forms a cycle (an actor ends up attached to "
                                   "itself)", sn_scene_where(sc, ent->attach_pos).s, ent->attach_to);
            if (p == ent)
                return sn_fail(err, SN_E_INVALID, "%s: attach_to '%s' forms a cycle (an actor ends up attached to "
                               "itself)", sn_scene_where(sc, ent->attach_pos).s, ent->attach_to);
            if (depth == SN_LIMIT_ATTACH_DEPTH)
                return sn_fail(err, SN_E_RANGE, "%s: attachment chain deeper than the limit of %u parents "
                               "(SN_LIMIT_ATTACH_DEPTH)", sn_scene_where(sc, ent->attach_pos).s,
                               SN_LIMIT_ATTACH_DEPTH);
            chain[depth] = p;
        }
    }
    return SN_OK;
}

static sn_status prepare_sensor(sn_engine *e, sn_sensor *s, const sn_scene_entity *ent, sn_error *err)
{
    const sn_scene_more *x = sn_scene_more_of(ent);
    s->engine = e;
    s->entity = ent;
    s->name = ent->name; /* the scene's pool keeps it */
    if (!sn_strmap_put(&e->sensor_names, s->name, s))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    s->bp = sn_library_find(&e->lib, ent->blueprint);
    if (!s->bp || s->bp->kind != SN_ACTOR_SENSOR) {
        char hint[800];
        return sn_fail(err, SN_E_INVALID, "%s: unknown sensor blueprint '%s' (see `sensim blueprints`; %s)",
                       sn_scene_where(&e->scene, ent->blueprint_pos).s, ent->blueprint,
                       sn_library_unknown_hint(&e->lib, hint, sizeof hint));
    }
    s->cls = s->bp->cls;
    static const char *const host_keys[] = {"role_name", NULL};
    sn_status st = sn_scene_attrs_resolve(e, s->bp, ent, host_keys, &s->values, &s->given, err);
    if (st)
        return st;
    sn_sensor_values_share(e, s);
    /* what sn_image_save_message draws: camera images, and lidar and radar bird's-eye views */
    if (x->save_path && strncmp(s->bp->id, "sensor.camera.", 14) != 0 && strcmp(s->bp->id, "sensor.lidar.ray_cast") != 0 &&
        strcmp(s->bp->id, "sensor.lidar.ray_cast_semantic") != 0 && strcmp(s->bp->id, "sensor.other.radar") != 0)
        return sn_fail(err, SN_E_INVALID, "%s: 'save' writes camera images and lidar or radar views; %s is none of them",
                       sn_scene_where(&e->scene, x->save_pos).s, s->bp->id);
    sn_image_format fmt;
    sn_converter conv = SN_CONV_RAW;
    char why[320];
    if (x->save_path && sn_image_format_of(x->save_path, &fmt) && sn_converter_parse(x->save_converter, &conv) &&
        !sn_image_format_fits(fmt, s->bp->id, conv, why, sizeof why)) /* .pgm and .pfm hold some cameras only */
        return sn_fail(err, SN_E_INVALID, "%s: save: %s", sn_scene_where(&e->scene, x->save_pos).s, why);
    int i = sn_attr_find(s->bp->attrs, s->bp->n_attrs, s->bp->stride, "sensor_tick");
    if (i >= 0) {
        double tick = s->values[i].type == SN_ATTR_INT ? (double)s->values[i].i : s->values[i].f;
        if (!(tick >= 0 && tick <= SN_SENSOR_TICK_MAX)) /* before the cast to nanoseconds */
            return sn_fail(err, SN_E_INVALID, "%s: sensor_tick must be within [0, 1e9] seconds",
                           sn_scene_where(&e->scene, ent->pos).s);
        s->tick_ns = llround(tick * 1e9);
    }
    if ((st = sn_sensor_budget(e, s, sn_scene_where(&e->scene, ent->pos).s, err)))
        return st;
    for (uint32_t c = 0; c < x->n_calls; c++) {
        const sn_scene_call *call = &x->calls[c];
        char why[256];
        if (sn_class_check_call(s->cls, call->method, call->n_args, (const char *const *)call->args, why, sizeof why))
            return sn_fail(err, SN_E_INVALID, "%s: %s", sn_scene_where(&e->scene, call->pos).s, why);
        if (c && x->calls[c].at < x->calls[c - 1].at)
            return sn_fail(err, SN_E_INVALID, "%s: calls must be listed in time order", sn_scene_where(&e->scene, x->calls[c].pos).s);
    }
    sn_rng_seed(&s->rng, sn_noise_sensor_seed(e->seed, ent->name));
    return SN_OK;
}

/* The scene's map: read, indexed, and its geo-reference made the scene's when the scene
** gives none (GNSS and V2X positions follow it). */
static sn_status load_map(sn_engine *e, sn_error *err)
{
    sn_scene *sc = &e->scene;
    if (!sc->map_path)
        return SN_OK;
    if (e->reuse_map) { /* a reset: the same file, parsed already (a map is read-only) */
        e->map = e->reuse_map;
        e->reuse_map = NULL;
    } else {
        sn_error merr = {0};
        e->map = sn_map_cache_open(sc->map_path, &merr); /* sn_map_open unless the cache is on */
        if (!e->map)
            return sn_fail(err, merr.status ? merr.status : SN_E_INVALID, "%s: map: %s",
                           sn_scene_where(sc, sc->map_pos).s, merr.msg);
        for (size_t i = 0; sn_map_warning(e->map, i); i++) {
            if (e->opts.log)
                e->opts.log(SN_LOG_WARN, sn_map_warning(e->map, i), e->opts.log_user);
            else if (!e->opts.quiet_plugins)
                fprintf(stderr, "sensim: warning: %s\n", sn_map_warning(e->map, i));
        }
    }
    /* Its surfaces are static geometry of the world, built once (map/road_mesh.h): the map
    ** cache's own when it holds them, else a copy or a build. */
    sn_road_mesh *roads = NULL;
    const sn_road_mesh *own;
    const dTriMeshDataID *data;
    sn_status st = SN_OK;
    if (!sn_map_cache_roads_shared(e->map, &own, &data)) {
        st = sn_map_cache_road_mesh(e->map, &roads, err);
        data = st ? NULL : sn_map_cache_road_data(e->map, roads, &own);
    }
    if (st || (st = sn_world_set_roads_shared(&e->world, roads, own, data, err)))
        return st;
    sn_map_info info = {.struct_size = sizeof info};
    sn_map_info_get(e->map, &info, NULL);
    if (!sc->settings.has_georeference && info.has_geo_reference)
        sc->settings.georeference = info.geo_reference;
    return SN_OK;
}

static sn_status build_scene(sn_engine *e, sn_error *err)
{
    sn_scene *sc = &e->scene;
    sn_status st = sn_world_init(&e->world, e->seed, err);
    if (st)
        return st;
    e->world.geom_pool = &e->road_pool;
    if (sc->scenario_path && !e->replay && (st = sn_scenario_open(e, err))) /* its LogicFile may be the map */
        return st;
    if ((st = load_map(e, err)))
        return st;
    /* The map's traffic lights exist before anything the scene spawns, as in CARLA's towns. */
    if (!e->replay && ((st = sn_lights_build(e, err)) || (st = sn_signs_build(e, err)))) {
        sn_error_prefix(err, sc->path);
        return st;
    }
    e->clock = (sn_clock){0, 0, sc->settings.fixed_delta_seconds, 0, llround(sc->settings.fixed_delta_seconds * 1e9)};
    e->frame0 = 0;
    e->clock_base_frame = 0, e->clock_base_ns = 0, e->clock_base_ts = 0;
    e->run_failed = false;
    e->time_world = e->time_sensors = e->time_output = e->time_serialize = 0; /* the timers count from this load */
    e->cpu_world = e->cpu_sensors = e->cpu_output = 0;
    e->time_write0 = sn_spool_busy(e->spool);
    e->n_sub = (int)ceil(sc->settings.fixed_delta_seconds / sc->settings.max_substep_delta_time - 1e-9);
    if (e->n_sub < 1)
        e->n_sub = 1;
    e->frames_target = e->frames_target ? e->frames_target : sc->settings.frames;
    e->actors = calloc(sc->n_actors + 1, sizeof *e->actors);
    if (!e->actors || !sn_grow((void **)&e->sensors, &e->cap_sensors, sc->n_sensors + 1, sizeof *e->sensors))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    /* A replay's world comes from its recording: the scene lends only its sensors. */
    const uint32_t n_actors = e->replay ? 0 : sc->n_actors;
    /* The scenario's entities first: the scene's sensors may attach to them by name. */
    if (e->scenario && (st = sn_scenario_spawn(e, err)))
        return st;
    for (uint32_t i = 0; i < n_actors; i++)
        if (sc->actors[i].name && !sn_strmap_put(&e->scene_names, sc->actors[i].name, &sc->actors[i]))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < sc->n_sensors; i++) {
        if (!(e->sensors[i] = calloc(1, sizeof **e->sensors)))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        e->n_sensors++;
        if ((st = prepare_sensor(e, e->sensors[i], &sc->sensors[i], err)))
            return st;
    }
    for (uint32_t i = 0; i < sc->n_actors + sc->n_sensors; i++) {
        const sn_scene_entity *ent = i < sc->n_actors ? &sc->actors[i] : &sc->sensors[i - sc->n_actors];
        if (ent->attach_to && !scene_actor(e, ent->attach_to) && !e->replay && /* replay: recorded names */
            !(e->scenario && sn_world_find_name(&e->world, ent->attach_to))) /* a scenario's entity */
            return sn_fail(err, SN_E_INVALID, "%s: attach_to '%s' names no actor of this scene",
                           sn_scene_where(sc, ent->attach_pos).s, ent->attach_to);
    }
    if (!e->replay && (st = check_attachments(e, err)))
        return st;
    if ((st = check_save_paths(e, err)))
        return st;
    for (uint32_t i = 0; i < n_actors; i++) {
        e->actors[e->n_actors++].entity = &sc->actors[i];
        if (spawnable(e, &sc->actors[i], 0) && (st = sn_spawn_scene_actor(e, &e->actors[i], err)))
            return st;
    }
    /* Scenery after the scene's own static actors (it keeps clear of them), before traffic. */
    if ((st = sn_scenery_add(e, err)))
        return st;
    if (!e->replay && (st = sn_traffic_spawn(e, err)))
        return st;
    for (uint32_t i = 0; i < sc->n_sensors; i++)
        if (spawnable(e, &sc->sensors[i], 0) && (st = sn_spawn_scene_sensor(e, e->sensors[i], err)))
            return st;
    /* Scheduled entries must be spawnable later: check their blueprints now, not mid-run. */
    for (uint32_t i = 0; i < n_actors; i++) {
        const sn_blueprint *bp = sn_library_find(&e->lib, sc->actors[i].blueprint);
        if (!e->actors[i].spawned && (!bp || bp->kind == SN_ACTOR_SENSOR))
            return sn_fail(err, SN_E_INVALID, "%s: unknown actor blueprint '%s' (see `sensim blueprints`)",
                           sn_scene_where(sc, sc->actors[i].blueprint_pos).s,
                           sc->actors[i].blueprint);
    }
    return SN_OK;
}

sn_status sn_engine_build_loaded(sn_engine *e, sn_error *err)
{
    e->seed = e->opts.seed_set ? e->opts.seed : e->scene.settings.seed;
    const sn_scene_settings *ss = &e->scene.settings;
    e->lighting = (sn_lighting){.sun_azimuth = ss->sun_azimuth, .sun_altitude = ss->sun_altitude,
                                .sun_intensity = ss->sun_intensity, .ambient = ss->ambient,
                                .sky = {(uint8_t)ss->sky_color.x, (uint8_t)ss->sky_color.y, (uint8_t)ss->sky_color.z},
                                .shadows = ss->shadows, .textures = ss->textures};
    sn_weather_default(&e->lighting.weather, ss->sun_azimuth, ss->sun_altitude);
    if (ss->has_weather)
        sn_engine_apply_weather(e, &ss->weather);
    sn_status st = build_scene(e, err);
    if (st) {
        unload(e);
        return st;
    }
    e->loaded = true;
    if (e->scene.recorder_file) { /* recorder: {file, ...}: the run records itself from frame 1 */
        if (e->scene.recorder_file[0] != '/') {
            e->scene_rec_pending = true; /* relative: inside the run folder, once it is known */
            return SN_OK;
        }
        if ((st = scene_record(e, NULL, err))) {
            unload(e);
            return st;
        }
    }
    return SN_OK;
}

sn_status sn_engine_load_scene(sn_engine *e, const char *path, sn_error *err)
{
    return sn_engine_load_scene_with_overrides(e, path, NULL, 0, err);
}

sn_status sn_engine_load_scene_with_overrides(sn_engine *e, const char *path, const char *const *overrides,
                                              size_t n_overrides, sn_error *err)
{
    if (!e || !path)
        return sn_fail(err, SN_E_INVALID, "load_scene: NULL engine or path");
    if (e->loaded)
        return sn_fail(err, SN_E_STATE, "%s: the engine already holds a scene", path);
    if (n_overrides && !overrides)
        return sn_fail(err, SN_E_INVALID, "%s: %zu overrides given as NULL", path, n_overrides);
    sn_status st = sn_scene_load_with(&e->scene, path, overrides, n_overrides, err);
    if (st) {
        unload(e);
        return st;
    }
    return sn_engine_build_loaded(e, err);
}

void sn_engine_set_frames(sn_engine *e, uint64_t frames)
{
    if (e)
        e->frames_target = frames;
}

static sn_status make_dirs(const char *dir, sn_error *err)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp)
        return sn_fail(err, SN_E_INVALID, "%s: output path too long", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return sn_fail(err, SN_E_IO, "%s: cannot create output folder: %s", tmp, strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return sn_fail(err, SN_E_IO, "%s: cannot create output folder: %s", tmp, strerror(errno));
    struct stat st;
    if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode))
        return sn_fail(err, SN_E_IO, "%s: output path is not a folder", dir);
    if (access(tmp, W_OK) != 0)
        return sn_fail(err, SN_E_IO, "%s: output folder is not writable: %s", dir, strerror(errno));
    return SN_OK;
}

/* What the run will put in DIR must not meet a link, a folder named like a stream, or a file
** where a folder of images goes: refused before anything is written. */
static sn_status check_destinations(sn_engine *e, const char *dir, sn_error *err)
{
    char p[4096];
    sn_status st = SN_OK;
    for (uint32_t i = 0; !st && i < e->n_sensors + e->n_gone; i++) {
        const sn_sensor *s = any_sensor(e, i);
        if (s->internal)
            continue;
        if (snprintf(p, sizeof p, "%s/%s.msgpack", dir, s->name) >= (int)sizeof p)
            return sn_fail(err, SN_E_INVALID, "%s: output path too long", dir);
        st = sn_outdir_check_dest(p, false, err);
        const char *pat = s->entity ? sn_scene_more_of(s->entity)->save_path : NULL;
        for (const char *q = pat ? strchr(pat, '/') : NULL; !st && q; q = strchr(q + 1, '/')) {
            if (snprintf(p, sizeof p, "%s/%.*s", dir, (int)(q - pat), pat) >= (int)sizeof p)
                return sn_fail(err, SN_E_INVALID, "%s: output path too long", dir);
            st = sn_outdir_check_dest(p, true, err);
        }
    }
    /* the run's note (runinfo.h) */
    if (!st && snprintf(p, sizeof p, "%s/" SN_RUNINFO_FILE, dir) < (int)sizeof p)
        st = sn_outdir_check_dest(p, false, err);
    return st;
}

static void release_lock(sn_engine *e)
{
    if (e->out_lock >= 0)
        close(e->out_lock);
    e->out_lock = -1;
}

sn_status sn_engine_open_outputs(sn_engine *e, const char *dir, sn_error *err)
{
    if (!e || !dir)
        return sn_fail(err, SN_E_INVALID, "outputs: NULL engine or folder");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "outputs: no scene loaded");
    if (e->outputs_open)
        return sn_fail(err, SN_E_STATE, "outputs: already open");
    sn_status st = make_dirs(dir, err);
    if (!st && e->out_lock < 0) /* before anything is checked or written: a second run stops here */
        st = sn_outdir_lock(dir, &e->out_lock, err);
    if (!st)
        st = check_destinations(e, dir, err);
    char *stage = NULL;
    if (!st)
        st = sn_outdir_stage(dir, &stage, err);
    for (uint32_t i = 0; !st && i < e->n_sensors + e->n_gone; i++)
        if (sn_stream_wanted(any_sensor(e, i))) /* not the recorder, not stream: false */
            st = sn_stream_open(any_sensor(e, i), stage, err);
    if (st) {
        for (uint32_t i = 0; i < e->n_sensors + e->n_gone; i++)
            sn_stream_discard(any_sensor(e, i));
        if (stage)
            rmdir(stage); /* empty again: a run that fails while loading writes nothing */
        free(stage);
        release_lock(e);
        return st;
    }
    free(e->final_dir);
    free(e->partial_dir);
    e->partial_dir = NULL;
    e->out_dir = stage; /* streams and images go to the staging folder */
    e->final_dir = sn_strdup(dir);
    e->outputs_open = true;
    /* the scene's recording, relative: in the run folder beside the streams (a batch's runs all
    ** wrote one ./run.sensimrec), staged and committed as every recording */
    if (e->scene_rec_pending && (st = scene_record(e, dir, err)))
        return st;
    return SN_OK;
}

sn_status sn_engine_listen(sn_engine *e, const char *sensor, sn_listen_fn fn, void *user, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "listen: NULL engine");
    sn_sensor *s = sensor ? sn_strmap_get(&e->sensor_names, sensor) : NULL;
    if (!s)
        return sn_fail(err, SN_E_NOT_FOUND, "listen: no sensor named '%s' in the scene", sensor ? sensor : "(null)");
    if (s->destroyed)
        return sn_fail(err, SN_E_NOT_FOUND, "listen: sensor '%s' was destroyed; it sends nothing more", sensor);
    if (!fn)
        return sn_fail(err, SN_E_INVALID, "listen: NULL callback");
    size_t cap = s->cap_listeners;
    if (s->n_listeners == UINT32_MAX || !sn_grow((void **)&s->listeners, &cap, s->n_listeners + 1, sizeof *s->listeners))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    s->cap_listeners = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    s->listeners[s->n_listeners++] = (sn_listener){fn, user};
    return SN_OK;
}

sn_status sn_engine_listen_all(sn_engine *e, sn_listen_fn fn, void *user, sn_error *err)
{
    if (!e || !fn)
        return sn_fail(err, SN_E_INVALID, "listen_all: NULL %s", !e ? "engine" : "callback");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "listen_all: no scene loaded");
    if (!sn_grow((void **)&e->all_listeners, &e->cap_all_listeners, e->n_all_listeners + 1, sizeof *e->all_listeners))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    e->all_listeners[e->n_all_listeners++] = (sn_listener){fn, user};
    return SN_OK;
}

static bool live(const sn_sensor *s) { return s->spawned && !s->destroyed && s->self; }

static int route_cmp(const void *x, const void *y)
{
    const sn_collision_route *a = x, *b = y;
    if (a->parent != b->parent)
        return a->parent < b->parent ? -1 : 1;
    return a->sensor->actor_id < b->sensor->actor_id ? -1 : a->sensor->actor_id > b->sensor->actor_id;
}

static sn_status rebuild_routes(sn_engine *e, sn_error *err)
{
    e->n_routes = 0;
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (!live(s) || !(s->cls->events & SN_EVENT_COLLISION) || !s->cls->on_event)
            continue;
        const sn_actor *a = sn_world_find(&e->world, s->actor_id);
        if (!a || !a->parent)
            continue;
        if (!sn_grow((void **)&e->routes, &e->cap_routes, e->n_routes + 1, sizeof *e->routes))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        e->routes[e->n_routes++] = (sn_collision_route){a->parent, s};
    }
    if (e->n_routes > 1)
        qsort(e->routes, e->n_routes, sizeof *e->routes, route_cmp);
    e->routes_dirty = false;
    return SN_OK;
}

static sn_status deliver(sn_sensor *s, const sn_event *ev, sn_error *err)
{
    sn_ctx_error_clear(s);
    sn_guard_enter(s, "on_event");
    sn_status st = s->cls->on_event(s->self, ev);
    sn_guard_leave();
    return st ? sn_plugin_fail(s, "on_event", st, err) : SN_OK;
}

/* One collision to the sensors attached to its self actor, routes from index r on. */
static sn_status deliver_collision(sn_engine *e, size_t r, const sn_collision *c, sn_error *err)
{
    for (size_t k = r; k < e->n_routes && e->routes[k].parent == c->self_id; k++) {
        sn_event ev;
        memset(&ev, 0, sizeof ev);
        ev.struct_size = sizeof ev;
        ev.type = SN_EVENT_COLLISION;
        ev.frame = e->clock.frame;
        ev.u.collision = *c;
        sn_status st = deliver(e->routes[k].sensor, &ev, err);
        if (st)
            return st;
    }
    return SN_OK;
}

static sn_status deliver_collisions(sn_engine *e, sn_error *err)
{
    if (e->routes_dirty && rebuild_routes(e, err))
        return err->status;
    size_t r = 0;
    for (size_t i = 0; i < e->world.n_pairs && e->n_routes; i++) {
        const sn_pair *p = &e->world.pairs[i];
        if (sn_v3_len(p->impulse) < 1e-9)
            continue; /* touching without force: grazing or separating, not a collision */
        while (r < e->n_routes && e->routes[r].parent < p->self)
            r++;
        sn_status st = deliver_collision(e, r, &(sn_collision){p->self, p->other, p->impulse, p->pos, p->normal}, err);
        if (st)
            return st;
    }
    /* a test world's injected collisions, after physics' own, through the same routes */
    for (size_t i = 0; i < e->n_injected; i++) {
        if (sn_v3_len(e->injected[i].normal_impulse) < 1e-9)
            continue;
        for (r = 0; r < e->n_routes && e->routes[r].parent < e->injected[i].self_id;)
            r++;
        sn_status st = deliver_collision(e, r, &e->injected[i], err);
        if (st)
            return st;
    }
    return SN_OK;
}

/* ---- recorder: every collision of the frame to observers (SN_EVENT_COLLISION_ANY) ----
** Attached collision sensors see only their parent's pairs; a recorder must see all of them,
** in the world's pair order (sorted by self, other), so its file is deterministic. */
static sn_status deliver_collisions_any(sn_engine *e, sn_error *err)
{
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (!live(s) || !(s->cls->events & SN_EVENT_COLLISION_ANY) || !s->cls->on_event)
            continue;
        for (size_t k = 0; k < e->world.n_pairs; k++) {
            const sn_pair *p = &e->world.pairs[k];
            if (sn_v3_len(p->impulse) < 1e-9)
                continue; /* as deliver_collisions: touching without force is no collision */
            sn_event ev;
            memset(&ev, 0, sizeof ev);
            ev.struct_size = sizeof ev;
            ev.type = SN_EVENT_COLLISION_ANY;
            ev.frame = e->clock.frame;
            ev.u.collision = (sn_collision){p->self, p->other, p->impulse, p->pos, p->normal};
            sn_status st = deliver(s, &ev, err);
            if (st)
                return st;
        }
        for (size_t k = 0; k < e->n_injected; k++) { /* a test world's, as deliver_collisions */
            if (sn_v3_len(e->injected[k].normal_impulse) < 1e-9)
                continue;
            sn_event ev;
            memset(&ev, 0, sizeof ev);
            ev.struct_size = sizeof ev;
            ev.type = SN_EVENT_COLLISION_ANY;
            ev.frame = e->clock.frame;
            ev.u.collision = e->injected[k];
            sn_status st = deliver(s, &ev, err);
            if (st)
                return st;
        }
    }
    return SN_OK;
}
/* ---- end recorder ---- */

/* Each live sensor's tick of this phase, in order. */
static sn_status tick_sensors(sn_engine *e, sn_phase phase, const char *name, sn_error *err)
{
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (phase == SN_PHASE_POST)
            s->ticked_post = false;
        if (!live(s) || !(s->cls->phases & phase) || !s->cls->tick)
            continue;
        if (phase == SN_PHASE_POST) {
            bool due = s->tick_ns == 0 || !s->ever_ticked || e->clock.time_ns - s->last_tick_ns >= s->tick_ns;
            if (!due)
                continue;
            s->interval_ns = s->ever_ticked ? e->clock.time_ns - s->last_tick_ns : e->clock.dt_ns;
            s->ever_ticked = true;
            s->last_tick_ns = e->clock.time_ns;
            s->ticked_post = true;
        }
        sn_ctx_error_clear(s);
        sn_guard_enter(s, name);
        sn_status st = s->cls->tick(s->self, phase);
        sn_guard_leave();
        if (st)
            return sn_plugin_fail(s, name, st, err);
    }
    return SN_OK;
}

static sn_status run_phase(sn_engine *e, sn_phase phase, sn_error *err)
{
    static const char *const names[] = {"", "tick(pre)", "tick(post)", "", "tick(observe)"};
    sn_status cst = sn_classes_tick(e, phase, false, err);
    if (cst)
        return cst;
    /* the sensors' ticks change nothing in the world: renders of one picture may be shared */
    sn_render_share_phase(e->render_share);
    e->in_phase = true;
    sn_status st = tick_sensors(e, phase, names[phase], err);
    e->in_phase = false;
    sn_render_share_phase(e->render_share);
    if (st)
        return st;
    return sn_classes_tick(e, phase, true, err);
}

static sn_status schedule(sn_engine *e, sn_error *err)
{
    double t = e->clock.timestamp;
    sn_status st;
    for (uint32_t i = 0; i < e->n_actors; i++) {
        sn_pending_actor *pa = &e->actors[i];
        if (!pa->spawned && spawnable(e, pa->entity, t) && (st = sn_spawn_scene_actor(e, pa, err)))
            return st;
    }
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (s->entity && !s->spawned && spawnable(e, s->entity, t) && (st = sn_spawn_scene_sensor(e, s, err)))
            return st;
    }
    for (uint32_t i = 0; i < e->n_actors; i++) {
        sn_pending_actor *pa = &e->actors[i];
        if (pa->spawned && !pa->destroyed && due_now(sn_scene_more_of(pa->entity)->destroy_at, t) && sn_destroy_actor(e, pa->actor_id))
            return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
    }
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (live(s) && s->entity && due_now(sn_scene_more_of(s->entity)->destroy_at, t) && sn_destroy_actor(e, s->actor_id))
            return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
    }
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        const sn_scene_more *x = s->entity ? sn_scene_more_of(s->entity) : NULL;
        while (live(s) && x && s->next_call < x->n_calls && due_now(x->calls[s->next_call].at, t)) {
            const sn_scene_call *c = &x->calls[s->next_call++];
            sn_ctx_error_clear(s);
            sn_guard_enter(s, "call");
            st = s->cls->call(s->self, c->method, c->n_args, (const char *const *)c->args);
            sn_guard_leave();
            if (st)
                return sn_plugin_fail(s, c->method, st, err);
        }
    }
    /* World events of this frame's step 1, to every listening sensor, in a fixed order. Only
    ** the sensors that listen are visited per event: a scene spawning 10 000 actors beside
    ** 5 000 sensors that do not listen would otherwise cost 50 M checks. */
    const uint32_t world_events = SN_EVENT_ACTOR_SPAWNED | SN_EVENT_ACTOR_DESTROYED | SN_EVENT_ACTOR_REPARENTED;
    e->n_event_listeners = 0;
    for (uint32_t i = 0; e->n_events && i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (live(s) && (s->cls->events & world_events) && s->cls->on_event) {
            if (!sn_grow((void **)&e->event_listeners, &e->cap_event_listeners, e->n_event_listeners + 1,
                         sizeof *e->event_listeners))
                return sn_fail(err, SN_E_NOMEM, "out of memory");
            e->event_listeners[e->n_event_listeners++] = s;
        }
    }
    for (size_t k = 0; k < e->n_events; k++) {
        sn_event *ev = &e->events[k];
        ev->frame = e->clock.frame;
        for (size_t i = 0; i < e->n_event_listeners; i++) {
            sn_sensor *s = e->event_listeners[i];
            /* live() again: an earlier event's callback cannot destroy a sensor, but be safe. */
            if (live(s) && (s->cls->events & ev->type) && (st = deliver(s, ev, err)))
                return st;
        }
    }
    e->n_events = 0;
    /* A scene's first frame queues a spawn event per actor and sensor: 1.5 MiB kept for the
    ** run at 5 000 vehicles with their sensors, a third of a vehicle's memory beyond a box.
    ** Frames after it queue a few. */
    if (e->cap_events > SN_EVENTS_KEPT) {
        free(e->events);
        e->events = NULL;
        e->cap_events = 0;
        free(e->event_listeners); /* a pointer to every listening sensor: as many */
        e->event_listeners = NULL;
        e->cap_event_listeners = 0;
    }
    return SN_OK;
}

/* For sn_run_stats' timers. */
static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* For the benchmarks' CPU timers (e->cpu_timers): the process's CPU seconds, every thread's
** (the pool's too); 0 when off, for the clock is a system call of some 0.5 us, about 1 % of a
** 200-car frame if read five times in every frame. */
static double cpu(const sn_engine *e)
{
    if (!e->cpu_timers)
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Message k of s: serialised, checked, headed (e->out_data), handed to its consumers. */
static sn_status serialize_one(sn_engine *e, sn_sensor *s, uint32_t k, sn_error *err)
{
    double t0 = mono();
    /* a large message for a stream file: laid out where its address agrees with its file offset,
    ** so the stream writer need not copy it (spool.h); guessed from the sensor's last message */
    if (s->out && s->last_size >= SN_SPOOL_DIRECT)
        sn_writer_reset_aligned(&e->writer, s->last_head, sn_spool_offset(s->out), SN_SPOOL_ALIGN, s->last_size);
    else
        sn_writer_reset(&e->writer);
    sn_ctx_error_clear(s);
    sn_guard_enter(s, "serialize");
    sn_status st = s->cls->serialize(s->self, k, &e->writer);
    sn_guard_leave();
    if (st && !sn_ctx_error(s)[0] && e->writer.why[0]) /* the writer refused it: say why */
        sn_format(sn_ctx_error_buf(s), SN_CTX_ERROR_MAX, "%s", e->writer.why);
    if (st)
        return sn_plugin_fail(s, "serialize", st, err);
    if ((st = sn_writer_finish(&e->writer, s, err))) {
        sn_format(sn_ctx_error_buf(s), SN_CTX_ERROR_MAX, "%s", err->msg);
        return sn_plugin_fail(s, "serialize", st, err);
    }
    e->time_serialize += mono() - t0;
    s->last_head = e->out_buf == &e->msg ? 0 : e->msg.size, s->last_size = e->out_size;
    return sn_stream_emit(s, err);
}

/* Step 8: every message of the frame to its consumers. A sensor nobody consumes (no stream,
** no listener, no save:) still ticked and keeps its state; only the encoding is skipped, so
** serialize() must not change what later frames depend on (plugin.h). */
static sn_status serialize_all(sn_engine *e, sn_error *err)
{
    for (uint32_t i = 0; i < e->n_sensors; i++) {
        sn_sensor *s = e->sensors[i];
        if (!live(s))
            continue;
        uint32_t n = s->ticked_post ? 1u : 0u;
        if (s->cls->pending) {
            sn_guard_enter(s, "pending");
            n = s->cls->pending(s->self);
            sn_guard_leave();
            if (n > 65536) { /* 0xFFFFFFFF messages would hang the frame */
                sn_format(sn_ctx_error_buf(s), SN_CTX_ERROR_MAX, "pending() returned %u, more than 65536 messages in one frame", n);
                return sn_plugin_fail(s, "pending", SN_E_RANGE, err);
            }
        }
        s->messages += n;
        if (!n || !sn_stream_consumed(s))
            continue;
        for (uint32_t k = 0; k < n; k++) {
            sn_status st = serialize_one(e, s, k, err);
            if (st)
                return st;
        }
    }
    /* Every frame reaches the writer thread, which is at most this frame behind: a crash later
    ** loses at most the frame in progress (stream.c). */
    return sn_spool_frame_end(e->spool, err);
}

/* A failed half stops the engine; its error names the frame. */
static sn_status step_failed(sn_engine *e, sn_status st, sn_error *err)
{
    e->broken = true;
    e->run_failed = true;
    e->in_step = false;
    char where[64];
    snprintf(where, sizeof where, "frame %llu", (unsigned long long)e->clock.frame);
    sn_error_prefix(err, where);
    return st;
}

/* The end of a step in which a listener destroyed the engine: now it goes. */
static sn_status destroyed_in_step(sn_engine *e, sn_error *err)
{
    e->in_step = false;
    e->in_emit = 0;
    sn_engine_destroy(e);
    return sn_fail(err, SN_E_STATE, "step: the engine was destroyed during the step (by a listener): it is gone");
}

static sn_status step_begin(sn_engine *e, sn_error *err);
static sn_status step_end(sn_engine *e, sn_error *err);

sn_status sn_engine_step_begin(sn_engine *e, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = step_begin(e, err);
    return e && e->destroy_pending ? destroyed_in_step(e, err) : st;
}

sn_status sn_engine_step_end(sn_engine *e, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = step_end(e, err);
    return e && e->destroy_pending ? destroyed_in_step(e, err) : st;
}

sn_status sn_engine_step(sn_engine *e, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = step_begin(e, err);
    if (!st && !e->destroy_pending)
        st = step_end(e, err);
    return e && e->destroy_pending ? destroyed_in_step(e, err) : st;
}

static sn_status step_begin(sn_engine *e, sn_error *err)
{
    sn_status st = sn_engine_ready(e, "step", err);
    if (st)
        return st;
    /* a scene recording with no run folder: relative to the working folder, from frame 1 */
    if (e->scene_rec_pending && !e->in_step && (st = scene_record(e, NULL, err)))
        return st;
    if (e->in_step)
        return sn_fail(err, SN_E_STATE, "step: frame %llu was begun and not ended", (unsigned long long)e->clock.frame);
    sensors_sweep(e); /* here no walk of e->sensors is under way */
    /* an image of an earlier frame that failed on the writer thread: its error names its frame */
    if (sn_saver_poll(e->saver, err)) {
        e->broken = true;
        return err->status;
    }
    sn_clock *c = &e->clock;
    c->frame++;
    /* frame * dt while the step never changed (bases 0): the same bits as ever */
    c->time_ns = e->clock_base_ns + (int64_t)(c->frame - e->clock_base_frame) * c->dt_ns;
    c->timestamp = e->clock_base_ts + (double)(c->frame - e->clock_base_frame) * c->dt;
    e->in_step = true;
    st = e->replay ? e->replay_hooks->before_step(e, err) : SN_OK;
    if (!st)
        st = schedule(e, err);
    if (!st && !e->replay)
        st = sn_tm_remove_stuck(e, err); /* CARLA's TM removes a stuck vehicle where the scene's go */
    if (!st)
        sn_lights_step(e); /* step 1: traffic-light groups cycle on the simulation clock */
    double t0 = mono(), t1 = t0, c0 = cpu(e), c1 = c0;
    if (!st)
        st = run_phase(e, SN_PHASE_PRE, err);
    if (!st) {
        t1 = mono(), c1 = cpu(e);
        if (e->scenario)
            st = sn_scenario_step(e, err); /* step 3: the storyboard, */
        sn_traffic_controllers(e, c->dt); /* route followers and map autopilots */
        if (!st)
            st = sn_world_advance(&e->world, c->dt, e->n_sub, err);
        if (!st && !e->replay && !e->no_health)
            st = sn_health_observe(e, err); /* the finished frame's traffic health */
        e->time_world += mono() - t1;
        e->cpu_world += cpu(e) - c1;
        if (!st)
            e->advanced_frame = c->frame;
        if (!st && e->replay)
            e->replay_hooks->after_advance(e);
    }
    e->time_sensors += t1 - t0;
    e->cpu_sensors += c1 - c0;
    return st ? step_failed(e, st, err) : SN_OK;
}

static sn_status step_end(sn_engine *e, sn_error *err)
{
    sn_status st = sn_engine_ready(e, "step", err);
    if (st)
        return st;
    if (!e->in_step)
        return sn_fail(err, SN_E_STATE, "step: no frame was begun (frame %llu has ended)",
                       (unsigned long long)e->clock.frame);
    double t0 = mono(), c0 = cpu(e);
    st = deliver_collisions(e, err);
    if (!st)
        st = deliver_collisions_any(e, err);
    e->n_injected = 0; /* delivered once, in this frame */
    if (!st)
        st = run_phase(e, SN_PHASE_POST, err);
    if (!st)
        st = run_phase(e, SN_PHASE_OBSERVE, err);
    double t1 = mono(), c1 = cpu(e);
    e->time_sensors += t1 - t0;
    e->cpu_sensors += c1 - c0;
    if (!st)
        st = serialize_all(e, err);
    e->time_output += mono() - t1;
    e->cpu_output += cpu(e) - c1;
    e->in_step = false;
    return st ? step_failed(e, st, err) : SN_OK;
}

/* run.json's traffic_health member (output/runinfo.h), written by the traffic health's owner. */
static void health_json(const void *h, FILE *f) { sn_health_json(h, f); }

sn_status sn_engine_finish(sn_engine *e, bool complete, sn_error *err)
{
    sn_status st = SN_OK;
    if (!e)
        return sn_fail(err, SN_E_INVALID, "finish: NULL engine");
    /* the images first: one that failed fails the run, and its streams stay .part */
    if (!complete)
        e->run_failed = true;
    if (!e->outputs_open)
        return SN_OK;
    st = sn_saver_wait(e->saver, err);
    for (uint32_t i = 0; i < e->n_sensors + e->n_gone; i++) {
        sn_status s2 = sn_stream_close(any_sensor(e, i), st ? NULL : err);
        if (!st)
            st = s2;
    }
    /* the whole run succeeded: its outputs move into place; else they stay in the staging folder */
    const char *story = NULL;
    if (complete && !st && e->scenario)
        st = sn_scenario_finish(e, e->out_dir, &story, err);
    char *extra = NULL;
    if (complete && !st && e->final_dir && !(extra = saved_note(e, story)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory for the run's note");
    const sn_runinfo_member health = {"traffic_health", health_json, e->health};
    if (complete && !st && e->final_dir && !(st = sn_runinfo_write_with(e->out_dir, e->final_dir, e->scene.path,
                                                                          e->scene.map_path, e->seed, &health,
                                                                          extra, err)))
        st = sn_outdir_commit(e->out_dir, e->final_dir, err);
    free(extra);
    if (complete && !st) {
        free(e->partial_dir);
        e->partial_dir = NULL;
    } else if (e->out_dir && rmdir(e->out_dir) != 0) { /* an empty folder says nothing: removed */
        free(e->partial_dir);
        e->partial_dir = sn_strdup(e->out_dir);
    }
    e->outputs_open = false;
    release_lock(e);
    return st;
}

sn_status sn_engine_run(sn_engine *e, uint64_t frames, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "run: NULL engine");
    uint64_t n = frames ? frames : e->frames_target;
    if (n > SN_LIMIT_FRAMES) {
        sn_engine_finish(e, false, NULL);
        return sn_fail(err, SN_E_RANGE, "run: %llu frames is over the limit of %llu (SN_LIMIT_FRAMES)",
                       (unsigned long long)n, (unsigned long long)SN_LIMIT_FRAMES);
    }
    for (uint64_t f = 0; f < n && !sn_scenario_ended(e); f++) { /* a storyboard's end ends the run */
        sn_status st = sn_engine_step(e, err);
        if (st) {
            sn_engine_finish(e, false, NULL);
            return st;
        }
    }
    return sn_engine_finish(e, true, err);
}

const sn_clock *sn_engine_clock(const sn_engine *e) { return e ? &e->clock : NULL; }

uint32_t sn_engine_find_actor(const sn_engine *e, const char *name)
{
    const sn_actor *a = e ? sn_world_find_name(&e->world, name) : NULL;
    return a ? a->id : 0;
}

const char *sn_engine_scene_blueprint(const sn_engine *e, const char *name)
{
    if (!e || !name || !e->loaded)
        return NULL;
    for (uint32_t i = 0; i < e->scene.n_actors; i++)
        if (e->scene.actors[i].name && strcmp(e->scene.actors[i].name, name) == 0)
            return e->scene.actors[i].blueprint;
    for (uint32_t i = 0; i < e->scene.n_sensors; i++)
        if (e->scene.sensors[i].name && strcmp(e->scene.sensors[i].name, name) == 0)
            return e->scene.sensors[i].blueprint;
    return NULL;
}

sn_status sn_engine_actor_get(const sn_engine *e, uint32_t id, sn_actor_info *out)
{
    if (!e || !out)
        return SN_E_INVALID;
    const sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return SN_E_NOT_FOUND;
    sn_actor_fill_info(&e->world, a, out);
    return SN_OK;
}

sn_status sn_engine_actor_get_v2(const sn_engine *e, uint32_t id, sn_actor_info *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !out)
        return sn_fail(err, SN_E_INVALID, "actor_get: NULL %s", e ? "out" : "engine");
    /* the 1.0 struct ends with control; what 1.5 added is filled only when struct_size covers it */
    size_t v10 = offsetof(sn_actor_info, control) + sizeof out->control;
    if (out->struct_size < v10)
        return sn_fail(err, SN_E_INVALID, "actor_get: out->struct_size %u is below the 1.0 sn_actor_info (%zu bytes); "
                       "set it to sizeof *out", out->struct_size, v10);
    const sn_actor *a = sn_world_find(&e->world, id);
    if (!a)
        return sn_fail(err, SN_E_NOT_FOUND, "actor_get: no live actor has id %u", id);
    sn_actor_fill_info(&e->world, a, out);
    return SN_OK;
}

const char *sn_engine_partial_dir(const sn_engine *e) { return e ? e->partial_dir : NULL; }

const sn_map *sn_engine_map(const sn_engine *e) { return e ? e->map : NULL; }

sn_geo_location sn_geolocation(const sn_geo_location *reference, sn_vec3 location)
{
    const sn_geo_location zero = {0, 0, 0};
    return sn_geo_from_location(reference ? reference : &zero, location);
}

sn_geo_location sn_engine_georeference(const sn_engine *e)
{
    return e ? e->scene.settings.georeference : (sn_geo_location){0, 0, 0};
}
