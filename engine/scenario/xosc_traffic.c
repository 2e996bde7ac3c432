/* xosc_traffic.c — TrafficSwarmAction, TrafficSourceAction and TrafficSinkAction on sensim's
** traffic: vehicles with the map autopilot (traffic.h), spawned and despawned each step.
**
** Swarm: the area is the ellipse of semi-axes semiMajorAxis (along the central entity's heading)
** and semiMinorAxis, centred `offset` m ahead of the central entity, less the circle of
** innerRadius around the entity. Each step the swarm's vehicles outside the ellipse go, and, while
** fewer than numberOfVehicles remain, vehicles spawn at the map's spawn points (CARLA's
** get_spawn_points: every 20 m along each driving lane outside junctions, in its direction of
** travel) inside the area, in a shuffled order, each at least CLEAR m from every vehicle.
** Source: `rate` vehicles a second at points drawn uniformly in the disc of `radius` around its
** position that fall on a driving lane (moved to the lane's centre). Sink: removes the vehicles
** of the scenario's sources and swarms within `radius` of its position, at most `rate` a second.
** Every draw comes from one generator per action seeded with the run's seed: the same scenario and
** seed spawn the same vehicles at the same places. docs/openscenario.md, "Traffic". */
#include "xosc_traffic.h"

#include "../core/error.h"
#include "../core/rng.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../plugin/attr.h"
#include "../sim/engine.h"
#include "../sim/spawn.h"
#include "../traffic/traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLEAR 15.0      /* m from any vehicle to a new one (esmini's swarm keeps 20 m between its own) */
#define SOURCE_DRAWS 20 /* points drawn in a source's disc before a vehicle is given up */

typedef struct trun {
    sn_rng rng;
    uint32_t *ids;  /* the vehicles it spawned and that live */
    uint32_t n;
    size_t cap;
    double t0;      /* source, sink: when it started; */
    uint64_t done;  /* ... vehicles spawned (or given up) or removed since: rate x (t - t0) are due */
    uint32_t given_up; /* source: vehicles it found no place for */
} trun;

struct sn_xtraffic_state {
    trun *runs;     /* per sn_xrun.traffic entry */
    uint32_t n;
    double *pts;    /* the map's spawn points: x, y (OpenSCENARIO's frame), then the CARLA transform's index */
    sn_transform *tf;
    size_t n_pts;
    bool pts_done;
    uint32_t *order; /* a step's candidates */
    double *veh;     /* a step's vehicles: x, y (OpenSCENARIO's frame) */
    size_t cap_veh;
    uint32_t counter[2]; /* names: swarm_N, source_N */
};

void sn_xtraffic_free(sn_xtraffic_state *st)
{
    if (!st)
        return;
    for (uint32_t k = 0; k < st->n; k++)
        free(st->runs[k].ids);
    free(st->runs);
    free(st->pts);
    free(st->tf);
    free(st->order);
    free(st->veh);
    free(st);
}

static sn_status where(sn_xrun *r, const sn_xaction *a, sn_error *err)
{
    char w[600];
    snprintf(w, sizeof w, "%s:%d: %s", r->x->path, a->line,
             a->tr_kind == SN_XTF_SWARM ? "TrafficSwarmAction" : a->tr_kind == SN_XTF_SOURCE ? "TrafficSourceAction"
                                                                                            : "TrafficSinkAction");
    return sn_error_prefix(err, w);
}

/* The spawned vehicle's blueprint: a category by TrafficDefinition's weights, else the central
** entity's (a swarm of a vehicle) or vehicle.sedan. */
static const char *blueprint_of(sn_xrun *r, const sn_xaction *a, sn_rng *rng)
{
    if (a->weights) {
        double total = 0;
        for (int k = 0; k < SN_XCAT_N; k++)
            total += a->weights[k];
        double x = sn_rng_uniform(rng) * total;
        int k = 0;
        while (k + 1 < SN_XCAT_N && (x >= a->weights[k] || a->weights[k] <= 0))
            x -= a->weights[k++];
        return sn_xosc_vehicle_blueprint(sn_xosc_vehicle_cats[k], 4.5);
    }
    if (a->tr_kind == SN_XTF_SWARM && r->x->ents[a->ref].kind == SN_XEN_VEHICLE)
        return r->x->ents[a->ref].blueprint;
    return "vehicle.sedan";
}

/* Spawns one vehicle of action a at tf (CARLA's frame) with the map autopilot; *made false when
** the place is taken (CARLA's collision at spawn). */
static sn_status spawn_one(sn_engine *e, sn_xrun *r, sn_xtraffic_state *st, trun *t, const sn_xaction *a,
                           sn_transform tf, bool *made, sn_error *err)
{
    *made = false;
    const char *bid = blueprint_of(r, a, &t->rng);
    double v = isnan(a->tr_v0) ? -1 : a->tr_v0 + (a->tr_v1 - a->tr_v0) * sn_rng_uniform(&t->rng);
    const sn_blueprint *bp = sn_library_find(&e->lib, bid);
    if (!bp || bp->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_INVALID, "no vehicle blueprint '%s'", bid);
    char name[64];
    int k = a->tr_kind == SN_XTF_SWARM ? 0 : 1;
    do /* a name no actor has (a scenario entity may be called swarm_0) */
        snprintf(name, sizeof name, "%s_%u", k ? "source" : "swarm", st->counter[k]++);
    while (sn_world_find_name(&e->world, name));
    sn_attribute attrs[1] = {{"role_name", name}};
    uint32_t na = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "role_name") >= 0 ? 1 : 0;
    sn_spawn_desc d = {.bp = bp, .name = name, .transform = tf};
    sn_status s = sn_blueprint_resolve(bp, attrs, na, NULL, NULL, &d.values, err);
    sn_actor *ac = NULL;
    if (!s)
        s = sn_spawn_actor(e, &d, &ac, err);
    if (s && d.refused == SN_SPAWN_OVERLAP) {
        *err = (sn_error){0};
        return SN_OK;
    }
    if (s)
        return s;
    sn_tm_knobs kn = {NAN, NAN, NAN};
    if ((s = sn_mapdrive_start(e, ac, &kn, v, sn_rng_u64(&t->rng), err)))
        return s;
    if (v > 0) {
        double yaw = tf.rotation.yaw * M_PI / 180;
        sn_world_set_velocity(&e->world, ac, sn_v3(v * cos(yaw), v * sin(yaw), 0), sn_v3(0, 0, 0));
    }
    if (!sn_grow((void **)&t->ids, &t->cap, t->n + 1, sizeof *t->ids))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    t->ids[t->n++] = ac->id;
    *made = true;
    return SN_OK;
}

/* The vehicles of the world now, (x, y) in OpenSCENARIO's frame, into st->veh; their count. */
static size_t vehicles(sn_engine *e, sn_xtraffic_state *st, sn_error *err, bool *ok)
{
    size_t n = 0;
    *ok = true;
    for (size_t i = 0; i < e->world.n_actors; i++) {
        const sn_actor *a = e->world.actors[i];
        if (a->kind != SN_ACTOR_VEHICLE)
            continue;
        if (!sn_grow((void **)&st->veh, &st->cap_veh, 2 * (n + 1), sizeof *st->veh)) {
            *ok = false;
            sn_fail(err, SN_E_NOMEM, "out of memory");
            return 0;
        }
        sn_transform t = sn_actor_world_transform(&e->world, a);
        st->veh[2 * n] = t.location.x, st->veh[2 * n + 1] = -t.location.y;
        n++;
    }
    return n;
}

static bool clear_of(const sn_xtraffic_state *st, size_t nv, double x, double y)
{
    for (size_t j = 0; j < nv; j++)
        if (hypot(st->veh[2 * j] - x, st->veh[2 * j + 1] - y) < CLEAR)
            return false;
    return true;
}

/* (x, y) inside the swarm's ellipse: centre (cx, cy), major axis along h. */
static bool in_ellipse(const sn_xaction *a, double cx, double cy, double h, double x, double y)
{
    double dx = x - cx, dy = y - cy;
    double u = (dx * cos(h) + dy * sin(h)) / a->tr_major, w = (-dx * sin(h) + dy * cos(h)) / a->tr_minor;
    return u * u + w * w <= 1;
}

static sn_status load_points(sn_engine *e, sn_xtraffic_state *st, sn_error *err)
{
    st->pts_done = true;
    size_t n = 0;
    sn_status s = sn_map_spawn_points(e->map, NULL, 0, &n, err);
    if (s || !n)
        return s;
    if (!(st->tf = malloc(n * sizeof *st->tf)) || !(st->pts = malloc(2 * n * sizeof *st->pts)) ||
        !(st->order = malloc(n * sizeof *st->order)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    if ((s = sn_map_spawn_points(e->map, st->tf, n, &n, err)))
        return s;
    for (size_t i = 0; i < n; i++)
        st->pts[2 * i] = st->tf[i].location.x, st->pts[2 * i + 1] = -st->tf[i].location.y;
    st->n_pts = n;
    return SN_OK;
}

static sn_status swarm(sn_engine *e, sn_xrun *r, sn_xtraffic_state *st, trun *t, const sn_xaction *a, sn_error *err)
{
    const sn_xent *c = &r->ents[a->ref];
    double cx = c->x + a->tr_offset * cos(c->h), cy = c->y + a->tr_offset * sin(c->h);
    /* those that left the ellipse go */
    for (uint32_t k = 0; k < t->n; k++) {
        sn_actor *ac = sn_world_find(&e->world, t->ids[k]);
        bool keep = ac != NULL;
        if (ac) {
            sn_transform tf = sn_actor_world_transform(&e->world, ac);
            keep = in_ellipse(a, cx, cy, c->h, tf.location.x, -tf.location.y);
            if (!keep && sn_destroy_actor(e, ac->id))
                return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
        }
        if (!keep)
            t->ids[k--] = t->ids[--t->n];
    }
    if (t->n >= a->tr_n)
        return SN_OK;
    if (!st->pts_done) {
        sn_status s = load_points(e, st, err);
        if (s)
            return s;
    }
    size_t nc = 0;
    for (size_t i = 0; i < st->n_pts; i++) {
        double x = st->pts[2 * i], y = st->pts[2 * i + 1];
        if (in_ellipse(a, cx, cy, c->h, x, y) && hypot(x - c->x, y - c->y) > a->tr_inner)
            st->order[nc++] = (uint32_t)i;
    }
    if (!nc)
        return SN_OK;
    for (size_t i = nc; i > 1; i--) { /* Fisher-Yates on the action's generator */
        size_t j = (size_t)(sn_rng_u64(&t->rng) % i);
        uint32_t tmp = st->order[i - 1];
        st->order[i - 1] = st->order[j];
        st->order[j] = tmp;
    }
    bool ok;
    size_t nv = vehicles(e, st, err, &ok);
    if (!ok)
        return err->status;
    for (size_t i = 0; i < nc && t->n < a->tr_n; i++) {
        uint32_t p = st->order[i];
        if (!clear_of(st, nv, st->pts[2 * p], st->pts[2 * p + 1]))
            continue;
        bool made;
        sn_status s = spawn_one(e, r, st, t, a, st->tf[p], &made, err);
        if (s)
            return s;
        if (made) { /* the next one keeps clear of it too */
            if (!sn_grow((void **)&st->veh, &st->cap_veh, 2 * (nv + 1), sizeof *st->veh))
                return sn_fail(err, SN_E_NOMEM, "out of memory");
            st->veh[2 * nv] = st->pts[2 * p], st->veh[2 * nv + 1] = st->pts[2 * p + 1];
            nv++;
        }
    }
    return SN_OK;
}

static sn_status source(sn_engine *e, sn_xrun *r, sn_xtraffic_state *st, trun *t, const sn_xtraffic *tr,
                        const sn_xaction *a, sn_error *err)
{
    while ((double)t->done + 1 <= a->tr_rate * (r->t - t->t0) + 1e-9) { /* one at t0 + k / rate, k = 1, 2, ... */
        t->done++;
        bool ok, made = false;
        size_t nv = vehicles(e, st, err, &ok);
        if (!ok)
            return err->status;
        for (int k = 0; k < SOURCE_DRAWS && !made; k++) {
            double rr = a->tr_radius * sqrt(sn_rng_uniform(&t->rng)), th = 2 * M_PI * sn_rng_uniform(&t->rng);
            double x = tr->x + rr * cos(th), y = tr->y + rr * sin(th);
            sn_map_place pl;
            if (!sn_map_locate(e->map, sn_v3(x, -y, tr->z), 2.0, SN_LANE_DRIVING, &pl) || pl.outside > 0)
                continue;
            sn_waypoint wp;
            sn_map_make_waypoint(e->map, (sn_lanekey){pl.road, pl.section, pl.lane}, pl.s, &wp);
            if (!clear_of(st, nv, wp.transform.location.x, -wp.transform.location.y))
                continue;
            sn_transform tf = wp.transform;
            tf.location.z += 0.5; /* as the map's spawn points: the box clears the surface */
            tf.rotation.pitch = tf.rotation.roll = 0;
            sn_status s = spawn_one(e, r, st, t, a, tf, &made, err);
            if (s)
                return s;
        }
        if (!made)
            t->given_up++;
    }
    return SN_OK;
}

static sn_status sink(sn_engine *e, sn_xrun *r, sn_xtraffic_state *st, trun *t, const sn_xtraffic *tr,
                      const sn_xaction *a, sn_error *err)
{
    bool unlimited = isinf(a->tr_rate);
    /* at most rate x (t - t0) removals so far; idle time banks none: done follows the allowance */
    double allow = unlimited ? INFINITY : floor(a->tr_rate * (r->t - t->t0) + 1e-9);
    if (!unlimited && (double)t->done + 1 < allow)
        t->done = (uint64_t)allow - 1;
#define ROOM (unlimited || (double)t->done + 1 <= allow)
    for (uint32_t q = 0; q < st->n && ROOM; q++) {
        trun *o = &st->runs[q];
        if (r->x->actions[r->traffic[q].action].tr_kind == SN_XTF_SINK)
            continue;
        for (uint32_t k = 0; k < o->n && ROOM; k++) {
            sn_actor *ac = sn_world_find(&e->world, o->ids[k]);
            if (ac) {
                sn_transform tf = sn_actor_world_transform(&e->world, ac);
                if (hypot(tf.location.x - tr->x, -tf.location.y - tr->y) > a->tr_radius)
                    continue;
                if (sn_destroy_actor(e, ac->id))
                    return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
                t->done++;
            }
            o->ids[k--] = o->ids[--o->n];
        }
    }
#undef ROOM
    return SN_OK;
}

sn_status sn_xtraffic_step(sn_engine *e, sn_xrun *r, sn_xtraffic_state **stp, sn_error *err)
{
    if (!r->n_traffic)
        return SN_OK;
    sn_xtraffic_state *st = *stp;
    if (!st && !(st = *stp = calloc(1, sizeof *st)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    if (st->n < r->n_traffic) {
        trun *nw = realloc(st->runs, r->n_traffic * sizeof *nw);
        if (!nw)
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        st->runs = nw;
        for (uint32_t k = st->n; k < r->n_traffic; k++) {
            memset(&nw[k], 0, sizeof nw[k]);
            nw[k].t0 = r->t;
            /* its own stream: the run's seed, the action's place in the file and its start order */
            sn_rng_seed(&nw[k].rng, e->seed ^ 0x7377726d00000000ull ^ ((uint64_t)r->traffic[k].action << 20) ^ k);
        }
        st->n = r->n_traffic;
    }
    for (uint32_t k = 0; k < r->n_traffic; k++) {
        const sn_xtraffic *tr = &r->traffic[k];
        const sn_xaction *a = &r->x->actions[tr->action];
        if (!tr->active)
            continue;
        if (!e->map) {
            sn_fail(err, SN_E_INVALID, "traffic drives on a map, and the scenario has none (RoadNetwork/LogicFile)");
            return where(r, a, err);
        }
        sn_status s = a->tr_kind == SN_XTF_SWARM    ? swarm(e, r, st, &st->runs[k], a, err)
                      : a->tr_kind == SN_XTF_SOURCE ? source(e, r, st, &st->runs[k], tr, a, err)
                                                    : sink(e, r, st, &st->runs[k], tr, a, err);
        if (s)
            return where(r, a, err);
    }
    return SN_OK;
}
