/* sweep.c — sphere sweeps and overlaps: candidates from a point query over the actors' boxes,
** then exact tests in double precision against each candidate's collision shape (its triangles;
** vehicles and walkers: their boxes, internal.h rs_sync_boxes) and the planes. */
#include "internal.h"

#include "../core/util.h"

#include <float.h>
#include <string.h>

/* Closest point of triangle abc to p (Ericson, Real-Time Collision Detection 5.1.5). */
static sn_vec3 closest_on_tri(sn_vec3 p, sn_vec3 a, sn_vec3 b, sn_vec3 c)
{
    sn_vec3 ab = sn_v3_sub(b, a), ac = sn_v3_sub(c, a), ap = sn_v3_sub(p, a);
    double d1 = sn_v3_dot(ab, ap), d2 = sn_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0)
        return a;
    sn_vec3 bp = sn_v3_sub(p, b);
    double d3 = sn_v3_dot(ab, bp), d4 = sn_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3)
        return b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0)
        return sn_v3_add(a, sn_v3_scale(ab, d1 / (d1 - d3)));
    sn_vec3 cp = sn_v3_sub(p, c);
    double d5 = sn_v3_dot(ab, cp), d6 = sn_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6)
        return c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0)
        return sn_v3_add(a, sn_v3_scale(ac, d2 / (d2 - d6)));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
        return sn_v3_add(b, sn_v3_scale(sn_v3_sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6))));
    double den = 1 / (va + vb + vc);
    return sn_v3_add(a, sn_v3_add(sn_v3_scale(ab, vb * den), sn_v3_scale(ac, vc * den)));
}

/* Triangles [from, to) of a convex piece: is p behind every face? */
static bool inside_convex(const rs_actor *a, uint32_t from, uint32_t to, sn_vec3 p)
{
    for (uint32_t t = from; t < to; t++) {
        sn_vec3 p0 = rs_vertex(a, t, 0), p1 = rs_vertex(a, t, 1), p2 = rs_vertex(a, t, 2);
        if (sn_v3_dot(sn_v3_cross(sn_v3_sub(p1, p0), sn_v3_sub(p2, p0)), sn_v3_sub(p, p0)) > 0)
            return false;
    }
    return true;
}

/* A unit mesh is convex; a model (shapes.h) is a union of convex parts. */
static bool inside(const rs_actor *a, sn_vec3 p)
{
    if (a->open)
        return false; /* a piece of road: a surface, not a solid */
    const sn_mesh *m = a->mesh;
    if (!m->parts)
        return inside_convex(a, 0, m->n_t, p);
    for (uint32_t k = 0; k < m->n_parts; k++)
        if (m->parts[k].count && inside_convex(a, m->parts[k].first, m->parts[k].first + m->parts[k].count, p))
            return true;
    return false;
}

static double box_dist2(const rs_actor *a, sn_vec3 p)
{
    double c[3] = {p.x, p.y, p.z}, s = 0;
    for (int i = 0; i < 3; i++) {
        double e = c[i] < a->lo[i] ? a->lo[i] - c[i] : c[i] > a->hi[i] ? c[i] - a->hi[i] : 0;
        s += e * e;
    }
    return s;
}

/* Does the segment o + t d, t in [0, maxd], pass within r of the actor's box? (slab test) */
static bool segment_near_box(const rs_actor *a, sn_vec3 o, sn_vec3 d, double maxd, double r)
{
    double oo[3] = {o.x, o.y, o.z}, dd[3] = {d.x, d.y, d.z}, t0 = 0, t1 = maxd;
    for (int i = 0; i < 3; i++) {
        double lo = a->lo[i] - r, hi = a->hi[i] + r;
        if (dd[i] == 0) {
            if (oo[i] < lo || oo[i] > hi)
                return false;
            continue;
        }
        double ta = (lo - oo[i]) / dd[i], tb = (hi - oo[i]) / dd[i];
        if (ta > tb) {
            double s = ta;
            ta = tb, tb = s;
        }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1)
            return false;
    }
    return true;
}

/* Earliest t in (0, maxd] at which a ball of radius r centred at o + t d touches the point
** set {p + s e, s in [0, len]} (an edge; len 0: a vertex). */
static bool sweep_edge(sn_vec3 o, sn_vec3 d, double r, sn_vec3 p, sn_vec3 e, double len, double *t, sn_vec3 *at)
{
    sn_vec3 m = sn_v3_sub(o, p);
    double de = len > 0 ? sn_v3_dot(d, e) : 0, me = len > 0 ? sn_v3_dot(m, e) : 0;
    double A = 1 - de * de, B = sn_v3_dot(m, d) - me * de, C = sn_v3_dot(m, m) - me * me - r * r;
    double disc = B * B - A * C;
    if (A < 1e-12 || disc < 0)
        return false;
    double tt = (-B - sqrt(disc)) / A;
    double s = me + tt * de;
    if (!(tt >= 0 && tt < *t) || s < 0 || s > len)
        return false;
    *t = tt;
    *at = sn_v3_add(p, sn_v3_scale(e, s));
    return true;
}

/* First contact of the swept ball with one actor: false when none within maxd. */
static bool sweep_actor(const rs_actor *a, sn_vec3 o, sn_vec3 d, double maxd, double r, double *t_out,
                        sn_vec3 *contact)
{
    if (inside(a, o)) {
        *t_out = 0, *contact = o;
        return true;
    }
    double best = maxd;
    bool found = false;
    for (uint32_t k = 0; k < a->mesh->n_t; k++) {
        sn_vec3 v[3] = {rs_vertex(a, k, 0), rs_vertex(a, k, 1), rs_vertex(a, k, 2)};
        sn_vec3 cp = closest_on_tri(o, v[0], v[1], v[2]);
        sn_vec3 dv = sn_v3_sub(o, cp);
        if (sn_v3_dot(dv, dv) <= r * r) { /* touching already */
            *t_out = 0, *contact = cp;
            return true;
        }
        /* the face, moved out by r toward the ball's side */
        sn_vec3 n = sn_v3_norm(sn_v3_cross(sn_v3_sub(v[1], v[0]), sn_v3_sub(v[2], v[0])));
        double s0 = sn_v3_dot(n, sn_v3_sub(o, v[0])), dn = sn_v3_dot(n, d);
        double side = s0 >= 0 ? 1 : -1;
        if (side * dn < 0) {
            double tt = (side * r - s0) / dn;
            sn_vec3 c = sn_v3_sub(sn_v3_add(o, sn_v3_scale(d, tt)), sn_v3_scale(n, side * r));
            sn_vec3 cc = closest_on_tri(c, v[0], v[1], v[2]);
            sn_vec3 g = sn_v3_sub(c, cc);
            if (tt >= 0 && tt < best && sn_v3_dot(g, g) <= 1e-18 * (1 + sn_v3_dot(c, c))) {
                best = tt, *contact = cc, found = true;
            }
        }
        for (int j = 0; j < 3; j++) {
            sn_vec3 ed = sn_v3_sub(v[(j + 1) % 3], v[j]);
            double len = sn_v3_len(ed);
            if (len > 0 && sweep_edge(o, d, r, v[j], sn_v3_scale(ed, 1 / len), len, &best, contact))
                found = true;
            if (sweep_edge(o, d, r, v[j], d, 0, &best, contact))
                found = true;
        }
    }
    *t_out = best;
    return found;
}

typedef struct cand {
    sn_rayscene *rs;
    rs_scratch *s;
    uint32_t stamp;
} cand;

static bool collect(struct RTCPointQueryFunctionArguments *args)
{
    cand *c = args->userPtr;
    uint32_t ref = args->primID;
    if (ref < rs_n_refs(c->rs) && c->rs->stamp[ref] != c->stamp) {
        c->rs->stamp[ref] = c->stamp;
        rs_scratch *s = c->s;
        if (sn_grow((void **)&s->recs, &s->cap, s->n + 1, sizeof *s->recs))
            s->recs[s->n++] = (rs_rec){ref, 0, 0, false};
        else
            s->oom = true;
    }
    return false;
}

/* Actors whose boxes meet the ball (p, radius), into rs->scratch[0].recs. */
static void candidates(sn_rayscene *rs, sn_vec3 p, double radius)
{
    rs_scratch *s = &rs->scratch[0];
    s->n = 0;
    if (!rs_n_refs(rs))
        return;
    if (++rs->stamp_now == 0) { /* wrapped: forget every mark */
        memset(rs->stamp, 0, rs_n_refs(rs) * sizeof *rs->stamp);
        rs->stamp_now = 1;
    }
    cand c = {rs, s, rs->stamp_now};
    struct RTCPointQuery pq;
    pq.x = (float)p.x, pq.y = (float)p.y, pq.z = (float)p.z;
    pq.radius = radius < 1e30 ? nextafterf((float)radius, FLT_MAX) : 1e30f;
    pq.time = 0;
    struct RTCPointQueryContext pc;
    rtcInitPointQueryContext(&pc);
    rtcPointQuery(rs->bounds, &pq, &pc, collect, &c);
}

sn_status sn_sweep_sphere(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *ray,
                          double radius, sn_ray_result *out, sn_error *err)
{
    sn_status st = rs_check_query(q, 1, true, err);
    if (st)
        return st;
    if (!ray || !out)
        return sn_fail(err, SN_E_INVALID, "sweep_sphere: NULL ray or result");
    if (!(radius >= 0) || !isfinite(radius))
        return sn_fail(err, SN_E_INVALID, "sweep_sphere: radius %g is not a finite number >= 0", radius);
    if ((st = rs_sync_boxes(rs, w, err)))
        return st;
    sn_ray r;
    memcpy(&r, ray, sizeof r);
    sn_vec3 o = r.origin, d;
    double maxd;
    rs_scratch *s = &rs->scratch[0];
    s->oom = false;
    if (!rs_ray_prepare(&r, &d, &maxd)) {
        rs_write_result(q, out, 0, s->hits, 0);
        return SN_OK;
    }
    if (maxd > 1e9)
        maxd = 1e9; /* beyond any world sensim accepts (1000 km) */
    candidates(rs, sn_v3_add(o, sn_v3_scale(d, maxd / 2)), maxd / 2 + radius);
    if (s->oom || !rs_reserve_hits(s, s->n + rs->n_planes))
        return sn_fail(err, SN_E_NOMEM, "sweep_sphere: out of memory");
    uint32_t n = 0;
    for (size_t k = 0; k < s->n; k++) {
        rs_actor box;
        const rs_actor *a = rs_collision_box(rs_ref_actor(rs, s->recs[k].ref), &box);
        double t;
        sn_vec3 c;
        if (rs_excluded(w, q, a->id, a->parent, a->tag, a->kind) || !segment_near_box(a, o, d, maxd, radius) ||
            !sweep_actor(a, o, d, maxd, radius, &t, &c))
            continue;
        sn_vec3 n_ = sn_v3_sub(sn_v3_add(o, sn_v3_scale(d, t)), c);
        n_ = sn_v3_len(n_) > 1e-12 ? sn_v3_norm(n_) : sn_v3_scale(d, -1);
        RS_HIT_OF(&s->hits[n++], t, c, n_, a);
    }
    for (size_t k = 0; k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        if (rs_excluded(w, q, p->id, p->parent, p->tag, p->kind))
            continue;
        double s0 = sn_v3_dot(p->n, o) - p->d, dn = sn_v3_dot(p->n, d), t;
        if (s0 <= radius)
            t = 0;
        else if (dn < 0 && (t = (s0 - radius) / -dn) <= maxd)
            ;
        else
            continue;
        sn_vec3 c = sn_v3_add(o, sn_v3_scale(d, t));
        c = sn_v3_sub(c, sn_v3_scale(p->n, sn_v3_dot(p->n, c) - p->d));
        RS_HIT_OF(&s->hits[n++], t, c, p->n, p);
    }
    if (!SN_RAY_MODE_MANY(q->mode) && n > 1) { /* keep the first (SN_RAY_ANY: the nearest is as good as any) */
        uint32_t b = 0;
        for (uint32_t k = 1; k < n; k++)
            if (s->hits[k].distance < s->hits[b].distance ||
                (s->hits[k].distance == s->hits[b].distance && s->hits[k].actor_id < s->hits[b].actor_id))
                b = k;
        s->hits[0] = s->hits[b];
        n = 1;
    }
    rs_write_result(q, out, 0, s->hits, n);
    return SN_OK;
}

static int id_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

sn_status sn_overlap_sphere(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, sn_vec3 centre,
                            double radius, uint32_t *ids, uint32_t cap, uint32_t *n_found, sn_error *err)
{
    sn_status st = q ? rs_check_query(q, 0, false, err) : SN_OK;
    if (st)
        return st;
    if (!n_found || (cap && !ids))
        return sn_fail(err, SN_E_INVALID, "overlap_sphere: NULL n_found, or NULL ids with cap %u", cap);
    if (!isfinite(centre.x + centre.y + centre.z) || !(radius >= 0) || !isfinite(radius))
        return sn_fail(err, SN_E_INVALID, "overlap_sphere: centre and radius must be finite, radius >= 0 (got %g)",
                       radius);
    *n_found = 0;
    if (!rs_origin_ok(centre)) /* a finite centre past what the index can hold: nothing there */
        return SN_OK;
    if ((st = rs_sync_boxes(rs, w, err)))
        return st;
    rs_scratch *s = &rs->scratch[0];
    s->oom = false;
    candidates(rs, centre, radius);
    /* the ids found go to hits[].actor_id (scratch), sorted, then to the caller */
    if (s->oom || !rs_reserve_hits(s, s->n + rs->n_planes))
        return sn_fail(err, SN_E_NOMEM, "overlap_sphere: out of memory");
    uint32_t n = 0, *found = (uint32_t *)s->hits; /* sn_ray_hit is larger than an id */
    bool seen_map = false;
    for (size_t k = 0; k < s->n; k++) {
        rs_actor box;
        const rs_actor *a = rs_collision_box(rs_ref_actor(rs, s->recs[k].ref), &box);
        if (rs_excluded(w, q, a->id, a->parent, a->tag, a->kind) || box_dist2(a, centre) > radius * radius)
            continue;
        bool hit = inside(a, centre);
        for (uint32_t t = 0; !hit && t < a->mesh->n_t; t++) {
            sn_vec3 g = sn_v3_sub(centre, closest_on_tri(centre, rs_vertex(a, t, 0), rs_vertex(a, t, 1),
                                                         rs_vertex(a, t, 2)));
            hit = sn_v3_dot(g, g) <= radius * radius;
        }
        /* the map (id 0) is many chunks: listed once */
        if (hit && !(a->id == 0 && a->open && seen_map))
            found[n++] = a->id, seen_map |= a->id == 0 && a->open;
    }
    for (size_t k = 0; k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        if (!rs_excluded(w, q, p->id, p->parent, p->tag, p->kind) && sn_v3_dot(p->n, centre) - p->d <= radius)
            found[n++] = p->id;
    }
    qsort(found, n, sizeof *found, id_cmp);
    if (cap)
        memcpy(ids, found, (n < cap ? n : cap) * sizeof *ids);
    *n_found = n;
    return SN_OK;
}

/* ---- overlaps with distances (ABI 1.6): nearest first, optionally inside a cone ---- */

static int near_cmp(const void *a, const void *b)
{
    const sn_ray_hit *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return (x->actor_id > y->actor_id) - (x->actor_id < y->actor_id);
}

/* Whether p lies in the cone (apex, unit axis, cos of the half angle); the apex itself does. */
static bool in_cone(sn_vec3 apex, const sn_vec3 *axis, double cos_half, sn_vec3 p)
{
    sn_vec3 v = sn_v3_sub(p, apex);
    double l = sn_v3_len(v);
    return !axis || l < 1e-12 || sn_v3_dot(v, *axis) >= cos_half * l;
}

sn_status sn_overlap_near(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, sn_vec3 centre, double radius,
                          const sn_vec3 *axis, double half_angle_deg, sn_overlap *out, uint32_t stride, uint32_t cap,
                          uint32_t *n_found, sn_error *err)
{
    const char *what = axis ? "overlap_cone" : "overlap_sphere_nearest";
    sn_status st = q ? rs_check_query(q, 0, false, err) : SN_OK;
    if (st)
        return st;
    if (!n_found || (cap && !out) || stride < sizeof(sn_overlap))
        return sn_fail(err, SN_E_INVALID, "%s: NULL n_found, NULL out with cap %u, or overlap_size %u below %zu", what,
                       cap, stride, sizeof(sn_overlap));
    if (!isfinite(centre.x + centre.y + centre.z) || !(radius >= 0) || !isfinite(radius))
        return sn_fail(err, SN_E_INVALID, "%s: centre and %s must be finite, >= 0 (got %g)", what,
                       axis ? "range" : "radius", radius);
    sn_vec3 ax = {0, 0, 0};
    double cos_half = -1;
    if (axis) {
        double l = sn_v3_len(*axis);
        if (!isfinite(l) || l < 1e-12)
            return sn_fail(err, SN_E_INVALID, "overlap_cone: the axis must be a finite non-zero vector");
        if (!(half_angle_deg > 0 && half_angle_deg <= 180))
            return sn_fail(err, SN_E_INVALID, "overlap_cone: half angle %g deg is outside (0, 180]", half_angle_deg);
        ax = sn_v3_scale(*axis, 1 / l);
        cos_half = cos(half_angle_deg * SN_DEG);
    }
    *n_found = 0;
    if (!rs_origin_ok(centre))
        return SN_OK;
    if ((st = rs_sync_boxes(rs, w, err)))
        return st;
    rs_scratch *s = &rs->scratch[0];
    s->oom = false;
    candidates(rs, centre, radius);
    if (s->oom || !rs_reserve_hits(s, s->n + rs->n_planes))
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", what);
    uint32_t n = 0;
    int map_at = -1; /* the map's chunks are one actor: its nearest point over them all */
    for (size_t k = 0; k < s->n; k++) {
        rs_actor box;
        const rs_actor *a = rs_collision_box(rs_ref_actor(rs, s->recs[k].ref), &box);
        if (rs_excluded(w, q, a->id, a->parent, a->tag, a->kind) || box_dist2(a, centre) > radius * radius)
            continue;
        double best = INFINITY;
        sn_vec3 at = centre;
        if (inside(a, centre))
            best = 0;
        for (uint32_t t = 0; best > 0 && t < a->mesh->n_t; t++) {
            sn_vec3 c = closest_on_tri(centre, rs_vertex(a, t, 0), rs_vertex(a, t, 1), rs_vertex(a, t, 2));
            sn_vec3 g = sn_v3_sub(centre, c);
            double d2 = sn_v3_dot(g, g);
            if (d2 < best)
                best = d2, at = c;
        }
        best = sqrt(best);
        if (!(best <= radius) || !in_cone(centre, axis ? &ax : NULL, cos_half, at))
            continue;
        sn_ray_hit h = {.distance = best, .point = at, .actor_id = a->id, .semantic_tag = a->tag};
        if (a->id == 0 && a->open) {
            if (map_at >= 0) {
                if (best < s->hits[map_at].distance)
                    s->hits[map_at] = h;
                continue;
            }
            map_at = (int)n;
        }
        s->hits[n++] = h;
    }
    for (size_t k = 0; k < rs->n_planes; k++) {
        const rs_plane *p = &rs->planes[k];
        double h0 = sn_v3_dot(p->n, centre) - p->d;
        if (rs_excluded(w, q, p->id, p->parent, p->tag, p->kind) || h0 > radius)
            continue;
        sn_vec3 at = h0 <= 0 ? centre : sn_v3_sub(centre, sn_v3_scale(p->n, h0));
        if (in_cone(centre, axis ? &ax : NULL, cos_half, at))
            s->hits[n++] = (sn_ray_hit){.distance = h0 <= 0 ? 0 : h0, .point = at, .actor_id = p->id,
                                        .semantic_tag = p->tag};
    }
    qsort(s->hits, n, sizeof *s->hits, near_cmp);
    for (uint32_t k = 0; k < n && k < cap; k++) {
        sn_overlap o = {s->hits[k].actor_id, s->hits[k].semantic_tag, s->hits[k].distance, s->hits[k].point};
        memcpy((char *)out + (size_t)k * stride, &o, sizeof o);
    }
    *n_found = n;
    return SN_OK;
}
