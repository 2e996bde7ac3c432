/*
** sensim/plugin.h — the sensor plugin contract. Include this one header to write a sensor.
**
** A plugin is a shared object exporting exactly one function, sn_plugin_entry(), which
** returns a static descriptor listing its sensor classes. Each class is a vtable. The host:
**
**   load      dlopen(RTLD_NOW|RTLD_LOCAL), sn_plugin_entry(host major, host minor), check
**             versions and sizes, validate every attribute table, refuse duplicate ids.
**   spawn     [class_create() for the class's first instance] create() -> set(values) -> attach
**   frame     tick(SN_PHASE_PRE) ...physics... on_event(collision) ... tick(SN_PHASE_POST)
**             ... tick(SN_PHASE_OBSERVE) ... pending() / serialize(i) for each message;
**             each phase wrapped in class_tick(phase, false) ... class_tick(phase, true)
**   end       destroy() of every instance, then class_destroy()
**
** Ownership: the plugin allocates and frees its instance (create/destroy); the host owns
** the ctx, the writer, every string it hands over and the sn_value array given to set().
** Nothing allocated on one side is freed on the other.
*/
#ifndef SENSIM_PLUGIN_H
#define SENSIM_PLUGIN_H

#include <sensim/abi.h>
#include <sensim/attr.h>
#include <sensim/host.h>
#include <sensim/reader.h>
#include <sensim/records.h>
#include <sensim/types.h>

/* Tick phases a class asks for (sn_sensor_class.phases is a mask of these). */
typedef enum sn_phase {
    SN_PHASE_PRE = 1u << 0,    /* before controllers and physics; every frame */
    SN_PHASE_POST = 1u << 1,   /* after physics and collision events; when sensor_tick is due */
    SN_PHASE_OBSERVE = 1u << 2 /* after every sensor; sees the finished frame (recorders) */
} sn_phase;

/* Events a class listens to (sn_sensor_class.events is a mask of these). */
typedef enum sn_event_type {
    SN_EVENT_COLLISION = 1u << 0,        /* delivered only to sensors attached to an actor involved */
    SN_EVENT_ACTOR_SPAWNED = 1u << 1,    /* world events, delivered to every listening sensor */
    SN_EVENT_ACTOR_DESTROYED = 1u << 2,
    SN_EVENT_ACTOR_REPARENTED = 1u << 3,
    /* ---- recorder (ABI 1.2) ---- */
    SN_EVENT_COLLISION_ANY = 1u << 4     /* every collision of the frame, to observers (a recorder);
                                            after the attached collision sensors got theirs */
} sn_event_type;

/*
** One collision of the sensor's parent (`self_id`) with `other_id` during this frame,
** summed over physics substeps: at most one per (frame, other actor).
*/
typedef struct sn_collision {
    uint32_t self_id;
    uint32_t other_id;
    sn_vec3 normal_impulse; /* N*s, world frame: the impulse `other` applied to `self` */
    sn_vec3 location;       /* world point of the strongest contact */
    sn_vec3 normal;         /* world contact normal there, pointing from other into self */
} sn_collision;

typedef struct sn_actor_event {
    uint32_t actor_id;
    uint32_t parent_id; /* the new parent for REPARENTED, else the current one (0 = none) */
} sn_actor_event;

typedef struct sn_event {
    uint32_t struct_size;
    sn_event_type type;
    uint64_t frame;
    union {
        sn_collision collision;
        sn_actor_event actor;
    } u;
} sn_event;

/* A method callable from scenes (`calls:`) and from the C API, e.g. "send". Read with the
** stride sn_sensor_class.method_def_size, so it may grow at its end. */
typedef struct sn_method_def {
    const char *name;
    const char *doc;
} sn_method_def;

/* The arguments one method takes (ABI 1.5, sn_sensor_class.method_args): checked by the host
** when a scene loads and by sn_engine_call, so a call that could never succeed is an input error
** before the run rather than a failure at its frame. A fixed layout: a later ABI adds a new
** array rather than growing this one. */
typedef struct sn_method_args {
    uint32_t min_args, max_args; /* how many arguments it accepts */
    uint32_t max_arg_bytes;      /* the longest argument, bytes before its NUL; 0: any length */
} sn_method_args;

/* One sensor class: a blueprint and its vtable. */
typedef struct sn_sensor_class {
    sn_abi_header hdr;
    const char *blueprint; /* "sensor.<family>.<name>", unique across loaded plugins */
    const char *doc;       /* one line */
    uint32_t phases;       /* mask of sn_phase */
    uint32_t events;       /* mask of sn_event_type */
    const sn_attr_def *attrs;
    uint32_t n_attrs;
    uint32_t attr_def_size; /* sizeof(sn_attr_def) at build time: the stride of attrs */
    const sn_method_def *methods;
    uint32_t n_methods;

    /* Required. Allocate the instance; keep host and ctx for later calls. */
    sn_status (*create)(const sn_host *host, sn_ctx *ctx, void **out_self);
    /* Required. Free everything create() and later callbacks allocated. NULL-safe. */
    void (*destroy)(void *self);
    /* Optional. CARLA's Set: values[i] belongs to attrs[i]; validated by the host. */
    sn_status (*set)(void *self, const sn_value *values, uint32_t n);
    /* Optional. CARLA's SetOwner: parent actor id, 0 for a sensor standing in the world. */
    sn_status (*attach)(void *self, uint32_t parent_id);
    /* Optional. One of the phases asked for in `phases`. */
    sn_status (*tick)(void *self, sn_phase phase);
    /* Optional. An event of a type asked for in `events`. */
    sn_status (*on_event)(void *self, const sn_event *event);
    /*
    ** Optional. Messages ready this frame. When NULL the host assumes one message on each
    ** frame the POST phase ticked (or, without POST, none).
    */
    uint32_t (*pending)(void *self);
    /*
    ** Required. Write message `index` (0 <= index < pending) with the host's writer. The host
    ** calls it only while something consumes the sensor's messages (its stream file, a
    ** listener, save: images): keep what later frames depend on (queues, random draws) out of
    ** it and in tick, so a sensor nobody listens to behaves the same (docs/outputs.md).
    */
    sn_status (*serialize)(void *self, uint32_t index, sn_writer *w);
    /* Optional. A named method with string arguments. */
    sn_status (*call)(void *self, const char *method, uint32_t argc, const char *const *argv);

    /* ---- added in ABI 1.2 (a 1.1 plugin's copy reads them as 0 / NULL) ---- */
    /* sizeof(sn_method_def) at build time, the stride of `methods`; 0 = its size in the ABI
    ** minor the class was built for. */
    uint32_t method_def_size;
    /* sizeof(sn_value) at build time: the stride of set()'s `values` and what
    ** host->actor_attribute fills; 0 = its size in the class's ABI minor. */
    uint32_t value_size;
    /*
    ** Optional: state shared by every instance of this class in one engine (a radio medium, a
    ** recorder's file), so no plugin needs a process-global. class_create runs when the engine
    ** spawns the class's first instance, before that instance's create(); class_ctx is the
    ** class's own context, valid until class_destroy (log, set_error, clock, actors, rays, a
    ** random stream seeded from the scene seed and the blueprint id; no sensor pose). Each
    ** instance reaches the state with host->class_state(ctx). class_destroy runs when the
    ** engine unloads its scene, after every instance's destroy. Two engines, two states. A
    ** class with a v2x_medium (below) is also created when another plugin joins its medium.
    */
    sn_status (*class_create)(const sn_host *host, sn_ctx *class_ctx, void **out_state);
    void (*class_destroy)(void *state);
    /* Optional: for each phase in `phases`, every frame once the state exists, before
    ** (after = false) and after (after = true) the instances' ticks of that phase. */
    sn_status (*class_tick)(void *state, sn_phase phase, bool after);
    /* ---- recorder (ABI 1.2) ---- */
    /*
    ** Optional, NULL for none: the reading side of the log format this class writes
    ** (sensim/reader.h). sn_recording_open (sensim replay, sensim recorder) tries the readers
    ** of every loaded class, so the engine knows no file layout.
    */
    const sn_log_reader *log_reader;
    /* ---- end recorder ---- */
    /* ---- ABI 1.5: NULL, or n_methods entries in the order of `methods` (see sn_method_args);
    ** a class without them gets whatever arguments a scene gives, and call() decides. ---- */
    const sn_method_args *method_args;
    /* ---- ABI 1.6: NULL, or n_records layouts of the bins this class writes (sensim/records.h;
    ** SN_RECORD_TABLE fills the three), so every reader decodes them ---- */
    const sn_rec_layout *records;
    uint32_t n_records;
    uint32_t rec_layout_size; /* sizeof(sn_rec_layout) at build time: the stride of records */
    /* ---- ABI 1.6: NULL, or the V2X medium this class carries in its class state, which the
    ** engine lends to other plugins (host->v2x_*; sensim/v2x.h). One loaded class at most. ---- */
    const sn_v2x_medium_ops *v2x_medium;
} sn_sensor_class;

/* What sn_plugin_entry returns: a static description of the library. */
typedef struct sn_plugin_lib {
    sn_abi_header hdr;
    const char *name;    /* short name, e.g. "collision" */
    const char *version; /* the plugin's own version string */
    uint32_t n_classes;
    const sn_sensor_class *const *classes;
} sn_plugin_lib;

/*
** The one exported symbol. The plugin may return NULL to refuse a host it cannot work with.
** The returned descriptor and everything it points to must stay valid until dlclose.
*/
typedef const sn_plugin_lib *(*sn_plugin_entry_fn)(uint32_t host_abi_major,
                                                    uint32_t host_abi_minor);
#define SN_PLUGIN_ENTRY_SYMBOL "sn_plugin_entry"

/*
** SDK 1.6: the boilerplate of a class and a library in one line each.
**
**   static const sn_sensor_class my_class = {
**       .hdr = SN_ABI_HEADER(sn_sensor_class), .blueprint = "sensor.other.mine", ...,
**       SN_ATTR_TABLE(attrs),            // .attrs, .n_attrs, .attr_def_size
**       SN_METHOD_TABLE(methods),        // .methods, .n_methods, .method_def_size
**       .value_size = sizeof(sn_value), .create = create, ...};
**   static const sn_sensor_class *const classes[] = {&my_class};
**   SN_PLUGIN_EXPORT(lib, "mine", "1.0", classes)   // the library and sn_plugin_entry
**
** The entry SN_PLUGIN_EXPORT defines accepts a host of the same major (any minor: the host
** reads older structs, and a plugin checks SN_HOST_HAS before calling a newer member).
*/
#define SN_ATTR_TABLE(a) .attrs = (a), .n_attrs = (uint32_t)(sizeof(a) / sizeof((a)[0])), \
                         .attr_def_size = (uint32_t)sizeof(sn_attr_def)
#define SN_METHOD_TABLE(m) .methods = (m), .n_methods = (uint32_t)(sizeof(m) / sizeof((m)[0])), \
                           .method_def_size = (uint32_t)sizeof(sn_method_def)
/* .records, .n_records and .rec_layout_size from a static array of sn_rec_layout (sensim/records.h). */
#define SN_RECORD_TABLE(r) .records = (r), .n_records = (uint32_t)(sizeof(r) / sizeof((r)[0])), \
                           .rec_layout_size = (uint32_t)sizeof(sn_rec_layout)
/* The sn_plugin_lib `var` listing `classes` (an array of class pointers) and the entry returning it. */
#define SN_PLUGIN_EXPORT(var, name, version, classes)                                                 \
    static const sn_plugin_lib var = {SN_ABI_HEADER(sn_plugin_lib), (name), (version),               \
                                      (uint32_t)(sizeof(classes) / sizeof((classes)[0])), (classes)}; \
    SN_PLUGIN_ENTRY                                                                                   \
    {                                                                                                 \
        (void)host_abi_minor;                                                                         \
        return host_abi_major == SN_ABI_MAJOR ? &var : NULL;                                          \
    }

#define SN_PLUGIN_ENTRY                                                                  \
    SN_EXPORT const sn_plugin_lib *sn_plugin_entry(uint32_t host_abi_major,              \
                                                   uint32_t host_abi_minor);            \
    SN_EXPORT const sn_plugin_lib *sn_plugin_entry(uint32_t host_abi_major,              \
                                                   uint32_t host_abi_minor)

#endif
