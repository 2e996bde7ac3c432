/* api_testworld.c — the engine as a plugin's test host (sensim/testworld.h): an engine with an
** empty scene, plugins registered through the loader's own checks, the frame in two halves,
** injected collisions and an optional painter in place of the renderer. Nothing here is a
** second implementation of the host: sensim/testing.h is built on these calls. */
#include "../sim/engine.h"
#include "../sim/../frame/frame.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Sensors and actors point into lib.bps: a test world registers plugins after spawning, so the
** array is allocated once, large enough, and never moves. */
#define TESTWORLD_BLUEPRINTS 4096
#define MAX_CLASSES_PER_PLUGIN 1024 /* the loader's own limit (library.c) */

static sn_status world_ready(const sn_engine *e, const char *what, sn_error *err)
{
    if (!e)
        return sn_fail(err, SN_E_INVALID, "%s: NULL engine", what);
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "%s: no scene loaded", what);
    return SN_OK;
}

/* The options' map as a scene's `map:` (load_map reads e->reuse_map first: a map opened from
** text goes there); the scenery stays off, so a test's world holds what the test placed. */
static sn_status attach_map(sn_engine *e, const sn_testworld_options *o, sn_error *err)
{
    const char *name = o->map_path ? o->map_path : "map.xodr";
    if (!(e->scene.map_path = malloc(strlen(name) + 1)))
        return sn_fail(err, SN_E_NOMEM, "testworld: out of memory");
    strcpy(e->scene.map_path, name);
    e->scene.scenery.disabled = true;
    if (o->map_xml) {
        sn_error merr = {0};
        e->reuse_map = sn_map_open_memory(o->map_xml, o->map_size ? o->map_size : strlen(o->map_xml), name, &merr);
        if (!e->reuse_map)
            return sn_fail(err, merr.status ? merr.status : SN_E_INVALID, "testworld: map: %s", merr.msg);
    }
    return SN_OK;
}

/* The first member of each ABI minor's additions to sn_host (host.h): a cut table's abi_minor is
** the last whose first member it holds. */
static const size_t host_minor_first[] = {
    offsetof(sn_host, render),        offsetof(sn_host, render_at), offsetof(sn_host, write_packed),
    offsetof(sn_host, has_map),       offsetof(sn_host, parallel_for),
    offsetof(sn_host, overlap_sphere_nearest),
};

/* Hands plugins the table an older host would: a copy cut to `size` bytes (testworld.h host_size),
** its later members NULL so a call that skipped SN_HOST_HAS fails at once rather than working. */
static sn_status cut_host(sn_engine *e, uint32_t size, sn_error *err)
{
    if (size < offsetof(sn_host, render) || size > sizeof(sn_host) || size % sizeof(void (*)(void)) != 0)
        return sn_fail(err, SN_E_RANGE, "testworld: host_size %u: give offsetof(sn_host, member), from %zu (the "
                       "ABI 1.0 table) to %zu (the whole table)", size, offsetof(sn_host, render), sizeof(sn_host));
    e->host_cut = e->host;
    memset((char *)&e->host_cut + size, 0, sizeof(sn_host) - size);
    e->host_cut.hdr.struct_size = size;
    uint16_t minor = 0;
    for (size_t i = 0; i < sizeof host_minor_first / sizeof *host_minor_first; i++)
        if (size > host_minor_first[i])
            minor = (uint16_t)(i + 1);
    e->host_cut.hdr.abi_minor = minor;
    e->plugin_host = &e->host_cut;
    return SN_OK;
}

sn_engine *sn_testworld_create(const sn_testworld_options *o, sn_error *err)
{
    sn_testworld_options opt;
    memset(&opt, 0, sizeof opt);
    if (o) {
        if (o->struct_size < sizeof o->struct_size || o->struct_size > sizeof opt) {
            sn_fail(err, SN_E_INVALID, "testworld: struct_size %u; set it to sizeof(sn_testworld_options) = %zu",
                    o->struct_size, sizeof opt);
            return NULL;
        }
        memcpy(&opt, o, o->struct_size);
    }
    sn_scene_settings st;
    sn_scene_settings_default(&st);
    if (opt.fixed_delta_seconds != 0)
        st.fixed_delta_seconds = opt.fixed_delta_seconds;
    if (opt.max_substep_delta_time != 0)
        st.max_substep_delta_time = opt.max_substep_delta_time;
    /* the scene parser's rules for the same settings */
    if (!(st.fixed_delta_seconds > 0 && st.fixed_delta_seconds <= 10) ||
        !(st.max_substep_delta_time > 0 && st.max_substep_delta_time <= st.fixed_delta_seconds + 1e-12) ||
        st.fixed_delta_seconds > st.max_substep_delta_time * st.max_substeps + 1e-12) {
        sn_fail(err, SN_E_RANGE, "testworld: fixed_delta_seconds %g and max_substep_delta_time %g: need 0 < dt <= 10 s "
                "and dt / max_substep_delta_time at most %d substeps", st.fixed_delta_seconds,
                st.max_substep_delta_time, st.max_substeps);
        return NULL;
    }
    if (!isfinite(opt.georeference.latitude + opt.georeference.longitude + opt.georeference.altitude) ||
        fabs(opt.georeference.latitude) > 90 || fabs(opt.georeference.longitude) > 180) {
        sn_fail(err, SN_E_RANGE, "testworld: georeference must be finite, |latitude| <= 90, |longitude| <= 180");
        return NULL;
    }
    st.georeference = opt.georeference;
    st.seed = opt.seed;
    sn_engine_options eo = {.threads = opt.threads > 0 ? opt.threads : 1, .seed_set = true, .seed = opt.seed,
                            .quiet_plugins = true, .log = opt.log, .log_user = opt.log_user};
    sn_engine *e = sn_engine_create_with(&eo, false, err);
    if (!e)
        return NULL;
    if (!sn_grow((void **)&e->lib.bps, &e->lib.cap_bps, TESTWORLD_BLUEPRINTS, sizeof *e->lib.bps)) {
        sn_engine_destroy(e);
        sn_fail(err, SN_E_NOMEM, "out of memory");
        return NULL;
    }
    e->scene.settings = st;
    sn_status mst = opt.host_size ? cut_host(e, opt.host_size, err) : SN_OK;
    if (!mst && (opt.map_path || opt.map_xml))
        mst = attach_map(e, &opt, err);
    if (mst || sn_engine_build_loaded(e, err) != SN_OK) {
        sn_map_close(e->reuse_map); /* not taken when the build failed before the map */
        e->reuse_map = NULL;
        sn_engine_destroy(e);
        return NULL;
    }
    return e;
}

static sn_status room_for_plugin(sn_engine *e, sn_error *err)
{
    if (e->lib.n_bps + MAX_CLASSES_PER_PLUGIN > e->lib.cap_bps)
        return sn_fail(err, SN_E_RANGE, "testworld: no room for another plugin (%zu blueprints registered; a test "
                       "world holds %d)", e->lib.n_bps, TESTWORLD_BLUEPRINTS);
    return SN_OK;
}

sn_status sn_testworld_add_plugin(sn_engine *e, sn_plugin_entry_fn entry, const char *label, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = world_ready(e, "add_plugin", err);
    if (!st)
        st = room_for_plugin(e, err);
    return st ? st : sn_library_add_entry(&e->lib, entry, label, err);
}

sn_status sn_testworld_load_plugin(sn_engine *e, const char *path, sn_plugin_entry_fn *entry, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = world_ready(e, "load_plugin", err);
    if (!st)
        st = room_for_plugin(e, err);
    return st ? st : sn_library_add_file(&e->lib, path, entry, err);
}

sn_status sn_testworld_begin_frame(sn_engine *e, sn_error *err) { return sn_engine_step_begin(e, err); }
sn_status sn_testworld_end_frame(sn_engine *e, sn_error *err) { return sn_engine_step_end(e, err); }

static bool finite3(sn_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

sn_status sn_testworld_inject_collision(sn_engine *e, const sn_collision *c, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = world_ready(e, "inject_collision", err);
    if (st)
        return st;
    if (!c)
        return sn_fail(err, SN_E_INVALID, "inject_collision: NULL collision");
    for (int k = 0; k < 2; k++) {
        uint32_t id = k ? c->other_id : c->self_id;
        if (!sn_world_find(&e->world, id))
            return sn_fail(err, SN_E_NOT_FOUND, "inject_collision: %s %u is not a live actor", k ? "other_id" : "self_id", id);
    }
    if (c->self_id == c->other_id)
        return sn_fail(err, SN_E_INVALID, "inject_collision: actor %u cannot collide with itself", c->self_id);
    if (!finite3(c->normal_impulse) || !finite3(c->location) || !finite3(c->normal))
        return sn_fail(err, SN_E_INVALID, "inject_collision: impulse, location and normal must be finite");
    if (!sn_grow((void **)&e->injected, &e->cap_injected, e->n_injected + 1, sizeof *e->injected))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    e->injected[e->n_injected++] = *c;
    return SN_OK;
}

sn_status sn_testworld_set_render(sn_engine *e, sn_testworld_render_fn fn, void *user, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = world_ready(e, "set_render", err);
    if (st)
        return st;
    e->render_hook = fn;
    e->render_user = fn ? user : NULL;
    return SN_OK;
}

sn_status sn_testworld_set_georeference(sn_engine *e, sn_geo_location g, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_status st = world_ready(e, "set_georeference", err);
    if (st)
        return st;
    if (!isfinite(g.latitude + g.longitude + g.altitude) || fabs(g.latitude) > 90 || fabs(g.longitude) > 180)
        return sn_fail(err, SN_E_RANGE, "set_georeference: must be finite, |latitude| <= 90, |longitude| <= 180");
    e->scene.settings.georeference = g;
    return SN_OK;
}
