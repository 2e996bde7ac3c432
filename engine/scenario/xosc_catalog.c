/* xosc_catalog.c — ParameterDeclarations (declared, overridden, truncated back) and catalogs:
** CatalogLocations' directories read at the first CatalogReference, and the entry it names. */
#include "xosc_parse.h"

#include "../core/infile.h"
#include "../core/util.h"

#include <libxml/parser.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---- */

bool sn_xp_parse_params(P *p, N n)
{
    if (n == p->declared) /* a catalog entry's: declared with its reference's assignments */
        return true;
    SN_XML_EACH(c, n) {
        if (!sn_xml_is(c, "ParameterDeclaration"))
            return sn_xp_unknown(p, c, n);
        sn_xp_seen(c, "name"), sn_xp_seen(c, "value"), sn_xp_seen(c, "parameterType");
        xmlChar *name = xmlGetProp(c, (const xmlChar *)"name");
        xmlChar *value = xmlGetProp(c, (const xmlChar *)"value");
        if (!name || !value || !name[0]) {
            xmlFree(name);
            xmlFree(value);
            return sn_xp_fail(p, c, "needs attributes 'name' and 'value'");
        }
        if (sn_xp_has_attr(c, "parameterType")) {
            static const char *const types[] = {"integer", "double", "string", "unsignedInt", "unsignedShort",
                                                "boolean", "dateTime", "int", NULL};
            int t;
            if (!sn_xp_enumer(p, c, "parameterType", true, 0, types, &t)) {
                xmlFree(name);
                xmlFree(value);
                return false;
            }
        }
        if (sn_xml_child(c, "ConstraintGroup"))
            sn_xp_warn(p, sn_xml_child(c, "ConstraintGroup"), "value constraints are not checked");
        bool ok = sn_xparam_set(&p->x->params, (const char *)name, (const char *)value, sn_xml_line(c), false);
        xmlFree(name);
        xmlFree(value);
        if (!ok)
            return sn_xp_fail(p, c, "out of memory");
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
            sn_xp_warn(p, at, "catalog directory '%s' does not exist: its entries are not found", p->cat_dirs[d]);
            continue;
        }
        if (!dir)
            return sn_xp_fail(p, at, "catalog directory '%s': %s", p->cat_dirs[d], strerror(errno));
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
                return sn_xp_fail(p, at, "out of memory");
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
                ok = sn_xp_fail(p, at, "catalog file '%s' is not well-formed XML", path);
                continue;
            }
            cat_doc *nw = realloc(p->cats, (p->n_cats + 1) * sizeof *nw);
            if (!nw || !(path[0] && (nw[p->n_cats].path = sn_strdup(path)))) {
                xmlFreeDoc(doc);
                if (nw)
                    p->cats = nw;
                ok = sn_xp_fail(p, at, "out of memory");
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

void sn_xp_params_truncate(sn_xparams *ps, uint32_t n)
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

N sn_xp_catalog_entry(P *p, N ref, uint32_t *mark, const char **file)
{
    char cat[VAL], entry[VAL];
    if (!sn_xp_attr(p, ref, "catalogName", true, cat) || !sn_xp_attr(p, ref, "entryName", true, entry))
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
        return sn_xp_fail(p, ref, "no entry '%s' in a catalog named '%s' (CatalogLocations lists %u director%s)", entry, cat,
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
            return sn_xp_fail(p, ref, "out of memory"), NULL;
        }
        uint32_t k = 0;
        SN_XML_EACH(a, pa) {
            if (!sn_xml_is(a, "ParameterAssignment") || !sn_xp_attr(p, a, "value", true, vals[k]) ||
                !(names[k] = sn_xp_param_ref_name(p, a))) {
                if (!p->failed)
                    sn_xp_unknown(p, a, pa);
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
    bool ok = !decl || sn_xp_parse_params(p, decl);
    p->file = outer;
    for (uint32_t k = 0; ok && k < nv; k++) {
        bool declared = false;
        for (uint32_t i = *mark; i < p->x->params.n; i++)
            declared |= !strcmp(p->x->params.v[i].name, names[k]);
        if (!declared)
            ok = sn_xp_fail(p, ref, "ParameterAssignment '%s': the entry '%s' declares no such parameter", names[k], entry);
        else if (!sn_xparam_set(&p->x->params, names[k], vals[k], sn_xml_line(ref), true))
            ok = sn_xp_fail(p, ref, "out of memory");
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
