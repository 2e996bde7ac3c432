/* test_map_query.c — the lane graph and the waypoint queries (engine/map, sensim/map.h) on a
** map embedded here (tests/map/junction_map.h), on every shipped map (argv[1]: the .xodr files in maps/) and,
** when /work/carla-maps (or $SENSIM_CARLA_MAPS) holds CARLA's towns, on those:
**   (a) lane centres continuous across every section boundary, road link and junction
**       connection (sn_map_successors, both directions);
**   (b) the lane at a point (sn_map_waypoint, project=false) against a brute force over every
**       section of every road, on 100 000 seeded random points inside the map's bounds;
**   (c) a 10 km waypoint walk with next(2.0), random branches: driving lanes only, steps of
**       2 m of s whose 3-D length matches the lane centre's, previous(next(w)) == w;
**   (d) spawn points on driving lanes outside junctions, with the lane's yaw;
**   (e) topology pairs connect; (f) road marks crossed from sidewalk to sidewalk;
**   (g) walks on lane places (sn_map_walk_pos) bit for bit those of next/previous;
**   (h) sn_map_locate at radii of 5 cm to 2 m against 40 m: the same place where it is near.
** Shipped and embedded maps are held to 1 mm; CARLA's towns (whose links are not all
** consistent: ../shared/reference/opendrive-facts.md) to 2 cm on 99 % of links. Without any
** shipped map the test ends in a SKIP (77) after the embedded map's checks passed. */
#include "../../engine/map/lanemap.h"
#include "../check.h"
#include "../map/junction_map.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_POINTS 100000

typedef enum { STRICT, CARLA } level;

static uint64_t rng_state;
static uint64_t rnd_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rnd(void) { return (double)(rnd_u64() >> 11) * 0x1.0p-53; }

static double dist3(sn_vec3 a, sn_vec3 b) { return sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)); }

static sn_lanekey key_of_wp(const sn_map *m, const sn_waypoint *w)
{
    return (sn_lanekey){sn_odr_road_index(m->odr, w->road_id), (uint32_t)w->section_id, w->lane_id};
}

/* ---- (a) continuity ---------------------------------------------------------------------- */

static void continuity(const char *name, const sn_map *m, level lv)
{
    const sn_odr *o = m->odr;
    size_t links = 0, over_1mm = 0, over_2cm = 0, dlinks = 0, d_over_2cm = 0;
    double worst = 0, dworst = 0;
    char worst_at[160] = "";
    for (int fwd = 1; fwd >= 0; fwd--)
        for (uint32_t ri = 0; ri < o->n_roads; ri++) {
            const sn_odr_road *r = &o->roads[ri];
            for (uint32_t si = 0; si < r->n_sections; si++) {
                const sn_odr_section *sec = &r->sections[si];
                for (uint32_t li = 0; li < sec->n_lanes; li++) {
                    int id = sec->lanes[li].id;
                    if (id == 0)
                        continue;
                    sn_lanekey k = {(int32_t)ri, si, id}, nk[64];
                    double ns[64];
                    int dir = sn_map_lane_dir(r, id) * (fwd ? 1 : -1);
                    sn_waypoint a, b;
                    sn_map_make_waypoint(m, k, dir > 0 ? sec->s_end : sec->s, &a);
                    size_t n = sn_map_successors(m, k, fwd, nk, ns, 64);
                    for (size_t i = 0; i < n && i < 64; i++) {
                        sn_map_make_waypoint(m, nk[i], ns[i], &b);
                        double g = dist3(a.transform.location, b.transform.location);
                        links++;
                        over_1mm += g > 1e-3, over_2cm += g > 0.02;
                        if (a.lane_type == SN_LANE_DRIVING && b.lane_type == SN_LANE_DRIVING) {
                            dlinks++, d_over_2cm += g > 0.02;
                            dworst = fmax(dworst, g);
                        }
                        if (g > worst) {
                            worst = g;
                            snprintf(worst_at, sizeof worst_at, "%s road %d section %u lane %d -> road %d section %u lane %d",
                                     fwd ? "next" : "previous", r->id, si, id, o->roads[nk[i].road].id, nk[i].section,
                                     nk[i].lane);
                        }
                    }
                }
            }
        }
    /* Every link one way is there the other way: A -> B forward iff B -> A backward. */
    size_t one_way = 0;
    for (int fwd = 1; fwd >= 0; fwd--)
        for (uint32_t ri = 0; ri < o->n_roads; ri++)
            for (uint32_t si = 0; si < o->roads[ri].n_sections; si++) {
                const sn_odr_section *sec = &o->roads[ri].sections[si];
                for (uint32_t li = 0; li < sec->n_lanes; li++) {
                    if (!sec->lanes[li].id)
                        continue;
                    sn_lanekey k = {(int32_t)ri, si, sec->lanes[li].id}, nk[64], bk[64];
                    double ns[64], bs[64];
                    size_t n = sn_map_successors(m, k, fwd, nk, ns, 64);
                    for (size_t i = 0; i < n && i < 64; i++) {
                        size_t nb = sn_map_successors(m, nk[i], !fwd, bk, bs, 64);
                        bool back = false;
                        for (size_t j = 0; j < nb && j < 64; j++)
                            back |= bk[j].road == k.road && bk[j].section == k.section && bk[j].lane == k.lane;
                        if (!back && ++one_way <= 3)
                            fprintf(stderr, "%s: (a) %s road %d section %u lane %d -> road %d section %u lane %d, not back\n",
                                    name, fwd ? "next" : "previous", o->roads[ri].id, si, k.lane, o->roads[nk[i].road].id,
                                    nk[i].section, nk[i].lane);
                    }
                }
            }
    printf("%s: (a) %zu lane links (both ways): worst gap %.3g mm (%s); %zu over 1 mm, %zu over 2 cm; %zu one way only; "
           "between driving lanes: %zu links, worst %.3g mm, %zu over 2 cm\n",
           name, links, worst * 1e3, worst_at, over_1mm, over_2cm, one_way, dlinks, dworst * 1e3, d_over_2cm);
    if (lv == STRICT)
        CHECK(one_way == 0, "%s: %zu lane links that the other direction does not have", name, one_way);
    else
        CHECK(one_way * 100 <= links, "%s: %zu of %zu lane links one way only", name, one_way, links);
    CHECK(links > 0, "%s: no lane links at all", name);
    if (lv == STRICT)
        CHECK(over_1mm == 0, "%s: %zu lane links with a gap over 1 mm (worst %.3g mm: %s)", name, over_1mm, worst * 1e3,
              worst_at);
    else
        CHECK(d_over_2cm * 100 <= dlinks, "%s: %zu of %zu links between driving lanes with a gap over 2 cm", name,
              d_over_2cm, dlinks); /* filler lanes of type none link by id alone: not checked */
}

/* ---- (b) the lane at a point: a brute force ---------------------------------------------- */

typedef struct bsec {
    int32_t road;
    uint32_t section;
    double lo[2], hi[2];   /* horizontal box, OpenDRIVE frame, inflated */
    double *sx, *sy, *ss;  /* the reference line every STEP m */
    uint32_t n;
} bsec;

#define STEP 0.5

typedef struct bcand {
    int32_t road;
    uint32_t section;
    int lane;
    double z, edge; /* surface height; horizontal distance to the nearest border or section end */
} bcand;

static bsec *brute_prepare(const sn_map *m, size_t *n_out)
{
    const sn_odr *o = m->odr;
    size_t n = 0;
    for (uint32_t ri = 0; ri < o->n_roads; ri++)
        n += o->roads[ri].n_sections;
    bsec *b = calloc(n ? n : 1, sizeof *b);
    size_t k = 0;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            bsec *q = &b[k++];
            q->road = (int32_t)ri, q->section = si;
            double len = sec->s_end - sec->s;
            q->n = len > 0 ? (uint32_t)ceil(len / STEP) + 1 : 0;
            q->sx = malloc((q->n + 1) * sizeof(double)), q->sy = malloc((q->n + 1) * sizeof(double));
            q->ss = malloc((q->n + 1) * sizeof(double));
            q->lo[0] = q->lo[1] = INFINITY, q->hi[0] = q->hi[1] = -INFINITY;
            for (uint32_t i = 0; i < q->n; i++) {
                double s = q->n > 1 ? sec->s + len * i / (q->n - 1) : sec->s;
                sn_odr_pose p = sn_odr_ref_line(r, s);
                q->sx[i] = p.x, q->sy[i] = p.y, q->ss[i] = s;
                double tl = sn_odr_lane_border(r, sec, (int)sec->n_left, s), tr = sn_odr_lane_border(r, sec, -(int)sec->n_right, s);
                double reach = fmax(fabs(tl), fabs(tr)) + 1.0;
                q->lo[0] = fmin(q->lo[0], p.x - reach), q->hi[0] = fmax(q->hi[0], p.x + reach);
                q->lo[1] = fmin(q->lo[1], p.y - reach), q->hi[1] = fmax(q->hi[1], p.y + reach);
            }
        }
    }
    *n_out = k;
    return b;
}

static void brute_free(bsec *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(b[i].sx), free(b[i].sy), free(b[i].ss);
    free(b);
}

static double dist2_at(const sn_odr_road *r, double s, double x, double y)
{
    sn_odr_pose p = sn_odr_ref_line(r, s);
    return (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y);
}

/* Every (road, section, lane) whose area holds (x, y), OpenDRIVE frame; *near_edge: the point
** is within 1 cm of a lane's border or a section's end somewhere. */
static size_t brute(const sn_map *m, const bsec *b, size_t nb, double x, double y, bcand *out, size_t cap,
                    bool *near_edge)
{
    size_t n = 0;
    *near_edge = false;
    for (size_t i = 0; i < nb; i++) {
        const bsec *q = &b[i];
        if (!q->n || x < q->lo[0] || x > q->hi[0] || y < q->lo[1] || y > q->hi[1])
            continue;
        const sn_odr_road *r = &m->odr->roads[q->road];
        const sn_odr_section *sec = &r->sections[q->section];
        uint32_t best = 0;
        double bd = INFINITY;
        for (uint32_t j = 0; j < q->n; j++) {
            double d = (q->sx[j] - x) * (q->sx[j] - x) + (q->sy[j] - y) * (q->sy[j] - y);
            if (d < bd)
                bd = d, best = j;
        }
        /* golden-section search around the nearest sample */
        double a = fmax(sec->s, q->ss[best] - STEP), c = fmin(sec->s_end, q->ss[best] + STEP);
        const double g = 0.6180339887498949;
        double x1 = c - g * (c - a), x2 = a + g * (c - a), f1 = dist2_at(r, x1, x, y), f2 = dist2_at(r, x2, x, y);
        for (int it = 0; it < 60 && c - a > 1e-10; it++) {
            if (f1 < f2)
                c = x2, x2 = x1, f2 = f1, x1 = c - g * (c - a), f1 = dist2_at(r, x1, x, y);
            else
                a = x1, x1 = x2, f1 = f2, x2 = a + g * (c - a), f2 = dist2_at(r, x2, x, y);
        }
        double s = 0.5 * (a + c);
        if (dist2_at(r, sec->s, x, y) < dist2_at(r, s, x, y))
            s = sec->s;
        if (dist2_at(r, sec->s_end, x, y) < dist2_at(r, s, x, y))
            s = sec->s_end;
        sn_odr_pose p = sn_odr_ref_line(r, s);
        double dx = x - p.x, dy = y - p.y;
        double along = dx * cos(p.hdg) + dy * sin(p.hdg), t = -dx * sin(p.hdg) + dy * cos(p.hdg);
        /* distance along s to the section's ends (1 m/m on the reference line: enough for 1 cm) */
        double to_end = fmin(s - sec->s, sec->s_end - s);
        if (fabs(along) > 1e-6) { /* beyond the section's end: near it when beside its lanes */
            double tl = sn_odr_lane_border(r, sec, (int)sec->n_left, s), tr = sn_odr_lane_border(r, sec, -(int)sec->n_right, s);
            if (fabs(along) < 0.02 && t < tl + 0.01 && t > tr - 0.01)
                *near_edge = true;
            continue;
        }
        for (uint32_t li = 0; li < sec->n_lanes; li++) {
            int id = sec->lanes[li].id;
            if (id == 0)
                continue;
            double ti, to;
            sn_odr_lane_span(r, sec, id, s, &ti, &to);
            double lo = fmin(ti, to), hi = fmax(ti, to);
            if (hi - lo < 1e-6)
                continue;
            double edge = fmin(fabs(t - lo), fabs(t - hi));
            if (edge < 0.01)
                *near_edge = true;
            if (t > lo && t < hi && n < cap) {
                double pt[3];
                sn_odr_point(r, s, t, 0, pt);
                out[n++] = (bcand){q->road, q->section, id, pt[2], fmin(edge, to_end)};
            }
        }
    }
    return n;
}

static void lane_at_point(const char *name, const sn_map *m, level lv)
{
    size_t nb;
    bsec *b = brute_prepare(m, &nb);
    rng_state = 12345;
    size_t agree = 0, agree_on = 0, ambiguous = 0, differ = 0, ties = 0;
    bcand c[256];
    for (int i = 0; i < N_POINTS; i++) {
        double wx = m->lo.x + (m->hi.x - m->lo.x) * rnd(), wy = m->lo.y + (m->hi.y - m->lo.y) * rnd();
        double x = wx, y = -wy; /* OpenDRIVE frame */
        bool near_edge;
        size_t n = brute(m, b, nb, x, y, c, 256, &near_edge);
        double z = n ? c[rnd_u64() % n].z : m->lo.z - 1 + (m->hi.z - m->lo.z + 2) * rnd();
        /* the nearest surface; on equal heights (to 1e-9) the lowest road, section, lane wins,
        ** as the engine breaks ties; heights within 2 cm of each other: ambiguous */
        int best = -1;
        bool amb = near_edge;
        for (size_t k = 0; k < n; k++) {
            if (best < 0) {
                best = (int)k;
                continue;
            }
            double dk = fabs(c[k].z - z), db = fabs(c[best].z - z);
            bool same = c[k].road == c[best].road && c[k].lane == c[best].lane;
            if (dk < db - 1e-9 || (fabs(dk - db) <= 1e-9 && (c[k].road < c[best].road ||
                (c[k].road == c[best].road && (c[k].section < c[best].section ||
                 (c[k].section == c[best].section && c[k].lane < c[best].lane))))))
                best = (int)k;
            (void)same;
        }
        for (size_t k = 0; best >= 0 && k < n; k++) {
            if ((int)k == best || (c[k].road == c[best].road && c[k].lane == c[best].lane))
                continue;
            double dk = fabs(c[k].z - z), db = fabs(c[best].z - z);
            if (fabs(dk - db) <= 1e-9)
                ties++;
            else if (dk - db < 0.02)
                amb = true;
        }
        if (best >= 0 && c[best].edge < 0.01)
            amb = true;
        if (getenv("MAPQ_DEBUG") && amb && ambiguous < 20)
            fprintf(stderr, "amb (%.3f, %.3f, %.3f): near_edge %d, %zu cands, best edge %.4f\n", wx, wy, z, near_edge, n,
                    best >= 0 ? c[best].edge : -1.0);
        sn_waypoint wp;
        sn_error err = {0};
        sn_status st = sn_map_waypoint(m, (sn_vec3){wx, wy, z}, false, 0xFFFFFFFFu, &wp, &err);
        bool ok;
        if (best < 0)
            ok = st == SN_E_NOT_FOUND;
        else
            ok = st == SN_OK && wp.road_id == m->odr->roads[c[best].road].id && wp.lane_id == c[best].lane;
        if (amb) {
            ambiguous++;
            continue;
        }
        if (ok) {
            agree++;
            agree_on += best >= 0;
        } else {
            differ++;
            if (differ <= 5)
                fprintf(stderr, "%s: (b) at (%.4f, %.4f, %.4f): the engine says %s road %d lane %d, the brute force %s road %d lane %d (%zu candidates)\n",
                        name, wx, wy, z, st ? "no lane:" : "", st ? 0 : wp.road_id, st ? 0 : wp.lane_id,
                        best < 0 ? "no lane" : "", best < 0 ? 0 : m->odr->roads[c[best].road].id, best < 0 ? 0 : c[best].lane, n);
        }
    }
    printf("%s: (b) %d random points: %zu agree (%zu on a lane, %zu off every lane), %zu differ, %zu ambiguous "
           "(within 1 cm of a border or 2 cm of another surface), %zu equal-height overlaps settled by the tie rule\n",
           name, N_POINTS, agree, agree_on, agree - agree_on, differ, ambiguous, ties);
    CHECK(agree_on > 0, "%s: no random point fell on a lane", name);
    if (lv == STRICT)
        CHECK(differ == 0, "%s: %zu points where the engine and the brute force disagree", name, differ);
    else
        CHECK(differ * 1000 <= (size_t)N_POINTS, "%s: %zu points where the engine and the brute force disagree", name, differ);
    CHECK(ambiguous * 100 <= (size_t)N_POINTS * 2, "%s: %zu ambiguous points of %d", name, ambiguous, N_POINTS);
    brute_free(b, nb);
}

/* ---- (c) a waypoint walk ----------------------------------------------------------------- */

/* Length of the lane centre (3-D) per metre of s at a waypoint. */
static double centre_rate(const sn_map *m, const sn_waypoint *w)
{
    sn_lanekey k = key_of_wp(m, w);
    const sn_odr_road *r = &m->odr->roads[k.road];
    const sn_odr_section *sec = &r->sections[k.section];
    double h = 0.01, sa = fmax(sec->s, w->s - h), sb = fmin(sec->s_end, w->s + h);
    if (sb - sa < 1e-6)
        return 1;
    double p[2][3];
    for (int i = 0; i < 2; i++) {
        double s = i ? sb : sa, ti, to;
        sn_odr_lane_span(r, sec, k.lane, s, &ti, &to);
        sn_odr_point(r, s, 0.5 * (ti + to), 0, p[i]);
    }
    return sqrt((p[1][0] - p[0][0]) * (p[1][0] - p[0][0]) + (p[1][1] - p[0][1]) * (p[1][1] - p[0][1]) +
                (p[1][2] - p[0][2]) * (p[1][2] - p[0][2])) / (sb - sa);
}

static size_t driving_waypoints(const sn_map *m, sn_waypoint **out)
{
    size_t n = 0;
    sn_error err = {0};
    sn_map_generate_waypoints(m, 5.0, NULL, 0, &n, &err);
    *out = malloc((n ? n : 1) * sizeof **out);
    sn_map_generate_waypoints(m, 5.0, *out, n, &n, &err);
    return n;
}

static void walk(const char *name, const sn_map *m, level lv)
{
    sn_waypoint *starts;
    size_t n_starts = driving_waypoints(m, &starts);
    CHECK(n_starts > 0, "%s: no driving waypoints", name);
    if (!n_starts) {
        free(starts);
        return;
    }
    rng_state = 777;
    sn_waypoint cur = starts[rnd_u64() % n_starts], nx[64], pv[64];
    size_t steps = 0, restarts = 0, not_driving = 0, bad_step = 0, bad_straight = 0, straight = 0, back_checked = 0,
           back_bad = 0, branches = 0, any_bad = 0;
    double min_step = INFINITY, max_step = 0, worst_back = 0, worst_any = 0;
    sn_error err = {0};
    while (steps * 2.0 < 10000.0) {
        size_t n = 0;
        if (sn_map_next(m, &cur, 2.0, nx, 64, &n, &err) || n == 0) {
            restarts++;
            cur = starts[rnd_u64() % n_starts];
            continue;
        }
        branches += n > 1;
        sn_waypoint w = nx[rnd_u64() % (n < 64 ? n : 64)];
        steps++;
        if (w.lane_type != SN_LANE_DRIVING) {
            if (++not_driving <= 3)
                fprintf(stderr, "%s: (c) next(2) from road %d lane %d s=%.3f leads to road %d lane %d of type %u\n", name,
                        cur.road_id, cur.lane_id, cur.s, w.road_id, w.lane_id, w.lane_type);
        }
        double d = dist3(cur.transform.location, w.transform.location);
        double fa = centre_rate(m, &cur), fb = centre_rate(m, &w);
        double lo = fmin(1.6, 2 * fmin(fa, fb) * 0.97) - 2e-3, hi = 2.05 * fmax(1, fmax(fa, fb) * 1.01) + 2e-3;
        min_step = fmin(min_step, d), max_step = fmax(max_step, d);
        if (d < lo || d > hi) {
            if (++bad_step <= 3)
                fprintf(stderr, "%s: (c) step of %.4f m (allowed %.3f..%.3f) from road %d lane %d s=%.3f to road %d lane %d s=%.3f\n",
                        name, d, lo, hi, cur.road_id, cur.lane_id, cur.s, w.road_id, w.lane_id, w.s);
        }
        bool flat = fabs(fa - 1) < 1e-3 && fabs(fb - 1) < 1e-3;
        if (flat) {
            straight++;
            if (fabs(d - 2) > 0.05 && ++bad_straight <= 3)
                fprintf(stderr, "%s: (c) a straight step of %.4f m from road %d lane %d s=%.3f\n", name, d, cur.road_id,
                        cur.lane_id, cur.s);
        }
        /* back again: previous(2) of next(2) has the start among its branches, anywhere */
        {
            size_t np = 0;
            sn_map_previous(m, &w, 2.0, pv, 64, &np, &err);
            double best = INFINITY;
            for (size_t i = 0; i < np && i < 64; i++)
                best = fmax(0, fmin(best, dist3(pv[i].transform.location, cur.transform.location)));
            worst_any = fmax(worst_any, best);
            if (best > 0.01 && ++any_bad <= 3)
                fprintf(stderr, "%s: (c) previous(next(w)) is %.4f m from w = road %d lane %d s=%.3f (next: road %d lane %d s=%.3f; %zu back)\n",
                        name, best, cur.road_id, cur.lane_id, cur.s, w.road_id, w.lane_id, w.s, np);
        }
        /* back again on a straight stretch of one road, away from its ends */
        const sn_odr_road *r = &m->odr->roads[sn_odr_road_index(m->odr, cur.road_id)];
        if (flat && w.road_id == cur.road_id && w.section_id == cur.section_id && !cur.is_junction &&
            fabs(sn_odr_ref_curvature(r, cur.s)) < 1e-9 && fabs(sn_odr_ref_curvature(r, w.s)) < 1e-9) {
            size_t np = 0;
            sn_map_previous(m, &w, 2.0, pv, 64, &np, &err);
            double best = INFINITY;
            for (size_t i = 0; i < np && i < 64; i++)
                best = fmin(best, dist3(pv[i].transform.location, cur.transform.location));
            back_checked++;
            worst_back = fmax(worst_back, best);
            if (best > 0.01 && ++back_bad <= 3)
                fprintf(stderr, "%s: (c) previous(next(w)) is %.4f m from w (road %d lane %d s=%.3f)\n", name, best,
                        cur.road_id, cur.lane_id, cur.s);
        }
        cur = w;
    }
    printf("%s: (c) walk of %zu steps (%.1f km), %zu restarts at dead ends, %zu splits: steps %.4f..%.4f m, "
           "%zu off driving lanes, %zu steps out of bounds, %zu of %zu straight steps off 2 m +- 5 cm, "
           "previous(next) on straight roads checked %zu times, worst %.3g mm; everywhere: %zu over 1 cm, worst %.3g mm\n",
           name, steps, steps * 2e-3, restarts, branches, min_step, max_step, not_driving, bad_step, bad_straight,
           straight, back_checked, worst_back * 1e3, any_bad, worst_any * 1e3);
    CHECK(steps > 0, "%s: the walk never moved", name);
    if (lv == STRICT) {
        CHECK(not_driving == 0, "%s: the walk left the driving lanes %zu times", name, not_driving);
        CHECK(bad_step == 0 && bad_straight == 0, "%s: %zu steps out of bounds, %zu straight steps off 2 m", name, bad_step,
              bad_straight);
        CHECK(back_bad == 0, "%s: previous(next(w)) missed w %zu times", name, back_bad);
        CHECK(back_checked > 0, "%s: previous(next(w)) never checked", name);
        CHECK(any_bad == 0, "%s: previous(next(w)) missed w %zu times (worst %.3g m)", name, any_bad, worst_any);
    } else {
        CHECK(not_driving * 1000 <= steps, "%s: the walk left the driving lanes %zu times", name, not_driving);
        CHECK((bad_step + bad_straight) * 200 <= steps, "%s: %zu + %zu steps out of bounds", name, bad_step, bad_straight);
        CHECK(back_bad * 100 <= back_checked, "%s: previous(next(w)) missed w %zu times", name, back_bad);
        CHECK(any_bad * 100 <= steps, "%s: previous(next(w)) missed w %zu times of %zu", name, any_bad, steps);
    }
    free(starts);
}

/* ---- (d) spawn points, (e) topology ------------------------------------------------------ */

static void spawn_points(const char *name, const sn_map *m, level lv)
{
    sn_error err = {0};
    size_t n = 0;
    sn_map_spawn_points(m, NULL, 0, &n, &err);
    sn_transform *sp = malloc((n ? n : 1) * sizeof *sp);
    sn_map_spawn_points(m, sp, n, &n, &err);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        sn_vec3 at = sp[i].location;
        at.z -= 0.5;
        sn_waypoint wp;
        sn_status st = sn_map_waypoint(m, at, false, SN_LANE_DRIVING, &wp, &err);
        double dy = st ? 999 : fabs(remainder(wp.transform.rotation.yaw - sp[i].rotation.yaw, 360.0));
        if (st || wp.lane_type != SN_LANE_DRIVING || wp.is_junction || dy > 1.0) {
            if (++bad <= 3)
                fprintf(stderr, "%s: (d) spawn point %zu (%.3f, %.3f, %.3f yaw %.2f): %s road %d lane %d junction %d yaw %.2f\n",
                        name, i, sp[i].location.x, sp[i].location.y, sp[i].location.z, sp[i].rotation.yaw,
                        st ? err.msg : "", wp.road_id, wp.lane_id, wp.junction_id, wp.transform.rotation.yaw);
        }
    }
    printf("%s: (d) %zu spawn points, %zu not on a driving lane outside junctions with its yaw\n", name, n, bad);
    CHECK(n > 0, "%s: no spawn points", name);
    if (lv == STRICT)
        CHECK(bad == 0, "%s: %zu bad spawn points", name, bad);
    else
        CHECK(bad * 100 <= n, "%s: %zu of %zu bad spawn points", name, bad, n);
    free(sp);
}

static void topology(const char *name, const sn_map *m, level lv)
{
    sn_error err = {0};
    size_t n = 0;
    sn_map_topology(m, NULL, 0, &n, &err);
    sn_waypoint *t = malloc((n ? n : 1) * sizeof *t);
    sn_map_topology(m, t, n, &n, &err);
    size_t bad = 0, far = 0;
    double worst = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        sn_lanekey k = key_of_wp(m, &t[i]), nk[64];
        double ns[64];
        const sn_odr_road *r = &m->odr->roads[k.road];
        const sn_odr_section *sec = &r->sections[k.section];
        int dir = sn_map_lane_dir(r, k.lane);
        sn_waypoint end;
        sn_map_make_waypoint(m, k, dir > 0 ? sec->s_end : sec->s, &end);
        CHECK(fabs(t[i].s - (dir > 0 ? sec->s : sec->s_end)) < 1e-9, "%s: topology pair %zu starts at s=%g, not its lane's start",
              name, i / 2, t[i].s);
        size_t nn = sn_map_successors(m, k, true, nk, ns, 64);
        bool found = false;
        for (size_t j = 0; j < nn && j < 64; j++)
            found |= m->odr->roads[nk[j].road].id == t[i + 1].road_id && (int32_t)nk[j].section == t[i + 1].section_id &&
                     nk[j].lane == t[i + 1].lane_id && fabs(ns[j] - t[i + 1].s) < 1e-9;
        if (!nn) /* a dead end: the pair is the lane itself */
            found = t[i + 1].road_id == t[i].road_id && t[i + 1].lane_id == t[i].lane_id && fabs(t[i + 1].s - end.s) < 1e-9;
        bad += !found;
        double g = dist3(end.transform.location, t[i + 1].transform.location);
        worst = fmax(worst, g);
        far += g > (lv == STRICT ? 1e-3 : 0.02);
    }
    printf("%s: (e) %zu topology pairs: %zu not a successor, worst gap %.3g mm, %zu over %s\n", name, n / 2, bad,
           worst * 1e3, far, lv == STRICT ? "1 mm" : "2 cm");
    CHECK(n > 0 && n % 2 == 0, "%s: topology of %zu waypoints", name, n);
    CHECK(bad == 0, "%s: %zu topology pairs whose end is not a successor of their start", name, bad);
    if (lv == STRICT)
        CHECK(far == 0, "%s: %zu topology pairs apart", name, far);
    else
        CHECK(far * 100 <= n / 2, "%s: %zu topology pairs over 2 cm apart", name, far);
    free(t);
}

/* ---- (f) road marks crossed -------------------------------------------------------------- */

static sn_vec3 at_st(const sn_map *m, int32_t ri, double s, double t)
{
    double p[3];
    sn_odr_point(&m->odr->roads[ri], s, t, 0, p);
    return sn_map_world(p);
}

/* Across a road at s from the centre of its outermost left lane to that of its outermost right
** one: the borders between, each lane's own mark, in order; NONE left out. */
static int marks_case(const sn_map *m, int32_t ri, double s, bool verbose)
{
    const sn_odr_road *r = &m->odr->roads[ri];
    const sn_odr_section *sec = &r->sections[sn_odr_section_at(r, s, false)];
    if (!sec->n_left || !sec->n_right)
        return -1;
    for (uint32_t i = 0; i < sec->n_lanes; i++) {
        double a, b;
        sn_odr_lane_span(r, sec, sec->lanes[i].id, s, &a, &b);
        if (sec->lanes[i].id && fabs(a - b) < 0.3)
            return -1;
    }
    double a0, a1, b0, b1;
    sn_odr_lane_span(r, sec, (int)sec->n_left, s, &a0, &a1);
    sn_odr_lane_span(r, sec, -(int)sec->n_right, s, &b0, &b1);
    sn_vec3 A = at_st(m, ri, s, 0.5 * (a0 + a1)), B = at_st(m, ri, s, 0.5 * (b0 + b1));
    /* only where every sample of the segment lies on this road */
    for (int i = 0; i <= 200; i++) {
        double f = i / 200.0;
        sn_map_place pl;
        if (!sn_map_locate(m, (sn_vec3){A.x + (B.x - A.x) * f, A.y + (B.y - A.y) * f, A.z + (B.z - A.z) * f}, 10, 0, &pl) ||
            pl.road != ri)
            return -1;
    }
    int exp_owner[2 * SN_ODR_MAX_LANES + 2], ne = 0;
    for (int id = (int)sec->n_left - 1; id >= -(int)sec->n_right + 1; id--) {
        const sn_odr_mark *mk = sn_odr_mark_at(sec, sn_odr_lane_of(sec, id), s);
        if (mk && mk->type != SN_MARK_NONE)
            exp_owner[ne++] = id;
    }
    sn_mark_crossing out[2 * SN_ODR_MAX_LANES + 2];
    size_t n = 0;
    sn_error err = {0};
    sn_map_marks_crossed(m, A, B, out, 2 * SN_ODR_MAX_LANES + 2, &n, &err);
    bool ok = (int)n == ne;
    for (int i = 0; ok && i < ne; i++) {
        const sn_odr_mark *mk = sn_odr_mark_at(sec, sn_odr_lane_of(sec, exp_owner[i]), s);
        sn_vec3 e = at_st(m, ri, s, sn_odr_lane_border(r, sec, exp_owner[i], s));
        ok = out[i].lane_id == exp_owner[i] && out[i].road_id == r->id && out[i].marking.type == mk->type &&
             out[i].marking.color == mk->color && fabs(out[i].marking.width - mk->width) < 1e-12 &&
             hypot(out[i].location.x - e.x, out[i].location.y - e.y) < 0.02;
    }
    if (!ok && verbose) {
        fprintf(stderr, "marks across road %d at s=%.3f: %zu crossed, %d expected:", r->id, s, n, ne);
        for (size_t i = 0; i < n && i < 2 * SN_ODR_MAX_LANES + 2; i++)
            fprintf(stderr, " [lane %d type %d]", out[i].lane_id, out[i].marking.type);
        fputc('\n', stderr);
    }
    return ok;
}

static void marks_generic(const char *name, const sn_map *m)
{
    size_t cases = 0, good = 0;
    for (uint32_t ri = 0; ri < m->odr->n_roads; ri++) {
        const sn_odr_road *r = &m->odr->roads[ri];
        if (r->junction >= 0)
            continue;
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            if (sec->s_end - sec->s < 10)
                continue;
            int k = marks_case(m, (int32_t)ri, 0.5 * (sec->s + sec->s_end), cases - good < 3);
            if (k < 0)
                continue;
            cases++, good += k;
        }
    }
    printf("%s: (f) marks crossed across %zu road sections: %zu as the roadMark elements say\n", name, cases, good);
    CHECK(good == cases, "%s: %zu of %zu crossings differ from the map's road marks", name, cases - good, cases);
}

static void marks_embedded(const sn_map *m)
{
    /* arm 1 (east, road 1) at s = 50: OpenDRIVE (60, 4.5) on the left sidewalk to (60, -4.5) */
    sn_mark_crossing out[8];
    size_t n = 0;
    sn_error err = {0};
    CHECK(sn_map_marks_crossed(m, (sn_vec3){60, -4.5, 0}, (sn_vec3){60, 4.5, 0}, out, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3, "across arm 1: %zu marks", n);
    if (n == 3) {
        const int lanes[3] = {1, 0, -1}, types[3] = {SN_MARK_SOLID, SN_MARK_SOLID_SOLID, SN_MARK_SOLID};
        const int colors[3] = {SN_MARK_WHITE, SN_MARK_YELLOW, SN_MARK_WHITE};
        const double ys[3] = {-3.5, 0, 3.5}, widths[3] = {0.15, 0.125, 0.15};
        for (int i = 0; i < 3; i++) {
            CHECK(out[i].road_id == 1 && out[i].lane_id == lanes[i], "mark %d: road %d lane %d", i, out[i].road_id, out[i].lane_id);
            CHECK(out[i].marking.type == types[i] && out[i].marking.color == colors[i], "mark %d: type %d colour %d", i,
                  out[i].marking.type, out[i].marking.color);
            CHECK_NEAR(out[i].marking.width, widths[i], 1e-12, "mark width");
            CHECK_NEAR(out[i].location.x, 60, 1e-9, "crossing x");
            CHECK_NEAR(out[i].location.y, ys[i], 1e-6, "crossing y");
        }
    }
    /* the other way round: the same marks in reverse order */
    CHECK(sn_map_marks_crossed(m, (sn_vec3){60, 4.5, 0}, (sn_vec3){60, -4.5, 0}, out, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3 && out[0].lane_id == -1 && out[1].lane_id == 0 && out[2].lane_id == 1, "reverse order (%zu)", n);
    /* arm 3 (west, road 3, inward from x=-110) has its second section from s=50: a broken centre */
    CHECK(sn_map_marks_crossed(m, (sn_vec3){-40, -4.5, 0}, (sn_vec3){-40, 4.5, 0}, out, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3 && out[1].road_id == 3 && out[1].lane_id == 0 && out[1].marking.type == SN_MARK_BROKEN &&
              out[1].marking.color == SN_MARK_WHITE, "arm 3 second section: centre mark type %d", n == 3 ? out[1].marking.type : -1);
    CHECK(sn_map_marks_crossed(m, (sn_vec3){-80, -4.5, 0}, (sn_vec3){-80, 4.5, 0}, out, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3 && out[1].marking.type == SN_MARK_SOLID_SOLID, "arm 3 first section: centre mark type %d",
          n == 3 ? out[1].marking.type : -1);
    /* arm 2 climbs: across it at s = 40 (z = 1.2) */
    CHECK(sn_map_marks_crossed(m, (sn_vec3){-4.5, -50, 1.2}, (sn_vec3){4.5, -50, 1.2}, out, 8, &n, &err) == SN_OK, "%s", err.msg);
    CHECK(n == 3 && out[0].road_id == 2, "across the climbing arm: %zu marks", n);
    /* along a lane: nothing */
    CHECK(sn_map_marks_crossed(m, (sn_vec3){30, 1.75, 0}, (sn_vec3){90, 1.75, 0}, out, 8, &n, &err) == SN_OK && n == 0,
          "along lane -1 of arm 1: %zu marks", n);
}

/* ---- ground truth on the embedded map ---------------------------------------------------- */

static void embedded_truth(const sn_map *m)
{
    sn_error err = {0};
    sn_waypoint w, nx[8];
    size_t n;
    /* arm 1 lane -1 at s=30: centre OpenDRIVE (40, -1.75) -> world (40, 1.75), yaw 0 */
    CHECK(sn_map_waypoint_xodr(m, 1, -1, 30, &w, &err) == SN_OK, "%s", err.msg);
    CHECK_NEAR(w.transform.location.x, 40, 1e-9, "x");
    CHECK_NEAR(w.transform.location.y, 1.75, 1e-9, "y");
    CHECK_NEAR(w.transform.rotation.yaw, 0, 1e-9, "yaw");
    CHECK_NEAR(w.lane_width, 3.5, 1e-12, "lane width");
    /* arm 4 (south, inward) lane 1 travels against s, away from the junction, at world y < 0?
    ** arm 4 runs from OpenDRIVE (0, -110) north to (0, -10): lane 1 is west of it (x = -1.75),
    ** travelling south (OpenDRIVE heading -90 deg: yaw +90 in CARLA's frame) */
    CHECK(sn_map_waypoint_xodr(m, 4, 1, 50, &w, &err) == SN_OK, "%s", err.msg);
    CHECK_NEAR(w.transform.location.x, -1.75, 1e-9, "arm 4 lane 1 x");
    CHECK_NEAR(w.transform.location.y, 60, 1e-9, "arm 4 lane 1 y");
    CHECK_NEAR(w.transform.rotation.yaw, 90, 1e-9, "arm 4 lane 1 yaw");
    /* arm 2 climbs 3 %: pitch along travel of lane -1 (outward, +s) is atan(0.03) */
    CHECK(sn_map_waypoint_xodr(m, 2, -1, 40, &w, &err) == SN_OK, "%s", err.msg);
    CHECK_NEAR(w.transform.location.z, 1.2, 1e-9, "arm 2 height at s=40");
    CHECK_NEAR(w.transform.rotation.pitch, atan(0.03) * 180 / JM_PI, 1e-9, "arm 2 pitch");
    /* lane 1 of arm 1 at s=5 (travelling to the junction): next(10) branches into the three
    ** connecting roads from arm 1, 5 m into each */
    CHECK(sn_map_waypoint_xodr(m, 1, 1, 5, &w, &err) == SN_OK, "%s", err.msg);
    CHECK(sn_map_next(m, &w, 10, nx, 8, &n, &err) == SN_OK && n == 3, "3 branches at the junction (%zu)", n);
    for (size_t i = 0; i < n && i < 8; i++) {
        CHECK(nx[i].road_id == 101 + (int)i && nx[i].lane_id == -1 && nx[i].is_junction && nx[i].junction_id == 100,
              "branch %zu: road %d lane %d", i, nx[i].road_id, nx[i].lane_id);
        CHECK_NEAR(nx[i].s, 5, 1e-9, "5 m into the connecting road");
    }
    /* the right turn from arm 1 (road 101): lane centre on a circle of 8.25 m about (10, -10) world */
    if (n == 3) {
        CHECK_NEAR(hypot(nx[0].transform.location.x - 10, nx[0].transform.location.y + 10), 8.25, 1e-9, "right turn radius");
        CHECK_NEAR(hypot(nx[2].transform.location.x - 10, nx[2].transform.location.y - 10), 11.75, 1e-9, "left turn radius");
        CHECK_NEAR(nx[1].transform.location.x, 5, 1e-9, "straight on: x");
        CHECK_NEAR(nx[1].transform.location.y, -1.75, 1e-9, "straight on: y");
    }
    /* previous from 5 m into connecting road 102 goes back to arm 1 lane 1 at s = 5 */
    if (n == 3) {
        sn_waypoint pv[8];
        CHECK(sn_map_previous(m, &nx[1], 10, pv, 8, &n, &err) == SN_OK && n == 1 && pv[0].road_id == 1 && pv[0].lane_id == 1,
              "previous into arm 1 (%zu)", n);
        if (n == 1)
            CHECK_NEAR(pv[0].s, 5, 1e-9, "back at s=5");
    }
    /* lane at point without projection: on a sidewalk with SN_LANE_ANY, off the road none */
    CHECK(sn_map_waypoint(m, (sn_vec3){50, -4.5, 0}, false, SN_LANE_ANY, &w, &err) == SN_OK && w.lane_id == 2 &&
              w.lane_type == SN_LANE_SIDEWALK, "the left sidewalk of arm 1");
    CHECK(sn_map_waypoint(m, (sn_vec3){50, 2.6, 0}, false, SN_LANE_ANY, &w, &err) == SN_OK && w.lane_id == -1,
          "lane -1 of arm 1 off its centre: %s", err.msg);
    CHECK(sn_map_waypoint(m, (sn_vec3){50, -7.0, 0}, false, SN_LANE_ANY, &w, &err) == SN_E_NOT_FOUND, "beside arm 1");
    CHECK(sn_map_waypoint(m, (sn_vec3){50, -7.0, 0}, true, SN_LANE_DRIVING, &w, &err) == SN_OK && w.lane_id == 1,
          "projected onto the nearest driving lane");
}

/* (g) sn_map_walk_pos (lane places) against sn_map_next / sn_map_previous from every driving
** waypoint 5 m apart, 2 and 5 m each way, and chained 20 steps: the same count and, made whole,
** bit for bit the same waypoints in the same order; the location and is_junction at a place are
** the whole waypoint's. */
static void places(const char *name, const sn_map *m)
{
    sn_waypoint *starts;
    size_t n_starts = driving_waypoints(m, &starts), compared = 0, bad = 0;
    for (size_t i = 0; i < n_starts; i++)
        for (int fw = 0; fw < 2; fw++)
            for (int chain = 0; chain < 2; chain++) {
                double d = chain ? 2.0 : 5.0;
                sn_waypoint cur = starts[i], nx[16], made;
                sn_lanepos p, px[16];
                if (!sn_map_pos_of(m, &cur, &p)) {
                    bad++;
                    continue;
                }
                for (int step = 0; step < (chain ? 20 : 1); step++) {
                    size_t n = 0, np = sn_map_walk_pos(m, &p, d, fw, px, 16);
                    sn_status st = fw ? sn_map_next(m, &cur, d, nx, 16, &n, NULL) : sn_map_previous(m, &cur, d, nx, 16, &n, NULL);
                    if (st)
                        n = 0;
                    compared++;
                    if (n != np) {
                        bad++;
                        break;
                    }
                    for (size_t q = 0; q < n && q < 16; q++) {
                        sn_map_make_waypoint(m, px[q].k, px[q].s, &made);
                        sn_vec3 at = sn_map_pos_location(m, &px[q]);
                        bad += memcmp(&made, &nx[q], sizeof made) != 0 || memcmp(&at, &nx[q].transform.location, sizeof at) != 0 ||
                               sn_map_pos_junction(m, &px[q]) != nx[q].is_junction;
                    }
                    if (!n)
                        break;
                    cur = nx[n > 1 ? n - 1 : 0], p = px[n > 1 ? n - 1 : 0];
                }
            }
    CHECK(bad == 0 && compared > 0, "%s: (g) lane-place walks differ from next/previous in %zu of %zu", name, bad, compared);
    free(starts);
}

/* ---- per map ----------------------------------------------------------------------------- */


/* (h) sn_map_locate at a small radius against a large one: where the large radius's nearest
** place lies within the small radius, the small one finds exactly that place (its rings stop
** at the first whose cells all lie beyond the radius, map_index.c); elsewhere it finds nothing
** or a place within its radius. Points along the lanes' borders (where places are near but
** not on a lane), a third of them at a cell's edge, where the neighbouring cells matter. */
static void locate_radii(const char *name, const sn_map *m)
{
    static const double radii[] = {0.05, 0.3, 0.55, 2.0};
    rng_state = 777;
    size_t same = 0, asked = 0;
    for (int i = 0; i < 20000; i++) {
        const sn_odr *o = m->odr;
        const sn_odr_road *r = &o->roads[rnd_u64() % o->n_roads];
        if (!r->n_sections)
            continue;
        const sn_odr_section *sec = &r->sections[rnd_u64() % r->n_sections];
        const double s = sec->s + (fmin(sec->s_end, r->length) - sec->s) * rnd();
        const int n = (int)(sec->n_left + sec->n_right + 1);
        const int lane = (int)(rnd_u64() % (uint64_t)n) - (int)sec->n_right; /* a border's lane id */
        const double t = sn_odr_lane_border(r, sec, lane, s) + (rnd() - 0.5) * 2.5;
        double p[3];
        sn_odr_point(r, s, t, 0, p);
        sn_vec3 w = sn_map_world(p);
        if (i % 3 == 0) /* onto the nearest cell edge, just inside or outside */
            w.x = m->cell * round(w.x / m->cell) + (rnd() - 0.5) * 1.2;
        w.z += (rnd() - 0.5) * 0.4;
        const uint32_t types = i % 2 ? 0 : (SN_LANE_DRIVING | SN_LANE_SIDEWALK);
        sn_map_place big, small;
        const bool got_big = sn_map_locate(m, w, 40.0, types, &big);
        for (size_t k = 0; k < sizeof radii / sizeof *radii; k++) {
            const bool got = sn_map_locate(m, w, radii[k], types, &small);
            asked++;
            if (got_big && big.outside <= radii[k]) {
                CHECK(got && small.road == big.road && small.section == big.section && small.lane == big.lane &&
                          small.s == big.s && small.t == big.t,
                      "%s: locate at (%.3f, %.3f, %.3f) radius %g: %s (road %d lane %d), radius 40 road %d lane %d "
                      "at %.4f m", name, w.x, w.y, w.z, radii[k], got ? "another place" : "nothing",
                      got ? small.road : -1, got ? small.lane : 0, big.road, big.lane, big.outside);
                same += got;
            } else
                CHECK(!got || small.outside <= radii[k], "%s: locate radius %g found a place %.4f m away", name, radii[k],
                      small.outside);
        }
    }
    printf("%s: locate at radii 0.05-2 m against 40 m: %zu of %zu asks had a place within the radius, each the same\n",
           name, same, asked);
}

static void run_map(const char *name, const sn_map *m, level lv)
{
    continuity(name, m, lv);
    lane_at_point(name, m, lv);
    walk(name, m, lv);
    places(name, m);
    spawn_points(name, m, lv);
    topology(name, m, lv);
    locate_radii(name, m);
    if (lv == STRICT)
        marks_generic(name, m);
}

static int run_dir(const char *dir, level lv)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".xodr"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (int i = 0; i < n; i++) /* a fixed order */
        for (int j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j], names[j] = t;
            }
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        sn_error err = {0};
        sn_map *m = sn_map_open(path, &err);
        CHECK(m != NULL, "%s: %s", path, err.msg);
        if (m) {
            run_map(names[i], m, lv);
            sn_map_close(m);
        }
        free(names[i]);
    }
    return n;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    size_t len;
    char *xml = jm_xml(&len);
    sn_error err = {0};
    sn_map *m = sn_map_open_memory(xml, len, "junction4.xodr", &err);
    CHECK(m != NULL, "the embedded map: %s", err.msg);
    free(xml);
    if (m) {
        CHECK(m->odr->n_warnings == 0, "the embedded map loads without warnings (%s)", sn_map_warning(m, 0));
        embedded_truth(m);
        marks_embedded(m);
        run_map("junction4 (embedded)", m, STRICT);
        sn_map_close(m);
    }
    int shipped = argc > 1 ? run_dir(argv[1], STRICT) : 0;
    const char *carla = getenv("SENSIM_CARLA_MAPS") ? getenv("SENSIM_CARLA_MAPS") : "/work/carla-maps";
    if (!run_dir(carla, CARLA))
        printf("skipped: no CARLA maps (%s)\n", carla);
    int rc = CHECK_DONE();
    if (!rc && !shipped) {
        printf("SKIP: no shipped maps in %s (maps/*.xodr): only the embedded map was tested\n", argc > 1 ? argv[1] : "(none given)");
        return 77;
    }
    return rc;
}
