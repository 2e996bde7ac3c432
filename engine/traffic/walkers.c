/* walkers.c — walkers of the map autopilot: sidewalk lanes, crosswalks and the kerb wait. */
#include "walkers.h"
#include "traffic_int.h"

#include "../core/util.h"
#include "../map/lanemap.h"
#include "../sim/engine.h"

#include <math.h>

static double dist2d(sn_vec3 a, sn_vec3 b) { return hypot(b.x - a.x, b.y - a.y); }

#define CW_REACH 1.5     /* m: a walker this near a crosswalk's end decides whether to cross */
#define CW_FORGET 5.0    /* m: ... and decides again only after walking this far away */
#define CW_CHANCE 0.5    /* of crossing when it reaches an end */
#define CW_CLEAR 15.0    /* m: it waits while a moving vehicle is this near the crosswalk */
#define CW_ON 4.0        /* m: ... or any vehicle this near (on it, or about to be) */

/* True while a vehicle moving faster than a walk is within CW_CLEAR of the crosswalk's middle,
** or any vehicle within CW_ON of it (the bodies' grid). Cars waiting at the stop line beside it
** do not hold a walker for the whole red phase; their leader check sees the walker in their
** path when the light turns green. */
static bool crosswalk_busy(const sn_engine *e, const sn_crosswalk *cw)
{
    const struct sn_traffic *t = e->traffic;
    sn_vec3 mid = sn_v3_scale(sn_v3_add(cw->end[0], cw->end[1]), 0.5);
    for (size_t i = 0; t && i < t->n; i++) {
        const body *b = &t->b[i];
        if (b->a->kind != SN_ACTOR_VEHICLE)
            continue;
        double d = dist2d(b->pos, mid), v = hypot(b->vel.x, b->vel.y);
        if (d < CW_ON || (d < CW_CLEAR && v > 1.0))
            return true;
    }
    return false;
}

/* A walker at a crosswalk's end may cross the street (a seeded draw, once per visit), when no
** vehicle is near; it walks straight to the far end, then back onto the sidewalk's lanes.
** true while this takes over the walker. */
static bool walker_crosswalk(sn_engine *e, sn_actor *a, sn_mapdrive *md)
{
    const struct sn_traffic *t = e->traffic;
    sn_vec3 pos = a->st.pos;
    if (md->crossing) {
        double dx = md->cross_to.x - pos.x, dy = md->cross_to.y - pos.y, d = hypot(dx, dy);
        if (d > 0.3) {
            a->mv->walk_dir = sn_v3(dx / d, dy / d, 0);
            a->mv->walk_speed = md->desired;
            return true;
        }
        md->crossing = false; /* across: back onto the sidewalk here, either way along it */
        md->backwards = sn_rng_u64(&md->rng) & 1;
        if (!sn_md_relocate(e->map, md, pos))
            return false;
        sn_md_refill(e->map, md);
        return false;
    }
    if (!t || !t->n_cw)
        return false;
    if (md->cw_seen) {
        const sn_crosswalk *cw = &t->cw[(md->cw_seen - 1) / 2];
        if (dist2d(pos, cw->end[(md->cw_seen - 1) % 2]) > CW_FORGET)
            md->cw_seen = 0, md->cw_go = false;
    }
    for (size_t i = 0; i < t->n_cw && !md->cw_seen; i++)
        for (uint32_t k = 0; k < 2; k++)
            if (dist2d(pos, t->cw[i].end[k]) < CW_REACH) {
                md->cw_seen = (uint32_t)(2 * i + k + 1);
                md->cw_go = sn_rng_uniform(&md->rng) < CW_CHANCE;
                break;
            }
    if (!md->cw_seen || !md->cw_go)
        return false;
    const sn_crosswalk *cw = &t->cw[(md->cw_seen - 1) / 2];
    if (crosswalk_busy(e, cw)) {
        a->mv->walk_speed = 0; /* waits at the kerb */
        return true;
    }
    md->crossing = true;
    md->cw_go = false; /* at the far end it decides anew after walking away from it */
    md->cross_to = cw->end[1 - (md->cw_seen - 1) % 2];
    md->cw_seen = (uint32_t)(md->cw_seen % 2 ? md->cw_seen + 1 : md->cw_seen - 1); /* the far end */
    return walker_crosswalk(e, a, md);
}

void sn_walker_update(sn_engine *e, sn_actor *a, sn_mapdrive *md)
{
    const sn_map *m = e->map;
    sn_vec3 pos = a->st.pos;
    double along0 = 0;
    if (walker_crosswalk(e, a, md))
        return;
    if (!sn_md_advance(md, pos, &along0) && !sn_md_relocate(m, md, pos)) {
        a->mv->walk_speed = 0;
        return;
    }
    sn_md_refill(m, md);
    /* Walk towards the path point 1.5 m ahead of the projection. */
    sn_vec3 target = md->path[md->n - 1].transform.location;
    double acc = along0;
    for (uint32_t i = 1; i < md->n; i++) {
        acc += dist2d(md->path[i - 1].transform.location, md->path[i].transform.location);
        if (acc >= 1.5) {
            target = md->path[i].transform.location;
            break;
        }
    }
    double dx = target.x - pos.x, dy = target.y - pos.y, d = hypot(dx, dy);
    if (d < 0.05 || (md->ended && md->n < 2)) {
        a->mv->walk_speed = 0;
        return;
    }
    a->mv->walk_dir = sn_v3(dx / d, dy / d, 0);
    a->mv->walk_speed = md->desired;
}

