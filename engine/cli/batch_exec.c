/* batch_exec.c — the batch scheduler: every run is `sensim run` in a process of its own, so
** a run that crashes, hangs or exhausts memory never takes the others down. The parent
** blocks SIGCHLD/SIGINT/SIGTERM and waits for them with sigtimedwait: no polling, no races. */
#include "batch.h"
#include "cli_input.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double batch_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct job {
    pid_t pid; /* 0: free slot */
    size_t run;
    sn_batch_run info;
    double start, deadline; /* deadline 0: none */
    bool timed_out;
    int progress_fd;        /* read end of the run's progress pipe (SENSIM_PROGRESS_FD), -1 none */
    uint64_t frames_done, frames_planned;
    char pbuf[128];
    size_t pn;
    char stats[4200], errlog[4200], dir[4200];
} job;

/* The argument list of one run, built before fork (nothing is allocated in the child). */
typedef struct argv_buf {
    char *v[64 + 2 * 1024];
    char seed[32], frames[32], threads[32];
    char nomem[300]; /* what the child says when exec fails under memory_mb */
    int n;           /* arguments in v */
} argv_buf;

static bool build_argv(const batch_opts *o, job *j, argv_buf *a)
{
    const sn_batch_run *r = &j->info;
    if (r->n_overrides > 1024)
        return false;
    size_t n = 0;
    a->v[n++] = (char *)o->self;
    a->v[n++] = "run";
    a->v[n++] = (char *)r->scene;
    a->v[n++] = "--out";
    a->v[n++] = j->dir;
    a->v[n++] = "--quiet";
    a->v[n++] = "--stats";
    a->v[n++] = j->stats;
    snprintf(a->threads, sizeof a->threads, "%u", o->threads);
    a->v[n++] = "--threads";
    a->v[n++] = a->threads;
    if (o->plugin_dir) {
        a->v[n++] = "--plugin-dir";
        a->v[n++] = (char *)o->plugin_dir;
    }
    if (r->seed_set) {
        snprintf(a->seed, sizeof a->seed, "%llu", (unsigned long long)r->seed);
        a->v[n++] = "--seed";
        a->v[n++] = a->seed;
    }
    if (r->frames) {
        snprintf(a->frames, sizeof a->frames, "%llu", (unsigned long long)r->frames);
        a->v[n++] = "--frames";
        a->v[n++] = a->frames;
    }
    for (size_t i = 0; i < r->n_overrides; i++) {
        a->v[n++] = "--set";
        a->v[n++] = (char *)r->overrides[i];
    }
    a->v[n] = NULL;
    a->n = (int)n;
    return true;
}

static bool start(const batch_opts *o, job *j, const sigset_t *child_mask)
{
    argv_buf a;
    if (!batch_rmtree(j->dir) || !build_argv(o, j, &a))
        return false;
    /* A link planted at either name goes (remove() takes the link, not its target); the child
    ** then creates its log exclusively, never through a link, as `sensim run` opens outputs. */
    if ((remove(j->stats) != 0 && errno != ENOENT) || (remove(j->errlog) != 0 && errno != ENOENT))
        return false;
    snprintf(a.nomem, sizeof a.nomem,
             "sensim: error: batch: run '%s' cannot start within memory_mb %llu (its address-space limit, "
             "RLIMIT_AS %llu MiB, is below what the sensim program needs to load)\n",
             j->info.id, (unsigned long long)j->info.memory_mb, (unsigned long long)j->info.memory_mb);
    pid_t parent = getpid();
    bool in_process = o->forked && o->forked[j->run] && o->play;
    if (in_process)
        fflush(NULL); /* nothing buffered here may be written twice, by the run too */
    int pp[2] = {-1, -1};
    if (pipe(pp) != 0)
        pp[0] = pp[1] = -1; /* no progress from this run: the bar estimates without it */
    for (int k = 0; k < 2 && pp[k] >= 0; k++)
        fcntl(pp[k], F_SETFD, FD_CLOEXEC); /* the other runs must not hold this one's pipe */
    pid_t pid = fork();
    if (pid < 0) {
        if (pp[0] >= 0)
            close(pp[0]), close(pp[1]);
        return false;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group: a timeout kills the run and anything it started */
        /* The batch killed (even by SIGKILL, which it cannot catch) takes its runs with it; a
        ** parent that died before this line is seen by getppid(). Kept across execv. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(128 + SIGKILL);
        sigprocmask(SIG_SETMASK, child_mask, NULL);
        int in = open("/dev/null", O_RDONLY),
            err = open(j->errlog, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (in >= 0)
            dup2(in, 0);
        if (err >= 0) {
            dup2(err, 2);
            dup2(err, 1); /* --quiet: only warnings and errors come out */
        }
        if (pp[1] >= 0) { /* the run reports "frames planned" lines on fd 3 (progress.c) */
            if (pp[1] == 3)
                fcntl(3, F_SETFD, 0);
            else
                dup2(pp[1], 3);
            setenv("SENSIM_PROGRESS_FD", "3", 1);
        }
        if (j->info.memory_mb) {
            rlim_t lim = (rlim_t)j->info.memory_mb << 20;
            struct rlimit rl = {lim, lim};
            setrlimit(RLIMIT_AS, &rl);
        }
        if (in_process) {
            /* The run plays here, on the map this process loaded (batch_warm.c). What exec would
            ** have closed goes: every descriptor but its stdin, stdout, stderr and progress pipe. */
            syscall(SYS_close_range, 4u, ~0u, 0u);
            _exit(o->play(a.n, a.v));
        }
        execv(o->self, a.v);
        if (errno == ENOMEM && j->info.memory_mb) {
            (void)!write(2, a.nomem, strlen(a.nomem));
        } else {
            static const char msg[] = "sensim: error: batch: cannot start the sensim program\n";
            (void)!write(2, msg, sizeof msg - 1);
        }
        _exit(127);
    }
    setpgid(pid, pid); /* also here, so a kill right away finds the group */
    if (pp[1] >= 0) {
        close(pp[1]);
        fcntl(pp[0], F_SETFL, O_NONBLOCK);
    }
    j->progress_fd = pp[0];
    j->frames_done = j->frames_planned = 0;
    j->pn = 0;
    j->pid = pid;
    j->start = batch_now();
    j->deadline = j->info.timeout > 0 ? j->start + j->info.timeout : 0;
    j->timed_out = false;
    return true;
}

/* The last "sensim: error:" line of the run's stderr, or "". */
static void last_error(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = sn_cli_open_input(path, NULL);
    if (!f)
        return;
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "sensim: error: ", 15) != 0)
            continue;
        size_t len = strcspn(line, "\n");
        if (len >= n)
            len = n - 1; /* a long line is cut, not dropped */
        memcpy(out, line, len);
        out[len] = 0;
    }
    fclose(f);
}

/* The first line of the run's stderr (what the dynamic loader says when it cannot map a library), or "". */
static void first_line(const char *path, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = sn_cli_open_input(path, NULL);
    if (f && fgets(out, (int)n, f))
        out[strcspn(out, "\n")] = 0;
    if (f)
        fclose(f);
}

/* A run that died before saying why, under memory_mb: the limit is the likely cause (the
** loader exits 127 when it cannot map a library; an allocation that fails outside sensim's
** checks ends in a signal). Named, with what the run said, instead of a bare status. */
static void blame_memory(const job *j, batch_result *r)
{
    if (r->error[0] || !j->info.memory_mb || j->timed_out || (r->exit_code != 127 && !r->signal))
        return;
    char said[300];
    first_line(j->errlog, said, sizeof said);
    char how[64];
    if (r->signal)
        snprintf(how, sizeof how, "was killed by signal %d (%s)", r->signal, strsignal(r->signal));
    else
        snprintf(how, sizeof how, "exited with status %d", r->exit_code);
    snprintf(r->error, sizeof r->error,
             "%s under memory_mb %llu (its address-space limit, RLIMIT_AS %llu MiB): most likely too little memory "
             "for the program and its libraries; raise memory_mb%s%s", how,
             (unsigned long long)j->info.memory_mb, (unsigned long long)j->info.memory_mb, said[0] ? "; it said: " : "",
             said);
}

/* The frames stepped, and whether the map cache served the run, from its --stats. */
static void read_stats(const char *path, batch_result *r)
{
    FILE *f = sn_cli_open_input(path, NULL);
    unsigned long long frames = 0;
    char buf[4096];
    size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[got] = 0;
    if (f)
        fclose(f);
    if (sscanf(buf, "{\"frames\":%llu", &frames) != 1)
        frames = 0;
    r->frames = frames;
    /* the counts are the process's: a forked run's start from this process's own */
    const char *mc = strstr(buf, "\"map_cache\":{");
    unsigned long long mh, sh;
    uint64_t mh0, sh0;
    sn_map_cache_stats(NULL, &mh0, &sh0);
    if (mc && sscanf(mc, "\"map_cache\":{\"map_hits\":%llu,\"scenery_hits\":%llu", &mh, &sh) == 2)
        r->map_hit = mh > mh0, r->scenery_hit = sh > sh0;
}

/* Reads what the run reported since the last call; keeps its last whole line. */
static void read_progress(job *j)
{
    if (j->progress_fd < 0)
        return;
    ssize_t got;
    while ((got = read(j->progress_fd, j->pbuf + j->pn, sizeof j->pbuf - 1 - j->pn)) > 0) {
        j->pn += (size_t)got;
        j->pbuf[j->pn] = 0;
        char *nl;
        while ((nl = strchr(j->pbuf, '\n'))) {
            unsigned long long d, p;
            if (sscanf(j->pbuf, "%llu %llu", &d, &p) == 2 && p && d <= p)
                j->frames_done = d, j->frames_planned = p;
            size_t used = (size_t)(nl + 1 - j->pbuf);
            memmove(j->pbuf, nl + 1, j->pn - used + 1);
            j->pn -= used;
        }
        if (j->pn >= sizeof j->pbuf - 1)
            j->pn = 0; /* not a line of ours: dropped */
    }
}

static void close_progress(job *j)
{
    if (j->progress_fd >= 0)
        close(j->progress_fd);
    j->progress_fd = -1;
}

static void finish(job *j, int wstatus, batch_result *r)
{
    close_progress(j);
    memset(r, 0, sizeof *r);
    r->wall = batch_now() - j->start;
    read_stats(j->stats, r);
    remove(j->stats);
    last_error(j->errlog, r->error, sizeof r->error);
    if (WIFEXITED(wstatus))
        r->exit_code = WEXITSTATUS(wstatus);
    else
        r->signal = WTERMSIG(wstatus);
    blame_memory(j, r);
    if (WIFEXITED(wstatus)) {
        r->exit_code = WEXITSTATUS(wstatus);
        r->status = r->exit_code == 0 ? "ok" : r->exit_code == 2 ? "bad_input" : "failed";
        if (r->exit_code && !r->error[0])
            snprintf(r->error, sizeof r->error, "exited with status %d", r->exit_code);
    } else {
        r->exit_code = -1;
        r->signal = WTERMSIG(wstatus);
        r->status = j->timed_out ? "timeout" : "crashed";
        if (j->timed_out)
            snprintf(r->error, sizeof r->error, "timed out after %g s (killed)", j->info.timeout);
        else if (!r->error[0])
            snprintf(r->error, sizeof r->error, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
    }
    if (r->exit_code == 0)
        r->error[0] = 0;
    struct stat st;
    if (stat(j->errlog, &st) == 0 && st.st_size == 0)
        remove(j->errlog); /* keep the log only when it says something */
    j->pid = 0;
}

int batch_exec(const batch_opts *o, const sn_batch *b, const size_t *todo, size_t n, batch_done_fn done,
               batch_tick_fn tick, void *user)
{
    unsigned slots = o->jobs ? o->jobs : 1;
    job *jobs = calloc(slots, sizeof *jobs);
    if (!jobs)
        return 1;
    sigset_t wait_set, old;
    sigemptyset(&wait_set);
    sigaddset(&wait_set, SIGCHLD);
    sigaddset(&wait_set, SIGINT);
    sigaddset(&wait_set, SIGTERM);
    sigprocmask(SIG_BLOCK, &wait_set, &old);
    size_t next = 0, finished = 0;
    unsigned running = 0;
    int rc = 0;
    while (finished < n && !rc) {
        for (unsigned s = 0; s < slots && next < n; s++) {
            if (jobs[s].pid)
                continue;
            job *j = &jobs[s];
            j->run = todo[next++];
            j->info = (sn_batch_run){.struct_size = sizeof j->info};
            sn_batch_get(b, j->run, &j->info, NULL);
            snprintf(j->dir, sizeof j->dir, "%s/%s", o->out, j->info.id);
            snprintf(j->stats, sizeof j->stats, "%s/.batch/%s.stats", o->out, j->info.id);
            snprintf(j->errlog, sizeof j->errlog, "%s/.batch/%s.stderr", o->out, j->info.id);
            if (start(o, j, &old)) {
                running++;
                continue;
            }
            batch_result r = {.status = "failed", .exit_code = -1, .wall = 0};
            snprintf(r.error, sizeof r.error, "sensim: error: batch: cannot start run '%s': %s", j->info.id,
                     strerror(errno));
            j->pid = 0;
            finished++;
            done(&j->info, &r, user);
        }
        /* Sleep until a child ends, a signal comes, the next deadline or the next tick. */
        double now = batch_now(), wake = now + 0.1;
        for (unsigned s = 0; s < slots; s++)
            if (jobs[s].pid && jobs[s].deadline && jobs[s].deadline < wake)
                wake = jobs[s].deadline;
        if (running) {
            double d = wake > now ? wake - now : 0;
            struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
            int sig = sigtimedwait(&wait_set, NULL, &ts);
            if (sig == SIGINT || sig == SIGTERM)
                rc = 128 + sig; /* 130 Ctrl-C, 143 SIGTERM, as a shell reports a process they ended */
        }
        int wstatus;
        pid_t pid;
        while (running && (pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
            for (unsigned s = 0; s < slots; s++) {
                if (jobs[s].pid != pid)
                    continue;
                kill(-pid, SIGKILL); /* whatever the run left behind in its group */
                batch_result r;
                finish(&jobs[s], wstatus, &r);
                running--;
                finished++;
                done(&jobs[s].info, &r, user);
            }
        }
        now = batch_now();
        for (unsigned s = 0; s < slots; s++)
            if (jobs[s].pid && jobs[s].deadline && now >= jobs[s].deadline && !jobs[s].timed_out) {
                jobs[s].timed_out = true;
                kill(-jobs[s].pid, SIGKILL);
            }
        if (tick) {
            uint64_t frames = 0;
            double partial = 0;
            for (unsigned s = 0; s < slots; s++)
                if (jobs[s].pid) {
                    read_progress(&jobs[s]);
                    frames += jobs[s].frames_done;
                    if (jobs[s].frames_planned)
                        partial += (double)jobs[s].frames_done / (double)jobs[s].frames_planned;
                }
            tick(running, frames, partial, user);
        }
    }
    for (unsigned s = 0; s < slots; s++) /* interrupted: nothing keeps running behind our back */
        if (jobs[s].pid) {
            kill(-jobs[s].pid, SIGKILL);
            waitpid(jobs[s].pid, NULL, 0);
            close_progress(&jobs[s]);
        }
    struct timespec zero = {0, 0};
    while (sigtimedwait(&wait_set, NULL, &zero) > 0) /* consumed: they were handled above */
        ;
    sigprocmask(SIG_SETMASK, &old, NULL);
    free(jobs);
    return rc;
}
