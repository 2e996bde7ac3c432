/* reflect.h — puddles that mirror the scene (docs/rendering.md "Rain"): screen-space reflection
** of the finished colour image on the pixels under standing water (puddles.h), marched against
** the frame's depth; where the reflected ray leaves the image, or meets nothing within reach,
** the puddle keeps the sky that shade.c mirrored. Runs only when precipitation_deposits > 0, so
** every other image keeps its bytes. Each output row reads the frame's buffers and a copy of the
** colour made before the pass, and writes only its own pixels: the same bytes at any thread count. */
#ifndef SN_REFLECT_H
#define SN_REFLECT_H

#include "shade.h"

#define SN_SSR_REACH 60.0 /* m: the farthest a reflected ray is followed */
#define SN_SSR_STEPS 32   /* coarse steps along its image (at least a pixel each), then 6 halvings */

/* One frame's view of the renderer's buffers (render.c fills it). */
typedef struct sn_ssr {
    const float *wbuf;      /* 1/depth per sample, W x H samples */
    const uint32_t *idbuf;  /* the winner of each sample */
    uint32_t W, H, ss;      /* samples, and samples per pixel side: the image is W/ss x H/ss */
    float inv_far;          /* wbuf's clear value: nothing drawn (sky) */
    double f, cx, cy;       /* the sample grid's focal length and centre (pixels) */
    sn_mat3 R;              /* camera frame: columns forward, right, up */
    sn_vec3 eye;
    const sn_shade_env *env;
    const uint8_t *src;     /* BGRA before reflections (read) */
    uint8_t *dst;           /* BGRA, the same bytes outside puddles (written) */
    /* winner id's unit world normal and tag (false: none, the sky) */
    bool (*surface)(const void *ctx, uint32_t id, const float **n, uint8_t *tag);
    const void *ctx;
} sn_ssr;

/* Output row oy's puddle pixels: dst = src + T * m * (scene - sky), m the Fresnel-weighted mirror
** of shade.c times the puddle's cover, T the fog towards the puddle, scene the colour the
** reflected ray meets in src, sky what shade.c mirrored. Other pixels are left as they are. */
void sn_ssr_row(const sn_ssr *s, uint32_t oy);

/* Where the reflection of the ray from puddle point p along unit r meets the image: the output
** pixel (*qx, *qy) and true, or false (leaves the image, no surface within reach). For tests. */
bool sn_ssr_trace(const sn_ssr *s, sn_vec3 p, sn_vec3 r, uint32_t *qx, uint32_t *qy, double *edge);

#endif
