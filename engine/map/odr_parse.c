/* odr_parse.c — ASAM OpenDRIVE 1.4-1.6 into sn_odr (odr.h), with libxml2.
**
** The tree is walked twice per list (count, then fill) so every array is allocated once, at
** its size, from one arena freed as a whole. Each element is checked where it is read: a
** number that is not finite or out of its range, a lane list with holes, sections out of
** order are errors naming FILE:LINE and the element; what a real map gets wrong but a reader
** can live with (a link to a road that does not exist, an unknown lane type) is a warning,
** given once per kind, and the offending part is dropped. */
#include "odr_read.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"
#include "../core/xmlread.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sensim/search.h>
#include <stddef.h>

/* ---- junctions and controllers ---- */

static bool parse_junction(parser *p, xmlNodePtr n, uint32_t index, sn_odr_junction *j)
{
    if (!sn_odrp_int_id(p, n, "id", true, (int32_t)index, &j->id) || !(j->name = sn_odrp_dup(p, sn_odrp_attr(n, "name"))))
        return false;
    uint32_t nc = sn_odrp_count(n, "connection"), i = 0;
    if (nc) {
        j->connections = sn_odrp_arena_alloc(p->m->arena, nc * sizeof *j->connections);
        if (!j->connections)
            return sn_odrp_oom(p);
        EACH(c, n, "connection") {
            sn_odr_connection *cn = &j->connections[i];
            if (!sn_odrp_int_id(p, c, "id", false, (int32_t)i, &cn->id) || !sn_odrp_int_id(p, c, "incomingRoad", true, -1, &cn->incoming) ||
                !sn_odrp_int_id(p, c, "connectingRoad", true, -1, &cn->connecting))
                return false;
            const char *cp = sn_odrp_attr(c, "contactPoint");
            cn->contact = cp && !strcmp(cp, "end") ? SN_ODR_CONTACT_END : SN_ODR_CONTACT_START;
            cn->incoming_index = cn->connecting_index = -1;
            uint32_t k = 0;
            cn->links = sn_odrp_children(p, c, "laneLink", sizeof *cn->links, &cn->n_links);
            EACH(l, c, "laneLink") {
                if (p->failed || !sn_odrp_lane_id(p, l, "from", &cn->links[k].from) || !sn_odrp_lane_id(p, l, "to", &cn->links[k].to))
                    return false;
                k++;
            }
            i++;
        }
        j->n_connections = nc;
    }
    j->controllers = sn_odrp_children(p, n, "controller", sizeof *j->controllers, &j->n_controllers);
    i = 0;
    EACH(c, n, "controller") {
        if (p->failed || !sn_odrp_int_id(p, c, "id", true, -1, &j->controllers[i]))
            return false;
        i++;
    }
    uint32_t np = 0;
    j->priorities = sn_odrp_children(p, n, "priority", sizeof *j->priorities, &np);
    i = 0;
    EACH(c, n, "priority") {
        int32_t hi, lo;
        if (p->failed || !sn_odrp_int_id(p, c, "high", false, -1, &hi) || !sn_odrp_int_id(p, c, "low", false, -1, &lo))
            return false;
        if (hi >= 0 && lo >= 0 && hi != lo)
            j->priorities[i][0] = hi, j->priorities[i][1] = lo, i++;
    }
    j->n_priorities = i;
    return !p->failed;
}

static bool parse_controller(parser *p, xmlNodePtr n, uint32_t index, sn_odr_controller *k)
{
    if (!sn_odrp_int_id(p, n, "id", true, (int32_t)index, &k->id) || !(k->name = sn_odrp_dup(p, sn_odrp_attr(n, "name"))))
        return false;
    uint32_t i = 0;
    k->signals = sn_odrp_children(p, n, "control", sizeof *k->signals, &k->n_signals);
    EACH(c, n, "control") {
        if (p->failed || !sn_odrp_int_id(p, c, "signalId", true, -1, &k->signals[i]))
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
        return sn_odrp_dup(p, "") && (m->name = sn_odrp_dup(p, "")) && (m->geo_reference = sn_odrp_dup(p, ""));
    if (!sn_odrp_num(p, h, "revMajor", false, 1, 100, &v))
        return false;
    m->rev_major = (int)v;
    if (!sn_odrp_num(p, h, "revMinor", false, 4, 100, &v))
        return false;
    m->rev_minor = (int)v;
    if (!sn_odrp_num(p, h, "north", false, 0, 1e9, &m->north) || !sn_odrp_num(p, h, "south", false, 0, 1e9, &m->south) ||
        !sn_odrp_num(p, h, "east", false, 0, 1e9, &m->east) || !sn_odrp_num(p, h, "west", false, 0, 1e9, &m->west))
        return false;
    if (!(m->name = sn_odrp_dup(p, sn_odrp_attr(h, "name"))))
        return false;
    xmlNodePtr g = sn_odrp_child(h, "geoReference");
    xmlChar *text = g ? xmlNodeGetContent(g) : NULL;
    m->geo_reference = sn_odrp_dup(p, text ? (const char *)text : "");
    if (text)
        xmlFree(text);
    if (!m->geo_reference)
        return false;
    m->has_geo = proj_param(m->geo_reference, "+lat_0=", &m->lat0) && proj_param(m->geo_reference, "+lon_0=", &m->lon0);
    if (m->has_geo && (fabs(m->lat0) > 90 || fabs(m->lon0) > 360))
        m->has_geo = false;
    xmlNodePtr off = sn_odrp_child(h, "offset");
    if (off && (!sn_odrp_num(p, off, "x", false, 0, SN_ODR_MAX_COORD, &m->offset_x) ||
                !sn_odrp_num(p, off, "y", false, 0, SN_ODR_MAX_COORD, &m->offset_y) ||
                !sn_odrp_num(p, off, "z", false, 0, SN_ODR_MAX_COORD, &m->offset_z) ||
                !sn_odrp_num(p, off, "hdg", false, 0, 1e4, &m->offset_hdg)))
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
    id_index *rt = sn_odrp_arena_alloc(m->arena, (m->n_roads + 1) * sizeof *rt);
    id_index *jt = sn_odrp_arena_alloc(m->arena, (m->n_junctions + 1) * sizeof *jt);
    if (!rt || !jt)
        return sn_odrp_oom(p);
    for (uint32_t i = 0; i < m->n_roads; i++)
        rt[i] = (id_index){m->roads[i].id, (int32_t)i};
    for (uint32_t i = 0; i < m->n_junctions; i++)
        jt[i] = (id_index){m->junctions[i].id, (int32_t)i};
    qsort(rt, m->n_roads, sizeof *rt, cmp_id_index);
    qsort(jt, m->n_junctions, sizeof *jt, cmp_id_index);
    for (uint32_t i = 1; i < m->n_roads; i++)
        if (rt[i].id == rt[i - 1].id)
            return sn_odrp_fail(p, root, "two roads have id %d (lines %d and %d)", (int)rt[i].id, m->roads[rt[i - 1].index].line,
                        m->roads[rt[i].index].line);
    for (uint32_t i = 1; i < m->n_junctions; i++)
        if (jt[i].id == jt[i - 1].id)
            return sn_odrp_fail(p, root, "two junctions have id %d", (int)jt[i].id);
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
                sn_odrp_warn(p, W_LINK, root, "road %d (line %d) links to %s %d, which does not exist: link dropped", (int)r->id,
                     r->line, l->elem == SN_ODR_ELEM_ROAD ? "road" : "junction", (int)l->id);
                l->elem = SN_ODR_ELEM_NONE;
            }
        }
        if (r->junction >= 0) {
            r->junction_index = find(jt, m->n_junctions, r->junction);
            if (r->junction_index < 0) {
                sn_odrp_warn(p, W_LINK, root, "road %d (line %d) is in junction %d, which does not exist", (int)r->id, r->line,
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
                sn_odrp_warn(p, W_LINK, root, "junction %d: connection %d names road %d, which does not exist: dropped",
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
    if (!sn_odrp_is(root, "OpenDRIVE"))
        return sn_odrp_fail(p, root, "the root element must be <OpenDRIVE>");
    if (!parse_header(p, sn_odrp_child(root, "header")))
        return false;
    m->n_roads = sn_odrp_count(root, "road");
    if (m->n_roads > SN_ODR_MAX_ROADS)
        return sn_odrp_fail(p, root, "%u roads (at most %u)", m->n_roads, SN_ODR_MAX_ROADS);
    m->n_junctions = sn_odrp_count(root, "junction");
    m->n_controllers = sn_odrp_count(root, "controller");
    m->roads = sn_odrp_arena_alloc(m->arena, (m->n_roads + 1) * sizeof *m->roads);
    m->junctions = sn_odrp_arena_alloc(m->arena, (m->n_junctions + 1) * sizeof *m->junctions);
    m->controllers = sn_odrp_arena_alloc(m->arena, (m->n_controllers + 1) * sizeof *m->controllers);
    if (!m->roads || !m->junctions || !m->controllers)
        return sn_odrp_oom(p);
    uint32_t ir = 0, ij = 0, ik = 0;
    for (xmlNodePtr c = root->children; c; c = c->next) {
        if (sn_odrp_is(c, "road")) {
            if (!sn_odrp_parse_road(p, c, ir, &m->roads[ir]))
                return false;
            ir++;
        } else if (sn_odrp_is(c, "junction")) {
            if (!parse_junction(p, c, ij, &m->junctions[ij]))
                return false;
            ij++;
        } else if (sn_odrp_is(c, "controller")) {
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
