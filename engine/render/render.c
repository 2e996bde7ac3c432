/* render.c — setup (transform, cull, clip, project, bin) by jobs on the pool, then rasterise and
** resolve bands of rows on the pool. See render.h for the method. */
#include "render.h"

#include "../core/mathx.h"
#include "../core/util.h"
#include "../map/road_mesh.h"
#include "headlights.h"
#include "lanes.h"
#include "lin_bytes.h"
#include "nightlights.h"
#include "mesh.h"
#include "raster.h"
#include "reflect.h"
#include "scratch.h"
#include "shade.h"
#include "shade_fast.h"
#include "simd4.h"
#include "shadow.h"
#include "shapes.h"
#include "static_cache.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SUB SN_RASTER_SUB       /* subpixel bits of the fixed-point vertex coordinates */
#define ONE (1 << SUB)
#define BAND 16                 /* rows per task (rounded up to a multiple of the colour samples) */
#define GUARD 8.0               /* guard band: clip planes at 8x the half field of view */
#define NONE 0xFFFFFFFFu        /* nothing drawn at this pixel */
#define PLANE_BIT 0x80000000u   /* the pixel's primitive is a ground plane */
#define PREFETCH 8              /* triangles fetched ahead of the one being rasterised */
#define MAX_POLY 9              /* a triangle clipped by 5 planes has at most 8 vertices */

typedef struct prim {
    uint32_t id;
    uint8_t tag, color[3];
    uint8_t material; /* shapes.h sn_material (SN_MAT_BODY for props, roads, planes) */
    float glow;       /* a lit lamp's own light (headlights.h sn_lamp_glow) */
    bool checker, is_plane;
    double checker_size;
    sn_mat3 rot; /* actor frame, for the checker in actor coordinates */
    sn_vec3 pos;
    /* motion to the previous frame (sn_render_motion): a point p now was at
    ** p + dm (p - pos) + dpos, dm = R_prev R_now^T - I, dpos = pos_prev - pos_now */
    bool moves;
    sn_mat3 dm;
    sn_vec3 dpos;
} prim;

/* What shading reads of a triangle (by its number in the frame). */
typedef struct tri_info {
    float n[3]; /* unit world normal (0 when the frame draws no colour) */
    uint32_t prim;
} tri_info;

typedef struct plane {
    float wa, wb, wc;
    float n[3];
    uint32_t prim;
    sn_vec3 wn; /* n.p = off in the world: what of the shadow map it can read */
    double off;
} plane;

typedef struct band {
    uint32_t *list, n, cap;
} band;

/* One mesh instance to set up: its triangles [first, first + count) over camera-space vertices
** cc + c0 v.x + c1 v.y + c2 v.z of local vertices v (actors; a model's from model_v at v_off),
** or the camera transform of world vertices wv (the map's roads). Each part is the primitive
** prim + its index. */
typedef struct job {
    const float (*v)[3];
    const double (*wv)[3];
    const float (*wn)[3]; /* with wv: each triangle's unit world normal (static_cache.h), else NULL */
    size_t v_off;
    bool model;
    const uint32_t (*t)[3];
    uint32_t n_v, count;
    const sn_mesh_part *parts; /* NULL: one part */
    uint32_t n_parts, prim;
    bool inside; /* its bounding sphere is wholly inside the view: no vertex needs outcodes */
    sn_vec3 cc, c0, c1, c2;
    sn_vec3 wc; /* the bounding sphere in the world: what of the shadow map it can read */
    double wr;
} job;

/* A setup task's output: its triangles and, per band of rows, the ones that touch it, both
** numbered from 0; merged in task order (which is job order) into the frame's. */
#define MAX_SETUP 64
typedef struct setup_out {
    sn_tri *tris;
    tri_info *info;
    size_t n, cap, cap_info, base;
    band *bands;
    size_t cap_bands;
    struct vert *verts; /* the job being set up's vertices, projected */
    size_t cap_verts;
    int32_t (*xy)[2]; /* the same, for a job wholly inside the view (emit_inside): fixed point, */
    double (*sw)[3];  /* and sx, sy, 1/depth */
    size_t cap_xy, cap_sw;
    bool oom;
} setup_out;

struct sn_renderer {
    sn_pool *pool;
    prim *prims;
    size_t n_prims, cap_prims;
    tri_info *tris; /* every triangle of the frame, numbered as the id buffer holds them */
    size_t n_tris, cap_tris;
    plane *planes;
    size_t n_planes, cap_planes;
    size_t n_bands;
    job *jobs;      /* this frame's meshes to set up, in the order they are drawn */
    size_t n_jobs, cap_jobs;
    setup_out setup[MAX_SETUP];
    uint32_t n_setup, job_from[MAX_SETUP + 1]; /* setup task k: jobs [job_from[k], job_from[k + 1]) */
    bool serial_setup; /* one setup task on the calling thread (benchmarks' baseline) */
    bool exact;        /* shading by the double-precision reference, not the single-precision batches */
    bool pairs;        /* fog at a run's every fourth pixel, the line between (shade_pairs.c): this frame's */
    bool no_pairs;     /* SENSIM_EXACT_PAIRS, read once at creation */
    bool half;         /* a run's odd pixels from its even ones where they agree (shade58): this frame's */
    bool no_half;      /* SENSIM_EXACT_HALF, read once at creation */
    bool all_faces;    /* SENSIM_EXACT_CASTERS, read once at creation */
    float (*model_v)[3]; /* the models' posed vertices (shapes.h), actor frame, this frame */
    size_t n_model_v, cap_model_v;
    float *wbuf;    /* 1/depth of the nearest surface so far: the whole frame, puddles' frames only */
    uint32_t *idbuf;
    float *zmin;             /* the raster's coarse depth (raster.h): the whole frame, puddles' frames only
                             ** (banded, each band's rows are in its scratch after the ids) */
    size_t cap_zmin;
    sn_raster_target target; /* the three, for raster.h: the frame's (banded: none, draw_band's) */
    size_t cap_px;
    /* banded: no frame-sized depth and ids, each band drawn and shaded in the drawing thread's
    ** scratch (scratch.h: one block a thread, shared by every renderer and camera on it), which
    ** stays in the cache from the clear to the resolve; without it (29 MB at 1280x720 and 2x2
    ** samples) the clear's stores waited for rows last touched a frame before. The whole frame is
    ** kept only where it is read after the bands: the puddles' reflections. */
    bool banded;
    atomic_bool scratch_oom; /* a band found no scratch: the frame fails */

    /* the frame being rendered */
    const sn_camera *cam;
    const sn_image *out;
    float *motion; /* sn_render_motion's output, NULL otherwise */
    const sn_motion_grid *grid; /* sn_render_motion_grid's output, NULL otherwise */
    uint32_t grid_step;         /* its cells' size in samples: div x ss */
    const sn_world *world;
    uint32_t W, H;
    double f, cx, cy, tanh_, tanv;
    float inv_far, inv_near, far;
    sn_mat3 R; /* camera frame: columns forward, right, up */
    sn_vec3 eye;
    sn_shade_env env;  /* sun, sky, fog, wetness of this frame (shade.h) */
    sn_lamps lamps;    /* vehicles' headlights at night (headlights.h) */
    sn_shadow *shadow; /* the sun's shadow map, created at the first colour render */
    sn_shadow_caster *casters; /* this frame's shadow casters */
    size_t cap_casters;
    size_t *caster_wv; /* per caster: the offset of its vertices in shadow_wv (moving ones) */
    size_t cap_caster_wv;
    double (*shadow_wv)[3]; /* the world vertices of this frame's casters that move */
    size_t cap_shadow_wv;
    float (*shadow_mv)[3]; /* one caster's posed model (shapes.h) */
    size_t cap_shadow_mv;
    bool shadows;      /* this frame's colour pixels look it up */
    bool textures;     /* procedural textures of roads and sidewalks */
    uint32_t ss;       /* colour samples per pixel side (sn_image.samples): W, H count samples */
    uint32_t band;     /* sample rows per task: BAND rounded up to a multiple of ss */
    uint32_t *row_band; /* the band of each sample row */
    size_t cap_row_band;
    double *ray_a, *ray_b; /* per sample column x: (x + 1/2 - cx) / f; per row y: (y + 1/2 - cy) / f */
    size_t cap_ray_a, cap_ray_b;
    sn_lin_bytes lb; /* anti-aliasing's linear light and its way back to bytes */
    uint32_t last_tris;
    bool need_info; /* the frame shades, or writes tags, ids or motion: it needs tri_info */
    sn_render_profile prof;
    sn_static_cache statics; /* world-frame meshes of what does not move, and roads' normals */
    uint8_t *ssr_src;        /* the colour before puddle reflections (reflect.h), rain only */
    size_t cap_ssr_src;
    sn_ssr ssr;              /* this frame's reflection pass */
    uint32_t layer;          /* sn_render_layer's: SN_LAYER_ALL, _STILL or _MOVING */
    /* the shadow map of the still layer now (alpha 1) of world shadow_w at its motion_gen: the
    ** moving layer's sub-frames of the same frame reuse it instead of drawing their own */
    const sn_world *shadow_w;
    uint64_t shadow_gen;
    bool shadow_still;
};

void sn_lighting_default(sn_lighting *l)
{
    l->sun_azimuth = 135;
    l->sun_altitude = 50;
    l->sun_intensity = 0.75;
    l->ambient = 0.35;
    l->sky[0] = 150, l->sky[1] = 190, l->sky[2] = 235;
    sn_weather_default(&l->weather, l->sun_azimuth, l->sun_altitude);
    l->shadows = l->textures = true;
}

sn_renderer *sn_renderer_create(int threads)
{
    sn_renderer *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    if (!(r->pool = sn_pool_create(threads))) {
        free(r);
        return NULL;
    }
    sn_mesh_init();
    sn_shade_init();
    /* the exact shading for a whole run, e.g. to compare builds' bytes (scripts/same_renders.sh);
    ** SENSIM_EXACT_FOG, its name when fog alone had a fast path, does the same */
    for (int k = 0; k < 2; k++) {
        const char *ef = getenv(k ? "SENSIM_EXACT_FOG" : "SENSIM_EXACT_SHADING");
        r->exact |= ef && *ef && strcmp(ef, "0") != 0;
    }
    const char *ep = getenv("SENSIM_EXACT_PAIRS"); /* every pixel its own fog (the bytes before quad57) */
    r->no_pairs = ep && *ep && strcmp(ep, "0") != 0; /* pairs: prepare, with exact as it is then */
    const char *eh = getenv("SENSIM_EXACT_HALF"); /* every pixel of a run shaded (the bytes before shade58) */
    r->no_half = eh && *eh && strcmp(eh, "0") != 0;
    const char *ec = getenv("SENSIM_EXACT_CASTERS"); /* every caster face in the sun's map (before shadow58) */
    r->all_faces = ec && *ec && strcmp(ec, "0") != 0;
    sn_lin_bytes_init(&r->lb);
    return r;
}

void sn_renderer_destroy(sn_renderer *r)
{
    if (!r)
        return;
    sn_pool_destroy(r->pool);
    sn_shadow_destroy(r->shadow);
    sn_lamps_free(&r->lamps);
    free(r->casters);
    free(r->caster_wv);
    free(r->shadow_wv);
    free(r->shadow_mv);
    for (int k = 0; k < MAX_SETUP; k++) {
        setup_out *s = &r->setup[k];
        for (size_t i = 0; i < s->cap_bands; i++)
            free(s->bands[i].list);
        free(s->bands), free(s->tris), free(s->info), free(s->verts), free(s->xy), free(s->sw);
    }
    free(r->jobs);
    free(r->prims);
    free(r->tris);
    free(r->planes);
    free(r->model_v);
    free(r->wbuf);
    free(r->idbuf);
    free(r->zmin);
    free(r->row_band);
    free(r->ssr_src);
    free(r->ray_a);
    free(r->ray_b);
    sn_static_cache_free(&r->statics);
    free(r);
}

int sn_renderer_threads(const sn_renderer *r) { return sn_pool_threads(r->pool); }
void sn_renderer_profile(const sn_renderer *r, sn_render_profile *p) { *p = r->prof; }

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}
sn_pool *sn_renderer_pool(sn_renderer *r) { return r->pool; }
uint32_t sn_renderer_last_triangles(const sn_renderer *r) { return r->last_tris; }
void sn_renderer_set_serial_setup(sn_renderer *r, bool on) { r->serial_setup = on; }
void sn_renderer_set_exact_shading(sn_renderer *r, bool on) { r->exact = on; }

sn_status sn_camera_check(const sn_camera *c, sn_error *err)
{
    if (c->width < 1 || c->height < 1 || c->width > 16384 || c->height > 16384)
        return sn_fail(err, SN_E_INVALID, "image size %ux%u: width and height must be 1..16384", c->width, c->height);
    if (!(c->fov > 0 && c->fov < 180))
        return sn_fail(err, SN_E_INVALID, "fov %g: must be inside (0, 180) degrees", c->fov);
    if (!(c->near_clip > 0) || !(c->far_clip > c->near_clip) || !isfinite(c->far_clip))
        return sn_fail(err, SN_E_INVALID, "clip planes near %g, far %g: need 0 < near < far", c->near_clip, c->far_clip);
    const sn_vec3 p = c->transform.location;
    const sn_rotation o = c->transform.rotation;
    if (!isfinite(p.x + p.y + p.z + o.pitch + o.yaw + o.roll))
        return sn_fail(err, SN_E_INVALID, "camera transform is not finite");
    return SN_OK;
}

/* ---- setup ---- */

/* 1 when floor(v) is odd: parity without an integer cast, which overflows (UB) for far points */
static int parity(double v)
{
    if (!isfinite(v))
        return 0;
    double f = floor(v);
    /* below 2^62 the integer's low bit is fmod(f, 2)'s, without a libm call */
    return fabs(f) < 4.6e18 ? (int)((int64_t)f & 1) : fmod(f, 2.0) != 0;
}

static inline bool push_band(band *b, uint32_t t)
{
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 64;
        uint32_t *l = realloc(b->list, cap * sizeof *l);
        if (!l)
            return false;
        b->list = l;
        b->cap = cap;
    }
    b->list[b->n++] = t;
    return true;
}

/* Signed distances to the clip planes: near, then the guard band's four sides. */
static void plane_dists(const sn_renderer *r, sn_vec3 v, double d[5])
{
    double gx = GUARD * r->tanh_ * v.x, gz = GUARD * r->tanv * v.x;
    d[0] = v.x - r->cam->near_clip;
    d[1] = gx - v.y;
    d[2] = gx + v.y;
    d[3] = gz - v.z;
    d[4] = gz + v.z;
}

/* Sutherland-Hodgman against plane k; returns the new vertex count. */
static int clip_plane(const sn_renderer *r, const sn_vec3 *in, int n, sn_vec3 *out, int k)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        sn_vec3 a = in[i], b = in[(i + 1) % n];
        double da[5], db[5];
        plane_dists(r, a, da);
        plane_dists(r, b, db);
        if (da[k] >= 0)
            out[m++] = a;
        if ((da[k] >= 0) != (db[k] >= 0)) {
            double t = da[k] / (da[k] - db[k]);
            out[m++] = sn_v3_add(a, sn_v3_scale(sn_v3_sub(b, a), t));
        }
    }
    return m;
}

/* A camera-space vertex with what every triangle using it needs: computed once per vertex of a
** job (a closed mesh has about half as many vertices as triangles), not three times per triangle.
** oc: the planes it lies outside (OC_*); sx, sy, X, Y, w: its projection when it needs no clip. */
enum { OC_NEAR = 1, OC_GUARD = 2 | 4 | 8 | 16, OC_SIDES = 32 | 64 | 128 | 256, OC_FAR = 512 };
typedef struct vert { /* 64 bytes: a cache line */
    sn_vec3 c;
    uint32_t oc;
    int32_t X, Y; /* within the guard band: far inside 32 bits (tri) */
    double sx, sy, w;
} vert;

/* llround(v) for |v| < 2^52 (the guard band keeps fixed-point coordinates far below), inline:
** v - trunc(v) is exact there. */
static inline int64_t round_half_away(double v)
{
    int64_t i = (int64_t)v;
    double f = v - (double)i;
    return i + (f >= 0.5) - (f <= -0.5);
}

static void screen(const sn_renderer *r, vert *v)
{
    v->sx = r->cx + r->f * v->c.y / v->c.x;
    v->sy = r->cy - r->f * v->c.z / v->c.x;
    v->X = (int32_t)round_half_away(v->sx * ONE);
    v->Y = (int32_t)round_half_away(v->sy * ONE);
    v->w = 1 / v->c.x;
}

static void project(const sn_renderer *r, sn_vec3 c, vert *v)
{
    double d[5], th = r->tanh_, tv = r->tanv;
    plane_dists(r, c, d);
    v->c = c;
    v->oc = (d[0] < 0) | (d[1] < 0) << 1 | (d[2] < 0) << 2 | (d[3] < 0) << 3 | (d[4] < 0) << 4 | (c.y > th * c.x) << 5 |
            (c.y < -th * c.x) << 6 | (c.z > tv * c.x) << 7 | (c.z < -tv * c.x) << 8 | (c.x > r->cam->far_clip) << 9;
    if (!(v->oc & (OC_NEAR | OC_GUARD))) /* else clipped first, then projected */
        screen(r, v);
}

/* The box of pixels whose centres (i + 1/2) lie inside fixed-point extents [lo, hi]:
** floor((lo - 1/2) / ONE) rounded up, floor((hi - 1/2) / ONE); shifts are floor divisions. */
static inline int64_t first_px(int64_t lo) { return (lo - ONE / 2 + ONE - 1) >> SUB; }
static inline int64_t last_px(int64_t hi) { return (hi - ONE / 2) >> SUB; }

/* A triangle past its area and box tests into s and binned: fixed-point
** corners X, Y wound positive, box [x0, x1] x [y0, y1] inside the image, 1/depth = wa x + wb y +
** wc at the centre of pixel (x, y). False only when out of memory. */
static inline bool store_tri(const sn_renderer *r, setup_out *s, const int64_t X[3], const int64_t Y[3],
                             const int32_t box[4], float wa, float wb, float wc, const float n[3], uint32_t prim_index)
{
    if ((s->n == s->cap && !sn_grow((void **)&s->tris, &s->cap, s->n + 1, sizeof *s->tris)) ||
        (r->need_info && s->n == s->cap_info && !sn_grow((void **)&s->info, &s->cap_info, s->n + 1, sizeof *s->info)))
        return false;
    uint32_t index = (uint32_t)s->n++;
    sn_tri *t = &s->tris[index];
    for (int i = 0; i < 3; i++)
        t->X[i] = (int32_t)X[i], t->Y[i] = (int32_t)Y[i];
    t->x0 = box[0], t->x1 = box[1], t->y0 = box[2], t->y1 = box[3];
    t->wa = wa, t->wb = wb, t->wc = wc;
    if (r->need_info) {
        memcpy(s->info[index].n, n, sizeof s->info[index].n);
        s->info[index].prim = prim_index;
    }
    for (uint32_t b = r->row_band[box[2]], b1 = r->row_band[box[3]]; b <= b1; b++)
        if (!push_band(&s->bands[b], index))
            return false;
    return true;
}

/* store_tri with its 1/depth plane solved through screen points sx, sy of 1/depths w (as
** projected, before any winding swap); dropped when they are collinear. */
static inline bool put_tri(const sn_renderer *r, setup_out *s, const int64_t X[3], const int64_t Y[3],
                           const int32_t box[4], const double sx[3], const double sy[3], const double w[3],
                           const float n[3], uint32_t prim_index)
{
    /* 1/depth is affine in screen space: solve it through the three projected vertices */
    double det = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (fabs(det) < 1e-12)
        return true;
    double w0 = w[0], w1 = w[1], w2 = w[2];
    double inv = 1 / det;
    double A = ((w1 - w0) * (sy[2] - sy[0]) - (w2 - w0) * (sy[1] - sy[0])) * inv;
    double B = ((w2 - w0) * (sx[1] - sx[0]) - (w1 - w0) * (sx[2] - sx[0])) * inv;
    double C = w0 - A * sx[0] - B * sy[0];
    /* at the centre of pixel (x, y): screen (x + 1/2, y + 1/2) */
    return store_tri(r, s, X, Y, box, (float)A, (float)B, (float)(C + 0.5 * A + 0.5 * B), n, prim_index);
}

/* One screen triangle from three projected vertices into s; false only when out of memory. cull:
** the vertices are the triangle's own, all in front of the eye, so the sign of its projected area
** is the sign of the camera-space facing test (both are the sign of det[a b c]): a back face
** (area < 0) is dropped here. Else (pieces of a clipped triangle that faces the eye) either
** winding is drawn. */
static bool emit(const sn_renderer *r, setup_out *s, const vert *const v[3], const float n[3], uint32_t prim_index,
                 bool cull)
{
    double sx[3] = {v[0]->sx, v[1]->sx, v[2]->sx}, sy[3] = {v[0]->sy, v[1]->sy, v[2]->sy};
    double w[3] = {v[0]->w, v[1]->w, v[2]->w};
    int64_t X[3] = {v[0]->X, v[1]->X, v[2]->X}, Y[3] = {v[0]->Y, v[1]->Y, v[2]->Y};
    int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0 || (cull && area < 0))
        return true;
    if (area < 0) {
        int64_t t = X[1]; X[1] = X[2]; X[2] = t;
        t = Y[1]; Y[1] = Y[2]; Y[2] = t;
    }
    int64_t minX = X[0], maxX = X[0], minY = Y[0], maxY = Y[0];
    for (int i = 1; i < 3; i++) {
        minX = X[i] < minX ? X[i] : minX, maxX = X[i] > maxX ? X[i] : maxX;
        minY = Y[i] < minY ? Y[i] : minY, maxY = Y[i] > maxY ? Y[i] : maxY;
    }
    int64_t x0 = first_px(minX), x1 = last_px(maxX), y0 = first_px(minY), y1 = last_px(maxY);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > (int64_t)r->W - 1) x1 = r->W - 1;
    if (y1 > (int64_t)r->H - 1) y1 = r->H - 1;
    if (x0 > x1 || y0 > y1)
        return true;
    const int32_t box[4] = {(int32_t)x0, (int32_t)x1, (int32_t)y0, (int32_t)y1};
    return put_tri(r, s, X, Y, box, sx, sy, w, n, prim_index);
}

/* emit() for the triangles [first, first + count) of a job wholly inside the view (no clip, back
** faces culled), the same triangles in the same order, in batches: first the batch's area tests
** (a branch: neighbouring triangles of a mesh face the same way) and box tests (without one:
** whether a triangle of a pixel or two covers a pixel centre is a coin toss), each survivor's
** index kept; then the survivors set up, two at a time. xy: the job's vertices in fixed point,
** sw: their sx, sy, 1/depth. n: per triangle normals (NULL: none). False only when out of memory. */
#define BATCH 64
static bool emit_inside(const sn_renderer *r, setup_out *s, const uint32_t (*t)[3], uint32_t first, uint32_t count,
                        const int32_t (*xy)[2], const double (*sw)[3], const float (*n)[3], uint32_t prim_index)
{
    static const float no_normal[3] = {0, 0, 0};
    const int64_t W1 = (int64_t)r->W - 1, H1 = (int64_t)r->H - 1;
    uint32_t keep[BATCH];
    int32_t box[BATCH][4];
    for (uint32_t b = first, end = first + count; b < end; b += BATCH) {
        uint32_t e = end - b < BATCH ? end : b + BATCH, m = 0;
        for (uint32_t i = b; i < e; i++) {
            const uint32_t *q = t[i];
            const int64_t X0 = xy[q[0]][0], X1 = xy[q[1]][0], X2 = xy[q[2]][0];
            const int64_t Y0 = xy[q[0]][1], Y1 = xy[q[1]][1], Y2 = xy[q[2]][1];
            const int64_t area = (X1 - X0) * (Y2 - Y0) - (Y1 - Y0) * (X2 - X0);
            if (area <= 0)
                continue;
            int64_t minX = X0 < X1 ? X0 : X1, maxX = X0 < X1 ? X1 : X0;
            int64_t minY = Y0 < Y1 ? Y0 : Y1, maxY = Y0 < Y1 ? Y1 : Y0;
            minX = X2 < minX ? X2 : minX, maxX = X2 > maxX ? X2 : maxX;
            minY = Y2 < minY ? Y2 : minY, maxY = Y2 > maxY ? Y2 : maxY;
            int64_t x0 = first_px(minX), x1 = last_px(maxX), y0 = first_px(minY), y1 = last_px(maxY);
            x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
            x1 = x1 > W1 ? W1 : x1, y1 = y1 > H1 ? H1 : y1;
            box[m][0] = (int32_t)x0, box[m][1] = (int32_t)x1, box[m][2] = (int32_t)y0, box[m][3] = (int32_t)y1;
            keep[m] = i;
            m += (uint32_t)((x0 <= x1) & (y0 <= y1));
        }
        uint32_t k = 0;
#ifdef __SSE2__
        /* two survivors at a time: put_tri's arithmetic lane by lane (the same bits), one divpd */
        for (; k + 2 <= m; k += 2) {
            const uint32_t *qa = t[keep[k]], *qb = t[keep[k + 1]];
#define LANES(c, v) _mm_set_pd(sw[qb[v]][c], sw[qa[v]][c])
            const __m128d sx0 = LANES(0, 0), sy0 = LANES(1, 0), w0 = LANES(2, 0);
            const __m128d dx1 = _mm_sub_pd(LANES(0, 1), sx0), dx2 = _mm_sub_pd(LANES(0, 2), sx0);
            const __m128d dy1 = _mm_sub_pd(LANES(1, 1), sy0), dy2 = _mm_sub_pd(LANES(1, 2), sy0);
            const __m128d dw1 = _mm_sub_pd(LANES(2, 1), w0), dw2 = _mm_sub_pd(LANES(2, 2), w0);
#undef LANES
            const __m128d det = _mm_sub_pd(_mm_mul_pd(dx1, dy2), _mm_mul_pd(dx2, dy1));
            const __m128d inv = _mm_div_pd(_mm_set1_pd(1), det);
            const __m128d A = _mm_mul_pd(_mm_sub_pd(_mm_mul_pd(dw1, dy2), _mm_mul_pd(dw2, dy1)), inv);
            const __m128d B = _mm_mul_pd(_mm_sub_pd(_mm_mul_pd(dw2, dx1), _mm_mul_pd(dw1, dx2)), inv);
            const __m128d C = _mm_sub_pd(_mm_sub_pd(w0, _mm_mul_pd(A, sx0)), _mm_mul_pd(B, sy0));
            const __m128d half = _mm_set1_pd(0.5);
            const __m128d Cc = _mm_add_pd(_mm_add_pd(C, _mm_mul_pd(half, A)), _mm_mul_pd(half, B));
            float fa[4], fb[4], fc[4];
            _mm_storeu_ps(fa, _mm_cvtpd_ps(A)), _mm_storeu_ps(fb, _mm_cvtpd_ps(B)), _mm_storeu_ps(fc, _mm_cvtpd_ps(Cc));
            /* fabs(det) < 1e-12: collinear, dropped */
            const int flat = _mm_movemask_pd(_mm_cmplt_pd(_mm_andnot_pd(_mm_set1_pd(-0.0), det), _mm_set1_pd(1e-12)));
#define STORE(l, q)                                                                                                \
    if (!(flat >> l & 1)) {                                                                                            \
        const int64_t X[3] = {xy[q[0]][0], xy[q[1]][0], xy[q[2]][0]}, Y[3] = {xy[q[0]][1], xy[q[1]][1], xy[q[2]][1]}; \
        if (!store_tri(r, s, X, Y, box[k + l], fa[l], fb[l], fc[l], n ? n[keep[k + l]] : no_normal, prim_index))     \
            return false;                                                                                              \
    }
            STORE(0, qa)
            STORE(1, qb)
#undef STORE
        }
#endif
        for (; k < m; k++) {
            const uint32_t *q = t[keep[k]];
            const int64_t X[3] = {xy[q[0]][0], xy[q[1]][0], xy[q[2]][0]}, Y[3] = {xy[q[0]][1], xy[q[1]][1], xy[q[2]][1]};
            const double sx[3] = {sw[q[0]][0], sw[q[1]][0], sw[q[2]][0]}, sy[3] = {sw[q[0]][1], sw[q[1]][1], sw[q[2]][1]};
            const double w[3] = {sw[q[0]][2], sw[q[1]][2], sw[q[2]][2]};
            if (!put_tri(r, s, X, Y, box[k], sx, sy, w, n ? n[keep[k]] : no_normal, prim_index))
                return false;
        }
    }
    return true;
}

/* Culls, clips and emits one triangle of projected vertices. wn: its unit world normal when
** known (the static cache's), else NULL: computed here when colour needs it. */
static bool add_triangle(const sn_renderer *r, setup_out *s, const vert *va, const vert *vb, const vert *vc,
                         const float *wn, uint32_t prim_index)
{
    /* outside one plane of the view (a side, far, near or the guard band): nothing to draw */
    if (va->oc & vb->oc & vc->oc)
        return true;
    const sn_vec3 a = va->c, b = vb->c, c = vc->c;
    float nf[3] = {0, 0, 0}; /* depth, tags and ids need no normal: only shading reads it */
    bool clip = (va->oc | vb->oc | vc->oc) & (OC_NEAR | OC_GUARD);
    if (!clip && (wn || !r->out->bgra)) {
        /* the common case: nothing to clip, no normal to find; emit culls back faces */
        if (wn && r->out->bgra)
            memcpy(nf, wn, sizeof nf);
        const vert *const v3[3] = {va, vb, vc};
        return emit(r, s, v3, nf, prim_index, true);
    }
    sn_vec3 n = sn_v3_cross(sn_v3_sub(b, a), sn_v3_sub(c, a));
    if (sn_v3_dot(n, a) >= 0)
        return true; /* back face (meshes wind outwards) or edge-on */
    if (wn)
        memcpy(nf, wn, sizeof nf);
    else if (r->out->bgra) {
        sn_vec3 w = sn_v3_norm(sn_mat3_apply(&r->R, n));
        nf[0] = (float)w.x, nf[1] = (float)w.y, nf[2] = (float)w.z;
    }
    if (!clip) {
        const vert *const v3[3] = {va, vb, vc};
        return emit(r, s, v3, nf, prim_index, true);
    }
    sn_vec3 poly[2][MAX_POLY] = {{a, b, c}};
    int n_poly = 3, cur = 0;
    for (int k = 0; k < 5; k++) {
        if (!((va->oc | vb->oc | vc->oc) & (1u << k)))
            continue; /* wholly inside this plane */
        n_poly = clip_plane(r, poly[cur], n_poly, poly[cur ^ 1], k);
        cur ^= 1;
        if (n_poly < 3)
            return true;
    }
    vert pv[MAX_POLY];
    for (int i = 0; i < n_poly; i++) {
        pv[i].c = poly[cur][i];
        screen(r, &pv[i]);
    }
    for (int i = 1; i + 1 < n_poly; i++) {
        const vert *const v3[3] = {&pv[0], &pv[i], &pv[i + 1]};
        if (!emit(r, s, v3, nf, prim_index, false))
            return false;
    }
    return true;
}

/* An actor's pose at the instant being rendered. */
typedef struct pose {
    sn_vec3 pos;
    sn_mat3 rot;
} pose;

static prim *new_prim(sn_renderer *r, const sn_actor *a, const pose *t)
{
    if (!sn_grow((void **)&r->prims, &r->cap_prims, r->n_prims + 1, sizeof *r->prims))
        return NULL;
    prim *p = &r->prims[r->n_prims++];
    p->id = a->id;
    p->tag = a->tag;
    memcpy(p->color, a->color, 3);
    p->checker = a->checker;
    p->checker_size = a->ph->checker_size > 0 ? a->ph->checker_size : 1.0;
    p->is_plane = a->shape == SN_SHAPE_PLANE;
    p->rot = t->rot;
    p->pos = t->pos;
    p->moves = false;
    p->material = SN_MAT_BODY;
    p->glow = sn_night_actor_glow(a, r->env.night); /* traffic-light heads (nightlights.h) */
    if (r->motion || r->grid) {
        sn_vec3 pp;
        sn_quat pq;
        sn_actor_pose_at(r->world, a, 0.0, &pp, &pq);
        sn_mat3 rp = sn_mat3_from_quat(pq);
        p->dpos = sn_v3_sub(pp, t->pos);
        /* R_prev R_now^T - I, entry by entry: exactly 0 when the actor did not turn */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0;
                for (int k = 0; k < 3; k++)
                    v += rp.m[3 * i + k] * t->rot.m[3 * j + k];
                p->dm.m[3 * i + j] = v - (i == j);
            }
        for (int k = 0; k < 9; k++)
            p->moves |= p->dm.m[k] != 0;
        p->moves |= p->dpos.x != 0 || p->dpos.y != 0 || p->dpos.z != 0;
    }
    return p;
}

/* A ground plane n.x = d: 1/depth along each pixel's ray is affine in the pixel. */
static bool add_plane(sn_renderer *r, const sn_actor *a, const pose *t)
{
    sn_vec3 n = a->ph->plane_normal;
    double num = a->ph->plane_offset - sn_v3_dot(n, r->eye);
    if (fabs(num) < 1e-9)
        return true; /* the eye lies in the plane: it is seen edge-on */
    sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    double nf = sn_v3_dot(n, fwd), nr = sn_v3_dot(n, right), nu = sn_v3_dot(n, up);
    /* ray(x, y) = fwd + right (x + 1/2 - cx)/f - up (y + 1/2 - cy)/f; w = n.ray / num */
    if (!new_prim(r, a, t) || !sn_grow((void **)&r->planes, &r->cap_planes, r->n_planes + 1, sizeof *r->planes))
        return false;
    plane *p = &r->planes[r->n_planes++];
    p->wa = (float)(nr / (r->f * num));
    p->wb = (float)(-nu / (r->f * num));
    p->wc = (float)((nf + nr * (0.5 - r->cx) / r->f - nu * (0.5 - r->cy) / r->f) / num);
    /* shade the side the eye is on */
    double s = num < 0 ? 1 : -1;
    p->n[0] = (float)(n.x * s), p->n[1] = (float)(n.y * s), p->n[2] = (float)(n.z * s);
    p->prim = (uint32_t)r->n_prims - 1;
    p->wn = n, p->off = a->ph->plane_offset;
    return true;
}

/* Whether a sphere (camera-space centre cc) lies wholly outside near, far or a side of the view. */
static bool sphere_culled(const sn_renderer *r, sn_vec3 cc, double rad)
{
    double sh = 1 / sqrt(1 + r->tanh_ * r->tanh_), sv = 1 / sqrt(1 + r->tanv * r->tanv);
    return cc.x + rad < r->cam->near_clip || cc.x - rad > r->cam->far_clip ||
           (cc.y - r->tanh_ * cc.x) * sh > rad || (-cc.y - r->tanh_ * cc.x) * sh > rad ||
           (cc.z - r->tanv * cc.x) * sv > rad || (-cc.z - r->tanv * cc.x) * sv > rad;
}

/* Whether a sphere lies wholly inside the view, clear of every plane by a margin for rounding:
** its mesh's vertices then all have outcode 0, and setup skips finding them. */
static bool sphere_inside(const sn_renderer *r, sn_vec3 cc, double rad)
{
    double sh = 1 / sqrt(1 + r->tanh_ * r->tanh_), sv = 1 / sqrt(1 + r->tanv * r->tanv);
    rad = rad * (1 + 1e-6) + 1e-6;
    return cc.x - rad > r->cam->near_clip && cc.x + rad < r->cam->far_clip &&
           (cc.y - r->tanh_ * cc.x) * sh < -rad && (-cc.y - r->tanh_ * cc.x) * sh < -rad &&
           (cc.z - r->tanv * cc.x) * sv < -rad && (-cc.z - r->tanv * cc.x) * sv < -rad;
}

static job *new_job(sn_renderer *r)
{
    if (!sn_grow((void **)&r->jobs, &r->cap_jobs, r->n_jobs + 1, sizeof *r->jobs))
        return NULL;
    job *j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof *j);
    return j;
}

/* Job j draws mesh m of actor a: its triangles, and a primitive per part (its material's colour). */
static bool add_parts(sn_renderer *r, const sn_actor *a, const pose *t, const sn_mesh *m, job *j)
{
    j->t = m->t, j->n_v = m->n_v, j->count = m->n_t;
    j->parts = m->parts, j->n_parts = m->parts ? m->n_parts : 1;
    j->prim = (uint32_t)r->n_prims;
    for (uint32_t k = 0; k < j->n_parts; k++) {
        /* a part is its actor's primitive in its own colour (the motion terms computed once) */
        prim *p = k ? (sn_grow((void **)&r->prims, &r->cap_prims, r->n_prims + 1, sizeof *r->prims)
                           ? &r->prims[r->n_prims++]
                           : NULL)
                    : new_prim(r, a, t);
        if (!p)
            return false;
        if (k)
            *p = p[-1];
        p->material = m->parts ? m->parts[k].material : SN_MAT_BODY;
        sn_actor_material_rgb(a, p->material, p->color);
        p->tag = sn_material_tag(p->material, a->tag);
        p->glow = (float)sn_lamp_glow(a, p->material);
    }
    return true;
}

/* An actor's mesh: m's vertices scaled by ext in the actor's frame about its box centre, each
** part its own primitive (its material's colour) when the mesh has parts. Queued: the
** triangles are set up by setup_task. */
static bool add_mesh(sn_renderer *r, const sn_actor *a, const pose *t, const sn_mesh *m, sn_vec3 ext, job **out)
{
    const sn_mat3 ra = t->rot;
    sn_vec3 centre = sn_v3_add(t->pos, sn_mat3_apply(&ra, a->ph->bbox.location));
    sn_vec3 cc = sn_mat3_apply_t(&r->R, sn_v3_sub(centre, r->eye));
    *out = NULL;
    /* the box's bounding sphere: every mesh lies inside the box */
    if (sphere_culled(r, cc, sn_v3_len(a->ph->bbox.extent)))
        return true;
    job *j = new_job(r);
    if (!j)
        return false;
    j->inside = sphere_inside(r, cc, sn_v3_len(a->ph->bbox.extent));
    j->wc = centre, j->wr = sn_v3_len(a->ph->bbox.extent);
    j->v = m->v;
    /* camera-space columns of the scaled actor frame */
    j->cc = cc;
    j->c0 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 0)), ext.x);
    j->c1 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 1)), ext.y);
    j->c2 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 2)), ext.z);
    *out = j;
    return add_parts(r, a, t, m, j);
}

/* Actor a's static mesh from the cache (world vertices and normals), culled by its sphere. */
static bool add_static(sn_renderer *r, const sn_actor *a, const sn_static_obj *o)
{
    sn_vec3 cc = sn_mat3_apply_t(&r->R, sn_v3_sub(o->centre, r->eye));
    if (sphere_culled(r, cc, o->radius))
        return true;
    job *j = new_job(r);
    if (!j)
        return false;
    j->inside = sphere_inside(r, cc, o->radius);
    j->wc = o->centre, j->wr = o->radius;
    j->wv = (const double(*)[3])r->statics.wv + o->wv;
    j->wn = (const float(*)[3])r->statics.wn + o->wn;
    pose t;
    sn_quat q;
    sn_actor_pose_at(r->world, a, 1.0, &t.pos, &q);
    t.rot = sn_mat3_from_quat(q);
    return add_parts(r, a, &t, o->mesh, j);
}

/* A vehicle or walker as its model (shapes.h), posed at the instant rendered. */
static bool add_model(sn_renderer *r, const sn_actor *a, const pose *t, double alpha, sn_model model)
{
    const sn_mesh *topo = sn_model_mesh(model);
    job *j;
    if (!add_mesh(r, a, t, topo, sn_v3(1, 1, 1), &j))
        return false;
    if (!j)
        return true; /* culled */
    if (!sn_grow((void **)&r->model_v, &r->cap_model_v, r->n_model_v + topo->n_v, sizeof *r->model_v))
        return false;
    sn_model_state s;
    sn_model_state_of(a, alpha, &s);
    sn_model_pose(model, &s, r->model_v + r->n_model_v);
    j->model = true, j->v = NULL, j->v_off = r->n_model_v;
    r->n_model_v += topo->n_v;
    return true;
}

/* The map's roads (road_mesh.h): world-frame chunks, each one primitive of instance 0 with
** its category's tag and colour, culled by its bounding sphere like an actor. */
static bool add_roads(sn_renderer *r, const sn_road_mesh *m)
{
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const sn_road_chunk *k = &m->chunks[i];
        sn_vec3 lo = sn_v3(k->lo[0], k->lo[1], k->lo[2]), hi = sn_v3(k->hi[0], k->hi[1], k->hi[2]);
        sn_vec3 cc = sn_mat3_apply_t(&r->R, sn_v3_sub(sn_v3_scale(sn_v3_add(lo, hi), 0.5), r->eye));
        double rad = 0.5 * sn_v3_len(sn_v3_sub(hi, lo)) + 1e-6;
        if (sphere_culled(r, cc, rad))
            continue;
        job *j = new_job(r);
        if (!j || !sn_grow((void **)&r->prims, &r->cap_prims, r->n_prims + 1, sizeof *r->prims))
            return false;
        j->inside = sphere_inside(r, cc, rad);
        j->wc = sn_v3_scale(sn_v3_add(lo, hi), 0.5), j->wr = rad;
        prim *p = &r->prims[r->n_prims++];
        memset(p, 0, sizeof *p); /* roads never move: p->moves stays false */
        p->id = k->instance;     /* 0 for roads, a scenery piece's id (scenery/scenery.h) */
        p->tag = k->tag;
        memcpy(p->color, k->rgb, 3);
        sn_night_chunk(k, r->env.night, p->color, &p->glow); /* lamp heads, lit windows (nightlights.h) */
        p->checker_size = 1.0;
        p->rot = (sn_mat3){{1, 0, 0, 0, 1, 0, 0, 0, 1}};
        j->wv = (const double(*)[3])m->v + k->v_first, j->t = (const uint32_t(*)[3])m->t + k->first;
        j->wn = (const float(*)[3])r->statics.road_n + k->first;
        j->n_v = k->v_count, j->count = k->count, j->n_parts = 1;
        j->prim = (uint32_t)r->n_prims - 1;
    }
    return true;
}

/* The camera-space vertex i of job j (v: its local vertices when it has no world ones). */
static inline sn_vec3 job_vertex(const sn_renderer *r, const job *j, const float (*v)[3], uint32_t i)
{
    if (j->wv)
        return sn_mat3_apply_t(&r->R, sn_v3_sub(sn_v3(j->wv[i][0], j->wv[i][1], j->wv[i][2]), r->eye));
    sn_vec3 yz = sn_v3_add(sn_v3_scale(j->c1, v[i][1]), sn_v3_scale(j->c2, v[i][2]));
    return sn_v3_add(j->cc, sn_v3_add(sn_v3_scale(j->c0, v[i][0]), yz));
}

#ifdef __SSE2__
/* a x + b y + c z in two lanes, in sn_mat3_apply_t's order (the same bits) */
static inline __m128d dot2(double a, double b, double c, __m128d x, __m128d y, __m128d z)
{
    const __m128d xy = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(a), x), _mm_mul_pd(_mm_set1_pd(b), y));
    return _mm_add_pd(xy, _mm_mul_pd(_mm_set1_pd(c), z));
}

/* o + (a x + (b y + c z)) in two lanes, in job_vertex's order */
static inline __m128d affine2(double o, double a, double b, double c, __m128d x, __m128d y, __m128d z)
{
    const __m128d yz = _mm_add_pd(_mm_mul_pd(_mm_set1_pd(b), y), _mm_mul_pd(_mm_set1_pd(c), z));
    return _mm_add_pd(_mm_set1_pd(o), _mm_add_pd(_mm_mul_pd(_mm_set1_pd(a), x), yz));
}

/* round_half_away of two lanes whose values fit int32 (a job inside the view: within the image) */
static inline __m128d round_half_away2(__m128d v)
{
    const __m128d i = _mm_cvtepi32_pd(_mm_cvttpd_epi32(v)), f = _mm_sub_pd(v, i), one = _mm_set1_pd(1);
    return _mm_sub_pd(_mm_add_pd(i, _mm_and_pd(_mm_cmpge_pd(f, _mm_set1_pd(0.5)), one)),
                      _mm_and_pd(_mm_cmple_pd(f, _mm_set1_pd(-0.5)), one));
}
#endif

/* screen() of every vertex of job j, wholly inside the view, into xy (fixed point) and sw (sx, sy,
** 1/depth): two vertices at a time in SSE2 (its divisions are most of a vertex's cost, and
** divpd does two for the price of one), the same operations in the same order, so the same bits. */
static void project_inside(const sn_renderer *r, const job *j, const float (*v)[3], int32_t (*xy)[2], double (*sw)[3])
{
    uint32_t i = 0;
#ifdef __SSE2__
    const double *R = r->R.m;
    const __m128d ex = _mm_set1_pd(r->eye.x), ey = _mm_set1_pd(r->eye.y), ez = _mm_set1_pd(r->eye.z);
    const __m128d f = _mm_set1_pd(r->f), cx = _mm_set1_pd(r->cx), cy = _mm_set1_pd(r->cy), one = _mm_set1_pd(1);
    const __m128d sub = _mm_set1_pd(ONE);
    for (; i + 2 <= j->n_v; i += 2) {
        __m128d x, y, z;
        if (j->wv) {
            const double *p = j->wv[i], *q = j->wv[i + 1];
            const __m128d dx = _mm_sub_pd(_mm_set_pd(q[0], p[0]), ex), dy = _mm_sub_pd(_mm_set_pd(q[1], p[1]), ey);
            const __m128d dz = _mm_sub_pd(_mm_set_pd(q[2], p[2]), ez);
            x = dot2(R[0], R[3], R[6], dx, dy, dz);
            y = dot2(R[1], R[4], R[7], dx, dy, dz);
            z = dot2(R[2], R[5], R[8], dx, dy, dz);
        } else {
            const float *p = v[i], *q = v[i + 1];
            const __m128d lx = _mm_set_pd(q[0], p[0]), ly = _mm_set_pd(q[1], p[1]), lz = _mm_set_pd(q[2], p[2]);
            x = affine2(j->cc.x, j->c0.x, j->c1.x, j->c2.x, lx, ly, lz);
            y = affine2(j->cc.y, j->c0.y, j->c1.y, j->c2.y, lx, ly, lz);
            z = affine2(j->cc.z, j->c0.z, j->c1.z, j->c2.z, lx, ly, lz);
        }
        /* screen(): cx + f y / x, cy - f z / x, 1 / x */
        const __m128d sx = _mm_add_pd(cx, _mm_div_pd(_mm_mul_pd(f, y), x));
        const __m128d sy = _mm_sub_pd(cy, _mm_div_pd(_mm_mul_pd(f, z), x));
        const __m128d w = _mm_div_pd(one, x);
        const __m128i X = _mm_cvttpd_epi32(round_half_away2(_mm_mul_pd(sx, sub)));
        const __m128i Y = _mm_cvttpd_epi32(round_half_away2(_mm_mul_pd(sy, sub)));
        _mm_storeu_si128((__m128i *)xy[i], _mm_unpacklo_epi32(X, Y)); /* X0 Y0 X1 Y1 */
        _mm_storel_pd(&sw[i][0], sx), _mm_storel_pd(&sw[i][1], sy), _mm_storel_pd(&sw[i][2], w);
        _mm_storeh_pd(&sw[i + 1][0], sx), _mm_storeh_pd(&sw[i + 1][1], sy), _mm_storeh_pd(&sw[i + 1][2], w);
    }
#endif
    for (; i < j->n_v; i++) {
        vert t;
        t.c = job_vertex(r, j, v, i);
        screen(r, &t);
        xy[i][0] = t.X, xy[i][1] = t.Y;
        sw[i][0] = t.sx, sw[i][1] = t.sy, sw[i][2] = t.w;
    }
}

/* Setup task k: transforms, culls, clips, projects and bins the triangles of its jobs. A job's
** triangles depend on the job alone, so how the jobs are split never shows in the output. */
static void setup_task(void *arg, uint32_t k)
{
    sn_renderer *r = arg;
    setup_out *s = &r->setup[k];
    s->n = 0;
    s->oom = false;
    for (size_t b = 0; b < r->n_bands; b++)
        s->bands[b].n = 0;
    for (uint32_t ji = r->job_from[k]; ji < r->job_from[k + 1] && !s->oom; ji++) {
        const job *j = &r->jobs[ji];
        /* wholly inside the view with the normal known or not needed: nothing to clip or find,
        ** every triangle to emit_inside */
        const bool direct = j->inside && (j->wn || !r->out->bgra);
        if (direct ? !sn_grow((void **)&s->xy, &s->cap_xy, j->n_v, sizeof *s->xy) ||
                         !sn_grow((void **)&s->sw, &s->cap_sw, j->n_v, sizeof *s->sw)
                   : !sn_grow((void **)&s->verts, &s->cap_verts, j->n_v, sizeof *s->verts)) {
            s->oom = true;
            break;
        }
        const float(*v)[3] = j->model ? (const float(*)[3])r->model_v + j->v_off : j->v;
        if (direct)
            project_inside(r, j, v, s->xy, s->sw);
        else
            for (uint32_t i = 0; i < j->n_v; i++) {
                vert *out = &s->verts[i];
                out->c = job_vertex(r, j, v, i);
                if (j->inside)
                    out->oc = 0, screen(r, out);
                else
                    project(r, out->c, out);
            }
        for (uint32_t pk = 0; pk < j->n_parts && !s->oom; pk++) {
            uint32_t first = j->parts ? j->parts[pk].first : 0, count = j->parts ? j->parts[pk].count : j->count;
            if (direct) {
                if (!emit_inside(r, s, j->t, first, count, (const int32_t(*)[2])s->xy, (const double(*)[3])s->sw,
                                 r->out->bgra ? j->wn : NULL, j->prim + pk))
                    s->oom = true;
                continue;
            }
            for (uint32_t i = first; i < first + count; i++) {
                const uint32_t *q = j->t[i];
                if (!add_triangle(r, s, &s->verts[q[0]], &s->verts[q[1]], &s->verts[q[2]], j->wn ? j->wn[i] : NULL,
                                  j->prim + pk)) {
                    s->oom = true;
                    break;
                }
            }
        }
    }
}

/* Setup task k's triangles into the frame's array, at its base. */
static void gather_task(void *arg, uint32_t k)
{
    sn_renderer *r = arg;
    const setup_out *s = &r->setup[k];
    if (s->n)
        memcpy(r->tris + s->base, s->info, s->n * sizeof *s->info);
}

/* The queued jobs set up on the pool: split into tasks of about equal triangle counts, then
** gathered in job order. False when out of memory. */
static bool setup_jobs(sn_renderer *r)
{
    uint32_t want = sn_pool_threads(r->pool) > 1 && !r->serial_setup ? 4 * (uint32_t)sn_pool_threads(r->pool) : 1;
    if (want > MAX_SETUP)
        want = MAX_SETUP;
    if (want > r->n_jobs)
        want = r->n_jobs ? (uint32_t)r->n_jobs : 1;
    size_t total = 0, sum = 0;
    for (size_t i = 0; i < r->n_jobs; i++)
        total += r->jobs[i].count;
    uint32_t n = 0;
    r->job_from[0] = 0;
    for (size_t i = 0; i < r->n_jobs; i++) {
        sum += r->jobs[i].count;
        if (n + 1 < want && sum * want >= total * (n + 1))
            r->job_from[++n] = (uint32_t)i + 1;
    }
    r->job_from[++n] = (uint32_t)r->n_jobs;
    r->n_setup = n;
    for (uint32_t k = 0; k < n; k++) {
        setup_out *s = &r->setup[k];
        if (s->cap_bands < r->n_bands) {
            band *b = realloc(s->bands, r->n_bands * sizeof *b);
            if (!b)
                return false;
            memset(b + s->cap_bands, 0, (r->n_bands - s->cap_bands) * sizeof *b);
            s->bands = b;
            s->cap_bands = r->n_bands;
        }
    }
    if (n == 1)
        setup_task(r, 0);
    else
        sn_pool_run(r->pool, setup_task, r, n);
    r->n_tris = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (r->setup[k].oom)
            return false;
        r->setup[k].base = r->n_tris;
        r->n_tris += r->setup[k].n;
    }
    if (r->n_tris >= PLANE_BIT)
        return false;
    if (!r->need_info)
        return true;
    if (!sn_grow((void **)&r->tris, &r->cap_tris, r->n_tris + 1, sizeof *r->tris))
        return false;
    if (n == 1)
        gather_task(r, 0);
    else
        sn_pool_run(r->pool, gather_task, r, n);
    return true;
}

/* ---- rasterise and resolve one band ---- */

static void resolve(sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end);
static void resolve_samples(sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end);
static void resolve_grid(const sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end);

/* The ray through the centre of pixel (x, y), scaled so that its forward component is 1:
** eye + ray * depth is the point at planar depth `depth`. */
static sn_vec3 pixel_ray(const sn_renderer *r, uint32_t x, int32_t y, sn_vec3 fwd, sn_vec3 right, sn_vec3 up)
{
    double a = r->ray_a[x], b = r->ray_b[y]; /* ((x or y) + 0.5 - (cx or cy)) / f, made in prepare() */
    return sn_v3_add(fwd, sn_v3_sub(sn_v3_scale(right, a), sn_v3_scale(up, b)));
}

/* Band bi's rows [*y_begin, *y_end). */
static void band_rows(const sn_renderer *r, uint32_t bi, int32_t *y_begin, int32_t *y_end)
{
    const int32_t rows = (int32_t)r->band;
    *y_begin = (int32_t)bi * rows;
    *y_end = *y_begin + rows < (int32_t)r->H ? *y_begin + rows : (int32_t)r->H;
}

/* Band bi cleared, then its ground planes drawn: what comes before its triangles. v: the buffers
** holding its rows. */
static void clear_band(sn_renderer *r, const sn_raster_target *v, uint32_t bi)
{
    const uint32_t W = r->W;
    int32_t y_begin, y_end;
    band_rows(r, bi, &y_begin, &y_end);
    float *wb = v->wbuf;
    uint32_t *ib = v->idbuf;
    const size_t off = (size_t)v->y0 * W; /* the buffers' first row */
    const float inv_far = r->inv_far, inv_near = r->inv_near;
    /* the raster's coarse depth: every 1/depth of the band is at least the clear value */
    for (size_t i = (size_t)(y_begin - v->y0) * v->zstride, end = (size_t)(y_end - v->y0) * v->zstride; i < end; i++)
        v->zmin[i] = inv_far;

    /* clear (the band's rows are one block), then the ground planes: exact per pixel. The first
    ** plane is drawn as the band is cleared (one pass over the buffers instead of two): what it
    ** compares against is the clear value, so the bits are those of clearing first. */
    const bool fused = r->n_planes > 0;
    if (!fused) {
        for (size_t i = (size_t)y_begin * W - off, end = (size_t)y_end * W - off; i < end; i++)
            wb[i] = inv_far;
        if (r->need_info) /* depth alone keeps no ids (raster.h) */
            memset(ib + ((size_t)y_begin * W - off), 0xFF, (size_t)(y_end - y_begin) * W * sizeof *ib); /* NONE */
    }
    for (size_t k = 0; k < r->n_planes; k++) {
        const plane *p = &r->planes[k];
        const bool first = k == 0, ids = r->need_info;
        for (int32_t y = y_begin; y < y_end; y++) {
            float row = p->wb * (float)y + p->wc;
            float *wr = wb + ((size_t)y * W - off);
            uint32_t *ir = ids ? ib + ((size_t)y * W - off) : NULL;
            /* eight at a time with AVX2 (raster.c), the same bits as the lanes of four below */
            uint32_t x = sn_raster_plane_row(wr, ids ? ir : NULL, 0, W, row, p->wa, inv_near, inv_far,
                                             PLANE_BIT | (uint32_t)k, first);
#ifdef __SSE2__
            /* four at a time, masks for the branch: each lane the scalar expression, the same bits */
            const __m128 vrow = _mm_set1_ps(row), vwa = _mm_set1_ps(p->wa), vnear = _mm_set1_ps(inv_near),
                         vfar = _mm_set1_ps(inv_far);
            const __m128i vid = _mm_set1_epi32((int32_t)(PLANE_BIT | (uint32_t)k)), vnone = _mm_set1_epi32(-1);
            for (; x + 4 <= W; x += 4) {
                const __m128 w = _mm_add_ps(vrow, _mm_mul_ps(vwa, _mm_cvtepi32_ps(_mm_add_epi32(
                                                                      _mm_set1_epi32((int32_t)x), _mm_setr_epi32(0, 1, 2, 3))))),
                             old = first ? vfar : _mm_loadu_ps(wr + x), m = _mm_and_ps(_mm_cmpgt_ps(w, old), _mm_cmplt_ps(w, vnear));
                _mm_storeu_ps(wr + x, _mm_or_ps(_mm_and_ps(m, w), _mm_andnot_ps(m, old)));
                if (!ids)
                    continue;
                const __m128i mi = _mm_castps_si128(m), was = first ? vnone : _mm_loadu_si128((const __m128i *)(ir + x));
                _mm_storeu_si128((__m128i *)(ir + x), _mm_or_si128(_mm_and_si128(mi, vid), _mm_andnot_si128(mi, was)));
            }
#endif
            for (; x < W; x++) {
                float w = row + p->wa * (float)x;
                if (first) {
                    wr[x] = inv_far;
                    if (ids)
                        ir[x] = NONE;
                }
                if (w > wr[x] && w < inv_near) {
                    wr[x] = w;
                    if (ids)
                        ir[x] = PLANE_BIT | (uint32_t)k;
                }
            }
        }
    }
}

/* The moving layer's alpha: 255 x the share of a pixel's samples that hit something of the
** layer (its colour is the samples' average with black for the rest: premultiplied). */
static void layer_alpha(const sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end)
{
    const uint32_t ss = r->ss, OW = r->W / ss, n = ss * ss;
    for (int32_t oy = y_begin / (int32_t)ss; oy < y_end / (int32_t)ss; oy++)
        for (uint32_t ox = 0; ox < OW; ox++) {
            uint32_t hit = 0;
            for (uint32_t j = 0; j < ss; j++)
                for (uint32_t i = 0; i < ss; i++)
                    hit += v->idbuf[((size_t)oy * ss + j - (size_t)v->y0) * r->W + ox * ss + i] != NONE;
            r->out->bgra[4 * ((size_t)oy * OW + ox) + 3] = (uint8_t)((hit * 255 + n / 2) / n);
        }
}

/* A band of the moving layer no triangle touches: its output rows say nothing is hit, without
** clearing, rasterising or shading (the layer's cost follows the moving actors' screen area). */
static void empty_band(const sn_renderer *r, int32_t y_begin, int32_t y_end)
{
    const sn_image *o = r->out;
    const uint32_t ss = r->ss, OW = r->W / ss;
    const size_t first = (size_t)(y_begin / (int32_t)ss) * OW, n = (size_t)((y_end - y_begin) / (int32_t)ss) * OW;
    if (o->bgra)
        memset(o->bgra + 4 * first, 0, 4 * n);
    if (o->tag)
        memset(o->tag + first, SN_TAG_SKY, n);
    if (o->instance)
        memset(o->instance + first, 0, n * sizeof *o->instance);
    for (size_t i = 0; o->depth && i < n; i++)
        o->depth[first + i] = r->far;
}

static void draw_band(void *arg, uint32_t bi)
{
    sn_renderer *r = arg;
    int32_t y_begin, y_end;
    band_rows(r, bi, &y_begin, &y_end);
    if (r->layer == SN_LAYER_MOVING) {
        bool any = false;
        for (uint32_t sk = 0; sk < r->n_setup && !any; sk++)
            any = r->setup[sk].bands[bi].n > 0;
        if (!any) {
            empty_band(r, y_begin, y_end);
            return;
        }
    }
    /* the band's buffers: this thread's scratch (banded), else the frame's */
    sn_raster_target t = r->target;
    if (r->banded) {
        /* depth, ids, then the coarse depth (cam56: the band's rows, not the frame's 460 KB at
        ** 1280x720 and 2x2 samples held by each renderer) */
        const size_t n = (size_t)r->band * r->W, nz = (size_t)r->band * t.zstride;
        float *mem = sn_scratch_take(n * (sizeof *t.wbuf + (r->need_info ? sizeof *t.idbuf : 0)) + nz * sizeof *t.zmin);
        if (!mem) {
            atomic_store(&r->scratch_oom, true);
            return;
        }
        t.wbuf = mem;
        t.idbuf = r->need_info ? (uint32_t *)(mem + n) : NULL;
        t.zmin = mem + (r->need_info ? 2 * n : n);
        t.y0 = y_begin;
    }
    clear_band(r, &t, bi);

    /* triangles, in the order they were set up (setup task by task): ties keep the first */
    for (uint32_t sk = 0; sk < r->n_setup; sk++) {
        const setup_out *so = &r->setup[sk];
        const band *bd = &so->bands[bi];
        for (uint32_t k = 0; k < bd->n; k++) {
            /* a band's triangles are a sparse walk through an array far larger than the cache:
            ** fetch a few ahead (the raster of one small triangle is shorter than a miss) */
            if (k + PREFETCH < bd->n)
                __builtin_prefetch(&so->tris[bd->list[k + PREFETCH]]);
            sn_raster(&t, &so->tris[bd->list[k]], (uint32_t)so->base + bd->list[k], y_begin, y_end);
        }
    }

    if (r->ss > 1)
        resolve_samples(r, &t, y_begin, y_end);
    else
        resolve(r, &t, y_begin, y_end);
    if (r->grid)
        resolve_grid(r, &t, y_begin, y_end);
    if (r->layer == SN_LAYER_MOVING && r->out->bgra)
        layer_alpha(r, &t, y_begin, y_end);
    if (r->banded)
        sn_scratch_release();
}

/* The checker's albedo factor at world point pw of prim p with normal n: 0.7 on odd cells. */
static double checker(const prim *p, sn_vec3 pw, const float *n)
{
    /* the surface point, pushed a hair inside so faces on cell borders do not flicker */
    sn_vec3 pt = sn_v3_sub(pw, sn_v3_scale(sn_v3(n[0], n[1], n[2]), 1e-3 * p->checker_size));
    sn_vec3 l = sn_mat3_apply_t(&p->rot, sn_v3_sub(pt, p->pos));
    double cs = p->checker_size;
    int cell = parity(l.x / cs) + parity(l.y / cs) + (p->is_plane ? 0 : parity(l.z / cs));
    return cell & 1 ? 0.7 : 1;
}

/* One sample shaded by the exact path or glossy: its bytes, or its colour before fog until the
** fog's batch (shade_fog) finishes them; bgra the bytes as the G-buffer's (rec_bgra). */
typedef struct shade_rec {
    double out[3];
    uint8_t rgb[3];
    uint8_t bgra[4];
} shade_rec;

/* rec's bytes in the image's order with alpha 255, as the G-buffer and sky batches leave theirs */
static inline const uint8_t *rec_bgra(shade_rec *rec)
{
    rec->bgra[0] = rec->rgb[2], rec->bgra[1] = rec->rgb[1], rec->bgra[2] = rec->rgb[0], rec->bgra[3] = 255;
    return rec->bgra;
}

/* A batch of samples waiting for their fog: their offsets from the eye, single precision, in
** arrays padded to a multiple of 4 (sn_fog_transmittance_fast). */
#define FOG_BATCH 256
typedef struct fog_batch {
    float dx[FOG_BATCH], dy[FOG_BATCH], dz[FOG_BATCH], T[FOG_BATCH];
    shade_rec *rec[FOG_BATCH];
    uint32_t n;
} fog_batch;

/* What shading reads of a winner, whatever the sample: looked up once for a run of samples with
** the same winner (most pixels lie in large triangles; the lookup is two random reads). */
typedef struct winner {
    uint32_t id; /* NONE: nothing looked up yet */
    const float *n;
    const prim *p;
    bool matte; /* the fast path's G-buffer takes it */
    bool plain; /* matte without headlights: its G-buffer entries differ only in their point (and a
                ** checker's albedo, from the point), so a run of them is written by gather_fill */
    float vis;  /* the G-buffer's vis: -1 (look the shadow up) or 1 */
    bool halve; /* plain, and its runs are half runs when r->half: not a kerb's face (its 5 cm grain)
                ** nor a checker (its cells: two apart have one albedo, see half_runs) */
    bool tiles; /* a sidewalk's top: its 2.4 cm joints are sharp lines an odd pixel alone may hold */
} winner;

static void look_up(const sn_renderer *r, uint32_t id, winner *w)
{
    w->id = id;
    if (id & PLANE_BIT) {
        const plane *pl = &r->planes[id & ~PLANE_BIT];
        w->n = pl->n, w->p = &r->prims[pl->prim];
    } else {
        w->n = r->tris[id].n, w->p = &r->prims[r->tris[id].prim];
    }
    const float *n = w->n;
    w->matte = !r->exact && !sn_shade_glossy(&r->env, w->p->tag, n[2]);
    w->plain = w->matte && !r->lamps.n;
    w->tiles = w->p->tag == SN_TAG_SIDEWALK;
    w->halve = w->plain && r->half && !w->p->checker && !(w->tiles && n[2] < 0.5f);
    w->vis = r->shadows && n[0] * r->env.sun[0] + n[1] * r->env.sun[1] + n[2] * r->env.sun[2] > 0 ? -1 : 1;
}

#ifdef __SSE2__
/* parity() of both lanes: floor by rounding at 2^52 + 2^51 (exact below 2^51 in magnitude), the
** integer's low bit then the sum's last mantissa bit (2^52 + 2^51 is even); a lane at or above
** 2^51, or not finite, takes parity() itself. */
static inline __m128i parity2(__m128d v)
{
    const __m128d big = _mm_set1_pd(6755399441055744.0), one = _mm_set1_pd(1.0);
    const __m128d mag = _mm_and_pd(v, _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX)));
    __m128d t = _mm_sub_pd(_mm_add_pd(v, big), big);
    t = _mm_sub_pd(t, _mm_and_pd(_mm_cmpgt_pd(t, v), one));
    __m128i bit = _mm_and_si128(_mm_castpd_si128(_mm_add_pd(t, big)), _mm_set1_epi64x(1));
    const int small = _mm_movemask_pd(_mm_cmplt_pd(mag, _mm_set1_pd(2251799813685248.0)));
    if (small != 3) {
        double l[2];
        _mm_storeu_pd(l, v);
        bit = _mm_set_epi64x(small & 2 ? _mm_cvtsi128_si64(_mm_unpackhi_epi64(bit, bit)) : parity(l[1]),
                             small & 1 ? _mm_cvtsi128_si64(bit) : parity(l[0]));
    }
    return bit;
}

/* The checker's albedo of G-buffer entries [a, b) of checker winner w, whose samples are the
** columns x0, x0 + 2, ... of sample row y (a run of pixels): checker() at checker_point's point
** (shade_sample's), two entries at a time in double pairs, each lane the same operations in the
** same order (parity2 for parity). */
static void checker_run(const sn_renderer *r, sn_gbuf *g, uint32_t a, uint32_t b, const winner *w, uint32_t x0, int32_t y)
{
    const prim *p = w->p;
    const double cs = p->checker_size, push = 1e-3 * p->checker_size;
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    const double rb = r->ray_b[y];
    /* per axis: the ray's forward part, the eye, the normal's push, the primitive's position */
    const double F[3] = {fwd.x, fwd.y, fwd.z}, R[3] = {right.x, right.y, right.z}, U[3] = {up.x, up.y, up.z};
    const double E[3] = {r->eye.x, r->eye.y, r->eye.z}, P[3] = {p->pos.x, p->pos.y, p->pos.z};
    const double N[3] = {(double)w->n[0] * push, (double)w->n[1] * push, (double)w->n[2] * push};
    const double *m = p->rot.m;
    const __m128d vcs = _mm_set1_pd(cs);
    for (uint32_t k = a; k < b; k += 2) {
        const uint32_t k1 = k + 1 < b ? k + 1 : k; /* an odd run's last pair: the entry twice */
        const uint32_t xa = x0 + 2 * (k - a), xb = x0 + 2 * (k1 - a);
        float da = 1.0f / g->w[k], db = 1.0f / g->w[k1];
        da = da > r->far ? r->far : da, db = db > r->far ? r->far : db;
        const __m128d ra = _mm_set_pd(r->ray_a[xb], r->ray_a[xa]), depth = _mm_set_pd(db, da);
        __m128d d[3];
        for (int c = 0; c < 3; c++) {
            /* pixel_ray: fwd + (right a - up b); the point eye + ray depth; pushed in; less pos */
            const __m128d ray = _mm_add_pd(_mm_set1_pd(F[c]), _mm_sub_pd(_mm_mul_pd(_mm_set1_pd(R[c]), ra),
                                                                       _mm_set1_pd(U[c] * rb)));
            const __m128d pw = _mm_add_pd(_mm_set1_pd(E[c]), _mm_mul_pd(ray, depth));
            d[c] = _mm_sub_pd(_mm_sub_pd(pw, _mm_set1_pd(N[c])), _mm_set1_pd(P[c]));
        }
        /* sn_mat3_apply_t: (m0 x + m3 y) + m6 z, ... */
        __m128i cell = _mm_setzero_si128();
        for (int c = 0; c < (p->is_plane ? 2 : 3); c++) {
            const __m128d l = _mm_add_pd(_mm_add_pd(_mm_mul_pd(_mm_set1_pd(m[c]), d[0]), _mm_mul_pd(_mm_set1_pd(m[3 + c]), d[1])),
                                         _mm_mul_pd(_mm_set1_pd(m[6 + c]), d[2]));
            cell = _mm_add_epi64(cell, parity2(_mm_div_pd(l, vcs)));
        }
        g->albedo[k] = _mm_cvtsi128_si64(cell) & 1 ? 0.7f : 1.0f;
        g->albedo[k1] = _mm_cvtsi128_si64(_mm_unpackhi_epi64(cell, cell)) & 1 ? 0.7f : 1.0f;
    }
}
#endif

/* fog's weights in a run (shade_pairs.c): an anchor every SN_FOG_SPAN-th entry, between two the share of
** the way still to go to the next */
static const float fog_weights[SN_GBUF_N] = {
#define W4 0, 0.75f, 0.5f, 0.25f /* SN_FOG_SPAN 4 */
#define W16 W4, W4, W4, W4
    W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16, W16
#undef W16
#undef W4
};

/* G-buffer entries [a, b) of g, all of plain winner w, get w's fields and their row's ray
** coordinate (their 1/depth and column are in already): four entries a store, up to three past b (a batch leaves room; later entries
** overwrite them). What shade_sample writes for such an entry, field by field; a checker's
** albedo from each entry's point, whose samples are the columns x0, x0 + 2, ... of sample row y. */
static void gather_fill(const sn_renderer *r, sn_gbuf *g, uint32_t a, uint32_t b, const winner *w, uint32_t x0,
                        uint32_t step, uint32_t xl, int32_t y)
{
    if (a >= b)
        return;
    /* a half run's entries (step 4) are its even pixels and its last (xl); else every pixel */
    if (step == 2)
        xl = x0 + 2 * (b - 1 - a);
    const float *n = w->n;
    const prim *p = w->p;
    const v4f nx = v4_splat(n[0]), ny = v4_splat(n[1]), nz = v4_splat(n[2]), one = v4_splat(1.0f);
    const v4f c0 = v4_splat(p->color[0]), c1 = v4_splat(p->color[1]), c2 = v4_splat(p->color[2]);
    const v4f glow = v4_splat(p->glow), vis = v4_splat(w->vis), rb = v4_splat((float)r->ray_b[y]);
    for (uint32_t k = a; k < b; k += 4) {
        v4_store(g->rb + k, rb); /* the row's: the runs' loop leaves it */
        v4_store(g->nx + k, nx), v4_store(g->ny + k, ny), v4_store(g->nz + k, nz);
        v4_store(g->col[0] + k, c0), v4_store(g->col[1] + k, c1), v4_store(g->col[2] + k, c2);
        v4_store(g->glow + k, glow), v4_store(g->albedo + k, one), v4_store(g->vis + k, vis);
    }
    memset(g->tag + a, p->tag, b - a);
    if (r->pairs && b - a > 2) { /* fog's anchors every SN_FOG_SPAN-th entry and at the run's last (shade_pairs.c) */
        memcpy(g->fw + a, fog_weights, sizeof(float) * (b - a));
        const uint32_t j = a + ((b - 1 - a) & ~(uint32_t)(SN_FOG_SPAN - 1)); /* the last anchor of the pattern */
        if (step == 4) /* by column: the last entry is half a step from the one before */
            for (uint32_t k = j + 1; k < b; k++)
                g->fw[k] = (float)(xl - (x0 + step * (k - a))) / (float)(xl - (x0 + step * (j - a)));
        else
            for (uint32_t k = j + 1; k < b; k++)
                g->fw[k] = (float)(b - 1 - k) / (float)(b - 1 - j);
        g->fw[b - 1] = 0, g->npair = 1;
    } else {
        memset(g->fw + a, 0, sizeof(float) * (b - a));
    }
    if (!p->checker)
        return;
#ifdef __SSE2__
    checker_run(r, g, a, b, w, x0, y); /* a half run is never checkered (winner's halve) */
#else
    for (uint32_t k = a; k < b; k++) {
        const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
        const uint32_t x = x0 + 2 * (k - a);
        const float depth = 1.0f / g->w[k];
        const sn_vec3 pw = sn_v3_add(r->eye, sn_v3_scale(pixel_ray(r, x, y, fwd, right, up), depth > r->far ? r->far : depth));
        g->albedo[k] = (float)checker(p, pw, w->n);
    }
#endif
}

/* The sky's sample (x, y) on the fast path: its view direction queued in sky. */
static inline const uint8_t *sky_sample(const sn_renderer *r, uint32_t x, int32_t y, sn_skybuf *sky)
{
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    sn_vec3 ray = pixel_ray(r, x, y, fwd, right, up);
    uint32_t k = sky->n++;
    sky->dx[k] = (float)ray.x, sky->dy[k] = (float)ray.y, sky->dz[k] = (float)ray.z;
    return sky->rgb[k];
}

/* A sample row's sky directions (sky_sample's, a run at a time): pixel_ray's terms, the row's
** up * b once (the same product each pixel made) */
typedef struct sky_row {
    double fx, fy, fz, rx, ry, rz, ux, uy, uz;
} sky_row;

static void sky_row_init(const sn_renderer *r, int32_t y, sky_row *s)
{
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    const double b = r->ray_b[y];
    *s = (sky_row){fwd.x, fwd.y, fwd.z, right.x, right.y, right.z, up.x * b, up.y * b, up.z * b};
}

/* the direction at column coordinate a (ray_a's) queued in sky, as sky_sample's */
static inline void sky_dir(const sky_row *s, double a, sn_skybuf *sky)
{
    const uint32_t k = sky->n++;
    sky->dx[k] = (float)(s->fx + (s->rx * a - s->ux));
    sky->dy[k] = (float)(s->fy + (s->ry * a - s->uy));
    sky->dz[k] = (float)(s->fz + (s->rz * a - s->uz));
}

#ifdef __SSE2__
/* four directions at columns ap[0], ap[2], ap[4], ap[6] (a 2 x 2 pixel's first sample column), in
** double lanes with sky_dir's operations (IEEE, no FMA) and cvtpd2ps's rounding, cvtsd2ss's */
static inline void sky_dir4(const sky_row *s, const double *ap, sn_skybuf *sky)
{
    const __m128d a0 = _mm_unpacklo_pd(_mm_loadu_pd(ap), _mm_loadu_pd(ap + 2));
    const __m128d a1 = _mm_unpacklo_pd(_mm_loadu_pd(ap + 4), _mm_loadu_pd(ap + 6));
    const double f[3] = {s->fx, s->fy, s->fz}, rt[3] = {s->rx, s->ry, s->rz}, u[3] = {s->ux, s->uy, s->uz};
    float *out[3] = {sky->dx + sky->n, sky->dy + sky->n, sky->dz + sky->n};
    for (int c = 0; c < 3; c++) {
        const __m128d vf = _mm_set1_pd(f[c]), vr = _mm_set1_pd(rt[c]), vu = _mm_set1_pd(u[c]);
        const __m128 lo = _mm_cvtpd_ps(_mm_add_pd(vf, _mm_sub_pd(_mm_mul_pd(vr, a0), vu)));
        const __m128 hi = _mm_cvtpd_ps(_mm_add_pd(vf, _mm_sub_pd(_mm_mul_pd(vr, a1), vu)));
        _mm_storeu_ps(out[c], _mm_movelh_ps(lo, hi));
    }
    sky->n += 4;
}
#endif

/* pixel_ray with the camera's axes: made only where a ray is (shade_sample's common matte entry
** makes none; its nine loads a call at the top were about an eighth of that function) */
static inline sn_vec3 ray_at(const sn_renderer *r, uint32_t x, int32_t y)
{
    return pixel_ray(r, x, y, sn_mat3_col(&r->R, 0), sn_mat3_col(&r->R, 1), sn_mat3_col(&r->R, 2));
}

/* The colour of sample (x, y) whose winner is `id` (NONE: the sky): the address its bytes will
** be at once the batch is shaded. rec's bytes; on the fast path a matte surface's G-buffer entry,
** queued in g (sn_shade_gbuf finishes it), the sky's direction in sky, or a glossy surface's
** colour before fog with fog on, queued in fb (shade_fog finishes it). `last`: the last winner
** looked up, reused when it is id's. w: the sample's 1/depth (the band's buffer holds it). */
static const uint8_t *shade_sample(const sn_renderer *r, uint32_t x, int32_t y, uint32_t id, float w, shade_rec *rec,
                                   fog_batch *fb, sn_gbuf *g, sn_skybuf *sky, winner *last)
{
    if (id == NONE && r->layer == SN_LAYER_MOVING) { /* nothing of the layer: black, alpha 0 (layer_alpha) */
        rec->rgb[0] = rec->rgb[1] = rec->rgb[2] = 0;
        return rec_bgra(rec);
    }
    if (id == NONE && !r->exact)
        return sky_sample(r, x, y, sky);
    if (id == NONE) {
        sn_vec3 ray = ray_at(r, x, y);
        sn_shade_sky(&r->env, r->eye, sn_v3_norm(ray), rec->rgb);
        return rec_bgra(rec);
    }
    if (id != last->id)
        look_up(r, id, last);
    const float *n = last->n;
    const prim *p = last->p;
    if (last->matte) {
        /* the point itself comes later, four at a time (gbuf_points) */
        uint32_t k = g->n++;
        g->w[k] = w, g->ra[k] = (float)r->ray_a[x], g->rb[k] = (float)r->ray_b[y];
        g->nx[k] = n[0], g->ny[k] = n[1], g->nz[k] = n[2];
        g->col[0][k] = p->color[0], g->col[1][k] = p->color[1], g->col[2][k] = p->color[2];
        g->tag[k] = p->tag, g->glow[k] = p->glow, g->albedo[k] = 1;
        g->vis[k] = last->vis, g->fw[k] = 0;
        g->lamp[0][k] = g->lamp[1][k] = g->lamp[2][k] = 0;
        if (r->lamps.n || p->checker) {
            float depth = 1.0f / w;
            sn_vec3 pw = sn_v3_add(r->eye, sn_v3_scale(ray_at(r, x, y), depth > r->far ? r->far : depth));
            if (r->lamps.n) {
                double lamp[3] = {0, 0, 0}; /* sn_lamps_light adds to it */
                sn_lamps_light(&r->lamps, pw, n, lamp);
                g->lamp[0][k] = (float)lamp[0], g->lamp[1][k] = (float)lamp[1], g->lamp[2][k] = (float)lamp[2];
            }
            if (p->checker)
                g->albedo[k] = (float)checker(p, pw, n);
        }
        return g->rgb[k];
    }
    sn_vec3 ray = ray_at(r, x, y);
    float depth = 1.0f / w;
    if (depth > r->far)
        depth = r->far;
    sn_vec3 rel = sn_v3_scale(ray, depth);
    sn_surface s = {.p = sn_v3_add(r->eye, rel), .ray = ray, .n = n,
                    .color = p->color, .albedo = 1, .sun_vis = 1, .tag = p->tag, .glow = p->glow};
    double lamp[3] = {0, 0, 0};
    if (r->lamps.n) {
        sn_lamps_light(&r->lamps, s.p, n, lamp);
        s.lamp = lamp;
    }
    if (p->checker)
        s.albedo = checker(p, s.p, n);
    if (r->textures)
        s.albedo *= sn_shade_texture(p->tag, s.p, n[2]);
    if (r->shadows && n[0] * r->env.sun[0] + n[1] * r->env.sun[1] + n[2] * r->env.sun[2] > 0)
        s.sun_vis = sn_shadow_visibility(r->shadow, s.p, n);
    sn_shade_surface_lin(&r->env, &s, rec->out);
    if (r->exact || r->env.fog_k <= 0) {
        sn_shade_fog_bytes(&r->env, rec->out, sn_fog_transmittance(&r->env, r->eye, s.p), rec->rgb);
        return rec_bgra(rec);
    }
    uint32_t k = fb->n++;
    fb->dx[k] = (float)rel.x, fb->dy[k] = (float)rel.y, fb->dz[k] = (float)rel.z, fb->rec[k] = rec;
    return rec->bgra; /* shade_fog fills it */
}

#if defined(__x86_64__) && defined(__GNUC__)
void sn_gbuf_points_avx2(const float f[3], const float rt[3], const float u[3], float far, sn_gbuf *g, size_t to);
#endif

/* The G-buffer's points from their 1/depth and rays, four at a time in single precision: the
** depth as shade_sample's (the same float division and clamp), the ray (pixel_ray) in float. */
static void gbuf_points(const sn_renderer *r, sn_gbuf *g)
{
    for (uint32_t k = g->n; k % 4; k++) /* padding lanes: any finite point */
        g->w[k] = 1, g->ra[k] = g->rb[k] = 0;
    v4f f[3], rt[3], u[3];
    for (int c = 0; c < 3; c++)
        f[c] = v4_splat((float)r->R.m[3 * c]), rt[c] = v4_splat((float)r->R.m[3 * c + 1]), u[c] = v4_splat((float)r->R.m[3 * c + 2]);
    const v4f far = v4_splat(r->far), one = v4_splat(1.0f);
    uint32_t i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    if (sn_lanes_wide() && g->n >= 8) { /* eight lanes, the same bits (shade_avx2.c) */
        const float f8[3] = {f[0][0], f[1][0], f[2][0]}, rt8[3] = {rt[0][0], rt[1][0], rt[2][0]}, u8[3] = {u[0][0], u[1][0], u[2][0]};
        sn_gbuf_points_avx2(f8, rt8, u8, r->far, g, i = g->n & ~7u);
    }
#endif
    for (; i < g->n; i += 4) {
        v4f a = v4_load(g->ra + i), b = v4_load(g->rb + i), depth = v4_min(one / v4_load(g->w + i), far);
        v4_store(g->dx + i, (f[0] + (rt[0] * a - u[0] * b)) * depth);
        v4_store(g->dy + i, (f[1] + (rt[1] * a - u[1] * b)) * depth);
        v4_store(g->dz + i, (f[2] + (rt[2] * a - u[2] * b)) * depth);
    }
}

/* The queued samples' fog and bytes. */
static void shade_fog(const sn_renderer *r, fog_batch *fb)
{
    if (!fb->n)
        return;
    for (uint32_t k = fb->n; k % 4; k++) /* padding lanes: any finite point */
        fb->dx[k] = fb->dy[k] = fb->dz[k] = 1;
    sn_fog_transmittance_fast(&r->env, r->eye, fb->dx, fb->dy, fb->dz, fb->T, fb->n);
    for (uint32_t k = 0; k < fb->n; k++) {
        sn_shade_fog_bytes(&r->env, fb->rec[k]->out, fb->T[k], fb->rec[k]->rgb);
        rec_bgra(fb->rec[k]);
    }
    fb->n = 0;
}

/* A batch's samples: at most this many (a pixel is taken while its ss x ss fit), leaving
** gather_fill its three entries past the last. */
#define GATHER_MAX (SN_GBUF_N - 4)

/* What a row's batches share: the G-buffer (its headlight arrays zeroed once when the frame has
** none: nothing writes them then but zeros) and the last winner looked up. */
typedef struct gather {
    sn_gbuf g;
    sn_skybuf sky;
    fog_batch fb;
    winner last;
    sn_gbuf g2; /* a half run's odd pixels whose neighbours disagree (half_runs): shaded as any entry */
    uint8_t *g2_out[SN_GBUF_N]; /* where each of g2's entries' bytes go */
} gather;

/* A half run (r->half): L pixels of one plain winner from output pixel px of the batch, their even
** pixels and the last G-buffer entries from k0 on. */
typedef struct half_run {
    const float *n;
    const prim *p;
    float vis;
    uint16_t k0, L, px;
    bool tiles; /* the winner's */
} half_run;

/* pixels a batch at most: a half run takes about one entry for two */
#define NW_MAX (2 * SN_GBUF_N)
/* the largest channel difference of a half run's two neighbouring entries whose odd pixel between
** takes their mean: a smooth term (fog, the sun's tent, light) is then off by about a level at
** most; beyond it (an edge, a shadow's border, coarse grain) the pixel is shaded itself (about 1 %
** of the odd pixels on the rig; 0.06 % at 4, 4.4 % at 1) */
#define HALF_TOL 2
/* a sidewalk tile's albedo is at least 0.95 (shade.c: 0.95-1.03), a joint's at most 0.81 */
#define TILE_MIN 0.9f

/* The bytes of np output pixels from c on (BGRA): pixel p has nw[p] winners, in order from the
** first, each with its shaded colour src[] (BGRA bytes, alpha 255) and its number of samples
** count[]; a pixel of one winner is its colour (a 4-byte copy), else the winners' colours averaged
** by their samples in linear light and rounded to the nearest byte. nw[p] = 0: pixel p begins a
** run of count[m] pixels whose colours are consecutive from src[m] (shade_pixels' runs), copied
** at once; the run's later pixels have no nw, src or count of their own. */
static void resolve_pixels(const sn_renderer *r, uint8_t *c, uint32_t np, const uint8_t *nw, const uint8_t *const *src,
                           const uint16_t *count)
{
    const uint32_t n = r->ss * r->ss;
    const float inv16n = 1.0f / (float)(16 * n);
    for (uint32_t p = 0, m0 = 0; p < np; p++, c += 4) {
        const uint32_t k = nw[p];
        if (k == 0) {
            const uint32_t len = count[m0];
            if (src[m0]) { /* NULL: a half run, written already (half_runs) */
                memcpy(c, src[m0], 4 * (size_t)len);
                m0 += len;
            } else {
                m0++;
            }
            p += len - 1, c += 4 * (len - 1);
            continue;
        }
        if (k == 1) {
            memcpy(c, src[m0], 4);
        } else {
            uint32_t sum[3] = {0, 0, 0};
            for (uint32_t m = m0; m < m0 + k; m++)
                for (int q = 0; q < 3; q++)
                    sum[q] += count[m] * r->lb.lin[src[m][q]];
            if (n == 4)
                for (int q = 0; q < 3; q++)
                    c[q] = sn_lin_to_byte4(&r->lb, sum[q]);
            else
                for (int q = 0; q < 3; q++)
                    c[q] = sn_lin_to_byte(&r->lb, sum[q], n, inv16n);
            c[3] = 255;
        }
        m0 += k;
    }
}

/* ga->g2's entries shaded and their bytes put in place */
static void flush_g2(const sn_renderer *r, gather *ga)
{
    sn_gbuf *g2 = &ga->g2;
    if (!g2->n)
        return;
    g2->npair = 0; /* each its own fog */
    gbuf_points(r, g2);
    sn_shade_gbuf(&r->env, r->eye, r->shadows ? r->shadow : NULL, r->textures, g2);
    for (uint32_t k = 0; k < g2->n; k++)
        memcpy(ga->g2_out[k], g2->rgb[k], 4);
    g2->n = 0;
}

/* An odd pixel of half run h (column x of sample row y) whose neighbours disagree: queued in
** ga->g2 as shade_sample and gather_fill would write its entry, its bytes to go to out. */
static void half_exact(const sn_renderer *r, gather *ga, const half_run *h, uint32_t x, int32_t y, float w, uint8_t *out)
{
    sn_gbuf *g2 = &ga->g2;
    const prim *p = h->p;
    const uint32_t k = g2->n++;
    g2->w[k] = w, g2->ra[k] = (float)r->ray_a[x], g2->rb[k] = (float)r->ray_b[y];
    g2->nx[k] = h->n[0], g2->ny[k] = h->n[1], g2->nz[k] = h->n[2];
    g2->col[0][k] = p->color[0], g2->col[1][k] = p->color[1], g2->col[2][k] = p->color[2];
    g2->tag[k] = p->tag, g2->glow[k] = p->glow, g2->vis[k] = h->vis, g2->fw[k] = 0;
    g2->albedo[k] = 1; /* never checkered (winner's halve); the texture multiplies in */
    ga->g2_out[k] = out;
    if (g2->n == GATHER_MAX)
        flush_g2(r, ga);
}

/* Whether the odd pixel between entries k and k + 1 of a sidewalk's half run may take their mean
** (besides their agreement): their albedos (the texture's, by then) the same and a tile's, not a
** joint's, so both lie in one tile (two tiles' noise values are the same by a 2^-24 chance, or
** 256 tiles, 154 m, apart) clear of its joints, and so does the odd pixel's point, between theirs
** on their plane (a tile less its joints is convex; a point within a float's error of a joint's
** edge aside): the same albedo; and the same sun's visibility, as a shadow narrower than two
** pixels may fall between two neighbours of one tile (measured 22 levels off, half58b). Without
** it an odd pixel on a joint between two tiles whose shades agree within HALF_TOL took their
** mean: 35-41 levels off. */
static inline bool tile_same(const sn_gbuf *g, uint32_t k)
{
    return g->albedo[k] == g->albedo[k + 1] && g->albedo[k] >= TILE_MIN && g->vis[k] == g->vis[k + 1];
}

/* The half runs' pixels into the batch's output row (row: its pixel ox0): an even pixel and the
** last are their entries' bytes; an odd one between two entries whose channels differ by at most
** HALF_TOL their rounded-up mean (a run lies in one plane and its shading varies slowly: the
** bound is tested, docs/rendering.md "Half runs"), else its own entry (ga->g2). wrow: the output
** row's first sample row of 1/depths. */
static void half_runs(const sn_renderer *r, gather *ga, const half_run *hr, uint32_t nh, uint8_t *row, uint32_t ox0,
                      int32_t oy, const float *wrow)
{
    const sn_gbuf *g = &ga->g;
    const uint8_t tol = HALF_TOL;
    for (uint32_t h = 0; h < nh; h++) {
        const uint8_t(*e)[4] = g->rgb + hr[h].k0;
        uint8_t *out = row + 4 * (size_t)hr[h].px;
        const uint32_t L = hr[h].L, nm = (L - 1) / 2; /* odd pixels between two entries */
        const uint32_t x1 = 2 * (ox0 + hr[h].px) + 2; /* the sample column of the run's pixel 1 */
        uint32_t i = 0;
#ifdef __SSE2__
        const __m128i vt = _mm_set1_epi8((char)tol);
        const float *al = g->albedo + hr[h].k0, *vi = g->vis + hr[h].k0;
        for (; i + 4 <= nm; i += 4) {
            const __m128i a = _mm_loadu_si128((const __m128i *)e[i]), b = _mm_loadu_si128((const __m128i *)e[i + 1]);
            const __m128i m = _mm_avg_epu8(a, b), d = _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
            _mm_storeu_si128((__m128i *)(out + 8 * i), _mm_unpacklo_epi32(a, m));
            _mm_storeu_si128((__m128i *)(out + 8 * i + 16), _mm_unpackhi_epi32(a, m));
            unsigned ok = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(d, vt), vt));
            if (hr[h].tiles) { /* tile_same, four odd pixels at once */
                const __m128 aa = _mm_loadu_ps(al + i), vv = _mm_loadu_ps(vi + i);
                const __m128 same = _mm_and_ps(_mm_and_ps(_mm_cmpeq_ps(aa, _mm_loadu_ps(al + i + 1)), _mm_cmpeq_ps(vv, _mm_loadu_ps(vi + i + 1))),
                                               _mm_cmpge_ps(aa, _mm_set1_ps(TILE_MIN)));
                ok &= (unsigned)_mm_movemask_epi8(_mm_castps_si128(same));
            }
            if (ok != 0xFFFF)
                for (uint32_t l = 0; l < 4; l++)
                    if ((ok >> 4 * l & 15) != 15) {
                        const uint32_t j = i + l, x = x1 + 4 * j;
                        half_exact(r, ga, &hr[h], x, oy * 2, wrow[x], out + 4 * (2 * j + 1));
                    }
        }
#endif
        for (; i < nm; i++) {
            uint8_t *o = out + 8 * i;
            memcpy(o, e[i], 4);
            bool ok = true;
            for (int q = 0; q < 3; q++) {
                const int a = e[i][q], b = e[i + 1][q];
                ok &= (a > b ? a - b : b - a) <= tol;
                o[4 + q] = (uint8_t)((a + b + 1) >> 1);
            }
            o[7] = 255;
            if (hr[h].tiles)
                ok &= tile_same(g, hr[h].k0 + i);
            if (!ok) {
                const uint32_t x = x1 + 4 * i;
                half_exact(r, ga, &hr[h], x, oy * 2, wrow[x], o + 4);
            }
        }
        memcpy(out + 8 * nm, e[nm], 4);
        if (!(L & 1))
            memcpy(out + 8 * nm + 4, e[nm + 1], 4);
    }
    flush_g2(r, ga);
}

#ifdef __SSE2__
/* Whether the next four pixels' 2 x 2 samples (s0: their upper sample row, s1: the lower) all have
** the winner vid (its id in every lane). */
static inline bool four_won(const uint32_t *s0, const uint32_t *s1, __m128i vid)
{
    const __m128i e = _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)s0), vid),
                                                   _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(s0 + 4)), vid)),
                                    _mm_and_si128(_mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)s1), vid),
                                                  _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)(s1 + 4)), vid)));
    return _mm_movemask_epi8(e) == 0xFFFF;
}
#endif

/* Colour of output pixels from ox0 of output row oy, as many as one batch takes (returned: the
** first pixel not done): each pixel shades every distinct winner among its ss x ss samples once,
** at its first sample, and averages them weighted by how many samples each won, in linear light
** (gamma 2.2), rounded to the nearest byte. A pixel of one winner is that winner's colour exactly.
** The common pixel (2 x 2 samples of one plain winner, the last one looked up) only queues its
** point; its winner's fields are written for the whole run of such pixels (gather_fill). Where a
** sample lands in a batch changes none of its bits (each lane is shaded alone). */
static uint32_t shade_pixels(const sn_renderer *r, const sn_raster_target *v, int32_t oy, uint32_t ox0, gather *ga)
{
    const uint32_t ss = r->ss, OW = r->W / ss, n = ss * ss, W = r->W;
    const uint32_t *ib = v->idbuf;
    const float *wb = v->wbuf;
    const uint32_t sy = (uint32_t)(oy * (int32_t)ss - v->y0); /* the output row's first sample row in them */
    shade_rec rec[GATHER_MAX];
    const uint8_t *src[GATHER_MAX]; /* where each winner's bytes will be */
    uint8_t nw[NW_MAX];              /* each pixel's number of winners */
    uint16_t count[GATHER_MAX];      /* each winner's samples (a run's: its pixels) */
    half_run hr[GATHER_MAX];         /* the half runs (r->half) */
    uint32_t nh = 0;
    sn_gbuf *g = &ga->g;
    sn_skybuf *sky = &ga->sky;
    fog_batch *fb = &ga->fb;
    winner *last = &ga->last;
    g->n = sky->n = fb->n = g->npair = 0;
    uint32_t nr = 0, run = 0; /* run: the first G-buffer entry of the last plain winner not yet filled */
    uint32_t run_x = 0, run_xl = 0; /* the sample columns of its first entry and (a half run's) last */
    uint32_t run_step = 2;          /* the sample columns from one entry to the next: 4 in a half run */
    uint32_t ox = ox0;
    const bool half = r->half;
    if (ss == 2) {
        const float *wrow = wb + (size_t)sy * W;
        const double *ray_a = r->ray_a;
        const bool sky_fast = !r->exact && r->layer != SN_LAYER_MOVING; /* sky_sample's path */
        sky_row sd;
        sky_row_init(r, oy * 2, &sd);
#ifdef __SSE2__
        const __m128i vnone = _mm_set1_epi32((int)NONE);
#endif
        for (; ox < OW && nr + 4 <= GATHER_MAX && (!half || (g->n + 4 <= GATHER_MAX && sky->n + 4 <= GATHER_MAX &&
                                                              ox - ox0 < NW_MAX));
             ox++) {
            /* most pixels lie inside one surface: their four samples' one winner */
            const uint32_t *s0 = ib + (size_t)sy * W + ox * 2, *s1 = s0 + W;
            const uint32_t id = s0[0];
            if (s0[1] == id && s1[0] == id && s1[1] == id) {
                if (id == NONE && sky_fast) {
                    /* a run of sky pixels: one record (resolve_pixels copies its bytes at once),
                    ** each pixel counted in nr as its own record was, so the batch ends where it
                    ** did; their directions as pixel_ray's */
                    gather_fill(r, g, run, g->n, last, run_x, run_step, run_xl, oy * 2);
                    run = g->n;
                    const uint32_t first = nr;
                    nw[ox - ox0] = 0, src[first] = sky->rgb[sky->n];
                    for (;;) {
                        sky_dir(&sd, ray_a[ox * 2], sky);
                        nr++, s0 += 2, s1 += 2;
#ifdef __SSE2__
                        while (ox + 4 < OW && nr + 7 <= GATHER_MAX && (!half || (sky->n + 7 <= GATHER_MAX && ox + 4 - ox0 < NW_MAX))) {
                            if (!four_won(s0, s1, vnone))
                                break;
                            sky_dir4(&sd, ray_a + 2 * (ox + 1), sky);
                            nr += 4, s0 += 8, s1 += 8, ox += 4;
                        }
#endif
                        if (ox + 1 >= OW || nr + 4 > GATHER_MAX || (half && (sky->n + 4 > GATHER_MAX || ox + 1 - ox0 >= NW_MAX)) ||
                            s0[0] != NONE || s0[1] != NONE || s1[0] != NONE || s1[1] != NONE)
                            break;
                        ox++;
                    }
                    count[first] = (uint16_t)(nr - first);
                    continue;
                }
                if (id != last->id && id != NONE) { /* a new winner: its run may begin here */
                    gather_fill(r, g, run, g->n, last, run_x, run_step, run_xl, oy * 2);
                    run = g->n;
                    look_up(r, id, last);
                }
                if (id == last->id && last->plain) {
                    /* this pixel and the next ones of the same winner, the entry count kept in a
                    ** register (through g, each pixel waited for the last one's store of it) */
                    uint32_t k = g->n; /* == run: a run is one pass of this loop */
                    run_x = ox * 2;
                    run_step = 2;
                    if (last->halve) {
                        /* entries at the run's even pixels and its last; half_runs makes the odd
                        ** ones from their two neighbours, or queues them where these disagree */
                        const uint32_t first = nr++, px = ox - ox0;
                        uint32_t o = 0; /* pixel ox's place in the run */
                        nw[px] = 0, src[first] = NULL;
                        for (;;) {
                            if (!(o & 1))
                                g->w[k] = wrow[ox * 2], g->ra[k] = (float)ray_a[ox * 2], k++;
                            s0 += 2, s1 += 2;
#ifdef __SSE2__
                            const __m128i vid = _mm_set1_epi32((int)id);
                            while (ox + 4 < OW && k + 3 <= GATHER_MAX && ox + 4 - ox0 < NW_MAX) {
                                if (!four_won(s0, s1, vid))
                                    break;
                                /* pixels ox + 1 .. ox + 4: the even ones of the run are ox + 2 and ox + 4
                                ** when o is even, else ox + 1 and ox + 3 */
                                const uint32_t c = 2 * (ox + 1) + (o & 1 ? 0 : 2);
                                g->w[k] = wrow[c], g->w[k + 1] = wrow[c + 4];
                                g->ra[k] = (float)ray_a[c], g->ra[k + 1] = (float)ray_a[c + 4];
                                k += 2, o += 4, s0 += 8, s1 += 8, ox += 4;
                            }
#endif
                            if (ox + 1 >= OW || k + 2 > GATHER_MAX || ox + 1 - ox0 >= NW_MAX || s0[0] != id ||
                                s0[1] != id || s1[0] != id || s1[1] != id)
                                break;
                            ox++, o++;
                        }
                        if (o & 1) /* the last pixel, odd: an entry too */
                            g->w[k] = wrow[ox * 2], g->ra[k] = (float)ray_a[ox * 2], k++;
                        run_xl = ox * 2, run_step = 4;
                        count[first] = (uint16_t)(o + 1);
                        hr[nh++] = (half_run){.n = last->n, .p = last->p, .vis = last->vis, .tiles = last->tiles, .k0 = (uint16_t)g->n,
                                              .L = (uint16_t)(o + 1), .px = (uint16_t)px};
                        g->n = k;
                        continue;
                    }
                    /* the run's pixels are its entries' bytes in order: one record for all
                    ** (resolve_pixels), its length in count[] once it is known */
                    const uint32_t first = nr;
                    nw[ox - ox0] = 0, src[first] = g->rgb[k];
                    for (;;) {
                        g->w[k] = wrow[ox * 2], g->ra[k] = (float)ray_a[ox * 2]; /* rb: gather_fill */
                        k++, nr++, s0 += 2, s1 += 2;
#ifdef __SSE2__
                        /* the next four pixels at once while all their samples are the winner's:
                        ** what the scalar steps below would store, as cvtpd2ps rounds as cvtsd2ss */
                        const __m128i vid = _mm_set1_epi32((int)id);
                        while (ox + 4 < OW && nr + 7 <= GATHER_MAX && k + 7 <= GATHER_MAX && ox + 4 - ox0 < NW_MAX) {
                            if (!four_won(s0, s1, vid))
                                break;
                            const float *wp = wrow + 2 * (ox + 1);
                            const double *ap = ray_a + 2 * (ox + 1);
                            _mm_storeu_ps(g->w + k, _mm_shuffle_ps(_mm_loadu_ps(wp), _mm_loadu_ps(wp + 4), _MM_SHUFFLE(2, 0, 2, 0)));
                            const __m128 lo = _mm_cvtpd_ps(_mm_unpacklo_pd(_mm_loadu_pd(ap), _mm_loadu_pd(ap + 2)));
                            const __m128 hi = _mm_cvtpd_ps(_mm_unpacklo_pd(_mm_loadu_pd(ap + 4), _mm_loadu_pd(ap + 6)));
                            _mm_storeu_ps(g->ra + k, _mm_movelh_ps(lo, hi));
                            k += 4, nr += 4, s0 += 8, s1 += 8, ox += 4;
                        }
#endif
                        if (ox + 1 >= OW || nr + 4 > GATHER_MAX || k + 4 > GATHER_MAX || ox + 1 - ox0 >= NW_MAX || s0[0] != id ||
                            s0[1] != id || s1[0] != id || s1[1] != id)
                            break;
                        ox++;
                    }
                    count[first] = (uint8_t)(nr - first);
                    g->n = k;
                    continue;
                }
                count[nr] = 4, nw[ox - ox0] = 1;
                gather_fill(r, g, run, g->n, last, run_x, run_step, run_xl, oy * 2);
                if (id == NONE && !r->exact && r->layer != SN_LAYER_MOVING)
                    src[nr] = sky_sample(r, ox * 2, oy * 2, sky);
                else
                    src[nr] = shade_sample(r, ox * 2, oy * 2, id, wrow[ox * 2], &rec[nr], fb, g, sky, last);
                nr++;
                run = g->n;
                continue;
            }
            gather_fill(r, g, run, g->n, last, run_x, run_step, run_xl, oy * 2);
            uint32_t ids[4], k = 0, first = nr;
            for (uint32_t j = 0; j < 2; j++)
                for (uint32_t i = 0; i < 2; i++) {
                    uint32_t sid = (j ? s1 : s0)[i], m = 0;
                    while (m < k && ids[m] != sid)
                        m++;
                    if (m == k) {
                        ids[k++] = sid, count[nr] = 0;
                        src[nr] = shade_sample(r, ox * 2 + i, oy * 2 + (int32_t)j, sid, wrow[j * W + ox * 2 + i], &rec[nr], fb,
                                               g, sky, last);
                        nr++;
                    }
                    count[first + m]++;
                }
            nw[ox - ox0] = (uint8_t)k;
            run = g->n;
        }
        gather_fill(r, g, run, g->n, last, run_x, run_step, run_xl, oy * 2);
    } else {
        for (; ox < OW && nr + n <= GATHER_MAX; ox++) {
            uint32_t ids[16], k = 0, first = nr;
            for (uint32_t j = 0; j < ss; j++)
                for (uint32_t i = 0; i < ss; i++) {
                    const size_t at = (size_t)(sy + j) * W + ox * ss + i;
                    uint32_t id = ib[at], m = 0;
                    while (m < k && ids[m] != id)
                        m++;
                    if (m == k) {
                        ids[k++] = id, count[nr] = 0;
                        src[nr] = shade_sample(r, ox * ss + i, oy * (int32_t)ss + (int32_t)j, id, wb[at], &rec[nr], fb, g, sky,
                                               last);
                        nr++;
                    }
                    count[first + m]++;
                }
            nw[ox - ox0] = (uint8_t)k;
        }
    }
    shade_fog(r, fb);
    gbuf_points(r, g);
    sn_shade_gbuf(&r->env, r->eye, r->shadows ? r->shadow : NULL, r->textures, g);
    if (sky->n)
        sn_shade_sky_fast(&r->env, r->eye, sky);
    uint8_t *row = r->out->bgra + 4 * ((size_t)oy * OW + ox0);
    if (nh)
        half_runs(r, ga, hr, nh, row, ox0, oy, wb + (size_t)sy * W);
    resolve_pixels(r, row, ox - ox0, nw, src, count);
    return ox;
}

/* Output rows [oy0, oy1)'s colour, a batch of pixels at a time. One gather for the rows: its
** headlight arrays zeroed once (they stay zero: nothing writes them but zeros then; 6 KB a row
** was about 0.2 % of the camera), the last winner forgotten at each row as before; depth: each
** row's nearest depth after it (depth_nearest_row). */
static void depth_nearest_row(const sn_renderer *r, const sn_raster_target *v, int32_t oy);
static void shade_rows(const sn_renderer *r, const sn_raster_target *v, int32_t oy0, int32_t oy1, bool depth)
{
    const uint32_t OW = r->W / r->ss;
    gather ga;
    if (!r->lamps.n) /* see gather */
        memset(ga.g.lamp, 0, sizeof ga.g.lamp);
    memset(ga.g2.lamp, 0, sizeof ga.g2.lamp); /* half runs are plain: no headlights */
    for (int32_t oy = oy0; oy < oy1; oy++) {
        ga.last.id = NONE, ga.last.plain = false;
        ga.g2.n = 0;
        for (uint32_t ox = 0; ox < OW;)
            ox = shade_pixels(r, v, oy, ox, &ga);
        if (depth)
            depth_nearest_row(r, v, oy);
    }
}
/* Depth, tag, id, motion and colour of rows [y_begin, y_end) from each pixel's winner. */
static void resolve(sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end)
{
    const uint32_t W = r->W;
    const size_t off = (size_t)v->y0 * W; /* sample i of the image is the buffers' i - off */
    const float *wb = v->wbuf;
    const uint32_t *ib = v->idbuf;
    const sn_image *o = r->out;
    if (!r->need_info) {
        /* depth alone: 1/w, no farther than the far plane; the sky (nothing drew: w is still the
        ** clear value, every surface drawn is strictly nearer) exactly the far plane */
        size_t i = (size_t)y_begin * W, end = (size_t)y_end * W;
        const float inv_far = r->inv_far;
#ifdef __SSE2__
        const __m128 one = _mm_set1_ps(1.0f), far = _mm_set1_ps(r->far), clear = _mm_set1_ps(inv_far);
        for (; i + 4 <= end; i += 4) {
            __m128 w = _mm_loadu_ps(wb + (i - off)), sky = _mm_cmple_ps(w, clear);
            __m128 d = _mm_min_ps(_mm_div_ps(one, w), far);
            _mm_storeu_ps(o->depth + i, _mm_or_ps(_mm_and_ps(sky, far), _mm_andnot_ps(sky, d)));
        }
#endif
        for (; i < end; i++) {
            float depth = 1.0f / wb[i - off];
            o->depth[i] = wb[i - off] <= inv_far || depth > r->far ? r->far : depth;
        }
        return;
    }
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    if (o->bgra)
        shade_rows(r, v, y_begin, y_end, false);
    for (int32_t y = y_begin; y < y_end; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            uint32_t id = ib[i - off];
            if (id == NONE) {
                if (o->depth) o->depth[i] = r->far;
                if (o->tag) o->tag[i] = SN_TAG_SKY;
                if (o->instance) o->instance[i] = 0;
                if (r->motion) r->motion[3 * i] = r->motion[3 * i + 1] = r->motion[3 * i + 2] = 0;
                continue;
            }
            float depth = 1.0f / wb[i - off];
            if (depth > r->far)
                depth = r->far;
            if (o->depth) o->depth[i] = depth;
            if (!o->tag && !o->instance && !r->motion)
                continue; /* a depth image needs no primitive (a random read per pixel) */
            const prim *p = &r->prims[id & PLANE_BIT ? r->planes[id & ~PLANE_BIT].prim : r->tris[id].prim];
            if (o->tag) o->tag[i] = p->tag;
            if (o->instance) o->instance[i] = p->id;
            if (r->motion) {
                float *mo = r->motion + 3 * i;
                mo[0] = mo[1] = mo[2] = 0;
                if (p->moves) {
                    /* the seen point now, from the pixel centre's ray and its depth */
                    sn_vec3 ray = pixel_ray(r, x, y, fwd, right, up);
                    sn_vec3 rel = sn_v3_sub(sn_v3_add(r->eye, sn_v3_scale(ray, depth)), p->pos);
                    sn_vec3 d = sn_v3_add(sn_mat3_apply(&p->dm, rel), p->dpos);
                    mo[0] = (float)d.x, mo[1] = (float)d.y, mo[2] = (float)d.z;
                }
            }
        }
}

/* With anti-aliasing, a pixel's depth is the nearest of its samples' (the far plane where all
** see the sky): what stands in front anywhere in the pixel (the rain streaks' occlusion). */
static void depth_nearest_row(const sn_renderer *r, const sn_raster_target *v, int32_t oy)
{
    const uint32_t ss = r->ss, OW = r->W / ss;
    for (uint32_t ox = 0; ox < OW; ox++) {
        float w = r->inv_far;
        for (uint32_t j = 0; j < ss; j++)
            for (uint32_t i = 0; i < ss; i++) {
                float s = v->wbuf[((size_t)oy * ss + j - (size_t)v->y0) * r->W + ox * ss + i];
                w = s > w ? s : w;
            }
        float depth = 1.0f / w;
        r->out->depth[(size_t)oy * OW + ox] = w <= r->inv_far || depth > r->far ? r->far : depth;
    }
}

/* The motion grid's cells whose chosen sample row lies in [y_begin, y_end): depth, id and motion
** of that sample's winner, as resolve() writes a pixel's for sn_render_motion (the same sums, at
** the sample's own ray), so that div 1 without anti-aliasing gives render_motion's values. */
static void resolve_grid(const sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end)
{
    const sn_motion_grid *g = r->grid;
    const uint32_t step = r->grid_step, half = step / 2, gw = r->cam->width / g->div, gh = r->cam->height / g->div;
    const size_t off = (size_t)v->y0 * r->W;
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    uint32_t gy = ((uint32_t)y_begin + step - 1 - half) / step; /* the first cell row at or below y_begin */
    if ((uint32_t)y_begin < half)
        gy = 0;
    for (; gy < gh && gy * step + half < (uint32_t)y_end; gy++) {
        const uint32_t y = gy * step + half;
        for (uint32_t gx = 0; gx < gw; gx++) {
            const uint32_t x = gx * step + half;
            const size_t i = (size_t)y * r->W + x - off, o = (size_t)gy * gw + gx;
            float *mo = g->motion + 3 * o;
            mo[0] = mo[1] = mo[2] = 0;
            const uint32_t id = v->idbuf[i];
            if (id == NONE) {
                g->depth[o] = r->far, g->instance[o] = 0;
                continue;
            }
            float depth = 1.0f / v->wbuf[i];
            if (depth > r->far)
                depth = r->far;
            const prim *p = &r->prims[id & PLANE_BIT ? r->planes[id & ~PLANE_BIT].prim : r->tris[id].prim];
            g->depth[o] = depth, g->instance[o] = p->id;
            if (p->moves) {
                sn_vec3 ray = pixel_ray(r, x, (int32_t)y, fwd, right, up);
                sn_vec3 rel = sn_v3_sub(sn_v3_add(r->eye, sn_v3_scale(ray, depth)), p->pos);
                sn_vec3 d = sn_v3_add(sn_mat3_apply(&p->dm, rel), p->dpos);
                mo[0] = (float)d.x, mo[1] = (float)d.y, mo[2] = (float)d.z;
            }
        }
    }
}

/* Anti-aliased colour (sn_image.samples = ss): rows [y_begin, y_end) of the ss x ss sample grid
** hold output rows y_begin/ss .. (shade_pixels). */
static void resolve_samples(sn_renderer *r, const sn_raster_target *v, int32_t y_begin, int32_t y_end)
{
    shade_rows(r, v, y_begin / (int32_t)r->ss, y_end / (int32_t)r->ss, r->out->depth != NULL);
}

/* The shadow map's receivers (shadow.h): every queued mesh's bounding sphere (its vertices lie
** inside it), padded for a posed model's rounding, and each ground plane's part inside the view
** (near to far clip): the corners of the view where they lie on it and its edges' crossings. */
static void shadow_receivers(sn_renderer *r)
{
    sn_shadow_need_none(r->shadow);
    for (size_t i = 0; i < r->n_jobs; i++)
        sn_shadow_need_sphere(r->shadow, r->jobs[i].wc, r->jobs[i].wr * (1 + 1e-6) + 0.05);
    sn_vec3 c[8];
    for (int k = 0; k < 8; k++) {
        const double d = k & 4 ? r->cam->far_clip : r->cam->near_clip;
        c[k] = sn_v3_add(r->eye, sn_mat3_apply(&r->R, sn_v3(d, (k & 1 ? 1 : -1) * r->tanh_ * d,
                                                           (k & 2 ? 1 : -1) * r->tanv * d)));
    }
    static const int edge[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                    {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (size_t k = 0; k < r->n_planes; k++) {
        const plane *pl = &r->planes[k];
        double h[8];
        for (int i = 0; i < 8; i++)
            h[i] = sn_v3_dot(pl->wn, c[i]) - pl->off;
        sn_vec3 p[16];
        int n = 0;
        for (int i = 0; i < 8; i++)
            if (h[i] == 0)
                p[n++] = c[i];
        for (int e = 0; e < 12; e++) {
            const double a = h[edge[e][0]], b = h[edge[e][1]];
            if ((a < 0 && b > 0) || (a > 0 && b < 0))
                p[n < 16 ? n++ : 15] = sn_v3_add(c[edge[e][0]], sn_v3_scale(sn_v3_sub(c[edge[e][1]], c[edge[e][0]]),
                                                                            a / (a - b)));
        }
        sn_shadow_need_hull(r->shadow, p, n);
    }
}

/* The sun's shadow map for this frame: every actor's mesh within reach of the view's first
** SN_SHADOW_DISTANCE metres, as the sun sees it: static ones from the cache (world frame, posed
** once), the others posed here; set up and drawn on the pool. false without memory. */
static bool build_shadows(sn_renderer *r, const sn_world *w, double alpha)
{
    if (!r->shadow && !(r->shadow = sn_shadow_create()))
        return false;
    /* only the casters' faces towards the sun: the same map but at silhouettes (shadow.h) */
    sn_shadow_set_cull(r->shadow, !r->exact && !r->all_faces);
    double nd = r->cam->near_clip, fd = r->cam->far_clip < SN_SHADOW_DISTANCE ? r->cam->far_clip : SN_SHADOW_DISTANCE;
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++) {
        double d = k & 4 ? fd : nd;
        sn_vec3 v = sn_v3(d, (k & 1 ? 1 : -1) * r->tanh_ * d, (k & 2 ? 1 : -1) * r->tanv * d);
        corners[k] = sn_v3_add(r->eye, sn_mat3_apply(&r->R, v));
    }
    if (!sn_shadow_begin(r->shadow, r->env.sun, corners, 8))
        return false;
    if (r->layer == SN_LAYER_ALL) /* a layer's map is reused by the other layer's receivers */
        shadow_receivers(r);
    size_t n = 0, n_wv = 0;
    for (size_t i = 0; i < r->statics.n_objs; i++) {
        const sn_static_obj *o = &r->statics.objs[i];
        if (!sn_shadow_wants(r->shadow, o->centre, o->radius))
            continue;
        if (!sn_grow((void **)&r->casters, &r->cap_casters, n + 1, sizeof *r->casters))
            return false;
        r->casters[n++] = (sn_shadow_caster){(const double(*)[3])r->statics.wv + o->wv, o->mesh->t, o->mesh->n_v, o->mesh->n_t};
    }
    /* scenery's solids (chunks with an instance id that are obstacles) cast shadows; paint,
    ** windows and roads do not */
    for (uint32_t i = 0; w->roads && i < w->roads->n_chunks; i++) {
        const sn_road_chunk *k = &w->roads->chunks[i];
        if (!k->instance || k->part == SN_ROAD_MARK)
            continue;
        sn_vec3 lo = sn_v3(k->lo[0], k->lo[1], k->lo[2]), hi = sn_v3(k->hi[0], k->hi[1], k->hi[2]);
        if (!sn_shadow_wants(r->shadow, sn_v3_scale(sn_v3_add(lo, hi), 0.5), 0.5 * sn_v3_len(sn_v3_sub(hi, lo))))
            continue;
        if (!sn_grow((void **)&r->casters, &r->cap_casters, n + 1, sizeof *r->casters))
            return false;
        r->casters[n++] = (sn_shadow_caster){(const double(*)[3])w->roads->v + k->v_first,
                                             (const uint32_t(*)[3])w->roads->t + k->first, k->v_count, k->count};
    }
    size_t first_dynamic = n;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || sn_static_is(a))
            continue;
        /* the shape the cameras draw: a posed model (vertices about the box centre), else the
        ** cached unit mesh scaled by the box */
        sn_model model = sn_model_of(w, a);
        const sn_mesh *m = model ? sn_model_mesh(model) : sn_mesh_get(a->shape);
        if (!m)
            continue;
        sn_vec3 pos;
        sn_quat q;
        sn_actor_pose_at(w, a, alpha, &pos, &q);
        sn_mat3 ra = sn_mat3_from_quat(q);
        sn_vec3 centre = sn_v3_add(pos, sn_mat3_apply(&ra, a->ph->bbox.location)), ext = a->ph->bbox.extent;
        if (!sn_shadow_wants(r->shadow, centre, sn_v3_len(ext)))
            continue;
        if (!sn_grow((void **)&r->casters, &r->cap_casters, n + 1, sizeof *r->casters) ||
            !sn_grow((void **)&r->caster_wv, &r->cap_caster_wv, n + 1, sizeof *r->caster_wv) ||
            !sn_grow((void **)&r->shadow_wv, &r->cap_shadow_wv, n_wv + m->n_v, sizeof *r->shadow_wv))
            return false;
        const float(*mv)[3] = m->v;
        if (model) {
            if (!sn_grow((void **)&r->shadow_mv, &r->cap_shadow_mv, m->n_v, sizeof *r->shadow_mv))
                return false;
            sn_model_state st;
            sn_model_state_of(a, alpha, &st);
            sn_model_pose(model, &st, r->shadow_mv);
            mv = (const float(*)[3])r->shadow_mv;
            ext = sn_v3(1, 1, 1);
        }
        for (uint32_t k = 0; k < m->n_v; k++) {
            const float *v = mv[k];
            sn_vec3 p = sn_v3_add(centre, sn_mat3_apply(&ra, sn_v3(ext.x * v[0], ext.y * v[1], ext.z * v[2])));
            r->shadow_wv[n_wv + k][0] = p.x, r->shadow_wv[n_wv + k][1] = p.y, r->shadow_wv[n_wv + k][2] = p.z;
        }
        /* the vertex buffer may still move as it grows: its offset, made a pointer once all are in */
        r->caster_wv[n] = n_wv;
        r->casters[n++] = (sn_shadow_caster){NULL, m->t, m->n_v, m->n_t};
        n_wv += m->n_v;
    }
    for (size_t i = first_dynamic; i < n; i++)
        r->casters[i].v = (const double(*)[3])r->shadow_wv + r->caster_wv[i];
    return sn_shadow_draw(r->shadow, r->pool, r->casters, n);
}

/* Prepare: checks the camera and the samples, sizes the buffers and derives the frame's
** camera, light and band layout. Nothing is drawn yet. */
static sn_status prepare(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                         const sn_image *out, float *motion, const sn_motion_grid *grid, sn_error *err)
{
    sn_status st = sn_camera_check(cam, err);
    if (st)
        return st;
    /* anti-aliasing: colour alone, rendered on a grid of ss x ss samples per pixel */
    uint32_t ss = out->struct_size >= offsetof(sn_image, samples) + sizeof out->samples && out->samples > 1 && out->bgra
                      ? out->samples : 1;
    if (ss > 1 && (out->tag || out->instance || motion))
        return sn_fail(err, SN_E_INVALID, "%u samples per pixel: anti-aliasing renders colour and depth only (tags and "
                       "ids are never blended)", ss * ss);
    if (ss > 4 || cam->width * ss > 16384 || cam->height * ss > 16384)
        return sn_fail(err, SN_E_INVALID, "%u samples per pixel side on %ux%u: at most 4, and at most 16384 samples a "
                       "side", ss, cam->width, cam->height);
    r->ss = ss;
    r->band = (BAND + ss - 1) / ss * ss;
    r->cam = cam;
    r->out = out;
    r->motion = motion;
    r->grid = grid;
    /* here, not at creation: sn_renderer_set_exact_shading may have changed exact since */
    r->pairs = !r->no_pairs && !r->exact;
    r->half = !r->no_half && !r->exact;
    r->grid_step = grid ? grid->div * ss : 0;
    r->world = w;
    r->W = cam->width * ss; /* samples: the view as if ss times the size */
    r->H = cam->height * ss;
    r->tanh_ = tan(cam->fov * SN_DEG / 2);
    r->tanv = r->tanh_ * r->H / r->W;
    r->f = r->W / (2 * r->tanh_);
    r->cx = r->W / 2.0;
    r->cy = r->H / 2.0;
    r->far = (float)cam->far_clip;
    r->inv_far = (float)(1 / cam->far_clip);
    r->inv_near = (float)(1 / cam->near_clip);
    r->R = sn_mat3_from_rotation(cam->transform.rotation);
    r->eye = cam->transform.location;
    sn_shade_env_init(&r->env, light);
    r->textures = light->textures;

    r->n_bands = (r->H + r->band - 1) / r->band;
    if (r->H > r->cap_row_band) { /* each row's band, so that binning a triangle divides nothing */
        uint32_t *rb = realloc(r->row_band, r->H * sizeof *rb);
        if (!rb)
            return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", cam->width, cam->height);
        r->row_band = rb, r->cap_row_band = r->H;
    }
    for (uint32_t y = 0; y < r->H; y++)
        r->row_band[y] = y / r->band;
    /* each pixel ray's offsets: two divisions per column and row, not per pixel shaded */
    if (!sn_grow((void **)&r->ray_a, &r->cap_ray_a, r->W, sizeof *r->ray_a) ||
        !sn_grow((void **)&r->ray_b, &r->cap_ray_b, r->H, sizeof *r->ray_b))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", cam->width, cam->height);
    for (uint32_t x = 0; x < r->W; x++)
        r->ray_a[x] = ((double)x + 0.5 - r->cx) / r->f;
    for (uint32_t y = 0; y < r->H; y++)
        r->ray_b[y] = ((double)y + 0.5 - r->cy) / r->f;
    r->need_info = out->bgra || out->tag || out->instance || motion || grid;
    /* depth alone reads no ids: none are written (raster.h) */
    const uint32_t zstride = (r->W + SN_RASTER_ZSEG - 1) / SN_RASTER_ZSEG;
    r->target = (sn_raster_target){NULL, NULL, r->W, NULL, zstride, 0}; /* its buffers: draw() */
    r->n_prims = r->n_tris = r->n_planes = r->n_jobs = r->n_model_v = 0;
    return SN_OK;
}

/* Whether actor a's pose changed during the last frame, bit for bit (as host->scene_motion):
** the moving layer's test. */
static bool actor_moved(const sn_world *w, const sn_actor *a)
{
    sn_vec3 p0, p1;
    sn_quat q0, q1;
    sn_actor_pose_at(w, a, 0.0, &p0, &q0);
    sn_actor_pose_at(w, a, 1.0, &p1, &q1);
    return !(p0.x == p1.x && p0.y == p1.y && p0.z == p1.z && q0.w == q1.w && q0.x == q1.x && q0.y == q1.y &&
             q0.z == q1.z);
}

/* Queue: every mesh in view as a job (static ones from the cache, models posed at `alpha`,
** the map's roads by chunk) and every ground plane as a plane; nothing is set up yet. */
static sn_status queue(sn_renderer *r, const sn_world *w, double alpha, sn_error *err)
{
    if (!sn_static_cache_update(&r->statics, w))
        return sn_fail(err, SN_E_NOMEM, "out of memory for the static geometry of %zu actors", w->n_actors);
    size_t next_static = 0; /* the cache lists static actors in the world's order */
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE)
            continue;
        if (r->layer != SN_LAYER_ALL) { /* one layer: what moved during the frame, or the rest */
            bool moved = !sn_static_is(a) && actor_moved(w, a);
            if (moved != (r->layer == SN_LAYER_MOVING))
                continue;
        }
        if (sn_static_is(a)) {
            const sn_static_cache *c = &r->statics;
            size_t k = next_static < c->n_objs && c->objs[next_static].actor == a ? next_static : 0;
            while (k < c->n_objs && c->objs[k].actor != a)
                k++;
            if (k < c->n_objs) {
                next_static = k + 1;
                if (!add_static(r, a, &c->objs[k]))
                    return sn_fail(err, SN_E_NOMEM, "out of memory while queueing %zu meshes", r->n_jobs);
                continue;
            }
        }
        pose t;
        sn_quat q;
        sn_actor_pose_at(w, a, alpha, &t.pos, &q);
        t.rot = sn_mat3_from_quat(q);
        const sn_mesh *m = sn_mesh_get(a->shape);
        sn_model model = sn_model_of(w, a);
        job *j;
        bool ok = a->shape == SN_SHAPE_PLANE ? add_plane(r, a, &t)
                  : model             ? add_model(r, a, &t, alpha, model)
                  : m                 ? add_mesh(r, a, &t, m, a->ph->bbox.extent, &j)
                                      : true;
        if (!ok)
            return sn_fail(err, SN_E_NOMEM, "out of memory while queueing %zu meshes", r->n_jobs);
    }
    if (w->roads && r->layer != SN_LAYER_MOVING && !add_roads(r, w->roads))
        return sn_fail(err, SN_E_NOMEM, "out of memory while queueing %zu meshes", r->n_jobs);
    return SN_OK;
}

/* The surface of winner id for the reflections (reflect.h). */
static bool ssr_surface(const void *ctx, uint32_t id, const float **n, uint8_t *tag)
{
    const sn_renderer *r = ctx;
    if (id == NONE)
        return false;
    if (id & PLANE_BIT) {
        const plane *pl = &r->planes[id & ~PLANE_BIT];
        *n = pl->n, *tag = r->prims[pl->prim].tag;
    } else {
        *n = r->tris[id].n, *tag = r->prims[r->tris[id].prim].tag;
    }
    return true;
}

static void ssr_task(void *arg, uint32_t oy) { sn_ssr_row(arg, oy); }

/* Puddles mirror the finished image (reflect.h): a copy of the colour is read, the image written,
** one output row a task. false without memory. */
static bool reflect_puddles(sn_renderer *r)
{
    const uint32_t OW = r->W / r->ss, OH = r->H / r->ss;
    const size_t bytes = (size_t)OW * OH * 4;
    if (!sn_grow((void **)&r->ssr_src, &r->cap_ssr_src, bytes, 1))
        return false;
    memcpy(r->ssr_src, r->out->bgra, bytes);
    r->ssr = (sn_ssr){.wbuf = r->wbuf, .idbuf = r->idbuf, .W = r->W, .H = r->H, .ss = r->ss, .inv_far = r->inv_far,
                      .f = r->f, .cx = r->cx, .cy = r->cy, .R = r->R, .eye = r->eye, .env = &r->env,
                      .src = r->ssr_src, .dst = r->out->bgra, .surface = ssr_surface, .ctx = r};
    sn_pool_run(r->pool, ssr_task, &r->ssr, OH);
    return true;
}

/* Draw: the queued jobs set up and binned on the pool, the headlights and the sun's shadow map
** built, then the bands rasterised and resolved on the pool. t1: when queueing ended, for the
** profile. */
static sn_status draw(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light, double t1,
                      sn_error *err)
{
    /* the puddles read any sample of the frame after the bands: only they keep the whole frame */
    const bool puddles = r->out->bgra && r->env.deposits > 0 && r->layer != SN_LAYER_MOVING;
    r->banded = !puddles;
    atomic_store(&r->scratch_oom, false);
    if (!r->banded) {
        const size_t px = (size_t)r->W * r->H;
        if (px > r->cap_px) {
            float *wb = realloc(r->wbuf, px * sizeof *wb);
            if (wb)
                r->wbuf = wb;
            uint32_t *ib = realloc(r->idbuf, px * sizeof *ib);
            if (ib)
                r->idbuf = ib;
            if (!wb || !ib)
                return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", r->cam->width, r->cam->height);
            r->cap_px = px;
        }
        if (!sn_grow((void **)&r->zmin, &r->cap_zmin, (size_t)r->target.zstride * r->H, sizeof *r->zmin))
            return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", r->cam->width, r->cam->height);
        r->target.wbuf = r->wbuf, r->target.idbuf = r->need_info ? r->idbuf : NULL, r->target.zmin = r->zmin;
    }
    if (!setup_jobs(r))
        return sn_fail(err, SN_E_NOMEM, "out of memory while setting up the triangles of %zu meshes", r->n_jobs);
    r->last_tris = (uint32_t)r->n_tris;
    /* headlights only where colour is drawn, and only at night; street lamps' shadows as the sun's */
    r->lamps.shadows = light->shadows, r->lamps.exact = r->exact;
    if (!sn_lamps_build(&r->lamps, w, alpha, r->out->bgra ? r->env.night : 0, r->eye, r->cam->far_clip))
        return sn_fail(err, SN_E_NOMEM, "out of memory for the headlights");
    double t2 = now_ms();
    /* shadows only where colour is drawn, and only while the sun is up */
    r->shadows = r->out->bgra && light->shadows && r->env.sun_rgb[0] > 0;
    const bool reuse = r->shadows && r->layer == SN_LAYER_MOVING && r->shadow_still && r->shadow_w == w &&
                       r->shadow_gen == w->motion_gen;
    if (r->shadows && !reuse) {
        if (!build_shadows(r, w, alpha))
            return sn_fail(err, SN_E_NOMEM, "out of memory for the shadow map");
        r->shadow_still = r->layer == SN_LAYER_STILL && alpha == 1.0, r->shadow_w = w, r->shadow_gen = w->motion_gen;
    }
    double t3 = now_ms();
    sn_pool_run(r->pool, draw_band, r, (uint32_t)r->n_bands);
    if (atomic_load(&r->scratch_oom))
        return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", r->cam->width, r->cam->height);
    if (r->out->bgra && r->env.deposits > 0 && r->layer != SN_LAYER_MOVING && !reflect_puddles(r))
        return sn_fail(err, SN_E_NOMEM, "out of memory for the puddles' reflections");
    double t4 = now_ms();
    r->prof.setup_ms += t2 - t1, r->prof.shadow_ms += t3 - t2, r->prof.draw_ms += t4 - t3;
    /* the map's texels to the next render of any engine (shadow_maps.h), unless the moving layer
    ** of this frame is to reuse them */
    if (!r->shadow_still)
        sn_shadow_release(r->shadow);
    return SN_OK;
}

static sn_status render(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                        const sn_camera *cam, const sn_image *out, float *motion, const sn_motion_grid *grid,
                        sn_error *err)
{
    sn_status st = prepare(r, w, light, cam, out, motion, grid, err);
    if (st)
        return st;
    double t0 = now_ms();
    if ((st = queue(r, w, alpha, err)))
        return st;
    double t1 = now_ms();
    if ((st = draw(r, w, alpha, light, t1, err)))
        return st;
    r->prof.frames++;
    r->prof.queue_ms += t1 - t0;
    return SN_OK;
}

sn_status sn_render(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                    const sn_camera *cam, const sn_image *out, sn_error *err)
{
    r->layer = SN_LAYER_ALL;
    return render(r, w, alpha, light, cam, out, NULL, NULL, err);
}

sn_status sn_render_layer(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                          const sn_camera *cam, const sn_image *out, uint32_t layer, sn_error *err)
{
    if (layer > SN_LAYER_MOVING)
        return sn_fail(err, SN_E_INVALID, "layer %u: must be 0 (all), 1 (still) or 2 (moving)", layer);
    r->layer = layer;
    sn_status st = render(r, w, alpha, light, cam, out, NULL, NULL, err);
    r->layer = SN_LAYER_ALL;
    return st;
}

sn_status sn_render_motion(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                           const sn_image *out, float *motion, sn_error *err)
{
    if (!motion)
        return sn_fail(err, SN_E_INVALID, "NULL motion buffer");
    r->layer = SN_LAYER_ALL;
    return render(r, w, 1.0, light, cam, out, motion, NULL, err);
}

sn_status sn_render_motion_grid(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                                const sn_image *out, const sn_motion_grid *grid, sn_error *err)
{
    if (!grid || !grid->depth || !grid->instance || !grid->motion)
        return sn_fail(err, SN_E_INVALID, "NULL motion grid buffer");
    if (grid->div == 0 || grid->div > cam->width || grid->div > cam->height)
        return sn_fail(err, SN_E_INVALID, "motion grid div %u on a %ux%u image: 1 to the image's smaller side",
                       grid->div, cam->width, cam->height);
    r->layer = SN_LAYER_ALL;
    return render(r, w, 1.0, light, cam, out, NULL, grid, err);
}
