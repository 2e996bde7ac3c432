/*
** custom.h — custom V2X messages: texts queued by send() until the sensor's next tick, each
** transmitted once (CARLA 0.9.16+: every send kept, in order; a sensor without a parent uses
** its own id as station id).
*/
#ifndef SN_V2X_CUSTOM_H
#define SN_V2X_CUSTOM_H

#include "msg.h"

#include <sensim/plugin.h>

typedef struct sn_v2x_text {
    uint8_t len;
    char data[SN_V2X_TEXT_MAX];
} sn_v2x_text;

typedef struct sn_v2x_outbox {
    sn_v2x_text *q;
    uint32_t n, cap;
} sn_v2x_outbox;

/* The `send` method: argv[0] queued, or an error (set on ctx) for a text over the limit. */
sn_status sn_v2x_custom_send(sn_v2x_outbox *o, const sn_host *h, sn_ctx *ctx, uint32_t argc,
                             const char *const *argv);
void sn_v2x_outbox_free(sn_v2x_outbox *o);

#endif
