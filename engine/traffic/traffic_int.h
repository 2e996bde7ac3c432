/* traffic_int.h — what the map autopilot's parts share: the traffic state, the frame's grid of
** bodies and the leader search on it (leader.c), the path (path.c); walkers.c reads the grid.
** Engine-internal. */
#ifndef SN_TRAFFIC_TRAFFIC_INT_H
#define SN_TRAFFIC_TRAFFIC_INT_H

#include "traffic.h"

#include <math.h>
#include <stddef.h>
#include <sensim/search.h>

/* One body (vehicle or walker) as the last frame left it; the grid sorts them by cell, then id. */
typedef struct body {
    uint64_t key;
    const sn_actor *a;
    uint32_t id;       /* a's id, kind and down flag and its box's half extents, copied so that the */
    uint8_t kind;      /* neighbour scans read one array instead of every actor they pass */
    bool down;
    sn_vec3 ext;
    sn_vec3 pos, vel, fwd, right;
} body;

/* The part of a body the leader scan's first tests read (its cell key, centre and box's half
** extents in x-y; its id, kind and down flag for the bodies it drops unmeasured), in an array
** beside b (same order): most bodies of a cell fail those tests, and reading 48 bytes of each
** instead of a whole body keeps the scan in cache in dense traffic. */
typedef struct bodyq {
    uint64_t key;
    double x, y, ex, ey;
    uint32_t id;
    uint8_t kind;
    bool down;
} bodyq;

/* One grid slot's sort key and where its body sits in the world's list: kept from one frame to
** the next, so that the next frame's bodies are sorted from the order this one left them in. */
typedef struct bodyk {
    uint64_t key;
    uint32_t id, src;
} bodyk;

struct sn_traffic {
    body *b;
    bodyq *q;                   /* b's keys, centres and extents (leader's first test) */
    size_t n, cap, cap_q;
    bodyk *k;                   /* the grid's order as the last build left it (n_k slots) */
    size_t n_k, cap_k;
    uint32_t *col;              /* col[h - col_h0]: the first grid index whose key's high half (x cell) is >= h */
    size_t n_col, cap_col;      /* 0: no column index this frame (sn_traffic_first searches all of q) */
    uint64_t col_h0;
    double ext_max;             /* the largest ext.x + ext.y among b[0..n) */
    struct sn_walkers *walkers; /* walkers.c: the navigation graph and the walkers' agents */
    sn_traffic_stats stats;  /* the health counters (traffic.h) */
    bool legacy;             /* the autopilot before issue 31: no junction or lane-change rules */
    struct sn_junctions *jx; /* the map's junction conflicts and claims (junction.h), built on first use */
    struct sn_xuser *xu;     /* the walkers on crossings this frame (walkers.h) */
    size_t n_xu, cap_xu;
    sn_vec3 *heroes;         /* the hero vehicles' positions this frame (hybrid.c) */
    size_t n_heroes, cap_heroes;
    bool hybrid_any;         /* some Traffic Manager is in hybrid mode this frame */
    double last_removal;     /* clock time of the last stuck vehicle's removal (stuck.c), 0 none */
    uint64_t stuck_removed;  /* stuck vehicles removed since the scene loaded (stuck.c) */
};

/* A body whose ground point lies more than SN_TRAFFIC_LEVEL m above or below the path's nearest
** point is on another level (a bridge over the path, a road under it): never in the corridor.
** Town04's interchange spans its roads 11 m apart; a ramp's slope within a car's reach is far less. */
#define SN_TRAFFIC_LEVEL 4.0
/* traffic.c's grid: cells of SN_TRAFFIC_CELL m (its CELL), keys sorted by x cell then y cell. */
#define SN_TRAFFIC_CELL 16.0
static inline int64_t sn_traffic_cell(double v) { return (int64_t)floor(v / SN_TRAFFIC_CELL); }
static inline uint64_t sn_traffic_key(int64_t cx, int64_t cy)
{
    return ((uint64_t)(cx + (1 << 30)) << 32) | (uint64_t)(cy + (1 << 30));
}
/* The first grid index whose key is >= k0 (t->n when none): what a binary search of q over the
** whole grid returns, found in k0's cell column alone (keys sort by x cell first). */
static inline size_t sn_traffic_first(const struct sn_traffic *t, uint64_t k0)
{
    if (!t->n_col)
        return sn_search_u64(t->q, t->n, sizeof *t->q, offsetof(bodyq, key), k0);
    const uint64_t h = k0 >> 32;
    if (h < t->col_h0)
        return 0; /* every key's x cell is above k0's */
    if (h - t->col_h0 >= t->n_col)
        return t->n; /* every key's is below */
    const size_t lo = t->col[h - t->col_h0], hi = t->col[h - t->col_h0 + 1];
    return lo + sn_search_u64(t->q + lo, hi - lo, sizeof *t->q, offsetof(bodyq, key), k0);
}
/* e's traffic state, made on first use; NULL when out of memory. Owned by e (sn_traffic_free). */
struct sn_traffic *sn_traffic_get(sn_engine *e);

/* fmin and fmax without the library call (they are calls at -O2: NaN and signed zeros); the
** leader scan's boxes hold finite coordinates, where both give the same order. */
static inline double sn_mind(double a, double b) { return b < a ? b : a; }
static inline double sn_maxd(double a, double b) { return b > a ? b : a; }
static inline double sn_clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }
/* sqrt of the sum, not hypot: path lengths need no protection from overflow, and hypot's call
** was a tenth of the autopilot's time */
static inline double sn_dist2d(sn_vec3 a, sn_vec3 b) { return sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)); }

/* ---- leader.c ---- */

/* w's bodies as the last frame left them into t's grid (t->b, t->q), sorted by cell then id;
** false when out of memory (vehicles then drive blind to leaders). */
bool sn_traffic_grid_build(struct sn_traffic *t, const sn_world *w);
/* What the leader search skips: one actor (a deadlock's override), and vehicles or walkers
** (CARLA's ignore_vehicles / ignore_walkers percentages, drawn per frame). */
typedef struct sn_leader_skip {
    uint32_t actor;
    bool vehicles, walkers;
} sn_leader_skip;
/* The vehicle or walker ahead of self in its path's corridor (half_width to either side of the
** path points pts[0..np), at distances along[] from self's centre): its gap to self's front
** bumper along the path (*gap) and its speed along it (*v_lead), *who when who is not NULL; true
** when there is one. gap_b / v_b (NULL: not searched): the nearest body behind, for the
** lane-change gap checks. Reads the grid sn_traffic_grid_build made this frame. */
bool sn_traffic_leader(const sn_engine *e, const sn_actor *self, const sn_vec3 *pts, const double *along, size_t np,
                       double half_width, const sn_leader_skip *skip, double *gap, double *v_lead, const sn_actor **who,
                       double *gap_b, double *v_b);

/* Segment i's nearest point to (x, y) in the plane: *u where on it (0..1), *d its squared
** distance; false for a segment shorter than 1e-6 m (no direction). */
static inline bool sn_seg_near(const sn_vec3 *pts, uint32_t i, double x, double y, double *u, double *d)
{
    const double dx = pts[i + 1].x - pts[i].x, dy = pts[i + 1].y - pts[i].y, l2 = dx * dx + dy * dy;
    if (l2 < 1e-12)
        return false;
    *u = sn_clampd(((x - pts[i].x) * dx + (y - pts[i].y) * dy) / l2, 0, 1);
    const double px = pts[i].x + *u * dx - x, py = pts[i].y + *u * dy - y;
    *d = px * px + py * py;
    return true;
}

/* The segment i (pts[i]..pts[i + 1]) of the path pts[0..n) nearest (x, y) in the plane, as a scan
** of every segment in order finds it (the first of equals; segments under 1e-6 m skipped): i, with
** *d2 its squared distance and *u where on it (0..1); -1 when there is none. dist (the body's
** straight distance from where along[] counts from) picks the segment measured first: any value
** gives the same answer, a good one skips the others by their boxes (vehicle_coast's leader).
** *d2_far (when not NULL): no segment more than w from i is nearer, squared (up to rounding, far
** under a micrometre); INFINITY when there is none, 0 (no bound) on paths over 65 points. */
int sn_path_nearest(const sn_vec3 *pts, const double *along, uint32_t n, double x, double y, double dist, double *d2,
                    double *u, uint32_t w, double *d2_far);
/* Whether sn_path_nearest_kept answers from its memo m (the body moved less than half its slack
** on the same path): then it reads the points near its last answer and no distance (vehicle_coast
** sums none for it). */
bool sn_path_memo_answers(const sn_near_memo *m, uint8_t drops, uint32_t n, double x, double y);
/* sn_path_nearest's answer, from *m's last search on this path when it cannot have changed:
** drops, how many points the path lost at its start so far (mod 256; *m is counted from it).
** Between two calls the path may lose points at its start (counted) and at its end and gain
** some at its end; any other change needs m->seg = 0 (vehicle_coast's leader, hybrid mode). */
int sn_path_nearest_kept(sn_near_memo *m, uint8_t drops, const sn_vec3 *pts, const double *along, uint32_t n, double x,
                         double y, double dist, double *d2, double *u);

/* ---- path.c ---- */

/* Puts md's path back on the lane nearest pos; false when there is none within 50 m (a vehicle looks
** as far as the map reaches). */
bool sn_md_relocate(const sn_map *m, sn_mapdrive *md, sn_vec3 pos);
/* Extends md's path to its full length along the lanes (branches drawn from md's generator; t, the
** traffic's grid, for the short route's draws: route.h). */
void sn_md_refill(const struct sn_traffic *t, const sn_map *m, sn_mapdrive *md);
/* Drops the waypoints behind pos; *along0 is path[0]'s distance along the path from pos
** (negative: behind). false when pos is far off the path. */
bool sn_md_advance(sn_mapdrive *md, sn_vec3 pos, double *along0);
/* md's path's distances along it from the vehicle's centre (along; the first along0 from it;
** SN_MD_PATH of them), for a caller that reads the points in place (md->at, unchanged meanwhile):
** no copy of them a vehicle-frame (vehicle_update, vehicle_coast; issue 36 item 6, path68). */
void sn_md_along(const sn_mapdrive *md, double along0, double *along);
/* sn_md_along's distances from along[k] (k >= 1: along[0..k) are summed) to along[upto] (or the
** last); returns how many are summed now. A coasting vehicle sums no more than it reads. */
uint32_t sn_md_along_more(const sn_mapdrive *md, double *along, uint32_t k, uint32_t upto);
/* The distances up to the first after along[0] at least reach along (all of them when none is),
** those from along[k] on summed now; returns how many. A coasting vehicle's move reads no further
** (sn_hybrid_move), and the rest of its path's locations are cache lines it need not fetch. */
uint32_t sn_md_along_reach(const sn_mapdrive *md, double *along, uint32_t k, double reach);
/* true when sn_md_along's last distance (along[md->n - 1], the first along0) is certainly at least
** len: proven from the first and last points alone; false does not say it is less. */
bool sn_md_reaches(const sn_mapdrive *md, double along0, double len);

#endif
