/* xosc_parse_shape.c — trajectory shapes (issue 34): Clothoid and Nurbs; sampled into a path by
** xosc_shape.c. */
#include "xosc_parse.h"

#include <math.h>
#include <stdlib.h>

/* Times in a shape lie within ±TIME_MAX seconds. */
#define TIME_MAX 1e7

/* Each parser below returns 1 when the shape carries times (Clothoid startTime/stopTime, every
** segment's timeStart, every ControlPoint's time), 0 when not, -1 on error. */

static int parse_clothoid(P *p, N shape, sn_xaction *a)
{
    a->traj_shape = SN_XT_CLOTHOID;
    const char *prime = sn_xp_has_attr(shape, "curvaturePrime") ? "curvaturePrime" : "curvatureDot";
    if (!sn_xp_num(p, shape, "curvature", true, 0, -1e3, 1e3, &a->cl_curv) ||
        !sn_xp_num(p, shape, prime, true, 0, -1e3, 1e3, &a->cl_curv_dot) ||
        !sn_xp_num(p, shape, "length", true, 0, 0, 1e6, &a->cl_len))
        return -1;
    if (!(a->cl_len > 0))
        return sn_xp_fail(p, shape, "length %g must be above 0", a->cl_len), -1;
    bool t0 = sn_xp_has_attr(shape, "startTime"), t1 = sn_xp_has_attr(shape, "stopTime");
    if (t0 != t1)
        return sn_xp_fail(p, shape, "give both startTime and stopTime, or neither"), -1;
    if (t0 && (!sn_xp_num(p, shape, "startTime", true, 0, -TIME_MAX, TIME_MAX, &a->cl_t0) ||
               !sn_xp_num(p, shape, "stopTime", true, 0, -TIME_MAX, TIME_MAX, &a->cl_t1)))
        return -1;
    if (t0 && a->cl_t1 < a->cl_t0)
        return sn_xp_fail(p, shape, "stopTime %g is before startTime %g", a->cl_t1, a->cl_t0), -1;
    N pos = sn_xml_child(shape, "Position");
    if (pos && !sn_xp_parse_position(p, pos, &a->pos))
        return -1;
    if (!pos)
        a->pos.kind = SN_XP_NONE;
    SN_XML_EACH(c, shape)
        if (!sn_xml_is(c, "Position"))
            return sn_xp_unknown(p, c, shape), -1;
    return t0 ? 1 : 0;
}

static int parse_clothoid_spline(P *p, N shape, sn_xaction *a)
{
    a->traj_shape = SN_XT_CLOTHOID_SPLINE;
    uint32_t ns = 0, timed = 0;
    SN_XML_EACH(c, shape) {
        if (!sn_xml_is(c, "ClothoidSplineSegment"))
            return sn_xp_unknown(p, c, shape), -1;
        ns++;
        timed += sn_xp_has_attr(c, "timeStart");
    }
    if (!ns || ns > 100000)
        return sn_xp_fail(p, shape, "needs 1 to 100000 ClothoidSplineSegments, has %u", ns), -1;
    if ((timed && timed != ns) || (timed != 0) != sn_xp_has_attr(shape, "timeEnd"))
        return sn_xp_fail(p, shape, "give timeStart on every ClothoidSplineSegment and timeEnd, or none of them"), -1;
    if (!(a->weights = calloc((size_t)ns * 5, sizeof *a->weights)) || !(a->verts = calloc(ns, sizeof *a->verts)))
        return sn_xp_fail(p, shape, "out of memory"), -1;
    a->n_verts = ns;
    if (timed && !sn_xp_num(p, shape, "timeEnd", true, 0, -TIME_MAX, TIME_MAX, &a->cl_t1))
        return -1;
    uint32_t k = 0;
    double last_t = -INFINITY;
    SN_XML_EACH(c, shape) {
        double *w = &a->weights[5 * k];
        if (!sn_xp_num(p, c, "curvatureStart", true, 0, -1e3, 1e3, &w[0]) ||
            !sn_xp_num(p, c, "curvatureEnd", true, 0, -1e3, 1e3, &w[1]) || !sn_xp_num(p, c, "length", true, 0, 0, 1e6, &w[2]) ||
            !sn_xp_num(p, c, "hOffset", false, 0, -1e3, 1e3, &w[3]) || !sn_xp_num(p, c, "timeStart", false, NAN, -TIME_MAX, TIME_MAX, &w[4]))
            return -1;
        if (!(w[2] > 0))
            return sn_xp_fail(p, c, "length %g must be above 0", w[2]), -1;
        if (timed && w[4] < last_t)
            return sn_xp_fail(p, c, "timeStart %g is before the previous segment's %g", w[4], last_t), -1;
        last_t = timed ? w[4] : last_t;
        N ps = sn_xml_child(c, "PositionStart");
        a->verts[k].kind = SN_XP_NONE;
        if (ps && !sn_xp_parse_position(p, ps, &a->verts[k]))
            return -1;
        SN_XML_EACH(d, c)
            if (!sn_xml_is(d, "PositionStart"))
                return sn_xp_unknown(p, d, c), -1;
        k++;
    }
    if (timed && a->cl_t1 < last_t)
        return sn_xp_fail(p, shape, "timeEnd %g is before the last segment's timeStart %g", a->cl_t1, last_t), -1;
    return timed ? 1 : 0;
}

static int parse_nurbs(P *p, N shape, sn_xaction *a)
{
    a->traj_shape = SN_XT_NURBS;
    if (!sn_xp_integer(p, shape, "order", true, 0, &a->order))
        return -1;
    if (a->order < 1 || a->order > 16)
        return sn_xp_fail(p, shape, "order %d is outside 1 ... 16", a->order), -1;
    uint32_t ncp = 0, nk = 0;
    SN_XML_EACH(c, shape) {
        if (sn_xml_is(c, "ControlPoint"))
            ncp++;
        else if (sn_xml_is(c, "Knot"))
            nk++;
        else
            return sn_xp_unknown(p, c, shape), -1;
    }
    if (ncp < (uint32_t)a->order)
        return sn_xp_fail(p, shape, "%u control points, fewer than the order %d", ncp, a->order), -1;
    if (ncp > MAX_ITEMS)
        return sn_xp_fail(p, shape, "more than %u control points", MAX_ITEMS), -1;
    if (nk != ncp + (uint32_t)a->order)
        return sn_xp_fail(p, shape, "%u knots; a Nurbs of %u control points and order %d needs %u", nk, ncp, a->order,
                    ncp + (uint32_t)a->order), -1;
    a->verts = calloc(ncp, sizeof *a->verts);
    a->times = calloc(ncp, sizeof *a->times);
    a->weights = calloc(ncp, sizeof *a->weights);
    a->knots = calloc(nk, sizeof *a->knots);
    if (!a->verts || !a->times || !a->weights || !a->knots)
        return sn_xp_fail(p, shape, "out of memory"), -1;
    uint32_t k = 0, timed = 0;
    nk = 0;
    SN_XML_EACH(c, shape) {
        if (sn_xml_is(c, "Knot")) {
            if (!sn_xp_num(p, c, "value", true, 0, -TIME_MAX, TIME_MAX, &a->knots[nk]))
                return -1;
            if (nk && a->knots[nk] < a->knots[nk - 1])
                return sn_xp_fail(p, c, "knot %g is below the previous one, %g", a->knots[nk], a->knots[nk - 1]), -1;
            nk++;
            continue;
        }
        N pos = sn_xml_child(c, "Position");
        if (!pos)
            return sn_xp_fail(p, c, "needs a Position"), -1;
        if (!sn_xp_parse_position(p, pos, &a->verts[k]) || !sn_xp_num(p, c, "weight", false, 1, 0, 1e9, &a->weights[k]))
            return -1;
        if (!(a->weights[k] > 0))
            return sn_xp_fail(p, c, "weight %g must be above 0", a->weights[k]), -1;
        if (sn_xp_has_attr(c, "time")) {
            if (!sn_xp_num(p, c, "time", true, 0, -TIME_MAX, TIME_MAX, &a->times[k]))
                return -1;
            if (timed && a->times[k] < a->times[k - 1])
                return sn_xp_fail(p, c, "time %g is before the previous control point's %g", a->times[k], a->times[k - 1]), -1;
            timed++;
        }
        k++;
    }
    if (timed && timed != ncp)
        return sn_xp_fail(p, shape, "%u of %u control points have a time: give every one a time, or none", timed, ncp), -1;
    if (!(a->knots[nk - 1] > a->knots[0]))
        return sn_xp_fail(p, shape, "the knot vector spans nothing (its first and last values are equal)"), -1;
    a->n_verts = ncp;
    a->n_knots = nk;
    return timed ? 1 : 0;
}

int sn_xp_parse_traj_shape(P *p, N shape, int a_i)
{
    sn_xaction *a = &p->x->actions[a_i];
    if (sn_xml_is(shape, "Clothoid"))
        return parse_clothoid(p, shape, a);
    if (sn_xml_is(shape, "ClothoidSpline"))
        return parse_clothoid_spline(p, shape, a);
    return parse_nurbs(p, shape, a);
}
