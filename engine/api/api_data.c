/* api_data.c — the public stream-file tools (sensim.h "Stream files"): `sensim dump` and
** `sensim convert` as library calls, and the message-by-message reader the views of a run
** (`convert --video`, `report`) are built on, over engine/data. */
#include "../data/dump.h"
#include "../data/image.h"
#include "../data/msgread.h"
#include "stream_reader.h"

#include "../core/error.h"
#include "../plugin/library.h"

#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

sn_status sn_stream_dump_bins(const char *path, FILE *out, unsigned flags, sn_error *err)
{
    sn_error local;
    if (!err)
        err = &local; /* the data code reads back err->status */
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "dump: %s is NULL", !path ? "the stream path" : "the output");
    if (flags & ~(unsigned)(SN_DUMP_BASE64 | SN_DUMP_DECODE))
        return sn_fail(err, SN_E_INVALID, "dump: unknown flags 0x%x", flags);
    return sn_dump_file(path, out, flags, err);
}

const sn_library *sn_blueprints_library(const sn_blueprints *b); /* api_library.c */

sn_status sn_stream_dump_with(const char *path, FILE *out, unsigned flags, const sn_blueprints *lib, sn_error *err)
{
    sn_error local;
    if (!err)
        err = &local;
    if (!lib)
        return sn_stream_dump_bins(path, out, flags, err);
    if (!path || !out)
        return sn_fail(err, SN_E_INVALID, "dump: %s is NULL", !path ? "the stream path" : "the output");
    if (flags & ~(unsigned)(SN_DUMP_BASE64 | SN_DUMP_DECODE))
        return sn_fail(err, SN_E_INVALID, "dump: unknown flags 0x%x", flags);
    sn_bin_layout *extra;
    size_t n;
    sn_status st = sn_library_layouts(sn_blueprints_library(lib), &extra, &n, err);
    if (st)
        return st;
    st = sn_dump_file_with(path, out, flags, extra, n, err);
    free(extra);
    return st;
}

sn_status sn_stream_dump(const char *path, FILE *out, bool full, sn_error *err)
{
    return sn_stream_dump_bins(path, out, full ? SN_DUMP_BASE64 : 0, err);
}

/* The public enum is its own type so that engine/data may change without changing the API. */
static bool to_internal(sn_color_converter c, sn_converter *out)
{
    switch (c) {
    case SN_COLOR_RAW: *out = SN_CONV_RAW; return true;
    case SN_COLOR_DEPTH: *out = SN_CONV_DEPTH; return true;
    case SN_COLOR_LOGARITHMIC_DEPTH: *out = SN_CONV_LOG_DEPTH; return true;
    case SN_COLOR_CITYSCAPES: *out = SN_CONV_CITYSCAPES; return true;
    }
    return false;
}

bool sn_color_converter_parse(const char *name, sn_color_converter *out)
{
    sn_converter c;
    if (!name || !out || !sn_converter_parse(name, &c))
        return false;
    switch (c) {
    case SN_CONV_RAW: *out = SN_COLOR_RAW; return true;
    case SN_CONV_DEPTH: *out = SN_COLOR_DEPTH; return true;
    case SN_CONV_LOG_DEPTH: *out = SN_COLOR_LOGARITHMIC_DEPTH; return true;
    case SN_CONV_CITYSCAPES: *out = SN_COLOR_CITYSCAPES; return true;
    }
    return false;
}

sn_status sn_stream_save_images(const char *path, const char *dir, sn_color_converter conv, size_t *written,
                                sn_error *err)
{
    return sn_stream_save_images_as(path, dir, conv, NULL, written, err);
}

sn_status sn_stream_save_images_as(const char *path, const char *dir, sn_color_converter conv, const char *format,
                                   size_t *written, sn_error *err)
{
    sn_error local;
    size_t n_local;
    if (!err)
        err = &local;
    if (!written)
        written = &n_local;
    *written = 0;
    sn_converter c;
    if (!path || !dir)
        return sn_fail(err, SN_E_INVALID, "convert: %s is NULL", !path ? "the stream path" : "the folder");
    if (!to_internal(conv, &c))
        return sn_fail(err, SN_E_INVALID, "convert: unknown converter %d", (int)conv);
    return sn_convert_stream(path, dir, c, format, written, err);
}


sn_status sn_stream_reader_picture(sn_stream_reader *r, sn_color_converter conv, bool points, sn_picture *out,
                                   sn_error *err)
{
    SN_ERR_LOCAL(err);
    if (!r || !out)
        return sn_fail(err, SN_E_INVALID, "stream reader: %s is NULL", !r ? "the reader" : "the picture");
    if (!r->have)
        return sn_fail(err, SN_E_STATE, "%s: no message to make a picture of", r->in.path);
    sn_converter c;
    if (!to_internal(conv, &c))
        return sn_fail(err, SN_E_INVALID, "picture: unknown converter %d", (int)conv);
    sn_picture_size ps;
    sn_status st = sn_image_picture(&r->msg.data, c, points, &r->pixels, &r->cap, &ps, err);
    if (st)
        return sn_error_prefix(err, r->in.path);
    *out = (sn_picture){ps.width, ps.height, ps.frame, r->pixels};
    return SN_OK;
}
