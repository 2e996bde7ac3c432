#include "scene.h"

#include "../data/image.h"

#include "../core/error.h"
#include "../core/util.h"
#include <sensim/numtext.h>
#include "../world/vehicle_lights.h"
#include "../world/weather.h"
#include "override.h"
#include "yamldoc.h"
#include "yamlget.h"

#include <sensim/math.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse state: the document path and the error to fill. */
typedef struct ctx {
    const char *path;
    sn_error *err;
    sn_strpool *pool; /* the scene's: entries' names, blueprints and attach_to */
    const sn_scene *scene; /* its overrides, for positions in them */
    sn_yget y; /* the typed getters, with where_of for positions */
} ctx;

const char *sn_scene_set_of(const sn_scene *s, sn_srcpos pos)
{
    return pos.line == 0 && pos.col > 0 && (size_t)pos.col <= s->n_sets ? s->sets[pos.col - 1] : NULL;
}

sn_where sn_scene_where(const sn_scene *s, sn_srcpos pos)
{
    sn_where w;
    const char *set = sn_scene_set_of(s, pos), *path = s->path ? s->path : "";
    if (set)
        snprintf(w.s, sizeof w.s, "%s: --set %s", path, set);
    else
        snprintf(w.s, sizeof w.s, "%s:%d:%d", path, pos.line, pos.col);
    return w;
}

/* A node's position; a node of an override names it by its number (its `set` is one of the
** scene's sets). */
static sn_srcpos pos_of(const ctx *c, const sn_ynode *n)
{
    if (!n->set)
        return (sn_srcpos){n->line, n->col};
    for (size_t i = 0; i < c->scene->n_sets; i++)
        if (c->scene->sets[i] == n->set)
            return (sn_srcpos){0, (int)i + 1};
    return (sn_srcpos){0, 0};
}

static void where_of(const void *user, const sn_ynode *n, char *buf, size_t cap)
{
    const ctx *c = user;
    snprintf(buf, cap, "%s", sn_scene_where(c->scene, pos_of(c, n)).s);
}

static sn_status at(ctx *c, const sn_ynode *n, const char *fmt, const char *a, const char *b)
{
    return sn_yget_fail(&c->y, n, fmt, a, b);
}

static const sn_scene_more no_more = {.spawn_at = -1, .destroy_at = -1, .walk_speed = -1, .target_speed = -1};

const sn_scene_more *sn_scene_more_of(const sn_scene_entity *e) { return e->more ? e->more : &no_more; }

/* e's rarely written parts, allocated at the first; NULL when out of memory. */
static sn_scene_more *more_of(sn_scene_entity *e)
{
    if (!e->more && (e->more = malloc(sizeof *e->more)))
        *e->more = no_more;
    return e->more;
}

/* A string kept in the scene's pool (read-only, freed with the scene). */
static sn_status get_pooled(ctx *c, const sn_ynode *n, const char *what, char **out)
{
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_SCALAR, what);
    if (st)
        return st;
    *out = sn_strpool_add(c->pool, n->text);
    return *out ? SN_OK : sn_fail(c->err, SN_E_NOMEM, "out of memory");
}

static sn_status parse_transform(ctx *c, const sn_ynode *n, sn_transform *t)
{
    static const char *const keys[] = {"location", "rotation", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "transform");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "transform");
    const sn_ynode *v;
    if (!st && (v = sn_ynode_get(n, "location")))
        st = sn_yget_point(&c->y, v, "transform.location", &t->location);
    if (!st && (v = sn_ynode_get(n, "rotation"))) {
        sn_vec3 r;
        st = sn_yget_vec3(&c->y, v, "transform.rotation [pitch, yaw, roll]", &r);
        /* degrees; beyond this, sin/cos of the angle carry no precision at all */
        if (!st && (fabs(r.x) > 1e6 || fabs(r.y) > 1e6 || fabs(r.z) > 1e6))
            st = at(c, v, "transform.rotation angles must be within [-1e6, 1e6] degrees", NULL, NULL);
        if (!st)
            t->rotation = (sn_rotation){r.x, r.y, r.z};
    }
    return st;
}

/* An attribute value: a scalar as written, or a list of scalars joined with ','. */
static sn_status parse_attrs(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "attributes");
    if (st)
        return st;
    e->attrs = calloc(n->n / 2 + 1, sizeof *e->attrs);
    if (!e->attrs)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n->n; i += 2) {
        const sn_ynode *k = n->items[i], *v = n->items[i + 1];
        sn_scene_attr *a = &e->attrs[e->n_attrs++];
        a->key = sn_strdup(k->text);
        a->key_pos = pos_of(c, k);
        a->value_pos = pos_of(c, v);
        if (v->kind == SN_Y_SCALAR) {
            a->value = sn_strdup(v->text);
        } else if (v->kind == SN_Y_SEQ) {
            size_t len = 1;
            for (size_t j = 0; j < v->n; j++) {
                if (v->items[j]->kind != SN_Y_SCALAR)
                    return at(c, v->items[j], "attribute '%s': list items must be plain values", k->text, NULL);
                len += strlen(v->items[j]->text) + 1;
            }
            a->value = calloc(1, len);
            for (size_t j = 0; a->value && j < v->n; j++) {
                if (j)
                    strcat(a->value, ",");
                strcat(a->value, v->items[j]->text);
            }
        } else {
            return at(c, v, "attribute '%s': expected a value or a list of values, found a mapping", k->text, NULL);
        }
        if (!a->key || !a->value)
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    }
    return SN_OK;
}

static sn_status parse_control(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    static const char *const keys[] = {"throttle", "steer", "brake", "hand_brake", "reverse",
                                       "direction", "speed", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "control");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "control (vehicles: throttle, steer, brake, hand_brake, "
                                    "reverse; walkers: direction, speed)");
    static const struct { const char *key; double lo, hi; size_t off; } num[] = {
        {"throttle", 0, 1, offsetof(sn_vehicle_control, throttle)},
        {"steer", -1, 1, offsetof(sn_vehicle_control, steer)},
        {"brake", 0, 1, offsetof(sn_vehicle_control, brake)},
    };
    for (size_t i = 0; !st && i < SN_COUNT(num); i++) {
        const sn_ynode *v = sn_ynode_get(n, num[i].key);
        double d;
        if (!v)
            continue;
        st = sn_yget_number(&c->y, v, num[i].key, &d);
        if (!st && (d < num[i].lo || d > num[i].hi)) {
            char r[64];
            snprintf(r, sizeof r, "[%g, %g]", num[i].lo, num[i].hi);
            st = at(c, v, "control.%s must be within %s", num[i].key, r);
        }
        if (!st)
            *(double *)((char *)&e->control + num[i].off) = d;
    }
    const sn_ynode *v;
    if (!st && (v = sn_ynode_get(n, "hand_brake")))
        st = sn_yget_bool(&c->y, v, "control.hand_brake", &e->control.hand_brake);
    if (!st && (v = sn_ynode_get(n, "reverse")))
        st = sn_yget_bool(&c->y, v, "control.reverse", &e->control.reverse);
    sn_scene_more *x = NULL;
    if (!st && (sn_ynode_get(n, "direction") || sn_ynode_get(n, "speed")) && !(x = more_of(e)))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    if (!st && (v = sn_ynode_get(n, "direction")))
        st = sn_yget_vec3(&c->y, v, "control.direction", &x->walk_direction);
    if (!st && v) { /* scaled to its largest component: huge values cannot overflow to a zero direction */
        sn_vec3 *d = &x->walk_direction;
        double big = fmax(fabs(d->x), fabs(d->y));
        *d = big > 0 ? sn_v3(d->x / big, d->y / big, 0) : sn_v3(0, 0, 0);
    }
    if (!st && (v = sn_ynode_get(n, "speed"))) {
        st = sn_yget_number(&c->y, v, "control.speed", &x->walk_speed);
        if (!st && !(x->walk_speed >= 0 && x->walk_speed <= 10)) /* as sn_engine_apply_walker_control */
            st = at(c, v, "control.speed must be within [0, 10] m/s", NULL, NULL);
    }
    e->has_control = true;
    return st;
}

/* A CARLA Traffic Manager knob in [lo, hi] (autopilot: and traffic: share them). */
static sn_status get_knob(ctx *c, const sn_ynode *n, const char *what, double lo, double hi, double *out)
{
    sn_status st = sn_yget_number(&c->y, n, what, out);
    if (!st && !(*out >= lo && *out <= hi)) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s must be within [%g, %g]", what, lo, hi);
        st = at(c, n, "%s%s", msg, NULL);
    }
    return st;
}

/* The knobs of CARLA's Traffic Manager that map autopilots take (NAN: CARLA's default). */
static sn_status parse_tm_knobs(ctx *c, const sn_ynode *n, const char *in, sn_tm_knobs *k)
{
    static const char *const names[] = {"distance_to_leading_vehicle", "vehicle_percentage_speed_difference",
                                        "ignore_lights_percentage"};
    static const double lo[] = {0, -100, 0}, hi[] = {100, 100, 100};
    double *dst[] = {&k->distance_to_leading_vehicle, &k->speed_difference, &k->ignore_lights};
    for (int i = 0; i < 3; i++) {
        *dst[i] = NAN;
        const sn_ynode *v = sn_ynode_get(n, names[i]);
        char what[96];
        snprintf(what, sizeof what, "%s.%s", in, names[i]);
        sn_status st = v ? get_knob(c, v, what, lo[i], hi[i], dst[i]) : SN_OK;
        if (st)
            return st;
    }
    return SN_OK;
}

/* autopilot: {route: [...], target_speed, loop} follows a route; without a route, on a map,
** the vehicle follows lanes (or the walker sidewalks) with CARLA Traffic Manager's knobs. */
static sn_status parse_autopilot(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    static const char *const keys[] = {"route", "target_speed", "loop", "distance_to_leading_vehicle",
                                       "vehicle_percentage_speed_difference", "ignore_lights_percentage", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "autopilot");
    sn_scene_more *x = st ? NULL : more_of(e);
    if (!st && !x)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "autopilot");
    if (!st)
        st = parse_tm_knobs(c, n, "autopilot", &x->knobs);
    if (st)
        return st;
    x->autopilot_pos = pos_of(c, n);
    const sn_ynode *r = sn_ynode_get(n, "route");
    if (r) {
        if ((st = sn_yget_expect(&c->y, r, SN_Y_SEQ, "autopilot.route")))
            return st;
        if (r->n < 1)
            return at(c, r, "autopilot.route needs at least one point", NULL, NULL);
        x->route = calloc(r->n, sizeof *x->route);
        if (!x->route)
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        for (size_t i = 0; i < r->n; i++)
            if ((st = sn_yget_point(&c->y, r->items[i], "a route point", &x->route[x->n_route++])))
                return st;
    } else {
        x->map_autopilot = true; /* the engine checks that the scene has a map */
    }
    x->target_speed = -1; /* the engine picks per kind */
    const sn_ynode *v;
    if ((v = sn_ynode_get(n, "target_speed"))) {
        if ((st = sn_yget_number(&c->y, v, "autopilot.target_speed", &x->target_speed)))
            return st;
        if (x->target_speed < 0 || x->target_speed > 100)
            return at(c, v, "autopilot.target_speed must be within [0, 100] m/s", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "loop")) && (st = sn_yget_bool(&c->y, v, "autopilot.loop", &x->loop_route)))
        return st;
    x->has_autopilot = true;
    return SN_OK;
}

static sn_status parse_calls(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    static const char *const keys[] = {"at", "method", "args", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_SEQ, "calls");
    sn_scene_more *x = st ? NULL : more_of(e);
    if (st)
        return st;
    if (!x)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    x->calls = calloc(n->n + 1, sizeof *x->calls);
    if (!x->calls)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n->n; i++) {
        const sn_ynode *m = n->items[i];
        sn_scene_call *call = &x->calls[x->n_calls++];
        call->pos = pos_of(c, m);
        if ((st = sn_yget_expect(&c->y, m, SN_Y_MAP, "a call")) || (st = sn_yget_keys(&c->y, m, keys, "call")))
            return st;
        const sn_ynode *v = sn_ynode_get(m, "method");
        if (!v)
            return at(c, m, "a call needs 'method'", NULL, NULL);
        if ((st = sn_yget_string(&c->y, v, "call.method", &call->method)))
            return st;
        if ((v = sn_ynode_get(m, "at"))) {
            if ((st = sn_yget_number(&c->y, v, "call.at", &call->at)))
                return st;
            if (call->at < 0)
                return at(c, v, "call.at must be >= 0 seconds", NULL, NULL);
        if (call->at > 1e12) /* far beyond any run (SN_LIMIT_FRAMES); keeps time sums exact enough */
            return at(c, v, "call.at must be at most 1e12 seconds", NULL, NULL);
        }
        if ((v = sn_ynode_get(m, "args"))) {
            if ((st = sn_yget_expect(&c->y, v, SN_Y_SEQ, "call.args")))
                return st;
            call->args = calloc(v->n + 1, sizeof(char *));
            if (!call->args)
                return sn_fail(c->err, SN_E_NOMEM, "out of memory");
            for (size_t j = 0; j < v->n; j++)
                if ((st = sn_yget_string(&c->y, v->items[j], "a call argument", &call->args[call->n_args++])))
                    return st;
        }
    }
    return SN_OK;
}

/* save: {path: "front/%06d.png", converter: raw|depth|logarithmic_depth|cityscapes} */
static sn_status parse_save(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    static const char *const keys[] = {"path", "converter", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "save");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "save");
    sn_scene_more *x = st ? NULL : more_of(e);
    if (st)
        return st;
    if (!x)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    x->save_pos = pos_of(c, n);
    const sn_ynode *v = sn_ynode_get(n, "path");
    if (!v)
        return at(c, n, "save needs a 'path', e.g. \"front/%%06d.png\"", NULL, NULL);
    if ((st = sn_yget_string(&c->y, v, "path", &x->save_path)))
        return st;
    sn_error perr = {0};
    if (!sn_image_pattern_check(x->save_path, &perr) || x->save_path[0] == '/' || strstr(x->save_path, ".."))
        return at(c, v, "save path %s (a relative path inside --out, with at most one %%06d for the frame)",
                  perr.msg[0] ? perr.msg : x->save_path, NULL);
    if ((v = sn_ynode_get(n, "converter"))) {
        if ((st = sn_yget_string(&c->y, v, "converter", &x->save_converter)))
            return st;
        sn_converter conv;
        if (!sn_converter_parse(x->save_converter, &conv))
            return at(c, v, "unknown converter '%s' (raw, depth, logarithmic_depth or cityscapes)", x->save_converter, NULL);
    } else if (!(x->save_converter = sn_strdup("raw"))) {
        return SN_E_NOMEM;
    }
    return SN_OK;
}

/* light_state: CARLA's VehicleLightState as a name ("LowBeam", "All", "NONE"), a list of
** names, or the bits as a number. */
static sn_status parse_light_state(ctx *c, const sn_ynode *n, sn_scene_entity *e)
{
    sn_scene_more *x = more_of(e);
    if (!x)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    x->light_state = 0;
    size_t k = n->kind == SN_Y_SEQ ? n->n : 1;
    for (size_t i = 0; i < k; i++) {
        const sn_ynode *v = n->kind == SN_Y_SEQ ? n->items[i] : n;
        if (v->kind != SN_Y_SCALAR)
            return at(c, v, "light_state: expected a VehicleLightState name, a list of names or a number", NULL, NULL);
        uint32_t bits;
        char *end;
        unsigned long long num = strtoull(v->text, &end, 0);
        if (!v->quoted && end != v->text && !*end && v->text[0] != '-' && num <= UINT32_MAX)
            bits = (uint32_t)num;
        else if (!sn_vehicle_light_bits(v->text, &bits))
            return at(c, v, "light_state: unknown light '%s' (CARLA's VehicleLightState: %s, or the bits as a number "
                      "up to 4294967295)", v->text, sn_vehicle_light_names());
        x->light_state |= bits;
    }
    x->has_light_state = true;
    return SN_OK;
}

static sn_status parse_entity(ctx *c, const sn_ynode *n, bool sensor, sn_scene_entity *e)
{
    static const char *const actor_keys[] = {"name", "blueprint", "transform", "attributes",
                                             "attach_to", "velocity", "control", "autopilot",
                                             "spawn_at", "destroy_at", "light_state", NULL};
    static const char *const sensor_keys[] = {"name", "blueprint", "transform", "attributes",
                                              "attach_to", "calls", "spawn_at", "destroy_at", "save", "stream", NULL};
    const char *what = sensor ? "a sensor" : "an actor";
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, what);
    if (!st)
        st = sn_yget_keys(&c->y, n, sensor ? sensor_keys : actor_keys, what);
    if (st)
        return st;
    e->pos = pos_of(c, n);
    const sn_ynode *v;
    if (!(v = sn_ynode_get(n, "blueprint")))
        return at(c, n, "%s needs a 'blueprint'", what, NULL);
    e->blueprint_pos = pos_of(c, v);
    if ((st = get_pooled(c, v, "blueprint", &e->blueprint)))
        return st;
    e->name_pos = e->pos;
    if ((v = sn_ynode_get(n, "name"))) {
        e->name_pos = pos_of(c, v);
        if ((st = get_pooled(c, v, "name", &e->name)))
            return st;
        if (!e->name[0])
            return at(c, v, "name must not be empty", NULL, NULL);
        for (const char *p = e->name; *p; p++)
            if (*p == '/' || *p == '\\' || (unsigned char)*p < 32)
                return at(c, v, "name '%s' may not contain '/', '\\' or control characters (it names an output file)", e->name, NULL);
        if (strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0)
            return at(c, v, "name '%s' is reserved", e->name, NULL);
    } else if (sensor) {
        return at(c, n, "a sensor needs a 'name' (it names its output stream)", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "transform")) && (st = parse_transform(c, v, &e->transform)))
        return st;
    if ((v = sn_ynode_get(n, "attributes")) && (st = parse_attrs(c, v, e)))
        return st;
    if ((v = sn_ynode_get(n, "attach_to"))) {
        e->attach_pos = pos_of(c, v);
        if ((st = get_pooled(c, v, "attach_to", &e->attach_to)))
            return st;
    }
    if ((v = sn_ynode_get(n, "velocity"))) {
        sn_scene_more *x = more_of(e);
        if (!x)
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        if ((st = sn_yget_vec3(&c->y, v, "velocity", &x->velocity)))
            return st;
        if (sn_v3_len(x->velocity) > SN_LIMIT_SPEED) {
            char buf[120];
            snprintf(buf, sizeof buf, "velocity must be at most %g m/s (SN_LIMIT_SPEED)", SN_LIMIT_SPEED);
            return at(c, v, "%s%s", buf, NULL);
        }
        x->has_velocity = true;
    }
    if ((v = sn_ynode_get(n, "control")) && (st = parse_control(c, v, e)))
        return st;
    if ((v = sn_ynode_get(n, "autopilot")) && (st = parse_autopilot(c, v, e)))
        return st;
    if ((v = sn_ynode_get(n, "light_state")) && (st = parse_light_state(c, v, e)))
        return st;
    if ((v = sn_ynode_get(n, "save")) && (st = parse_save(c, v, e)))
        return st;
    if ((v = sn_ynode_get(n, "stream"))) { /* stream: false: this sensor writes no stream file */
        bool on = true;
        if ((st = sn_yget_bool(&c->y, v, "stream", &on)))
            return st;
        sn_scene_more *m = more_of(e);
        if (!m)
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        m->no_stream = !on;
    }
    if ((v = sn_ynode_get(n, "calls")) && (st = parse_calls(c, v, e)))
        return st;
    sn_scene_more *x = NULL;
    if ((sn_ynode_get(n, "spawn_at") || sn_ynode_get(n, "destroy_at")) && !(x = more_of(e)))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    if ((v = sn_ynode_get(n, "spawn_at"))) {
        if ((st = sn_yget_number(&c->y, v, "spawn_at", &x->spawn_at)))
            return st;
        if (x->spawn_at < 0 || x->spawn_at > 1e12)
            return at(c, v, "spawn_at must be within [0, 1e12] seconds", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "destroy_at"))) {
        if ((st = sn_yget_number(&c->y, v, "destroy_at", &x->destroy_at)))
            return st;
        if (x->destroy_at < 0 || x->destroy_at > 1e12 || (x->spawn_at >= 0 && x->destroy_at <= x->spawn_at))
            return at(c, v, "destroy_at must be within [0, 1e12] seconds and after spawn_at", NULL, NULL);
    }
    return SN_OK;
}

/* lighting: {sun_azimuth_angle, sun_altitude_angle, sun_intensity, ambient, sky_color, shadows, textures} */
static sn_status parse_lighting(ctx *c, const sn_ynode *n, sn_scene_settings *s)
{
    static const char *const keys[] = {"sun_azimuth_angle", "sun_altitude_angle", "sun_intensity", "ambient",
                                       "sky_color", "shadows", "textures", NULL};
    static const struct { const char *key; double lo, hi; size_t off; } nums[] = {
        {"sun_azimuth_angle", -360, 360, offsetof(sn_scene_settings, sun_azimuth)},
        {"sun_altitude_angle", -90, 90, offsetof(sn_scene_settings, sun_altitude)},
        {"sun_intensity", 0, 10, offsetof(sn_scene_settings, sun_intensity)},
        {"ambient", 0, 1, offsetof(sn_scene_settings, ambient)},
    };
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "lighting");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "lighting");
    if (st)
        return st;
    const sn_ynode *v;
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (!(v = sn_ynode_get(n, nums[i].key)))
            continue;
        double *dst = (double *)(void *)((char *)s + nums[i].off);
        if ((st = sn_yget_number(&c->y, v, nums[i].key, dst)))
            return st;
        if (*dst < nums[i].lo || *dst > nums[i].hi) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s must be within [%g, %g]", nums[i].key, nums[i].lo, nums[i].hi);
            return at(c, v, msg, NULL, NULL);
        }
    }
    if ((v = sn_ynode_get(n, "shadows")) && (st = sn_yget_bool(&c->y, v, "shadows", &s->shadows)))
        return st;
    if ((v = sn_ynode_get(n, "textures")) && (st = sn_yget_bool(&c->y, v, "textures", &s->textures)))
        return st;
    if ((v = sn_ynode_get(n, "sky_color"))) {
        if ((st = sn_yget_vec3(&c->y, v, "sky_color", &s->sky_color)))
            return st;
        const sn_vec3 k = s->sky_color;
        if (k.x < 0 || k.x > 255 || k.y < 0 || k.y > 255 || k.z < 0 || k.z > 255)
            return at(c, v, "sky_color must be [r, g, b] with each in [0, 255]", NULL, NULL);
    }
    return SN_OK;
}

/* weather: a CARLA preset's name ("WetCloudySunset"), or a map of WeatherParameters fields,
** optionally on a `preset` base; fields left out keep the base's values (the default weather,
** with the lighting's sun, when there is no preset). */
static sn_status parse_weather(ctx *c, const sn_ynode *n, sn_scene_settings *s)
{
    sn_weather_default(&s->weather, s->sun_azimuth, s->sun_altitude);
    const sn_ynode *preset = n->kind == SN_Y_SCALAR ? n : n->kind == SN_Y_MAP ? sn_ynode_get(n, "preset") : NULL;
    if (n->kind == SN_Y_SEQ)
        return at(c, n, "expected a preset name or a map of WeatherParameters fields for weather, found a list",
                  NULL, NULL);
    if (preset) {
        sn_status st = sn_yget_expect(&c->y, preset, SN_Y_SCALAR, "weather preset");
        if (st)
            return st;
        if (strcmp(preset->text, "Default") != 0 && !sn_weather_preset(preset->text, &s->weather)) {
            char list[600] = "";
            for (unsigned i = 0; sn_weather_preset_name(i); i++)
                sn_format(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                          sn_weather_preset_name(i));
            return at(c, preset, "unknown weather preset '%s' (expected one of: %s)", preset->text, list);
        }
    }
    if (n->kind == SN_Y_MAP) {
        const char *keys[SN_WEATHER_FIELDS + 2];
        for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++)
            keys[i] = sn_weather_field_names[i];
        keys[SN_WEATHER_FIELDS] = "preset";
        keys[SN_WEATHER_FIELDS + 1] = NULL;
        sn_status st = sn_yget_keys(&c->y, n, keys, "weather");
        if (st)
            return st;
        for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++) {
            const sn_ynode *v = sn_ynode_get(n, sn_weather_field_names[i]);
            if (!v)
                continue;
            if ((st = sn_yget_number(&c->y, v, sn_weather_field_names[i], sn_weather_field(&s->weather, i))))
                return st;
            sn_weather one = s->weather;
            sn_error e1 = {0};
            if (sn_weather_validate(&one, &e1))
                return at(c, v, "%s", e1.msg, NULL);
        }
    }
    sn_error e2 = {0};
    if (sn_weather_validate(&s->weather, &e2))
        return at(c, n, "%s", e2.msg, NULL);
    s->has_weather = true;
    return SN_OK;
}

/* georeference: {latitude, longitude, altitude} of the world origin (CARLA's map geo-reference). */
static sn_status parse_georeference(ctx *c, const sn_ynode *n, sn_geo_location *g)
{
    static const char *const keys[] = {"latitude", "longitude", "altitude", NULL};
    /* Mercator's scale cos(latitude) vanishes at the poles: keep to Web Mercator's band. */
    static const struct { const char *key; double lo, hi; size_t off; } nums[] = {
        {"latitude", -85, 85, offsetof(sn_geo_location, latitude)},
        {"longitude", -180, 180, offsetof(sn_geo_location, longitude)},
        {"altitude", -11000, 100000, offsetof(sn_geo_location, altitude)},
    };
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "georeference");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "georeference");
    for (size_t i = 0; !st && i < sizeof nums / sizeof nums[0]; i++) {
        const sn_ynode *v = sn_ynode_get(n, nums[i].key);
        double *dst = (double *)(void *)((char *)g + nums[i].off);
        if (!v || (st = sn_yget_number(&c->y, v, nums[i].key, dst)))
            continue;
        if (*dst < nums[i].lo || *dst > nums[i].hi) {
            char msg[160];
            snprintf(msg, sizeof msg, "georeference %s must be within [%g, %g]", nums[i].key, nums[i].lo, nums[i].hi);
            return at(c, v, msg, NULL, NULL);
        }
    }
    return st;
}

static sn_status parse_settings(ctx *c, const sn_ynode *n, sn_scene_settings *s)
{
    static const char *const keys[] = {"fixed_delta_seconds", "frames", "duration", "seed",
                                       "max_substep_delta_time", "max_substeps", "lighting", "georeference", "weather",
                                       "streams", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "settings");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "settings");
    if (st)
        return st;
    const sn_ynode *v;
    if ((v = sn_ynode_get(n, "fixed_delta_seconds"))) {
        s->dt_pos = pos_of(c, v);
        if ((st = sn_yget_number(&c->y, v, "fixed_delta_seconds", &s->fixed_delta_seconds)))
            return st;
        if (!(s->fixed_delta_seconds >= SN_LIMIT_DT_MIN && s->fixed_delta_seconds <= 1))
            return at(c, v, "fixed_delta_seconds must be within [1e-06, 1] seconds (SN_LIMIT_DT_MIN)", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "streams")) && (st = sn_yget_bool(&c->y, v, "streams", &s->streams)))
        return st;
    if ((v = sn_ynode_get(n, "frames"))) {
        if ((st = sn_yget_uint(&c->y, v, "frames", UINT64_MAX, &s->frames)))
            return st;
        if (s->frames < 1 || s->frames > SN_LIMIT_FRAMES) /* 0 used to mean the default, silently */
            return at(c, v, "frames must be within [1, 1000000000] (SN_LIMIT_FRAMES)", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "duration"))) {
        if ((st = sn_yget_number(&c->y, v, "duration", &s->duration)))
            return st;
        if (!(s->duration > 0))
            return at(c, v, "duration must be > 0 seconds", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "seed")) && (st = sn_yget_uint(&c->y, v, "seed", UINT64_MAX, &s->seed)))
        return st;
    if ((v = sn_ynode_get(n, "max_substep_delta_time"))) {
        if ((st = sn_yget_number(&c->y, v, "max_substep_delta_time", &s->max_substep_delta_time)))
            return st;
        if (!(s->max_substep_delta_time >= SN_LIMIT_DT_MIN && s->max_substep_delta_time <= 1))
            return at(c, v, "max_substep_delta_time must be within [1e-06, 1] seconds (SN_LIMIT_DT_MIN)", NULL, NULL);
    }
    if ((v = sn_ynode_get(n, "lighting")) && (st = parse_lighting(c, v, s)))
        return st;
    if ((v = sn_ynode_get(n, "weather")) && (st = parse_weather(c, v, s))) /* after lighting: its sun is the default */
        return st;
    if ((v = sn_ynode_get(n, "georeference"))) {
        if ((st = parse_georeference(c, v, &s->georeference)))
            return st;
        s->has_georeference = true;
    }
    if ((v = sn_ynode_get(n, "max_substeps"))) {
        uint64_t m;
        if ((st = sn_yget_uint(&c->y, v, "max_substeps", UINT64_MAX, &m)))
            return st;
        if (m < 1 || m > 16)
            return at(c, v, "max_substeps must be within [1, 16] (CARLA's range)", NULL, NULL);
        s->max_substeps = (int)m;
    }
    /* duration / dt frames, checked before the cast to a frame count (a double beyond 2^64 is UB) */
    if (s->duration > 0 && !s->frames && s->duration / s->fixed_delta_seconds > (double)SN_LIMIT_FRAMES) {
        char buf[300];
        snprintf(buf, sizeof buf, "duration %g s at fixed_delta_seconds %g is %.3g frames, more than the limit of %llu "
                 "(SN_LIMIT_FRAMES)", s->duration, s->fixed_delta_seconds, s->duration / s->fixed_delta_seconds,
                 (unsigned long long)SN_LIMIT_FRAMES);
        return at(c, sn_ynode_get(n, "duration"), "%s%s", buf, NULL);
    }
    /* CARLA's rule: one frame must fit in the allowed substeps. */
    if (s->fixed_delta_seconds > s->max_substep_delta_time * s->max_substeps + 1e-12) {
        char buf[300];
        snprintf(buf, sizeof buf,
                 "fixed_delta_seconds %g exceeds max_substep_delta_time * max_substeps = %g * %d = %g; "
                 "raise max_substeps or max_substep_delta_time",
                 s->fixed_delta_seconds, s->max_substep_delta_time, s->max_substeps,
                 s->max_substep_delta_time * s->max_substeps);
        return at(c, v = sn_ynode_get(n, "fixed_delta_seconds") ? sn_ynode_get(n, "fixed_delta_seconds") : n,
                  "%s%s", buf, NULL);
    }
    return SN_OK;
}

static sn_status parse_list(ctx *c, const sn_ynode *n, bool sensors, sn_scene_entity **out, uint32_t *count)
{
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_SEQ, sensors ? "sensors" : "actors");
    if (st)
        return st;
    *out = calloc(n->n + 1, sizeof **out);
    if (!*out)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n->n; i++) {
        sn_scene_entity *e = &(*out)[(*count)++];
        if ((st = parse_entity(c, n->items[i], sensors, e)))
            return st;
    }
    return SN_OK;
}

/* recorder: {file, additional_data, date}: the run records itself (plugins/recorder). */
static sn_status parse_recorder(ctx *c, const sn_ynode *n, sn_scene *s)
{
    static const char *const keys[] = {"file", "additional_data", "date", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "recorder");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "recorder");
    if (st)
        return st;
    const sn_ynode *v = sn_ynode_get(n, "file");
    if (!v)
        return at(c, n, "recorder needs a file: recorder: {file: run.sensimrec}", NULL, NULL);
    s->recorder_pos = pos_of(c, n);
    if ((st = sn_yget_string(&c->y, v, "recorder.file", &s->recorder_file)))
        return st;
    if (!s->recorder_file[0])
        return at(c, v, "recorder.file must not be empty", NULL, NULL);
    if ((v = sn_ynode_get(n, "additional_data")) && (st = sn_yget_bool(&c->y, v, "additional_data", &s->recorder_additional)))
        return st;
    if ((v = sn_ynode_get(n, "date")) && (st = sn_yget_uint(&c->y, v, "date", UINT64_MAX, &s->recorder_date)))
        return st;
    return SN_OK;
}

/* map: FILE.xodr, relative to the scene's folder (CARLA's standalone mode loads any OpenDRIVE
** file); the empty string means no map. The file is read when the scene is built. */
static sn_status parse_map(ctx *c, const sn_ynode *n, sn_scene *s)
{
    char *text = NULL;
    sn_status st = sn_yget_string(&c->y, n, "map", &text);
    if (st)
        return st;
    s->map_pos = pos_of(c, n);
    if (!text[0] || text[0] == '/' || !strchr(c->path, '/')) {
        if (text[0])
            s->map_path = text;
        else
            free(text);
        return SN_OK;
    }
    size_t dir = (size_t)(strrchr(c->path, '/') - c->path);
    size_t len = dir + 1 + strlen(text) + 1;
    s->map_path = malloc(len);
    if (!s->map_path) {
        free(text);
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    }
    snprintf(s->map_path, len, "%.*s/%s", (int)dir, c->path, text);
    free(text);
    return SN_OK;
}

/* A path given in the scene, resolved against the scene's folder. */
static sn_status scene_relative(ctx *c, const char *text, char **out)
{
    if (text[0] == '/' || !strchr(c->path, '/'))
        return (*out = sn_strdup(text)) ? SN_OK : sn_fail(c->err, SN_E_NOMEM, "out of memory");
    size_t dir = (size_t)(strrchr(c->path, '/') - c->path), len = dir + 1 + strlen(text) + 1;
    if (!(*out = malloc(len)))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    snprintf(*out, len, "%.*s/%s", (int)dir, c->path, text);
    return SN_OK;
}

/* scenario: FILE.xosc (docs/openscenario.md) */
static sn_status parse_scenario(ctx *c, const sn_ynode *n, sn_scene *s)
{
    char *text = NULL;
    sn_status st = sn_yget_string(&c->y, n, "scenario", &text);
    if (st)
        return st;
    s->scenario_pos = pos_of(c, n);
    if (!text[0]) {
        free(text);
        return at(c, n, "scenario: expected the path of an OpenSCENARIO file%s%s", "", "");
    }
    free(s->scenario_path);
    s->scenario_path = NULL;
    st = scene_relative(c, text, &s->scenario_path);
    free(text);
    return st;
}

/* parameters: {NAME: VALUE}: the scenario's parameter overrides. */
static sn_status parse_parameters(ctx *c, const sn_ynode *n, sn_scene *s)
{
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "parameters");
    if (st)
        return st;
    if (!(s->scenario_sets = calloc(n->n + 1, sizeof *s->scenario_sets)))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i + 1 < n->n; i += 2) { /* key, value, key, value ... */
        const sn_ynode *k = n->items[i], *v = n->items[i + 1];
        if ((st = sn_yget_expect(&c->y, k, SN_Y_SCALAR, "a parameter name")) || (st = sn_yget_expect(&c->y, v, SN_Y_SCALAR, "a parameter value")))
            return st;
        size_t len = strlen(k->text) + strlen(v->text) + 2;
        if (!(s->scenario_sets[s->n_scenario_sets] = malloc(len)))
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        snprintf(s->scenario_sets[s->n_scenario_sets], len, "%s=%s", k->text, v->text);
        s->n_scenario_sets++;
    }
    return SN_OK;
}

/* traffic.vehicles or traffic.walkers (k 0, 1): a count, or {count, blueprints: [pattern or
** {id: pattern, weight: w}, ...]} (docs/traffic.md, "Which blueprints"). */
static sn_status parse_traffic_count(ctx *c, const sn_ynode *v, int k, sn_scene_traffic *t)
{
    static const char *const keys[] = {"count", "blueprints", NULL}, *const pick_keys[] = {"id", "weight", NULL};
    const char *what = k ? "traffic.walkers" : "traffic.vehicles";
    char buf[96];
    uint64_t u = 0;
    sn_status st;
    const sn_ynode *cnt = v, *list = NULL;
    if (v->kind == SN_Y_MAP) {
        if ((st = sn_yget_keys(&c->y, v, keys, what)))
            return st;
        if (!(cnt = sn_ynode_get(v, "count")))
            return at(c, v, "%s needs a 'count'", what, NULL);
        list = sn_ynode_get(v, "blueprints");
    }
    snprintf(buf, sizeof buf, "%s%s", what, v->kind == SN_Y_MAP ? ".count" : "");
    if ((st = sn_yget_uint(&c->y, cnt, buf, UINT64_MAX, &u)))
        return st;
    if (u > 10000)
        return at(c, cnt, "%s must be at most 10000", buf, NULL);
    if (k)
        t->walkers = (uint32_t)u;
    else
        t->vehicles = (uint32_t)u;
    if (!list)
        return SN_OK;
    snprintf(buf, sizeof buf, "%s.blueprints", what);
    if ((st = sn_yget_expect(&c->y, list, SN_Y_SEQ, buf)))
        return st;
    if (!list->n || list->n > 1000)
        return at(c, list, "%s must list 1 to 1000 blueprint ids or patterns", buf, NULL);
    if (!(t->picks[k] = calloc(list->n, sizeof *t->picks[k])))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < list->n; i++) {
        const sn_ynode *e = list->items[i], *id = e;
        sn_traffic_pick *p = &t->picks[k][t->n_picks[k]++];
        p->weight = 1;
        p->pos = pos_of(c, e);
        if (e->kind == SN_Y_MAP) {
            if ((st = sn_yget_keys(&c->y, e, pick_keys, buf)))
                return st;
            if (!(id = sn_ynode_get(e, "id")))
                return at(c, e, "each entry of %s with a weight needs an 'id'", buf, NULL);
            const sn_ynode *wn = sn_ynode_get(e, "weight");
            if (wn && (st = sn_yget_number(&c->y, wn, "a blueprint's weight", &p->weight)))
                return st;
            if (!(p->weight > 0 && p->weight <= 1e6))
                return at(c, wn, "a blueprint's weight must be in (0, 1e6]", NULL, NULL);
        }
        if ((st = sn_yget_string(&c->y, id, buf, &p->pattern)))
            return st;
    }
    return SN_OK;
}

/* traffic: {vehicles, walkers, seed, blueprint, knobs}: CARLA's generate_traffic.py as a key. */
static sn_status parse_traffic(ctx *c, const sn_ynode *n, sn_scene *s)
{
    static const char *const keys[] = {"vehicles", "walkers", "seed", "blueprint", "distance_to_leading_vehicle",
                                       "vehicle_percentage_speed_difference", "ignore_lights_percentage", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "traffic");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "traffic");
    if (!st)
        st = parse_tm_knobs(c, n, "traffic", &s->traffic.knobs);
    if (st)
        return st;
    sn_scene_traffic *t = &s->traffic;
    t->present = true;
    t->pos = pos_of(c, n);
    const sn_ynode *v;
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "walkers" : "vehicles";
        if ((v = sn_ynode_get(n, key)) && (st = parse_traffic_count(c, v, k, t)))
            return st;
    }
    if ((v = sn_ynode_get(n, "seed"))) {
        if ((st = sn_yget_uint(&c->y, v, "traffic.seed", UINT64_MAX, &t->seed)))
            return st;
        t->has_seed = true;
    }
    if ((v = sn_ynode_get(n, "blueprint"))) {
        if ((st = sn_yget_string(&c->y, v, "traffic.blueprint", &t->blueprint)))
            return st;
        t->blueprint_pos = pos_of(c, v);
    }
    return SN_OK;
}

/* scenery: {enabled, seed, density} (docs/scenery.md). */
static sn_status parse_scenery(ctx *c, const sn_ynode *n, sn_scene *s)
{
    static const char *const keys[] = {"enabled", "seed", "density", NULL};
    sn_status st = sn_yget_expect(&c->y, n, SN_Y_MAP, "scenery");
    if (!st)
        st = sn_yget_keys(&c->y, n, keys, "scenery");
    if (st)
        return st;
    sn_scene_scenery *k = &s->scenery;
    k->pos = pos_of(c, n);
    const sn_ynode *v;
    bool on = true;
    if ((v = sn_ynode_get(n, "enabled")) && (st = sn_yget_bool(&c->y, v, "scenery.enabled", &on)))
        return st;
    k->disabled = !on;
    if ((v = sn_ynode_get(n, "seed")) && (st = sn_yget_uint(&c->y, v, "scenery.seed", UINT64_MAX, &k->seed)))
        return st;
    if ((v = sn_ynode_get(n, "density"))) {
        if ((st = sn_yget_number(&c->y, v, "scenery.density", &k->density)))
            return st;
        if (!(k->density > 0 && k->density <= 4))
            return at(c, v, "scenery.density must be in (0, 4] (1 is the documented spacing)", NULL, NULL);
    }
    return SN_OK;
}

static sn_scene_entity *entity_at(sn_scene *s, uint32_t i)
{
    return i < s->n_actors ? &s->actors[i] : &s->sensors[i - s->n_actors];
}

/* Names are unique across actors and sensors. An open-addressing set of entity indices keeps
** this linear: scenes with thousands of actors are loaded (a pairwise strcmp was quadratic). */
static sn_status check_names(ctx *c, sn_scene *s)
{
    uint32_t total = s->n_actors + s->n_sensors;
    size_t cap = 16;
    while (cap < 2 * (size_t)total)
        cap *= 2;
    uint32_t *set = calloc(cap, sizeof *set); /* entity index + 1, 0 = empty */
    if (!set)
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    sn_status st = SN_OK;
    for (uint32_t i = 0; i < total && !st; i++) {
        sn_scene_entity *a = entity_at(s, i);
        if (!a->name)
            continue;
        size_t h = (size_t)sn_hash_str(a->name) & (cap - 1);
        for (; set[h]; h = (h + 1) & (cap - 1)) {
            sn_scene_entity *b = entity_at(s, set[h] - 1);
            if (strcmp(a->name, b->name) == 0) {
                char first[SN_ERROR_MAX];
                if (sn_scene_set_of(c->scene, b->name_pos))
                    snprintf(first, sizeof first, "--set %s", sn_scene_set_of(c->scene, b->name_pos));
                else
                    snprintf(first, sizeof first, "line %d", b->name_pos.line);
                st = sn_fail(c->err, SN_E_INVALID, "%s: name '%s' is already used at %s; names must be unique",
                             sn_scene_where(c->scene, a->name_pos).s, a->name, first);
                break;
            }
        }
        set[h] = i + 1;
    }
    free(set);
    return st;
}

void sn_scene_settings_default(sn_scene_settings *st)
{
    memset(st, 0, sizeof *st);
    st->fixed_delta_seconds = 0.05;
    st->max_substep_delta_time = 0.01;
    st->max_substeps = 10;
    st->sun_azimuth = 135;
    st->sun_altitude = 50;
    st->sun_intensity = 0.75;
    st->ambient = 0.35;
    st->sky_color = (sn_vec3){150, 190, 235};
    st->shadows = st->textures = true;
    st->streams = true;
}

sn_status sn_scene_load(sn_scene *s, const char *path, sn_error *err)
{
    return sn_scene_load_with(s, path, NULL, 0, err);
}

sn_status sn_scene_load_with(sn_scene *s, const char *path, const char *const *sets, size_t n_sets, sn_error *err)
{
    memset(s, 0, sizeof *s);
    s->path = sn_strdup(path);
    if (n_sets && !(s->sets = calloc(n_sets, sizeof *s->sets)))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n_sets; i++, s->n_sets++)
        if (!sets[i] || !(s->sets[i] = sn_strdup(sets[i])))
            return sn_fail(err, SN_E_INVALID, "%s: an override is NULL or out of memory", path);
    sn_scene_settings_default(&s->settings);
    sn_ydoc doc = {0};
    sn_status st = SN_OK;
    size_t plen = strlen(path);
    if (plen > 5 && strcmp(path + plen - 5, ".xosc") == 0) {
        /* an OpenSCENARIO file run as it is: a scene of nothing but that scenario, which
        ** --set settings.* and parameters.* still reach */
        if (!(doc.path = sn_strdup(path)) || !(doc.root = sn_ynode_new(SN_Y_MAP, NULL)) ||
            !(s->scenario_path = sn_strdup(path))) {
            sn_ydoc_free(&doc);
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        }
        doc.root->line = doc.root->col = 1;
    } else if ((st = sn_ydoc_load(&doc, path, err))) {
        return st;
    }
    for (size_t i = 0; i < s->n_sets && !st; i++)
        st = sn_ydoc_override(&doc, path, s->sets[i], err);
    ctx c = {path, err, &s->strings, s, {0}};
    c.y = (sn_yget){err, where_of, &c};
    static const char *const keys[] = {"settings", "map", "actors", "sensors", "recorder", "traffic", "scenario",
                                       "parameters", "scenery", NULL};
    const sn_ynode *root = doc.root, *v;
    if (!st && !root)
        st = sn_fail(err, SN_E_INVALID, "%s:1:1: the scene is empty (expected a mapping with settings, actors, sensors)", path);
    if (!st)
        st = sn_yget_expect(&c.y, root, SN_Y_MAP, "the scene");
    if (!st)
        st = sn_yget_keys(&c.y, root, keys, "the scene");
    if (!st)
        st = parse_settings(&c, (v = sn_ynode_get(root, "settings")) ? v : &(sn_ynode){.kind = SN_Y_MAP, .line = 1, .col = 1}, &s->settings);
    if (!st && (v = sn_ynode_get(root, "map")))
        st = parse_map(&c, v, s);
    if (!st && (v = sn_ynode_get(root, "actors")))
        st = parse_list(&c, v, false, &s->actors, &s->n_actors);
    if (!st && (v = sn_ynode_get(root, "sensors")))
        st = parse_list(&c, v, true, &s->sensors, &s->n_sensors);
    if (!st && (v = sn_ynode_get(root, "recorder")))
        st = parse_recorder(&c, v, s);
    if (!st && (v = sn_ynode_get(root, "traffic")))
        st = parse_traffic(&c, v, s);
    if (!st && (v = sn_ynode_get(root, "scenario")))
        st = parse_scenario(&c, v, s);
    if (!st && (v = sn_ynode_get(root, "parameters")))
        st = parse_parameters(&c, v, s);
    if (!st && s->n_scenario_sets && !s->scenario_path)
        st = sn_fail(err, SN_E_INVALID, "%s: parameters: given without a scenario to take them", path);
    if (!st && (v = sn_ynode_get(root, "scenery")))
        st = parse_scenery(&c, v, s);
    if (!st)
        st = check_names(&c, s);
    if (!st && (uint64_t)s->n_actors + s->n_sensors > SN_LIMIT_ACTORS)
        st = sn_fail(err, SN_E_RANGE, "%s: %u actors and %u sensors, more than the limit of %u (SN_LIMIT_ACTORS)", path,
                     s->n_actors, s->n_sensors, SN_LIMIT_ACTORS);
    if (!st && s->settings.frames == 0) {
        /* a scenario runs until its storyboard ends; an hour of simulated time at most */
        double d = s->settings.duration > 0 ? s->settings.duration : s->scenario_path ? 3600.0 : 5.0;
        s->settings.frames = (uint64_t)ceil(d / s->settings.fixed_delta_seconds - 1e-9);
    }
    sn_ydoc_free(&doc);
    sn_strpool_index_drop(&s->strings);
    return st;
}

static void entity_free(sn_scene_entity *e)
{
    for (uint32_t i = 0; i < e->n_attrs; i++) {
        free(e->attrs[i].key);
        free(e->attrs[i].value);
    }
    free(e->attrs);
    sn_scene_more *x = e->more;
    if (!x)
        return;
    free(x->route);
    for (uint32_t i = 0; i < x->n_calls; i++) {
        free(x->calls[i].method);
        for (uint32_t j = 0; j < x->calls[i].n_args; j++)
            free(x->calls[i].args[j]);
        free(x->calls[i].args);
    }
    free(x->calls);
    free(x->save_path);
    free(x->save_converter);
    free(x);
}

void sn_scene_free(sn_scene *s)
{
    for (uint32_t i = 0; i < s->n_actors; i++)
        entity_free(&s->actors[i]);
    for (uint32_t i = 0; i < s->n_sensors; i++)
        entity_free(&s->sensors[i]);
    free(s->actors);
    free(s->sensors);
    sn_strpool_free(&s->strings);
    free(s->path);
    for (size_t i = 0; i < s->n_sets; i++)
        free(s->sets[i]);
    free(s->sets);
    free(s->recorder_file);
    free(s->map_path);
    free(s->traffic.blueprint);
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < s->traffic.n_picks[k]; i++)
            free(s->traffic.picks[k][i].pattern);
        free(s->traffic.picks[k]);
    }
    free(s->scenario_path);
    for (size_t i = 0; i < s->n_scenario_sets; i++)
        free(s->scenario_sets[i]);
    free(s->scenario_sets);
    memset(s, 0, sizeof *s);
}
