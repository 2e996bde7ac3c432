/* weather_fields.h — sn_weather's fields as one list (MuJoCo's mjxmacro.h way): the engine's
** names, ranges and field table, the scene's keys, the recorder's packets and the renderer's
** "is it drawn" all expand it, so a field is added in one place.
**
**   X(name, lo, hi, rendered)
**
** in sn_weather's member order, which is CARLA 0.9.15's WeatherParameters order; lo..hi the
** range CARLA documents (python_api.md), with its open ends bounded so no value reaches the
** renderer's exponentials as overflow; rendered 1 when the renderer draws the field
** (docs/weather.md), 0 when it is accepted and recorded only. Expand it with a macro of your
** own: `#define F(name, lo, hi, r) out[i++] = w->name;` then `SN_WEATHER_FIELD_LIST(F)`. */
#ifndef SENSIM_WEATHER_FIELDS_H
#define SENSIM_WEATHER_FIELDS_H

#define SN_WEATHER_FIELD_LIST(X)                                                                                       \
    X(cloudiness, 0, 100, 1)                                                                                           \
    X(precipitation, 0, 100, 1)                                                                                        \
    X(precipitation_deposits, 0, 100, 1)                                                                               \
    X(wind_intensity, 0, 100, 1)                                                                                       \
    X(sun_azimuth_angle, -360, 360, 1)                                                                                 \
    X(sun_altitude_angle, -90, 90, 1)                                                                                  \
    X(fog_density, 0, 100, 1)                                                                                          \
    X(fog_distance, 0, 1e6, 1)                                                                                         \
    X(fog_falloff, 0, 1000, 1)                                                                                         \
    X(wetness, 0, 100, 1)                                                                                              \
    X(scattering_intensity, 0, 1000, 0)                                                                                \
    X(mie_scattering_scale, 0, 1000, 0)                                                                                \
    X(rayleigh_scattering_scale, 0, 1000, 0)                                                                           \
    X(dust_storm, 0, 100, 0)

#endif
