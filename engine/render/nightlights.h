/* nightlights.h — the town's lights after dusk (docs/rendering.md "Night"): street lights as
** downward spots from the scenery's lamp heads, the lamp heads themselves, lit windows on some
** buildings, and the glow of traffic-light heads. All scale with the sky's `night` (1 - day:
** the sun's altitude through civil twilight, shade.c), so they switch on as the sun sets. Pure
** functions of the world: the same at any thread count. */
#ifndef SN_NIGHTLIGHTS_H
#define SN_NIGHTLIGHTS_H

#include "../map/road_mesh.h"
#include "headlights.h"

#define SN_STREET_LAMP_I 25.0      /* a lamp's irradiance 1 m below it (headlights.c's units) */
#define SN_STREET_LAMP_RANGE 35.0  /* m: where its light fades to 0 */
#define SN_STREET_LAMP_SPREAD 60.0 /* degrees: the Gaussian spread of its beam about the vertical */

/* Adds a spot under every street lamp head of the road mesh whose light can reach what a
** camera at eye sees within far metres, scaled by night. False when out of memory. */
bool sn_street_lamps_add(sn_lamps *L, const sn_road_mesh *m, double night, sn_vec3 eye, double far);
/* A road or scenery chunk at night: lamp heads glow; the windows of about two buildings in three
** turn warm and glow. Changes color and *glow only when night > 0. */
void sn_night_chunk(const sn_road_chunk *k, double night, uint8_t color[3], float *glow);
/* An actor's own light at night: a traffic-light head in a lit state (its colour, not the off
** grey) glows. 0 otherwise. */
float sn_night_actor_glow(const sn_actor *a, double night);

#endif
