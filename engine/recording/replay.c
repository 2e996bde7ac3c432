/*
** replay.c — sn_engine_load_replay: a recording drives the world (DESIGN.md "The plugin
** contract": the engine reads through a plugin's sn_log_reader and knows no file layout).
**
** Time: replayed frame n shows recording time tau = start + (n - 1) * dt * time_factor, with
** dt the recording's, so with factor 1 replayed frame n is recorded frame n exactly (the pose
** recorded at the end of frame k is the one sn_log_frame k carries at elapsed (k - 1) * dt).
** Before each step the reader is advanced to the frame whose time is >= tau; its events
** (spawns, destroys) are applied then, and every recorded vehicle and walker gets the
** kinematic target of its pose at tau: the recorded one when tau is a recorded time, else
** interpolated between the two recorded frames around it (location linearly, each angle the
** short way round). After the step, the recorded velocities replace the ones the kinematic
** driver derives from displacement. Recorded ids are kept when no id above them was used yet.
*/
#include "replay.h"

#include "../sim/engine.h"
#include "../sim/weather_api.h"
#include "../sim/../frame/frame.h"

#include "recording.h"
#include "../core/error.h"
#include "../core/mathx.h"
#include "../core/util.h"
#include "../world/weather.h"
#include "../map/lanemap.h"
#include "../core/sha256.h"

#include <math.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>

#define TAU_EPS 1e-9

typedef struct id_map {
    uint32_t rec, live;
    bool physics; /* a hero handed back to physics: never driven by the recording */
} id_map;

typedef struct rframe {
    double t;
    sn_log_pose *poses;
    uint32_t n_poses;
    size_t cap_poses;
    sn_log_kinematics *kin;
    uint32_t n_kin;
    size_t cap_kin;
    sn_log_control *ctl;
    uint32_t n_ctl;
    size_t cap_ctl;
} rframe;

struct sn_replay {
    sn_recording *rec;
    sn_replay_options o;
    double start, stop, total, dt, factor;
    bool have_cur, have_prev, ended;
    rframe cur, prev;
    id_map *map;
    size_t n_map, cap_map;
    char *scene_path;
};

static void sn_replay_free(sn_replay *rp)
{
    if (!rp)
        return;
    sn_recording_close(rp->rec);
    rframe *f[2] = {&rp->cur, &rp->prev};
    for (int i = 0; i < 2; i++)
        free(f[i]->poses), free(f[i]->kin), free(f[i]->ctl);
    free(rp->map);
    free(rp->scene_path);
    free(rp);
}

static id_map *map_find(sn_replay *rp, uint32_t rec)
{
    size_t lo = sn_search_u32(rp->map, rp->n_map, sizeof *rp->map, offsetof(id_map, rec), rec);
    return lo < rp->n_map && rp->map[lo].rec == rec ? &rp->map[lo] : NULL;
}

static bool map_put(sn_replay *rp, uint32_t rec, uint32_t live, bool physics)
{
    size_t lo = sn_search_u32(rp->map, rp->n_map, sizeof *rp->map, offsetof(id_map, rec), rec);
    if (lo < rp->n_map && rp->map[lo].rec == rec) {
        rp->map[lo] = (id_map){rec, live, physics};
        return true;
    }
    if (!sn_grow((void **)&rp->map, &rp->cap_map, rp->n_map + 1, sizeof *rp->map))
        return false;
    memmove(rp->map + lo + 1, rp->map + lo, (rp->n_map - lo) * sizeof *rp->map);
    rp->map[lo] = (id_map){rec, live, physics};
    rp->n_map++;
    return true;
}

uint32_t sn_engine_replay_actor(const sn_engine *e, uint32_t rec)
{
    if (!e || !e->replay)
        return 0;
    id_map *m = map_find(e->replay, rec);
    return m && sn_world_find(&e->world, m->live) ? m->live : 0;
}

/* Copies what later steps need of a frame (the reader's buffers change at the next call). */
static bool keep(rframe *d, const sn_log_frame *f)
{
    d->t = f->elapsed;
    if (!sn_grow((void **)&d->poses, &d->cap_poses, (size_t)f->n_poses + 1, sizeof *d->poses) ||
        !sn_grow((void **)&d->kin, &d->cap_kin, (size_t)f->n_kinematics + 1, sizeof *d->kin) ||
        !sn_grow((void **)&d->ctl, &d->cap_ctl, (size_t)f->n_controls + 1, sizeof *d->ctl))
        return false;
    if (f->n_poses) /* an empty list may be NULL, which memcpy must not see */
        memcpy(d->poses, f->poses, f->n_poses * sizeof *d->poses);
    if (f->n_kinematics)
        memcpy(d->kin, f->kinematics, f->n_kinematics * sizeof *d->kin);
    if (f->n_controls)
        memcpy(d->ctl, f->controls, f->n_controls * sizeof *d->ctl);
    d->n_poses = f->n_poses, d->n_kin = f->n_kinematics, d->n_ctl = f->n_controls;
    return true;
}

static const sn_log_pose *pose_of(const sn_log_pose *p, uint32_t n, uint32_t id)
{
    uint32_t lo = (uint32_t)sn_search_u32(p, n, sizeof *p, offsetof(sn_log_pose, id), id);
    return lo < n && p[lo].id == id ? &p[lo] : NULL;
}

static const sn_log_kinematics *kin_of(const rframe *f, uint32_t id)
{
    uint32_t lo = (uint32_t)sn_search_u32(f->kin, f->n_kin, sizeof *f->kin, offsetof(sn_log_kinematics, id), id);
    return lo < f->n_kin && f->kin[lo].id == id ? &f->kin[lo] : NULL;
}

static bool is_recorder(const sn_log_add *a) { return strcmp(a->blueprint, "sensor.other.recorder") == 0; }

/* Spawns one recorded actor (snapshot or added), mapped to its live id. */
static sn_status spawn_one(sn_engine *e, sn_replay *rp, const sn_log_add *a, const sn_log_frame *f, sn_error *err)
{
    bool sensor = a->type == 5 || strncmp(a->blueprint, "sensor.", 7) == 0;
    if (is_recorder(a) || (sensor && !rp->o.replay_sensors) || (a->hero && rp->o.ignore_hero))
        return SN_OK;
    uint32_t parent = 0;
    if (a->parent_id) {
        id_map *m = map_find(rp, a->parent_id);
        if (!m || !sn_world_find(&e->world, m->live))
            return SN_OK; /* its parent is not replayed (an ignored hero): neither is it */
        parent = m->live;
    }
    const sn_log_pose *p = pose_of(f->poses, f->n_poses, a->id);
    sn_transform tf = parent ? a->relative : p ? p->transform : a->transform;
    sn_attribute *attrs = calloc(a->n_attrs + 1, sizeof *attrs);
    if (!attrs)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->n_attrs; i++)
        attrs[n++] = (sn_attribute){a->attrs[i].id, a->attrs[i].value};
    const char *name = a->name[0] && !sn_world_find_name(&e->world, a->name) ? a->name : NULL;
    sn_actor_desc d = {sizeof d, a->blueprint, name, tf, parent, a->id > e->world.next_id ? a->id : 0, attrs, n};
    uint32_t live = 0;
    sn_status st = sn_engine_spawn(e, &d, &live, err);
    free(attrs);
    if (st)
        return sn_error_prefix(err, "replay: spawning recorded actor");
    bool physics = a->hero && rp->o.branch_hero;
    if (!map_put(rp, a->id, live, physics))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_actor *act = sn_world_find(&e->world, live);
    if (act && act->ph->body && !physics && (st = sn_engine_set_simulate_physics(e, live, false, err)))
        return st;
    return SN_OK;
}

static sn_status apply_events(sn_engine *e, sn_replay *rp, const sn_log_frame *f, sn_error *err)
{
    sn_status st;
    for (uint32_t i = 0; i < f->n_added; i++)
        if ((st = spawn_one(e, rp, &f->added[i], f, err)))
            return st;
    for (uint32_t i = 0; i < f->n_destroyed; i++) {
        id_map *m = map_find(rp, f->destroyed[i]);
        if (m && sn_world_find(&e->world, m->live) && (st = sn_engine_destroy_actor(e, m->live, err)))
            return st;
    }
    /* Traffic lights show their recorded states (a reader built before ABI 1.4 has none). */
    if (f->struct_size >= offsetof(sn_log_frame, n_lights) + sizeof f->n_lights && f->lights)
        for (uint32_t i = 0; i < f->n_lights; i++) {
            id_map *m = map_find(rp, f->lights[i].id);
            sn_traffic_light_state cur;
            if (m && sn_engine_traffic_light_get_state(e, m->live, &cur, NULL) == SN_OK &&
                cur != (sn_traffic_light_state)f->lights[i].state &&
                (st = sn_engine_traffic_light_set_state(e, m->live, (sn_traffic_light_state)f->lights[i].state, err)))
                return st;
        }
    /* Vehicles' wheel angles and lights (format 1.3; a reader built before has none): the wheels
    ** turn as recorded, since a kinematic vehicle does not steer itself. */
    if (f->struct_size >= offsetof(sn_log_frame, n_vehicles) + sizeof f->n_vehicles && f->vehicles)
        for (uint32_t i = 0; i < f->n_vehicles; i++) {
            id_map *m = map_find(rp, f->vehicles[i].id);
            sn_actor *a = m && !m->physics ? sn_world_find(&e->world, m->live) : NULL;
            if (a && a->kind == SN_ACTOR_VEHICLE) {
                a->ph->steer_angle = f->vehicles[i].wheel_steer_angle * SN_DEG;
                a->ph->light_state = f->vehicles[i].light_state;
            }
        }
    /* The recorded weather, when it differs from the world's (recordings before format 1.2 have none). */
    if (f->struct_size >= offsetof(sn_log_frame, weather) + sizeof f->weather && f->weather &&
        memcmp(f->weather, &e->lighting.weather, sizeof *f->weather) != 0) {
        sn_weather w = *f->weather;
        if ((st = sn_weather_validate(&w, err)))
            return sn_error_prefix(err, "replay: recorded weather");
        sn_engine_apply_weather(e, &w);
    }
    return SN_OK;
}

/* Reads the next recorded frame into cur (the previous cur becomes prev). */
static sn_status read_next(sn_engine *e, sn_replay *rp, sn_error *err)
{
    const sn_log_frame *f;
    sn_status st = sn_recording_next(rp->rec, &f, err);
    if (st == SN_E_NOT_FOUND) {
        rp->ended = true;
        return SN_OK;
    }
    if (st)
        return st;
    rframe t = rp->prev;
    rp->prev = rp->cur;
    rp->cur = t;
    rp->have_prev = rp->have_cur;
    if (!keep(&rp->cur, f))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    rp->have_cur = true;
    return apply_events(e, rp, f, err);
}

static double lerp_angle(double a, double b, double t)
{
    double d = fmod(b - a, 360.0);
    if (d > 180)
        d -= 360;
    else if (d < -180)
        d += 360;
    return a + d * t;
}

/* Pose of recorded actor `id` at tau into *out; false when it has none. */
static bool pose_at(const sn_replay *rp, uint32_t id, double tau, sn_transform *out)
{
    const sn_log_pose *c = pose_of(rp->cur.poses, rp->cur.n_poses, id);
    if (!c)
        return false;
    const sn_log_pose *p = rp->have_prev ? pose_of(rp->prev.poses, rp->prev.n_poses, id) : NULL;
    if (!p || fabs(tau - rp->cur.t) <= TAU_EPS || !(rp->cur.t > rp->prev.t) || tau >= rp->cur.t) {
        *out = c->transform; /* exact at recorded frames */
        return true;
    }
    double a = (tau - rp->prev.t) / (rp->cur.t - rp->prev.t);
    a = a < 0 ? 0 : a;
    const sn_transform *x = &p->transform, *y = &c->transform;
    out->location = sn_v3_lerp(x->location, y->location, a);
    out->rotation.pitch = lerp_angle(x->rotation.pitch, y->rotation.pitch, a);
    out->rotation.yaw = lerp_angle(x->rotation.yaw, y->rotation.yaw, a);
    out->rotation.roll = lerp_angle(x->rotation.roll, y->rotation.roll, a);
    return true;
}

static double tau_of(const sn_engine *e, const sn_replay *rp)
{
    return rp->start + (double)(e->clock.frame - e->frame0 - 1) * rp->dt * rp->factor;
}

/*
** --follow ID must name an actor the recording moves: a vehicle or walker it creates (static
** actors and sensors have no recorded pose to ride on) and that the replay keeps. Read from
** the whole recording at load, so a wrong id is bad input (exit 2), not a silent no-op as in
** CARLA's replayer (CarlaReplayer::UpdatePositions skips an id it cannot map).
*/
static sn_status check_follow(sn_replay *rp, const char *path, sn_error *err)
{
    uint32_t id = rp->o.follow_id;
    sn_status st = sn_recording_seek(rp->rec, 0, err);
    const sn_log_frame *f;
    while (!st && (st = sn_recording_next(rp->rec, &f, err)) == SN_OK)
        for (uint32_t i = 0; i < f->n_added; i++) {
            const sn_log_add *a = &f->added[i];
            if (a->id != id)
                continue;
            if (a->type != SN_LOG_VEHICLE && a->type != SN_LOG_WALKER)
                return sn_fail(err, SN_E_INVALID, "replay: --follow %u: recorded actor %u is a %s, which the recording "
                               "does not move; follow a vehicle or a walker (see sensim recorder info %s)", id, id,
                               a->blueprint, path);
            if (a->hero && rp->o.ignore_hero)
                return sn_fail(err, SN_E_INVALID, "replay: --follow %u: actor %u is a hero and --ignore-hero leaves it "
                               "out of the replay", id, id);
            return SN_OK;
        }
    if (st && st != SN_E_NOT_FOUND)
        return st;
    return sn_fail(err, SN_E_INVALID, "replay: --follow %u: the recording has no actor %u (see sensim recorder info %s)",
                   id, id, path);
}

/* Every frame the replay will show, read once at load: the reader checks a frame's checksum only
** when it reads it, so a damaged frame in a recording whose index is whole stopped the replay
** half-way (exit 1, partial outputs); found here it is bad input (exit 2, nothing written). */
static sn_status check_frames(sn_replay *rp, sn_error *err)
{
    sn_status st = sn_recording_seek(rp->rec, rp->start, err);
    const sn_log_frame *f;
    while (!st && (st = sn_recording_next(rp->rec, &f, err)) == SN_OK)
        if (f->elapsed >= rp->stop)
            return SN_OK;
    if (st && st != SN_E_NOT_FOUND)
        return sn_error_prefix(err, "replay"); /* "replay: FILE: frame N: byte B: checksum mismatch" */
    return SN_OK;
}

/* Before a step's schedule: reads the recording up to this frame's time, spawns, destroys and
** sets the kinematic targets and controls. */
static sn_status sn_replay_before_step(sn_engine *e, sn_error *err)
{
    sn_replay *rp = e->replay;
    double tau = tau_of(e, rp);
    sn_status st;
    while (!rp->ended && (!rp->have_cur || rp->cur.t < tau - TAU_EPS))
        if ((st = read_next(e, rp, err)))
            return st;
    for (size_t i = 0; i < rp->n_map; i++) {
        const id_map *m = &rp->map[i];
        sn_actor *a = m->physics ? NULL : sn_world_find(&e->world, m->live);
        if (!a || !a->ph->body || a->drive != SN_DRIVE_KINEMATIC)
            continue;
        sn_transform tf;
        if (!pose_at(rp, m->rec, tau, &tf))
            continue;
        if (sn_engine_set_target_transform(e, m->live, &tf, err) == SN_E_RANGE &&
            (st = sn_engine_set_transform(e, m->live, &tf, err))) /* farther than 1000 m/s: a teleport */
            return st;
    }
    /* --follow: free-standing scene sensors ride on the actor at their scene transform (CARLA's
    ** spectator follow, for any sensor). Placed at the pose the actor will have after this step. */
    id_map *fm = rp->o.follow_id ? map_find(rp, rp->o.follow_id) : NULL;
    sn_transform ft;
    if (fm && pose_at(rp, fm->rec, tau, &ft))
        for (uint32_t i = 0; i < e->n_sensors; i++) {
            sn_sensor *s = e->sensors[i];
            /* a sensor spawned through the API (the CLI's actors stream) has no scene entry */
            const sn_actor *a = s->entity && !s->entity->attach_to ? sn_world_find(&e->world, s->actor_id) : NULL;
            if (!a)
                continue;
            sn_transform t = sn_transform_compose(&ft, &s->entity->transform);
            if ((st = sn_engine_set_transform(e, s->actor_id, &t, err)))
                return st;
        }
    for (uint32_t i = 0; i < rp->cur.n_ctl; i++) {
        id_map *m = map_find(rp, rp->cur.ctl[i].id);
        sn_actor *a = m && !m->physics ? sn_world_find(&e->world, m->live) : NULL;
        if (a && a->kind == SN_ACTOR_VEHICLE)
            a->ph->control = rp->cur.ctl[i].control; /* shown to sensors; a kinematic vehicle ignores it */
    }
    return SN_OK;
}

/* After the world advanced: restores the recorded velocities (the kinematic driver derives them
** from the displacement otherwise). */
static void sn_replay_after_advance(sn_engine *e)
{
    sn_replay *rp = e->replay;
    if (!rp->cur.n_kin)
        return;
    double tau = tau_of(e, rp);
    bool exact = fabs(tau - rp->cur.t) <= TAU_EPS;
    for (size_t i = 0; i < rp->n_map; i++) {
        const id_map *m = &rp->map[i];
        sn_actor *a = m->physics ? NULL : sn_world_find(&e->world, m->live);
        const sn_log_kinematics *k = a && a->ph->body ? kin_of(&rp->cur, m->rec) : NULL;
        if (!k)
            continue;
        sn_vec3 v = k->velocity, w = k->angular_velocity;
        const sn_log_kinematics *p = !exact && rp->have_prev ? kin_of(&rp->prev, m->rec) : NULL;
        if (p && rp->cur.t > rp->prev.t) {
            double t = (tau - rp->prev.t) / (rp->cur.t - rp->prev.t);
            v = sn_v3_lerp(p->velocity, v, t), w = sn_v3_lerp(p->angular_velocity, w, t);
        }
        a->st.vel = v;
        a->st.ang_vel = sn_v3_scale(w, SN_DEG); /* the API speaks deg/s, the world rad/s */
    }
}

/* The frame calls a replay through these (sim/engine.h). */
static const sn_replay_hooks replay_hooks = {
    .before_step = sn_replay_before_step,
    .after_advance = sn_replay_after_advance,
    .free = sn_replay_free,
};

/* A warning of the replay, where the engine's log lines go. */
static void replay_warn(sn_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void replay_warn(sn_engine *e, const char *fmt, ...)
{
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else
        fprintf(stderr, "sensim: warning: %s\n", line);
}

/* The scene of a replay: rp->o.scene's, its sensors riding along and its actors not spawned (the
** recording has the world), or an empty one on the recording's map. The scene is freed on a
** failure; the replay is the caller's. */
static sn_status replay_scene(sn_engine *e, const sn_replay *rp, const char *path, const sn_log_info *in, sn_error *err)
{
    if (rp->o.scene) {
        sn_status st = sn_scene_load(&e->scene, rp->o.scene, err);
        if (st) {
            sn_scene_free(&e->scene);
            return st;
        }
    } else {
        memset(&e->scene, 0, sizeof e->scene);
        e->scene.path = sn_strdup(path);
        e->scene.settings = (sn_scene_settings){.max_substep_delta_time = 0.01, .max_substeps = 10, .sun_azimuth = 135,
                                                .sun_altitude = 50, .sun_intensity = 0.75, .ambient = 0.35,
                                                .sky_color = {150, 190, 235}, .shadows = true,
                                                .textures = true, .streams = true};
        /* The recording's map (format 1.4), loaded again: its roads under the replayed cars. A
        ** map gone is said and left out; a scene given instead (--scene) brings its own. */
        const char *map = in->struct_size >= offsetof(sn_log_info, map_sha256) + sizeof in->map_sha256 ? in->map : NULL;
        if (map && map[0]) {
            struct stat sb;
            if (stat(map, &sb) == 0 && S_ISREG(sb.st_mode))
                e->scene.map_path = sn_strdup(map);
            else
                replay_warn(e, "replay: the recording's map %s is gone: replaying without its roads (--scene "
                            "FILE with map: gives them)", map);
        }
    }
    return SN_OK;
}

/* The replayed actors' velocities and controls at the start (a branch needs them). */
static void start_motion(sn_engine *e, sn_replay *rp)
{
    for (size_t i = 0; i < rp->n_map; i++) {
        const id_map *m = &rp->map[i];
        const sn_log_kinematics *k = kin_of(&rp->cur, m->rec);
        sn_actor *a = sn_world_find(&e->world, m->live);
        if (k && a && a->ph->body)
            sn_world_set_velocity(&e->world, a, k->velocity, sn_v3_scale(k->angular_velocity, SN_DEG));
        for (uint32_t c = 0; c < rp->cur.n_ctl && a && a->kind == SN_ACTOR_VEHICLE; c++)
            if (rp->cur.ctl[c].id == m->rec)
                a->ph->control = rp->cur.ctl[c].control;
    }
}

/* A warning when the loaded map's text is not the one the recording took the hash of. */
static void check_map_hash(sn_engine *e, const sn_replay *rp, const sn_log_info *in)
{
    const char *want = !rp->o.scene && in->struct_size >= offsetof(sn_log_info, map_sha256) + sizeof in->map_sha256
                           ? in->map_sha256 : NULL;
    if (want && want[0] && e->map) {
        char now[65];
        sn_sha256_of(e->map->xml, e->map->xml_size, now);
        if (strcmp(now, want) != 0)
            replay_warn(e, "replay: the map %s changed since the recording (SHA-256 %.12s..., recorded %.12s...): "
                        "the roads may not be the ones driven", e->scene.map_path, now, want);
    }
}

sn_status sn_engine_load_replay(sn_engine *e, const char *path, const sn_replay_options *o, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !path)
        return sn_fail(err, SN_E_INVALID, "replay: NULL engine or recording");
    if (e->loaded)
        return sn_fail(err, SN_E_STATE, "replay: the engine already holds a scene");
    if (o && o->struct_size < sizeof *o)
        return sn_fail(err, SN_E_INVALID, "replay: options struct_size %u below sizeof(sn_replay_options) %zu",
                       o->struct_size, sizeof *o);
    sn_replay *rp = calloc(1, sizeof *rp);
    if (!rp)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    if (o)
        rp->o = *o;
    rp->factor = rp->o.time_factor > 0 ? rp->o.time_factor : 1;
    sn_log_info in = {.struct_size = sizeof in};
    sn_status st = SN_OK;
    if (!(rp->rec = sn_recording_open_with(&e->lib, path, err)) || (st = sn_recording_info(rp->rec, &in, err))) {
        sn_replay_free(rp);
        return st ? st : err->status;
    }
    if (!in.frames) {
        sn_replay_free(rp);
        return sn_fail(err, SN_E_INVALID, "%s: the recording holds no complete frame", path);
    }
    /* The recording spans [0, last_elapsed + dt): recorded frame k stands for [elapsed_k,
    ** elapsed_k + dt), as CARLA's replayer reads Frame.Elapsed and DurationThis. A replay shows
    ** the times start, start + dt*f, ... below stop: duration D gives D / (dt*f) frames and
    ** --start -S the last S seconds, S / dt frames at factor 1, as many as CARLA's replayer
    ** ticks (it stops once CurrentTime >= TimeToStop); the whole recording is every frame. */
    rp->dt = in.fixed_delta_seconds;
    rp->total = in.last_elapsed + rp->dt;
    rp->start = rp->o.start < 0 ? fmax(0, rp->total + rp->o.start) : rp->o.start;
    if (!(rp->start < rp->total - TAU_EPS) || !isfinite(rp->factor) || rp->factor > 1000) {
        double s = rp->start;
        sn_replay_free(rp);
        return sn_fail(err, SN_E_RANGE, "replay: start %g s is beyond the recording's %g s (or a bad time factor)", s,
                       in.last_elapsed + in.fixed_delta_seconds);
    }
    rp->stop = rp->o.duration > 0 ? fmin(rp->start + rp->o.duration, rp->total) : rp->total;
    double nf = ceil((rp->stop - rp->start) / (rp->dt * rp->factor) - 1e-6);
    if (!(nf <= (double)SN_LIMIT_FRAMES)) { /* a tiny time factor: refused before anything is built */
        double f = rp->factor;
        sn_replay_free(rp);
        return sn_fail(err, SN_E_RANGE, "replay: --time-factor %g makes %.3g frames of %g s, over the limit of "
                       "1000000000 (SN_LIMIT_FRAMES)", f, nf, in.fixed_delta_seconds);
    }
    uint64_t frames = nf < 1 ? 1 : (uint64_t)nf;
    if ((st = check_frames(rp, err)) || (rp->o.follow_id && (st = check_follow(rp, path, err)))) {
        sn_replay_free(rp);
        return st;
    }

    /* The scene: its sensors ride along; its actors are not spawned (the recording has the world). */
    if ((st = replay_scene(e, rp, path, &in, err))) {
        sn_replay_free(rp);
        return st;
    }
    sn_scene_settings *ss = &e->scene.settings;
    ss->fixed_delta_seconds = rp->dt;
    while (ss->max_substeps < 16 && rp->dt > ss->max_substep_delta_time * ss->max_substeps + 1e-12)
        ss->max_substeps++;
    if (rp->dt > ss->max_substep_delta_time * ss->max_substeps + 1e-12)
        ss->max_substep_delta_time = rp->dt / ss->max_substeps;
    ss->frames = frames;
    ss->seed = in.seed;
    e->frames_target = frames;
    e->replay = rp;
    e->replay_hooks = &replay_hooks;
    if ((st = sn_engine_build_loaded(e, err)))
        return st; /* it freed the replay */
    check_map_hash(e, rp, &in); /* the map's text against the hash the recording took of it */
    /* The world as it is at `start`: every actor alive then, at its pose then. */
    const sn_log_frame *f;
    if ((st = sn_recording_seek(rp->rec, rp->start, err)) || (st = sn_recording_next(rp->rec, &f, err)) ||
        !keep(&rp->cur, f) || (st = apply_events(e, rp, f, err))) {
        if (!st)
            st = sn_fail(err, SN_E_NOMEM, "out of memory");
        sn_engine_unload(e);
        return st;
    }
    rp->have_cur = true;
    /* Replayed frames carry the recorded frame numbers (and timestamps): at factor 1 frame n
    ** of the replay is recorded frame first + n - 1, so a replayed stream lines up with the
    ** recorded run's; at another factor they count on from there, one per replayed step. */
    e->frame0 = f->frame ? f->frame - 1 : 0;
    e->clock.frame = e->frame0;
    e->clock.time_ns = (int64_t)e->frame0 * e->clock.dt_ns;
    e->clock.timestamp = (double)e->frame0 * e->clock.dt;
    start_motion(e, rp); /* velocities and controls at the start (a branch needs them) */
    return SN_OK;
}
