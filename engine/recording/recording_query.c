/*
** recording_query.c — CARLA's recorder queries on any recording a plugin reader yields:
** file info, collisions (new contacts only, by type letters) and blocked actors, in CARLA's
** text layout (CarlaRecorderQuery.cpp; reference: carla-sensors.md §5) or as JSON.
**
** Departures from CARLA, on purpose: lengths are metres (CARLA prints centimetres; `blocked`
** takes its minimum distance in metres here, the CLI in CARLA's centimetres), the date is printed
** in UTC (CARLA: local time) or "none" when the recording has none, the name of a destroyed
** actor stays known (CARLA's query forgets the wrong id on EventDel), and every query prints
** the duration alike (docs/recorder.md).
*/
#include "recording.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sensim/search.h>

/* JSON has no NaN or infinity: they come out as null. */
static void json_num(FILE *o, double v)
{
    if (isfinite(v))
        fprintf(o, "%.17g", v);
    else
        fputs("null", o);
}

static void json_vec(FILE *o, sn_vec3 v)
{
    fputc('[', o);
    json_num(o, v.x), fputc(',', o), json_num(o, v.y), fputc(',', o), json_num(o, v.z);
    fputc(']', o);
}

static const char *end_name(sn_log_end e)
{
    return e == SN_LOG_END_COMPLETE ? "complete" : e == SN_LOG_END_TRUNCATED ? "truncated" : "damaged";
}

static sn_status begin(sn_recording *r, sn_log_info *info, sn_error *err)
{
    if (!r)
        return sn_fail(err, SN_E_INVALID, "recording query: NULL recording");
    info->struct_size = sizeof *info;
    sn_status st = sn_recording_info(r, info, err);
    return st ? st : sn_recording_seek(r, 0, err);
}

static void json_head(FILE *o, const sn_log_info *in)
{
    fputs("{\"format\":", o), sn_json_str(o, in->format);
    fprintf(o, ",\"version\":\"%u.%u\",\"scene\":", in->version_major, in->version_minor);
    sn_json_str(o, in->scene);
    if (in->struct_size >= offsetof(sn_log_info, map_sha256) + sizeof in->map_sha256 && in->map && in->map[0]) {
        fputs(",\"map\":", o), sn_json_str(o, in->map);
        fputs(",\"map_sha256\":", o), sn_json_str(o, in->map_sha256);
    }
    fprintf(o, ",\"date\":%lld,\"seed\":%llu,\"fixed_delta_seconds\":", (long long)in->date,
            (unsigned long long)in->seed);
    json_num(o, in->fixed_delta_seconds);
    fprintf(o, ",\"additional_data\":%s,\"frames\":%llu,\"first_frame\":%llu,\"last_frame\":%llu,\"duration\":",
            in->additional_data ? "true" : "false", (unsigned long long)in->frames,
            (unsigned long long)in->first_frame, (unsigned long long)in->last_frame);
    json_num(o, in->last_elapsed);
    fprintf(o, ",\"file_bytes\":%llu,\"index_rebuilt\":%s,\"end\":\"%s\",\"end_offset\":%llu,\"end_reason\":",
            (unsigned long long)in->file_bytes, in->index_rebuilt ? "true" : "false", end_name(in->end),
            (unsigned long long)in->end_offset);
    sn_json_str(o, in->end_reason);
}

/* CARLA's tail: the last frame and its elapsed time, the same in every query. (CARLA's own
** collisions query prints the duration rounded to whole seconds once a row was printed: its
** stream keeps the std::fixed, setprecision(0) of the rows. A formatting accident, not kept.) */
static void text_tail(FILE *o, uint64_t last_frame, double last_elapsed)
{
    fprintf(o, "\nFrames: %llu\n", (unsigned long long)last_frame);
    fprintf(o, "Duration: %g seconds\n", last_elapsed);
}

/* CARLA's header of every query (CheckFileInfo): version, map, date. */
static void text_head(FILE *o, const sn_log_info *in)
{
    char date[64] = "none";
    time_t t = (time_t)in->date;
    struct tm tm;
    if (in->date && gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%m/%d/%y %H:%M:%S UTC", &tm);
    /* CARLA's Map: line names the map; a recording before 1.4, or of a scene without one, has
    ** only its scene to name */
    bool has_map = in->struct_size >= offsetof(sn_log_info, map_sha256) + sizeof in->map_sha256 && in->map &&
                   in->map[0];
    fprintf(o, "Version: %u.%u\nMap: %s\nDate: %s\n\n", in->version_major, in->version_minor,
            has_map ? in->map : in->scene, date);
}

/* ---- CARLA's rule for collisions ----
** CARLA records a collision only when a collision sensor reports it (ACollisionSensor calls
** the recorder's AddCollision(parent, other)): actor 1 is always a collision sensor's parent.
** sensim records every contact pair, both orders; the queries show CARLA's subset unless the
** recording is opened for all contacts (sn_recording_show_all_contacts). The live collision
** sensors are followed through the recording's adds, re-parentings and destroys. */
typedef struct coll_sensors {
    sn_log_parent *s; /* child = the sensor, parent = what it is attached to */
    size_t n, cap;
    bool oom;
} coll_sensors;

static void sensors_free(coll_sensors *cs) { free(cs->s); }

/* Adds and re-parentings: before the frame's collisions (a sensor spawned this frame counts). */
static void sensors_add(coll_sensors *cs, const sn_log_frame *f)
{
    for (uint32_t i = 0; i < f->n_added; i++) {
        const sn_log_add *a = &f->added[i];
        if (strcmp(a->blueprint, "sensor.other.collision") != 0 || !a->parent_id)
            continue;
        bool known = false; /* a snapshot after a seek repeats live actors */
        for (size_t k = 0; k < cs->n && !known; k++)
            known = cs->s[k].child == a->id;
        if (known)
            continue;
        if (!sn_grow((void **)&cs->s, &cs->cap, cs->n + 1, sizeof *cs->s)) {
            cs->oom = true;
            return;
        }
        cs->s[cs->n++] = (sn_log_parent){a->id, a->parent_id};
    }
    for (uint32_t i = 0; i < f->n_reparented; i++)
        for (size_t k = 0; k < cs->n; k++)
            if (cs->s[k].child == f->reparented[i].child)
                cs->s[k].parent = f->reparented[i].parent;
}

/* Destroys: after the frame's collisions (a sensor destroyed this frame reported them). */
static void sensors_del(coll_sensors *cs, const sn_log_frame *f)
{
    for (uint32_t i = 0; i < f->n_destroyed; i++)
        for (size_t k = 0; k < cs->n; k++)
            if (cs->s[k].child == f->destroyed[i]) {
                cs->s[k] = cs->s[--cs->n];
                break;
            }
}

/* Whether CARLA would have recorded collision c: its actor 1 carries a collision sensor. */
static bool carla_records(const coll_sensors *cs, const sn_log_collision *c)
{
    for (size_t k = 0; k < cs->n; k++)
        if (cs->s[k].parent == c->actor1)
            return true;
    return false;
}

void sn_recording_show_all_contacts(sn_recording *r, bool all)
{
    if (r)
        r->all_contacts = all;
}

/* ---- info ---- */

/* The lights of a frame from a reader built for ABI 1.4 or later (older ones have none). */
static uint32_t frame_lights(const sn_log_frame *f, const sn_log_light **out)
{
    bool has = f->struct_size >= offsetof(sn_log_frame, n_lights) + sizeof f->n_lights;
    *out = has ? f->lights : NULL;
    return has && f->lights ? f->n_lights : 0;
}

static const char *light_name(uint8_t s)
{
    static const char *const n[] = {"Red", "Yellow", "Green", "Off", "Unknown"};
    return s < 5 ? n[s] : "Unknown";
}

static void frame_line(FILE *o, const sn_log_frame *f, bool *printed)
{
    if (!*printed)
        fprintf(o, "Frame %llu at %g seconds\n", (unsigned long long)f->frame, f->elapsed);
    *printed = true;
}

static void text_frame(FILE *o, const sn_log_frame *f, bool all, const coll_sensors *cs)
{
    bool printed = false;
    if (all)
        frame_line(o, f, &printed);
    for (uint32_t i = 0; i < f->n_added; i++) {
        const sn_log_add *a = &f->added[i];
        frame_line(o, f, &printed);
        fprintf(o, " Create %u: %s (%u) at (%g, %g, %g)\n", a->id, a->blueprint, a->type, a->transform.location.x,
                a->transform.location.y, a->transform.location.z);
        for (uint32_t k = 0; k < a->n_attrs; k++)
            fprintf(o, "  %s = %s\n", a->attrs[k].id, a->attrs[k].value);
    }
    for (uint32_t i = 0; i < f->n_destroyed; i++)
        frame_line(o, f, &printed), fprintf(o, " Destroy %u\n", f->destroyed[i]);
    /* CARLA attaches an actor spawned with a parent right after spawning it (UCarlaEpisode::
    ** AttachActors), which records a Parenting event in the same frame as its Create. */
    for (uint32_t i = 0; i < f->n_added; i++)
        if (f->added[i].parent_id)
            frame_line(o, f, &printed),
                fprintf(o, " Parenting %u with %u (parent)\n", f->added[i].id, f->added[i].parent_id);
    for (uint32_t i = 0; i < f->n_reparented; i++)
        frame_line(o, f, &printed),
            fprintf(o, " Parenting %u with %u (parent)\n", f->reparented[i].child, f->reparented[i].parent);
    for (uint32_t i = 0; i < f->n_collisions; i++) {
        const sn_log_collision *c = &f->collisions[i];
        if (cs && !carla_records(cs, c))
            continue;
        frame_line(o, f, &printed);
        fprintf(o, " Collision id %u between %u%s with %u%s\n", c->id, c->actor1, c->hero1 ? " (hero) " : "",
                c->actor2, c->hero2 ? " (hero) " : "");
    }
    if (!all)
        return;
    if (f->n_poses) {
        fprintf(o, " Positions: %u\n", f->n_poses);
        for (uint32_t i = 0; i < f->n_poses; i++) {
            const sn_transform *t = &f->poses[i].transform;
            fprintf(o, "  Id: %u Location: (%g, %g, %g) Rotation: (%g, %g, %g)\n", f->poses[i].id, t->location.x,
                    t->location.y, t->location.z, t->rotation.roll, t->rotation.pitch, t->rotation.yaw);
        }
    }
    if (f->n_controls) {
        fprintf(o, " Vehicle animations: %u\n", f->n_controls);
        for (uint32_t i = 0; i < f->n_controls; i++) {
            const sn_vehicle_control *c = &f->controls[i].control;
            fprintf(o, "  Id: %u Steering: %g Throttle: %g Brake: %g Handbrake: %d Gear: %d\n", f->controls[i].id,
                    c->steer, c->throttle, c->brake, c->hand_brake, c->reverse ? -1 : 1);
        }
    }
    if (f->n_walkers) {
        fprintf(o, " Walker animations: %u\n", f->n_walkers);
        for (uint32_t i = 0; i < f->n_walkers; i++)
            fprintf(o, "  Id: %u speed: %g\n", f->walkers[i].id, f->walkers[i].speed);
    }
    if (f->n_kinematics) {
        fprintf(o, " Dynamic actors: %u\n", f->n_kinematics);
        for (uint32_t i = 0; i < f->n_kinematics; i++) {
            const sn_log_kinematics *k = &f->kinematics[i];
            fprintf(o, "  Id: %u linear_velocity: (%g, %g, %g) angular_velocity: (%g, %g, %g)\n", k->id,
                    k->velocity.x, k->velocity.y, k->velocity.z, k->angular_velocity.x, k->angular_velocity.y,
                    k->angular_velocity.z);
        }
    }
    if (f->n_bboxes) {
        fprintf(o, " Actor bounding boxes: %u\n", f->n_bboxes);
        for (uint32_t i = 0; i < f->n_bboxes; i++) {
            const sn_bbox *b = &f->bboxes[i].box;
            fprintf(o, "  Id: %u origin: (%g, %g, %g) extension: (%g, %g, %g)\n", f->bboxes[i].id, b->location.x,
                    b->location.y, b->location.z, b->extent.x, b->extent.y, b->extent.z);
        }
    }
    const sn_log_light *lights;
    uint32_t n_lights = frame_lights(f, &lights);
    if (n_lights) {
        fprintf(o, " State traffic lights: %u\n", n_lights); /* CARLA's heading */
        for (uint32_t i = 0; i < n_lights; i++)
            fprintf(o, "  Id: %u state: %u (%s)\n", lights[i].id, lights[i].state, light_name(lights[i].state));
    }
    if (f->n_sensor_poses) {
        fprintf(o, " Sensor positions: %u\n", f->n_sensor_poses);
        for (uint32_t i = 0; i < f->n_sensor_poses; i++) {
            const sn_transform *t = &f->sensor_poses[i].transform;
            fprintf(o, "  Id: %u Location: (%g, %g, %g) Rotation: (%g, %g, %g)\n", f->sensor_poses[i].id,
                    t->location.x, t->location.y, t->location.z, t->rotation.roll, t->rotation.pitch,
                    t->rotation.yaw);
        }
    }
}

static void json_transform(FILE *o, const sn_transform *t)
{
    fputs("{\"location\":", o), json_vec(o, t->location);
    fputs(",\"rotation\":", o);
    json_vec(o, (sn_vec3){t->rotation.pitch, t->rotation.yaw, t->rotation.roll});
    fputc('}', o);
}

static bool json_frame(FILE *o, const sn_log_frame *f, bool all, bool first, const coll_sensors *cs)
{
    uint32_t n_shown = 0;
    for (uint32_t i = 0; i < f->n_collisions; i++)
        n_shown += !cs || carla_records(cs, &f->collisions[i]);
    bool events = f->n_added || f->n_destroyed || f->n_reparented || n_shown;
    if (!all && !events)
        return false;
    fprintf(o, "%s{\"frame\":%llu,\"elapsed\":", first ? "" : ",", (unsigned long long)f->frame);
    json_num(o, f->elapsed);
    fputs(",\"create\":[", o);
    for (uint32_t i = 0; i < f->n_added; i++) {
        const sn_log_add *a = &f->added[i];
        fprintf(o, "%s{\"id\":%u,\"type_id\":", i ? "," : "", a->id);
        sn_json_str(o, a->blueprint);
        fprintf(o, ",\"actor_type\":%u,\"name\":", a->type);
        sn_json_str(o, a->name);
        fprintf(o, ",\"parent\":%u,\"hero\":%s,\"transform\":", a->parent_id, a->hero ? "true" : "false");
        json_transform(o, &a->transform);
        fputs(",\"attributes\":{", o);
        for (uint32_t k = 0; k < a->n_attrs; k++) {
            if (k)
                fputc(',', o);
            sn_json_str(o, a->attrs[k].id), fputc(':', o), sn_json_str(o, a->attrs[k].value);
        }
        fputs("}}", o);
    }
    fputs("],\"destroy\":[", o);
    for (uint32_t i = 0; i < f->n_destroyed; i++)
        fprintf(o, "%s%u", i ? "," : "", f->destroyed[i]);
    fputs("],\"parent\":[", o);
    for (uint32_t i = 0; i < f->n_reparented; i++)
        fprintf(o, "%s[%u,%u]", i ? "," : "", f->reparented[i].child, f->reparented[i].parent);
    fputs("],\"collisions\":[", o);
    for (uint32_t i = 0, shown = 0; i < f->n_collisions; i++) {
        const sn_log_collision *c = &f->collisions[i];
        if (cs && !carla_records(cs, c))
            continue;
        fprintf(o, "%s{\"id\":%u,\"actor1\":%u,\"actor2\":%u,\"hero1\":%s,\"hero2\":%s,\"impulse\":", shown++ ? "," : "",
                c->id, c->actor1, c->actor2, c->hero1 ? "true" : "false", c->hero2 ? "true" : "false");
        json_vec(o, c->impulse);
        fputc('}', o);
    }
    fputc(']', o);
    if (all) {
        fputs(",\"positions\":[", o);
        for (uint32_t i = 0; i < f->n_poses; i++) {
            fprintf(o, "%s{\"id\":%u,\"transform\":", i ? "," : "", f->poses[i].id);
            json_transform(o, &f->poses[i].transform);
            fputc('}', o);
        }
        fputs("],\"controls\":[", o);
        for (uint32_t i = 0; i < f->n_controls; i++) {
            const sn_vehicle_control *c = &f->controls[i].control;
            fprintf(o, "%s{\"id\":%u,\"throttle\":%.17g,\"steer\":%.17g,\"brake\":%.17g,\"hand_brake\":%s,"
                    "\"reverse\":%s}", i ? "," : "", f->controls[i].id, c->throttle, c->steer, c->brake,
                    c->hand_brake ? "true" : "false", c->reverse ? "true" : "false");
        }
        fputs("],\"walkers\":[", o);
        for (uint32_t i = 0; i < f->n_walkers; i++) {
            fprintf(o, "%s{\"id\":%u,\"speed\":", i ? "," : "", f->walkers[i].id);
            json_num(o, f->walkers[i].speed);
            fputc('}', o);
        }
        fputs("],\"kinematics\":[", o);
        for (uint32_t i = 0; i < f->n_kinematics; i++) {
            fprintf(o, "%s{\"id\":%u,\"velocity\":", i ? "," : "", f->kinematics[i].id);
            json_vec(o, f->kinematics[i].velocity);
            fputs(",\"angular_velocity\":", o);
            json_vec(o, f->kinematics[i].angular_velocity);
            fputc('}', o);
        }
        fputs("],\"traffic_lights\":[", o);
        const sn_log_light *lights;
        uint32_t n_lights = frame_lights(f, &lights);
        for (uint32_t i = 0; i < n_lights; i++)
            fprintf(o, "%s{\"id\":%u,\"state\":\"%s\"}", i ? "," : "", lights[i].id, light_name(lights[i].state));
        fputc(']', o);
    }
    fputc('}', o);
    return true;
}

/* Reads every frame, calling fn; stops at the end or at damage (returned after fn saw the rest). */
typedef void (*frame_fn)(const sn_log_frame *f, void *user);
static sn_status each_frame(sn_recording *r, frame_fn fn, void *user, uint64_t *last_frame, double *last_elapsed,
                            sn_error *err)
{
    const sn_log_frame *f;
    sn_status st;
    *last_frame = 0, *last_elapsed = 0;
    while ((st = sn_recording_next(r, &f, err)) == SN_OK) {
        fn(f, user);
        *last_frame = f->frame, *last_elapsed = f->elapsed;
    }
    return st == SN_E_NOT_FOUND ? SN_OK : st;
}

typedef struct info_ctx {
    FILE *o;
    bool all, json, first, all_contacts;
    coll_sensors cs;
} info_ctx;

static void info_frame(const sn_log_frame *f, void *user)
{
    info_ctx *c = user;
    sensors_add(&c->cs, f);
    const coll_sensors *cs = c->all_contacts ? NULL : &c->cs;
    if (c->json) {
        if (json_frame(c->o, f, c->all, c->first, cs))
            c->first = false;
    } else {
        text_frame(c->o, f, c->all, cs);
    }
    sensors_del(&c->cs, f);
}

sn_status sn_recording_print_info(sn_recording *r, FILE *o, bool all, bool json, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_log_info in;
    sn_status st = begin(r, &in, err);
    if (st)
        return st;
    if (json) {
        json_head(o, &in);
        fputs(",\"events\":[", o);
    } else {
        text_head(o, &in);
    }
    info_ctx c = {o, all, json, true, r->all_contacts, {0}};
    uint64_t lf;
    double le;
    st = each_frame(r, info_frame, &c, &lf, &le, err);
    if (json)
        fputs("]}\n", o);
    else
        text_tail(o, lf, le);
    sensors_free(&c.cs);
    return st;
}

/* ---- collisions ---- */

typedef struct actor_name {
    uint32_t id;
    uint8_t type;
    char *type_id;
} actor_name;

typedef struct names {
    actor_name *a;
    size_t n, cap;
    bool oom;
} names;

static size_t name_pos(const names *ns, uint32_t id)
{
    size_t lo = sn_search_u32(ns->a, ns->n, sizeof *ns->a, offsetof(actor_name, id), id);
    return lo;
}

static void name_add(names *ns, const sn_log_add *a)
{
    size_t i = name_pos(ns, a->id);
    if (i < ns->n && ns->a[i].id == a->id)
        return; /* known already (a snapshot repeats it) */
    char *s = sn_strdup(a->blueprint);
    if (!s || !sn_grow((void **)&ns->a, &ns->cap, ns->n + 1, sizeof *ns->a)) {
        free(s);
        ns->oom = true;
        return;
    }
    memmove(ns->a + i + 1, ns->a + i, (ns->n - i) * sizeof *ns->a);
    ns->a[i] = (actor_name){a->id, a->type, s};
    ns->n++;
}

static const actor_name *name_get(const names *ns, uint32_t id)
{
    size_t i = name_pos(ns, id);
    return i < ns->n && ns->a[i].id == id ? &ns->a[i] : NULL;
}

static void names_free(names *ns)
{
    for (size_t i = 0; i < ns->n; i++)
        free(ns->a[i].type_id);
    free(ns->a);
}

typedef struct pair {
    uint32_t a, b;
} pair;

typedef struct coll_ctx {
    FILE *o;
    bool json, first, any_row;
    char t1, t2;
    names ns;
    pair *prev, *cur; /* passing pairs of the previous and this frame */
    size_t n_prev, n_cur, cap_prev, cap_cur;
    bool all_contacts;
    coll_sensors cs;
} coll_ctx;

static char letter(uint8_t type) { return type < 6 ? "ovwtha"[type] : 'o'; }

static bool passes(char filter, char l, bool hero) { return filter == 'a' || filter == l || (filter == 'h' && hero); }

static void coll_frame(const sn_log_frame *f, void *user)
{
    coll_ctx *c = user;
    for (uint32_t i = 0; i < f->n_added; i++)
        name_add(&c->ns, &f->added[i]);
    sensors_add(&c->cs, f);
    c->n_cur = 0;
    for (uint32_t i = 0; i < f->n_collisions; i++) {
        const sn_log_collision *k = &f->collisions[i];
        if (!c->all_contacts && !carla_records(&c->cs, k))
            continue;
        const actor_name *a = name_get(&c->ns, k->actor1), *b = name_get(&c->ns, k->actor2);
        char l1 = letter(a ? a->type : 0), l2 = letter(b ? b->type : 0);
        if (!passes(c->t1, l1, k->hero1) || !passes(c->t2, l2, k->hero2))
            continue;
        if (!sn_grow((void **)&c->cur, &c->cap_cur, c->n_cur + 1, sizeof *c->cur)) {
            c->ns.oom = true;
            return;
        }
        c->cur[c->n_cur++] = (pair){k->actor1, k->actor2};
        bool seen = false; /* CARLA prints the start of a contact only */
        for (size_t j = 0; j < c->n_prev && !seen; j++)
            seen = c->prev[j].a == k->actor1 && c->prev[j].b == k->actor2;
        if (seen)
            continue;
        const char *n1 = a ? a->type_id : "", *n2 = b ? b->type_id : "";
        if (c->json) {
            fprintf(c->o, "%s{\"time\":", c->first ? "" : ",");
            json_num(c->o, f->elapsed);
            fprintf(c->o, ",\"frame\":%llu,\"id\":%u,\"type1\":\"%c\",\"id1\":%u,\"actor1\":", (unsigned long long)f->frame,
                    k->id, l1, k->actor1);
            sn_json_str(c->o, n1);
            fprintf(c->o, ",\"hero1\":%s,\"type2\":\"%c\",\"id2\":%u,\"actor2\":", k->hero1 ? "true" : "false", l2,
                    k->actor2);
            sn_json_str(c->o, n2);
            fprintf(c->o, ",\"hero2\":%s,\"impulse\":", k->hero2 ? "true" : "false");
            json_vec(c->o, k->impulse);
            fputc('}', c->o);
            c->first = false;
        } else {
            fprintf(c->o, "%8.0f   %c %c  %6u %-35s %6u %-35s\n", f->elapsed, l1, l2, k->actor1, n1, k->actor2, n2);
        }
        c->any_row = true;
    }
    sensors_del(&c->cs, f);
    pair *t = c->prev;
    size_t tc = c->cap_prev;
    c->prev = c->cur, c->cap_prev = c->cap_cur, c->n_prev = c->n_cur;
    c->cur = t, c->cap_cur = tc, c->n_cur = 0;
}

static bool valid_letter(char t) { return t && strchr("hvwtoa", t); }

sn_status sn_recording_print_collisions(sn_recording *r, FILE *o, char t1, char t2, bool json, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!valid_letter(t1) || !valid_letter(t2))
        return sn_fail(err, SN_E_INVALID, "collisions: types are letters h v w t o a (hero, vehicle, walker, traffic "
                       "light, other, any)");
    sn_log_info in;
    sn_status st = begin(r, &in, err);
    if (st)
        return st;
    if (json) {
        json_head(o, &in);
        fputs(",\"collisions\":[", o);
    } else {
        text_head(o, &in);
        fprintf(o, "%8s %6s %6s %-35s %6s %-35s\n", "Time", "Types", "Id", "Actor 1", "Id", "Actor 2");
    }
    coll_ctx c = {.o = o, .json = json, .first = true, .t1 = t1, .t2 = t2, .all_contacts = r->all_contacts};
    uint64_t lf;
    double le;
    st = each_frame(r, coll_frame, &c, &lf, &le, err);
    if (!st && (c.ns.oom || c.cs.oom))
        st = sn_fail(err, SN_E_NOMEM, "collisions: out of memory");
    if (json)
        fputs("]}\n", o);
    else
        text_tail(o, lf, le);
    names_free(&c.ns);
    sensors_free(&c.cs);
    free(c.prev), free(c.cur);
    return st;
}

/* ---- blocked actors ---- */

typedef struct block_state {
    uint32_t id;
    sn_vec3 anchor;
    double start, duration;
} block_state;

typedef struct block_result {
    double start, duration;
    uint32_t id;
    size_t order;
} block_result;

typedef struct block_ctx {
    double min_time, min_distance;
    names ns;
    block_state *s;
    size_t n, cap;
    block_result *res;
    size_t n_res, cap_res;
    bool oom;
} block_ctx;

static void emit(block_ctx *c, const block_state *s)
{
    if (!sn_grow((void **)&c->res, &c->cap_res, c->n_res + 1, sizeof *c->res)) {
        c->oom = true;
        return;
    }
    c->res[c->n_res] = (block_result){s->start, s->duration, s->id, c->n_res};
    c->n_res++;
}

static void block_frame(const sn_log_frame *f, void *user)
{
    block_ctx *c = user;
    for (uint32_t i = 0; i < f->n_added; i++)
        name_add(&c->ns, &f->added[i]);
    for (uint32_t i = 0; i < f->n_poses; i++) {
        const sn_log_pose *p = &f->poses[i];
        size_t lo = sn_search_u32(c->s, c->n, sizeof *c->s, offsetof(block_state, id), p->id);
        if (lo == c->n || c->s[lo].id != p->id) {
            if (!sn_grow((void **)&c->s, &c->cap, c->n + 1, sizeof *c->s)) {
                c->oom = true;
                return;
            }
            memmove(c->s + lo + 1, c->s + lo, (c->n - lo) * sizeof *c->s);
            c->s[lo] = (block_state){p->id, {0, 0, 0}, 0, 0};
            c->n++;
        }
        block_state *s = &c->s[lo];
        sn_vec3 d = {p->transform.location.x - s->anchor.x, p->transform.location.y - s->anchor.y,
                     p->transform.location.z - s->anchor.z};
        if (sqrt(d.x * d.x + d.y * d.y + d.z * d.z) < c->min_distance) {
            if (s->duration == 0)
                s->start = f->elapsed;
            s->duration += f->duration;
        } else {
            if (s->duration >= c->min_time)
                emit(c, s);
            s->duration = 0;
            s->anchor = p->transform.location;
        }
    }
}

static int result_cmp(const void *x, const void *y)
{
    const block_result *a = x, *b = y;
    if (a->duration != b->duration)
        return a->duration > b->duration ? -1 : 1; /* longest first */
    return a->order < b->order ? -1 : a->order > b->order;
}

sn_status sn_recording_print_blocked(sn_recording *r, FILE *o, double min_time, double min_distance, bool json,
                                     sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!(min_time >= 0) || !(min_distance >= 0) || !isfinite(min_time) || !isfinite(min_distance))
        return sn_fail(err, SN_E_INVALID, "blocked: min_time and min_distance must be finite and >= 0");
    sn_log_info in;
    sn_status st = begin(r, &in, err);
    if (st)
        return st;
    block_ctx c = {.min_time = min_time, .min_distance = min_distance};
    uint64_t lf;
    double le;
    st = each_frame(r, block_frame, &c, &lf, &le, err);
    for (size_t i = 0; i < c.n; i++) /* still blocked at the end, in id order */
        if (c.s[i].duration >= min_time)
            emit(&c, &c.s[i]);
    if (!st && (c.oom || c.ns.oom))
        st = sn_fail(err, SN_E_NOMEM, "blocked: out of memory");
    if (c.n_res > 1)
        qsort(c.res, c.n_res, sizeof *c.res, result_cmp);
    if (json) {
        json_head(o, &in);
        fputs(",\"blocked\":[", o);
    } else {
        text_head(o, &in);
        fprintf(o, "%8s %6s %-35s %10s\n", "Time", "Id", "Actor", "Duration");
    }
    for (size_t i = 0; i < c.n_res; i++) {
        const block_result *b = &c.res[i];
        const actor_name *a = name_get(&c.ns, b->id);
        if (json) {
            fprintf(o, "%s{\"time\":", i ? "," : "");
            json_num(o, b->start);
            fprintf(o, ",\"id\":%u,\"actor\":", b->id);
            sn_json_str(o, a ? a->type_id : "");
            fputs(",\"duration\":", o);
            json_num(o, b->duration);
            fputc('}', o);
        } else {
            fprintf(o, "%8.0f %6u %-35s %10.0f\n", b->start, b->id, a ? a->type_id : "", b->duration);
        }
    }
    if (json)
        fputs("]}\n", o);
    else
        text_tail(o, lf, le);
    names_free(&c.ns);
    free(c.s), free(c.res);
    return st;
}
