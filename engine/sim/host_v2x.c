/* host_v2x.c — the V2X medium for any plugin (ABI 1.6, sensim/v2x.h). The medium lives in the
** class state of the class that declares one (sn_sensor_class.v2x_medium: the v2x plugin's
** sensor.other.v2x_custom), so stations of every plugin share its propagation, its frame and
** its rules; the engine only finds that class, creates its state when no instance of it did,
** and forwards. The class's own tick propagates at the end of the POST phase. */
#include "host_v2x.h"

#include "classes.h"
#include "engine.h"
#include "guard.h"

#include "../core/util.h"

#include <string.h>

/* The first loaded class that carries a medium (library order: sorted plugin files). */
static const sn_blueprint *medium_class(const sn_engine *e)
{
    for (size_t i = 0; i < e->lib.n_bps; i++)
        if (e->lib.bps[i].cls && e->lib.bps[i].cls->v2x_medium)
            return &e->lib.bps[i];
    return NULL;
}

/* The medium's class marks the guard while its code runs (a crash there names it), then the
** calling plugin's callback is marked again. */
typedef struct guard_mark {
    const sn_sensor *s;
    const char *callback;
} guard_mark;

static guard_mark enter(const sn_sensor *k, const char *what)
{
    guard_mark g;
    sn_guard_current(&g.s, &g.callback);
    sn_guard_enter(k, what);
    return g;
}

static void back(guard_mark g)
{
    if (g.s)
        sn_guard_enter(g.s, g.callback);
    else
        sn_guard_leave();
}

static sn_status fail(sn_ctx *c, sn_status st, const char *what)
{
    sn_format(sn_ctx_error_buf(c), SN_CTX_ERROR_MAX, "%s", what);
    return st;
}

static sn_status h_v2x_join(sn_ctx *c, const sn_v2x_params *p)
{
    sn_engine *e = c->engine;
    if (c->is_class || !c->actor_id)
        return fail(c, SN_E_STATE, "v2x_join: only a sensor instance joins the V2X medium");
    if (c->v2x_station)
        return fail(c, SN_E_STATE, "v2x_join: this sensor has joined the V2X medium already");
    sn_v2x_params q = SN_V2X_PARAMS_INIT;
    if (p) {
        if (p->struct_size < offsetof(sn_v2x_params, channel_id) + sizeof(const char *) ||
            p->struct_size > sizeof q)
            return fail(c, SN_E_INVALID, "v2x_join: params.struct_size is not sizeof(sn_v2x_params)");
        memcpy(&q, p, p->struct_size);
    }
    const sn_blueprint *bp = medium_class(e);
    if (!bp)
        return fail(c, SN_E_UNSUPPORTED, "v2x_join: no loaded plugin carries a V2X medium (the v2x plugin, "
                                         "sensor.other.v2x_custom, is not loaded)");
    sn_sensor *k = NULL;
    sn_error err;
    guard_mark g;
    sn_guard_current(&g.s, &g.callback);
    sn_status st = sn_class_of(e, bp, &k, &err); /* its class_create marks the guard itself */
    back(g);
    if (st)
        return fail(c, st, err.msg);
    const sn_actor *a = sn_world_find(&e->world, c->actor_id);
    uint32_t parent = a ? a->parent : 0;
    char why[SN_CTX_ERROR_MAX];
    why[0] = 0;
    uint64_t seed = sn_rng_u64(&c->rng);
    g = enter(k, "v2x_join");
    st = bp->cls->v2x_medium->join(k->self, c->actor_id, parent, c->name, seed, &q, &c->v2x_station, why, sizeof why);
    back(g);
    if (st)
        return fail(c, st, why[0] ? why : "v2x_join: the medium refused");
    c->v2x_class = k;
    return SN_OK;
}

static sn_status h_v2x_send(sn_ctx *c, const void *payload, uint32_t size)
{
    if (!c->v2x_station)
        return fail(c, SN_E_STATE, "v2x_send: call v2x_join first");
    char why[SN_CTX_ERROR_MAX];
    why[0] = 0;
    guard_mark g = enter(c->v2x_class, "v2x_send");
    sn_status st = c->v2x_class->cls->v2x_medium->send(c->v2x_class->self, c->v2x_station, payload, size, why,
                                                        sizeof why);
    back(g);
    return st ? fail(c, st, why[0] ? why : "v2x_send: the medium refused") : SN_OK;
}

static sn_status h_v2x_received(sn_ctx *c, sn_v2x_message *out, uint32_t cap, uint32_t *n_found)
{
    if (!n_found)
        return fail(c, SN_E_INVALID, "v2x_received: NULL n_found");
    *n_found = 0;
    if (!c->v2x_station)
        return fail(c, SN_E_STATE, "v2x_received: call v2x_join first");
    guard_mark g = enter(c->v2x_class, "v2x_received");
    sn_status st = c->v2x_class->cls->v2x_medium->received(c->v2x_class->self, c->v2x_station, out, cap, n_found);
    back(g);
    return st ? fail(c, st, "v2x_received: out[0].struct_size must be sizeof(sn_v2x_message), or NULL out with cap 0")
              : SN_OK;
}

void sn_host_v2x_leave(sn_sensor *s)
{
    if (!s->v2x_station)
        return;
    guard_mark g = enter(s->v2x_class, "v2x_leave");
    s->v2x_class->cls->v2x_medium->leave(s->v2x_class->self, s->v2x_station);
    back(g);
    s->v2x_station = NULL, s->v2x_class = NULL;
}

void sn_host_v2x_fill(sn_host *h)
{
    h->v2x_join = h_v2x_join;
    h->v2x_send = h_v2x_send;
    h->v2x_received = h_v2x_received;
}
