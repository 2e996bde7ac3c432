/* custom.c — send(): the text checked against CARLA's 100-byte limit and queued. */
#include "custom.h"
#include "medium.h"

#include <stdlib.h>
#include <string.h>

sn_status sn_v2x_custom_send(sn_v2x_outbox *o, const sn_host *h, sn_ctx *ctx, uint32_t argc,
                             const char *const *argv)
{
    if (argc != 1 || !argv || !argv[0]) {
        h->set_error(ctx, "send takes one argument, the text to transmit (got %u)", argc);
        return SN_E_INVALID;
    }
    size_t n = strlen(argv[0]);
    /* CARLA's message holds 100 bytes (REL overflowed a char[100] past 99): refuse, never cut. */
    if (n > SN_V2X_TEXT_MAX) {
        h->set_error(ctx, "the text is %zu bytes; a custom V2X message carries at most %d", n,
                     SN_V2X_TEXT_MAX);
        return SN_E_RANGE;
    }
    if (!sn_grow_array32((void **)&o->q, &o->cap, o->n + 1, sizeof *o->q)) {
        h->set_error(ctx, "send: out of memory");
        return SN_E_NOMEM;
    }
    o->q[o->n].len = (uint8_t)n;
    memcpy(o->q[o->n].data, argv[0], n);
    o->n++;
    return SN_OK;
}

void sn_v2x_outbox_free(sn_v2x_outbox *o)
{
    free(o->q);
    *o = (sn_v2x_outbox){0};
}
