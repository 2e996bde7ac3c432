/* rayscene.h — ray queries over the world's geometry: an Embree scene rebuilt at most once per
** world change, traced in batches on a worker pool.
**
** Layout of the index: one Embree scene of two triangle geometries in world coordinates, both
** from the cached unit meshes of render/mesh.h under each actor's pose and half extents (vehicles
** and walkers: their models posed for the instant, render/shapes.h; sweeps test each convex part): the
** free-standing static actors (geometry 0: built once, again only when one appears, moves or
** goes) and every other shaped actor (geometry 1: vehicles, walkers, attached props; vertices
** rewritten and its BVH rebuilt when the world changed, the buffers kept while the set of
** shapes stays the same). The scene is dynamic and of low build quality, which is Embree's
** two-level builder: a BVH per geometry, rebuilt only when that geometry was committed, under
** a top level that opens and merges their upper nodes, so a ray walks one tree. Tried and
** dropped: one instance per actor of its unit mesh (tracing 2x slower again: Embree
** transforms the ray into every instance it enters) and two instances of a static and a
** dynamic scene (every ray walked both trees under an instance transform: Embree spent 1 270
** instructions a ray at 1 000 boxes in bench_rays, against 421 now and 584 for the same
** triangles in one flat scene with the ground as two triangles).
** Beside it, once the world has held still long enough (or a frame brings enough rays), one
** tree of the same triangles, static then moving, refitted as the moving actors move: both
** trees cover the whole street, so every ray walked both (scene.c rs_trace_scene says when).
** Ground planes are tested analytically beside it. Embree finds hits in single precision; every reported distance,
** point and normal is recomputed in double precision on the hit triangle.
**
** Ownership: the rayscene owns its Embree device, scenes, pool and scratch; results go to the
** caller's buffers. Not thread-safe: one query at a time (the engine calls plugins serially). */
#ifndef SN_QUERY_RAYSCENE_H
#define SN_QUERY_RAYSCENE_H

#include "../core/error.h"
#include "../world/world.h"

#include <sensim/query.h>

typedef struct sn_rayscene sn_rayscene;

/* threads >= 1: workers of its pool (the caller's thread included). NULL with err set when
** Embree or the threads cannot be started. */
sn_rayscene *sn_rayscene_create(int threads, sn_error *err);
void sn_rayscene_destroy(sn_rayscene *rs);
int sn_rayscene_threads(const sn_rayscene *rs);

/* Traces n rays (see sensim/query.h). Brings the index up to date with w first. SN_E_INVALID
** for a malformed query (sizes, NULL buffers), SN_E_NOMEM, SN_E_PHYSICS... never for a bad ray,
** which simply hits nothing. */
sn_status sn_rays_trace(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *rays,
                        uint32_t n, sn_ray_result *out, sn_error *err);
/* As sn_rays_trace with the moving actors posed at fraction alpha of the last frame, in [0, 1]
** (sn_actor_pose_at; 1 is now). */
sn_status sn_rays_trace_at(sn_rayscene *rs, const sn_world *w, double alpha, const sn_ray_query *q,
                           const sn_ray *rays, uint32_t n, sn_ray_result *out, sn_error *err);
/* Ray i at alpha[i] (n_alpha == n) or all at alpha[0] (n_alpha == 1): rays grouped by alpha,
** the moving actors re-posed once per distinct value, or once for all when nothing moved
** during the frame. Results as sn_rays_trace's. */
sn_status sn_rays_trace_times(sn_rayscene *rs, const sn_world *w, const double *alpha, uint32_t n_alpha,
                              const sn_ray_query *q, const sn_ray *rays, uint32_t n, sn_ray_result *out,
                              sn_error *err);
/* The closest hit (SN_RAY_CLOSEST) or whether anything is there (SN_RAY_ANY) of n rays, only the
** fields out->fields asks for, into out's arrays (sensim/query.h sn_ray_compact): the same hit as
** sn_rays_trace's, its doubles rounded to float. SN_E_INVALID for another mode, per-ray ignore
** pairs, an empty or unknown mask, or a NULL array of a field asked for. */
sn_status sn_rays_trace_compact(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *rays,
                                uint32_t n, const sn_ray_compact *out, sn_error *err);
/* Closest hits one rtcIntersect1 at a time instead of Embree's streams (the reference in tests
** and benchmarks; results are the same). */
void sn_rayscene_set_one_by_one(sn_rayscene *rs, bool on);
/* Any-hit and all-hits rays settled by the cull grid (internal.h rs_cull) without Embree: on
** (the default) or off (every ray to Embree: the reference in tests; the answers are the same). */
void sn_rayscene_set_cull(sn_rayscene *rs, bool on);
/* For tests and benchmarks: whether the one tree of static and moving triangles (scene.c
** rs_trace_scene) may serve batches when it pays (on, the default) or never (every batch walks
** the two trees: the reference; the answers are the same), and whether the last batch walked it. */
void sn_rayscene_set_one_tree(sn_rayscene *rs, bool on);
bool sn_rayscene_one_tree(const sn_rayscene *rs);
/* For tests and benchmarks: rays the cull grid settled, and how often the moving actors' index
** was brought up to date (models posed, Embree's tree refitted or rebuilt), since creation. */
void sn_rayscene_counts(const sn_rayscene *rs, uint64_t *settled, uint64_t *index_updates);
/* A sphere of `radius` moved along the ray: the first contact (or every actor touched, in
** SN_RAY_ALL), distance = how far the centre travelled. */
sn_status sn_sweep_sphere(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, const sn_ray *ray,
                          double radius, sn_ray_result *out, sn_error *err);
/* Ids of the actors that intersect the ball (touching counts), ascending; ids[0..min(cap,
** *n_found)) written. q may be NULL (no filters). */
sn_status sn_overlap_sphere(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, sn_vec3 centre,
                            double radius, uint32_t *ids, uint32_t cap, uint32_t *n_found, sn_error *err);

/* Every actor within `radius` of centre (touching counts) with the nearest point of its surface
** and its distance, nearest first (distance, then id), into out[0..min(cap, *n_found)) at `stride`
** bytes (>= sizeof(sn_overlap)). With axis (any length, non-zero) only actors whose nearest
** point lies inside the cone of apex `centre` and that half angle (degrees, (0, 180]): a
** specular echo's condition (docs/plugins.md). q may be NULL. */
sn_status sn_overlap_near(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q, sn_vec3 centre, double radius,
                          const sn_vec3 *axis, double half_angle_deg, sn_overlap *out, uint32_t stride, uint32_t cap,
                          uint32_t *n_found, sn_error *err);

/* For benchmarks: the triangles of the index in world coordinates (static and dynamic alike),
** 9 floats per triangle, into a malloc'd array the caller frees; NULL when out of memory. */
float *sn_rayscene_world_triangles(const sn_world *w, size_t *n_tris);

#endif
