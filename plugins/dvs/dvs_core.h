/* dvs_core.h — CARLA's DVS event generation (carla-sensors.md §2), independent of the host.
**
** The core keeps CARLA's per-pixel state (the log intensity at the last sample, the reference
** level of the last crossing, the time of the last event) and turns each new sample into the
** events between the previous sample's time and its own, with CARLA's arithmetic exactly:
** gray and log in double stored as float, crossing times (cross - it) * dt / (itdt - it) in
** float truncated to integer nanoseconds, the last event time kept as double seconds.
** A tick may feed several samples (sub-frames); dvs_sort then orders all of the tick's events
** by time, ties in row-major pixel order, crossings ascending within a pixel.
**
** Speed without changing a bit of the output: a pixel whose colour did not change has the same
** log intensity and so no event (skipped with one compare); log intensities of colours come from
** a small cache (rendered frames hold few distinct colours); the sort is a stable radix sort. */
#ifndef SN_DVS_CORE_H
#define SN_DVS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The smallest contrast threshold a scene may set. CARLA accepts any float (0.005 is common),
** but its crossing loop never ends at 0 and walks backwards below it; and a step smaller than a
** float's resolution of the levels (1.5e-5 at 255, the linear range's top; 2e-6 at ln(1e-9), the
** log range's deepest) would not advance the crossing at all. 1e-4 is above both, for any threshold a
** real sensor has (0.05-0.5 in log units). Noisy thresholds are still clamped at CARLA's 0.01. */
#define DVS_MIN_THRESHOLD 1e-4

typedef struct dvs_config {
    float cp, cm;             /* positive and negative thresholds */
    float sigma_p, sigma_m;   /* CARLA's threshold noise, drawn per pixel and sample */
    float mismatch_sigma;     /* beyond CARLA: a fixed per-pixel threshold offset, drawn once */
    uint64_t refractory_ns;
    bool use_log;
    float log_eps;
} dvs_config;

/* One event of the tick: pixel index, and (gen << 1 | pol), gen its generation order. */
typedef struct dvs_event {
    int64_t t;
    uint32_t idx;
    uint32_t gen_pol;
} dvs_event;

/* A normal draw N(0, sd) from the sensor's seeded stream. */
typedef double (*dvs_normal_fn)(void *user, double sd);

#define DVS_CACHE_BITS 12

typedef struct dvs_core {
    dvs_config cfg;
    uint32_t w, h;
    bool ready;            /* the first sample initialises */
    int64_t t_prev;        /* time of the last sample, ns */
    float max_dl;          /* max |L change| over the pixels in the last sample */
    float *prev, *ref;     /* L at the last sample; L of the last crossing */
    double *last_s;        /* last event time in seconds (CARLA's representation); 0: none */
    uint32_t *prev_px;     /* colour at the last sample (colour input) */
    float *cp_px, *cm_px;  /* thresholds with the fixed mismatch, or NULL */
    dvs_event *ev, *tmp;   /* the tick's events; sort scratch */
    size_t n_ev, cap_ev, cap_tmp;
    uint16_t *slots;       /* sort scratch: each event's slot in the table of times */
    size_t cap_slots;
    uint32_t cache_key[1u << DVS_CACHE_BITS];
    float cache_val[1u << DVS_CACHE_BITS];
} dvs_core;

/* Allocates the per-pixel state; false when out of memory (dvs_core_free still applies). */
bool dvs_core_init(dvs_core *d, uint32_t w, uint32_t h, const dvs_config *cfg);
void dvs_core_free(dvs_core *d);

/* CARLA's conversions: gray = 0.2989 R + 0.587 G + 0.114 B; L = ln(eps + gray / 255) or gray. */
float dvs_gray(uint32_t bgra);
float dvs_level(const dvs_config *cfg, double gray);

/*
** Feeds one sample taken at time t (ns), as BGRA colours (px, w*h, byte order B G R A) or as log
** intensities (L). The first sample only initialises (and draws the fixed mismatch); later ones
** append the events in (t_prev, t] to d->ev. false when out of memory for events.
*/
bool dvs_feed_colors(dvs_core *d, const uint32_t *px, int64_t t, dvs_normal_fn normal, void *user);
bool dvs_feed_levels(dvs_core *d, const float *L, int64_t t, dvs_normal_fn normal, void *user);

/* Orders d->ev[0..n_ev) by (t, pixel index, generation); false when out of memory. */
bool dvs_sort(dvs_core *d);

#endif
