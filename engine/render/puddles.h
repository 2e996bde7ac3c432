/* puddles.h — where precipitation_deposits leaves standing water (docs/rendering.md "Rain"). */
#ifndef SN_PUDDLES_H
#define SN_PUDDLES_H

#include <sensim/types.h>

/* How much of ground point p is under a puddle, 0..1, for deposits 0..1: value noise over the
** ground (cells of 4 m and 1.5 m), thresholded so puddles cover up to 45 % of it at deposits 1,
** with soft rims. A pure function of (x, y): the same puddles in every camera and frame. */
double sn_puddle(double deposits, sn_vec3 p);

#endif
