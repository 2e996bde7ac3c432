/* batch_warm.c — the map loaded once for the runs of a batch that share it: the batch process
** loads each shared scene once into the map cache (sensim/map.h) and its runs are forked from
** it, so each run still lives in a process of its own (its exit status, timeout, memory limit
** and crash stay its own) but finds the parsed map, road mesh and scenery in memory it shares
** copy-on-write. Why fork and not a cache file: docs/batch.md. */
#include "batch.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void no_log(sn_log_level level, const char *line, void *user)
{
    (void)level, (void)line, (void)user;
}

/* The run's scene loaded as the run loads it (seed and overrides), outputs aside; true when it loaded. */
static bool load(const batch_opts *o, const sn_batch_run *r)
{
    sn_engine_options eo = {.plugin_dir = o->plugin_dir, .threads = 1, .seed_set = r->seed_set, .seed = r->seed,
                            .quiet_plugins = true, .log = no_log};
    sn_error err = {0};
    sn_engine *e = sn_engine_create(&eo, &err);
    if (!e)
        return false;
    bool ok = sn_engine_load_scene_with_overrides(e, r->scene, r->overrides, r->n_overrides, &err) == SN_OK;
    sn_engine_destroy(e);
    return ok;
}

/* The same load in a child first: a scene whose load crashes, hangs (past the run's timeout,
** or 10 minutes) or fails is not loaded here; its runs then say why, each on its own. */
static bool trial(const batch_opts *o, const sn_batch_run *r)
{
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0)
            dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
        alarm(r->timeout > 0 && r->timeout < 600 ? (unsigned)r->timeout + 1 : 600);
        _exit(load(o, r) ? 0 : 1);
    }
    int st;
    pid_t got;
    while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    return got == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Threads of this process (/proc/self/status), 0 when unknown. A fork copies only the calling
** thread: with another one alive (a library's pool left running by a load), a lock it held
** would stay held in every run, so the runs are then exec'd as before. */
static unsigned threads(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %u", &n) == 1)
            break;
    if (f)
        fclose(f);
    return n;
}

size_t batch_warm(const batch_opts *o, const sn_batch *b, const size_t *todo, size_t n, bool *forked)
{
    sn_map_cache_enable(true);
    /* the runs by scene: group[k] is run k's group (of todo's positions), first[g] the position
    ** of group g's first run, count[g] its runs, scene[g] its scene (b's string) */
    size_t *first = malloc((n ? n : 1) * sizeof *first), n_first = 0, marked = 0;
    size_t *count = calloc(n ? n : 1, sizeof *count);
    size_t *group = malloc((n ? n : 1) * sizeof *group);
    const char **scene = malloc((n ? n : 1) * sizeof *scene);
    if (!first || !count || !group || !scene) {
        free(first), free(count), free(group), free(scene);
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        sn_batch_run r = {.struct_size = sizeof r};
        sn_batch_get(b, todo[k], &r, NULL);
        size_t g = 0;
        while (g < n_first && strcmp(scene[g], r.scene))
            g++;
        if (g == n_first)
            first[n_first] = k, scene[n_first++] = r.scene;
        count[g]++;
        group[k] = g;
    }
    bool *warm = calloc(n_first ? n_first : 1, sizeof *warm);
    for (size_t g = 0; warm && g < n_first; g++) {
        if (count[g] < 2)
            continue; /* one run: nothing to share */
        sn_batch_run r = {.struct_size = sizeof r};
        sn_batch_get(b, todo[first[g]], &r, NULL);
        size_t maps0, maps1;
        uint64_t hits0, hits1;
        sn_map_cache_stats(&maps0, &hits0, NULL);
        warm[g] = trial(o, &r) && load(o, &r);
        sn_map_cache_stats(&maps1, &hits1, NULL);
        warm[g] = warm[g] && (maps1 > maps0 || hits1 > hits0); /* a scene without a map gains nothing */
    }
    bool alone = threads() == 1;
    for (size_t k = 0; warm && alone && k < n; k++)
        if (warm[group[k]])
            forked[todo[k]] = true, marked++;
    free(warm), free(first), free(count), free(group), free(scene);
    return marked;
}
