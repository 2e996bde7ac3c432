/* strpool.h — strings kept together for the life of their owner, equal ones once.
**
** A scene keeps its entries' names, blueprints and attach_to for the run (resets, scheduled
** spawns, messages). As separate allocations each took 32 bytes; 10 000 vehicles and their
** sensors repeat two blueprint names and each sensor names its vehicle again. The pool packs
** them into 4 KiB blocks and, while its index is kept (sn_strpool_index_drop), hands out one
** copy per text. Pooled strings are read-only and freed only with the pool. */
#ifndef SN_CORE_STRPOOL_H
#define SN_CORE_STRPOOL_H

#include "strmap.h"

typedef struct sn_strpool {
    struct sn_strblock *blocks; /* newest first */
    sn_strmap index;            /* text -> its pooled copy, until dropped */
    bool no_index;              /* dropped: later strings are appended without a lookup */
} sn_strpool;

/* Zero-initialised is empty. The pooled copy of s (equal to an earlier one while indexed);
** NULL when out of memory. */
char *sn_strpool_add(sn_strpool *p, const char *s);
/* Frees the index (the strings stay): a parsed scene needs no more lookups. */
void sn_strpool_index_drop(sn_strpool *p);
void sn_strpool_free(sn_strpool *p);

#endif
