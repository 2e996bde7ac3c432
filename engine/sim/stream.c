/* stream.c — a sensor's stream: DIR/<name>.msgpack and in-process listeners.
**
** DIR is the run's staging folder (outdir.c): the file moves into --out only when the whole
** run succeeded, so an existing output is never replaced by a half-written one. */
#include "engine.h"

#include "../data/image.h"
#include "../data/png_share.h"
#include "saver.h"

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
    size_t n = strlen(dir) + strlen(s->name) + 32;
    s->out_path = malloc(n);
    s->part_path = malloc(n);
    if (!s->out_path || !s->part_path)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    snprintf(s->out_path, n, "%s/%s.msgpack", dir, s->name);
    snprintf(s->part_path, n, "%s/%s.msgpack", dir, s->name);
    /* a fresh file in a fresh folder: exclusive, never through a link */
    int fd = open(s->part_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 || !(s->out = fdopen(fd, "wb"))) {
        sn_status st = sn_fail(err, SN_E_IO, "%s: cannot write: %s", s->part_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return st;
    }
    return SN_OK;
}

sn_status sn_stream_emit(sn_sensor *s, sn_error *err)
{
    struct sn_engine *e = s->engine;
    s->messages++;
    s->dirty = s->out != NULL;
    if (s->out && fwrite(e->out_data, 1, e->out_size, s->out) != e->out_size)
        return sn_fail(err, SN_E_IO, "%s: write failed: %s", s->part_path, strerror(errno));
    if (s->entity && s->entity->save_path && e->out_dir) {
        /* save: the message just written, as an image (the same code as `sensim convert`),
        ** encoded on the engine's writer thread */
        if (!e->saver && !(e->saver = sn_saver_create(err)))
            return err->status;
        sn_converter conv = SN_CONV_RAW;
        sn_converter_parse(s->entity->save_converter, &conv);
        sn_status st = sn_saver_submit(e->saver, s->name, e->out_dir, s->entity->save_path, conv, e->clock.frame,
                                       e->out_data, e->out_size, err);
        if (st)
            return st;
    }
    if (s->n_listeners || e->n_all_listeners) {
        sn_message m = {s->name, s->bp->id, s->actor_id, e->clock.frame, e->clock.timestamp,
                        e->out_data, e->out_size};
        for (size_t i = 0; i < s->n_listeners; i++)
            if (s->listeners[i].fn) /* NULL: removed by sn_engine_unlisten, perhaps from a listener */
                s->listeners[i].fn(&m, s->listeners[i].user);
        size_t k = 0; /* drop the removed ones, now that nothing walks the list */
        for (size_t i = 0; i < s->n_listeners; i++)
            if (s->listeners[i].fn)
                s->listeners[k++] = s->listeners[i];
        s->n_listeners = k;
        for (size_t i = 0; i < e->n_all_listeners; i++)
            e->all_listeners[i].fn(&m, e->all_listeners[i].user);
    }
    sn_png_share_announce(0, NULL, 0, SN_CONV_RAW); /* the saver's announcement held for these listeners only */
    return SN_OK;
}

sn_status sn_stream_flush(sn_sensor *s, sn_error *err)
{
    if (s->out && s->dirty) {
        s->dirty = false;
        if (fflush(s->out) != 0)
            return sn_fail(err, SN_E_IO, "%s: write failed: %s", s->part_path, strerror(errno));
    }
    return SN_OK;
}

sn_status sn_stream_close(sn_sensor *s, sn_error *err)
{
    sn_status st = SN_OK;
    if (s->out) {
        bool bad = ferror(s->out);
        if (fclose(s->out) != 0 || bad)
            st = sn_fail(err, SN_E_IO, "%s: cannot finish writing: %s", s->part_path, strerror(errno ? errno : EIO));
        s->out = NULL;
    }
    return st;
}
