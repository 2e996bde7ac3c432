/* xosc_dist.h — an OpenSCENARIO ParameterValueDistribution file (1.1+) expanded into runs: each
** run the scenario it names with one value per parameter (xosc_dist.c; docs/openscenario.md,
** "Parameter variation"). sensim batch turns the runs into --set parameters.NAME=VALUE runs. */
#ifndef SN_SCENARIO_XOSC_DIST_H
#define SN_SCENARIO_XOSC_DIST_H

#include <sensim/sensim.h>

#include <stdint.h>

#define SN_XDIST_MAX_RUNS 1000000u

typedef struct sn_xdist {
    char *scenario;   /* the ScenarioFile's path (relative paths resolved against the distribution's folder) */
    uint32_t n_params;
    char **names;     /* n_params parameter names, in document order */
    uint32_t n_runs;
    char **values;    /* n_runs * n_params texts: run r's value of names[k] is values[r * n_params + k] */
    bool stochastic;
    uint64_t seed;    /* Stochastic randomSeed (0 when not given) */
} sn_xdist;

/* Reads path. A file whose root holds a ParameterValueDistribution gives *out (free with
** sn_xdist_free); any other OpenSCENARIO file (a scenario) gives SN_OK and *out NULL. Errors name
** "FILE:LINE: Element: what" (an unknown parameter of the scenario included: the scenario is
** parsed once with the first run's values). Deterministic distributions combine as a product,
** the first slowest; a Stochastic one draws numberOfTestRuns runs from randomSeed (the same
** seed, the same values). */
sn_status sn_xdist_load(const char *path, sn_xdist **out, sn_error *err);
void sn_xdist_free(sn_xdist *d); /* NULL-safe */

#endif
