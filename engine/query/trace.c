/* trace.c — batches of rays through the index: closest hit or every actor along the ray. */
#include "trace_one.h"

#include "../core/util.h"

#include <float.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

/* Rays per pool task: enough to hide the hand-out cost, few enough to balance threads. */
#define RAYS_PER_TASK 512
/* Batches traced without the cull grid after one where it settled under 1 ray in 16. */
#define CULL_SKIP 8

/* Which rays a task traces: every one; or (queries the cull grid serves, rs_cull) first those
** the grid settles without Embree, marking the others in need[], then the marked ones. */
typedef enum pass { PASS_ALL, PASS_SETTLE, PASS_NEEDED } pass;

typedef struct batch {
    sn_rayscene *rs;
    const sn_world *w;
    const sn_ray_query *q;
    const sn_ray *rays;
    sn_ray_result *out;
    uint32_t n, per_task;
    pass pass;
    const rs_cull *cull; /* PASS_SETTLE: the grid of the query's masks */
    uint32_t needed[RS_MAX_TASKS]; /* PASS_SETTLE: per task, how many rays it left for Embree */
} batch;

bool rs_excluded(const sn_world *w, const sn_ray_query *q, uint32_t id, uint32_t parent, uint8_t tag,
                 uint8_t kind)
{
    if (!q)
        return false;
    if (q->tag_mask && (tag >= 32 || !((q->tag_mask >> tag) & 1u)))
        return true;
    if (q->kind_mask && (kind >= 32 || !((q->kind_mask >> kind) & 1u)))
        return true;
    for (uint32_t k = 0; k < q->n_ignore; k++) {
        uint32_t ig = q->ignore_ids[k];
        if (ig && (id == ig || (parent && sn_actor_is_descendant(w, parent, ig))))
            return true;
    }
    return false;
}

sn_status rs_check_query(const sn_ray_query *q, uint32_t n, bool need_hits, sn_error *err)
{
    if (!q)
        return sn_fail(err, SN_E_INVALID, "NULL query");
    if (q->struct_size < sizeof(sn_ray_query))
        return sn_fail(err, SN_E_INVALID, "query struct_size %u is below sizeof(sn_ray_query) = %zu: start from "
                       "SN_RAY_QUERY_INIT", q->struct_size, sizeof(sn_ray_query));
    /* results and hits as small as ABI 1.2 laid them out are accepted: they get no velocity */
    if (q->ray_size < sizeof(sn_ray) || q->result_size < SN_RAY_RESULT_SIZE_1_2)
        return sn_fail(err, SN_E_INVALID, "query ray_size %u / result_size %u are below sizeof(sn_ray) = %zu / "
                       "sizeof(sn_ray_result) = %u (ABI 1.2): start from SN_RAY_QUERY_INIT", q->ray_size,
                       q->result_size, sizeof(sn_ray), SN_RAY_RESULT_SIZE_1_2);
    if (q->mode != SN_RAY_CLOSEST && q->mode != SN_RAY_ALL && q->mode != SN_RAY_ANY && q->mode != SN_RAY_EVERY)
        return sn_fail(err, SN_E_INVALID, "query mode %d is none of SN_RAY_CLOSEST, SN_RAY_ALL, SN_RAY_ANY and SN_RAY_EVERY",
                       (int)q->mode);
    if (q->n_ignore && !q->ignore_ids)
        return sn_fail(err, SN_E_INVALID, "query has n_ignore %u but ignore_ids is NULL", q->n_ignore);
    if (need_hits && SN_RAY_MODE_MANY(q->mode) && q->max_hits && n) {
        if (!q->hits)
            return sn_fail(err, SN_E_INVALID, "SN_RAY_ALL/EVERY query with max_hits %u but hits is NULL", q->max_hits);
        if (q->hit_size < SN_RAY_HIT_SIZE_1_2)
            return sn_fail(err, SN_E_INVALID, "query hit_size %u is below sizeof(sn_ray_hit) = %u (ABI 1.2)",
                           q->hit_size, SN_RAY_HIT_SIZE_1_2);
        if ((uint64_t)n * q->max_hits > SIZE_MAX / q->hit_size)
            return sn_fail(err, SN_E_INVALID, "%u rays x %u hits do not fit in memory", n, q->max_hits);
    }
    return SN_OK;
}

bool rs_reserve_hits(rs_scratch *s, size_t n)
{
    if (sn_grow((void **)&s->hits, &s->cap_hits, n ? n : 1, sizeof *s->hits))
        return true;
    s->oom = true;
    return false;
}

bool rs_ray_prepare(const sn_ray *r, sn_vec3 *dir, double *max_distance)
{
    sn_vec3 o = r->origin, d = r->direction;
    /* checked here, before Embree, which asserts on an origin past its single-precision limit */
    if (!rs_origin_ok(o) || !isfinite(d.x + d.y + d.z) || !(r->max_distance > 0) || isnan(r->max_distance))
        return false;
    double l = sn_v3_len(d);
    if (!(l > 0) || !isfinite(l))
        return false;
    *dir = sn_v3_scale(d, 1 / l);
    *max_distance = r->max_distance;
    return true;
}

static int hit_cmp(const void *a, const void *b)
{
    const sn_ray_hit *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return (x->actor_id > y->actor_id) - (x->actor_id < y->actor_id);
}

/* Result i of the caller's array, as much of res as its stride holds. A whole result is copied
** by its constant size: a run-time size became `rep movs`, a third of an any-hit ray's time. */
static inline void put_result(const sn_ray_query *q, sn_ray_result *out, uint32_t i, const sn_ray_result *res)
{
    if (q->result_size == sizeof *res)
        memcpy(&out[i], res, sizeof *res);
    else
        memcpy((char *)out + (size_t)i * q->result_size, res, rs_min_size(q->result_size, sizeof *res));
}

void rs_write_result(const sn_ray_query *q, sn_ray_result *out, uint32_t i, sn_ray_hit *hits, uint32_t n)
{
    if (n > 1)
        qsort(hits, n, sizeof *hits, hit_cmp);
    sn_ray_result res;
    memset(&res, 0, sizeof res); /* padding too: results are compared byte for byte */
    res.n_found = n;
    if (n)
        memcpy(&res.hit, &hits[0], sizeof res.hit);
    if (SN_RAY_MODE_MANY(q->mode)) {
        res.n_hits = n < q->max_hits ? n : q->max_hits;
        char *dst = (char *)q->hits + (size_t)i * q->max_hits * q->hit_size;
        for (uint32_t k = 0; k < res.n_hits; k++)
            memcpy(dst + (size_t)k * q->hit_size, &hits[k], rs_min_size(q->hit_size, sizeof *hits));
    } else {
        res.n_hits = res.n_found = n ? 1 : 0;
    }
    put_result(q, out, i, &res);
}

/* ---- one ray ---------------------------------------------------------------------------- */


void rs_filter(const struct RTCFilterFunctionNArguments *args)
{
    rs_ctx *c = (rs_ctx *)args->context;
    unsigned N = args->N;
    for (unsigned i = 0; i < N; i++) {
        if (!args->valid[i])
            continue;
        uint32_t ref, tri;
        resolve(c->rs, HITN_GEOM(args->hit, N, i), HITN_PRIM(args->hit, N, i), &ref, &tri);
        const rs_actor *a = rs_ref_actor(c->rs, ref);
        if (c->filtered && rs_excluded(c->w, c->q, a->id, a->parent, a->tag, a->kind)) {
            args->valid[i] = 0;
            continue;
        }
        if (c->all) { /* keep it and look further */
            rs_scratch *s = c->all;
            if (sn_grow((void **)&s->recs, &s->cap, s->n + 1, sizeof *s->recs))
                s->recs[s->n++] = (rs_rec){ref, tri, RAYN_TFAR(args->ray, N, i), false};
            else
                s->oom = true;
            args->valid[i] = 0;
        } else if (c->any) {
            /* Embree's reach is maxd in single precision, which may round up: a hit that close
            ** to the end is measured in double precision as the closest hit is, and one beyond
            ** maxd does not count. Otherwise accepted: the occlusion search stops here. */
            float tf = RAYN_TFAR(args->ray, N, i);
            if ((double)tf > c->any_maxd * (1 - 1e-5) - 1e-5) {
                sn_vec3 nn;
                bool back;
                if (refine(a, tri, c->any_o, c->any_d, tf, &nn, &back) > c->any_maxd) {
                    args->valid[i] = 0;
                    continue;
                }
            }
            c->any_hit = true;
        }
    }
}


static int rec_cmp(const void *a, const void *b)
{
    const rs_rec *x = a, *y = b;
    if (x->ref != y->ref)
        return x->ref < y->ref ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->back != y->back)
        return x->back ? 1 : -1;
    return (x->tri > y->tri) - (x->tri < y->tri);
}


/* The closest hit of one ray from Embree's answer rh and the ground planes, into *res (zeroed,
** padding too). */
static inline void finish_closest(const rs_ctx *c, const cray *r, const struct RTCRayHit *rh, sn_ray_result *res)
{
    const sn_rayscene *rs = c->rs;
    const sn_vec3 o = r->o, d = r->d;
    const double maxd = r->maxd;
    double best_t = INFINITY;
    uint32_t best_id = 0, best_tri = 0;
    const rs_actor *best_a = NULL;
    const rs_plane *best_p = NULL;
    sn_vec3 best_n = {0, 0, 0};
    if (rh->hit.geomID != RTC_INVALID_GEOMETRY_ID) {
        uint32_t ref, tri;
        bool back;
        sn_vec3 nn;
        const rs_actor *a;
        double t;
        bool moving;
        const rs_stri *s = hit_rec(rs, rh->hit.geomID, rh->hit.primID, &moving);
        if (s) { /* the triangle's own record */
            a = moving ? &rs->dact[s->ref] : &rs->sact[s->ref], tri = s->tri;
            t = refine_at(sn_v3(s->p0[0], s->p0[1], s->p0[2]), sn_v3(s->n[0], s->n[1], s->n[2]), s->inv, o, d,
                          rh->ray.tfar, &nn, &back);
        } else {
            resolve(rs, rh->hit.geomID, rh->hit.primID, &ref, &tri);
            a = rs_ref_actor(rs, ref);
            t = refine(a, tri, o, d, rh->ray.tfar, &nn, &back);
        }
        if (back) /* the first surface is a way out: the origin is inside */
            t = 0, nn = sn_v3_scale(d, -1);
        if (t <= maxd)
            best_t = t, best_id = a->id, best_a = a, best_n = nn, best_tri = tri;
    }
    bool found = best_a != NULL;
    for (size_t k = 0; k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        double t;
        sn_vec3 nn;
        if (!plane_hit(p, o, d, maxd, &t, &nn) || (found && (t > best_t || (t == best_t && p->id >= best_id))) ||
            (c->filtered && rs_excluded(c->w, c->q, p->id, p->parent, p->tag, p->kind)))
            continue;
        found = true, best_t = t, best_id = p->id, best_a = NULL, best_p = p, best_n = nn;
    }
    if (found) {
        res->n_hits = res->n_found = 1;
        if (best_a) {
            if (best_a->still) /* the velocity is the zeroed +0 (rs_still): the actor's first line alone */
                MAKE_HIT_STILL_ZEROED(&res->hit, o, d, best_t, best_n, best_a);
            else
                MAKE_HIT_ZEROED(&res->hit, o, d, best_t, best_n, best_a);
            res->hit.semantic_tag = tri_tag(best_a, best_tri);
        } else {
            MAKE_HIT_ZEROED(&res->hit, o, d, best_t, best_n, best_p);
        }
    }
}

/* Closest hits of rays [from, to): STREAM at a time through Embree, then each finished alone. */
static void trace_closest(rs_ctx *c, const batch *b, uint32_t from, uint32_t to)
{
    struct RTCRayHit rh[STREAM];
    cray cr[STREAM];
    const size_t ray_size = b->q->ray_size, result_size = b->q->result_size;
    /* Zeroed, padding too (results are compared byte for byte), from a zero result by its
    ** constant size and written in place when the caller's stride is ours: a memset of the
    ** result and of its hit became `rep stos`, and the copy to the caller read back fields
    ** just stored in pieces: both stalled, a third of a lidar ray's own time (perf). */
    static const sn_ray_result zero;
    const bool in_place = result_size == sizeof zero;
    for (uint32_t i0 = from; i0 < to; i0 += STREAM) {
        uint32_t m = to - i0 < STREAM ? to - i0 : STREAM;
        const char *src = (const char *)b->rays + (size_t)i0 * ray_size;
        /* Rays from one point (a lidar, a camera) go as a coherent stream; others one at a time,
        ** which Embree's incoherent path serves as fast as it can (bench_rays: coherent streams
        ** 1.1-2.4x faster on a lidar's rays, half as fast on random ones) */
        bool coherent = !c->rs->one_by_one;
        for (uint32_t k = 0; k < m; k++) {
            stream_ray(src + (size_t)k * ray_size, &cr[k], &rh[k]);
            coherent = coherent && cr[k].o.x == cr[0].o.x && cr[k].o.y == cr[0].o.y && cr[k].o.z == cr[0].o.z;
        }
        if (coherent) {
            c->ec.flags = RTC_INTERSECT_CONTEXT_FLAG_COHERENT;
            rtcIntersect1M(c->rs->scene, &c->ec, rh, m, sizeof rh[0]);
        } else {
            c->ec.flags = RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
            for (uint32_t k = 0; k < m; k++)
                rtcIntersect1(c->rs->scene, &c->ec, &rh[k]);
        }
        char *dst = (char *)b->out + (size_t)i0 * result_size;
        /* Incoherent rays' hits: their triangles' records fetched together, then each
        ** hit's actor a few hits ahead of its finishing: among 10 000 objects each is a cache
        ** miss, and one after the other they were most of a hit's finishing time. (A stream
        ** from one origin meets few objects, in the cache: there it costs 5 %.) */
        const sn_rayscene *rs = c->rs;
        if (!coherent)
            for (uint32_t k = 0; k < m; k++) {
                bool moving;
                const rs_stri *s = rh[k].hit.geomID == RTC_INVALID_GEOMETRY_ID ? NULL
                                                                                : hit_rec(rs, rh[k].hit.geomID, rh[k].hit.primID, &moving);
                if (s)
                    __builtin_prefetch(s);
            }
        for (uint32_t k = 0; k < m; k++) {
            if (!coherent && k + PREFETCH_AHEAD < m && rh[k + PREFETCH_AHEAD].hit.geomID != RTC_INVALID_GEOMETRY_ID) {
                bool moving;
                const struct RTCHit *ah = &rh[k + PREFETCH_AHEAD].hit;
                const rs_stri *s = hit_rec(rs, ah->geomID, ah->primID, &moving);
                if (s)
                    __builtin_prefetch(moving ? &rs->dact[s->ref] : &rs->sact[s->ref]);
            }
            sn_ray_result tmp, *res = in_place ? (sn_ray_result *)(void *)(dst + (size_t)k * sizeof zero) : &tmp;
            memcpy(res, &zero, sizeof zero);
            if (cr[k].maxd >= 0)
                finish_closest(c, &cr[k], &rh[k], res);
            if (!in_place)
                memcpy(dst + (size_t)k * result_size, res, rs_min_size(result_size, sizeof *res));
        }
    }
}

/* A ray as Embree is given it: its origin, unit direction and reach; ok false for a ray that
** can hit nothing (rs_ray_prepare). */
typedef struct prepared {
    sn_vec3 o, d;
    double maxd;
    bool ok;
} prepared;

static prepared prepare(const batch *b, uint32_t i)
{
    cray c;
    load_ray((const char *)b->rays + (size_t)i * b->q->ray_size, &c);
    prepared p = {c.o, c.d, c.maxd, c.maxd >= 0};
    return p;
}

/* Whether anything lies along the ray (SN_RAY_ANY): Embree's occlusion search, which stops at
** the first accepted hit. Which hit that is depends on the index's tree (its rebuilds follow
** the queries made), so only the answer is reported, never the hit: results stay a function of
** the world alone. With `embree` false the caller knows Embree would find nothing
** (rs_cull_clear): only the planes are tested. */
static void trace_any(rs_ctx *c, const prepared *r, bool embree, uint32_t i, sn_ray_result *out)
{
    const sn_rayscene *rs = c->rs;
    sn_vec3 o = r->o, d = r->d;
    double maxd = r->maxd;
    bool found = false;
    if (r->ok) {
        /* the planes first: the answer is whether anything is there, and a ray that meets the
        ** ground needs no search of the tree */
        for (size_t k = 0; k < rs->n_planes && !found; k++) {
            const rs_plane *p = &rs->planes[k];
            double t;
            sn_vec3 nn;
            found = plane_hit(p, o, d, maxd, &t, &nn) && !(c->filtered && rs_excluded(c->w, c->q, p->id, p->parent, p->tag, p->kind));
        }
        if (embree && !found) {
            struct RTCRay ray = embree_ray(o, d, maxd);
            c->any_hit = false, c->any_o = o, c->any_d = d, c->any_maxd = maxd;
            rtcOccluded1(rs->scene, (struct RTCIntersectContext *)&c->ec, &ray);
            found = ray.tfar < 0 && c->any_hit;
        }
    }
    /* Zeroed, padding too (results are compared byte for byte), from a zero result by its
    ** constant size, in place when the caller's stride is ours: a memset became `rep stos`,
    ** and the result read back after it stalled, a quarter of a settled ray's time. */
    static const sn_ray_result zero;
    sn_ray_result res, *dst = c->q->result_size == sizeof res ? &out[i] : &res;
    memcpy(dst, &zero, sizeof zero);
    dst->n_hits = dst->n_found = found;
    if (dst == &res)
        put_result(c->q, out, i, &res);
}

/* Every actor along the ray (SN_RAY_ALL), or every surface it enters (SN_RAY_EVERY). */
static void trace_all(rs_ctx *c, rs_scratch *s, const prepared *r, bool embree, uint32_t i, sn_ray_result *out)
{
    const sn_rayscene *rs = c->rs;
    const sn_ray_query *q = c->q;
    sn_vec3 o = r->o, d = r->d;
    double maxd = r->maxd;
    uint32_t n = 0;
    if (!r->ok) {
        rs_write_result(q, out, i, s->hits, 0);
        return;
    }
    s->n = 0;
    if (embree) {
        struct RTCRayHit rh;
        rh.ray = embree_ray(o, d, maxd);
        rh.hit.geomID = rh.hit.primID = rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
        rtcIntersect1(rs->scene, &c->ec, &rh);
    }

    if (!rs_reserve_hits(s, s->n + rs->n_planes))
        return;
    for (size_t k = 0; k < s->n; k++) {
        rs_rec *e = &s->recs[k];
        sn_vec3 nn;
        e->t = refine(rs_ref_actor(rs, e->ref), e->tri, o, d, e->t, &nn, &e->back);
    }
    if (s->n > 1)
        qsort(s->recs, s->n, sizeof *s->recs, rec_cmp);
    const bool every = q->mode == SN_RAY_EVERY;
    double last_t = -1; /* SN_RAY_EVERY: the actor's last hit reported */
    for (size_t k = 0; k < s->n; k++) {
        const rs_rec *e = &s->recs[k];
        bool first = !k || s->recs[k - 1].ref != e->ref; /* recs: by actor, then distance */
        if (every && !first) {
            /* the surfaces the ray enters; the way out of a solid and a second triangle
            ** through the same edge are not new surfaces */
            if (e->back || e->t - last_t < 1e-6)
                continue;
            const rs_actor *a = rs_ref_actor(rs, e->ref);
            sn_vec3 nn;
            bool back;
            double t = refine(a, e->tri, o, d, e->t, &nn, &back);
            if (t <= maxd) {
                MAKE_HIT(&s->hits[n], o, d, t, nn, a);
                s->hits[n++].semantic_tag = tri_tag(a, e->tri);
            }
            last_t = e->t;
            continue;
        }
        if (!first)
            continue; /* one hit per actor: where the ray meets it first */
        last_t = e->back ? 0 : e->t;
        const rs_actor *a = rs_ref_actor(rs, e->ref);
        sn_vec3 nn;
        bool back;
        double t = e->back ? 0 : refine(a, e->tri, o, d, e->t, &nn, &back);
        if (e->back)
            nn = sn_v3_scale(d, -1);
        if (t <= maxd) {
            MAKE_HIT(&s->hits[n], o, d, t, nn, a);
            s->hits[n++].semantic_tag = tri_tag(a, e->tri);
        }
    }
    for (size_t k = 0; k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        double t;
        sn_vec3 nn;
        if (rs_excluded(c->w, q, p->id, p->parent, p->tag, p->kind) || !plane_hit(p, o, d, maxd, &t, &nn))
            continue;
        MAKE_HIT(&s->hits[n++], o, d, t, nn, p);
    }
    rs_write_result(q, out, i, s->hits, n);
}

static void run_task(void *arg, uint32_t task)
{
    batch *b = arg;
    rs_scratch *s = &b->rs->scratch[task];
    rs_ctx c;
    rtcInitIntersectContext(&c.ec);
    c.rs = b->rs;
    c.w = b->w;
    c.q = b->q;
    c.filtered = b->q->n_ignore || b->q->tag_mask || b->q->kind_mask;
    c.all = SN_RAY_MODE_MANY(b->q->mode) ? s : NULL;
    c.any = b->q->mode == SN_RAY_ANY;
    /* Without filters, all-hits or any-hit, Embree runs alone: no callback on its hits. */
    c.ec.filter = c.filtered || c.all || c.any ? rs_filter : NULL;
    uint32_t from = task * b->per_task, to = from + b->per_task < b->n ? from + b->per_task : b->n;
    if (!c.all && !c.any) {
        trace_closest(&c, b, from, to);
        return;
    }
    uint8_t *need = b->rs->need;
    uint32_t needed = 0;
    for (uint32_t i = from; i < to && !s->oom; i++) {
        if (b->pass == PASS_NEEDED && !need[i])
            continue;
        prepared r = prepare(b, i);
        bool embree = true;
        if (b->pass == PASS_SETTLE) {
            need[i] = r.ok && !rs_cull_clear(b->cull, &r.o, &r.d, r.maxd);
            if (need[i]) { /* left for PASS_NEEDED, once the index is up to date */
                needed++;
                continue;
            }
            embree = false;
        }
        if (c.all)
            trace_all(&c, s, &r, embree, i, b->out);
        else
            trace_any(&c, &r, embree, i, b->out);
    }
    b->needed[task] = needed;
}

/* The batch's tasks on the pool (or here when there is one). */
static void run_tasks(sn_rayscene *rs, batch *b, uint32_t tasks)
{
    if (tasks == 1)
        run_task(b, 0);
    else
        sn_pool_run(rs->pool, run_task, b, tasks);
}

/* The index brought up to date for q: its static geometry alone when q leaves out every moving
** actor (rs_moving_excluded), else all of it; then the scene n rays walk (rs->scene). */
sn_status rs_sync_query(sn_rayscene *rs, const sn_world *w, double alpha, const sn_ray_query *q, uint32_t n,
                        sn_error *err)
{
    sn_status st;
    if (q->mode != SN_RAY_CLOSEST && !rs_index_current(rs, w, alpha) && rs_moving_excluded(rs, w, q))
        st = rs_sync_static(rs, w, err);
    else
        st = rs_sync_at(rs, w, alpha, false, err);
    if (!st && rs_trace_scene(rs, n) == rs->top)
        rs->dyn_rays += n; /* rays through the moving tree (scene.c DYN_REFITS) */
    return st;
}

sn_status sn_rays_trace(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *rays,
                        uint32_t n, sn_ray_result *out, sn_error *err)
{
    return sn_rays_trace_at(rs, w, 1.0, q, rays, n, out, err);
}

sn_status sn_rays_trace_at(sn_rayscene *rs, const sn_world *w, double alpha, const sn_ray_query *q,
                           const sn_ray *rays, uint32_t n, sn_ray_result *out, sn_error *err)
{
    sn_status st = rs_check_query(q, n, true, err);
    if (st)
        return st;
    if (n && (!rays || !out))
        return sn_fail(err, SN_E_INVALID, "NULL rays or results for %u rays", n);
    if (!n)
        return SN_OK;
    batch b = {rs, w, q, rays, out, n, RAYS_PER_TASK, PASS_ALL, NULL, {0}};
    uint32_t tasks = (n + RAYS_PER_TASK - 1) / RAYS_PER_TASK;
    if (tasks > RS_MAX_TASKS) { /* bigger tasks rather than more scratch */
        tasks = RS_MAX_TASKS;
        b.per_task = (n + tasks - 1) / tasks;
    }
    for (uint32_t t = 0; t < tasks; t++)
        rs->scratch[t].oom = false;
    /* Any-hit and all-hits queries: the rays the cull grid of the query's masks settles first,
    ** and the index brought up to date only for the others, if any. Closest hits go straight to
    ** Embree (their rays are cast to meet things: lidars, cameras). Where a grid settles almost
    ** nothing (a street grid of buildings: every cell holds a roof above the antennas), its
    ** test is skipped for the next CULL_SKIP batches of its masks. */
    rs_cull *cull = q->mode != SN_RAY_CLOSEST && !rs->no_cull ? rs_cull_of(rs, q) : NULL;
    if (cull && cull->skip) {
        cull->skip--;
        cull = NULL;
    }
    if (cull) {
        if ((st = rs_sync_cull(rs, w, alpha, cull, err)))
            return st;
        if (!sn_grow((void **)&rs->need, &rs->cap_need, n, 1))
            return sn_fail(err, SN_E_NOMEM, "ray queries: out of memory for %u rays", n);
        b.pass = PASS_SETTLE;
        b.cull = cull;
        run_tasks(rs, &b, tasks);
        uint32_t needed = 0;
        for (uint32_t t = 0; t < tasks; t++)
            needed += b.needed[t];
        rs->settled += n - needed;
        if (n >= 64 && 16 * (uint64_t)(n - needed) < n)
            cull->skip = CULL_SKIP;
        b.pass = PASS_NEEDED;
        if (needed && !(st = rs_sync_query(rs, w, alpha, q, needed, err)))
            run_tasks(rs, &b, tasks);
    } else if (!(st = rs_sync_query(rs, w, alpha, q, n, err))) {
        run_tasks(rs, &b, tasks);
    }
    if (st)
        return st;
    for (uint32_t t = 0; t < tasks; t++)
        if (rs->scratch[t].oom)
            return sn_fail(err, SN_E_NOMEM, "ray queries: out of memory while collecting hits");
    return SN_OK;
}
