/* mcap_write.h — an MCAP file writer (https://mcap.dev/spec, major version 0), small and
** focused: what a viewer needs to seek without reading the whole file.
**
** Layout written: magic, Header; the data section as Chunks (zstd-compressed, or stored when
** they hold a stored channel's messages, see sn_mcapw_channel_stored) (each holding the
** Schema and Channel records first used in it and the Messages), every chunk followed by one
** MessageIndex record per channel in it; DataEnd (with the data section's CRC-32); the summary
** section: every Schema and Channel again, Statistics, one ChunkIndex per chunk; the summary
** offset section (one SummaryOffset per group); Footer (with the summary's CRC-32); magic.
**
** Ownership: the writer writes to a FILE it does not own (the caller opens and closes it).
** Messages must come in non-decreasing log time per channel (the export's frame order).
** Schema and Channel records are written just before their first message: the file depends
** only on the order of the messages. */
#ifndef SN_VIEWS_MCAP_WRITE_H
#define SN_VIEWS_MCAP_WRITE_H

#include <sensim/sensim.h>

#include <stdio.h>

typedef struct sn_mcapw sn_mcapw;

/* A chunk is compressed and written once its records reach chunk_bytes (default 4 MiB: a
** viewer reads a few frames of images per seek). */
#define SN_MCAP_CHUNK_BYTES (4u << 20)

/* Starts a file (magic and Header) on `f`; `library` names the writer. NULL on failure. */
sn_mcapw *sn_mcapw_open(FILE *f, const char *library, int zstd_level, size_t chunk_bytes, sn_error *err);
/* The id of a schema (registered on first use; the same name gives the same id). 0 when out
** of memory (MCAP's "no schema" id is never a valid result here). */
uint16_t sn_mcapw_schema(sn_mcapw *w, const char *name, const char *encoding, const void *data, size_t n);
/* The id of the schema named `name`, or 0 when none is. */
uint16_t sn_mcapw_schema_find(const sn_mcapw *w, const char *name);
/* The id of a channel by topic (registered on first use with schema and encoding); ids start
** at 0. UINT16_MAX when out of memory or past 65535 channels. */
uint16_t sn_mcapw_channel(sn_mcapw *w, const char *topic, uint16_t schema, const char *message_encoding);
/* The channel's messages are compressed already (PNG images): they go into chunks of their own,
** stored as they are (compression ""), never through zstd. A message of the other kind closes
** the open chunk, so chunks stay in time order and never overlap. */
void sn_mcapw_channel_stored(sn_mcapw *w, uint16_t channel);
/* A stored channel's message of this size or more ends its chunk and is written from the
** caller's bytes (no copy into the chunk) before sn_mcapw_message returns. */
#define SN_MCAPW_DIRECT_BYTES (256u << 10)
/* One message on a channel. */
sn_status sn_mcapw_message(sn_mcapw *w, uint16_t channel, uint64_t log_time, const void *data, size_t n,
                           sn_error *err);
/* One message given as head, body and foot (the same bytes as sn_mcapw_message of the three put
** together): a saved PNG mapped from its file is the body, its CompressedImage's fields before
** and after it the head and foot (copied). body_crc is the body's CRC-32 (libdeflate_crc32 from
** 0; made on the pool's worker), so the writer never reads the body for its CRCs: on a stored
** channel at SN_MCAPW_DIRECT_BYTES or more, the body is only written, from where it is, before
** this returns. foot_n is at most SN_MCAPW_FOOT_MAX. */
#define SN_MCAPW_FOOT_MAX 16
sn_status sn_mcapw_message_parts(sn_mcapw *w, uint16_t channel, uint64_t log_time, const void *head, size_t head_n,
                                 const void *body, size_t body_n, uint32_t body_crc, const void *foot, size_t foot_n,
                                 sn_error *err);
/* sn_mcapw_message_parts with the body as body_n bytes of the file fd from offset off: on a
** stored channel at SN_MCAPW_DIRECT_BYTES or more the kernel copies them into the MCAP file
** (copy_file_range; no mapping, no copy through user memory) before this returns, else they are
** read into the chunk. body_crc is their CRC-32 (from 0), which the writer trusts. fd stays the
** caller's. */
sn_status sn_mcapw_message_file(sn_mcapw *w, uint16_t channel, uint64_t log_time, const void *head, size_t head_n,
                                int fd, uint64_t off, size_t body_n, uint32_t body_crc, const void *foot, size_t foot_n,
                                sn_error *err);
/* Whether sn_mcapw_message_file is the cheaper way to write the bytes of a file on device `dev`
** (its st_dev) to this output than writing them from a mapping: the output is on tmpfs and the
** file on the same file system (across two, copy_file_range fails and the bytes would go through
** a buffer). On ext4 (Linux 6.18) the kernel's copy goes through a pipe of 64 KiB and its writes
** lose the large folios a big write(2) gets: 1.5x the CPU of writing from the mapping, where on
** tmpfs it saves 7 %. */
bool sn_mcapw_kernel_copy(const sn_mcapw *w, uint64_t dev);
/* CRC-32 of a run of bytes followed by one of len2 bytes, from their CRC-32s (zlib's
** crc32_combine). */
uint32_t sn_crc32_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);
/* From now on chunks are compressed and written on a thread of the writer's own while the
** next chunk is filled (the same bytes: chunks go out one by one, in order). false when no
** thread can be had: they are written inline, as before. */
bool sn_mcapw_background(sn_mcapw *w);
/* Writes the last chunk, the summary and the footer. The FILE is flushed, not closed. */
sn_status sn_mcapw_finish(sn_mcapw *w, sn_error *err);
/* Frees the writer (NULL-safe); an unfinished file is left as written so far. */
void sn_mcapw_free(sn_mcapw *w);
/* Bytes written to the file so far. */
uint64_t sn_mcapw_bytes(const sn_mcapw *w);

#endif
