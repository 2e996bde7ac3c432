/* dump.h — printing a msgpack stream file as JSON lines. */
#ifndef SN_DATA_DUMP_H
#define SN_DATA_DUMP_H

#include <sensim/sensim.h>
#include <msgpack.h>
#include <stdio.h>

/* Prints one JSON object per message. With `full`, bins are base64 ({"$bin": "..."});
** otherwise summarised ({"$bin_bytes": N}). A truncated or corrupt file is an error naming
** the byte offset, after the whole messages before it were printed. */
/* One message (a map) as `sensim dump` prints it, without the newline. */
void sn_dump_message(FILE *out, const msgpack_object *map, bool full);
sn_status sn_dump_file(const char *path, FILE *out, bool full, sn_error *err);

#endif
