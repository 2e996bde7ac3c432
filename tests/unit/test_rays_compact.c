/* Compact ray batches (sensim/query.h sn_ray_compact): every field equals the full batch's
** (the doubles rounded to float) for the same rays, at 10, 1 000 and 10 000 objects, hits and
** misses, filtered or not, any mask, 1 and 2 threads; bad queries are refused with a message. */
#include "../../engine/core/rng.h"
#include "../../engine/query/rayscene.h"
#include "../check.h"

#include <stdlib.h>

/* A street of n boxes and cylinders (a quarter of them walkers, tags 0..19) over a ground
** plane at bench_rays' density; n_rays rays: random ones among them, a lidar's from one point
** (the coherent path), short ones that miss, ones from inside a box, and bad ones. */
static void street(sn_world *w, int n, sn_ray *rays, int n_rays, uint64_t seed)
{
    sn_error err = {0};
    CHECK(sn_world_init(w, 1, &err) == SN_OK, "world: %s", err.msg);
    sn_rng g;
    sn_rng_seed(&g, seed);
    double half = 10 * sqrt((double)n);
    sn_actor *ground = sn_world_add(w, SN_ACTOR_STATIC, 0);
    ground->shape = SN_SHAPE_PLANE;
    ground->tag = 1;
    sn_transform gt = {{0, 0, 0}, {0, 0, 0}};
    CHECK(sn_world_materialize(w, ground, &gt, &err) == SN_OK, "ground: %s", err.msg);
    sn_vec3 first = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        sn_actor *a = sn_world_add(w, i % 4 ? SN_ACTOR_STATIC : SN_ACTOR_WALKER, 0);
        a->shape = i % 7 ? SN_SHAPE_BOX : SN_SHAPE_CYLINDER;
        a->tag = (uint8_t)(i % 20);
        a->ph->mass = 80;
        a->ph->bbox.extent = sn_v3(0.5 + 2 * sn_rng_uniform(&g), 0.5 + 2 * sn_rng_uniform(&g), 0.5 + 2 * sn_rng_uniform(&g));
        sn_transform t = {{(2 * sn_rng_uniform(&g) - 1) * half, (2 * sn_rng_uniform(&g) - 1) * half, a->ph->bbox.extent.z},
                          {0, 360 * sn_rng_uniform(&g), 0}};
        CHECK(sn_world_materialize(w, a, &t, &err) == SN_OK, "actor: %s", err.msg);
        if (!i)
            first = t.location;
    }
    for (int i = 0; i < n_rays; i++) {
        double z = 2 * sn_rng_uniform(&g) - 1, t = 2 * SN_PI * sn_rng_uniform(&g), r = sqrt(1 - z * z);
        sn_vec3 d = sn_v3(r * cos(t), r * sin(t), z);
        sn_vec3 o = sn_v3((2 * sn_rng_uniform(&g) - 1) * half, (2 * sn_rng_uniform(&g) - 1) * half, 1 + 3 * sn_rng_uniform(&g));
        double maxd = 100;
        switch (i % 8) {
        case 1: /* a lidar's rays: one origin, 64 at a time (a coherent stream) */
            o = sn_v3(0.3, 0.2, 1.8);
            break;
        case 2: /* short: mostly misses */
            maxd = 0.5 + sn_rng_uniform(&g);
            break;
        case 3: /* from inside the first object */
            o = first;
            break;
        case 4: /* upward: misses but for what is overhead */
            d.z = fabs(d.z);
            break;
        default:
            break;
        }
        rays[i] = (sn_ray){o, d, maxd};
    }
    rays[5].direction = sn_v3(0, 0, 0); /* hits nothing */
    rays[n_rays - 2].max_distance = -1;
    rays[n_rays - 1].origin.x = NAN;
}

/* Every field of the compact batch of mask `fields` against the full results `ref`. */
static int compare(const sn_ray_result *ref, int n, const sn_ray_compact *c)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const sn_ray_result *r = &ref[i];
        bool hit = r->n_hits > 0, ok = true;
        if (c->fields & SN_RAY_FIELD_HIT)
            ok = ok && c->hit[i] == hit;
        if (c->fields & SN_RAY_FIELD_DISTANCE)
            ok = ok && c->distance[i] == (hit ? (float)r->hit.distance : -1.0f);
        if (c->fields & SN_RAY_FIELD_ACTOR)
            ok = ok && c->actor_id[i] == (hit ? r->hit.actor_id : 0);
        if (c->fields & SN_RAY_FIELD_TAG)
            ok = ok && c->semantic_tag[i] == (hit ? r->hit.semantic_tag : 0);
        if (c->fields & SN_RAY_FIELD_NORMAL)
            ok = ok && c->normal[3 * i] == (float)r->hit.normal.x && c->normal[3 * i + 1] == (float)r->hit.normal.y &&
                 c->normal[3 * i + 2] == (float)r->hit.normal.z;
        if (c->fields & SN_RAY_FIELD_REFLECTIVITY)
            ok = ok && c->reflectivity[i] == (float)r->hit.reflectivity;
        if (!ok && bad++ < 3)
            fprintf(stderr, "ray %d: full n_hits %u distance %.9g actor %u tag %u; compact hit %u distance %.9g actor %u "
                    "tag %u\n", i, r->n_hits, r->hit.distance, r->hit.actor_id, r->hit.semantic_tag,
                    c->hit ? c->hit[i] : 0, c->distance ? c->distance[i] : 0, c->actor_id ? c->actor_id[i] : 0,
                    c->semantic_tag ? c->semantic_tag[i] : 0);
    }
    return bad;
}

static void test_equal(int n_obj, int threads)
{
    enum { N = 20000 };
    sn_world w;
    sn_ray *rays = malloc(N * sizeof *rays);
    sn_ray_result *ref = malloc(N * sizeof *ref);
    uint8_t *hit = malloc(N), *tag = malloc(N);
    float *dist = malloc(N * sizeof *dist), *normal = malloc(3 * N * sizeof *normal), *refl = malloc(N * sizeof *refl);
    uint32_t *actor = malloc(N * sizeof *actor);
    sn_error err = {0};
    sn_rayscene *rs = sn_rayscene_create(threads, &err);
    CHECK(rs && rays && ref && hit && tag && dist && normal && refl && actor, "setup: %s", err.msg);
    street(&w, n_obj, rays, N, (uint64_t)n_obj);
    /* masks: everything, a lidar's (distance, intensity), distance alone and distance and actor
    ** (trace_compact.c's specialised loops), the actor alone, hit and tag */
    static const uint32_t masks[] = {SN_RAY_FIELDS_ALL, SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_REFLECTIVITY,
                                     SN_RAY_FIELD_DISTANCE, SN_RAY_FIELD_DISTANCE | SN_RAY_FIELD_ACTOR,
                                     SN_RAY_FIELD_ACTOR, SN_RAY_FIELD_HIT | SN_RAY_FIELD_TAG};
    uint32_t ignore = w.actors[2]->id;
    for (int filt = 0; filt < 2; filt++)
        for (int mode = 0; mode < 2; mode++) {
            sn_ray_query q = SN_RAY_QUERY_INIT;
            q.mode = mode ? SN_RAY_ANY : SN_RAY_CLOSEST;
            if (filt) /* one actor ignored, walkers left out */
                q.ignore_ids = &ignore, q.n_ignore = 1, q.kind_mask = 1u << SN_ACTOR_STATIC;
            CHECK(sn_rays_trace(rs, &w, &q, rays, N, ref, &err) == SN_OK, "full: %s", err.msg);
            int hits = 0;
            for (int i = 0; i < N; i++)
                hits += ref[i].n_hits > 0;
            CHECK(hits > N / 4 && hits < N, "%d objects: %d of %d rays hit (want hits and misses)", n_obj, hits, N);
            for (size_t m = 0; m < (mode ? 1 : sizeof masks / sizeof *masks); m++) {
                sn_ray_compact c = SN_RAY_COMPACT_INIT;
                c.fields = mode ? SN_RAY_FIELD_HIT : masks[m];
                c.hit = hit, c.distance = dist, c.actor_id = actor, c.semantic_tag = tag, c.normal = normal,
                c.reflectivity = refl;
                memset(hit, 0xee, N), memset(dist, 0xee, N * sizeof *dist);
                CHECK(sn_rays_trace_compact(rs, &w, &q, rays, N, &c, &err) == SN_OK, "compact: %s", err.msg);
                int bad = compare(ref, N, &c);
                CHECK(bad == 0, "%d objects, %d threads, mode %d, filtered %d, fields 0x%x: %d of %d rays differ from "
                      "the full batch", n_obj, threads, (int)q.mode, filt, c.fields, bad, N);
            }
        }
    /* arrays of fields not asked for are not touched */
    sn_ray_compact c = SN_RAY_COMPACT_INIT;
    c.fields = SN_RAY_FIELD_DISTANCE;
    c.distance = dist;
    memset(actor, 0xab, N * sizeof *actor);
    c.actor_id = actor;
    CHECK(sn_rays_trace_compact(rs, &w, &(sn_ray_query)SN_RAY_QUERY_INIT, rays, N, &c, &err) == SN_OK, "%s", err.msg);
    CHECK(actor[0] == 0xabababab && actor[N - 1] == 0xabababab, "an array not asked for was written");
    sn_world_free(&w);
    sn_rayscene_destroy(rs);
    free(rays), free(ref), free(hit), free(tag), free(dist), free(normal), free(refl), free(actor);
}

/* Each malformed call is refused with SN_E_INVALID and a message naming what is wrong. */
static void test_errors(void)
{
    sn_world w;
    sn_ray rays[4];
    street(&w, 10, rays, 4, 3);
    sn_error err = {0};
    sn_rayscene *rs = sn_rayscene_create(1, &err);
    float dist[4];
    uint8_t hit[4];
    const sn_ray_query closest = SN_RAY_QUERY_INIT;
    struct {
        uint32_t fields;
        int mode;
        bool no_dist, small, null_out, null_rays, ignore_pairs;
        const char *says;
    } cases[] = {
        {0, SN_RAY_CLOSEST, false, false, false, false, false, "asks for no field"},
        {SN_RAY_FIELD_DISTANCE | 0x40u, SN_RAY_CLOSEST, false, false, false, false, false, "bits no sn_ray_field names (0x40)"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_CLOSEST, true, false, false, false, false, "SN_RAY_FIELD_DISTANCE (distance) but its array is NULL"},
        {SN_RAY_FIELD_ACTOR, SN_RAY_CLOSEST, false, false, false, false, false, "SN_RAY_FIELD_ACTOR (actor_id) but its array is NULL"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_ANY, false, false, false, false, false, "SN_RAY_FIELD_HIT alone"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_ALL, false, false, false, false, false, "SN_RAY_CLOSEST and SN_RAY_ANY"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_CLOSEST, false, true, false, false, false, "SN_RAY_COMPACT_INIT"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_CLOSEST, false, false, true, false, false, "NULL sn_ray_compact"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_CLOSEST, false, false, false, true, false, "NULL rays"},
        {SN_RAY_FIELD_DISTANCE, SN_RAY_CLOSEST, false, false, false, false, true, "per-ray ignore pairs"},
    };
    static const uint32_t pairs[4][2];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        sn_ray_query q = closest;
        q.mode = (sn_ray_mode)cases[k].mode;
        if (cases[k].ignore_pairs)
            q.ray_ignore = pairs;
        sn_ray_compact c = SN_RAY_COMPACT_INIT;
        c.fields = cases[k].fields;
        c.distance = cases[k].no_dist ? NULL : dist;
        c.hit = hit;
        if (cases[k].small)
            c.struct_size = 8;
        memset(&err, 0, sizeof err);
        sn_status st = sn_rays_trace_compact(rs, &w, &q, cases[k].null_rays ? NULL : rays, 4,
                                             cases[k].null_out ? NULL : &c, &err);
        CHECK(st == SN_E_INVALID, "case %zu: status %d", k, (int)st);
        CHECK_CONTAINS(err.msg, cases[k].says);
    }
    /* no rays: nothing to do, even with nothing to write to */
    sn_ray_compact c = SN_RAY_COMPACT_INIT;
    c.fields = SN_RAY_FIELD_DISTANCE;
    CHECK(sn_rays_trace_compact(rs, &w, &closest, NULL, 0, &c, &err) == SN_OK, "no rays: %s", err.msg);
    sn_world_free(&w);
    sn_rayscene_destroy(rs);
}

int main(void)
{
    test_errors();
    for (int threads = 1; threads <= 2; threads++) {
        test_equal(10, threads);
        test_equal(1000, threads);
        test_equal(10000, threads);
    }
    return CHECK_DONE();
}
