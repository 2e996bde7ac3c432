/* msgread.h — reading a stream file (messages back to back) safely: each message is scanned
** before msgpack-c sees it, so a header that claims 2^32 entries is refused instead of being
** allocated for, and the file is read in chunks, so `dump /dev/zero` ends at once. */
#ifndef SN_DATA_MSGREAD_H
#define SN_DATA_MSGREAD_H

#include <sensim/sensim.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SN_MSG_MAX_BYTES (1ULL << 30)   /* one message; an 8192 x 8192 image is 256 MiB */
#define SN_MSG_MAX_OBJECTS (1u << 24)   /* objects in one message (msgpack-c allocates per object) */
#define SN_MSG_MAX_DEPTH 32             /* nesting of arrays and maps: msgpack-c's reader stack */

typedef enum { SN_SCAN_OK, SN_SCAN_SHORT, SN_SCAN_BAD } sn_scan_result;

/* Checks that buf[0..len) starts with one whole msgpack object within the limits above; sets
** *used to its size. SHORT when the bytes end inside it; BAD (with *why) when it is not
** msgpack, too deep, too many objects, or claims more entries than bytes follow. */
sn_scan_result sn_msgpack_scan(const uint8_t *buf, size_t len, size_t *used, const char **why);

typedef struct sn_msgreader {
    FILE *f;
    const char *path;
    uint8_t *buf;
    size_t cap, start, end;
    uint64_t offset; /* file offset of buf[start] */
    uint64_t count;  /* messages returned */
    bool eof;
    bool mapped;     /* buf is the whole file mapped (sn_msgreader_open_mapped), not a copy */
} sn_msgreader;

sn_status sn_msgreader_open(sn_msgreader *r, const char *path, sn_error *err);
/* As sn_msgreader_open, but a regular file is mapped whole instead of read: bytes of a message
** nobody looks at (a camera's pixels whose PNG a run saved) are never copied or even faulted in.
** For files that no longer change (an export reads a finished run folder: one truncated while
** mapped would fault). Anything else (a FIFO is refused as before; an empty or unmappable file)
** is read as sn_msgreader_open reads it; messages and errors are the same either way. */
sn_status sn_msgreader_open_mapped(sn_msgreader *r, const char *path, sn_error *err);
/* The next message (valid until the next call): SN_OK with *msg, *len; SN_E_NOT_FOUND at the
** end; SN_E_INVALID "PATH: truncated stream: ... (message N at byte B)" or corrupt; SN_E_IO. */
sn_status sn_msgreader_next(sn_msgreader *r, const uint8_t **msg, size_t *len, sn_error *err);
void sn_msgreader_close(sn_msgreader *r);

#endif
