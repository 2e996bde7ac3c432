/* lend.h — memory blocks lent for the span of one piece of work, from one list for the process.
**
** Per-frame planes that nothing carries from one frame to the next need not be each engine's:
** four engines stepped in turn on a thread then write into one block instead of four, and their
** steps' data stay within a last-level cache that one engine's fits in (eng61). A user takes a
** block, uses it, and gives it back; idle blocks wait for the next taker of any engine. The camera
** plugin keeps a list of its own for the same job (plugins/camera/cam_scratch.h): a plugin links
** nothing of the engine, so the two are alike by design, not by copy to be merged. */
#ifndef SN_LEND_H
#define SN_LEND_H

#include <stddef.h>

typedef struct sn_lent sn_lent;

/* A block of at least `bytes` (64-byte aligned) in *mem, NULL when out of memory. Its contents
** are whatever its last holder left: write before reading. Safe from any thread. */
sn_lent *sn_lend_take(size_t bytes, void **mem);
/* b back to the idle list (NULL: nothing); nothing of it may be read after. */
void sn_lend_give(sn_lent *b);

#endif
