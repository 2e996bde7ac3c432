/* xosc_pos.c — where an OpenSCENARIO position is: a Position element resolved to (x, y, z, h)
** and, on a lane, (road, lane, s, offset); and the longitudinal distance between two entities.
** Motion (xosc_move.c), routes (xosc_route.c), trajectories (xosc_shape.c), synchronisation
** (xosc_sync.c) and conditions (xosc_play.c) all ask here; a RoutePosition is walked along its
** route by xosc_route.c, which resolves the route's waypoints here in turn. */
#include "xosc_pos.h"

#include "../map/lanemap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Centre t of a lane at s, or false when the lane does not exist there. */
bool sn_xlane_centre(const sn_xrun *r, int32_t ri, int lane, double s, uint32_t *sec_out, double *tc)
{
    const sn_odr_road *rd = sn_xrun_road(r, ri);
    uint32_t sec = sn_odr_section_at(rd, s, false);
    if (!sn_odr_lane_of(&rd->sections[sec], lane))
        return false;
    double a, b;
    sn_odr_lane_span(rd, &rd->sections[sec], lane, s, &a, &b);
    *tc = 0.5 * (a + b);
    if (sec_out)
        *sec_out = sec;
    return true;
}

double sn_xlane_lean(const sn_odr_road *rd, const sn_odr_section *sec, int lane, double s, double t)
{
    /* dt/ds of the centre by a central difference (one-sided at the section's ends, where width
    ** records start): the cubic's error at 1 mm is below 1e-9 rad */
    const double h = 1e-3;
    double s0 = fmax(sec->s, s - h), s1 = fmin(sec->s_end, s + h);
    if (lane == 0 || s1 - s0 < 1e-6)
        return 0;
    double a0, b0, a1, b1;
    sn_odr_lane_span(rd, sec, lane, s0, &a0, &b0);
    sn_odr_lane_span(rd, sec, lane, s1, &a1, &b1);
    double slope = 0.5 * ((a1 + b1) - (a0 + b0)) / (s1 - s0);
    double scale = 1 - sn_odr_ref_curvature(rd, s) * t; /* the centre's length per metre of s */
    return atan2(slope, fmax(scale, 0.1));
}

/* The road place of an entity: its lane state, or where it stands. */
static bool entity_road(sn_xrun *r, int i, int32_t *ri, int *lane, double *s, double *t)
{
    sn_xent *e = &r->ents[i];
    if (!r->map)
        return false;
    if (e->mode == SN_XM_LANE) {
        const sn_odr_road *rd = sn_xrun_road(r, e->ri);
        double tc;
        if (!sn_xlane_centre(r, e->ri, e->lane, e->s, NULL, &tc))
            return false;
        *ri = e->ri, *lane = e->lane, *s = e->s, *t = tc + e->sdir * e->off;
        /* its lane is the one it is in: during a lane change the driver counts its offset from
        ** the target lane, but it is in the lane it left until it crosses the line between them
        ** (esmini re-attaches an entity to the lane under it every step, XYZ2TrackPos:
        ** traj-heading-trig's RelativeLanePosition dLane 0 during a change is the old lane's) */
        const sn_odr_section *sec = &rd->sections[e->sec];
        double a, b;
        sn_odr_lane_span(rd, sec, e->lane, e->s, &a, &b);
        if (*t < fmin(a, b) || *t > fmax(a, b))
            for (int l = -(int)sec->n_right; l <= (int)sec->n_left; l++) {
                if (!l)
                    continue;
                sn_odr_lane_span(rd, sec, l, e->s, &a, &b);
                if (*t >= fmin(a, b) && *t <= fmax(a, b)) {
                    *lane = l;
                    break;
                }
            }
        return true;
    }
    sn_map_place pl;
    if (!sn_map_locate(r->map, (sn_vec3){e->x, -e->y, e->z}, 2.0, 0, &pl))
        return false;
    *ri = pl.road, *lane = pl.lane, *s = pl.s, *t = pl.t;
    return true;
}

/* A road, lane or relative road or lane position's place before it is checked against the road:
** the road's index (*ri), the lane (*ln), s and t; *lane_off_sign: -1 where a RelativeLanePosition
** by dsLane runs against the road's s (its offset is then to the lane's left). false with the
** run's error when the road or the entity's place is missing. */
static bool road_place(sn_xrun *r, const sn_xpos *p, int32_t *ri, int *ln, double *ss, double *tt, int *lane_off_sign)
{
    const sn_odr *o = r->map->odr;
    if (p->kind == SN_XP_ROAD || p->kind == SN_XP_LANE) {
        *ri = sn_odr_road_index(o, p->road);
        if (*ri < 0) {
            char id[32];
            snprintf(id, sizeof id, "%d", p->road);
            return sn_xrun_fail(r, p->line, "roadId %s names no road of the map", id);
        }
        *ss = p->s;
        *ln = p->lane;
        *tt = p->t;
        return true;
    }
    /* relative to an entity's place on the road */
    double t0;
    if (!entity_road(r, p->entity, ri, ln, ss, &t0))
        return sn_xrun_fail(r, p->line, "entity '%s' is on no road: a relative road or lane position needs one",
                            r->x->ents[p->entity].name);
    /* dsLane: along the lane's direction of travel, dLane and offset to its left */
    int along = p->kind == SN_XP_REL_LANE && p->ds_lane ? sn_map_lane_dir(&o->roads[*ri], *ln) : 1;
    *ss += along * p->s;
    if (p->kind == SN_XP_REL_ROAD) {
        *tt = t0 + p->t;
    } else {
        int dl = along * p->lane;
        int l = *ln + dl; /* dLane: lane ids, skipping the centre lane */
        if ((*ln < 0) != (l < 0) || l == 0)
            l += dl > 0 ? 1 : -1;
        *ln = l;
        *lane_off_sign = along;
    }
    return true;
}

bool sn_xmove_resolve(sn_xrun *r, const sn_xpos *p, double out[4], int32_t *road, int *lane, double *s, double *off,
                      bool *on_lane)
{
    *on_lane = false;
    const sn_xent *ref = p->entity >= 0 ? &r->ents[p->entity] : NULL;
    if (ref && !ref->placed)
        return sn_xrun_fail(r, p->line, "the position refers to entity '%s', which has no position yet",
                            r->x->ents[p->entity].name);
    switch (p->kind) {
    case SN_XP_ROUTE:
        return sn_xroutepos_resolve(r, p, out, road, lane, s, off, on_lane);
    case SN_XP_WORLD:
        out[0] = p->x, out[1] = p->y, out[2] = p->z, out[3] = p->h;
        return true;
    case SN_XP_REL_WORLD:
    case SN_XP_REL_OBJECT: {
        double dx = p->x, dy = p->y;
        if (p->kind == SN_XP_REL_OBJECT) {
            double c = cos(ref->h), sn = sin(ref->h);
            dx = c * p->x - sn * p->y;
            dy = sn * p->x + c * p->y;
        }
        out[0] = ref->x + dx, out[1] = ref->y + dy, out[2] = ref->z + p->z;
        out[3] = p->has_h ? (p->h_relative ? ref->h + p->h : p->h) : ref->h;
        return true;
    }
    default:
        break;
    }
    if (!r->map)
        return sn_xrun_fail(r, p->line, "%s needs the scenario's map (RoadNetwork/LogicFile)",
                            "a road or lane position");
    const sn_odr *o = r->map->odr;
    int32_t ri = -1;
    int ln = 0;
    double ss = 0, tt = 0;
    int lane_off_sign = 1;
    if (!road_place(r, p, &ri, &ln, &ss, &tt, &lane_off_sign))
        return false;
    const sn_odr_road *rd = &o->roads[ri];
    if (ss < -1e-9 || ss > rd->length + 1e-9) {
        char v[64];
        snprintf(v, sizeof v, "%g (road %d is %g m long)", ss, rd->id, rd->length);
        return sn_xrun_fail(r, p->line, "s %s is off the road", v);
    }
    ss = fmin(fmax(ss, 0), rd->length);
    double hdg_extra = 0;
    if (p->kind == SN_XP_LANE || p->kind == SN_XP_REL_LANE) {
        double tc;
        uint32_t sec;
        if (!sn_xlane_centre(r, ri, ln, ss, &sec, &tc)) {
            char v[64];
            snprintf(v, sizeof v, "%d at s %g of road %d", ln, ss, rd->id);
            return sn_xrun_fail(r, p->line, "no lane %s", v);
        }
        tt = tc + lane_off_sign * p->offset;
        int dir = sn_map_lane_dir(rd, ln);
        *road = ri, *lane = ln, *s = ss, *off = lane_off_sign * p->offset, *on_lane = true; /* off: road t, for now */
        /* a LanePosition, or a RelativeLanePosition by dsLane, heads along the lane's direction of
        ** travel; one by ds along the road's s, its Orientation relative to that (esmini's
        ** Position::EvaluateRelation: SetHeadingRelative(dh), adding pi for the lane's direction
        ** only in DirectionMode ALONG_LANE; left-hand-traffic_by_heading's OverTaker) */
        hdg_extra = dir < 0 && !(p->kind == SN_XP_REL_LANE && !p->ds_lane) ? M_PI : 0;
    }
    double q[3];
    sn_odr_point(rd, ss, tt, 0, q);
    sn_odr_pose ref_line = sn_odr_ref_line(rd, ss);
    out[0] = q[0], out[1] = q[1], out[2] = q[2];
    /* a lane position heads along its lane's centre, which leans off the reference line where
    ** widths change (esmini's Position::GetHOffset, added in EvaluateHPR) */
    double lean = *on_lane ? sn_xlane_lean(rd, &rd->sections[sn_odr_section_at(rd, ss, false)], ln, ss, tt) : 0;
    double h = ref_line.hdg + lean + hdg_extra;
    if (p->has_h)
        h = p->h_relative ? h + p->h : p->h;
    out[3] = atan2(sin(h), cos(h));
    return true;
}

/* The longitudinal distance from a to b, positive when b is ahead: along the road (difference
** of s, in a's direction of travel) when road_cs and both are on one road, else in a's frame;
** freespace: between the boxes (0 when they overlap lengthwise). */
double sn_xent_long(const sn_xrun *r, int a, int b, bool freespace, bool road_cs)
{
    const sn_xent *ea = &r->ents[a], *eb = &r->ents[b];
    const sn_xentity *da = &r->x->ents[a], *db = &r->x->ents[b];
    double rel = eb->h - ea->h, lon;
    if (road_cs && r->map && ea->mode == SN_XM_LANE && eb->mode == SN_XM_LANE && ea->ri == eb->ri)
        lon = (eb->s - ea->s) * sn_map_lane_dir(&r->map->odr->roads[ea->ri], ea->lane);
    else
        lon = cos(ea->h) * (eb->x - ea->x) + sin(ea->h) * (eb->y - ea->y);
    if (!freespace)
        return lon;
    double c = lon + cos(rel) * db->cx - sin(rel) * db->cy - da->cx; /* box centre to box centre */
    double ext = da->len / 2 + fabs(cos(rel)) * db->len / 2 + fabs(sin(rel)) * db->wid / 2;
    double gap = fmax(0, fabs(c) - ext);
    return c < 0 ? -gap : gap;
}
