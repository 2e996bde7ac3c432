/* guard.h — which plugin callback is running, so that a crash inside one can name it.
**
** The engine marks every call into a plugin with sn_guard_enter/sn_guard_leave (a per-thread
** record). A program that wants crashes reported (the sensim CLI does; an embedding
** application owns its own signal handling and may not) calls sn_install_crash_reporter()
** (sensim.h, which calls sn_guard_install()) once. Then SIGSEGV, SIGBUS, SIGFPE,
** SIGILL and SIGABRT print one line naming the plugin file, the sensor and the callback, and
** the process dies of the same signal, so exit status and core dumps stay what they were. */
#ifndef SN_GUARD_H
#define SN_GUARD_H

#include "ctx.h"

/* Marks the start of `callback` (a string literal or host-owned name) on sensor s. */
void sn_guard_enter(const sn_sensor *s, const char *callback);
void sn_guard_leave(void);
/* What the last sn_guard_enter named (NULLs after a leave): a call into a second plugin from
** inside a callback (host_v2x.c) names that plugin, then puts the first back. */
void sn_guard_current(const sn_sensor **s, const char **callback);
/* A plugin file's load is marked by plugin/loadguard.h; the handler jumps back to it. */
/* Installs the crash handlers (with an alternate signal stack, so stack overflows report too). */
void sn_guard_install(void);

#endif
