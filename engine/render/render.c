/* render.c — setup (transform, cull, clip, project, bin) by jobs on the pool, then rasterise and
** resolve bands of rows on the pool. See render.h for the method. */
#include "render.h"

#include "../core/mathx.h"
#include "../core/util.h"
#include "../map/road_mesh.h"
#include "headlights.h"
#include "mesh.h"
#include "shade.h"
#include "shadow.h"
#include "shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB 8                   /* subpixel bits of the fixed-point vertex coordinates */
#define ONE (1 << SUB)
#define BAND 16                 /* rows per task (rounded up to a multiple of the colour samples) */
#define GUARD 8.0               /* guard band: clip planes at 8x the half field of view */
#define NONE 0xFFFFFFFFu        /* nothing drawn at this pixel */
#define PLANE_BIT 0x80000000u   /* the pixel's primitive is a ground plane */
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

typedef struct tri {
    int64_t X[3], Y[3];     /* fixed point, wound so that the doubled area is positive */
    int32_t x0, x1, y0, y1; /* pixels whose centres may be covered, inclusive, inside the image */
    float wa, wb, wc;       /* 1/depth = wa*x + wb*y + wc at the centre of pixel (x, y) */
    float n[3];             /* unit world normal */
    uint32_t prim;
} tri;

typedef struct plane {
    float wa, wb, wc;
    float n[3];
    uint32_t prim;
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
    size_t v_off;
    bool model;
    const uint32_t (*t)[3];
    uint32_t n_v, count;
    const sn_mesh_part *parts; /* NULL: one part */
    uint32_t n_parts, prim;
    sn_vec3 cc, c0, c1, c2;
} job;

/* A setup task's output: its triangles and, per band of rows, the ones that touch it, both
** numbered from 0; merged in task order (which is job order) into the frame's. */
#define MAX_SETUP 64
typedef struct setup_out {
    tri *tris;
    size_t n, cap, base;
    band *bands;
    size_t cap_bands;
    sn_vec3 *verts; /* camera-space vertices of the job being set up */
    size_t cap_verts;
    bool oom;
} setup_out;

struct sn_renderer {
    sn_pool *pool;
    prim *prims;
    size_t n_prims, cap_prims;
    tri *tris;
    size_t n_tris, cap_tris;
    plane *planes;
    size_t n_planes, cap_planes;
    size_t n_bands;
    job *jobs;      /* this frame's meshes to set up, in the order they are drawn */
    size_t n_jobs, cap_jobs;
    setup_out setup[MAX_SETUP];
    uint32_t n_setup, job_from[MAX_SETUP + 1]; /* setup task k: jobs [job_from[k], job_from[k + 1]) */
    bool serial_setup; /* one setup task on the calling thread (benchmarks' baseline) */
    float (*model_v)[3]; /* the models' posed vertices (shapes.h), actor frame, this frame */
    size_t n_model_v, cap_model_v;
    float *wbuf;    /* 1/depth of the nearest surface so far */
    uint32_t *idbuf;
    size_t cap_px;

    /* the frame being rendered */
    const sn_camera *cam;
    const sn_image *out;
    float *motion; /* sn_render_motion's output, NULL otherwise */
    const sn_world *world;
    uint32_t W, H;
    double f, cx, cy, tanh_, tanv;
    float inv_far, inv_near, far;
    sn_mat3 R; /* camera frame: columns forward, right, up */
    sn_vec3 eye;
    sn_shade_env env;  /* sun, sky, fog, wetness of this frame (shade.h) */
    sn_lamps lamps;    /* vehicles' headlights at night (headlights.h) */
    sn_shadow *shadow; /* the sun's shadow map, created at the first colour render */
    sn_vec3 *shadow_v; /* one caster's world vertices */
    size_t cap_shadow_v;
    float (*shadow_mv)[3]; /* one caster's posed model (shapes.h) */
    size_t cap_shadow_mv;
    bool shadows;      /* this frame's colour pixels look it up */
    bool textures;     /* procedural textures of roads and sidewalks */
    uint32_t ss;       /* colour samples per pixel side (sn_image.samples): W, H count samples */
    uint32_t band;     /* sample rows per task: BAND rounded up to a multiple of ss */
    uint32_t lin[256]; /* gamma-2.2 bytes in linear light, 2^16 scale (anti-aliasing) */
    double mid[256];   /* midpoints between consecutive lin[], then a sentinel */
    uint8_t guess[4097]; /* the byte for a linear value / 16, give or take one */
    uint32_t last_tris;
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
    for (int i = 0; i < 256; i++)
        r->lin[i] = (uint32_t)lround(65535 * pow(i / 255.0, 2.2));
    for (int i = 0; i < 255; i++)
        r->mid[i] = 0.5 * ((double)r->lin[i] + r->lin[i + 1]);
    r->mid[255] = 1e30;
    for (int k = 0, b = 0; k <= 4096; k++) {
        while (b < 255 && r->mid[b] <= k * 16.0)
            b++;
        r->guess[k] = (uint8_t)b;
    }
    return r;
}

void sn_renderer_destroy(sn_renderer *r)
{
    if (!r)
        return;
    sn_pool_destroy(r->pool);
    sn_shadow_destroy(r->shadow);
    sn_lamps_free(&r->lamps);
    free(r->shadow_v);
    free(r->shadow_mv);
    for (int k = 0; k < MAX_SETUP; k++) {
        setup_out *s = &r->setup[k];
        for (size_t i = 0; i < s->cap_bands; i++)
            free(s->bands[i].list);
        free(s->bands), free(s->tris), free(s->verts);
    }
    free(r->jobs);
    free(r->prims);
    free(r->tris);
    free(r->planes);
    free(r->model_v);
    free(r->wbuf);
    free(r->idbuf);
    free(r);
}

int sn_renderer_threads(const sn_renderer *r) { return sn_pool_threads(r->pool); }
sn_pool *sn_renderer_pool(sn_renderer *r) { return r->pool; }
uint32_t sn_renderer_last_triangles(const sn_renderer *r) { return r->last_tris; }
void sn_renderer_set_serial_setup(sn_renderer *r, bool on) { r->serial_setup = on; }

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
static int parity(double v) { return isfinite(v) && fmod(floor(v), 2.0) != 0; }

static int64_t floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

static bool push_band(band *b, uint32_t t)
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

/* One screen triangle from three camera-space vertices into s; false only when out of memory. */
static bool emit(const sn_renderer *r, setup_out *s, const sn_vec3 *v, const float n[3], uint32_t prim_index)
{
    double sx[3], sy[3];
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; i++) {
        sx[i] = r->cx + r->f * v[i].y / v[i].x;
        sy[i] = r->cy - r->f * v[i].z / v[i].x;
        X[i] = llround(sx[i] * ONE);
        Y[i] = llround(sy[i] * ONE);
    }
    int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0)
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
    /* pixels whose centres (i + 1/2) lie inside the box */
    int64_t x0 = floordiv(minX - ONE / 2 + ONE - 1, ONE), x1 = floordiv(maxX - ONE / 2, ONE);
    int64_t y0 = floordiv(minY - ONE / 2 + ONE - 1, ONE), y1 = floordiv(maxY - ONE / 2, ONE);
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > (int64_t)r->W - 1) x1 = r->W - 1;
    if (y1 > (int64_t)r->H - 1) y1 = r->H - 1;
    if (x0 > x1 || y0 > y1)
        return true;
    /* 1/depth is affine in screen space: solve it through the three projected vertices */
    double det = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
    if (fabs(det) < 1e-12)
        return true;
    double w0 = 1 / v[0].x, w1 = 1 / v[1].x, w2 = 1 / v[2].x;
    double A = ((w1 - w0) * (sy[2] - sy[0]) - (w2 - w0) * (sy[1] - sy[0])) / det;
    double B = ((w2 - w0) * (sx[1] - sx[0]) - (w1 - w0) * (sx[2] - sx[0])) / det;
    double C = w0 - A * sx[0] - B * sy[0];
    if (!sn_grow((void **)&s->tris, &s->cap, s->n + 1, sizeof *s->tris))
        return false;
    uint32_t index = (uint32_t)s->n++;
    tri *t = &s->tris[index];
    memcpy(t->X, X, sizeof X);
    memcpy(t->Y, Y, sizeof Y);
    t->x0 = (int32_t)x0, t->x1 = (int32_t)x1, t->y0 = (int32_t)y0, t->y1 = (int32_t)y1;
    /* at the centre of pixel (x, y): screen (x + 1/2, y + 1/2) */
    t->wa = (float)A;
    t->wb = (float)B;
    t->wc = (float)(C + 0.5 * A + 0.5 * B);
    memcpy(t->n, n, sizeof t->n);
    t->prim = prim_index;
    for (int64_t b = y0 / r->band; b <= y1 / r->band; b++)
        if (!push_band(&s->bands[b], index))
            return false;
    return true;
}

/* Culls, clips and emits one camera-space triangle. */
static bool add_triangle(const sn_renderer *r, setup_out *s, sn_vec3 a, sn_vec3 b, sn_vec3 c, uint32_t prim_index)
{
    sn_vec3 n = sn_v3_cross(sn_v3_sub(b, a), sn_v3_sub(c, a));
    if (sn_v3_dot(n, a) >= 0)
        return true; /* back face (meshes wind outwards) or edge-on */
    /* outside one side of the view, or beyond the far plane: nothing to draw */
    double th = r->tanh_, tv = r->tanv, fc = r->cam->far_clip;
    if ((a.y > th * a.x && b.y > th * b.x && c.y > th * c.x) || (a.y < -th * a.x && b.y < -th * b.x && c.y < -th * c.x) ||
        (a.z > tv * a.x && b.z > tv * b.x && c.z > tv * c.x) || (a.z < -tv * a.x && b.z < -tv * b.x && c.z < -tv * c.x) ||
        (a.x > fc && b.x > fc && c.x > fc))
        return true;
    sn_vec3 wn = sn_v3_norm(sn_mat3_apply(&r->R, n));
    float nf[3] = {(float)wn.x, (float)wn.y, (float)wn.z};
    sn_vec3 poly[2][MAX_POLY] = {{a, b, c}};
    int n_poly = 3, cur = 0;
    double da[5], db[5], dc[5];
    plane_dists(r, a, da);
    plane_dists(r, b, db);
    plane_dists(r, c, dc);
    for (int k = 0; k < 5; k++) {
        if (da[k] >= 0 && db[k] >= 0 && dc[k] >= 0)
            continue; /* the common case: wholly inside this plane */
        n_poly = clip_plane(r, poly[cur], n_poly, poly[cur ^ 1], k);
        cur ^= 1;
        if (n_poly < 3)
            return true;
    }
    sn_vec3 *p = poly[cur];
    for (int i = 1; i + 1 < n_poly; i++) {
        sn_vec3 t3[3] = {p[0], p[i], p[i + 1]};
        if (!emit(r, s, t3, nf, prim_index))
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
    p->checker_size = a->checker_size > 0 ? a->checker_size : 1.0;
    p->is_plane = a->shape == SN_SHAPE_PLANE;
    p->rot = t->rot;
    p->pos = t->pos;
    p->moves = false;
    p->material = SN_MAT_BODY;
    p->glow = 0;
    if (r->motion) {
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
    sn_vec3 n = a->plane_normal;
    double num = a->plane_offset - sn_v3_dot(n, r->eye);
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

static job *new_job(sn_renderer *r)
{
    if (!sn_grow((void **)&r->jobs, &r->cap_jobs, r->n_jobs + 1, sizeof *r->jobs))
        return NULL;
    job *j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof *j);
    return j;
}

/* An actor's mesh: m's vertices scaled by ext in the actor's frame about its box centre, each
** part its own primitive (its material's colour) when the mesh has parts. Queued: the
** triangles are set up by setup_task. */
static bool add_mesh(sn_renderer *r, const sn_actor *a, const pose *t, const sn_mesh *m, sn_vec3 ext, job **out)
{
    const sn_mat3 ra = t->rot;
    sn_vec3 centre = sn_v3_add(t->pos, sn_mat3_apply(&ra, a->bbox.location));
    sn_vec3 cc = sn_mat3_apply_t(&r->R, sn_v3_sub(centre, r->eye));
    *out = NULL;
    /* the box's bounding sphere: every mesh lies inside the box */
    if (sphere_culled(r, cc, sn_v3_len(a->bbox.extent)))
        return true;
    job *j = new_job(r);
    if (!j)
        return false;
    j->v = m->v, j->t = m->t, j->n_v = m->n_v, j->count = m->n_t;
    j->parts = m->parts, j->n_parts = m->parts ? m->n_parts : 1;
    j->prim = (uint32_t)r->n_prims;
    /* camera-space columns of the scaled actor frame */
    j->cc = cc;
    j->c0 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 0)), ext.x);
    j->c1 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 1)), ext.y);
    j->c2 = sn_v3_scale(sn_mat3_apply_t(&r->R, sn_mat3_col(&ra, 2)), ext.z);
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
        sn_material_rgb(p->material, a->color, p->color);
        p->tag = sn_material_tag(p->material, a->tag);
        p->glow = (float)sn_lamp_glow(a, p->material);
    }
    *out = j;
    return true;
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
        prim *p = &r->prims[r->n_prims++];
        memset(p, 0, sizeof *p); /* roads never move: p->moves stays false */
        p->tag = k->tag;
        memcpy(p->color, k->rgb, 3);
        p->checker_size = 1.0;
        p->rot = (sn_mat3){{1, 0, 0, 0, 1, 0, 0, 0, 1}};
        j->wv = (const double(*)[3])m->v + k->v_first, j->t = (const uint32_t(*)[3])m->t + k->first;
        j->n_v = k->v_count, j->count = k->count, j->n_parts = 1;
        j->prim = (uint32_t)r->n_prims - 1;
    }
    return true;
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
        if (!sn_grow((void **)&s->verts, &s->cap_verts, j->n_v, sizeof *s->verts)) {
            s->oom = true;
            break;
        }
        if (j->wv) {
            for (uint32_t i = 0; i < j->n_v; i++)
                s->verts[i] = sn_mat3_apply_t(&r->R, sn_v3_sub(sn_v3(j->wv[i][0], j->wv[i][1], j->wv[i][2]), r->eye));
        } else {
            const float(*v)[3] = j->model ? (const float(*)[3])r->model_v + j->v_off : j->v;
            for (uint32_t i = 0; i < j->n_v; i++)
                s->verts[i] = sn_v3_add(j->cc, sn_v3_add(sn_v3_scale(j->c0, v[i][0]),
                                                         sn_v3_add(sn_v3_scale(j->c1, v[i][1]), sn_v3_scale(j->c2, v[i][2]))));
        }
        for (uint32_t pk = 0; pk < j->n_parts && !s->oom; pk++) {
            uint32_t first = j->parts ? j->parts[pk].first : 0, count = j->parts ? j->parts[pk].count : j->count;
            for (uint32_t i = first; i < first + count; i++) {
                const uint32_t *q = j->t[i];
                if (!add_triangle(r, s, s->verts[q[0]], s->verts[q[1]], s->verts[q[2]], j->prim + pk)) {
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
        memcpy(r->tris + s->base, s->tris, s->n * sizeof *s->tris);
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
    if (r->n_tris >= PLANE_BIT || !sn_grow((void **)&r->tris, &r->cap_tris, r->n_tris + 1, sizeof *r->tris))
        return false;
    if (n == 1)
        gather_task(r, 0);
    else
        sn_pool_run(r->pool, gather_task, r, n);
    return true;
}

/* ---- rasterise and resolve one band ---- */

/* The byte whose linear value (lin[]) is nearest to m: mid[b - 1] <= m < mid[b]. */
static uint8_t lin_to_byte(const sn_renderer *r, double m)
{
    int b = r->guess[m < 0 ? 0 : m > 65535 ? 4096 : (int)(m / 16)];
    while (b > 0 && m < r->mid[b - 1])
        b--;
    while (m >= r->mid[b])
        b++;
    return (uint8_t)b;
}

static void resolve(sn_renderer *r, int32_t y_begin, int32_t y_end);
static void resolve_samples(sn_renderer *r, int32_t y_begin, int32_t y_end);

/* The ray through the centre of pixel (x, y), scaled so that its forward component is 1:
** eye + ray * depth is the point at planar depth `depth`. */
static sn_vec3 pixel_ray(const sn_renderer *r, uint32_t x, int32_t y, sn_vec3 fwd, sn_vec3 right, sn_vec3 up)
{
    double a = ((double)x + 0.5 - r->cx) / r->f, b = ((double)y + 0.5 - r->cy) / r->f;
    return sn_v3_add(fwd, sn_v3_sub(sn_v3_scale(right, a), sn_v3_scale(up, b)));
}

/* Triangle ti into rows [y_begin, y_end) of the depth and id buffers. */
static void raster(const sn_renderer *r, uint32_t ti, int32_t y_begin, int32_t y_end)
{
    const uint32_t W = r->W;
    float *wb = r->wbuf;
    uint32_t *ib = r->idbuf;
    const tri *t = &r->tris[ti];
    int32_t ya = t->y0 > y_begin ? t->y0 : y_begin, yb = t->y1 < y_end - 1 ? t->y1 : y_end - 1;
    int64_t dx[3], dy[3], bias[3];
    for (int e = 0; e < 3; e++) {
        int n = (e + 1) % 3;
        dx[e] = t->X[n] - t->X[e];
        dy[e] = t->Y[n] - t->Y[e];
        /* a pixel centre exactly on an edge belongs to one of the two triangles sharing it */
        bias[e] = (dy[e] < 0 || (dy[e] == 0 && dx[e] > 0)) ? 0 : -1;
    }
    const int64_t px0 = (int64_t)t->x0 * ONE + ONE / 2;
    for (int32_t y = ya; y <= yb; y++) {
        const int64_t py = (int64_t)y * ONE + ONE / 2;
        int64_t e0 = dx[0] * (py - t->Y[0]) - dy[0] * (px0 - t->X[0]) + bias[0];
        int64_t e1 = dx[1] * (py - t->Y[1]) - dy[1] * (px0 - t->X[1]) + bias[1];
        int64_t e2 = dx[2] * (py - t->Y[2]) - dy[2] * (px0 - t->X[2]) + bias[2];
        const int64_t s0 = -dy[0] * ONE, s1 = -dy[1] * ONE, s2 = -dy[2] * ONE;
        const float row = t->wb * (float)y + t->wc;
        float *wr = wb + (size_t)y * W;
        uint32_t *ir = ib + (size_t)y * W;
        bool inside = false;
        for (int32_t x = t->x0; x <= t->x1; x++, e0 += s0, e1 += s1, e2 += s2) {
            if ((e0 | e1 | e2) >= 0) {
                inside = true;
                float w = row + t->wa * (float)x;
                if (w > wr[x]) {
                    wr[x] = w;
                    ir[x] = ti;
                }
            } else if (inside) {
                break; /* a triangle's row is one span: past it, nothing more */
            }
        }
    }
}

static void draw_band(void *arg, uint32_t bi)
{
    sn_renderer *r = arg;
    const uint32_t W = r->W;
    const int32_t rows = (int32_t)r->band, y_begin = (int32_t)bi * rows;
    const int32_t y_end = y_begin + rows < (int32_t)r->H ? y_begin + rows : (int32_t)r->H;
    float *wb = r->wbuf;
    uint32_t *ib = r->idbuf;
    const float inv_far = r->inv_far, inv_near = r->inv_near;

    /* clear, then the ground planes: exact per pixel */
    for (int32_t y = y_begin; y < y_end; y++)
        for (uint32_t x = 0; x < W; x++) {
            wb[(size_t)y * W + x] = inv_far;
            ib[(size_t)y * W + x] = NONE;
        }
    for (size_t k = 0; k < r->n_planes; k++) {
        const plane *p = &r->planes[k];
        for (int32_t y = y_begin; y < y_end; y++) {
            float row = p->wb * (float)y + p->wc;
            float *wr = wb + (size_t)y * W;
            uint32_t *ir = ib + (size_t)y * W;
            for (uint32_t x = 0; x < W; x++) {
                float w = row + p->wa * (float)x;
                if (w > wr[x] && w < inv_near) {
                    wr[x] = w;
                    ir[x] = PLANE_BIT | (uint32_t)k;
                }
            }
        }
    }

    /* triangles, in the order they were set up (setup task by task): ties keep the first */
    for (uint32_t sk = 0; sk < r->n_setup; sk++) {
        const band *bd = &r->setup[sk].bands[bi];
        for (uint32_t k = 0; k < bd->n; k++)
            raster(r, (uint32_t)r->setup[sk].base + bd->list[k], y_begin, y_end);
    }

    if (r->ss > 1)
        resolve_samples(r, y_begin, y_end);
    else
        resolve(r, y_begin, y_end);
}

/* The colour of sample (x, y) whose winner is `id` (NONE: the sky), r, g, b. */
static void shade_sample(const sn_renderer *r, uint32_t x, int32_t y, uint32_t id, uint8_t rgb[3])
{
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    sn_vec3 ray = pixel_ray(r, x, y, fwd, right, up);
    if (id == NONE) {
        sn_shade_sky(&r->env, r->eye, sn_v3_norm(ray), rgb);
        return;
    }
    const float *n;
    const prim *p;
    if (id & PLANE_BIT) {
        const plane *pl = &r->planes[id & ~PLANE_BIT];
        n = pl->n, p = &r->prims[pl->prim];
    } else {
        n = r->tris[id].n, p = &r->prims[r->tris[id].prim];
    }
    float depth = 1.0f / r->wbuf[(size_t)y * r->W + x];
    if (depth > r->far)
        depth = r->far;
    sn_surface s = {.p = sn_v3_add(r->eye, sn_v3_scale(ray, depth)), .view = sn_v3_norm(ray), .n = n,
                    .color = p->color, .albedo = 1, .sun_vis = 1, .tag = p->tag, .glow = p->glow};
    double lamp[3] = {0, 0, 0};
    if (r->lamps.n) {
        sn_lamps_light(&r->lamps, s.p, n, lamp);
        s.lamp = lamp;
    }
    if (p->checker) {
        /* the surface point, pushed a hair inside so faces on cell borders do not flicker */
        sn_vec3 pt = sn_v3_sub(s.p, sn_v3_scale(sn_v3(n[0], n[1], n[2]), 1e-3 * p->checker_size));
        sn_vec3 l = sn_mat3_apply_t(&p->rot, sn_v3_sub(pt, p->pos));
        double cs = p->checker_size;
        int cell = parity(l.x / cs) + parity(l.y / cs) + (p->is_plane ? 0 : parity(l.z / cs));
        if (cell & 1)
            s.albedo = 0.7;
    }
    if (r->textures)
        s.albedo *= sn_shade_texture(p->tag, s.p, n[2]);
    if (r->shadows && n[0] * r->env.sun[0] + n[1] * r->env.sun[1] + n[2] * r->env.sun[2] > 0)
        s.sun_vis = sn_shadow_visibility(r->shadow, s.p, n);
    sn_shade_surface(&r->env, r->eye, &s, rgb);
}

/* Depth, tag, id, motion and colour of rows [y_begin, y_end) from each pixel's winner. */
static void resolve(sn_renderer *r, int32_t y_begin, int32_t y_end)
{
    const uint32_t W = r->W;
    const float *wb = r->wbuf;
    const uint32_t *ib = r->idbuf;
    const sn_image *o = r->out;
    const sn_vec3 fwd = sn_mat3_col(&r->R, 0), right = sn_mat3_col(&r->R, 1), up = sn_mat3_col(&r->R, 2);
    for (int32_t y = y_begin; y < y_end; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            uint32_t id = ib[i];
            if (o->bgra) {
                uint8_t *c = o->bgra + 4 * i, rgb[3];
                shade_sample(r, x, y, id, rgb);
                c[0] = rgb[2], c[1] = rgb[1], c[2] = rgb[0], c[3] = 255;
            }
            if (id == NONE) {
                if (o->depth) o->depth[i] = r->far;
                if (o->tag) o->tag[i] = SN_TAG_SKY;
                if (o->instance) o->instance[i] = 0;
                if (r->motion) r->motion[3 * i] = r->motion[3 * i + 1] = r->motion[3 * i + 2] = 0;
                continue;
            }
            const prim *p = &r->prims[id & PLANE_BIT ? r->planes[id & ~PLANE_BIT].prim : r->tris[id].prim];
            float depth = 1.0f / wb[i];
            if (depth > r->far)
                depth = r->far;
            if (o->depth) o->depth[i] = depth;
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

/* Anti-aliased colour (sn_image.samples = ss): rows [y_begin, y_end) of the ss x ss sample grid
** hold output rows y_begin/ss ..; each output pixel shades every distinct winner among its
** samples once, at its first sample, and averages them weighted by how many samples each won,
** in linear light (gamma 2.2), rounded to the nearest byte. A pixel of one winner is that
** winner's colour exactly. */
static void resolve_samples(sn_renderer *r, int32_t y_begin, int32_t y_end)
{
    const uint32_t ss = r->ss, OW = r->W / ss, n = ss * ss;
    const uint32_t *ib = r->idbuf;
    for (int32_t oy = y_begin / (int32_t)ss; oy < y_end / (int32_t)ss; oy++)
        for (uint32_t ox = 0; ox < OW; ox++) {
            uint32_t ids[16], count[16], first[16], k = 0;
            for (uint32_t j = 0; j < ss; j++)
                for (uint32_t i = 0; i < ss; i++) {
                    uint32_t at = ((uint32_t)oy * ss + j) * r->W + ox * ss + i, id = ib[at], m = 0;
                    while (m < k && ids[m] != id)
                        m++;
                    if (m == k)
                        ids[k] = id, count[k] = 0, first[k] = j * ss + i, k++;
                    count[m]++;
                }
            uint8_t *c = r->out->bgra + 4 * ((size_t)oy * OW + ox), rgb[3];
            if (k == 1) {
                shade_sample(r, ox * ss + first[0] % ss, oy * (int32_t)ss + (int32_t)(first[0] / ss), ids[0], rgb);
                c[0] = rgb[2], c[1] = rgb[1], c[2] = rgb[0], c[3] = 255;
                continue;
            }
            uint32_t sum[3] = {0, 0, 0};
            for (uint32_t m = 0; m < k; m++) {
                shade_sample(r, ox * ss + first[m] % ss, oy * (int32_t)ss + (int32_t)(first[m] / ss), ids[m], rgb);
                for (int q = 0; q < 3; q++)
                    sum[q] += count[m] * r->lin[rgb[q]];
            }
            for (int q = 0; q < 3; q++)
                c[2 - q] = lin_to_byte(r, sum[q] / (double)n);
            c[3] = 255;
        }
}

/* The sun's shadow map for this frame: every actor's mesh within reach of the view's first
** SN_SHADOW_DISTANCE metres, as the sun sees it. false without memory. */
static bool build_shadows(sn_renderer *r, const sn_world *w, double alpha)
{
    if (!r->shadow && !(r->shadow = sn_shadow_create()))
        return false;
    double nd = r->cam->near_clip, fd = r->cam->far_clip < SN_SHADOW_DISTANCE ? r->cam->far_clip : SN_SHADOW_DISTANCE;
    sn_vec3 corners[8];
    for (int k = 0; k < 8; k++) {
        double d = k & 4 ? fd : nd;
        sn_vec3 v = sn_v3(d, (k & 1 ? 1 : -1) * r->tanh_ * d, (k & 2 ? 1 : -1) * r->tanv * d);
        corners[k] = sn_v3_add(r->eye, sn_mat3_apply(&r->R, v));
    }
    sn_shadow_begin(r->shadow, r->env.sun, corners, 8);
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR)
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
        sn_vec3 centre = sn_v3_add(pos, sn_mat3_apply(&ra, a->bbox.location)), ext = a->bbox.extent;
        if (!sn_shadow_wants(r->shadow, centre, sn_v3_len(ext)))
            continue;
        if (!sn_grow((void **)&r->shadow_v, &r->cap_shadow_v, m->n_v, sizeof *r->shadow_v))
            return false;
        const float (*mv)[3] = m->v;
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
            r->shadow_v[k] = sn_v3_add(centre, sn_mat3_apply(&ra, sn_v3(ext.x * v[0], ext.y * v[1], ext.z * v[2])));
        }
        for (uint32_t k = 0; k < m->n_t; k++)
            if (!sn_shadow_add(r->shadow, r->shadow_v[m->t[k][0]], r->shadow_v[m->t[k][1]], r->shadow_v[m->t[k][2]]))
                return false;
    }
    sn_shadow_draw(r->shadow, r->pool);
    return true;
}

static sn_status render(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                        const sn_camera *cam, const sn_image *out, float *motion, sn_error *err)
{
    sn_status st = sn_camera_check(cam, err);
    if (st)
        return st;
    /* anti-aliasing: colour alone, rendered on a grid of ss x ss samples per pixel */
    uint32_t ss = out->struct_size >= offsetof(sn_image, samples) + sizeof out->samples && out->samples > 1 && out->bgra
                      ? out->samples : 1;
    if (ss > 1 && (out->depth || out->tag || out->instance || motion))
        return sn_fail(err, SN_E_INVALID, "%u samples per pixel: anti-aliasing renders colour only (depth, tags and "
                       "ids are never blended)", ss * ss);
    if (ss > 4 || cam->width * ss > 16384 || cam->height * ss > 16384)
        return sn_fail(err, SN_E_INVALID, "%u samples per pixel side on %ux%u: at most 4, and at most 16384 samples a "
                       "side", ss, cam->width, cam->height);
    r->ss = ss;
    r->band = (BAND + ss - 1) / ss * ss;
    size_t px = (size_t)cam->width * cam->height * ss * ss;
    if (px > r->cap_px) {
        float *wb = realloc(r->wbuf, px * sizeof *wb);
        if (wb)
            r->wbuf = wb;
        uint32_t *ib = realloc(r->idbuf, px * sizeof *ib);
        if (ib)
            r->idbuf = ib;
        if (!wb || !ib)
            return sn_fail(err, SN_E_NOMEM, "out of memory for a %ux%u image", cam->width, cam->height);
        r->cap_px = px;
    }
    r->cam = cam;
    r->out = out;
    r->motion = motion;
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
    r->n_prims = r->n_tris = r->n_planes = r->n_jobs = r->n_model_v = 0;

    /* queue every mesh in view (planes are drawn per pixel), then set them up on the pool */
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || a->shape == SN_SHAPE_NONE)
            continue;
        pose t;
        sn_quat q;
        sn_actor_pose_at(w, a, alpha, &t.pos, &q);
        t.rot = sn_mat3_from_quat(q);
        const sn_mesh *m = sn_mesh_get(a->shape);
        sn_model model = sn_model_of(w, a);
        job *j;
        bool ok = a->shape == SN_SHAPE_PLANE ? add_plane(r, a, &t)
                  : model             ? add_model(r, a, &t, alpha, model)
                  : m                 ? add_mesh(r, a, &t, m, a->bbox.extent, &j)
                                      : true;
        if (!ok)
            return sn_fail(err, SN_E_NOMEM, "out of memory while queueing %zu meshes", r->n_jobs);
    }
    if (w->roads && !add_roads(r, w->roads))
        return sn_fail(err, SN_E_NOMEM, "out of memory while queueing %zu meshes", r->n_jobs);
    if (!setup_jobs(r))
        return sn_fail(err, SN_E_NOMEM, "out of memory while setting up the triangles of %zu meshes", r->n_jobs);
    r->last_tris = (uint32_t)r->n_tris;
    /* headlights only where colour is drawn, and only at night */
    if (!sn_lamps_build(&r->lamps, w, alpha, out->bgra ? r->env.night : 0, r->eye, cam->far_clip))
        return sn_fail(err, SN_E_NOMEM, "out of memory for the headlights");
    /* shadows only where colour is drawn, and only while the sun is up */
    r->shadows = out->bgra && light->shadows && r->env.sun_rgb[0] > 0;
    if (r->shadows && !build_shadows(r, w, alpha))
        return sn_fail(err, SN_E_NOMEM, "out of memory for the shadow map");
    sn_pool_run(r->pool, draw_band, r, (uint32_t)r->n_bands);
    return SN_OK;
}

sn_status sn_render(sn_renderer *r, const sn_world *w, double alpha, const sn_lighting *light,
                    const sn_camera *cam, const sn_image *out, sn_error *err)
{
    return render(r, w, alpha, light, cam, out, NULL, err);
}

sn_status sn_render_motion(sn_renderer *r, const sn_world *w, const sn_lighting *light, const sn_camera *cam,
                           const sn_image *out, float *motion, sn_error *err)
{
    if (!motion)
        return sn_fail(err, SN_E_INVALID, "NULL motion buffer");
    return render(r, w, 1.0, light, cam, out, motion, err);
}
