/* xosc_engine.c — a scenario in the engine: its entities become kinematic actors through spawn
** descriptors, its storyboard runs in step 3 of each frame, its log becomes storyboard.msgpack
** and its end goes into run.json. docs/openscenario.md. */
#include "scenario.h"
#include "xosc_run.h"
#include "xosc_traffic.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../map/lanemap.h"
#include "../plugin/attr.h"
#include "../sim/engine.h"
#include "../sim/weather_api.h"
#include "../sim/spawn.h"
#include "../traffic/traffic.h"
#include "../traffic/lights.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sn_scenario {
    sn_xosc *x;
    sn_xrun run;
    bool running;
    uint32_t *actor;   /* per entity: its actor id */
    struct sn_engine *e;
    char json[1024];
    char **warned;     /* runtime warnings given (each once) */
    uint32_t n_warned;
    sn_xtraffic_state *traffic; /* the Traffic*Actions' vehicles (xosc_traffic.c) */
};

static void say(struct sn_engine *e, const char *line)
{
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else if (!e->opts.quiet_plugins)
        fprintf(stderr, "sensim: warning: %s\n", line);
}

static void run_warn(void *user, const char *line)
{
    sn_scenario *s = user;
    for (uint32_t i = 0; i < s->n_warned; i++)
        if (!strcmp(s->warned[i], line))
            return;
    char **nw = realloc(s->warned, (s->n_warned + 1) * sizeof *nw);
    if (!nw)
        return;
    s->warned = nw;
    if ((nw[s->n_warned] = sn_strdup(line)))
        s->n_warned++;
    say(s->e, line);
}

void sn_scenario_free(sn_scenario *s)
{
    if (!s)
        return;
    sn_xrun_free(&s->run);
    sn_xtraffic_free(s->traffic);
    sn_xosc_free(s->x);
    free(s->actor);
    for (uint32_t i = 0; i < s->n_warned; i++)
        free(s->warned[i]);
    free(s->warned);
    free(s);
}

sn_status sn_scenario_open(struct sn_engine *e, sn_error *err)
{
    sn_scene *sc = &e->scene;
    sn_scenario *s = calloc(1, sizeof *s);
    if (!s)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    s->e = e;
    e->scenario = s;
    sn_status st = sn_xosc_load(sc->scenario_path, (const char *const *)sc->scenario_sets, sc->n_scenario_sets, &s->x, err);
    if (st)
        return st;
    for (uint32_t i = 0; i < s->x->n_warnings; i++)
        say(e, s->x->warnings[i]);
    if (!sc->map_path && !s->x->logic_file) {
        /* esmini plays such a scenario on an empty plane: so does sensim, its entities moving
        ** straight along their headings (free mode), nothing under them */
        char line[700];
        snprintf(line, sizeof line, "%s: RoadNetwork: no LogicFile: the entities move on an empty plane (no roads, no "
                 "ground; a scene's map: gives one)", sc->scenario_path);
        say(e, line);
    } else if (!sc->map_path) {
        if (!(sc->map_path = sn_strdup(s->x->logic_file)))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    return SN_OK;
}

/* The actor's origin (CARLA's: a vehicle's at the bottom of its box, others' at its centre)
** from the entity's reference point and box. */
static sn_transform actor_pose(const sn_xentity *d, const sn_xent *x)
{
    /* a vehicle's origin is the bottom of its box (CARLA's), never below the road: catalogs give
    ** boxes whose centre is a little lower than half their height */
    double up = d->kind == SN_XEN_VEHICLE ? fmax(d->cz - d->hgt / 2, 0) : d->cz;
    /* a vehicle takes the road's pitch and roll (esmini's); walkers and props stay upright.
    ** CARLA's pitch is nose up, its roll right side down (sn_mat3_from_rotation) */
    bool tilt = d->kind == SN_XEN_VEHICLE;
    sn_rotation rot = {tilt ? -x->pitch * 180 / M_PI : 0, -x->h * 180 / M_PI, tilt ? x->roll * 180 / M_PI : 0};
    sn_mat3 m = sn_mat3_from_rotation(rot);
    const double *a = m.m, l[3] = {d->cx, -d->cy, up}; /* forward, right, up */
    sn_vec3 o = {x->x + a[0] * l[0] + a[1] * l[1] + a[2] * l[2], -x->y + a[3] * l[0] + a[4] * l[1] + a[5] * l[2],
                 x->z + a[6] * l[0] + a[7] * l[1] + a[8] * l[2]};
    return (sn_transform){o, rot};
}

static void activate(void *user, int i)
{
    sn_scenario *s = user;
    struct sn_engine *e = s->e;
    sn_actor *a = sn_world_find(&e->world, s->actor[i]);
    if (!a || !a->ph->body)
        return;
    double v = s->run.ents[i].v, h = s->run.ents[i].h;
    if (s->x->ents[i].external) {
        /* the user's: it goes on at its speed (kinematic) until the user sets its target, or
        ** switches it to physics and drives it (sn_engine_set_simulate_physics, apply_control) */
        sn_world_set_velocity(&e->world, a, sn_v3(v * cos(h), -v * sin(h), 0), sn_v3(0, 0, 0));
        if (a->mv->kin)
            a->mv->kin->kin_scripted = true;
        return;
    }
    sn_world_set_drive(&e->world, a, SN_DRIVE_PHYSICS);
    sn_world_set_velocity(&e->world, a, sn_v3(v * cos(h), -v * sin(h), 0), sn_v3(0, 0, 0));
    sn_tm_knobs k = {NAN, NAN, NAN};
    sn_error err = {0};
    if (sn_mapdrive_start(e, a, &k, 0, e->seed ^ sn_hash_str(s->x->ents[i].name), &err)) {
        char line[1800];
        snprintf(line, sizeof line, "%s: ActivateControllerAction: '%s': %s", s->x->path, s->x->ents[i].name, err.msg);
        run_warn(s, line);
    }
}

/* The map's light heads of OpenDRIVE signal `id` (a whole number), or none. */
static bool signal_of(const char *id, int32_t *out)
{
    char *end;
    long v = strtol(id, &end, 10);
    if (end == id || *end || v < INT32_MIN || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

/* The storyboard's signal states to the map's lights: each light of that signal takes the state
** and its junction's group is frozen, so its own cycle does not take it back (the scenario's
** controllers cycle it instead). */
static void push_signals(sn_scenario *s)
{
    struct sn_engine *e = s->e;
    sn_xrun *r = &s->run;
    for (uint32_t k = 0; k < r->n_sig; k++) {
        sn_xsig *g = &r->sig[k];
        if (!g->dirty)
            continue;
        g->dirty = false;
        int32_t id;
        int colour = sn_xsig_colour(g->state);
        bool found = false;
        if (e->lights && signal_of(g->id, &id) && colour >= 0)
            for (uint32_t j = 0; j < e->lights->n; j++) {
                sn_tlight *t = &e->lights->l[j];
                if (t->actor == 0 || t->signal_id != id)
                    continue;
                found = true;
                e->lights->g[t->group].frozen = true;
                sn_lights_set(e, t, (uint8_t)colour);
            }
        if (!found) {
            char line[700];
            snprintf(line, sizeof line, "%s: traffic signal '%s' (state '%s'): %s", s->x->path, g->id, g->state,
                     colour < 0 ? "the state is no colour sensim knows (red, yellow, green, off, or on;off;off): the "
                                  "storyboard keeps it for its conditions only"
                                : "no traffic light of the map has this OpenDRIVE signal id: the storyboard keeps "
                                  "its state for its conditions only");
            run_warn(s, line);
        }
    }
}

/* A signal the storyboard has not set: its map light's state. */
static bool signal_state(void *user, const char *sid, char *out, size_t cap)
{
    sn_scenario *s = user;
    struct sn_engine *e = s->e;
    int32_t id;
    if (!e->lights || !signal_of(sid, &id))
        return false;
    static const char *const names[] = {"red", "yellow", "green", "off", "unknown"};
    for (uint32_t j = 0; j < e->lights->n; j++)
        if (e->lights->l[j].actor && e->lights->l[j].signal_id == id) {
            uint8_t st = e->lights->l[j].state;
            snprintf(out, cap, "%s", names[st < 5 ? st : 4]);
            return true;
        }
    return false;
}

/* LightStateActions' lights to the entities' actors (CARLA's set_light_state). */
static void push_lights(sn_scenario *s)
{
    for (uint32_t i = 0; i < s->x->n_ents; i++) {
        sn_xent *x = &s->run.ents[i];
        if (!x->lights_dirty)
            continue;
        x->lights_dirty = false;
        sn_actor *a = sn_world_find(&s->e->world, s->actor[i]);
        if (a && a->kind == SN_ACTOR_VEHICLE) /* CARLA's set_light_state (sim/control.c), before the scene is live too */
            a->ph->light_state = x->lights;
    }
}

/* Entity i's actor, kinematic, where the storyboard has it (at the start, or when an
** AddEntityAction adds it). s->actor[i] is its id. */
static sn_status spawn_entity(sn_scenario *s, uint32_t i, sn_error *err)
{
    struct sn_engine *e = s->e;
    sn_xosc *x = s->x;
    const sn_xentity *d = &x->ents[i];
    const sn_blueprint *bp = sn_library_find(&e->lib, d->blueprint);
    if (!bp)
        return sn_fail(err, SN_E_INVALID, "%s:%d: ScenarioObject '%s': no blueprint '%s'", x->path, d->line, d->name,
                       d->blueprint);
    char extent[96];
    snprintf(extent, sizeof extent, "%.6g,%.6g,%.6g", d->len / 2, d->wid / 2, d->hgt / 2);
    sn_attribute attrs[3] = {{"role_name", d->name}, {"extent", extent}, {"center_of_mass_height", NULL}};
    uint32_t n = 0;
    if (sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "role_name") >= 0)
        n = 1;
    if (sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "extent") >= 0)
        attrs[n++] = attrs[1];
    /* a box lower than the blueprint's centre of mass (a trailer's 1.2 m on the truck's):
    ** the centre of mass at half its height, so the blueprint takes it (esmini has no mass) */
    char cg[48];
    int k = sn_attr_find(bp->attrs, bp->n_attrs, bp->stride, "center_of_mass_height");
    if (k >= 0 && atof(sn_attr_at(bp->attrs, bp->stride, (uint32_t)k)->def) >= d->hgt) {
        snprintf(cg, sizeof cg, "%.6g", d->hgt / 2);
        attrs[2].value = cg;
        attrs[n++] = attrs[2];
    }
    /* an entity the Init puts on another (drop-bike's bike on its truck): esmini tests no
    ** collision, so it spawns overlapping, with a warning (CARLA would refuse the spawn) */
    bool on_other = false;
    if (s->run.ents[i].placed) {
        double bi[4][2], bj[4][2];
        sn_xmove_box(&s->run, (int)i, bi);
        for (uint32_t j = 0; j < x->n_ents && !on_other; j++) {
            if (j == i || !s->actor[j] || !s->run.ents[j].placed) /* the entities in the world */
                continue;
            sn_xmove_box(&s->run, (int)j, bj);
            if (sn_xbox_distance(bi, bj) <= 0) {
                on_other = true;
                char line[900];
                snprintf(line, sizeof line, "%s:%d: ScenarioObject: entity '%s' starts overlapping entity '%s': it "
                         "is spawned so (esmini tests no collision; CARLA would refuse the spawn)", x->path, d->line,
                         d->name, x->ents[j].name);
                run_warn(s, line);
            }
        }
    }
    /* added during the run: where the storyboard puts it, whatever stands there (esmini's) */
    sn_spawn_desc desc = {.bp = bp, .name = d->name, .transform = actor_pose(d, &s->run.ents[i]), .lift_static = true,
                          .overlap_ok = !s->run.ents[i].placed || on_other || s->run.frame > 0};
    sn_status st = sn_blueprint_resolve(bp, attrs, n, NULL, NULL, &desc.values, err);
    sn_actor *a;
    if (st || (st = sn_spawn_actor(e, &desc, &a, err))) {
        char where[600];
        snprintf(where, sizeof where, "%s:%d: ScenarioObject '%s'", x->path, d->line, d->name);
        return sn_error_prefix(err, where);
    }
    s->actor[i] = a->id;
    if (a->ph->body && !sn_world_set_drive(&e->world, a, SN_DRIVE_KINEMATIC))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    double v = s->run.ents[i].v, h = s->run.ents[i].h;
    if (a->ph->body)
        sn_world_set_velocity(&e->world, a, sn_v3(v * cos(h), -v * sin(h), 0), sn_v3(0, 0, 0));
    return SN_OK;
}

sn_status sn_scenario_spawn(struct sn_engine *e, sn_error *err)
{
    sn_scenario *s = e->scenario;
    sn_xosc *x = s->x;
    if (!sn_xrun_init(&s->run, x, e->map, e->clock.dt))
        return sn_fail(err, SN_E_INVALID, "%s", s->run.why);
    s->run.warn = run_warn;
    s->run.warn_user = s;
    s->run.activate = activate;
    s->run.user = s;
    s->run.signal_state = signal_state;
    for (uint32_t i = 0; i < x->n_ents; i++)
        if (!s->run.ents[i].placed && !s->run.ents[i].absent) {
            char line[700];
            snprintf(line, sizeof line, "%s:%d: ScenarioObject: entity '%s' has no TeleportAction in the Init: it "
                     "starts at the origin (x 0, y 0, heading 0), as in esmini", x->path, x->ents[i].line, x->ents[i].name);
            run_warn(s, line);
        }
    if (!(s->actor = calloc(x->n_ents + 1, sizeof *s->actor)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < x->n_ents; i++) {
        if (s->run.ents[i].absent) /* out of the scenario until an AddEntityAction */
            continue;
        sn_status st = spawn_entity(s, i, err);
        if (st)
            return st;
    }
    if (s->run.weather_set) {
        sn_engine_apply_weather(e, &s->run.weather);
        s->run.weather_set = false;
    }
    push_lights(s);
    s->running = true;
    /* an Init's traffic populates before the first frame */
    return sn_xtraffic_step(e, &s->run, &s->traffic, err);
}

sn_status sn_scenario_step(struct sn_engine *e, sn_error *err)
{
    sn_scenario *s = e->scenario;
    if (!s || !s->running)
        return SN_OK;
    sn_xrun *r = &s->run;
    /* entities an autopilot drives: the storyboard reads their poses */
    for (uint32_t i = 0; i < s->x->n_ents; i++) {
        if (r->ents[i].mode != SN_XM_EXTERNAL)
            continue;
        sn_actor *a = sn_world_find(&e->world, s->actor[i]);
        if (!a)
            continue;
        sn_transform t = sn_actor_world_transform(&e->world, a);
        double v = sn_v3_len(a->st.vel);
        if (a->mv && a->mv->kin && a->drive == SN_DRIVE_KINEMATIC && a->mv->kin->has_target) {
            /* the user set where it will be at the end of this frame: the storyboard sees that */
            v = sn_v3_len(sn_v3_sub(a->mv->kin->target_pos, a->st.pos)) / e->clock.dt;
            t.location = a->mv->kin->target_pos;
            t.rotation = sn_quat_to_rotation(a->mv->kin->target_rot);
        }
        double h = -t.rotation.yaw * M_PI / 180;
        const sn_xentity *d = &s->x->ents[i];
        r->ents[i].h = h;
        r->ents[i].pitch = -t.rotation.pitch * M_PI / 180;
        r->ents[i].roll = t.rotation.roll * M_PI / 180;
        /* actor_pose undone: the reference point is the origin less the rotated offset */
        r->ents[i].x = r->ents[i].y = r->ents[i].z = 0;
        sn_transform o = actor_pose(d, &r->ents[i]);
        r->ents[i].x = t.location.x - o.location.x;
        r->ents[i].y = -(t.location.y - o.location.y);
        r->ents[i].z = t.location.z - o.location.z;
        r->ents[i].v = v;
    }
    if (!r->ended && !sn_xrun_step(r))
        return sn_fail(err, SN_E_INVALID, "%s", r->why);
    /* AddEntityAction / DeleteEntityAction: the actor comes and goes with its entity (a
    ** deleted entity's attached sensors go with it, as CARLA destroys an actor's children) */
    for (uint32_t i = 0; i < s->x->n_ents; i++) {
        if (r->ents[i].absent && s->actor[i]) {
            if (sn_destroy_actor(e, s->actor[i]))
                return sn_fail(err, SN_E_NOMEM, "out of memory for a destroyed event");
            s->actor[i] = 0;
        } else if (!r->ents[i].absent && !s->actor[i]) {
            sn_status st = spawn_entity(s, i, err);
            if (st)
                return st;
        }
    }
    for (uint32_t i = 0; i < s->x->n_ents; i++) {
        sn_actor *a = sn_world_find(&e->world, s->actor[i]);
        if (!a || !a->ph->body || a->drive != SN_DRIVE_KINEMATIC || r->ents[i].mode == SN_XM_EXTERNAL)
            continue;
        sn_transform t = actor_pose(&s->x->ents[i], &r->ents[i]);
        a->mv->kin->has_target = true;
        a->mv->kin->kin_scripted = false;
        a->mv->kin->target_pos = t.location;
        a->mv->kin->target_rot = sn_quat_from_rotation(t.rotation);
    }
    if (r->weather_set) {
        sn_engine_apply_weather(e, &r->weather);
        r->weather_set = false;
    }
    push_signals(s);
    push_lights(s);
    return r->ended ? SN_OK : sn_xtraffic_step(e, r, &s->traffic, err);
}

bool sn_scenario_ended(const struct sn_engine *e) { return e->scenario && e->scenario->run.ended; }

sn_status sn_scenario_finish(struct sn_engine *e, const char *dir, const char **json, sn_error *err)
{
    sn_scenario *s = e->scenario;
    *json = NULL;
    if (!s || !s->running)
        return SN_OK;
    const sn_xrun *r = &s->run;
    char path[4096];
    snprintf(path, sizeof path, "%s/storyboard.msgpack", dir);
    FILE *f = fopen(path, "wbx");
    if (!f)
        return sn_fail(err, SN_E_IO, "%s: cannot write: %s", path, strerror(errno));
    bool bad = r->log.size && fwrite(r->log.data, 1, r->log.size, f) != r->log.size;
    if (fclose(f) != 0 || bad)
        return sn_fail(err, SN_E_IO, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    int n = snprintf(s->json, sizeof s->json,
                     "\"storyboard\":{\"completed\":%s,\"ended_by\":", r->ended ? "true" : "false");
    FILE *m = fmemopen(s->json + n, sizeof s->json - (size_t)n, "w");
    if (m) {
        sn_json_str(m, r->ended ? r->ended_by : "frames ran out");
        fputs(",\"stop_condition\":", m);
        sn_json_str(m, r->stop_condition);
        fprintf(m, ",\"time\":%.9g,\"messages\":%llu}", r->ended ? r->end_time : r->t, (unsigned long long)r->n_log);
        fclose(m);
    }
    *json = s->json;
    return SN_OK;
}

SN_API sn_status sn_engine_scenario(const sn_engine *e, sn_scenario_info *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !out || out->struct_size < sizeof *out)
        return sn_fail(err, SN_E_INVALID, "scenario: NULL engine or output, or struct_size too small");
    sn_scenario_info z = {.struct_size = out->struct_size, .ended_by = "", .stop_condition = ""};
    *out = z;
    const sn_scenario *s = e->scenario;
    if (!s || !s->running)
        return SN_OK;
    out->loaded = true;
    out->ended = s->run.ended;
    out->completed = s->run.completed;
    out->time = s->run.ended ? s->run.end_time : s->run.t;
    out->ended_by = s->run.ended_by;
    out->stop_condition = s->run.stop_condition;
    out->log_messages = s->run.n_log;
    return SN_OK;
}
