/* progress.c — batch progress on stderr: on a terminal one redrawn bar (runs done and failed,
** simulated frames per second, time left), failures printed above it; otherwise one plain
** line per finished run, for logs and CI. */
#include "batch.h"
#include "batch_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void clock_text(double s, char *buf, size_t n)
{
    if (s < 0 || s > 1e7) {
        snprintf(buf, n, "--:--");
        return;
    }
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, n, "%02lu:%02lu", t / 60, t % 60);
}

void progress_start(progress *p, size_t total)
{
    *p = (progress){.tty = isatty(2) == 1, .total = total, .start = batch_now()};
}

static void draw(progress *p, unsigned running)
{
    double el = batch_now() - p->start;
    char left[32];
    /* runs done, plus the fraction of each running run's frames stepped (as its progress
    ** descriptor says): an estimate from the first tenth of a second, not from the first run's end */
    double done = (double)p->done + p->partial;
    clock_text(done > 0 ? el / done * ((double)p->total - done) : -1, left, sizeof left);
    int width = 30, fill = p->total ? (int)((double)width * (double)p->done / (double)p->total) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu done, %zu failed, %u running | %.0f frames/s | %s left", bar, p->done,
            p->total, p->failed, running, el > 0 ? (double)(p->frames + p->frames_running) / el : 0.0, left);
    fflush(stderr);
    p->last_draw = batch_now();
}

void progress_tick(progress *p, unsigned running, uint64_t frames_running, double partial)
{
    p->frames_running = frames_running;
    p->partial = partial;
    if (p->tty && batch_now() - p->last_draw >= 0.1)
        draw(p, running);
}

void progress_done(progress *p, const sn_batch_run *run, const batch_result *r)
{
    p->done++;
    p->frames_running = 0, p->partial = 0; /* counted again at the next tick, without this run */
    p->frames += r->frames;
    bool ok = r->exit_code == 0;
    if (!ok)
        p->failed++;
    if (p->tty) {
        if (!ok)
            fprintf(stderr, "\r\033[K%s %s: %s\n", run->id, r->status, r->error);
        return;
    }
    fprintf(stderr, "batch: [%zu/%zu] %s %s %.2f s %llu frames%s%s\n", p->done, p->total, run->id, r->status,
            r->wall, (unsigned long long)r->frames, ok ? "" : ": ", ok ? "" : r->error);
}

void progress_finish(progress *p)
{
    if (p->tty) {
        draw(p, 0);
        fputc('\n', stderr);
    }
}

/* SIGINT or SIGTERM during a run: the frame in progress ends, then the run stops as a failed one
** does (its outputs left staged, DIR as it was) and main.c says so before dying of the signal. */
static volatile sig_atomic_t g_interrupt;
static void on_interrupt(int sig) { g_interrupt = sig; }
int sn_cli_interrupted(void) { return (int)g_interrupt; }

/* The frames, one step at a time: progress lines to a batch (SENSIM_PROGRESS_FD), a storyboard's
** end, an interrupt. The steps and the finish are sn_engine_run's. */
static sn_status run_loop(sn_engine *e, sn_error *err)
{
    const char *v = getenv("SENSIM_PROGRESS_FD");
    char *end = NULL;
    long fd = v ? strtol(v, &end, 10) : -1;
    sn_run_stats s = {.struct_size = sizeof s};
    sn_engine_stats(e, &s, NULL);
    uint64_t n = s.frames_planned;
    if (n > SN_LIMIT_FRAMES)
        return sn_engine_run(e, 0, err); /* which refuses it */
    if (!v || *end || fd < 3 || fd > 1023 || fcntl((int)fd, F_GETFD) < 0)
        fd = -1; /* not under a batch */
    else
        fcntl((int)fd, F_SETFL, O_NONBLOCK); /* a batch that does not read never blocks the run */
    double last = 0;
    sn_scenario_info sc = {.struct_size = sizeof sc};
    for (uint64_t f = 1; f <= n; f++) {
        if (sn_engine_scenario(e, &sc, NULL) == SN_OK && sc.ended) /* the storyboard ended the run */
            break;
        sn_status st = sn_engine_step(e, err);
        if (st || g_interrupt) { /* an interrupt stops the run after the frame in progress */
            sn_engine_finish(e, false, NULL);
            if (!st && err) {
                err->status = SN_E_STATE;
                snprintf(err->msg, sizeof err->msg, "run: interrupted");
            }
            return st ? st : SN_E_STATE;
        }
        double now = fd >= 0 ? batch_now() : 0;
        if (fd >= 0 && (now - last >= 0.1 || f == n)) {
            char line[64];
            int len = snprintf(line, sizeof line, "%llu %llu\n", (unsigned long long)f, (unsigned long long)n);
            (void)!write((int)fd, line, (size_t)len); /* progress only: a full pipe drops a line */
            last = now;
        }
    }
    return sn_engine_finish(e, true, err);
}

sn_status sn_cli_run_frames(sn_engine *e, sn_error *err)
{
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    /* the writer threads' writes go on; a second signal takes the default action at once (a
    ** frame that never ends still stops) */
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    /* a signal the caller ignores stays ignored (a shell's `cmd &` ignores SIGINT on purpose) */
    if (old_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
    sn_status st = run_loop(e, err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return st;
}
