/* spool.h — stream files written off the frame thread (docs/outputs.md "Writing").
**
** One writer thread per engine takes the streams' bytes from a queue and write(2)s them in the
** order they came. Messages below SN_SPOOL_DIRECT bytes are copied into the file's chunk
** (page-aligned, 64 KiB growing to 1 MiB as the file fills them), written when full or at the
** end of the frame; a larger message is not
** copied at all: its buffer is taken from the caller, who gets a spare one back (the buffers
** circulate). The frame thread waits only when the writer is more than one frame behind or
** holds more than SN_SPOOL_BUDGET bytes (and then writes queued jobs itself rather than
** sleeping): when step(F) returns, frames up to F-1 are in the kernel's hands. A file that gets
** large messages goes to the disk with O_DIRECT where the filesystem allows it (spool.c). A write error is kept (path and reason) and reported at the next frame end;
** what follows it is dropped. */
#ifndef SN_SIM_SPOOL_H
#define SN_SIM_SPOOL_H

#include <sensim/pack.h>
#include <sensim/sensim.h>

#define SN_SPOOL_CHUNK (1u << 20)    /* the largest chunk of small messages: the size of their writes */
#define SN_SPOOL_DIRECT (256u << 10) /* messages this large are written from their own buffer */
#define SN_SPOOL_BUDGET (256u << 20) /* bytes queued at most before the frame thread waits */
#define SN_SPOOL_LAG 1               /* frames the writer may be behind when a step returns */
#define SN_SPOOL_ALIGN 4096u         /* direct writes' alignment, of file offsets and of memory */

typedef struct sn_spool sn_spool;
typedef struct sn_spool_file sn_spool_file;

/* Starts the writer thread; NULL (and err) when it cannot. */
sn_spool *sn_spool_create(sn_error *err);
/* Waits for the queue, stops and joins the thread; every file must be closed. NULL is fine. */
void sn_spool_destroy(sn_spool *sp);
/* A file to write through the spool: takes fd (closed by sn_spool_close) and copies path
** (named in errors). */
sn_status sn_spool_open(sn_spool *sp, int fd, const char *path, sn_spool_file **out, sn_error *err);
/* Appends owner->data[off, off + len). A large message takes owner's storage (owner then holds
** a spare buffer, or none, with size 0): the caller must be done with those bytes. A large
** message at an address that agrees with its file offset (sn_spool_offset) modulo
** SN_SPOOL_ALIGN is written to a direct file from that buffer, not copied into the stage. */
sn_status sn_spool_put(sn_spool *sp, sn_spool_file *f, sn_pack_buf *owner, size_t off, size_t len, sn_error *err);
/* End of a frame: queues every file's chunk, waits until the frames before this one are
** written, and reports the writer's first error not yet reported. */
sn_status sn_spool_frame_end(sn_spool *sp, sn_error *err);
/* Writes everything queued and waits for it; then as sn_spool_frame_end. */
sn_status sn_spool_flush(sn_spool *sp, sn_error *err);
/* Flushes, closes and frees f (NULL is fine). The first error of the flush or the close, if
** err; with err NULL nothing is reported (a file being thrown away). */
sn_status sn_spool_close(sn_spool *sp, sn_spool_file *f, sn_error *err);
/* Whether files not yet written a large message may be written with O_DIRECT (the default: yes, where the
** filesystem takes it); off, every file is buffered. For tests and A/B measurements. */
void sn_spool_direct(sn_spool *sp, bool on);
/* Where the next message put to f starts in the file: the bytes put so far (f's fd at offset 0
** when opened, as the engine's fresh streams are; else only a hint). Frame thread. */
uint64_t sn_spool_offset(const sn_spool_file *f);
/* Bytes written with O_DIRECT since the spool started, and those of them written from the
** messages' own buffers (no stage copy). */
uint64_t sn_spool_direct_bytes(sn_spool *sp);
uint64_t sn_spool_in_place_bytes(sn_spool *sp);
/* Seconds spent in write(2) since the spool started, by the writer or a helping frame thread. */
double sn_spool_busy(sn_spool *sp);
/* From a crash handler (async-signal-safe): waits up to 10 s for the writer to write what was
** queued, so a crash loses only the frame in progress. */
void sn_spool_crash_drain(sn_spool *sp);

#endif
