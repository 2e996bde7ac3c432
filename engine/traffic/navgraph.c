/* navgraph.c — the walkers' navigation graph (navgraph.h): build, nearest node, A*, random
** points. Every loop runs in the map's road/section/lane order and ties break by index, so
** the graph and every route are the same on every run. */
#include "navgraph.h"
#include "crosswalk.h"

#include "../core/util.h"

#include <sensim/math.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

#define STEP 2.0          /* m between nodes along a lane */
#define GCELL 4.0         /* m, the node grid's cell */
#define LINK_MAX 4.0      /* m: a lane link joins ends at most this far apart */
#define TOUCH_SLACK 0.5   /* m: sidewalks whose edges are this near touch */
#define CW_SNAP 3.0       /* m: a crosswalk's end snaps to a node this near */
#define ARM_MAX 40.0      /* m: the widest junction arm walkers cross without a crosswalk */
#define ARM_CW_NEAR 10.0  /* m: an arm with a crosswalk this near gets no crossing of its own */
#define ROAD_EVERY 30.0   /* m between mid-block road crossings */

typedef struct lane_rec {
    sn_lanekey k;
    double s0, s1;
    uint32_t first, count;
} lane_rec;

typedef struct tmp_edge {
    uint32_t a, b, cross;
    uint8_t kind;
    float len;
} tmp_edge;

typedef struct build {
    const sn_map *m;
    sn_nav *n;
    lane_rec *lanes;
    size_t n_lanes, cap_lanes, cap_nodes;
    uint32_t *lane_of; /* node -> lane */
    tmp_edge *e;
    size_t n_e, cap_e, cap_cross;
    bool oom;
} build;

struct sn_nav_open {
    double f;
    uint32_t node;
};

static double d2(sn_vec3 a, sn_vec3 b) { return hypot(b.x - a.x, b.y - a.y); }
static int64_t gcell(double v) { return (int64_t)floor(v / GCELL); }
static uint64_t gkey(int64_t cx, int64_t cy) { return ((uint64_t)(cx + (1 << 30)) << 32) | (uint64_t)(cy + (1 << 30)); }

static void add_edge(build *b, uint32_t x, uint32_t y, uint8_t kind, uint32_t cross)
{
    if (x == y || b->oom)
        return;
    if (!sn_grow((void **)&b->e, &b->cap_e, b->n_e + 2, sizeof *b->e)) {
        b->oom = true;
        return;
    }
    float len = (float)d2(b->n->nodes[x].p, b->n->nodes[y].p);
    b->e[b->n_e++] = (tmp_edge){x, y, cross, kind, len};
    b->e[b->n_e++] = (tmp_edge){y, x, cross, kind, len};
}

static void add_crossing(build *b, uint32_t x, uint32_t y, uint8_t kind)
{
    sn_nav *n = b->n;
    if (x == y || b->oom)
        return;
    if (!sn_grow((void **)&n->cross, &b->cap_cross, n->n_cross + 1, sizeof *n->cross)) {
        b->oom = true;
        return;
    }
    n->cross[n->n_cross] = (sn_nav_crossing){{n->nodes[x].p, n->nodes[y].p}, kind};
    add_edge(b, x, y, kind, n->n_cross++);
}

/* Samples every sidewalk lane of every section into nodes joined along the lane. */
static void sample_lanes(build *b)
{
    const sn_odr *o = b->m->odr;
    sn_nav *n = b->n;
    for (uint32_t ri = 0; ri < o->n_roads && !b->oom; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t si = 0; si < r->n_sections && !b->oom; si++) {
            const sn_odr_section *sec = &r->sections[si];
            double len = sec->s_end - sec->s;
            if (!(len > 0.1))
                continue;
            uint32_t k = (uint32_t)fmin(ceil(len / STEP), 100000);
            for (uint32_t li = 0; li < sec->n_lanes && !b->oom; li++) {
                if (sec->lanes[li].type != SN_LANE_SIDEWALK)
                    continue;
                if (!sn_grow((void **)&b->lanes, &b->cap_lanes, b->n_lanes + 1, sizeof *b->lanes) ||
                    !sn_grow((void **)&n->nodes, &b->cap_nodes, n->n_nodes + k + 2, sizeof *n->nodes) ||
                    !(b->lane_of = realloc(b->lane_of, b->cap_nodes * sizeof *b->lane_of))) {
                    b->oom = true;
                    return;
                }
                lane_rec *lr = &b->lanes[b->n_lanes];
                *lr = (lane_rec){{(int32_t)ri, si, sec->lanes[li].id}, sec->s, sec->s_end, n->n_nodes, k + 1};
                for (uint32_t j = 0; j <= k; j++) {
                    sn_waypoint wp;
                    double s = sec->s + len * j / k;
                    sn_map_make_waypoint(b->m, lr->k, j == k ? sec->s_end - 1e-6 : s, &wp);
                    b->lane_of[n->n_nodes] = (uint32_t)b->n_lanes;
                    n->nodes[n->n_nodes++] = (sn_nav_node){wp.transform.location, (float)wp.lane_width, 0, 0};
                    if (j)
                        add_edge(b, n->n_nodes - 2, n->n_nodes - 1, SN_NAV_SIDEWALK, 0);
                }
                b->n_lanes++;
            }
        }
    }
}

static int lane_cmp(const void *x, const void *y)
{
    const sn_lanekey *a = x, *c = &((const lane_rec *)y)->k;
    if (a->road != c->road)
        return a->road < c->road ? -1 : 1;
    if (a->section != c->section)
        return a->section < c->section ? -1 : 1;
    return (a->lane > c->lane) - (a->lane < c->lane);
}

static const lane_rec *find_lane(const build *b, sn_lanekey k)
{
    return bsearch(&k, b->lanes, b->n_lanes, sizeof *b->lanes, lane_cmp);
}

/* The node of lane lr nearest s along it. */
static uint32_t node_at(const lane_rec *lr, double s)
{
    double f = lr->s1 > lr->s0 ? (s - lr->s0) / (lr->s1 - lr->s0) : 0;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return lr->first + (uint32_t)lround(f * (lr->count - 1));
}

/* A lane's ends to the sidewalk lanes its links lead to (sections, roads, junction roads). */
static void link_lanes(build *b)
{
    const sn_nav *n = b->n;
    for (size_t i = 0; i < b->n_lanes && !b->oom; i++) {
        const lane_rec *lr = &b->lanes[i];
        for (int fwd = 0; fwd < 2; fwd++) {
            sn_lanekey out[16];
            double s_out[16];
            size_t k = sn_map_successors(b->m, lr->k, fwd, out, s_out, 16);
            for (size_t j = 0; j < k && j < 16; j++) {
                const lane_rec *to = find_lane(b, out[j]);
                if (!to)
                    continue;
                uint32_t t = node_at(to, s_out[j]), a = lr->first, z = lr->first + lr->count - 1;
                uint32_t from = d2(n->nodes[a].p, n->nodes[t].p) <= d2(n->nodes[z].p, n->nodes[t].p) ? a : z;
                if (d2(n->nodes[from].p, n->nodes[t].p) < LINK_MAX)
                    add_edge(b, from, t, SN_NAV_SIDEWALK, 0);
            }
        }
    }
}

static int gcmp(const void *x, const void *y)
{
    const uint64_t *a = x, *c = y; /* (key, node) pairs packed as two uint64 */
    if (a[0] != c[0])
        return a[0] < c[0] ? -1 : 1;
    return (a[1] > c[1]) - (a[1] < c[1]);
}

static bool build_grid(sn_nav *n)
{
    uint64_t *pairs = malloc((size_t)(n->n_nodes ? n->n_nodes : 1) * 2 * sizeof *pairs);
    n->gkey = malloc((size_t)(n->n_nodes ? n->n_nodes : 1) * sizeof *n->gkey);
    n->gnode = malloc((size_t)(n->n_nodes ? n->n_nodes : 1) * sizeof *n->gnode);
    if (!pairs || !n->gkey || !n->gnode) {
        free(pairs);
        return false;
    }
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        pairs[2 * i] = gkey(gcell(n->nodes[i].p.x), gcell(n->nodes[i].p.y));
        pairs[2 * i + 1] = i;
    }
    qsort(pairs, n->n_nodes, 2 * sizeof *pairs, gcmp);
    for (uint32_t i = 0; i < n->n_nodes; i++)
        n->gkey[i] = pairs[2 * i], n->gnode[i] = (uint32_t)pairs[2 * i + 1];
    free(pairs);
    return true;
}

/* Calls fn for every node whose grid cell lies within r of p (a superset of those within r). */
#define FOR_NEAR(n, p, r, j, ...)                                                                       \
    do {                                                                                                 \
        int64_t cx0_ = gcell((p).x - (r)), cx1_ = gcell((p).x + (r)), cy0_ = gcell((p).y - (r)),         \
                cy1_ = gcell((p).y + (r));                                                               \
        for (int64_t cx_ = cx0_; cx_ <= cx1_; cx_++) {                                                   \
            uint64_t k0_ = gkey(cx_, cy0_), k1_ = gkey(cx_, cy1_);                                       \
            size_t lo_ = 0, hi_ = (n)->n_nodes;                                                          \
            while (lo_ < hi_) {                                                                          \
                size_t mid_ = (lo_ + hi_) / 2;                                                           \
                if ((n)->gkey[mid_] < k0_)                                                               \
                    lo_ = mid_ + 1;                                                                      \
                else                                                                                     \
                    hi_ = mid_;                                                                          \
            }                                                                                            \
            for (size_t q_ = lo_; q_ < (n)->n_nodes && (n)->gkey[q_] <= k1_; q_++) {                     \
                uint32_t j = (n)->gnode[q_];                                                             \
                __VA_ARGS__                                                                              \
            }                                                                                            \
        }                                                                                                \
    } while (0)

/* Sidewalks that touch (corners, lanes side by side): each node to the nearest node of each
** other lane whose sidewalk edge meets its own. */
static void join_touching(build *b)
{
    const sn_nav *n = b->n;
    enum { MAXL = 8 };
    for (uint32_t i = 0; i < n->n_nodes && !b->oom; i++) {
        uint32_t lanes[MAXL], best[MAXL];
        double bd[MAXL];
        int nl = 0;
        const sn_nav_node *a = &n->nodes[i];
        FOR_NEAR(n, a->p, 5.0, j, {
            if (b->lane_of[j] == b->lane_of[i])
                continue;
            double d = d2(a->p, n->nodes[j].p);
            if (d > fmin(0.5 * (a->width + n->nodes[j].width) + TOUCH_SLACK, 5.0))
                continue;
            int s = 0;
            while (s < nl && lanes[s] != b->lane_of[j])
                s++;
            if (s == nl) {
                if (nl == MAXL)
                    continue;
                lanes[nl] = b->lane_of[j], bd[nl] = INFINITY, nl++;
            }
            if (d < bd[s] || (d == bd[s] && j < best[s]))
                bd[s] = d, best[s] = j;
        });
        for (int s = 0; s < nl; s++)
            add_edge(b, i, best[s], SN_NAV_SIDEWALK, 0);
    }
}

static void crosswalk_edges(build *b)
{
    sn_crosswalk *cw = NULL;
    size_t ncw = 0;
    if (!sn_crosswalks_build(b->m, &cw, &ncw)) {
        b->oom = true;
        return;
    }
    for (size_t i = 0; i < ncw; i++) {
        int64_t x = sn_nav_nearest(b->n, cw[i].end[0], CW_SNAP, -1), y = sn_nav_nearest(b->n, cw[i].end[1], CW_SNAP, -1);
        if (x >= 0 && y >= 0 && b->lane_of[x] != b->lane_of[y])
            add_crossing(b, (uint32_t)x, (uint32_t)y, SN_NAV_CROSSWALK);
    }
    free(cw);
}

/* The sidewalk lane nearest the road's centre on each side of section sec, or NULL. */
static void inner_sidewalks(const build *b, int32_t ri, uint32_t si, const lane_rec **right, const lane_rec **left)
{
    *right = *left = NULL;
    const sn_odr_section *sec = &b->m->odr->roads[ri].sections[si];
    for (uint32_t li = 0; li < sec->n_lanes; li++) {
        const sn_odr_lane *l = &sec->lanes[li];
        if (l->type != SN_LANE_SIDEWALK)
            continue;
        const lane_rec *lr = find_lane(b, (sn_lanekey){ri, si, l->id});
        if (!lr)
            continue;
        if (l->id < 0 && (!*right || l->id > (*right)->k.lane))
            *right = lr;
        if (l->id > 0 && (!*left || l->id < (*left)->k.lane))
            *left = lr;
    }
}

static bool near_crosswalk(const sn_nav *n, sn_vec3 mid)
{
    for (uint32_t c = 0; c < n->n_cross; c++)
        if (n->cross[c].kind == SN_NAV_CROSSWALK &&
            d2(mid, sn_v3_scale(sn_v3_add(n->cross[c].end[0], n->cross[c].end[1]), 0.5)) < ARM_CW_NEAR)
            return true;
    return false;
}

/* Junction arms (a road's end at a junction, sidewalks on both sides, no crosswalk near): a
** crossing 2 m back from the junction; and every ROAD_EVERY m along roads, mid-block crossings. */
static void road_crossings(build *b)
{
    const sn_odr *o = b->m->odr;
    const sn_nav *n = b->n;
    for (uint32_t ri = 0; ri < o->n_roads && !b->oom; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        if (r->junction >= 0 || !r->n_sections)
            continue;
        for (int end = 0; end < 2; end++) {
            const sn_odr_link *lk = end ? &r->succ : &r->pred;
            if (lk->elem != SN_ODR_ELEM_JUNCTION)
                continue;
            uint32_t si = end ? r->n_sections - 1 : 0;
            const lane_rec *rt, *lf;
            inner_sidewalks(b, (int32_t)ri, si, &rt, &lf);
            if (!rt || !lf)
                continue;
            double s = end ? r->sections[si].s_end - STEP : r->sections[si].s + STEP;
            uint32_t x = node_at(rt, s), y = node_at(lf, s);
            sn_vec3 mid = sn_v3_scale(sn_v3_add(n->nodes[x].p, n->nodes[y].p), 0.5);
            if (d2(n->nodes[x].p, n->nodes[y].p) < ARM_MAX && !near_crosswalk(n, mid))
                add_crossing(b, x, y, SN_NAV_CORNER);
        }
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const lane_rec *rt, *lf;
            inner_sidewalks(b, (int32_t)ri, si, &rt, &lf);
            if (!rt || !lf)
                continue;
            for (double s = r->sections[si].s + ROAD_EVERY / 2; s < r->sections[si].s_end - ROAD_EVERY / 3; s += ROAD_EVERY) {
                uint32_t x = node_at(rt, s), y = node_at(lf, s);
                if (d2(n->nodes[x].p, n->nodes[y].p) < ARM_MAX)
                    add_crossing(b, x, y, SN_NAV_ROAD);
            }
        }
    }
}

static int edge_cmp(const void *x, const void *y)
{
    const tmp_edge *a = x, *c = y;
    if (a->a != c->a)
        return a->a < c->a ? -1 : 1;
    if (a->b != c->b)
        return a->b < c->b ? -1 : 1;
    return (a->kind > c->kind) - (a->kind < c->kind);
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* Edges into CSR (sorted, one per node pair: the lowest kind), components, the walk table. */
static bool finish(build *b)
{
    sn_nav *n = b->n;
    qsort(b->e, b->n_e, sizeof *b->e, edge_cmp);
    n->edges = malloc((b->n_e ? b->n_e : 1) * sizeof *n->edges);
    uint32_t *par = malloc((n->n_nodes ? n->n_nodes : 1) * sizeof *par);
    n->walk_edge = malloc((b->n_e ? b->n_e : 1) * sizeof *n->walk_edge);
    n->walk_cum = malloc((b->n_e ? b->n_e : 1) * sizeof *n->walk_cum);
    n->lane_comp = malloc((b->n_lanes ? b->n_lanes : 1) * sizeof *n->lane_comp);
    if (!n->edges || !par || !n->walk_edge || !n->walk_cum || !n->lane_comp) {
        free(par);
        return false;
    }
    for (uint32_t i = 0; i < n->n_nodes; i++)
        par[i] = i;
    uint32_t at = 0;
    for (size_t i = 0; i < b->n_e; i++) {
        const tmp_edge *t = &b->e[i];
        if (i && t->a == b->e[i - 1].a && t->b == b->e[i - 1].b)
            continue;
        while (at <= t->a)
            n->nodes[at++].e0 = n->n_edges;
        n->edges[n->n_edges++] = (sn_nav_edge){t->b, t->kind, t->cross, t->len};
        uint32_t ra = uf_find(par, t->a), rb = uf_find(par, t->b);
        if (ra != rb)
            par[ra > rb ? ra : rb] = ra < rb ? ra : rb;
    }
    while (at <= n->n_nodes)
        n->nodes[at++].e0 = n->n_edges;
    /* components numbered in node order */
    uint32_t *label = malloc((n->n_nodes ? n->n_nodes : 1) * sizeof *label);
    if (!label) {
        free(par);
        return false;
    }
    for (uint32_t i = 0; i < n->n_nodes; i++) {
        uint32_t r = uf_find(par, i);
        label[i] = r == i ? n->n_comps++ : label[r];
        n->nodes[i].comp = label[i];
    }
    free(label);
    free(par);
    n->n_lanes = (uint32_t)b->n_lanes;
    for (size_t i = 0; i < b->n_lanes; i++)
        n->lane_comp[i] = n->nodes[b->lanes[i].first].comp;
    double cum = 0;
    for (uint32_t i = 0; i < n->n_nodes; i++)
        for (uint32_t e = n->nodes[i].e0; e < n->nodes[i + 1].e0; e++)
            if (n->edges[e].kind == SN_NAV_SIDEWALK && n->edges[e].to > i && n->edges[e].len > 0 &&
                b->lane_of[i] == b->lane_of[n->edges[e].to]) { /* along a lane: on the sidewalk throughout */
                cum += n->edges[e].len;
                n->walk_edge[n->n_walk] = e;
                n->walk_cum[n->n_walk++] = cum;
            }
    n->g = malloc((n->n_nodes ? n->n_nodes : 1) * sizeof *n->g);
    n->prev = malloc((n->n_nodes ? n->n_nodes : 1) * sizeof *n->prev);
    n->stamp = calloc(n->n_nodes ? n->n_nodes : 1, sizeof *n->stamp);
    return n->g && n->prev && n->stamp;
}

sn_status sn_nav_build(const sn_map *m, sn_nav **out, sn_error *err)
{
    *out = NULL;
    build b = {.m = m, .n = calloc(1, sizeof(sn_nav))};
    if (!b.n)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sample_lanes(&b);
    if (!b.oom && !sn_grow((void **)&b.n->nodes, &b.cap_nodes, b.n->n_nodes + 1, sizeof *b.n->nodes))
        b.oom = true;
    if (!b.oom && !build_grid(b.n))
        b.oom = true;
    if (!b.oom) {
        link_lanes(&b);
        join_touching(&b);
        crosswalk_edges(&b);
        road_crossings(&b);
    }
    bool ok = !b.oom && finish(&b);
    free(b.lanes);
    free(b.lane_of);
    free(b.e);
    if (!ok) {
        sn_nav_free(b.n);
        return sn_fail(err, SN_E_NOMEM, "out of memory building the walkers' navigation graph");
    }
    *out = b.n;
    return SN_OK;
}

void sn_nav_free(sn_nav *n)
{
    if (!n)
        return;
    free(n->nodes);
    free(n->edges);
    free(n->cross);
    free(n->lane_comp);
    free(n->walk_edge);
    free(n->walk_cum);
    free(n->gkey);
    free(n->gnode);
    free(n->g);
    free(n->prev);
    free(n->stamp);
    free(n->open);
    free(n);
}

int64_t sn_nav_nearest(const sn_nav *n, sn_vec3 p, double radius, int64_t comp)
{
    int64_t best = -1;
    double bd = radius;
    if (!n->gkey || !(radius > 0) || !isfinite(p.x) || !isfinite(p.y))
        return -1;
    radius = fmin(radius, 1000.0);
    FOR_NEAR(n, p, radius, j, {
        if (comp >= 0 && n->nodes[j].comp != (uint32_t)comp)
            continue;
        double d = d2(p, n->nodes[j].p);
        if (d < bd || (d == bd && best >= 0 && j < (uint32_t)best))
            bd = d, best = j;
    });
    return best;
}

const sn_nav_edge *sn_nav_edge_between(const sn_nav *n, uint32_t a, uint32_t b)
{
    for (uint32_t e = n->nodes[a].e0; e < n->nodes[a + 1].e0; e++)
        if (n->edges[e].to == b)
            return &n->edges[e];
    return NULL;
}

/* The open list: a binary min-heap on (f, node). */
static bool open_less(const struct sn_nav_open *a, const struct sn_nav_open *b)
{
    return a->f < b->f || (a->f == b->f && a->node < b->node);
}

static bool open_push(sn_nav *n, double f, uint32_t node)
{
    if (!sn_grow((void **)&n->open, &n->cap_open, n->n_open + 1, sizeof *n->open))
        return false;
    size_t i = n->n_open++;
    n->open[i] = (struct sn_nav_open){f, node};
    while (i && open_less(&n->open[i], &n->open[(i - 1) / 2])) {
        struct sn_nav_open t = n->open[i];
        n->open[i] = n->open[(i - 1) / 2];
        n->open[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return true;
}

static struct sn_nav_open open_pop(sn_nav *n)
{
    struct sn_nav_open top = n->open[0];
    n->open[0] = n->open[--n->n_open];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n->n_open && open_less(&n->open[l], &n->open[m]))
            m = l;
        if (r < n->n_open && open_less(&n->open[r], &n->open[m]))
            m = r;
        if (m == i)
            break;
        struct sn_nav_open t = n->open[i];
        n->open[i] = n->open[m];
        n->open[m] = t;
        i = m;
    }
    return top;
}

bool sn_nav_route(sn_nav *n, uint32_t a, uint32_t b, bool road_ok, uint32_t **buf, size_t *cap, size_t *len)
{
    *len = 0;
    if (a >= n->n_nodes || b >= n->n_nodes || n->nodes[a].comp != n->nodes[b].comp)
        return false;
    if (++n->stamp_now == 0) { /* wrapped: every stamp is stale again */
        memset(n->stamp, 0, n->n_nodes * sizeof *n->stamp);
        n->stamp_now = 1;
    }
    /* stamp == now: reached (g valid); stamp == now + ... closed is g < 0 encoded by the sign bit */
    const sn_vec3 goal = n->nodes[b].p;
    n->n_open = 0;
    n->stamp[a] = n->stamp_now;
    n->g[a] = 0;
    n->prev[a] = a;
    if (!open_push(n, d2(n->nodes[a].p, goal), a))
        return false;
    bool found = false;
    while (n->n_open) {
        struct sn_nav_open top = open_pop(n);
        uint32_t u = top.node;
        double gu = n->g[u];
        if (top.f > gu + d2(n->nodes[u].p, goal) + 1e-9)
            continue; /* a stale entry */
        if (u == b) {
            found = true;
            break;
        }
        for (uint32_t e = n->nodes[u].e0; e < n->nodes[u + 1].e0; e++) {
            const sn_nav_edge *ed = &n->edges[e];
            if (ed->kind == SN_NAV_ROAD && !road_ok)
                continue;
            double gv = gu + ed->len + (ed->kind != SN_NAV_SIDEWALK ? 2.0 : 0); /* a crossing costs a wait */
            uint32_t v = ed->to;
            if (n->stamp[v] == n->stamp_now && n->g[v] <= gv)
                continue;
            n->stamp[v] = n->stamp_now;
            n->g[v] = gv;
            n->prev[v] = u;
            if (!open_push(n, gv + d2(n->nodes[v].p, goal), v))
                return false;
        }
    }
    if (!found)
        return false;
    size_t k = 1;
    for (uint32_t v = b; v != a; v = n->prev[v])
        k++;
    if (!sn_grow((void **)buf, cap, k, sizeof **buf))
        return false;
    size_t i = k;
    for (uint32_t v = b;; v = n->prev[v]) {
        (*buf)[--i] = v;
        if (v == a)
            break;
    }
    *len = k;
    return true;
}

typedef struct cum_probe {
    const double *cum;
    double u;
} cum_probe;

static bool cum_at_most(const void *ctx, size_t i)
{
    const cum_probe *p = ctx;
    return p->cum[i] <= p->u;
}

bool sn_nav_random_point(const sn_nav *n, sn_rng *r, int64_t comp, sn_vec3 *out)
{
    if (!n->n_walk)
        return false;
    double total = n->walk_cum[n->n_walk - 1];
    for (int tries = 0; tries < 64; tries++) {
        double u = sn_rng_uniform(r) * total;
        size_t lo = sn_search_first(0, n->n_walk - 1, &(cum_probe){n->walk_cum, u}, cum_at_most);
        const sn_nav_edge *e = &n->edges[n->walk_edge[lo]];
        uint32_t from = 0;
        /* the edge's source: the node whose edge range holds it */
        size_t l2 = 0, h2 = n->n_nodes;
        while (l2 + 1 < h2) {
            size_t mid = (l2 + h2) / 2;
            if (n->nodes[mid].e0 <= n->walk_edge[lo])
                l2 = mid;
            else
                h2 = mid;
        }
        from = (uint32_t)l2;
        if (comp >= 0 && n->nodes[from].comp != (uint32_t)comp)
            continue;
        double f = e->len > 0 ? 1 - (n->walk_cum[lo] - u) / e->len : 0;
        f = f < 0 ? 0 : f > 1 ? 1 : f;
        sn_vec3 a = n->nodes[from].p, b = n->nodes[e->to].p;
        *out = sn_v3_add(a, sn_v3_scale(sn_v3_sub(b, a), f));
        return true;
    }
    if (comp < 0)
        return false;
    /* a small component the draws missed: one of its nodes */
    for (uint32_t i = 0; i < n->n_nodes; i++)
        if (n->nodes[i].comp == (uint32_t)comp) {
            *out = n->nodes[i].p;
            return true;
        }
    return false;
}
