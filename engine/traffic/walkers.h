/* walkers.h — walkers of the map autopilot: along sidewalks and across crosswalks.
** docs/walkers.md. */
#ifndef SN_TRAFFIC_WALKERS_H
#define SN_TRAFFIC_WALKERS_H

#include "traffic.h"

/* Step 3: walker a's direction and speed for this frame, from the last frame's state. */
void sn_walker_update(struct sn_engine *e, sn_actor *a, sn_mapdrive *md);

#endif
