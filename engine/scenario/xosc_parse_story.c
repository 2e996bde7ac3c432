/* xosc_parse_story.c — the storyboard (Init, Story, Act, ManeuverGroup, Maneuver, Event) and the
** entities (ScenarioObject, its vehicle, pedestrian or object and its controller). */
#include "xosc_parse.h"

#include "../core/util.h"

#include <stdlib.h>
#include <string.h>

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
    if (k != SN_XK_STORYBOARD && !(e->name = sn_xp_dup_attr(p, n, "name", true)))
        return -1;
    if (k == SN_XK_STORYBOARD)
        e->name = sn_strdup("Storyboard");
    if (parent >= 0) {
        sn_xelem *pe = &p->x->elems[parent];
        int *nw = realloc(pe->children, (pe->n_children + 1) * sizeof *nw);
        if (!nw)
            return sn_xp_fail(p, n, "out of memory"), -1;
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
    if (!sn_xp_enumer(p, n, "priority", true, 0, prios, &pr) || !sn_xp_integer(p, n, "maximumExecutionCount", false, 1, &mx))
        return false;
    if (mx < 1)
        return sn_xp_fail(p, n, "maximumExecutionCount %d is not >= 1", mx);
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
                int ai = sn_xp_noop(p, c, "Action", "an Action without a child (the schema requires one) does nothing: it "
                                              "ends at once");
                if (ai < 0)
                    return false;
                p->x->elems[a].action = ai;
                p->x->elems[a].global = true;
                any = true;
                continue;
            }
            N body = sn_xp_choice(p, c);
            if (!body)
                return false;
            int ai = sn_xp_parse_action_body(p, sn_xml_is(body, "PrivateAction") || sn_xml_is(body, "GlobalAction") ||
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
                return sn_xp_fail(p, body, "a global action inside a PrivateAction");
            if (!sn_xml_is(body, "PrivateAction") && !sn_xml_is(body, "GlobalAction") &&
                !sn_xml_is(body, "UserDefinedAction"))
                return sn_xp_unknown(p, body, c);
            any = true;
        } else if (sn_xml_is(c, "StartTrigger")) {
            if ((p->x->elems[ev].start = sn_xp_parse_trigger(p, c)) < 0)
                return false;
            if (!p->x->trigs[p->x->elems[ev].start].n) /* an empty StartTrigger: none (start at once, as esmini) */
                p->x->elems[ev].start = -1;
        } else {
            return sn_xp_unknown(p, c, n);
        }
    }
    return any || sn_xp_fail(p, n, "an Event needs at least one Action");
}

static bool parse_maneuver(P *p, N n, int parent)
{
    int m = new_elem(p, n, SN_XK_MANEUVER, parent);
    if (m < 0)
        return false;
    SN_XML_EACH(c, n) {
        if (sn_xml_is(c, "ParameterDeclarations")) {
            if (!sn_xp_parse_params(p, c))
                return false;
        } else if (sn_xml_is(c, "Event")) {
            if (!parse_event(p, c, m))
                return false;
        } else {
            return sn_xp_unknown(p, c, n);
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
    if (g < 0 || !sn_xp_integer(p, n, "maximumExecutionCount", true, 1, &mx))
        return false;
    if (mx < 1)
        return sn_xp_fail(p, n, "maximumExecutionCount %d is not >= 1", mx);
    p->x->elems[g].max_exec = (uint32_t)mx;
    N actors = sn_xml_child(n, "Actors");
    if (!actors)
        return sn_xp_fail(p, n, "needs Actors");
    bool sel;
    if (!sn_xp_boolean(p, actors, "selectTriggeringEntities", false, &sel))
        return false;
    p->x->elems[g].select_trig = sel;
    if (sel && p->x->elems[parent].start < 0 && !has_start_trigger(actors))
        return sn_xp_fail(p, actors, "selectTriggeringEntities=\"true\" needs its Act's StartTrigger with an entity condition");
    SN_XML_EACH(c, actors) {
        if (!sn_xml_is(c, "EntityRef"))
            return sn_xp_unknown(p, c, actors);
        int e = sn_xp_entity_index(p, c, "entityRef");
        if (e < 0)
            return false;
        sn_xelem *ge = &p->x->elems[g];
        int *nw = realloc(ge->actors, (ge->n_actors + 1) * sizeof *nw);
        if (!nw)
            return sn_xp_fail(p, c, "out of memory");
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
            N entry = sn_xp_catalog_entry(p, c, &mark, &file);
            if (!entry)
                return false;
            if (!sn_xml_is(entry, "Maneuver"))
                return sn_xp_fail(p, c, "the catalog entry is a <%s>, not a Maneuver", sn_xml_name(entry));
            p->file = file;
            bool ok = parse_maneuver(p, entry, g);
            p->file = outer;
            p->declared = NULL;
            sn_xp_params_truncate(&p->x->params, mark);
            if (!ok)
                return false;
        } else {
            return sn_xp_unknown(p, c, n);
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
            if (!sn_xp_parse_params(p, c))
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
                    int t = sn_xp_parse_trigger(p, d);
                    if (t < 0)
                        return false;
                    if (sn_xml_is(d, "StartTrigger"))
                        p->x->elems[a].start = p->x->trigs[t].n ? t : -1; /* empty: start at once */
                    else
                        p->x->elems[a].stop = t;
                } else {
                    return sn_xp_unknown(p, d, c);
                }
            }
        } else {
            return sn_xp_unknown(p, c, n);
        }
    }
    return true;
}

static bool parse_init(P *p, N n)
{
    SN_XML_EACH(c, n)
        if (!sn_xml_is(c, "Actions"))
            return sn_xp_unknown(p, c, n);
    N actions = sn_xml_child(n, "Actions");
    if (!actions)
        return true;
    SN_XML_EACH(c, actions) {
        if (sn_xml_is(c, "GlobalAction") || sn_xml_is(c, "UserDefinedAction")) {
            int a = sn_xp_parse_action_body(p, c);
            if (a < 0)
                return false;
            int *nw = realloc(p->x->init_globals, (p->x->n_init_globals + 1) * sizeof *nw);
            if (!nw)
                return sn_xp_fail(p, c, "out of memory");
            p->x->init_globals = nw;
            p->x->init_globals[p->x->n_init_globals++] = a;
        } else if (sn_xml_is(c, "Private")) {
            int e = sn_xp_entity_index(p, c, "entityRef");
            if (e < 0)
                return false;
            SN_XML_EACH(pa, c) {
                if (!sn_xml_is(pa, "PrivateAction"))
                    return sn_xp_unknown(p, pa, c);
                int a = sn_xp_parse_action_body(p, pa);
                if (a < 0)
                    return false;
                sn_xinit *nw = realloc(p->x->inits, (p->x->n_inits + 1) * sizeof *nw);
                if (!nw)
                    return sn_xp_fail(p, pa, "out of memory");
                p->x->inits = nw;
                p->x->inits[p->x->n_inits++] = (sn_xinit){e, a};
            }
        } else {
            return sn_xp_unknown(p, c, actions);
        }
    }
    return true;
}

bool sn_xp_parse_storyboard(P *p, N n)
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
            int t = sn_xp_parse_trigger(p, c);
            if (t < 0)
                return false;
            p->x->elems[0].stop = t;
            has_stop = true;
        } else {
            return sn_xp_unknown(p, c, n);
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
        return sn_xp_fail(p, n, "needs a BoundingBox");
    N c = sn_xml_child(b, "Center"), d = sn_xml_child(b, "Dimensions");
    if (!c || !d)
        return sn_xp_fail(p, b, "needs Center and Dimensions");
    if (!sn_xp_num(p, c, "x", true, 0, -100, 100, &e->cx) || !sn_xp_num(p, c, "y", true, 0, -100, 100, &e->cy) ||
        !sn_xp_num(p, c, "z", true, 0, -100, 100, &e->cz) || !sn_xp_num(p, d, "length", true, 0, 0, 200, &e->len) ||
        !sn_xp_num(p, d, "width", true, 0, 0, 100, &e->wid) || !sn_xp_num(p, d, "height", true, 0, 0, 100, &e->hgt))
        return false;
    if (e->len < 0.05 || e->wid < 0.05 || e->hgt < 0.05)
        return sn_xp_fail(p, d, "a dimension below 0.05 m (length %g, width %g, height %g)", e->len, e->wid, e->hgt);
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

/* A Vehicle, Pedestrian or MiscObject (inline or a catalog's entry) into e. */
static bool parse_entity_body(P *p, N body, sn_xentity *e)
{
    if (!sn_xml_is(body, "Vehicle") && !sn_xml_is(body, "Pedestrian") && !sn_xml_is(body, "MiscObject"))
        return sn_xp_fail(p, body, "a ScenarioObject's catalog entry must be a Vehicle, Pedestrian or MiscObject");
    if (sn_xml_child(body, "ParameterDeclarations") && !sn_xp_parse_params(p, sn_xml_child(body, "ParameterDeclarations")))
        return false;
    if (!parse_bbox(p, body, e))
        return false;
    if (sn_xml_is(body, "Vehicle")) {
        const char *const *cats = sn_xosc_vehicle_cats;
        int k;
        if (!sn_xp_enumer(p, body, "vehicleCategory", true, 0, cats, &k))
            return false;
        e->kind = SN_XEN_VEHICLE;
        e->category = sn_strdup(cats[k]);
        e->blueprint = sn_xosc_vehicle_blueprint(cats[k], e->len);
        N perf = sn_xml_child(body, "Performance");
        if (!perf)
            return sn_xp_fail(p, body, "needs a Performance");
        if (!sn_xp_num(p, perf, "maxSpeed", true, 0, 0, 1000, &e->max_speed) ||
            !sn_xp_num(p, perf, "maxAcceleration", true, 0, 0, 1e6, &e->max_acc) ||
            !sn_xp_num(p, perf, "maxDeceleration", true, 0, 0, 1e6, &e->max_dec))
            return false;
    } else if (sn_xml_is(body, "Pedestrian")) {
        e->kind = SN_XEN_PEDESTRIAN;
        char cat[VAL];
        if (!sn_xp_attr(p, body, "pedestrianCategory", true, cat))
            return false;
        if (strcmp(cat, "pedestrian") != 0)
            return sn_xp_fail(p, body, "pedestrianCategory '%s' is not supported (pedestrian is; wheelchair and "
                                 "animal are not)", cat);
        e->category = sn_strdup(cat);
        e->blueprint = "walker.pedestrian";
    } else {
        e->kind = SN_XEN_MISC;
        char cat[VAL];
        if (!sn_xp_attr(p, body, "miscObjectCategory", true, cat))
            return false;
        e->category = sn_strdup(cat);
        e->blueprint = "static.prop.box";
    }
    return e->category || sn_xp_fail(p, body, "out of memory");
}

bool sn_xp_parse_entities(P *p, N n)
{
    SN_XML_EACH(o, n) {
        if (sn_xml_is(o, "EntitySelection"))
            return sn_xp_unsupported(p, o);
        if (!sn_xml_is(o, "ScenarioObject"))
            return sn_xp_unknown(p, o, n);
        char name[VAL];
        if (!sn_xp_attr(p, o, "name", true, name))
            return false;
        for (uint32_t i = 0; i < p->x->n_ents; i++)
            if (!strcmp(p->x->ents[i].name, name))
                return sn_xp_fail(p, o, "a second entity named '%s'", name);
        if (p->x->n_ents >= 10000)
            return sn_xp_fail(p, o, "more than 10000 entities");
        sn_xentity *nw = realloc(p->x->ents, (p->x->n_ents + 1) * sizeof *nw);
        if (!nw)
            return sn_xp_fail(p, o, "out of memory");
        p->x->ents = nw;
        sn_xentity *e = &p->x->ents[p->x->n_ents];
        memset(e, 0, sizeof *e);
        e->line = sn_xml_line(o);
        if (!(e->name = sn_strdup(name)))
            return sn_xp_fail(p, o, "out of memory");
        p->x->n_ents++;
        N body = NULL;
        SN_XML_EACH(c, o) {
            if (sn_xml_is(c, "ObjectController")) {
                int ext = sn_xp_object_controller(p, c);
                if (ext < 0)
                    return false;
                e = &p->x->ents[p->x->n_ents - 1];
                e->external = ext == 1;
                e->unplayed_controller = ext == 0;
            } else if (sn_xml_is(c, "Vehicle") || sn_xml_is(c, "Pedestrian") || sn_xml_is(c, "MiscObject") ||
                       sn_xml_is(c, "CatalogReference")) {
                if (body)
                    return sn_xp_fail(p, c, "a second object in one ScenarioObject");
                body = c;
            } else if (sn_xml_is(c, "ExternalObjectReference")) {
                return sn_xp_unsupported(p, c);
            } else {
                return sn_xp_unknown(p, c, o);
            }
        }
        if (!body)
            return sn_xp_fail(p, o, "needs a Vehicle, Pedestrian or MiscObject");
        bool ok;
        if (sn_xml_is(body, "CatalogReference")) {
            uint32_t mark;
            const char *file, *outer = p->file;
            N entry = sn_xp_catalog_entry(p, body, &mark, &file);
            if (!entry)
                return false;
            p->file = file;
            ok = parse_entity_body(p, entry, e);
            p->file = outer;
            p->declared = NULL;
            sn_xp_params_truncate(&p->x->params, mark);
        } else {
            ok = parse_entity_body(p, body, e);
        }
        if (!ok)
            return false;
    }
    return true;
}
