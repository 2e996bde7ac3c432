/* scene.c — the ray index: building the Embree scenes from world state. */
#include "internal.h"

#include "../core/util.h"
#include "../map/road_mesh.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_embree_error(void *user, enum RTCError code, const char *str)
{
    sn_rayscene *rs = user;
    snprintf(rs->emb_err, sizeof rs->emb_err, "embree error %d: %s", (int)code, str ? str : "?");
}

static sn_status embree_check(sn_rayscene *rs, const char *what, sn_error *err)
{
    if (!rs->emb_err[0])
        return SN_OK;
    sn_status st = sn_fail(err, SN_E_NOMEM, "ray index: %s: %s", what, rs->emb_err);
    rs->emb_err[0] = 0;
    rs->built = rs->bounds_built = rs->cull_boxes.valid = false; /* rebuild from scratch next time */
    rs->world = rs->stat_world = NULL;
    return st;
}

/* A scene of one triangle geometry from float vertices and indices (copied). */
static RTCGeometry new_triangles(RTCDevice dev, const float *v, size_t n_v, const uint32_t *t, size_t n_t)
{
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    if (!g)
        return NULL;
    float *vb = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float), n_v);
    uint32_t *ib = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(uint32_t), n_t);
    if (!vb || !ib) {
        rtcReleaseGeometry(g);
        return NULL;
    }
    if (v)
        memcpy(vb, v, n_v * 3 * sizeof(float));
    if (t)
        memcpy(ib, t, n_t * 3 * sizeof(uint32_t));
    return g;
}

static RTCScene new_scene(RTCDevice dev, enum RTCBuildQuality q, bool dynamic)
{
    RTCScene s = rtcNewScene(dev);
    if (!s)
        return NULL;
    /* Robust: no arithmetic shortcuts that let rays slip through shared edges. The context
    ** filter carries the query's filters and all-hits collection. */
    rtcSetSceneFlags(s, RTC_SCENE_FLAG_ROBUST | RTC_SCENE_FLAG_CONTEXT_FILTER_FUNCTION |
                            (dynamic ? RTC_SCENE_FLAG_DYNAMIC : 0));
    rtcSetSceneBuildQuality(s, q);
    return s;
}

sn_rayscene *sn_rayscene_create(int threads, sn_error *err)
{
    sn_rayscene *rs = calloc(1, sizeof *rs);
    if (!rs) {
        sn_fail(err, SN_E_NOMEM, "ray index: out of memory");
        return NULL;
    }
    rs->threads = threads < 1 ? 1 : threads > RS_MAX_TASKS ? RS_MAX_TASKS : threads;
    rs->alpha = 1.0;
    /* Embree builds on one thread: tracing runs on our own pool, which its build threads
    ** would otherwise compete with (and one builder keeps every BVH the same run to run). */
    rs->dev = rtcNewDevice("threads=1,verbose=0");
    if (!rs->dev) {
        sn_fail(err, SN_E_NOMEM, "ray index: Embree could not start (error %d)", (int)rtcGetDeviceError(NULL));
        free(rs);
        return NULL;
    }
    rtcSetDeviceErrorFunction(rs->dev, on_embree_error, rs);
    rs->pool = sn_pool_create(rs->threads);
    /* One scene of two triangle geometries (static: geomID 0, moving: 1). A dynamic scene of low
    ** build quality is Embree's two-level builder: each geometry has a BVH of its own, rebuilt
    ** only when that geometry was committed (the static one at its build quality, high), and
    ** a top level that opens and merges their upper nodes, so rays traverse one tree. */
    rs->top = new_scene(rs->dev, RTC_BUILD_QUALITY_LOW, true);
    rs->scene = rs->top;
    if (rs->top)
        rtcCommitScene(rs->top);
    if (!rs->pool || !rs->top || rs->emb_err[0]) {
        sn_fail(err, SN_E_NOMEM, "ray index: cannot set up Embree scenes%s%s", rs->emb_err[0] ? ": " : "",
                rs->emb_err);
        sn_rayscene_destroy(rs);
        return NULL;
    }
    return rs;
}

void sn_rayscene_destroy(sn_rayscene *rs)
{
    if (!rs)
        return;
    sn_pool_destroy(rs->pool);
    if (rs->dyn)
        rtcReleaseGeometry(rs->dyn);
    if (rs->one)
        rtcReleaseScene(rs->one), rtcReleaseGeometry(rs->one_geom);
    if (rs->top)
        rtcReleaseScene(rs->top);
    if (rs->bounds)
        rtcReleaseScene(rs->bounds);
    if (rs->dev)
        rtcReleaseDevice(rs->dev);
    for (int i = 0; i < RS_MAX_TASKS; i++)
        free(rs->scratch[i].recs), free(rs->scratch[i].hits);
    free(rs->sact);
    free(rs->dact);
    free(rs->stat_prim);
    free(rs->stat_first);
    free(rs->stat_tri);
    free(rs->mov_tri);
    free(rs->stat_wv);
    free(rs->dyn_shapes);
    free(rs->dyn_prim);
    free(rs->dyn_first);
    free(rs->planes);
    free(rs->road_meshes);
    free(rs->model_meshes);
    free(rs->model_v);
    free(rs->stamp);
    for (int i = 0; i < RS_CULLS; i++)
        free(rs->cull[i].tops);
    free(rs->cull_boxes.box), free(rs->cull_boxes.kind), free(rs->cull_boxes.tag), free(rs->cull_boxes.sel);
    free(rs->need);
    free(rs);
}

int sn_rayscene_threads(const sn_rayscene *rs) { return rs->threads; }
void sn_rayscene_set_one_by_one(sn_rayscene *rs, bool on) { rs->one_by_one = on; }
void sn_rayscene_set_cull(sn_rayscene *rs, bool on) { rs->no_cull = !on; }
void sn_rayscene_set_one_tree(sn_rayscene *rs, bool on) { rs->no_one = !on; }
bool sn_rayscene_one_tree(const sn_rayscene *rs) { return rs->scene != rs->top; }

void sn_rayscene_counts(const sn_rayscene *rs, uint64_t *settled, uint64_t *index_updates)
{
    *settled = rs->settled, *index_updates = rs->index_updates;
}

static bool has_mesh(const sn_actor *a)
{
    return a->kind != SN_ACTOR_SENSOR && (a->shape == SN_SHAPE_BOX || a->shape == SN_SHAPE_SPHERE ||
                                          a->shape == SN_SHAPE_CYLINDER);
}

/* Room for n actors in *p, 64-byte aligned (rs_actor's lines; realloc gives 16), kept in order;
** false when out of memory. */
static bool grow_actors(rs_actor **p, size_t *cap, size_t n)
{
    if (n <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    void *q = NULL;
    if (c > SIZE_MAX / sizeof **p || posix_memalign(&q, 64, c * sizeof **p))
        return false;
    if (*cap)
        memcpy(q, *p, *cap * sizeof **p);
    free(*p);
    *p = q, *cap = c;
    return true;
}

/* Free-standing statics never move: they go into the static scene, built once. */
static bool is_static(const sn_actor *a) { return a->kind == SN_ACTOR_STATIC && !a->parent && !a->ph->body; }

/* Actor a posed at alpha; a model's mesh (r->model) is left for the caller to pose. */
static void fill_actor(const sn_world *w, const sn_actor *a, double alpha, rs_actor *r)
{
    sn_vec3 pos;
    sn_quat q;
    sn_actor_pose_at(w, a, alpha, &pos, &q);
    r->origin = pos;
    r->vel = a->st.vel;
    r->omega = a->st.ang_vel;
    r->id = a->id;
    r->parent = a->parent;
    r->tag = a->tag;
    r->refl = rs_refl(a);
    r->kind = (uint8_t)a->kind;
    r->model = (uint8_t)sn_model_of(w, a);
    r->mesh = r->model ? NULL : sn_mesh_get(a->shape);
    r->R = sn_mat3_from_quat(q);
    r->centre = sn_v3_add(pos, sn_mat3_apply(&r->R, a->ph->bbox.location));
    r->ext = r->model ? sn_v3(1, 1, 1) : a->ph->bbox.extent;
    r->half = a->ph->bbox.extent;
    r->open = false;
    r->still = rs_still(r);
    r->wv = NULL;
    /* box of the oriented box (it holds every unit mesh and model), a hair wider for float rounding */
    const double *m = r->R.m;
    const sn_vec3 x = a->ph->bbox.extent;
    double e[3] = {x.x, x.y, x.z}, c[3] = {r->centre.x, r->centre.y, r->centre.z};
    for (int i = 0; i < 3; i++) {
        double h = fabs(m[3 * i]) * e[0] + fabs(m[3 * i + 1]) * e[1] + fabs(m[3 * i + 2]) * e[2];
        h += 1e-6 * (h + fabs(c[i]));
        r->lo[i] = c[i] - h;
        r->hi[i] = c[i] + h;
    }
}

/* The world-space vertices of actors[0..n) into vb (float3, n_v of them), and with wv (room for
** n_v) in double precision too, each actor's wv pointing at its own. */
static void write_vertices(rs_actor *actors, size_t n, float *vb, double (*wv)[3])
{
    size_t vi = 0;
    for (size_t k = 0; k < n; k++) {
        rs_actor *a = &actors[k];
        const sn_mesh *m = a->mesh;
        if (wv)
            a->wv = (const double(*)[3])(wv + vi);
        for (uint32_t j = 0; j < m->n_v; j++, vi++) {
            sn_vec3 p = rs_world_vertex(a, m->v[j]);
            vb[3 * vi] = (float)p.x, vb[3 * vi + 1] = (float)p.y, vb[3 * vi + 2] = (float)p.z;
            if (wv)
                wv[vi][0] = p.x, wv[vi][1] = p.y, wv[vi][2] = p.z;
        }
    }
}

/* A triangle geometry of actors[0..n) with its index buffer and primID -> actor maps; with wv,
** its vertices in double precision kept there (grown as needed). */
static RTCGeometry mesh_geometry(sn_rayscene *rs, rs_actor *actors, size_t n, uint32_t **prim, size_t *cap_prim,
                                 uint32_t **first, size_t *cap_first, double (**wv)[3], size_t *cap_wv,
                                 enum RTCBuildQuality q)
{
    size_t n_t = 0, n_v = 0;
    for (size_t k = 0; k < n; k++)
        n_t += actors[k].mesh->n_t, n_v += actors[k].mesh->n_v;
    if (!sn_grow((void **)prim, cap_prim, n_t + 1, sizeof **prim) ||
        !sn_grow((void **)first, cap_first, n + 1, sizeof **first) ||
        (wv && !sn_grow((void **)wv, cap_wv, n_v + 1, sizeof **wv)))
        return NULL;
    RTCGeometry g = new_triangles(rs->dev, NULL, n_v, NULL, n_t);
    if (!g)
        return NULL;
    rtcSetGeometryBuildQuality(g, q);
    uint32_t *ib = rtcGetGeometryBufferData(g, RTC_BUFFER_TYPE_INDEX, 0);
    size_t vi = 0, ti = 0;
    for (size_t k = 0; k < n; k++) {
        const sn_mesh *m = actors[k].mesh;
        (*first)[k] = (uint32_t)ti;
        for (uint32_t j = 0; j < m->n_t; j++, ti++) {
            for (int c = 0; c < 3; c++)
                ib[3 * ti + c] = (uint32_t)vi + m->t[j][c];
            (*prim)[ti] = (uint32_t)k;
        }
        vi += m->n_v;
    }
    write_vertices(actors, n, rtcGetGeometryBufferData(g, RTC_BUFFER_TYPE_VERTEX, 0), wv ? *wv : NULL);
    return g;
}

/* The map's roads after the static actors, one static "actor" of id 0 per chunk: its
** triangles in world coordinates under an identity pose, its tag, its box. Returns true when
** out of memory. */
static bool add_roads(sn_rayscene *rs, const sn_world *w)
{
    const sn_road_mesh *m = w->roads;
    if (!m || !m->n_chunks)
        return false;
    if (!sn_grow((void **)&rs->road_meshes, &rs->cap_road_meshes, m->n_chunks, sizeof *rs->road_meshes) ||
        !grow_actors(&rs->sact, &rs->cap_sact, rs->n_sact + m->n_chunks))
        return true;
    for (uint32_t i = 0; i < m->n_chunks; i++) {
        const sn_road_chunk *k = &m->chunks[i];
        sn_mesh *mesh = &rs->road_meshes[i];
        memset(mesh, 0, sizeof *mesh);
        mesh->v = (const float(*)[3])m->vf + k->v_first;
        mesh->t = (const uint32_t(*)[3])m->t + k->first;
        mesh->n_v = k->v_count;
        mesh->n_t = k->count;
        rs_actor *r = &rs->sact[rs->n_sact++];
        memset(r, 0, sizeof *r);
        r->id = k->instance; /* 0: the map's roads; scenery's own ids (scenery/scenery.h) */
        r->tag = k->tag;
        r->refl = sn_tag_reflectivity(k->tag);
        r->kind = SN_ACTOR_STATIC;
        r->mesh = mesh;
        r->R = (sn_mat3){{1, 0, 0, 0, 1, 0, 0, 0, 1}};
        r->ext = sn_v3(1, 1, 1);
        r->open = true; /* scenery's closed shapes too: their chunks are not all closed (windows, rails) */
        r->still = rs_still(r); /* true: at the origin, no velocity (the memset) */
        for (int d = 0; d < 3; d++) { /* a hair wider: the vertices are the box's, rounded to float */
            r->lo[d] = k->lo[d] - 1e-5 * (1 + fabs(k->lo[d]));
            r->hi[d] = k->hi[d] + 1e-5 * (1 + fabs(k->hi[d]));
        }
    }
    return false;
}

/* rs->stat_tri for the static geometry just built; without room, none (hits then read the
** actors' vertices as before: the same bits). */
static void build_stri(sn_rayscene *rs)
{
    size_t n_t = 0;
    for (size_t k = 0; k < rs->n_sact; k++)
        n_t += rs->sact[k].mesh->n_t;
    if (n_t > rs->cap_stat_tri) {
        free(rs->stat_tri);
        rs->stat_tri = NULL, rs->cap_stat_tri = 0;
        void *p = NULL;
        if (n_t > SIZE_MAX / sizeof *rs->stat_tri || posix_memalign(&p, 64, n_t * sizeof *rs->stat_tri))
            return;
        rs->stat_tri = p, rs->cap_stat_tri = n_t;
    }
    if (!rs->stat_tri)
        return;
    rs_stri *s = rs->stat_tri;
    for (size_t k = 0; k < rs->n_sact; k++) {
        const rs_actor *a = &rs->sact[k];
        for (uint32_t j = 0; j < a->mesh->n_t; j++, s++) {
            sn_vec3 p0, n;
            rs_tri_plane(a, j, &p0, &n);
            *s = (rs_stri){{p0.x, p0.y, p0.z}, {n.x, n.y, n.z}, (uint32_t)k, j, rs_tri_inv(n)};
        }
    }
}

/* The one tree gone (its triangles are no longer the index's, or it is built afresh): batches
** walk top until rs_trace_scene builds it again. */
static void drop_one(sn_rayscene *rs)
{
    if (rs->one)
        rtcReleaseScene(rs->one), rtcReleaseGeometry(rs->one_geom);
    rs->one = NULL, rs->one_geom = NULL;
    rs->scene = rs->top;
}

static sn_status build_static(sn_rayscene *rs, const sn_world *w, sn_error *err)
{
    if (rs->static_gen >> 32 != w->static_gen >> 32) /* another world (sn_world_init): its moving index too */
        rs->built = rs->has_boxes = false;
    drop_one(rs);
    rs->n_sact = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (!has_mesh(a) || !is_static(a))
            continue;
        if (!grow_actors(&rs->sact, &rs->cap_sact, rs->n_sact + 1))
            return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for %zu static actors", rs->n_sact + 1);
        fill_actor(w, a, 1.0, &rs->sact[rs->n_sact++]);
    }
    if (add_roads(rs, w))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the map's roads");
    if (rs->has_stat)
        rtcDetachGeometry(rs->top, 0);
    rs->has_stat = false;
    rs->n_stat_t = rs->n_stat_v = 0;
    for (size_t k = 0; k < rs->n_sact; k++)
        rs->n_stat_t += rs->sact[k].mesh->n_t, rs->n_stat_v += rs->sact[k].mesh->n_v;
    if (rs->n_sact) {
        RTCGeometry g = mesh_geometry(rs, rs->sact, rs->n_sact, &rs->stat_prim, &rs->cap_stat_prim, &rs->stat_first,
                                      &rs->cap_stat_first, &rs->stat_wv, &rs->cap_stat_wv, RTC_BUILD_QUALITY_HIGH);
        if (!g)
            return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for %zu static actors%s%s", rs->n_sact,
                           rs->emb_err[0] ? ": " : "", rs->emb_err);
        rtcCommitGeometry(g);
        rtcAttachGeometryByID(rs->top, g, 0);
        rtcReleaseGeometry(g);
        rs->has_stat = true;
        build_stri(rs);
    }
    rs->static_gen = w->static_gen;
    rs->stat_world = w;
    return embree_check(rs, "static geometry", err);
}

/* The moving actors' BVH: an SAH build (Embree's refit builder builds with SAH the first
** time), then refitted to the new poses on later frames while the same shapes move, and built
** afresh every DYN_REFITS frames so that its boxes do not loosen as actors drift apart. An SAH
** build costs about 1.8x Embree's Morton build but rays walk it in 0.56x (bench_rays), and a
** refit costs a small part of either: at 1 000 moving cars a rebuild each frame took 4-5 ms,
** most of a V2X frame's ray work. Closest and all hits do not depend on the tree, only the
** time does (SN_RAY_ANY reports no hit for that reason). The count is of queried frames.
** A build is worth its cost only when enough rays walk the tree it makes: after DYN_REFITS
** refits the tree is built afresh once Embree has been handed as many rays since the last
** build as the moving geometry has triangles, and after DYN_REFITS_MAX refits in any case.
** A lidar among 100 cars (100 000 rays a frame) rebuilds every 17 frames as before; V2X among
** 1 000 moving cars (a million triangles, some 20 000 rays a tick) no longer spends a 140 ms
** build every 17 ticks, half of its medium's CPU time. */
#define DYN_QUALITY RTC_BUILD_QUALITY_REFIT
#define DYN_REFITS 16
#define DYN_REFITS_MAX 256

/* What must stay the same for the moving geometry's triangles to stay the same. */
static uint8_t dyn_key(const sn_world *w, const sn_actor *a)
{
    return (uint8_t)(a->shape | sn_model_of(w, a) << 3);
}

/* A model's vertices posed for actor a at alpha into rs->model_v from *used on, and r's mesh
** pointing at them. The caller grew model_v and model_meshes for every model of the world. */
static void pose_model(sn_rayscene *rs, const sn_actor *a, double alpha, rs_actor *r, size_t *used, size_t k)
{
    const sn_mesh *topo = sn_model_mesh((sn_model)r->model);
    sn_mesh *m = &rs->model_meshes[k];
    *m = *topo;
    m->v = (const float(*)[3])(rs->model_v + *used);
    sn_model_state s;
    sn_model_state_of(a, alpha, &s);
    sn_model_pose((sn_model)r->model, &s, rs->model_v + *used);
    *used += topo->n_v;
    r->mesh = m;
}

/* Room for every model of the world's moving actors: false when out of memory. */
static bool reserve_models(sn_rayscene *rs, const sn_world *w)
{
    size_t n = 0, n_v = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        sn_model md = w->actors[i]->kind == SN_ACTOR_SENSOR ? SN_MODEL_NONE : sn_model_of(w, w->actors[i]);
        if (md)
            n++, n_v += sn_model_mesh(md)->n_v;
    }
    return sn_grow((void **)&rs->model_meshes, &rs->cap_model_meshes, n + 1, sizeof *rs->model_meshes) &&
           sn_grow((void **)&rs->model_v, &rs->cap_model_v, n_v + 1, sizeof *rs->model_v);
}

/* The world's ground planes into rs->planes; false when out of memory. */
static bool collect_planes(sn_rayscene *rs, const sn_world *w)
{
    rs->n_planes = 0;
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind == SN_ACTOR_SENSOR || a->shape != SN_SHAPE_PLANE)
            continue;
        double l = sn_v3_len(a->ph->plane_normal);
        if (!(l > 0))
            continue;
        if (!sn_grow((void **)&rs->planes, &rs->cap_planes, rs->n_planes + 1, sizeof *rs->planes))
            return false;
        rs->planes[rs->n_planes++] = (rs_plane){a->id, a->parent, a->tag, (uint8_t)a->kind,
                                                sn_v3_scale(a->ph->plane_normal, 1 / l), a->ph->plane_offset / l,
                                                a->st.pos, a->st.vel, a->st.ang_vel, rs_refl(a)};
    }
    return true;
}

/* The moving actors and planes at alpha; with `boxes`, vehicles and walkers as their collision
** boxes and no Embree geometry (sweeps and overlaps need only that: rs_sync_boxes). */
static sn_status build_dynamic(sn_rayscene *rs, const sn_world *w, double alpha, bool boxes, sn_error *err)
{
    rs->n_dact = 0;
    rs->mov_ok = false; /* dact changes */
    bool same = true; /* the same shapes in the same order: keep the buffers */
    size_t used_v = 0, n_models = 0;
    if (!boxes && !reserve_models(rs, w))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the vehicles' and walkers' meshes");
    if (!collect_planes(rs, w))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory");
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (a->kind != SN_ACTOR_SENSOR && a->shape == SN_SHAPE_PLANE)
            continue;
        if (!has_mesh(a) || is_static(a))
            continue;
        if (!grow_actors(&rs->dact, &rs->cap_dact, rs->n_dact + 1))
            return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for %zu actors", rs->n_dact + 1);
        same = same && rs->n_dact < rs->n_dyn_shapes && rs->dyn_shapes[rs->n_dact] == dyn_key(w, a);
        rs_actor *r = &rs->dact[rs->n_dact++];
        fill_actor(w, a, alpha, r);
        if (r->model && boxes)
            rs_collision_box(r, r);
        else if (r->model)
            pose_model(rs, a, alpha, r, &used_v, n_models++);
    }
    if (boxes)
        return SN_OK;
    rs->index_updates++;
    rs->upd_rays = 0;
    if (!(same && rs->dyn && rs->n_dact == rs->n_dyn_shapes))
        drop_one(rs); /* other shapes: other triangles */
    same = same && rs->dyn && rs->n_dact == rs->n_dyn_shapes &&
           (rs->dyn_refits < DYN_REFITS || (rs->dyn_rays < rs->dyn_tris && rs->dyn_refits < DYN_REFITS_MAX));
    if (same) {
        rs->dyn_refits++; /* new vertices, same triangles */
        write_vertices(rs->dact, rs->n_dact, rtcGetGeometryBufferData(rs->dyn, RTC_BUFFER_TYPE_VERTEX, 0), NULL);
        rtcUpdateGeometryBuffer(rs->dyn, RTC_BUFFER_TYPE_VERTEX, 0);
        rtcCommitGeometry(rs->dyn);
    } else {
        if (rs->dyn) {
            rtcDetachGeometry(rs->top, 1);
            rtcReleaseGeometry(rs->dyn);
            rs->dyn = NULL;
        }
        rs->n_dyn_shapes = 0;
        rs->dyn_refits = 0;
        rs->dyn_rays = rs->dyn_tris = 0;
        for (size_t k = 0; k < rs->n_dact; k++)
            rs->dyn_tris += rs->dact[k].mesh->n_t;
        if (rs->n_dact) {
            if (!sn_grow((void **)&rs->dyn_shapes, &rs->cap_dyn_shapes, rs->n_dact, 1) ||
                !(rs->dyn = mesh_geometry(rs, rs->dact, rs->n_dact, &rs->dyn_prim, &rs->cap_dyn_prim, &rs->dyn_first,
                                          &rs->cap_dyn_first, NULL, NULL, DYN_QUALITY)))
                return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for %zu moving actors%s%s", rs->n_dact,
                               rs->emb_err[0] ? ": " : "", rs->emb_err);
            for (size_t i = 0, k = 0; i < w->n_actors; i++)
                if (has_mesh(w->actors[i]) && !is_static(w->actors[i]))
                    rs->dyn_shapes[k++] = dyn_key(w, w->actors[i]);
            rs->n_dyn_shapes = rs->n_dact;
            rtcCommitGeometry(rs->dyn);
            rtcAttachGeometryByID(rs->top, rs->dyn, 1);
        }
    }
    rtcCommitScene(rs->top); /* rebuilds the BVH of geometry 1, and 0 only when build_static changed it */
    return embree_check(rs, "scene", err);
}

/* The one tree (rs_trace_scene). Two trees that both cover the street, the static actors' and
** the moving ones', make every ray walk both: at 10 000 objects in bench_rays Embree took
** 155-166 ns a random ray on them against 134-136 on one tree of the same triangles (rays37,
** docs/performance.md). Its costs, at 10 000 objects (120 000 triangles): a build of every
** triangle, 40 ms (330 ns a triangle, where the moving geometry's alone is a quarter of it),
** a refit of every triangle each time the moving actors move, 3.9 ms (32 ns a triangle,
** against the 26 ns a ray it saves), and the memory of a second copy. So it is used only
** - where the moving triangles are no more than the static ones (else the moving tree is most
**   of the one tree and the copy buys little: V2X among 1 000 cars),
** - for at most ONE_MAX_TRIS triangles (its build time and memory),
** - built once the index as it is (no actor moved) has served 3/2 as many rays as it has
**   triangles, and not again before ONE_REBUILD times as many rays as the last build had
**   triangles went by (a world whose shapes change every frame pays a build at most that
**   often). The last build's count, not today's: after a small world's tree (a thousand
**   boxes) a new world ten times its size waited for 16 times its own triangles, and
**   bench_rays' 2-thread index walked the two trees at 10 000 objects (1.29x Embree direct
**   against 0.99 at 1 thread, whose index happened to have seen more rays: rays39),
** - and refitted to a frame's poses only once that frame has brought ONE_FIT times as many
**   rays as it has triangles: a lidar of 100 000 rays among 10 000 moving objects walks top
**   every frame, as before; a world that holds still (or a frame of a million rays) walks one.
** With it come the moving triangles' records (build_mtri), so that a hit on a moving actor
** reads one cache line as a static one does (finishing a random ray among 10 000 objects: 33-40
** -> 19 ns). Hits are the same on either tree: the same triangles (float vertices made by the
** same expressions) under Embree's watertight test, whatever the tree; bench_rays' hashes. */
#define ONE_MAX_TRIS (1u << 18)
#define ONE_FIT 3
#define ONE_REBUILD 16

/* The one tree of the index as it is (static actors, then moving ones: top's primIDs in turn);
** false when Embree could not have it. */
static bool one_build(sn_rayscene *rs)
{
    size_t n_v = rs->n_stat_v, n_t = rs->n_stat_t;
    for (size_t k = 0; k < rs->n_dact; k++)
        n_v += rs->dact[k].mesh->n_v, n_t += rs->dact[k].mesh->n_t;
    RTCScene s = new_scene(rs->dev, RTC_BUILD_QUALITY_LOW, true);
    RTCGeometry g = s ? new_triangles(rs->dev, NULL, n_v, NULL, n_t) : NULL;
    if (!g) {
        if (s)
            rtcReleaseScene(s);
        return false;
    }
    rtcSetGeometryBuildQuality(g, RTC_BUILD_QUALITY_REFIT);
    uint32_t *ib = rtcGetGeometryBufferData(g, RTC_BUFFER_TYPE_INDEX, 0);
    float *vb = rtcGetGeometryBufferData(g, RTC_BUFFER_TYPE_VERTEX, 0);
    size_t vi = 0, ti = 0;
    for (int set = 0; set < 2; set++) { /* static actors, then moving ones: top's primIDs in turn */
        const rs_actor *as = set ? rs->dact : rs->sact;
        size_t n = set ? rs->n_dact : rs->n_sact;
        for (size_t k = 0; k < n; k++) {
            const sn_mesh *m = as[k].mesh;
            for (uint32_t j = 0; j < m->n_t; j++, ti++)
                for (int c = 0; c < 3; c++)
                    ib[3 * ti + c] = (uint32_t)vi + m->t[j][c];
            vi += m->n_v;
        }
    }
    write_vertices(rs->sact, rs->n_sact, vb, NULL);
    write_vertices(rs->dact, rs->n_dact, vb + 3 * (size_t)rs->n_stat_v, NULL);
    rtcCommitGeometry(g);
    rtcAttachGeometryByID(s, g, 0);
    rtcCommitScene(s);
    rs->one = s, rs->one_geom = g;
    rs->one_fit = rs->index_updates, rs->one_refits = 0;
    rs->one_built = true, rs->since_one = 0, rs->one_tris = n_t;
    return !rs->emb_err[0];
}

/* rs->mov_tri for the moving actors as they are (rs_tri_plane's bits, as a hit's refinement
** makes them): a hit on a moving triangle read dyn_prim, the actor, its mesh's indices and
** three vertices under its pose. Without room, none (the hits read them as before). */
static void build_mtri(sn_rayscene *rs)
{
    size_t n_t = rs->dyn_tris;
    rs->mov_ok = false;
    if (n_t > rs->cap_mov_tri) {
        free(rs->mov_tri);
        rs->mov_tri = NULL, rs->cap_mov_tri = 0;
        void *p = NULL;
        if (n_t > SIZE_MAX / sizeof *rs->mov_tri || posix_memalign(&p, 64, n_t * sizeof *rs->mov_tri))
            return;
        rs->mov_tri = p, rs->cap_mov_tri = n_t;
    }
    rs_stri *s = rs->mov_tri;
    for (size_t k = 0; k < rs->n_dact; k++) {
        const rs_actor *a = &rs->dact[k];
        for (uint32_t j = 0; j < a->mesh->n_t; j++, s++) {
            sn_vec3 p0, n;
            rs_tri_plane(a, j, &p0, &n);
            *s = (rs_stri){{p0.x, p0.y, p0.z}, {n.x, n.y, n.z}, (uint32_t)k, j, rs_tri_inv(n)};
        }
    }
    rs->mov_ok = true;
}

/* The moving actors' new vertices into the one tree, refitted. */
static void one_refit(sn_rayscene *rs)
{
    float *vb = rtcGetGeometryBufferData(rs->one_geom, RTC_BUFFER_TYPE_VERTEX, 0);
    write_vertices(rs->dact, rs->n_dact, vb + 3 * (size_t)rs->n_stat_v, NULL);
    rtcUpdateGeometryBuffer(rs->one_geom, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(rs->one_geom);
    rtcCommitScene(rs->one);
    rs->one_fit = rs->index_updates, rs->one_refits++;
}

RTCScene rs_trace_scene(sn_rayscene *rs, uint32_t n)
{
    uint64_t S = rs->n_stat_t, D = rs->dyn_tris, T = S + D;
    rs->upd_rays += n, rs->since_one += n;
    rs->scene = rs->top;
    if (rs->no_one || !(rs->built && rs->has_stat && rs->dyn && D <= S && T <= ONE_MAX_TRIS))
        return rs->scene;
    bool due = rs->one && rs->one_fit != rs->index_updates; /* the moving actors moved since */
    if (due && rs->upd_rays < ONE_FIT * T)
        return rs->scene; /* this frame's rays do not pay for the refit (yet) */
    if (due && rs->one_refits >= DYN_REFITS && (rs->since_one >= ONE_REBUILD * T || rs->one_refits >= DYN_REFITS_MAX))
        drop_one(rs); /* built afresh: its moving boxes have loosened */
    if (!rs->one) {
        if (2 * rs->upd_rays < 3 * T || (rs->one_built && rs->since_one < ONE_REBUILD * rs->one_tris))
            return rs->scene;
        one_build(rs);
    } else if (due) {
        one_refit(rs);
    }
    if (!rs->mov_ok)
        build_mtri(rs);
    if (rs->emb_err[0]) { /* Embree out of memory: top serves, as before */
        rs->emb_err[0] = 0;
        drop_one(rs);
        return rs->scene;
    }
    return rs->scene = rs->one;
}

static void bounds_fn(const struct RTCBoundsFunctionArguments *args)
{
    const sn_rayscene *rs = args->geometryUserPtr;
    const rs_actor *a = rs_ref_actor(rs, args->primID);
    struct RTCBounds *b = args->bounds_o;
    /* float boxes that still hold the double ones */
    b->lower_x = nextafterf((float)a->lo[0], -FLT_MAX), b->upper_x = nextafterf((float)a->hi[0], FLT_MAX);
    b->lower_y = nextafterf((float)a->lo[1], -FLT_MAX), b->upper_y = nextafterf((float)a->hi[1], FLT_MAX);
    b->lower_z = nextafterf((float)a->lo[2], -FLT_MAX), b->upper_z = nextafterf((float)a->hi[2], FLT_MAX);
}

static void no_intersect(const struct RTCIntersectFunctionNArguments *args) { (void)args; }
static void no_occluded(const struct RTCOccludedFunctionNArguments *args) { (void)args; }

/* The boxes of every actor, for point queries (sweeps, overlaps); built only when asked. */
static sn_status build_bounds(sn_rayscene *rs, sn_error *err)
{
    RTCScene s = new_scene(rs->dev, RTC_BUILD_QUALITY_LOW, false);
    if (!s)
        return sn_fail(err, SN_E_NOMEM, "ray index: no bounds scene");
    uint32_t n = rs_n_refs(rs);
    if (n) {
        RTCGeometry g = rtcNewGeometry(rs->dev, RTC_GEOMETRY_TYPE_USER);
        if (!g) {
            rtcReleaseScene(s);
            return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the bounds of %u actors", n);
        }
        rtcSetGeometryUserPrimitiveCount(g, n);
        rtcSetGeometryUserData(g, rs);
        rtcSetGeometryBoundsFunction(g, bounds_fn, rs);
        rtcSetGeometryIntersectFunction(g, no_intersect); /* never traced by rays */
        rtcSetGeometryOccludedFunction(g, no_occluded);
        rtcCommitGeometry(g);
        rtcAttachGeometry(s, g);
        rtcReleaseGeometry(g);
    }
    rtcCommitScene(s);
    if (rs->bounds)
        rtcReleaseScene(rs->bounds);
    rs->bounds = s;
    if (!sn_grow((void **)&rs->stamp, &rs->cap_stamp, n + 1, sizeof *rs->stamp))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory");
    memset(rs->stamp, 0, (n + 1) * sizeof *rs->stamp);
    rs->stamp_now = 0;
    rs->bounds_built = true;
    rs->bounds_gen = rs->gen;
    return embree_check(rs, "bounds", err);
}

sn_status rs_sync(sn_rayscene *rs, const sn_world *w, bool bounds, sn_error *err)
{
    return rs_sync_at(rs, w, 1.0, bounds, err);
}

bool rs_index_current(const sn_rayscene *rs, const sn_world *w, double alpha)
{
    /* static_gen too: a reset's new world lies at the old one's address and counts gen from 0
    ** again, and static_gen is the one that no other world had (sn_world_init) */
    return rs->world == w && rs->built && rs->gen == w->gen && rs->alpha == alpha && rs->stat_world == w &&
           rs->static_gen == w->static_gen;
}

/* Every shaped actor's box at alpha, with its kind and tag, into rs->cull_boxes. */
static sn_status gather_boxes(sn_rayscene *rs, const sn_world *w, double alpha, sn_error *err)
{
    rs_cull_boxes *b = &rs->cull_boxes;
    b->valid = false;
    sn_status st;
    if ((rs->stat_world != w || rs->static_gen != w->static_gen) && (st = rs_sync_static(rs, w, err)))
        return st; /* committed there: a trace after this one must not meet a scene changed and not committed */
    size_t n = 0;
    for (size_t i = 0; i < w->n_actors; i++)
        n += has_mesh(w->actors[i]) && !is_static(w->actors[i]);
    n += rs->n_sact;
    if (!collect_planes(rs, w) || !sn_grow((void **)&b->box, &b->cap, n + 1, sizeof *b->box) ||
        !sn_grow((void **)&b->kind, &b->cap_kind, n + 1, 1) || !sn_grow((void **)&b->tag, &b->cap_tag, n + 1, 1))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the boxes of %zu actors", n);
    size_t k = 0;
    for (size_t i = 0; i < rs->n_sact; i++, k++) {
        const rs_actor *a = &rs->sact[i];
        memcpy(b->box[k], a->lo, 3 * sizeof(double)), memcpy(b->box[k] + 3, a->hi, 3 * sizeof(double));
        b->kind[k] = a->kind, b->tag[k] = a->tag;
    }
    for (size_t i = 0; i < w->n_actors; i++) {
        const sn_actor *a = w->actors[i];
        if (!has_mesh(a) || is_static(a))
            continue;
        rs_actor r; /* its box holds its mesh or model (fill_actor) */
        fill_actor(w, a, alpha, &r);
        memcpy(b->box[k], r.lo, 3 * sizeof(double)), memcpy(b->box[k] + 3, r.hi, 3 * sizeof(double));
        b->kind[k] = r.kind, b->tag[k] = r.tag;
        k++;
    }
    b->n = k;
    b->cell = rs_cull_cell((const double(*)[6])b->box, k);
    b->world = w, b->gen = w->gen, b->static_gen = w->static_gen, b->alpha = alpha;
    b->stamp++;
    b->valid = true;
    return SN_OK;
}

/* Whether a query of these masks can meet an actor of this kind and tag (rs_excluded's masks). */
static bool admitted(uint32_t kind_mask, uint32_t tag_mask, uint8_t kind, uint8_t tag)
{
    return (!kind_mask || (kind < 32 && ((kind_mask >> kind) & 1u))) && (!tag_mask || (tag < 32 && ((tag_mask >> tag) & 1u)));
}

rs_cull *rs_cull_of(sn_rayscene *rs, const sn_ray_query *q)
{
    uint32_t km = q->kind_mask, tm = q->tag_mask;
    /* the grid of this key, or the one least recently used */
    rs_cull *c = NULL, *old = &rs->cull[0];
    for (int i = 0; i < RS_CULLS && !c; i++) {
        rs_cull *g = &rs->cull[i];
        if (g->used && g->kind_mask == km && g->tag_mask == tm)
            c = g;
        else if (g->used < old->used)
            old = g;
    }
    if (!c) {
        c = old;
        c->kind_mask = km, c->tag_mask = tm, c->boxes_stamp = 0, c->skip = 0;
    }
    c->used = ++rs->cull_uses;
    return c;
}

sn_status rs_sync_cull(sn_rayscene *rs, const sn_world *w, double alpha, rs_cull *c, sn_error *err)
{
    rs_cull_boxes *b = &rs->cull_boxes;
    sn_status st;
    if (!(b->valid && b->world == w && b->gen == w->gen && b->static_gen == w->static_gen && b->alpha == alpha) &&
        (st = gather_boxes(rs, w, alpha, err)))
        return st;
    uint32_t km = c->kind_mask, tm = c->tag_mask;
    if (c->boxes_stamp == b->stamp)
        return SN_OK;
    c->boxes_stamp = 0;
    const double(*box)[6] = (const double(*)[6])b->box;
    size_t n = b->n;
    if (km || tm) { /* only the boxes of actors the query can meet */
        if (!sn_grow((void **)&b->sel, &b->cap_sel, n + 1, sizeof *b->sel))
            return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the boxes of %zu actors", n);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (admitted(km, tm, b->kind[i], b->tag[i]))
                memcpy(b->sel[k++], b->box[i], sizeof b->sel[0]);
        box = (const double(*)[6])b->sel, n = k;
    }
    if (!rs_cull_build(c, box, n, b->cell))
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory for the cull grid of %zu actors", n);
    c->boxes_stamp = b->stamp;
    return SN_OK;
}

sn_status rs_sync_at(sn_rayscene *rs, const sn_world *w, double alpha, bool bounds, sn_error *err)
{
    sn_status st = SN_OK;
    if (!rs_index_current(rs, w, alpha)) {
        rs->built = rs->bounds_built = rs->has_boxes = false;
        if ((rs->stat_world != w || rs->static_gen != w->static_gen) && (st = build_static(rs, w, err)))
            return st;
        if ((st = build_dynamic(rs, w, alpha, false, err)))
            return st;
        rs->world = w;
        rs->gen = w->gen;
        rs->alpha = alpha;
        rs->built = true;
    }
    if (bounds && (!rs->bounds_built || rs->bounds_gen != rs->gen))
        st = build_bounds(rs, err);
    return st;
}

/* Whether a query of these masks can meet an actor of this kind and tag (rs_excluded's masks). */
static bool admitted(uint32_t kind_mask, uint32_t tag_mask, uint8_t kind, uint8_t tag);

bool rs_moving_excluded(const sn_rayscene *rs, const sn_world *w, const sn_ray_query *q)
{
    if (!q->kind_mask && !q->tag_mask)
        return false;
    if (!(rs->built && rs->world == w && rs->stat_world == w && rs->static_gen == w->static_gen))
        return false; /* Embree's moving geometry may not be dact's (sweeps' boxes, another world) */
    for (size_t k = 0; k < rs->n_dact; k++) /* as Embree holds them */
        if (admitted(q->kind_mask, q->tag_mask, rs->dact[k].kind, rs->dact[k].tag))
            return false;
    for (size_t i = 0; i < w->n_actors; i++) { /* as they are now */
        const sn_actor *a = w->actors[i];
        if (has_mesh(a) && !is_static(a) && admitted(q->kind_mask, q->tag_mask, (uint8_t)a->kind, a->tag))
            return false;
    }
    return true;
}

sn_status rs_sync_static(sn_rayscene *rs, const sn_world *w, sn_error *err)
{
    if (!collect_planes(rs, w)) /* the planes as now: they are tested beside Embree */
        return sn_fail(err, SN_E_NOMEM, "ray index: out of memory");
    if (rs->stat_world == w && rs->static_gen == w->static_gen)
        return SN_OK;
    sn_status st = build_static(rs, w, err);
    if (st)
        return st;
    rtcCommitScene(rs->top); /* geometry 0 anew; geometry 1 as it was */
    return embree_check(rs, "scene", err);
}

sn_status rs_sync_boxes(sn_rayscene *rs, const sn_world *w, sn_error *err)
{
    if (rs_index_current(rs, w, 1.0))
        return rs_sync(rs, w, true, err); /* the full index is current: its boxes serve */
    if (!(rs->world == w && rs->boxes_gen == w->gen && rs->has_boxes && rs->stat_world == w &&
          rs->static_gen == w->static_gen)) {
        rs->built = rs->bounds_built = rs->has_boxes = false;
        sn_status st;
        if ((rs->stat_world != w || rs->static_gen != w->static_gen) && (st = build_static(rs, w, err)))
            return st;
        if ((st = build_dynamic(rs, w, 1.0, true, err)))
            return st;
        rs->world = w;
        rs->gen = rs->boxes_gen = w->gen;
        rs->alpha = 1.0;
        rs->has_boxes = true; /* built stays false: a ray query builds the models' index */
    }
    return !rs->bounds_built || rs->bounds_gen != rs->gen ? build_bounds(rs, err) : SN_OK;
}

const rs_actor *rs_collision_box(const rs_actor *a, rs_actor *tmp)
{
    if (!a->model)
        return a;
    if (tmp != a)
        *tmp = *a;
    tmp->model = 0;
    tmp->wv = NULL;
    tmp->mesh = sn_mesh_get(SN_SHAPE_BOX);
    tmp->ext = a->half;
    return tmp;
}

float *sn_rayscene_world_triangles(const sn_world *w, size_t *n_tris)
{
    size_t n = 0, k = 0, max_v = 1;
    for (size_t i = 0; i < w->n_actors; i++) {
        if (!has_mesh(w->actors[i]))
            continue;
        sn_model md = sn_model_of(w, w->actors[i]);
        const sn_mesh *m = md ? sn_model_mesh(md) : sn_mesh_get(w->actors[i]->shape);
        n += m->n_t;
        max_v = m->n_v > max_v ? m->n_v : max_v;
    }
    float *out = malloc((n ? n : 1) * 9 * sizeof *out);
    float (*mv)[3] = malloc(max_v * sizeof *mv);
    if (!out || !mv) {
        free(out), free(mv);
        return NULL;
    }
    for (size_t i = 0; i < w->n_actors; i++) {
        if (!has_mesh(w->actors[i]))
            continue;
        rs_actor a;
        sn_mesh posed;
        fill_actor(w, w->actors[i], 1.0, &a);
        if (a.model) {
            sn_model_state s;
            sn_model_state_of(w->actors[i], 1.0, &s);
            sn_model_pose((sn_model)a.model, &s, mv);
            posed = *sn_model_mesh((sn_model)a.model);
            posed.v = (const float(*)[3])mv;
            a.mesh = &posed;
        }
        for (uint32_t t = 0; t < a.mesh->n_t; t++, k++)
            for (int j = 0; j < 3; j++) {
                sn_vec3 p = rs_vertex(&a, t, j);
                out[9 * k + 3 * j] = (float)p.x, out[9 * k + 3 * j + 1] = (float)p.y, out[9 * k + 3 * j + 2] = (float)p.z;
            }
    }
    free(mv);
    *n_tris = n;
    return out;
}
