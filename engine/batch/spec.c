/* spec.c — a batch spec (YAML) expanded into runs: scenes, globs, and sweeps of a scene over
** seeds and value lists for --set paths (product or zipped). sensim.h documents the format. */
#include "../core/error.h"
#include "../core/infile.h"
#include "../core/strmap.h"
#include "../core/util.h"
#include <sensim/numtext.h>
#include "../scene/yamldoc.h"
#include "../scene/yamlget.h"
#include "../scenario/xosc_dist.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 1000000 /* a spec that expands further is almost surely a mistake */

typedef struct run {
    char *id, *scene;
    bool seed_set;
    uint64_t seed;
    char **sets;
    size_t n_sets;
    uint64_t frames, memory_mb;
    double timeout;
} run;

struct sn_batch {
    run *runs;
    size_t n, cap;
    sn_strmap ids; /* id -> 1, to refuse duplicates without a quadratic search */
};

/* Limits that entries inherit from the top of the spec. */
typedef struct limits {
    double timeout;
    uint64_t memory_mb, frames;
} limits;

typedef struct ctx {
    const char *path, *dir; /* the spec, and its folder ("" for the current one) */
    sn_error *err;
    sn_batch *b;
    sn_yget y; /* the scene's typed getters (scene/yamlget.h): one rule for a number in both */
} ctx;

static void where_of(const void *user, const sn_ynode *n, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s:%d:%d", (const char *)user, n->line, n->col);
}

static sn_status at(ctx *c, const sn_ynode *n, const char *what, const char *arg)
{
    return sn_yget_fail(&c->y, n, what, arg, NULL);
}

/* ---- a small string builder ---- */
typedef struct sbuf {
    char *s;
    size_t n, cap;
    bool oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t len)
{
    if (b->oom || !sn_grow((void **)&b->s, &b->cap, b->n + len + 1, 1)) {
        b->oom = true;
        return;
    }
    memcpy(b->s + b->n, s, len);
    b->n += len;
    b->s[b->n] = 0;
}
static void puts_(sbuf *b, const char *s) { put(b, s, strlen(s)); }

/* A node back as YAML flow text, for a --set VALUE: "0.5", "[1, 2, 3]", "{a: 1}". Scalars are
** quoted only where a flow context would misread them ("200,30,30" inside a list). */
static void emit(sbuf *b, const sn_ynode *n, bool nested)
{
    if (n->kind == SN_Y_SCALAR) {
        const char *t = n->text;
        bool quote = n->quoted || !*t || t[0] == ' ' || t[strlen(t) - 1] == ' ' ||
                     strpbrk(t, nested ? ",[]{}:#&*!|>'\"%@`\\" : "#&*!|>'\"%@`\\[]{}") != NULL;
        if (!quote) {
            puts_(b, t);
            return;
        }
        puts_(b, "\"");
        for (; *t; t++) {
            if (*t == '"' || *t == '\\')
                put(b, "\\", 1);
            put(b, t, 1);
        }
        puts_(b, "\"");
        return;
    }
    bool map = n->kind == SN_Y_MAP;
    puts_(b, map ? "{" : "[");
    for (size_t i = 0; i < n->n; i++) {
        if (i)
            puts_(b, map && i % 2 ? ": " : ", ");
        emit(b, n->items[i], true);
    }
    puts_(b, map ? "}" : "]");
}

static sn_status get_limits(ctx *c, const sn_ynode *map, limits *l)
{
    const sn_ynode *v;
    sn_status st;
    if ((v = sn_ynode_get(map, "timeout"))) {
        st = sn_yget_number(&c->y, v, "timeout", &l->timeout);
        if (st)
            return st;
        if (!(l->timeout >= 0 && l->timeout <= 1e7))
            return at(c, v, "expected seconds >= 0 for timeout (0: none)", NULL);
    }
    if ((v = sn_ynode_get(map, "memory_mb")) && (st = sn_yget_uint(&c->y, v, "memory_mb", (uint64_t)1 << 40, &l->memory_mb)))
        return st;
    /* 0 frames is a value, not "unset" (leave the key out for the scene's own count): refused
    ** as settings.frames: 0 and --frames 0 are, so a run is never silently the scene's length. */
    if ((v = sn_ynode_get(map, "frames")) && (st = sn_yget_uint(&c->y, v, "frames", UINT64_MAX, &l->frames)))
        return st;
    if (v && (l->frames == 0 || l->frames > SN_LIMIT_FRAMES))
        return at(c, v, "frames must be within 1 ... 1000000000 (SN_LIMIT_FRAMES); leave it out for the scene's "
                  "own count", NULL);
    return SN_OK;
}

static bool id_ok(const char *id)
{
    if (!*id || id[0] == '.' || strlen(id) > 200)
        return false;
    return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == strlen(id);
}

/* One entry's sweep: the seeds and the value lists. */
typedef struct sweep {
    uint64_t *seeds;
    size_t n_seeds; /* 0: the scene's seed */
    const sn_ynode *vary;
    size_t n_vary, len; /* paths; values per path (zip) */
    bool zip;
    size_t per_scene;   /* runs per scene file */
} sweep;

static sn_status add_run(ctx *c, const sn_ynode *entry, const char *id, const char *scene, const sweep *sw,
                         size_t k, const sn_ynode *set, const limits *l)
{
    sn_batch *b = c->b;
    if (b->n >= MAX_RUNS)
        return at(c, entry, "the spec expands to more than %s runs", "1000000");
    if (sn_strmap_get(&b->ids, id))
        return at(c, entry, "run id '%s' is used twice (give entries distinct ids)", id);
    if (!sn_grow((void **)&b->runs, &b->cap, b->n + 1, sizeof *b->runs))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    run *r = &b->runs[b->n++];
    memset(r, 0, sizeof *r);
    r->id = sn_strdup(id);
    r->scene = sn_strdup(scene);
    r->frames = l->frames;
    r->memory_mb = l->memory_mb;
    r->timeout = l->timeout;
    size_t n_fixed = set ? set->n / 2 : 0;
    r->sets = calloc(n_fixed + sw->n_vary + 1, sizeof *r->sets);
    if (!r->id || !r->scene || !r->sets || !sn_strmap_put(&b->ids, r->id, r))
        return sn_fail(c->err, SN_E_NOMEM, "out of memory");
    /* k = seed index (slowest), then the vary digits, the last fastest */
    size_t rest = k;
    size_t idx[64] = {0};
    if (sw->n_vary) {
        if (sw->zip) {
            for (size_t p = 0; p < sw->n_vary; p++)
                idx[p] = rest % sw->len;
            rest /= sw->len;
        } else {
            for (size_t p = sw->n_vary; p-- > 0;) {
                size_t m = sw->vary->items[2 * p + 1]->n;
                idx[p] = rest % m;
                rest /= m;
            }
        }
    }
    if (sw->n_seeds) {
        r->seed_set = true;
        r->seed = sw->seeds[rest];
    }
    for (size_t i = 0; i < n_fixed + sw->n_vary; i++) {
        const sn_ynode *key = i < n_fixed ? set->items[2 * i] : sw->vary->items[2 * (i - n_fixed)];
        const sn_ynode *val = i < n_fixed ? set->items[2 * i + 1]
                                          : sw->vary->items[2 * (i - n_fixed) + 1]->items[idx[i - n_fixed]];
        sbuf s = {0};
        puts_(&s, key->text);
        puts_(&s, "=");
        emit(&s, val, false);
        if (s.oom) {
            free(s.s);
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        }
        r->sets[r->n_sets++] = s.s;
    }
    return SN_OK;
}

static sn_status parse_sweep(ctx *c, const sn_ynode *e, sweep *sw)
{
    const sn_ynode *v;
    sn_status st;
    if ((v = sn_ynode_get(e, "seeds"))) {
        if (v->kind == SN_Y_SEQ) {
            if (!v->n)
                return at(c, v, "seeds is an empty list", NULL);
            if (!(sw->seeds = calloc(v->n, sizeof *sw->seeds)))
                return sn_fail(c->err, SN_E_NOMEM, "out of memory");
            for (size_t i = 0; i < v->n; i++, sw->n_seeds++)
                if ((st = sn_yget_uint(&c->y, v->items[i], "a seed", UINT64_MAX, &sw->seeds[i])))
                    return st;
        } else if (v->kind == SN_Y_MAP) {
            static const char *const keys[] = {"from", "count", NULL};
            uint64_t from = 0, count = 0;
            const sn_ynode *f = sn_ynode_get(v, "from"), *n = sn_ynode_get(v, "count");
            if ((st = sn_yget_keys(&c->y, v, keys, "seeds (from, count)")))
                return st;
            if (!n)
                return at(c, v, "seeds: {from: N, count: N} needs a count", NULL);
            if ((f && (st = sn_yget_uint(&c->y, f, "seeds.from", UINT64_MAX / 2, &from))) ||
                (st = sn_yget_uint(&c->y, n, "seeds.count", MAX_RUNS, &count)))
                return st;
            if (!count)
                return at(c, n, "seeds.count must be at least 1", NULL);
            if (!(sw->seeds = calloc(count, sizeof *sw->seeds)))
                return sn_fail(c->err, SN_E_NOMEM, "out of memory");
            for (uint64_t i = 0; i < count; i++)
                sw->seeds[sw->n_seeds++] = from + i;
        } else {
            return at(c, v, "expected a list of seeds or {from: N, count: N} for seeds", NULL);
        }
    }
    if ((v = sn_ynode_get(e, "combine"))) {
        if (v->kind != SN_Y_SCALAR || (strcmp(v->text, "product") && strcmp(v->text, "zip")))
            return at(c, v, "expected product or zip for combine", NULL);
        sw->zip = strcmp(v->text, "zip") == 0;
    }
    size_t per = sw->n_seeds ? sw->n_seeds : 1;
    if ((v = sn_ynode_get(e, "vary"))) {
        if (v->kind != SN_Y_MAP || !v->n)
            return at(c, v, "expected a mapping of --set paths to value lists for vary", NULL);
        if (v->n / 2 > 64)
            return at(c, v, "vary takes at most 64 paths", NULL);
        sw->vary = v;
        sw->n_vary = v->n / 2;
        for (size_t p = 0; p < sw->n_vary; p++) {
            const sn_ynode *list = v->items[2 * p + 1];
            if (list->kind != SN_Y_SEQ || !list->n)
                return at(c, list, "expected a non-empty list of values for vary.%s", v->items[2 * p]->text);
            if (sw->zip && p && list->n != sw->len) {
                char what[200];
                snprintf(what, sizeof what, "combine: zip needs lists of one length; this has %zu values, the first %zu",
                         list->n, sw->len);
                return at(c, list, "%s", what);
            }
            if (!p || !sw->zip)
                sw->len = list->n;
            if (!sw->zip) {
                if (per > MAX_RUNS / list->n)
                    return at(c, list, "the sweep expands to more than %s runs", "1000000");
                per *= list->n;
            }
        }
        if (sw->zip)
            per *= sw->len;
    } else if (sw->zip) {
        return at(c, v ? v : e, "combine: zip needs vary", NULL);
    }
    sw->per_scene = per;
    return SN_OK;
}

/* The runs of a ParameterValueDistribution file (docs/openscenario.md, "Parameter variation"):
** one per combination (or draw), ids BASE-000..., each the distribution's ScenarioFile with
** --set parameters.NAME=VALUE per parameter, after the entry's own `set`. */
static sn_status add_dist_runs(ctx *c, const sn_ynode *entry, const char *base, const sn_xdist *d, const sn_ynode *set,
                               const limits *l)
{
    sn_batch *b = c->b;
    int width = 1;
    for (uint32_t n = d->n_runs - 1; n >= 10; n /= 10)
        width++;
    size_t n_fixed = set ? set->n / 2 : 0;
    for (uint32_t r = 0; r < d->n_runs; r++) {
        char id[340];
        sn_format(id, sizeof id, "%s-%0*u", base, width, r);
        if (b->n >= MAX_RUNS)
            return entry ? at(c, entry, "the spec expands to more than %s runs", "1000000")
                         : sn_fail(c->err, SN_E_INVALID, "%s: expands to more than 1000000 runs", c->path);
        if (sn_strmap_get(&b->ids, id) && entry)
            return at(c, entry, "run id '%s' is used twice (give entries distinct ids)", id);
        if (!sn_grow((void **)&b->runs, &b->cap, b->n + 1, sizeof *b->runs))
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        run *u = &b->runs[b->n++];
        memset(u, 0, sizeof *u);
        u->id = sn_strdup(id);
        u->scene = sn_strdup(d->scenario);
        u->frames = l->frames;
        u->memory_mb = l->memory_mb;
        u->timeout = l->timeout;
        u->sets = calloc(n_fixed + d->n_params + 1, sizeof *u->sets);
        if (!u->id || !u->scene || !u->sets || !sn_strmap_put(&b->ids, u->id, u))
            return sn_fail(c->err, SN_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n_fixed + d->n_params; i++) {
            sbuf s = {0};
            if (i < n_fixed) {
                puts_(&s, set->items[2 * i]->text);
                puts_(&s, "=");
                emit(&s, set->items[2 * i + 1], false);
            } else {
                const char *v = d->values[(size_t)r * d->n_params + (i - n_fixed)];
                if (!v)
                    continue; /* a ValueSet that leaves this parameter at the scenario's value */
                puts_(&s, "parameters.");
                puts_(&s, d->names[i - n_fixed]);
                puts_(&s, "=");
                puts_(&s, v);
            }
            if (s.oom) {
                free(s.s);
                return sn_fail(c->err, SN_E_NOMEM, "out of memory");
            }
            u->sets[u->n_sets++] = s.s;
        }
    }
    return SN_OK;
}

static bool is_xosc(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && strcmp(path + n - 5, ".xosc") == 0;
}

static sn_status parse_entry(ctx *c, const sn_ynode *e, limits l)
{
    static const char *const keys[] = {"id", "scene", "seeds", "set", "vary", "combine", "timeout", "memory_mb",
                                       "frames", NULL};
    if (e->kind != SN_Y_MAP)
        return at(c, e, "expected a mapping {scene: ...} for a run", NULL);
    sn_status st = sn_yget_keys(&c->y, e, keys, "a run");
    if (st || (st = get_limits(c, e, &l)))
        return st;
    const sn_ynode *scene = sn_ynode_get(e, "scene"), *idn = sn_ynode_get(e, "id"), *set = sn_ynode_get(e, "set");
    if (!scene || scene->kind != SN_Y_SCALAR || !scene->text[0])
        return at(c, scene ? scene : e, "a run needs 'scene: PATH' (a file or a glob)", NULL);
    if (idn && (idn->kind != SN_Y_SCALAR || !id_ok(idn->text)))
        return at(c, idn, "id '%s' may hold only letters, digits, '.', '_' and '-' (not first '.')",
                  idn->kind == SN_Y_SCALAR ? idn->text : "");
    if (set && set->kind != SN_Y_MAP)
        return at(c, set, "expected a mapping of --set paths to values for set", NULL);
    sweep sw = {0};
    if ((st = parse_sweep(c, e, &sw))) {
        free(sw.seeds);
        return st;
    }
    bool is_sweep = sn_ynode_get(e, "seeds") || sw.n_vary;
    char path[4096];
    snprintf(path, sizeof path, "%s%s", scene->text[0] == '/' ? "" : c->dir, scene->text);
    glob_t g = {0};
    bool is_glob = strpbrk(scene->text, "*?[") != NULL;
    if (is_glob) {
        int rc = glob(path, 0, NULL, &g);
        if (rc != 0) {
            globfree(&g);
            free(sw.seeds);
            return at(c, scene, rc == GLOB_NOMATCH ? "no scene file matches '%s'" : "cannot expand '%s'", scene->text);
        }
    }
    size_t files = is_glob ? g.gl_pathc : 1;
    int width = 1;
    for (size_t n = sw.per_scene - 1; n >= 10; n /= 10)
        width++;
    for (size_t f = 0; !st && f < files; f++) {
        const char *file = is_glob ? g.gl_pathv[f] : path;
        char base[300], stem[256];
        const char *slash = strrchr(file, '/');
        sn_format(stem, sizeof stem, "%s", slash ? slash + 1 : file);
        char *dot = strrchr(stem, '.');
        if (dot && dot != stem)
            *dot = 0;
        if (idn && is_glob)
            sn_format(base, sizeof base, "%s-%s", idn->text, stem);
        else
            snprintf(base, sizeof base, "%s", idn ? idn->text : stem);
        if (!id_ok(base)) {
            st = at(c, scene, "the scene file name gives the run id '%s'; give the entry an id", base);
            break;
        }
        if (is_xosc(file)) {
            sn_xdist *d = NULL;
            if ((st = sn_xdist_load(file, &d, c->err)))
                break;
            if (d) {
                if (is_sweep)
                    st = at(c, e, "a ParameterValueDistribution is its own sweep: give it no seeds or vary", NULL);
                else
                    st = add_dist_runs(c, e, base, d, set, &l);
                sn_xdist_free(d);
                continue;
            }
        }
        for (size_t k = 0; !st && k < sw.per_scene; k++) {
            char id[340];
            if (is_sweep)
                sn_format(id, sizeof id, "%s-%0*zu", base, width, k);
            else
                sn_format(id, sizeof id, "%s", base);
            st = add_run(c, e, id, file, &sw, k, set, &l);
        }
    }
    globfree(&g);
    free(sw.seeds);
    return st;
}

void sn_batch_close(sn_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++) {
        free(b->runs[i].id);
        free(b->runs[i].scene);
        for (size_t k = 0; k < b->runs[i].n_sets; k++)
            free(b->runs[i].sets[k]);
        free(b->runs[i].sets);
    }
    free(b->runs);
    sn_strmap_free(&b->ids);
    free(b);
}

sn_batch *sn_batch_open(const char *spec_path, sn_error *err)
{
    if (!spec_path) {
        sn_fail(err, SN_E_INVALID, "batch: the spec path is NULL");
        return NULL;
    }
    FILE *f = sn_open_input(spec_path, "batch spec", err); /* a FIFO would block */
    if (!f)
        return NULL;
    fclose(f);
    if (is_xosc(spec_path)) { /* `sensim batch sweep.xosc`: the distribution is the whole spec */
        char stem[256];
        const char *sl = strrchr(spec_path, '/');
        sn_format(stem, sizeof stem, "%s", sl ? sl + 1 : spec_path);
        stem[strlen(stem) - 5] = 0;
        if (!id_ok(stem))
            snprintf(stem, sizeof stem, "run");
        sn_xdist *dist = NULL;
        sn_batch *b = calloc(1, sizeof *b);
        ctx c = {spec_path, "", err, b, {err, where_of, spec_path}};
        limits l = {0};
        sn_status st = b ? SN_OK : sn_fail(err, SN_E_NOMEM, "out of memory");
        if (!st && !(st = sn_xdist_load(spec_path, &dist, err)) && !dist)
            st = sn_fail(err, SN_E_INVALID, "%s: a scenario, not a ParameterValueDistribution: run it with sensim run, "
                         "or name it in a batch spec", spec_path);
        if (!st)
            st = add_dist_runs(&c, NULL, stem, dist, NULL, &l);
        sn_xdist_free(dist);
        if (st) {
            sn_batch_close(b);
            return NULL;
        }
        return b;
    }
    sn_ydoc doc;
    if (sn_ydoc_load(&doc, spec_path, err) != SN_OK)
        return NULL;
    sn_batch *b = calloc(1, sizeof *b);
    char dir[4096] = "";
    const char *slash = strrchr(spec_path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s/", (int)(slash - spec_path), spec_path);
    ctx c = {spec_path, dir, err, b, {err, where_of, spec_path}};
    sn_status st = b ? SN_OK : sn_fail(err, SN_E_NOMEM, "out of memory");
    static const char *const keys[] = {"timeout", "memory_mb", "frames", "runs", NULL};
    const sn_ynode *root = doc.root, *runs = NULL;
    limits l = {0};
    if (!st && (!root || root->kind != SN_Y_MAP))
        st = sn_fail(err, SN_E_INVALID, "%s:1:1: expected a mapping with runs: [...] (and optional timeout, memory_mb, frames)",
                     spec_path);
    if (!st)
        st = sn_yget_keys(&c.y, root, keys, "the batch spec");
    if (!st)
        st = get_limits(&c, root, &l);
    if (!st && (!(runs = sn_ynode_get(root, "runs")) || runs->kind != SN_Y_SEQ || !runs->n))
        st = at(&c, runs ? runs : root, "expected a non-empty list for runs", NULL);
    for (size_t i = 0; !st && i < runs->n; i++)
        st = parse_entry(&c, runs->items[i], l);
    sn_ydoc_free(&doc);
    if (st) {
        sn_batch_close(b);
        return NULL;
    }
    return b;
}

size_t sn_batch_count(const sn_batch *b) { return b ? b->n : 0; }

sn_status sn_batch_get(const sn_batch *b, size_t i, sn_batch_run *out, sn_error *err)
{
    if (!b || !out || out->struct_size < sizeof *out)
        return sn_fail(err, SN_E_INVALID, "batch: NULL argument or struct_size too small");
    if (i >= b->n)
        return sn_fail(err, SN_E_NOT_FOUND, "batch: run %zu of %zu does not exist", i, b->n);
    const run *r = &b->runs[i];
    *out = (sn_batch_run){sizeof *out, i, r->id, r->scene, r->seed_set, r->seed, r->n_sets,
                          (const char *const *)r->sets, r->frames, r->timeout, r->memory_mb};
    return SN_OK;
}
