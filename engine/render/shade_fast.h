/* shade_fast.h — the RGB image's default shading: a batch of matte surface samples (a compact
** G-buffer: offset from the eye, normal, base colour, material) shaded in single precision four
** at a time, pass by pass (textures, shadows, fog, light and bytes), instead of one sample's long
** double-precision chain at a time (shade.h's sn_shade_surface, which stays the reference:
** sn_renderer_set_exact_shading). Glossy samples (car paint, wet ground) and the sky take the
** exact path. The error bound is in docs/rendering.md ("Single-precision shading"). */
#ifndef SN_SHADE_FAST_H
#define SN_SHADE_FAST_H

#include "shade.h"
#include "shadow.h"

#define SN_GBUF_N 256 /* samples a batch */
#define SN_FOG_SPAN 4 /* fog's anchors in a run: every this many entries (shade_pairs.c; render.c's
                      ** fog_weights is its pattern) */

/* Structure of arrays, padded to a multiple of 4 by sn_shade_gbuf. */
typedef struct sn_gbuf {
    float dx[SN_GBUF_N], dy[SN_GBUF_N], dz[SN_GBUF_N]; /* the point less the eye, world metres */
    float w[SN_GBUF_N], ra[SN_GBUF_N], rb[SN_GBUF_N]; /* the raster's 1/depth and the pixel's ray
                              ** coordinates: the caller turns them into dx, dy, dz before shading */
    float nx[SN_GBUF_N], ny[SN_GBUF_N], nz[SN_GBUF_N]; /* unit world normal, facing the eye */
    float col[3][SN_GBUF_N];  /* base colour r, g, b, 0..255 */
    float albedo[SN_GBUF_N];  /* the checker's factor (1 = none); the texture multiplies in */
    float glow[SN_GBUF_N];    /* a lit lamp's own light */
    float lamp[3][SN_GBUF_N]; /* headlights' irradiance r, g, b (0 by day) */
    float vis[SN_GBUF_N];     /* < 0: look the shadow up; else the sun's visibility (1: lit) */
    float T[SN_GBUF_N];       /* fog's transmittance (scratch) */
    float fw[SN_GBUF_N];      /* 0: fog evaluated here (an anchor); else the share of the way from
                              ** the anchor before it to the one after still to go, in one run (shade_pairs.c) */
    uint8_t tag[SN_GBUF_N];
    uint8_t rgb[SN_GBUF_N][4]; /* the result: blue, green, red, 255 (the image's BGRA, so a pixel
                               ** of one sample's colour is a 4-byte copy) */
    uint32_t n;
    uint32_t npair; /* entries with a weight (0: fw is not read) */
} sn_gbuf;

/* Shades g's n samples into g->rgb: textures when `textures`, the sun's shadows from `shadow`
** (NULL: none) where vis < 0, fog when e->fog_k > 0. */
void sn_shade_gbuf(const sn_shade_env *e, sn_vec3 eye, const sn_shadow *shadow, bool textures, sn_gbuf *g);

/* g's fog (e->fog_k > 0) at its anchors, the entries between on the line between theirs
** (shade_pairs.c): sn_shade_gbuf calls it when g->npair. */
void sn_shade_pairs(const sn_shade_env *e, sn_vec3 eye, sn_gbuf *g);

/* Sky samples: the view directions (any length) of samples that see no surface. */
typedef struct sn_skybuf {
    float dx[SN_GBUF_N], dy[SN_GBUF_N], dz[SN_GBUF_N];
    uint8_t rgb[SN_GBUF_N][4]; /* the result: blue, green, red, 255 (as sn_gbuf's) */
    uint32_t n;
} sn_skybuf;

/* sn_shade_sky for b's n directions, four at a time in single precision (the halo's 24th power by
** squaring, fog's exponentials from simd4.h) into b->rgb. */
void sn_shade_sky_fast(const sn_shade_env *e, sn_vec3 eye, sn_skybuf *b);

/* Whether a surface of this tag and normal is glossy under e (car paint, wet ground): those take
** sn_shade_surface_lin. */
static inline bool sn_shade_glossy(const sn_shade_env *e, uint8_t tag, float nz)
{
    if (tag == SN_TAG_CAR || tag == SN_TAG_TRUCK || tag == SN_TAG_BUS || tag == SN_TAG_TRAIN ||
        tag == SN_TAG_MOTORCYCLE || tag == SN_TAG_BICYCLE)
        return true;
    bool ground = tag == SN_TAG_ROADS || tag == SN_TAG_SIDEWALK || tag == SN_TAG_ROAD_LINE || tag == SN_TAG_GROUND ||
                  tag == SN_TAG_BRIDGE || tag == SN_TAG_RAIL_TRACK;
    return e->wet > 0 && ground && nz > 0.5f;
}

#endif
