/* weather_api.c — the world's weather through the C API (CARLA's set_weather / get_weather). */
#include "engine.h"
#include "weather_api.h"

#include "../core/error.h"
#include "../world/weather.h"

#include <stdio.h>

void sn_engine_apply_weather(sn_engine *e, const sn_weather *w)
{
    e->lighting.weather = *w;
    e->weather_serial++;
    char list[400];
    if (e->weather_warned || !sn_weather_unrendered(w, list, sizeof list))
        return;
    e->weather_warned = true;
    char line[600];
    snprintf(line, sizeof line, "weather: %s accepted and recorded but not rendered (docs/weather.md)", list);
    if (e->opts.log)
        e->opts.log(SN_LOG_WARN, line, e->opts.log_user);
    else if (!e->opts.quiet_plugins)
        fprintf(stderr, "sensim: warning: %s\n", line);
}

sn_status sn_engine_set_weather(sn_engine *e, const sn_weather *weather, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !weather)
        return sn_fail(err, SN_E_INVALID, "set_weather: NULL engine or weather");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "set_weather: no scene loaded");
    sn_weather w = *weather;
    sn_status st = sn_weather_validate(&w, err);
    if (st)
        return sn_error_prefix(err, "set_weather");
    sn_engine_apply_weather(e, &w);
    return SN_OK;
}

sn_status sn_engine_get_weather(const sn_engine *e, sn_weather *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!e || !out)
        return sn_fail(err, SN_E_INVALID, "get_weather: NULL engine or output");
    if (!e->loaded)
        return sn_fail(err, SN_E_STATE, "get_weather: no scene loaded");
    *out = e->lighting.weather;
    return SN_OK;
}

sn_status sn_weather_preset_get(const char *name, sn_weather *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!name || !out)
        return sn_fail(err, SN_E_INVALID, "weather preset: NULL name or output");
    if (!sn_weather_preset(name, out))
        return sn_fail(err, SN_E_NOT_FOUND, "weather preset '%s': no such preset (CARLA's names, e.g. ClearNoon)",
                       name);
    return SN_OK;
}

const char *sn_weather_preset_at(unsigned index) { return sn_weather_preset_name(index); }
