/* stream_reader.h — sensim.h's sn_stream_reader inside libsensim: its state (api_stream.c reads
** messages, api_data.c makes pictures of them) and the bytes-only next that data.h's
** sn_stream_file is (api_msgdata.c). */
#ifndef SN_API_STREAM_READER_H
#define SN_API_STREAM_READER_H

#include "../data/msgread.h"

#include <msgpack.h>
#include <sensim/sensim.h>

struct sn_stream_reader {
    sn_msgreader in;
    msgpack_unpacked msg; /* the message last returned (its zone holds the objects) */
    bool have;
    char sensor[256], type[256];
    uint8_t *pixels; /* the last picture */
    size_t cap;
};

/* The next message as bytes, header unread: the same reader, checks and sentences as
** sn_stream_reader_next. */
sn_status sn_stream_reader_next_bytes(sn_stream_reader *r, const void **data, size_t *size, sn_error *err);

#endif
