/* signs.c — stop, yield and speed-limit signs: bound to lanes (bind.h) and obeyed by the map
** autopilot (signs.h, docs/traffic.md "Signs").
**
** CARLA (Unreal/CarlaUE4/Plugins/Carla/Source/Carla/Traffic/): a vehicle entering a stop box
** is held 2 s (StopSignComponent: "2 second delay for stop"), then goes when no vehicle is in
** the check boxes over the junction's conflicting roads and the 0.1 s of road before them
** (GiveWayIfPossible, retried every 1 s); a yield box does the same without the stop
** (YieldSignComponent). A speed box sets the vehicle's limit to the sign's value
** (SpeedLimitComponent, AWheeledVehicleAIController::SetSpeedLimit); it holds until the next. */
#include "signs.h"
#include "lights.h"
#include "traffic.h"
#include "junction.h"
#include "traffic_int.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

#define STOP_HOLD 2.0     /* s standing at a stop line before the junction is checked (CARLA's) */
#define SIGN_STARVE 4.0   /* s standing at a stop or yield line (beyond STOP_HOLD) before the junction's claims decide alone */
#define SIGN_MARGIN 0.5   /* m between the front bumper and a stop or yield line when held */
#define YIELD_SPEED (15.0 / 3.6) /* m/s at which a yielding vehicle reaches its line when clear */
#define LOOK_SIGN 25.0    /* m before a yield line from which the junction is watched */
#define APPROACH_S 3.0    /* s: a vehicle this close in time to a junction is approaching it */
#define APPROACH_MIN 10.0 /* m: ... or this close in distance */
#define A_SIGN 3.0        /* m/s^2 braking toward a held line */

static bool is_kind(const sn_odr_signal *sg, const char *type, const char *name)
{
    return (sg->type && strcmp(sg->type, type) == 0) || (sg->name && strstr(sg->name, name));
}

/* The sign a signal is, if any; speed signs get their limit (m/s). */
static bool sign_of(const sn_odr_signal *sg, uint8_t *kind, double *limit)
{
    if (sg->is_reference || sg->dynamic || (sg->name && strstr(sg->name, "Stencil")))
        return false; /* CARLA's SpawnSignals: "We do not spawn stops painted in the ground" */
    if (is_kind(sg, "206", "Sign_Stop")) {
        *kind = SN_BIND_STOP;
        return true;
    }
    if (is_kind(sg, "205", "Sign_Yield")) {
        *kind = SN_BIND_YIELD;
        return true;
    }
    if (!is_kind(sg, "274", "Speed_"))
        return false;
    /* value in its unit (km/h when none, as CARLA reads it), else the subtype (CARLA picks its
    ** model by subtype "30", "40", ...), else the number in a Speed_NN name. */
    double v = sg->value;
    double scale = 1 / 3.6;
    if (sg->unit && strcmp(sg->unit, "mph") == 0)
        scale = 0.44704;
    else if (sg->unit && strcmp(sg->unit, "m/s") == 0)
        scale = 1;
    if (!(v > 0) && sg->subtype)
        v = strtod(sg->subtype, NULL), scale = 1 / 3.6;
    const char *nm = sg->name ? strstr(sg->name, "Speed_") : NULL;
    if (!(v > 0) && nm)
        v = strtod(nm + 6, NULL), scale = 1 / 3.6;
    if (!(v > 0 && v * scale < 150))
        return false;
    *kind = SN_BIND_SPEED;
    *limit = v * scale;
    return true;
}

static int line_cmp(const void *x, const void *y)
{
    const sn_sign_line *a = x, *b = y;
    if (a->b.road_id != b->b.road_id)
        return a->b.road_id < b->b.road_id ? -1 : 1;
    if (a->b.lane_id != b->b.lane_id)
        return a->b.lane_id < b->b.lane_id ? -1 : 1;
    if (a->b.s != b->b.s)
        return a->b.s < b->b.s ? -1 : 1;
    return a->sign < b->sign ? -1 : a->sign > b->sign;
}

void sn_signs_free(sn_signs *s)
{
    if (!s)
        return;
    free(s->s);
    free(s->lines);
    free(s);
}

sn_status sn_signs_build(sn_engine *e, sn_error *err)
{
    if (!e->map)
        return SN_OK;
    const sn_odr *o = e->map->odr;
    sn_signs *ss = calloc(1, sizeof *ss);
    sn_sigindex ix;
    if (!ss || !sn_sigindex_build(o, &ix)) {
        free(ss);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    e->signs = ss;
    sn_bind_out bo = {0};
    sn_bind_issues iss = {0};
    size_t cap_s = 0, cap_l = 0, n_lines = 0;
    uint32_t unbound = 0;
    int32_t unbound_id = 0;
    sn_status st = SN_OK;
    for (uint32_t ri = 0; ri < o->n_roads && !st; ri++)
        for (uint32_t k = 0; k < o->roads[ri].n_signals && !st; k++) {
            const sn_odr_signal *sg = &o->roads[ri].signals[k];
            uint8_t kind;
            double limit = 0;
            if (!sign_of(sg, &kind, &limit))
                continue;
            bo.n_lanes = bo.n_b = 0;
            if (!sn_bind_signal(e->map, &ix, sg->id, (sn_bind_kind)kind, &bo, &iss) ||
                !sn_grow((void **)&ss->s, &cap_s, ss->n + 1, sizeof *ss->s) ||
                !sn_grow((void **)&ss->lines, &cap_l, n_lines + bo.n_b, sizeof *ss->lines)) {
                st = sn_fail(err, SN_E_NOMEM, "out of memory");
                break;
            }
            if (!bo.n_b && !unbound++)
                unbound_id = sg->id;
            for (size_t i = 0; i < bo.n_b; i++)
                ss->lines[n_lines++] = (sn_sign_line){bo.b[i], ss->n};
            ss->s[ss->n++] = (sn_sign){sg->id, o->roads[ri].id, kind, limit};
        }
    sn_bind_out_free(&bo);
    sn_sigindex_free(&ix);
    if (st)
        return st;
    ss->n_lines = (uint32_t)n_lines;
    if (n_lines > 1)
        qsort(ss->lines, n_lines, sizeof *ss->lines, line_cmp);
    if (unbound) {
        char line[400];
        snprintf(line, sizeof line,
                 "%s: %u of %u stop, yield and speed-limit signs act on no driving lane (signal %d%s): ignored",
                 o->path, unbound, ss->n, (int)unbound_id, unbound > 1 ? ", ..." : "");
        sn_tl_warn(e, line);
    }
    return SN_OK;
}

typedef struct lane_probe {
    const sn_signs *ss;
    int32_t road_id, lane_id;
} lane_probe;

/* Lines sort by road, then lane. */
static bool line_before(const void *ctx, size_t i)
{
    const lane_probe *p = ctx;
    const sn_bound *b = &p->ss->lines[i].b;
    return b->road_id < p->road_id || (b->road_id == p->road_id && b->lane_id < p->lane_id);
}

const sn_sign_line *sn_signs_lines_of(const sn_signs *ss, int32_t road_id, int32_t lane_id, uint32_t *n)
{
    *n = 0;
    if (!ss || !ss->n_lines)
        return NULL;
    uint32_t lo = (uint32_t)sn_search_first(0, ss->n_lines, &(lane_probe){ss, road_id, lane_id}, line_before);
    uint32_t k = lo;
    while (k < ss->n_lines && ss->lines[k].b.road_id == road_id && ss->lines[k].b.lane_id == lane_id)
        k++;
    *n = k - lo;
    return &ss->lines[lo];
}

double sn_signs_limit(const sn_mapdrive *md, double record) { return md && md->sign_limit > 0 ? md->sign_limit : record; }

static int lane_dir_of(const sn_map *m, int32_t road_id, int32_t lane_id)
{
    int32_t ri = sn_odr_road_index(m->odr, road_id);
    return ri < 0 ? (lane_id < 0 ? 1 : -1) : sn_map_lane_dir(&m->odr->roads[ri], lane_id);
}

/* The incoming road of connecting road `conn` in junction j, or -1. */
static int32_t incoming_of(const sn_odr_junction *j, int32_t conn)
{
    for (uint32_t c = 0; c < j->n_connections; c++)
        if (j->connections[c].connecting == conn)
            return j->connections[c].incoming;
    return -1;
}

/* The connector (junction.h) a vehicle's map autopilot takes through junction `jid` next, or -1
** (no autopilot on a map, or its path does not reach that junction). */
static int32_t conn_ahead(const sn_engine *e, const sn_actor *a, int32_t jid)
{
    const sn_junctions *jx = e->traffic ? e->traffic->jx : NULL;
    const sn_mapdrive *md = a->has_autopilot && a->mv && a->mv->ap ? a->mv->ap->map : NULL;
    if (!jx || !md || md->walker)
        return -1;
    for (uint32_t q = 0; q < md->n; q++)
        if (md->path[q].is_junction) {
            int32_t ri = sn_odr_road_index(e->map->odr, md->path[q].road_id);
            int32_t ji = ri >= 0 ? e->map->odr->roads[ri].junction_index : -1;
            if (ji < 0 || e->map->odr->junctions[ji].id != jid)
                return -1;
            return sn_jx_conn(jx, md->path[q].road_id, md->path[q].lane_id);
        }
    return -1;
}

/* Whether connectors x and y (of one junction) conflict: cross or merge (junction.h). */
static bool conns_conflict(const sn_engine *e, int32_t x, int32_t y)
{
    const sn_junctions *jx = e->traffic->jx;
    const sn_jconn *c = &jx->conn[x];
    for (uint32_t k = 0; k < c->n; k++)
        if (jx->conf[c->first + k].other == (uint32_t)y)
            return true;
    return false;
}

/* Whether another vehicle is in junction `jid` on a connecting road from another road than
** ours, or approaches it on a lane of another road (moving, within APPROACH_S at its speed or
** APPROACH_MIN metres of its entry). When both passages are known (our connector `our_conn`, the
** other's from its place in the junction or its autopilot's path), a vehicle whose connector
** does not cross or merge with ours is not in the way (a roundabout's ring car leaving at this
** arm): CARLA's yield and stop boxes cover the conflicting connecting roads only. */
static bool junction_busy(const sn_engine *e, const sn_actor *self, int32_t jid, int32_t our_in, int32_t our_conn)
{
    const sn_map *m = e->map;
    int32_t ji = sn_odr_junction_index(m->odr, jid);
    if (ji < 0)
        return false;
    const sn_odr_junction *j = &m->odr->junctions[ji];
    for (size_t i = 0; i < e->world.n_bodies; i++) {
        const sn_actor *a = e->world.bodies[i];
        if (a == self || a->kind != SN_ACTOR_VEHICLE || a->down)
            continue;
        sn_vec3 d = sn_v3_sub(a->st.pos, self->st.pos);
        if (d.x * d.x + d.y * d.y > 80.0 * 80.0)
            continue;
        sn_waypoint w;
        if (sn_map_waypoint(m, a->st.pos, false, SN_LANE_DRIVING, &w, NULL) != SN_OK)
            continue;
        double speed = hypot(a->st.vel.x, a->st.vel.y);
        if (w.junction_id == jid) {
            if (incoming_of(j, w.road_id) == our_in)
                continue;
            int32_t oc = our_conn >= 0 ? sn_jx_conn(e->traffic->jx, w.road_id, w.lane_id) : -1;
            if (oc < 0 || conns_conflict(e, our_conn, oc))
                return true;
            continue;
        }
        if (w.road_id == our_in || speed < 0.5)
            continue;
        int32_t ri = sn_odr_road_index(m->odr, w.road_id);
        if (ri < 0)
            continue;
        const sn_odr_road *r = &m->odr->roads[ri];
        int dir = sn_map_lane_dir(r, w.lane_id);
        const sn_odr_link *ln = dir > 0 ? &r->succ : &r->pred;
        if (ln->elem != SN_ODR_ELEM_JUNCTION || ln->id != jid)
            continue;
        double to_entry = dir > 0 ? r->length - w.s : w.s;
        if (to_entry < fmax(APPROACH_MIN, APPROACH_S * speed)) {
            int32_t oc = our_conn >= 0 ? conn_ahead(e, a, jid) : -1;
            if (oc < 0 || conns_conflict(e, our_conn, oc))
                return true;
        }
    }
    return false;
}

static double approach0(double d) { return d <= 0 ? 0 : sqrt(2 * A_SIGN * d); }

double sn_signs_speed(sn_engine *e, const sn_actor *self, sn_mapdrive *md, const double *along, double front, double v,
                      double vt, double dt)
{
    const sn_signs *ss = e->signs;
    if (!ss || !ss->n_lines || md->n < 2)
        return vt;
    const sn_map *m = e->map;
    for (uint32_t i = 0; i < md->n; i++) {
        const sn_pathwp *wp = &md->path[i];
        uint32_t nl;
        const sn_sign_line *ln = sn_signs_lines_of(ss, wp->road_id, wp->lane_id, &nl);
        if (!nl)
            continue;
        int dir = lane_dir_of(m, wp->road_id, wp->lane_id);
        /* The first waypoint on a lane also owns the stretch of it back to the lane's entry. */
        double lo = i > 0 && (md->path[i - 1].road_id != wp->road_id || md->path[i - 1].lane_id != wp->lane_id)
                        ? -(along[i] - along[i - 1])
                        : 0;
        for (uint32_t k = 0; k < nl; k++) {
            double ds = (ln[k].b.s - wp->s) * dir;
            if (ds < lo - 1e-6 || ds >= SN_MD_STEP + 1e-6)
                continue;
            const sn_sign *sg = &ss->s[ln[k].sign];
            double d_centre = along[i] + ds;
            if (sg->kind == SN_BIND_SPEED) {
                if (d_centre <= 0 && d_centre > -SN_MD_STEP) /* the centre is past it: the new limit */
                    md->sign_limit = sg->limit;
                continue;
            }
            if (!md->route_dir && !sn_tl_stop_applies(ln[k].b.via_road, ln[k].b.via_lane, wp, md->n - i))
                continue;
            double d_line = d_centre - front;
            if (d_line < -0.5)
                continue; /* passed */
            uint32_t idx = (uint32_t)(&ln[k] - ss->lines) + 1;
            if (md->sign_seen != idx) {
                md->sign_seen = idx;
                md->sign_ignored = sn_md_pct(md, SN_MD_PCT_IGNORE_SIGNS) > 0 &&
                                  sn_rng_uniform(&md->rng) * 100 < sn_md_pct(md, SN_MD_PCT_IGNORE_SIGNS);
                md->sign_go = false;
                md->sign_wait = 0;
            }
            if (md->sign_ignored || md->sign_go)
                return vt;
            double room = d_line - SIGN_MARGIN;
            if (sg->kind == SN_BIND_YIELD && room > LOOK_SIGN)
                return fmin(vt, sqrt(YIELD_SPEED * YIELD_SPEED + 2 * A_SIGN * room));
            /* The junction the line leads into, and the road we enter it from. */
            int32_t jid = -1, our_in = ln[k].b.road_id, our_conn = -1;
            for (uint32_t q = i; q < md->n; q++)
                if (md->path[q].is_junction) {
                    if (e->traffic && e->traffic->jx)
                        our_conn = sn_jx_conn(e->traffic->jx, md->path[q].road_id, md->path[q].lane_id);
                    int32_t ri = sn_odr_road_index(m->odr, md->path[q].road_id);
                    int32_t ji = ri >= 0 ? m->odr->roads[ri].junction_index : -1;
                    jid = ji >= 0 ? m->odr->junctions[ji].id : -1;
                    if (ji >= 0) {
                        int32_t in = incoming_of(&m->odr->junctions[ji], md->path[q].road_id);
                        if (in >= 0)
                            our_in = in;
                    }
                    break;
                }
            if (sg->kind == SN_BIND_STOP) {
                if (v < 0.1 && room < 1.0)
                    md->sign_wait += dt;
                if (md->sign_wait >= STOP_HOLD &&
                    (jid < 0 || md->sign_wait >= STOP_HOLD + SIGN_STARVE || !junction_busy(e, self, jid, our_in, our_conn))) {
                    md->sign_go = true;
                    return vt;
                }
                return fmin(vt, approach0(room));
            }
            /* Yield: slow toward the line; go when nothing approaches, hold while something does.
            ** After SIGN_STARVE s standing at the line (a busy roundabout's ring, a main road that
            ** never empties) the junction's claims decide alone (junction.c: the main stream lets
            ** a vehicle in that has waited; a granted vehicle in its way still goes first). */
            if (v < 0.1 && room < 1.0)
                md->sign_wait += dt;
            if (md->sign_wait >= SIGN_STARVE) {
                md->sign_go = true;
                return vt;
            }
            if (jid >= 0 && junction_busy(e, self, jid, our_in, our_conn))
                return fmin(vt, approach0(room));
            if (room < 2.0)
                md->sign_go = true;
            return fmin(vt, sqrt(YIELD_SPEED * YIELD_SPEED + 2 * A_SIGN * fmax(room, 0)));
        }
    }
    return vt;
}

double sn_signs_vehicle_limit_kmh(const sn_engine *e, const sn_actor *a)
{
    const double def = SN_TM_DEFAULT_LIMIT;
    const sn_mapdrive *md = a->mv && a->mv->ap ? a->mv->ap->map : NULL;
    if (md && md->sign_limit > 0)
        return md->sign_limit * 3.6;
    if (!e->map)
        return def * 3.6;
    sn_waypoint w;
    if (sn_map_waypoint(e->map, a->st.pos, false, SN_LANE_DRIVING, &w, NULL) != SN_OK)
        return def * 3.6;
    /* Without an autopilot's memory: the nearest speed sign upstream on the vehicle's lane. */
    uint32_t nl;
    const sn_sign_line *ln = sn_signs_lines_of(e->signs, w.road_id, w.lane_id, &nl);
    int dir = lane_dir_of(e->map, w.road_id, w.lane_id);
    double best = INFINITY, lim = 0;
    for (uint32_t k = 0; k < nl; k++) {
        const sn_sign *sg = &e->signs->s[ln[k].sign];
        double behind = (w.s - ln[k].b.s) * dir;
        if (sg->kind == SN_BIND_SPEED && behind >= 0 && behind < best)
            best = behind, lim = sg->limit;
    }
    if (lim > 0)
        return lim * 3.6;
    int32_t ri = sn_odr_road_index(e->map->odr, w.road_id);
    if (ri >= 0 && w.section_id >= 0 && (uint32_t)w.section_id < e->map->odr->roads[ri].n_sections) {
        const sn_odr_road *r = &e->map->odr->roads[ri];
        const sn_odr_section *sec = &r->sections[w.section_id];
        double v = sn_odr_speed_limit(r, sec, sn_odr_lane_of(sec, w.lane_id), w.s);
        if (v > 0)
            return v * 3.6;
    }
    return def * 3.6;
}
