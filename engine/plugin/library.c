/* library.c — loading sensor plugins and keeping the blueprint library.
**
** A plugin is refused, with its file and the reason, when: dlopen fails (not a shared object,
** missing symbols), sn_plugin_entry is missing or returns NULL, an ABI major differs or a minor
** is newer than the host's, a struct is larger than the host knows, a required callback is
** missing, an attribute table is invalid, or a blueprint id is already taken. */
#define _GNU_SOURCE
#include "library.h"

#include "../core/error.h"
#include "../core/util.h"
#include "attr.h"
#include "loadguard.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const sn_blueprint *sn_builtin_blueprints(size_t *n);
const sn_blueprint *sn_carla_blueprints(size_t *n);

/* Adds bp with its defaults parsed (its table checked already: every default parses). */
static bool add_bp(sn_library *lib, const sn_blueprint *bp)
{
    if (!sn_grow((void **)&lib->bps, &lib->cap_bps, lib->n_bps + 1, sizeof *lib->bps))
        return false;
    sn_value *defaults = bp->n_attrs ? calloc(bp->n_attrs, sizeof *defaults) : NULL;
    if (bp->n_attrs && !defaults)
        return false;
    char why[256];
    for (uint32_t i = 0; i < bp->n_attrs; i++) {
        const sn_attr_def *d = sn_attr_at(bp->attrs, bp->stride, i);
        sn_attr_parse(d, d->def, &defaults[i], why, sizeof why);
    }
    lib->bps[lib->n_bps] = *bp;
    lib->bps[lib->n_bps++].defaults = defaults;
    return true;
}

/* Drops the blueprints from `keep` on (a refused plugin's). */
static void drop_bps(sn_library *lib, size_t keep)
{
    while (lib->n_bps > keep)
        free(lib->bps[--lib->n_bps].defaults);
}

sn_status sn_library_init(sn_library *lib, sn_error *err)
{
    memset(lib, 0, sizeof *lib);
    /* sensim's own blueprints, then CARLA 0.9.15's vehicle and walker ids (carla_vehicles.c) */
    for (int k = 0; k < 2; k++) {
        size_t n;
        const sn_blueprint *b = k ? sn_carla_blueprints(&n) : sn_builtin_blueprints(&n);
        for (size_t i = 0; i < n; i++) {
            sn_status st = sn_attr_table_check(b[i].attrs, b[i].n_attrs, b[i].stride, err);
            if (st) {
                sn_library_free(lib); /* nothing of it left for the caller to free */
                return sn_error_prefix(err, b[i].id);
            }
            if (!add_bp(lib, &b[i])) {
                sn_library_free(lib);
                return sn_fail(err, SN_E_NOMEM, "out of memory");
            }
        }
    }
    return SN_OK;
}

void sn_library_free(sn_library *lib)
{
    for (size_t i = 0; i < lib->n_plugins; i++) {
        sn_plugin_file *p = lib->plugins[i];
        if (p->handle)
            dlclose(p->handle);
        free(p->path);
        free(p->name);
        free(p->version);
        free(p->reason);
        free(p->classes);
        free(p);
    }
    free(lib->plugins);
    drop_bps(lib, 0);
    free(lib->bps);
    for (size_t i = 0; i < lib->n_searched; i++)
        free(lib->searched[i]);
    free(lib->searched);
    memset(lib, 0, sizeof *lib);
}

const sn_blueprint *sn_library_find(const sn_library *lib, const char *id)
{
    for (size_t i = 0; i < lib->n_bps; i++)
        if (strcmp(lib->bps[i].id, id) == 0)
            return &lib->bps[i];
    return NULL;
}

sn_status sn_blueprint_resolve(const sn_blueprint *bp, const sn_attribute *given, uint32_t n_given,
                               const sn_attr_where *where, const char *const *extra_keys, sn_value **out,
                               sn_error *err)
{
    return sn_attr_resolve(bp->attrs, bp->n_attrs, bp->stride, bp->defaults, bp->id, given, n_given, where,
                           extra_keys, out, err);
}

/* sn_method_def and sn_value have kept their 1.0 layout through 1.2; a host whose structs grow
** adds the older sizes here, by the class's abi_minor, for classes that leave the size 0. */
const sn_method_def *sn_class_method(const sn_sensor_class *c, uint32_t i)
{
    size_t stride = c->method_def_size ? c->method_def_size : sizeof(sn_method_def);
    return (const sn_method_def *)(const void *)((const char *)c->methods + (size_t)i * stride);
}

sn_status sn_class_check_call(const sn_sensor_class *c, const char *method, uint32_t argc, const char *const *argv,
                              char *why, size_t n)
{
    uint32_t m = 0;
    while (c->call && m < c->n_methods && strcmp(sn_class_method(c, m)->name, method) != 0)
        m++;
    if (!c->call || m == c->n_methods) {
        snprintf(why, n, "'%s' has no method '%s'", c->blueprint, method);
        return SN_E_NOT_FOUND;
    }
    if (!c->method_args)
        return SN_OK;
    const sn_method_args *a = &c->method_args[m];
    if (argc < a->min_args || argc > a->max_args) {
        if (a->min_args == a->max_args)
            snprintf(why, n, "%s takes %u argument%s, not %u", method, a->min_args, a->min_args == 1 ? "" : "s",
                     argc);
        else
            snprintf(why, n, "%s takes %u to %u arguments, not %u", method, a->min_args, a->max_args, argc);
        return SN_E_INVALID;
    }
    for (uint32_t i = 0; a->max_arg_bytes && i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (len > a->max_arg_bytes) {
            snprintf(why, n, "%s: argument %u is %zu bytes; it takes at most %u", method, i + 1, len,
                     a->max_arg_bytes);
            return SN_E_RANGE;
        }
    }
    return SN_OK;
}

size_t sn_class_value_size(const sn_sensor_class *c) { return c->value_size ? c->value_size : sizeof(sn_value); }

bool sn_class_is_pre_1_2(const sn_sensor_class *c) { return c->hdr.abi_minor < 2; }

size_t sn_library_refused(const sn_library *lib)
{
    size_t n = 0;
    for (size_t i = 0; i < lib->n_plugins; i++)
        n += lib->plugins[i]->reason != NULL;
    return n;
}

/* Checks a struct header from a plugin against the host's own size for that struct. */
static bool header_ok(const sn_abi_header *h, size_t host_size, const char *what, char *why, size_t n)
{
    if (h->abi_major != SN_ABI_MAJOR || h->abi_minor > SN_ABI_MINOR) {
        snprintf(why, n, "%s was built for sensim ABI %u.%u; this host is %d.%d (needs major %d, minor <= %d)",
                 what, h->abi_major, h->abi_minor, SN_ABI_MAJOR, SN_ABI_MINOR, SN_ABI_MAJOR, SN_ABI_MINOR);
        return false;
    }
    if (h->struct_size < sizeof(sn_abi_header) || h->struct_size > host_size) {
        snprintf(why, n, "%s has struct_size %u, the host knows at most %zu bytes for ABI %d.%d",
                 what, h->struct_size, host_size, SN_ABI_MAJOR, SN_ABI_MINOR);
        return false;
    }
    return true;
}

static bool valid_blueprint_id(const char *id)
{
    if (!id || strncmp(id, "sensor.", 7) != 0 || !id[7])
        return false;
    for (const char *p = id; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.'))
            return false;
    return true;
}

/* A class's optional parts of later ABIs: a log reader (recorder, ABI 1.2) and a V2X medium lent
** to other plugins (ABI 1.6). */
static bool extensions_ok(sn_plugin_file *pf, const sn_sensor_class *c, const char *id, char *why, size_t n)
{
    if (c->log_reader && !pf->has_reader) { /* recorder (ABI 1.2): a log format it reads back */
        const sn_log_reader *r = c->log_reader;
        if (!header_ok(&r->hdr, sizeof(sn_log_reader), "the log reader", why, n))
            return false;
        memcpy(&pf->reader, r, r->hdr.struct_size);
        if (!pf->reader.probe || !pf->reader.open || !pf->reader.close || !pf->reader.describe ||
            !pf->reader.seek || !pf->reader.next || !pf->reader.error) {
            snprintf(why, n, "'%s': its log reader lacks a required callback", id);
            return false;
        }
        pf->has_reader = true;
    }
    if (c->v2x_medium) { /* ABI 1.6: a medium lent to other plugins (sensim/v2x.h) */
        const sn_v2x_medium_ops *o = c->v2x_medium;
        if (!header_ok(&o->hdr, sizeof(sn_v2x_medium_ops), "the V2X medium", why, n))
            return false;
        if (o->hdr.struct_size < sizeof(sn_v2x_medium_ops) || !o->join || !o->leave || !o->send || !o->received ||
            !c->class_create) {
            snprintf(why, n, "'%s': its V2X medium lacks a callback (join, leave, send, received, class_create)", id);
            return false;
        }
    }
    return true;
}

/* Copies the plugin's class i into pf->classes[i] and checks it: its header, id, callbacks,
** table strides and attribute table, and that its id is new to this plugin and to lib. */
/* A loader's warning: to lib->log, else stderr; none when quiet. */
static void warn(const sn_library *lib, const char *line)
{
    if (lib->quiet)
        return;
    if (lib->log)
        lib->log(SN_LOG_WARN, line, lib->log_user);
    else
        fprintf(stderr, "sensim: warning: %s\n", line);
}

static bool class_ok(sn_library *lib, sn_plugin_file *pf, uint32_t i, const sn_sensor_class *src, char *why, size_t n)
{
    char what[64];
    snprintf(what, sizeof what, "sensor class %u", i);
    if (!src) {
        snprintf(why, n, "%s is NULL", what);
        return false;
    }
    if (!header_ok(&src->hdr, sizeof(sn_sensor_class), what, why, n))
        return false;
    sn_sensor_class *c = &pf->classes[i];
    memcpy(c, src, src->hdr.struct_size); /* the rest stays zero: absent callbacks are NULL */
    const char *id = c->blueprint ? c->blueprint : "(null)";
    if (!valid_blueprint_id(c->blueprint)) {
        snprintf(why, n, "blueprint id '%s' must be 'sensor.' followed by [a-z0-9_.]", id);
        return false;
    }
    if (!c->create || !c->destroy || !c->serialize) {
        snprintf(why, n, "'%s' lacks a required callback (%s)", id,
                 !c->create ? "create" : !c->destroy ? "destroy" : "serialize");
        return false;
    }
    if (c->n_attrs && c->attr_def_size < offsetof(sn_attr_def, doc) + sizeof(const char *)) {
        snprintf(why, n, "'%s': attr_def_size %u is smaller than ABI %d.0's sn_attr_def", id,
                 c->attr_def_size, SN_ABI_MAJOR);
        return false;
    }
    /* strides beyond any struct an ABI could define: a stride of 2^30 walked far past the table */
    if (c->attr_def_size > 4096 || c->method_def_size > 4096 || c->n_attrs > 1024) {
        snprintf(why, n, "'%s': attr_def_size %u, method_def_size %u or n_attrs %u is out of range (at most "
                 "4096, 4096 and 1024)", id, c->attr_def_size, c->method_def_size, c->n_attrs);
        return false;
    }
    if (c->n_methods && (!c->methods || c->n_methods > 1024)) {
        snprintf(why, n, "'%s' lists %u methods but no method table", id, c->n_methods);
        return false;
    }
    if (c->method_def_size && c->method_def_size < sizeof(sn_method_def)) {
        snprintf(why, n, "'%s': method_def_size %u is smaller than ABI %d.0's sn_method_def (%zu)", id,
                 c->method_def_size, SN_ABI_MAJOR, sizeof(sn_method_def));
        return false;
    }
    if (c->value_size && c->value_size != sizeof(sn_value)) {
        snprintf(why, n, "'%s': value_size %u is not sizeof(sn_value) = %zu of ABI %d.%d", id, c->value_size,
                 sizeof(sn_value), SN_ABI_MAJOR, SN_ABI_MINOR);
        return false;
    }
    for (uint32_t m = 0; m < c->n_methods; m++) {
        if (!sn_class_method(c, m)->name) {
            snprintf(why, n, "'%s': method %u has no name", id, m);
            return false;
        }
    }
    if (!extensions_ok(pf, c, id, why, n))
        return false;
    if (!sn_records_check(c, id, why, n))
        return false;
    sn_error e;
    if (sn_attr_table_check(c->attrs, c->n_attrs, c->attr_def_size, &e) != SN_OK) {
        sn_format(why, n, "'%s' has an invalid attribute table: %s", id, e.msg);
        return false;
    }
    if (c->phases && !c->tick && !c->class_tick) { /* allowed (events, methods), but surely not meant */
        char line[PATH_MAX + 256];
        sn_format(line, sizeof line, "plugin %s: '%s' asks for tick phases (mask 0x%x) but has neither tick nor "
                  "class_tick: nothing of it runs in those phases", pf->path, id, c->phases);
        warn(lib, line);
    }
    for (uint32_t j = 0; j < i; j++) {
        if (strcmp(pf->classes[j].blueprint, id) == 0) {
            snprintf(why, n, "duplicate blueprint id '%s' (defined twice in this plugin)", id);
            return false;
        }
    }
    const sn_blueprint *dup = sn_library_find(lib, id);
    if (dup) {
        snprintf(why, n, "duplicate blueprint id '%s' (already provided by %s)", id,
                 dup->plugin ? dup->plugin->path : "the engine");
        return false;
    }
    return true;
}

/* Validates and registers what a plugin's entry returned. On refusal writes why. */
static bool accept_plugin(sn_library *lib, sn_plugin_file *pf, const sn_plugin_lib *pl, char *why, size_t n)
{
    if (!pl) {
        snprintf(why, n, "sn_plugin_entry returned NULL (the plugin refused this host, ABI %d.%d)",
                 SN_ABI_MAJOR, SN_ABI_MINOR);
        return false;
    }
    pf->abi_major = pl->hdr.abi_major;
    pf->abi_minor = pl->hdr.abi_minor;
    if (!header_ok(&pl->hdr, sizeof(sn_plugin_lib), "the plugin descriptor", why, n))
        return false;
    sn_plugin_lib d;
    memset(&d, 0, sizeof d);
    memcpy(&d, pl, pl->hdr.struct_size);
    pf->name = sn_strdup(d.name ? d.name : "");
    pf->version = sn_strdup(d.version ? d.version : "");
    if (d.n_classes == 0 || d.n_classes > 1024 || !d.classes) {
        snprintf(why, n, "the descriptor lists no sensor classes");
        return false;
    }
    pf->classes = calloc(d.n_classes, sizeof *pf->classes);
    if (!pf->classes) {
        snprintf(why, n, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < d.n_classes; i++)
        if (!class_ok(lib, pf, i, d.classes[i], why, n))
            return false;
    pf->n_classes = d.n_classes;
    for (uint32_t i = 0; i < d.n_classes; i++) {
        sn_sensor_class *c = &pf->classes[i];
        sn_blueprint bp = {c->blueprint, SN_ACTOR_SENSOR, c->doc ? c->doc : "", c->attrs, c->n_attrs,
                           c->attr_def_size, SN_SHAPE_NONE, c, pf, NULL};
        if (!add_bp(lib, &bp)) {
            snprintf(why, n, "out of memory");
            return false;
        }
    }
    return true;
}

/* sn_plugin_entry and the descriptor checks, with a crash in either caught (guard.c):
** 1 accepted, 0 refused, -1 crashed (why says so). Its own function: every local lives for
** the whole of it, as a longjmp back into it needs. */
static int guarded_accept(sn_library *lib, sn_plugin_file *pf, sn_plugin_entry_fn entry, char *why, size_t n)
{
    sigjmp_buf jb;
    int sig = sigsetjmp(jb, 1);
    if (sig) {
        snprintf(why, n, "crashed (%s) in sn_plugin_entry or while its descriptor was read", strsignal(sig));
        return -1;
    }
    sn_guard_load_enter(&jb);
    bool ok = accept_plugin(lib, pf, entry(SN_ABI_MAJOR, SN_ABI_MINOR), why, n);
    sn_guard_load_leave();
    return ok ? 1 : 0;
}

static sn_status load_file(sn_library *lib, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    for (size_t i = 0; i < lib->n_plugins; i++)
        if (strcmp(lib->plugins[i]->path, real) == 0)
            return SN_OK; /* reached twice through the search path */
    if (!sn_grow((void **)&lib->plugins, &lib->cap_plugins, lib->n_plugins + 1, sizeof *lib->plugins))
        return SN_E_NOMEM;
    sn_plugin_file *pf = calloc(1, sizeof *pf);
    if (!pf || !(pf->path = sn_strdup(real))) {
        free(pf);
        return SN_E_NOMEM;
    }
    lib->plugins[lib->n_plugins++] = pf;
    char why[1024] = "";
    dlerror();
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cannot be loaded: %s", e ? e : "unknown dlopen error");
    } else {
        void *sym = dlsym(h, SN_PLUGIN_ENTRY_SYMBOL);
        if (!sym) {
            snprintf(why, sizeof why, "has no '%s' symbol (is it a sensim plugin? is the entry exported?)",
                     SN_PLUGIN_ENTRY_SYMBOL);
        } else {
            sn_plugin_entry_fn entry;
            memcpy(&entry, &sym, sizeof entry); /* object-to-function pointer, as POSIX allows */
            size_t before = lib->n_bps;
            int r = guarded_accept(lib, pf, entry, why, sizeof why);
            if (r > 0) {
                pf->handle = h;
                return SN_OK;
            }
            if (r < 0)
                h = NULL; /* it crashed: left loaded, whatever it started may still point into it */
            drop_bps(lib, before);
        }
        if (h)
            dlclose(h);
    }
    free(pf->classes);
    pf->classes = NULL;
    pf->n_classes = 0;
    pf->has_reader = false;
    pf->reason = sn_strdup(why);
    char line[PATH_MAX + sizeof why + 32];
    sn_format(line, sizeof line, "plugin %s %s; skipped", real, why);
    warn(lib, line);
    return SN_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of entries of `dir` that end in .so (files) or are folders (when dirs). */
static char **list_dir(const char *dir, bool dirs, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        size_t len = strlen(e->d_name);
        bool want = dirs ? S_ISDIR(st.st_mode)
                         : (!S_ISDIR(st.st_mode) && len > 3 && strcmp(e->d_name + len - 3, ".so") == 0);
        if (!want)
            continue;
        if (!sn_grow((void **)&names, &cap, *n + 1, sizeof *names))
            break;
        if ((names[*n] = sn_strdup(full)))
            (*n)++;
    }
    closedir(d);
    if (names)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

sn_status sn_library_load_dir(sn_library *lib, const char *dir, sn_error *err)
{
    size_t nf, nd;
    char **files = list_dir(dir, false, &nf), **dirs = list_dir(dir, true, &nd);
    sn_status st = SN_OK;
    for (size_t i = 0; i < nf && !st; i++)
        st = load_file(lib, files[i]);
    for (size_t i = 0; i < nd && !st; i++) {
        size_t m;
        char **sub = list_dir(dirs[i], false, &m);
        for (size_t k = 0; k < m && !st; k++)
            st = load_file(lib, sub[k]);
        free_list(sub, m);
    }
    free_list(files, nf);
    free_list(dirs, nd);
    return st ? sn_fail(err, st, "plugins: out of memory") : SN_OK;
}

#ifndef SN_PLUGIN_RELDIR
#define SN_PLUGIN_RELDIR "../lib/sensim/plugins"
#endif
#ifndef SN_PLUGIN_LIBRELDIR
#define SN_PLUGIN_LIBRELDIR "sensim/plugins"
#endif

/* The first of `rel` (relative to `base`) that is a folder, resolved into `dir`. */
static bool first_dir(const char *base, const char *const *rel, size_t n, char dir[PATH_MAX])
{
    for (size_t i = 0; i < n; i++) {
        char probe[PATH_MAX];
        sn_format(probe, sizeof probe, "%s/%s", base, rel[i]);
        struct stat st;
        if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode) && realpath(probe, dir))
            return true;
    }
    return false;
}

/* The folder of `file`, in place; false when it has none. */
static bool to_folder(char *file)
{
    char *slash = strrchr(file, '/');
    if (!slash)
        return false;
    *slash = 0;
    return true;
}

/* The engine's own plugins are found from the file that holds this code: libsensim in an
** embedding program (its own program may live anywhere), the program itself when the engine is
** linked in statically (the tests). A build tree keeps plugins in <build>/plugins/
** beside <build>/engine/; an install keeps them in <libdir>/SN_PLUGIN_LIBRELDIR. The program's
** folder (<bindir>/SN_PLUGIN_RELDIR) is the fallback when the library cannot be located. */
const char *sn_library_default_dir(void)
{
    static _Thread_local char dir[PATH_MAX]; /* per thread: engines may be created on several at once */
    /* the install's own folder first: <libdir>/../plugins may be anything on a system */
    static const char *const from_lib[] = {SN_PLUGIN_LIBRELDIR, "../plugins"};
    static const char *const from_exe[] = {"../plugins", SN_PLUGIN_RELDIR};
    Dl_info info;
    char self[PATH_MAX];
    if (dladdr((void *)(uintptr_t)sn_library_default_dir, &info) && info.dli_fname &&
        realpath(info.dli_fname, self) && to_folder(self) && first_dir(self, from_lib, 2, dir))
        return dir;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = 0;
    return to_folder(self) && first_dir(self, from_exe, 2, dir) ? dir : NULL;
}

/* Records one folder of the search path and where it came from, for error messages. */
static sn_status note_searched(sn_library *lib, const char *dir, const char *origin)
{
    struct stat st;
    bool missing = stat(dir, &st) != 0 || !S_ISDIR(st.st_mode);
    char text[PATH_MAX + 64];
    sn_format(text, sizeof text, "%s (%s%s)", dir, origin, missing ? ", missing" : "");
    for (size_t i = 0; i < lib->n_searched; i++)
        if (strcmp(lib->searched[i], text) == 0)
            return SN_OK;
    char *copy = sn_strdup(text);
    if (!copy || !sn_grow((void **)&lib->searched, &lib->cap_searched, lib->n_searched + 1, sizeof *lib->searched)) {
        free(copy);
        return SN_E_NOMEM;
    }
    lib->searched[lib->n_searched++] = copy;
    return SN_OK;
}

static sn_status load_noted(sn_library *lib, const char *dir, const char *origin, sn_error *err)
{
    if (note_searched(lib, dir, origin) != SN_OK)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    return sn_library_load_dir(lib, dir, err);
}

sn_status sn_library_load_search_path(sn_library *lib, const char *plugin_dir, sn_error *err)
{
    sn_status st = SN_OK;
    if (plugin_dir && (st = load_noted(lib, plugin_dir, "--plugin-dir", err)))
        return st;
    const char *env = getenv("SENSIM_PLUGIN_PATH");
    if (env && *env) {
        char *copy = sn_strdup(env), *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !st; tok = strtok_r(NULL, ":", &save))
            st = load_noted(lib, tok, "SENSIM_PLUGIN_PATH", err);
        free(copy);
        if (st)
            return st;
    }
    const char *own = sn_library_default_dir();
    return own ? load_noted(lib, own, "the engine's own", err) : SN_OK;
}

const char *sn_library_unknown_hint(const sn_library *lib, char *buf, size_t n)
{
    size_t refused = sn_library_refused(lib), len = 0;
    if (refused)
        len = (size_t)snprintf(buf, n, "%zu plugin file%s refused, see `sensim plugins`; ", refused,
                               refused == 1 ? " was" : "s were");
    if (len < n)
        sn_library_searched_text(lib, buf + len, n - len);
    return buf;
}

const char *sn_library_searched_text(const sn_library *lib, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "searched: ");
    if (!lib->n_searched)
        snprintf(buf, n, "no plugin folder was searched (none given and none found beside libsensim or the program)");
    for (size_t i = 0; i < lib->n_searched && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", lib->searched[i]);
    return buf;
}

/* ---- a test world's plugins (sensim/testworld.h); refusals are errors, not skipped ---- */

sn_status sn_library_add_entry(sn_library *lib, sn_plugin_entry_fn entry, const char *label, sn_error *err)
{
    if (!entry)
        return sn_fail(err, SN_E_INVALID, "plugin %s: no entry function", label ? label : "(test program)");
    for (size_t i = 0; i < lib->n_plugins; i++)
        if (lib->plugins[i]->entry == entry && !lib->plugins[i]->reason)
            return SN_OK;
    if (!sn_grow((void **)&lib->plugins, &lib->cap_plugins, lib->n_plugins + 1, sizeof *lib->plugins))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_plugin_file *pf = calloc(1, sizeof *pf);
    if (!pf || !(pf->path = sn_strdup(label ? label : "(test program)"))) {
        free(pf);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    lib->plugins[lib->n_plugins++] = pf;
    char why[1024] = "";
    size_t before = lib->n_bps;
    if (accept_plugin(lib, pf, entry(SN_ABI_MAJOR, SN_ABI_MINOR), why, sizeof why)) {
        pf->entry = entry;
        return SN_OK;
    }
    drop_bps(lib, before);
    free(pf->classes);
    pf->classes = NULL;
    pf->n_classes = 0;
    pf->has_reader = false;
    pf->reason = sn_strdup(why);
    return sn_fail(err, SN_E_INVALID, "plugin %s %s", pf->path, why);
}

sn_status sn_library_add_file(sn_library *lib, const char *path, sn_plugin_entry_fn *entry, sn_error *err)
{
    if (!path)
        return sn_fail(err, SN_E_INVALID, "plugin: NULL path");
    if (load_file(lib, path) != SN_OK)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    for (size_t i = 0; i < lib->n_plugins; i++) {
        sn_plugin_file *pf = lib->plugins[i];
        if (strcmp(pf->path, real) != 0)
            continue;
        if (pf->reason)
            return sn_fail(err, SN_E_INVALID, "plugin %s %s", real, pf->reason);
        void *sym = dlsym(pf->handle, SN_PLUGIN_ENTRY_SYMBOL);
        memcpy(&pf->entry, &sym, sizeof pf->entry); /* object-to-function pointer, as POSIX allows */
        if (entry)
            *entry = pf->entry;
        return SN_OK;
    }
    return sn_fail(err, SN_E_INVALID, "plugin %s was not loaded", real);
}
