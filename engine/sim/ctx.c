/* ctx.c — what every sensor context shares: its error text, its resolved values, the sentence
** of a failed plugin callback (ctx.h). */
#include "ctx.h"
#include "engine.h"

#include "../core/error.h"

#include <stdlib.h>

char *sn_ctx_error_buf(sn_ctx *c)
{
    if (!c->error && !(c->error = malloc(SN_CTX_ERROR_MAX)))
        c->error = c->engine->error_spare;
    return c->error;
}

void sn_ctx_error_free(sn_ctx *c)
{
    if (c->error != c->engine->error_spare)
        free(c->error);
    c->error = NULL;
}

void sn_sensor_values_share(sn_engine *e, sn_sensor *s)
{
    s->values = sn_vshare_take(&e->world.vshare, s->values, s->bp->n_attrs, &s->values_shared);
}

void sn_sensor_values_free(sn_engine *e, sn_sensor *s)
{
    if (s->values_shared)
        sn_vshare_drop(&e->world.vshare, s->values, s->bp->n_attrs);
    else
        free(s->values);
    s->values = NULL;
    s->values_shared = false;
}

sn_status sn_plugin_fail(sn_sensor *s, const char *callback, sn_status st, sn_error *err)
{
    return sn_fail(err, st == SN_OK ? SN_E_PLUGIN : st, "sensor '%s' (%s, plugin %s): %s failed: %s",
                   s->name, s->bp->id, s->bp->plugin ? s->bp->plugin->path : "built-in", callback,
                   sn_ctx_error(s)[0] ? sn_ctx_error(s) : "no message given");
}
