/* writer.h — the msgpack writer handed to a plugin's serialize(), checking structure as it goes (writer.c). */
#ifndef SN_SIM_WRITER_H
#define SN_SIM_WRITER_H

#include <sensim/pack.h>
#include <sensim/plugin.h>
#include <sensim/sensim.h>

#include <stdbool.h>
#include <stdint.h>

struct sn_engine;
struct sn_ctx;

/* The host table's write_* functions (writer.c). */
void sn_host_writer_fill(sn_host *h);

/* Containers a plugin may nest: with the message's own map, the 32 msgpack-c's reader holds. */
#define SN_WRITER_MAX_DEPTH 31
#define SN_WRITER_KNOWN 4096 /* write_packed values remembered as checked (a power of two) */
#define SN_WRITER_WAYS 4      /* ... in sets of this many, found by their hash */

/* A write_packed value found well-formed: the same bytes are not checked again (a CAM goes to
** hundreds of receivers a frame). Found by content, not place: a changed byte changes the hash. */
typedef struct sn_packed_known {
    size_t n;
    uint64_t hash;
    int depth; /* containers nested in it */
} sn_packed_known;

/* The msgpack writer handed to serialize(): checks the structure as it goes. */
struct sn_writer {
    sn_pack_buf body;
    uint32_t top_pairs;
    bool expect_value;
    uint32_t stack[SN_WRITER_MAX_DEPTH]; /* items left in each open container */
    int depth;
    char why[160];     /* first structural error, "" if none */
    size_t room;       /* the body starts here: the header's room (and an alignment pad) before it */
    sn_packed_known known[SN_WRITER_KNOWN];
    struct sn_engine *engine;
};

void sn_writer_init(sn_writer *w, struct sn_engine *e);
void sn_writer_free(sn_writer *w);
void sn_writer_reset(sn_writer *w);
/* As sn_writer_reset, with the body placed so that a message whose header is `head` bytes starts
** at an address congruent to `at` modulo `align` (a power of two up to 64 KiB), room made for
** `expect` bytes of message; a header of another size is still put in front, only not aligned. */
void sn_writer_reset_aligned(sn_writer *w, size_t head, uint64_t at, size_t align, size_t expect);
/* Puts the header in front of the body, in the room sn_writer_reset left for it, and points
** e->out_data/out_size at the message. SN_E_INVALID if the body is malformed. */
sn_status sn_writer_finish(sn_writer *w, struct sn_ctx *s, sn_error *err);

#endif
