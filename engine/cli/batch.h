/* batch.h — `sensim batch`: the parts shared by the scheduler, the manifest and the progress
** display (all in engine/cli, on the public API only). */
#ifndef SN_CLI_BATCH_H
#define SN_CLI_BATCH_H

#include <sensim/sensim.h>

#include <stdio.h>

/* How one run ended. */
typedef struct batch_result {
    const char *status; /* "ok", "failed" (exit 1), "bad_input" (exit 2), "crashed", "timeout" */
    int exit_code;      /* -1 when killed by a signal */
    int signal;         /* 0 when it exited */
    double wall;        /* seconds */
    uint64_t frames;    /* frames stepped (from the run's --stats) */
    char error[1024];   /* the run's last "sensim: error:" line, or why it died; "" when ok */
    bool map_hit, scenery_hit; /* it found its map (its scenery) in the map cache (its --stats) */
} batch_result;

typedef struct batch_opts {
    const char *self;       /* this program, exec'd for every run */
    const char *out;        /* DIR */
    const char *plugin_dir; /* passed on, may be NULL */
    unsigned jobs, threads; /* runs at once; renderer threads per run */
    /* Runs marked here (by run index, NULL: none) are forked from this process and play in it
    ** through sn_cli_run_main instead of exec'ing `self`: they find their map in the map cache
    ** batch_warm filled (batch_warm.c). */
    const bool *forked;
    int (*play)(int argc, char **argv); /* what a forked run calls: sn_cli_run_main */
} batch_opts;

/*
** Runs that share a map load it once (docs/batch.md, "Runs that share a map"): turns the map
** cache on and, for each scene that two or more of the runs todo[0..n) play, loads the first
** of them in this process (after a forked trial load of the same, so a scene that crashes or
** hangs its load never takes the batch down), keeping its map, road mesh and scenery. Marks
** forked[run index] for the runs of every scene whose load left a map in the cache; the rest
** run as before. Returns how many runs it marked.
*/
size_t batch_warm(const batch_opts *o, const sn_batch *b, const size_t *todo, size_t n, bool *forked);

/* Called when a run ends; and about ten times a second with the number running, the frames
** they have stepped and the sum of their fractions done (frames stepped / planned). */
typedef void (*batch_done_fn)(const sn_batch_run *run, const batch_result *r, void *user);
typedef void (*batch_tick_fn)(unsigned running, uint64_t frames_running, double partial, void *user);

/*
** Runs the runs `todo[0..n)` of b, at most o->jobs at once, each `sensim run` in its own
** process group (setrlimit for memory_mb; SIGKILL at its timeout) writing o->out/<id>/.
** Returns 0, or 130 when interrupted (SIGINT/SIGTERM: the runs under way are killed).
*/
int batch_exec(const batch_opts *o, const sn_batch *b, const size_t *todo, size_t n, batch_done_fn done,
               batch_tick_fn tick, void *user);

/* The manifest: one JSON object per line. */
void manifest_write(FILE *f, const sn_batch_run *run, const batch_result *r, const char *run_dir);
/* Drops a cut last line (a record without its newline: the batch was killed while writing
** it), so --resume appends after the last whole record. false with a message in err. */
bool manifest_trim(const char *path, char *err, size_t errn);
/* Marks done[i] for every run of b recorded as "ok" in the manifest at path (missing: none). */
void manifest_completed(const char *path, const sn_batch *b, bool *done);
/*
** Joins manifests: the last record of each run id wins, ordered by run index, written to
** `out` through a temporary file and a rename. false with a message in err.
*/
bool manifest_join(const char *const *inputs, size_t n, const char *out, char *err, size_t errn);

/* Progress on stderr: a bar on a terminal, plain lines otherwise. */
typedef struct progress {
    bool tty;
    size_t total, done, failed;
    uint64_t frames, frames_running; /* of the runs ended; stepped so far by those running */
    double partial;                  /* the running runs' fractions done, summed */
    double start, last_draw;
} progress;
void progress_start(progress *p, size_t total);
void progress_tick(progress *p, unsigned running, uint64_t frames_running, double partial);
void progress_done(progress *p, const sn_batch_run *run, const batch_result *r);
void progress_finish(progress *p);
double batch_now(void); /* monotonic seconds */

/* Removes a file tree (no error when absent); false when something stays. */
bool batch_rmtree(const char *path);

#endif
