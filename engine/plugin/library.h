/* library.h — the blueprint library: built-in actor blueprints and the sensor classes of
** every plugin that loaded, with the record of every plugin that was refused and why. */
#ifndef SN_PLUGIN_LIBRARY_H
#define SN_PLUGIN_LIBRARY_H

#include "../world/world.h"
#include "../data/layouts.h"
#include "attr.h"

#include <sensim/plugin.h>

typedef struct sn_plugin_file {
    char *path;
    void *handle;        /* dlopen handle, NULL if refused */
    char *name, *version;
    uint32_t abi_major, abi_minor;
    char *reason;        /* why it was refused; NULL when loaded */
    sn_sensor_class *classes; /* host-side copies (zeroed, then the plugin's bytes) */
    uint32_t n_classes;
    sn_log_reader reader; /* host copy of the plugin's log reader (zeroed: none) */
    bool has_reader;
    sn_plugin_entry_fn entry; /* its entry when a test world registered it (sn_library_add_entry/_file) */
} sn_plugin_file;

typedef struct sn_blueprint {
    const char *id;
    sn_actor_kind kind;
    const char *doc;
    const sn_attr_def *attrs;
    uint32_t n_attrs;
    size_t stride;
    sn_shape shape;              /* built-ins */
    const sn_sensor_class *cls;  /* sensors: the host copy */
    const sn_plugin_file *plugin;
    /* The table's n_attrs defaults, parsed once when the blueprint joins the library (every
    ** spawn starts from them: sn_attr_resolve). Owned by the library; NULL when n_attrs is 0. */
    sn_value *defaults;
} sn_blueprint;

typedef struct sn_library {
    sn_blueprint *bps;
    size_t n_bps, cap_bps;
    sn_plugin_file **plugins;
    size_t n_plugins, cap_plugins;
    bool quiet;
    sn_log_fn log;       /* refusals go here instead of stderr when set (sn_engine_options.log) */
    void *log_user;
    char **searched;     /* the folders of the search path, "DIR (where it came from)", in order */
    size_t n_searched, cap_searched;
} sn_library;

/* The built-in blueprints; on failure nothing is left allocated. */
sn_status sn_library_init(sn_library *lib, sn_error *err);
void sn_library_free(sn_library *lib);

/* Loads every *.so of `dir` and of its immediate subfolders, in sorted order. Refused files
** are recorded (and, unless quiet, reported to lib->log or else stderr); only allocation
** failure is an error. */
sn_status sn_library_load_dir(sn_library *lib, const char *dir, sn_error *err);
/* The DESIGN search path: plugin_dir, SENSIM_PLUGIN_PATH, the engine's own plugin folder. */
sn_status sn_library_load_search_path(sn_library *lib, const char *plugin_dir, sn_error *err);
/* The engine's own plugin folder (from libsensim's location, else the program's); per-thread static storage. */
const char *sn_library_default_dir(void);

/* A test world's plugins (sensim/testworld.h), through the same checks as a folder's: an entry
** linked into the program (`label` names it in errors), or one file. A refusal is an error
** here (SN_E_INVALID, "plugin LABEL WHY"); adding the same entry or file again is a no-op. */
sn_status sn_library_add_entry(sn_library *lib, sn_plugin_entry_fn entry, const char *label, sn_error *err);
sn_status sn_library_add_file(sn_library *lib, const char *path, sn_plugin_entry_fn *entry, sn_error *err);

const sn_blueprint *sn_library_find(const sn_library *lib, const char *id);
/* sn_attr_resolve against bp's table, from its parsed defaults (plugin/attr.h). */
sn_status sn_blueprint_resolve(const sn_blueprint *bp, const sn_attribute *given, uint32_t n_given,
                               const sn_attr_where *where, const char *const *extra_keys, sn_value **out,
                               sn_error *err);
/* Method i of a class, read with its stride (method_def_size, or the size in its ABI minor). */
const sn_method_def *sn_class_method(const sn_sensor_class *c, uint32_t i);
/* SN_OK when the class has call() and a method `method` whose declared arguments (method_args,
** ABI 1.4; none declared: any) accept argc/argv; else SN_E_NOT_FOUND (no such method),
** SN_E_INVALID (argument count) or SN_E_RANGE (an argument too long), and `why` says which
** ("'sensor.x' has no method 'y'", "send takes 1 argument, not 2", ...). */
sn_status sn_class_check_call(const sn_sensor_class *c, const char *method, uint32_t argc, const char *const *argv,
                              char *why, size_t n);
/* sizeof(sn_value) as the class was built: the stride of set()'s values. */
size_t sn_class_value_size(const sn_sensor_class *c);
/* True when the class was built against ABI 1.1 or older (sn_ray_hit without struct_size). */
bool sn_class_is_pre_1_2(const sn_sensor_class *c);

/* records.c (ABI 1.6): a class's declared record layouts, by the class's stride. */
const sn_rec_layout *sn_class_record(const sn_sensor_class *c, uint32_t i);
const sn_rec_field *sn_rec_field_at(const sn_rec_layout *l, uint32_t j);
/* Checks a class's record table at load; false with the reason in why. */
bool sn_records_check(const sn_sensor_class *c, const char *id, char *why, size_t n);
/* Every loaded class's declared layouts as the data layer's (type = blueprint id), in one block
** the caller frees; names point into the plugins (valid while the library is open). */
sn_status sn_library_layouts(const sn_library *lib, sn_bin_layout **out, size_t *n_out, sn_error *err);
/* A copy of n layouts, their strings included, in one block the caller frees. */
sn_status sn_layouts_clone(const sn_bin_layout *src, size_t n, sn_bin_layout **out, sn_error *err);
size_t sn_library_refused(const sn_library *lib);
/* "searched: DIR (--plugin-dir), DIR (SENSIM_PLUGIN_PATH, missing), ..." for an unknown
** blueprint's error, so the user sees where the plugin was looked for. */
const char *sn_library_searched_text(const sn_library *lib, char *buf, size_t n);
/* What an unknown blueprint's error adds: the refused plugin files if any, then the searched
** folders ("2 plugin files were refused, see `sensim plugins`; searched: ..."). Returns buf. */
const char *sn_library_unknown_hint(const sn_library *lib, char *buf, size_t n);

#endif
