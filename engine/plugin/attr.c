#include "attr.h"

#include "../core/error.h"
#include <sensim/numtext.h>
#include "../core/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sn_attr_type_name(sn_attr_type t)
{
    switch (t) {
    case SN_ATTR_BOOL: return "bool";
    case SN_ATTR_INT: return "int";
    case SN_ATTR_FLOAT: return "float";
    case SN_ATTR_STRING: return "string";
    case SN_ATTR_RGB: return "rgb";
    case SN_ATTR_ENUM: return "enum";
    }
    return "?";
}

/* an optional '-' then digits (numtext.h): strtoll alone takes ' 5' and '+3' */
static bool parse_ll(const char *s, long long *v) { return sn_text_int(s, v); }

sn_status sn_attr_parse(const sn_attr_def *def, const char *text, sn_value *out, char *why, size_t why_n)
{
    memset(out, 0, sizeof *out);
    out->type = def->type;
    out->s = text;
    switch (def->type) {
    case SN_ATTR_BOOL:
        if (sn_streq_nocase(text, "true") || strcmp(text, "1") == 0)
            out->b = true;
        else if (sn_streq_nocase(text, "false") || strcmp(text, "0") == 0)
            out->b = false;
        else {
            snprintf(why, why_n, "expected a bool (true or false), found '%s'", text);
            return SN_E_INVALID;
        }
        return SN_OK;
    case SN_ATTR_INT: {
        long long v;
        if (!parse_ll(text, &v)) {
            snprintf(why, why_n, "expected an int, found '%s'", text);
            return SN_E_INVALID;
        }
        out->i = v;
        out->f = (double)v;
        if (def->has_range && (out->f < def->min || out->f > def->max)) {
            snprintf(why, why_n, "%lld is outside the range [%g, %g]", v, def->min, def->max);
            return SN_E_RANGE;
        }
        return SN_OK;
    }
    case SN_ATTR_FLOAT: {
        double v;
        if (!sn_text_number(text, &v)) { /* numtext.h: a scene's number rules */
            snprintf(why, why_n, "expected a float, found '%s'", text);
            return SN_E_INVALID;
        }
        out->f = v;
        if (def->has_range && (v < def->min || v > def->max)) {
            snprintf(why, why_n, "%g is outside the range [%g, %g]", v, def->min, def->max);
            return SN_E_RANGE;
        }
        return SN_OK;
    }
    case SN_ATTR_STRING:
        return SN_OK;
    case SN_ATTR_RGB: {
        long long c[3];
        char buf[64];
        int commas = 0;
        for (const char *p = text; *p; p++)
            commas += *p == ',';
        if (strlen(text) >= sizeof buf || commas != 2) /* strtok would skip empty parts: "1,2,3," */
            goto bad_rgb;
        strcpy(buf, text);
        char *save = NULL, *tok = strtok_r(buf, ",", &save);
        int k = 0;
        for (; tok && k < 3; k++, tok = strtok_r(NULL, ",", &save)) {
            while (*tok == ' ')
                tok++;
            size_t len = strlen(tok);
            while (len && tok[len - 1] == ' ')
                tok[--len] = 0;
            if (!parse_ll(tok, &c[k]) || c[k] < 0 || c[k] > 255)
                goto bad_rgb;
        }
        if (k != 3 || tok)
            goto bad_rgb;
        for (k = 0; k < 3; k++)
            out->rgb[k] = (uint8_t)c[k];
        return SN_OK;
    bad_rgb:
        snprintf(why, why_n, "expected a colour 'r,g,b' with each 0..255, found '%s'", text);
        return SN_E_INVALID;
    }
    case SN_ATTR_ENUM:
        for (int64_t i = 0; def->choices && def->choices[i]; i++) {
            if (strcmp(def->choices[i], text) == 0) {
                out->i = i;
                out->s = def->choices[i];
                return SN_OK;
            }
        }
        {
            size_t off = (size_t)snprintf(why, why_n, "'%s' is not one of:", text);
            for (int i = 0; def->choices && def->choices[i] && off < why_n; i++)
                off += (size_t)snprintf(why + off, why_n - off, " %s", def->choices[i]);
        }
        return SN_E_INVALID;
    }
    snprintf(why, why_n, "unknown attribute type %d", (int)def->type);
    return SN_E_INVALID;
}

static bool valid_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

sn_status sn_attr_table_check(const sn_attr_def *defs, uint32_t n, size_t stride, sn_error *err)
{
    if (n && !defs)
        return sn_fail(err, SN_E_INVALID, "attribute table is NULL but n_attrs is %u", n);
    if (n > 256)
        return sn_fail(err, SN_E_INVALID, "too many attributes (%u, at most 256)", n);
    for (uint32_t i = 0; i < n; i++) {
        const sn_attr_def *d = sn_attr_at(defs, stride, i);
        char why[256];
        sn_value v;
        if (!valid_name(d->name))
            return sn_fail(err, SN_E_INVALID, "attribute %u: name '%s' is not [a-z0-9_]+", i,
                           d->name ? d->name : "(null)");
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(sn_attr_at(defs, stride, j)->name, d->name) == 0)
                return sn_fail(err, SN_E_INVALID, "attribute '%s' is defined twice", d->name);
        if ((unsigned)d->type > SN_ATTR_ENUM)
            return sn_fail(err, SN_E_INVALID, "attribute '%s': unknown type %d", d->name, (int)d->type);
        if (d->type == SN_ATTR_ENUM && (!d->choices || !d->choices[0]))
            return sn_fail(err, SN_E_INVALID, "attribute '%s': an enum needs choices", d->name);
        if (d->has_range && (d->type != SN_ATTR_INT && d->type != SN_ATTR_FLOAT))
            return sn_fail(err, SN_E_INVALID, "attribute '%s': only int and float take a range", d->name);
        if (d->has_range && !(d->min <= d->max))
            return sn_fail(err, SN_E_INVALID, "attribute '%s': range [%g, %g] is empty", d->name, d->min, d->max);
        if (!d->def)
            return sn_fail(err, SN_E_INVALID, "attribute '%s': no default", d->name);
        if (sn_attr_parse(d, d->def, &v, why, sizeof why) != SN_OK)
            return sn_fail(err, SN_E_INVALID, "attribute '%s': bad default: %s", d->name, why);
        for (int k = 0; d->recommended && d->recommended[k]; k++)
            if (sn_attr_parse(d, d->recommended[k], &v, why, sizeof why) != SN_OK)
                return sn_fail(err, SN_E_INVALID, "attribute '%s': bad recommended value: %s", d->name, why);
    }
    return SN_OK;
}

static void append_name(char *list, size_t cap, const char *name)
{
    size_t len = strlen(list);
    snprintf(list + len, cap - len, "%s%s", len ? ", " : "", name);
}

int sn_attr_find(const sn_attr_def *defs, uint32_t n, size_t stride, const char *name)
{
    /* every spawn looks up a dozen names among a blueprint's ~20: the first letter rules most out */
    for (uint32_t i = 0; i < n; i++) {
        const char *d = sn_attr_at(defs, stride, i)->name;
        if (d[0] == name[0] && strcmp(d, name) == 0)
            return (int)i;
    }
    return -1;
}

/* "file:line:col" of the k-th given attribute, "spawn" for the API (no file). */
static void at_pos(char *buf, size_t n, const sn_attr_where *where, uint32_t k, bool value)
{
    if (where)
        where->fn(where->user, k, value, buf, n);
    else
        snprintf(buf, n, "spawn");
}

sn_status sn_attr_resolve(const sn_attr_def *defs, uint32_t n, size_t stride, const sn_value *defaults,
                          const char *blueprint, const sn_attribute *given, uint32_t n_given, const sn_attr_where *where,
                          const char *const *extra_keys, sn_value **out, sn_error *err)
{
    *out = NULL;
    size_t strings = 0;
    for (uint32_t k = 0; k < n_given; k++)
        strings += strlen(given[k].value) + 1;
    char *block = calloc(1, (n + 1) * sizeof(sn_value) + strings);
    if (!block)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    sn_value *vals = (sn_value *)(void *)block;
    char *str = block + (n + 1) * sizeof(sn_value);
    char why[512];
    if (defaults && n)
        memcpy(vals, defaults, n * sizeof *vals);
    else
        for (uint32_t i = 0; i < n; i++) /* defaults were checked at load */
            sn_attr_parse(sn_attr_at(defs, stride, i), sn_attr_at(defs, stride, i)->def, &vals[i], why, sizeof why);
    for (uint32_t k = 0; k < n_given; k++) {
        const sn_attribute *a = &given[k];
        bool extra = false;
        for (const char *const *x = extra_keys; x && *x; x++)
            extra |= strcmp(*x, a->key) == 0;
        if (extra)
            continue;
        int i = sn_attr_find(defs, n, stride, a->key);
        if (i < 0) {
            char list[600] = "";
            for (uint32_t j = 0; j < n; j++)
                append_name(list, sizeof list, sn_attr_at(defs, stride, j)->name);
            for (const char *const *x = extra_keys; x && *x; x++)
                append_name(list, sizeof list, *x);
            free(block);
            char at[600];
            at_pos(at, sizeof at, where, k, false);
            return sn_fail(err, SN_E_INVALID, "%s: unknown attribute '%s' for blueprint '%s' (it has: %s)",
                           at, a->key, blueprint, list[0] ? list : "no attributes");
        }
        const sn_attr_def *d = sn_attr_at(defs, stride, (uint32_t)i);
        size_t len = strlen(a->value) + 1;
        memcpy(str, a->value, len);
        sn_status st = sn_attr_parse(d, str, &vals[i], why, sizeof why);
        str += len;
        if (st != SN_OK) {
            free(block);
            char at[600];
            at_pos(at, sizeof at, where, k, true);
            return sn_fail(err, st, "%s: attribute '%s' of '%s': %s", at, a->key, blueprint, why);
        }
    }
    *out = vals;
    return SN_OK;
}

bool *sn_attr_given(const sn_attr_def *defs, uint32_t n, size_t stride, const sn_attribute *given, uint32_t n_given)
{
    bool *g = calloc(n ? n : 1, sizeof *g);
    if (!g)
        return NULL;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < n_given; k++)
            if (given[k].key && strcmp(given[k].key, sn_attr_at(defs, stride, i)->name) == 0)
                g[i] = true;
    return g;
}
