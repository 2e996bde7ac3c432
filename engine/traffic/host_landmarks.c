/* host_landmarks.c — the host's traffic queries (ABI 1.6): an actor's planned route and the
** lights and signs governing its lanes ahead, from the autopilot's path and the stop lines the
** autopilot itself obeys (lights.h, signs.h). It lives in traffic/ because it reads traffic's
** data; the engine (frame/engine.c) adds it to the host table sim/host.c fills, so sim/ never
** includes traffic/. */
#include "host_landmarks.h"

#include "lights.h"
#include "signs.h"
#include "traffic.h"

#include "../core/util.h"
#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <sensim/grow.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROUTE_STEP 2.0     /* m between route waypoints, as the autopilot's path (SN_MD_STEP) */
#define ROUTE_MAX 1000.0   /* m: the longest route a query walks */

static const sn_mapdrive *drive_of(const sn_actor *a)
{
    return a && a->has_autopilot && a->mv && a->mv->ap ? a->mv->ap->map : NULL;
}

static sn_status h_actor_route(sn_ctx *c, uint32_t id, sn_waypoint *out, uint32_t cap, uint32_t *n_found)
{
    const sn_actor *a = sn_world_find(&c->engine->world, id);
    if (!n_found || (cap && !out)) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "actor_route: NULL n_found, or NULL out with cap %u", cap);
        return SN_E_INVALID;
    }
    *n_found = 0;
    if (!a) {
        sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "actor_route: no live actor has id %u", id);
        return SN_E_NOT_FOUND;
    }
    const sn_mapdrive *md = drive_of(a);
    if (!md)
        return SN_OK;
    for (uint32_t i = 0; i < md->n && i < cap; i++) /* the autopilot keeps its path packed (traffic.h) */
        out[i] = sn_md_wp(md, i);
    *n_found = md->n;
    return SN_OK;
}

static int lane_dir_of(const sn_map *m, int32_t road_id, int32_t lane_id)
{
    int32_t ri = sn_odr_road_index(m->odr, road_id);
    return ri < 0 ? (lane_id < 0 ? 1 : -1) : sn_map_lane_dir(&m->odr->roads[ri], lane_id);
}

static double wrap180(double d)
{
    d = fmod(d, 360.0);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

/* The route ahead of actor a, `reach` metres: its autopilot's path, continued (or, without one,
** begun at its lane position) waypoint by waypoint, at a fork the branch turning least. along[i]
** is the distance from the actor's position to route[i] along the route. */
static sn_status route_ahead(sn_ctx *c, const sn_actor *a, double reach, sn_waypoint **route, double **along,
                             uint32_t *n)
{
    const sn_map *m = c->engine->map;
    const sn_mapdrive *md = drive_of(a);
    sn_transform t = sn_actor_world_transform(&c->engine->world, a);
    size_t cap = (size_t)(reach / ROUTE_STEP) + 4 + (md ? md->n : 0);
    sn_waypoint *r = malloc(cap * sizeof *r);
    double *d = malloc(cap * sizeof *d);
    sn_error err = {0};
    *route = r, *along = d, *n = 0;
    if (!r || !d)
        return SN_E_NOMEM;
    uint32_t k = 0;
    if (md && md->n) {
        for (; k < md->n; k++)
            r[k] = sn_md_wp(md, k);
    } else if (sn_map_waypoint(m, t.location, true, SN_LANE_DRIVING, &r[0], &err)) {
        return SN_OK; /* on no lane: nothing governs it */
    } else {
        k = 1;
    }
    /* the actor's distance to route[0] along the route's heading there (negative: passed) */
    double yaw = r[0].transform.rotation.yaw * SN_DEG;
    sn_vec3 off = sn_v3_sub(r[0].transform.location, t.location);
    d[0] = off.x * cos(yaw) + off.y * sin(yaw);
    for (uint32_t i = 1; i < k; i++)
        d[i] = d[i - 1] + sn_v3_len(sn_v3_sub(r[i].transform.location, r[i - 1].transform.location));
    while (k < cap && d[k - 1] < reach) {
        sn_waypoint next[8];
        size_t nn = 0;
        if (sn_map_next(m, &r[k - 1], ROUTE_STEP, next, 8, &nn, &err) || nn == 0)
            break;
        size_t best = 0;
        for (size_t b = 1; b < nn && b < 8; b++)
            if (fabs(wrap180(next[b].transform.rotation.yaw - r[k - 1].transform.rotation.yaw)) <
                fabs(wrap180(next[best].transform.rotation.yaw - r[k - 1].transform.rotation.yaw)))
                best = b;
        r[k] = next[best];
        d[k] = d[k - 1] + sn_v3_len(sn_v3_sub(r[k].transform.location, r[k - 1].transform.location));
        k++;
    }
    *n = k;
    return SN_OK;
}

typedef struct found {
    sn_landmark *out;
    uint32_t stride, cap, n;
} found;

static void add(found *f, const sn_landmark *l)
{
    if (f->n < f->cap) {
        sn_landmark x = *l;
        x.struct_size = f->stride < sizeof x ? f->stride : (uint32_t)sizeof x;
        memcpy((char *)f->out + (size_t)f->n * f->stride, &x, x.struct_size);
    }
    f->n++;
}

/* Whether signal `sig` (light index + 1, or -(sign index + 1)) was reported already. */
static bool seen(int64_t *ids, uint32_t n, int64_t sig)
{
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == sig)
            return true;
    return false;
}

static bool keep(int64_t **ids, uint32_t *n, uint32_t *cap, int64_t sig)
{
    if (!sn_grow_array32((void **)ids, cap, (size_t)*n + 1, sizeof **ids))
        return false;
    (*ids)[(*n)++] = sig;
    return true;
}

static sn_status h_landmarks_ahead(sn_ctx *c, uint32_t id, double distance, uint32_t kinds, sn_landmark *out,
                                   uint32_t cap, uint32_t *n_found)
{
    char *msg = sn_ctx_error_buf(c);
    if (!n_found || (cap && !out)) {
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: NULL n_found, or NULL out with cap %u", cap);
        return SN_E_INVALID;
    }
    *n_found = 0;
    if (cap && out->struct_size < offsetof(sn_landmark, line) + sizeof(sn_waypoint)) {
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: out[0].struct_size %u: set it to sizeof(sn_landmark)",
                  out->struct_size);
        return SN_E_INVALID;
    }
    if (!(distance >= 0 && distance <= ROUTE_MAX)) {
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: distance %g m is outside [0, %g]", distance, ROUTE_MAX);
        return SN_E_RANGE;
    }
    const sn_actor *a = sn_world_find(&c->engine->world, id);
    if (!a) {
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: no live actor has id %u", id);
        return SN_E_NOT_FOUND;
    }
    const sn_map *m = c->engine->map;
    if (!m)
        return SN_OK;
    kinds = kinds ? kinds : SN_LANDMARK_LIGHT | SN_LANDMARK_STOP | SN_LANDMARK_YIELD | SN_LANDMARK_SPEED;
    sn_waypoint *route;
    double *along;
    uint32_t n;
    int64_t *ids = NULL;
    uint32_t cap_ids = 0;
    sn_pathwp *packed = NULL; /* the route as sn_tl_stop_applies reads it */
    sn_status st = route_ahead(c, a, distance, &route, &along, &n);
    if (!st && n && !(packed = malloc(n * sizeof *packed)))
        st = SN_E_NOMEM;
    for (uint32_t i = 0; !st && i < n; i++)
        packed[i] = sn_md_pack(&route[i]);
    if (st) {
        free(route), free(along), free(packed);
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: out of memory");
        return st;
    }
    found f = {out, cap ? out->struct_size : 0, cap, 0};
    uint32_t n_ids = 0;
    const sn_lights *ls = c->engine->lights;
    const sn_signs *ss = c->engine->signs;
    for (uint32_t i = 0; i < n; i++) {
        const sn_waypoint *w = &route[i];
        double step = i + 1 < n ? along[i + 1] - along[i] : ROUTE_STEP;
        int dir = lane_dir_of(m, w->road_id, w->lane_id);
        uint32_t ns = 0;
        const sn_tl_stop *tl = (kinds & SN_LANDMARK_LIGHT) && ls ? sn_lights_stops_of(ls, w->road_id, w->lane_id, &ns) : NULL;
        for (uint32_t k = 0; k < ns; k++) {
            double ds = (tl[k].s - w->s) * dir, at = along[i] + ds;
            if (ds < -1e-6 || ds >= step - 1e-6 || at < 0 || at > distance || seen(ids, n_ids, tl[k].light + 1) ||
                !sn_tl_stop_applies(tl[k].via_road, tl[k].via_lane, &packed[i], n - i))
                continue;
            const sn_tlight *l = &ls->l[tl[k].light];
            sn_landmark x = {.kind = SN_LANDMARK_LIGHT, .actor_id = l->actor, .signal_id = l->signal_id,
                             .state = l->actor ? l->state : SN_TL_UNKNOWN, .distance = at};
            sn_error err = {0};
            if (sn_map_waypoint_xodr(m, tl[k].road_id, tl[k].lane_id, tl[k].s, &x.line, &err))
                x.line = *w;
            if (!keep(&ids, &n_ids, &cap_ids, tl[k].light + 1))
                st = SN_E_NOMEM;
            add(&f, &x);
        }
        const sn_sign_line *sl = ss ? sn_signs_lines_of(ss, w->road_id, w->lane_id, &ns) : (ns = 0, NULL);
        for (uint32_t k = 0; k < ns; k++) {
            const sn_sign *sg = &ss->s[sl[k].sign];
            uint32_t kind = sg->kind == SN_BIND_STOP ? SN_LANDMARK_STOP : sg->kind == SN_BIND_YIELD ? SN_LANDMARK_YIELD
                                                                                                 : SN_LANDMARK_SPEED;
            double ds = (sl[k].b.s - w->s) * dir, at = along[i] + ds;
            if (!(kinds & kind) || ds < -1e-6 || ds >= step - 1e-6 || at < 0 || at > distance ||
                seen(ids, n_ids, -(int64_t)sl[k].sign - 1))
                continue;
            sn_landmark x = {.kind = kind, .signal_id = sg->signal_id, .state = SN_TL_UNKNOWN,
                             .limit = kind == SN_LANDMARK_SPEED ? sg->limit : 0, .distance = at};
            sn_error err = {0};
            if (sn_map_waypoint_xodr(m, sl[k].b.road_id, sl[k].b.lane_id, sl[k].b.s, &x.line, &err))
                x.line = *w;
            if (!keep(&ids, &n_ids, &cap_ids, -(int64_t)sl[k].sign - 1))
                st = SN_E_NOMEM;
            add(&f, &x);
        }
    }
    free(route), free(along), free(ids), free(packed);
    if (st) {
        sn_format(msg, SN_CTX_ERROR_MAX, "landmarks_ahead: out of memory");
        return st;
    }
    *n_found = f.n;
    return SN_OK;
}

void sn_host_landmarks_fill(sn_host *h)
{
    h->actor_route = h_actor_route;
    h->landmarks_ahead = h_landmarks_ahead;
}
