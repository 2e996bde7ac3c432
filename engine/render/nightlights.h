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

/* The street lamp's falloff tabulated (docs/rendering.md "Night", "The street lamps' fast
** falloff"): its Gaussian of the angle from the vertical, exp(-theta^2 / (2 spread^2)), as a
** function of c = cos theta = v.z / |v| (v = lamp - point), for c in (SN_STREET_FALLOFF_MIN, 1]
** on SN_STREET_FALLOFF_N cells, linearly interpolated: under 6e-8 off everywhere (1.5e-6 of the
** value at the table's low end). Below it (a point level with or above the head) the exact form. */
#define SN_STREET_FALLOFF_N 2048
#define SN_STREET_FALLOFF_MIN (-0.9)
extern double sn_street_falloff_tab[SN_STREET_FALLOFF_N + 1];
/* Fills the table once per process (thread-safe); sn_lamps_build calls it. */
void sn_street_falloff_init(void);
static inline double sn_street_falloff(double c)
{
    double t = (c - SN_STREET_FALLOFF_MIN) * (SN_STREET_FALLOFF_N / (1 - SN_STREET_FALLOFF_MIN));
    int i = (int)t;
    i = i > SN_STREET_FALLOFF_N - 1 ? SN_STREET_FALLOFF_N - 1 : i;
    return sn_street_falloff_tab[i] + (sn_street_falloff_tab[i + 1] - sn_street_falloff_tab[i]) * (t - i);
}

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
