/* host_v2x.h — the host table's V2X calls (ABI 1.6; host_v2x.c): v2x_join, v2x_send and
** v2x_received lend another plugin the medium a loaded class carries (sensor.other.v2x_custom's). */
#ifndef SN_SIM_HOST_V2X_H
#define SN_SIM_HOST_V2X_H

#include "ctx.h"

#include <sensim/host.h>

void sn_host_v2x_fill(sn_host *h);
/* Takes a sensor's station out of the medium (after its destroy); nothing when it has none. */
void sn_host_v2x_leave(sn_sensor *s);

#endif
