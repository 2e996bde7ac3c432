/* host_query.c — the host's ray queries: ray_cast, ray_batch, sweep_sphere, overlap_sphere,
** all answered by the engine's ray index (query/rayscene.h). */
#include "engine.h"

#include "../core/util.h"

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
    sn_format(c->error, sizeof c->error, "%s: %s", what, err->msg);
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
}
