/* geo.h — CARLA's geo-reference: world locations as latitude, longitude, altitude. */
#ifndef SN_CORE_GEO_H
#define SN_CORE_GEO_H

#include <sensim/types.h>

#define SN_EARTH_RADIUS_EQUA 6378137.0 /* m, CARLA's EARTH_RADIUS_EQUA (WGS84 equator) */

/*
** CARLA's GeoLocation::Transform (LibCarla/source/carla/geom/GeoLocation.cpp, 0.9.x): the
** reference point is projected with a Mercator scaled by cos(reference latitude), the world
** offset (x east, -y north) is added in metres, and the sum is projected back; altitude is
** the reference's plus z. The same operations in the same order, so results match CARLA's
** to the last bit on the same libm.
*/
sn_geo_location sn_geo_from_location(const sn_geo_location *ref, sn_vec3 location);

#endif
