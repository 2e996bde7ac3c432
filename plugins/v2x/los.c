/*
** los.c — line of sight of every candidate pair in two ray batches on the host's worker pool.
**
** CARLA walks the hits between the antennas nearest first: a vehicle makes the link NLOSv
** (and is a knife-edge obstacle), anything else makes it NLOSb and stops. The outcome does not
** depend on the order: NLOSb iff anything but a vehicle (or an endpoint's own actor) lies
** between, else NLOSv iff a vehicle does. So batch 1 asks each ray whether any non-vehicle lies
** on it (SN_RAY_ANY: an occlusion search, stopping at the first found); batch 2 asks only the
** rays still clear for every vehicle along them. A batch has one ignore list, so the endpoints'
** own actors are filtered here: a blocked ray from or to a station on a pole, prop or walker is
** traced again alone, ignoring both endpoints (SN_RAY_ANY does not say what it met).
*/
#include "medium.h"

#include <math.h>
#include <string.h>
#include <sensim/search.h>

#define MAX_VEHICLE_HITS 8
/* Rays traced per batch call: their rays, results and hits stay in the cache (at 1 000 cars,
** one call for all 245 000 rays spent most of its time writing 25 MB of results to memory). */
#define CHUNK 4096

static bool endpoint(const sn_v2x_station *a, const sn_v2x_station *b, uint32_t id)
{
    return id && (id == a->parent_id || id == b->parent_id);
}

/* A station riding on a prop, pole or walker: batch 1 may be stopped by its own actor. */
static bool seen_by_batch1(const sn_v2x_station *s)
{
    return s->parent_id && (s->parent_kind == SN_ACTOR_STATIC || s->parent_kind == SN_ACTOR_WALKER);
}

static sn_ray ray_of(const sn_v2x_station *t, const sn_v2x_station *r, double d)
{
    sn_ray ray;
    ray.origin = t->pos;
    ray.direction = (sn_vec3){r->pos.x - t->pos.x, r->pos.y - t->pos.y, r->pos.z - t->pos.z};
    ray.max_distance = d;
    return ray;
}

static bool buffers(sn_v2x_medium *m, uint32_t n, uint32_t hits)
{
    uint32_t c1 = m->cap_rays, c2 = m->cap_rays, c3 = m->cap_rays, c4 = m->cap_rays;
    bool ok = sn_grow_array32((void **)&m->rays, &c1, n, sizeof *m->rays) &&
              sn_grow_array32((void **)&m->res, &c2, n, sizeof *m->res) &&
              sn_grow_array32((void **)&m->ray_pair, &c3, n, sizeof *m->ray_pair) &&
              sn_grow_array32((void **)&m->ray_recv, &c4, n, sizeof *m->ray_recv);
    if (ok)
        m->cap_rays = n > m->cap_rays ? n : m->cap_rays; /* each grew to n at least */
    return ok && sn_grow_array32((void **)&m->hits, &m->cap_hits, hits, sizeof *m->hits);
}

/* Batch 1's ray of pair k met an endpoint's own static actor or walker: trace it alone without them. */
static sn_status retrace_blocked(sn_v2x_medium *m, uint32_t k, uint32_t rcv, const sn_ray *ray, bool *blocked)
{
    const sn_v2x_station *t = m->order[m->senders[k]], *r = m->order[rcv];
    uint32_t ignore[2] = {t->parent_id, r->parent_id};
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.ignore_ids = ignore, q.n_ignore = 2;
    q.kind_mask = (1u << SN_ACTOR_STATIC) | (1u << SN_ACTOR_WALKER);
    sn_ray_result res;
    memset(&res, 0, sizeof res);
    res.hit.struct_size = sizeof res.hit;
    sn_status st = m->host->ray_batch(m->ctx, &q, ray, 1, &res);
    m->rays_cast++;
    *blocked = res.n_hits > 0;
    return st;
}

/* Knife-edge losses of the vehicles on pair k's hit list (endpoints' own vehicles skipped). */
static sn_status obstacles(sn_v2x_medium *m, uint32_t k, uint32_t rcv, const sn_ray_hit *hits, uint32_t n)
{
    const sn_v2x_station *t = m->order[m->senders[k]], *r = m->order[rcv];
    double ref0 = fmin(t->ground, r->ground);
    double lambda = r->radio.lambda;
    for (uint32_t i = 0; i < n; i++) {
        if (endpoint(t, r, hits[i].actor_id))
            continue;
        sn_actor_info a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        if (m->host->actor_get(m->ctx, hits[i].actor_id, &a) != SN_OK)
            continue;
        /* h: the vehicle's top above the lower antenna's ground; d1, d2 horizontal (CARLA). */
        double h = a.transform.location.z + a.bounding_box.location.z + a.bounding_box.extent.z - ref0;
        sn_vec3 v = a.transform.location;
        double d1 = hypot(v.x - t->pos.x, v.y - t->pos.y), d2 = hypot(r->pos.x - v.x, r->pos.y - v.y);
        /* The largest over the obstacles, from 0 (CARLA's max, not a sum). */
        if (m->los[k] != SN_V2X_NLOSV)
            m->los[k] = SN_V2X_NLOSV, m->ke[k] = 0;
        m->ke[k] = fmax(m->ke[k], sn_v2x_knife_edge(h, d1, d2, lambda));
    }
    return SN_OK;
}

#ifdef SN_V2X_CARLA_METHOD
/* The benchmark's baseline, CARLA's PathLossModel: one multi-hit trace per ordered pair, one
** after the other, walking the hits nearest first (a vehicle: NLOSv, go on; else NLOSb, stop). */
static sn_status carla_classify(sn_v2x_medium *m)
{
    enum { MAXH = 64 };
    if (!sn_grow_array32((void **)&m->hits, &m->cap_hits, MAXH, sizeof *m->hits))
        return SN_E_NOMEM;
    for (uint32_t i = 0, rcv = 0; i < m->n_pairs; i++) {
        while (m->r_start[rcv + 1] <= i)
            rcv++;
        const sn_v2x_station *t = m->order[m->senders[i]], *r = m->order[rcv];
        uint32_t ignore[2] = {t->parent_id, r->parent_id};
        sn_ray_query q = SN_RAY_QUERY_INIT;
        q.mode = SN_RAY_ALL, q.ignore_ids = ignore, q.n_ignore = 2, q.hits = m->hits, q.max_hits = MAXH;
        for (uint32_t k = 0; k < MAXH; k++)
            m->hits[k].struct_size = sizeof(sn_ray_hit);
        sn_ray ray = ray_of(t, r, m->dist[i]);
        sn_ray_result res;
        memset(&res, 0, sizeof res);
        res.hit.struct_size = sizeof res.hit;
        sn_status st = m->host->ray_batch(m->ctx, &q, &ray, 1, &res);
        if (st)
            return st;
        m->rays_cast++;
        m->los[i] = SN_V2X_LOS;
        for (uint32_t k = 0; k < res.n_hits; k++) {
            sn_actor_info a;
            memset(&a, 0, sizeof a);
            a.struct_size = sizeof a;
            if (m->host->actor_get(m->ctx, m->hits[k].actor_id, &a) == SN_OK && a.kind == SN_ACTOR_VEHICLE) {
                obstacles(m, i, rcv, &m->hits[k], 1);
                continue;
            }
            m->los[i] = SN_V2X_NLOSB;
            break;
        }
    }
    return SN_OK;
}
#endif

static sn_status trace(sn_v2x_medium *m, uint32_t n, bool batch0, uint32_t *clear0);

/* Pairs of the same two antennas both ways (both sent this frame) share one ray: the line of
** sight is the same segment and the knife-edge loss is symmetric in d1, d2, so with equal
** wavelengths one pair copies the other's class and loss. mirror[i] = the pair traced for pair
** i, or UINT32_MAX: the one sent by the lower station index, as the ray starts at its sender.
** Pair t -> x (t > x) finds x -> t in t's group, which is in sender order: at the first sender
** >= x there, read by a cursor that only moves forward as x grows. Receivers are split as
** find_pairs split them, each task's cursors starting where its first receiver's would be. */
static void mirrors_task(void *arg, uint32_t task)
{
    sn_v2x_medium *m = arg;
    sn_v2x_pair_task *pt = &m->pt[task];
    uint32_t x0 = task * m->pair_per, x1 = x0 + m->pair_per < m->n_st ? x0 + m->pair_per : m->n_st;
    if ((pt->oom = !sn_grow_array32((void **)&pt->cursor, &pt->cap_cursor, m->n_st, sizeof *pt->cursor)))
        return;
    uint32_t *cursor = pt->cursor;
    for (uint32_t t = 0; t < m->n_st; t++) { /* the first sender >= x0 in t's group */
        uint32_t lo = m->r_start[t];
        lo += (uint32_t)sn_search_u32(m->senders + lo, m->r_start[t + 1] - lo, sizeof *m->senders, 0, x0);
        cursor[t] = lo;
    }
    for (uint32_t x = x0; x < x1; x++) {
        bool sends = m->order[x]->tx_count > 0;
        double lambda = m->order[x]->radio.lambda;
        for (uint32_t l = m->r_start[x]; l < m->r_start[x + 1]; l++) {
            uint32_t t = m->senders[l], c = cursor[t], end = m->r_start[t + 1];
            m->mirror[l] = UINT32_MAX;
            if (!sends || t < x)
                continue;
            while (c < end && m->senders[c] < x)
                c++;
            cursor[t] = c;
            if (c < end && m->senders[c] == x && m->order[t]->radio.lambda == lambda)
                m->mirror[l] = c;
        }
    }
}

static bool find_mirrors(sn_v2x_medium *m)
{
    uint32_t cap = m->cap_mirror;
    if (!sn_grow_array32((void **)&m->mirror, &cap, m->n_pairs, sizeof *m->mirror))
        return false;
    m->cap_mirror = cap;
    if (sn_v2x_run_tasks(m, mirrors_task, m, m->pair_tasks))
        return false;
    for (uint32_t t = 0; t < m->pair_tasks; t++)
        if (m->pt[t].oom)
            return false;
    return true;
}

/* Receivers of one find_pairs task: the mirrored pairs copy their traced twin's class and loss. */
static void copy_task(void *arg, uint32_t task)
{
    sn_v2x_medium *m = arg;
    uint32_t x0 = task * m->pair_per, x1 = x0 + m->pair_per < m->n_st ? x0 + m->pair_per : m->n_st;
    for (uint32_t i = m->r_start[x0]; i < m->r_start[x1]; i++) {
        uint32_t k = m->mirror[i];
        if (k != UINT32_MAX && (m->los[i] = m->los[k]) == SN_V2X_NLOSV)
            m->ke[i] = m->ke[k];
    }
}

sn_status sn_v2x_los_classify(sn_v2x_medium *m)
{
#ifdef SN_V2X_CARLA_METHOD
    return carla_classify(m);
#endif
    uint32_t n = m->n_pairs;
    if (!n)
        return SN_OK;
    if (!buffers(m, CHUNK, CHUNK * MAX_VEHICLE_HITS) || !find_mirrors(m))
        return SN_E_NOMEM;
    /* Batch 0 (see trace) this frame, unless it found fewer than half the links clear within
    ** the last 8 frames. */
    bool batch0 = !m->skip_batch0;
    m->skip_batch0 -= !batch0;
    uint32_t traced = 0, total = 0, clear0 = 0;
    sn_status st = SN_OK;
    memset(m->los, SN_V2X_LOS, n);
    for (uint32_t r = 0; r < m->n_st && !st; r++)
        for (uint32_t i = m->r_start[r]; i < m->r_start[r + 1] && !st; i++)
            if (m->mirror[i] == UINT32_MAX) {
                m->ray_pair[traced] = i, m->ray_recv[traced] = r;
                m->rays[traced++] = ray_of(m->order[m->senders[i]], m->order[r], m->dist[i]);
                if (traced == CHUNK)
                    st = trace(m, traced, batch0, &clear0), total += traced, traced = 0;
            }
    if (traced && !st)
        st = trace(m, traced, batch0, &clear0), total += traced;
    if (batch0)
        m->skip_batch0 = 2 * (uint64_t)clear0 < total ? 8 : 0;
    return st ? st : sn_v2x_run_tasks(m, copy_task, m, m->pair_tasks);
}

/* Classifies the pairs of rays [0, n): ray k is pair ray_pair[k]'s, into station ray_recv[k]. With batch0, adds the links
** it found wholly clear to *clear0. */
static sn_status trace(sn_v2x_medium *m, uint32_t n, bool batch0, uint32_t *clear0)
{
    const sn_host *h = m->host;
    sn_ray_query q = SN_RAY_QUERY_INIT;
    q.mode = SN_RAY_ANY;
    /* Batch 0, while most links are wholly clear: anything at all between the antennas? A link
    ** with nothing on it is LOS, found by one occlusion search instead of two; the others go on
    ** to batches 1 and 2. The answers are the same either way (nothing of any kind on the
    ** segment is nothing static and no vehicle), so this choice moves only time. */
    if (batch0) {
        sn_status st = h->ray_batch(m->ctx, &q, m->rays, n, m->res);
        if (st)
            return st;
        m->rays_cast += n;
        uint32_t left = 0;
        for (uint32_t k = 0; k < n; k++)
            if (m->res[k].n_hits > 0)
                m->ray_pair[left] = m->ray_pair[k], m->ray_recv[left] = m->ray_recv[k], m->rays[left++] = m->rays[k];
        *clear0 += n - left;
        n = left;
    }
    if (!n)
        return SN_OK;
    /* Batch 1: any building, prop, ground or walker between the antennas (the search stops at
    ** the first one it finds). */
    q.kind_mask = (1u << SN_ACTOR_STATIC) | (1u << SN_ACTOR_WALKER);
    sn_status st = h->ray_batch(m->ctx, &q, m->rays, n, m->res);
    if (st)
        return st;
    m->rays_cast += n;
    uint32_t clear = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = m->ray_pair[k], rcv = m->ray_recv[k];
        bool blocked = m->res[k].n_hits > 0;
        if (blocked && (seen_by_batch1(m->order[m->senders[i]]) || seen_by_batch1(m->order[rcv])) &&
            (st = retrace_blocked(m, i, rcv, &m->rays[k], &blocked)))
            return st;
        if (blocked)
            m->los[i] = SN_V2X_NLOSB;
        else
            m->ray_pair[clear] = i, m->ray_recv[clear] = rcv, m->rays[clear++] = m->rays[k];
    }
    if (!clear)
        return SN_OK;
    /* Batch 2: every vehicle along the clear rays. The host writes every result and the hits
    ** it found whole: nothing to clear first (2 M hit slots at 1 000 stations, mostly unused). */
    q.mode = SN_RAY_ALL;
    q.kind_mask = 1u << SN_ACTOR_VEHICLE;
    q.hits = m->hits, q.max_hits = MAX_VEHICLE_HITS;
    if ((st = h->ray_batch(m->ctx, &q, m->rays, clear, m->res)))
        return st;
    m->rays_cast += clear;
    for (uint32_t k = 0; k < clear; k++) {
        uint32_t i = m->ray_pair[k], rcv = m->ray_recv[k];
        const sn_ray_result *res = &m->res[k];
        if (res->n_found <= res->n_hits) {
            obstacles(m, i, rcv, &m->hits[k * MAX_VEHICLE_HITS], res->n_hits);
            continue;
        }
        /* More vehicles than the buffer holds: this ray again with room for all of them,
        ** in the space of the rays already done (k + 1 rays' worth at least). */
        uint32_t need = res->n_found;
        sn_ray ray = m->rays[k];
        if (!sn_grow_array32((void **)&m->hits, &m->cap_hits, clear * MAX_VEHICLE_HITS + need, sizeof *m->hits))
            return SN_E_NOMEM;
        sn_ray_hit *extra = &m->hits[clear * MAX_VEHICLE_HITS];
        for (uint32_t j = 0; j < need; j++)
            extra[j].struct_size = sizeof(sn_ray_hit);
        sn_ray_query q1 = q;
        q1.hits = extra, q1.max_hits = need;
        sn_ray_result r1;
        memset(&r1, 0, sizeof r1);
        r1.hit.struct_size = sizeof r1.hit;
        if ((st = h->ray_batch(m->ctx, &q1, &ray, 1, &r1)))
            return st;
        m->rays_cast++;
        obstacles(m, i, rcv, extra, r1.n_hits);
    }
    return SN_OK;
}
