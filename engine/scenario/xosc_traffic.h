/* xosc_traffic.h — OpenSCENARIO's TrafficSwarmAction, TrafficSourceAction and TrafficSinkAction
** on sensim's traffic (xosc_traffic.c): vehicles spawned with the map autopilot (docs/traffic.md)
** and despawned, each step, for the traffic actions the storyboard started (sn_xrun.traffic).
** docs/openscenario.md, "Traffic". */
#ifndef SN_SCENARIO_XOSC_TRAFFIC_H
#define SN_SCENARIO_XOSC_TRAFFIC_H

#include "xosc_run.h"

struct sn_engine;
typedef struct sn_xtraffic_state sn_xtraffic_state;

/* Spawns and despawns for every traffic action of r at r->t. *st is created at the first call (NULL before); the caller frees it with sn_xtraffic_free.
** Errors name FILE:LINE of the action. */
sn_status sn_xtraffic_step(struct sn_engine *e, sn_xrun *r, sn_xtraffic_state **st, sn_error *err);
void sn_xtraffic_free(sn_xtraffic_state *st); /* NULL-safe */

#endif
