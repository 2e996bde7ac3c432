/* map_waypoint.c — waypoints and the lane graph: CARLA's carla.Waypoint and its next/previous
** walk through sections, road links and junction connections. */
#include "lanemap.h"

#include "../core/error.h"
#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEG (180.0 / M_PI)

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The marking on a lane's side, as seen by a vehicle travelling it (OpenDRIVE puts a lane's
** road mark on its outer border: the right side for either direction of travel). */
static sn_lane_marking marking_of(const sn_odr_section *sec, const sn_odr_lane *l, double s, int dir)
{
    sn_lane_marking out = {SN_MARK_NONE, SN_MARK_WHITE, SN_LANE_CHANGE_BOTH, 0};
    const sn_odr_mark *mk = sn_odr_mark_at(sec, l, s);
    if (!mk)
        return out;
    out.type = mk->type, out.color = mk->color, out.width = mk->width;
    /* OpenDRIVE's laneChange "increase"/"decrease" name ids (parsed as LEFT/RIGHT for the +s
    ** direction); against s (dir < 0) the sides swap. */
    uint8_t c = mk->lane_change;
    if (dir < 0 && (c == SN_LANE_CHANGE_LEFT || c == SN_LANE_CHANGE_RIGHT))
        c = c == SN_LANE_CHANGE_LEFT ? SN_LANE_CHANGE_RIGHT : SN_LANE_CHANGE_LEFT;
    out.lane_change = c;
    return out;
}

void sn_map_make_waypoint(const sn_map *m, sn_lanekey k, double s, sn_waypoint *out)
{
    const sn_odr_road *r = &m->odr->roads[k.road];
    const sn_odr_section *sec = &r->sections[k.section];
    if (s < sec->s)
        s = sec->s;
    if (s > sec->s_end)
        s = sec->s_end;
    const int dir = sn_map_lane_dir(r, k.lane);
    double a, b;
    sn_odr_lane_span(r, sec, k.lane, s, &a, &b);
    double tc = 0.5 * (a + b);
    double p[3];
    sn_odr_point(r, s, tc, 0, p);
    /* The lane's own tangent: its centre moves sideways where widths or the offset change. */
    double h = 0.01, sa = fmax(sec->s, s - h), sb = fmin(sec->s_end, s + h), ta, tb, x0, x1;
    sn_odr_lane_span(r, sec, k.lane, sa, &ta, &x0);
    sn_odr_lane_span(r, sec, k.lane, sb, &tb, &x1);
    double dt = sb > sa ? (0.5 * (tb + x1) - 0.5 * (ta + x0)) / (sb - sa) : 0;
    sn_odr_pose ref = sn_odr_ref_line(r, s);
    double kappa = sn_odr_ref_curvature(r, s), den = 1 - kappa * tc;
    /* atan2(+-0, x > 0) is +-0: no call on a lane of constant width (most of them) */
    double hdg = ref.hdg + (dt == 0 ? dt : atan2(dt, den > 1e-3 ? den : 1e-3));
    double slope = sn_odr_poly_slope(r->elevation, r->n_elevation, s);
    double se = r->n_superelevation ? sn_odr_superelevation(r, s) : 0;

    memset(out, 0, sizeof *out);
    out->road_id = r->id, out->section_id = (int32_t)k.section, out->lane_id = k.lane, out->s = s;
    out->transform.location = sn_map_world(p);
    double yaw = sn_map_yaw(hdg) + (dir < 0 ? 180.0 : 0.0);
    yaw = fmod(yaw, 360.0);
    if (yaw > 180)
        yaw -= 360;
    if (yaw <= -180)
        yaw += 360;
    out->transform.rotation = (sn_rotation){dir * atan(slope) * DEG, yaw, dir * se * DEG};
    out->lane_width = fabs(b - a);
    const sn_odr_lane *l = sn_odr_lane_of(sec, k.lane);
    out->lane_type = l ? l->type : SN_LANE_NONE;
    out->junction_id = r->junction;
    out->is_junction = r->junction >= 0;
    /* A lane's own road mark is on its outer border, its inner neighbour's (the centre lane's
    ** for lanes +-1) on its inner one. In right-hand traffic the outer border is on the right
    ** of travel; in left-hand traffic (rule="LHT") on the left. */
    const sn_odr_lane *inner = sn_odr_lane_of(sec, k.lane > 0 ? k.lane - 1 : k.lane + 1);
    const bool outer_right = (k.lane < 0) == (dir > 0);
    out->right_marking = marking_of(sec, outer_right ? l : inner, s, dir);
    out->left_marking = marking_of(sec, outer_right ? inner : l, s, dir);
    uint8_t lc = 0;
    if (out->left_marking.lane_change & SN_LANE_CHANGE_LEFT)
        lc |= SN_LANE_CHANGE_LEFT;
    if (out->right_marking.lane_change & SN_LANE_CHANGE_RIGHT)
        lc |= SN_LANE_CHANGE_RIGHT;
    out->lane_change = lc;
    uint64_t id = mix(mix(mix(0xcbf29ce484222325ull, (uint64_t)(uint32_t)r->id), k.section),
                      (uint64_t)(uint32_t)k.lane);
    out->id = mix(id, (uint64_t)llround(s * 1e4)); /* s to 0.1 mm: equal waypoints, equal ids */
}

/* Enters road ri through its end `contact` in lane `lane`, if that lane travels into the road
** from there (forward), or out of the road there (backward: previous() walks against travel). */
static size_t enter(const sn_map *m, int32_t ri, sn_odr_contact contact, int lane, bool forward, sn_lanekey *out,
                    double *s_out, size_t n, size_t cap)
{
    if (ri < 0 || lane == 0)
        return n;
    const sn_odr_road *r = &m->odr->roads[ri];
    int dir = sn_map_lane_dir(r, lane);
    bool at_start = contact != SN_ODR_CONTACT_END;
    bool into = at_start ? dir > 0 : dir < 0;
    if (into != forward)
        return n; /* that lane goes the other way there */
    uint32_t si = at_start ? 0 : r->n_sections - 1;
    if (!sn_odr_lane_of(&r->sections[si], lane))
        return n;
    for (size_t i = 0; i < n && i < cap; i++) /* the same lane by two paths: once */
        if (out[i].road == ri && out[i].section == si && out[i].lane == lane)
            return n;
    if (n < cap) {
        out[n] = (sn_lanekey){ri, si, lane};
        s_out[n] = at_start ? 0 : r->length;
    }
    return n + 1;
}

size_t sn_map_successors(const sn_map *m, sn_lanekey k, bool forward, sn_lanekey *out, double *s_out, size_t cap)
{
    const sn_odr *o = m->odr;
    const sn_odr_road *r = &o->roads[k.road];
    const sn_odr_section *sec = &r->sections[k.section];
    const sn_odr_lane *l = sn_odr_lane_of(sec, k.lane);
    if (!l)
        return 0;
    /* Along s or against it: travel direction, flipped for previous(). */
    int dir = sn_map_lane_dir(r, k.lane) * (forward ? 1 : -1);
    size_t n = 0;
    bool has_link = dir > 0 ? l->has_succ : l->has_pred;
    int link_lane = dir > 0 ? l->succ : l->pred;
    /* Inside the road: the next section (a lane without a link keeps its id, as CARLA does). */
    if (dir > 0 ? k.section + 1 < r->n_sections : k.section > 0) {
        uint32_t ns = dir > 0 ? k.section + 1 : k.section - 1;
        int lane = has_link ? link_lane : k.lane;
        const sn_odr_lane *nl = lane != 0 ? sn_odr_lane_of(&r->sections[ns], lane) : NULL;
        /* ... unless that lane names another one as its own link back (a lane that ends) */
        if (nl && !has_link && (dir > 0 ? nl->has_pred && nl->pred != k.lane : nl->has_succ && nl->succ != k.lane))
            nl = NULL;
        if (nl && sn_map_lane_dir(r, lane) == sn_map_lane_dir(r, k.lane)) {
            if (cap) {
                out[0] = (sn_lanekey){k.road, ns, lane};
                s_out[0] = dir > 0 ? r->sections[ns].s : r->sections[ns].s_end;
            }
            return 1;
        }
        return 0;
    }
    const sn_odr_link *link = dir > 0 ? &r->succ : &r->pred;
    if (link->elem == SN_ODR_ELEM_ROAD) {
        if (has_link)
            n = enter(m, link->index, link->contact, link_lane, forward, out, s_out, n, cap);
    } else if (link->elem == SN_ODR_ELEM_JUNCTION) {
        const sn_odr_junction *j = &o->junctions[link->index];
        for (uint32_t c = 0; c < j->n_connections; c++) {
            const sn_odr_connection *cn = &j->connections[c];
            if (cn->incoming_index != k.road || cn->connecting_index < 0)
                continue;
            for (uint32_t i = 0; i < cn->n_links; i++)
                if (cn->links[i].from == k.lane)
                    n = enter(m, cn->connecting_index, cn->contact, cn->links[i].to, forward, out, s_out, n, cap);
        }
    }
    /* previous() into a junction: the connecting roads that lead to this lane name it in
    ** their own lane links (junction connections list only the incoming side). */
    if (link->elem == SN_ODR_ELEM_JUNCTION && !forward) {
        const sn_odr_junction *j = &o->junctions[link->index];
        for (uint32_t c = 0; c < j->n_connections; c++) {
            const sn_odr_connection *cn = &j->connections[c];
            if (cn->connecting_index < 0)
                continue;
            const sn_odr_road *cr = &o->roads[cn->connecting_index];
            const sn_odr_link *ends[2] = {&cr->pred, &cr->succ};
            for (int e = 0; e < 2; e++) {
                if (ends[e]->elem != SN_ODR_ELEM_ROAD || ends[e]->index != k.road)
                    continue;
                /* Our end the connecting road touches must be the one we leave through. */
                bool ours_start = ends[e]->contact == SN_ODR_CONTACT_START;
                if (ours_start != (dir < 0))
                    continue;
                const sn_odr_section *cs = &cr->sections[e == 0 ? 0 : cr->n_sections - 1];
                for (uint32_t li = 0; li < cs->n_lanes; li++) {
                    const sn_odr_lane *cl = &cs->lanes[li];
                    if (cl->id == 0 || !(e == 0 ? cl->has_pred : cl->has_succ) || (e == 0 ? cl->pred : cl->succ) != k.lane)
                        continue;
                    /* Entering backwards at the end that touches us: the lane must travel towards
                    ** that end (it feeds ours), to be walked back away from us. */
                    int cdir = sn_map_lane_dir(cr, cl->id);
                    if ((e == 0 && cdir < 0) || (e == 1 && cdir > 0)) {
                        bool dup = false;
                        for (size_t q = 0; q < n && q < cap; q++)
                            dup |= out[q].road == cn->connecting_index && out[q].lane == cl->id;
                        if (!dup) {
                            if (n < cap) {
                                out[n] = (sn_lanekey){cn->connecting_index, e == 0 ? 0 : cr->n_sections - 1, cl->id};
                                s_out[n] = e == 0 ? 0 : cr->length;
                            }
                            n++;
                        }
                    }
                }
            }
        }
    }
    return n;
}

/* ---- walking ---- */

#define MAX_BRANCH 64   /* successors of one lane end considered */
#define MAX_HOPS 4096   /* lane ends crossed by one walk: zero-length loops end here */

/* A branch still to walk: where it starts and how far it has to go. */
typedef struct branch {
    sn_lanekey k;
    double s, left;
} branch;

typedef struct walk {
    const sn_map *m;
    sn_waypoint *out;
    sn_lanepos *pos; /* instead of out: the places alone (sn_map_walk_pos) */
    size_t cap, n;
    unsigned hops;
    /* Branches not yet walked: iterative, so no map deepens the C stack. A few fit in `small`;
    ** more (junctions within junctions) go to the heap. */
    branch *stack, small[16];
    unsigned depth, cap_stack;
    bool oom, cut; /* cut: the hop limit ended the walk before every branch was walked */
} walk;

/* Field by field: an initializer would also zero `small`, 512 bytes, on each of the 4 to 5 walks
** a vehicle-frame (route steps, lane changes, refills); walk_from sets the stack itself. */
static void walk_init(walk *w, const sn_map *m, sn_waypoint *out, sn_lanepos *pos, size_t cap)
{
    w->m = m, w->out = out, w->pos = pos, w->cap = cap, w->n = 0, w->hops = 0, w->cut = false;
}

static bool push(walk *w, branch b)
{
    if (w->depth == w->cap_stack) {
        unsigned nc = w->cap_stack * 2;
        branch *ns = w->stack == w->small ? malloc(nc * sizeof *ns) : realloc(w->stack, nc * sizeof *ns);
        if (!ns) {
            w->oom = true;
            return false;
        }
        if (w->stack == w->small)
            memcpy(ns, w->small, sizeof w->small);
        w->stack = ns, w->cap_stack = nc;
    }
    w->stack[w->depth++] = b;
    return true;
}

static void walk_from(walk *w, sn_lanekey k, double s, double left, bool forward)
{
    w->stack = w->small, w->cap_stack = SN_COUNT(w->small), w->depth = 0, w->oom = false;
    push(w, (branch){k, s, left});
    while (w->depth) {
        branch b = w->stack[--w->depth];
        for (;;) {
            const sn_odr_road *r = &w->m->odr->roads[b.k.road];
            const sn_odr_section *sec = &r->sections[b.k.section];
            int dir = sn_map_lane_dir(r, b.k.lane) * (forward ? 1 : -1);
            double end = dir > 0 ? sec->s_end : sec->s, avail = fabs(end - b.s);
            if (b.left <= avail + 1e-9) {
                if (w->n < w->cap && w->pos) {
                    double s = b.s + dir * b.left; /* clamped as sn_map_make_waypoint does */
                    if (s < sec->s)
                        s = sec->s;
                    if (s > sec->s_end)
                        s = sec->s_end;
                    w->pos[w->n] = (sn_lanepos){b.k, s};
                } else if (w->n < w->cap)
                    sn_map_make_waypoint(w->m, b.k, b.s + dir * b.left, &w->out[w->n]);
                w->n++;
                break;
            }
            b.left -= avail;
            if (++w->hops > MAX_HOPS) {
                w->cut = true; /* loops of zero-length roads end here */
                return;
            }
            sn_lanekey nk[MAX_BRANCH];
            double ns[MAX_BRANCH];
            size_t n = sn_map_successors(w->m, b.k, forward, nk, ns, MAX_BRANCH);
            if (n > MAX_BRANCH)
                n = MAX_BRANCH;
            if (n == 0)
                break; /* the lane ends here */
            /* The other branches wait on the stack, last first, so they come out in order. */
            for (size_t i = n - 1; i >= 1; i--)
                if (!push(w, (branch){nk[i], ns[i], b.left}))
                    return;
            b.k = nk[0], b.s = ns[0];
        }
    }
}

static int cmp_wp(const void *a, const void *b)
{
    const sn_waypoint *x = a, *y = b;
    if (x->road_id != y->road_id)
        return x->road_id < y->road_id ? -1 : 1;
    if (x->lane_id != y->lane_id)
        return x->lane_id < y->lane_id ? -1 : 1;
    if (x->section_id != y->section_id)
        return x->section_id < y->section_id ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

static sn_status key_of(const sn_map *m, const sn_waypoint *wp, sn_lanekey *k, sn_error *err)
{
    if (!m || !wp)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    int32_t ri = sn_odr_road_index(m->odr, wp->road_id);
    if (ri < 0)
        return sn_fail(err, SN_E_NOT_FOUND, "map: waypoint of road %d, which the map does not have", (int)wp->road_id);
    const sn_odr_road *r = &m->odr->roads[ri];
    if (wp->section_id < 0 || (uint32_t)wp->section_id >= r->n_sections)
        return sn_fail(err, SN_E_NOT_FOUND, "map: road %d has no lane section %d", (int)wp->road_id, (int)wp->section_id);
    if (wp->lane_id == 0 || !sn_odr_lane_of(&r->sections[wp->section_id], wp->lane_id))
        return sn_fail(err, SN_E_NOT_FOUND, "map: road %d section %d has no lane %d", (int)wp->road_id,
                       (int)wp->section_id, (int)wp->lane_id);
    if (!isfinite(wp->s))
        return sn_fail(err, SN_E_INVALID, "map: waypoint s is not finite");
    *k = (sn_lanekey){ri, (uint32_t)wp->section_id, wp->lane_id};
    return SN_OK;
}

static sn_status walk_api(const sn_map *m, const sn_waypoint *wp, double d, bool forward, sn_waypoint *out, size_t cap,
                          size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    sn_lanekey k;
    sn_status st = key_of(m, wp, &k, err);
    if (st)
        return st;
    if (!(d > 0) || d > 1e6)
        return sn_fail(err, SN_E_RANGE, "map: %s(%g): the distance must be within (0, 1e6] m",
                       forward ? "next" : "previous", d);
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    const sn_odr_section *sec = &m->odr->roads[k.road].sections[k.section];
    double s = fmin(sec->s_end, fmax(sec->s, wp->s));
    walk w;
    walk_init(&w, m, out, NULL, cap);
    walk_from(&w, k, s, d, forward);
    if (w.stack != w.small)
        free(w.stack);
    if (w.oom)
        return sn_fail(err, SN_E_NOMEM, "map: out of memory walking the lanes");
    if (w.cut)
        return sn_fail(err, SN_E_RANGE, "map: %s(%g) crosses more than %d lane ends (branches multiply through "
                       "junctions, or the lanes loop without length): ask for a shorter distance",
                       forward ? "next" : "previous", d, MAX_HOPS);
    size_t got = w.n < cap ? w.n : cap;
    qsort(out, got, sizeof *out, cmp_wp);
    if (n)
        *n = w.n;
    return SN_OK;
}

bool sn_map_pos_of(const sn_map *m, const sn_waypoint *wp, sn_lanepos *out)
{
    if (key_of(m, wp, &out->k, NULL))
        return false;
    const sn_odr_section *sec = &m->odr->roads[out->k.road].sections[out->k.section];
    out->s = fmin(sec->s_end, fmax(sec->s, wp->s));
    return true;
}

/* cmp_wp on places: road id, lane id, section, s. */
static int cmp_pos(const sn_map *m, const sn_lanepos *x, const sn_lanepos *y)
{
    int32_t rx = m->odr->roads[x->k.road].id, ry = m->odr->roads[y->k.road].id;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    if (x->k.lane != y->k.lane)
        return x->k.lane < y->k.lane ? -1 : 1;
    if ((int32_t)x->k.section != (int32_t)y->k.section)
        return (int32_t)x->k.section < (int32_t)y->k.section ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

size_t sn_map_walk_pos(const sn_map *m, const sn_lanepos *from, double d, bool forward, sn_lanepos *out, size_t cap)
{
    walk w;
    walk_init(&w, m, NULL, out, cap);
    walk_from(&w, from->k, from->s, d, forward);
    if (w.stack != w.small)
        free(w.stack);
    if (w.oom || w.cut)
        return 0; /* walk_api's failures, whose count is 0 */
    size_t got = w.n < cap ? w.n : cap;
    /* Stable insertion sort: the order of qsort (a stable merge sort in glibc) on cmp_wp, and
    ** places that compare equal make equal waypoints anyway. */
    for (size_t i = 1; i < got; i++) {
        sn_lanepos v = out[i];
        size_t j = i;
        for (; j > 0 && cmp_pos(m, &out[j - 1], &v) > 0; j--)
            out[j] = out[j - 1];
        out[j] = v;
    }
    return w.n;
}

sn_vec3 sn_map_pos_location(const sn_map *m, const sn_lanepos *p)
{
    const sn_odr_road *r = &m->odr->roads[p->k.road];
    const sn_odr_section *sec = &r->sections[p->k.section];
    double s = p->s, a, b, q[3];
    if (s < sec->s)
        s = sec->s;
    if (s > sec->s_end)
        s = sec->s_end;
    sn_odr_lane_span(r, sec, p->k.lane, s, &a, &b);
    sn_odr_point(r, s, 0.5 * (a + b), 0, q);
    return sn_map_world(q);
}

bool sn_map_pos_junction(const sn_map *m, const sn_lanepos *p)
{
    return m->odr->roads[p->k.road].junction >= 0;
}

sn_status sn_map_next(const sn_map *m, const sn_waypoint *wp, double d, sn_waypoint *out, size_t cap, size_t *n,
                      sn_error *err)
{
    return walk_api(m, wp, d, true, out, cap, n, err);
}

sn_status sn_map_previous(const sn_map *m, const sn_waypoint *wp, double d, sn_waypoint *out, size_t cap, size_t *n,
                          sn_error *err)
{
    return walk_api(m, wp, d, false, out, cap, n, err);
}

#define SN_MAP_MAX_WAYPOINTS 10000000u /* of one next_until_lane_end (some 2 GB of waypoints) */

/* next_until_lane_end (forward) and previous_until_lane_start (against the direction of travel):
** CARLA's GetNextUntilLaneEnd and GetPreviousUntilLaneStart, `fn` naming the call in errors. */
static sn_status until_lane_bound(const sn_map *m, const sn_waypoint *wp, double d, bool forward, const char *fn,
                                  sn_waypoint *out, size_t cap, size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    sn_lanekey k;
    sn_status st = key_of(m, wp, &k, err);
    if (st)
        return st;
    /* generate_waypoints' lower bound: a step below the resolution of s made no progress and
    ** filled the cap of 10 million waypoints at one place (issue 33 item 18) */
    if (!(d >= 0.01) || d > 1e6)
        return sn_fail(err, SN_E_RANGE, "map: %s(%g): the distance must be within [0.01, 1e6] m", fn, d);
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    /* Every d metres while the lane stays on this road (through its sections by their lane
    ** links), then the lane's end (its start, going back) on the road. */
    const sn_odr_road *r = &m->odr->roads[k.road];
    double s = fmin(r->sections[k.section].s_end, fmax(r->sections[k.section].s, wp->s)), rem = d;
    size_t count = 0;
    for (unsigned hops = 0; hops <= MAX_HOPS;) {
        if (count >= SN_MAP_MAX_WAYPOINTS)
            return sn_fail(err, SN_E_RANGE, "map: %s(%g) gives more than %u waypoints: ask for a longer distance", fn,
                           d, SN_MAP_MAX_WAYPOINTS);
        const sn_odr_section *sec = &r->sections[k.section];
        int dir = sn_map_lane_dir(r, k.lane) * (forward ? 1 : -1); /* the walk's way along s */
        double end = dir > 0 ? sec->s_end : sec->s, avail = fabs(end - s);
        if (rem < avail - 1e-9) { /* the next waypoint lies inside this section */
            s += dir * rem;
            if (count < cap)
                sn_map_make_waypoint(m, k, s, &out[count]);
            count++;
            rem = d;
            continue;
        }
        rem -= avail;
        sn_lanekey nk[MAX_BRANCH];
        double ns[MAX_BRANCH];
        bool inside = dir > 0 ? k.section + 1 < r->n_sections : k.section > 0;
        size_t nn = inside ? sn_map_successors(m, k, forward, nk, ns, MAX_BRANCH) : 0;
        if (nn == 0 || nk[0].road != k.road) { /* the lane's end (start) on this road */
            if (count < cap)
                sn_map_make_waypoint(m, k, end, &out[count]);
            count++;
            break;
        }
        k = nk[0], s = ns[0];
        hops++;
    }
    if (n)
        *n = count;
    return SN_OK;
}

sn_status sn_map_next_until_lane_end(const sn_map *m, const sn_waypoint *wp, double d, sn_waypoint *out, size_t cap,
                                     size_t *n, sn_error *err)
{
    return until_lane_bound(m, wp, d, true, "next_until_lane_end", out, cap, n, err);
}

sn_status sn_map_previous_until_lane_start(const sn_map *m, const sn_waypoint *wp, double d, sn_waypoint *out,
                                           size_t cap, size_t *n, sn_error *err)
{
    return until_lane_bound(m, wp, d, false, "previous_until_lane_start", out, cap, n, err);
}

static sn_status side_lane(const sn_map *m, const sn_waypoint *wp, bool left, sn_waypoint *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    sn_lanekey k = {0}; /* set by key_of on success; zeroed for -O3 -Werror=maybe-uninitialized */
    sn_status st = key_of(m, wp, &k, err);
    if (st)
        return st;
    if (!out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output");
    const sn_odr_road *r = &m->odr->roads[k.road];
    int dir = sn_map_lane_dir(r, k.lane);
    /* Travelling +s, left is +t (higher ids); against s it is the other way. Across the
    ** centre line ids jump over 0 (CARLA's get_left_lane gives the opposite lane there). */
    int step = (left ? 1 : -1) * dir;
    int id = k.lane + step;
    if (id == 0)
        id += step;
    if (!sn_odr_lane_of(&r->sections[k.section], id))
        return sn_fail(err, SN_E_NOT_FOUND, "map: lane %d of road %d has no lane on its %s", (int)k.lane, (int)r->id,
                       left ? "left" : "right");
    sn_map_make_waypoint(m, (sn_lanekey){k.road, k.section, id}, wp->s, out);
    return SN_OK;
}

sn_status sn_map_left_lane(const sn_map *m, const sn_waypoint *wp, sn_waypoint *out, sn_error *err)
{
    return side_lane(m, wp, true, out, err);
}

sn_status sn_map_right_lane(const sn_map *m, const sn_waypoint *wp, sn_waypoint *out, sn_error *err)
{
    return side_lane(m, wp, false, out, err);
}

sn_status sn_map_waypoint(const sn_map *m, sn_vec3 loc, bool project, uint32_t types, sn_waypoint *out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m || !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    if (!isfinite(loc.x) || !isfinite(loc.y) || !isfinite(loc.z))
        return sn_fail(err, SN_E_INVALID, "map: get_waypoint: the location is not finite");
    if (!types)
        return sn_fail(err, SN_E_INVALID, "map: get_waypoint: no lane type asked for");
    sn_map_place pl;
    if (!sn_map_locate(m, loc, 50.0, types, &pl))
        return sn_fail(err, SN_E_NOT_FOUND, "map: no lane%s within 50 m of (%g, %g, %g)",
                       types == SN_LANE_ANY ? "" : " of the asked types", loc.x, loc.y, loc.z);
    if (!project && pl.outside > 1e-9)
        return sn_fail(err, SN_E_NOT_FOUND, "map: (%g, %g, %g) is on no lane%s", loc.x, loc.y, loc.z,
                       types == SN_LANE_ANY ? "" : " of the asked types");
    sn_map_make_waypoint(m, (sn_lanekey){pl.road, pl.section, pl.lane}, pl.s, out);
    return SN_OK;
}

sn_status sn_map_waypoint_xodr(const sn_map *m, int32_t road_id, int32_t lane_id, double s, sn_waypoint *out,
                               sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m || !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    int32_t ri = sn_odr_road_index(m->odr, road_id);
    if (ri < 0)
        return sn_fail(err, SN_E_NOT_FOUND, "map: no road %d", (int)road_id);
    const sn_odr_road *r = &m->odr->roads[ri];
    if (!isfinite(s) || s < -1e-6 || s > r->length + 1e-6)
        return sn_fail(err, SN_E_RANGE, "map: s=%g is outside road %d [0, %g]", s, (int)road_id, r->length);
    uint32_t si = sn_odr_section_at(r, s, false);
    if (lane_id == 0 || !sn_odr_lane_of(&r->sections[si], lane_id))
        return sn_fail(err, SN_E_NOT_FOUND, "map: road %d has no lane %d at s=%g", (int)road_id, (int)lane_id, s);
    sn_map_make_waypoint(m, (sn_lanekey){ri, si, lane_id}, s, out);
    return SN_OK;
}

/* ---- whole-map lists ---- */

static sn_status check_list(const sn_waypoint *out, size_t cap, size_t *n, sn_error *err)
{
    if (n)
        *n = 0;
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    return SN_OK;
}

sn_status sn_map_generate_waypoints(const sn_map *m, double d, sn_waypoint *out, size_t cap, size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m)
        return sn_fail(err, SN_E_INVALID, "map: NULL map");
    sn_status st = check_list(out, cap, n, err);
    if (st)
        return st;
    if (!(d >= 0.01) || d > 1e6)
        return sn_fail(err, SN_E_RANGE, "map: generate_waypoints(%g): the distance must be within [0.01, 1e6] m", d);
    size_t count = 0;
    const sn_odr *o = m->odr;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            double len = sec->s_end - sec->s;
            for (uint32_t li = 0; li < sec->n_lanes; li++) {
                const sn_odr_lane *l = &sec->lanes[li];
                if (l->id == 0 || l->type != SN_LANE_DRIVING || len <= 0)
                    continue;
                int dir = sn_map_lane_dir(r, l->id);
                /* Counted, not walked, past the buffer: a caller sizing it asks with cap 0. */
                size_t here = (size_t)floor((len + 1e-9) / d) + 1;
                for (size_t k = 0; k < here && count + k < cap; k++) {
                    double off = k * d, s = dir > 0 ? sec->s + off : sec->s_end - off;
                    sn_map_make_waypoint(m, (sn_lanekey){(int32_t)ri, si, l->id}, s, &out[count + k]);
                }
                count += here;
            }
        }
    }
    if (n)
        *n = count;
    return SN_OK;
}

sn_status sn_map_topology(const sn_map *m, sn_waypoint *out, size_t cap, size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m)
        return sn_fail(err, SN_E_INVALID, "map: NULL map");
    sn_status st = check_list(out, cap, n, err);
    if (st)
        return st;
    size_t count = 0;
    const sn_odr *o = m->odr;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        for (uint32_t si = 0; si < r->n_sections; si++) {
            const sn_odr_section *sec = &r->sections[si];
            if (sec->s_end - sec->s <= 1e-9)
                continue; /* a section without length has no segment */
            for (uint32_t li = 0; li < sec->n_lanes; li++) {
                const sn_odr_lane *l = &sec->lanes[li];
                if (l->id == 0 || l->type != SN_LANE_DRIVING)
                    continue;
                sn_lanekey k = {(int32_t)ri, si, l->id};
                int dir = sn_map_lane_dir(r, l->id);
                double s0 = dir > 0 ? sec->s : sec->s_end, s1 = dir > 0 ? sec->s_end : sec->s;
                sn_lanekey nk[MAX_BRANCH];
                double ns[MAX_BRANCH];
                size_t nn = sn_map_successors(m, k, true, nk, ns, MAX_BRANCH);
                if (nn > MAX_BRANCH)
                    nn = MAX_BRANCH;
                size_t pairs = nn ? nn : 1;
                for (size_t i = 0; i < pairs; i++) {
                    if (count + 1 < cap) {
                        sn_map_make_waypoint(m, k, s0, &out[count]);
                        if (nn)
                            sn_map_make_waypoint(m, nk[i], ns[i], &out[count + 1]);
                        else
                            sn_map_make_waypoint(m, k, s1, &out[count + 1]);
                    }
                    count += 2;
                }
            }
        }
    }
    if (n)
        *n = count;
    return SN_OK;
}

#define SPAWN_SPACING 20.0 /* m between spawn points along a lane */
#define SPAWN_MARGIN 10.0  /* m from either end of a road: clear of junctions */
#define SPAWN_LIFT 0.5     /* m above the road: a vehicle's box clears the surface */

sn_status sn_map_spawn_points(const sn_map *m, sn_transform *out, size_t cap, size_t *n, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (n)
        *n = 0;
    if (!m)
        return sn_fail(err, SN_E_INVALID, "map: NULL map");
    if (cap && !out)
        return sn_fail(err, SN_E_INVALID, "map: NULL output with a capacity of %zu", cap);
    size_t count = 0;
    const sn_odr *o = m->odr;
    for (uint32_t ri = 0; ri < o->n_roads; ri++) {
        const sn_odr_road *r = &o->roads[ri];
        if (r->junction >= 0 || r->length < 2 * SPAWN_MARGIN)
            continue;
        /* Lanes are walked by their ids in the first section; a lane must be driving wherever
        ** a point falls. */
        const sn_odr_section *first = &r->sections[0];
        for (uint32_t li = 0; li < first->n_lanes; li++) {
            int id = first->lanes[li].id;
            if (id == 0)
                continue;
            int dir = sn_map_lane_dir(r, id);
            for (double off = SPAWN_MARGIN; off <= r->length - SPAWN_MARGIN + 1e-9; off += SPAWN_SPACING) {
                double s = dir > 0 ? off : r->length - off;
                uint32_t si = sn_odr_section_at(r, s, false);
                const sn_odr_lane *l = sn_odr_lane_of(&r->sections[si], id);
                if (!l || l->type != SN_LANE_DRIVING)
                    continue;
                sn_waypoint wp;
                sn_map_make_waypoint(m, (sn_lanekey){(int32_t)ri, si, id}, s, &wp);
                if (wp.lane_width < 2.0)
                    continue; /* a lane opening or closing: too narrow for a car */
                if (count < cap) {
                    out[count] = wp.transform;
                    out[count].location.z += SPAWN_LIFT;
                    out[count].rotation.pitch = out[count].rotation.roll = 0;
                }
                count++;
            }
        }
    }
    if (n)
        *n = count;
    return SN_OK;
}
