/* traffic_pair.h — two autopilot vehicles stepped together and watched every frame: their boxes
** on the ground, the gap between them, how far each travelled and a hash of both transforms.
** The harness of the tests where two vehicles hold each other (headon, crossjam). */
#ifndef SN_TEST_TRAFFIC_PAIR_H
#define SN_TEST_TRAFFIC_PAIR_H

#include "testutil.h"

/* A bounding box on the ground: centre, heading (unit vector) and half extents. */
typedef struct tp_box {
    double cx, cy, fx, fy, ex, ey;
} tp_box;

static inline tp_box tp_box_of(const sn_actor_info *a)
{
    const double y = a->transform.rotation.yaw * M_PI / 180, c = cos(y), s = sin(y);
    const sn_bbox *b = &a->bounding_box;
    return (tp_box){a->transform.location.x + c * b->location.x - s * b->location.y,
                    a->transform.location.y + s * b->location.x + c * b->location.y, c, s, b->extent.x, b->extent.y};
}

/* The largest separation of two boxes along their four axes (< 0: they overlap). */
static inline double tp_box_gap(tp_box p, tp_box q)
{
    const double ax[4][2] = {{p.fx, p.fy}, {-p.fy, p.fx}, {q.fx, q.fy}, {-q.fy, q.fx}};
    double gap = -INFINITY;
    for (int k = 0; k < 4; k++) {
        const double ux = ax[k][0], uy = ax[k][1];
        const double rp = p.ex * fabs(p.fx * ux + p.fy * uy) + p.ey * fabs(-p.fy * ux + p.fx * uy);
        const double rq = q.ex * fabs(q.fx * ux + q.fy * uy) + q.ey * fabs(-q.fy * ux + q.fx * uy);
        gap = fmax(gap, fabs((q.cx - p.cx) * ux + (q.cy - p.cy) * uy) - rp - rq);
    }
    return gap;
}

typedef struct tp_pair {
    sn_engine *e;          /* owned: tp_close destroys it */
    uint32_t id[2];
    sn_actor_info a[2];    /* both as of the last tp_frame */
    double travelled[2];   /* metres on the ground since frame 0 */
    double min_gap;        /* the smallest tp_box_gap seen */
    uint64_t hash;         /* FNV of both transforms, every frame */
} tp_pair;

/* Loads the scene at `path` on `threads` threads, in hybrid physics mode if asked (no hero: both
** move along their paths without physics), and finds the two named actors; exits the test on failure. */
static inline void tp_open(tp_pair *p, const char *plugins, const char *path, int threads, bool hybrid,
                           const char *name0, const char *name1)
{
    sn_error err = {0};
    *p = (tp_pair){.e = tu_load_threads(plugins, path, threads), .min_gap = INFINITY, .hash = 0xcbf29ce484222325ull};
    if (hybrid && sn_engine_tm_set(p->e, 8000, 0, SN_TM_HYBRID_PHYSICS_MODE, 1, &err) != SN_OK) {
        fprintf(stderr, "FAIL: hybrid mode: %s\n", err.msg);
        exit(1);
    }
    const char *names[2] = {name0, name1};
    for (int k = 0; k < 2; k++)
        if (!(p->id[k] = sn_engine_find_actor(p->e, names[k]))) {
            fprintf(stderr, "FAIL: no actor %s\n", names[k]);
            exit(1);
        }
}

/* Frame f: steps the engine (not at f = 0), reads both actors, adds their travel, hashes their
** transforms and keeps the smallest gap between their boxes. */
static inline void tp_frame(tp_pair *p, uint64_t f)
{
    sn_error err = {0};
    if (f && sn_engine_step(p->e, &err) != SN_OK) {
        fprintf(stderr, "FAIL: step: %s\n", err.msg);
        exit(1);
    }
    for (int k = 0; k < 2; k++) {
        const sn_actor_info prev = p->a[k];
        p->a[k] = (sn_actor_info){.struct_size = sizeof p->a[k]};
        sn_engine_actor_get(p->e, p->id[k], &p->a[k]);
        if (f)
            p->travelled[k] += hypot(p->a[k].transform.location.x - prev.transform.location.x,
                                     p->a[k].transform.location.y - prev.transform.location.y);
        p->hash = tu_fnv(p->hash, &p->a[k].transform, sizeof p->a[k].transform);
    }
    const double g = tp_box_gap(tp_box_of(&p->a[0]), tp_box_of(&p->a[1]));
    if (g < p->min_gap)
        p->min_gap = g;
}

static inline void tp_close(tp_pair *p)
{
    sn_engine_destroy(p->e);
    p->e = NULL;
}

#endif
