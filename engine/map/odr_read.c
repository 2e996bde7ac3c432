/* odr_read.c — what the OpenDRIVE parser reads elements with: the network's arena, errors (FILE:LINE
** and the element) and warnings (once per kind), attributes, numbers in range, ids, polynomials. */
#include "odr_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *sn_odrp_arena_alloc(struct sn_odr_arena *a, size_t n)
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

int sn_odrp_line_of(xmlNodePtr n) { return n ? (int)xmlGetLineNo(n) : 0; }

bool sn_odrp_fail(parser *p, xmlNodePtr n, const char *fmt, ...)
{
    if (p->failed)
        return false;
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    sn_fail(p->err, SN_E_INVALID, "%s:%d: <%s>: %s", p->file, sn_odrp_line_of(n), n ? (const char *)n->name : "OpenDRIVE",
            what);
    p->failed = true;
    return false;
}

void sn_odrp_warn(parser *p, int kind, xmlNodePtr n, const char *fmt, ...)
{
    if (p->warned & (1u << kind))
        return;
    p->warned |= 1u << kind;
    char what[600], line[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int len = snprintf(line, sizeof line, "%s:%d: <%s>: %s (warned once)", p->file, sn_odrp_line_of(n),
                       n ? (const char *)n->name : "OpenDRIVE", what);
    char **w = sn_odrp_arena_alloc(p->m->arena, (p->m->n_warnings + 1) * sizeof *w);
    char *s = sn_odrp_arena_alloc(p->m->arena, (size_t)len + 1);
    if (!w || !s)
        return;
    memcpy(s, line, (size_t)len + 1);
    if (p->m->n_warnings)
        memcpy(w, p->m->warnings, p->m->n_warnings * sizeof *w);
    w[p->m->n_warnings++] = s;
    p->m->warnings = w;
}

bool sn_odrp_oom(parser *p) { return sn_odrp_fail(p, NULL, "out of memory"); }


/* A zeroed array from the arena for the `name` children of `parent`, *n their count: NULL
** with *n 0 when there are none, NULL with the parse failed when out of memory. */
void *sn_odrp_children(parser *p, xmlNodePtr parent, const char *name, size_t elem, uint32_t *n)
{
    *n = sn_odrp_count(parent, name);
    if (!*n)
        return NULL;
    void *a = sn_odrp_arena_alloc(p->m->arena, *n * elem);
    if (!a) {
        *n = 0;
        sn_odrp_oom(p);
    }
    return a;
}

bool sn_odrp_is(xmlNodePtr n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

xmlNodePtr sn_odrp_child(xmlNodePtr n, const char *name)
{
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        if (sn_odrp_is(c, name))
            return c;
    return NULL;
}

uint32_t sn_odrp_count(xmlNodePtr n, const char *name)
{
    uint32_t k = 0;
    for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
        k += sn_odrp_is(c, name);
    return k;
}

/* Attribute text, or NULL; owned by the tree (libxml2's properties are read in place). */
const char *sn_odrp_attr(xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (strcmp((const char *)a->name, name) == 0 && a->children && a->children->type == XML_TEXT_NODE)
            return (const char *)a->children->content;
        else if (strcmp((const char *)a->name, name) == 0)
            return "";
    return NULL;
}

char *sn_odrp_dup(parser *p, const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s);
    char *d = sn_odrp_arena_alloc(p->m->arena, n + 1);
    if (!d) {
        sn_odrp_oom(p);
        return NULL;
    }
    memcpy(d, s, n + 1);
    return d;
}

/* A number attribute: required ones fail when missing; present ones must be finite numbers
** within [-limit, limit]. */
bool sn_odrp_num(parser *p, xmlNodePtr n, const char *name, bool required, double dflt, double limit, double *out)
{
    const char *s = sn_odrp_attr(n, name);
    if (!s) {
        if (required)
            return sn_odrp_fail(p, n, "missing attribute '%s'", name);
        *out = dflt;
        return true;
    }
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
        end++;
    if (end == s || *end)
        return sn_odrp_fail(p, n, "attribute %s=\"%.40s\" is not a number", name, s);
    if (!isfinite(v) || fabs(v) > limit)
        return sn_odrp_fail(p, n, "attribute %s=\"%.40s\" is out of range (|%s| <= %g)", name, s, name, limit);
    *out = v;
    return true;
}

/* An integer id. OpenDRIVE ids are strings; sensim's (and CARLA's) are integers: a
** non-numeric id gets `fallback` with a warning. */
bool sn_odrp_int_id(parser *p, xmlNodePtr n, const char *name, bool required, int32_t fallback, int32_t *out)
{
    const char *s = sn_odrp_attr(n, name);
    if (!s) {
        if (required)
            return sn_odrp_fail(p, n, "missing attribute '%s'", name);
        *out = fallback;
        return true;
    }
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < INT32_MIN || v > INT32_MAX) {
        sn_odrp_warn(p, W_ID, n, "%s=\"%.40s\" is not an integer: numbered %d instead", name, s, (int)fallback);
        *out = fallback;
        return true;
    }
    *out = (int32_t)v;
    return true;
}

bool sn_odrp_lane_id(parser *p, xmlNodePtr n, const char *name, int *out)
{
    const char *s = sn_odrp_attr(n, name);
    if (!s)
        return sn_odrp_fail(p, n, "missing attribute '%s'", name);
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < -SN_ODR_MAX_LANES || v > SN_ODR_MAX_LANES)
        return sn_odrp_fail(p, n, "%s=\"%.40s\" is not a lane id (an integer within +-%d)", name, s, SN_ODR_MAX_LANES);
    *out = (int)v;
    return true;
}

static bool poly(parser *p, xmlNodePtr n, const char *s_name, double s_limit, sn_odr_poly *out)
{
    return sn_odrp_num(p, n, s_name, true, 0, s_limit, &out->s) && sn_odrp_num(p, n, "a", false, 0, 1e6, &out->a) &&
           sn_odrp_num(p, n, "b", false, 0, 1e6, &out->b) && sn_odrp_num(p, n, "c", false, 0, 1e6, &out->c) &&
           sn_odrp_num(p, n, "d", false, 0, 1e6, &out->d);
}

/* Records of `name` under `parent` as polys sorted by s (a file out of order is sorted, stably). */
static int cmp_poly(const void *a, const void *b)
{
    const sn_odr_poly *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

bool sn_odrp_polys(parser *p, xmlNodePtr parent, const char *name, const char *s_name, double s_limit,
                  sn_odr_poly **out, uint32_t *n_out)
{
    uint32_t n = sn_odrp_count(parent, name), i = 0;
    *n_out = 0;
    if (!n)
        return true;
    sn_odr_poly *v = sn_odrp_arena_alloc(p->m->arena, n * sizeof *v);
    if (!v)
        return sn_odrp_oom(p);
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
