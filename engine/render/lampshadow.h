/* lampshadow.h — street lights' shadows (docs/rendering.md "Night"): what stands between a
** street lamp and a surface point takes the lamp's light away. The occluders are the bounding
** boxes of the world's actors (vehicles, walkers, props, buildings: not sensors nor ground
** planes), posed for the render; each lamp keeps the boxes within its range, so a pixel tests
** only those of the few lamps near it, exactly (a segment against an oriented box: hard edges).
** The scenery's own meshes (poles, trees, buildings from the map) cast no lamp shadow: a
** documented approximation (they stand off the road, where the lamps shine). Pure functions of
** the world: the same at any thread count. */
#ifndef SN_LAMPSHADOW_H
#define SN_LAMPSHADOW_H

#include "headlights.h"

/* An oriented box: centre, unit axes (rows), half extents, and its bounding radius. */
typedef struct sn_occluder {
    sn_vec3 c;
    sn_vec3 ax[3];
    double e[3];
    double rad;
} sn_occluder;

/* Gives spots [first, L->n) (street lamps) their occluders: every actor box of w posed at alpha
** that reaches within a lamp's range. False when out of memory. */
bool sn_lamp_occluders_build(sn_lamps *L, const sn_world *w, double alpha, size_t first);

/* Whether one of spot s's boxes cuts the segment from p to the lamp (v = lamp - p, d = |v|).
** A box the segment starts inside (the lit surface's own actor) does not count. */
bool sn_lamp_occluded(const sn_lamps *L, const sn_spot *s, sn_vec3 p, sn_vec3 v, double d);

#endif
