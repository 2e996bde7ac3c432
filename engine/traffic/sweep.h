/* sweep.h — the vehicles a long body's sweep presses that its path corridor does not see
** (docs/traffic.md, "Long bodies in a turn"). Engine-internal. */
#ifndef SN_TRAFFIC_SWEEP_H
#define SN_TRAFFIC_SWEEP_H

#include "traffic_int.h"

struct sn_engine;

/* Half lengths from which a body counts as long (m): the trucks and buses (CARLA's european_hgv
** 3.97, firetruck 4.23, fusorosa 5.14; sensim's truck 4.0), not cars, vans or the ambulance (3.18). */
#define SN_SWEEP_LONG 3.5

/* For a long vehicle a (half length >= SN_SWEEP_LONG) at speed v: its box driven along its path
** (pts[0..np), along[] from its centre) as pure pursuit steers it, up to dist m; the vehicle that
** box meets first (grown by a margin; one it touches already: the first it would press further)
** is its leader, at the distance driven until then, when that is less than the corridor's leader's
** (has_lead, *gap, *who: kept for that one). Sets *gap, *v_lead (along a's heading) and *who;
** returns whether a has a leader. Skips what skip says (vehicles, the actor). */
bool sn_sweep_leader(const struct sn_engine *e, const sn_actor *a, const sn_vec3 *pts, const double *along, size_t np,
                     double v, double dist, const sn_leader_skip *skip, bool has_lead, double *gap, double *v_lead,
                     const sn_actor **who);

#endif
