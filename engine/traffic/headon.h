/* headon.h — two vehicles that hold each other face to face outside a junction (docs/traffic.md,
** "Two wide vehicles face to face"): the pair is found, the one whose body can drive past the
** other's drives past it at a crawl, stepped aside within its lane, while the other keeps still.
** Engine-internal. */
#ifndef SN_TRAFFIC_HEADON_H
#define SN_TRAFFIC_HEADON_H

#include "traffic.h"

struct sn_engine;

/* The vehicle a's leader search skips this frame: the one it drives past (0: none). Ends a pass
** that is done (a's rear past the other's), timed out or whose other vehicle is gone. */
uint32_t sn_headon_skip(struct sn_engine *e, const sn_actor *a, sn_mapdrive *md);
/* The speed a head-on pass allows a (m/s; INFINITY: no limit): while it drives past the other,
** a crawl that stops short of where its swept box (pure pursuit along its path, as it steers)
** would come within a margin of the other's box; 0 while another drives past it.
** pts[0..np) and along[] are a's path points and their distances from its centre. */
double sn_headon_limit(struct sn_engine *e, const sn_actor *a, sn_mapdrive *md, const sn_vec3 *pts,
                       const double *along, size_t np);
/* After a's leader search found `who` (NULL: none): when a and who stand facing each other outside
** junctions (at a junction: at any angle), each the other's leader, both for SN_HEADON_STAND s, picks the one to drive past
** (the one whose swept box clears the other's; both: the lower id; neither: none) and starts its
** pass. Counted as a deadlock resolved. */
void sn_headon_detect(struct sn_engine *e, const sn_actor *a, sn_mapdrive *md, const sn_actor *who, const sn_vec3 *pts,
                      const double *along, size_t np);

/* At a junction, where neither of two such vehicles fits past the other, the one inside it passes
** and the other (the keeper) backs off: sets the keeper's controls; true while it does. */
bool sn_headon_back(struct sn_engine *e, sn_actor *a, sn_mapdrive *md, double v);

#define SN_HEADON_STAND 4.0 /* s both stand before the pair is broken */

#endif
