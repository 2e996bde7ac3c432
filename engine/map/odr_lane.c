/* odr_lane.c — lanes of a road: sections at s, widths, borders, marks and speed limits. */
#include "odr.h"

#include <math.h>
#include <stddef.h>
#include <sensim/search.h>

uint32_t sn_odr_section_at(const sn_odr_road *r, double s, bool before)
{
    uint32_t lo = (uint32_t)sn_search_last_f64(r->sections, r->n_sections, sizeof *r->sections,
                                               offsetof(sn_odr_section, s), s);
    /* At a boundary the section that ends there owns its end (OpenDRIVE facts: a new section
    ** may start with jumps that the old one's end must not see). */
    while (before && lo > 0 && s - r->sections[lo].s < 1e-9)
        lo--;
    return lo;
}

const sn_odr_lane *sn_odr_lane_of(const sn_odr_section *sec, int id)
{
    long k = (long)id + (long)sec->n_right;
    return k >= 0 && k < (long)sec->n_lanes ? &sec->lanes[k] : NULL;
}

static double record(const sn_odr_poly *p, uint32_t n, double ds)
{
    if (!n)
        return 0;
    uint32_t lo = (uint32_t)sn_search_last_f64(p, n, sizeof *p, offsetof(sn_odr_poly, s), ds + 1e-9);
    double d = ds - p[lo].s;
    return p[lo].a + d * (p[lo].b + d * (p[lo].c + d * p[lo].d));
}

double sn_odr_lane_width(const sn_odr_section *sec, const sn_odr_lane *l, double s)
{
    if (!l || l->id == 0 || l->use_border)
        return 0;
    double w = record(l->widths, l->n_widths, s - sec->s);
    return w > 0 ? w : 0; /* rounding leaves widths of -5e-6 in real maps */
}

/* The lane offset inside a section: a record that starts where the section ends belongs to the
** next one, even at that end (CARLA's towns jump the offset there by up to 14 m, and the next
** section's filler lanes cancel the jump: the old section's lanes must not see it). */
static double section_offset(const sn_odr_road *r, const sn_odr_section *sec, double s)
{
    /* the records that start before the section's end */
    uint32_t lo = (uint32_t)sn_search_f64(r->lane_offset, r->n_lane_offset, sizeof *r->lane_offset,
                                          offsetof(sn_odr_poly, s), sec->s_end - 1e-9);
    return sn_odr_poly_eval(r->lane_offset, lo ? lo : 1, s);
}

double sn_odr_lane_border(const sn_odr_road *r, const sn_odr_section *sec, int id, double s)
{
    double off = r->n_lane_offset ? section_offset(r, sec, s) : 0, t = off;
    int sign = id > 0 ? 1 : -1, n = id > 0 ? id : -id;
    for (int k = 1; k <= n; k++) {
        const sn_odr_lane *l = sn_odr_lane_of(sec, sign * k);
        if (!l)
            break;
        if (l->use_border) {
            /* <border>: the outer edge's distance from the centre lane, never inside the lane
            ** next to it */
            double b = off + sign * fabs(record(l->widths, l->n_widths, s - sec->s));
            t = sign > 0 ? fmax(t, b) : fmin(t, b);
        } else
            t += sign * sn_odr_lane_width(sec, l, s);
    }
    return t;
}

void sn_odr_lane_span(const sn_odr_road *r, const sn_odr_section *sec, int id, double s, double *t_inner,
                      double *t_outer)
{
    double outer = sn_odr_lane_border(r, sec, id, s);
    double inner = id == 0 ? outer : sn_odr_lane_border(r, sec, id > 0 ? id - 1 : id + 1, s);
    *t_inner = inner, *t_outer = outer;
}

const sn_odr_mark *sn_odr_mark_at(const sn_odr_section *sec, const sn_odr_lane *l, double s)
{
    if (!l || !l->n_marks)
        return NULL;
    double ds = s - sec->s;
    return &l->marks[sn_search_last_f64(l->marks, l->n_marks, sizeof *l->marks, offsetof(sn_odr_mark, s_offset),
                                        ds + 1e-9)];
}

double sn_odr_speed_limit(const sn_odr_road *r, const sn_odr_section *sec, const sn_odr_lane *l, double s)
{
    if (l && l->n_speeds) {
        double ds = s - sec->s;
        uint32_t k = 0;
        for (uint32_t i = 0; i < l->n_speeds; i++)
            if (l->speeds[i].s_offset <= ds + 1e-9)
                k = i;
        if (l->speeds[k].max > 0)
            return l->speeds[k].max;
    }
    double v = 0;
    for (uint32_t i = 0; i < r->n_types; i++)
        if (r->types[i].s <= s + 1e-9 && r->types[i].speed > 0)
            v = r->types[i].speed;
    return v;
}
