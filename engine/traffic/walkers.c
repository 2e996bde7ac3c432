/* walkers.c — walkers that navigate (walkers.h, docs/walkers.md).
**
** Each walker with a map autopilot has an agent: its route on the navigation graph (A* to a
** goal), its max speed, whether the cross factor lets it cross roads mid-block, and its own
** generator. It walks from node to node; before a crossing it waits at the kerb while a
** vehicle is near (crosswalk_busy), then walks the crossing through (walkers have priority
** there; vehicles see them in their path). Its velocity comes from sampled reciprocal
** velocity obstacles against the walkers near it, kept inside the sidewalk's corridor. All of
** it reads the last frame's state (the bodies' grid) and runs in actor id order. */
#include "walkers.h"
#include "lights.h"
#include "traffic_int.h"

#include "../core/util.h"
#include <sensim/math.h>
#include "../map/road_mesh.h"
#include "../sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

#define NAV_SNAP 25.0     /* m: a walker this near the graph joins it */
#define GOAL_SNAP 60.0    /* m: a goal this near the graph is reached through its nearest node */
#define REACH 1.0         /* m: a node this near is reached */
#define ARRIVE 0.6        /* m: the goal this near is reached */
#define KERB_REACH 1.2    /* m: at a crossing's kerb node */
#define KERB_TIMEOUT 30.0 /* s waiting at a kerb before choosing another goal (CARLA: StopAndCheck's timeout) */
#define UNBLOCK_TIME 10.0 /* s: a walker that moved less than UNBLOCK_DIST in this time gets a new goal */
#define UNBLOCK_DIST 1.0
#define DEFAULT_SPEED 1.4 /* m/s when the walker has none */

#define CW_CLEAR 15.0 /* m: it waits while a moving vehicle is this near the crossing's middle */
#define CW_ON 4.0     /* m: ... or any vehicle this near (on it, or about to be) */
#define CW_LOOK 3.0   /* s: ... or one coming that would be within CW_CLEAR this soon */
#define CW_ON_SLACK 0.5 /* m: a vehicle this near the crossing's line, beyond its half length, stands on it */
#define CROSS_HALF 2.0  /* m: half the corridor of a crossing (a crosswalk is 3-4 m wide): room to pass */

/* Local avoidance (sampled reciprocal velocity obstacles, van den Berg et al. 2008). */
#define AV_RANGE 4.0     /* m: walkers considered */
#define AV_CAR_RANGE 30.0 /* m: vehicles considered (one at 10 m/s closes this in 3 s) */
#define AV_W_CAR 4.0     /* vehicles weigh this many times more: a walker yields rather than be struck */
#define AV_MAXN 24
#define AV_RADIUS 0.36   /* m: a walker's disc (its 0.25 m half box's corners) */
#define AV_MARGIN 0.12   /* m kept between discs */
#define AV_HORIZON 4.0   /* s: collisions later than this cost nothing */
#define AV_W 1.0         /* m: weight of 1 / time to collision against deviation from the wish */
#define AV_EDGE 3.0      /* cost per metre outside the corridor one second ahead */

typedef struct agent {
    uint32_t actor;
    const sn_mapdrive *md; /* the autopilot it belongs to */
    bool idle;             /* AI controller started, no goal yet */
    bool can_cross;        /* may cross roads mid-block (the cross factor) */
    bool waiting;
    double wait_t, check_t;
    sn_vec3 check_pos, goal;
    uint32_t *route;
    size_t n, cap, cur;
    double max_speed;
    double retry_t;        /* s until it tries to plan again after a failure */
    sn_rng rng;
} agent;

struct sn_walkers {
    sn_nav *nav;
    sn_rng rng; /* the pedestrians' generator: random locations, each agent's seed */
    double cross_factor;
    agent *ag; /* sorted by actor id */
    size_t n, cap;
};

static double d2(sn_vec3 a, sn_vec3 b) { return hypot(b.x - a.x, b.y - a.y); }

sn_status sn_walkers_get(sn_engine *e, struct sn_walkers **out, sn_error *err)
{
    *out = NULL;
    if (!e->map)
        return sn_fail(err, SN_E_STATE, "walkers navigate on a map's sidewalks, and the scene has no map (map: FILE.xodr)");
    if (!e->traffic && !(e->traffic = calloc(1, sizeof *e->traffic)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    struct sn_traffic *t = e->traffic;
    if (!t->walkers) {
        struct sn_walkers *w = calloc(1, sizeof *w);
        if (!w)
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        /* a reset's graph is the same map's (read-only but for the search scratch, which every
        ** search starts afresh): taken as built */
        sn_status st = SN_OK;
        if (e->kept_nav)
            w->nav = e->kept_nav, e->kept_nav = NULL;
        else
            st = sn_nav_build(e->map, &w->nav, err);
        if (st) {
            free(w);
            return st;
        }
        sn_rng_seed(&w->rng, e->seed ^ 0x706564657374726eull); /* "pedestrn": apart from traffic's streams */
        t->walkers = w;
    }
    *out = t->walkers;
    return SN_OK;
}

const sn_nav *sn_walkers_nav(const struct sn_walkers *w) { return w->nav; }

size_t sn_walkers_on_crossings(const sn_engine *e, const struct sn_walkers *w, sn_xuser **out, size_t *cap)
{
    size_t n = 0;
    for (size_t i = 0; w && w->nav && i < w->n; i++) {
        const agent *g = &w->ag[i];
        if (!g->cur || g->cur >= g->n)
            continue;
        const sn_nav_edge *ed = sn_nav_edge_between(w->nav, g->route[g->cur - 1], g->route[g->cur]);
        const sn_actor *a = ed && ed->kind != SN_NAV_SIDEWALK ? sn_world_find(&e->world, g->actor) : NULL;
        if (!a || a->down || !sn_grow((void **)out, cap, n + 1, sizeof **out))
            continue;
        const sn_nav_crossing *c = &w->nav->cross[ed->cross];
        (*out)[n++] = (sn_xuser){c->end[0], c->end[1], a->st.pos, a->st.vel, a->id};
    }
    return n;
}

void sn_walkers_free(struct sn_walkers *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        free(w->ag[i].route);
    free(w->ag);
    sn_nav_free(w->nav);
    free(w);
}

struct sn_nav *sn_walkers_take_nav(struct sn_engine *e)
{
    struct sn_walkers *w = e->traffic ? e->traffic->walkers : NULL;
    if (!w)
        return NULL;
    sn_nav *n = w->nav;
    w->nav = NULL;
    return n;
}

void sn_walkers_set_cross_factor(struct sn_walkers *w, double p) { w->cross_factor = p; }
void sn_walkers_set_seed(struct sn_walkers *w, uint64_t seed) { sn_rng_seed(&w->rng, seed); }

/* The agent of actor id, created (sorted in) when missing; NULL out of memory. */
static agent *agent_of(struct sn_walkers *w, uint32_t id, bool create)
{
    size_t lo = sn_search_u32(w->ag, w->n, sizeof *w->ag, offsetof(agent, actor), id);
    if (lo < w->n && w->ag[lo].actor == id)
        return &w->ag[lo];
    if (!create || !sn_grow((void **)&w->ag, &w->cap, w->n + 1, sizeof *w->ag))
        return NULL;
    memmove(&w->ag[lo + 1], &w->ag[lo], (w->n - lo) * sizeof *w->ag);
    w->n++;
    w->ag[lo] = (agent){.actor = id};
    return &w->ag[lo];
}

/* A fresh agent state: its generator drawn from the pedestrians' one, its crossing right from
** the cross factor (CARLA draws it as a walker joins the crowd). */
static void agent_reset(struct sn_walkers *w, agent *g, const sn_actor *a, const sn_mapdrive *md, bool idle)
{
    uint32_t *route = g->route;
    size_t cap = g->cap;
    *g = (agent){.actor = a->id, .md = md, .idle = idle, .route = route, .cap = cap, .check_pos = a->st.pos};
    sn_rng_seed(&g->rng, sn_rng_u64(&w->rng) ^ (0x9e3779b97f4a7c15ull * (a->id + 1)));
    g->can_cross = w->cross_factor > 0 && sn_rng_uniform(&g->rng) < w->cross_factor;
    g->max_speed = md && md->desired > 0 ? md->desired : DEFAULT_SPEED;
}

void sn_walker_attach(sn_engine *e, sn_actor *a, sn_mapdrive *md)
{
    struct sn_walkers *w;
    sn_error err = {0};
    agent *g;
    if (sn_walkers_get(e, &w, &err) == SN_OK && (g = agent_of(w, a->id, true)))
        agent_reset(w, g, a, md, false);
}

/* Plans a route from pos to `to` (random: a new random goal in pos's component). */
static bool plan(struct sn_walkers *w, agent *g, sn_vec3 pos, const sn_vec3 *to)
{
    sn_nav *nav = w->nav;
    g->n = g->cur = 0;
    g->waiting = false;
    g->wait_t = 0;
    int64_t s = sn_nav_nearest(nav, pos, NAV_SNAP, -1);
    if (s < 0)
        return false;
    sn_vec3 goal;
    if (to)
        goal = *to;
    else if (!sn_nav_random_point(nav, &g->rng, nav->nodes[s].comp, &goal))
        return false;
    int64_t t = sn_nav_nearest(nav, goal, GOAL_SNAP, nav->nodes[s].comp);
    if (t < 0 || !sn_nav_route(nav, (uint32_t)s, (uint32_t)t, g->can_cross, &g->route, &g->cap, &g->n))
        return false;
    /* the goal itself when it lies on the sidewalk at its node, else the node */
    const sn_nav_node *tn = &nav->nodes[t];
    g->goal = d2(goal, tn->p) <= 0.5 * tn->width + 0.5 ? goal : tn->p;
    g->check_t = 0;
    g->check_pos = pos;
    return true;
}

/* Horizontal distance from p to the segment a-b. */
static double seg_dist(sn_vec3 p, sn_vec3 a, sn_vec3 b)
{
    double dx = b.x - a.x, dy = b.y - a.y, l2 = dx * dx + dy * dy;
    double u = l2 > 1e-12 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / l2 : 0;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    return hypot(a.x + u * dx - p.x, a.y + u * dy - p.y);
}

/* True while a vehicle stands on the crossing (its centre within its half length + CW_ON_SLACK
** of the crossing's line), is within CW_ON of its middle, a vehicle faster than a walk is within
** CW_CLEAR, or one coming towards it would be within CW_CLEAR in CW_LOOK seconds (the bodies'
** grid). Cars waiting at the stop line beside a crosswalk do not hold a walker for the whole red
** phase; their leader check sees the walker in their path when the light turns green. */
static bool crossing_busy(const sn_engine *e, const sn_nav_crossing *c)
{
    const struct sn_traffic *t = e->traffic;
    sn_vec3 mid = sn_v3_scale(sn_v3_add(c->end[0], c->end[1]), 0.5);
    for (size_t i = 0; t && i < t->n; i++) {
        const body *b = &t->b[i];
        if (b->kind != SN_ACTOR_VEHICLE)
            continue;
        double d = d2(b->pos, mid), v = hypot(b->vel.x, b->vel.y);
        bool coming = b->vel.x * (mid.x - b->pos.x) + b->vel.y * (mid.y - b->pos.y) > 0;
        if (d < CW_ON || seg_dist(b->pos, c->end[0], c->end[1]) < b->ext.x + CW_ON_SLACK ||
            (v > 1.0 && (d < CW_CLEAR || (coming && d < CW_CLEAR + CW_LOOK * v))))
            return true;
    }
    return false;
}

/* The pedestrian signal's rule: a walker steps onto a crossing only while the cars that cross it
** have red, with time left for it to be across. A light whose stop line lies within XW_LIGHT_R of
** the crossing's middle governs those cars; while it is green or yellow, or red with less than
** the crossing's length at the walker's speed + XW_LIGHT_SLACK s left, the walker waits at the
** kerb (a real signal's "don't walk"). CARLA's walkers have no such rule (their navigation
** ignores lights). */
#define XW_LIGHT_R 10.0
#define XW_LIGHT_SLACK 1.5
static bool red_ending(const sn_engine *e, const sn_nav_crossing *c, double speed)
{
    if (!e->lights || !e->lights->n_stops)
        return false;
    sn_vec3 mid = sn_v3_scale(sn_v3_add(c->end[0], c->end[1]), 0.5);
    double need = d2(c->end[0], c->end[1]) / fmax(speed, 0.5) + XW_LIGHT_SLACK;
    return sn_lights_red_ending_near(e->lights, mid, XW_LIGHT_R, need);
}

/* Time until discs R apart meet, for relative position d (them - us) and closing velocity u
** (ours - theirs); 0 when they overlap and close, INFINITY when they never meet. */
static double time_to_collision(sn_vec3 d, sn_vec3 u, double R)
{
    double dd = d.x * d.x + d.y * d.y, du = d.x * u.x + d.y * u.y, uu = u.x * u.x + u.y * u.y;
    if (dd < R * R)
        return du > 0 ? 0 : INFINITY;
    if (uu < 1e-9)
        return INFINITY;
    double disc = du * du - uu * (dd - R * R);
    if (disc < 0)
        return INFINITY;
    double tc = (du - sqrt(disc)) / uu;
    return tc >= 0 ? tc : INFINITY;
}

typedef struct nb {
    sn_vec3 p, v;
    double r;        /* disc radius */
    bool reciprocal; /* a navigating walker that avoids us too */
    bool vehicle;
} nb;

/* Keeps the AV_MAXN nearest in out[] (by d; ties: grid order, deterministic). */
static void keep_nearest(nb *out, double *dist, size_t *k, nb x, double d)
{
    size_t at = *k;
    while (at > 0 && dist[at - 1] > d)
        at--;
    if (at >= AV_MAXN)
        return;
    size_t last = *k < AV_MAXN ? *k : AV_MAXN - 1;
    for (size_t q = last; q > at; q--)
        out[q] = out[q - 1], dist[q] = dist[q - 1];
    out[at] = x;
    dist[at] = d;
    if (*k < AV_MAXN)
        (*k)++;
}

/* The walkers within AV_RANGE and the vehicles within AV_CAR_RANGE of pos (the last frame's
** grid), nearest first. A vehicle is three discs along its length. */
static size_t neighbours(const sn_engine *e, const sn_actor *self, sn_vec3 pos, nb *out)
{
    const struct sn_traffic *t = e->traffic;
    double dist[AV_MAXN];
    size_t k = 0;
    if (!t)
        return 0;
    const double R = AV_CAR_RANGE;
    int64_t cx0 = sn_traffic_cell(pos.x - R), cx1 = sn_traffic_cell(pos.x + R);
    int64_t cy0 = sn_traffic_cell(pos.y - R), cy1 = sn_traffic_cell(pos.y + R);
    for (int64_t cx = cx0; cx <= cx1; cx++) {
        uint64_t k0 = sn_traffic_key(cx, cy0), k1 = sn_traffic_key(cx, cy1);
        size_t lo = sn_traffic_first(t, k0);
        for (size_t j = lo; j < t->n && t->b[j].key <= k1; j++) {
            const body *b = &t->b[j];
            if (b->a == self || b->down || fabs(b->pos.z - pos.z) > 3.0)
                continue;
            /* Farther than the vehicles' range for certain (hypot is within an ulp of the
            ** exact distance): no hypot for most of the bodies the cells hold. */
            double dx = b->pos.x - pos.x, dy = b->pos.y - pos.y;
            if (dx * dx + dy * dy > R * R * (1 + 1e-9))
                continue;
            double d = d2(pos, b->pos);
            sn_vec3 v = sn_v3(b->vel.x, b->vel.y, 0);
            if (b->kind == SN_ACTOR_WALKER && d <= AV_RANGE) {
                bool nav = b->a->has_autopilot && b->a->mv && b->a->mv->ap && b->a->mv->ap->map;
                keep_nearest(out, dist, &k, (nb){sn_v3(b->pos.x, b->pos.y, 0), v, AV_RADIUS, nav && sn_v3_len(v) > 0.2, false}, d);
            } else if (b->kind == SN_ACTOR_VEHICLE && d <= R) {
                const sn_vec3 ex = b->ext;
                double r = ex.y, off = fmax(ex.x - ex.y, 0);
                sn_vec3 f = sn_v3(b->fwd.x, b->fwd.y, 0);
                for (int q = -1; q <= 1; q++) {
                    sn_vec3 c = sn_v3(b->pos.x + q * off * f.x, b->pos.y + q * off * f.y, 0);
                    keep_nearest(out, dist, &k, (nb){c, v, r, false, true}, fmax(d2(pos, c) - r, 0));
                }
            }
        }
    }
    return k;
}

/* The velocity to walk at: of candidate turns and speeds of the wished velocity, the one of
** least cost |v - wish| + AV_W / time to collision (+ leaving the corridor from a to b, hw
** either side). Candidates turning right come first: equal costs pass on the right. */
static sn_vec3 avoid(const sn_engine *e, const sn_actor *self, sn_vec3 pos, sn_vec3 wish, sn_vec3 a, sn_vec3 b,
                     double hw)
{
    static const double turn[] = {0, 20, -20, 40, -40, 65, -65, 90, -90, 130, -130};
    static const double scale[] = {1.0, 0.7, 0.4, 0.15};
    nb n[AV_MAXN];
    pos.z = 0;
    size_t k = neighbours(e, self, pos, n);
    double ws = sn_v3_len(wish);
    if (!k || ws < 1e-3)
        return wish;
    sn_vec3 vcur = sn_v3(self->st.vel.x, self->st.vel.y, 0);
    double ax = b.x - a.x, ay = b.y - a.y, al = hypot(ax, ay);
    sn_vec3 best = sn_v3(0, 0, 0);
    double best_cost = INFINITY;
    double ct[SN_COUNT(turn)], st[SN_COUNT(turn)]; /* once per call, not per speed */
    for (size_t ti = 0; ti < SN_COUNT(turn); ti++)
        ct[ti] = cos(turn[ti] * SN_DEG), st[ti] = sin(turn[ti] * SN_DEG);
    for (size_t si = 0; si <= SN_COUNT(scale); si++) {
        for (size_t ti = 0; ti < SN_COUNT(turn); ti++) {
            if (si == SN_COUNT(scale) && ti) /* standing still: one candidate */
                break;
            double sp = si < SN_COUNT(scale) ? scale[si] * ws : 0;
            /* world frame z up, y to the right of x (CARLA's): a positive yaw turns right */
            double cx = wish.x / ws, cy = wish.y / ws;
            sn_vec3 v = sn_v3(sp * (cx * ct[ti] - cy * st[ti]), sp * (cx * st[ti] + cy * ct[ti]), 0);
            double cost = sn_v3_len(sn_v3_sub(v, wish));
            for (size_t j = 0; j < k && cost < best_cost; j++) {
                sn_vec3 d = sn_v3_sub(n[j].p, pos);
                sn_vec3 u = n[j].reciprocal ? sn_v3_sub(sn_v3_sub(sn_v3_scale(v, 2), vcur), n[j].v) : sn_v3_sub(v, n[j].v);
                double tc = time_to_collision(d, u, AV_RADIUS + n[j].r + AV_MARGIN);
                double w = n[j].vehicle ? AV_W * AV_W_CAR : AV_W;
                if (tc <= 1e-6)
                    cost += 100;
                else if (tc < AV_HORIZON)
                    cost += w / tc;
            }
            if (al > 1e-6) { /* the corridor, one second ahead */
                double qx = pos.x + v.x - a.x, qy = pos.y + v.y - a.y;
                double lat = fabs(qx * ay - qy * ax) / al;
                if (lat > hw)
                    cost += AV_EDGE * (lat - hw);
            }
            if (cost < best_cost)
                best_cost = cost, best = v;
        }
    }
    return best;
}

/* Moves g along its route past the nodes it reached from pos; a crossing starts only from its
** kerb, when clear (else g waits). Returns the edge being walked, route[cur-1] -> route[cur],
** or NULL before the first node. */
static const sn_nav_edge *advance_route(sn_engine *e, const sn_nav *nav, agent *g, sn_vec3 pos)
{
    g->waiting = false;
    while (g->cur + 1 < g->n) {
        uint32_t c = g->route[g->cur], nx = g->route[g->cur + 1];
        const sn_nav_edge *ed = sn_nav_edge_between(nav, c, nx);
        double dc = d2(pos, nav->nodes[c].p);
        if (ed && ed->kind != SN_NAV_SIDEWALK) {
            if (dc > KERB_REACH)
                break;
            if (crossing_busy(e, &nav->cross[ed->cross]) || red_ending(e, &nav->cross[ed->cross], g->max_speed)) {
                g->waiting = true;
                break;
            }
            g->cur++;
            continue;
        }
        sn_vec3 cp = nav->nodes[c].p, np = nav->nodes[nx].p;
        bool past = (pos.x - cp.x) * (np.x - cp.x) + (pos.y - cp.y) * (np.y - cp.y) > 0 && dc < 3.0;
        const sn_nav_edge *in = g->cur ? sn_nav_edge_between(nav, g->route[g->cur - 1], c) : NULL;
        if (dc < REACH || (past && (!in || in->kind == SN_NAV_SIDEWALK)))
            g->cur++;
        else
            break;
    }
    return g->cur ? sn_nav_edge_between(nav, g->route[g->cur - 1], g->route[g->cur]) : NULL;
}

static void stand(sn_actor *a) { a->mv->walk_speed = 0; }

void sn_walker_update(sn_engine *e, sn_actor *a, sn_mapdrive *md, double dt)
{
    struct sn_walkers *w;
    sn_error err = {0};
    agent *g;
    if (sn_walkers_get(e, &w, &err) != SN_OK || !w->nav->n_nodes || !(g = agent_of(w, a->id, true))) {
        stand(a);
        return;
    }
    if (g->md != md)
        agent_reset(w, g, a, md, false);
    const sn_nav *nav = w->nav;
    sn_vec3 pos = a->st.pos;
    if (g->idle) {
        stand(a);
        return;
    }
    /* CARLA's unblocking: a walker that hardly moved in UNBLOCK_TIME (not waiting at a kerb)
    ** gets a new random goal. */
    g->check_t += dt;
    if (g->check_t >= UNBLOCK_TIME) {
        bool stuck = !g->waiting && d2(pos, g->check_pos) < UNBLOCK_DIST && g->n;
        g->check_t = 0;
        g->check_pos = pos;
        if (stuck)
            g->n = 0;
    }
    if (!g->n) {
        g->retry_t -= dt;
        if (g->retry_t > 0 || !plan(w, g, pos, NULL)) {
            if (g->retry_t <= 0)
                g->retry_t = 1.0;
            stand(a);
            return;
        }
    }
    const sn_nav_edge *on = advance_route(e, nav, g, pos); /* the edge being walked */
    bool last = g->cur + 1 >= g->n;
    sn_vec3 target = last ? g->goal : nav->nodes[g->route[g->cur]].p;
    double dist = d2(pos, target);
    if (last && dist < ARRIVE) { /* arrived: CARLA's walker manager routes it to a random goal */
        if (!plan(w, g, pos, NULL))
            g->retry_t = 1.0;
        stand(a);
        return;
    }
    if (g->waiting) {
        g->wait_t += dt;
        if (g->wait_t > KERB_TIMEOUT) { /* CARLA's StopAndCheck timeout: another route */
            g->n = 0;
            stand(a);
            return;
        }
    } else {
        g->wait_t = 0;
    }
    double speed = g->max_speed;
    if (last)
        speed = fmin(speed, 0.3 + dist);
    if (g->waiting)
        speed = dist > 0.3 ? fmin(speed, dist) : 0;
    sn_vec3 wish = dist > 1e-6 ? sn_v3((target.x - pos.x) / dist * speed, (target.y - pos.y) / dist * speed, 0) : sn_v3(0, 0, 0);
    /* The corridor: the edge walked (or to the first node), half its width less a walker. */
    sn_vec3 ca = g->cur ? nav->nodes[g->route[g->cur - 1]].p : pos;
    double hw = on && on->kind != SN_NAV_SIDEWALK ? CROSS_HALF : 1.0;
    if (on && on->kind == SN_NAV_SIDEWALK && g->cur)
        hw = fmax(0.5 * fmin(nav->nodes[g->route[g->cur - 1]].width, nav->nodes[g->route[g->cur]].width) - AV_RADIUS,
                  0.25);
    sn_vec3 v = avoid(e, a, pos, wish, ca, target, hw);
    double vs = sn_v3_len(v);
    if (vs < 0.02) {
        stand(a);
        return;
    }
    a->mv->walk_dir = sn_v3(v.x / vs, v.y / vs, 0);
    a->mv->walk_speed = vs;
}

sn_status sn_walker_ai_start(sn_engine *e, sn_actor *a, sn_error *err)
{
    struct sn_walkers *w;
    sn_status st = sn_walkers_get(e, &w, err);
    if (st)
        return st;
    if (!w->nav->n_nodes)
        return sn_fail(err, SN_E_INVALID, "the map has no sidewalks: walkers have nowhere to navigate");
    if ((st = sn_mapdrive_start(e, a, NULL, -1, e->seed ^ (0x9e3779b97f4a7c15ull * (a->id + 1)), err)))
        return st;
    agent *g = agent_of(w, a->id, true);
    if (!g)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    agent_reset(w, g, a, a->mv->ap->map, true);
    return SN_OK;
}

static agent *ai_agent(sn_engine *e, sn_actor *a, struct sn_walkers **w, sn_error *err)
{
    if (sn_walkers_get(e, w, err))
        return NULL;
    agent *g = a->has_autopilot && a->mv->ap && a->mv->ap->map ? agent_of(*w, a->id, false) : NULL;
    if (!g || g->md != a->mv->ap->map) {
        sn_fail(err, SN_E_STATE, "walker %u has no started AI controller (controller.start() first)", a->id);
        return NULL;
    }
    return g;
}

sn_status sn_walker_ai_go_to(sn_engine *e, sn_actor *a, sn_vec3 to, sn_error *err)
{
    struct sn_walkers *w;
    agent *g = ai_agent(e, a, &w, err);
    if (!g)
        return err->status;
    g->idle = false;
    if (!plan(w, g, a->st.pos, &to)) {
        g->idle = true;
        return sn_fail(err, SN_E_INVALID, "no sidewalk route from walker %u at (%.1f, %.1f) to (%.1f, %.1f, %.1f)",
                       a->id, a->st.pos.x, a->st.pos.y, to.x, to.y, to.z);
    }
    return SN_OK;
}

sn_status sn_walker_ai_set_max_speed(sn_engine *e, sn_actor *a, double speed, sn_error *err)
{
    struct sn_walkers *w;
    agent *g = ai_agent(e, a, &w, err);
    if (!g)
        return err->status;
    g->max_speed = speed;
    return SN_OK;
}

sn_status sn_walkers_random_location(sn_engine *e, sn_vec3 *out, sn_error *err)
{
    struct sn_walkers *w;
    sn_status st = sn_walkers_get(e, &w, err);
    if (st)
        return st;
    if (!sn_nav_random_point(w->nav, &w->rng, -1, out))
        return sn_fail(err, SN_E_NOT_FOUND, "the map has no sidewalks to navigate");
    out->z += SN_ROAD_KERB; /* on the sidewalk's surface */
    return SN_OK;
}
