/* xosc_parse_pos.c — Position elements (world, lane, road, relative, route) into sn_xpos. */
#include "xosc_parse.h"

#include <stdlib.h>
#include <string.h>

/* ---- positions ---- */

static bool parse_orientation(P *p, N n, sn_xpos *pos)
{
    N o = sn_xml_child(n, "Orientation");
    if (!o)
        return true;
    static const char *const types[] = {"relative", "absolute", NULL};
    int t;
    if (!sn_xp_enumer(p, o, "type", false, 0, types, &t) || !sn_xp_num(p, o, "h", false, 0, -1e6, 1e6, &pos->h))
        return false;
    double pr, r;
    if (!sn_xp_num(p, o, "p", false, 0, -1e6, 1e6, &pr) || !sn_xp_num(p, o, "r", false, 0, -1e6, 1e6, &r))
        return false;
    if (pr != 0 || r != 0)
        sn_xp_warn(p, o, "pitch and roll are taken from the road, not from the Orientation");
    pos->has_h = true;
    pos->h_relative = t == 0;
    return true;
}

static bool parse_route_position(P *p, N c, sn_xpos *pos);

bool sn_xp_parse_position(P *p, N n, sn_xpos *pos)
{
    N c = sn_xp_choice(p, n);
    if (!c)
        return false;
    memset(pos, 0, sizeof *pos);
    pos->line = sn_xml_line(c);
    pos->entity = -1;
    const double M = 1e7;
    if (sn_xml_is(c, "WorldPosition")) {
        pos->kind = SN_XP_WORLD;
        pos->has_h = sn_xp_has_attr(c, "h");
        return sn_xp_num(p, c, "x", true, 0, -M, M, &pos->x) && sn_xp_num(p, c, "y", true, 0, -M, M, &pos->y) &&
               sn_xp_num(p, c, "z", false, 0, -M, M, &pos->z) && sn_xp_num(p, c, "h", false, 0, -1e6, 1e6, &pos->h);
    }
    if (sn_xml_is(c, "RelativeWorldPosition") || sn_xml_is(c, "RelativeObjectPosition")) {
        pos->kind = sn_xml_is(c, "RelativeWorldPosition") ? SN_XP_REL_WORLD : SN_XP_REL_OBJECT;
        return (pos->entity = sn_xp_entity_index(p, c, "entityRef")) >= 0 && sn_xp_num(p, c, "dx", true, 0, -M, M, &pos->x) &&
               sn_xp_num(p, c, "dy", true, 0, -M, M, &pos->y) && sn_xp_num(p, c, "dz", false, 0, -M, M, &pos->z) &&
               parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RoadPosition")) {
        pos->kind = SN_XP_ROAD;
        return sn_xp_integer(p, c, "roadId", true, 0, &pos->road) && sn_xp_num(p, c, "s", true, 0, -M, M, &pos->s) &&
               sn_xp_num(p, c, "t", true, 0, -M, M, &pos->t) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RelativeRoadPosition")) {
        pos->kind = SN_XP_REL_ROAD;
        return (pos->entity = sn_xp_entity_index(p, c, "entityRef")) >= 0 && sn_xp_num(p, c, "ds", true, 0, -M, M, &pos->s) &&
               sn_xp_num(p, c, "dt", true, 0, -M, M, &pos->t) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "LanePosition")) {
        pos->kind = SN_XP_LANE;
        if (!sn_xp_integer(p, c, "roadId", true, 0, &pos->road) || !sn_xp_integer(p, c, "laneId", true, 0, &pos->lane) ||
            !sn_xp_num(p, c, "s", true, 0, -M, M, &pos->s) || !sn_xp_num(p, c, "offset", false, 0, -M, M, &pos->offset))
            return false;
        if (pos->lane == 0)
            return sn_xp_fail(p, c, "laneId 0 is the centre lane, which has no width: give a lane left (>0) or right (<0) of it");
        return parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RelativeLanePosition")) {
        pos->kind = SN_XP_REL_LANE;
        if ((pos->entity = sn_xp_entity_index(p, c, "entityRef")) < 0 || !sn_xp_integer(p, c, "dLane", true, 0, &pos->lane) ||
            !sn_xp_num(p, c, "offset", false, 0, -M, M, &pos->offset))
            return false;
        /* ds along the road's s, or dsLane along the reference entity's lane, whose direction of
        ** travel also orders dLane and offset (esmini's DirectionMode ALONG_LANE); neither: 0 */
        if (sn_xp_has_attr(c, "ds") && sn_xp_has_attr(c, "dsLane"))
            return sn_xp_fail(p, c, "give ds or dsLane, not both");
        pos->ds_lane = sn_xp_has_attr(c, "dsLane");
        return sn_xp_num(p, c, pos->ds_lane ? "dsLane" : "ds", false, 0, -M, M, &pos->s) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RoutePosition"))
        return parse_route_position(p, c, pos);
    if (sn_xml_is(c, "TrajectoryPosition") || sn_xml_is(c, "GeoPosition"))
        return sn_xp_unsupported(p, c);
    return sn_xp_unknown(p, c, n);
}

/* ---- RoutePosition (xosc_route.c resolves it) ---- */

static int route_waypoints(P *p, N route)
{
    GROW(p->x->routes, p->x->n_routes, "routes");
    int k = (int)p->x->n_routes++;
    p->x->routes[k].line = sn_xml_line(route);
    uint32_t n = 0;
    SN_XML_EACH(w, route) {
        if (sn_xml_is(w, "ParameterDeclarations")) {
            if (!sn_xp_parse_params(p, w))
                return -1;
        } else if (!sn_xml_is(w, "Waypoint")) {
            return sn_xp_unknown(p, w, route), -1;
        } else {
            n++;
        }
    }
    if (n < 1 || n > MAX_ITEMS)
        return sn_xp_fail(p, route, "a Route needs at least one Waypoint"), -1;
    sn_xpos *wps = calloc(n, sizeof *wps);
    if (!wps)
        return sn_xp_fail(p, route, "out of memory"), -1;
    p->x->routes[k].wps = wps;
    SN_XML_EACH(w, route) {
        if (!sn_xml_is(w, "Waypoint"))
            continue;
        static const char *const strat[] = {"shortest", "fastest", "leastIntersections", "random", NULL};
        int st;
        N pos = sn_xml_child(w, "Position");
        if (!sn_xp_enumer(p, w, "routeStrategy", true, 0, strat, &st))
            return -1;
        if (!pos)
            return sn_xp_fail(p, w, "needs a Position"), -1;
        if (st != 0)
            sn_xp_warn(p, w, "routeStrategy '%s' is planned as shortest (by lane length)", strat[st]);
        sn_xpos wp;
        if (!sn_xp_parse_position(p, pos, &wp))
            return -1;
        if (wp.kind == SN_XP_ROUTE)
            return sn_xp_fail(p, pos, "a Route's waypoint cannot itself be a RoutePosition"), -1;
        p->x->routes[k].wps[p->x->routes[k].n++] = wp;
    }
    return k;
}

static bool parse_route_position(P *p, N c, sn_xpos *pos)
{
    pos->kind = SN_XP_ROUTE;
    N ref = sn_xml_child(c, "RouteRef"), in = sn_xml_child(c, "InRoutePosition");
    if (!ref || !in)
        return sn_xp_fail(p, c, "needs RouteRef and InRoutePosition");
    SN_XML_EACH(k, c)
        if (!sn_xml_is(k, "RouteRef") && !sn_xml_is(k, "InRoutePosition") && !sn_xml_is(k, "Orientation"))
            return sn_xp_unknown(p, k, c);
    N route = sn_xml_child(ref, "Route");
    int ri;
    if (route) {
        ri = route_waypoints(p, route);
    } else {
        N cr = sn_xml_child(ref, "CatalogReference");
        if (!cr)
            return sn_xp_fail(p, ref, "needs a Route or a CatalogReference");
        uint32_t mark;
        const char *file, *outer = p->file;
        N entry = sn_xp_catalog_entry(p, cr, &mark, &file);
        if (!entry)
            return false;
        if (!sn_xml_is(entry, "Route"))
            return sn_xp_fail(p, cr, "the catalog entry is a <%s>, not a Route", sn_xml_name(entry));
        p->file = file;
        ri = route_waypoints(p, entry);
        p->file = outer;
        p->declared = NULL;
        sn_xp_params_truncate(&p->x->params, mark);
    }
    if (ri < 0)
        return false;
    pos->route = ri;
    if (!parse_orientation(p, c, pos))
        return false;
    N k = sn_xp_choice(p, in);
    if (!k)
        return false;
    const double M = 1e7;
    if (sn_xml_is(k, "FromCurrentEntity")) {
        pos->in_route = 0;
        return (pos->entity = sn_xp_entity_index(p, k, "entityRef")) >= 0;
    }
    if (sn_xml_is(k, "FromRoadCoordinates")) {
        pos->in_route = 1;
        return sn_xp_num(p, k, "pathS", true, 0, 0, M, &pos->s) && sn_xp_num(p, k, "t", true, 0, -M, M, &pos->t);
    }
    if (sn_xml_is(k, "FromLaneCoordinates")) {
        pos->in_route = 2;
        if (!sn_xp_num(p, k, "pathS", true, 0, 0, M, &pos->s) || !sn_xp_integer(p, k, "laneId", true, 0, &pos->lane) ||
            !sn_xp_num(p, k, "laneOffset", false, 0, -M, M, &pos->offset))
            return false;
        if (pos->lane == 0)
            return sn_xp_fail(p, k, "laneId 0 is the centre lane, which has no width");
        return true;
    }
    return sn_xp_unknown(p, k, in);
}
