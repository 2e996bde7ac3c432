/* api_library.c — the public blueprint library (sensim.h "The blueprint library"): a read-only
** view of an sn_library, its own or a live engine's, with the pointer lists the public structs
** hand out built once at open so that the accessors allocate nothing. */
#include "../core/error.h"
#include "../plugin/attr.h"
#include "../plugin/library.h"
#include "../sim/engine.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sn_blueprints {
    sn_library own;          /* loaded by sn_blueprints_open; unused for an engine's view */
    bool owns;
    const sn_library *lib;   /* &own or the engine's */
    const sn_attr_def **attrs; /* every blueprint's attribute pointers, each run NULL-terminated */
    size_t *attr_first;      /* per blueprint: index of its run in attrs */
    const char **ids;        /* every plugin's blueprint ids, each run NULL-terminated */
    size_t *id_first;        /* per plugin file: index of its run in ids */
};

/* The public structs may be older (smaller) than ours: copy only what the caller knows. */
static sn_status fill_sized(void *out, const void *full, size_t full_size, sn_error *err)
{
    uint32_t want;
    memcpy(&want, out, sizeof want);
    if (want < sizeof(uint32_t))
        return sn_fail(err, SN_E_INVALID, "blueprints: struct_size is %u; set it to the struct's sizeof", want);
    memcpy((char *)out + sizeof want, (const char *)full + sizeof want,
           (want < full_size ? want : full_size) - sizeof want);
    return SN_OK;
}

static sn_blueprints *build_view(sn_blueprints *b, sn_error *err)
{
    const sn_library *lib = b->lib;
    size_t n_attrs = 0, n_ids = 0;
    for (size_t i = 0; i < lib->n_bps; i++)
        n_attrs += lib->bps[i].n_attrs + 1;
    for (size_t i = 0; i < lib->n_plugins; i++)
        n_ids += lib->plugins[i]->n_classes + 1;
    b->attrs = malloc(n_attrs * sizeof *b->attrs);
    b->attr_first = malloc((lib->n_bps + 1) * sizeof *b->attr_first);
    b->ids = malloc(n_ids * sizeof *b->ids);
    b->id_first = malloc((lib->n_plugins + 1) * sizeof *b->id_first);
    if (!b->attrs || !b->attr_first || !b->ids || !b->id_first) {
        sn_fail(err, SN_E_NOMEM, "blueprints: out of memory");
        sn_blueprints_close(b);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < lib->n_bps; i++) {
        const sn_blueprint *bp = &lib->bps[i];
        b->attr_first[i] = k;
        for (uint32_t j = 0; j < bp->n_attrs; j++)
            b->attrs[k++] = sn_attr_at(bp->attrs, bp->stride, j);
        b->attrs[k++] = NULL;
    }
    k = 0;
    for (size_t i = 0; i < lib->n_plugins; i++) {
        const sn_plugin_file *p = lib->plugins[i];
        b->id_first[i] = k;
        for (uint32_t j = 0; j < p->n_classes; j++)
            b->ids[k++] = p->classes[j].blueprint;
        b->ids[k++] = NULL;
    }
    return b;
}

sn_blueprints *sn_blueprints_open(const sn_engine_options *opts, sn_error *err)
{
    sn_engine_options o = {0};
    if (opts)
        o = *opts;
    sn_blueprints *b = calloc(1, sizeof *b);
    if (!b) {
        sn_fail(err, SN_E_NOMEM, "blueprints: out of memory");
        return NULL;
    }
    sn_error local;
    if (!err)
        err = &local; /* the library code writes its reason there */
    if (sn_library_init(&b->own, err) != SN_OK) {
        free(b);
        return NULL;
    }
    b->owns = true;
    b->lib = &b->own;
    b->own.quiet = o.quiet_plugins;
    b->own.log = o.log;
    b->own.log_user = o.log_user;
    if (sn_library_load_search_path(&b->own, o.plugin_dir, err) != SN_OK) {
        sn_blueprints_close(b);
        return NULL;
    }
    return build_view(b, err);
}

sn_blueprints *sn_engine_blueprints(const sn_engine *e, sn_error *err)
{
    if (!e) {
        sn_fail(err, SN_E_INVALID, "blueprints: no engine given");
        return NULL;
    }
    sn_blueprints *b = calloc(1, sizeof *b);
    if (!b) {
        sn_fail(err, SN_E_NOMEM, "blueprints: out of memory");
        return NULL;
    }
    b->lib = &e->lib;
    return build_view(b, err);
}

void sn_blueprints_close(sn_blueprints *b)
{
    if (!b)
        return;
    if (b->owns)
        sn_library_free(&b->own);
    free(b->attrs);
    free(b->attr_first);
    free(b->ids);
    free(b->id_first);
    free(b);
}

size_t sn_blueprints_count(const sn_blueprints *b) { return b ? b->lib->n_bps : 0; }

size_t sn_blueprints_plugin_count(const sn_blueprints *b) { return b ? b->lib->n_plugins : 0; }
size_t sn_blueprints_search_count(const sn_blueprints *b) { return b ? b->lib->n_searched : 0; }
const char *sn_blueprints_search_dir(const sn_blueprints *b, size_t i)
{
    return b && i < b->lib->n_searched ? b->lib->searched[i] : NULL;
}

static sn_status get_at(const sn_blueprints *b, size_t i, sn_blueprint_info *out, sn_error *err)
{
    const sn_blueprint *bp = &b->lib->bps[i];
    sn_blueprint_info full = {
        .struct_size = sizeof full,
        .id = bp->id,
        .kind = bp->kind,
        .doc = bp->doc ? bp->doc : "",
        .plugin = bp->plugin ? bp->plugin->path : NULL,
        .n_attrs = bp->n_attrs,
        .attrs = &b->attrs[b->attr_first[i]],
        .n_records = bp->cls ? bp->cls->n_records : 0,
        .records = bp->cls ? bp->cls->records : NULL,
        .rec_layout_size = bp->cls ? bp->cls->rec_layout_size : 0,
    };
    return fill_sized(out, &full, sizeof full, err);
}

sn_status sn_blueprints_get(const sn_blueprints *b, size_t i, sn_blueprint_info *out, sn_error *err)
{
    if (!b || !out)
        return sn_fail(err, SN_E_INVALID, "blueprints: get: %s is NULL", !b ? "the library" : "out");
    if (i >= b->lib->n_bps)
        return sn_fail(err, SN_E_RANGE, "blueprints: index %zu is beyond the %zu blueprints", i, b->lib->n_bps);
    return get_at(b, i, out, err);
}

sn_status sn_blueprints_find(const sn_blueprints *b, const char *id, sn_blueprint_info *out, sn_error *err)
{
    if (!b || !id || !out)
        return sn_fail(err, SN_E_INVALID, "blueprints: find: %s is NULL", !b ? "the library" : !id ? "id" : "out");
    const sn_blueprint *bp = sn_library_find(b->lib, id);
    if (!bp)
        return sn_fail(err, SN_E_NOT_FOUND, "blueprints: no blueprint '%s'", id);
    return get_at(b, (size_t)(bp - b->lib->bps), out, err);
}

sn_status sn_blueprints_plugin(const sn_blueprints *b, size_t i, sn_plugin_info *out, sn_error *err)
{
    if (!b || !out)
        return sn_fail(err, SN_E_INVALID, "blueprints: plugin: %s is NULL", !b ? "the library" : "out");
    if (i >= b->lib->n_plugins)
        return sn_fail(err, SN_E_RANGE, "blueprints: plugin index %zu is beyond the %zu plugin files", i,
                       b->lib->n_plugins);
    const sn_plugin_file *p = b->lib->plugins[i];
    sn_plugin_info full = {
        .struct_size = sizeof full,
        .path = p->path,
        .loaded = p->reason == NULL,
        .reason = p->reason,
        .name = p->name ? p->name : "",
        .version = p->version ? p->version : "",
        .abi_major = p->abi_major,
        .abi_minor = p->abi_minor,
        .n_blueprints = p->n_classes,
        .blueprints = &b->ids[b->id_first[i]],
    };
    return fill_sized(out, &full, sizeof full, err);
}

const char *sn_default_plugin_dir(void) { return sn_library_default_dir(); }

#ifndef SN_DOC_RELDIR
#define SN_DOC_RELDIR "../share/doc/sensim"
#endif

const char *sn_sdk_doc_dir(void)
{
    static _Thread_local char dir[PATH_MAX];
    char exe[PATH_MAX], probe[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    snprintf(probe, sizeof probe, "%s/%s/README.md", exe, SN_DOC_RELDIR);
    if (access(probe, R_OK) != 0)
        return NULL;
    snprintf(probe, sizeof probe, "%s/%s", exe, SN_DOC_RELDIR);
    return realpath(probe, dir) ? dir : NULL;
}

const sn_library *sn_blueprints_library(const sn_blueprints *b) { return b ? b->lib : NULL; }

const char *sn_version(void) { return SN_VERSION_STRING; }

void sn_abi_version(uint32_t *major, uint32_t *minor)
{
    if (major)
        *major = SN_ABI_MAJOR;
    if (minor)
        *minor = SN_ABI_MINOR;
}
