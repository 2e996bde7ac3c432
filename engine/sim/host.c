/* host.c — the sn_host table: what a plugin instance may ask of the engine. */
#include "engine.h"
#include "host.h"
#include "host_map.h"
#include "host_query.h"
#include "render_share.h"
#include "writer.h"

#include "../core/geo.h"
#include "../core/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A plugin's text (log lines, error messages) is escaped before it reaches a terminal or a
** message: control characters, DEL and invalid UTF-8 become \xHH (sn_text_escape). */
static void h_log(sn_ctx *c, sn_log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    if (!c->engine->opts.log && level < SN_LOG_INFO)
        return;
    char text[1024], line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    int n = snprintf(line, sizeof line, "sensor '%s': ", c->name);
    if (n > 0 && (size_t)n < sizeof line)
        sn_text_escape(text, line + n, sizeof line - (size_t)n);
    if (c->engine->opts.log) /* the embedder's callback gets every level, as one line */
        c->engine->opts.log(level, line, c->engine->opts.log_user);
    else
        fprintf(stderr, "sensim: %s: %s\n", names[level > SN_LOG_ERROR ? SN_LOG_ERROR : level], line);
}

static void h_set_error(sn_ctx *c, const char *fmt, ...)
{
    char text[SN_CTX_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    sn_text_escape(text, sn_ctx_error_buf(c), SN_CTX_ERROR_MAX);
}

static const char *h_sensor_name(sn_ctx *c) { return c->name; }
static uint32_t h_sensor_id(sn_ctx *c) { return c->actor_id; }

static void h_sensor_transform(sn_ctx *c, sn_transform *out)
{
    const sn_actor *a = sn_world_find(&c->engine->world, c->actor_id);
    *out = a ? sn_actor_world_transform(&c->engine->world, a) : (sn_transform){{0, 0, 0}, {0, 0, 0}};
}

static const sn_clock *h_clock(sn_ctx *c) { return &c->engine->clock; }
static uint32_t h_actor_count(sn_ctx *c) { return (uint32_t)c->engine->world.n_actors; }

static uint32_t h_actor_id_at(sn_ctx *c, uint32_t i)
{
    const sn_world *w = &c->engine->world;
    return i < w->n_actors ? w->actors[i]->id : 0;
}

static sn_status h_actor_get(sn_ctx *c, uint32_t id, sn_actor_info *out)
{
    if (!out)
        return SN_E_INVALID;
    const sn_actor *a = sn_world_find(&c->engine->world, id);
    if (!a)
        return SN_E_NOT_FOUND;
    sn_actor_fill_info(&c->engine->world, a, out);
    return SN_OK;
}

/* Fraction of the last frame at time t_ns; a status (with the ctx's error set) outside it or
** before the world has advanced to this frame (tick(PRE), world events): then the interval's
** motion does not exist yet. */
static sn_status frame_alpha(sn_ctx *c, const char *what, int64_t t_ns, double *alpha)
{
    const sn_clock *k = &c->engine->clock;
    int64_t from = k->time_ns - k->dt_ns;
    if (k->frame == 0 || c->engine->advanced_frame != k->frame) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s: the world has not advanced to frame %llu yet; call it from "
                  "tick(SN_PHASE_POST) or later", what, (unsigned long long)k->frame);
        return SN_E_STATE;
    }
    if (t_ns <= from || t_ns > k->time_ns) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s: time %lld ns is outside the last frame (%lld, %lld] ns", what,
                  (long long)t_ns, (long long)from, (long long)k->time_ns);
        return SN_E_RANGE;
    }
    *alpha = t_ns == k->time_ns ? 1.0 : (double)(t_ns - from) / (double)k->dt_ns;
    return SN_OK;
}

/* The engine's renderer, created at first use with opts.threads workers; NULL (the sensor's
** error set, naming `what`) when out of memory. */
static sn_renderer *engine_renderer(sn_ctx *c, const char *what)
{
    sn_engine *e = c->engine;
    if (!e->renderer) {
        int n = e->opts.threads > 0 ? e->opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (!(e->renderer = sn_renderer_create(n < 1 ? 1 : n > 64 ? 64 : n)))
            sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s: out of memory", what);
    }
    return e->renderer;
}

static sn_status render_alpha(sn_ctx *c, double alpha, int64_t t_ns, const sn_camera *cam, const sn_image *out)
{
    sn_engine *e = c->engine;
    sn_error err = {0};
    if (!cam || !out) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render: NULL camera or image");
        return SN_E_INVALID;
    }
    if (e->render_hook) { /* a test world's painter: the camera is checked as the renderer checks it */
        sn_status st = sn_camera_check(cam, &err);
        if (st) {
            sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render: %s", err.msg);
            return st;
        }
        return e->render_hook(e->render_user, t_ns, cam, out);
    }
    if (!engine_renderer(c, "render"))
        return SN_E_NOMEM;
    /* while sensors tick the world holds still: a depth and a semantic camera on one mount share
    ** one render (render_share.h) */
    sn_status st = e->in_phase ? sn_render_shared(&e->render_share, e->renderer, &e->world, alpha, &e->lighting, cam,
                                                  out, &err)
                               : sn_render(e->renderer, &e->world, alpha, &e->lighting, cam, out, &err);
    if (st)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render: %s", err.msg);
    return st;
}

static sn_status h_render(sn_ctx *c, const sn_camera *cam, const sn_image *out)
{
    return render_alpha(c, 1.0, c->engine->clock.time_ns, cam, out);
}

static sn_status h_render_at(sn_ctx *c, int64_t t_ns, const sn_camera *cam, const sn_image *out)
{
    double alpha;
    sn_status st = frame_alpha(c, "render_at", t_ns, &alpha);
    if (st)
        return st;
    return render_alpha(c, alpha, t_ns, cam, out);
}

static sn_status h_render_layer_at(sn_ctx *c, int64_t t_ns, const sn_camera *cam, const sn_image *out, uint32_t layer)
{
    sn_engine *e = c->engine;
    const sn_clock *k = &e->clock;
    double alpha;
    /* the frame's start too: the shutter's far end at motion_blur_intensity 1 */
    sn_status st = frame_alpha(c, "render_layer_at", t_ns == k->time_ns - k->dt_ns ? k->time_ns : t_ns, &alpha);
    if (st)
        return st;
    if (t_ns != k->time_ns)
        alpha = (double)(t_ns - (k->time_ns - k->dt_ns)) / (double)k->dt_ns;
    if (layer == SN_LAYER_ALL || e->render_hook) /* a test world's painter has no layers: all of it */
        return render_alpha(c, alpha, t_ns, cam, out);
    if (!cam || !out) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_layer_at: NULL camera or image");
        return SN_E_INVALID;
    }
    if (!engine_renderer(c, "render_layer_at"))
        return SN_E_NOMEM;
    sn_error err = {0};
    st = sn_render_layer(e->renderer, &e->world, alpha, &e->lighting, cam, out, layer, &err);
    if (st)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_layer_at: %s", err.msg);
    return st;
}

static sn_status h_render_motion(sn_ctx *c, const sn_camera *cam, const sn_image *out, float *motion)
{
    sn_engine *e = c->engine;
    double alpha;
    sn_status st = frame_alpha(c, "render_motion", e->clock.time_ns, &alpha);
    if (st)
        return st;
    if (!cam || !out || !motion) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion: NULL camera, image or motion buffer");
        return SN_E_INVALID;
    }
    if (e->render_hook) { /* a test world paints pixels, not surfaces that move */
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion: this test world's painter draws no motion");
        return SN_E_UNSUPPORTED;
    }
    sn_error err = {0};
    if (!engine_renderer(c, "render_motion"))
        return SN_E_NOMEM;
    st = sn_render_motion(e->renderer, &e->world, &e->lighting, cam, out, motion, &err);
    if (st)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion: %s", err.msg);
    return st;
}

static sn_status h_render_motion_grid(sn_ctx *c, const sn_camera *cam, const sn_image *out, const sn_motion_grid *grid)
{
    sn_engine *e = c->engine;
    double alpha;
    sn_status st = frame_alpha(c, "render_motion_grid", e->clock.time_ns, &alpha);
    if (st)
        return st;
    if (!cam || !out || !grid) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion_grid: NULL camera, image or grid");
        return SN_E_INVALID;
    }
    if (e->render_hook) { /* as render_motion: a test world paints pixels, not surfaces that move */
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion_grid: this test world's painter draws no motion");
        return SN_E_UNSUPPORTED;
    }
    if (!engine_renderer(c, "render_motion_grid"))
        return SN_E_NOMEM;
    /* the grid as this host knows it, whatever size the plugin's struct (fields it lacks stay 0) */
    sn_motion_grid g;
    memset(&g, 0, sizeof g);
    uint32_t n;
    memcpy(&n, grid, sizeof n);
    memcpy(&g, grid, n && n < sizeof g ? n : sizeof g);
    sn_error err = {0};
    st = sn_render_motion_grid(e->renderer, &e->world, &e->lighting, cam, out, &g, &err);
    if (st)
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "render_motion_grid: %s", err.msg);
    return st;
}

static double h_scene_motion(sn_ctx *c)
{
    const sn_engine *e = c->engine;
    if (e->clock.frame == 0 || e->advanced_frame != e->clock.frame)
        return INFINITY;
    const sn_world *w = &e->world;
    double most = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR)
            continue;
        sn_vec3 p0, p1;
        sn_quat q0, q1;
        sn_actor_pose_at(w, a, 0.0, &p0, &q0);
        sn_actor_pose_at(w, a, 1.0, &p1, &q1);
        if (p0.x == p1.x && p0.y == p1.y && p0.z == p1.z && q0.w == q1.w && q0.x == q1.x && q0.y == q1.y && q0.z == q1.z)
            continue;
        /* a point at r from the origin moves by at most |dp| + |R1 - R0|_F r; r: the box's far corner */
        sn_mat3 r0 = sn_mat3_from_quat(q0), r1 = sn_mat3_from_quat(q1);
        double dr = 0;
        for (int k = 0; k < 9; k++)
            dr += (r1.m[k] - r0.m[k]) * (r1.m[k] - r0.m[k]);
        double r = a->ph ? sn_v3_len(a->ph->bbox.location) + sn_v3_len(a->ph->bbox.extent) + 1 : 1e3;
        double d = 2 * (sn_v3_len(sn_v3_sub(p1, p0)) + sqrt(dr) * r);
        most = d > most ? d : most;
    }
    return most;
}

static void h_weather(sn_ctx *c, sn_weather *out, uint64_t *serial)
{
    if (out)
        *out = c->engine->lighting.weather;
    if (serial)
        *serial = c->engine->weather_serial;
}

static void h_sensor_transform_prev(sn_ctx *c, sn_transform *out)
{
    if (!out)
        return;
    const sn_actor *a = sn_world_find(&c->engine->world, c->actor_id);
    if (!a) { /* a class context has no sensor: its own pose is nothing; say the origin */
        *out = (sn_transform){{0, 0, 0}, {0, 0, 0}};
        return;
    }
    sn_vec3 p, pn;
    sn_quat q, qn;
    sn_actor_pose_at(&c->engine->world, a, 0.0, &p, &q);
    sn_actor_pose_at(&c->engine->world, a, 1.0, &pn, &qn);
    /* still during the frame: sensor_transform()'s value bit for bit, so that a plugin can tell
    ** a camera that did not move by comparing (a quaternion round trip would differ by 1e-16) */
    if (p.x == pn.x && p.y == pn.y && p.z == pn.z && q.w == qn.w && q.x == qn.x && q.y == qn.y && q.z == qn.z)
        *out = sn_actor_world_transform(&c->engine->world, a);
    else
        *out = (sn_transform){p, sn_quat_to_rotation(q)};
}

static sn_status h_sensor_transform_at(sn_ctx *c, int64_t t_ns, sn_transform *out)
{
    double alpha;
    if (!out) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "sensor_transform_at: NULL output");
        return SN_E_INVALID;
    }
    sn_status st = frame_alpha(c, "sensor_transform_at", t_ns, &alpha);
    if (st)
        return st;
    const sn_actor *a = sn_world_find(&c->engine->world, c->actor_id);
    if (!a)
        return SN_E_NOT_FOUND;
    sn_vec3 p;
    sn_quat q;
    sn_actor_pose_at(&c->engine->world, a, alpha, &p, &q);
    *out = (sn_transform){p, sn_quat_to_rotation(q)};
    return SN_OK;
}

static sn_status h_actor_attribute(sn_ctx *c, uint32_t id, const char *name, sn_value *out)
{
    sn_value v;
    sn_status st = sn_engine_actor_attribute(c->engine, id, name, &v, NULL);
    if (!st && out)
        memcpy(out, &v, sn_class_value_size(c->cls)); /* the size the plugin was built with */
    return out ? st : SN_E_INVALID;
}

/* ---- sensor kinematics and world settings (ABI 1.2) ---- */

/* Copies a struct that starts with struct_size: what both sides know (0 = all of it). */
static void fill_sized(void *out, const void *full, size_t full_size)
{
    uint32_t n;
    memcpy(&n, out, sizeof n);
    memcpy(out, full, n && n < full_size ? n : full_size);
    memcpy(out, &n, sizeof n);
}

static void *h_class_state(sn_ctx *c) { return c->is_class ? c->self : c->klass ? c->klass->self : NULL; }

static void h_world_settings(sn_ctx *c, sn_world_settings *out)
{
    const sn_engine *e = c->engine;
    sn_world_settings w;
    memset(&w, 0, sizeof w);
    w.gravity = e->world.gravity;
    w.fixed_delta_seconds = e->clock.dt;
    w.substeps = (uint32_t)e->n_sub;
    w.substep_delta_seconds = e->clock.dt / e->n_sub; /* as sn_world_advance divides it */
    w.max_substeps = (uint32_t)e->scene.settings.max_substeps;
    w.max_substep_delta_time = e->scene.settings.max_substep_delta_time;
    if (out)
        fill_sized(out, &w, sizeof w);
}

static void h_sensor_mount(sn_ctx *c, sn_transform *out)
{
    const sn_actor *a = sn_world_find(&c->engine->world, c->actor_id);
    if (out)
        *out = !a ? (sn_transform){{0, 0, 0}, {0, 0, 0}} : a->parent ? a->rel : sn_actor_world_transform(&c->engine->world, a);
}

static sn_status h_sensor_kinematics(sn_ctx *c, sn_kinematics *out)
{
    const sn_world *w = &c->engine->world;
    const sn_actor *a = c->is_class ? NULL : sn_world_find(w, c->actor_id);
    if (!out || !a) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "sensor_kinematics: %s", !out ? "NULL output" : "no sensor in a class context");
        return !out ? SN_E_INVALID : SN_E_NOT_FOUND;
    }
    /* The rigid body it rides on: up through attached props to the first actor that moves. */
    const sn_actor *p = a;
    while (p->parent && !p->ph->body) {
        const sn_actor *q = sn_world_find(w, p->parent);
        if (!q)
            break;
        p = q;
    }
    sn_kinematics k;
    memset(&k, 0, sizeof k);
    k.transform = sn_actor_world_transform(w, a);
    sn_vec3 r = sn_v3_sub(a->st.pos, p->st.pos), om = p->st.ang_vel, al = p->st.ang_acc;
    k.velocity = sn_v3_add(p->st.vel, sn_v3_cross(om, r));
    k.acceleration = sn_v3_add(sn_v3_add(p->st.acc, sn_v3_cross(al, r)), sn_v3_cross(om, sn_v3_cross(om, r)));
    k.angular_velocity = om;
    k.angular_acceleration = al;
    fill_sized(out, &k, sizeof k);
    return SN_OK;
}

static void h_random_seed(sn_ctx *c, uint64_t seed) { sn_rng_seed(&c->rng, seed); }

static void h_geo_reference(sn_ctx *c, sn_geo_location *out)
{
    if (out)
        *out = c->engine->scene.settings.georeference;
}

static sn_status h_world_to_geo(sn_ctx *c, sn_vec3 loc, sn_geo_location *out)
{
    if (!out || !isfinite(loc.x + loc.y + loc.z)) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "world_to_geo: %s", !out ? "NULL output" : "non-finite location");
        return SN_E_INVALID;
    }
    *out = sn_geo_from_location(&c->engine->scene.settings.georeference, loc);
    return SN_OK;
}

static sn_status h_actor_attribute_at(sn_ctx *c, uint32_t id, uint32_t index, const char **name, sn_value *out)
{
    return sn_engine_actor_attribute_at(c->engine, id, index, name, out, NULL);
}

static sn_status h_parallel_for(sn_ctx *c, void (*fn)(void *, uint32_t), void *arg, uint32_t n_tasks)
{
    sn_engine *e = c->engine;
    if (!fn) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "parallel_for: NULL task function");
        return SN_E_INVALID;
    }
    if (e->in_parallel) { /* from a task: the pool is busy with the caller's own tasks */
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "parallel_for: called from inside a task");
        return SN_E_STATE;
    }
    if (!n_tasks)
        return SN_OK;
    sn_renderer *r = engine_renderer(c, "parallel_for");
    if (!r)
        return SN_E_NOMEM;
    e->in_parallel = true;
    if (n_tasks == 1)
        fn(arg, 0);
    else
        sn_pool_run(sn_renderer_pool(r), fn, arg, n_tasks);
    e->in_parallel = false;
    return SN_OK;
}

static uint64_t h_rand_u64(sn_ctx *c) { return sn_rng_u64(&c->rng); }
static double h_rand_uniform(sn_ctx *c) { return sn_rng_uniform(&c->rng); }
static double h_rand_normal(sn_ctx *c, double mean, double sd) { return mean + sd * sn_rng_normal(&c->rng); }

void sn_host_init(sn_host *h)
{
    memset(h, 0, sizeof *h);
    h->hdr = (sn_abi_header)SN_ABI_HEADER(sn_host);
    h->log = h_log;
    h->set_error = h_set_error;
    h->sensor_name = h_sensor_name;
    h->sensor_id = h_sensor_id;
    h->sensor_transform = h_sensor_transform;
    h->clock = h_clock;
    h->actor_count = h_actor_count;
    h->actor_id_at = h_actor_id_at;
    h->actor_get = h_actor_get;
    h->random_u64 = h_rand_u64;
    h->random_uniform = h_rand_uniform;
    h->random_normal = h_rand_normal;
    h->render = h_render;
    h->render_at = h_render_at;
    h->sensor_transform_at = h_sensor_transform_at;
    h->actor_attribute = h_actor_attribute;
    h->actor_attribute_at = h_actor_attribute_at;
    h->class_state = h_class_state;
    h->world_settings = h_world_settings;
    h->sensor_mount = h_sensor_mount;
    h->sensor_kinematics = h_sensor_kinematics;
    h->random_seed = h_random_seed;
    h->geo_reference = h_geo_reference;
    h->world_to_geo = h_world_to_geo;
    h->render_motion = h_render_motion;
    h->render_motion_grid = h_render_motion_grid;
    h->sensor_transform_prev = h_sensor_transform_prev;
    h->parallel_for = h_parallel_for;
    h->weather = h_weather;
    h->scene_motion = h_scene_motion;
    h->render_layer_at = h_render_layer_at;
    sn_host_writer_fill(h);
    sn_host_query_fill(h);
    sn_host_map_fill(h);
}
