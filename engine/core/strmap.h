/* strmap.h — a string-keyed hash map (open addressing, linear probing) for name lookups.
**
** Keys are borrowed: the map stores the caller's pointer, which must outlive its entry.
** Values are opaque pointers. Used where a scene of thousands of named actors would make a
** linear strcmp search quadratic. */
#ifndef SN_CORE_STRMAP_H
#define SN_CORE_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sn_strmap_slot {
    const char *key; /* NULL = empty; SN_STRMAP_GONE = deleted */
    void *value;
} sn_strmap_slot;

typedef struct sn_strmap {
    sn_strmap_slot *slots;
    size_t cap, used, live; /* used counts deleted slots too */
} sn_strmap;

/* Zero-initialised is an empty map. */
void sn_strmap_free(sn_strmap *m);
/* Inserts or replaces. false only when out of memory. */
bool sn_strmap_put(sn_strmap *m, const char *key, void *value);
void *sn_strmap_get(const sn_strmap *m, const char *key);
/* Removes key if present. */
void sn_strmap_del(sn_strmap *m, const char *key);

#endif
