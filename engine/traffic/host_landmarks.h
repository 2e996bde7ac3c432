/* host_landmarks.h — the host table's traffic queries (host_landmarks.c): actor_route and
** landmarks_ahead (ABI 1.6). The engine adds them after sn_host_init (sim/host.h) fills the rest. */
#ifndef SN_TRAFFIC_HOST_LANDMARKS_H
#define SN_TRAFFIC_HOST_LANDMARKS_H

#include <sensim/host.h>

void sn_host_landmarks_fill(sn_host *h);

#endif
