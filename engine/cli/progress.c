/* progress.c — batch progress on stderr: on a terminal one redrawn bar (runs done and failed,
** simulated frames per second, time left), failures printed above it; otherwise one plain
** line per finished run, for logs and CI. */
#include "batch.h"

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
    clock_text(p->done ? el / (double)p->done * (double)(p->total - p->done) : -1, left, sizeof left);
    int width = 30, fill = p->total ? (int)((double)width * (double)p->done / (double)p->total) : width;
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu done, %zu failed, %u running | %.0f frames/s | %s left", bar, p->done,
            p->total, p->failed, running, el > 0 ? (double)p->frames / el : 0.0, left);
    fflush(stderr);
    p->last_draw = batch_now();
}

void progress_tick(progress *p, unsigned running)
{
    if (p->tty && batch_now() - p->last_draw >= 0.1)
        draw(p, running);
}

void progress_done(progress *p, const sn_batch_run *run, const batch_result *r)
{
    p->done++;
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
