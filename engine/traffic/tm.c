/* tm.c — the Traffic Managers' settings and what the autopilots read of them (tm.h). */
#include "tm.h"
#include "traffic.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../sim/engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

/* CARLA's names and defaults (LibCarla/source/carla/trafficmanager/Parameters.h, .cpp). */
static const sn_tm_param_def DEFS[SN_TM_PARAM_COUNT] = {
    [SN_TM_DISTANCE_TO_LEADING_VEHICLE] = {"distance_to_leading_vehicle", 0, 100, SN_TM_DISTANCE_TO_LEADING, false, true, true, "m"},
    [SN_TM_PERCENTAGE_SPEED_DIFFERENCE] = {"percentage_speed_difference", -100, 100, SN_TM_SPEED_DIFFERENCE, false, true, true, "%"},
    [SN_TM_DESIRED_SPEED] = {"desired_speed", 0, 720, -1, false, false, true, "km/h"},
    [SN_TM_IGNORE_LIGHTS_PERCENTAGE] = {"ignore_lights_percentage", 0, 100, SN_TM_IGNORE_LIGHTS, false, true, true, "%"},
    [SN_TM_IGNORE_SIGNS_PERCENTAGE] = {"ignore_signs_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_IGNORE_VEHICLES_PERCENTAGE] = {"ignore_vehicles_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_IGNORE_WALKERS_PERCENTAGE] = {"ignore_walkers_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_AUTO_LANE_CHANGE] = {"auto_lane_change", 0, 1, 1, true, true, true, ""},
    [SN_TM_RANDOM_LEFT_LANECHANGE_PERCENTAGE] = {"random_left_lanechange_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_RANDOM_RIGHT_LANECHANGE_PERCENTAGE] = {"random_right_lanechange_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_KEEP_RIGHT_RULE_PERCENTAGE] = {"keep_right_rule_percentage", 0, 100, 0, false, true, true, "%"},
    [SN_TM_UPDATE_VEHICLE_LIGHTS] = {"update_vehicle_lights", 0, 1, 0, true, true, true, ""},
    [SN_TM_SYNCHRONOUS_MODE] = {"synchronous_mode", 0, 1, 0, true, true, false, ""},
    [SN_TM_HYBRID_PHYSICS_MODE] = {"hybrid_physics_mode", 0, 1, 0, true, true, false, ""},
    [SN_TM_HYBRID_PHYSICS_RADIUS] = {"hybrid_physics_radius", 0, 1e6, 70, false, true, false, "m"},
    [SN_TM_RESPAWN_DORMANT_VEHICLES] = {"respawn_dormant_vehicles", 0, 1, 0, true, true, false, ""},
    [SN_TM_OSM_MODE] = {"osm_mode", 0, 1, 1, true, true, false, ""},
};

const sn_tm_param_def *sn_tm_param_info(sn_tm_param p)
{
    return (unsigned)p < SN_TM_PARAM_COUNT ? &DEFS[p] : NULL;
}

static sn_tms *tms_of(sn_engine *e, bool make)
{
    if (!e->tms && make)
        e->tms = calloc(1, sizeof *e->tms);
    return e->tms;
}

static const sn_tm *tm_find(const sn_engine *e, uint32_t port)
{
    for (uint32_t i = 0; e->tms && i < e->tms->n_tm; i++)
        if (e->tms->tm[i].port == port)
            return &e->tms->tm[i];
    return NULL;
}

sn_tm *sn_tms_get(sn_engine *e, uint32_t port, bool make)
{
    sn_tm *t = (sn_tm *)tm_find(e, port);
    if (t || !make)
        return t;
    sn_tms *s = tms_of(e, true);
    size_t cap = s ? s->cap_tm : 0;
    if (!s || !sn_grow((void **)&s->tm, &cap, s->n_tm + 1, sizeof *s->tm))
        return NULL;
    s->cap_tm = (uint32_t)cap;
    t = &s->tm[s->n_tm++];
    *t = (sn_tm){.port = port};
    for (int p = 0; p < SN_TM_PARAM_COUNT; p++)
        t->v[p] = DEFS[p].def;
    return t;
}

static size_t veh_lower(const sn_tms *s, uint32_t actor)
{
    return sn_search_u32(s->veh, s->n_veh, sizeof *s->veh, offsetof(sn_tm_vehicle, actor), actor);
}

sn_tm_vehicle *sn_tms_vehicle(sn_engine *e, uint32_t actor, bool make)
{
    sn_tms *s = tms_of(e, make);
    if (!s)
        return NULL;
    size_t i = veh_lower(s, actor);
    if (i < s->n_veh && s->veh[i].actor == actor)
        return &s->veh[i];
    if (!make || !sn_grow((void **)&s->veh, &s->cap_veh, s->n_veh + 1, sizeof *s->veh))
        return NULL;
    memmove(&s->veh[i + 1], &s->veh[i], (s->n_veh - i) * sizeof *s->veh);
    s->n_veh++;
    s->veh[i] = (sn_tm_vehicle){.actor = actor};
    return &s->veh[i];
}

bool sn_tm_vehicle_own(sn_tm_vehicle *v, sn_tm_param p, double value)
{
    if (!v->v && !(v->v = calloc(SN_TM_PARAM_COUNT, sizeof *v->v)))
        return false;
    v->v[p] = value;
    v->own |= 1u << p;
    return true;
}

double sn_tm_value(const sn_engine *e, const sn_tm_vehicle *v, sn_tm_param p)
{
    if (v && (v->own >> p & 1))
        return v->v[p];
    const sn_tm *t = tm_find(e, v && v->port ? v->port : SN_TM_DEFAULT_PORT);
    return t ? t->v[p] : DEFS[p].def;
}

static sn_mapdrive *drive_of(sn_actor *a)
{
    if (!a || a->kind != SN_ACTOR_VEHICLE || !a->has_autopilot || !a->mv->ap || !a->mv->ap->map)
        return NULL;
    return a->mv->ap->map;
}

static uint64_t mix_id(uint64_t seed, uint32_t id) { return seed ^ (0x9e3779b97f4a7c15ull * (id + 1)); }

bool sn_tm_apply(sn_engine *e, sn_actor *a)
{
    sn_mapdrive *md = drive_of(a);
    sn_tm_vehicle *v = md ? sn_tms_vehicle(e, a->id, false) : NULL;
    if (!md)
        return true;
    static const sn_tm_param P[SN_MD_PCT_COUNT] = {
        [SN_MD_PCT_LC_LEFT] = SN_TM_RANDOM_LEFT_LANECHANGE_PERCENTAGE, [SN_MD_PCT_LC_RIGHT] = SN_TM_RANDOM_RIGHT_LANECHANGE_PERCENTAGE,
        [SN_MD_PCT_KEEP_RIGHT] = SN_TM_KEEP_RIGHT_RULE_PERCENTAGE, [SN_MD_PCT_IGNORE_SIGNS] = SN_TM_IGNORE_SIGNS_PERCENTAGE,
        [SN_MD_PCT_IGNORE_VEHICLES] = SN_TM_IGNORE_VEHICLES_PERCENTAGE,
        [SN_MD_PCT_IGNORE_WALKERS] = SN_TM_IGNORE_WALKERS_PERCENTAGE};
    double pct[SN_MD_PCT_COUNT];
    bool any = false;
    for (int k = 0; k < SN_MD_PCT_COUNT; k++) {
        pct[k] = sn_tm_value(e, v, P[k]);
        any |= pct[k] != 0 || signbit(pct[k]); /* kept unless +0 bit for bit, as the fields held it */
    }
    if (!any) {
        free(md->pct);
        md->pct = NULL;
    } else {
        if (!md->pct && !(md->pct = malloc(sizeof pct)))
            return false;
        memcpy(md->pct, pct, sizeof pct);
    }
    md->gap = sn_tm_value(e, v, SN_TM_DISTANCE_TO_LEADING_VEHICLE);
    /* CARLA's GetVehicleTargetVelocity: the vehicle's percentage, else its desired speed, else
    ** its Traffic Manager's percentage. */
    md->speed_diff = sn_tm_value(e, v, SN_TM_PERCENTAGE_SPEED_DIFFERENCE);
    bool own_pct = v && (v->own >> SN_TM_PERCENTAGE_SPEED_DIFFERENCE & 1);
    md->desired = !own_pct && v && (v->own >> SN_TM_DESIRED_SPEED & 1) ? v->v[SN_TM_DESIRED_SPEED] / 3.6 : -1;
    md->ignore_lights = sn_tm_value(e, v, SN_TM_IGNORE_LIGHTS_PERCENTAGE);
    md->auto_lane_change = sn_tm_value(e, v, SN_TM_AUTO_LANE_CHANGE) != 0;
    md->plan = v ? v->plan : NULL;
    md->asleep = false; /* a changed setting: it decides anew (traffic.c, vehicle_sleep) */
    return true;
}

bool sn_tm_apply_port(sn_engine *e, uint32_t port)
{
    sn_world *w = &e->world;
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_actor *a = w->actors[i];
        if (!drive_of(a))
            continue;
        const sn_tm_vehicle *v = sn_tms_vehicle(e, a->id, false);
        if ((v && v->port ? v->port : SN_TM_DEFAULT_PORT) == port && !sn_tm_apply(e, a))
            return false;
    }
    return true;
}

sn_status sn_tm_adopt(sn_engine *e, sn_actor *a, uint32_t port, const double *knobs3, double target_speed,
                      sn_error *err)
{
    if (a->kind != SN_ACTOR_VEHICLE)
        return SN_OK;
    sn_tm_vehicle *v = sn_tms_vehicle(e, a->id, true);
    if (!v)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    v->port = port ? port : v->port ? v->port : SN_TM_DEFAULT_PORT;
    const sn_tm *t = sn_tms_get(e, v->port, true);
    if (!t)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    static const sn_tm_param K[3] = {SN_TM_DISTANCE_TO_LEADING_VEHICLE, SN_TM_PERCENTAGE_SPEED_DIFFERENCE,
                                     SN_TM_IGNORE_LIGHTS_PERCENTAGE};
    for (int i = 0; knobs3 && i < 3; i++)
        if (!isnan(knobs3[i]) && !sn_tm_vehicle_own(v, K[i], knobs3[i]))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
    if (knobs3 && !isnan(knobs3[1]))
        v->own &= ~(1u << SN_TM_DESIRED_SPEED);
    if (target_speed >= 0) { /* the scene's and the options' m/s; CARLA's desired speed is km/h */
        if (!sn_tm_vehicle_own(v, SN_TM_DESIRED_SPEED, target_speed * 3.6))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        v->own &= ~(1u << SN_TM_PERCENTAGE_SPEED_DIFFERENCE);
    }
    sn_mapdrive *md = drive_of(a);
    if (md && t->seeded)
        sn_rng_seed(&md->rng, mix_id(t->seed, a->id));
    if (!sn_tm_apply(e, a))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    return SN_OK;
}

void sn_tms_free(sn_tms *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_veh; i++) {
        free(t->veh[i].v);
        if (t->veh[i].plan) {
            free(t->veh[i].plan->pts);
            free(t->veh[i].plan->turns);
            free(t->veh[i].plan);
        }
    }
    free(t->veh);
    free(t->tm);
    free(t);
}

void sn_tm_warn(sn_engine *e, const char *line)
{
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else if (!e->opts.quiet_plugins)
        fprintf(stderr, "sensim: warning: %s\n", line);
}

/* ---- vehicle lights (CARLA's VehicleLightStage.cpp, Constants.h VehicleLight) ---- */

#define SUN_BEFORE_DAWN 15.0
#define SUN_AFTER_SUNSET 165.0
#define SUN_JUST_AFTER_DAWN 35.0
#define SUN_JUST_BEFORE_SUNSET 145.0
#define HEAVY_PRECIPITATION 80.0
#define FOG_DENSITY 20.0

/* The blinker for the turn at the first junction of the path: CARLA compares the vehicle's
** heading with the lane's direction where the junction's lane ends. */
static uint32_t blinker(const sn_map *m, const sn_mapdrive *md, sn_vec3 fwd)
{
    for (uint32_t i = 0; i < md->n; i++) {
        if (!md->path[i].is_junction)
            continue;
        sn_waypoint w[64];
        size_t k = 0;
        const sn_waypoint pw = sn_md_wp(md, i);
        if (sn_map_next_until_lane_end(m, &pw, 2.0, w, 64, &k, NULL) != SN_OK || k == 0)
            return 0;
        const sn_waypoint *end = &w[(k < 64 ? k : 64) - 1];
        double yaw = end->transform.rotation.yaw * M_PI / 180;
        sn_vec3 nx = sn_v3(cos(yaw), sin(yaw), 0);
        double dot = fwd.x * nx.x + fwd.y * nx.y, left = fwd.y * nx.x - fwd.x * nx.y;
        if (dot < 0.5 && left > 0.5)
            return SN_LIGHT_LEFT_BLINKER;
        if (dot < 0.5 && left < -0.5)
            return SN_LIGHT_RIGHT_BLINKER;
        return 0;
    }
    return 0;
}

void sn_tm_lights(sn_engine *e)
{
    if (!e->tms || !e->map)
        return;
    const sn_weather *wx = &e->lighting.weather;
    uint32_t weather = 0;
    if (wx->sun_altitude_angle < SUN_BEFORE_DAWN || wx->sun_altitude_angle > SUN_AFTER_SUNSET)
        weather |= SN_LIGHT_POSITION | SN_LIGHT_LOW_BEAM;
    else if (wx->sun_altitude_angle < SUN_JUST_AFTER_DAWN || wx->sun_altitude_angle > SUN_JUST_BEFORE_SUNSET)
        weather |= SN_LIGHT_POSITION;
    if (wx->precipitation > HEAVY_PRECIPITATION)
        weather |= SN_LIGHT_POSITION | SN_LIGHT_LOW_BEAM;
    if (wx->fog_density > FOG_DENSITY)
        weather |= SN_LIGHT_POSITION | SN_LIGHT_LOW_BEAM | SN_LIGHT_FOG;
    const uint32_t driven = SN_LIGHT_BRAKE | SN_LIGHT_LEFT_BLINKER | SN_LIGHT_RIGHT_BLINKER | SN_LIGHT_POSITION |
                            SN_LIGHT_LOW_BEAM | SN_LIGHT_HIGH_BEAM | SN_LIGHT_FOG;
    for (size_t i = 0; i < e->tms->n_veh; i++) {
        const sn_tm_vehicle *v = &e->tms->veh[i];
        if (!v->port || sn_tm_value(e, v, SN_TM_UPDATE_VEHICLE_LIGHTS) == 0)
            continue;
        sn_actor *a = sn_world_find(&e->world, v->actor);
        sn_mapdrive *md = drive_of(a);
        if (!md)
            continue;
        sn_mat3 r = sn_mat3_from_quat(a->st.rot);
        uint32_t bits = weather | blinker(e->map, md, sn_mat3_col(&r, 0));
        if (a->ph->control.brake > 0.5) /* hard braking only: no flicker from the speed loop */
            bits |= SN_LIGHT_BRAKE;
        a->ph->light_state = (a->ph->light_state & ~driven) | bits;
    }
}

/* ---- forks ---- */

static double d2(sn_vec3 a, sn_vec3 b) { return hypot(a.x - b.x, a.y - b.y); }

static double wrap180(double d)
{
    d = fmod(d, 360.0);
    return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

#define PATH_REACH 5.0   /* m: a path point counts as reached when the path passes this near */
#define LOOK_STEP 2.0    /* m between the look-ahead waypoints of a branch */
#define LOOK_STEPS 40    /* ... and how many (80 m) */

/* Along branch b: the nearest it comes to `target` within the look-ahead, and its heading change
** from `yaw0` where it leaves the junction it enters (or at the look-ahead's end). */
static void follow(const sn_map *m, sn_waypoint b, sn_vec3 target, double yaw0, double *near, double *turn)
{
    *near = d2(b.transform.location, target);
    *turn = wrap180(b.transform.rotation.yaw - yaw0);
    bool left_junction = false;
    for (int i = 0; i < LOOK_STEPS; i++) {
        sn_waypoint nx[8];
        size_t k = 0;
        if (sn_map_next(m, &b, LOOK_STEP, nx, 8, &k, NULL) != SN_OK || k == 0)
            break;
        b = nx[0];
        *near = fmin(*near, d2(b.transform.location, target));
        if (!left_junction) {
            *turn = wrap180(b.transform.rotation.yaw - yaw0);
            left_junction = !b.is_junction;
        }
    }
}

size_t sn_tm_pick(const sn_map *m, sn_mapdrive *md, const sn_waypoint *next, size_t k)
{
    if (k <= 1)
        return 0;
    sn_tm_plan *p = md->plan;
    if (!p || p->next >= p->n)
        return (size_t)(sn_rng_u64(&md->rng) % k);
    const double yaw0 = md->n ? md->path[md->n - 1].transform.rotation.yaw : next[0].transform.rotation.yaw;
    const sn_vec3 target = p->pts ? p->pts[p->next] : sn_v3(0, 0, 0);
    /* set_route: the branch whose turn is nearest the asked one (straight 0, left -90, right +90
    ** degrees of yaw: CARLA's yaw grows to the right). */
    const double want = p->turns ? (p->turns[p->next] == SN_TM_LEFT ? -90 : p->turns[p->next] == SN_TM_RIGHT ? 90 : 0) : 0;
    size_t best = 0;
    double best_score = INFINITY;
    for (size_t i = 0; i < k; i++) {
        double near, turn;
        follow(m, next[i], target, yaw0, &near, &turn);
        double score = p->turns ? fabs(turn - want) : near;
        if (score < best_score - 1e-9)
            best = i, best_score = score;
    }
    if (p->turns)
        p->next++; /* one turn per fork */
    return best;
}

void sn_tm_plan_reached(sn_mapdrive *md, const sn_waypoint *w)
{
    sn_tm_plan *p = md->plan;
    while (p && p->pts && p->next < p->n && d2(w->transform.location, p->pts[p->next]) < PATH_REACH)
        p->next++;
}
