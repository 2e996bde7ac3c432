/* shade.h — light, sky, fog and materials of the RGB image: what one pixel's colour is, given
** the surface it sees (or none) and the weather. Pure functions of their inputs, so the
** renderer calls them from any thread and tests check them against the formulas of
** docs/rendering.md. Depth, tags and ids never pass through here. */
#ifndef SN_SHADE_H
#define SN_SHADE_H

#include "render.h"

/* Everything per frame that shading needs, derived once from sn_lighting (its weather). */
typedef struct sn_shade_env {
    double sun[3];      /* unit, towards the sun */
    double sun_rgb[3];  /* the sun's light on a surface facing it: intensity x colour, 0 at night */
    double ambient;     /* sky light every surface gets */
    double zenith[3], horizon[3]; /* sky colours, 0..255 */
    double glow;        /* sun disc and halo in the sky, 0..1 */
    double fog_k;       /* fog extinction at height 0, 1/m */
    double fog_start;   /* m along the ray before fog begins */
    double fog_falloff; /* 1/m: extinction k(z) = fog_k exp(-fog_falloff z) */
    double wet;         /* 0..1: wetness of the ground's upward faces */
    double shadow_keep; /* 0..1: how much of the sun a shadow still lets through (clouds) */
    double night;       /* 1 - day: how much vehicles' headlights show (headlights.h) */
    double deposits;    /* 0..1: precipitation_deposits, the puddles' cover (puddles.h) */
} sn_shade_env;

void sn_shade_env_init(sn_shade_env *e, const sn_lighting *l);

/* The sky seen along unit direction d (world), fog included: r, g, b 0..255. */
void sn_shade_sky(const sn_shade_env *e, sn_vec3 eye, sn_vec3 d, uint8_t rgb[3]);

/* The fraction of light from `p` that reaches `eye` through the fog (1 without fog): the
** formula of docs/rendering.md ("Fog"). */
double sn_fog_transmittance(const sn_shade_env *e, sn_vec3 eye, sn_vec3 p);

/* One surface point as seen by the camera. */
typedef struct sn_surface {
    sn_vec3 p;         /* world point */
    sn_vec3 ray;       /* from the eye towards p, any length: the view direction, normalised where used */
    const float *n;    /* unit world normal, facing the eye */
    const uint8_t *color; /* base colour r, g, b */
    double albedo;     /* a texture's factor on the base colour (checker, asphalt noise), 1 = none */
    double sun_vis;    /* 0..1: how much of the sun reaches p (shadows) */
    uint8_t tag;       /* semantic tag: picks the material */
    const double *lamp; /* NULL, or the headlights' irradiance r, g, b on p (headlights.h) */
    double glow;       /* a lit lamp's own light, added to its colour (0: none) */
} sn_surface;

/* The colour of a surface point, fog included: r, g, b 0..255. The same as
** sn_shade_fog_bytes(e, out, sn_fog_transmittance(e, eye, s->p), rgb) of sn_shade_surface_lin's out. */
void sn_shade_surface(const sn_shade_env *e, sn_vec3 eye, const sn_surface *s, uint8_t rgb[3]);
/* Its colour before fog, 0..255 scale (may exceed 255 before the clamp). */
void sn_shade_surface_lin(const sn_shade_env *e, const sn_surface *s, double out[3]);
/* The bytes of a colour `out` (sn_shade_surface_lin's) seen through fog of transmittance T. */
void sn_shade_fog_bytes(const sn_shade_env *e, const double out[3], double T, uint8_t rgb[3]);

/* sn_fog_transmittance for n points at eye + (dx[i], dy[i], dz[i]), in single precision and four
** at a time (fog.c): T[i] within 2e-6 of the exact value (tests/unit/test_fog_fast.c); the
** renderer's default for surfaces (docs/rendering.md "Fog"). e->fog_k > 0. n: any; the arrays
** are read and written up to n rounded up to 4 (the caller pads them). */
void sn_fog_transmittance_fast(const sn_shade_env *e, sn_vec3 eye, const float *dx, const float *dy,
                               const float *dz, float *T, size_t n);

/* Procedural textures of the map's surfaces: the albedo factor at world point p of a surface of
** tag `tag` whose normal's z is nz (1 for tags without one): asphalt grain on Roads, tiles on
** Sidewalks' tops and a concrete grain on their kerb faces, worn paint on RoadLines. */
double sn_shade_texture(uint8_t tag, sn_vec3 p, double nz);
/* sn_shade_texture at n points eye + (dx[i], dy[i], dz[i]) of tags tag[i] and normals' z nz[i],
** in single precision four at a time, multiplied into albedo[i]: the same noise (its lattice
** taken from a period-aligned origin near the eye, so floats keep the offsets' precision), within
** 2e-5 of the exact factor except where a point lies within the float error (about 1e-5 m at
** 100 m) of a tile's joint or edge. The arrays are read and written up to n rounded up to 4. */
void sn_shade_texture_fast(sn_vec3 eye, const uint8_t *tag, const float *dx, const float *dy, const float *dz,
                           const float *nz, float *albedo, size_t n);
/* Builds the textures' noise table once per process (thread-safe; the renderer calls it). */
void sn_shade_init(void);

#endif
