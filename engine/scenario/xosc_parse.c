/* xosc_parse.c — an OpenSCENARIO XML file into sn_xosc (xosc.h), with libxml2.
**
** Every element is checked where it is read: an unknown element, a missing or malformed
** attribute, a dangling entity or storyboard reference, a negative duration or a speed that is
** not a finite number is an error naming FILE:LINE and the element. What the standard defines
** but sensim does not play is an error naming it too, except elements that change nothing sensim
** simulates (VisibilityAction, CustomCommandAction, ObjectController, ...), which are warnings,
** given once per element kind. docs/openscenario.md lists both. */
#include "xosc.h"
#include "xosc_xml.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"
#include "../core/xmlread.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE (64u << 20)  /* bytes of a scenario file */
#define MAX_ITEMS 100000u     /* elements of any one kind */
#define VAL 1024              /* longest attribute value after substitution */

/* A catalog file read for CatalogReferences (kept until the scenario is parsed). */
typedef struct cat_doc {
    xmlDocPtr doc;
    char *path;
} cat_doc;

typedef struct P {
    sn_xosc *x;
    const char *file;
    sn_error *err;
    bool failed;
    char warned[128][64]; /* element names (and element:attribute pairs) warned about, each once */
    int n_warned;
    char **cat_dirs;     /* CatalogLocations' directories, resolved */
    uint32_t n_cat_dirs;
    cat_doc *cats;       /* their .xosc files, read at the first CatalogReference */
    uint32_t n_cats;
    bool cats_read;
    xmlNodePtr declared; /* a catalog entry's ParameterDeclarations, declared already */
} P;

typedef xmlNodePtr N;


static bool fail(P *p, N n, const char *fmt, ...) SN_PRINTF(3, 4);
static bool fail(P *p, N n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sn_xml_failv(p->err, &p->failed, p->file, n, fmt, ap);
    va_end(ap);
    return false;
}

static void warn(P *p, N n, const char *fmt, ...) SN_PRINTF(3, 4);
static void warn(P *p, N n, const char *fmt, ...)
{
    for (int i = 0; i < p->n_warned; i++)
        if (strcmp(p->warned[i], sn_xml_name(n)) == 0)
            return;
    if (p->n_warned < 128)
        snprintf(p->warned[p->n_warned++], sizeof p->warned[0], "%s", sn_xml_name(n));
    char what[600], line[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s:%d: %s: %s", p->file, sn_xml_line(n), sn_xml_name(n), what);
    char **w = realloc(p->x->warnings, (p->x->n_warnings + 1) * sizeof *w);
    if (!w)
        return;
    p->x->warnings = w;
    if ((w[p->x->n_warnings] = sn_strdup(line)))
        p->x->n_warnings++;
}

/* The only element child of n (a choice), or an error. */
static N choice(P *p, N n)
{
    N c = sn_xml_next_el(n->children);
    if (!c)
        return fail(p, n, "expected a child element"), NULL;
    if (sn_xml_next_el(c->next))
        return fail(p, sn_xml_next_el(c->next), "only one element is allowed here, after <%s>", sn_xml_name(c)), NULL;
    return c;
}

/* Attribute `a` of n after parameter substitution into out[VAL]; false when absent (required:
** an error) or when its parameters cannot be resolved (an error). */
/* Marks attribute a of n as read (libxml2's _private, the application's): what is never read is
** named in a warning at the end (unread_attributes). */
static void seen(N n, const char *a)
{
    xmlAttrPtr at = xmlHasProp(n, (const xmlChar *)a);
    n->_private = (void *)1;
    if (at)
        at->_private = (void *)1;
}

static bool attr(P *p, N n, const char *a, bool required, char *out)
{
    seen(n, a);
    xmlChar *v = xmlGetProp(n, (const xmlChar *)a);
    if (!v) {
        if (required)
            fail(p, n, "missing attribute '%s'", a);
        return false;
    }
    char why[300];
    bool ok = sn_xparam_subst(&p->x->params, (const char *)v, out, VAL, why, sizeof why);
    xmlFree(v);
    if (!ok)
        return fail(p, n, "attribute '%s': %s", a, why);
    return true;
}

static bool has_attr(N n, const char *a)
{
    seen(n, a);
    return xmlHasProp(n, (const xmlChar *)a) != NULL;
}

/* A number attribute: finite, within [lo, hi]. Absent and not required: *out = def. */
static bool num(P *p, N n, const char *a, bool required, double def, double lo, double hi, double *out)
{
    char v[VAL];
    if (!has_attr(n, a)) {
        if (required)
            return fail(p, n, "missing attribute '%s'", a);
        *out = def;
        return true;
    }
    if (!attr(p, n, a, true, v))
        return false;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    while (*end == ' ')
        end++;
    if (end == v || *end)
        return fail(p, n, "attribute '%s' is '%s', not a number", a, v);
    if (!isfinite(d))
        return fail(p, n, "attribute '%s' is %s, not a finite number", a, v);
    if (d < lo || d > hi)
        return fail(p, n, "attribute '%s' is %s, outside [%g, %g]", a, v, lo, hi);
    *out = d;
    return true;
}

static bool integer(P *p, N n, const char *a, bool required, int def, int *out)
{
    double d;
    if (!num(p, n, a, required, def, -2147483647.0, 2147483647.0, &d))
        return false;
    if (d != floor(d))
        return fail(p, n, "attribute '%s' is %g, not a whole number", a, d);
    *out = (int)d;
    return true;
}

static bool boolean(P *p, N n, const char *a, bool def, bool *out)
{
    char v[VAL];
    if (!has_attr(n, a)) {
        *out = def;
        return true;
    }
    if (!attr(p, n, a, true, v))
        return false;
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = true;
    else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = false;
    else
        return fail(p, n, "attribute '%s' is '%s', expected true or false", a, v);
    return true;
}

/* An enumeration attribute: the index of its value in names (NULL-terminated). */
static bool enumer(P *p, N n, const char *a, bool required, int def, const char *const *names, int *out)
{
    char v[VAL];
    if (!has_attr(n, a)) {
        if (required)
            return fail(p, n, "missing attribute '%s'", a);
        *out = def;
        return true;
    }
    if (!attr(p, n, a, true, v))
        return false;
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0) {
            *out = i;
            return true;
        }
    char list[300] = "";
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return fail(p, n, "attribute '%s' is '%s', expected one of %s", a, v, list);
}

static char *dup_attr(P *p, N n, const char *a, bool required)
{
    char v[VAL];
    if (!attr(p, n, a, required, v))
        return p->failed ? NULL : sn_strdup("");
    char *s = sn_strdup(v);
    if (!s)
        fail(p, n, "out of memory");
    return s;
}

static bool unsupported(P *p, N n)
{
    return fail(p, n, "<%s> is not supported by sensim (docs/openscenario.md lists what is)", sn_xml_name(n));
}

static bool unknown(P *p, N n, N parent)
{
    return fail(p, n, "unknown element <%s> in <%s>", sn_xml_name(n), sn_xml_name(parent));
}

/* ---- tables ---- */

#define GROW(arr, n, what)                                                                     \
    do {                                                                                       \
        if ((n) >= MAX_ITEMS)                                                                  \
            return fail(p, NULL, "more than %u %s", MAX_ITEMS, what), -1;                      \
        void *nw_ = realloc((arr), ((size_t)(n) + 1) * sizeof *(arr));                          \
        if (!nw_)                                                                              \
            return fail(p, NULL, "out of memory"), -1;                                         \
        (arr) = nw_;                                                                           \
        memset(&(arr)[(n)], 0, sizeof *(arr));                                                 \
    } while (0)

static int entity_index(P *p, N n, const char *a)
{
    char v[VAL];
    if (!attr(p, n, a, true, v))
        return -1;
    for (uint32_t i = 0; i < p->x->n_ents; i++)
        if (strcmp(p->x->ents[i].name, v) == 0)
            return (int)i;
    fail(p, n, "%s '%s' names no entity of this scenario", a, v);
    return -1;
}

/* ---- parameters ---- */

static bool parse_params(P *p, N n)
{
    if (n == p->declared) /* a catalog entry's: declared with its reference's assignments */
        return true;
    SN_XML_EACH(c, n) {
        if (!sn_xml_is(c, "ParameterDeclaration"))
            return unknown(p, c, n);
        seen(c, "name"), seen(c, "value"), seen(c, "parameterType");
        xmlChar *name = xmlGetProp(c, (const xmlChar *)"name");
        xmlChar *value = xmlGetProp(c, (const xmlChar *)"value");
        if (!name || !value || !name[0]) {
            xmlFree(name);
            xmlFree(value);
            return fail(p, c, "needs attributes 'name' and 'value'");
        }
        if (has_attr(c, "parameterType")) {
            static const char *const types[] = {"integer", "double", "string", "unsignedInt", "unsignedShort",
                                                "boolean", "dateTime", "int", NULL};
            int t;
            if (!enumer(p, c, "parameterType", true, 0, types, &t)) {
                xmlFree(name);
                xmlFree(value);
                return false;
            }
        }
        if (sn_xml_child(c, "ConstraintGroup"))
            warn(p, sn_xml_child(c, "ConstraintGroup"), "value constraints are not checked");
        bool ok = sn_xparam_set(&p->x->params, (const char *)name, (const char *)value, sn_xml_line(c), false);
        xmlFree(name);
        xmlFree(value);
        if (!ok)
            return fail(p, c, "out of memory");
    }
    return true;
}

/* ---- catalogs ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every .xosc file of every catalog directory, in sorted order per directory. */
static bool read_catalogs(P *p, N at)
{
    p->cats_read = true;
    for (uint32_t d = 0; d < p->n_cat_dirs; d++) {
        DIR *dir = opendir(p->cat_dirs[d]);
        if (!dir && errno == ENOENT) { /* named but absent (esmini's examples name catalogs they do not ship) */
            warn(p, at, "catalog directory '%s' does not exist: its entries are not found", p->cat_dirs[d]);
            continue;
        }
        if (!dir)
            return fail(p, at, "catalog directory '%s': %s", p->cat_dirs[d], strerror(errno));
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *de; (de = readdir(dir));) {
            size_t l = strlen(de->d_name);
            if (l < 6 || strcmp(de->d_name + l - 5, ".xosc") || n >= 10000)
                continue;
            char **nw = realloc(names, (n + 1) * sizeof *nw);
            if (!nw || !(nw[n] = sn_strdup(de->d_name))) {
                free(nw ? nw : names);
                closedir(dir);
                return fail(p, at, "out of memory");
            }
            names = nw, n++;
        }
        closedir(dir);
        qsort(names, n, sizeof *names, cmp_str);
        bool ok = true;
        for (size_t i = 0; i < n; i++) {
            char path[2 * VAL + 16];
            snprintf(path, sizeof path, "%s/%s", p->cat_dirs[d], names[i]);
            free(names[i]);
            if (!ok)
                continue;
            xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                                        XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA);
            if (!doc) {
                ok = fail(p, at, "catalog file '%s' is not well-formed XML", path);
                continue;
            }
            cat_doc *nw = realloc(p->cats, (p->n_cats + 1) * sizeof *nw);
            if (!nw || !(path[0] && (nw[p->n_cats].path = sn_strdup(path)))) {
                xmlFreeDoc(doc);
                if (nw)
                    p->cats = nw;
                ok = fail(p, at, "out of memory");
                continue;
            }
            p->cats = nw;
            p->cats[p->n_cats++].doc = doc;
        }
        free(names);
        if (!ok)
            return false;
    }
    return true;
}

static void params_truncate(sn_xparams *ps, uint32_t n)
{
    while (ps->n > n) {
        sn_xparam *q = &ps->v[--ps->n];
        free(q->name);
        free(q->value);
        free(q->resolved);
    }
}

/* The entry a CatalogReference names, its parameters declared (defaults, then the reference's
** ParameterAssignments) above *mark; *file is the catalog file's path. Errors name the reference. */
static char *param_ref_name(P *p, N a);

static N catalog_entry(P *p, N ref, uint32_t *mark, const char **file)
{
    char cat[VAL], entry[VAL];
    if (!attr(p, ref, "catalogName", true, cat) || !attr(p, ref, "entryName", true, entry))
        return NULL;
    if (!p->cats_read && !read_catalogs(p, ref))
        return NULL;
    N found = NULL;
    /* The standard's catalogName is the Catalog element's name; esmini looks for the file
    ** catalogName.xosc instead (ScenarioReader::LoadCatalog) and its examples rely on it
    ** (add_delete_entity: 'MiscObjectCatalog' is MiscObjectCatalog.xosc, whose Catalog is named
    ** 'MiscObject'), so the file's stem is the second way to match. */
    for (uint32_t i = 0; i < 2 * p->n_cats && !found; i++) {
        uint32_t k = i % p->n_cats;
        N root = xmlDocGetRootElement(p->cats[k].doc);
        N c = root ? sn_xml_child(root, "Catalog") : NULL;
        bool hit;
        if (i < p->n_cats) {
            xmlChar *name = c ? xmlGetProp(c, (const xmlChar *)"name") : NULL;
            hit = name && !strcmp((const char *)name, cat);
            xmlFree(name);
        } else {
            const char *base = strrchr(p->cats[k].path, '/');
            base = base ? base + 1 : p->cats[k].path;
            size_t bl = strlen(base), cl = strlen(cat);
            hit = c && bl == cl + 5 && !strncmp(base, cat, cl);
        }
        if (!hit)
            continue;
        SN_XML_EACH(e, c) {
            xmlChar *en = xmlGetProp(e, (const xmlChar *)"name");
            bool h = en && !strcmp((const char *)en, entry);
            xmlFree(en);
            if (h) {
                found = e;
                *file = p->cats[k].path;
                break;
            }
        }
    }
    if (!found)
        return fail(p, ref, "no entry '%s' in a catalog named '%s' (CatalogLocations lists %u director%s)", entry, cat,
                    p->n_cat_dirs, p->n_cat_dirs == 1 ? "y" : "ies"), NULL;
    /* the assignments' values in the referencing scope, before the entry's defaults shadow it */
    N pa = sn_xml_child(ref, "ParameterAssignments");
    char (*vals)[VAL] = NULL;
    char **names = NULL;
    uint32_t nv = 0;
    if (pa) {
        SN_XML_EACH(a, pa) nv++;
        vals = calloc(nv + 1, sizeof *vals);
        names = calloc(nv + 1, sizeof *names);
        if (!vals || !names) {
            free(vals);
            free(names);
            return fail(p, ref, "out of memory"), NULL;
        }
        uint32_t k = 0;
        SN_XML_EACH(a, pa) {
            if (!sn_xml_is(a, "ParameterAssignment") || !attr(p, a, "value", true, vals[k]) ||
                !(names[k] = param_ref_name(p, a))) {
                if (!p->failed)
                    unknown(p, a, pa);
                for (uint32_t j = 0; j < nv; j++)
                    free(names[j]);
                free(vals);
                free(names);
                return NULL;
            }
            k++;
        }
    }
    *mark = p->x->params.n;
    const char *outer = p->file;
    p->file = *file;
    N decl = sn_xml_child(found, "ParameterDeclarations");
    bool ok = !decl || parse_params(p, decl);
    p->file = outer;
    for (uint32_t k = 0; ok && k < nv; k++) {
        bool declared = false;
        for (uint32_t i = *mark; i < p->x->params.n; i++)
            declared |= !strcmp(p->x->params.v[i].name, names[k]);
        if (!declared)
            ok = fail(p, ref, "ParameterAssignment '%s': the entry '%s' declares no such parameter", names[k], entry);
        else if (!sn_xparam_set(&p->x->params, names[k], vals[k], sn_xml_line(ref), true))
            ok = fail(p, ref, "out of memory");
    }
    for (uint32_t j = 0; j < nv; j++)
        free(names[j]);
    free(vals);
    free(names);
    if (!ok)
        return NULL;
    p->declared = decl;
    return found;
}

/* ---- positions ---- */

static bool parse_orientation(P *p, N n, sn_xpos *pos)
{
    N o = sn_xml_child(n, "Orientation");
    if (!o)
        return true;
    static const char *const types[] = {"relative", "absolute", NULL};
    int t;
    if (!enumer(p, o, "type", false, 0, types, &t) || !num(p, o, "h", false, 0, -1e6, 1e6, &pos->h))
        return false;
    double pr, r;
    if (!num(p, o, "p", false, 0, -1e6, 1e6, &pr) || !num(p, o, "r", false, 0, -1e6, 1e6, &r))
        return false;
    if (pr != 0 || r != 0)
        warn(p, o, "pitch and roll are taken from the road, not from the Orientation");
    pos->has_h = true;
    pos->h_relative = t == 0;
    return true;
}

static bool parse_route_position(P *p, N c, sn_xpos *pos);

static bool parse_position(P *p, N n, sn_xpos *pos)
{
    N c = choice(p, n);
    if (!c)
        return false;
    memset(pos, 0, sizeof *pos);
    pos->line = sn_xml_line(c);
    pos->entity = -1;
    const double M = 1e7;
    if (sn_xml_is(c, "WorldPosition")) {
        pos->kind = SN_XP_WORLD;
        pos->has_h = has_attr(c, "h");
        return num(p, c, "x", true, 0, -M, M, &pos->x) && num(p, c, "y", true, 0, -M, M, &pos->y) &&
               num(p, c, "z", false, 0, -M, M, &pos->z) && num(p, c, "h", false, 0, -1e6, 1e6, &pos->h);
    }
    if (sn_xml_is(c, "RelativeWorldPosition") || sn_xml_is(c, "RelativeObjectPosition")) {
        pos->kind = sn_xml_is(c, "RelativeWorldPosition") ? SN_XP_REL_WORLD : SN_XP_REL_OBJECT;
        return (pos->entity = entity_index(p, c, "entityRef")) >= 0 && num(p, c, "dx", true, 0, -M, M, &pos->x) &&
               num(p, c, "dy", true, 0, -M, M, &pos->y) && num(p, c, "dz", false, 0, -M, M, &pos->z) &&
               parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RoadPosition")) {
        pos->kind = SN_XP_ROAD;
        return integer(p, c, "roadId", true, 0, &pos->road) && num(p, c, "s", true, 0, -M, M, &pos->s) &&
               num(p, c, "t", true, 0, -M, M, &pos->t) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RelativeRoadPosition")) {
        pos->kind = SN_XP_REL_ROAD;
        return (pos->entity = entity_index(p, c, "entityRef")) >= 0 && num(p, c, "ds", true, 0, -M, M, &pos->s) &&
               num(p, c, "dt", true, 0, -M, M, &pos->t) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "LanePosition")) {
        pos->kind = SN_XP_LANE;
        if (!integer(p, c, "roadId", true, 0, &pos->road) || !integer(p, c, "laneId", true, 0, &pos->lane) ||
            !num(p, c, "s", true, 0, -M, M, &pos->s) || !num(p, c, "offset", false, 0, -M, M, &pos->offset))
            return false;
        if (pos->lane == 0)
            return fail(p, c, "laneId 0 is the centre lane, which has no width: give a lane left (>0) or right (<0) of it");
        return parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RelativeLanePosition")) {
        pos->kind = SN_XP_REL_LANE;
        if ((pos->entity = entity_index(p, c, "entityRef")) < 0 || !integer(p, c, "dLane", true, 0, &pos->lane) ||
            !num(p, c, "offset", false, 0, -M, M, &pos->offset))
            return false;
        /* ds along the road's s, or dsLane along the reference entity's lane, whose direction of
        ** travel also orders dLane and offset (esmini's DirectionMode ALONG_LANE); neither: 0 */
        if (has_attr(c, "ds") && has_attr(c, "dsLane"))
            return fail(p, c, "give ds or dsLane, not both");
        pos->ds_lane = has_attr(c, "dsLane");
        return num(p, c, pos->ds_lane ? "dsLane" : "ds", false, 0, -M, M, &pos->s) && parse_orientation(p, c, pos);
    }
    if (sn_xml_is(c, "RoutePosition"))
        return parse_route_position(p, c, pos);
    if (sn_xml_is(c, "TrajectoryPosition") || sn_xml_is(c, "GeoPosition"))
        return unsupported(p, c);
    return unknown(p, c, n);
}

/* ---- actions ---- */

static const char *const SHAPES[] = {"step", "linear", "cubic", "sinusoidal", NULL};
static const char *const DIMS[] = {"time", "distance", "rate", NULL};

static bool parse_dynamics(P *p, N n, sn_xdyn *d)
{
    int s, dim;
    if (!enumer(p, n, "dynamicsShape", true, 0, SHAPES, &s) || !enumer(p, n, "dynamicsDimension", true, 0, DIMS, &dim) ||
        !num(p, n, "value", true, 0, -1e9, 1e9, &d->value))
        return false;
    d->shape = (sn_xshape)s;
    d->dim = (sn_xdim)dim;
    if (d->value < 0 && d->dim == SN_XD_RATE) { /* esmini writes braking as a negative rate */
        warn(p, n, "a negative rate (%g) is taken as its magnitude: the target says which way", d->value);
        d->value = -d->value;
    }
    if (d->value < 0)
        return fail(p, n, "value %g is negative: a duration or distance is >= 0", d->value);
    if (d->dim == SN_XD_RATE && d->value == 0 && d->shape != SN_XS_STEP)
        return fail(p, n, "a rate of 0 never reaches the target");
    if (d->shape != SN_XS_STEP && d->value == 0)
        d->shape = SN_XS_STEP; /* a transition of no length is a step */
    return true;
}

static int new_action(P *p, N n, sn_xact_kind k)
{
    GROW(p->x->actions, p->x->n_actions, "actions");
    sn_xaction *a = &p->x->actions[p->x->n_actions];
    a->kind = k;
    a->line = sn_xml_line(n);
    a->ref = -1;
    a->t_scale = 1;
    return (int)p->x->n_actions++;
}

static int parse_speed(P *p, N n)
{
    N dyn = sn_xml_child(n, "SpeedActionDynamics"), tgt = sn_xml_child(n, "SpeedActionTarget");
    if (!dyn || !tgt)
        return fail(p, n, "needs SpeedActionDynamics and SpeedActionTarget"), -1;
    int i = new_action(p, n, SN_XA_SPEED);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!parse_dynamics(p, dyn, &a->dyn))
        return -1;
    N t = choice(p, tgt);
    if (!t)
        return -1;
    if (sn_xml_is(t, "AbsoluteTargetSpeed")) {
        if (!num(p, t, "value", true, 0, -1000, 1000, &a->value))
            return -1;
    } else if (sn_xml_is(t, "RelativeTargetSpeed")) {
        static const char *const vt[] = {"delta", "factor", NULL};
        int k;
        a->relative = true;
        if ((a->ref = entity_index(p, t, "entityRef")) < 0 || !num(p, t, "value", true, 0, -1000, 1000, &a->value) ||
            !enumer(p, t, "speedTargetValueType", true, 0, vt, &k) || !boolean(p, t, "continuous", false, &a->continuous))
            return -1;
        a->factor = k == 1;
    } else {
        return unknown(p, t, tgt), -1;
    }
    return i;
}

static int parse_long_dist(P *p, N n)
{
    int i = new_action(p, n, SN_XA_LONG_DIST);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    bool dist = has_attr(n, "distance"), gap = has_attr(n, "timeGap");
    if (dist == gap)
        return fail(p, n, "give one of distance and timeGap"), -1;
    a->time_gap = gap;
    static const char *const disp[] = {"trailingReferencedEntity", "leadingReferencedEntity", "any", NULL};
    int d = 0;
    if ((a->ref = entity_index(p, n, "entityRef")) < 0 || !num(p, n, gap ? "timeGap" : "distance", true, 0, 0, 1e6, &a->value) ||
        !boolean(p, n, "freespace", true, &a->freespace) || !boolean(p, n, "continuous", true, &a->continuous) ||
        !enumer(p, n, "displacement", false, 0, disp, &d))
        return -1;
    a->leading = d == 1;
    if (has_attr(n, "coordinateSystem")) {
        static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
        int c;
        if (!enumer(p, n, "coordinateSystem", true, 0, cs, &c))
            return -1;
        if (c == 3)
            return fail(p, n, "coordinateSystem 'trajectory' is not supported"), -1;
    }
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc) {
        a->has_limits = true;
        if (!num(p, dc, "maxAcceleration", true, 0, 0, 1e6, &a->lim_acc) ||
            !num(p, dc, "maxDeceleration", true, 0, 0, 1e6, &a->lim_dec) ||
            !num(p, dc, "maxSpeed", false, 1000, 0, 1e6, &a->lim_speed))
            return -1;
        if (a->lim_acc <= 0 || a->lim_dec <= 0)
            return fail(p, dc, "maxAcceleration and maxDeceleration must be > 0"), -1;
    }
    return i;
}

/* SpeedProfileAction: the entity's speed goes linearly from entry to entry, each reached `time`
** after the previous one (the first after the start), lengthened to keep within the limits
** (DynamicConstraints, else the entity's Performance); without a time, as fast as they allow. */
static int parse_speed_profile(P *p, N n)
{
    int i = new_action(p, n, SN_XA_SPEED_PROFILE);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    a->dyn.shape = SN_XS_LINEAR;
    a->dyn.dim = SN_XD_TIME;
    static const char *const modes[] = {"position", "follow", NULL};
    int mode;
    if (!enumer(p, n, "followingMode", true, 0, modes, &mode))
        return -1;
    if (has_attr(n, "entityRef") && (a->ref = entity_index(p, n, "entityRef")) < 0)
        return -1;
    a->relative = a->ref >= 0;
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc) {
        a->has_limits = true;
        if (!num(p, dc, "maxAcceleration", false, 0, 0, 1e6, &a->lim_acc) ||
            !num(p, dc, "maxDeceleration", false, 0, 0, 1e6, &a->lim_dec) ||
            !num(p, dc, "maxSpeed", false, 0, 0, 1e6, &a->lim_speed))
            return -1;
        if (!num(p, dc, "maxAccelerationRate", false, 0, 0, 1e6, &a->jerk_acc) ||
            !num(p, dc, "maxDecelerationRate", false, 0, 0, 1e6, &a->jerk_dec))
            return -1;
        /* the rates shape only followingMode follow (position goes straight from entry to entry) */
        a->prof_follow = mode == 1 && (a->jerk_acc > 0 || a->jerk_dec > 0);
    }
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "DynamicConstraints"))
            continue;
        if (!sn_xml_is(c, "SpeedProfileEntry"))
            return unknown(p, c, n), -1;
        if (a->n_prof >= 100000)
            return fail(p, c, "more than 100000 entries"), -1;
        double *nv = realloc(a->prof_v, (a->n_prof + 1) * sizeof *nv);
        if (nv)
            a->prof_v = nv;
        double *nt = nv ? realloc(a->prof_t, (a->n_prof + 1) * sizeof *nt) : NULL;
        if (!nt)
            return fail(p, c, "out of memory"), -1;
        a->prof_t = nt;
        double *v = &a->prof_v[a->n_prof], *t = &a->prof_t[a->n_prof];
        if (!num(p, c, "speed", true, 0, a->relative ? -1e4 : 0, 1e4, v) || !num(p, c, "time", false, -1, 0, 1e6, t))
            return -1;
        a->n_prof++;
    }
    if (!a->n_prof)
        return fail(p, n, "needs at least one SpeedProfileEntry"), -1;
    return i;
}

/* LateralDistanceAction: keeps a lateral distance to another entity (xosc_move.c). */
static int parse_lat_dist(P *p, N n)
{
    int i = new_action(p, n, SN_XA_LAT_DIST);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    static const char *const disp[] = {"any", "leftToReferencedEntity", "rightToReferencedEntity", NULL};
    static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
    int d = 0, c = 0;
    a->has_lane_offset = has_attr(n, "distance");
    if ((a->ref = entity_index(p, n, "entityRef")) < 0 || !num(p, n, "distance", false, 0, 0, 1e4, &a->value) ||
        !boolean(p, n, "freespace", true, &a->freespace) || !boolean(p, n, "continuous", true, &a->continuous) ||
        !enumer(p, n, "displacement", false, 0, disp, &d) || !enumer(p, n, "coordinateSystem", false, 0, cs, &c))
        return -1;
    if (c == 3)
        return fail(p, n, "coordinateSystem 'trajectory' is not supported"), -1;
    a->side = d == 1 ? 1 : d == 2 ? -1 : 0;
    N dc = sn_xml_child(n, "DynamicConstraints");
    if (dc) {
        a->has_limits = true;
        if (!num(p, dc, "maxAcceleration", false, 0, 0, 1e6, &a->lim_acc) ||
            !num(p, dc, "maxDeceleration", false, 0, 0, 1e6, &a->lim_dec) ||
            !num(p, dc, "maxSpeed", false, 0, 0, 1e6, &a->lim_speed))
            return -1;
    }
    return i;
}

static int parse_lane_change(P *p, N n)
{
    N dyn = sn_xml_child(n, "LaneChangeActionDynamics"), tgt = sn_xml_child(n, "LaneChangeTarget");
    if (!dyn || !tgt)
        return fail(p, n, "needs LaneChangeActionDynamics and LaneChangeTarget"), -1;
    int i = new_action(p, n, SN_XA_LANE_CHANGE);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    a->has_lane_offset = has_attr(n, "targetLaneOffset");
    if (!num(p, n, "targetLaneOffset", false, 0, -100, 100, &a->lane_offset) || !parse_dynamics(p, dyn, &a->dyn))
        return -1;
    N t = choice(p, tgt);
    if (!t)
        return -1;
    int v;
    if (sn_xml_is(t, "RelativeTargetLane")) {
        a->relative = true;
        if ((a->ref = entity_index(p, t, "entityRef")) < 0 || !integer(p, t, "value", true, 0, &v))
            return -1;
    } else if (sn_xml_is(t, "AbsoluteTargetLane")) {
        if (!integer(p, t, "value", true, 0, &v))
            return -1;
        if (v == 0)
            return fail(p, t, "value 0 is the centre lane"), -1;
    } else {
        return unknown(p, t, tgt), -1;
    }
    a->value = v;
    return i;
}

static int parse_lane_offset(P *p, N n)
{
    N dyn = sn_xml_child(n, "LaneOffsetActionDynamics"), tgt = sn_xml_child(n, "LaneOffsetTarget");
    if (!dyn || !tgt)
        return fail(p, n, "needs LaneOffsetActionDynamics and LaneOffsetTarget"), -1;
    int i = new_action(p, n, SN_XA_LANE_OFFSET);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    int s;
    if (!boolean(p, n, "continuous", false, &a->continuous) || !enumer(p, dyn, "dynamicsShape", true, 0, SHAPES, &s) ||
        !num(p, dyn, "maxLateralAcc", false, 0, 0, 1000, &a->max_lat_acc))
        return -1;
    a->dyn.shape = (sn_xshape)s;
    a->dyn.dim = SN_XD_RATE;
    N t = choice(p, tgt);
    if (!t)
        return -1;
    if (sn_xml_is(t, "AbsoluteTargetLaneOffset")) {
        if (!num(p, t, "value", true, 0, -100, 100, &a->value))
            return -1;
    } else if (sn_xml_is(t, "RelativeTargetLaneOffset")) {
        a->relative = true;
        if ((a->ref = entity_index(p, t, "entityRef")) < 0 || !num(p, t, "value", true, 0, -100, 100, &a->value))
            return -1;
    } else {
        return unknown(p, t, tgt), -1;
    }
    return i;
}

static int parse_traj_shape(P *p, N shape, int a_i);

static int parse_trajectory(P *p, N n, N traj, int a_i)
{
    sn_xaction *a = &p->x->actions[a_i];
    bool closed;
    if (!boolean(p, traj, "closed", false, &closed))
        return -1;
    if (sn_xml_child(traj, "ParameterDeclarations") && !parse_params(p, sn_xml_child(traj, "ParameterDeclarations")))
        return -1;
    N shape = sn_xml_child(traj, "Shape");
    if (!shape)
        return fail(p, traj, "needs a Shape"), -1;
    N poly = choice(p, shape);
    if (!poly)
        return -1;
    if (sn_xml_is(poly, "Clothoid") || sn_xml_is(poly, "Nurbs") || sn_xml_is(poly, "ClothoidSpline"))
        return parse_traj_shape(p, poly, a_i);
    if (!sn_xml_is(poly, "Polyline"))
        return unsupported(p, poly), -1;
    uint32_t nv = 0;
    SN_XML_EACH(v, poly) {
        if (!sn_xml_is(v, "Vertex"))
            return unknown(p, v, poly), -1;
        nv++;
    }
    if (nv < 2)
        return fail(p, poly, "a Polyline needs at least two Vertex elements"), -1;
    if (nv > MAX_ITEMS)
        return fail(p, poly, "more than %u vertices", MAX_ITEMS), -1;
    a->verts = calloc(nv, sizeof *a->verts);
    a->times = calloc(nv, sizeof *a->times);
    if (!a->verts || !a->times)
        return fail(p, poly, "out of memory"), -1;
    a->n_verts = nv;
    uint32_t k = 0;
    bool any_time = false;
    SN_XML_EACH(v, poly) {
        N pos = sn_xml_child(v, "Position");
        if (!pos)
            return fail(p, v, "needs a Position"), -1;
        if (!parse_position(p, pos, &a->verts[k]))
            return -1;
        if (has_attr(v, "time")) {
            any_time = true;
            if (!num(p, v, "time", true, 0, -1e9, 1e9, &a->times[k]))
                return -1;
            if (k && a->times[k] < a->times[k - 1])
                return fail(p, v, "time %g is before the previous vertex's %g", a->times[k], a->times[k - 1]), -1;
        }
        k++;
    }
    (void)n;
    (void)closed;
    return any_time ? 1 : 0;
}

static int parse_follow_trajectory(P *p, N n)
{
    int i = new_action(p, n, SN_XA_TRAJECTORY);
    if (i < 0)
        return -1;
    N traj = sn_xml_child(n, "Trajectory");
    N ref = sn_xml_child(n, "TrajectoryRef");
    if (ref)
        traj = sn_xml_child(ref, "Trajectory");
    int timed;
    if (!traj) {
        N c = ref ? sn_xml_child(ref, "CatalogReference") : sn_xml_child(n, "CatalogReference");
        if (!c)
            return fail(p, n, "needs a Trajectory"), -1;
        uint32_t mark;
        const char *file, *outer = p->file;
        N entry = catalog_entry(p, c, &mark, &file);
        if (!entry)
            return -1;
        if (!sn_xml_is(entry, "Trajectory"))
            return fail(p, c, "the catalog entry is a <%s>, not a Trajectory", sn_xml_name(entry)), -1;
        p->file = file;
        timed = parse_trajectory(p, n, entry, i);
        p->file = outer;
        p->declared = NULL;
        params_truncate(&p->x->params, mark);
    } else {
        timed = parse_trajectory(p, n, traj, i);
    }
    if (timed < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!num(p, n, "initialDistanceOffset", false, 0, 0, 1e9, &a->traj_d0)) /* 1.2; past the path's end: its end */
        return -1;
    N tr = sn_xml_child(n, "TimeReference");
    if (!tr)
        return fail(p, n, "needs a TimeReference"), -1;
    N tc = choice(p, tr);
    if (!tc)
        return -1;
    if (sn_xml_is(tc, "Timing")) {
        static const char *const dom[] = {"relative", "absolute", NULL};
        int d;
        if (!enumer(p, tc, "domainAbsoluteRelative", true, 0, dom, &d) ||
            !num(p, tc, "scale", true, 1, 0, 1e6, &a->t_scale) || !num(p, tc, "offset", true, 0, -1e9, 1e9, &a->t_offset))
            return -1;
        if (a->t_scale <= 0)
            return fail(p, tc, "scale must be > 0"), -1;
        if (!timed) { /* esmini plays it so too: the entity follows at its own speed */
            warn(p, tc, "Timing given but the vertices have no time: the entity follows the trajectory at its speed, "
                        "as with TimeReference None");
        } else {
            a->timed = true;
            a->t_absolute = d == 1;
        }
    } else if (!sn_xml_is(tc, "None")) {
        return unknown(p, tc, tr), -1;
    }
    N fm = sn_xml_child(n, "TrajectoryFollowingMode");
    if (fm) {
        static const char *const modes[] = {"position", "follow", NULL};
        int m;
        if (!enumer(p, fm, "followingMode", true, 0, modes, &m))
            return -1;
        a->traj_follow = m == 1;
    }
    return i;
}

/* A Route's Waypoints into action i's verts. */
static bool parse_route(P *p, N route, int i)
{
    uint32_t n = 0;
    SN_XML_EACH(w, route) {
        if (sn_xml_is(w, "ParameterDeclarations")) {
            if (!parse_params(p, w))
                return false;
        } else if (!sn_xml_is(w, "Waypoint")) {
            return unknown(p, w, route);
        } else {
            n++;
        }
    }
    if (n < 1 || n > MAX_ITEMS)
        return fail(p, route, "a Route needs at least one Waypoint");
    sn_xaction *a = &p->x->actions[i];
    if (!(a->verts = calloc(n, sizeof *a->verts)))
        return fail(p, route, "out of memory");
    SN_XML_EACH(w, route) {
        if (!sn_xml_is(w, "Waypoint"))
            continue;
        static const char *const strat[] = {"shortest", "fastest", "leastIntersections", "random", NULL};
        int st;
        N pos = sn_xml_child(w, "Position");
        if (!enumer(p, w, "routeStrategy", true, 0, strat, &st))
            return false;
        if (!pos)
            return fail(p, w, "needs a Position");
        if (st != 0)
            warn(p, w, "routeStrategy '%s' is planned as shortest (by lane length)", strat[st]);
        if (!parse_position(p, pos, &a->verts[a->n_verts]))
            return false;
        a->n_verts++;
    }
    return true;
}

static int parse_assign_route(P *p, N n)
{
    int i = new_action(p, n, SN_XA_ROUTE);
    if (i < 0)
        return -1;
    N route = sn_xml_child(n, "Route");
    if (route)
        return parse_route(p, route, i) ? i : -1;
    N c = sn_xml_child(n, "CatalogReference");
    if (!c)
        return fail(p, n, "needs a Route"), -1;
    uint32_t mark;
    const char *file, *outer = p->file;
    N entry = catalog_entry(p, c, &mark, &file);
    if (!entry)
        return -1;
    if (!sn_xml_is(entry, "Route"))
        return fail(p, c, "the catalog entry is a <%s>, not a Route", sn_xml_name(entry)), -1;
    p->file = file;
    bool ok = parse_route(p, entry, i);
    p->file = outer;
    p->declared = NULL;
    params_truncate(&p->x->params, mark);
    return ok ? i : -1;
}

static int parse_environment_body(P *p, N n, N env);

static int parse_environment(P *p, N n)
{
    N env = sn_xml_child(n, "Environment");
    uint32_t mark = p->x->params.n;
    const char *outer = p->file;
    if (!env && sn_xml_child(n, "CatalogReference")) {
        const char *file;
        if (!(env = catalog_entry(p, sn_xml_child(n, "CatalogReference"), &mark, &file)))
            return -1;
        if (!sn_xml_is(env, "Environment"))
            return fail(p, sn_xml_child(n, "CatalogReference"), "the catalog entry is a <%s>, not an Environment",
                        sn_xml_name(env)),
                   -1;
        p->file = file;
    }
    if (!env)
        return fail(p, n, "needs an Environment"), -1;
    int r = parse_environment_body(p, n, env);
    p->file = outer;
    p->declared = NULL;
    params_truncate(&p->x->params, mark);
    return r;
}

static int parse_environment_body(P *p, N n, N env)
{
    int i = new_action(p, n, SN_XA_ENVIRONMENT);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    sn_weather *w = &a->weather;
    /* sensim's default weather: a clear sky, the sun at azimuth 135, altitude 50 (docs/weather.md) */
    *w = (sn_weather){.sun_azimuth_angle = 135, .sun_altitude_angle = 50, .fog_distance = 0, .fog_falloff = 0.2,
                      .mie_scattering_scale = 0.03, .rayleigh_scattering_scale = 0.0331};
    a->has_weather = true;
    SN_XML_EACH(c, env) {
        if (sn_xml_is(c, "TimeOfDay")) {
            warn(p, c, "TimeOfDay is not played: the sun comes from Weather/Sun");
        } else if (sn_xml_is(c, "Weather")) {
            static const char *const clouds[] = {"skyOff", "free", "cloudy", "overcast", "rainy", NULL};
            static const double cover[] = {0, 0, 50, 90, 90};
            int cs;
            if (has_attr(c, "cloudState")) {
                if (!enumer(p, c, "cloudState", true, 0, clouds, &cs))
                    return -1;
                w->cloudiness = cover[cs];
            }
            if (has_attr(c, "fractionalCloudCover")) {
                static const char *const okta[] = {"zeroOktas", "oneOktas", "twoOktas", "threeOktas", "fourOktas",
                                                   "fiveOktas", "sixOktas", "sevenOktas", "eightOktas", "nineOktas", NULL};
                if (!enumer(p, c, "fractionalCloudCover", true, 0, okta, &cs))
                    return -1;
                w->cloudiness = cs >= 9 ? 100 : cs * 100.0 / 8;
            }
            SN_XML_EACH(d, c) {
                if (sn_xml_is(d, "Sun")) {
                    double az, el, in;
                    if (!num(p, d, "azimuth", false, 2.356, -10, 10, &az) ||
                        !num(p, d, "elevation", false, 0.873, -2, 2, &el) ||
                        !num(p, d, has_attr(d, "illuminance") ? "illuminance" : "intensity", false, 0, 0, 1e9, &in))
                        return -1;
                    /* OpenSCENARIO: radians, azimuth from north clockwise... CARLA: degrees */
                    w->sun_azimuth_angle = fmod(az * 180 / M_PI, 360);
                    w->sun_altitude_angle = fmax(-90, fmin(90, el * 180 / M_PI));
                } else if (sn_xml_is(d, "Fog")) {
                    double vr;
                    if (!num(p, d, "visualRange", true, 0, 0, 1e9, &vr))
                        return -1;
                    /* a visual range of 100 m is thick fog; 10 km none */
                    w->fog_density = vr >= 10000 ? 0 : fmin(100, 100 * (1 - log10(fmax(vr, 10)) / 4) * 1.33);
                    w->fog_distance = 0;
                } else if (sn_xml_is(d, "Precipitation")) {
                    double in;
                    const char *k = has_attr(d, "precipitationIntensity") ? "precipitationIntensity" : "intensity";
                    if (!num(p, d, k, false, 0, 0, 1e6, &in))
                        return -1;
                    /* mm/h: 10 mm/h and above is CARLA's 100 */
                    w->precipitation = fmin(100, in * 10);
                    w->precipitation_deposits = w->precipitation * 0.5;
                    w->wetness = w->precipitation;
                } else if (sn_xml_is(d, "Wind") || sn_xml_is(d, "DomeImage")) {
                    warn(p, d, "ignored: not part of sensim's weather");
                } else {
                    return unknown(p, d, c), -1;
                }
            }
        } else if (sn_xml_is(c, "RoadCondition")) {
            warn(p, c, "RoadCondition is not played: the kinematic driver has no friction");
        } else if (!sn_xml_is(c, "ParameterDeclarations")) {
            return unknown(p, c, env), -1;
        }
    }
    return i;
}

static int parse_param_action(P *p, N n, const char *ref_attr)
{
    N c = choice(p, n);
    if (!c)
        return -1;
    int i;
    if (sn_xml_is(c, "SetAction")) {
        if ((i = new_action(p, c, SN_XA_PARAM_SET)) < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        if (!(a->param = dup_attr(p, n, ref_attr, true)) || !(a->svalue = dup_attr(p, c, "value", true)))
            return -1;
    } else if (sn_xml_is(c, "ModifyAction")) {
        N r = sn_xml_child(c, "Rule");
        N op = r ? choice(p, r) : NULL;
        if (!op)
            return (r ? 0 : fail(p, c, "needs a Rule")), -1;
        if (!sn_xml_is(op, "AddValue") && !sn_xml_is(op, "MultiplyByValue"))
            return unknown(p, op, r), -1;
        if ((i = new_action(p, c, SN_XA_PARAM_MODIFY)) < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        a->multiply = sn_xml_is(op, "MultiplyByValue");
        if (!(a->param = dup_attr(p, n, ref_attr, true)) || !num(p, op, "value", true, 0, -1e12, 1e12, &a->value))
            return -1;
    } else {
        return unknown(p, c, n), -1;
    }
    if (!sn_xparam_find(&p->x->params, p->x->actions[i].param))
        return fail(p, n, "%s '%s' names no declared parameter", ref_attr, p->x->actions[i].param), -1;
    return i;
}

/* An action that changes nothing sensim simulates: a warning at load, another when it runs. */
static int noop(P *p, N n, const char *what, const char *why)
{
    warn(p, n, "%s", why);
    int i = new_action(p, n, SN_XA_NOOP);
    if (i >= 0)
        p->x->actions[i].noop_what = what;
    return i;
}

static int object_controller(P *p, N oc);

/* AssignControllerAction: its controller (inline, a catalog's, or 1.3's ObjectController) becomes
** the entity's ObjectController from then on; value 1 external, 0 one sensim does not play. */
static int parse_controller_assign(P *p, N n)
{
    if (has_attr(n, "activateLateral") || has_attr(n, "activateLongitudinal") || has_attr(n, "activateLighting") ||
        has_attr(n, "activateAnimation"))
        warn(p, n, "the activate* attributes are not read: an ActivateControllerAction activates it");
    N oc = sn_xml_child(n, "ObjectController");
    int ext = object_controller(p, oc ? oc : n);
    if (ext < 0)
        return -1;
    int i = new_action(p, n, SN_XA_ASSIGN_CONTROLLER);
    if (i >= 0)
        p->x->actions[i].value = ext;
    return i;
}

static int parse_controller_activate(P *p, N n)
{
    int i = new_action(p, n, SN_XA_CONTROLLER);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (!boolean(p, n, "longitudinal", true, &a->lon) || !boolean(p, n, "lateral", true, &a->lat))
        return -1;
    if (has_attr(n, "lighting") || has_attr(n, "animation"))
        warn(p, n, "lighting and animation are ignored");
    /* lateral != longitudinal is refused when it starts on an entity sensim would hand to a
    ** driver (xosc_play.c): a controller sensim does not play changes nothing either way */
    return i;
}

static int parse_sync(P *p, N n);
static int parse_infrastructure(P *p, N n);
static int parse_traffic(P *p, N n);
static int parse_appearance(P *p, N n);

/* EntityAction (a GlobalAction): AddEntityAction puts the entity `ref` into the scenario at its
** Position, DeleteEntityAction takes it out (xosc_play.c, xosc_engine.c). */
static int parse_entity_action(P *p, N n)
{
    int ent = entity_index(p, n, "entityRef");
    if (ent < 0)
        return -1;
    N c = choice(p, n);
    if (!c)
        return -1;
    if (sn_xml_is(c, "DeleteEntityAction")) {
        int i = new_action(p, c, SN_XA_DELETE_ENTITY);
        if (i >= 0)
            p->x->actions[i].ref = ent;
        return i;
    }
    if (!sn_xml_is(c, "AddEntityAction"))
        return unknown(p, c, n), -1;
    N pos = sn_xml_child(c, "Position");
    if (!pos)
        return fail(p, c, "needs a Position"), -1;
    int i = new_action(p, c, SN_XA_ADD_ENTITY);
    if (i < 0 || !parse_position(p, pos, &p->x->actions[i].pos))
        return -1;
    p->x->actions[i].ref = ent;
    p->x->ents[ent].added = true;
    return i;
}

/* A PrivateAction (global false) or a GlobalAction / UserDefinedAction (global true). */
static int parse_action_body(P *p, N n)
{
    N c = choice(p, n);
    if (!c)
        return -1;
    if (sn_xml_is(c, "LongitudinalAction")) {
        N d = choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "SpeedAction"))
            return parse_speed(p, d);
        if (sn_xml_is(d, "LongitudinalDistanceAction"))
            return parse_long_dist(p, d);
        if (sn_xml_is(d, "SpeedProfileAction"))
            return parse_speed_profile(p, d);
        return unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "LateralAction")) {
        N d = choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "LaneChangeAction"))
            return parse_lane_change(p, d);
        if (sn_xml_is(d, "LaneOffsetAction"))
            return parse_lane_offset(p, d);
        if (sn_xml_is(d, "LateralDistanceAction"))
            return parse_lat_dist(p, d);
        return unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "TeleportAction")) {
        N pos = sn_xml_child(c, "Position");
        if (!pos)
            return fail(p, c, "needs a Position"), -1;
        int i = new_action(p, c, SN_XA_TELEPORT);
        return i >= 0 && parse_position(p, pos, &p->x->actions[i].pos) ? i : -1;
    }
    if (sn_xml_is(c, "RoutingAction")) {
        N d = choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "FollowTrajectoryAction"))
            return parse_follow_trajectory(p, d);
        if (sn_xml_is(d, "AssignRouteAction"))
            return parse_assign_route(p, d);
        if (sn_xml_is(d, "AcquirePositionAction")) {
            N pos = sn_xml_child(d, "Position");
            if (!pos)
                return fail(p, d, "needs a Position"), -1;
            int i = new_action(p, d, SN_XA_ACQUIRE);
            return i >= 0 && parse_position(p, pos, &p->x->actions[i].pos) ? i : -1;
        }
        return unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "ActivateControllerAction"))
        return parse_controller_activate(p, c);
    if (sn_xml_is(c, "ControllerAction")) {
        N d = choice(p, c);
        if (!d)
            return -1;
        if (sn_xml_is(d, "ActivateControllerAction"))
            return parse_controller_activate(p, d);
        if (sn_xml_is(d, "AssignControllerAction"))
            return parse_controller_assign(p, d);
        if (sn_xml_is(d, "OverrideControllerValueAction"))
            return noop(p, d, "OverrideControllerValueAction",
                        "OverrideControllerValueAction is not played: it overrides a controller's pedals, gear and "
                        "steering wheel, and sensim's storyboard drives its entities kinematically, without them");
        return unsupported(p, d), -1;
    }
    if (sn_xml_is(c, "VisibilityAction"))
        return noop(p, c, "VisibilityAction", "VisibilityAction is not played: every entity stays visible to every sensor");
    if (sn_xml_is(c, "EnvironmentAction"))
        return parse_environment(p, c);
    if (sn_xml_is(c, "ParameterAction"))
        return parse_param_action(p, c, "parameterRef");
    if (sn_xml_is(c, "VariableAction"))
        return parse_param_action(p, c, "variableRef");
    if (sn_xml_is(c, "CustomCommandAction"))
        return noop(p, c, "CustomCommandAction", "CustomCommandAction is not played (no custom commands in sensim)");
    if (sn_xml_is(c, "SynchronizeAction"))
        return parse_sync(p, c);
    if (sn_xml_is(c, "InfrastructureAction"))
        return parse_infrastructure(p, c);
    if (sn_xml_is(c, "TrafficAction"))
        return parse_traffic(p, c);
    if (sn_xml_is(c, "AppearanceAction"))
        return parse_appearance(p, c);
    if (sn_xml_is(c, "TrailerAction"))
        return noop(p, c, "TrailerAction", "TrailerAction is not played: sensim's vehicles tow no trailers (the "
                    "entities stay apart, each moved by its own actions)");
    if (sn_xml_is(c, "EntityAction"))
        return parse_entity_action(p, c);
    if (sn_xml_is(c, "SetMonitorAction") || sn_xml_is(c, "AnimationAction") ||
        sn_xml_is(c, "LightStateAction"))
        return unsupported(p, c), -1;
    return unknown(p, c, n), -1;
}

/* ---- conditions ---- */

static const char *const RULES[] = {"greaterThan", "lessThan", "equalTo", "greaterOrEqual", "lessOrEqual",
                                    "notEqualTo", NULL};

static bool rule_attr(P *p, N n, sn_xcond *c)
{
    int r;
    if (!enumer(p, n, "rule", true, 0, RULES, &r))
        return false;
    c->rule = (sn_xrule)r;
    return true;
}

static bool rdt_attrs(P *p, N n, sn_xcond *c, bool required_rdt)
{
    static const char *const rdt[] = {"cartesianDistance", "euclidianDistance", "euclideanDistance", "longitudinal",
                                      "lateral", NULL};
    static const char *const cs[] = {"entity", "lane", "road", "trajectory", NULL};
    int r = 0, s = 0;
    if (!enumer(p, n, "relativeDistanceType", required_rdt, 0, rdt, &r) ||
        !enumer(p, n, "coordinateSystem", false, 0, cs, &s))
        return false;
    c->rdt = r <= 2 ? SN_XRD_EUCLIDEAN : r == 3 ? SN_XRD_LONGITUDINAL : SN_XRD_LATERAL;
    if (s == 3)
        return fail(p, n, "coordinateSystem 'trajectory' is not supported (entity, lane and road are)");
    c->road_cs = s == 1 || s == 2;
    if (c->road_cs && c->rdt != SN_XRD_LONGITUDINAL)
        warn(p, n, "coordinateSystem '%s' with relativeDistanceType '%s' is measured in the entity's frame", cs[s],
             rdt[r]);
    if (has_attr(n, "routingAlgorithm")) {
        char v[VAL];
        if (!attr(p, n, "routingAlgorithm", true, v))
            return false;
        if (strcmp(v, "undefined") != 0)
            return fail(p, n, "routingAlgorithm '%s' is not supported (distances are measured, not routed)", v);
    }
    bool along;
    if (!boolean(p, n, "alongRoute", false, &along))
        return false;
    if (along)
        warn(p, n, "alongRoute is measured in the entity's frame, not along the route");
    return true;
}

static bool duration_attr(P *p, N n, sn_xcond *c)
{
    c->rule = SN_XR_GE; /* held for at least the duration */
    if (!num(p, n, "duration", true, 0, -1e9, 1e9, &c->value))
        return false;
    if (c->value < 0)
        return fail(p, n, "duration %g is negative", c->value);
    return true;
}

static bool parse_entity_cond(P *p, N n, sn_xcond *c)
{
    N e = choice(p, n);
    if (!e)
        return false;
    const double V = 1e9;
    if (sn_xml_is(e, "SimulationTimeCondition") || sn_xml_is(e, "ParameterCondition"))
        return unknown(p, e, n);
    if (sn_xml_is(e, "SpeedCondition") || sn_xml_is(e, "AccelerationCondition") || sn_xml_is(e, "RelativeSpeedCondition")) {
        /* 1.2's DirectionalDimension; an entity moves along its heading, so its own longitudinal
        ** speed and acceleration are its speed and acceleration */
        static const char *const dirs[] = {"", "longitudinal", "lateral", "vertical", NULL};
        if (!enumer(p, e, "direction", false, 0, dirs, &c->direction))
            return false;
        if (c->direction == 3 || (c->direction == 2 && !sn_xml_is(e, "RelativeSpeedCondition")))
            return fail(p, e, "direction '%s' is not supported (sensim's entities move along their headings: "
                        "longitudinal is, and lateral for RelativeSpeedCondition)", dirs[c->direction]);
    }
    if (sn_xml_is(e, "SpeedCondition")) {
        c->kind = SN_XC_SPEED;
        return num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c);
    }
    if (sn_xml_is(e, "RelativeSpeedCondition")) {
        c->kind = SN_XC_REL_SPEED;
        return (c->ref = entity_index(p, e, "entityRef")) >= 0 && num(p, e, "value", true, 0, -V, V, &c->value) &&
               rule_attr(p, e, c);
    }
    if (sn_xml_is(e, "AccelerationCondition")) {
        c->kind = SN_XC_ACCEL;
        return num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c);
    }
    if (sn_xml_is(e, "StandStillCondition")) {
        c->kind = SN_XC_STANDSTILL;
        return duration_attr(p, e, c);
    }
    if (sn_xml_is(e, "EndOfRoadCondition")) {
        c->kind = SN_XC_END_OF_ROAD;
        return duration_attr(p, e, c);
    }
    if (sn_xml_is(e, "OffroadCondition")) {
        c->kind = SN_XC_OFFROAD;
        return duration_attr(p, e, c);
    }
    if (sn_xml_is(e, "TraveledDistanceCondition")) {
        c->kind = SN_XC_TRAVELED;
        c->rule = SN_XR_GE;
        if (!num(p, e, "value", true, 0, -V, V, &c->value))
            return false;
        return c->value >= 0 || fail(p, e, "value %g is negative", c->value);
    }
    if (sn_xml_is(e, "ReachPositionCondition")) {
        c->kind = SN_XC_REACH;
        c->rule = SN_XR_LT;
        N pos = sn_xml_child(e, "Position");
        if (!pos)
            return fail(p, e, "needs a Position");
        if (!num(p, e, "tolerance", true, 0, -V, V, &c->value) || !parse_position(p, pos, &c->pos))
            return false;
        return c->value >= 0 || fail(p, e, "tolerance %g is negative", c->value);
    }
    if (sn_xml_is(e, "DistanceCondition")) {
        c->kind = SN_XC_DISTANCE;
        N pos = sn_xml_child(e, "Position");
        if (!pos)
            return fail(p, e, "needs a Position");
        return num(p, e, "value", true, 0, -V, V, &c->value) && rule_attr(p, e, c) &&
               boolean(p, e, "freespace", false, &c->freespace) && rdt_attrs(p, e, c, false) &&
               parse_position(p, pos, &c->pos);
    }
    if (sn_xml_is(e, "RelativeDistanceCondition")) {
        c->kind = SN_XC_REL_DISTANCE;
        return (c->ref = entity_index(p, e, "entityRef")) >= 0 && num(p, e, "value", true, 0, -V, V, &c->value) &&
               rule_attr(p, e, c) && boolean(p, e, "freespace", true, &c->freespace) && rdt_attrs(p, e, c, true);
    }
    if (sn_xml_is(e, "TimeHeadwayCondition")) {
        c->kind = SN_XC_HEADWAY;
        c->rdt = SN_XRD_LONGITUDINAL;
        if ((c->ref = entity_index(p, e, "entityRef")) < 0 || !num(p, e, "value", true, 0, -V, V, &c->value) ||
            !rule_attr(p, e, c) || !boolean(p, e, "freespace", true, &c->freespace) || !rdt_attrs(p, e, c, false))
            return false;
        return true; /* rdt as given, euclidianDistance without one (esmini's ScenarioReader default) */
    }
    if (sn_xml_is(e, "TimeToCollisionCondition")) {
        c->kind = SN_XC_TTC;
        N t = sn_xml_child(e, "TimeToCollisionConditionTarget");
        if (!t)
            return fail(p, e, "needs a TimeToCollisionConditionTarget");
        if (!num(p, e, "value", true, 0, -V, V, &c->value) || !rule_attr(p, e, c) ||
            !boolean(p, e, "freespace", true, &c->freespace) || !rdt_attrs(p, e, c, false))
            return false;
        N k = choice(p, t);
        if (!k)
            return false;
        if (sn_xml_is(k, "EntityRef"))
            return (c->ref = entity_index(p, k, "entityRef")) >= 0;
        if (sn_xml_is(k, "Position"))
            return parse_position(p, k, &c->pos);
        return unknown(p, k, t);
    }
    if (sn_xml_is(e, "AngleCondition") || sn_xml_is(e, "RelativeAngleCondition")) {
        static const char *const types[] = {"heading", "pitch", "roll", NULL};
        static const char *const cs[] = {"entity", "lane", "road", "trajectory", "world", NULL};
        c->kind = sn_xml_is(e, "AngleCondition") ? SN_XC_ANGLE : SN_XC_REL_ANGLE;
        c->rule = SN_XR_EQ;
        if (c->kind == SN_XC_REL_ANGLE && (c->ref = entity_index(p, e, "entityRef")) < 0)
            return false;
        if (!num(p, e, "angle", true, 0, -1e3, 1e3, &c->value) ||
            !num(p, e, "angleTolerance", true, 0, 0, 1e3, &c->angle_tol) ||
            !enumer(p, e, "angleType", true, 0, types, &c->angle_type) ||
            !enumer(p, e, "coordinateSystem", false, c->kind == SN_XC_ANGLE ? 4 : 0, cs, &c->angle_cs))
            return false;
        return true;
    }
    if (sn_xml_is(e, "CollisionCondition")) {
        c->kind = SN_XC_COLLISION;
        N k = choice(p, e);
        if (!k)
            return false;
        if (sn_xml_is(k, "EntityRef"))
            return (c->ref = entity_index(p, k, "entityRef")) >= 0;
        if (sn_xml_is(k, "ByType")) {
            static const char *const types[] = {"vehicle", "pedestrian", "miscellaneous", NULL};
            int t;
            if (!enumer(p, k, "type", true, 0, types, &t))
                return false;
            c->value = t;
            c->ref = -2 - t; /* by type: -2 vehicle, -3 pedestrian, -4 misc */
            return true;
        }
        return unknown(p, k, e);
    }
    return unsupported(p, e);
}

static const char *const ELEM_KINDS[] = {"storyboard", "story", "act", "maneuverGroup", "maneuver", "event", "action", NULL};

static bool parse_signal_cond(P *p, N e, sn_xcond *c);

static bool parse_value_cond(P *p, N n, sn_xcond *c)
{
    N e = choice(p, n);
    if (!e)
        return false;
    if (sn_xml_is(e, "SimulationTimeCondition")) {
        c->kind = SN_XC_SIM_TIME;
        return num(p, e, "value", true, 0, -1e9, 1e9, &c->value) && rule_attr(p, e, c);
    }
    if (sn_xml_is(e, "StoryboardElementStateCondition")) {
        static const char *const states[] = {"standbyState", "runningState", "completeState", "startTransition",
                                             "endTransition", "stopTransition", "skipTransition", NULL};
        int k, s;
        c->kind = SN_XC_STATE;
        if (!enumer(p, e, "storyboardElementType", true, 0, ELEM_KINDS, &k) ||
            !(c->elem_name = dup_attr(p, e, "storyboardElementRef", true)) ||
            !enumer(p, e, "state", true, 0, states, &s))
            return false;
        c->elem_kind = k;
        c->state = (sn_xstate_ref)s;
        c->elem = -1;
        return true;
    }
    if (sn_xml_is(e, "TrafficSignalCondition") || sn_xml_is(e, "TrafficSignalControllerCondition"))
        return parse_signal_cond(p, e, c);
    if (sn_xml_is(e, "ParameterCondition") || sn_xml_is(e, "VariableCondition")) {
        const char *ref = sn_xml_is(e, "ParameterCondition") ? "parameterRef" : "variableRef";
        c->kind = SN_XC_PARAM;
        if (!(c->param = dup_attr(p, e, ref, true)) || !(c->svalue = dup_attr(p, e, "value", true)) || !rule_attr(p, e, c))
            return false;
        if (!sn_xparam_find(&p->x->params, c->param))
            return fail(p, e, "%s '%s' names no declared parameter", ref, c->param);
        return true;
    }
    return unsupported(p, e);
}

static int parse_condition(P *p, N n)
{
    if (!sn_xml_is(n, "Condition"))
        return unknown(p, n, n->parent), -1;
    GROW(p->x->conds, p->x->n_conds, "conditions");
    int i = (int)p->x->n_conds++;
    sn_xcond *c = &p->x->conds[i];
    c->line = sn_xml_line(n);
    c->ref = -1;
    c->elem = -1;
    static const char *const edges[] = {"none", "rising", "falling", "risingOrFalling", NULL};
    int edge;
    if (!(c->name = dup_attr(p, n, "name", true)) || !num(p, n, "delay", true, 0, -1e9, 1e9, &c->delay) ||
        !enumer(p, n, "conditionEdge", true, 0, edges, &edge))
        return -1;
    c->edge = (sn_xedge)edge;
    if (c->delay < 0)
        return fail(p, n, "delay %g is negative", c->delay), -1;
    N k = choice(p, n);
    if (!k)
        return -1;
    if (sn_xml_is(k, "ByValueCondition"))
        return parse_value_cond(p, k, &p->x->conds[i]) ? i : -1;
    if (!sn_xml_is(k, "ByEntityCondition"))
        return unknown(p, k, n), -1;
    N te = sn_xml_child(k, "TriggeringEntities"), ec = sn_xml_child(k, "EntityCondition");
    if (!te || !ec)
        return fail(p, k, "needs TriggeringEntities and EntityCondition"), -1;
    static const char *const tr[] = {"any", "all", NULL};
    int all;
    if (!enumer(p, te, "triggeringEntitiesRule", true, 0, tr, &all))
        return -1;
    c = &p->x->conds[i];
    c->trig_all = all == 1;
    uint32_t nt = 0;
    SN_XML_EACH(r, te) {
        if (!sn_xml_is(r, "EntityRef"))
            return unknown(p, r, te), -1;
        nt++;
    }
    if (!nt)
        return fail(p, te, "needs at least one EntityRef"), -1;
    if (nt > MAX_ITEMS)
        return fail(p, te, "too many entities"), -1;
    if (!(c->trig = calloc(nt, sizeof *c->trig)) || !(c->since = calloc(nt, sizeof *c->since)) ||
        !(c->held = calloc(nt, sizeof *c->held)))
        return fail(p, te, "out of memory"), -1;
    SN_XML_EACH(r, te) {
        int e = entity_index(p, r, "entityRef");
        if (e < 0)
            return -1;
        c->since[c->n_trig] = -1;
        c->trig[c->n_trig++] = e;
    }
    return parse_entity_cond(p, ec, c) ? i : -1;
}

static int parse_trigger(P *p, N n)
{
    GROW(p->x->trigs, p->x->n_trigs, "triggers");
    int t = (int)p->x->n_trigs++;
    SN_XML_EACH(g, n) {
        if (!sn_xml_is(g, "ConditionGroup"))
            return unknown(p, g, n), -1;
        sn_xtrigger *tr = &p->x->trigs[t];
        GROW(tr->groups, tr->n, "condition groups");
        sn_xgroup *gr = &tr->groups[tr->n++];
        SN_XML_EACH(c, g) {
            int ci = parse_condition(p, c);
            if (ci < 0)
                return -1;
            gr = &p->x->trigs[t].groups[p->x->trigs[t].n - 1];
            int *nw = realloc(gr->conds, (gr->n + 1) * sizeof *nw);
            if (!nw)
                return fail(p, c, "out of memory"), -1;
            gr->conds = nw;
            gr->conds[gr->n++] = ci;
        }
        if (!p->x->trigs[t].groups[p->x->trigs[t].n - 1].n)
            return fail(p, g, "a ConditionGroup needs at least one Condition"), -1;
    }
    return t;
}

/* ---- storyboard ---- */

static int new_elem(P *p, N n, sn_xelem_kind k, int parent)
{
    GROW(p->x->elems, p->x->n_elems, "storyboard elements");
    int i = (int)p->x->n_elems++;
    sn_xelem *e = &p->x->elems[i];
    e->kind = k;
    e->line = sn_xml_line(n);
    e->parent = parent;
    e->start = e->stop = e->action = -1;
    e->max_exec = 1;
    e->prio = SN_XPR_OVERRIDE;
    if (k != SN_XK_STORYBOARD && !(e->name = dup_attr(p, n, "name", true)))
        return -1;
    if (k == SN_XK_STORYBOARD)
        e->name = sn_strdup("Storyboard");
    if (parent >= 0) {
        sn_xelem *pe = &p->x->elems[parent];
        int *nw = realloc(pe->children, (pe->n_children + 1) * sizeof *nw);
        if (!nw)
            return fail(p, n, "out of memory"), -1;
        pe->children = nw;
        pe->children[pe->n_children++] = i;
    }
    return i;
}

static bool parse_event(P *p, N n, int parent)
{
    int ev = new_elem(p, n, SN_XK_EVENT, parent);
    if (ev < 0)
        return false;
    static const char *const prios[] = {"overwrite", "override", "skip", "parallel", NULL};
    int pr, mx;
    if (!enumer(p, n, "priority", true, 0, prios, &pr) || !integer(p, n, "maximumExecutionCount", false, 1, &mx))
        return false;
    if (mx < 1)
        return fail(p, n, "maximumExecutionCount %d is not >= 1", mx);
    p->x->elems[ev].prio = pr <= 1 ? SN_XPR_OVERRIDE : pr == 2 ? SN_XPR_SKIP : SN_XPR_PARALLEL;
    p->x->elems[ev].max_exec = (uint32_t)mx;
    bool any = false;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "Action")) {
            int a = new_elem(p, c, SN_XK_ACTION, ev);
            if (a < 0)
                return false;
            if (!sn_xml_next_el(c->children)) {
                /* The schema requires a child; esmini plays an empty Action as one that does
                ** nothing (test-collision-detection.xosc): so does sensim, with a warning. */
                int ai = noop(p, c, "Action", "an Action without a child (the schema requires one) does nothing: it "
                                              "ends at once");
                if (ai < 0)
                    return false;
                p->x->elems[a].action = ai;
                p->x->elems[a].global = true;
                any = true;
                continue;
            }
            N body = choice(p, c);
            if (!body)
                return false;
            int ai = parse_action_body(p, sn_xml_is(body, "PrivateAction") || sn_xml_is(body, "GlobalAction") ||
                                                      sn_xml_is(body, "UserDefinedAction")
                                              ? body
                                              : c);
            if (ai < 0)
                return false;
            p->x->elems[a].action = ai;
            p->x->elems[a].global = !sn_xml_is(body, "PrivateAction");
            sn_xact_kind k = p->x->actions[ai].kind;
            if (sn_xml_is(body, "PrivateAction") &&
                (k == SN_XA_ENVIRONMENT || k == SN_XA_PARAM_SET || k == SN_XA_PARAM_MODIFY))
                return fail(p, body, "a global action inside a PrivateAction");
            if (!sn_xml_is(body, "PrivateAction") && !sn_xml_is(body, "GlobalAction") &&
                !sn_xml_is(body, "UserDefinedAction"))
                return unknown(p, body, c);
            any = true;
        } else if (sn_xml_is(c, "StartTrigger")) {
            if ((p->x->elems[ev].start = parse_trigger(p, c)) < 0)
                return false;
            if (!p->x->trigs[p->x->elems[ev].start].n) /* an empty StartTrigger: none (start at once, as esmini) */
                p->x->elems[ev].start = -1;
        } else {
            return unknown(p, c, n);
        }
    }
    return any || fail(p, n, "an Event needs at least one Action");
}

static bool parse_maneuver(P *p, N n, int parent)
{
    int m = new_elem(p, n, SN_XK_MANEUVER, parent);
    if (m < 0)
        return false;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "ParameterDeclarations")) {
            if (!parse_params(p, c))
                return false;
        } else if (sn_xml_is(c, "Event")) {
            if (!parse_event(p, c, m))
                return false;
        } else {
            return unknown(p, c, n);
        }
    }
    return true;
}

/* Whether the Act above an Actors element has a StartTrigger (parsed after its groups). */
static bool has_start_trigger(N actors)
{
    N act = actors->parent ? actors->parent->parent : NULL;
    return act && sn_xml_child(act, "StartTrigger") && sn_xml_next_el(sn_xml_child(act, "StartTrigger")->children);
}

static bool parse_mgroup(P *p, N n, int parent)
{
    int g = new_elem(p, n, SN_XK_MGROUP, parent);
    int mx;
    if (g < 0 || !integer(p, n, "maximumExecutionCount", true, 1, &mx))
        return false;
    if (mx < 1)
        return fail(p, n, "maximumExecutionCount %d is not >= 1", mx);
    p->x->elems[g].max_exec = (uint32_t)mx;
    N actors = sn_xml_child(n, "Actors");
    if (!actors)
        return fail(p, n, "needs Actors");
    bool sel;
    if (!boolean(p, actors, "selectTriggeringEntities", false, &sel))
        return false;
    p->x->elems[g].select_trig = sel;
    if (sel && p->x->elems[parent].start < 0 && !has_start_trigger(actors))
        return fail(p, actors, "selectTriggeringEntities=\"true\" needs its Act's StartTrigger with an entity condition");
    SN_XML_EACH(c, actors) {
        if (!sn_xml_is(c, "EntityRef"))
            return unknown(p, c, actors);
        int e = entity_index(p, c, "entityRef");
        if (e < 0)
            return false;
        sn_xelem *ge = &p->x->elems[g];
        int *nw = realloc(ge->actors, (ge->n_actors + 1) * sizeof *nw);
        if (!nw)
            return fail(p, c, "out of memory");
        ge->actors = nw;
        ge->actors[ge->n_actors++] = e;
    }
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "Actors"))
            continue;
        if (sn_xml_is(c, "Maneuver")) {
            if (!parse_maneuver(p, c, g))
                return false;
        } else if (sn_xml_is(c, "CatalogReference")) {
            uint32_t mark;
            const char *file, *outer = p->file;
            N entry = catalog_entry(p, c, &mark, &file);
            if (!entry)
                return false;
            if (!sn_xml_is(entry, "Maneuver"))
                return fail(p, c, "the catalog entry is a <%s>, not a Maneuver", sn_xml_name(entry));
            p->file = file;
            bool ok = parse_maneuver(p, entry, g);
            p->file = outer;
            p->declared = NULL;
            params_truncate(&p->x->params, mark);
            if (!ok)
                return false;
        } else {
            return unknown(p, c, n);
        }
    }
    return true;
}

static bool parse_story(P *p, N n, int parent)
{
    int s = new_elem(p, n, SN_XK_STORY, parent);
    if (s < 0)
        return false;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "ParameterDeclarations")) {
            if (!parse_params(p, c))
                return false;
        } else if (sn_xml_is(c, "Act")) {
            int a = new_elem(p, c, SN_XK_ACT, s);
            if (a < 0)
                return false;
            SN_XML_EACH(d, c) {
                if (sn_xml_is(d, "ManeuverGroup")) {
                    if (!parse_mgroup(p, d, a))
                        return false;
                } else if (sn_xml_is(d, "StartTrigger") || sn_xml_is(d, "StopTrigger")) {
                    int t = parse_trigger(p, d);
                    if (t < 0)
                        return false;
                    if (sn_xml_is(d, "StartTrigger"))
                        p->x->elems[a].start = p->x->trigs[t].n ? t : -1; /* empty: start at once */
                    else
                        p->x->elems[a].stop = t;
                } else {
                    return unknown(p, d, c);
                }
            }
        } else {
            return unknown(p, c, n);
        }
    }
    return true;
}

static bool parse_init(P *p, N n)
{
    SN_XML_EACH(c, n)
        if (!sn_xml_is(c, "Actions"))
            return unknown(p, c, n);
    N actions = sn_xml_child(n, "Actions");
    if (!actions)
        return true;
    SN_XML_EACH(c, actions) {
        if (sn_xml_is(c, "GlobalAction") || sn_xml_is(c, "UserDefinedAction")) {
            int a = parse_action_body(p, c);
            if (a < 0)
                return false;
            int *nw = realloc(p->x->init_globals, (p->x->n_init_globals + 1) * sizeof *nw);
            if (!nw)
                return fail(p, c, "out of memory");
            p->x->init_globals = nw;
            p->x->init_globals[p->x->n_init_globals++] = a;
        } else if (sn_xml_is(c, "Private")) {
            int e = entity_index(p, c, "entityRef");
            if (e < 0)
                return false;
            SN_XML_EACH(pa, c) {
                if (!sn_xml_is(pa, "PrivateAction"))
                    return unknown(p, pa, c);
                int a = parse_action_body(p, pa);
                if (a < 0)
                    return false;
                sn_xinit *nw = realloc(p->x->inits, (p->x->n_inits + 1) * sizeof *nw);
                if (!nw)
                    return fail(p, pa, "out of memory");
                p->x->inits = nw;
                p->x->inits[p->x->n_inits++] = (sn_xinit){e, a};
            }
        } else {
            return unknown(p, c, actions);
        }
    }
    return true;
}

static bool parse_storyboard(P *p, N n)
{
    int sb = new_elem(p, n, SN_XK_STORYBOARD, -1);
    if (sb != 0)
        return false;
    bool has_stop = false;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "Init")) {
            if (!parse_init(p, c))
                return false;
        } else if (sn_xml_is(c, "Story")) {
            if (!parse_story(p, c, 0))
                return false;
        } else if (sn_xml_is(c, "StopTrigger")) {
            int t = parse_trigger(p, c);
            if (t < 0)
                return false;
            p->x->elems[0].stop = t;
            has_stop = true;
        } else {
            return unknown(p, c, n);
        }
    }
    (void)has_stop;
    return true;
}

/* ---- entities ---- */

static bool parse_bbox(P *p, N n, sn_xentity *e)
{
    N b = sn_xml_child(n, "BoundingBox");
    if (!b)
        return fail(p, n, "needs a BoundingBox");
    N c = sn_xml_child(b, "Center"), d = sn_xml_child(b, "Dimensions");
    if (!c || !d)
        return fail(p, b, "needs Center and Dimensions");
    if (!num(p, c, "x", true, 0, -100, 100, &e->cx) || !num(p, c, "y", true, 0, -100, 100, &e->cy) ||
        !num(p, c, "z", true, 0, -100, 100, &e->cz) || !num(p, d, "length", true, 0, 0, 200, &e->len) ||
        !num(p, d, "width", true, 0, 0, 100, &e->wid) || !num(p, d, "height", true, 0, 0, 100, &e->hgt))
        return false;
    if (e->len < 0.05 || e->wid < 0.05 || e->hgt < 0.05)
        return fail(p, d, "a dimension below 0.05 m (length %g, width %g, height %g)", e->len, e->wid, e->hgt);
    return true;
}

const char *const sn_xosc_vehicle_cats[SN_XCAT_N + 1] = {"car", "van", "truck", "trailer", "semitrailer", "bus",
                                                          "motorbike", "bicycle", "train", "tram", NULL};

/* docs/openscenario.md, "Entities": the blueprint of each category. */
const char *sn_xosc_vehicle_blueprint(const char *cat, double len)
{
    if (!strcmp(cat, "truck") || !strcmp(cat, "semitrailer") || !strcmp(cat, "trailer"))
        return "vehicle.truck";
    if (!strcmp(cat, "bus") || !strcmp(cat, "train") || !strcmp(cat, "tram"))
        return "vehicle.bus";
    if (!strcmp(cat, "van"))
        return "vehicle.van";
    if (!strcmp(cat, "motorbike"))
        return "vehicle.yamaha.yzf";
    if (!strcmp(cat, "bicycle"))
        return "vehicle.diamondback.century";
    return len > 5.5 ? "vehicle.van" : "vehicle.sedan";
}

/* An ObjectController: 1 when its Controller (inline or a catalog's) is an external one (a
** Property esminiController or sensimController of value ExternalController or external), 0 for any
** other (a warning: not played), -1 on error. */
static int object_controller(P *p, N oc)
{
    N c = choice(p, oc);
    if (!c)
        return -1;
    uint32_t mark = p->x->params.n;
    const char *outer = p->file;
    if (sn_xml_is(c, "CatalogReference")) {
        const char *file;
        if (!(c = catalog_entry(p, c, &mark, &file)))
            return -1;
        p->file = file;
    } else if (!sn_xml_is(c, "Controller")) {
        return unknown(p, c, oc), -1;
    }
    int ext = 0;
    N props = sn_xml_is(c, "Controller") ? sn_xml_child(c, "Properties") : NULL;
    if (props)
        SN_XML_EACH(q, props) {
            char name[VAL], value[VAL];
            if (!sn_xml_is(q, "Property"))
                continue;
            if (!attr(p, q, "name", true, name) || !attr(p, q, "value", true, value)) {
                ext = -1;
                break;
            }
            if ((!strcmp(name, "esminiController") || !strcmp(name, "sensimController")) &&
                (!strcmp(value, "ExternalController") || !strcmp(value, "external")))
                ext = 1;
        }
    if (ext == 0)
        warn(p, oc, "this controller is not played: the storyboard keeps driving the entity when it is activated "
                    "(esmini's --disable_controllers)");
    p->file = outer;
    p->declared = NULL;
    params_truncate(&p->x->params, mark);
    return ext;
}

/* A Vehicle, Pedestrian or MiscObject (inline or a catalog's entry) into e. */
static bool parse_entity_body(P *p, N body, sn_xentity *e)
{
    if (!sn_xml_is(body, "Vehicle") && !sn_xml_is(body, "Pedestrian") && !sn_xml_is(body, "MiscObject"))
        return fail(p, body, "a ScenarioObject's catalog entry must be a Vehicle, Pedestrian or MiscObject");
    if (sn_xml_child(body, "ParameterDeclarations") && !parse_params(p, sn_xml_child(body, "ParameterDeclarations")))
        return false;
    if (!parse_bbox(p, body, e))
        return false;
    if (sn_xml_is(body, "Vehicle")) {
        const char *const *cats = sn_xosc_vehicle_cats;
        int k;
        if (!enumer(p, body, "vehicleCategory", true, 0, cats, &k))
            return false;
        e->kind = SN_XEN_VEHICLE;
        e->category = sn_strdup(cats[k]);
        e->blueprint = sn_xosc_vehicle_blueprint(cats[k], e->len);
        N perf = sn_xml_child(body, "Performance");
        if (!perf)
            return fail(p, body, "needs a Performance");
        if (!num(p, perf, "maxSpeed", true, 0, 0, 1000, &e->max_speed) ||
            !num(p, perf, "maxAcceleration", true, 0, 0, 1e6, &e->max_acc) ||
            !num(p, perf, "maxDeceleration", true, 0, 0, 1e6, &e->max_dec))
            return false;
    } else if (sn_xml_is(body, "Pedestrian")) {
        e->kind = SN_XEN_PEDESTRIAN;
        char cat[VAL];
        if (!attr(p, body, "pedestrianCategory", true, cat))
            return false;
        if (strcmp(cat, "pedestrian") != 0)
            return fail(p, body, "pedestrianCategory '%s' is not supported (pedestrian is; wheelchair and "
                                 "animal are not)", cat);
        e->category = sn_strdup(cat);
        e->blueprint = "walker.pedestrian";
    } else {
        e->kind = SN_XEN_MISC;
        char cat[VAL];
        if (!attr(p, body, "miscObjectCategory", true, cat))
            return false;
        e->category = sn_strdup(cat);
        e->blueprint = "static.prop.box";
    }
    return e->category || fail(p, body, "out of memory");
}

static bool parse_entities(P *p, N n)
{
    SN_XML_EACH(o, n) {
        if (sn_xml_is(o, "EntitySelection"))
            return unsupported(p, o);
        if (!sn_xml_is(o, "ScenarioObject"))
            return unknown(p, o, n);
        char name[VAL];
        if (!attr(p, o, "name", true, name))
            return false;
        for (uint32_t i = 0; i < p->x->n_ents; i++)
            if (!strcmp(p->x->ents[i].name, name))
                return fail(p, o, "a second entity named '%s'", name);
        if (p->x->n_ents >= 10000)
            return fail(p, o, "more than 10000 entities");
        sn_xentity *nw = realloc(p->x->ents, (p->x->n_ents + 1) * sizeof *nw);
        if (!nw)
            return fail(p, o, "out of memory");
        p->x->ents = nw;
        sn_xentity *e = &p->x->ents[p->x->n_ents];
        memset(e, 0, sizeof *e);
        e->line = sn_xml_line(o);
        if (!(e->name = sn_strdup(name)))
            return fail(p, o, "out of memory");
        p->x->n_ents++;
        N body = NULL;
        SN_XML_EACH(c, o) {
            if (sn_xml_is(c, "ObjectController")) {
                int ext = object_controller(p, c);
                if (ext < 0)
                    return false;
                e = &p->x->ents[p->x->n_ents - 1];
                e->external = ext == 1;
                e->unplayed_controller = ext == 0;
            } else if (sn_xml_is(c, "Vehicle") || sn_xml_is(c, "Pedestrian") || sn_xml_is(c, "MiscObject") ||
                       sn_xml_is(c, "CatalogReference")) {
                if (body)
                    return fail(p, c, "a second object in one ScenarioObject");
                body = c;
            } else if (sn_xml_is(c, "ExternalObjectReference")) {
                return unsupported(p, c);
            } else {
                return unknown(p, c, o);
            }
        }
        if (!body)
            return fail(p, o, "needs a Vehicle, Pedestrian or MiscObject");
        bool ok;
        if (sn_xml_is(body, "CatalogReference")) {
            uint32_t mark;
            const char *file, *outer = p->file;
            N entry = catalog_entry(p, body, &mark, &file);
            if (!entry)
                return false;
            p->file = file;
            ok = parse_entity_body(p, entry, e);
            p->file = outer;
            p->declared = NULL;
            params_truncate(&p->x->params, mark);
        } else {
            ok = parse_entity_body(p, body, e);
        }
        if (!ok)
            return false;
    }
    return true;
}

/* ---- the document ---- */

static int parse_signal_controllers(P *p, N n);

static bool parse_root(P *p, N root)
{
    if (!root || !sn_xml_is(root, "OpenSCENARIO"))
        return fail(p, root, "the root element is <%s>, not <OpenSCENARIO>", root ? sn_xml_name(root) : "(none)");
    N h = sn_xml_child(root, "FileHeader");
    if (!h)
        return fail(p, root, "needs a FileHeader");
    if (!integer(p, h, "revMajor", true, 1, &p->x->rev_major) || !integer(p, h, "revMinor", true, 0, &p->x->rev_minor))
        return false;
    if (p->x->rev_major != 1 || p->x->rev_minor > 3)
        return fail(p, h, "revision %d.%d: sensim plays OpenSCENARIO 1.0 to 1.3", p->x->rev_major, p->x->rev_minor);
    if (!(p->x->description = dup_attr(p, h, "description", false)) || !(p->x->author = dup_attr(p, h, "author", false)) ||
        !(p->x->date = dup_attr(p, h, "date", false)))
        return false;
    bool storyboard = false;
    SN_XML_EACH(c, root) {
        if (sn_xml_is(c, "FileHeader")) {
            SN_XML_EACH(d, c)
                if (!sn_xml_is(d, "License") && !sn_xml_is(d, "Properties"))
                    return unknown(p, d, c);
        } else if (sn_xml_is(c, "ParameterDeclarations")) {
            if (!parse_params(p, c))
                return false;
        } else if (sn_xml_is(c, "VariableDeclarations")) {
            SN_XML_EACH(v, c) {
                if (!sn_xml_is(v, "VariableDeclaration"))
                    return unknown(p, v, c);
                char name[VAL], value[VAL];
                if (!attr(p, v, "name", true, name) || !attr(p, v, "value", true, value))
                    return false;
                if (!sn_xparam_set(&p->x->params, name, value, sn_xml_line(v), false))
                    return fail(p, v, "out of memory");
            }
        } else if (sn_xml_is(c, "CatalogLocations")) {
            SN_XML_EACH(k, c) {
                N dir = sn_xml_child(k, "Directory");
                char d[VAL];
                if (!dir)
                    return fail(p, k, "needs a Directory");
                if (!attr(p, dir, "path", true, d))
                    return false;
                char path[2 * VAL + 8];
                snprintf(path, sizeof path, "%s/%s", d[0] == '/' ? "" : p->x->dir, d);
                char **nw = realloc(p->cat_dirs, (p->n_cat_dirs + 1) * sizeof *nw);
                if (!nw || !(nw[p->n_cat_dirs] = sn_strdup(d[0] == '/' ? d : path))) {
                    if (nw)
                        p->cat_dirs = nw;
                    return fail(p, dir, "out of memory");
                }
                p->cat_dirs = nw;
                p->n_cat_dirs++;
            }
        } else if (sn_xml_is(c, "RoadNetwork")) {
            SN_XML_EACH(d, c) {
                if (sn_xml_is(d, "LogicFile")) {
                    char f[VAL];
                    if (!attr(p, d, "filepath", true, f))
                        return false;
                    char path[2 * VAL + 8];
                    if (f[0] == '/')
                        snprintf(path, sizeof path, "%s", f);
                    else
                        snprintf(path, sizeof path, "%s/%s", p->x->dir, f);
                    FILE *t = fopen(path, "rb");
                    if (!t)
                        return fail(p, d, "filepath '%s': cannot open %s: %s", f, path, strerror(errno));
                    fclose(t);
                    free(p->x->logic_file);
                    if (!(p->x->logic_file = sn_strdup(path)))
                        return fail(p, d, "out of memory");
                    p->x->logic_line = sn_xml_line(d);
                } else if (sn_xml_is(d, "SceneGraphFile")) {
                    warn(p, d, "ignored: sensim builds the scene's geometry from the OpenDRIVE map");
                } else if (sn_xml_is(d, "TrafficSignals")) {
                    if (parse_signal_controllers(p, d) < 0)
                        return false;
                } else if (sn_xml_is(d, "UsedArea")) {
                    if (sn_xml_next_el(d->children))
                        return unsupported(p, d);
                } else {
                    return unknown(p, d, c);
                }
            }
        } else if (sn_xml_is(c, "Entities")) {
            if (!parse_entities(p, c))
                return false;
        } else if (sn_xml_is(c, "Storyboard")) {
            if (!parse_storyboard(p, c))
                return false;
            storyboard = true;
        } else if (sn_xml_is(c, "ParameterValueDistribution") || sn_xml_is(c, "Catalog")) {
            return fail(p, c, "<%s> is not a scenario: sensim plays ScenarioDefinitions only", sn_xml_name(c));
        } else {
            return unknown(p, c, root);
        }
    }
    if (!storyboard)
        return fail(p, root, "needs a Storyboard");
    /* StoryboardElementStateCondition references, now that every element is known */
    for (uint32_t i = 0; i < p->x->n_conds; i++) {
        sn_xcond *c = &p->x->conds[i];
        if (c->kind != SN_XC_STATE)
            continue;
        for (uint32_t k = 0; k < p->x->n_elems && c->elem < 0; k++)
            if ((int)p->x->elems[k].kind == c->elem_kind && !strcmp(p->x->elems[k].name, c->elem_name))
                c->elem = (int)k;
        if (c->elem < 0) {
            sn_fail(p->err, SN_E_INVALID, "%s:%d: StoryboardElementStateCondition: storyboardElementRef '%s' names no %s "
                    "of this scenario", p->file, c->line, c->elem_name, ELEM_KINDS[c->elem_kind]);
            p->failed = true;
            return false;
        }
    }
    return true;
}

/* Attributes the standard defines that change nothing sensim plays: read past without a word. */
static const char *const DESCRIPTIVE[] = {
    "Vehicle:name", "Vehicle:mass", "Vehicle:model3d", "Vehicle:role", "Pedestrian:name", "Pedestrian:model",
    "Pedestrian:model3d", "Pedestrian:mass", "Pedestrian:role", "MiscObject:name", "MiscObject:mass", "MiscObject:model3d",
    "Performance:maxAccelerationRate", "Performance:maxDecelerationRate", "Performance:mass", "Trajectory:name",
    "Route:name", "Route:closed", "ScenarioObject:name", "ParameterDeclaration:parameterType",
    "VariableDeclaration:variableType", "Controller:name", "Environment:name", "ActivateControllerAction:animation",
    "ActivateControllerAction:lighting", "Trajectory:closed", "Event:name", "Action:name", NULL};

/* Every attribute of an element the parser read that it never looked at: a warning each (per
** element and attribute), so nothing of the file is skipped without a word. */
static void unread_attributes(P *p, N n)
{
    for (N c = n; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        for (xmlAttrPtr a = c->_private ? c->properties : NULL; a; a = a->next) {
            if (a->_private)
                continue;
            char key[64];
            snprintf(key, sizeof key, "%s:%s", sn_xml_name(c), (const char *)a->name);
            bool known = false;
            for (int i = 0; DESCRIPTIVE[i] && !known; i++)
                known = !strcmp(DESCRIPTIVE[i], key);
            for (int i = 0; i < p->n_warned && !known; i++)
                known = !strcmp(p->warned[i], key);
            if (known)
                continue;
            if (p->n_warned < 128)
                snprintf(p->warned[p->n_warned++], sizeof p->warned[0], "%s", key);
            char line[600];
            snprintf(line, sizeof line, "%s:%d: %s: attribute '%s' is not read by sensim (docs/openscenario.md)", p->file,
                     sn_xml_line(c), sn_xml_name(c), (const char *)a->name);
            char **w = realloc(p->x->warnings, (p->x->n_warnings + 1) * sizeof *w);
            if (w && (w[p->x->n_warnings] = sn_strdup(line)))
                p->x->warnings = w, p->x->n_warnings++;
            else if (w)
                p->x->warnings = w;
        }
        unread_attributes(p, c->children);
    }
}

/* --set parameters.NAME=VALUE: the top-level declarations are replaced before anything reads them. */
static bool apply_sets(P *p, const char *const *sets, size_t n_sets, uint32_t n_top)
{
    for (size_t i = 0; i < n_sets; i++) {
        const char *eq = strchr(sets[i], '=');
        if (!eq || eq == sets[i])
            return sn_fail(p->err, SN_E_INVALID, "%s: --set parameters.%s: expected NAME=VALUE", p->file, sets[i]), false;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - sets[i]), sets[i]);
        bool found = false;
        for (uint32_t k = 0; k < n_top; k++)
            if (!strcmp(p->x->params.v[k].name, name)) {
                free(p->x->params.v[k].value);
                if (!(p->x->params.v[k].value = sn_strdup(eq + 1)))
                    return false;
                found = true;
            }
        if (!found)
            return sn_fail(p->err, SN_E_INVALID, "%s: --set parameters.%s: the scenario declares no parameter '%s' "
                           "(in its top-level ParameterDeclarations)", p->file, sets[i], name), false;
    }
    return true;
}

void sn_xosc_free(sn_xosc *x)
{
    if (!x)
        return;
    free(x->path);
    free(x->dir);
    free(x->description);
    free(x->author);
    free(x->date);
    free(x->logic_file);
    sn_xparams_free(&x->params);
    for (uint32_t i = 0; i < x->n_ents; i++) {
        free(x->ents[i].name);
        free(x->ents[i].category);
    }
    free(x->ents);
    for (uint32_t i = 0; i < x->n_sigctl; i++) {
        sn_xsigctl *c = &x->sigctl[i];
        for (uint32_t k = 0; k < c->n_phases; k++) {
            for (uint32_t j = 0; j < c->phases[k].n; j++) {
                free(c->phases[k].states[j].id);
                free(c->phases[k].states[j].state);
            }
            free(c->phases[k].states);
            free(c->phases[k].name);
        }
        free(c->phases);
        free(c->name);
    }
    free(x->sigctl);
    for (uint32_t i = 0; i < x->n_routes; i++) {
        free(x->routes[i].wps);
        free(x->routes[i].keys);
    }
    free(x->routes);
    for (uint32_t i = 0; i < x->n_actions; i++) {
        free(x->actions[i].verts);
        free(x->actions[i].times);
        free(x->actions[i].param);
        free(x->actions[i].svalue);
        free(x->actions[i].weights);
        free(x->actions[i].knots);
        free(x->actions[i].signal);
        free(x->actions[i].sstate);
        free(x->actions[i].prof_v);
        free(x->actions[i].prof_t);
    }
    free(x->actions);
    free(x->inits);
    free(x->init_globals);
    for (uint32_t i = 0; i < x->n_elems; i++) {
        free(x->elems[i].name);
        free(x->elems[i].children);
        free(x->elems[i].actors);
    }
    free(x->elems);
    for (uint32_t i = 0; i < x->n_conds; i++) {
        free(x->conds[i].name);
        free(x->conds[i].trig);
        free(x->conds[i].since);
        free(x->conds[i].held);
        free(x->conds[i].elem_name);
        free(x->conds[i].param);
        free(x->conds[i].svalue);
        free(x->conds[i].pend);
        free(x->conds[i].pend_m);
    }
    free(x->conds);
    for (uint32_t i = 0; i < x->n_trigs; i++) {
        for (uint32_t g = 0; g < x->trigs[i].n; g++)
            free(x->trigs[i].groups[g].conds);
        free(x->trigs[i].groups);
    }
    free(x->trigs);
    for (uint32_t i = 0; i < x->n_warnings; i++)
        free(x->warnings[i]);
    free(x->warnings);
    free(x);
}

/* Every top-level parameter resolved once: a loop or an undefined reference is an error even in
** a parameter nothing uses. */
static bool resolve_all(P *p, N root)
{
    N d = root ? sn_xml_child(root, "ParameterDeclarations") : NULL;
    for (uint32_t i = 0; i < p->x->params.n; i++) {
        char out[VAL], why[300];
        if (sn_xparam_subst(&p->x->params, p->x->params.v[i].value, out, sizeof out, why, sizeof why))
            continue;
        N at = d;
        SN_XML_EACH(c, d) {
            xmlChar *nmv = xmlGetProp(c, (const xmlChar *)"name");
            bool hit = nmv && !strcmp((const char *)nmv, p->x->params.v[i].name);
            xmlFree(nmv);
            if (hit) {
                at = c;
                break;
            }
        }
        return fail(p, at, "parameter '%s': %s", p->x->params.v[i].name, why);
    }
    return true;
}

/* Declarations at the top of the file, before anything reads them: --set replaces their values. */
static bool top_params(P *p, N root)
{
    N d = root ? sn_xml_child(root, "ParameterDeclarations") : NULL;
    return !d || parse_params(p, d);
}

sn_status sn_xosc_load_memory(const char *xml, size_t size, const char *path, const char *const *sets, size_t n_sets,
                              sn_xosc **out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    *out = NULL;
    if (size > MAX_FILE || size > (size_t)INT32_MAX)
        return sn_fail(err, SN_E_RANGE, "%s: %zu bytes, more than the limit of %u", path, size, MAX_FILE);
    sn_xosc *x = calloc(1, sizeof *x);
    if (!x || !(x->path = sn_strdup(path)) || !(x->dir = sn_strdup(path))) {
        sn_xosc_free(x);
        return sn_fail(err, SN_E_NOMEM, "%s: out of memory", path);
    }
    char *slash = strrchr(x->dir, '/');
    if (slash)
        *slash = 0;
    else
        strcpy(x->dir, ".");
    xmlParserCtxtPtr ctx;
    xmlDocPtr doc = sn_xml_read_memory(xml, size, path, &ctx, err);
    if (!doc) {
        sn_xosc_free(x);
        return err->status;
    }
    P p = {.x = x, .file = path, .err = err};
    N root = xmlDocGetRootElement(doc);
    bool ok = top_params(&p, root && sn_xml_is(root, "OpenSCENARIO") ? root : NULL) &&
              apply_sets(&p, sets, n_sets, x->params.n) && resolve_all(&p, root);
    if (ok) {
        /* the top-level declarations are read: parse_root must not declare them twice */
        N d = sn_xml_child(root, "ParameterDeclarations");
        if (d) {
            xmlUnlinkNode(d);
            xmlFreeNode(d);
        }
        ok = parse_root(&p, root);
        if (ok)
            unread_attributes(&p, root);
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctx);
    for (uint32_t i = 0; i < p.n_cats; i++) {
        xmlFreeDoc(p.cats[i].doc);
        free(p.cats[i].path);
    }
    free(p.cats);
    for (uint32_t i = 0; i < p.n_cat_dirs; i++)
        free(p.cat_dirs[i]);
    free(p.cat_dirs);
    if (!ok) {
        sn_xosc_free(x);
        return err->status ? err->status : SN_E_INVALID;
    }
    *out = x;
    return SN_OK;
}

sn_status sn_xosc_load(const char *path, const char *const *sets, size_t n_sets, sn_xosc **out, sn_error *err)
{
    SN_ERR_LOCAL(err);
    *out = NULL;
    if (!path)
        return sn_fail(err, SN_E_IO, "(null): cannot open the scenario: no path");
    FILE *f = sn_open_input(path, "scenario", err);
    if (!f)
        return err->status;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? cap * 2 : 65536 * 2;
            if (cap > MAX_FILE + 65536u * 2) {
                free(buf);
                fclose(f);
                return sn_fail(err, SN_E_RANGE, "%s: more than the limit of %u bytes", path, MAX_FILE);
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return sn_fail(err, SN_E_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sn_fail(err, SN_E_IO, "%s: cannot read the scenario", path);
    }
    sn_status st = sn_xosc_load_memory(buf, n, path, sets, n_sets, out, err);
    free(buf);
    return st;
}

/* ---- trajectory shapes (issue 34): Clothoid and Nurbs; sampled into a path by xosc_shape.c ---- */

/* Returns 1 when the shape carries times (Clothoid startTime/stopTime, every ControlPoint's
** time), 0 when not, -1 on error. */
static int parse_traj_shape(P *p, N shape, int a_i)
{
    sn_xaction *a = &p->x->actions[a_i];
    const double M = 1e7;
    if (sn_xml_is(shape, "Clothoid")) {
        a->traj_shape = SN_XT_CLOTHOID;
        const char *prime = has_attr(shape, "curvaturePrime") ? "curvaturePrime" : "curvatureDot";
        if (!num(p, shape, "curvature", true, 0, -1e3, 1e3, &a->cl_curv) ||
            !num(p, shape, prime, true, 0, -1e3, 1e3, &a->cl_curv_dot) ||
            !num(p, shape, "length", true, 0, 0, 1e6, &a->cl_len))
            return -1;
        if (!(a->cl_len > 0))
            return fail(p, shape, "length %g must be above 0", a->cl_len), -1;
        bool t0 = has_attr(shape, "startTime"), t1 = has_attr(shape, "stopTime");
        if (t0 != t1)
            return fail(p, shape, "give both startTime and stopTime, or neither"), -1;
        if (t0 && (!num(p, shape, "startTime", true, 0, -M, M, &a->cl_t0) ||
                   !num(p, shape, "stopTime", true, 0, -M, M, &a->cl_t1)))
            return -1;
        if (t0 && a->cl_t1 < a->cl_t0)
            return fail(p, shape, "stopTime %g is before startTime %g", a->cl_t1, a->cl_t0), -1;
        N pos = sn_xml_child(shape, "Position");
        if (pos && !parse_position(p, pos, &a->pos))
            return -1;
        if (!pos)
            a->pos.kind = SN_XP_NONE;
        SN_XML_EACH(c, shape)
            if (!sn_xml_is(c, "Position"))
                return unknown(p, c, shape), -1;
        return t0 ? 1 : 0;
    }
    if (sn_xml_is(shape, "ClothoidSpline")) {
        a->traj_shape = SN_XT_CLOTHOID_SPLINE;
        uint32_t ns = 0, timed = 0;
        SN_XML_EACH(c, shape) {
            if (!sn_xml_is(c, "ClothoidSplineSegment"))
                return unknown(p, c, shape), -1;
            ns++;
            timed += has_attr(c, "timeStart");
        }
        if (!ns || ns > 100000)
            return fail(p, shape, "needs 1 to 100000 ClothoidSplineSegments, has %u", ns), -1;
        if ((timed && timed != ns) || (timed != 0) != has_attr(shape, "timeEnd"))
            return fail(p, shape, "give timeStart on every ClothoidSplineSegment and timeEnd, or none of them"), -1;
        if (!(a->weights = calloc((size_t)ns * 5, sizeof *a->weights)) || !(a->verts = calloc(ns, sizeof *a->verts)))
            return fail(p, shape, "out of memory"), -1;
        a->n_verts = ns;
        if (timed && !num(p, shape, "timeEnd", true, 0, -M, M, &a->cl_t1))
            return -1;
        uint32_t k = 0;
        double last_t = -INFINITY;
        SN_XML_EACH(c, shape) {
            double *w = &a->weights[5 * k];
            if (!num(p, c, "curvatureStart", true, 0, -1e3, 1e3, &w[0]) ||
                !num(p, c, "curvatureEnd", true, 0, -1e3, 1e3, &w[1]) || !num(p, c, "length", true, 0, 0, 1e6, &w[2]) ||
                !num(p, c, "hOffset", false, 0, -1e3, 1e3, &w[3]) || !num(p, c, "timeStart", false, NAN, -M, M, &w[4]))
                return -1;
            if (!(w[2] > 0))
                return fail(p, c, "length %g must be above 0", w[2]), -1;
            if (timed && w[4] < last_t)
                return fail(p, c, "timeStart %g is before the previous segment's %g", w[4], last_t), -1;
            last_t = timed ? w[4] : last_t;
            N ps = sn_xml_child(c, "PositionStart");
            a->verts[k].kind = SN_XP_NONE;
            if (ps && !parse_position(p, ps, &a->verts[k]))
                return -1;
            SN_XML_EACH(d, c)
                if (!sn_xml_is(d, "PositionStart"))
                    return unknown(p, d, c), -1;
            k++;
        }
        if (timed && a->cl_t1 < last_t)
            return fail(p, shape, "timeEnd %g is before the last segment's timeStart %g", a->cl_t1, last_t), -1;
        return timed ? 1 : 0;
    }
    /* Nurbs */
    a->traj_shape = SN_XT_NURBS;
    if (!integer(p, shape, "order", true, 0, &a->order))
        return -1;
    if (a->order < 1 || a->order > 16)
        return fail(p, shape, "order %d is outside 1 ... 16", a->order), -1;
    uint32_t ncp = 0, nk = 0;
    SN_XML_EACH(c, shape) {
        if (sn_xml_is(c, "ControlPoint"))
            ncp++;
        else if (sn_xml_is(c, "Knot"))
            nk++;
        else
            return unknown(p, c, shape), -1;
    }
    if (ncp < (uint32_t)a->order)
        return fail(p, shape, "%u control points, fewer than the order %d", ncp, a->order), -1;
    if (ncp > MAX_ITEMS)
        return fail(p, shape, "more than %u control points", MAX_ITEMS), -1;
    if (nk != ncp + (uint32_t)a->order)
        return fail(p, shape, "%u knots; a Nurbs of %u control points and order %d needs %u", nk, ncp, a->order,
                    ncp + (uint32_t)a->order), -1;
    a->verts = calloc(ncp, sizeof *a->verts);
    a->times = calloc(ncp, sizeof *a->times);
    a->weights = calloc(ncp, sizeof *a->weights);
    a->knots = calloc(nk, sizeof *a->knots);
    if (!a->verts || !a->times || !a->weights || !a->knots)
        return fail(p, shape, "out of memory"), -1;
    uint32_t k = 0, timed = 0;
    nk = 0;
    SN_XML_EACH(c, shape) {
        if (sn_xml_is(c, "Knot")) {
            if (!num(p, c, "value", true, 0, -M, M, &a->knots[nk]))
                return -1;
            if (nk && a->knots[nk] < a->knots[nk - 1])
                return fail(p, c, "knot %g is below the previous one, %g", a->knots[nk], a->knots[nk - 1]), -1;
            nk++;
            continue;
        }
        N pos = sn_xml_child(c, "Position");
        if (!pos)
            return fail(p, c, "needs a Position"), -1;
        if (!parse_position(p, pos, &a->verts[k]) || !num(p, c, "weight", false, 1, 0, 1e9, &a->weights[k]))
            return -1;
        if (!(a->weights[k] > 0))
            return fail(p, c, "weight %g must be above 0", a->weights[k]), -1;
        if (has_attr(c, "time")) {
            if (!num(p, c, "time", true, 0, -M, M, &a->times[k]))
                return -1;
            if (timed && a->times[k] < a->times[k - 1])
                return fail(p, c, "time %g is before the previous control point's %g", a->times[k], a->times[k - 1]), -1;
            timed++;
        }
        k++;
    }
    if (timed && timed != ncp)
        return fail(p, shape, "%u of %u control points have a time: give every one a time, or none", timed, ncp), -1;
    if (!(a->knots[nk - 1] > a->knots[0]))
        return fail(p, shape, "the knot vector spans nothing (its first and last values are equal)"), -1;
    a->n_verts = ncp;
    a->n_knots = nk;
    return timed ? 1 : 0;
}

/* ---- SynchronizeAction (xosc_sync.c plays it) ---- */

/* SynchronizeAction's SteadyState: the entity drives at its final speed over the last distance
** or time before the target. */
static bool parse_steady_state(P *p, N n, sn_xaction *a)
{
    N c = choice(p, n);
    if (!c)
        return false;
    if (sn_xml_is(c, "TargetDistanceSteadyState")) {
        a->ss_kind = 1;
        return num(p, c, "distance", true, 0, 0, 1e6, &a->ss_value);
    }
    if (sn_xml_is(c, "TargetTimeSteadyState")) {
        a->ss_kind = 2;
        return num(p, c, "time", true, 0, 0, 1e6, &a->ss_value);
    }
    return unknown(p, c, n), false;
}

static int parse_sync(P *p, N n)
{
    int i = new_action(p, n, SN_XA_SYNC);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if ((a->ref = entity_index(p, n, "masterEntityRef")) < 0)
        return -1;
    N tm = sn_xml_child(n, "TargetPositionMaster"), tp = sn_xml_child(n, "TargetPosition");
    if (!tm || !tp)
        return fail(p, n, "needs TargetPositionMaster and TargetPosition"), -1;
    a = &p->x->actions[i];
    if (!(a->verts = calloc(1, sizeof *a->verts)))
        return fail(p, n, "out of memory"), -1;
    a->n_verts = 1;
    /* the Position elements' children are the positions themselves (TargetPosition is a Position) */
    if (!parse_position(p, tm, &a->pos) || !parse_position(p, tp, &a->verts[0]))
        return -1;
    const char *tol = has_attr(n, "targetTolerance") ? "targetTolerance" : "tolerance";
    const char *tolm = has_attr(n, "targetToleranceMaster") ? "targetToleranceMaster" : "toleranceMaster";
    if (!num(p, n, tol, false, 0, 0, 1e6, &a->sync_tol) || !num(p, n, tolm, false, 0, 0, 1e6, &a->sync_tol_master))
        return -1;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "TargetPositionMaster") || sn_xml_is(c, "TargetPosition"))
            continue;
        if (!sn_xml_is(c, "FinalSpeed"))
            return unknown(p, c, n), -1;
        N f = choice(p, c);
        if (!f)
            return -1;
        a->has_sync_speed = true;
        if (sn_xml_is(f, "AbsoluteSpeed")) {
            if (sn_xml_child(f, "SteadyState") && !parse_steady_state(p, sn_xml_child(f, "SteadyState"), a))
                return -1;
            if (!num(p, f, "value", true, 0, 0, 1e4, &a->sync_speed))
                return -1;
        } else if (sn_xml_is(f, "RelativeSpeedToMaster")) {
            static const char *const types[] = {"delta", "factor", NULL};
            int t;
            if (sn_xml_child(f, "SteadyState") && !parse_steady_state(p, sn_xml_child(f, "SteadyState"), a))
                return -1;
            if (!num(p, f, "value", true, 0, -1e4, 1e4, &a->sync_speed) ||
                !enumer(p, f, "speedTargetValueType", true, 0, types, &t))
                return -1;
            a->sync_rel = true;
            a->factor = t == 1;
        } else {
            return unknown(p, f, c), -1;
        }
    }
    return i;
}

/* ---- traffic signals ---- */

static int sigctl_index(P *p, N n, const char *attr_name)
{
    char v[VAL];
    if (!attr(p, n, attr_name, true, v))
        return -1;
    for (uint32_t k = 0; k < p->x->n_sigctl; k++)
        if (strcmp(p->x->sigctl[k].name, v) == 0)
            return (int)k;
    fail(p, n, "%s '%s' names no TrafficSignalController of the RoadNetwork", attr_name, v);
    return -1;
}

static int parse_signal_controllers(P *p, N n)
{
    SN_XML_EACH(c, n) {
        if (!sn_xml_is(c, "TrafficSignalController"))
            return unknown(p, c, n), -1;
        GROW(p->x->sigctl, p->x->n_sigctl, "traffic signal controllers");
        sn_xsigctl *ctl = &p->x->sigctl[p->x->n_sigctl++];
        ctl->line = sn_xml_line(c);
        ctl->reference = -1;
        if (!(ctl->name = dup_attr(p, c, "name", true)) || !num(p, c, "delay", false, 0, 0, 1e9, &ctl->delay))
            return -1;
        for (uint32_t k = 0; k + 1 < p->x->n_sigctl; k++)
            if (strcmp(p->x->sigctl[k].name, ctl->name) == 0)
                return fail(p, c, "a second TrafficSignalController named '%s'", ctl->name), -1;
        if (has_attr(c, "reference")) {
            int r = sigctl_index(p, c, "reference");
            if (r < 0)
                return -1;
            p->x->sigctl[p->x->n_sigctl - 1].reference = r; /* earlier controllers only: no loops */
        }
        ctl = &p->x->sigctl[p->x->n_sigctl - 1];
        SN_XML_EACH(ph, c) {
            if (!sn_xml_is(ph, "Phase"))
                return unknown(p, ph, c), -1;
            GROW(ctl->phases, ctl->n_phases, "phases");
            sn_xphase *f = &ctl->phases[ctl->n_phases++];
            if (!(f->name = dup_attr(p, ph, "name", true)) || !num(p, ph, "duration", true, 0, 0, 1e9, &f->duration))
                return -1;
            SN_XML_EACH(st, ph) {
                if (sn_xml_is(st, "TrafficSignalGroupState")) {
                    warn(p, st, "ignored (sensim sets signals by their id)");
                    continue;
                }
                if (!sn_xml_is(st, "TrafficSignalState"))
                    return unknown(p, st, ph), -1;
                GROW(f->states, f->n, "signal states");
                sn_xsigstate *ss = &f->states[f->n++];
                if (!(ss->id = dup_attr(p, st, "trafficSignalId", true)) || !(ss->state = dup_attr(p, st, "state", true)))
                    return -1;
            }
        }
        double cycle = 0;
        for (uint32_t k = 0; k < ctl->n_phases; k++)
            cycle += ctl->phases[k].duration;
        if (ctl->n_phases && !(cycle > 0))
            return fail(p, c, "its phases last 0 s in all: a cycle needs time"), -1;
    }
    return 0;
}

static bool parse_signal_cond(P *p, N e, sn_xcond *c)
{
    if (sn_xml_is(e, "TrafficSignalCondition")) {
        c->kind = SN_XC_SIGNAL;
        c->sigctl = -1;
        return (c->param = dup_attr(p, e, "name", true)) && (c->svalue = dup_attr(p, e, "state", true));
    }
    c->kind = SN_XC_SIGNAL_CTL;
    if ((c->sigctl = sigctl_index(p, e, "trafficSignalControllerRef")) < 0 || !(c->svalue = dup_attr(p, e, "phase", true)))
        return false;
    const sn_xsigctl *ctl = &p->x->sigctl[c->sigctl];
    for (uint32_t k = 0; k < ctl->n_phases; k++)
        if (strcmp(ctl->phases[k].name, c->svalue) == 0)
            return true;
    return fail(p, e, "phase '%s' is no phase of controller '%s'", c->svalue, ctl->name);
}

static int parse_infrastructure(P *p, N n)
{
    N t = choice(p, n);
    if (!t)
        return -1;
    if (!sn_xml_is(t, "TrafficSignalAction"))
        return unknown(p, t, n), -1;
    N d = choice(p, t);
    if (!d)
        return -1;
    if (sn_xml_is(d, "TrafficSignalStateAction")) {
        int i = new_action(p, d, SN_XA_SIGNAL_STATE);
        if (i < 0)
            return -1;
        sn_xaction *a = &p->x->actions[i];
        return (a->signal = dup_attr(p, d, "name", true)) && (a->sstate = dup_attr(p, d, "state", true)) ? i : -1;
    }
    if (sn_xml_is(d, "TrafficSignalControllerAction")) {
        int i = new_action(p, d, SN_XA_SIGNAL_CONTROLLER);
        if (i < 0)
            return -1;
        int k = sigctl_index(p, d, "trafficSignalControllerRef");
        sn_xaction *a = &p->x->actions[i];
        if (k < 0 || !(a->sstate = dup_attr(p, d, "phase", true)))
            return -1;
        a->ref = k; /* the controller */
        const sn_xsigctl *ctl = &p->x->sigctl[k];
        for (uint32_t j = 0; j < ctl->n_phases; j++)
            if (strcmp(ctl->phases[j].name, a->sstate) == 0)
                return i;
        return fail(p, d, "phase '%s' is no phase of controller '%s'", a->sstate, ctl->name), -1;
    }
    return unknown(p, d, t), -1;
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
            if (!parse_params(p, w))
                return -1;
        } else if (!sn_xml_is(w, "Waypoint")) {
            return unknown(p, w, route), -1;
        } else {
            n++;
        }
    }
    if (n < 1 || n > MAX_ITEMS)
        return fail(p, route, "a Route needs at least one Waypoint"), -1;
    sn_xpos *wps = calloc(n, sizeof *wps);
    if (!wps)
        return fail(p, route, "out of memory"), -1;
    p->x->routes[k].wps = wps;
    SN_XML_EACH(w, route) {
        if (!sn_xml_is(w, "Waypoint"))
            continue;
        static const char *const strat[] = {"shortest", "fastest", "leastIntersections", "random", NULL};
        int st;
        N pos = sn_xml_child(w, "Position");
        if (!enumer(p, w, "routeStrategy", true, 0, strat, &st))
            return -1;
        if (!pos)
            return fail(p, w, "needs a Position"), -1;
        if (st != 0)
            warn(p, w, "routeStrategy '%s' is planned as shortest (by lane length)", strat[st]);
        sn_xpos wp;
        if (!parse_position(p, pos, &wp))
            return -1;
        if (wp.kind == SN_XP_ROUTE)
            return fail(p, pos, "a Route's waypoint cannot itself be a RoutePosition"), -1;
        p->x->routes[k].wps[p->x->routes[k].n++] = wp;
    }
    return k;
}

static bool parse_route_position(P *p, N c, sn_xpos *pos)
{
    pos->kind = SN_XP_ROUTE;
    N ref = sn_xml_child(c, "RouteRef"), in = sn_xml_child(c, "InRoutePosition");
    if (!ref || !in)
        return fail(p, c, "needs RouteRef and InRoutePosition");
    SN_XML_EACH(k, c)
        if (!sn_xml_is(k, "RouteRef") && !sn_xml_is(k, "InRoutePosition") && !sn_xml_is(k, "Orientation"))
            return unknown(p, k, c);
    N route = sn_xml_child(ref, "Route");
    int ri;
    if (route) {
        ri = route_waypoints(p, route);
    } else {
        N cr = sn_xml_child(ref, "CatalogReference");
        if (!cr)
            return fail(p, ref, "needs a Route or a CatalogReference");
        uint32_t mark;
        const char *file, *outer = p->file;
        N entry = catalog_entry(p, cr, &mark, &file);
        if (!entry)
            return false;
        if (!sn_xml_is(entry, "Route"))
            return fail(p, cr, "the catalog entry is a <%s>, not a Route", sn_xml_name(entry));
        p->file = file;
        ri = route_waypoints(p, entry);
        p->file = outer;
        p->declared = NULL;
        params_truncate(&p->x->params, mark);
    }
    if (ri < 0)
        return false;
    pos->route = ri;
    if (!parse_orientation(p, c, pos))
        return false;
    N k = choice(p, in);
    if (!k)
        return false;
    const double M = 1e7;
    if (sn_xml_is(k, "FromCurrentEntity")) {
        pos->in_route = 0;
        return (pos->entity = entity_index(p, k, "entityRef")) >= 0;
    }
    if (sn_xml_is(k, "FromRoadCoordinates")) {
        pos->in_route = 1;
        return num(p, k, "pathS", true, 0, 0, M, &pos->s) && num(p, k, "t", true, 0, -M, M, &pos->t);
    }
    if (sn_xml_is(k, "FromLaneCoordinates")) {
        pos->in_route = 2;
        if (!num(p, k, "pathS", true, 0, 0, M, &pos->s) || !integer(p, k, "laneId", true, 0, &pos->lane) ||
            !num(p, k, "laneOffset", false, 0, -M, M, &pos->offset))
            return false;
        if (pos->lane == 0)
            return fail(p, k, "laneId 0 is the centre lane, which has no width");
        return true;
    }
    return unknown(p, k, in);
}

/* A ParameterAssignment's parameterRef: the parameter's name. esmini also takes "$name" there
** (resources/xosc/synchronize.xosc does so): the name, not the value it would substitute. */
static char *param_ref_name(P *p, N a)
{
    seen(a, "parameterRef");
    xmlChar *v = xmlGetProp(a, (const xmlChar *)"parameterRef");
    if (!v) {
        fail(p, a, "missing attribute 'parameterRef'");
        return NULL;
    }
    const char *name = (const char *)v;
    if (name[0] == '$' && name[1] != '{')
        name++;
    char *s = sn_strdup(name);
    xmlFree(v);
    if (!s)
        fail(p, a, "out of memory");
    return s;
}

/* ---- TrafficAction (xosc_traffic.c plays it) and AppearanceAction ---- */

/* TrafficDefinition: VehicleCategoryDistribution's weights into a->weights (SN_XCAT_N);
** ControllerDistribution is sensim's autopilot (a warning). */
static bool traffic_definition(P *p, N n, sn_xaction *a)
{
    N def = sn_xml_child(n, "TrafficDefinition");
    if (!def) {
        if (sn_xml_child(n, "TrafficDistribution"))
            return unsupported(p, sn_xml_child(n, "TrafficDistribution"));
        return true;
    }
    SN_XML_EACH(c, def) {
        if (sn_xml_is(c, "ControllerDistribution")) {
            warn(p, c, "the spawned vehicles are driven by sensim's autopilot (docs/traffic.md), whatever controllers "
                       "it names");
            continue;
        }
        if (!sn_xml_is(c, "VehicleCategoryDistribution"))
            return unknown(p, c, def);
        if (!(a->weights = calloc(SN_XCAT_N, sizeof *a->weights)))
            return fail(p, c, "out of memory");
        double total = 0;
        SN_XML_EACH(e, c) {
            if (!sn_xml_is(e, "VehicleCategoryDistributionEntry"))
                return unknown(p, e, c);
            int k;
            double w;
            if (!enumer(p, e, "category", true, 0, sn_xosc_vehicle_cats, &k) || !num(p, e, "weight", true, 0, 0, 1e9, &w))
                return false;
            a->weights[k] += w;
            total += w;
        }
        if (!(total > 0))
            return fail(p, c, "the weights add up to 0: no category to spawn");
    }
    return true;
}

/* The spawned vehicles' speed: `velocity` (1.0, deprecated in 1.2) or 1.2's InitialSpeedRange. */
static bool traffic_speed(P *p, N n, sn_xaction *a)
{
    a->tr_v0 = a->tr_v1 = NAN;
    if (has_attr(n, "velocity")) {
        if (!num(p, n, "velocity", true, 0, 0, 1e3, &a->tr_v0))
            return false;
        a->tr_v1 = a->tr_v0;
    }
    N r = sn_xml_child(n, "InitialSpeedRange");
    if (r) {
        if (!num(p, r, "lowerLimit", true, 0, 0, 1e3, &a->tr_v0) || !num(p, r, "upperLimit", true, 0, 0, 1e3, &a->tr_v1))
            return false;
        if (a->tr_v1 < a->tr_v0)
            return fail(p, r, "upperLimit %g is below lowerLimit %g", a->tr_v1, a->tr_v0);
    }
    if (sn_xml_child(n, "DirectionOfTravelDistribution"))
        warn(p, sn_xml_child(n, "DirectionOfTravelDistribution"),
             "not read: every vehicle spawns in its lane's direction of travel");
    return true;
}

static int parse_traffic(P *p, N n)
{
    N d = choice(p, n);
    if (!d)
        return -1;
    int i = new_action(p, d, SN_XA_TRAFFIC);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    if (has_attr(n, "trafficName") && !(a->signal = dup_attr(p, n, "trafficName", true)))
        return -1;
    if (sn_xml_is(d, "TrafficStopAction")) {
        a->tr_kind = SN_XTF_STOP;
        if (!a->signal)
            return fail(p, n, "a TrafficStopAction needs the trafficName of the TrafficAction it stops"), -1;
        return i;
    }
    if (sn_xml_is(d, "TrafficSwarmAction")) {
        a->tr_kind = SN_XTF_SWARM;
        double nv;
        N central = sn_xml_child(d, "CentralObject");
        if (!central)
            return fail(p, d, "needs a CentralObject"), -1;
        if ((a->ref = entity_index(p, central, "entityRef")) < 0)
            return -1;
        if (!num(p, d, "innerRadius", true, 0, 0, 1e5, &a->tr_inner) ||
            !num(p, d, "semiMajorAxis", true, 0, 0, 1e5, &a->tr_major) ||
            !num(p, d, "semiMinorAxis", true, 0, 0, 1e5, &a->tr_minor) ||
            !num(p, d, "offset", false, 0, -1e5, 1e5, &a->tr_offset) ||
            !num(p, d, "numberOfVehicles", true, 0, 0, 1000, &nv) || !traffic_speed(p, d, a) ||
            !traffic_definition(p, d, a))
            return -1;
        if (nv != floor(nv))
            return fail(p, d, "attribute 'numberOfVehicles' is %g, not a whole number", nv), -1;
        a->tr_n = (uint32_t)nv;
        if (!(a->tr_major > 0) || !(a->tr_minor > 0))
            return fail(p, d, "semiMajorAxis and semiMinorAxis must be above 0"), -1;
        /* the ring must hold some area: the inner circle inside the whole ellipse leaves none */
        if (a->tr_inner >= fmax(a->tr_major, a->tr_minor) + fabs(a->tr_offset))
            return fail(p, d, "innerRadius %g covers the whole ellipse (semi-axes %g and %g, offset %g): no place to "
                        "spawn", a->tr_inner, a->tr_major, a->tr_minor, a->tr_offset), -1;
        return i;
    }
    if (sn_xml_is(d, "TrafficSourceAction") || sn_xml_is(d, "TrafficSinkAction")) {
        bool src = sn_xml_is(d, "TrafficSourceAction");
        a->tr_kind = src ? SN_XTF_SOURCE : SN_XTF_SINK;
        N pos = sn_xml_child(d, "Position");
        if (!pos)
            return fail(p, d, "needs a Position"), -1;
        if (!parse_position(p, pos, &a->pos) || !num(p, d, "radius", true, 0, 0, 1e5, &a->tr_radius) ||
            !num(p, d, "rate", src, INFINITY, 0, 1e4, &a->tr_rate) || !traffic_definition(p, d, a))
            return -1;
        if (src && !traffic_speed(p, d, a))
            return -1;
        if (src && !(a->tr_rate > 0))
            return fail(p, d, "rate must be above 0 (vehicles per second)"), -1;
        return i;
    }
    return unknown(p, d, n), -1;
}

/* AppearanceAction (1.2): LightStateAction onto CARLA's vehicle lights; AnimationAction a warning. */
static int parse_appearance(P *p, N n)
{
    N d = choice(p, n);
    if (!d)
        return -1;
    if (sn_xml_is(d, "AnimationAction"))
        return noop(p, d, "AnimationAction", "AnimationAction is not played: sensim's actors have no animations "
                    "(doors, wipers, a walker's motions)");
    if (!sn_xml_is(d, "LightStateAction"))
        return unknown(p, d, n), -1;
    int i = new_action(p, d, SN_XA_LIGHT);
    if (i < 0)
        return -1;
    sn_xaction *a = &p->x->actions[i];
    double tt;
    if (!num(p, d, "transitionTime", false, 0, 0, 1e6, &tt))
        return -1;
    a->dyn.value = tt;
    N type = sn_xml_child(d, "LightType"), st = sn_xml_child(d, "LightState");
    if (!type || !st)
        return fail(p, d, "needs LightType and LightState"), -1;
    N vl = choice(p, type);
    if (!vl)
        return -1;
    if (sn_xml_is(vl, "UserDefinedLight")) {
        warn(p, vl, "not played: sensim's vehicles have CARLA's lights only");
        a->light = 0;
    } else if (!sn_xml_is(vl, "VehicleLight")) {
        return unknown(p, vl, type), -1;
    } else {
        /* OpenSCENARIO 1.2's VehicleLightType -> CARLA's carla.VehicleLightState bits */
        static const char *const kinds[] = {"daytimeRunningLights", "lowBeam", "highBeam", "fogLights",
                                            "fogLightsFront", "fogLightsRear", "brakeLights", "warningLights",
                                            "indicatorLeft", "indicatorRight", "reversingLights", "licensePlateIllumination",
                                            "specialPurposeLights", NULL};
        static const uint32_t bits[] = {SN_LIGHT_POSITION, SN_LIGHT_LOW_BEAM, SN_LIGHT_HIGH_BEAM, SN_LIGHT_FOG,
                                        SN_LIGHT_FOG, SN_LIGHT_FOG, SN_LIGHT_BRAKE,
                                        SN_LIGHT_LEFT_BLINKER | SN_LIGHT_RIGHT_BLINKER, SN_LIGHT_LEFT_BLINKER,
                                        SN_LIGHT_RIGHT_BLINKER, SN_LIGHT_REVERSE, SN_LIGHT_POSITION, SN_LIGHT_SPECIAL1};
        int k;
        if (!enumer(p, vl, "vehicleLightType", true, 0, kinds, &k))
            return -1;
        a->light = bits[k];
    }
    static const char *const modes[] = {"off", "on", "flashing", NULL};
    int m;
    if (!enumer(p, st, "mode", true, 0, modes, &m))
        return -1;
    a->value = m;
    double lum, fon, foff;
    if (!num(p, st, "luminousIntensity", false, 0, 0, 1e9, &lum) ||
        !num(p, st, "flashingOnDuration", false, 0, 0, 1e6, &fon) ||
        !num(p, st, "flashingOffDuration", false, 0, 0, 1e6, &foff))
        return -1;
    if (sn_xml_child(st, "Color"))
        warn(p, sn_xml_child(st, "Color"), "not played: CARLA's vehicle lights have their own colours");
    if (has_attr(st, "luminousIntensity") || has_attr(st, "flashingOnDuration") || has_attr(st, "flashingOffDuration"))
        warn(p, st, "luminousIntensity and the flashing durations are not played: CARLA's light state is on or off "
                    "(flashing is on; a blinker blinks at its own rate)");
    if (tt > 0)
        warn(p, d, "transitionTime: the light switches at the end of it (CARLA's lights have no dimming)");
    return i;
}
