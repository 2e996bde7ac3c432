/* odr_parse.c — ASAM OpenDRIVE 1.4-1.6 into sn_odr (odr.h), with libxml2.
**
** The tree is walked twice per list (count, then fill) so every array is allocated once, at
** its size, from one arena freed as a whole. Each element is checked where it is read: a
** number that is not finite or out of its range, a lane list with holes, sections out of
** order are errors naming FILE:LINE and the element; what a real map gets wrong but a reader
** can live with (a link to a road that does not exist, an unknown lane type) is a warning,
** given once per kind, and the offending part is dropped. */
#include "odr.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"
#include "../core/xmlread.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

/* ---- arena: the network's memory, freed at once ---- */

typedef struct sn_odr_chunk {
    struct sn_odr_chunk *next;
    size_t used, cap;
    max_align_t data[];
} sn_odr_chunk;

struct sn_odr_arena {
    sn_odr_chunk *head;
};

static void *arena_alloc(struct sn_odr_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    sn_odr_chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > (1u << 20) ? n : (1u << 20);
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = a->head, c->used = 0, c->cap = cap;
        a->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    memset(p, 0, n);
    return p;
}

/* ---- the parse state ---- */

typedef struct parser {
    sn_odr *m;
    const char *file;
    sn_error *err;
    bool failed;
    unsigned warned; /* bit per warning kind: each kind once */
} parser;

enum { W_LINK, W_LANETYPE, W_MARK, W_GEOM_GAP, W_UNKNOWN_GEOM, W_LANELINK, W_SIGNAL, W_ID, W_WIDTH, W_UNIT,
       W_SECTION, W_KINDS };

static int line_of(xmlNodePtr n) { return n ? (int)xmlGetLineNo(n) : 0; }

static bool fail(parser *p, xmlNodePtr n, const char *fmt, ...) SN_PRINTF(3, 4);
static bool fail(parser *p, xmlNodePtr n, const char *fmt, ...)
{
    if (p->failed)
        return false;
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    sn_fail(p->err, SN_E_INVALID, "%s:%d: <%s>: %s", p->file, line_of(n), n ? (const char *)n->name : "OpenDRIVE",
            what);
    p->failed = true;
    return false;
}

static void warn(parser *p, int kind, xmlNodePtr n, const char *fmt, ...) SN_PRINTF(4, 5);
static void warn(parser *p, int kind, xmlNodePtr n, const char *fmt, ...)
{
    if (p->warned & (1u << kind))
        return;
    p->warned |= 1u << kind;
    char what[600], line[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int len = snprintf(line, sizeof line, "%s:%d: <%s>: %s (warned once)", p->file, line_of(n),
                       n ? (const char *)n->name : "OpenDRIVE", what);
    char **w = arena_alloc(p->m->arena, (p->m->n_warnings + 1) * sizeof *w);
    char *s = arena_alloc(p->m->arena, (size_t)len + 1);
    if (!w || !s)
        return;
    memcpy(s, line, (size_t)len + 1);
    if (p->m->n_warnings)
        memcpy(w, p->m->warnings, p->m->n_warnings * sizeof *w);
    w[p->m->n_warnings++] = s;
    p->m->warnings = w;
}

static bool oom(parser *p) { return fail(p, NULL, "out of memory"); }

static bool is(xmlNodePtr n, const char *name);
static uint32_t count(xmlNodePtr n, const char *name);

/* A zeroed array from the arena for the `name` children of `parent`, *n their count: NULL
** with *n 0 when there are none, NULL with the parse failed when out of memory. */
static void *children(parser *p, xmlNodePtr parent, const char *name, size_t elem, uint32_t *n)
{
    *n = count(parent, name);
    if (!*n)
        return NULL;
    void *a = arena_alloc(p->m->arena, *n * elem);
    if (!a) {
        *n = 0;
        oom(p);
    }
    return a;
}

static bool is(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (is(c, name))
            return c;
    return NULL;
}

static uint32_t count(xmlNodePtr n, const char *name)
{
    uint32_t k = 0;
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        k += is(c, name);
    return k;
}

#define EACH(c, parent, name) \
    for (xmlNodePtr c = (parent) ? (parent)->children : NULL; c; c = c->next) \
        if (is(c, name))

/* Attribute text, or NULL; owned by the tree (libxml2's properties are read in place). */
static const char *attr(xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0 && a->children && a->children->type == XML_TEXT_NODE)
            return (const char *)a->children->content;
        else if (strcmp((const char *)a->name, name) == 0)
            return "";
    return NULL;
}

static char *dup(parser *p, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    char *d = arena_alloc(p->m->arena, n + 1);
    if (!d) {
        oom(p);
        return NULL;
    }
    memcpy(d, s, n + 1);
    return d;
}

/* A number attribute: required ones fail when missing; present ones must be finite numbers
** within [-limit, limit]. */
static bool num(parser *p, xmlNodePtr n, const char *name, bool required, double dflt, double limit, double *out)
{
    const char *s = attr(n, name);
    if (!s) {
        if (required)
            return fail(p, n, "missing attribute '%s'", name);
        *out = dflt;
        return true;
    }
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == s || *end)
        return fail(p, n, "attribute %s=\"%.40s\" is not a number", name, s);
    if (!isfinite(v) || fabs(v) > limit)
        return fail(p, n, "attribute %s=\"%.40s\" is out of range (|%s| <= %g)", name, s, name, limit);
    *out = v;
    return true;
}

/* An integer id. OpenDRIVE ids are strings; sensim's (and CARLA's) are integers: a
** non-numeric id gets `fallback` with a warning. */
static bool int_id(parser *p, xmlNodePtr n, const char *name, bool required, int32_t fallback, int32_t *out)
{
    const char *s = attr(n, name);
    if (!s) {
        if (required)
            return fail(p, n, "missing attribute '%s'", name);
        *out = fallback;
        return true;
    }
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < INT32_MIN || v > INT32_MAX) {
        warn(p, W_ID, n, "%s=\"%.40s\" is not an integer: numbered %d instead", name, s, (int)fallback);
        *out = fallback;
        return true;
    }
    *out = (int32_t)v;
    return true;
}

static bool lane_id(parser *p, xmlNodePtr n, const char *name, int *out)
{
    const char *s = attr(n, name);
    if (!s)
        return fail(p, n, "missing attribute '%s'", name);
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -SN_ODR_MAX_LANES || v > SN_ODR_MAX_LANES)
        return fail(p, n, "%s=\"%.40s\" is not a lane id (an integer within +-%d)", name, s, SN_ODR_MAX_LANES);
    *out = (int)v;
    return true;
}

static bool poly(parser *p, xmlNodePtr n, const char *s_name, double s_limit, sn_odr_poly *out)
{
    return num(p, n, s_name, true, 0, s_limit, &out->s) && num(p, n, "a", false, 0, 1e6, &out->a) &&
           num(p, n, "b", false, 0, 1e6, &out->b) && num(p, n, "c", false, 0, 1e6, &out->c) &&
           num(p, n, "d", false, 0, 1e6, &out->d);
}

/* Records of `name` under `parent` as polys sorted by s (a file out of order is sorted, stably). */
static int cmp_poly(const void *a, const void *b)
{
    const sn_odr_poly *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

static bool polys(parser *p, xmlNodePtr parent, const char *name, const char *s_name, double s_limit,
                  sn_odr_poly **out, uint32_t *n_out)
{
    uint32_t n = count(parent, name), i = 0;
    *n_out = 0;
    if (!n)
        return true;
    sn_odr_poly *v = arena_alloc(p->m->arena, n * sizeof *v);
    if (!v)
        return oom(p);
    bool sorted = true;
    EACH(c, parent, name) {
        if (!poly(p, c, s_name, s_limit, &v[i]))
            return false;
        if (i && v[i].s < v[i - 1].s)
            sorted = false;
        i++;
    }
    if (!sorted) { /* insertion sort keeps equal starts in file order */
        for (uint32_t a = 1; a < n; a++)
            for (uint32_t b = a; b > 0 && cmp_poly(&v[b - 1], &v[b]) > 0; b--) {
                sn_odr_poly t = v[b];
                v[b] = v[b - 1], v[b - 1] = t;
            }
    }
    *out = v, *n_out = n;
    return true;
}

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
    const char *s = attr(n, "type");
    if (!s)
        return SN_LANE_NONE;
    for (size_t i = 0; i < SN_COUNT(lane_types); i++)
        if (strcmp(s, lane_types[i].name) == 0)
            return lane_types[i].flag;
    warn(p, W_LANETYPE, n, "unknown lane type \"%.40s\": read as \"none\"", s);
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
    const char *s = attr(n, "type");
    if (!s)
        return SN_MARK_NONE;
    for (size_t i = 0; i < SN_COUNT(t); i++)
        if (strcmp(s, t[i].name) == 0)
            return t[i].t;
    warn(p, W_MARK, n, "unknown road mark type \"%.40s\": read as \"other\"", s);
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
    const char *u = attr(n, "unit");
    if (!u || !strcmp(u, "m/s"))
        return 1.0;
    if (!strcmp(u, "km/h"))
        return 1.0 / 3.6;
    if (!strcmp(u, "mph"))
        return 0.44704;
    warn(p, W_UNIT, n, "unknown speed unit \"%.20s\": read as m/s", u);
    return 1.0;
}

/* <speed max="no limit"> and "undefined" mean none. */
static bool speed_max(parser *p, xmlNodePtr n, double *out)
{
    const char *s = attr(n, "max");
    if (!s || !strcmp(s, "no limit") || !strcmp(s, "undefined")) {
        *out = 0;
        return true;
    }
    double v;
    if (!num(p, n, "max", true, 0, 1e4, &v))
        return false;
    if (v < 0)
        return fail(p, n, "a negative speed limit (%g)", v);
    *out = v * speed_unit(p, n);
    return true;
}

static bool parse_lane(parser *p, xmlNodePtr n, double sec_len, sn_odr_lane *l)
{
    if (!lane_id(p, n, "id", &l->id))
        return false;
    l->type = lane_type(p, n);
    const char *lv = attr(n, "level");
    l->level = lv && (!strcmp(lv, "true") || !strcmp(lv, "1"));
    xmlNodePtr link = child(n, "link");
    if (link) {
        xmlNodePtr pr = child(link, "predecessor"), su = child(link, "successor");
        if (pr && !lane_id(p, pr, "id", &l->pred))
            return false;
        if (su && !lane_id(p, su, "id", &l->succ))
            return false;
        l->has_pred = pr != NULL, l->has_succ = su != NULL;
    }
    const double lim = sec_len + 1e3;
    uint32_t nw = count(n, "width"), nb = count(n, "border");
    if (nb && !nw) {
        l->use_border = true;
        if (!polys(p, n, "border", "sOffset", lim, &l->widths, &l->n_widths))
            return false;
    } else if (!polys(p, n, "width", "sOffset", lim, &l->widths, &l->n_widths))
        return false;
    if (l->id != 0 && !l->n_widths)
        warn(p, W_WIDTH, n, "lane %d has no <width>: width 0", l->id);

    uint32_t nm = count(n, "roadMark"), i = 0;
    if (nm) {
        l->marks = arena_alloc(p->m->arena, nm * sizeof *l->marks);
        if (!l->marks)
            return oom(p);
        EACH(c, n, "roadMark") {
            sn_odr_mark *mk = &l->marks[i];
            if (!num(p, c, "sOffset", false, 0, lim, &mk->s_offset) || !num(p, c, "width", false, 0.15, 100, &mk->width))
                return false;
            if (mk->width < 0)
                return fail(p, c, "a negative width (%g)", mk->width);
            mk->type = mark_type(p, c);
            mk->color = mark_color(attr(c, "color"));
            const char *w = attr(c, "weight");
            mk->weight = w && !strcmp(w, "bold");
            mk->lane_change = mark_change(attr(c, "laneChange"), mk->type);
            if (i && mk->s_offset < l->marks[i - 1].s_offset)
                return fail(p, c, "sOffset %g comes before the previous road mark's %g", mk->s_offset,
                            l->marks[i - 1].s_offset);
            i++;
        }
        l->n_marks = nm;
    }
    l->speeds = children(p, n, "speed", sizeof *l->speeds, &l->n_speeds);
    i = 0;
    EACH(c, n, "speed") {
        if (p->failed || !num(p, c, "sOffset", false, 0, lim, &l->speeds[i].s_offset) ||
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
    if (!num(p, n, "s", true, 0, road_len + 1.0, &sec->s))
        return false;
    if (sec->s < 0)
        return fail(p, n, "s=%g is negative", sec->s);
    xmlNodePtr side[3] = {child(n, "left"), child(n, "center"), child(n, "right")};
    uint32_t total = 0;
    for (int k = 0; k < 3; k++)
        total += count(side[k], "lane");
    if (!side[1] || count(side[1], "lane") != 1)
        return fail(p, n, "a lane section needs exactly one centre lane (<center><lane id=\"0\"/></center>)");
    sec->lanes = arena_alloc(p->m->arena, total * sizeof *sec->lanes);
    if (!sec->lanes)
        return oom(p);
    uint32_t i = 0;
    for (int k = 0; k < 3; k++) {
        EACH(c, side[k], "lane") {
            if (!parse_lane(p, c, road_len, &sec->lanes[i]))
                return false;
            int id = sec->lanes[i].id;
            if ((k == 0 && id <= 0) || (k == 1 && id != 0) || (k == 2 && id >= 0))
                return fail(p, c, "lane id %d does not belong in <%s>", id, k == 0 ? "left" : k == 1 ? "center" : "right");
            i++;
        }
    }
    qsort(sec->lanes, total, sizeof *sec->lanes, cmp_lane);
    /* Ids must run -n..n without holes or repeats: the lanes' borders stack in that order. */
    for (uint32_t k = 0; k < total; k++)
        if (sec->lanes[k].id != sec->lanes[0].id + (int)k)
            return fail(p, n, "lane ids must run without holes or repeats from %d to %d (found %d)", sec->lanes[0].id,
                        sec->lanes[total - 1].id, sec->lanes[k].id);
    sec->n_lanes = total;
    sec->n_right = (uint32_t)(-sec->lanes[0].id);
    sec->n_left = total - 1 - sec->n_right;
    return true;
}

/* ---- plan view ---- */

static bool parse_geom(parser *p, xmlNodePtr n, sn_odr_geom *g)
{
    g->line = line_of(n);
    if (!num(p, n, "s", true, 0, SN_ODR_MAX_LENGTH, &g->s) || !num(p, n, "x", true, 0, SN_ODR_MAX_COORD, &g->x) ||
        !num(p, n, "y", true, 0, SN_ODR_MAX_COORD, &g->y) || !num(p, n, "hdg", true, 0, 1e4, &g->hdg) ||
        !num(p, n, "length", true, 0, SN_ODR_MAX_LENGTH, &g->length))
        return false;
    if (g->length < 0)
        return fail(p, n, "length=%g is negative", g->length);
    xmlNodePtr k = NULL;
    for (xmlNodePtr c = n->children; c && !k; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            k = c;
    if (!k)
        return fail(p, n, "a geometry needs one of <line>, <arc>, <spiral>, <poly3>, <paramPoly3>");
    if (is(k, "line"))
        g->kind = SN_ODR_LINE;
    else if (is(k, "arc")) {
        g->kind = SN_ODR_ARC;
        if (!num(p, k, "curvature", true, 0, 1e3, &g->curv))
            return false;
    } else if (is(k, "spiral")) {
        g->kind = SN_ODR_SPIRAL;
        if (!num(p, k, "curvStart", true, 0, 1e3, &g->curv) || !num(p, k, "curvEnd", true, 0, 1e3, &g->curv_end))
            return false;
    } else if (is(k, "poly3")) {
        g->kind = SN_ODR_POLY3;
        if (!num(p, k, "a", false, 0, 1e6, &g->a) || !num(p, k, "b", false, 0, 1e6, &g->b) ||
            !num(p, k, "c", false, 0, 1e6, &g->c) || !num(p, k, "d", false, 0, 1e6, &g->d))
            return false;
    } else if (is(k, "paramPoly3")) {
        g->kind = SN_ODR_PARAMPOLY3;
        const char *names[8] = {"aU", "bU", "cU", "dU", "aV", "bV", "cV", "dV"};
        double *dst[8] = {&g->au, &g->bu, &g->cu, &g->du, &g->av, &g->bv, &g->cv, &g->dv};
        for (int i = 0; i < 8; i++)
            if (!num(p, k, names[i], false, 0, 1e7, dst[i]))
                return false;
        const char *r = attr(k, "pRange");
        g->normalized = r && !strcmp(r, "normalized");
        if (r && !g->normalized && strcmp(r, "arcLength"))
            return fail(p, k, "pRange=\"%.20s\" is neither \"arcLength\" nor \"normalized\"", r);
        if (!r) /* 1.4 has no pRange: arcLength was the only reading until 1.5 made it explicit */
            g->normalized = false;
    } else
        return fail(p, k, "unknown geometry kind (expected line, arc, spiral, poly3 or paramPoly3)");
    return true;
}

/* ---- signals and objects ---- */

static bool parse_signal(parser *p, xmlNodePtr n, double road_len, int32_t fallback_id, sn_odr_signal *sg)
{
    sg->line = line_of(n);
    sg->is_reference = is(n, "signalReference");
    if (!int_id(p, n, "id", true, fallback_id, &sg->id) ||
        !num(p, n, "s", true, 0, road_len + 1.0, &sg->s) || !num(p, n, "t", false, 0, 1e4, &sg->t))
        return false;
    const char *o = attr(n, "orientation");
    sg->orientation = o && o[0] == '+' ? '+' : o && o[0] == '-' ? '-' : ' ';
    if (!sg->is_reference) {
        const char *d = attr(n, "dynamic");
        sg->dynamic = d && (!strcmp(d, "yes") || !strcmp(d, "true"));
        if (!num(p, n, "zOffset", false, 0, SN_ODR_MAX_SIGNAL_Z, &sg->z_offset) || !num(p, n, "hOffset", false, 0, 1e4, &sg->h_offset) ||
            !num(p, n, "height", false, 0, 1e4, &sg->height) || !num(p, n, "width", false, 0, 1e4, &sg->width))
            return false;
        const char *v = attr(n, "value");
        sg->value = v ? strtod(v, NULL) : 0;
        if (!isfinite(sg->value))
            sg->value = 0;
        if (!(sg->name = dup(p, attr(n, "name"))) || !(sg->type = dup(p, attr(n, "type"))) ||
            !(sg->subtype = dup(p, attr(n, "subtype"))) || !(sg->country = dup(p, attr(n, "country"))) ||
            !(sg->unit = dup(p, attr(n, "unit"))))
            return false;
        /* <dependency id type>: CARLA keeps them (Signal::_dependencies); ids that are not
        ** integers cannot name a signal here and are dropped. */
        uint32_t nd = count(n, "dependency"), k = 0;
        if (nd && !(sg->deps = arena_alloc(p->m->arena, nd * sizeof *sg->deps)))
            return oom(p);
        EACH(c, n, "dependency") {
            const char *ds = attr(c, "id");
            char *end;
            long long v = ds ? strtoll(ds, &end, 10) : 0;
            if (ds && end != ds && !*end && v >= INT32_MIN && v <= INT32_MAX)
                sg->deps[k++] = (int32_t)v;
        }
        sg->n_deps = k;
    } else if (!(sg->name = dup(p, "")) || !(sg->type = dup(p, "")) || !(sg->subtype = dup(p, "")) ||
               !(sg->country = dup(p, "")) || !(sg->unit = dup(p, "")))
        return false;
    uint32_t i = 0;
    sg->validity = children(p, n, "validity", sizeof *sg->validity, &sg->n_validity);
    EACH(c, n, "validity") {
        if (p->failed || !lane_id(p, c, "fromLane", &sg->validity[i].from) ||
            !lane_id(p, c, "toLane", &sg->validity[i].to))
            return false;
        i++;
    }
    return !p->failed;
}

static bool parse_object(parser *p, xmlNodePtr n, double road_len, int32_t fallback_id, sn_odr_object *ob)
{
    if (!int_id(p, n, "id", true, fallback_id, &ob->id) || !num(p, n, "s", true, 0, road_len + 1.0, &ob->s) ||
        !num(p, n, "t", false, 0, 1e4, &ob->t) || !num(p, n, "zOffset", false, 0, 1e4, &ob->z_offset) ||
        !num(p, n, "hdg", false, 0, 1e4, &ob->hdg) || !num(p, n, "length", false, 0, 1e4, &ob->length) ||
        !num(p, n, "width", false, 0, 1e4, &ob->width) || !num(p, n, "radius", false, 0, 1e4, &ob->radius) ||
        !num(p, n, "height", false, 0, 1e4, &ob->height))
        return false;
    if (!(ob->name = dup(p, attr(n, "name"))) || !(ob->type = dup(p, attr(n, "type"))))
        return false;
    xmlNodePtr outline = child(n, "outline");
    if (!outline)
        outline = child(child(n, "outlines"), "outline");
    if (outline) {
        uint32_t nl = count(outline, "cornerLocal"), nr = count(outline, "cornerRoad");
        ob->road_corners = nr > 0 && nl == 0;
        uint32_t nc = ob->road_corners ? nr : nl, i = 0;
        if (nc) {
            ob->corners = arena_alloc(p->m->arena, nc * sizeof *ob->corners);
            if (!ob->corners)
                return oom(p);
            EACH(c, outline, ob->road_corners ? "cornerRoad" : "cornerLocal") {
                sn_odr_corner *k = &ob->corners[i++];
                const char *u = ob->road_corners ? "s" : "u", *v = ob->road_corners ? "t" : "v",
                           *z = ob->road_corners ? "dz" : "z";
                if (!num(p, c, u, true, 0, 1e6, &k->u) || !num(p, c, v, true, 0, 1e6, &k->v) ||
                    !num(p, c, z, false, 0, 1e4, &k->z) || !num(p, c, "height", false, 0, 1e4, &k->height))
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
    const char *t = attr(n, "elementType");
    if (!t)
        return fail(p, n, "missing attribute 'elementType'");
    if (!strcmp(t, "road"))
        l->elem = SN_ODR_ELEM_ROAD;
    else if (!strcmp(t, "junction"))
        l->elem = SN_ODR_ELEM_JUNCTION;
    else
        return fail(p, n, "elementType=\"%.20s\" is neither \"road\" nor \"junction\"", t);
    if (!int_id(p, n, "elementId", true, -1, &l->id))
        return false;
    const char *c = attr(n, "contactPoint");
    l->contact = !c ? SN_ODR_CONTACT_NONE : !strcmp(c, "start") ? SN_ODR_CONTACT_START
               : !strcmp(c, "end") ? SN_ODR_CONTACT_END : SN_ODR_CONTACT_NONE;
    if (l->elem == SN_ODR_ELEM_ROAD && l->contact == SN_ODR_CONTACT_NONE) {
        warn(p, W_LINK, n, "a link to road %d without contactPoint: read as \"start\"", (int)l->id);
        l->contact = SN_ODR_CONTACT_START;
    }
    l->index = -1;
    return true;
}

/* The road's <planView>: its geometries in s order, each checked to be a place on a map and
** tabulated. */
static bool parse_plan_view(parser *p, xmlNodePtr n, sn_odr_road *r)
{
    xmlNodePtr pv = child(n, "planView");
    uint32_t ng = count(pv, "geometry");
    if (!ng)
        return fail(p, pv ? pv : n, "road %d has no <planView> <geometry>", (int)r->id);
    r->geoms = arena_alloc(p->m->arena, ng * sizeof *r->geoms);
    if (!r->geoms)
        return oom(p);
    uint32_t i = 0;
    EACH(c, pv, "geometry") {
        if (!parse_geom(p, c, &r->geoms[i]))
            return false;
        if (i && r->geoms[i].s < r->geoms[i - 1].s - 1e-6)
            return fail(p, c, "geometry s=%g comes before the previous piece's s=%g", r->geoms[i].s, r->geoms[i - 1].s);
        i++;
    }
    r->n_geoms = ng;
    if (r->geoms[0].s > 1e-3)
        return fail(p, pv, "road %d: the first geometry starts at s=%g, not 0", (int)r->id, r->geoms[0].s);
    for (uint32_t k = 0; k < ng; k++) {
        const sn_odr_geom *g = &r->geoms[k];
        if (g->s > r->length + 1e-3)
            return fail(p, pv, "road %d: a geometry (line %d) starts at s=%g, past the road's length %g", (int)r->id,
                        g->line, g->s, r->length);
        /* Pieces must follow on in s: real maps miss by a few mm (kept), not by metres. */
        double end = g->s + g->length, next = k + 1 < ng ? r->geoms[k + 1].s : r->length;
        if (fabs(end - next) > 0.01)
            warn(p, W_GEOM_GAP, pv, "road %d: the geometry at line %d ends at s=%g but the next piece (or the road) "
                 "starts (ends) at s=%g", (int)r->id, g->line, end, next);
        /* A reference line that turns more than 50 rad in one piece, or curves tighter than
        ** 0.1 m, is no road; it would also cost the integrations without end. */
        double k0 = fabs(g->curv), k1 = g->kind == SN_ODR_SPIRAL ? fabs(g->curv_end) : k0;
        if ((g->kind == SN_ODR_ARC || g->kind == SN_ODR_SPIRAL) &&
            (fmax(k0, k1) > 10 || 0.5 * (k0 + k1) * g->length > 50))
            return fail(p, pv, "road %d: the %s at line %d curves %g 1/m over %g m (at most 10 1/m and 50 rad)",
                        (int)r->id, g->kind == SN_ODR_ARC ? "arc" : "spiral", g->line, fmax(k0, k1), g->length);
        if (g->kind == SN_ODR_POLY3) {
            /* |v'(u)| at the ends and at the quadratic's extremum, over u in [0, length] */
            double us[3] = {0, g->length, g->d != 0 ? -g->c / (3 * g->d) : 0}, worst = 0;
            for (int q = 0; q < 3; q++)
                if (us[q] >= 0 && us[q] <= g->length)
                    worst = fmax(worst, fabs(g->b + us[q] * (2 * g->c + 3 * g->d * us[q])));
            if (!(worst <= 100))
                return fail(p, pv, "road %d: the poly3 at line %d reaches a slope of %g (at most 100) within its %g m",
                            (int)r->id, g->line, worst, g->length);
        }
        size_t nt = sn_odr_geom_tab_size(g);
        if (nt) {
            double *tab = arena_alloc(p->m->arena, nt * sizeof *tab);
            if (!tab)
                return oom(p);
            sn_odr_geom_tabulate(&r->geoms[k], tab);
        }
        /* Whatever the numbers, the piece's end must be a finite pose (issue 33 item 13b) */
        sn_odr_pose e = sn_odr_geom_eval(g, g->length);
        if (!isfinite(e.x) || !isfinite(e.y) || !isfinite(e.hdg) || fabs(e.x) > 2 * SN_ODR_MAX_COORD ||
            fabs(e.y) > 2 * SN_ODR_MAX_COORD)
            return fail(p, pv, "road %d: the geometry at line %d ends at (%g, %g), heading %g: not a place on a map",
                        (int)r->id, g->line, e.x, e.y, e.hdg);
    }
    return true;
}

/* The road's <laneSection>s in <lanes>, in s order, each ending where the next begins. */
static bool parse_sections(parser *p, xmlNodePtr n, xmlNodePtr lanes, sn_odr_road *r)
{
    uint32_t ns = count(lanes, "laneSection");
    if (!ns)
        return fail(p, lanes ? lanes : n, "road %d has no <laneSection>", (int)r->id);
    r->sections = arena_alloc(p->m->arena, ns * sizeof *r->sections);
    if (!r->sections)
        return oom(p);
    uint32_t i = 0;
    EACH(c, lanes, "laneSection") {
        if (!parse_section(p, c, r->length, &r->sections[i]))
            return false;
        if (i && r->sections[i].s < r->sections[i - 1].s)
            return fail(p, c, "lane section s=%g comes before the previous one's s=%g", r->sections[i].s,
                        r->sections[i - 1].s);
        if (r->sections[i].s > r->length) { /* parse_section allowed 1 m of rounding past the end */
            warn(p, W_SECTION, c, "road %d: a lane section starts at s=%g, past the road's length %g: read at its end",
                 (int)r->id, r->sections[i].s, r->length);
            r->sections[i].s = r->length;
        }
        i++;
    }
    r->n_sections = ns;
    if (r->sections[0].s > 1e-3) {
        warn(p, W_SECTION, lanes, "road %d: the first lane section starts at s=%g: it is read from 0", (int)r->id,
             r->sections[0].s);
        r->sections[0].s = 0;
    }
    for (uint32_t k = 0; k < ns; k++)
        r->sections[k].s_end = k + 1 < ns ? r->sections[k + 1].s : r->length;
    return true;
}

static bool parse_road(parser *p, xmlNodePtr n, uint32_t index, sn_odr_road *r)
{
    r->line = line_of(n);
    if (!int_id(p, n, "id", true, (int32_t)index, &r->id) ||
        !num(p, n, "length", true, 0, SN_ODR_MAX_LENGTH, &r->length) ||
        !int_id(p, n, "junction", false, -1, &r->junction))
        return false;
    if (r->length <= 0)
        return fail(p, n, "road %d: length=%g must be positive", (int)r->id, r->length);
    if (!(r->name = dup(p, attr(n, "name"))))
        return false;
    const char *rule = attr(n, "rule");
    r->rule = rule && !strcmp(rule, "LHT") ? 'L' : 'R';
    r->junction_index = -1;
    xmlNodePtr link = child(n, "link");
    if (!parse_link(p, child(link, "predecessor"), &r->pred) || !parse_link(p, child(link, "successor"), &r->succ))
        return false;

    /* Types and their speeds. */
    uint32_t i = 0;
    r->types = children(p, n, "type", sizeof *r->types, &r->n_types);
    EACH(c, n, "type") {
        if (p->failed)
            return false;
        sn_odr_roadtype *t = &r->types[i++];
        if (!num(p, c, "s", true, 0, r->length + 1.0, &t->s))
            return false;
        snprintf(t->type, sizeof t->type, "%s", attr(c, "type") ? attr(c, "type") : "");
        xmlNodePtr sp = child(c, "speed");
        if (sp && !speed_max(p, sp, &t->speed))
            return false;
    }

    if (!parse_plan_view(p, n, r))
        return false;

    if (!polys(p, child(n, "elevationProfile"), "elevation", "s", r->length + 1.0, &r->elevation, &r->n_elevation))
        return false;
    xmlNodePtr lat = child(n, "lateralProfile");
    if (!polys(p, lat, "superelevation", "s", r->length + 1.0, &r->superelevation, &r->n_superelevation))
        return false;
    xmlNodePtr lanes = child(n, "lanes");
    if (!polys(p, lanes, "laneOffset", "s", r->length + 1.0, &r->lane_offset, &r->n_lane_offset))
        return false;

    if (!parse_sections(p, n, lanes, r))
        return false;

    xmlNodePtr sigs = child(n, "signals");
    uint32_t nsig = count(sigs, "signal") + count(sigs, "signalReference");
    if (nsig) {
        r->signals = arena_alloc(p->m->arena, nsig * sizeof *r->signals);
        if (!r->signals)
            return oom(p);
        i = 0;
        for (xmlNodePtr c = sigs->children; c; c = c->next)
            if (is(c, "signal") || is(c, "signalReference")) {
                if (!parse_signal(p, c, r->length, -1, &r->signals[i]))
                    return false;
                i++;
            }
        r->n_signals = nsig;
    }
    xmlNodePtr objs = child(n, "objects");
    r->objects = children(p, objs, "object", sizeof *r->objects, &r->n_objects);
    i = 0;
    EACH(c, objs, "object") {
        if (p->failed || !parse_object(p, c, r->length, -1, &r->objects[i]))
            return false;
        i++;
    }
    return !p->failed;
}

/* ---- junctions and controllers ---- */

static bool parse_junction(parser *p, xmlNodePtr n, uint32_t index, sn_odr_junction *j)
{
    if (!int_id(p, n, "id", true, (int32_t)index, &j->id) || !(j->name = dup(p, attr(n, "name"))))
        return false;
    uint32_t nc = count(n, "connection"), i = 0;
    if (nc) {
        j->connections = arena_alloc(p->m->arena, nc * sizeof *j->connections);
        if (!j->connections)
            return oom(p);
        EACH(c, n, "connection") {
            sn_odr_connection *cn = &j->connections[i];
            if (!int_id(p, c, "id", false, (int32_t)i, &cn->id) || !int_id(p, c, "incomingRoad", true, -1, &cn->incoming) ||
                !int_id(p, c, "connectingRoad", true, -1, &cn->connecting))
                return false;
            const char *cp = attr(c, "contactPoint");
            cn->contact = cp && !strcmp(cp, "end") ? SN_ODR_CONTACT_END : SN_ODR_CONTACT_START;
            cn->incoming_index = cn->connecting_index = -1;
            uint32_t k = 0;
            cn->links = children(p, c, "laneLink", sizeof *cn->links, &cn->n_links);
            EACH(l, c, "laneLink") {
                if (p->failed || !lane_id(p, l, "from", &cn->links[k].from) || !lane_id(p, l, "to", &cn->links[k].to))
                    return false;
                k++;
            }
            i++;
        }
        j->n_connections = nc;
    }
    j->controllers = children(p, n, "controller", sizeof *j->controllers, &j->n_controllers);
    i = 0;
    EACH(c, n, "controller") {
        if (p->failed || !int_id(p, c, "id", true, -1, &j->controllers[i]))
            return false;
        i++;
    }
    uint32_t np = 0;
    j->priorities = children(p, n, "priority", sizeof *j->priorities, &np);
    i = 0;
    EACH(c, n, "priority") {
        int32_t hi, lo;
        if (p->failed || !int_id(p, c, "high", false, -1, &hi) || !int_id(p, c, "low", false, -1, &lo))
            return false;
        if (hi >= 0 && lo >= 0 && hi != lo)
            j->priorities[i][0] = hi, j->priorities[i][1] = lo, i++;
    }
    j->n_priorities = i;
    return !p->failed;
}

static bool parse_controller(parser *p, xmlNodePtr n, uint32_t index, sn_odr_controller *k)
{
    if (!int_id(p, n, "id", true, (int32_t)index, &k->id) || !(k->name = dup(p, attr(n, "name"))))
        return false;
    uint32_t i = 0;
    k->signals = children(p, n, "control", sizeof *k->signals, &k->n_signals);
    EACH(c, n, "control") {
        if (p->failed || !int_id(p, c, "signalId", true, -1, &k->signals[i]))
            return false;
        i++;
    }
    return !p->failed;
}

/* ---- the header ---- */

/* "+lat_0=49.0 +lon_0=8.0 ..." -> the numbers (CARLA reads the same two). */
static bool proj_param(const char *s, const char *key, double *out)
{
    const char *at = strstr(s, key);
    if (!at)
        return false;
    char *end;
    double v = strtod(at + strlen(key), &end);
    if (end == at + strlen(key) || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static bool parse_header(parser *p, xmlNodePtr h)
{
    sn_odr *m = p->m;
    double v;
    if (!h)
        return dup(p, "") && (m->name = dup(p, "")) && (m->geo_reference = dup(p, ""));
    if (!num(p, h, "revMajor", false, 1, 100, &v))
        return false;
    m->rev_major = (int)v;
    if (!num(p, h, "revMinor", false, 4, 100, &v))
        return false;
    m->rev_minor = (int)v;
    if (!num(p, h, "north", false, 0, 1e9, &m->north) || !num(p, h, "south", false, 0, 1e9, &m->south) ||
        !num(p, h, "east", false, 0, 1e9, &m->east) || !num(p, h, "west", false, 0, 1e9, &m->west))
        return false;
    if (!(m->name = dup(p, attr(h, "name"))))
        return false;
    xmlNodePtr g = child(h, "geoReference");
    xmlChar *text = g ? xmlNodeGetContent(g) : NULL;
    m->geo_reference = dup(p, text ? (const char *)text : "");
    if (text)
        xmlFree(text);
    if (!m->geo_reference)
        return false;
    m->has_geo = proj_param(m->geo_reference, "+lat_0=", &m->lat0) && proj_param(m->geo_reference, "+lon_0=", &m->lon0);
    if (m->has_geo && (fabs(m->lat0) > 90 || fabs(m->lon0) > 360))
        m->has_geo = false;
    xmlNodePtr off = child(h, "offset");
    if (off && (!num(p, off, "x", false, 0, SN_ODR_MAX_COORD, &m->offset_x) ||
                !num(p, off, "y", false, 0, SN_ODR_MAX_COORD, &m->offset_y) ||
                !num(p, off, "z", false, 0, SN_ODR_MAX_COORD, &m->offset_z) ||
                !num(p, off, "hdg", false, 0, 1e4, &m->offset_hdg)))
        return false;
    return true;
}

/* ---- resolving links between roads and junctions ---- */

static int cmp_i32(int32_t a, int32_t b) { return (a > b) - (a < b); }

typedef struct sn_odr_id id_index; /* odr.h: an id and the index of what carries it */

static int cmp_id_index(const void *a, const void *b)
{
    const id_index *x = a, *y = b;
    int c = cmp_i32(x->id, y->id);
    return c ? c : cmp_i32(x->index, y->index);
}

static int32_t find(const id_index *t, uint32_t n, int32_t id)
{
    uint32_t lo = (uint32_t)sn_search_i32(t, n, sizeof *t, offsetof(id_index, id), id);
    return lo < n && t[lo].id == id ? t[lo].index : -1;
}

static bool resolve(parser *p, xmlNodePtr root)
{
    sn_odr *m = p->m;
    id_index *rt = arena_alloc(m->arena, (m->n_roads + 1) * sizeof *rt);
    id_index *jt = arena_alloc(m->arena, (m->n_junctions + 1) * sizeof *jt);
    if (!rt || !jt)
        return oom(p);
    for (uint32_t i = 0; i < m->n_roads; i++)
        rt[i] = (id_index){m->roads[i].id, (int32_t)i};
    for (uint32_t i = 0; i < m->n_junctions; i++)
        jt[i] = (id_index){m->junctions[i].id, (int32_t)i};
    qsort(rt, m->n_roads, sizeof *rt, cmp_id_index);
    qsort(jt, m->n_junctions, sizeof *jt, cmp_id_index);
    for (uint32_t i = 1; i < m->n_roads; i++)
        if (rt[i].id == rt[i - 1].id)
            return fail(p, root, "two roads have id %d (lines %d and %d)", (int)rt[i].id, m->roads[rt[i - 1].index].line,
                        m->roads[rt[i].index].line);
    for (uint32_t i = 1; i < m->n_junctions; i++)
        if (jt[i].id == jt[i - 1].id)
            return fail(p, root, "two junctions have id %d", (int)jt[i].id);
    m->road_ids = rt, m->junction_ids = jt;

    for (uint32_t i = 0; i < m->n_roads; i++) {
        sn_odr_road *r = &m->roads[i];
        sn_odr_link *ls[2] = {&r->pred, &r->succ};
        for (int k = 0; k < 2; k++) {
            sn_odr_link *l = ls[k];
            if (l->elem == SN_ODR_ELEM_NONE)
                continue;
            l->index = l->elem == SN_ODR_ELEM_ROAD ? find(rt, m->n_roads, l->id) : find(jt, m->n_junctions, l->id);
            if (l->index < 0) {
                warn(p, W_LINK, root, "road %d (line %d) links to %s %d, which does not exist: link dropped", (int)r->id,
                     r->line, l->elem == SN_ODR_ELEM_ROAD ? "road" : "junction", (int)l->id);
                l->elem = SN_ODR_ELEM_NONE;
            }
        }
        if (r->junction >= 0) {
            r->junction_index = find(jt, m->n_junctions, r->junction);
            if (r->junction_index < 0) {
                warn(p, W_LINK, root, "road %d (line %d) is in junction %d, which does not exist", (int)r->id, r->line,
                     (int)r->junction);
                r->junction = -1;
            }
        }
    }
    for (uint32_t i = 0; i < m->n_junctions; i++) {
        sn_odr_junction *j = &m->junctions[i];
        for (uint32_t c = 0; c < j->n_connections; c++) {
            sn_odr_connection *cn = &j->connections[c];
            cn->incoming_index = find(rt, m->n_roads, cn->incoming);
            cn->connecting_index = find(rt, m->n_roads, cn->connecting);
            if (cn->incoming_index < 0 || cn->connecting_index < 0)
                warn(p, W_LINK, root, "junction %d: connection %d names road %d, which does not exist: dropped",
                     (int)j->id, (int)cn->id, (int)(cn->incoming_index < 0 ? cn->incoming : cn->connecting));
        }
    }
    return true;
}

int32_t sn_odr_road_index(const sn_odr *m, int32_t id) { return find(m->road_ids, m->n_roads, id); }
int32_t sn_odr_junction_index(const sn_odr *m, int32_t id) { return find(m->junction_ids, m->n_junctions, id); }

/* ---- the document ---- */

static bool parse_doc(parser *p, xmlNodePtr root)
{
    sn_odr *m = p->m;
    if (!is(root, "OpenDRIVE"))
        return fail(p, root, "the root element must be <OpenDRIVE>");
    if (!parse_header(p, child(root, "header")))
        return false;
    m->n_roads = count(root, "road");
    if (m->n_roads > SN_ODR_MAX_ROADS)
        return fail(p, root, "%u roads (at most %u)", m->n_roads, SN_ODR_MAX_ROADS);
    m->n_junctions = count(root, "junction");
    m->n_controllers = count(root, "controller");
    m->roads = arena_alloc(m->arena, (m->n_roads + 1) * sizeof *m->roads);
    m->junctions = arena_alloc(m->arena, (m->n_junctions + 1) * sizeof *m->junctions);
    m->controllers = arena_alloc(m->arena, (m->n_controllers + 1) * sizeof *m->controllers);
    if (!m->roads || !m->junctions || !m->controllers)
        return oom(p);
    uint32_t ir = 0, ij = 0, ik = 0;
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (is(c, "road")) {
            if (!parse_road(p, c, ir, &m->roads[ir]))
                return false;
            ir++;
        } else if (is(c, "junction")) {
            if (!parse_junction(p, c, ij, &m->junctions[ij]))
                return false;
            ij++;
        } else if (is(c, "controller")) {
            if (!parse_controller(p, c, ik, &m->controllers[ik]))
                return false;
            ik++;
        }
    }
    return resolve(p, root);
}

void sn_odr_free(sn_odr *m)
{
    if (!m)
        return;
    struct sn_odr_arena *a = m->arena;
    free(m->path);
    free(m);
    if (!a)
        return;
    for (sn_odr_chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(a);
}

sn_status sn_odr_load_memory(const char *xml, size_t size, const char *name, sn_odr **out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    *out = NULL;
    if (!xml || !name)
        return sn_fail(err, SN_E_INVALID, "map: NULL argument");
    if (sn_odr_check_shape(xml, size, name, err))
        return err->status;
    sn_odr *m = calloc(1, sizeof *m);
    if (!m || !(m->arena = calloc(1, sizeof *m->arena)) || !(m->path = sn_strdup(name))) {
        sn_odr_free(m);
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", name);
    }
    xmlParserCtxtPtr ctx;
    xmlDocPtr doc = sn_xml_read_memory(xml, size, name, &ctx, err);
    if (!doc) {
        sn_odr_free(m);
        return err->status;
    }
    parser p = {.m = m, .file = name, .err = err};
    bool ok = parse_doc(&p, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    if (!ok) {
        sn_odr_free(m);
        return err->status ? err->status : SN_E_INVALID;
    }
    *out = m;
    return SN_OK;
}

sn_status sn_odr_load(const char *path, sn_odr **out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    *out = NULL;
    if (!path)
        return sn_fail(err, SN_E_IO, "(null): cannot open the map: no path");
    FILE *f = sn_open_input(path, "map", err); /* a FIFO would block */
    if (!f)
        return SN_E_IO;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 1u << 16;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                fclose(f);
                return sn_fail(err, SN_E_NOMEM, "%s: out of memory reading the map", path);
            }
            buf = nb, cap = nc;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n > SN_ODR_MAX_FILE) { /* a device or a growing file: stop reading, not memory */
            free(buf);
            fclose(f);
            return sn_fail(err, SN_E_RANGE, "%s:1: XML: the file has more than %u MiB, more than a map may have",
                           path, (unsigned)(SN_ODR_MAX_FILE >> 20));
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sn_fail(err, SN_E_IO, "%s: cannot read the map", path);
    }
    sn_status st = sn_odr_load_memory(buf, n, path, out, err);
    free(buf);
    return st;
}
