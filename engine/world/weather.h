/* weather.h — CARLA's WeatherParameters (sensim/types.h sn_weather): presets by name, field
** names in CARLA's order, validation, and which fields the renderer draws. docs/weather.md. */
#ifndef SN_WEATHER_H
#define SN_WEATHER_H

#include "../core/error.h"

#include <sensim/types.h>

#define SN_WEATHER_FIELDS 14

/* Field names in CARLA's order (sn_weather's member order), and each field's value by index. */
extern const char *const sn_weather_field_names[SN_WEATHER_FIELDS];
double *sn_weather_field(sn_weather *w, unsigned i);
double sn_weather_field_get(const sn_weather *w, unsigned i);

/* CARLA's WeatherParameters() constructor: every field 0 but rayleigh_scattering_scale 0.0331f
** (as float32, like every value sensim keeps). */
void sn_weather_zero(sn_weather *w);
/* sensim's weather when a scene sets none: a clear day with the sun of settings.lighting. */
void sn_weather_default(sn_weather *w, double sun_azimuth, double sun_altitude);

/* CARLA 0.9.15's preset `name` (case-sensitive as CARLA's attributes: "ClearNoon",
** "WetCloudySunset", ...); false if there is none. "Default" is sensim's default weather
** (CARLA's is -1 everywhere, "keep the map's"), given the scene's lighting sun. */
bool sn_weather_preset(const char *name, sn_weather *out);
/* The index-th preset's name (NULL past the last): for docs, errors and tests. */
const char *sn_weather_preset_name(unsigned index);

/* Checks every field is finite and inside its range (err names the field and the range), then
** rounds each to float32 as CARLA stores them, so a value written as 0.1 equals a preset's 0.1f. */
sn_status sn_weather_validate(sn_weather *w, sn_error *err);

/* Unrendered fields set by hand: false when w's unrendered fields all equal CARLA's
** constructor defaults or all equal one preset's (a preset by name, or a preset with rendered
** fields changed, says nothing); else the fields that differ from the nearest of those, as
** "precipitation, wind_intensity", into buf. */
bool sn_weather_unrendered(const sn_weather *w, char *buf, size_t size);

#endif
