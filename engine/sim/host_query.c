/* host_query.c — the host's ray queries: ray_cast, ray_batch, sweep_sphere, overlap_sphere,
** all answered by the engine's ray index (query/rayscene.h). */
#include "engine.h"
#include "host.h"

#include "../core/util.h"
#include "../plugin/attr.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

sn_rayscene *sn_engine_rays(sn_engine *e, sn_error *err)
{
    if (!e->rays) {
        int n = e->opts.threads > 0 ? e->opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
        e->rays = sn_rayscene_create(n < 1 ? 1 : n > 64 ? 64 : n, err);
    }
    return e->rays;
}

/* Copies a failure into the sensor's error, prefixed with the call's name. */
static sn_status failed(sn_ctx *c, const char *what, const sn_error *err)
{
    sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s: %s", what, err->msg);
    return err->status ? err->status : SN_E_INVALID;
}

/* sn_ray_hit as ABI 1.0 and 1.1 laid it out (no struct_size): what older plugins pass. */
typedef struct ray_hit_1_1 {
    double distance;
    sn_vec3 point, normal;
    uint32_t actor_id;
    uint8_t semantic_tag;
} ray_hit_1_1;

static bool h_ray_cast(sn_ctx *c, sn_vec3 o, sn_vec3 d, double max_dist, uint32_t ignore, sn_ray_hit *hit)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = &ignore;
    q.n_ignore = ignore ? 1 : 0;
    sn_ray r = {o, d, max_dist};
    sn_ray_result res;
    if (!rs || sn_rays_trace(rs, &c->engine->world, &q, &r, 1, &res, &err)) {
        failed(c, "ray_cast", &err); /* out of memory: nothing else to say through a bool */
        return false;
    }
    if (!res.n_hits || !hit)
        return res.n_hits > 0;
    if (sn_class_is_pre_1_2(c->cls)) { /* ABI 1.0/1.1 laid sn_ray_hit out without struct_size */
        ray_hit_1_1 old = {res.hit.distance, res.hit.point, res.hit.normal, res.hit.actor_id, res.hit.semantic_tag};
        memcpy(hit, &old, sizeof old);
        return true;
    }
    sn_ray_hit out = res.hit;
    out.struct_size = hit->struct_size;
    memcpy(hit, &out, hit->struct_size && hit->struct_size < sizeof out ? hit->struct_size : sizeof out);
    return true;
}

static sn_status h_ray_batch(sn_ctx *c, const sn_ray_query *q, const sn_ray *rays, uint32_t n, sn_ray_result *out)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    if (!rs || sn_rays_trace(rs, &c->engine->world, q, rays, n, out, &err))
        return failed(c, "ray_batch", &err);
    return SN_OK;
}

/* Times as fractions of the last frame, checked as render_at checks its time. */
static sn_status h_ray_batch_at(sn_ctx *c, const int64_t *t_ns, uint32_t n_times, const sn_ray_query *q,
                                const sn_ray *rays, uint32_t n, sn_ray_result *out)
{
    const sn_clock *k = &c->engine->clock;
    int64_t from = k->time_ns - k->dt_ns;
    if (k->frame == 0 || c->engine->advanced_frame != k->frame) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "ray_batch_at: the world has not advanced to frame %llu yet; call it "
                  "from tick(SN_PHASE_POST) or later", (unsigned long long)k->frame);
        return SN_E_STATE;
    }
    if (!t_ns || (n_times != 1 && n_times != n)) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "ray_batch_at: %u times for %u rays: give 1 (every ray) or one per ray",
                  n_times, n);
        return SN_E_INVALID;
    }
    double *alpha = calloc(n_times ? n_times : 1, sizeof *alpha);
    if (!alpha) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "ray_batch_at: out of memory for %u times", n_times);
        return SN_E_NOMEM;
    }
    for (uint32_t i = 0; i < n_times; i++) {
        if (t_ns[i] <= from || t_ns[i] > k->time_ns) {
            sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "ray_batch_at: time %u, %lld ns, is outside the last frame (%lld, "
                      "%lld] ns", i, (long long)t_ns[i], (long long)from, (long long)k->time_ns);
            free(alpha);
            return SN_E_RANGE;
        }
        alpha[i] = t_ns[i] == k->time_ns ? 1.0 : (double)(t_ns[i] - from) / (double)k->dt_ns;
    }
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    sn_status st = !rs ? SN_E_NOMEM : n ? sn_rays_trace_times(rs, &c->engine->world, alpha, n_times, q, rays, n, out, &err)
                                      : SN_OK;
    free(alpha);
    return st ? failed(c, "ray_batch_at", &err) : SN_OK;
}

static int64_t h_tick_interval_ns(sn_ctx *c) { return c->is_class ? 0 : c->interval_ns; }

static bool h_attribute_given(sn_ctx *c, const char *name)
{
    if (c->is_class || !c->given || !name)
        return false;
    int i = sn_attr_find(c->bp->attrs, c->bp->n_attrs, c->bp->stride, name);
    return i >= 0 && c->given[i];
}

static sn_status h_sweep_sphere(sn_ctx *c, const sn_ray_query *q, const sn_ray *ray, double radius,
                                sn_ray_result *out)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    if (!rs || sn_sweep_sphere(rs, &c->engine->world, q, ray, radius, out, &err))
        return failed(c, "sweep_sphere", &err);
    return SN_OK;
}

static sn_status h_overlap_sphere(sn_ctx *c, const sn_ray_query *q, sn_vec3 centre, double radius, uint32_t *ids,
                                  uint32_t cap, uint32_t *n_found)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    if (!rs || sn_overlap_sphere(rs, &c->engine->world, q, centre, radius, ids, cap, n_found, &err))
        return failed(c, "overlap_sphere", &err);
    return SN_OK;
}

void sn_host_query_fill(sn_host *h)
{
    h->ray_cast = h_ray_cast;
    h->ray_batch = h_ray_batch;
    h->sweep_sphere = h_sweep_sphere;
    h->overlap_sphere = h_overlap_sphere;
    h->ray_batch_at = h_ray_batch_at;
    h->tick_interval_ns = h_tick_interval_ns;
    h->attribute_given = h_attribute_given;
}
