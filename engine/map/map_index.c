/* map_index.c — "which lane holds this point": a grid over the roads' sections.
**
** Each section of each road is cut into stretches of at most 4 m along s; a stretch's items
** go into every grid cell its box (all lanes, both borders, inflated) touches. A query projects
** the point on the reference line of each stretch in its cell (Newton on (p - ref(s)) . tangent),
** and reads the lane from t among the section's borders; the nearest surface wins (3-D: an
** overpass and the road below it are told apart by height). The cells are one sorted array
** searched by binary search: built once, read by any number of threads. */
#include "lanemap.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

#define STRETCH 4.0   /* m of s per index item */
#define CELL 16.0     /* m, side of a grid cell */
#define MARGIN 1.0    /* m added around an item's box */
#define MAX_SPAN 300.0 /* m: the most a 4 m stretch of road may cover across (64 lanes a side, height) */
#define MAX_CELLS 50000000u /* index entries (800 MB): a map asking for more is refused */

int sn_map_lane_dir(const sn_odr_road *r, int lane_id)
{
    int d = lane_id < 0 ? 1 : -1;
    return r->rule == 'L' ? -d : d;
}

sn_vec3 sn_map_world(const double p[3]) { return (sn_vec3){p[0], -p[1], p[2]}; }
double sn_map_yaw(double hdg) { return -hdg * (180.0 / M_PI); }

static uint64_t cell_key(int64_t cx, int64_t cy)
{
    return ((uint64_t)(uint32_t)(int32_t)cx << 32) | (uint64_t)(uint32_t)(int32_t)cy;
}

static int cmp_cell(const void *a, const void *b)
{
    const sn_map_cell *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->item > y->item) - (x->item < y->item);
}

/* World-frame box of a stretch: the reference line and both outer borders sampled. */
static void stretch_box(const sn_odr_road *r, const sn_odr_section *sec, double s0, double s1, double lo[3],
                        double hi[3])
{
    lo[0] = lo[1] = lo[2] = INFINITY;
    hi[0] = hi[1] = hi[2] = -INFINITY;
    const int n = 4;
    for (int i = 0; i <= n; i++) {
        double s = s0 + (s1 - s0) * i / n;
        double tl = sn_odr_lane_border(r, sec, (int)sec->n_left, s), tr = sn_odr_lane_border(r, sec, -(int)sec->n_right, s);
        double ts[3] = {tl, tr, 0};
        for (int k = 0; k < 3; k++) {
            double p[3];
            sn_odr_point(r, s, ts[k], 0, p);
            sn_vec3 w = sn_map_world(p);
            double v[3] = {w.x, w.y, w.z};
            for (int d = 0; d < 3; d++)
                lo[d] = fmin(lo[d], v[d]), hi[d] = fmax(hi[d], v[d]);
        }
    }
}

/* Length of the lane centres of a stretch's drivable lanes (driving, ramps, entries, exits):
** a lane on the outside of a curve is longer than the reference line. Each sample's borders
** come from one pass over the lanes (lane_border per lane would cost lanes squared). */
static double drivable_length(const sn_odr_road *r, const sn_odr_section *sec, double s0, double s1)
{
    const uint32_t drivable = SN_LANE_DRIVING | SN_LANE_ENTRY | SN_LANE_EXIT | SN_LANE_ONRAMP | SN_LANE_OFFRAMP;
    bool any = false;
    for (uint32_t li = 0; li < sec->n_lanes && !any; li++)
        any = sec->lanes[li].id != 0 && (sec->lanes[li].type & drivable);
    if (!any)
        return 0;
    double total = 0, prev[2 * SN_ODR_MAX_LANES + 1][3];
    for (int i = 0; i <= 8; i++) {
        double s = s0 + (s1 - s0) * i / 8, border[2 * SN_ODR_MAX_LANES + 1];
        /* border[li] is the outer border of lanes[li]; lanes run from the rightmost up */
        uint32_t c = sec->n_right;
        border[c] = sn_odr_lane_border(r, sec, 0, s);
        /* widths accumulate outwards as sn_odr_lane_border sums them (<border> lanes: its own rule) */
        for (uint32_t k = c + 1; k < sec->n_lanes; k++)
            border[k] = sec->lanes[k].use_border ? sn_odr_lane_border(r, sec, sec->lanes[k].id, s)
                                                 : border[k - 1] + sn_odr_lane_width(sec, &sec->lanes[k], s);
        for (uint32_t k = c; k-- > 0;)
            border[k] = sec->lanes[k].use_border ? sn_odr_lane_border(r, sec, sec->lanes[k].id, s)
                                                 : border[k + 1] - sn_odr_lane_width(sec, &sec->lanes[k], s);
        for (uint32_t li = 0; li < sec->n_lanes; li++) {
            const sn_odr_lane *l = &sec->lanes[li];
            if (l->id == 0 || !(l->type & drivable))
                continue;
            double inner = l->id > 0 ? border[li - 1] : border[li + 1], q[3];
            sn_odr_point(r, s, 0.5 * (inner + border[li]), 0, q);
            if (i)
                total += sqrt((q[0] - prev[li][0]) * (q[0] - prev[li][0]) + (q[1] - prev[li][1]) * (q[1] - prev[li][1]) +
                              (q[2] - prev[li][2]) * (q[2] - prev[li][2]));
            memcpy(prev[li], q, sizeof q);
        }
    }
    return total;
}

static void map_free_parts(sn_map *m)
{
    if (!m)
        return;
    sn_odr_free(m->odr);
    free(m->xml);
    free(m->items);
    free(m->cells);
    free(m);
}

void sn_map_close(sn_map *m)
{
    if (m && m->release)
        m->release(m); /* the cache's: it frees the map when nothing holds it any more */
    else
        map_free_parts(m);
}

/* Lanes x length, bounded before any index, mesh or line is built for them: a 12 KB file can
** ask for 1 000 km of road with 64 lanes a side (issue 33 item 21). Sums m->lane_m; SN_E_RANGE
** naming the road where the sum passes SN_ODR_MAX_LANE_M. */
static sn_status bound_lanes(sn_map *m, const sn_odr *odr, sn_error *err)
{
    for (uint32_t ri = 0; ri < odr->n_roads; ri++) {
        const sn_odr_road *r = &odr->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            m->lane_m += fmax(0, sec->s_end - sec->s) * (sec->n_left + sec->n_right);
        }
        if (m->lane_m > SN_ODR_MAX_LANE_M)
            return sn_fail(err, SN_E_RANGE, "%s:%d: <road>: road %d: the map's lanes add up to more than %g km (lanes "
                           "times length; at most %g km)", odr->path, r->line, (int)r->id, m->lane_m / 1000,
                           SN_ODR_MAX_LANE_M / 1000);
    }
    return SN_OK;
}

sn_status sn_map_build(sn_odr *odr, char *xml, size_t xml_size, sn_map **out, sn_error *err)
{
    *out = NULL;
    sn_map *m = calloc(1, sizeof *m);
    if (!m) {
        sn_odr_free(odr);
        free(xml);
        return sn_fail(err, SN_E_NOMEM, "map: out of memory");
    }
    m->odr = odr, m->xml = xml, m->xml_size = xml_size, m->cell = CELL;
    m->lo = (sn_vec3){INFINITY, INFINITY, INFINITY};
    m->hi = (sn_vec3){-INFINITY, -INFINITY, -INFINITY};

    if (bound_lanes(m, odr, err) != SN_OK) {
        map_free_parts(m);
        return SN_E_RANGE;
    }

    /* Items: every section cut into stretches. */
    size_t n_items = 0, cap_items = 0, n_cells = 0, cap_cells = 0;
    for (uint32_t ri = 0; ri < odr->n_roads; ri++) {
        const sn_odr_road *r = &odr->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            double len = sec->s_end - sec->s;
            if (len <= 0)
                continue;
            int pieces = (int)ceil(len / STRETCH);
            for (int k = 0; k < pieces; k++) {
                double s0 = sec->s + len * k / pieces, s1 = sec->s + len * (k + 1) / pieces;
                if (n_items == cap_items) {
                    cap_items = cap_items ? cap_items * 2 : 1024;
                    sn_map_item *ni = realloc(m->items, cap_items * sizeof *ni);
                    if (!ni)
                        goto nomem;
                    m->items = ni;
                }
                m->driving_m += drivable_length(r, sec, s0, s1);
                double lo[3], hi[3];
                stretch_box(r, sec, s0, s1, lo, hi);
                m->items[n_items] = (sn_map_item){(int32_t)ri, si, s0, s1, lo[0] - MARGIN, hi[0] + MARGIN,
                                                  lo[1] - MARGIN, hi[1] + MARGIN};
                /* Widths are cubics: a file can make a lane kilometres wide, which no road is
                ** and which would fill the grid. */
                if (!(hi[0] - lo[0] <= MAX_SPAN && hi[1] - lo[1] <= MAX_SPAN && hi[2] - lo[2] <= MAX_SPAN)) {
                    sn_fail(err, SN_E_INVALID, "%s:%d: <road>: road %d: its lanes span %g m across at s=%g "
                            "(at most %g: a width, offset or elevation polynomial runs away)",
                            odr->path, r->line, (int)r->id, fmax(hi[0] - lo[0], hi[1] - lo[1]), s0, MAX_SPAN);
                    map_free_parts(m);
                    return SN_E_INVALID;
                }
                m->lo = (sn_vec3){fmin(m->lo.x, lo[0]), fmin(m->lo.y, lo[1]), fmin(m->lo.z, lo[2])};
                m->hi = (sn_vec3){fmax(m->hi.x, hi[0]), fmax(m->hi.y, hi[1]), fmax(m->hi.z, hi[2])};
                int64_t cx0 = (int64_t)floor((lo[0] - MARGIN) / CELL), cx1 = (int64_t)floor((hi[0] + MARGIN) / CELL);
                int64_t cy0 = (int64_t)floor((lo[1] - MARGIN) / CELL), cy1 = (int64_t)floor((hi[1] + MARGIN) / CELL);
                if ((uint64_t)n_cells + (uint64_t)((cx1 - cx0 + 1) * (cy1 - cy0 + 1)) > MAX_CELLS) {
                    sn_fail(err, SN_E_RANGE, "%s:%d: <road>: road %d: the lane index would need more than %u "
                            "entries (the map's roads cover too much ground for one index)", odr->path, r->line,
                            (int)r->id, MAX_CELLS);
                    map_free_parts(m);
                    return SN_E_RANGE;
                }
                for (int64_t cx = cx0; cx <= cx1; cx++)
                    for (int64_t cy = cy0; cy <= cy1; cy++) {
                        if (n_cells == cap_cells) {
                            cap_cells = cap_cells ? cap_cells * 2 : 4096;
                            sn_map_cell *nc = realloc(m->cells, cap_cells * sizeof *nc);
                            if (!nc)
                                goto nomem;
                            m->cells = nc;
                        }
                        m->cells[n_cells++] = (sn_map_cell){cell_key(cx, cy), (uint32_t)n_items};
                    }
                n_items++;
            }
        }
    }
    /* Every lane within the scene's reach (SN_LIMIT_COORD on each axis, as spawns and routes):
    ** a road at (1e7, -1e7) loaded, then traffic refused its lanes (issue 33 item 21). */
    if (n_items && !(fmax(fmax(fabs(m->lo.x), fabs(m->hi.x)), fmax(fabs(m->lo.y), fabs(m->hi.y))) <= SN_LIMIT_COORD &&
                     fmax(fabs(m->lo.z), fabs(m->hi.z)) <= SN_LIMIT_COORD)) {
        sn_fail(err, SN_E_RANGE, "%s:%d: <road>: the lanes reach (%g..%g, %g..%g, %g..%g) m: farther than %g km from "
                "the origin, where a scene cannot place anything", odr->path, odr->n_roads ? odr->roads[0].line : 1,
                m->lo.x, m->hi.x, m->lo.y, m->hi.y, m->lo.z, m->hi.z, SN_LIMIT_COORD / 1000);
        map_free_parts(m);
        return SN_E_RANGE;
    }
    m->n_items = (uint32_t)n_items, m->n_cells = n_cells;
    if (n_cells)
        qsort(m->cells, n_cells, sizeof *m->cells, cmp_cell);
    if (!n_items)
        m->lo = m->hi = (sn_vec3){0, 0, 0};
    *out = m;
    return SN_OK;
nomem:
    map_free_parts(m);
    return sn_fail(err, SN_E_NOMEM, "map: out of memory building the lane index");
}

/* The first cell entry with `key`, or n_cells. */
static size_t cell_first(const sn_map *m, uint64_t key)
{
    return sn_search_u64(m->cells, m->n_cells, sizeof *m->cells, offsetof(sn_map_cell, key), key);
}

/* The s in [s0, s1] of the reference line nearest to (x, y) (OpenDRIVE frame). */
static double project(const sn_odr_road *r, double s0, double s1, double x, double y)
{
    sn_odr_pose a = sn_odr_ref_line(r, s0), b = sn_odr_ref_line(r, s1);
    double ex = b.x - a.x, ey = b.y - a.y, ll = ex * ex + ey * ey;
    double f = ll > 0 ? ((x - a.x) * ex + (y - a.y) * ey) / ll : 0;
    double s = s0 + (s1 - s0) * fmin(1, fmax(0, f));
    for (int it = 0; it < 6; it++) {
        sn_odr_pose p = sn_odr_ref_line(r, s);
        double tx = cos(p.hdg), ty = sin(p.hdg), dx = x - p.x, dy = y - p.y;
        double along = dx * tx + dy * ty, across = -dx * ty + dy * tx;
        double k = sn_odr_ref_curvature(r, s), den = 1 - k * across;
        if (den < 0.2) /* inside the curve's centre: a plain step */
            den = 1;
        double ns = fmin(s1, fmax(s0, s + along / den));
        if (fabs(ns - s) < 1e-9) {
            s = ns;
            break;
        }
        s = ns;
    }
    return s;
}

/* Lane holding t in a section at s: +-(n+1) beyond its outer lanes; 0 never (a point on the
** centre line belongs to the lane on the side it leans to: the right one at exactly 0). */
static int lane_at_t(const sn_odr_road *r, const sn_odr_section *sec, double s, double t, double *outside)
{
    double t0 = sn_odr_lane_border(r, sec, 0, s);
    *outside = 0;
    if (t > t0 && sec->n_left) {
        double inner = t0;
        for (int id = 1; id <= (int)sec->n_left; id++) {
            double outer = sn_odr_lane_border(r, sec, id, s);
            if (t <= outer && outer > inner)
                return id;
            inner = outer;
        }
        *outside = t - inner;
        return (int)sec->n_left + 1;
    }
    double inner = t0;
    if (t > t0) { /* left of the centre with no left lanes */
        *outside = t - t0;
        return 1;
    }
    for (int id = -1; id >= -(int)sec->n_right; id--) {
        double outer = sn_odr_lane_border(r, sec, id, s);
        if (t >= outer && outer < inner)
            return id;
        inner = outer;
    }
    *outside = inner - t;
    return -(int)sec->n_right - 1;
}

/* Distance (along the cross-section) from t to the nearest lane of an accepted type (and that lane). */
static int nearest_typed_lane(const sn_odr_road *r, const sn_odr_section *sec, double s, double t, uint32_t types,
                              double *dist)
{
    int best = 0;
    double best_c = INFINITY;
    *dist = INFINITY;
    for (uint32_t i = 0; i < sec->n_lanes; i++) {
        const sn_odr_lane *l = &sec->lanes[i];
        if (l->id == 0 || !(l->type & types))
            continue;
        double a, b;
        sn_odr_lane_span(r, sec, l->id, s, &a, &b);
        double lo = fmin(a, b), hi = fmax(a, b);
        if (hi - lo < 1e-6)
            continue; /* a lane of width 0 here holds nothing */
        double d = t < lo ? lo - t : t > hi ? t - hi : 0;
        double c = fabs(t - 0.5 * (lo + hi)); /* ties (a point on a border): the nearer centre */
        if (d < *dist - 1e-12 || (fabs(d - *dist) <= 1e-12 && c < best_c))
            *dist = d, best_c = c, best = l->id;
    }
    return best;
}

bool sn_map_locate(const sn_map *m, sn_vec3 world, double radius, uint32_t lane_types, sn_map_place *out)
{
    if (!m->n_cells || !isfinite(world.x) || !isfinite(world.y) || !isfinite(world.z))
        return false;
    const sn_odr *o = m->odr;
    /* Beyond every road (and beyond what a cell index holds): nothing within reach. */
    if (fabs(world.x) > SN_ODR_MAX_COORD + MAX_SPAN + radius || fabs(world.y) > SN_ODR_MAX_COORD + MAX_SPAN + radius)
        return false;
    const double x = world.x, y = -world.y; /* OpenDRIVE frame */
    double best = INFINITY;
    bool found = false;
    int64_t cx = (int64_t)floor(world.x / m->cell), cy = (int64_t)floor(world.y / m->cell);
    /* How far the point is from the edges of its own cell: ring r of cells lies at least
    ** edge + (r - 1) * cell away. */
    const double fx = world.x - cx * m->cell, fy = world.y - cy * m->cell;
    const double edge = fmin(fmin(fx, m->cell - fx), fmin(fy, m->cell - fy));
    int rings = (int)ceil(radius / m->cell) + 1;
    /* An item lies in every cell its box touches: each is looked at once per query. */
    uint32_t seen[64];
    unsigned n_seen = 0;
    for (int ring = 0; ring <= rings; ring++) {
        if (found && ring > 0 && best <= edge + (ring - 1) * m->cell)
            break;
        /* Nor within radius: an item within it touches a cell within it (its box's point
        ** nearest the point), of this ring or one before, where it was met first anyway. */
        if (ring > 0 && edge + (ring - 1) * m->cell > radius)
            break;
        for (int64_t i = -ring; i <= ring; i++)
            for (int64_t j = -ring; j <= ring; j++) {
                if (i != -ring && i != ring && j != -ring && j != ring)
                    continue;
                uint64_t key = cell_key(cx + i, cy + j);
                for (size_t c = cell_first(m, key); c < m->n_cells && m->cells[c].key == key; c++) {
                    const uint32_t id = m->cells[c].item;
                    const sn_map_item *it = &m->items[id];
                    /* Nothing in the item's box can beat the best so far (or lie within radius). */
                    double bx = fmax(fmax(it->x0 - world.x, world.x - it->x1), 0);
                    double by = fmax(fmax(it->y0 - world.y, world.y - it->y1), 0);
                    double lower = hypot(bx, by);
                    if (lower > radius || (found && lower > best))
                        continue;
                    bool dup = false;
                    for (unsigned k = 0; k < n_seen && !dup; k++)
                        dup = seen[k] == id;
                    if (dup)
                        continue;
                    if (n_seen < SN_COUNT(seen))
                        seen[n_seen++] = id;
                    const sn_odr_road *r = &o->roads[it->road];
                    const sn_odr_section *sec = &r->sections[it->section];
                    double s = project(r, it->s0, it->s1, x, y);
                    sn_odr_pose p = sn_odr_ref_line(r, s);
                    double dx = x - p.x, dy = y - p.y, t = sn_odr_t_of(r, s, -dx * sin(p.hdg) + dy * cos(p.hdg));
                    double along = dx * cos(p.hdg) + dy * sin(p.hdg);
                    double outside;
                    int lane = lane_types == 0 ? lane_at_t(r, sec, s, t, &outside)
                                   : nearest_typed_lane(r, sec, s, t, lane_types, &outside);
                    if (lane == 0)
                        continue;
                    /* Beyond the stretch's ends along the line: that distance counts too. */
                    outside = hypot(outside, fabs(along) > 1e-6 ? fabs(along) : 0);
                    double q[3];
                    sn_odr_point(r, s, t, 0, q);
                    double dz = world.z - q[2];
                    /* Height counts less than lateral distance (a car's origin is above the road)
                    ** but separates stacked roads. */
                    double score = outside + 0.5 * fabs(dz);
                    if (outside > radius)
                        continue;
                    bool better = score < best - 1e-9;
                    if (!better && found && fabs(score - best) <= 1e-9) { /* ties: lowest road, section, lane */
                        better = it->road < out->road || (it->road == out->road && (it->section < out->section ||
                                 (it->section == out->section && lane < out->lane)));
                    }
                    if (better) {
                        best = score, found = true;
                        *out = (sn_map_place){it->road, it->section, s, t, lane, outside, dz};
                    }
                }
            }
    }
    return found;
}
