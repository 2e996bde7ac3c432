/* road_mesh.c — see road_mesh.h. Tessellation of lanes, kerbs and marks.
**
** The chord rule. Each road section is cut into pieces of at most SN_ROAD_PIECE m of s. Inside
** a piece, s is first broken at every place where something may bend or jump: the piece's
** ends, the start of each plan-view geometry and of each width, lane offset, elevation and
** superelevation record. Between two breaks everything is smooth, and s steps are chosen
** there: a first guess from the reference line's curvature k and the widest lane border |t|,
** h = sqrt(8 e / k_t) with k_t = k / (1 - k |t|) (an arc's sagitta is h^2 k / 8, and a border
** t away from a line of curvature k bends with k_t), then the step is checked: at 7 points
** inside it (1/8 .. 7/8) every lane border's true 3-D point (sn_odr_point: plan view,
** elevation and superelevation) is compared with the straight edge between the step's end
** points at the same fraction, and the step is halved until none is farther than
** CHECK_TOL = 0.75 SN_ROAD_TOL. The point at the same fraction is no nearer to the edge than
** the edge's nearest point, so this bounds the distance from above; the quarter of the
** tolerance left over covers what lies between the checked points of an error that is smooth
** there. Lane width and offset changes (cubic records) and hills are caught by the check, not
** by the guess. Lanes of a piece share its samples, so neighbouring lanes meet edge to edge
** with identical vertices (no cracks). Marks reuse the samples of their piece, plus the
** ends of their dashes. */
#include "road_mesh.h"

#include "../core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_TOL (0.75 * SN_ROAD_TOL)
#define MIN_STEP 1e-3   /* m of s: a step no check halves further */
#define BREAK_EPS 1e-7  /* m of s: breaks closer than this are one (pieces are longer) */
/* Chord checks a piece may make: 64 and 40 a metre. Real roads take a few a metre (steps of
** decimetres or more); a surface that twists faster than any road (a fuzzed superelevation
** c = 1, 22 500 rad at 150 m) halved every step to MIN_STEP: 16 s for 150 m, now an error. */
#define CHECKS_BASE 64
#define CHECKS_PER_M 40

/* Index order = chunk order within a piece. */
enum { CAT_ROADS, CAT_SIDEWALK, CAT_TERRAIN, CAT_RAIL, CAT_KERB, CAT_WHITE, CAT_YELLOW, CAT_BLUE, CAT_GREEN, CAT_RED };

const sn_road_category sn_road_categories[SN_ROAD_N_CATEGORIES] = {
    [CAT_ROADS] = {SN_TAG_ROADS, SN_ROAD_SURFACE, {64, 64, 68}},      /* asphalt, dark grey */
    [CAT_SIDEWALK] = {SN_TAG_SIDEWALK, SN_ROAD_SURFACE, {176, 176, 170}}, /* concrete, light grey */
    [CAT_TERRAIN] = {SN_TAG_TERRAIN, SN_ROAD_SURFACE, {112, 112, 72}},  /* verge, green-brown */
    [CAT_RAIL] = {SN_TAG_RAIL_TRACK, SN_ROAD_SURFACE, {96, 86, 76}},
    [CAT_KERB] = {SN_TAG_SIDEWALK, SN_ROAD_KERB_FACE, {150, 150, 146}},
    [CAT_WHITE] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 236, 236}},
    [CAT_YELLOW] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {236, 190, 40}},
    [CAT_BLUE] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {40, 90, 210}},
    [CAT_GREEN] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {40, 160, 70}},
    [CAT_RED] = {SN_TAG_ROAD_LINE, SN_ROAD_MARK, {210, 50, 40}},
};

uint8_t sn_road_lane_tag(uint32_t type)
{
    switch (type) {
    case SN_LANE_SIDEWALK: return SN_TAG_SIDEWALK;
    case SN_LANE_SHOULDER:
    case SN_LANE_BORDER:
    case SN_LANE_MEDIAN:
    case SN_LANE_RESTRICTED:
    case SN_LANE_NONE: return SN_TAG_TERRAIN;
    case SN_LANE_TRAM:
    case SN_LANE_RAIL: return SN_TAG_RAIL_TRACK;
    case 0: return 0;
    default: return SN_TAG_ROADS; /* driving, stop, biking, parking, bidirectional, entry, exit, ramps, special, roadworks */
    }
}

static int lane_category(uint32_t type)
{
    switch (sn_road_lane_tag(type)) {
    case SN_TAG_SIDEWALK: return CAT_SIDEWALK;
    case SN_TAG_TERRAIN: return CAT_TERRAIN;
    case SN_TAG_RAIL_TRACK: return CAT_RAIL;
    case SN_TAG_ROADS: return CAT_ROADS;
    default: return -1;
    }
}

static bool raised(uint32_t type) { return type == SN_LANE_SIDEWALK; }

static int mark_category(uint8_t color)
{
    switch (color) {
    case SN_MARK_YELLOW: return CAT_YELLOW;
    case SN_MARK_BLUE: return CAT_BLUE;
    case SN_MARK_GREEN: return CAT_GREEN;
    case SN_MARK_RED: return CAT_RED;
    default: return CAT_WHITE; /* standard, white, other */
    }
}

/* ---- output ---- */

typedef struct bucket {
    double (*v)[3];
    uint32_t (*t)[3];
    size_t n_v, cap_v, n_t, cap_t;
} bucket;

typedef struct builder {
    sn_road_mesh *m;
    size_t cap_v, cap_t, cap_c;
    bucket b[SN_ROAD_N_CATEGORIES];
    bool oom, too_big;
    /* the strip being laid */
    bucket *sb;
    bool have_prev;
    size_t prev; /* index of the previous pair's first vertex */
    /* the piece's samples */
    double *s, *hdg, *tb; /* tb[i * n_b + k]: border of lane id k - n_right at sample i */
    size_t n_s, cap_s, cap_tb, cap_hdg, n_b;
    double *breaks;
    size_t n_breaks, cap_breaks;
    /* a piece too twisted to mesh within its checks (CHECKS_BASE): where, for the error */
    bool too_bent;
    double bent_s;
} builder;

static size_t push_vertex(builder *B, bucket *b, const double p[3])
{
    if (!sn_grow((void **)&b->v, &b->cap_v, b->n_v + 1, sizeof *b->v)) {
        B->oom = true;
        return 0;
    }
    memcpy(b->v[b->n_v], p, sizeof b->v[0]);
    return b->n_v++;
}

/* Triangle (i, j, k) of a bucket, wound so its normal has a positive dot with `want`;
** dropped when degenerate or not finite. */
static void push_tri(builder *B, bucket *b, size_t i, size_t j, size_t k, const double want[3])
{
    if (B->oom)
        return;
    const double *a = b->v[i], *c = b->v[j], *d = b->v[k];
    double e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (!(len2 > 1e-16) || !isfinite(len2))
        return; /* a lane of no width here, or a step of nothing */
    if (b->n_v > UINT32_MAX - 4) {
        B->too_big = true;
        return;
    }
    if (!sn_grow((void **)&b->t, &b->cap_t, b->n_t + 1, sizeof *b->t)) {
        B->oom = true;
        return;
    }
    bool flip = n[0] * want[0] + n[1] * want[1] + n[2] * want[2] < 0;
    b->t[b->n_t][0] = (uint32_t)i;
    b->t[b->n_t][1] = (uint32_t)(flip ? k : j);
    b->t[b->n_t][2] = (uint32_t)(flip ? j : k);
    b->n_t++;
}

static void strip_begin(builder *B, int cat)
{
    B->sb = &B->b[cat];
    B->have_prev = false;
}

/* The next pair of a strip (one edge across it); with the previous pair, a quad of two triangles. */
static void strip_push(builder *B, const double p[3], const double q[3], const double want[3])
{
    bucket *b = B->sb;
    size_t i = push_vertex(B, b, p), j = push_vertex(B, b, q);
    if (B->oom)
        return;
    if (B->have_prev) {
        size_t a0 = B->prev, b0 = B->prev + 1;
        push_tri(B, b, a0, b0, j, want);
        push_tri(B, b, a0, j, i, want);
    }
    B->prev = i;
    B->have_prev = true;
    (void)j;
}

/* The piece's buckets become chunks, in category order. */
static void flush(builder *B, int32_t road)
{
    sn_road_mesh *m = B->m;
    for (int c = 0; c < SN_ROAD_N_CATEGORIES; c++) {
        bucket *b = &B->b[c];
        if (!B->oom && !B->too_big && b->n_t) {
            if ((size_t)m->n_v + b->n_v > UINT32_MAX || (size_t)m->n_t + b->n_t > UINT32_MAX ||
                m->n_chunks == UINT32_MAX) {
                B->too_big = true;
            } else if (!sn_grow((void **)&m->v, &B->cap_v, m->n_v + b->n_v, sizeof *m->v) ||
                       !sn_grow((void **)&m->t, &B->cap_t, m->n_t + b->n_t, sizeof *m->t) ||
                       !sn_grow((void **)&m->chunks, &B->cap_c, m->n_chunks + 1, sizeof *m->chunks)) {
                B->oom = true;
            } else {
                sn_road_chunk *k = &m->chunks[m->n_chunks++];
                memset(k, 0, sizeof *k);
                k->first = m->n_t, k->count = (uint32_t)b->n_t;
                k->v_first = m->n_v, k->v_count = (uint32_t)b->n_v;
                k->category = (uint8_t)c;
                k->tag = sn_road_categories[c].tag;
                k->part = sn_road_categories[c].part;
                memcpy(k->rgb, sn_road_categories[c].rgb, 3);
                k->road = road;
                for (int d = 0; d < 3; d++)
                    k->lo[d] = INFINITY, k->hi[d] = -INFINITY;
                for (size_t i = 0; i < b->n_v; i++)
                    for (int d = 0; d < 3; d++) {
                        k->lo[d] = fmin(k->lo[d], b->v[i][d]);
                        k->hi[d] = fmax(k->hi[d], b->v[i][d]);
                    }
                for (int d = 0; d < 3; d++) {
                    m->lo[d] = fmin(m->lo[d], k->lo[d]);
                    m->hi[d] = fmax(m->hi[d], k->hi[d]);
                }
                memcpy(m->v + m->n_v, b->v, b->n_v * sizeof *b->v);
                memcpy(m->t + m->n_t, b->t, b->n_t * sizeof *b->t);
                m->n_v += (uint32_t)b->n_v;
                m->n_t += (uint32_t)b->n_t;
            }
        }
        b->n_v = b->n_t = 0;
    }
}

/* ---- sampling ---- */

static void world_point(const sn_odr_road *r, double s, double t, double h, double out[3])
{
    double p[3];
    sn_odr_point(r, s, t, h, p);
    sn_vec3 w = sn_map_world(p);
    out[0] = w.x, out[1] = w.y, out[2] = w.z;
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* The largest distance, at 7 points inside [s0, s1], of any lane border from the straight edge
** between its ends (at the same fraction). */
static double step_error(const sn_odr_road *r, const sn_odr_section *sec, double s0, double s1)
{
    double worst = 0;
    const int n_r = (int)sec->n_right, n_l = (int)sec->n_left;
    for (int id = -n_r; id <= n_l; id++) {
        double p0[3], p1[3];
        world_point(r, s0, sn_odr_lane_border(r, sec, id, s0), 0, p0);
        world_point(r, s1, sn_odr_lane_border(r, sec, id, s1), 0, p1);
        for (int k = 1; k < 8; k++) {
            double f = k / 8.0, s = s0 + f * (s1 - s0), p[3], q[3];
            world_point(r, s, sn_odr_lane_border(r, sec, id, s), 0, p);
            for (int d = 0; d < 3; d++)
                q[d] = p0[d] + f * (p1[d] - p0[d]);
            double e = dist3(p, q);
            if (!(e <= worst)) /* NaN counts as the worst */
                worst = isnan(e) ? INFINITY : e;
        }
    }
    return worst;
}

static bool add_break(builder *B, double s, double lo, double hi)
{
    if (!(s > lo && s < hi))
        return true;
    if (!sn_grow((void **)&B->breaks, &B->cap_breaks, B->n_breaks + 1, sizeof *B->breaks)) {
        B->oom = true;
        return false;
    }
    B->breaks[B->n_breaks++] = s;
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool push_sample(builder *B, const sn_odr_road *r, const sn_odr_section *sec, double s)
{
    if (!sn_grow((void **)&B->s, &B->cap_s, B->n_s + 1, sizeof *B->s) ||
        !sn_grow((void **)&B->hdg, &B->cap_hdg, B->n_s + 1, sizeof *B->hdg) ||
        !sn_grow((void **)&B->tb, &B->cap_tb, (B->n_s + 1) * B->n_b, sizeof *B->tb)) {
        B->oom = true;
        return false;
    }
    B->s[B->n_s] = s;
    B->hdg[B->n_s] = sn_odr_ref_line(r, s).hdg;
    for (size_t k = 0; k < B->n_b; k++)
        B->tb[B->n_s * B->n_b + k] = sn_odr_lane_border(r, sec, (int)k - (int)sec->n_right, s);
    B->n_s++;
    return true;
}

/* The samples of piece [pa, pb] of a section (see the chord rule at the top). */
static bool sample_piece(builder *B, const sn_odr_road *r, const sn_odr_section *sec, double pa, double pb)
{
    B->n_s = B->n_breaks = 0;
    for (uint32_t i = 0; i < r->n_geoms; i++)
        add_break(B, r->geoms[i].s, pa, pb);
    for (uint32_t i = 0; i < r->n_elevation; i++)
        add_break(B, r->elevation[i].s, pa, pb);
    for (uint32_t i = 0; i < r->n_superelevation; i++)
        add_break(B, r->superelevation[i].s, pa, pb);
    for (uint32_t i = 0; i < r->n_lane_offset; i++)
        add_break(B, r->lane_offset[i].s, pa, pb);
    for (uint32_t l = 0; l < sec->n_lanes; l++)
        for (uint32_t i = 0; i < sec->lanes[l].n_widths; i++)
            add_break(B, sec->s + sec->lanes[l].widths[i].s, pa, pb);
    if (B->oom)
        return false;
    if (B->n_breaks > 1)
        qsort(B->breaks, B->n_breaks, sizeof *B->breaks, cmp_double);
    if (!add_break(B, pb, pa - 1, pb + 1)) /* the end, last */
        return false;
    if (!push_sample(B, r, sec, pa))
        return false;
    double s0 = pa;
    size_t checks = 0;
    const double budget = CHECKS_BASE + CHECKS_PER_M * (pb - pa);
    for (size_t k = 0; k < B->n_breaks; k++) {
        double b = B->breaks[k];
        if (b - s0 < BREAK_EPS) {
            if (k + 1 == B->n_breaks && s0 != b && B->n_s > 1) { /* the piece ends exactly at its end */
                B->n_s--;
                if (!push_sample(B, r, sec, b))
                    return false;
            }
            continue;
        }
        while (s0 < b) {
            /* the guess: curvature and the widest border */
            double kap = fabs(sn_odr_ref_curvature(r, s0)), tmax = 0, h = b - s0;
            for (size_t j = 0; j < B->n_b; j++)
                tmax = fmax(tmax, fabs(sn_odr_lane_border(r, sec, (int)j - (int)sec->n_right, s0)));
            if (kap > 1e-9) {
                double kt = kap / fmax(0.05, 1 - kap * tmax);
                h = fmin(h, sqrt(8 * CHECK_TOL / kt));
            }
            double s1;
            for (;;) {
                s1 = b - s0 - h < BREAK_EPS ? b : s0 + h;
                if (h <= MIN_STEP)
                    break;
                if ((double)++checks > budget) {
                    B->too_bent = true, B->bent_s = s0;
                    return false;
                }
                if (step_error(r, sec, s0, s1) <= CHECK_TOL)
                    break;
                h *= 0.5;
            }
            if (b - s1 < BREAK_EPS)
                s1 = b;
            if (!push_sample(B, r, sec, s1))
                return false;
            s0 = s1;
        }
    }
    return true;
}

/* ---- lanes, kerbs and marks of one piece ---- */

static double border_at(const builder *B, size_t i, int id, int n_right) { return B->tb[i * B->n_b + (size_t)(id + n_right)]; }

/* The world direction of +t (OpenDRIVE's left normal) at a heading. */
static void left_dir(double hdg, double out[3])
{
    out[0] = -sin(hdg), out[1] = -cos(hdg), out[2] = 0; /* (-sin, cos) with y flipped */
}

static void lanes_of_piece(builder *B, const sn_odr_road *r, const sn_odr_section *sec)
{
    static const double up[3] = {0, 0, 1};
    const int n_r = (int)sec->n_right, n_l = (int)sec->n_left;
    for (int id = -n_r; id <= n_l; id++) {
        if (id == 0)
            continue;
        const sn_odr_lane *l = sn_odr_lane_of(sec, id);
        int cat = l ? lane_category(l->type) : -1;
        if (cat < 0)
            continue;
        int inner = id > 0 ? id - 1 : id + 1;
        double wmax = 0;
        for (size_t i = 0; i < B->n_s; i++)
            wmax = fmax(wmax, fabs(border_at(B, i, id, n_r) - border_at(B, i, inner, n_r)));
        if (!(wmax > 1e-4))
            continue;
        double h = raised(l->type) ? SN_ROAD_KERB : 0;
        strip_begin(B, cat);
        for (size_t i = 0; i < B->n_s; i++) {
            double p[3], q[3];
            world_point(r, B->s[i], border_at(B, i, inner, n_r), h, p);
            world_point(r, B->s[i], border_at(B, i, id, n_r), h, q);
            strip_push(B, p, q, up);
        }
        if (!raised(l->type))
            continue;
        /* Kerb faces toward each neighbour that is not raised: the inner one (across the centre
        ** line for lane +-1) and the outer one. */
        int nb[2] = {inner != 0 ? inner : -id, id > 0 ? id + 1 : id - 1};
        int border[2] = {inner, id};
        for (int side = 0; side < 2; side++) {
            const sn_odr_lane *o = sn_odr_lane_of(sec, nb[side]);
            if (!o || raised(o->type) || lane_category(o->type) < 0)
                continue;
            /* toward the neighbour: inner is toward the centre (-sign(id) in t), outer away */
            double sign = (side == 0 ? -1.0 : 1.0) * (id > 0 ? 1.0 : -1.0);
            strip_begin(B, CAT_KERB);
            for (size_t i = 0; i < B->n_s; i++) {
                double p[3], q[3], want[3];
                double t = border_at(B, i, border[side], n_r);
                world_point(r, B->s[i], t, 0, p);
                world_point(r, B->s[i], t, SN_ROAD_KERB, q);
                left_dir(B->hdg[i], want);
                for (int d = 0; d < 2; d++)
                    want[d] *= sign;
                strip_push(B, p, q, want);
            }
        }
    }
}

/* One strip of paint along the border of lane `id` over [a, b], centred `off` m from it (in t),
** `w` wide. */
static void mark_strip(builder *B, const sn_odr_road *r, const sn_odr_section *sec, int id, int cat, double a,
                       double b, double off, double w)
{
    static const double up[3] = {0, 0, 1};
    if (!(b - a > 1e-3))
        return;
    strip_begin(B, cat);
    for (size_t i = 0; i <= B->n_s + 1; i++) {
        double s;
        if (i == 0)
            s = a;
        else if (i == B->n_s + 1)
            s = b;
        else if (B->s[i - 1] > a + BREAK_EPS && B->s[i - 1] < b - BREAK_EPS)
            s = B->s[i - 1];
        else
            continue;
        double t = (i == 0 || i == B->n_s + 1) ? sn_odr_lane_border(r, sec, id, s)
                                                : border_at(B, i - 1, id, (int)sec->n_right);
        double p[3], q[3];
        world_point(r, s, t + off - w / 2, SN_ROAD_MARK_LIFT, p);
        world_point(r, s, t + off + w / 2, SN_ROAD_MARK_LIFT, q);
        strip_push(B, p, q, up);
    }
}

/* The lines of one mark over [a, b]: solid, or broken from phase origin s_origin. */
static void mark_line(builder *B, const sn_odr_road *r, const sn_odr_section *sec, int id, int cat, double a,
                      double b, double off, double w, bool broken, double s_origin)
{
    if (!broken) {
        mark_strip(B, r, sec, id, cat, a, b, off, w);
        return;
    }
    const double period = SN_ROAD_DASH + SN_ROAD_GAP;
    double k0 = floor((a - s_origin) / period);
    for (double k = k0; s_origin + k * period < b; k += 1) {
        double da = s_origin + k * period, db = da + SN_ROAD_DASH;
        mark_strip(B, r, sec, id, cat, fmax(da, a), fmin(db, b), off, w);
    }
}

static void marks_of_piece(builder *B, const sn_odr_road *r, const sn_odr_section *sec, double pa, double pb)
{
    const int n_r = (int)sec->n_right, n_l = (int)sec->n_left;
    for (int id = -n_r; id <= n_l; id++) {
        const sn_odr_lane *l = sn_odr_lane_of(sec, id);
        if (!l || !l->n_marks || (id != 0 && (raised(l->type) || lane_category(l->type) < 0)))
            continue;
        for (uint32_t k = 0; k < l->n_marks; k++) {
            const sn_odr_mark *mk = &l->marks[k];
            double ra = sec->s + mk->s_offset, rb = k + 1 < l->n_marks ? sec->s + l->marks[k + 1].s_offset : sec->s_end;
            double a = fmax(ra, pa), b = fmin(rb, pb);
            if (!(b > a))
                continue;
            double w = mk->width > 0 && isfinite(mk->width) ? fmin(mk->width, 2.0) : 0.15;
            int cat = mark_category(mk->color);
            /* the first-named line of a double lies toward +t, the second toward -t */
            switch (mk->type) {
            case SN_MARK_SOLID: mark_line(B, r, sec, id, cat, a, b, 0, w, false, ra); break;
            case SN_MARK_BROKEN: mark_line(B, r, sec, id, cat, a, b, 0, w, true, ra); break;
            case SN_MARK_SOLID_SOLID:
            case SN_MARK_SOLID_BROKEN:
            case SN_MARK_BROKEN_SOLID:
            case SN_MARK_BROKEN_BROKEN: {
                bool first_broken = mk->type == SN_MARK_BROKEN_SOLID || mk->type == SN_MARK_BROKEN_BROKEN;
                bool second_broken = mk->type == SN_MARK_SOLID_BROKEN || mk->type == SN_MARK_BROKEN_BROKEN;
                mark_line(B, r, sec, id, cat, a, b, w, w, first_broken, ra);
                mark_line(B, r, sec, id, cat, a, b, -w, w, second_broken, ra);
                break;
            }
            default: break; /* none, other, botts dots, grass, curb: no paint */
            }
        }
    }
}

/* ---- the whole map ---- */

void sn_road_mesh_free(sn_road_mesh *rm)
{
    if (!rm)
        return;
    free(rm->v);
    free(rm->vf);
    free(rm->t);
    free(rm->chunks);
    free(rm);
}

/* One array copied to its count (scenery grows meshes with sn_grow: capacity is not kept). */
static bool copy_array(void **dst, const void *src, size_t n, size_t size)
{
    *dst = NULL;
    if (!n)
        return true;
    *dst = malloc(n * size);
    if (*dst)
        memcpy(*dst, src, n * size);
    return *dst != NULL;
}

sn_road_mesh *sn_road_mesh_dup(const sn_road_mesh *m)
{
    sn_road_mesh *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *m;
    c->v = NULL, c->vf = NULL, c->t = NULL, c->chunks = NULL;
    if (!copy_array((void **)&c->v, m->v, m->n_v, sizeof *m->v) ||
        !copy_array((void **)&c->vf, m->vf, m->n_v, sizeof *m->vf) ||
        !copy_array((void **)&c->t, m->t, m->n_t, sizeof *m->t) ||
        !copy_array((void **)&c->chunks, m->chunks, m->n_chunks, sizeof *m->chunks)) {
        sn_road_mesh_free(c);
        return NULL;
    }
    return c;
}

sn_status sn_road_mesh_build(const sn_map *map, sn_road_mesh **out, sn_error *err)
{
    *out = NULL;
    sn_road_mesh *m = calloc(1, sizeof *m);
    builder B;
    memset(&B, 0, sizeof B);
    if (!m)
        return sn_fail(err, SN_E_NOMEM, "road mesh: out of memory");
    B.m = m;
    for (int d = 0; d < 3; d++)
        m->lo[d] = INFINITY, m->hi[d] = -INFINITY;
    const sn_odr *odr = map ? map->odr : NULL;
    int32_t bent_road = 0;
    for (uint32_t ri = 0; odr && ri < odr->n_roads && !B.oom && !B.too_big && !B.too_bent; ri++) {
        const sn_odr_road *r = &odr->roads[ri];
        if (!r->n_geoms || !(r->length > 0))
            continue;
        for (uint32_t si = 0; si < r->n_sections && !B.oom && !B.too_big && !B.too_bent; si++) {
            const sn_odr_section *sec = &r->sections[si];
            double s0 = sec->s, s1 = fmin(sec->s_end, r->length), len = s1 - s0;
            if (!(len > 1e-6))
                continue;
            B.n_b = sec->n_lanes;
            int pieces = (int)ceil(len / SN_ROAD_PIECE - 1e-9);
            if (pieces < 1)
                pieces = 1;
            for (int p = 0; p < pieces && !B.oom && !B.too_bent; p++) {
                /* the section's end is evaluated inside it: sec is this section throughout */
                double pa = s0 + len * p / pieces, pb = p + 1 == pieces ? s1 : s0 + len * (p + 1) / pieces;
                if (!sample_piece(&B, r, sec, pa, pb)) {
                    if (B.too_bent)
                        bent_road = r->id;
                    break;
                }
                lanes_of_piece(&B, r, sec);
                marks_of_piece(&B, r, sec, pa, pb);
                flush(&B, (int32_t)ri);
            }
        }
    }
    for (int c = 0; c < SN_ROAD_N_CATEGORIES; c++)
        free(B.b[c].v), free(B.b[c].t);
    free(B.s), free(B.hdg), free(B.tb), free(B.breaks);
    if (!B.oom && !B.too_big && m->n_v) {
        m->vf = malloc((size_t)m->n_v * sizeof *m->vf);
        if (!m->vf)
            B.oom = true;
        for (uint32_t i = 0; m->vf && i < m->n_v; i++)
            for (int d = 0; d < 3; d++)
                m->vf[i][d] = (float)m->v[i][d];
    }
    if (B.too_bent) {
        sn_road_mesh_free(m);
        return sn_fail(err, SN_E_INVALID, "%s: road %d near s = %.2f twists faster than a road surface can "
                       "(its superelevation, elevation or lane widths change by radians or metres within centimetres): "
                       "no mesh within %.2f m of it", odr->path ? odr->path : "road mesh", (int)bent_road, B.bent_s,
                       SN_ROAD_TOL);
    }
    if (B.oom || B.too_big) {
        sn_road_mesh_free(m);
        return sn_fail(err, SN_E_NOMEM, "road mesh: %s", B.oom ? "out of memory" : "more than 2^32 vertices");
    }
    *out = m;
    return SN_OK;
}
