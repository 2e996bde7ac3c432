/* channel.c — the path-loss formulas of carla-sensors.md §4.2, in double precision. */
#include "channel.h"

#include <math.h>

#define PI 3.14159265358979323846

void sn_v2x_radio_init(sn_v2x_radio *r)
{
    double f = r->f_ghz * 1e9;
    r->lambda = SN_V2X_C / f;
    r->fspl_d0 = 20.0 * log10(r->d_ref) + 20.0 * log10(f) + 20.0 * log10(4.0 * PI / SN_V2X_C);
    r->log10_f = log10(r->f_ghz);
    r->fs_term = 20.0 * log10(4.0 * PI / r->lambda);
}

double sn_v2x_knife_edge(double h, double d1, double d2, double lambda)
{
    /* An obstacle exactly over an antenna would divide by zero: a millimetre keeps V finite. */
    d1 = d1 < 1e-3 ? 1e-3 : d1;
    d2 = d2 < 1e-3 ? 1e-3 : d2;
    /* d1 * d2 first: the same bits either way round (a pair and its reverse share one ray) */
    double v = h * sqrt(2.0 * (d1 + d2) / (lambda * (d1 * d2)));
    if (v < -0.78)
        return 0.0;
    return 6.9 + 20.0 * log10(sqrt((v - 0.1) * (v - 0.1) + 1.0) + v - 0.1);
}

/* The exact two-ray ground reflection (LOS of the geometric model). */
double sn_v2x_two_ray(double d, double ht, double hr, double lambda)
{
    double dh = ht - hr;
    double dg2 = d * d - dh * dh;
    double dg = sqrt(dg2 > 0 ? dg2 : 0);
    double dr = sqrt(d * d + 4.0 * ht * hr);
    double sin_t = (ht + hr) / dr, cos_t = dg / dr;
    double root = sqrt(SN_V2X_EPS_R - cos_t * cos_t);
    double gamma = (sin_t - root) / (sin_t + root);
    double phi = 2.0 * PI / lambda * (d - dr);
    double re = 1.0 + gamma * cos(phi), im = gamma * sin(phi);
    return 20.0 * log10((4.0 * PI * dg / lambda) / sqrt(re * re + im * im));
}

const char *sn_v2x_los_name(sn_v2x_los los)
{
    static const char *const names[] = {"LOS", "NLOSb", "NLOSv"};
    return names[los];
}
