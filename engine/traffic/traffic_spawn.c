/* traffic_spawn.c — the scene's `traffic:` key: CARLA's generate_traffic.py as data. Vehicles
** go to the map's spawn points in a shuffled order (Fisher-Yates on the traffic seed), walkers
** to points every 10 m on the sidewalks, likewise shuffled; a point another actor already
** covers is skipped, as CARLA's spawn fails there. Names are traffic_000, ... and
** walker_000, ... in spawn order. */
#include "traffic.h"

#include "../map/road_mesh.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../plugin/attr.h"
#include "../sim/engine.h"
#include "../sim/spawn.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {"200,30,30", "30,30,200", "230,230,230", "40,40,40", "200,170,30",
                                      "30,140,60", "120,120,130", "150,40,120"};

static void shuffle(sn_rng *r, sn_transform *p, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(sn_rng_u64(r) % i);
        sn_transform t = p[i - 1];
        p[i - 1] = p[j];
        p[j] = t;
    }
}

/* Every 10 m (from 5 m) along each sidewalk lane outside junctions, a walker's centre 0.92 m
** above the sidewalk's surface (raised SN_ROAD_KERB above the road by the road mesh). */
static sn_status sidewalk_points(const sn_map *m, sn_transform **out, size_t *n, sn_error *err)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    const sn_odr *o = m->odr;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        if (r->junction >= 0)
            continue;
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            for (uint32_t li = 0; li < sec->n_lanes; li++) {
                if (sec->lanes[li].type != SN_LANE_SIDEWALK)
                    continue;
                for (double s = sec->s + 5; s < sec->s_end - 1; s += 10) {
                    sn_waypoint wp;
                    sn_map_make_waypoint(m, (sn_lanekey){(int32_t)ri, si, sec->lanes[li].id}, s, &wp);
                    if (wp.lane_width < 1.0)
                        continue; /* too narrow to stand on */
                    if (!sn_grow((void **)out, &cap, *n + 1, sizeof **out))
                        return sn_fail(err, SN_E_NOMEM, "out of memory");
                    wp.transform.location.z += SN_ROAD_KERB + 0.92;
                    (*out)[(*n)++] = wp.transform;
                }
            }
        }
    }
    return SN_OK;
}

/* The blueprints a `blueprints:` list picks from: per entry, the library's blueprints of kind
** `kind` its pattern matches (fnmatch, library order). */
typedef struct picker {
    const sn_traffic_pick *picks;
    uint32_t n;
    const sn_blueprint **bps; /* every entry's matches, one after another */
    uint32_t *first, *count;  /* per entry */
    double total;             /* the weights' sum */
} picker;

static void picker_free(picker *p)
{
    free(p->bps);
    free(p->first);
    free(p->count);
}

static sn_status picker_init(picker *p, sn_engine *e, int k, sn_error *err)
{
    const sn_scene_traffic *t = &e->scene.traffic;
    const sn_actor_kind kind = k ? SN_ACTOR_WALKER : SN_ACTOR_VEHICLE;
    memset(p, 0, sizeof *p);
    p->picks = t->picks[k], p->n = t->n_picks[k];
    if (!p->n)
        return SN_OK;
    p->first = calloc(p->n, sizeof *p->first), p->count = calloc(p->n, sizeof *p->count);
    size_t cap = 0, used = 0;
    if (!p->first || !p->count)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < p->n; i++) {
        p->first[i] = (uint32_t)used;
        for (size_t b = 0; b < e->lib.n_bps; b++) {
            const sn_blueprint *bp = &e->lib.bps[b];
            if (bp->kind != kind || fnmatch(p->picks[i].pattern, bp->id, 0))
                continue;
            if (!sn_grow((void **)&p->bps, &cap, used + 1, sizeof *p->bps))
                return sn_fail(err, SN_E_NOMEM, "out of memory");
            p->bps[used++] = bp;
        }
        p->count[i] = (uint32_t)(used - p->first[i]);
        if (!p->count[i])
            return sn_fail(err, SN_E_INVALID, "%s: '%s' matches no %s blueprint (see `sensim blueprints`)",
                           sn_scene_where(&e->scene, p->picks[i].pos).s, p->picks[i].pattern, k ? "walker" : "vehicle");
        p->total += p->picks[i].weight;
    }
    return SN_OK;
}

/* An entry by weight, then one of its matches, uniformly: two draws from rng. */
static const sn_blueprint *pick(const picker *p, sn_rng *rng)
{
    double x = sn_rng_uniform(rng) * p->total;
    uint32_t i = 0;
    while (i + 1 < p->n && x >= p->picks[i].weight)
        x -= p->picks[i++].weight;
    return p->bps[p->first[i] + (uint32_t)(sn_rng_u64(rng) % p->count[i])];
}

/* Spawns up to `want` actors at the points in order, each with a map autopilot: of blueprint bp,
** or each of a blueprint picked from pk (when it has entries) in the colour of one of its
** recommended colours (CARLA's generate_traffic.py: random.choice of the recommended values). */
static sn_status spawn_at(sn_engine *e, const sn_blueprint *bp0, const picker *pk, const sn_transform *pts, size_t n,
                          uint32_t want, const char *prefix, uint64_t seed, sn_rng *rng, uint32_t *made, sn_error *err)
{
    const sn_scene_traffic *t = &e->scene.traffic;
    *made = 0;
    for (size_t i = 0; i < n && *made < want; i++) {
        char name[64], where[SN_ERROR_MAX + 16];
        snprintf(name, sizeof name, "%s_%03u", prefix, *made);
        sn_attribute attrs[1];
        uint32_t na = 0;
        const sn_blueprint *bp = pk->n ? pick(pk, rng) : bp0;
        int ci = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "color");
        const sn_attr_def *cd = ci >= 0 ? (const sn_attr_def *)((const char *)bp->attrs + (size_t)ci * bp->stride) : NULL;
        if (pk->n && bp->kind == SN_ACTOR_VEHICLE && cd && cd->recommended && cd->recommended[0]) {
            size_t nr = 0;
            while (cd->recommended[nr])
                nr++;
            attrs[0] = (sn_attribute){"color", cd->recommended[sn_rng_u64(rng) % nr]};
            na = 1;
        } else if (!pk->n && bp->kind == SN_ACTOR_VEHICLE && cd) {
            attrs[0] = (sn_attribute){"color", palette[sn_rng_u64(rng) % SN_COUNT(palette)]};
            na = 1;
        }
        sn_spawn_desc d = {.bp = bp, .name = name, .transform = pts[i]};
        sn_status st = sn_blueprint_resolve(bp, attrs, na, NULL, NULL, &d.values, err);
        sn_actor *a = NULL;
        if (!st)
            st = sn_spawn_actor(e, &d, &a, err);
        if (st && d.refused == SN_SPAWN_OVERLAP) { /* a point taken: the next one */
            *err = (sn_error){0};
            continue;
        }
        snprintf(where, sizeof where, "%s: traffic", sn_scene_where(&e->scene, t->pos).s);
        if (!st)
            st = sn_mapdrive_start(e, a, &t->knobs, -1, seed ^ (0x9e3779b97f4a7c15ull * (a->id + 1)), err);
        if (st) {
            sn_error_prefix(err, where);
            return st;
        }
        (*made)++;
    }
    return SN_OK;
}

static void warn(sn_engine *e, const char *line)
{
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else if (!e->opts.quiet_plugins)
        fprintf(stderr, "sensim: warning: %s\n", line);
}

sn_status sn_traffic_spawn(sn_engine *e, sn_error *err)
{
    const sn_scene_traffic *t = &e->scene.traffic;
    if (!t->present || (!t->vehicles && !t->walkers))
        return SN_OK;
    const sn_where wh = sn_scene_where(&e->scene, t->pos);
    const char *where = wh.s;
    if (!e->map)
        return sn_fail(err, SN_E_INVALID, "%s: traffic drives on a map, and the scene has none (map: FILE.xodr)", where);
    const char *vid = t->blueprint ? t->blueprint : "vehicle.sedan";
    const sn_blueprint *vbp = sn_library_find(&e->lib, vid), *wbp = sn_library_find(&e->lib, "walker.pedestrian");
    if (!vbp || vbp->kind != SN_ACTOR_VEHICLE)
        return sn_fail(err, SN_E_INVALID, "%s: traffic.blueprint '%s' is no vehicle blueprint (see `sensim blueprints`)",
                       sn_scene_where(&e->scene, t->blueprint ? t->blueprint_pos : t->pos).s, vid);
    uint64_t seed = t->has_seed ? t->seed : e->seed;
    sn_rng rng;
    sn_rng_seed(&rng, seed ^ 0x7472616666696300ull); /* "traffic": its own stream, apart from the sensors' */
    size_t n = 0;
    sn_status st = sn_map_spawn_points(e->map, NULL, 0, &n, err);
    sn_transform *pts = n ? malloc(n * sizeof *pts) : NULL;
    if (!st && n && !pts)
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    if (!st && n)
        st = sn_map_spawn_points(e->map, pts, n, &n, err);
    uint32_t made = 0;
    char line[SN_ERROR_MAX + 128];
    picker pk[2];
    memset(pk, 0, sizeof pk);
    if (!st)
        st = picker_init(&pk[0], e, 0, err);
    if (!st)
        st = picker_init(&pk[1], e, 1, err);
    if (!st) {
        shuffle(&rng, pts, n);
        st = spawn_at(e, vbp, &pk[0], pts, n, t->vehicles, "traffic", seed, &rng, &made, err);
    }
    free(pts);
    if (st) {
        picker_free(&pk[0]), picker_free(&pk[1]);
        return st;
    }
    if (made < t->vehicles) {
        snprintf(line, sizeof line, "%s: %u vehicles asked for, the map's %zu spawn points took %u", where,
                 t->vehicles, n, made);
        warn(e, line);
    }
    picker_free(&pk[0]);
    if (!t->walkers) {
        picker_free(&pk[1]);
        return SN_OK;
    }
    if (!wbp && !pk[1].n) {
        picker_free(&pk[1]);
        return sn_fail(err, SN_E_INVALID, "%s: the built-in walker.pedestrian is missing", where);
    }
    if ((st = sidewalk_points(e->map, &pts, &n, err))) {
        free(pts);
        picker_free(&pk[1]);
        return st;
    }
    shuffle(&rng, pts, n);
    st = spawn_at(e, wbp, &pk[1], pts, n, t->walkers, "walker", seed ^ 0x77616c6b6572ull, &rng, &made, err);
    picker_free(&pk[1]);
    free(pts);
    if (!st && made < t->walkers) {
        snprintf(line, sizeof line, "%s: %u walkers asked for, the map's sidewalks took %u", where, t->walkers, made);
        warn(e, line);
    }
    return st;
}
