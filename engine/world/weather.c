/* weather.c — CARLA 0.9.15's WeatherParameters presets (LibCarla/source/carla/rpc/
** WeatherParameters.cpp), field table and ranges. */
#include "weather.h"

#include <sensim/weather_fields.h>

#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#define SN_WF_NAME(name, lo, hi, r) #name,
const char *const sn_weather_field_names[SN_WEATHER_FIELDS] = {SN_WEATHER_FIELD_LIST(SN_WF_NAME)};

/* Ranges and what is drawn: sensim/weather_fields.h, the one list. */
#define SN_WF_RANGE(name, lo, hi, r) {lo, hi, r},
static const struct { double lo, hi; bool rendered; } fields[SN_WEATHER_FIELDS] = {SN_WEATHER_FIELD_LIST(SN_WF_RANGE)};

/* Fields by index through their offsets: walking a struct's members as a double array is not
** defined C, a char pointer plus offsetof is. */
#define SN_WF_OFF(name, lo, hi, r) offsetof(sn_weather, name),
static const size_t field_off[SN_WEATHER_FIELDS] = {SN_WEATHER_FIELD_LIST(SN_WF_OFF)};

/* The list names every member once, in order: as many entries as the struct has doubles. */
#define SN_WF_ONE(name, lo, hi, r) +1
_Static_assert(0 SN_WEATHER_FIELD_LIST(SN_WF_ONE) == SN_WEATHER_FIELDS, "SN_WEATHER_FIELDS counts the list");
_Static_assert(sizeof(sn_weather) == SN_WEATHER_FIELDS * sizeof(double), "sn_weather is the list's doubles");
/* ... and in the struct's order: the recorder writes them in the list's. */
#define SN_WF_INDEX(name, lo, hi, r) SN_WF_I_##name,
enum { SN_WEATHER_FIELD_LIST(SN_WF_INDEX) };
#define SN_WF_ORDER(name, lo, hi, r)                                                                                   \
    _Static_assert(offsetof(sn_weather, name) == SN_WF_I_##name * sizeof(double), #name " in the struct's order");
SN_WEATHER_FIELD_LIST(SN_WF_ORDER)

double *sn_weather_field(sn_weather *w, unsigned i) { return (double *)(void *)((char *)w + field_off[i]); }
double sn_weather_field_get(const sn_weather *w, unsigned i)
{
    return *(const double *)(const void *)((const char *)w + field_off[i]);
}

void sn_weather_zero(sn_weather *w) { *w = (sn_weather){.rayleigh_scattering_scale = 0.0331f}; }

void sn_weather_default(sn_weather *w, double sun_azimuth, double sun_altitude)
{
    sn_weather_zero(w);
    w->sun_azimuth_angle = sun_azimuth;
    w->sun_altitude_angle = sun_altitude;
}

/* CARLA 0.9.15, in its column order: cloudiness, precipitation, precipitation_deposits,
** wind_intensity, sun_azimuth_angle, sun_altitude_angle, fog_density, fog_distance,
** fog_falloff, wetness, scattering_intensity, mie_scattering_scale, rayleigh_scattering_scale,
** dust_storm. Float literals as CARLA's: every field is a float32 there, and sensim rounds
** every value it is given to float32 too, so `fog_falloff: 0.1` equals the presets' 0.1f. */
static const struct { const char *name; float v[SN_WEATHER_FIELDS]; } presets[] = {
    {"ClearNoon",       {5, 0, 0, 10, -1, 45, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"CloudyNoon",      {60, 0, 0, 10, -1, 45, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetNoon",         {5, 0, 50, 10, -1, 45, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetCloudyNoon",   {60, 0, 50, 10, -1, 45, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"MidRainyNoon",    {60, 60, 60, 60, -1, 45, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"HardRainNoon",    {100, 100, 90, 100, -1, 45, 7, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"SoftRainNoon",    {20, 30, 50, 30, -1, 45, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"ClearSunset",     {5, 0, 0, 10, -1, 15, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"CloudySunset",    {60, 0, 0, 10, -1, 15, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetSunset",       {5, 0, 50, 10, -1, 15, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetCloudySunset", {60, 0, 50, 10, -1, 15, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"MidRainSunset",   {60, 60, 60, 60, -1, 15, 3, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"HardRainSunset",  {100, 100, 90, 100, -1, 15, 7, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"SoftRainSunset",  {20, 30, 50, 30, -1, 15, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"ClearNight",      {5, 0, 0, 10, -1, -90, 60, 75, 1, 0, 1, 0.03f, 0.0331f, 0}},
    {"CloudyNight",     {60, 0, 0, 10, -1, -90, 60, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 0}},
    {"WetNight",        {5, 0, 50, 10, -1, -90, 60, 75, 1, 60, 1, 0.03f, 0.0331f, 0}},
    {"WetCloudyNight",  {60, 0, 50, 10, -1, -90, 60, 0.75f, 0.1f, 60, 1, 0.03f, 0.0331f, 0}},
    {"SoftRainNight",   {60, 30, 50, 30, -1, -90, 60, 0.75f, 0.1f, 60, 1, 0.03f, 0.0331f, 0}},
    {"MidRainyNight",   {80, 60, 60, 60, -1, -90, 60, 0.75f, 0.1f, 80, 1, 0.03f, 0.0331f, 0}},
    {"HardRainNight",   {100, 100, 90, 100, -1, -90, 100, 0.75f, 0.1f, 100, 1, 0.03f, 0.0331f, 0}},
    {"DustStorm",       {100, 0, 0, 100, -1, 45, 2, 0.75f, 0.1f, 0, 1, 0.03f, 0.0331f, 100}},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

bool sn_weather_preset(const char *name, sn_weather *out)
{
    if (strcmp(name, "Default") == 0) {
        sn_weather_default(out, 135, 50);
        return true;
    }
    for (size_t k = 0; k < N_PRESETS; k++)
        if (strcmp(name, presets[k].name) == 0) {
            for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++)
                *sn_weather_field(out, i) = presets[k].v[i];
            return true;
        }
    return false;
}

const char *sn_weather_preset_name(unsigned index)
{
    return index == 0 ? "Default" : index <= N_PRESETS ? presets[index - 1].name : NULL;
}

sn_status sn_weather_validate(sn_weather *w, sn_error *err)
{
    for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++) {
        double v = sn_weather_field_get(w, i);
        if (!(v >= fields[i].lo && v <= fields[i].hi))
            return sn_fail(err, SN_E_RANGE, "weather %s = %g: must be within [%g, %g]", sn_weather_field_names[i], v,
                           fields[i].lo, fields[i].hi);
    }
    /* Rounded through a volatile float: GCC 12 at -O3 merged this loop with the range checks
    ** above and stored the last two fields unrounded (found by test_weather in a release build). */
    for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++) {
        volatile float f = (float)sn_weather_field_get(w, i);
        *sn_weather_field(w, i) = f;
    }
    return SN_OK;
}

/* How many unrendered fields of w differ from base values v (float32, as stored). */
static unsigned unrendered_diff(const sn_weather *w, const float *v, char *buf, size_t size)
{
    unsigned d = 0;
    size_t n = 0;
    for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++)
        if (!fields[i].rendered && (float)sn_weather_field_get(w, i) != v[i]) {
            d++;
            if (buf && n < size)
                n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", sn_weather_field_names[i]);
        }
    return d;
}

bool sn_weather_unrendered(const sn_weather *w, char *buf, size_t size)
{
    /* the bases: CARLA's constructor defaults, then every preset; the nearest one names the fields */
    sn_weather z;
    sn_weather_zero(&z);
    float zv[SN_WEATHER_FIELDS];
    for (unsigned i = 0; i < SN_WEATHER_FIELDS; i++)
        zv[i] = (float)sn_weather_field_get(&z, i);
    const float *best = zv;
    unsigned best_d = unrendered_diff(w, zv, NULL, 0);
    for (size_t k = 0; k < N_PRESETS && best_d; k++) {
        unsigned d = unrendered_diff(w, presets[k].v, NULL, 0);
        if (d < best_d)
            best_d = d, best = presets[k].v;
    }
    buf[0] = 0;
    if (!best_d)
        return false;
    unrendered_diff(w, best, buf, size);
    return true;
}
