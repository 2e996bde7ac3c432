/* ctx.h — a sensor's context (the sn_ctx a plugin receives) and the helpers every context shares (ctx.c). */
#ifndef SN_SIM_CTX_H
#define SN_SIM_CTX_H

#include "../core/rng.h"
#include "../plugin/library.h"
#include "../scene/scene.h"

#include <sensim/plugin.h>
#include <sensim/sensim.h>

struct sn_engine;
struct sn_spool_file;

typedef struct sn_listener {
    sn_listen_fn fn;
    void *user;
} sn_listener;

/* A sensor: its scene entry, its stream, and (while spawned) its plugin instance.
** The ctx a plugin receives is this struct; its address never changes. */
struct sn_ctx {
    struct sn_engine *engine;
    const sn_scene_entity *entity; /* NULL when spawned through the API */
    char *name;                    /* the scene entry's name (its pool's), or "sensor_<id>" owned when entity is NULL */
    const sn_blueprint *bp;
    const sn_sensor_class *cls;
    uint32_t actor_id; /* 0 until spawned and after destruction */
    uint32_t next_call;
    void *self;        /* plugin instance */
    sn_value *values;  /* resolved attributes, owned, or shared read-only (values_shared: world.vshare) */
    int64_t tick_ns, last_tick_ns;
    int64_t interval_ns; /* since the previous POST tick (tick_interval_ns), dt_ns at the first */
    bool *given;         /* per blueprint attribute: set by the scene, --set or the API; owned; NULL: none */
    sn_rng rng;
    /* set_error()'s text from the plugin: SN_CTX_ERROR_MAX bytes allocated at the first error
    ** (sn_ctx_error_buf), owned; NULL until then. Most sensors never fail, and 512 bytes in each
    ** of 5 000 was a quarter of a vehicle's memory beyond a bare ODE box. */
    char *error;
    struct sn_spool_file *out; /* its stream file (stream.c), NULL when it has none */
    char *part_path; /* its stream's file, while written (stream.c) */
    sn_listener *listeners;
    uint32_t n_listeners, cap_listeners;
    uint64_t messages; /* produced (pending), whether or not anything consumed them */
    size_t last_head, last_size; /* its last message's header and whole size: the next one's layout (engine.c) */
    uint64_t budget_bytes; /* its images' share of SN_LIMIT_SENSOR_MEMORY (sn_sensor_budget) */
    struct sn_ctx *klass; /* the class's own context (classes.c), NULL when it has no class state */
    struct sn_ctx *v2x_class; /* host->v2x_join (host_v2x.c): the medium's class context, and */
    void *v2x_station;        /* this sensor's station in it; NULL when it has not joined */
    bool spawned, destroyed;
    bool values_shared;
    bool ever_ticked, ticked_post;
    bool is_class;        /* this is a class context: `self` is the class state, no actor */
    bool internal;        /* the engine's own (the recorder of sn_engine_record): no stream, no name, not counted */
};
typedef struct sn_ctx sn_sensor;

#define SN_CTX_ERROR_MAX 512
/* The context's error buffer, allocated at its first use. When that allocation fails, the
** engine's spare buffer stands in, so the plugin's sentence still reaches the user. */
char *sn_ctx_error_buf(sn_ctx *c);
/* The context's error text, "" when none was set. */
static inline const char *sn_ctx_error(const sn_ctx *c) { return c->error ? c->error : ""; }
static inline void sn_ctx_error_clear(sn_ctx *c)
{
    if (c->error)
        c->error[0] = 0;
}
/* Frees the buffer (not the engine's spare). */
void sn_ctx_error_free(sn_ctx *c);
/* Shares a sensor's resolved values with equal ones (world.vshare; plugins read them const),
** and gives them back. The world must be live. */
void sn_sensor_values_share(struct sn_engine *e, sn_sensor *s);
void sn_sensor_values_free(struct sn_engine *e, sn_sensor *s);

/* Error text for a failed plugin callback: "sensor 'n' (bp, plugin path): cb: msg". */
sn_status sn_plugin_fail(sn_sensor *s, const char *callback, sn_status st, sn_error *err);

#endif
