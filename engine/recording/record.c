/* record.c — recordings through the plugins' log readers (sensim/reader.h): open,
** describe, seek, next; and sn_engine_record, which adds the recorder sensor to a run.
** The engine knows no file layout: everything about bytes is in the plugin. */
#include "recording.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"
#include "../core/sha256.h"
#include "../map/lanemap.h"
#include "../sim/engine.h"
#include "../output/outdir.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sn_recording *sn_recording_open_with(const sn_library *lib, const char *path, sn_error *err)
{
    if (!path)
        return sn_fail(err, SN_E_INVALID, "recording: NULL path"), NULL;
    FILE *f = sn_open_input(path, "recording", err); /* a FIFO would block, and a recording is read with seeks */
    if (!f)
        return NULL;
    unsigned char head[64];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t readers = 0;
    for (size_t i = 0; i < lib->n_plugins; i++) {
        const sn_plugin_file *pf = lib->plugins[i];
        if (!pf->has_reader)
            continue;
        readers++;
        if (!pf->reader.probe(head, n))
            continue;
        sn_recording *r = calloc(1, sizeof *r);
        if (!r)
            return sn_fail(err, SN_E_NOMEM, "out of memory"), NULL;
        r->rd = &pf->reader;
        char why[512] = "";
        sn_status st = r->rd->open(path, &r->self, why, sizeof why);
        if (st) {
            free(r);
            return sn_fail(err, st == SN_E_IO ? SN_E_IO : SN_E_INVALID, "%s: %s", path, why), NULL;
        }
        r->path = sn_strdup(path);
        return r;
    }
    if (!readers)
        return sn_fail(err, SN_E_INVALID, "%s: no loaded plugin reads recordings (is the recorder plugin on the "
                       "plugin path? see `sensim plugins`)", path), NULL;
    return sn_fail(err, SN_E_INVALID, "%s: not a recording (no loaded reader recognises it)", path), NULL;
}

sn_recording *sn_recording_open(const char *path, const sn_engine_options *opts, sn_error *err)
{
    sn_library *lib = calloc(1, sizeof *lib);
    if (!lib)
        return sn_fail(err, SN_E_NOMEM, "out of memory"), NULL;
    if (sn_library_init(lib, err) != SN_OK) {
        free(lib);
        return NULL;
    }
    if (opts) {
        lib->quiet = opts->quiet_plugins;
        lib->log = opts->log, lib->log_user = opts->log_user;
    }
    sn_recording *r = NULL;
    if (sn_library_load_search_path(lib, opts ? opts->plugin_dir : NULL, err) == SN_OK)
        r = sn_recording_open_with(lib, path, err);
    if (!r) {
        sn_library_free(lib);
        free(lib);
        return NULL;
    }
    r->own_lib = lib;
    return r;
}

void sn_recording_close(sn_recording *r)
{
    if (!r)
        return;
    r->rd->close(r->self); /* before its plugin is closed */
    if (r->own_lib) {
        sn_library_free(r->own_lib);
        free(r->own_lib);
    }
    free(r->path);
    free(r);
}

sn_status sn_recording_info(sn_recording *r, sn_log_info *out, sn_error *err)
{
    if (!r || !out || out->struct_size < sizeof *out)
        return sn_fail(err, SN_E_INVALID, "recording info: NULL recording, or struct_size below sizeof(sn_log_info)");
    sn_status st = r->rd->describe(r->self, out);
    return st ? sn_fail(err, st, "%s: %s", r->path, r->rd->error(r->self)) : SN_OK;
}

sn_status sn_recording_seek(sn_recording *r, double time, sn_error *err)
{
    if (!r || time != time)
        return sn_fail(err, SN_E_INVALID, "recording seek: NULL recording or NaN time");
    sn_status st = r->rd->seek(r->self, time);
    return st ? sn_fail(err, st, "%s: %s", r->path, r->rd->error(r->self)) : SN_OK;
}

sn_status sn_recording_next(sn_recording *r, const sn_log_frame **out, sn_error *err)
{
    if (!r || !out)
        return sn_fail(err, SN_E_INVALID, "recording next: NULL recording or out");
    sn_status st = r->rd->next(r->self, out);
    if (st == SN_E_NOT_FOUND)
        return SN_E_NOT_FOUND; /* the end: not an error */
    return st ? sn_fail(err, st, "%s: %s", r->path, r->rd->error(r->self)) : SN_OK;
}

sn_status sn_engine_record(sn_engine *e, const sn_record_options *o, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !o || o->struct_size < sizeof *o || !o->file || !o->file[0])
        return sn_fail(err, SN_E_INVALID, "record: NULL engine, options or file (or struct_size too small)");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "record: no scene loaded");
    if (!sn_library_find(&e->lib, "sensor.other.recorder"))
        return sn_fail(err, SN_E_NOT_FOUND, "record: the recorder plugin (sensor.other.recorder) is not loaded "
                       "(see `sensim plugins`)");
    if (e->rec_stage)
        return sn_fail(err, SN_E_STATE, "record: this run records to %s already", e->rec_final);
    /* Staged like every output: written to a fresh file beside its name (mkstemp: exclusive,
    ** never through a link) and renamed over it only when the run ends well, so a killed or
    ** failed run never replaces an existing recording with a partial one. */
    sn_status st = sn_outdir_check_dest(o->file, false, err);
    if (st)
        return sn_error_prefix(err, "record");
    const char *slash = strrchr(o->file, '/');
    size_t dlen = slash ? (size_t)(slash - o->file) + 1 : 0;
    size_t n = strlen(o->file) + 40;
    char *stage = malloc(n);
    if (!stage)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    snprintf(stage, n, "%.*s.%s.sensim-partial-XXXXXX", (int)dlen, o->file, o->file + dlen);
    int fd = mkstemp(stage);
    if (fd < 0) {
        st = sn_fail(err, SN_E_IO, "record: %s: cannot write the recording: %s", o->file, strerror(errno));
        free(stage);
        return st;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um); /* as a file fopen would create */
    close(fd);
    char seed[32], date[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)e->seed);
    snprintf(date, sizeof date, "%lld", (long long)o->date);
    /* the map, by absolute path and by the SHA-256 of the text loaded, so a replay can load it
    ** again and tell when the file changed since (issue 33 item 4) */
    char map_abs[PATH_MAX] = "", map_sha[65] = "";
    if (e->map && e->scene.map_path) {
        if (!realpath(e->scene.map_path, map_abs))
            snprintf(map_abs, sizeof map_abs, "%s", e->scene.map_path);
        sn_sha256_of(e->map->xml, e->map->xml_size, map_sha);
    }
    sn_attribute attrs[] = {{"file", stage}, {"additional_data", o->additional_data ? "true" : "false"},
                            {"date", date}, {"scene", e->scene.path ? e->scene.path : ""}, {"seed", seed},
                            {"map", map_abs}, {"map_sha256", map_sha}};
    sn_actor_desc d = {sizeof d, "sensor.other.recorder", "recorder", {{0, 0, 0}, {0, 0, 0}}, 0, 0, attrs, 7};
    e->recorder_closed = sn_recording_commit; /* spawn.c and the frame call it, knowing no recording */
    e->spawning_internal = true; /* no stream, no name taken, not counted as the scene's sensor */
    st = sn_engine_spawn(e, &d, &e->rec_actor, err);
    e->spawning_internal = false;
    if (st) {
        remove(stage);
        free(stage);
        return sn_error_prefix(err, "record");
    }
    e->rec_stage = stage;
    e->rec_final = sn_strdup(o->file);
    e->rec_frame0 = e->clock.frame;
    return SN_OK;
}

sn_status sn_engine_stop_recording(sn_engine *e, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e)
        return sn_fail(err, SN_E_INVALID, "stop_recording: NULL engine");
    if (!e->rec_actor || !e->rec_stage)
        return sn_fail(err, SN_E_STATE, "stop_recording: nothing is being recorded");
    return sn_engine_destroy_actor(e, e->rec_actor, err); /* commits (spawn.c) */
}

void sn_recording_commit(sn_engine *e)
{
    e->rec_actor = 0;
    if (!e->rec_stage)
        return;
    if (e->clock.frame == e->rec_frame0) { /* nothing recorded: the run never started */
        remove(e->rec_stage);
    } else if (e->run_failed || !e->rec_final || rename(e->rec_stage, e->rec_final) != 0) {
        if (!e->opts.quiet_plugins || e->run_failed)
            fprintf(stderr, "sensim: note: recording of the failed run left in %s; %s left as it was\n", e->rec_stage,
                    e->rec_final ? e->rec_final : "");
    }
    free(e->rec_stage);
    free(e->rec_final);
    e->rec_stage = e->rec_final = NULL;
}
