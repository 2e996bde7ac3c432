/* odr_parse_road.c — a <road>: its links, plan view (geometries), lane sections and lanes (types,
** widths, marks, speeds), signals and objects. */
#include "odr_read.h"

#include "../core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lanes ---- */

static const struct {
    const char *name;
    uint32_t flag;
} lane_types[] = {
    {"none", SN_LANE_NONE},         {"driving", SN_LANE_DRIVING},     {"stop", SN_LANE_STOP},
    {"shoulder", SN_LANE_SHOULDER}, {"biking", SN_LANE_BIKING},       {"sidewalk", SN_LANE_SIDEWALK},
    {"walking", SN_LANE_SIDEWALK},  {"border", SN_LANE_BORDER},       {"restricted", SN_LANE_RESTRICTED},
    {"parking", SN_LANE_PARKING},   {"bidirectional", SN_LANE_BIDIRECTIONAL}, {"median", SN_LANE_MEDIAN},
    {"special1", SN_LANE_SPECIAL1}, {"special2", SN_LANE_SPECIAL2},   {"special3", SN_LANE_SPECIAL3},
    {"roadWorks", SN_LANE_ROADWORKS}, {"roadworks", SN_LANE_ROADWORKS}, {"tram", SN_LANE_TRAM},
    {"rail", SN_LANE_RAIL},         {"entry", SN_LANE_ENTRY},         {"exit", SN_LANE_EXIT},
    {"offRamp", SN_LANE_OFFRAMP},   {"onRamp", SN_LANE_ONRAMP},       {"connectingRamp", SN_LANE_ONRAMP},
    {"curb", SN_LANE_BORDER},       {"slipLane", SN_LANE_DRIVING},    {"shared", SN_LANE_BIDIRECTIONAL},
};

static uint32_t lane_type(parser *p, xmlNodePtr n)
{
    const char *s = sn_odrp_attr(n, "type");
    if (!s)
        return SN_LANE_NONE;
    for (size_t i = 0; i < SN_COUNT(lane_types); i++)
        if (strcmp(s, lane_types[i].name) == 0)
            return lane_types[i].flag;
    sn_odrp_warn(p, W_LANETYPE, n, "unknown lane type \"%.40s\": read as \"none\"", s);
    return SN_LANE_NONE;
}

static uint8_t mark_type(parser *p, xmlNodePtr n)
{
    static const struct {
        const char *name;
        uint8_t t;
    } t[] = {{"none", SN_MARK_NONE},        {"solid", SN_MARK_SOLID},
             {"broken", SN_MARK_BROKEN},    {"solid solid", SN_MARK_SOLID_SOLID},
             {"solid broken", SN_MARK_SOLID_BROKEN}, {"broken solid", SN_MARK_BROKEN_SOLID},
             {"broken broken", SN_MARK_BROKEN_BROKEN}, {"botts dots", SN_MARK_BOTTS_DOTS},
             {"grass", SN_MARK_GRASS},      {"curb", SN_MARK_CURB},
             {"custom", SN_MARK_OTHER},     {"edge", SN_MARK_SOLID}};
    const char *s = sn_odrp_attr(n, "type");
    if (!s)
        return SN_MARK_NONE;
    for (size_t i = 0; i < SN_COUNT(t); i++)
        if (strcmp(s, t[i].name) == 0)
            return t[i].t;
    sn_odrp_warn(p, W_MARK, n, "unknown road mark type \"%.40s\": read as \"other\"", s);
    return SN_MARK_OTHER;
}

static uint8_t mark_color(const char *s)
{
    if (!s || !strcmp(s, "standard") || !strcmp(s, "white"))
        return SN_MARK_WHITE;
    if (!strcmp(s, "yellow") || !strcmp(s, "orange"))
        return SN_MARK_YELLOW;
    if (!strcmp(s, "blue"))
        return SN_MARK_BLUE;
    if (!strcmp(s, "green"))
        return SN_MARK_GREEN;
    if (!strcmp(s, "red"))
        return SN_MARK_RED;
    return SN_MARK_COLOR_OTHER;
}

/* The marking's own laneChange, else what its type implies (CARLA's rule). */
static uint8_t mark_change(const char *s, uint8_t type)
{
    if (s) {
        if (!strcmp(s, "increase"))
            return SN_LANE_CHANGE_LEFT; /* toward larger ids: see map.c for the direction of travel */
        if (!strcmp(s, "decrease"))
            return SN_LANE_CHANGE_RIGHT;
        if (!strcmp(s, "both"))
            return SN_LANE_CHANGE_BOTH;
        if (!strcmp(s, "none"))
            return SN_LANE_CHANGE_NONE;
    }
    switch (type) {
    case SN_MARK_BROKEN: case SN_MARK_BROKEN_BROKEN: case SN_MARK_BOTTS_DOTS: case SN_MARK_NONE:
        return SN_LANE_CHANGE_BOTH;
    case SN_MARK_SOLID_BROKEN: return SN_LANE_CHANGE_LEFT;
    case SN_MARK_BROKEN_SOLID: return SN_LANE_CHANGE_RIGHT;
    default: return SN_LANE_CHANGE_NONE;
    }
}

static double speed_unit(parser *p, xmlNodePtr n)
{
    const char *u = sn_odrp_attr(n, "unit");
    if (!u || !strcmp(u, "m/s"))
        return 1.0;
    if (!strcmp(u, "km/h"))
        return 1.0 / 3.6;
    if (!strcmp(u, "mph"))
        return 0.44704;
    sn_odrp_warn(p, W_UNIT, n, "unknown speed unit \"%.20s\": read as m/s", u);
    return 1.0;
}

/* <speed max="no limit"> and "undefined" mean none. */
static bool speed_max(parser *p, xmlNodePtr n, double *out)
{
    const char *s = sn_odrp_attr(n, "max");
    if (!s || !strcmp(s, "no limit") || !strcmp(s, "undefined")) {
        *out = 0;
        return true;
    }
    double v;
    if (!sn_odrp_num(p, n, "max", true, 0, 1e4, &v))
        return false;
    if (v < 0)
        return sn_odrp_fail(p, n, "a negative speed limit (%g)", v);
    *out = v * speed_unit(p, n);
    return true;
}

static bool parse_lane(parser *p, xmlNodePtr n, double sec_len, sn_odr_lane *l)
{
    if (!sn_odrp_lane_id(p, n, "id", &l->id))
        return false;
    l->type = lane_type(p, n);
    const char *lv = sn_odrp_attr(n, "level");
    l->level = lv && (!strcmp(lv, "true") || !strcmp(lv, "1"));
    xmlNodePtr link = sn_odrp_child(n, "link");
    if (link) {
        xmlNodePtr pr = sn_odrp_child(link, "predecessor"), su = sn_odrp_child(link, "successor");
        if (pr && !sn_odrp_lane_id(p, pr, "id", &l->pred))
            return false;
        if (su && !sn_odrp_lane_id(p, su, "id", &l->succ))
            return false;
        l->has_pred = pr != NULL, l->has_succ = su != NULL;
    }
    const double lim = sec_len + 1e3;
    uint32_t nw = sn_odrp_count(n, "width"), nb = sn_odrp_count(n, "border");
    if (nb && !nw) {
        l->use_border = true;
        if (!sn_odrp_polys(p, n, "border", "sOffset", lim, &l->widths, &l->n_widths))
            return false;
    } else if (!sn_odrp_polys(p, n, "width", "sOffset", lim, &l->widths, &l->n_widths))
        return false;
    if (l->id != 0 && !l->n_widths)
        sn_odrp_warn(p, W_WIDTH, n, "lane %d has no <width>: width 0", l->id);

    uint32_t nm = sn_odrp_count(n, "roadMark"), i = 0;
    if (nm) {
        l->marks = sn_odrp_arena_alloc(p->m->arena, nm * sizeof *l->marks);
        if (!l->marks)
            return sn_odrp_oom(p);
        EACH(c, n, "roadMark") {
            sn_odr_mark *mk = &l->marks[i];
            if (!sn_odrp_num(p, c, "sOffset", false, 0, lim, &mk->s_offset) || !sn_odrp_num(p, c, "width", false, 0.15, 100, &mk->width))
                return false;
            if (mk->width < 0)
                return sn_odrp_fail(p, c, "a negative width (%g)", mk->width);
            mk->type = mark_type(p, c);
            mk->color = mark_color(sn_odrp_attr(c, "color"));
            const char *w = sn_odrp_attr(c, "weight");
            mk->weight = w && !strcmp(w, "bold");
            mk->lane_change = mark_change(sn_odrp_attr(c, "laneChange"), mk->type);
            if (i && mk->s_offset < l->marks[i - 1].s_offset)
                return sn_odrp_fail(p, c, "sOffset %g comes before the previous road mark's %g", mk->s_offset,
                            l->marks[i - 1].s_offset);
            i++;
        }
        l->n_marks = nm;
    }
    l->speeds = sn_odrp_children(p, n, "speed", sizeof *l->speeds, &l->n_speeds);
    i = 0;
    EACH(c, n, "speed") {
        if (p->failed || !sn_odrp_num(p, c, "sOffset", false, 0, lim, &l->speeds[i].s_offset) ||
            !speed_max(p, c, &l->speeds[i].max))
            return false;
        i++;
    }
    return !p->failed;
}

static int cmp_lane(const void *a, const void *b)
{
    const sn_odr_lane *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static bool parse_section(parser *p, xmlNodePtr n, double road_len, sn_odr_section *sec)
{
    if (!sn_odrp_num(p, n, "s", true, 0, road_len + 1.0, &sec->s))
        return false;
    if (sec->s < 0)
        return sn_odrp_fail(p, n, "s=%g is negative", sec->s);
    xmlNodePtr side[3] = {sn_odrp_child(n, "left"), sn_odrp_child(n, "center"), sn_odrp_child(n, "right")};
    uint32_t total = 0;
    for (int k = 0; k < 3; k++)
        total += sn_odrp_count(side[k], "lane");
    if (!side[1] || sn_odrp_count(side[1], "lane") != 1)
        return sn_odrp_fail(p, n, "a lane section needs exactly one centre lane (<center><lane id=\"0\"/></center>)");
    sec->lanes = sn_odrp_arena_alloc(p->m->arena, total * sizeof *sec->lanes);
    if (!sec->lanes)
        return sn_odrp_oom(p);
    uint32_t i = 0;
    for (int k = 0; k < 3; k++) {
        EACH(c, side[k], "lane") {
            if (!parse_lane(p, c, road_len, &sec->lanes[i]))
                return false;
            int id = sec->lanes[i].id;
            if ((k == 0 && id <= 0) || (k == 1 && id != 0) || (k == 2 && id >= 0))
                return sn_odrp_fail(p, c, "lane id %d does not belong in <%s>", id, k == 0 ? "left" : k == 1 ? "center" : "right");
            i++;
        }
    }
    qsort(sec->lanes, total, sizeof *sec->lanes, cmp_lane);
    /* Ids must run -n..n without holes or repeats: the lanes' borders stack in that order. */
    for (uint32_t k = 0; k < total; k++)
        if (sec->lanes[k].id != sec->lanes[0].id + (int)k)
            return sn_odrp_fail(p, n, "lane ids must run without holes or repeats from %d to %d (found %d)", sec->lanes[0].id,
                        sec->lanes[total - 1].id, sec->lanes[k].id);
    sec->n_lanes = total;
    sec->n_right = (uint32_t)(-sec->lanes[0].id);
    sec->n_left = total - 1 - sec->n_right;
    return true;
}

/* ---- plan view ---- */

static bool parse_geom(parser *p, xmlNodePtr n, sn_odr_geom *g)
{
    g->line = sn_odrp_line_of(n);
    if (!sn_odrp_num(p, n, "s", true, 0, SN_ODR_MAX_LENGTH, &g->s) || !sn_odrp_num(p, n, "x", true, 0, SN_ODR_MAX_COORD, &g->x) ||
        !sn_odrp_num(p, n, "y", true, 0, SN_ODR_MAX_COORD, &g->y) || !sn_odrp_num(p, n, "hdg", true, 0, 1e4, &g->hdg) ||
        !sn_odrp_num(p, n, "length", true, 0, SN_ODR_MAX_LENGTH, &g->length))
        return false;
    if (g->length < 0)
        return sn_odrp_fail(p, n, "length=%g is negative", g->length);
    xmlNodePtr k = NULL;
    for (xmlNodePtr c = n->children; c && !k; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            k = c;
    if (!k)
        return sn_odrp_fail(p, n, "a geometry needs one of <line>, <arc>, <spiral>, <poly3>, <paramPoly3>");
    if (sn_odrp_is(k, "line"))
        g->kind = SN_ODR_LINE;
    else if (sn_odrp_is(k, "arc")) {
        g->kind = SN_ODR_ARC;
        if (!sn_odrp_num(p, k, "curvature", true, 0, 1e3, &g->curv))
            return false;
    } else if (sn_odrp_is(k, "spiral")) {
        g->kind = SN_ODR_SPIRAL;
        if (!sn_odrp_num(p, k, "curvStart", true, 0, 1e3, &g->curv) || !sn_odrp_num(p, k, "curvEnd", true, 0, 1e3, &g->curv_end))
            return false;
    } else if (sn_odrp_is(k, "poly3")) {
        g->kind = SN_ODR_POLY3;
        if (!sn_odrp_num(p, k, "a", false, 0, 1e6, &g->a) || !sn_odrp_num(p, k, "b", false, 0, 1e6, &g->b) ||
            !sn_odrp_num(p, k, "c", false, 0, 1e6, &g->c) || !sn_odrp_num(p, k, "d", false, 0, 1e6, &g->d))
            return false;
    } else if (sn_odrp_is(k, "paramPoly3")) {
        g->kind = SN_ODR_PARAMPOLY3;
        const char *names[8] = {"aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV"};
        double *dst[8] = {&g->au, &g->bu, &g->cu, &g->du, &g->av, &g->bv, &g->cv, &g->dv};
        for (int i = 0; i < 8; i++)
            if (!sn_odrp_num(p, k, names[i], false, 0, 1e7, dst[i]))
                return false;
        const char *r = sn_odrp_attr(k, "pRange");
        g->normalized = r && !strcmp(r, "normalized");
        if (r && !g->normalized && strcmp(r, "arcLength"))
            return sn_odrp_fail(p, k, "pRange=\"%.20s\" is neither \"arcLength\" nor \"normalized\"", r);
        if (!r) /* 1.4 has no pRange: arcLength was the only reading until 1.5 made it explicit */
            g->normalized = false;
    } else
        return sn_odrp_fail(p, k, "unknown geometry kind (expected line, arc, spiral, poly3 or paramPoly3)");
    return true;
}

/* ---- signals and objects ---- */

static bool parse_signal(parser *p, xmlNodePtr n, double road_len, int32_t fallback_id, sn_odr_signal *sg)
{
    sg->line = sn_odrp_line_of(n);
    sg->is_reference = sn_odrp_is(n, "signalReference");
    if (!sn_odrp_int_id(p, n, "id", true, fallback_id, &sg->id) ||
        !sn_odrp_num(p, n, "s", true, 0, road_len + 1.0, &sg->s) || !sn_odrp_num(p, n, "t", false, 0, 1e4, &sg->t))
        return false;
    const char *o = sn_odrp_attr(n, "orientation");
    sg->orientation = o && o[0] == '+' ? '+' : o && o[0] == '-' ? '-' : ' ';
    if (!sg->is_reference) {
        const char *d = sn_odrp_attr(n, "dynamic");
        sg->dynamic = d && (!strcmp(d, "yes") || !strcmp(d, "true"));
        if (!sn_odrp_num(p, n, "zOffset", false, 0, SN_ODR_MAX_SIGNAL_Z, &sg->z_offset) || !sn_odrp_num(p, n, "hOffset", false, 0, 1e4, &sg->h_offset) ||
            !sn_odrp_num(p, n, "height", false, 0, 1e4, &sg->height) || !sn_odrp_num(p, n, "width", false, 0, 1e4, &sg->width))
            return false;
        const char *v = sn_odrp_attr(n, "value");
        sg->value = v ? strtod(v, NULL) : 0;
        if (!isfinite(sg->value))
            sg->value = 0;
        if (!(sg->name = sn_odrp_dup(p, sn_odrp_attr(n, "name"))) || !(sg->type = sn_odrp_dup(p, sn_odrp_attr(n, "type"))) ||
            !(sg->subtype = sn_odrp_dup(p, sn_odrp_attr(n, "subtype"))) || !(sg->country = sn_odrp_dup(p, sn_odrp_attr(n, "country"))) ||
            !(sg->unit = sn_odrp_dup(p, sn_odrp_attr(n, "unit"))))
            return false;
        /* <dependency id type>: CARLA keeps them (Signal::_dependencies); ids that are not
        ** integers cannot name a signal here and are dropped. */
        uint32_t nd = sn_odrp_count(n, "dependency"), k = 0;
        if (nd && !(sg->deps = sn_odrp_arena_alloc(p->m->arena, nd * sizeof *sg->deps)))
            return sn_odrp_oom(p);
        EACH(c, n, "dependency") {
            const char *ds = sn_odrp_attr(c, "id");
            char *end;
            long long v = ds ? strtoll(ds, &end, 10) : 0;
            if (ds && end != ds && !*end && v >= INT32_MIN && v <= INT32_MAX)
                sg->deps[k++] = (int32_t)v;
        }
        sg->n_deps = k;
    } else if (!(sg->name = sn_odrp_dup(p, "")) || !(sg->type = sn_odrp_dup(p, "")) || !(sg->subtype = sn_odrp_dup(p, "")) ||
               !(sg->country = sn_odrp_dup(p, "")) || !(sg->unit = sn_odrp_dup(p, "")))
        return false;
    uint32_t i = 0;
    sg->validity = sn_odrp_children(p, n, "validity", sizeof *sg->validity, &sg->n_validity);
    EACH(c, n, "validity") {
        if (p->failed || !sn_odrp_lane_id(p, c, "fromLane", &sg->validity[i].from) ||
            !sn_odrp_lane_id(p, c, "toLane", &sg->validity[i].to))
            return false;
        i++;
    }
    return !p->failed;
}

static bool parse_object(parser *p, xmlNodePtr n, double road_len, int32_t fallback_id, sn_odr_object *ob)
{
    if (!sn_odrp_int_id(p, n, "id", true, fallback_id, &ob->id) || !sn_odrp_num(p, n, "s", true, 0, road_len + 1.0, &ob->s) ||
        !sn_odrp_num(p, n, "t", false, 0, 1e4, &ob->t) || !sn_odrp_num(p, n, "zOffset", false, 0, 1e4, &ob->z_offset) ||
        !sn_odrp_num(p, n, "hdg", false, 0, 1e4, &ob->hdg) || !sn_odrp_num(p, n, "length", false, 0, 1e4, &ob->length) ||
        !sn_odrp_num(p, n, "width", false, 0, 1e4, &ob->width) || !sn_odrp_num(p, n, "radius", false, 0, 1e4, &ob->radius) ||
        !sn_odrp_num(p, n, "height", false, 0, 1e4, &ob->height))
        return false;
    if (!(ob->name = sn_odrp_dup(p, sn_odrp_attr(n, "name"))) || !(ob->type = sn_odrp_dup(p, sn_odrp_attr(n, "type"))))
        return false;
    xmlNodePtr outline = sn_odrp_child(n, "outline");
    if (!outline)
        outline = sn_odrp_child(sn_odrp_child(n, "outlines"), "outline");
    if (outline) {
        uint32_t nl = sn_odrp_count(outline, "cornerLocal"), nr = sn_odrp_count(outline, "cornerRoad");
        ob->road_corners = nr > 0 && nl == 0;
        uint32_t nc = ob->road_corners ? nr : nl, i = 0;
        if (nc) {
            ob->corners = sn_odrp_arena_alloc(p->m->arena, nc * sizeof *ob->corners);
            if (!ob->corners)
                return sn_odrp_oom(p);
            EACH(c, outline, ob->road_corners ? "cornerRoad" : "cornerLocal") {
                sn_odr_corner *k = &ob->corners[i++];
                const char *u = ob->road_corners ? "s" : "u", *v = ob->road_corners ? "t" : "v",
                           *z = ob->road_corners ? "dz" : "z";
                if (!sn_odrp_num(p, c, u, true, 0, 1e6, &k->u) || !sn_odrp_num(p, c, v, true, 0, 1e6, &k->v) ||
                    !sn_odrp_num(p, c, z, false, 0, 1e4, &k->z) || !sn_odrp_num(p, c, "height", false, 0, 1e4, &k->height))
                    return false;
            }
            ob->n_corners = nc;
        }
    }
    return true;
}

/* ---- roads ---- */

static bool parse_link(parser *p, xmlNodePtr n, sn_odr_link *l)
{
    if (!n)
        return true;
    const char *t = sn_odrp_attr(n, "elementType");
    if (!t)
        return sn_odrp_fail(p, n, "missing attribute 'elementType'");
    if (!strcmp(t, "road"))
        l->elem = SN_ODR_ELEM_ROAD;
    else if (!strcmp(t, "junction"))
        l->elem = SN_ODR_ELEM_JUNCTION;
    else
        return sn_odrp_fail(p, n, "elementType=\"%.20s\" is neither \"road\" nor \"junction\"", t);
    if (!sn_odrp_int_id(p, n, "elementId", true, -1, &l->id))
        return false;
    const char *c = sn_odrp_attr(n, "contactPoint");
    l->contact = !c ? SN_ODR_CONTACT_NONE : !strcmp(c, "start") ? SN_ODR_CONTACT_START
               : !strcmp(c, "end") ? SN_ODR_CONTACT_END : SN_ODR_CONTACT_NONE;
    if (l->elem == SN_ODR_ELEM_ROAD && l->contact == SN_ODR_CONTACT_NONE) {
        sn_odrp_warn(p, W_LINK, n, "a link to road %d without contactPoint: read as \"start\"", (int)l->id);
        l->contact = SN_ODR_CONTACT_START;
    }
    l->index = -1;
    return true;
}

/* The road's <planView>: its geometries in s order, each checked to be a place on a map and
** tabulated. */
static bool parse_plan_view(parser *p, xmlNodePtr n, sn_odr_road *r)
{
    xmlNodePtr pv = sn_odrp_child(n, "planView");
    uint32_t ng = sn_odrp_count(pv, "geometry");
    if (!ng)
        return sn_odrp_fail(p, pv ? pv : n, "road %d has no <planView> <geometry>", (int)r->id);
    r->geoms = sn_odrp_arena_alloc(p->m->arena, ng * sizeof *r->geoms);
    if (!r->geoms)
        return sn_odrp_oom(p);
    uint32_t i = 0;
    EACH(c, pv, "geometry") {
        if (!parse_geom(p, c, &r->geoms[i]))
            return false;
        if (i && r->geoms[i].s < r->geoms[i - 1].s - 1e-6)
            return sn_odrp_fail(p, c, "geometry s=%g comes before the previous piece's s=%g", r->geoms[i].s, r->geoms[i - 1].s);
        i++;
    }
    r->n_geoms = ng;
    if (r->geoms[0].s > 1e-3)
        return sn_odrp_fail(p, pv, "road %d: the first geometry starts at s=%g, not 0", (int)r->id, r->geoms[0].s);
    for (uint32_t k = 0; k < ng; k++) {
        const sn_odr_geom *g = &r->geoms[k];
        if (g->s > r->length + 1e-3)
            return sn_odrp_fail(p, pv, "road %d: a geometry (line %d) starts at s=%g, past the road's length %g", (int)r->id,
                        g->line, g->s, r->length);
        /* Pieces must follow on in s: real maps miss by a few mm (kept), not by metres. */
        double end = g->s + g->length, next = k + 1 < ng ? r->geoms[k + 1].s : r->length;
        if (fabs(end - next) > 0.01)
            sn_odrp_warn(p, W_GEOM_GAP, pv, "road %d: the geometry at line %d ends at s=%g but the next piece (or the road) "
                 "starts (ends) at s=%g", (int)r->id, g->line, end, next);
        /* A reference line that turns more than 50 rad in one piece, or curves tighter than
        ** 0.1 m, is no road; it would also cost the integrations without end. */
        double k0 = fabs(g->curv), k1 = g->kind == SN_ODR_SPIRAL ? fabs(g->curv_end) : k0;
        if ((g->kind == SN_ODR_ARC || g->kind == SN_ODR_SPIRAL) &&
            (fmax(k0, k1) > 10 || 0.5 * (k0 + k1) * g->length > 50))
            return sn_odrp_fail(p, pv, "road %d: the %s at line %d curves %g 1/m over %g m (at most 10 1/m and 50 rad)",
                        (int)r->id, g->kind == SN_ODR_ARC ? "arc" : "spiral", g->line, fmax(k0, k1), g->length);
        if (g->kind == SN_ODR_POLY3) {
            /* |v'(u)| at the ends and at the quadratic's extremum, over u in [0, length] */
            double us[3] = {0, g->length, g->d != 0 ? -g->c / (3 * g->d) : 0}, worst = 0;
            for (int q = 0; q < 3; q++)
                if (us[q] >= 0 && us[q] <= g->length)
                    worst = fmax(worst, fabs(g->b + us[q] * (2 * g->c + 3 * g->d * us[q])));
            if (!(worst <= 100))
                return sn_odrp_fail(p, pv, "road %d: the poly3 at line %d reaches a slope of %g (at most 100) within its %g m",
                            (int)r->id, g->line, worst, g->length);
        }
        size_t nt = sn_odr_geom_tab_size(g);
        if (nt) {
            double *tab = sn_odrp_arena_alloc(p->m->arena, nt * sizeof *tab);
            if (!tab)
                return sn_odrp_oom(p);
            sn_odr_geom_tabulate(&r->geoms[k], tab);
        }
        /* Whatever the numbers, the piece's end must be a finite pose (issue 33 item 13b) */
        sn_odr_pose e = sn_odr_geom_eval(g, g->length);
        if (!isfinite(e.x) || !isfinite(e.y) || !isfinite(e.hdg) || fabs(e.x) > 2 * SN_ODR_MAX_COORD ||
            fabs(e.y) > 2 * SN_ODR_MAX_COORD)
            return sn_odrp_fail(p, pv, "road %d: the geometry at line %d ends at (%g, %g), heading %g: not a place on a map",
                        (int)r->id, g->line, e.x, e.y, e.hdg);
    }
    return true;
}

/* The road's <laneSection>s in <lanes>, in s order, each ending where the next begins. */
static bool parse_sections(parser *p, xmlNodePtr n, xmlNodePtr lanes, sn_odr_road *r)
{
    uint32_t ns = sn_odrp_count(lanes, "laneSection");
    if (!ns)
        return sn_odrp_fail(p, lanes ? lanes : n, "road %d has no <laneSection>", (int)r->id);
    r->sections = sn_odrp_arena_alloc(p->m->arena, ns * sizeof *r->sections);
    if (!r->sections)
        return sn_odrp_oom(p);
    uint32_t i = 0;
    EACH(c, lanes, "laneSection") {
        if (!parse_section(p, c, r->length, &r->sections[i]))
            return false;
        if (i && r->sections[i].s < r->sections[i - 1].s)
            return sn_odrp_fail(p, c, "lane section s=%g comes before the previous one's s=%g", r->sections[i].s,
                        r->sections[i - 1].s);
        if (r->sections[i].s > r->length) { /* parse_section allowed 1 m of rounding past the end */
            sn_odrp_warn(p, W_SECTION, c, "road %d: a lane section starts at s=%g, past the road's length %g: read at its end",
                 (int)r->id, r->sections[i].s, r->length);
            r->sections[i].s = r->length;
        }
        i++;
    }
    r->n_sections = ns;
    if (r->sections[0].s > 1e-3) {
        sn_odrp_warn(p, W_SECTION, lanes, "road %d: the first lane section starts at s=%g: it is read from 0", (int)r->id,
             r->sections[0].s);
        r->sections[0].s = 0;
    }
    for (uint32_t k = 0; k < ns; k++)
        r->sections[k].s_end = k + 1 < ns ? r->sections[k + 1].s : r->length;
    return true;
}

bool sn_odrp_parse_road(parser *p, xmlNodePtr n, uint32_t index, sn_odr_road *r)
{
    r->line = sn_odrp_line_of(n);
    if (!sn_odrp_int_id(p, n, "id", true, (int32_t)index, &r->id) ||
        !sn_odrp_num(p, n, "length", true, 0, SN_ODR_MAX_LENGTH, &r->length) ||
        !sn_odrp_int_id(p, n, "junction", false, -1, &r->junction))
        return false;
    if (r->length <= 0)
        return sn_odrp_fail(p, n, "road %d: length=%g must be positive", (int)r->id, r->length);
    if (!(r->name = sn_odrp_dup(p, sn_odrp_attr(n, "name"))))
        return false;
    const char *rule = sn_odrp_attr(n, "rule");
    r->rule = rule && !strcmp(rule, "LHT") ? 'L' : 'R';
    r->junction_index = -1;
    xmlNodePtr link = sn_odrp_child(n, "link");
    if (!parse_link(p, sn_odrp_child(link, "predecessor"), &r->pred) || !parse_link(p, sn_odrp_child(link, "successor"), &r->succ))
        return false;

    /* Types and their speeds. */
    uint32_t i = 0;
    r->types = sn_odrp_children(p, n, "type", sizeof *r->types, &r->n_types);
    EACH(c, n, "type") {
        if (p->failed)
            return false;
        sn_odr_roadtype *t = &r->types[i++];
        if (!sn_odrp_num(p, c, "s", true, 0, r->length + 1.0, &t->s))
            return false;
        snprintf(t->type, sizeof t->type, "%s", sn_odrp_attr(c, "type") ? sn_odrp_attr(c, "type") : "");
        xmlNodePtr sp = sn_odrp_child(c, "speed");
        if (sp && !speed_max(p, sp, &t->speed))
            return false;
    }

    if (!parse_plan_view(p, n, r))
        return false;

    if (!sn_odrp_polys(p, sn_odrp_child(n, "elevationProfile"), "elevation", "s", r->length + 1.0, &r->elevation, &r->n_elevation))
        return false;
    xmlNodePtr lat = sn_odrp_child(n, "lateralProfile");
    if (!sn_odrp_polys(p, lat, "superelevation", "s", r->length + 1.0, &r->superelevation, &r->n_superelevation))
        return false;
    xmlNodePtr lanes = sn_odrp_child(n, "lanes");
    if (!sn_odrp_polys(p, lanes, "laneOffset", "s", r->length + 1.0, &r->lane_offset, &r->n_lane_offset))
        return false;

    if (!parse_sections(p, n, lanes, r))
        return false;

    xmlNodePtr sigs = sn_odrp_child(n, "signals");
    uint32_t nsig = sn_odrp_count(sigs, "signal") + sn_odrp_count(sigs, "signalReference");
    if (nsig) {
        r->signals = sn_odrp_arena_alloc(p->m->arena, nsig * sizeof *r->signals);
        if (!r->signals)
            return sn_odrp_oom(p);
        i = 0;
        for (xmlNodePtr c = sigs->children; c; c = c->next)
            if (sn_odrp_is(c, "signal") || sn_odrp_is(c, "signalReference")) {
                if (!parse_signal(p, c, r->length, -1, &r->signals[i]))
                    return false;
                i++;
            }
        r->n_signals = nsig;
    }
    xmlNodePtr objs = sn_odrp_child(n, "objects");
    r->objects = sn_odrp_children(p, objs, "object", sizeof *r->objects, &r->n_objects);
    i = 0;
    EACH(c, objs, "object") {
        if (p->failed || !parse_object(p, c, r->length, -1, &r->objects[i]))
            return false;
        i++;
    }
    return !p->failed;
}
