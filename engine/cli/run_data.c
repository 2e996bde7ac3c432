/* run_data.c — see run_data.h. */
#include "run_data.h"
#include "cli_input.h"
#include "encoder.h"
#include "msgkey.h"
#include "outfile.h"

#include <msgpack.h>
#include <sensim/grow.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool add_point(rd_path *p, double x, double y)
{
    if (!isfinite(x) || !isfinite(y))
        return true;
    /* a point per 5 cm moved: a car standing still adds nothing */
    if (p->n && hypot(x - p->pts[p->n - 1].x, y - p->pts[p->n - 1].y) < 0.05)
        return true;
    if (!sn_grow_array((void **)&p->pts, &p->cap, p->n + 1, sizeof *p->pts))
        return false;
    p->pts[p->n++] = (rd_pt){x, y};
    return true;
}

static rd_path *new_path(run_data *d, size_t *cap)
{
    if (!sn_grow_array((void **)&d->paths, cap, d->n_paths + 1, sizeof *d->paths))
        return NULL;
    rd_path *p = &d->paths[d->n_paths++];
    memset(p, 0, sizeof *p);
    return p;
}

static bool add_event(run_data *d, size_t *cap, rd_event ev)
{
    ev.last_frame = ev.frame;
    for (size_t i = d->n_events; i-- > 0;) {
        rd_event *e = &d->events[i];
        if (e->key_a == ev.key_a && e->key_b == ev.key_b && e->last_frame + 1 >= ev.frame) {
            e->last_frame = ev.frame; /* the same contact going on */
            return true;
        }
    }
    if (!sn_grow_array((void **)&d->events, cap, d->n_events + 1, sizeof *d->events))
        return false;
    d->events[d->n_events++] = ev;
    return true;
}

/* An actor's kind for the collision summary, from its blueprint id. */
static const char *kind_of(const char *blueprint)
{
    if (!blueprint[0])
        return "unknown";
    return !strncmp(blueprint, "vehicle.", 8) ? "vehicle" : !strncmp(blueprint, "walker.", 7) ? "walker" : "static";
}

/* ---- the messages' own keys (msgpack-c over the documented layout) ---- */

static bool num(const msgpack_object *o, double *v)
{
    if (!o)
        return false;
    switch (o->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER: *v = (double)o->via.u64; return true;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: *v = (double)o->via.i64; return true;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64: *v = o->via.f64; return true;
    default: return false;
    }
}

/* [x, y, z] -> (x, y) */
static bool xy(const msgpack_object *o, rd_pt *p)
{
    return o && o->type == MSGPACK_OBJECT_ARRAY && o->via.array.size >= 2 && num(&o->via.array.ptr[0], &p->x) &&
           num(&o->via.array.ptr[1], &p->y);
}

static void str_of(const msgpack_object *o, char *buf, size_t cap)
{
    buf[0] = 0;
    if (o && o->type == MSGPACK_OBJECT_STR)
        snprintf(buf, cap, "%.*s", (int)o->via.str.size, o->via.str.ptr);
}

/* The converter a thumbnail of this type is best seen through. */
static sn_color_converter thumb_converter(const char *type)
{
    if (!strcmp(type, "sensor.camera.depth"))
        return SN_COLOR_LOGARITHMIC_DEPTH;
    if (!strcmp(type, "sensor.camera.semantic_segmentation"))
        return SN_COLOR_CITYSCAPES;
    return SN_COLOR_RAW;
}

/* The thumbnail of the picture last read. */
static sn_status thumb(sn_stream_reader *r, rd_stream *s, sn_error *err)
{
    sn_picture pic;
    sn_status st = sn_stream_reader_picture(r, thumb_converter(s->type), false, &pic, err);
    if (st)
        return st;
    int tw = (int)(pic.width < SN_THUMB_WIDTH ? pic.width : SN_THUMB_WIDTH);
    int th = (int)lround((double)pic.height * tw / pic.width);
    th = th < 1 ? 1 : th;
    uint8_t *small = malloc((size_t)tw * th * 3);
    if (!small)
        return sn_cli_fail(err, SN_E_NOMEM, "out of memory for a thumbnail");
    st = sn_rgb_scale(pic.rgb, (int)pic.width, (int)pic.height, small, tw, th, err);
    if (!st)
        st = sn_png_encode(small, tw, th, &s->png[s->n_thumbs], &s->png_len[s->n_thumbs], err);
    free(small);
    if (!st)
        s->thumb_frame[s->n_thumbs++] = pic.frame;
    return st;
}

/* The message index of thumbnail k of n messages: evenly spaced, first and last included. */
static size_t thumb_index(size_t k, size_t n, int want)
{
    return want < 2 ? 0 : (size_t)((double)k * (double)(n - 1) / (want - 1) + 0.5);
}

/* Pass 2 over a picture stream: the thumbnails. */
static sn_status thumbnails(const char *path, rd_stream *s, sn_error *err)
{
    int want = s->count < SN_THUMBS ? (int)s->count : SN_THUMBS;
    sn_stream_reader *r = sn_stream_reader_open(path, err);
    if (!r)
        return err->status;
    sn_message m;
    sn_status st = SN_OK;
    for (size_t i = 0; s->n_thumbs < want && (st = sn_stream_reader_next(r, &m, err)) == SN_OK; i++)
        if (i == thumb_index((size_t)s->n_thumbs, s->count, want) && (st = thumb(r, s, err)))
            break;
    sn_stream_reader_close(r);
    /* a stream cut short: the thumbnails of what is there (read_stream made the note) */
    return st == SN_E_NOT_FOUND || (st == SN_E_INVALID && s->note[0]) ? SN_OK : st;
}

typedef struct caps { size_t paths, events, shapes; } caps;

/* world.debug's shapes of one message (plugins/debug/debug.c), up to RD_MAX_SHAPES in all. */
static bool debug_shapes(run_data *d, caps *cp, const msgpack_object *msg, double t)
{
    const msgpack_object *a = sn_mp_get(msg, "shapes");
    if (!a || a->type != MSGPACK_OBJECT_ARRAY)
        return true;
    for (uint32_t i = 0; i < a->via.array.size; i++) {
        const msgpack_object *o = &a->via.array.ptr[i];
        char kind[16];
        str_of(sn_mp_get(o, "kind"), kind, sizeof kind);
        rd_shape sh = {.kind = kind[0], .t = t, .a = {NAN, NAN}, .b = {NAN, NAN}, .life = -1};
        num(sn_mp_get(o, "life_time"), &sh.life);
        const msgpack_object *c = sn_mp_get(o, "color");
        for (uint32_t k = 0; c && c->type == MSGPACK_OBJECT_ARRAY && k < 4 && k < c->via.array.size; k++) {
            double v = 0;
            num(&c->via.array.ptr[k], &v);
            sh.rgba[k] = (uint8_t)fmin(fmax(v, 0), 255);
        }
        bool ok = false;
        if (!strcmp(kind, "point") || !strcmp(kind, "string")) {
            ok = xy(sn_mp_get(o, "location"), &sh.a);
            num(sn_mp_get(o, "size"), &sh.size);
            str_of(sn_mp_get(o, "text"), sh.text, sizeof sh.text);
        } else if (!strcmp(kind, "line") || !strcmp(kind, "arrow")) {
            ok = xy(sn_mp_get(o, "begin"), &sh.a) && xy(sn_mp_get(o, "end"), &sh.b);
            num(sn_mp_get(o, "thickness"), &sh.size);
        } else if (!strcmp(kind, "box")) {
            const msgpack_object *r = sn_mp_get(o, "rotation");
            ok = xy(sn_mp_get(o, "location"), &sh.a) && xy(sn_mp_get(o, "extent"), &sh.b) && r &&
                 r->type == MSGPACK_OBJECT_ARRAY && r->via.array.size == 3 && num(&r->via.array.ptr[1], &sh.yaw);
            num(sn_mp_get(o, "thickness"), &sh.size);
        }
        bool two = sh.kind == 'l' || sh.kind == 'a' || sh.kind == 'b';
        ok = ok && isfinite(sh.a.x) && isfinite(sh.a.y) && (!two || (isfinite(sh.b.x) && isfinite(sh.b.y)));
        if (!ok)
            continue; /* the view checks shapes (mcap_debug.c); the report shows what it can */
        if (d->n_shapes >= RD_MAX_SHAPES) {
            d->shapes_left_out++;
            continue;
        }
        if (!sn_grow_array((void **)&d->shapes, &cp->shapes, d->n_shapes + 1, sizeof *d->shapes))
            return false;
        d->shapes[d->n_shapes++] = sh;
    }
    return true;
}

/* One stream: counts, times, its sensor's path, collision events, pictures. */
static sn_status read_stream(run_data *d, caps *cp, const char *path, rd_stream *s, bool sensor_paths, sn_error *err)
{
    sn_stream_reader *r = sn_stream_reader_open(path, err);
    if (!r)
        return err->status;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    rd_path *trace = NULL;
    size_t tcap = 0, path_index = 0;
    sn_status st;
    sn_message m;
    while ((st = sn_stream_reader_next(r, &m, err)) == SN_OK) {
        if (s->count == 0) {
            snprintf(s->sensor, sizeof s->sensor, "%s", m.sensor);
            snprintf(s->type, sizeof s->type, "%s", m.type_id);
            sn_picture pic;
            sn_error ignored;
            if (sn_stream_reader_picture(r, SN_COLOR_RAW, false, &pic, &ignored) == SN_OK)
                s->w = pic.width, s->h = pic.height;
            if (sensor_paths && strcmp(m.type_id, "sensor.other.debug") != 0) { /* it draws, it does not move */
                if (!(trace = new_path(d, &cp->paths))) {
                    st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
                    break;
                }
                path_index = d->n_paths - 1;
                snprintf(trace->name, sizeof trace->name, "sensor %s", m.sensor);
                snprintf(trace->kind, sizeof trace->kind, "%s", m.type_id);
            }
        }
        if (!sn_grow_array((void **)&s->t, &tcap, s->count + 1, sizeof *s->t)) {
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        s->t[s->count++] = m.timestamp;
        d->t_min = fmin(d->t_min, m.timestamp), d->t_max = fmax(d->t_max, m.timestamp);
        d->frame_min = m.frame < d->frame_min ? m.frame : d->frame_min;
        d->frame_max = m.frame > d->frame_max ? m.frame : d->frame_max;
        size_t off = 0;
        if (msgpack_unpack_next(&u, m.data, m.size, &off) != MSGPACK_UNPACK_SUCCESS)
            continue; /* the reader checked it: cannot happen */
        rd_pt at = {NAN, NAN};
        xy(sn_mp_get(sn_mp_get(&u.data, "transform"), "location"), &at);
        if (trace && !add_point(&d->paths[path_index], at.x, at.y)) {
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        if (!strcmp(m.type_id, "sensor.other.debug") && !debug_shapes(d, cp, &u.data, m.timestamp)) {
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        if (!d->paths_from_recording && !strcmp(m.type_id, "sensor.other.collision")) {
            rd_event ev = {.at = at, .t = m.timestamp, .frame = m.frame, .key_a = (uint64_t)(s - d->streams) + 1};
            xy(sn_mp_get(&u.data, "location"), &ev.at); /* the contact point when the sensor gives it */
            char other[128];
            double oid = 0;
            str_of(sn_mp_get(sn_mp_get(&u.data, "other_actor"), "type_id"), other, sizeof other);
            num(sn_mp_get(sn_mp_get(&u.data, "other_actor"), "id"), &oid);
            ev.key_b = (uint64_t)oid;
            snprintf(ev.what, sizeof ev.what, "%.80s: collision with %.100s (id %.0f)", m.sensor,
                     other[0] ? other : "an actor", oid);
            char self[128];
            str_of(sn_mp_get(sn_mp_get(&u.data, "actor"), "type_id"), self, sizeof self);
            snprintf(ev.kind_a, sizeof ev.kind_a, "%s", kind_of(self));
            snprintf(ev.kind_b, sizeof ev.kind_b, "%s", kind_of(other));
            if (!add_event(d, &cp->events, ev)) {
                st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
                break;
            }
        }
    }
    msgpack_unpacked_destroy(&u);
    sn_stream_reader_close(r);
    if (st == SN_E_INVALID) { /* a run killed mid-way, a damaged file: what came before is shown */
        snprintf(s->note, sizeof s->note, "; %s", err->msg);
        st = SN_E_NOT_FOUND;
    }
    if (st == SN_E_NOT_FOUND)
        st = s->w && s->count ? thumbnails(path, s, err) : SN_OK;
    return st;
}

/* ---- the recording ---- */

static rd_path *find_path(run_data *d, uint32_t id)
{
    for (size_t i = 0; i < d->n_paths; i++)
        if (d->paths[i].id == id)
            return &d->paths[i];
    return NULL;
}

static sn_status read_recording(run_data *d, caps *cp, sn_recording *rec, sn_error *err)
{
    sn_log_info info = {.struct_size = sizeof info};
    if (sn_recording_info(rec, &info, err) != SN_OK)
        return err->status;
    if (!d->scene[0])
        snprintf(d->scene, sizeof d->scene, "%s", info.scene);
    if (!d->has_seed)
        d->has_seed = true, d->seed = info.seed;
    if (d->dt == 0)
        d->dt = info.fixed_delta_seconds;
    if (info.end != SN_LOG_END_COMPLETE)
        snprintf(d->rec_note, sizeof d->rec_note, "%s", info.end_reason);
    d->paths_from_recording = true;
    const sn_log_frame *f;
    sn_status st;
    while ((st = sn_recording_next(rec, &f, err)) == SN_OK) {
        for (uint32_t i = 0; i < f->n_added; i++) {
            const sn_log_add *a = &f->added[i];
            if (a->type == SN_LOG_SENSOR || find_path(d, a->id) || !strcmp(a->blueprint, "static.ground"))
                continue;
            rd_path *p = new_path(d, &cp->paths);
            if (!p)
                return sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            p->id = a->id;
            if (a->name[0])
                snprintf(p->name, sizeof p->name, "%s", a->name);
            else
                snprintf(p->name, sizeof p->name, "%s %u", a->blueprint, a->id);
            snprintf(p->kind, sizeof p->kind, "%s", a->blueprint);
            p->is_static = a->type != SN_LOG_VEHICLE && a->type != SN_LOG_WALKER;
            if (!add_point(p, a->transform.location.x, a->transform.location.y))
                return sn_cli_fail(err, SN_E_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < f->n_poses; i++) {
            rd_path *p = find_path(d, f->poses[i].id);
            if (p && !add_point(p, f->poses[i].transform.location.x, f->poses[i].transform.location.y))
                return sn_cli_fail(err, SN_E_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < f->n_collisions; i++) {
            const sn_log_collision *c = &f->collisions[i];
            rd_path *a = find_path(d, c->actor1), *b = find_path(d, c->actor2);
            /* the frame's time as its streams stamp it, the end of its interval (the recorder's
            ** clock starts the first frame at 0, CARLA's; `sensim run --record` starts at the load) */
            rd_event ev = {.at = a && a->n ? a->pts[a->n - 1] : (rd_pt){NAN, NAN}, .t = f->elapsed + f->duration,
                           .frame = f->frame,
                           .key_a = c->actor1 < c->actor2 ? c->actor1 : c->actor2,
                           .key_b = c->actor1 < c->actor2 ? c->actor2 : c->actor1};
            snprintf(ev.what, sizeof ev.what, "%.100s and %.100s", a ? a->name : "an actor", b ? b->name : "an actor");
            /* the one actor without a path is the ground (static.ground) */
            snprintf(ev.kind_a, sizeof ev.kind_a, "%s", a ? kind_of(a->kind) : "static");
            snprintf(ev.kind_b, sizeof ev.kind_b, "%s", b ? kind_of(b->kind) : "static");
            if (!add_event(d, &cp->events, ev))
                return sn_cli_fail(err, SN_E_NOMEM, "out of memory");
        }
    }
    if (st == SN_E_INVALID) { /* a damaged frame: the frames before it are shown */
        snprintf(d->rec_note, sizeof d->rec_note, "%s", err->msg);
        st = SN_E_NOT_FOUND;
    }
    return st == SN_E_NOT_FOUND ? SN_OK : st;
}

/* ---- stats.json (sensim run --stats) ---- */

static bool json_num(const char *text, const char *name, double *v)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", name);
    const char *p = strstr(text, pat);
    if (!p)
        return false;
    char *end;
    *v = strtod(p + strlen(pat), &end);
    return end != p + strlen(pat);
}

static void read_stats(run_data *d)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/stats.json", d->dir);
    const char *what = NULL;
    FILE *f = sn_cli_open_input(path, &what); /* a FIFO blocked the report for ever (issue 33 item 19) */
    if (!f) {
        if (what)
            fprintf(stderr, "sensim: warning: report: %s is %s, not a file: the run's timers are left out\n", path,
                    what);
        return;
    }
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    d->has_stats = json_num(text, "frames", &d->frames) && json_num(text, "sim_time", &d->sim_time);
    json_num(text, "messages", &d->messages);
    json_num(text, "sensors", &d->sensors);
    json_num(text, "time_world", &d->time_world);
    json_num(text, "time_sensors", &d->time_sensors);
    json_num(text, "time_output", &d->time_output);
    double seed;
    if (json_num(text, "seed", &seed))
        d->has_seed = true, d->seed = (uint64_t)seed;
    const char *s = strstr(text, "\"scene\":\"");
    if (s) { /* the path as written (a JSON string without escapes in practice; escapes are kept) */
        s += 9;
        const char *e = s;
        while (*e && !(*e == '"' && e[-1] != '\\'))
            e++;
        snprintf(d->scene, sizeof d->scene, "%.*s", (int)(e - s), s);
    }
}

/* ---- run.json's traffic_health (sn_engine_traffic_health_json's layout) ---- */

const char *const sn_rd_health_keys[RD_HEALTH_FIELDS] = {
    "start", "duration", "vehicles", "standing", "crawling", "flipped", "red_light_crossings", "autopilot_collisions",
    "deadlocks_resolved", "lane_changes"};

/* The object starting at p ('{') into *h; the end of the object, NULL when it has none. */
static const char *health_object(const char *p, rd_health *h)
{
    const char *end = strchr(p, '}');
    if (!end)
        return NULL;
    for (int k = 0; k < RD_HEALTH_FIELDS; k++) {
        char pat[48];
        int n = snprintf(pat, sizeof pat, "\"%s\":", sn_rd_health_keys[k]);
        const char *q = strstr(p, pat);
        h->v[k] = q && q < end ? strtod(q + n, NULL) : 0;
    }
    return end + 1;
}

/* Fails quietly: a run without run.json (or an older one) has no health section on the page. */
static bool read_health(run_data *d)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", d->dir);
    struct stat sb;
    if (stat(path, &sb) || !S_ISREG(sb.st_mode) || sb.st_size > (64 << 20))
        return true;
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    char *text = malloc((size_t)sb.st_size + 1);
    size_t n = text ? fread(text, 1, (size_t)sb.st_size, f) : 0;
    fclose(f);
    if (!text)
        return false;
    text[n] = 0;
    const char *th = strstr(text, "\"traffic_health\":{"), *t = th ? strstr(th, "\"totals\":{") : NULL;
    const char *w = t ? strstr(t, "\"windows\":[") : NULL;
    if (!w || !health_object(t + 9, &d->health_totals)) {
        free(text);
        return true;
    }
    d->has_health = true;
    size_t cap = 0;
    for (const char *p = w + 11; *p == '{' || *p == ',';) {
        if (*p == ',')
            p++;
        rd_health h;
        const char *next = *p == '{' ? health_object(p, &h) : NULL;
        if (!next)
            break;
        if (!sn_grow_array((void **)&d->health, &cap, d->n_health + 1, sizeof *d->health)) {
            free(text);
            return false;
        }
        d->health[d->n_health++] = h;
        p = next;
    }
    free(text);
    return true;
}

sn_status sn_run_data_read(const char *dir, run_data *d, sn_error *err)
{
    memset(d, 0, sizeof *d);
    d->t_min = INFINITY, d->t_max = -INFINITY, d->frame_min = UINT64_MAX;
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    DIR *dd = opendir(dir);
    if (!dd)
        return sn_cli_fail(err, SN_E_INVALID, "%s: cannot read the run folder: %s", dir, strerror(errno));
    char **names = NULL;
    size_t n = 0, ncap = 0;
    struct dirent *de;
    sn_status st = SN_OK;
    while ((de = readdir(dd))) {
        if (de->d_name[0] == '.')
            continue;
        char *copy = strdup(de->d_name);
        if (!copy || !sn_grow_array((void **)&names, &ncap, n + 1, sizeof *names)) {
            free(copy);
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        names[n++] = copy;
    }
    closedir(dd);
    if (n)
        qsort(names, n, sizeof *names, by_name); /* the page does not depend on the folder's order */
    read_stats(d);
    if (!read_health(d))
        st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
    caps cp = {0, 0, 0};
    /* a recording first: it names every actor, so the streams' sensor paths are not needed */
    for (size_t i = 0; !st && i < n && !d->recording[0]; i++) {
        char path[8200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (ends_with(names[i], ".msgpack") || ends_with(names[i], ".json") || stat(path, &sb) || !S_ISREG(sb.st_mode))
            continue;
        sn_engine_options o = {.quiet_plugins = true};
        sn_recording *rec = sn_recording_open(path, &o, NULL);
        if (!rec)
            continue;
        snprintf(d->recording, sizeof d->recording, "%s", names[i]);
        st = read_recording(d, &cp, rec, err);
        sn_recording_close(rec);
        /* a recording cut before any actor moved: the sensors' paths from the streams instead */
        d->paths_from_recording = d->n_paths > 0;
    }
    size_t scap = 0;
    for (size_t i = 0; !st && i < n; i++) {
        char path[8200];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!ends_with(names[i], ".msgpack") || stat(path, &sb) || !S_ISREG(sb.st_mode))
            continue;
        if (!sn_grow_array((void **)&d->streams, &scap, d->n_streams + 1, sizeof *d->streams)) {
            st = sn_cli_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        rd_stream *s = &d->streams[d->n_streams++];
        memset(s, 0, sizeof *s);
        snprintf(s->file, sizeof s->file, "%s", names[i]);
        st = read_stream(d, &cp, path, s, !d->paths_from_recording, err);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!st && d->n_streams == 0)
        st = sn_cli_fail(err, SN_E_INVALID, "%s holds no stream (<sensor>.msgpack): not a run's output folder", dir);
    return st;
}

void sn_run_data_free(run_data *d)
{
    for (size_t i = 0; i < d->n_streams; i++) {
        free(d->streams[i].t);
        for (int k = 0; k < d->streams[i].n_thumbs; k++)
            free(d->streams[i].png[k]);
    }
    for (size_t i = 0; i < d->n_paths; i++)
        free(d->paths[i].pts);
    if (d->n_lanes)
        free(d->lanes[0].pts); /* one block for every lane (run_map.c) */
    free(d->lanes);
    free(d->streams);
    free(d->paths);
    free(d->events);
    free(d->health);
    free(d->shapes);
    memset(d, 0, sizeof *d);
}
