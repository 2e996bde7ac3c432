/* internal.h — what scene.c, trace.c and sweep.c of the ray index share. */
#ifndef SN_QUERY_INTERNAL_H
#define SN_QUERY_INTERNAL_H

#include "../render/mesh.h"
#include "../render/shapes.h"
#include "../render/pool.h"
#include "rayscene.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <string.h>

#define RS_MAX_TASKS 64

/* One shaped actor as the index sees it: world = centre + R (ext * v) for a vertex v of its
** mesh: a unit mesh scaled by the half extents, or a model posed in metres (ext 1, shapes.h). */
typedef struct rs_actor {
    /* What a closest hit reads of its actor, first: id to mesh in the first cache line (all a
    ** still actor's hit reads), origin to omega after it; random rays among 10 000 objects
    ** miss the cache on every hit's actor. */
    uint32_t id, parent; /* parent id, 0 when free */
    uint8_t tag, kind, model;
    bool open;           /* an open surface (a chunk of the map's roads): nothing is inside it */
    bool still;          /* rs_still: a hit's velocity is the zeroed result's +0, origin to omega unread */
    double refl;                /* reflectivity 0..1 */
    const sn_mesh *mesh;        /* in the first line too: a model's hit reads its parts (tri_tag) */
    sn_vec3 origin, vel, omega; /* the actor's origin, velocity (m/s), angular velocity (rad/s) */
    /* Its mesh's vertices in the world in double precision, as rs_world_vertex makes them, kept
    ** for the static geometry when it is built (rs->stat_wv); NULL: made when asked. A hit's
    ** refinement read them where it recomputed three vertices: a tenth of a lidar's time. */
    const double (*wv)[3];
    sn_mat3 R;
    sn_vec3 centre, ext;
    sn_vec3 half;        /* the actor's box's half extents (its collision box) */
    double lo[3], hi[3]; /* world bounding box */
    /* To a whole number of cache lines: sact and dact are 64-byte aligned (scene.c grow_actors),
    ** so what a still actor's hit reads (id to mesh, 32 bytes) is one line: 304-byte actors
    ** started anywhere in a line, and a hit read its 104 bytes from two or three. */
    uint8_t pad_[16];
} rs_actor;
_Static_assert(sizeof(rs_actor) % 64 == 0, "rs_actor is whole cache lines");

/* Whether a hit on the actor moves at +0 on every axis: velocity and angular velocity +0 (not
** -0) and origin finite. Then v + w x (p - origin) is +0 bit for bit (each product of w is +-0,
** their difference +-0, +0 plus +-0 is +0: round to nearest), which a zeroed result holds. */
static inline bool rs_still(const rs_actor *a)
{
    const double v[6] = {a->vel.x, a->vel.y, a->vel.z, a->omega.x, a->omega.y, a->omega.z};
    for (int i = 0; i < 6; i++)
        if (v[i] != 0 || signbit(v[i]))
            return false;
    return isfinite(a->origin.x) && isfinite(a->origin.y) && isfinite(a->origin.z);
}

/* A triangle of the static geometry as a closest hit's refinement reads it (trace.c refine_at):
** its first world vertex and its plane's normal cross(p1 - p0, p2 - p0) in double precision,
** made by refine's own expressions from the same vertices (so the same bits), and whose it is.
** One cache line per triangle, by Embree's primID: a hit among 10 000 objects read the primitive
** map, the actor's first triangle, the mesh's indices and three vertices, each a cache miss. */
typedef struct rs_stri {
    double p0[3], n[3];
    uint32_t ref, tri; /* index into sact, triangle of its mesh */
    double inv;        /* rs_tri_inv(n): the unit normal is n * inv, sn_v3_norm's very bits */
} rs_stri;
_Static_assert(sizeof(rs_stri) == 64, "rs_stri is one cache line");

/* A ground plane n . x = d, a half-space (below it is inside). */
typedef struct rs_plane {
    uint32_t id, parent;
    uint8_t tag, kind;
    sn_vec3 n;
    double d;
    sn_vec3 origin, vel, omega; /* as rs_actor's: hit points' velocities */
    double refl;
} rs_plane;

/* Per-task scratch for SN_RAY_ALL: every raw hit of one ray, then one per actor. */
typedef struct rs_rec {
    uint32_t ref, tri; /* actor reference (rs_ref_actor), triangle of its unit mesh */
    double t;
    bool back;         /* the ray leaves the shape there */
} rs_rec;

typedef struct rs_scratch {
    rs_rec *recs;
    size_t n, cap;
    sn_ray_hit *hits; /* one per actor, sorted, before they go to the caller */
    size_t cap_hits;
    bool oom;
} rs_scratch;

/* cull.c: the boxes of the shaped actors a query can meet over a grid of cells, each holding
** the highest widened box top over it, which settles rays that pass above them all without
** Embree. One grid per pair of kind and tag masks in use (a query's filters leave out every
** other actor's hits, so their boxes need not stand in its rays' way): V2X asks first for
** anything, then for buildings and props, then for vehicles, and each has its grid. */
typedef struct rs_cull {
    double margin;       /* m: how much the boxes were widened (cull.c says why) */
    double top;          /* the highest widened top (-inf: no boxes, every ray is clear) */
    double x0, y0, inv;  /* the grid's corner and 1 / cell side */
    uint32_t nx, ny;     /* cells; 0 when there are no boxes */
    double *tops;        /* nx * ny, row by row: the highest widened top over the cell, -inf when none */
    size_t cap_tops;
    /* which actors' boxes it holds: those a query of these masks can meet (0: any) */
    uint32_t kind_mask, tag_mask;
    uint64_t boxes_stamp; /* the gathered boxes it was built from (rs_cull_boxes.stamp); 0: none */
    uint64_t used;        /* when it last served a batch, to choose which grid a new key replaces */
    uint32_t skip;        /* batches left that go without it (trace.c CULL_SKIP) */
} rs_cull;

/* Every shaped actor's box with its kind and tag, gathered once per world state for the grids. */
typedef struct rs_cull_boxes {
    const sn_world *world; /* what they were gathered from, as the index's gen, static_gen, alpha */
    uint64_t gen, static_gen;
    double alpha;
    bool valid;
    uint64_t stamp;        /* counts gatherings */
    double (*box)[6];      /* low corner, high corner */
    uint8_t *kind, *tag;
    size_t n, cap, cap_kind, cap_tag;
    double cell;           /* the cells' side of a grid of them all (rs_cull_cell) */
    double (*sel)[6];      /* the boxes a grid of a narrower key is built from */
    size_t cap_sel;
} rs_cull_boxes;

#define RS_CULLS 4

/* The grid of n boxes (box[i]: low x y z, high x y z), its cells no larger than max_cell; false
** when out of memory. */
bool rs_cull_build(rs_cull *c, const double (*box)[6], size_t n, double max_cell);
/* The side of the cells a grid of these boxes would have on its own (INFINITY for none). */
double rs_cull_cell(const double (*box)[6], size_t n);
/* Whether the segment o + t d, t in [0, maxd] (d a unit vector), provably meets no box: then
** Embree would find nothing on it either. The tests of the whole world inline (most rays of a
** V2X frame end there), the walk over the cells in cull.c. */
bool rs_cull_walk(const rs_cull *c, const sn_vec3 *o, const sn_vec3 *e);
static inline bool rs_cull_clear(const rs_cull *c, const sn_vec3 *o, const sn_vec3 *d, double maxd)
{
    /* How far Embree's float copy of the ray may stray (cull.c), within what the boxes allow. */
    double ax = fabs(o->x), ay = fabs(o->y), az = fabs(o->z);
    double big = ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az);
    if (c->top == -INFINITY)
        return true; /* no boxes */
    if (!(1e-3 + 2e-6 * (big + maxd) <= 0.5 * c->margin))
        return false;
    sn_vec3 e = {o->x + d->x * maxd, o->y + d->y * maxd, o->z + d->z * maxd};
    if ((o->z < e.z ? o->z : e.z) > c->top)
        return true; /* above every box */
    return c->nx && rs_cull_walk(c, o, &e);
}

struct sn_rayscene {
    RTCDevice dev;
    RTCScene top;         /* geometry 0: the static actors' triangles, 1: the other actors' */
    /* The one tree (scene.c rs_trace_scene): the same triangles, static then moving, in one
    ** refitted geometry (geometry 0: primIDs from n_stat_t on are geometry 1's, shifted), or NULL.
    ** top stays current beside it; a batch traces one when it is fitted to the index as now. */
    RTCScene one;
    RTCGeometry one_geom;
    RTCScene scene;       /* what the batch being traced walks: top or one */
    uint64_t one_fit;     /* index_updates when one was last fitted (built or refitted) */
    uint32_t one_refits;  /* refits of one since its build */
    bool one_built;       /* one has been built (since_one counts from then) */
    uint64_t since_one;   /* rays handed to Embree since one was last built */
    uint64_t one_tris;    /* triangles of that build: what the next one waits to amortise */
    uint64_t upd_rays;    /* rays handed to Embree since the last index update */
    bool has_stat;        /* top holds geometry 0 */
    RTCGeometry dyn;      /* geometry 1, kept while the moving actors' shapes stay the same */
    uint32_t dyn_refits;  /* refits of dyn since its last full build */
    uint64_t dyn_rays, dyn_tris; /* rays handed to Embree since then; dyn's triangles (scene.c DYN_REFITS) */
    uint8_t *dyn_shapes;  /* the shape and model of each moving actor in dyn, in order (dyn_key) */
    size_t n_dyn_shapes, cap_dyn_shapes;
    uint32_t *dyn_prim, *dyn_first; /* as stat_prim, stat_first */
    size_t cap_dyn_prim, cap_dyn_first;
    RTCScene bounds;      /* one user primitive per actor (its box), for sweeps and overlaps */

    rs_actor *sact, *dact; /* static, dynamic */
    size_t n_sact, cap_sact, n_dact, cap_dact;
    double (*stat_wv)[3];  /* the static geometry's vertices in double precision (rs_actor.wv) */
    size_t cap_stat_wv;
    uint32_t *stat_prim;   /* static primID -> index into sact */
    uint32_t *stat_first;  /* first primID of each static actor */
    rs_stri *stat_tri;     /* per static primID (64-byte aligned), NULL when it could not be had */
    uint32_t n_stat_t, n_stat_v; /* the static geometry's triangles and vertices */
    /* The moving triangles' records as the static ones' (ref: index into dact), by primID of
    ** geometry 1, made with the one tree's build or refit (scene.c); mov_ok: current with dact. */
    rs_stri *mov_tri;
    size_t cap_mov_tri;
    bool mov_ok;
    size_t cap_stat_tri;
    size_t cap_stat_prim, cap_stat_first;
    rs_plane *planes;
    size_t n_planes, cap_planes;
    sn_mesh *road_meshes;  /* one per chunk of the map's roads: static actors of id 0 */
    size_t cap_road_meshes;
    sn_mesh *model_meshes; /* the moving actors' posed models: a model's triangles, these vertices */
    size_t cap_model_meshes;
    float (*model_v)[3];
    size_t cap_model_v;

    const sn_world *world; /* what the index was built from, at these generations */
    uint64_t gen, static_gen, bounds_gen;
    double alpha;          /* the moving actors are posed at this fraction of the last frame */
    bool built, bounds_built;
    /* dact holds every moving actor as its collision box at generation boxes_gen, without the
    ** models' triangles (rs_sync_boxes); built is false then */
    bool has_boxes;
    uint64_t boxes_gen;

    const sn_world *stat_world; /* what geometry 0 was built from (at static_gen) */
    rs_cull_boxes cull_boxes;
    rs_cull cull[RS_CULLS];
    uint64_t cull_uses;    /* batches served by a grid, the clock of rs_cull.used */
    uint8_t *need;         /* per ray of the batch being traced: the grid could not settle it */
    size_t cap_need;
    bool no_cull;          /* sn_rayscene_set_cull(rs, false) */
    bool no_one;           /* sn_rayscene_set_one_tree(rs, false) */
    uint64_t settled, index_updates; /* sn_rayscene_counts */

    sn_pool *pool;
    int threads;
    rs_scratch scratch[RS_MAX_TASKS];
    uint32_t *stamp;       /* overlap/sweep dedup, per actor reference: == stamp_now when seen */
    uint32_t stamp_now;
    size_t cap_stamp;

    char emb_err[200]; /* Embree's last error, "" if none */
    bool one_by_one;   /* closest hits with rtcIntersect1, not streams (tests, benchmarks) */
};

/* An actor reference: static actors first, then dynamic ones. */
static inline const rs_actor *rs_ref_actor(const sn_rayscene *rs, uint32_t ref)
{
    return ref < rs->n_sact ? &rs->sact[ref] : &rs->dact[ref - rs->n_sact];
}
static inline uint32_t rs_n_refs(const sn_rayscene *rs) { return (uint32_t)(rs->n_sact + rs->n_dact); }

/* An actor's reflectivity: its own, or its tag's when it has none (< 0). */
static inline double rs_refl(const sn_actor *a) { return a->ph->reflectivity >= 0 ? a->ph->reflectivity : sn_tag_reflectivity(a->tag); }

/* A hit into *h; its point's velocity from the actor's motion, v + w x (p - origin). struct_size
** says the velocity is there (see sensim/types.h). Written in place after zeroing *h: a hit
** returned by value and assigned may carry stale padding (the compiler need not copy it), and
** results are compared byte for byte. */
static inline void rs_hit_zeroed(sn_ray_hit *h, double t, sn_vec3 point, sn_vec3 normal, uint32_t id, uint8_t tag,
                                 sn_vec3 origin, sn_vec3 vel, sn_vec3 omega, double refl)
{
    h->struct_size = sizeof *h;
    h->distance = t;
    h->point = point;
    h->normal = normal;
    h->actor_id = id;
    h->semantic_tag = tag;
    h->velocity = sn_v3_add(vel, sn_v3_cross(omega, sn_v3_sub(point, origin)));
    h->reflectivity = refl;
}
/* The same into memory not yet zeroed. */
static inline void rs_hit(sn_ray_hit *h, double t, sn_vec3 point, sn_vec3 normal, uint32_t id, uint8_t tag,
                          sn_vec3 origin, sn_vec3 vel, sn_vec3 omega, double refl)
{
    memset(h, 0, sizeof *h);
    rs_hit_zeroed(h, t, point, normal, id, tag, origin, vel, omega, refl);
}
#define RS_HIT_ZEROED_OF(h, t, point, normal, a) \
    rs_hit_zeroed(h, t, point, normal, (a)->id, (a)->tag, (a)->origin, (a)->vel, (a)->omega, (a)->refl)
#define RS_HIT_OF(h, t, point, normal, a) \
    rs_hit(h, t, point, normal, (a)->id, (a)->tag, (a)->origin, (a)->vel, (a)->omega, (a)->refl)

/* The bytes of a result or hit the caller's stride holds (plugins built before sn_ray_hit grew
** pass the 1.2 sizes). */
static inline size_t rs_min_size(size_t stride, size_t ours) { return stride < ours ? stride : ours; }

/* scene.c: the scene a batch of n rays walks once the index is up to date (rs->scene): the
** one tree when it pays (built or refitted here), else top. Out of memory is not an error: top
** serves. */
RTCScene rs_trace_scene(sn_rayscene *rs, uint32_t n);
/* scene.c: brings the index up to date with w, its moving actors as now; the bounds scene too
** when `bounds`. rs_sync_at poses them at fraction alpha of the last frame instead. */
sn_status rs_sync(sn_rayscene *rs, const sn_world *w, bool bounds, sn_error *err);
sn_status rs_sync_at(sn_rayscene *rs, const sn_world *w, double alpha, bool bounds, sn_error *err);
/* The cull grid for q's kind and tag masks (one of rs->cull, taken over from the least recently
** used key when none has them), not yet brought up to date. */
rs_cull *rs_cull_of(sn_rayscene *rs, const sn_ray_query *q);
/* The planes and grid c at alpha, without posing models or touching Embree's moving geometry
** (the static one is built when it changed). */
sn_status rs_sync_cull(sn_rayscene *rs, const sn_world *w, double alpha, rs_cull *c, sn_error *err);
/* Whether q's masks leave out every moving actor, those Embree's moving geometry holds and those
** of w now: then that geometry need not follow the world for q (its hits would all be filtered
** out), and rs_sync_static brings only the static one up to date. Posing 1 000 cars' models
** and refitting their 392 000 triangles took 10 ms of a V2X tick whose batch of buildings
** needed none of it. */
bool rs_moving_excluded(const sn_rayscene *rs, const sn_world *w, const sn_ray_query *q);
sn_status rs_sync_static(sn_rayscene *rs, const sn_world *w, sn_error *err);
/* Whether the index is current for w at alpha (rs_sync_at would do nothing). */
bool rs_index_current(const sn_rayscene *rs, const sn_world *w, double alpha);
/* What sweeps and overlaps need: every actor's collision shape as now and the bounds scene.
** Vehicles and walkers are their boxes there, as physics meets them (CARLA's sweeps meet
** skeletal meshes' physics bodies, not their render meshes): posing every model and refitting
** the ray index each frame is what made the obstacle sensor 5x dearer. A later ray query
** builds the full index. */
sn_status rs_sync_boxes(sn_rayscene *rs, const sn_world *w, sn_error *err);
/* Actor a as its collision shape: a itself, or for a model its box (written to tmp, which may
** be a). */
const rs_actor *rs_collision_box(const rs_actor *a, rs_actor *tmp);
/* Vertex v of an actor's mesh in the world: centre + R (ext * v). */
static inline sn_vec3 rs_world_vertex(const rs_actor *a, const float *v)
{
    sn_vec3 l = sn_v3(v[0] * a->ext.x, v[1] * a->ext.y, v[2] * a->ext.z);
    return sn_v3_add(a->centre, sn_mat3_apply(&a->R, l));
}
/* World vertex j (0..2) of triangle `tri` of an actor: the same bits kept or made. */
static inline sn_vec3 rs_vertex(const rs_actor *a, uint32_t tri, int j)
{
    uint32_t i = a->mesh->t[tri][j];
    if (a->wv)
        return sn_v3(a->wv[i][0], a->wv[i][1], a->wv[i][2]);
    return rs_world_vertex(a, a->mesh->v[i]);
}

/* Triangle tri's first world vertex and its plane's normal cross(p1 - p0, p2 - p0), unnormalised:
** what a hit's refinement starts from (trace.c), here alone so that the kept copies
** (rs_stri) are made by the same expressions. */
static inline void rs_tri_plane(const rs_actor *a, uint32_t tri, sn_vec3 *p0, sn_vec3 *n)
{
    sn_vec3 q0 = rs_vertex(a, tri, 0), q1 = rs_vertex(a, tri, 1), q2 = rs_vertex(a, tri, 2);
    *p0 = q0;
    *n = sn_v3_cross(sn_v3_sub(q1, q0), sn_v3_sub(q2, q0));
}

/* What sn_v3_norm(n) scales n by (1 / |n|; 1 for a zero or NaN length, which it leaves as is):
** kept in a triangle's record, so that a hit's refinement makes the same unit normal without
** the square root and the division (n * inv is sn_v3_scale(n, 1.0 / l) bit for bit). */
static inline double rs_tri_inv(sn_vec3 n)
{
    double l = sn_v3_len(n);
    return l > 0 ? 1.0 / l : 1.0;
}

/* trace.c: the query's filters. */
bool rs_excluded(const sn_world *w, const sn_ray_query *q, uint32_t id, uint32_t parent, uint8_t tag,
                 uint8_t kind);
/* Checks a query's sizes and buffers for n rays. */
sn_status rs_check_query(const sn_ray_query *q, uint32_t n, bool need_hits, sn_error *err);
/* Sorts hits[0..n) by distance then actor id and writes result i (and in SN_RAY_ALL its hits)
** into the caller's buffers. */
void rs_write_result(const sn_ray_query *q, sn_ray_result *out, uint32_t i, sn_ray_hit *hits, uint32_t n);
/* Room for n hits in s->hits; false (s->oom set) when out of memory. */
bool rs_reserve_hits(rs_scratch *s, size_t n);
/* A ray's unit direction and length limit; false for a ray that can hit nothing. */
/* Whether an origin or centre is within SN_RAY_MAX_ORIGIN on every axis (NaN is not). */
static inline bool rs_origin_ok(sn_vec3 o)
{
    return fabs(o.x) < SN_RAY_MAX_ORIGIN && fabs(o.y) < SN_RAY_MAX_ORIGIN && fabs(o.z) < SN_RAY_MAX_ORIGIN;
}
bool rs_ray_prepare(const sn_ray *r, sn_vec3 *dir, double *max_distance);

#endif
