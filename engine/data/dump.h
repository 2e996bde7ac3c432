/* dump.h — printing a msgpack stream file as JSON lines. */
#ifndef SN_DATA_DUMP_H
#define SN_DATA_DUMP_H

#include <msgpack.h>
#include <sensim/sensim.h>
#include <stdio.h>

/* Prints one JSON object per message, bins as sn_stream_dump_bins says (flags: SN_DUMP_*). A
** truncated or corrupt file is an error naming the byte offset, after the whole messages before
** it were printed. */
/* One message (a map) as `sensim dump` prints it (flags: SN_DUMP_*), without the newline. */
void sn_dump_message(FILE *out, const msgpack_object *map, unsigned flags);
sn_status sn_dump_file(const char *path, FILE *out, unsigned flags, sn_error *err);

#endif
