/* host_query.h — the host's ray queries and the engine's ray index behind them (host_query.c). */
#ifndef SN_SIM_HOST_QUERY_H
#define SN_SIM_HOST_QUERY_H

#include "../query/rayscene.h"

#include <sensim/host.h>
#include <sensim/sensim.h>

struct sn_engine;

/* host_query.c: ray_cast, ray_batch, sweep_sphere, overlap_sphere */
void sn_host_query_fill(sn_host *h);
/* The engine's ray index (created on first use); NULL with err set when it cannot start. */
sn_rayscene *sn_engine_rays(struct sn_engine *e, sn_error *err);

#endif
