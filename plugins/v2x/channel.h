/*
** channel.h — CARLA's V2X path-loss model (PathLossModel.cpp, carla-sensors.md §4.2) as pure
** functions: no host, no state beyond one receiver's parameters, so the tests and the
** benchmark's baseline compute exactly what the sensor does.
*/
#ifndef SN_V2X_CHANNEL_H
#define SN_V2X_CHANNEL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum sn_v2x_los { SN_V2X_LOS = 0, SN_V2X_NLOSB = 1, SN_V2X_NLOSV = 2 } sn_v2x_los;
typedef enum sn_v2x_scenario { SN_V2X_HIGHWAY = 0, SN_V2X_RURAL = 1, SN_V2X_URBAN = 2 } sn_v2x_scenario;
typedef enum sn_v2x_model { SN_V2X_WINNER = 0, SN_V2X_GEOMETRIC = 1 } sn_v2x_model;

/* CARLA keeps c in a float: 299 792 458 rounds to 299 792 448. */
#define SN_V2X_C 299792448.0
/* Relative permittivity of the ground in the two-ray model. */
#define SN_V2X_EPS_R 1.02

/* One sensor's radio settings (the receiver's are the ones the loss uses). */
typedef struct sn_v2x_radio {
    double tx_power;     /* dBm */
    double sensitivity;  /* dBm */
    double gain;         /* combined antenna gain, dBi (the receiver's counts) */
    double f_ghz;        /* as CARLA: the float attribute widened to double */
    double lambda;       /* m: c / f */
    double d_ref;        /* m */
    double exponent;     /* path loss exponent (geometric NLOSb) */
    double filter;       /* m: nothing at or beyond */
    double fspl_d0;      /* dB: free-space loss at d_ref, computed once */
    double log10_f;      /* log10(f_ghz), and the free-space term 20 log10(4 pi / lambda): once, */
    double fs_term;      /* not per pair (the same operations, so the same bits) */
    sn_v2x_scenario scenario;
    sn_v2x_model model;
    bool etsi_fading;
    double custom_sigma; /* dB */
} sn_v2x_radio;

/* Fills the derived members (lambda, fspl_d0, log10_f, fs_term) from f_ghz and d_ref. */
void sn_v2x_radio_init(sn_v2x_radio *r);

/* Knife-edge loss of one vehicle: h its top above the lower antenna's ground, d1 and d2 the
** horizontal distances from each antenna to it (m). J(V), 0 below V = -0.78. */
double sn_v2x_knife_edge(double h, double d1, double d2, double lambda);

/* The exact two-ray ground reflection (LOS of the geometric model). */
double sn_v2x_two_ray(double d, double ht, double hr, double lambda);

/* The path loss in dB without fading: d the 3D distance, ht and hr the antenna heights above
** the lower ground (m), ke the largest knife-edge loss (NLOSv only). Inline, as the fading
** sigma: the medium evaluates both for every pair (some 490 000 a tick at 1 000 stations). */
static inline double sn_v2x_path_loss(const sn_v2x_radio *rx, sn_v2x_los los, double d, double ht, double hr,
                                      double ke)
{
    if (rx->model == SN_V2X_WINNER) {
        if (los == SN_V2X_NLOSB)
            return 36.85 + 30.0 * log10(d) + 18.9 * rx->log10_f;
        double pl = rx->scenario == SN_V2X_HIGHWAY ? 32.4 + 20.0 * log10(d) + 20.0 * rx->log10_f
                                                   : 38.77 + 16.7 * log10(d) + 18.2 * rx->log10_f;
        return los == SN_V2X_NLOSV ? pl + ke : pl;
    }
    switch (los) {
    case SN_V2X_LOS: return sn_v2x_two_ray(d, ht, hr, rx->lambda);
    case SN_V2X_NLOSB: return rx->fspl_d0 + 10.0 * rx->exponent * log10(d / rx->d_ref);
    default: return 20.0 * log10(d) + rx->fs_term + ke;
    }
}

/* The shadow-fading standard deviation (dB) for a state. */
static inline double sn_v2x_fading_sigma(const sn_v2x_radio *rx, sn_v2x_los los)
{
    if (!rx->etsi_fading)
        return rx->custom_sigma;
    static const double table[3][3] = {
        /* highway, rural, urban */
        {3.3, 4.25, 5.2}, /* LOS */
        {6.8, 6.8, 6.8},  /* NLOSb */
        {3.8, 4.55, 5.3}, /* NLOSv */
    };
    return table[los][rx->scenario];
}

const char *sn_v2x_los_name(sn_v2x_los los);

#endif
