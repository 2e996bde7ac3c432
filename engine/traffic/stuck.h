/* stuck.h — CARLA's Traffic Manager removal of a vehicle stuck too long (ALSM.cpp, docs/traffic.md
** "Stuck vehicles"). */
#ifndef SN_TRAFFIC_STUCK_H
#define SN_TRAFFIC_STUCK_H

#include <sensim/sensim.h>

struct sn_engine;

/* At the start of a frame (with the scene's own destructions, before any sensor or controller
** runs): updates every Traffic-Manager-driven vehicle's idle time and destroys the one idle
** longest once it is stuck, at most one every 10 s. SN_E_NOMEM when its DESTROYED event could not
** be queued (the vehicle is gone all the same). */
sn_status sn_tm_remove_stuck(struct sn_engine *e, sn_error *err);

#endif
