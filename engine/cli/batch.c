/* batch.c — `sensim batch SPEC --out DIR` and `sensim batch merge`: options, the selection of
** runs (shard, resume), the summary table and the Slurm array script. */
#include "batch.h"
#include "batch_cmd.h"
#include "cli_input.h"
#include <sensim/numtext.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char SN_HELP_BATCH[] =
    "usage: sensim batch SPEC --out DIR [-j N] [--shard I/N] [--resume | --overwrite] [--dry-run]\n"
    "                    [--threads N] [--plugin-dir DIR] [--sbatch N] [--no-map-cache]\n"
    "       sensim batch merge --out DIR MANIFEST|DIR ...\n"
    "Runs every run of a batch spec (YAML: scenes, globs, sweeps of seeds and --set values), each\n"
    "as its own `sensim run` process writing DIR/<run id>/, recorded in DIR/manifest.jsonl.\n"
    "  -j N            runs at once (default: the number of cores)\n"
    "  --shard I/N     only the runs whose index % N == I (0 <= I < N); the manifest is then\n"
    "                  DIR/manifest-I-of-N.jsonl, joined later by `sensim batch merge`\n"
    "  --resume        skip the runs the manifest records as ok (redo the others)\n"
    "  --overwrite     run a batch again into a DIR that holds one (refused without it or\n"
    "                  --resume: its runs' folders would be replaced)\n"
    "  --dry-run       list the runs (id, scene, seed, overrides) and exit\n"
    "  --threads N     renderer threads of each run (default 1)\n"
    "  --sbatch N      print a Slurm job-array script running the batch as N shards, then exit\n"
    "  --no-map-cache  exec every run afresh (default: the runs of a scene with a map are forked\n"
    "                  from the batch, which loaded the map, its mesh and scenery once)\n"
    "  merge           join shard manifests (files, or folders holding manifest*.jsonl) into\n"
    "                  DIR/manifest.jsonl: the last record of each run, in run order\n"
    "Exit status: 0 every run succeeded, 1 some run failed, 2 bad input, 130 / 143 interrupted\n"
    "(SIGINT / SIGTERM).\n";

static int bad(const char *fmt, const char *a)
{
    fprintf(stderr, "sensim: error: batch: ");
    fprintf(stderr, fmt, a);
    fputc('\n', stderr);
    return 2;
}

/* A whole number by the scene's rules (numtext.h). */
static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
    uint64_t v;
    if (!sn_text_uint(s, max, &v))
        return false;
    *out = (unsigned long)v;
    return true;
}

typedef struct args {
    const char *spec, *out, *plugin_dir;
    unsigned long jobs, threads, shard_i, shard_n, sbatch;
    bool resume, overwrite, dry_run, no_map_cache;
} args;

enum { OPT_OUT = 256, OPT_PLUGIN_DIR, OPT_THREADS, OPT_SBATCH, OPT_SHARD, OPT_RESUME, OPT_OVERWRITE, OPT_DRY_RUN,
       OPT_NO_MAP_CACHE };
static const struct option OPTIONS[] = {
    {"out", required_argument, NULL, OPT_OUT},       {"plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR},
    {"jobs", required_argument, NULL, 'j'},          {"threads", required_argument, NULL, OPT_THREADS},
    {"sbatch", required_argument, NULL, OPT_SBATCH}, {"shard", required_argument, NULL, OPT_SHARD},
    {"resume", no_argument, NULL, OPT_RESUME},       {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"no-map-cache", no_argument, NULL, OPT_NO_MAP_CACHE}, {"overwrite", no_argument, NULL, OPT_OVERWRITE},
    {0},
};

static int parse(int argc, char **argv, args *a)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *a = (args){.jobs = cores > 0 ? (unsigned long)cores : 1, .threads = 1, .shard_n = 1};
    /* argv[1] ("batch") stands for the program name; "-" returns positionals in order, ":" tells
    ** a missing value from an unknown option. */
    char **args_ = argv + 1;
    int opt;
    optind = 0;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, args_, "-:j:", OPTIONS, NULL)) != -1) {
        const char *v = optarg;
        switch (opt) {
        case 1:
            if (a->spec)
                return bad("unexpected argument '%s'", v);
            a->spec = v;
            break;
        case ':':
            return bad("option '%s' needs a value (see sensim batch --help)", sn_cli_offending(args_));
        case OPT_RESUME: a->resume = true; break;
        case OPT_OVERWRITE: a->overwrite = true; break;
        case OPT_DRY_RUN: a->dry_run = true; break;
        case OPT_NO_MAP_CACHE: a->no_map_cache = true; break;
        case OPT_OUT: a->out = v; break;
        case OPT_PLUGIN_DIR: a->plugin_dir = v; break;
        case 'j':
            if (!parse_uint(v, 1024, &a->jobs) || !a->jobs)
                return bad("-j needs a whole number 1..1024, found '%s'", v);
            break;
        case OPT_THREADS:
            if (!parse_uint(v, 1024, &a->threads))
                return bad("--threads needs a whole number 0..1024, found '%s'", v);
            break;
        case OPT_SBATCH:
            if (!parse_uint(v, 100000, &a->sbatch) || !a->sbatch)
                return bad("--sbatch needs a number of shards 1..100000, found '%s'", v);
            break;
        case OPT_SHARD: {
            const char *slash = strchr(v, '/');
            char ibuf[32];
            if (!slash || (size_t)(slash - v) >= sizeof ibuf)
                return bad("--shard needs I/N with 0 <= I < N, found '%s'", v);
            memcpy(ibuf, v, (size_t)(slash - v));
            ibuf[slash - v] = 0;
            if (!parse_uint(ibuf, ULONG_MAX, &a->shard_i) || !parse_uint(slash + 1, 1000000, &a->shard_n) ||
                !a->shard_n || a->shard_i >= a->shard_n)
                return bad("--shard needs I/N with 0 <= I < N, found '%s'", v);
            break;
        }
        default:
            return bad("unknown option '%s' (see sensim batch --help)", sn_cli_offending(args_));
        }
    }
    if (!a->spec)
        return bad("no spec file given%s (usage: sensim batch SPEC --out DIR)", "");
    if (!a->out && !a->dry_run)
        return bad("--out DIR is required%s", "");
    if (a->resume && a->overwrite)
        return bad("--resume goes on with a batch, --overwrite runs it again: give one%s", "");
    return 0;
}

/* The program's own path, exec'd for every run. */
static bool self_path(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return false;
    buf[len] = 0;
    return true;
}

/* One POSIX shell word: inside single quotes nothing is special but the quote itself, which
** becomes '\'' (close, an escaped quote, reopen). The script and its merge hint use it for
** every path, so a folder named `o'$(touch X)'` stays a name (issue 33 item 20). */
static void sh_word(const char *s)
{
    putchar('\'');
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    putchar('\'');
}

/* A control character (a newline above all) would end the comment or the #SBATCH line the path
** is written on, and a quote cannot fix that: such paths are refused. */
static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static int sbatch_script(const args *a, const char *self)
{
    char spec[PATH_MAX], out[PATH_MAX];
    if (!realpath(a->spec, spec))
        return bad("cannot find the spec '%s'", a->spec);
    if (mkdir(a->out, 0777) != 0 && errno != EEXIST)
        return bad("cannot create output folder '%s'", a->out);
    if (!realpath(a->out, out))
        return bad("cannot resolve '%s'", a->out);
    const char *paths[4] = {self, spec, out, a->plugin_dir ? a->plugin_dir : ""};
    for (int i = 0; i < 4; i++)
        if (has_control(paths[i]))
            return bad("--sbatch: the path '%s' holds a control character (a newline?), which a job "
                       "script cannot carry",
                       paths[i]);
    /* sbatch reads #SBATCH lines itself: `"` quotes, `\` escapes, `#` starts a comment, and
    ** --output expands `%` patterns (a `\` turns them all off). Inside "..." with `"` escaped,
    ** spaces, quotes and `#` are safe; `\` and `%` would change the file name: refused. */
    if (strpbrk(out, "\\%"))
        return bad("--sbatch: the output folder '%s' holds '\\' or '%%', which Slurm's --output "
                   "would read as a pattern",
                   out);
    /* Slurm opens each task's --output file before the task runs: its folder must exist */
    char logs[PATH_MAX + 16];
    snprintf(logs, sizeof logs, "%s/.batch", out);
    if (mkdir(logs, 0777) != 0 && errno != EEXIST)
        return bad("cannot create the folder '%s'", logs);
    printf("#!/bin/bash\n"
           "# sensim batch as a Slurm job array: each task runs one shard; all write to one shared folder.\n"
           "# Submit: sbatch THIS_SCRIPT   Then, when every task has ended: ");
    sh_word(self);
    fputs(" batch merge --out ", stdout);
    sh_word(out);
    putchar(' ');
    sh_word(out);
    printf("\n#SBATCH --job-name=sensim-batch\n"
           "#SBATCH --array=0-%lu\n"
           "#SBATCH --ntasks=1\n"
           "#SBATCH --output=\"",
           a->sbatch - 1);
    for (const char *c = out; *c; c++) {
        if (*c == '"')
            putchar('\\');
        putchar(*c);
    }
    printf("/.batch/slurm-%%A_%%a.out\"\n"
           "set -eu\n"
           "exec ");
    sh_word(self);
    fputs(" batch ", stdout);
    sh_word(spec);
    fputs(" --out ", stdout);
    sh_word(out);
    printf(" --shard \"$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT\" "
           "-j \"${SLURM_CPUS_PER_TASK:-1}\" --threads %lu",
           a->threads);
    if (a->plugin_dir) {
        fputs(" --plugin-dir ", stdout);
        sh_word(a->plugin_dir);
    }
    fputs(" --resume\n", stdout);
    return 0;
}

typedef struct state {
    FILE *manifest;
    const char *out;
    progress prog;
    size_t counts[5];
    double walls[5];
    uint64_t frames[5];
    size_t n_failed_shown;
    size_t forked, map_hits, scenery_hits; /* runs forked on the batch's map; of them, those that reused it */
} state;

static const char *const STATUSES[5] = {"ok", "failed", "bad_input", "crashed", "timeout"};

static void on_done(const sn_batch_run *run, const batch_result *r, void *user)
{
    state *s = user;
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s", s->out, run->id);
    manifest_write(s->manifest, run, r, dir);
    for (int k = 0; k < 5; k++)
        if (strcmp(STATUSES[k], r->status) == 0) {
            s->counts[k]++;
            s->walls[k] += r->wall;
            s->frames[k] += r->frames;
        }
    s->map_hits += r->map_hit;
    s->scenery_hits += r->scenery_hit;
    progress_done(&s->prog, run, r);
}

static void on_tick(unsigned running, uint64_t frames_running, double partial, void *user)
{
    progress_tick(&((state *)user)->prog, running, frames_running, partial);
}

/* Prints the summary table of the manifest's records (this batch's and earlier ones). */
static void summary(const state *s, size_t total, size_t skipped, double wall, const char *manifest)
{
    /* runs an interrupt kept from starting failed at nothing: "not run", not "failed" */
    size_t failed = 0;
    for (int k = 1; k < 5; k++)
        failed += s->counts[k];
    size_t not_run = total - skipped - s->counts[0] - failed;
    printf("batch: %zu runs (%zu skipped as done) in %.1f s: %zu ok, %zu failed", total, skipped, wall, s->counts[0],
           failed);
    if (not_run)
        printf(", %zu not run (--resume runs them)", not_run);
    putchar('\n');
    printf("  %-10s %8s %12s %10s\n", "status", "runs", "frames", "wall s");
    for (int k = 0; k < 5; k++)
        if (s->counts[k])
            printf("  %-10s %8zu %12llu %10.2f\n", STATUSES[k], s->counts[k], (unsigned long long)s->frames[k],
                   s->walls[k]);
    if (not_run)
        printf("  %-10s %8zu %12s %10s\n", "not run", not_run, "-", "-");
    if (s->forked)
        printf("map cache: %zu runs forked on the maps the batch loaded: %zu reused the map, %zu its scenery\n",
               s->forked, s->map_hits, s->scenery_hits);
    printf("manifest: %s\n", manifest);
}

/* The runs todo[0..n): those of a shared map forked from this process, which loaded it once
** (batch_warm.c; not with --no-map-cache), the others exec'd. batch_exec's status. */
static int run_all(const args *a, const char *self, const sn_batch *b, const size_t *todo, size_t n, state *s)
{
    batch_opts o = {self, a->out, a->plugin_dir, (unsigned)a->jobs, (unsigned)a->threads, NULL, sn_cli_run_main};
    bool *forked = a->no_map_cache ? NULL : calloc(sn_batch_count(b) + 1, sizeof *forked);
    if (forked && (s->forked = batch_warm(&o, b, todo, n, forked)))
        o.forked = forked;
    int rc = batch_exec(&o, b, todo, n, on_done, on_tick, s);
    sn_map_cache_enable(false);
    free(forked);
    return rc;
}

/*
** DIR and DIR/.batch (real folders, not links), then the batch's lock: DIR/.batch/lock, or
** lock-I-of-N for a shard (shards share DIR and run at once). flock: a second batch or a
** --resume of the same manifest is refused while this one runs; the kernel drops the lock when
** the batch dies, however it dies. Then a manifest cut by a killed batch loses its cut line.
*/
/* A manifest in a->out with records whose runs this invocation may share: any but another shard's
** of the same N (shards of one split run disjoint runs side by side). Its path into buf, or NULL. */
static const char *earlier_batch(const args *a, char *buf, size_t n)
{
    DIR *d = opendir(a->out);
    const char *found = NULL;
    struct dirent *ent;
    while (d && !found && (ent = readdir(d))) {
        const char *name = ent->d_name;
        size_t len = strlen(name);
        if (strncmp(name, "manifest", 8) != 0 || len < 14 || strcmp(name + len - 6, ".jsonl") != 0)
            continue;
        unsigned long i, k;
        int used = 0;
        if (a->shard_n > 1 && sscanf(name, "manifest-%lu-of-%lu.jsonl%n", &i, &k, &used) == 2 &&
            (size_t)used == len && k == a->shard_n && i != a->shard_i)
            continue; /* a sibling shard's */
        struct stat st;
        snprintf(buf, n, "%s/%s", a->out, name);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            found = buf;
    }
    if (d)
        closedir(d);
    return found;
}

static int prepare_out(const args *a, const char *manifest, int *lock)
{
    char workdir[4200], path[4300], terr[600];
    snprintf(workdir, sizeof workdir, "%s/.batch", a->out);
    struct stat st;
    if ((mkdir(a->out, 0777) != 0 && errno != EEXIST) || (mkdir(workdir, 0777) != 0 && errno != EEXIST))
        return bad("cannot create output folder '%s'", a->out);
    if (lstat(workdir, &st) != 0 || !S_ISDIR(st.st_mode))
        return bad("'%s' is not a folder (a link?); sensim writes nothing through a link", workdir);
    if (a->shard_n > 1)
        snprintf(path, sizeof path, "%s/lock-%lu-of-%lu", workdir, a->shard_i, a->shard_n);
    else
        snprintf(path, sizeof path, "%s/lock", workdir);
    *lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (*lock < 0)
        return bad("cannot create the lock file '%s'", path);
    if (flock(*lock, LOCK_EX | LOCK_NB) != 0)
        return bad("'%s' is in use by another sensim batch (or --resume) of the same runs; wait for it to end",
                   a->out);
    if (!manifest_trim(manifest, terr, sizeof terr))
        return bad("%s", terr);
    /* An earlier batch's runs are results: a new batch into its folder would replace the folder
    ** of every run it shares an id with (a run starts in an empty folder). */
    const char *earlier = a->resume || a->overwrite ? NULL : earlier_batch(a, path, sizeof path);
    if (earlier)
        return bad("'%s' holds an earlier batch: --resume goes on with it, --overwrite runs it again (replacing "
                   "its runs' folders), or choose another --out", earlier);
    return 0;
}

/* The manifest, appended to (--resume) or new; never through a link, never a FIFO or device. */
static FILE *open_manifest(const char *path, bool append)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (append ? O_APPEND : 0), 0644);
    struct stat st;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (!append && ftruncate(fd, 0) != 0)) {
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, append ? "a" : "w");
    if (!f)
        close(fd);
    return f;
}

int sn_cli_batch(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(SN_HELP_BATCH, stdout);
            return 0;
        }
    if (argc > 2 && strcmp(argv[2], "merge") == 0)
        return sn_cli_batch_merge(argc, argv);
    args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc;
    sn_error err = {0};
    sn_batch *b = sn_batch_open(a.spec, &err);
    if (!b)
        return bad("%s", err.msg);
    char self[PATH_MAX];
    if (!self_path(self, sizeof self)) {
        sn_batch_close(b);
        return bad("cannot find the sensim program itself%s", "");
    }
    if (a.sbatch) {
        rc = sbatch_script(&a, self);
        sn_batch_close(b);
        return rc;
    }
    size_t n = sn_batch_count(b), n_todo = 0, skipped = 0;
    bool *done = calloc(n + 1, sizeof *done);
    size_t *todo = calloc(n + 1, sizeof *todo);
    char manifest[4200];
    int lock = -1;
    if (a.shard_n > 1)
        snprintf(manifest, sizeof manifest, "%s/manifest-%lu-of-%lu.jsonl", a.out ? a.out : ".", a.shard_i, a.shard_n);
    else
        snprintf(manifest, sizeof manifest, "%s/manifest.jsonl", a.out ? a.out : ".");
    if (!done || !todo) {
        rc = bad("out of memory%s", "");
        goto out;
    }
    if (!a.dry_run && (rc = prepare_out(&a, manifest, &lock)))
        goto out;
    if (a.resume)
        manifest_completed(manifest, b, done);
    for (size_t i = 0; i < n; i++) {
        if (i % a.shard_n != a.shard_i)
            continue;
        if (done[i])
            skipped++;
        else
            todo[n_todo++] = i;
    }
    if (a.dry_run) {
        for (size_t k = 0; k < n_todo; k++) {
            sn_batch_run r = {.struct_size = sizeof r};
            sn_batch_get(b, todo[k], &r, NULL);
            printf("%s\t%s\t", r.id, r.scene);
            if (r.seed_set)
                printf("seed=%llu", (unsigned long long)r.seed);
            else
                printf("seed=scene");
            for (size_t j = 0; j < r.n_overrides; j++)
                printf("\t--set %s", r.overrides[j]);
            putchar('\n');
        }
        printf("batch: %zu runs to do, %zu skipped as done, %zu in the spec\n", n_todo, skipped, n);
        goto out;
    }
    state s = {.out = a.out};
    if (!(s.manifest = open_manifest(manifest, a.resume))) {
        rc = bad("cannot write the manifest '%s' (or it is not a regular file)", manifest);
        goto out;
    }
    progress_start(&s.prog, n_todo);
    double t0 = batch_now();
    rc = run_all(&a, self, b, todo, n_todo, &s);
    progress_finish(&s.prog);
    fclose(s.manifest);
    char jerr[600];
    const char *in[1] = {manifest};
    if (!manifest_join(in, 1, manifest, jerr, sizeof jerr)) {
        fprintf(stderr, "sensim: error: batch: %s\n", jerr);
        rc = rc ? rc : 1;
    }
    summary(&s, n_todo + skipped, skipped, batch_now() - t0, manifest);
    if (rc == 128 + SIGINT || rc == 128 + SIGTERM)
        fprintf(stderr, "sensim: error: batch: interrupted; the runs under way were stopped (--resume goes on)\n");
    else if (s.counts[0] != n_todo)
        rc = 1;
out:
    if (lock >= 0)
        close(lock);
    free(done);
    free(todo);
    sn_batch_close(b);
    return rc;
}

/* sensim batch merge --out DIR INPUT...: INPUT a manifest file or a folder of manifest*.jsonl. */
int sn_cli_batch_merge(int argc, char **argv)
{
    const char *out = NULL;
    size_t n = 0;
    char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int rc = 0;
    if (!inputs)
        return bad("out of memory%s", "");
    /* argv[2] ("merge") stands for the program name; positionals come back in order (1). */
    static const struct option merge_options[] = {{"out", required_argument, NULL, OPT_OUT}, {0}};
    char **args_ = argv + 2;
    int opt;
    optind = 0;
    opterr = 0;
    while (!rc && (opt = getopt_long(argc - 2, args_, "-:", merge_options, NULL)) != -1) {
        if (opt == OPT_OUT) {
            out = optarg;
            continue;
        }
        if (opt == ':') {
            rc = bad("option '--out' needs a value%s", "");
            break;
        }
        if (opt != 1) {
            rc = bad("unknown option '%s' (see sensim batch --help)", sn_cli_offending(args_));
            break;
        }
        const char *in = optarg;
        struct stat st;
        if (stat(in, &st) != 0) {
            rc = bad("merge: cannot find '%s'", in);
        } else if (S_ISDIR(st.st_mode)) {
            /* shard manifests of a folder, in name order (the join orders by run anyway) */
            char pat[PATH_MAX];
            glob_t g;
            snprintf(pat, sizeof pat, "%s/manifest-*-of-*.jsonl", in);
            if (glob(pat, 0, NULL, &g) != 0) {
                rc = bad("merge: no manifest-I-of-N.jsonl in '%s'", in);
            } else {
                char **grown = realloc(inputs, (n + g.gl_pathc + (size_t)argc + 1) * sizeof *inputs);
                if (!grown) {
                    rc = bad("out of memory%s", "");
                } else {
                    inputs = grown;
                    for (size_t k = 0; k < g.gl_pathc; k++)
                        inputs[n++] = strdup(g.gl_pathv[k]);
                }
            }
            globfree(&g);
        } else {
            inputs[n++] = strdup(in);
        }
    }
    if (!rc && (!out || !n))
        rc = bad("merge: usage: sensim batch merge --out DIR MANIFEST|DIR ...%s", "");
    if (!rc && mkdir(out, 0777) != 0 && errno != EEXIST)
        rc = bad("cannot create output folder '%s'", out);
    if (!rc) {
        char path[4200], jerr[600];
        snprintf(path, sizeof path, "%s/manifest.jsonl", out);
        if (!manifest_join((const char *const *)inputs, n, path, jerr, sizeof jerr))
            rc = bad("merge: %s", jerr);
        else
            printf("batch: %zu manifests joined into %s\n", n, path);
    }
    for (size_t i = 0; i < n; i++)
        free(inputs[i]);
    free(inputs);
    return rc;
}
