/* mcap_pool.h — the MCAP view's output queue: every Foxglove message goes through it in the
** view's order and is written in that order; camera pictures (their conversion and PNG
** encoding, the view's dearest part) are made meanwhile on worker threads. The file is the
** same byte for byte whatever the number of workers (PNG encoding is deterministic). */
#ifndef SN_VIEWS_MCAP_POOL_H
#define SN_VIEWS_MCAP_POOL_H

#include <sensim/sensim.h>

#include "buf.h"
#include "mcap_write.h"

#include "../data/image.h"

typedef struct sn_mcap_pool sn_mcap_pool;

/* An image to make: the message (copied), how to convert it, where it goes. */
typedef struct sn_image_job {
    const void *msg;
    size_t len;
    sn_converter conv;
    bool raw;              /* foxglove.RawImage instead of a PNG CompressedImage */
    const char *frame_id;
    uint64_t t;
    uint64_t ticket;       /* the PNG `save:` makes of the same picture (png_share.h); 0: none */
    const char *png_path;  /* the PNG file `save:` wrote of the same picture (an export), NULL: none;
                              taken as it is by sn_mcap_pool_image when it is a PNG of the message's
                              width and height (not decoded), else the image is made */
    bool msg_stays;        /* msg stays valid until the pool is drained (an export's mapped
                              stream): a worker reads png_path (or makes the image) from it, with
                              no copy, while the caller goes on */
} sn_image_job;

/* workers: 0 makes every image on the calling thread. NULL when out of memory or threads. */
sn_mcap_pool *sn_mcap_pool_create(sn_mcapw *w, int workers, sn_error *err);
/* Queues `data` for channel ch at log time t (copied). May write earlier messages. */
sn_status sn_mcap_pool_put(sn_mcap_pool *p, uint16_t ch, uint64_t t, const void *data, size_t n, sn_error *err);
/* Queues an image for channel ch (its RawImage or CompressedImage schema), made by a worker. */
sn_status sn_mcap_pool_image(sn_mcap_pool *p, uint16_t ch, const sn_image_job *job, sn_error *err);
/* Waits for every queued message and writes it. */
sn_status sn_mcap_pool_drain(sn_mcap_pool *p, sn_error *err);
/* Stops the workers and frees the queue (NULL-safe); what was not drained is dropped. */
void sn_mcap_pool_free(sn_mcap_pool *p);

/* One image message (foxglove.CompressedImage or RawImage, protobuf) into out; scratch is grown
** and reused. Used by the workers and inline. */
sn_status sn_mcap_image_encode(const sn_image_job *job, sn_buf *out, uint8_t **scratch, size_t *cap, sn_error *err);

#endif
