/* lights.c — traffic-light actors from the map's signals, their groups and their cycle.
**
** CARLA's cycle (Unreal/CarlaUE4/Plugins/Carla/Source/Carla/Traffic/TrafficLightGroup.cpp and
** TrafficLightController.h): a group holds the controllers of one junction; at reset every
** controller is red and the first turns green; the running controller's stages are green 10 s,
** yellow 3 s, red 2 s (LightStates), and when its red stage ends the next controller (in
** order, wrapping) turns green. A stage's timer does not carry its overshoot into the next
** stage (Timer = NextState()), nor does it here. Timers are integer nanoseconds of the
** simulation clock, so the cycle is exact at any dt that divides the stage times. */
#include "lights.h"
#include "bind.h"
#include "traffic.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../plugin/attr.h"
#include "../sim/engine.h"
#include "../sim/spawn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/grow.h>
#include <sensim/search.h>

/* The head's colour per state (Red, Yellow, Green, Off, Unknown): what a camera sees. */
static const uint8_t state_rgb[5][3] = {{230, 20, 20}, {240, 190, 0}, {20, 210, 60}, {35, 35, 35}, {35, 35, 35}};
static const char *const state_names[5] = {"Red", "Yellow", "Green", "Off", "Unknown"};

#define POLE_HEIGHT 3.0 /* m from the road to the head's bottom, CARLA's 3-light posts' size */
#define POLE_RADIUS 0.08
/* m from a light's pole to the nearest drivable lane: the head's half diagonal (0.15 x 0.25 m), so
** that no head reaches over a lane. (1 m moved nearly every light of the town and Town01, whose
** poles stand 0.5 m off their lanes, and with them every image that shows one.) */
#define LANE_CLEAR 0.3

static sn_lights *lights_of(sn_engine *e)
{
    if (!e->lights)
        e->lights = calloc(1, sizeof *e->lights);
    return e->lights;
}

sn_tlight *sn_lights_find(const sn_lights *ls, uint32_t actor)
{
    for (uint32_t i = 0; ls && actor && i < ls->n; i++)
        if (ls->l[i].actor == actor)
            return &ls->l[i];
    return NULL;
}

void sn_lights_set(sn_engine *e, sn_tlight *t, uint8_t state)
{
    if (state > SN_TL_UNKNOWN)
        state = SN_TL_UNKNOWN;
    t->state = state;
    sn_actor *a = sn_world_find(&e->world, t->actor);
    if (!a)
        return;
    memcpy(a->color, state_rgb[state], 3);
    /* The `state` attribute follows, so plugins (host actor_attribute) and the API read it. */
    int i = a->bp ? sn_attr_find(a->bp->attrs, a->bp->n_attrs, a->bp->stride, "state") : -1;
    if (i >= 0 && a->values) {
        a->values[i].i = state;
        a->values[i].s = state_names[state];
    }
}

static double attr_f(const sn_actor *a, const char *name, double def)
{
    int i = a->bp ? sn_attr_find(a->bp->attrs, a->bp->n_attrs, a->bp->stride, name) : -1;
    return i >= 0 && a->values ? a->values[i].f : def;
}

static int64_t to_ns(double s) { return llround(s * 1e9); }

/* Sets every light of the group from its cycle: the running controller's stage, red elsewhere. */
static void apply_group(sn_engine *e, uint32_t gi)
{
    sn_lights *ls = e->lights;
    const sn_tl_group *g = &ls->g[gi];
    static const uint8_t stage_state[3] = {SN_TL_GREEN, SN_TL_YELLOW, SN_TL_RED};
    for (uint32_t i = 0; i < ls->n; i++)
        if (ls->l[i].group == gi && ls->l[i].actor)
            sn_lights_set(e, &ls->l[i], ls->l[i].ctl == g->cur ? stage_state[g->stage] : SN_TL_RED);
}

static void start_stage(sn_lights *ls, sn_tl_group *g)
{
    g->stage_ns = g->timer_ns = ls->ctl[g->first_ctl + g->cur].ns[g->stage];
}

void sn_lights_reset_group(sn_engine *e, uint32_t gi)
{
    sn_tl_group *g = &e->lights->g[gi];
    g->cur = 0;
    g->stage = 0;
    start_stage(e->lights, g);
    apply_group(e, gi);
}

void sn_lights_step(sn_engine *e)
{
    sn_lights *ls = e->lights;
    if (!ls || e->replay)
        return; /* a replay's lights take their recorded states (CARLA's groups stop while replaying) */
    for (uint32_t gi = 0; gi < ls->n_g; gi++) {
        sn_tl_group *g = &ls->g[gi];
        if (g->frozen || !g->n_ctl)
            continue;
        g->timer_ns -= e->clock.dt_ns;
        if (g->timer_ns > 0)
            continue;
        if (++g->stage == 3) { /* the controller's cycle is over: the next one turns green */
            g->stage = 0;
            g->cur = (g->cur + 1) % g->n_ctl;
        }
        start_stage(ls, g);
        apply_group(e, gi);
    }
}

double sn_lights_red_left(const sn_lights *ls, uint32_t l)
{
    const sn_tlight *t = &ls->l[l];
    if (t->state != SN_TL_RED)
        return 0;
    const sn_tl_group *g = &ls->g[t->group];
    if (g->frozen || !g->n_ctl)
        return INFINITY;
    /* the rest of the running controller's cycle, then every controller up to ours (in its own red
    ** stage, the all-red, every other controller's round) */
    int64_t ns = g->timer_ns;
    for (uint32_t st = g->stage + 1; st < 3; st++)
        ns += ls->ctl[g->first_ctl + g->cur].ns[st];
    for (uint32_t c = (g->cur + 1) % g->n_ctl; c != t->ctl; c = (c + 1) % g->n_ctl)
        for (int st = 0; st < 3; st++)
            ns += ls->ctl[g->first_ctl + c].ns[st];
    return (double)ns * 1e-9;
}

bool sn_lights_red_ending_near(const sn_lights *ls, sn_vec3 at, double radius, double need)
{
    for (uint32_t k = 0; ls && k < ls->n_stops; k++) {
        const sn_tl_stop *st = &ls->stops[k];
        double dx = st->stop_at.x - at.x, dy = st->stop_at.y - at.y;
        if (dx * dx + dy * dy > radius * radius)
            continue;
        uint8_t state = ls->l[st->light].state;
        if (state == SN_TL_GREEN || state == SN_TL_YELLOW)
            return true; /* its cars go (or clear the junction) */
        double left = sn_lights_red_left(ls, st->light);
        if (state == SN_TL_RED && left < need)
            return true;
    }
    return false;
}

/* A light of its own group with one controller (its own green, yellow and red times). */
static sn_status own_group(sn_lights *ls, const sn_actor *a, int32_t junction, uint32_t *gi, sn_error *err)
{
    if (!sn_grow_array32((void **)&ls->g, &ls->cap_g, ls->n_g + 1, sizeof *ls->g) ||
        !sn_grow_array32((void **)&ls->ctl, &ls->cap_ctl, ls->n_ctl + 1, sizeof *ls->ctl))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    ls->ctl[ls->n_ctl] = (sn_tl_ctl){{to_ns(attr_f(a, "green_time", 10)), to_ns(attr_f(a, "yellow_time", 3)),
                                      to_ns(attr_f(a, "red_time", 2))}};
    ls->g[ls->n_g] = (sn_tl_group){.junction_id = junction, .first_ctl = ls->n_ctl++, .n_ctl = 1};
    *gi = ls->n_g++;
    return SN_OK;
}

static sn_status add_light(sn_lights *ls, sn_tlight t, sn_error *err)
{
    if (!sn_grow_array32((void **)&ls->l, &ls->cap, ls->n + 1, sizeof *ls->l))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    ls->l[ls->n++] = t;
    return SN_OK;
}

static sn_status sn_lights_register(sn_engine *e, sn_actor *a, sn_error *err)
{
    sn_lights *ls = lights_of(e);
    if (!ls)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    if (ls->building)
        return SN_OK; /* the map's own: sn_lights_build records them with their signal */
    uint32_t gi;
    sn_status st = own_group(ls, a, -1, &gi, err);
    if (st)
        return st;
    int si = sn_attr_find(a->bp->attrs, a->bp->n_attrs, a->bp->stride, "state");
    uint8_t state = si >= 0 && a->values ? (uint8_t)a->values[si].i : SN_TL_RED;
    if ((st = add_light(ls, (sn_tlight){a->id, -1, -1, gi, 0, state}, err)))
        return st;
    /* A light spawned on its own starts its cycle at its `state` attribute's stage (red runs
    ** the red stage, then green again), so a scene or a replay gets the state it asked for. */
    sn_tl_group *g = &ls->g[gi];
    g->stage = state == SN_TL_GREEN ? 0 : state == SN_TL_YELLOW ? 1 : 2;
    start_stage(ls, g);
    g->frozen = state > SN_TL_GREEN; /* Off and Unknown stay as they are */
    sn_lights_set(e, &ls->l[ls->n - 1], state);
    return SN_OK;
}

static void sn_lights_forget(sn_engine *e, uint32_t actor)
{
    sn_tlight *t = sn_lights_find(e->lights, actor);
    if (t)
        t->actor = 0;
}

const sn_actor_observer sn_lights_observer = {
    .blueprint = "traffic.traffic_light",
    .own_values = true,
    .spawned = sn_lights_register,
    .destroyed = sn_lights_forget,
};

void sn_lights_free(sn_lights *ls)
{
    if (!ls)
        return;
    free(ls->l);
    free(ls->ctl);
    free(ls->g);
    free(ls->stops);
    free(ls->lanes);
    free(ls);
}

/* ---- From the map ---- */

/* CARLA spawns a traffic light for each dynamic signal of type 1000001 (the 3-light head),
** and its towns name them Signal_3Light_*. */
static bool is_light(const sn_odr_signal *sg)
{
    if (sg->is_reference || !sg->dynamic)
        return false;
    return (sg->type && strcmp(sg->type, "1000001") == 0) || (sg->name && strstr(sg->name, "Signal_3Light"));
}

/* The junction a signal of road r controls: the road's own when it is a connecting road, else
** the one its controlled traffic drives into ('+' along s: the successor; '-': the predecessor). */
static int32_t junction_ahead(const sn_odr_road *r, char orientation)
{
    if (r->junction >= 0)
        return r->junction;
    if (orientation != '-' && r->succ.elem == SN_ODR_ELEM_JUNCTION)
        return r->succ.id;
    if (orientation != '+' && r->pred.elem == SN_ODR_ELEM_JUNCTION)
        return r->pred.id;
    return -1;
}

/* CARLA's ids are strings: its Signal::GetControllers() is a std::set<std::string>, so a
** signal that several controllers list belongs to the least of their ids as text. */
static bool id_text_less(int32_t a, int32_t b)
{
    char x[16], y[16];
    snprintf(x, sizeof x, "%d", (int)a);
    snprintf(y, sizeof y, "%d", (int)b);
    return strcmp(x, y) < 0;
}

/* The controller of a signal as CARLA's ATrafficLightManager::RegisterLightComponent takes it
** (the first of the controllers listing it, "Only one controller per signal"), the junction
** that lists that controller (its first) and the controller's place in that junction's list.
** Lights of one controller share its state; a group runs its controllers one at a time. */
static bool listed_in(const sn_odr *o, int32_t signal_id, int32_t *junction_id, uint32_t *rank)
{
    bool found = false;
    int32_t ctl = 0;
    for (uint32_t c = 0; c < o->n_controllers; c++) {
        const sn_odr_controller *ct = &o->controllers[c];
        for (uint32_t i = 0; i < ct->n_signals; i++)
            if (ct->signals[i] == signal_id && (!found || id_text_less(ct->id, ctl))) {
                found = true, ctl = ct->id;
                break;
            }
    }
    if (!found)
        return false;
    for (uint32_t j = 0; j < o->n_junctions; j++)
        for (uint32_t k = 0; k < o->junctions[j].n_controllers; k++)
            if (o->junctions[j].controllers[k] == ctl) {
                *junction_id = o->junctions[j].id;
                *rank = k;
                return true;
            }
    return false;
}

static int stop_cmp(const void *x, const void *y)
{
    const sn_tl_stop *a = x, *b = y;
    if (a->road_id != b->road_id)
        return a->road_id < b->road_id ? -1 : 1;
    if (a->lane_id != b->lane_id)
        return a->lane_id < b->lane_id ? -1 : 1;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return a->light < b->light ? -1 : a->light > b->light;
}

typedef struct lane_probe {
    const sn_lights *ls;
    int32_t road_id, lane_id;
} lane_probe;

/* Stops sort by road, then lane. */
static bool stop_before(const void *ctx, size_t i)
{
    const lane_probe *p = ctx;
    const sn_tl_stop *s = &p->ls->stops[i];
    return s->road_id < p->road_id || (s->road_id == p->road_id && s->lane_id < p->lane_id);
}

const sn_tl_stop *sn_lights_stops_of(const sn_lights *ls, int32_t road_id, int32_t lane_id, uint32_t *n)
{
    *n = 0;
    if (!ls || !ls->n_stops)
        return NULL;
    uint32_t lo = (uint32_t)sn_search_first(0, ls->n_stops, &(lane_probe){ls, road_id, lane_id}, stop_before);
    uint32_t k = lo;
    while (k < ls->n_stops && ls->stops[k].road_id == road_id && ls->stops[k].lane_id == lane_id)
        k++;
    *n = k - lo;
    return &ls->stops[lo];
}

/* Spawns one built-in actor with attributes given as text. */
static sn_status spawn_builtin(sn_engine *e, const char *bp_id, const char *const (*kv)[2], uint32_t n,
                               sn_transform tf, uint32_t parent, sn_actor **out, sn_error *err)
{
    const sn_blueprint *bp = sn_library_find(&e->lib, bp_id);
    if (!bp)
        return sn_fail(err, SN_E_INVALID, "map: the built-in blueprint '%s' is missing", bp_id);
    sn_attribute attrs[8];
    uint32_t na = n < 8 ? n : 8;
    for (uint32_t i = 0; i < na; i++)
        attrs[i] = (sn_attribute){kv[i][0], kv[i][1]};
    sn_spawn_desc d = {.bp = bp, .transform = tf, .parent = parent};
    sn_status st = sn_blueprint_resolve(bp, attrs, na, NULL, NULL, &d.values, err);
    return st ? st : sn_spawn_actor(e, &d, out, err);
}

/* Where along t the light of a signal at (s, t) of road r stands: where the map puts it, unless
** that is within LANE_CLEAR of a drivable lane (of any road). Then it moves outward, away from the
** reference line, in 0.5 m steps up to 12 m, to the first spot that clear (as signs' poles do,
** scenery). One of Town10HD's signals stands on the reference line of a connecting road of
** junction 3 (road 516, t = 0): its head, at a post's height (3-4 m) over the junction, met the
** roof of a bus (the fusorosa, 4.25 m tall), which stood pressed against it at full throttle for
** good with the queues of three roads behind it. */
static double light_t(const sn_engine *e, const sn_odr_road *r, double s, double t)
{
    enum { STEPS = 24 };
    const uint32_t drivable = SN_LANE_DRIVING | SN_LANE_ENTRY | SN_LANE_EXIT | SN_LANE_ONRAMP | SN_LANE_OFFRAMP;
    const double out = t >= 0 ? 1 : -1;
    for (int k = 0; k <= STEPS; k++) {
        double p[3];
        sn_map_place pl;
        sn_odr_point(r, s, t + out * 0.5 * k, 0, p);
        if (!sn_map_locate(e->map, sn_map_world(p), LANE_CLEAR, drivable, &pl))
            return t + out * 0.5 * k;
    }
    return t; /* no clear spot within 12 m: where the map puts it */
}

/* The head and its pole for signal sg of road r: the head over the signal's (s, t) (moved off
** the lanes: light_t), zOffset plus the pole above the road, its +x axis facing the traffic it
** controls (CARLA's orientation: '+' controls traffic along s, so it faces -s). */
static sn_status spawn_light(sn_engine *e, const sn_odr_road *r, const sn_odr_signal *sg, double t, sn_actor **out,
                             sn_error *err)
{
    double s = fmin(fmax(sg->s, 0), r->length), p[3];
    const double half_h = 0.5; /* the head's half height (the blueprint's extent) */
    double lift = fmax(sg->z_offset, 0) + POLE_HEIGHT + half_h;
    sn_odr_point(r, s, t, 0, p);
    p[2] += lift; /* the pole stands upright on a superelevated road too */
    double hdg = sn_odr_ref_line(r, s).hdg + sg->h_offset + (sg->orientation == '-' ? 0 : M_PI);
    sn_transform tf = {sn_map_world(p), {0, sn_map_yaw(hdg), 0}};
    char id[24];
    snprintf(id, sizeof id, "%d", (int)sg->id);
    const char *const kv[][2] = {{"opendrive_id", id}};
    sn_status st = spawn_builtin(e, "traffic.traffic_light", kv, 1, tf, 0, out, err);
    if (st)
        return st;
    /* The pole: a cylinder attached under the head, down to the road. */
    double height = lift - half_h;
    char hs[32];
    snprintf(hs, sizeof hs, "%.6g", height);
    const char *const pole[][2] = {{"semantic_tag", "TrafficLight"}, {"radius", "0.08"}, {"height", hs},
                                   {"color", "60,60,60"}};
    sn_actor *pa;
    return spawn_builtin(e, "static.prop.cylinder", pole, 4, (sn_transform){{0, 0, -half_h - height / 2}, {0, 0, 0}},
                         (*out)->id, &pa, err);
}

typedef struct pending {
    int32_t junction;
    uint32_t rank; /* its place in the junction's controllers, else after them in map order */
    uint32_t light;
} pending;

static int pending_cmp(const void *x, const void *y)
{
    const pending *a = x, *b = y;
    if (a->junction != b->junction)
        return a->junction < b->junction ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->light < b->light ? -1 : a->light > b->light;
}

/* Groups: one per junction (in junction id order) whose controllers take turns, one at a time,
** in the order the junction lists them; the lights of one controller share its state (CARLA's
** UTrafficLightController: its towns list one signal per controller, maps/town.xodr two
** opposite approaches). A light no controller lists is a controller of its own, after the
** listed ones; a light outside every junction is a group alone. */
static sn_status make_groups(sn_engine *e, pending *pd, size_t n_pd, sn_error *err)
{
    sn_lights *ls = e->lights;
    if (n_pd > 1)
        qsort(pd, n_pd, sizeof *pd, pending_cmp);
    for (size_t i = 0; i < n_pd;) {
        size_t j = i + 1;
        while (pd[i].junction >= 0 && j < n_pd && pd[j].junction == pd[i].junction)
            j++;
        uint32_t gi, c = 0;
        const sn_actor *first = sn_world_find(&e->world, ls->l[pd[i].light].actor);
        sn_status st = own_group(ls, first, pd[i].junction, &gi, err); /* its first controller */
        if (st)
            return st;
        for (size_t k = i; k < j; k++) {
            if (k > i && (pd[k].rank == UINT32_MAX || pd[k].rank != pd[k - 1].rank)) {
                const sn_actor *a = sn_world_find(&e->world, ls->l[pd[k].light].actor);
                if (!sn_grow_array32((void **)&ls->ctl, &ls->cap_ctl, ls->n_ctl + 1, sizeof *ls->ctl))
                    return sn_fail(err, SN_E_NOMEM, "out of memory");
                ls->ctl[ls->n_ctl++] = (sn_tl_ctl){{to_ns(attr_f(a, "green_time", 10)),
                                                    to_ns(attr_f(a, "yellow_time", 3)), to_ns(attr_f(a, "red_time", 2))}};
                c++;
            }
            ls->l[pd[k].light].group = gi;
            ls->l[pd[k].light].ctl = c;
        }
        ls->g[gi].n_ctl = c + 1;
        i = j;
    }
    return SN_OK;
}

void sn_tl_warn(sn_engine *e, const char *line)
{
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else if (!e->opts.quiet_plugins)
        fprintf(stderr, "sensim: warning: %s\n", line);
}

bool sn_tl_stop_applies(int32_t via_road, int32_t via_lane, const struct sn_pathwp *path, uint32_t n)
{
    if (via_road < 0)
        return true;
    for (uint32_t i = 0; i < n && i < 20; i++) /* 40 m of path */
        if (path[i].road_id == via_road && path[i].lane_id == via_lane)
            return true;
    return false;
}

/* Binds light li (signal sg) to its lanes: its affected lanes and stop lines (bind.h). */
static sn_status bind_light(const sn_map *m, sn_lights *ls, const sn_sigindex *ix, int32_t signal_id, uint32_t li,
                            sn_bind_out *bo, sn_bind_issues *iss, sn_error *err)
{
    bo->n_lanes = bo->n_b = 0;
    if (!sn_bind_signal(m, ix, signal_id, SN_BIND_LIGHT, bo, iss) ||
        !sn_grow_array32((void **)&ls->lanes, &ls->cap_lanes, ls->n_lanes + bo->n_lanes, sizeof *ls->lanes) ||
        !sn_grow_array32((void **)&ls->stops, &ls->cap_stops, ls->n_stops + bo->n_b, sizeof *ls->stops))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < bo->n_lanes; i++)
        ls->lanes[ls->n_lanes++] = (sn_tl_lane){bo->lanes[i].road_id, bo->lanes[i].lane_id, bo->lanes[i].s, li};
    for (size_t i = 0; i < bo->n_b; i++) {
        const sn_bound *b = &bo->b[i];
        sn_waypoint w;
        sn_vec3 at = b->box_location;
        if (sn_map_waypoint_xodr(m, b->road_id, b->lane_id, b->s, &w, NULL) == SN_OK)
            at = w.transform.location;
        ls->stops[ls->n_stops++] = (sn_tl_stop){b->road_id, b->lane_id, b->s, li, b->via_road, b->via_lane,
                                                b->box_location, b->box_extent, b->box_rotation, at};
    }
    return SN_OK;
}

/* The one-time warnings of a map's lights: those the rule gives no stop line, and the map's
** broken references. */
static void warn_lights(sn_engine *e, const sn_bind_issues *iss)
{
    const sn_lights *ls = e->lights;
    const char *file = e->map->odr->path;
    char ids[200] = "";
    uint32_t none = 0;
    size_t len = 0;
    for (uint32_t i = 0; i < ls->n; i++) {
        bool has = false;
        for (uint32_t k = 0; k < ls->n_stops && !has; k++)
            has = ls->stops[k].light == i;
        if (has || ls->l[i].signal_id < 0)
            continue;
        if (none++ < 12 && len + 16 < sizeof ids)
            len += (size_t)snprintf(ids + len, sizeof ids - len, "%s%d", none > 1 ? ", " : "", (int)ls->l[i].signal_id);
    }
    char line[512];
    if (none) {
        snprintf(line, sizeof line,
                 "%s: %u of %u traffic lights control no driving lane (no <validity> lane or <signalReference> names "
                 "one): signal%s %s%s; they cycle but stop no traffic (docs/traffic.md)",
                 file, none, ls->n, none > 1 ? "s" : "", ids, none > 12 ? ", ..." : "");
        sn_tl_warn(e, line);
    }
    if (iss->missing_lane) {
        snprintf(line, sizeof line,
                 "%s: %u signal validities name lanes their road does not have (signal %d: road %d has no lane %d "
                 "there): those lanes skipped",
                 file, iss->missing_lane, (int)iss->ml_signal, (int)iss->ml_road, (int)iss->ml_lane);
        sn_tl_warn(e, line);
    }
    if (iss->orphan_refs) {
        snprintf(line, sizeof line,
                 "%s: %u <signalReference> ids name no <signal> (signal %d, referenced on road %d): ignored", file,
                 iss->orphan_refs, (int)iss->or_signal, (int)iss->or_road);
        sn_tl_warn(e, line);
    }
}

sn_status sn_lights_build(sn_engine *e, sn_error *err)
{
    if (!e->map)
        return SN_OK;
    const sn_odr *o = e->map->odr;
    sn_lights *ls = lights_of(e);
    if (!ls)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_sigindex ix;
    if (!sn_sigindex_build(o, &ix))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_bind_out bo = {0};
    sn_bind_issues iss = {0};
    sn_sigindex_orphans(o, &ix, &iss);
    pending *pd = NULL;
    size_t n_pd = 0, cap_pd = 0, cap_t = e->n_light_t;
    uint32_t n_lights = 0;
    sn_status st = SN_OK;
    ls->building = true;
    for (uint32_t ri = 0; ri < o->n_roads && !st; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t k = 0; k < r->n_signals && !st; k++) {
            const sn_odr_signal *sg = &r->signals[k];
            if (!is_light(sg))
                continue;
            /* light_t as the last build on this map found it (a reset), else searched now */
            const uint32_t nth = n_lights++;
            if (nth >= e->n_light_t && !sn_grow((void **)&e->light_t, &cap_t, nth + 1, sizeof *e->light_t)) {
                st = sn_fail(err, SN_E_NOMEM, "out of memory");
                break;
            }
            if (nth >= e->n_light_t)
                e->light_t[e->n_light_t++] = light_t(e, r, fmin(fmax(sg->s, 0), r->length), sg->t);
            sn_actor *a;
            if ((st = spawn_light(e, r, sg, e->light_t[nth], &a, err)))
                break;
            int32_t junction = -1;
            uint32_t rank = 0, li = ls->n;
            if (!listed_in(o, sg->id, &junction, &rank)) {
                junction = junction_ahead(r, sg->orientation);
                rank = UINT32_MAX;
            }
            if ((st = add_light(ls, (sn_tlight){a->id, sg->id, r->id, 0, 0, SN_TL_RED}, err)) ||
                (st = bind_light(e->map, ls, &ix, sg->id, li, &bo, &iss, err)))
                break;
            if (!sn_grow((void **)&pd, &cap_pd, n_pd + 1, sizeof *pd)) {
                st = sn_fail(err, SN_E_NOMEM, "out of memory");
                break;
            }
            pd[n_pd++] = (pending){junction, rank, li};
        }
    }
    ls->building = false;
    sn_bind_out_free(&bo);
    sn_sigindex_free(&ix);
    if (!st)
        st = make_groups(e, pd, n_pd, err);
    free(pd);
    if (st)
        return st;
    if (ls->n_stops > 1)
        qsort(ls->stops, ls->n_stops, sizeof *ls->stops, stop_cmp);
    warn_lights(e, &iss);
    for (uint32_t gi = 0; gi < ls->n_g; gi++)
        sn_lights_reset_group(e, gi);
    return SN_OK;
}
