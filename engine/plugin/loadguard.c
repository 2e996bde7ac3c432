/* loadguard.c — see loadguard.h. */
#include "loadguard.h"

#include <stddef.h>

/* Per thread, so engines loading on different threads never see each other's mark. */
static _Thread_local sigjmp_buf *volatile g_load_jmp;

void sn_guard_load_enter(sigjmp_buf *jb) { g_load_jmp = jb; }
void sn_guard_load_leave(void) { g_load_jmp = NULL; }

sigjmp_buf *sn_guard_load_take(void)
{
    sigjmp_buf *jb = g_load_jmp;
    g_load_jmp = NULL;
    return jb;
}
