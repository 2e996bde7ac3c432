/* classes.c — state shared by the instances of a sensor class, one per engine.
**
** A class context is an sn_ctx without an actor: the host table works on it (log, errors,
** clock, actors, rays, its own random stream) and the crash guard names it. It is made when
** the class's first instance spawns and lives until the engine unloads its scene. */
#include "engine.h"
#include "classes.h"
#include "guard.h"

#include "../core/error.h"
#include "../core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tick_names[2][5] = {
    {"", "class_tick(pre, before)", "class_tick(post, before)", "", "class_tick(observe, before)"},
    {"", "class_tick(pre, after)", "class_tick(post, after)", "", "class_tick(observe, after)"},
};

sn_status sn_class_attach(struct sn_engine *e, sn_sensor *s, sn_error *err)
{
    if (s->klass || (!s->cls->class_create && !s->cls->class_tick))
        return SN_OK;
    return sn_class_of(e, s->bp, &s->klass, err);
}

sn_status sn_class_of(struct sn_engine *e, const sn_blueprint *bp, sn_sensor **out, sn_error *err)
{
    for (size_t i = 0; i < e->n_classes; i++) {
        if (e->classes[i]->cls == bp->cls) {
            *out = e->classes[i];
            return SN_OK;
        }
    }
    if (!sn_grow((void **)&e->classes, &e->cap_classes, e->n_classes + 1, sizeof *e->classes))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_sensor *k = calloc(1, sizeof *k);
    char name[256];
    snprintf(name, sizeof name, "class %s", bp->id);
    if (!k || !(k->name = sn_strdup(name))) {
        free(k);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    k->engine = e;
    k->bp = bp;
    k->cls = bp->cls;
    k->is_class = true;
    sn_rng_seed(&k->rng, e->seed ^ sn_hash_str(bp->id));
    if (bp->cls->class_create) {
        sn_guard_enter(k, "class_create");
        sn_status st = bp->cls->class_create(e->plugin_host, k, &k->self);
        sn_guard_leave();
        if (st) {
            st = sn_plugin_fail(k, "class_create", st, err);
            sn_ctx_error_free(k);
            free(k->name);
            free(k);
            return st;
        }
    }
    e->classes[e->n_classes++] = k;
    *out = k;
    return SN_OK;
}

sn_status sn_classes_tick(struct sn_engine *e, sn_phase phase, bool after, sn_error *err)
{
    for (size_t i = 0; i < e->n_classes; i++) {
        sn_sensor *k = e->classes[i];
        if (!k->cls->class_tick || !(k->cls->phases & phase))
            continue;
        const char *name = tick_names[after][phase];
        sn_ctx_error_clear(k);
        sn_guard_enter(k, name);
        sn_status st = k->cls->class_tick(k->self, phase, after);
        sn_guard_leave();
        if (st)
            return sn_plugin_fail(k, name, st, err);
    }
    return SN_OK;
}

void sn_classes_destroy(struct sn_engine *e)
{
    for (size_t i = 0; i < e->n_classes; i++) {
        sn_sensor *k = e->classes[i];
        if (k->cls->class_destroy) { /* NULL-safe, as destroy */
            sn_guard_enter(k, "class_destroy");
            k->cls->class_destroy(k->self);
            sn_guard_leave();
        }
        sn_ctx_error_free(k);
        free(k->name);
        free(k);
    }
    free(e->classes);
    e->classes = NULL;
    e->n_classes = e->cap_classes = 0;
}
