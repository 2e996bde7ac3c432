/* jsweep.h — whether a long vehicle's body, driven through the junction ahead, would meet one
** that stands there (docs/traffic.md, "Not yet": a truck that has started a turn cannot back off
** a body standing in its sweep, so it waits at the entry instead). Engine-internal. */
#ifndef SN_TRAFFIC_JSWEEP_H
#define SN_TRAFFIC_JSWEEP_H

#include "traffic_int.h"

struct sn_engine;

/* Half lengths from which a body counts as long (m): the trucks and buses (CARLA's european_hgv
** 3.97, firetruck 4.23, fusorosa 5.14; sensim's truck 4.0), not cars, vans or the ambulance (3.18). */
#define SN_JSWEEP_LONG 3.5

/* For a long vehicle a: its box driven along its path (pts[0..np), along[] from its centre) as
** pure pursuit steers it, up to dist m; the id of the first vehicle that box meets that stands
** (below 0.5 m/s), lies off a's own path (its corridor's bodies are leaders or queue: the leader
** rule's) and is not itself granted inside a junction (it will move on); 0 when none. skip: an
** actor not to count (a head-on pass's). */
uint32_t sn_jsweep_standing(const struct sn_engine *e, const sn_actor *a, const sn_vec3 *pts, const double *along,
                            size_t np, double v, double dist, uint32_t skip);

#endif
