/* host.h — the host table a plugin calls (sensim/host.h): host.c fills the core, host_query.c the ray
** queries, host_map.c the map queries; routes, lights and signs are traffic's
** (traffic/host_landmarks.h), added by the engine after sn_host_init. */
#ifndef SN_SIM_HOST_H
#define SN_SIM_HOST_H

#include "../query/rayscene.h"

#include <sensim/host.h>
#include <sensim/sensim.h>

struct sn_engine;

void sn_host_init(sn_host *h);
/* host_query.c: ray_cast, ray_batch, sweep_sphere, overlap_sphere */
void sn_host_query_fill(sn_host *h);
/* host_map.c: the map queries (ABI 1.4) */
void sn_host_map_fill(sn_host *h);
/* The engine's ray index (created on first use); NULL with err set when it cannot start. */
sn_rayscene *sn_engine_rays(struct sn_engine *e, sn_error *err);

#endif
