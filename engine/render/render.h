/* render.h — the CPU renderer: the world through a pinhole camera into depth, colour,
** semantic tag and instance id.
**
** How: every actor with a shape is its cached unit mesh scaled by its half extents, vehicles
** and walkers their models posed for the instant (shapes.h), a primitive per part; what does
** not move (static actors, the map's roads) comes from static_cache.h, in the world frame with
** its normals, built once. Meshes in view (a bounding-sphere test per actor and per chunk of
** road, against the view's sides and far plane) are queued as jobs and set up on the pool by
** tasks of about equal triangle counts: each vertex goes to camera space and is projected once,
** with the planes it lies outside; triangles wholly outside one plane go, back faces go (by the
** sign of their projected area), the rest are clipped against the near plane (and a guard band
** around the view, so that fixed-point coordinates never overflow) and binned into bands of
** rows; bands read the tasks' triangles in job order, so the split never shows. A mesh wholly
** inside the view needs neither outcodes nor clipping: its vertices are projected two at a time
** (SSE2), and its triangles' area and box tests run a batch at a time before the survivors are
** set up. Ground planes are not triangles: their 1/depth is affine
** in the image, so each pixel gets the exact value and the plane ends exactly at the horizon.
** Bands are rasterised in parallel (raster.h: integer edge functions, 1/depth interpolated per
** pixel), each cleared, drawn and shaded in its thread's band-sized scratch (scratch.h; the whole
** frame's depth and ids exist only for the puddles' reflections, which read them after); a band's pixels depend only on the triangles, never on which thread drew it, so the
** output is byte-identical at any thread count. Shading is deferred: a second pass turns each
** pixel's winning triangle into its tag, id and colour (shade.c: sun, shadow map, sky, fog,
** materials). Colour may be anti-aliased (sn_image.samples): N x N samples rasterised per
** pixel, each distinct surface among them shaded once, averaged in linear light.
*/
#ifndef SN_RENDER_H
#define SN_RENDER_H

#include "../core/error.h"
#include "../world/world.h"
#include "../world/weather.h"
#include "pool.h"

#include <sensim/host.h>

/* Light and sky, from the scene's settings.lighting. */
typedef struct sn_lighting {
    double sun_azimuth;   /* degrees, 0 = the sun towards +x, 90 = +y */
    double sun_altitude;  /* degrees above the horizon */
    double sun_intensity; /* scale of the Lambert term */
    double ambient;       /* the light every surface gets, 0..1 */
    uint8_t sky[3];       /* r, g, b */
    /* the world's weather: its sun angles are the sun the renderer draws (the two above only
    ** give the default weather's); docs/weather.md says what each field does */
    sn_weather weather;
    bool shadows;  /* the sun casts shadows (sn_lighting_default: true) */
    bool textures; /* asphalt and sidewalk textures (sn_lighting_default: true) */
} sn_lighting;

void sn_lighting_default(sn_lighting *l);

typedef struct sn_renderer sn_renderer;

/* threads >= 1. NULL when out of memory. */
sn_renderer *sn_renderer_create(int threads);
void sn_renderer_destroy(sn_renderer *r);
int sn_renderer_threads(const sn_renderer *r);
/* The renderer's worker pool, for other work split the same way (host->parallel_for). */
sn_pool *sn_renderer_pool(sn_renderer *r);

/* Checks a camera: a sentence in err when it cannot be rendered. */
sn_status sn_camera_check(const sn_camera *cam, sn_error *err);

/* Renders the world's actors (sensors have no shape) into out's non-NULL buffers, each at its
** pose at fraction `alpha` of the last frame (sn_actor_pose_at: 1 = now). */
sn_status sn_render(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                    const sn_camera *cam, const sn_image *out, sn_error *err);

/* sn_render of one layer (sensim/host.h sn_render_layer): SN_LAYER_STILL, what did not move during
** the last frame (static actors, the roads and scenery, actors whose pose at alpha 0 and 1 is the
** same, bit for bit); SN_LAYER_MOVING, the rest of the actors, with bgra's alpha the share of the
** pixel's samples that hit one (0: nothing, colour black; the colour premultiplied) and no puddle
** reflections. Shadows and lights come from everything; the moving layer reuses the sun's shadow
** map of the same frame's still layer now when it was the last one drawn (the moving actors in it
** at their pose now: a sub-frame's shadows are the frame end's). SN_LAYER_ALL is sn_render. */
sn_status sn_render_layer(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                          const sn_camera *cam, const sn_image *out, uint32_t layer, sn_error *err);

/* sn_render at alpha 1 (now), plus motion[3 i ..]: where pixel i's surface point was at the
** previous frame end (its actor at alpha 0, moved rigidly) minus where it is now, world
** metres; 0 for static actors, roads and sky (sensim/host.h render_motion). */
sn_status sn_render_motion(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                           const sn_image *out, float *motion, sn_error *err);

/* sn_render at alpha 1 (now), anti-aliased or not, plus grid: depth, id and motion (as
** sn_render_motion's) of one colour sample per grid->div x grid->div pixels, read from the
** band's samples as it resolves them (sensim/host.h render_motion_grid). */
sn_status sn_render_motion_grid(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                                const sn_image *out, const sn_motion_grid *grid, sn_error *err);

/* Triangles drawn (after culling and clipping) by the last render: for benchmarks. */
uint32_t sn_renderer_last_triangles(const sn_renderer *r);
/* Sets triangles up on the calling thread alone, as before the setup ran on the pool: the
** benchmarks' baseline (the output is the same either way). */
void sn_renderer_set_serial_setup(sn_renderer *r, bool on);
/* Colour by the exact, double-precision shading (shade.h sn_shade_surface, one sample at a time)
** instead of the default single-precision batches (shade_fast.h: textures, shadows, fog and light
** four samples at a time): the reference the tests compare the default's bytes with
** (docs/rendering.md "Single-precision shading"); the environment variable SENSIM_EXACT_SHADING=1
** (or SENSIM_EXACT_FOG=1) sets it for every renderer of a run. */
void sn_renderer_set_exact_shading(sn_renderer *r, bool on);

/* Where the renderer's time went, summed over every render since it was created (wall ms on
** the calling thread, light timers: four clock reads a frame). Benchmarks take differences. */
typedef struct sn_render_profile {
    uint64_t frames;
    double queue_ms;  /* culling objects, posing models, the static cache's upkeep */
    double setup_ms;  /* triangle setup: transform, cull, clip, project, bin (on the pool) */
    double shadow_ms; /* the sun's shadow map: its casters' setup and rasterisation */
    double draw_ms;   /* rasterising and resolving (shading) the bands */
} sn_render_profile;
void sn_renderer_profile(const sn_renderer *r, sn_render_profile *p);

#endif
