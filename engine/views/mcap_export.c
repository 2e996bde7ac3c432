/* mcap_export.c — sn_mcap_export: a run's output folder as one MCAP file. Every stream
** DIR/<sensor>.msgpack is read with the engine's stream reader (data/msgread.h) and the
** messages merged by (frame, the actors stream first, sensor id), each stream's own order kept: the order a live run's
** frames are written in (mcap_view.c), so --mcap and the export give the same file. */
#include "mcap_view.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../core/infile.h"
#include "../data/msgread.h"
#include "../scene/yamldoc.h"
#include "../scenario/scenario.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct head {
    sn_msgreader r;
    char *path;
    const uint8_t *msg; /* the stream's next message, NULL at its end */
    size_t len;
    uint64_t frame;
    bool later; /* not the actors stream (mcap_view.c's order) */
    uint32_t sensor_id;
    /* the message parsed once, here, for the merge and the conversion both (it was parsed
    ** twice); the zone's memory is kept from message to message */
    msgpack_zone zone;
    bool zone_ok;
    msgpack_object obj;
} head;

/* Room for a whole actors message's objects (about 150 actors a frame) in the zone's first
** chunk, which msgpack_zone_clear keeps. */
#define ZONE_BYTES (256u << 10)

static sn_status advance(head *h, sn_error *err)
{
    sn_status st = sn_msgreader_next(&h->r, &h->msg, &h->len, err);
    if (st == SN_E_NOT_FOUND) {
        h->msg = NULL;
        return SN_OK;
    }
    if (st)
        return st;
    size_t off = 0;
    const msgpack_object *f, *s;
    if (!h->zone_ok) {
        if (!msgpack_zone_init(&h->zone, ZONE_BYTES))
            return sn_fail(err, SN_E_NOMEM, "out of memory");
        h->zone_ok = true;
    } else
        msgpack_zone_clear(&h->zone);
    msgpack_unpack_return ur = msgpack_unpack((const char *)h->msg, h->len, &off, &h->zone, &h->obj);
    char type[128], sensor[32];
    const bool ok = ur == MSGPACK_UNPACK_SUCCESS || ur == MSGPACK_UNPACK_EXTRA_BYTES;
    /* A scenario's storyboard log (storyboard.msgpack; from before its type key, its sensor
    ** "storyboard" alone) is no sensor's stream and a live --mcap carries none: left out, so the
    ** export still equals the run's --mcap. */
    if (ok && (sn_mp_str(sn_mp_get(&h->obj, "type"), type, sizeof type)
                   ? strcmp(type, SN_STORYBOARD_TYPE) == 0
                   : sn_mp_str(sn_mp_get(&h->obj, "sensor"), sensor, sizeof sensor) && strcmp(sensor, "storyboard") == 0)) {
        h->msg = NULL;
        return SN_OK;
    }
    if (!ok ||
        !(f = sn_mp_get(&h->obj, "frame")) || f->type != MSGPACK_OBJECT_POSITIVE_INTEGER ||
        !(s = sn_mp_get(&h->obj, "sensor_id")) || s->type != MSGPACK_OBJECT_POSITIVE_INTEGER || s->via.u64 > UINT32_MAX)
        return sn_fail(err, SN_E_INVALID, "%s: message %llu has no frame or sensor_id", h->path,
                       (unsigned long long)h->r.count);
    if (f->via.u64 < h->frame)
        return sn_fail(err, SN_E_INVALID, "%s: message %llu goes back in frames", h->path, (unsigned long long)h->r.count);
    h->frame = f->via.u64;
    h->sensor_id = (uint32_t)s->via.u64;
    h->later = !(sn_mp_str(sn_mp_get(&h->obj, "type"), type, sizeof type) && sn_mcap_is_actors(type));
    return SN_OK;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The stream files of dir, sorted by name. */
static sn_status list_streams(const char *dir, char ***out, size_t *n, sn_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sn_fail(err, errno == ENOENT || errno == ENOTDIR ? SN_E_INVALID : SN_E_IO,
                       "%s: cannot read the run folder: %s", dir, strerror(errno));
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    sn_status st = SN_OK;
    struct dirent *de;
    while (!st && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len <= 8 || strcmp(de->d_name + len - 8, ".msgpack") != 0)
            continue;
        char *p = malloc(strlen(dir) + len + 2);
        if (!p || !sn_grow((void **)&v, &cap, *n + 1, sizeof *v)) {
            free(p);
            st = sn_fail(err, SN_E_NOMEM, "out of memory");
            break;
        }
        sprintf(p, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            free(p);
            continue;
        }
        v[(*n)++] = p;
    }
    closedir(d);
    if (!st && !*n)
        st = sn_fail(err, SN_E_INVALID, "%s: no streams (*.msgpack) in this folder; is it a run's --out?", dir);
    if (st) {
        for (size_t i = 0; i < *n; i++)
            free(v[i]);
        free(v);
        return st;
    }
    qsort(v, *n, sizeof *v, by_name);
    *out = v;
    return SN_OK;
}

/* run.json's "saved" (the cameras whose `save:` wrote PNGs, engine.c) into m: their files are
** taken instead of encoding the pictures again. A run without the note, or a note without it,
** has none: every picture is encoded (as before). */
static sn_status load_saved(sn_mcap *m, const char *run_dir, sn_error *err)
{
    char path[4200];
    if (snprintf(path, sizeof path, "%s/run.json", run_dir) >= (int)sizeof path)
        return SN_OK;
    sn_error ferr = {0};
    FILE *f = sn_open_input(path, "run note", &ferr);
    if (!f)
        return SN_OK;
    char *text = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            char *t = realloc(text, cap = 2 * cap + 65536);
            if (!t) {
                free(text);
                fclose(f);
                return sn_fail(err, SN_E_NOMEM, "out of memory");
            }
            text = t;
        }
        size_t k = fread(text + n, 1, cap - n - 1, f);
        n += k;
        if (!k || n > (64u << 20))
            break;
    }
    fclose(f);
    text[n] = 0;
    sn_ynode *root = NULL;
    sn_error perr = {0};
    const sn_ynode *list = NULL;
    if (!memchr(text, 0, n) && !sn_ydoc_parse_value(text, NULL, path, &root, &perr) && root && root->kind == SN_Y_MAP)
        list = sn_ynode_get(root, "saved");
    free(text);
    sn_status st = SN_OK;
    if (list && list->kind == SN_Y_SEQ && list->n && !(m->saved = calloc(list->n, sizeof *m->saved)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    for (size_t i = 0; !st && m->saved && i < list->n; i++) {
        const sn_ynode *e = list->items[i], *s, *p, *c;
        sn_converter conv;
        if (e->kind != SN_Y_MAP || !(s = sn_ynode_get(e, "sensor")) || !(p = sn_ynode_get(e, "path")) ||
            !(c = sn_ynode_get(e, "converter")) || s->kind != SN_Y_SCALAR || p->kind != SN_Y_SCALAR ||
            c->kind != SN_Y_SCALAR || !sn_converter_parse(c->text, &conv) || !sn_image_pattern_check(p->text, &perr))
            continue; /* not ours: those pictures are encoded */
        sn_mcap_saved *v = &m->saved[m->n_saved];
        v->sensor = sn_strdup(s->text), v->pattern = sn_strdup(p->text), v->conv = conv;
        if (!v->sensor || !v->pattern) {
            free(v->sensor), free(v->pattern);
            st = sn_fail(err, SN_E_NOMEM, "out of memory");
        } else
            m->n_saved++;
    }
    if (!st && m->n_saved && !(m->run_dir = sn_strdup(run_dir)))
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_ynode_free(root);
    return st;
}

/* The export with the map at map_path (loaded here, after the streams are open) or `given`. */
static sn_status export_run(const char *run_dir, const char *out, const char *map_path, const sn_map *given,
                            const sn_mcap_options *o, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!run_dir || !out)
        return sn_fail(err, SN_E_INVALID, "export: NULL %s", !run_dir ? "run folder" : "output");
    char **paths = NULL;
    size_t n = 0;
    sn_status st = list_streams(run_dir, &paths, &n, err);
    if (st)
        return st;
    head *h = calloc(n, sizeof *h);
    sn_map *map = NULL;
    sn_mcap *m = NULL;
    size_t opened = 0;
    if (!h)
        st = sn_fail(err, SN_E_NOMEM, "out of memory");
    for (; !st && opened < n; opened++) {
        h[opened].path = paths[opened];
        if (!(st = sn_msgreader_open_mapped(&h[opened].r, paths[opened], err)))
            st = advance(&h[opened], err);
        else
            break;
    }
    if (!st && map_path && !(map = sn_map_open(map_path, err)))
        st = err->status ? err->status : SN_E_INVALID;
    const sn_map *use = map ? map : given;
    if (!st && !(m = sn_mcap_create(out, o, err)))
        st = err->status ? err->status : SN_E_IO;
    if (!st)
        st = sn_mcap_add_map(m, use, err);
    if (!st)
        st = load_saved(m, run_dir, err);
    if (!st) /* layouts plugins of the search path declare (SDK 1.6), opened at the first message
             ** that could use one (sn_mcap_convert): a run of cameras and actors never opens them */
        m->layouts_lazy = true;
    while (!st) {
        head *best = NULL;
        for (size_t i = 0; i < n; i++)
            if (h[i].msg && (!best || h[i].frame < best->frame ||
                             (h[i].frame == best->frame && (h[i].later < best->later ||
                                                            (h[i].later == best->later && h[i].sensor_id < best->sensor_id)))))
                best = &h[i];
        if (!best)
            break;
        m->cur_stays = best->r.mapped; /* its bytes stay until the file is closed below */
        if ((st = sn_mcap_convert(m, best->msg, best->len, &best->obj, err)))
            sn_error_prefix(err, best->path);
        if (!st)
            st = advance(best, err);
    }
    /* an export that failed leaves nothing behind (unlike a run, it can simply be repeated) */
    char *part = m ? sn_strdup(sn_mcap_partial_path(m)) : NULL;
    sn_status cl = sn_mcap_close(m, !st, st ? NULL : err);
    if (!st)
        st = cl;
    if (st && part)
        unlink(part);
    free(part);
    for (size_t i = 0; i < opened && i < n; i++)
        sn_msgreader_close(&h[i].r);
    for (size_t i = 0; h && i < n; i++)
        if (h[i].zone_ok)
            msgpack_zone_destroy(&h[i].zone);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    free(h);
    sn_map_close(map);
    return st ? sn_error_prefix(err, "export") : SN_OK;
}

sn_status sn_mcap_export(const char *run_dir, const char *out, const char *map_path, const sn_mcap_options *o,
                         sn_error *err)
{
    return export_run(run_dir, out, map_path, NULL, o, err);
}

sn_status sn_mcap_export_map(const char *run_dir, const char *out, const sn_map *map, const sn_mcap_options *o,
                             sn_error *err)
{
    return export_run(run_dir, out, NULL, map, o, err);
}
