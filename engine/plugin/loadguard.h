/* loadguard.h — a crash while a plugin file loads goes back to the loader instead of killing
** the process: library.c marks the load, the crash handler (sim/guard.c) takes the mark. */
#ifndef SN_PLUGIN_LOADGUARD_H
#define SN_PLUGIN_LOADGUARD_H

#include <setjmp.h>

/* Loading a plugin file (library.c): a crash inside its sn_plugin_entry, or while its
** descriptor is read, jumps back to `jb` with the signal number (when the handlers are
** installed, sim/guard.h), so the file is refused by name. Per thread. */
void sn_guard_load_enter(sigjmp_buf *jb);
void sn_guard_load_leave(void);
/* The crash handler's side: this thread's mark, cleared; NULL when no file is loading. */
sigjmp_buf *sn_guard_load_take(void);

#endif
