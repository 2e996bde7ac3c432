/* guard.c — reporting a crash inside a plugin callback by plugin and callback name. */
#include "guard.h"
#include "engine.h"
#include "../plugin/loadguard.h"
#include "../output/spool.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Plugin calls happen on the engine's thread, one at a time; the handler reads these. Per
** thread, so engines running on different threads never see each other's record (a crash is
** handled on the thread that crashed). */
static _Thread_local const char *volatile g_callback;
static _Thread_local const sn_sensor *volatile g_sensor;

void sn_guard_enter(const sn_sensor *s, const char *callback)
{
    g_sensor = s;
    g_callback = callback;
}

void sn_guard_leave(void)
{
    g_callback = NULL;
    g_sensor = NULL;
}

void sn_guard_current(const sn_sensor **s, const char **callback)
{
    *s = g_sensor, *callback = g_callback;
}

/* Only async-signal-safe calls from here on: write(2) of pieces, no stdio, no malloc. */
static void put(const char *s)
{
    size_t n = strlen(s);
    while (n) {
        ssize_t k = write(2, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
    }
}

/* A frame number in decimal, without stdio. */
static void put_u64(uint64_t v)
{
    char buf[24];
    int i = (int)sizeof buf - 1;
    buf[i] = 0;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    put(buf + i);
}

static void on_crash(int sig)
{
    sigjmp_buf *jb = sn_guard_load_take();
    if (jb) { /* inside a plugin's entry or descriptor: back to the loader, which refuses the file */
        sn_guard_install(); /* SA_RESETHAND dropped this handler */
        siglongjmp(*jb, sig);
    }
    const sn_sensor *s = g_sensor;
    const char *cb = g_callback;
    if (s && cb) {
        put("sensim: error: plugin ");
        put(s->bp->plugin ? s->bp->plugin->path : "built-in");
        put(": crashed in ");
        put(cb);
        put(" of sensor '");
        put(s->name);
        put("' (");
        put(s->bp->id);
        put(") at frame ");
        put_u64(s->engine->clock.frame);
        put(": ");
        put(signal_name(sig));
        /* where the outputs are: staged while the run writes, its partial folder after a failed
        ** finish, --out after a whole one (a crash in destroy); at load none were written */
        const sn_engine *e = s->engine;
        const char *dir = e->outputs_open ? e->out_dir : e->partial_dir ? e->partial_dir : e->final_dir;
        if (dir) {
            put(e->outputs_open || e->partial_dir ? "; the outputs of the frames before it are in "
                                                  : "; the run's outputs are in ");
            put(dir);
            put("\n");
        } else {
            put("; no outputs were written\n");
        }
        sn_spool_crash_drain(s->engine->spool); /* the frames before it reach their files */
    } else {
        put("sensim: error: engine: crashed with ");
        put(signal_name(sig));
        put(" outside any plugin callback; please report this as a sensim bug\n");
    }
    /* SA_RESETHAND restored the default action: dying of the same signal keeps the status. */
    raise(sig);
}

void sn_guard_install(void)
{
    static char altstack[64 * 1024];
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    sigaltstack(&ss, NULL);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = SA_RESETHAND | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}
