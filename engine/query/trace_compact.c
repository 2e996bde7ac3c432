/* trace_compact.c — compact batches (sensim/query.h sn_ray_compact): the closest hit of each ray
** as trace.c finds it, but only the fields asked for, as floats, each into an array of its own. */
#include "trace_one.h"

#include "../core/util.h"

#include <stdlib.h>

/* Rays per pool task, as trace.c's. */
#define RAYS_PER_TASK 512
/* SN_RAY_ANY goes through the full path in chunks this long: its results (112 bytes each) stay
** in the cache and only the byte asked for reaches the caller's array. */
#define ANY_CHUNK 2048

/* Fields that read the hit actor's record beyond its triangle's. */
#define ACTOR_FIELDS (SN_RAY_FIELD_ACTOR | SN_RAY_FIELD_TAG | SN_RAY_FIELD_REFLECTIVITY)

typedef struct cbatch {
    sn_rayscene *rs;
    const sn_world *w;
    const sn_ray_query *q;
    const sn_ray *rays;
    const sn_ray_compact *out;
    uint32_t n, per_task;
} cbatch;

/* The closest hit of one ray from Embree's answer rh and the ground planes (trace.c
** finish_closest's choice, step for step), its fields written to ray i's slots. The hit actor is
** read only for the fields that need it, and not when its triangle's record holds them (a still
** actor's: rs_stri). */
static inline __attribute__((always_inline)) void finish(const rs_ctx *c, const cray *r, const struct RTCRayHit *rh, const sn_ray_compact *out,
                          uint32_t fields, size_t i)
{
    const sn_rayscene *rs = c->rs;
    const sn_vec3 o = r->o, d = r->d;
    const double maxd = r->maxd;
    double best_t = INFINITY;
    uint32_t best_id = 0, best_tri = 0;
    const rs_actor *best_a = NULL;
    const rs_stri *best_s = NULL;
    const rs_plane *best_p = NULL;
    sn_vec3 best_n = {0, 0, 0};
    bool found = false;
    if (maxd >= 0 && rh->hit.geomID != RTC_INVALID_GEOMETRY_ID) {
        uint32_t ref, tri = 0, id;
        bool back, moving;
        sn_vec3 nn;
        const rs_actor *a = NULL;
        double t;
        const rs_stri *s = hit_rec(rs, rh->hit.geomID, rh->hit.primID, &moving);
        if (s) {
            if (!s->still)
                a = rec_actor(rs, s, moving);
            id = s->still ? s->who : 0; /* else the actor's, read only when needed */
            t = refine_at(sn_v3(s->p0[0], s->p0[1], s->p0[2]), sn_v3(s->n[0], s->n[1], s->n[2]), s->inv, o, d,
                          rh->ray.tfar, &nn, &back);
        } else {
            resolve(rs, rh->hit.geomID, rh->hit.primID, &ref, &tri);
            a = rs_ref_actor(rs, ref);
            id = 0;
            t = refine(a, tri, o, d, rh->ray.tfar, &nn, &back);
        }
        if (back)
            t = 0, nn = sn_v3_scale(d, -1);
        if (t <= maxd)
            best_t = t, best_id = id, best_a = a, best_s = s, best_n = nn, best_tri = tri, found = true;
    }
    for (size_t k = 0; maxd >= 0 && k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        double t;
        sn_vec3 nn;
        if (!plane_hit(p, o, d, maxd, &t, &nn) || (found && (t > best_t || (t == best_t && p->id >= (best_a ? best_a->id : best_id)))) ||
            (c->filtered && rs_excluded(c->w, c->q, p->id, p->parent, p->tag, p->kind)))
            continue;
        found = true, best_t = t, best_id = p->id, best_a = NULL, best_s = NULL, best_p = p, best_n = nn;
    }
    if (fields & SN_RAY_FIELD_HIT)
        out->hit[i] = found;
    if (fields & SN_RAY_FIELD_DISTANCE)
        out->distance[i] = found ? (float)best_t : -1.0f;
    if (fields & SN_RAY_FIELD_NORMAL) {
        float *nf = out->normal + 3 * i;
        nf[0] = (float)best_n.x, nf[1] = (float)best_n.y, nf[2] = (float)best_n.z;
    }
    if (fields & ACTOR_FIELDS) {
        uint32_t id = 0;
        uint8_t tag = 0;
        double refl = 0;
        if (best_s && best_s->still)
            id = best_id, refl = rs->refls[best_s->refl], tag = best_s->tag;
        else if (best_a)
            id = best_a->id, refl = best_a->refl,
            tag = best_s ? best_s->tag : fields & SN_RAY_FIELD_TAG ? rs_tri_tag(best_a, best_tri) : 0;
        else if (best_p)
            id = best_p->id, refl = best_p->refl, tag = best_p->tag;
        if (fields & SN_RAY_FIELD_ACTOR)
            out->actor_id[i] = id;
        if (fields & SN_RAY_FIELD_TAG)
            out->semantic_tag[i] = tag;
        if (fields & SN_RAY_FIELD_REFLECTIVITY)
            out->reflectivity[i] = (float)refl;
    }
}

/* Closest hits of task's rays: trace.c trace_closest's loop (streams of one origin
** coherent, others one rtcIntersect1 each; the hits' records fetched together), finished into
** the caller's arrays. */
static inline __attribute__((always_inline)) void trace_range(const cbatch *b, uint32_t task, const uint32_t fields)
{
    rs_ctx c;
    memset(&c, 0, sizeof c);
    rtcInitIntersectContext(&c.ec);
    c.rs = b->rs, c.w = b->w, c.q = b->q;
    c.filtered = b->q->n_ignore || b->q->tag_mask || b->q->kind_mask;
    c.ec.filter = c.filtered ? rs_filter : NULL;
    const sn_rayscene *rs = b->rs;
    const bool actors = fields & ACTOR_FIELDS;
    const size_t ray_size = b->q->ray_size;
    uint32_t from = task * b->per_task, to = from + b->per_task < b->n ? from + b->per_task : b->n;
    struct RTCRayHit rh[STREAM];
    cray cr[STREAM];
    for (uint32_t i0 = from; i0 < to; i0 += STREAM) {
        uint32_t m = to - i0 < STREAM ? to - i0 : STREAM;
        const char *src = (const char *)b->rays + (size_t)i0 * ray_size;
        bool coherent = !rs->one_by_one;
        for (uint32_t k = 0; k < m; k++) {
            stream_ray(src + (size_t)k * ray_size, &cr[k], &rh[k]);
            coherent = coherent && cr[k].o.x == cr[0].o.x && cr[k].o.y == cr[0].o.y && cr[k].o.z == cr[0].o.z;
        }
        if (coherent) {
            c.ec.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
            rtcIntersect1M(rs->scene, &c.ec, rh, m, sizeof rh[0]);
        } else {
            c.ec.flags = RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
            for (uint32_t k = 0; k < m; k++)
                rtcIntersect1(rs->scene, &c.ec, &rh[k]);
            for (uint32_t k = 0; k < m; k++) { /* as trace_closest: among many objects each is a miss */
                bool moving;
                const rs_stri *s = rh[k].hit.geomID == RTC_INVALID_GEOMETRY_ID
                                       ? NULL
                                       : hit_rec(rs, rh[k].hit.geomID, rh[k].hit.primID, &moving);
                if (s)
                    __builtin_prefetch(s);
            }
        }
        for (uint32_t k = 0; k < m; k++) {
            if (actors && !coherent && k + PREFETCH_AHEAD < m &&
                rh[k + PREFETCH_AHEAD].hit.geomID != RTC_INVALID_GEOMETRY_ID) {
                bool moving;
                const struct RTCHit *ah = &rh[k + PREFETCH_AHEAD].hit;
                const rs_stri *s = hit_rec(rs, ah->geomID, ah->primID, &moving);
                if (s && !s->still)
                    __builtin_prefetch(rec_actor(rs, s, moving));
            }
            finish(&c, &cr[k], &rh[k], b->out, fields, (size_t)i0 + k);
        }
    }
}

/* The common masks with their fields a constant, so that what they do not ask for is not
** computed (RS_SPEC probe, docs/performance.md rays50: at 10 000 objects 0.94-1.01 of Embree
** direct against 0.96-1.11 with the mask read at run time). */
static void trace_task(void *arg, uint32_t task)
{
    const cbatch *b = arg;
    switch (b->out->fields) {
    case SN_RAY_FIELD_DISTANCE:
        trace_range(b, task, SN_RAY_FIELD_DISTANCE);
        break;
    case SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_ACTOR:
        trace_range(b, task, SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_ACTOR);
        break;
    default:
        trace_range(b, task, b->out->fields);
    }
}

/* SN_RAY_ANY: the full path (trace.c, its cull grid included) a chunk at a time into scratch,
** each result's answer copied out. */
static sn_status trace_any(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *rays, uint32_t n,
                           const sn_ray_compact *out, sn_error *err)
{
    uint32_t chunk = n < ANY_CHUNK ? n : ANY_CHUNK;
    sn_ray_result *res = malloc((size_t)chunk * sizeof *res);
    if (!res)
        return sn_fail(err, SN_E_NOMEM, "ray queries: out of memory for %u results", chunk);
    sn_ray_query full = *q;
    full.result_size = sizeof *res;
    sn_status st = SN_OK;
    for (uint32_t i0 = 0; i0 < n && !st; i0 += chunk) {
        uint32_t m = n - i0 < chunk ? n - i0 : chunk;
        st = sn_rays_trace(rs, w, &full, (const sn_ray *)(const void *)((const char *)rays + (size_t)i0 * q->ray_size),
                           m, res, err);
        for (uint32_t k = 0; k < m && !st; k++)
            out->hit[i0 + k] = res[k].n_hits > 0;
    }
    free(res);
    return st;
}

/* The field's array, by bit. */
static const void *field_array(const sn_ray_compact *out, uint32_t bit)
{
    switch (bit) {
    case SN_RAY_FIELD_HIT: return out->hit;
    case SN_RAY_FIELD_DISTANCE: return out->distance;
    case SN_RAY_FIELD_ACTOR: return out->actor_id;
    case SN_RAY_FIELD_TAG: return out->semantic_tag;
    case SN_RAY_FIELD_NORMAL: return out->normal;
    default: return out->reflectivity;
    }
}

static const char *field_name(uint32_t bit)
{
    switch (bit) {
    case SN_RAY_FIELD_HIT: return "SN_RAY_FIELD_HIT (hit)";
    case SN_RAY_FIELD_DISTANCE: return "SN_RAY_FIELD_DISTANCE (distance)";
    case SN_RAY_FIELD_ACTOR: return "SN_RAY_FIELD_ACTOR (actor_id)";
    case SN_RAY_FIELD_TAG: return "SN_RAY_FIELD_TAG (semantic_tag)";
    case SN_RAY_FIELD_NORMAL: return "SN_RAY_FIELD_NORMAL (normal)";
    default: return "SN_RAY_FIELD_REFLECTIVITY (reflectivity)";
    }
}

static sn_status check(const sn_ray_query *q, const sn_ray *rays, uint32_t n, const sn_ray_compact *out,
                       sn_error *err)
{
    sn_status st = rs_check_query(q, n, false, err);
    if (st)
        return st;
    if (q->mode != SN_RAY_CLOSEST && q->mode != SN_RAY_ANY)
        return sn_fail(err, SN_E_INVALID, "compact batches answer SN_RAY_CLOSEST and SN_RAY_ANY, not mode %d: use "
                       "ray_batch for every hit along a ray", (int)q->mode);
    if (q->ray_ignore)
        return sn_fail(err, SN_E_INVALID, "compact batches take no per-ray ignore pairs (ray_ignore): use ray_batch");
    if (!out)
        return sn_fail(err, SN_E_INVALID, "NULL sn_ray_compact");
    if (out->struct_size < sizeof *out)
        return sn_fail(err, SN_E_INVALID, "sn_ray_compact struct_size %u is below its sizeof = %zu: start from "
                       "SN_RAY_COMPACT_INIT", out->struct_size, sizeof *out);
    if (!out->fields)
        return sn_fail(err, SN_E_INVALID, "sn_ray_compact asks for no field: set fields to a mask of sn_ray_field");
    if (out->fields & ~SN_RAY_FIELDS_ALL)
        return sn_fail(err, SN_E_INVALID, "sn_ray_compact fields 0x%x has bits no sn_ray_field names (0x%x)",
                       out->fields, out->fields & ~SN_RAY_FIELDS_ALL);
    if (q->mode == SN_RAY_ANY && out->fields != SN_RAY_FIELD_HIT)
        return sn_fail(err, SN_E_INVALID, "SN_RAY_ANY answers whether, not what: its fields are SN_RAY_FIELD_HIT "
                       "alone (got 0x%x)", out->fields);
    for (uint32_t bit = 1; bit & SN_RAY_FIELDS_ALL; bit <<= 1)
        if ((out->fields & bit) && n && !field_array(out, bit))
            return sn_fail(err, SN_E_INVALID, "sn_ray_compact asks for %s but its array is NULL", field_name(bit));
    if (n && !rays)
        return sn_fail(err, SN_E_INVALID, "NULL rays for %u rays", n);
    return SN_OK;
}

sn_status sn_rays_trace_compact(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *rays,
                                uint32_t n, const sn_ray_compact *out, sn_error *err)
{
    sn_status st = check(q, rays, n, out, err);
    if (st || !n)
        return st;
    if (q->mode == SN_RAY_ANY)
        return trace_any(rs, w, q, rays, n, out, err);
    if ((st = rs_sync_query(rs, w, 1.0, q, n, err)))
        return st;
    cbatch b = {rs, w, q, rays, out, n, RAYS_PER_TASK};
    uint32_t tasks = (n + RAYS_PER_TASK - 1) / RAYS_PER_TASK;
    if (tasks > RS_MAX_TASKS) {
        tasks = RS_MAX_TASKS;
        b.per_task = (n + tasks - 1) / tasks;
    }
    if (tasks == 1)
        trace_task(&b, 0);
    else
        sn_pool_run(rs->pool, trace_task, &b, tasks);
    return SN_OK;
}
