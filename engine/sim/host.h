/* host.h — the host table a plugin calls (sensim/host.h): host.c fills the core, host_query.c the ray
** queries (host_query.h), host_map.c the map queries (host_map.h); routes, lights and signs are traffic's
** (traffic/host_landmarks.h), added by the engine after sn_host_init. */
#ifndef SN_SIM_HOST_H
#define SN_SIM_HOST_H

#include <sensim/host.h>
#include <sensim/sensim.h>

void sn_host_init(sn_host *h);

#endif
