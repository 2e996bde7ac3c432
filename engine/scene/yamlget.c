/* yamlget.c — typed getters on a YAML node for scenes and batch specs (yamlget.h). */
#include "yamlget.h"

#include "../core/error.h"
#include "../core/util.h"
#include <sensim/numtext.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_yget_fail(const sn_yget *g, const sn_ynode *n, const char *fmt, const char *a, const char *b)
{
    char what[512], where[SN_ERROR_MAX];
    sn_format(what, sizeof what, fmt, a ? a : "", b ? b : "");
    static const sn_ynode start = {.line = 1, .col = 1};
    g->where(g->user, n ? n : &start, where, sizeof where);
    return sn_fail(g->err, SN_E_INVALID, "%s: %s", where, what);
}

sn_status sn_yget_expect(const sn_yget *g, const sn_ynode *n, sn_ynode_kind k, const char *what)
{
    if (n->kind != k) {
        char buf[256];
        snprintf(buf, sizeof buf, "expected %s for %s, found %s", sn_ynode_kind_name(k), what,
                 sn_ynode_kind_name(n->kind));
        return sn_yget_fail(g, n, "%s%s", buf, NULL);
    }
    return SN_OK;
}

sn_status sn_yget_keys(const sn_yget *g, const sn_ynode *map, const char *const *allowed, const char *in)
{
    for (size_t i = 0; i < map->n; i += 2) {
        const sn_ynode *k = map->items[i];
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, k->text) == 0)
                ok = true;
        if (!ok) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 1);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            char buf[900];
            snprintf(buf, sizeof buf, "unknown key '%s' in %s (expected one of: %s)", k->text, in, list);
            return sn_yget_fail(g, k, "%s%s", buf, NULL);
        }
    }
    return SN_OK;
}

sn_status sn_yget_number(const sn_yget *g, const sn_ynode *n, const char *what, double *out)
{
    sn_status st = sn_yget_expect(g, n, SN_Y_SCALAR, what);
    if (st)
        return st;
    double v;
    if (!sn_text_number(n->text, &v)) /* numtext.h: the rules of specs, attributes and options too */
        return sn_yget_fail(g, n, "expected a number for %s, found '%s'", what, n->text);
    *out = v;
    return SN_OK;
}

sn_status sn_yget_uint(const sn_yget *g, const sn_ynode *n, const char *what, uint64_t max, uint64_t *out)
{
    sn_status st = sn_yget_expect(g, n, SN_Y_SCALAR, what);
    if (st)
        return st;
    /* digits only (numtext.h): strtoull alone would take ' 5', '+3' and '-1' (as 2^64 - 1) */
    uint64_t v;
    if (!sn_text_uint(n->text, max, &v))
        return sn_yget_fail(g, n, "expected a whole number >= 0 for %s, found '%s'", what, n->text);
    *out = v;
    return SN_OK;
}

sn_status sn_yget_bool(const sn_yget *g, const sn_ynode *n, const char *what, bool *out)
{
    sn_status st = sn_yget_expect(g, n, SN_Y_SCALAR, what);
    if (st)
        return st;
    if (sn_streq_nocase(n->text, "true"))
        *out = true;
    else if (sn_streq_nocase(n->text, "false"))
        *out = false;
    else
        return sn_yget_fail(g, n, "expected true or false for %s, found '%s'", what, n->text);
    return SN_OK;
}

sn_status sn_yget_vec3(const sn_yget *g, const sn_ynode *n, const char *what, sn_vec3 *out)
{
    sn_status st = sn_yget_expect(g, n, SN_Y_SEQ, what);
    if (st)
        return st;
    if (n->n != 3)
        return sn_yget_fail(g, n, "expected 3 numbers [x, y, z] for %s", what, NULL);
    double v[3];
    for (int i = 0; i < 3; i++)
        if ((st = sn_yget_number(g, n->items[i], what, &v[i])))
            return st;
    *out = (sn_vec3){v[0], v[1], v[2]};
    return SN_OK;
}

sn_status sn_yget_point(const sn_yget *g, const sn_ynode *n, const char *what, sn_vec3 *out)
{
    sn_status st = sn_yget_vec3(g, n, what, out);
    if (!st && (fabs(out->x) > SN_LIMIT_COORD || fabs(out->y) > SN_LIMIT_COORD || fabs(out->z) > SN_LIMIT_COORD)) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s must be within %g m of the origin (SN_LIMIT_COORD)", what, SN_LIMIT_COORD);
        return sn_yget_fail(g, n, "%s%s", buf, NULL);
    }
    return st;
}

sn_status sn_yget_string(const sn_yget *g, const sn_ynode *n, const char *what, char **out)
{
    sn_status st = sn_yget_expect(g, n, SN_Y_SCALAR, what);
    if (st)
        return st;
    free(*out);
    *out = sn_strdup(n->text);
    return *out ? SN_OK : sn_fail(g->err, SN_E_NOMEM, "out of memory");
}
