/* png_share.h — one PNG per camera image when a run both saves it (`save:`) and writes it into
** an MCAP file (`--mcap`): the engine's image writer encodes it once and the MCAP view takes
** the same bytes instead of converting and encoding the picture again (issue 23).
**
** Exact by identity, not by content: the engine announces, on its own thread and only while it
** hands one message to its listeners, that this message (its very bytes at this address) is
** being saved as a PNG with converter C under ticket T. A listener that copies the message then
** knows the PNG of (message, C) will be published under T. The PNG is the one the MCAP view
** would make itself (same picture code, same encoder), so files are byte-identical either way.
**
** Tickets are opened only while some consumer wants them (sn_png_share_want) and live in a
** small table: each is taken once, dropped, or evicted when the table is full (then the
** consumer encodes itself). A consumer waiting for a pending ticket is never blocked on itself:
** the writer publishes every ticket it opened (NULL when it did not make the PNG).
**
** The table is process-global (one mutex, one ticket counter; docs/c-api.md says so): a listener
** gets only the message, not its engine. Engines share its room, never each other's PNGs. */
#ifndef SN_DATA_PNG_SHARE_H
#define SN_DATA_PNG_SHARE_H

#include "image.h"

#include <stddef.h>
#include <stdint.h>

/* A consumer comes (+1) or goes (-1); tickets are opened only while one is there. */
void sn_png_share_want(int delta);
/* The writer: a ticket for a PNG it is going to make (0 when nobody wants one or the table is
** full of pending tickets). */
uint64_t sn_png_share_open(void);
/* The writer: the PNG of the ticket (copied), or NULL when it was not made. Every opened ticket
** is published once. */
void sn_png_share_publish(uint64_t ticket, const uint8_t *png, size_t n);

/* The engine's thread, around its listener calls: `msg` (size bytes) is being saved as a PNG
** with converter c under ticket (0 ends the announcement). */
void sn_png_share_announce(uint64_t ticket, const void *msg, size_t size, sn_converter c);
/* A listener, on the engine's thread: the ticket of the message it got (0: none) and its converter. */
uint64_t sn_png_share_current(const void *msg, size_t size, sn_converter *c);

/* The consumer: waits while the ticket is pending; true with the PNG (malloc'd, caller frees)
** when it was made, false when it was not or is gone (then encode it yourself). */
bool sn_png_share_take(uint64_t ticket, uint8_t **png, size_t *n);
/* The consumer will not take this ticket. */
void sn_png_share_drop(uint64_t ticket);

#endif
