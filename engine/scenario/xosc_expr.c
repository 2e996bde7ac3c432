/* xosc_expr.c — OpenSCENARIO parameters: "$name" references and "${expr}" expressions.
**
** A parameter's declared value may itself refer to parameters; it is resolved on first use,
** and a parameter met again while its own value is being resolved is a loop (an error naming
** it), never an endless recursion. Expressions are OpenSCENARIO 1.2's (arithmetic, not/and/or,
** round floor ceil sqrt pow) with esmini's comparisons and a few more functions. */
#include "xosc.h"

#include "../core/util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64 /* nested parentheses, references: a hostile file cannot blow the stack */

sn_xparam *sn_xparam_find(sn_xparams *p, const char *name)
{
    for (uint32_t i = p->n; i-- > 0;) /* the latest declaration wins (inner scopes come later) */
        if (strcmp(p->v[i].name, name) == 0)
            return &p->v[i];
    return NULL;
}

bool sn_xparam_set(sn_xparams *p, const char *name, const char *value, int line, bool replace)
{
    sn_xparam *q = replace ? sn_xparam_find(p, name) : NULL;
    if (q) {
        char *v = sn_strdup(value);
        if (!v)
            return false;
        free(q->value);
        free(q->resolved);
        q->value = v;
        q->resolved = NULL;
        return true;
    }
    if (!sn_grow((void **)&p->v, &p->cap, p->n + 1, sizeof *p->v))
        return false;
    sn_xparam *n = &p->v[p->n];
    *n = (sn_xparam){.name = sn_strdup(name), .value = sn_strdup(value), .line = line};
    if (!n->name || !n->value) {
        free(n->name);
        free(n->value);
        return false;
    }
    p->n++;
    return true;
}

void sn_xparams_free(sn_xparams *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        free(p->v[i].name);
        free(p->v[i].value);
        free(p->v[i].resolved);
    }
    free(p->v);
    memset(p, 0, sizeof *p);
}

static bool whyf(char *why, size_t cap, const char *fmt, ...) SN_PRINTF(3, 4);
static bool whyf(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

static bool resolve(sn_xparams *p, sn_xparam *q, int depth, char *why, size_t cap);

/* ---- expressions: recursive descent over the text ---- */

typedef struct ex {
    sn_xparams *p;
    const char *s;
    int depth;
    char *why;
    size_t cap;
    bool bad;
} ex;

static void skip(ex *e)
{
    while (isspace((unsigned char)*e->s))
        e->s++;
}

static bool word(ex *e, const char *w)
{
    skip(e);
    size_t n = strlen(w);
    if (strncmp(e->s, w, n) == 0 && !isalnum((unsigned char)e->s[n]) && e->s[n] != '_') {
        e->s += n;
        return true;
    }
    return false;
}

static bool sym(ex *e, const char *w)
{
    skip(e);
    size_t n = strlen(w);
    if (strncmp(e->s, w, n) == 0) {
        e->s += n;
        return true;
    }
    return false;
}

static double fail_ex(ex *e, const char *what)
{
    if (!e->bad)
        whyf(e->why, e->cap, "bad expression: %s at '%.20s'", what, e->s);
    e->bad = true;
    return 0;
}

static double parse_or(ex *e);

static double param_number(ex *e, const char *name)
{
    sn_xparam *q = sn_xparam_find(e->p, name);
    if (!q) {
        if (!e->bad)
            whyf(e->why, e->cap, "undefined parameter '%s'", name);
        e->bad = true;
        return 0;
    }
    if (!resolve(e->p, q, e->depth + 1, e->why, e->cap)) {
        e->bad = true;
        return 0;
    }
    const char *v = q->resolved;
    if (strcmp(v, "true") == 0)
        return 1;
    if (strcmp(v, "false") == 0)
        return 0;
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end) {
        if (!e->bad)
            whyf(e->why, e->cap, "parameter '%s' is '%s', not a number", name, v);
        e->bad = true;
        return 0;
    }
    return d;
}

static double primary(ex *e)
{
    if (++e->depth > MAX_DEPTH)
        return fail_ex(e, "nested too deep");
    skip(e);
    double v = 0;
    if (sym(e, "(")) {
        v = parse_or(e);
        if (!sym(e, ")"))
            v = fail_ex(e, "expected ')'");
    } else if (*e->s == '$') {
        e->s++;
        const char *b = e->s;
        while (isalnum((unsigned char)*e->s) || *e->s == '_')
            e->s++;
        char name[128];
        if (e->s == b || (size_t)(e->s - b) >= sizeof name)
            return fail_ex(e, "expected a parameter name after '$'");
        snprintf(name, sizeof name, "%.*s", (int)(e->s - b), b);
        v = param_number(e, name);
    } else if (isdigit((unsigned char)*e->s) || *e->s == '.') {
        char *end;
        v = strtod(e->s, &end);
        if (end == e->s)
            return fail_ex(e, "expected a number");
        e->s = end;
    } else if (word(e, "true")) {
        v = 1;
    } else if (word(e, "false")) {
        v = 0;
    } else if (word(e, "pi")) { /* esmini's constants (simple_expr.c) */
        v = M_PI;
    } else if (word(e, "e")) {
        v = M_E;
    } else if (isalpha((unsigned char)*e->s)) {
        static const char *const fn1[] = {"round", "floor", "ceil", "sqrt", "abs", "sin", "cos", "tan", "asin",
                                          "acos", "atan", "exp", "log", NULL};
        static const char *const fn2[] = {"pow", "min", "max", "atan2", NULL};
        for (int i = 0; fn1[i]; i++)
            if (word(e, fn1[i])) {
                if (!sym(e, "("))
                    return fail_ex(e, "expected '('");
                double a = parse_or(e);
                if (!sym(e, ")"))
                    return fail_ex(e, "expected ')'");
                double r[] = {a < 0 ? -floor(-a + 0.5) : floor(a + 0.5), floor(a), ceil(a), sqrt(a), fabs(a), sin(a),
                              cos(a), tan(a), asin(a), acos(a), atan(a), exp(a), log(a)};
                e->depth--;
                return r[i];
            }
        for (int i = 0; fn2[i]; i++)
            if (word(e, fn2[i])) {
                if (!sym(e, "("))
                    return fail_ex(e, "expected '('");
                double a = parse_or(e);
                if (!sym(e, ","))
                    return fail_ex(e, "expected ','");
                double b = parse_or(e);
                if (!sym(e, ")"))
                    return fail_ex(e, "expected ')'");
                double r[] = {pow(a, b), fmin(a, b), fmax(a, b), atan2(a, b)};
                e->depth--;
                return r[i];
            }
        return fail_ex(e, "unknown name");
    } else {
        return fail_ex(e, "expected a value");
    }
    e->depth--;
    return v;
}

static double unary(ex *e)
{
    if (sym(e, "-"))
        return -unary(e);
    if (sym(e, "+"))
        return unary(e);
    if (word(e, "not"))
        return unary(e) == 0 ? 1 : 0;
    return primary(e);
}

static double product(ex *e)
{
    double v = unary(e);
    for (;;) {
        if (sym(e, "*"))
            v *= unary(e);
        else if (sym(e, "/"))
            v /= unary(e);
        else if (sym(e, "%"))
            v = fmod(v, unary(e));
        else
            return v;
    }
}

static double sum(ex *e)
{
    double v = product(e);
    for (;;) {
        if (sym(e, "+"))
            v += product(e);
        else if (sym(e, "-"))
            v -= product(e);
        else
            return v;
    }
}

static double compare(ex *e)
{
    double v = sum(e);
    for (;;) {
        if (sym(e, "=="))
            v = v == sum(e);
        else if (sym(e, "!="))
            v = v != sum(e);
        else if (sym(e, "<="))
            v = v <= sum(e);
        else if (sym(e, ">="))
            v = v >= sum(e);
        else if (sym(e, "<"))
            v = v < sum(e);
        else if (sym(e, ">"))
            v = v > sum(e);
        else
            return v;
    }
}

static double conjunction(ex *e)
{
    double v = compare(e);
    while (word(e, "and") || sym(e, "&&")) {
        double b = compare(e);
        v = (v != 0 && b != 0) ? 1 : 0;
    }
    return v;
}

static double parse_or(ex *e)
{
    double v = conjunction(e);
    while (word(e, "or") || sym(e, "||")) {
        double b = conjunction(e);
        v = (v != 0 || b != 0) ? 1 : 0;
    }
    return v;
}

static bool eval_depth(sn_xparams *p, const char *expr, int depth, double *out, char *why, size_t cap)
{
    ex e = {p, expr, depth, why, cap, false};
    double v = parse_or(&e);
    skip(&e);
    if (!e.bad && *e.s)
        fail_ex(&e, "unexpected text");
    if (!e.bad && !isfinite(v))
        return whyf(why, cap, "expression '%s' is not a finite number", expr);
    *out = v;
    return !e.bad;
}

bool sn_xexpr_eval(sn_xparams *p, const char *expr, double *out, char *why, size_t cap)
{
    return eval_depth(p, expr, 0, out, why, cap);
}

/* A number as an attribute's text: integers without a point, others with 17 digits. */
static void fmt_number(double v, char *out, size_t cap)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(out, cap, "%.0f", v);
    else
        snprintf(out, cap, "%.17g", v);
}

static bool subst_depth(sn_xparams *p, const char *text, int depth, char *out, size_t cap, char *why, size_t wcap);

/* esmini's string expressions: "${Brake_ + $T}" joins words and parameter values with '+' into
** "Brake_0.7" (an expression with a bare word that is no function is taken as one). */
static bool concat(sn_xparams *p, const char *expr, int depth, char *out, size_t cap, char *why, size_t wcap)
{
    size_t n = 0;
    out[0] = 0;
    for (const char *t = expr; *t;) {
        while (isspace((unsigned char)*t))
            t++;
        const char *e = strchr(t, '+');
        size_t len = e ? (size_t)(e - t) : strlen(t);
        while (len && isspace((unsigned char)t[len - 1]))
            len--;
        char tok[256], val[1024];
        if (!len || len >= sizeof tok)
            return whyf(why, wcap, "bad expression '%s'", expr);
        snprintf(tok, sizeof tok, "%.*s", (int)len, t);
        if (tok[0] == '$') {
            if (!subst_depth(p, tok, depth + 1, val, sizeof val, why, wcap))
                return false;
        } else {
            snprintf(val, sizeof val, "%s", tok);
        }
        if (n + strlen(val) >= cap)
            return whyf(why, wcap, "expression '%s' is too long", expr);
        memcpy(out + n, val, strlen(val) + 1);
        n += strlen(val);
        if (!e)
            break;
        t = e + 1;
    }
    return true;
}

static bool subst_depth(sn_xparams *p, const char *text, int depth, char *out, size_t cap, char *why, size_t wcap)
{
    if (depth > MAX_DEPTH)
        return whyf(why, wcap, "parameters refer to each other more than %d deep", MAX_DEPTH);
    if (text[0] == '$' && text[1] == '{') {
        size_t n = strlen(text);
        if (n < 3 || text[n - 1] != '}')
            return whyf(why, wcap, "bad expression '%s': no closing '}'", text);
        char *inner = malloc(n);
        if (!inner)
            return whyf(why, wcap, "out of memory");
        snprintf(inner, n, "%.*s", (int)(n - 3), text + 2);
        double v;
        bool ok = eval_depth(p, inner, depth, &v, why, wcap);
        if (ok)
            fmt_number(v, out, cap);
        else if (strstr(why, "unknown name"))
            ok = concat(p, inner, depth, out, cap, why, wcap);
        free(inner);
        return ok;
    }
    if (text[0] == '$') {
        sn_xparam *q = sn_xparam_find(p, text + 1);
        if (!q)
            return whyf(why, wcap, "undefined parameter '%s'", text + 1);
        if (!resolve(p, q, depth + 1, why, wcap))
            return false;
        if (strlen(q->resolved) >= cap)
            return whyf(why, wcap, "parameter '%s' is too long", text + 1);
        snprintf(out, cap, "%s", q->resolved);
        return true;
    }
    if (strlen(text) >= cap)
        return whyf(why, wcap, "value too long (%zu characters)", strlen(text));
    snprintf(out, cap, "%s", text);
    return true;
}

static bool resolve(sn_xparams *p, sn_xparam *q, int depth, char *why, size_t cap)
{
    if (q->resolved)
        return true;
    if (q->resolving)
        return whyf(why, cap, "parameter loop: '%s' refers to itself through its value '%s'", q->name, q->value);
    q->resolving = true;
    char buf[1024];
    bool ok = subst_depth(p, q->value, depth, buf, sizeof buf, why, cap);
    q->resolving = false;
    if (!ok)
        return false;
    if (!(q->resolved = sn_strdup(buf)))
        return whyf(why, cap, "out of memory");
    return true;
}

bool sn_xparam_subst(sn_xparams *p, const char *text, char *out, size_t cap, char *why, size_t wcap)
{
    return subst_depth(p, text, 0, out, cap, why, wcap);
}
