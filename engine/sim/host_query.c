/* host_query.c — the host's ray queries: ray_cast, ray_batch, sweep_sphere, overlap_sphere,
** all answered by the engine's ray index (query/rayscene.h). */
#include "engine.h"
#include "host_query.h"

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

/* A query as the engine reads it: one built for ABI 1.2 to 1.5 (without ray_ignore and
** overlap_size) copied into a zeroed query of this size; anything else as given (the engine
** refuses a query too small to be one). */
static const sn_ray_query *full_query(const sn_ray_query *q, sn_ray_query *full)
{
    if (!q || q->struct_size >= sizeof *full || q->struct_size < SN_RAY_QUERY_SIZE_1_5)
        return q;
    memset(full, 0, sizeof *full);
    memcpy(full, q, q->struct_size);
    full->struct_size = sizeof *full;
    full->overlap_size = sizeof(sn_overlap);
    return full;
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
    /* never more than the hit of the class's own minor: a plugin that forgot struct_size (or
    ** left garbage in it) gets its own layout, not a write past its struct */
    uint16_t minor = c->cls ? c->cls->hdr.abi_minor : SN_ABI_MINOR;
    size_t most = minor < 4 ? SN_RAY_HIT_SIZE_1_2 : minor < 5 ? SN_RAY_HIT_SIZE_VELOCITY : sizeof out;
    size_t n = hit->struct_size && hit->struct_size < most ? hit->struct_size : most;
    memcpy(hit, &out, n);
    return true;
}

typedef struct pair_key {
    uint64_t k;
    uint32_t i;
} pair_key;

static int pair_cmp(const void *a, const void *b)
{
    const pair_key *x = a, *y = b;
    return x->k != y->k ? (x->k > y->k) - (x->k < y->k) : (x->i > y->i) - (x->i < y->i);
}

/* Traces the batch (alpha NULL: now), or with q->ray_ignore one group of rays per distinct
** ignore pair, each with its pair added to the query's ignore_ids: gathered into scratch,
** traced, and scattered back, so results and hits land where a plain batch puts them. */
static sn_status trace(sn_ctx *c, const double *alpha, uint32_t n_alpha, const sn_ray_query *q, const sn_ray *rays,
                       uint32_t n, sn_ray_result *out, sn_error *err)
{
    sn_rayscene *rs = sn_engine_rays(c->engine, err);
    if (!rs)
        return SN_E_NOMEM;
    const sn_world *w = &c->engine->world;
    if (!q || q->struct_size < sizeof *q || !q->ray_ignore || !n) /* a query too small: the engine refuses it */
        return alpha ? sn_rays_trace_times(rs, w, alpha, n_alpha, q, rays, n, out, err)
                     : sn_rays_trace(rs, w, q, rays, n, out, err);
    if (!rays || !out)
        return sn_fail(err, SN_E_INVALID, "NULL rays or results for %u rays", n);
    sn_status st = SN_OK;
    size_t per_hits = SN_RAY_MODE_MANY(q->mode) ? (size_t)q->max_hits * q->hit_size : 0;
    uint32_t *order = malloc(n * sizeof *order), *ids = malloc((q->n_ignore + 2) * sizeof *ids);
    char *g_rays = malloc((size_t)n * q->ray_size), *g_res = malloc((size_t)n * q->result_size);
    char *g_hits = per_hits ? malloc(n * per_hits) : NULL;
    double *g_alpha = alpha && n_alpha == n ? malloc(n * sizeof *g_alpha) : NULL;
    if (!order || !ids || !g_rays || !g_res || (per_hits && !g_hits) || (alpha && n_alpha == n && !g_alpha)) {
        st = sn_fail(err, SN_E_NOMEM, "out of memory grouping %u rays by their ignore pairs", n);
        goto done;
    }
    if (q->n_ignore)
        memcpy(ids, q->ignore_ids, q->n_ignore * sizeof *ids);
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    /* grouped by pair, rays of a group in their order: sorted (pair, index) keys */
    pair_key *key = malloc(n * sizeof *key);
    if (!key) {
        st = sn_fail(err, SN_E_NOMEM, "out of memory grouping %u rays by their ignore pairs", n);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = q->ray_ignore[i][0], b = q->ray_ignore[i][1];
        key[i] = (pair_key){(uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a), i};
    }
    qsort(key, n, sizeof *key, pair_cmp);
    for (uint32_t i = 0; i < n; i++)
        order[i] = key[i].i;
    for (uint32_t g0 = 0; g0 < n && !st;) {
        uint32_t g1 = g0;
        while (g1 < n && key[g1].k == key[g0].k)
            g1++;
        uint32_t m = g1 - g0, ni = q->n_ignore;
        for (int k = 0; k < 2; k++)
            if (q->ray_ignore[order[g0]][k])
                ids[ni++] = q->ray_ignore[order[g0]][k];
        for (uint32_t j = 0; j < m; j++) {
            memcpy(g_rays + (size_t)j * q->ray_size, (const char *)rays + (size_t)order[g0 + j] * q->ray_size, q->ray_size);
            if (g_alpha)
                g_alpha[j] = alpha[order[g0 + j]];
        }
        sn_ray_query sub = *q;
        sub.ray_ignore = NULL, sub.ignore_ids = ids, sub.n_ignore = ni, sub.hits = (sn_ray_hit *)(void *)g_hits;
        st = alpha ? sn_rays_trace_times(rs, w, g_alpha ? g_alpha : alpha, g_alpha ? m : 1, &sub,
                                         (const sn_ray *)(void *)g_rays, m, (sn_ray_result *)(void *)g_res, err)
                   : sn_rays_trace(rs, w, &sub, (const sn_ray *)(void *)g_rays, m, (sn_ray_result *)(void *)g_res, err);
        for (uint32_t j = 0; j < m && !st; j++) {
            memcpy((char *)out + (size_t)order[g0 + j] * q->result_size, g_res + (size_t)j * q->result_size,
                   q->result_size);
            if (per_hits)
                memcpy((char *)q->hits + order[g0 + j] * per_hits, g_hits + j * per_hits, per_hits);
        }
        g0 = g1;
    }
    free(key);
done:
    free(order), free(ids), free(g_rays), free(g_res), free(g_hits), free(g_alpha);
    return st;
}

static sn_status h_ray_batch(sn_ctx *c, const sn_ray_query *q, const sn_ray *rays, uint32_t n, sn_ray_result *out)
{
    sn_error err = {0};
    sn_ray_query full;
    if (trace(c, NULL, 0, full_query(q, &full), rays, n, out, &err))
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
    sn_ray_query full;
    sn_status st = n ? trace(c, alpha, n_times, full_query(q, &full), rays, n, out, &err) : SN_OK;
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
    sn_ray_query full;
    if (!rs || sn_sweep_sphere(rs, &c->engine->world, full_query(q, &full), ray, radius, out, &err))
        return failed(c, "sweep_sphere", &err);
    return SN_OK;
}

static sn_status h_overlap_sphere(sn_ctx *c, const sn_ray_query *q, sn_vec3 centre, double radius, uint32_t *ids,
                                  uint32_t cap, uint32_t *n_found)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    sn_ray_query full;
    if (!rs || sn_overlap_sphere(rs, &c->engine->world, full_query(q, &full), centre, radius, ids, cap, n_found, &err))
        return failed(c, "overlap_sphere", &err);
    return SN_OK;
}

static sn_status h_overlap_sphere_nearest(sn_ctx *c, const sn_ray_query *q, sn_vec3 centre, double radius,
                                          sn_overlap *out, uint32_t cap, uint32_t *n_found)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    sn_ray_query full;
    q = full_query(q, &full);
    if (!rs || sn_overlap_near(rs, &c->engine->world, q, centre, radius, NULL, 0, out,
                               q ? q->overlap_size : (uint32_t)sizeof *out, cap, n_found, &err))
        return failed(c, "overlap_sphere_nearest", &err);
    return SN_OK;
}

static sn_status h_overlap_cone(sn_ctx *c, const sn_ray_query *q, sn_vec3 apex, sn_vec3 axis, double half_angle_deg,
                                double range, sn_overlap *out, uint32_t cap, uint32_t *n_found)
{
    sn_error err = {0};
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    sn_ray_query full;
    q = full_query(q, &full);
    if (!rs || sn_overlap_near(rs, &c->engine->world, q, apex, range, &axis, half_angle_deg, out,
                               q ? q->overlap_size : (uint32_t)sizeof *out, cap, n_found, &err))
        return failed(c, "overlap_cone", &err);
    return SN_OK;
}

static sn_status h_ray_batch_compact(sn_ctx *c, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                                     const sn_ray_compact *out)
{
    sn_error err = {0};
    sn_ray_query full;
    sn_rayscene *rs = sn_engine_rays(c->engine, &err);
    if (!rs || sn_rays_trace_compact(rs, &c->engine->world, full_query(q, &full), rays, n, out, &err))
        return failed(c, "ray_batch_compact", &err);
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
    h->overlap_sphere_nearest = h_overlap_sphere_nearest;
    h->overlap_cone = h_overlap_cone;
    h->ray_batch_compact = h_ray_batch_compact;
}
