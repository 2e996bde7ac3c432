/* mcap_view.c — sensim/mcap.h: the MCAP file of a run, its frames and its atomic commit.
**
** A live run's listener gets a frame's messages in the engine's sensor order; the export reads
** streams file by file. Both end in the same order, so the same bytes: a live frame is gathered
** (copied) and written when the next frame starts, the actors stream's message first (the
** transform tree every sensor's frame hangs in), then by sensor id, each sensor's messages in
** their order: the order the export merges its streams in. */
#include "mcap_view.h"
#include "../plugin/library.h"
#include "json_schema.h"

#include "mcap_schemas.h"

#include "../core/error.h"
#include "../core/util.h"
#include "../output/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIBRARY "sensim " SN_VERSION_STRING

sn_mcap *sn_mcap_create(const char *path, const sn_mcap_options *o, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!path || !*path)
        return sn_fail(err, SN_E_INVALID, "mcap: no output path"), NULL;
    if (o && o->struct_size < sizeof *o)
        return sn_fail(err, SN_E_INVALID, "mcap: options struct_size below sizeof(sn_mcap_options)"), NULL;
    sn_mcap_options d = {sizeof d, 0, NULL, false, 0, 0, false};
    if (!o)
        o = &d;
    sn_converter depth = SN_CONV_LOG_DEPTH;
    if (o->depth_converter && (!sn_converter_parse(o->depth_converter, &depth) || depth == SN_CONV_CITYSCAPES))
        return sn_fail(err, SN_E_INVALID, "mcap: depth converter '%s' is not depth, logarithmic_depth or raw",
                       o->depth_converter), NULL;
    if (o->zstd_level < -1 || o->zstd_level > 19)
        return sn_fail(err, SN_E_INVALID, "mcap: zstd level %d is not within 1..19 (or -1: uncompressed)", o->zstd_level),
               NULL;
    size_t len = strlen(path);
    if (len >= 8 && strcmp(path + len - 8, ".msgpack") == 0) /* it would replace or pass for a stream */
        return sn_fail(err, SN_E_INVALID, "mcap: %s: an MCAP file may not be named like a stream (*.msgpack)", path), NULL;
    /* what stands at path must be something a file may replace: checked before any work */
    struct stat sb;
    if (!o->overwrite && lstat(path, &sb) == 0)
        return sn_fail(err, SN_E_INVALID, "mcap: %s exists; sensim does not replace it without --overwrite", path), NULL;
    if (sn_outdir_check_dest(path, false, err)) { /* bad input, not a failure while writing */
        err->status = SN_E_INVALID;
        return sn_error_prefix(err, "mcap"), NULL;
    }
    sn_mcap *m = calloc(1, sizeof *m);
    size_t n = strlen(path) + 32;
    if (!m || !(m->path = sn_strdup(path)) || !(m->part = malloc(n))) {
        if (m)
            free(m->path);
        free(m);
        return sn_fail(err, SN_E_NOMEM, "out of memory"), NULL;
    }
    /* beside path, so the final rename stays on one file system; exclusive, never through a
    ** link; 0666 less the umask like every output (mkstemp would make it 0600) */
    int fd = -1;
    for (unsigned k = 0; fd < 0 && k < 1000; k++) {
        snprintf(m->part, n, "%s.partial-%ld-%u", path, (long)getpid(), k);
        fd = open(m->part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0 || !(m->f = fdopen(fd, "wb"))) {
        sn_fail(err, SN_E_IO, "mcap: cannot write %s: %s", m->part, strerror(errno));
        if (fd >= 0)
            close(fd), unlink(m->part);
        free(m->path), free(m->part), free(m);
        return NULL;
    }
    sn_png_share_want(1); /* PNGs a run's `save:` makes are shared with this file until it closes */
    m->zstd_level = o->zstd_level < 0 ? 0 : o->zstd_level ? o->zstd_level : 1; /* the writer's 0: stored */
    m->overwrite = o->overwrite;
    m->raw_images = o->raw_images;
    m->depth = depth;
    msgpack_unpacked_init(&m->unp);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int workers = o->threads < 0 ? 0 : o->threads ? o->threads : cores > 0 ? (int)cores : 1;
    if (!(m->w = sn_mcapw_open(m->f, LIBRARY, m->zstd_level, o->chunk_bytes, err)) ||
        !(m->pool = sn_mcap_pool_create(m->w, workers, err))) {
        sn_error_prefix(err, m->part);
        sn_mcap_close(m, false, NULL);
        unlink(m->part); /* nothing of a run in it yet */
        return NULL;
    }
    /* with a second core, chunks are compressed and written while the next fills (zstd was a
    ** quarter of an export); without a thread they are written inline, the same bytes */
    if (workers >= 2)
        (void)sn_mcapw_background(m->w);
    return m;
}

const char *sn_mcap_partial_path(const sn_mcap *m) { return m ? m->part : NULL; }
uint64_t sn_mcap_bytes(const sn_mcap *m) { return m && m->w ? sn_mcapw_bytes(m->w) : 0; }

sn_status sn_mcap_add_map(sn_mcap *m, const sn_map *map, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m)
        return sn_fail(err, SN_E_INVALID, "mcap: NULL file");
    return map ? sn_mcap_map_lines(m, map, err) : SN_OK;
}

/* One message's bytes, parsed and converted. */
static sn_status convert_bytes(sn_mcap *m, const void *data, size_t len, sn_error *err)
{
    size_t off = 0;
    if (msgpack_unpack_next(&m->unp, data, len, &off) != MSGPACK_UNPACK_SUCCESS || m->unp.data.type != MSGPACK_OBJECT_MAP)
        return sn_fail(err, SN_E_INVALID, "mcap: a message is not a msgpack map");
    return sn_mcap_convert(m, data, len, &m->unp.data, err);
}

static int by_sensor(const void *a, const void *b)
{
    const sn_pending *x = a, *y = b;
    if (x->later != y->later)
        return x->later ? 1 : -1;
    if (x->sensor_id != y->sensor_id)
        return x->sensor_id < y->sensor_id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static sn_status flush_frame(sn_mcap *m, sn_error *err)
{
    if (m->frame_bytes.bad)
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    if (m->n_pend) /* an export queues nothing here: pend may be NULL */
        qsort(m->pend, m->n_pend, sizeof *m->pend, by_sensor);
    sn_status st = SN_OK;
    for (size_t i = 0; i < m->n_pend; i++) {
        m->ticket = m->pend[i].ticket, m->ticket_conv = m->pend[i].ticket_conv;
        if (!st)
            st = convert_bytes(m, m->frame_bytes.p + m->pend[i].off, m->pend[i].len, err);
        sn_png_share_drop(m->ticket); /* not an image this view makes as `save:` did: not waited for */
        m->ticket = 0;
    }
    m->n_pend = 0;
    m->frame_bytes.n = 0;
    return st;
}

/* One message into the frame being gathered (the frame before it is written first). */
static sn_status gather(sn_mcap *m, uint64_t frame, uint32_t sensor_id, bool actors, const void *data, size_t size,
                        uint64_t ticket, sn_converter ticket_conv, sn_error *err)
{
    sn_status st = SN_OK;
    if (m->have_frame && frame != m->frame)
        st = flush_frame(m, err);
    m->frame = frame;
    m->have_frame = true;
    if (st)
        return st;
    if (!sn_grow((void **)&m->pend, &m->cap_pend, m->n_pend + 1, sizeof *m->pend))
        return sn_fail(err, SN_E_NOMEM, "out of memory");
    m->pend[m->n_pend] = (sn_pending){!actors, sensor_id, (uint32_t)m->n_pend, m->frame_bytes.n, size, ticket, ticket_conv};
    m->n_pend++;
    sn_buf_put(&m->frame_bytes, data, size);
    return m->frame_bytes.bad ? sn_fail(err, SN_E_NOMEM, "out of memory for a frame's messages") : SN_OK;
}

/* The file's thread: gathers, converts and writes what the listener hands over, in order. */
static void *mcap_thread(void *arg)
{
    sn_mcap *m = arg;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        while (m->in_head == m->in_tail && !m->stop)
            pthread_cond_wait(&m->more, &m->mu);
        if (m->in_head == m->in_tail)
            break; /* stopped and empty */
        sn_inbox_entry *e = &m->inbox[m->in_head % SN_MCAP_INBOX];
        bool failed = m->failed != SN_OK;
        pthread_mutex_unlock(&m->mu);
        sn_error err = {0};
        sn_status st = failed || e->bytes.bad ? (e->bytes.bad ? sn_fail(&err, SN_E_NOMEM, "out of memory") : SN_OK)
                                              : gather(m, e->frame, e->sensor_id, e->actors, e->bytes.p, e->bytes.n,
                                                       e->ticket, e->ticket_conv, &err);
        pthread_mutex_lock(&m->mu);
        if (st && !m->failed)
            m->failed = st, m->fail_err = err;
        m->in_head++;
        pthread_cond_signal(&m->room);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* Stops the file's thread after it has taken in every message (NULL-safe to call twice). */
static void stop_thread(sn_mcap *m)
{
    if (!m->threaded)
        return;
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_signal(&m->more);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
    m->threaded = false;
    pthread_mutex_destroy(&m->mu);
    pthread_cond_destroy(&m->more);
    pthread_cond_destroy(&m->room);
    for (size_t i = 0; i < SN_MCAP_INBOX; i++)
        sn_buf_free(&m->inbox[i].bytes);
}

sn_status sn_mcap_add_message(sn_mcap *m, const sn_message *msg, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m || !msg || !msg->data)
        return sn_fail(err, SN_E_INVALID, "mcap: NULL file or message");
    if (m->threaded)
        return sn_fail(err, SN_E_STATE, "mcap: the file takes its messages from sn_mcap_listen");
    if (m->failed)
        return sn_fail(err, m->failed, "%s", m->fail_err.msg);
    return gather(m, msg->frame, msg->sensor_id, sn_mcap_is_actors(msg->type_id), msg->data, msg->size, 0, SN_CONV_RAW,
                  err);
}

void sn_mcap_listen(const sn_message *msg, void *user)
{
    sn_mcap *m = user;
    if (!m || !msg || !msg->data)
        return;
    if (!m->threaded) { /* the first message starts the file's thread */
        if (m->failed)
            return;
        pthread_mutex_init(&m->mu, NULL);
        pthread_cond_init(&m->more, NULL);
        pthread_cond_init(&m->room, NULL);
        m->in_head = m->in_tail = 0;
        m->stop = false;
        if (pthread_create(&m->thread, NULL, mcap_thread, m) != 0) {
            pthread_mutex_destroy(&m->mu);
            pthread_cond_destroy(&m->more);
            pthread_cond_destroy(&m->room);
            sn_status st = sn_mcap_add_message(m, msg, &m->fail_err); /* no thread: here, then */
            if (st)
                m->failed = st;
            return;
        }
        m->threaded = true;
    }
    pthread_mutex_lock(&m->mu);
    while (m->in_tail - m->in_head >= SN_MCAP_INBOX)
        pthread_cond_wait(&m->room, &m->mu);
    bool failed = m->failed != SN_OK;
    pthread_mutex_unlock(&m->mu);
    if (failed)
        return;
    sn_inbox_entry *e = &m->inbox[m->in_tail % SN_MCAP_INBOX]; /* the tail is the listener's own */
    e->bytes.n = 0;
    sn_buf_put(&e->bytes, msg->data, msg->size);
    e->frame = msg->frame, e->sensor_id = msg->sensor_id, e->actors = sn_mcap_is_actors(msg->type_id);
    e->ticket = sn_png_share_current(msg->data, msg->size, &e->ticket_conv);
    pthread_mutex_lock(&m->mu);
    m->in_tail++;
    pthread_cond_signal(&m->more);
    pthread_mutex_unlock(&m->mu);
}

static void release(sn_mcap *m)
{
    stop_thread(m);
    sn_mcap_pool_free(m->pool); /* its workers stop before the file closes */
    sn_png_share_want(-1);
    sn_mcapw_free(m->w); /* first: its compressor may still be writing to f (a failed file) */
    if (m->f)
        fclose(m->f);
    msgpack_unpacked_destroy(&m->unp);
    sn_buf_free(&m->out);
    sn_buf_free(&m->frame_bytes);
    sn_buf_free(&m->map_update);
    free(m->pend);
    free(m->points);
    for (int k = 0; k < 2; k++)
        free(m->boxes[k].ids);
    sn_buf_free(&m->statics);
    free(m->spare_ids.ids);
    free(m->rot);
    free(m->prev_rot);
    sn_buf_free(&m->statics_now);
    free(m->is_static);
    for (size_t i = 0; i < m->n_saved; i++)
        free(m->saved[i].sensor), free(m->saved[i].pattern);
    free(m->saved);
    free(m->run_dir);
    free(m->extra);
    free(m->path);
    free(m->part);
    free(m);
}

sn_status sn_mcap_close(sn_mcap *m, bool commit, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m)
        return SN_OK;
    sn_status st = SN_OK;
    stop_thread(m); /* every message handed over is taken in first */
    if (commit) {
        if (m->failed)
            st = sn_fail(err, m->failed, "%s", m->fail_err.msg);
        if (!st)
            st = flush_frame(m, err);
        if (!st)
            st = sn_mcap_pool_drain(m->pool, err);
        if (!st && (st = sn_mcapw_finish(m->w, err)))
            sn_error_prefix(err, m->part);
        bool closed = fclose(m->f) == 0;
        m->f = NULL;
        if (!st && !closed)
            st = sn_fail(err, SN_E_IO, "%s: cannot finish writing: %s", m->part, strerror(errno));
        if (!st && !(st = sn_outdir_check_dest(m->path, false, err)) && m->overwrite && rename(m->part, m->path) != 0)
            st = sn_fail(err, SN_E_IO, "%s: cannot move into place as %s: %s", m->part, m->path, strerror(errno));
        if (!st && !m->overwrite) { /* link(2) fails, not replaces, when the name was taken meanwhile */
            if (link(m->part, m->path) != 0)
                st = sn_fail(err, errno == EEXIST ? SN_E_INVALID : SN_E_IO, "%s: cannot put in place as %s: %s",
                             m->part, m->path, errno == EEXIST ? "it appeared while the file was written" : strerror(errno));
            else
                unlink(m->part);
        }
        if (st)
            sn_error_prefix(err, "mcap");
    }
    release(m);
    return st;
}

const sn_library *sn_blueprints_library(const sn_blueprints *b); /* api_library.c */

sn_status sn_mcap_lazy_layouts(sn_mcap *m, sn_error *err)
{
    if (!m->layouts_lazy)
        return SN_OK;
    m->layouts_lazy = false;
    sn_error lerr = {0}; /* none found is no error */
    sn_blueprints *lib = sn_blueprints_open(&(sn_engine_options){.quiet_plugins = true}, &lerr);
    sn_status st = lib ? sn_mcap_add_layouts(m, lib, err) : SN_OK;
    sn_blueprints_close(lib);
    return st;
}

sn_status sn_mcap_add_layouts(sn_mcap *m, const sn_blueprints *lib, sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!m || !lib)
        return sn_fail(err, SN_E_INVALID, "mcap: add_layouts: NULL %s", !m ? "file" : "blueprints");
    sn_bin_layout *l, *copy;
    size_t n;
    sn_status st = sn_library_layouts(sn_blueprints_library(lib), &l, &n, err);
    if (st)
        return st;
    st = sn_layouts_clone(l, n, &copy, err);
    free(l);
    if (st)
        return st;
    free(m->extra);
    m->extra = copy, m->n_extra = n;
    return SN_OK;
}
