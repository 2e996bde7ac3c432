/* vshare.h — attribute value blocks shared by the actors that resolved to the same values.
**
** Every actor keeps its resolved attributes (sn_value, one heap block per actor from
** sn_attr_resolve). Scenes and traffic spawn thousands of actors of one blueprint with the
** same values (the defaults, a role name): one block serves them all. A shared block is never
** written; the one kind whose values change after spawning (traffic lights' `state`) keeps
** its own. Blocks are compared by content, member by member, strings by their text. */
#ifndef SN_WORLD_VSHARE_H
#define SN_WORLD_VSHARE_H

#include <sensim/attr.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sn_vshare_slot {
    sn_value *vals; /* NULL = empty; SN_VSHARE_GONE = deleted */
    uint32_t n, refs;
    uint64_t hash;
} sn_vshare_slot;

typedef struct sn_vshare {
    sn_vshare_slot *slots;
    size_t cap, used; /* used counts deleted slots too */
} sn_vshare;

/* Zero-initialised is empty. Frees the table; blocks still referenced are freed too. */
void sn_vshare_free(sn_vshare *t);
/* Takes ownership of `vals` (n values): returns the block to keep, `vals` itself (now shared)
** or an equal block already shared (then `vals` is freed). NULL vals gives NULL. When the
** table cannot grow, `vals` stays the caller's own and is returned with *shared false. */
sn_value *sn_vshare_take(sn_vshare *t, sn_value *vals, uint32_t n, bool *shared);
/* Gives back one reference to a block sn_vshare_take returned shared; frees it at the last. */
void sn_vshare_drop(sn_vshare *t, sn_value *vals, uint32_t n);

/* Read-only copies of fixed-size plain data (no padding: compared byte by byte) shared by
** content: a vehicle model's parameters (sn_vehicle_params, 0.14 KiB) are the same for every
** car of a blueprint and mass. Kept until sn_blobs_free. */
typedef struct sn_blobs {
    struct sn_blob **slots; /* NULL = empty */
    size_t cap, n;
} sn_blobs;

/* The shared copy of data[0..size); NULL when out of memory. */
const void *sn_blobs_intern(sn_blobs *b, const void *data, size_t size);
void sn_blobs_free(sn_blobs *b);

#endif
