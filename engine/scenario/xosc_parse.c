/* xosc_parse.c — an OpenSCENARIO XML file into sn_xosc (xosc.h), with libxml2.
**
** Every element is checked where it is read: an unknown element, a missing or malformed
** attribute, a dangling entity or storyboard reference, a negative duration or a speed that is
** not a finite number is an error naming FILE:LINE and the element. What the standard defines
** but sensim does not play is an error naming it too, except elements that change nothing sensim
** simulates (VisibilityAction, CustomCommandAction, ObjectController, ...), which are warnings,
** given once per element kind. docs/openscenario.md lists both. */
#include "xosc_parse.h"

#include "../core/infile.h"
#include "../core/util.h"
#include "../core/xmlread.h"

#include <libxml/parser.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the document ---- */


/* FileHeader: the revision sensim plays (1.0 to 1.3) and the descriptive attributes. */
static bool parse_header(P *p, N root, N h)
{
    if (!h)
        return sn_xp_fail(p, root, "needs a FileHeader");
    if (!sn_xp_integer(p, h, "revMajor", true, 1, &p->x->rev_major) || !sn_xp_integer(p, h, "revMinor", true, 0, &p->x->rev_minor))
        return false;
    if (p->x->rev_major != 1 || p->x->rev_minor > 3)
        return sn_xp_fail(p, h, "revision %d.%d: sensim plays OpenSCENARIO 1.0 to 1.3", p->x->rev_major, p->x->rev_minor);
    return (p->x->description = sn_xp_dup_attr(p, h, "description", false)) &&
           (p->x->author = sn_xp_dup_attr(p, h, "author", false)) && (p->x->date = sn_xp_dup_attr(p, h, "date", false));
}

static bool parse_variables(P *p, N c)
{
    SN_XML_EACH(v, c) {
        if (!sn_xml_is(v, "VariableDeclaration"))
            return sn_xp_unknown(p, v, c);
        char name[VAL], value[VAL];
        if (!sn_xp_attr(p, v, "name", true, name) || !sn_xp_attr(p, v, "value", true, value))
            return false;
        if (!sn_xparam_set(&p->x->params, name, value, sn_xml_line(v), false))
            return sn_xp_fail(p, v, "out of memory");
    }
    return true;
}

/* CatalogLocations: each Directory's path, relative to the scenario's folder unless absolute. */
static bool parse_catalog_locations(P *p, N c)
{
    SN_XML_EACH(k, c) {
        N dir = sn_xml_child(k, "Directory");
        char d[VAL];
        if (!dir)
            return sn_xp_fail(p, k, "needs a Directory");
        if (!sn_xp_attr(p, dir, "path", true, d))
            return false;
        char path[2 * VAL + 8];
        snprintf(path, sizeof path, "%s/%s", d[0] == '/' ? "" : p->x->dir, d);
        char **nw = realloc(p->cat_dirs, (p->n_cat_dirs + 1) * sizeof *nw);
        if (!nw || !(nw[p->n_cat_dirs] = sn_strdup(d[0] == '/' ? d : path))) {
            if (nw)
                p->cat_dirs = nw;
            return sn_xp_fail(p, dir, "out of memory");
        }
        p->cat_dirs = nw;
        p->n_cat_dirs++;
    }
    return true;
}

/* RoadNetwork: the OpenDRIVE map (LogicFile, checked to open), its traffic signal controllers. */
static bool parse_road_network(P *p, N c)
{
    SN_XML_EACH(d, c) {
        if (sn_xml_is(d, "LogicFile")) {
            char f[VAL];
            if (!sn_xp_attr(p, d, "filepath", true, f))
                return false;
            char path[2 * VAL + 8];
            if (f[0] == '/')
                snprintf(path, sizeof path, "%s", f);
            else
                snprintf(path, sizeof path, "%s/%s", p->x->dir, f);
            FILE *t = fopen(path, "rb");
            if (!t)
                return sn_xp_fail(p, d, "filepath '%s': cannot open %s: %s", f, path, strerror(errno));
            fclose(t);
            free(p->x->logic_file);
            if (!(p->x->logic_file = sn_strdup(path)))
                return sn_xp_fail(p, d, "out of memory");
            p->x->logic_line = sn_xml_line(d);
        } else if (sn_xml_is(d, "SceneGraphFile")) {
            sn_xp_warn(p, d, "ignored: sensim builds the scene's geometry from the OpenDRIVE map");
        } else if (sn_xml_is(d, "TrafficSignals")) {
            if (sn_xp_parse_signal_controllers(p, d) < 0)
                return false;
        } else if (sn_xml_is(d, "UsedArea")) {
            if (sn_xml_next_el(d->children))
                return sn_xp_unsupported(p, d);
        } else {
            return sn_xp_unknown(p, d, c);
        }
    }
    return true;
}

/* StoryboardElementStateCondition references, once every element is known. */
static bool resolve_state_refs(P *p)
{
    for (uint32_t i = 0; i < p->x->n_conds; i++) {
        sn_xcond *c = &p->x->conds[i];
        if (c->kind != SN_XC_STATE)
            continue;
        for (uint32_t k = 0; k < p->x->n_elems && c->elem < 0; k++)
            if ((int)p->x->elems[k].kind == c->elem_kind && !strcmp(p->x->elems[k].name, c->elem_name))
                c->elem = (int)k;
        if (c->elem < 0) {
            sn_fail(p->err, SN_E_INVALID, "%s:%d: StoryboardElementStateCondition: storyboardElementRef '%s' names no %s "
                    "of this scenario", p->file, c->line, c->elem_name, sn_xp_elem_kinds[c->elem_kind]);
            p->failed = true;
            return false;
        }
    }
    return true;
}

static bool parse_root(P *p, N root)
{
    if (!root || !sn_xml_is(root, "OpenSCENARIO"))
        return sn_xp_fail(p, root, "the root element is <%s>, not <OpenSCENARIO>", root ? sn_xml_name(root) : "(none)");
    if (!parse_header(p, root, sn_xml_child(root, "FileHeader")))
        return false;
    bool storyboard = false;
    SN_XML_EACH(c, root) {
        bool ok = true;
        if (sn_xml_is(c, "FileHeader")) {
            SN_XML_EACH(d, c)
                if (!sn_xml_is(d, "License") && !sn_xml_is(d, "Properties"))
                    return sn_xp_unknown(p, d, c);
        } else if (sn_xml_is(c, "ParameterDeclarations")) {
            ok = sn_xp_parse_params(p, c);
        } else if (sn_xml_is(c, "VariableDeclarations")) {
            ok = parse_variables(p, c);
        } else if (sn_xml_is(c, "CatalogLocations")) {
            ok = parse_catalog_locations(p, c);
        } else if (sn_xml_is(c, "RoadNetwork")) {
            ok = parse_road_network(p, c);
        } else if (sn_xml_is(c, "Entities")) {
            ok = sn_xp_parse_entities(p, c);
        } else if (sn_xml_is(c, "Storyboard")) {
            ok = storyboard = sn_xp_parse_storyboard(p, c);
        } else if (sn_xml_is(c, "ParameterValueDistribution") || sn_xml_is(c, "Catalog")) {
            return sn_xp_fail(p, c, "<%s> is not a scenario: sensim plays ScenarioDefinitions only", sn_xml_name(c));
        } else {
            return sn_xp_unknown(p, c, root);
        }
        if (!ok)
            return false;
    }
    if (!storyboard)
        return sn_xp_fail(p, root, "needs a Storyboard");
    return resolve_state_refs(p);
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
        return sn_xp_fail(p, at, "parameter '%s': %s", p->x->params.v[i].name, why);
    }
    return true;
}

/* Declarations at the top of the file, before anything reads them: --set replaces their values. */
static bool top_params(P *p, N root)
{
    N d = root ? sn_xml_child(root, "ParameterDeclarations") : NULL;
    return !d || sn_xp_parse_params(p, d);
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
