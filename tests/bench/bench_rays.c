/* Ray queries: rays per second for 100 k rays (a 64-channel lidar pattern and random
** directions) in streets of 10, 100, 1000 and 10000 boxes (a quarter of them moving actors,
** the rest static, on a ground plane), at 1 and 2 threads. Beside, in the same run and on the
** same rays: Embree tracing the same triangles directly (one flat scene, no filters, no
** double-precision refinement: the baseline of the ratio; the same with Embree's robust flag,
** which the index needs for watertight edges, printed beside; and, at 1 thread, a split of
** sensim's time: Embree alone on the index's own scene, the rest its finishing), and the old path, one ODE ray cast
** at a time (fewer rays where it is slow). Also the per-frame rebuild of the index, and compact
** batches (sn_ray_compact: the distance alone, the distance and actor) against Embree direct
** writing the same fields, each run alternated with its baseline.
** `bench_rays N`: only the scene of N objects, without the ODE path (for callgrind/perf);
** RANDOM_ONLY=1: only the random rays; ODE_ONLY=1: only the ODE path (with N too).
** Times are the process's CPU time (every thread's): on a shared machine the figure that does
** not grow with the load; 2 threads show what they cost together. */
#include "../../engine/core/rng.h"
#include "../../engine/query/internal.h" /* the index's own Embree scene, for the split below */
#include "../../engine/render/pool.h"

#include <embree3/rtcore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_RAYS 100000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what, const sn_error *err)
{
    fprintf(stderr, "bench_rays: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

/* Boxes at a constant density (one per 400 m^2), so a ray meets about as many at any size
** and only the index's depth grows. */
static double build_world(sn_world *w, int n_obj)
{
    sn_error err = {0};
    if (sn_world_init(w, 1, &err))
        die("world", &err);
    sn_rng g;
    sn_rng_seed(&g, (uint64_t)n_obj);
    double half = 10 * sqrt((double)n_obj);
    sn_actor *ground = sn_world_add(w, SN_ACTOR_STATIC, 0);
    ground->shape = SN_SHAPE_PLANE;
    sn_transform gt = {{0, 0, 0}, {0, 0, 0}};
    if (sn_world_materialize(w, ground, &gt, &err))
        die("ground", &err);
    for (int i = 0; i < n_obj; i++) {
        bool moving = i % 4 == 0;
        sn_actor *a = sn_world_add(w, moving ? SN_ACTOR_WALKER : SN_ACTOR_STATIC, 0);
        a->shape = SN_SHAPE_BOX;
        a->ph->bbox.extent = sn_v3(0.5 + 2 * sn_rng_uniform(&g), 0.5 + 2 * sn_rng_uniform(&g), 0.5 + 2 * sn_rng_uniform(&g));
        a->ph->mass = 80;
        sn_transform t = {{(2 * sn_rng_uniform(&g) - 1) * half, (2 * sn_rng_uniform(&g) - 1) * half, a->ph->bbox.extent.z},
                          {0, 360 * sn_rng_uniform(&g), 0}};
        if (sn_world_materialize(w, a, &t, &err))
            die("actor", &err);
    }
    return half;
}

static void make_rays(sn_ray *rays, bool lidar, double half, uint64_t seed)
{
    sn_rng g;
    sn_rng_seed(&g, seed);
    for (int i = 0; i < N_RAYS; i++) {
        sn_vec3 o, d;
        if (lidar) { /* 64 channels from -25 to +5 degrees, 1563 azimuths, at the centre */
            int ch = i % 64, az = i / 64;
            double el = (-25 + 30.0 * ch / 63) * SN_DEG, a = 2 * SN_PI * az / (N_RAYS / 64.0);
            o = sn_v3(0.3, 0.2, 1.8);
            d = sn_v3(cos(el) * cos(a), cos(el) * sin(a), sin(el));
        } else {
            o = sn_v3((2 * sn_rng_uniform(&g) - 1) * half, (2 * sn_rng_uniform(&g) - 1) * half, 1 + 3 * sn_rng_uniform(&g));
            double z = 2 * sn_rng_uniform(&g) - 1, a = 2 * SN_PI * sn_rng_uniform(&g), r = sqrt(1 - z * z);
            d = sn_v3(r * cos(a), r * sin(a), z);
        }
        rays[i] = (sn_ray){o, d, 100};
    }
}

/* ---- the baseline: the same triangles in one flat Embree scene, traced directly ---------- */

/* One ray as an Embree user hands it over: floats, a unit direction, no filter. */
static inline void direct_hit(RTCScene scene, struct RTCIntersectContext *ctx, const sn_ray *r, struct RTCRayHit *rh)
{
    double l = sn_v3_len(r->direction);
    rh->ray.org_x = (float)r->origin.x, rh->ray.org_y = (float)r->origin.y, rh->ray.org_z = (float)r->origin.z;
    rh->ray.dir_x = (float)(r->direction.x / l), rh->ray.dir_y = (float)(r->direction.y / l);
    rh->ray.dir_z = (float)(r->direction.z / l);
    rh->ray.tnear = 0, rh->ray.time = 0, rh->ray.tfar = (float)r->max_distance;
    rh->ray.mask = ~0u, rh->ray.id = 0, rh->ray.flags = 0;
    rh->hit.geomID = rh->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
    rtcIntersect1(scene, ctx, rh);
}

typedef struct direct {
    RTCScene scene;
    const sn_ray *rays;
    float *t;
    uint32_t per_task;
} direct;

static void direct_task(void *arg, uint32_t task)
{
    direct *b = arg;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (uint32_t i = task * b->per_task; i < (task + 1) * b->per_task && i < N_RAYS; i++) {
        struct RTCRayHit rh;
        direct_hit(b->scene, &ctx, &b->rays[i], &rh);
        b->t[i] = rh.hit.geomID == RTC_INVALID_GEOMETRY_ID ? -1 : rh.ray.tfar;
    }
}

/* The baseline of the compact batch's distance and actor (sn_ray_compact): Embree direct writing
** its float distance and which object it hit, by a primitive-to-object table (one uint32 per
** triangle), as an Embree user who wants the object does. */
typedef struct direct_id {
    RTCScene scene;
    const sn_ray *rays;
    float *t;
    uint32_t *id;
    const uint32_t *prim_obj;
    uint32_t per_task;
} direct_id;

static void direct_id_task(void *arg, uint32_t task)
{
    direct_id *b = arg;
    struct RTCIntersectContext ctx;
    rtcInitIntersectContext(&ctx);
    for (uint32_t i = task * b->per_task; i < (task + 1) * b->per_task && i < N_RAYS; i++) {
        struct RTCRayHit rh;
        direct_hit(b->scene, &ctx, &b->rays[i], &rh);
        bool hit = rh.hit.geomID != RTC_INVALID_GEOMETRY_ID;
        b->t[i] = hit ? rh.ray.tfar : -1;
        b->id[i] = hit ? b->prim_obj[rh.hit.primID] : 0;
    }
}

/* direct_scene's extra scene flags (the split: the robust scene with the index's filter flag) */
static int extra_flags;

static RTCScene direct_scene(RTCDevice dev, const sn_world *w, double half, bool robust)
{
    size_t n = 0;
    float *tri = sn_rayscene_world_triangles(w, &n);
    if (!tri)
        die("out of memory", NULL);
    RTCScene s = rtcNewScene(dev);
    if (robust) /* the peer of the index's watertight tests (rayscene.h), printed beside */
        rtcSetSceneFlags(s, RTC_SCENE_FLAG_ROBUST | extra_flags);
    RTCGeometry g = rtcNewGeometry(dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *v = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 12, 3 * n + 4);
    uint32_t *ix = rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 12, n + 2);
    memcpy(v, tri, 9 * n * sizeof *v);
    for (uint32_t i = 0; i < 3 * n; i++)
        ix[i] = i;
    /* the ground: two triangles well beyond the street */
    float gh = (float)(half + 200);
    float gv[12] = {-gh, -gh, 0, gh, -gh, 0, gh, gh, 0, -gh, gh, 0};
    memcpy(v + 9 * n, gv, sizeof gv);
    uint32_t b = (uint32_t)(3 * n);
    uint32_t gi[6] = {b, b + 1, b + 2, b, b + 2, b + 3};
    memcpy(ix + 3 * n, gi, sizeof gi);
    rtcCommitGeometry(g);
    rtcAttachGeometry(s, g);
    rtcReleaseGeometry(g);
    rtcCommitScene(s);
    free(tri);
    return s;
}

/* A function of its own, so that callgrind counts the filtered queries apart. */
__attribute__((noinline)) static void trace_filtered(sn_rayscene *rs, const sn_world *w, const sn_ray_query *q,
                                                     const sn_ray *rays, sn_ray_result *res)
{
    sn_error err = {0};
    if (sn_rays_trace(rs, w, q, rays, N_RAYS, res, &err))
        die("trace", &err);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
    return h;
}

/* RAYS_HASH=1: a hash of every result (and hit) of closest, all-hits and any-hit queries, with
** and without filters, streams and one ray at a time, to compare two builds byte for byte. */
static void print_hashes(sn_rayscene *rs, const sn_world *w, const sn_ray *rays, sn_ray_result *res, const char *pname,
                         int n_obj, int th)
{
    enum { MAXH = 4 };
    static sn_ray_hit hits[N_RAYS * MAXH];
    sn_error err = {0};
    uint32_t ignore = w->actors[1]->id;
    for (int mode = 0; mode < 3; mode++)
        for (int filt = 0; filt < 2; filt++)
            for (int obo = 0; obo < 2; obo++) {
                sn_ray_query q = SN_RAY_QUERY_INIT;
                q.mode = mode == 0 ? SN_RAY_CLOSEST : mode == 1 ? SN_RAY_ALL : SN_RAY_ANY;
                if (mode == 1)
                    q.hits = hits, q.max_hits = MAXH;
                if (filt)
                    q.ignore_ids = &ignore, q.n_ignore = 1, q.kind_mask = 1u << SN_ACTOR_STATIC;
                sn_rayscene_set_one_by_one(rs, obo);
                memset(res, 0, N_RAYS * sizeof *res);
                memset(hits, 0, sizeof hits);
                if (sn_rays_trace(rs, w, &q, rays, N_RAYS, res, &err))
                    die("trace", &err);
                uint64_t h = fnv(res, N_RAYS * sizeof *res, 1469598103934665603ull);
                if (mode == 1)
                    h = fnv(hits, sizeof hits, h);
                printf("hash %s %d objects %d threads mode %d filtered %d one_by_one %d: %016llx\n", pname, n_obj, th,
                       mode, filt, obo, (unsigned long long)h);
            }
    sn_rayscene_set_one_by_one(rs, false);
}

/* Best of `runs` of f(): seconds. */
#define BEST_S(stmt, runs)                         \
    ({                                             \
        double best_ = 1e30;                       \
        for (int run_ = 0; run_ < (runs); run_++) { \
            double t0_ = now();                    \
            stmt;                                  \
            double s_ = now() - t0_;               \
            best_ = s_ < best_ ? s_ : best_;       \
        }                                          \
        best_;                                     \
    })

int main(int argc, char **argv)
{
    static const int all_sizes[] = {10, 100, 1000, 10000};
    int only = argc > 1 ? atoi(argv[1]) : 0, n_sizes = only > 0 ? 1 : 4;
    const int *sizes = only > 0 ? &only : all_sizes;
    sn_ray *rays = malloc(N_RAYS * sizeof *rays);
    sn_ray_result *res = malloc(N_RAYS * sizeof *res);
    float *t = malloc(N_RAYS * sizeof *t);
    /* the compact batches' arrays, and direct_id's */
    float *c_dist = malloc(N_RAYS * sizeof *c_dist), *d_t = malloc(N_RAYS * sizeof *d_t);
    uint32_t *c_id = malloc(N_RAYS * sizeof *c_id), *d_id = malloc(N_RAYS * sizeof *d_id);
    RTCDevice dev = rtcNewDevice("threads=1");
    sn_error err = {0};
    double per_ray_ns[4][2] = {{0}};
    double mrays_1000_2t = 0;
    sn_pool *pools[3] = {NULL, sn_pool_create(1), sn_pool_create(2)};
    sn_rayscene *rs[3] = {NULL, sn_rayscene_create(1, &err), sn_rayscene_create(2, &err)};
    if (!rays || !res || !t || !c_dist || !d_t || !c_id || !d_id || !dev || !rs[1] || !rs[2] || !pools[1] || !pools[2])
        die("setup", &err);
    for (int si = 0; si < n_sizes; si++) {
        int n_obj = sizes[si];
        sn_world w;
        double half = build_world(&w, n_obj);
        RTCScene flat = direct_scene(dev, &w, half, false), flat_robust = direct_scene(dev, &w, half, true);
        /* direct_id's table: the flat scene's triangles (and the ground's two), 12 to a box */
        size_t n_tris = 0;
        free(sn_rayscene_world_triangles(&w, &n_tris));
        uint32_t *prim_obj = malloc((n_tris + 2) * sizeof *prim_obj);
        if (!prim_obj)
            die("out of memory", NULL);
        for (size_t k = 0; k < n_tris + 2; k++)
            prim_obj[k] = (uint32_t)(k / 12 + 1);
        for (int pattern = getenv("RANDOM_ONLY") ? 1 : 0; pattern < 2; pattern++) {
            make_rays(rays, pattern == 0, half, 7 + (uint64_t)si);
            const char *pname = pattern == 0 ? "lidar " : "random";
            /* the old path: one ODE ray cast at a time, on fewer rays where it is slow */
            int n_ode = only > 0 && !getenv("ODE_ONLY") ? 0 : n_obj >= 10000 ? 2000 : n_obj >= 1000 ? 10000 : 30000;
            sn_ray_hit h;
            volatile int sink = 0;
            double ode_s = BEST_S(for (int i = 0; i < n_ode; i++) sink += sn_world_ray_cast(&w, rays[i].origin, rays[i].direction, 100, 0, &h), 1);
            double ode_mrays = n_ode ? n_ode / ode_s / 1e6 : NAN;
            if (getenv("ODE_ONLY")) {
                printf("ratio rays %s %5d objects ode alone: %.3f Mrays/s\n", pname, n_obj, ode_mrays);
                continue;
            }
            for (int th = 1; th <= 2; th++) {
                direct b = {flat, rays, t, (N_RAYS + 63) / 64};
                double base_s = BEST_S(sn_pool_run(pools[th], direct_task, &b, 64), 3);
                direct br = {flat_robust, rays, t, (N_RAYS + 63) / 64};
                double robust_s = BEST_S(sn_pool_run(pools[th], direct_task, &br, 64), 3);
                sn_pool_run(pools[th], direct_task, &b, 64); /* t[] as the baseline's */
                if (sn_rays_trace(rs[th], &w, &(sn_ray_query)SN_RAY_QUERY_INIT, rays, N_RAYS, res, &err))
                    die("trace", &err); /* builds the index */
                sn_ray_query q = SN_RAY_QUERY_INIT;
                double s = BEST_S(sn_rays_trace(rs[th], &w, &q, rays, N_RAYS, res, &err), 3);
                /* the same hits as the baseline (up to float rounding of its distances), but
                ** for rays starting inside a box: distance 0 here, the way out there */
                int differ = 0, hits = 0;
                for (int i = 0; i < N_RAYS; i++) {
                    hits += res[i].n_hits;
                    if (!res[i].n_hits)
                        differ += t[i] >= 0;
                    else if (res[i].hit.distance > 0)
                        differ += fabs(res[i].hit.distance - t[i]) > 1e-3 * (1 + t[i]);
                }
                if (getenv("RAYS_HASH")) /* outputs against another build's (docs/performance.md, ray queries) */
                    print_hashes(rs[th], &w, rays, res, pname, n_obj, th);
                double mr = N_RAYS / s / 1e6, base_mr = N_RAYS / base_s / 1e6;
                printf("ratio rays %s %5d objects %d thread%s: sensim %6.2f Mrays/s, embree direct %6.2f Mrays/s "
                       "(ratio %.2f), ode %.3f Mrays/s (sensim x%.0f); %d%% hit, %d differ; embree direct with "
                       "sensim's robust flag %.2f Mrays/s (ratio %.2f); on %s\n",
                       pname, n_obj, th, th > 1 ? "s" : " ", mr, base_mr, base_mr / mr, ode_mrays, mr / ode_mrays,
                       hits / (N_RAYS / 100), differ, N_RAYS / robust_s / 1e6, s / robust_s,
                       sn_rayscene_one_tree(rs[th]) ? "one tree" : "two trees");
                per_ray_ns[si][th - 1] += s / N_RAYS * 1e9 / 2;
                if (n_obj == 1000 && th == 2)
                    mrays_1000_2t += mr / 2;
                if (th == 1) {
                    /* Where sensim's time goes against the baselines, per ray: Embree alone on the
                    ** index's own scene (the same loop as the baseline's: no filter, no finishing),
                    ** and the robust flat scene with the filter flag the index carries too */
                    direct bi = {rs[th]->scene, rays, t, (N_RAYS + 63) / 64};
                    double index_s = BEST_S(sn_pool_run(pools[th], direct_task, &bi, 64), 3);
                    extra_flags = RTC_SCENE_FLAG_CONTEXT_FILTER_FUNCTION;
                    RTCScene rf = direct_scene(dev, &w, half, true);
                    extra_flags = 0;
                    direct bf = {rf, rays, t, (N_RAYS + 63) / 64};
                    double rf_s = BEST_S(sn_pool_run(pools[th], direct_task, &bf, 64), 3);
                    rtcReleaseScene(rf);
                    sn_pool_run(pools[th], direct_task, &b, 64); /* t[] as the baseline's again */
                    printf("ratio rays %s %5d objects split, ns a ray: embree direct %.0f, robust %.0f (with the "
                           "filter flag %.0f), embree alone on sensim's index (%s) %.0f (%.2f x robust), sensim %.0f: "
                           "its finishing %.0f ns (%.0f %%)\n", pname, n_obj, base_s / N_RAYS * 1e9,
                           robust_s / N_RAYS * 1e9, rf_s / N_RAYS * 1e9,
                           rs[th]->scene == rs[th]->top ? "two trees" : "one tree", index_s / N_RAYS * 1e9, index_s / robust_s,
                           s / N_RAYS * 1e9, (s - index_s) / N_RAYS * 1e9, 100 * (s - index_s) / s);
                }
                if (th == 1) { /* Embree's coherent streams against one rtcIntersect1 a ray, same index */
                    sn_rayscene_set_one_by_one(rs[th], true);
                    double s1 = BEST_S(sn_rays_trace(rs[th], &w, &q, rays, N_RAYS, res, &err), 3);
                    sn_rayscene_set_one_by_one(rs[th], false);
                    printf("ratio rays %s %5d objects streams: %6.2f Mrays/s, one rtcIntersect1 a ray %6.2f Mrays/s "
                           "(streams x%.2f faster)\n", pname, n_obj, mr, N_RAYS / s1 / 1e6, s1 / s);
                }
                { /* Compact batches (sn_ray_compact) against Embree direct writing the same fields:
                  ** the distance alone (the baseline above), and the distance and the object */
                    sn_ray_compact cd = SN_RAY_COMPACT_INIT, ci = SN_RAY_COMPACT_INIT;
                    cd.fields = SN_RAY_FIELD_DISTANCE, cd.distance = c_dist;
                    ci.fields = SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_ACTOR, ci.distance = c_dist, ci.actor_id = c_id;
                    direct_id bid = {flat, rays, d_t, d_id, prim_obj, (N_RAYS + 63) / 64};
                    /* each against its baseline run beside it, alternated, best of four: on a
                    ** loaded machine the baseline of a minute before is another machine */
                    double cd_s = 1e30, bd_s = 1e30, ci_s = 1e30, base_id_s = 1e30;
                    for (int r = 0; r < 4; r++) {
                        double t0 = now();
                        sn_pool_run(pools[th], direct_task, &b, 64);
                        double t1 = now();
                        if (sn_rays_trace_compact(rs[th], &w, &q, rays, N_RAYS, &cd, &err))
                            die("compact", &err);
                        double t2 = now();
                        sn_pool_run(pools[th], direct_id_task, &bid, 64);
                        double t3 = now();
                        if (sn_rays_trace_compact(rs[th], &w, &q, rays, N_RAYS, &ci, &err))
                            die("compact", &err);
                        double t4 = now();
                        bd_s = fmin(bd_s, t1 - t0), cd_s = fmin(cd_s, t2 - t1);
                        base_id_s = fmin(base_id_s, t3 - t2), ci_s = fmin(ci_s, t4 - t3);
                    }
                    if (sn_rays_trace(rs[th], &w, &q, rays, N_RAYS, res, &err)) /* RAYS_HASH changed res[] */
                        die("trace", &err);
                    int cdiff = 0; /* the full batch's fields, rounded to float */
                    for (int i = 0; i < N_RAYS; i++)
                        cdiff += c_dist[i] != (res[i].n_hits ? (float)res[i].hit.distance : -1.0f) ||
                                 c_id[i] != (res[i].n_hits ? res[i].hit.actor_id : 0);
                    printf("ratio rays %s %5d objects %d thread%s compact: distance %6.2f Mrays/s (ratio %.2f to embree "
                           "direct, %.2f Mrays/s beside it), distance and actor %6.2f Mrays/s (ratio %.2f to embree "
                           "direct's distance and object, %.2f Mrays/s); %d differ from the full batch; on %s\n",
                           pname, n_obj, th, th > 1 ? "s" : " ", N_RAYS / cd_s / 1e6, cd_s / bd_s, N_RAYS / bd_s / 1e6,
                           N_RAYS / ci_s / 1e6, ci_s / base_id_s, N_RAYS / base_id_s / 1e6, cdiff,
                           sn_rayscene_one_tree(rs[th]) ? "one tree" : "two trees");
                }
                if (th == 1) { /* filters: one actor ignored, walkers left out by the kind mask */
                    uint32_t ignore = w.actors[1]->id;
                    q.ignore_ids = &ignore, q.n_ignore = 1;
                    q.kind_mask = 1u << SN_ACTOR_STATIC;
                    double fs = BEST_S(trace_filtered(rs[th], &w, &q, rays, res), 3);
                    printf("ratio rays %s %5d objects filtered: sensim %6.2f Mrays/s (ratio %.2f to embree direct "
                           "unfiltered, x%.2f the time of no filters)\n", pname, n_obj, N_RAYS / fs / 1e6,
                           base_s > 0 ? fs / base_s : 0, fs / s);
                }
            }
        }
        /* the per-frame rebuild: every moving actor moved (a new world generation) */
        double rebuild_s = BEST_S((w.gen++, sn_rays_trace(rs[2], &w, &(sn_ray_query)SN_RAY_QUERY_INIT, rays, 1, res, &err)), 5);
        double one_s = BEST_S(sn_rays_trace(rs[2], &w, &(sn_ray_query)SN_RAY_QUERY_INIT, rays, 1, res, &err), 5);
        /* a frame of many rays after the move: with the one tree (rayscene.h), its refit too */
        double frame_s = BEST_S((w.gen++, sn_rays_trace(rs[1], &w, &(sn_ray_query)SN_RAY_QUERY_INIT, rays, N_RAYS, res, &err)), 3);
        printf("ratio rays rebuild %5d objects: %.3f ms per frame (one ray without a rebuild: %.4f ms, ratio %.0f); "
               "a frame of %d rays at 1 thread, the rebuild included: %.3f ms (on %s)\n", n_obj, rebuild_s * 1e3,
               one_s * 1e3, rebuild_s / one_s, N_RAYS, frame_s * 1e3, rs[1]->scene == rs[1]->top ? "two trees" : "one tree");
        free(prim_obj);
        rtcReleaseScene(flat);
        rtcReleaseScene(flat_robust);
        sn_world_free(&w);
    }
    printf("ratio rays scaling: ns per ray at 10 / 100 / 1000 / 10000 objects, 1 thread: %.0f / %.0f / %.0f / %.0f "
           "(10000 vs 10: x%.2f for x1000 objects)\n", per_ray_ns[0][0], per_ray_ns[1][0], per_ray_ns[2][0],
           per_ray_ns[3][0], per_ray_ns[3][0] / per_ray_ns[0][0]);
    printf("target rays: %.1f M rays/s at 1000 objects on 2 threads (target >= 10; this machine has ~1 free core)\n",
           mrays_1000_2t);
    for (int i = 1; i <= 2; i++)
        sn_rayscene_destroy(rs[i]), sn_pool_destroy(pools[i]);
    rtcReleaseDevice(dev);
    free(rays);
    free(res);
    free(t);
    free(c_dist), free(d_t), free(c_id), free(d_id);
    return 0;
}
