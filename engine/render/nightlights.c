/* nightlights.c — street lights, lamp heads, lit windows and glowing signals at night
** (nightlights.h). */
#include "nightlights.h"

#include "../scenery/scenery.h"

#include <math.h>
#include <pthread.h>

#define WINDOW_LIT_NIGHT 0.3 /* the night level (0..1) from which windows are lit */

bool sn_street_lamps_add(sn_lamps *L, const sn_road_mesh *m, double night, sn_vec3 eye, double far)
{
    if (!(night > 0) || !m)
        return true;
    const uint32_t lamp = SN_ROAD_N_CATEGORIES + SN_SC_LAMP;
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const sn_road_chunk *k = &m->chunks[i];
        if (k->category != lamp)
            continue;
        /* the light leaves the head's underside */
        sn_vec3 p = sn_v3(0.5 * (k->lo[0] + k->hi[0]), 0.5 * (k->lo[1] + k->hi[1]), k->lo[2] - 0.02);
        if (sn_v3_len(sn_v3_sub(p, eye)) > far + SN_STREET_LAMP_RANGE)
            continue;
        /* straight down; no azimuth dependence (a huge sig_h); every direction is "above" the
        ** downward axis, so sig_above is the spread. The range is SN_STREET_LAMP_RANGE (the fast
        ** falloff in headlights.c uses the constant) */
        sn_spot s = {p, 1, 0, -M_PI / 2, 1e3, SN_STREET_LAMP_SPREAD * M_PI / 180, SN_STREET_LAMP_SPREAD * M_PI / 180,
                     SN_STREET_LAMP_I * night, SN_STREET_LAMP_RANGE, 0, 0, i + 1, 0, 0};
        if (!sn_lamps_add(L, &s))
            return false;
    }
    return true;
}

double sn_street_falloff_tab[SN_STREET_FALLOFF_N + 1];

static void falloff_fill(void)
{
    const double sv = SN_STREET_LAMP_SPREAD * M_PI / 180; /* as the spot's sig_above */
    for (int i = 0; i <= SN_STREET_FALLOFF_N; i++) {
        double c = SN_STREET_FALLOFF_MIN + (1 - SN_STREET_FALLOFF_MIN) * i / SN_STREET_FALLOFF_N;
        double th = acos(c < 1 ? c : 1);
        sn_street_falloff_tab[i] = exp(-0.5 * (th * th / (sv * sv)));
    }
}

void sn_street_falloff_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, falloff_fill);
}

/* A building's windows are lit when a hash of its instance id says so (about two in three). */
static bool lit(uint32_t instance)
{
    uint32_t h = instance * 2654435761u;
    h ^= h >> 15;
    return h % 3 != 0;
}

void sn_night_chunk(const sn_road_chunk *k, double night, uint8_t color[3], float *glow)
{
    if (!(night > 0) || k->category < SN_ROAD_N_CATEGORIES)
        return;
    uint32_t c = k->category - SN_ROAD_N_CATEGORIES;
    if (c == SN_SC_LAMP) {
        color[0] = 255, color[1] = 226, color[2] = 170;
        *glow = (float)(2.5 * night);
    } else if (c == SN_SC_WINDOWS && night >= WINDOW_LIT_NIGHT && lit(k->instance)) {
        color[0] = 250, color[1] = 205, color[2] = 130;
        *glow = (float)(0.3 * night);
    }
}

float sn_night_actor_glow(const sn_actor *a, double night)
{
    if (!(night > 0) || a->tag != SN_TAG_TRAFFIC_LIGHT)
        return 0;
    int hi = a->color[0] > a->color[1] ? a->color[0] : a->color[1];
    hi = a->color[2] > hi ? a->color[2] : hi;
    return hi >= 150 ? (float)(1.6 * night) : 0; /* red, yellow, green; not the off grey or the pole */
}
