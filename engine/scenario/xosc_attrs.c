/* xosc_attrs.c — reading an OpenSCENARIO element's attributes (parameters substituted,
** ranges checked), its errors (FILE:LINE and the element) and its warnings (once per element kind). */
#include "xosc_parse.h"

#include "../core/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sn_xp_fail(P *p, N n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sn_xml_failv(p->err, &p->failed, p->file, n, fmt, ap);
    va_end(ap);
    return false;
}

void sn_xp_warn(P *p, N n, const char *fmt, ...)
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
N sn_xp_choice(P *p, N n)
{
    N c = sn_xml_next_el(n->children);
    if (!c)
        return sn_xp_fail(p, n, "expected a child element"), NULL;
    if (sn_xml_next_el(c->next))
        return sn_xp_fail(p, sn_xml_next_el(c->next), "only one element is allowed here, after <%s>", sn_xml_name(c)), NULL;
    return c;
}

/* Attribute `a` of n after parameter substitution into out[VAL]; false when absent (required:
** an error) or when its parameters cannot be resolved (an error). */
/* Marks attribute a of n as read (libxml2's _private, the application's): what is never read is
** named in a warning at the end (unread_attributes). */
void sn_xp_seen(N n, const char *a)
{
    xmlAttrPtr at = xmlHasProp(n, (const xmlChar *)a);
    n->_private = (void *)1;
    if (at)
        at->_private = (void *)1;
}

bool sn_xp_attr(P *p, N n, const char *a, bool required, char *out)
{
    sn_xp_seen(n, a);
    xmlChar *v = xmlGetProp(n, (const xmlChar *)a);
    if (!v) {
        if (required)
            sn_xp_fail(p, n, "missing attribute '%s'", a);
        return false;
    }
    char why[300];
    bool ok = sn_xparam_subst(&p->x->params, (const char *)v, out, VAL, why, sizeof why);
    xmlFree(v);
    if (!ok)
        return sn_xp_fail(p, n, "attribute '%s': %s", a, why);
    return true;
}

bool sn_xp_has_attr(N n, const char *a)
{
    sn_xp_seen(n, a);
    return xmlHasProp(n, (const xmlChar *)a) != NULL;
}

/* An attribute's text into v: 1 when present, 0 when absent and not required, -1 (p->err filled)
** when absent and required or unreadable. */
static int attr_value(P *p, N n, const char *a, bool required, char v[VAL])
{
    if (!sn_xp_has_attr(n, a))
        return required ? (sn_xp_fail(p, n, "missing attribute '%s'", a), -1) : 0;
    return sn_xp_attr(p, n, a, true, v) ? 1 : -1;
}

/* A number attribute: finite, within [lo, hi]. Absent and not required: *out = def. */
bool sn_xp_num(P *p, N n, const char *a, bool required, double def, double lo, double hi, double *out)
{
    char v[VAL];
    int got = attr_value(p, n, a, required, v);
    if (got < 0)
        return false;
    if (got == 0) {
        *out = def;
        return true;
    }
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    while (*end == ' ')
        end++;
    if (end == v || *end)
        return sn_xp_fail(p, n, "attribute '%s' is '%s', not a number", a, v);
    if (!isfinite(d))
        return sn_xp_fail(p, n, "attribute '%s' is %s, not a finite number", a, v);
    if (d < lo || d > hi)
        return sn_xp_fail(p, n, "attribute '%s' is %s, outside [%g, %g]", a, v, lo, hi);
    *out = d;
    return true;
}

bool sn_xp_integer(P *p, N n, const char *a, bool required, int def, int *out)
{
    double d;
    if (!sn_xp_num(p, n, a, required, def, -2147483647.0, 2147483647.0, &d))
        return false;
    if (d != floor(d))
        return sn_xp_fail(p, n, "attribute '%s' is %g, not a whole number", a, d);
    *out = (int)d;
    return true;
}

bool sn_xp_boolean(P *p, N n, const char *a, bool def, bool *out)
{
    char v[VAL];
    if (!sn_xp_has_attr(n, a)) {
        *out = def;
        return true;
    }
    if (!sn_xp_attr(p, n, a, true, v))
        return false;
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0)
        *out = true;
    else if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0)
        *out = false;
    else
        return sn_xp_fail(p, n, "attribute '%s' is '%s', expected true or false", a, v);
    return true;
}

/* An enumeration attribute: the index of its value in names (NULL-terminated). */
bool sn_xp_enumer(P *p, N n, const char *a, bool required, int def, const char *const *names, int *out)
{
    char v[VAL];
    int got = attr_value(p, n, a, required, v);
    if (got < 0)
        return false;
    if (got == 0) {
        *out = def;
        return true;
    }
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], v) == 0) {
            *out = i;
            return true;
        }
    char list[300] = "";
    for (int i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return sn_xp_fail(p, n, "attribute '%s' is '%s', expected one of %s", a, v, list);
}

char *sn_xp_dup_attr(P *p, N n, const char *a, bool required)
{
    char v[VAL];
    if (!sn_xp_attr(p, n, a, required, v))
        return p->failed ? NULL : sn_strdup("");
    char *s = sn_strdup(v);
    if (!s)
        sn_xp_fail(p, n, "out of memory");
    return s;
}

bool sn_xp_unsupported(P *p, N n)
{
    return sn_xp_fail(p, n, "<%s> is not supported by sensim (docs/openscenario.md lists what is)", sn_xml_name(n));
}

bool sn_xp_unknown(P *p, N n, N parent)
{
    return sn_xp_fail(p, n, "unknown element <%s> in <%s>", sn_xml_name(n), sn_xml_name(parent));
}

int sn_xp_entity_index(P *p, N n, const char *a)
{
    char v[VAL];
    if (!sn_xp_attr(p, n, a, true, v))
        return -1;
    for (uint32_t i = 0; i < p->x->n_ents; i++)
        if (strcmp(p->x->ents[i].name, v) == 0)
            return (int)i;
    sn_xp_fail(p, n, "%s '%s' names no entity of this scenario", a, v);
    return -1;
}

/* A ParameterAssignment's parameterRef: the parameter's name. esmini also takes "$name" there
** (resources/xosc/synchronize.xosc does so): the name, not the value it would substitute. */
char *sn_xp_param_ref_name(P *p, N a)
{
    sn_xp_seen(a, "parameterRef");
    xmlChar *v = xmlGetProp(a, (const xmlChar *)"parameterRef");
    if (!v) {
        sn_xp_fail(p, a, "missing attribute 'parameterRef'");
        return NULL;
    }
    const char *name = (const char *)v;
    if (name[0] == '$' && name[1] != '{')
        name++;
    char *s = sn_strdup(name);
    xmlFree(v);
    if (!s)
        sn_xp_fail(p, a, "out of memory");
    return s;
}
