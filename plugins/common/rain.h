/* rain.h — falling rain as the RGB camera sees it (docs/rendering.md "Rain"): streaks of the drops
** within 15 m of the lens, as many as `precipitation` says, bent by `wind_intensity`, drawn over
** the finished image. Deterministic: the drops come from one draw of the sensor's random stream. */
#ifndef SN_COMMON_RAIN_H
#define SN_COMMON_RAIN_H

#include <sensim/types.h>

#include <stdint.h>

#define RAIN_DROPS 30    /* drops in view per unit of precipitation (3000 at 100) */
#define RAIN_NEAR 0.7    /* m: the nearest and farthest drops drawn */
#define RAIN_FAR 15.0
#define RAIN_FALL 8.0    /* m/s: a raindrop's terminal speed */
#define RAIN_WIND 5.0    /* m/s of horizontal wind at wind_intensity 100, towards world +y */
#define RAIN_STREAK 0.02 /* s: how long a streak's drop travels (the eye's and a camera's blur) */

/* Draws the streaks over the w x h BGRA image of a camera with horizontal fov (degrees) and world
** rotation `rot`, for precipitation and wind_intensity (0..100), from seed. Nothing when
** precipitation is 0. depth: NULL, or the image's planar depth (metres, w x h): a streak's pixel
** is hidden where the surface seen there is nearer than the drop (a drop behind a car). */
void rain_draw(uint8_t *bgra, const float *depth, uint32_t w, uint32_t h, double fov, sn_rotation rot,
               double precipitation, double wind_intensity, uint64_t seed);

#endif
