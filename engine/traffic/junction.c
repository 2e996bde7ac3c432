/* junction.c — the conflict areas of the junctions' connecting lanes and the claims on them. */
#include "junction.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE 1.0     /* m between the points of a connector's centre line */
#define MAIN_NEAR 12.0 /* m: a main-stream vehicle nearer its merge area than this is not cut in front of */
#define STARVE 5.0     /* s: a minor-stream vehicle ready this long is let in by the main stream */

typedef struct poly {
    sn_vec3 *p;
    double *s; /* along the connector from its start */
    uint32_t n;
    double lo_x, lo_y, hi_x, hi_y;
} poly;

static int conn_cmp(const void *x, const void *y)
{
    const sn_jconn *a = x, *b = y;
    if (a->road_id != b->road_id)
        return a->road_id < b->road_id ? -1 : 1;
    return (a->lane_id > b->lane_id) - (a->lane_id < b->lane_id);
}

static int conf_cmp(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y; /* owner first, then other: the build's pair records */
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* The centre line of lane `lane` of road ri in its direction of travel, every SAMPLE m. */
static bool sample(const sn_map *m, int32_t ri, int lane, poly *out)
{
    const sn_odr_road *r = &m->odr->roads[ri];
    uint32_t cap = (uint32_t)ceil(r->length / SAMPLE) + 2;
    out->p = malloc(cap * sizeof *out->p);
    out->s = malloc(cap * sizeof *out->s);
    out->n = 0;
    if (!out->p || !out->s)
        return false;
    int dir = sn_map_lane_dir(r, lane);
    for (uint32_t k = 0; k < cap; k++) {
        double d = fmin(k * SAMPLE, r->length);
        double s = dir > 0 ? d : r->length - d;
        uint32_t si = sn_odr_section_at(r, s, dir < 0 ? false : true);
        if (!sn_odr_lane_of(&r->sections[si], lane))
            continue;
        sn_waypoint w;
        sn_map_make_waypoint(m, (sn_lanekey){ri, si, lane}, s, &w);
        out->p[out->n] = w.transform.location;
        out->s[out->n++] = d;
        if (d >= r->length)
            break;
    }
    out->lo_x = out->lo_y = INFINITY;
    out->hi_x = out->hi_y = -INFINITY;
    for (uint32_t k = 0; k < out->n; k++) {
        out->lo_x = fmin(out->lo_x, out->p[k].x), out->hi_x = fmax(out->hi_x, out->p[k].x);
        out->lo_y = fmin(out->lo_y, out->p[k].y), out->hi_y = fmax(out->hi_y, out->p[k].y);
    }
    return out->n >= 2;
}

/* The stretch [*a, *b] of a's samples nearer than SN_JX_CONFLICT to polyline b; false when none. */
static bool near_range(const poly *pa, const poly *pb, double *a, double *b)
{
    bool any = false;
    for (uint32_t k = 0; k < pa->n; k++) {
        sn_vec3 q = pa->p[k];
        if (q.x < pb->lo_x - SN_JX_CONFLICT || q.x > pb->hi_x + SN_JX_CONFLICT || q.y < pb->lo_y - SN_JX_CONFLICT ||
            q.y > pb->hi_y + SN_JX_CONFLICT)
            continue;
        double best = INFINITY;
        for (uint32_t i = 0; i + 1 < pb->n; i++) {
            double dx = pb->p[i + 1].x - pb->p[i].x, dy = pb->p[i + 1].y - pb->p[i].y, l2 = dx * dx + dy * dy;
            double u = l2 > 1e-12 ? ((q.x - pb->p[i].x) * dx + (q.y - pb->p[i].y) * dy) / l2 : 0;
            u = u < 0 ? 0 : u > 1 ? 1 : u;
            double ex = pb->p[i].x + u * dx - q.x, ey = pb->p[i].y + u * dy - q.y;
            best = fmin(best, ex * ex + ey * ey);
        }
        if (best < SN_JX_CONFLICT * SN_JX_CONFLICT && fabs(pa->p[k].z - pb->p[0].z) < 4.0) {
            if (!any)
                *a = pa->s[k];
            *b = pa->s[k];
            any = true;
        }
    }
    return any;
}

/* The lane a connector leaves: its predecessor against the direction of travel. */
static void incoming(const sn_odr *o, const sn_odr_road *r, int lane, int32_t *road, int32_t *in_lane)
{
    *road = -1, *in_lane = 0;
    int dir = sn_map_lane_dir(r, lane);
    const sn_odr_section *sec = &r->sections[dir > 0 ? 0 : r->n_sections - 1];
    const sn_odr_lane *l = sn_odr_lane_of(sec, lane);
    const sn_odr_link *lk = dir > 0 ? &r->pred : &r->succ;
    if (!l || lk->elem != SN_ODR_ELEM_ROAD || lk->index < 0)
        return;
    if (dir > 0 ? !l->has_pred : !l->has_succ)
        return;
    *road = o->roads[lk->index].id;
    *in_lane = dir > 0 ? l->pred : l->succ;
}

static double wrap_deg(double d)
{
    d = fmod(d, 360.0);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

/* Heading change along a connector, degrees (CARLA's axes: a left turn is negative). */
static double bend(const poly *p)
{
    return wrap_deg(atan2(p->p[p->n - 1].y - p->p[p->n - 2].y, p->p[p->n - 1].x - p->p[p->n - 2].x) / SN_DEG -
                    atan2(p->p[1].y - p->p[0].y, p->p[1].x - p->p[0].x) / SN_DEG);
}

/* Priority of a over b where they merge (their conflict areas reach both their ends): the
** straighter one is the main stream (a roundabout's ring, the through road); else none. */
static int merge_prio(const poly *pa, const poly *pb, double a1, double b1)
{
    double la = pa->s[pa->n - 1], lb = pb->s[pb->n - 1];
    if (a1 < la - 1.5 || b1 < lb - 1.5)
        return 0;
    double ta = fabs(bend(pa)), tb = fabs(bend(pb));
    return ta + 10 < tb ? 1 : tb + 10 < ta ? -1 : 0;
}

/* OpenDRIVE's <priority high low/> of junction j for connecting roads a and b: +1 a goes first,
** -1 b does, 0 no record. */
static int record_prio(const sn_odr_junction *j, int32_t a, int32_t b)
{
    for (uint32_t k = 0; k < j->n_priorities; k++) {
        if (j->priorities[k][0] == a && j->priorities[k][1] == b)
            return 1;
        if (j->priorities[k][0] == b && j->priorities[k][1] == a)
            return -1;
    }
    return 0;
}

/* Every driving lane of the junctions' roads as a connector (j->conn, once each) with its
** centre line sampled into (*pl)[k]; false when out of memory. */
static bool add_connectors(const sn_map *m, sn_junctions *j, poly **pl, size_t *pcap)
{
    const sn_odr *o = m->odr;
    size_t cap = 0;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        if (r->junction_index < 0)
            continue;
        /* every driving lane id of the road, once */
        for (uint32_t si = 0; si < r->n_sections; si++)
            for (uint32_t li = 0; li < r->sections[si].n_lanes; li++) {
                const sn_odr_lane *l = &r->sections[si].lanes[li];
                if (l->id == 0 || l->type != SN_LANE_DRIVING)
                    continue;
                bool seen = false;
                for (uint32_t k = 0; k < j->n_conn && !seen; k++)
                    seen = j->conn[k].road_id == r->id && j->conn[k].lane_id == l->id;
                if (seen)
                    continue;
                if (!sn_grow((void **)&j->conn, &cap, j->n_conn + 1, sizeof *j->conn) ||
                    !sn_grow((void **)pl, pcap, j->n_conn + 1, sizeof **pl))
                    return false;
                poly *p = &(*pl)[j->n_conn];
                memset(p, 0, sizeof *p);
                if (!sample(m, (int32_t)ri, l->id, p)) {
                    bool oom = !p->p || !p->s;
                    free(p->p), free(p->s);
                    if (oom)
                        return false;
                    continue;
                }
                sn_jconn *c = &j->conn[j->n_conn++];
                memset(c, 0, sizeof *c);
                c->road_id = r->id, c->lane_id = l->id, c->junction = r->junction_index;
                c->length = p->s[p->n - 1];
                incoming(o, r, l->id, &c->in_road, &c->in_lane);
                double dy = bend(p);
                c->turn = dy < -30 ? -1 : dy > 30 ? 1 : 0; /* CARLA's axes: a left turn lowers the yaw */
            }
    }
    return true;
}

/* The records of conflicts, rec[k] = {owner, other} with zone[2k..2k+1] on other and the
** owner's priority prio[k], into each connector's list (j->conf sorted by owner, c->first, c->n);
** false when out of memory. */
static bool store_conflicts(sn_junctions *j, uint32_t (*rec)[2], const double *zone, const int *prio, size_t nrec)
{
    uint32_t (*key)[3] = malloc(nrec * sizeof *key);
    j->conf = malloc(nrec * sizeof *j->conf);
    if (!key || !j->conf) {
        free(key);
        return false;
    }
    /* sort indices by owner, then gather */
    for (size_t k = 0; k < nrec; k++)
        key[k][0] = rec[k][0], key[k][1] = rec[k][1], key[k][2] = (uint32_t)k;
    qsort(key, nrec, sizeof *key, conf_cmp);
    for (size_t k = 0; k < nrec; k++) {
        sn_jconn *c = &j->conn[key[k][0]];
        if (!c->n)
            c->first = (uint32_t)k;
        c->n++;
        const int pr = prio[key[k][2]];
        j->conf[k] = (sn_jconf){key[k][1], zone[2 * key[k][2]], zone[2 * key[k][2] + 1], pr > 1 ? 1 : pr < -1 ? -1 : pr,
                                pr == 2 || pr == -2};
    }
    j->n_conf = (uint32_t)nrec;
    free(key);
    return true;
}

/* Conflicts: pairs of connectors of one junction whose centre lines (pl) come near, each pair
** recorded for both with the zone on the other and who goes first; false when out of memory. */
static bool find_conflicts(const sn_odr *o, sn_junctions *j, const poly *pl)
{
    uint32_t (*rec)[2] = NULL;
    int *prio = NULL;
    double *zone = NULL;
    size_t rcap = 0, zcap = 0, pcap = 0, nrec = 0;
    bool ok = true;
    for (uint32_t a = 0; ok && a < j->n_conn; a++)
        for (uint32_t b = a + 1; ok && b < j->n_conn; b++) {
            const sn_jconn *ca = &j->conn[a], *cb = &j->conn[b];
            if (ca->junction != cb->junction)
                continue;
            if (ca->in_road >= 0 && ca->in_road == cb->in_road && ca->in_lane == cb->in_lane)
                continue; /* one queue: the leader rule orders them */
            const poly *pa = &pl[a], *pb = &pl[b];
            if (pa->lo_x > pb->hi_x + SN_JX_CONFLICT || pb->lo_x > pa->hi_x + SN_JX_CONFLICT ||
                pa->lo_y > pb->hi_y + SN_JX_CONFLICT || pb->lo_y > pa->hi_y + SN_JX_CONFLICT)
                continue;
            double a0, a1, b0, b1;
            if (!near_range(pa, pb, &a0, &a1) || !near_range(pb, pa, &b0, &b1))
                continue;
            if (!sn_grow((void **)&rec, &rcap, nrec + 2, sizeof *rec) ||
                !sn_grow((void **)&zone, &zcap, 2 * (nrec + 2), sizeof *zone) ||
                !sn_grow((void **)&prio, &pcap, nrec + 2, sizeof *prio)) {
                ok = false;
                break;
            }
            /* for a: the zone on b; for b: the zone on a. The junction's <priority> records
            ** decide where they name the pair; else a merge's straighter stream. */
            int pr = record_prio(&o->junctions[ca->junction], ca->road_id, cb->road_id);
            if (!pr)
                pr = 2 * merge_prio(pa, pb, a1, b1); /* +-2: a merge's streams (the exit rule below) */
            prio[nrec] = pr, prio[nrec + 1] = -pr;
            rec[nrec][0] = a, rec[nrec][1] = b, zone[2 * nrec] = b0, zone[2 * nrec + 1] = b1, nrec++;
            rec[nrec][0] = b, rec[nrec][1] = a, zone[2 * nrec] = a0, zone[2 * nrec + 1] = a1, nrec++;
        }
    if (ok && nrec)
        ok = store_conflicts(j, rec, zone, prio, nrec);
    free(rec);
    free(zone);
    free(prio);
    return ok;
}

/* Sorts the connectors for lookup (their conflict lists travel with them) and renumbers the
** conflicts' `other`; false when out of memory. */
static bool sort_connectors(sn_junctions *j)
{
    uint32_t n = j->n_conn ? j->n_conn : 1;
    uint32_t *order = malloc(n * sizeof *order);
    sn_jconn *sorted = malloc(n * sizeof *sorted);
    if (!order || !sorted) {
        free(order), free(sorted);
        return false;
    }
    if (j->n_conn) { /* a map without junctions has no connectors (j->conn NULL: memcpy's UB) */
        memcpy(sorted, j->conn, j->n_conn * sizeof *sorted);
        qsort(sorted, j->n_conn, sizeof *sorted, conn_cmp);
    }
    for (uint32_t k = 0; k < j->n_conn; k++) {
        sn_jconn *c = bsearch(&j->conn[k], sorted, j->n_conn, sizeof *sorted, conn_cmp); /* (road, lane) is unique */
        order[k] = (uint32_t)(c - sorted);
    }
    for (uint32_t k = 0; k < j->n_conf; k++)
        j->conf[k].other = order[j->conf[k].other];
    free(j->conn);
    j->conn = sorted;
    free(order);
    return true;
}

sn_junctions *sn_junctions_build(const sn_map *m)
{
    const sn_odr *o = m->odr;
    sn_junctions *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->n_junctions = o->n_junctions;
    j->claims = calloc(o->n_junctions ? o->n_junctions : 1, sizeof *j->claims);
    poly *pl = NULL;
    size_t pcap = 0;
    bool ok = j->claims != NULL && add_connectors(m, j, &pl, &pcap) && find_conflicts(o, j, pl);
    for (uint32_t k = 0; k < j->n_conn; k++)
        free(pl[k].p), free(pl[k].s);
    free(pl);
    if (!ok || !sort_connectors(j)) {
        sn_junctions_free(j);
        return NULL;
    }
    return j;
}

void sn_junctions_free(sn_junctions *j)
{
    if (!j)
        return;
    for (uint32_t k = 0; j->claims && k < j->n_junctions; k++)
        free(j->claims[k].c);
    free(j->claims);
    free(j->conn);
    free(j->conf);
    free(j);
}

int32_t sn_jx_conn(const sn_junctions *j, int32_t road_id, int32_t lane_id)
{
    sn_jconn key = {.road_id = road_id, .lane_id = lane_id};
    const sn_jconn *c = j->n_conn ? bsearch(&key, j->conn, j->n_conn, sizeof *j->conn, conn_cmp) : NULL;
    return c ? (int32_t)(c - j->conn) : -1;
}

sn_jclaim *sn_jx_claim(sn_junctions *j, int32_t jn, uint32_t actor, bool create)
{
    if (jn < 0 || (uint32_t)jn >= j->n_junctions)
        return NULL;
    sn_jlist *l = &j->claims[jn];
    for (uint32_t k = 0; k < l->n; k++)
        if (l->c[k].actor == actor)
            return &l->c[k];
    if (!create)
        return NULL;
    size_t cap = l->cap;
    if (!sn_grow((void **)&l->c, &cap, l->n + 1, sizeof *l->c))
        return NULL;
    l->cap = (uint32_t)cap;
    sn_jclaim *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    c->actor = actor;
    return c;
}

void sn_jx_release(sn_junctions *j, int32_t jn, uint32_t actor)
{
    if (jn < 0 || (uint32_t)jn >= j->n_junctions)
        return;
    sn_jlist *l = &j->claims[jn];
    for (uint32_t k = 0; k < l->n; k++)
        if (l->c[k].actor == actor) {
            memmove(&l->c[k], &l->c[k + 1], (l->n - k - 1) * sizeof *l->c); /* keeps the order: deterministic */
            l->n--;
            return;
        }
}

void sn_jx_purge(sn_junctions *j, uint64_t before)
{
    for (uint32_t jn = 0; jn < j->n_junctions; jn++) {
        sn_jlist *l = &j->claims[jn];
        uint32_t w = 0;
        for (uint32_t k = 0; k < l->n; k++)
            if (l->c[k].frame >= before)
                l->c[w++] = l->c[k];
        l->n = w;
    }
}

/* How x's passage meets y's: 0 no conflict; else 2 + the priority of x over y (1, 2 or 3) and,
** in *held, whether y's rear has not yet left an area it shares with x; *ahead: how far y's front
** still is from the nearest such area (< 0 once in it). */
static int meet(const sn_junctions *j, const sn_jclaim *x, const sn_jclaim *y, bool *held, double *ahead)
{
    int r = 0;
    *held = false;
    *ahead = INFINITY;
    for (uint32_t a = 0; a < x->n_conn; a++) {
        const sn_jconn *cx = &j->conn[x->conn[a]];
        for (uint32_t k = cx->first; k < cx->first + cx->n; k++)
            for (uint32_t b = 0; b < y->n_conn; b++) {
                if (j->conf[k].other != y->conn[b])
                    continue;
                if (!r || j->conf[k].prio < r - 2)
                    r = 2 + j->conf[k].prio; /* the least favourable for x */
                double at = y->front - y->off[b]; /* y's front along that connector */
                if (at - y->len < j->conf[k].b + 0.5)
                    *held = true;
                *ahead = fmin(*ahead, j->conf[k].a - at);
            }
    }
    return r;
}

bool sn_jx_may_enter(const sn_junctions *j, int32_t jn, const sn_jclaim *x, uint32_t *blocker)
{
    const sn_jlist *l = &j->claims[jn];
    /* Starvation (a roundabout's entry under a dense ring, a side road onto a busy main road):
    ** a minor-stream vehicle ready for STARVE s no longer waits for main-stream vehicles that
    ** have not entered (are not granted), and those wait for it; the granted ones still pass
    ** first, so a gap forms behind them and it merges into it. */
    const bool x_starving = x->ready && !x->granted && j->now - x->ready_since > STARVE;
    for (uint32_t k = 0; k < l->n; k++) {
        const sn_jclaim *y = &l->c[k];
        if (y == x || y->actor == x->actor)
            continue;
        bool held;
        double ahead;
        int r = meet(j, x, y, &held, &ahead);
        if (!r)
            continue;
        bool first = y->ticket < x->ticket || (y->ticket == x->ticket && y->actor < x->actor);
        /* r - 2: x's priority over y. The main stream is yielded to once it is within MAIN_NEAR of
        ** the area they share (a gap in it farther than that is taken). */
        const bool y_starving = y->ready && !y->granted && j->now - y->ready_since > STARVE;
        bool yields = r == 2   ? y->ready && first
                      : r == 1 ? y->ready && ahead < MAIN_NEAR && !x_starving
                               : y_starving;
        if ((y->granted && held) || (!y->granted && yields)) {
            *blocker = y->actor;
            return false;
        }
    }
    return true;
}

/* ---- A vehicle at a junction ---- */

#define TURN_PENALTY 2.0 /* s: a left turn yields to oncoming traffic arriving within this after it */
#define REQUEST 12.0     /* m beyond the comfortable stopping distance where a vehicle claims the junction */

/* Metres from the start of a waypoint's lane (in its direction of travel) to it. */
static double from_lane_start(const sn_map *m, const sn_pathwp *w)
{
    int32_t ri = sn_odr_road_index(m->odr, w->road_id);
    if (ri < 0)
        return 0;
    const sn_odr_road *r = &m->odr->roads[ri];
    return sn_map_lane_dir(r, w->lane_id) > 0 ? w->s : r->length - w->s;
}

void sn_jx_passage(const sn_junctions *j, const sn_map *m, const sn_pathwp *path, const double *along, uint32_t n,
                   sn_jpass *p)
{
    memset(p, 0, sizeof *p);
    p->junction = -1;
    uint32_t i = 0;
    while (i < n && !path[i].is_junction)
        i++;
    if (i >= n)
        return;
    int32_t c0 = sn_jx_conn(j, path[i].road_id, path[i].lane_id);
    if (c0 < 0)
        return;
    p->junction = j->conn[c0].junction;
    p->turn = j->conn[c0].turn;
    p->entry = along[i] - from_lane_start(m, &path[i]);
    for (; i < n && path[i].is_junction; i++) {
        int32_t c = sn_jx_conn(j, path[i].road_id, path[i].lane_id);
        if (c < 0 || j->conn[c].junction != p->junction)
            break;
        if (p->n_conn && p->conn[p->n_conn - 1] == (uint32_t)c)
            continue;
        if (p->n_conn == SN_JX_MAXC)
            break;
        p->conn[p->n_conn] = (uint32_t)c;
        p->off[p->n_conn++] = along[i] - from_lane_start(m, &path[i]) - p->entry;
        for (uint32_t k = j->conn[c].first; k < j->conn[c].first + j->conn[c].n; k++)
            p->minor |= j->conf[k].merge && j->conf[k].prio < 0, p->main |= j->conf[k].merge && j->conf[k].prio > 0;
    }
    p->i_exit = i;
    p->exit = p->entry;
    if (p->n_conn)
        p->exit = p->entry + p->off[p->n_conn - 1] + j->conn[p->conn[p->n_conn - 1]].length;
}

static void fill(sn_jclaim *cl, const sn_jpass *p, double front, double len, uint64_t frame)
{
    cl->n_conn = p->n_conn;
    memcpy(cl->conn, p->conn, sizeof cl->conn);
    memcpy(cl->off, p->off, sizeof cl->off);
    cl->front = front;
    cl->len = len;
    cl->frame = frame;
}

double sn_jx_vehicle(const sn_jctx *c, const sn_jpass *p, sn_mapdrive *md, uint32_t *blocker)
{
    sn_junctions *j = c->j;
    j->now = c->now;
    const double len = 2 * c->half_len;
    *blocker = 0;
    /* The junction it is in or leaving: progress, and release once its rear is out. */
    if (md->jx_in >= 0) {
        bool same = p->junction == md->jx_in && p->entry <= c->half_len;
        md->jx_front = same ? c->half_len - p->entry : md->jx_front + c->v * c->dt;
        sn_jclaim *cl = sn_jx_claim(j, md->jx_in, c->actor, true);
        if (md->jx_front - len > md->jx_len + 0.5) {
            sn_jx_release(j, md->jx_in, c->actor);
            md->jx_in = -1;
        } else if (cl) {
            if (same)
                fill(cl, p, md->jx_front, len, c->frame);
            cl->front = md->jx_front;
            cl->frame = c->frame;
            cl->granted = cl->ready = true;
        }
        if (same)
            return INFINITY;
    }
    if (p->junction < 0 || !p->n_conn)
        return INFINITY;
    const double room = p->entry - c->half_len; /* front bumper to the entry */
    if (room <= 0) {
        /* Inside (entered, or started there): it holds the junction until its rear is out. */
        if (md->jx_in >= 0 && md->jx_in != p->junction)
            sn_jx_release(j, md->jx_in, c->actor);
        md->jx_in = p->junction;
        md->jx_front = -room;
        md->jx_len = p->exit - p->entry;
        sn_jclaim *cl = sn_jx_claim(j, p->junction, c->actor, true);
        if (cl) {
            fill(cl, p, md->jx_front, len, c->frame);
            cl->granted = cl->ready = true;
        }
        return INFINITY;
    }
    if (room > c->v * c->v / (2 * 3.0) + REQUEST) {
        sn_jx_release(j, p->junction, c->actor);
        return INFINITY;
    }
    bool fresh = !sn_jx_claim(j, p->junction, c->actor, false);
    sn_jclaim *cl = sn_jx_claim(j, p->junction, c->actor, true);
    if (!cl)
        return INFINITY; /* out of memory: it drives as before */
    if (fresh)
        cl->ticket = c->now + (p->turn < 0 ? TURN_PENALTY : 0);
    fill(cl, p, -room, len, c->frame);
    const bool ready = !c->held && !c->queued && c->exit_free;
    if (ready && !cl->ready)
        cl->ready_since = c->now;
    cl->ready = ready;
    /* Too fast to stop before the entry (a slow creep past the stop point still stops in time). */
    bool can_stop = c->v < 2.0 || room > c->v * c->v / (2 * c->a_hard);
    if (cl->granted && c->held && can_stop)
        cl->granted = false; /* a light turned: it gives its place back while it waits */
    if (cl->granted)
        return INFINITY;
    if (cl->ready) {
        uint32_t b = 0;
        if (sn_jx_may_enter(j, p->junction, cl, &b) || c->now < md->override_until) {
            cl->granted = true;
            return INFINITY;
        }
        *blocker = b;
    }
    if (c->held && can_stop)
        return INFINITY; /* the light or sign holds it at its own line */
    if (!can_stop && !c->held) {
        cl->granted = true; /* too late to stop: the others see it and wait */
        return INFINITY;
    }
    return p->entry;
}
