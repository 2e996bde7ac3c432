/* dvs.h — the sensor.camera.dvs instance, shared by dvs.c (the sensor) and sample.c (one
** rendered sample turned into events). */
#ifndef SN_DVS_H
#define SN_DVS_H

#include "dvs_core.h"
#include "lens.h"

#include <sensim/plugin.h>

/* The label of one event, in generation order: what the pixel showed (event_labels). */
typedef struct dvs_label {
    uint8_t tag;
    uint32_t id;
} dvs_label;

typedef struct dvs {
    const sn_host *host;
    sn_ctx *ctx;
    uint32_t w, h, k;            /* output size; supersampling factor */
    double fov;
    dvs_config cfg;
    dvs_core core;
    uint32_t subframes, max_subframes;
    bool adaptive, labels;
    double lambda;               /* ESIM's adaptive_lambda */
    double rate;                 /* max |dL/dt| (1/ns) over the last sub-interval, carried across ticks */
    lens lens;
    int32_t *map;                /* lens pixel map, NULL for a pinhole */
    uint16_t *vig;               /* vignette in 1/256, NULL for none */
    /* what the renderer fills, (k w) x (k h) */
    uint8_t *r_bgra, *r_tag;
    float *r_depth;
    uint32_t *r_id;
    /* one sample at w x h */
    uint32_t *colors;            /* k = 1 with a lens: colours after the lens */
    float *gray, *levels;        /* k > 1: mean gray of the pinhole pixel; log levels after the lens */
    float *p_depth;              /* k > 1 with labels: the nearest surface of each pinhole pixel */
    uint8_t *p_tag;
    uint32_t *p_id;
    float *l_depth[2];           /* labels of the previous and this sample (after the lens) */
    uint8_t *l_tag[2];
    uint32_t *l_id[2];
    int cur;
    dvs_label *lab;              /* the tick's labels in generation order */
    size_t cap_lab;
    uint8_t *out, *out_lab;      /* packed records for serialize */
    size_t cap_out, cap_out_lab;
} dvs;

/* Allocates the sample buffers for the configured size; false when out of memory. */
bool dvs_sample_alloc(dvs *d);
void dvs_sample_free(dvs *d);
/* Renders the world at time t (ns) and feeds it to the core: the first sample initialises,
** later ones add the events since the previous sample (and their labels). */
sn_status dvs_sample(dvs *d, int64_t t);

#endif
