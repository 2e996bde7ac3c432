/* host_map.h — the map queries of the host table (ABI 1.4), filled by host_map.c. */
#ifndef SN_SIM_HOST_MAP_H
#define SN_SIM_HOST_MAP_H

#include <sensim/host.h>

/* host_map.c: the map queries (ABI 1.4) */
void sn_host_map_fill(sn_host *h);

#endif
