/* xosc_dist.c — ParameterValueDistribution files (OpenSCENARIO 1.1+) expanded into runs
** (xosc_dist.h). Deterministic: DistributionSet, DistributionRange, ValueSetDistribution,
** combined as a product. Stochastic: ProbabilityDistributionSet, Normal, LogNormal, Uniform,
** Poisson, Histogram, drawn numberOfTestRuns times from randomSeed with a generator of our own
** (splitmix64), so the runs depend on the file alone, not on the C library. */
#include "xosc_dist.h"
#include "xosc.h"
#include "xosc_xml.h"

#include "../core/error.h"
#include "../core/infile.h"
#include "../core/util.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef xmlNodePtr N;

/* One factor of the product (deterministic) or one drawn parameter (stochastic). */
typedef struct factor {
    N node;
    uint32_t n_vals;     /* deterministic: values (or value sets) */
    char **vals;         /* single: n_vals texts; multi: n_vals * n_params entries (NULL: not assigned) */
    bool multi;
    int *pidx;           /* multi: which parameters (indices into names) it assigns, n_pidx of them */
    uint32_t n_pidx;
    int param;           /* single: the parameter's index */
} factor;

typedef struct D {
    const char *file;
    sn_error *err;
    bool failed;
    sn_xdist *d;
    factor *f;
    uint32_t n_f;
    uint64_t rng;
    bool warned_user; /* a UserDefinedDistribution has been named in a warning */
} D;


static bool fail(D *p, N n, const char *fmt, ...) SN_PRINTF(3, 4);
static bool fail(D *p, N n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sn_xml_failv(p->err, &p->failed, p->file, n, fmt, ap);
    va_end(ap);
    return false;
}

/* Attribute a as text (owned by the caller), NULL when absent (required: an error). */
static char *text(D *p, N n, const char *a, bool required)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)a);
    if (!v) {
        if (required)
            fail(p, n, "missing attribute '%s'", a);
        return NULL;
    }
    char *s = sn_strdup((const char *)v);
    xmlFree(v);
    if (!s)
        fail(p, n, "out of memory");
    return s;
}

static bool number(D *p, N n, const char *a, bool required, double def, double *out)
{
    char *v = text(p, n, a, required);
    if (!v) {
        *out = def;
        return !p->failed;
    }
    char *end;
    double x = strtod(v, &end);
    bool ok = end != v && !*end && isfinite(x);
    if (!ok)
        fail(p, n, "attribute '%s' is '%s', not a finite number", a, v);
    free(v);
    *out = x;
    return ok;
}

static bool range(D *p, N n, double *lo, double *hi)
{
    N r = sn_xml_child(n, "Range");
    if (!r)
        return fail(p, n, "needs a Range (lowerLimit, upperLimit)");
    if (!number(p, r, "lowerLimit", true, 0, lo) || !number(p, r, "upperLimit", true, 0, hi))
        return false;
    if (*lo > *hi)
        return fail(p, r, "lowerLimit %g is above upperLimit %g", *lo, *hi);
    return true;
}

static int param_index(D *p, N n, const char *name)
{
    sn_xdist *d = p->d;
    for (uint32_t i = 0; i < d->n_params; i++)
        if (strcmp(d->names[i], name) == 0)
            return (int)i;
    if (d->n_params >= 10000)
        return fail(p, n, "more than 10000 parameters"), -1;
    char **nw = realloc(d->names, (d->n_params + 1) * sizeof *nw);
    if (!nw)
        return fail(p, n, "out of memory"), -1;
    d->names = nw;
    if (!(nw[d->n_params] = sn_strdup(name)))
        return fail(p, n, "out of memory"), -1;
    return (int)d->n_params++;
}

static factor *new_factor(D *p, N n)
{
    factor *f = realloc(p->f, (p->n_f + 1) * sizeof *f);
    if (!f)
        return fail(p, n, "out of memory"), NULL;
    p->f = f;
    memset(&f[p->n_f], 0, sizeof *f);
    f[p->n_f].node = n;
    return &f[p->n_f++];
}

/* A UserDefinedDistribution: its `type` names a tool of its author's and its content means what
** that tool says; sensim has no such tool, so the parameter keeps the scenario's own value (one
** run's worth) and a warning says so, once per element. */
static void user_defined(D *p, N n)
{
    if (p->warned_user)
        return;
    p->warned_user = true;
    fprintf(stderr, "sensim: warning: %s:%d: UserDefinedDistribution: its content is for the tool its type names, "
                    "not sensim: the parameter keeps the scenario's value (docs/openscenario.md)\n",
            p->file, sn_xml_line(n));
}

static bool add_val(D *p, N n, factor *f, char *v)
{
    if (!v && !sn_xml_is(n, "UserDefinedDistribution")) /* NULL: the scenario's value */
        return false;
    char **nw = realloc(f->vals, (f->n_vals + 1) * sizeof *nw);
    if (!nw) {
        free(v);
        return fail(p, n, "out of memory");
    }
    f->vals = nw;
    f->vals[f->n_vals++] = v;
    return true;
}

static char *fmt_num(double x)
{
    char b[64];
    snprintf(b, sizeof b, "%.10g", x == 0 ? 0.0 : x); /* no "-0" */
    return sn_strdup(b);
}

/* ---- deterministic ---- */

static bool single_det(D *p, N n)
{
    char *name = text(p, n, "parameterName", true);
    if (!name)
        return false;
    factor *f = new_factor(p, n);
    int k = f ? param_index(p, n, name) : -1;
    free(name);
    if (k < 0)
        return false;
    f->param = k;
    N c = sn_xml_next_el(n->children);
    if (!c || sn_xml_next_el(c->next))
        return fail(p, n, "expected one of DistributionSet, DistributionRange");
    if (sn_xml_is(c, "DistributionSet")) {
        SN_XML_EACH(e, c) {
            if (!sn_xml_is(e, "Element"))
                return fail(p, e, "unknown element <%s> in <DistributionSet>", (const char *)e->name);
            if (!add_val(p, e, f, text(p, e, "value", true)))
                return false;
        }
        if (!f->n_vals)
            return fail(p, c, "needs at least one Element");
        return true;
    }
    if (sn_xml_is(c, "DistributionRange")) {
        double step, lo, hi;
        if (!number(p, c, "stepWidth", true, 0, &step) || !range(p, c, &lo, &hi))
            return false;
        if (!(step > 0))
            return fail(p, c, "stepWidth %g must be above 0", step);
        double count = floor((hi - lo) / step + 1e-9) + 1;
        if (count > SN_XDIST_MAX_RUNS)
            return fail(p, c, "the range gives %.0f values, more than %u", count, SN_XDIST_MAX_RUNS);
        for (uint32_t i = 0; i < (uint32_t)count; i++) /* lo + i*step: no sum drifting past hi */
            if (!add_val(p, c, f, fmt_num(lo + i * step)))
                return false;
        return true;
    }
    if (sn_xml_is(c, "UserDefinedDistribution")) {
        user_defined(p, c);
        return add_val(p, c, f, NULL);
    }
    return fail(p, c, "unknown element <%s> in <%s>", (const char *)c->name, (const char *)n->name);
}

static bool multi_det(D *p, N n)
{
    N vs = sn_xml_next_el(n->children);
    if (!vs || !sn_xml_is(vs, "ValueSetDistribution") || sn_xml_next_el(vs->next))
        return fail(p, n, "expected one ValueSetDistribution");
    factor *f = new_factor(p, n);
    if (!f)
        return false;
    f->multi = true;
    uint32_t sets = 0;
    SN_XML_EACH(s, vs) { /* first pass: every name any set assigns */
        if (!sn_xml_is(s, "ParameterValueSet"))
            return fail(p, s, "unknown element <%s> in <ValueSetDistribution>", (const char *)s->name);
        sets++;
        SN_XML_EACH(a, s) {
            if (!sn_xml_is(a, "ParameterAssignment"))
                return fail(p, a, "unknown element <%s> in <ParameterValueSet>", (const char *)a->name);
            char *ref = text(p, a, "parameterRef", true);
            int k = ref ? param_index(p, a, ref) : -1;
            free(ref);
            if (k < 0)
                return false;
            bool have = false;
            for (uint32_t i = 0; i < f->n_pidx; i++)
                have |= f->pidx[i] == k;
            if (!have) {
                int *nw = realloc(f->pidx, (f->n_pidx + 1) * sizeof *nw);
                if (!nw)
                    return fail(p, a, "out of memory");
                f->pidx = nw;
                f->pidx[f->n_pidx++] = k;
            }
        }
    }
    if (!sets)
        return fail(p, vs, "needs at least one ParameterValueSet");
    if (!(f->vals = calloc((size_t)sets * f->n_pidx, sizeof *f->vals)))
        return fail(p, vs, "out of memory");
    f->n_vals = sets;
    uint32_t si = 0;
    SN_XML_EACH(s, vs) {
        SN_XML_EACH(a, s) {
            char *ref = text(p, a, "parameterRef", true), *v = text(p, a, "value", true);
            int k = ref && v ? param_index(p, a, ref) : -1;
            free(ref);
            if (k < 0) {
                free(v);
                return false;
            }
            uint32_t j = 0;
            while (f->pidx[j] != k)
                j++;
            char **slot = &f->vals[(size_t)si * f->n_pidx + j];
            if (*slot) {
                free(v);
                return fail(p, a, "parameter '%s' is assigned twice in one ParameterValueSet", p->d->names[k]);
            }
            *slot = v;
        }
        si++;
    }
    return true;
}

/* ---- stochastic ---- */

static uint64_t next_u64(D *p)
{
    uint64_t z = (p->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double uniform01(D *p) { return (double)(next_u64(p) >> 11) * 0x1.0p-53; } /* [0, 1) */
static double normal01(D *p)
{
    double u = 1.0 - uniform01(p), v = uniform01(p); /* u in (0, 1]: log(u) finite */
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Draws from distribution c; a Range (where given) bounds it: draws outside are drawn again,
** up to 1000 times, then clamped (a Range far in a tail would otherwise never end). */
static bool draw(D *p, N c, char **out)
{
    double lo = -INFINITY, hi = INFINITY, x = 0;
    bool has_range = sn_xml_child(c, "Range") != NULL;
    if (has_range && !range(p, c, &lo, &hi))
        return false;
    if (sn_xml_is(c, "UniformDistribution")) {
        if (!has_range)
            return fail(p, c, "needs a Range (lowerLimit, upperLimit)");
        *out = fmt_num(lo + (hi - lo) * uniform01(p));
        return *out || fail(p, c, "out of memory");
    }
    if (sn_xml_is(c, "ProbabilityDistributionSet") || sn_xml_is(c, "Histogram")) {
        bool hist = sn_xml_is(c, "Histogram");
        const char *el = hist ? "Bin" : "Element";
        double total = 0, w;
        SN_XML_EACH(e, c) {
            if (!sn_xml_is(e, el))
                return fail(p, e, "unknown element <%s> in <%s>", (const char *)e->name, (const char *)c->name);
            if (!number(p, e, "weight", true, 0, &w))
                return false;
            if (w < 0)
                return fail(p, e, "weight %g is negative", w);
            total += w;
        }
        if (!(total > 0))
            return fail(p, c, "needs %s elements with weights summing above 0", el);
        double r = uniform01(p) * total, acc = 0;
        N pick = NULL;
        SN_XML_EACH(e, c) {
            number(p, e, "weight", true, 0, &w);
            acc += w;
            pick = e;
            if (r < acc && w > 0)
                break;
        }
        if (!hist) {
            *out = text(p, pick, "value", true);
            return *out != NULL;
        }
        double blo, bhi;
        if (!range(p, pick, &blo, &bhi))
            return false;
        *out = fmt_num(blo + (bhi - blo) * uniform01(p));
        return *out || fail(p, c, "out of memory");
    }
    double mean, var = 0;
    bool normal = sn_xml_is(c, "NormalDistribution"), lognormal = sn_xml_is(c, "LogNormalDistribution"),
         poisson = sn_xml_is(c, "PoissonDistribution");
    if (!normal && !lognormal && !poisson) {
        if (sn_xml_is(c, "UserDefinedDistribution")) {
            user_defined(p, c);
            *out = NULL;
            return true;
        }
        return fail(p, c, "unknown element <%s> in <StochasticDistribution>", (const char *)c->name);
    }
    if (!number(p, c, "expectedValue", true, 0, &mean) || (!poisson && !number(p, c, "variance", true, 0, &var)))
        return false;
    if (var < 0)
        return fail(p, c, "variance %g is negative", var);
    if (poisson && !(mean > 0 && mean <= 1e6))
        return fail(p, c, "expectedValue %g must be within (0, 1e6]", mean);
    if (lognormal && !(mean > 0))
        return fail(p, c, "expectedValue %g of a log-normal distribution must be above 0", mean);
    /* LogNormal: expectedValue and variance are the distribution's own (not its logarithm's) */
    double sigma2 = lognormal ? log(1 + var / (mean * mean)) : var, mu = lognormal ? log(mean) - sigma2 / 2 : mean;
    for (int tries = 0;; tries++) {
        if (poisson) { /* Knuth's product of uniforms; for large means a normal approximation */
            if (mean < 50) {
                double L = exp(-mean), prod = uniform01(p);
                x = 0;
                while (prod > L) {
                    prod *= uniform01(p);
                    x++;
                }
            } else {
                x = floor(mean + sqrt(mean) * normal01(p) + 0.5);
                if (x < 0)
                    x = 0;
            }
        } else {
            x = mu + sqrt(sigma2) * normal01(p);
            if (lognormal)
                x = exp(x);
        }
        if ((x >= lo && x <= hi) || tries >= 1000)
            break;
    }
    x = x < lo ? lo : x > hi ? hi : x;
    *out = fmt_num(x);
    return *out || fail(p, c, "out of memory");
}

static bool stochastic(D *p, N n)
{
    sn_xdist *d = p->d;
    double runs, seed;
    if (!number(p, n, "numberOfTestRuns", true, 0, &runs) || !number(p, n, "randomSeed", false, 0, &seed))
        return false;
    if (!(runs >= 1 && runs <= SN_XDIST_MAX_RUNS) || runs != floor(runs))
        return fail(p, n, "numberOfTestRuns %g must be a whole number within 1 ... %u", runs, SN_XDIST_MAX_RUNS);
    if (!(seed >= 0 && seed < 18446744073709551616.0) || seed != floor(seed))
        return fail(p, n, "randomSeed %g must be a whole number >= 0", seed);
    d->stochastic = true;
    d->seed = (uint64_t)seed;
    p->rng = d->seed;
    N *dists = NULL;
    uint32_t nd = 0;
    SN_XML_EACH(s, n) {
        if (!sn_xml_is(s, "StochasticDistribution")) {
            free(dists);
            return fail(p, s, "unknown element <%s> in <Stochastic>", (const char *)s->name);
        }
        char *name = text(p, s, "parameterName", true);
        int k = name ? param_index(p, s, name) : -1;
        free(name);
        N c = sn_xml_next_el(s->children);
        N *nw = k >= 0 && (int)nd == k ? realloc(dists, (nd + 1) * sizeof *nw) : NULL;
        if (!nw) {
            free(dists);
            return k < 0 ? false : fail(p, s, k < (int)nd ? "parameter varied twice" : "out of memory");
        }
        dists = nw;
        dists[nd++] = c;
        if (!c || sn_xml_next_el(c->next)) {
            free(dists);
            return fail(p, s, "expected one distribution element");
        }
    }
    if (!nd) {
        free(dists);
        return fail(p, n, "needs at least one StochasticDistribution");
    }
    d->n_runs = (uint32_t)runs;
    if (!(d->values = calloc((size_t)d->n_runs * nd, sizeof *d->values))) {
        free(dists);
        return fail(p, n, "out of memory");
    }
    /* run by run, each parameter in document order: a run's values do not depend on later runs */
    for (uint32_t r = 0; r < d->n_runs; r++)
        for (uint32_t k = 0; k < nd; k++)
            if (!draw(p, dists[k], &d->values[(size_t)r * nd + k])) {
                free(dists);
                return false;
            }
    free(dists);
    return true;
}

static bool deterministic(D *p, N n)
{
    SN_XML_EACH(c, n) {
        bool ok;
        if (sn_xml_is(c, "DeterministicSingleParameterDistribution"))
            ok = single_det(p, c);
        else if (sn_xml_is(c, "DeterministicMultiParameterDistribution"))
            ok = multi_det(p, c);
        else
            return fail(p, c, "unknown element <%s> in <Deterministic>", (const char *)c->name);
        if (!ok)
            return false;
    }
    if (!p->n_f)
        return fail(p, n, "needs at least one parameter distribution");
    sn_xdist *d = p->d;
    /* each parameter in one factor only */
    uint32_t *owner = calloc(d->n_params, sizeof *owner);
    if (!owner)
        return fail(p, n, "out of memory");
    for (uint32_t i = 0; i < p->n_f; i++) {
        factor *f = &p->f[i];
        uint32_t np = f->multi ? f->n_pidx : 1;
        for (uint32_t j = 0; j < np; j++) {
            int k = f->multi ? f->pidx[j] : f->param;
            if (owner[k]) {
                free(owner);
                return fail(p, f->node, "parameter '%s' is varied by two distributions", d->names[k]);
            }
            owner[k] = i + 1;
        }
    }
    free(owner);
    double total = 1;
    for (uint32_t i = 0; i < p->n_f; i++)
        total *= p->f[i].n_vals;
    if (total > SN_XDIST_MAX_RUNS)
        return fail(p, n, "the distributions combine to %.0f runs, more than %u", total, SN_XDIST_MAX_RUNS);
    d->n_runs = (uint32_t)total;
    if (!(d->values = calloc((size_t)d->n_runs * d->n_params, sizeof *d->values)))
        return fail(p, n, "out of memory");
    for (uint32_t r = 0; r < d->n_runs; r++) {
        uint32_t rest = r;
        for (uint32_t i = p->n_f; i-- > 0;) { /* the last factor fastest */
            factor *f = &p->f[i];
            uint32_t v = rest % f->n_vals;
            rest /= f->n_vals;
            uint32_t np = f->multi ? f->n_pidx : 1;
            for (uint32_t j = 0; j < np; j++) {
                int k = f->multi ? f->pidx[j] : f->param;
                const char *src = f->multi ? f->vals[(size_t)v * np + j] : f->vals[v];
                if (src && !(d->values[(size_t)r * d->n_params + k] = sn_strdup(src)))
                    return fail(p, n, "out of memory");
            }
        }
    }
    return true;
}

void sn_xdist_free(sn_xdist *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < (size_t)d->n_runs * d->n_params && d->values; i++)
        free(d->values[i]);
    free(d->values);
    for (uint32_t i = 0; i < d->n_params; i++)
        free(d->names[i]);
    free(d->names);
    free(d->scenario);
    free(d);
}

/* The scenario parsed once with run 0's values: a name it does not declare is an error now, at
** the batch's load, rather than in every run. */
static sn_status check_scenario(D *p, N sf)
{
    sn_xdist *d = p->d;
    char **sets = calloc(d->n_params + 1, sizeof *sets);
    size_t n = 0;
    sn_status st = sets ? SN_OK : sn_fail(p->err, SN_E_NOMEM, "out of memory");
    for (uint32_t k = 0; !st && k < d->n_params; k++) {
        const char *v = d->values[k];
        if (!v)
            continue;
        size_t len = strlen(d->names[k]) + strlen(v) + 2;
        if (!(sets[n] = malloc(len)))
            st = sn_fail(p->err, SN_E_NOMEM, "out of memory");
        else
            snprintf(sets[n++], len, "%s=%s", d->names[k], v);
    }
    sn_xosc *x = NULL;
    sn_error e2 = {0};
    if (!st && sn_xosc_load(d->scenario, (const char *const *)sets, n, &x, &e2) != SN_OK)
        st = sn_fail(p->err, SN_E_INVALID, "%s:%d: ScenarioFile: %s", p->file, sn_xml_line(sf), e2.msg);
    sn_xosc_free(x);
    for (size_t i = 0; i < n; i++)
        free(sets[i]);
    free(sets);
    return st;
}

sn_status sn_xdist_load(const char *path, sn_xdist **out, sn_error *err)
{
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "distribution: NULL argument");
    *out = NULL;
    FILE *fp = sn_open_input(path, "OpenSCENARIO file", err);
    if (!fp)
        return err ? err->status : SN_E_IO;
    fclose(fp);
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *xe = xmlGetLastError();
        return sn_fail(err, SN_E_INVALID, "%s:%d: not well-formed XML: %s", path, xe ? xe->line : 0,
                       xe && xe->message ? xe->message : "cannot parse");
    }
    N root = xmlDocGetRootElement(doc);
    N pvd = root && sn_xml_is(root, "OpenSCENARIO") ? sn_xml_child(root, "ParameterValueDistribution") : NULL;
    if (!pvd) {
        xmlFreeDoc(doc);
        return SN_OK; /* a scenario (or not OpenSCENARIO: the scenario loader says so) */
    }
    D p = {.file = path, .err = err};
    p.d = calloc(1, sizeof *p.d);
    sn_status st = SN_OK;
    if (!p.d) {
        xmlFreeDoc(doc);
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    }
    N sf = sn_xml_child(pvd, "ScenarioFile");
    char *fpath = sf ? text(&p, sf, "filepath", true) : NULL;
    if (!sf)
        fail(&p, pvd, "needs a ScenarioFile (filepath)");
    if (fpath) {
        const char *slash = strrchr(path, '/');
        size_t len = strlen(fpath) + (slash ? (size_t)(slash - path) + 2 : 1);
        if ((p.d->scenario = malloc(len)))
            snprintf(p.d->scenario, len, "%.*s%s%s", fpath[0] != '/' && slash ? (int)(slash - path) : 0, path,
                     fpath[0] != '/' && slash ? "/" : "", fpath);
        else
            fail(&p, sf, "out of memory");
        free(fpath);
    }
    N det = sn_xml_child(pvd, "Deterministic"), sto = sn_xml_child(pvd, "Stochastic");
    if (!p.failed) {
        if (det && sto)
            fail(&p, sto, "a ParameterValueDistribution is either Deterministic or Stochastic");
        else if (det)
            deterministic(&p, det);
        else if (sto)
            stochastic(&p, sto);
        else
            fail(&p, pvd, "needs Deterministic or Stochastic");
    }
    SN_XML_EACH(c, pvd)
        if (!p.failed && !sn_xml_is(c, "ScenarioFile") && !sn_xml_is(c, "Deterministic") && !sn_xml_is(c, "Stochastic"))
            fail(&p, c, "unknown element <%s> in <ParameterValueDistribution>", (const char *)c->name);
    st = p.failed ? SN_E_INVALID : check_scenario(&p, sf);
    for (uint32_t i = 0; i < p.n_f; i++) {
        size_t nv = p.f[i].multi ? (size_t)p.f[i].n_vals * p.f[i].n_pidx : p.f[i].n_vals;
        for (size_t k = 0; k < nv; k++)
            free(p.f[i].vals[k]);
        free(p.f[i].vals);
        free(p.f[i].pidx);
    }
    free(p.f);
    xmlFreeDoc(doc);
    if (st) {
        sn_xdist_free(p.d);
        return st;
    }
    *out = p.d;
    return SN_OK;
}
