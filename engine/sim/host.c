/* host.c — the sn_host table: what a plugin instance may ask of the engine. */
#include "engine.h"

#include "../core/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void sn_host_writer_fill(sn_host *h);

static void h_log(sn_ctx *c, sn_log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    if (c->engine->opts.log) { /* the embedder's callback gets every level, as one line */
        char line[2048];
        int n = snprintf(line, sizeof line, "sensor '%s': ", c->name);
        va_list ap;
        va_start(ap, fmt);
        if (n > 0 && (size_t)n < sizeof line)
            vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
        c->engine->opts.log(level, line, c->engine->opts.log_user);
        return;
    }
    if (level < SN_LOG_INFO)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sensim: %s: sensor '%s': ", names[level > SN_LOG_ERROR ? SN_LOG_ERROR : level],
            c->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void h_set_error(sn_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
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

/* Fraction of the last frame at time t_ns; false (with the ctx's error set) outside it. */
static bool frame_alpha(sn_ctx *c, const char *what, int64_t t_ns, double *alpha)
{
    const sn_clock *k = &c->engine->clock;
    int64_t from = k->time_ns - k->dt_ns;
    if (k->frame == 0 || t_ns <= from || t_ns > k->time_ns) {
        sn_format(c->error, sizeof c->error, "%s: time %lld ns is outside the last frame (%lld, %lld] ns", what,
                  (long long)t_ns, (long long)from, (long long)k->time_ns);
        return false;
    }
    *alpha = t_ns == k->time_ns ? 1.0 : (double)(t_ns - from) / (double)k->dt_ns;
    return true;
}

static sn_status render_alpha(sn_ctx *c, double alpha, const sn_camera *cam, const sn_image *out)
{
    sn_engine *e = c->engine;
    sn_error err = {0};
    if (!cam || !out) {
        sn_format(c->error, sizeof c->error, "render: NULL camera or image");
        return SN_E_INVALID;
    }
    if (!e->renderer) {
        int n = e->opts.threads > 0 ? e->opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (!(e->renderer = sn_renderer_create(n < 1 ? 1 : n > 64 ? 64 : n))) {
            sn_format(c->error, sizeof c->error, "render: out of memory");
            return SN_E_NOMEM;
        }
    }
    sn_status st = sn_render(e->renderer, &e->world, alpha, &e->lighting, cam, out, &err);
    if (st)
        sn_format(c->error, sizeof c->error, "render: %s", err.msg);
    return st;
}

static sn_status h_render(sn_ctx *c, const sn_camera *cam, const sn_image *out)
{
    return render_alpha(c, 1.0, cam, out);
}

static sn_status h_render_at(sn_ctx *c, int64_t t_ns, const sn_camera *cam, const sn_image *out)
{
    double alpha;
    if (!frame_alpha(c, "render_at", t_ns, &alpha))
        return SN_E_RANGE;
    return render_alpha(c, alpha, cam, out);
}

static sn_status h_sensor_transform_at(sn_ctx *c, int64_t t_ns, sn_transform *out)
{
    double alpha;
    if (!out) {
        sn_format(c->error, sizeof c->error, "sensor_transform_at: NULL output");
        return SN_E_INVALID;
    }
    if (!frame_alpha(c, "sensor_transform_at", t_ns, &alpha))
        return SN_E_RANGE;
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
    return sn_engine_actor_attribute(c->engine, id, name, out, NULL);
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
    sn_host_writer_fill(h);
    sn_host_query_fill(h);
}
