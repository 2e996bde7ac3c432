/* leader.c — the frame's grid of bodies (vehicles and walkers, sorted by cell) and the leader
** search on it: the nearest body ahead in a path's corridor, and for the lane-change gap checks
** the nearest behind. The map autopilot (traffic.c) asks it; walkers.c reads the grid. */
#include "traffic_int.h"

#include "../core/util.h"
#include "../sim/engine.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <sensim/search.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static int key_cmp(const void *x, const void *y)
{
    const bodyk *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static inline bool key_before(const bodyk *a, const bodyk *b)
{
    return a->key < b->key || (a->key == b->key && a->id < b->id);
}

/* t->k sorted by cell then id. A body keeps its cell for many frames, so the last frame's order
** is nearly this one's: an insertion sort moves the few that changed cells (linear, where qsort
** was n log n), with qsort when more moved than a few per body. Ids are unique, so the order is
** total and both give the one sorted order: the grid is the same, byte for byte. */
static void sort_keys(bodyk *k, size_t n)
{
    size_t moves = 0, budget = 4 * n + 64;
    for (size_t i = 1; i < n; i++) {
        if (!key_before(&k[i], &k[i - 1]))
            continue;
        const bodyk x = k[i];
        size_t j = i;
        do
            k[j] = k[j - 1], j--, moves++;
        while (j > 0 && key_before(&x, &k[j - 1]));
        k[j] = x;
        if (moves > budget) {
            qsort(k, n, sizeof *k, key_cmp);
            return;
        }
    }
}

/* The column index (sn_traffic_first): for each x cell from the least body's to the greatest,
** where its bodies start. None (a search of the whole grid) when the bodies spread over more
** columns than a few per body. */
static bool build_columns(struct sn_traffic *t)
{
    t->n_col = 0;
    if (!t->n)
        return true;
    const uint64_t h0 = t->k[0].key >> 32, h1 = t->k[t->n - 1].key >> 32;
    if (h1 - h0 > 4 * (uint64_t)t->n + 256)
        return true;
    const size_t nc = (size_t)(h1 - h0) + 1;
    if (!sn_grow((void **)&t->col, &t->cap_col, nc + 1, sizeof *t->col))
        return false;
    size_t j = 0;
    for (size_t c = 0; c <= nc; c++) {
        while (j < t->n && (t->k[j].key >> 32) - h0 < c)
            j++;
        t->col[c] = (uint32_t)j;
    }
    t->col_h0 = h0, t->n_col = nc;
    return true;
}

/* The bodies as the last frame left them, sorted by cell then id. */
bool sn_traffic_grid_build(struct sn_traffic *t, const sn_world *w)
{
    const size_t n = w->n_bodies;
    t->n_col = 0;
    if (n >= UINT32_MAX || !sn_grow((void **)&t->b, &t->cap, n + 1, sizeof *t->b) ||
        !sn_grow((void **)&t->k, &t->cap_k, n + 1, sizeof *t->k))
        return false;
    if (t->n_k != n) /* bodies came or went: start again from the world's order */
        for (size_t i = 0; i < n; i++)
            t->k[i].src = (uint32_t)i;
    t->n_k = n;
    for (size_t i = 0; i < n; i++) {
        /* the actors are cache misses at hundreds of vehicles: fetched ahead */
        if (i + 4 < n)
            __builtin_prefetch(&w->bodies[t->k[i + 4].src]->st.pos);
        const sn_actor *a = w->bodies[t->k[i].src];
        t->k[i].key = sn_traffic_key(sn_traffic_cell(a->st.pos.x), sn_traffic_cell(a->st.pos.y));
        t->k[i].id = a->id;
    }
    sort_keys(t->k, n);
    t->n = 0;
    t->ext_max = 0;
    for (size_t i = 0; i < n; i++) {
        const sn_actor *a = w->bodies[t->k[i].src];
        if (i + 2 < n)
            __builtin_prefetch(w->bodies[t->k[i + 2].src]->ph);
        body *b = &t->b[t->n++];
        b->a = a;
        b->id = a->id;
        b->kind = (uint8_t)a->kind;
        b->down = a->down;
        b->ext = a->ph->bbox.extent;
        t->ext_max = fmax(t->ext_max, b->ext.x + b->ext.y);
        b->pos = a->st.pos;
        b->vel = a->st.vel;
        sn_mat3 m = sn_mat3_from_quat(a->st.rot);
        b->fwd = sn_mat3_col(&m, 0);
        b->right = sn_mat3_col(&m, 1);
        b->key = t->k[i].key;
    }
    if (!sn_grow((void **)&t->q, &t->cap_q, t->n + 1, sizeof *t->q))
        return false;
    for (size_t i = 0; i < t->n; i++)
        t->q[i] = (bodyq){t->b[i].key, t->b[i].pos.x, t->b[i].pos.y, t->b[i].ext.x, t->b[i].ext.y, t->b[i].id, t->b[i].kind,
                          t->b[i].down};
    return build_columns(t);
}

/* ---- One body against a path: its nearest segment ---- */

int sn_path_nearest(const sn_vec3 *pts, const double *along, uint32_t n, double x, double y, double dist, double *d2,
                    double *u, uint32_t w, double *d2_far)
{
    if (n < 2)
        return -1;
    /* The segment first measured: where the path is `dist` along (a chord is never longer than its
    ** arc, so on a bending path the body's own segment is this one or after it). Its distance
    ** makes nearly every other segment's box test fail: the in-order scan measured each segment
    ** nearer than those before it (a leader 30 m ahead: 15 of them, each a square root and two
    ** divisions). */
    uint32_t lo = 0, hi = n - 2;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) / 2;
        if (along[mid + 1] < dist)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* d2_far: what the tests below proved of each segment, squared: no nearer than its chunk's box
    ** (cb, the chunk skipped; NAN: measured segment by segment) or than its own box or distance
    ** (lb); a segment under 1e-6 m is never the nearest (INFINITY) */
    enum { CHUNK = 8, LB = 64 };
    double lb[LB], cb[LB / CHUNK];
    const bool far = d2_far && n - 1 <= LB;
    double best = INFINITY, bu = 0;
    int ib = -1;
    if (sn_seg_near(pts, lo, x, y, &bu, &best))
        ib = (int)lo;
    const double d_lo = best;
    /* The segments in chunks of CHUNK: a chunk's box (its points') is no farther than any of its
    ** segments' boxes, in floats too (min, max and rounding are monotone), so a chunk beyond the
    ** nearest point so far holds no segment that the test below would measure: one box for
    ** CHUNK segments' (the segments' boxes were most of the cost). */
    for (uint32_t c0 = 0; c0 + 1 < n; c0 += CHUNK) {
        const uint32_t c1 = c0 + CHUNK < n - 1 ? c0 + CHUNK : n - 1; /* segments c0..c1-1, points c0..c1 */
#ifdef __SSE2__
        /* x and y side by side (sn_vec3's first two members): one min and one max a point */
        __m128d lo2 = _mm_loadu_pd(&pts[c0].x), hi2 = lo2;
        for (uint32_t i = c0 + 1; i <= c1; i++) {
            const __m128d p = _mm_loadu_pd(&pts[i].x);
            lo2 = _mm_min_pd(lo2, p), hi2 = _mm_max_pd(hi2, p);
        }
        double lo_xy[2], hi_xy[2];
        _mm_storeu_pd(lo_xy, lo2), _mm_storeu_pd(hi_xy, hi2);
        const double lx = lo_xy[0], ly = lo_xy[1], hx = hi_xy[0], hy = hi_xy[1];
#else
        double lx = pts[c0].x, hx = lx, ly = pts[c0].y, hy = ly;
        for (uint32_t i = c0 + 1; i <= c1; i++)
            lx = sn_mind(lx, pts[i].x), hx = sn_maxd(hx, pts[i].x), ly = sn_mind(ly, pts[i].y), hy = sn_maxd(hy, pts[i].y);
#endif
        const double cx = sn_maxd(0, sn_maxd(lx - x, x - hx)), cy = sn_maxd(0, sn_maxd(ly - y, y - hy));
        if (cx * cx + cy * cy > best + 1e-6) {
            if (far)
                cb[c0 / CHUNK] = cx * cx + cy * cy;
            continue;
        }
        if (far)
            cb[c0 / CHUNK] = NAN;
        for (uint32_t i = c0; i < c1; i++) {
            /* a segment whose box is farther than the nearest point so far cannot be nearer (a
            ** margin far above rounding: the same segment wins as without the test) */
            const double ox = sn_maxd(0, sn_maxd(sn_mind(pts[i].x, pts[i + 1].x) - x, x - sn_maxd(pts[i].x, pts[i + 1].x)));
            const double oy = sn_maxd(0, sn_maxd(sn_mind(pts[i].y, pts[i + 1].y) - y, y - sn_maxd(pts[i].y, pts[i + 1].y)));
            double uu, d;
            if (i == lo) {
                if (far)
                    lb[i] = d_lo;
                continue;
            }
            if (ox * ox + oy * oy > best + 1e-6) {
                if (far)
                    lb[i] = ox * ox + oy * oy;
                continue;
            }
            if (!sn_seg_near(pts, i, x, y, &uu, &d)) {
                if (far)
                    lb[i] = INFINITY;
                continue;
            }
            if (far)
                lb[i] = d;
            if (d < best || (d == best && (int)i < ib)) /* ties: the lower index, as the scan in order */
                best = d, bu = uu, ib = (int)i;
        }
    }
    *d2 = best, *u = bu;
    if (d2_far) {
        double f = far ? INFINITY : 0; /* (a longer path: no bound) */
        const uint32_t w0 = ib >= 0 && (uint32_t)ib > w ? (uint32_t)ib - w : 0, w1 = ib >= 0 ? (uint32_t)ib + w : UINT32_MAX;
        for (uint32_t c0 = 0; far && ib >= 0 && c0 + 1 < n; c0 += CHUNK) {
            const uint32_t c1 = c0 + CHUNK < n - 1 ? c0 + CHUNK : n - 1;
            if (c0 >= w0 && c1 - 1 <= w1)
                continue; /* all within w of the answer */
            if (!isnan(cb[c0 / CHUNK])) {
                f = sn_mind(f, cb[c0 / CHUNK]);
                continue;
            }
            for (uint32_t i = c0; i < c1; i++)
                if (i < w0 || i > w1)
                    f = sn_mind(f, lb[i]);
        }
        *d2_far = f;
    }
    return ib;
}

/* Only the segments that can be the answer are measured. The memo keeps where the body stood at
** the last search, the answer and how much farther every segment more than NL_W from it was (the
** slack). Since then the path lost points at its start or end and gained some at its end, nothing
** else (the caller forgets the memo for a new path). So while the body moved by m less than a
** half of the slack, a segment kept beyond NL_W of the answer is farther than the answer (its
** distance fell by at most m, the answer's grew by at most m), and the nearest is among those
** within NL_W and those added: measured in order, the first of equals, as the search does. 1 mm
** spares the rounding (under a micrometre on a map's coordinates). */
enum { NL_W = 3, NL_NEW = 8 };

bool sn_path_memo_answers(const sn_near_memo *m, uint8_t drops, uint32_t n, double x, double y)
{
    const int k = (uint8_t)(drops - m->drops); /* points dropped at the start since */
    const int i = (int)m->seg - 1 - k, fresh = (int)m->n - 1 - k, last = (int)n - 2;
    return m->seg && k < m->seg && i <= last && last - fresh < NL_NEW &&
           2 * sqrt((x - m->x) * (x - m->x) + (y - m->y) * (y - m->y)) + 1e-3 < m->slack;
}

int sn_path_nearest_kept(sn_near_memo *m, uint8_t drops, const sn_vec3 *pts, const double *along, uint32_t n, double x,
                         double y, double dist, double *d2, double *u)
{
    if (sn_path_memo_answers(m, drops, n, x, y)) {
        const int k = (uint8_t)(drops - m->drops); /* points dropped at the start since */
        const int i = (int)m->seg - 1 - k, fresh = (int)m->n - 1 - k, last = (int)n - 2;
        /* the last answer first, then the others in order, each past its box as sn_path_nearest
        ** tests it (the same bits: the same measurement) */
        int ib = i;
        double bd, bu;
        if (!sn_seg_near(pts, (uint32_t)i, x, y, &bu, &bd))
            ib = -1, bd = INFINITY, bu = 0; /* (never: it was the answer on these points) */
        for (int j = i > NL_W ? i - NL_W : 0; j <= last; j++) {
            if (j > i + NL_W && j < fresh) {
                j = fresh - 1; /* (the kept ones beyond the answer's few are farther) */
                continue;
            }
            const double ox = sn_maxd(0, sn_maxd(sn_mind(pts[j].x, pts[j + 1].x) - x, x - sn_maxd(pts[j].x, pts[j + 1].x)));
            const double oy = sn_maxd(0, sn_maxd(sn_mind(pts[j].y, pts[j + 1].y) - y, y - sn_maxd(pts[j].y, pts[j + 1].y)));
            double uu, d;
            if (j == i || ox * ox + oy * oy > bd + 1e-6 || !sn_seg_near(pts, (uint32_t)j, x, y, &uu, &d))
                continue;
            if (d < bd || (d == bd && j < ib)) /* ties: the lower index */
                bd = d, bu = uu, ib = j;
        }
        *d2 = bd, *u = bu;
        return ib;
    }
    double far;
    const int ib = sn_path_nearest(pts, along, n, x, y, dist, d2, u, NL_W, &far);
    m->seg = 0;
    if (ib >= 0 && n <= UINT8_MAX) {
        m->x = x, m->y = y, m->drops = drops, m->n = (uint8_t)n, m->seg = (uint8_t)(ib + 1);
        m->slack = (float)(sqrt(far) - sqrt(*d2));
    }
    return ib;
}

/* What leader() keeps while it scans: the nearest body ahead in the corridor (gap, its speed
** along the path, who) and, for the gap searches, the nearest behind (gap_b, v_b); j and jb: their
** indices in the grid, the scan's order, which breaks ties as the scan in that order would. */
typedef struct lbest {
    bool found;
    double *gap, *v_lead, *gap_b, *v_b;
    const sn_actor **who;
    size_t j, jb;
} lbest;

/* One body of the grid (index j) against the path's corridor: its nearest point on the polyline
** among the chunks within r of it, from chunk c0 (the first such) on, and whether it holds us. */
static void consider(const body *b, size_t j, size_t c0, const sn_vec3 *pts, const double *along, size_t nseg,
                     size_t nch, double (*cb)[4], double half_width, double front, const sn_leader_skip *skip, lbest *lb)
{
    enum { CHUNK = 8 };
    /* The nearest point of the path polyline to its centre, among the chunks within r of
    ** it: a body farther than r from every segment is clear of the corridor (below), so a
    ** segment whose box is farther than r is skipped too (it cannot be the nearest of one
    ** within the corridor, and skipping it leaves one outside it outside). */
    const sn_vec3 ex = b->ext;
    const double r = half_width + ex.x + ex.y + 1e-3;
    double best = INFINITY, s_at = 0, z_at = 0;
    sn_vec3 tan = {1, 0, 0};
    for (size_t c = c0; c < nch; c++) {
        if (b->pos.x < cb[c][0] - r || b->pos.x > cb[c][1] + r || b->pos.y < cb[c][2] - r || b->pos.y > cb[c][3] + r)
            continue;
        const size_t i1 = (c + 1) * CHUNK < nseg ? (c + 1) * CHUNK : nseg;
        for (size_t i = c * CHUNK; i < i1; i++) {
            const double ax = pts[i].x, bx = pts[i + 1].x, ay = pts[i].y, by = pts[i + 1].y;
            if (b->pos.x < sn_mind(ax, bx) - r || b->pos.x > sn_maxd(ax, bx) + r || b->pos.y < sn_mind(ay, by) - r ||
                b->pos.y > sn_maxd(ay, by) + r)
                continue;
            double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
            if (l2 < 1e-12)
                continue;
            double u = sn_clampd(((b->pos.x - ax) * dx + (b->pos.y - ay) * dy) / l2, 0, 1);
            double px = ax + u * dx - b->pos.x, py = ay + u * dy - b->pos.y, d = px * px + py * py;
            if (d < best) {
                double l = sqrt(l2);
                best = d, s_at = along[i] + u * l, tan = sn_v3(dx / l, dy / l, 0);
                z_at = pts[i].z + u * (pts[i + 1].z - pts[i].z);
            }
        }
    }
    if (!isfinite(best) || (s_at <= 0 && !lb->gap_b))
        return; /* beside or behind us */
    if (fabs(b->pos.z - z_at) > SN_TRAFFIC_LEVEL)
        return; /* over or under our path (a bridge): on Town04 two cars, one on each level, held each other for good */
    sn_vec3 nrm = sn_v3(-tan.y, tan.x, 0);
    double ext_lat = fabs(sn_v3_dot(nrm, b->fwd)) * ex.x + fabs(sn_v3_dot(nrm, b->right)) * ex.y;
    double ext_along = fabs(sn_v3_dot(tan, b->fwd)) * ex.x + fabs(sn_v3_dot(tan, b->right)) * ex.y;
    if (sqrt(best) - ext_lat > half_width)
        return; /* clear of our corridor */
    if (lb->gap_b && s_at <= 0) {
        double g = -s_at - ext_along - front; /* its front to our rear (our box is symmetric) */
        if (g < *lb->gap_b || (g == *lb->gap_b && j < lb->jb))
            *lb->gap_b = g, *lb->v_b = sn_v3_dot(b->vel, tan), lb->jb = j;
        return;
    }
    double g = s_at - ext_along - front;
    if (g < -0.3 && b->kind == SN_ACTOR_WALKER && skip)
        return; /* a walker beside us, not ahead of the front bumper: driving on moves away from it */
    if (!lb->found || g < *lb->gap || (g == *lb->gap && j < lb->j)) {
        lb->found = true;
        *lb->gap = g;
        *lb->v_lead = sn_v3_dot(b->vel, tan);
        lb->j = j;
        if (lb->who)
            *lb->who = b->a;
    }
}

/* A body that passed the first test: its grid index, the first chunk within its reach and the
** least gap it can have (that chunk's start along the path, less its box's half diagonal in x-y
** and our front). */
typedef struct lcand {
    double low;
    uint32_t j, c;
} lcand;

/* The candidates by their least gap, nearest first: once the gap found is below a candidate's
** least, it and all after it cannot hold us nearer (the gap searches still measure those that
** may be behind us). Exact: a body is skipped only when its gap cannot beat the one found (ties
** go to the lower grid index, the scan's order). */
static void consider_all(const struct sn_traffic *t, lcand *cd, size_t n, const sn_vec3 *pts, const double *along,
                         size_t nseg, size_t nch, double (*cb)[4], double half_width, double front, const sn_leader_skip *skip,
                         lbest *lb)
{
    enum { CHUNK = 8 };
    for (size_t i = 1; i < n; i++) { /* insertion sort: a few dozen at most */
        const lcand x = cd[i];
        size_t k = i;
        for (; k > 0 && (cd[k - 1].low > x.low || (cd[k - 1].low == x.low && cd[k - 1].j > x.j)); k--)
            cd[k] = cd[k - 1];
        cd[k] = x;
    }
    for (size_t i = 0; i < n; i++) {
        if (lb->found && cd[i].low - 1e-6 > *lb->gap) {
            if (!lb->gap_b)
                break;
            if (along[cd[i].c * CHUNK] > 0)
                continue; /* its nearest point is ahead of our centre: it is not behind us either */
        }
        consider(&t->b[cd[i].j], cd[i].j, cd[i].c, pts, along, nseg, nch, cb, half_width, front, skip, lb);
    }
}

bool sn_traffic_leader(const sn_engine *e, const sn_actor *self, const sn_vec3 *pts, const double *along, size_t np,
                   double half_width, const sn_leader_skip *skip, double *gap, double *v_lead, const sn_actor **who,
                   double *gap_b, double *v_b)
{
    const struct sn_traffic *t = e->traffic;
    if (!t || np < 2)
        return false;
    double lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    for (size_t i = 0; i < np; i++) {
        lo_x = sn_mind(lo_x, pts[i].x), hi_x = sn_maxd(hi_x, pts[i].x);
        lo_y = sn_mind(lo_y, pts[i].y), hi_y = sn_maxd(hi_y, pts[i].y);
    }
    const double reach = half_width + 3.0; /* a truck's half length beside the path */
    int64_t cx0 = sn_traffic_cell(lo_x - reach), cx1 = sn_traffic_cell(hi_x + reach), cy0 = sn_traffic_cell(lo_y - reach), cy1 = sn_traffic_cell(hi_y + reach);
    const double front = self->ph->bbox.extent.x;
    /* The path's segments in chunks of CHUNK with their boxes: a body far from a chunk's box
    ** skips its segments (none of them can be its nearest point within the corridor), so a body
    ** costs a few box tests and one or two chunks, not np segments. */
    enum { CHUNK = 8, MAXCH = SN_MD_PATH / CHUNK + 2, NCAND = 64 };
    double cb[MAXCH][4];
    const size_t nseg = np - 1, nch = (nseg + CHUNK - 1) / CHUNK;
    for (size_t c = 0; c < nch && c < MAXCH; c++) {
        size_t i0 = c * CHUNK, i1 = i0 + CHUNK < nseg ? i0 + CHUNK : nseg; /* segments i0..i1-1: points i0..i1 */
        cb[c][0] = cb[c][1] = pts[i0].x, cb[c][2] = cb[c][3] = pts[i0].y;
        for (size_t i = i0 + 1; i <= i1; i++) {
            cb[c][0] = sn_mind(cb[c][0], pts[i].x), cb[c][1] = sn_maxd(cb[c][1], pts[i].x);
            cb[c][2] = sn_mind(cb[c][2], pts[i].y), cb[c][3] = sn_maxd(cb[c][3], pts[i].y);
        }
    }
    lbest lb = {.gap = gap, .v_lead = v_lead, .gap_b = gap_b, .v_b = v_b, .who = who};
    /* The bodies that pass the first test, measured nearest first in batches of NCAND: in dense
    ** traffic most of them lie beyond the leader already found (a queue ahead) and are not measured. */
    lcand cd[NCAND];
    size_t ncd = 0;
    /* A body is only looked at within r <= rmax of a chunk's box (below), and its cell holds
    ** its centre: a column's cells farther than rmax from every chunk's box hold none that
    ** counts. The rest of the column keeps its order, so the same bodies are met in the same
    ** order as over the whole box (a diagonal path's box is mostly far from the path). */
    const double rmax = half_width + t->ext_max + 1e-3 + 1e-3; /* + a margin for the cells' rounding */
    for (int64_t cx = cx0; cx <= cx1; cx++) {
        const double x0 = (double)cx * SN_TRAFFIC_CELL - rmax, x1 = (double)(cx + 1) * SN_TRAFFIC_CELL + rmax;
        double ylo = nch > MAXCH ? -INFINITY : INFINITY, yhi = nch > MAXCH ? INFINITY : -INFINITY;
        /* The chunks whose box a body of this column can reach, in order: the first test below
        ** need not look at the others (the same rmax bounds its r), so it finds the same first. */
        uint8_t near[MAXCH];
        size_t n_near = 0;
        for (size_t c = 0; c < nch && c < MAXCH; c++)
            if (cb[c][1] >= x0 && cb[c][0] <= x1)
                ylo = sn_mind(ylo, cb[c][2] - rmax), yhi = sn_maxd(yhi, cb[c][3] + rmax), near[n_near++] = (uint8_t)c;
        if (!(ylo <= yhi))
            continue;
        int64_t ya = isfinite(ylo) ? sn_traffic_cell(ylo) : cy0, yb = isfinite(yhi) ? sn_traffic_cell(yhi) : cy1;
        ya = ya > cy0 ? ya : cy0, yb = yb < cy1 ? yb : cy1;
        if (ya > yb)
            continue;
        /* One cell column is a contiguous key range (keys sort by x cell, then y cell). */
        uint64_t k0 = sn_traffic_key(cx, ya), k1 = sn_traffic_key(cx, yb);
        size_t lo = sn_traffic_first(t, k0);
        for (size_t j = lo; j < t->n && t->q[j].key <= k1; j++) {
            /* Far from every chunk's box (the test below, on the compact copy): never in the corridor. */
            const bodyq *q = &t->q[j];
            const double rq = half_width + q->ex + q->ey + 1e-3;
            size_t c = nch;
            if (nch > MAXCH) { /* (never: a path holds at most SN_MD_PATH points) */
                c = 0;
                while (c < nch && (q->x < cb[c][0] - rq || q->x > cb[c][1] + rq || q->y < cb[c][2] - rq || q->y > cb[c][3] + rq))
                    c++;
            } else {
                for (size_t i = 0; i < n_near && c == nch; i++) {
                    const size_t k = near[i];
                    if (!(q->x < cb[k][0] - rq || q->x > cb[k][1] + rq || q->y < cb[k][2] - rq || q->y > cb[k][3] + rq))
                        c = k;
                }
            }
            if (c == nch)
                continue;
            /* (ids are unique: the id is self's only on self's own body) */
            if (q->id == self->id || q->down)
                continue;
            if (skip && (q->id == skip->actor || (skip->vehicles && q->kind == SN_ACTOR_VEHICLE) ||
                         (skip->walkers && q->kind == SN_ACTOR_WALKER)))
                continue;
            if (ncd == NCAND)
                consider_all(t, cd, ncd, pts, along, nseg, nch, cb, half_width, front, skip, &lb), ncd = 0;
            /* its nearest point lies in chunk c or after, at along[c * CHUNK] or more; its box
            ** along the path is at most its half extents' sum */
            cd[ncd++] = (lcand){along[c * CHUNK] - (q->ex + q->ey) - front, (uint32_t)j, (uint32_t)c};
        }
    }
    consider_all(t, cd, ncd, pts, along, nseg, nch, cb, half_width, front, skip, &lb);
    return lb.found;
}
