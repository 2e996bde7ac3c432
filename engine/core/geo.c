#include "geo.h"

#include <math.h>

#define PI 3.14159265358979323846

static double to_radians(double deg) { return deg * PI / 180.0; } /* carla::geom::Math::ToRadians */

sn_geo_location sn_geo_from_location(const sn_geo_location *ref, sn_vec3 location)
{
    const double R = SN_EARTH_RADIUS_EQUA;
    double scale = cos(to_radians(ref->latitude)); /* LatToScale */
    /* LatLonToMercator */
    double mx = scale * to_radians(ref->longitude) * R;
    double my = scale * R * log(tan((90.0 + ref->latitude) * PI / 360.0));
    /* LatLonAddMeters(x, -y): UE's y points south, latitudes grow northward */
    mx += location.x;
    my += -location.y;
    /* MercatorToLatLon */
    sn_geo_location g;
    g.longitude = mx * 180.0 / (PI * R * scale);
    g.latitude = 360.0 * atan(exp(my / (R * scale))) / PI - 90.0;
    g.altitude = ref->altitude + location.z;
    return g;
}
