/* dump.h — printing a msgpack stream file as JSON lines. */
#ifndef SN_DATA_DUMP_H
#define SN_DATA_DUMP_H

#include "layouts.h"

#include <msgpack.h>
#include <sensim/sensim.h>
#include <stdio.h>

/* Prints one JSON object per message, bins as sn_stream_dump_bins says (flags: SN_DUMP_*). A
** truncated or corrupt file is an error naming the byte offset, after the whole messages before
** it were printed. */
/* One message (a map) as `sensim dump` prints it (flags: SN_DUMP_*), without the newline. */
void sn_dump_message(FILE *out, const msgpack_object *map, unsigned flags);
sn_status sn_dump_file(const char *path, FILE *out, unsigned flags, sn_error *err);
/* The same, also decoding the bins of `extra` layouts (those plugins declared, data/layouts.h). */
void sn_dump_message_with(FILE *out, const msgpack_object *map, unsigned flags, const sn_bin_layout *extra,
                          size_t n_extra);
sn_status sn_dump_file_with(const char *path, FILE *out, unsigned flags, const sn_bin_layout *extra, size_t n_extra,
                            sn_error *err);

#endif
