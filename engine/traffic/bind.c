/* bind.c — signals bound to lanes as CARLA binds them (bind.h, docs/traffic.md). */
#include "bind.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

static int ref_cmp(const void *x, const void *y)
{
    const sn_sigref *a = x, *b = y;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    if (a->road != b->road)
        return a->road < b->road ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

bool sn_sigindex_build(const sn_odr *o, sn_sigindex *ix)
{
    memset(ix, 0, sizeof *ix);
    size_t n = 0;
    for (uint32_t ri = 0; ri < o->n_roads; ri++)
        n += o->roads[ri].n_signals;
    if (!n)
        return true;
    if (!(ix->r = malloc(n * sizeof *ix->r)))
        return false;
    for (uint32_t ri = 0; ri < o->n_roads; ri++)
        for (uint32_t k = 0; k < o->roads[ri].n_signals; k++)
            ix->r[ix->n++] = (sn_sigref){o->roads[ri].signals[k].id, (int32_t)ri, k};
    qsort(ix->r, ix->n, sizeof *ix->r, ref_cmp);
    return true;
}

void sn_sigindex_free(sn_sigindex *ix)
{
    free(ix->r);
    memset(ix, 0, sizeof *ix);
}

static const sn_sigref *find(const sn_sigindex *ix, int32_t id, uint32_t *n)
{
    uint32_t lo = (uint32_t)sn_search_i32(ix->r, ix->n, sizeof *ix->r, offsetof(sn_sigref, id), id);
    uint32_t k = lo;
    while (k < ix->n && ix->r[k].id == id)
        k++;
    *n = k - lo;
    return ix->r + lo;
}

const sn_odr_signal *sn_sigindex_signal(const sn_odr *o, const sn_sigindex *ix, int32_t id, int32_t *road)
{
    uint32_t n;
    const sn_sigref *r = find(ix, id, &n);
    for (uint32_t i = 0; i < n; i++) {
        const sn_odr_signal *sg = &o->roads[r[i].road].signals[r[i].k];
        if (!sg->is_reference) {
            if (road)
                *road = r[i].road;
            return sg;
        }
    }
    return NULL;
}

void sn_sigindex_orphans(const sn_odr *o, const sn_sigindex *ix, sn_bind_issues *iss)
{
    for (uint32_t i = 0; i < ix->n;) {
        uint32_t j = i;
        bool has_signal = false;
        for (; j < ix->n && ix->r[j].id == ix->r[i].id; j++)
            if (!o->roads[ix->r[j].road].signals[ix->r[j].k].is_reference)
                has_signal = true;
        if (!has_signal && !iss->orphan_refs++) {
            iss->or_signal = ix->r[i].id;
            iss->or_road = o->roads[ix->r[i].road].id;
        }
        i = j;
    }
}

/* CARLA's GenerateDefaultValiditiesForSignalReferences: without <validity>, orientation '+'
** names lanes 1..max, '-' lanes min..-1, none both (CARLA's reading, the reverse of OpenDRIVE's
** "+ = traffic along s" in right-hand traffic; CARLA's own towns always give validities). */
static uint32_t default_validity(const sn_odr_section *sec, char orientation, sn_odr_validity v[2])
{
    uint32_t n = 0;
    if (orientation != '-' && sec->n_left)
        v[n++] = (sn_odr_validity){1, (int)sec->n_left};
    if (orientation != '+' && sec->n_right)
        v[n++] = (sn_odr_validity){-(int)sec->n_right, -1};
    return n;
}

static bool all_zero(const sn_odr_signal *sg)
{
    for (uint32_t i = 0; i < sg->n_validity; i++)
        if (sg->validity[i].from || sg->validity[i].to)
            return false;
    return sg->n_validity > 0;
}

static bool push_lane(sn_bind_out *o, sn_bind_lane l)
{
    if (!sn_grow((void **)&o->lanes, &o->cap_lanes, o->n_lanes + 1, sizeof *o->lanes))
        return false;
    o->lanes[o->n_lanes++] = l;
    return true;
}

/* The line and box of one driving lane (k at s) for signal kind `kind`. */
static bool bind_lane(const sn_map *m, sn_lanekey k, double s, sn_bind_kind kind, sn_bind_out *o, size_t first)
{
    const sn_odr *od = m->odr;
    const sn_odr_road *r = &od->roads[k.road];
    int32_t via_road = -1, via_lane = 0;
    /* TrafficLightComponent, StopSignComponent, YieldSignComponent (CARLA 0.9.15+): "Prevent
    ** adding the bounding box inside the intersection": a reference on a connecting road whose lane has one predecessor, outside
    ** any junction, acts at that predecessor's end. */
    if (r->junction >= 0 && kind != SN_BIND_SPEED) {
        sn_lanekey pk[4];
        double ps[4];
        size_t np = sn_map_successors(m, k, false, pk, ps, 4);
        if (np == 1 && od->roads[pk[0].road].junction < 0) {
            via_road = r->id, via_lane = k.lane;
            k = pk[0], s = ps[0];
            r = &od->roads[k.road];
        }
    }
    const sn_odr_section *sec = &r->sections[k.section];
    const sn_odr_lane *l = sn_odr_lane_of(sec, k.lane);
    if (!l || l->type != SN_LANE_DRIVING)
        return true;
    /* Several references on one lane (the connecting roads that leave one incoming lane): one
    ** line, valid whichever branch a vehicle takes. */
    for (size_t i = first; i < o->n_b; i++)
        if (o->b[i].road_id == r->id && o->b[i].lane_id == k.lane && fabs(o->b[i].s - s) < 0.05) {
            if (o->b[i].via_road != via_road || o->b[i].via_lane != via_lane)
                o->b[i].via_road = -1, o->b[i].via_lane = 0;
            return true;
        }
    double w = fmax(sn_odr_lane_width(sec, l, fmin(fmax(s, sec->s), sec->s_end)), 0);
    /* Box sizes and distances upstream of the line, CARLA's (its Unreal units / 100). */
    double up, ex, ey, ez;
    if (kind == SN_BIND_SPEED) /* SpeedLimitComponent: a cube, 0.7 x half the lane's width */
        up = ex = ey = ez = fmax(0.01, 0.7 * w * 0.5);
    else /* lights, stop and yield: BoxLength 1.5, AdditionalDistance 1.5, BoxWidth a quarter lane, BoxHeight 1 */
        up = 1.5 + 1.5, ex = 1.5, ey = fmax(0.01, 0.5 * w * 0.5), ez = 1.0;
    /* CARLA moves the box against the reference lane's sign (lane < 0: s - d); sensim against
    ** the travel direction of the lane the box is on (the same when both lanes run alike). */
    int dir = sn_map_lane_dir(r, k.lane);
    const double eps = 1e-5;
    double sb = s - dir * up;
    sb = fmin(fmax(sb, sec->s + eps), fmax(sec->s_end - eps, sec->s + eps));
    sn_waypoint wp;
    sn_map_make_waypoint(m, k, sb, &wp);
    if (!sn_grow((void **)&o->b, &o->cap_b, o->n_b + 1, sizeof *o->b))
        return false;
    o->b[o->n_b++] = (sn_bound){r->id, k.lane, s, via_road, via_lane, wp.transform.location, {ex, ey, ez},
                                wp.transform.rotation};
    return true;
}

bool sn_bind_signal(const sn_map *m, const sn_sigindex *ix, int32_t id, sn_bind_kind kind, sn_bind_out *o,
                    sn_bind_issues *iss)
{
    const sn_odr *od = m->odr;
    uint32_t n;
    const sn_sigref *refs = find(ix, id, &n);
    size_t first = o->n_b;
    for (uint32_t i = 0; i < n; i++) {
        const sn_odr_road *r = &od->roads[refs[i].road];
        const sn_odr_signal *sg = &r->signals[refs[i].k];
        if (all_zero(sg))
            continue; /* RemoveZeroLaneValiditySignalReferences */
        double s = fmin(fmax(sg->s, 0), r->length);
        uint32_t si = sn_odr_section_at(r, s, false);
        const sn_odr_section *sec = &r->sections[si];
        sn_odr_validity dv[2];
        const sn_odr_validity *v = sg->validity;
        uint32_t nv = sg->n_validity;
        if (!nv) {
            nv = default_validity(sec, sg->orientation, dv);
            v = dv;
        }
        for (uint32_t q = 0; q < nv; q++) {
            int step = v[q].from <= v[q].to ? 1 : -1;
            for (int lane = v[q].from;; lane += step) {
                if (lane != 0) {
                    if (!sn_odr_lane_of(sec, lane)) {
                        if (!iss->missing_lane++)
                            iss->ml_signal = id, iss->ml_road = r->id, iss->ml_lane = lane;
                    } else if (!push_lane(o, (sn_bind_lane){r->id, lane, s}) ||
                               !bind_lane(m, (sn_lanekey){refs[i].road, si, lane}, s, kind, o, first))
                        return false;
                }
                if (lane == v[q].to)
                    break;
            }
        }
    }
    return true;
}

void sn_bind_out_free(sn_bind_out *o)
{
    free(o->lanes);
    free(o->b);
    memset(o, 0, sizeof *o);
}
