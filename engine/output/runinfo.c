/* runinfo.c — see runinfo.h. */
#include "runinfo.h"

#include <sensim/map.h>

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"
#include "../scene/yamldoc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An absolute path with links resolved; a path that does not exist yet is taken as given
** against the working folder. */
static bool absolute(const char *p, char *out)
{
    if (realpath(p, out))
        return true;
    if (p[0] == '/')
        return snprintf(out, PATH_MAX, "%s", p) < PATH_MAX;
    char cwd[PATH_MAX];
    return getcwd(cwd, sizeof cwd) && snprintf(out, PATH_MAX, "%s/%s", cwd, p) < PATH_MAX;
}

bool sn_path_relative(const char *from, const char *to, char *out, size_t cap)
{
    char a[PATH_MAX], b[PATH_MAX];
    if (!absolute(from, a) || !absolute(to, b))
        return false;
    /* the common folder: the longest prefix ending at a '/' (or at the end of `a`) */
    size_t common = 0;
    for (size_t i = 0; a[i] && a[i] == b[i]; i++)
        if (a[i] == '/')
            common = i;
    size_t la = strlen(a);
    if (strncmp(a, b, la) == 0 && (b[la] == '/' || b[la] == 0))
        common = la;
    if (common == 0) /* only the root in common: a relative path would move no better */
        return snprintf(out, cap, "%s", b) < (int)cap;
    size_t n = 0;
    out[0] = 0;
    for (const char *p = a + common; *p; p++) /* one ".." per folder of `a` below the common one */
        if (*p == '/' && p[1] && p[1] != '/') {
            int w = snprintf(out + n, cap - n, "../");
            if (w < 0 || (size_t)w >= cap - n)
                return false;
            n += (size_t)w;
        }
    const char *rest = b + common + (b[common] == '/');
    int w = snprintf(out + n, cap - n, "%s", rest);
    if (w < 0 || (size_t)w >= cap - n)
        return false;
    if (!out[0])
        snprintf(out, cap, ".");
    return true;
}

sn_status sn_runinfo_write(const char *stage, const char *run_dir, const char *scene, const char *map, uint64_t seed,
                           const sn_runinfo_member *health, sn_error *err)
{
    return sn_runinfo_write_with(stage, run_dir, scene, map, seed, health, NULL, err);
}

sn_status sn_runinfo_write_with(const char *stage, const char *run_dir, const char *scene, const char *map,
                                uint64_t seed, const sn_runinfo_member *health, const char *extra, sn_error *err)
{
    char path[PATH_MAX + 16], rel[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", stage, SN_RUNINFO_FILE);
    FILE *f = fopen(path, "wx");
    if (!f)
        return sn_fail(err, SN_E_IO, "%s: cannot write: %s", path, strerror(errno));
    fputs("{\"format\":\"sensim-run 1\"", f);
    /* relative to the run folder: it and the scene's tree can move together */
    if (scene && sn_path_relative(run_dir, scene, rel, sizeof rel))
        fputs(",\"scene\":", f), sn_json_str(f, rel);
    if (map && sn_path_relative(run_dir, map, rel, sizeof rel))
        fputs(",\"map\":", f), sn_json_str(f, rel);
    fprintf(f, ",\"seed\":%llu", (unsigned long long)seed);
    if (health) {
        fputs(",", f), sn_json_str(f, health->key), fputs(":", f);
        health->write(health->obj, f);
    }
    if (extra && extra[0])
        fprintf(f, ",%s", extra);
    fputs("}\n", f);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return sn_fail(err, SN_E_IO, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
    return SN_OK;
}

sn_status sn_run_map_path(const char *run_dir, char *path, size_t cap, sn_error *err)
{
    if (!run_dir || !path || !cap)
        return sn_fail(err, SN_E_INVALID, "run map: NULL folder or buffer");
    path[0] = 0;
    char file[PATH_MAX + 16], text[4 * PATH_MAX], rel[PATH_MAX];
    snprintf(file, sizeof file, "%s/%s", run_dir, SN_RUNINFO_FILE);
    sn_error ferr = {0};
    FILE *f = sn_open_input(file, "run note", &ferr);
    if (!f)
        return sn_fail(err, SN_E_NOT_FOUND, "%s", ferr.msg);
    size_t n = fread(text, 1, sizeof text - 1, f);
    bool more = fgetc(f) != EOF;
    fclose(f);
    text[n] = 0;
    if (more || memchr(text, 0, n))
        return sn_fail(err, SN_E_INVALID, "%s: not a run note: larger than %zu bytes, or not text", file, sizeof text - 1);
    /* A real JSON read (JSON is YAML's flow style: the scene reader's parser), so `"map": "x"`
    ** as json.dump and jq write it is read as `"map":"x"` is (issue 33 item 22). */
    sn_ynode *root = NULL;
    sn_error perr = {0};
    if (sn_ydoc_parse_value(text, NULL, file, &root, &perr) || !root || root->kind != SN_Y_MAP) {
        sn_ynode_free(root);
        return sn_fail(err, SN_E_INVALID, "%s: not a run note (a JSON object)%s%s", file, perr.msg[0] ? ": " : "",
                       perr.msg);
    }
    const sn_ynode *v = sn_ynode_get(root, "map");
    bool named = v && v->kind == SN_Y_SCALAR && v->quoted && v->text[0];
    if (named)
        snprintf(rel, sizeof rel, "%s", v->text);
    bool too_long = named && strlen(v->text) >= sizeof rel;
    sn_ynode_free(root);
    if (!named) /* absent, null, or "": no map (an empty path once resolved to the run folder) */
        return sn_fail(err, SN_E_NOT_FOUND, "%s names no map", file);
    if (too_long)
        return sn_fail(err, SN_E_RANGE, "%s: the map's path is longer than %zu bytes", file, sizeof rel - 1);
    int w = rel[0] == '/' ? snprintf(path, cap, "%s", rel) : snprintf(path, cap, "%s/%s", run_dir, rel);
    if (w < 0 || (size_t)w >= cap) {
        path[0] = 0;
        return sn_fail(err, SN_E_RANGE, "%s: the map's path is longer than %zu bytes", file, cap - 1);
    }
    return SN_OK;
}
