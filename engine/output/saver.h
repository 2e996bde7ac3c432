/* saver.h — `save:` images written off the frame thread: writer threads (one per core, up to 8)
** take copies of the messages (a camera image to be saved as PNG: its picture, converted as it is
** queued) from a bounded queue and encode them with the same code as `sensim convert`, so the
** files are the bytes an inline save would write. A PNG an MCAP view
** also wants is published for it (png_share.h), so the view does not encode it again. */
#ifndef SN_SIM_SAVER_H
#define SN_SIM_SAVER_H

#include "../data/image.h"

#include <sensim/sensim.h>

typedef struct sn_saver sn_saver;

/* Starts the writer threads; NULL (and err) when none starts. */
sn_saver *sn_saver_create(sn_error *err);
/* Queues a copy of one message of `frame` to save as dir/pattern(frame); blocks while the
** queue is full. `sensor`, `dir` and `pattern` must live until sn_saver_wait returns. After
** an image failed, queues nothing (poll and wait report it). Fails only without memory. A PNG
** queued while an MCAP view listens is announced (png_share.h) until the caller ends it with
** sn_png_share_announce(0, ...) after its listeners. */
sn_status sn_saver_submit(sn_saver *sv, const char *sensor, const char *dir, const char *pattern, sn_converter conv,
                          uint64_t frame, const void *msg, size_t size, sn_error *err);
/* The writer's first error not yet reported, without waiting (SN_OK if none): one sentence
** "frame N: sensor 'S': save: ...", N the image's frame, whenever it is noticed. */
sn_status sn_saver_poll(sn_saver *sv, sn_error *err);
/* Waits until every queued image is written; then as sn_saver_poll. */
sn_status sn_saver_wait(sn_saver *sv, sn_error *err);
/* Waits, stops and joins the threads. NULL is fine. */
void sn_saver_destroy(sn_saver *sv);

#endif
