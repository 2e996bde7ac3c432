/* weather_api.h — the world's weather: the public calls (sensim.h) and the engine's own setter
** (weather_api.c). */
#ifndef SN_SIM_WEATHER_API_H
#define SN_SIM_WEATHER_API_H

#include <sensim/sensim.h>

struct sn_engine;

/* Makes *w (validated) the world's weather: the renderer draws it from the next render, the
** recorder records it; warns once per engine about fields that are set but not rendered. */
void sn_engine_apply_weather(struct sn_engine *e, const sn_weather *w);

#endif
