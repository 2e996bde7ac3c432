/* stream.c — a sensor's stream: DIR/<name>.msgpack and in-process listeners.
**
** DIR is the run's staging folder (outdir.c): the file moves into --out only when the whole
** run succeeded, so an existing output is never replaced by a half-written one. The bytes go
** through the engine's writer thread (spool.h): when step(F) returns, frames up to F-1 are
** written (frame F's are queued), and a crash in a plugin waits for the queue, so it loses at
** most the frame in progress. */
#include "engine.h"
#include "stream.h"

#include "../data/image.h"
#include "../data/png_share.h"
#include "../output/saver.h"
#include "../output/spool.h"

#include "../core/error.h"
#include "../core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_stream_open(sn_sensor *s, const char *dir, sn_error *err)
{
    struct sn_engine *e = s->engine;
    size_t n = strlen(dir) + strlen(s->name) + 32;
    s->part_path = malloc(n);
    if (!s->part_path)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    snprintf(s->part_path, n, "%s/%s.msgpack", dir, s->name);
    if (!e->spool && !(e->spool = sn_spool_create(err)))
        return err->status;
    /* a fresh file in a fresh folder: exclusive, never through a link; readable, for the spool
    ** to read back a direct-written file's last block (spool.c) */
    int fd = open(s->part_path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return sn_fail(err, SN_E_IO, "%s: cannot write: %s", s->part_path, strerror(errno));
    return sn_spool_open(e->spool, fd, s->part_path, &s->out, err);
}

/* s's save: {path, converter}, or NULL when it saves no images. */
static const sn_scene_more *saving(const sn_sensor *s)
{
    return s->entity && sn_scene_more_of(s->entity)->save_path ? sn_scene_more_of(s->entity) : NULL;
}

bool sn_stream_consumed(const sn_sensor *s)
{
    const struct sn_engine *e = s->engine;
    if (s->out || e->n_all_listeners || (saving(s) && e->out_dir))
        return true;
    for (size_t i = 0; i < s->n_listeners; i++)
        if (s->listeners[i].fn) /* NULL: removed by sn_engine_unlisten */
            return true;
    return false;
}

bool sn_stream_wanted(const sn_sensor *s)
{
    if (s->internal || !s->engine->scene.settings.streams)
        return false;
    return !(s->entity && sn_scene_more_of(s->entity)->no_stream);
}

sn_status sn_stream_emit(sn_sensor *s, sn_error *err)
{
    struct sn_engine *e = s->engine;
    const sn_scene_more *save = saving(s);
    if (save && e->out_dir) {
        /* save: the message as an image (the same code as `sensim convert`), encoded on the
        ** engine's image writer thread */
        if (!e->saver && !(e->saver = sn_saver_create(err)))
            return err->status;
        sn_converter conv = SN_CONV_RAW;
        sn_converter_parse(save->save_converter, &conv);
        sn_status st = sn_saver_submit(e->saver, s->name, e->out_dir, save->save_path, conv, e->clock.frame,
                                       e->out_data, e->out_size, err);
        if (st)
            return st;
    }
    if (s->n_listeners || e->n_all_listeners) {
        sn_message m = {s->name, s->bp->id, s->actor_id, e->clock.frame, e->clock.timestamp,
                        e->out_data, e->out_size};
        /* a listener that destroyed the engine ends the calls: the rest may be gone with it */
        e->in_emit++;
        for (size_t i = 0; i < s->n_listeners && !e->destroy_pending; i++)
            if (s->listeners[i].fn) /* NULL: removed by sn_engine_unlisten, perhaps from a listener */
                s->listeners[i].fn(&m, s->listeners[i].user);
        size_t k = 0; /* drop the removed ones, now that nothing walks the list */
        for (size_t i = 0; i < s->n_listeners; i++)
            if (s->listeners[i].fn)
                s->listeners[k++] = s->listeners[i];
        s->n_listeners = k;
        for (size_t i = 0; i < e->n_all_listeners && !e->destroy_pending; i++)
            e->all_listeners[i].fn(&m, e->all_listeners[i].user);
        e->in_emit--;
    }
    sn_png_share_announce(0, NULL, 0, SN_CONV_RAW); /* the saver's announcement held for these listeners only */
    /* last: a large message's buffer goes to the writer thread as it is (no copy) */
    if (s->out) {
        sn_pack_buf *b = e->out_buf;
        size_t off = (size_t)((const unsigned char *)e->out_data - b->data);
        return sn_spool_put(e->spool, s->out, b, off, e->out_size, err);
    }
    return SN_OK;
}

sn_status sn_stream_close(sn_sensor *s, sn_error *err)
{
    sn_status st = sn_spool_close(s->engine->spool, s->out, err);
    s->out = NULL;
    return st;
}

void sn_stream_discard(sn_sensor *s)
{
    if (!s->out)
        return;
    sn_spool_close(s->engine->spool, s->out, NULL);
    s->out = NULL;
    remove(s->part_path);
}
