/* dvs.h — the sensor.camera.dvs instance, shared by dvs.c (the sensor) and sample.c (one
** rendered sample turned into events). */
#ifndef SN_DVS_H
#define SN_DVS_H

#include "dvs_core.h"
#include "camera_common.h"

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
    /* what the renderer fills, (k w) x (k h) */
    uint8_t *r_bgra, *r_tag;
    float *r_depth;
    uint32_t *r_id;
    /* the RGB camera's post-process at (k w) x (k h): lens (bilinear), vignette, gamma */
    lens lens;
    cam_rgb rgb;
    uint32_t *colors;            /* its output; NULL when it changes nothing */
    int32_t *map;                /* with labels: the lens's nearest source pixel, NULL for a pinhole */
    /* one sample at w x h */
    float *levels;               /* k > 1: log level of the mean gray of each pixel's k x k colours */
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
