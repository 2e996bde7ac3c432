/* trace_one.h — one ray's pieces shared by the full (trace.c) and the compact (trace_compact.c)
** closest-hit paths: Embree's ray, the double-precision refinement of a hit on its triangle, the
** ground planes, the filter's context. Inline: they run once per ray. */
#ifndef SN_QUERY_TRACE_ONE_H
#define SN_QUERY_TRACE_ONE_H

#include "internal.h"

#include <stddef.h>
#include <string.h>
#include <sensim/search.h>

/* The intersect context Embree hands back to the filter (rs_filter): our state rides behind it. */
typedef struct rs_ctx {
    struct RTCIntersectContext ec;
    const sn_rayscene *rs;
    const sn_world *w;
    const sn_ray_query *q;
    bool filtered;
    rs_scratch *all; /* SN_RAY_ALL: where every hit goes */
    bool any;        /* SN_RAY_ANY: whether a hit stopped the search */
    bool any_hit;
    sn_vec3 any_o, any_d; /* the ray, for a hit at the very end of its reach */
    double any_maxd;
} rs_ctx;

/* The hit recomputed in double precision on its triangle: distance, outward normal facing the
** ray, and whether the ray leaves the shape there. p0 and n as rs_tri_plane makes them;
** inv is rs_tri_inv(n), kept in the triangle's record or made here. */
static inline double refine_at(sn_vec3 p0, sn_vec3 n, double inv, sn_vec3 o, sn_vec3 d, double t_float,
                                sn_vec3 *normal, bool *back)
{
    double dn = sn_v3_dot(n, d);
    double t = dn != 0 ? sn_v3_dot(n, sn_v3_sub(p0, o)) / dn : t_float;
    if (!isfinite(t) || fabs(t - t_float) > 1e-3 * (1 + fabs(t_float)))
        t = t_float; /* a sliver seen edge-on: keep Embree's */
    *back = dn > 0;
    n = sn_v3_scale(n, inv); /* sn_v3_norm(n), bit for bit */
    *normal = dn > 0 ? sn_v3_scale(n, -1) : n;
    return t < 0 ? 0 : t;
}

static inline double refine(const rs_actor *a, uint32_t tri, sn_vec3 o, sn_vec3 d, double t_float, sn_vec3 *normal,
                            bool *back)
{
    sn_vec3 p0, n;
    rs_tri_plane(a, tri, &p0, &n);
    return refine_at(p0, n, rs_tri_inv(n), o, d, t_float, normal, back);
}

static inline void resolve(const sn_rayscene *rs, unsigned geom, unsigned prim, uint32_t *ref, uint32_t *tri)
{
    if (geom == 0 && prim >= rs->n_stat_t) /* the one tree's moving triangles (rayscene.h) */
        geom = 1, prim -= rs->n_stat_t;
    if (geom == 0) {
        uint32_t k = rs->stat_prim[prim];
        *ref = k;
        *tri = prim - rs->stat_first[k];
    } else {
        uint32_t k = rs->dyn_prim[prim];
        *ref = (uint32_t)rs->n_sact + k;
        *tri = prim - rs->dyn_first[k];
    }
}

/* The record (internal.h rs_stri) of the triangle a hit names: a static one's, or a moving one's
** while rs->mov_tri is current (*moving set); NULL when there is none (the hit then reads its
** actor's vertices, the same bits). */
static inline const rs_stri *hit_rec(const sn_rayscene *rs, unsigned geom, unsigned prim, bool *moving)
{
    if (geom == 0 && prim < rs->n_stat_t) {
        *moving = false;
        return rs->stat_tri ? &rs->stat_tri[prim] : NULL;
    }
    *moving = true;
    return rs->mov_ok ? &rs->mov_tri[geom == 0 ? prim - rs->n_stat_t : prim] : NULL;
}

/* Embree's RTCHitN / RTCRayN layouts (their accessors are C++ only). */
#define HITN_PRIM(h, N, i) (((const unsigned *)(h))[5 * (N) + (i)])
#define HITN_GEOM(h, N, i) (((const unsigned *)(h))[6 * (N) + (i)])
#define RAYN_TFAR(r, N, i) (((const float *)(r))[8 * (N) + (i)])

/* Embree's single-precision ray for o + t d, t in [0, maxd]. */
static inline struct RTCRay embree_ray(sn_vec3 o, sn_vec3 d, double maxd)
{
    struct RTCRay r;
    r.org_x = (float)o.x, r.org_y = (float)o.y, r.org_z = (float)o.z;
    r.dir_x = (float)d.x, r.dir_y = (float)d.y, r.dir_z = (float)d.z;
    r.tnear = 0, r.time = 0;
    r.tfar = maxd < 1e30 ? (float)maxd : 1e30f;
    r.mask = ~0u, r.id = 0, r.flags = 0;
    return r;
}

#define MAKE_HIT(h, o, d, t, n, a) RS_HIT_OF(h, t, (t) > 0 ? sn_v3_add(o, sn_v3_scale(d, t)) : (o), n, a)
#define MAKE_HIT_ZEROED(h, o, d, t, n, a) RS_HIT_ZEROED_OF(h, t, (t) > 0 ? sn_v3_add(o, sn_v3_scale(d, t)) : (o), n, a)
/* MAKE_HIT_ZEROED for a still actor (rs_still): every field but the velocity, which stays +0. */
#define MAKE_HIT_STILL_ZEROED(h, o, d, t, n, a)                                      \
    do {                                                                           \
        (h)->struct_size = sizeof *(h);                                            \
        (h)->distance = (t);                                                       \
        (h)->point = (t) > 0 ? sn_v3_add(o, sn_v3_scale(d, t)) : (o);              \
        (h)->normal = (n);                                                         \
        (h)->actor_id = (a)->id;                                                   \
        (h)->semantic_tag = (a)->tag;                                              \
        (h)->reflectivity = (a)->refl;                                             \
    } while (0)

/* The tag of triangle tri of actor a: a model's rider parts are Rider (shapes.h sn_material_tag). */
static uint8_t tri_tag(const rs_actor *a, uint32_t tri)
{
    const sn_mesh *m = a->mesh;
    if (!a->model || !m->parts)
        return a->tag;
    /* the last part starting at or before tri */
    uint32_t lo =
        (uint32_t)sn_search_last_u32(m->parts, m->n_parts, sizeof *m->parts, offsetof(sn_mesh_part, first), tri);
    return sn_material_tag((sn_material)m->parts[lo].material, a->tag);
}

/* A ground plane along the ray: below it (inside the half-space) is distance 0. */
static inline bool plane_hit(const rs_plane *p, sn_vec3 o, sn_vec3 d, double maxd, double *t, sn_vec3 *n)
{
    double s = sn_v3_dot(p->n, o) - p->d, dn = sn_v3_dot(p->n, d);
    if (s < 0) {
        *t = 0;
        *n = sn_v3_scale(d, -1);
        return true;
    }
    if (!(dn < 0))
        return false;
    *t = s / -dn;
    *n = p->n;
    return *t <= maxd;
}

/* Rays handed to Embree at once in the closest-hit mode (rtcIntersect1M, coherent): Embree's
** stream API groups them into packets of like direction and walks the tree once per packet,
** which pays where rays are coherent (a lidar's rays, a camera's tile: one origin). A stream's answer is the
** same closest hit as rtcIntersect1's: the triangle tests are the same, and every distance,
** point and normal is recomputed in double precision from the triangle Embree reports (see
** tests/unit/test_rays.c: stream against one ray at a time). */
#define STREAM 64
/* Hits ahead whose actor is fetched while one is finished. */
#define PREFETCH_AHEAD 8

/* A closest-hit ray as prepared: origin, unit direction and reach (maxd < 0: a ray that can
** hit nothing, rs_ray_prepare). */
typedef struct cray {
    sn_vec3 o, d;
    double maxd;
} cray;

/* The double at p, which may be unaligned (the caller's stride). */
static inline double load_f64(const char *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The ray at src (an sn_ray) prepared into *c: rs_ray_prepare's test and arithmetic, inline.
** Its fields are read one by one: a copy into a local sn_ray and the reads back from it stalled
** on store forwarding, a fifth of a ray's own time (perf). */
static inline void load_ray(const char *src, cray *c)
{
    _Static_assert(sizeof(sn_ray) == 7 * sizeof(double) && offsetof(sn_ray, direction) == 3 * sizeof(double) &&
                   offsetof(sn_ray, max_distance) == 6 * sizeof(double), "sn_ray is seven doubles");
    sn_vec3 o = {load_f64(src), load_f64(src + 8), load_f64(src + 16)};
    sn_vec3 d = {load_f64(src + 24), load_f64(src + 32), load_f64(src + 40)};
    double maxd = load_f64(src + 48);
    c->o = o;
    c->d = sn_v3(0, 0, 0);
    c->maxd = -1;
    if (rs_origin_ok(o) && isfinite(d.x + d.y + d.z) && maxd > 0) {
        double l = sn_v3_len(d);
        if (l > 0 && isfinite(l)) {
            c->d = sn_v3_scale(d, 1 / l);
            c->maxd = maxd;
        }
    }
}

/* The ray at src prepared into *c and Embree's ray for it into *rh, or an inactive one
** (tnear > tfar) for a ray that can hit nothing. */
static inline void stream_ray(const char *src, cray *c, struct RTCRayHit *rh)
{
    load_ray(src, c);
    if (c->maxd >= 0)
        rh->ray = embree_ray(c->o, c->d, c->maxd);
    else
        rh->ray = embree_ray(sn_v3(0, 0, 0), sn_v3(1, 0, 0), 1), rh->ray.tnear = 1, rh->ray.tfar = 0;
    rh->hit.geomID = rh->hit.primID = rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}

/* trace.c: Embree's filter for every query: the query's filters, and the hits all-hits and
** any-hit queries collect (context: an rs_ctx). */
void rs_filter(const struct RTCFilterFunctionNArguments *args);

/* trace.c: the index brought up to date for q and n rays (rs->scene: the scene they walk). */
sn_status rs_sync_query(sn_rayscene *rs, const sn_world *w, double alpha, const sn_ray_query *q, uint32_t n,
                        sn_error *err);

#endif
